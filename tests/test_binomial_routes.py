"""The cheap certified routes of f_{eps0,0}^{(x) n} (BinomialDP) taken before the exact table:
delta(eps) of the finite loss by two regularised incomplete beta functions
(``FiniteLoss.closed_delta``, ``numeric.binomial_profile``) and f(alpha) by three
(``binomial_tails.arb_value_ball``).

References, independent of the code under test:

* exact rational Neyman--Pearson sums for e^eps0 = 2 (P_k = C(n,k) 2^(n-k)/3^n, Q_k = P_(n-k):
  delta as a sum over the atoms, f(alpha) by interpolating the exact knots);
* the exact table route of ``FiniteLoss`` at sizes where both run (they must agree);
* binomial masses at 60 digits (mpmath log-gamma) for an irrational e^eps0.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import BinomialDP
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import FiniteLoss

F = Fraction


def _holds(v, ref) -> bool:
    """Does the certified Value v (widened by one unit) hold ref (a Fraction or an mpf)?"""
    lo, hi = v.interval()
    if isinstance(ref, Fraction):
        def exact(x):
            man, exp = x.man_exp
            return Fraction(int(man)) * Fraction(2) ** int(exp)
        return exact(lo) <= ref <= exact(hi)
    return lo <= ref <= hi


def _masses_log2(n: int) -> list[int]:
    """3^n P_k = C(n,k) 2^(n-k), k = 0..n (K ~ B(n, 1/3) under P)."""
    out, c = [], 1
    for k in range(n + 1):
        out.append(c * 2 ** (n - k))
        c = c * (n - k) // (k + 1)
    return out


def _exact_delta_log2(n: int, t: int) -> Fraction:
    """delta(t log 2): sum over the atoms with loss (2k - n) log 2 > t log 2 of Q_k - 2^t P_k."""
    P = _masses_log2(n)
    S = [k for k in range(n + 1) if 2 * k - n > t]
    return F(sum(P[n - k] for k in S) - 2**t * sum(P[k] for k in S), 3**n)


def _exact_value_log2(n: int, A: Fraction, power: bool = False) -> Fraction:
    """f(A) by linear interpolation of the exact Neyman--Pearson knots (alpha_j, f(alpha_j)) =
    (P(K >= j), Q(K < j)) (reject the atoms of largest ratio first: Appendix A), in integers
    over the common denominator 3^n until the one division."""
    P = _masses_log2(n)
    D = 3**n
    upper = [0] * (n + 2)  # D P(K >= j)
    for j in range(n, -1, -1):
        upper[j] = upper[j + 1] + P[j]
    a, b = A.numerator, A.denominator
    # the j with upper[j + 1] <= A D <= upper[j]; f = Q(K < j) = P(K >= n + 1 - j) at alpha_j
    j = max(i for i in range(n + 1) if upper[i] * b >= a * D)
    x0, x1 = upper[j + 1], upper[j]  # alpha from x0 to x1 (times D)
    y0, y1 = upper[n - j], upper[n + 1 - j]  # f at x0 (reject K >= j + 1) and at x1
    v = Fraction(y0 * (x1 * b - a * D) + y1 * (a * D - x0 * b), (x1 - x0) * b * D)
    return 1 - v if power else v


@pytest.mark.parametrize("t", [0, 1, 1400, 1503])
def test_closed_delta_against_exact_sums_and_the_table(t):
    n = 4000  # the table costs 96280 units: the closed form answers first
    fl = FiniteLoss.binomial(sp.log(2), n)
    assert fl._closed_first()
    v = fl.certified_delta(t * sp.log(2), 30)
    assert v.guarantee == "certified"
    ref = _exact_delta_log2(n, t)
    assert _holds(v, ref)
    table = FiniteLoss.binomial(sp.log(2), n).delta_exact(2**t)  # the exact table's value
    assert F(int(table.p), int(table.q)) == ref


def test_closed_delta_with_delta_parts_matches_the_table():
    fl = FiniteLoss.epsdelta(sp.log(2), sp.Rational(1, 1000)).power(2000)  # f_{log 2, 1/1000}^2000
    assert fl.binomial_form() is not None and fl._closed_first()
    table = FiniteLoss.epsdelta(sp.log(2), sp.Rational(1, 1000)).power(2000)
    for t in (0, 700, 760):
        v = fl.closed_delta(t * sp.log(2), 30)
        exact = table.delta_exact(2**t)  # (the exact table, built once)
        assert _holds(v, F(int(exact.p), int(exact.q)))


def test_small_tables_stay_exact():
    v = FiniteLoss.binomial(sp.log(2), 100).certified_delta(sp.log(4), 30)
    assert v.guarantee == "exact"


@pytest.mark.parametrize("n", [8000, pytest.param(20000, marks=pytest.mark.slow)])
def test_public_delta_is_fast_and_exact_to_its_digits(n):
    """n = 20000 is the time-limit report's; its reference sum alone takes 1.8 s."""
    f = BinomialDP(sp.log(2), n)
    t = n // 3 + 3 * int(math.sqrt(n))  # three sd above the mean loss (in units of log 2)
    with ta.time_limit(30):  # (0.06 s of CPU; the limit leaves room for any load)
        v = ta.delta(f, t * sp.log(2))
    assert v.guarantee == "certified"
    assert _holds(v, _exact_delta_log2(n, t))


