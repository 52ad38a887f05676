"""The atoms of one step's loss kept whole in the curve band of a composed lattice of cells: the
products of the atoms alone are exact points of the product's loss, the rest is split.

The curve band of ``numeric.cells_curve`` bounds the power above by the support lines of the
split product U (each outcome of a step shared between the two grid points around its loss,
Dong, Roth & Su, Lemma 1 and Sec. 3.1; ``numeric.lattice_cells``). For an outcome of a continuous
part of the loss the split costs about h^2 (the remainder inside a cell); for an atom it costs
the whole chord: an atom of loss l between g_j and g_{j+1} becomes two points, and the product
of T steps carries the atoms' products, of loss L_k = k l_0 + (T - k) l_1, spread over the
lattice around each. The trade-off curve is linear where the Neyman-Pearson test randomises on
one of those (Mix(Laplace(1), 1/3)^{(x) 10} at alpha = 0.74: the atom of loss 8 l_0 + 2 l_1 =
-0.98728, alternative mass 45 b_0^8 b_1^2), and there the split's line misses the power by
first order in h (3.4e-8 relative at D = 32 000 where the levels around it were 2e-10).

**The atoms' products apart.** The outcomes of the T-fold product whose every step is an atom
(A^T, A the atoms of one step) and the rest partition its outcome space, and the hockey-stick
divergence of a pair of measures is a sum over a partition of the outcomes
(sum (b - e^eps a)_+), so

    delta(eps) = delta_{A^T}(eps) + delta_R(eps),
    delta_{A^T}(eps) = sum_k b_k (1 - e^{eps - L_k})_+,   b_k = C(T, k) b_0^k b_1^{T - k},

the first exact (Arb balls), the second bounded by the split of the rest: R's split (each of
its terms a product of split factors, dominated term by term as U is) is U - S^T, S the atoms'
split, whose suffix sums are those of U (rounded up: at least the exact ones, the mass moved to
+oo included) less those of S^T rounded down (at most the exact ones): at least R's exact split
suffix sums, which is what a support line reads (weights 1 - e^{eps - G_k}, non-decreasing in
G_k, from the first lattice point above eps). So

    1 - f(alpha) <= B_{U - S^T}(> i) - e^eps A_{U - S^T}(> i) + delta_{A^T}(eps) + e^eps alpha

for every real eps in [G_i, G_{i+1}) (Dong, Roth & Su, Prop. 6): at the lattice points, each
line at most the split's (the exact atoms' profile is below their split's), and at the atoms'
losses L_k, the kinks the split lost. S^T is computed exactly in integers (the multinomial of
two two-point polynomials: (T + 1)^2 coefficients at most) from the lower ends of the atoms'
split masses, then rounded down to the units of U.

A law offers this by ``loss_atoms()``: balls (l_0, l_1, b_0, b_1), its two atoms' losses and
alternative masses (the null masses b e^{-l}), each atom inside one cell of ``loss_cells``
(``families.laplace_sampled``).
"""

from __future__ import annotations

import bisect
import math

import numpy as np
from flint import arb

from .cf_laws import upper, working_precision
from .lattice_cells import _fixed

__all__ = ["AtomLines", "MAX_T"]

#: The most steps whose atoms' products are kept apart ((T + 1)^2 exact coefficients of about
#: 96 T bits each, about T^3 products of integers to form them).
MAX_T = 64
#: Bits of the atoms' split masses (lower ends, floor) before their exact power.
SPLIT_BITS = 96
PREC = 128


