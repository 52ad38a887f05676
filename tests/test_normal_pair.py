"""NormalPair(m0, s0, m1, s1) = T(N(m0, s0^2), N(m1, s1^2)) against an independent reference.

The reference works in the original coordinate x: the log-likelihood ratio
log q(x) - log p(x) is expanded by SymPy into A x^2 + B x + C, its level sets are the two roots
vertex +- h (h = sqrt((t - LLR(vertex))/A)), the half-width h with P(rejection region) = alpha
is found by bisection on the P-mass (global mpmath, 80 digits), and the type II error is the
integral of the density of Q over the acceptance region by ``mpmath.quad``.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra.families.normal_pair import (
    NormalPair,
    binormal_roc,
    normal_pair_equal_variance,
    threshold_gap,
)

REF_DPS = 80
DPS = 30

# (m0, s0, m1, s1): s1 > s0 (two tails), s1 < s0 (an interval), equal means, negative shift
PAIRS = [(0, 1, 1, 2), (0, 1, 1, R(1, 2)), (0, 2, 3, 1), (1, 1, 1, 3), (R(1, 3), 1, -2, R(3, 2)),
         (0, 1, R(1, 2), R(11, 10))]
ALPHAS = [R(1, 10**10), R(3, 10), 1 - R(1, 10**10)]


def _mpf(x):
    return mpmath.mpf(sp.Float(sp.sympify(x), mpmath.mp.dps + 10)._mpf_)


def _llr_coefficients(m0, s0, m1, s1):
    """A, B of log q - log p = A x^2 + B x + C, by SymPy from the two log densities."""
    x = sp.Symbol("x", real=True)

    def logpdf(m, s):
        return -(x - m) ** 2 / (2 * s**2) - sp.log(s)

    poly = sp.Poly(sp.expand(logpdf(m1, s1) - logpdf(m0, s0)), x)
    A, B = poly.coeff_monomial(x**2), poly.coeff_monomial(x)
    return sp.simplify(A), sp.simplify(B)


def reference(m0, s0, m1, s1, alpha, quad=True, dps=REF_DPS):
    """f(alpha) by bisection on the region's half-width and quadrature of Q's density (or,
    with ``quad=False`` for tails beyond quadrature, Q's CDF at the region's end points)."""
    A, B = _llr_coefficients(m0, s0, m1, s1)
    assert A != 0
    with mpmath.workdps(dps):
        a, ac = _mpf(alpha), _mpf(1 - sp.Rational(alpha))
        M0, S0, M1, S1 = (_mpf(v) for v in (m0, s0, m1, s1))
        v = _mpf(-B / (2 * A))  # the vertex of the quadratic
        tails = A > 0  # the ratio is large far from the vertex

        def p_tails(h):  # P(|X - v| > h), X ~ N(M0, S0^2)
            return (mpmath.ncdf((v - h - M0) / S0) + mpmath.ncdf(-(v + h - M0) / S0))

        def p_inner(h):
            return mpmath.ncdf((v + h - M0) / S0) - mpmath.ncdf((v - h - M0) / S0)

        # the region's P-mass as a function of h, matched on its smaller side
        if tails:
            small, target = (p_tails, a) if a <= ac else (p_inner, ac)
        else:
            small, target = (p_inner, a) if a <= ac else (p_tails, ac)
        increasing = small is p_inner
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while (small(hi) < target) == increasing:
            hi *= 2
        for _ in range(600):  # geometric bisection while the bracket spans a factor 4
            mid = hi / 4 if lo == 0 else (mpmath.sqrt(lo * hi) if hi > 4 * lo else (lo + hi) / 2)
            if (small(mid) < target) == increasing:
                lo = mid
            else:
                hi = mid
            if hi - lo <= mpmath.mpf(10) ** (-dps + 5) * hi:
                break
        h = (lo + hi) / 2
        x1, x2 = v - h, v + h

        def q(x):
            return mpmath.npdf(x, M1, S1)

        def p(x):
            return mpmath.npdf(x, M0, S0)

        if not quad:
            if tails:
                return mpmath.ncdf((x2 - M1) / S1) - mpmath.ncdf((x1 - M1) / S1)
            return mpmath.ncdf((x1 - M1) / S1) + mpmath.ncdf(-(x2 - M1) / S1)
        if tails:  # acceptance = [x1, x2]
            beta = mpmath.quad(q, [x1, v, x2])
            size = 1 - mpmath.quad(p, [x1, v, x2])
        else:  # acceptance = (-oo, x1] u [x2, oo)
            beta = mpmath.quad(q, [-mpmath.inf, x1]) + mpmath.quad(q, [x2, mpmath.inf])
            size = mpmath.quad(p, [x1, v, x2])
        # the region found has the asked size (checked by quadrature too)
        assert abs(size - a) <= mpmath.mpf(10) ** -35 * max(a, mpmath.mpf(10) ** -30)
        return beta


def _agrees(value, ref, digits):
    """An enclosure contains ref; a point value agrees with it to ``digits`` digits."""
    if not value.is_point:
        return value.contains(ref)
    with mpmath.workdps(REF_DPS):
        return abs(mpmath.mpf(value.mid) - ref) <= mpmath.mpf(10) ** -digits * abs(ref)


@pytest.mark.parametrize("pair", PAIRS, ids=str)
@pytest.mark.parametrize("alpha", ALPHAS, ids=str)
def test_values_against_brute_force(pair, alpha):
    ref = reference(*pair, alpha)
    v = ta.evaluate(NormalPair(*pair), alpha, dps=DPS)
    assert 0 <= v.lo <= v.hi <= 1
    assert _agrees(v, ref, DPS - 1), (pair, alpha, v, ref)
    w = ta.roc(NormalPair(*pair), alpha, dps=DPS)
    with mpmath.workdps(REF_DPS):
        assert _agrees(w, 1 - ref, DPS - 1), (pair, alpha, w, 1 - ref)


DEEP = [((0, 1, 40, 2), R(1, 2)), ((0, 1, 0, R(1, 2)), 1 - R(1, 10**50)),
        ((0, 1, 5, R(9, 10)), 1 - R(1, 10**50)), ((0, 1, 3, R(1, 10**5)), R(1, 2)),
        ((0, 1, R(1, 2), 3), R(1, 10**300))]


@pytest.mark.parametrize("pair,alpha", DEEP, ids=str)
def test_deep_tails(pair, alpha):
    """Values far below what quadrature resolves (down to 1e-19543251724), by Q's CDF at the
    end points of the region found at 150 digits."""
    ref = reference(*pair, alpha, quad=False, dps=150)
    assert _agrees(ta.evaluate(NormalPair(*pair), alpha, dps=DPS), ref, DPS - 1)


def test_float_curve_against_certified_values():
    alphas = np.array([1e-8, 0.01, 0.3, 0.5, 0.9, 0.999])
    for pair in PAIRS:
        f = NormalPair(*pair)
        y = f.curve(alphas)
        exact = [float(ta.evaluate(f, float(a), dps=20).mid) for a in alphas]
        assert np.allclose(y, exact, rtol=0, atol=1e-12), (pair, y, exact)


@pytest.mark.parametrize("m0,s,m1", [(0, 1, 1), (R(1, 2), 2, -3), (1, R(1, 3), 1),
                                     (0, sp.sqrt(2), 2)])
def test_equal_variances_are_gaussian(m0, s, m1):
    f = NormalPair(m0, s, m1, s)
    g = ta.G(sp.Abs(m1 - m0) / s)
    assert normal_pair_equal_variance(f) == g
    assert f.is_symmetric is True and f.inverse() is not None
    for alpha in ["1e-10", "0.3", R(1, 2), 1 - R(1, 10**10)]:
        v, w = ta.evaluate(f, alpha, dps=30), ta.evaluate(g, alpha, dps=30)
        assert v.mid == w.mid, (alpha, v, w)
    assert np.allclose(f.curve(np.linspace(0, 1, 11)), g.curve(np.linspace(0, 1, 11)),
                       rtol=0, atol=1e-15)
    assert normal_pair_equal_variance(NormalPair(0, 1, 1, 2)) is None


@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_trade_off_shape(pair):
    f = NormalPair(*pair)
    x = np.linspace(0, 1, 401)
    y = f.curve(x)
    assert y[0] == 1 and y[-1] == 0
    assert np.all((0 <= y) & (y <= 1))
    assert np.all(np.diff(y) <= 1e-15)  # non-increasing
    assert np.all(y[:-2] - 2 * y[1:-1] + y[2:] >= -1e-12)  # convex
    assert np.all(y <= 1 - x + 1e-15)  # f <= 1 - alpha
    # the certified path: exact ends, monotone and convex at a few levels
    assert ta.evaluate(f, 0).mid == 1 and ta.evaluate(f, 1).mid == 0
    a = [R(k, 8) for k in range(1, 8)]
    v = [ta.evaluate(f, t, dps=20).mid for t in a]
    assert all(v[i] > v[i + 1] for i in range(len(v) - 1))
    assert all(v[i - 1] - 2 * v[i] + v[i + 1] >= 0 for i in range(1, len(v) - 1))


@pytest.mark.parametrize("pair", [(0, 1, 1, 2), (0, 1, 1, R(1, 2)), (0, 2, 3, 1)], ids=str)
def test_threshold_test_is_worse_when_variances_differ(pair):
    gap = threshold_gap(*pair, R(3, 10), dps=30)
    assert gap.gap > mpmath.mpf(10) ** -6  # far above the 30 digits of both values
    assert gap.threshold > gap.optimal
    # the threshold test's type II error is 1 - binormal power
    m0, s0, m1, s1 = pair
    roc = binormal_roc(sp.Abs(m1 - m0) / s1, R(s0) / s1, R(3, 10), dps=30)
    with mpmath.workdps(40):
        assert abs((1 - roc) - gap.threshold) < mpmath.mpf(10) ** -30


def test_threshold_test_is_optimal_for_equal_variances():
    for alpha in ["1e-10", R(3, 10), 1 - R(1, 10**5)]:
        gap = threshold_gap(0, 2, 3, 2, alpha, dps=30)
        assert abs(gap.gap) <= mpmath.mpf(10) ** -29 * gap.optimal


def test_binormal_roc_is_the_threshold_power():
    """Phi(a + b Phi^{-1}(t)) = P(X > Phi^{-1}(1 - t)) for X ~ N(a/b, 1/b^2)."""
    with mpmath.workdps(40):
        a, b, t = mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf("0.05")
        c = -mpmath.sqrt(2) * mpmath.erfinv(2 * t - 1)  # the threshold: P(N(0,1) > c) = t
        power = mpmath.quad(lambda x: mpmath.npdf(x, a / b, 1 / b), [c, mpmath.inf])
    assert abs(binormal_roc(1, 2, "0.05", dps=30) - power) < mpmath.mpf(10) ** -28
    assert binormal_roc(1, 2, 0) == 0 and binormal_roc(1, 2, 1) == 1


def test_nodes_printing_and_inverse():
    f = NormalPair(0, 1, R(1, 2), 2)
    assert str(f) == "NormalPair(0, 1, 1/2, 2)"
    assert ta.latex(f) == (r"T\left(\mathcal{N}(0, 1^{2}), "
                           r"\mathcal{N}(\frac{1}{2}, 2^{2})\right)")
    assert f.is_symmetric is None
    assert ta.simplify(f.inverse()) == NormalPair(R(1, 2), 2, 0, 1)
    v = ta.evaluate(f.inverse(), R(3, 10), dps=25)
    w = ta.evaluate(NormalPair(R(1, 2), 2, 0, 1), R(3, 10), dps=25)
    assert v.lo <= w.mid <= v.hi or abs(v.mid - w.mid) <= mpmath.mpf(10) ** -24
    assert f.func(*f.args) == f


@pytest.mark.parametrize("args,name", [((0, 0, 1, 1), "s0"), ((0, -1, 1, 1), "s0"),
                                       ((0, 1, 1, 0), "s1"), ((0, 1, 1, -2), "s1"),
                                       (("a", 1, 1, 1), "m0")])
def test_bad_parameters(args, name):
    with pytest.raises(ta.InvalidParameter, match=name):
        NormalPair(*args)


def test_bad_binormal_parameters():
    with pytest.raises(ta.InvalidParameter, match="b"):
        binormal_roc(1, 0, "0.5")
    with pytest.raises(ta.InvalidParameter, match="t"):
        binormal_roc(1, 1, 2)
