"""Lower convex envelopes of min{g, g^{-1}}: the symmetric hull C(g) for any trade-off function.

C(g) = min{g, g^{-1}}^{**} (Wang, Su, Ye, Shokri & Su, Sec. 4) and the subsampling operator
C_p(f) = C(f_p) with f_p = p f + (1 - p) Id (Dong, Roth & Su, Def. 6) need the lower convex
envelope H = h^{**} of h = min{g, g^{-1}}. Eq. (13) of Dong, Roth & Su gives it for symmetric f;
this module covers every operand, in two routes.

Piecewise-linear operands (exact)
    :func:`pl_knots` returns the knots of an operand whose graph is piecewise linear with known
    knots (PiecewiseLinear, Discrete, f_{eps,delta}, Id, 0, and Mix, Inverse, Max, Symmetrize,
    SymmetricHull, Subsample of such operands). The envelope is then the lower convex hull of
    the knots of g, of g^{-1} (the mirrored graph, Eq. (3)) and of the crossings of g and
    g^{-1}: between consecutive points of that list both functions are linear, so min{g, g^{-1}}
    is linear there and the hull of these points is exactly its envelope. Rational knots give
    exact rationals (Python fractions); other numbers are carried in mpmath with a rounding
    margin.

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
from fractions import Fraction
from functools import lru_cache, singledispatch
from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import NoClosedForm, NumericalError
from .context import MPF, mp
from .roots import level, level_c

__all__ = ["pl_knots", "pl_knots_cached", "pl_mp_delta", "pl_mp_conjugate", "pl_finite_loss",
           "pl_inverse", "pl_min", "pl_max", "lower_hull", "pl_eval",
           "pl_symmetric_hull", "pl_hull_knots", "pl_exact", "pl_mp_value", "pl_hull_mp",
           "pl_np", "pl_hull_np", "pl_hull_exact", "concave_sup", "hull_mp", "hull_np"]

Knots = tuple  # ((x_0, y_0), ..., (x_n, y_n)), x_0 = 0 < ... < x_n = 1, y_n = 0


# ================================================================================================
# Piecewise-linear arithmetic (exact for Fractions and SymPy rationals, rounded for mpf)
# ================================================================================================
def pl_eval(knots: Sequence, x):
    """Linear interpolation through ``knots`` at x in [0, 1]."""
    xs = [k[0] for k in knots]
    i = min(max(bisect_right(xs, x) - 1, 0), len(xs) - 2)
    (x0, y0), (x1, y1) = knots[i], knots[i + 1]
    if x == x0:
        return y0
    if x == x1:
        return y1
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def pl_inverse(knots: Sequence) -> Knots:
    """Knots of g^{-1}(a) = inf{t : g(t) <= a} (Dong, Roth & Su, Eq. (3)).

    The knots up to the first zero value are mirrored in the diagonal (a flat zero stretch
    [a_k, 1] of g gives g^{-1}(0) = a_k); when g(0) < 1 the inverse vanishes on [g(0), 1].
    """
    k = next(i for i, (_, v) in enumerate(knots) if v == 0)
    inv = [(knots[j][1], knots[j][0]) for j in range(k, -1, -1)]
    if inv[-1][0] != 1:
        one, zero = _one_zero(knots)
        inv.append((one, zero))
    return tuple(inv)


def _one_zero(knots):
    x = knots[-1][0]  # 1 in the knots' own number type
    return x, x - x


def _cross(a, b, da, db):
    """The zero of the affine function through (a, da), (b, db), da * db < 0."""
    return a + (b - a) * da / (da - db)


def _merge(f: Sequence, g: Sequence, pick) -> Knots:
    xs = sorted(set([k[0] for k in f] + [k[0] for k in g]))
    pts = list(xs)
    for a, b in zip(xs, xs[1:], strict=False):
        da = pl_eval(f, a) - pl_eval(g, a)
        db = pl_eval(f, b) - pl_eval(g, b)
        if (da < 0 < db) or (db < 0 < da):
            c = _cross(a, b, da, db)
            if a < c < b:
                pts.append(c)
    pts.sort()
    return tuple((x, pick(pl_eval(f, x), pl_eval(g, x))) for x in pts)


def pl_min(f: Sequence, g: Sequence) -> Knots:
    """Knots of min{f, g}: both knot sets and the crossings inside common linear pieces."""
    return _merge(f, g, min)


def pl_max(f: Sequence, g: Sequence) -> Knots:
    """Knots of max{f, g} (convex for convex f, g)."""
    return _merge(f, g, max)


def lower_hull(points: Sequence) -> Knots:
    """Vertices of the lower convex hull of points sorted by x (monotone chain; collinear
    middle points are dropped)."""
    out: list = []
    for x, y in points:
        while len(out) >= 2:
            (x1, y1), (x2, y2) = out[-2], out[-1]
            if (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) <= 0:
                out.pop()
            else:
                break
        out.append((x, y))
    return tuple(out)


def pl_symmetric_hull(knots: Sequence) -> Knots:
    """Knots of min{g, g^{-1}}^{**} for piecewise-linear g (Wang et al., Sec. 4).

    Between consecutive points of ``pl_min(g, g^{-1})`` both g and g^{-1} are linear, so the
    minimum is linear there; the lower convex hull of these points is the envelope.
    """
    return lower_hull(pl_min(knots, pl_inverse(knots)))


# -- pl_knots: the knots of an operand that is piecewise linear ---------------------------------
@singledispatch
def pl_knots(f: Any) -> Knots | None:
    """Knots ((0, f(0)), ..., (1, 0)) of f as exact SymPy numbers when f is piecewise linear with
    known knots, else None. Families and operators register (see :func:`_register`)."""
    if _register():
        return pl_knots(f)
    return None


_REGISTERED: list = []


def _num(x) -> bool:
    return isinstance(x, sp.Basic) and x.is_number and x.is_extended_real is True


def _clean(knots) -> Knots | None:
    """Knots as SymPy numbers with floats at their exact binary values; None if symbolic."""
    out = []
    for a, v in knots:
        a, v = _to_sympy(a), _to_sympy(v)
        if not (_num(a) and _num(v)):
            return None
        a = sp.Rational(a) if isinstance(a, sp.Float) else a
        v = sp.Rational(v) if isinstance(v, sp.Float) else v
        if out and _same(a, out[-1][0]):
            continue
        out.append((a, v))
    return tuple(out)


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    """a == b exactly for real SymPy numbers (cheap numeric test first; equal values are then
    proved equal as rational functions of their atoms, or by ``simplify``)."""
    if isinstance(a, sp.Rational) and isinstance(b, sp.Rational):
        return a == b
    if a == b:
        return True
    with mp.workdps(50):
        d = mp.mpf(sp.N(a - b, 50))
        if abs(d) > mp.mpf(10) ** -40:
            return False
    return _identically_zero(a - b) or sp.simplify(a - b) == 0


def _register() -> bool:
    """Register pl_knots for the families and operators (once; a later layer is imported here,
    at call time, never at module import)."""
    if _REGISTERED:
        return False
    _REGISTERED.append(True)
    from ..families.discrete import Discrete
    from ..families.epsdelta import EpsDelta
    from ..families.piecewise import PiecewiseLinear
    from ..families.trivial import IdTradeOff, ZeroTradeOff
    from ..operators.maxgroup import Group, Max
    from ..operators.subsample import Mix, Subsample
    from ..operators.unary import Inverse, SymmetricHull, Symmetrize

    one, zero = sp.S.One, sp.S.Zero

    @pl_knots.register(PiecewiseLinear)
    def _(f):
        return _clean(f.knots)

    @pl_knots.register(Discrete)
    def _(f):
        try:
            return _clean(f.as_piecewise().knots)
        except NoClosedForm:
            return None

    @pl_knots.register(EpsDelta)
    def _(f):
        """f_{eps,delta} (Eq. (4)): knots (0, 1 - delta), its fixed point
        x* = (1 - delta)/(1 + e^eps), (1 - delta, 0), (1, 0)."""
        e, d = sp.exp(f.eps), f.delta
        if not (_num(e) and _num(d)):
            return None
        xs = (1 - d) / (1 + e)
        return _clean([(zero, 1 - d), (xs, xs), (1 - d, zero), (one, zero)])

    pl_knots.register(IdTradeOff)(lambda f: ((zero, one), (one, zero)))
    pl_knots.register(ZeroTradeOff)(lambda f: ((zero, zero), (one, zero)))

    @pl_knots.register(Mix)
    def _(f):
        k = pl_knots(f.arg)
        if k is None or not _num(f.p):
            return None
        p = f.p
        return _clean([(x, p * y + (1 - p) * (1 - x)) for x, y in k])

    @pl_knots.register(Inverse)
    def _(f):
        k = pl_knots(f.arg)
        return None if k is None else _clean(pl_inverse(_as_exact(k)))

    @pl_knots.register(Max)
    def _(f):
        ks = [pl_knots(g) for g in f.args]
        if any(k is None for k in ks):
            return None
        out = _as_exact(ks[0])
        for k in ks[1:]:
            out = pl_max(out, _as_exact(k))
        return _clean(lower_hull(out))

    @pl_knots.register(Symmetrize)
    def _(f):
        k = pl_knots(f.arg)
        if k is None:
            return None
        k = _as_exact(k)
        return _clean(lower_hull(pl_max(k, pl_inverse(k))))

    @pl_knots.register(SymmetricHull)
    def _(f):
        k = pl_knots(f.arg)
        return None if k is None else _clean(pl_symmetric_hull(_as_exact(k)))

    @pl_knots.register(Subsample)
    def _(f):
        return pl_knots(SymmetricHull(Mix(f.arg, f.p)))

    @pl_knots.register(Group)
    def _(f):
        """1 - (1 - g)^{o k} (Dong, Roth & Su, Thm. 3) for piecewise-linear g with rational
        knots and k <= GROUP_KNOTS_MAX_K: composing piecewise-linear maps (exact)."""
        if not (f.k.is_Integer and int(f.k) <= GROUP_KNOTS_MAX_K):
            return None
        k = pl_knots(f.arg)
        if k is None or not _rational(k):
            return None
        return _clean(_pl_group(_as_exact(k), int(f.k)))

    return True


#: Largest group size whose knots are built by composition (their number grows with k).
GROUP_KNOTS_MAX_K = 64


def _pl_group(knots: Knots, k: int) -> Knots:
    """Knots of 1 - h^{o k}, h = 1 - g, for the knots of g (exact Fractions).

    h is non-decreasing and piecewise linear, so h o u for piecewise-linear non-decreasing u is
    piecewise linear with knots at the knots of u and at the points where u crosses a knot
    abscissa of h (u strictly increasing there, as h < 1 there)."""
    h = tuple((x, 1 - y) for x, y in knots)
    hx = [x for x, _ in h]
    u = h
    for _ in range(k - 1):
        xs = set(x for x, _ in u)
        for (x0, v0), (x1, v1) in zip(u, u[1:], strict=False):
            for X in hx:
                if v0 < X < v1:
                    xs.add(x0 + (X - v0) * (x1 - x0) / (v1 - v0))
        u = tuple((x, pl_eval(h, pl_eval(u, x))) for x in sorted(xs))
        if len(u) > 4096:
            raise NoClosedForm("group of a piecewise-linear function: too many knots")
    return lower_hull([(x, 1 - v) for x, v in u])


class _Exact:
    """A real SymPy number with exact comparisons for knot arithmetic on non-rational knots:
    decided by 80-digit values when they differ by more than 1e-60, else by cancelling and
    simplifying the difference (zero) or evaluating it at 200 digits."""

    __slots__ = ("e", "_n")

    def __init__(self, e):
        self.e = e
        self._n = None

    def num(self):
        if self._n is None:
            with mp.workdps(80):
                self._n = mp.mpf(sp.N(self.e, 80))
        return self._n

    @staticmethod
    def _w(o):
        return o if isinstance(o, _Exact) else _Exact(sp.sympify(o))

    def __add__(self, o):
        return _Exact(self.e + self._w(o).e)

    __radd__ = __add__

    def __sub__(self, o):
        return _Exact(self.e - self._w(o).e)

    def __rsub__(self, o):
        return _Exact(self._w(o).e - self.e)

    def __mul__(self, o):
        return _Exact(self.e * self._w(o).e)

    __rmul__ = __mul__

    def __truediv__(self, o):
        return _Exact(self.e / self._w(o).e)

    def __rtruediv__(self, o):
        return _Exact(self._w(o).e / self.e)

    def __neg__(self):
        return _Exact(-self.e)

    def _sign(self, o) -> int:
        o = self._w(o)
        with mp.workdps(80):
            d = self.num() - o.num()
            if abs(d) > mp.mpf(10) ** -60:
                return 1 if d > 0 else -1
        diff = self.e - o.e
        if _identically_zero(diff):
            return 0
        z = sp.cancel(diff)  # rational in the transcendental generators: often 0 here
        if z == 0 or sp.simplify(z) == 0:
            return 0
        v = sp.N(z, 200)
        if v == 0:
            raise NoClosedForm(f"cannot decide the sign of {z}")
        return 1 if v > 0 else -1

    def __lt__(self, o):
        return self._sign(o) < 0

    def __le__(self, o):
        return self._sign(o) <= 0

    def __gt__(self, o):
        return self._sign(o) > 0

    def __ge__(self, o):
        return self._sign(o) >= 0

    def __eq__(self, o):
        return self._sign(o) == 0

    def __hash__(self):
        return hash(mp.nstr(self.num(), 40))


def _identically_zero(z: sp.Expr) -> bool:
    """Is z, as a rational function of its non-rational atoms (exp(1), exp(2), sqrt(2), ...)
    taken as independent indeterminates, identically zero? Then z = 0 (substituting the true
    values keeps it 0). Decided by exact rational evaluation at three random points (a nonzero
    rational function of degree d vanishes at a random point of a 2^64-wide grid with
    probability at most d / 2^64); ``False`` means "not shown" (the atoms may be dependent,
    e.g. exp(2) = exp(1)^2), and the caller then decides by symbolic cancellation. This replaces
    ``sp.cancel`` of large knot expressions (seconds) in the common case of collinear knots."""
    import random

    atoms = list(z.atoms(sp.Function, sp.NumberSymbol))
    atoms += [a for a in z.atoms(sp.Pow) if a.base.is_Rational and not a.exp.is_Integer]
    if not atoms:
        return z == 0
    rng = random.Random(hash(z) & 0xFFFFFFFF)
    for _ in range(3):
        sub = {a: sp.Rational(rng.getrandbits(64) + 2, rng.getrandbits(32) + 1) for a in atoms}
        try:
            v = z.xreplace(sub)
        except (ZeroDivisionError, TypeError):  # pragma: no cover - defensive
            return False
        if not v.is_Rational or v != 0:
            return False
    return True


def _as_exact(knots) -> Knots:
    """Knots in a number type with exact arithmetic and comparisons: Fractions for rationals,
    otherwise exact SymPy expressions compared numerically (:class:`_Exact`)."""
    if all(isinstance(x, (sp.Rational, Fraction, int)) or (isinstance(x, _Exact)
                                                           and isinstance(x.e, sp.Rational))
           for k in knots for x in k):
        return tuple((_frac(a), _frac(v)) for a, v in knots)
    return tuple((_ex(a), _ex(v)) for a, v in knots)


def _frac(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, _Exact):
        x = x.e
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


def _ex(x):
    if isinstance(x, _Exact):
        return x
    if isinstance(x, Fraction):
        return _Exact(sp.Rational(x.numerator, x.denominator))
    return _Exact(sp.sympify(x))


def _to_sympy(x) -> sp.Expr:
    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    if isinstance(x, _Exact):
        return x.e
    return sp.sympify(x)


@lru_cache(maxsize=256)
def _hull_knots(knots: Knots) -> Knots:
    """SymPy knots of min{g, g^{-1}}^{**} from SymPy knots of g (cached)."""
    out = pl_symmetric_hull(_as_exact(knots))
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
    from .protocol import num as _num_sympy

    def num(x, what):
        return x if isinstance(x, MPF) else _num_sympy(x, what)

    xs = [num(k[0], "knot") for k in knots]
    n = len(xs)
    i = min(max(bisect_right(xs, a) - 1, 0), n - 2)
    (x0, y0), (x1, y1) = knots[i], knots[i + 1]
    ys = (1 - y0, 1 - y1) if power else (y0, y1)
    Y0, Y1 = num(ys[0], "knot"), num(ys[1], "knot")
    with mp.workprec(mp.prec + 20):
        width = num(x1 - x0, "knot")
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


def _rational(knots) -> bool:
    return all(isinstance(x, sp.Rational) for k in knots for x in k)


def pl_hull_exact(knots: Knots, A: sp.Rational) -> sp.Rational | None:
    """min{g, g^{-1}}^{**}(A) exactly for rational knots of g and rational A, else None."""
    return pl_exact(pl_hull_knots(knots), A) if _rational(knots) else None


def pl_hull_mp(knots: Knots, a, ac, power: bool = False):
    """Enclosure of min{g, g^{-1}}^{**}(alpha) (or of 1 - it) for g through the exact SymPy
    ``knots``: the exact hull for rational knots; otherwise the hull of the knots rounded to
    ``prec + 40`` bits (more for tiny alpha, so the power keeps its relative accuracy), with a
    margin 2^-(prec + 12) on top of :func:`pl_mp_value`'s for the rounded hull decisions (a
    misjudged near-tie moves a value by the rounding of the knots only)."""
    from .protocol import num

    if _rational(knots):
        return pl_mp_value(pl_hull_knots(knots), a, ac, power)
    extra = 40 + (max(0, -int(mp.mag(a))) if a > 0 else 0)
    prec = mp.prec
    with mp.workprec(prec + extra):
        mk = tuple((num(x, "knot"), num(y, "knot")) for x, y in knots)
        hull = pl_symmetric_hull(mk)
        lo, hi = pl_mp_value(hull, a, ac, power)
        m = mp.ldexp(max(abs(lo), abs(hi)), -(prec + 12))
        lo, hi = lo - m, hi + m
    return lo, hi


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
    from .protocol import num

    key = (knots, wp)
    r = _PROFILE_NUMBERS.get(key)
    if r is None:
        c_s, segs = _pl_profile_data(knots)
        with mp.workprec(wp):
            c = num(c_s, "1 - f(0)") if c_s != 0 else mp.zero
            nums = tuple((num(d, "drop"), mp.log(num(r_, "likelihood ratio")))
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
    from mpmath.libmp import to_rational

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
    from .protocol import num

    with mp.workprec(mp.prec + 20):
        u = mp.ldexp(1, -(mp.prec - 6))
        lo = hi = None
        for x_s, v_s in knots:
            x, v = num(x_s, "knot"), num(v_s, "knot")
            c = y * x - v
            e = (abs(y * x) + abs(v)) * u
            lo = c - e if lo is None else max(lo, c - e)
            hi = c + e if hi is None else max(hi, c + e)
    return +lo, +hi


@lru_cache(maxsize=256)
def _pl_finite(knots: Knots):
    from .finite import FiniteLoss

    P = [sp.S.Zero] + [_simple(b[0] - a[0]) for a, b in zip(knots, knots[1:], strict=False)]
    Q = [_simple(1 - knots[0][1])] + [_simple(a[1] - b[1])
                                      for a, b in zip(knots, knots[1:], strict=False)]
    return FiniteLoss.pair(P, Q)


def pl_finite_loss(f):
    """The exact finite loss (numeric.finite.FiniteLoss) of a node whose graph is piecewise
    linear with known rational knots: each linear piece is an outcome with P-mass its width and
    Q-mass its drop, and ``1 - f(0)`` the Q-mass of an outcome with P = 0 (Dong, Roth & Su,
    Def. 2 and Appendix A); ``None`` for other nodes. (Irrational knots are left to the other
    routes: products of their symbolic ratios would make powers of such factors slow.)"""
    k = pl_knots_cached(f)
    return None if k is None or not _rational(k) else _pl_finite(tuple(k))


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

        cands = [min(hi0, lineR(0)), min(lineL(w), hi1)]
        if mL is not None and mR is not None and mL + mR != 0:
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
        from .protocol import mp_roc, mp_value

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
    from .protocol import mp_value, np_value

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


_STRUCT: dict = {}


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
    from .roots import c_bounds, t_bounds

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