class AtomLines:
    """The atoms' products of the T-fold power ``cp`` (a ``lattice_cells.CellPower``, untilted)
    apart from its split lattice (module docstring): :meth:`line` is the support line at any
    float eps. Raises ValueError where an atom's cell is not decided in Arb or T is too
    large."""

    def __init__(self, cp, atoms: tuple, prec: int = PREC) -> None:
        T, D, lo = cp.T, cp.D, cp.lo
        if T > MAX_T or getattr(cp, "tilt", 0):
            raise ValueError(f"AtomLines: T = {T} above {MAX_T}, or a tilted power")
        self.T, self.D, self.cp = T, D, cp
        n = len(cp.ints[0])
        with working_precision(prec):
            l0, l1, b0, b1 = (arb(v) for v in atoms)
            h = arb(1) / D
            split = []  # per atom: (first slot, [floor of m0 2^s, floor of m1 2^s])
            for lv, bv in ((l0, b0), (l1, b1)):
                j = math.floor(float(lv.mid()) * D)
                if not (arb(j) * h < lv and lv < arb(j + 1) * h):
                    raise ValueError("AtomLines: an atom's cell is not decided")
                e0, e1 = (-(j * h)).exp(), (-((j + 1) * h)).exp()
                a = bv * (-lv).exp()
                m0 = (a - bv * e1) / (e0 - e1)
                split.append((j - lo, [_fixed(m0, SPLIT_BITS, False),
                                       _fixed(bv - m0, SPLIT_BITS, False)]))
            # S^T exactly: sum_k C(T, k) (x^{p0} s0)^k (x^{p1} s1)^{T-k}, s0, s1 of degree 1
            (p0, s0), (p1, s1) = split
            pow0, pow1 = _powers(s0, T), _powers(s1, T)
            coef: dict = {}
            for k in range(T + 1):
                c = math.comb(T, k)
                poly = _mul(pow0[k], pow1[T - k])
                base = k * p0 + (T - k) * p1
                for m, v in enumerate(poly):
                    if v:
                        coef[base + m] = coef.get(base + m, 0) + c * v
            shift = T * SPLIT_BITS - cp.eu  # (units 2^-eu: floor)
            if shift < 0:
                raise ValueError("AtomLines: the power's units are finer than the atoms'")
            pos = sorted(i for i in coef if 0 <= i < n)  # (above the lattice: dropped, a
            vals = [coef[i] >> shift for i in pos]     # lower bound all the same)
            #: the slots of S^T (rounded down, units 2^-eu) below the power's top
            self.pos = np.array(pos, dtype=np.int64)
            self.vals = vals
            # suffix sums from slot pos[m] up: sum S and sum S e^{-G} (Arb)
            scale = arb(2) ** (-cp.eu)
            off = T * lo + getattr(cp, "shift", 0)
            sb, sa = [arb(0)] * (len(pos) + 1), [arb(0)] * (len(pos) + 1)
            for m in range(len(pos) - 1, -1, -1):
                v = arb(vals[m]) * scale
                sb[m] = sb[m + 1] + v
                sa[m] = sa[m + 1] + v * (-(arb(pos[m] + off) * h)).exp()
            self.sb, self.sa = sb, sa
            #: the atoms' products: losses L_k and alternative masses b_k (balls)
            self.L = [k * l0 + (T - k) * l1 for k in range(T + 1)]
            self.b = [math.comb(T, k) * b0 ** k * b1 ** (T - k) for k in range(T + 1)]
        self.Lf = np.array([float(v.mid()) for v in self.L])
        self._pos = pos
        #: the integer suffix sums of S^T from each slot (units 2^-eu)
        self.isuf = [0] * (len(pos) + 1)
        for m in range(len(pos) - 1, -1, -1):
            self.isuf[m] = self.isuf[m + 1] + vals[m]

    def near(self, lo: float, hi: float) -> list[float]:
        """The atoms' losses L_k (floats) in [lo, hi]."""
        return [float(v) for v in self.Lf[(self.Lf >= lo) & (self.Lf <= hi)]]

    def suffix_int(self, i: int) -> int:
        """sum_{k > i} of S^T's slots (integers, units 2^-eu)."""
        return self.isuf[bisect.bisect_right(self._pos, i)]

    def a_suffix(self, i: int) -> arb:
        """sum_{k > i} S_k e^{-G_k} 2^-eu (a ball)."""
        return self.sa[bisect.bisect_right(self._pos, i)]

    def profile(self, e: arb) -> arb:
        """A ball whose upper end bounds delta_{A^T}(e) = sum_k b_k (1 - e^{e - L_k})_+ (each
        term's upper end, at least 0) at the ball ``e`` (an exact point)."""
        tot = arb(0)
        for L, b in zip(self.L, self.b, strict=True):
            v = b * (1 - (e - L).exp())
            tot += arb(max(upper(v), 0.0))
        return tot


def _mul(p: list[int], q: list[int]) -> list[int]:
    """The product of two integer polynomials (coefficient lists, short)."""
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                out[i + j] += a * b
    return out


def _powers(s: list[int], T: int) -> list[list[int]]:
    """[s^0, s^1, ..., s^T] for a polynomial s of degree 1 (binomial coefficients)."""
    out, cur = [[1]], [1]
    for _ in range(T):
        cur = _mul(cur, s)
        out.append(cur)
    return out
