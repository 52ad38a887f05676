"""One Poisson-subsampled Gaussian step's Neyman-Pearson points (families/gaussian_sampled_tails.py)
and the power, values and curves of DP-SGD with one step that the curve band builds from them
(routes/inversion_curve.py), against independent references: the size and power by 30-digit
mpmath quadrature of the two densities over {L > eps} (its end found by bisection on the loss),
and the hull's power as the envelope of the privacy profile (Dong, Roth & Su, Prop. 6:
1 - C(alpha) = min over eps of delta(eps) + e^eps alpha and of its mirror image, delta the larger
of the two directions'), minimised by golden section in mpmath and evaluated with delta by
quadrature of (A - e^eps B)_+."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from flint import arb
from references.sampled_gaussian import (
    _crossing,
    sampled_gaussian_delta_halfline,
    sampled_gaussian_delta_one,
    sampled_gaussian_delta_two,
    sampled_gaussian_pair,
)

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.hull_one import ROUTE as HULL_ONE_ROUTE

R = sp.Rational


def mpf(v):
    return mp.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mp.mpf(v)


CASES = [(Fraction(10, 11), Fraction(256, 60000)), (Fraction(2), Fraction(1, 100))]


def _tails_by_quadrature(mu, q, direction, eps):
    """(alpha, power) = (B(L > eps), A(L > eps)) by quadrature of the densities."""
    a, b, loss = sampled_gaussian_pair(mu, q, direction)
    c = _crossing(loss, eps)
    if c is None:
        inside = loss(mp.zero) > eps
        return (mp.one, mp.one) if inside else (mp.zero, mp.zero)
    ends = [c, mp.inf] if direction == "remove" else [-mp.inf, c]
    return mp.quad(b, ends), mp.quad(a, ends)


@pytest.mark.slow
@pytest.mark.parametrize("mu,q", CASES)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_points_against_density_quadrature(mu, q, direction):
    law = SubsampledGaussianLaw(mu, q, direction)
    t = law.few_step_tails(1, 1e-12)
    top = -float(mp.log(1 - mpf(q)))
    for eps in (0.0, top / 2, 0.05, 0.4):
        p = t.point(eps)
        with mp.workdps(30):
            alpha, power = _tails_by_quadrature(mpf(mu), mpf(q), direction, mpf(eps))
            delta = sampled_gaussian_delta_one(mpf(mu), mpf(q), direction, mpf(eps))
        for ball, ref in ((p.alpha, alpha), (p.power, power), (p.delta, delta)):
            lo, hi = mp.mpf(ball.lower()), mp.mpf(ball.upper())
            assert lo <= ref <= hi, (eps, ball, ref)
            assert hi - lo <= 1e-11 * abs(ref) or ref == 0
        est = t.estimate(np.array([eps]))
        assert est[1][0] == pytest.approx(float(power), rel=1e-9, abs=1e-300)
        assert est[2][0] == pytest.approx(float(alpha), rel=1e-9, abs=1e-300)


def test_three_steps_have_no_tails_object():
    law = SubsampledGaussianLaw(Fraction(1), Fraction(1, 100), "remove")
    assert law.few_step_tails(3, 1e-9) is None


def _golden(g, lo, hi, n=160):
    """The least value of the unimodal g on [lo, hi] (mpmath), and where."""
    r = (mp.sqrt(5) - 1) / 2
    a, b = mp.mpf(lo), mp.mpf(hi)
    c, d = b - r * (b - a), a + r * (b - a)
    gc, gd = g(c), g(d)
    for _ in range(n):
        if gc < gd:
            b, d, gd = d, c, gc
            c = b - r * (b - a)
            gc = g(c)
        else:
            a, c, gc = c, d, gd
            d = a + r * (b - a)
            gd = g(d)
    return (a + b) / 2


def hull_power_reference(mu, q, alpha):
    """1 - C(alpha) of C(Mix(G_mu, q)) as the envelope of its profile (module docstring): the
    minimisers located with the half-line profile, the values with delta by quadrature."""
    def dmax(e, d1):
        return max(d1(mu, q, "remove", e), d1(mu, q, "add", e))

    v = _golden(lambda v: dmax(mp.log(v), sampled_gaussian_delta_halfline) + v * alpha, 1, 1e3)
    u = _golden(lambda u: 1 - u * (1 - alpha - dmax(-mp.log(u), sampled_gaussian_delta_halfline)),
                1e-3, 1)
    first = dmax(mp.log(v), sampled_gaussian_delta_one) + v * alpha
    second = 1 - u * (1 - alpha - dmax(-mp.log(u), sampled_gaussian_delta_one))
    return min(first, second)


@pytest.mark.parametrize("alpha", [R(1, 100)] + [pytest.param(a, marks=pytest.mark.slow)
                                                 for a in (R(1, 10**6), R(1, 2), R(99, 100))])
def test_dpsgd_one_step_power_against_profile_envelope(alpha):
    mu, q = CASES[0]
    f = ta.noisy_sgd(R(11, 10), dataset_size=60000, batch_size=256, steps=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            p = ta.roc(f, alpha)
            v = ta.evaluate(f, alpha)
    assert p.guarantee == v.guarantee == "certified"
    # (not the PLD engine's estimate: one step's hull C(f_p) = C_p(f) in Arb, routes.hull_one)
    assert p.route == HULL_ONE_ROUTE
    with mp.workdps(30):
        ref = hull_power_reference(mpf(mu), mpf(q), mp.mpf(alpha.p) / alpha.q)
    with mp.workdps(40):  # (1 - ref at 40 digits: a point of 30 digits is checked)
        lo, hi = p.interval()
        assert lo <= ref <= hi
        assert hi - lo <= 1e-9 * ref
        lo, hi = v.interval()
        assert lo <= 1 - ref <= hi


@pytest.mark.slow
def test_dpsgd_one_step_curve_band():
    mu, q = CASES[1]
    f = ta.AddRemove(ta.TensorPower(ta.Mix(ta.G(2), R(1, 100)), 1))
    xs = np.array([1e-4, 0.01, 0.3, 0.9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = ta.curve(f, xs, bounds=True)
    for a, lo_a, hi_a in zip(xs, lo, hi, strict=True):
        with mp.workdps(20):
            ref = 1 - hull_power_reference(mpf(mu), mpf(q), mp.mpf(float(a)))
        assert lo_a <= ref <= hi_a
        assert hi_a - lo_a <= 2e-3


# -- two steps -------------------------------------------------------------------------------
def _inner_tails(mu, q, direction, y):
    """(size, power) of one step's test of threshold y, from the half-line in ncdf."""
    ratio = (mp.exp(y if direction == "remove" else -y) - 1 + q) / q
    if ratio <= 0:
        return (mp.one, mp.one) if direction == "remove" else (mp.zero, mp.zero)
    c = (mp.log(ratio) + mu * mu / 2) / mu
    if direction == "remove":
        return mp.ncdf(-c), (1 - q) * mp.ncdf(-c) + q * mp.ncdf(mu - c)
    return (1 - q) * mp.ncdf(c) + q * mp.ncdf(c - mu), mp.ncdf(c)


