"""A block of grid factors composed exactly on a fine grid, seen as one grid factor of a coarse
grid: the two-level discretisation of ``numeric.grid_product``.

The grid product's two bounds err by one discretisation per factor: a power of k factors on the
grid h is enclosed to a width ~ k h^2 (the split's spread below the upper bound, the cells'
merging above the lower one; ``grid_product``'s module docstring). A block of m factors is
composed on the fine grid h' = h/r (``r`` an integer: every fine point is a coarse point or lies
between two), its three products exact lattice products there (``lattice_product``); the block
then enters the coarse product as *one* factor, discretised once on h. The coarse product pays
k/m discretisations of h, the blocks k (or k/2, blocks of two inside) of h': a width ~ k h^2
(1/(4m) + C/r^2) in place of k h^2 C (C about 1/8 for Skellam(1, 5) in blocks of two), for a
fine window about the coarse one when r^2 m ~ k (Skellam(1, 5)^1000: m = 40, r = 5, predicted
eleven times narrower on one coarse grid; measured at k = 48, m = 8, r = 2: 2.4, predicted 2).
Both levels' products cost about alike, so at equal width the work falls by about 1.7 at
k = 1000 (eps(1e-6) to 1e-9: two levels in about half the time one level needs) and not at
k = 100 (``nest_sizes``; the sum over levels of (n_l sd_l^2)^(1/3), n_l the discretisations
and sd_l the window of level l, is least at two levels for k in the thousands, at one for k
about 100).

Each of the block's three coarse views is built from one fine root (lo, R, Lambda, M) of the
block's product at the same tilt c (``LatticeProduct.root``: R(s') 2^-p' <= pi(s') e^{c l'(s')} /
Lambda, l'(s') = s'/D', D' = r D, and M >= sum over all fine points of pi(s') e^{c l'(s')}):

**Cells** (the views of the lower bound, ``kind`` "q" and "p"). The coarse cell of the block is
y = floor(s'/r) of its fine cell s' (the fine cell a deterministic function of the block's
atoms: the fine views' own cells), so the event "the coarse product's cell sum is >= t" is a
deterministic event of the factors' outcomes, and ``grid_product``'s test bound holds for it
(Dong, Roth & Su, Prop. 6): its Q-mass from below by the coarse Q-product of lower bounds,
its P-mass from above by the coarse P-product plus its dropped mass, bounded by the views' mgf
bounds. The cell's mass tilted at the coarse point, pi(y) e^{c h y} = sum_{t < r} pi(r y + t)
e^{c l'(r y + t)} e^{-c t/D'}, is at least Lambda 2^-p' sum_t R(r y + t) e^{-c t/D'}: the
root times a polynomial of r integer weights (rounded down), every r-th coefficient. The block's
loss lies in [h y, h y + h + rho') (rho' the fine product's cell width): ``residual``.

**Split** (the upper bound, ``kind`` "s"). The fine split product is a lattice pair on h' Z
(Q-masses pi_s(g'), P-masses pi_s(g') e^{-g'}) that dominates the block's pair (the factors'
split views dominate them; the tensor product is monotone: Dong, Roth & Su, Sec. 3.1). Its atom
at g' = G_j + t/D' (G_j = j/D a coarse point, 0 <= t < r) is split again between G_j and
G_{j+1}, keeping both masses: Q-weights w_lo(t) = (e^{-t/D'} - e^{-1/D})/(1 - e^{-1/D}) and
w_hi = 1 - w_lo (all at G_j when t = 0); a post-processing merges them back (Lemma 1), so the
coarse split view dominates the fine split product and so the block. Its tilted mass at G_j
gathers A_t R(r j + t) and B_t R(r (j - 1) + t) with A_t = w_lo(t) e^{-c t/D'}, B_t = w_hi(t)
e^{c (1/D - t/D')}: again the root times a polynomial of 2r integer weights. The split masses are
linear in the fine atom's Q-mass with non-negative weights (its loss g' is exact), so lower bounds
of the fine masses give lower bounds of the coarse ones.

**Mgf bounds** (the certificate (2) of ``lattice_product`` for what every product dropped). A
coarse view's tilted mass is sum over the fine points of pi(s') e^{c l'(s')} rho_t (rho_t =
e^{-c t/D'} for the cells, A_t + B_t for the split; t = s' mod r). With a(s') = Lambda 2^-p'
R(s') below pi(s') e^{c l'(s')} and the rest b(s') >= 0, summing to at most M - sum a, the
whole is at most sum_t rho_t S_t + max_t rho_t (M - sum a), S_t = sum of a over s' = t mod r
(for any sign of c).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, fmpz, fmpz_poly

from .context import arb_precision
from .lattice_product import LatticeProduct, arb_of, exact_fraction

__all__ = ["NestedBlock", "nest_sizes"]

#: Bits of the integer weights beyond the coarse fixed point (each the lower end of its ball:
#: their floors lose 2^-WEIGHT_BITS of the mass, left to the certificate).
WEIGHT_BITS = 24
#: Bits of fixed point the fine roots carry beyond the coarse product's.
FINE_GUARD = 4


def nest_sizes(n: int) -> tuple[int, int]:
    """(m, r) for a power of n factors (composed in blocks of two on the fine grid): blocks of
    m factors (even) about sqrt(2 n), a divisor of n near it where there is one (no smaller
    block left over), and the fine grid r times the coarse one, r^2 m ~ n (the fine window then
    about the coarse one; planning)."""
    want = math.sqrt(2 * n)
    cands = [m for m in range(2, n + 1, 2) if 0.7 * want <= m <= 1.4 * want]
    exact = [m for m in cands if n % m == 0]
    m = min(exact or cands or [2], key=lambda v: abs(v - want))
    r = max(2, round(math.sqrt(n / m)))
    return m, r


class NestedBlock:
    """The product of ``factors`` = [(grid factor, multiplicity), ...] on the fine grid 1/(r D),
    as one grid factor of the coarse grid 1/D (module docstring)."""

    grid = True

    def __init__(self, factors: list[tuple[object, int]], r: int, D: int) -> None:
        if r < 1 or D < 1:
            raise ValueError(f"NestedBlock: r={r}, D={D} (positive integers)")
        self.factors = [(f, int(n)) for f, n in factors]
        self.r, self.D, self.Df = int(r), int(D), int(r) * int(D)
        hf = Fraction(1, self.Df)
        q, p, s = [], [], []
        for f, n in self.factors:
            vq, vp = f.views(hf)
            q.append((vq, n))
            p.append((vp, n))
            s.append((f.split_view(hf), n))
        self.lp = {"q": LatticeProduct(q, self.Df), "p": LatticeProduct(p, self.Df),
                   "s": LatticeProduct(s, self.Df)}
        for lp in self.lp.values():
            if lp.g != 1 or lp.B != 0:
                raise ValueError("NestedBlock: the fine views must have step 1/D' and offset 0")
        self.count = sum(n for _, n in self.factors)

    def __repr__(self) -> str:
        return f"NestedBlock({self.factors}, r={self.r}, D={self.D})"

    def residual(self, h) -> Fraction:
        """The block's loss lies in [h y, h y + rho) of its coarse cell: h plus the fine
        product's cell width."""
        return Fraction(h) + sum((n * f.residual(Fraction(1, self.Df)) for f, n in self.factors),
                                 Fraction(0))

    def loss_var(self) -> float:
        return sum(n * f.loss_var() for f, n in self.factors)

    def split_cost(self, Ds, c: float):
        """Planning (floats), as the factors' ``split_cost``: h^2/4 for the coarse grid (the
        block's fine points fill the cells: u uniform, E u(1 - u) + Var u = 1/4) plus the fine
        grid's r D cost of the block's factors."""
        Ds = np.asarray(Ds, dtype=np.float64)
        out = 0.25 / (Ds * Ds)
        for f, n in self.factors:
            sc = getattr(f, "split_cost", None)
            out = out + n * (sc(self.r * Ds, c) if sc is not None
                             else 0.25 / (self.r * Ds) ** 2)
        return out

    def views(self, h) -> tuple:
        return _NestView(self, h, "q"), _NestView(self, h, "p")

    def split_view(self, h) -> _NestView:
        return _NestView(self, h, "s")


