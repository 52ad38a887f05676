"""RDP.of of the Laplace pair at 100 orders and of the bench's composed events, against
independent references: Mironov 2017, Prop. 6 evaluated at 60 digits in mpmath (itself checked
against 40-digit quadrature of log int p^a q^(1-a)/(a - 1)), dp_accounting's float64 within
1e-12 relative, and Wang, Balle & Kasiviswanathan's Thm. 9 at 50 digits in mpmath
(``references.hull_renyi.wbk``) for powers of sampling without replacement."""

from fractions import Fraction

import pytest
import sympy as sp
from references.contexts import mp_context as _ctx
from references.hull_renyi import wbk

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_wor
from tradeoff_algebra.numeric.renyi_orders import renyi_orders_all
from tradeoff_algebra.operators.tensor import TensorPower

dp_accounting = pytest.importorskip("dp_accounting")
rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")

R = sp.Rational
ORDERS_100 = list(range(2, 102))


def _mironov(c, mu, a):
    """Prop. 6 of Mironov (2017): D_a(Lap(0, 1) || Lap(mu, 1)) =
    log(a/(2a-1) e^{(a-1) mu} + (a-1)/(2a-1) e^{-a mu})/(a - 1), in the context c."""
    A = c.mpf(a)
    return c.log(A / (2 * A - 1) * c.exp((A - 1) * mu)
                 + (A - 1) / (2 * A - 1) * c.exp(-A * mu)) / (A - 1)


def _quad(mu, a):
    """The same divergence by 40-digit quadrature of int p^a q^(1-a) (a different route)."""
    c = _ctx(40)
    M, A = c.mpf(mu.numerator) / mu.denominator, c.mpf(a)
    g = lambda x: c.exp(-A * abs(x) - (1 - A) * abs(x - M)) / 2  # noqa: E731
    return c.log(c.quad(g, [-c.inf, 0, M, c.inf])) / (A - 1)


def _mpf(c, v):
    """An exact rational (SymPy) as an mpf of the context c (60 digits: every upper end of a
    ball of 83 to 332 bits is held exactly enough for the comparisons below)."""
    v = sp.Rational(v)
    return c.mpf(int(v.p)) / int(v.q)


@pytest.mark.slow
def test_the_closed_form_reference_agrees_with_quadrature():
    """The reference itself: Prop. 6 at 60 digits and the 40-digit integral agree to 1e-35."""
    c = _ctx(60)
    for mu in (Fraction(1), Fraction(1, 10), Fraction(3)):
        for a in (2, 7, 50, 101):
            ref = _mironov(c, c.mpf(mu.numerator) / mu.denominator, a)
            assert abs(ref - _quad(mu, a)) <= abs(ref) * c.mpf(10) ** -35, (mu, a)


@pytest.mark.parametrize("mu", [R(1), R(1, 10), R(3), R(20), R(1, 1000)])
def test_rdp_of_laplace_at_100_orders_at_or_above_the_closed_form(mu):
    """Each value of RDP.of(L_mu) at 2..101 (the upper end of a certified ball of relative
    width below 1e-20) lies at or above Prop. 6 at 60 digits and within 1e-19 of it."""
    c = _ctx(60)
    m = c.mpf(int(mu.p)) / int(mu.q)
    r = ta.RDP.of(ta.Laplace(mu), ORDERS_100)
    for a in ORDERS_100:
        ref, ours = _mironov(c, m, a), _mpf(c, r.at(a))
        assert ours >= ref, (mu, a)
        assert ours - ref <= ref * c.mpf(10) ** -19, (mu, a)


def _end(c, x):
    """An exact Arb end (``arb.lower()``/``upper()``) as an mpf of the context c, exactly."""
    man, exp = x.mid().man_exp()
    return c.ldexp(c.mpf(int(man)), int(exp))


def test_the_balls_contain_the_closed_form_at_an_irrational_mu():
    """mu = sqrt(2) (an Arb ball itself): every ball of the program contains Prop. 6 at 60
    digits (its ends compared exactly) and has a relative width below 1e-20."""
    c = _ctx(60)
    vals = renyi_orders_all(ta.Laplace(sp.sqrt(2)), ORDERS_100, 20)
    assert vals is not None
    for a, v in zip(ORDERS_100, vals, strict=True):
        ref = _mironov(c, c.sqrt(2), a)
        assert _end(c, v.lower()) <= ref <= _end(c, v.upper()), a
        assert v.rel_accuracy_bits() >= 67, a


