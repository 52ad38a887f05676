"""Certified Neyman-Pearson points of products with Laplace factors from the loss tails
(routes/tail_laws.py, numeric/cf_split_tails.py), against independent references: the curve of
G(1) (x) Laplace(1) by 30-digit quadrature of its two loss laws; the tails of
Laplace(1/10)^1000 against the slopes of its privacy profile from the whole-law inversion of
delta (convexity of delta(log v) brackets B(L > eps) between secants); the power and curve
against the profile band, a second certified route (the two must intersect); the lattice
masses against the atoms of the Laplace loss summed at 40 digits; the Gaussian power decay
against |M(c + it)| on a grid; the float binomial tail against scipy."""

import math

import numpy as np
import pytest
import sympy as sp
from flint import acb, arb
from references.secants import arb_mpf as _mp
from references.secants import check_point_against_secants

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian import GaussianLaw
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_lattice import log_binomial_tail
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_split_tails import (
    lattice_mass,
    split_order,
    split_tails,
)
from tradeoff_algebra.numeric.cf_split_whole import lattice_bound, whole_split_tails
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.inversion_curve import ROUTE, inversion_band
from tradeoff_algebra.routes.product import route
from tradeoff_algebra.routes.profile_curve import ProfileBandRoute, profile_curve_band
from tradeoff_algebra.routes.tail_laws import PoweredGaussian, tail_sets

R = sp.Rational
L1000 = ta.TensorPower(ta.Laplace(R(1, 10)), 1000)


def _gl_tails(eps):
    """(P(L > eps), Q(L > eps)) of G(1) (x) Laplace(1) by quadrature (as test_profile_curve):
    the Gaussian loss N(-+1/2, 1), the Laplace loss |x| - |x - 1| of x ~ Lap(0 or 1, 1)."""
    def bar(t):
        return mp.erfc(t / mp.sqrt(2)) / 2

    e1, h = mp.exp(-1), mp.mpf(1) / 2
    p = (bar(eps + 1 + h) / 2 + e1 / 2 * bar(eps - 1 + h)
         + mp.quad(lambda x: mp.exp(-x) / 2 * bar(eps - (2 * x - 1) + h), [0, 1]))
    q = (e1 / 2 * bar(eps + 1 - h) + bar(eps - 1 - h) / 2
         + mp.quad(lambda x: mp.exp(x - 1) / 2 * bar(eps - (2 * x - 1) - h), [0, 1]))
    return p, q


def _gl_power(alpha):
    eps = mp.findroot(lambda e: _gl_tails(e)[0] - alpha, 1)
    return _gl_tails(eps)[1]


def _inside(lo, hi, ref, rel):
    assert lo <= ref <= hi, (lo, ref, hi)
    assert hi - lo <= rel * abs(hi), (hi - lo) / abs(hi)


def test_gauss_laplace_power_and_value_against_quadrature():
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    with mp.workdps(30):
        ref = _gl_power(mp.mpf(1) / 100)
        ref3 = 1 - _gl_power(mp.mpf(1) / 3)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, R(1, 100))
    with ta.pld_options(tol=1e-9):
        w = ta.evaluate(f, R(1, 3))
    assert v.guarantee == w.guarantee == "certified" and v.route == w.route == ROUTE
    with mp.workdps(40):
        _inside(*v.interval(), ref, 1e-8)
        _inside(*w.interval(), ref3, 1e-8)


def test_gauss_laplace_curve_against_quadrature_and_the_profile_band():
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    x = np.array([0.0, 0.01, 0.1, 0.5, 1.0])
    b = inversion_band(f, x, 1e-7)
    p = profile_curve_band(f, x, 1e-5)
    assert b is not None and p is not None
    with mp.workdps(30):
        for i in (1, 2, 3):
            ref = _gl_power(mp.mpf(x[i]))
            _inside(b.power_lo[i], b.power_hi[i], ref, 1e-7)
            assert b.f_lo[i] <= 1 - ref <= b.f_hi[i]
            # the two certified routes meet
            assert max(b.power_lo[i], p.power_lo[i]) <= min(b.power_hi[i], p.power_hi[i])


