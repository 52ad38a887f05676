"""The certified Arb evaluation of the diagonal translates Shift(f, t) (operators/shift_hull.py)
against independent routes: the tangency equation of G_mu's translate solved by mpmath at 60
digits, the exact lower convex hull of a piecewise-linear operand's translated knots, and
closed forms of the lower translate (Dong, Roth & Su, Thm. 5, Eq. (9))."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from operator_reference import hull_eval, lower_hull

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _inside(v, truth) -> bool:
    """The truth lies in the Value's guaranteed interval (call at the truth's precision)."""
    lo, hi = v.interval() if v.is_point else (v.lo, v.hi)
    return lo <= truth <= hi


def _gaussian_upper(mu, g):
    """Shift(G_mu, -g) from the tangency equations, at the context's precision: with
    G_mu(x) = Phi(z - mu), z = Phi^{-1}(1 - x), G_mu'(x) = -exp(mu z - mu^2/2); the tangent
    from (0, 1) touches U(b) = G_mu(b - g) + g where U(b) - 1 = b U'(b), the tangent to (1, 0)
    where U(b) = -(1 - b) U'(b)."""
    def z(x):
        return -mp.sqrt(2) * mp.erfinv(2 * x - 1)

    def U(b):
        return mp.ncdf(z(b - g) - mu) + g

    def dU(b):
        return -mp.exp(mu * z(b - g) - mu**2 / 2)

    def bisect(h):  # h > 0 near g, h < 0 near 1 (or the reverse): 240 halvings
        lo, hi = g + mp.mpf("1e-30"), 1 - mp.mpf("1e-30")
        s = h(lo) > 0
        for _ in range(240):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if (h(m) > 0) == s else (lo, m)
        return (lo + hi) / 2

    b1 = bisect(lambda b: U(b) - 1 - b * dU(b))
    b2 = bisect(lambda b: U(b) + (1 - b) * dU(b))
    s1, r = dU(b1), -dU(b2)

    def H(a):
        if s1 >= -1:  # the translate lies above 1 - alpha: the hull is the identity
            return 1 - a
        return 1 + s1 * a if a <= b1 else (r * (1 - a) if a >= b2 else U(a))

    return H


@pytest.mark.parametrize("mu,g", [(1, R(1, 10)), (2, R(1, 20)), (R(5, 2), R(3, 100))])
def test_upper_shift_of_gaussian_against_tangency_equations(mu, g):
    f = ta.Shift(ta.G(mu), -g)
    mu = sp.Rational(mu)
    with mp.workdps(60):
        H = _gaussian_upper(mp.mpf(mu.p) / mu.q, mp.mpf(g.p) / g.q)
    for a in ("1e-6", "0.01", "0.1", "0.3", "0.5", "0.8", "0.99"):
        v = ta.evaluate(f, a, dps=30)
        assert v.guarantee == "certified", (a, v)
        with mp.workdps(60):
            truth = H(mp.mpf(a))
            assert _inside(v, truth), (a, v, truth)


def _hull_at(points, a: Fraction) -> Fraction:
    """The lower convex hull of the points (sorted by x) at a, exactly."""
    return hull_eval(lower_hull(*zip(*points, strict=True)), a)


def _eps_delta(E: Fraction, d: Fraction, x: Fraction) -> Fraction:
    return max(Fraction(0), 1 - d - E * x, (1 - d - x) / E)


@pytest.mark.parametrize("E,d,g", [(2, R(1, 10), R(1, 8)), (3, 0, R(1, 20))])
def test_upper_shift_of_piecewise_linear_operand_is_the_exact_hull(E, d, g):
    """f_{eps,delta} with e^eps = E: its translate is piecewise linear through the translated
    knots, so the hull of (0, 1), (1, 0) and those points is exact."""
    Ef, df, gf = Fraction(E), Fraction(d.p, d.q) if d else Fraction(0), Fraction(g.p, g.q)
    kx = [Fraction(0), (1 - df) / (1 + Ef), 1 - df, 1 - gf]
    pts = sorted({(Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))}
                 | {(x + gf, _eps_delta(Ef, df, x) + gf) for x in kx if x <= 1 - gf})
    f = ta.Shift(ta.EpsDelta(sp.log(E), d), -g)
    for a in (R(1, 100), R(1, 10), R(1, 4), R(2, 5), R(3, 5), R(9, 10), R(99, 100)):
        v = ta.evaluate(f, a, dps=25)
        truth = _hull_at(pts, Fraction(a.p, a.q))
        assert v.guarantee in ("certified", "exact"), (a, v)
        with mp.workdps(40):
            assert _inside(v, mp.mpf(truth.numerator) / truth.denominator), (a, v, truth)


def test_upper_shift_above_identity_is_identity_certified():
    f = ta.Shift(ta.G(R(1, 10)), -R(1, 4))
    for a in (R(1, 10), R(1, 2), R(9, 10)):
        v = ta.evaluate(f, a, dps=20)
        assert v.guarantee == "certified"
        with mp.workdps(30):
            assert _inside(v, 1 - mp.mpf(a.p) / a.q)


def test_lower_shift_of_mix_is_certified_and_matches_its_closed_form():
    """Shift(f_p, t) of the mixture f_p = p G_1 + (1 - p) Id, which has no closed form as a
    Shift: max{p G_1(alpha + t) + (1 - p)(1 - alpha - t) - t, 0} at 50 digits."""
    p, t = R(1, 3), R(1, 20)
    f = ta.Shift(ta.Mix(ta.G(1), p), t)
    for a in (R(1, 1000), R(1, 5), R(1, 2), R(9, 10)):
        v = ta.evaluate(f, a, dps=30)
        assert v.guarantee == "certified"
        with mp.workdps(50):
            x = mp.mpf(a.p) / a.q + mp.mpf(t.p) / t.q
            g1 = mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * x - 1) - 1) if x < 1 else mp.zero
            truth = max(mp.mpf(p.p) / p.q * g1 + (1 - mp.mpf(p.p) / p.q) * (1 - x)
                        - mp.mpf(t.p) / t.q, mp.zero)
            assert _inside(v, truth), (a, v, truth)


def test_irrational_shift_is_certified():
    """gamma and mu irrational (the Berry-Esseen constants of Thm. 5): still balls."""
    for e, n in ((R(5, 4), 12), (R(3, 2), 30)):
        be = ta.berry_esseen(ta.EpsDelta(sp.log(e), 0), n)
        mu, g = be.upper.arg.mu, -be.upper.t
        assert g.is_positive and not g.is_Rational and not mu.is_Rational
        with mp.workdps(60):
            H = _gaussian_upper(mp.mpf(sp.N(mu, 70)), mp.mpf(sp.N(g, 70)))
        for a in ("0.01", "0.3", "0.6", "0.97"):
            v = ta.evaluate(be.upper, a, dps=30)
            assert v.guarantee == "certified"
            with mp.workdps(60):
                assert _inside(v, H(mp.mpf(a))), (e, n, a, v)
