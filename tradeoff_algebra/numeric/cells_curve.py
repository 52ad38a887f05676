"""Certified bands of the whole trade-off curve of a few-fold power of one pair given by the
cells of its privacy loss (``numeric.lattice_cells``: the Poisson-subsampled Laplace
mechanism's, either direction), from one composed lattice: no grid of eps, no inverse product.

The T-fold power of the cells (:class:`~.lattice_cells.CellPower`) gives two lattice laws at
once, and each bounds the whole curve of f = T(P^T, Q^T) from one side.

**Upper band of the power (lower band of f): the split product's support lines.** For every
real eps and every test phi, E_Q phi - e^eps E_P phi <= delta(eps) := sup_E Q(E) - e^eps P(E)
(the hockey-stick divergence of order e^eps, for eps < 0 too), so

    1 - f(alpha) <= delta(eps) + e^eps alpha    for every real eps

(Dong, Roth & Su, Prop. 6, whose proof does not use eps >= 0), with equality at the infimum
over eps (convex duality: h(v) = delta(log v) + alpha v is convex in v > 0). Merging the two
grid points of a split outcome is a post-processing, so by the data-processing inequality of
the hockey-stick divergence (of every order) delta(eps) <= delta_U(eps) at every real eps, for
one step and for the T-fold products (``numeric.lattice_cells``, the split pair). On the
lattice G_k = (k + T lo)/D,

    delta_U(G_i) + e^{G_i} alpha = B_U(> i) + e^{G_i} (alpha - A_U(> i)),
    B_U(> i) = sum_{k > i} U_k,   A_U(> i) = sum_{k > i} U_k e^{-G_k},

each term U_k (1 - e^{G_i - G_k}) with G_k > G_i non-decreasing in U_k, so the masses rounded up
in fixed point keep it an upper bound. delta_U(log v) + alpha v is piecewise linear in v with
its kinks at the e^{G_k}, so its infimum is at a lattice point: the line at the float minimiser
(and its two neighbours, each a valid bound) loses nothing but the balls' widths. A level near
1 takes a line of negative eps: the mirror branch of a symmetric profile band (the profile of
f^{-1}) is not needed. Where the loss of a step lies in [l_-, l_+] (finite: P and Q mutually
absolutely continuous, :func:`loss_range`), beta = E_Q phi = E_P[phi e^L] <= e^{T l_+} alpha
and 1 - beta = E_P[(1 - phi) e^L] >= e^{T l_-} (1 - alpha): these two lines are exact where
the level falls on the extreme atoms of the product's loss, which the split, moving each atom
to the grid points around it, gets only to first order in the step.

**Lower band of the power: tests and chords.** The event E_t = "the cells' indices sum to at
least t" has size A(E_t) <= A_t (null masses rounded up) and power B(E_t) >= B_t (alternative
masses rounded down), so 1 - f(A_t) >= 1 - f(A(E_t)) >= B(E_t) >= B_t (the power is
non-decreasing); the power is concave, so it lies above the chord of any two such points and
of (0, 0) and (1, 1) (``numeric.profile_band.point_band``): at each level, the chord of the two
tests around it.

Both bands miss the curve by about T h^2 times the loss density's spread (the cells' remainders,
as for delta in ``numeric.lattice_cells``): :func:`cells_band` refines the grid by that h^2 law
until every level meets the tolerance, up to :data:`MAX_POINTS` lattice points.

**Only the lattice the levels read.** Every bound above is a suffix sum from a level's line or
test upward. A law whose loss is short below and long above (Mix(G_mu, q): [-0.105, 13.2] a
step, 32 units in ten steps at 2^-50 of the mass) offers its totals (``cells_totals``), and
after the first grid its power is composed only below the largest loss the levels read there
(:meth:`CellCurve.read_top` plus :data:`PREFIX_MARGIN`), each suffix sum the totals less a
prefix sum (``numeric.cells_prefix``): Mix(G(2), 1/10)^{(x) 10} at 1/100 reads below loss 2.2,
a sixth of the lattice and a third of one step's cells. Other laws whose loss is unbounded
below have the bottom of each partial product cut at 2^-50 of its mass, moved up or dropped by
first-order dominance
(``numeric.cells_window``: C(1/10, G(1))^{(x) 10} on [-12, 9.3] where it spanned [-49.8,
9.3]). Neither changes the order in h: the grids are as before, each cheaper. Everything that
bounds is exact (integer suffix sums of the fixed-point masses) or an Arb ball; floats only pick
the lines and tests (any choice is sound).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpq

from . import budget
from .cells_atoms import AtomLines
from .cells_prefix import PrefixPower
from .cells_window import WindowPower
from .cf_laws import lower, upper, working_precision
from .lattice_cells import CELLS, CellPower
from .profile_band import Band, point_band

__all__ = ["CellCurve", "cells_band", "widths", "MAX_POINTS", "CELLS_CURVE_ROUTE"]

#: The most lattice points of a composed power for a curve (T times the cells of a step, its
#: top cut): the cells, the power, its suffix sums and a few blocks of Arb sums cost about
#: 4 s at 2.7e5 (Mix(G(2), 1/10)^10 at D = 8192, 1.2e-8 wide at 1/100), about 16 s at 1.1e6
#: (D = 32768, within 1e-9); the time limit (``budget``) stops the grids before.
MAX_POINTS = 1_200_000
#: The most grid points of one step's loss span (its cells, wide ones in the tail aside) a
#: power computed whole may have: with the bottom of the products cut (``numeric.cells_window``)
#: C(1/10, G(1))^{(x) 10} at 1e-9 went to 1.1e6 product points at D = 67 000 (23 s, 920 MiB,
#: 1.2e-9 wide); at 3e5 (D = 30 000: 9.9 s, 4.1e-9) about the time of its last grid before the
#: cut (9.6 s, 8.9e-9). A prefix power (``numeric.cells_prefix``) computes the cells below its
#: window alone and is not bound by it.
MAX_STEP_POINTS = 300_000
#: The route's note (``core.trace``).
CELLS_CURVE_ROUTE = "certified cells of the loss composed on a lattice (curve band)"
#: Precision of the Arb sums (bits).
PREC = 128


def _suffix(coeffs: np.ndarray) -> np.ndarray:
    """Exact suffix sums s[i] = sum_{k >= i} c_k of the unsigned 64-bit coefficients of a power,
    with s[n] = 0, as unsigned 64-bit integers: a power's coefficients sum to less than 2^64
    (``lattice_cells._power_array``: below 2^BITS plus one a slot), so no partial sum wraps
    (checked: a float sum below 2^63 is, to n 2^-53 of itself, an exact one below 2^64)."""
    c = np.asarray(coeffs, dtype=np.uint64)
    if float(c.sum(dtype=np.float64)) >= 2.0 ** 63:
        raise ArithmeticError("cells_curve: a power's masses sum past 2^64")
    out = np.zeros(c.size + 1, dtype=np.uint64)
    out[:-1] = np.cumsum(c[::-1], dtype=np.uint64)[::-1]
    return out


def _prefix(coeffs: np.ndarray) -> np.ndarray:
    """Exact prefix sums p[i] = sum_{k < i} c_k (p[0] = 0, n + 1 of them) of the unsigned
    64-bit coefficients of a power, as unsigned 64-bit integers (no partial sum wraps: as
    :func:`_suffix`)."""
    c = np.asarray(coeffs, dtype=np.uint64)
    if float(c.sum(dtype=np.float64)) >= 2.0 ** 63:
        raise ArithmeticError("cells_curve: a power's masses sum past 2^64")
    out = np.zeros(c.size + 1, dtype=np.uint64)
    out[1:] = np.cumsum(c, dtype=np.uint64)
    return out


def _floats(ints: np.ndarray, e: int, up: bool) -> np.ndarray:
    """Floats at least (``up``) or at most c 2^-e for each integer c >= 0: the nearest float,
    moved one step outward (the conversion of an unsigned 64-bit integer to the nearest float
    and the exact scaling by 2^-e err by at most half a unit in the last place, or half the
    least subnormal step, together less than one step)."""
    x = np.ldexp(np.asarray(ints, dtype=np.uint64).astype(np.float64), -e)
    x = np.nextafter(x, np.inf if up else 0.0)
    return np.maximum(x, 0.0)


class CellCurve:
    """The two lattice laws of one :class:`~.lattice_cells.CellPower` read as bounds of the
    whole curve (module docstring): :meth:`band` at any levels."""

    def __init__(self, cp: CellPower, loss_range: tuple | None = None,
                 slack: tuple[float, float] = (0.0, 0.0), atoms: tuple | None = None) -> None:
        self.cp = cp
        #: the atoms' products kept apart in the support lines (``numeric.cells_atoms``: a
        #: plain power of a law with ``loss_atoms()``), else None
        self.atoms = None
        if atoms is not None and type(cp) is CellPower and not cp.tilt:
            try:
                self.atoms = AtomLines(cp, atoms)
            except ValueError:
                self.atoms = None
        #: (inf, sup) of one step's loss as Arb balls (either None where infinite), or None
        #: (:meth:`band`'s end lines)
        self.loss_range = loss_range
        #: (alternative mass at +oo, null mass left out of the tests) of one step: the T-fold
        #: product's are at most T times these (1 - (1 - m)^T <= T m), added to the support
        #: lines and to the tests' sizes (``routes.gaussian_cells``: a cut tail)
        if getattr(cp, "prefix", False):  # (the totals hold every mass: no slack)
            slack = (0.0, 0.0)
        with working_precision(PREC):  # (and the powers' cut tops, CellPower.inf_u, inf_a)
            self.slack = (upper(arb(cp.T) * arb(float(slack[0]))
                                + arb(cp.inf_u) * arb(2) ** (-cp.eu)),
                          upper(arb(cp.T) * arb(float(slack[1]))
                                + arb(cp.inf_a) * arb(2) ** (-cp.ea)))
        T, D = cp.T, cp.D
        #: the low end of the power only (``numeric.cells_prefix``): suffix sums are the
        #: totals minus prefix sums
        self.prefix = bool(getattr(cp, "prefix", False))
        self.cu = cp.ints[0]  # (exact, unsigned 64-bit)
        n = len(self.cu)
        # lattice point i is G_i = (i + off) / D (a power whose bottom is cut starts higher:
        # ``numeric.cells_window``)
        self.off = T * cp.lo + getattr(cp, "shift", 0)
        g = (np.arange(n, dtype=np.float64) + self.off) / D
        uf = np.ldexp(cp.ints[0].astype(np.float64), -cp.eu)
        with np.errstate(over="ignore"):
            af = uf * np.exp(-g)
        # A_U(> i) and B_U(> i) in floats (placement only)
        if self.prefix:
            self.pu = _prefix(self.cu)[1:]  # sum_{k <= i} U_k 2^eu, exact
            with working_precision(PREC):  # (the T-fold totals: A_fin^T, B_all^T)
                fa, fb = (arb(fmpq(t.numerator, t.denominator)) ** T for t in cp.totals)
            self.tot = (fa, fb)
            self.saf = float(fa.mid()) - np.cumsum(af)
            self.sbf = float(fb.mid()) - np.cumsum(uf)
        else:
            self.su = _suffix(self.cu)  # B_U(>= i) 2^eu, exact
            self.saf = np.append(np.cumsum(af[::-1])[::-1][1:], 0.0)
            self.sbf = np.append(np.cumsum(uf[::-1])[::-1][1:], 0.0)
        self.g = g
        if self.prefix:  # the tests: A(E_k) <= 1 - sum_{j < k} Ap_j, B(E_k) >= 1 - sum Bq_j
            pa, pb = _prefix(cp.ints[2]), _prefix(cp.ints[1])
            m = min(len(pa), len(pb))
            with np.errstate(invalid="ignore"):
                self.px = np.nextafter(1.0 - _floats(pa[:m], cp.ea, False), np.inf)
                self.py = np.nextafter(1.0 - _floats(pb[:m], cp.eb, True), -np.inf)
            self.px = np.clip(self.px, 0.0, 1.0)
            self.py = np.clip(self.py, 0.0, 1.0)
            return
        # the tests: size (rounded up) and power (rounded down) of "indices sum to >= k"
        sa, sb = _suffix(cp.ints[2]), _suffix(cp.ints[1])
        m = max(len(sa), len(sb))
        sa, sb = np.pad(sa, (0, m - len(sa))), np.pad(sb, (0, m - len(sb)))
        self.px = _floats(sa, cp.ea, True)
        if self.slack[1] > 0:  # (the null mass the tests' cells leave out, rounded up)
            self.px = np.nextafter(self.px + self.slack[1], np.inf)
        self.px = np.minimum(self.px, 1.0)
        if cp.window is None:
            self.py = np.minimum(_floats(sb, cp.eb, False), 1.0)
        else:  # B(E_k) >= B_tot - sum_{j < k} Bq_j up to the window (CellPower), else 0
            nb = len(cp.ints[1])
            pre = _floats(sb[0] - sb[:nb], cp.eb, True)  # (prefix sums, exact in uint64)
            low = getattr(cp, "bq_low", 0)  # (numeric.cells_window: dropped bottoms' mass)
            if low:
                with working_precision(PREC):
                    extra = upper(arb(int(low)) * arb(2) ** (-cp.eb))
                pre = np.nextafter(pre + extra, np.inf)
            with np.errstate(invalid="ignore"):
                lo = np.nextafter(float(cp.btot) - pre, -np.inf)
            self.py = np.zeros(m)
            self.py[:nb] = np.clip(lo, 0.0, 1.0)

    # -- the lower band: tests and chords --------------------------------------------------
    def _tests(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The test points around each level (px decreasing in k: the last with px > alpha
        and the first with px <= alpha)."""
        rev = self.px[::-1]  # increasing
        keep: set = set()
        n = len(self.px)
        for a in np.unique(x):
            j = int(np.searchsorted(rev, a, side="right"))  # rev[:j] <= a
            k = n - j  # first k with px[k] <= a
            keep.update(i for i in (k - 1, k) if 0 <= i < n)
        idx = np.array(sorted(keep), dtype=np.int64)
        return self.px[idx], self.py[idx]

    # -- the upper band: support lines of the split product ---------------------------------
    def _candidates(self, a: float) -> list:
        """Lattice indices whose support line is (near) the least at alpha = ``a``."""
        n = len(self.cu)
        # A_U(> i) is non-increasing: the minimiser is where it passes a
        j = int(np.searchsorted(-self.saf, -a, side="left"))
        cand = [i for i in range(j - 2, j + 2) if 0 <= i < n]
        with np.errstate(over="ignore", invalid="ignore"):
            vals = [self.sbf[i] + math.exp(min(self.g[i], 700.0)) * (a - self.saf[i])
                    for i in cand]
        order = np.argsort(vals)
        return [cand[int(i)] for i in order[:2]]

    def _a_tails(self, idx: list) -> dict:
        """A_U(> i) as Arb balls at the sorted indices ``idx``: the blocks between consecutive
        indices summed as polynomials in z = e^{-1/D} (one pass over the lattice); for a
        prefix power A_fin^T minus the blocks from the bottom (``numeric.cells_prefix``: exact
        for the integers U, which L_i's bound reads as one expression)."""
        cp, n = self.cp, len(self.cu)
        z = (-arb(1) / cp.D).exp()
        scale = arb(2) ** (-cp.eu)
        out: dict = {}
        acc = arb(0)
        if self.prefix:
            lo = 0  # (the block [lo, i] is summed next)
            for i in sorted(set(idx)):
                budget.check()
                if lo <= i:
                    block = arb_poly(self.cu[lo:i + 1].tolist())(z)
                    acc = acc + block * (-arb(lo + self.off) / cp.D).exp()
                out[i] = self.tot[0] - acc * scale
                lo = i + 1
            return out
        ends = sorted(set(idx))[::-1]
        hi = n  # the block (i, hi) is summed next
        for i in ends:
            budget.check()
            a, b = i + 1, hi
            if a < b:
                block = arb_poly(self.cu[a:b].tolist())(z)
                acc = acc + block * (-arb(a + self.off) / cp.D).exp()
            out[i] = acc * scale
            hi = a
        return out

    def _index(self, e: float) -> int:
        """The lattice index i in [-1, n - 1] with G_i <= e < G_{i+1}, decided exactly."""
        i = math.floor(Fraction(e) * self.cp.D - self.off)
        return max(-1, min(i, len(self.cu) - 1))

    def _atom_line(self, i: int, e: arb, a_gt: arb, A: arb) -> arb:
        """The support line at the exact point ``e`` in [G_i, G_{i+1}) with the atoms'
        products apart (``numeric.cells_atoms``): the rest's split lines plus the atoms'
        exact profile; ``a_gt`` = A_U(> i), the slack not added."""
        at, scale = self.atoms, arb(2) ** (-self.cp.eu)
        b_rest = arb(int(self.su[i + 1]) - at.suffix_int(i)) * scale
        a_rest = a_gt - at.a_suffix(i)
        ee = e.exp()
        return b_rest + ee * (A - a_rest) + at.profile(e)

    def read_top(self, alphas: np.ndarray) -> float | None:
        """The largest loss any level's support line or tests read on this grid (floats,
        planning only): a prefix power (``numeric.cells_prefix``) up to a little above it
        serves every finer grid; None without a level in (0, 1)."""
        x = np.asarray(alphas, dtype=np.float64).ravel()
        x = x[(x > 0) & (x < 1)]
        if x.size == 0:
            return None
        top = max(float(self.g[i]) for a in np.unique(x) for i in self._candidates(float(a)))
        rev = self.px[::-1]
        for a in np.unique(x):
            k = len(self.px) - int(np.searchsorted(rev, a, side="right"))
            top = max(top, (k + 1 + self.off) / self.cp.D)
        return top

    def window(self, alphas: np.ndarray, budget: float) -> float | None:
        """A loss above which the lattice may be cut for these levels (``CellPower``'s
        ``window``), planned in floats on this (coarse) grid: the least lattice point G at
        least 1 above every level's support line and test, G_* the largest of those, with the
        split product's mass past G times e^{G_* - G} (what moving it to +oo adds to a line at
        G_*) at most ``budget`` / 8; None where no point is. Any window is sound."""
        top = self.read_top(alphas)
        if top is None:
            return None
        with np.errstate(over="ignore"):
            cost = self.sbf * np.exp(np.minimum(top - self.g, 700.0))
        ok = np.nonzero((self.g >= top + 1) & (cost <= budget / 8))[0]
        return float(self.g[ok[0]]) if ok.size else None

    def band(self, alphas: np.ndarray) -> Band:
        """Certified bands of f and of its power at the levels ``alphas`` (module
        docstring)."""
        x = np.asarray(alphas, dtype=np.float64).ravel()
        px, py = self._tests(x)
        lb = point_band(px, py, x, [[] for _ in x])
        cands = {float(a): self._candidates(float(a)) for a in np.unique(x)}
        at = self.atoms
        extra: dict = {}  # (the atoms' losses near each level's lattice candidates: their kinks)
        if at is not None:
            for a, c in cands.items():
                lo, hi = (float(self.g[i]) for i in (min(c), max(c)))
                extra[a] = [(e, self._index(e)) for e in at.near(lo - 3 / self.cp.D,
                                                                  hi + 3 / self.cp.D)]
        with working_precision(PREC):
            tails = self._a_tails([i for c in cands.values() for i in c]
                                  + [i for c in extra.values() for _, i in c])
            cp = self.cp
            scale = arb(2) ** (-cp.eu)
            lines: dict = {}
            ends = (None, None)
            if self.loss_range is not None:  # e^{T inf L} and e^{T sup L}
                ends = tuple(None if b is None else (arb(upper(b) if k else lower(b)) * cp.T).exp()
                             for k, b in enumerate(self.loss_range))
            inf_b = arb(self.slack[0])
            p_hi = np.empty_like(x)
            for j, a in enumerate(x):
                if j % 64 == 0:
                    budget.check()
                A = arb(float(a))
                best = math.inf
                for i in cands[float(a)]:
                    if i not in lines:
                        b_gt = (self.tot[1] - arb(int(self.pu[i])) * scale if self.prefix
                                else arb(int(self.su[i + 1])) * scale)
                        lines[i] = (b_gt, (arb(i + self.off) / cp.D).exp(), tails[i])
                    b_gt, eg, a_gt = lines[i]
                    best = min(best, upper(b_gt + eg * (A - a_gt) + inf_b))
                    if at is not None:  # (the same lattice point, the atoms apart)
                        e = arb(i + self.off) / cp.D
                        best = min(best, upper(self._atom_line(i, e, tails[i], A) + inf_b))
                for e, i in extra.get(float(a), ()):  # (at the atoms' kinks)
                    best = min(best, upper(self._atom_line(i, arb(e), tails[i], A) + inf_b))
                if ends[1] is not None:
                    best = min(best, upper(ends[1] * A))
                if ends[0] is not None:
                    best = min(best, upper(1 - ends[0] * (1 - A)))
                p_hi[j] = min(best, 1.0)
        p_lo = lb.power_lo.ravel()
        with working_precision(PREC):
            f_lo = np.array([max(lower(1 - arb(float(v))), 0.0) for v in p_hi])
        f_hi = lb.f_hi.ravel()
        return Band(f_lo.reshape(np.shape(alphas)), np.maximum(f_hi, f_lo).reshape(
            np.shape(alphas)), p_lo.reshape(np.shape(alphas)), p_hi.reshape(np.shape(alphas)))


#: What a band's width is measured by (:func:`widths`): the power relative to its upper end
#: (``roc``), f relative to its upper end (``value``), or both as a whole curve's band is
#: (``curve``: the power relative, f absolute, as ``routes.grid_band``).
MEASURES = ("roc", "value", "curve")


def widths(b: Band, x: np.ndarray, measure: str) -> np.ndarray:
    """The width of the band at each level by ``measure`` (:data:`MEASURES`); 0 at alpha =
    0."""
    if measure not in MEASURES:
        raise ValueError(f"measure = {measure!r} must be one of {MEASURES}")
    p_rel = (b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)
    if measure == "roc":
        w = p_rel
    elif measure == "value":
        w = (b.f_hi - b.f_lo) / np.maximum(b.f_hi, 1e-300)
    else:
        w = np.maximum(p_rel, b.f_hi - b.f_lo)
    return np.where(x > 0, w, 0.0)


def loss_range(law) -> tuple | None:
    """(inf, sup) of the loss of one step as Arb balls (either None where infinite): the law's
    own ``loss_range()``, else ``law.loss_sup()`` and minus that of its ``inverse()`` (the
    reversed pair's loss is -L), or None where either is missing or infinite. (The lines of
    :meth:`CellCurve.band` need Q absolutely continuous with respect to P, no alternative mass
    at +oo: the caller's product has none.)"""
    if hasattr(law, "loss_range"):
        return law.loss_range()
    try:
        with working_precision(PREC):
            hi = law.loss_sup()
            inv = law.inverse().loss_sup()
    except AttributeError:
        return None
    if hi is None or inv is None or not (hi.is_finite() and inv.is_finite()):
        return None
    return -inv, hi


