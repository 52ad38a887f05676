"""Shuffled binary randomized response (``analysis.shuffle_rr``): the exact pair of counts and
its privacy profile in Arb, against independent references: exact rational hockey-stick sums
over the convolved laws, direct Arb sums of the binomial masses, the Feldman-McMillan-Talwar
bound (``ShuffleDP``, valid for every pair of neighbouring datasets) and the audit's printed
eps(1e-6) at n = 10^4."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.analysis.shuffle_rr import (
    rr_flip,
    shuffled_rr_delta,
    shuffled_rr_epsilon,
    shuffled_rr_pair,
)
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.numeric.arb import arb_exact
from tradeoff_algebra.numeric.context import arb_precision, mp

R = sp.Rational


def _hockey(P, Q, E):
    """sum (Q - E P)_+ and sum (P - E Q)_+ exactly (E a Fraction)."""
    return (sum(max(b - E * a, 0) for a, b in zip(P, Q, strict=True)),
            sum(max(a - E * b, 0) for a, b in zip(P, Q, strict=True)))


def _contains(ball, x: Fraction) -> bool:
    with arb_precision(200):
        return ball.contains(arb(fmpq(x.numerator, x.denominator)))


def test_pair_is_two_laws_and_n1_is_randomized_response():
    for n, q in ((1, R(1, 4)), (5, R(1, 3)), (12, R(1, 10))):
        for ones in (0, n - 1):
            P, Q = shuffled_rr_pair(n, q, ones)
            assert sum(P) == 1 and sum(Q) == 1 and len(P) == n + 1
    P, Q = shuffled_rr_pair(1, R(1, 4))
    assert P == [Fraction(1, 4), Fraction(3, 4)] and Q == [Fraction(3, 4), Fraction(1, 4)]
    # ones = n - 1 mirrors ones = 0: the count c becomes n - c and P, Q swap
    P0, Q0 = shuffled_rr_pair(6, R(1, 5), 0)
    P5, Q5 = shuffled_rr_pair(6, R(1, 5), 5)
    assert P5 == Q0[::-1] and Q5 == P0[::-1]


@pytest.mark.parametrize("n, q, E", [(1, R(1, 4), R(3, 2)), (2, R(1, 3), R(1)),
                                     (10, R(1, 4), R(4, 3)), (30, R(1, 5), R(11, 10)),
                                     (60, R(2, 5), R(1)), (25, R(1, 20), R(7, 2))])
def test_delta_against_exact_sums(n, q, E):
    """Both directions of the hockey-stick divergence at e^eps = E rational, exactly."""
    P, Q = shuffled_rr_pair(n, q)
    dq, dp = _hockey(P, Q, Fraction(E.p, E.q))
    eps = sp.log(E)
    assert _contains(shuffled_rr_delta(n, q, eps, direction="Q||P"), dq)
    assert _contains(shuffled_rr_delta(n, q, eps, direction="P||Q"), dp)
    assert _contains(shuffled_rr_delta(n, q, eps), max(dq, dp))


def test_delta_where_a_summand_vanishes():
    """e^eps equal to a likelihood ratio Q(c)/P(c) of the pair: that summand is exactly 0, its
    sign undecidable, and the maximum over the neighbouring counts still holds the value."""
    n, q = 9, R(1, 4)
    P, Q = shuffled_rr_pair(n, q)
    for c in (1, 2):  # Q(c)/P(c) = 27/17, 27/25
        E = Q[c] / P[c]
        dq, dp = _hockey(P, Q, E)
        ball = shuffled_rr_delta(n, q, sp.log(R(E.numerator, E.denominator)), direction="Q||P")
        assert _contains(ball, dq)
        E = P[n - c] / Q[n - c]
        dq, dp = _hockey(P, Q, E)
        ball = shuffled_rr_delta(n, q, sp.log(R(E.numerator, E.denominator)), direction="P||Q")
        assert _contains(ball, dp)


def test_delta_against_direct_arb_sums_at_n_1000():
    """The incomplete-beta route against the summands (Q(c) - e^eps P(c))_+ from arb.bin_uiui
    and powers of q (another route, O(n) Arb operations)."""
    n, q, eps = 1000, 1 / (1 + sp.E), R(1, 10)
    with arb_precision(200):
        qa = 1 / (1 + arb(1).exp())
        E = (arb(1) / 10).exp()
        b = [arb.bin_uiui(n - 1, c) * qa**c * (1 - qa)**(n - 1 - c) for c in range(n)]
        tot_q, tot_p = arb(0), arb(0)
        for c in range(n + 1):
            bm = b[c - 1] if c else arb(0)
            bc = b[c] if c < n else arb(0)
            Pc, Qc = (1 - qa) * bm + qa * bc, qa * bm + (1 - qa) * bc
            if Qc - E * Pc > 0:
                tot_q += Qc - E * Pc
            elif Pc - E * Qc > 0:
                tot_p += Pc - E * Qc
        got_q = shuffled_rr_delta(n, q, eps, prec=200, direction="Q||P")
        got_p = shuffled_rr_delta(n, q, eps, prec=200, direction="P||Q")
        assert got_q.overlaps(tot_q) and got_p.overlaps(tot_p)
        assert got_q.rad() < 1e-40 * got_q and got_p.rad() < 1e-40 * got_p


def test_one_pair_below_the_shuffle_theorem():
    """Feldman-McMillan-Talwar's bound (ShuffleDP) holds for every pair of neighbouring
    datasets, so it lies above this pair's delta."""
    for n, eps in ((100, R(1, 5)), (10**4, R(1, 30))):
        mine = shuffled_rr_delta(n, rr_flip(1), eps)
        fmt = ta.delta(ta.ShuffleDP(1, n), eps)
        assert fmt.guarantee == "certified"
        with arb_precision(128):
            assert mine.upper() < arb_exact(fmt.lo)  # the mpf end itself, exactly


