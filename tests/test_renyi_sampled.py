"""The sampled Gaussian's Renyi divergences at many integer orders at once
(``analysis.renyi_sampled``): the binomial sums against mpmath at 60 digits term by term, the
Taylor bound of the other direction against the Arb integral and an mpmath quadrature, and
RDP.of against the route order by order and against dp_accounting."""

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import G, Inverse, Mix
from tradeoff_algebra.analysis.renyi_mixture import sampled_gaussian_renyi
from tradeoff_algebra.analysis.renyi_sampled import (
    _factor_arb,
    sampled_parts,
    sampled_rdp_integer,
    sampled_reverse_integer,
)
from tradeoff_algebra.numeric.arb_expr import arb_ball
from tradeoff_algebra.numeric.context import arb_precision

R = sp.Rational
mp60 = mpmath.MPContext()
mp60.dps = 60


def _binomial(p, mu, a):
    """D_a(Q || P) by the explicit binomial sum in mpmath at 60 digits."""
    P, M = mp60.mpf(p.p) / p.q, mp60.mpf(mu.p) / mu.q
    s = mp60.fsum(mp60.binomial(a, k) * (1 - P) ** (a - k) * P**k * mp60.exp(k * (k - 1) * M**2 / 2)
                  for k in range(a + 1))
    return mp60.log(s) / (a - 1)


def _quad_pq(p, mu, a):
    """D_a(P || Q) = log E_P[(1 - p + p L)^(1-a)]/(a - 1) by mpmath quadrature (40 digits)."""
    mq = mpmath.MPContext()
    mq.dps = 40
    a = sp.Rational(a)
    P, M, A = mq.mpf(p.p) / p.q, mq.mpf(mu.p) / mu.q, mq.mpf(a.p) / a.q
    g = lambda x: mq.npdf(x) * (1 - P + P * mq.exp(M * x - M**2 / 2)) ** (1 - A)  # noqa: E731
    return mq.log(mq.quad(g, [-mq.inf, -8, 0, 8, mq.inf])) / (A - 1)


CASES = [(R(256, 60000), R(10, 11)), (R(1, 100), 2), (R(1, 10), R(1, 5)), (R(1, 2), R(5, 4))]


@pytest.mark.parametrize("p,mu", CASES)
def test_binomial_sums_against_mpmath(p, mu):
    mu = sp.sympify(mu)
    orders = [2, 3, 5, 17, 64, 101]
    got = sampled_reverse_integer(Inverse(Mix(G(mu), p)), orders, 25)
    assert sorted(got) == orders
    for a in orders:
        v, ref = got[a], _binomial(p, mu, a)
        assert v.guarantee == "certified"
        assert mp60.mpf(v.lo) <= ref <= mp60.mpf(v.hi)
        assert v.width <= 1e-23 * ref


@pytest.mark.parametrize("p,mu", CASES)
def test_taylor_bound_lies_above_the_other_direction(p, mu):
    """The upper bound of log B_a lies above the Arb integral's enclosure of D_a(P || Q) and
    above an mpmath quadrature of it."""
    mu = sp.sympify(mu)
    orders = [2, 3, 8, 20]
    with arb_precision(200):
        _, lb = _factor_arb(arb_ball(p), arb_ball(mu) ** 2, orders, 200)
        for a in orders:
            if not lb[a].is_finite():
                continue
            up = mp60.mpf(lb[a].upper().str(40, radius=False)) / (a - 1)
            lo, hi = sampled_gaussian_renyi(p, mu, sp.Integer(a), False, 20)
            assert up >= hi
            assert up >= _quad_pq(p, mu, a) * (1 + mp60.mpf(10) ** -30)


def test_parts_of_products_and_refusals():
    m1, m2 = Mix(G(1), R(1, 10)), Mix(G(2), R(1, 50))
    assert set(sampled_parts(m1**5 @ m2)) == {(R(1, 10), 1, 5, False), (R(1, 50), 2, 1, False)}
    assert sampled_parts(Inverse(m1**3)) == [(R(1, 10), 1, 3, True)]
    assert sampled_parts(Mix(G(1), 1)) is None  # p = 1: G_mu itself
    assert sampled_parts(Mix(ta.Laplace(1), R(1, 2))) is None
    assert sampled_parts(m1 @ G(1)) is None
    assert sampled_rdp_integer(m1 @ Inverse(m2), [2, 3], 20) == {}  # mixed directions


def _slow_rdp(g, a, dps=20):
    return max(mp60.mpf(ta.renyi(g, a, dps=dps).hi), mp60.mpf(ta.renyi(Inverse(g), a, dps=dps).hi))


@pytest.mark.parametrize("sigma,q,T", [(R(11, 10), R(256, 60000), 14063), (R(1, 2), R(1, 100), 300),
                                       (5, R(1, 10), 10)])
