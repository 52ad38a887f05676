"""The power, values and curves of symmetric products from the band of their certified privacy
profile (routes/profile_curve.py), against independent references: the Neyman-Pearson curve
of G(1) (x) Laplace(1) by 30-digit quadrature of its two loss laws, and the brute-force
Neyman-Pearson curve of DG(1, 2)^2 summed over the outcomes at 40 digits, and the exact
Neyman-Pearson curve of a binary lattice pair composed 400 and 5000 times in rationals."""

import math

import numpy as np
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.profile_band import Lattice
from tradeoff_algebra.routes.lattice_curve import ROUTE as LATTICE_NP
from tradeoff_algebra.routes.product import PLDRoute, route, routes_for
from tradeoff_algebra.routes.profile_curve import (
    ROUTE,
    ProfileBandRoute,
    _direction,
    _InversionDirection,
    _Mirrored,
    profile_curve_band,
)


def _gl_tails(eps):
    """(P(L > eps), Q(L > eps)) for G(1) (x) Laplace(1): the Gaussian loss is N(-1/2, 1) under
    P and N(1/2, 1) under Q; the Laplace loss l(x) = |x| - |x - 1| is -1 for x <= 0, 1 for
    x >= 1 and 2x - 1 between, x ~ Lap(0, 1) under P and Lap(1, 1) under Q."""
    def bar(t):
        return mp.erfc(t / mp.sqrt(2)) / 2

    e1 = mp.exp(-1)
    p = (bar(eps + 1 + mp.mpf(1) / 2) / 2 + e1 / 2 * bar(eps - 1 + mp.mpf(1) / 2)
         + mp.quad(lambda x: mp.exp(-x) / 2 * bar(eps - (2 * x - 1) + mp.mpf(1) / 2), [0, 1]))
    q = (e1 / 2 * bar(eps + 1 - mp.mpf(1) / 2) + bar(eps - 1 - mp.mpf(1) / 2) / 2
         + mp.quad(lambda x: mp.exp(x - 1) / 2 * bar(eps - (2 * x - 1) - mp.mpf(1) / 2),
                   [0, 1]))
    return p, q


def _gl_power(alpha):
    """1 - f(alpha) of G(1) (x) Laplace(1): the loss is continuous (the Gaussian part), so the
    Neyman-Pearson test at level alpha rejects where L > eps with P(L > eps) = alpha."""
    eps = mp.findroot(lambda e: _gl_tails(e)[0] - alpha, 1)
    return _gl_tails(eps)[1]


def _dg2_power(alpha, sigma=2, window=40):
    """1 - f(alpha) of DG(1, sigma)^2 by brute force: the outcomes (x1, x2) grouped by
    s = x1 + x2 (the likelihood ratio exp((2 s - 2)/(2 sigma^2)) increases with s), rejected
    from the largest s down, the boundary atom randomised."""
    xs = range(-window, window + 2)
    w = {x: mp.exp(-mp.mpf(x * x) / (2 * sigma**2)) for x in range(-window - 1, window + 3)}
    z = sum(w[x] for x in xs)
    p = {x: w[x] / z for x in xs}
    q = {x: w[x - 1] / z for x in xs}
    ps, qs = {}, {}
    for a in xs:
        for b in xs:
            ps[a + b] = ps.get(a + b, 0) + p[a] * p[b]
            qs[a + b] = qs.get(a + b, 0) + q[a] * q[b]
    used, power = mp.zero, mp.zero
    for s in sorted(ps, reverse=True):
        if used + ps[s] >= alpha:
            return power + qs[s] * (alpha - used) / ps[s]
        used += ps[s]
        power += qs[s]
    return power


def _check(v, ref, rel):
    with mp.workdps(40):
        lo, hi = v.interval()
        assert lo <= ref <= hi, (lo, ref, hi)
        assert (hi - lo) <= rel * hi, float((hi - lo) / hi)


