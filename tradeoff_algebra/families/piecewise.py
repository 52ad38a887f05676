"""Piecewise-linear trade-off functions given by their knots.

A function through the knots ``(0, v_0), (a_1, v_1), ..., (1, 0)`` (linear in between) is a
trade-off function exactly when it satisfies Dong, Roth & Su, Prop. 1: convex, continuous,
non-increasing and ``f(alpha) <= 1 - alpha``. Continuity is built in; the other conditions are
checked on the knots:

* the first knot lies at ``alpha = 0`` and the last one is ``(1, 0)``;
* the alphas increase strictly and every value lies in ``[0, 1]``;
* ``v_i <= 1 - a_i`` at every knot (enough: ``f - (1 - alpha)`` is piecewise linear, so its
  maximum is attained at a knot; given convexity, ``v_0 <= 1`` and ``f(1) = 0`` it already
  holds, so a violation also signals a convexity error — it is reported first as the more
  telling one);
* the values do not increase and the slopes do not decrease (convexity).

Checks use three-valued logic (docs/architecture.md, "Nodes"): a condition raises only when it is
definitely false, so symbolic knots pass until they are proved wrong. Knots with Python or SymPy
floats are compared with an absolute tolerance of ``1e-12`` in the monotonicity, convexity and
``f <= 1 - alpha`` checks (so rounded data pass); the endpoint, range and strict-increase checks
are exact for every kind of number.

Canonical form: an interior knot that is *definitely* collinear with its two neighbours is
removed (exactly, for floats at their binary values), so a function has one representation
whenever its knots are numbers; this makes the inverse an exact involution on nodes. Removal
keeps every remaining knot as given and is idempotent, so ``f.func(*f.args) == f``.

The trade-off function of two distributions on a finite set is piecewise linear (the
Neyman--Pearson lemma, Dong, Roth & Su, Appendix A; see :class:`~.discrete.Discrete`), and
conversely every piecewise-linear trade-off function is such a ``T(P, Q)`` (Def. 2).
The inverse (Eq. (3)) ``f^{-1}(a) = inf{t : f(t) <= a}`` is again piecewise linear: its graph is
the reflection of the graph of ``f`` in the diagonal, with a flat zero piece on ``[v_0, 1]`` when
``f(0) = v_0 < 1`` and ``f^{-1}(0) = a_k`` when ``f`` vanishes on ``[a_k, 1]``.
"""

from __future__ import annotations

import numbers
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from sympy import S, Tuple

from ..core.citations import DRS
from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.rules import rule
from ..core.validate import items, to_sympy
from ..numeric.context import mp, thread_cache
from ..numeric.knots import clean_knots, pl_knots
from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value, num
from .trivial import Id, Zero

__all__ = ["PiecewiseLinear", "FLOAT_TOL", "same_function"]

#: Absolute tolerance of the monotonicity, convexity and ``f <= 1 - alpha`` checks when a knot
#: holds a float.
FLOAT_TOL = sp.Float("1e-12")

_OWNER = "PiecewiseLinear"


# -- construction helpers ----------------------------------------------------------------------
def _fail(knots: Any, allowed: str, hint: str) -> InvalidParameter:
    return InvalidParameter("knots", knots, allowed, _OWNER, hint)


def _fmt_knot(i: int, knot: tuple[sp.Expr, sp.Expr]) -> str:
    return "knot %d (%s, %s)" % (i, sp.sstr(knot[0]), sp.sstr(knot[1]))