class _NestView:
    """One coarse view of a :class:`NestedBlock` on h Z (``kind`` "q", "p": the cells' Q- and
    P-masses; "s": the split view): a lattice factor of loss h y and offset 0."""

    def __init__(self, block: NestedBlock, h, kind: str) -> None:
        self.b, self.kind = block, kind
        self.step, self.offset = Fraction(h), Fraction(0)
        self.D = self.step.denominator
        if self.step.numerator != 1 or self.D != block.D:
            raise ValueError(f"NestedBlock: a view on h={h}, the block's coarse grid is "
                             f"1/{block.D}")
        self.r = block.r
        self.lp = block.lp[kind]
        self._used: dict[float, tuple[float, int]] = {}  # tilt -> (T, prec) of its fine root

    def plan(self, c: float) -> tuple[float, float, float]:
        """(log of the tilted mass, tilted mean of y, its sd) from the fine product's factors
        (floats, planning only)."""
        lp = self.lp
        logm = sum(n * f.plan(c)[0] for f, n in lp.factors)
        var = sum(n * (float(f.step) * f.plan(c)[2]) ** 2 for f, n in lp.factors)
        return logm, lp.mean_loss(c) * self.D, max(math.sqrt(var) * self.D, 0.5)

    def _weights(self, c: arb) -> tuple[list[arb], list[arb]]:
        """(A_t, B_t), t = 0 .. r - 1 (module docstring; B_0 = 0): the weights of a fine point
        r j + t at the coarse points j and j + 1."""
        r, Df = self.r, self.b.Df
        t = [arb_of(Fraction(i, Df)) for i in range(r)]
        if self.kind != "s":
            return [(-c * x).exp() for x in t], [arb(0)] * r
        h = arb_of(Fraction(1, self.D))
        eh = (-h).exp()
        A, B = [arb(1)], [arb(0)]
        for x in t[1:]:
            wlo = ((-x).exp() - eh) / (1 - eh)
            A.append(wlo * (-c * x).exp())
            B.append((1 - wlo) * (c * (h - x)).exp())
        return A, B

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        """Integers I(y) <= 2^prec mass(y) e^{c h y}/scale, y = ylo .. yhi, from the fine root
        at the tilt c (module docstring), its window the caller's in standard deviations."""
        _, _, sy = self.plan(c)
        T = max((yhi - ylo) / (2 * sy) - 2, 4.0)
        pf = prec + FINE_GUARD
        self._used[c] = (T, pf)
        lo, R, lam, _ = self.lp.root(c, T, pf)
        r = self.r
        wb = prec + WEIGHT_BITS  # the weights' bits: k A_t about 2^(prec + WEIGHT_BITS)
        with arb_precision(2 * prec + 96):
            A, B = self._weights(arb_of(c))
            k = lam * arb(2) ** (prec - pf + wb) / arb_of(scale)
            w = [0] * (2 * r)
            for i in range(r):  # the coefficient r - 1 - t holds A_t, 2r - 1 - t holds B_t
                w[r - 1 - i] = _floor(k * A[i])
                w[2 * r - 1 - i] = _floor(k * B[i])
        P = R * fmpz_poly(w)
        j0 = r * ylo - lo + r - 1  # the coefficient of the cell ylo
        P = P.right_shift(j0) if j0 > 0 else P.left_shift(-j0) if j0 < 0 else P
        P = P.deflate(r) // fmpz(2) ** wb
        out = [int(v) for v in P.coeffs()[: yhi - ylo + 1]]
        return out + [0] * (yhi - ylo + 1 - len(out))

    def mgf_ball(self, c: arb) -> arb:
        """A ball above sum_y mass(y) e^{c h y}, the whole block's (module docstring)."""
        cf = float(exact_fraction(c.mid()))
        T, pf = self._used.get(cf, (8.0, 64))
        lo, R, lam, M = self.lp.root(cf, T, pf)
        r = self.r
        A, B = self._weights(c)
        rho = [a + b for a, b in zip(A, B, strict=True)]
        scale = lam / arb(2) ** pf
        known = arb(0)
        total = 0
        for t in range(r):  # S_t: the coefficients of the fine points s' = t mod r
            St = R.right_shift((t - lo) % r).deflate(r)(1)
            total += St
            known += rho[t] * arb(St)
        top = rho[0]
        for x in rho[1:]:
            top = top.union(x)
        rest = M - scale * arb(total)
        return scale * known + arb(top.upper()) * rest


def _floor(x: arb) -> int:
    """The floor of a ball's lower end, at least 0."""
    lo = x.lower()
    return int(lo.floor().unique_fmpz()) if lo > 0 else 0
