"""A few steps of the Poisson-subsampled Laplace mechanism by the cells of its loss composed on a
lattice (numeric/lattice_cells.py, families/laplace_sampled.py ``loss_cells``): the cells
against the pair's closed forms; delta and eps against the x-space quadrature of
tests/references/sampled_laplace.py (one step, 30 digits), against the certified Laplace
inversion at width 1e-9 (a different certified method, two to ten steps), and against
dp_accounting's optimistic/pessimistic PLD bracket (ten steps, slow)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import sampled_laplace_law
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.lattice_cells import (
    BITS,
    CELLS_ROUTE,
    MAX_POINTS,
    CellPower,
    _fixed,
    _power,
    cells_enclosure,
)

MU, P = F(1), F(1, 100)


def _law(direction: str):
    return sampled_laplace_law(MU, P, direction)


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("D", [997, 2738])
def test_cells_are_the_pair(direction, D):
    """The cells' masses add up to 1 on both sides, and each cell's ratio b/a lies in its grid
    cell [e^{j/D}, e^{(j+1)/D}] (the split needs it)."""
    with working_precision(128):
        cells = _law(direction).loss_cells(D)
        sa = sum((a for a, _, _ in cells), arb(0))
        sb = sum((b for _, b, _ in cells), arb(0))
        assert sa.overlaps(arb(1)) and sb.overlaps(arb(1)) and sa.rad() < 1e-30
        for a, b, j in cells:
            r = (b / a).log()
            assert arb(j) / D <= r and r <= arb(j + 1) / D, (j, r)


def _ref_delta(direction: str, eps: float):
    """delta(eps) of one step by the x-space quadrature (30 digits)."""
    from references.sampled_laplace import sampled_laplace_delta_one

    with mp.workdps(30):
        return sampled_laplace_delta_one(mp.mpf(1), mp.mpf(1) / 100, direction, mp.mpf(eps))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("eps", [0.002, 0.004, 0.012])
def test_delta_against_quadrature(direction, eps):
    """delta(eps) of one step: the bounds hold the quadrature and are 1e-3 narrow."""
    got = cells_enclosure(_law(direction), 1, "delta", eps, eps, 1e-3)
    assert got is not None
    lo, hi = got
    ref = _ref_delta(direction, eps)
    assert lo <= ref <= hi and hi - lo <= 1e-3 * hi


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_epsilon_against_quadrature(direction):
    """eps(1e-3) of one step: the quadrature's delta brackets the level at the two ends."""
    lo, hi = cells_enclosure(_law(direction), 1, "epsilon", 1e-3, 1e-3, 1.25e-4)
    assert 0 < lo < hi and hi - lo <= 1.25e-4 * hi
    assert _ref_delta(direction, lo) > mp.mpf("1e-3") > _ref_delta(direction, hi)


@pytest.mark.parametrize("T", [2, 5, pytest.param(10, marks=pytest.mark.slow)])
def test_epsilon_contains_the_inversion(T):
    """eps(1e-5) of T steps (remove): contains the certified inversion's 1e-9 enclosure."""
    lo, hi = cells_enclosure(_law("remove"), T, "epsilon", 1e-5, 1e-5, 1.25e-4)
    f = ta.Mix(ta.Laplace(1), sp.Rational(1, 100)) ** T
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    assert v.guarantee == "certified" and CELLS_ROUTE not in (v.route or "")
    assert lo <= v.lo and v.hi <= hi and hi - lo <= 1.25e-4 * hi


