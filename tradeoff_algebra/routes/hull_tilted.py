"""eps_C(delta) and delta_C(eps) of the symmetric hull C(g) of a power g = T(P, Q)^T of one law
with loss cells of its own (the Poisson-subsampled Laplace mechanism's, add/remove:
``AddRemove(Mix(Laplace(mu), q)**T)``), from both directions' powers, each with its tests'
null masses tilted (``numeric.tilted_cells``): the route of high per-step losses.

The hull's profile is the larger of its two directions' (Wang et al., Sec. 4; ``routes.engines``),
so delta_C(eps) lies in [max_i lo_i, max_i hi_i] and eps_C(d) in [max_i lo_i, max_i hi_i] for
certified brackets [lo_i, hi_i] of each direction's. ``routes.hull_cells`` reads the add
direction from the remove direction's power (delta_{g^-1}(eps) = 1 - e^eps + e^eps
delta_g(-eps)), which multiplies the fixed point's rounding by e^eps: at mu = 10, q = 1/100,
T = 43 its bracket of eps(1e-5) stays [21.6, 25.0]; here each direction has its own power and
the bracket is [25.0148170, 25.0148208] (800 cells a unit of loss, 1 s).

The grids: D_0 cells a unit of loss (about :data:`~..numeric.lattice_cells.CELLS` a step and at
least :data:`START_POINTS` lattice points), doubled while the bracket is wider than a quarter of
the tolerance, up to :data:`~..numeric.cells_curve.MAX_POINTS` lattice points and while the
next grid (about twice the last one's time) fits the time left and :data:`MAX_SECONDS`. Every
grid's brackets are intersected with the coarser ones'; a direction whose upper end lies below
the other's lower end is not refined further (the maximum is the other's). The grids do not
depend on the tolerance, so a tighter one computes every grid of a looser one and its bracket
lies inside the looser one's (up to the time-based stop). Where the bracket stays wider than
asked it is offered (``numeric.offer.Offer``): ``routes.engines`` intersects it with the
engines' enclosure or returns it with its ToleranceWarning.
"""

from __future__ import annotations

import math
import time

from ..core import trace
from ..numeric import budget
from ..numeric.cells_curve import MAX_POINTS
from ..numeric.cf_laws import working_precision
from ..numeric.context import mp
from ..numeric.lattice_cells import CELLS
from ..numeric.offer import Offer
from ..numeric.options import options
from ..numeric.protocol import short
from ..numeric.tilted_cells import PREC, TiltedCellPower
from ..numeric.value import CertifiedPair
from .engines import HULL_DELTA, HULL_EPSILON
from .hull_cells import SPAN_MIN, _hull_law
from .plan import _float_bracket

__all__ = ["hull_tilted_epsilon", "hull_tilted_delta", "ROUTE", "START_POINTS",
           "MAX_SECONDS"]

#: The route's note (``Value.route``).
ROUTE = "certified cells of both directions composed on a lattice (symmetric hull)"
#: The least lattice points of the first grid (a wide loss, mu = 100: 96 cells a step would be
#: two cells a unit of loss).
START_POINTS = 20_000
#: The route does not begin a grid it expects to end later than this many CPU seconds after
#: its start (the engines answer or intersect after it); a grid the time limit's wall-clock
#: time left cannot pay for is not begun either.
MAX_SECONDS = 8.0


def _laws(f) -> tuple | None:
    """((law, inverse law), T) of a hull of a power of one law with loss cells in both
    directions, else None."""
    got = _hull_law(f)
    if got is None:
        return None
    law, n = got
    inv = getattr(law, "inverse", None)
    if inv is None:
        return None
    other = inv()
    if not hasattr(other, "loss_cells") or not hasattr(law, "loss_span"):
        return None
    return (law, other), int(n)


def _power(law, T: int, D: int) -> TiltedCellPower:
    """The power of ``law``'s cells on the grid 1/D, or 1/(D + i) for the least i where no atom
    of the loss lies on a grid point to the working precision."""
    for i in range(8):
        try:
            with working_precision(PREC):
                cells = law.loss_cells(D + i)
            return TiltedCellPower(cells, T, D + i)
        except ValueError:  # (an atom on a grid point to the working precision)
            continue
    raise ValueError(f"hull_tilted: every grid 1/D, D = {D} .. {D + 7}, holds an atom of the "
                     "loss to the working precision")