def _coerce(knots: Any) -> list[tuple[sp.Expr, sp.Expr]]:
    """The knots as a list of sympified pairs; malformed input raises InvalidParameter."""
    shape = "a sequence of at least two (alpha, value) pairs"
    if isinstance(knots, (str, bytes)) or not isinstance(knots, Iterable):
        raise _fail(knots, shape, "Pass e.g. [(0, 1), (1/2, 1/4), (1, 0)]")
    out = []
    for i, k in enumerate(knots):
        if isinstance(k, (str, bytes)) or not isinstance(k, (Sequence, Tuple)) or len(k) != 2:
            raise _fail(knots, shape, f"knot {i} = {k!r} is not an (alpha, value) pair")
        a = to_sympy("knots", k[0], f"a real number (alpha of knot {i})", _OWNER)
        v = to_sympy("knots", k[1], f"a real number (value of knot {i})", _OWNER)
        out.append((a, v))
    if len(out) < 2:
        raise _fail(knots, shape, "the knots must include (0, f(0)) and (1, 0)")
    return out


def _is_false(x: bool | None) -> bool:
    return x is False


def _nonneg(x: sp.Expr) -> bool | None:
    return x.is_extended_nonnegative


def _validate(kn: list[tuple[sp.Expr, sp.Expr]]) -> None:
    """Raise InvalidParameter when a condition of Prop. 1 definitely fails (see module doc)."""
    n = len(kn)
    tol = FLOAT_TOL if any(x.has(sp.Float) for k in kn for x in k) else S.Zero
    if _is_false(kn[0][0].is_zero):
        raise _fail(kn[0], "a first knot at alpha = 0",
                    f"{_fmt_knot(0, kn[0])} starts at alpha = {kn[0][0]}")
    if _is_false((kn[-1][0] - 1).is_zero):
        raise _fail(kn[-1], "a last knot at alpha = 1",
                    f"{_fmt_knot(n - 1, kn[-1])} ends at alpha = {kn[-1][0]}")
    if _is_false(kn[-1][1].is_zero):
        raise _fail(kn[-1], "the value 0 at alpha = 1 (f(1) = 0)",
                    f"{_fmt_knot(n - 1, kn[-1])} has value {kn[-1][1]}")
    for i, (a, v) in enumerate(kn):
        if _is_false(_nonneg(a)) or _is_false(_nonneg(1 - a)):
            raise _fail((a, v), "alphas in [0, 1]", f"{_fmt_knot(i, (a, v))}")
        if _is_false(_nonneg(v)) or _is_false(_nonneg(1 - v)):
            raise _fail((a, v), "values in [0, 1]", f"{_fmt_knot(i, (a, v))}")
        if _is_false(_nonneg(1 - a - v + tol)):
            raise _fail((a, v), "values with f(alpha) <= 1 - alpha (Prop. 1)",
                        f"{_fmt_knot(i, (a, v))} lies above 1 - alpha = {sp.sstr(1 - a)}")
    for i in range(n - 1):
        (a0, v0), (a1, v1) = kn[i], kn[i + 1]
        if _is_false((a1 - a0).is_extended_positive):
            raise _fail((a1, v1), "strictly increasing alphas",
                        f"{_fmt_knot(i + 1, kn[i + 1])} does not lie right of "
                        f"{_fmt_knot(i, kn[i])}")
        if _is_false(_nonneg(v0 - v1 + tol)):
            raise _fail((a1, v1), "non-increasing values (Prop. 1)",
                        f"{_fmt_knot(i + 1, kn[i + 1])} lies above {_fmt_knot(i, kn[i])}")
    for i in range(1, n - 1):
        (a0, v0), (a1, v1), (a2, v2) = kn[i - 1], kn[i], kn[i + 1]
        # slope(i-1, i) <= slope(i, i+1), multiplied out by the positive widths
        if _is_false(_nonneg((v2 - v1) * (a1 - a0) - (v1 - v0) * (a2 - a1) + tol)):
            raise _fail((a1, v1), "non-decreasing slopes: a convex function (Prop. 1)",
                        f"the slope falls at {_fmt_knot(i, kn[i])}")


def _exact(x: sp.Expr) -> sp.Expr:
    """Floats at their exact binary values (as rationals); everything else unchanged."""
    if isinstance(x, sp.Rational):
        return x
    return sp.Rational(x) if isinstance(x, sp.Float) else x.xreplace(
        {f: sp.Rational(f) for f in x.atoms(sp.Float)})


