"""The power 1 - f(alpha) of lattice products from their Neyman-Pearson vertices
(``numeric.lattice_np``, ``numeric.lattice_np_plan``, the route of ``routes/lattice_curve.py``)
against independent references (``tests/references/np_lattice.py``): exact ``Fraction``
enumeration of the product law with the Neyman-Pearson test summed from the largest loss down,
and ``arb_poly`` powers of the one-step law at 200 bits for closed-form masses."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from flint import arb, fmpq
from references.np_lattice import (
    arb_np_power,
    dg_law_arb,
    exact_np_power,
    exact_power_law,
    rr_law_arb,
)

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.lattice_np import np_band, power_ball
from tradeoff_algebra.numeric.lattice_np_plan import tails_for
from tradeoff_algebra.numeric.lattice_power import LatticePower
from tradeoff_algebra.numeric.lattice_product import exact_fraction, mpf_fraction
from tradeoff_algebra.numeric.lattice_tilted import TiltedLatticePower
from tradeoff_algebra.routes.lattice_curve import ROUTE, lattice_curve_band, lattice_law
from tradeoff_algebra.routes.plan import route

R = sp.Rational

#: A pair with likelihood ratios 1/3, 1, 3 (rational masses: exact references).
P3 = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
Q3 = [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
KS = [-1, 0, 1]  # Q/P = 3^k


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _meets(lo, hi, ref: arb) -> bool:
    """[lo, hi] (mpfs) meets the ball ``ref``, decided in exact rationals."""
    return (mpf_fraction(lo) <= exact_fraction(arb(ref.upper()))
            and exact_fraction(arb(ref.lower())) <= mpf_fraction(hi))


def _contains(lo: arb, hi: arb, x: Fraction) -> bool:
    """lo <= x <= hi for exact arbs lo, hi, decided in exact rationals."""
    return exact_fraction(lo) <= x <= exact_fraction(hi)


LEVELS = [1e-4, 0.01, 0.1, 0.37, 0.5, 0.8, 0.99]


@pytest.mark.parametrize("kind", ["table", "tilted"])
def test_power_against_exact_enumeration(kind):
    n = 7
    law = (LatticePower(Fraction(3), KS, Q3, n) if kind == "table"
           else TiltedLatticePower(Fraction(3), KS, Q3, n))
    ref_law = exact_power_law(dict(zip(KS, Q3, strict=True)), n)
    t = tails_for(law, LEVELS, 1e-12)
    with working_precision(t.prec + 64):
        for a in LEVELS:
            lo, hi = power_ball(t, _q(Fraction(a)), a)
            ref = exact_np_power(ref_law, Fraction(3), Fraction(a))
            assert _contains(lo, hi, ref), (kind, a)
            assert float(hi - lo) <= 1e-11 * float(ref)


def test_power_at_a_vertex_exactly():
    """alpha at a vertex P(d >= m) (exact): the power is the vertex's Q(d >= m), and the
    balls cannot tell which segment holds alpha (both candidates are joined)."""
    n = 5
    law = LatticePower(Fraction(3), KS, Q3, n)
    ref_law = exact_power_law(dict(zip(KS, Q3, strict=True)), n)
    a = sum((q / Fraction(3) ** d for d, q in ref_law.items() if d >= 2), Fraction(0))
    t = tails_for(law, [float(a)], 1e-12)
    with working_precision(t.prec + 64):
        lo, hi = power_ball(t, _q(a), float(a))
    ref = sum((q for d, q in ref_law.items() if d >= 2), Fraction(0))
    assert ref == exact_np_power(ref_law, Fraction(3), a)
    assert _contains(lo, hi, ref)
    assert float(hi - lo) <= 1e-11


def _assert_powers_hold(law, masses, losses) -> None:
    """At every level of LEVELS the vertex power's ball holds the Arb power of the whole law
    (``masses``, ``losses``) and is at most 1e-10 of it wide."""
    t = tails_for(law, LEVELS, 1e-12)
    with working_precision(t.prec + 64):
        for a in LEVELS:
            lo, hi = power_ball(t, _q(Fraction(a)), a)
            ref = arb_np_power(masses, losses, Fraction(a))
            assert lo <= ref.upper() and ref.lower() <= hi, a
            assert float(hi - lo) <= 1e-10 * float(ref.mid())


@pytest.mark.parametrize("n", [8, 300])
def test_rr_lattice_product_against_arb_power(n):
    """RR(1/10, 3)^n as the exact lattice product (fixed-point tilted windows) against the whole
    law as an ``arb_poly`` power."""
    f = ta.TensorPower(ta.randomized_response(R(1, 10), 3), n)
    law = lattice_law(route(f)[1]) if route(f)[0] == "pld" else None
    if law is None:  # (a small power is a finite product: build the lattice product itself)
        from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor

        leaf = ta.randomized_response(R(1, 10), 3)
        law = LatticeProduct.build([(lattice_factor(leaf), n)])
    masses, losses = rr_law_arb(Fraction(1, 10), n)
    _assert_powers_hold(law, masses, losses)


def test_dg_product_against_arb_power():
    f = ta.TensorPower(ta.DiscreteGaussian(1, 3), 40)
    law = lattice_law(route(f)[1])
    assert law is not None
    masses, losses = dg_law_arb(3, 40)
    _assert_powers_hold(law, masses, losses)


def test_roc_route_and_curve_rr_1000():
    """ta.roc and ta.curve of RR(1/10, 3)^1000 answer by the vertices (certified) and hold the
    power of the whole law (an ``arb_poly`` power of 2001 coefficients)."""
    f = ta.TensorPower(ta.randomized_response(R(1, 10), 3), 1000)
    masses, losses = rr_law_arb(Fraction(1, 10), 1000)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, R(1, 100))
    assert v.guarantee == "certified" and ROUTE in v.route
    ref = arb_np_power(masses, losses, Fraction(1, 100))
    lo, hi = v.interval()
    assert float(hi - lo) <= 1e-9 * float(hi)
    assert _meets(lo, hi, ref) and float(ref.rad()) < 1e-30
    x = np.linspace(0, 1, 21)
    b = lattice_curve_band(f, x, 1e-6)
    assert b is not None and float(np.max(b.f_hi - b.f_lo)) <= 1e-6
    for i, a in enumerate(x):
        r = arb_np_power(masses, losses, Fraction(float(a))) if 0 < a < 1 else arb(a)
        assert b.power_lo[i] <= float(r.mid()) <= b.power_hi[i], a
    lo_c, hi_c = ta.curve(f, x, bounds=True)
    assert np.all(lo_c <= 1 - b.power_lo) and np.all(lo_c >= 0)


def test_value_route_and_singular_free_ends():
    """f(alpha) by the route is 1 - power; at alpha = 0 and 1 the band is exact."""
    f = ta.TensorPower(ta.DiscreteGaussian(1, 3), 40)
    masses, losses = dg_law_arb(3, 40)
    v = ta.evaluate(f, R(1, 10))
    assert ROUTE in v.route
    ref = arb_np_power(masses, losses, Fraction(1, 10))  # the power
    lo, hi = v.interval()
    with mp.workprec(256):  # (exact: 1 - an mpf of 53 bits)
        assert _meets(1 - hi, 1 - lo, ref) and float(ref.rad()) < 1e-30
    b = lattice_curve_band(f, np.array([0.0, 1.0]), 1e-6)
    assert b.f_lo[0] == b.f_hi[0] == 1.0 and b.f_lo[1] == b.f_hi[1] == 0.0


def test_band_is_certified_with_a_poor_plan():
    """A plan far too coarse for the levels still gives bands that hold the truth (the dropped
    mass is bounded after the fact), only wider."""
    n = 7
    law = TiltedLatticePower(Fraction(3), KS, Q3, n)
    ref_law = exact_power_law(dict(zip(KS, Q3, strict=True)), n)
    t = tails_for(law, [0.5], 1e-2)
    b = np_band(t, np.array(LEVELS))
    for i, a in enumerate(LEVELS):
        ref = float(exact_np_power(ref_law, Fraction(3), Fraction(a)))
        assert b.power_lo[i] <= ref <= b.power_hi[i]


@pytest.mark.parametrize("pair,n", [((P3, Q3), 100), ((P3, Q3), 1500),
                                    (([R(3, 7), R(1, 7), R(3, 7)], [R(1, 7), R(3, 7), R(3, 7)]),
                                     60)])
def test_cost_simulation_on_exponents_agrees(pair, n, monkeypatch):
    """The cost of an exact table whose likelihood ratios lie on one lattice, simulated on
    the exponents (``finite_cost._lattice_keys``), is the cost simulated on the rationals."""
    from tradeoff_algebra.numeric import finite_cost
    from tradeoff_algebra.numeric.finite import finite_loss

    P, Q = pair
    f = ta.TensorPower(ta.Discrete([R(x.numerator, x.denominator) if isinstance(x, Fraction)
                                    else x for x in P],
                                   [R(x.numerator, x.denominator) if isinstance(x, Fraction)
                                    else x for x in Q]), n)
    fast = finite_loss(f)._simulate(10**6) if finite_loss(f).cost(10**6) else None
    assert finite_cost._lattice_keys({(Fraction(3), ()), (Fraction(1, 3), ()),
                                      (Fraction(1), ())}) is not None
    monkeypatch.setattr(finite_cost, "_lattice_keys", lambda keys: None)
    slow = finite_loss(f)._simulate(10**6) if finite_loss(f).cost(10**6) else None
    assert fast == slow


def test_binomial_tails_against_exact_enumeration():
    """BinomialDP(log 3, n) = f_{log 3,0}^n: likelihood ratios 3^d, d = 2K - n (exact)."""
    from tradeoff_algebra.families.binomial_np import binomial_np_tails

    n = 40
    ref_law = exact_power_law({1: Fraction(3, 4), -1: Fraction(1, 4)}, n)
    t = binomial_np_tails(sp.log(3), n, LEVELS, 1e-12)
    assert t.lo == 0 and t.hi == n  # (the whole law)
    with working_precision(t.prec + 64):
        for a in LEVELS:
            lo, hi = power_ball(t, _q(Fraction(a)), a)
            ref = exact_np_power(ref_law, Fraction(3), Fraction(a))
            assert _contains(lo, hi, ref), a
            assert float(hi - lo) <= 1e-11 * float(ref)


def test_binomial_window_against_arb_power():
    """A window inside [0, n] (the tails above it from incomplete beta functions) against the
    whole binomial law as an ``arb_poly`` power at 200 bits."""
    from flint import arb_poly, ctx

    from tradeoff_algebra.families.binomial_np import binomial_np_tails

    n = 3000
    t = binomial_np_tails(sp.log(3), n, [0.01, 0.5], 1e-12)
    assert 0 < t.lo and t.hi < n
    old = ctx.prec
    ctx.prec = 200
    try:
        law = arb_poly([arb(1) / 4, arb(3) / 4]) ** n  # coefficient k: Q(K = k)
        masses = [law[k] for k in range(n + 1)]
        losses = [arb(3).log() * (2 * k - n) for k in range(n + 1)]
    finally:
        ctx.prec = old
    for a in (0.01, 0.2, 0.5):
        with working_precision(t.prec + 64):
            lo, hi = power_ball(t, _q(Fraction(a)), a)
        ref = arb_np_power(masses, losses, Fraction(a))
        assert _meets_arb(lo, hi, ref) and float(hi - lo) <= 1e-11
    f = ta.TensorPower(ta.EpsDelta(sp.log(3)), n)
    b = lattice_curve_band(f, np.array([0.0, 0.2, 1.0]), 1e-9)
    assert b is not None and b.power_lo[1] <= float(arb_np_power(masses, losses,
                                                                 Fraction(0.2)).mid()) \
        <= b.power_hi[1]


def _meets_arb(lo: arb, hi: arb, ref: arb) -> bool:
    return (exact_fraction(lo) <= exact_fraction(arb(ref.upper()))
            and exact_fraction(arb(ref.lower())) <= exact_fraction(hi))


@pytest.mark.parametrize("which", ["discrete", "epsdelta"])
def test_finite_band_against_enumeration(which):
    """The band of a finite product from its atoms (``numeric.finite_np``) against the exact
    Neyman-Pearson power of the enumerated product (singular parts included)."""
    from references.np_lattice import exact_pair_power

    if which == "discrete":
        P, Q, n = P3, Q3, 6
        f = ta.TensorPower(ta.Discrete([R(1, 2), R(1, 3), R(1, 6)],
                                       [R(1, 6), R(1, 3), R(1, 2)]), n)
    else:  # f_{log 3, 1/100}: the four atoms of Dong, Roth & Su's pair
        d, n = Fraction(1, 100), 4
        P = [d, (1 - d) * Fraction(3, 4), (1 - d) / 4, Fraction(0)]
        Q = [Fraction(0), (1 - d) / 4, (1 - d) * Fraction(3, 4), d]
        f = ta.TensorPower(ta.EpsDelta(sp.log(3), R(1, 100)), n)
    assert route(f)[0] == "finite"
    x = np.array([0.0, 1e-3, 0.01, 0.2, 0.5, 0.9, 1.0])
    b = lattice_curve_band(f, x, 1e-9)
    assert b is not None
    for i, a in enumerate(x):
        ref = float(exact_pair_power(P, Q, n, Fraction(float(a))))
        assert b.power_lo[i] <= ref <= b.power_hi[i], a
        assert b.f_hi[i] - b.f_lo[i] <= 1e-9


def test_a_whole_curve_respects_the_time_limit():
    """The vertex band of a large lattice product stops at the caller's time limit (the root's
    products and the levels' loop check it) with TimeLimitExceeded naming it."""
    f = ta.TensorPower(ta.randomized_response(R(1, 7), 3), 10**6)
    with pytest.raises(ta.TimeLimitExceeded):
        with ta.time_limit(0.005):
            ta.curve(f, np.linspace(0, 1, 2001), bounds=True)


