"""Certified bands of a symmetric trade-off function from enclosures of its privacy profile.

A symmetric f with privacy profile delta(eps) is the upper envelope of the f_{eps, delta(eps)},
eps >= 0 (Dong, Roth & Su, Prop. 6 and Eq. (10)):

    f(alpha) = max{0, sup_eps [1 - delta(eps) - e^eps alpha],
                      sup_eps [e^{-eps} (1 - delta(eps) - alpha)]},

so the power 1 - f(alpha) is min{1, inf_v h_1(v), 1 + inf_u h_2(u)} with

    h_1(v) = delta(log v) + alpha v                 on v = e^eps in [1, oo),
    h_2(u) = u delta(-log u) - (1 - alpha) u        on u = e^-eps in (0, 1].

For f = T(P, Q), delta(log v) = E_P[(dQ/dP - v)_+] is convex in v and u delta(-log u) =
E_P[(u dQ/dP - 1)_+] convex in u (a maximum of such, for a symmetric hull's two directions,
is convex too), so both h are convex (derived here). From balls of delta at grid points
0 = eps_0 < ... < eps_N (:func:`band`):

* an upper bound of inf h is h at any grid point (upper end of its ball): the lower band;
* a lower bound on a grid interval [x_i, x_{i+1}] is the larger of (a) the monotone bound
  (delta non-increasing in eps: h_1 >= delta(eps_{i+1}) + alpha v_i, h_2 >= u_i delta(eps_i)...
  in the interval's order) and (b) the secant bound: a convex function lies above the
  extensions of its secants over the neighbouring intervals, so h >= max(S_l, S_r) + B x there,
  whose minimum over the interval is at an end or where S_l and S_r cross;
* beyond a window of intervals around the float minimiser, convexity bounds the rest: where the
  secant slope at the window's edge points away from it (h(x_{k-1}) <= h(x_k), certified), h
  is at least h(x_k) beyond x_k; past the last grid point without that, h_1 >= alpha v_N and
  h_2 >= -(1 - alpha) u_N.

Everything is computed with Arb balls (python-flint) and rounded outward to float64: the bands
are certified, their width (second order in the grid step) is what they show.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from flint import arb

from . import budget
from .cf_laws import lower, upper, working_precision

__all__ = ["band", "Band", "point_band"]

#: Intervals on each side of the float minimiser examined first (doubled until the tails are
#: certified or the grid is exhausted).
WINDOW = 1


class Band:
    """Certified float64 enclosures at the levels: ``f_lo <= f <= f_hi`` and
    ``power_lo <= 1 - f <= power_hi`` (the power computed without cancellation)."""

    def __init__(self, f_lo, f_hi, power_lo, power_hi):
        self.f_lo, self.f_hi = f_lo, f_hi
        self.power_lo, self.power_hi = power_lo, power_hi

    def intersect(self, other: Band) -> Band:
        """The band inside both (each holds the truth)."""
        f_lo, f_hi = np.maximum(self.f_lo, other.f_lo), np.minimum(self.f_hi, other.f_hi)
        p_lo = np.maximum(self.power_lo, other.power_lo)
        p_hi = np.minimum(self.power_hi, other.power_hi)
        return Band(f_lo, np.maximum(f_hi, f_lo), p_lo, np.maximum(p_hi, p_lo))

    @property
    def width(self) -> float:
        """The widest band of f."""
        return float(np.max(self.f_hi - self.f_lo)) if self.f_lo.size else 0.0


class _Branch:
    """inf over x of h(x) = C(x) + B x for a convex C given by balls at increasing x_i."""

    def __init__(self, x: list, c: list, bounded_left: bool, bounded_right: bool,
                 decreasing: bool):
        self.x, self.c = x, c
        self.n = len(x)
        self.bl, self.br = bounded_left, bounded_right
        self.decreasing = decreasing  # C non-increasing in x (else non-decreasing)
        self.xf = np.array([float(v.mid()) for v in x])
        self.cf = np.array([float(v.mid()) for v in c])
        s = [(c[i + 1] - c[i]) / (x[i + 1] - x[i]) for i in range(self.n - 1)]
        self.s = s  # the secants of C over [x_i, x_{i+1}], each S_i(x) = c_i + s_i (x - x_i)
        # (in this point-slope form, not through an intercept at x = 0: a secant over a tiny
        # interval has a wide slope, which the intercept would carry to every x)
        ninf = arb("-inf")
        # per interval i: lower bounds of max(S_l, S_r) at both ends, and the crossing point
        self.ga, self.gb, self.xs, self.lines = [], [], [], []
        for i in range(self.n - 1):
            lines = [(s[j], c[j], x[j]) for j in (i - 1, i + 1) if 0 <= j < self.n - 1]
            self.lines.append(lines)
            ga = [cl + sl * (x[i] - xl) for sl, cl, xl in lines]
            gb = [cl + sl * (x[i + 1] - xl) for sl, cl, xl in lines]
            self.ga.append(_amax([lower_arb(g) for g in ga]) if ga else ninf)
            self.gb.append(_amax([lower_arb(g) for g in gb]) if gb else ninf)
            if len(lines) == 2:
                (s1, c1, x1), (s2, c2, x2) = lines
                xs = (c2 - c1 + s1 * x1 - s2 * x2) / (s1 - s2)
                self.xs.append((xs, s1, c1, x1))
            else:
                self.xs.append(None)

    def h(self, i: int, B: arb) -> arb:
        return self.c[i] + B * self.x[i]

    def interval_lower(self, i: int, B: arb) -> arb:
        """A lower bound (an exact arb) of h on [x_i, x_{i+1}]."""
        x, c = self.x, self.c
        if self.decreasing:  # C >= C(x_{i+1}) there
            mono = c[i + 1] + (B * x[i] if B >= 0 else B * x[i + 1])
        else:
            mono = c[i] + (B * x[i] if B >= 0 else B * x[i + 1])
        cands = [self.ga[i] + B * x[i], self.gb[i] + B * x[i + 1]]
        if self.xs[i] is not None:
            xs, s1, c1, x1 = self.xs[i]
            cands.append(c1 + s1 * (xs - x1) + B * xs)
        # each neighbouring secant alone: h >= S + B x, a line, at least its smaller end value
        # (tight where the two secants are too close for their crossing to be located)
        alone = [_amin([lower_arb(cl + sl * (x[k] - xl) + B * x[k]) for k in (i, i + 1)])
                 for sl, cl, xl in self.lines[i]]
        return _amax([lower_arb(mono), _amin([lower_arb(v) for v in cands])] + alone)

    def inf_bounds(self, B: arb, Bf: float) -> tuple[arb, arb]:
        """(lower bound, upper bound) of inf h, as exact arbs."""
        n = self.n
        m = int(np.argmin(self.cf + Bf * self.xf))
        hs: dict = {}

        def hv(i):
            if i not in hs:
                hs[i] = self.h(i, B)
            return hs[i]

        left = right = None  # lower bounds of h on x <= x_j and on x >= x_k
        r = WINDOW
        while left is None:  # the left end moves out until convexity bounds what lies beyond
            j = max(m - r, 0)
            if j == 0:
                left = arb("inf") if self.bl else self.tail_left(B)
            elif hv(j + 1).upper() <= hv(j).lower():
                left = lower_arb(hv(j))
            r *= 2
        r = WINDOW
        while right is None:
            k = min(m + r, n - 1)
            if k == n - 1:
                right = arb("inf") if self.br else self.tail_right(B)
            elif hv(k - 1).upper() <= hv(k).lower():
                right = lower_arb(hv(k))
            r *= 2
        lo = _amin([left, right] + [self.interval_lower(i, B) for i in range(j, k)])
        hi = _amin([upper_arb(hv(i)) for i in range(j, k + 1)])
        return lo, hi

    def tail_left(self, B: arb) -> arb:
        """h(x) >= B x_0 for 0 < x <= x_0 when C >= 0 and B <= 0 (the branch h_2)."""
        return lower_arb(B * self.x[0]) if B <= 0 else arb(0)

    def tail_right(self, B: arb) -> arb:
        """h(x) >= B x_N for x >= x_N when C >= 0 and B >= 0 (the branch h_1)."""
        return lower_arb(B * self.x[-1]) if B >= 0 else arb("-inf")


def _amin(vals: list) -> arb:
    """The least of exact arbs (points or infinities), compared exactly."""
    m = vals[0]
    for v in vals[1:]:
        if v < m:
            m = v
    return m


def _amax(vals: list) -> arb:
    m = vals[0]
    for v in vals[1:]:
        if v > m:
            m = v
    return m


def lower_arb(v: arb) -> arb:
    """The lower end of a ball as an exact arb (-oo where it is not finite)."""
    return arb(v.lower()) if v.is_finite() else arb("-inf")


def upper_arb(v: arb) -> arb:
    return arb(v.upper()) if v.is_finite() else arb("inf")


def band(eps: Sequence[float], delta: Sequence[arb], alphas: np.ndarray,
         prec: int = 96) -> Band:
    """Certified bands of the symmetric f at the levels ``alphas`` (module docstring) from
    balls ``delta[i]`` containing delta_f(eps[i]), eps increasing floats with eps[0] = 0."""
    if not len(eps) >= 3 or eps[0] != 0 or \
            any(b <= a for a, b in zip(eps[:-1], eps[1:], strict=True)):
        raise ValueError("band: eps must increase from 0 with at least three points")
    x = np.asarray(alphas, dtype=np.float64)
    f_lo, f_hi = np.empty_like(x), np.empty_like(x)
    p_lo, p_hi = np.empty_like(x), np.empty_like(x)
    with working_precision(prec):
        # delta >= 0: a ball reaching below 0 is replaced by [0, its upper end]
        d = [arb(v.upper() / 2, v.upper() / 2) if v.lower() < 0 else v for v in delta]
        v = [arb(e).exp() for e in eps]
        u = [arb(-e).exp() for e in eps]
        # h_1 on v increasing (eps = 0 is the bounded left end), C = delta decreasing in v
        b1 = _Branch(v, list(d), True, False, True)
        # h_2 on u increasing: reversed grid, C = u delta increasing in u; u = 1 bounded
        b2 = _Branch(u[::-1], [ui * di for ui, di in zip(u[::-1], d[::-1], strict=True)],
                     False, True, False)
        one = arb(1)
        for idx, a in enumerate(x.ravel()):
            if idx % 64 == 0:
                budget.check()
            A = arb(float(a))
            l1, h1 = b1.inf_bounds(A, float(a))
            l2, h2 = b2.inf_bounds(A - 1, float(a) - 1)
            plo = _amax([arb(0), _amin([one, l1, lower_arb(one + l2)])])
            phi = _amin([one, h1, upper_arb(one + h2)])
            p_lo.flat[idx], p_hi.flat[idx] = max(lower(plo), 0.0), min(upper(phi), 1.0)
            f_lo.flat[idx] = max(lower(one - phi), 0.0)
            f_hi.flat[idx] = min(upper(one - plo), 1.0)
    # 1 - alpha is an upper bound of every trade-off function (rounded up)
    f_hi = np.minimum(np.maximum(f_hi, 0.0), np.nextafter(1.0 - x, np.inf))
    return Band(f_lo, np.maximum(f_hi, f_lo), p_lo, np.maximum(p_hi, p_lo))


def point_band(px: np.ndarray, py: np.ndarray, alphas: np.ndarray, lines: Sequence,
               prec: int = 96) -> Band:
    """Certified bands of a symmetric f at the levels ``alphas`` from certified points of its
    power curve and certified support lines (Dong, Roth & Su, Prop. 6; derived here).

    ``(px[i], py[i])`` are floats with ``py[i] <= 1 - f(px[i])``: the power 1 - f is concave
    and non-decreasing, so it lies above every chord between such points (with (0, 0) and
    (1, 1), which every trade-off function has below its power): the lower band is the upper
    concave hull of the points at each level. ``lines[j]`` lists ``(eps, delta_hi, branch)``
    for level j, ``delta_hi >= delta_f(eps)``: branch 1 is the line
    1 - f(alpha) <= delta + e^eps alpha, branch 2 its mirror image
    1 - f(alpha) <= 1 - e^{-eps} (1 - alpha - delta) (f symmetric): the upper band is the least
    of them (and 1). With the points at the levels' Neyman-Pearson thresholds the bands are
    first order in the points' ball widths, whatever the spacing of the levels."""
    x = np.asarray(alphas, dtype=np.float64)
    hx, hy = _upper_hull(np.concatenate([[0.0, 1.0], px]), np.concatenate([[0.0, 1.0], py]))
    idx = np.clip(np.searchsorted(hx, x.ravel(), side="right") - 1, 0, len(hx) - 2)
    f_lo, f_hi = np.empty_like(x), np.empty_like(x)
    p_lo, p_hi = np.empty_like(x), np.empty_like(x)
    exps: dict = {}
    with working_precision(prec):
        one = arb(1)
        for j, a in enumerate(x.ravel()):
            if j % 64 == 0:
                budget.check()
            A = arb(float(a))
            i = int(idx[j])
            x1, x2, y1, y2 = hx[i], hx[i + 1], hy[i], hy[i + 1]
            # (x1 <= a <= x2: the hull runs from 0 to 1 with distinct x)
            lo = arb(y1) + (arb(y2) - arb(y1)) * (A - arb(x1)) / (arb(x2) - arb(x1))
            lo = _amax([lower_arb(lo), A, arb(0)])  # 1 - f >= alpha
            hi = one
            for eps, d_hi, branch in lines[j]:
                if eps not in exps:
                    exps[eps] = arb(eps).exp()
                ex = exps[eps]
                v = arb(d_hi) + ex * A if branch == 1 else one - (one - A - arb(d_hi)) / ex
                if v < hi:
                    hi = upper_arb(v)
            p_lo.flat[j], p_hi.flat[j] = max(lower(lo), 0.0), min(upper(hi), 1.0)
            f_lo.flat[j] = max(lower(one - hi), 0.0)
            f_hi.flat[j] = min(upper(one - lo), 1.0)
    f_hi = np.minimum(np.maximum(f_hi, 0.0), np.nextafter(1.0 - x, np.inf))
    return Band(f_lo, np.maximum(f_hi, f_lo), p_lo, np.maximum(p_hi, p_lo))


def _upper_hull(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of the upper concave hull of the points, by increasing x (floats: which
    points are vertices is a choice, each chord between two points is a valid bound)."""
    order = np.lexsort((-py, px))
    xs, ys = px[order], py[order]
    hx: list = []
    hy: list = []
    for xv, yv in zip(xs.tolist(), ys.tolist(), strict=True):
        if hx and xv == hx[-1]:
            continue  # (the larger y came first)
        while len(hx) >= 2 and \
                (hy[-1] - hy[-2]) * (xv - hx[-2]) <= (yv - hy[-2]) * (hx[-1] - hx[-2]):
            hx.pop()
            hy.pop()
        hx.append(xv)
        hy.append(yv)
    return np.array(hx), np.array(hy)