def _collinear(p0, p1, p2) -> bool:
    (a0, v0), (a1, v1), (a2, v2) = ([_exact(x) for x in p] for p in (p0, p1, p2))
    cross = (v1 - v0) * (a2 - a1) - (v2 - v1) * (a1 - a0)
    z = cross.is_zero
    if z is None:
        z = sp.expand(cross).is_zero
    return z is True


def _canonical(kn: list[tuple[sp.Expr, sp.Expr]]) -> list[tuple[sp.Expr, sp.Expr]]:
    """Drop interior knots definitely collinear with their neighbours (idempotent)."""
    out: list[tuple[sp.Expr, sp.Expr]] = []
    for k in kn:
        while len(out) >= 2 and _collinear(out[-2], out[-1], k):
            out.pop()
        out.append(k)
    return out


def as_fraction(x: Any) -> Fraction | None:
    """The exact value of a plain number (int, Fraction, SymPy Rational, finite float at its
    binary value, numpy scalar) as a Fraction; None for anything else (symbols, irrationals,
    booleans, NaN), which takes the general SymPy route."""
    if isinstance(x, bool):
        return None
    if isinstance(x, Fraction):
        return x
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, numbers.Integral) and not isinstance(x, sp.Basic):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)) or isinstance(x, sp.Float):
        try:
            return Fraction(float(x)) if not isinstance(x, sp.Float) else Fraction(
                *map(int, sp.Rational(x).as_numer_denom()))
        except (OverflowError, ValueError):
            return None
    return None


def to_rational(x: Fraction) -> sp.Rational:
    """A Fraction as a SymPy Rational."""
    if x.denominator == 1:
        return sp.Integer(x.numerator)
    return sp.Rational(x.numerator, x.denominator)


def _fast_knots(knots: Any) -> list[tuple[sp.Rational, sp.Rational]] | None:
    """The canonical knots when every coordinate is a plain number and Prop. 1 holds (checked
    exactly in Fractions: linear in the number of knots, no SymPy); None otherwise, and the
    general route then validates (and names what is wrong)."""
    if isinstance(knots, (str, bytes)) or not isinstance(knots, Iterable):
        return None
    kn = []
    for k in knots:
        if isinstance(k, (str, bytes)) or not isinstance(k, (Sequence, Tuple)) or len(k) != 2:
            return None
        a, v = as_fraction(k[0]), as_fraction(k[1])
        if a is None or v is None:
            return None
        kn.append((a, v))
    if len(kn) < 2 or kn[0][0] != 0 or kn[-1] != (1, 0):
        return None
    for i, (a, v) in enumerate(kn):
        if not (0 <= a <= 1 and 0 <= v <= 1 and v <= 1 - a):
            return None
        if i and not (a > kn[i - 1][0] and v <= kn[i - 1][1]):
            return None
    for i in range(1, len(kn) - 1):
        (a0, v0), (a1, v1), (a2, v2) = kn[i - 1], kn[i], kn[i + 1]
        if (v2 - v1) * (a1 - a0) - (v1 - v0) * (a2 - a1) < 0:
            return None
    out: list[tuple[Fraction, Fraction]] = []
    for k in kn:  # drop interior knots collinear with their neighbours (as _canonical)
        while len(out) >= 2 and ((out[-1][1] - out[-2][1]) * (k[0] - out[-1][0])
                                 == (k[1] - out[-1][1]) * (out[-1][0] - out[-2][0])):
            out.pop()
        out.append(k)
    return [(to_rational(a), to_rational(v)) for a, v in out]


def _all_numbers(kn) -> bool:
    return all(isinstance(x, sp.Number) for k in kn for x in k)


