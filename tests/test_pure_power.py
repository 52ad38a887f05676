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


# -- delta(eps) from the atoms (no incomplete beta function) ----------------------------------
DELTA_EPS = [sp.Integer(0), R(1, 20), R(1, 3), sp.Integer(1), sp.log(2), R(5, 2)]


@pytest.mark.parametrize("eps0", EPS0, ids=str)
@pytest.mark.parametrize("k", range(1, 9))
def test_delta_from_the_atoms_against_the_sum(k, eps0):
    """delta(eps) of f_{eps0,0}^(x)k at exact eps (among them the atoms' own losses eps0 j,
    where the atom's term vanishes) against the 60-digit sum: a certified point whose
    interval holds the reference, or (eps0 = log 3 at eps = 0, log r) the exact value, equal to
    the sum in Fractions."""
    f = ta.EpsDelta(eps0, 0) ** k
    for eps in DELTA_EPS + [eps0 * j for j in range(0, k + 1, 2 if k > 4 else 1)]:
        v = ta.delta(f, eps, dps=30)
        assert v.route.startswith("f_{eps0,0}^(x)k by its atoms"), (k, eps0, eps, v.route)
        if v.guarantee == "exact" and eps0 != sp.log(3):  # at or above the largest loss
            assert v.exact == 0 and ref_delta(k, eps0, M.mpf(sp.N(eps, 70))) == 0
            continue
        if v.guarantee == "exact":
            x = Fraction(3)
            ee = sp.exp(eps)  # (SymPy: e^{j log 3} = 3^j, a Rational)
            r = Fraction(int(ee.p), int(ee.q))
            want = sum((math.comb(k, j) * (x**j - r * x ** (k - j)) for j in range(k + 1)
                        if x ** (2 * j - k) > r), Fraction(0)) / (1 + x) ** k
            assert v.exact == want, (k, eps, v)
            continue
        assert v.guarantee == "certified"
        ref = ref_delta(k, eps0, M.mpf(sp.N(eps, 70)))
        lo, hi = (M.mpf(mpf_frac(z).numerator) / mpf_frac(z).denominator
                  for z in v.interval())
        assert lo <= ref <= hi, (k, eps0, eps, v, ref)
        assert hi - lo <= M.mpf(10) ** -28 * max(ref, M.mpf(10) ** -300) or ref == 0


def test_delta_takes_no_incomplete_beta(monkeypatch):
    """At k <= MAX_K delta never reaches the binomial distribution functions."""
    from tradeoff_algebra.numeric import binomial_cdf

    def refuse(*a, **kw):
        raise AssertionError("incomplete beta path taken")

    monkeypatch.setattr(binomial_cdf, "binom_tail", refuse)
    v = ta.delta(ta.EpsDelta(R(1, 10), 0) ** 5, R(1, 7))
    assert v.guarantee == "certified" and v.route == ROUTE


# -- delta of a lattice pair composed n times, exactly ------------------------------------------
def _brute_delta(P, Q, n, r):
    """delta(log r) of the n-fold product by enumerating its outcomes in Fractions."""
    from itertools import product

    tot = Fraction(0)
    for w in product(range(len(P)), repeat=n):
        p = q = Fraction(1)
        for i in w:
            p, q = p * P[i], q * Q[i]
        tot += max(q - r * p, Fraction(0))
    return tot


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_lattice_delta_exact_against_enumeration(n):
    from tradeoff_algebra.numeric.finite_small import lattice_delta_exact

    pairs = [([Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)],
              [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)]),  # RR(log 3, 3)
             ([Fraction(4, 7), Fraction(2, 7), Fraction(1, 7)],
              [Fraction(1, 7), Fraction(2, 7), Fraction(4, 7)])]  # ratios 1/4, 1, 4 (R = 2)
    for P, Q in pairs:
        for r in [Fraction(1), Fraction(2), Fraction(3), Fraction(5, 2), Fraction(9),
                  Fraction(3**n - 1), Fraction(4**n), Fraction(10**6)]:
            assert lattice_delta_exact(P, Q, n, r) == _brute_delta(P, Q, n, r), (P, n, r)


def test_rr_power_delta_exact_at_log_rationals():
    """ta.delta of RR(log 3, 3)^n at eps = log r: exact, equal to the enumeration (n = 6) and
    to the top atom's 5^-n just below the largest loss (n = 300)."""
    P = [Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)]
    Q = [Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)]
    f = ta.randomized_response(sp.log(3), 3) ** 6
    for r in [2, 3, 10, 3**6 - 1]:
        v = ta.delta(f, sp.log(r))
        assert v.guarantee == "exact" and v.exact == _brute_delta(P, Q, 6, Fraction(r))
    v = ta.delta(ta.randomized_response(sp.log(3), 3) ** 300, sp.log(3**300 - 2))
    assert v.guarantee == "exact" and v.exact == 2 * Fraction(1, 5) ** 300
