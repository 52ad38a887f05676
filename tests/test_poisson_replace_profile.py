"""Two replace-one steps' privacy profile by a certified integral of the one-step profile
(families/poisson_replace_profile.py).

References, by other routes:
* the 40-digit mpmath quadrature of the same divergence with the threshold written
  independently (``test_poisson_replace_power._delta_two``);
* the one-step profile H at a real level against the family's own closed form
  (``ta.delta`` of one step, Prop. 6, certified by its own Arb route);
* nested tolerances: the ball at 1e-9 lies inside the ball at the default tolerance.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb
from test_poisson_replace_power import _delta_two

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw
from tradeoff_algebra.families.poisson_replace_profile import _Pair, two_step_delta
from tradeoff_algebra.numeric.context import arb_precision

R = sp.Rational


@pytest.mark.slow  # (the 40-digit reference takes 15 to 25 s)
@pytest.mark.parametrize("mu, q, eps", [
    (Fraction(1), Fraction(1, 10), 0.5),
    (Fraction(10, 11), Fraction(1, 100), 1.0),   # delta ~ 3e-10: the far tail
    (Fraction(1, 2), Fraction(1, 100), 1.0),     # delta ~ 6e-27
    (Fraction(2), Fraction(3, 10), 2.0),
])
def test_two_steps_enclose_the_quadrature(mu, q, eps):
    v = two_step_delta(ReplaceLaw(mu, q), eps, 1e-6)
    ref = _delta_two(mu, q, eps)
    assert v.lower() <= ref <= v.upper()
    assert v.rad() <= 1e-6 * abs(v.mid())


def test_one_step_profile_is_the_family_closed_form():
    mu, q = Fraction(5, 4), Fraction(1, 100)
    with arb_precision(128):
        h = _Pair(ReplaceLaw(mu, q)).hockey(arb(3) / 10)
    ref = ta.delta(ta.PoissonReplace(R(5, 4), R(1, 100)), R(3, 10), dps=30)
    lo, hi = ref.interval()
    assert ref.guarantee == "certified" and h.lower() <= hi and lo <= h.upper()
    assert h.rad() < 1e-30


@pytest.mark.slow
def test_power_answers_from_the_profile_within_nested_tolerances():
    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning at either tolerance)
        d = ta.delta(f, 1)
        with ta.pld_options(tol=1e-9):
            t = ta.delta(f, 1, dps=20)
    assert d.guarantee == t.guarantee == "certified"
    assert float(d.hi - d.lo) <= 5e-4 * float(d.hi) and float(t.hi - t.lo) <= 1e-9 * float(t.hi)
    assert d.lo <= t.lo <= t.hi <= d.hi
    e = ta.epsilon(f, R(1, 10**5))
    assert e.guarantee == "certified"
    # delta at the certified eps bracket's ends straddles the level (the delta route)
    assert ta.delta(f, e.lo).hi >= R(1, 10**5) >= ta.delta(f, e.hi).lo
