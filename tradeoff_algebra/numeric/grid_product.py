"""Certified privacy profiles of products with factors whose losses lie on no lattice (the Skellam
mechanism: log-ratios of Bessel functions), by cells of a fine grid and the exact P- and Q-masses
of every cell below, and by the split (connect-the-dots) product above.

A *grid factor* has countably many atoms x with Q-mass Q(x), P-mass P(x) = Q(x) e^{-L(x)} and
loss L(x) (Arb balls); on the grid h Z (h = 1/D) each atom goes to the cell y with h y <= L(x) <
h y + rho (rho = h and the balls' widths). Its *Q-view* is the lattice factor with loss h y and
mass Q(cell y) = sum of Q(x) over the cell, its *P-view* the one with the cells' P-masses (both
``numeric.lattice_product.LatticeFactor``; an exact lattice factor's P-view is itself tilted by
one less: P(y) e^{(c + 1) l(y)} = Q(y) e^{c l(y)}), its *split view* (``split_view(h)``) the
lattice pair whose atom x is shared between the grid points g_j <= L(x) <= g_{j+1} so that both
its masses are kept (m_j + m_{j+1} = Q(x), m_j e^{-g_j} + m_{j+1} e^{-g_{j+1}} = P(x)).

**Lower bound: a test.** For every event A, delta(eps) >= Q(A) - e^eps P(A) (Dong, Roth & Su,
Prop. 6 and the Neyman-Pearson lemma). A = "the product's cell s = sum y_i is >= t": the Q- and
P-products (two lattice products on one grid, the Q-product tilted at c, the P-product at c +
1) keep lower bounds of Q_s and P_s, and what the P-product dropped from the cells s >= t is at
most e^{-(c + 1) l(t)} X_P (``lattice_product``'s (2)). The best t of a ternary search over the
cells within rho_tot below eps is taken (every t is sound); the test misses delta by the Jensen
gap of the cells straddling eps, about the density of L at eps times Var(sum r_i)/2, r_i the
factors' remainders in their cells: ~ k h^2 for k factors (and not rho_tot^2 = k^2 h^2: the
remainders' sum spreads like sqrt(k) h).

**Upper bound: the split product.** Merging the two grid atoms of a split atom back into one is
a post-processing, so the split pair dominates the factor's pair (its trade-off function is
below: Dong, Roth & Su, Lemma 1), and so does the product of split pairs dominate the product
(the tensor product is monotone: their Sec. 3.1, property 2). The split product is an exact
lattice product (one root, its P-masses m e^{-l}): its profile sum_{l(s) > eps} pi(s) (1 -
e^{eps - l(s)}) plus e^{-c eps} X for what it dropped (``lattice_product``, (1) and (2); X from
the split view's mgf bound) is above delta. It exceeds delta by the Jensen gap of the split
noise, also ~ k h^2 (h^2 u(1 - u) of variance per factor, u the atom's place in its cell).

Each kept mass of the cells s >= t is a suffix sum over a root, by blocks (:class:`_Suffix`:
each block's polynomial evaluated in Arb once, a query a part of one block).

eps(delta) is bracketed by two bisections on rationals: lo with the lower bound of delta(lo) > d
proved, hi with the upper bound of delta(hi) <= d proved (delta is non-increasing).

**Blocks.** Both bounds err by one discretisation per factor (the split's spread, the cells'
merging). A grid factor that offers ``block(2)`` (Skellam: the exact pair of two factors, its
atoms the pairs of atoms) has its power composed as n/2 blocks (and one factor when n is odd),
so the error is paid n/2 times: half the width on one grid, or the same width on a grid
sqrt(2) coarser. The first grid keeps the factors as given (fewer atoms in Arb).

**Nested blocks.** Where a grid factor's power reaches :data:`NEST_MIN` factors, the refined grid
composes it in blocks of m factors (blocks of two inside) on a grid r times finer, each block
one factor of the coarse grid (``numeric.grid_nest``, where both bounds' arguments are carried
through the two levels): the coarse error is paid k/m times, the fine one k/2 times at 1/r^2,
a width ~ k h^2 (1/(4m) + C/r^2) for a fine window about the coarse one (m ~ sqrt(2k), r^2 m ~
k): at equal width about 1.7 times less work than one level at k = 1000 (the two levels'
windows cost alike; the optimum of the sum over levels of (n_l sd_l^2)^(1/3), n_l the
discretisations and sd_l the window of level l, is at two levels).

The grid: a first one whose root window holds about :data:`START_POINTS` points (a multiple of
the exact factors' common denominator); where its enclosure is wider than the tolerance, one
finer grid, chosen once: the width's h^2 law with the constant of the grid's atoms (h^2 times
E u(1 - u) + Var u, u an atom's place in its cell, under the law tilted at the saddle point:
``cost``; the least denominator whose predicted width is within the tolerance), in blocks, at
most :data:`MAX_GRID_POINTS` points and the lattice product's window. The route offers itself
while rho_tot on the grid of :data:`GRID_POINTS` points is at most :data:`MAX_RHO` (about a
thousand factors of Skellam(1, 5); beyond, the PLD engine answers).

Measured (``benchmarks/RESULTS_new_mechanisms_lattice.md``, load about 11 on 2 cores): eps(1e-6)
of Skellam(1, 5)^k under ``pld_options(tol=1e-9)``: k = 10 to 6.1e-10 in 2.0 s of CPU, k = 100
to 8.7e-10 in 7.5 s (three coarse and three fine roots of 0.8 million coefficients), k = 1000
to 9.6e-10 in 16.9 s (nested; one level reached 4.4e-9 at its largest grid in 16 s) and to
9.8e-9 in 4.6 s at tol 1e-8; at tol 1e-4, 0.03 to 0.28 s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpz_poly
from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import NumericalError
from . import budget
from .arb import arb_endpoint
from .context import arb_precision, mp
from .grid_nest import NestedBlock, nest_sizes
from .lattice_product import (
    GRID_BUILDERS,
    MAX_WINDOW,
    LatticeProduct,
    arb_of,
    common_denominator,
    mpf_fraction,
)
from .options import options
from .value import CertifiedPair

__all__ = ["GridProduct", "GRID_POINTS", "PView"]

#: Lattice points of the root's window of the reference grid (``fits``: rho_tot on it).
GRID_POINTS = 1 << 16
#: The window's half-width in standard deviations used to choose the grid.
GRID_T = 14.0
#: The largest rho_tot (loss units) on the reference grid of a product the route offers itself
#: for: rho_tot grows like k h and the window like sqrt(k)/h, so at a fixed window it grows like
#: k (Skellam(1, 5)^10: 0.004, ^100: 0.14, ^1000: 4.4, ^10000: 140).
MAX_RHO = 8
#: Points of the root's window of the first grid tried (a finer one follows where its width
#: exceeds the tolerance).
START_POINTS = 1 << 14
#: The most points of the root's window (GRID_T standard deviations either side) a refined
#: grid may hold (time: three lattice products of about half this length, some 15 s).
MAX_GRID_POINTS = 1 << 22
#: A grid factor's power from which the refined grid nests blocks (``numeric.grid_nest``).
NEST_MIN = 24


class PView:
    """The P-view of an exact lattice factor: P(y) e^{c l(y)} = Q(y) e^{(c - 1) l(y)}, so its
    tilted masses, plan and mgf at c are the factor's at c - 1 (c >= 1 here)."""

    def __init__(self, f) -> None:
        self.f, self.step, self.offset = f, f.step, f.offset
        self.loss_max = getattr(f, "loss_max", None)

    def plan(self, c: float):
        return self.f.plan(c - 1)

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        return self.f.tilted(c - 1, prec, ylo, yhi, scale)

    def mgf_ball(self, c: arb) -> arb:
        return self.f.mgf_ball(c - 1)


