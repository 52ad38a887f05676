"""RDP.of of C_p(f), the trade-off function of sampling without replacement (replace-one
neighbours), as a certified upper bound: Wang, Balle & Kasiviswanathan's Thm. 9 in Arb
(numeric/renyi_wor.py). Independent references: the hull's own Renyi divergence by 40-digit
mpmath quadrature (references.hull_renyi; the formula itself checked against the library's
generic quadrature estimate of C_p(G_mu)) must lie below every bound; Thm. 9 recomputed in a
50-digit mpmath context must lie inside each ball of relative width below 10^-dps; and
dp_accounting's float64 ``_compute_rdp_sample_wor_gaussian`` (the authors' strengthened Thm.
27, never above Thm. 9) must lie at or below our upper ends up to float error (1e-13
relative). The curve says it is a bound (``RDP.bound``)."""

from fractions import Fraction

import pytest
import sympy as sp
from references.base import arb_ends, mpf_frac
from references.hull_renyi import gauss_renyi, gaussian_hull, laplace_hull, laplace_renyi, wbk

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_wor
from tradeoff_algebra.numeric.renyi_orders import flint_order

R = sp.Rational
ORDERS_100 = list(range(2, 102))


def _upper(v):
    """An exact SymPy rational as an mpf-comparable Fraction."""
    return Fraction(int(v.p), int(v.q))


def test_hull_reference_against_the_generic_quadrature():
    """The reference formula of D_a(C_p(G_mu)) agrees with the library's own quadrature
    estimate of the hull (another route: the generic Renyi integral of the trade-off
    function) at a = 2. The estimate is an mpmath quadrature (not certified; its digits
    beyond the 15th move with mpmath's global precision): 1e-12 relative checks the formula,
    which a wrong hull (f_p alone, another tangent point) would miss in the second digit."""
    est = ta.renyi(ta.C(R(1, 20), ta.G(R(9, 10))), 2, dps=30, estimate=True)
    ref = gaussian_hull(R(9, 10), R(1, 20), 2)
    assert abs(float(est.mid) - float(ref)) < 1e-12 * float(ref)


GAUSS_CASES = [(R(256, 60000), R(10, 11)), (R(1, 20), R(9, 10)), (R(1, 2), R(2)),
               (R(9, 10), R(3, 10))]


def _check_gaussian(p, mu, orders):
    """At integer orders: the hull's divergence (quadrature) lies below each upper end, and
    Thm. 9 at 50 digits lies inside each ball (relative width below 10^-20)."""
    r = ta.RDP.of(ta.C(p, ta.G(mu)), orders)
    assert r.bound is not None and "Thm. 9" in r.bound
    vals = renyi_wor.renyi_bounds_all(ta.C(p, ta.G(mu)), orders, 20)
    for a, v in zip(orders, vals, strict=True):
        ub = _upper(r.at(a))
        hull = gaussian_hull(mu, p, a)
        assert mpf_frac(hull) < ub, (a, hull, ub)
        ref = mpf_frac(wbk(gauss_renyi(mu), p, a))
        lo, hi = arb_ends(v)
        slack = ref / 10**45  # (the 50-digit reference's own rounding)
        assert lo - slack <= ref <= hi + slack and hi <= ub
        assert (hi - lo) / lo < Fraction(1, 10**20)


@pytest.mark.parametrize("p, mu", GAUSS_CASES)
def test_gaussian_bound_above_the_hull_and_equal_to_thm9(p, mu):
    _check_gaussian(p, mu, [2, 3, 5])


@pytest.mark.slow
@pytest.mark.parametrize("p, mu", GAUSS_CASES)
def test_gaussian_bound_above_the_hull_large_orders(p, mu):
    _check_gaussian(p, mu, [8, 13, 21])


