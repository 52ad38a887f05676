"""Certified delta(eps) and eps(delta) of a few-fold power of one pair given by the cells of its
privacy loss on a grid (the Poisson-subsampled Laplace mechanism's, a few to a few hundred
steps), at a modest width: two exact lattice compositions in fixed point, nothing inverted.

A *cell* is a set of outcomes whose loss l = log(dB/dA) lies in [g_j, g_{j+1}], g_j = j h
(h = 1/D), given by its null mass a = A(cell) and alternative mass b = B(cell) (Arb balls). The
law supplies them (``loss_cells(D)``: the atoms and the density's slices, each a closed form).

**Upper bound: the split pair.** Each outcome of loss l in [g_j, g_{j+1}] is shared between the
two grid points so that both its masses are kept: m_j + m_{j+1} = b and m_j e^{-g_j} +
m_{j+1} e^{-g_{j+1}} = a; linear in (a, b), so a cell splits as one outcome,
m_j = (a - b e^{-g_{j+1}}) / (e^{-g_j} - e^{-g_{j+1}}). Merging the two points back is a
post-processing, so the split pair's trade-off function lies below the factor's (Dong, Roth &
Su, Lemma 1) and so does its T-fold product below the product's (their Sec. 3.1); the split
product lives on the lattice with B = e^{G} A at every point G, so its profile is
sum_{G > eps} U^{*T}(G) (1 - e^{eps - G}), at least delta(eps). Every mass rounded up (the sum
is non-decreasing in each mass), the power taken in integers.

**Lower bound: a test.** For any event E of the product, delta(eps) >= B(E) - e^eps A(E) (Dong,
Roth & Su, Prop. 6). E = "the cells' indices sum to at least t": B(E) from the cells' B-masses
rounded down, A(E) from their A-masses rounded up, each a T-fold power in integers; the best t
near eps / h - T/2 is taken (every t is sound), and eps(d) > log((B(E) - d) / A(E)) for each t
at once, without a search.

Both miss delta by about T h^2 times the loss density's spread (the remainders inside the
cells), so a width of 1e-4 needs about a hundred cells a step at q = 1/100, b = 1 (the loss
spans [-0.0063, 0.017]); the grid is refined by the h^2 law until the bracket of eps meets the
width asked, up to :data:`MAX_POINTS` lattice points, else the caller's other routes answer.

The fixed point: masses are integers times 2^-E; a product of two powers keeps :data:`BITS`
bits of its total mass, rounded up for the upper bounds and down for the lower (binary
powering: about log2 T products of polynomials of at most T/D_cell points each, each one
product of Kronecker-packed integers in C, :func:`_power`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpz, fmpz_poly

from . import budget
from .cf_laws import lower, upper, working_precision

__all__ = ["CellPower", "cells_enclosure", "MAX_POINTS", "BITS", "CELLS_ROUTE"]

#: Bits kept of a fixed-point power's total mass: its coefficients are integers times 2^-E with
#: their sum below 2^BITS and, after each product, at least 2^(BITS - 1) (the rest rounded away
#: in the bound's direction, one unit per coefficient and product; one step's masses start at
#: BITS - 2 bits). A unit is at most 2^-(BITS - 1) of the total mass; 48 bits of the largest
#: coefficient gave 2^-48 of the largest mass, at least 2^-62 of the total for n <= 2^14
#: points and in practice far more (the largest mass is about the total over 2.5 standard
#: deviations of the index sum, a few hundred points at T = 100): q = 1/100, b = 1,
#: T = 2 .. 100, eps(1e-5), every bracket as wide or narrower than with those 48 bits. (There
#: the bracket of eps(1e-10) was 3.6e-5 to 6.8e-5 wide relative at T = 20 .. 100; 40 bits of
#: the largest coefficient widened it to 6.9e-3.)
BITS = 62
#: Bits of a slot of the packed integers (:func:`_power`): a product's coefficient is below
#: the product of the two sums, 2^(2 BITS + 2) at most, so nothing carries into the next slot.
SLOT = 128
#: The powers' top coefficients summing to at most 2^-DROP of the total are moved to +oo
#: (:func:`_power_array`): about 1e-15 of the total mass a cut, a few cuts a power.
DROP = 50
#: The most lattice points of a composed power (T times the cells of a step): the three powers
#: cost about T times one step's cells in squarings (q = 1/100, b = 1, 96 cells: T = 50
#: about 5 ms, T = 100 about 10 ms), where the inversion's few-step split took
#: 260 to 390 ms (T = 10 .. 50) and its whole inversion 50 to 55 ms at T = 100 (1e-10 wide,
#: its 2F1 evaluations and planning); beyond 10^4 points the inversion answers.
MAX_POINTS = 10_000
#: Cells a step of the first grid at the default tolerance (relative width 1.25e-4 of eps:
#: q = 1/100, b = 1, T = 10 to 100 meet it there).
CELLS = 96
#: The route's note (``core.trace``).
CELLS_ROUTE = "certified cells of the loss composed on a lattice (split and test bounds)"


def _fixed(x: arb, k: int, up: bool) -> int:
    """ceil (``up``) or floor of x 2^k, at least 0: the ball's upper (lower) end, an exact
    binary number m 2^e, shifted in integers (no Arb product; an exact zero is 0)."""
    if x.is_zero():
        return 0
    m, e = (x.upper() if up else x.lower()).man_exp()
    m, e = int(m), int(e) + k
    v = m << e if e >= 0 else (-((-m) >> -e) if up else m >> -e)
    return max(0, v)


_MASKS: dict = {}


def _pattern(n: int, word: int) -> fmpz:
    """The packed integer with ``word`` (< 2^64) in each of its n slots of :data:`SLOT` bits
    (cached by length: the binary powering meets the same lengths in its three powers)."""
    key = (n, word)
    v = _MASKS.get(key)
    if v is None:
        if len(_MASKS) > 8:  # (a few: each as long as a power, up to ~20 MB)
            _MASKS.clear()
        buf = np.zeros((n, SLOT // 64), dtype=np.uint64)
        buf[:, 0] = word
        v = _MASKS[key] = fmpz(int.from_bytes(buf.tobytes(), "little"))
    return v


def _pack(c: list[int]) -> fmpz:
    """sum_i c_i 2^(SLOT i) for integers 0 <= c_i < 2^64."""
    buf = np.zeros((len(c), SLOT // 64), dtype=np.uint64)
    buf[:, 0] = np.array(c, dtype=np.uint64)
    return fmpz(int.from_bytes(buf.tobytes(), "little"))


def _unpack(x: fmpz, n: int) -> np.ndarray:
    """The n slots of ``x`` (each below 2^64: checked) as exact unsigned 64-bit integers."""
    arr = np.frombuffer(int(x).to_bytes(n * SLOT // 8, "little"), dtype=np.uint64)
    arr = arr.reshape(n, SLOT // 64)
    if arr[:, 1:].any():
        raise ArithmeticError("lattice_cells: a packed coefficient overflowed its slot")
    return np.ascontiguousarray(arr[:, 0])


def _power(c: list[int], e: int, T: int, up: bool) -> tuple[fmpz_poly, int, np.ndarray]:
    """(P, E, F) with P 2^-E the T-th power of sum_i c_i 2^-e x^i (:func:`_power_array`) and F
    its masses P 2^-E as floats (rounded: for guesses only)."""
    arr, E, _ = _power_array(c, e, T, up)
    return fmpz_poly(arr.tolist()), E, arr.astype(float) * 2.0 ** -E


def _power_array(c: list[int], e: int, T: int, up: bool,
                 drop: int | None = None, keep: int | None = None) -> tuple[np.ndarray, int, int]:
    """(P, E, M) with P 2^-E the T-th power of sum_i c_i 2^-e x^i (c_i >= 0 integers, their sum
    below 2^BITS), each product rounded to :data:`BITS` bits of its total: coefficient-wise
    rounded up (``up``, floor + 1) or down, so an upper or a lower bound of the exact power.

    Binary powering from the leading bit (each product a squaring or a product with the short
    one-step base: about T n of squarings' work, where powering from the last bit ends in a
    product of two long powers, about 1.5 times that) on Kronecker-packed integers: a
    polynomial is the integer sum_i c_i 2^(SLOT i), so a product of polynomials is one product
    of integers (GMP, in C) as long as no coefficient of the product reaches 2^SLOT: each is at
    most the product of the two sums, below 2^(2 BITS) < 2^SLOT (checked on the exact sums'
    bounds before each product). The rounding is a shift of the whole integer by s bits and a
    mask of each slot's low 64 bits (the bits shifted in from the next slot lie above them:
    s <= SLOT - 64), plus one in every slot for ``up``; the sum's bound follows: sum
    floor(z_k / 2^s) <= floor(sum z_k / 2^s), plus n for the ones. Where fmpz_poly products
    paid a division of every coefficient and an addition of ones, this is one shift, one mask
    and one addition of integers (T = 100, 96 cells: the three powers about 10 ms where they
    took 21). P: the coefficients as exact unsigned 64-bit integers.

    ``drop`` (bits): after each rounded product the top coefficients whose sum is at most
    2^-drop of the total (chosen in floats; any choice is sound) are cut off, and M (units
    2^-E, 0 without ``drop``) bounds from above the mass they carry into the power: M_ab <=
    M_a S_b + S_a M_b + M_a M_b over the products (S the kept sums), rounded up with each
    shift. The caller places M at +oo: a cut moves mass up and the products carry that on
    (convolution keeps first-order dominance), so the bound holds for every suffix sum, not
    coefficient by coefficient: the kept suffix plus M at least the exact suffix (``up``), the
    kept suffix at most it (a lower bound drops M), which is what the split product's profile
    (its weights 1 - e^{eps - G} non-decreasing in G) and the tests' suffix sums read. A power
    of T factors spans T times one step's loss, but its mass past a few steps' tails is far
    below the fixed point (Mix(G(2), 1/10)^10 at D = 256: the split product's 34 071 points
    cut to 8 610, about 1e-14 of mass at +oo).

    ``keep`` (slots): after each rounded product the slots from ``keep`` on are cut likewise,
    their exact sum (plus one a slot for ``up``) added to M. A slot i of a partial power
    reaches only the slots >= i of the whole (every factor's indices start at 0), so the
    slots below ``keep`` of the result are those of the uncut power: without ``drop``, its
    rounded coefficients there, bounds coefficient by coefficient (``CellPower``'s window)."""
    n0 = len(c)
    s0 = sum(c)
    if s0 >> BITS:
        raise ValueError("lattice_cells: the masses' sum is not below 2^BITS")

    def mul(a, na, sa, ea, ma, b, nb, sb, eb, mb):
        prod = sa * sb
        if prod >> SLOT:
            raise ArithmeticError("lattice_cells: a packed product could carry between slots")
        z, nz = a * b, na + nb - 1
        m = ma * sb + sa * mb + ma * mb
        s = max(0, prod.bit_length() - BITS)
        if s == 0:
            return z, nz, prod, ea + eb, m
        if s > SLOT - 64:
            raise ArithmeticError("lattice_cells: a shift beyond the slot's free bits")
        z = (z >> s) & _pattern(nz, (1 << 64) - 1)
        bound = prod >> s
        m = -((-m) >> s)  # (ceil)
        if keep is not None and nz > keep:  # (before the ones, as the cut below)
            z, nz, m = _cut_at(z, nz, m, keep, up)
        if drop is not None:  # (before the ones: a cut slot carries its floor, m its ceil)
            z, nz, m = _cut(z, nz, m, drop, up)
        if up:
            z += _pattern(nz, 1)
            bound += nz
        if bound >> BITS + 1:
            raise ArithmeticError("lattice_cells: a packed sum grew past its bound")
        return z, nz, bound, ea + eb - s, m

    base = (_pack(c), n0, s0, e, 0)
    out = base
    for bit in bin(T)[3:]:  # left to right: square, then multiply by the short base
        budget.check()
        out = mul(*out, *out)
        if bit == "1":
            out = mul(*out, *base)
    z, nz, _, E, m = out
    return _unpack(z, nz), E, m


def _cut(z: fmpz, nz: int, m: int, drop: int, up: bool) -> tuple[fmpz, int, int]:
    """The packed integer ``z`` of nz slots (each below 2^64, the floors of the rounded
    product's slots) cut to its first K slots, K the least with the floats' sum of the slots
    from K at most 2^-drop of the whole, and m plus the exact sum of the slots cut, plus one a
    slot for ``up`` (the ceilings: :func:`_power_array`)."""
    arr = _unpack(z, nz)
    f = arr.astype(np.float64)
    tail = np.cumsum(f[::-1])[::-1]
    small = tail <= math.ldexp(float(tail[0]), -drop)
    if not small.any():
        return z, nz, m
    K = max(int(np.argmax(small)), 1)
    if K >= nz:
        return z, nz, m
    return _cut_at(z, nz, m, K, up, arr)


def _cut_at(z: fmpz, nz: int, m: int, K: int, up: bool,
            arr: np.ndarray | None = None) -> tuple[fmpz, int, int]:
    """``z`` (nz slots, the floors) cut to its first K >= 1 slots, m plus the exact sum of the
    slots cut, plus one a slot for ``up`` (``arr``: the slots, where unpacked already)."""
    K = max(int(K), 1)
    if K >= nz:
        return z, nz, m
    if arr is None:
        arr = _unpack(z, nz)
    cut = int(arr[K:].sum(dtype=object)) + (nz - K if up else 0)
    return z & ((fmpz(1) << (SLOT * K)) - 1), K, m + cut


class CellPower:
    """The T-fold power of the pair given by ``cells`` [(a, b, j), ...] on the grid 1/D
    (module docstring): the split product U (grid points from ``lo``) and the test products
    Bq (alternative masses, down) and Ap (null masses, up) over the cells' indices.

    A cell (a, b, j, w) spans w >= 1 grid steps, the outcomes whose loss lies in
    [g_j, g_{j+w}]: split between those two lattice points as a unit cell is between its ends
    (the same post-processing argument: the split holds for any two grid points around the
    loss; a law's sparse tail, ``numeric.cells_normal``), its masses in the tests at index j
    (every assignment of outcomes to indices is a test); a cell with b exactly 0 is an outcome
    of loss -oo (no split mass: its product outcomes add nothing to the split profile),
    counted in the tests' null masses at index j. ``tilt`` c >= 0 (a rational) keeps the
    masses of index or point j times e^{c j/D} in fixed point (the T-fold power of the tilted
    masses is the tilted power, so the bits kept follow the tilted mass, of order one near a
    level delta far below 2^-BITS: e^{-c eps} M(c)^T at the Chernoff tilt), each power's scale
    2^-s with 2^s above its tilted total; the certified sums divide the tilt out in Arb. An
    untilted power cuts its top (:data:`DROP`, the mass moved to +oo: ``inf_u``, ``inf_a``); a
    tilted one keeps every point (its cut mass would need the tilt divided out point by
    point).

    ``window`` (a loss, untilted only): every power keeps only its lattice points of loss at
    most ``window`` (``_power_array``'s ``keep``). U and Ap move the rest to +oo as their cut
    tops (``inf_u``, ``inf_a``); the tests' alternative masses are then rounded up, uncut
    below the window, so B(E_t) >= B_tot - sum_{k < t} Bq_k for t at most the window
    (``btot``: a lower bound of the tests' whole alternative mass, (sum of the cells' b)^T in
    Arb; ``numeric.cells_curve``): the levels near the bulk no longer pay for the far tail of
    the alternative law (Mix(G(2), 1/10)^10 spans 32 units of loss at 2^-50 of its mass)."""

    def __init__(self, cells: list, T: int, D: int, prec: int = 128, tilt=0,
                 window: float | None = None) -> None:
        self.T, self.D = int(T), int(D)
        self.tilt = Fraction(tilt)
        if self.tilt < 0:
            raise ValueError(f"CellPower: need tilt >= 0, got tilt = {tilt}")
        if window is not None and (self.tilt or not math.isfinite(window)):
            raise ValueError(f"CellPower: a window needs no tilt and a finite loss, got "
                             f"window = {window}, tilt = {tilt}")
        self.window = window
        #: a lower bound of the tests' whole alternative mass (with ``window``), else None
        self.btot: float | None = None
        self.lo = min(c[2] for c in cells)
        n = max(c[2] + (c[3] if len(c) > 3 else 1) for c in cells) - self.lo + 1
        u, bq, ap = [arb(0)] * n, [arb(0)] * n, [arb(0)] * n
        with working_precision(prec):
            h = arb(1) / self.D
            ends: dict = {}  # e^{-g_k} by lattice index (each shared by two cells)

            def e(k: int) -> arb:
                v = ends.get(k)
                if v is None:
                    v = ends[k] = (-(k * h)).exp()
                return v

            for c in cells:
                a, b, j = c[0], c[1], c[2]
                w = c[3] if len(c) > 3 else 1
                if w < 1:
                    raise ValueError(f"CellPower: a cell's width w = {w} must be >= 1")
                i = j - self.lo
                if not b == 0:  # (b exactly 0: an outcome of loss -oo, no split mass)
                    e0, e1 = e(j), e(j + w)
                    m0 = (a - b * e1) / (e0 - e1)
                    for at, v in ((i, m0), (i + w, b - m0)):  # (a part below 0 counts as 0)
                        if not v < 0:
                            u[at] += v
                bq[i] += b
                ap[i] += a
            if self.tilt:
                ct = arb(self.tilt.numerator) / self.tilt.denominator
                wt = [(ct * (i + self.lo) * h).exp() for i in range(n)]
                u = [x * y for x, y in zip(u, wt, strict=True)]
                bq = [x * y for x, y in zip(bq, wt, strict=True)]
                ap = [x * y for x, y in zip(ap, wt, strict=True)]
            if window is not None:
                self.btot = lower(sum(bq, arb(0)) ** self.T)
            lists = []
            for vals, up in ((u, True), (bq, window is not None), (ap, True)):
                tot = sum(vals, arb(0))  # (a bound of the total fixes the scale 2^-K)
                K = BITS - 2 - max(0, math.ceil(math.log2(max(upper(tot), 1e-300)) - 0.5))
                ints = [_fixed(x, K, up) for x in vals]
                while sum(ints) >> BITS:  # (never in practice: the scale from an upper bound)
                    K -= 1
                    ints = [_fixed(x, K, up) for x in vals]
                lists.append((ints, K))
        drop = None if self.tilt else DROP
        (u, ku), (bq, kb), (ap, ka) = lists
        keep = None
        if window is not None:  # (the points of loss (k + T lo)/D <= window)
            keep = max(1, math.floor(window * self.D) - self.T * self.lo + 1)
        pu, self.eu, self.inf_u = _power_array(u, ku, self.T, True, drop, keep)
        if window is None:
            pb, self.eb, _ = _power_array(bq, kb, self.T, False, drop)
        else:  # (rounded up, uncut below the window: prefix sums bounded above)
            pb, self.eb, _ = _power_array(bq, kb, self.T, True, None, keep)
        pa, self.ea, self.inf_a = _power_array(ap, ka, self.T, True, drop, keep)
        #: inf_u 2^-eu, inf_a 2^-ea: the split product's and the tests' null masses moved to
        #: +oo by the cut top of the powers (:func:`_power_array`; the tests' alternative
        #: masses cut are dropped, a lower bound); 0 for a tilted power
        #: the three powers' coefficients, exact (unsigned 64-bit; ``numeric.cells_curve``)
        self.ints = (pu, pb, pa)
        self._polys: list = [None, None, None]
        # (the powers' masses rounded to floats, the tilt divided out: guesses only)
        fl = []
        for p, E in zip(self.ints, (self.eu, self.eb, self.ea), strict=True):
            f = p.astype(float) * 2.0 ** -E
            if self.tilt:
                f = f * np.exp(-float(self.tilt) * (np.arange(len(f)) + self.T * self.lo) / self.D)
            fl.append(f)
        self._floats = tuple(fl)

    def _poly(self, k: int) -> fmpz_poly:
        if self._polys[k] is None:
            self._polys[k] = fmpz_poly(self.ints[k].tolist())
        return self._polys[k]

    @property
    def u(self) -> fmpz_poly:
        """The split product's masses U 2^-eu as a polynomial over the lattice points."""
        return self._poly(0)

    @property
    def bq(self) -> fmpz_poly:
        """The tests' alternative masses (rounded down) 2^-eb."""
        return self._poly(1)

    @property
    def ap(self) -> fmpz_poly:
        """The tests' null masses (rounded up) 2^-ea."""
        return self._poly(2)

    def _tilted_sum(self, poly: fmpz_poly, i0: int, extra: int = 0) -> arb:
        """sum_{i >= i0} p_i e^{-(c + extra) G_i}, G_i = (i + T lo)/D (c the tilt): the tilt
        divided out, e^{-extra G} kept (extra 0 or 1)."""
        tail = poly.right_shift(i0) if i0 else poly
        rate = arb(self.tilt.numerator) / self.tilt.denominator + extra
        if rate == 0:
            return arb(tail(1))
        g = arb(i0 + self.T * self.lo) / self.D
        return arb_poly(tail)((-rate / self.D).exp()) * (-rate * g).exp()

    # -- floats (placement only) --------------------------------------------------------------
    def _split_crossing(self, d: float, lo: float) -> float:
        """A float guess of the least eps >= lo where the split product's profile (of
        :meth:`delta_upper`, from its masses in floats) falls below d: bisection on
        S1(i0) - e^eps S2(i0), the suffix sums of the masses and of the masses times e^{-G}
        over the lattice points G > eps (computed once)."""
        fu = self._floats[0]
        g = (np.arange(len(fu)) + self.T * self.lo) / self.D
        s1 = np.cumsum(fu[::-1])[::-1]
        s2 = np.cumsum((fu * np.exp(-g))[::-1])[::-1]

        def f(eps: float) -> float:
            i0 = max(math.floor(eps * self.D) - self.T * self.lo + 1, 0)
            return 0.0 if i0 >= len(fu) else float(s1[i0] - math.exp(eps) * s2[i0])

        a, b = lo, float(g[-1]) + 1.0 / self.D  # (f = 0 < d above the largest point)
        for _ in range(80):
            if b - a <= 1e-13 * b:
                break
            m = 0.5 * (a + b)
            if f(m) < d:
                b = m
            else:
                a = m
        return b

    # -- certified ------------------------------------------------------------------------------
    def delta_upper(self, eps: float) -> arb:
        """A ball whose upper end is at least delta(eps): the split product's profile."""
        D, T = self.D, self.T
        # lattice point i is G = (i + T lo) / D; the first with G > eps
        i0 = math.floor(Fraction(eps) * D) - T * self.lo + 1
        i0 = max(i0, 0)
        if i0 >= self.u.length():
            return arb(self.inf_u) * arb(2) ** (-self.eu)
        s1 = self._tilted_sum(self.u, i0) + self.inf_u
        s2 = self._tilted_sum(self.u, i0, 1)
        return (s1 - arb(eps).exp() * s2) * arb(2) ** (-self.eu)

    def test_masses(self, t: int) -> tuple[arb, arb]:
        """(B(E) lower, A(E) upper) for E = "the cells' indices sum to at least t": balls
        (not with a ``window``: its tests are read by ``numeric.cells_curve``)."""
        if self.window is not None:
            raise ValueError("CellPower.test_masses: the tests of a power with a window are "
                             "read from B_tot and its prefix sums (numeric.cells_curve)")
        k = max(t - self.T * self.lo, 0)

        def suffix(p: fmpz_poly) -> arb:
            return arb(0) if k >= p.length() else self._tilted_sum(p, k)

        return (suffix(self.bq) * arb(2) ** (-self.eb),
                (suffix(self.ap) + self.inf_a) * arb(2) ** (-self.ea))

    def delta_lower(self, eps: float) -> arb:
        """A ball whose lower end is at most delta(eps): the best test near eps."""
        base = math.floor(eps * self.D) - self.T // 2
        best = None
        ee = arb(eps).exp()
        for t in range(base - self.T // 2 - 2, base + self.T // 2 + 3):
            b, a = self.test_masses(t)
            v = b - ee * a
            if best is None or v.lower() > best.lower():
                best = v
        return best

    def delta_lower_near(self, eps: float) -> arb:
        """:meth:`delta_lower` at the tests E_t whose float values (the powers' masses in
        floats) are within three indices of the best: seven Arb sums where :meth:`delta_lower`
        takes T + 5 (a long tilted power: 30 steps, 10^5 points); :meth:`delta_lower` where the
        floats see no positive test. Any test is sound: the float only places them."""
        _, fb, fa = self._floats
        n = max(len(fb), len(fa))  # (the powers' cut tops may differ)
        fb, fa = np.pad(fb, (0, n - len(fb))), np.pad(fa, (0, n - len(fa)))
        sb, sa = np.cumsum(fb[::-1])[::-1], np.cumsum(fa[::-1])[::-1]
        with np.errstate(over="ignore", invalid="ignore"):
            v = sb - math.exp(eps) * sa
        if not np.any(v > 0):
            return self.delta_lower(eps)
        k0 = int(np.argmax(v))
        ee = arb(eps).exp()
        best = None
        for k in range(max(k0 - 3, 0), min(k0 + 4, len(v))):
            b, a = self.test_masses(k + self.T * self.lo)
            val = b - ee * a
            if best is None or val.lower() > best.lower():
                best = val
        return best

    def epsilon(self, d_dn: float, d_up: float) -> tuple[float, float] | None:
        """Floats lo <= eps(d) <= hi for every d in [d_dn, d_up]: lo = the largest
        log((B(E_t) - d_up) / A(E_t)) over the tests E_t (then delta(lo) > d_up), hi with the
        split profile's delta(hi) < d_dn proved; None where no test proves eps(d) > 0."""
        D, T = self.D, self.T
        _, fb, fa = self._floats
        n = max(len(fb), len(fa))  # (the powers' cut tops may differ)
        fb, fa = np.pad(fb, (0, n - len(fb))), np.pad(fa, (0, n - len(fa)))
        sb, sa = np.cumsum(fb[::-1])[::-1], np.cumsum(fa[::-1])[::-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            et = np.log((sb - d_up) / sa)
        et[~np.isfinite(et)] = -np.inf
        if not np.any(np.isfinite(et)):
            return None
        k0 = int(np.argmax(et))
        lo = -math.inf
        with working_precision(128):
            for k in range(max(k0 - 3, 0), min(k0 + 4, len(et))):
                b, a = self.test_masses(k + T * self.lo)
                if not b > d_up or not a > 0:
                    continue
                lo = max(lo, lower(((b - d_up) / a).log()))
            if not lo > 0:
                return None
            # hi: the float profile's crossing, then proved by the split bound, moved up
            # (doubling steps) until it is: every point above a proved one is proved (delta is
            # non-increasing), so one or two Arb sums where a bisection on them took ten
            hi = max(self._split_crossing(d_dn, lo), lo)
            step = max(hi * 1e-10, 1.0 / D / T * 1e-6)
            for _ in range(60):
                budget.check()
                if upper(self.delta_upper(hi)) < d_dn:
                    break
                hi += step
                step *= 4
            else:
                return None
        return lo, hi


def cells_enclosure(law, T: int, kind: str, dn: float, up: float,
                    rel: float) -> tuple[float, float] | None:
    """Certified float bounds of delta(eps) (``kind`` "delta", eps in [dn, up]) or eps(d)
    ("epsilon", d in [dn, up]) of the T-fold power of ``law`` (its ``loss_cells(D)`` and
    ``loss_span()``) at the relative width ``rel``, or None: a first grid of
    :data:`CELLS` cells a step at rel = 1.25e-4 (the default tolerance's quarter), finer as
    sqrt(1.25e-4 / rel) (the h^2 law), then at most two refined grids; declined at once where a
    grid would exceed :data:`MAX_POINTS` lattice points (the inversion answers those)."""
    span = law.loss_span()
    D = max(1, math.ceil(CELLS / span * math.sqrt(1.25e-4 / rel)))
    for _ in range(3):
        if T * span * D > MAX_POINTS:
            return None
        try:
            cp = CellPower(law.loss_cells(D), T, D)
        except ValueError:  # (an atom on a grid point to the working precision)
            D += 1
            continue
        if kind == "delta":
            with working_precision(128):
                lo = max(0.0, lower(cp.delta_lower(up)))
                top = cp.delta_upper(dn)
                hi = 0.0 if top == 0 else min(1.0, upper(top))  # (0 beyond the largest loss)
        else:
            got = cp.epsilon(dn, up)
            if got is None:
                with working_precision(128):  # delta(0) <= d proved: eps(d) = 0
                    zero = cp.delta_upper(0.0) <= dn
                return (0.0, 0.0) if zero else None
            lo, hi = got
        if hi - lo <= rel * hi:
            return lo, hi
        w = (hi - lo) / hi if hi > 0 else math.inf
        D = math.ceil(D * min(4.0, max(1.5, 1.3 * math.sqrt(w / rel))))
    return None