def test_laplace_power_roc_meets_the_profile_band():
    with ta.pld_options(tol=1e-9):
        v = ta.roc(L1000, R(1, 100))
    assert v.guarantee == "certified" and v.route == ROUTE
    with ta.pld_options(tol=1e-9), mp.workdps(30):
        a = mp.mpf(1) / 100
        lo, hi = ProfileBandRoute().enclose(L1000, route(L1000), "roc", a, 1 - a)
    with mp.workdps(40):
        vlo, vhi = v.interval()
        assert max(vlo, lo) <= min(vhi, hi)
        assert vhi - vlo <= 1e-9 * vhi
        # the dp_accounting bracket at grid 1e-5 (benchmarks/RESULTS_profile_curve.md)
        assert 0.7836740295 <= vlo and vhi <= 0.7837189207


@pytest.mark.slow
def test_laplace_power_curve_meets_the_profile_band():
    x = np.linspace(0, 1, 21)
    b = inversion_band(L1000, x, 1e-6)
    p = profile_curve_band(L1000, x, 1e-6)
    assert b is not None and p is not None
    inner = slice(1, -1)
    assert np.all(np.maximum(b.power_lo, p.power_lo)[inner]
                  <= np.minimum(b.power_hi, p.power_hi)[inner])
    assert np.all((b.power_hi - b.power_lo)[inner] <= 1e-6 * b.power_hi[inner])


@pytest.mark.parametrize("eps", [2.0, 6.0])
@pytest.mark.parametrize("build", [split_tails, whole_split_tails])
def test_split_tails_against_the_slopes_of_the_profile(eps, build):
    # delta(log v) is convex in v with derivative -B(L > log v): the secants of delta from the
    # whole-law inversion (a different computation: delta's kernel alone) bracket alpha, and
    # power = delta + v alpha; the remainder's tails from its own nodes (split_tails) and from
    # the whole law's with the lattice part's share bounded (numeric/cf_split_whole.py)
    factors = [(LaplaceLaw(R(1, 10)), 1000)]
    J = split_order(factors, 1e-15)
    assert J == 1
    t = build(factors, J, eps, 1e-12)
    pt = t.point(eps)
    check_point_against_secants(pt, lambda e: cf.delta_enclosure(factors, e, 1e-13), eps)


@pytest.mark.parametrize("mu,k,J", [(R(1, 10), 30, 1), (R(1, 2), 12, 3), (R(2), 9, 4)])
def test_lattice_mass_against_the_atoms_of_the_laplace_loss(mu, k, J):
    # one factor's atoms under Q = Lap(mu, 1): the loss is mu where x >= mu (mass 1/2) and
    # -mu where x <= 0 (mass e^-mu / 2); under P = Lap(0, 1) the same events weigh e^-mu / 2
    # and 1/2; the k-fold product has fewer than J density components with probability
    # sum_{j < J} C(k, j) a^{k-j} (1 - a)^j
    with mp.workdps(60):
        m = mp.mpf(mu.p) / mu.q
        a_q = mp.mpf(1) / 2 + mp.exp(-m) / 2
        a_p = mp.exp(-m) / 2 + mp.mpf(1) / 2
        ref = [sum(mp.binomial(k, j) * a**(k - j) * (1 - a)**j for j in range(J))
               for a in (a_q, a_p)]
    with working_precision(160), mp.workdps(60):  # (a ball's ends at 160 bits)
        got = lattice_mass(LaplaceLaw(mu), k, J)
        for g, r in zip(got, ref, strict=True):  # (the reference's own rounding: 1e-55)
            _inside(_mp(g.lower()) - mp.mpf(10)**-55, _mp(g.upper()) + mp.mpf(10)**-55, r, 1e-30)


