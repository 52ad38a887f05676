"""The piecewise closed form of L_mu^{(x) k}'s privacy profile (numeric/cf_lattice_profile.py):
against the nested mpmath quadrature of tests/references/laplace_mixed.py (the factors' laws
conditioned on one by one, 40 digits), the Irwin-Hall quadrature of
tests/references/laplace_sum.py (30 digits), and the lattice split's piece-by-piece sums of
numeric/cf_lattice.py (B-spline truncated powers integrated one by one: a different exact sum);
its two exact constructions of the density against each other; and eps(delta) through the
product route, bracketed by the reference's delta at its two ends."""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric import cf_lattice
from tradeoff_algebra.numeric.cf_lattice import ExactPart
from tradeoff_algebra.numeric.cf_lattice_profile import (
    MAX_TABLE,
    POWER_ROUTE,
    LaplacePowerProfile,
    _density_split,
    _density_whole,
    power_enclosure,
    power_profile,
)
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp


def _quad_delta(mu: F, k: int, eps, dps: int = 40):
    """delta(eps) = Q(L > eps) - e^eps P(L > eps) by the nested quadrature (k <= 3)."""
    from references.laplace_mixed import tail

    with mp.workdps(dps):
        m = mp.mpf(mu.numerator) / mu.denominator
        e = mp.mpf(eps)
        return tail([m] * k, True, e) - mp.exp(e) * tail([m] * k, False, e)


def _ih_delta(mu: F, k: int, eps, dps: int = 30):
    """delta(eps) by the Irwin-Hall quadrature of references.laplace_sum (any k)."""
    from references.laplace_sum import tails

    with mp.workdps(dps):
        m = mp.mpf(mu.numerator) / mu.denominator
        e = mp.mpf(eps)
        qg, pg, _, _ = tails(m, k, e)
        return qg - mp.exp(e) * pg


def _contains(ball: arb, x, slack: float = 0.0) -> bool:
    lo, hi = mp.mpf(ball.lower().str(40, radius=False)), mp.mpf(ball.upper().str(40,
                                                                                  radius=False))
    return lo - slack <= x <= hi + slack


@pytest.mark.parametrize("mu", [F(1, 10), F(1), F(3, 7)])
@pytest.mark.parametrize("eps", [-0.35, 0.0, 0.05, 0.15, 0.199])
def test_two_factors_against_nested_quadrature(mu, eps):
    """k = 2 at eps inside and outside [-2 mu, 2 mu], on and off the lattice points: the ball
    holds the 40-digit quadrature."""
    prof = LaplacePowerProfile(mu, 2, 3)
    with working_precision(200):
        d, _ = prof.terms(eps)
    ref = _quad_delta(mu, 2, eps)
    with mp.workdps(40):
        assert _contains(d, ref, mp.mpf(10) ** -35 * max(abs(ref), mp.mpf(10) ** -30))
        if ref != 0:
            assert d.rad() < 1e-40 * abs(d.mid())


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.02, 0.1, 0.25])
def test_three_factors_against_nested_quadrature(eps):
    """k = 3, mu = 1/10: two nested quadratures at 30 digits."""
    mu = F(1, 10)
    prof = LaplacePowerProfile(mu, 3, 4)
    with working_precision(200):
        d, _ = prof.terms(eps)
    ref = _quad_delta(mu, 3, eps, dps=30)
    with mp.workdps(30):
        assert _contains(d, ref, mp.mpf(10) ** -26 * abs(ref))


@pytest.mark.parametrize("k,eps", [(5, 0.3), (5, 0.4999), (10, 0.9989780894),
                                   pytest.param(10, 0.85, marks=pytest.mark.slow)])
def test_irwin_hall_quadrature(k, eps):
    """k = 5 and 10 (the benchmark's eps(1e-6) point among them) against the Irwin-Hall
    quadrature at 30 digits."""
    mu = F(1, 10)
    prof = LaplacePowerProfile(mu, k, k + 1)
    with working_precision(200):
        d, der = prof.terms(eps)
    ref = _ih_delta(mu, k, eps)
    with mp.workdps(30):
        assert _contains(d, ref, mp.mpf(10) ** -25 * abs(ref))


