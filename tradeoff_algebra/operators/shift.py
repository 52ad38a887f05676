"""Shifting a trade-off function along the diagonal: the two sides of a Berry–Esseen sandwich.

Dong, Roth & Su, Thm. 5 (Eq. (9)) and Cor. 5 bound a composition between two translates of
G_mu's graph along the diagonal:

    G_mu(alpha + gamma) - gamma  <=  f_1 (x) ... (x) f_n(alpha)  <=  G_mu(alpha - gamma) + gamma.

``Shift(f, t)`` is the trade-off function made from such a translate:

* ``t >= 0`` (the lower side): ``alpha -> max{f(alpha + t) - t, 0}`` with f = 0 on (1, oo), as in
  Cor. 5 ("G can be set to 0 in (1, +oo)"). It is a trade-off function: convex (the maximum of a
  convex function and 0), non-increasing and at most ``1 - alpha - 2t``.
* ``t < 0`` (the upper side, gamma = -t): the translate ``alpha -> f(alpha - gamma) + gamma``
  (f = 1 on (-oo, 0)) is not a trade-off function (it exceeds 1 - alpha near 0). A trade-off
  function below it is also below ``min{1 - alpha, f(alpha - gamma) + gamma}``, so below that
  function's greatest convex minorant, which is what ``Shift(f, -gamma)`` is: the tangent from
  (0, 1) to the translate, the translate between the two tangent points, and the tangent to
  (1, 0) (or ``1 - alpha`` where the translate lies above it).

Both are non-decreasing in f and in ``-t``; ``Shift(f, 0) = f``.

Numerics: where the operand has Arb balls (``arb_value``, or exact values), both translates are
Arb balls (``operators.shift_hull``: the upper one through its two tangents, enclosed over a
cover of cells), the certified route of ``evaluate`` at rational levels; at other levels the
same computation at the rounded level is an estimate. Operands without balls keep the mpmath
route below (an estimate).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import DRS
from ..core.node import TradeOff, register_operator
from ..core.rules import rule
from ..core.validate import param
from ..numeric.context import arb_precision, mp, thread_cache
from ..numeric.protocol import arb_value, mp_value, np_value, num
from ._base import operand
from .shift_hull import hull_tangents, lower_shift_ball, upper_shift_ball

__all__ = ["Shift"]


@register_operator
class Shift(TradeOff):
    """The translate of f's graph by (-t, -t) along the diagonal, as a trade-off function.

    ``t`` in [0, 1]: ``max{f(alpha + t) - t, 0}``; ``t`` in [-1, 0): the greatest convex minorant
    of ``min{1 - alpha, f(alpha - |t|) + |t|}`` (Dong, Roth & Su, Thm. 5, Eq. (9); Cor. 5).
    """

    def __new__(cls, f: Any, t: Any):
        f = operand(f, "Shift")
        t = param("t", t, lower=-1, upper=1, owner="Shift")
        return TradeOff.__new__(cls, f, t)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def t(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool | None:
        # a translation along the diagonal, and the hull with the mirror points (0, 1) and
        # (1, 0), commute with the reflection in the diagonal
        return True if self.arg.is_symmetric is True else None

    def _eval_at(self, alpha):
        if self.t.is_nonnegative is not True:
            return None
        a = alpha + self.t
        if (a - 1).is_positive is True:
            return sp.Integer(0)
        v = self.arg._eval_at(a)
        return None if v is None else sp.Max(v - self.t, 0)

    def _sympystr(self, printer):
        return "Shift(%s, %s)" % (printer._print(self.arg), printer._print(self.t))

    def _latex(self, printer):
        return r"\operatorname{Shift}_{%s}\left(%s\right)" % (printer._print(self.t),
                                                            printer._print(self.arg))


@rule(Shift, cite=DRS.thm(5, note="a translate by 0 is the function itself"), priority=50)
def shift_zero(f: Shift):
    """Shift(f, 0) = f."""
    return f.arg if f.t == 0 else None


# -- numerics ------------------------------------------------------------------------------------
def _value(f: TradeOff, x, xc):
    """Enclosure of f at x in [0, 1] with complement xc (f = 1 below 0 and 0 above 1)."""
    if x <= 0:
        return mp.one, mp.one
    if xc <= 0:
        return mp.zero, mp.zero
    return mp_value(f, x, xc)


def _level(x):
    """(x, 1 - x) with the complement formed at doubled precision."""
    with mp.workprec(2 * mp.prec):
        xc = 1 - x
    return +x, +xc


#: Cells of the cover of [gamma, 1] searched for the tangent points.
_GRID = 48


def _translate(f: TradeOff, g, b):
    """Enclosure of U(b) = f(b - g) + g at b in [g, 1]."""
    with mp.workprec(2 * mp.prec):
        x, xc = b - g, 1 - b + g
    lo, hi = _value(f, +x, +xc)
    return lo + g, hi + g


def _tangent(f: TradeOff, g, side: str):
    """Certified bounds (s_lo, s_hi) of the slope of the tangent from (0, 1) (``side="left"``:
    s = min (U(b) - 1)/b) or of the slope magnitude of the tangent to (1, 0) (``side="right"``:
    s = min U(b)/(1 - b)) over b in [g, 1], and a bracket [b_lo, b_hi] of the tangent point.

    The cover of [g, 1] by cells is refined around the smallest cell bounds; a cell's lower bound
    uses that U is non-increasing (and, between neighbours, convex: U lies above the extension of
    every chord), so the bounds are valid whatever the refinement reached.
    """
    one = mp.one
    pts = [g + (one - g) * mp.mpf(k) / _GRID for k in range(_GRID + 1)]
    vals = {}

    def U(b):
        v = vals.get(b)
        if v is None:
            v = vals[b] = _translate(f, g, b)
        return v

    def ratio(b, u):
        return (u - 1) / b if side == "left" else (u / (1 - b) if b < 1 else mp.inf)

    def cell_lb(i):
        c0, c1 = pts[i], pts[i + 1]
        lo0, _ = U(c0)
        lo1, _ = U(c1)
        if side == "left":  # (U(b) - 1)/b with U(b) >= U(c1)
            num_ = lo1 - 1
            best = num_ / (c0 if num_ < 0 else c1)
        else:  # U(b)/(1 - b) with U(b) >= U(c1) >= 0
            best = lo1 / (1 - c0)
        for j0, j1 in ((i - 1, i), (i + 1, i + 2)):  # chords of the neighbours, extended
            if j0 < 0 or j1 >= len(pts):
                continue
            d0, d1 = pts[j0], pts[j1]
            u0lo, u0hi = U(d0)
            u1lo, u1hi = U(d1)
            # the chord through (d0, U(d0)), (d1, U(d1)) extended outside [d0, d1] lies below U;
            # at b = c0 and c1, bound it from below with the enclosures
            ends = []
            for b in (c0, c1):
                if b <= d0:
                    k = (d0 - b) / (d1 - d0)
                    ends.append((b, u0lo * (1 + k) - u1hi * k))
                else:
                    k = (b - d1) / (d1 - d0)
                    ends.append((b, u1lo * (1 + k) - u0hi * k))
            # (line(b) - 1)/b and line(b)/(1 - b) are monotone in b on the cell: ends suffice;
            # on the last cell of the right side, line(b)/(1 - b) has the sign of line(1) near
            # b = 1: it tends to +oo (the end at c0 is the bound) or to -oo (no bound)
            if side == "right" and c1 >= 1:
                if ends[1][1] < 0:
                    continue
                cand = ratio(*ends[0])
            else:
                cand = min(ratio(b, u) for b, u in ends)
            best = max(best, cand)
        return best

    tol = mp.ldexp(1, -(mp.prec - 8))
    for _ in range(4 * mp.prec):
        his = [ratio(b, U(b)[1]) for b in pts]
        s_hi = min(his)
        lbs = [cell_lb(i) for i in range(len(pts) - 1)]
        s_lo = min(lbs)
        slack = mp.ldexp(1, -(mp.prec - 16)) * max(one, abs(s_hi))  # rounding of the bounds
        keep = [i for i, lb in enumerate(lbs) if lb <= s_hi + slack] or list(range(len(lbs)))
        b_lo, b_hi = pts[keep[0]], pts[keep[-1] + 1]
        if s_hi - s_lo <= tol * max(one, abs(s_hi)) or len(pts) > 4000:
            break
        new = [(pts[i] + pts[i + 1]) / 2 for i in keep]
        pts = sorted(set(pts) | set(new))
    # a margin for the rounding of the arithmetic above (a few units in the last place)
    m = mp.ldexp(1, -(mp.prec - 16)) * max(one, abs(s_hi))
    return s_lo - m, s_hi + m, b_lo, b_hi


@thread_cache(maxsize=256)  # (per thread: mpf numbers of this thread's context)
def _tangents(f: TradeOff, t: sp.Expr, prec: int):
    with mp.workprec(prec):
        g = -num(t, "t")
        return _tangent(f, g, "left"), _tangent(f, g, "right")


def _upper_value(f: Shift, a, ac):
    g = -num(f.t, "t")
    if g >= 1:  # the translate lives at alpha = 1 only, where it is f(0) + 1 > 0: the hull is Id
        return ac, ac
    (s1lo, s1hi, b1lo, b1hi), (s2lo, s2hi, b2lo, b2hi) = _tangents(f.arg, f.t, mp.prec)
    idlo = idhi = ac
    if s1lo >= -1:  # the translate lies above 1 - alpha: the hull is Id
        return idlo, idhi
    cands = []
    if a <= b1hi:  # on the tangent from (0, 1)
        cands.append((1 + s1lo * a, 1 + s1hi * a))
    if a >= b2lo:  # on the tangent to (1, 0)
        cands.append((s2lo * ac, s2hi * ac))
    if b1lo <= a <= b2hi:  # on the translate
        cands.append(_translate(f.arg, g, a))
    lo = min(c[0] for c in cands)
    hi = max(c[1] for c in cands)
    # every supporting line lies below the hull, and the hull below 1 - alpha
    lo = max(lo, 1 + s1lo * a, s2lo * ac, mp.zero)
    hi = min(hi, ac)
    if s1hi >= -1:  # undecided between the two cases: the hull is one of them
        hi = ac
    return min(lo, hi), hi


@thread_cache(maxsize=256)
def _arb_tangents(f: TradeOff, t: sp.Expr, prec: int):
    """The certified tangents of Shift(f, t), t < 0, at Arb precision ``prec``
    (``shift_hull.hull_tangents``; None where f has no ball form)."""
    from ..numeric.arb_expr import arb_ball

    return hull_tangents(f, -arb_ball(t), prec)


def _arb_shift(f: Shift, a, ac, power: bool):
    """A ball of Shift(f, t)(alpha) (``power``: 1 - Shift(f, t)(alpha)) from f's balls
    (``operators.shift_hull``), or None where f has none or the sign of t is not decided."""
    from flint import ctx

    from ..numeric.arb_expr import arb_ball

    try:
        t = arb_ball(f.t)
    except ValueError:
        return None
    if t >= 0:
        v = lower_shift_ball(f.arg, t, a)
    elif t < 0:
        g = -t
        if g >= 1:  # the translate lives at alpha = 1 only: the hull is Id
            v = ac
        elif g < 1:
            tg = _arb_tangents(f.arg, f.t, ctx.prec)
            v = None if tg is None else upper_shift_ball(f.arg, g, tg, a, ac)
        else:
            v = None
    else:
        v = None
    if v is None:
        return None
    return 1 - v if power else v


arb_value.register(Shift)(_arb_shift)


def _ball_pair(f: Shift, a, ac):
    """(lo, hi) from the Arb evaluation at the mpf level (a, ac), or None where f has no
    ball form. A plain pair, an estimate: the level is the working precision's rounding of
    alpha (an exact rational level takes the certified Arb fast path of ``evaluate``)."""
    from mpmath.libmp import round_ceiling, round_floor

    from ..numeric.arb import arb_endpoint, arb_exact

    with arb_precision(mp.prec + 16):
        ball = _arb_shift(f, arb_exact(a), arb_exact(ac), False)
        if ball is None or not ball.is_finite():
            return None
        return (max(arb_endpoint(ball.lower(), round_floor), mp.zero),
                min(arb_endpoint(ball.upper(), round_ceiling), mp.one))


@mp_value.register(Shift)
def _(f, a, ac):
    pair = _ball_pair(f, a, ac)
    if pair is not None:
        return pair
    t = num(f.t, "t")
    if t >= 0:
        with mp.workprec(2 * mp.prec):
            x, xc = a + t, ac - t
        lo, hi = _value(f.arg, +x, +xc)
        return max(lo - t, mp.zero), max(hi - t, mp.zero)
    return _upper_value(f, a, ac)


@np_value.register(Shift)
def _(f, x):
    x = np.asarray(x, dtype=float)
    t = float(f.t)
    if t >= 0:
        y = x + t
        inside = y < 1
        out = np.zeros_like(x)
        out[inside] = np.asarray(np_value(f.arg, y[inside]), dtype=float) - t
        return np.maximum(out, 0.0)
    g = -t
    if g >= 1:
        return 1.0 - x
    b = np.linspace(g, 1.0, 4097)
    u = np.asarray(np_value(f.arg, b - g), dtype=float) + g
    px = np.concatenate(([0.0], b, [1.0]))
    py = np.concatenate(([1.0], u, [0.0]))
    hx, hy = _lower_hull(px, py)
    return np.clip(np.interp(x, hx, hy), 0.0, 1.0 - x)


def _lower_hull(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower convex hull of points sorted by x (monotone chain)."""
    hx: list[float] = []
    hy: list[float] = []
    for x, y in zip(px, py, strict=True):
        while len(hx) >= 2 and ((hx[-1] - hx[-2]) * (y - hy[-2])
                                - (hy[-1] - hy[-2]) * (x - hx[-2])) <= 0:
            hx.pop()
            hy.pop()
        hx.append(float(x))
        hy.append(float(y))
    return np.array(hx), np.array(hy)
