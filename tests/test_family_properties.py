"""Every family value is a trade-off function (Dong, Roth & Su, Prop. 1): convex, non-increasing,
f(alpha) <= 1 - alpha, f(1) = 0, values in [0, 1] -- on the high-precision path and on the
float64 curve path, which must agree with evaluate where the value is well conditioned."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Id, Laplace, Zero

DPS = 30
TOL = mp.mpf(10) ** -(DPS - 3)

mus = st.fractions(min_value=0, max_value=12, max_denominator=1000)
deltas = st.fractions(min_value=0, max_value=1, max_denominator=1000)
levels = st.fractions(min_value=0, max_value=1, max_denominator=10**12)


def _R(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


@st.composite
def families(draw):
    kind = draw(st.sampled_from(["G", "L", "ED", "Id", "Zero", "Gsym"]))
    if kind == "G":
        return G(_R(draw(mus)))
    if kind == "Gsym":  # a symbolic parameter substituted later
        m = sp.Symbol("m", nonnegative=True)
        return G(sp.sqrt(m**2 + 1)).subs(m, _R(draw(mus)))
    if kind == "L":
        return Laplace(_R(draw(mus)))
    if kind == "ED":
        return EpsDelta(_R(draw(mus)) / 2, _R(draw(deltas)))
    return Id if kind == "Id" else Zero


def _val(f, a):
    return ta.evaluate(f, a, dps=DPS).mid


@settings(max_examples=60, deadline=None)
@given(families(), levels, levels, st.fractions(min_value=0, max_value=1, max_denominator=97))
def test_trade_off_axioms(f, x, y, lam):
    x, y = sorted((_R(x), _R(y)))
    lam = _R(lam)
    fx, fy = _val(f, x), _val(f, y)
    z = lam * x + (1 - lam) * y
    fz, fmid = _val(f, z), _val(f, (x + y) / 2)
    with workdps(DPS + 10):  # compare at full precision, not in the 53-bit default
        for v in (fx, fy, fz, fmid):
            assert 0 <= v <= 1
        # non-increasing
        assert fy <= fx + TOL
        # convex at the random triple x <= z <= y, and midpoint convex
        lm = mp.mpf(lam.p) / lam.q
        assert fz <= lm * fx + (1 - lm) * fy + TOL
        assert fmid <= (fx + fy) / 2 + TOL
        # below the identity; the power is the complement
        assert fx <= 1 - mp.mpf(x.p) / x.q + TOL
        assert abs(ta.roc(f, x, dps=DPS).mid - (1 - fx)) <= TOL
    assert _val(f, 1) == 0


@settings(max_examples=40, deadline=None)
@given(families(), st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=20))
def test_curve_is_a_trade_off_function_and_agrees_with_evaluate(f, xs):
    x = np.array(sorted(xs + [0.0, 1.0]))
    y = f.curve(x)
    assert y.shape == x.shape and y.dtype == np.float64
    assert np.all((0 <= y) & (y <= 1))
    assert np.all(np.diff(y) <= 1e-12)
    assert np.all(y <= 1 - x + 1e-12)
    assert y[-1] == 0
    for xi, yi in zip(x, y, strict=True):
        ref = float(ta.evaluate(f, float(xi), dps=20).mid)
        # relative 1e-12; a value formed as a difference (e.g. (1 - x) - delta near 1 - delta)
        # is only good to a few ulps of 1 in float64, hence the absolute alternative
        if ref > 1e-300:
            assert abs(yi - ref) <= 1e-12 * ref + 1e-300 or abs(yi - ref) <= 4e-16, (f, xi, yi, ref)
        else:
            assert yi <= 1e-290


def test_curve_scalar_and_shape():
    assert np.isscalar(G(1).curve(0.3)) or G(1).curve(0.3).shape == ()
    grid = np.linspace(0, 1, 12).reshape(3, 4)
    for f in (G(1), Laplace(1), EpsDelta(1, sp.Rational(1, 10)), Id, Zero):
        assert f.curve(grid).shape == (3, 4)
        assert f.curve(0.0) == f.curve(np.array([0.0]))[0]
        assert f.curve(1.0) == 0.0


def test_curve_tails():
    """The float64 path keeps relative accuracy where float64 can hold the answer."""
    a = np.array([1e-300, 1e-100, 1e-20])
    y = G(1).curve(1 - a)  # 1 - a is exactly 1.0 in float64 for these a, and G(1)(1) = 0
    assert np.all(y == 0)
    y = G(1).curve(np.array([1 - 2**-52]))
    ref = float(ta.evaluate(G(1), 1 - 2.0**-52, dps=30).mid)
    assert abs(y[0] - ref) <= 1e-12 * ref
    y = G(3).curve(np.array([1e-10, 0.999]))
    for xi, yi in zip([1e-10, 0.999], y, strict=True):
        ref = float(ta.evaluate(G(3), xi, dps=30).mid)
        assert abs(yi - ref) <= 1e-12 * ref