def test_fractional_orders_interpolate_and_stay_above_the_hull():
    """Fractional orders (Cor. 10): the interpolation of (a - 1) D_a between the integers
    around a, above the hull's divergence, equal to the 50-digit reference."""
    p, mu = R(1, 20), R(9, 10)
    orders = [R(5, 4), R(3, 2), R(5, 2), R(37, 10)]
    r = ta.RDP.of(ta.C(p, ta.G(mu)), orders)
    assert r.bound is not None
    vals = renyi_wor.renyi_bounds_all(ta.C(p, ta.G(mu)), [flint_order(a) for a in orders], 20)
    for a, v in zip(orders, vals, strict=True):
        hull = gaussian_hull(mu, p, a)
        assert mpf_frac(hull) < _upper(r.at(a))
        ref = mpf_frac(wbk(gauss_renyi(mu), p, a))
        lo, hi = arb_ends(v)
        assert lo - ref / 10**45 <= ref <= hi + ref / 10**45


def test_laplace_base_above_the_hull():
    """The proof holds for any symmetric base with a program: C_p(L_1) at integer and
    fractional orders lies above the hull's divergence (quadrature of the Laplace pair)."""
    p, mu = R(1, 10), R(1)
    orders = [2, 4, 9]
    r = ta.RDP.of(ta.C(p, ta.Laplace(mu)), orders)
    assert r.bound is not None
    for a in orders:
        hull = laplace_hull(mu, p, a)
        ub = _upper(r.at(a))
        assert mpf_frac(hull) < ub
        ref = wbk(laplace_renyi(mu), p, a)
        assert abs(float(ub) - float(ref)) <= 1e-18 * float(ref)


def _check_dp_accounting(orders, frac_below):
    """dp_accounting's float64 Thm. 27 (replace-one, m/n = 256/60000, sigma = 1.1) at the
    integer ``orders`` and at its fractional default orders below ``frac_below`` lies at or
    below our upper ends (up to float error: 1e-13 relative), and not far below (1e-6: the
    two theorems differ only in terms of order q^3)."""
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    import dp_accounting

    f = ta.from_dp_event(dp_accounting.SampledWithoutReplacementDpEvent(
        60000, 256, dp_accounting.GaussianDpEvent(1.1)))
    assert f == ta.C(R(256, 60000), ta.G(1 / sp.Rational(1.1)))
    r = ta.RDP.of(f, orders)
    theirs = rdp._compute_rdp_sample_wor_gaussian(256 / 60000, 1.1, orders)
    for a, x in zip(orders, theirs, strict=True):
        ours = float(r.at(a))
        assert x <= ours * (1 + 1e-13), (a, x, ours)
        assert x >= ours * (1 - 1e-6), (a, x, ours)
    frac = [a for a in rdp.DEFAULT_RDP_ORDERS if a < frac_below and a != int(a)]
    r2 = ta.RDP.of(f, [sp.Rational(a) for a in frac])
    theirs = rdp._compute_rdp_sample_wor_gaussian(256 / 60000, 1.1, frac)
    for a, x in zip(frac, theirs, strict=True):
        assert x <= float(r2.at(sp.Rational(a))) * (1 + 1e-13)


def test_dp_accounting_at_or_below():
    _check_dp_accounting(list(range(2, 31)), 12)


@pytest.mark.slow
def test_dp_accounting_at_or_below_at_100_orders():
    _check_dp_accounting(ORDERS_100, 101)


def test_bound_label_and_identities_unlabelled():
    """The Gaussian's curve is an enclosure of its divergences (no bound); the hull's says
    which theorem bounds it, and the label is outside the value (equality)."""
    assert ta.RDP.of(ta.G(1), [2, 3]).bound is None
    r = ta.RDP.of(ta.C(R(1, 10), ta.G(1)), [2, 3])
    assert "Wang, Balle & Kasiviswanathan" in r.bound and "replace-one" in r.bound
    assert r == ta.RDP(dict(r.curve))


def test_refused_where_no_bound_applies():
    """A symbolic p, or a base without a program (f_{eps,delta}), is not bounded here."""
    p = sp.Symbol("p", positive=True)
    assert renyi_wor.arb_renyi_bounds(ta.C(p, ta.G(1)), [2]) is None
    assert renyi_wor.arb_renyi_bounds(ta.C(R(1, 2), ta.EpsDelta(1, 0)), [2]) is None
