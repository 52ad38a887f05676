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

**Lattice losses** (:class:`Lattice`). Where every finite privacy loss of f lies on a lattice
o + j s (j an integer: the lattice product, the Arb lattice power and the tilted lattice power of
``numeric.lattice_*``), delta(eps) = Q(L > eps) - e^eps P(L > eps) with both tails constant between
consecutive lattice losses (Dong, Roth & Su, Prop. 6: the masses sit at the losses), so on a grid
interval holding no lattice loss in its interior, delta(log v) and u delta(-log u) are affine in v
and in u (continuity carries it to the closed interval; the mass at +oo adds a constant), and so is
h: its infimum there is the smaller end value. On an interval holding one lattice loss k, h is
affine on both sides of k, so its infimum is min{h(x_i), h(k), h(x_{i+1})}, and h(k) >= C(x_{i+1})
+ min(B k) for C non-increasing (C(x_i) + min(B k) for C non-decreasing; min over the ball of k
clipped to the interval). With the grid points just above the lattice losses near a level's
minimiser, the band is exact up to the balls' widths and a few units of the last place: the
trade-off curve of a lattice pair is piecewise linear with its vertices at the Neyman-Pearson
points of the lattice losses, and this reads them from delta at those losses.

Everything is computed with Arb balls (python-flint) and rounded outward to float64: the bands
are certified, their width (second order in the grid step) is what they show.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb

from . import budget
from .cf_laws import lower, upper, working_precision

__all__ = ["band", "Band", "point_band", "Lattice"]

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


class Lattice:
    """The lattice o + j s (j an integer, s > 0) that holds every finite privacy loss of f
    (module docstring), with ``offset`` and ``step`` as Arb balls or exact rationals."""

    #: The most lattice losses placed in one grid interval by :meth:`points_in`.
    MAX_POINTS = 64

    def __init__(self, offset, step, prec: int = 128) -> None:
        with working_precision(prec):
            self.o = offset if isinstance(offset, arb) else _exact_arb(offset)
            self.s = step if isinstance(step, arb) else _exact_arb(step)
        if not self.s > 0:
            raise ValueError(f"Lattice: step = {step} must be certainly positive")
        self.prec = prec
        self.of, self.sf = float(self.o.mid()), float(self.s.mid())

    def __repr__(self) -> str:
        return f"Lattice(offset={self.of:.17g}, step={self.sf:.17g})"

    def _loss(self, j: int) -> arb:
        return self.o + self.s * j

    def kinks(self, a: float, b: float) -> list | None:
        """The balls of the lattice losses that may lie in [a, b] (a < b floats), when at most
        one does; None where more may (or the floats cannot place them)."""
        if not (math.isfinite(a) and math.isfinite(b)):
            return None
        ja = math.floor((a - self.of) / self.sf) - 1
        jb = math.ceil((b - self.of) / self.sf) + 1
        if jb - ja > 6:
            return None
        out = []
        with working_precision(self.prec):
            A, B = arb(a), arb(b)
            for j in range(ja, jb + 1):
                k = self._loss(j)
                if k < A or k > B:
                    continue
                out.append(k)
                if len(out) > 1:
                    return None
            # the losses just outside the candidates must be certainly outside [a, b]
            if not (self._loss(ja) < A and self._loss(jb) > B):
                return None
        return out

    def points_in(self, a: float, b: float) -> list[float] | None:
        """Floats just above each lattice loss in (a, b) (at most :data:`MAX_POINTS`, else
        None): grid points whose intervals hold one lattice loss each, near their right ends."""
        if not (math.isfinite(a) and math.isfinite(b)) or b <= a:
            return []
        ja = math.floor((a - self.of) / self.sf)
        jb = math.ceil((b - self.of) / self.sf)
        if jb - ja > self.MAX_POINTS:
            return None
        out = []
        with working_precision(self.prec):
            for j in range(ja, jb + 1):
                t = math.nextafter(upper(self._loss(j)), math.inf)
                if a < t < b and t >= 0:
                    out.append(t)
        return out


def _exact_arb(x) -> arb:
    """The ball of a rational (exact when the precision holds it)."""
    x = Fraction(x)
    return arb(x.numerator) / x.denominator


