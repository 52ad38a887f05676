"""Certified values and powers of the symmetric hull of one step, C(g) with g not a product
(``AddRemove(Mix(Laplace(mu), q))``: the Poisson-subsampled Laplace mechanism once), by the
operand's own identity for its hull.

C(g) = min{g, g^{-1}}^{**} (Wang et al., Sec. 4), and for g = f_p = Mix(f, p) with f symmetric
that is C_p(f) by definition (Dong, Roth & Su, Def. 6), whose values Eq. (13) gives in Arb
(``operators.subsample``: f_p and f_p^{-1} closed forms, the latter by a certified bisection,
joined by the tangent line through (t, f_p(t))): the node's ``_eval_symmetric_hull``. The
mpmath route of C(g) reads the same target (``operators.unary``); here its Arb ball answers
among the certified point routes, before the loss cells' band (``routes.hull_cells``), whose
grids stopped at relative widths of 3e-8 after 3 s at tol = 1e-9 (mu = 1, q = 1/100).
"""

from __future__ import annotations

import sympy as sp

from ..core import trace
from ..numeric.protocol import POINT_ROUTES, _arb_point
from ..numeric.value import Value
from ..operators.tensor import Tensor, TensorPower, unit_power_base
from ..operators.unary import Inverse, SymmetricHull
from .inversion_curve import hull_point

__all__ = ["hull_one_point", "ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "Arb ball of the one-step hull's identity (C(f_p) = C_p(f), Eq. (13))"


def _target(f):
    """The node equal to the hull f = C(g) of one step that its operand names
    (``_eval_symmetric_hull``; C(g^{-1}) = C(g)), else None."""
    if not isinstance(f, SymmetricHull):
        return None
    g = unit_power_base(f.arg)
    while isinstance(g, Inverse):
        g = unit_power_base(g.arg)
    if isinstance(g, (Tensor, TensorPower)) or g.is_symmetric is True:
        return None  # (products: routes.engines; a symmetric g is its own hull)
    return g._eval_symmetric_hull()


def hull_one_point(f, A: sp.Rational, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) of the hull of one step from the Arb ball of its target, a
    certified point to ``dps`` digits; None where the route does not apply or the ball is too
    wide (``numeric.protocol``'s Arb point route)."""
    t = _target(f)
    if t is None:
        return None
    v = _arb_point(t, A, dps, power)
    if v is None:
        return None
    trace.note(ROUTE)
    return v.routed(ROUTE)


# (before the inversion's point route, and so before the cells' routes, which
# ``routes.hull_cells`` places around it)
POINT_ROUTES.insert(POINT_ROUTES.index(hull_point), hull_one_point)
