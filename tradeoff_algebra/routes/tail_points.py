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
    X, Y, S = X.tolist(), Y.tolist(), S.tolist()  # (floats: the same tests, no numpy scalars)
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
                    tol: float, step: float, progress=None, place: float = math.inf,
                    ests: list | None = None) -> Band:
    """The band at the levels ``x`` from both directions' certified points: for some of the
    levels (:func:`_thin`; ``mirror``: the level is reached by the mirror image) one point on
    the level's inner side of its float threshold ``eps``, on a dyadic grid of the level's own
    step (:func:`_inner_points`; two points e_lo <= eps < e_hi = e_lo + ``step`` of the grid
    of :func:`grid_step` where the float derivatives do not place one, where the margin below
    would exceed that step, and at the levels 0 and 1), and the lines of the larger delta
    there. ``place``: the tolerance the points are placed for, where below ``tol`` (the one
    the inverters are planned for: every tolerance whose plans are the same then places the
    same points, and its band is the same to the last bit).

    *One point bounds its level on both sides.* The power is concave and non-decreasing with
    slope e^{eps*} at the level x (eps* its Neyman-Pearson threshold; e^{-eps*} on the mirrored
    branch); a point (X, Y) of the curve with X <= x (certified: the ball's upper end of X at
    most x) bounds the power at x from below by Y (the hull's chord from it to any point on the
    right lies above Y), short of the power by at most the slope times x - X; and its support
    line bounds it from above, short by the second order in the threshold's distance (h_1(v) =
    delta(log v) + x v is convex with its minimum at e^{eps*}). The point's threshold lies
    beyond eps by a margin of twice the float error bound over |dX/d eps| (so that its ball
    stays on the inner side) and at most the level's step further, the step the power of two
    at most ``ONE_SHARE`` tol Y / (slope |dX/d eps|): the lower band is short by about
    (2 err + ``ONE_SHARE`` tol Y), first order in both, at half the points of a two-point
    bracket.

    *A tighter tolerance is never wider* (issue 29). A tighter tolerance's step divides the
    looser one's (both powers of two, each proportional to tol) and its margin is smaller (its
    error bounds are), while the float thresholds of the two calls differ by less than the
    looser margin (both lie within their error bounds of eps*); so its point lies between eps*
    and the looser point (the grids nested: the least point of the finer grid above a smaller
    number). For the exact points: the power's Neyman-Pearson points move along it
    monotonically in eps, so the tighter point is nearer the level and higher (the lower band
    can only rise), and its support line, nearer eps*, is lower (the upper band can only fall).
    The balls: the first inverter is the same for every tolerance whose planned width is the
    same (``tail_band``: its eps depends on the levels only; every tolerance from 5e-4 up,
    where the plan is capped at ``TAIL_PLAN_MAX``), the Arb precision is each inverter's own,
    and a point at a dyadic float is then the same ball at every such tolerance. What is proved
    here is the exact geometry and the sameness of shared balls; where a tighter tolerance
    plans narrower inverters, its balls are narrower by about the ratio of the tolerances
    (``TAIL_PLAN``), which tests/test_tolerance_nested.py and
    benchmarks/fuzz_tolerance_monotone.py check, not a proof: the sixth audit found bands
    a hair wider at a tighter tolerance (one point's ball and placement against another's), so
    ``numeric.curves.curve_band`` places every band in the tolerance chain
    (``numeric.tol_nest``), which makes the bands of one process nested whatever the points."""
    n = x.size
    if ests is None or len(ests) != len(dirs):  # (``ests``: the caller's, at these eps)
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
    e_pt, own = _inner_points(dirs, ests, dom, eps, mirror, Y, S, kept[(x[kept] > 0)
                              & (x[kept] < 1)], min(tol, place), step)
    # where no point is placed: the two grid points around the threshold (eps >= 0; step a
    # power of two: exact floats)
    two = kept[np.isnan(e_pt[kept])]
    e_lo = np.floor(eps / step) * step
    grid = np.array(sorted(set(e_pt[kept][~np.isnan(e_pt[kept])].tolist())
                           | set(e_lo[two].tolist()) | set((e_lo[two] + step).tolist())))
    pts: dict = {}
    px, py = [], []
    prec = max(t.eval_prec for d in dirs for t in d.inv)  # (one Arb section for all points)
    _certify(dirs, grid, pts, px, py, prec, progress)
    # each level's lines: at the certified points nearest its threshold on either side
    # (h_1 and h_2 are convex with their minima there: the lowest lines of the grid's)
    j = np.clip(np.searchsorted(grid, eps, side="right"), 1, grid.size - 1).tolist()
    gl, ml = grid.tolist(), mirror.tolist()
    lines = [[(e, pts[e], 2 if ml[k] else 1) for e in {gl[j[k] - 1], gl[j[k]]}]
             for k in range(n)]
    band = point_band(np.array(px), np.array(py), x, lines)
    # A kept level whose point lies on its side by its ball only (the threshold a hair from the
    # point, or the float placement off) is bounded below by the chord from a farther point,
    # whose slope may be far steeper where the levels are sparse: a point beyond, a few error
    # bounds away (a power-of-two multiple of the level's step).
    is_kept = np.zeros(n, dtype=bool)
    is_kept[kept] = True
    wide = np.flatnonzero(is_kept & (x > 0) & (x < 1) & (
        band.power_hi - band.power_lo > 2 * TAIL_SHARE * tol * band.power_hi))
    if wide.size:
        more = []
        for k in wide.tolist():
            d = dirs[int(dom[k])]
            placed = not math.isnan(e_pt[k])
            e = float(e_pt[k]) if placed else float(e_lo[k] if mirror[k] else e_lo[k] + step)
            sk = float(own[k]) if placed else step
            i, err = d.best(np.array([e]))
            est = d.inv[int(i[0])].estimate(np.array([e]))
            if mirror[k]:  # X = 1 - power rises with eps: the point left is at a smaller eps
                far = 4 * err[0] / max(-est[3][0], 1e-300)
            else:  # X = alpha falls with eps
                far = 4 * math.exp(-e) * err[0] / max(-est[4][0], 1e-300)
            m = 2.0 ** max(math.ceil(math.log2(max(far / sk, 1.0))), 0)
            more.append(max(e - m * sk, 0.0) if mirror[k] else e + m * sk)
        _certify(dirs, np.array(sorted(set(more) - set(pts))), pts, px, py, prec, None)
        _narrow(band, wide, point_band(np.array(px), np.array(py), x[wide],
                                       [lines[k] for k in wide]))
    return band