# -- the node ------------------------------------------------------------------------------------
class PiecewiseLinear(TradeOff):
    """The piecewise-linear trade-off function through ``knots`` (Dong, Roth & Su, Prop. 1).

    ``knots`` is a sequence of ``(alpha, value)`` pairs from ``(0, f(0))`` to ``(1, 0)`` with
    strictly increasing alphas; values and slopes must make a trade-off function (see the module
    docstring). Numbers are kept as given (rationals stay rational, Python floats become SymPy
    floats); interior knots definitely collinear with their neighbours are removed.

    >>> PiecewiseLinear([(0, 1), (sp.Rational(1, 2), sp.Rational(1, 4)), (1, 0)])
    PiecewiseLinear([(0, 1), (1/2, 1/4), (1, 0)])
    """

    def __new__(cls, knots: Any):
        # read once (a generator would be used up by the fast route), refused by name when it
        # is not a sequence (a 0-d array failed inside iteration with TypeError)
        knots = items("knots", knots, "a sequence of at least two (alpha, value) pairs",
                      _OWNER, "Pass e.g. [(0, 1), (1/2, 1/4), (1, 0)]")
        fast = _fast_knots(knots)
        if fast is not None:  # numbers only, valid: checked and canonicalised in Fractions
            return TradeOff.__new__(cls, Tuple(*(Tuple(a, v) for a, v in fast)))
        kn = _coerce(knots)
        _validate(kn)
        kn = _canonical(kn)
        return TradeOff.__new__(cls, Tuple(*(Tuple(a, v) for a, v in kn)))

    @classmethod
    def _trusted(cls, knots: list[tuple[Fraction, Fraction]]) -> PiecewiseLinear:
        """The node of knots known to be valid and canonical (the Neyman--Pearson knots of a
        finite pair with its ratio classes merged: strictly increasing slopes), without the
        O(k) checks in Fractions."""
        return TradeOff.__new__(cls, Tuple(*(Tuple(to_rational(a), to_rational(v))
                                             for a, v in knots)))

    @property
    def free_symbols(self) -> set:
        return set() if _numeric_knots(self) else super().free_symbols

    # -- parameters ----------------------------------------------------------------------------
    @property
    def knots(self) -> Tuple:
        """The knots as a SymPy ``Tuple`` of ``(alpha, value)`` ``Tuple`` pairs."""
        return self.args[0]

    @property
    def alphas(self) -> tuple[sp.Expr, ...]:
        return tuple(k[0] for k in self.knots)

    @property
    def values(self) -> tuple[sp.Expr, ...]:
        return tuple(k[1] for k in self.knots)

    def slopes(self) -> tuple[sp.Expr, ...]:
        """The slope of each linear piece, ``(v_{i+1} - v_i)/(a_{i+1} - a_i)``."""
        a, v = self.alphas, self.values
        return tuple((v[i + 1] - v[i]) / (a[i + 1] - a[i]) for i in range(len(a) - 1))

    # -- closed forms --------------------------------------------------------------------------
    def _eval_at(self, alpha):
        a, v = self.alphas, self.values
        if isinstance(alpha, sp.Number) and _all_numbers(self.knots):
            return _interp_exact(a, v, alpha)
        s = self.slopes()
        pieces = [(v[i] + s[i] * (alpha - a[i]), alpha <= a[i + 1]) for i in range(len(s) - 1)]
        pieces.append((v[-2] + s[-1] * (alpha - a[-2]), True))
        return sp.Piecewise(*pieces)

    def _eval_derivative_at(self, alpha):
        """The right derivative (the slope of the piece to the right; at alpha = 1 the left)."""
        a, s = self.alphas, self.slopes()
        pieces = [(s[i], alpha < a[i + 1]) for i in range(len(s) - 1)]
        pieces.append((s[-1], True))
        return sp.Piecewise(*pieces)

    def _eval_fixed_point(self):
        """alpha* with f(alpha*) = alpha*: on the first piece whose right end lies on or below
        the diagonal, ``alpha* = (v_i - s_i a_i)/(1 - s_i)`` (exact)."""
        a, v, s = self.alphas, self.values, self.slopes()
        xs = [(v[i] - s[i] * a[i]) / (1 - s[i]) for i in range(len(s))]
        if _all_numbers(self.knots):
            i = next(i for i in range(len(s)) if v[i + 1] <= a[i + 1])
            return xs[i]
        pieces = [(xs[i], v[i + 1] <= a[i + 1]) for i in range(len(s) - 1)]
        pieces.append((xs[-1], True))
        return sp.Piecewise(*pieces)

    def _eval_inverse(self) -> PiecewiseLinear | None:
        """f^{-1}(a) = inf{t : f(t) <= a} (Dong, Roth & Su, Eq. (3)) as knots, or None when
        the zero pattern of symbolic values is undecided.

        The knots up to the first zero value ``(a_k, 0)`` are reflected in the diagonal; when
        ``f(0) = v_0 < 1`` the inverse vanishes on ``[v_0, 1]`` (a last knot ``(1, 0)``).
        """
        a, v = self.alphas, self.values
        k = None
        for i, vi in enumerate(v):
            z = vi.is_zero
            if z is None:
                return None
            if z:
                k = i
                break
        top = (v[0] - 1).is_zero
        if k is None or top is None:
            return None
        inv = [(v[j], a[j]) for j in range(k, -1, -1)]
        if not top:
            inv.append((S.One, S.Zero))
        return PiecewiseLinear(inv)

    @property
    def is_symmetric(self) -> bool | None:
        """Is f = f^{-1}? Decided for numeric knots (canonical forms are unique), else
        True when the knots are the reflected ones and None otherwise."""
        inv = self._eval_inverse()
        return None if inv is None else same_function(self, inv)

    # -- printing ------------------------------------------------------------------------------
    def _sympystr(self, printer):
        return "PiecewiseLinear([%s])" % ", ".join(
            "(%s, %s)" % (printer._print(a), printer._print(v)) for a, v in self.knots)

    def _latex(self, printer):
        return r"\mathrm{PL}\left[%s\right]" % ", ".join(
            r"\left(%s, %s\right)" % (printer._print(a), printer._print(v)) for a, v in self.knots)


