"""The whole curve of one replace-one step in one pass (families/poisson_replace_curve.py).

Reference: the Neyman-Pearson threshold test of the mixture pair written here in mpmath at 40
digits (alpha = F_P(t) solved by mpmath's root finder, f = S_Q(t)), independent of the
family's code; and the family's own per-level Arb ball (``ta.evaluate``) at levels where the
float threshold is off (the fallback)."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace_curve import replace_band

R = sp.Rational


def _ref(mu, q, a):
    with mpmath.workdps(40):
        mu, q, a = mpmath.mpf(mu), mpmath.mpf(q), mpmath.mpf(a)

        def fp(t):
            return (1 - q) * mpmath.ncdf(t) + q * mpmath.ncdf(t - mu) - a

        z = mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
        t = mpmath.findroot(fp, (z, z + mu), solver="bisect" if a < 1e-12 else "anderson")
        return (1 - q) * mpmath.ncdf(-t) + q * mpmath.ncdf(-t - mu), \
            (1 - q) * mpmath.ncdf(t) + q * mpmath.ncdf(t + mu)


@pytest.mark.parametrize("mu, q", [(1, R(1, 100)), (R(5, 2), R(3, 10))])
def test_band_holds_the_threshold_test(mu, q):
    f = ta.PoissonReplace(mu, q)
    x = np.concatenate([np.linspace(0, 1, 41), [1e-12, 0.5, 1 - 2.0**-30]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no estimate, no tolerance warning)
        lo, hi = f.curve(x, bounds=True)
    assert lo[0] == hi[0] == 1 and lo[40] == hi[40] == 0
    for a, lo_, hi_ in zip(x, lo, hi, strict=True):
        if 0 < a < 1:
            ref, _ = _ref(float(mu), float(q), a)
            assert lo_ <= ref <= hi_ and hi_ - lo_ <= 1e-12


def test_band_power_and_fallback():
    """The power's band holds 1 - f; a level whose float threshold is not proved takes the
    family's own ball (here every level, by a level_ball that is the route's own check)."""
    calls = []

    def level_ball(a, power):
        calls.append(a)
        v = ta.roc(ta.PoissonReplace(1, R(1, 10)), a) if power else \
            ta.evaluate(ta.PoissonReplace(1, R(1, 10)), a)
        from flint import arb

        return arb(float(v.lo)).union(arb(float(v.hi)))

    x = np.array([0.25, 0.75])
    b = replace_band((1, 1), (1, 10), x, level_ball)
    assert not calls  # (both thresholds proved in floats)
    for a, plo, phi in zip(x, b.power_lo, b.power_hi, strict=True):
        _, power = _ref(1.0, 0.1, a)
        assert plo <= power <= phi
    import tradeoff_algebra.families.poisson_replace_curve as mod

    saved = mod.STRADDLES
    mod.STRADDLES = (0.0,)  # (a straddle of width 0 is never proved: every level falls back)
    try:
        b2 = replace_band((1, 1), (1, 10), x, level_ball)
    finally:
        mod.STRADDLES = saved
    assert len(calls) == 4
    assert np.all(b2.f_lo <= b.f_hi) and np.all(b.f_lo <= b2.f_hi)