def test_tilted_product_with_mass_off_the_other_law():
    """RR(log 3, 5)^2 (x) f_{log 3, 1/100}^2 as the tilted lattice product (Q-mass where P = 0:
    the singular part; P-mass where Q = 0: out of the laws) against the enumerated product."""
    from references.np_lattice import exact_pair_power

    from tradeoff_algebra.routes.plan import _lattice_product

    d = Fraction(1, 100)
    rr_p, rr_q = [Fraction(3, 7), Fraction(1, 7), Fraction(3, 7)], \
        [Fraction(1, 7), Fraction(3, 7), Fraction(3, 7)]
    fp = [d, (1 - d) * Fraction(3, 4), (1 - d) / 4, Fraction(0)]
    fq = [Fraction(0), (1 - d) / 4, (1 - d) * Fraction(3, 4), d]
    P = [a * b for a in rr_p for b in fp]
    Q = [a * b for a in rr_q for b in fq]
    leaves = ((ta.randomized_response(sp.log(3), 5), 2), (ta.EpsDelta(sp.log(3), R(1, 100)), 2))
    law = _lattice_product(leaves)
    assert law is not None and law.singular
    x = np.array([0.0, 1e-3, 0.05, 0.3, 0.6, 0.9, 0.97])
    t = tails_for(law, x[1:], 1e-10)
    b = np_band(t, x)
    for i, a in enumerate(x):
        ref = float(exact_pair_power(P, Q, 2, Fraction(float(a))))
        assert b.power_lo[i] <= ref <= b.power_hi[i], a
        assert b.power_hi[i] - b.power_lo[i] <= 1e-9, a


