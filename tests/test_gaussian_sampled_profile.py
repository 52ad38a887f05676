"""One and two Poisson-subsampled Gaussian steps (families/gaussian_sampled_profile.py, the few-step
profile route of numeric/cf_route.py) against independent references: one step by 40-digit
mpmath quadrature of (A - e^eps B)_+ over the densities, two steps by 30-digit mpmath quadrature
of the one-step profile over the first step, dp_accounting's pessimistic/optimistic PLD pair,
and the plain certified inversion where it is affordable (two steps at q = 1/2)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from references.sampled_gaussian import (
    sampled_gaussian_delta_halfline,
    sampled_gaussian_delta_one,
    sampled_gaussian_delta_two,
)

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.numeric import cf_route
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def mpf(v):
    if isinstance(v, Fraction):
        return mp.mpf(v.numerator) / v.denominator
    return mp.mpf(v)


CASES = [(Fraction(10, 11), Fraction(256, 60000)), (Fraction(2), Fraction(1, 100)),
         (Fraction(1, 4), Fraction(1, 1000))]


@pytest.mark.parametrize("mu,q", CASES)
@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("which", [0, 1, 2, 3])
def test_one_step_against_density_quadrature(mu, q, direction, which):
    law = SubsampledGaussianLaw(mu, q, direction)
    top = -float(mp.log(1 - mpf(q)))  # (the add direction's largest loss)
    for eps in [(0.0, top / 3, 0.05, 0.25)[which]]:
        with mp.workdps(40):
            ref = sampled_gaussian_delta_one(mpf(mu), mpf(q), direction, mpf(eps))
        lo, hi = law.few_step_delta(1, eps, 1e-12)
        assert mpf(lo) <= ref <= mpf(hi)
        assert hi - lo <= 1e-12 * float(ref) or hi == lo == ref == 0


@pytest.mark.parametrize("direction,eps", [("remove", 0.0), ("remove", 0.05), ("add", 0.003),
                                           ("add", 0.05)])
def test_two_steps_against_quadrature(direction, eps):
    mu, q = CASES[0]
    law = SubsampledGaussianLaw(mu, q, direction)
    with mp.workdps(30):
        ref = sampled_gaussian_delta_two(mpf(mu), mpf(q), direction, mpf(eps))
    lo, hi = law.few_step_delta(2, eps, 1e-11)
    assert mpf(lo) <= ref <= mpf(hi)
    assert hi - lo <= 1e-11 * float(ref) or hi == lo == ref == 0


@pytest.mark.parametrize("mu,q,eps", [(Fraction(2), Fraction(1, 100), 0.4),
                                      (Fraction(1, 2), Fraction(1, 1000), 0.0005),
                                      # (add: near its largest two-step loss, delta ~ 1e-31)
                                      (Fraction(10, 11), Fraction(256, 60000), 0.008543)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_other_parameters(mu, q, eps, direction):
    law = SubsampledGaussianLaw(mu, q, direction)
    with mp.workdps(30):
        ref = sampled_gaussian_delta_two(mpf(mu), mpf(q), direction, mpf(eps))
    lo, hi = law.few_step_delta(2, eps, 1e-10)
    assert mpf(lo) <= ref <= mpf(hi)
    assert hi - lo <= 1e-10 * float(ref) or hi == lo == ref == 0


def test_halfline_reference_agrees_with_density_quadrature():
    """The two references' one-step profiles agree (the two-step reference rests on one)."""
    with mp.workdps(30):
        mu, q = mp.mpf(10) / 11, mp.mpf(256) / 60000
        for d, e in (("remove", 0.05), ("add", 0.002), ("remove", -0.001)):
            a = sampled_gaussian_delta_one(mu, q, d, mp.mpf(e))
            b = sampled_gaussian_delta_halfline(mu, q, d, mp.mpf(e))
            assert abs(a - b) <= 1e-25 * abs(a)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_against_plain_inversion(direction, monkeypatch):
    """Where the whole law inverts in about a second (q = 1/2, mu = 1; its plan is beyond the
    route's MAX_WORK, lifted here), the profile and the inversion (numeric.cf, another method)
    agree: their balls meet."""
    monkeypatch.setattr(cf_route, "MAX_WORK", float("inf"))
    mu, q, eps = Fraction(1), Fraction(1, 2), 0.3
    law = SubsampledGaussianLaw(mu, q, direction)
    lo, hi = law.few_step_delta(2, eps, 1e-10)
    with working_precision(64):
        r = cf_route._finite_enclosure([(law, 2)], "delta", eps, eps, 1e-9)
    assert r is not None
    assert max(lo, r[0]) <= min(hi, r[1])


