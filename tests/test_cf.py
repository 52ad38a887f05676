"""The certified Laplace inversion (numeric.cf) against independent references: closed forms
(G_mu composed is G_{mu sqrt T}), the one-step profile of the subsampled Gaussian from Phi, a
two-step profile by mpmath quadrature over the first step, its moment generating function by
mpmath quadrature, and the PLD engine (another route) on DP-SGD."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian import GaussianLaw
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def mpf(v) -> mpmath.mpf:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def gaussian_delta(m, eps):
    """Dong, Roth & Su, Cor. 1: delta of G_m."""
    return mpmath.ncdf(-eps / m + m / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / m - m / 2)


def one_step_delta(mu, q, direction, eps):
    """delta of one subsampled Gaussian step at any real eps: L is monotone in x, so {L > eps} is
    a half-line and delta = A(L > eps) - e^eps B(L > eps) in Phi."""
    if direction == "remove":  # L = log(1 - q + q e^{mu x - mu^2/2}); A the mixture
        y = (mpmath.exp(eps) - 1 + q) / q
        if y <= 0:
            return 1 - mpmath.exp(eps)
        xs = (mpmath.log(y) + mu * mu / 2) / mu
        a = (1 - q) * mpmath.ncdf(-xs) + q * mpmath.ncdf(mu - xs)
        return a - mpmath.exp(eps) * mpmath.ncdf(-xs)
    y = (mpmath.exp(-eps) - 1 + q) / q  # L = -log(...) decreasing; A = N(0, 1)
    if y <= 0:
        return mpmath.mpf(0)
    xs = (mpmath.log(y) + mu * mu / 2) / mu
    b = (1 - q) * mpmath.ncdf(xs) + q * mpmath.ncdf(xs - mu)
    return mpmath.ncdf(xs) - mpmath.exp(eps) * b


def density_and_loss(mu, q, direction):
    def ell(x):
        return mpmath.log(1 - q + q * mpmath.exp(mu * x - mu * mu / 2))

    if direction == "remove":
        return (lambda x: (1 - q) * mpmath.npdf(x) + q * mpmath.npdf(x - mu)), ell
    return mpmath.npdf, (lambda x: -ell(x))


@pytest.mark.parametrize("mu,T,eps", [(Fraction(1, 3), 100, 0.5), (0.9, 14063, 6150.0),
                                      (Fraction(5, 4), 1, 1.0), (0.01, 10**7, 630.0)])
def test_gaussian_powers_against_closed_form(mu, T, eps):
    with mpmath.workdps(40):
        ref = gaussian_delta(mpf(mu) * mpmath.sqrt(T), mpf(eps))
    for law in (GaussianLaw(mu), SubsampledGaussianLaw(mu, 1, "remove")):
        lo, hi = cf.delta_enclosure([(law, T)], eps, 1e-10)
        assert mpf(lo) <= ref <= mpf(hi)
        assert hi - lo <= 1e-10 * float(ref)


@pytest.mark.parametrize("mu,q,eps", [(1, Fraction(1, 2), 0.5), (Fraction(1, 2), Fraction(1, 5),
                                                                   0.1)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_against_phi(mu, q, eps, direction):
    e = eps if direction == "remove" else eps / 3
    with mpmath.workdps(40):
        ref = one_step_delta(mpf(mu), mpf(q), direction, mpf(e))
    lo, hi = cf.delta_enclosure([(SubsampledGaussianLaw(mu, q, direction), 1)], e, 1e-6)
    assert mpf(lo) <= ref <= mpf(hi)
    assert hi - lo <= 1e-6 * float(ref)


@pytest.mark.parametrize("first,second,eps", [
    ((1, Fraction(1, 2), "add"), (1, Fraction(1, 2), "add"), 0.3),
    ((Fraction(4, 5), Fraction(1, 4), "remove"), (Fraction(6, 5), Fraction(1, 10), "remove"), 0.4),
])
def test_two_steps_against_quadrature(first, second, eps):
    """delta of A1 x A2 against B1 x B2 is E_{x ~ A1}[delta_2(eps - L1(x))]."""
    with mpmath.workdps(30):
        m1, q1, d1 = first
        p1, loss1 = density_and_loss(mpf(m1), mpf(q1), d1)
        m2, q2, d2 = second
        pts = [-mpmath.inf, -8, -4, -2, 0, 2, 4, 8, mpmath.inf]
        ref = mpmath.quad(lambda x: p1(x) * one_step_delta(mpf(m2), mpf(q2), d2,
                                                           mpf(eps) - loss1(x)), pts)
    facs = [(SubsampledGaussianLaw(*first), 1), (SubsampledGaussianLaw(*second), 1)]
    lo, hi = cf.delta_enclosure(facs, eps, 1e-8)
    assert mpf(lo) <= ref * (1 + mpmath.mpf(10) ** -20) and ref <= mpf(hi) * (1 + 1e-20)
    assert hi - lo <= 1e-8 * float(ref)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_mgf_against_quadrature(direction):
    from flint import acb

    mu, q = Fraction(5, 4), Fraction(8, 1875)
    law = SubsampledGaussianLaw(mu, q, direction)
    for z in (complex(0.3, 0), complex(2, 5), complex(7, 20)):
        with mpmath.workdps(40):
            p, loss = density_and_loss(mpf(mu), mpf(q), direction)
            zz = mpmath.mpc(z.real, z.imag)
            ref = mpmath.quad(lambda x, p=p, zz=zz, loss=loss: p(x) * mpmath.exp(zz * loss(x)),
                              [-mpmath.inf, -10, -5, 0, 5, 10, mpmath.inf])
        with working_precision(128):
            m = law.mgf(acb(z.real, z.imag))
        with mpmath.workdps(40):
            mid = mpmath.mpc(mpmath.mpf(m.real.mid().str(45, radius=False)),
                             mpmath.mpf(m.imag.mid().str(45, radius=False)))
            rad = mpmath.mpf(m.real.rad().str(5, radius=False)) + \
                mpmath.mpf(m.imag.rad().str(5, radius=False))
            assert abs(mid - ref) <= 2 * rad + abs(ref) * mpmath.mpf(10) ** -35
            assert rad <= abs(ref) * 1e-25


def test_dp_sgd_inside_the_pld_engines_enclosure():
    """The public route: DP-SGD (sigma = 1.1, q = 256/60000, T = 14063) at tol 1e-9 by the
    inversion, inside the PLD engine's enclosure on a fixed grid (a fixed step sends the call
    to the PLD engine), and a tighter tolerance never widens it."""
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 14063, sampling="poisson")
    d = R(1, 10**5)
    with ta.pld_options(tol=1e-9):
        e = ta.epsilon(f, d, dps=15)
    assert e.hi - e.lo <= 1e-9 * e.hi
    e_default = ta.epsilon(f, d, dps=15)
    assert e_default.lo <= e.lo and e.hi <= e_default.hi
    with ta.pld_options(h=2.0**-12):
        p = ta.epsilon(f, d, dps=15)
    assert p.lo <= e.lo and e.hi <= p.hi and p.hi - p.lo > 100 * (e.hi - e.lo)
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, 2, dps=15)
    with ta.pld_options(h=2.0**-12):
        w = ta.delta(f, 2, dps=15)
    assert w.lo <= v.lo and v.hi <= w.hi


def test_few_steps_by_the_flat_view():
    """Sixteen steps at q = 256/60000 would need 6e5 units of planned work with the law's own
    quadrature (27 s); its flat view (M(c + it) at a cost flat in t,
    families/gaussian_sampled_poly.py) answers within the tolerance, and the result lies
    inside the PLD engine's enclosure (the same question with the inversion taken out)."""
    law = SubsampledGaussianLaw(Fraction(10, 11), Fraction(256, 60000), "remove")
    from tradeoff_algebra.numeric import cf_route
    from tradeoff_algebra.routes import engines

    lo, hi = cf_route.route_enclosure([[(law, 16)]], "epsilon", 1e-5, 1e-5, 5e-4)
    assert 0 < hi - lo <= 5e-4 * hi
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 16, sampling="poisson")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dirs = engines.hull_directions(f)
        p_lo, p_hi = engines.pld_epsilon(list(dirs), mp.mpf(1) / 10**5, inversion=False)
    assert float(p_lo) <= hi and lo <= float(p_hi)


def test_directions_far_apart_and_deltas_beyond_every_float():
    """The hull's add direction has losses at most T log(1/(1 - q)) = 60.2: its delta is exactly
    0 beyond, and the remove direction alone decides. delta(55) ~ 4e-270 is still certified to
    the tolerance; delta(100) lies below every float: [0, the least subnormal] with a
    ToleranceWarning, never the point 0 (a Chernoff bound that underflowed read as 0 once)."""
    import warnings

    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 14063, sampling="poisson")
    v = ta.delta(f, 55, dps=12)
    assert 0 < v.lo <= v.hi <= v.lo * (1 + 5e-4) and v.hi < 1e-260
    w = ta.delta(f, 62, dps=12)
    assert 0 < w.hi < v.lo
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        z = ta.delta(f, 100, dps=12)
    assert z.lo == 0 < z.hi <= 1e-300 and not z.is_point
    assert any(issubclass(x.category, ta.ToleranceWarning) for x in rec)
    with warnings.catch_warnings():  # (far out the float saddle point overflows: c = 1 serves)
        warnings.simplefilter("ignore")
        z = ta.delta(f, 10**6, dps=12)
    assert z.lo == 0 < z.hi <= 1e-300
