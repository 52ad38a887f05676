"""A finite pair with lattice losses composed n times, in Arb (numeric/lattice_power.py) and the
route that uses it (routes: "Arb lattice composition"): k-ary randomized response with a float
p, which the exact composition multiplied as 53-bit rationals (T = 1000 did not finish).

References, independent of the code under test: the exact finite composition (rationals,
``numeric.finite``) where it is affordable, and the trinomial sum of the randomized response's
product written out here in mpmath at 50 digits (delta(eps) = sum over the counts (i, j) of the
true and the swapped outputs of the multinomial Q-mass times (1 - e^{eps - (i - j) l})_+).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import FiniteLoss
from tradeoff_algebra.numeric.lattice_power import LatticePower, lattice_pair

R = sp.Rational


def _rr(p: Fraction, k: int):
    """dp_accounting's RandomizedResponseDpEvent(p, k): e^eps = 1 + k (1 - p)/p; the masses
    (a, b, (k - 2) b) and (b, a, (k - 2) b)."""
    E = 1 + k * (1 - p) / p
    a, b = E / (E + k - 1), 1 / (E + k - 1)
    return [a, b, (k - 2) * b], [b, a, (k - 2) * b]


def _trinomial_delta(a, b, r, n, eps):
    """delta(eps) of the n-fold randomized response by its trinomial sum (mpmath, 50 digits)."""
    with mp.workdps(50):
        a, b, r = (mp.mpf(x.numerator) / x.denominator for x in (a, b, r))
        ell = mp.log(a / b)
        eps = mp.mpf(eps)
        total = mp.zero
        for i in range(n + 1):
            for j in range(n - i + 1):
                if (i - j) * ell <= eps:
                    continue
                w = mp.factorial(n) / (mp.factorial(i) * mp.factorial(j) * mp.factorial(n - i - j))
                total += w * a**i * b**j * r ** (n - i - j) * (1 - mp.exp(eps - (i - j) * ell))
        return total


def test_lattice_pair_reads_randomized_response_and_refuses_others():
    P, Q = _rr(Fraction(0.9), 8)
    R_, ks, qs = lattice_pair(P, Q)
    assert sorted(ks) == [-1, 0, 1] and R_ == P[0] / P[1] and sum(qs) == 1
    assert lattice_pair([Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 3), Fraction(2, 3)]) \
        is None  # ratios 2/3 and 4/3: not powers of one rational
    assert lattice_pair([Fraction(1, 2), Fraction(1, 2), Fraction(0)],
                        [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]) is None  # infinite
    assert lattice_pair([Fraction(1, 2)] * 2, [Fraction(1, 2)] * 2) is None  # Id


@pytest.mark.parametrize("p,k,n", [(Fraction(1, 2), 4, 20), (Fraction(0.9), 8, 12),
                                   (Fraction(3, 4), 3, 40)])
def test_against_the_exact_composition(p, k, n):
    P, Q = _rr(p, k)
    lp = LatticePower(*lattice_pair(P, Q), n)
    fl = FiniteLoss.pair([sp.Rational(x.numerator, x.denominator) for x in P],
                         [sp.Rational(x.numerator, x.denominator) for x in Q]).power(n)
    ell = math.log(P[0] / P[1])
    for eps in (0.0, 0.3 * ell, 2.5 * ell, n * ell / 3):
        lo, hi = lp.delta(eps, 1e-12)
        with mp.workdps(40):
            ex = fl.mp_delta(mp.mpf(eps))[0]
        assert lo <= ex <= hi and hi - lo <= 1e-11 * hi
    for d in (1e-3, 1e-6):
        lo, hi = lp.epsilon(d, d, 1e-12)
        with mp.workdps(40):
            ex = fl.mp_epsilon(mp.mpf(d))
        assert lo <= ex[0] and ex[1] <= hi * (1 + 1e-15) and hi - lo <= 1e-11 * hi


def test_against_the_trinomial_sum():
    P, Q = _rr(Fraction(0.9), 8)
    lp = LatticePower(*lattice_pair(P, Q), 120)
    for eps in (8.0, 25.0):
        lo, hi = lp.delta(eps, 1e-12)
        ref = _trinomial_delta(P[0], P[1], P[2], 120, eps)
        assert lo <= ref <= hi and hi - lo <= 1e-11 * hi


def test_the_route_answers_randomized_response_with_a_float_p():
    """T = 1000 (the exact composition did not finish in 120 s): certified, and delta at the
    enclosure's ends brackets the level."""
    P, Q = _rr(Fraction(0.9), 8)
    f = ta.Discrete([sp.Rational(x.numerator, x.denominator) for x in P],
                    [sp.Rational(x.numerator, x.denominator) for x in Q]) ** 1000
    with ta.pld_options(tol=1e-9), ta.time_limit(60):
        v = ta.epsilon(f, R(1, 10**6), dps=15)
        assert v.route == "Arb lattice composition" and v.guarantee == "certified"
        assert 0 < v.hi - v.lo <= 1e-9 * v.hi
        lo = ta.delta(f, sp.Float(v.lo, 20), dps=15)
        hi = ta.delta(f, sp.Float(v.hi, 20), dps=15)
    assert lo.lo >= 1e-6 * (1 - 1e-9) and hi.hi <= 1e-6 * (1 + 1e-9)
    assert hi.route == "Arb lattice composition"
