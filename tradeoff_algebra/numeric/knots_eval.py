"""Values of piecewise-linear operands and of their symmetric hulls, from their knots.

From the exact SymPy knots of g (numeric.knots): the value at a rational point exactly
(:func:`pl_exact`), an mpmath enclosure at alpha (:func:`pl_mp_value`) and float64 curves
(:func:`pl_np`); the same for the symmetric hull C(g) = min{g, g^{-1}}^{**} (Wang, Su, Ye,
Shokri & Su, Sec. 4), whose knots are exact rationals (Python fractions) for rational knots of g
and are otherwise carried in mpmath with a rounding margin. Further exact routes for a node with
known knots (:func:`pl_knots_cached`): its privacy profile (Dong, Roth & Su, Prop. 6), its convex
conjugate (Eq. (7)) and its finite pair of distributions (Def. 2 and Appendix A).
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp
from mpmath.libmp import to_rational

from ..core.errors import NoClosedForm
from .context import mp
from .finite import FiniteLoss
from .knots import (
    Knots,
    _frac,
    _identically_zero,
    _to_sympy,
    exact_knots,
    knot_num,
    pl_eval,
    pl_knots,
    pl_symmetric_hull,
    rational_knots,
)
from .privacy_loss import loss_views

__all__ = ["pl_exact", "pl_mp_value", "pl_np", "pl_hull_knots", "pl_hull_exact", "pl_hull_mp",
           "pl_hull_np", "pl_knots_cached", "pl_mp_delta", "pl_mp_conjugate", "pl_finite_loss"]


# ================================================================================================
# Values of the piecewise-linear function through the knots and of its symmetric hull
# ================================================================================================
@lru_cache(maxsize=256)
def _hull_knots(knots: Knots) -> Knots:
    """SymPy knots of min{g, g^{-1}}^{**} from SymPy knots of g (cached)."""
    out = pl_symmetric_hull(exact_knots(knots))
    return tuple((_to_sympy(a), _to_sympy(v)) for a, v in out)


def pl_exact(knots: Knots, A: sp.Rational) -> sp.Rational | None:
    """The exact value at rational A of the piecewise-linear function through rational knots."""
    if not all(isinstance(x, sp.Rational) for k in knots for x in k):
        return None
    fk = tuple((_frac(a), _frac(v)) for a, v in knots)
    v = pl_eval(fk, Fraction(int(A.p), int(A.q)))
    return sp.Rational(v.numerator, v.denominator)


def pl_hull_knots(knots: Knots) -> Knots:
    """Exact knots of min{g, g^{-1}}^{**} for the knots of g (Fractions for rational knots;
    exact SymPy arithmetic with numerically decided comparisons otherwise, which is slow)."""
    return _hull_knots(tuple(knots))


def pl_mp_value(knots: Knots, a, ac, power: bool = False):
    """Enclosure of the piecewise-linear function through the exact SymPy ``knots`` at alpha
    (``a`` = alpha, ``ac`` = 1 - alpha), or of 1 - it (``power``), at the current precision.

    Each knot is rounded from its exact value; the distance to the nearer end of the piece is
    taken from ``a`` on the first piece and from ``ac`` on the last, so both tails keep their
    relative accuracy. The enclosure is widened by 2^-(prec - 8) times the terms' sizes, which
    covers the rounding of the knots and of the handful of operations.
    """

    xs = [knot_num(k[0], "knot") for k in knots]
    n = len(xs)
    i = min(max(bisect_right(xs, a) - 1, 0), n - 2)
    (x0, y0), (x1, y1) = knots[i], knots[i + 1]
    ys = (1 - y0, 1 - y1) if power else (y0, y1)
    Y0, Y1 = knot_num(ys[0], "knot"), knot_num(ys[1], "knot")
    with mp.workprec(mp.prec + 20):
        width = knot_num(x1 - x0, "knot")
        left = a if i == 0 else a - xs[i]
        right = ac if i == n - 2 else xs[i + 1] - a
        if left <= right:
            v = Y0 + (Y1 - Y0) * (left / width)
            size = abs(Y0) + abs(Y1 - Y0) * (abs(left) + abs(xs[i]) * (i > 0)) / width
        else:
            v = Y1 - (Y1 - Y0) * (right / width)
            size = abs(Y1) + abs(Y1 - Y0) * (abs(right) + abs(xs[i + 1]) * (i < n - 2)) / width
        m = mp.ldexp(size, -(mp.prec - 28))
        return +(v - m), +(v + m)


def pl_hull_exact(knots: Knots, A: sp.Rational) -> sp.Rational | None:
    """min{g, g^{-1}}^{**}(A) exactly for rational knots of g and rational A, else None."""
    return pl_exact(pl_hull_knots(knots), A) if rational_knots(knots) else None


def pl_hull_mp(knots: Knots, a, ac, power: bool = False):
    """Enclosure of min{g, g^{-1}}^{**}(alpha) (or of 1 - it) for g through the exact SymPy
    ``knots``: the exact hull for rational knots; otherwise the hull of the knots rounded to
    ``prec + 40`` bits (more for tiny alpha, and for a tiny power, so the power keeps its
    relative accuracy), with a margin 2^-(prec + 12) on top of :func:`pl_mp_value`'s for the
    rounded hull decisions (a misjudged near-tie moves a value by the rounding of the knots
    only) and the knots' absolute rounding."""
    if rational_knots(knots):
        return pl_mp_value(pl_hull_knots(knots), a, ac, power)
    extra = 40 + (max(0, -int(mp.mag(a))) if a > 0 else 0)
    prec = mp.prec
    for _ in range(4):
        with mp.workprec(prec + extra):
            mk = tuple((knot_num(x), knot_num(y)) for x, y in knots)
            hull = pl_symmetric_hull(mk)
            lo, hi = pl_mp_value(hull, a, ac, power)
            # the knots' own rounding, absolute (2^-(prec + extra) on ordinates near 1): it
            # dominates a tiny power (1 - f near 0), where it needs more bits, not a wider
            # claim
            err = mp.ldexp(1, -(prec + extra - 8))
            m = mp.ldexp(max(abs(lo), abs(hi)), -(prec + 12)) + err
            if not power or err <= mp.ldexp(abs(hi), -(prec + 4)) or extra > 8 * prec + 4000:
                return lo - m, hi + m
        extra += prec + 40 + (max(0, -int(mp.mag(hi))) if hi > 0 else 2 * prec)
    return lo - m, hi + m


