"""The privacy profile of two replace-one DP-SGD steps, ``PoissonReplace(mu, q)**2``, as a certified
one-dimensional integral in Arb, for the few-step route of the certified inversion
(``numeric/cf_profile.py``, before any plan): the inversion of two steps at small q needs
|t| ~ 1/(q mu) and thousands of nodes (the loss's central part is ~ q mu wide).

Notation of :mod:`.poisson_replace_law`: P = (1 - q) N(0, 1) + q N(mu, 1),
Q = (1 - q) N(0, 1) + q N(-mu, 1), w = q e^{-mu^2/2}/(1 - q), u = e^{mu x}, the loss
L(x) = log(1 + w u) - log(1 + w/u), increasing from -oo to +oo.

One step at any real level e (the extended profile). {L > e} = {x > s(e)}, s = log(v)/mu with
v the positive root of w v^2 + (1 - e^e) v - w e^e = 0 (``poisson_replace_poly._Density.u_of``'s
two forms), so

    H(e) = P(L > e) - e^e Q(L > e)
         = (1 - q)(1 - e^e) Phi_c(s) + q (Phi_c(s - mu) - e^e Phi_c(s + mu)),

H(e) = E_P[(1 - e^{e - L})_+]: non-increasing in e, 0 <= H <= 1 (Dong, Roth & Su, Prop. 6 with
the Neyman-Pearson lemma).

Two steps. Conditioning on the first step, delta_2(eps) = E_P[(1 - e^{eps - L_1 - L_2})_+]
= int p(x) H(eps - L(x)) dx, p = phi (1 - q)(1 + w u) the density of P. On [X_lo, X_hi] the
integrand is analytic near the real segment (the logarithms and the square root are checked to
stay off their branch cuts on every ball Arb's integration asks about, ``analytic=True``), so
``acb.integral`` (certified Gauss-Legendre with error bounds from the integrand on complex
ellipses) encloses it. Outside: for x > X_hi, 0 <= H <= 1, so that part lies in
[0, P(x > X_hi)]; for x < X_lo, eps - L(x) > eps - L(X_lo) and H is non-increasing, so that
part lies in [0, H(eps - L(X_lo)) P(x < X_lo)]. The ends are moved out until both bands are
below rel/16 of a first estimate; the precision rises until the ball is as narrow as asked.

Time limits: past the caller's deadline the integrand returns 0 (``budget.expired``; an
``acb.integral`` cannot be interrupted) and every integral is followed by ``budget.check``, which
then raises (a monotonic clock): the 0s never reach a ball (as :mod:`.gaussian_sampled_profile`).
"""

from __future__ import annotations

import math

from flint import acb, arb

from ..numeric import budget
from ..numeric.cf_laws import lower, upper
from ..numeric.context import arb_precision
from .poisson_replace_poly import _Density

__all__ = ["two_step_delta", "few_step_delta"]


def _phi_c(x):
    return (x / arb(2).sqrt()).erfc() / 2


class _Pair:
    """Arb (or acb) closed forms of the pair at the current precision."""

    def __init__(self, law) -> None:
        self.dens = _Density(law, arb(0))
        self.mu, self.q, self.w = self.dens.mu, self.dens.q, self.dens.w

    def loss(self, x, analytic: bool = False):
        w = acb(self.w) if isinstance(x, acb) else self.w
        mx = self.mu * x
        if isinstance(x, acb):
            a = (1 + w * mx.exp()).log(analytic=analytic)
            b = (1 + w * (-mx).exp()).log(analytic=analytic)
            return a - b
        return (w * mx.exp()).log1p() - (w * (-mx).exp()).log1p()

    def hockey(self, e, analytic: bool = False):
        """H(e) of the module docstring (arb or acb e)."""
        if isinstance(e, acb):
            v = self.dens.u_of(e, analytic)
            s = v.log(analytic=analytic) / acb(self.mu)
        else:
            v = self.dens.u_of(acb(e), False).real
            s = v.log() / self.mu
        big_e = e.exp()
        q, mu = self.q, self.mu
        return ((1 - q) * (-e.expm1()) * _phi_c(s)
                + q * (_phi_c(s - mu) - big_e * _phi_c(s + mu)))

    def mass_above(self, x: arb) -> arb:
        return (1 - self.q) * _phi_c(x) + self.q * _phi_c(x - self.mu)

    def mass_below(self, x: arb) -> arb:
        return (1 - self.q) * _phi_c(-x) + self.q * _phi_c(self.mu - x)


