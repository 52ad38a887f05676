"""The route "above the largest privacy loss" (routes/product.py, LossBoundRoute): delta(eps)
= E_P[(1 - e^{eps - L})_+] is 0 exactly when eps is at or above the largest loss of the
product, and the route never answers below it. References: exact Neyman-Pearson sums over
the product atoms of finite pairs (Fractions), and the certified values just below the bound
from the other routes."""

from fractions import Fraction
from itertools import product as cartesian

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _exact_delta_pairs(pairs, eps_exp):
    """sum over the product atoms of (P - e^eps Q)_+, e^eps = eps_exp rational."""
    total = Fraction(0)
    for cell in cartesian(*[list(zip(P, Q, strict=True)) for P, Q in pairs]):
        p = q = Fraction(1)
        for a, b in cell:
            p *= a
            q *= b
        total += max(p - eps_exp * q, Fraction(0))
    return total


def test_zero_at_and_above_the_largest_loss_of_laplace_powers():
    f = ta.Laplace(1) ** 3  # largest loss 3
    for eps in (3, R(7, 2), 50):
        v = ta.delta(f, eps)
        assert v.lo == v.hi == 0 and v.guarantee in ("certified", "exact")
        assert "above the largest privacy loss" in v.route  # (exact: eps rational, mu rational)
    below = ta.delta(f, R(29, 10))
    assert below.lo > 0 and "above the largest" not in below.route


def test_finite_pairs_against_exact_sums():
    """Discrete pairs with likelihood ratios 2 and 3: largest loss log 2 + log 3 = log 6; the
    exact sum is 0 at e^eps = 6 and positive just below."""
    P1, Q1 = [Fraction(2, 3), Fraction(1, 3)], [Fraction(1, 3), Fraction(2, 3)]
    P2, Q2 = [Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]
    f = ta.Discrete(P1, Q1) @ ta.Discrete(P2, Q2) @ ta.Laplace(R(1, 10))
    top = sp.log(6) + R(1, 10)
    v = ta.delta(f, top + R(1, 10**12))  # (eps reaches the routes as a float: just above)
    assert v.lo == v.hi == 0
    assert _exact_delta_pairs([(P1, Q1), (P2, Q2)], Fraction(6)) == 0
    assert _exact_delta_pairs([(P1, Q1), (P2, Q2)], Fraction(59, 10)) > 0
    near = ta.delta(f, top - R(1, 100))
    assert near.lo > 0


def test_laplace_with_randomized_response_at_once():
    """The contract sweep's case: eps = 5 above the largest loss 2 of L_1 (x) RR(1, 3), which
    the PLD engine refined to its size limits; now exact 0 under a short time limit."""
    f = ta.Laplace(1) @ ta.randomized_response(1, 3)
    with ta.time_limit(5):
        v = ta.delta(f, 5)
    assert v.lo == v.hi == 0
    with mp.workdps(30):
        assert ta.delta(f, R(199, 100)).lo > 0
