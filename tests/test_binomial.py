"""BinomialDP(eps, n) = f_{eps,0}^{(x) n}: values, tails, rules, speed.

References, all independent of the package:
* brute-force Neyman-Pearson on the 2^n outcomes of the n-fold product of the randomized-response
  pair (exact Fractions, or mpf at 70 digits for irrational e^eps);
* for large n, every pmf term from log-gamma and the tails by mpmath.fsum (instead of the pmf
  recurrence and running sums), and the exact rational route of the package against its mpmath
  route.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import mpmath
import numpy as np
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import BinomialDP, EpsDelta, G, Id, InvalidParameter, Tensor, TensorPower
from tradeoff_algebra.families import binomial as bm
from tradeoff_algebra.numeric.protocol import mp_roc, mp_value


def np_product_rr(r, n, a):
    """T(P^n, Q^n)(a) for the randomized-response pair with e^eps = r, all 2^n outcomes."""
    P1, Q1 = [r / (1 + r), 1 / (1 + r)], [1 / (1 + r), r / (1 + r)]
    outs = []
    for w in product((0, 1), repeat=n):
        p = q = 1 + 0 * r
        for b in w:
            p, q = p * P1[b], q * Q1[b]
        outs.append((p, q))
    outs.sort(key=lambda t: -(t[1] / t[0]))
    size = power = 0 * a
    for p, q in outs:
        if size + p <= a:
            size, power = size + p, power + q
        else:
            power += (a - size) / p * q
            break
    return 1 - power


GRID = [F(k, 29) for k in range(30)] + [F(1, 10**15), 1 - F(1, 10**15)]


def _rat(x):
    return sp.Rational(x.numerator, x.denominator)


@pytest.mark.parametrize("r", [F(2), F(3), F(5, 2)])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_exact_against_brute_force(r, n):
    f = BinomialDP(sp.log(_rat(r)), n)
    x = sp.Symbol("x", nonnegative=True)
    closed = f(x) if n <= bm.PIECEWISE_MAX_N else None
    for a in GRID:
        want = _rat(np_product_rr(r, n, a))
        assert ta.evaluate(f, _rat(a)).exact == want
        assert ta.roc(f, _rat(a)).exact == 1 - want
        if closed is not None:
            assert sp.simplify(closed.subs(x, _rat(a))) == want


@pytest.mark.parametrize("eps", [1, sp.Rational(1, 3), 3])
@pytest.mark.parametrize("n", [1, 4, 6])
def test_mp_against_brute_force_50_digits(eps, n):
    f = BinomialDP(eps, n)
    with workdps(130):  # the reference subtracts near alpha = 1: 40 digits lost there
        r = mpmath.exp(ta.numeric.protocol.num(sp.S(eps)))
        for k in list(range(0, 31)) + ["tiny", "near1"]:
            if k == "tiny":
                A = sp.Rational(1, 10**40)
            elif k == "near1":
                A = 1 - sp.Rational(1, 10**40)
            else:
                A = sp.Rational(k, 30)
            a = mp.mpf(A.p) / A.q
            want = np_product_rr(r, n, a)
            v = ta.evaluate(f, A, dps=50)
            assert v.lo == v.hi
            assert abs(v.mid - want) <= mp.mpf(10) ** -49 * max(want, mp.mpf(10) ** -60)
            if k == "tiny":
                # the power at tiny alpha: 1 - f computed without cancellation
                want_roc = 1 - want  # want is at 70 digits; the roc is O(alpha e^{n eps})
                got = ta.roc(f, A, dps=30)
                assert abs(got.mid - want_roc) <= mp.mpf(10) ** -29 * want_roc


def test_tail_accuracy_near_one():
    """f near alpha = 1 is tiny; compare with brute force in relative terms."""
    f = BinomialDP(2, 6)
    with workdps(80):
        A = 1 - sp.Rational(1, 10**30)
        a = mp.mpf(1) - mp.mpf(10) ** -30
        want = np_product_rr(mpmath.exp(2), 6, a)
        got = ta.evaluate(f, A, dps=40)
        assert want > 0 and abs(got.mid - want) <= mp.mpf(10) ** -39 * want


def test_fixed_point_and_symmetry():
    for n in (5, 6):
        f = BinomialDP(sp.log(2), n)
        fp = f.fixed_point()
        assert fp.is_Rational and ta.evaluate(f, fp).exact == fp
        # symmetric: the NP reference with the pair swapped gives the same function
        for a in GRID[::4]:
            assert np_product_rr(F(1, 2), n, a) == np_product_rr(F(2), n, a)
    assert f.is_symmetric is True and f.inverse() is not None
    assert ta.simplify(f.inverse()) == f
    e = sp.Symbol("varepsilon", positive=True)
    m = sp.Symbol("m", integer=True, positive=True)
    fp = BinomialDP(e, 2 * m).fixed_point()
    assert fp.has(sp.Sum)
    with workdps(40):
        val = sp.N(fp.subs({e: 1, m: 2}).doit(), 35)
        f4 = BinomialDP(1, 4)
        assert abs(ta.evaluate(f4, sp.Rational(str(val))).mid - mp.mpf(str(val))) < 1e-30


def test_validation():
    for bad in [dict(eps=-1, n=2), dict(eps=1, n=-1), dict(eps=1, n=sp.Rational(1, 2))]:
        with pytest.raises(InvalidParameter):
            BinomialDP(**bad)
    n = sp.Symbol("n", integer=True, nonnegative=True)
    f = BinomialDP(1, n)
    assert isinstance(f(sp.Rational(1, 3)), ta.Applied)
    with pytest.raises(InvalidParameter):
        ta.evaluate(f, sp.Rational(1, 3))
    assert r"\mathrm{B}" in ta.latex(f)


# -- large n: speed and a second summation route ---------------------------------------------------
def _loggamma_pmf(eps, n):
    """Every pmf term of B(n, 1/(1+e^eps)) from log-gamma (no recurrence)."""
    lp = -mpmath.log1p(mpmath.exp(eps))          # log p, p = 1/(1+e^eps)
    lq = -mpmath.log1p(mpmath.exp(-eps))         # log(1 - p)
    lg = mpmath.loggamma
    return [mpmath.exp(lg(n + 1) - lg(k + 1) - lg(n - k + 1) + k * lp + (n - k) * lq)
            for k in range(n + 1)]


def _loggamma_value(eps, n, a, pmf):
    """f(alpha) from the log-gamma pmf, tails summed by mpmath.fsum."""

    def upper(j):
        return mpmath.fsum(pmf[j:]) if j <= n else mp.zero

    lo, hi = 0, n + 1  # upper(lo) >= a > upper(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if upper(mid) >= a:
            lo = mid
        else:
            hi = mid
    j = lo
    return upper(n + 1 - j) + (upper(j) - a) * mpmath.exp(eps * (2 * j - n))


def test_large_n_loggamma_route():
    # (its time is measured by benchmarks/bench_speed_claims.py: tests assert no times)
    n = 10**4
    f = BinomialDP(sp.Rational(1, 50), n)
    bm._tables.cache_clear()
    v = ta.evaluate(f, sp.Rational(1, 10), dps=30)
    with workdps(50):
        pmf = _loggamma_pmf(mp.mpf(1) / 50, n)
        for A in (sp.Rational(1, 10), sp.Rational(1, 2), sp.Rational(9, 10)):
            want = _loggamma_value(mp.mpf(1) / 50, n, mp.mpf(A.p) / A.q, pmf)
            got = ta.evaluate(f, A, dps=30) if A != sp.Rational(1, 10) else v
            assert abs(got.mid - want) <= mp.mpf(10) ** -29 * want


def test_large_n_exact_route_against_mp_route():
    """e^eps = 101/100 is rational: the integer route against the pmf recurrence in mpmath."""
    n = 3000
    f = BinomialDP(sp.log(sp.Rational(101, 100)), n)
    for A in (sp.Rational(1, 1000), sp.Rational(1, 3), sp.Rational(99, 100)):
        q = ta.evaluate(f, A).exact
        assert q is not None
        with workdps(60):
            lo, hi = mp_value(f, mp.mpf(A.p) / A.q, mp.mpf(A.q - A.p) / A.q)
            want = mp.mpf(q.p) / q.q
            assert abs(lo - want) <= mp.mpf(10) ** -45 * want
            rlo, _ = mp_roc(f, mp.mpf(A.p) / A.q, mp.mpf(A.q - A.p) / A.q)
            assert abs(rlo - (1 - want)) <= mp.mpf(10) ** -45


def test_curve_float64():
    f = BinomialDP(sp.log(3), 7)
    xs = np.linspace(0, 1, 41)
    want = [float(ta.evaluate(f, sp.Rational(k, 40)).exact) for k in range(41)]
    assert np.allclose(f.curve(xs), want, atol=1e-13)
    big = BinomialDP(sp.Rational(1, 100), 10**4).curve(xs)
    assert np.all(np.diff(big) <= 1e-15) and big[0] == 1 and big[-1] == 0


# -- rules
def test_power_rule_and_simplify():
    n = sp.Symbol("n", integer=True, nonnegative=True)
    d = sp.Symbol("delta", nonnegative=True)
    assert bm.epsdelta_power_binomial.rule(EpsDelta(1, 0) ** 5) == BinomialDP(1, 5)
    assert bm.epsdelta_power_binomial.rule(EpsDelta(1, 0) ** n) == BinomialDP(1, n)
    assert bm.epsdelta_power_binomial.rule(EpsDelta(1, d) ** 5) is None
    assert bm.epsdelta_power_binomial.rule(G(1) ** 5) is None
    out = ta.simplify(EpsDelta(1, 0) ** 5)
    assert out == BinomialDP(1, 5)
    # the unsimplified product by brute force at 50 digits
    with workdps(70):
        for k in (1, 5, 11, 17):
            want = np_product_rr(mp.e, 5, mp.mpf(k) / 19)
            got = ta.evaluate(out, sp.Rational(k, 19), dps=50)
            assert abs(got.mid - want) <= mp.mpf(10) ** -49
    assert ta.simplify(EpsDelta(sp.log(2), 0) ** 4) == BinomialDP(sp.log(2), 4)


def test_tensor_and_power_of_binomial():
    m = sp.Symbol("m", integer=True, positive=True)
    t = BinomialDP(1, 3) @ EpsDelta(1, 0) @ G(2)
    assert bm.binomial_tensor.rule(t) == Tensor(BinomialDP(1, 4), G(2))
    assert bm.binomial_tensor.rule(BinomialDP(1, 3) @ EpsDelta(2, 0)) is None
    assert bm.binomial_tensor.rule(EpsDelta(1, 0) @ EpsDelta(2, 0)) is None
    assert ta.simplify(BinomialDP(1, 3) @ BinomialDP(1, m)) == BinomialDP(1, m + 3)
    assert bm.binomial_power.rule(TensorPower(BinomialDP(1, 2), 3)) == BinomialDP(1, 6)
    assert ta.simplify(EpsDelta(sp.log(3), 0) @ EpsDelta(sp.log(3), 0) @ BinomialDP(sp.log(3), 2)) \
        == BinomialDP(sp.log(3), 4)
    # value: (f^{(x)2})^{(x)2} (x) f = f^{(x)5}
    for a in GRID[::3]:
        assert ta.evaluate(BinomialDP(sp.log(3), 5), _rat(a)).exact == \
            _rat(np_product_rr(F(3), 5, a))


def test_trivial_cases():
    n = sp.Symbol("n", integer=True, nonnegative=True)
    assert bm.binomial_trivial.rule(BinomialDP(1, 0)) == Id
    assert bm.binomial_trivial.rule(BinomialDP(0, n)) == Id
    assert bm.binomial_trivial.rule(BinomialDP(1, n)) is None
    for a in GRID:
        assert ta.evaluate(BinomialDP(sp.log(2), 0), _rat(a)).exact == 1 - _rat(a)
        assert ta.evaluate(BinomialDP(0, 7), _rat(a)).exact == 1 - _rat(a)