#: The lower band's share of the tolerance that a level's one point may lie beyond its
#: threshold (:func:`_inner_points`), besides the margin of its ball.
ONE_SHARE = TAIL_SHARE / 2


def _inner_points(dirs: list, ests: list, dom: np.ndarray, eps: np.ndarray, mirror: np.ndarray,
                  Y: np.ndarray, S: np.ndarray, kept: np.ndarray, tol: float, step: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """For the kept levels, the threshold of their one point (``certified_band``) and its
    step: the least multiple of the step at or above eps + margin (the mirrored branch: the
    greatest at or below eps - margin, and at least 0), margin = 2 err_X / |dX/d eps| (err_X
    the float error bound of X: of alpha = e^{-eps} F_B, or of the power), the step the power
    of two at most ``ONE_SHARE`` tol Y / (slope |dX/d eps|) and at most ``step`` (the grids
    nested). NaN where the floats place nothing (a derivative not negative, a value not
    positive, a margin beyond ``step``: a point far from its level): those levels take two
    points."""
    n = eps.size
    e_pt, own = np.full(n, np.nan), np.full(n, np.nan)
    if not kept.size:
        return e_pt, own
    ek = eps[kept]
    cols = np.arange(n)[kept]
    d_al = np.array([e[4] for e in ests])[dom[kept], cols]
    d_pw = np.array([e[3] for e in ests])[dom[kept], cols]
    mk = mirror[kept]
    slope_x = np.where(mk, -d_pw, -d_al)  # |dX/d eps| where dX/d eps > 0 ... (negated)
    err = np.empty(kept.size)
    for k, d in enumerate(dirs):
        sel = dom[kept] == k
        if sel.any():
            err[sel] = d.best(ek[sel])[1]
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        err_x = np.where(mk, err, np.exp(-ek) * err)
        margin = 2 * err_x / slope_x
        room = ONE_SHARE * tol * Y[kept] / (S[kept] * slope_x)
        ok = (slope_x > 0) & np.isfinite(margin) & (margin <= step) & (room > 0) \
            & np.isfinite(room) & (Y[kept] > 0)
        sk = np.where(ok, np.minimum(2.0 ** np.floor(np.log2(np.where(ok, room, 1.0))), step),
                      np.nan)
        up = np.ceil((ek + margin) / sk) * sk
        down = np.maximum(np.floor((ek - margin) / sk) * sk, 0.0)
        pt = np.where(mk, down, up)
    good = ok & np.isfinite(pt) & (sk > 0)
    e_pt[kept[good]] = pt[good]
    own[kept[good]] = sk[good]
    return e_pt, own


def _certify(dirs: list, grid: np.ndarray, pts: dict, px: list, py: list, prec: int,
             progress=None) -> None:
    """The certified points at the increasing floats ``grid`` (each direction's from its
    inverter of least error bound there, each inverter's whole points at once: :func:`_corners`,
    ``numeric.cf_tails.TailInverter.corners_here``): the contact point's (the larger delta's,
    both where the deltas tie) into ``px``, ``py`` with its mirror image, and the larger delta's
    upper end into ``pts``."""
    if grid.size == 0:
        return
    best = [d.best(grid)[0] for d in dirs]
    if len(dirs) > 1:  # which direction's delta is the larger (the contact point's)
        dvals = np.array([d.estimate(grid)[0] for d in dirs])
    else:
        dvals = np.ones((1, grid.size))
    dom = np.argmax(dvals, axis=0)
    close = (np.abs(dvals - dvals[dom, np.arange(grid.size)])
             <= 1e-6 * np.abs(dvals[dom, np.arange(grid.size)])).T.tolist()
    dom_l = dom.tolist()
    best_l = [b.tolist() for b in best]
    # the last certified delta of each direction at a smaller eps: delta is non-increasing, so
    # it bounds delta here too, and where it lies below the larger delta nothing is computed
    last = [math.inf] * len(dirs)
    es = grid.tolist()
    with working_precision(prec):
        corners = _corners(dirs, es, dom_l, close, best_l)
        order = [list(range(len(dirs)))] if len(dirs) == 1 else None
        for k, e in enumerate(es):
            if k % 16 == 0:
                budget.check()
            d_hi = 0.0
            dk = dom_l[k]
            # (the larger first)
            for j in order[0] if order else sorted(range(len(dirs)), key=lambda j: j != dk):
                inv = dirs[j].inv[best_l[j][k]]
                if j == dk or close[k][j]:  # the contact point (or a tie): the whole point
                    x1, y1, x2, y2, dj = corners[j, k]
                    px += [x1, x2]
                    py += [y1, y2]
                    last[j] = dj
                elif last[j] > d_hi:  # below the other: its delta only (the lines' maximum)
                    last[j] = upper(inv.delta_here(e))
                d_hi = max(d_hi, last[j])
            pts[e] = d_hi
            if progress is not None:
                progress.update()


#: About this many nodes times thresholds per ``corners_here`` call, and at least
#: CORNERS_MIN thresholds (the time limit is checked between calls: a DP-SGD inverter of a few
#: thousand nodes takes about a millisecond a threshold; G(1) (x) Laplace(1)'s 34 nodes take
#: all its 103 thresholds in one call).
CORNERS_WORK = 1 << 14
CORNERS_MIN = 8


def _corners(dirs: list, es: list, dom: list, close: list, best: list) -> dict:
    """The corners (X1, Y1, X2, Y2, delta's upper end) of the whole points :func:`_certify`
    takes, by (direction, index of the eps): from each inverter's ``corners_here`` for all its
    eps at once (``numeric.cf_tails``), else from its ``point_here`` one eps at a time."""
    want: dict = {}
    for k in range(len(es)):
        for j in range(len(dirs)):
            if j == dom[k] or close[k][j]:
                want.setdefault((j, best[j][k]), []).append(k)
    out: dict = {}
    one = arb(1)
    for (j, i), ks in want.items():
        budget.check()
        inv = dirs[j].inv[i]
        many = getattr(inv, "corners_here", None)
        if many is not None:
            # (the time limit between chunks of about CORNERS_WORK nodes times thresholds)
            nodes = getattr(getattr(inv, "_fk", None), "size", 0)
            chunk = max(CORNERS_MIN, CORNERS_WORK // max(nodes, 1))
            for at in range(0, len(ks), chunk):
                part = ks[at:at + chunk]
                if at:
                    budget.check()
                for k, cs in zip(part, many([es[k] for k in part]), strict=True):
                    out[j, k] = cs
            continue
        for k in ks:
            p = inv.point_here(es[k])
            px: list = []
            py: list = []
            _add_point(px, py, p, one)
            out[j, k] = (px[0], py[0], px[1], py[1], upper(p.delta))
    return out