@pytest.mark.parametrize("mu", [F(1, 10), F(1), F(3, 7), F(5)])
@pytest.mark.parametrize("k,J", [(1, 2), (3, 4), (6, 3), (7, 8), (12, 13), (12, 5)])
def test_against_piecewise_sums(mu, k, J):
    """Value and derivative overlap the lattice split's piece-by-piece sums (``ExactPart``'s
    loop, called with the closed form switched off), and are narrower."""
    old = ExactPart(LaplaceLaw(mu), k, J)
    new = LaplacePowerProfile(mu, k, J)
    m = float(mu)
    for eps in (-k * m - 0.1, -0.3 * m, 0.0, 0.37 * m, 0.5 * k * m + 1e-9, 0.999 * k * m,
                (k - 2) * m, k * m):
        with working_precision(160):
            a, da = new.terms(eps)
            saved = cf_lattice.power_profile
            cf_lattice.power_profile = lambda *args: None
            try:
                b, db = old.terms(eps)
            finally:
                cf_lattice.power_profile = saved
        assert a.overlaps(b) and da.overlaps(db), (mu, k, J, eps, a, b, da, db)
        assert a.rad() <= b.rad() * 1.01 + arb(2) ** -150


@pytest.mark.parametrize("k", [1, 2, 5, 9])
def test_density_constructions_agree(k):
    """The density by k convolutions with rho equals the B-spline sum over j, exactly."""
    for mu in (F(1, 10), F(7, 3)):
        assert _density_whole(k, mu) == _density_split(k, k + 1, mu)


def test_mass_and_ends():
    """J = k + 1: delta(-oo side) = 1 - e^eps (every loss above eps), delta(k mu) = 0, and
    the derivative -e^eps P(L > eps) = -e^eps below every loss."""
    mu = F(1, 10)
    prof = LaplacePowerProfile(mu, 6, 7)
    with working_precision(128):
        d, der = prof.terms(-0.7)
        ref = 1 - arb(-0.7).exp()
        assert d.overlaps(ref) and d.rad() < 1e-30
        assert der.overlaps(-arb(-0.7).exp())
        d, der = prof.terms(0.61)  # (0.6 as a float lies below 6/10: delta 3.5e-19 there)
        assert d == 0 and der == 0
        d, _ = prof.terms(0.6)
        assert 0 < d < 1e-18


def test_bad_input():
    with pytest.raises(ValueError, match="mu"):
        LaplacePowerProfile(F(-1, 2), 3, 4)
    with pytest.raises(ValueError, match="k >= 1"):
        LaplacePowerProfile(F(1, 2), 0, 1)
    assert power_profile(F(1, 10), 40, 41) is None  # (beyond MAX_TABLE)
    assert 20 * 21**2 <= MAX_TABLE


def test_power_enclosure_declines_others():
    assert power_enclosure([(LaplaceLaw(F(1, 10)), 40)], "epsilon", 1e-6, 1e-6, 1e-4) is None
    assert power_enclosure([], "epsilon", 1e-6, 1e-6, 1e-4) is None


@pytest.mark.parametrize("k", [2, 3, 5, pytest.param(10, marks=pytest.mark.slow)])
def test_epsilon_route(k):
    """eps(1e-6) of L(1/10)^k through the product routes: certified by this route, at most
    1e-10 wide, and the Irwin-Hall quadrature's delta brackets 1e-6 at the two ends."""
    f = ta.Laplace(sp.Rational(1, 10)) ** k
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, sp.Rational(1, 1000000), dps=20)
    assert v.guarantee == "certified" and POWER_ROUTE in (v.route or "")
    lo, hi = v.interval()
    assert hi - lo <= 1e-10 * hi
    mu = F(1, 10)
    with mp.workdps(30):
        assert _ih_delta(mu, k, lo) > mp.mpf(10) ** -6 > _ih_delta(mu, k, hi)


def test_delta_route():
    """delta(eps) of L(1/10)^4 at eps = 1/5 through the product routes holds the quadrature."""
    f = ta.Laplace(sp.Rational(1, 10)) ** 4
    v = ta.delta(f, sp.Rational(1, 5), dps=20)
    assert v.guarantee == "certified" and POWER_ROUTE in (v.route or "")
    lo, hi = v.interval()
    with mp.workdps(30):
        ref = _ih_delta(F(1, 10), 4, mp.mpf(1) / 5)
        assert lo <= ref <= hi


def test_epsilon_zero_above_the_total_variation():
    """delta(0) = TV of L(1/10)^7 is below 1/2: eps(1/2) = 0, certified by this route (the
    quadrature's delta(0) is below the level)."""
    f = ta.Laplace(sp.Rational(1, 10)) ** 7
    v = ta.epsilon(f, sp.Rational(1, 2), dps=15)
    assert v.guarantee == "certified" and v.lo == v.hi == 0 and POWER_ROUTE in (v.route or "")
    assert _ih_delta(F(1, 10), 7, 0) < mp.mpf(1) / 2
