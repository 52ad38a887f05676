"""eps(d) = oo exactly when d < delta(oo) = 1 - f(0), the mass of Q singular to P (Dong, Roth &
Su, Prop. 6): proved for finite pairs in rationals, so the answer is certified, not an
estimate; the reference is 1 - (1 - delta0)^n in exact fractions, computed here."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


@pytest.mark.parametrize("eps0, d0, n, level", [
    (1, R(1, 10**6), 1000, R(1, 10**6)),
    (R(1, 2), R(1, 1000), 3, R(1, 10**6)),
    (1, R(1, 10**6), 1000, R(1, 100)),
    (2, R(1, 10), 5, R(1, 2)),
])
def test_infinite_eps_is_certified_exactly_when_the_singular_mass_exceeds_the_level(
        eps0, d0, n, level):
    singular = 1 - (1 - Fraction(int(d0.p), int(d0.q))) ** n
    v = ta.epsilon(ta.EpsDelta(eps0, d0) ** n, level)
    assert v.guarantee == "certified"
    if singular > Fraction(int(level.p), int(level.q)):
        assert v.lo == v.hi == mp.inf
    else:
        assert mp.isfinite(v.hi)
