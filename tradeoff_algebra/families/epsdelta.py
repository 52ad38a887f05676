"""The (epsilon, delta)-DP trade-off function f_{eps,delta}.

Dong, Roth & Su, Eq. (4): ``f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha,
e^{-eps}(1 - delta - alpha)}``; it is symmetric, piecewise linear with a kink at its fixed point
``(1 - delta)/(1 + e^eps)`` and zero on ``[1 - delta, 1]``. It is the trade-off function of the
four-point pair standard in the proof of Prop. 3 (Wasserman & Zhou) and used by the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.core.logic import fuzzy_and

from ..core.citations import DRS
from ..core.node import TradeOff
from ..core.normal import PhiInv
from ..core.rules import hook, rule
from ..core.validate import fuzzy_equals, param
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import (
    functional_form,
    gdp_mu_form,
    kinks,
    log_slope,
    monotonicity,
    profile_form,
    renyi_form,
)
from ..numeric.context import mp
from ..numeric.finite import FiniteLoss
from ..numeric.finite_small import positive_eps0, register_pure_power
from ..numeric.knots import clean_knots, pl_knots
from ..numeric.privacy_loss import delta_part, loss_views, privacy_loss
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_conjugate,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
)
from ..numeric.value import CertifiedPair
from .trivial import Id, Zero

__all__ = ["EpsDelta"]


class EpsDelta(TradeOff):
    """f_{eps,delta} with eps >= 0 and 0 <= delta <= 1 (Dong, Roth & Su, Eq. (4))."""

    def __new__(cls, eps: Any, delta: Any = 0):
        eps = param("eps", eps, lower=0, owner="EpsDelta")
        delta = param("delta", delta, lower=0, upper=1, owner="EpsDelta")
        return TradeOff.__new__(cls, eps, delta)

    @property
    def eps(self) -> sp.Expr:
        return self.args[0]

    @property
    def delta(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        e, d = sp.exp(self.eps), self.delta
        kink = (1 - d) / (1 + e)
        # strict inequalities: the same values (f is continuous), and ``derivative`` then gives
        # the right derivative at the kinks (TradeOff.derivative)
        return sp.Piecewise((1 - d - e * alpha, alpha < kink),
                            ((1 - d - alpha) / e, alpha < 1 - d),
                            (sp.S.Zero, True))

    def _eval_fixed_point(self):
        return (1 - self.delta) / (1 + sp.exp(self.eps))

    def _sympystr(self, printer):
        return "EpsDelta(%s, %s)" % (printer._print(self.eps), printer._print(self.delta))

    def _latex(self, printer):
        return r"f_{%s,%s}" % (printer._print(self.eps), printer._print(self.delta))


@exact_value.register(EpsDelta)
def _(f, A, Ac):
    d = f.delta
    if isinstance(d, sp.Rational) and (A == 0 or Ac == 0):  # the ends at any eps (Eq. (4),
        return 1 - d if A == 0 else sp.S.Zero  # e^eps >= 1): f(0) = 1 - delta, f(1) = 0
    e = sp.exp(f.eps)
    if not (isinstance(e, sp.Rational) and isinstance(d, sp.Rational)):
        return None
    return max(sp.S.Zero, 1 - d - e * A, (Ac - d) / e)


@mp_value.register(EpsDelta)
def _(f, a, ac):
    """Eq. (4) with ``1 - delta`` formed exactly (SymPy) before rounding, and ``1 - delta -
    alpha`` taken from the operands that keep their digits (``(1 - delta) - alpha`` when delta
    is near 1, ``(1 - alpha) - delta`` otherwise); what cancels near the kinks is caught by the
    caller's precision check (``numeric.protocol.certified``)."""
    eps, d = num(f.eps, "eps"), num(f.delta, "delta")
    dc = num(sp.expand(1 - f.delta), "1 - delta")
    rest = dc - a if d > 0.5 else ac - d  # 1 - delta - alpha
    v = max(mp.zero, dc - mp.exp(eps) * a, mp.exp(-eps) * rest)
    return v, v