def cells_band(law, T: int, alphas: np.ndarray, tol: float, measure: str = "curve",
               max_points: int = MAX_POINTS, read=None) -> Band | None:
    """Certified bands of the T-fold power of ``law`` (its ``loss_cells(D)`` and
    ``loss_span()``) at the levels ``alphas``: grids of D_0 and 2 D_0 cells a unit of loss,
    D_0 = :data:`~.lattice_cells.CELLS` cells a step, then the grid where the width should meet
    ``tol`` (:func:`_predict`: the order the last two grids measure, at least twice the last
    grid), until every level is within ``tol`` by ``measure`` (:func:`widths`; the band is
    second order in 1/D), each band intersected with the ones before (each holds the curve).
    A tighter tolerance may skip a grid a looser one computed, so the nesting of the bands of
    two tolerances is ``numeric.tol_nest``'s (the routes pass every band through it), not this
    function's. A law with ``for_levels(T, scale)`` (a cut tail, ``numeric.cells_normal``) is
    first replaced by the one it returns for T and the least power or value measured
    (:func:`_scale`; not ``tol``). Returns the narrowest band reached on grids of at most
    ``max_points`` lattice points (the points a composed power keeps, its top cut,
    ``lattice_cells._power_array``: the next grid's estimated from the last one's in proportion
    to D; the last grid is the largest allowed), or before a finer grid that the time left
    (``budget``) cannot pay for, estimated from the last grid's time (the finest grid it can
    pay for is computed last, where that is :data:`FINAL_STEP` times finer than the last one;
    the caller warns where the band stays wide); None where not one cell a unit of loss fits.
    ``read(curve, alphas)``: the band of each grid's :class:`CellCurve` (default
    :meth:`CellCurve.band`; ``routes.hull_cells``: the symmetric hull's)."""
    plain = read is None  # (a lattice window for the plain band only)
    window = None
    read = (lambda cc, y: cc.band(y)) if read is None else read
    x = np.asarray(alphas, dtype=np.float64)
    plan = getattr(law, "for_levels", None)  # (a tail cut from T and the levels)
    if plan is not None:
        law = plan(T, _scale(x, measure))
    span = law.loss_span()
    top = math.floor(max_points / (T * span))  # (the finest grid allowed)
    if top < 1:
        return None
    start = getattr(law, "cells_start", None)  # (cells a unit of loss, where the law says)
    D = min(max(1, start() if start is not None else math.ceil(CELLS / span)), top)
    slack = getattr(law, "cells_slack", None)
    totals = getattr(law, "cells_totals", None)  # (a prefix power: numeric.cells_prefix)
    totals = totals() if totals is not None and plain else None
    rng = loss_range(law)
    atoms = getattr(law, "loss_atoms", None)  # (the atoms' products apart: numeric.cells_atoms)
    if atoms is not None and plain:
        with working_precision(PREC):
            atoms = atoms()
    else:
        atoms = None
    # (the bottom of the products cut where the loss is unbounded below: numeric.cells_window;
    # a bounded loss, the subsampled Laplace pair's, spans a few units and keeps its powers)
    cut = plain and (rng is None or rng[0] is None)
    best, last = None, None  # (the band so far; seconds per cell of the last grid)
    final = False  # (a grid between two of the chain, the largest allowed: the last one)
    seen: list = []  # (D, the grid's own width) of the grids so far
    while True:
        if last is not None and last * D * 1.5 > budget.remaining():
            # (the finer grid cannot end in the time left: the finest one that can, if it is
            # FINAL_STEP finer than the last; a tighter tolerance predicts a finer grid, and
            # must not stop short of one a looser tolerance would have computed)
            fit = math.floor(budget.remaining() / (1.5 * last))
            if fit < FINAL_STEP * seen[-1][0]:
                return best
            D, final = fit, True
        budget.check(best)
        t0 = time.monotonic()
        cp = _power(law, T, D, window, totals, cut=cut)
        prefix = getattr(cp, "prefix", False)
        cc = CellCurve(cp, rng, (0.0, 0.0) if slack is None or prefix else slack(cp.D), atoms)
        if plain and window is None and not seen:  # (planned on the first grid)
            if totals is not None:
                top = cc.read_top(x)
                window = None if top is None else top + PREFIX_MARGIN
            else:
                window = cc.window(x, WINDOW_SHARE * _scale(x, measure))
        b = read(cc, x)
        last = (time.monotonic() - t0) / D
        seen.append((D, float(np.max(widths(b, x, measure), initial=0.0))))
        best = b if best is None else best.intersect(b)
        if float(np.max(widths(best, x, measure), initial=0.0)) <= tol:
            return best
        n = max(len(a) for a in cp.ints)  # (the composed lattice, its top cut)
        del cp, cc, b  # (not held while the next grid is built)
        nxt = max(2 * D, _predict(seen, tol))
        cap = D * max_points // n  # (the finest grid the points allow)
        if not prefix:  # (one step's cells over its whole loss: numeric.cells_window)
            cap = min(cap, math.floor(MAX_STEP_POINTS / span))
        if nxt <= cap and not final:
            D = nxt
        elif cap >= FINAL_STEP * D and not final:  # (the largest allowed)
            D, final = cap, True
        else:
            return best


