"""RDP of products of sampled Gaussians at real (non-integer) orders, all the orders of a list in
one batch (``analysis.renyi_sampled.sampled_rdp_orders``: the series on regions evaluated at
every order at once, the Taylor bound of the other side as polynomials in the order), against
an independent reference: mpmath quadrature of E_P[(dQ/dP)^a] and of E_P[(dQ/dP)^(1-a)] at 40
digits, order by order. Each certified upper end must lie at or above the reference and within
the stated width (10^-dps relative) of it."""

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import G, Inverse, Mix
from tradeoff_algebra.analysis import renyi_sampled as rs
from tradeoff_algebra.numeric.context import arb_precision, mp

R = sp.Rational


def _quad(p, mu, a, c_of_a):
    """log E_P[(1 - p + p L)^c]/(a - 1), c = a (D_a(Q || P)) or 1 - a (D_a(P || Q)), by mpmath
    quadrature at 40 digits, the line cut where the integrand's mass lies."""
    mq = mpmath.MPContext()
    mq.dps = 40
    P, M, A = mq.mpf(p.p) / p.q, mq.mpf(mu.p) / mu.q, mq.mpf(a.p) / a.q
    c = c_of_a(A)
    g = lambda x: mq.npdf(x) * (1 - P + P * mq.exp(M * x - M**2 / 2)) ** c  # noqa: E731
    cuts = sorted({-8, 0, 8, float(8 + abs(c) * M)})
    return mq.log(mq.quad(g, [-mq.inf, *cuts, mq.inf])) / (A - 1)


def _ref(p, mu, a):
    """max of the two directions of Mix(G(mu), p) at order a (quadrature, 40 digits)."""
    return max(_quad(p, mu, a, lambda A: A), _quad(p, mu, a, lambda A: 1 - A))


def _check(got: dict, refs: dict, dps: int = 20):
    with mp.workdps(60):
        tol = mp.mpf(10) ** -dps
        for a, ref in refs.items():
            up, ref = mp.mpf(got[a].p) / got[a].q, mp.mpf(ref)
            assert up >= ref * (1 - mp.mpf(10) ** -35), (a, up, ref)  # an upper end
            assert up - ref <= tol * ref, (a, up, ref)  # within the stated width


ORDERS = [R(11, 10), R(5, 2), R(61, 10), R(109, 10), R(81, 4)]


@pytest.mark.parametrize("p,mu,n", [(R(256, 60000), R(10, 11), 14063), (R(1, 100), R(1, 2), 300)])
def test_batch_against_quadrature(p, mu, n):
    f = Mix(G(mu), p) ** n
    got = rs.sampled_rdp_orders(f, ORDERS, 20)
    assert set(got) == set(ORDERS)
    _check(got, {a: n * _ref(p, mu, a) for a in ORDERS})


def test_batch_with_many_regions_against_quadrature():
    """mu = 2 (sigma = 1/2): a series of about 90 regions, shared by the batch (one order
    alone would take the Arb integral beyond 64). (At order 1.1 the Taylor bound of the other
    side does not decide: the caller's route answers it.)"""
    p, mu, n = R(1, 100), R(2), 1000
    orders = [R(5, 2), R(61, 10), R(109, 10)]
    got = rs.sampled_rdp_orders(Mix(G(mu), p) ** n, orders, 20)
    assert set(got) == set(orders)
    _check(got, {a: n * _ref(p, mu, a) for a in orders})


def test_two_factors_and_reversed_products():
    """Distinct factors add (each its own series); a product of reversed factors has the same
    maximum of the two directions."""
    m1, m2 = Mix(G(R(10, 11)), R(256, 60000)), Mix(G(R(1, 2)), R(1, 100))
    orders = [R(3, 2), R(77, 10)]
    refs = {a: 7 * _ref(R(256, 60000), R(10, 11), a) + 3 * _ref(R(1, 100), R(1, 2), a)
            for a in orders}
    _check(rs.sampled_rdp_orders(m1**7 @ m2**3, orders, 20), refs)
    _check(rs.sampled_rdp_orders(Inverse(m1**7) @ Inverse(m2**3), orders, 20), refs)
    assert rs.sampled_rdp_orders(m1 @ Inverse(m2), orders, 20) == {}  # mixed directions
    assert rs.sampled_rdp_orders(m1 @ G(1), orders, 20) == {}  # not such a product


