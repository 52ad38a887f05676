"""The cells of the subsampled Gaussian pair's loss (``numeric.cells_normal``): each cell's null
and alternative masses against mpmath at 40 digits (the x-slices' normal masses computed
independently, from x(g) solved in mpmath), and the normal tails at ``TAIL_PREC`` bits giving
the same fixed-point integers as at 128 bits (``numeric.cells_prefix.fixed``)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from tradeoff_algebra.numeric import cells_normal as cn
from tradeoff_algebra.numeric.cells_prefix import fixed, split_lists
from tradeoff_algebra.numeric.cf_laws import working_precision

MU, Q = Fraction(2), Fraction(1, 10)


def _slice_masses(mu, q, g0, g1):
    """(A, B) of the outcomes x with loss in [g0, g1] of T(N(0, 1), (1 - q) N(0, 1) + q N(mu, 1)),
    in mpmath (g0 = None: from x = -oo)."""
    mu, q = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(q.numerator) / q.denominator

    def x_of(g):
        return (mpmath.log((mpmath.exp(g) - 1 + q) / q) + mu * mu / 2) / mu

    def sf(x):  # (upper tails: no cancellation where both ends are far out)
        return mpmath.ncdf(-x)

    xa = mpmath.ninf if g0 is None else x_of(g0)
    xb = x_of(g1)
    a = sf(xa) - sf(xb)
    b = (1 - q) * a + q * (sf(xa - mu) - sf(xb - mu))
    return a, b


@pytest.mark.parametrize("D", [64, 1000])
def test_remove_cells_against_mpmath(D):
    law = cn.NormalMixtureCells(MU, Q, True)
    with working_precision(128):
        cells = law.loss_cells(D)
    with mpmath.workdps(40), working_precision(128):
        picks = list(range(0, 6)) + list(range(len(cells) // 3, len(cells) // 3 + 4)) \
            + [len(cells) - 3, len(cells) - 2]
        for i in picks:
            a, b, j, w = cells[i]
            ra, rb = _slice_masses(MU, Q, None if i == 0 else mpmath.mpf(j) / D,
                                   mpmath.mpf(j + w) / D)
            for ball, ref in ((a, ra), (b, rb)):
                lo, hi = mpmath.mpf(ball.lower().str(40, radius=False)), \
                    mpmath.mpf(ball.upper().str(40, radius=False))
                # (the ends printed to 40 digits: a relative slack of 1e-38)
                assert lo * (1 - mpmath.mpf(10) ** -38) <= ref <= hi * (1 + mpmath.mpf(10) ** -38)
                # (narrow: far below a unit of the fixed point, 2^-60 of the mass)
                assert float(ball.rad()) <= 2.0 ** -85


@pytest.mark.parametrize("remove,hull", [(True, False), (False, False), (True, True)])
def test_tail_precision_keeps_the_fixed_point(monkeypatch, remove, hull):
    """The integers the powers start from are those of tails at 128 bits."""
    D = 2048
    out = {}
    for bits in (cn.TAIL_PREC, 128):
        monkeypatch.setattr(cn, "TAIL_PREC", bits)
        law = cn.NormalMixtureCells(MU, Q, remove, hull=hull).for_levels(10, 0.01)
        with working_precision(128):
            cells = law.loss_cells(D)
            out[bits] = [fixed([c[k] for c in cells], up) for k in (0, 1) for up in (True, False)]
    assert out[cn.TAIL_PREC] == out[128]


def test_fixed_keeps_exact_zeros():
    """The wide cells' interior lattice points carry no mass: ``fixed`` leaves them 0 (each
    other mass at least its exact ceiling, ``lattice_cells._fixed``, and at most 2^-52 of
    itself above it)."""
    from tradeoff_algebra.numeric.lattice_cells import _fixed

    law = cn.NormalMixtureCells(MU, Q, True, hull=True).for_levels(10, 0.01)
    with working_precision(128):
        cells = law.loss_cells(256)
        lo = min(c[2] for c in cells)
        n = max(c[2] + c[3] for c in cells) - lo + 1
        u, bq, ap = split_lists(cells, 256, lo, n)
        zeros = [i for i, x in enumerate(u) if x.is_zero()]
        assert len(zeros) > 100  # (the wide tail cells' interiors)
        for vals in (u, ap):
            ints, e = fixed(vals, True)
            for i, x in enumerate(vals):
                exact = _fixed(x, e, True)
                assert exact <= ints[i] <= exact + 2 + (exact >> 50)
                if x.is_zero():
                    assert ints[i] == 0
