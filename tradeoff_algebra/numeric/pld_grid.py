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

__all__ = ["GridTooLarge", "MAX_GRID", "MAX_PLD_BYTES", "BYTES_PER_POINT", "LOSS_CAP",
           "DEFAULT_TAIL", "grid_step", "grid_range", "check_memory", "Half", "Factor",
           "discretise"]


class GridTooLarge(NumericalError):
    """The grid a discretised factor or the composed loss needs is beyond the size limits
    (:data:`MAX_GRID` points per factor, :data:`MAX_FFT` bins for the composition on the
    refining route): the product is refused at once instead of exhausting memory."""


#: Largest number of grid points of one discretised factor.
MAX_GRID = 1 << 23  # = MAX_FFT: about 1 GB of working arrays at most (15 arrays of float64)
#: Largest planned working memory (bytes) of the discretised factors of one composition:
#: :data:`BYTES_PER_POINT` times their grid points (:func:`grid_range`; each distinct factor
#: once, whatever its multiplicity). A plan beyond it is refused before anything is
#: discretised (:class:`GridTooLarge` naming it): the PLD refinement then ends on the finest
#: grid that fitted. 1000 discrete Gaussians with distinct sigma_i = 10 + i/10 hold 9.3e6
#: points per side at h = 2^-14 and twice as many at each halving: they grew to 4.3 GB at
#: h = 2^-16 before the time limit fired.
MAX_PLD_BYTES = 1 << 30
#: Bytes per grid point of a factor (one side's count) while a composition holds it: its
#: pessimistic and optimistic masses (16), the log-masses and losses of the side being
#: composed (16) and their tilted copy at its end (8), and the temporaries; measured at 51
#: (200 discrete Gaussians at h = 2^-14: 8.1e6 points of both sides, 25 bytes each).
BYTES_PER_POINT = 64


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
    difference formed on the side where it is smaller, with an absolute error bound."""
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


def check_memory(models: list, h: float, tau: float = DEFAULT_TAIL) -> None:
    """Refuse at once (:class:`GridTooLarge` naming :data:`MAX_PLD_BYTES`) the composition of
    the loss ``models`` (each distinct factor once) at step ``h`` whose discretised factors
    would need more than MAX_PLD_BYTES (:data:`BYTES_PER_POINT` per grid point)."""
    points = 0
    for m in models:
        budget.check()
        j_lo, j_hi = grid_range(m, h, tau)
        points += j_hi - j_lo + 3
    need = points * BYTES_PER_POINT
    if need > MAX_PLD_BYTES:
        raise GridTooLarge(f"discretising {len(models)} distinct factors at step "
                           f"h = 2^{round(math.log2(h))} needs {points:.3g} grid points, about "
                           f"{need / 2**30:.3g} GiB of working memory (limit MAX_PLD_BYTES = "
                           f"{MAX_PLD_BYTES / 2**30:g} GiB); raise the step with "
                           "pld_options(h=...) or group identical factors")


def discretise(model: PrivacyLoss, h: float, tau: float = DEFAULT_TAIL) -> Factor:
    """Pessimistic and optimistic grid laws of one factor (see the module docstring). Under a
    time limit: checked between chunks of the distribution functions (:data:`CHUNK`) and
    between the phases, and refused at once where the evaluations cannot end before it
    (:class:`_Pace`)."""
    j_lo, j_hi = grid_range(model, h, tau)
    if j_hi - j_lo > MAX_GRID:
        raise GridTooLarge(f"discretising one factor needs {j_hi - j_lo} grid points at step "
                           f"h = {h:g} (limit MAX_GRID = {MAX_GRID}); raise the step with "
                           "pld_options(h=...)")
    rho = model.rel_err
    # (four evaluations of about n points each: the grid's, Q and P, and the cell edges')
    n_pts = j_hi - j_lo + 1
    pace = _Pace(4 * n_pts + 2, f"discretising a factor's loss on {n_pts} grid points at step "
                 f"h = 2^{round(math.log2(h))}")
    # -- pessimistic: connect the dots on the grid l_j = j h, cells (l_j, l_{j+1}] -------------
    j = np.arange(j_lo, j_hi + 1)
    l = j * h
    FQ, SQ = pace.cdf(model, l, "Q")
    FP, SP = pace.cdf(model, l, "P")
    rho = model.rel_err
    Qc, EQ = _cells(FQ, SQ, rho)
    Pc, EP = _cells(FP, SP, rho)
    el = np.exp(l[:-1])
    num = Qc - Pc * el
    Enum = EQ + el * EP + 4 * U64 * (Qc + Pc * el)
    den = -math.expm1(-h)
    Qc_hi = Qc + EQ
    w_up = np.clip((num + Enum) / den * (1 + 4 * U64), 0.0, Qc_hi)
    w_dn = np.maximum(Qc_hi - w_up, 0.0)
    U = np.zeros(len(l))
    U[:-1] += w_dn
    U[1:] += w_up
    U[0] += FQ[0] * (1 + rho)  # Q(L <= l_0): rounded up to l_0 (Q has no atom at -oo)
    U *= 1 + 4 * U64
    pess = Half(j_lo, U, min(1.0, SQ[-1] * (1 + rho)))  # Q(L > l_top), +oo included
    del FQ, SQ, FP, SP, Qc, EQ, EP, el, num, Enum, Qc_hi, w_up, w_dn  # (Pc: the edges below)
    budget.check()
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
        g = np.gradient(lp) / h if len(lp) > 1 else np.zeros_like(lp)
    shift = np.zeros(len(edges))
    shift[1:1 + len(g)] = -h * h * (g / 12 + 1 / 24)
    shift = np.clip(np.where(np.isfinite(shift), shift, 0.0), -h / 8, h / 8)
    edges = edges + shift
    top = np.array([j_hi * h])
    budget.check()

    def cdf_edges(which):
        F, S = pace.cdf(model, edges, which)
        Ft, St = pace.cdf(model, top, which, left=True)
        return np.concatenate([F, Ft]), np.concatenate([S, St])

    FQe, SQe = cdf_edges("Q")
    FPe, SPe = cdf_edges("P")
    Qm, EQm = _cells(FQe, SQe, rho)
    Pm, EPm = _cells(FPe, SPe, rho)
    budget.check()
    edges = np.append(edges, top)
    # atoms: bottom tail (grid j_lo - 1), cells j_lo .. j_hi, top tail (grid j_hi, no deficit)
    q_top = max(0.0, SQe[-1] * (1 - rho) - model.q_inf * (1 + rho))
    Qlo = np.concatenate([[FQe[0] * (1 - rho)], np.maximum(Qm - EQm, 0.0), [q_top]])
    Phi = np.concatenate([[FPe[0] * (1 + rho)], Pm + EPm, [SPe[-1] * (1 + rho)]])
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
    with np.errstate(divide="ignore", invalid="ignore"):
        gam = np.where(deficit, need / spare * (1 + 8 * U64), 0.0)
    ok = ~deficit | ((spare > 0) & (gam <= 1))
    gam = np.where(deficit & ok, gam, 0.0)
    r = np.ones_like(Qlo)
    r[1:] = 1.0 - gam[:-1]
    # the content (Q lower bound, P upper bound) of every atom after the borrowing: a ratio at
    # least e^{g h}; an atom that cannot borrow (nothing above it) has merged ratio above
    # e^{(g - 1/2) h} > e^{(g - 1) h}: it moves to the grid point below when the bounds certify
    # it, else it is dropped
    lend = deficit & ok
    cQ = np.where(ok, r * Qlo, 0.0)
    cP = np.where(ok, r * Phi, 0.0)
    cQ[:-1] += np.where(lend[:-1], gam[:-1] * Qlo[1:], 0.0)
    cP[:-1] += np.where(lend[:-1], gam[:-1] * Phi[1:], 0.0)
    down = ~ok & (Qlo >= np.exp((g - 1) * h - slack) * Phi * (1 + 8 * U64))
    g = np.where(down, g - 1, g)
    cQ = np.where(down, r * Qlo, cQ)
    cP = np.where(down, r * Phi, cP)
    budget.check()
    CQ = np.zeros(j_hi - j_lo + 3)
    CP = np.zeros(j_hi - j_lo + 3)
    np.add.at(CQ, g - (j_lo - 2), np.maximum(cQ, 0.0))
    np.add.at(CP, g - (j_lo - 2), np.maximum(cP, 0.0))
    _lend_down(CQ, CP, np.exp(np.arange(j_lo - 2, j_hi + 1) * h - slack), h)
    budget.check()
    L = CQ * (1 - 8 * U64)
    opt = Half(j_lo - 2, L, max(0.0, model.sure_q_inf() * (1 - rho)))
    edge = max(model.edge_err(l), model.edge_err(edges)) + slack
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
