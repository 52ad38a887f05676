"""RDP curves of products and powers from their factors' Arb programs (analysis/renyi_products.py)
against independent references: 50-digit mpmath quadrature of the Laplace pair's Renyi integral
log int p^a q^(1-a)/(a - 1), the Gaussian's a mu^2/2 as an exact fraction, summed over the
factors (additivity, van Erven & Harremoes Thm. 28, applied to the references), and
dp_accounting's composed events (float64, within 1e-12 relative)."""

from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_orders as ro

dp_accounting = pytest.importorskip("dp_accounting")  # (imported once, outside the tests)
from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

R = sp.Rational
DPS = 50


def _laplace_quad(mu: Fraction, a: Fraction):
    """D_a(Lap(0, 1) || Lap(mu, 1)) by 50-digit quadrature of int p^a q^(1-a)."""
    with mpmath.workdps(DPS):
        M = mpmath.mpf(mu.numerator) / mu.denominator
        A = mpmath.mpf(a.numerator) / a.denominator
        g = lambda x: mpmath.exp(-A * abs(x) - (1 - A) * abs(x - M)) / 2  # noqa: E731
        return mpmath.log(mpmath.quad(g, [-mpmath.inf, 0, M, mpmath.inf])) / (A - 1)


def _at_or_above(v, ref) -> bool:
    """The curve's value (an exact rational upper end) at or above the reference, within
    1e-18 relative of it."""
    with mpmath.workdps(DPS):
        x = mpmath.mpf(v.p) / v.q
        return ref * (1 - mpmath.mpf(10) ** -40) <= x <= ref * (1 + mpmath.mpf(10) ** -18)


ORDERS = [2, 3, 7, 30, 101]


def test_power_of_laplace():
    f = ta.laplace_mechanism(1, 1) ** 10
    r = ta.RDP.of(f, orders=ORDERS)
    for a in ORDERS:
        with mpmath.workdps(DPS):
            ref = 10 * _laplace_quad(Fraction(1), Fraction(a))
        assert _at_or_above(r.at(a), ref), (a, r.at(a))


def test_product_of_gaussian_and_laplace():
    f = ta.G(R(10, 11)) @ ta.Laplace(R(1, 2))
    r = ta.RDP.of(f, orders=ORDERS)
    for a in ORDERS:
        with mpmath.workdps(DPS):
            ref = mpmath.mpf(a) * 100 / 121 / 2 + _laplace_quad(Fraction(1, 2), Fraction(a))
        assert _at_or_above(r.at(a), ref), (a, r.at(a))


def test_fractional_orders_and_the_balls():
    f = ta.Laplace(1) @ ta.Laplace(R(1, 3)) ** 2
    vals = ro.renyi_orders_all(f, [2, fmpq(5, 2), 9], 20)
    for v, a in zip(vals, [Fraction(2), Fraction(5, 2), Fraction(9)], strict=True):
        with mpmath.workdps(DPS):
            ref = _laplace_quad(Fraction(1), a) + 2 * _laplace_quad(Fraction(1, 3), a)
            lo = mpmath.mpf(v.lower().str(60, radius=False))
            hi = mpmath.mpf(v.upper().str(60, radius=False))
            assert lo - ref * mpmath.mpf(10) ** -40 <= ref <= hi + ref * mpmath.mpf(10) ** -40
        assert float(v.rad()) / float(v.mid()) < 1e-20


def test_exact_gaussian_products_stay_exact():
    f = ta.G(R(1, 2)) ** 3 @ ta.G(R(1, 3))
    vals = ro.renyi_orders_all(f, [2, 5], 20)
    assert vals == [fmpq(2) * (3 * fmpq(1, 4) + fmpq(1, 9)) / 2,
                    fmpq(5) * (3 * fmpq(1, 4) + fmpq(1, 9)) / 2]
    assert ro.renyi_orders_all(ta.Laplace(1) ** 0, [2, 3], 20) == [fmpq(0), fmpq(0)]


def test_factor_without_a_program_leaves_the_product_to_the_other_routes():
    D = ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)])
    assert ro.renyi_orders(ta.Laplace(1) @ D, [2, 3], 20) is None
    assert ro.renyi_orders(ta.Laplace(sp.Symbol("m", positive=True)) ** 2, [2], 20) is None
    r = ta.RDP.of(ta.Laplace(1) @ D, orders=[2])  # the general route still answers
    with mpmath.workdps(DPS):
        d = mpmath.log((mpmath.mpf(1) / 2) ** 2 / (mpmath.mpf(1) / 4)
                       + (mpmath.mpf(1) / 2) ** 2 / (mpmath.mpf(3) / 4))  # D_2(P || Q) of D
        d2 = mpmath.log((mpmath.mpf(1) / 4) ** 2 / (mpmath.mpf(1) / 2)
                        + (mpmath.mpf(3) / 4) ** 2 / (mpmath.mpf(1) / 2))  # D_2(Q || P)
        ref = _laplace_quad(Fraction(1), Fraction(2)) + max(d, d2)
    assert _at_or_above(r.at(2), ref)


@pytest.mark.parametrize("which", ["composed", "self-composed"])
def test_beside_dp_accounting(which):
    orders = list(range(2, 40))
    if which == "composed":
        ev = dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(1.1),
                                            dp_accounting.LaplaceDpEvent(1.0)])
    else:
        ev = dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(2.0), 12)
    acc = rdp.RdpAccountant(orders)
    acc.compose(ev)
    r = ta.RDP.of(ta.from_dp_event(ev), orders=orders)
    for a, x in zip(orders, acc._rdp, strict=True):
        v = float(r.at(a))
        assert abs(v - x) <= 1e-12 * x, (a, v, x)
