"""The law of C_p(G_mu) (families/gaussian_sampled_hull.py) against independent references: its
atom and moment generating function by mpmath quadrature of the hull's loss density in the loss
variable y (the library integrates in x), its decay bounds against its certified values, delta
of one step against the library's closed form of C_p (Eq. (13), Prop. 6), two steps against a
one-dimensional integral of closed forms (mpmath), three steps against the PLD engine (another
route, as a sanity check), and the product route."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from flint import acb, arb
from references.hull_far import far_constant_reference

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.families.gaussian_sampled import sampled_law
from tradeoff_algebra.families.gaussian_sampled_hull import (
    HullPowerRemainder,
    SampledGaussianHullLaw,
    hull_law,
    hull_power_delta,
)
from tradeoff_algebra.numeric import budget, cf
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.privacy_loss import privacy_loss
from tradeoff_algebra.routes.engines import pld_delta, pld_value
from tradeoff_algebra.routes.plan import route

R = sp.Rational


def mpq(v) -> object:
    v = Fraction(v)
    return mp.mpf(v.numerator) / v.denominator


class HullReference:
    """The hull's loss law from its definition (Eq. (13)), in the loss variable y: A = (1 - q)
    N(0, 1) + q N(mu, 1), B = N(0, 1), L = log(1 - q + q e^{mu x - mu^2/2}); the hull has the
    A-law of L on y > 0, an atom m0 = 1 - A(L > 0) - B(L > 0) at 0 and the B-law of -L on y < 0.
    Densities by the inverse map x(y) (mpmath, the caller's precision)."""

    def __init__(self, mu, q):
        self.mu, self.q = mpq(mu), mpq(q)

    def x_of(self, y):
        mu, q = self.mu, self.q
        return (mp.log((mp.expm1(y) + q) / q) + mu * mu / 2) / mu

    def dx(self, y):
        return mp.exp(y) / (self.mu * (mp.expm1(y) + self.q))

    def rho_a(self, y):  # density of L under A, y > 0
        x = self.x_of(y)
        return ((1 - self.q) * mp.npdf(x) + self.q * mp.npdf(x - self.mu)) * self.dx(y)

    def rho_b(self, y):  # density of L under B, y > 0
        return mp.npdf(self.x_of(y)) * self.dx(y)

    def atom(self):
        h = self.mu / 2  # L > 0 iff x > mu/2
        a = (1 - self.q) * mp.ncdf(-h) + self.q * mp.ncdf(h)
        return 1 - a - mp.ncdf(-h)

    def mgf(self, z):
        pos = mp.quad(lambda y: mp.exp(z * y) * self.rho_a(y), [0, 0.1, 1, 4, 12, 40, mp.inf])
        neg = mp.quad(lambda y: mp.exp(-z * y) * self.rho_b(y), [0, 0.1, 1, 4, 12, 40, mp.inf])
        return self.atom() + pos + neg

    def delta_density(self, e):
        """E[(1 - e^{e - L'})_+; L' != 0] for one step at any real e: closed forms in Phi (L is
        monotone in x: {L > a} = {x > x(a)})."""
        mu, q = self.mu, self.q

        def tails(a):  # (A(L > a), B(L > a)) for a >= 0
            x = self.x_of(a)
            return (1 - q) * mp.ncdf(-x) + q * mp.ncdf(mu - x), mp.ncdf(-x)

        a0, b0 = tails(max(e, mp.zero))
        out = a0 - mp.exp(e) * b0  # the part y > max(e, 0)
        if e < 0:  # y in (e, 0): -L with 0 < L < -e under B, weight 1 - e^{e - y} = 1 - e^{e + L}
            a1, b1 = tails(-e)
            a_all, b_all = tails(mp.zero)
            out += (b_all - b1) - mp.exp(e) * (a_all - a1)
        return out

    def delta_two(self, eps):
        """delta(eps) of two steps: the atom pairs with the other step's density part (2 m0
        delta_1), and the density parts pair by a one-dimensional integral over the first."""
        m0 = self.atom()
        first = mp.quad(lambda y: self.rho_a(y) * self.delta_density(eps - y),
                        [0, 0.1, 1, 4, 12, 40])
        second = mp.quad(lambda y: self.rho_b(y) * self.delta_density(eps + y),
                         [0, 0.1, 1, 4, 12, 40])
        return 2 * m0 * self.delta_density(eps) + first + second


def agrees(ball: arb, x, digits: int) -> bool:
    """The ball meets x (an mpf computed to ``digits`` digits, so known within 10^(2 - digits)
    relatively: the reference's own quadrature and rounding)."""
    ref = arb(mp.nstr(x, digits + 5), abs(float(x)) * 10.0 ** (2 - digits))
    return ball.overlaps(ref)


@pytest.mark.parametrize("mu,q", [(1, Fraction(1, 20)), (2, Fraction(3, 10))])
def test_atom_against_definition(mu, q):
    with mp.workdps(40):
        ref = HullReference(mu, q).atom()
    with working_precision(160):
        assert agrees(hull_law(Fraction(mu), q).atom(), ref, 40)


@pytest.mark.parametrize("mu,q,z", [(1, Fraction(1, 20), "1"), (1, Fraction(1, 2), "0.5"),
                                    (2, Fraction(3, 10), "3")])
def test_mgf_real_against_loss_density(mu, q, z):
    """M'(z) at real z against mpmath quadrature of the hull's loss density at 40 digits."""
    with mp.workdps(40):
        ref = HullReference(mu, q).mgf(mp.mpf(z))
    with working_precision(150):
        m = hull_law(Fraction(mu), q).mgf(acb(arb(z)))
    assert float(m.real.rad()) < 1e-30 * float(m.real.mid())
    assert agrees(m.real, ref, 40) and m.imag.contains(0)


@pytest.mark.parametrize("t", ["3", "20"])
def test_mgf_complex_against_loss_density(t):
    mu, q = 1, Fraction(1, 20)
    with mp.workdps(25):
        ref = HullReference(mu, q).mgf(mp.mpc(1, mp.mpf(t)))
    with working_precision(90):
        m = hull_law(Fraction(mu), q).mgf(acb(1, arb(t)))
    assert float(m.real.rad()) < 1e-15 * float(abs(m).mid())
    assert agrees(m.real, ref.real, 25) and agrees(m.imag, ref.imag, 22)


@pytest.mark.parametrize("q,c", [(Fraction(1, 100), 2.0), (Fraction(1, 2), 0.75)])
def test_panels_against_adaptive_integration(q, c):
    """D(c + it) on the kept Gauss-Legendre panels (gaussian_sampled_hull_quad, levels 0 to 2)
    against Arb's adaptive integration of the same integrand (another rule): the balls meet,
    and the panels' are as narrow as asked."""
    law = hull_law(Fraction(1), q)
    with working_precision(90):
        for t in (0.0, 0.3, 7.0, 20.0, 45.0):
            a = law.density_at(acb(c, t))
            b = law._integral(acb(c, t), "m", law._scale(c), 60)
            assert a.real.overlaps(b.real) and a.imag.overlaps(b.imag)
            assert float(a.real.rad()) < 2.0**-50 * float(abs(a).mid() + 1e-3)


@pytest.mark.parametrize("q,c", [(Fraction(1, 20), 1.0), (Fraction(1, 2), 2.0)])
def test_decay_bounds_dominate(q, c):
    """decay_bound(c, t) >= |M'(c + it')| for t' >= t (including beyond the cells), and
    C2 / ((c + 1/2)^2 + t^2) >= |D(c + it)|: each against the certified value."""
    law = hull_law(Fraction(1), q)
    with working_precision(64):
        c2 = law.far_constant(c)
        t_far = law._cover(c).t_far
        ts = [0.0, 0.7, 3.0, 0.5 * t_far, t_far, 1.5 * t_far, 4 * t_far]
        vals = {t: abs(law.mgf(acb(c, t))) for t in ts}
        m0 = law.atom()
        for i, t in enumerate(ts):
            b = law.decay_bound(arb(c), arb(t))
            assert all(b >= vals[u].lower() for u in ts[i:])
            d = abs(law.density_at(acb(c, t)))
            assert c2 >= d.lower() * ((c + 0.5) ** 2 + t * t)
            assert vals[t].lower() <= m0.upper() + d.upper()
        # the float estimate the planner uses follows the rigorous bound
        for t in ts[2:]:
            est = law.log_decay_estimate(c, t)
            b = float(law.decay_bound(arb(c), arb(t)).mid())
            assert abs(est - float(arb(b).log().mid())) < 0.05


@pytest.mark.parametrize("mu,q,c,calls", [(5, Fraction(99, 100), 0.026193474618839096, 3000),
                                          (10, Fraction(1, 2), 0.3, 6000),
                                          (1, Fraction(1, 20), 1.0, 1000)])
def test_far_constant_against_loss_variable(monkeypatch, mu, q, c, calls):
    """C2 (far_constant) against references.hull_far (2 |g'(0)| + int |g''| 2 cosh((c + 1/2) y)
    in the loss variable, mpmath's numerical derivatives, the quadrature split at the kinks of
    |g''|): an upper bound within 1e-4 of it, from Arb's integration in few integrand calls (the
    earlier form of the integrand, with s = pY/w and log w as balls, reached Arb's evaluation
    limit at mu = 5, p = 99/100: 68,100 calls and a ball of radius 5e43; 1,071 now)."""
    seen = [0]
    inner = budget.integral

    def counting(f, a, b, **options):
        def g(u, analytic):
            seen[0] += 1
            return f(u, analytic)

        return inner(g, a, b, **options)

    monkeypatch.setattr(budget, "integral", counting)
    c2 = SampledGaussianHullLaw(mu, q).far_constant(c)
    ref = far_constant_reference(mu, q, c)
    with mp.workdps(30):
        assert ref <= mp.mpf(c2.upper()) <= ref * (1 + mp.mpf(10) ** -4), (c2, ref)
    assert 0 < seen[0] <= calls, seen[0]


@pytest.mark.parametrize("mu,q,eps", [(1, R(1, 2), 0.5), (1, R(1, 2), 0.0), (2, R(3, 10), 1.0)])
def test_one_step_against_closed_form(mu, q, eps):
    """delta of C_p(G_mu) by the inversion of its density part (no atom: J = 1, k = 1) and by
    the one-component closed form, against the library's closed form of C_p (Eq. (13): the
    profile of f_p, Prop. 6), certified."""
    ref = ta.delta(ta.C(q, ta.G(mu)), sp.Float(eps, 30) if eps else 0, dps=30)
    assert ref.guarantee == "certified"
    lo_r, hi_r = float(ref.lo), float(ref.hi)
    lo, hi = hull_power_delta(mu, q, 1, eps)
    assert lo <= hi_r and lo_r <= hi and (hi - lo) <= 1e-12
    law = hull_law(Fraction(mu), Fraction(q.p, q.q))
    if eps > 0 and mu == 1:  # (the inversion of the density part alone: a power decay t^-2)
        lo, hi = cf.delta_enclosure([(HullPowerRemainder(law, 1, 1), 1)], eps, 1e-3)
        assert lo <= hi_r and lo_r <= hi and hi - lo <= 1e-3 * hi


@pytest.mark.parametrize("eps", [0.25, pytest.param(1.0, marks=pytest.mark.slow)])
def test_two_steps_against_integral(eps):
    mu, q = 1, R(1, 2)
    with mp.workdps(15):
        ref = HullReference(mu, q).delta_two(mp.mpf(eps))
    lo, hi = hull_power_delta(mu, q, 2, eps, 1e-6)
    assert lo <= ref <= hi and hi - lo <= 1e-6 * hi


def test_three_steps_against_pld():
    """Sanity (not a reference of a certified claim): the PLD engine's enclosure meets ours."""
    lo, hi = hull_power_delta(1, R(1, 2), 3, 0.5, 1e-6)
    v = ta.delta(ta.C(R(1, 2), ta.G(1)) ** 3, R(1, 2))
    assert v.guarantee == "estimate" and v.lo <= hi and lo <= v.hi


def test_product_route_is_certified():
    """delta(1) of C_{1/20}(G_1)^{(x) 100}: the product route inverts the whole law (its atom
    m0^100 ~ e^-100 is negligible); the remainder route (one component in closed form, J = 2)
    is another decomposition; the PLD engine a sanity check."""
    f = ta.C(R(1, 20), ta.G(1)) ** 100
    v = ta.delta(f, 1)
    assert v.guarantee == "certified" and v.route == "certified Laplace inversion"
    assert float(v.hi - v.lo) <= 1e-9 * float(v.hi)
    lo, hi = hull_power_delta(1, R(1, 20), 100, 1.0, 1e-6)
    assert lo <= v.hi and v.lo <= hi
    with ta.pld_options(tol=1e-4), mp.workdps(20):
        p_lo, p_hi = pld_delta([route(f)[1]], mp.mpf(1), inversion=False)
    assert p_lo <= v.hi and v.lo <= p_hi


def test_law_view_and_hooks():
    law = privacy_loss(ta.C(R(1, 20), ta.G(1))).law()
    assert isinstance(law, SampledGaussianHullLaw) and law is hull_law(Fraction(1), Fraction(1, 20))
    assert law.inverse() is law
    assert sampled_law(Fraction(1), Fraction(1, 20), "add").symmetric_hull() is law
    assert privacy_loss(ta.C(R(1, 3), ta.EpsDelta(1, R(1, 10)))).law() is None
    assert privacy_loss(ta.C(sp.Symbol("p", positive=True), ta.G(1))).law() is None


def test_bad_input():
    with pytest.raises(InvalidParameter, match="p = 1"):
        SampledGaussianHullLaw(1, 1)
    with pytest.raises(InvalidParameter, match="mu"):
        SampledGaussianHullLaw(0, Fraction(1, 2))
    with pytest.raises(InvalidParameter, match="eps"):
        hull_power_delta(1, R(1, 2), 2, -0.5)
    with pytest.raises(InvalidParameter, match="k = 0"):
        hull_power_delta(1, R(1, 2), 0, 0.5)


def test_evaluate_is_certified():
    """f(alpha) of the symmetric product C_{1/20}(G_1)^{(x) 100} by the profile band: certified,
    above 1 - delta(eps) - e^eps alpha at eps = 1 (f >= f_{eps, delta(eps)}, Prop. 6; delta
    certified by the inversion), and meeting the PLD engine's enclosure (sanity)."""
    f = ta.C(R(1, 20), ta.G(1)) ** 100
    a = R(1, 10)
    v = ta.evaluate(f, a)
    assert v.guarantee == "certified" and "profile band" in v.route
    d = ta.delta(f, 1)
    assert v.hi >= 1 - d.hi - mp.e * mp.mpf(0.1)
    r = ta.roc(f, a)
    assert r.guarantee == "certified" and r.lo <= 1 - v.lo and 1 - v.hi <= r.hi
    with ta.pld_options(tol=1e-4), mp.workdps(20):
        lo, hi = pld_value(([(ta.C(R(1, 20), ta.G(1)), 100)],), mp.mpf(1) / 10, False)
    assert lo <= v.hi and v.lo <= hi
