"""The grid view of the Skellam mechanism's loss (``families.skellam``): its atoms in cells of a
fine grid h Z with their exact P- and Q-masses, and the split (connect-the-dots) view that shares
each atom between the two grid points around its loss keeping both its masses, the two grid
factors that ``numeric.grid_product`` composes (below, the best cell test; above, the split
product, a dominating lattice pair).

The family module registers :class:`SkellamGrid` as its lattice factor and hands it what it needs
from the family as arguments (the Bessel sums in Arb at a precision, the certified Renyi sum,
the float atoms of the plan), so that this module imports nothing of it: one import order,
``skellam`` -> ``skellam_grid``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from ..numeric.context import arb_precision

__all__ = ["SkellamGrid", "BLOCK_TAU"]

#: A pair of atoms (a block of two factors, ``SkellamGrid.block``) is kept when its P- or Q-mass
#: is above this (the rest is left to the views' mgf bounds).
BLOCK_TAU = 1e-40


def _shared(prec: int) -> int:
    """A precision of the grid view's Bessel sums: ``prec`` rounded up to 64 bits, so that the
    views' integers, their mgf bounds and the Renyi sum of the mgf share one set of Bessel balls
    (each precision computes its own: three sets cost a fifth of a 1e-4 answer for mu = 50)."""
    return -(-prec // 64) * 64


class SkellamGrid:
    """The Skellam loss as a grid factor (``numeric.grid_product``): the atoms x with Q(x) =
    p(x - Delta), P(x) = p(x), L(x) = log(Q(x)/P(x)) as Arb balls (the Bessel sums above), put
    in the cells h y <= L(x) < h y + rho of a grid h Z; its two views carry the cells' Q- and
    P-masses. The mgf E_Q[e^{c L}] = sum_x p(x)^{1 + c} p(x - Delta)^{-c} (x -> Delta - x) is
    e^{c D_{1+c}} with the certified Renyi sum (``skellam.renyi_ball``); it bounds both views' mgfs
    from above (h y <= L).

    **Blocks** (``m = 2``, :meth:`block`): the pair Skellam (x) Skellam as one grid factor, its
    atoms the unordered pairs {x1, x2} (Q-mass Q(x1) Q(x2) times 2 when x1 != x2, likewise P,
    loss L(x1) + L(x2): the exact product law, Dong, Roth & Su, Def. 5), its mgf the square.
    A power of k factors is composed as k/2 blocks: the grid's error, an error per factor
    discretised (the split's spread, the cells' merging: ~ h^2 each), is paid k/2 times, not k
    times, for about 3000 atoms in Arb instead of 80. Pairs whose two masses are both below
    :data:`BLOCK_TAU` are left out (their mass, like every atom's outside the float window, is
    left to the mgf bound of the views)."""

    grid = True

    def __init__(self, f: Any, m: int = 1, *, sums: Callable, renyi: Callable,
                 atoms: Callable) -> None:
        if m not in (1, 2):
            raise ValueError(f"SkellamGrid: m={m} (blocks of 1 or 2 factors)")
        self.f, self.d, self.m = f, int(f.sensitivity), m
        self._source = {"sums": sums, "renyi": renyi, "atoms": atoms}
        x, pm, qm = atoms(f)
        keep = (pm > 0) & (qm > 0)
        x, pm, qm = x[keep], pm[keep], qm[keep]
        if m == 1:
            self.xs = [(int(v),) for v in x]
            self.mult = [1] * len(x)
        else:
            i, j = np.triu_indices(len(x))
            w = np.where(i == j, 1.0, 2.0)
            pm, qm = pm[i] * pm[j] * w, qm[i] * qm[j] * w
            sel = (pm > BLOCK_TAU) | (qm > BLOCK_TAU)
            i, j, pm, qm = i[sel], j[sel], pm[sel], qm[sel]
            self.xs = [(int(x[a]), int(x[b])) for a, b in zip(i, j, strict=True)]
            self.mult = [1 if a == b else 2 for a, b in zip(i, j, strict=True)]
        self.pm, self.qm = pm, qm
        self.lf = np.log(self.qm) - np.log(self.pm)
        self._mgf: dict = {}
        self._one = self if m == 1 else None

    def __repr__(self) -> str:
        return f"SkellamGrid({self.f})" if self.m == 1 else f"SkellamGrid({self.f}, m=2)"

    def sums(self, prec: int):
        """The family's Bessel sums p(x), U(m) as Arb balls at ``prec`` (its ``_sums``)."""
        return self._source["sums"](self.f, prec)

    def block(self, m: int) -> SkellamGrid | None:
        """The grid factor of m = 2 factors at once (class docstring), or None."""
        if m != 2 or self.m != 1:
            return None
        g = SkellamGrid(self.f, 2, **self._source)
        g._one = self
        return g

    def balls(self, S, i: int):
        """(P, Q) of the atom i as Arb balls (S the Bessel sums at the working precision)."""
        xs, k = self.xs[i], self.mult[i]
        P, Q = S.p(xs[0]), S.p(xs[0] - self.d)
        for x in xs[1:]:
            P, Q = P * S.p(x), Q * S.p(x - self.d)
        return (P * k, Q * k) if k != 1 else (P, Q)

    def zero_loss(self, i: int) -> bool:
        """Is the atom i's loss exactly 0 (P = Q)? L(Delta - x) = -L(x) (the symmetry x ->
        Delta - x), L increasing: for one atom 2x = Delta, for a pair x1 + x2 = Delta."""
        return sum(self.xs[i]) * (2 if self.m == 1 else 1) == self.d

    def loss_var(self) -> float:
        """Var_Q(L) in floats (planning the grid)."""
        w = self.qm / self.qm.sum()
        m = float((w * self.lf).sum())
        return float((w * (self.lf - m) ** 2).sum())

    def split_cost(self, Ds, c: float):
        """Planning (floats): for each grid 1/D of the array ``Ds``, h^2 (E_w[u(1 - u)] +
        Var_w(u)), u = frac(D L(x)) the atoms' places in their cells and w their Q-masses
        tilted at c (the product's law near the eps it is asked at). The split spreads an atom
        by h^2 u(1 - u) of variance (the upper bound's excess), the cells merge atoms whose
        places vary by Var(u) (the cell test's loss): grids that put the heavy atoms near
        their grid points make both small (``numeric.grid_product``)."""
        lw = np.log(self.qm) + c * self.lf
        w = np.exp(lw - lw.max())
        keep = w > 1e-9 * w.sum()  # (planning: the atoms that weigh)
        w, lf = w[keep] / w[keep].sum(), self.lf[keep]
        Ds = np.asarray(Ds, dtype=np.float64)
        u = np.mod(np.outer(Ds, lf), 1.0)
        m = u @ w
        cost = (u * (1 - u)) @ w + (u * u) @ w - m * m
        return cost / (Ds * Ds)

    def residual(self, h):
        """rho: every atom's loss lies in [h y, h y + rho) of its cell (the cells are decided
        on balls narrower than h 2^-41, so rho = h (1 + 2^-40))."""
        return h + h / 2**40

    def views(self, h) -> tuple:
        return _SkellamCells(self, h, "Q"), _SkellamCells(self, h, "P")

    def split_view(self, h) -> _SkellamSplit:
        """The connect-the-dots view on h Z (:class:`_SkellamSplit`): a lattice pair that
        dominates the Skellam pair (``numeric.grid_product``)."""
        return _SkellamSplit(self, h, "Q")

    def mgf(self, c):
        """A ball holding E_Q[e^{c L}] for an exact ball c >= 0 (class docstring; a block's is
        the square of one factor's)."""
        from flint import arb, ctx

        if c == 0:
            return arb(1)
        if self.m == 2:
            return self._one.mgf(c) ** 2
        key = (c.mid().str(40), ctx.prec)
        hit = self._mgf.get(key)
        if hit is None:
            man, exp = c.mid().man_exp()
            a = 1 + sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
            D = self._source["renyi"](self.f, a, _shared(ctx.prec + 20) - 20)
            hit = self._mgf[key] = (c * D).exp()
        return hit


