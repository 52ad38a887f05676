"""RenyiRegion's one root solver for both constraints (families/renyi_region.py: the reverse
constraint is the forward one at the order 1 - a), against the defining constraints solved
independently: each constraint as written in the module docstring, its root by plain
bisection at 60 digits, the maximum over the orders and directions taken here. Cases where
the constraint function is ill-conditioned (an order near 1, alpha near 0 or 1) and the bound
tau = 0 (D_a = 0 forces P = Q: f(alpha) = 1 - alpha)."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _bisect(fn, hi, C):
    """inf{beta in [e^-4000, hi] : fn(beta) <= C}, fn decreasing on [0, hi], by bisection in
    log beta (to a relative width far below the working precision at any size of the root)."""
    lo, hi = mp.mpf(-4000), mp.log(hi)
    for _ in range(mp.prec + 60):
        m = (lo + hi) / 2
        if fn(mp.exp(m)) > C:
            lo = m
        else:
            hi = m
    return mp.exp(hi)


def _reference(bounds: dict, symmetric: bool, A) -> mp.mpf:
    a = mp.mpf(A.p) / A.q
    best = mp.zero
    for order, tau in bounds.items():
        order, tau = R(order), R(tau)
        o = mp.mpf(order.p) / order.q
        C = mp.exp((o - 1) * mp.mpf(tau.p) / tau.q)

        def forward(b, o=o):  # D_a(P || Q) of the binary pair
            return a**o * (1 - b) ** (1 - o) + (1 - a) ** o * b ** (1 - o) if b > 0 else mp.inf

        def reverse(b, o=o):  # D_a(Q || P)
            return (1 - b) ** o * a ** (1 - o) + b**o * (1 - a) ** (1 - o)

        best = max(best, _bisect(forward, 1 - a, C))
        if symmetric:
            best = max(best, mp.zero if reverse(mp.zero) <= C else _bisect(reverse, 1 - a, C))
    return best


CASES = [
    ({R(1001, 1000): R(1, 3)}, True, R(999, 1000)),  # order near 1: the reverse root ~ 1e-129
    ({R(1001, 1000): R(1, 3)}, False, R(998501, 1000000)),
    ({R(1001, 1000): R(1, 3)}, True, R(22179, 31250)),
    ({R(3223, 100): R(887, 500)}, True, R(1, 10**40)),  # the reverse root within 1e-38 of 1
    ({R(309, 100): R(887, 200), 2: R(1, 10)}, True, R(1, 10**12)),
    ({2: R(1, 2), 8: 3, 32: 9}, True, R(1, 3)),
    ({2: R(1, 2), 8: 3, 32: 9}, False, R(9, 10)),
    ({R(3, 2): 40}, True, R(1, 2)),
]


@pytest.mark.parametrize("bounds, symmetric, A", CASES)
def test_value_is_certified_against_the_constraints(bounds, symmetric, A):
    f = ta.RenyiRegion(bounds, symmetric=symmetric)
    v, r = ta.evaluate(f, A, dps=25), ta.roc(f, A, dps=25)
    assert v.guarantee == "certified"  # (1 - f near 1e-38 is not: 1 - the ball of f)
    with mp.workdps(110):  # (1 - want near 1e-38 keeps 70 of these digits: above roc's 25)
        want = _reference(bounds, symmetric, A)
        lo, hi = v.interval()
        assert lo <= want <= hi and hi - lo <= mp.mpf(10) ** -23 * want
        lo, hi = r.interval()
        assert lo <= 1 - want <= hi


@pytest.mark.parametrize("bounds", [{2: 0}, {2: 0, 8: 3}, {R(3, 2): 1, 5: 0}])
@pytest.mark.parametrize("symmetric", [True, False])
def test_a_zero_bound_gives_the_identity(bounds, symmetric):
    """tau_a = 0 admits only beta = 1 - alpha (g_a >= 1 with equality only there), so
    f(alpha) = 1 - alpha, the identity's value, exactly at every level and at 40 digits."""
    f = ta.RenyiRegion(bounds, symmetric=symmetric)
    for A in (R(1, 10**12), R(1, 3), R(999, 1000)):
        v = ta.evaluate(f, A, dps=40)
        assert v.guarantee == "certified"
        with mp.workdps(60):
            lo, hi = v.interval()
            assert lo <= 1 - mp.mpf(A.p) / A.q <= hi and hi - lo <= mp.mpf(10) ** -38


def test_symmetric_region_is_its_own_inverse():
    """The mirror symmetry of the symmetric region: f(f(alpha)) = alpha (f = f^-1, strictly
    decreasing where positive), each value certified, at 30 digits."""
    f = ta.RenyiRegion({2: R(1, 2), 8: 3})
    for A in (R(1, 100), R(1, 5), R(1, 2)):
        v = ta.evaluate(f, A, dps=40)
        with mp.workdps(60):
            b = sp.Rational(mp.nstr(sum(v.interval()) / 2, 50))
        w = ta.evaluate(f, b, dps=40)
        assert v.guarantee == w.guarantee == "certified"
        with mp.workdps(60):
            lo, hi = w.interval()
            assert abs((lo + hi) / 2 - mp.mpf(A.p) / A.q) <= mp.mpf(10) ** -30


def test_delta_against_the_constraints():
    """delta(eps) = sup_alpha {1 - e^eps alpha - f(alpha)} (Dong, Roth & Su, Prop. 6), the
    function concave: golden-section search at 30 digits on the reference f of the
    constraints (both directions and two orders, so the sup may sit at a kink, where the
    search's error is first order in its final step, about 1e-13)."""
    bounds = {2: R(1, 2), 8: 3}
    f = ta.RenyiRegion(bounds)
    v = ta.delta(f, 1)
    assert v.guarantee == "certified"
    with mp.workdps(30):
        E = mp.e

        def psi(t):
            return 1 - E * t - _reference(bounds, True, R(mp.nstr(t, 32)))

        lo, hi = mp.mpf(0), mp.mpf(1)
        r = (mp.sqrt(5) - 1) / 2
        x1, x2 = hi - r * (hi - lo), lo + r * (hi - lo)
        f1, f2 = psi(x1), psi(x2)
        for _ in range(60):
            if f1 < f2:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + r * (hi - lo)
                f2 = psi(x2)
            else:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - r * (hi - lo)
                f1 = psi(x1)
        want = max(f1, f2)
        lo_v, hi_v = v.interval()
        assert want <= hi_v and hi_v - want <= mp.mpf(10) ** -11
