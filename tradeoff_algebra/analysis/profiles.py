"""Closed-form privacy profiles delta(eps) = 1 + f^*(-e^eps) and their inverses eps(delta).

Registered with the numeric protocol's ``mp_delta`` and ``mp_epsilon`` dispatch points (the
latter for closed-form inverses). Every formula below follows from
Dong, Roth & Su, Prop. 6, ``delta(eps) = 1 + f^*(-e^eps) = 1 - inf_x {e^eps x + f(x)}``,
and is checked in ``tests/test_conversions.py`` against brute-force minimisation of
``e^eps x + f(x)`` on the family's own closed form.

* ``G_mu`` (Cor. 1): ``delta = Phi(a) - e^eps Phi(b)``, ``a = -eps/mu + mu/2``,
  ``b = -eps/mu - mu/2``. Computed as ``Phi(a) * (-expm1(t))`` with
  ``t = eps + log Phi(b) - log Phi(a) < 0``; mpmath numbers have an unbounded exponent, so
  ``log Phi`` never underflows, and the working precision is raised by the number of bits that
  the sum for ``t`` cancels (``log2((eps + |log Phi(a)| + |log Phi(b)| + 1) / |t|)``, which also
  covers the conditioning of ``Phi`` at the rounded arguments, ``~ a^2`` relative).
* ``L_mu``: on ``[e^{-mu}/2, 1/2]`` the slope of ``L_mu`` is ``-e^{-mu}/(4 x^2)``; it equals
  ``-e^eps`` at ``x = e^{-(mu+eps)/2}/2`` where ``e^eps x + L_mu(x) = e^{(eps-mu)/2}``, so
  ``delta(eps) = 1 - e^{(eps - mu)/2} = -expm1((eps - mu)/2)`` for ``eps < mu`` and ``0`` for
  ``eps >= mu`` (the infimum is then ``L_mu(0) = 1``).
* ``f_{eps0,delta0}`` (Eq. (5)): for ``eps >= eps0`` the infimum is at ``x = 0`` (``delta0``);
  for ``0 <= eps < eps0`` it is at the kink ``x* = (1 - delta0)/(1 + e^eps0)``:
  ``delta = 1 - (1 - delta0)(1 + e^eps)/(1 + e^eps0)
  = (e^eps expm1(eps0 - eps) + delta0 (1 + e^eps)) / (1 + e^eps0)`` (a sum of non-negative
  terms: no cancellation). Inverse: ``eps(delta) = log((e^eps0 + delta0 - delta (1 + e^eps0))
  / (1 - delta0))`` for ``delta0 <= delta <= delta(0)``.
* ``Id``: 0. ``Zero``: 1.
"""

from __future__ import annotations

from ..core.errors import NumericalError
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace import Laplace
from ..families.trivial import IdTradeOff, ZeroTradeOff
from ..numeric.context import mp
from ..numeric.normal import (
    NCDF_ASYMPTOTIC,
    NCDF_MAX,
    log_ncdf,
    ncdf,
    ncdf_enclosure,
    ncdf_tail_bound,
)
from ..numeric.protocol import mp_delta, mp_epsilon, num
from ..numeric.value import CertifiedPair

__all__ = ["mp_epsilon", "gaussian_delta"]


# -- Gaussian (Dong, Roth & Su, Cor. 1) ----------------------------------------------------------
def gaussian_delta(mu, eps):
    """delta(eps) of G_mu at the current precision, full relative accuracy (Cor. 1).

    ``mu > 0`` and ``0 <= eps < inf`` are mpf. See the module docstring for the method.
    """
    target = mp.prec
    prec = target + 30
    for _ in range(24):
        with mp.workprec(prec):
            a = -eps / mu + mu / 2
            b = -eps / mu - mu / 2
            la, lb = log_ncdf(a), log_ncdf(b)
            t = eps + lb - la
            scale = abs(eps) + abs(la) + abs(lb) + 1
            if t < 0:
                lost = int(mp.ceil(mp.log(scale / -t, 2)))
                if prec - lost >= target + 20:
                    d = ncdf(a) * -mp.expm1(t)
                    break
            else:  # every bit cancelled (tiny mu: t ~ mu^2 against log-terms ~ (eps/mu)^2)
                lost = 2 * prec
        prec = target + lost + 40
    else:  # pragma: no cover - doubling reaches any cancellation the parser admits
        raise NumericalError(f"delta of G({mu}) at eps={eps} did not converge")
    return +d