def test_power_of_gauss_laplace_against_quadrature():
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    with mp.workdps(30):
        ref = _gl_power(mp.mpf(1) / 100)
    # (ta.roc answers from the loss tails, routes/tail_laws.py; here the profile band itself)
    with ta.pld_options(tol=1e-9), mp.workdps(30):
        a = mp.mpf(1) / 100
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    v = ta.Value.enclosure(lo, hi, 30, guarantee="certified")
    _check(v, ref, 1e-8)
    with ta.pld_options(tol=1e-9):
        w = ta.roc(f, sp.Rational(1, 100))
    assert w.guarantee == "certified" and ROUTE not in w.route
    _check(w, ref, 1e-8)  # (two certified routes: both hold the reference)
    # delta from inverters planned along the grid, each reused at many grid points
    from tradeoff_algebra.routes.profile_curve import _PROFILES

    (d,) = [g for (h, tol, _), g in _PROFILES.items() if h == f and tol == 1e-9]
    assert isinstance(d, _InversionDirection)
    assert 0 < len(d.inverters) < len(d.memo) / 2
    # each ball depends on its eps alone (the inverter anchored above it): a fresh direction
    # computing the grid points in the reverse order gives the same balls, bit for bit
    fresh = _InversionDirection(d.f, d.plan, d.routes, d.rel, d.factors)
    with mp.workdps(30):
        for e in sorted(d.memo, reverse=True)[:12]:
            b = fresh.delta(e)
            assert b.mid() == d.memo[e].mid() and b.rad() == d.memo[e].rad()


def test_value_of_gauss_laplace_against_quadrature():
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    with mp.workdps(30):
        ref = 1 - _gl_power(mp.mpf(1) / 3)
    with ta.pld_options(tol=1e-7):
        v = ta.evaluate(f, sp.Rational(1, 3))
    assert v.guarantee == "certified"
    _check(v, ref, 1e-6)


@pytest.mark.parametrize("alpha", [sp.Rational(1, 100), sp.Rational(2, 5)])
def test_power_of_a_discrete_gaussian_product_against_brute_force(alpha):
    f = ta.TensorPower(ta.DiscreteGaussian(1, 2), 2)
    with mp.workdps(40):
        ref = _dg2_power(mp.mpf(alpha.p) / alpha.q)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, alpha)
    assert v.guarantee == "certified"
    _check(v, ref, 1e-8)


def test_curve_band_against_quadrature():
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    x = np.array([0.0, 0.01, 0.1, 0.5, 1.0])
    b = profile_curve_band(f, x, 1e-5)
    assert b is not None
    assert b.f_lo[0] == b.f_hi[0] == 1.0  # f(0) = 1: no factor has mass where P = 0
    with mp.workdps(30):
        for i in (1, 2, 3):
            power = _gl_power(mp.mpf(x[i]))
            assert b.power_lo[i] <= power <= b.power_hi[i]
            assert b.f_lo[i] <= 1 - power <= b.f_hi[i]
            assert b.power_hi[i] - b.power_lo[i] <= 1e-5 * b.power_hi[i]
    assert b.f_hi[4] <= 1e-300  # f(1) = 0


def test_only_certified_delta_routes_and_symmetric_products():
    f = ta.TensorPower(ta.Laplace(sp.Rational(1, 10)), 50)
    d = _direction(f, 1e-6)
    assert d is not None and not any(isinstance(r, PLDRoute) for r in d.routes)
    # an asymmetric pair in the product: its profile's envelope is not f (Prop. 6); the band
    # takes the inverse's profile for its second branch
    g = ta.Tensor(ta.G(1), ta.Discrete([sp.Rational(1, 2), sp.Rational(1, 2)],
                                       [sp.Rational(1, 4), sp.Rational(3, 4)]))
    assert g.is_symmetric is not True
    assert isinstance(_direction(g, 1e-6), _Mirrored)
    assert any(isinstance(r, ProfileBandRoute) for r in routes_for(f, "roc"))
    assert route(f)[0] == "pld"


