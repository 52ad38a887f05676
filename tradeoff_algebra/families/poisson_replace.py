"""One step of the Poisson-subsampled Gaussian mechanism under replace-one neighbours.

Replacing one record x by x' changes a clipped gradient sum S + b g(x) into S + b g(x'), with
b ~ Bernoulli(q) the record's inclusion and ||g(x) - g(x')|| <= 2 ||g|| (the worst case is
g(x') = -g(x)). With noise N(0, sigma^2) and mu = ||g||/sigma the pair is (after shifting and
scaling)

    P = (1 - q) N(0, 1) + q N(mu, 1),    Q = (1 - q) N(0, 1) + q N(-mu, 1),

``PoissonReplace(mu, q) = T(P, Q)`` (the "substitution" pair of PLD accountants). Its
likelihood ratio ``dQ/dP(x) = ((1 - q) + q c e^{-mu x})/((1 - q) + q c e^{mu x})``,
``c = e^{-mu^2/2}``, decreases in x, so the Neyman-Pearson tests reject for x < t:

    alpha = F_P(t) = (1 - q) Phi(t) + q Phi(t - mu),
    1 - f(alpha) = F_Q(t) = (1 - q) Phi(t) + q Phi(t + mu).

The reflection x -> -x exchanges P and Q, so f is symmetric. t is found by bisection inside
[Phi^{-1}(alpha), Phi^{-1}(alpha) + mu] (Phi(t - mu) <= F_P(t) <= Phi(t)), from the upper
tail for alpha > 1/2. The privacy profile has a closed form: dQ/dP = e^eps at e^{mu t} = u,
the positive root of ``e^eps q c u^2 + (e^eps - 1)(1 - q) u - q c = 0``, i.e.
``u = 2 q c/(b + sqrt(b^2 + 4 e^eps q^2 c^2))``, b = (e^eps - 1)(1 - q), and
``delta(eps) = F_Q(t) - e^eps F_P(t)`` (Dong, Roth & Su, Prop. 6).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.context import mp
from ..numeric.normal import ncdf, ncdf_inv
from ..numeric.protocol import mp_delta, mp_roc, mp_value, np_value, num

__all__ = ["PoissonReplace"]


class PoissonReplace(TradeOff):
    """T((1-q) N(0,1) + q N(mu,1), (1-q) N(0,1) + q N(-mu,1)): mu >= 0, q in [0, 1] (module
    docstring)."""

    def __new__(cls, mu: Any, q: Any):
        mu = param("mu", mu, lower=0, owner="PoissonReplace")
        q = param("q", q, lower=0, upper=1, owner="PoissonReplace")
        return TradeOff.__new__(cls, mu, q)

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    @property
    def q(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer) -> str:
        return "PoissonReplace(%s, %s)" % (printer._print(self.mu), printer._print(self.q))

    def _latex(self, printer) -> str:
        return r"R_{%s}^{%s}" % (printer._print(self.mu), printer._print(self.q))


def _params(f):
    return num(f.mu, "mu"), num(f.q, "q")


def _threshold(mu, q, a, ac):
    """(t_lo, t_hi) bracketing the t with F_P(t) = alpha (from 1 - alpha for alpha > 1/2)."""
    lower = a <= ac
    if lower:
        lo = ncdf_inv(a)

        def above(t):  # F_P(t) > alpha
            return (1 - q) * ncdf(t) + q * ncdf(t - mu) > a
    else:
        lo = -ncdf_inv(ac)  # Phi^{-1}(alpha) from the exact complement

        def above(t):  # 1 - F_P(t) < 1 - alpha
            return (1 - q) * ncdf(-t) + q * ncdf(mu - t) < ac
    hi = lo + mu
    for _ in range(mp.prec + 20):
        m = (lo + hi) / 2
        if m == lo or m == hi:
            break
        if above(m):
            hi = m
        else:
            lo = m
    return lo, hi


def _value(f, a, ac, power: bool):
    mu, q = _params(f)
    if a == 0:
        return (mp.zero, mp.zero) if power else (mp.one, mp.one)
    if ac == 0:
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)
    if mu == 0 or q == 0:
        return (a, a) if power else (ac, ac)
    tl, th = _threshold(mu, q, a, ac)
    u = mp.ldexp(1, -(mp.prec - 8))
    if power:  # F_Q(t), increasing in t
        lo = (1 - q) * ncdf(tl) + q * ncdf(tl + mu)
        hi = (1 - q) * ncdf(th) + q * ncdf(th + mu)
    else:  # 1 - F_Q(t), decreasing in t
        lo = (1 - q) * ncdf(-th) + q * ncdf(-th - mu)
        hi = (1 - q) * ncdf(-tl) + q * ncdf(-tl - mu)
    return max(mp.zero, lo * (1 - u)), min(mp.one, hi * (1 + u))


mp_value.register(PoissonReplace)(lambda f, a, ac: _value(f, a, ac, False))
mp_roc.register(PoissonReplace)(lambda f, a, ac: _value(f, a, ac, True))


@mp_delta.register(PoissonReplace)
def _(f, eps):
    mu, q = _params(f)
    if mu == 0 or q == 0:
        v = max(mp.zero, -mp.expm1(eps))
        return v, v
    E = mp.exp(eps)
    c = mp.exp(-mu * mu / 2)
    b = mp.expm1(eps) * (1 - q)
    uroot = 2 * q * c / (b + mp.sqrt(b * b + 4 * E * q * q * c * c))
    t = mp.log(uroot) / mu
    v = (1 - q) * ncdf(t) + q * ncdf(t + mu) - E * ((1 - q) * ncdf(t) + q * ncdf(t - mu))
    v = max(v, mp.zero)
    return v, v


@np_value.register(PoissonReplace)
def _(f, x):
    from scipy import special

    mu, q = float(f.mu), float(f.q)
    x = np.asarray(x, dtype=np.float64)
    if mu == 0 or q == 0:
        return 1.0 - x
    lo = special.ndtri(np.clip(x, 0, 1))
    hi = lo + mu
    lo = np.where(np.isfinite(lo), lo, -40.0)
    hi = np.where(np.isfinite(hi), hi, 40.0)
    for _ in range(80):
        m = (lo + hi) / 2
        above = (1 - q) * special.ndtr(m) + q * special.ndtr(m - mu) > x
        hi, lo = np.where(above, m, hi), np.where(above, lo, m)
    t = (lo + hi) / 2
    y = (1 - q) * special.ndtr(-t) + q * special.ndtr(-t - mu)
    return np.where(x <= 0, 1.0, np.where(x >= 1, 0.0, y))