def two_step_tails_reference(mu, q, direction, eps, dense=False):
    """(B(L1 + L2 > eps), A(L1 + L2 > eps)) by quadrature over the first step of the one-step
    tails at eps - L1, split where the inner threshold leaves the losses (``dense``: split every
    1/4 from x_b - 50 to x_b + 10 and each integrand scaled to about 1 first, for tails far out,
    1e-170, where the mass lies in a narrow band of x)."""
    a, b, loss = sampled_gaussian_pair(mu, q, direction)
    edge = mp.log(1 - q) if direction == "remove" else -mp.log(1 - q)
    xb = _crossing(loss, eps - edge, lo=-400, hi=400)
    pts = [-mp.inf, -6, -3, 0, 3, 6, mp.inf]
    if xb is not None:
        pts = sorted(set(pts) | {xb, xb - 1, xb - mp.mpf(1) / 8})
        if dense:
            pts = sorted({-mp.inf, mp.inf} | {xb + k * mp.mpf(1) / 4 for k in range(-200, 41)})
    out = []
    for dens, k in ((b, 0), (a, 1)):
        f = lambda x, dens=dens, k=k: dens(x) * _inner_tails(mu, q, direction,  # noqa: E731
                                                             eps - loss(x))[k]
        finite = [x for x in pts if mp.isfinite(x)]
        scale = max(abs(f((x + y) / 2)) for x, y in zip(finite, finite[1:], strict=False))
        out.append(mp.zero if scale == 0 else
                   scale * mp.quad(lambda x, f=f, scale=scale: f(x) / scale, pts))
    return tuple(out)