@mp_delta.register(Gaussian)
def _(f, eps):
    mu = num(f.mu, "mu")
    if mu == 0 or eps == mp.inf:
        return mp.zero, mp.zero
    a, b = -eps / mu + mu / 2, -eps / mu - mu / 2
    if a < -NCDF_ASYMPTOTIC:  # 0 <= delta <= Phi(a), astronomically small: bounded, not computed
        return mp.zero, ncdf_enclosure(a)[1]
    if b < -NCDF_MAX:  # Phi(a) - e^eps Phi(b) with e^eps Phi(b) <= e^eps 2^-k, beyond all digits
        pa = ncdf(a)
        return max(pa - mp.exp(eps) * ncdf_tail_bound(b), mp.zero), pa
    v = gaussian_delta(mu, eps)
    return v, v


@mp_epsilon.register(Gaussian)
def _(f, d):
    # delta(eps) > 0 for every finite eps when mu > 0 (Phi(a) > e^eps Phi(b)): eps(0) = inf.
    if d == 0 and num(f.mu, "mu") > 0:  # a proof, not a computation
        return CertifiedPair(mp.inf, mp.inf)
    if num(f.mu, "mu") == 0:
        return mp.zero, mp.zero
    return None


# -- Laplace -----------------------------------------------------------------------------------
@mp_delta.register(Laplace)
def _(f, eps):
    mu = num(f.mu, "mu")
    v = -mp.expm1((eps - mu) / 2) if eps < mu else mp.zero
    return v, v


@mp_epsilon.register(Laplace)
def _(f, d):
    mu = num(f.mu, "mu")
    # delta(0) = 1 - e^{-mu/2}; on [0, mu] eps = mu + 2 log(1 - delta); delta(mu) = 0.
    if d >= -mp.expm1(-mu / 2):
        return mp.zero, mp.zero
    v = mu + 2 * mp.log1p(-d)
    return v, v


# -- f_{eps0, delta0} ----------------------------------------------------------------------------
@mp_delta.register(EpsDelta)
def _(f, eps):
    e0, d0 = num(f.eps, "eps"), num(f.delta, "delta")
    if eps >= e0:
        return d0, d0
    # (e^eps expm1(e0 - eps) + d0 (1 + e^eps)) / (1 + e^e0), divided through by e^e0 so that a
    # large e0 neither overflows nor cancels
    w = mp.exp(-e0)
    v = (-mp.expm1(eps - e0) + d0 * (w + mp.exp(eps - e0))) / (1 + w)
    return v, v


@mp_epsilon.register(EpsDelta)
def _(f, d):
    e0, d0 = num(f.eps, "eps"), num(f.delta, "delta")
    if d < d0:
        return mp.inf, mp.inf
    E0 = mp.exp(e0)
    if d >= (mp.expm1(e0) + 2 * d0) / (1 + E0):  # delta(0) = TV
        return mp.zero, mp.zero
    v = mp.log((E0 + d0 - d * (1 + E0)) / (1 - d0))
    v = min(max(v, mp.zero), e0)
    return v, v


# -- Id and Zero -------------------------------------------------------------------------------
@mp_delta.register(IdTradeOff)
def _(f, eps):
    return mp.zero, mp.zero


@mp_epsilon.register(IdTradeOff)
def _(f, d):
    return mp.zero, mp.zero


@mp_delta.register(ZeroTradeOff)
def _(f, eps):
    return mp.one, mp.one


@mp_epsilon.register(ZeroTradeOff)
def _(f, d):
    return (mp.zero, mp.zero) if d >= 1 else (mp.inf, mp.inf)
