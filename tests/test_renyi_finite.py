"""RDP curves of finite pairs from their exact atoms in Arb (analysis/renyi_finite.py), against
independent 50-digit mpmath references: the sum over the k outputs of k-ary randomized response,
the lattice sum over the integers of the discrete Laplace densities (not clipped), the binomial
sum of f_{eps,0}^{(x) n}, and both directions of an asymmetric pair; dp_accounting's randomized
response within 1e-12 relative."""

import math
from math import comb

import mpmath
import pytest
import sympy as sp
from flint import fmpq
from references.base import arb_ends, mpf_frac

import tradeoff_algebra as ta
from tradeoff_algebra.analysis.renyi_finite import finite_orders

dp_accounting = pytest.importorskip("dp_accounting")  # (imported once, outside the tests)
from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

R = sp.Rational
DPS = 50


def _rr_ref(eps, k: int, a):
    with mpmath.workdps(DPS):
        E, A = mpmath.e ** eps, mpmath.mpf(a)
        hi, lo = E / (E + k - 1), 1 / (E + k - 1)
        return mpmath.log(hi**A * lo ** (1 - A) + lo**A * hi ** (1 - A) + (k - 2) * lo) / (A - 1)


def _dlap_ref(t, a):
    """D_a(L_Z(0, t) || L_Z(1, t)) by the lattice sum over |x| <= 400 (the tail below 1e-60)."""
    with mpmath.workdps(DPS):
        A, T = mpmath.mpf(a), mpmath.mpf(t)
        Z = mpmath.fsum(mpmath.exp(-abs(x) / T) for x in range(-400, 401))
        s = mpmath.fsum(mpmath.exp(-(A * abs(x) + (1 - A) * abs(x - 1)) / T)
                        for x in range(-400, 401))
        return mpmath.log(s / Z) / (A - 1)


def _binomial_ref(eps, n: int, a):
    """D_a of f_{eps,0}^{(x) n}: the binomial pair, p_j = C(n, j) e^{eps j}/(1 + e^eps)^n."""
    with mpmath.workdps(DPS):
        E, A = mpmath.e ** eps, mpmath.mpf(a)
        s = mpmath.fsum(comb(n, j) * E ** (j * A + (n - j) * (1 - A)) for j in range(n + 1))
        return mpmath.log(s / (1 + E) ** n) / (A - 1)


def _close_above(v, ref) -> bool:
    """An exact rational upper end at or above the reference, within 1e-18 relative."""
    with mpmath.workdps(DPS):
        x = mpmath.mpf(v.p) / v.q
        return ref * (1 - mpmath.mpf(10) ** -40) <= x <= ref * (1 + mpmath.mpf(10) ** -18)


ORDERS = [2, 3, 4, 17, 60, 101]


@pytest.mark.parametrize("k", [2, 4, 7])
def test_randomized_response(k):
    r = ta.RDP.of(ta.randomized_response(1, k), orders=ORDERS)
    for a in ORDERS:
        assert _close_above(r.at(a), _rr_ref(1, k, a)), (k, a)


def test_discrete_laplace():
    r = ta.RDP.of(ta.discrete_laplace(1, R(3, 2)), orders=ORDERS)
    for a in ORDERS:
        assert _close_above(r.at(a), _dlap_ref(R(3, 2), a)), a


def test_power_of_pure_dp():
    r = ta.RDP.of(ta.EpsDelta(R(1, 2), 0) ** 6, orders=[2, 5, 40])
    for a in [2, 5, 40]:
        assert _close_above(r.at(a), _binomial_ref(mpmath.mpf(1) / 2, 6, a)), a


def test_asymmetric_pair_both_directions_and_fractional_orders():
    P, Q = [R(1, 2), R(1, 3), R(1, 6)], [R(1, 10), R(3, 10), R(3, 5)]
    f = ta.Discrete(P, Q)

    def d(X, Y, a):
        with mpmath.workdps(DPS):
            A = mpmath.mpf(a.p) / a.q if hasattr(a, "p") else mpmath.mpf(a)
            s = mpmath.fsum((mpmath.mpf(x.p) / x.q) ** A * (mpmath.mpf(y.p) / y.q) ** (1 - A)
                            for x, y in zip(X, Y, strict=True))
            return mpmath.log(s) / (A - 1)

    fw, _ = finite_orders(f, [2, fmpq(5, 2), 9], 20)
    bw, _ = finite_orders(f, [2, fmpq(5, 2), 9], 20, reverse=True)
    for a, x, y in zip([R(2), R(5, 2), R(9)], fw, bw, strict=True):
        for ball, ref in ((x, d(P, Q, a)), (y, d(Q, P, a))):
            with mpmath.workdps(DPS):
                lo = mpmath.mpf(ball.lower().str(60, radius=False))
                hi = mpmath.mpf(ball.upper().str(60, radius=False))
                assert lo - ref * mpmath.mpf(10) ** -40 <= ref <= hi + ref * mpmath.mpf(10) ** -40
    r = ta.RDP.of(f, orders=[2, 9])
    for a in (2, 9):
        assert _close_above(r.at(a), max(d(P, Q, R(a)), d(Q, P, R(a))))


def test_infinite_divergence_left_to_the_general_route():
    f = ta.EpsDelta(1, R(1, 10))  # an outcome with q = 0 < p: D_a = oo
    assert finite_orders(f, [2, 3], 20)[0] is None
    assert ta.RDP.of(f, orders=[2]).at(2) == sp.oo


def test_beside_dp_accounting():
    orders = list(range(2, 60))
    acc = rdp.RdpAccountant(orders, rdp.NeighborRel.REPLACE_ONE)
    acc.compose(dp_accounting.RandomizedResponseDpEvent(4 / (math.e + 3), 4))
    r = ta.RDP.of(ta.randomized_response(1, 4), orders=orders)
    for a, x in zip(orders, acc._rdp, strict=True):
        assert abs(float(r.at(a)) - x) <= 1e-12 * x, a


def test_tables_of_two_losses_alternated_and_non_consecutive_orders():
    """The last table's balls are kept for the other direction (renyi_finite._items): two
    losses and two precisions asked in turn, at orders with gaps (powers restarted), each
    value against its 50-digit reference."""
    orders = [2, 3, 7, 8, 9, 30]
    for k, dps in ((2, 20), (4, 20), (2, 30), (4, 16), (2, 20)):
        f = ta.randomized_response(1, k)
        for reverse in (True, False):
            vals, complete = finite_orders(f, orders, dps, reverse=reverse)
            assert complete
            for a, ball in zip(orders, vals, strict=True):
                ref = mpf_frac(_rr_ref(1, k, a))  # (symmetric: both directions alike)
                lo, hi = arb_ends(ball)
                slack = ref / 10**40  # (the reference's own 50 digits)
                assert lo <= ref + slack and hi >= ref - slack, (k, dps, a)
                assert hi - lo <= ref / 10**dps, (k, dps, a)
