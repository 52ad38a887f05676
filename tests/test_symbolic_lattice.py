"""k-ary randomized response composed n times with closed-form masses (e^eps irrational): the
Arb lattice composition (``numeric.lattice_power.symbolic_lattice_pair``) and, for a rational
eps, the exact lattice product (``FiniteLatticeFactor`` in ``numeric.lattice_product``) against
the multinomial sums at 50 digits computed here independently (Dong, Roth & Su, Prop. 6), and
against each other at large n."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.lattice_power import (
    FiniteLatticeFactor,
    LatticePower,
    symbolic_lattice_pair,
)
from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor
from tradeoff_algebra.routes.plan import lattice_power, route

R = sp.Rational


def _reference_delta(eps0, k: int, n: int, eps):
    """delta(eps) = sum over (a, b, c) of the multinomial P-mass times (1 - e^{eps - (a - c)
    eps0})_+: a reports of the true value (ratio e^eps0), c of the neighbour's (e^-eps0), b of
    the k - 2 others (ratio 1)."""
    with mp.workdps(50):
        e0 = mp.mpf(sp.N(eps0, 60))
        z = mp.exp(e0) + k - 1
        pa, pb, pc = mp.exp(e0) / z, (k - 2) / z, 1 / z
        e = mp.mpf(sp.N(eps, 60))
        total = mp.zero
        for a in range(n + 1):
            for c in range(n - a + 1):
                loss = (a - c) * e0
                if loss <= e:
                    continue
                b = n - a - c
                m = mp.factorial(n) / (mp.factorial(a) * mp.factorial(b) * mp.factorial(c))
                total += m * pa**a * pb**b * pc**c * (1 - mp.exp(e - loss))
        return total


@pytest.mark.parametrize("eps0, k, n", [(1, 3, 64), pytest.param(sp.log(3), 5, 200,
                                                                    marks=pytest.mark.slow),
                                        (R(1, 2), 4, 80)])
def test_delta_against_the_multinomial_sum(eps0, k, n):
    f = ta.randomized_response(eps0, k) ** n
    assert route(f)[0] == "pld" and lattice_power(route(f)[1]) is not None
    for eps in (R(1, 2), 3, 10):
        ref = _reference_delta(eps0, k, n, eps)
        with ta.pld_options(tol=1e-9):
            v = ta.delta(f, eps)
        assert v.guarantee == "certified"
        # (an enclosure holds the reference; a point, the exact finite route's 30 digits,
        # holds it within half a unit of its last digit)
        with mp.workdps(60):
            lo, hi = v.interval()
            assert lo <= ref <= hi
            assert hi - lo <= 1e-9 * ref


def test_epsilon_brackets_the_reference():
    """eps(d) lies where the independent delta crosses d: delta(lo) >= d >= delta(hi)."""
    f = ta.randomized_response(1, 3) ** 64
    d = R(1, 10**6)
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, d)
    assert v.guarantee == "certified" and v.hi - v.lo <= 1e-9 * v.hi
    below = _reference_delta(1, 3, 64, sp.Rational(str(mp.nstr(v.lo * (1 - 1e-8), 30))))
    above = _reference_delta(1, 3, 64, sp.Rational(str(mp.nstr(v.hi * (1 + 1e-8), 30))))
    assert below > mp.mpf(1e-6) > above


def test_tighter_tolerance_is_never_wider():
    f = ta.randomized_response(sp.log(3), 5) ** 300
    widths = []
    for tol in (5e-4, 1e-6, 1e-9):
        with ta.pld_options(tol=tol):
            v = ta.delta(f, 20)
        widths.append(v.hi - v.lo)
    assert widths[0] >= widths[1] >= widths[2]


def test_pairs_off_a_lattice_are_not_taken():
    """Ratios 2 and 3 are not integer powers of one number; a zero mass is an infinite loss."""
    assert symbolic_lattice_pair([R(1, 6), R(1, 6), R(2, 3)],
                                 [R(1, 3), R(1, 2), R(1, 6)]) is None
    assert symbolic_lattice_pair([sp.S(1) / 2, sp.S(1) / 2], [sp.S(1), sp.S(0)]) is None
    E = sp.exp(1)
    base, ks, qs = symbolic_lattice_pair([E / (E + 2), 1 / (E + 2), 1 / (E + 2)],
                                         [1 / (E + 2), E / (E + 2), 1 / (E + 2)])
    assert sp.simplify(base - E) == 0 and sorted(ks) == [-1, 0, 1]


@pytest.mark.parametrize("eps0, k, n", [(1, 3, 64), (R(1, 2), 4, 80)])
def test_the_lattice_product_view_against_the_multinomial_sum(eps0, k, n):
    """The exact lattice product of the pair's lattice view (rational eps) holds the sums."""
    leaf = ta.randomized_response(eps0, k)
    view = lattice_factor(leaf)
    assert isinstance(view, FiniteLatticeFactor) and view.step == sp.Rational(eps0)
    lp = LatticeProduct.build([(view, n)])
    for eps in (R(1, 2), 3, 10):
        ref = _reference_delta(eps0, k, n, eps)
        lo, hi = lp.enclosure("delta", mp.mpf(eps.p) / eps.q if isinstance(eps, sp.Rational)
                              else mp.mpf(eps), 1e-12)
        with mp.workdps(60):
            assert lo <= ref <= hi and hi - lo <= 1e-11 * ref


