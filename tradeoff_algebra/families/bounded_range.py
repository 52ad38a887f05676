"""BR_eps: the tight trade-off function of every eps-bounded-range mechanism, the exponential
mechanism among them.

A mechanism M is eps-bounded range (eps-BR) when for neighbours D,
D' the privacy loss ``log(P(y)/Q(y))`` (P = M(D), Q = M(D')) varies by at most eps over the
outputs y (Durfee & Rogers 2019 define it and show the exponential mechanism is eps-BR). The
exponential mechanism with ``P(y) ~ exp(eps u(D, y)/(2 Delta))`` (McSherry & Talwar 2007) is
eps-BR: ``log(P(y)/Q(y)) = eps (u(D, y) - u(D', y))/(2 Delta) + log(Z'/Z)``, whose first term
lies in [-eps/2, eps/2] for utilities of sensitivity Delta.

Dong, Durfee & Rogers 2020 (Sec. 3.1 and 4, "reduction to generalized randomized response"):
the likelihood ratio q/p of an eps-BR pair lies in ``[e^{-t}, e^{eps - t}]`` for some
``t in [0, eps]``, and such a pair is a post-processing of the two-point generalized randomized
response with exactly these two ratios, ``P_t = (p, 1 - p)``, ``Q_t = (e^{-t} p, 1 - e^{-t} p)``,
``p = (e^eps - e^t)/(e^eps - 1)``. So ``T(P, Q) >= T(P_t, Q_t)``, and the tight statement for all
eps-BR mechanisms is the infimum over t. Derived here: ``T(P_t, Q_t)`` is the two-segment curve
through (0, 1), its knot ``(a_t, b_t) = ((e^t - 1)/(e^eps - 1), (e^eps - e^t)/(e^t (e^eps - 1)))``
and (1, 0); the knots run along

    BR_eps(alpha) = (1 - alpha) / (1 + (e^eps - 1) alpha),

which is convex (``((e^eps)/(e^eps - 1))/(1 + (e^eps - 1) alpha) - 1/(e^eps - 1)``), so each
two-segment curve, a pair of chords of it, lies above it: ``inf_t T(P_t, Q_t) = BR_eps``,
attained at every level (the knot with a_t = alpha). Two-candidate exponential mechanisms
attain each knot (utilities (x, 0) and (x - Delta, Delta), x real), so BR_eps is exactly the worst
case of the exponential mechanism over all utilities; ``tests/test_mechanisms_finite.py``
checks both by brute-force Neyman--Pearson. It is not the trade-off of one eps-BR pair: the
tensor power ``BR_eps^{(x) k}`` is a valid guarantee for k adaptively chosen exponential
mechanisms (Dong, Roth & Su, Thm. 4) but not their tight one (Dong, Durfee & Rogers compute
that).

Closed forms derived here and checked in the tests: ``1 - BR_eps(alpha) = e^eps alpha/(1 +
(e^eps - 1) alpha)``; the fixed point ``1/(1 + e^{eps/2})``; the privacy profile (Dong, Roth &
Su, Prop. 6) ``delta(e) = e^eps (1 - e^{(e - eps)/2})^2/(e^eps - 1)`` on ``[-eps, eps]``, 0 above
and ``1 - e^e`` below (so ``delta(0) = tanh(eps/4)``) and its inverse ``eps(delta) =
eps + 2 log(1 - sqrt(delta (1 - e^{-eps})))``; as a pair, ``BR_eps = T(U[0,1], Q)`` with
``dQ/dx = e^eps/(1 + (e^eps - 1)(1 - x))^2``, whose privacy loss
``L = eps - 2 log(1 + (e^eps - 1) V)``, V uniform, lies in [-eps, eps] with
``P(L <= t) = (e^eps - w)/(e^eps - 1)`` and ``Q(L <= t) = (e^eps/w - 1)/(e^eps - 1)``,
``w = e^{(eps - t)/2}``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import Paper
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import log_slope, monotonicity, profile_form
from ..numeric.context import mp
from ..numeric.privacy_loss import RHO_LIB, U64, AtomLoss, PrivacyLoss, loss_views, privacy_loss
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
)

__all__ = ["BoundedRange", "DDR", "DR19"]

DR19 = Paper("DR19", "Durfee & Rogers",
             "Practical differentially private top-k selection with pay-what-you-get "
             "composition (NeurIPS 2019)")
DDR = Paper("DDR", "Dong, Durfee & Rogers",
            "Optimal differential privacy composition for exponential mechanisms (ICML 2020)")


class BoundedRange(TradeOff):
    """BR_eps(alpha) = (1 - alpha)/(1 + (e^eps - 1) alpha), eps >= 0: the tight trade-off function
    of all eps-bounded-range mechanisms, hence of the exponential mechanism over all utilities
    (module docstring; Durfee & Rogers 2019; Dong, Durfee & Rogers 2020, Sec. 3.1 and 4)."""

    def __new__(cls, eps: Any):
        eps = param("eps", eps, lower=0, owner="BoundedRange")
        return TradeOff.__new__(cls, eps)

    @property
    def eps(self) -> sp.Expr:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        return (1 - alpha) / (1 + (sp.exp(self.eps) - 1) * alpha)

    def _eval_fixed_point(self):
        return 1 / (1 + sp.exp(self.eps / 2))

    def _eval_inverse(self):
        return self  # symmetric: alpha = (1 - beta)/(1 + (e^eps - 1) beta) solves beta = f(alpha)

    def _sympystr(self, printer):
        return "BoundedRange(%s)" % printer._print(self.eps)

    def _latex(self, printer):
        return r"\mathrm{BR}_{%s}" % printer._print(self.eps)


@exact_value.register(BoundedRange)
def _(f, A, Ac):
    e = sp.exp(f.eps)
    if not isinstance(e, sp.Rational):
        return None
    return Ac / (1 + (e - 1) * A)


@mp_value.register(BoundedRange)
def _(f, a, ac):
    c = mp.expm1(num(f.eps, "eps"))
    v = ac / (1 + c * a)
    return v, v


@mp_roc.register(BoundedRange)
def _(f, a, ac):
    eps = num(f.eps, "eps")
    v = mp.exp(eps) * a / (1 + mp.expm1(eps) * a)
    return v, v


@arb_value.register(BoundedRange)
def _(f, a, ac, power):
    eps = arb_ball(f.eps)
    d = 1 + eps.expm1() * a
    return eps.exp() * a / d if power else ac / d


@np_value.register(BoundedRange)
def _(f, x):
    c = math.expm1(float(f.eps)) if float(f.eps) < 700 else math.inf
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        v = (1 - x) / (1 + c * x)
    return np.where(x <= 0, 1.0, np.where(x >= 1, 0.0, v))


# -- privacy profile (module docstring) ----------------------------------------------------------
@mp_delta.register(BoundedRange)
def _(f, e):
    eps = num(f.eps, "eps")
    if e >= eps:
        return mp.zero, mp.zero
    if e <= -eps:
        v = -mp.expm1(e)
        return v, v
    # e^eps (1 - e^{(e - eps)/2})^2/(e^eps - 1) = expm1((e - eps)/2)^2/(-expm1(-eps))
    v = mp.expm1((e - eps) / 2) ** 2 / -mp.expm1(-eps)
    return v, v


@mp_epsilon.register(BoundedRange)
def _(f, d):
    eps = num(f.eps, "eps")
    if eps == 0 or d >= mp.tanh(eps / 4):  # delta(0) = tanh(eps/4)
        return mp.zero, mp.zero
    v = eps + 2 * mp.log1p(-mp.sqrt(-d * mp.expm1(-eps)))
    return v, v


@profile_form.register(BoundedRange)
def _(f, e):
    eps = f.eps
    if sp.Ge(e, eps) is sp.true:
        return sp.Integer(0)
    if sp.Le(e, eps) is sp.true and sp.Ge(e, -eps) is sp.true:
        return sp.exp(eps) * (1 - sp.exp((e - eps) / 2)) ** 2 / (sp.exp(eps) - 1)
    return None


@monotonicity.register(BoundedRange)
def _(f):
    return (-1,)


@log_slope.register(BoundedRange)
def _(f, a, ac):
    eps = num(f.eps, "eps")  # |f'| = e^eps/(1 + (e^eps - 1) alpha)^2
    return eps - 2 * mp.log1p(mp.expm1(eps) * a)


# -- privacy loss for the PLD engine (module docstring) ------------------------------------------
class BoundedRangeLoss(PrivacyLoss):
    """L = eps - 2 log(1 + (e^eps - 1) V), V ~ U[0, 1] under P: a continuous law on [-eps, eps].
    With ``x = (eps + t)/2`` and ``y = (eps - t)/2`` (x + y = eps):
    ``P(L <= t) = expm1(-x)/expm1(-eps)``, ``P(L > t) = expm1(y)/expm1(eps)``,
    ``Q(L <= t) = expm1(x)/expm1(eps)``, ``Q(L > t) = expm1(-y)/expm1(-eps)``, each without
    cancellation in its own tail."""

    MAX_EPS = 700.0

    def __init__(self, eps: float):
        if not (0 < eps <= self.MAX_EPS):
            raise ValueError("BoundedRangeLoss needs 0 < eps <= 700")
        self.eps = float(eps)

    def cdf(self, t, which, left=False):
        t = np.asarray(t, dtype=np.float64)
        e = self.eps
        tm = np.clip(t, -e, e)
        x, y = (e + tm) / 2, (e - tm) / 2
        if which == "P":
            F = np.expm1(-x) / math.expm1(-e)
            S = np.expm1(y) / math.expm1(e)
        else:
            F = np.expm1(x) / math.expm1(e)
            S = np.expm1(-y) / math.expm1(-e)
        F = np.where(t < -e, 0.0, np.where(t >= e, 1.0, F))
        S = np.where(t < -e, 1.0, np.where(t >= e, 0.0, S))
        return F, S

    @property
    def rel_err(self) -> float:
        return RHO_LIB + 8 * U64 * (1 + self.eps)

    def support(self, tau):
        return -self.eps, self.eps

    def heavy_atoms(self):
        return []


@privacy_loss.register(BoundedRange)


@loss_views("grid")
def _(f) -> PrivacyLoss | None:
    """The continuous loss of the pair (U[0,1], Q) (module docstring); Id's atom at eps = 0."""
    if f.free_symbols:
        return None
    e = float(f.eps)
    if not math.isfinite(e) or e > BoundedRangeLoss.MAX_EPS:
        return None
    return BoundedRangeLoss(e) if e > 0 else AtomLoss([0.0], [1.0], [1.0])