def _binary_power(n, alpha):
    """1 - f(alpha) of T(P, Q)^{(x) n}, P = (11/21, 10/21), Q = (10/21, 11/21), exactly: k
    outcomes of the second kind have the loss (2k - n) log(11/10), increasing in k, with the
    integer masses C(n, k) 11^k 10^(n - k) under Q and C(n, k) 10^k 11^(n - k) under P over
    21^n; the Neyman-Pearson test rejects from k = n down, the boundary atom randomised (Dong,
    Roth & Su, Def. 2 and Prop. 6), all in exact rationals."""
    from fractions import Fraction
    from math import comb

    scale = 21**n
    target = Fraction(alpha.p, alpha.q) * scale
    used = power = 0
    for k in range(n, -1, -1):
        c = comb(n, k)
        ps, qs = c * 10**k * 11 ** (n - k), c * 11**k * 10 ** (n - k)
        if used + ps >= target:
            return (power + qs * (target - used) / ps) / scale
        used += ps
        power += qs
    return Fraction(1)


def _binary(n):
    r = sp.Rational
    return ta.TensorPower(ta.Discrete([r(11, 21), r(10, 21)], [r(10, 21), r(11, 21)]), n)


@pytest.mark.parametrize("n, alpha", [(400, sp.Rational(1, 100)), (400, sp.Rational(1, 3)),
                                      pytest.param(5000, sp.Rational(1, 10**6),
                                                   marks=pytest.mark.slow)])
def test_power_of_a_lattice_power_against_exact_neyman_pearson(n, alpha):
    # n = 400: the Arb lattice power's table; n = 5000: the tilted lattice power
    f = _binary(n)
    assert _direction(f, 1e-9).lattice is not None
    ref = _binary_power(n, alpha)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, alpha)
    # (the vertices of the lattice law answer first: routes/lattice_curve.py)
    assert v.guarantee == "certified" and (ROUTE in v.route or LATTICE_NP in v.route)
    with mp.workdps(40):
        _check(v, mp.mpf(ref.numerator) / ref.denominator, 1e-9)
    # the band of the profile itself: between the lattice losses it is exact, its width the
    # delta balls' (asked to tol * DELTA_SHARE), far below the secant band's second-order term
    with ta.pld_options(tol=1e-9):
        a = mp.mpf(alpha.p) / alpha.q
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    with mp.workdps(40):
        r = mp.mpf(ref.numerator) / ref.denominator
        assert lo <= r <= hi
        assert hi - lo <= 1e-10 * hi


def test_value_of_a_lattice_power_against_exact_neyman_pearson():
    alpha = sp.Rational(1, 3)
    ref = 1 - _binary_power(400, alpha)
    with ta.pld_options(tol=1e-9):
        v = ta.evaluate(_binary(400), alpha)
    assert v.guarantee == "certified"
    with mp.workdps(40):
        _check(v, mp.mpf(ref.numerator) / ref.denominator, 1e-9)


def test_curve_of_a_lattice_power_against_exact_neyman_pearson():
    x = np.array([0.0, 1e-4, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0])
    b = profile_curve_band(_binary(400), x, 1e-6)
    assert b is not None
    for i in range(1, 10):
        ref = float(_binary_power(400, sp.Rational(x[i])))
        assert b.power_lo[i] <= ref <= b.power_hi[i], (x[i], b.power_lo[i], ref)
        assert b.power_hi[i] - b.power_lo[i] <= 1e-6 * b.power_hi[i]
    assert b.f_lo[0] == b.f_hi[0] == 1.0 and b.f_hi[-1] <= 1e-300


def test_lattice_kinks_and_points_against_exact_enumeration():
    from fractions import Fraction

    lat = Lattice(Fraction(1, 4), Fraction(1, 4))
    assert lat.kinks(0.26, 0.49) == []  # no loss k/4 inside: h is affine there
    (k,) = lat.kinks(0.3, 0.6)
    assert k.contains(0.5) and k.rad() == 0
    assert lat.kinks(0.3, 0.8) is None  # 0.5 and 0.75: two kinks
    with mp.workdps(50):
        step = mp.log(3)
        log3 = Lattice(Fraction(0), arb(3).log())
        pts = log3.points_in(1.0, 7.0)
        assert len(pts) == 6  # m log 3 for m = 1 .. 6
        for m, t in enumerate(pts, start=1):
            assert 0 < t - m * step < 1e-14
            assert log3.kinks(t - 0.5, t) is not None