@lru_cache(maxsize=512)
def _numeric_knots(f: PiecewiseLinear) -> bool:
    """Are all knot coordinates SymPy numbers (so that there is no free symbol)?"""
    return all(isinstance(x, sp.Number) for k in f.args[0] for x in k)


def same_function(f: PiecewiseLinear, g: PiecewiseLinear) -> bool | None:
    """Three-valued: are f and g the same function? Decided when all knots are numbers (the
    canonical knots are unique; floats compare at their exact binary values, so ``1.0`` and
    ``1`` agree); otherwise True for identical knots and None."""
    if f == g:
        return True
    if _all_numbers(f.knots) and _all_numbers(g.knots):
        return [tuple(map(_exact, k)) for k in f.knots] == [tuple(map(_exact, k))
                                                            for k in g.knots]
    return None


# -- rewrite rules -------------------------------------------------------------------------------
@rule(PiecewiseLinear, cite=DRS.prop(1, note="the knots (0, 1), (1, 0) are the line 1 - alpha"),
      priority=100)
def piecewise_identity(f: PiecewiseLinear):
    """The knots ``(0, 1), (1, 0)`` (canonical: no interior knot) are the line 1 - alpha: Id."""
    kn = f.knots
    if len(kn) == 2 and _all_numbers(kn) and [tuple(map(_exact, k)) for k in kn] == [(0, 1),
                                                                                    (1, 0)]:
        return Id
    return None


@rule(PiecewiseLinear, cite=DRS.prop(1, note="f(0) = 0 and f non-increasing, f >= 0"),
      priority=100)
def piecewise_zero(f: PiecewiseLinear):
    """A trade-off function with ``f(0) = 0`` is 0 (non-increasing and non-negative): Zero."""
    v0 = f.knots[0][1]
    return Zero if isinstance(v0, sp.Number) and v0 == 0 else None


