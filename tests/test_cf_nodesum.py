"""The inverter's node sum by blocks (numeric/cf.py ``_NodeSum``): Q(w) = sum_k P_k w^k at
w = e^{-i h eps} against the node-by-node sum of mpmath at 50 digits (a different route at a
higher precision), its ball narrow where one Horner over all the nodes is not, and the
inverter's delta of a DP-SGD power holding the node-by-node sum of its own products."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from flint import acb, acb_poly, arb

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp


def _reference(ps: list[complex], h: float, e: float):
    """sum_{k >= 1} p_k e^{-i k h e} at 50 digits (the p_k exact floats)."""
    with mp.workdps(50):
        t = mp.mpf(h) * mp.mpf(e)
        return sum((mp.mpc(p) * mp.expj(-(k + 1) * t) for k, p in enumerate(ps)), mp.mpc(0))


@pytest.mark.parametrize("n, h, e", [(464, 5.8188, 0.0151), (91, 0.7, 0.0064), (7, 1.3, 0.2),
                                     (300, 2.0, 1.7)])
def test_node_sum_holds_the_reference(n, h, e):
    rng = random.Random(n)
    ps = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) * 1e-3 / (k + 1) for k in range(n)]
    with working_precision(65):
        got = cf._NodeSum([acb(p.real, p.imag) for p in ps]).at(arb(h), arb(e))
        ref = _reference(ps, h, e)
        with mp.workdps(50):  # (the reference as a ball of radius 1e-40)
            assert got.real.overlaps(arb(mp.nstr(ref.real, 45), 1e-40))
            assert got.imag.overlaps(arb(mp.nstr(ref.imag, 45), 1e-40))
            assert abs(float(got.real.mid()) - float(ref.real)) < 1e-15
            assert abs(float(got.imag.mid()) - float(ref.imag)) < 1e-15
        assert got.real.rad() < 1e-16 and got.imag.rad() < 1e-16
        if n * h * e > 10:  # one Horner over all the nodes: its ball blows up
            w = acb(0, -arb(h) * arb(e)).exp()
            whole = acb_poly([acb(0)] + [acb(p.real, p.imag) for p in ps])(w)
            assert whole.real.rad() > 1e6 * got.real.rad()


def test_the_inverters_delta_holds_the_node_by_node_sum():
    """delta(eps) of DP-SGD (sigma = 2, T = 3) from one inverter: the ball of ``parts`` holds
    the trapezoidal sum of the same node products summed node by node at 50 digits (the
    discretisation and truncation bounds left out of both)."""
    f = ta.noisy_sgd(sp.Rational(2), sp.Rational(256, 60000), 3)
    seen = []
    orig = cf._Inverter.parts

    def spy(self, eps):
        seen.append(self)
        return orig(self, eps)

    cf._Inverter.parts = spy
    try:
        ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    finally:
        cf._Inverter.parts = orig
    inv = seen[-1]
    eps = 0.0150927
    plan = inv.plan
    with working_precision(plan.prec):
        got = inv.parts(eps)
        mids = [complex(float(p.real.mid()), float(p.imag.mid())) for p in inv._p]
    with mp.workdps(50):
        c, h = mp.mpf(plan.c), mp.mpf(plan.h)
        tot = mp.mpf(mids[0].real) * mp.exp(-c * eps)
        for k, p in enumerate(mids[1:], start=1):
            tot += 2 * mp.re(mp.mpc(p) * mp.exp(-mp.mpc(c, k * h) * eps))
        s = tot * h / (2 * mp.pi)
    # the products' own radii (about 1e-13 relative) bound the midpoints' difference
    ball = got.delta
    assert float(s) == pytest.approx(float(ball.mid()), rel=1e-9)
    assert ball.lower() <= float(s) <= ball.upper()
    # and its radius is that of the node-by-node sum of Arb exponentials (within a factor 4)
    with working_precision(plan.prec):
        e, c, h = arb(eps), arb(plan.c), arb(plan.h)
        acc = arb(0)
        for z, p in zip(inv._z[1:], inv._p[1:], strict=True):
            acc += ((-z * e).exp() * p).real
        nodewise = (inv._p[0].real * (-c * e).exp() + 2 * acc) * h / (2 * arb.pi())
    assert got.sum_radius <= 4 * float(nodewise.rad())