def _laplace2_tails(mu, t):
    """(P(L > t), Q(L > t)) for Laplace(mu)^2 by 30-digit quadrature: one factor's loss
    |x| - |x - mu| is -mu (P-mass 1/2, Q-mass e^-mu/2), +mu (e^-mu/2, 1/2), or 2x - mu in
    between with the P-density e^{-(l + mu)/2}/4 and the Q-density e^l times it; the two
    factors' atoms and densities combined (atom-atom exactly, atom-density by the closed-form
    tail, density-density by quadrature)."""
    atoms = [(-mu, mp.mpf(1) / 2, mp.exp(-mu) / 2), (mu, mp.exp(-mu) / 2, mp.mpf(1) / 2)]

    def tail(s, q):  # the density part's mass above s
        s = max(s, -mu)
        if s >= mu:
            return mp.zero
        if q:
            return (1 - mp.exp((s - mu) / 2)) / 2
        return (mp.exp(-(s + mu) / 2) - mp.exp(-mu)) / 2

    out = []
    for q in (False, True):
        m = sum((a[1 + q] * b[1 + q] for a in atoms for b in atoms if a[0] + b[0] > t),
                mp.zero)
        m += 2 * sum(a[1 + q] * tail(t - a[0], q) for a in atoms)

        def dens(x, q=q):
            return mp.exp(-(x + mu) / 2) / 4 * (mp.exp(x) if q else 1)

        pts = sorted({-mu, mu} | {p for p in (t - mu, t + mu) if -mu < p < mu})
        m += mp.quad(lambda x, q=q: dens(x) * tail(t - x, q), pts)
        out.append(m)
    return out


def test_power_of_a_laplace_power_against_quadrature():
    # the inversion's direction (here its plans need the exact split: the routes answer)
    f = ta.TensorPower(ta.Laplace(1), 2)
    d = _direction(f, 1e-9)
    assert isinstance(d, _InversionDirection)
    with mp.workdps(30):
        alpha = mp.mpf(1) / 10
        t = mp.findroot(lambda s: _laplace2_tails(mp.one, s)[0] - alpha, 1)
        assert 0 < t < 2  # (no atom of L at t: the test is not randomised)
        ref = _laplace2_tails(mp.one, t)[1]
    # the profile band itself (ta.roc answers from the bracketed loss tails, tail_laws.py)
    with ta.pld_options(tol=1e-9), mp.workdps(30):
        a = mp.mpf(1) / 10
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    _check(ta.Value.enclosure(lo, hi, 30, guarantee="certified"), ref, 1e-8)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, sp.Rational(1, 10))
    assert v.guarantee == "certified" and ROUTE not in v.route
    _check(v, ref, 1e-8)  # (two certified routes: both hold the reference)


@pytest.mark.slow
def test_curve_band_of_many_levels_against_quadrature():
    """More levels than the local refinement takes: the first uniform grid is doubled only
    while the band is too wide (``routes.grid_band.GRID_START``); the band holds the
    quadrature's power and meets the tolerance."""
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    x = np.linspace(0.0, 1.0, 21)
    b = profile_curve_band(f, x, 1e-5)
    assert b is not None
    with mp.workdps(30):
        for i in (1, 2, 5, 10):
            power = _gl_power(mp.mpf(x[i]))
            assert b.power_lo[i] <= power <= b.power_hi[i]
            assert b.power_hi[i] - b.power_lo[i] <= 1e-5 * b.power_hi[i]


def test_delta_above_the_largest_loss_is_zero_from_one_bound():
    """The profile's delta routes skip the per-eps bound of the largest privacy loss: one Arb
    bound decides every eps, at or above 1000/10 + 1000 log 3 = 1198.61... (the two lattices'
    largest losses, by hand) delta is 0, below it the routes answer."""
    from tradeoff_algebra.routes.profile_curve import _direction

    f = ta.Tensor(ta.TensorPower(ta.EpsDelta(sp.Rational(1, 10)), 1000),
                  ta.TensorPower(ta.randomized_response(sp.log(3), 5), 1000))
    d = _direction(f, 1e-6)
    top = 100 + 1000 * math.log(3)
    assert not d._above_largest_loss(top - 1e-9) and d._above_largest_loss(top + 1e-9)
    assert d.delta(top + 1.0) == 0
    assert d.delta(1.0) > 0