class _SkellamCells:
    """One view of :class:`SkellamGrid` on the grid h Z (``side`` "Q": the cells' Q-masses,
    "P": their P-masses): a lattice factor of loss h y and offset 0."""

    def __init__(self, g: SkellamGrid, h, side: str) -> None:
        self.g, self.side = g, side
        self.step, self.offset = Fraction(h), Fraction(0)
        self.D = self.step.denominator

    def plan(self, c: float) -> tuple[float, float, float]:
        """(log of the tilted mass, tilted mean of y, its sd) in floats (planning only)."""
        g = self.g
        lw = np.log(g.qm if self.side == "Q" else g.pm) + c * g.lf
        m = float(lw.max())
        w = np.exp(lw - m)
        s = float(w.sum())
        y = g.lf * self.D
        mean = float((w * y).sum()) / s
        var = max(float((w * (y - mean) ** 2).sum()) / s, 0.0)
        return m + math.log(s), mean, max(math.sqrt(var), 0.5)

    #: How far below the window (in cells) an atom's float cell may lie and still reach it.
    _PAD = 2

    def _parts(self, S, i: int, width) -> list | None:
        """[(y, mass)]: the atom i's mass (Q or P, by the view's side) in its certified cell y,
        or None where its loss ball is too wide to decide the cell."""
        P, Q = self.g.balls(S, i)
        L = (Q / P).log()
        if not (2 * L.rad() < width):
            return None
        return [(int((L.lower() * self.D).floor().unique_fmpz()), Q if self.side == "Q" else P)]

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale) -> list[int]:
        """Integers I(y) <= 2^prec mass(y) e^{c h y}/scale, y = ylo..yhi, the masses the
        view's :meth:`_parts` gives each atom (an atom whose ball is too wide to decide is left
        out: lower bounds)."""
        from flint import arb, fmpq

        g = self.g
        out = [0] * (yhi - ylo + 1)
        yf = np.floor(g.lf * self.D)
        sel = np.nonzero((yf >= ylo - self._PAD) & (yf <= yhi + 2))[0]
        if not len(sel):
            return out
        with arb_precision(_shared(prec + 64)):
            S = g.sums(_shared(prec + 64))
            cc = arb(fmpq(*Fraction(c).as_integer_ratio()))
            hstep = arb(fmpq(1, self.D))
            ls = arb(fmpq(scale.numerator, scale.denominator)).log()
            width = arb(2) ** -41 * hstep
            one = arb(2) ** prec
            acc: dict[int, Any] = {}
            for i in sel:
                parts = self._parts(S, int(i), width)
                for y, m in parts or ():
                    if ylo <= y <= yhi:
                        acc[y] = acc.get(y, arb(0)) + m * (cc * hstep * y - ls).exp() * one
            for y, w in acc.items():
                lo = w.lower()
                out[y - ylo] = int(lo.floor().unique_fmpz()) if lo > 0 else 0
        return out

    def mgf_ball(self, c):
        """A ball above the view's mgf sum_y mass(cell y) e^{c h y}: the whole mgf E_Q[e^{c L}]
        (Q-view; E_Q[e^{(c - 1) L}] for the P-view, P(x) e^{c L} = Q(x) e^{(c - 1) L}) less,
        over the float window's atoms whose cell is decided, mass(x) (e^{c L(x)} - e^{c h
        y(x)}) >= 0 (h y <= L): the cells' deficit computed, the tails bounded by the whole."""
        from flint import arb, ctx

        g = self.g
        total = g.mgf(c if self.side == "Q" else c - 1)
        with arb_precision(_shared(ctx.prec)):
            S = g.sums(_shared(ctx.prec))
        hstep = arb(1) / self.D
        width = arb(2) ** -41 * hstep
        deficit = arb(0)
        for i in range(len(g.lf)):
            P, Q = g.balls(S, i)
            L = (Q / P).log()
            if not (2 * L.rad() < width):
                continue
            y = int((L.lower() * self.D).floor().unique_fmpz())
            m = Q if self.side == "Q" else P
            deficit += m * ((c * L).exp() - (c * hstep * y).exp())
        return total - deficit


