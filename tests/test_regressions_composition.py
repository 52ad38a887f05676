"""Regressions of the reliability issue on composition, large families and size limits.

Every value is checked against a reference that does not use the route under test:

* binomial tails summed term by term from log-gamma masses with ``mpmath.fsum`` (no pmf
  recurrence in fixed point, no table), and exact binomial sums in Fractions;
* brute-force Neyman--Pearson over every randomised test of small finite product pairs
  (tests/reference_np.py), which checks the identities used (f (x) 0 = 0, Dong, Roth & Su,
  Eq. (12) for f_{0,delta} factors, (f (x) g)(0) = f(0) g(0));
* the Laplace Neyman--Pearson test of tests/reference_np.py at 40 digits;
* the shuffle bound from the literal pairs (P0, Q0) of Wang et al. in Fractions, the literal
  hull expression ``SymmetricHull(Mix(Discrete(P0, Q0), 1 - 2w))``, and Cor. 4.3 recomputed in
  float64 (proofs/wang.py, Table 1).

Every refusal must be a TradeOffError naming the limit, never a MemoryError, OverflowError or
numpy error. The reproducers used to hang or run for minutes; their times are measured by
benchmarks/bench_speed_claims.py (tests assert no times).
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import mpmath
import pytest
import sympy as sp
from precision import workdps
from reference_np import finite_np, laplace_np, literal_pair, shuffle_p0_q0

import tradeoff_algebra as ta
from tradeoff_algebra import (
    BinomialDP,
    C,
    Discrete,
    EpsDelta,
    G,
    Inverse,
    Laplace,
    Max,
    PiecewiseLinear,
    ShuffleDP,
    Zero,
    noisy_sgd,
    shuffle,
)
from tradeoff_algebra.core.errors import NumericalError, TradeOffError

R = sp.Rational


# -- references ---------------------------------------------------------------------------------
def _logpmf(n: int, k: int, lp, lq):
    return (mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
            + k * lp + (n - k) * lq)


def ref_tail(n: int, eps, m: int, upper: bool, digits: int):
    """P(K >= m) (upper) or P(K < m) of K ~ B(n, 1/(1 + e^eps)), by mpmath.fsum of the masses
    from m outwards (the first from log-gamma, re-anchored from log-gamma every 4096 terms, the
    others by the ratio of consecutive masses in mpmath floats), until the terms fall below
    10^-(digits + 10) of the first (the sum must start on the falling side of the mode, where
    the terms fall geometrically)."""
    lp, lq = -mpmath.log1p(mpmath.exp(eps)), -mpmath.log1p(mpmath.exp(-eps))
    em, ep = mpmath.exp(-eps), mpmath.exp(eps)
    terms = []
    k = m if upper else m - 1
    tol = mpmath.mpf(10) ** -(digits + 6)
    t = None
    while 0 <= k <= n:
        if t is None or len(terms) % 4096 == 0:
            t = mpmath.exp(_logpmf(n, k, lp, lq))
        terms.append(t)
        if t < tol * terms[0] and len(terms) > 10:
            break
        if upper:
            t = t * (n - k) * em / (k + 1)
            k += 1
        else:
            t = t * k * ep / (n - k + 1)
            k -= 1
    return mpmath.fsum(terms)


def ref_binomial_value(n: int, eps, alpha, digits: int):
    """f_{eps,0}^{(x) n}(alpha) = A_{n+1-j} + (A_j - alpha) e^{eps (2j - n)} on the segment
    A_{j+1} <= alpha <= A_j (A_j = P(K >= j)), j located by scipy.stats.binom and confirmed by
    the reference tails (each summed on the side away from the mode)."""
    from scipy.stats import binom

    p = 1 / (1 + math.exp(float(eps)))
    mode = int((n + 1) * p)

    def A(j):  # P(K >= j), summed from the side away from the mode
        if j > mode:
            return ref_tail(n, eps, j, True, digits)
        return 1 - ref_tail(n, eps, j, False, digits)

    lo, hi = 0, n + 1  # scipy's isf fails deep in the tail: bisection on its sf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if binom.sf(mid - 1, n, p) >= float(alpha):
            lo = mid
        else:
            hi = mid
    j = lo
    for _ in range(20):
        if A(j) < alpha:
            j -= 1
        elif A(j + 1) > alpha:
            j += 1
        else:
            break
    assert A(j + 1) <= alpha <= A(j)
    return A(n + 1 - j) + (A(j) - alpha) * mpmath.exp(eps * (2 * j - n))


def _digits(x, ref) -> float:
    x, ref = mpmath.mpf(x), mpmath.mpf(ref)
    if x == ref:
        return math.inf
    return float(-mpmath.log10(abs(x - ref) / abs(ref)))


def _product_pair(P1, Q1, P2, Q2):
    return [a * b for a in P1 for b in P2], [a * b for a in Q1 for b in Q2]


# -- 1. NumericalError where an answer exists ---------------------------------------------------
@pytest.mark.parametrize("n, dpss", [(3000, (15, 30, 50)), (10**4, (30, 60))])
def test_binomial_delta_near_one(n, dpss):
    """delta(1) of f_{5,0}^{(x) n} is 1 - P(K >= m - 1) - e P(K >= m) (m = n/2 + 1): 1 to
    far more than 60 digits. The finite route used to round a point to 1 + 2^-p, which the
    enclosure check then refused."""
    with workdps(40):
        m = n // 2 + 1  # the first k with (2k - n) 5 > 1
        gap = ref_tail(n, mpmath.mpf(5), m - 1, True, 10) + \
            mpmath.e * ref_tail(n, mpmath.mpf(5), m, True, 10)
        assert gap < mpmath.mpf(10) ** -1000
    for dps in dpss:
        v = ta.delta(BinomialDP(5, n), 1, dps=dps)
        assert v.is_point and v.mid == 1


def test_binomial_delta_large_n_against_log_gamma_sums():
    """A delta that is not 1: f_{1/100,0}^{(x) 10^7} at eps = 1 is 1 - Q(S^c) - e P(S) with
    S = {k >= m}, both tails far (15.8 standard deviations), at 60 digits."""
    n, e0 = 10**7, mpmath.mpf(1) / 100
    v = ta.delta(BinomialDP(R(1, 100), n), 1, dps=60)
    with workdps(90):
        m = n // 2 + 51  # (2k - n)/100 > 1
        gap = ref_tail(n, e0, n - m + 1, True, 70) + mpmath.e * ref_tail(n, e0, m, True, 70)
        want = 1 - gap
        assert 1e-57 < gap < 1e-54
        assert _digits(v.mid, want) >= 58


@pytest.mark.slow
def test_binomial_values_large_n_against_log_gamma_sums():
    """f(alpha) and 1 - f(alpha) of BinomialDP for n above the table route (n = 10^5 and
    10^6), in the bulk and deep in the tail, against the log-gamma reference."""
    cases = [(10**5, R(1, 3), R(1, 2)), (10**5, R(1, 50), R(1, 10**20)),
             (10**6, R(1, 100), R(9, 10))]
    for n, eps, A in cases:
        v = ta.evaluate(BinomialDP(eps, n), A, dps=30)
        with workdps(50):
            want = ref_binomial_value(n, mpmath.mpf(eps.p) / eps.q, mpmath.mpf(A.p) / A.q, 40)
        assert v.is_point and _digits(v.mid, want) >= 29, (n, eps, A, v, want)


def test_zero_factor_power_is_one():
    """roc(BinomialDP(1e-8, 100) (x) 0, 1/2): f (x) 0 = 0 (Def. 5), so the power is 1 exactly
    (the finite route rounded it to 1 + 2^-p and refused). The identity by brute force."""
    f = BinomialDP(R(1, 10**8), 100) @ Zero
    assert ta.roc(f, 0.5).mid == 1
    assert ta.evaluate(f, R(1, 3)).mid == 0
    P, Q = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 10), F(3, 10), F(3, 5)]
    PP, QQ = _product_pair(P, Q, [F(1), F(0)], [F(0), F(1)])
    assert all(finite_np(PP, QQ, F(k, 9)) == 0 for k in range(10))


def test_epsdelta_delta_one():
    """f_{eps,1} is Zero: delta(eps') = 1 for every eps' (the formula summed to 1 + 2^-p)."""
    v = ta.delta(EpsDelta(0.0305444736411411, 1), 0, dps=50)
    assert v.mid == 1


# -- 2. large n or k: answered, or refused at once -------------------------------------------------
@pytest.mark.slow  # ~13 s of CPU; the default run keeps test_binomial_1e7 (the same tail route)
def test_epsdelta_power_1e9_is_binomial():
    """f_{1,0}^{(x) 10^9} = BinomialDP(1, 10^9) (Kairouz, Oh & Viswanath): evaluated from the
    tails it needs, not a table of 10^9 + 1 masses; checked against the log-gamma reference at
    20 digits."""
    v = ta.evaluate(EpsDelta(1, 0) ** 10**9, 0.5)
    assert v.is_point
    assert v.mid == ta.evaluate(BinomialDP(1, 10**9), 0.5).mid
    with workdps(45):  # (log-gamma of 10^9 takes 11 digits; alpha cancels a few more)
        want = ref_binomial_value(10**9, mpmath.mpf(1), mpmath.mpf(1) / 2, 20)
    assert _digits(v.mid, want) >= 19


def test_binomial_1e7():
    v = ta.evaluate(BinomialDP(1, 10**7), 0.5)
    with workdps(50):
        want = ref_binomial_value(10**7, mpmath.mpf(1), mpmath.mpf(1) / 2, 40)
    assert v.is_point and _digits(v.mid, want) >= 29
    assert ta.roc(BinomialDP(1, 10**7), R(1, 10**30)).is_point


def test_binomial_beyond_the_size_limit_is_refused():
    from tradeoff_algebra.families import binomial as bm

    for call in (lambda: ta.evaluate(BinomialDP(1, 10 * bm.MAX_N), 0.5),
                 lambda: ta.delta(BinomialDP(1, 10**40), 1)):
        with pytest.raises(NumericalError, match="MAX_N"):
            call()


def test_epsdelta_power_with_delta():
    """(f_{1,1/1000})^{(x) 10^6} = BinomialDP(1, 10^6) (x) f_{0,D}, 1 - D = (999/1000)^{10^6}
    (Eqs. (10), (11)); by Eq. (12) it is 0 for alpha >= 1 - D (so at 1/2), and
    (1 - D) BinomialDP(alpha/(1 - D)) below."""
    f = EpsDelta(1, R(1, 1000)) ** 10**6
    v = ta.evaluate(f, 0.5)
    assert v.mid == 0 and v.is_point
    A = R(1, 10**500)
    with workdps(60):
        keep = mpmath.exp(10**6 * mpmath.log1p(-mpmath.mpf(1) / 1000))
        assert A < keep
    got = ta.evaluate(f, A, dps=20)
    with workdps(60):
        a2 = (mpmath.mpf(A.p) / A.q) / keep
        inner = ta.evaluate(BinomialDP(1, 10**6), a2, dps=40).mid
        assert _digits(got.mid, keep * inner) >= 19


@pytest.mark.slow  # ~7 s of CPU; the default run keeps the small Discrete pairs of this file
def test_discrete_with_1e5_outcomes():
    """Discrete with 10^5 rational outcomes: the Neyman--Pearson knots in integer arithmetic
    (no SymPy comparison per outcome), delta by bisection over the knots; against the pair
    sorted independently here."""
    import random

    N = 10**5
    rnd = random.Random(7)
    wp = [rnd.randint(1, 100) for _ in range(N)]
    wq = [rnd.randint(0, 100) for _ in range(N)]
    sp_, sq = sum(wp), sum(wq)
    P, Q = [R(x, sp_) for x in wp], [R(x, sq) for x in wq]
    d = Discrete(P, Q)
    A = R(1, 3)
    v = ta.evaluate(d, A)
    # reference: reject in decreasing order of q/p (ties merged), interpolate at A
    atoms: dict = {}
    for p, q in zip(wp, wq, strict=True):
        r = F(q * sp_, p * sq)
        a = atoms.setdefault(r, [0, 0])
        a[0] += p
        a[1] += q
    size = power = F(0)
    for r in sorted(atoms, reverse=True):
        p, q = F(atoms[r][0], sp_), F(atoms[r][1], sq)
        if size + p < A:
            size, power = size + p, power + q
        else:
            power += (A - size) / p * q
            break
    assert v.exact == R(1 - power)
    eps = R(1, 3)
    dv = ta.delta(d, eps, dps=30)
    with workdps(60):
        E = mpmath.exp(mpmath.mpf(1) / 3)
        want = mpmath.fsum(max(mpmath.mpf(q) / sq - E * mpmath.mpf(p) / sp_, 0)
                           for p, q in zip(wp, wq, strict=True))
    assert _digits(dv.mid, want) >= 29


def test_discrete_beyond_the_limit_is_refused():
    from tradeoff_algebra.families import discrete as dm

    with pytest.raises(ta.InvalidParameter, match="MAX_OUTCOMES"):
        Discrete(range(dm.MAX_OUTCOMES + 1), range(dm.MAX_OUTCOMES + 1))


@pytest.mark.parametrize("make, eps", [
    (lambda: Laplace(1) ** 10**9, 37 * 10**7),  # (in the bulk: delta(1) is 1 - e^-huge, proved)
    (lambda: C(R(1, 2), G(1)) ** (10**100), 1),
    (lambda: noisy_sgd(1, R(1, 100), 10**100, "gdp_paper"), 1),
], ids=["laplace-1e9", "subsampled-1e100", "noisy-sgd-1e100"])
def test_pld_beyond_the_grid_is_refused_at_once(make, eps):
    """Products whose composed loss needs more FFT bins than the engine allows are refused at
    once with a TradeOffError naming the limit (they used to raise MemoryError, numpy or
    OverflowError)."""
    f = make()
    calls = [lambda: ta.delta(f, eps)]
    if not isinstance(f, type(Laplace(1) ** 2)) or f.is_symmetric is not True:
        calls.append(lambda: ta.evaluate(f, 0.5))
    for call in calls:
        with pytest.raises(TradeOffError, match="MAX_FFT") as exc:
            call()
        assert not isinstance(exc.value, (MemoryError, OverflowError))


def test_a_symmetric_product_beyond_the_grid_is_bounded_by_its_factors():
    """f(1/2) of Laplace(1)^{(x) 10^9} is not refused any more: the band of its certified profile
    (routes/profile_curve.py) resolves nothing at such a small value, and the factor bound
    f <= L_1 (Dong, Roth & Su, Sec. 3.1) decides the enclosure, certified, with a warning."""
    import warnings

    f = Laplace(1) ** 10**9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = ta.evaluate(f, R(1, 2))
    assert v.guarantee == "certified" and v.lo >= 0
    with mpmath.workdps(40):  # L_1(1/2) = e^{-1} (1 - 1/2) (alpha >= e^{-1}/2: the linear part)
        assert v.hi <= mpmath.e ** -1 / 2 * (1 + mpmath.mpf(10) ** -20)
    assert any(issubclass(w.category, ta.ToleranceWarning) for w in caught)


def test_shuffle_beyond_the_limit_is_refused_at_once():
    f = ShuffleDP(1, 10**400)
    for call in (lambda: ta.evaluate(f, 0.5), lambda: f.curve([0.5]),
                 lambda: ta.evaluate(f @ G(1), 0.5), lambda: ta.delta(f, R(1, 2)),
                 lambda: ta.evaluate(shuffle(1, 10**400, bound="wang"), 0.5)):
        with pytest.raises(NumericalError, match="MAX_N"):
            call()
    assert ta.delta(f, 1).mid == 0  # eps >= eps0: every ratio is at most e^eps0
    with pytest.raises(NumericalError, match="MAX_POINTS"):
        ta.evaluate(ShuffleDP(1, 10**8), 0.5)


# -- 3. trees that cheap rules settle -------------------------------------------------------------
def test_product_with_zero_at_zero():
    f = PiecewiseLinear([(0, 1), (R(1, 2), 0), (1, 0)]) ** 10000 @ Zero
    for A in (0, R(1, 2), 1):
        assert ta.evaluate(f, A).mid == 0
    assert ta.roc(f, 0).mid == 1


def test_value_at_zero_is_the_product_of_values_at_zero():
    """(f (x) g)(0) = f(0) g(0): by brute force on finite pairs, then the tree of the issue,
    settled without the PLD engine."""
    P1, Q1 = [F(0), F(1, 2), F(1, 2)], [F(1, 3), F(1, 3), F(1, 3)]
    P2, Q2 = [F(0), F(1, 2), F(1, 2)], [F(1, 4), F(1, 4), F(1, 2)]
    PP, QQ = _product_pair(P1, Q1, P2, Q2)
    assert finite_np(PP, QQ, 0) == finite_np(P1, Q1, 0) * finite_np(P2, Q2, 0) == F(1, 2)
    f = Inverse(Laplace(R(257, 125))) @ Max(Discrete([0, 1], [1, 0]), G(R(1, 2)))
    v = ta.evaluate(f, 0)
    assert v.lo == v.hi == 1
    g = Discrete([0, R(1, 2), R(1, 2)], [R(1, 3), R(1, 3), R(1, 3)]) @ G(1)
    v = ta.evaluate(g, 0)
    assert _digits(v.mid, mpmath.mpf(2) / 3) >= 29
    r = ta.roc(g, 0)
    assert _digits(r.mid, mpmath.mpf(1) / 3) >= 29


# -- 4. f_{0,delta} factors by Eq. (12) -----------------------------------------------------------
def test_eq12_by_brute_force():
    """(f (x) f_{0,d})(alpha) = (1 - d) f(alpha/(1 - d)) on [0, 1 - d], 0 beyond (Dong, Roth & Su,
    Eq. (12)), and delta = d + (1 - d) delta_f: brute force on a finite pair, and the package's
    values of the same products (a PLD factor and a closed form beside f_{0,d})."""
    P, Q = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 10), F(3, 10), F(3, 5)]
    for d in (F(1, 10), F(1, 3)):
        PP, QQ = _product_pair(P, Q, [d, 1 - d, F(0)], [F(0), 1 - d, d])
        for k in (0, 5, 15, 16):
            A = F(k, 17)
            want = (1 - d) * finite_np(P, Q, A / (1 - d)) if A <= 1 - d else 0
            assert finite_np(PP, QQ, A) == want
        # delta(eps) at e^eps = 2: sup_S Q(S) - 2 P(S) over all S, exactly
        dl = max(sum(q for q, s in zip(QQ, S, strict=True) if s)
                 - 2 * sum(p for p, s in zip(PP, S, strict=True) if s)
                 for S in product((0, 1), repeat=len(PP)))
        d1 = max(sum(q for q, s in zip(Q, S, strict=True) if s)
                 - 2 * sum(p for p, s in zip(P, S, strict=True) if s)
                 for S in product((0, 1), repeat=len(P)))
        assert dl == d + (1 - d) * d1
        g = Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 10), R(3, 10), R(3, 5)]) @ \
            EpsDelta(0, R(d.numerator, d.denominator))
        v = ta.delta(g, sp.log(2))
        assert _digits(v.mid, mpmath.mpf(dl.numerator) / dl.denominator) >= 29


@pytest.mark.parametrize("f", [G(1), Laplace(1), G(1) @ Laplace(R(1, 2))], ids=str)
def test_product_with_f0delta_vanishes_beyond_one_minus_delta(f):
    """It took 50-85 s to enclose 0 on the PLD route."""
    g = f @ EpsDelta(0, R(1, 10))
    for A in (R(9, 10), R(95, 100), R(999, 1000)):
        v = ta.evaluate(g, A)
        assert v.is_point and v.mid == 0
        assert ta.roc(g, A).mid == 1


def test_laplace_with_f0delta_is_as_tight_as_laplace():
    """Laplace(1) (x) f_{0,1/10} at 0.3 and 0.7: 0.9 L_1(alpha/0.9) to every digit (was
    [0.24832, 0.61555] and [0.0736, 0.3]); the reference is the Laplace Neyman--Pearson test
    at 40 digits; delta is 1/10 + 9/10 delta_L."""
    g = Laplace(1) @ EpsDelta(0, R(1, 10))
    for A in (0.3, 0.7, R(1, 3), R(1, 10**12)):
        v = ta.evaluate(g, A, dps=30)
        r = ta.roc(g, A, dps=30)
        with workdps(40):
            a = F(A) if isinstance(A, float) else F(int(A.p), int(A.q))
            want = mpmath.mpf(9) / 10 * laplace_np(1, a / F(9, 10))
            want_roc = 1 - want if a > F(1, 100) else \
                mpmath.mpf(1) / 10 + mpmath.mpf(9) / 10 * laplace_np(1, a / F(9, 10), roc=True)
        assert v.is_point and _digits(v.mid, want) >= 29
        assert r.is_point and _digits(r.mid, want_roc) >= 29
    for eps in (0, R(1, 2), 2):
        dv = ta.delta(g, eps, dps=30)
        with workdps(50):
            want = mpmath.mpf(1) / 10 + mpmath.mpf(9) / 10 * ta.delta(Laplace(1), eps, dps=40).mid
        assert dv.is_point and _digits(dv.mid, want) >= 29


def test_id_factor_does_not_widen_the_pld():
    from tradeoff_algebra.numeric import pld

    h = 2.0**-9
    alone = pld.value_enclosure(((G(0.25), 1),), 0.75, h=h)
    with_id = pld.value_enclosure(((G(0.25), 1), (EpsDelta(0, 0), 1)), 0.75, h=h)
    assert with_id == alone and alone[1] - alone[0] < 1e-6
    # f_{0,d} enters exactly too: its scaling by (1 - d), not a grid
    lo, hi = pld.value_enclosure(((G(0.25), 1), (EpsDelta(0, R(1, 10)), 1)), 0.675, h=h)
    with workdps(30):
        want = float(mpmath.mpf(9) / 10 * ta.evaluate(G(0.25), R(3, 4)).mid)
    assert lo <= want <= hi and hi - lo < 1e-6


# -- 5. Wang et al.'s Thm. 4.2 bound --------------------------------------------------------------
def _wang_delta_literal(E: F, n: int, eE: F) -> F:
    """delta of C(f_Shuffle) at e^eps = eE from the literal pair (P0, Q0): the larger of the
    hockey-stick divergences of the two directions of f_Shuffle = T(P0, R), R = 2w P0 +
    (1 - 2w) Q0 (the conjugate of the hull of the minimum is the maximum of the conjugates)."""
    w = 1 / (E + 1)
    P0, Q0 = shuffle_p0_q0(E, n)
    pts = set(P0) | set(Q0)
    p0 = {k: F(P0.get(k, 0)) for k in pts}
    r = {k: 2 * w * p0[k] + (1 - 2 * w) * F(Q0.get(k, 0)) for k in pts}
    d1 = sum(max(r[k] - eE * p0[k], 0) for k in pts)
    d2 = sum(max(p0[k] - eE * r[k], 0) for k in pts)
    return max(d1, d2)


@pytest.mark.parametrize("E, n", [(F(3), 6), (F(5, 2), 20), (F(9), 40)])
def test_wang_bound_delta_against_literal_pair(E, n):
    """Exact (rational e^eps0, e^eps = 2 and 3/2) against the literal pair; it took 12 s at
    n = 6 and 173 s at n = 20 through the generic conjugate of the hull."""
    f = shuffle(sp.log(R(E.numerator, E.denominator)), n, bound="wang")
    for eE in (F(2), F(3, 2)):
        v = ta.delta(f, sp.log(R(eE.numerator, eE.denominator)))
        want = _wang_delta_literal(E, n, eE)
        with workdps(40):
            assert _digits(v.mid, mpmath.mpf(want.numerator) / want.denominator) >= 29


def test_wang_bound_values_against_literal_hull_and_exact_pair():
    """C(f_Shuffle) as the literal expression SymmetricHull(Mix(Discrete(P0, Q0), 1 - 2w))
    (the exact hull route) agrees exactly, and lies below T(P, Q) of the literal pair."""
    from tradeoff_algebra import Mix, SymmetricHull
    from tradeoff_algebra.families.shuffle import shuffle_pair0

    for E, n in [(R(3), 3), (R(5, 2), 6)]:
        e0 = sp.log(E)
        _, P0, Q0 = shuffle_pair0(e0, n)
        literal = SymmetricHull(Mix(Discrete(P0, Q0), 1 - 2 / (E + 1)))
        f = shuffle(e0, n, bound="wang")
        _, P, Q = literal_pair(F(int(E.p), int(E.q)), n)
        for k in range(14):
            A = R(k, 13)
            v = ta.evaluate(f, A).exact
            assert v == ta.evaluate(literal, A).exact
            assert v <= ta.evaluate(ShuffleDP(e0, n), A).exact
            if n <= 3 and k % 4 == 1:  # brute force over every test of the literal pair
                t = finite_np(P, Q, F(k, 13))
                assert v <= R(t.numerator, t.denominator)


def test_wang_bound_arb_route_against_exact_route():
    """Above the exact route's n the Arb table serves the bound; below it both exist: the
    table's enclosure (called directly) contains the exact value."""
    from tradeoff_algebra.families import shuffle as sh
    from tradeoff_algebra.numeric.finite import finite_loss

    f = ShuffleDP(sp.log(R(11, 10)), 30, bound="wang")
    fl = finite_loss(f)
    with workdps(30):
        from tradeoff_algebra.numeric.context import mp as lmp

        for k in range(1, 13):
            A = R(k, 13)
            lo, hi = sh._eval(f, lmp.mpf(k) / 13, lmp.mpf(13 - k) / 13, False)
            ex = fl.value(A)
            assert lo <= lmp.mpf(ex.p) / ex.q * (1 + lmp.mpf(10) ** -25) + lmp.mpf(10) ** -40
            assert hi >= lmp.mpf(ex.p) / ex.q * (1 - lmp.mpf(10) ** -25)


def _cor43_delta(e0: float, n: int, eps: float) -> float:
    """Wang et al., Cor. 4.3 in float64 (as in proofs/wang.py): (1 - 2w) Q0(S) - (e^eps - 2w)
    P0(S), S = {b/a > r*}, r* = (e^eps - 2w)/(1 - 2w), from scipy's binomial distribution
    functions of the slices c ~ Binom(n - 1, 2w)."""
    import numpy as np
    from scipy.stats import binom

    E = math.exp(e0)
    w = 1 / (E + 1)
    r = (math.exp(eps) - 2 * w) / (1 - 2 * w)
    c = np.arange(n)
    wc = binom.pmf(c, n - 1, 2 * w)
    P0S = float(np.sum(wc * binom.cdf(np.ceil((c - r) / (1 + r)) - 1, c, 0.5)))
    Q0S = float(np.sum(wc * binom.cdf(np.ceil((c + 1) / (1 + r)) - 1, c, 0.5)))
    return (1 - 2 * w) * Q0S - (math.exp(eps) - 2 * w) * P0S


def test_wang_bound_table1_n_1e4():
    """Wang et al., Table 1 (eps0 = 4.444, n = 10^4): the bound's delta matches Cor. 4.3
    recomputed in float64 (proofs/wang.py) to 1e-6 and the printed values to their digit, lies
    above the exact pair's delta, in seconds."""
    printed = {0.5: 3e-6, 0.7: 4e-9, 1.0: 2e-14}
    f = shuffle(R(1111, 250), 10**4, bound="wang")
    exact = shuffle(R(1111, 250), 10**4)
    for eps, pd in printed.items():
        v = ta.delta(f, sp.Rational(str(eps)), dps=15)
        d = _cor43_delta(4.444, 10**4, eps)
        assert abs(float(v.mid) - d) <= 1e-6 * d
        assert 0.5 * pd <= float(v.mid) <= 1.5 * pd
        assert ta.delta(exact, sp.Rational(str(eps)), dps=15).mid <= v.mid


def test_wang_rule_and_printing():
    f = shuffle(1, 5, bound="wang")
    assert f == ShuffleDP(1, 5, "wang") and f.func(*f.args) == f and f.wang
    assert str(f) == "shuffle(1, 5, bound='wang')"
    from tradeoff_algebra.parse import parse_expr

    assert parse_expr(str(f)) == f
    E = sp.exp(sp.log(3))
    assert ta.simplify(shuffle(sp.log(3), 1, bound="wang")) == EpsDelta(0, (E - 1) / (E + 1))
    assert ta.simplify(shuffle(0, 7, bound="wang")) == ta.Id
    # n = 1: C(f_Shuffle) = max(0, 2w - alpha) = f_{0, 1 - 2w} (the literal hull agrees)
    g = ShuffleDP(sp.log(3), 1, "wang")
    for k in range(11):
        A = R(k, 10)
        assert ta.evaluate(g, A).exact == max(R(1, 2) - A, 0)


def test_shuffle_window_beyond_the_point_limit_gives_a_wider_enclosure(monkeypatch):
    """When the window at the target precision keeps more than MAX_POINTS points (eps0 = 1,
    n = 10^4 keeps 2.3 million at dps 15), a larger dropped mass is accepted: the result is an
    enclosure that contains the certified value computed without the limit. (The table of
    atoms serves f(alpha); delta sums the slices without it.)"""
    import tradeoff_algebra.families.shuffle as shuffle
    import tradeoff_algebra.families.shuffle_pair as sh

    # (the threshold tails of families/shuffle_roc answer f(alpha) without the table now:
    # declined, so that the table's window limit is what is tested)
    monkeypatch.setattr(shuffle, "shuffle_power", lambda *args, **kw: None)

    f, alpha = ShuffleDP(1, 300), sp.Rational(1, 10)
    exact = ta.evaluate(f, alpha, dps=20)
    assert exact.lo == exact.hi and exact.is_certain
    assert sh._npoints(1.0, 300, 60) < sh._npoints(1.0, 300, 66 + 24 + 48)
    monkeypatch.setattr(sh, "MAX_POINTS", sh._npoints(1.0, 300, 60))
    monkeypatch.setattr(sh, "_TABLES", {})
    v = ta.evaluate(f, alpha, dps=20)
    assert v.lo <= exact.lo <= v.hi and 0 < v.hi - v.lo < 1e-9
    monkeypatch.setattr(sh, "MAX_POINTS", 10)
    with pytest.raises(NumericalError, match="MAX_POINTS"):
        ta.evaluate(f, alpha, dps=20)


@pytest.mark.parametrize("upper", [True, False])
def test_binned_parts_bound_the_mgf(upper):
    """The theta search of the Chernoff cut runs on binned parts whose MGF dominates the true
    one for every theta of the tail's sign (so every bound from them holds)."""
    import numpy as np

    from tradeoff_algebra.numeric import pld_compose as pld

    rng = np.random.default_rng(1)
    l = np.sort(rng.normal(0, 3, 20_000))
    la = rng.normal(-10, 2, l.size)
    parts = [(la, l, 7), (la[:100], l[:100], 2)]
    coarse = pld._coarse(parts, upper)
    assert len(coarse[0][1]) <= pld._COARSE_BINS + 1 and coarse[1][1] is parts[1][1]
    for th in (1e-3, 0.1, 1.0, 5.0, 30.0):
        th = th if upper else -th
        assert pld._logmgf(coarse, th) >= pld._logmgf(parts, th) - 1e-9


def _gauss_times_pair(mu, P, Q, alpha, dps=60):
    """T(N(0,1) x P, N(mu,1) x Q)(alpha) by Neyman-Pearson at high precision: the loss is
    mu x - mu^2/2 + log(Q_j/P_j); bisection on the threshold t for the level alpha."""
    with mpmath.workdps(dps):
        mu = mpmath.mpf(mu)
        lr = [mpmath.log(mpmath.mpf(q) / p) for p, q in zip(P, Q, strict=True)]

        def size(t):
            return sum(p * mpmath.ncdf(-(t - r + mu**2 / 2) / mu) for p, r in zip(P, lr,
                                                                               strict=True))

        lo, hi = mpmath.mpf(-10**4), mpmath.mpf(10**4)
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if size(mid) > alpha else (lo, mid)
        t = (lo + hi) / 2
        return sum(q * mpmath.ncdf((t - r - mu**2 / 2) / mu) for q, r in zip(Q, lr, strict=True))


@pytest.mark.parametrize("mu,eps", [(40, 21), (30, 5), (20, 1)])
def test_large_mu_products_are_enclosed_not_wrong(mu, eps):
    """Products with G_mu for large mu have privacy losses near mu^2/2 (800 for mu = 40), beyond
    float64's exponent range: the engine keeps its grid in [-LOSS_CAP, LOSS_CAP] and the value
    is bounded by each factor (f (x) g <= f). Before, G(40) (x) f_{21,0} at 1/2 came back as the
    point 0.98794... (truth 1.8e-350)."""
    f = G(mu) @ EpsDelta(eps, 0)
    E = mpmath.e ** eps
    P, Q = [E / (1 + E), 1 / (1 + E)], [1 / (1 + E), E / (1 + E)]
    for alpha in (sp.Rational(1, 2), sp.Rational(1, 10**6)):
        ref = _gauss_times_pair(mu, P, Q, mpmath.mpf(alpha))
        v = ta.evaluate(f, alpha)
        g = ta.evaluate(G(mu), alpha)
        assert v.lo <= ref <= v.hi <= g.hi * (1 + 1e-14)
        r = ta.roc(f, alpha)
        assert r.lo <= 1 - ref <= r.hi


def test_pld_value_cap_rounds_up_near_one():
    """f(alpha) <= 1 - alpha was applied as the float 1.0 - alpha rounded to nearest, which for
    alpha = 1e-16 is 1 - 2^-53 < 1 - 1e-16: an enclosure that excluded the truth. The truth
    for L_mu (x) L_mu with mu = 1e-20 lies in [1 - e^{2 mu} alpha, 1 - alpha]."""
    a = sp.Rational(1, 10**16)
    mu = sp.Rational(1, 10**20)
    v = ta.evaluate(ta.Laplace(mu) @ ta.Laplace(mu), a)
    hi = sp.Rational(*mpmath.libmp.to_rational(v.hi._mpf_))
    assert hi >= 1 - a * sp.Rational(10000001, 10000000)  # above the truth's lower end
    # L_0 is Id (rule laplace_zero): exact
    assert ta.evaluate(ta.Laplace(0) @ ta.Laplace(0), a).exact == 1 - a


def test_factor_that_is_id_to_the_working_precision():
    """G_{1e-272} inside a product: f >= f_{0, TV(f)} (TV = 2 Phi(mu/2) - 1 ~ 4e-273), so the
    product lies between L_1 (x) f_{0,TV} and L_1 (Eq. (12)); at 30 digits it is L_1's value
    (was a trivial enclosure after 139 s)."""
    import mpmath

    tiny = ta.G(sp.Rational(1, 10**272))
    for f in (tiny @ ta.Laplace(1), tiny**3 @ ta.Laplace(1) @ ta.G(sp.Rational(1, 10**280))):
        for a in ("1e-5", "0.3", "0.9"):
            v, ref = ta.evaluate(f, a, dps=30), ta.evaluate(ta.Laplace(1), a, dps=30)
            assert v.is_point and v.mid == ref.mid
            r, rref = ta.roc(f, a, dps=30), ta.roc(ta.Laplace(1), a, dps=30)
            assert r.is_point and r.mid == rref.mid
        d, dref = ta.delta(f, 0.5, dps=30), ta.delta(ta.Laplace(1), 0.5, dps=30)
        assert d.is_point and d.mid == dref.mid
    # only negligible factors: f_{0,D} <= product <= Id
    g = tiny @ ta.Max(tiny, ta.G(sp.Rational(1, 10**290)))
    v = ta.evaluate(g, "0.25", dps=20)
    with mpmath.workdps(30):
        assert v.lo <= mpmath.mpf("0.75") <= v.hi and v.width < 1e-250


def test_value_prints_astronomically_small_numbers():
    """The closed-form delta of G_{2e-272} at eps = 1/10 is about 1e-(4.3e541): its decimal
    exponent has 541 digits; the interval prints (it used to overflow)."""
    f = ta.G(sp.Rational(1, 10**272)) ** 5
    v = ta.delta(f, sp.Rational(1, 10))
    s = str(v)
    assert s.startswith("[0.0, ") and s.endswith("]")
    exponent = s[:-1].split("e-")[1]
    assert exponent.isdigit() and len(exponent) == 541  # (1/10)^2/(2 mu^2) log10(e), mu^2 = 5e-544


def test_epsilon_beyond_4096_for_a_long_pure_composition():
    """f_{1,0}^{(x) 10^4} at delta = 1e-6: eps = 5038.0032... (the generic search stopped at
    4096 and answered [4096, oo]). Reference: the exact hockey-stick sum over the binomial pair
    (Dong, Roth & Su, Prop. 6; Kairouz et al.) brackets the answer at 5038.0031 / 5038.0033."""
    import mpmath

    n = 10**4
    v = ta.epsilon(ta.EpsDelta(1, 0) ** n, sp.Rational(1, 10**6), dps=15)

    def delta(eps):
        with mpmath.workdps(40):
            e0 = mpmath.mpf(1)
            norm = (1 + mpmath.e) ** n
            total = mpmath.mpf(0)
            for k in range(n + 1):
                loss = (2 * k - n) * e0
                if loss <= eps:
                    continue
                P = mpmath.binomial(n, k) * mpmath.exp((n - k) * e0) / norm
                Q = mpmath.binomial(n, k) * mpmath.exp(k * e0) / norm
                total += Q - mpmath.exp(eps) * P
            return total

    assert delta(mpmath.mpf("5038.0031")) > 1e-6 > delta(mpmath.mpf("5038.0033"))
    assert 5038.0031 < float(v.lo) <= float(v.hi) < 5038.0033


def test_identity_factors_leave_the_product():
    """Mix(f, 0) is Id: the hull of a product of them has epsilon 0 (was the enclosure
    [0, oo]), and they do not change a product's value."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import AddRemove, G, Mix

    assert ta.epsilon(AddRemove(Mix(G(1), 0) ** 5), 1e-5).hi == 0
    a = ta.epsilon(AddRemove(Mix(G(1), 0) ** 5 @ Mix(G(1), 0.5) ** 3), 1e-5, dps=6)
    b = ta.epsilon(AddRemove(Mix(G(1), 0.5) ** 3), 1e-5, dps=6)
    assert a.lo <= b.hi and b.lo <= a.hi


def test_fuzz_findings_optimistic_tail_and_negligible_power():
    """Found by the random-tree run: (1) the shuffle model parks its dropped tail (<= 1e-40) at
    +oo, which the optimistic side kept, so delta of (Mix(ShuffleDP(1/1000, 2), 2/3))^5 at
    3/5 (truth 0: every loss is below 1/1000 * 5) came back as [3.3e-40, 3.3e-40]; (2) the
    power of a product that is Id to working precision was formed as 1 - (1 - alpha) and read
    0 at alpha = 1e-278 (truth >= alpha)."""
    import mpmath

    import tradeoff_algebra as ta
    from tradeoff_algebra import Laplace, Mix, ShuffleDP, TensorPower

    R = sp.Rational
    v = ta.delta(TensorPower(Mix(ShuffleDP(R(1, 1000), 2), R(2, 3)), 5), R(3, 5), 50)
    assert v.lo == 0
    r = ta.roc(TensorPower(Laplace(1e-91), 5), 1e-278, 30)
    assert r.lo <= mpmath.mpf(1e-278) <= r.hi and r.lo > 0


def test_fuzz_findings_nearly_identity_operator_leaves():
    """Operator leaves that are nearly Id (TV bounded through their structure) leave a product
    through the sandwich, and curve() returns the value, not the midpoint of a trivial
    enclosure: Symmetrize(Mix(ShuffleDP(50, 20), 1e-85)) (x) g is g to 1e-84."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import EpsDelta, Max, Mix, PiecewiseLinear, ShuffleDP, Symmetrize

    R = sp.Rational
    g = Max(EpsDelta(R(1, 10), R(1, 20)), PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)]))
    f = Symmetrize(Mix(ShuffleDP(50, 20), 1e-85)) @ g
    for a in (0, R(1, 10), R(3, 4)):
        v, w = ta.evaluate(f, a, 20), ta.evaluate(g, a, 20)
        assert abs(float(v.mid) - float(w.mid)) <= 1e-18 and v.width < 1e-18
    y = ta.curve(f, [0.0, 0.1, 0.75])
    assert abs(y[1] - float(ta.evaluate(g, R(1, 10), 20).mid)) < 1e-9  # curve: 10 digits