@mp_roc.register(EpsDelta)
def _(f, a, ac):
    eps, d = num(f.eps, "eps"), num(f.delta, "delta")
    # 1 - e^{-eps}(1 - d - a) = -expm1(-eps) + e^{-eps}(d + a)
    v = min(mp.one, d + mp.exp(eps) * a, -mp.expm1(-eps) + mp.exp(-eps) * (d + a))
    return v, v


@arb_value.register(EpsDelta)
def _(f, a, ac, power):
    """Eq. (4) as balls, ``1 - delta`` formed exactly first (cancellation near the kinks and
    at the zero piece shows as a wide ball, which sends the call to the mpmath route)."""
    from flint import arb

    eps, d = arb_ball(f.eps), arb_ball(f.delta)
    if power:  # 1 - e^{-eps}(1 - d - a) = -expm1(-eps) + e^{-eps}(d + a)
        return arb(1).min(d + eps.exp() * a).min(-(-eps).expm1() + (-eps).exp() * (d + a))
    dc = arb_ball(sp.expand(1 - f.delta))
    rest = dc - a if f.delta > sp.S.Half else ac - d  # 1 - delta - alpha
    return arb(0).max(dc - eps.exp() * a).max((-eps).exp() * rest)


@np_value.register(EpsDelta)
def _(f, x):
    e, d = float(sp.exp(f.eps)), float(f.delta)
    return np.maximum(0.0, np.maximum(1 - d - e * x, ((1.0 - x) - d) / e))


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# The family's own rules, and its hooks for the tensor product (core.rules.hook). Every identity
# below was checked against brute-force Neyman-Pearson on the product of the finite pairs (the
# randomized-response pair of f_{eps,0} and the three-point pair of f_{0,delta}) with exact
# rationals.


@rule(EpsDelta, cite=DRS.eq(5, note="f_{0,0}(alpha) = max{0, 1 - alpha}"), priority=100)
def epsdelta_zero_is_id(f: EpsDelta):
    """f_{0,0} = Id: (0, 0)-DP is perfect privacy."""
    return Id if fuzzy_and([fuzzy_equals(f.eps, 0), fuzzy_equals(f.delta, 0)]) else None


@rule(EpsDelta, cite=DRS.eq(5, note="f_{eps,1}(alpha) = max{0, -e^eps alpha, -e^-eps alpha}"),
      priority=100)
def epsdelta_delta_one_is_zero(f: EpsDelta):
    """f_{eps,1} = 0 for every eps: (eps, 1)-DP promises nothing."""
    return Zero if fuzzy_equals(f.delta, 1) is True else None


def _is_pure_delta(f) -> bool:
    return isinstance(f, EpsDelta) and fuzzy_equals(f.eps, 0) is True


def _merged_delta(deltas) -> sp.Expr:
    prod = sp.S.One
    for d in deltas:
        prod *= 1 - d
    return 1 - prod


@hook("tensor", cite=DRS.eq(11), priority=60)
def epsdelta_tensor_delta(factors):
    """f_{0,d_1} (x) ... (x) f_{0,d_k} = f_{0, 1 - (1-d_1)...(1-d_k)} (Eq. (11), iterated).

    f_{0,d} = T(U[0,1], U[d, 1+d]); all f_{0,d_i} factors of a product merge in one step.
    """
    pure = [f for f in factors if _is_pure_delta(f)]
    if len(pure) < 2:
        return None
    rest = [f for f in factors if not _is_pure_delta(f)]
    return [EpsDelta(0, _merged_delta([f.delta for f in pure])), *rest]