def _gd_tails(eps):
    """(P(L > eps), Q(L > eps)) for G(1) (x) T(P', Q'), P' = (1/2, 1/2), Q' = (1/4, 3/4): the
    Gaussian loss is N(-1/2, 1) under P and N(1/2, 1) under Q, the discrete one log(q_i/p_i)
    with masses p_i under P and q_i under Q, independent."""
    def bar(t):
        return mp.erfc(t / mp.sqrt(2)) / 2

    pairs = ((mp.mpf(1) / 2, mp.mpf(1) / 4), (mp.mpf(1) / 2, mp.mpf(3) / 4))
    p = sum(pi * bar(eps - mp.log(qi / pi) + mp.mpf(1) / 2) for pi, qi in pairs)
    q = sum(qi * bar(eps - mp.log(qi / pi) - mp.mpf(1) / 2) for pi, qi in pairs)
    return p, q


@pytest.mark.parametrize("alpha", ["1/100", "1/4", "9/10"])
def test_power_of_an_asymmetric_product_against_quadrature(alpha):
    """G(1) (x) T((1/2, 1/2), (1/4, 3/4)) is not symmetric: its power from the band of its own
    profile (h_1) and of its inverse's (h_2), certified, against the Neyman-Pearson test of the
    continuous loss at 30 digits (the threshold with P(L > t) = alpha, found on the whole line:
    t < 0 where alpha is large, the branch that only f^{-1}'s profile gives)."""
    g = ta.Tensor(ta.G(1), ta.Discrete([sp.Rational(1, 2), sp.Rational(1, 2)],
                                       [sp.Rational(1, 4), sp.Rational(3, 4)]))
    a = sp.Rational(alpha)
    v = ta.roc(g, a)
    assert v.guarantee == "certified" and ROUTE in v.route
    with mp.workdps(30):
        t = mp.findroot(lambda e: _gd_tails(e)[0] - mp.mpf(a.p) / a.q, 0)
        ref = _gd_tails(t)[1]
    lo, hi = v.interval() if v.lo == v.hi else (v.lo, v.hi)
    assert lo <= ref <= hi
    assert hi - lo <= 5e-4 * hi


@pytest.mark.slow
def test_power_of_subsampled_laplace_steps_against_dp_accounting():
    """Mix(Laplace(1), 1/3)^{(x) 10} (asymmetric: T(P, (1 - p) P + p Q) composed) at 1/100
    meets dp_accounting's optimistic/pessimistic bracket of the same direction (the
    PLD of the remove direction of its subsampled Laplace mechanism, whose delta at eps = 1 is
    ours to 3e-8, composed 10 times; ``references.dpsgd_power.pld_power_bracket``)."""
    from dp_accounting.pld import privacy_loss_distribution as P
    from references.dpsgd_power import pld_power_bracket

    plds = []
    for pess in (False, True):
        one = P.from_laplace_mechanism(1.0, sampling_prob=1 / 3, pessimistic_estimate=pess,
                                       value_discretization_interval=1e-4)
        plds.append(P.PrivacyLossDistribution(one._pmf_remove).self_compose(10))
    (lo, hi), = pld_power_bracket(plds[0], plds[1], [0.01], 8.0, 8001)
    g = ta.Mix(ta.Laplace(1), sp.Rational(1, 3)) ** 10
    v = ta.roc(g, sp.Rational(1, 100))
    # its two profiles are planned per eps (no shared inverters: the band took 6.5 s, where the
    # PLD engine's estimate took 0.04 s); the loss cells composed on one lattice certify the
    # whole curve instead (numeric/cells_curve.py, ~0.02 s)
    assert "cells" in v.route and v.guarantee == "certified"
    # both hold the truth: they meet (float64 bracket: 1e-9 relative slack)
    assert float(v.lo) <= hi * (1 + 1e-9) and float(v.hi) >= lo * (1 - 1e-9)