class _Suffix:
    """V(k) = sum_{j >= k} R_j z^{j - k} for the coefficients R_j of an fmpz_poly and a ball
    z, by blocks: each block's polynomial evaluated at z in Arb, their suffix sums by Horner's
    rule from the top down to the lowest block asked for (the queries lie near eps, about the
    middle of the root's window: the blocks below are never evaluated), a query the rest of its
    own block (O(BLOCK) work). The blocks are evaluated at Arb precision ``prec`` (sums of
    positive terms: a relative radius of about 2^-prec times the length; the caller's
    precision, about twice the fixed point's, cost 1.7 times as much)."""

    BLOCK = 512

    def __init__(self, R, z: arb, prec: int) -> None:
        B = self.BLOCK
        self.n, self.z, self.prec = R.length(), z, prec
        self.blocks: list[fmpz_poly] = []
        _split_blocks(R, self.n, B, self.blocks)
        self.S = [arb(0)] * (len(self.blocks) + 1)
        self.low = len(self.blocks)  # S[b] is computed for b >= low
        with arb_precision(prec):
            self.zB = z ** B

    def _down_to(self, b: int) -> None:
        """S[b'] for every b' >= b."""
        if b >= self.low:
            return
        S, z = self.S, self.z
        with arb_precision(self.prec):
            for i in range(self.low - 1, b - 1, -1):
                S[i] = arb_poly(self.blocks[i])(z) + self.zB * S[i + 1]
                if not i & 0xFF:
                    budget.check()
        self.low = b

    def __call__(self, k: int) -> arb:
        if k >= self.n:
            return arb(0)
        k = max(k, 0)
        B = self.BLOCK
        b, r = divmod(k, B)
        self._down_to(b + 1)
        head = self.blocks[b]
        head = head.right_shift(r) if r else head
        return arb_poly(head)(self.z) + self.z ** (B - r) * self.S[b + 1]