def _integral(pair: _Pair, eps: arb, lo: float, hi: float, rel: float, scale: float) -> arb:
    mu, q, w = acb(pair.mu), acb(pair.q), acb(pair.w)
    root2pi = (2 * arb.pi()).sqrt()
    ee = acb(eps)

    def integrand(x, analytic):
        if budget.expired():  # (a cheap value, never used: the check below raises)
            return acb(0)
        ell = pair.loss(x, analytic)
        if not ell.is_finite():
            return acb("nan")
        h = pair.hockey(ee - ell, analytic)
        dens = (1 - q) * (-x * x / 2).exp() * (1 + w * (mu * x).exp()) / root2pi
        return dens * h

    abs_tol = arb(rel * scale / 8) if scale > 0 else None
    v = acb.integral(integrand, acb(lo), acb(hi), rel_tol=rel / 8, abs_tol=abs_tol,
                     eval_limit=200_000).real
    budget.check()  # (past the deadline the integrand gave 0s: the ball is not used)
    return v


def _bands(pair: _Pair, eps: arb, lo: float, hi: float) -> tuple[arb, arb]:
    above = pair.mass_above(arb(hi))
    below = pair.hockey(eps - pair.loss(arb(lo))) * pair.mass_below(arb(lo))
    return arb(0).union(arb(upper(above))), arb(0).union(arb(upper(below)))


def two_step_delta(law, eps: float, rel: float) -> arb:
    """A ball of delta(eps) of ``law``'s two-fold product (module docstring), exact float
    ``eps`` >= 0, to relative width ``rel`` where the precision cap allows (a wider ball is
    still a proved one). Ends and precision found at the last eps within 1e-2 (relative) are
    taken again: a search calls this at many nearby eps (any ends give a valid ball)."""
    last = getattr(law, "_two_step_plan", None)
    if last is not None and abs(last[0] - eps) <= 1e-2 * max(eps, 1e-300) and last[1] <= rel:
        _, _, lo, hi, bits, scale = last
    else:
        lo, hi = -12.0, 12.0 + float(law.mu)
        bits = 96
        with arb_precision(bits):
            pair = _Pair(law)
            e0 = arb(eps)
            est = abs(float(_integral(pair, e0, lo, hi, 1e-3, 0.0).mid()))
            scale = est
            for _ in range(200):
                up, down = _bands(pair, e0, lo, hi)
                bu, bd = float(up.upper()), float(down.upper())
                if bu + bd <= rel * est / 16 or est == 0:
                    break
                if bu > rel * est / 32:
                    hi += 1.0
                if bd > rel * est / 32:
                    lo -= 1.0
        bits = 64 + int(-math.log2(max(rel, 1e-300)))
    prec = bits
    while True:
        with arb_precision(prec):
            pair = _Pair(law)
            e0 = arb(eps)
            core = _integral(pair, e0, lo, hi, rel / 4, scale)
            up, down = _bands(pair, e0, lo, hi)
            v = core + up + down
        if v.is_finite() and (v.rad() <= rel * abs(v.mid()) or prec >= 1024):
            break
        prec *= 2
    law._two_step_plan = (eps, rel, lo, hi, prec, scale)
    return arb.max(v, arb(0))


def few_step_delta(law, n: int, eps: float, rel: float) -> tuple[float, float] | None:
    """Float bounds (lo, hi) of delta(eps) of ``law``'s n-fold product for n = 2, else None."""
    if n != 2:
        return None
    v = two_step_delta(law, eps, rel)
    return max(lower(v), 0.0), min(upper(v), 1.0)
