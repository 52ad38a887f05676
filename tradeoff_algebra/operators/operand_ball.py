"""An operand's ball for the operators that combine balls (f_p, group privacy, the maximum):
the operand's own ``arb_value``, else the maximum of its exact finite loss's segment lines.

A finite pair f = T(P, Q) is convex and piecewise linear, so f(alpha) is the maximum over its
atoms (ordered by likelihood ratio) of the lines through its segments (Dong, Roth & Su,
Appendix A; ``numeric.finite_values.FiniteValues.arb_value``); with the masses as Arb balls
(closed forms such as randomized response's e/(e + 2), enclosed exactly where they are
rational) every line is a ball and so is the maximum, for any level ball. This is the route
that certifies C_p(RR(1, 3)^{(x) 5}) and RR(1, 3)^{(x) 5} itself ("exact finite composition in
Arb"); a product has no ``arb_value`` of its own when it is finite (its routes answer its
values from the table), so without it f_p, Group and Max of such an operand fell back to the
mpmath evaluation, an estimate: Mix(RR(1, 3)^{(x) 5}, 1/3), Group(RR(1, 2)^{(x) 3}, 2).
"""

from __future__ import annotations

from typing import Any

from flint import arb, ctx

from ..core.node import TradeOff
from ..numeric.finite import finite_loss
from ..numeric.protocol import arb_value

__all__ = ["operand_ball"]


def operand_ball(g: TradeOff, a: arb, ac: arb, power: bool) -> arb | None:
    """A ball of g(alpha) (``power``: 1 - g(alpha)) from the balls ``a`` = alpha and ``ac`` =
    1 - alpha at Arb's working precision: g's ``arb_value``, else the lines of g's exact finite
    loss where it is affordable (:meth:`FiniteLoss.arb_value`, read at ``a``); None where
    neither gives a finite ball."""
    b = arb_value(g, a, ac, power)
    if b is not None:
        return b
    fl: Any = finite_loss(g)
    if fl is None or not fl.affordable():
        return None
    b = fl.arb_value(a, power, ctx.prec)
    return b if b is not None and b.is_finite() else None