def test_an_operator_factor_equal_to_f_0_delta_enters_by_eq_12():
    """C_{1/3} of a pair that differs only by singular mass is f_{0, 25/78} exactly (its knots);
    in a product it enters by Eq. (12): the issue's reproducer C(1/3, Discrete(...)) (x) G(1)
    at 0.1 was an error, then the trivial [0, 0.611] after 11 s; now the point value of
    f_{0,25/78} (x) G(1) at once."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import C, Discrete, EpsDelta, G, Laplace

    R = sp.Rational
    c = C(R(1, 3), Discrete([R(2, 7), R(5, 7), 0], [R(3, 104), R(1, 104), R(25, 26)]))
    for g in (G(1), Laplace(1)):
        v, w = ta.evaluate(c @ g, "0.1", 20), ta.evaluate(EpsDelta(0, R(25, 78)) @ g, "0.1", 20)
        assert v.is_point and v.mid == w.mid


def test_fuzz_findings_epsilon_of_products_with_negligible_leaves_and_cheap_maxima():
    """Found by the random-tree run: (1) eps of a product with a leaf that is Id to 1e-265
    went to the PLD engine with that leaf and came back [0, oo] after 18 s; it now goes
    through the sandwich eps_rest(d) <= eps(d) <= eps_rest((d - D)/(1 - D)); (2) eps at
    delta = 1 is 0 for every f (delta_f(0) <= 1); (3) a maximum with an argument that is Id by
    a registered identity (C_0(g) = Id) is Id: its eps took more than a minute."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import BinomialDP, C, EpsDelta, G, Laplace, Max, ShuffleDP

    R = sp.Rational
    g = Max(EpsDelta(R(1, 100000), R(9999999, 10000000)), BinomialDP(R(91, 50), 22))
    f = g @ G(1e-265)
    v, w = ta.epsilon(f, R(1, 2), 20), ta.epsilon(g, R(1, 2), 20)
    assert v.lo <= w.lo and w.hi <= v.hi and v.width <= w.width + 1e-15 < 1e-12
    assert ta.epsilon(f, 1).hi == 0 and ta.epsilon(Laplace(3) @ G(2), 1).hi == 0
    x = Laplace(R(18, 5)) @ ShuffleDP(sp.log(R(17, 5)), 20)
    h = Max(C(0, G(R(1, 10**12))), x)
    assert ta.epsilon(h, R(1, 10**100)).hi == 0
    assert ta.evaluate(h, R(1, 3)).mid == ta.evaluate(ta.Id, R(1, 3)).mid