def _split_blocks(R: fmpz_poly, n: int, B: int, out: list) -> None:
    """Append to ``out`` the blocks of B coefficients of R (length n), lowest first, by halving
    (right_shift and truncate in C: n log(n/B) copies, not a list of n Python integers)."""
    if n <= B:
        out.append(R)
        return
    h = -(-(n // 2) // B) * B
    _split_blocks(R.truncate(h), h, B, out)
    _split_blocks(R.right_shift(h), n - h, B, out)


class _Grid:
    """The three lattice products of one grid h = 1/D (module docstring): the cells' Q-masses
    (``q``, tilted at c) and P-masses (``p``, tilted at c + 1), and the split product (``s``,
    tilted at c), with rho_tot, the width of a product cell."""

    def __init__(self, factors: list[tuple[object, int]], D: int) -> None:
        self.D, self.h = D, Fraction(1, D)
        qv, pv, sv = [], [], []
        self.rho = Fraction(0)
        for f, n in factors:
            if getattr(f, "grid", False):
                q, p = f.views(self.h)
                s = f.split_view(self.h)
                self.rho += n * f.residual(self.h)
            else:
                q, p, s = f, PView(f), f
            qv.append((q, n))
            pv.append((p, n))
            sv.append((s, n))
        self.q = LatticeProduct(qv, D)
        self.p = LatticeProduct(pv, D)
        self.s = LatticeProduct(sv, D)
        self._cache: dict = {}
        self.mode = "given"  # (or in blocks of two, or nested: ``GridProduct.grid``)
        self._offset: int | None = None  # first - t of the last lower bound's best test

    def suffix(self, which: str, c: float, T: float, prec: int):
        """(lo, V, scale, X, lp, t) of one product's root: the Q-product tilted at c
        (``which`` "q"), the P-product at c + 1 ("p"), or the split product's root tilted at c
        weighed back at c ("s") or at c + 1 ("sp", its P-masses m e^{-l}); V(k) = sum_{j >= k}
        R(lo + j) z^{j - k}, z = e^{-t g/D} (t the weight), so that the kept mass of the cells
        s >= lo + k is scale e^{-t l(lo + k)} V(k); X = prod M_i(tilt) - scale sum R (what the
        windows and floors dropped), cached."""
        key = (which, c, T, prec)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        lp, tilt, t = {"q": (self.q, c, c), "p": (self.p, c + 1, c + 1),
                       "s": (self.s, c, c), "sp": (self.s, c, c + 1)}[which]
        lo, R, lam, m = lp.root(tilt, T, prec)
        scale = lam / arb(2) ** prec
        X = m - scale * arb_of(int(R(1)))
        z = (-arb_of(t) * arb_of(Fraction(lp.g, lp.D))).exp()
        out = (lo, _Suffix(R, z, prec + 24), scale, X, lp, t)
        if len(self._cache) > 12:
            self._cache.clear()
        self._cache[key] = out
        return out

    def kept(self, which: str, first: int, c: float, T: float, prec: int) -> tuple[arb, arb]:
        """(kept mass of the cells s >= first, X) of one product (:meth:`suffix`)."""
        lo, V, scale, X, lp, t = self.suffix(which, c, T, prec)
        k = first - lo
        if k >= V.n:
            return arb(0), X
        k = max(k, 0)
        ls = lp.loss_at(lo + k)
        return scale * (-arb_of(t) * arb_of(ls)).exp() * V(k), X

    def lower(self, eps: Fraction, c: float, T: float, prec: int) -> arb:
        """A ball whose lower end is below delta(eps): the test "reject the cells s >= t"
        (Dong, Roth & Su, Prop. 6: delta(eps) >= Q(A) - e^eps P(A) for every event A), its
        Q-mass kept by the Q-product (tilted at c) and its P-mass bounded above by the
        P-product (tilted at c + 1) and e^{-(c + 1) l(t)} X_P for what that dropped; t the
        best of a ternary search over the cells within rho_tot below eps, or of a hill climb
        from the last call's best distance below eps (any t is sound)."""
        q = self.q
        ee = arb_of(eps).exp()
        cc1 = arb_of(c) + 1
        first = q._threshold(eps) + 1
        memo: dict[int, arb] = {}

        def at(t: int) -> arb:
            if t not in memo:
                Aq, _ = self.kept("q", t, c, T, prec)
                Ap, Xp = self.kept("p", t, c, T, prec)
                miss = ((-cc1 * arb_of(q.loss_at(t))).exp() * Xp).upper()
                memo[t] = Aq - ee * (Ap + miss)
            return memo[t]

        a, b = first - math.ceil(self.rho * self.D) - 1, first
        if self._offset is not None:  # hill climbing from the last call's best cell
            t = min(max(first - self._offset, a), b)
            while t > a and at(t - 1).lower() > at(t).lower():
                t -= 1
            while t < b and at(t + 1).lower() > at(t).lower():
                t += 1
        else:  # a ternary search over the cells within rho_tot below eps
            while b - a > 2:
                m1, m2 = a + (b - a) // 3, b - (b - a) // 3
                if at(m1).lower() < at(m2).lower():
                    a = m1 + 1
                else:
                    b = m2
            t = max(range(a, b + 1), key=lambda u: at(u).lower())
        self._offset = first - t
        return at(t)

    def upper(self, eps: Fraction, c: float, T: float, prec: int) -> arb:
        """A ball whose upper end is above delta(eps): the split product's profile, the sum
        over its root of pi(s) (1 - e^{eps - l(s)}) for l(s) > eps, plus e^{-c eps} X for what
        it dropped (``numeric.lattice_product``, (1) and (2))."""
        first = self.q._threshold(eps) + 1
        As, Xs = self.kept("s", first, c, T, prec)
        Bs, _ = self.kept("sp", first, c, T, prec)
        return As - arb_of(eps).exp() * Bs + ((-arb_of(c) * arb_of(eps)).exp() * Xs).upper()

    def bounds(self, eps: Fraction, c: float, T: float, prec: int) -> tuple[arb, arb]:
        """(lower, upper): balls whose lower end of the first and upper end of the second
        enclose delta(eps) (:meth:`lower`, :meth:`upper`; Arb precision prec + 64: the
        caller's section)."""
        return self.lower(eps, c, T, prec), self.upper(eps, c, T, prec)


class GridProduct:
    """The product of lattice and grid factors (module docstring), with the interface of
    :class:`~.lattice_product.LatticeProduct` that the product route uses (``fits``,
    ``check_size``, ``enclosure``)."""

    def __init__(self, factors: list[tuple[object, int]]) -> None:
        self.factors = [(f, int(n)) for f, n in factors]
        exact = [(f, n) for f, n in self.factors if not getattr(f, "grid", False)]
        grid = [(f, n) for f, n in self.factors if getattr(f, "grid", False)]
        D0 = common_denominator([f.step for f, _ in exact] + [f.offset for f, _ in exact]) \
            if exact else 1
        if D0 is None:
            raise ValueError("the exact factors share no small denominator")
        var = sum(n * f.loss_var() for f, n in grid)
        var += sum(n * (float(f.step) * f.plan(0.0)[2]) ** 2 for f, n in exact)
        self.D0, self.sd = D0, math.sqrt(max(var, 1e-12))
        self._grids: dict[int, _Grid] = {}
        self.base = self.grid(self.denominator(START_POINTS))
        self.D, self.h, self.rho = self.base.D, self.base.h, self.base.rho
        h_ref = Fraction(1, self.denominator(GRID_POINTS))
        #: rho_tot on the grid of GRID_POINTS points (what ``fits`` compares with MAX_RHO).
        self.rho_ref = sum((n * f.residual(h_ref) for f, n in grid), Fraction(0))
        self.q = self.base.q
        self._blocked: list[tuple[object, int]] | None = None
        self._pairs: dict[int, object] = {}

    @property
    def blocked(self) -> list[tuple[object, int]]:
        """The factors of the refined grids: a grid factor's power in blocks of two where it
        has them (``block(2)``: the exact pair as one factor, the grid's error paid once a
        pair); the first grid keeps the factors as given (fewer atoms: faster). Built when a
        refined grid is first asked for."""
        if self._blocked is None:
            out = []
            for f, n in self.factors:
                b = self._pair(f) if n >= 2 else None
                if b is None:
                    out.append((f, n))
                else:
                    out.append((b, n // 2))
                    if n % 2:
                        out.append((f, 1))
            self._blocked = out
        return self._blocked

    def denominator(self, points: float) -> int:
        """The grid 1/D (a multiple of the exact factors' common denominator) whose root window
        (GRID_T standard deviations either side) holds about ``points`` points."""
        want = points / (2 * GRID_T * self.sd)
        return self.D0 * max(1, math.ceil(want / self.D0))

    def _pair(self, f):
        """The block of two factors of a grid factor (``block(2)``), or None (cached)."""
        if not getattr(f, "grid", False) or not hasattr(f, "block"):
            return None
        if id(f) not in self._pairs:
            self._pairs[id(f)] = f.block(2)
        return self._pairs[id(f)]

    def nested(self, D: int) -> list[tuple[object, int]]:
        """The factors of a nested grid 1/D (``numeric.grid_nest``): a grid factor's power of
        at least :data:`NEST_MIN` in blocks of m factors (blocks of two inside) composed on the
        grid 1/(r D) (``nest_sizes``), each block one factor of the grid 1/D; a smaller block
        for the factors left over; the other factors as in :attr:`blocked`."""
        out = []
        for f, n in self.factors:
            pair = self._pair(f) if n >= NEST_MIN else None
            if pair is None:
                b = self._pair(f) if n >= 2 else None
                out.extend([(f, n)] if b is None else
                           [(b, n // 2)] + ([(f, 1)] if n % 2 else []))
                continue
            m, r = nest_sizes(n)
            q, rem = divmod(n, m)
            out.append((NestedBlock([(pair, m // 2)], r, D), q))
            if rem:
                inner = [(pair, rem // 2)] if rem >= 2 else []
                inner += [(f, 1)] if rem % 2 else []
                out.append((NestedBlock(inner, r, D), 1))
        return out

    def grid(self, D: int, mode: str = "given") -> _Grid:
        """The grid 1/D's products (cached, two grids at most), of the factors as given, in
        blocks of two (:attr:`blocked`, ``mode`` "blocked") or nested (:meth:`nested`)."""
        g = self._grids.get((D, mode))
        if g is None:
            if len(self._grids) > 1:
                self._grids.clear()
            fs = {"given": lambda: self.factors, "blocked": lambda: self.blocked,
                  "nested": lambda: self.nested(D)}[mode]()
            g = self._grids[D, mode] = _Grid(fs, D)
            g.mode = mode
        return g

    def refined_mode(self) -> str:
        """"nested" where a grid factor's power reaches :data:`NEST_MIN`, else "blocked"."""
        big = any(n >= NEST_MIN and self._pair(f) is not None for f, n in self.factors)
        return "nested" if big else "blocked"

    # -- the route's interface ---------------------------------------------------------------
    def fits(self, c: float = 0.0) -> bool:
        """Within the lattice product's sizes, and the default grid fine enough (rho_tot at
        most :data:`MAX_RHO`: beyond, the enclosure would be too wide to be of use, and the
        route leaves the product to the PLD engine)."""
        return self.rho_ref <= MAX_RHO and self.q.fits(c)

    def check_size(self, c: float = 0.0) -> None:
        self.q.check_size(c)

    def cost(self, Ds, c: float, mode: str = "given"):
        """Planning (floats): the grid's predicted width for each denominator of ``Ds``, up to
        a common factor: sum over the grid factors (as given, in blocks or nested: ``mode``) of
        n h^2 (E u(1 - u) + Var u) (the factor's ``split_cost``; h^2/4 without one)."""
        Ds = np.asarray(Ds, dtype=np.float64)
        out = np.zeros(len(Ds))
        fs = {"given": lambda: self.factors, "blocked": lambda: self.blocked,
              "nested": lambda: self.nested(self.D)}[mode]()
        for f, n in fs:
            if getattr(f, "grid", False):
                sc = getattr(f, "split_cost", None)
                out += n * (sc(Ds, c) if sc is not None else 0.25 / (Ds * Ds))
        return out

    def _finer(self, grid: _Grid, width: float, target: float, c: float) -> _Grid | None:
        """A finer grid for a relative width ``target`` where ``grid`` gave ``width``: the
        width is second order in the step (k h^2) with a constant that depends on where the
        heavy atoms fall in their cells (:meth:`cost`), so among the denominators around the
        h^2 law's the least one whose predicted width (``width`` times the ratio of the costs)
        is below the target, or the one of least predicted width; within
        :data:`MAX_GRID_POINTS` and the lattice product's window; None when no finer grid is
        allowed."""
        if not width > target:
            return None
        D0 = self.D0
        top = self.denominator(MAX_GRID_POINTS)
        wins = max(grid.q.window_size(c), grid.s.window_size(c), 1)
        top = min(top, D0 * (int(grid.D * 0.98 * MAX_WINDOW / wins) // D0))
        mode = self.refined_mode()
        ratio = self.cost([grid.D], c, mode)[0] / self.cost([grid.D], c, grid.mode)[0]
        want = grid.D * min(math.sqrt(width * ratio / target), 1e6)
        hi = min(top, D0 * (math.ceil(1.5 * want) // D0 + 1))
        lo = max(grid.D + D0, D0 * (int(min(0.6 * want, 0.8 * hi)) // D0))
        if hi < lo:
            return None
        Ds = np.arange(lo, hi + 1, D0)
        if len(Ds) > 4000:
            Ds = Ds[np.unique(np.linspace(0, len(Ds) - 1, 4000).astype(np.int64))]
        pred = width * self.cost(Ds, c, mode) / self.cost([grid.D], c, grid.mode)[0]
        ok = np.nonzero(pred <= target)[0]
        D = int(Ds[ok[0]] if len(ok) else Ds[int(np.argmin(pred))])
        return self.grid(D, mode)

    # -- delta -------------------------------------------------------------------------------
    def delta_ball(self, eps: Fraction, rel_tol: float) -> arb:
        """A ball holding delta(eps), eps >= 0 (the hull of the two bounds, clipped at 0): on
        the default grid, then on a finer one where its width exceeds ``rel_tol``."""
        eps = Fraction(eps)
        grid, out = self.base, None
        for _ in range(2):
            c, T, prec = grid.q._plan(float(eps), rel_tol)
            with arb_precision(prec + 64):
                lo, hi = grid.bounds(eps, c, T, prec)
                lo_end = lo.lower() if lo.lower() > 0 else arb(0)
                b = lo_end.union(hi.upper())
            if out is None or b.rad() < out.rad():
                out = b
            if grid is not self.base:
                break
            up = float(b.upper())
            width = float(b.rad()) * 2 / up if up > 0 else 0.0
            grid = self._finer(grid, width, rel_tol / 1.6, c)
            if grid is None:
                break
        return out

    def enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair:
        """delta(eps) or eps(delta) at the mpf ``arg`` as a CertifiedPair of mpfs rounded
        outward (relative width about ``rel_tol`` or what the grid allows). The grid is refined
        no further than the tolerance of ``pld_options`` (default 5e-4: the first grid, about a
        second), as the other costly routes: ``with ta.pld_options(tol=1e-9):`` asks for more."""
        self.check_size()
        rel_tol = max(rel_tol, options()["tol"])
        if question == "delta":
            if arg == mp.inf:
                return CertifiedPair(mp.zero, mp.zero)
            b = self.delta_ball(mpf_fraction(arg), rel_tol)
            with arb_precision(mp.prec + 64):
                lo = max(arb_endpoint(b.lower(), round_floor), mp.zero)
                return CertifiedPair(lo, min(arb_endpoint(b.upper(), round_ceiling), mp.one))
        if arg <= 0:  # an unbounded loss: delta > 0 at every eps (the grid factors' losses)
            return CertifiedPair(mp.inf, mp.inf)
        lo, hi = self.epsilon(mpf_fraction(arg), rel_tol)
        with mp.workprec(mp.prec + 10):
            return CertifiedPair(mp.fdiv(lo.numerator, lo.denominator, rounding="d"),
                                 mp.fdiv(hi.numerator, hi.denominator, rounding="u"))

    # -- eps(delta) --------------------------------------------------------------------------
    def epsilon(self, d: Fraction, rel_tol: float) -> tuple[Fraction, Fraction]:
        """Rationals lo <= eps(d) <= hi: lo with the lower bound of delta(lo) > d proved (or
        lo = 0), hi with the upper bound of delta(hi) <= d proved, each narrowed by its own
        bisection; on the first grid, then, where the bracket is wider than ``rel_tol``, on a
        finer one inside it."""
        d = Fraction(d)
        if d >= 1:
            return Fraction(0), Fraction(0)
        lo, hi = self._epsilon(self.base, d, rel_tol)
        width = float(hi - lo) / float(hi) if hi > 0 else 0.0
        grid = self._finer(self.base, width, rel_tol / 1.2, self.base.q.saddle(float(hi)))
        if grid is not None:  # narrowed inside the first bracket (its two proofs hold)
            lo2, hi2 = self._epsilon(grid, d, rel_tol, (lo, hi))
            lo, hi = max(lo, lo2), min(hi, hi2)
        return lo, max(hi, lo)

    def _epsilon(self, grid: _Grid, d: Fraction, rel_tol: float,
                 bracket: tuple[Fraction, Fraction] | None = None) -> tuple[Fraction, Fraction]:
        """eps(d) bracketed on one grid (:meth:`epsilon`), or narrowed inside ``bracket`` (its
        ends proved: delta(lo) > d or lo = 0, delta(hi) <= d)."""
        q = grid.q
        guess = q._guess(float(d)) if bracket is None else float(sum(bracket) / 2)
        # The plan's tolerance is delta's: a relative change r of eps moves delta by about
        # r eps |d log delta/d eps| >= r eps max(c, 1) (c the saddle tilt, the slope of
        # -log delta near eps for a law close to normal; planning only, (2) certifies).
        c0 = q.saddle(guess)
        if q._gap(guess, c0) <= 1e-300:  # the normal plan is lost (eps far in a tail beyond
            # a bounded factor's largest loss): the product route hands the question on
            raise OverflowError("grid product: the plan's normal approximation underflows")
        # (3 guard bits, not 8: the floors' count is a bound, (2) certifies, and a product's
        # time falls by a fifth from 66 to 58 bits; Skellam(1, 5)^100 at 1e-9: the floors
        # widen eps by 1e-11 of itself at 61 bits, 1e-10 at 58)
        c, T, prec = q._plan(guess, rel_tol * min(max(guess * max(c0, 1.0), 1.0), 100.0),
                             1e-1, 3)
        sd = math.sqrt(sum(n * (float(f.step) * f.plan(c)[2]) ** 2 for f, n in q.factors))
        with arb_precision(prec + 64):
            dd = arb_of(d)

            def above(x: Fraction) -> bool:  # delta(x) > d proved
                budget.check()
                return bool(grid.lower(x, c, T, prec) > dd)

            def below(x: Fraction) -> bool:  # delta(x) <= d proved
                budget.check()
                return bool(grid.upper(x, c, T, prec) <= dd)

            if bracket is None and below(Fraction(0)):  # delta(0) <= d: eps(d) = 0
                return Fraction(0), Fraction(0)
            if bracket is not None:
                lo, hi = bracket
                lo = self._narrow(lo, hi, above, True, rel_tol)
                hi = self._narrow(lo, hi, below, False, rel_tol)
                return lo, max(hi, lo)
            g = Fraction(guess).limit_denominator(grid.D)
            step = Fraction(max(sd, 1e-3)).limit_denominator(1 << 20) / 4
            hi = g
            for _ in range(64):
                if below(hi):
                    break
                hi += step
                step *= 2
            else:
                raise NumericalError("grid product: no eps proved with delta(eps) <= d")
            lo, step = min(g, hi), Fraction(max(sd, 1e-3)).limit_denominator(1 << 20) / 4
            while lo > 0 and not above(lo):
                lo = max(lo - step, Fraction(0))
                step *= 2
            lo = self._narrow(lo, hi, above, True, rel_tol)
            hi = self._narrow(lo, hi, below, False, rel_tol)
        return lo, max(hi, lo)

    def _narrow(self, lo: Fraction, hi: Fraction, proved: Callable[[Fraction], bool],
                up: bool, rel_tol: float) -> Fraction:
        """Bisection of [lo, hi] keeping the end where ``proved`` holds (the lower end when
        ``up``): about 60 steps at most, until the width is rel_tol/16 of hi."""
        a, b = lo, hi
        for _ in range(60):
            if b - a <= Fraction(rel_tol) * hi / 16:
                break
            m = (a + b) / 2
            m = Fraction(m).limit_denominator(1 << 80) if m.denominator > 1 << 90 else m
            if up:
                a, b = (m, b) if proved(m) else (a, m)
            else:
                a, b = (a, m) if proved(m) else (m, b)
        return a if up else b


def _build(factors) -> GridProduct | None:
    if not any(getattr(f, "grid", False) for f, _ in factors):
        return None
    try:
        return GridProduct(factors)
    except ValueError:
        return None


GRID_BUILDERS.append(_build)
