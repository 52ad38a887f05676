"""The tilted fixed-point power of a finite lattice pair (numeric/lattice_tilted.py), which
answers ``LatticePower`` for tables longer than ``TILT_SIZE``: randomized response with
e^eps = 3 (loss unit log 3, irrational) composed up to n = 10^6.

References, independent of the code under test:

* the exact Q-law of the product, the integer coefficients of (sum_k w_k x^k)^n with no window
  and no rounding (``references.lattice_exact``), delta and eps from it at 50 digits (n up to
  3000);
* the whole table composed in Arb (``LatticePower`` with its tilted power switched off: the
  other lattice route) at n = 10^4;
* at n = 10^6, the binary pair (R = 3, masses 3/4, 1/4) is f_{log 3,0}, whose power the library
  closes as BinomialDP and evaluates by regularised incomplete beta functions in Arb
  (``families.binomial_tails``): a different algorithm throughout.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from references.lattice_exact import ExactLatticePower

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.lattice_power import TILT_SIZE, LatticePower
from tradeoff_algebra.numeric.lattice_tilted import TiltedLatticePower

F = Fraction
R = sp.Rational
RR5 = {1: F(3, 7), -1: F(1, 7), 0: F(3, 7)}  # RR(log 3, 5): 3/7 true, 1/7 each other answer
RR2 = {1: F(3, 4), -1: F(1, 4)}  # RR(log 3, 2) = f_{log 3, 0}


def _tilted(qs, n):
    ks = sorted(qs)
    return TiltedLatticePower(F(3), ks, [qs[k] for k in ks], n)


@pytest.mark.parametrize("qs,n", [(RR5, 300), (RR5, 3000), (RR2, 2000),
                                  ({2: F(1, 5), 1: F(1, 5), 0: F(1, 5), -2: F(2, 5)}, 500)])
def test_against_the_exact_q_law(qs, n):
    ref = ExactLatticePower(F(3), qs, n)
    tl = _tilted(qs, n)
    for d in (1e-3, 1e-6, 1e-10):
        lo, hi = tl.epsilon(d, d, 1e-12)
        ex = ref.epsilon(d)
        assert lo <= ex <= hi * (1 + 1e-15) and hi - lo <= 1e-11 * hi, (d, lo, hi, ex)
        for eps in (lo, 0.7 * lo):
            dlo, dhi = tl.delta(eps, 1e-12)
            ex = ref.delta(eps)
            assert dlo <= ex <= dhi and dhi - dlo <= 1e-11 * dhi, (eps, dlo, dhi, ex)


@pytest.mark.parametrize("n", [3000, pytest.param(10**4, marks=pytest.mark.slow)])
def test_against_the_whole_table_in_arb(n):
    """The two lattice routes: at n = 10^4 (a table of 2 * 10^4 + 1 points) the tilted power
    and the whole table composed in Arb agree at eps and at delta."""
    ks = sorted(RR5)
    full = LatticePower(F(3), ks, [RR5[k] for k in ks], n)
    assert full.tilted is not None
    tl, full.tilted = full.tilted, None  # the whole table, as below TILT_SIZE
    for d in (1e-6, 1e-9):
        a, b = tl.epsilon(d, d, 1e-12), full.epsilon(d, d, 1e-12)
        assert max(a[0], b[0]) <= min(a[1], b[1]) and a[1] - a[0] <= 1e-11 * a[1]
    for eps in (0.3 * n, 0.36 * n):
        a, b = tl.delta(eps, 1e-12), full.delta(eps, 1e-12)
        assert max(a[0], b[0]) <= min(a[1], b[1]) and a[1] - a[0] <= 1e-11 * a[1]


def test_a_million_binary_factors_against_the_binomial_closed_form():
    """RR(log 3, 2)^(10^6) = f_{log 3,0}^(10^6): the tilted power against BinomialDP's incomplete
    beta functions in Arb, at eps(1e-6) and at delta there."""
    n = 10**6
    tl = _tilted(RR2, n)
    lo, hi = tl.epsilon(1e-6, 1e-6, 1e-10)
    assert hi - lo <= 1e-10 * hi
    v = ta.epsilon(ta.EpsDelta(sp.log(3), 0) ** n, R(1, 10**6))
    assert v.route == "closed by the rules" and v.guarantee == "certified"
    with mp.workdps(40):
        vlo, vhi = v.interval()
        assert lo <= vhi and vlo <= hi
    dlo, dhi = tl.delta(553000.0, 1e-10)
    w = ta.delta(ta.EpsDelta(sp.log(3), 0) ** n, 553000, dps=20)
    with mp.workdps(40):
        wlo, whi = w.interval()
        assert dlo <= whi and wlo <= dhi and dhi - dlo <= 1e-10 * dhi


@pytest.mark.parametrize("n", [10**5, 10**6])
def test_randomized_response_large_n_through_the_route(n):
    """RR(log 3, 5)^n by ta.epsilon under tol 1e-9: certified, relative width <= 1e-9, the
    route named; delta at the enclosure's ends (the delta question's own search) brackets the
    level."""
    f = ta.TensorPower(ta.randomized_response(sp.log(3), 5), n)
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**6), dps=15)
        assert v.route == "Arb lattice composition" and v.guarantee == "certified"
        assert 0 < v.hi - v.lo <= 1e-9 * v.hi
        lo = ta.delta(f, sp.Float(v.lo, 25), dps=15)
        hi = ta.delta(f, sp.Float(v.hi, 25), dps=15)
    assert lo.lo >= 1e-6 * (1 - 1e-9) and hi.hi <= 1e-6 * (1 + 1e-9)
    assert hi.route == "Arb lattice composition" and hi.guarantee == "certified"


def test_closed_form_masses_use_the_tilted_power():
    """RR(sqrt 2, 3): e^sqrt2 irrational, masses closed forms; n = 4000 (8001 points, beyond
    TILT_SIZE) against the whole table in Arb."""
    n = 4000
    f = ta.randomized_response(sp.sqrt(2), 3)
    from tradeoff_algebra.numeric.lattice_power import symbolic_lattice_pair
    base, ks, qs = symbolic_lattice_pair(list(f.P), list(f.Q))
    lp = LatticePower(base, ks, qs, n)
    assert n * (max(ks) - min(ks)) + 1 > TILT_SIZE and lp.tilted is not None
    a = lp.epsilon(1e-6, 1e-6, 1e-11)
    lp.tilted = None
    b = lp.epsilon(1e-6, 1e-6, 1e-11)
    assert max(a[0], b[0]) <= min(a[1], b[1]) and a[1] - a[0] <= 1e-10 * a[1]


def test_ten_million_factors_far_in_the_tail_against_the_binomial_closed_form():
    """n = 10^7 at delta = 1e-100 (the tilt's grid once moved the window 24 sd off eps there,
    and the enclosure came back vacuous): the binary pair against BinomialDP in Arb."""
    n = 10**7
    tl = _tilted(RR2, n)
    lo, hi = tl.epsilon(1e-100, 1e-100, 1e-10)
    assert 0 < lo and hi - lo <= 1e-10 * hi
    v = ta.epsilon(ta.EpsDelta(sp.log(3), 0) ** n, R(1, 10**100))
    assert v.guarantee == "certified"
    with mp.workdps(40):
        vlo, vhi = v.interval()
        assert lo <= vhi and vlo <= hi


# -- products of several lattice pairs (routes.plan._lattice_product) -------------------------
def _mixed_leaves(a: int, b: int, c: int):
    return ((ta.randomized_response(sp.log(3), 5), a), (ta.EpsDelta(sp.log(3), R(1, 10**5)), b),
            (ta.randomized_response(sp.log(9), 3), c))


def test_product_of_pairs_on_one_lattice_against_the_exact_finite_composition():
    """RR(log 3, 5)^12 (x) f_{log 3, 1e-5}^8 (x) RR(log 9, 3)^6 (ratios 3^k, 9 = 3^2, and the
    singular atoms of f_{eps,delta}): the tilted product against the exact finite composition
    (rationals) of the same product; below the singular mass 1 - (1 - 1e-5)^8 both say oo."""
    from tradeoff_algebra.routes.plan import _lattice_product

    leaves = _mixed_leaves(12, 8, 6)
    lp = _lattice_product(leaves)
    assert lp is not None and lp.singular
    f = ta.Tensor(*[x ** n for x, n in leaves])
    lo, hi = lp.epsilon(1e-6, 1e-6, 1e-12)
    v = ta.epsilon(f, R(1, 10**6))
    assert lo == hi == v.lo == v.hi == mp.inf and v.guarantee == "certified"
    for d in (R(1, 10), R(1, 10**3), R(1, 10**4)):
        v = ta.epsilon(f, d, dps=30)
        assert v.route.startswith("exact finite composition") and v.guarantee == "certified"
        lo, hi = lp.epsilon(float(d), float(d), 1e-12)
        with mp.workdps(40):
            vlo, vhi = v.interval()
            assert lo <= vhi and vlo <= hi and hi - lo <= 1e-11 * hi, (d, lo, hi, v)
    for eps in (2.0, 9.0):
        lo, hi = lp.delta(eps, 1e-12)
        w = ta.delta(f, eps, dps=30)
        with mp.workdps(40):
            wlo, whi = w.interval()
            assert lo <= whi and wlo <= hi and hi - lo <= 1e-11 * hi


def _kov_epsilon(n: int, b: int, d0, D):
    """eps(D) of f_{log 3,0}^(n - b) (x) f_{log 3,d0}^b = f_{log 3,0}^n (x) f_{0,d0}^b:
    delta = 1 - (1 - d0)^b (1 - delta_bin), delta_bin the binomial sum of Kairouz, Oh &
    Viswanath over the j swapped outcomes (loss (n - 2j) log 3), at 60 digits."""
    with mp.workdps(60):
        e0, d0, D = mp.log(3), mp.mpf(d0.p) / d0.q, mp.mpf(D.p) / D.q
        keep = (1 - d0) ** b
        Dp = 1 - (1 - D) / keep  # the level of the binomial part
        p = mp.mpf(3) / 4
        q, g = p**n, mp.exp(-n * e0)
        A, B = [], []
        a = bb = mp.zero
        for j in range(n // 2 + 1):
            a, bb = a + q, bb + q * g
            A.append(a)
            B.append(bb)
            q, g = q * (n - j) / (j + 1) / 3, g * 9

        def at(m):  # delta_bin at the loss (n - 2m) e0: the j < m
            return A[m - 1] - mp.exp((n - 2 * m) * e0) * B[m - 1] if m > 0 else mp.zero

        lo, hi = 0, n // 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if at(mid) > Dp else (mid, hi)
        return mp.log((A[lo] - Dp) / B[lo])


def test_large_product_with_singular_atoms_against_kairouz_oh_viswanath():
    """RR(log 3, 2)^(10^4) as an explicit pair (x) f_{log 3, 1e-12}^(10^4) through the route:
    certified to 1e-9 and inside the binomial sum's value."""
    pair = ta.Discrete([R(1, 4), R(3, 4)], [R(3, 4), R(1, 4)])
    f = ta.Tensor(pair ** 10**4, ta.EpsDelta(sp.log(3), R(1, 10**12)) ** 10**4)
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**6), dps=20)
    assert v.route == "Arb lattice composition" and v.guarantee == "certified"
    assert v.hi - v.lo <= 1e-9 * v.hi
    ref = _kov_epsilon(2 * 10**4, 10**4, R(1, 10**12), R(1, 10**6))
    with mp.workdps(40):
        lo, hi = v.interval()
        assert lo <= ref <= hi, (v, ref)


@pytest.mark.parametrize("n", [10**5, pytest.param(10**6, marks=pytest.mark.slow)])
def test_mixed_products_through_the_route(n):
    """RR(log 3, 5)^n (x) f_{log 3, 1e-12}^n and (x) RR(log 9, 3)^n: certified, width <= 1e-9,
    and delta at the enclosure's ends brackets the level."""
    for other in (ta.EpsDelta(sp.log(3), 1e-12), ta.randomized_response(sp.log(9), 3)):
        f = ta.Tensor(ta.randomized_response(sp.log(3), 5) ** n, other ** n)
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**6), dps=15)
            assert v.route == "Arb lattice composition" and v.guarantee == "certified"
            assert 0 < v.hi - v.lo <= 1e-9 * v.hi
            lo = ta.delta(f, sp.Float(v.lo, 25), dps=15)
            hi = ta.delta(f, sp.Float(v.hi, 25), dps=15)
        assert lo.lo >= 1e-6 * (1 - 1e-9) and hi.hi <= 1e-6 * (1 + 1e-9)
