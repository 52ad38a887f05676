"""Products of finite lattice pairs on two incommensurate lattices (numeric/lattice_two.py):
f_{eps0,0}^{(x) n} next to k-ary randomized response RR(log 3, k)^{(x) m}, the losses on
eps0 Z and log(3) Z.

References, independent of the code under test (no tilt, no window, no fixed point):

* small n: the exact finite composition of the library (every atom of the product, its masses
  as Arb balls: ``FiniteLoss.arb_delta``), and for rational masses the atoms enumerated here
  by brute force with Fractions, delta summed at 50 digits;
* RR(log 3, 5)^2000 (x) f_{log 2,0}^{2000}: the exact integer Q-laws (``fmpz_poly`` powers) and
  the double sum of Prop. 6 at 60 digits (``references.lattice_two_exact``);
* the products of the time-limit report at n = 10^5, f_{1/10,0}^{(x) 10^5} (x)
  f_{log 3,0}^{(x) 10^5}: binomial masses from log-gamma at 60 digits.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy as sp
from references.lattice_two_exact import SeparableProduct, binomial_law, exact_law

import tradeoff_algebra as ta
from tradeoff_algebra import BinomialDP
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import finite_loss
from tradeoff_algebra.numeric.lattice_two import TWO_LATTICES, two_lattice_product
from tradeoff_algebra.routes import product as rp
from tradeoff_algebra.routes.plan import pld_leaves

F = Fraction


def _rr(k: int, n: int):
    return ta.randomized_response(sp.log(3), k) ** n


def _brute_delta(pairs, eps: float):
    """delta(eps) = sum over the product's outcomes of (Q - e^eps P)_+ (Prop. 6), the outcomes
    of the product of explicit finite pairs (P, Q) enumerated one by one, Fractions summed at
    50 digits."""
    with mp.workdps(50):
        E = mp.exp(mp.mpf(eps))
        total = mp.zero
        for combo in itertools.product(*[list(zip(P, Q, strict=True)) for P, Q in pairs]):
            p = q = F(1)
            for a, b in combo:
                p, q = p * a, q * b
            v = mp.mpf(q.numerator) / q.denominator - E * mp.mpf(p.numerator) / p.denominator
            if v > 0:
                total += v
        return total


def test_small_rational_product_against_brute_force():
    # f_{log 2,0}^{(x) 5} (x) RR(log 3, 5)^{(x) 3}: 2^5 3^3 outcomes enumerated
    f = ta.Tensor(BinomialDP(sp.log(2), 5), _rr(5, 3))
    tp = two_lattice_product(pld_leaves(f))
    assert tp is not None
    rr = ([F(3, 7), F(1, 7), F(3, 7)], [F(1, 7), F(3, 7), F(3, 7)])
    pairs = [([F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)])] * 5 + [rr] * 3
    for eps in (0.0, 0.3, 1.7, 4.0, 6.5):
        ref = _brute_delta(pairs, eps)
        lo, hi = tp.delta(eps, 1e-12)
        assert lo <= ref <= hi, (eps, lo, ref, hi)
        assert hi - lo <= 1e-11 * hi


@pytest.mark.parametrize("k", [2, 5])
def test_irrational_masses_against_the_exact_finite_composition(k):
    # e^{1/10} is irrational: the finite route's atoms are closed forms enclosed in Arb
    f = ta.Tensor(BinomialDP(sp.Rational(1, 10), 40), _rr(k, 30))
    tp = two_lattice_product(pld_leaves(f))
    fl = finite_loss(f)
    for eps in (0.0, 0.5, 3.0, 9.0):
        ref = fl.arb_delta(sp.Rational(eps), 200)
        lo, hi = tp.delta(eps, 1e-12)
        assert lo <= float(ref.lower()) and float(ref.upper()) <= hi or \
            lo <= float(ref.mid()) <= hi, (eps, lo, ref, hi)
        assert hi - lo <= 1e-11 * hi
    for d in (1e-2, 1e-7):  # the bracket holds eps(d): delta(lo) > d >= delta(hi)
        lo, hi = tp.epsilon(d, d, 1e-11)
        assert hi - lo <= 1e-10 * hi
        assert float(fl.arb_delta(sp.Rational(lo), 200).mid()) > d
        assert float(fl.arb_delta(sp.Rational(hi), 200).mid()) <= d


def test_exact_integer_laws_at_n_2000():
    n = 2000
    f = ta.Tensor(BinomialDP(sp.log(2), n), _rr(5, n))
    tp = two_lattice_product(pld_leaves(f))
    ref = SeparableProduct(exact_law(F(2), {-1: F(1, 3), 1: F(2, 3)}, n),
                           exact_law(F(3), {-1: F(1, 7), 0: F(3, 7), 1: F(3, 7)}, n))
    for eps in (0.0, 700.0, 1000.5, 1250.0):
        r = ref.delta(eps)
        lo, hi = tp.delta(eps, 1e-11)
        assert lo <= r <= hi, (eps, lo, r, hi)
        assert hi - lo <= 1e-10 * hi
    d = 1e-6
    lo, hi = tp.epsilon(d, d, 1e-11)
    assert ref.delta(lo) > d >= ref.delta(hi)
    assert hi - lo <= 1e-10 * hi


@pytest.mark.parametrize("n", [2 * 10**4, pytest.param(10**5, marks=pytest.mark.slow)])
def test_the_reported_product_with_binomial_laws(n):
    """eps(1e-6) and delta of f_{1/10,0}^{(x) n} (x) RR(log 3, 2)^{(x) n} (= f_{log 3,0}^{(x) n};
    n = 10^5 in the time-limit report) through the public API, against binomial masses at 60
    digits."""
    f = ta.Tensor(BinomialDP(sp.Rational(1, 10), n), _rr(2, n))
    assert [r.name for r in rp.routes_for(f, "epsilon")][0] == TWO_LATTICES
    ref = SeparableProduct(binomial_law(sp.Rational(1, 10), n), binomial_law(sp.log(3), n))
    v = ta.epsilon(f, sp.Rational(1, 10**6))
    assert v.guarantee == "certified" and v.route == TWO_LATTICES
    assert v.hi - v.lo <= 1e-9 * v.hi
    assert ref.delta(v.lo) > mp.mpf(10) ** -6 >= ref.delta(v.hi)
    eps = round(float(v.lo) * 0.995)
    d = ta.delta(f, eps)
    r = ref.delta(eps)
    assert d.guarantee == "certified" and d.lo <= r <= d.hi
    assert d.hi - d.lo <= 1e-9 * d.hi


def test_the_reported_product_with_rr5_answers_within_its_width():
    """eps(1e-6) of f_{1/10,0}^{(x) 10^5} (x) RR(log 3, 5)^{(x) 10^5} is certified by the two-
    lattice route; its bracket is checked against the one-lattice route of another product
    that bounds it: RR(log 3, 5)^{10^5} alone has a smaller eps, and adding f_{1/10,0}^{10^5},
    whose losses lie in [-10^4, 10^4], moves eps by at most that."""
    n = 10**5
    f = ta.Tensor(BinomialDP(sp.Rational(1, 10), n), _rr(5, n))
    v = ta.epsilon(f, sp.Rational(1, 10**6))
    assert v.guarantee == "certified" and v.route == TWO_LATTICES
    assert v.hi - v.lo <= 1e-9 * v.hi
    alone = ta.epsilon(_rr(5, n), sp.Rational(1, 10**6))  # (the tilted one-lattice route)
    assert alone.lo < v.lo
    assert v.hi <= alone.hi + n * 0.1 + 1e-6


def test_time_limit_answers_well_within():
    n = 10**5
    f = ta.Tensor(BinomialDP(sp.Rational(1, 10), n), _rr(5, n))
    with ta.time_limit(20):  # (a limit the CPU time of 0.1 s fits at any load of the tests)
        v = ta.epsilon(f, sp.Rational(1, 10**6))
    assert v.route == TWO_LATTICES


def test_one_lattice_products_are_not_taken():
    # log 9 = 2 log 3: one lattice (the tilted product of lattice_tilted answers)
    f = ta.Tensor(ta.randomized_response(sp.log(9), 3) ** 1000, _rr(5, 1000))
    assert two_lattice_product(pld_leaves(f)) is None
    # three lattices: not this route
    g = ta.Tensor(BinomialDP(sp.Rational(1, 10), 100), _rr(5, 100),
                  BinomialDP(sp.Rational(1, 7), 100))
    assert two_lattice_product(pld_leaves(g)) is None