def test_rdp_of_equals_the_order_by_order_route(sigma, q, T):
    """RDP.of on integer orders (the fast path, and where its bound does not decide, the
    route per order) against the maximum of the two directions computed one by one (the
    binomial Sum through arb_expr and the Arb integral): equal to a few units of the 20th
    digit (both are upper ends of certified enclosures)."""
    f = ta.noisy_sgd(sigma, q, T)
    orders = [2, 3, 7, 30, 60]
    r = ta.RDP.of(f, orders=orders)
    for a in orders:
        slow = _slow_rdp(f.arg, a)
        mine = mp60.mpf(sp.N(r.at(a), 30))
        assert abs(mine - slow) <= 1e-18 * slow


def test_rdp_of_mixes_fractional_and_integer_orders():
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 1000)
    r = ta.RDP.of(f, orders=[R(3, 2), 2, R(5, 2), 4])
    assert r.orders == (R(3, 2), 2, R(5, 2), 4)
    for a in r.orders:
        assert abs(mp60.mpf(sp.N(r.at(a), 30)) - _slow_rdp(f.arg, a)) <= 1e-18 * r.at(a)


def test_rdp_of_against_dp_accounting_at_100_orders():
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    q, sigma, T = 256 / 60000, 1.1, 14063
    orders = list(range(2, 102))
    theirs = rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders) * T
    f = ta.noisy_sgd(sp.Rational(sigma), sp.Rational(q), T)  # the floats' binary values
    r = ta.RDP.of(f, orders=orders)
    for a, t in zip(orders, theirs, strict=True):
        assert abs(float(r.at(a)) - t) <= 1e-11 * t


def test_epsilon_picks_the_same_order_as_the_sympy_objective():
    """The order chosen through the mpmath mirror of the conversion is the order that
    minimises the SymPy expression itself."""
    r = ta.RDP.of(ta.noisy_sgd(R(11, 10), R(256, 60000), 14063), orders=list(range(2, 40)))
    d = R(1, 10**5)
    vals = {a: sp.N(ta.notions.renyi_dp.rdp_to_epsilon(a, r.at(a), d), 40) for a in r.orders}
    best = min(vals, key=vals.get)
    assert r.best_order(d) == best
    v = r.epsilon(d, dps=30)
    assert abs(mp60.mpf(v.mid) - mp60.mpf(vals[best])) < 1e-28
    for method in ("mironov", "balle"):
        e = ta.notions.renyi_dp.rdp_to_delta
        dv = {a: sp.N(e(a, r.at(a), 3, method), 40) for a in r.orders}
        got = r.delta(3, method=method, dps=30)
        assert abs(mp60.mpf(got.mid) - mp60.mpf(min(dv.values()))) <= 1e-28 * got.mid


@pytest.mark.parametrize("a", [R(3, 2), R(11, 10), R(57, 10)])
def test_fractional_order_one_integral_against_quadrature(a):
    """sampled_rdp_order: the larger direction at a fractional order, the other bounded below it
    by the Taylor bound (real orders), against mpmath quadratures of both directions."""
    from tradeoff_algebra.analysis.renyi_sampled import sampled_rdp_order

    p, mu, n = R(256, 60000), R(10, 11), 500
    v = sampled_rdp_order(Mix(G(mu), p) ** n, a, 20)
    assert v is not None and v.guarantee == "certified"
    ref = n * max(_quad_pq(p, mu, a), _quad_qp(p, mu, a))
    assert mp60.mpf(v.lo) * (1 - 1e-25) <= ref <= mp60.mpf(v.hi) * (1 + 1e-25)
    assert n * _quad_pq(p, mu, a) < mp60.mpf(v.lo)  # the bounded side is the smaller one


def _quad_qp(p, mu, a):
    """D_a(Q || P) = log E_P[(1 - p + p L)^a]/(a - 1) by mpmath quadrature (40 digits)."""
    mq = mpmath.MPContext()
    mq.dps = 40
    P, M, A = mq.mpf(p.p) / p.q, mq.mpf(mu.p) / mu.q, mq.mpf(a.p) / a.q
    g = lambda x: mq.npdf(x) * (1 - P + P * mq.exp(M * x - M**2 / 2)) ** A  # noqa: E731
    return mq.log(mq.quad(g, [-mq.inf, -8, 0, 8, 8 + A * M, mq.inf])) / (A - 1)


SERIES_CASES = [(R(256, 60000), R(10, 11)), (R(1, 10**4), R(1, 2)), (R(1, 100), R(1, 5)),
                (R(1, 10), R(2)), (R(1, 2), R(1, 2))]


