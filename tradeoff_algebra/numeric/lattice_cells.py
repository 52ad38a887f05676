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

The fixed point: masses are integers times 2^-E; a product of two powers keeps its top
:data:`BITS` bits, rounded up for the upper bounds and down for the lower (binary powering:
about log2 T products of polynomials of at most T/D_cell points each, in C).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpz_poly

from . import budget
from .cf_laws import lower, upper, working_precision

__all__ = ["CellPower", "cells_enclosure", "MAX_POINTS", "BITS", "CELLS_ROUTE"]

#: Bits kept of the largest coefficient of a fixed-point power (the rest rounded away in the
#: bound's direction). Each product moves a coefficient by at most 2^-48 of its largest mass
#: (itself at most about 1/cells), so a tail sum by at most n 2^-48 / cells (n <= 10^4 points)
#: and the ~2 log2 T products together by below 1e-13: far below a delta of 1e-8 (q = 1/100,
#: b = 1, T = 20 .. 100: the bracket of eps(1e-10) 3.6e-5 to 6.8e-5 wide relative, against
#: 3.4e-5 to 4.1e-5 at 64 bits; 40 bits would widen it to 6.9e-3). A smaller delta only comes
#: out wider, never wrong (every rounding in its bound's direction); 48 bits make the
#: products about a quarter cheaper than 64 (T = 100: 26 ms against 34 ms).
BITS = 48
#: The most lattice points of a composed power (T times the cells of a step): the three powers
#: cost about T log T times the cells' products (q = 1/100, b = 1, 96 cells: T = 10 about
#: 3 ms, T = 50 about 13 ms, T = 100 about 26 ms), where the inversion's few-step split took
#: 260 to 390 ms (T = 10 .. 50) and its whole inversion 50 to 55 ms at T = 100 (1e-10 wide,
#: its 2F1 evaluations and planning); beyond 10^4 points the inversion answers.
MAX_POINTS = 10_000
#: Cells a step of the first grid at the default tolerance (relative width 1.25e-4 of eps:
#: q = 1/100, b = 1, T = 10 to 100 meet it there).
CELLS = 96
#: The route's note (``core.trace``).
CELLS_ROUTE = "certified cells of the loss composed on a lattice (split and test bounds)"


def _fixed(x: arb, k: int, up: bool) -> int:
    """ceil (``up``) or floor of x 2^k, at least 0."""
    y = x * arb(2) ** k
    v = y.upper().ceil() if up else y.lower().floor()
    return max(0, int(v.unique_fmpz()))


_ONES: dict = {}


def _shift(p: fmpz_poly, s: int, up: bool) -> fmpz_poly:
    """Coefficients divided by 2^s, rounded down, or up by floor + 1 (they are >= 0)."""
    if s <= 0:
        return p
    out = p // (1 << s)
    if up:
        n = p.length()
        ones = _ONES.get(n)
        if ones is None:
            if len(_ONES) > 16:
                _ONES.clear()
            ones = _ONES[n] = fmpz_poly([1] * n)
        out += ones
    return out


def _power(p: fmpz_poly, e: int, T: int, up: bool) -> tuple[fmpz_poly, int]:
    """(P, E) with P 2^-E the T-th power of p 2^-e, each product cut to :data:`BITS` bits
    rounded up (``up``) or down: a coefficient-wise upper or lower bound."""

    def mul(a, ea, b, eb):
        c = a * b
        s = c.height_bits() - BITS
        return (_shift(c, s, up), ea + eb - s) if s > 0 else (c, ea + eb)

    out, eo = None, 0
    base, eb = p, e
    n = T
    while n:
        budget.check()
        if n & 1:
            out, eo = (base, eb) if out is None else mul(out, eo, base, eb)
        n >>= 1
        if n:
            base, eb = mul(base, eb, base, eb)
    return out, eo


