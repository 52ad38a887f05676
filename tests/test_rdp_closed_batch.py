"""RDP curves of mechanisms with a closed-form Renyi divergence, all orders at once
(``analysis.renyi_batch``: the closed form in the order compiled once to Arb operations), against
independent references: 40-digit mpmath quadrature of the Renyi divergence of the Laplace pair,
exact sums over the outputs of randomized response at 50 digits, and dp_accounting's RDP
accountant (float64: agreement to 1e-12 relative). Each certified upper end must lie at or
above the reference and within 10^-20 relative of it."""

import math

import mpmath
import pytest
import sympy as sp
from references.contexts import mp_context as _ctx

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import renyi_batch as rb
from tradeoff_algebra.numeric.context import mp

R = sp.Rational
ORDERS_100 = list(range(2, 102))
FRACTIONAL = [R(11, 10), R(3, 2), R(27, 10), R(61, 10), R(109, 10), R(257, 4)]


def _laplace_quad(mu, a):
    """D_a(Lap(0, 1) || Lap(mu, 1)) = log int p^a q^(1-a)/(a - 1), quadrature at 40 digits."""
    c = _ctx(40)
    M, A = c.mpf(mu.p) / mu.q, c.mpf(a.p) / a.q
    g = lambda x: c.exp(-A * abs(x) - (1 - A) * abs(x - M)) / 2  # noqa: E731
    return c.log(c.quad(g, [-c.inf, 0, M, c.inf])) / (A - 1)


def _rr_sum(eps, k, a):
    """D_a of k-ary randomized response (either input order: the pair is symmetric) as the
    exact sum over the outputs at 50 digits."""
    c = _ctx(50)
    E, A = c.exp(eps), c.mpf(a.p) / a.q
    hi, lo = E / (E + k - 1), 1 / (E + k - 1)
    s = hi**A * lo ** (1 - A) + lo**A * hi ** (1 - A) + (k - 2) * lo
    return c.log(s) / (A - 1)


TOL = R(1, 10**20)


def _check(curve, refs, tol=TOL):
    with mp.workdps(60):
        for a, ref in refs.items():
            up, ref = mp.mpf(curve.at(a).p) / curve.at(a).q, mp.mpf(ref)
            assert up >= ref * (1 - mp.mpf(10) ** -35), (a, up, ref)  # an upper end
            assert up - ref <= mp.mpf(tol.p) / tol.q * ref, (a, up, ref)  # within its width


@pytest.mark.parametrize("mu", [R(1), R(1, 10), R(5)])
def test_laplace_against_quadrature(mu):
    f = ta.Laplace(mu)
    orders = [sp.Integer(a) for a in (2, 3, 10, 64, 101)] + FRACTIONAL
    r = ta.RDP.of(f, orders=orders)
    _check(r, {a: _laplace_quad(mu, a) for a in orders})


@pytest.mark.parametrize("eps,k", [(1, 2), (1, 4), (R(1, 10), 3), (3, 10)])
def test_randomized_response_against_exact_sums(eps, k):
    f = ta.randomized_response(eps, k)
    orders = [sp.Integer(a) for a in ORDERS_100] + FRACTIONAL
    r = ta.RDP.of(f, orders=orders)
    _check(r, {a: _rr_sum(eps, k, a) for a in orders})


def test_against_dp_accounting_at_100_orders():
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    lap = ta.RDP.of(ta.laplace_mechanism(1, 1), orders=ORDERS_100)
    for a in ORDERS_100:
        theirs = rdp._laplace_rdp(1.0, a)
        assert math.isclose(float(lap.at(a)), theirs, rel_tol=1e-12), a
    for k in (2, 4):
        rr = ta.RDP.of(ta.randomized_response(1, k), orders=ORDERS_100)
        theirs = rdp._compute_randomized_response_rdp(
            k / (math.e + k - 1), k, ORDERS_100, rdp.NeighborRel.REPLACE_ONE)
        for a, t in zip(ORDERS_100, theirs, strict=True):
            assert math.isclose(float(rr.at(a)), t, rel_tol=1e-12), (k, a)
    # the Gaussian mechanism (noise 11/10): dp_accounting's floats, and the exact a/(2 sigma^2)
    g = ta.RDP.of(ta.gaussian_mechanism(1, R(11, 10)), orders=ORDERS_100)
    acc = rdp.RdpAccountant(ORDERS_100)
    acc.compose(pytest.importorskip("dp_accounting").GaussianDpEvent(1.1))
    for a, t in zip(ORDERS_100, acc._rdp, strict=True):
        assert math.isclose(float(g.at(a)), t, rel_tol=1e-12), a
        exact = a * R(100, 121) / 2
        assert exact <= g.at(a) <= exact * (1 + TOL), a


def test_batch_equals_the_order_by_order_route():
    """The batch's upper ends lie within 10^-20 relative above the enclosures of ``ta.renyi``
    at each order (a certified point of 25 digits: ``Value.interval``)."""
    for f in (ta.Laplace(R(3, 2)), ta.randomized_response(2, 3)):
        got = rb.closed_renyi_orders(f, [sp.Integer(2), R(7, 2), sp.Integer(40)], 20)
        assert len(got) == 3
        for a, up in got.items():
            lo, hi = ta.renyi(f, a, dps=25).interval()
            with mp.workdps(60):
                u = mp.mpf(up.p) / up.q
                assert lo <= u <= hi * (1 + mp.mpf(10) ** -20), (f, a)


