"""The band of a symmetric trade-off function from certified balls of its privacy profile on a
grid of eps (``numeric.profile_band.band``, second order in the step): a uniform grid doubled
while too wide, then points added near each level's minimisers (:func:`_refine`), the grid of
few levels cut to the points near their minimisers (:func:`_near`), a lattice of losses
refined to its Neyman-Pearson vertices. Its directions are any objects whose ``delta(eps)`` is
a certified ball: the inversion's (``routes.inversion_curve``) and every certified delta route
of a product (``routes.profile_curve``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from flint import arb

from ..core.errors import ToleranceWarning
from ..numeric import budget
from ..numeric.cf_laws import working_precision
from ..numeric.profile_band import Band, band
from ..numeric.progress import bar

__all__ = ["grid_band", "profile_grid", "GRID_START", "GRID_MAX", "GRID_LOCAL", "LOCAL_LEVELS"]

#: Points of the first eps grid (doubled while the band is too wide: each doubled grid keeps
#: every point of the last, k/n = 2k/2n, so a product that needs the finer grid pays for no
#: more delta balls than if it had started there, and one that does not stops early: two
#: incommensurate lattices at 1e-6, 41 balls instead of 321), and the most the refinement
#: goes to.
GRID_START = 40
GRID_MAX = 2560
#: The uniform grid stops doubling at this many points when the band is still too wide: grid
#: points are then added near the levels' minimisers (:func:`_refine`), at most
#: :data:`LOCAL_ROUNDS` rounds and :data:`LOCAL_MAX` points in all.
GRID_LOCAL = 320
#: At most this many levels go to the local refinement straight from the first grid.
LOCAL_LEVELS = 8
#: The first grid of those few levels.
GRID_LOCAL_START = 16
LOCAL_ROUNDS = 24
LOCAL_SPLIT = 8
LOCAL_MAX = 40000


def profile_grid(dirs: list, eps: Sequence[float], progress=None) -> list:
    """Balls of max over the directions of delta(eps_i) at each grid point; from the largest
    eps down where every direction asks it (``largest_first``: a route whose certificate for
    one eps, cached, serves every eps below it, as the off-grid discrete Gaussians'
    enumeration, is then built once at its largest size rather than grown step by step)."""
    out: list = [None] * len(eps)
    order = range(len(eps))
    if dirs and all(getattr(d, "largest_first", False) for d in dirs):
        order = sorted(order, key=lambda i: -eps[i])
    with working_precision(64):
        for i in order:
            e = eps[i]
            if i % 16 == 0:
                budget.check()
            hi_lo, hi_hi = arb(0), arb(0)
            for d in dirs:
                b = d.delta(float(e))
                lo_b, hi_b = arb(b.lower()), arb(b.upper())
                hi_lo = lo_b if lo_b > hi_lo else hi_lo
                hi_hi = hi_b if hi_b > hi_hi else hi_hi
            out[i] = arb((hi_lo + hi_hi) / 2, (hi_hi - hi_lo) / 2)
            if progress is not None:
                progress.update()
    return out


def grid_band(directions: Sequence, x: np.ndarray, tol: float, end: float,
              progress: bool | None = None, known: dict | None = None,
              mirror: Sequence | None = None) -> Band:
    """The band of the profile max_d delta_d(eps) of ``directions`` (objects whose
    ``delta(eps)`` is a certified ball) on a grid of eps in [0, end]
    (:func:`numeric.profile_band.band`, certified whatever ``end``: its tails are bounded),
    doubled while too wide, then refined near the levels' minimisers (:func:`_refine`). Few
    levels start on a coarse grid and go to the local refinement at once (one value of an
    expensive profile, C_p(G_1)^{(x) 10} at 1e-3: 69 delta balls instead of 335).
    ``known``: balls of the profile at grid points already computed (updated in place: a
    caller that keeps it pays only for the new points of its next levels). A single direction
    with a ``lattice`` attribute (``numeric.profile_band.Lattice``: every finite loss on it)
    starts on the coarse grid whatever the levels and is refined to the lattice losses near
    the minimisers, where its band is exact (linear between them).

    ``mirror``: the directions of f^{-1} where f is not known to be symmetric (the product and
    its inverse: ``numeric.profile_band.band``'s ``delta2``, the branch h_2 from their
    profile); ``known`` then holds pairs of balls (f's, f^{-1}'s), and no lattice is used."""
    lat = None if mirror is not None else _lattice(directions)
    local = x.size <= LOCAL_LEVELS or lat is not None
    n = (LATTICE_START if lat is not None and x.size <= LOCAL_LEVELS
         else GRID_LOCAL_START if local else GRID_START)
    known = {} if known is None else known
    result = None
    span = min(end, _span(x)) if local else end
    with bar(None, "curve (inversion)", progress, unit="delta") as shown:
        while True:  # the uniform grid, then grid points near the levels' minimisers
            eps = [0.0] + [span * k / n for k in range(1, n + 1)]
            if result is not None and span < end and _far_tail(result, x, span, tol):
                eps.append(end)  # (h_2's tail past the span decides a power near 1)
            missing = [e for e in eps if e not in known]
            for e, d in zip(missing, _grid(directions, mirror, missing, shown), strict=True):
                known[e] = d
            grid = _near(sorted(known), known, x)  # (with the points of earlier calls)
            new = _band_of(grid, known, x, lat)
            result = new if result is None else result.intersect(new)
            # (alpha = 0 is left out: f(0) = 1 - delta(oo) is no grid's to decide)
            if local and span < end and end not in known and _far_tail(result, x, span, tol):
                continue  # (once more, with the far end)
            if (not _too_wide(result, x, tol).any() or 2 * n > GRID_MAX or n >= GRID_LOCAL
                    or local):
                break
            n *= 2
        result = _refine(directions, known, x, result, tol, shown, lat, mirror)
    return result


def _grid(directions: Sequence, mirror: Sequence | None, eps: list, progress=None) -> list:
    """:func:`profile_grid` of ``directions``, paired with that of ``mirror`` where given."""
    ds = profile_grid(directions, eps, progress)
    if mirror is None:
        return ds
    return list(zip(ds, profile_grid(mirror, eps, progress), strict=True))


def _pair(v) -> tuple:
    """(ball of f's profile, ball of f^{-1}'s) at a grid point: one ball serves both where f
    is symmetric."""
    return v if isinstance(v, tuple) else (v, v)


def _mids(grid: list, known: dict) -> tuple[np.ndarray, np.ndarray]:
    """Float midpoints of both profiles at the grid points (:func:`_pair`)."""
    pairs = [_pair(known[g]) for g in grid]
    return (np.array([float(p[0].mid()) for p in pairs]),
            np.array([float(p[1].mid()) for p in pairs]))


def _band_of(grid: list, known: dict, x: np.ndarray, lattice) -> Band:
    """``numeric.profile_band.band`` of the balls kept at ``grid`` (pairs: ``delta2``)."""
    if any(isinstance(known[g], tuple) for g in grid):
        pairs = [_pair(known[g]) for g in grid]
        return band(grid, [p[0] for p in pairs], x, delta2=[p[1] for p in pairs])
    return band(grid, [known[g] for g in grid], x, lattice=lattice)


#: Margin (in eps) of the first grid of few levels past the least eps that holds their
#: minimisers (:func:`_span`).
SPAN_MARGIN = 2.0


def _span(x: np.ndarray) -> float:
    """The first grid of few levels ends here: past log(1/alpha) + 1, h_1 = delta(log v) +
    alpha v exceeds 1 >= the power (v >= e/alpha), so its minimiser lies below log(1/alpha);
    h_2's mirror image, below log(1/(1 - alpha)) (``numeric.profile_band``); a grid that ends
    there with :data:`SPAN_MARGIN` more holds both, and convexity bounds h beyond its last
    point where h rises there (``profile_band.band`` is certified on any grid). The far eps,
    where delta is small and its balls costly, are never asked."""
    pos = x[(x > 0) & (x < 1)]
    if not pos.size:
        return math.inf
    least = min(float(pos.min()), 1 - float(pos.max()))
    return math.log(1 / least) + 1 + SPAN_MARGIN


def _far_tail(b: Band, x: np.ndarray, span: float, tol: float) -> bool:
    """Whether the bound of h_2 past the grid's last point e^-span (``numeric.profile_band``:
    h_2 >= -(1 - alpha) e^-span there, so the power is only known to be at least 1 - (1 -
    alpha) e^-span from that side) may keep a level's band wider than ``tol``: a power near
    1 (f far below e^-span) needs delta at the far end."""
    inner = (x > 0) & (x < 1)
    floor = 1 - (1 - x) * math.exp(-span)
    return bool(np.any(inner & _too_wide(b, x, tol) & (floor < b.power_hi * (1 - tol))))


def _lattice(directions: Sequence):
    """The lattice of the losses of a single direction (its optional ``lattice`` attribute),
    else None."""
    return getattr(directions[0], "lattice", None) if len(directions) == 1 else None


#: The coarse grid of a lattice direction (it only locates the minimisers: the band is exact
#: once the lattice losses around them are grid points).
LATTICE_START = 16

#: The most lattice losses added around one minimiser in a round of :func:`_refine` (more:
#: the uniform split first).
LATTICE_POINTS = 24

#: For few levels, the band is built from the grid points within this many of each level's
#: float minimisers (and both ends) only.
NEAR = 12


def _near(grid: list, known: dict, x: np.ndarray) -> list:
    """For at most :data:`LOCAL_LEVELS` levels: the points of ``grid`` within :data:`NEAR` of
    the float minimisers of h_1 and h_2 of each level, and both ends (``numeric.profile_band``:
    the band of any subset of the grid points is certified; points far from the minimiser add
    nothing but Arb work); else the whole grid."""
    if x.size > LOCAL_LEVELS or len(grid) <= 4 * NEAR:
        return grid
    e = np.array(grid)
    d, d2 = _mids(grid, known)
    keep = {0, len(grid) - 1}
    for a in x.ravel():
        with np.errstate(over="ignore"):  # (e^eps past 709: +inf, never the minimum)
            hs = (d + a * np.exp(e), np.exp(-e) * (d2 - (1 - a)))
        for h in hs:
            m = int(np.argmin(h))
            keep.update(range(max(m - NEAR, 0), min(m + NEAR + 1, len(grid))))
    return [grid[i] for i in sorted(keep)]


def _too_wide(b: Band, x: np.ndarray, tol: float) -> np.ndarray:
    """The levels (alpha > 0) whose band of f is wider than ``tol`` or whose band of the
    power is wider than ``tol`` relative to its upper end."""
    rel = (b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)
    return (x > 0) & ((b.f_hi - b.f_lo > tol) | (rel > tol))


def _refine(directions: list, known: dict, x: np.ndarray, result: Band, tol: float,
            shown=None, lattice=None, mirror: Sequence | None = None) -> Band:
    """Narrow the band at the levels still wider than ``tol`` by grid points near their
    minimisers: each round cuts the two grid intervals around the float minimiser of h_1 or
    h_2 (``numeric.profile_band``; the branch that decides the power, or both) of each such
    level into :data:`LOCAL_SPLIT` parts, so the local step shrinks by that factor and the band
    (second order in it) by its square per round; the new band at those levels is
    intersected with the old (each holds the truth, so a round never widens it). Stops when
    every level meets ``tol``, after :data:`LOCAL_ROUNDS` rounds or beyond
    :data:`LOCAL_MAX` grid points. With a ``lattice`` (``numeric.profile_band.Lattice``), once
    the two intervals on each side of a minimiser hold at most :data:`LATTICE_POINTS` lattice
    losses, the new points are those losses (rounded up to floats): the band there is then
    exact up to the balls' widths."""
    for _ in range(LOCAL_ROUNDS):
        bad = np.flatnonzero(_too_wide(result, x, tol))
        if bad.size == 0:
            break
        grid = sorted(known)
        e = np.array(grid)
        d, d2 = _mids(grid, known)
        new: set = set()
        for a in np.unique(x[bad]):
            with np.errstate(over="ignore"):  # (e^eps past 709: +inf, never the minimum)
                h1, h2 = d + a * np.exp(e), np.exp(-e) * (d2 - (1 - a))
            p1, p2 = float(np.min(h1)), 1 + float(np.min(h2))
            slack = 4 * tol * max(min(p1, p2), 1e-300) + 1e-300
            for h, p, other in ((h1, p1, p2), (h2, p2, p1)):
                if p > other + slack:  # this branch does not decide the power
                    continue
                m = int(np.argmin(h))
                if lattice is not None:
                    pts = lattice.points_in(e[max(m - 2, 0)], e[min(m + 2, len(e) - 1)])
                    if pts is not None and len(pts) <= LATTICE_POINTS:
                        new.update(t for t in pts if t not in known)
                        continue
                for j in range(max(m - 1, 0), min(m + 1, len(e) - 1)):
                    for k in range(1, LOCAL_SPLIT):
                        t = e[j] + (e[j + 1] - e[j]) * k / LOCAL_SPLIT
                        if e[j] < t < e[j + 1] and t not in known:
                            new.add(float(t))
        if not new or len(known) + len(new) > LOCAL_MAX:
            break
        pts = sorted(new)
        for e_new, b in zip(pts, _grid(directions, mirror, pts, shown), strict=True):
            known[e_new] = b
        grid = _near(sorted(known), known, x[bad])
        _narrow(result, bad, _band_of(grid, known, x[bad], lattice))
    return result


def _narrow(b: Band, idx: np.ndarray, sub: Band) -> None:
    """Intersect the band ``b`` at the levels ``idx`` with ``sub``, the band of those levels
    (each holds the truth, so the result never widens), in place."""
    old = Band(b.f_lo[idx], b.f_hi[idx], b.power_lo[idx], b.power_hi[idx]).intersect(sub)
    b.f_lo[idx], b.f_hi[idx] = old.f_lo, old.f_hi
    b.power_lo[idx], b.power_hi[idx] = old.power_lo, old.power_hi


def _warn_if_wide(b: Band, x: np.ndarray, tol: float) -> None:
    """A ToleranceWarning naming the widths reached where the band is wider than asked."""
    wide = _too_wide(b, x, tol)
    if wide.any():
        f_w = float(np.max(b.f_hi - b.f_lo, initial=0.0, where=x > 0))
        p_w = float(np.max((b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300),
                           initial=0.0, where=x > 0))
        warnings.warn(f"certified band wider than tol = {tol:.3g} at {int(wide.sum())} of "
                      f"{x.size} levels: widths up to {f_w:.3g} (f) and {p_w:.3g} (the "
                      f"power, relative); the band holds the curve (certified)",
                      ToleranceWarning, stacklevel=4)