def test_not_the_worst_pair_for_every_eps():
    """The module docstring's caveat, exactly: at n = 10, q = 1/20, eps = 0 (total variation)
    a dataset with 4 other ones is further apart than the one with none."""
    n, q = 10, R(1, 20)
    tv = [max(_hockey(*shuffled_rr_pair(n, q, m), Fraction(1))) for m in range(n)]
    assert max(tv) > tv[0] and tv.index(max(tv)) not in (0, n - 1)


def test_epsilon_bracket_and_the_audit_value():
    """eps(1e-6) at n = 10^4, eps0 = 1: the bracket agrees with the audit's 0.0356588152981357357
    (an independent computation, rounded to 18 significant digits: within half a unit of its
    last digit), and delta at its ends is re-proved at 256 bits."""
    lo, hi = shuffled_rr_epsilon(10**4, rr_flip(1), R(1, 10**6), dps=18)
    half_ulp = R(5, 10**21)
    assert lo - half_ulp <= R("0.0356588152981357357") <= hi + half_ulp
    assert (hi - lo) / hi < R(1, 10**17)
    with arb_precision(256):
        d = arb(fmpq(1, 10**6))
        assert shuffled_rr_delta(10**4, rr_flip(1), lo, prec=256) > d
        assert shuffled_rr_delta(10**4, rr_flip(1), hi, prec=256) <= d


def test_epsilon_against_exact_pair_small_n():
    n, q, d = 40, R(1, 6), R(1, 100)
    lo, hi = shuffled_rr_epsilon(n, q, d, dps=12)
    P, Q = shuffled_rr_pair(n, q)
    with mp.workdps(60):
        def dl(e):
            E = mp.exp(mp.mpf(e.p) / e.q)
            return max(sum(max(mp.mpf(b.numerator) / b.denominator
                               - E * mp.mpf(a.numerator) / a.denominator, 0)
                           for a, b in zip(x, y, strict=True)) for x, y in ((P, Q), (Q, P)))
        assert dl(lo) > mp.mpf(1) / 100 >= dl(hi)


def test_bad_input_names_the_parameter():
    with pytest.raises(InvalidParameter, match="n"):
        shuffled_rr_delta(0, R(1, 4), 1)
    with pytest.raises(InvalidParameter, match="q"):
        shuffled_rr_delta(5, R(1, 2), 1)
    with pytest.raises(InvalidParameter, match="eps"):
        shuffled_rr_delta(5, R(1, 4), -1)
    with pytest.raises(InvalidParameter, match="direction"):
        shuffled_rr_delta(5, R(1, 4), 1, direction="both")
    with pytest.raises(InvalidParameter, match="delta"):
        shuffled_rr_epsilon(5, R(1, 4), 2)
    with pytest.raises(InvalidParameter, match="ones"):
        shuffled_rr_pair(5, R(1, 4), 5)
    with pytest.raises(InvalidParameter, match="eps0"):
        rr_flip(-1)


# -- the sinh-normal noise of the companion claims (Dwork, Eq. (4.7); proofs.dwork_shuffle) ----
def _sn_density(A, s):
    """The density from analysis.noise's closed form, as an mpmath function."""
    from tradeoff_algebra.analysis.noise import sinh_normal_density

    z = sp.Symbol("z", real=True)
    return sp.lambdify(z, sinh_normal_density(z, A, s), modules="mpmath")