def test_compile_and_refusals():
    a = sp.Symbol("a")
    fn = rb.compile_arb(sp.log(a * sp.exp(a) + sp.Rational(1, 3) ** a) / (a - 1), a)
    from flint import arb

    from tradeoff_algebra.numeric.context import arb_precision

    with arb_precision(200):
        v = fn(arb(3))
        c = _ctx(50)
        ref = arb(mpmath.nstr(c.log(3 * c.exp(3) + c.mpf(1) / 27) / 2, 45))
        assert v.rad() < arb(10) ** -40
        assert abs(v - ref) < arb(10) ** -40  # (ref: 45 digits of mpmath at 50)
        # the straight-line function that RDP.of runs (a constant form: an arb as well)
        w = rb._source(sp.log(a * sp.exp(a) + sp.Rational(1, 3) ** a) / (a - 1), a)(arb(3))
        assert w.rad() < arb(10) ** -40 and abs(w - ref) < arb(10) ** -40
        assert rb._source(sp.Rational(2, 3), a)(arb(3)).contains(arb(2) / 3)
    with pytest.raises(ValueError, match="Piecewise"):
        rb.compile_arb(sp.Piecewise((a, a > 1), (1, True)), a)
    # no closed form in the order: nothing, and RDP.of answers through its other routes
    assert rb.closed_renyi_orders(ta.EpsDelta(1, R(1, 10)), [sp.Integer(2)], 20) == {}
    r = ta.RDP.of(ta.EpsDelta(1, R(1, 10)), orders=[2, 3])
    assert r.at(2) is sp.oo
    # an order at or below 1 is left to the caller
    assert rb.closed_renyi_orders(ta.Laplace(1), [R(1, 2)], 20) == {}


def test_gaussian_and_products_add():
    """G_mu: a mu^2/2 (Mironov 2017, Prop. 7), exact; a product of Laplace and randomized
    response powers: the sum of the references (additivity over products)."""
    orders = [sp.Integer(2), R(5, 2), sp.Integer(37)]
    g = ta.RDP.of(ta.G(R(3, 2)), orders=orders)
    for a in orders:
        exact = a * R(9, 4) / 2
        assert g.at(a) == exact, a  # a rational mu: the exact value
    h = ta.RDP.of(ta.G(sp.sqrt(2)), orders=orders)  # an irrational mu: the compiled form in Arb
    for a in orders:
        assert a <= h.at(a) <= a * (1 + R(1, 10**20)), a
    f = ta.Laplace(R(1, 2)) ** 3 @ ta.randomized_response(1, 3)
    _check(ta.RDP.of(f, orders=orders),
           {a: 3 * _laplace_quad(R(1, 2), a) + _rr_sum(1, 3, a) for a in orders})


def _dgauss_sum(d, s2, a):
    """D_a(N_Z(0, s2) || N_Z(d, s2)) as the lattice sum log sum_y p(y)^a q(y)^(1-a)/(a - 1)
    at 50 digits (the two normalisers are equal), the terms beyond 60 standard deviations of
    the centre (1 - a) d left out (below 10^-700 of the sum)."""
    c = _ctx(50)
    A, S2, D = c.mpf(a.p) / a.q, c.mpf(s2.p) / s2.q, c.mpf(d)
    theta = c.fsum(c.exp(-y * y / (2 * S2)) for y in range(-200, 201))
    mid = int(c.floor((1 - A) * D))
    s = c.fsum(c.exp(-(A * y * y + (1 - A) * (y - D) ** 2) / (2 * S2))
               for y in range(mid - 200, mid + 201))
    return c.log(s / theta) / (A - 1)


def test_discrete_gaussian_through_the_batch_against_lattice_sums():
    """The discrete Gaussian's closed form holds the theta ratio (a function that encloses
    itself): compiled, formed at each order from its exact arguments (1 at an integer shift,
    so the integer orders are a Delta^2/(2 sigma^2)), against the lattice sums at 50 digits;
    binary fractional orders (1.25, 2.5) take the theta ratio's own enclosure."""
    f = ta.discrete_gaussian(1, R(3, 2))
    orders = [sp.Integer(a) for a in ORDERS_100] + [R(5, 4), R(5, 2)]
    got = rb.closed_renyi_orders(f, orders, 20)
    assert set(got) == set(orders)  # every order through the batch
    curve = ta.RDP.of(f, orders=orders)
    _check(curve, {a: _dgauss_sum(1, R(9, 4), a) for a in orders[::9] + orders[-2:]})
    # sigma = sqrt(1/2), Delta = 2: sigma is no exact ball, so the order-by-order route answers
    # (ta.renyi's certified point, whose own digits may lie below the truth: RDP.of widens it
    # to an upper end; at 5/4 the point alone was 5e-22 relative below the lattice sum)
    g = ta.discrete_gaussian(2, R(1, 2) ** R(1, 2))
    assert rb.closed_renyi_orders(g, [R(5, 4)], 20) == {}
    _check(ta.RDP.of(g, orders=[2, R(5, 4), R(7, 2)]),
           {a: _dgauss_sum(2, R(1, 2), a) for a in [sp.Integer(2), R(5, 4), R(7, 2)]})
