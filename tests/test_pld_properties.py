"""Property tests: the PLD engine's enclosures of a product contain the closed form wherever one
exists (Dong, Roth & Su, Cor. 2 for G_mu (x) G_nu; the scaling by f_{0,delta}; the binomial
family of Kairouz et al. for f_{eps,0}^{(x) n}), at random parameters, alpha and eps."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import BinomialDP, EpsDelta, G
from tradeoff_algebra.families.gaussian import gaussian_delta
from tradeoff_algebra.numeric import pld

H = 2.0**-9  # a fixed coarse grid: the enclosures hold on every grid
mus = st.floats(0.05, 3.0)
alphas = st.floats(1e-6, 0.999)
epss = st.floats(-1.0, 6.0)


def g_value(mu, a):
    """G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (Eq. (5)) at 40 digits."""
    with workdps(40):
        return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(a) - 1) - mu)


def g_delta(mu, eps):
    """delta(eps) of G_mu (Cor. 1) at any real eps; negative eps by the symmetry of G_mu:
    delta(-e) = 1 - e^{-e} + e^{-e} delta(e)."""
    with workdps(40):
        mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
        if eps >= 0:
            return gaussian_delta(mu, eps)
        return 1 - mpmath.exp(eps) + mpmath.exp(eps) * gaussian_delta(mu, -eps)


@settings(max_examples=25, deadline=None)
@given(mu=mus, nu=mus, a=alphas, eps=epss)
def test_gaussian_pair_contains_cor2(mu, nu, a, eps):
    leaves = ((G(mu), 1), (G(nu), 1))
    m = math.hypot(mu, nu)
    lo, hi = pld.value_enclosure(leaves, a, h=H)
    assert lo <= g_value(m, a) <= hi and hi - lo < 1e-3
    lo, hi = pld.delta_enclosure(leaves, eps, h=H)
    assert lo <= g_delta(m, eps) <= hi and hi - lo < 1e-3


@settings(max_examples=25, deadline=None)
@given(mu=mus, d=st.fractions(0, 1, max_denominator=1000), a=alphas, eps=epss)
def test_f0delta_scaling_contains_closed_form(mu, d, a, eps):
    """G_mu (x) f_{0,delta}: the f_{0,delta} factor splits off an atom of mass delta at +oo and
    one at -oo, so the product is (1 - delta) G_mu(alpha / (1 - delta)) for alpha <= 1 - delta
    and 0 beyond, and its profile is delta + (1 - delta) delta_{G_mu}(eps)."""
    d = sp.Rational(d.numerator, d.denominator)
    if d == 1:
        return
    leaves = ((G(mu), 1), (EpsDelta(0, d), 1))
    D = mpmath.mpf(d.p) / d.q
    with workdps(40):
        ref = (1 - D) * g_value(mu, a / (1 - D)) if a < 1 - D else mpmath.mpf(0)
        ref_delta = D + (1 - D) * g_delta(mu, eps)
    lo, hi = pld.value_enclosure(leaves, a, h=H)
    assert lo <= ref <= hi and hi - lo < 1e-3
    lo, hi = pld.delta_enclosure(leaves, eps, h=H)
    assert lo <= ref_delta <= hi and hi - lo < 1e-3


_PURE_DP = dict(e0=st.floats(0.05, 2.0), n=st.integers(1, 40), t=st.floats(0.0, 1.0), a=alphas)


@settings(max_examples=5, deadline=None)
@given(**_PURE_DP)
def test_pure_dp_power_contains_binomial(e0, n, t, a):
    """f_{eps,0}^{(x) n} through the engine (its atoms at +-eps are off the grid) against the
    exact binomial family (Kairouz et al.; Dong, Roth & Su, Sec. 3.3): 5 examples here, 20 in
    the slow run (about 0.6 s of CPU each)."""
    _pure_dp_power_contains_binomial(e0, n, t, a)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(**_PURE_DP)
def test_pure_dp_power_contains_binomial_more_examples(e0, n, t, a):
    _pure_dp_power_contains_binomial(e0, n, t, a)


def _pure_dp_power_contains_binomial(e0, n, t, a):
    leaves = ((EpsDelta(e0, 0), n),)
    exact = BinomialDP(e0, n)
    eps = t * n * e0
    lo, hi = pld.delta_enclosure(leaves, eps, h=H)
    ref = ta.delta(exact, eps, dps=30).mid
    assert lo <= ref <= hi
    lo, hi = pld.value_enclosure(leaves, a, h=H)
    ref = ta.evaluate(exact, a, dps=30).mid
    assert lo <= ref <= hi