@pytest.mark.parametrize("k", [1, 10, 1000])
def test_sinh_normal_max_abs_mean_against_quadrature_in_t(k):
    """E max_i |Z_i| = int_0^oo (1 - (1 - P[|Z| >= t])^k) dt with the closed-form tail of
    analysis.noise (mpmath quadrature in t, the other variable), and for k = 1 also
    2 int_0^oo z p(z) dz from the density."""
    from tradeoff_algebra.analysis.noise import sinh_normal_max_abs_mean, sinh_normal_tail

    A, s = 8, 2
    ball = sinh_normal_max_abs_mean(k, A, s)
    t = sp.Symbol("t", nonnegative=True)
    tail = sp.lambdify(t, sinh_normal_tail(t, A, s), modules=[{"Phi": mp.ncdf}, "mpmath"])
    with mp.workdps(30):
        ref = mp.quad(lambda x: 1 - (1 - tail(x))**k, [0, 2, 4, 8, 12, 16, 24])
        assert abs(ref - mp.mpf(ball.mid().str(25, radius=False))) < mp.mpf(10)**-12
        if k == 1:
            p = _sn_density(A, s)
            ref1 = 2 * mp.quad(lambda z: z * p(z), [0, 4, 8, 16, 24])
            assert abs(ref1 - ref) < mp.mpf(10)**-12
    assert ball.rad() < 1e-12


def test_sinh_normal_max_abs_mean_bad_input():
    from tradeoff_algebra.analysis.noise import sinh_normal_max_abs_mean

    with pytest.raises(InvalidParameter, match="k"):
        sinh_normal_max_abs_mean(0, 1, 1)
    with pytest.raises(InvalidParameter, match="A"):
        sinh_normal_max_abs_mean(3, -1, 1)


@pytest.mark.parametrize("a, t", [(2, 1), (4, 1), (R(3, 2), 2), (R(4, 3), 3), (R(101, 100), 1)])
def test_sinh_normal_renyi_against_the_density(a, t):
    """D_a(Z || Z + t) by Arb quadrature in the Gaussian variable against mpmath quadrature of
    p(z)^a p(z - t)^{1-a} in z from analysis.noise's density, and against the other order
    (p(z + t)^a p(z)^{1-a}: the pair is symmetric)."""
    from proofs.dwork_shuffle import sinh_normal_renyi

    A, s = 8, 2
    ball = sinh_normal_renyi(a, t, A, s)
    p = _sn_density(A, s)
    with mp.workdps(18):  # beyond |z| = 20 both integrands are below e^-400
        af = mp.mpf(sp.Rational(a).p) / sp.Rational(a).q
        pts = [-20, -5, 0, t, 5, 20]
        ref = mp.log(mp.quad(lambda z: p(z)**af * p(z - t)**(1 - af), pts)) / (af - 1)
        other = mp.log(mp.quad(lambda z: p(z + t)**af * p(z)**(1 - af), pts)) / (af - 1)
        mid = mp.mpf(ball.mid().str(20, radius=False))
        assert abs(ref - mid) < mp.mpf(10)**-13 and abs(other - mid) < mp.mpf(10)**-13


def test_sinh_normal_renyi_refuses_beyond_its_tail_bound():
    """D_a is infinite for a >= 1/(1 - e^{-2t/A}) (4.52 at t = 1, A = 8): no bound, an error."""
    from proofs.dwork_shuffle import sinh_normal_renyi

    with pytest.raises(ValueError, match="tail bound|cut"):
        sinh_normal_renyi(5, 1, 8, 2)


def test_direct_sums_of_the_crosscheck_agree():
    """proofs.dwork_shuffle's direct Arb sums (the Sec. 5.2 cross-check's route) and the
    incomplete-beta route overlap, and both hold the exact rational value at small n."""
    from proofs.dwork_shuffle import _direct_delta

    for n, q, e in ((500, rr_flip(1), R(1, 20)), (20, R(1, 4), R(1, 3))):
        a, b = _direct_delta(n, q, e, prec=160), shuffled_rr_delta(n, q, e, prec=160)
        with arb_precision(160):
            assert a.overlaps(b) and a.rad() < 1e-30 and b.rad() < 1e-30
    P, Q = shuffled_rr_pair(12, R(1, 5))
    exact = max(_hockey(P, Q, Fraction(3, 2)))
    assert _contains(_direct_delta(12, R(1, 5), sp.log(R(3, 2))), exact)
