"""Products of Skellam mechanisms (a loss on no lattice) certified by cells of a fine grid with
exact P- and Q-masses (``numeric.grid_product``, the Skellam view ``families.skellam.
SkellamGrid``), against independent references: brute-force enumeration of the two-fold
product's atom pairs at 45 digits (mpmath Bessel functions), the PLD engine's enclosure and
dp_accounting's pessimistic PLD (sanity)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra import DiscreteGaussian, DiscreteLaplace, Skellam
from tradeoff_algebra.families.skellam import SkellamGrid
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.grid_product import GridProduct
from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor

ROUTE = "exact lattice product (integers, certified)"


def _atoms(d: int, mu, K: int):
    """(L, Q) of the Skellam pair's atoms x in [d - K, K] at the working precision (Q(x) =
    p(x - d), so y = x - d in [-K, K - d]), and a bound of the Q-mass outside: the sums of
    p(y) over y >= K - d + 1 and y <= -K - 1, each at most its first term over 1 - mu/(n + 1)
    (the ratio bound of the module ``skellam``)."""
    z = 2 * mu
    p = {x: mp.exp(-z) * mp.besseli(abs(x), z) for x in range(-K - d - 1, K + d + 2)}
    out = [(mp.log(p[x - d] / p[x]), p[x - d]) for x in range(-K + d, K + 1)]
    a, b = K - d + 1, K + 1
    tail = p[a] / (1 - mu / (a + 1)) + p[b] / (1 - mu / (b + 1))
    return out, tail


def brute_delta_pair(d: int, mu, eps, K: int = 45):
    """delta(eps) of Skellam(d, mu)^2 by enumerating the atom pairs, with the bound of the
    mass left out (Prop. 6: the sum of Q (1 - e^{eps - L})_+, each term at most Q)."""
    atoms, tail = _atoms(d, mu, K)
    total = mp.zero
    for l1, q1 in atoms:
        for l2, q2 in atoms:
            s = l1 + l2
            if s > eps:
                total += q1 * q2 * -mp.expm1(eps - s)
    return total, 2 * tail


def test_two_fold_against_brute_force():
    f = Skellam(1, 5) ** 2
    assert ROUTE in [r.name for r in __import__(
        "tradeoff_algebra.routes.product", fromlist=["routes_for"]).routes_for(f, "delta")]
    for eps in (sp.Rational(1, 2), sp.Integer(2)):
        v = ta.delta(f, eps)
        assert v.guarantee == "certified" and v.route == ROUTE
        lo, hi = v.interval()
        with mp.workdps(45):  # (6400 terms: the sum is good to about 40 digits)
            ref, err = brute_delta_pair(1, mp.mpf(5), mp.mpf(eps.p) / eps.q)
            err += ref * mp.mpf(10) ** -38
            assert lo <= ref + err and ref - err <= hi
            assert (hi - lo) <= ref * mp.mpf(10) ** -4  # second order in the grid


def test_ten_fold_inside_the_pld_enclosure_and_below_dp_accounting():
    f = Skellam(1, 5) ** 10
    v = ta.epsilon(f, sp.Rational(1, 10**6), dps=10)
    assert v.guarantee == "certified" and v.route == ROUTE
    lo, hi = v.interval()
    assert hi - lo <= hi * mp.mpf(10) ** -4
    # the PLD engine's enclosure (an estimate, measured): [4.757518, 4.759640]
    assert lo <= 4.759640 and hi >= 4.757518
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm
    from scipy.special import ive

    mu = 5.0
    K = int(mu + 20 * math.sqrt(2 * mu) + 40)
    logp = {x: math.log(ive(abs(x), 2 * mu)) for x in range(-K, K + 1)}
    one = pldm.from_two_probability_mass_functions(
        logp, {x + 1: w for x, w in logp.items()}, value_discretization_interval=1e-4)
    theirs = one.self_compose(10).get_epsilon_for_delta(1e-6)
    assert float(lo) <= theirs <= float(hi) + 1e-3 and dpa is not None


def test_mixed_with_lattice_factors_against_brute_force():
    """Skellam(1, 5) (x) DiscreteLaplace(3, 2): the discrete Laplace's four atoms (loss
    (2y - 3)/2) paired with the Skellam atoms, enumerated at 45 digits."""
    f = Skellam(1, 5) @ DiscreteLaplace(3, 2)
    v = ta.delta(f, 1)
    assert v.guarantee == "certified" and v.route == ROUTE
    lo, hi = v.interval()
    with mp.workdps(45):
        atoms, tail = _atoms(1, mp.mpf(5), 45)
        r = mp.exp(-mp.mpf(1) / 2)
        c = (1 - r) / (1 + r)
        dl = [(mp.mpf(2 * y - 3) / 2, c * r ** (3 - y)) for y in range(4)]
        dl[0] = (mp.mpf(-3) / 2, r**3 / (1 + r))
        dl[3] = (mp.mpf(3) / 2, 1 / (1 + r))
        ref = sum(q1 * q2 * -mp.expm1(1 - l1 - l2) for l1, q1 in atoms for l2, q2 in dl
                  if l1 + l2 > 1)
        err = 2 * tail + ref * mp.mpf(10) ** -38
        assert lo <= ref + err and ref - err <= hi
        assert hi - lo <= ref * mp.mpf(10) ** -4


def test_views_bound_the_cells():
    """The Q- and P-views' integers are lower bounds of the cells' tilted masses, and their mgf
    balls upper bounds; the cells' masses add up to 1 and to E_Q[e^{-L}] = 1."""
    g = lattice_factor(Skellam(1, 5))
    assert isinstance(g, SkellamGrid)
    h = Fraction(1, 512)
    q, p = g.views(h)
    with arb_precision(200):
        for view in (q, p):
            ints = view.tilted(0.0, 100, -2000, 2000, Fraction(1))
            total = arb(sum(ints)) / arb(2) ** 100
            assert total <= 1 and total > 1 - arb(2) ** -60
        assert q.mgf_ball(arb(0)).contains(1)
        # at tilt 1 the P-view's cells sum P(x) e^{h y(x)} <= sum P(x) e^{L(x)} = 1: the mgf
        # ball lies above the integers' sum, below 1, and within the window's dropped mass
        ints = p.tilted(1.0, 100, -2000, 2000, Fraction(1))
        total = arb(sum(ints)) / arb(2) ** 100
        m = p.mgf_ball(arb(1))
        assert total <= m and m <= 1 and m - total < arb(2) ** -60
        assert m < 1 - arb(2) ** -20  # (the cells' deficit: h y < L)
    lp = LatticeProduct.build([(g, 3)])
    assert isinstance(lp, GridProduct) and lp.fits()
    assert not LatticeProduct.build([(g, 10**4)]).fits()  # rho_tot too wide: the PLD answers