class CellPower:
    """The T-fold power of the pair given by ``cells`` [(a, b, j), ...] on the grid 1/D
    (module docstring): the split product U (grid points from ``lo``) and the test products
    Bq (alternative masses, down) and Ap (null masses, up) over the cells' indices."""

    def __init__(self, cells: list, T: int, D: int, prec: int = 128) -> None:
        self.T, self.D = int(T), int(D)
        js = [j for _, _, j in cells]
        self.lo = min(js)
        n = max(js) - self.lo + 2
        K = 72  # fixed-point bits of one step's masses
        u, bq, ap = [0] * n, [0] * n, [0] * n
        with working_precision(prec):
            h = arb(1) / self.D
            for a, b, j in cells:
                i = j - self.lo
                e0, e1 = (-(j * h)).exp(), (-((j + 1) * h)).exp()
                m0 = (a - b * e1) / (e0 - e1)
                u[i] += _fixed(m0, K, True)
                u[i + 1] += _fixed(b - m0, K, True)
                bq[i] += _fixed(b, K, False)
                ap[i] += _fixed(a, K, True)
        self.u, self.eu = _power(fmpz_poly(u), K, self.T, True)
        self.bq, self.eb = _power(fmpz_poly(bq), K, self.T, False)
        self.ap, self.ea = _power(fmpz_poly(ap), K, self.T, True)
        scale = 2.0 ** -K
        self._floats = (np.array(bq, dtype=float) * scale, np.array(ap, dtype=float) * scale)

    # -- floats (placement only) --------------------------------------------------------------
    def _float_power(self, v: np.ndarray) -> np.ndarray:
        """The T-fold power of the float masses ``v`` (FFT), for guesses only."""
        n = self.T * (len(v) - 1) + 1
        size = 1 << int(math.ceil(math.log2(n)))
        return np.maximum(np.fft.irfft(np.fft.rfft(v, size) ** self.T, size)[:n], 0.0)

    # -- certified ------------------------------------------------------------------------------
    def delta_upper(self, eps: float) -> arb:
        """A ball whose upper end is at least delta(eps): the split product's profile."""
        D, T = self.D, self.T
        # lattice point i is G = (i + T lo) / D; the first with G > eps
        i0 = math.floor(Fraction(eps) * D) - T * self.lo + 1
        i0 = max(i0, 0)
        if i0 >= self.u.length():
            return arb(0)
        tail = self.u.right_shift(i0) if i0 else self.u
        s1 = arb(tail(1))
        z = (-arb(1) / D).exp()
        s2 = arb_poly(tail)(z)
        g = arb(i0 + T * self.lo) / D
        return (s1 - (arb(eps) - g).exp() * s2) * arb(2) ** (-self.eu)

    def test_masses(self, t: int) -> tuple[arb, arb]:
        """(B(E) lower, A(E) upper) for E = "the cells' indices sum to at least t": balls."""
        k = t - self.T * self.lo
        if k <= 0:
            return arb(self.bq(1)) * arb(2) ** (-self.eb), arb(self.ap(1)) * arb(2) ** (-self.ea)
        if k >= self.bq.length():
            return arb(0), arb(0)
        return (arb(self.bq.right_shift(k)(1)) * arb(2) ** (-self.eb),
                arb(self.ap.right_shift(k)(1)) * arb(2) ** (-self.ea))

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

    def epsilon(self, d_dn: float, d_up: float) -> tuple[float, float] | None:
        """Floats lo <= eps(d) <= hi for every d in [d_dn, d_up]: lo = the largest
        log((B(E_t) - d_up) / A(E_t)) over the tests E_t (then delta(lo) > d_up), hi with the
        split profile's delta(hi) < d_dn proved; None where no test proves eps(d) > 0."""
        D, T = self.D, self.T
        fb, fa = (self._float_power(v) for v in self._floats)
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
            # hi: from lo up, widened until the split bound proves it (a_ the last point not
            # proved: delta is non-increasing, so every point above a proved one is proved)
            step = max(lo * 1e-6, 1.0 / D / T)
            a_, hi = lo, lo
            for _ in range(60):
                budget.check()
                a_, hi = hi, hi + step
                if upper(self.delta_upper(hi)) < d_dn:
                    break
                step *= 2
            else:
                return None
            # shrink hi by bisection between a_ and hi until the part of the bracket left to it
            # is below 1/64 of the bracket (each delta_upper sums ~T * cells points)
            b_ = hi
            for _ in range(12):
                if b_ - a_ <= (b_ - lo) / 64:
                    break
                m = 0.5 * (a_ + b_)
                if upper(self.delta_upper(m)) < d_dn:
                    b_ = m
                else:
                    a_ = m
            hi = b_
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