class _Branch:
    """inf over x of h(x) = C(x) + B x for a convex C given by balls at increasing x_i."""

    def __init__(self, x: list, c: list, bounded_left: bool, bounded_right: bool,
                 decreasing: bool, kinks: list | None = None):
        self.x, self.c = x, c
        #: per interval: None, or the balls (x coordinates) of the at most one lattice loss in
        #: it (module docstring: h is affine on each side of it)
        self.kinks = kinks
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
        if self.kinks is not None and self.kinks[i] is not None:
            return self._piecewise_lower(i, B)
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

    def _piecewise_lower(self, i: int, B: arb) -> arb:
        """inf h on [x_i, x_{i+1}] where h is affine on each side of the interval's lattice
        losses (at most one; module docstring): the smaller end value and, at a loss k, C at
        the end C is smaller at plus the least B k over the ball of k within the interval."""
        x, c = self.x, self.c
        vals = [lower_arb(self.h(i, B)), lower_arb(self.h(i + 1, B))]
        end = c[i + 1] if self.decreasing else c[i]
        for k in self.kinks[i]:
            kl = _amax([lower_arb(k), lower_arb(x[i])])
            kh = _amin([upper_arb(k), upper_arb(x[i + 1])])
            vals.append(lower_arb(end + (B * kl if B >= 0 else B * kh)))
        return _amin(vals)

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
         prec: int = 96, lattice: Lattice | None = None,
         delta2: Sequence[arb] | None = None) -> Band:
    """Certified bands of the symmetric f at the levels ``alphas`` (module docstring) from
    balls ``delta[i]`` containing delta_f(eps[i]), eps increasing floats with eps[0] = 0;
    ``lattice``: a lattice holding every finite loss of f (the grid intervals with at most one
    lattice loss are bounded exactly, module docstring).

    ``delta2``: balls of the profile of f^{-1} at the same eps, for any f (not necessarily
    symmetric): the branch h_2 then takes them. f is the upper envelope of its support lines
    (Dong, Roth & Su, Prop. 6); those of slope -e^eps <= -1 are 1 - delta_f(eps) - e^eps alpha,
    those of slope in [-1, 0) are the mirror images of f^{-1}'s, f >= e^-eps (1 -
    delta_{f^-1}(eps) - alpha) (f^{-1} is f reflected in the diagonal, so a line under f^{-1}
    reflects to one under f), and u delta_{f^-1}(-log u) = E[(u dP/dQ - 1)_+] is convex in u
    as before. Without ``lattice`` only (f^{-1}'s losses are f's negated: another lattice)."""
    if not len(eps) >= 3 or eps[0] != 0 or \
            any(b <= a for a, b in zip(eps[:-1], eps[1:], strict=True)):
        raise ValueError("band: eps must increase from 0 with at least three points")
    if delta2 is not None and (lattice is not None or len(delta2) != len(delta)):
        raise ValueError("band: delta2 needs one ball per eps and no lattice")
    x = np.asarray(alphas, dtype=np.float64)
    f_lo, f_hi = np.empty_like(x), np.empty_like(x)
    p_lo, p_hi = np.empty_like(x), np.empty_like(x)
    with working_precision(prec):
        # delta >= 0: a ball reaching below 0 is replaced by [0, its upper end]
        d = [arb(v.upper() / 2, v.upper() / 2) if v.lower() < 0 else v for v in delta]
        d2 = d if delta2 is None else [arb(v.upper() / 2, v.upper() / 2) if v.lower() < 0
                                       else v for v in delta2]
        v = [arb(e).exp() for e in eps]
        u = [arb(-e).exp() for e in eps]
        k1 = k2 = None
        if lattice is not None:
            ks = [lattice.kinks(a, b) for a, b in zip(eps[:-1], eps[1:], strict=True)]
            k1 = [None if k is None else [z.exp() for z in k] for k in ks]
            k2 = [None if k is None else [(-z).exp() for z in k] for k in ks[::-1]]
        # h_1 on v increasing (eps = 0 is the bounded left end), C = delta decreasing in v
        b1 = _Branch(v, list(d), True, False, True, k1)
        # h_2 on u increasing: reversed grid, C = u delta increasing in u; u = 1 bounded
        b2 = _Branch(u[::-1], [ui * di for ui, di in zip(u[::-1], d2[::-1], strict=True)],
                     False, True, False, k2)
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
    segs: dict = {}  # (each hull chord's exact ends and differences, once)
    hxl, hyl = hx.tolist(), hy.tolist()
    out_pl, out_ph, out_fl, out_fh = [], [], [], []
    with working_precision(prec):
        one, zero = arb(1), arb(0)
        neg_inf, pos_inf = arb("-inf"), arb("inf")
        for j, (a, i) in enumerate(zip(x.ravel().tolist(), idx.tolist(), strict=True)):
            if j % 64 == 0:
                budget.check()
            A = arb(a)
            seg = segs.get(i)
            if seg is None:
                # (x1 <= a <= x2: the hull runs from 0 to 1 with distinct x)
                y1, x1 = arb(hyl[i]), arb(hxl[i])
                seg = segs[i] = (y1, arb(hyl[i + 1]) - y1, x1, arb(hxl[i + 1]) - x1)
            y1, dy, x1, dx = seg
            lo = y1 + dy * (A - x1) / dx
            # (lower_arb, _amax and upper_arb inline: the same exact arbs)
            lo = arb(lo.lower()) if lo.is_finite() else neg_inf
            if A > lo:
                lo = A  # 1 - f >= alpha
            if zero > lo:
                lo = zero
            hi = one
            for eps, d_hi, branch in lines[j]:
                ex = exps.get(eps)
                if ex is None:
                    ex = exps[eps] = arb(eps).exp()
                v = arb(d_hi) + ex * A if branch == 1 else one - (one - A - arb(d_hi)) / ex
                if v < hi:
                    hi = arb(v.upper()) if v.is_finite() else pos_inf
            out_pl.append(max(lower(lo), 0.0))
            out_ph.append(min(upper(hi), 1.0))
            out_fl.append(max(lower(one - hi), 0.0))
            out_fh.append(min(upper(one - lo), 1.0))
    p_lo.flat[:], p_hi.flat[:] = out_pl, out_ph
    f_lo.flat[:], f_hi.flat[:] = out_fl, out_fh
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
