"""The ends alpha = 0 and 1 of products whose factors have exact ends (routes.product.EndsRoute:
f(0) = prod f_i(0), Dong, Roth & Su, Def. 5), against independent references: the exact
Neyman--Pearson knots of the composed four-point pairs of f_{eps,delta} (references.finite),
and, for the Laplace factors, the Irwin--Hall quadrature's delta at the largest loss (0: no
mass where P = 0, so nothing singular, f(0) = 1)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import reference_np as rnp
import sympy as sp
from references import audit7_refs as R7
from references import finite as FN

import tradeoff_algebra as ta

R = sp.Rational


def _epsdelta_power_f0(E: int, d: Fraction, n: int) -> Fraction:
    """f(0) of f_{log E, d}^n: the first knot of the exact NP curve of the composed pair."""
    P, Q = FN.pair_power(rnp.four_point_pair(Fraction(E), d), n, True)
    return FN.np_knots(P, Q, True)[0][1]


@pytest.mark.parametrize("mu, k", [(1, 3), (R(1, 2), 4)])
def test_laplace_power_f0_is_one(mu, k):
    """L_mu^k: f(0) = 1 and 1 - f(0) = 0 exactly; the reference: delta at the largest loss
    k mu by the Irwin--Hall quadrature is 0, so delta(oo) = 1 - f(0) = 0."""
    f = ta.Laplace(mu) ** k
    a, r = ta.evaluate(f, 0), ta.roc(f, 0)
    assert a.guarantee == "exact" and a.exact == 1
    assert r.guarantee == "exact" and r.exact == 0
    with mpmath.workdps(30):
        assert abs(R7.laplace_power_delta(mpmath.mpf(sp.N(mu, 40)), k, k * mpmath.mpf(sp.N(mu, 40)),
                                          25)) < mpmath.mpf(10) ** -20
    b, s = ta.evaluate(f, 1), ta.roc(f, 1)
    assert b.guarantee == "exact" and b.exact == 0 and s.exact == 1


def test_mixed_product_f0_against_np_knots():
    """f_{log 3, 1/10}^3 (x) L_2 (x) G_1: f(0) = (9/10)^3 exactly, the first knot of the
    exact NP curve of the four-point pair cubed (the Laplace and Gaussian factors have
    densities positive everywhere: factor 1)."""
    f = ta.EpsDelta(sp.log(3), R(1, 10)) ** 3 @ ta.Laplace(2) @ ta.G(1)
    ref = _epsdelta_power_f0(3, Fraction(1, 10), 3)
    assert ref == Fraction(729, 1000)
    a, r = ta.evaluate(f, 0), ta.roc(f, 0)
    assert a.guarantee == "exact" and a.exact == R(ref.numerator, ref.denominator)
    assert r.guarantee == "exact" and r.exact == 1 - R(ref.numerator, ref.denominator)


def test_large_power_rational_not_built():
    """A power whose exact f(0) would be a huge rational ((9/10)^(10^6)) is not built by the
    ends route: the answer comes from the other routes, still 0 < f(0) <= 1 and not exact."""
    f = ta.EpsDelta(1, R(1, 10)) ** 10**6 @ ta.Laplace(1)
    a = ta.evaluate(f, 0, dps=10)
    assert a.guarantee != "exact"
    with mpmath.workdps(30):
        ref = (mpmath.mpf(9) / 10) ** (10**6)
        assert abs(a.mid / ref - 1) < 1e-6
