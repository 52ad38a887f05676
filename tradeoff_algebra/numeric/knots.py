"""Knots of piecewise-linear trade-off functions, and exact arithmetic on them.

:func:`pl_knots` returns the knots of an operand whose graph is piecewise linear with known knots
(PiecewiseLinear, Discrete, f_{eps,delta}, Id, 0, and Mix, Inverse, Max, Symmetrize,
SymmetricHull, Subsample of such operands); families and operators register theirs through
:func:`clean_knots`. The arithmetic combines knots: values by linear interpolation, the inverse
g^{-1} (the mirrored graph, Dong, Roth & Su, Eq. (3)), minima, maxima and lower convex hulls.
The symmetric hull C(g) = min{g, g^{-1}}^{**} (Wang, Su, Ye, Shokri & Su, Sec. 4) is the lower
convex hull of the knots of g, of g^{-1} and of the crossings of g and g^{-1}: between
consecutive points of that list both functions are linear, so min{g, g^{-1}} is linear there and
the hull of these points is exactly its envelope. The arithmetic is exact for Fractions and SymPy
rationals and rounded for mpf; :func:`exact_knots` puts knots into a number type with exact
arithmetic and comparisons (Fractions for rationals, exact SymPy numbers otherwise).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache, singledispatch
from typing import Any

import sympy as sp

from ..core.errors import NoClosedForm
from . import budget
from .context import mp

__all__ = ["Knots", "pl_eval", "pl_inverse", "pl_min", "pl_max", "lower_hull",
           "pl_symmetric_hull", "pl_knots", "clean_knots", "exact_knots", "rational_knots",
           "knot_num"]

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
    known knots, else None. Families and operators register theirs (through
    :func:`clean_knots`; an operator combines its operands' knots with the arithmetic above)."""
    return None


def _num(x) -> bool:
    return isinstance(x, sp.Basic) and x.is_number and x.is_extended_real is True


def clean_knots(knots) -> Knots | None:
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
        x, y = mp.mpf(sp.N(a, 50)), mp.mpf(sp.N(b, 50))
        if abs(x - y) > mp.mpf(10) ** -40 * max(abs(x), abs(y)):  # (relative: tiny knots)
            return False
    return _identically_zero(a - b) or sp.simplify(a - b) == 0


class _Exact:
    """A real SymPy number with exact comparisons for knot arithmetic on non-rational knots:
    decided by 80-digit values when they differ by more than 1e-60, else by cancelling and
    simplifying the difference (zero) or evaluating it at 200 digits."""

    __slots__ = ("e", "_n")

    def __init__(self, e):
        self.e = e
        self._n = None

    def num(self):
        if self._n is None:  # kept raw: an mpf computes in the context (thread) that made it
            with mp.workdps(80):
                self._n = mp.mpf(sp.N(self.e, 80))._mpf_
        return mp.make_mpf(self._n)

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
        s = _ball_sign(self.e, o.e)
        if s is not None and s != 0:
            return s
        budget.check()  # (what follows is SymPy arithmetic on the knot expressions)
        if s is None:  # no balls: 80-digit values (balls that overlap at 640 bits are a tie
            # or closer than 80 digits resolve: left to the symbolic decision)
            with mp.workdps(80):
                a, b = self.num(), o.num()
                d = a - b
                # 80-digit values (SymPy's evalf: relative accuracy) apart by more than 1e-60
                # of their size (tiny knots such as p delta = 1e-123 are compared relatively)
                if abs(d) > mp.mpf(10) ** -60 * max(abs(a), abs(b)):
                    return 1 if d > 0 else -1
        diff = self.e - o.e
        if _identically_zero(diff):
            return 0
        if _nonzero_by_transcendence(diff):  # then finer balls must separate the two
            s = _fine_ball_sign(self.e, o.e)
            if s:
                return s
        budget.check()  # (the symbolic decision below can take seconds)
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


#: Arb precisions (bits) at which :func:`_ball_sign` tries to separate two knot numbers.
_BALL_PRECS = (128, 640)