#: What cutting the lattice above the levels' window may add to a support line, relative to the
#: least level (:meth:`CellCurve.window`): far below any width the largest lattice reaches.
WINDOW_SHARE = 2.0 ** -10 * 1e-10
#: The last grid, the largest the points allow, is computed only where it is at least this
#: much finer than the one before (a grid 6% finer gained 12% of width for 25 s: C(1/10,
#: G(1))^{(x) 10} at 1e-9 after the predicted grid of 1.1e6 points).
FINAL_STEP = 1.5
#: How far above the largest loss the first grid's levels read a prefix power reaches
#: (:meth:`CellCurve.read_top`): the finer grids' minimisers and tests move by a few of the
#: first grid's steps (1/64); any reach is sound (a line or test past it is not read).
PREFIX_MARGIN = 0.25
#: The least and the most order in 1/D of the width read from two grids (the cells' remainders:
#: second order), and the margin of the predicted grid (:func:`_predict`).
ORDER_MIN, ORDER_MAX, MARGIN = 1.0, 2.0, 1.1
#: A measured order at least this is taken as :data:`ORDER_MAX`, the bands' order (the cells'
#: remainders): the first grids, a few cells a step, measure it a little low (Mix(G(2),
#: 1/10)^{(x) 10}: 1.96 from D = 64 and 128, where w D^2 fell from 0.97 there to 0.75 at
#: D = 38 000, so 1e-9 was predicted at 38 345 cells a unit and met 2x over; at 34 270 it
#: is met by 6.4e-10).
ORDER_SNAP = 1.8


