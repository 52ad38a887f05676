"""Certified delta(eps) and eps(delta) of the T-fold power of one pair given by the cells of its
privacy loss (``numeric.lattice_cells``), with the tests' null masses tilted: the right bits
where eps is large.

``lattice_cells.CellPower`` keeps BITS bits of each power's total mass. Its test of eps(d),
"the cells' indices sum to at least t", needs the null mass A(E_t) of the event, about
d e^{-eps}: at eps = 25 (AddRemove(Mix(L_10, 1/100))^43, eps(1e-5)) that is 1e-16 of the total,
below the fixed point's rounding (a unit 2^-61 a point, 10^5 points), so the test's lower bound
of eps fell from 21.3 to 19.7 as the grid was refined while the split's upper bound stayed at
25.0148. Tilting every power by the same e^{c G} (``CellPower``'s ``tilt``) does not help
for mu = 100: the split and the alternative masses tilted by e^{G} total E_B[e^L]^T, beyond a
float.

Here each power has its own tilt. The split product U and the tests' alternative masses Bq are
kept untilted (their suffix sums above eps are of the order of delta itself), and the tests'
null masses Ap are tilted by e^{G}, each cell's a times e^{g_j} (its cell's lower end: the
tilted total is at most E_A[e^L] = 1, so no overflow), which is of the order of Bq: the tilted
suffix sum of A(E_t) then carries BITS bits of B(E_t) ~ delta, and the tilt is divided out in
Arb (sum_{i >= k} Ap_i e^{-G_i}, an Arb polynomial in e^{-1/D}). Every bound is that of
``lattice_cells`` (Dong, Roth & Su, Lemma 1 and Prop. 6):

* delta(eps) <= sum_{G > eps} U(G) (1 - e^{eps - G}) + U(+oo) (the split product, masses
  rounded up; the top cut moved to +oo);
* delta(eps) >= B(E_t) - e^eps A(E_t) for every t (B rounded down, its cut top dropped; A
  rounded up coefficient by coefficient in the tilted fixed point, every point kept), so
  eps(d) >= log((B(E_t) - d) / A(E_t)) where B(E_t) > d.

The tilt is a change of the fixed point's scale point by point: a coefficient-wise upper bound
of the tilted masses times e^{-G_i} is a coefficient-wise upper bound of the masses.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpz_poly

from . import budget
from .cf_laws import lower, upper, working_precision
from .lattice_cells import BITS, DROP, _fixed, _power_array

__all__ = ["TiltedCellPower", "PREC"]

#: Arb precision of the sums (bits).
PREC = 128


def _log_suffix(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """log sum_{k >= i} f_k e^{-g_k} for every i, in floats (-inf where the sum is 0)."""
    with np.errstate(divide="ignore"):
        terms = np.log(f) - g
    return np.logaddexp.accumulate(terms[::-1])[::-1]


def _ints(vals: list[arb], up: bool) -> tuple[list[int], int]:
    """The masses as integers times 2^-K, their sum below 2^BITS (``lattice_cells``)."""
    tot = sum(vals, arb(0))
    K = BITS - 2 - max(0, math.ceil(math.log2(max(upper(tot), 1e-300)) - 0.5))
    ints = [_fixed(x, K, up) for x in vals]
    while sum(ints) >> BITS:
        K -= 1
        ints = [_fixed(x, K, up) for x in vals]
    return ints, K


class TiltedCellPower:
    """The T-fold power of the pair given by ``cells`` [(a, b, j), ...] on the grid 1/D (the
    module): U and Bq untilted, Ap tilted by e^{G}."""

    def __init__(self, cells: list, T: int, D: int) -> None:
        self.T, self.D = int(T), int(D)
        self.lo = min(c[2] for c in cells)
        n = max(c[2] + (c[3] if len(c) > 3 else 1) for c in cells) - self.lo + 1
        u, bq, ap = [arb(0)] * n, [arb(0)] * n, [arb(0)] * n
        with working_precision(PREC):
            h = arb(1) / self.D
            for c in cells:
                a, b, j = c[0], c[1], c[2]
                w = c[3] if len(c) > 3 else 1
                if w < 1:
                    raise ValueError(f"TiltedCellPower: a cell's width w = {w} must be >= 1")
                i = j - self.lo
                if not b == 0:  # (b exactly 0: an outcome of loss -oo, no split mass)
                    e0, e1 = (-(j * h)).exp(), (-((j + w) * h)).exp()
                    m0 = (a - b * e1) / (e0 - e1)
                    for at, v in ((i, m0), (i + w, b - m0)):  # (a part below 0 counts as 0)
                        if not v < 0:
                            u[at] += v
                bq[i] += b
                ap[i] += a * (j * h).exp()  # (the tilt e^{g_j}: the cell's index j)
            (iu, ku), (ib, kb), (ia, ka) = _ints(u, True), _ints(bq, False), _ints(ap, True)
        self.pu, self.eu, self.inf_u = _power_array(iu, ku, self.T, True, DROP)
        self.pb, self.eb, _ = _power_array(ib, kb, self.T, False, DROP)
        self.pa, self.ea, _ = _power_array(ia, ka, self.T, True)  # (tilted: every point)
        self._polys: dict = {}
        off = self.T * self.lo
        # floats (placement only): suffix sums of U and B, and the logarithms of the suffix
        # sums of U e^{-G} and of A (the tilt divided out), in log space: e^{-G} leaves the
        # floats' range past G = 745 (mu = 10, q = 1/10, T = 1000: eps(1e-5) ~ 710)
        self.gu = (np.arange(len(self.pu)) + off) / self.D
        fu = np.ldexp(self.pu.astype(np.float64), -self.eu)
        self.su1 = np.cumsum(fu[::-1])[::-1]
        self.lsu2 = _log_suffix(fu, self.gu)
        m = max(len(self.pb), len(self.pa))
        fb = np.pad(np.ldexp(self.pb.astype(np.float64), -self.eb), (0, m - len(self.pb)))
        ga = (np.arange(len(self.pa)) + off) / self.D
        la = _log_suffix(np.ldexp(self.pa.astype(np.float64), -self.ea), ga)
        self.sb = np.cumsum(fb[::-1])[::-1]
        self.lsa = np.pad(la, (0, m - len(la)), constant_values=-np.inf)

    @property
    def points(self) -> int:
        """The lattice points of the longest power."""
        return max(len(self.pu), len(self.pb), len(self.pa))

    def _poly(self, key: str) -> fmpz_poly:
        p = self._polys.get(key)
        if p is None:
            p = self._polys[key] = fmpz_poly(getattr(self, key).tolist())
        return p

    def _sum(self, key: str, i0: int, rate: int) -> arb:
        """sum_{i >= i0} p_i e^{-rate G_i} (units of the power's scale), G_i = (i + T lo)/D."""
        poly = self._poly(key)
        if i0 >= poly.length():
            return arb(0)
        tail = poly.right_shift(i0) if i0 else poly
        if rate == 0:
            return arb(tail(1))
        g = arb(i0 + self.T * self.lo) / self.D
        return arb_poly(tail)((-arb(rate) / self.D).exp()) * (-rate * g).exp()

    # -- certified ------------------------------------------------------------------------------
    def delta_upper(self, eps: float) -> arb:
        """A ball whose upper end is at least delta(eps): the split product's profile."""
        i0 = max(math.floor(Fraction(eps) * self.D) - self.T * self.lo + 1, 0)
        s1 = self._sum("pu", i0, 0) + self.inf_u
        s2 = self._sum("pu", i0, 1)
        return (s1 - arb(eps).exp() * s2) * arb(2) ** (-self.eu)

    def test(self, k: int) -> tuple[arb, arb]:
        """(B(E) lower, A(E) upper) for E = "the cells' indices sum to at least k + T lo"."""
        b = self._sum("pb", k, 0) * arb(2) ** (-self.eb)
        a = self._sum("pa", k, 1) * arb(2) ** (-self.ea)
        return b, a

    def delta_lower(self, eps: float) -> arb:
        """A ball whose lower end is at most delta(eps): the best of the tests within three
        indices of the floats' best (any test is sound: the floats only place them)."""
        with np.errstate(over="ignore", invalid="ignore"):
            v = self.sb - np.exp(eps + self.lsa)
        k0 = int(np.nanargmax(v)) if np.any(np.isfinite(v)) else 0
        ee = arb(eps).exp()
        best = arb(0)
        for k in range(max(k0 - 3, 0), min(k0 + 4, len(v))):
            b, a = self.test(k)
            val = b - ee * a
            if val.lower() > best.lower():
                best = val
        return best

    def delta(self, dn: float, up: float) -> tuple[float, float]:
        """Floats lo <= delta(eps) <= hi for every eps in [dn, up] (delta non-increasing)."""
        with working_precision(PREC):
            lo = max(0.0, lower(self.delta_lower(up)))
            top = self.delta_upper(dn)
            hi = 0.0 if top == 0 else min(1.0, max(upper(top), 0.0))
        return lo, hi

    def _split_crossing(self, d: float, lo: float) -> float:
        """A float guess of the least eps >= lo where the split profile falls below d."""
        def f(eps: float) -> float:
            i0 = max(math.floor(eps * self.D) - self.T * self.lo + 1, 0)
            if i0 >= len(self.su1):
                return 0.0
            return float(self.su1[i0] - math.exp(min(eps + self.lsu2[i0], 700.0)))

        a, b = lo, float(self.gu[-1]) + 1.0 / self.D
        for _ in range(80):
            if b - a <= 1e-13 * b:
                break
            m = 0.5 * (a + b)
            a, b = (a, m) if f(m) < d else (m, b)
        return b

    def epsilon(self, d_dn: float, d_up: float) -> tuple[float, float]:
        """Floats lo <= eps(d) <= hi for every d in [d_dn, d_up] (hi = inf where not proved):
        lo the best test's log((B(E_t) - d_up) / A(E_t)) (0 where none is positive), hi the
        least eps the split profile proves delta(hi) < d_dn, found from the floats' crossing and
        moved up by growing steps until proved."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            et = np.log(self.sb - d_up) - self.lsa
        et[~np.isfinite(et)] = -np.inf
        lo = 0.0
        with working_precision(PREC):
            if np.any(np.isfinite(et)):
                k0 = int(np.argmax(et))
                for k in range(max(k0 - 3, 0), min(k0 + 4, len(et))):
                    b, a = self.test(k)
                    if b > d_up and a > 0:
                        lo = max(lo, lower(((b - d_up) / a).log()))
            if upper(self.delta_upper(0.0)) < d_dn:
                return 0.0, 0.0
            hi = max(self._split_crossing(d_dn, lo), lo)
            step = max(hi * 1e-10, 1.0 / self.D / self.T * 1e-6)
            for _ in range(60):
                budget.check()
                if upper(self.delta_upper(hi)) < d_dn:
                    return lo, hi
                hi += step
                step *= 4
        return lo, math.inf
