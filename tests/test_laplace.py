"""L_mu against the threshold-test reference on Lap(0,1) vs Lap(mu,1).

The likelihood ratio of Lap(mu,1) to Lap(0,1) is non-decreasing, so the Neyman-Pearson tests
reject for x > t. The reference (tests/reference_np.py) solves alpha(t) = P_0(X > t) = alpha by
bisection on the Laplace CDF written with ``mpmath.exp`` and returns beta(t) = P_mu(X <= t)
(or the power 1 - beta(t)); it never uses the three-piece closed form.

The shared tests of G_mu and L_mu (values and ROC at every level, closed form, derivative,
fixed point, inverse, monotonicity in mu) are in tests/test_families.py; here what is L's own.
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


def _mpf(x):
    return mp.mpf(sp.Float(sp.N(x, REF_DPS + 10), REF_DPS + 10)._mpf_)


def _ref(mu, alpha, roc=False):
    with workdps(REF_DPS):
        return laplace_np(_mpf(mu), alpha, roc=roc)


def _assert_digits(value, ref, need):
    with workdps(REF_DPS):
        d = digits(value, ref)
    assert d >= need, f"{value} vs {ref}: {d:.1f} digits"


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


