"""A composed power of loss cells cut at both ends: the bottom of each partial product moved up
(or dropped) by first-order dominance, as ``lattice_cells`` moves its top to +oo.

A law whose loss is unbounded below as well as above (the symmetric hull C_q(G_mu) of the
subsampled Gaussian, ``numeric.cells_normal``: one step's loss in [-9.9, 9.9] at a cut of 6.75
standard deviations) spans T times that in its T-fold power, and the fixed point keeps every
point of it: the binary powering's rounding puts a unit in every slot (``lattice_cells``), so
the 10-fold power of C(1/10, G(1)) lived on [-49.8, 9.3] at 2^-62 of its mass below -12.

Every sum the curve band reads is monotone in the masses moved one way (``numeric.cells_curve``
and :func:`lattice_cells._power_array`): the split product's support lines and the tests' sizes
are suffix sums with weights non-decreasing in the loss (upper bounds: a mass moved up only
raises them), the tests' powers suffix sums of masses rounded down (lower bounds: a mass
dropped only lowers them), and with a window, prefix sums of alternative masses rounded up
(upper bounds of the complement's power: the mass dropped, bounded through the products, is
added to every prefix sum; a move up would lower prefix sums past it). Convolution keeps
first-order dominance, so a move in any partial product holds in the whole power. After each
rounded product of the binary powering the bottom slots whose sum is at most 2^-:data:`BOTTOM`
of the total (floats choose them; any choice is sound) are moved to the first slot kept,
their ceilings for a rounded-up power, or dropped, and the power carries the index of its
first slot. The moved mass changes a line or a test by at most that share, about 1e-15.
"""

from __future__ import annotations

import math

import numpy as np
from flint import fmpz

from . import budget
from .lattice_cells import BITS, SLOT, _pack, _unpack

__all__ = ["power_cut", "BOTTOM"]

#: The bottom slots of a partial product summing to at most 2^-BOTTOM of its total are moved up
#: (or dropped): about 1e-15 of the mass a cut, a few cuts a power (as ``lattice_cells.DROP``).
BOTTOM = 50


