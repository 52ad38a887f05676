"""ShuffleDP's curve at levels below the P-mass of its top atom (the point a = 0 of every slice,
likelihood ratio e^eps0: threshold fraction 0), families/shuffle_curve.py.

There the polygon is the chord from (0, 0) to the atom's point (P_0, e^eps0 P_0): 1 - f(alpha) =
e^eps0 alpha. The band's lower power end is that chord only if the atom's point is computed
(``many_tails`` with tau = 0); without it the band was [1 - e^eps0 alpha, 1 - alpha], up to
3.9e-5 wide at tol 1e-12 and not warned. References: the exact Fraction atom table of Feldman,
McMillan & Talwar's pair (references/shuffle_pair.fraction_atoms) and its Neyman--Pearson
polygon.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from references.shuffle_pair import fraction_atoms

import tradeoff_algebra as ta
from tradeoff_algebra.families.shuffle_curve import many_tails
from tradeoff_algebra.numeric.context import arb_precision


@pytest.mark.parametrize("E, n", [(Fraction(3), 80), (Fraction(3, 2), 7), (Fraction(40), 30)])
def test_many_tails_at_fraction_zero_is_the_top_atom(E, n):
    """tau = 0: no strict tail (P_< = Q_< = 0) and P_= the top atom's exact P-mass."""
    from flint import arb

    keys, P, _ = fraction_atoms(E, n)
    assert keys[0] == 0
    with arb_precision(200):
        (Pl, Ql, Pe), = many_tails(arb(E.numerator) / E.denominator, n, [Fraction(0)], 1, n,
                                   200)
        ref = arb(P[0].numerator) / P[0].denominator
        assert Pl.contains(0) and Ql.contains(0) and Pl.rad() < arb(10) ** -50
        assert Pe.overlaps(ref) and Pe.rad() < arb(10) ** -50, (Pe, float(P[0]))


@pytest.mark.parametrize("E, n", [(Fraction(40), 100), (Fraction(3), 2), (Fraction(3), 20),
                                  (Fraction(3, 2), 9)])
def test_curve_below_the_top_atom_within_tol(E, n):
    """Levels below the top atom's P-mass (1e-12, 1e-6 and half the mass): the band holds the
    exact polygon's value and is within tol 1e-12, with no ToleranceWarning."""
    keys, P, Q = fraction_atoms(E, n)
    xs = [1e-12, 1e-6, float(P[0]) / 2]
    assert all(Fraction(x) < P[0] for x in xs)
    f = ta.ShuffleDP(sp.log(sp.Rational(E.numerator, E.denominator)), n)
    with ta.pld_options(tol=1e-12), warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        lo, hi = ta.curve(f, xs, bounds=True)
    assert not any(issubclass(w.category, (ta.ToleranceWarning, ta.EstimateWarning))
                   for w in ws), [str(w.message) for w in ws]
    for x, a, b in zip(xs, lo, hi, strict=True):
        exact = 1 - Q[0] / P[0] * Fraction(x)  # (the chord from (0, 0) to the top atom)
        assert Fraction(a) <= exact <= Fraction(b), (x, a, b, float(exact))
        assert b - a <= 1e-12, (x, a, b)
