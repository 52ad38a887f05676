"""The convex conjugate f^*(y) = sup_alpha {y alpha - f(alpha)} (Dong, Roth & Su, Eq. (7)):
closed forms of the families and the generic certified maximisation, against a dense grid
refined by ternary search (tests/operator_reference.py) at 40 digits."""

import mpmath
import operator_reference as ref
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.core.node import TradeOff
from tradeoff_algebra.numeric.protocol import mp_conjugate
from tradeoff_algebra.operators.maxgroup import Group
from tradeoff_algebra.operators.subsample import Mix

R = sp.Rational
YS = [R(-50), R(-3), R(-1), R(-1, 3), R(-1, 20), R(0), R(1, 2)]


def _contains(v, x, rel=None):
    with workdps(80):
        rel = mpmath.mpf(10) ** -27 if rel is None else rel
        slack = rel * (1 + abs(x))
        return v.lo - slack <= x <= v.hi + slack


FAMILIES = [
    (ta.G(1), lambda: ref.gauss(1)),
    (ta.G(R(1, 3)), lambda: ref.gauss(mp.mpf(1) / 3)),
    (ta.Laplace(1), lambda: ref.laplace(1)),
    (ta.EpsDelta(1, R(1, 10)), lambda: ref.epsdelta(1, mp.mpf(1) / 10)),
    (ta.Id, lambda: (lambda x: 1 - x)),
    (ta.Zero, lambda: (lambda x: mp.zero)),
]


@pytest.mark.parametrize("f,rf", FAMILIES)
def test_closed_forms_against_grid_maximisation(f, rf):
    # the Gaussian reference inverts Phi by findroot at every point: fewer y for it
    ys = YS[1:4] if isinstance(f, ta.Gaussian) else YS
    for y in ys:
        v = ta.conjugate_value(f, y, 30)
        assert v.is_point
        with workdps(40):
            r = ref.conjugate(rf(), mp.mpf(y.p) / y.q, n=40)
        assert _contains(v, r)


@pytest.mark.parametrize("f,rf", FAMILIES[:4])
def test_generic_route_encloses_the_closed_form(f, rf):
    generic = mp_conjugate.dispatch(TradeOff)
    for y in (R(-20), R(-1), R(-1, 7)):
        with workdps(45):
            yv = mp.mpf(y.p) / y.q
            lo, hi = generic(f, yv)
            c, _ = mp_conjugate(f, yv)
            assert lo <= c <= hi and hi - lo < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("f,rf", [
    (Mix(ta.G(1), R(1, 2)), lambda: ref.mix(ref.gauss(1), mp.mpf(1) / 2)),
    (Group(ta.Laplace(R(1, 2)), 2), lambda: ref.group(ref.laplace(mp.mpf(1) / 2), 2)),
])
def test_operators_through_the_generic_route(f, rf):
    for y in (R(-5), R(-1, 2)):
        v = ta.conjugate_value(f, y, 20)
        with workdps(30):
            r = ref.conjugate(rf(), mp.mpf(y.p) / y.q, n=40)
        assert _contains(v, r, rel=mpmath.mpf(10) ** -19)
        assert v.hi - v.lo < mpmath.mpf(10) ** -17


def test_corollary_1_delta_of_gdp():
    """1 + G_mu^*(-e^eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Cor. 1)."""
    mu, eps = 2, 1
    v = ta.conjugate_value(ta.G(mu), -sp.exp(eps), 30)
    with workdps(50):
        d = ref.ncdf(-mp.mpf(eps) / mu + mp.mpf(mu) / 2) - \
            mpmath.exp(eps) * ref.ncdf(-mp.mpf(eps) / mu - mp.mpf(mu) / 2)
        assert abs((1 + v.mid) - d) < mpmath.mpf(10) ** -28


def test_biconjugate_recovers_f():
    """f^{**} = f: sup_y {alpha y - f^*(y)} at alpha = 1/5 for G_1 (maximiser y = G_1'(1/5))."""
    f = ta.G(1)
    with workdps(30):
        a = mp.mpf(1) / 5
        def psi(y):
            return a * y - ta.conjugate_value(f, y, 30).mid
        lo, hi = mp.mpf(-10), mp.zero
        for _ in range(110):  # ternary search on the concave psi
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if psi(m1) < psi(m2):
                lo = m1
            else:
                hi = m2
        val = psi((lo + hi) / 2)
        assert abs(val - ta.evaluate(f, R(1, 5), 30).mid) < mpmath.mpf(10) ** -20


def test_conjugate_node_and_float_arguments():
    f = ta.Laplace(1)
    v = ta.conjugate_value(f.conjugate(), -1.5, 20)
    assert v.mid == ta.conjugate_value(f, R(-3, 2), 20).mid
    with workdps(30):
        assert ta.conjugate_value(f, mp.mpf(-1.5), 20).mid == v.mid
    assert ta.conjugate_value(f, 3, 20).mid == 3  # y >= 0: f^*(y) = y


@settings(max_examples=8, deadline=None)
@given(st.fractions(-20, 2), st.fractions(-20, 2))
def test_conjugate_is_convex_and_bounded(y1, y2):
    f = ta.Laplace(R(3, 2))
    v1, v2 = (ta.conjugate_value(f, R(y.numerator, y.denominator), 20) for y in (y1, y2))
    ym = R((y1 + y2).numerator, (y1 + y2).denominator) / 2
    vm = ta.conjugate_value(f, ym, 20)
    with workdps(40):
        assert vm.lo <= (v1.hi + v2.hi) / 2 + mpmath.mpf(10) ** -18
        for y, v in ((y1, v1), (y2, v2)):
            yv = mp.mpf(y.numerator) / y.denominator
            tol = mpmath.mpf(10) ** -18
            assert max(yv, -1) - tol <= v.lo <= v.hi <= max(yv, 0) + tol


def test_invalid_y():
    for bad in (float("nan"), float("inf"), sp.oo, sp.I, "x", None, sp.Symbol("y")):
        with pytest.raises(ta.InvalidParameter):
            ta.conjugate_value(ta.G(1), bad)
    with pytest.raises(ta.InvalidParameter):
        ta.conjugate_value(ta.G(1), -1, dps=0)


@pytest.mark.parametrize("f,rf", FAMILIES[:4])
def test_certified_by_the_profile_form(f, rf):
    """For y <= -1 a family with a closed-form profile gives f^*(y) = delta(log(-y)) - 1
    (Prop. 6) as a certified Arb value: against the grid maximisation (Eq. (7) itself, no
    profile) at 40 digits; y = -e is Eq. (7)'s instance, G_1^*(-e) = Phi(-1/2) - e Phi(-3/2) - 1
    (checked in mpmath from the printed form)."""
    for y in (-sp.E, R(-3), R(-20)):
        v = ta.conjugate_value(f, y, 30)
        assert v.guarantee == "certified", (f, y)
        with workdps(40):
            r = ref.conjugate(rf(), mp.mpf(sp.N(y, 50)), n=40)
        assert _contains(v, r)
    v = ta.conjugate_value(ta.G(1), -sp.E, 30)
    with workdps(50):
        printed = ref.ncdf(-mp.mpf(1) / 2) - mpmath.e * ref.ncdf(-mp.mpf(3) / 2) - 1
        assert abs(v.mid - printed) < mpmath.mpf(10) ** -29


def test_no_profile_route_above_minus_one():
    """-1 < y < 0 (eps = log(-y) < 0) is outside the profile's domain: no certified shortcut,
    the closed-form mpmath route answers and says it is an estimate."""
    assert ta.conjugate_value(ta.G(1), R(-1, 2), 30).guarantee == "estimate"