def test_orders_outside_are_left_to_the_caller():
    f = Mix(G(R(10, 11)), R(256, 60000)) ** 10
    got = rs.sampled_rdp_orders(f, [R(3), R(131, 2), R(3, 2), sp.oo], 20)
    assert set(got) == {R(3, 2)}  # integers, orders beyond 64 and oo go elsewhere


def test_rdp_of_uses_the_batch_and_matches_it():
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 14063)
    r = ta.RDP.of(f, orders=ORDERS + [2, 3])
    batch = rs.sampled_rdp_orders(f.arg, ORDERS, 20)
    for a in ORDERS:
        assert r.at(a) == batch[a]


def test_taylor_bound_polynomials_against_quadrature_and_the_per_order_bound():
    """_log_b_many (the Taylor bound at all orders at once) bounds D_a(P || Q) from above: at
    or above the quadrature, and no looser than 10^-6 relative beyond the per-order bound of
    _log_b_upper (which tries every order 2J)."""
    from flint import arb, fmpq

    orders = [R(11, 10), R(61, 10), R(81, 4)]
    for p, mu in [(R(256, 60000), R(10, 11)), (R(1, 10), R(1, 5))]:
        prec = 120
        with arb_precision(prec):
            A = [arb(fmpq(a.p, a.q)) for a in orders]
            many = rs._log_b_many(p, mu, prec, A)
            pb, mom = rs._cached_moments(p, mu, prec)
            for a, x, lb in zip(orders, A, many, strict=True):
                assert lb.is_finite()
                one = rs._log_b_upper(pb, 1 - pb, mom, x)
                with mp.workdps(60):
                    up = mp.mpf(lb.upper().str(45, radius=False)) / (mp.mpf(a.p) / a.q - 1)
                    assert up >= mp.mpf(_quad(p, mu, a, lambda A: 1 - A))
                assert lb.upper() <= one.upper() * (1 + arb(10) ** -6) or \
                    lb.upper() <= one.upper() + arb(10) ** -30


def test_the_curve_dict_is_sympys():
    """RDP.of builds its Dict from pairs sorted by value: the same arguments, hash and lookups
    as sp.Dict of the same items."""
    from tradeoff_algebra.notions.renyi_dp import _number_dict

    items = {R(11, 10): R(1, 3), 2: R(5, 7), R(3, 2): R(1, 9), R(1025, 1024): R(2, 3),
             R(1, 10**30) + 1: R(4), 1024: R(10**40), sp.oo: R(7)}
    items = {sp.sympify(k): v for k, v in items.items()}
    d, ref = _number_dict(items), sp.Dict(items)
    assert d.args == ref.args and d == ref and hash(d) == hash(ref)
    assert all(d[k] == v for k, v in items.items()) and set(d.keys()) == set(items)


@pytest.mark.slow
def test_every_default_order_of_dp_accounting_against_quadrature():
    """dp_accounting's 156 default orders for DP-SGD (q = 256/60000, sigma = 11/10,
    T = 14063): every order's certified upper end against the quadrature of both directions
    (integer orders as well)."""
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    p, mu, T = R(256, 60000), R(10, 11), 14063
    r = ta.RDP.of(ta.noisy_sgd(R(11, 10), p, T), orders=rdp.DEFAULT_RDP_ORDERS)
    for a in r.orders:
        if a > 64:
            continue  # the quadrature's cuts are not placed for these (bench_rdp checks them)
        with mp.workdps(60):
            ref = T * mp.mpf(_ref(p, mu, a))
            up = mp.mpf(r.at(a).p) / r.at(a).q
            assert ref * (1 - mp.mpf(10) ** -35) <= up <= ref * (1 + mp.mpf(10) ** -20), a



def test_centred_falling_factorials_against_sympy():
    """The matrix of the series (``renyi_mixture._falling``): column j holds the coefficients of
    (y + c)(y + c - 1) ... (y + c - j + 1) in powers of y, against SymPy's expansion of the
    falling factorial ff(y + c, j) (exact integers, contained in the balls)."""
    from flint import arb

    from tradeoff_algebra.analysis.renyi_mixture import _falling

    y = sp.Symbol("y")
    for c, D in [(6, 30), (1, 12), (32, 36)]:
        with arb_precision(400):
            F = _falling(c, D)
            for j in [0, 1, 7, D - 1]:
                poly = sp.Poly(sp.expand_func(sp.ff(y + c, j)).expand(), y)
                for k in range(D):
                    coef = int(poly.coeff_monomial(y**k)) if k <= j else 0
                    assert F[k, j].contains(arb(coef)), (c, D, j, k)
                    assert F[k, j].rad() == 0  # exact at 400 bits