@hook("tensor", cite=DRS.at("Eqs. (10) and (11)"), priority=59)
def epsdelta_tensor_absorb_delta(factors):
    """f_{eps,d_1} (x) f_{0,d_2} = f_{eps, 1 - (1-d_1)(1-d_2)}.

    By Eq. (10), f_{eps,d_1} = f_{eps,0} (x) f_{0,d_1}; Eq. (11) merges f_{0,d_1} (x) f_{0,d_2}
    and Eq. (10) read backwards gives the result. Fires when the product has a factor f_{0,d}
    (eps certainly 0) and another (eps, delta) factor whose eps is not known to be 0; the
    first such factor (in canonical order) absorbs the delta.
    """
    pure = [f for f in factors if _is_pure_delta(f)]
    other = [f for f in factors if isinstance(f, EpsDelta) and not _is_pure_delta(f)]
    if len(pure) != 1 or not other:
        return None
    target = other[0]
    merged = EpsDelta(target.eps, _merged_delta([target.delta, pure[0].delta]))
    rest = list(factors)
    rest.remove(pure[0])
    rest.remove(target)
    return [merged, *rest]


# -- convex conjugate (Dong, Roth & Su, Eq. (7)) ------------------------------------------------
def _register_epsdelta_conjugate() -> None:
    @mp_conjugate.register(EpsDelta)
    def _(f, y):
        """f_{eps,delta}^*(y): f is piecewise linear with vertices 0, x* = (1 - delta)/(1 + e^eps),
        1 - delta and 1, so the concave y alpha - f(alpha) peaks at one of them:
        max{-(1 - delta), (y - 1) x*, y (1 - delta), y}."""
        eps, d = num(f.eps, "eps"), num(f.delta, "delta")
        xs = (1 - d) / (1 + mp.exp(eps))
        v = max(-(1 - d), (y - 1) * xs, y * (1 - d), y)
        return v, v


_register_epsdelta_conjugate()


# -- C_p of f_{eps,delta} (the Subsample operator's hook) ---------------------------------------
@hook("subsample", cite=DRS.at("Cor. 3, Eq. (14)", note="corrected: the linear piece is "
                               "1 - p(e^eps - 1 + 2 delta)/(e^eps + 1) - alpha"), priority=70)
def subsample_epsdelta(g, p):
    """C_p(f_{eps,delta}) = max{f_{eps',delta'}, f_{0,c}} (the two returned) with (corrected
    Eq. (14))

        eps' = log(1 - p + p e^eps),  delta' = p delta,
        c = p (e^eps - 1 + 2 delta) / (e^eps + 1),

    the linear piece of Eq. (13), x* + f_p(x*) - alpha at the fixed point
    x* = (1 - delta)/(1 + e^eps) of f_{eps,delta}, being 1 - c - alpha = f_{0,c}(alpha) where
    it matters.

    The paper prints the linear piece as 1 - p delta - p (e^eps - 1)/(e^eps + 1) - alpha, i.e.
    c = p delta + p (e^eps - 1)/(e^eps + 1); that is correct only for delta = 0 or eps = 0 and
    otherwise too small (still a valid lower bound, not the identity). Counterexample:
    eps = log 3, delta = 1/2, p = 1/2, alpha = 1/4: the exact lower convex envelope of
    min{f_p, f_p^{-1}} gives C_p(f)(1/4) = 3/8 (= the corrected form), the printed Eq. (14)
    gives 1/4. See proofs/drs_counterexamples.md.
    """
    if not isinstance(g, EpsDelta):
        return None
    e, d = sp.exp(g.eps), g.delta
    main = EpsDelta(sp.log(1 - p + p * e), p * d)
    line = EpsDelta(0, p * (e - 1 + 2 * d) / (e + 1))
    return [main, line]


@hook("subsample", cite=DRS.at("Eq. (13)", note="f = 0, fixed point 0"), priority=80)
def subsample_zero_function(g, p):
    """C_p(0) = f_{0,p}: by Eq. (13) with x* = 0, C_p(0)(x) = 1 - p - x on [0, 1 - p], then 0.

    (Also Eq. (14) at delta = 1 once corrected.) Checked against the exact convex envelope of
    min{0_p, 0_p^{-1}}.
    """
    return [EpsDelta(0, p)] if g == Zero else None