def _predict(seen: list, tol: float) -> int:
    """The grid (cells a unit of loss) where the width should meet ``tol``, from the grids so
    far [(D, width), ...]: the last width moved by (D'/D)^-p, p the order the last two grids
    measure (between :data:`ORDER_MIN` and :data:`ORDER_MAX`, and :data:`ORDER_MAX` from
    :data:`ORDER_SNAP` on), times :data:`MARGIN`; 0 before
    two grids or where a width is 0 or not finite. Planning only: every grid's band is
    certified, and the loop intersects them (a tighter tolerance's band may skip a grid a
    looser one computed: their nesting is ``numeric.tol_nest``'s)."""
    if len(seen) < 2:
        return 0
    (d0, w0), (d1, w1) = seen[-2], seen[-1]
    if not (0 < w1 < math.inf and 0 < w0 < math.inf and d1 > d0 and tol > 0):
        return 0
    p = math.log(w0 / w1) / math.log(d1 / d0) if w0 > w1 else ORDER_MIN
    p = ORDER_MAX if p >= ORDER_SNAP else max(p, ORDER_MIN)
    return math.ceil(MARGIN * d1 * (w1 / tol) ** (1 / p))


def _scale(x: np.ndarray, measure: str) -> float:
    """The least power (roc, curve: at least alpha) or value (value: f(alpha) <= 1 - alpha,
    taken as that, an estimate) the band's width is measured against at the levels ``x``, for
    the tail's share of the width (``for_levels``); 1e-300 at the least."""
    pos = x[(x > 0) & np.isfinite(x)]
    if pos.size == 0:
        return 1.0
    s = float(np.min(pos))
    if measure == "value":
        below = pos[pos < 1]
        s = min(s, float(np.min(1 - below)) if below.size else s)
    return max(s, 1e-300)


