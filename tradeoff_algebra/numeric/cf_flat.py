"""Where one power of a law has a view whose M(c + it) costs the same at every t (the optional
law method ``flat_view``: the Poisson-subsampled Gaussian's Chebyshev model of its tilted loss
density, ``families/gaussian_sampled_poly.py``), the inversion of :mod:`.cf_route` takes that
view when its estimated time is the smaller: the law's own plan costs n max(1, n h) units of
:data:`UNIT_SECONDS` (a quadrature per node whose grid grows with t), the view's
``build_seconds`` once and ``node_seconds`` per node. Both views enclose the same M(c + it)
(each a certified ball), so the choice changes the time, never the guarantee.

:func:`flat_enclosure` is the short path of one such power whose law's own plan is beyond its
cap (a few DP-SGD steps at sigma >= 2): the route's choices (the width, the view) from one plan
of the view, the one the search then inverts on first, where the general path made three more
plans (DP-SGD, sigma = 4, q = 256/60000, T = 10, eps(1e-5) at the
default tolerance: 0.094 s, of which 0.02 s planned the law's own work at 1e-10 and 0.012 s the
law's and the view's at the width asked).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import budget
from .cf import _first_plan, _saddle, _saddle_epsilon, _seed_epsilon, delta_enclosure
from .cf_epsilon import LOCATE_REL, _one_grid_width, epsilon_enclosure, seeded_width
from .cf_laws import Factor

__all__ = ["flat_factors", "flat_enclosure", "UNIT_SECONDS", "MAX_STEPS"]

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



def flat_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float,
                   own_cap: float) -> tuple[float, float] | None:
    """The enclosure of ``cf_route._plain_enclosure`` for one power (n <= :data:`MAX_STEPS`) of
    a law with a ``flat_view`` whose own plan is beyond ``own_cap`` (the route's cap of its
    work), from the view at once; None where that is not shown (the general path then answers
    as before). One plan decides: the first plan of the view's own search (the eps search's
    first grid at its guess, :func:`~.cf_epsilon.epsilon_enclosure`, at the width of delta it
    asks or at its locating width, or delta's first grid; kept by ``cf._first_plan`` and
    inverted next), whose work for the law's own evaluation (the two share every planning
    bound) is above ``own_cap``. Then the general path's choices
    are these: the width ``rel`` is kept (the law's plan at the route's tighter floor of widths,
    ``cf_route.REL_FLOOR``, has at least as many nodes: beyond the cap too) and the view is
    taken (the law's own plan is beyond its cap). The view's own cap and the time left are
    enforced by the inversion's re-plans (``cf._replan_cap``). Every ball is certified by the
    inversion whatever the plan; the plan only sets the work.

    An eps search whose law gives its own float estimate of eps and of the slope of log delta
    (``cf_saddle._seed_epsilon``: the subsampled Gaussian's float PLD) is answered here
    whatever the law's own plan: its one grid is planned at the estimate, at the level itself
    and at the width that slope asks (``cf_epsilon.seeded_width``), at the tolerance asked (the
    law's own plan at ``cf_route.REL_FLOOR`` is not tried: DP-SGD, sigma = 2 and 4, T = 100 at
    the default tolerance took 0.14 s there for a 1e-11 wide answer, 0.04 to 0.05 s here)."""
    factors = list(factors)
    if len(factors) != 1 or not 0 < dn <= up:
        return None
    law, n = factors[0]
    view = getattr(law, "flat_view", None)
    if view is None or n > MAX_STEPS or getattr(law, "cut", None) is not None:
        return None
    flat = [(view(), n)]
    unit = getattr(flat[0][0], "node_seconds", None)
    if unit is None or not getattr(flat[0][0], "scan_contour", False):
        return None
    try:
        seed = _seed_epsilon(flat, dn) if kind == "epsilon" else None
        log_level = None
        if kind == "delta":
            at, plan_rel = dn, rel
        elif seed is not None:  # (the law's own estimate of eps and of the slope: one grid at
            at, slope = seed  # the level, its width from that slope, epsilon_enclosure's)
            plan_rel, log_level = seeded_width(rel, at, slope), math.log(dn)
        else:  # (the eps search's first plan: its guess and its width of delta, kept)
            at = _saddle_epsilon(flat, dn)
            if not at > 0:
                return None
            tight = 0.4 * rel * max(at * _saddle(flat, at), 1e-3)
            plan_rel = _one_grid_width(flat, at, max(tight, LOCATE_REL), tight)
        plan = _first_plan(flat, at, plan_rel, log_delta=log_level)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, ArithmeticError, OverflowError):
        return None
    own_work = plan.n_nodes * max(1.0, plan.n_nodes * plan.h)
    if (own_work <= own_cap and seed is None) or plan.n_nodes * unit > budget.remaining():
        return None
    if kind == "delta":
        lo, hi = delta_enclosure(flat, up, rel)
        if dn != up:
            hi = delta_enclosure(flat, dn, rel)[1]
        return lo, hi
    return epsilon_enclosure(flat, dn, rel, up, guess=at,
                             slope=None if seed is None else seed[1])