def test_block_suffixes_hold_the_whole_suffix_in_any_order():
    """The tilted window's suffix sums by blocks (``TiltedTails._suffix``: each from the
    nearest suffix above it) against the whole suffix as one ``arb_poly`` of R's coefficients
    at e^{-a step}, asked in a shuffled order (blocks up, down and between), for both
    exponents; and the curve of RR(1/10, 3)^1000 built on them against the whole law's
    ``arb_poly`` power (``references.np_lattice``)."""
    import random

    from flint import arb_poly

    from tradeoff_algebra.numeric.cf_laws import to_arb
    from tradeoff_algebra.numeric.lattice_np import TiltedTails

    f = ta.TensorPower(ta.randomized_response(R(1, 10), 3), 1000)
    law = lattice_law(route(f)[1])
    t = tails_for(law, [0.01, 0.5], 1e-9)
    assert isinstance(t, TiltedTails)
    rng = random.Random(5)
    with working_precision(t.prec + 64):
        for a in (t.c, t.c + 1):
            ks = rng.sample(range(t.n), 25) + [0, t.n - 1]
            for k in ks:
                A = to_arb(a)
                whole = arb_poly(t.R.right_shift(k) if k else t.R)((-A * t.step).exp())
                ref = t.kappa * (-A * t.loss(t.lo + k)).exp() * whole
                got = t._suffix(k, a)
                assert got.overlaps(ref)
                assert float(got.rad()) <= 1e-30 * float(abs(ref.mid())) + float(ref.rad())
    x = np.linspace(0, 1, 6)
    b = np_band(tails_for(law, [float(v) for v in x[1:-1]], 1e-9), x)
    masses, losses = rr_law_arb(Fraction(1, 10), 1000)
    for i, a in enumerate(x[1:-1], start=1):
        r = arb_np_power(masses, losses, Fraction(float(a)))
        assert b.power_lo[i] <= float(r.mid()) <= b.power_hi[i], a
        assert b.power_hi[i] - b.power_lo[i] <= 1e-9 * b.power_hi[i]
