"""Id and Zero: exact values, checked against brute-force Neyman-Pearson on finite pairs.

Id = T(P, P) for any P (Dong, Roth & Su, Sec. 2.1); Zero = T(P, Q) for mutually singular P, Q.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from reference_np import finite_np
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import Id, Zero

ALPHAS = [R(0), R(1, 10**300), R(1, 7), R(1, 3), R(1, 2), R(5, 6), 1 - R(1, 10**20), R(1)]
P = (Fraction(1, 6), Fraction(1, 3), Fraction(1, 2))
Q_DISJOINT = (Fraction(0), Fraction(0), Fraction(0), Fraction(1, 4), Fraction(3, 4))
P_PADDED = P + (Fraction(0), Fraction(0))


def _frac(x):
    return Fraction(int(x.p), int(x.q))


@pytest.mark.parametrize("alpha", ALPHAS, ids=str)
def test_id_is_the_trade_off_of_identical_distributions(alpha):
    ref = finite_np(P, P, _frac(alpha))
    assert ref == 1 - _frac(alpha)
    assert _frac(ta.evaluate(Id, alpha).exact) == ref
    assert _frac(ta.roc(Id, alpha).exact) == finite_np(P, P, _frac(alpha), roc=True)
    assert Id(alpha) == 1 - alpha


@pytest.mark.parametrize("alpha", ALPHAS, ids=str)
def test_zero_is_the_trade_off_of_singular_distributions(alpha):
    ref = finite_np(P_PADDED, Q_DISJOINT, _frac(alpha))
    assert ref == 0
    assert ta.evaluate(Zero, alpha).exact == 0
    assert ta.roc(Zero, alpha).exact == 1
    assert Zero(alpha) == 0


def test_float_alpha_is_exact():
    for a in [0.1, 1e-300, 0.7, 1 - 2**-52]:
        v = ta.evaluate(Id, a, dps=40)
        assert v.exact == 1 - sp.Rational(a)
        assert v.contains(1 - sp.Rational(a))
        assert ta.roc(Id, a).exact == sp.Rational(a)


def test_symbolic_application_derivative_fixed_point_inverse():
    a = sp.Symbol("a")
    assert Id(a) == 1 - a and Zero(a) == 0
    assert Id.derivative(R(1, 3)) == -1 and Zero.derivative(R(1, 3)) == 0
    assert Id.derivative() == -1
    assert Id.fixed_point() == R(1, 2) and Id(Id.fixed_point()) == Id.fixed_point()
    assert Zero.fixed_point() == 0 and Zero(0) == 0
    for f in (Id, Zero):
        assert f.is_symmetric
        for A in [R(1, 5), R(1, 2), R(4, 5)]:
            assert ta.evaluate(f.inverse(), A).exact == ta.evaluate(f, A).exact
    # Id^{-1}(Id(a)) = a everywhere on [0, 1]
    for A in [R(0), R(1, 9), R(1), 1 - R(1, 10**20)]:
        assert ta.evaluate(Id.inverse(), ta.evaluate(Id, A).exact).exact == A


def test_singletons_and_printing():
    assert ta.families.IdTradeOff() == Id and ta.families.ZeroTradeOff() == Zero
    assert hash(ta.families.IdTradeOff()) == hash(Id)
    assert Id != Zero
    assert str(Id) == "Id" and str(Zero) == "Zero"
    assert ta.latex(Id) == r"\mathrm{Id}" and ta.latex(Zero) == "0"


def test_curves():
    x = np.array([0.0, 1e-300, 0.25, 0.5, 1 - 1e-16, 1.0])
    assert np.array_equal(Id.curve(x), 1 - x)
    assert np.array_equal(Zero.curve(x), np.zeros_like(x))
