"""eps(delta) of f_{eps0,0}^(x)k at small k from its atoms (analysis/pure_power.py,
numeric/finite_small.py), against references computed without the library: delta at the
returned ends by the sum over the k + 1 binomial atoms (Kairouz, Oh & Viswanath; Dong, Roth &
Su, Prop. 6) in mpmath at 60 digits, and for eps0 = log 3 (e^eps0 = 3) in exact Fractions with
e^eps bracketed by rationals."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from references.base import mpf_frac

import tradeoff_algebra as ta
from tradeoff_algebra.analysis.pure_power import ROUTE
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite_small import pure_power

R = sp.Rational
M = mpmath.MPContext()
M.dps = 60
EPS0 = [R(1, 10), sp.Integer(1), sp.Integer(3), sp.log(3)]


def ref_delta(k: int, eps0: sp.Expr, eps) -> mpmath.mpf:
    """delta(eps) = sum over l_j = eps0 (2j - k) > eps of C(k, j) (x^j - e^eps x^(k-j)) /
    (1 + x)^k, x = e^eps0, at 60 digits."""
    e0 = M.mpf(sp.N(eps0, 70))
    x, ee, tot = M.exp(e0), M.exp(eps), M.zero
    for j in range(k + 1):
        if e0 * (2 * j - k) > eps:
            tot += math.comb(k, j) * (x**j - ee * x ** (k - j))
    return tot / (1 + x) ** k


def frac_delta_log3(k: int, eps_frac: Fraction, upper: bool) -> Fraction:
    """delta(eps) of f_{log 3,0}^(x)k in Fractions, with e^eps replaced by a rational below it
    (``upper``: an upper bound of delta) or above it (a lower bound); the atoms above eps are
    decided by 3^(2j - k) > e^eps, checked against both rational ends."""
    with mpmath.workdps(80):
        e = mpmath.exp(mpmath.mpf(eps_frac.numerator) / eps_frac.denominator)
        lo_e = Fraction(mpmath.nstr(e * (1 - mpmath.mpf(10) ** -70), 80))
        hi_e = Fraction(mpmath.nstr(e * (1 + mpmath.mpf(10) ** -70), 80))
    ee = lo_e if upper else hi_e
    tot = Fraction(0)
    for j in range(k + 1):
        r = Fraction(3) ** (2 * j - k)
        assert r > hi_e or r < lo_e  # (the atom's side of eps decided by both ends)
        if r > hi_e:
            tot += math.comb(k, j) * (Fraction(3) ** j - ee * Fraction(3) ** (k - j))
    return tot / 4**k


@pytest.mark.parametrize("eps0", EPS0, ids=str)
@pytest.mark.parametrize("k", range(1, 9))
def test_epsilon_brackets_the_level(k, eps0):
    f = ta.EpsDelta(eps0, 0) ** k if k > 1 else ta.EpsDelta(eps0, 0)
    D = R(1, 10**6)
    v = ta.epsilon(f, D, dps=20)
    assert v.route == ROUTE and v.guarantee == "certified"
    with mp.workdps(60):
        lo, hi = v.interval()
    assert 0 < lo < hi
    target = M.mpf(1) / 10**6
    assert ref_delta(k, eps0, M.mpf(lo)) > target >= ref_delta(k, eps0, M.mpf(hi))
    if eps0 == sp.log(3):  # exact: e^eps0 = 3
        assert frac_delta_log3(k, mpf_frac(lo), upper=False) > Fraction(1, 10**6)
        assert frac_delta_log3(k, mpf_frac(hi), upper=True) <= Fraction(1, 10**6)


@pytest.mark.parametrize("eps0", EPS0, ids=str)
@pytest.mark.parametrize("level", [R(1, 10), R(1, 1000), R(1, 10**12), R(1, 10**40)], ids=str)
def test_other_levels_and_the_general_route(eps0, level):
    """Agreement with the incomplete beta route of BinomialDP (another computation: O(1) Arb
    tails, a walk and two checks) and with the reference sum at each level."""
    from tradeoff_algebra.families.binomial_tails import arb_epsilon

    k = 5
    v = ta.epsilon(ta.EpsDelta(eps0, 0) ** k, level, dps=30)
    with mp.workdps(60):
        lo, hi = v.interval()
    if v.route != ROUTE:  # delta(0) <= level: eps = 0 (checked below), or the general route
        assert v.is_certain
    d = M.mpf(level.p) / level.q
    if hi == 0:
        assert ref_delta(k, eps0, M.zero) <= d
        return
    assert ref_delta(k, eps0, M.mpf(lo)) > d >= ref_delta(k, eps0, M.mpf(hi))
    a, b = arb_epsilon(eps0, k, Fraction(int(level.p), int(level.q)), 120)
    assert mpf_frac(lo) <= b and a <= mpf_frac(hi)


def test_zero_where_delta0_is_below_the_level():
    """delta(0) = TV(P, Q) of f_{1/10,0}^(x)2 is about 0.05: eps(1/2) = 0 exactly, proved."""
    v = ta.epsilon(ta.EpsDelta(R(1, 10), 0) ** 2, R(1, 2), dps=20)
    assert v.route == ROUTE and v.guarantee == "certified" and v.hi == 0 and v.lo == 0
    assert ref_delta(2, R(1, 10), M.zero) < M.mpf(1) / 2
    # an exact tie: delta(0) of f_{log 3,0}^(x)2 is (9 - 1)/16 = 1/2
    v = ta.epsilon(ta.EpsDelta(sp.log(3), 0) ** 2, R(1, 2), dps=20)
    assert v.hi == 0 and v.is_certain


def test_binomial_node_and_the_cases_it_leaves():
    assert pure_power(ta.BinomialDP(R(1, 10), 4)) == (R(1, 10), 4)
    assert pure_power(ta.EpsDelta(R(1, 10), R(1, 100)) ** 3) is None  # delta0 > 0
    assert pure_power(ta.EpsDelta(0, 0) ** 3) is None
    assert pure_power(ta.EpsDelta(R(1, 10), 0) ** 65) == (R(1, 10), 65)  # above MAX_K:
    v = ta.epsilon(ta.EpsDelta(R(1, 10), 0) ** 65, R(1, 10**6), dps=20)  # the general route
    assert v.route != ROUTE and v.is_certain
    assert pure_power(ta.G(1) ** 3) is None
    v = ta.epsilon(ta.BinomialDP(R(1, 10), 4), R(1, 10**6), dps=20)
    assert v.route == ROUTE
    with mp.workdps(60):
        lo, hi = v.interval()
    assert ref_delta(4, R(1, 10), M.mpf(lo)) > M.mpf(1) / 10**6 >= ref_delta(4, R(1, 10), M.mpf(hi))
