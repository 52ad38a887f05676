"""RDP.of of a notion whose RDP curve is affine (zCDP: a -> xi + rho a; tCDP: rho a below
omega), read at many orders at once as exact rationals without SymPy: every value equals the
reference xi + rho a computed with Python fractions from the floats' exact binary values,
and dp_accounting's float64 ZCDpEvent curve within float error."""

from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import InvalidParameter

ORDERS_100 = list(range(2, 102))


def _frac(v):
    return Fraction(int(v.p), int(v.q))


def test_zcdp_exact_at_100_orders():
    z = ta.zCDP(0.5, 0.1)
    r = ta.RDP.of(z, ORDERS_100)
    xi, rho = Fraction(0.1), Fraction(0.5)
    assert r.bound is None
    for a in ORDERS_100:
        assert _frac(r.at(a)) == xi + rho * a
    # the same curve as reading the notion's Lambda order by order
    assert r == ta.RDP({a: z.to_rdp().at(a) for a in ORDERS_100})


def test_zcdp_rational_orders_and_dp_accounting():
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    import dp_accounting

    orders = [sp.Rational(3, 2), sp.Rational(7, 3), 5]
    r = ta.RDP.of(ta.zCDP(sp.Rational(1, 3), sp.Rational(1, 7)), orders)
    for a in orders:
        assert _frac(r.at(a)) == Fraction(1, 7) + Fraction(1, 3) * Fraction(int(sp.Rational(a).p),
                                                                             int(sp.Rational(a).q))
    acc = rdp.RdpAccountant(ORDERS_100)
    acc.compose(dp_accounting.ZCDpEvent(0.5, 0.1))
    ours = ta.RDP.of(ta.zCDP(0.5, 0.1), ORDERS_100)
    for a, x in zip(ORDERS_100, acc._rdp, strict=True):
        assert abs(float(ours.at(a)) - x) <= 4e-16 * x


def test_tcdp_below_omega_and_refused_beyond():
    t = ta.tCDP(sp.Rational(1, 4), 10)
    r = ta.RDP.of(t, [2, 3, 9])
    assert [_frac(r.at(a)) for a in (2, 3, 9)] == [Fraction(1, 2), Fraction(3, 4), Fraction(9, 4)]
    with pytest.raises(InvalidParameter, match="omega"):
        ta.RDP.of(t, [2, 10])


def test_symbolic_notion_takes_the_general_route():
    rho = sp.Symbol("rho", positive=True)
    r = ta.RDP.of(ta.zCDP(rho), [2, 3])
    assert r.at(2) == 2 * rho and r.at(3) == 3 * rho


def test_not_a_notion_is_refused():
    with pytest.raises(InvalidParameter, match="f"):
        ta.RDP.of(ta.ApproxDP(1, sp.Rational(1, 10)), [2])
