"""Blocks of grid factors composed on a fine grid and seen as one factor of a coarse grid
(``numeric.grid_nest``), against independent references: the enumerated atoms of the two-,
three- and four-fold Skellam products at 45 digits (mpmath Bessel functions,
``references.skellam_brute``), the coarse cells of a block of one pair computed from the pair's
own atoms (the same partition by another route), both masses of the double split summed, and the
one-level grid product (blocks of two) on the same coarse grid, whose enclosure must meet the
nested one's."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb
from references.skellam_brute import brute_delta

import tradeoff_algebra as ta
from tradeoff_algebra import Skellam
from tradeoff_algebra.numeric import grid_product
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.grid_nest import NestedBlock, nest_sizes
from tradeoff_algebra.numeric.grid_product import GridProduct, _Grid
from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor


def _bounds(factors, D: int, eps: Fraction, tol: float = 1e-12):
    grid = _Grid(factors, D)
    c, T, prec = grid.q._plan(float(eps), tol)
    with arb_precision(prec + 64):
        lo, hi = grid.bounds(eps, c, T, prec)
        a, z = lo.lower(), hi.upper()
    with mp.workdps(45):
        return mp.mpf(a.str(50, radius=False)), mp.mpf(z.str(50, radius=False))


@pytest.mark.parametrize("inner, blocks, eps", [
    ("pair", 1, Fraction(3, 4)), ("pair", 2, Fraction(3, 2)), ("pair", 2, Fraction(7, 3)),
    ("pair+one", 1, Fraction(5, 4))])
def test_nested_blocks_against_enumerated_atoms(inner, blocks, eps):
    """Skellam(1, 5)^k by nested blocks (fine grid 1/(4 * 512), coarse 1/512): one or two blocks
    of one pair (k = 2, 4), one block of a pair and a single factor (k = 3, the blocks of a
    power with an odd remainder): the enclosure holds the enumerated tuples' delta at 45
    digits (``references.skellam_brute``)."""
    g = lattice_factor(Skellam(1, 5))
    pair = g.block(2)
    inside = [(pair, 1)] + ([(g, 1)] if inner == "pair+one" else [])
    nb = NestedBlock(inside, 4, 512)
    k = blocks * (2 if inner == "pair" else 3)
    lo, hi = _bounds([(nb, blocks)], 512, eps)
    with mp.workdps(45):
        ref, err = brute_delta(1, mp.mpf(5), mp.mpf(eps.numerator) / eps.denominator, k)
        err += ref * mp.mpf(10) ** -38 + mp.mpf(10) ** -45
        assert lo <= ref + err and ref - err <= hi, (lo, ref, hi)
        assert hi - lo <= ref * 1e-3


def test_coarse_cells_of_one_pair_match_its_own_cells():
    """A block of one pair has coarse cells floor(floor(L D') / r) = floor(L D): its coarse
    views' integers (from the fine root and the weights e^{-c t/D'}) against the pair's own views
    on the coarse grid (from its atoms directly), at two tilts each."""
    pair = lattice_factor(Skellam(1, 5)).block(2)
    D, r = 256, 4
    nb = NestedBlock([(pair, 1)], r, D)
    h = Fraction(1, D)
    for mine, ref, tilts in zip(nb.views(h), pair.views(h), ((0.0, 1.25), (1.0, 2.25)),
                                strict=True):  # (the P-view at one more: its mgf at c - 1)
        for c in tilts:
            with arb_precision(200):
                a = mine.tilted(c, 80, -6 * D, 6 * D, Fraction(1))
                b = ref.tilted(c, 80, -6 * D, 6 * D, Fraction(1))
            assert len(a) == len(b)
            top = max(b)
            assert all(x <= y + 2 for x, y in zip(a, b, strict=True))  # (ties at the floors)
            assert sum(b) - sum(a) <= top * 2.0**-30
            assert sum(a) > 0


def test_double_split_keeps_both_masses_and_its_mgf_bound():
    """The coarse split view of a nested block: Q-masses m(y) summing to the block's Q-mass 1,
    P-masses m(y) e^{-h y} summing to 1 (each split keeps both masses), and the mgf ball above
    the integers' sum at a tilt and above the one-level split's mgf (a further spread)."""
    g = lattice_factor(Skellam(1, 5))
    pair = g.block(2)
    D = 128
    nb = NestedBlock([(pair, 2)], 4, D)
    s = nb.split_view(Fraction(1, D))
    with arb_precision(200):
        one = arb(2) ** 90
        ints = s.tilted(0.0, 90, -20 * D, 20 * D, Fraction(1))
        qm = arb(sum(ints)) / one
        pm = sum((arb(v) * (arb(20 * D - i) / D).exp() for i, v in enumerate(ints) if v),
                 arb(0)) / one  # m(y) e^{-h y}, y = i - 20 D
        for total in (qm, pm):
            assert total <= 1 and total > 1 - arb(2) ** -50, total
        ints = s.tilted(1.0, 90, -20 * D, 20 * D, Fraction(1))
        m = s.mgf_ball(arb(1))
        total = arb(sum(ints)) / one
        assert total <= m and m - total < arb(2) ** -50
        assert m > pair.mgf(arb(1)) ** 2


@pytest.mark.slow
def test_nested_narrower_than_blocks_and_consistent():
    """Skellam(1, 5)^48 at eps = 9 on one coarse grid: the nested enclosure (blocks of 8, fine
    grid twice as fine) meets the one-level one (blocks of two) and is at least twice as narrow
    (the coarse grid's error paid 6 times, the fine one's 24 times at a quarter: 3 units against
    6; measured 2.4 on the grid 1/1024)."""
    lp = LatticeProduct.build([(lattice_factor(Skellam(1, 5)), 48)])
    assert isinstance(lp, GridProduct)
    assert nest_sizes(48) == (8, 2)
    eps = Fraction(9)
    D = 512
    out = []
    for mode in ("blocked", "nested"):
        grid = lp.grid(D, mode)
        c, T, prec = grid.q._plan(float(eps), 1e-12)
        with arb_precision(prec + 64):
            lo, hi = grid.bounds(eps, c, T, prec)
            out.append((lo.lower(), hi.upper()))
    (a1, z1), (a2, z2) = out
    assert a1 <= z2 and a2 <= z1
    assert (z2 - a2) * 2 <= z1 - a1


def test_nest_sizes():
    assert nest_sizes(1000) == (40, 5)
    assert nest_sizes(100) == (10, 3)
    for n in (24, 37, 250, 999, 4096):
        m, r = nest_sizes(n)
        assert m % 2 == 0 and 2 <= m <= n and r >= 2
    with pytest.raises(ValueError, match="r=0"):
        NestedBlock([], 0, 5)


@pytest.mark.slow
def test_refined_grid_nests_large_powers():
    """Skellam(1, 5)^48, eps(1e-6) under tol 1e-8: the refined grid is nested, the answer
    certified, of relative width at most 1e-8, inside the first grid's enclosure."""
    f = Skellam(1, 5) ** 48
    lp = LatticeProduct.build([(lattice_factor(Skellam(1, 5)), 48)])
    assert lp.refined_mode() == "nested" and grid_product.NEST_MIN <= 48
    with ta.pld_options(tol=1e-8):
        v = ta.epsilon(f, 1e-6, dps=9)
    w = ta.epsilon(f, 1e-6, dps=4)
    assert v.guarantee == "certified"
    assert float(v.hi - v.lo) <= 1e-8 * float(v.hi)
    assert w.lo <= v.lo and v.hi <= w.hi


@pytest.mark.slow
def test_ten_fold_nested_against_the_one_level_route_at_a_fine_grid():
    """Skellam(1, 5)^10 at eps = 4.76 (delta about 1e-6): one nested block of five pairs on the
    coarse grid 1/4096 (fine 1/12288) against the one-level product of five pairs on 1/65536
    (another route, relative width 3.5e-9 measured): the two enclosures meet, the nested one
    of relative width at most 5e-7 (measured 2.2e-7; k h^2 (1/(4m) + 1/(8 r^2)) with m = 10,
    r = 3)."""
    pair = lattice_factor(Skellam(1, 5)).block(2)
    eps = Fraction(476, 100)
    ref_lo, ref_hi = _bounds([(pair, 5)], 1 << 16, eps)
    lo, hi = _bounds([(NestedBlock([(pair, 5)], 3, 1 << 12), 1)], 1 << 12, eps)
    assert lo <= ref_hi and ref_lo <= hi
    assert hi - lo <= 5e-7 * hi and ref_hi - ref_lo <= 1e-8 * ref_hi
