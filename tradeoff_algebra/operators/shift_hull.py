"""Certified Arb evaluation of the diagonal translates ``Shift(f, t)`` (Dong, Roth & Su, Thm. 5).

Thm. 5 (Eq. (9)) bounds a composition from above by the translate ``U(b) = f(b - gamma) +
gamma`` of f's graph along the diagonal (f = 1 on (-oo, 0)). A trade-off function lies below U
iff it lies below ``m = min{1 - alpha, U}``, iff (being convex) it lies below the greatest
convex minorant H of m, which is ``Shift(f, -gamma)`` (``operators.shift``). With f convex, H is

* ``1 - alpha`` when U lies above that line, i.e. when ``s1 >= -1``; else
* the tangent ``1 + s1 alpha`` from (0, 1) up to its tangent point b1, the translate U on
  [b1, b2], and the tangent ``r (1 - alpha)`` to (1, 0) from b2 on, where

      s1 = min_{b in [gamma, 1]} (U(b) - 1)/b,      r = min_{b in [gamma, 1)} U(b)/(1 - b).

Every number here is an Arb ball (python-flint); f is read through its own certified balls
(``arb_value``, or ``exact_value`` for finite objects) at exact dyadic levels only. The minima
are enclosed over a cover of x = b - gamma in [0, 1 - gamma] by cells with dyadic ends: the
upper end of the ratio at any point bounds the minimum from above; a cell's lower bound uses
that f is non-increasing (f >= f(x1) on [x0, x1]) and convex (f lies above the chord of two
neighbouring points extended beyond them), and that a line over a positive linear denominator
is monotone on the cell, so the cell's ends bound it. The cells whose lower bound does not
exceed the upper bound may hold the minimiser; they are bisected until the enclosure is as
narrow as the precision (the chord bounds close quadratically in the cell width).

The value at alpha lies above the supporting lines ``1 + min(s1_lo, -1) alpha`` and
``min(r_lo, 1)(1 - alpha)`` and above U(alpha) where alpha is proved to lie between the tangent
points, and below ``1 - alpha``, U(alpha) and every chord of m through alpha from (0, 1) or
(1, 0) to a computed point of U (f(alpha - gamma) is bounded by f at the dyadic ends of the
ball alpha - gamma, f being non-increasing).

The lower translate ``Shift(f, t)``, t >= 0, is ``max{f(alpha + t) - t, 0}`` (f = 0 on
(1, oo)), a ball from f's balls at the dyadic ends of alpha + t in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..core.node import TradeOff
from ..numeric import budget
from ..numeric.protocol import arb_value, exact_value

__all__ = ["operand_ball", "HullTangents", "hull_tangents", "upper_shift_ball",
           "lower_shift_ball"]

#: Cells of the first cover of [0, 1 - gamma].
GRID = 32
#: The most points one tangent search computes; past it the enclosure is as wide as reached
#: (reported by its width, never claimed narrower).
MAX_POINTS = 4000


def _rational(x) -> sp.Rational:
    """The exact Arb number ``x`` (a dyadic) as a SymPy Rational."""
    man, exp = (int(v) for v in x.man_exp())
    return sp.Integer(man) * sp.Integer(2) ** exp if exp >= 0 else sp.Rational(man, 2**-exp)


def _key(x) -> tuple:
    return tuple(int(v) for v in x.man_exp())


def _exact_mid(x):
    from flint import arb

    return arb(x.mid())


def operand_ball(f: TradeOff, x):
    """An Arb ball of f(x) at the exact dyadic Arb level ``x`` in [0, 1] (1 on x < 0, 0 on
    x >= 1): the operand's registered ball (``arb_value``), else its exact value
    (``exact_value``) for finite objects; None where neither exists."""
    from flint import arb

    if x < 0:
        return arb(1)
    if x >= 1:
        return arb(0)
    v = arb_value(f, x, 1 - x, False)
    if v is not None and v.is_finite():
        return v
    X = _rational(x)
    q = exact_value(f, X, 1 - X)
    if q is not None:
        return arb(int(q.p)) / int(q.q)
    return None


class _Curve:
    """f at exact dyadic points (cached balls), with bounds at the ends of a ball of levels."""

    def __init__(self, f: TradeOff):
        self.f = f
        self.vals: dict = {}

    def at(self, x):
        k = _key(x)
        if k not in self.vals:
            budget.check()
            self.vals[k] = operand_ball(self.f, x)
        return self.vals[k]

    def bounds(self, y):
        """(lower, upper) exact bounds of f on the ball y (f non-increasing), or None."""
        from flint import arb

        lo_pt, hi_pt = y.upper(), y.lower()
        vlo = self.at(lo_pt) if lo_pt < 1 else arb(0)
        vhi = self.at(hi_pt) if hi_pt > 0 else (arb(1) if hi_pt < 0 else self.at(hi_pt))
        if vlo is None or vhi is None:
            return None
        return vlo.lower(), vhi.upper()


@dataclass(frozen=True)
class HullTangents:
    """What the hull of ``min{1 - alpha, U}`` needs: ``identity`` when it is proved to be
    1 - alpha; else the enclosures ``s1 = (lo, hi)`` of the slope from (0, 1) and
    ``r = (lo, hi)`` of the slope magnitude to (1, 0), brackets ``b1``, ``b2`` (exact
    (lo, hi)) of the tangent points in alpha, and the chords' points: ``left`` = ((b_lo,
    ratio_hi), ...) with (U(b) - 1)/b <= ratio_hi, ``right`` = ((b_hi, ratio_hi), ...) with
    U(b)/(1 - b) <= ratio_hi, b in [b_lo, b_hi]."""

    identity: bool
    s1: tuple = ()
    b1: tuple = ()
    r: tuple = ()
    b2: tuple = ()
    left: tuple = ()
    right: tuple = ()


class _Search:
    """The minimum of the left or right ratio over x in [0, X], X = 1 - g."""

    def __init__(self, C: _Curve, g, side: str):
        self.C, self.g, self.side = C, g, side
        self.X = 1 - g

    def ratio(self, x, v):
        if self.side == "left":
            return (v + self.g - 1) / (x + self.g)
        return (v + self.g) / (self.X - x)

    def upper(self, x):
        v = self.C.at(x)
        if v is None:
            return None
        if self.side == "right" and not (self.X - x) > 0:
            return None
        q = self.ratio(x, v)
        return q.upper() if q.is_finite() else None

    def cell_lower(self, pts: list, i: int):
        """An exact lower bound of the ratio on [pts[i], pts[i + 1]] (module docstring)."""
        from flint import arb

        g, X = self.g, self.X
        x0, x1 = pts[i], pts[i + 1]
        lines = []
        f1 = self.C.at(x1)
        lines.append((f1.lower(), f1.lower()) if f1 is not None else (arb(0), arb(0)))
        for j0, j1 in ((i - 1, i), (i + 1, i + 2)):
            if j0 < 0 or j1 >= len(pts):
                continue
            d0, d1 = pts[j0], pts[j1]
            u0, u1 = self.C.at(d0), self.C.at(d1)
            if u0 is None or u1 is None:
                continue
            ends = []
            for b in (x0, x1):
                if b <= d0:
                    k = (d0 - b) / (d1 - d0)
                    ends.append((u0 * (1 + k) - u1 * k).lower())
                else:
                    k = (b - d1) / (d1 - d0)
                    ends.append((u1 * (1 + k) - u0 * k).lower())
            lines.append(tuple(ends))
        best = None
        for y0, y1 in lines:
            if self.side == "left":
                cand = min(((y0 + g - 1) / (x0 + g)).lower(), ((y1 + g - 1) / (x1 + g)).lower())
            elif (X - x1) > 0:
                cand = min(((y0 + g) / (X - x0)).lower(), ((y1 + g) / (X - x1)).lower())
            elif (y1 + g) > 0:  # the ratio grows to +oo at the right end: the left end bounds
                cand = ((y0 + g) / (X - x0)).lower()
            else:
                continue
            if best is None or cand > best:
                best = cand
        return best if best is not None else -(arb(2) ** 10000)

    def tail_lower(self, x_last):
        """A lower bound of the ratio on the sliver [x_last, X] (f >= 0 there)."""
        g, X = self.g, self.X
        if self.side == "left":  # (f + g - 1)/(x + g) >= (g - 1)/(x_last + g) as g - 1 < 0
            return ((g - 1) / (x_last + g)).lower()
        d = (X - x_last).upper()  # f + g >= g > 0 over a denominator at most d
        return (g / d).lower() if d > 0 else None

    def minimum(self, prec: int):
        """(lo, hi) of the minimum, a bracket (x_lo, x_hi) of the minimiser, and the points
        of the cells kept with the best point."""
        from flint import arb

        X_lo = self.X.lower()
        pts = [arb(0)]
        for k in range(1, GRID):
            p = _exact_mid(X_lo * k / GRID)
            if pts[-1] < p < X_lo:
                pts.append(p)
        pts.append(X_lo)
        his = [self.upper(p) for p in pts]
        lbs = [self.cell_lower(pts, i) for i in range(len(pts) - 1)]
        tail = self.tail_lower(X_lo)
        tol = arb(2) ** (-(prec - 16))
        widths: list = []
        while True:
            budget.check()
            fin = [(h, i) for i, h in enumerate(his) if h is not None]
            s_hi, arg = min(fin, key=lambda t: t[0].mid()) if fin else (arb(2) ** 10000, 0)
            s_lo = min(lbs + ([tail] if tail is not None else []))
            keep = [i for i, lb in enumerate(lbs) if lb <= s_hi]
            sliver = tail is not None and tail <= s_hi
            scale = abs(s_hi) if abs(s_hi) > 1 else arb(1)
            w = s_hi - s_lo
            widths.append(w)
            # done: narrow enough, too many points, or no progress in the last rounds (the
            # rounding of the balls bounds what the chords can prove)
            done = (w <= tol * scale or len(pts) > MAX_POINTS or len(keep) > 64
                    or (len(widths) > 6 and not widths[-1] < widths[-7] / 4))
            mids = {}
            if not done:
                for i in keep:
                    m = _exact_mid((pts[i] + pts[i + 1]) / 2)
                    if pts[i] < m < pts[i + 1]:
                        mids[i] = m
            if done or not mids:
                kept = [pts[i] for i in keep] + [pts[i + 1] for i in keep]
                if sliver:
                    kept.append(pts[-1])
                kept = sorted(kept, key=lambda p: p.mid()) or [pts[arg]]
                x_hi = self.X.upper() if sliver else kept[-1]
                return (s_lo, s_hi), (kept[0], x_hi), kept + [pts[arg]]
            npts, nhis, old = [], [], []
            for i, p in enumerate(pts):
                npts.append(p)
                nhis.append(his[i])
                if i in mids:  # both halves of a split cell get new bounds
                    npts.append(mids[i])
                    nhis.append(self.upper(mids[i]))
                    old += [None, None]
                elif i < len(lbs):
                    old.append(lbs[i])
            pts, his = npts, nhis
            # the other cells keep their bounds (still valid)
            lbs = [self.cell_lower(pts, i) if old[i] is None else old[i]
                   for i in range(len(pts) - 1)]


def hull_tangents(f: TradeOff, g, prec: int) -> HullTangents | None:
    """The tangents of the hull of ``min{1 - alpha, f(alpha - g) + g}`` for a ball ``g``
    proved in (0, 1), at Arb precision ``prec`` (call inside ``arb_precision``); None where f
    has no ball form."""
    C = _Curve(f)
    S1 = _Search(C, g, "left")
    if C.at(_exact_mid(S1.X.lower() / 2)) is None:
        return None
    (s_lo, s_hi), (xl, xh), pts1 = S1.minimum(prec)
    if s_lo >= -1:  # U lies above 1 - alpha: the hull is the identity
        return HullTangents(True)
    S2 = _Search(C, g, "right")
    (r_lo, r_hi), (yl, yh), pts2 = S2.minimum(prec)
    left = tuple(((x + g).lower(), q) for x in pts1 if (q := S1.upper(x)) is not None)
    right = tuple(((x + g).upper(), q) for x in pts2 if (q := S2.upper(x)) is not None)
    return HullTangents(False, (s_lo, s_hi), ((xl + g).lower(), (xh + g).upper()),
                        (r_lo, r_hi), ((yl + g).lower(), (yh + g).upper()), left, right)


def upper_shift_ball(f: TradeOff, g, tangents: HullTangents, a, ac):
    """A ball of ``Shift(f, -g)(alpha)`` from the exact balls a = alpha, ac = 1 - alpha."""
    from flint import arb

    if tangents.identity:
        return ac
    s_lo, _ = tangents.s1
    r_lo, _ = tangents.r
    lows = [arb(0), (1 + s_lo.min(arb(-1)) * a).lower(), (r_lo.min(arb(1)) * ac).lower()]
    highs = [ac.upper()]
    C = _Curve(f)
    if a >= g:  # U(alpha) = f(alpha - g) + g bounds the hull from above
        y = C.bounds(a - g)
        if y is not None:
            highs.append((y[1] + g).upper())
            if tangents.s1[1] < -1 and tangents.b1[1] <= a <= tangents.b2[0]:
                # proved between the tangent points of a hull that is not the identity
                lows.append((y[0] + g).lower())
    for b_lo, q in tangents.left:  # chords from (0, 1) to points at b >= alpha
        if b_lo >= a:
            highs.append((1 + q * a).upper())
    for b_hi, q in tangents.right:  # chords from points at b <= alpha to (1, 0)
        if b_hi <= a:
            highs.append((q * ac).upper())
    lo, hi = max(lows), min(highs)
    if lo > hi:  # rounding at a touching point: the enclosures overlap
        lo = hi
    return lo.union(hi)


def lower_shift_ball(f: TradeOff, t, a):
    """A ball of ``Shift(f, t)(alpha) = max{f(alpha + t) - t, 0}`` for a ball t >= 0."""
    from flint import arb

    C = _Curve(f)
    y = C.bounds(a + t)
    if y is None:
        return None
    lo = (y[0] - t).lower().max(arb(0))
    hi = (y[1] - t).upper().max(arb(0))
    return lo.union(hi)
