"""What the certified Laplace inversion now reaches, against independent references: the cut of
the Poisson-subsampled Gaussian law (families/gaussian_sampled.py: the measure w A with
w(x) = Phi_c((x - X) / sigma)), its left-out mass and its moment generating function by mpmath
quadrature, its one-step profile by quadrature, the whole law's exact profile within the cut's
error term; and prv_accountant's failure case (q = 0.00033, sigma = 4, T = 10^4, delta ~ 1e-18)
at tol 1e-9."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import acb

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import sampled_law
from tradeoff_algebra.numeric import cf, cf_route, tol_nest
from tradeoff_algebra.numeric.cf_epsilon import epsilon_enclosure
from tradeoff_algebra.numeric.cf_laws import upper, working_precision
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _f(v) -> mpmath.mpf:
    v = Fraction(v)
    return mp.mpf(v.numerator) / v.denominator


def _ball_contains(ball, ref) -> bool:
    with mp.workdps(40):
        mid = mp.mpf(ball.mid().str(40, radius=False))
        rad = mp.mpf(ball.rad().str(5, radius=False))
        return abs(mid - ref) <= rad + abs(ref) * mp.mpf(10) ** -30


def _weighted(mu, q, direction, x_cut, sig):
    """The density of A times w and the loss L, in mpmath (the class docstring's pair)."""
    mu, q, x_cut, sig = _f(mu), _f(q), _f(x_cut), _f(sig)

    def ell(x):
        return mp.log(1 - q + q * mp.exp(mu * x - mu * mu / 2))

    def w(x):
        return mp.ncdf(-(x - x_cut) / sig)

    if direction == "remove":
        return (lambda x: ((1 - q) * mp.npdf(x) + q * mp.npdf(x - mu)) * w(x)), ell
    return (lambda x: mp.npdf(x) * w(x)), (lambda x: -ell(x))


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_cut_mass_and_mgf_against_quadrature(direction):
    """E_A[1 - w] (a closed form in Arb) and M_w(z) = int e^{zL} w dA (the trapezoidal sum with
    its bounds) against mpmath quadrature at 40 digits, at a cut where both are far from 0."""
    mu, q, x_cut, sig = Fraction(1, 2), Fraction(1, 10), Fraction(5, 2), Fraction(1, 2)
    law = sampled_law(mu, q, direction).truncated(x_cut, sig)
    pts = [-mp.inf, -6, -2, 0, 2, 2.5, 3, 6, mp.inf]
    with mp.workdps(40):
        dens, loss = _weighted(mu, q, direction, x_cut, sig)
        full = (lambda x: (1 - _f(q)) * mp.npdf(x) + _f(q) * mp.npdf(x - _f(mu))) \
            if direction == "remove" else mp.npdf
        mass = mp.quad(lambda x: full(x) - dens(x), pts)
    with working_precision(128):
        assert _ball_contains(law.tail_mass(), mass)
    for z in (complex(0.5, 0), complex(4, 6)):
        with mp.workdps(40):
            zz = mp.mpc(z.real, z.imag)
            ref = mp.quad(lambda x, zz=zz: dens(x) * mp.exp(zz * loss(x)), pts)
        with working_precision(128):
            m = law.mgf(acb(z.real, z.imag))
            assert _ball_contains(m.real, ref.real) and _ball_contains(m.imag, ref.imag)
            assert upper(m.real.rad()) <= 1e-25 * float(abs(ref))
            # the decay bounds hold at and beyond t
            for t in (z.imag, z.imag + 3):
                bound = law.decay_bound(acb(z.real).real, acb(t).real)
                assert abs(law.mgf(acb(z.real, t))) <= bound
            v, p = law.power_decay(acb(z.real).real)
            assert abs(m) <= v / max(abs(z.imag), 1e-300) ** p or z.imag == 0


def test_one_step_profile_of_the_cut_and_its_error_term():
    """delta_w(eps) = int (1 - e^{eps - L})_+ w dA by quadrature, inside the inversion's ball;
    and the whole law's delta (exact by Phi) lies in [delta_w, delta_w + E_A[1 - w]]."""
    mu, q, x_cut, sig, eps = Fraction(1, 2), Fraction(1, 10), Fraction(5, 2), Fraction(1, 2), 0.05
    whole = sampled_law(mu, q, "remove")
    law = whole.truncated(x_cut, sig)
    with mp.workdps(40):
        dens, loss = _weighted(mu, q, "remove", x_cut, sig)
        # L > eps beyond x_e (L increasing in x)
        x_e = (mp.log((mp.exp(eps) - 1 + _f(q)) / _f(q)) + _f(mu) ** 2 / 2) / _f(mu)
        ref = mp.quad(lambda x: (1 - mp.exp(eps - loss(x))) * dens(x), [x_e, 2.5, 4, mp.inf])
        y = (mp.exp(eps) - 1 + _f(q)) / _f(q)
        xs = (mp.log(y) + _f(mu) ** 2 / 2) / _f(mu)
        exact = (1 - _f(q)) * mp.ncdf(-xs) + _f(q) * mp.ncdf(_f(mu) - xs) \
            - mp.exp(eps) * mp.ncdf(-xs)
    lo, hi = cf.delta_enclosure([(law, 1)], eps, 1e-8)
    assert mp.mpf(lo) <= ref <= mp.mpf(hi) and hi - lo <= 1e-8 * float(ref)
    with working_precision(64):
        eta = upper(law.tail_mass())
    assert ref <= exact <= mp.mpf(hi) + eta and eta < 0.02  # (the cut is far from vacuous)
    assert whole.cut is None and law.cut == (x_cut, sig)


def test_cut_for_meets_its_mass():
    """cut_for: the left-out mass is certified at most eta, and a larger contour abscissa never
    gets a wider weight."""
    law = sampled_law(Fraction(1, 4), Fraction(33, 100000), "remove")
    prev = None
    for c_max in (10.0, 1000.0, 3000.0):
        cut = law.cut_for(1e-40, c_max)
        with working_precision(64):
            assert upper(cut.tail_mass()) <= 1e-40
        assert prev is None or cut.cut[1] <= prev
        prev = cut.cut[1]
    with pytest.raises(ValueError, match="sigma"):
        law.truncated(10, 0)


def test_prv_accountants_failure_case_at_tol_1e9():
    """q = 0.00033, sigma = 4, T = 10^4 at delta = 1.1e-18 (where prv_accountant refuses and the
    whole law's mgf is dominated by its far tail): certified to 1e-9 by the cut laws; above the
    add direction alone (a lower bound of the hull) and equal within the widths to the same
    product under another cut (X + 3, sigma / 2: a different weight and error term)."""
    f = ta.noisy_sgd(4, R(33, 100000), 10000)
    d = R(11, 10**19)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            e = ta.epsilon(f, d, dps=20)
    assert e.guarantee == "certified" and "inversion" in e.route
    assert 0 < e.hi - e.lo <= 1e-9 * e.hi
    loose = ta.epsilon(f, d, dps=20)
    assert loose.lo <= e.lo and e.hi <= loose.hi  # a tighter tolerance is never wider
    add = sampled_law(Fraction(1, 4), Fraction(33, 100000), "add")
    with working_precision(64):
        a_lo, a_hi = epsilon_enclosure([(add, 10000)], 1.1e-18, 1e-10)
    assert a_hi < e.lo
    rem = sampled_law(Fraction(1, 4), Fraction(33, 100000), "remove")
    base = rem.cut_for(1e-3 * 1e-10 * 1.1e-18 / 10**4, 2000.0)
    other = rem.truncated(base.cut[0] + 3, base.cut[1] / 2)
    with working_precision(64):
        eta = 10**4 * upper(other.tail_mass())
        o_lo, o_hi = epsilon_enclosure([(other, 10**4)], 1.1e-18 - 2 * eta, 1e-10, 1.1e-18)
    assert max(o_lo, float(e.lo)) <= min(o_hi, float(e.hi))


@pytest.mark.slow
def test_prv_accountants_failure_case_against_the_pld_engine():
    """The same enclosure inside the PLD engine's (another route, an estimate 3e-4 wide), and
    delta (certified by the cut laws too) at its two ends brackets 1.1e-18."""
    from tradeoff_algebra.routes.engines import hull_directions, pld_epsilon

    f = ta.noisy_sgd(4, R(33, 100000), 10000)
    with ta.pld_options(tol=1e-9):
        e = ta.epsilon(f, R(11, 10**19), dps=20)
    with mp.workdps(20):
        plo, phi = pld_epsilon(list(hull_directions(f)), mp.mpf(11) / 10**19, inversion=False)
    assert plo <= e.lo and e.hi <= phi
    v_lo = ta.delta(f, sp.Float(e.lo, 20), dps=20)
    v_hi = ta.delta(f, sp.Float(e.hi, 20), dps=20)
    assert v_lo.guarantee == "certified" and v_hi.lo <= 1.1e-18 <= v_lo.hi


def test_unaffordable_products_still_decline(monkeypatch):
    """Sixteen steps at q = 256/60000 stay beyond the inversion with the law's own quadrature,
    with or without a cut; its flat view (numeric/cf_flat.py) answers them (the value is
    checked against the PLD engine in tests/test_cf.py)."""
    law = sampled_law(Fraction(10, 11), Fraction(256, 60000), "remove")
    lo, hi = cf_route.route_enclosure([[(law, 16)]], "epsilon", 1e-5, 1e-5, 5e-4)
    assert 0 < hi - lo <= 5e-4 * hi
    monkeypatch.setattr(cf_route, "flat_factors", lambda f, at, rel, *cap: list(f))
    monkeypatch.setattr(cf_route, "flat_enclosure", lambda *args: None)
    tol_nest.clear()  # (else the tolerance chain answers the first call's enclosure)
    assert cf_route.route_enclosure([[(law, 16)]], "epsilon", 1e-5, 1e-5, 5e-4) is None


def _gl_delta(mu, m, eps):
    """delta of G_mu (x) L_m at eps by mpmath quadrature of the Gaussian profile (Dong, Roth &
    Su, Cor. 1) against the Laplace loss law (atoms 1/2 at m, e^{-m}/2 at -m and the density
    e^{(t - m)/2}/4 on (-m, m), Prop. 7)."""
    def gd(x):
        return mp.ncdf(-x / mu + mu / 2) - mp.exp(x) * mp.ncdf(-x / mu - mu / 2)

    v = gd(eps - m) / 2 + mp.exp(-m) / 2 * gd(eps + m)
    return v + mp.quad(lambda t: mp.exp((t - m) / 2) / 4 * gd(eps - t), [-m, 0, m])


@pytest.mark.parametrize("mu,m,eps", [("1/100", "1", "1.0318"), ("1/30", "2", "2.1"),
                                      ("1/1000", "1", "1.0025")])
def test_gaussian_times_laplace_by_the_inversion(mu, m, eps):
    """G(1/100) (x) L(1) (the weak Gaussian's mgf grows past c + a ~ 700, once beyond the floats
    of the strip bound: the inversion returned [0, 1] and the PLD engine answered): delta
    certified by the inversion, containing the 30-digit quadrature; eps(1e-6) certified to 1e-9
    and the quadrature's delta at its two ends brackets 1e-6."""
    f = ta.G(R(mu)) @ ta.Laplace(R(m))
    v = ta.delta(f, R(eps), dps=20)
    with mp.workdps(30):
        ref = _gl_delta(_f(Fraction(mu)), _f(Fraction(m)), mp.mpf(eps))
        assert mp.mpf(v.lo) <= ref <= mp.mpf(v.hi)
    assert v.guarantee == "certified" and "inversion" in v.route
    assert v.hi - v.lo <= 1e-9 * v.hi
    with ta.pld_options(tol=1e-9):
        e = ta.epsilon(f, R(1, 10**6), dps=20)
    assert e.guarantee == "certified" and "inversion" in e.route
    assert e.hi - e.lo <= 1e-9 * e.hi
    with mp.workdps(30):
        assert _gl_delta(_f(Fraction(mu)), _f(Fraction(m)), mp.mpf(e.lo)) >= mp.mpf(10) ** -6
        assert _gl_delta(_f(Fraction(mu)), _f(Fraction(m)), mp.mpf(e.hi)) <= mp.mpf(10) ** -6