def _ball_sign(a: sp.Expr, b: sp.Expr) -> int | None:
    """The sign of a - b when Arb balls of both (:func:`_ball`) separate them; 0 when the
    balls overlap at every precision tried (a tie, or closer than the balls resolve); None
    when the balls could not be formed.

    Rigorous (every ball contains its number) and fast: the expressions are evaluated once per
    node and precision in C, where SymPy's evalf re-walks the whole knot expression for each
    comparison (seconds for the nested intersections of a few f_{eps,delta}). Separates knots
    down to relative distances of about 2^-600 (p delta = 1e-123 next to 1); ties and closer
    pairs are left to the symbolic decision."""
    from .context import arb_precision

    for prec in _BALL_PRECS:
        with arb_precision(prec):
            try:
                d = _ball(a, prec) - _ball(b, prec)
            except (ValueError, ZeroDivisionError, TypeError):
                return None
            if d > 0:
                return 1
            if d < 0:
                return -1
    return 0


#: Arb precisions (bits) for numbers known to differ (:func:`_fine_ball_sign`).
_FINE_PRECS = (2560, 10240, 40960)


def _fine_ball_sign(a: sp.Expr, b: sp.Expr) -> int:
    """The sign of a - b for numbers shown to differ (:func:`_nonzero_by_transcendence`), from
    Arb balls at up to 40960 bits; 0 if even those overlap (left to the symbolic decision)."""
    from .context import arb_precision

    for prec in _FINE_PRECS:
        budget.check()
        with arb_precision(prec):
            try:
                d = _ball(a, prec) - _ball(b, prec)
            except (ValueError, ZeroDivisionError, TypeError):
                return 0
            if d > 0:
                return 1
            if d < 0:
                return -1
    return 0


def knot_num(e: Any, what: str = "knot"):
    """The exact real SymPy number ``e`` (a knot, or a number formed from knots) as an mpf
    correct to the working precision (within two units of its last place).

    SymPy's evalf loses every digit where the expression cancels beyond its extra precision:
    a knot of Mix(C(1/3, f_{299/200, 1 - 10^-300}), 10^-12) (terms like 1 - (1 - 10^-300)
    times exp(299/200)) evaluated at 58 digits gave 1.87e-301 for 1.83e-301 and a likelihood
    ratio of -16384 for 1.0000000000005, whose logarithm was complex. Here Arb balls
    (:func:`_ball`: rigorous) are formed at rising precision until the ball's relative
    accuracy covers the working precision; an mpf or a rational is converted directly."""
    from mpmath.libmp import round_nearest

    from ..core.errors import NumericalError
    from .arb import arb_endpoint
    from .context import MPF, arb_precision

    if isinstance(e, MPF):
        return e
    if isinstance(e, Fraction):
        return mp.mpf(e.numerator) / e.denominator
    if isinstance(e, _Exact):
        e = e.e
    e = sp.sympify(e)
    if isinstance(e, sp.Rational):
        return mp.mpf(int(e.p)) / int(e.q)
    need = mp.prec + 4
    prec = need + 64
    while True:
        budget.check()
        with arb_precision(prec):
            try:
                b = _ball(e, prec)
            except (ValueError, ZeroDivisionError, TypeError) as exc:
                raise NumericalError(f"{what} {e}: cannot be evaluated ({exc})") from exc
            if b.is_finite() and b != 0 and b.rel_accuracy_bits() >= need:
                mid = b.mid()
                with mp.workprec(mp.prec):
                    return arb_endpoint(mid, round_nearest)
            if b.is_exact() and b == 0:
                return mp.zero
        if prec > 32 * need + 40000:
            if _identically_zero(e):
                return mp.zero
            raise NumericalError(f"{what} {sp.sstr(e)[:120]}: its value cancels beyond "
                                 f"{prec} bits and cannot be given to the working precision")
        prec *= 4


