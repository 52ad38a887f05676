"""The PLD engine's grids: one factor's loss law discretised on the grid ``j h`` (the
pessimistic and the optimistic side), with the size limits and the loss cap.

Part of the privacy-loss-distribution engine; its order, its discretisations and their rigour
are described in :mod:`tradeoff_algebra.numeric.pld`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..core.errors import NumericalError
from . import budget
from .privacy_loss import U64, PrivacyLoss
from .progress import ensure_time

__all__ = ["GridTooLarge", "MAX_GRID", "MAX_PLD_BYTES", "BYTES_PER_POINT", "FACTOR_BYTES",
           "PARTS_BYTES", "PART_PEAK_BYTES", "DISCRETISE_BYTES", "LOSS_CAP", "DEFAULT_TAIL",
           "grid_step", "grid_range", "memory_plan", "check_memory", "refuse_memory",
           "show_bytes", "Half", "Factor", "discretise"]


class GridTooLarge(NumericalError):
    """The grid a discretised factor or the composed loss needs is beyond the size limits
    (:data:`MAX_GRID` points per factor, :data:`MAX_FFT` bins for the composition on the
    refining route, :data:`MAX_PLD_BYTES` of working memory): the product is refused at once
    instead of exhausting memory. ``limit`` names the limit (``"MAX_PLD_BYTES"``, ...)."""

    def __init__(self, message: str, limit: str | None = None):
        super().__init__(message)
        self.limit = limit


#: Largest number of grid points of one discretised factor.
MAX_GRID = 1 << 23  # = MAX_FFT
#: Largest working memory (bytes) of the PLD engine: the discretised factors of one
#: composition, its transforms and composed sides, and the composed laws it keeps cached
#: (``pld._CACHE``, emptied to make room). Its plan (the byte counts below, measured with
#: tracemalloc and the resident set size) is checked before the memory is taken: before any
#: factor is discretised (:func:`check_memory`, from the factors' grids), and, once the window
#: of the composition is known, before its transforms (``pld_compose``: :data:`FFT_BYTES`,
#: :data:`SIDE_BYTES`). A plan beyond it is refused (:class:`GridTooLarge` naming it): the PLD
#: refinement then ends on the finest grid that fitted, with a ToleranceWarning. 1000 discrete
#: Gaussians with distinct sigma_i = 10 + i/10 hold 9.3e6 points per side at h = 2^-14 and
#: twice as many at each halving (4.3 GB at h = 2^-16 before the time limit fired, when only
#: the grids were counted); PoissonReplace(1, 1/10)^3 at h = 2^-18 composes on 2^23 bins (2.6
#: GB when the transforms were not counted).
MAX_PLD_BYTES = 1 << 30
#: Bytes per grid point of a discretised factor held by a composition: its pessimistic and
#: optimistic masses (float64 each).
FACTOR_BYTES = 16
#: Bytes per grid point of a factor while a composition uses it: the log-masses and losses of
#: the side being composed, their tilted copy and the temporaries of the Chernoff search
#: (measured 23: 200 discrete Gaussians at h = 2^-12, 1.3e6 points)...
PARTS_BYTES = 24
#: ... and per grid point of the largest factor, the arrays it is formed from (its losses and
#: log-masses before the zero masses are dropped; one factor cubed: 40 bytes per point in all
#: before the transforms).
PART_PEAK_BYTES = 24
#: Peak bytes per grid point while one factor is discretised (its distribution functions,
#: cells, edges and atoms; measured 107 for every family tried, from 8e3 to 4e6 points).
DISCRETISE_BYTES = 112
#: Bytes per grid point of the distinct factors of a composition: held and in use.
BYTES_PER_POINT = FACTOR_BYTES + PARTS_BYTES


def refuse_memory(need: float, what: str) -> None:
    """Raise :class:`GridTooLarge` naming :data:`MAX_PLD_BYTES` when the working memory
    ``need`` (bytes) of ``what`` exceeds it (read at the call: a test may lower it)."""
    if need > MAX_PLD_BYTES:
        raise GridTooLarge(f"{what} needs about {show_bytes(need)} of working memory (limit "
                           f"MAX_PLD_BYTES = {show_bytes(MAX_PLD_BYTES)}); raise the step with "
                           "pld_options(h=...), ask a looser pld_options(tol=...) or group "
                           "identical factors", "MAX_PLD_BYTES")


def show_bytes(n: float) -> str:
    """A byte count in GiB, or MiB below one GiB."""
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / 2**20:.3g} MiB"


#: Every grid loss (of a factor and of a composition) stays in [-LOSS_CAP, LOSS_CAP], so that
#: e^loss (times any mass) is a finite float64. Mass beyond is handled like any tail: moved to
#: +oo or to the window's edge on the pessimistic side, dropped or moved inward on the
#: optimistic side; both stay valid, and such a tail is far below anything float64 resolves
#: next to the values (G_40 has losses near mu^2/2 = 800).
LOSS_CAP = 600.0

#: Default bound on the composed mass left outside the window on each side (pessimistic: it
#: goes to +oo, so it is added to every delta).
DEFAULT_TAIL = 1e-20
_TINY = 1e-300


def grid_step(h: float) -> float:
    """The largest power of 2 not above ``h`` (grid points ``j h`` are then exact floats)."""
    if not (h > 0 and math.isfinite(h)):
        raise ValueError("grid step must be a positive number")
    return 2.0 ** math.floor(math.log2(h))


@dataclass
class Half:
    """One side of a discretised factor: masses ``arr[i]`` at losses ``(k0 + i) h``, plus
    ``inf`` at +oo."""

    k0: int
    arr: np.ndarray
    inf: float


@dataclass
class Factor:
    """A discretised factor: pessimistic (``pess``, dominates) and optimistic (``opt``,
    dominated) grid laws on step ``h``; ``edge`` bounds the cut rounding in loss units."""

    h: float
    pess: Half
    opt: Half
    edge: float


def _cells(F: np.ndarray, S: np.ndarray, rho: float):
    """Masses of the cells between consecutive cuts from F = M(L <= t) and S = M(L > t), each
    difference formed on the side where it is smaller, with an absolute error bound (in blocks
    of :data:`CELLS_BLOCK` cells, the time limit checked between them)."""
    n = len(F) - 1
    if n <= CELLS_BLOCK:
        return _cells_block(F, S, rho)
    m, err = np.empty(n), np.empty(n)
    for a in range(0, n, CELLS_BLOCK):
        budget.check()
        b = min(a + CELLS_BLOCK, n)
        m[a:b], err[a:b] = _cells_block(F[a:b + 1], S[a:b + 1], rho)
    return m, err


#: Cells per block of :func:`_cells` (a block takes some 0.05 s).
CELLS_BLOCK = 1 << 20


def _cells_block(F: np.ndarray, S: np.ndarray, rho: float):
    useF = F[1:] <= 0.5
    dF = F[1:] - F[:-1]
    dS = S[:-1] - S[1:]
    m = np.where(useF, dF, dS)
    scale = np.where(useF, F[1:] + F[:-1], S[:-1] + S[1:])
    err = rho * scale + 2 * U64 * np.abs(m)
    return np.maximum(m, 0.0), err


#: Points per call of a model's distribution functions in :func:`discretise`: the time limit
#: is checked between such chunks (PoissonReplace's 4 x 10^6 grid points at h = 2^-18 took
#: 10 s in four unchecked calls; a chunk takes a tenth of a second).
CHUNK = 1 << 16


class _Pace:
    """The distribution functions of one discretisation, evaluated chunk by chunk with the time
    limit checked between chunks; the time of the second chunk (the first may pay for imports)
    sets the rate at which the rest of the ``total`` points is estimated, and a discretisation
    whose remaining evaluations alone cannot end before the deadline is refused at once
    (:func:`~.progress.ensure_time`: TimeLimitExceeded, which the refinement reports with its
    best enclosure)."""

    def __init__(self, total: int, what: str):
        self.total, self.what = total, what
        self.done, self.chunks = 0, 0

    def cdf(self, model: PrivacyLoss, t: np.ndarray, which: str, left: bool = False):
        t = np.asarray(t, dtype=np.float64)
        if len(t) <= CHUNK:
            budget.check()
            self.done += len(t)
            return model.cdf(t, which, left)
        F = np.empty(len(t))
        S = np.empty(len(t))
        for a in range(0, len(t), CHUNK):
            budget.check()
            b = min(a + CHUNK, len(t))
            start = time.perf_counter()
            F[a:b], S[a:b] = model.cdf(t[a:b], which, left)
            self.done += b - a
            self.chunks += 1
            if self.chunks == 2:
                rate = (time.perf_counter() - start) / (b - a)
                ensure_time(rate * (self.total - self.done), self.what)
        return F, S


def grid_range(model: PrivacyLoss, h: float, tau: float = DEFAULT_TAIL) -> tuple[int, int]:
    """The grid indices ``(j_lo, j_hi)`` of :func:`discretise`: the model's support for the
    tail ``tau``, within the loss cap, on the grid ``j h`` (at least one cell)."""
    lo, hi = model.support(tau)
    if lo >= LOSS_CAP:  # the whole support beyond one cap: one cell at the cap
        lo, hi = LOSS_CAP - h, LOSS_CAP
    elif hi <= -LOSS_CAP:
        lo, hi = -LOSS_CAP, -LOSS_CAP + h
    else:  # (lo = hi: a single atom, one cell around it)
        lo, hi = max(lo, -LOSS_CAP), min(hi, LOSS_CAP)
    j_lo, j_hi = math.floor(lo / h), math.ceil(hi / h)
    if j_hi <= j_lo:
        j_hi = j_lo + 1
    return j_lo, j_hi


def memory_plan(points: list[int]) -> int:
    """The peak working memory (bytes) of discretising factors of ``points`` grid points each
    (one side's count) and holding them for their composition: the largest of discretising
    the last one while the others are held, and holding them all with their parts (the
    composition's own transforms are counted once its window is known, ``pld_compose``)."""
    if not points:
        return 0
    total, top = sum(points), max(points)
    return max(FACTOR_BYTES * (total - top) + DISCRETISE_BYTES * top, BYTES_PER_POINT * total)


def check_memory(models: list, h: float, tau: float = DEFAULT_TAIL) -> int:
    """Refuse at once (:class:`GridTooLarge` naming :data:`MAX_PLD_BYTES`) the composition of
    the loss ``models`` (each distinct factor once) at step ``h`` whose discretised factors
    would need more than MAX_PLD_BYTES (:func:`memory_plan`); else return that need."""
    points = []
    for m in models:
        budget.check()
        j_lo, j_hi = grid_range(m, h, tau)
        points.append(j_hi - j_lo + 3)
    need = memory_plan(points)
    refuse_memory(need, f"discretising {len(models)} distinct factors at step "
                  f"h = 2^{round(math.log2(h))} ({sum(points):.3g} grid points)")
    return need


def discretise(model: PrivacyLoss, h: float, tau: float = DEFAULT_TAIL) -> Factor:
    """Pessimistic and optimistic grid laws of one factor (see the module docstring). Under a
    time limit: checked between chunks of the distribution functions (:data:`CHUNK`) and
    between the phases, and refused at once where the evaluations cannot end before it
    (:class:`_Pace`)."""
    j_lo, j_hi = grid_range(model, h, tau)
    if j_hi - j_lo > MAX_GRID:
        raise GridTooLarge(f"discretising one factor needs {j_hi - j_lo} grid points at step "
                           f"h = {h:g} (limit MAX_GRID = {MAX_GRID}); raise the step with "
                           "pld_options(h=...)", "MAX_GRID")
    refuse_memory(DISCRETISE_BYTES * (j_hi - j_lo + 3), f"discretising a factor's loss on "
                  f"{j_hi - j_lo + 1} grid points at step h = 2^{round(math.log2(h))}")
    rho = model.rel_err
    # (four evaluations of about n points each: the grid's, Q and P, and the cell edges')
    n_pts = j_hi - j_lo + 1
    pace = _Pace(4 * n_pts + 2, f"discretising a factor's loss on {n_pts} grid points at step "
                 f"h = 2^{round(math.log2(h))}")
    # -- pessimistic: connect the dots on the grid l_j = j h, cells (l_j, l_{j+1}] -------------
    # (arrays are released as soon as they are used: the peak is DISCRETISE_BYTES per point)
    l = np.arange(j_lo, j_hi + 1) * h
    budget.check()
    edge_l = model.edge_err(l)
    budget.check()
    FQ, SQ = pace.cdf(model, l, "Q")
    budget.check()
    rho = model.rel_err
    Qc, EQ = _cells(FQ, SQ, rho)
    q_below, q_above = FQ[0], SQ[-1]
    del FQ, SQ
    budget.check()
    FP, SP = pace.cdf(model, l, "P")
    budget.check()
    Pc, EP = _cells(FP, SP, rho)
    del FP, SP
    budget.check()
    el = np.exp(l[:-1])
    n_l = len(l)
    del l
    Pel = Pc * el
    num = Qc - Pel
    Enum = el * EP
    del el, EP
    Enum += EQ  # (= EQ + el EP + 4u (Qc + Pc el), the same operations)
    Pel += Qc
    Pel *= 4 * U64
    Enum += Pel
    del Pel
    budget.check()
    den = -math.expm1(-h)
    budget.check()
    Qc_hi = Qc + EQ
    del Qc, EQ
    num += Enum
    del Enum
    num /= den
    num *= 1 + 4 * U64
    w_up = np.clip(num, 0.0, Qc_hi)
    del num
    Qc_hi -= w_up
    w_dn = np.maximum(Qc_hi, 0.0, out=Qc_hi)
    U = np.zeros(n_l)
    U[:-1] += w_dn
    U[1:] += w_up
    del w_up, w_dn, Qc_hi
    U[0] += q_below * (1 + rho)  # Q(L <= l_0): rounded up to l_0 (Q has no atom at -oo)
    U *= 1 + 4 * U64
    pess = Half(j_lo, U, min(1.0, q_above * (1 + rho)))  # Q(L > l_top), +oo included
    budget.check()  # (Pc: the edges below)
    # -- optimistic: merge cells ((j - 1/2) h, (j + 1/2) h], then lift deficient ratios -------
    # lower edges of cells j_lo .. j_hi; the top cell stops just below l_top = j_hi h, and the
    # top tail [l_top, oo) (ratio >= e^{l_top}: an atom at l_top sits there) is the atom the
    # cells below borrow from
    edges = (np.arange(j_lo, j_hi + 1) - 0.5) * h
    # Cell edges placed so that each merged ratio Q(cell)/P(cell) = E_P[e^L | cell] is e^{j h}
    # up to O(h^3): for a P-density with log-slope g near the cell, E_P[L - jh | cell] is
    # (a + b)/2 + g h^2/12 when the edges move by a and b, and e^{jh} needs -h^2/24 (second
    # moment h^2/12). So each edge moves by s = -h^2 (g/12 + 1/24), g estimated from the
    # P-masses of the grid cells above (the edge is the centre of one). Any tiling by cells is
    # a garbling, so the choice affects only the accuracy (it removes the bias ~ n h^2 g of
    # rounding merged losses to the grid), never the guarantee.
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.log(Pc)
        del Pc
        g = np.gradient(lp) / h if len(lp) > 1 else np.zeros_like(lp)
        del lp
    shift = np.zeros(len(edges))
    shift[1:1 + len(g)] = -h * h * (g / 12 + 1 / 24)
    del g
    shift = np.clip(np.where(np.isfinite(shift), shift, 0.0), -h / 8, h / 8)
    edges += shift
    del shift
    top = np.array([j_hi * h])
    budget.check()

    def cdf_edges(at, which):
        F, S = pace.cdf(model, at, which)
        Ft, St = pace.cdf(model, top, which, left=True)
        return np.concatenate([F, Ft]), np.concatenate([S, St])

    FQe, SQe = cdf_edges(edges, "Q")
    budget.check()
    Qm, EQm = _cells(FQe, SQe, rho)
    fq_below, sq_above = FQe[0], SQe[-1]
    del FQe, SQe
    budget.check()
    FPe, SPe = cdf_edges(edges, "P")
    budget.check()
    Pm, EPm = _cells(FPe, SPe, rho)
    fp_below, sp_above = FPe[0], SPe[-1]
    del FPe, SPe
    budget.check()
    edge_e = model.edge_err(np.append(edges, top))
    del edges
    budget.check()
    # atoms: bottom tail (grid j_lo - 1), cells j_lo .. j_hi, top tail (grid j_hi, no deficit)
    q_top = max(0.0, sq_above * (1 - rho) - model.q_inf * (1 + rho))
    Qm -= EQm
    del EQm
    Qlo = np.concatenate([[fq_below * (1 - rho)], np.maximum(Qm, 0.0, out=Qm), [q_top]])
    del Qm
    Pm += EPm
    del EPm
    Phi = np.concatenate([[fp_below * (1 + rho)], Pm, [sp_above * (1 + rho)]])
    del Pm
    g = np.concatenate([np.arange(j_lo - 1, j_hi + 1), [j_hi]])  # grid index of each atom
    # an atom of the law on a grid point has bounds Qlo/Phi down to e^{g h - 2 rho}: each atom
    # counts as at g h when its ratio is at least e^{g h - slack}, and the factor's loss is
    # read with slack more room (``edge``: the composition's shift), so such an atom is not
    # rounded down a whole step
    slack = 3 * rho + 16 * U64
    eg = np.exp(g * h - slack)
    need = eg * Phi - Qlo  # > 0: deficit (merged ratio possibly below e^{g h})
    need[-1] = 0.0  # the top tail's ratio is at least e^{j_hi h}
    spare = np.empty_like(need)
    spare[:-1] = Qlo[1:] - eg[:-1] * Phi[1:]  # what the next atom up offers at ratio e^{g h}
    spare[-1] = 0.0
    deficit = need > 0
    budget.check()
    with np.errstate(divide="ignore", invalid="ignore"):
        gam = np.where(deficit, need / spare * (1 + 8 * U64), 0.0)
    ok = ~deficit | ((spare > 0) & (gam <= 1))
    gam = np.where(deficit & ok, gam, 0.0)
    r = np.ones_like(Qlo)
    r[1:] = 1.0 - gam[:-1]
    budget.check()
    # the content (Q lower bound, P upper bound) of every atom after the borrowing: a ratio at
    # least e^{g h}; an atom that cannot borrow (nothing above it) has merged ratio above
    # e^{(g - 1/2) h} > e^{(g - 1) h}: it moves to the grid point below when the bounds certify
    # it, else it is dropped
    lend = deficit & ok
    cQ = np.where(ok, r * Qlo, 0.0)
    cP = np.where(ok, r * Phi, 0.0)
    budget.check()
    cQ[:-1] += np.where(lend[:-1], gam[:-1] * Qlo[1:], 0.0)
    cP[:-1] += np.where(lend[:-1], gam[:-1] * Phi[1:], 0.0)
    del lend, gam, need, spare, deficit, eg
    budget.check()
    down = ~ok & (Qlo >= np.exp((g - 1) * h - slack) * Phi * (1 + 8 * U64))
    del ok
    g = np.where(down, g - 1, g)
    cQ = np.where(down, r * Qlo, cQ)
    cP = np.where(down, r * Phi, cP)
    del down, r, Qlo, Phi
    budget.check()
    CQ = np.zeros(j_hi - j_lo + 3)
    CP = np.zeros(j_hi - j_lo + 3)
    np.add.at(CQ, g - (j_lo - 2), np.maximum(cQ, 0.0, out=cQ))
    del cQ
    np.add.at(CP, g - (j_lo - 2), np.maximum(cP, 0.0, out=cP))
    del cP, g
    _lend_down(CQ, CP, np.exp(np.arange(j_lo - 2, j_hi + 1) * h - slack), h)
    del CP
    budget.check()
    CQ *= 1 - 8 * U64
    opt = Half(j_lo - 2, CQ, max(0.0, model.sure_q_inf() * (1 - rho)))
    edge = max(edge_l, edge_e) + slack
    if math.frexp(h)[0] != 0.5:
        # a step that is not a power of 2 (aligned to an atom, pld._aligned_step): the grid
        # losses j h are rounded to floats, by at most u |j h| from the points the composition
        # takes them at
        edge += 4 * U64 * (max(abs(j_lo), abs(j_hi) + 2) * h)
    return Factor(h, pess, opt, edge)


#: Rounds of :func:`_lend_down` (each settles the atoms whose lower neighbour is settled).
_LEND_ROUNDS = 16


def _lend_down(CQ: np.ndarray, CP: np.ndarray, eg: np.ndarray, h: float) -> None:
    """The optimistic side's atoms with a ratio well above their grid point e^{k h} (a point
    mass of the law inside the cell, or one moved down from the cell above) merged, in place,
    with the fraction beta of the atom below that brings their ratio down to e^{k h} exactly.

    Both are garblings of the factor (data processing: the profile only falls), so the side
    stays dominated. Rounding such an atom's loss down to k h instead loses its excess, up to
    h per factor (first order: n h for n factors); the merge only misplaces mass between two
    adjacent grid points, which changes delta(eps) only for eps between them (second order
    once composed). ``CQ`` holds lower bounds of the atoms' Q-masses and ``CP`` upper bounds of
    their P-masses, each with ratio CQ/CP >= e^{k h}; beta is taken from the bounds with
    rounding room, so the merged ratio stays >= e^{k h}. Atoms whose lower neighbour is itself
    such an atom wait for it (rounds); what is left after :data:`_LEND_ROUNDS` stays rounded
    down (valid, first order)."""
    slack = 8 * U64
    with np.errstate(invalid="ignore", divide="ignore"):
        excess = CQ - eg * CP
        cand = np.zeros(len(CQ), dtype=bool)
        cand[1:] = (excess[1:] > (h * h + slack) * (CQ[1:] + eg[1:] * CP[1:])) & (CQ[:-1] > 0)
    done = ~cand
    for _ in range(_LEND_ROUNDS):
        ready = cand.copy()
        ready[1:] &= done[:-1]
        ready &= ~done
        if not ready.any():
            return
        k = np.flatnonzero(ready)
        e = eg[k]
        ex = CQ[k] - e * CP[k] - slack * (CQ[k] + e * CP[k])
        sup = e * CP[k - 1] - CQ[k - 1] + slack * (e * CP[k - 1] + CQ[k - 1])
        with np.errstate(invalid="ignore", divide="ignore"):
            beta = np.where((ex > 0) & (sup > 0), np.minimum(ex / sup * (1 - slack), 1.0), 0.0)
        CQ[k] += beta * CQ[k - 1]
        CP[k] += beta * CP[k - 1]
        CQ[k - 1] *= 1 - beta
        CP[k - 1] *= 1 - beta
        done[k] = True


def _trim(half: Half, copy: bool = True) -> Half:
    """``half`` without its zero masses at either end (``copy``: a copy of the rest, else a
    view, for a caller that keeps ``half`` alive anyway: the composition of many factors)."""
    nz = np.flatnonzero(half.arr > 0)
    if len(nz) == 0:
        return Half(half.k0, np.zeros(0), half.inf)
    arr = half.arr[nz[0]: nz[-1] + 1]
    return Half(half.k0 + int(nz[0]), arr.copy() if copy else arr, half.inf)
