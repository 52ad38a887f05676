"""The convex conjugate f^*(y) = sup_alpha { y alpha - f(alpha) } (Dong, Roth & Su, Eq. (7)).

f^* is a convex function on R, not a trade-off function; it is the bridge to (eps, delta):
delta(eps) = 1 + f^*(-e^eps) (Prop. 6).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.node import (
    PREC_ATOM,
    PREC_POSTFIX,
    Applied,
    TradeOff,
    TradeOffExpr,
    register_operator,
)
from ..core.validate import param
from ..numeric import budget
from ..numeric.context import MPF, mp
from ._base import operand

__all__ = ["Conjugate", "conjugate_value"]


@register_operator
class Conjugate(TradeOffExpr):
    """f^* (Dong, Roth & Su, Eq. (7)); ``f.conjugate()``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, f: Any):
        return TradeOffExpr.__new__(cls, operand(f, "Conjugate"))

    @property
    def arg(self):
        return self.args[0]

    def __call__(self, y: Any) -> sp.Expr:
        return Applied(self, param("y", y))

    def _latex(self, printer):
        return r"%s^{*}" % self._latex_parens(printer, self.arg, PREC_ATOM)


# ================================================================================================
# NUMERIC EVALUATION of the convex conjugate: ta.conjugate_value(f, y, dps)
# ================================================================================================
# f^*(y) = sup_{alpha in [0, 1]} {y alpha - f(alpha)} (Eq. (7), f = +oo outside [0, 1]) is finite
# for every real y. Families register closed forms with numeric.protocol.mp_conjugate (G_mu by
# the optimality condition f'(alpha) = y, Laplace, f_{eps,delta}, Id, Zero in their modules).
# Every other trade-off expression goes through the generic route: for y >= 0 the supremum is
# y (alpha = 1, f(1) = 0); for a piecewise-linear f with known knots (numeric.knots.pl_knots)
# it is the largest y x_k - f(x_k) over the knots; otherwise, for y < 0, the concave
# y alpha - f(alpha) is maximised with a certified golden-section bracket and chord bounds
# (numeric.concave.max_concave), an enclosure.

def _register_conjugate_numerics() -> None:
    from ..numeric.concave import max_concave
    from ..numeric.knots_eval import pl_knots_cached, pl_mp_conjugate
    from ..numeric.protocol import mp_conjugate, mp_value
    from ..numeric.roots import level

    @mp_conjugate.register(TradeOff)
    def _(f, y):
        if y >= 0:
            return y, y
        k = pl_knots_cached(f)
        if k is not None:  # piecewise linear: the supremum sits at a knot
            return pl_mp_conjugate(k, y)

        def psi(t):
            lo, hi = mp_value(f, *level(t))
            return y * t - hi, y * t - lo

        eps = mp.ldexp(1, -(mp.prec - 8))  # cover the rounding of y * t

        def widened(lo, hi):
            return lo - eps * (1 + abs(y)), hi + eps * (1 + abs(y))

        lo, hi, _ = max_concave(psi, mp.zero, mp.one, best_of=widened)
        return widened(lo, hi)


_register_conjugate_numerics()


def _real_number(y: Any) -> sp.Expr:
    """An exact SymPy real number from ``y`` (floats and mpf exactly, as their binary value)."""

    from ..core.errors import InvalidParameter

    if isinstance(y, MPF):
        if not mp.isfinite(y):
            raise InvalidParameter("y", y, "a finite real number")
        from mpmath.libmp import to_rational

        return sp.Rational(*to_rational(y._mpf_))
    Y = param("y", y, owner="conjugate_value")
    if Y.free_symbols:
        raise InvalidParameter("y", y, "a real number", "conjugate_value",
                               f"substitute values for {sorted(map(str, Y.free_symbols))}")
    return sp.Rational(Y) if isinstance(Y, sp.Float) else Y


def _certified_by_profile(g: TradeOffExpr, Y: sp.Expr, dps: int):
    """f^*(Y) for Y <= -1 as a certified Value from the family's closed-form privacy profile:
    f^*(-e^eps) = delta_f(eps) - 1 (Dong, Roth & Su, Prop. 6, eps = log(-Y) >= 0), the form
    enclosed in Arb (:func:`~..numeric.arb_expr.certify`); None where ``g`` has no profile form
    or Arb cannot enclose it (the mpmath routes answer, as estimates)."""
    from ..numeric.arb_expr import certify
    from ..numeric.capability import profile_form

    if not (Y.is_real and (Y <= -1) is sp.true):
        return None
    form = profile_form(g, sp.log(-Y))
    if form is None or form.free_symbols:
        return None
    v = certify(form - 1, dps)
    return None if v is None else v.routed("Arb ball of delta(log(-y)) - 1 (Prop. 6)")


def _shown(a: dict) -> str:
    from ..numeric.protocol import short

    return f"conjugate_value({short(a['f'])}, {short(a['y'])})"


@budget.deadline(_shown)
def conjugate_value(f: TradeOffExpr, y: Any, dps: int = 30):
    """The convex conjugate f^*(y) = sup_{alpha in [0,1]} {y alpha - f(alpha)} as a ``Value``.

    Dong, Roth & Su, Eq. (7) (f extended by +oo outside [0, 1]). ``f`` is a trade-off
    expression or its ``Conjugate`` node (``f.conjugate()``); ``y`` is any real number (floats
    are taken exactly). Closed forms (G_mu, L_mu, f_{eps,delta}, Id, 0, and every f at y >= 0,
    where f^*(y) = y) give lo = hi to ``dps`` digits; everything else a guaranteed enclosure
    [lo, hi] from a certified concave maximisation. The result always lies in
    [max(y, -1), max(y, 0)].

    >>> conjugate_value(G(1), -1)   # doctest: +SKIP
    Value(-0.6170750774519738..., dps=30)
    """
    from ..numeric.protocol import GUARD_DPS, mp_conjugate, num, prepare_call
    from ..numeric.value import Value

    g = f.arg if isinstance(f, Conjugate) else f
    prepare_call(g, dps)
    Y = _real_number(y)
    v = _certified_by_profile(g, Y, dps)
    if v is not None:
        return v
    with mp.workdps(dps + GUARD_DPS):
        yv = num(Y, "y")
        lo, hi = mp_conjugate(g, yv)
        # y alpha - f(alpha) <= max(y, 0), and alpha = 0, 1 give -f(0) >= -1 and y
        floor, ceil = max(yv, -mp.one), max(yv, mp.zero)
        lo, hi = min(max(lo, floor), ceil), max(min(hi, ceil), floor)
        return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)
