"""Discrete(P, Q) = T(P, Q) against brute force over every test (Dong, Roth & Su, Def. 2).

The reference enumerates all 2^k deterministic tests (rejection sets S, errors
(P(S), 1 - Q(S))) and takes the lower convex envelope of the points: randomised tests fill in
the convex hull, and the trade-off function is its lower boundary. Everything is exact
``Fraction`` arithmetic, independent of the package (no likelihood ratios, no sorting by them).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from precision import workdps
from references.hull import monotone_chain

import tradeoff_algebra as ta
from tradeoff_algebra import Discrete, EpsDelta, InvalidParameter, NoClosedForm, PiecewiseLinear

R = sp.Rational
SETTINGS = settings(max_examples=30, deadline=None)


# -- the brute-force reference ------------------------------------------------------------------
def F(x) -> Fraction:
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


def S(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def test_points(P, Q):
    """(size, type-II error) of every deterministic test."""
    pts = set()
    for rej in product((False, True), repeat=len(P)):
        size = sum((p for p, r in zip(P, rej, strict=True) if r), Fraction(0))
        err = 1 - sum((q for q, r in zip(Q, rej, strict=True) if r), Fraction(0))
        pts.add((size, err))
    return pts


test_points.__test__ = False  # a helper, not a test


def lower_hull(points):
    """Vertices of the lower convex envelope, left to right (collinear points dropped)."""
    best: dict[Fraction, Fraction] = {}
    for x, y in points:
        best[x] = min(y, best.get(x, y))
    return monotone_chain(sorted(best.items()))


def brute_T(P, Q, alpha: Fraction) -> Fraction:
    """inf{beta : (alpha', beta) in the hull, alpha' <= alpha}."""
    hull = lower_hull(test_points(P, Q))
    cands = [y for x, y in hull if x <= alpha]
    for (x0, y0), (x1, y1) in zip(hull, hull[1:], strict=False):
        if x0 <= alpha <= x1:
            cands.append(y0 + (y1 - y0) * (alpha - x0) / (x1 - x0))
    return min(cands)


# -- random rational distributions with zeros --------------------------------------------------
def _normalise(ws):
    t = sum(ws)
    return [Fraction(w, t) for w in ws]


@st.composite
def pairs(draw, max_k: int = 6):
    k = draw(st.integers(1, max_k))
    weights = st.lists(st.integers(0, 6), min_size=k, max_size=k).filter(lambda w: sum(w) > 0)
    return _normalise(draw(weights)), _normalise(draw(weights))


levels = st.fractions(min_value=0, max_value=1, max_denominator=10**4)


def node(P, Q) -> Discrete:
    return Discrete([S(p) for p in P], [S(q) for q in Q])


# -- T(P, Q) against brute force ----------------------------------------------------------------
@given(pairs(), st.lists(levels, min_size=1, max_size=3))
@SETTINGS
def test_matches_brute_force(pq, alphas):
    P, Q = pq
    D = node(P, Q)
    hull = lower_hull(test_points(P, Q))
    # the knots are exactly the vertices of the lower envelope
    assert [(F(a), F(v)) for a, v in D.knots] == hull
    assert all(isinstance(x, sp.Rational) for k in D.knots for x in k)
    for alpha in alphas + [x for x, _ in hull]:
        ref = brute_T(P, Q, alpha)
        A = S(alpha)
        assert F(D(A)) == ref
        assert F(ta.evaluate(D, A).exact) == ref
        assert F(ta.roc(D, A).exact) == 1 - ref


def test_eight_outcomes_against_brute_force():
    P = _normalise([3, 0, 1, 4, 1, 5, 9, 2])
    Q = _normalise([2, 7, 1, 8, 0, 8, 1, 8])
    D = node(P, Q)
    hull = lower_hull(test_points(P, Q))
    assert [(F(a), F(v)) for a, v in D.knots] == hull
    for alpha in (Fraction(1, 7), Fraction(1, 3), Fraction(5, 9), Fraction(99, 100)):
        assert F(D(S(alpha))) == brute_T(P, Q, alpha)


@given(pairs(), st.lists(levels, min_size=1, max_size=3))
@SETTINGS
def test_inverse_is_the_swapped_pair(pq, ys):
    P, Q = pq
    D = node(P, Q)
    inv = D.inverse()
    assert D._eval_inverse() == node(Q, P)
    # the reflected knots of T(P, Q) are the knots of T(Q, P)
    assert D.as_piecewise()._eval_inverse() == node(Q, P).as_piecewise()
    for y in ys:
        ref = brute_T(Q, P, y)
        assert F(ta.evaluate(inv, S(y)).exact) == ref
        assert F(D._eval_inverse()(S(y))) == ref
    # f^{-1}(f(a)) = a where f is strictly decreasing, on [0, first zero of f]
    zero = min(x for x, v in lower_hull(test_points(P, Q)) if v == 0)
    for y in ys:
        a = y * zero
        assert brute_T(Q, P, brute_T(P, Q, a)) == a


@given(pairs(max_k=4))
@SETTINGS
def test_is_symmetric_is_decided(pq):
    P, Q = pq
    xs = {x for x, _ in lower_hull(test_points(P, Q))} | {
        x for x, _ in lower_hull(test_points(Q, P))}
    same = all(brute_T(P, Q, x) == brute_T(Q, P, x) for x in xs)
    assert node(P, Q).is_symmetric is same


@given(pairs())
@SETTINGS
def test_fixed_point_and_derivative(pq):
    P, Q = pq
    D = node(P, Q)
    x = D.fixed_point()
    assert isinstance(x, sp.Rational) and brute_T(P, Q, F(x)) == F(x)
    hull = lower_hull(test_points(P, Q))
    for (x0, y0), (x1, y1) in zip(hull, hull[1:], strict=False):
        assert F(D.derivative(S(x0))) == (y1 - y0) / (x1 - x0)


@given(pairs())
@settings(max_examples=20, deadline=None)
def test_curve_agrees_with_brute_force(pq):
    P, Q = pq
    D = node(P, Q)
    xs = np.linspace(0.0, 1.0, 17)
    ys = D.curve(xs)
    for x, y in zip(xs, ys, strict=True):
        assert abs(y - float(brute_T(P, Q, Fraction(float(x))))) <= 1e-15


def _mpf(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def test_irrational_alpha_and_tiny_alpha():
    P, Q = _normalise([1, 2, 3, 0]), _normalise([3, 2, 0, 1])
    D = node(P, Q)
    hull = lower_hull(test_points(P, Q))
    with workdps(80):
        a = mpmath.sqrt(2) / 3
        ref = None
        for (x0, y0), (x1, y1) in zip(hull, hull[1:], strict=False):
            if _mpf(x0) <= a <= _mpf(x1):
                ref = _mpf(y0) + _mpf(y1 - y0) * (a - _mpf(x0)) / _mpf(x1 - x0)
                break
    v = ta.evaluate(D, sp.sqrt(2) / 3, dps=40)
    assert abs(v.mid - ref) <= ref * mpmath.mpf(10) ** -39
    # 1 - T(P, Q)(alpha) at tiny alpha: Q(P = 0) - (first slope) alpha, no cancellation
    f0 = hull[0][1]
    slope = (hull[1][1] - hull[0][1]) / (hull[1][0] - hull[0][0])
    w = ta.roc(D, sp.sqrt(3) * R(1, 10**50), dps=30)
    with workdps(80):
        ref = (1 - _mpf(f0)) - _mpf(slope) * mpmath.sqrt(3) * mpmath.mpf(10) ** -50
    assert abs(w.mid - ref) <= ref * mpmath.mpf(10) ** -29


# -- f_{eps,delta} is T of the four-point pair of Prop. 3 ------------------------------------------
def f_eps_delta(e_eps: Fraction, delta: Fraction, alpha: Fraction) -> Fraction:
    """Dong, Roth & Su, Eq. (4), written out with e^eps given exactly."""
    return max(Fraction(0), 1 - delta - e_eps * alpha, (1 - delta - alpha) / e_eps)


def four_point(e_eps: Fraction, delta: Fraction):
    P = [delta, (1 - delta) * e_eps / (1 + e_eps), (1 - delta) / (1 + e_eps), Fraction(0)]
    return P, P[::-1]


@given(st.fractions(min_value=0, max_value=1, max_denominator=50),
       st.lists(levels, min_size=2, max_size=4))
@SETTINGS
def test_epsdelta_is_the_four_point_pair(delta, alphas):
    P, Q = four_point(Fraction(2), delta)
    # first the proposition itself, by brute force: T(P, Q) = f_{log 2, delta}
    for alpha in alphas:
        assert brute_T(P, Q, alpha) == f_eps_delta(Fraction(2), delta, alpha)
    # then the two nodes agree exactly
    D = node(P, Q)
    f = EpsDelta(sp.log(2), S(delta))
    for alpha in alphas + [Fraction(1)]:
        A = S(alpha)
        assert ta.evaluate(D, A).exact == ta.evaluate(f, A).exact
        assert D(A) == f(A)
    assert D.is_symmetric is True
    assert D.fixed_point() == f.fixed_point()


def test_epsdelta_knots_from_eq4():
    d = R(1, 10)
    D = Discrete(*four_point(Fraction(2), Fraction(1, 10)))
    kink = (1 - d) / 3  # the fixed point (1 - delta)/(1 + e^eps)
    assert D.as_piecewise() == PiecewiseLinear([(0, 1 - d), (kink, kink), (1 - d, 0), (1, 0)])


# -- construction -------------------------------------------------------------------------------
def test_validation():
    h = R(1, 2)
    with pytest.raises(InvalidParameter) as info:
        Discrete([h, h], [R(1, 3), R(1, 3), R(1, 3)])
    assert info.value.name == "Q" and "same 2 outcomes" in info.value.allowed
    with pytest.raises(InvalidParameter) as info:
        Discrete([R(3, 2), -h], [h, h])
    assert info.value.name == "P[0]"
    with pytest.raises(InvalidParameter, match=r"P\[1\]"):
        Discrete([h, -h, 1], [h, h, 0])
    with pytest.raises(InvalidParameter, match="sum to 2/3"):
        Discrete([R(1, 3), R(1, 3)], [h, h])
    with pytest.raises(InvalidParameter, match="sum to"):
        Discrete([h, h], [0.5, 0.5 + 1e-9])
    Discrete([0.1, 0.2, 0.7], [0.3, 0.3, 0.4])  # float sums within 1e-12 of 1 pass
    for bad in ([], "ab", None, [h, "x"]):
        with pytest.raises(InvalidParameter):
            Discrete(bad, [1])
    p = sp.Symbol("p", nonnegative=True)
    Discrete([p, 1 - p], [h, h])  # the sum is 1 for every p
    with pytest.raises(InvalidParameter, match="sum to"):
        Discrete([p, 2 - p], [h, h])


def test_rational_in_rational_out_and_floats_as_exact_rationals():
    P, Q = [R(1, 3), R(1, 6), R(1, 2), 0], [R(1, 12), R(1, 4), R(1, 6), R(1, 2)]
    D = Discrete(P, Q)
    assert D.P == sp.Tuple(*P) and D.func(*D.args) == D
    assert all(isinstance(x, sp.Rational) for k in D.knots for x in k)
    # floats are their exact binary rationals, rescaled exactly by their sum when it misses 1
    # by float rounding (documented on Discrete), so one list of floats has one exact meaning
    Df = Discrete([float(x) for x in P], [float(x) for x in Q])
    assert all(isinstance(x, sp.Rational) for k in Df.knots for x in k)
    assert sum(Df.P) == 1 and sum(Df.Q) == 1
    f = Discrete([0.1, 0.9], [0.3, 0.7])
    assert ta.evaluate(f, R(1, 20)).exact == ta.evaluate(f @ ta.Id, R(1, 20)).exact
    assert len(Df.knots) == len(D.knots)
    for (a, v), (af, vf) in zip(D.knots, Df.knots, strict=True):
        assert abs(float(a) - float(af)) <= 1e-15 and abs(float(v) - float(vf)) <= 1e-15


def test_symbolic_entries():
    p = sp.Symbol("p", positive=True)
    D = Discrete([p, 1 - p], [1 - p, p])
    assert isinstance(D(R(1, 2)), ta.Applied)
    with pytest.raises(NoClosedForm):
        D.as_piecewise()
    assert D.is_symmetric is None
    E = D.subs(p, R(1, 4))
    assert E.knots == sp.Tuple(sp.Tuple(0, 1), sp.Tuple(R(1, 4), R(1, 4)), sp.Tuple(1, 0))
    assert E.is_symmetric is True


def test_degenerate_pairs():
    h = R(1, 2)
    assert Discrete([1], [1]).as_piecewise() == PiecewiseLinear([(0, 1), (1, 0)])  # Id
    assert Discrete([1, 0], [0, 1]).as_piecewise() == PiecewiseLinear([(0, 0), (1, 0)])  # 0
    assert Discrete([h, h, 0], [h, h, 0]).as_piecewise() == PiecewiseLinear([(0, 1), (1, 0)])
    # an outcome with Q = 0 < P comes last: a flat zero piece
    assert Discrete([h, h], [0, 1]).as_piecewise() == PiecewiseLinear([(0, 1), (h, 0), (1, 0)])
    # an outcome with P = 0 < Q comes first: f(0) = 1 - Q(P = 0)
    assert Discrete([0, 1], [h, h]).as_piecewise() == PiecewiseLinear([(0, h), (1, 0)])


def test_printing():
    D = Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)])
    assert ta.text(D) == "Discrete([1/2, 1/2], [1/4, 3/4])"
    assert ta.latex(D) == (r"T\left(\left(\frac{1}{2}, \frac{1}{2}\right), "
                           r"\left(\frac{1}{4}, \frac{3}{4}\right)\right)")