def _dp_accounting_bracket(sigma: float, q: float, T: int, eps: float):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(sigma, pessimistic_estimate=pess, sampling_prob=q,
                                        value_discretization_interval=1e-4,
                                        use_connect_dots=pess)
        out.append(p.self_compose(T).get_delta_for_epsilon(eps) if T > 1
                   else p.get_delta_for_epsilon(eps))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("T,eps", [(1, 0.002), (1, 0.05), (2, 0.05)])
def test_dpsgd_inside_dp_accountings_pair(T, eps):
    """delta(eps) of DP-SGD (add/remove, sigma = 1.1, q = 256/60000) lies between
    dp_accounting's optimistic and pessimistic PLD at its default grid 1e-4 (float64 bounds,
    not proved: at one step the pessimistic one lies 2e-10 below the truth, so each side is
    given a relative 1e-9 of float slack)."""
    opt, pess = _dp_accounting_bracket(1.1, 256 / 60000, T, eps)
    f = ta.noisy_sgd(1.1, dataset_size=60000, batch_size=256, steps=T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.delta(f, eps)
    assert v.guarantee == "certified"
    assert opt * (1 - 1e-9) <= float(v.lo) and float(v.hi) <= pess * (1 + 1e-9)


@pytest.mark.parametrize("sigma,q,T", [
    (R(11, 10), R(256, 60000), 1), (R(1, 2), R(1, 1000), 1), (R(4), R(1, 100), 1),
    pytest.param(R(11, 10), R(256, 60000), 2, marks=pytest.mark.slow),
    # (eps near 2.15: a root placed by the rough values alone was 1.5e-8 off, 2e-7 wide)
    pytest.param(R(1, 2), R(256, 60000), 2, marks=pytest.mark.slow)])
def test_epsilon_certified_without_warning(sigma, q, T):
    """eps(1e-5) at relative width 1e-9, certified, no warning; the 30-digit references put
    delta above 1e-5 at its lower end and below at its upper end."""
    f = ta.noisy_sgd(sigma, q, T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5))
    assert v.guarantee == "certified" and v.route == cf_route.PROFILE
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    ref = sampled_gaussian_delta_halfline if T == 1 else sampled_gaussian_delta_two
    with mp.workdps(30):
        mu, qq = 1 / (mp.mpf(sigma.p) / sigma.q), mp.mpf(q.p) / q.q
        for x, above in ((v.lo, True), (v.hi, False)):
            d = max(ref(mu, qq, s, mp.mpf(x)) for s in ("remove", "add"))
            assert (d > mp.mpf(10) ** -5) == above


@pytest.mark.parametrize("T,eps", [(1, R(1, 20)), (2, R(1, 20)),
                                   pytest.param(2, R(1, 500), marks=pytest.mark.slow)])
def test_delta_ball_holds_the_reference(T, eps):
    """delta(eps) through the public API: a certified ball of relative width <= 1e-9, not a
    point, holding the 30-digit reference (the larger direction), labelled with its route."""
    f = ta.noisy_sgd(R(11, 10), dataset_size=60000, batch_size=256, steps=T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.delta(f, eps)
    assert v.guarantee == "certified" and v.route == cf_route.PROFILE
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    ref = sampled_gaussian_delta_halfline if T == 1 else sampled_gaussian_delta_two
    with mp.workdps(30):
        mu, q = mpf(Fraction(10, 11)), mpf(Fraction(256, 60000))
        e = mp.mpf(eps.p) / eps.q
        d = max(ref(mu, q, s, e) for s in ("remove", "add"))
    assert v.lo <= d <= v.hi


def test_profile_route_leaves_the_inversions_work_alone():
    """The profile answers delta and eps of one and two steps (``answers_from_profile``), but
    the plain inversion's planned work, which the curves' routes read before planning it, stays
    that of the inversion: beyond MAX_WORK for one step (the curve routes must not plan it)."""
    law = SubsampledGaussianLaw(Fraction(10, 11), Fraction(256, 60000), "remove")
    assert cf_route.answers_from_profile([(law, 1)])
    assert cf_route.answers_from_profile([(law, 2)])
    assert not cf_route.answers_from_profile([(law, 3)])
    assert not cf_route.answers_from_profile([(law.truncated(3, 1), 1)])
    with working_precision(64):
        assert cf_route._work([(law, 1)], 0.05, 1e-10) > cf_route.MAX_WORK
