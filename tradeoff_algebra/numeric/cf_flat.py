"""Where one power of a law has a view whose M(c + it) costs the same at every t (the optional
law method ``flat_view``: the Poisson-subsampled Gaussian's Chebyshev model of its tilted loss
density, ``families/gaussian_sampled_poly.py``), the inversion of :mod:`.cf_route` takes that
view when its estimated time is the smaller: the law's own plan costs n max(1, n h) units of
:data:`UNIT_SECONDS` (a quadrature per node whose grid grows with t), the view's
``build_seconds`` once and ``node_seconds`` per node. Both views enclose the same M(c + it)
(each a certified ball), so the choice changes the time, never the guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import budget
from .cf import _first_plan
from .cf_laws import Factor

__all__ = ["flat_factors", "UNIT_SECONDS", "MAX_STEPS"]

#: Seconds per unit of the law's own planned work (measured 2 to 11 us; the middle).
UNIT_SECONDS = 8e-6
#: The largest power given the flat view (a few to a few hundred steps; many steps plan few
#: nodes, and where their whole law's plan is long its far tail needs the law's cut instead,
#: ``cf_route._cut_enclosure``).
MAX_STEPS = 1000


def flat_factors(factors: Sequence[Factor], at: float, rel: float,
                 own_cap: float | None = None) -> list[Factor]:
    """``factors`` with its one law replaced by the law's ``flat_view()`` where that is
    estimated faster at the plan for eps = ``at`` and relative width ``rel``, or where the
    law's own plan is beyond ``own_cap`` (the route's cap of its work: DP-SGD, sigma = 4,
    T = 20 at the default tolerance, 42 000 units against 40 000, was left to the PLD engine
    while the view's plan is 16 nodes), else unchanged."""
    factors = list(factors)
    if len(factors) != 1 or not at > 0:
        return factors
    law, n = factors[0]
    view = getattr(law, "flat_view", None)
    if view is None or n > MAX_STEPS:
        return factors
    try:
        plan = _first_plan(factors, at, rel)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, ArithmeticError, OverflowError):
        plan = None
    flat = view()
    if plan is not None:
        work = plan.n_nodes * max(1.0, plan.n_nodes * plan.h)
        within = own_cap is None or work <= own_cap
        if within and work * UNIT_SECONDS <= flat.build_seconds + plan.n_nodes * flat.node_seconds:
            return factors
    return [(flat, n)]
