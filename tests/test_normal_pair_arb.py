"""The Arb ball of T(N(m0, s0^2), N(m1, s1^2)) (families/normal_pair.py, _arb_normal_pair):
certified values against the Neyman-Pearson test formed here in x itself (Dong, Roth & Su,
Def. 2): the log-likelihood ratio l(x) = log(s0/s1) - (x - m1)^2/(2 s1^2) + (x - m0)^2/(2 s0^2)
is a quadratic; the region {l > t} is cut by its two roots, t is found by bisection so that the
region has P-mass alpha, and f(alpha) is the Q-mass outside it (80 digits, the library's
thread-private mpmath context)."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _np_reference(m0, s0, m1, s1, alpha):
    A = 1 / (2 * s0**2) - 1 / (2 * s1**2)
    B = m1 / s1**2 - m0 / s0**2
    C = mp.log(s0 / s1) - m1**2 / (2 * s1**2) + m0**2 / (2 * s0**2)
    P = lambda x: mp.ncdf((x - m0) / s0)  # noqa: E731
    Q = lambda x: mp.ncdf((x - m1) / s1)  # noqa: E731

    def region(t):  # (P-mass, Q-mass) of {l(x) > t}
        disc = B * B - 4 * A * (C - t)
        if disc <= 0:
            return (mp.one, mp.one) if A > 0 else (mp.zero, mp.zero)
        x1, x2 = sorted([(-B - mp.sqrt(disc)) / (2 * A), (-B + mp.sqrt(disc)) / (2 * A)])
        if A > 0:  # two tails
            return P(x1) + 1 - P(x2), Q(x1) + 1 - Q(x2)
        return P(x2) - P(x1), Q(x2) - Q(x1)

    lo, hi = mp.mpf(-200), mp.mpf(200)  # alpha(t) is non-increasing in t
    for _ in range(300):
        m = (lo + hi) / 2
        if region(m)[0] > alpha:
            lo = m
        else:
            hi = m
    return 1 - region((lo + hi) / 2)[1]


@pytest.mark.parametrize("pair", [(0, R(1, 2), R(3, 2), 2), (2, sp.sqrt(2), 1, 1),
                                  (0, 1, 0, 2), (1, 3, R(-1, 2), R(7, 4))])
@pytest.mark.parametrize("A", [R(1, 1000), R(1, 10), R(3, 10), R(7, 10)])
def test_certified_against_neyman_pearson_in_x(pair, A):
    f = ta.NormalPair(*pair)
    v = ta.evaluate(f, A, dps=25)
    w = ta.roc(f, A, dps=25)
    assert v.guarantee == "certified" and w.guarantee == "certified"
    with mp.workdps(80):
        ref = _np_reference(*(mp.mpf(sp.N(x, 90)) for x in pair), mp.mpf(A.p) / A.q)
        assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref
        assert abs(w.mid - (1 - ref)) <= mp.mpf(10) ** -24 * (1 - ref)


def test_equal_variances_take_the_gaussian_ball():
    """s0 = s1: G_{|m1 - m0|/s0} (Eq. (5)), Dwork & Roth's Thm. 6.3 output pair."""
    s = 7 * sp.sqrt(341) / 160
    v = ta.evaluate(ta.NormalPair(0, s, R(1, 16), s), R(1, 10))
    g = ta.evaluate(ta.G(R(1, 16) / s), R(1, 10))
    assert v.guarantee == "certified" and v.lo == g.lo


@pytest.mark.parametrize("w", [R(1, 2), 1, 2])
def test_level_whose_half_width_is_dyadic(w):
    """N(2, 2) against N(1, 1) (Wang et al., Sec. 5): the level of the interval test
    with half-width w in the coordinate of P, alpha = Phi(w - sqrt 2) - Phi(-w - sqrt 2),
    has the half-width w itself, an exact bisection point (w = 1): the bracket is proved around
    it. f(alpha) = 1 - Phi(sqrt 2 (w - sqrt 2/2)) + Phi(sqrt 2 (-w - sqrt 2/2)) (mpmath)."""
    f = ta.NormalPair(2, sp.sqrt(2), 1, 1)
    A = ta.Phi(w - sp.sqrt(2)) - ta.Phi(-w - sp.sqrt(2))
    v = ta.evaluate(f, A, dps=25)
    assert v.guarantee == "certified"
    with mp.workdps(60):
        s2, W = mp.sqrt(2), mp.mpf(sp.N(w, 70))
        ref = 1 - mp.ncdf(s2 * (W - s2 / 2)) + mp.ncdf(s2 * (-W - s2 / 2))
        assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref
