"""Lower convex envelopes of min{g, g^{-1}}: the symmetric hull C(g) for any trade-off function.

C(g) = min{g, g^{-1}}^{**} (Wang, Su, Ye, Shokri & Su, Sec. 4) and the subsampling operator
C_p(f) = C(f_p) with f_p = p f + (1 - p) Id (Dong, Roth & Su, Def. 6) need the lower convex
envelope H = h^{**} of h = min{g, g^{-1}}. Eq. (13) of Dong, Roth & Su gives it for symmetric f,
and the knots of a piecewise-linear operand give it exactly (numeric.knots, numeric.knots_eval);
this module gives guaranteed enclosures of it for every operand.

General operands (guaranteed enclosures)
    Write h = min{g, g^{-1}} and H = h^{**}. Two facts make every bound below rigorous given
    only enclosures of g:

    (i) upper bounds. For trade-off functions y >= g^{-1}(x) iff g(y) <= x, so epi g^{-1} is
        the mirror image of epi g, and a point (X, t) with X >= g(t) lies in epi h (h is
        non-increasing). Chords between points (x, u >= g(x)) and (X >= g(t), t) lie above H;
        so do g(alpha) and g^{-1}(alpha).
    (ii) lower bounds (duality). An affine l(x) = c + y x with y <= 0 lies below g iff
        c <= inf_x {g(x) - y x}, and below g^{-1} iff c <= inf_t {t - y g(t)} (by (i), the graph
        of g^{-1} is {(g(t), t)}). Hence, for every y <= 0,

            H(alpha) >= min{ inf_x [g(x) + y (alpha - x)],  inf_t [t + y (alpha - g(t))] },

        both infima of convex functions. Sampled enclosures of a concave function bound its
        supremum over [0, 1] from above by extended chords (:func:`concave_sup`), so the right
        side is certified for every y; the power 1 - H(alpha) is bounded in the same way from
        1 - g and 1 - t, without cancellation.

    The slope y only decides how tight the bound is. It is taken from the structure of H: by
    the symmetry of h about the diagonal, H consists of pieces of g, pieces of g^{-1} and
    bridging segments; each bridge is a common tangent of g at x_A and of g^{-1} at (g(t_B),
    t_B), i.e. g'(x_A) = y, g'(t_B) = 1/y, and its slope is the chord slope of the two contact
    points. The bridge that crosses the diagonal has slope -1 (it is its own mirror image) and
    touches g where g'(x) = -1; further bridges come in mirrored pairs (slopes y and 1/y) when g
    and g^{-1} cross more than once. A float64 lower hull of sampled points (x, g(x)) and
    (g(x), x) locates the pieces; each bridge is refined at the working precision by the
    iteration y <- chord slope of the tangent points of slope y (stationary at the bridge, so it
    converges quadratically), the tangent points by Newton steps on finite differences. On a
    piece of g the slope is g'(alpha) by a central difference, on a piece of g^{-1} it is
    1/g'(g^{-1}(alpha)). Contact points correct to about half the working digits give bounds
    correct to nearly all of them (both bounds are stationary in the contact points); an
    operand with kinks only makes the enclosure wider, never wrong.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..core.errors import NoClosedForm, NumericalError
from .context import ThreadCache, mp
from .knots import lower_hull
from .protocol import mp_roc, mp_value, np_value
from .roots import c_bounds, level, level_c, t_bounds

__all__ = ["concave_sup", "hull_mp", "hull_np"]


# ================================================================================================
# Certified supremum of a concave function from sampled enclosures
# ================================================================================================
def _gap(s0, s1):
    """s1 - s0 for levels s0 < s1, from the coordinate that resolves them."""
    if s1[0] <= 0.5 or s0[0] < 0.5:
        return s1[0] - s0[0]
    return s0[1] - s1[1]


def concave_sup(samples: Sequence) -> Any:
    """Upper bound of sup_{[0,1]} psi for concave psi from ``samples`` = [(level, lo, hi)],
    sorted by level, including the levels 0 and 1.

    Between samples s_i < s_{i+1}, concavity puts psi below the extension of the chord
    (s_{i-1}, s_i) to the right and below the extension of the chord (s_{i+2}, s_{i+1}) to the
    left; with the enclosures, the extended lines through (s_i, hi_i) with slope
    (hi_i - lo_{i-1})/(s_i - s_{i-1}) and so on are upper bounds. The maximum over the gap of
    the smaller line is attained at an end or at the lines' crossing. Each gap's bound is
    widened by 2^-(prec - 8) times the sizes of its terms (rounding).
    """
    n = len(samples)
    if n < 2 or samples[0][0][0] != 0 or samples[-1][0][1] != 0:
        raise NumericalError("concave_sup needs samples at both ends of [0, 1]")
    best = max(s[2] for s in samples)
    ws = [_gap(samples[i][0], samples[i + 1][0]) for i in range(n - 1)]
    eps = mp.ldexp(1, -(mp.prec - 8))
    for i in range(n - 1):
        w = ws[i]
        if w <= 0:
            continue
        hi0, hi1 = samples[i][2], samples[i + 1][2]
        mL = (hi0 - samples[i - 1][1]) / ws[i - 1] if i >= 1 and ws[i - 1] > 0 else None
        mR = (hi1 - samples[i + 2][1]) / ws[i + 1] if i + 2 < n and ws[i + 1] > 0 else None

        def lineL(u, hi0=hi0, mL=mL):
            return mp.inf if mL is None else hi0 + mL * u

        def lineR(u, hi1=hi1, mR=mR, w=w):
            return mp.inf if mR is None else hi1 + mR * (w - u)

        if mL is None or mR is None:
            # the first or last gap has one line only: inside the gap psi is bounded by that
            # line alone (psi may peak anywhere in it, e.g. at a knot of size 1e-22 between
            # the samples 0 and 1e-20), so by its larger end, not by the sample at the end
            cands = [lineR(0) if mL is None else hi0, hi1 if mL is None else lineL(w)]
        else:
            cands = [min(hi0, lineR(0)), min(lineL(w), hi1)]
            if mL + mR != 0:
                u = (hi1 - hi0 + mR * w) / (mL + mR)
                if 0 < u < w:
                    cands.append(min(lineL(u), lineR(u)))
        b = max(cands)
        if b == mp.inf:
            b = max(hi0, hi1)  # unreachable with end samples; kept for safety
        size = abs(hi0) + abs(hi1) + (abs(mL) * w if mL is not None else 0) + (
            abs(mR) * w if mR is not None else 0)
        best = max(best, b + size * eps)
    return best


# ================================================================================================
# General operands: structure (float64), refinement (working precision), certified bounds
# ================================================================================================
class _Ops:
    """Cached enclosures of g and of 1 - g at levels, at the current precision."""

    def __init__(self, g):
        self.g = g
        self._v, self._r = mp_value, mp_roc
        self.cache: dict = {}

    def at(self, lv):
        key = (lv[0], lv[1])
        c = self.cache.get(key)
        if c is None:
            if lv[1] == 0:
                c = (mp.zero, mp.zero, mp.one, mp.one)
            else:
                lo, hi = self._v(self.g, lv[0], lv[1])
                rlo, rhi = self._r(self.g, lv[0], lv[1])
                c = (max(lo, mp.zero), min(hi, mp.one), max(rlo, mp.zero), min(rhi, mp.one))
            self.cache[key] = c
        return c

    def mid(self, lv):
        lo, hi, _, _ = self.at(lv)
        return (lo + hi) / 2


def _shift(lv, d):
    """The level lv + d (d small against the nearer end coordinate)."""
    t, tc = lv
    if t <= 0.5:
        return level(t + d)
    return level_c(tc - d)


def _ucoord(lv):
    return min(lv[0], lv[1])


def _deriv(ops: _Ops, lv, rel_bits: int):
    """(g'(x), g''(x)) at level x by central differences with step 2^-rel_bits times the nearer
    end coordinate (mid values); None where the step leaves (0, 1)."""
    u = _ucoord(lv)
    if u <= 0:
        return None
    d = mp.ldexp(u, -rel_bits)
    lm, lp = _shift(lv, -d), _shift(lv, d)
    fm, f0, fp = ops.mid(lm), ops.mid(lv), ops.mid(lp)
    return (fp - fm) / (2 * d), (fp - 2 * f0 + fm) / (d * d)


def _tangent_point(ops: _Ops, y, lv, lo=None, hi=None):
    """The level x with g'(x) = y, by Newton steps on finite differences from ``lv`` (kept in
    [lo, hi] when given). Returns a level or None."""
    bits = max(mp.prec // 3, 8)
    for _ in range(40):
        d = _deriv(ops, lv, bits)
        if d is None or not (d[1] > 0):
            return None
        step = (d[0] - y) / d[1]
        u = _ucoord(lv)
        if abs(step) > u / 2:
            step = mp.sign(step) * u / 2
        new = _shift(lv, -step)
        if (lo is not None and new[0] < lo[0]) or (hi is not None and new[0] > hi[0]):
            return None
        lv = new
        if abs(step) <= mp.ldexp(u, -((2 * mp.prec) // 3)):
            break
    return lv


def _np_values(g, x: np.ndarray):
    try:
        y = np.asarray(np_value(g, x), dtype=np.float64)
        if np.all(np.isfinite(y)):
            return y
    except NoClosedForm:
        pass
    with mp.workdps(17):
        return np.array([float(sum(mp_value(g, mp.mpf(t), 1 - mp.mpf(t))) / 2) for t in x])


def _coarse_grid() -> np.ndarray:
    tail = np.geomspace(1e-14, 0.02, 40)
    mid = np.linspace(0, 1, 257)
    return np.unique(np.concatenate([mid, tail, 1 - tail]))


@lru_cache(maxsize=64)
def _coarse(g) -> tuple:
    """Float64 lower hull of the points (x, g(x)) and (g(x), x): vertices (x, y, kind, t) with
    kind 'g' (t = x) or 'i' (a point (g(t), t) of g^{-1})."""
    xs = _coarse_grid()
    ys = np.clip(_np_values(g, xs), 0.0, 1.0)
    pts = [(float(x), float(y), "g", float(x)) for x, y in zip(xs, ys, strict=True)]
    pts += [(float(y), float(x), "i", float(x)) for x, y in zip(xs, ys, strict=True)]
    pts.sort(key=lambda p: (p[0], p[1]))
    hull: list = []
    for p in pts:
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return tuple(hull)


class _Bridge:
    __slots__ = ("y", "xa", "tb", "left", "right", "samples_a", "samples_b")


class _Structure:
    """The pieces of H at the current precision: bridges (refined) and the coarse hull."""

    def __init__(self, g):
        self.ops = _Ops(g)
        self.coarse = _coarse(g)
        grid = [(mp.zero, mp.one)]
        for k in range(2, 60, 3):
            grid.append(level(mp.ldexp(1, -k)))
        grid += [level(mp.mpf(i) / 32) for i in range(1, 32)]
        for k in range(2, 60, 3):
            grid.append(level_c(mp.ldexp(1, -k)))
        grid.append((mp.one, mp.zero))
        grid = sorted(set(grid), key=lambda lv: (lv[0], -lv[1]))
        self.grid = grid
        self.bridges = []
        for k in range(len(self.coarse) - 1):
            a, b = self.coarse[k], self.coarse[k + 1]
            if a[2] != b[2] and b[0] - a[0] > 0:
                br = self._refine(a, b)
                if br is not None:
                    self.bridges.append(br)

    def _lv(self, t: float):
        return level(mp.mpf(t)) if t <= 0.5 else level_c(1 - mp.mpf(t))

    def _refine(self, a, b) -> _Bridge | None:
        """Refine the coarse bridge between hull vertices a and b (one on g, one on g^{-1})."""
        ops = self.ops
        va, vb = (a, b) if a[2] == "g" else (b, a)
        xa, tb = self._lv(va[3]), self._lv(vb[3])
        if not (0 < va[3] < 1 and 0 < vb[3] < 1):
            return None
        y = mp.mpf(b[1] - a[1]) / (b[0] - a[0])
        for _ in range(12):
            if not y < 0:
                return None
            na = _tangent_point(ops, y, xa)
            nb = _tangent_point(ops, 1 / y, tb)
            if na is None or nb is None:
                break
            xa, tb = na, nb
            gx, gt = ops.mid(xa), ops.mid(tb)
            dx = gt - xa[0]
            if dx == 0:
                break
            ny = (tb[0] - gx) / dx
            done = abs(ny - y) <= mp.ldexp(abs(y), -(mp.prec - 16))
            y = ny
            if done:
                break
        br = _Bridge()
        br.y, br.xa, br.tb = y, xa, tb
        gx, gt = ops.at(xa), ops.at(tb)
        br.left, br.right = min(xa[0], gt[0]), max(xa[0], gt[1])
        br.samples_a = _cluster(xa)
        br.samples_b = _cluster(tb)
        return br

    def kind_at(self, x) -> str:
        """'g' or 'i': which function the coarse hull follows at x (outside bridges)."""
        c = self.coarse
        xf = float(x)
        k = max(0, min(bisect_right([p[0] for p in c], xf) - 1, len(c) - 2))
        a, b = c[k], c[k + 1]
        if a[2] == b[2]:
            return a[2]
        return a[2] if xf - a[0] <= b[0] - xf else b[2]


def _cluster(lv) -> list:
    """Levels around lv for a tight concave-supremum certificate (:func:`concave_sup`).

    The innermost offsets d0 = 2^(3 - prec/2) u (u the nearer-end coordinate) make the chords
    next to a maximiser at lv slope away from it by more than the rounding noise of the values,
    so their extensions do not overshoot; the ladder 2^k d0 keeps the certificate tight when the
    maximiser sits a little off lv (its location is known to about 2^(-2 prec/3) u).
    """
    u = _ucoord(lv)
    out = [lv]
    if u <= 0:
        return out
    p = mp.prec
    d0 = mp.ldexp(u, 3 - p // 2)
    ds = [d0 * k for k in (1, 2, 4, 8, 16, 64, 256, 4096)]
    ds += [mp.ldexp(u, -b) for b in (p // 4, p // 8, 5)]
    for d in ds:
        out += [_shift(lv, -d), _shift(lv, d)]
    return out


_STRUCT = ThreadCache()  # (per thread: mpf numbers of this thread's context)


def _structure(g) -> _Structure:
    key = (g, mp.prec)
    s = _STRUCT.get(key)
    if s is None:
        if len(_STRUCT) > 64:
            _STRUCT.clear()
        s = _STRUCT[key] = _Structure(g)
    return s


def _diff_x(lv, a, ac):
    """x - alpha without cancellation (levels)."""
    if lv[0] >= 0.5 and a >= 0.5:
        return ac - lv[1]
    return lv[0] - a


def _bound(st: _Structure, y, a, ac, extra_a: Sequence, extra_b: Sequence, power: bool):
    """Certified lower bound of H(alpha) (or upper bound of 1 - H(alpha) with ``power``) from
    the affine minorants of slope y <= 0 (module docstring, fact (ii))."""
    ops = st.ops
    eps = mp.ldexp(1, -(mp.prec - 6))

    def samples(levels, side):
        out = []
        for lv in sorted(set(levels), key=lambda v: (v[0], -v[1])):
            glo, ghi, rlo, rhi = ops.at(lv)
            if side == "A":  # psi(x) = -g(x) + y (x - alpha)  |  rho(x) + y (x - alpha)
                d = y * _diff_x(lv, a, ac)
                blo, bhi = (rlo, rhi) if power else (-ghi, -glo)
                lo, hi = blo + d, bhi + d
                m = (abs(bhi) + abs(d)) * eps
            else:  # psi(t) = -t + y (g(t) - alpha)  |  (1 - t) + y (g(t) - alpha)
                if a >= 0.5:
                    dlo, dhi = ac - rhi, ac - rlo
                else:
                    dlo, dhi = glo - a, ghi - a
                base = lv[1] if power else -lv[0]
                lo, hi = base + y * dhi, base + y * dlo
                m = (abs(base) + abs(y) * max(abs(dlo), abs(dhi))) * eps
            out.append((lv, lo - m, hi + m))
        return out

    sa = concave_sup(samples(list(st.grid) + list(extra_a), "A"))
    sb = concave_sup(samples(list(st.grid) + list(extra_b), "B"))
    return max(sa, sb) if power else -max(sa, sb)


def _upper_chord(st: _Structure, br: _Bridge, a, ac, power: bool):
    """Upper bound of H(alpha) (lower bound of 1 - H) from the chord of the bridge's contact
    points (fact (i)), or None when alpha is not between them."""
    ops = st.ops
    glo, ghi, rlo, rhi = ops.at(br.xa)
    tlo, thi, trlo, trhi = ops.at(br.tb)
    # epigraph points of h: (x, u) with u >= g(x) and (X, t) with X >= g(t); in the complement
    # coordinate (alpha > 1/2) X = 1 - (a lower bound of 1 - g(t)), in the power form
    # u = 1 - (a lower bound of 1 - g(x)): every choice is a valid point of epi h
    if a <= 0.5:
        P = (br.xa[0], ghi, rlo)
        Q = (thi, br.tb[0], br.tb[1])
        L, R = (P, Q) if P[0] <= Q[0] else (Q, P)
        if not (L[0] <= a <= R[0]) or R[0] == L[0]:
            return None
        lam = (a - L[0]) / (R[0] - L[0])
    else:
        P = (br.xa[1], ghi, rlo)       # complement coordinates 1 - x
        Q = (trlo, br.tb[0], br.tb[1])
        L, R = (P, Q) if P[0] >= Q[0] else (Q, P)
        if not (L[0] >= ac >= R[0]) or R[0] == L[0]:
            return None
        lam = (L[0] - ac) / (L[0] - R[0])
    # value form: heights (u or t); power form: 1 - height (rho lower bound or 1 - t)
    eps = mp.ldexp(1, -(mp.prec - 6))
    lam = min(max(lam, mp.zero), mp.one)
    if power:
        v = (1 - lam) * L[2] + lam * R[2]
        return v - (abs(L[2]) + abs(R[2])) * eps
    v = (1 - lam) * L[1] + lam * R[1]
    return v + (abs(L[1]) + abs(R[1])) * eps


def hull_mp(g, a, ac, power: bool, inverse: Callable) -> tuple:
    """Enclosure of C(g)(alpha) = min{g, g^{-1}}^{**}(alpha) (or of 1 - C(g)(alpha) with
    ``power``) for any trade-off function g with enclosures (module docstring).

    ``inverse(g, a, ac)`` returns a bracket of levels (L, H) around g^{-1}(alpha) (the generic
    inverse of the operators layer).
    """
    if ac == 0:
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)
    st = _structure(g)
    ops = st.ops
    A = (a, ac)
    if a == 0:
        # H(0) = h(0) = min{g(0), g^{-1}(0)}
        glo, ghi, rlo, rhi = ops.at(A)
        LH = inverse(g, a, ac)
        ib = c_bounds(*LH) if power else t_bounds(*LH)
        if power:
            return max(rlo, ib[0]), max(rhi, ib[1])
        return min(glo, ib[0]), min(ghi, ib[1])
    glo, ghi, rlo, rhi = ops.at(A)
    # upper bounds of H (lower bounds of the power): g, chords of bridges, g^{-1}
    ups = [rlo if power else ghi]
    lows = []
    in_bridge = False
    for br in st.bridges:
        c = _upper_chord(st, br, a, ac, power)
        if c is not None:
            ups.append(c)
            in_bridge = True
            lows.append(_bound(st, br.y, a, ac, br.samples_a, br.samples_b, power))
    if not in_bridge:
        kind = st.kind_at(a)
        if kind == "g":
            d = _deriv(ops, A, max(mp.prec // 3, 8))
            if d is not None and d[0] <= 0:
                y = d[0]
                t0 = _guess_t(st, y) if y < 0 else None
                tb = _tangent_point(ops, 1 / y, t0) if t0 is not None else None
                lows.append(_bound(st, y, a, ac, _cluster(A),
                                   _cluster(tb) if tb is not None else [], power))
        else:
            LH = inverse(g, a, ac)
            ib = c_bounds(*LH) if power else t_bounds(*LH)
            ups.append(ib[0] if power else ib[1])
            T = LH[0] if LH[0][0] > 0 else LH[1]
            d = _deriv(ops, T, max(mp.prec // 3, 8))
            if d is not None and d[0] < 0:
                y = 1 / d[0]
                x0 = _guess_x(st, y)
                xa = _tangent_point(ops, y, x0) if x0 is not None else None
                lows.append(_bound(st, y, a, ac, _cluster(xa) if xa is not None else [],
                                   _cluster(T), power))
    up = max(ups) if power else min(ups)
    if not lows:
        lo = mp.zero if not power else mp.one
    else:
        lo = min(lows) if power else max(lows)
    if power:
        return (up, max(lo, up))  # (1 - H) in [up, lo]
    return (lo, max(up, lo))


def _guess_t(st: _Structure, y):
    """A start for the tangent point of slope 1/y of g (coarse hull vertices of g)."""
    return _guess(st, 1 / y)


def _guess_x(st: _Structure, y):
    return _guess(st, y)


def _guess(st: _Structure, s):
    """A grid level whose neighbouring chord slopes of g bracket s (a start for Newton), or
    None when s lies outside the range of the chord slopes (the contact is then an end point,
    which the grid samples already hold)."""
    ops = st.ops
    grid = st.grid
    slopes = [(ops.mid(grid[i + 1]) - ops.mid(grid[i])) / _gap(grid[i], grid[i + 1])
              for i in range(len(grid) - 1)]
    if not (slopes[0] <= s <= slopes[-1]):
        return None
    for i in range(1, len(grid) - 1):
        if slopes[i] >= s:
            return grid[i]
    return None


# -- float64 curve ---------------------------------------------------------------------------
def hull_np(g, x: np.ndarray) -> np.ndarray:
    """min{g, g^{-1}}^{**} at many points in float64: the lower hull of sampled points
    (x, g(x)) and (g(x), x) on a fine grid (for plots; not an enclosure)."""
    xs = np.unique(np.concatenate([np.linspace(0, 1, 4097), np.geomspace(1e-15, 0.01, 200),
                                   1 - np.geomspace(1e-15, 0.01, 200)]))
    ys = np.clip(_np_values(g, xs), 0.0, 1.0)
    px = np.concatenate([xs, ys])
    py = np.concatenate([ys, xs])
    order = np.lexsort((py, px))
    hull = lower_hull(list(zip(px[order].tolist(), py[order].tolist(), strict=True)))
    hx = np.array([p[0] for p in hull])
    hy = np.array([p[1] for p in hull])
    return np.interp(np.asarray(x, dtype=np.float64), hx, hy)