# -- evaluation ----------------------------------------------------------------------------------
def _interp_exact(a: Sequence[sp.Expr], v: Sequence[sp.Expr], x: sp.Expr) -> sp.Expr:
    """Linear interpolation through numeric knots at a number x in [0, 1] (SymPy arithmetic)."""
    i = min(max(bisect_right(a, x) - 1, 0), len(a) - 2)
    if x == a[i]:
        return v[i]
    if x == a[i + 1]:
        return v[i + 1]
    return v[i] + (v[i + 1] - v[i]) * (x - a[i]) / (a[i + 1] - a[i])


@lru_cache(maxsize=512)
def _exact_knots(f: PiecewiseLinear):
    """(alphas, values, 1 - values, widths) with floats at their exact binary values."""
    a = [_exact(x) for x in f.alphas]
    v = [_exact(x) for x in f.values]
    w = [a[i + 1] - a[i] for i in range(len(a) - 1)]
    return a, v, [1 - x for x in v], w


def _rationals(f: PiecewiseLinear):
    a, v, c, _ = _exact_knots(f)
    return (a, v, c) if all(isinstance(x, sp.Rational) for x in a + v) else None


@thread_cache(maxsize=64)  # (per thread: mpf numbers of this thread's context)
def _mp_alphas(f: PiecewiseLinear, prec: int) -> list:
    """The knot alphas as mpf at ``prec`` bits (converted once per precision)."""
    with mp.workprec(prec):
        return [num(x, "knot alpha") for x in _exact_knots(f)[0]]


def _mp_interp(f: PiecewiseLinear, ys: list[sp.Expr], a, ac):
    """Interpolate the exact knot heights ``ys`` at alpha = a (1 - alpha = ac) in mpmath.

    The distance to the nearer end of the piece is taken from ``a`` on the first piece and from
    ``ac`` on the last one, so both ends of [0, 1] keep full relative accuracy.
    """
    _, _, _, w = _exact_knots(f)
    xs = _mp_alphas(f, mp.prec)
    n = len(xs)
    i = min(max(bisect_right(xs, a) - 1, 0), n - 2)
    left = a if i == 0 else a - xs[i]
    right = ac if i == n - 2 else xs[i + 1] - a
    dy = num(ys[i + 1] - ys[i], "knot value")
    width = num(w[i], "knot alpha")
    if left <= right:
        return num(ys[i], "knot value") + dy * (left / width)
    return num(ys[i + 1], "knot value") - dy * (right / width)


@exact_value.register(PiecewiseLinear)
def _(f, A, Ac):
    r = _rationals(f)
    return None if r is None else _interp_exact(r[0], r[1], A)


@mp_value.register(PiecewiseLinear)
def _(f, a, ac):
    x = _mp_interp(f, _exact_knots(f)[1], a, ac)
    return x, x


@mp_roc.register(PiecewiseLinear)
def _(f, a, ac):
    # 1 - f is piecewise linear through (a_i, 1 - v_i): no cancellation at small alpha.
    x = _mp_interp(f, _exact_knots(f)[2], a, ac)
    return x, x


@lru_cache(maxsize=512)
def _float_knots(f: PiecewiseLinear) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([float(x) for x in f.alphas]), np.array([float(x) for x in f.values]))


@np_value.register(PiecewiseLinear)
def _(f, x):
    xs, ys = _float_knots(f)
    return np.interp(x, xs, ys)


# -- the privacy profile from rational knots -----------------------------------------------------
@lru_cache(maxsize=64)
def _fraction_knots(f: PiecewiseLinear) -> tuple[list, list] | None:
    r = _rationals(f)
    if r is None:
        return None
    return ([Fraction(int(x.p), int(x.q)) for x in r[0]],
            [Fraction(int(x.p), int(x.q)) for x in r[1]])