# -- finite representation, knots and the f_{0,delta} part (numeric.finite, .envelope, .pld) -----
@privacy_loss.register(EpsDelta)
@loss_views("grid", "exact")
def _(f):
    """The four-point pair of f_{eps,delta} (exact; None for symbolic parameters)."""
    if f.free_symbols:
        return None
    return FiniteLoss.epsdelta(f.eps, f.delta)


@pl_knots.register(EpsDelta)
def _(f):
    """f_{eps,delta} (Eq. (4)): knots (0, 1 - delta), its fixed point
    x* = (1 - delta)/(1 + e^eps), (1 - delta, 0), (1, 0)."""
    e, d = sp.exp(f.eps), f.delta
    xs = (1 - d) / (1 + e)
    zero, one = sp.S.Zero, sp.S.One
    return clean_knots([(zero, 1 - d), (xs, xs), (1 - d, zero), (one, zero)])


@delta_part.register(EpsDelta)
def _(f):
    """f_{eps,delta} = f_{eps,0} (x) f_{0,delta} (Dong, Roth & Su, Eq. (10))."""
    if f.free_symbols:
        return f, 0
    rest = EpsDelta(f.eps, 0) if f.eps.is_zero is False else None
    return rest, (f.delta if f.delta.is_zero is False else 0)


# -- privacy profile (Dong, Roth & Su, Prop. 6 and Eq. (5)) -------------------------------------
# For eps >= eps0 the infimum of e^eps x + f(x) is at x = 0 (delta0); for 0 <= eps < eps0 it is
# at the kink x* = (1 - delta0)/(1 + e^eps0): delta = 1 - (1 - delta0)(1 + e^eps)/(1 + e^eps0)
# = (e^eps expm1(eps0 - eps) + delta0 (1 + e^eps)) / (1 + e^eps0), a sum of non-negative terms.
# Inverse: eps(delta) = log((e^eps0 + delta0 - delta (1 + e^eps0)) / (1 - delta0)) for
# delta0 <= delta <= delta(0).
@mp_delta.register(EpsDelta)
def _(f, eps):
    e0, d0 = num(f.eps, "eps"), num(f.delta, "delta")
    if eps >= e0:
        return d0, d0
    # divided through by e^e0 so that a large e0 neither overflows nor cancels
    w = mp.exp(-e0)
    v = (-mp.expm1(eps - e0) + d0 * (w + mp.exp(eps - e0))) / (1 + w)
    return v, v


@mp_epsilon.register(EpsDelta)
def _(f, d):
    e0, d0 = num(f.eps, "eps"), num(f.delta, "delta")
    if d < d0:  # delta(eps) >= delta0 > d for every eps: a proof, not a computation
        return CertifiedPair(mp.inf, mp.inf)
    E0 = mp.exp(e0)
    if d >= (mp.expm1(e0) + 2 * d0) / (1 + E0):  # delta(0) = TV
        return mp.zero, mp.zero
    v = mp.log((E0 + d0 - d * (1 + E0)) / (1 - d0))
    v = min(max(v, mp.zero), e0)
    return v, v


@profile_form.register(EpsDelta)
def _(f, eps):
    e0, d0 = f.args
    if sp.Ge(eps, e0) is sp.true:
        return d0
    if sp.Le(eps, e0) is sp.true:
        return 1 - (1 - d0) * (1 + sp.exp(eps)) / (1 + sp.exp(e0))
    return None


