"""Exact ends of curves and the zero region of f: f(1) = 0, f(0) = 1 - Q(P = 0) and f = 0 on
[z, 1], z = P(Q > 0) (Dong, Roth & Su, Def. 2), checked against a brute-force Neyman-Pearson
test of the finite product in exact rationals."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import EstimateWarning
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _eps_delta_atoms(r: Fraction, d: Fraction) -> list[tuple[Fraction, Fraction]]:
    """(P, Q) masses of the four outcomes of f_{eps, delta}, e^eps = r (Dong, Roth & Su,
    Prop. 2's pair)."""
    a = (1 - d) / (1 + r)
    return [(d, Fraction(0)), (r * a, a), (a, r * a), (Fraction(0), d)]


def _np_value(atoms: list[tuple[Fraction, Fraction]], alpha: Fraction) -> Fraction:
    """T(P, Q)(alpha) by the most powerful test: reject where Q/P is largest first."""
    key = [(q / p if p else None, p, q) for p, q in atoms]
    key.sort(key=lambda t: (t[0] is not None, -(t[0] or 0)))  # (Q/P = +oo first)
    size, power = Fraction(0), Fraction(0)
    for _, p, q in key:
        if p and size + p >= alpha:
            return 1 - (power + (alpha - size) / p * q)
        size, power = size + p, power + q  # (P = 0: power without size)
    return Fraction(0)


def _product(atoms, k):
    out = []
    for combo in itertools.product(atoms, repeat=k):
        p, q = Fraction(1), Fraction(1)
        for a, b in combo:
            p, q = p * a, q * b
        if p or q:
            out.append((p, q))
    return out


#: e to 30 digits: the reference's likelihood ratio for eps = 1 (its values move by < 1e-29)
E30 = Fraction(2718281828459045235360287471353, 10**30)


def test_values_of_a_finite_product_on_its_zero_region_are_exact():
    """f_{1, 1/10}^3 (e^eps irrational) vanishes exactly from z = (9/10)^3 on; its values there
    were estimates of 0 (the finite route's balls of 0 never met a relative width)."""
    f = ta.EpsDelta(1, R(1, 10)) ** 3
    atoms = _product(_eps_delta_atoms(E30, Fraction(1, 10)), 3)
    for a in (R(7, 10), R(729, 1000), R(73, 100), R(9, 10)):
        ref = _np_value(atoms, Fraction(int(a.p), int(a.q)))
        v = ta.evaluate(f, a)
        with mp.workdps(60):
            lo, hi = v.interval()
            r = mp.mpf(ref.numerator) / ref.denominator
            assert lo - mp.mpf(10) ** -25 <= r <= hi + mp.mpf(10) ** -25, (a, v, r)
        if ref == 0:
            assert v.guarantee == "exact" and v.exact == 0


def test_curve_bounds_hold_the_exact_ends():
    f = ta.EpsDelta(sp.log(3), R(1, 10)) ** 3
    x = np.linspace(0, 1, 21)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    atoms = _product(_eps_delta_atoms(Fraction(3), Fraction(1, 10)), 3)
    for k, a in enumerate(x):
        ref = _np_value(atoms, Fraction(a))
        assert Fraction(lo[k]) <= ref <= Fraction(hi[k]), (a, lo[k], hi[k], ref)
    # f(0) = 729/1000 to the float: its two neighbours at most
    assert np.nextafter(lo[0], 1) >= 0.729 >= lo[0] and hi[0] <= np.nextafter(0.729, 1)
    assert np.all(lo[x >= 0.75] == 0) and np.all(hi[x >= 0.75] == 0)


def test_band_routes_take_the_exact_end_at_zero():
    """Laplace(1)^1000 (no mass at +-oo: f(0) = 1): the band route left [0, 1] at alpha = 0
    among 21 levels; f(1) = 0 exactly."""
    lo, hi = ta.curve(ta.Laplace(1) ** 1000, np.linspace(0, 1, 21), bounds=True)
    assert lo[0] == hi[0] == 1.0 and lo[-1] == hi[-1] == 0.0
    assert np.all(lo <= hi)


def test_discrete_laplace_ends_are_exact():
    """Both discrete Laplace laws charge every integer: f(0) = 1 exactly (it was a certified
    ball), for the law, its powers and its products; the certified values at a tiny level lie
    just below (f(alpha) >= 1 - e^{Delta/t} alpha for a pure e^{Delta/t}-DP pair)."""
    for f in (ta.DiscreteLaplace(1, 2), ta.DiscreteLaplace(1, 2) ** 5,
              ta.Tensor(ta.DiscreteLaplace(2, 3), ta.Laplace(1))):
        v = ta.evaluate(f, 0)
        assert v.guarantee == "exact" and v.exact == 1, (f, v)
        w = ta.evaluate(f, R(1, 10**30))
        lo, hi = (float(t) for t in w.interval())
        assert hi <= 1 and lo >= 1 - 1e-15, (f, w)
