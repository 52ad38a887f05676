"""PiecewiseLinear: validation, exact values, inverse, derivative, fixed point, numerics.

References are independent of the package: linear interpolation and the inverse
inf{t : f(t) <= a} (Dong, Roth & Su, Eq. (3)) are recomputed here in exact ``Fraction``
arithmetic from the knots as drawn (before the package removes collinear knots).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import InvalidParameter, PiecewiseLinear

R = sp.Rational
SETTINGS = settings(max_examples=40, deadline=None)


# -- independent references -------------------------------------------------------------------
def F(x) -> Fraction:
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


def ref_value(knots, x: Fraction) -> Fraction:
    """Linear interpolation by a linear scan, as a convex combination of the two ends."""
    for (a0, v0), (a1, v1) in zip(knots, knots[1:], strict=False):
        if a0 <= x <= a1:
            lam = (x - a0) / (a1 - a0)
            return (1 - lam) * v0 + lam * v1
    raise AssertionError("alpha outside [0, 1]")


def ref_inverse(knots, y: Fraction) -> Fraction:
    """inf{t in [0, 1] : f(t) <= y}, scanning the pieces from the left."""
    for (a0, v0), (a1, v1) in zip(knots, knots[1:], strict=False):
        if v0 <= y:
            return a0
        if v1 <= y:
            return a0 + (v0 - y) / (v0 - v1) * (a1 - a0)
    return Fraction(1)


def sym(knots):
    return [(sp.Rational(a.numerator, a.denominator), sp.Rational(v.numerator, v.denominator))
            for a, v in knots]


# -- random trade-off functions: random breakpoints and non-decreasing slopes <= 0 ------------
@st.composite
def tradeoff_knots(draw, max_pieces: int = 5):
    inner = draw(st.lists(st.fractions(min_value=Fraction(1, 40), max_value=Fraction(39, 40),
                                       max_denominator=40),
                          min_size=0, max_size=max_pieces - 1, unique=True))
    alphas = [Fraction(0), *sorted(inner), Fraction(1)]
    m = len(alphas) - 1
    slopes = sorted(draw(st.lists(st.fractions(min_value=-12, max_value=0, max_denominator=9),
                                  min_size=m, max_size=m)))
    values = [Fraction(0)] * (m + 1)
    for i in range(m - 1, -1, -1):
        values[i] = values[i + 1] - slopes[i] * (alphas[i + 1] - alphas[i])
    if values[0] > 1:
        scale = draw(st.fractions(min_value=Fraction(1, 10), max_value=1, max_denominator=10))
        values = [v * scale / values[0] for v in values]
    return list(zip(alphas, values, strict=True))


levels = st.fractions(min_value=0, max_value=1, max_denominator=10**6)


# -- validation ---------------------------------------------------------------------------------
BAD = [
    ([(R(1, 10), 1), (1, 0)], "first knot at alpha = 0", "(1/10, 1)"),
    ([(0, 1), (R(9, 10), 0)], "last knot at alpha = 1", "(9/10, 0)"),
    ([(0, 1), (1, R(1, 10))], "value 0 at alpha = 1", "(1, 1/10)"),
    ([(0, R(3, 2)), (1, 0)], "values in [0, 1]", "(0, 3/2)"),
    ([(0, 1), (R(1, 2), R(-1, 10)), (1, 0)], "values in [0, 1]", "(1/2, -1/10)"),
    ([(0, 1), (R(3, 2), 0), (1, 0)], "alphas in [0, 1]", "(3/2, 0)"),
    ([(0, 1), (R(1, 2), R(3, 5)), (1, 0)], "1 - alpha", "(1/2, 3/5)"),
    ([(0, 1), (R(1, 2), R(1, 4)), (R(1, 2), R(1, 5)), (1, 0)], "strictly increasing",
     "(1/2, 1/5)"),
    ([(0, 1), (R(1, 2), R(1, 4)), (R(1, 4), R(1, 2)), (1, 0)], "strictly increasing",
     "(1/4, 1/2)"),
    ([(0, R(1, 2)), (R(1, 4), R(1, 4)), (R(1, 2), R(3, 8)), (1, 0)], "non-increasing",
     "(1/2, 3/8)"),
    ([(0, 1), (R(1, 4), R(1, 2)), (R(1, 2), R(3, 8)), (1, 0)], "convex", "(1/2, 3/8)"),
]


@pytest.mark.parametrize("knots, allowed, offender", BAD, ids=[b[1] for b in BAD])
def test_each_failure_names_what_is_required_and_the_knot(knots, allowed, offender):
    with pytest.raises(InvalidParameter) as info:
        PiecewiseLinear(knots)
    e = info.value
    assert e.name == "knots" and e.owner == "PiecewiseLinear"
    assert allowed in e.allowed
    assert offender in str(e)


@pytest.mark.parametrize("bad", ["0,1;1,0", None, 3, [(0, 1)], [(0, 1, 2), (1, 0)],
                                 [("a", 1), (1, 0)], [(0, float("nan")), (1, 0)], []])
def test_malformed_knots(bad):
    with pytest.raises(InvalidParameter) as info:
        PiecewiseLinear(bad)
    assert info.value.name == "knots"


def test_symbolic_knots_pass_until_proved_wrong():
    t, s = sp.symbols("t s")
    f = PiecewiseLinear([(0, 1), (t, s), (1, 0)])
    assert f.free_symbols == {t, s}
    g = f.subs({t: R(1, 2), s: R(1, 4)})
    assert g == PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)])
    with pytest.raises(InvalidParameter, match="values in"):
        PiecewiseLinear([(0, 1), (t, 2), (1, 0)])
    u = sp.Symbol("u", positive=True)
    with pytest.raises(InvalidParameter, match="strictly increasing"):
        PiecewiseLinear([(0, 1), (u, 0), (u / 2, 0), (1, 0)])
    with pytest.raises(InvalidParameter, match="convex"):  # slopes -1/4 then -3/4 for all u
        PiecewiseLinear([(0, R(1, 2)), (u, R(1, 2) - u / 4), (2 * u, R(1, 2) - u), (1, 0)])


def test_numbers_are_kept_as_given():
    f = PiecewiseLinear([(0, 1), (R(1, 3), R(1, 3)), (1, 0)])
    assert all(isinstance(x, sp.Rational) for k in f.knots for x in k)
    assert isinstance(f.knots, sp.Tuple) and all(isinstance(k, sp.Tuple) for k in f.knots)
    # floats are their exact binary rationals, validated exactly (no tolerance)
    g = PiecewiseLinear([(0, 1), (0.25, 0.5), (1, 0)])
    assert g.knots[1][0] == R(1, 4) and isinstance(g.knots[1][0], sp.Rational)
    h = PiecewiseLinear([(0, 1), (0.2, 0.6), (0.4, 0.2), (1, 0)])
    assert h.knots[1][1] == sp.Rational(0.6)
    for bump in (1e-14, 1e-9):  # non-convex at the binary values: refused, however little
        with pytest.raises(InvalidParameter, match="convex"):
            PiecewiseLinear([(0, 1), (0.2, 0.6 + bump), (0.4, 0.2), (1, 0)])
    with pytest.raises(InvalidParameter):  # 5e-13 above 1 - alpha
        PiecewiseLinear([(0, 1), (0.5, 0.5 + 5e-13), (1, 0)])


def test_collinear_knots_are_removed_and_construction_is_idempotent():
    f = PiecewiseLinear([(0, 1), (R(1, 4), R(3, 4)), (R(1, 2), R(1, 2)), (1, 0)])
    assert f == ta.PiecewiseLinear([(0, 1), (1, 0)])
    g = PiecewiseLinear([(0, R(1, 2)), (R(1, 4), 0), (R(1, 2), 0), (1, 0)])
    assert g.knots == sp.Tuple(sp.Tuple(0, R(1, 2)), sp.Tuple(R(1, 4), 0), sp.Tuple(1, 0))
    for h in (f, g):
        assert h.func(*h.args) == h
    t = sp.Symbol("t", positive=True)
    k = PiecewiseLinear([(0, 1), (t, 1 - t), (1, 0)])  # collinear for every t: removed
    assert len(k.knots) == 2


@given(tradeoff_knots())
@SETTINGS
def test_round_trip_and_canonical_form(knots):
    f = PiecewiseLinear(sym(knots))
    assert f.func(*f.args) == f
    assert PiecewiseLinear(f.knots) == f
    # canonical: no three consecutive knots collinear
    kn = [(F(a), F(v)) for a, v in f.knots]
    for (a0, v0), (a1, v1), (a2, v2) in zip(kn, kn[1:], kn[2:], strict=False):
        assert (v1 - v0) * (a2 - a1) != (v2 - v1) * (a1 - a0)


# -- exact values --------------------------------------------------------------------------------
@given(tradeoff_knots(), st.lists(levels, min_size=1, max_size=4))
@SETTINGS
def test_exact_values(knots, xs):
    f = PiecewiseLinear(sym(knots))
    a = sp.Symbol("a", nonnegative=True)
    closed = f(a)
    for x in xs + [a0 for a0, _ in knots]:
        ref = ref_value(knots, x)
        X = sp.Rational(x.numerator, x.denominator)
        assert F(f(X)) == ref
        assert F(closed.subs(a, X)) == ref
        v = ta.evaluate(f, X, dps=30)
        assert v.exact is not None and F(v.exact) == ref
        assert F(ta.roc(f, X).exact) == 1 - ref


def test_symbolic_alpha_gives_a_piecewise():
    f = PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)])
    a = sp.Symbol("alpha", nonnegative=True)
    expected = sp.Piecewise((1 - 3 * a / 2, a <= R(1, 2)), (R(1, 2) - a / 2, True))
    assert f(a) == expected


# -- trade-off properties (Prop. 1) ------------------------------------------------------------
@given(tradeoff_knots(), levels, levels, st.fractions(min_value=0, max_value=1,
                                                     max_denominator=100))
@SETTINGS
def test_tradeoff_properties(knots, x, y, lam):
    for f in (PiecewiseLinear(sym(knots)), PiecewiseLinear(sym(knots))._eval_inverse()):
        def val(z, f=f):
            return F(f(sp.Rational(z.numerator, z.denominator)))

        lo, hi = min(x, y), max(x, y)
        assert val(lo) >= val(hi)  # non-increasing
        assert val(x) <= 1 - x  # below Id
        mid = lam * x + (1 - lam) * y
        assert val(mid) <= lam * val(x) + (1 - lam) * val(y)  # convex
        assert val(Fraction(1)) == 0
        assert 0 <= val(x) <= 1


# -- inverse -------------------------------------------------------------------------------------
@given(tradeoff_knots(), st.lists(levels, min_size=1, max_size=4))
@SETTINGS
def test_inverse_matches_definition_and_is_an_involution(knots, ys):
    f = PiecewiseLinear(sym(knots))
    g = f._eval_inverse()
    assert isinstance(g, PiecewiseLinear)
    assert g._eval_inverse() == f
    inv = f.inverse()
    for y in ys + [v for _, v in knots]:
        Y = sp.Rational(y.numerator, y.denominator)
        ref = ref_inverse(knots, y)
        assert F(g(Y)) == ref
        assert F(ta.evaluate(inv, Y).exact) == ref
        assert F(g._eval_inverse()(Y)) == ref_value(knots, y)
    # f^{-1}(f(a)) = a where f is strictly decreasing: on [0, first zero]
    zero = next(a for a, v in knots if v == 0)
    for y in ys:
        x = y * zero
        X = sp.Rational(x.numerator, x.denominator)
        assert F(g(f(X))) == x


def test_inverse_with_flat_pieces_and_f0_below_one():
    # f_{eps,delta}-like: f(0) = 1/2 and f = 0 on [1/4, 1]
    f = PiecewiseLinear([(0, R(1, 2)), (R(1, 4), 0), (1, 0)])
    assert f._eval_inverse() == PiecewiseLinear([(0, R(1, 4)), (R(1, 2), 0), (1, 0)])
    # Zero and Id are their own inverses
    z = PiecewiseLinear([(0, 0), (1, 0)])
    assert z._eval_inverse() == z and z.is_symmetric is True
    i = PiecewiseLinear([(0, 1), (1, 0)])
    assert i._eval_inverse() == i and i.is_symmetric is True
    assert f.is_symmetric is False
    s = PiecewiseLinear([(0, 1), (R(1, 5), R(1, 5)), (1, 0)])
    assert s.is_symmetric is True
    # floats: the inverse's (1, 0) and the given (1.0, 0.0) are the same knot
    assert PiecewiseLinear([(0, 0.5), (0.5, 0.0), (1.0, 0.0)]).is_symmetric is True
    assert PiecewiseLinear([(0, 0.5), (0.25, 0.0), (1.0, 0.0)]).is_symmetric is False


def test_symbolic_inverse():
    x = sp.Symbol("x", positive=True)
    d = 1 / (1 + x)  # in (0, 1): f(0) = 1 - d is known to be positive and below 1
    f = PiecewiseLinear([(0, 1 - d), (1 - d, 0), (1, 0)])
    g = f._eval_inverse()
    assert g == PiecewiseLinear([(0, 1 - d), (1 - d, 0), (1, 0)])  # f_{0,delta} is symmetric
    assert g.subs(x, 9) == f.subs(x, 9)._eval_inverse()
    # delta = 1 would make f(0) = 0: with a bare symbol the zero pattern is unknown
    e = sp.Symbol("delta", positive=True)
    h = PiecewiseLinear([(0, 1 - e), (1 - e, 0), (1, 0)])
    assert h._eval_inverse() is None and h.is_symmetric is None
    assert isinstance(h.inverse()(R(1, 2)), ta.Applied)


# -- derivative and fixed point ----------------------------------------------------------------
@given(tradeoff_knots(), levels)
@SETTINGS
def test_right_derivative_against_finite_differences(knots, x):
    f = PiecewiseLinear(sym(knots))
    if x == 1:
        x = Fraction(1, 2)
    nxt = min(a for a, _ in knots if a > x)
    h = (nxt - x) / 1000  # inside the piece to the right: the difference quotient is exact
    fd = (ref_value(knots, x + h) - ref_value(knots, x)) / h
    X = sp.Rational(x.numerator, x.denominator)
    assert F(f.derivative(X)) == fd
    a = sp.Symbol("alpha", nonnegative=True)
    assert F(f.derivative().subs(a, X)) == fd
    # at alpha = 1 the left derivative of the last piece
    last = (knots[-1][1] - knots[-2][1]) / (knots[-1][0] - knots[-2][0])
    assert F(f.derivative(1)) == last


@given(tradeoff_knots())
@SETTINGS
def test_fixed_point_is_exact(knots):
    f = PiecewiseLinear(sym(knots))
    x = f.fixed_point()
    assert isinstance(x, sp.Rational)
    assert ref_value(knots, F(x)) == F(x)
    assert 0 <= x <= R(1, 2)


def test_symbolic_fixed_point():
    t = sp.Symbol("t", positive=True)
    f = PiecewiseLinear([(0, 1), (t, t), (1, 0)])
    x = f.fixed_point()
    assert sp.simplify(x.subs(t, R(1, 5)) - R(1, 5)) == 0


# -- numerics ----------------------------------------------------------------------------------
@given(tradeoff_knots())
@SETTINGS
def test_curve_agrees_with_evaluate(knots):
    f = PiecewiseLinear(sym(knots))
    xs = np.linspace(0.0, 1.0, 41)
    ys = f.curve(xs)
    for x, y in zip(xs, ys, strict=True):
        ref = ref_value(knots, Fraction(float(x)))
        assert abs(y - float(ref)) <= 4e-16 * (1 + abs(float(ref)))


def test_irrational_alpha_to_many_digits():
    f = PiecewiseLinear([(0, 1), (R(1, 3), R(1, 5)), (R(3, 4), 0), (1, 0)])
    for A in (sp.sqrt(2) / 4, 1 / sp.pi, 1 - sp.sqrt(2) / 10**20):
        v = ta.evaluate(f, A, dps=40)
        with workdps(80):
            a = mpmath.mpf(sp.N(A, 90))
            knots = [(mpmath.mpf(sp.N(x, 90)), mpmath.mpf(sp.N(y, 90))) for x, y in f.knots]
            ref = next(v0 + (v1 - v0) * (a - a0) / (a1 - a0)
                       for (a0, v0), (a1, v1) in zip(knots, knots[1:], strict=False)
                       if a0 <= a <= a1)
        assert abs(v.mid - ref) <= abs(ref) * mpmath.mpf(10) ** -39 + mpmath.mpf(10) ** -60


def test_roc_at_tiny_alpha_keeps_its_digits():
    # 1 - f(alpha) = (3/2) alpha on the first piece: no cancellation against 1
    f = PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)])
    A = sp.sqrt(2) * R(1, 10**40)
    v = ta.roc(f, A, dps=30)
    with workdps(60):
        ref = mpmath.sqrt(2) * mpmath.mpf(10) ** -40 * 3 / 2
    assert abs(v.mid - ref) <= ref * mpmath.mpf(10) ** -29
    # and near alpha = 1 the value f(alpha) = (1/2)(1 - alpha) keeps its digits too
    B = 1 - sp.sqrt(3) * R(1, 10**40)
    w = ta.evaluate(f, B, dps=30)
    with workdps(60):
        ref = mpmath.sqrt(3) * mpmath.mpf(10) ** -40 / 2
    assert abs(w.mid - ref) <= ref * mpmath.mpf(10) ** -29


# -- printing ----------------------------------------------------------------------------------
def test_printing():
    f = PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)])
    assert ta.latex(f) == (r"\mathrm{PL}\left[\left(0, 1\right), \left(\frac{1}{2}, "
                           r"\frac{1}{4}\right), \left(1, 0\right)\right]")
    assert ta.text(f) == "PiecewiseLinear([(0, 1), (1/2, 1/4), (1, 0)])"
    assert ta.latex(f.inverse()).endswith(r"\right]^{-1}")