# -- functionals and Renyi divergences of the four-point pair (Eq. (10)) ------------------------
@functional_form.register(EpsDelta)
def _(f, name):
    e, d = f.eps, f.delta
    E = sp.exp(e)
    if name == "tv":
        return (E - 1 + 2 * d) / (1 + E)
    if name == "auc":  # int f = (1 - d) x* with x* = (1 - d)/(1 + e^eps)
        return 1 - (1 - d)**2 / (1 + E)
    if name == "chi2_plus":  # slope -e^eps on [0, x*], above -1 elsewhere
        return (1 - d) * (E - 1)**2 / (1 + E)
    k = e * (E - 1) / (E + 1)
    x = 1 / (1 + E)
    forms = {"kl": k, "kappa2": e**2, "kappa3": e**3,
             "kappa3_bar": x * (e + k)**3 + (1 - x) * (e - k)**3}
    v = forms.get(name)
    if v is None:
        return None
    # delta > 0: f' = 0 on [1 - delta, 1], so log|f'| = -oo on a set of positive length.
    if d.is_zero:
        return v
    if d.is_positive:
        return sp.oo
    return sp.Piecewise((v, sp.Eq(d, 0)), (sp.oo, True))


@log_slope.register(EpsDelta)
def _(f, a, ac):
    e, d = num(f.eps, "eps"), num(f.delta, "delta")
    if a < (1 - d) / (1 + mp.exp(e)):
        return e
    return -e if ac > d else mp.ninf


@kinks.register(EpsDelta)
def _(f):
    """f_{eps,delta} (Eq. (4)) has slopes -e^eps, -e^{-eps}, 0: its derivative jumps at the
    fixed point (1 - delta)/(1 + e^eps) when eps > 0 (for eps = 0 both slopes are -1) and at
    1 - delta when delta > 0 (1 - delta = 1 is the end of the interval, not a kink)."""
    e, d = num(f.eps, "eps"), num(f.delta, "delta")
    out = [(1 - d) / (1 + mp.exp(e))] if e > 0 and d < 1 else []
    return out + ([1 - d] if 0 < d < 1 else [])


@renyi_form.register(EpsDelta)
def _(f, a):
    """+oo for delta > 0 and a > 1 (P has mass delta where Q has none); otherwise
    ``1/(a-1) log((1 - delta)(e^{a eps} + e^{(1-a) eps})/(1 + e^eps))``."""
    e, d = f.eps, f.delta
    if (1 - d).is_zero:  # f_{eps,1} = 0: P and Q are mutually singular, D_a = +oo
        return sp.oo
    if a is sp.oo:
        return e if d.is_zero else (sp.oo if d.is_positive else None)
    pure = sp.log((1 - d) * (sp.exp(a * e) + sp.exp((1 - a) * e)) / (1 + sp.exp(e))) / (a - 1)
    if d.is_zero:
        return pure
    gt = sp.Gt(a, 1)
    if gt is sp.true:
        return sp.oo if d.is_positive else None
    if gt is sp.false:
        return pure
    return None


@gdp_mu_form.register(EpsDelta)
def _(f):
    """f_{eps,0}: 2 Phi^{-1}(e^eps/(1 + e^eps)) (on its first segment f = 1 - e^eps alpha, the
    GDP ratio is non-decreasing, so the sup is at the fixed point alpha* = 1/(1 + e^eps), where
    it is 2 Phi^{-1}(1 - alpha*); analysis/gdp_mu.py); +oo for delta > 0 (f(0) < 1)."""
    if f.delta.is_zero:
        return 2 * PhiInv(sp.exp(f.eps) / (1 + sp.exp(f.eps)))
    if f.delta.is_positive:
        return sp.oo
    return None


@monotonicity.register(EpsDelta)
def _(f):
    return (-1, -1)


@register_pure_power(EpsDelta)
def _(f):
    """f_{eps0,0} is f_{eps0,0}^{(x) 1} (numeric.finite_small: eps(delta) by its two atoms)."""
    eps0, d = f.args
    return (eps0, 1) if d is sp.S.Zero and positive_eps0(eps0) else None