def _power(law, T: int, D: int, window: float | None = None,
           totals: tuple | None = None, cut: bool = False) -> CellPower | PrefixPower:
    """The :class:`~.lattice_cells.CellPower` of ``law``'s cells on the grid 1/D, or 1/(D + i)
    for the least i where an atom of the loss lies on no grid point to the working precision;
    with a ``window`` and one step's ``totals`` (``law.cells_totals()``) the
    :class:`~.cells_prefix.PrefixPower` of its lattice points of loss at most ``window``, from
    the cells below it alone."""
    for i in range(8):
        try:
            d = D + i
            if window is not None and totals is not None:
                lo = law.cells_bottom(d)
                keep = max(1, math.floor(window * d) - T * lo + 1)
                with working_precision(PREC):
                    cells = law.loss_cells(d, below=keep + lo)
                return PrefixPower(cells, T, d, keep, totals, lo=lo)
            with working_precision(PREC):
                cells = law.loss_cells(d)
            if cut:  # (both ends cut: numeric.cells_window)
                return WindowPower(cells, T, d, window=window)
            return CellPower(cells, T, d, window=window)
        except ValueError:  # (an atom on a grid point to the working precision)
            continue
    raise ValueError(f"cells_band: every grid 1/D, D = {D} .. {D + 7}, holds an atom of the "
                     "loss to the working precision")
