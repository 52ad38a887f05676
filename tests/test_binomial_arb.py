"""f_{eps0,0}^{(x) n} (``families.binomial``) for large n by two regularised incomplete beta
functions in Arb (``families.binomial_tails.arb_delta_ball``/``arb_epsilon``,
``numeric.binomial_cdf``), against independent references: the exact rational sum at e^eps0 =
2 and eps = t log 2 (all masses rational), and mpmath sums of the binomial masses over their
window at 40 digits (n = 10^6)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.families.binomial import BinomialDP
from tradeoff_algebra.families.binomial_tails import arb_delta_ball, arb_epsilon
from tradeoff_algebra.numeric.arb_expr import arb_ball
from tradeoff_algebra.numeric.binomial_cdf import binom_cdf_ball, binom_sf_ball
from tradeoff_algebra.numeric.context import arb_precision, mp


def _contains(ball: arb, x: Fraction, prec: int = 300) -> bool:
    with arb_precision(prec):
        return ball.contains(arb(fmpq(x.numerator, x.denominator)))


def exact_delta_log2(n: int, t: int) -> Fraction:
    """delta(t log 2) of f_{log 2, 0}^{(x) n} exactly: P_k = C(n,k) 2^{n-k}/3^n, Q_k = P_{n-k},
    the losses (2k - n) log 2, so sum over 2k - n > t of Q_k - 2^t P_k (Prop. 6)."""
    total = 0
    c = 1  # C(n, k)
    for k in range(n + 1):
        if 2 * k - n > t:
            total += c * (2**k - 2**t * 2 ** (n - k))
        c = c * (n - k) // (k + 1)
    return Fraction(total, 3**n)


@pytest.mark.parametrize("t", [0, 1, 40, 301])
def test_delta_against_exact_rationals(t):
    n = 4099  # above TABLE_MAX_N: the Arb route of the family
    ref = exact_delta_log2(n, t)
    with arb_precision(200):
        b = arb_delta_ball(sp.log(2), n, arb_ball(t * sp.log(2)), 150)
    assert b.rel_accuracy_bits() >= 150
    assert _contains(b, ref)


def test_incomplete_beta_against_exact_sums():
    n, q = 500, Fraction(3, 10)
    pmf = [Fraction(math.comb(n, k)) * q**k * (1 - q) ** (n - k) for k in range(n + 1)]
    with arb_precision(200):
        qb = arb(fmpq(3, 10))
        for c in (-1, 0, 1, 149, 150, 151, 300, 499, 500, 501):
            F = sum(pmf[: max(c + 1, 0)], Fraction(0))
            S = sum(pmf[max(c, 0):], Fraction(0))
            assert _contains(binom_cdf_ball(c, n, qb), F)
            assert _contains(binom_sf_ball(c, n, qb), S)


@pytest.mark.parametrize("q", [Fraction(1, 10**400), Fraction(1, 10**30), Fraction(1, 7),
                               Fraction(6, 7)])
def test_both_tails_narrow_against_exact_sums(q):
    """Each tail contains the exact Fraction sum and carries >= 160 of 200 bits relative on
    both sides of the mean (Arb's incomplete beta loses up to ~30 bits at q = 1/7), also
    where q lies below 2^-200 (the family's p = 1/(1 + e^eps0) < 1/2): the larger tail is the
    complement of the smaller (I_{1-q} at a ball of 1 - q touching 1 was a NaN: defect 2 of
    the eighth audit, f_{700,0}^300)."""
    n = 60
    pmf = [Fraction(math.comb(n, k)) * q**k * (1 - q) ** (n - k) for k in range(n + 1)]
    with arb_precision(200):
        qb = arb(fmpq(q.numerator, q.denominator))
        for c in (0, 1, 2, 8, 9, 30, 51, 52, 59, 60):
            F = sum(pmf[: c + 1], Fraction(0))
            S = sum(pmf[c:], Fraction(0))
            bf, bs = binom_cdf_ball(c, n, qb), binom_sf_ball(c, n, qb)
            assert _contains(bf, F) and _contains(bs, S), (q, c)
            assert bf.rel_accuracy_bits() >= 160 and bs.rel_accuracy_bits() >= 160, (q, c, bf, bs)


def _mp_delta_window(n: int, eps0, eps):
    """delta(eps) = sum_{k >= m} Q_k (1 - e^{eps - l_k}), Q_k of B(n, q), q = e^eps0/(1 +
    e^eps0), summed at the working precision from m until the terms fall below 10^-60 of the
    sum (the terms fall geometrically there): an independent reference."""
    q = mp.exp(eps0) / (1 + mp.exp(eps0))
    m = int(mp.floor((n + eps / eps0) / 2)) + 1
    logq = mp.loggamma(n + 1) - mp.loggamma(m + 1) - mp.loggamma(n - m + 1) + m * mp.log(q) \
        + (n - m) * mp.log(1 - q)
    term = mp.exp(logq)
    total = mp.zero
    ratio = mp.exp(eps - eps0 * (2 * m - n))  # e^{eps - l_k}, times e^{-2 eps0} per step
    step = mp.exp(-2 * eps0)
    up = q / (1 - q)
    k = m
    while k <= n:
        # 1 - e^{eps - l_k}: expm1 for the first terms (where it is near 0), then the ratio
        w = term * (-mp.expm1(eps - eps0 * (2 * k - n)) if k < m + 4 else 1 - ratio)
        total += w
        if k > n * q and term < total * mp.mpf(10) ** -60:
            break
        term = term * (n - k) / (k + 1) * up
        ratio *= step
        k += 1
    return total


@pytest.mark.slow  # ~4 s (the public-API test below keeps one eps of it in the default run)
def test_delta_at_a_million_against_mpmath_window():
    n, eps0 = 10**6, sp.Rational(1, 10)
    for eps in (0, 5000, 5420, 7000):
        with mp.workdps(40):
            ref = _mp_delta_window(n, mp.mpf(1) / 10, mp.mpf(eps))
        b = arb_delta_ball(eps0, n, arb(eps), 120)
        with arb_precision(200):
            lo, hi = b.lower(), b.upper()
        with mp.workdps(40):
            # the reference is good to about 35 digits; the ball to 36
            slack = ref * mp.mpf(10) ** -33
            assert mp.mpf(lo.str(45, radius=False)) - slack <= ref
            assert ref <= mp.mpf(hi.str(45, radius=False)) + slack
            assert hi - lo <= arb(2) ** -110 * abs(b.mid())


def test_epsilon_at_a_million_against_mpmath_window():
    n, eps0, d = 10**6, sp.Rational(1, 10), Fraction(1, 10**5)
    lo, hi = arb_epsilon(eps0, n, d, 100)
    assert 0 < hi - lo < Fraction(1, 10**25) * hi
    with mp.workdps(40):
        e0, dd = mp.mpf(1) / 10, mp.mpf(1) / 10**5
        flo = mp.mpf(lo.numerator) / lo.denominator
        fhi = mp.mpf(hi.numerator) / hi.denominator
        # delta is non-increasing: the reference must cross d inside [lo - r, hi + r]
        r = flo * mp.mpf(10) ** -28
        assert _mp_delta_window(n, e0, flo - r) > dd
        assert _mp_delta_window(n, e0, fhi + r) < dd
    assert abs(float(lo) - 5420.783776159414) < 1e-9


def test_public_api_certified_at_a_million():
    f = ta.EpsDelta(sp.Rational(1, 10), 0) ** 10**6
    e = ta.epsilon(f, sp.Rational(1, 10**5))
    assert e.guarantee == "certified"
    assert abs(float(e.mid) - 5420.783776159414) < 1e-9
    d = ta.delta(f, 5000)
    assert d.guarantee == "certified"
    with mp.workdps(40):
        ref = _mp_delta_window(10**6, mp.mpf(1) / 10, mp.mpf(5000))
        assert abs(mp.mpf(d.mid) - ref) <= ref * mp.mpf(10) ** -28


def test_tighter_tolerance_never_wider():
    f = BinomialDP(sp.Rational(1, 10), 10**6)
    widths, encl = [], []
    for dps in (10, 20, 40):
        v = ta.epsilon(f, sp.Rational(1, 10**5), dps=dps)
        assert v.guarantee == "certified"
        lo, hi = v.interval()
        widths.append(hi - lo)
        encl.append((lo, hi))
    assert widths[0] >= widths[1] >= widths[2]
    for (a, b), (c, d) in zip(encl, encl[1:], strict=False):  # each meets the next
        assert max(a, c) <= min(b, d)


def test_edges_of_the_profile():
    f = BinomialDP(sp.Rational(1, 10), 10**6)
    assert ta.epsilon(f, 1).mid == 0
    top = ta.epsilon(f, 0)  # delta vanishes exactly from the largest loss n eps0 on
    assert top.guarantee == "certified" and abs(float(top.mid) - 10**5) < 1e-9
    assert ta.delta(f, 10**5).mid == 0
    v = ta.delta(f, 10**5 - 1)  # the five atoms of the largest losses
    with mp.workdps(40):
        ref = _mp_delta_window(10**6, mp.mpf(1) / 10, mp.mpf(10**5 - 1))
        assert v.guarantee == "certified" and abs(v.mid - ref) <= ref * mp.mpf(10) ** -28
    big = BinomialDP(sp.Rational(1, 100), 10**12)  # beyond MAX_N: the Arb profile still answers
    v = ta.epsilon(big, sp.Rational(1, 10**9))
    assert v.guarantee == "certified" and 5.0e7 < float(v.mid) < 5.02e7