@pytest.mark.parametrize("direction,eps", [("remove", 0.0), ("remove", 0.05), ("add", 0.003),
                                           pytest.param("remove", 0.3, marks=pytest.mark.slow),
                                           pytest.param("add", 0.0, marks=pytest.mark.slow)])
def test_two_step_points_against_quadrature(direction, eps, mu=CASES[0][0], q=CASES[0][1],
                                            dense=False):
    t = SubsampledGaussianLaw(mu, q, direction).few_step_tails(2, 1e-11)
    p = t.point(eps)
    with mp.workdps(25):
        alpha, power = two_step_tails_reference(mpf(mu), mpf(q), direction, mpf(eps), dense)
    for ball, ref in ((p.alpha, alpha), (p.power, power)):
        lo, hi = mp.mpf(ball.lower()), mp.mpf(ball.upper())
        assert lo <= ref <= hi, (ball, ref)
        assert hi - lo <= 1e-10 * ref
    # the Neyman-Pearson identity delta = power - e^eps alpha against the profile's own ball
    d = t._tail(eps, "delta")
    assert (p.power - p.alpha * arb(eps).exp()).overlaps(d)
    if not dense:  # (the float placement, near the levels a band asks for)
        est = t.estimate(np.array([eps]))
        assert est[2][0] == pytest.approx(float(alpha), rel=1e-9, abs=1e-300)
        assert est[1][0] == pytest.approx(float(power), rel=1e-9, abs=1e-300)


@pytest.mark.slow
@pytest.mark.parametrize("mu,q,direction,eps", [
    (Fraction(1, 4), Fraction(1, 1000), "remove", 0.7),  # (tails of 1e-170, x_b = 27.8)
    (Fraction(1, 4), Fraction(1, 1000), "add", 0.001800900600450362),  # (2e-38, near the top)
    (Fraction(2), Fraction(1, 2), "add", 0.7), (Fraction(3), Fraction(1, 100), "remove", 2.0)])
def test_two_step_points_far_out(mu, q, direction, eps):
    test_two_step_points_against_quadrature(direction, eps, mu, q, dense=True)


def _two_step_hull_power_reference(mu, q, alpha):
    """1 - C(alpha) of C(Mix(G_mu, q)^{(x) 2}) from the envelope of its profile (every eps
    gives an upper bound delta(eps) + e^eps alpha, equal at the minimiser): the minimiser
    located in floats, the value with two-step delta by 30-digit quadrature
    (``references.sampled_gaussian``)."""
    tails = [SubsampledGaussianLaw(mu, q, d).few_step_tails(2, 1e-9) for d in ("remove", "add")]

    def dmax_float(e):
        return max(float(t.estimate(np.array([e]))[0][0]) for t in tails)

    v = float(_golden(lambda v: mp.mpf(dmax_float(math.log(v))) + v * float(alpha), 1, 1e3,
                      n=80))
    with mp.workdps(30):
        e = mp.log(v)
        d = max(sampled_gaussian_delta_two(mpf(mu), mpf(q), k, e) for k in ("remove", "add"))
        return d + mp.exp(e) * mp.mpf(alpha)


@pytest.mark.slow
def test_dpsgd_two_steps_power_against_profile_envelope():
    mu, q = CASES[0]
    f = ta.noisy_sgd(R(11, 10), dataset_size=60000, batch_size=256, steps=2)
    alpha = R(1, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            p = ta.roc(f, alpha)
    assert p.guarantee == "certified" and "few subsampled Gaussian steps" in p.route
    ref = _two_step_hull_power_reference(mu, q, alpha)
    lo, hi = p.interval()
    assert lo <= ref  # (an upper bound of the power at any eps)
    assert ref - hi <= 1e-12 * ref  # (and equal to it at the minimiser, to second order)
    assert hi - lo <= 1e-9 * ref