def pl_hull_np(knots: Knots, x: np.ndarray) -> np.ndarray:
    """The hull of the knots in float64 (for curves)."""
    fk = tuple((float(a), float(v)) for a, v in knots)
    return pl_np(pl_symmetric_hull(fk), x)


def pl_np(knots: Knots, x: np.ndarray) -> np.ndarray:
    xs = np.array([float(k[0]) for k in knots])
    ys = np.array([float(k[1]) for k in knots])
    return np.interp(x, xs, ys)


# ================================================================================================
# Piecewise-linear operands: privacy profile, convex conjugate, finite pair (exact routes)
# ================================================================================================
_KNOTS: dict = {}


def pl_knots_cached(f) -> Knots | None:
    """:func:`pl_knots` of ``f``, cached per node (the knots of an operator node are built with
    exact SymPy arithmetic, which is too slow to repeat at every evaluation); ``None`` also
    when the exact comparisons cannot be decided."""
    try:
        return _KNOTS[f]
    except KeyError:
        pass
    except TypeError:  # pragma: no cover - unhashable node
        return pl_knots(f)
    try:
        k = pl_knots(f)
    except NoClosedForm:
        k = None
    if len(_KNOTS) > 512:
        _KNOTS.clear()
    _KNOTS[f] = k
    return k


def _simple(x: sp.Expr) -> sp.Expr:
    """An exact number as it is, rationals evaluated (no simplification: cancelling large
    knot expressions costs seconds, and nothing here needs a canonical form)."""
    return x


@lru_cache(maxsize=256)
def _pl_profile_data(knots: Knots) -> tuple:
    """``(1 - f(0), ((drop, ratio), ...))`` of the piecewise-linear f through ``knots``: the
    segments with a positive drop, with their likelihood ratio (minus the slope), exact."""
    segs = []
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        d, w = _simple(y0 - y1), _simple(x1 - x0)
        if d == 0:
            continue
        segs.append((d, _simple(d / w)))
    return _simple(1 - knots[0][1]), tuple(segs)


_PROFILE_NUMBERS: dict = {}


def _pl_profile_numbers(knots: Knots, wp: int) -> tuple:
    """``(1 - f(0), ((drop, log ratio), ...))`` of :func:`_pl_profile_data` as mpf at ``wp``
    bits (each within a unit of its last place; cached)."""
    key = (knots, wp)
    r = _PROFILE_NUMBERS.get(key)
    if r is None:
        c_s, segs = _pl_profile_data(knots)
        with mp.workprec(wp):
            c = knot_num(c_s, "1 - f(0)") if c_s != 0 else mp.zero
            nums = tuple((knot_num(d, "drop"), mp.log(knot_num(r_, "likelihood ratio")))
                         for d, r_ in segs)
        # cached as raw values: an mpf belongs to the context (thread) that made it
        r = (c._mpf_, tuple((d._mpf_, lr._mpf_) for d, lr in nums))
        if len(_PROFILE_NUMBERS) > 256:
            _PROFILE_NUMBERS.clear()
        _PROFILE_NUMBERS[key] = r
    mk = mp.make_mpf
    return mk(r[0]), tuple((mk(d), mk(lr)) for d, lr in r[1])


