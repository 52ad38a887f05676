"""The discrete Gaussian family (Canonne, Kamath & Steinke, arXiv:2004.00010) against
references written here: brute-force Neyman-Pearson on the lattice at 50 digits (the neglected
tail bounded), CKS Thm. 7's delta(eps) by direct summation, exact convolution of lattice laws
for products, and dp_accounting's discrete Gaussian PLD when it is installed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.privacy_loss import privacy_loss
from tradeoff_algebra.parse import parse_expr
from tradeoff_algebra.routes.product import routes_for

R = sp.Rational
CASES = [(1, R(2)), (2, R(3, 2)), (3, R(7, 10)), (1, R(10))]


# -- references ----------------------------------------------------------------------------------
class Lattice:
    """N_Z(0, sigma^2) on [-K, K] at the current mpmath precision (``mp.workdps``), K so large
    that the neglected mass is below 10^-tiny (bounded by the geometric tail, checked)."""

    def __init__(self, sigma, tiny: int = 80):
        s = mp.mpf(sp.Rational(sigma).p) / sp.Rational(sigma).q
        self.h = 1 / (2 * s * s)
        # (the geometric tail's denominator adds about log10(sigma) digits)
        self.K = int(s * mp.sqrt(2 * (tiny + 2 + mp.log10(s + 1)) * mp.log(10))) + 10
        w = [mp.exp(-self.h * x * x) for x in range(-self.K, self.K + 1)]
        theta = mp.fsum(w)
        self.p = {x: w[x + self.K] / theta for x in range(-self.K, self.K + 1)}
        K1 = self.K + 1  # P(|X| > K) <= 2 w(K+1)/(1 - e^{-h(2K+3)})
        bound = 2 * mp.exp(-self.h * K1 * K1) / -mp.expm1(-self.h * (2 * K1 + 1))
        assert bound < mp.mpf(10) ** -tiny

    def pmf(self, x):
        return self.p.get(x, mp.zero)


def conv(a: dict, b: dict) -> dict:
    out: dict = {}
    for x, u in a.items():
        for y, v in b.items():
            out[x + y] = out.get(x + y, mp.zero) + u * v
    return out


def np_power_ref(P: dict, shift: int, alpha):
    """1 - T(S, S + shift)(alpha) for an integer law P (a dict): the likelihood ratio of
    S + shift to S increases with the point (a discrete Gaussian or a convolution of them), so
    the most powerful test rejects the largest points first."""
    size, power = mp.zero, mp.zero
    for x in sorted(set(P) | {y + shift for y in P}, reverse=True):
        px, qx = P.get(x, mp.zero), P.get(x - shift, mp.zero)
        if size + px <= alpha:
            size, power = size + px, power + qx
        else:
            return power + qx * (alpha - size) / px
    return power


def np_value_ref(P: dict, shift: int, alpha):
    return 1 - np_power_ref(P, shift, alpha)


def hockey(P: dict, shift: int, gamma):
    """sup_S Q(S) - gamma P(S) = sum_x (Q(x) - gamma P(x))_+, Q = P(. - shift)."""
    xs = set(P) | {y + shift for y in P}
    return mp.fsum(max(P.get(x - shift, mp.zero) - gamma * P.get(x, mp.zero), 0) for x in xs)


def cks_delta(lat: Lattice, d: int, sigma, eps):
    """CKS Thm. 7 as printed: P[X > eps sigma^2/Delta - Delta/2] - e^eps P[X > eps sigma^2/
    Delta + Delta/2], X ~ N_Z(0, sigma^2), by direct summation."""
    s2 = (mp.mpf(sp.Rational(sigma).p) / sp.Rational(sigma).q) ** 2
    a, b = eps * s2 / d - mp.mpf(d) / 2, eps * s2 / d + mp.mpf(d) / 2
    tail = lambda t: mp.fsum(v for x, v in lat.p.items() if x > t)  # noqa: E731
    return tail(a) - mp.exp(eps) * tail(b)


# -- the family ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,name", [((R(3, 2), 2), "sensitivity"), ((0, 2), "sensitivity"),
                                      ((1, 0), "sigma"), ((1, -1), "sigma")])
def test_parameters_are_validated(bad, name):
    with pytest.raises(ta.InvalidParameter, match=name):
        ta.DiscreteGaussian(*bad)
    with pytest.raises(ta.InvalidParameter, match=name):
        ta.discrete_gaussian(*bad)


@pytest.mark.parametrize("d,sigma", CASES)
def test_values_and_power_against_brute_force_neyman_pearson(d, sigma):
    f = ta.DiscreteGaussian(d, sigma)
    with mp.workdps(50):
        lat = Lattice(sigma)
        for a in ("1e-30", "1e-8", "0.01", "0.25", "0.5", "0.9", "0.999999"):
            A = mp.mpf(a)
            ref = np_value_ref(lat.p, d, A)
            v, w = ta.evaluate(f, a, dps=30), ta.roc(f, a, dps=30)
            assert v.guarantee == "certified" and w.guarantee == "certified"
            assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref, (a, v, ref)
            # the power from its own sum, accurate where 1 - f is tiny
            assert abs(w.mid - (1 - ref)) <= mp.mpf(10) ** -29 * (1 - ref) + mp.mpf(10)**-45


def test_the_power_keeps_its_digits_far_in_the_tail():
    f = ta.DiscreteGaussian(1, 2)
    with mp.workdps(60):
        lat = Lattice(2, tiny=330)
        ref = np_power_ref(lat.p, 1, mp.mpf("1e-300"))  # the rejection region's Q-mass
        v = ta.roc(f, "1e-300", dps=20)
        assert abs(v.mid - ref) <= mp.mpf(10) ** -19 * ref


def test_symmetric_f_is_its_own_inverse():
    # x -> Delta - x swaps the pair, so f(f(alpha)) = alpha (f is strictly decreasing)
    f = ta.DiscreteGaussian(2, R(3, 2))
    assert f.is_symmetric
    with mp.workdps(40):
        for a in ("0.01", "0.3", "0.8"):
            y = ta.evaluate(f, a, dps=35).mid
            assert abs(ta.evaluate(f, y, dps=35).mid - mp.mpf(a)) < mp.mpf(10) ** -30


def test_float_curve_matches_the_certified_values():
    f = ta.DiscreteGaussian(3, R(7, 10))
    xs = np.array([0.0, 1e-12, 1e-3, 0.1, 0.37, 0.5, 0.9, 1.0])
    ys = ta.curve(f, xs)
    for x, y in zip(xs, ys, strict=True):
        assert abs(y - float(ta.evaluate(f, float(x), dps=20).mid)) <= 1e-12


@pytest.mark.parametrize("d,sigma", CASES[:3])
def test_delta_is_cks_theorem_7_and_the_hockey_stick(d, sigma):
    f = ta.DiscreteGaussian(d, sigma)
    s2 = sp.Rational(sigma) ** 2
    # eps = 1/2 + a threshold landing exactly on an atom (eps sigma^2/Delta + Delta/2 = 3)
    for eps in (R(0), R(1, 2), R(2), (3 - R(d, 2)) * d / s2):
        with mp.workdps(50):
            lat = Lattice(sigma)
            e = mp.mpf(eps.p) / eps.q
            ref = hockey(lat.p, d, mp.exp(e))
            assert abs(cks_delta(lat, d, sigma, e) - ref) <= mp.mpf(10) ** -45  # no misprint
            v = ta.delta(f, eps, dps=30)
            assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref, (eps, v, ref)


def test_epsilon_inverts_delta():
    f = ta.DiscreteGaussian(1, 2)
    for target in ("1e-5", "1e-10"):
        e = ta.epsilon(f, target, dps=20)
        with mp.workdps(40):
            lat = Lattice(2)
            lo, hi = hockey(lat.p, 1, mp.exp(e.lo)), hockey(lat.p, 1, mp.exp(e.hi))
        assert lo >= mp.mpf(target) * (1 - mp.mpf(10) ** -15)  # delta(eps) is continuous
        assert hi <= mp.mpf(target) * (1 + mp.mpf(10) ** -15)


def test_kl_is_delta_squared_over_two_sigma_squared():
    f = ta.DiscreteGaussian(2, R(3, 2))
    with mp.workdps(40):
        lat = Lattice(R(3, 2))
        ref = mp.fsum(p * mp.log(p / lat.pmf(x - 2)) for x, p in lat.p.items() if lat.pmf(x - 2))
        assert abs(mp.mpf(sp.N(ta.kl(f), 40)) - ref) < mp.mpf(10) ** -30
    assert ta.renyi(f, 1) == ta.kl(f) == R(8, 9)


@pytest.mark.parametrize("a", [R(1, 2), R(2), R(3), R(4, 3), R(3, 2)])
def test_renyi_is_the_zcdp_bound_exactly_when_a_delta_is_an_integer(a):
    # (the module docstring's statement of CKS Prop. 5: equality iff a Delta in Z, else a bound)
    d, sigma = 3, R(7, 10)
    f = ta.DiscreteGaussian(d, sigma)
    with mp.workdps(40):
        lat = Lattice(sigma)
        A = mp.mpf(a.p) / a.q
        D = mp.log(mp.fsum(p**A * lat.pmf(x - d) ** (1 - A) for x, p in lat.p.items()
                           if lat.pmf(x - d))) / (A - 1)
        bound = A * d * d * lat.h
        if (a * d).is_integer:
            assert abs(D - bound) < mp.mpf(10) ** -30
            assert ta.renyi(f, a) == a * d**2 / (2 * sigma**2)  # the theta ratio is 1 there
        else:
            assert (D < bound - mp.mpf(10) ** -6) if A > 1 else (D > bound + mp.mpf(10) ** -6)
        # the exact theta series, certified in Arb, against the sum over the explicit pmf
        v = ta.renyi(f, a, dps=30)
        assert v.guarantee in ("certified", "exact")
        assert abs(v.mid - D) <= mp.mpf(10) ** -29 * abs(D)


def test_renyi_of_products_and_the_max_divergence():
    f, g = ta.DiscreteGaussian(1, 2), ta.DiscreteGaussian(2, R(5, 2))
    with mp.workdps(40):
        la, lb = Lattice(2), Lattice(R(5, 2))
        A = mp.mpf(3) / 2

        def one(lat, d):
            return mp.log(mp.fsum(p**A * lat.pmf(x - d) ** (1 - A) for x, p in lat.p.items()
                                  if lat.pmf(x - d))) / (A - 1)

        ref = one(la, 1) + one(lb, 2)  # Renyi divergences add over products
        v = ta.renyi(f @ g, R(3, 2), dps=30)
        assert v.guarantee == "certified" and abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref
    assert ta.renyi(f, sp.oo) == sp.oo  # L is unbounded on the lattice


# -- composition ---------------------------------------------------------------------------------
def _inside(v, ref, slack=1e-9):
    return float(v.lo) - slack <= float(ref) <= float(v.hi) + slack


def test_products_route_through_the_pld_engine():
    f = ta.DiscreteGaussian(1, 2)
    for g in (f @ f, f**10, f @ ta.G(1), f @ ta.Laplace(1), f @ ta.DiscreteGaussian(2, 3)):
        for q in ("value", "delta", "epsilon"):
            assert "privacy-loss distribution" in [r.name for r in routes_for(g, q)], (g, q)


@pytest.mark.slow
def test_self_products_against_exact_convolution():
    f = ta.DiscreteGaussian(1, 1)
    with mp.workdps(30):
        lat = Lattice(1)
        P2 = conv(lat.p, lat.p)
        P10 = lat.p
        for _ in range(9):
            P10 = {x: v for x, v in conv(P10, lat.p).items() if v > mp.mpf(10) ** -40}
    for g, P, shift in ((f @ f, P2, 2), (f**10, P10, 10)):
        for a in (0.01, 0.3):
            assert _inside(ta.evaluate(g, a, dps=8), np_value_ref(P, shift, mp.mpf(a)))
        for eps in (1, 3):
            assert _inside(ta.delta(g, eps, dps=8), hockey(P, shift, mp.exp(eps)))


def _mixed_delta(lat: Lattice, d: int, eps, other):
    """delta of T(P1 x P2, Q1 x Q2)(eps) = sum_x Q1(x) H_{e^{eps - L1(x)}}(Q2 || P2), with
    ``other(gamma)`` = H_gamma of the second pair (any gamma > 0)."""
    return mp.fsum(lat.pmf(x - d) * other(mp.exp(eps - lat.h * (2 * x * d - d * d)))
                   for x in range(-lat.K, lat.K + d + 1))


def test_mixed_products_against_sums_over_the_lattice():
    f = ta.DiscreteGaussian(1, 2)
    with mp.workdps(30):
        lat = Lattice(2)
        lat2 = Lattice(3)

        def gauss(gamma, mu=mp.one):  # H_gamma(N(mu,1) || N(0,1)), any gamma > 0
            e = mp.log(gamma)
            return mp.ncdf(-e / mu + mu / 2) - gamma * mp.ncdf(-e / mu - mu / 2)

        def rr(gamma, e0=mp.one):  # f_{1,0}: Q = (e/(1+e), 1/(1+e)), P reversed
            q, p = mp.exp(e0) / (1 + mp.exp(e0)), 1 / (1 + mp.exp(e0))
            return max(q - gamma * p, 0) + max(p - gamma * q, 0)

        def dg23(gamma):
            return hockey(lat2.p, 2, gamma)

        refs = {eps: (_mixed_delta(lat, 1, mp.mpf(eps), gauss),
                      _mixed_delta(lat, 1, mp.mpf(eps), rr),
                      _mixed_delta(lat, 1, mp.mpf(eps), dg23)) for eps in (R(1, 2), 2)}
    d0 = R(1, 10**4)
    for eps, (rg, rr_, rd) in refs.items():
        assert _inside(ta.delta(f @ ta.G(1), eps, dps=8), rg)
        assert _inside(ta.delta(f @ ta.EpsDelta(1, 0), eps, dps=8), rr_)
        # Eq. (12) of Dong, Roth & Su: the f_{0,delta} part composes as 1 - (1 - d0)(1 - delta)
        assert _inside(ta.delta(f @ ta.EpsDelta(1, d0), eps, dps=8),
                       1 - (1 - mp.mpf(d0.p) / d0.q) * (1 - rr_))
        assert _inside(ta.delta(f @ ta.DiscreteGaussian(2, 3), eps, dps=8), rd)
    # Laplace: between the product with Id and the one with f_{1,0} (L_1 >= f_{1,0})
    v = ta.delta(f @ ta.Laplace(1), 2, dps=8)
    assert ta.delta(f, 2, dps=8).mid <= v.mid <= ta.delta(f @ ta.EpsDelta(1, 0), 2, dps=8).mid


def test_dp_accounting_discrete_gaussian_pld_agrees():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    acc = pld.from_discrete_gaussian_mechanism(2.0, sensitivity=1,
                                               value_discretization_interval=1e-5)
    ours = ta.delta(ta.DiscreteGaussian(1, 2), 1, dps=10)
    assert abs(acc.get_delta_for_epsilon(1.0) - float(ours.mid)) < 1e-4


# -- the interfaces ------------------------------------------------------------------------------
def test_latex_parse_and_constructor():
    f = ta.DiscreteGaussian(1, 2)
    assert ta.latex(f) == (r"T\left(\mathcal{N}_{\mathbb{Z}}(0, 4), "
                           r"\mathcal{N}_{\mathbb{Z}}(1, 4)\right)")
    assert ta.discrete_gaussian(1, 2) == f
    for g in (f, f @ ta.G(1), ta.DiscreteGaussian(3, R(7, 10)) ** 4):
        assert parse_expr(ta.text(g)) == g
    assert parse_expr("discrete_gaussian(2, 1.5)") == ta.DiscreteGaussian(2, R(3, 2))
    assert "DiscreteGaussian" in ta.__all__ and "DiscreteGaussian" in ta.families.__all__


def _cli(*args):
    code = "import sys; from tradeoff_algebra.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)


def test_the_command_line_reaches_the_family_through_the_parser():
    out = _cli("eval", "DiscreteGaussian(1, 2)", "0.25")
    assert out.returncode == 0, out.stderr
    with mp.workdps(40):
        ref = np_value_ref(Lattice(2).p, 1, mp.mpf("0.25"))
        assert abs(mp.mpf(out.stdout.strip()) - ref) < mp.mpf(10) ** -28
    out = _cli("latex", "discrete_gaussian(1, 2)")
    assert out.returncode == 0 and r"\mathcal{N}_{\mathbb{Z}}" in out.stdout
    out = _cli("eval", "DiscreteGaussian(3/2, 2)", "0.25")
    assert out.returncode == 2 and "sensitivity" in out.stderr


def test_delta_is_certified_by_the_registered_arb_profile():
    """delta(eps) of the discrete Gaussian comes from its Arb ball (CKS Thm. 7 summed with a
    bounded tail) through the generic ``ta.delta``: certified, and equal to the direct sum."""
    f = ta.DiscreteGaussian(1, 2)
    v = ta.delta(f, 1, dps=30)
    assert v.guarantee == "certified" and v.route == "Arb ball of the registered profile"
    with mp.workdps(60):  # Q(x) = P(x - 1); delta(1) = sum_x (Q(x) - e P(x))_+
        w = [mp.exp(-mp.mpf(x) ** 2 / 8) for x in range(-200, 202)]
        z = mp.fsum(w)
        P = {x: w[x + 200] / z for x in range(-200, 202)}
        ref = mp.fsum(max(P[x - 1] - mp.e * P[x], 0) for x in range(-199, 202))
        assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref


# -- the Arb law of the privacy loss (discrete_gaussian_law) --------------------------------------
def _mgf_ref(lat: Lattice, d: int, z):
    """E_Q[e^{z L}] = sum_x Q(x) e^{z L(x)}, Q(x) = P(x - Delta), L(x) = h (2 x Delta - Delta^2),
    summed over the explicit pmf."""
    return mp.fsum(lat.pmf(x - d) * mp.exp(z * lat.h * (2 * x * d - d * d))
                   for x in range(-lat.K, lat.K + d + 1))


def _acb(z):
    from flint import acb, arb, fmpq

    return acb(arb(fmpq(z[0].p, z[0].q)), arb(fmpq(z[1].p, z[1].q)))


@pytest.mark.parametrize("d,sigma", CASES + [(1, R(1, 2))])
def test_law_mgf_against_the_sum_over_the_pmf(d, sigma):
    from fractions import Fraction

    from tradeoff_algebra.families.discrete_gaussian_law import dg_law, theta_ratio
    from tradeoff_algebra.numeric.context import arb_precision

    law = privacy_loss(ta.DiscreteGaussian(d, sigma)).law()
    assert law is dg_law(d, Fraction(sigma.p, sigma.q))
    with mp.workdps(50):
        lat = Lattice(sigma)
        for z in ((R(7, 10), R(0)), (R(13, 10), R(5, 2)), (R(1, 5), R(11))):
            ref = _mgf_ref(lat, d, mp.mpc(mp.mpf(z[0].p) / z[0].q, mp.mpf(z[1].p) / z[1].q))
            with arb_precision(200):
                zz = _acb(z)
                m = law.mgf(zz)
                # both sums of the theta ratio, each with its own tail bound, hold the truth
                g = (zz * (zz + 1) * (d * d) / (2 * _acb((sigma**2, R(0))))).exp()
                forms = [g * theta_ratio(Fraction(sigma.p, sigma.q), zz * d, form)
                         for form in ("direct", "dual")]
            for ball in [m] + forms:
                re = mp.mpf(ball.real.mid().str(60, radius=False))
                im = mp.mpf(ball.imag.mid().str(60, radius=False))
                assert abs(mp.mpc(re, im) - ref) <= mp.mpf(10) ** -40 * abs(ref), (z, ball, ref)
                assert float(ball.real.rad()) <= 1e-45 * float(abs(ref)) + 1e-300


def test_the_lattice_law_does_not_decay():
    """|M(c + it)| returns to M(c) at every period 2 pi sigma^2/Delta of the lattice: the
    truncation bound the inversion needs (sup over t' >= t) is M(c) itself."""
    from flint import acb, arb

    from tradeoff_algebra.numeric.context import arb_precision

    law = privacy_loss(ta.DiscreteGaussian(2, 3)).law()
    with arb_precision(128):
        c = arb(1) / 2
        mc = law.mgf(acb(c)).real
        period = 2 * arb.pi() * 9 / 2
        assert abs(law.mgf(acb(c, period))).overlaps(mc)
        assert abs(law.mgf(acb(c, 3 * period))).overlaps(mc)
        for t in (1, 5, 20, 100):
            assert abs(law.mgf(acb(c, t))) <= law.decay_bound(c, arb(t))
        assert abs(law.mgf(acb(c, 5))) < mc / 10  # it does fall between the returns


def test_products_with_a_decaying_law_are_certified_by_the_inversion():
    """DG(1, 2) (x) G(1): the Gaussian factor's mgf decays, so the certified Laplace inversion
    answers; against sum_x Q1(x) H_{e^{eps - L1(x)}}(G_1) over the explicit pmf."""
    f = ta.DiscreteGaussian(1, 2) @ ta.G(1)
    with mp.workdps(40):
        lat = Lattice(2)

        def gauss(gamma, mu=mp.one):
            e = mp.log(gamma)
            return mp.ncdf(-e / mu + mu / 2) - gamma * mp.ncdf(-e / mu - mu / 2)

        refs = {eps: _mixed_delta(lat, 1, mp.mpf(eps), gauss) for eps in (R(1, 2), 2)}
    with ta.pld_options(tol=1e-12):
        for eps, ref in refs.items():
            v = ta.delta(f, eps, dps=20)
            assert v.route == "certified Laplace inversion"
            assert v.lo <= ref <= v.hi and v.hi - v.lo <= 2e-12 * ref


def test_products_of_discrete_gaussians_alone_are_declined_by_the_inversion():
    from tradeoff_algebra.routes import engines
    from tradeoff_algebra.routes.plan import route

    g = ta.DiscreteGaussian(1, 3) @ ta.DiscreteGaussian(1, R(7, 2))
    leaves = route(g)[1]
    assert engines._cf_laws([leaves]) is not None  # every factor has its Arb law ...
    assert engines._cf_enclosure([leaves], mp.mpf(1), "delta") is None  # ... but no decay


# -- the profile at large sigma (Euler-Maclaurin) and eps(delta) certified ----------------------
@pytest.mark.parametrize("d,sigma", [(3, R(301, 3)), (2, R(8)), (1, R(250)),
                                     pytest.param(1, R(1000), marks=pytest.mark.slow)])
def test_delta_by_euler_maclaurin_against_the_sum_over_the_pmf(d, sigma):
    f = ta.DiscreteGaussian(d, sigma)
    s2 = sigma**2
    atom = (R(int(4 * sigma)) - R(d, 2)) * d / s2  # the threshold on a lattice point
    # thresholds eps sigma^2/Delta + Delta/2 near sigma/10, 3 sigma and 4 sigma
    for eps in (d / (10 * sigma), 3 * d / sigma, atom):
        with mp.workdps(45):
            lat = Lattice(sigma, tiny=60)
            ref = hockey(lat.p, d, mp.exp(mp.mpf(eps.p) / eps.q))
        v = ta.delta(f, eps, dps=30)
        assert v.guarantee == "certified"
        assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref, (eps, v, ref)


@pytest.mark.parametrize("sigma", [R(2), R(10), R(300)])
def test_epsilon_is_a_certified_bracket_against_the_sum_over_the_pmf(sigma):
    f = ta.DiscreteGaussian(1, sigma)
    e = ta.epsilon(f, R(1, 10**6), dps=25)
    assert e.guarantee == "certified" and e.route == "certified bracket on the Arb profile"
    assert e.hi - e.lo <= mp.mpf(10) ** -24 * e.hi
    with mp.workdps(50):
        lat = Lattice(sigma, tiny=60)
        lo, hi = hockey(lat.p, 1, mp.exp(e.lo)), hockey(lat.p, 1, mp.exp(e.hi))
        assert lo >= mp.mpf(10) ** -6 >= hi  # delta decreases: the bracket holds the root


def test_epsilon_edge_cases():
    f = ta.DiscreteGaussian(1, 2)
    assert ta.epsilon(f, 0).mid == mp.inf  # delta(eps) > 0 for every finite eps
    assert ta.epsilon(f, R(9, 10)).mid == 0  # above the total variation distance


@pytest.mark.slow
def test_epsilon_at_sigma_ten_thousand_against_the_sum_over_the_pmf():
    f = ta.DiscreteGaussian(1, 10**4)
    e = ta.epsilon(f, R(1, 10**6), dps=25)
    assert e.guarantee == "certified"
    with mp.workdps(40):
        lat = Lattice(10**4, tiny=50)
        lo, hi = hockey(lat.p, 1, mp.exp(e.lo)), hockey(lat.p, 1, mp.exp(e.hi))
        assert lo >= mp.mpf(10) ** -6 >= hi


@pytest.mark.parametrize("sigma,eps,tiny", [(R(20), R(2), 400), (R(12), R(7), 1800)])
def test_delta_far_in_the_tail_against_the_sum_over_the_pmf(sigma, eps, tiny):
    """eps beyond 2 pi Delta: Euler-Maclaurin does not converge there and the terms, which fall
    by about e^{-eps} each, are summed directly (delta ~ 1e-352 and 1e-1532 here)."""
    f = ta.DiscreteGaussian(1, sigma)
    with mp.workdps(50):
        lat = Lattice(sigma, tiny=tiny)
        assert lat.K > eps * sigma**2 + 40  # the window holds the threshold and far beyond
        ref = hockey(lat.p, 1, mp.exp(mp.mpf(eps.p) / eps.q))
    v = ta.delta(f, eps, dps=30)
    assert v.guarantee == "certified"
    assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref, (v, ref)


def test_euler_maclaurin_far_bound_against_the_direct_terms():
    """At y0 = (m - s)/sigma >= n + 1 the remainder uses the far bound on He_n; the sum it
    gives holds the direct sum of the same terms (each with its own tail bound)."""
    from flint import arb

    from tradeoff_algebra.families.discrete_gaussian import _far_sum
    from tradeoff_algebra.families.discrete_gaussian_law import em_profile_sum
    from tradeoff_algebra.numeric.context import arb_precision

    for sigma, eps in ((50, R(1, 2)), (400, R(1, 5)), (10**4, R(1, 10))):
        with arb_precision(200):
            h = 1 / (2 * arb(sigma) ** 2)
            e = arb(eps.p) / eps.q
            m = int(eps * sigma**2 + R(1, 2)) + 1  # thresholds eps sigma^2 + 1/2 (Delta = 1)
            em = em_profile_sum(1, h, e, m, 160)
            direct = _far_sum(1, h, e, m, 160, max_terms=10**6)
            assert em is not None and direct is not None
            assert em.overlaps(direct) and em.rel_accuracy_bits() >= 150


def test_renyi_with_an_irrational_sigma_against_the_sum_over_the_pmf():
    d, sigma = 1, sp.sqrt(2) / 2
    f = ta.DiscreteGaussian(d, sigma)
    with mp.workdps(50):
        h = 1 / (2 * mp.mpf(sp.N(sigma**2, 60)))
        xs = range(-60, 62)  # P(|X| > 60) < e^{-3600}
        theta = mp.fsum(mp.exp(-h * x * x) for x in xs)
        A = mp.mpf(2) / 5
        s = mp.fsum(mp.exp(-h * (A * x * x + (1 - A) * (x - d) ** 2)) for x in xs) / theta
        ref = mp.log(s) / (A - 1)
    v = ta.renyi(f, R(2, 5), dps=30)
    assert v.guarantee == "certified" and abs(v.mid - ref) <= mp.mpf(10) ** -29 * abs(ref)