def test_the_route_at_the_default_tolerance():
    """The add/remove hull of three steps at the default tolerance: the loss cells (this
    route, or the hull's own eps from the same cells, ``routes.hull_cells``), certified,
    within the tolerance; a tighter tolerance is left to the inversion (narrower), which the
    enclosure contains."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 3
    v = ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    assert v.guarantee == "certified" and CELLS_ROUTE.split(" (")[0] in (v.route or "")
    assert v.hi - v.lo <= 5e-4 * v.hi
    with ta.pld_options(tol=1e-9):
        w = ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    assert CELLS_ROUTE not in (w.route or "") and v.lo <= w.lo <= w.hi <= v.hi


def test_declined_beyond_its_size():
    """Beyond MAX_POINTS lattice points (many steps, or a tight width) it answers None at
    once."""
    assert cells_enclosure(_law("remove"), 1000, "epsilon", 1e-5, 1e-5, 1.25e-4) is None
    assert cells_enclosure(_law("remove"), 10, "epsilon", 1e-5, 1e-5, 1e-9) is None
    assert MAX_POINTS < 1000 * 96


def test_fixed_point_rounds_outward():
    """The split power's total mass is at least the exact total (every rounding up), the test
    power's B-mass at most 1 and A-mass at least 1."""
    with working_precision(128):
        cells = _law("remove").loss_cells(997)
        cp = CellPower(cells, 4, 997)
        tot_u = arb(cp.u(1)) * arb(2) ** (-cp.eu)
        tot_b = arb(cp.bq(1)) * arb(2) ** (-cp.eb)
        tot_a = arb(cp.ap(1)) * arb(2) ** (-cp.ea)
        assert tot_u >= 1 and tot_a >= 1 and tot_b <= 1
        # one step's masses are rounded to units 2^-(BITS - 2) (two per cell for the split),
        # each used 4 times in the power; each of the two products (T = 4) moves each of at
        # most n coefficients by one unit, at most 2^-(BITS - 1) of the total mass (its sum is
        # kept below 2^BITS and at least 2^(BITS - 1) units)
        n = cp.u.length()
        bound = (4 * 2 * len(cells) * 4 + 2 * n * 2) * arb(2) ** -BITS
        assert tot_u - 1 < bound and 1 - tot_b < bound and tot_a - 1 < bound


def test_fixed_point_of_a_ball_by_its_exact_ends():
    """ceil / floor of x 2^k from the ball's exact ends by integer shifts against the same in
    exact rationals (the ends' Fractions): balls of every sign and size, exact binary numbers
    on the integer boundaries, zero."""
    import random

    rng = random.Random(7)
    with working_precision(128):
        for _ in range(3000):
            kind = rng.random()
            if kind < 0.1:
                x = arb(rng.randint(0, 2 ** 40)) * arb(2) ** -rng.randint(0, 70)  # (exact)
            elif kind < 0.15:
                x = arb(0)
            else:
                x = (arb(rng.random()) * rng.randint(1, 10 ** 9) / rng.randint(1, 10 ** 12)).exp()
                x = x * arb(2) ** -rng.randint(1, 120) * (-1 if rng.random() < 0.2 else 1)
            k = rng.randint(0, 130)
            for up in (True, False):
                m, e = (x.upper() if up else x.lower()).man_exp()
                end = F(int(m)) * F(2) ** int(e) * 2 ** k
                want = max(0, math.ceil(end) if up else math.floor(end))
                assert _fixed(x, k, up) == want, (x, k, up)


@pytest.mark.parametrize("T", [1, 2, 7, 20])
@pytest.mark.parametrize("up", [True, False])
def test_packed_power_brackets_the_exact_power(T, up):
    """The Kronecker-packed power with its roundings against the exact power (flint's
    fmpz_poly, no rounding): coefficient-wise above it (``up``) or below, each coefficient
    within (number of products) 2^-(BITS - 2) of the total mass (each product's rounding is
    one unit, at most 2^-(BITS - 1) of its total, carried on by the other factors' masses)."""
    import random

    from flint import fmpz_poly

    rng = random.Random(T)
    e = BITS - 2
    c = [rng.randrange(1, 1 << (e - 7)) for _ in range(97)]  # total below 2^(e - 0.4)
    P, E, floats = _power(c, e, T, up)
    exact = fmpz_poly(c) ** T  # masses exact / 2^(e T)
    assert P.length() <= exact.length() == len(floats)  # (rounded-down zeros at the top)
    shift = e * T - E  # P 2^-E against exact 2^-(eT): compare P 2^shift with exact
    assert shift >= 0
    products = 2 * T.bit_length()
    slack = products * int(exact(1)) >> (BITS - 2)
    for i in range(exact.length()):
        a, x = int(P[i]) << shift, int(exact[i])
        if up:
            assert x <= a <= x + slack
        else:
            assert x - slack <= a <= x
        assert abs(floats[i] - int(P[i]) * 2.0 ** -E) <= 1e-15 * max(1.0, floats[i])


