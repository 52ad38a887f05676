"""Eq. (12) with a proof carried through (routes.product._certified_scaled): the value and the
power of g (x) f_{0,D} from g's certified answers at the ends of the level ball alpha/K,
against the Irwin--Hall quadrature's profile of L_1^2 (the slow case), the value and the power
against each other, and the Kairouz binomial knots scaled by Eq. (12) where g is finite."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from references.enclosure import certified, iv

import tradeoff_algebra as ta

R = sp.Rational


def test_roc_and_value_certified_and_consistent():
    """L(1/10)^1000 (x) f_{1,1e-6} at 79/1000 (tol 1e-8): roc and value both certified, and
    1 - value meets roc (two proofs of one number by different routes: value at the level
    ends, the power at them)."""
    f = ta.Tensor(ta.Laplace(R(1, 10)) ** 1000, ta.EpsDelta(1, R(1, 10**6)))
    with ta.pld_options(tol=1e-8):
        r = ta.roc(f, R(79, 1000), dps=11)
        v = ta.evaluate(f, R(79, 1000), dps=11)
    assert certified(r) and certified(v)
    (a, b), (c, d) = iv(r), iv(v)
    assert max(a, 1 - d) <= min(b, 1 - c)


def _laplace2_power(a):
    """1 - f(a) of L_1^2 as min over e of delta(e) + e^e a (Prop. 6: f is the upper envelope
    of the lines 1 - delta(e) - e^e a), delta by the Irwin--Hall quadrature
    (references.laplace_sum), the minimum by golden section on [0, 2] (convex in e: delta(e)
    + e^e a is a sum of a convex decreasing and a convex increasing function)."""
    from references import audit7_refs as R7

    def h(e):
        return R7.laplace_power_delta(1, 2, e, 30) + mpmath.exp(e) * a

    lo, hi = mpmath.mpf(0), mpmath.mpf(2)
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(60):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if h(m1) <= h(m2):
            hi = m2
        else:
            lo = m1
    return h((lo + hi) / 2)


@pytest.mark.slow
def test_laplace_square_with_delta_part_against_quadrature():
    """L_1^2 (x) f_{0,1/1000} at 1/10 (tol 1e-8): the certified power holds 1 - K + K p(a/K),
    K = 999/1000, p the power of L_1^2 from the quadrature's profile (20 digits)."""
    f = ta.Tensor(ta.Laplace(1) ** 2, ta.EpsDelta(0, R(1, 1000)))
    with ta.pld_options(tol=1e-8):
        r = ta.roc(f, R(1, 10))
    assert certified(r)
    with mpmath.workdps(30):
        K = 1 - mpmath.mpf(1) / 1000
        ref = 1 - K + K * _laplace2_power(mpmath.mpf(1) / 10 / K)
        lo, hi = iv(r)
        assert lo - mpmath.mpf(10) ** -15 <= ref <= hi + mpmath.mpf(10) ** -15, (lo, ref, hi)
        assert hi - lo < 1e-7


def test_finite_rest_against_binomial():
    """RR(1/10)^2000 (x) f_{0,1/10^4}: the value at 1/10 certified and inside the binomial
    knots' value (Kairouz) scaled by Eq. (12), at 30 digits."""
    from references import audit7_refs as R7
    from references import finite as FN

    f = ta.Tensor(ta.randomized_response(R(1, 10)) ** 20, ta.EpsDelta(0, R(1, 10**4)))
    v = ta.evaluate(f, R(1, 10))
    assert certified(v)
    with mpmath.workdps(40):
        K = 1 - mpmath.mpf(1) / 10**4
        kn = R7.binomial_knots(mpmath.mpf(1) / 10, 20, 40)
        ref = K * FN.pl_value(kn, mpmath.mpf(1) / 10 / K)
        a, b = iv(v)
        assert a - mpmath.mpf(10) ** -25 <= ref <= b + mpmath.mpf(10) ** -25
