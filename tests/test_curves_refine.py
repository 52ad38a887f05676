"""Certified bands narrower than the uniform grid gives (``routes.grid_band._refine``:
grid points near each level's minimisers; ``numeric.profile_band``: secants in point-slope
form, so that tiny grid intervals keep their digits): against the closed form of G_mu, and
DP-SGD's power at one level against a certified delta from the single-eps inversion."""

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.options import pld_options
from tradeoff_algebra.numeric.profile_band import band

R = sp.Rational


def _gauss_delta(mu: float, e: float) -> arb:
    """delta of G_mu at eps: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), in Arb."""
    with working_precision(200):
        m, x = arb(mu), arb(e)
        phi = lambda z: (-z / arb(2).sqrt()).erfc() / 2  # noqa: E731
        return phi(-x / m + m / 2) - x.exp() * phi(-x / m - m / 2)


def test_band_on_a_fine_local_grid_keeps_its_digits():
    """G_1 at alpha = 0.1: a coarse grid plus a cluster of points 1e-7 apart around the
    minimiser of delta(eps) + e^eps alpha, each delta a ball of relative radius 1e-14; the band
    holds the closed form Phi(mu - z) and is as narrow as the balls allow (secants through an
    intercept at x = 0 carried their slopes' radius, 1e-14 delta over the step, to x: 1e-8)."""
    mu, a = 1.0, 0.1
    with mp.workdps(40):
        z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1)
        power = mp.ncdf(mu - z)
        # the Neyman-Pearson threshold P(loss > eps) = alpha, loss ~ N(-mu^2/2, mu^2) under P
        e_star = float(mu * z - mu**2 / 2)
    coarse = [8.0 * k / 40 for k in range(41)]
    fine = [e_star + 1e-7 * k for k in range(-8, 9)]
    eps = sorted(set(coarse) | set(fine))
    with working_precision(200):  # balls as wide as the inversion's (relative 1e-14)
        d = [_gauss_delta(mu, e) for e in eps]
        d = [arb(x.mid(), abs(x.mid()) * arb("1e-14") + x.rad()) for x in d]
    b = band(eps, d, np.array([a]), prec=160)
    assert b.power_lo[0] <= power <= b.power_hi[0]
    assert b.power_hi[0] - b.power_lo[0] <= 1e-12 * float(power)


F = ta.noisy_sgd(R(11, 10), R(256, 60000), 14063)


def _power_upper(a: float) -> tuple[float, mpmath.mpf]:
    """An upper bound of the power 1 - f(a) of DP-SGD, independent of the band: min over eps of
    delta(eps) + e^eps a (Dong, Roth & Su, Prop. 6) at the float minimiser found by golden
    section on ta.delta's midpoints, with delta there a certified ta.delta (the single-eps
    Laplace inversion) at 25 digits, its upper end taken."""
    g = (5**0.5 - 1) / 2
    lo, hi = 0.5, 2.5
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)

    def h(e):
        return float(ta.delta(F, e, dps=15).mid) + np.exp(e) * a

    fc, fd = h(c), h(d)
    for _ in range(30):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = h(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = h(d)
    e = (lo + hi) / 2
    v = ta.delta(F, e, dps=25)
    assert v.guarantee == "certified"
    with mp.workdps(40):
        return e, mp.mpf(v.hi) + mp.exp(mp.mpf(e)) * mp.mpf(a)


@pytest.mark.slow
def test_roc_of_dp_sgd_at_tol_1e_9_is_certified_and_tight():
    """ta.roc at pld_options(tol=1e-9): a certified enclosure of relative width <= 1e-9,
    its lower end below an independent certified upper bound of the power that lies within
    1e-9 of its upper end; a tighter tolerance never gives a wider enclosure."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)  # the tolerance is met: no warning
        widths = []
        for tol in (1e-5, 1e-7, 1e-9):
            with pld_options(tol=tol):
                v = ta.roc(F, R(1, 100))
            assert v.guarantee == "certified"
            widths.append(mp.mpf(v.hi) - mp.mpf(v.lo))
            assert widths[-1] <= tol * mp.mpf(v.hi)
    assert widths[0] >= widths[1] >= widths[2]
    _, up = _power_upper(0.01)
    assert mp.mpf(v.lo) <= up
    assert up - mp.mpf(v.hi) <= 1e-9 * up


def test_roc_of_dp_sgd_at_tol_1e_7_meets_it():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with pld_options(tol=1e-7):
            v = ta.roc(F, R(3, 10))
    assert v.guarantee == "certified"
    assert mp.mpf(v.hi) - mp.mpf(v.lo) <= 1e-7 * mp.mpf(v.hi)
    with pld_options(tol=1e-4):
        w = ta.roc(F, R(3, 10))
    assert mp.mpf(w.lo) <= mp.mpf(v.hi) and mp.mpf(v.lo) <= mp.mpf(w.hi)  # both hold it


@pytest.mark.slow
def test_whole_curve_at_tol_1e_9_meets_it():
    """A 1001-level curve at tol 1e-9 (the curve points of the inversion's tails): certified
    to 1e-9 of the power at every level, without a warning, inside the default tolerance's
    band (a tighter tolerance never gives a wider band); below BAND_TOL_MIN a
    ToleranceWarning names it."""
    x = np.linspace(0, 1, 1001)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with pld_options(tol=1e-9):
            lo, hi = ta.curve(F, x, bounds=True)
    assert np.max((hi - lo)[1:] / np.maximum(1 - lo[1:], 1e-300)) <= 1e-9
    lo2, hi2 = ta.curve(F, x, bounds=True)  # the default tolerance: wider, around it
    assert np.all(lo2 <= lo) and np.all(hi <= hi2)
    with pld_options(tol=1e-13), pytest.warns(ToleranceWarning, match="BAND_TOL_MIN"):
        ta.curve(F, x[:11], bounds=True)
