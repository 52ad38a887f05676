"""The capability "renyi_orders" (numeric/renyi_orders.py: a family's Renyi divergences at many
orders as an Arb program, no SymPy) and the RDP curves RDP.of forms from it, against
independent references: 40-digit mpmath quadrature of the Renyi integral of the Laplace pair
log int p^a q^(1-a)/(a - 1), exact rationals a mu^2/2 for the Gaussian (Python fractions), the
exact lattice sum of the discrete Gaussians at integer orders (50 digits), and dp_accounting's
float64 within 1e-12 relative. Every ball must contain the reference, have a relative width
below 10^-dps, and the curve's values (the balls' upper ends) lie at or above it."""

import math
import pickle
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq
from references.contexts import mp_context as _ctx

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_orders as ro

R = sp.Rational
ORDERS_100 = list(range(2, 102))


def _laplace_quad(mu, a):
    """D_a(Lap(0, 1) || Lap(mu, 1)) by 40-digit quadrature of int p^a q^(1-a) (mu, a:
    Fractions)."""
    c = _ctx(40)
    M = c.mpf(mu.numerator) / mu.denominator
    A = c.mpf(a.numerator) / a.denominator
    g = lambda x: c.exp(-A * abs(x) - (1 - A) * abs(x - M)) / 2  # noqa: E731
    return c.log(c.quad(g, [-c.inf, 0, M, c.inf])) / (A - 1)


def _contains(ball, ref, c) -> bool:
    lo = c.mpf(ball.lower().str(60, radius=False))
    hi = c.mpf(ball.upper().str(60, radius=False))
    slack = abs(ref) * c.mpf(10) ** -35  # the reference's own last digits
    return lo - slack <= ref <= hi + slack


def _rel_width(ball) -> float:
    return float(ball.rad()) / abs(float(ball.mid()))


@pytest.mark.parametrize("mu, orders", [
    (Fraction(1), [2, 3, 4, 40, fmpq(27, 10)]),
    (Fraction(1, 10), [2, 5, 6, fmpq(3, 2), fmpq(257, 4)]),
    (Fraction(5, 2), [9, 10, 11, fmpq(11, 10)]),
    (Fraction(17, 3), [2, 3, fmpq(7, 2)])])
def test_laplace_balls_contain_the_quadrature(mu, orders):
    """Consecutive integer orders (the recurrence), isolated ones and fractional ones."""
    vals = ro.renyi_orders(ta.Laplace(R(mu.numerator, mu.denominator)), orders, 20)
    c = _ctx(40)
    for a, v in zip(orders, vals, strict=True):
        fa = Fraction(int(a.p), int(a.q)) if isinstance(a, fmpq) else Fraction(a)
        assert v is not None and _rel_width(v) < 1e-20, (a, v)
        assert _contains(v, _laplace_quad(mu, fa), c), (mu, a, v)


