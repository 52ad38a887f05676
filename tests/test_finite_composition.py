"""Exact composition of finite trade-off functions (tradeoff_algebra.numeric.finite).

References, independent of the module:
* brute force: the product distributions enumerated outcome by outcome (exact Fractions, or
  mpf at 90 digits for irrational e^eps), Neyman-Pearson by sorting outcomes on Q/P and filling
  the level greedily, and delta(eps) = 1 - min over the knots of (e^eps alpha + beta)
  (Dong, Roth & Su, Prop. 6 through the conjugate, not the hockey-stick sum);
* the BinomialDP family's own routes (exact integer tails, pmf recurrence) for f_{eps,0}^{(x) n},
  with f_{eps,delta}^{(x) n}(alpha) = (1 - D) f_{eps,0}^{(x) n}(alpha/(1 - D)),
  D = 1 - (1 - delta)^n (Eqs. (10), (11));
* delta(eps) of f_{eps0,0}^{(x) n} for large n from log-gamma pmf terms summed at high precision.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import (
    BinomialDP,
    Discrete,
    EpsDelta,
    G,
    Id,
    InvalidParameter,
    PiecewiseLinear,
    Tensor,
    TensorPower,
    Zero,
)
from tradeoff_algebra.numeric.finite import FiniteLoss, finite_loss


# -- brute force ----------------------------------------------------------------------------------
def epsdelta_pair(E, d):
    """The four-point pair of f_{eps,delta} (Prop. 3) with e^eps = E."""
    one = E / E
    return ([d, (one - d) * E / (1 + E), (one - d) / (1 + E), 0 * one],
            [0 * one, (one - d) / (1 + E), (one - d) * E / (1 + E), d])


def outcomes(pairs):
    """All (p, q) of the product distributions."""
    out = []
    for idx in product(*[range(len(P)) for P, _ in pairs]):
        p = q = 1
        for (P, Q), i in zip(pairs, idx, strict=True):
            p, q = p * P[i], q * Q[i]
        if p != 0 or q != 0:
            out.append((p, q))
    return out


def _sorted(outs):
    inf = float("inf")
    return sorted(outs, key=lambda t: -(inf if t[0] == 0 else t[1] / t[0]))


def brute_value(outs, a):
    size = power = 0 * a
    for p, q in _sorted(outs):
        if p == 0:
            power += q
        elif size + p <= a:
            size, power = size + p, power + q
        else:
            power += (a - size) / p * q
            break
    return 1 - power


def brute_delta(outs, E):
    """1 - min over the Neyman-Pearson knots of (E alpha + beta)."""
    alpha, beta = 0 * E, 1 + 0 * E
    best = E * alpha + beta
    for p, q in _sorted(outs):
        alpha, beta = alpha + p, beta - q
        best = min(best, E * alpha + beta)
    return 1 - best


def _q(x):
    return sp.Rational(x.numerator, x.denominator)


GRID = [F(k, 17) for k in range(18)] + [F(1, 10**12), 1 - F(1, 10**12), F(3, 10)]


# -- exact (rational) routes ---------------------------------------------------------------------
@pytest.mark.parametrize("E,d", [(F(2), F(0)), (F(2), F(1, 10)), (F(3, 2), F(1, 7))])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_epsdelta_power_exact_against_brute_force(E, d, n):
    L = finite_loss(TensorPower(EpsDelta(sp.log(_q(E)), _q(d)), n))
    assert L.is_rational
    outs = outcomes([epsdelta_pair(E, d)] * n)
    for a in GRID:
        assert L.value(_q(a)) == _q(brute_value(outs, a))
    for Eq in [F(1), F(3, 2), F(2), F(5), F(100)]:
        assert L.delta_exact(_q(Eq)) == _q(brute_delta(outs, Eq))
    # the atoms are sorted, merged and sum to 1 on both sides
    at = L.atoms()
    assert sum(p for _, p, _ in at) == 1 and sum(q for _, _, q in at) == 1
    ratios = [r for r, _, _ in at]
    assert ratios == sorted(ratios, reverse=True) and len(set(ratios)) == len(ratios)


def test_heterogeneous_exact_against_brute_force():
    P1, Q1 = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 6), F(1, 3), F(1, 2)]
    knots = [(0, F(4, 5)), (F(1, 5), F(2, 5)), (F(3, 5), F(1, 10)), (1, 0)]
    f = Tensor(EpsDelta(sp.log(2), sp.Rational(1, 10)), EpsDelta(sp.log(3), sp.Rational(1, 20)),
               Discrete([_q(x) for x in P1], [_q(x) for x in Q1]),
               PiecewiseLinear([(_q(F(a)), _q(F(v))) for a, v in knots]),
               EpsDelta(sp.log(2)))
    L = finite_loss(f)
    # the pair of the piecewise-linear factor: pieces as outcomes, 1 - f(0) at P = 0
    pl = ([0, F(1, 5), F(2, 5), F(2, 5)], [F(1, 5), F(2, 5), F(3, 10), F(1, 10)])
    outs = outcomes([epsdelta_pair(F(2), F(1, 10)), epsdelta_pair(F(3), F(1, 20)), (P1, Q1), pl,
                     epsdelta_pair(F(2), F(0))])
    for a in GRID:
        assert L.value(_q(a)) == _q(brute_value(outs, a))
    for Eq in [F(1), F(2), F(7, 2), F(50)]:
        assert L.delta_exact(_q(Eq)) == _q(brute_delta(outs, Eq))
    assert ta.evaluate(f.factors[2], sp.Rational(1, 3)).exact == \
        finite_loss(f.factors[2]).value(sp.Rational(1, 3))


def test_knots_of_discrete_and_piecewise():
    f = Discrete([sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(1, 4), 0],
                 [sp.Rational(1, 8), sp.Rational(1, 8), sp.Rational(1, 2), sp.Rational(1, 4)])
    kn = finite_loss(f).tradeoff_knots()
    assert PiecewiseLinear(kn) == f.as_piecewise()
    g = PiecewiseLinear([(0, sp.Rational(9, 10)), (sp.Rational(1, 4), sp.Rational(1, 5)),
                         (1, 0)])
    assert PiecewiseLinear(finite_loss(g).tradeoff_knots()) == g
    # f_{eps,delta} with irrational e^eps: symbolic knots at the kink (1-delta)/(1+e^eps)
    kn = finite_loss(EpsDelta(1, sp.Rational(1, 10))).tradeoff_knots()
    e = sp.E
    want = [(0, sp.Rational(9, 10)), (sp.Rational(9, 10) / (1 + e), sp.Rational(9, 10) / (1 + e)),
            (sp.Rational(9, 10), 0), (1, 0)]
    assert all(sp.simplify(a - b) == 0 and sp.simplify(v - w) == 0
               for (a, v), (b, w) in zip(kn, want, strict=True))


def test_trivial_and_merging():
    assert finite_loss(Id).tradeoff_knots() == [(0, 1), (1, 0)]
    assert finite_loss(Zero).tradeoff_knots() == [(0, 0), (1, 0)]
    assert finite_loss(Tensor(Zero, EpsDelta(1))).atoms() == [(sp.oo, 0, 1), (0, 1, 0)]
    # e^{+-1 +-1 +-2}: the classes {1, 2} share the generator 1, five ratios e^{-4..4 step 2}
    at = finite_loss(Tensor(TensorPower(EpsDelta(1), 2), EpsDelta(2))).atoms()
    assert [r for r, _, _ in at] == [sp.exp(k) for k in (4, 2, 0, -2, -4)]
    # eps = 1/2 and 1/3 share exp(1/6)
    at = finite_loss(Tensor(EpsDelta(sp.Rational(1, 2)), EpsDelta(sp.Rational(1, 3)))).atoms()
    assert [r for r, _, _ in at] == [sp.exp(sp.Rational(k, 6)) for k in (5, 1, -1, -5)]
    # the delta parts merge: f_{0,d1} (x) f_{0,d2} = f_{0, 1 - (1-d1)(1-d2)} (Eq. (11))
    L = finite_loss(Tensor(EpsDelta(0, sp.Rational(1, 10)), EpsDelta(0, sp.Rational(1, 5))))
    assert L.atoms() == [(sp.oo, 0, sp.Rational(7, 25)), (1, sp.Rational(18, 25),
                                                           sp.Rational(18, 25)),
                         (0, sp.Rational(7, 25), 0)]


def test_not_finite_and_bad_input():
    assert finite_loss(G(1)) is None
    assert finite_loss(Tensor(G(1), EpsDelta(1))) is None
    assert finite_loss(EpsDelta(sp.Symbol("e", positive=True))) is None
    assert finite_loss(TensorPower(EpsDelta(1), sp.Symbol("n", integer=True,
                                                          nonnegative=True))) is None
    L = finite_loss(EpsDelta(1))
    with pytest.raises(InvalidParameter, match="n"):
        L.power(-1)
    with pytest.raises(InvalidParameter):
        L.power(1.5)
    assert L.power(0) == FiniteLoss() and L.power(3) == finite_loss(TensorPower(EpsDelta(1), 3))
    assert L.tensor(L) == L.power(2)


# -- mpmath routes ------------------------------------------------------------------------------
def _mp_outs(specs):
    return outcomes([epsdelta_pair(mpmath.exp(mp.mpf(e)), mp.mpf(d)) for e, d in specs])


@pytest.mark.parametrize("specs", [
    [(1, "0.1")] * 3,
    [(1, 0), (sp.Rational(1, 2), "0.05"), (2, 0)],
    [(sp.Rational(3, 10), 0)] * 2 + [(sp.sqrt(2), "0.01")],
])
def test_mp_against_brute_force_50_digits(specs):
    f = Tensor(*[EpsDelta(e, sp.Rational(d)) for e, d in specs])
    L = finite_loss(f)
    assert not L.is_rational
    with workdps(90):
        outs = _mp_outs([(num_e(e), d) for e, d in specs])
        tests = [mp.mpf(k) / 13 for k in range(14)] + [mp.mpf("1e-40"), 1 - mp.mpf("1e-30")]
        want_v = [brute_value(outs, a) for a in tests]
        want_d = [brute_delta(outs, mpmath.exp(mp.mpf(e))) for e in ("0", "0.7", "1.5", "3")]
    with workdps(50):
        for a, w in zip(tests, want_v, strict=True):
            a50 = +a
            ac = 1 - mp.mpf(a) if a < 0.5 else +(1 - a)
            lo, hi = L.mp_value(a50, ac)
            assert lo == hi
            assert abs(lo - w) <= mp.mpf(10) ** -48 * max(abs(w), mp.mpf(10) ** -40)
            lo, hi = L.mp_roc(a50, ac)
            assert abs(lo - (1 - w)) <= mp.mpf(10) ** -48 * max(abs(1 - w), mp.mpf(10) ** -40)
        for e, w in zip(("0", "0.7", "1.5", "3"), want_d, strict=True):
            lo, hi = L.mp_delta(mp.mpf(e))
            assert lo == hi and abs(lo - w) <= mp.mpf(10) ** -48 * abs(w)


def num_e(e):
    return float(e) if not isinstance(e, sp.Basic) else mp.mpf(sp.N(e, 100))


@pytest.mark.parametrize("eps,d,n", [(1, 0, 7), (1, sp.Rational(1, 100), 40),
                                     (sp.Rational(1, 10), sp.Rational(1, 10**6), 300)])
def test_power_against_binomial_family_50_digits(eps, d, n):
    L = finite_loss(TensorPower(EpsDelta(eps, d), n))
    D = 1 - (1 - sp.S(d)) ** n
    B = BinomialDP(eps, n)
    for A in [sp.Rational(1, 10**30), sp.Rational(1, 1000), sp.Rational(1, 3), sp.Rational(9, 10),
              1 - D - sp.Rational(1, 10**20)]:
        with workdps(100):
            keep = mp.mpf((1 - D).p) / (1 - D).q
            want = ta.evaluate(B, A / (1 - D), 60).mid * keep if A < 1 - D else mp.zero
            # alpha and 1 - alpha to 100 digits: f is ill-conditioned near its knots
            # (near alpha = 1 - D by a factor D/(1 - D - alpha) = 1e18), so a 50-digit alpha
            # would not determine 50 digits of f(alpha)
            a = mp.mpf(A.p) / A.q
            ac = mp.mpf((1 - A).p) / (1 - A).q
        with workdps(50):
            lo, hi = L.mp_value(a, ac)
            assert lo == hi and abs(lo - want) <= mp.mpf(10) ** -48 * want


def test_rational_power_against_binomial_exact():
    n = 200
    L = FiniteLoss.binomial(sp.log(sp.Rational(3, 2)), n)
    B = BinomialDP(sp.log(sp.Rational(3, 2)), n)
    for A in [sp.Rational(1, 10**9), sp.Rational(1, 7), sp.Rational(1, 2), sp.Rational(99, 100)]:
        assert L.value(A) == ta.evaluate(B, A).exact


def _lgamma_delta(eps0, n, eps, dps):
    """delta(eps) of f_{eps0,0}^{(x) n}: sum of Q_k - e^eps P_k over (2k - n) eps0 > eps,
    every P_k from log-gamma (not the recurrence), at ``dps`` digits."""
    with workdps(dps):
        e0, e = mp.mpf(eps0), mp.mpf(eps)
        lnorm = n * mpmath.log1p(mpmath.exp(e0))
        lg = mpmath.loggamma(n + 1)
        tot = mp.zero
        for k in range(n, -1, -1):
            if (2 * k - n) * e0 <= e:
                break
            lb = lg - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
            Pk = mpmath.exp(lb + (n - k) * e0 - lnorm)
            Qk = mpmath.exp(lb + k * e0 - lnorm)
            tot += Qk - mpmath.exp(e) * Pk
        return tot


def test_large_power_delta_30_digits():
    # (its time, about 0.5 s on one core, is measured by benchmarks/bench_speed_claims.py)
    n = 10**4
    f = TensorPower(EpsDelta(1, 0), n)
    L = finite_loss(f)
    got = L.delta(4500, dps=30)  # delta = 0.9115..., the loss has mean ~4621
    want = _lgamma_delta(1, n, 4500, 60)
    assert got.is_point and abs(got.mid - want) <= mp.mpf(10) ** -29 * want
    # the family's registered profile takes the same route
    got_b = ta.delta(BinomialDP(1, n), 4500, dps=30)
    assert got_b.is_point and abs(got_b.mid - want) <= mp.mpf(10) ** -29 * want


@pytest.mark.parametrize("eps0,n,eps", [(1, 25, 3), (sp.Rational(1, 2), 400, 4),
                                        (2, 3, 0), (1, 10, 11)])
def test_binomial_mp_delta(eps0, n, eps):
    want = _lgamma_delta(eps0, n, eps, 80)
    got = ta.delta(BinomialDP(eps0, n), eps, dps=50)
    assert got.is_point
    assert abs(got.mid - want) <= mp.mpf(10) ** -49 * max(want, mp.mpf(10) ** -300)


def test_delta_registrations_against_brute_force():
    P = [F(1, 2), F(1, 4), F(1, 4), F(0)]
    Q = [F(1, 8), F(1, 8), F(1, 2), F(1, 4)]
    f = Discrete([_q(x) for x in P], [_q(x) for x in Q])
    outs = outcomes([(P, Q)])
    for eps in [sp.Integer(0), sp.Rational(1, 2), sp.log(2), sp.Integer(3)]:
        with workdps(60):
            want = brute_delta([(mp.mpf(_q(p)), mp.mpf(_q(q))) for p, q in outs],
                               mpmath.exp(mp.mpf(sp.N(eps, 80))))
        got = ta.delta(f, eps, dps=40)
        assert got.contains(want) or abs(got.mid - want) <= mp.mpf(10) ** -39 * want
    g = f.as_piecewise()
    for eps in [0, 1, 2]:
        assert abs(ta.delta(g, eps, 40).mid - ta.delta(f, eps, 40).mid) <= mp.mpf(10) ** -39


def test_epsilon_round_trip():
    L = finite_loss(Tensor(TensorPower(EpsDelta(1, sp.Rational(1, 1000)), 20),
                           EpsDelta(sp.Rational(1, 3))))
    for d in ["0.5", "0.1", "0.03"]:
        e = L.epsilon(d, dps=40)
        assert e.is_point
        with workdps(60):
            back = L.mp_delta(e.mid)[0]
            assert abs(back - mp.mpf(d)) <= mp.mpf(10) ** -36 * mp.mpf(d)
    # below delta(oo) = Q(P = 0) = 1 - (1 - 1/1000)^20 no eps works
    assert L.epsilon("1e-2", dps=30).mid == mp.inf
    # the exact profile: epsilon of f_{log 2, 0}^{(x) 4} at delta(log 2) is log 2
    B = FiniteLoss.binomial(sp.log(2), 4)
    d = B.delta_exact(2)
    e = B.epsilon(d, dps=30)
    with workdps(40):
        assert abs(e.mid - mpmath.log(2)) <= mp.mpf(10) ** -29


def test_symbolic_knots_of_a_float_eps_power_are_exact():
    """eps = 1 + 1e-10 (a float: 562949953477607/562949953421312): SymPy's factor wrote
    exp(eps) as exp(1/2^49)^562949953477607 and ran for hours on the masses of
    f_{eps,0}^{(x)10} (``ta.verify(BinomialDP(1, 10), ">=", EpsDelta(1 + 1e-10, 0)**10)`` never
    returned, and no time limit could stop it inside SymPy). Each exp(.) is now a generator of
    its own. Reference: the knots are (P(K >= j), P(K >= n + 1 - j)), K ~ B(n, 1/(1 + e^eps))
    (the binomial lattice of Dong, Roth & Su, Appendix A), summed here at 60 digits."""
    eps, n = 1 + 10**-10, 10
    E = sp.Rational(eps)
    knots = finite_loss(EpsDelta(eps, 0) ** n).tradeoff_knots()  # (timed in benchmarks/)
    with workdps(60):
        p = 1 / (1 + mpmath.exp(mpmath.mpf(E.p) / E.q))
        pmf = [mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

        def tail(j):
            return mpmath.fsum(pmf[j:])

        ref = [(tail(j), tail(n + 1 - j)) for j in range(n + 1, -1, -1)]
        got = [(sp.N(a, 60), sp.N(v, 60)) for a, v in knots]
        assert len(got) == len(ref)
        for (a, v), (ra, rv) in zip(got, ref, strict=True):
            assert abs(mpmath.mpf(a) - ra) <= mpmath.mpf(10) ** -50
            assert abs(mpmath.mpf(v) - rv) <= mpmath.mpf(10) ** -50


def test_verify_binomial_against_a_slightly_larger_eps_returns():
    """The claim holds (BinomialDP(1, 10) = f_{1,0}^{(x)10} >= f_{1+1e-10,0}^{(x)10}: f_{eps,0}
    decreases in eps, Dong, Roth & Su, Eq. (4) and Prop. 5 with monotone tensor products): the
    verdict may be undecided (the sides touch within 1e-9) but never False, and it returns
    (its time is measured by benchmarks/bench_speed_claims.py)."""
    v = ta.verify(ta.BinomialDP(1, 10), ">=", EpsDelta(1 + 10**-10, 0) ** 10)
    assert v.status is not False