class _SkellamSplit(_SkellamCells):
    """The split (connect-the-dots) view of :class:`SkellamGrid` on h Z: each atom x, its loss
    L in [g_j, g_{j+1}) (g_j = h j), gives its Q-mass to the two grid points around L,

        m_j = (P - Q e^{-g_{j+1}})/(e^{-g_j} - e^{-g_{j+1}}),
        m_{j+1} = (Q e^{-g_j} - P)/(e^{-g_j} - e^{-g_{j+1}})            (P = P(x), Q = Q(x)),

    both >= 0, with m_j + m_{j+1} = Q and m_j e^{-g_j} + m_{j+1} e^{-g_{j+1}} = P: the atom's
    two masses are kept, so merging the two grid atoms back into one is a post-processing and
    the split pair (Q-masses m on h Z, P-masses m e^{-g}) dominates the Skellam pair (its
    trade-off function is below: Dong, Roth & Su, Lemma 1; so is every product of it, by the
    tensor product's monotonicity, their Sec. 3.1, property 2). A lattice factor of loss h y
    and offset 0 (``numeric.lattice_product``); the split product's delta is an upper bound of
    the true product's (``numeric.grid_product``)."""

    def __init__(self, g: SkellamGrid, h, side: str) -> None:
        super().__init__(g, h, side)
        self._assign: dict[int, tuple[int, int] | None] = {}  # x -> its two grid points

    def _split(self, S, x: int, width):
        """(L, Q, [(y, m(y)), ...]) as balls for the atom x (an index of the grid factor's
        atoms), or None where its loss ball is too wide (its mass is left to the mgf bound).
        L = 0 exactly (P = Q: ``SkellamGrid.zero_loss``): all at 0; a ball holding a grid point
        g_j is split over [g_{j-1}, g_{j+1}]. An atom's grid points are decided once and kept:
        one split pair at every precision."""
        from flint import arb, fmpq

        g = self.g
        P, Q = g.balls(S, x)
        if g.zero_loss(x):
            return arb(0), Q, [(0, Q)]
        L = (Q / P).log()
        ab = self._assign.get(x, False)
        if ab is False:  # decided once (setdefault: the first thread's), every precision alike
            ab = None
            if 2 * L.rad() < width:
                j = int((L.lower() * self.D).floor().unique_fmpz())
                k = int((L.upper() * self.D).floor().unique_fmpz())
                # [g_j, g_{j+1}], or around the grid point g_k a ball holds (k = j + 1)
                ab = (j, j + 1) if k == j else (k - 1, k + 1)
            ab = self._assign.setdefault(x, ab)
        if ab is None:
            return None
        a, b = ab
        e0 = arb(fmpq(-a, self.D)).exp()
        e1 = arb(fmpq(-b, self.D)).exp()
        den = e0 - e1
        return L, Q, [(a, (P - Q * e1) / den), (b, (Q * e0 - P) / den)]

    _PAD = 3  # (an atom's lower grid point may lie one cell below its float cell)

    def _parts(self, S, x: int, width) -> list | None:
        """[(y, m(y))]: the atom x's split masses on its two grid points (:meth:`_split`)."""
        got = self._split(S, x, width)
        return None if got is None else got[2]

    def mgf_ball(self, c):
        """A ball above the split law's mgf sum_y m(y) e^{c h y} (c >= 0): every atom's part
        sum m(y) e^{c h y} is at most Q e^{c (L + 2 h)} (its grid points are less than 2 h above
        L), so e^{2 c h} E_Q[e^{c L}] bounds the whole; less, over the float window's atoms
        split here, the difference Q e^{c (L + 2 h)} - sum m(y) e^{c h y} >= 0."""
        from flint import arb, ctx

        g = self.g
        hstep = arb(1) / self.D
        total = g.mgf(c) * (2 * c * hstep).exp()
        with arb_precision(_shared(ctx.prec)):
            S = g.sums(_shared(ctx.prec))
        width = arb(2) ** -41 * hstep
        deficit = arb(0)
        for x in range(len(g.lf)):
            got = self._split(S, x, width)
            if got is None:
                continue
            L, Q, parts = got
            deficit += Q * (c * (L + 2 * hstep)).exp()
            for y, m in parts:
                deficit -= m * (c * hstep * y).exp()
        return total - deficit