def _refine(laws, T: int, read, rel: float, what: str):
    """The hull's bracket (lo, hi) from both directions' powers read by ``read(power)`` ->
    (lo, hi) on the grids of the module docstring; None where no grid is possible."""
    span = max(law.loss_span() for law in laws)
    top_d = math.floor(MAX_POINTS / (T * span))
    D = max(math.ceil(CELLS / span), math.ceil(START_POINTS / (T * span)))
    if top_d < 1 or D > top_d:
        return None
    start = time.process_time()
    brackets = [[0.0, math.inf], [0.0, math.inf]]
    live = [True, True]
    last = None
    while True:
        lo = max(b[0] for b in brackets)
        hi = max(b[1] for b in brackets)
        best = CertifiedPair(mp.mpf(lo), mp.mpf(hi)) if hi < math.inf else None
        budget.check(best)
        t0, c0 = time.monotonic(), time.process_time()
        for i, law in enumerate(laws):
            if not live[i]:
                continue
            try:
                a, b = read(_power(law, T, D))
            except budget.TimeLimitExceeded as exc:  # (inside a power: the coarser grids' best)
                if exc.best is not None or best is None:
                    raise
                raise budget.TimeLimitExceeded(exc.what, exc.seconds, best, exc.about) from None
            lo_i, hi_i = max(brackets[i][0], a), min(brackets[i][1], b)
            if lo_i > hi_i:
                raise ArithmeticError(f"hull_tilted: disjoint certified brackets of {what}: "
                                      f"[{a}, {b}] and {brackets[i]}")
            brackets[i] = [lo_i, hi_i]
        for i in (0, 1):  # (a direction below the other's lower end is not the maximum)
            if live[i] and brackets[i][1] < brackets[1 - i][0]:
                live[i] = False
        last, last_cpu = time.monotonic() - t0, time.process_time() - c0
        lo = max(b[0] for b in brackets)
        hi = max(b[1] for b in brackets)
        if hi < math.inf and hi - lo <= rel * hi:
            break
        if 2 * D > top_d:
            break
        if 2.2 * last > budget.remaining() or (
                time.process_time() - start + 2.2 * last_cpu > MAX_SECONDS):
            break
        D *= 2
    if not hi < math.inf:
        return None
    return lo, hi


def _answer(f, x, what: str, read) -> CertifiedPair | Offer | None:
    """``what`` of such a hull at the mpf ``x`` (``read(p, dn, up)`` of a direction's power
    at x's float bracket): a certified pair where its relative width is at most a quarter of
    the tolerance (``pld_options``), else an ``Offer`` of it; None where f is not such a hull
    or no grid fits."""
    got = _laws(f)
    if got is None:
        return None
    laws, T = got
    rel = options()["tol"] / 4
    dn, up = _float_bracket(x)
    r = _refine(laws, T, lambda p: read(p, dn, up), rel, f"{what} of {f} at {x}")
    if r is None:
        return None
    pair = CertifiedPair(mp.mpf(r[0]), mp.mpf(r[1]))
    if r[1] - r[0] > rel * r[1]:
        return Offer(pair, f"{what} of {short(f)}: the certified enclosure "
                           f"[{mp.nstr(pair[0], 12)}, {mp.nstr(pair[1], 12)}] of both "
                           "directions' loss cells is wider than the tolerance")
    trace.note(ROUTE)
    return pair


def hull_tilted_epsilon(f, d) -> CertifiedPair | Offer | None:
    """eps_C(d) of such a hull (an mpf 0 < d < 1), as :func:`_answer`; None where one step's
    loss spans less than ``routes.hull_cells.SPAN_MIN`` (the engines answer there)."""
    if not 0 < d < 1:
        return None
    got = _laws(f)
    if got is None or max(law.loss_span() for law in got[0]) < SPAN_MIN:
        return None
    return _answer(f, d, "eps", lambda p, dn, up: p.epsilon(dn, up))


def hull_tilted_delta(f, eps) -> CertifiedPair | Offer | None:
    """delta_C(eps) of such a hull (an mpf eps >= 0, finite), as :func:`_answer`; None where
    one step's loss spans less than ``routes.hull_cells.SPAN_MIN`` (the engines answer
    there)."""
    if not 0 <= eps < mp.inf:
        return None
    got = _laws(f)
    if got is None or max(law.loss_span() for law in got[0]) < SPAN_MIN:
        return None
    return _answer(f, eps, "delta", lambda p, dn, up: p.delta(dn, up))


HULL_EPSILON.append(hull_tilted_epsilon)
HULL_DELTA.append(hull_tilted_delta)
