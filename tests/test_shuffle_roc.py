"""The power of ShuffleDP at one level from the tails at its Neyman--Pearson threshold
(families/shuffle_roc.py), against brute-force Neyman--Pearson in mpmath at 40 digits on the
mixture law of Feldman, McMillan & Talwar (tests/references/shuffle_pair.py: P = (1 - w) P0 + w
Q0, Q = (1 - w) Q0 + w P0 with P0 the law of (A + 1, C - A), Q0 of (A, C - A + 1), A ~ Binom(C,
1/2), C ~ Binom(n - 1, 2/(e^eps0 + 1))), and against the table route at n = 10^4 (slow)."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import pytest
import scipy.stats  # noqa: F401  (the route's float search imports it: outside the timed tests)
import sympy as sp
from references.shuffle_pair import power_of_sorted, shuffle_groups, shuffle_points

import tradeoff_algebra as ta
from tradeoff_algebra.families.shuffle_roc import shuffle_power, strict_tails, threshold_fraction
from tradeoff_algebra.numeric.context import arb_precision, mp

ROUTE = "the shuffle pair's tails at its Neyman-Pearson threshold, in Arb"


_groups = functools.lru_cache(maxsize=8)(shuffle_groups)


def _brute_power(eps0, n: int, alpha):
    """1 - f(alpha) at 40 digits: the mixture pair's points grouped by the fraction y/x (which
    decides the likelihood ratio, Q/P = (E y + x)/(E x + y)), in decreasing ratio, the last
    randomised (Neyman--Pearson; references/shuffle_pair)."""
    with mpmath.workdps(40):
        return power_of_sorted(_groups(eps0, n), mpmath.mpf(alpha))


@pytest.mark.parametrize("n", [50, 120, pytest.param(200, marks=pytest.mark.slow)])
def test_roc_against_brute_force(n):
    f = ta.ShuffleDP(1, n)
    for alpha in ("0.01", "0.2"):
        ref = _brute_power(1, n, alpha)
        v = ta.roc(f, sp.Rational(alpha), dps=30)
        assert v.guarantee == "certified"
        assert v.route == ROUTE
        lo, hi = v.interval()
        assert lo <= ref <= hi, (n, alpha, v, ref)


def test_value_and_large_level_against_brute_force():
    f = ta.ShuffleDP(sp.Rational(1, 2), 80)  # e^(1/2): no exact route
    for alpha in ("0.05", "0.6", "0.9"):
        v = ta.evaluate(f, sp.Rational(alpha), dps=25)
        assert v.guarantee == "certified"
        lo, hi = v.interval()
        with mpmath.workdps(40):
            ref = 1 - _brute_power(sp.Rational(1, 2), 80, alpha)
            assert lo <= ref <= hi, (alpha, v, ref)


def test_tails_and_threshold_against_brute_force():
    """The strict tails P(a/s < tau), Q(a/s < tau) in Arb hold the brute-force sums, and the
    threshold fraction found by the search brackets the level."""
    n, eps0 = 60, 1
    law = shuffle_points(eps0, n)
    tau = threshold_fraction(1.0, n, 0.03)
    assert tau is not None and tau.denominator <= n
    with mpmath.workdps(40):
        zero = mpmath.mpf(0)
        P = sum((p for (x, y), (p, q) in law.items() if Fraction(x, x + y) < tau), zero)
        Q = sum((q for (x, y), (p, q) in law.items() if Fraction(x, x + y) < tau), zero)
        Peq = sum((p for (x, y), (p, q) in law.items() if Fraction(x, x + y) == tau), zero)
        assert P <= mpmath.mpf("0.03") <= P + Peq
    from flint import arb

    with arb_precision(200):
        E = arb(1).exp()
        tp, tq = strict_tails(E, n, tau, 1, n, 200)
        for ball, ref in ((tp, P), (tq, Q)):
            with mpmath.workdps(40):
                ref = str(ref)
            assert ball.lower() <= arb(ref) + arb(10) ** -38
            assert ball.upper() >= arb(ref) - arb(10) ** -38
            assert ball.rad() < arb(10) ** -40


def test_gives_way_outside_its_domain():
    """Levels 0 and 1 and eps0 = 0 are not this route's (None: the caller's routes answer)."""
    with mp.workdps(20):
        assert shuffle_power(sp.Integer(1), 100, mp.zero, mp.one, True) is None
        assert shuffle_power(sp.Integer(1), 100, mp.one, mp.zero, True) is None
        assert shuffle_power(sp.Integer(0), 100, mp.mpf("0.1"), mp.mpf("0.9"), True) is None


@pytest.mark.slow
def test_large_n_against_table_route():
    """n = 10^4 at alpha = 1/100: the table route (all 3.6 million atoms in Arb) agrees."""
    from tradeoff_algebra.families.shuffle import _eval

    f = ta.ShuffleDP(1, 10**4)
    v = ta.roc(f, sp.Rational(1, 100), dps=30)
    assert v.route == ROUTE and v.guarantee == "certified"
    with mp.workdps(30):
        a = mp.mpf(1) / 100
        ref = _eval(f, a, 1 - a, True)
    lo, hi = v.interval()
    assert lo <= ref[0] and ref[1] <= hi


def test_curve_band_against_brute_force():
    """ta.curve(bounds=True) of ShuffleDP: certified bands (no EstimateWarning) holding the
    brute-force values, within the default tolerance (5e-4) from every fourth level's
    threshold and to the balls' width where every level is computed (``tol=None``), with
    f(0) = 1 and f(1) = 0."""
    import warnings

    import numpy as np

    from tradeoff_algebra.families.shuffle_curve import curve_band

    n = 120
    f = ta.ShuffleDP(1, n)
    x = np.linspace(0, 1, 21)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = ta.curve(f, x, bounds=True)
    assert lo[0] == hi[0] == 1 and lo[-1] == hi[-1] == 0
    full = curve_band(sp.Integer(1), n, x)
    assert full.f_lo[0] == full.f_hi[0] == 1 and full.f_lo[-1] == full.f_hi[-1] == 0
    for i in range(1, 20):
        with mpmath.workdps(40):
            ref = 1 - _brute_power(1, n, repr(float(x[i])))
        assert lo[i] <= ref <= hi[i], (x[i], lo[i], ref, hi[i])
        assert hi[i] - lo[i] <= 5e-4
        assert full.f_lo[i] <= ref <= full.f_hi[i]
        assert full.f_hi[i] - full.f_lo[i] < 1e-14
        assert full.power_lo[i] <= 1 - ref <= full.power_hi[i]
