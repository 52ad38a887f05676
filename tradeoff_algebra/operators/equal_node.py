"""The point route of an inverse node proved equal to a node without the inverse: f^{-1} = f for
symmetric f (Dong, Roth & Su, after Prop. 2; ``operators.unary.inverse_route``), such as the
symmetric hull C(g) = C(g)^{-1}, is answered by that node's own routes (the hull's inverse fell
to the PLD grid's estimate, [0.304, 1.0] at tol 1e-9, where the hull's point is certified)."""

from __future__ import annotations

import sympy as sp

from ..numeric.protocol import POINT_ROUTES, point_of
from ..numeric.value import Value
from .unary import Inverse, inverse_route


def equal_node_point(f, A: sp.Rational, dps: int, power: bool) -> Value | None:
    """f^{-1}(A) (``power``: its power) as the certified point of the equal node, or None for
    other nodes (a point route of ``numeric.protocol``)."""
    if not isinstance(f, Inverse):
        return None
    kind, obj = inverse_route(f)
    if kind != "node":
        return None
    v = point_of(obj, A, dps, power)
    return None if v is None else v.routed(f"{v.route} (f^-1 = {obj.__class__.__name__} node)")


POINT_ROUTES.insert(1, equal_node_point)  # (after the closed form, before every other route)
