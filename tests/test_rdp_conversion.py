"""RDP.epsilon / RDP.delta / RDP.best_order on finitely many rational orders: the order chosen
in floats then Arb, the value a certified point from Arb balls of the exact inputs
(``notions.renyi_dp._arb_conversion``), against the conversion formulas summed in mpmath at 60
digits over every order (Mironov 2017, Prop. 3; Balle et al. 2020, Thm. 21), and against the
SymPy route the fast path replaces."""

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import InvalidParameter

R = sp.Rational
mp60 = mpmath.MPContext()
mp60.dps = 60


def _q(x):
    x = sp.Rational(x)
    return mp60.mpf(x.p) / x.q


def _eps(a, t, d, method):
    a, t, d = _q(a), _q(t), _q(d)
    if method == "mironov":
        return t + mp60.log(1 / d) / (a - 1)
    return t + mp60.log((a - 1) / a) - (mp60.log(d) + mp60.log(a)) / (a - 1)


def _delta(a, t, e, method):
    a, t, e = _q(a), _q(t), _q(e)
    if method == "mironov":
        return mp60.exp((a - 1) * (t - e))
    return mp60.exp((a - 1) * (t - e + mp60.log((a - 1) / a)) - mp60.log(a))


CURVE = {R(11, 10): R(1, 50), R(3, 2): R(7, 100), 2: R(13, 100), R(5, 2): R(1, 5), 3: R(27, 100),
         5: R(3, 5), 8: R(5, 4), 16: R(7, 2), 64: 20, 1024: 500}


@pytest.mark.parametrize("method", ["balle", "mironov"])
@pytest.mark.parametrize("d", [R(1, 10**5), R(1, 10**12), 1e-9, R(1, 3)])
def test_epsilon_against_mpmath_min_over_orders(method, d):
    r = ta.RDP(CURVE)
    ref = {a: _eps(a, t, d, method) for a, t in CURVE.items()}
    best = min(ref, key=ref.get)
    v = r.epsilon(d, method=method, dps=30)
    assert v.guarantee == "certified"
    want = max(ref[best], mp60.zero)
    lo, hi = v.interval()
    assert lo <= want <= hi, (v, want)
    assert r.best_order(d, method=method) == best


@pytest.mark.parametrize("method", ["balle", "mironov"])
@pytest.mark.parametrize("e", [R(1, 2), 2, R(7, 3), 30])
def test_delta_against_mpmath_min_over_orders(method, e):
    r = ta.RDP(CURVE)
    ref = min(_delta(a, t, e, method) for a, t in CURVE.items())
    v = r.delta(e, method=method, dps=25)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    assert lo <= min(ref, mp60.one) <= hi, (v, ref)


def test_clamps_and_the_orders_argument():
    r = ta.RDP({2: R(1, 10**6), 3: R(1, 10**6)})
    assert r.epsilon(R(1, 2)).mid == 0  # the formula is negative: eps 0
    assert r.delta(0, method="mironov").mid == 1  # the formula is above 1: delta 1
    sub = r.epsilon(R(1, 10**5), orders=[3, 7])  # 7 is not an order of the curve: left out
    lo, hi = sub.interval()
    assert lo <= _eps(3, R(1, 10**6), R(1, 10**5), "balle") <= hi
    with pytest.raises(InvalidParameter, match="orders"):
        r.epsilon(R(1, 10**5), orders=[7])


def test_same_as_the_sympy_route():
    """A bound that is not rational (sqrt(2)/100) takes the SymPy route; the rational curve
    that rounds it up converts to the same digits within the rounding."""
    exact = ta.RDP({2: sp.sqrt(2) / 100, 4: sp.Rational(1, 10)})
    up = ta.RDP({2: R(14142135623730950488017, 10**24), 4: sp.Rational(1, 10)})
    a, b = exact.epsilon(R(1, 10**5), dps=20), up.epsilon(R(1, 10**5), dps=20)
    assert abs(mp60.mpf(a.mid) - mp60.mpf(b.mid)) <= 1e-19
    assert exact.best_order(R(1, 10**5)) == up.best_order(R(1, 10**5))


def test_ties_go_to_the_smaller_order():
    """Conversions closer than the working precision can separate (orders 5/2 and
    5/2 + 10^-40, one bound) are a tie, reported at the smaller order, as the SymPy route
    does; orders further apart are decided."""
    same = ta.RDP({R(5, 2): 1, R(5, 2) + R(1, 10**40): 1})
    assert same.best_order(R(1, 2), method="mironov") == R(5, 2)
    apart = ta.RDP({R(5, 2): 1, R(5, 2) + R(1, 10**6): 1})  # mironov: larger order, smaller eps
    assert apart.best_order(R(1, 2), method="mironov") == R(5, 2) + R(1, 10**6)


def test_outside_the_floats_range_the_sympy_route_answers():
    """A delta below the floats' range (1e-400) and a huge eps (10^30) leave the float choice
    of the order to the SymPy route; the values still match the formulas."""
    r = ta.RDP({2: R(1, 10), 5: R(1, 2)})
    d = R(1, 10**400)
    v = r.epsilon(d)
    lo, hi = v.interval()
    assert lo <= min(_eps(a, t, d, "balle") for a, t in r.curve.items()) <= hi
    w = r.delta(10**30, dps=20)
    with mp60.workdps(60):
        ref = min(_delta(a, t, 10**30, "balle") for a, t in r.curve.items())
    assert abs(mp60.mpf(w.mid) - ref) <= 1e-19 * ref