def test_large_powers_left_to_the_pld_engine():
    f = Skellam(1, 5) ** 10**4
    names = [r.name for r in __import__(
        "tradeoff_algebra.routes.product", fromlist=["routes_for"]).routes_for(f, "epsilon")]
    assert ROUTE not in names
    mixed = Skellam(1, 5) ** 3 @ DiscreteGaussian(1, sp.sqrt(2))
    v = ta.delta(mixed, 2, dps=10)
    assert v.guarantee == "certified"


def test_tighter_tolerance_never_wider():
    f = Skellam(1, 5) ** 2
    widths = []
    for dps in (6, 12, 20):
        v = ta.epsilon(f, sp.Rational(1, 10**6), dps=dps)
        assert v.guarantee == "certified"
        lo, hi = v.interval()
        widths.append(hi - lo)
    assert widths[0] >= widths[1] >= widths[2]


def test_a_plan_that_overflows_hands_the_question_on():
    """DL(2, 1/2)^10 (x) Skellam(1, 5) at delta = 1e-6: the tilt of the grid product's float
    plan ran to the far tail of the (unbounded) Skellam loss and overflowed (an InternalError
    from the README's example); the route now hands the question on, and the answer's ends
    bracket the level by delta computed on its own."""
    f = ta.discrete_laplace(2, sp.Rational(1, 2)) ** 10 @ ta.skellam(1, 5)
    v = ta.epsilon(f, 1e-6, dps=6)
    assert 41 < v.lo <= v.hi < 41.2
    assert ta.delta(f, v.lo * (1 - 1e-3)).lo > 1e-6 > ta.delta(f, v.hi * (1 + 1e-3)).hi