@pytest.mark.parametrize("A", [F(1, 10), F(1, 10**40), F(999, 1000), F(1, 2)])
@pytest.mark.parametrize("power", [False, True])
def test_arb_value_against_exact_knots(A, power):
    """The family's Arb route (n above TABLE_MAX_N) against the exact knots; the public value
    (exact here: e^eps0 = 2 is rational, and the exact route comes first) agrees."""
    from flint import arb, fmpq

    from tradeoff_algebra.families.binomial_tails import arb_value_ball
    from tradeoff_algebra.numeric.context import arb_precision

    n = 4099
    ref = _exact_value_log2(n, A, power)
    with arb_precision(160):
        a = arb(fmpq(A.numerator, A.denominator))
        ac = arb(fmpq(A.denominator - A.numerator, A.denominator))
        b = arb_value_ball(sp.log(2), n, a, ac, power)
    with arb_precision(400):
        assert b.contains(arb(fmpq(ref.numerator, ref.denominator))), (A, power, b)
    assert b.rel_accuracy_bits() >= 140
    f = BinomialDP(sp.log(2), n)
    level = sp.Rational(A.numerator, A.denominator)
    v = ta.roc(f, level) if power else ta.evaluate(f, level)
    assert _holds(v, ref)


def test_arb_value_at_a_knot():
    """alpha exactly a knot P(K >= j): the two segments' lines meet there (continuity)."""
    from flint import arb, fmpq

    from tradeoff_algebra.families.binomial_tails import arb_value_ball
    from tradeoff_algebra.numeric.context import arb_precision

    n = 4099
    P = _masses_log2(n)
    A = F(sum(P[1400:]), 3**n)
    with arb_precision(200):
        a, ac = arb(fmpq(A.numerator, A.denominator)), arb(fmpq(A.denominator - A.numerator,
                                                                A.denominator))
        b = arb_value_ball(sp.log(2), n, a, ac, False)
    ref = _exact_value_log2(n, A)
    with arb_precision(400):
        assert b.contains(arb(fmpq(ref.numerator, ref.denominator)))
    assert b.rel_accuracy_bits() >= 150


def test_arb_value_irrational_eps_against_60_digit_masses():
    n, eps0 = 20000, sp.Rational(1, 10)
    f = BinomialDP(eps0, n)
    with mp.workdps(60):
        p = 1 / (1 + mp.exp(mp.mpf(1) / 10))  # K ~ B(n, p) under P
        lg = mp.loggamma(n + 1)

        def pmf(k):
            return mp.exp(lg - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + k * mp.log(p)
                          + (n - k) * mp.log(1 - p))

        mean, sd = float(n * p), math.sqrt(n * float(p) * (1 - float(p)))
        k0, k1 = int(mean - 20 * sd), int(mean + 20 * sd)  # the mass outside is below 1e-80
        suffix = {k1 + 1: mp.zero}
        for k in range(k1, k0 - 1, -1):
            suffix[k] = suffix[k + 1] + pmf(k)

        def tail(j):  # P(K >= j)
            return suffix[min(max(j, k0), k1 + 1)]

        alpha = mp.mpf(1) / 10
        j = max(k for k in range(k0, k1 + 1) if tail(k) >= alpha)  # A_{j+1} <= alpha <= A_j
        ref = tail(n + 1 - j) + (tail(j) - alpha) * mp.exp(mp.mpf(1) / 10 * (2 * j - n))
    v = ta.evaluate(f, sp.Rational(1, 10))
    assert v.guarantee == "certified"
    assert _holds(v, ref)
