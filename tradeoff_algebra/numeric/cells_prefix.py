"""The low end of the T-fold power of a pair given by the cells of its loss: only the lattice
points below the largest loss a curve band reads are composed, the rest of the law enters
through its total masses (``numeric.cells_curve``: the levels' support lines and tests).

Every sum a band of the curve reads is a suffix sum over the lattice of the composed power
(``numeric.cells_curve``): for the split product U (Dong, Roth & Su, Lemma 1 and Sec. 3.1;
``numeric.lattice_cells``) the support line at the lattice point G_i,

    L_i = sum_{k > i} U_k (1 - e^{G_i - G_k}) + B_U(+oo),

and for the tests E_t ("the cells' indices sum to at least t") their null and alternative
masses A(E_t), B(E_t). A suffix sum is the total minus a prefix sum, and the totals of a
product are the products of one step's totals, so with B_all the alternative mass of one step
(1 for a pair of probability laws, the mass at +oo included) and A_fin its null mass where the
loss is finite (what the split places on the lattice: it keeps both masses of every outcome),

    L_i = B_all^T - e^{G_i} A_fin^T + sum_{k <= i} U_k (e^{G_i - G_k} - 1),

each weight of the last sum >= 0, so the lattice masses U_k rounded up (coefficient by
coefficient) give an upper bound of L_i; and, every outcome of a step outside the cells
computed counted in E_t (index +oo: an event of the true product all the same),

    A(E_t) <= 1 - sum_{k < t} Ap_k,      B(E_t) >= 1 - sum_{k < t} Bq_k

with the tests' null masses rounded down and their alternative masses rounded up. The lattice
point k of a power is a sum of one index a step, each at least 0, so the points below K of the
power need the points below K of one step only (``lattice_cells._power_array``'s ``keep``:
there its coefficients are those of the uncut power, rounded, no top cut). The cells above the
levels are never computed: Mix(G(2), 1/10)^{(x) 10}, whose loss spans 32 units of loss at
2^-50 of its mass (where the suffix sums cut it) and 13 a step, is read at losses below 2.2
for the levels down to 1/100: 3.3 units of loss, about a sixth of the lattice and a third of
one step's cells.

A law offers this by ``cells_totals()``: (A_fin, B_all) of one step, exact (the remove
direction of the subsampled Gaussian: (1, 1), ``numeric.cells_normal``), and
``loss_cells(D, below=j)``: its cells of lower end j/D below that.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from .cf_laws import upper, working_precision
from .lattice_cells import BITS, _fixed, _power_array

__all__ = ["PrefixPower"]


class PrefixPower:
    """The lattice points below ``keep`` of the T-fold powers of the split masses U (rounded
    up), of the tests' alternative masses Bq (rounded up) and of their null masses Ap (rounded
    down) of ``cells`` [(a, b, j[, w]), ...] on the grid 1/D (module docstring), with the
    one step's totals ``totals`` = (A_fin, B_all) (exact rationals). The fields
    ``numeric.cells_curve.CellCurve`` reads: ``T``, ``D``, ``lo`` (the least cell index: the
    lattice point k is the loss (k + T lo)/D), ``ints`` (the three powers' coefficients, exact
    unsigned 64-bit, at most ``keep`` each), ``eu``, ``eb``, ``ea`` (their scales 2^-e),
    ``keep``, ``totals``; ``prefix`` = True. The cells must hold every cell of lower end below
    (keep + T lo)/D: the lowest one first among them (its index is ``lo``)."""

    prefix = True
    tilt = Fraction(0)
    inf_u = inf_a = 0

    def __init__(self, cells: list, T: int, D: int, keep: int, totals: tuple,
                 prec: int = 128, lo: int | None = None) -> None:
        self.T, self.D = int(T), int(D)
        self.keep = K = max(1, int(keep))
        self.totals = (Fraction(totals[0]), Fraction(totals[1]))
        if not (0 <= self.totals[0] <= 1 and 0 <= self.totals[1] <= 1):
            raise ValueError(f"PrefixPower: one step's totals {totals} are not masses")
        self.lo = min(c[2] for c in cells) if lo is None else int(lo)
        self.window = (K - 1 + self.T * self.lo) / self.D  # (the largest loss kept)
        u, bq, ap = split_lists(cells, self.D, self.lo, K, prec)
        with working_precision(prec):
            lists = [fixed(u, True), fixed(bq, True), fixed(ap, False)]
        (u, eu), (bq, eb), (ap, ea) = lists
        pu, self.eu, _ = _power_array(u, eu, self.T, True, None, K)
        pb, self.eb, _ = _power_array(bq, eb, self.T, True, None, K)
        pa, self.ea, _ = _power_array(ap, ea, self.T, False, None, K)
        #: the three powers' coefficients below ``keep`` (exact, unsigned 64-bit)
        self.ints = tuple(np.ascontiguousarray(p[:K]) for p in (pu, pb, pa))


def split_lists(cells: list, D: int, lo: int, n: int, prec: int = 128) -> tuple[list, list, list]:
    """The Arb masses at the lattice points 0 .. n - 1 (point i the loss (i + lo)/D) of one
    step's split pair U (each cell's masses shared between its two ends keeping both, as
    ``lattice_cells.CellPower``; a part certainly below 0 counts as 0, a cell with b exactly 0
    is an outcome of loss -oo with no split mass) and of the tests' alternative and null
    masses (each cell's at its lower end); the cells past n - 1 left out."""
    u, bq, ap = [arb(0)] * n, [arb(0)] * n, [arb(0)] * n
    with working_precision(prec):
        h = arb(1) / D
        z = (-h).exp()
        ends: dict = {}
        last = [None, None]  # (the last index whose e^{-k/D} was computed, its ball)

        def e(k: int) -> arb:
            """e^{-k/D}: from the last one computed by powers of e^{-1/D} where it lies a few
            steps below k (the cells come in increasing order; the balls' radii grow by about
            2^-prec a product), else by exp."""
            v = ends.get(k)
            if v is None:
                k0, v0 = last
                if k0 is not None and 0 < k - k0 <= 64:
                    v = v0 * z if k - k0 == 1 else v0 * z ** (k - k0)
                else:
                    v = (-(k * h)).exp()
                ends[k] = v
                if k0 is None or k > k0:
                    last[0], last[1] = k, v
            return v

        for c in cells:
            a, b, j = c[0], c[1], c[2]
            w = c[3] if len(c) > 3 else 1
            i = j - lo
            if i < 0:
                raise ValueError("split_lists: a cell below the lowest index lo")
            if i >= n:
                continue
            if w < 1:
                raise ValueError(f"split_lists: a cell's width w = {w} must be >= 1")
            if not b == 0:
                e0, e1 = e(j), e(j + w)
                m0 = (a - b * e1) / (e0 - e1)
                for at, v in ((i, m0), (i + w, b - m0)):
                    if at < n and not v < 0:
                        u[at] += v
            bq[i] += b
            ap[i] += a
    return u, bq, ap


def fixed(vals: list, up: bool) -> tuple[list[int], int]:
    """(ints, E): each ball's upper (``up``) or lower end times 2^E as an integer >= 0 (ceil or
    floor), E the most with their sum below 2^BITS (the scale from an upper bound of the sum,
    as ``lattice_cells.CellPower``).

    The ends pass through floats: float(end) is the end rounded to the nearest float, so the
    next float outward bounds it (at most 2^-52 of the mass beyond it, 2^-52 of the total in
    all: far below any band's width), and for E >= 0 the scaling by 2^E and the ceiling or
    floor are exact in floats, as is the conversion of an integer float below 2^64 (a fifth of
    the exact shifts' time: Mix(G(2), 1/10)^{(x) 10} at 1e-9 converts 370 000 masses). An
    exact zero (a lattice point inside a wide cell, ``numeric.cells_normal``) stays 0, as in
    ``lattice_cells._fixed``: each unit of a step's masses is carried into the T-fold power
    about T times, so the wide cells' interior points, a unit each, widened C(1/10,
    G(1))^{(x) 10}'s band at 1/100 on D = 49 152 from 1.74e-9 to 1.91e-9."""
    tot = sum(vals, arb(0))
    E = BITS - 2 - max(0, math.ceil(math.log2(max(upper(tot), 1e-300)) - 0.5))
    if E < 0:  # (a total above 2^(BITS - 2): the exact shifts)
        return _fixed_exact(vals, E, up)
    ends = np.array([float(x.upper() if up else x.lower()) for x in vals], dtype=np.float64)
    if not np.all(np.isfinite(ends)):
        return _fixed_exact(vals, E, up)
    ends = np.maximum(np.nextafter(ends, np.inf if up else -np.inf), 0.0)
    ends[[x.is_zero() for x in vals]] = 0.0  # (an exact zero stays 0: no unit where no mass)
    while True:
        scaled = np.ldexp(ends, E)
        scaled = np.ceil(scaled) if up else np.floor(scaled)
        ints = scaled.astype(np.uint64).tolist() if scaled.size else []
        if not sum(ints) >> BITS:
            return ints, E
        E -= 1  # (never in practice: the scale from an upper bound)


def _fixed_exact(vals: list, E: int, up: bool) -> tuple[list[int], int]:
    """:func:`fixed` by exact shifts of the balls' ends (``lattice_cells._fixed``)."""
    ints = [_fixed(x, E, up) for x in vals]
    while sum(ints) >> BITS:
        E -= 1
        ints = [_fixed(x, E, up) for x in vals]
    return ints, E
