"""A few replace-one DP-SGD steps by the cells of the step's loss composed on a lattice
(families/poisson_replace_cells.py, numeric/lattice_cells.py with cells of several grid steps
and a tilt).

References, by other routes:
* the cells' masses against the pair's own normal laws: they add up to 1 on both sides (the
  lower tail's rest at loss -oo, the upper tail's P-mass at +oo counted) and each cell's ratio
  b/a lies in its grid cells (the split needs it);
* two steps: the 40-digit mpmath quadrature of the two-step divergence
  (``test_poisson_replace_power._delta_two``, the threshold written independently): eps(1e-5)
  and, through the tilted lattice, delta(1) ~ 6e-27;
* three steps: the certified Laplace inversion at tol 1e-9 (a different certified method) holds
  a point of the cells' eps bracket, and the untilted and tilted lattices agree;
* dp_accounting's REPLACE_ONE pair: ``test_poisson_replace_power``'s slow
  ``test_few_steps_inside_the_dp_accounting_pair`` (eps(1e-5) at 3 and 10 steps answered here).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families import poisson_replace_cells as prc
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.lattice_cells import CellPower

R = sp.Rational
MU, Q = Fraction(1, 2), Fraction(1, 100)


def test_cells_are_the_pair():
    law = ReplaceLaw(MU, Q)
    D = 400
    with working_precision(64):
        groups = prc._widths(law, D, -120, 200, 30.0, math.log(1e-12))
        cells, m = prc.replace_cells(law, D, groups)
    assert any(k > 1 for _, _, _, k in cells)  # (some cells span several grid steps)
    with working_precision(96):
        sa = sum((a for a, _, _, _ in cells), arb(0))
        sb = sum((b for _, b, _, _ in cells), arb(0)) + m
        assert sa.overlaps(arb(1)) and sb.overlaps(arb(1)) and sa.rad() < 1e-20
        assert m >= 0 and m < 1e-15  # (the P-mass beyond the loss 1/2)
        for a, b, j, k in cells[2:-1]:  # (the tails' cells are split by construction)
            r = (b / a).log()
            assert arb(j) / D <= r and r <= arb(j + k) / D, (j, k, r)


def test_three_steps_eps_route_and_the_tight_inversion():
    """eps(1e-5) of three steps at sigma = 2 from the cells (certified, the route named),
    holding the certified inversion's ball at tol 1e-9; the tighter tolerance lies inside."""
    f = ta.PoissonReplace(R(1, 2), R(1, 100)) ** 3
    e = ta.epsilon(f, R(1, 10**5), dps=20)
    assert e.guarantee == "certified" and prc.REPLACE_CELLS_ROUTE in e.route
    assert float(e.hi - e.lo) <= 1e-4 * float(e.hi)
    with ta.pld_options(tol=1e-9):
        t = ta.epsilon(f, R(1, 10**5), dps=20)
    assert t.guarantee == "certified" and float(t.hi - t.lo) <= 1e-8 * float(t.hi)
    assert e.lo <= t.lo <= t.hi <= e.hi


def test_tilted_and_plain_lattices_agree():
    """The same cells composed untilted and tilted (c = 32): both brackets of eps(1e-5) of three
    steps are certified enclosures, so they meet, and both are narrow."""
    law = ReplaceLaw(MU, Q)
    with working_precision(64):
        D = 2000
        groups = prc._widths(law, D, -100, 600, 32.0, math.log(1e-14))
        cells, m = prc.replace_cells(law, D, groups)
        slack = 3 * max(float(m.upper()), 0.0)
        got = [CellPower(cells, 3, D, tilt=t).epsilon(1e-5 - slack, 1e-5)
               for t in (0, Fraction(32))]
    (a, b), (c, d) = got
    assert a <= d and c <= b
    assert b - a <= 1e-3 * b and d - c <= 1e-3 * d


def test_large_steps_decline():
    """Beyond the lattice's points (30 steps at sigma = 2) the cells decline at once."""
    law = ReplaceLaw(MU, Q)
    with working_precision(64):
        assert prc.replace_cells_enclosure(law, 30, "epsilon", 1e-5, 1e-5, 1.25e-4) is None
        assert law.cells_enclosure(3, "delta", 1.0, 1.0, 1.25e-4) is None  # (the inversion's)


@pytest.mark.slow  # (each 40-digit reference takes 15 to 25 s)
def test_two_steps_eps_brackets_the_quadrature():
    from test_poisson_replace_power import _delta_two

    law = ReplaceLaw(MU, Q)
    with working_precision(64):
        lo, hi = prc.replace_cells_enclosure(law, 2, "epsilon", 1e-5, 1e-5, 1.25e-4)
    assert hi - lo <= 1.25e-4 * hi
    assert _delta_two(MU, Q, lo) >= 1e-5 >= _delta_two(MU, Q, hi)


@pytest.mark.slow
def test_two_steps_tilted_delta_holds_the_quadrature():
    """delta(1) ~ 6e-27 of two steps at sigma = 2: far below 2^-62 of the untilted masses, kept
    by the tilt; the ball holds the 40-digit quadrature."""
    from test_poisson_replace_power import _delta_two

    law = ReplaceLaw(MU, Q)
    with working_precision(64):
        lo, hi = prc.replace_cells_enclosure(law, 2, "delta", 1.0, 1.0, 1.25e-4)
    ref = _delta_two(MU, Q, 1.0)
    assert lo <= ref <= hi and hi - lo <= 1.25e-4 * hi