def _nonzero_by_transcendence(z: sp.Expr) -> bool:
    """Is z, a rational expression in rationals and powers exp(r_i) (r_i rational), shown to be
    nonzero? All exp(r_i) are integer powers of X = exp(g), g the rational gcd of the r_i, and
    X is transcendental (Hermite-Lindemann: e^g for rational g != 0). So z = R(X) for a rational
    function R over Q, and R(X) = 0 only if R = 0 identically, which one nonzero exact value
    R(x0) at a rational x0 refutes. ``False`` means "not shown" (other atoms, or R(x0) = 0).
    A certificate where :func:`_identically_zero` only fails to show a tie: the knots of
    C_p(f_{eps, delta}) for a float eps differ by p^2 = 1e-244 relative and SymPy's cancel of
    them took minutes."""
    atoms = list(z.atoms(sp.Function, sp.NumberSymbol))
    if z.atoms(sp.Symbol) or any(a.base.is_Rational and not a.exp.is_Integer
                                 for a in z.atoms(sp.Pow)):
        return False
    rs = []
    for a in atoms:
        r = sp.Integer(1) if a is sp.E else (a.args[0] if isinstance(a, sp.exp) else None)
        if r is None or not r.is_Rational or r == 0:
            return False
        rs.append(r)
    if not rs:
        return z.is_Rational and z != 0
    g = sp.Rational(math.gcd(*(int(r.p) for r in rs)), math.lcm(*(int(r.q) for r in rs)))
    X = sp.Dummy("X")
    w = z.xreplace({a: X ** int(r / g) for a, r in zip(atoms, rs, strict=True)})
    rng = random.Random(hash(z) & 0xFFFFFFFF)
    for _ in range(2):  # (a second point if the first is a root or a pole of R)
        try:
            v = w.xreplace({X: sp.Rational(rng.getrandbits(64) + 2, rng.getrandbits(32) + 1)})
        except (ZeroDivisionError, TypeError):  # pragma: no cover - defensive
            return False
        if v.is_Rational and v != 0:
            return True
    return False


@lru_cache(maxsize=8192)
def _ball(e: sp.Expr, prec: int):
    """An Arb ball containing the real SymPy number e, at Arb precision ``prec`` (the caller
    holds :func:`~.context.arb_precision`); operations of SymPy's arithmetic and exp/log/sqrt
    map to Arb's, anything else goes through evalf (:func:`~.arb.arb_ball`)."""
    from flint import arb, fmpq

    from .arb_expr import arb_ball

    if isinstance(e, sp.Rational):
        return arb(fmpq(int(e.p), int(e.q)))
    if isinstance(e, sp.Float):
        sign, man, exp_, _ = e._mpf_
        return arb(-man if sign else man) * arb(2) ** exp_ if man else arb(0)
    if e is sp.E:
        return arb(1).exp()
    if e is sp.pi:
        return arb.pi()
    if isinstance(e, sp.Add):
        out = arb(0)
        for t in e.args:
            out += _ball(t, prec)
        return out
    if isinstance(e, sp.Mul):
        out = arb(1)
        for t in e.args:
            out *= _ball(t, prec)
        return out
    if isinstance(e, sp.Pow):
        base, ex = e.args
        if isinstance(ex, sp.Integer):
            return _ball(base, prec) ** int(ex)
        if ex == sp.S.Half:
            return _ball(base, prec).sqrt()
        return (_ball(ex, prec) * _ball(base, prec).log()).exp()
    if isinstance(e, sp.exp):
        return _ball(e.args[0], prec).exp()
    if isinstance(e, sp.log):
        return _ball(e.args[0], prec).log()
    return arb_ball(e)


def _identically_zero(z: sp.Expr) -> bool:
    """Is z, as a rational function of its non-rational atoms (exp(1), exp(2), sqrt(2), ...)
    taken as independent indeterminates, identically zero? Then z = 0 (substituting the true
    values keeps it 0). Decided by exact rational evaluation at three random points (a nonzero
    rational function of degree d vanishes at a random point of a 2^64-wide grid with
    probability at most d / 2^64); ``False`` means "not shown" (the atoms may be dependent,
    e.g. exp(2) = exp(1)^2), and the caller then decides by symbolic cancellation. This replaces
    ``sp.cancel`` of large knot expressions (seconds) in the common case of collinear knots."""
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


def exact_knots(knots) -> Knots:
    """Knots in a number type with exact arithmetic and comparisons: Fractions for rationals,
    otherwise exact SymPy expressions compared numerically (:class:`_Exact`)."""
    if all(isinstance(x, (sp.Rational, Fraction, int)) or (isinstance(x, _Exact)
                                                           and isinstance(x.e, sp.Rational))
           for k in knots for x in k):
        return tuple((_frac(a), _frac(v)) for a, v in knots)
    return tuple((_ex(a), _ex(v)) for a, v in knots)


def rational_knots(knots) -> bool:
    return all(isinstance(x, sp.Rational) for k in knots for x in k)


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