def test_whole_law_tails_meet_the_remainder_tails_and_the_lattice_bound_holds():
    """The two certified routes of Laplace(1/10)^1000's tails (the remainder's own nodes; the
    whole law's with the lattice part's share bounded) meet at several thresholds, and the
    bound m_c of the lattice part's transform holds |E_J(c + it)| = |sum_{j<J} C(k, j)
    A^{k-j} U^j| on a grid of t (J = 1, 3; A and U from the law's parts, an independent sum)."""
    law = LaplaceLaw(R(1, 10))
    factors = [(law, 1000)]
    a, b = split_tails(factors, 1, 4.0, 1e-11), whole_split_tails(factors, 1, 4.0, 1e-11)
    for e in (0.5, 3.0, 4.0, 7.5):
        p, q = a.point(e), b.point(e)
        for u, v in ((p.alpha, q.alpha), (p.power, q.power), (p.delta, q.delta)):
            assert u.overlaps(v), (e, u, v)
        assert float(q.power.rad()) <= 1e-9 * float(q.power.mid())
    with working_precision(128):
        mu, pp, pm_, kappa, lam = law.lattice_parts()
        for J in (1, 3):
            c = arb("0.3")
            m_c = lattice_bound(law, 1000, J, c)
            for t in (0.0, 0.7, 3.0, 40.0, 400.0):
                z = acb(c, t)
                A = pp * (z * mu).exp() + pm_ * (-z * mu).exp()
                U = 2 * kappa * ((z + lam) * mu).sinh() / (z + lam)
                E = sum((math.comb(1000, j) * A ** (1000 - j) * U**j for j in range(J)), acb(0))
                assert abs(E) <= m_c or abs(E).overlaps(m_c)


def test_split_order_and_tail_sets_decline_few_factors():
    assert split_order([(LaplaceLaw(1), 2)], 1e-12) is None  # the atoms weigh 1/4 at least
    assert split_order([(LaplaceLaw(R(1, 10)), 1000)], 1e-15) == 1
    assert tail_sets([[(ta.Laplace(1), 2)]], [[(LaplaceLaw(1), 2)]], 1e-12) is None
    (s, J), = tail_sets([[(ta.G(1), 1), (ta.Laplace(1), 1)]],
                        [[(GaussianLaw(1), 1), (LaplaceLaw(1), 1)]], 1e-12)
    assert J is None and isinstance(s[0][0], PoweredGaussian)
    # Laplace(1)^2 keeps the profile route (test_profile_curve checks it by quadrature)
    assert inversion_band(ta.TensorPower(ta.Laplace(1), 2), np.array([0.1]), 1e-6) is None


@pytest.mark.parametrize("mu", [R(1, 2), R(1), R(3)])
def test_gaussian_power_decay_bounds_the_mgf(mu):
    law = PoweredGaussian(GaussianLaw(mu))
    with working_precision(128):
        for c in (arb("0.3"), arb(2)):
            v, p = law.power_decay(c)
            assert p == 2
            worst = 0.0
            for t in np.geomspace(1e-3, 1e3, 400):
                m = abs(law.mgf(acb(c, arb(float(t)))))
                ratio = m * arb(float(t)) ** 2 / v
                assert ratio <= 1 or ratio.overlaps(arb(1))
                worst = max(worst, float(ratio.mid()))
            assert worst > 0.99  # (tight: the bound is the supremum)


@pytest.mark.parametrize("k,p,J", [(1000, 0.0476, 4), (1000, 0.0476, 100), (100, 0.3, 12),
                                   (20000, 1e-3, 12), (50, 0.01, 8), (13, 0.5, 12)])
def test_float_binomial_tail_against_scipy(k, p, J):
    from scipy.special import bdtrc

    assert math.isclose(log_binomial_tail(k, p, J), math.log(bdtrc(J - 1, k, p)),
                        rel_tol=1e-9, abs_tol=1e-15)


# -- few factors: exactly summed terms, the level bracketed (numeric/cf_lattice_tails.py) ------
def _ref_tails(mu, n, t):
    from references.laplace_sum import tails

    return tails(mp.mpf(mu.p) / mu.q, n, t)


@pytest.mark.parametrize("mu,n", [(R(1, 2), 3), (R(1), 2),
                                  # (six components: the pieces' shared arguments, j up to 6)
                                  pytest.param(R(1, 2), 6, marks=pytest.mark.slow)])
def test_exact_tails_against_quadrature(mu, n):
    from tradeoff_algebra.numeric.cf_lattice_tails import LatticeTails

    t = LatticeTails(LaplaceLaw(mu), n, 0.5, 1e-12)
    assert t.rest is None  # (n <= 12: every term summed exactly)
    for eps in (0.3, 0.7, 1.1):
        p = t.point(eps)
        with mp.workdps(30):
            q_gt, p_gt, _, _ = _ref_tails(mu, n, mp.mpf(eps))
        with working_precision(t.prec), mp.workdps(40):  # (the reference's 30 digits)
            s = mp.mpf(10) ** -28
            _inside(_mp(p.power.lower()) - s, _mp(p.power.upper()) + s, q_gt, 1e-20)
            _inside(_mp(p.alpha.lower()) - s, _mp(p.alpha.upper()) + s, p_gt, 1e-20)