def test_fuzz_findings_closed_form_points_rounded_past_one():
    """f_{eps0,1} is Zero; its closed-form delta at eps < eps0 sums terms of size e^eps0 = 2e16
    and rounds to 1 - 2.6e-26 or 1 + 1e-40 (a point, correct to its digits): one past 1 was
    intersected with [0, 1] into an empty enclosure and raised "enclosure left [0, 1]" (found by
    the random-tree run for Mix(Symmetrize(EpsDelta(37.49590074544399, 1)), 1) at dps 15)."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import EpsDelta, Mix, Symmetrize

    e = sp.log(sp.Rational(37, 10))
    for f in (EpsDelta(37.49590074544399, 1), Mix(Symmetrize(EpsDelta(37.49590074544399, 1)), 1)):
        for dps in (15, 20, 30):
            v = ta.delta(f, e, dps)
            assert v.lo <= 1 <= v.hi + sp.Float(10) ** -dps and v.hi <= 1


def test_fuzz_findings_ends_crossing_by_rounding_and_vanishing_points():
    """(1) Enclosures whose ends cross by a rounding of the working precision (a point of 1 +
    1e-40 under Eq. (12), a product's roc at 1 - 2e-27) were "left [0, 1]" errors; their ends
    are joined. (2) A point value whose truth is 0 computed as noise that shrinks with the
    precision never agreed with itself ("cancels beyond 4224 digits"): it is now the enclosure
    [0, noise]. (3) PiecewiseLinear([(0, 1), (1, 0)]) is Id by a registered identity."""
    import mpmath

    import tradeoff_algebra as ta
    from tradeoff_algebra import (
        BinomialDP,
        C,
        EpsDelta,
        G,
        Group,
        Laplace,
        PiecewiseLinear,
        ShuffleDP,
        Symmetrize,
    )
    from tradeoff_algebra.numeric.context import mp
    from tradeoff_algebra.numeric.protocol import certified

    R = sp.Rational
    f = BinomialDP(sp.log(R(33, 10)), 50) @ EpsDelta(34.18136195396871, 0) @ C(R(21, 100),
                                                                                G(R(1, 10**26)))
    g = BinomialDP(sp.log(R(33, 10)), 50) @ EpsDelta(34.18136195396871, 0)
    for e in (R(18, 5), R(1, 1000)):
        v, w = ta.delta(f, e, 15), ta.delta(g, e, 15)
        assert v.lo <= w.lo and w.hi <= v.hi + sp.Float(10) ** -14 and v.hi <= 1
    h = Symmetrize(EpsDelta(50, R(1, 10)) @ Group(Laplace(R(1, 10**22)), 3)
                   @ ShuffleDP(sp.log(R(37, 10)), 1) ** 18)
    r = ta.roc(h, R(55, 408), 15)
    assert R(55, 408) <= r.lo <= r.hi <= 1

    def noise():  # a difference whose true value is 0, resolved to the working precision
        return (mp.ldexp(1, -mp.prec),) * 2

    v = certified(noise, 30, lambda: "noise")
    assert v.lo == 0 and 0 < v.hi < mpmath.mpf(10) ** -500
    assert ta.simplify(PiecewiseLinear([(0, 1), (1, 0)])) == ta.Id
    # delta vanishes at eps = eps0 = 1/1000, which no mpf is: proved at the two mpfs around it
    # (delta is non-increasing), the certified enclosure [0, delta(1/1000 rounded down)]
    d = ta.delta(PiecewiseLinear([(0, 1), (1, 0)]) @ ShuffleDP(R(1, 1000), 2), R(1, 1000), 100)
    assert d.is_certain and d.lo == 0 and d.hi < mpmath.mpf(10) ** -120