def test_the_two_lattice_routes_agree_at_large_n():
    """RR(1, 3)^3000: the Arb polynomial power (LatticePower) and the tilted integer product
    (LatticeProduct) - two computations of one lattice law - give intersecting enclosures."""
    leaf, n = ta.randomized_response(1, 3), 3000
    (pairs, _), = __import__("tradeoff_algebra.numeric.finite", fromlist=["finite_loss"]
                             ).finite_loss(leaf).leaves()
    base, ks, qs = symbolic_lattice_pair([p for p, _ in pairs], [q for _, q in pairs])
    power = LatticePower(base, ks, qs, n)
    lp = LatticeProduct.build([(lattice_factor(leaf), n)])
    for eps in (100.0, 600.0, 1200.0):
        a_lo, a_hi = power.delta(eps, 1e-12)
        b_lo, b_hi = lp.enclosure("delta", mp.mpf(eps), 1e-12)
        assert a_lo <= b_hi and b_lo <= a_hi
        assert b_hi - b_lo <= 1e-11 * b_hi


def test_rational_eps_at_a_million_steps_is_certified():
    f = ta.randomized_response(1, 3) ** 10**6
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**6))
    assert v.guarantee == "certified" and v.hi - v.lo <= 1e-9 * v.hi
    # the eps(d) bracket: delta just below lo exceeds d, just above hi does not
    assert ta.delta(f, v.lo * (1 - 1e-9)).lo > 1e-6 > ta.delta(f, v.hi * (1 + 1e-9)).hi


def test_an_asymmetric_lattice_pair_against_its_direct_sum():
    """Ratios e^2, 1, e^-1 (not a symmetric pair: the direction of the loss matters): the
    lattice product of its view against sum over (a, b, c) of the multinomial (Q - e^eps P)_+
    at 50 digits."""
    E = sp.E
    x = R(1, 20)
    z = E * (E + 1) / 20
    P = [x, 1 - x - z, z]
    Q = [x * E**2, 1 - x - z, z / E]
    f = ta.Discrete(P, Q)
    view = lattice_factor(f)
    assert isinstance(view, FiniteLatticeFactor) and view.ys == [-1, 0, 2]
    n = 40
    lp = LatticeProduct.build([(view, n)])
    with mp.workdps(50):
        p = [mp.mpf(sp.N(v, 60)) for v in P]
        q = [mp.mpf(sp.N(v, 60)) for v in Q]
    for eps in (R(1, 2), R(5), R(20)):
        with mp.workdps(50):
            e = mp.exp(mp.mpf(eps.p) / eps.q)
            ref = mp.zero
            for a in range(n + 1):
                for c in range(n - a + 1):
                    b = n - a - c
                    m = mp.factorial(n) / (mp.factorial(a) * mp.factorial(b) * mp.factorial(c))
                    ref += m * max(q[0]**a * q[1]**b * q[2]**c - e * p[0]**a * p[1]**b
                                   * p[2]**c, 0)
        lo, hi = lp.enclosure("delta", mp.mpf(eps.p) / eps.q, 1e-12)
        with mp.workdps(50):
            assert lo <= ref <= hi and hi - lo <= 1e-11 * ref
