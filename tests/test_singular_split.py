"""Finite pairs with singular atoms composed: the singular part factored out exactly.

T(P, Q) = T(P', Q') (x) f_{0,m}, m = min(Q-mass where P = 0, P-mass where Q = 0)
(``families.discrete.singular_split``, f_{eps,delta} = f_{eps,0} (x) f_{0,delta} the case of
equal masses), and eps_f(D) of a product with such parts = +oo when D < S = 1 - prod(1 -
m_i)^{n_i}, else eps_g((D - S)/(1 - S)) of the rest (``analysis.conversions``).

References, independent of the code under test:

* brute-force Neyman--Pearson on the product pair written out outcome by outcome in exact
  rationals (likelihood ratios rational): delta at each ratio is an exact sum, eps(D) on the
  crossing segment is log((A - D)/B) at 50 digits, +oo below the Q-mass where P = 0;
* Kairouz, Oh & Viswanath's optimal composition of (eps, delta)-DP (Thm. 3.3): the k-fold
  product of f_{eps,delta} has delta((k - 2i) eps) = 1 - (1 - delta)^k (1 - delta'_i),
  delta'_i = sum_{l < i} C(k, l) (e^{(k - l) eps} - e^{(k - 2i + l) eps})/(1 + e^eps)^k, summed
  here in mpmath at 60 digits.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.discrete import singular_split
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.privacy_loss import delta_part

R = sp.Rational
F = Fraction


def _product_pair(factors):
    """The product pair of [(P, Q), ...] (Fractions), outcome by outcome."""
    P, Q = [F(1)], [F(1)]
    for p, q in factors:
        P = [x * y for x, y in itertools.product(P, p)]
        Q = [x * y for x, y in itertools.product(Q, q)]
    return P, Q


def _brute_epsilon(P, Q, D: Fraction):
    """eps(D) of T(P, Q) by Neyman--Pearson on the explicit pair: delta(eps) = Q(P = 0) +
    sum_{Q/P > e^eps} (Q - e^eps P); with rational ratios r_1 > r_2 > ... the values at eps =
    log r_j are exact, and on the crossing segment delta = A - e^eps B (mpf at 50 digits)."""
    sing = sum((q for p, q in zip(P, Q, strict=True) if p == 0), F(0))
    if D < sing:
        return mp.inf
    ratios = sorted({q / p for p, q in zip(P, Q, strict=True) if p != 0 and q != 0}, reverse=True)

    def sums(r):  # (A, B): the Q- and P-masses of the outcomes of ratio > r, with the singular
        A = sing + sum((q for p, q in zip(P, Q, strict=True) if p != 0 and q / p > r), F(0))
        B = sum((p for p, q in zip(P, Q, strict=True) if p != 0 and q / p > r), F(0))
        return A, B

    prev = None
    for r in [x for x in ratios if x > 1] + [F(1)]:  # eps = log r from the top down to 0
        A, B = sums(r)  # delta(log r) = A - r B
        if A - r * B > D:  # the crossing lies in [log r, log prev]: there delta = A - e^eps B
            if prev is None:
                return mp.inf
            with mp.workdps(50):
                return max(mp.log((mp.mpf(A.numerator) / A.denominator - mp.mpf(D.numerator)
                                   / D.denominator) / (mp.mpf(B.numerator) / B.denominator)),
                           mp.zero)
        prev = r
    return mp.zero  # delta(0) <= D


def _contains(v, x):
    with mp.workdps(50):
        lo, hi = v.interval()
        return lo <= x <= hi


def _epsdelta_pair(E: Fraction, d: Fraction):
    """f_{eps,delta} as the pair (Dong, Roth & Su, Prop. 3), e^eps = E rational."""
    return ([d, (1 - d) * E / (1 + E), (1 - d) / (1 + E), F(0)],
            [F(0), (1 - d) / (1 + E), (1 - d) * E / (1 + E), d])


def test_the_split_keeps_the_pair():
    """T(P', Q') (x) f_{0,m} has the same knots as T(P, Q) (exact Neyman--Pearson of both)."""
    P = [R(1, 100), R(59, 100), R(40, 100), 0]
    Q = [0, R(38, 100), R(60, 100), R(2, 100)]
    P2, Q2, m = singular_split(P, Q)
    assert m == R(1, 100)
    f = ta.Discrete(P, Q)
    g = ta.Discrete(P2, Q2) @ ta.EpsDelta(0, m)
    for a in (R(0), R(1, 7), R(1, 2), R(9, 10), R(98, 100), R(99, 100)):
        assert ta.evaluate(f, a).mid == ta.evaluate(g, a).mid
    assert delta_part(f) == (ta.Discrete(P2, Q2), m)
    assert delta_part(ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]))[1] == 0


@pytest.mark.parametrize("D", [R(1, 3), R(1, 10), R(1, 50), R(7, 100)])
def test_discrete_with_singular_atoms_against_brute_force(D):
    Pf = [F(1, 100), F(59, 100), F(40, 100), F(0)]
    Qf = [F(0), F(38, 100), F(60, 100), F(2, 100)]
    f = ta.Discrete([R(x.numerator, x.denominator) for x in Pf],
                    [R(x.numerator, x.denominator) for x in Qf])
    n = 4
    ref = _brute_epsilon(*_product_pair([(Pf, Qf)] * n), F(D.p, D.q))
    v = ta.epsilon(f ** n, D)
    assert v.guarantee == "certified"
    assert _contains(v, ref), (v, ref)


@pytest.mark.parametrize("D", [R(1, 4), R(1, 12), R(1, 40), R(1, 200)])
def test_mixed_epsdelta_product_against_brute_force(D):
    a, b = _epsdelta_pair(F(2), F(1, 20)), _epsdelta_pair(F(3), F(1, 40))
    ref = _brute_epsilon(*_product_pair([a, a, a, b]), F(D.p, D.q))
    f = ta.EpsDelta(sp.log(2), R(1, 20)) ** 3 @ ta.EpsDelta(sp.log(3), R(1, 40))
    v = ta.epsilon(f, D)
    assert v.guarantee == "certified"
    assert _contains(v, ref), (v, ref)


def _kov(k: int, eps, d, i: int):
    """delta_i of Kairouz, Oh & Viswanath (Thm. 3.3) at 60 digits."""
    with mp.workdps(60):
        e = mp.mpf(eps) if not isinstance(eps, sp.Expr) else mp.mpf(sp.N(eps, 70))
        dd = mp.mpf(d.p) / d.q
        s = mp.fsum(mp.binomial(k, ll) * (mp.exp((k - ll) * e) - mp.exp((k - 2 * i + ll) * e))
                    for ll in range(i))
        return 1 - (1 - dd) ** k * (1 - s / (1 + mp.exp(e)) ** k)


@pytest.mark.parametrize("k,eps,d,i", [
    (30, R(1, 2), R(1, 100), 8), (30, R(1, 2), R(1, 100), 12),
    pytest.param(2000, sp.log(3), R(1, 10**12), 600, marks=pytest.mark.slow),
    (2000, R(1, 10), R(1, 10**9), 900)])
def test_epsdelta_power_against_kairouz_oh_viswanath(k, eps, d, i):
    """eps at the level delta_i is (k - 2i) eps (delta is strictly decreasing below k eps)."""
    level = _kov(k, eps, d, i)
    with mp.workdps(60):
        D = R(mp.nstr(level, 55))
        target = (k - 2 * i) * mp.mpf(sp.N(eps, 70))
    f = ta.EpsDelta(eps, d) ** k
    v = ta.epsilon(f, D)
    assert v.guarantee == "certified"
    assert _contains(v, target), (v, target)
    with mp.workdps(40):  # and delta there by the existing f_{0,delta} route
        w = ta.delta(f, (k - 2 * i) * eps, dps=30)
        lo, hi = w.interval()
        assert lo <= level <= hi


def test_infinity_decided_at_once_either_side_of_the_singular_mass():
    """S = 1 - (1 - 1e-9)^(10^6) (mpmath, 60 digits): eps = oo just below S, finite just above,
    both without composing (the f_{eps,0} power is closed by the rules)."""
    d = R(1e-9)
    with mp.workdps(60):
        S = 1 - (1 - mp.mpf(d.p) / d.q) ** 10**6
        below = R(mp.nstr(S * (1 - mp.mpf(10)**-8), 50))
        above = R(mp.nstr(S * (1 + mp.mpf(10)**-8), 50))
    f = ta.EpsDelta(R(1, 10), d) ** 10**6
    v = ta.epsilon(f, below)
    assert v.lo == v.hi == mp.inf and v.guarantee == "certified"
    w = ta.epsilon(f, above)
    assert w.guarantee == "certified" and 0 < w.lo <= w.hi < 10**5
    # the shifted level (D - S)/(1 - S) of the rest, by mpmath: eps there equals f's
    with mp.workdps(60):
        shifted = (mp.mpf(above.p) / above.q - S) / (1 - S)
        up = R(mp.nstr(shifted * (1 + mp.mpf(10)**-40), 55))
        dn = R(mp.nstr(shifted * (1 - mp.mpf(10)**-40), 55))
    g = ta.EpsDelta(R(1, 10), 0) ** 10**6
    lo_side, hi_side = ta.epsilon(g, up), ta.epsilon(g, dn)
    with mp.workdps(40):
        assert w.interval()[0] <= hi_side.interval()[1]
        assert lo_side.interval()[0] <= w.interval()[1]


def test_one_sided_singular_part_is_decided_at_once():
    """A pair with Q-mass 1/99 where P = 0 and nothing where Q = 0: 300 factors have singular
    mass 1 - (98/99)^300 = 0.95 > 0.9 (exact rationals)."""
    f = ta.Discrete([R(59, 99), R(40, 99), 0], [R(38, 99), R(20, 33), R(1, 99)]) ** 300
    assert 1 - R(98, 99) ** 300 > R(9, 10)
    v = ta.epsilon(f, R(9, 10))
    assert v.lo == v.hi == mp.inf and v.guarantee == "certified"
    assert v.route == "singular part (Prop. 6)"
    assert math.isfinite(ta.epsilon(f, R(96, 100)).hi)
