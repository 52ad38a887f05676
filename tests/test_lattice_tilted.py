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
