"""L_mu against the threshold-test reference on Lap(0,1) vs Lap(mu,1).

The likelihood ratio of Lap(mu,1) to Lap(0,1) is non-decreasing, so the Neyman-Pearson tests
reject for x > t. The reference (tests/reference_np.py) solves alpha(t) = P_0(X > t) = alpha by
bisection on the Laplace CDF written with ``mpmath.exp`` and returns beta(t) = P_mu(X <= t)
(or the power 1 - beta(t)); it never uses the three-piece closed form.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from reference_np import digits, laplace_np
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import Laplace

REF_DPS = 70
MUS = [0, R(1, 10), 1, 3, 10, sp.log(2), sp.sqrt(3)]
ALPHAS = ["1e-300", R(1, 10**10), R(1, 100), R(1, 3), R(1, 2), "0.75", 1 - R(1, 10**15)]


def _mpf(x):
    return mp.mpf(sp.Float(sp.N(x, REF_DPS + 10), REF_DPS + 10)._mpf_)


def _ref(mu, alpha, roc=False):
    with workdps(REF_DPS):
        return laplace_np(_mpf(mu), alpha, roc=roc)


def _assert_digits(value, ref, need):
    with workdps(REF_DPS):
        d = digits(value, ref)
    assert d >= need, f"{value} vs {ref}: {d:.1f} digits"


@pytest.mark.parametrize("mu", MUS, ids=str)
@pytest.mark.parametrize("alpha", ALPHAS, ids=str)
def test_value_and_roc_against_threshold_test(mu, alpha):
    _assert_digits(ta.evaluate(Laplace(mu), alpha, dps=45).mid, _ref(mu, alpha), 44)
    _assert_digits(ta.roc(Laplace(mu), alpha, dps=45).mid, _ref(mu, alpha, roc=True), 44)


@pytest.mark.parametrize("mu", [1, 3])
def test_piece_boundaries(mu):
    """At alpha = e^{-mu}/2 and 1/2 (where the pieces meet) and just beside them."""
    for a in [sp.exp(-mu) / 2, R(1, 2)]:
        for shift in [0, R(1, 10**30), -R(1, 10**30)]:
            A = a + shift
            with workdps(REF_DPS):
                am = _mpf(A)
                ref = laplace_np(_mpf(mu), am)
            _assert_digits(ta.evaluate(Laplace(mu), A, dps=45).mid, ref, 40)


def test_exact_rational_when_e_mu_is_rational():
    f = Laplace(sp.log(2))
    assert f.mu == sp.log(2)
    # e^{-mu}/2 = 1/4: the three pieces 1 - 2a, 1/(8a), (1 - a)/2
    assert ta.evaluate(f, R(1, 8)).exact == R(3, 4)
    assert ta.evaluate(f, R(1, 3)).exact == R(3, 8)
    assert ta.evaluate(f, R(2, 3)).exact == R(1, 6)
    assert ta.roc(f, R(1, 3)).exact == R(5, 8)
    for A in [R(1, 8), R(1, 3), R(2, 3)]:
        q = ta.evaluate(f, A).exact
        with workdps(REF_DPS):
            _assert_digits(mp.mpf(q.p) / q.q, laplace_np(mpmath.log(2), A), 60)


@pytest.mark.parametrize("mu,alpha", [(1, R(1, 10)), (1, R(1, 3)), (1, R(3, 4)), (3, R(1, 100)),
                                      (R(1, 2), R(1, 5))])
def test_sympy_closed_form_agrees(mu, alpha):
    m, a = sp.Symbol("mu", nonnegative=True), sp.Symbol("a")
    closed = Laplace(m)(a).subs({m: mu, a: alpha})
    _assert_digits(mp.make_mpf(sp.N(closed, 50)._mpf_),
                   ta.evaluate(Laplace(mu), alpha, dps=50).mid, 48)


@pytest.mark.parametrize("mu,alpha", [(1, R(1, 10)), (1, R(1, 3)), (1, R(3, 4)), (3, R(1, 100))])
def test_derivative_against_numeric_differentiation(mu, alpha):
    d = Laplace(mu).derivative(alpha)
    with workdps(35):
        ref = mpmath.diff(lambda x: laplace_np(mp.mpf(mu), x), mp.mpf(alpha.p) / alpha.q)
    _assert_digits(mp.make_mpf(sp.N(d, 40)._mpf_), ref, 30)


@pytest.mark.parametrize("mu", [0, R(1, 10), 1, 3, 10])
def test_fixed_point(mu):
    fp = Laplace(mu).fixed_point()
    assert sp.simplify(fp - sp.exp(-sp.sympify(mu) / 2) / 2) == 0
    x = mp.make_mpf(sp.N(fp, 60)._mpf_)
    _assert_digits(ta.evaluate(Laplace(mu), fp, dps=45).mid, x, 40)
    with workdps(REF_DPS):
        _assert_digits(laplace_np(_mpf(mu), x), x, 40)


@pytest.mark.parametrize("mu", [R(1, 2), 1, 3])
@pytest.mark.parametrize("alpha", [R(1, 10**10), R(1, 10), R(1, 3), R(9, 10)])
def test_inverse(mu, alpha):
    f = Laplace(mu)
    assert f.is_symmetric
    inv = f.inverse()
    assert inv(alpha) == f(alpha)
    assert ta.evaluate(inv, alpha, dps=40).mid == ta.evaluate(f, alpha, dps=40).mid
    y = ta.evaluate(f, alpha, dps=70).mid
    with workdps(70):
        _assert_digits(ta.evaluate(inv, y, dps=45).mid, mp.mpf(alpha.p) / alpha.q, 40)


def test_decreasing_in_mu():
    """L_mu is pointwise decreasing in mu (the pair gets easier to tell apart)."""
    for alpha in [R(1, 10**6), R(1, 3), R(9, 10)]:
        vals = [ta.evaluate(Laplace(mu), alpha, dps=30).mid for mu in [0, R(1, 2), 1, 2, 5]]
        assert all(a > b for a, b in zip(vals, vals[1:], strict=False))