def _low_words(z: fmpz, nz: int) -> np.ndarray:
    """The low 64 bits of each of the nz slots of ``z`` (>= 0), as unsigned 64-bit integers."""
    raw = int(z).to_bytes(nz * SLOT // 8 + 8, "little")
    words = np.frombuffer(raw, dtype=np.uint64, count=nz * (SLOT // 64))
    return words.reshape(nz, SLOT // 64)[:, 0].copy()


def _pack_array(arr: np.ndarray) -> fmpz:
    """sum_i arr_i 2^(SLOT i) for unsigned 64-bit integers arr_i."""
    buf = np.zeros((len(arr), SLOT // 64), dtype=np.uint64)
    buf[:, 0] = arr
    return fmpz(int.from_bytes(buf.tobytes(), "little"))


def _top_index(arr: np.ndarray, drop: int) -> int:
    """The least K with the floats' sum of the slots from K at most 2^-drop of the whole (as
    ``lattice_cells._cut``), len(arr) where none is."""
    tail = np.cumsum(arr.astype(np.float64)[::-1])[::-1]
    small = tail <= math.ldexp(float(tail[0]), -drop)
    return max(int(np.argmax(small)), 1) if small.any() else len(arr)


def _top_at(arr: np.ndarray, m: int, K: int, up: bool) -> tuple[np.ndarray, int]:
    """``arr`` cut to its first K >= 1 slots, m plus the exact sum of the slots cut, plus one
    a slot for ``up`` (their ceilings: ``lattice_cells._cut_at``)."""
    K = max(int(K), 1)
    if K >= len(arr):
        return arr, m
    cut = int(arr[K:].sum(dtype=object)) + (len(arr) - K if up else 0)
    return arr[:K], m + cut


def _bottom(arr: np.ndarray, bits: int, move: bool, up: bool) -> tuple[np.ndarray, int, int]:
    """The slots ``arr`` (each below 2^64: the floors of a rounded product) without their first
    K0, K0 the most with the floats' sum of those slots at most 2^-bits of the whole (and
    K0 < len(arr)): their exact sum, plus one a slot for ``up`` (their ceilings), added to the
    first slot kept (``move``) or dropped. Returns (the slots kept, K0, the mass added, or for
    a drop the ceilings' sum dropped)."""
    nz = len(arr)
    c = np.cumsum(arr.astype(np.float64))
    if c[-1] <= 0:
        return arr, 0, 0
    K0 = min(int(np.searchsorted(c, math.ldexp(float(c[-1]), -bits), side="right")), nz - 1)
    if K0 <= 0:
        return arr, 0, 0
    moved = int(arr[:K0].sum(dtype=object)) + K0  # (the slots' ceilings)
    arr = arr[K0:].copy()
    if not move:
        return arr, K0, moved
    moved -= 0 if up else K0
    if int(arr[0]) + moved >> 64:
        raise ArithmeticError("cells_window: a moved bottom overflowed its slot")
    arr[0] += np.uint64(moved)
    return arr, K0, moved


def power_cut(c: list[int], e: int, T: int, up: bool, move: bool, drop: int | None,
              keep: int | None = None, bottom: int = BOTTOM) -> tuple:
    """(P, E, M, o, Mb): P 2^-E the T-th power of sum_i c_i 2^-e x^i rounded as
    ``lattice_cells._power_array`` (``up``: coefficient-wise up, else down; ``drop``: its top
    cut, M the mass moved to +oo in units 2^-E; ``keep``: the slots from ``keep`` on cut, by
    the whole power's index), with each partial product's bottom cut (:func:`_bottom`:
    moved up for ``move``, else dropped); P's slot i is the power's slot o + i. Mb (units
    2^-E, 0 for ``move``) bounds the mass the dropped bottoms carry into the power, wherever it
    lands: Mb_ab <= Mb_a (S_b + M_b + Mb_b) + (S_a + M_a) Mb_b over the products (S the kept
    sums' bounds), plus each cut's dropped ceilings, rounded up with each shift: a prefix sum
    of the kept power plus Mb is at least the exact one (the tests read with a window)."""
    n0 = len(c)
    s0 = sum(c)
    if s0 >> BITS:
        raise ValueError("cells_window: the masses' sum is not below 2^BITS")

    def mul(a, na, sa, ea, ma, oa, ba, b, nb, sb, eb, mb, ob, bb):
        prod = sa * sb
        if prod >> SLOT:
            raise ArithmeticError("cells_window: a packed product could carry between slots")
        z, nz, o = a * b, na + nb - 1, oa + ob
        m = ma * sb + sa * mb + ma * mb
        low = ba * (sb + mb + bb) + (sa + ma) * bb
        s = max(0, prod.bit_length() - BITS)
        if s == 0:
            return z, nz, prod, ea + eb, m, o, low
        if s > SLOT - 64:
            raise ArithmeticError("cells_window: a shift beyond the slot's free bits")
        # (one pass through the slots: the low 64 bits of each after the shift are its floor,
        # the bits shifted in from the next slot lie above them, s <= SLOT - 64)
        arr = _low_words(z >> s, nz)
        bound = prod >> s
        m = -((-m) >> s)  # (ceil)
        low = -((-low) >> s)
        if keep is not None and o + nz > keep:
            arr, m = _top_at(arr, m, max(keep - o, 1), up)
        if drop is not None:
            arr, m = _top_at(arr, m, _top_index(arr, drop), up)
        arr, k0, moved = _bottom(arr, bottom, move, up)
        nz = len(arr)
        o += k0
        if move and up:  # (the cut slots' ceilings: their floors plus one each)
            bound += k0
        if not move:  # (the dropped slots' ceilings)
            low += moved
        if up:
            arr += np.uint64(1)
            bound += nz
        if bound >> BITS + 1:
            raise ArithmeticError("cells_window: a packed sum grew past its bound")
        z = _pack_array(arr)
        return z, nz, bound, ea + eb - s, m, o, low

    base = (_pack(c), n0, s0, e, 0, 0, 0)
    out = base
    for bit in bin(T)[3:]:
        budget.check()
        out = mul(*out, *out)
        if bit == "1":
            out = mul(*out, *base)
    z, nz, _, E, m, o, low = out
    return _unpack(z, nz), E, m, o, low


class WindowPower:
    """The T-fold powers of ``cells`` on the grid 1/D as ``lattice_cells.CellPower`` (untilted:
    the split masses U and the tests' null masses Ap rounded up, their tops cut to +oo; the
    tests' alternative masses Bq rounded down, or with a ``window`` rounded up and read as
    B_tot minus prefix sums), each with its bottom cut (:func:`power_cut`: U and Ap moved up,
    Bq dropped) and the three padded to one first index: slot i is the loss
    (i + ``shift`` + T lo)/D. With a window the mass Bq's dropped bottoms carry (``bq_low``,
    units 2^-eb) is added to every prefix sum (``numeric.cells_curve``)."""

    tilt = 0

    def __init__(self, cells: list, T: int, D: int, window: float | None = None,
                 prec: int = 128) -> None:
        from flint import arb

        from .cells_prefix import fixed, split_lists
        from .cf_laws import lower, working_precision
        from .lattice_cells import DROP

        self.T, self.D = int(T), int(D)
        if window is not None and not math.isfinite(window):
            raise ValueError(f"WindowPower: a window needs a finite loss, got {window}")
        self.window = window
        self.lo = min(c[2] for c in cells)
        n = max(c[2] + (c[3] if len(c) > 3 else 1) for c in cells) - self.lo + 1
        u, bq, ap = split_lists(cells, self.D, self.lo, n, prec)
        self.btot = None
        with working_precision(prec):
            if window is not None:
                self.btot = lower(sum(bq, arb(0)) ** self.T)
            lu, lb, la = fixed(u, True), fixed(bq, window is not None), fixed(ap, True)
        keep = None
        if window is not None:
            keep = max(1, math.floor(window * self.D) - self.T * self.lo + 1)
        pu, self.eu, self.inf_u, ou, _ = power_cut(*lu, self.T, True, True, DROP, keep)
        if window is None:
            pb, self.eb, _, ob, _ = power_cut(*lb, self.T, False, False, DROP)
            self.bq_low = 0
        else:  # (prefix sums bounded above: the dropped bottoms' mass Mb added to each)
            pb, self.eb, _, ob, self.bq_low = power_cut(*lb, self.T, True, False, None, keep)
        pa, self.ea, self.inf_a, oa, _ = power_cut(*la, self.T, True, True, DROP, keep)
        #: the first slot's index in the whole power (the three padded to it)
        self.shift = o = min(ou, ob, oa)
        self.ints = tuple(np.concatenate([np.zeros(x - o, dtype=np.uint64), p])
                          for p, x in ((pu, ou), (pb, ob), (pa, oa)))
