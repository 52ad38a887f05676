"""The certified band of a symmetric hull's power from its directions' Neyman-Pearson points
(``numeric.cf_tails``), for :func:`~.inversion_curve.tail_band`: the levels thinned where the
chord-tangent gap allows (:func:`_thin`), each kept level's threshold bracketed by the two points
of a dyadic grid of eps around it (:func:`grid_step`: nested as the tolerance tightens, so the
band can only tighten), the points certified in Arb with their mirror images, and the support
lines of the larger delta at them (``numeric.profile_band.point_band``).
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from ..numeric import budget
from ..numeric.cf_laws import lower, upper, working_precision
from ..numeric.profile_band import Band, point_band
from .grid_band import _narrow

__all__ = ["certified_band", "grid_step", "TAIL_SHARE", "STEP_SHARE"]

#: A point's error bound may be this fraction of the tolerance times the power it bounds.
TAIL_SHARE = 0.125


def _thin(X: np.ndarray, Y: np.ndarray, S: np.ndarray, share: float) -> np.ndarray:
    """Which of the candidate points (by increasing X, with slopes S of the concave power
    there) to certify: consecutive kept points i < m have (X_m - X_i)(S_i - S_m)/4 <=
    share Y_i, a float bound of the gap between their chord and the least of their tangents
    (at most that where the tangents cross), so every level between them is within it."""
    n = X.size
    keep = np.zeros(n, dtype=bool)
    if n == 0:
        return keep
    keep[0] = keep[-1] = True
    i, m = 0, 1
    while m < n:
        if (X[m] - X[i]) * (S[i] - S[m]) / 4 > share * Y[i]:
            k = m - 1 if m - 1 > i else m
            keep[k] = True
            i = k
            m = k + 1
        else:
            m += 1
    return keep


def _add_point(px: list, py: list, p, one: arb) -> None:
    """A certified Neyman-Pearson point p (``numeric.cf_tails``) of the power and its mirror
    image (every point of either direction lies on or below the hull's power), as the corners
    of their balls that bound the power from below."""
    px += [upper(p.alpha), upper(one - p.power)]
    py += [lower(p.power), lower(one - p.alpha)]


#: The step of the grid of eps that holds the certified points is the power of two at most this
#: share of sqrt(rel) (rel: the inverters' planned relative width): :func:`grid_step`.
STEP_SHARE = 0.1


def grid_step(rel: float) -> float:
    """The dyadic step 2^-m of the grid of eps on which :func:`certified_band` certifies its
    points, the largest power of two at most ``STEP_SHARE`` sqrt(rel): non-increasing as rel
    (so tol) decreases, so a tighter tolerance's grid refines the looser one's.

    Why sqrt(rel): the chord between the Neyman-Pearson points of thresholds e_lo < e_hi =
    e_lo + s lies below the concave power by at most (X_lo - X_hi)(S_hi - S_lo)/4 (the
    tangents' crossing, as in :func:`_thin`), X = alpha with |d alpha / d eps| = c alpha (c the
    saddle-point tilt), S = e^eps: at most c alpha e^eps s^2 / 4 <= c s^2 / 4 times the power
    (delta >= 0), with the same order for the support lines at e_lo and e_hi (h_1 convex with
    its minimum between them). With s <= 0.1 sqrt(rel) that is c rel / 400, a small share of
    the points' own widths (rel) for tilts up to tens; and s is large beside the width of a
    point's ball in eps (rel / c), so each bracket's two points lie on both sides of the
    level."""
    return 2.0 ** math.floor(math.log2(STEP_SHARE * math.sqrt(rel)))


def certified_band(dirs: list, x: np.ndarray, eps: np.ndarray, mirror: np.ndarray,
                    tol: float, step: float, progress=None) -> Band:
    """The band at the levels ``x`` from both directions' certified points on the grid of eps
    of step ``step`` (:func:`grid_step`): at the two grid points e_lo <= eps < e_hi = e_lo +
    step around the float threshold ``eps`` of some of the levels (:func:`_thin`; ``mirror``:
    the level is reached by the mirror image), and the lines of the larger delta there.

    *A tighter tolerance is never wider* (issue 29). The grid is dyadic and nested: a tighter
    tolerance's step divides the looser one's (:func:`grid_step`), so its bracket [e_lo', e_hi']
    of a level's Neyman-Pearson threshold eps* lies inside the looser bracket [e_lo, e_hi]
    (both hold eps*; the float thresholds of the two calls differ by rounding only, far below
    the step). For the exact points: the power is concave and its Neyman-Pearson points move
    along it monotonically in eps, so the points at e_lo', e_hi' lie on the arc between those at
    e_lo, e_hi, and their chord lies above the looser chord at the level (the lower band can
    only rise); h_1(v) = delta(log v) + alpha v is convex in v = e^eps with its minimum at
    e^{eps*} (Prop. 6), so the lines at e_lo', e_hi', nearer eps*, are lower (the upper band
    can only fall). The balls: the first inverter is the same for every tolerance whose
    planned width is the same (``tail_band``: its eps depends on the levels only; every
    tolerance from 1e-5 up, where the plan is capped at ``TAIL_PLAN_MAX``), the Arb precision
    is each inverter's own, and a point at a grid eps (a dyadic float, exact in Arb) is then
    the same ball at every such tolerance; the levels certified (:func:`_thin`) and the
    inverters planned after the first are the tighter call's own, and each point takes the
    inverter of least error bound at its eps. What is proved here is the exact geometry and
    the sameness of shared balls; where a tighter tolerance plans narrower inverters, its
    balls are narrower by about the ratio of the tolerances (``TAIL_PLAN``), which
    tests/test_tolerance_nested.py and benchmarks/fuzz_tolerance_monotone.py check, not a
    proof."""
    n = x.size
    ests = [d.estimate(eps) for d in dirs]
    dvals = np.array([e[0] for e in ests])
    dom = np.argmax(dvals, axis=0)
    cols = np.arange(n)
    al = np.array([e[2] for e in ests])[dom, cols]
    pw = np.array([e[1] for e in ests])[dom, cols]
    X = np.where(mirror, 1 - pw, al)
    Y = np.where(mirror, 1 - al, pw)
    with np.errstate(over="ignore"):
        S = np.where(mirror, np.exp(-eps), np.exp(eps))
    order = np.argsort(X, kind="stable")
    keep = _thin(X[order], np.maximum(Y[order], 0.0), S[order], TAIL_SHARE * tol)
    kept = order[keep]  # level indices, by increasing X
    # each kept level's bracket on the grid (eps >= 0; step a power of two: exact floats)
    e_lo = np.floor(eps / step) * step
    e_hi = e_lo + step
    grid = np.array(sorted(set(e_lo[kept].tolist()) | set(e_hi[kept].tolist())))
    pts: dict = {}
    px, py = [], []
    prec = max(t.eval_prec for d in dirs for t in d.inv)  # (one Arb section for all points)
    _certify(dirs, grid, pts, px, py, prec, progress)
    # each level's lines: at the certified grid points nearest its threshold on either side
    # (h_1 and h_2 are convex with their minima there: the lowest lines of the grid's)
    j = np.clip(np.searchsorted(grid, eps, side="right"), 1, grid.size - 1)
    lines = [[(float(e), pts[float(e)], 2 if mirror[k] else 1)
              for e in {grid[j[k] - 1], grid[j[k]]}] for k in range(n)]
    band = point_band(np.array(px), np.array(py), x, lines)
    # A kept level whose bracket's point beyond it lies on its side by its ball (the threshold
    # a hair from a grid point) is bounded below by the chord from a farther point, whose
    # slope may be far steeper where the levels are sparse: the grid point beyond, a few error
    # bounds away (a power-of-two multiple of the step).
    is_kept = np.zeros(n, dtype=bool)
    is_kept[kept] = True
    wide = np.flatnonzero(is_kept & (x > 0) & (x < 1) & (
        band.power_hi - band.power_lo > 2 * TAIL_SHARE * tol * band.power_hi))
    if wide.size:
        more = []
        for k in wide.tolist():
            d = dirs[int(dom[k])]
            e = float(e_lo[k] if mirror[k] else e_hi[k])
            i, err = d.best(np.array([e]))
            est = d.inv[int(i[0])].estimate(np.array([e]))
            if mirror[k]:  # X = 1 - power rises with eps: the point left is at a smaller eps
                far = 4 * err[0] / max(-est[3][0], 1e-300)
            else:  # X = alpha falls with eps
                far = 4 * math.exp(-e) * err[0] / max(-est[4][0], 1e-300)
            m = 2.0 ** max(math.ceil(math.log2(max(far / step, 1.0))), 0)
            more.append(max(e - m * step, 0.0) if mirror[k] else e + m * step)
        _certify(dirs, np.array(sorted(set(more) - set(pts))), pts, px, py, prec, None)
        _narrow(band, wide, point_band(np.array(px), np.array(py), x[wide],
                                       [lines[k] for k in wide]))
    return band


def _certify(dirs: list, grid: np.ndarray, pts: dict, px: list, py: list, prec: int,
             progress=None) -> None:
    """The certified points at the increasing floats ``grid`` (each direction's from its
    inverter of least error bound there): the contact point's (the larger delta's, both where
    the deltas tie) into ``px``, ``py`` with its mirror image, and the larger delta's upper end
    into ``pts``."""
    if grid.size == 0:
        return
    best = [d.best(grid)[0] for d in dirs]
    if len(dirs) > 1:  # which direction's delta is the larger (the contact point's)
        dvals = np.array([d.estimate(grid)[0] for d in dirs])
    else:
        dvals = np.ones((1, grid.size))
    dom = np.argmax(dvals, axis=0)
    # the last certified delta of each direction at a smaller eps: delta is non-increasing, so
    # it bounds delta here too, and where it lies below the larger delta nothing is computed
    last = [math.inf] * len(dirs)
    with working_precision(prec):
        one = arb(1)
        for k, e in enumerate(grid.tolist()):
            budget.check()
            close = np.abs(dvals[:, k] - dvals[dom[k], k]) <= 1e-6 * abs(dvals[dom[k], k])
            d_hi = 0.0
            for j in sorted(range(len(dirs)), key=lambda j: j != dom[k]):  # the larger first
                inv = dirs[j].inv[int(best[j][k])]
                if j == dom[k] or close[j]:  # the contact point (or a tie): the whole point
                    p = inv.point_here(e)
                    _add_point(px, py, p, one)
                    last[j] = upper(p.delta)
                elif last[j] > d_hi:  # below the other: its delta only (the lines' maximum)
                    last[j] = upper(inv.delta_here(e))
                d_hi = max(d_hi, last[j])
            pts[e] = d_hi
            if progress is not None:
                progress.update()
