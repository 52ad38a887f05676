"""delta exactly 0 at the largest loss of powers of finite pairs whose largest loss the Arb
law holds only as a ball (analysis.largest_loss._finite_sup: an irrational ratio, a
non-dyadic loss), against the exact knots of the composed pair at 45 digits
(references.audit7_refs.rr_knots / pl_delta) and the binomial sums."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from references import audit7_refs as R7
from references.enclosure import certified, meets

import tradeoff_algebra as ta
from tradeoff_algebra.analysis.largest_loss import largest_loss_exact

R = sp.Rational


@pytest.mark.parametrize("f, M, ref_knots", [
    (ta.randomized_response(1, 4) ** 2, 2, lambda: R7.rr_knots(mpmath.mpf(1), 4, 2, 45)),
    (ta.randomized_response(sp.log(3), 5) ** 2, 2 * sp.log(3),
     lambda: R7.rr_knots(mpmath.log(3), 5, 2, 45))])
def test_delta_at_largest_loss_exact_zero(f, M, ref_knots):
    """delta(M) is an exact 0 at the largest loss M (n eps for RR(eps, k)^n); the reference:
    the exact knots' delta at M vanishes to 40 digits and 10^-3 below M is positive and meets
    the library's certified value."""
    assert sp.simplify(largest_loss_exact(f) - M) == 0
    v = ta.delta(f, M)
    assert v.guarantee == "exact" and v.hi == 0
    with mpmath.workdps(45):
        kn = ref_knots()
        m = mpmath.mpf(sp.N(M, 60))
        assert abs(R7.pl_delta(kn, m)) < mpmath.mpf(10) ** -40
        e = M - R(1, 1000)
        r = R7.pl_delta(kn, mpmath.mpf(sp.N(e, 60)))
    w = ta.delta(f, e)
    assert certified(w) and r > 0
    assert meets(w, r * (1 - mpmath.mpf(10) ** -25), r * (1 + mpmath.mpf(10) ** -25))


def test_discrete_laplace_power_largest_loss():
    """discrete_laplace(1, 3)^4: the loss ±1/3 per factor (non-dyadic), largest 4/3: exact 0
    there; just below it the binomial sum (the top atom)."""
    f = ta.discrete_laplace(1, 3) ** 4
    assert largest_loss_exact(f) == R(4, 3)
    assert ta.delta(f, R(4, 3)).guarantee == "exact"
    e = R(4, 3) - R(1, 10**8)
    w = ta.delta(f, e)
    with mpmath.workdps(50):
        r = R7.rr_power_delta(mpmath.mpf(1) / 3, 4, mpmath.mpf(4) / 3 - mpmath.mpf(10) ** -8, 45)
    assert certified(w)
    assert meets(w, r * (1 - mpmath.mpf(10) ** -25), r * (1 + mpmath.mpf(10) ** -25))