def test_beside_dp_accounting_to_1e_12():
    """dp_accounting's LaplaceDpEvent (float64, log1p/expm1) agrees to 1e-12 relative."""
    for b in (1.0, 0.5, 4.0):
        acc = rdp.RdpAccountant(ORDERS_100)
        acc.compose(dp_accounting.LaplaceDpEvent(b))
        r = ta.RDP.of(ta.Laplace(1 / sp.Rational(b)), ORDERS_100)
        for a, x in zip(ORDERS_100, acc._rdp, strict=True):
            ours = float(r.at(a))
            assert abs(ours - x) <= 1e-12 * ours, (b, a, ours, x)


def test_power_of_sampling_without_replacement_is_k_times_thm9():
    """SelfComposed(SampledWithoutReplacement(256 of 60000, Gaussian 1.1), 1000): RDP.of gives
    certified upper bounds, 1000 times Thm. 9 at 50 digits (mpmath, ``wbk``) at or above it
    within 1e-18, labelled a bound; dp_accounting's Thm. 27 times 1000 lies at or below."""
    wor = dp_accounting.SampledWithoutReplacementDpEvent(60000, 256,
                                                         dp_accounting.GaussianDpEvent(1.1))
    event = dp_accounting.SelfComposedDpEvent(wor, 1000)
    f = ta.from_dp_event(event)
    orders = [2, 3, 5, 10, 30]
    r = ta.RDP.of(f, orders)
    assert r.bound is not None and "Thm. 9" in r.bound
    s = Fraction(1.1)
    mu2 = Fraction(s.denominator**2, s.numerator**2)
    c = _ctx(50)
    for a in orders:
        ref = 1000 * wbk(lambda c, j: c.mpf(j) * mu2.numerator / mu2.denominator / 2,
                         c.mpf(256) / 60000, a)
        ours = _mpf(c, r.at(a))
        assert ours >= c.mpf(ref) and ours - ref <= ref * c.mpf(10) ** -18, a
    acc = rdp.RdpAccountant(orders, neighboring_relation=rdp.NeighborRel.REPLACE_ONE)
    acc.compose(event)
    for a, x in zip(orders, acc._rdp, strict=True):
        assert x <= float(r.at(a)) * (1 + 1e-13), a


def test_power_bounds_identities_and_refusals():
    """A symbolic power or a base without bounds gives None; a power k has k times the base's
    balls (the same upper ends up to the rounding of one product)."""
    g = ta.C(R(1, 10), ta.G(1))

    k = sp.Symbol("k", positive=True, integer=True)
    assert renyi_wor.arb_renyi_bounds(TensorPower(g, k), [2]) is None
    assert renyi_wor.arb_renyi_bounds(TensorPower(ta.C(R(1, 2), ta.EpsDelta(1, 0)), 3),
                                      [2]) is None
    vals = renyi_wor.renyi_bounds_all(TensorPower(g, 7), [2, 5], 20)
    one = renyi_wor.renyi_bounds_all(g, [2, 5], 20)
    c = _ctx(60)
    for v, w in zip(vals, one, strict=True):
        assert _end(c, v.lower()) <= 7 * _end(c, w.upper())
        assert _end(c, v.upper()) >= 7 * _end(c, w.lower())


def test_randomized_response_composed_with_laplace_beside_exact_sum():
    """ComposedDpEvent of RandomizedResponse(1/2, 4) and Laplace(2) under replace-one: RDP.of
    at or above the exact sum over the 4 outputs plus Prop. 6 (60 digits), within 1e-19, and
    dp_accounting within 1e-12."""
    event = dp_accounting.ComposedDpEvent([dp_accounting.RandomizedResponseDpEvent(0.5, 4),
                                           dp_accounting.LaplaceDpEvent(2.0)])
    r = ta.RDP.of(ta.from_dp_event(event), ORDERS_100)
    acc = rdp.RdpAccountant(ORDERS_100, neighboring_relation=rdp.NeighborRel.REPLACE_ONE)
    acc.compose(event)
    c = _ctx(60)
    p = [c.mpf(5) / 8] + [c.mpf(1) / 8] * 3
    q = [c.mpf(1) / 8, c.mpf(5) / 8] + [c.mpf(1) / 8] * 2
    for a, x in zip(ORDERS_100, acc._rdp, strict=True):
        A = c.mpf(a)
        ref = c.log(c.fsum(u**A * v ** (1 - A) for u, v in zip(p, q, strict=True))) / (A - 1)
        ref += _mironov(c, c.mpf(1) / 2, a)
        ours = _mpf(c, r.at(a))
        assert ours >= ref and ours - ref <= ref * c.mpf(10) ** -19, a
        assert abs(float(ours) - x) <= 1e-12 * float(ours), a