@pytest.mark.parametrize("p,mu", SERIES_CASES)
def test_real_order_series_against_quadrature(p, mu):
    """The series on regions of t (real orders) against an mpmath quadrature at 40 digits:
    each certified enclosure holds the quadrature value and is narrow (20 digits); where the
    series does not apply (too many regions) it says so with None."""
    from tradeoff_algebra.analysis.renyi_sampled import _series_renyi

    answered = 0
    for a in (R(101, 100), R(11, 10), R(3, 2), R(7, 2), R(109, 10), R(61, 2)):
        r = _series_renyi(p, mu, a, 20)
        if r is None:
            continue
        answered += 1
        ref = _quad_qp(p, mu, a)
        lo, hi = mp60.mpf(r[0]), mp60.mpf(r[1])
        assert lo <= ref * (1 + mp60.mpf(10) ** -35) and ref * (1 - mp60.mpf(10) ** -35) <= hi
        assert hi - lo <= mp60.mpf(10) ** -20 * ref
    assert answered >= 3


def test_real_order_series_is_shared_and_falls_back():
    """The orders of dp_accounting's default list up to 11 share one series; beyond 64 (and
    where the regions would be too many) the Arb integral answers, the same value."""
    from tradeoff_algebra.analysis import renyi_mixture as rm
    from tradeoff_algebra.analysis import renyi_sampled as rs

    p, mu = R(256, 60000), R(10, 11)
    rm._SERIES.clear()
    for a in (R(11, 10), R(23, 10), R(57, 10), R(109, 10)):
        assert rs._series_renyi(p, mu, a, 20) is not None
    assert len(rm._SERIES) == 1
    assert rs._series_renyi(p, mu, R(131, 2), 20) is None
    v = rs.sampled_rdp_order(Mix(G(mu), p) ** 10, R(131, 2), 20)  # the integral
    ref = 10 * _quad_qp(p, mu, R(131, 2))
    assert mp60.mpf(v.lo) * (1 - 1e-25) <= ref <= mp60.mpf(v.hi) * (1 + 1e-25)


def test_rdp_of_default_orders_against_quadrature_and_dp_accounting():
    """RDP.of at dp_accounting's default orders (90 fractional, by the series): at 1.1, 2.5 and
    7.5 against the quadrature (20 digits); every order within 3% of dp_accounting's float,
    whose fractional orders are off by up to 2.4% (at 1.1; its series adds the terms' absolute
    values), exactly equal at the integer orders to 1e-11."""
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    q, sigma, T = 256 / 60000, 1.1, 14063
    orders = rdp.DEFAULT_RDP_ORDERS
    theirs = rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders) * T
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), T)
    r = ta.RDP.of(f, orders=orders)
    for a, t in zip(orders, theirs, strict=True):
        tol = 1e-11 if float(a).is_integer() else 3e-2
        assert abs(float(r.at(a)) - t) <= tol * t, a
    for a in (1.1, 2.5, 7.5):  # the orders are the floats' exact binary values
        ref = T * _quad_qp(R(256, 60000), R(10, 11), R(a))
        assert abs(mp60.mpf(sp.N(r.at(a), 30)) - ref) <= 1e-19 * ref, a


def test_float_orders_are_their_exact_binary_rationals():
    """RDP.of's fast path for Python floats gives the same orders as the validator."""
    import numpy as np

    from tradeoff_algebra.core.validate import param
    from tradeoff_algebra.notions.renyi_dp import _order_list

    orders = [1.5, 1.1, 10.9, 1 + 2.0 ** -40, 3, 2.25, np.float64(1.3), np.float64(20.0)]
    got = _order_list(orders, "RDP.of")
    want = [param("o", a, lower=1, lower_open=True) for a in orders]
    assert got == want
    import pytest

    from tradeoff_algebra.core.errors import InvalidParameter
    for bad in (1.0, 0.5, float("nan"), -2.0):
        with pytest.raises(InvalidParameter):
            _order_list([2, bad], "RDP.of")


@pytest.mark.parametrize("p,mu", CASES + [(R(1, 1000), R(1, 2))])
def test_large_orders_top_terms_against_mpmath(p, mu):
    """Orders beyond 64 whose binomial sum is dominated by its top terms sum those only, the
    rest bounded (``_top_sum``): against the whole sum in mpmath at 60 digits, term by term."""
    mu = sp.sympify(mu)
    orders = [65, 101, 128, 256, 512, 1024]
    got = sampled_reverse_integer(Inverse(Mix(G(mu), p)), orders, 25)
    for a in orders:
        v, ref = got[a], _binomial(p, mu, a)
        assert v.guarantee == "certified"
        assert mp60.mpf(v.lo) <= ref <= mp60.mpf(v.hi)
        assert v.width <= 1e-23 * ref