def knots_delta(f: PiecewiseLinear, eps):
    """delta(eps) = 1 - v_k - e^eps a_k for rational knots (Dong, Roth & Su, Prop. 6: the
    pieces steeper than -e^eps form a prefix, convexity, ending at the knot (a_k, v_k); the
    jump 1 - f(0) included), the prefix found by bisection: O(log k). The difference cancels
    when the last steep pieces are nearly of slope -e^eps; the working precision is then
    raised by the bits lost (the operands are exact). None for irrational knots; ``eps``
    ``mp.inf`` gives 1 - f(0)."""
    fk = _fraction_knots(f)
    if fk is None:
        return None
    a, v = fk
    if eps == mp.inf:
        x = mp.one - mp.mpf(v[0].numerator) / v[0].denominator
        return x, x
    E = mp.exp(eps)
    m = len(a) - 1  # pieces 0..m-1

    def steep(i: int) -> bool:  # drop_i > e^eps width_i (slope below -e^eps)
        d, w = v[i] - v[i + 1], a[i + 1] - a[i]
        return mp.mpf(d.numerator) * w.denominator > E * (mp.mpf(w.numerator) * d.denominator)

    lo, hi = 0, m  # pieces < lo are steep, pieces >= hi are not
    while lo < hi:
        mid = (lo + hi) // 2
        if steep(mid):
            lo = mid + 1
        else:
            hi = mid
    k = lo
    rest, ak = 1 - v[k], a[k]
    if rest == 0:
        return mp.zero, mp.zero
    prec = mp.prec
    extra = 10
    for _ in range(12):
        with mp.workprec(prec + extra):
            R = mp.mpf(rest.numerator) / rest.denominator
            d = R - mp.exp(eps) * (mp.mpf(ak.numerator) / ak.denominator)
            if d > 0 and d >= mp.ldexp(R, -extra + 8):
                d = min(+d, mp.one)
                return d, d
            lost = int(mp.log(R / d, 2)) + 16 if d > 0 else extra + 64
        extra = max(extra + lost, 2 * extra)
    return mp.zero, min(R, mp.one)  # delta in [0, 1 - v_k]: nothing certain beyond


# -- exact composition and privacy profile (tradeoff_algebra.numeric.finite) ---------------------
def _register_finite() -> None:
    from ..core.errors import NoClosedForm
    from ..numeric.finite import FiniteLoss, finite_loss
    from ..numeric.privacy_loss import loss_views, privacy_loss
    from ..numeric.protocol import mp_delta

    @privacy_loss.register(PiecewiseLinear)

    @loss_views("grid", "exact")
    def _(f):
        """A finite pair with T(P, Q) = f: each linear piece is an outcome with P-mass its width
        and Q-mass its drop (likelihood ratio minus the slope), and ``1 - f(0)`` is the Q-mass
        of an outcome with P = 0 (Dong, Roth & Su, Def. 2 and Appendix A: the Neyman--Pearson
        knots of this pair are the knots of f). None for symbolic knots."""
        if f.free_symbols:
            return None
        a, v, _, _ = _exact_knots(f)
        P = [S.Zero] + [a[i + 1] - a[i] for i in range(len(a) - 1)]
        Q = [1 - v[0]] + [v[i] - v[i + 1] for i in range(len(a) - 1)]
        return FiniteLoss.pair(P, Q)

    @mp_delta.register(PiecewiseLinear)
    def _(f, eps):
        """delta(eps) = sum over pieces of slope < -e^eps of (drop - e^eps width), plus
        1 - f(0) (Dong, Roth & Su, Prop. 6)."""
        v = knots_delta(f, eps)
        if v is not None:
            return v
        fl = finite_loss(f)
        if fl is None:
            raise NoClosedForm(f"{f}: delta(eps) needs numeric knots")
        return fl.mp_delta(eps)


_register_finite()


@pl_knots.register(PiecewiseLinear)
def _(f):
    """The knots themselves (numeric.knots_eval's exact hull and inverse work on them)."""
    return clean_knots(f.knots)
