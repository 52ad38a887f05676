"""Certified values and privacy profile of RenyiRegion (families/renyi_region.py: the Arb ball
form and arb_delta) and the Arb golden-section maximum of a concave function
(numeric/concave.py, arb_max_concave). References: the constraint g_a(alpha, beta) of van
Erven & Harremoes evaluated directly at the returned beta (it must be binding, 60 digits);
delta(eps) = sup_alpha {1 - e^eps alpha - f(alpha)} by a grid and ternary search on the
library's mpmath route (tests/operator_reference.py); closed-form maxima for the maximiser."""

from __future__ import annotations

import operator_reference as ref
import pytest
import sympy as sp
from flint import arb
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.concave import arb_max_concave
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.protocol import mp_value

R = sp.Rational


def _g(a, b, A):
    return a**A * (1 - b) ** (1 - A) + (1 - a) ** A * b ** (1 - A)


def _root(fn, hi, C):
    """inf{beta in [0, hi] : fn(beta) <= C} for fn decreasing there, by bisection."""
    lo = mp.zero
    if fn(lo) <= C if lo > 0 else False:
        return lo
    for _ in range(300):
        m = (lo + hi) / 2
        if fn(m) > C:
            lo = m
        else:
            hi = m
    return hi


@pytest.mark.parametrize("order, tau", [(2, R(1, 2)), (8, 1), (R(3, 2), R(1, 10))])
@pytest.mark.parametrize("A", [R(1, 10**12), R(1, 100), R(1, 10), R(1, 2), R(9, 10)])
def test_value_is_certified_against_bisection(order, tau, A):
    """f(alpha) = max of the two constraints' roots (module docstring), each found here by
    plain bisection on g_a at 80 digits (the reverse constraint is g_a with the pair swapped,
    g_a(1 - beta, 1 - alpha); its root is 0 when g_a(1, 1 - alpha) = alpha^{1-a} <= C)."""
    f = ta.RenyiRegion({order: tau})
    v = ta.evaluate(f, A, dps=30)
    assert v.guarantee == "certified"
    with mp.workdps(80):
        a = mp.mpf(A.p) / A.q
        Ao = mp.mpf(sp.N(order, 90))
        C = mp.exp((Ao - 1) * mp.mpf(sp.N(tau, 90)))
        fwd = _root(lambda b: _g(a, b, Ao) if b > 0 else mp.inf, 1 - a, C)
        rev = mp.zero if a ** (1 - Ao) <= C else _root(lambda b: _g(1 - b, 1 - a, Ao), 1 - a, C)
        want = max(fwd, rev)
        assert abs(v.mid - want) <= mp.mpf(10) ** -29 * want


def test_delta_is_certified_against_the_grid_maximisation():
    """delta(12) of D_2 <= 1/2 and the printed value of Kaissis et al.'s Cor. 12 example
    (D_8 <= 1 at the converted eps = 1.556: 9.991e-4)."""
    f = ta.RenyiRegion({2: R(1, 2)})
    v = ta.delta(f, 12)
    assert v.guarantee == "certified"
    with workdps(22):  # (the reference works in global mpmath: both contexts)
        fn = lambda t: mp_value(f, mp.mpf(t), 1 - mp.mpf(t))[0]  # noqa: E731
        r = 1 + ref.conjugate(fn, -mp.exp(12), n=40)
        assert abs(v.mid - r) <= mp.mpf(10) ** -12 * r
    e = 1 + sp.log(R(7, 8)) + sp.log(1000) / 7 - sp.log(8) / 7
    w = ta.delta(ta.RenyiRegion({8: 1}), e)
    assert w.guarantee == "certified" and f"{w:.4g}" == "0.0009991"


def test_arb_max_concave_closed_forms():
    with arb_precision(128):
        b = arb_max_concave(lambda t: arb(1) / 7 - (t - arb(1) / 3) ** 2)
        assert b.contains(arb(1) / 7) and b.rad() < arb(2) ** -100
        b = arb_max_concave(lambda t: arb.min(2 * t, 1 - t))  # a kink at 1/3: max 2/3
        assert b.contains(arb(2) / 3) and b.rad() < arb(2) ** -60
        b = arb_max_concave(lambda t: -t)  # the maximiser is an end
        assert b.contains(0) and b.rad() < arb(2) ** -60
        assert arb_max_concave(lambda t: None) is None
