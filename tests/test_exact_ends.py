"""The exact ends of a node (numeric.protocol.exact_ends, operators.ends): f(0) = 1 - Q(P = 0)
and the zero point z = f^{-1}(0) = 1 - P(Q = 0) of T(P, Q) (Dong, Roth & Su, Def. 2), through
the inverse (swapped, Lemma A.2), f_p (Eq. (12)), C_p(f) (Def. 6), max (Prop. 5) and products
(multiplied, Def. 5). Reference: the exact Neyman--Pearson knots of finite pairs with
outcomes of infinite loss (references.finite.np_knots, pair_product, pair_power) and the exact
piecewise-linear inverse, mixture, C_p and max (references.audit5_refs), whose first value and
first zero are read off the knots."""

from __future__ import annotations

from fractions import Fraction as Fr

import mpmath
import pytest
import sympy as sp
from references import audit5_refs as A5
from references import finite as FN
from references.base import to_frac
from references.enclosure import certified, meets

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.protocol import exact_ends

R = sp.Rational

#: Finite pairs with atoms of loss +-oo (P = 0 or Q = 0 somewhere).
PAIRS = [((Fr(0), Fr(1, 4), Fr(3, 4)), (Fr(1, 5), Fr(2, 5), Fr(2, 5))),
         ((Fr(1, 3), Fr(2, 3), Fr(0)), (Fr(0), Fr(1, 2), Fr(1, 2))),
         ((Fr(0), Fr(1, 2), Fr(1, 2)), (Fr(1, 2), Fr(1, 2), Fr(0))),
         ((Fr(1, 10), Fr(9, 10)), (Fr(1, 2), Fr(1, 2)))]


def _node(pair):
    P, Q = pair
    return ta.Discrete([R(x.numerator, x.denominator) for x in P],
                       [R(x.numerator, x.denominator) for x in Q])


def _knots(pair):
    return [(x, y) for x, y, _ in FN.np_knots(*pair, True)]


def _ref_ends(knots):
    """f(0) and the least alpha with f(alpha) = 0 of the piecewise-linear f through knots."""
    return (min(y for x, y in knots if x == 0), min(x for x, y in knots if y == 0))


def _check(f, knots):
    e, z = _ref_ends(knots)
    got = exact_ends(f)
    assert (to_frac(got[0]), to_frac(got[1])) == (e, z), (f, got, (e, z))
    v = ta.evaluate(f, 0, dps=20)
    assert v.guarantee == "exact" and to_frac(v.exact) == e, (v, v.route)
    w = ta.roc(f, 0, dps=20)
    assert w.guarantee == "exact" and to_frac(w.exact) == 1 - e, (w, w.route)


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_discrete_and_inverse(i):
    k = _knots(PAIRS[i])
    _check(_node(PAIRS[i]), k)
    _check(ta.Inverse(_node(PAIRS[i])), A5.pl_inverse(k))


@pytest.mark.parametrize("i", range(len(PAIRS)))
@pytest.mark.parametrize("p", [Fr(1, 3), Fr(9, 10)])
def test_mix_and_subsample(i, p):
    k = _knots(PAIRS[i])
    P = R(p.numerator, p.denominator)
    _check(ta.Mix(_node(PAIRS[i]), P), A5.pl_mix(k, p))
    _check(ta.Inverse(ta.Mix(_node(PAIRS[i]), P)), A5.pl_inverse(A5.pl_mix(k, p)))
    _check(ta.C(P, _node(PAIRS[i])), A5.pl_cp(k, p))


def test_subsample_p_one():
    """C_1(f) = min{f, f^{-1}}^{**}: the end is min{f(0), f^{-1}(0)}."""
    for pair in PAIRS[:3]:
        _check(ta.C(1, _node(pair)), A5.pl_cp(_knots(pair), Fr(1)))


def test_max():
    k0, k1 = _knots(PAIRS[0]), _knots(PAIRS[1])
    _check(ta.Max(_node(PAIRS[0]), _node(PAIRS[1])), A5.pl_max(k0, k1))
    _check(ta.Max(_node(PAIRS[1]), ta.Inverse(_node(PAIRS[1]))),
           A5.pl_max(k1, A5.pl_inverse(k1)))


def test_products():
    """Products and powers (the routes' EndsRoute) against the composed pairs' knots."""
    _check(ta.Tensor(_node(PAIRS[0]), _node(PAIRS[1])),
           [(x, y) for x, y, _ in FN.np_knots(*FN.pair_product([PAIRS[0], PAIRS[1]], True),
                                                True)])
    _check(_node(PAIRS[1]) ** 3,
           [(x, y) for x, y, _ in FN.np_knots(*FN.pair_power(PAIRS[1], 3, True), True)])
    m = A5.pl_inverse(A5.pl_mix(_knots(PAIRS[0]), Fr(1, 3)))
    pair = FN.pair_from_knots(m, True)
    _check(ta.Inverse(ta.Mix(_node(PAIRS[0]), R(1, 3))) ** 2,
           [(x, y) for x, y, _ in FN.np_knots(*FN.pair_power(pair, 2, True), True)])


def test_mutually_continuous_families_and_irrational_masses():
    """(1, 1) for laws that charge the same sets: the discrete Gaussian, PoissonReplace,
    randomized response with irrational masses (against its masses: no zero entry), and any
    product, inverse, f_p or C_p of them; a product with f_{1,1/10} has f(0) = 9/10."""
    rr = ta.randomized_response(1, 3)
    assert all(m != 0 for m in list(rr.P) + list(rr.Q))
    for f in (ta.discrete_gaussian(1, 5), ta.PoissonReplace(1, R(1, 2)), rr,
              ta.Tensor(ta.G(1), rr), ta.C(R(1, 10), ta.discrete_gaussian(2, 3)) ** 2):
        assert exact_ends(f) == (1, 1), f
        assert ta.evaluate(f, 0).guarantee == "exact"
    f = ta.Tensor(ta.PoissonReplace(1, R(1, 2)), ta.EpsDelta(1, R(1, 10)))
    assert exact_ends(f) == (R(9, 10), R(9, 10))
    v = ta.evaluate(f, 0)
    assert v.guarantee == "exact" and v.exact == R(9, 10)


def test_large_power_end_not_built():
    """(9/10)^(10^6) is not built as a rational (operators.ends.ENDS_BITS): no exact end."""
    assert exact_ends(ta.EpsDelta(1, R(1, 10)) ** 10**6) == (None, None)


@pytest.mark.parametrize("k", [1, 3])
def test_product_end_ball_where_a_factor_end_is_irrational(k):
    """f_p of f_{1,1/10} with p = 1/sqrt(2): f_p(0) = 1 - p/10 is no rational, so the product's
    end is a certified ball (routes.product.EndsRoute), against the closed form (1 - p/10)^k
    at 50 digits (G_1's end is 1)."""
    p = 1 / sp.sqrt(2)
    g = ta.Mix(ta.EpsDelta(1, R(1, 10)), p)
    f = g ** k if k > 1 else ta.Tensor(g, ta.G(1))
    with mpmath.workdps(50):
        r = mpmath.mpf(sp.N((1 - p / 10) ** k, 60))
        v = ta.evaluate(f, 0, dps=25)
        assert certified(v) and meets(v, r, r), (v, v.guarantee, v.route)
        w = ta.roc(f, 0, dps=20)
        assert certified(w) and meets(w, 1 - r, 1 - r), (w, w.guarantee, w.route)