@pytest.mark.parametrize("mu,n", [(R(1, 2), 3), (R(1), 2)])
def test_exact_tails_float_estimates_against_quadrature(mu, n):
    """The exact part's float estimates at many eps at once (the windows' points as columns,
    ``ExactTails.estimate``: placement only) against the Irwin-Hall quadrature."""
    from tradeoff_algebra.numeric.cf_lattice_tails import LatticeTails

    t = LatticeTails(LaplaceLaw(mu), n, 0.5, 1e-12)
    eps = np.array([0.05, 0.3, 0.7, 1.1, 0.9 * n * float(mu)])
    pa, pb, _ = t.exact.estimate(eps)
    with mp.workdps(30):
        for i, e in enumerate(eps.tolist()):
            q_gt, p_gt, _, _ = _ref_tails(mu, n, mp.mpf(e))
            assert abs(pa[i] - q_gt) <= 1e-12 * q_gt
            assert abs(pb[i] * math.exp(-e) - p_gt) <= 1e-12 * p_gt


def _roc_check(f, alpha, ref, rel=1e-9, tol=1e-10, value=False):
    from tradeoff_algebra.routes.tail_laws import LATTICE_ROUTE

    with ta.pld_options(tol=tol):
        v = ta.evaluate(f, alpha) if value else ta.roc(f, alpha)
    assert v.guarantee == "certified" and v.route == LATTICE_ROUTE
    with mp.workdps(40):
        lo, hi = v.interval()
        _inside(lo - mp.mpf(10)**-28, hi + mp.mpf(10)**-28, ref, rel)
    return v


@pytest.mark.parametrize("mu,n,t0", [(R(1, 2), 3, "0.7"), (R(1), 2, "1.3")])
def test_power_of_few_laplace_factors_against_quadrature(mu, n, t0):
    # the level alpha = P(S > t0) (no atom at t0): the test rejecting S > t0 is optimal
    with mp.workdps(40):
        q_gt, p_gt, q_eq, p_eq = _ref_tails(mu, n, mp.mpf(t0))
        assert q_eq == p_eq == 0
        man, exp = mp.mpf(p_gt).man_exp
        alpha = sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
    _roc_check(ta.TensorPower(ta.Laplace(mu), n), alpha, q_gt)


@pytest.mark.parametrize("mu,n,l", [(R(1), 3, R(1)), (R(1, 2), 3, R(1, 2))])
def test_power_inside_an_atom_is_randomised(mu, n, l):
    # alpha inside the jump of P(S > t) at the lattice atom l: the randomised test, the power
    # Q(S > l) + theta Q(S = l) with theta = (alpha - P(S > l)) / P(S = l)
    with mp.workdps(40):
        q_gt, p_gt, q_eq, p_eq = _ref_tails(mu, n, mp.mpf(l.p) / l.q)
        assert p_eq > 0
        target = p_gt + p_eq / 3
        man, exp = mp.mpf(target).man_exp
        alpha = sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
        a = mp.mpf((int(man), int(exp)))
        ref = q_gt + q_eq * (a - p_gt) / p_eq
    _roc_check(ta.TensorPower(ta.Laplace(mu), n), alpha, ref)


def test_value_of_two_laplace_factors_against_quadrature():
    mu, n = R(1), 2
    with mp.workdps(40):
        q_gt, p_gt, _, _ = _ref_tails(mu, n, mp.mpf("0.4"))
        man, exp = mp.mpf(p_gt).man_exp
        alpha = sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
    _roc_check(ta.TensorPower(ta.Laplace(mu), n), alpha, 1 - q_gt, value=True)


def test_power_of_ten_laplace_factors_meets_the_profile_band():
    f = ta.TensorPower(ta.Laplace(R(1, 2)), 10)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, R(1, 100))
    with ta.pld_options(tol=1e-9), mp.workdps(30):
        a = mp.mpf(1) / 100
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    with mp.workdps(40):
        vlo, vhi = v.interval()
        assert max(vlo, lo) <= min(vhi, hi) and vhi - vlo <= 1e-9 * vhi
