"""A curve's bounds of f at levels where the power 1 - f lies below float64's resolution of f
(numeric/curves.py, ``_warn_above_tol``): the bounds are adjacent floats holding the true f,
and the ToleranceWarning says that the power is below f's resolution and names ta.roc, which
gives the power certified (checked here against the closed form in mpmath at 50 digits)."""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import sympy as sp

import tradeoff_algebra as ta

LEVELS = np.array([1e-300, 1e-100, 1e-20, 0.5])


def _g_power(mu: int, alpha) -> mp.mpf:
    """1 - G_mu(alpha) = 1 - Phi(z - mu), z = Phi^{-1}(1 - alpha) (Dong, Roth & Su, G_mu =
    T(N(0, 1), N(mu, 1))), at 80 digits; ``alpha`` an exact Rational or a float."""
    with mp.workdps(80):
        a = mp.mpf(alpha.p) / alpha.q if isinstance(alpha, sp.Rational) else mp.mpf(alpha)
        # z from the upper tail itself (erfc keeps its relative accuracy where erfinv near -1
        # does not), then the power
        z = mp.findroot(lambda t: mp.log(mp.erfc(t / mp.sqrt(2)) / 2) - mp.log(a),
                        mp.sqrt(-2 * mp.log(a)))
        return mp.ncdf(mu - z)


def test_float_floor_levels_hold_f_and_say_why_they_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lo, hi = ta.curve(ta.G(1), LEVELS, bounds=True)
    for a, l, h in zip(LEVELS, lo, hi, strict=True):
        with mp.workdps(80):
            f = 1 - _g_power(1, float(a))
        assert mp.mpf(float(l)) <= f <= mp.mpf(float(h))
    floor = [str(c.message) for c in caught if issubclass(c.category, ta.ToleranceWarning)]
    assert len(floor) == 1, floor
    assert "3 of 4 levels (alpha up to 1e-20)" in floor[0] and "ta.roc" in floor[0]
    assert all(np.nextafter(lo[:3], 2) >= hi[:3])


def test_roc_gives_the_power_below_the_floor():
    for a in (sp.Rational(1, 10**20), sp.Rational(1, 10**100)):
        v = ta.roc(ta.G(1), a)
        ref = _g_power(1, a)
        with mp.workdps(80):
            lo, hi = v.interval()  # (a certified point claims its dps digits)
            assert v.guarantee == "certified" and lo <= ref <= hi
            assert (hi - lo) / ref < 1e-20