@pytest.mark.parametrize("T", [2, 7, 20])
@pytest.mark.parametrize("up", [True, False])
def test_cut_power_moves_its_top_to_infinity(T, up):
    """The packed power with its top cut (``drop``) against the exact power (flint's fmpz_poly):
    a geometric tail of 200 points, so the cut takes most of the exact power's length. A cut
    moves mass up (to +oo) and the products carry that on, so the bound is on every suffix sum
    (first-order dominance, what the profile and the tests read): ``up``, the kept suffix plus
    the mass M at +oo at least the exact suffix; else the kept suffix at most the exact one;
    and each within the roundings and the cuts (2^-drop of the total a cut) of it."""
    from flint import fmpz_poly

    from tradeoff_algebra.numeric.lattice_cells import _power_array

    e = BITS - 2
    c = [(1 << (e - 9)) >> min(k, e - 10) for k in range(200)]  # halving masses
    drop = 30
    arr, E, M = _power_array(c, e, T, up, drop)
    exact = fmpz_poly(c) ** T
    n, N = len(arr), exact.length()
    assert n < N // 2
    shift = e * T - E
    products = 2 * T.bit_length()
    tot = int(exact(1))
    slack = N * products * tot >> (BITS - 2)  # (the roundings, summed over the coefficients)
    cuts = 2 * products * tot >> drop
    kept = [int(v) << shift for v in arr] + [0] * (N - n)
    m = M << shift if up else 0  # (a lower bound drops the cut mass)
    suf_k, suf_x = m, 0
    for i in range(N - 1, -1, -1):
        suf_k += kept[i]
        suf_x += int(exact[i])
        if up:
            assert suf_x <= suf_k <= suf_x + slack + cuts, i
        else:
            assert suf_x - slack - cuts <= suf_k <= suf_x, i
    assert 0 < sum(int(exact[i]) for i in range(n, N)) <= cuts


@pytest.mark.slow
def test_ten_steps_inside_dp_accountings_bracket():
    """eps(1e-5) of ten steps (add/remove): our enclosure meets dp_accounting's
    [optimistic, pessimistic] PLD bracket (grid 1e-5)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    def eps(pessimistic: bool) -> float:
        one = pld.from_laplace_mechanism(1.0, sensitivity=1.0, sampling_prob=0.01,
                                         pessimistic_estimate=pessimistic,
                                         value_discretization_interval=1e-5)
        return one.self_compose(10).get_epsilon_for_delta(1e-5)

    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 10
    v = ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    assert CELLS_ROUTE.split(" (")[0] in (v.route or "")
    opt, pess = eps(False), eps(True)
    assert opt <= pess
    assert float(v.lo) <= pess * (1 + 1e-12) and float(v.hi) >= opt * (1 - 1e-12)
    assert math.isfinite(opt)


def test_epsilon_zero_above_the_total_variation():
    """A level above delta(0) (one step's total variation, far below 1/2): eps = 0, proved by
    the split bound at 0."""
    assert cells_enclosure(_law("remove"), 3, "epsilon", 0.5, 0.5, 1.25e-4) == (0.0, 0.0)
    assert _ref_delta("remove", 0.0) < mp.mpf(1) / 2


@pytest.mark.parametrize("delta", [1e-5, 1e-10])
def test_hundred_steps_contain_the_inversion(delta):
    """eps(delta) of 100 steps (remove) at the default tolerance's width, now inside
    MAX_POINTS at 48 bits: contains the certified Laplace inversion's 1e-9 enclosure (a
    different certified method), and meets the width asked (delta = 1e-10: the fixed point's
    rounding the farthest from negligible)."""
    assert 100 * 96 <= MAX_POINTS
    got = cells_enclosure(_law("remove"), 100, "epsilon", delta, delta, 1.25e-4)
    assert got is not None
    lo, hi = got
    f = ta.Mix(ta.Laplace(1), sp.Rational(1, 100)) ** 100
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, sp.Rational(delta), dps=15)
    assert v.guarantee == "certified" and CELLS_ROUTE not in (v.route or "")
    assert lo <= v.lo and v.hi <= hi and hi - lo <= 1.25e-4 * hi


@pytest.mark.slow
def test_hundred_steps_inside_dp_accountings_bracket():
    """eps(1e-5) of 100 steps (add/remove) at the default tolerance by this route, certified:
    it meets dp_accounting's [optimistic, pessimistic] PLD bracket (grid 1e-5)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    def eps(pessimistic: bool) -> float:
        one = pld.from_laplace_mechanism(1.0, sensitivity=1.0, sampling_prob=0.01,
                                         pessimistic_estimate=pessimistic,
                                         value_discretization_interval=1e-5)
        return one.self_compose(100).get_epsilon_for_delta(1e-5)

    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 100
    v = ta.epsilon(f, sp.Rational(1, 10**5), dps=15)
    assert v.guarantee == "certified" and CELLS_ROUTE.split(" (")[0] in (v.route or "")
    assert v.hi - v.lo <= 5e-4 * v.hi
    opt, pess = eps(False), eps(True)
    assert math.isfinite(opt) and opt <= pess
    assert float(v.lo) <= pess * (1 + 1e-12) and float(v.hi) >= opt * (1 - 1e-12)