def _log_ratio_sign(r: sp.Expr, eps) -> int | None:
    """The sign of ``log r - eps``, i.e. of ``r - e^eps``, decided exactly (``eps`` an mpf, a
    dyadic rational): 0 when the two are equal as rational functions of their atoms (e.g.
    r = (1 - 1/(1 + E)) (1 + E) and eps = 1), else the sign of a value at twice the working
    digits when it is clear of them, else None."""
    E = sp.exp(sp.Rational(*to_rational(eps._mpf_)))
    z = r - E
    if z == 0 or _identically_zero(z):
        return 0
    digits = 2 * mp.dps + 30
    v = sp.N(z, digits)
    if v == 0 or abs(v) < sp.Float(10) ** (-(digits - 10)) * (1 + abs(E)):
        return None
    return 1 if v > 0 else -1


def pl_mp_delta(knots: Knots, eps):
    """Enclosure ``(lo, hi)`` of the privacy profile delta(eps) = 1 + f^*(-e^eps) of the
    piecewise-linear f through the exact ``knots`` (Dong, Roth & Su, Prop. 6).

    The infimum of ``e^eps x + f(x)`` is attained at a knot, so delta(eps) = 1 - f(0) plus, over
    the segments whose likelihood ratio r (minus the slope) exceeds e^eps, ``d (1 - e^eps / r)
    = -d expm1(eps - log r)`` with d the segment's drop: a sum of non-negative terms, no
    cancellation. The comparison of ``log r`` with eps is decided exactly where the two are
    within rounding (:func:`_log_ratio_sign`), so delta is exactly 0 beyond the largest
    log-ratio when f(0) = 1 (and an undecidable tie only widens the enclosure). The working
    precision is raised until the error bound is below the target (then ``lo = hi``), at most
    four-fold; beyond, the enclosure is returned. ``eps = mp.inf`` gives 1 - f(0).
    """
    knots = tuple(knots)
    c_s, segs = _pl_profile_data(knots)
    p = mp.prec
    extra = 24
    while True:
        wp = p + extra
        c, nums = _pl_profile_numbers(knots, wp)
        with mp.workprec(wp):
            u = mp.ldexp(1, -(wp - 6))
            total, err, amb = c, abs(c) * u, mp.zero
            if eps != mp.inf:
                for (_, r_s), (d, lr) in zip(segs, nums, strict=True):
                    el = u * (abs(lr) + abs(eps) + 2)
                    x = eps - lr
                    if x >= el:
                        continue  # r < e^eps: the segment does not count
                    if x > -el:
                        sgn = _log_ratio_sign(r_s, eps)
                        if sgn is None:
                            amb += d * -mp.expm1(-2 * el)
                            continue
                        if sgn <= 0:  # log r <= eps: the term is 0 (exactly at a tie)
                            continue
                    t = -d * mp.expm1(x)
                    total += t
                    # rounding of d, expm1, the sum; the error el of x (|d/dx| = d e^x <= d)
                    err += 4 * u * t + d * mp.exp(x) * el * 2
            if amb == 0 and (err == 0 or err <= mp.ldexp(abs(total), -(p + 2))):
                v = +total
                with mp.workprec(p):
                    v = +v
                return v, v
            if extra >= 3 * p + 64:
                return max(total - err, mp.zero), total + err + amb
        extra = 2 * extra


def pl_mp_conjugate(knots: Knots, y):
    """Enclosure of the convex conjugate f^*(y) = max_k {y x_k - f(x_k)} for y < 0 (the
    supremum of a concave piecewise-linear function is attained at a knot; Dong, Roth & Su,
    Eq. (7)), each candidate with its rounding error."""
    with mp.workprec(mp.prec + 20):
        u = mp.ldexp(1, -(mp.prec - 6))
        lo = hi = None
        for x_s, v_s in knots:
            x, v = knot_num(x_s), knot_num(v_s)
            c = y * x - v
            e = (abs(y * x) + abs(v)) * u
            lo = c - e if lo is None else max(lo, c - e)
            hi = c + e if hi is None else max(hi, c + e)
    return +lo, +hi


@lru_cache(maxsize=256)
def _pl_finite(knots: Knots):
    P = [sp.S.Zero] + [_simple(b[0] - a[0]) for a, b in zip(knots, knots[1:], strict=False)]
    Q = [_simple(1 - knots[0][1])] + [_simple(a[1] - b[1])
                                      for a, b in zip(knots, knots[1:], strict=False)]
    return FiniteLoss.pair(P, Q)


@loss_views("grid", "exact")
def pl_finite_loss(f):
    """The exact finite loss (numeric.finite.FiniteLoss) of a node whose graph is piecewise
    linear with known rational knots: each linear piece is an outcome with P-mass its width and
    Q-mass its drop, and ``1 - f(0)`` the Q-mass of an outcome with P = 0 (Dong, Roth & Su,
    Def. 2 and Appendix A); ``None`` for other nodes. (Irrational knots are left to the other
    routes: products of their symbolic ratios would make powers of such factors slow.)"""
    k = pl_knots_cached(f)
    return None if k is None or not rational_knots(k) else _pl_finite(tuple(k))
