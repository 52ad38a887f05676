"""Arb balls of Max and of C_p(f) through its closed identity (operators/maxgroup.py,
operators/subsample.py): certified values against references formed here in mpmath at 60
digits (the pointwise maximum of the operands' formulas; the lower convex envelope of
min{f_p, f_p^{-1}} from the mirrored knots, Dong, Roth & Su Eq. (13) by its definition
C_p(f) = min{f_p, f_p^{-1}}^{**})."""

from __future__ import annotations

import mpmath
import operator_reference as ref
import pytest
import sympy as sp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.core.levels import as_level
from tradeoff_algebra.numeric.protocol import _arb_point
from tradeoff_algebra.operators.maxgroup import Max

R = sp.Rational
LEVELS = [R(1, 10**12), R(1, 50), R(1, 5), R(1, 2), R(9, 10), 1 - R(1, 10**9)]


@pytest.mark.parametrize("A", LEVELS)
def test_max_ball(A):
    f = Max(ta.G(1), ta.Laplace(R(3, 2)), ta.EpsDelta(1, R(1, 10)))
    with workdps(60):
        a = mpmath.mpf(A.p) / A.q
        r = max(ref.gauss(1)(a), ref.laplace(mpmath.mpf(3) / 2)(a),
                ref.epsdelta(1, mpmath.mpf(1) / 10)(a))
    for power in (False, True):
        v = _arb_point(f, as_level(A), 30, power)
        assert v is not None and v.guarantee == "certified"
        with workdps(60):
            want = 1 - r if power else r
            assert abs(v.mid - want) <= mpmath.mpf(10) ** -29 * abs(want)


def _cp_epsdelta_ref(eps, delta, p):
    """C_p(f_{eps,delta}) as the hull of min{f_p, f_p^{-1}} from mpf knots."""
    e = mpmath.exp(eps)
    x1 = (1 - delta) / (1 + e)
    fp = ref.mix(ref.epsdelta(eps, delta), p)
    knots = [(mpmath.mpf(0), fp(0)), (x1, fp(x1)), (1 - delta, fp(1 - delta)),
             (mpmath.mpf(1), fp(1))]
    inv = sorted((y, x) for x, y in knots)
    if inv[0][0] > 0:
        inv.insert(0, (mpmath.mpf(0), inv[0][1]))
    if inv[-1][0] < 1:  # f_p(0) = 1 - p delta < 1: f_p^{-1} is 0 from there on
        inv.append((mpmath.mpf(1), mpmath.mpf(0)))

    def ev(kn, x):
        for (u1, w1), (u2, w2) in zip(kn, kn[1:], strict=False):
            if u1 <= x <= u2:
                return w1 if u2 == u1 else w1 + (w2 - w1) * (x - u1) / (u2 - u1)
        raise ValueError(x)

    xs = sorted({x for x, _ in knots} | {x for x, _ in inv})
    pts = set(xs)
    for u, w in zip(xs, xs[1:], strict=False):
        da, db = ev(knots, u) - ev(inv, u), ev(knots, w) - ev(inv, w)
        if da * db < 0:
            pts.add(u + (w - u) * da / (da - db))
    xs = sorted(pts)
    hull = ref.lower_hull(xs, [min(ev(knots, x), ev(inv, x)) for x in xs])
    return lambda x: ref.hull_eval(hull, x)


@pytest.mark.parametrize("eps, delta, p", [(3, R(1, 10), R(1, 5)), (1, R(1, 100), R(1, 2))])
def test_subsample_of_epsdelta_is_certified(eps, delta, p):
    """C_p(f_{eps,delta}) (the claim of Sec. 4.1: no f_{a,b}) evaluates through its closed
    identity, a Max of two f_{a,b}, by Arb balls: certified, and equal to the envelope."""
    f = ta.C(p, ta.EpsDelta(eps, delta))
    with workdps(60):
        r = _cp_epsdelta_ref(mpmath.mpf(eps), mpmath.mpf(delta.p) / delta.q,
                             mpmath.mpf(p.p) / p.q)
        for A in (R(1, 50), R(1, 5), R(1, 2), R(9, 10)):
            v = ta.evaluate(f, A, dps=30)
            assert v.guarantee == "certified", (f, A, v.route)
            want = r(mpmath.mpf(A.p) / A.q)
            assert abs(v.mid - want) <= mpmath.mpf(10) ** -29 * max(want, 10**-10), (f, A)


@pytest.mark.parametrize("A", [R(1, 10**30), R(1, 10), R(3, 5), 1 - R(1, 10**30)])
def test_inverse_ball_by_bisection(A):
    """Inverse(Mix(G_1, 1/2)) (asymmetric, no closed inverse) by Arb bisection on the operand's
    balls (operators/unary.py, arb_inverse_ball): certified, against mpmath's root of
    f_p(t) = alpha at 90 digits (tests/operator_reference.py)."""
    f = ta.Inverse(ta.Mix(ta.G(1), R(1, 2)))
    v = ta.evaluate(f, A, dps=25)
    assert v.guarantee == "certified"
    with workdps(90):  # (f_p(t) - alpha cancels 30 digits at alpha = 1 - 1e-30)
        want = ref.inverse(ref.mix(ref.gauss(1), mpmath.mpf(1) / 2))(mpmath.mpf(A.p) / A.q)
        assert abs(v.mid - want) <= mpmath.mpf(10) ** -24 * want