@pytest.mark.slow  # (importing dp_accounting takes seconds)
def test_laplace_100_consecutive_orders_and_dp_accounting():
    """The recurrence y e^{-2 mu} over 2..101 against quadrature at its ends and middle and
    against dp_accounting's float64 at all."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    vals = ro.renyi_orders(ta.Laplace(1), ORDERS_100, 20)
    c = _ctx(40)
    for a in (2, 51, 101):
        v = vals[a - 2]
        assert _contains(v, _laplace_quad(Fraction(1), Fraction(a)), c), (a, v)
    acc = rdp.RdpAccountant(ORDERS_100)
    acc.compose(dp_accounting.LaplaceDpEvent(1.0))
    for v, theirs in zip(vals, acc._rdp, strict=True):
        assert _rel_width(v) < 1e-20
        assert math.isclose(float(v.mid()), float(theirs), rel_tol=1e-12)


def test_laplace_irrational_mu_and_small_mu():
    c = _ctx(40)
    # mu = sqrt(2): the Arb enclosure of mu, against quadrature at 40 digits
    vals = ro.renyi_orders(ta.Laplace(sp.sqrt(2)), [2, 3, fmpq(7, 2)], 20)
    M = c.sqrt(2)
    for a, v in zip([2, 3, 3.5], vals, strict=True):
        A = c.mpf(a)
        g = lambda x, A=A: c.exp(-A * abs(x) - (1 - A) * abs(x - M)) / 2  # noqa: E731
        ref = c.log(c.quad(g, [-c.inf, 0, M, c.inf])) / (A - 1)
        assert _rel_width(v) < 1e-20 and _contains(v, ref, c), (a, v)
    # mu = 10^-12: mu and the log cancel to ~a mu^2/2; the precision is raised until the
    # ball is narrow; reference: the series a mu^2/2 - a(a-1)(2a-1) mu^3/6 ... replaced by
    # the exact formula in 80-digit mpmath (a different evaluation of the same integral)
    mu = Fraction(1, 10**12)
    vals = ro.renyi_orders(ta.Laplace(R(1, 10**12)), [2, 5], 20)
    d = _ctx(80)
    for a, v in zip([2, 5], vals, strict=True):
        m, A = d.mpf(mu.numerator) / mu.denominator, d.mpf(a)
        ref = d.log(A / (2 * A - 1) * d.exp((A - 1) * m)
                    + (A - 1) / (2 * A - 1) * d.exp(-A * m)) / (A - 1)
        assert _rel_width(v) < 1e-20 and _contains(v, ref, d), (a, v)
        assert abs(ref / (a * m**2 / 2) - 1) < 1e-10  # the regime it tests


def test_laplace_zero_symbolic_and_no_program():
    assert ro.renyi_orders(ta.Laplace(0), [2, 3], 20) == [fmpq(0), fmpq(0)]
    assert ro.renyi_orders(ta.Laplace(sp.Symbol("m", positive=True)), [2], 20) is None
    assert ro.renyi_orders(ta.EpsDelta(1, 0), [2], 20) is None  # no registration: the default


def test_gaussian_exact_rationals():
    for mu in (Fraction(10, 11), Fraction(3), Fraction(1, 7)):
        orders = [2, 3, 101, fmpq(3, 2), fmpq(257, 4)]
        vals = ro.renyi_orders(ta.G(R(mu.numerator, mu.denominator)), orders, 20)
        for a, v in zip(orders, vals, strict=True):
            fa = Fraction(int(a.p), int(a.q)) if isinstance(a, fmpq) else Fraction(a)
            assert isinstance(v, fmpq)
            assert Fraction(int(v.p), int(v.q)) == fa * mu * mu / 2


def test_gaussian_irrational_mu_is_a_ball_and_a_rational_square_exact():
    c = _ctx(40)
    vals = ro.renyi_orders(ta.G(sp.cbrt(2)), [2, fmpq(5, 2)], 20)
    for a, v in zip([2, 2.5], vals, strict=True):
        assert isinstance(v, arb) and _rel_width(v) < 1e-20
        assert _contains(v, c.mpf(a) * c.cbrt(2) ** 2 / 2, c)
    # mu = c sqrt(b), b, c rational (the tree aggregation's G(sqrt(d)/s)): exact a c^2 b/2
    for mu, half_sq in ((sp.sqrt(3) / 2, Fraction(3, 8)), (sp.sqrt(R(2, 3)), Fraction(1, 3)),
                        (sp.sqrt(10) / R(11, 10), Fraction(500, 121))):
        vals = ro.renyi_orders(ta.G(mu), [2, 101, fmpq(5, 2)], 20)
        for a, v in zip([Fraction(2), Fraction(101), Fraction(5, 2)], vals, strict=True):
            assert isinstance(v, fmpq) and Fraction(int(v.p), int(v.q)) == a * half_sq


class _Wide:
    """A stand-in node whose program gives balls of chosen widths."""


def test_the_precision_is_raised_or_the_order_left_out():
    """A point whose balls are too wide at the first precision is asked again at twice and four
    times it; what is still too wide is None (the caller's route answers it)."""
    calls = []

    @ro.arb_renyi_orders.register(_Wide)
    def _(f, orders):
        from flint import ctx

        calls.append((ctx.prec, list(orders)))
        # order 2: exact; order 3: radius 2^-150 from the second call on (2^-40 before);
        # order 4: never narrower than 2^-10
        return [arb(1) if a == 2 else arb(1, 2.0 ** (-150 if ctx.prec > 150 else -40))
                if a == 3 else arb(1, 2.0 ** -10) for a in orders]

    out = ro.renyi_orders(_Wide(), [2, 3, 4], 20)
    assert out[0] == arb(1) and out[1] is not None and out[2] is None
    assert [o for _, o in calls] == [[2, 3, 4], [3, 4], [4]]
    assert calls[1][0] == 2 * calls[0][0] and calls[2][0] == 4 * calls[0][0]


# -- RDP.of through the capability --------------------------------------------------------------
def test_rdp_of_laplace_is_the_eager_curve_and_lies_above_the_quadrature():
    f = ta.laplace_mechanism(1, 2)  # L_{1/2}
    orders = [2, 3, 4, 10, 64]
    r = ta.RDP.of(f, orders=orders)
    assert "_curve_of" in r.__dict__  # formed lazily ...
    c = _ctx(40)
    for a in orders:
        t = r.at(a)  # ... on first reading
        assert isinstance(t, sp.Rational)
        ref = _laplace_quad(Fraction(1, 2), Fraction(a))
        x = c.mpf(t.p) / t.q
        assert ref <= x <= ref * (1 + c.mpf(10) ** -20), (a, t, ref)
    # the same notion as the former route (the SymPy form compiled to Arb, one upper end each
    # within 10^-20 of the truth): equal orders, values within the widths
    from tradeoff_algebra.analysis.renyi_batch import closed_renyi_orders

    old = closed_renyi_orders(f, [R(a) for a in orders], 20)
    for a in orders:
        assert abs(r.at(a) - old[R(a)]) <= old[R(a)] * R(1, 10**20)
    assert r == ta.RDP(dict(r.curve)) and hash(r) == hash(ta.RDP(dict(r.curve)))
    assert pickle.loads(pickle.dumps(r)) == r
    assert r.orders == tuple(sp.Integer(a) for a in orders)


def test_rdp_of_gaussian_is_exact_and_mixed_orders_take_both_routes():
    r = ta.RDP.of(ta.gaussian_mechanism(1, R(11, 10)), orders=ORDERS_100)
    assert all(r.at(a) == R(100 * a, 242) for a in (2, 51, 101))
    # a float order (its exact binary value), a SymPy rational, +oo (the order-by-order route)
    r = ta.RDP.of(ta.G(R(1, 2)), orders=[2, 2.5, R(7, 3), sp.oo])
    assert r.curve == sp.Dict({2: R(1, 4), R(5, 2): R(5, 16), R(7, 3): R(7, 24), sp.oo: sp.oo})
    r = ta.RDP.of(ta.Laplace(1), orders=[2, sp.oo])  # (+oo: the former route's bound, +oo)
    assert r.at(sp.oo) == sp.oo and r.at(2) >= 0.6191236299985


def test_rdp_of_epsilon_and_composition_read_the_curve():
    """The conversion of the lazily formed curve: at or above the "balle" conversion (Balle et
    al. 2020, Thm. 21) of Mironov's closed form evaluated in 50-digit mpmath at every order,
    and within 10^-18 of it."""
    r = ta.RDP.of(ta.laplace_mechanism(1, 1), orders=ORDERS_100)
    e = r.epsilon(R(1, 10**5))
    assert e.guarantee == "certified"
    c = _ctx(50)

    def d(a):
        A = c.mpf(a)
        return c.log(A / (2 * A - 1) * c.exp(A - 1) + (A - 1) / (2 * A - 1) * c.exp(-A)) / (A - 1)

    ref = min(d(a) + c.log((c.mpf(a) - 1) / a) - (c.log(c.mpf(10) ** -5) + c.log(a)) / (a - 1)
              for a in ORDERS_100)
    hi = c.mpf(mpmath.nstr(e.hi, 40))
    assert ref * (1 - c.mpf(10) ** -25) <= hi <= ref * (1 + c.mpf(10) ** -18)
    both = r @ ta.RDP.of(ta.G(1), orders=ORDERS_100)
    assert both.at(2) == r.at(2) + 1


def _dgauss_sum(d, s2, a):
    """D_a(N_Z(0, s2) || N_Z(d, s2)) as the lattice sum log sum_y p^a q^(1-a)/(a - 1) at 50
    digits (equal normalisers; the terms beyond |y| = 80 are below 10^-60 here)."""
    c = _ctx(50)
    A, S = c.mpf(a.numerator) / a.denominator, c.mpf(s2.numerator) / s2.denominator
    shift = math.floor((1 - a) * d)
    lo, hi = min(0, shift) - 80, max(0, shift) + 81
    s = c.fsum(c.exp(-(A * y * y + (1 - A) * (y - d) ** 2) / (2 * S)) for y in range(lo, hi))
    theta = c.fsum(c.exp(-y * y / (2 * S)) for y in range(-80, 81))
    return c.log(s / theta) / (A - 1)


def test_discrete_gaussian_exact_at_integer_shifts_against_lattice_sums():
    c = _ctx(50)
    for d, s2 in ((1, Fraction(9, 4)), (2, Fraction(5, 1)), (3, Fraction(7, 2))):
        f = ta.DiscreteGaussian(d, sp.sqrt(R(s2.numerator, s2.denominator)))
        orders = [2, 3, 17, fmpq(3, 2), fmpq(4, 3)]
        vals = ro.renyi_orders(f, orders, 20)
        for a, v in zip(orders, vals, strict=True):
            fa = Fraction(int(a.p), int(a.q)) if isinstance(a, fmpq) else Fraction(a)
            if (fa * d).denominator != 1:  # the theta ratio is not 1: left to the other route
                assert v is None
                continue
            assert isinstance(v, fmpq) and Fraction(int(v.p), int(v.q)) == fa * d * d / (2 * s2)
            ref = _dgauss_sum(d, s2, fa)
            assert abs(c.mpf(int(v.p)) / int(v.q) - ref) < c.mpf(10) ** -40 * ref, (d, a)
    k, s = sp.Symbol("k", integer=True, positive=True), sp.Symbol("s", positive=True)
    assert ro.renyi_orders(ta.DiscreteGaussian(k, 2), [2], 20) is None  # symbolic: no program
    assert ro.renyi_orders(ta.DiscreteGaussian(1, s), [2], 20) is None
    # RDP.of takes the integer orders from here and 3/2 from the closed form (theta ratio)
    r = ta.RDP.of(ta.DiscreteGaussian(1, R(3, 2)), orders=[2, R(3, 2)])
    assert r.at(2) == R(4, 9)
    ref = _dgauss_sum(1, Fraction(9, 4), Fraction(3, 2))
    assert ref <= c.mpf(r.at(R(3, 2)).p) / r.at(R(3, 2)).q <= ref * (1 + c.mpf(10) ** -20)


# -- the quick path of RDP.of (renyi_curve.quick_batch) -----------------------------------------
def test_quick_path_agrees_with_the_general_route_and_quadrature():
    """RDP.of with Python int orders takes quick_batch (no deadline, bounded work); a SymPy
    Integer list takes the general route (budget.call, _capability_orders): the same curve,
    and both at or above 40-digit quadrature of the Laplace pair within 10^-20."""
    from tradeoff_algebra.notions import renyi_curve as rc

    f = ta.laplace_mechanism(1, R(3, 2))  # L_{2/3}
    orders = [2, 3, 4, 9, 10, 33]
    assert rc.quick_batch(f, orders, 20) is not None
    fast = ta.RDP.of(f, orders=orders)
    slow = ta.RDP.of(f, orders=[sp.Integer(a) for a in orders])
    assert fast == slow
    c = _ctx(40)
    for a in orders:
        ref = _laplace_quad(Fraction(2, 3), Fraction(a))
        t = fast.at(a)
        assert ref <= c.mpf(t.p) / t.q <= ref * (1 + c.mpf(10) ** -20), a


def test_quick_path_declines_what_it_does_not_bound():
    from tradeoff_algebra.notions import renyi_curve as rc

    f = ta.Laplace(1)
    assert rc.quick_batch(f, [2, 3], 20) is not None
    assert rc.quick_batch(f, [2, 2.5], 20) is None  # a float order
    assert rc.quick_batch(f, [1, 2], 20) is None  # order 1: the general route's error
    assert rc.quick_batch(f, [2, True], 20) is None  # (bool is no order)
    assert rc.quick_batch(f, [], 20) is None
    assert rc.quick_batch(f, list(range(2, 2 + ro.CHUNK + 1)), 20) is None  # (the deadline)
    assert rc.quick_batch(f, [2, 3], rc.QUICK_DPS + 1) is None
    assert rc.quick_batch(ta.Mix(ta.G(1), R(1, 10)), [2], 20) is None  # no program
    # no program, but an exact finite loss (analysis/renyi_finite.py; tests/test_renyi_finite.py)
    assert rc.quick_batch(ta.EpsDelta(1, 0), [2], 20) is not None
    assert rc.quick_batch("L", [2], 20) is None
    # the general route still validates: the same errors as before
    with pytest.raises(ta.InvalidParameter, match="orders"):
        ta.RDP.of(f, orders=[1, 2])
    # a high dps goes the general route and is still certified to its width
    r = ta.RDP.of(f, orders=[2, 3], dps=60)
    c = _ctx(80)
    ref = _laplace_quad(Fraction(1), Fraction(2))
    assert ref <= c.mpf(r.at(2).p) / r.at(2).q <= ref * (1 + c.mpf(10) ** -35)


class _Broken:
    """A stand-in node whose program raises an unexpected error."""


def test_quick_path_leaves_an_unexpected_error_to_the_general_route():
    from tradeoff_algebra.notions import renyi_curve as rc

    @ro.arb_renyi_orders.register(_Broken)
    def _(f, orders):
        raise ZeroDivisionError("a bug")

    class Node(_Broken, ta.TradeOff):
        is_symmetric = True

    assert rc.quick_batch(Node(), [2, 3], 20) is None
