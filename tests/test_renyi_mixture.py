"""Renyi divergences of the sampled Gaussian Mix(G_mu, p), both directions, against an
independent mpmath quadrature at 40 digits, the binomial sum at integer orders, and
dp_accounting's RDP of the Poisson-subsampled Gaussian."""

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import G, Inverse, Mix
from tradeoff_algebra.analysis.renyi_mixture import sampled_gaussian_renyi

mp40 = mpmath.MPContext()
mp40.dps = 40


def _quad(p, mu, a, reverse):
    """1/(a-1) log E_{N(0,1)}[(1 - p + p e^{mu x - mu^2/2})^c], c = a (Q || P) or 1 - a."""
    p, mu, a = (mp40.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in (p, mu, a))
    c = a if reverse else 1 - a
    g = lambda x: mp40.npdf(x) * (1 - p + p * mp40.exp(mu * x - mu**2 / 2)) ** c  # noqa: E731
    top = max(10, float(c * mu) + 12)
    I = mp40.quad(g, [-mp40.inf, -8, 0, float(c * mu), top, mp40.inf])
    return mp40.log(I) / (a - 1)


CASES = [(sp.Rational(1, 100), 1, sp.Rational(5, 2)), (sp.Rational(1, 100), 1, sp.Rational(1, 2)),
         (sp.Rational(1, 10), 2, sp.Rational(3, 2)), (sp.Rational(1, 2), sp.Rational(1, 2), 7),
         (sp.Rational(1, 1000), sp.Rational(4, 5), 20)]


@pytest.mark.parametrize("p,mu,a", CASES)
@pytest.mark.parametrize("reverse", [False, True])
def test_enclosure_holds_quadrature(p, mu, a, reverse):
    f = Mix(G(mu), p)
    v = ta.renyi(Inverse(f) if reverse else f, a, dps=25)
    ref = _quad(p, mu, a, reverse)
    assert mp40.mpf(v.lo) <= ref <= mp40.mpf(v.hi) or abs(mp40.mpf(v.mid) - ref) < 1e-24 * ref


@pytest.mark.parametrize("a", [2, 3, 10])
def test_integer_orders_binomial_sum_against_arb(a):
    """The closed form D_a(Q || P) = log(sum_k C(a,k)(1-p)^(a-k) p^k e^(k(k-1)mu^2/2))/(a-1)
    against the Arb integral of the same divergence."""
    p, mu = sp.Rational(1, 50), sp.Rational(3, 2)
    form = ta.renyi(Inverse(Mix(G(mu), p)), a)
    assert isinstance(form, sp.Expr) and not form.free_symbols
    lo, hi = map(mp40.mpf, sampled_gaussian_renyi(p, mu, sp.Integer(a), True, 30))
    x = mp40.mpf(sp.N(form, 45))
    assert lo - abs(x) * 1e-28 <= x <= hi + abs(x) * 1e-28


@pytest.mark.parametrize("a", [4, 200])
def test_integer_orders_certified_against_the_explicit_sum(a):
    """The certified value of the (unevaluated) binomial-sum form, evaluated term by term in Arb,
    contains the explicit sum in mpmath at 60 digits; at a small order the form is exactly the
    expanded sum."""
    p, mu = sp.Rational(8, 1875), sp.Rational(10, 11)
    v = ta.renyi(Inverse(Mix(G(mu), p)), a, dps=25)
    mp60 = mpmath.MPContext()
    mp60.dps = 60
    P, M = mp60.mpf(p.p) / p.q, mp60.mpf(mu.p) / mu.q
    s = mp60.fsum(mp60.binomial(a, k) * (1 - P) ** (a - k) * P**k * mp60.exp(k * (k - 1) * M**2 / 2)
                  for k in range(a + 1))
    ref = mp60.log(s) / (a - 1)
    assert v.is_certain and abs(mp60.mpf(v.mid) - ref) <= 1e-26 * ref  # a point to 25 digits
    if a == 4:
        form = ta.renyi(Inverse(Mix(G(mu), p)), a)
        expanded = sum(sp.binomial(a, j) * (1 - p) ** (a - j) * p**j
                       * sp.exp(j * (j - 1) * mu**2 / 2) for j in range(a + 1))
        assert sp.simplify(form.doit() - sp.log(expanded) / (a - 1)) == 0


def test_products_add():
    p, mu, a = sp.Rational(1, 100), 1, sp.Rational(7, 2)
    one = ta.renyi(Mix(G(mu), p), a, dps=25)
    tot = ta.renyi(Mix(G(mu), p) ** 1000 @ G(1), a, dps=20)
    ref = 1000 * _quad(p, mu, a, False) + a * mp40.mpf(1) / 2
    assert mp40.mpf(tot.lo) <= ref <= mp40.mpf(tot.hi)
    assert one.width < 1e-20


def test_half_order_is_symmetric():
    """D_{1/2} is symmetric in the pair (van Erven & Harremoes, Prop. 2 with a = 1/2)."""
    f = Mix(G(2), sp.Rational(1, 5))
    u, w = ta.renyi(f, sp.Rational(1, 2), dps=20), ta.renyi(Inverse(f), sp.Rational(1, 2), dps=20)
    assert u.lo <= w.hi and w.lo <= u.hi


def test_against_dp_accounting_integer_orders():
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    q, sigma = 0.01, 1.1
    orders = [2, 3, 8, 32]
    theirs = rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders)
    f = Inverse(Mix(G(1 / sp.Rational(sigma)), sp.Rational(q)))  # the floats' binary values
    for a, t in zip(orders, theirs, strict=True):
        v = ta.renyi(f, a, dps=20)
        assert abs(float(v.mid) - t) <= 1e-12 * t


def test_rdp_of_dp_sgd_is_sound_and_matches_dp_accounting():
    """RDP.of(noisy_sgd(...)): the certified RDP curve over both directions; its (eps, delta)
    conversion lies above the exact epsilon of the same mechanism (a sound bound), and equals
    dp_accounting's RDP accountant on the same orders."""
    q, sigma, T = sp.Rational(256, 60000), sp.Rational(11, 10), 2000
    f = ta.noisy_sgd(sigma, q, T, sampling="poisson")
    orders = (2, 4, 8, 16, 32)
    r = ta.RDP.of(f, orders)
    e_rdp = r.epsilon(sp.Rational(1, 10**5))
    e_exact = ta.epsilon(f, sp.Rational(1, 10**5), dps=8)
    assert e_rdp.lo >= e_exact.hi
    dpa = pytest.importorskip("dp_accounting")
    acc = dpa.rdp.RdpAccountant(orders=list(orders))
    acc.compose(dpa.dp_event.PoissonSampledDpEvent(
        float(q), dpa.dp_event.GaussianDpEvent(float(sigma))), T)
    assert abs(float(e_rdp.mid) - acc.get_epsilon(1e-5)) < 1e-9
