"""numeric.cells_atoms: the atoms' products of the subsampled Laplace pair kept whole in the curve
band's support lines.

References, each by another route than the code checked:
* the atoms' split power S^T (integers, rounded down) against the exact Arb power of the atoms'
  split polynomial at 200 bits: every suffix sum at most the exact one, within a unit a slot;
* T = 2: brute-force Neyman-Pearson of the product in x-space at 30 digits
  (``test_cells_curve._two_step_power``, randomised on the atoms) at levels on the linear
  pieces of the curve that the atoms' products make (both directions): inside the band, whose
  upper side there is second order in the grid step where the split alone was first order;
* T = 10: the band with the atoms apart holds the band of a four times finer grid without
  them (both certified) at the level on the atom 8 l_0 + 2 l_1; the route's curve at 1e-9
  certified within 1e-9 without a warning (slow).
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, arb_poly, ctx
from test_cells_curve import _two_step_power

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric.cells_atoms import AtomLines
from tradeoff_algebra.numeric.cells_curve import CellCurve, _power, loss_range, widths
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.routes.engines import _law
from tradeoff_algebra.routes.profile_curve import _cells_law

P = sp.Rational(1, 3)


def _atoms(law) -> tuple:
    """The law's atoms as balls at 128 bits (as ``cells_band`` asks them)."""
    with working_precision(128):
        return law.loss_atoms()


def _laws():
    f = ta.Mix(ta.Laplace(1), P)
    return {False: _law(f), True: _law(ta.Inverse(f))}


@pytest.mark.parametrize("inverse", [False, True])
def test_split_power_below_the_exact_power(inverse):
    """S^T of Mix(Laplace(1), 1/3) (or its inverse), T = 5 on the grid 1/64: every suffix sum
    of the rounded-down integers at most the exact Arb power's (200 bits), within one unit
    2^-eu of the power's fixed point a slot."""
    law = _laws()[inverse]
    T, D = 5, 64
    cp = _power(law, T, D)
    at = AtomLines(cp, _atoms(law))
    old = ctx.prec
    ctx.prec = 200
    try:
        l0, l1, b0, b1 = law.loss_atoms()
        n = len(cp.ints[0])
        poly = [arb(0)] * n
        for lv, bv in ((l0, b0), (l1, b1)):
            j = int(np.floor(float(lv.mid()) * D))
            e0, e1 = (-arb(j) / D).exp(), (-arb(j + 1) / D).exp()
            m0 = (bv * (-lv).exp() - bv * e1) / (e0 - e1)
            poly[j - cp.lo] += m0
            poly[j - cp.lo + 1] += bv - m0
        exact = (arb_poly(poly) ** T).coeffs()
        scale = arb(2) ** (-cp.eu)
        suf = arb(0)
        for i in range(len(exact) - 1, -1, -1):
            if i < n:
                got = arb(at.suffix_int(i - 1)) * scale
                assert got <= suf + exact[i], i
                units = sum(1 for k in at.pos if k >= i) + 1  # (one floor a slot)
                assert (suf + exact[i] - got).upper() <= units * 2.0 ** -cp.eu, i
            suf += exact[i]
    finally:
        ctx.prec = old


def _two_step_band(inverse: bool, x: np.ndarray, D: int, atoms: bool):
    law = _laws()[inverse]
    cp = _power(law, 2, D)
    return CellCurve(cp, loss_range(law), atoms=_atoms(law) if atoms else None).band(x)


@pytest.mark.parametrize("inverse,alpha", [(False, 0.25), (True, 0.6)])
def test_two_steps_on_an_atom_against_brute_force(inverse, alpha):
    """Mix(Laplace(1), 1/3)^2 (and its inverse) at a level on the linear piece of the atom
    l_0 + l_1 (-(l_0 + l_1)): the band holds the brute-force power (30 digits) on the grids
    1/50 and 1/400; its upper side within 5e-5 and 8e-7 (second order: 64 times narrower for
    8 times the cells; the split alone was first order there, 50 to 100 times wider at 1/400)."""
    x = np.array([alpha])
    with mpmath.workdps(30):
        truth = float(_two_step_power(mpmath.mpf(alpha), inverse))
    for D, up in ((50, 5e-5), (400, 8e-7)):
        b = _two_step_band(inverse, x, D, True)
        assert b.power_lo[0] <= truth <= b.power_hi[0], (D, b.power_lo[0], truth, b.power_hi[0])
        assert b.f_lo[0] <= 1 - truth <= b.f_hi[0]
        assert b.power_hi[0] - truth <= up, (D, b.power_hi[0] - truth)
    plain = _two_step_band(inverse, x, 400, False)
    assert plain.power_hi[0] - truth >= 30 * (b.power_hi[0] - truth)


def test_ten_steps_on_an_atom_inside_the_finer_plain_band():
    """Mix(Laplace(1), 1/3)^10 at alpha = 0.74 (on the atom 8 l_0 + 2 l_1 = -0.98728): the band
    with the atoms apart on the grid 1/8000 meets the band without them on 1/32000 (both hold
    the power), is at least as narrow as the plain band on its own grid at every level, and
    more than ten times narrower at 0.74."""
    f = ta.Mix(ta.Laplace(1), P) ** 10
    law, T = _cells_law(f)
    x = np.array([0.01, 0.3, 0.735, 0.74, 0.745, 0.9])
    rng = loss_range(law)
    cp = _power(law, T, 8000)
    new = CellCurve(cp, rng, atoms=_atoms(law)).band(x)
    old = CellCurve(cp, rng).band(x)
    fine = CellCurve(_power(law, T, 32000), rng).band(x)
    assert np.all(new.power_lo <= fine.power_hi) and np.all(fine.power_lo <= new.power_hi)
    assert np.all(new.power_hi <= old.power_hi) and np.all(new.power_lo >= old.power_lo)
    w_new, w_old = widths(new, x, "roc"), widths(old, x, "roc")
    assert w_new[3] * 10 < w_old[3], (w_new[3], w_old[3])


@pytest.mark.slow
def test_ten_steps_curve_at_1e9_certified_without_warning():
    """ta.curve of Mix(Laplace(1), 1/3)^10 at 1e-9 on 101 levels: certified within 1e-9 and no
    ToleranceWarning (the split alone left the level 0.74 at 6e-9 on the largest lattice), and
    inside the band at 1e-6 (nested)."""
    f = ta.Mix(ta.Laplace(1), P) ** 10
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            lo, hi = ta.curve(f, x, bounds=True)
        with ta.pld_options(tol=1e-6):
            lo6, hi6 = ta.curve(f, x, bounds=True)
    assert np.max(hi - lo) <= 1e-9
    assert np.all(lo6 <= lo) and np.all(hi <= hi6)
