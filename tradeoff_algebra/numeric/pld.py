"""The privacy-loss-distribution (PLD) engine: guaranteed bounds for tensor products without
closed form (DESIGN.md section 5).

Representation. For ``f = T(P, Q)`` the loss ``L = log dQ/dP`` under Q determines f through the
hockey-stick profile ``delta(eps) = E_Q[(1 - e^{eps - L})_+]`` (+ ``Q(L = +oo)``), valid for every
real eps, and ``f(alpha) = max{0, sup_eps 1 - delta(eps) - e^eps alpha}`` (Dong, Roth & Su,
Prop. 6 and the conjugate duality behind it). Composition adds independent losses
(Def. 5: ``T(P x P', Q x Q')``), so the laws under Q convolve.

Order. For non-negative measures mu, nu on the losses write ``mu <= nu`` when
``delta_mu(eps) <= delta_nu(eps)`` for every real eps, with ``delta_mu(eps) = int (1 - e^{eps-l})_+
dmu + mu({+oo})``. Because ``(1 - e^{eps - (l + r)})_+`` is the same functional at ``eps - r``,
``mu <= nu`` implies ``mu * rho <= nu * rho`` for every non-negative rho: the order is preserved
by convolution, and products of dominated factors are dominated. Neither side needs to be a
probability measure. Every operation below either keeps one side ``<=`` the truth (optimistic,
``opt``) or ``>=`` it (pessimistic, ``pess``):

* pessimistic discretisation: *connect the dots* (the split of each grid cell's mass onto its two
  grid points that keeps both its Q-mass and its P-mass: a mean-preserving spread in ``e^{-L}``,
  under which the convex functional grows); mass below the grid is rounded up to its first point;
  mass above the grid goes to +oo; every mass is rounded up by its error bound.
* optimistic discretisation: the outcomes with loss in the cell ``((j-1/2)h, (j+1/2)h]`` are merged
  (a garbling: data processing lowers delta); an atom whose merged ratio is below ``e^{jh}`` borrows
  the needed fraction of the next atom up (again a garbling) so that its ratio is at least
  ``e^{jh}``, then its loss is rounded down to ``jh``; an atom that cannot be corrected is dropped.
  Both discretisations are second order in the grid step h (the first-order rounding of the
  losses would move each factor by up to h, n factors by n h).
* composition: the discretised laws are multiplied in the Fourier domain (powers by repeated
  squaring of each coefficient), one inverse transform at the end, on a window of the composed
  loss chosen by Chernoff bounds of the discretised laws. The circular convolution folds the mass
  outside the window onto it: the pessimistic side adds the Chernoff bound of the mass above the
  window to +oo and of the mass below to the first bin (the folded mass itself only adds); the
  optimistic side subtracts the folded mass bound from every bin and drops what lies outside.

Rigour. Exact arithmetic would make both sides exact bounds. The float64 evaluation is covered
as follows, and the bounds hold under these (standard, but not machine-checked) error models:

* factor distribution functions: relative error at most ``model.rel_err`` (scipy.special.ndtr,
  exp, expm1, log1p assumed accurate to 5e-15 relative, plus the conditioning of the cut);
  every cell mass is widened by its bound before use;
* cuts: the evaluated cell boundaries may sit ``model.edge_err`` from the exact ones; the composed
  loss is then off by at most ``shift = sum n_j edge_err_j``, and the pessimistic (optimistic)
  profile is read at ``eps - shift`` (``eps + shift``);
* FFT: the entrywise bound ``|fl(F x) - F x|_k <= gamma_N ||x||_1`` with
  ``gamma_N = 2 (log2 N + 2) * 8u`` (Higham, *Accuracy and Stability of Numerical Algorithms*,
  Thm. 24.2, with ``eta <= 8u`` for accurately computed twiddle factors; the product of the
  absolute butterfly matrices is the all-ones matrix, so the normwise analysis holds entrywise
  with ``||x||_1``; a factor 2 of room covers the real-input transforms); the coefficient powers
  and products carry the propagated bound ``n (|A| + e)^{n-1} e`` and their own rounding;
  the inverse transform's error per entry is ``(1/N) sum_k |dC_k| + gamma_N (1/N) sum_k |C_k|``;
* sums and recurrences of non-negative terms: relative error at most ``(3 m + 10) u``;
* masses below ~1e-300 are not represented (at most N * 1e-300 in total; added to +oo).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sfft
from scipy import signal

from ..core.errors import NumericalError
from .context import ThreadOptions, mp
from .pld_models import U64, AtomLoss, LossModel

__all__ = ["Factor", "Side", "Composed", "discretise", "compose", "DEFAULT_TAIL", "DEFAULT_TOL",
           "grid_step", "leaf_model", "delta_enclosure", "value_enclosure", "roc_enclosure",
           "epsilon_enclosure", "delta_refinement", "epsilon_refinement", "max_enclosure",
           "hull_roc_bounds", "hull_value_bounds", "value_refinement",
           "pld_options", "options", "GridTooLarge", "split_trivial"]

class GridTooLarge(NumericalError):
    """The grid a discretised factor or the composed loss needs is beyond the size limits
    (:data:`MAX_GRID` points per factor, :data:`MAX_FFT` bins for the composition on the
    refining route): the product is refused at once instead of exhausting memory."""


#: Largest number of grid points of one discretised factor.
MAX_GRID = 50_000_000
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


def discretise(model: LossModel, h: float, tau: float = DEFAULT_TAIL) -> Factor:
    """Pessimistic and optimistic grid laws of one factor (see the module docstring)."""
    lo, hi = model.support(tau)
    lo, hi = max(lo, -LOSS_CAP), min(hi, LOSS_CAP)
    if hi <= lo:  # the whole support beyond one cap: one cell at the cap
        lo, hi = (LOSS_CAP - h, LOSS_CAP) if lo >= LOSS_CAP else (-LOSS_CAP, -LOSS_CAP + h)
    j_lo, j_hi = math.floor(lo / h), math.ceil(hi / h)
    if j_hi <= j_lo:
        j_hi = j_lo + 1
    if j_hi - j_lo > MAX_GRID:
        raise GridTooLarge(f"discretising one factor needs {j_hi - j_lo} grid points at step "
                           f"h = {h:g} (limit MAX_GRID = {MAX_GRID}); raise the step with "
                           "pld_options(h=...)")
    rho = model.rel_err
    # -- pessimistic: connect the dots on the grid l_j = j h, cells (l_j, l_{j+1}] -------------
    j = np.arange(j_lo, j_hi + 1)
    l = j * h
    FQ, SQ = model.cdf(l, "Q")
    FP, SP = model.cdf(l, "P")
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

    def cdf_edges(which):
        F, S = model.cdf(edges, which)
        Ft, St = model.cdf(top, which, left=True)
        return np.concatenate([F, Ft]), np.concatenate([S, St])

    FQe, SQe = cdf_edges("Q")
    FPe, SPe = cdf_edges("P")
    Qm, EQm = _cells(FQe, SQe, rho)
    Pm, EPm = _cells(FPe, SPe, rho)
    edges = np.append(edges, top)
    # atoms: bottom tail (grid j_lo - 1), cells j_lo .. j_hi, top tail (grid j_hi, no deficit)
    q_top = max(0.0, SQe[-1] * (1 - rho) - model.q_inf * (1 + rho))
    Qlo = np.concatenate([[FQe[0] * (1 - rho)], np.maximum(Qm - EQm, 0.0), [q_top]])
    Phi = np.concatenate([[FPe[0] * (1 + rho)], Pm + EPm, [SPe[-1] * (1 + rho)]])
    g = np.concatenate([np.arange(j_lo - 1, j_hi + 1), [j_hi]])  # grid index of each atom
    eg = np.exp(g * h)
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
    mass = np.where(ok, r * Qlo, 0.0)
    mass[:-1] += np.where(deficit[:-1] & ok[:-1], gam[:-1] * Qlo[1:], 0.0)
    mass = np.maximum(mass, 0.0) * (1 - 8 * U64)
    # an atom that cannot borrow (nothing above it) has merged ratio above e^{(g - 1/2) h} > e^{(g
    # - 1) h}: its loss is rounded down to the grid point below when the bounds certify it
    down = ~ok & (Qlo >= np.exp((g - 1) * h) * Phi * (1 + 8 * U64))
    g = np.where(down, g - 1, g)
    mass = np.where(down, r * Qlo * (1 - 8 * U64), mass)
    L = np.zeros(j_hi - j_lo + 3)
    np.add.at(L, g - (j_lo - 2), mass)
    opt = Half(j_lo - 2, L, max(0.0, model.q_inf * (1 - rho)))
    edge = max(model.edge_err(l), model.edge_err(edges))
    return Factor(h, pess, opt, edge)


def _trim(half: Half) -> Half:
    nz = np.flatnonzero(half.arr > 0)
    if len(nz) == 0:
        return Half(half.k0, np.zeros(0), half.inf)
    return Half(half.k0 + int(nz[0]), half.arr[nz[0]: nz[-1] + 1].copy(), half.inf)


def _gamma_fft(N: int) -> float:
    return 2 * (math.log2(N) + 2) * 8 * U64


def _logmgf(parts, theta: float) -> float:
    """sum_j n_j log sum_i a_ji e^{theta l_ji} (a_ji > 0), the log-MGF of the composed law."""
    tot = 0.0
    for la, l, n in parts:
        x = la + theta * l
        mx = x.max()
        tot += n * (mx + math.log(np.exp(x - mx).sum()))
    return tot


_THETAS = np.geomspace(1e-3, 3e4, 16)


def _golden(fn, a: float, b: float, iters: int = 16) -> float:
    """Minimiser of a unimodal fn on [a, b] by golden section (the result need not be exact:
    every theta gives a valid Chernoff bound, the minimiser only the tightest)."""
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fn(c), fn(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = fn(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = fn(d)
    return c if fc < fd else d


def _best_theta(fn, upper: bool) -> float:
    """theta > 0 (upper) or < 0 minimising fn over a geometric grid, refined by golden section."""
    sgn = 1.0 if upper else -1.0
    vals = [fn(sgn * th) for th in _THETAS]
    i = int(np.argmin(vals))
    a = _THETAS[max(i - 1, 0)] if i > 0 else 0.0
    b = _THETAS[min(i + 1, len(_THETAS) - 1)]
    th = _golden(lambda x: fn(sgn * x), a, b)
    return sgn * th if fn(sgn * th) <= vals[i] else sgn * _THETAS[i]


#: Parts longer than this are binned for the search of theta (see :func:`_coarse`).
_COARSE_BINS = 2048


def _coarse(parts, upper: bool):
    """The parts with each long loss array binned into :data:`_COARSE_BINS` bins (masses
    summed, the loss moved to the bin's upper end if ``upper``, else its lower end): the MGF at
    theta of the sign of ``upper`` only grows, so every Chernoff bound computed from it holds
    too. Used for the search of theta only; the cut itself is formed from the parts."""
    out = []
    for la, l, n in parts:
        if len(l) <= _COARSE_BINS:
            out.append((la, l, n))
            continue
        lo, hi = float(l.min()), float(l.max())
        edges = np.linspace(lo, hi, _COARSE_BINS + 1)
        idx = np.clip(np.searchsorted(edges, l, side="left" if upper else "right")
                      - (0 if upper else 1), 0, _COARSE_BINS)
        mx = float(la.max())
        w = np.bincount(idx, weights=np.exp(la - mx), minlength=_COARSE_BINS + 1)
        keep = w > 0
        out.append((np.log(w[keep]) + mx, edges[keep], n))
    return out


def _chernoff_cut(parts, log_tau: float, upper: bool, lim: float) -> tuple[float, float]:
    """A loss t with composed mass beyond t (above if upper) at most tau, by Chernoff, and
    the theta used (searched on binned parts, :func:`_coarse`; any theta gives a valid bound)."""
    coarse = _coarse(parts, upper)

    def fn(s):
        return (_logmgf(coarse, s) - log_tau) / s * (1 if upper else -1)
    s = _best_theta(fn, upper)
    t = (_logmgf(parts, s) - log_tau) / s
    return (min(t, lim) if upper else max(t, lim)), s


def _chernoff_mass(parts, t: float, s: float) -> float:
    """Bound ``exp(K(s) - s t)`` on the composed mass at losses >= t (s > 0) or <= t (s < 0)."""
    return math.exp(min(_logmgf(parts, s) - s * t, 700.0))


def _power(A: np.ndarray, n: int) -> np.ndarray:
    out = None
    base = A
    while n:
        if n & 1:
            out = base.copy() if out is None else out * base
        n >>= 1
        if n:
            base = base * base
    return out


class _Progress:
    def __init__(self, on: bool, steps: int, what: str):
        self.on, self.steps, self.i, self.what, self.t0 = on, steps, 0, what, time.time()

    def step(self, msg: str) -> None:
        if not self.on:
            return
        self.i += 1
        k = int(30 * self.i / self.steps)
        sys.stderr.write("\r%s [%s%s] %s (%.1fs)   " % (self.what, "#" * k, "." * (30 - k), msg,
                                                      time.time() - self.t0))
        if self.i >= self.steps:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _too_large_msg(halves, width, N: int, max_fft: int, h: float) -> str:
    count = sum(n for _, n in halves)
    shown = str(count) if count < 10**9 else f"{float(count):.3g}"
    width = f"{float(width):.3g}"
    return (f"the composed privacy loss of {shown} factors needs a window of {width} grid "
            f"bins at step h = 2^{round(math.log2(h))} (FFT size 2^{N.bit_length() - 1}, limit "
            f"2^{max_fft.bit_length() - 1} = MAX_FFT): too many factors for the PLD engine to "
            "enclose; use a closed form (ta.simplify) or fewer factors")


def _compose_side(halves: list[tuple[Half, int]], h: float, tau: float, pess: bool,
                  theta: float, prog: _Progress, window=None, max_fft: int = 1 << 27) -> Side:
    halves = [(_trim(hf), n) for hf, n in halves if n > 0]
    # +oo mass of the composition: prod (m + i)^n - prod m^n
    ms = [(float(hf.arr.sum()), hf.inf, n) for hf, n in halves]
    if any(m == 0 for m, _, _ in ms):
        alls = math.exp(sum(n * math.log(m + i) for m, i, n in ms)) if all(m + i > 0 for m, i, n
                                                                            in ms) else 0.0
        return Side(0, np.zeros(1), alls * (1 + 1e-12 if pess else 1 - 1e-12), h, 0.0, pess)
    logfin = sum(n * math.log(m) for m, _, n in ms)
    inf = math.exp(min(logfin, 700.0)) * math.expm1(min(
        sum(n * math.log1p(i / m) for m, i, n in ms), 700.0))
    inf *= (1 + 1e-12) if pess else (1 - 1e-12)
    parts = []
    for hf, n in halves:
        l = (hf.k0 + np.arange(len(hf.arr))) * h
        with np.errstate(divide="ignore"):
            la = np.log(hf.arr)
        keep = np.isfinite(la)
        parts.append((la[keep], l[keep], n))
    lo_lim = sum(n * hf.k0 for hf, n in halves) * h
    hi_lim = sum(n * (hf.k0 + len(hf.arr) - 1) for hf, n in halves) * h
    if window is None:
        log_tau = math.log(tau)
        t_hi, s_hi = _chernoff_cut(parts, log_tau, True, hi_lim)
        t_lo, s_lo = _chernoff_cut(parts, log_tau, False, lo_lim)
        if theta != 0.0:  # the window must hold the tilted law as well (it sets the fold)
            tp = [(la + theta * l, l, n) for la, l, n in parts]
            t_hi = max(t_hi, min(hi_lim, _chernoff_cut(tp, log_tau + _logmgf(tp, 0.0), True,
                                                       hi_lim)[0]))
            t_lo = min(t_lo, max(lo_lim, _chernoff_cut(tp, log_tau + _logmgf(tp, 0.0), False,
                                                       lo_lim)[0]))
        K_lo, K_hi = math.floor(t_lo / h), math.ceil(t_hi / h)
        K_lo, K_hi = max(K_lo, round(lo_lim / h)), min(K_hi, round(hi_lim / h))
        K_lo, K_hi = max(K_lo, math.floor(-LOSS_CAP / h)), min(K_hi, math.ceil(LOSS_CAP / h))
        if K_hi < K_lo:
            K_hi = K_lo
    else:  # the window (and Chernoff parameters) of the other side: any choice is valid
        K_lo, K_hi, s_lo, s_hi = window
    # a window end at or beyond the support's end has no mass beyond it (exactly: no Chernoff
    # bound is needed there, which matters for bounded losses, where the bound saturates)
    none_below, none_above = K_lo <= round(lo_lim / h), K_hi >= round(hi_lim / h)
    width = K_hi - K_lo + 1
    N = 1 << max(4, math.ceil(math.log2(width)))
    if N > max_fft:
        raise GridTooLarge(_too_large_msg(halves, width, N, max_fft, h))
    prog.step(f"window {width} bins, FFT size {N}")
    gam = _gamma_fft(N)
    off = sum(n * hf.k0 for hf, n in halves)
    log_scale = 0.0
    C = None
    dC = None
    R_all = None
    eps_mul = 0.0
    for (la, l, n), (hf, _) in zip(parts, halves, strict=True):
        x = la + theta * l
        c = x.max()
        c += math.log(np.exp(x - c).sum())
        log_scale += n * c
        full_l = (hf.k0 + np.arange(len(hf.arr))) * h
        with np.errstate(divide="ignore"):
            at = np.where(hf.arr > 0, np.exp(np.log(np.where(hf.arr > 0, hf.arr, 1.0))
                                             + theta * full_l - c), 0.0)
        buf = np.zeros(N)
        if len(at) <= N:
            buf[:len(at)] = at
        else:  # a factor wider than the window wraps around (the fold bounds account for it)
            np.add.at(buf, np.arange(len(at)) % N, at)
        A = sfft.rfft(buf)
        del buf
        e = gam * (1 + len(at) * U64) + 4 * U64
        P = _power(A, n)
        # propagated error of the power: n (|A| + e)^{n-1} e, then its own rounding
        B = np.abs(A)
        del A
        with np.errstate(divide="ignore", over="ignore"):
            if n > 1:
                B += e
                np.log(B, out=B)
                B *= n - 1
                B += math.log(n) + math.log(e)
                np.exp(B, out=B)
            else:
                B.fill(e)
        ep = math.expm1(1.01 * n * 3 * U64)
        absP = np.abs(P)
        B += ep / (1 - ep) * absP
        if C is None:
            C, dC = P, B
            R_all = absP + B if len(parts) > 1 else None
        else:
            R = absP + B
            dC *= R
            dC += B * R_all
            C *= P
            R_all *= R
            eps_mul += 3 * U64
            del R
        del P, absP
        prog.step("factor transformed")
    absC = np.abs(C)
    if eps_mul:
        dC += eps_mul * 1.01 * absC
    z = sfft.irfft(C, N)
    del C, R_all
    # inverse-transform error per entry: (1/N) sum_k w_k (|dC_k| + gam |C_k|), w = 1, 2, ..., 2, 1
    dC += gam * absC
    del absC
    E = 2 * float(dC.sum()) - dC[0] - (dC[-1] if N % 2 == 0 else 0.0)
    del dC
    E = E / N * 1.01 + 4 * U64 * float(np.abs(z).max())
    prog.step("inverse transform")
    start = (K_lo - off) % N
    width = K_hi - K_lo + 1
    zt = z[start:start + width] if start + width <= N else \
        np.concatenate([z[start:], z[:start + width - N]])
    # tilted (normalised) tail masses outside the window: what the circular fold can add
    tparts = [(la + theta * l - (lambda x: x.max() + math.log(np.exp(x - x.max()).sum()))(
        la + theta * l), l, n) for la, l, n in parts]
    fold = ((0.0 if none_above else _chernoff_mass(tparts, (K_hi + 1) * h, s_hi - theta))
            + (0.0 if none_below else _chernoff_mass(tparts, (K_lo - 1) * h, s_lo - theta)))
    if theta == 0.0:
        scale = math.exp(min(log_scale, 700.0))
    else:
        with np.errstate(over="ignore", under="ignore"):
            scale = np.arange(K_lo, K_hi + 1) * (-theta * h)
            scale += log_scale
            np.minimum(scale, 700.0, out=scale)
            np.exp(scale, out=scale)
    total_bound = math.exp(min(logfin, 700.0)) * (1 + 1e-9)
    if pess:
        arr = np.maximum(zt, 0.0)
        arr += E
        arr *= scale
        arr *= 1 + 16 * U64
        np.minimum(arr, total_bound, out=arr)
        if not none_below:
            arr[0] += _chernoff_mass(parts, (K_lo - 1) * h, s_lo) * (1 + 1e-9)
        if not none_above:
            inf += _chernoff_mass(parts, (K_hi + 1) * h, s_hi) * (1 + 1e-9)
        inf += len(arr) * _TINY
    else:
        arr = zt - (E + fold)
        np.maximum(arr, 0.0, out=arr)
        arr *= scale
        arr *= 1 - 16 * U64
    del z, zt, scale
    return Side(K_lo, arr, min(inf, 1.0) if pess else max(inf, 0.0), h, 0.0, pess,
                info={"N": N, "E": E, "fold": fold, "window": (K_lo, K_hi, s_lo, s_hi)})


@dataclass
class Side:
    """A composed grid law: masses ``arr[i]`` at losses ``(k0 + i) h``, ``inf`` at +oo, read at
    ``eps - shift`` (pessimistic) or ``eps + shift`` (optimistic). Its profile is an upper
    (``pess``) or lower bound of the true delta(eps) for every real eps."""

    k0: int
    arr: np.ndarray
    inf: float
    h: float
    shift: float
    pess: bool
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        a = np.asarray(self.arr, dtype=np.float64)
        self.arr = a
        n = len(a)
        S0 = np.cumsum(a[::-1])[::-1]  # S0[k] = sum_{i >= k} a_i
        c = -math.expm1(-self.h)
        # D[k] = delta_finite(l_k) = sum_{i > k} a_i (1 - e^{l_k - l_i}); D[top] = 0,
        # D[k-1] = e^{-h} D[k] + c S0[k]  (non-negative recurrence, run from the top)
        D = signal.lfilter([0.0, c], [1.0, -math.exp(-self.h)], S0[::-1])[::-1]
        rel = (3 * n + 10) * U64
        f = (1 + rel) if self.pess else (1 - rel)
        S0 *= f
        D *= f
        self.S0, self.D = S0, D
        self.total = (float(self.S0[0]) if n else 0.0) + self.inf

    def _l(self, k: int) -> float:
        """The loss of bin k."""
        return (self.k0 + k) * self.h

    def _eps(self, eps: float) -> float:
        return eps - self.shift if self.pess else eps + self.shift

    def delta(self, eps: float) -> float:
        """The side's profile at eps (an upper bound of the truth for pess, lower for opt)."""
        return float(self.delta_many(np.array([eps], dtype=np.float64))[0])

    def delta_many(self, eps: np.ndarray) -> np.ndarray:
        """:meth:`delta` at every point of a float array (vectorised; -oo gives the total)."""
        e = np.asarray(eps, dtype=np.float64) + (-self.shift if self.pess else self.shift)
        n = len(self.arr)
        out = np.full(e.shape, self.inf)
        fin = np.isfinite(e)
        out[e == -np.inf] = self.total
        if n == 0 or not fin.any():
            return out
        ef = e[fin]
        k = np.floor(ef / self.h).astype(np.int64) - self.k0
        inside = k < n - 1
        kk = np.maximum(k + 1, 0)[inside]
        x = ef[inside] - (self.k0 + kk) * self.h
        v = np.zeros(len(ef))
        v[inside] = -np.expm1(x) * self.S0[kk] + np.exp(x) * self.D[kk]
        v *= (1 + 8 * U64) if self.pess else (1 - 8 * U64)
        out[fin] = v + self.inf
        return out

    def kinks(self) -> np.ndarray:
        """The eps where the side's profile (read with its shift) has its kinks."""
        l = np.arange(self.k0, self.k0 + len(self.arr)) * self.h
        return l + self.shift if self.pess else l - self.shift

    def roc(self, alpha: float) -> float:
        """min over eps of delta(eps) + e^eps alpha: for pess an upper bound of 1 - f(alpha),
        for opt a lower bound (exact minimum of the side's piecewise function)."""
        cand = np.arange(self.k0, self.k0 + len(self.D)) * self.h
        cand += self.shift if self.pess else -self.shift
        np.exp(cand, out=cand)
        cand *= alpha
        cand += self.D
        cand += self.inf
        best = min(float(cand.min()) if len(cand) else math.inf, self.total)
        if alpha == 0:
            best = min(best, self.inf)
        return best * (1 + 8 * U64) if self.pess else best * (1 - 8 * U64)

    def epsilon(self, d: float) -> float:
        """pess: an eps with delta_pess(eps) <= d (so the true eps(d) is at most it);
        opt: an eps with delta_opt(eps) > d (the true eps(d) is larger), or 0 / inf."""
        if self.pess:
            if self.inf > d:
                return math.inf
            if self.delta(0.0) <= d:
                return 0.0
        else:
            if self.inf > d:
                return math.inf
            if self.delta(0.0) <= d:
                return 0.0
        # binary search on the grid values of the (shifted) profile
        vals = self.D * (1 + 8 * U64 if self.pess else 1 - 8 * U64) + self.inf
        # vals non-increasing in k; find first k with vals[k] <= d
        k = int(np.searchsorted(-vals, -d, side="left"))
        k = min(max(k, 0), len(vals) - 1)
        # the crossing lies in (l_{k-1}, l_k]: solve (1 - rho) S0[k] + rho D[k] = d - inf
        S, Dk = self.S0[k], self.D[k]
        target = d - self.inf
        if S - Dk > 0 and S > target:
            rho = (S - target) / (S - Dk)
            e = self._l(k) + math.log(min(max(rho, 1e-300), 1.0))
        else:
            e = self._l(k)
        eps = e + self.shift if self.pess else e - self.shift
        eps = max(eps, 0.0)
        step = max(abs(eps), 1e-300) * 4 * U64
        for _ in range(200):
            v = self.delta(eps)
            if self.pess and v <= d:
                return eps
            if not self.pess and (v > d or eps == 0.0):
                return eps
            eps = eps + step if self.pess else max(eps - step, 0.0)
            step *= 2
        return math.inf if self.pess else 0.0


@dataclass
class Composed:
    """Both sides of a composed law (``pess`` dominates, ``opt`` is dominated)."""

    pess: Side
    opt: Side
    h: float
    seconds: float = 0.0

    def delta_bounds(self, eps: float) -> tuple[float, float]:
        lo, hi = self.opt.delta(eps), self.pess.delta(eps)
        return max(lo, 0.0), min(hi, 1.0)

    def roc_bounds(self, alpha: float) -> tuple[float, float]:
        lo, hi = self.opt.roc(alpha), self.pess.roc(alpha)
        return max(lo, alpha), min(hi, 1.0)

    def value_bounds(self, alpha: float) -> tuple[float, float]:
        return hull_value_bounds([self], alpha)

    def epsilon_bounds(self, d: float) -> tuple[float, float]:
        return self.opt.epsilon(d), self.pess.epsilon(d)


def hull_roc_bounds(cs: list[Composed], alpha: float) -> tuple[float, float]:
    """Enclosure of ``1 - C(alpha)`` for the trade-off function C whose profile is the maximum
    of the profiles of the composed laws ``cs`` (the symmetric hull of a product and of its
    inverse: Wang et al., Sec. 4; Dong, Roth & Su, Prop. 6):
    ``1 - C(alpha) = min{1, inf_eps max_i delta_i(eps) + e^eps alpha}``.

    Upper end: the pessimistic profiles at their kinks, at the crossings of the two between
    consecutive kinks (where both are linear in ``x = e^eps``) and at ``eps = -oo``: every
    point gives an upper bound. Lower end: by minimax,
    ``inf_x max_i A_i(x) = max_lambda inf_x sum_i lambda_i A_i(x)`` over the simplex for convex
    ``A_i``; for a fixed lambda the optimistic combination plus ``alpha x`` is piecewise linear
    in x with kinks among the sides' kinks, so its infimum is a minimum over them (and
    ``x -> 0``); every lambda gives a lower bound, and lambda is optimised by golden section
    (two terms) or taken at the vertices otherwise."""
    if len(cs) == 1:
        return cs[0].roc_bounds(alpha)

    def plus_ex(vals: np.ndarray, E: np.ndarray, up: bool) -> np.ndarray:
        with np.errstate(over="ignore"):
            ex = np.exp(E) * alpha
        return vals + ex * ((1 + 4 * U64) if up else (1 - 4 * U64))

    # -- upper end: any eps gives one; each side's kinks and the crossings between them -------
    hi = math.inf
    for side in cs:
        E = side.pess.kinks()
        vals = np.array([c.pess.delta_many(E) for c in cs])
        if len(cs) == 2 and len(E) > 1:
            d = vals[0] - vals[1]
            i = np.flatnonzero(np.signbit(d[:-1]) != np.signbit(d[1:]))
            if len(i):  # where both are (nearly) linear in x between the points: the crossing
                x0, x1 = np.exp(E[i]), np.exp(E[i + 1])
                with np.errstate(divide="ignore", invalid="ignore"):
                    Ex = np.log(x0 + d[i] / (d[i] - d[i + 1]) * (x1 - x0))
                Ex = Ex[np.isfinite(Ex)]
                E = np.concatenate([E, Ex])
                vals = np.concatenate([vals, [c.pess.delta_many(Ex) for c in cs]], axis=1)
        if len(E):
            hi = min(hi, float(plus_ex(vals.max(axis=0), E, True).min()))
    hi = min(hi, max(c.pess.total for c in cs))
    if alpha == 0:
        hi = min(hi, max(c.pess.inf for c in cs))
    hi = min(hi * (1 + 8 * U64), 1.0)
    # -- lower end: minimax over the union of the optimistic kinks ------------------------------
    E = np.concatenate([c.opt.kinks() for c in cs])
    vals = np.array([c.opt.delta_many(E) for c in cs])
    ex = plus_ex(np.zeros(len(E)), E, False)
    # a point where even the smallest profile plus alpha x exceeds the upper end is the minimum
    # of no combination (each combination's minimum is at most the true value <= hi)
    keep = vals.min(axis=0) + ex <= hi
    vals, ex = vals[:, keep], ex[keep]
    totals = np.array([c.opt.total for c in cs])
    infs = np.array([c.opt.inf for c in cs])

    def phi(lam: np.ndarray) -> float:
        m = float((lam @ vals + ex).min()) if len(ex) else math.inf
        m = min(m, float(lam @ totals))
        if alpha == 0:
            m = min(m, float(lam @ infs))
        return m * (1 - 8 * U64)

    if len(cs) == 2:
        lo = _golden_max(lambda t: phi(np.array([t, 1.0 - t])), 0.0, 1.0)
    else:
        lo = max(phi(np.eye(len(cs))[i]) for i in range(len(cs)))
    return max(min(lo, 1.0), alpha), max(hi, alpha)


def hull_value_bounds(cs: list[Composed], alpha: float) -> tuple[float, float]:
    """Enclosure of ``C(alpha)`` (see :func:`hull_roc_bounds`)."""
    rlo, rhi = hull_roc_bounds(cs, alpha)
    lo = max(0.0, (1.0 - rhi) * (1 - 2 * U64) - 2 * U64)
    hi = min(1.0 - alpha, (1.0 - rlo) * (1 + 2 * U64) + 2 * U64) if alpha < 1 else 0.0
    return lo, max(hi, lo)


def _golden_max(fn, a: float, b: float, iters: int = 30) -> float:
    """The largest value of fn seen in a golden-section search (:func:`_golden` on -fn) for the
    maximum of a concave fn on [a, b], the end points included: every value seen is attained."""
    seen = [fn(a), fn(b)]

    def neg(t: float) -> float:
        seen.append(fn(t))
        return -seen[-1]

    _golden(neg, a, b, iters)
    return max(seen)


def compose(factors: list[tuple[Factor, int]], tau: float = DEFAULT_TAIL, theta: float = 0.0,
            progress: bool = False, max_fft: int | None = None) -> Composed:
    """Compose discretised factors ``[(factor, multiplicity), ...]`` (same step h)."""
    t0 = time.time()
    h = factors[0][0].h
    if any(f.h != h for f, _ in factors):
        raise ValueError("factors must share the grid step")
    prog = _Progress(progress, 2 * (len(factors) + 2), "PLD")
    max_fft = max_fft or 1 << 27
    _check_spread(factors, h, max_fft)
    shift = sum(n * f.edge for f, n in factors)
    sides = []
    window = None
    for pess in (True, False):
        try:
            s = _compose_side([((f.pess if pess else f.opt), n) for f, n in factors], h, tau,
                              pess, theta, prog, window, max_fft)
        except MemoryError as exc:  # numpy could not allocate: a size error, not a crash
            raise GridTooLarge(f"composing {sum(n for _, n in factors)} factors at step "
                               f"h = {h:g} ran out of memory; use fewer factors or a coarser "
                               "step (pld_options(h=...))") from exc
        window = s.info.get("window")
        s.shift = shift
        sides.append(s)
    return Composed(sides[0], sides[1], h, time.time() - t0)


def _check_spread(factors: list[tuple[Factor, int]], h: float, max_fft: int) -> None:
    """Refuse at once a product whose composed loss is certainly wider than ``max_fft`` bins:
    its standard deviation (the factors' variances add) times 12 already exceeds it (the
    window holds at least +-6 standard deviations)."""
    var = 0.0
    for f, n in factors:
        a = f.pess.arr
        tot = float(a.sum())
        if tot <= 0 or n == 0:
            continue
        l = (f.pess.k0 + np.arange(len(a))) * h
        m = float((a * l).sum()) / tot
        var += float(n) * float((a * (l - m) ** 2).sum()) / tot
    width = 12.0 * math.sqrt(var) / h
    if width > max_fft:
        half = Half(0, np.zeros(0), 0.0)
        raise GridTooLarge(_too_large_msg([(half, n) for _, n in factors], width,
                                          1 << min(max(4, math.ceil(math.log2(width))), 4096),
                                          max_fft, h))


def trivial_model() -> AtomLoss:
    """Id = T(P, P): the loss is 0 almost surely."""
    return AtomLoss([0.0], [1.0], [1.0])


# ================================================================================================
# Expression level: leaves with multiplicities -> enclosures, with adaptive grid and tilt
# ================================================================================================
#: Default target for the relative width (hi - lo)/hi of a PLD result.
DEFAULT_TOL = 5e-4
#: First grid step tried, and the finest one allowed; the largest FFT the refinement may use.
H_START, H_MIN = 2.0**-10, 2.0**-19
MAX_FFT = 1 << 23
_CACHE: dict = {}
_CACHE_SIZE = 6
_CACHE_BYTES = 400 * 2**20
#: The options of the calling thread (each thread starts from these defaults).
_OPTIONS = ThreadOptions({"tol": DEFAULT_TOL, "h": None, "tail": DEFAULT_TAIL,
                          "progress": False})


class OptionsContext:
    """Base of the option context managers: subclasses set ``_store`` (a module's
    :class:`ThreadOptions`, private to the calling thread) and ``_new`` (the values to set
    inside the ``with`` block)."""

    _store: MutableMapping
    _new: dict

    def __enter__(self):
        self._old = dict(self._store)
        self._store.update(self._new)
        return self

    def __exit__(self, *exc):
        self._store.clear()
        self._store.update(self._old)
        return False


class pld_options(OptionsContext):
    """Context manager for the PLD route of ``ta.evaluate``, ``ta.roc``, ``ta.delta`` and
    ``ta.epsilon``: ``tol`` (target relative width, default 5e-4), ``h`` (a fixed grid step:
    no refinement), ``tail`` (mass allowed outside the composed window per side, default
    1e-20), ``progress`` (a progress bar on stderr). A product whose composed loss needs more
    than ``MAX_FFT`` grid bins on the coarsest grid (``Laplace(1)**10**9``) is refused at once
    with :class:`GridTooLarge` (a NumericalError), naming the limit::

        with pld_options(tol=1e-5, progress=True):
            ta.epsilon(noisy_sgd(1.1, 256/60000, 14062, sampling="poisson"), 1e-5)
    """

    _store = _OPTIONS

    def __init__(self, tol: float | None = None, h: float | None = None,
                 tail: float | None = None, progress: bool | None = None):
        from ..core.errors import InvalidParameter

        new = {"tol": tol, "h": h, "tail": tail, "progress": progress}
        if tol is not None and not (tol > 0 and math.isfinite(tol)):
            raise InvalidParameter("tol", tol, "a positive finite number", "pld_options")
        if tail is not None and not (0 < tail < 1):
            raise InvalidParameter("tail", tail, "a number in (0, 1)", "pld_options")
        if h is not None and not (h > 0 and math.isfinite(h)):
            raise InvalidParameter("h", h, "a positive finite grid step", "pld_options")
        self._new = {k: v for k, v in new.items() if v is not None}


def options() -> dict:
    """The current PLD options (see :class:`pld_options`)."""
    return dict(_OPTIONS)


def leaf_model(f) -> LossModel:
    """The loss model of one factor: its family's ``loss_model`` hook, else its exact finite
    atoms (``numeric.finite.finite_loss``), else :class:`NoClosedForm`."""
    from ..core.errors import NoClosedForm
    from .pld_models import loss_model

    m = loss_model(f)
    if m is not None:
        return m
    try:
        from .finite import finite_loss
    except ImportError:  # pragma: no cover - the finite route is optional
        finite_loss = None
    fl = finite_loss(f) if finite_loss is not None else None
    if fl is not None:
        return atoms_model(fl)
    raise NoClosedForm(f"{f}: no privacy-loss distribution is known for this factor (families "
                       "G, Laplace, finite objects, Mix and Inverse of these have one)")


def atoms_model(fl) -> AtomLoss:
    """AtomLoss of a FiniteLoss from its materialised atoms (log-ratio, P-mass, Q-mass): the
    exact table when e^eps is rational, else the 128-bit mpmath table (no SymPy: float or
    irrational eps would make symbolic masses slow); rounded to float64 within ``rel_err``."""

    with mp.workprec(128):
        t = fl._exact_table()
        den = t.den if t is not None else 1
        if t is None:
            t = fl._mp_table(128)
        ls, ps, qs = [], [], []
        q_inf = p_ninf = 0.0
        for lg, p, q in zip(t.logs, t.P, t.Q, strict=True):
            pf, qf = float(mp.mpf(p) / den), float(mp.mpf(q) / den)
            if lg == mp.inf:
                q_inf += qf
            elif lg == mp.ninf:
                p_ninf += pf
            else:
                ls.append(float(lg))
                ps.append(pf)
                qs.append(qf)
    return AtomLoss(ls, ps, qs, q_inf, p_ninf, rel_err=1e-15)


def _composed(leaves: tuple, h: float, tau: float, theta: float, progress: bool,
              max_fft: int | None = None) -> Composed:
    key = (leaves, h, tau, theta)
    c = _CACHE.get(key)
    if c is None:
        # a finer grid supersedes the coarser ones of the same product: free them first
        for k in [k for k in _CACHE if k[0] == leaves and k[2:] == key[2:] and k[1] > h]:
            del _CACHE[k]
        from .pld_profile import leaf_factor  # (it builds on this module)

        rest, deltas = split_trivial(leaves)
        if rest:
            facs = [(leaf_factor(f, h, tau), n) for f, n in rest]
            c = compose(facs, tau, theta, progress, max_fft)
        else:
            c = _identity(h)
        if deltas:
            c = _with_delta(c, deltas)
        _CACHE[key] = c
        # bounded memory: at most _CACHE_SIZE results and _CACHE_BYTES of arrays
        while len(_CACHE) > 1 and (len(_CACHE) > _CACHE_SIZE or sum(
                x.pess.arr.nbytes + x.opt.arr.nbytes for x in _CACHE.values()) * 4
                > _CACHE_BYTES):
            _CACHE.pop(next(iter(_CACHE)))
    return c


def split_trivial(leaves) -> tuple[tuple, list]:
    """``(rest, deltas)``: the factors Id dropped (the unit of the product, Dong, Roth & Su,
    Sec. 3.1) and the f_{0,delta} parts taken out (f_{eps,delta} = f_{eps,0} (x) f_{0,delta},
    Eq. (10); ``deltas`` a list of (delta, n)); they re-enter exactly (:func:`_with_delta`)
    instead of through a grid, so they widen nothing."""
    from ..families.epsdelta import EpsDelta
    from ..families.trivial import IdTradeOff

    rest, deltas = [], []
    for f, n in leaves:
        if isinstance(f, IdTradeOff) or n == 0:
            continue
        if isinstance(f, EpsDelta) and not f.free_symbols:
            if f.delta.is_zero is False:
                deltas.append((f.delta, n))
            if f.eps.is_zero is False:
                rest.append((EpsDelta(f.eps, 0), n))
            continue
        rest.append((f, n))
    return tuple(rest), deltas


def _identity(h: float) -> Composed:
    """The composed law of Id (the loss 0 with mass 1 under Q), exactly."""
    return Composed(Side(0, np.array([1.0]), 0.0, h, 0.0, True),
                    Side(0, np.array([1.0]), 0.0, h, 0.0, False), h)


def _with_delta(c: Composed, deltas) -> Composed:
    """c (x) f_{0,D}, 1 - D = prod (1 - delta_i)^{n_i} (Eq. (11)): under Q the loss is the
    composed one with probability 1 - D and +oo with probability D, so every mass is scaled by
    1 - D and D joins the mass at +oo (delta = D + (1 - D) delta_c, Eq. (12) through Prop. 6).
    The pessimistic side takes the upper ends of 1 - D and D, the optimistic the lower ends."""
    from .protocol import num

    with mp.workprec(96):
        t = mp.zero
        for d, n in deltas:
            dd = num(d, "delta")
            if dd >= 1:
                t = mp.ninf
                break
            t += n * mp.log1p(-dd)
        keep, D = mp.exp(t), -mp.expm1(t)
        kf, Df = float(keep), float(D)
    up, dn = (lambda x: math.nextafter(x, math.inf)), (lambda x: math.nextafter(x, -math.inf))
    k_lo, k_hi = max(dn(kf), 0.0), min(up(kf), 1.0)
    D_lo, D_hi = max(dn(Df), 0.0), min(up(Df), 1.0)
    f_up, f_dn = 1 + 4 * U64, 1 - 4 * U64
    p, o = c.pess, c.opt
    pess = Side(p.k0, p.arr * (k_hi * f_up), min(1.0, (D_hi + k_hi * p.inf) * f_up), p.h,
                p.shift, True, dict(p.info))
    opt = Side(o.k0, o.arr * (k_lo * f_dn), max(0.0, (D_lo + k_lo * o.inf) * f_dn), o.h,
               o.shift, False, dict(o.info))
    return Composed(pess, opt, c.h, c.seconds)


def _rel(lo: float, hi: float) -> float:
    if hi == lo:
        return 0.0
    return (hi - lo) / hi if hi > 0 else math.inf


class _Refinement:
    """Successive enclosures ``query(*composed) -> (lo, hi)`` of a quantity of one or more
    products (``leaf_sets``, each composed on the same grid) on finer grids: h
    halves, or jumps by the second-order rule (width ~ h^2) towards the step that meets the
    tolerance, down to :data:`H_MIN`; ``tilt_for(composed, best, stalled) -> (theta, tau)``
    (``stalled``: the last grid did not halve the width) may propose
    a tilted recomputation for deep tails. Every intermediate result is a valid enclosure;
    ``best`` is the intersection of all of them (the narrowest kept when they are disjoint
    by rounding)."""

    def __init__(self, leaf_sets: tuple, query, h: float | None, tau: float, progress: bool,
                 tilt_for=None):
        self.leaf_sets, self.query, self.tau, self.progress = leaf_sets, query, tau, progress
        self.tilt_for, self.fixed = tilt_for, h is not None
        # a fixed step, or the finest grid already composed for these products
        self.h = grid_step(h) if self.fixed else min(
            [k[1] for k in _CACHE if k[0] in leaf_sets and k[2:] == (tau, 0.0)], default=H_START)
        self.theta = 0.0
        self.best: tuple[float, float] | None = None
        self.prev_w: float | None = None
        self.done = False

    def step(self, tol: float) -> tuple[float, float]:
        """One more grid; afterwards ``done`` tells whether further steps can help."""
        try:
            cs = [_composed(x, self.h, self.tau, self.theta, self.progress,
                            None if self.fixed else MAX_FFT) for x in self.leaf_sets]
        except GridTooLarge:
            if self.best is None:
                raise
            self.done = True
            return self.best
        lo, hi = self.query(*cs)
        b = self.best
        self.best = (lo, hi) if b is None or (hi - lo) < (b[1] - b[0]) else \
            (max(lo, b[0]), min(hi, b[1]))
        w = _rel(*self.best)
        # the width no longer shrinks like h^2: a floor (the FFT's entrywise error bound, summed
        # over the bins that matter) that tilting towards the point of interest lowers
        stalled = self.prev_w is not None and w > self.prev_w / 2
        self.prev_w = w
        if self.fixed or w <= tol:
            self.done = True
        elif self.tilt_for is not None and self.theta == 0.0 and \
                (t := self.tilt_for(cs[0], self.best, stalled)) is not None:
            self.theta, self.tau = t
        elif self.h <= H_MIN:
            self.done = True
        else:
            ratio = math.sqrt(tol / w) * 0.9 if w < math.inf else 0.5
            ratio = min(0.5, max(ratio, 1 / 16))
            self.h = max(H_MIN, 2.0 ** round(math.log2(self.h * ratio)))
        return self.best


def max_enclosure(refinements: list[_Refinement], tol: float) -> tuple[float, float]:
    """Enclosure of ``max_i v_i`` from refinements of each ``v_i``: ``[max lo_i, max hi_i]``,
    refining only the terms that can still hold the maximum (``hi_i`` above the largest
    ``lo``), the one with the largest ``hi`` first, until the relative width is at most
    ``tol``. The two directions of
    a symmetric hull (Wang et al., Sec. 4) are usually far apart: the smaller one is then
    settled on a coarse grid."""
    if tol <= 0 or not math.isfinite(tol):
        raise ValueError("tol must be a positive number")
    from . import budget

    for r in refinements:
        r.step(tol)
    for _ in range(12 * len(refinements)):
        lo = max(r.best[0] for r in refinements)
        hi = max(r.best[1] for r in refinements)
        if _rel(lo, hi) <= tol:
            break
        budget.check((lo, hi))
        open_ = [r for r in refinements if not r.done and r.best[1] > lo]
        if not open_:
            break
        max(open_, key=lambda r: r.best[1]).step(tol)
    return max(r.best[0] for r in refinements), max(r.best[1] for r in refinements)


def _check_leaves(leaves) -> tuple:
    out = []
    for f, n in leaves:
        n = int(n)
        if n < 0:
            raise ValueError("multiplicities must be >= 0")
        if n:
            out.append((f, n))
    return tuple(out)


def _theta_for(leaves: tuple, h: float, eps: float, tau: float, best, force: bool = False):
    """Tilt theta* = argmin_s K(s) - s eps (the Chernoff exponent of the pessimistic factor
    laws) and a tail cut far below that bound, for delta(eps) deep in the tail (or, with
    ``force``, wherever the caller saw the width stall); None when the untilted result is fine
    or no mass lies above eps."""
    lo, hi = best
    if not force and ((hi > 1e-10 and lo > 0) or hi <= 0):
        return None
    parts = []
    top = 0.0
    for f, n in split_trivial(leaves)[0]:
        from .pld_profile import leaf_factor

        half = _trim(leaf_factor(f, h, 1e-300).pess)
        if len(half.arr) == 0:
            continue
        l = (half.k0 + np.arange(len(half.arr))) * h
        keep = half.arr > 0
        parts.append((np.log(half.arr[keep]), l[keep], n))
        top += n * l[keep][-1]
    if not parts or top <= eps:  # no finite mass above eps: nothing to tilt towards
        return None

    def fn(s):
        return _logmgf(parts, s) - s * eps

    s = _best_theta(fn, True)
    if not (0 < s < _THETAS[-1] / 2):
        return None
    est = math.exp(min(fn(s), 0.0))
    if est < 1e-290:
        return None
    return s, max(min(tau, est * 1e-8), 1e-300)


def delta_refinement(leaves, eps_dn: float, eps_up: float, h: float | None = None,
                     tau: float = DEFAULT_TAIL, progress: bool = False) -> _Refinement:
    """Refinement of delta(eps) for any eps in [eps_dn, eps_up] (a float bracket of an exact
    eps: the lower end is read at eps_up, the upper at eps_dn; delta is non-increasing)."""
    leaves = _check_leaves(leaves)
    return _Refinement((leaves,),
                       lambda c: (c.delta_bounds(eps_up)[0], c.delta_bounds(eps_dn)[1]),
                       h, tau, progress,
                       lambda c, b, stalled: _theta_for(leaves, c.h, eps_dn, tau, b))


def value_refinement(leaf_sets, alpha_dn: float, alpha_up: float, power: bool,
                     h: float | None = None, tau: float = DEFAULT_TAIL,
                     progress: bool = False) -> _Refinement:
    """Refinement of C(alpha) (``power``: 1 - C(alpha)) for any alpha in [alpha_dn, alpha_up],
    C the trade-off function whose profile is the maximum of the products' profiles: the
    product itself for one product, the symmetric hull for a product and its inverse."""
    sets = tuple(_check_leaves(x) for x in leaf_sets)
    if power:  # 1 - C is non-decreasing in alpha
        def q(*cs):
            return hull_roc_bounds(cs, alpha_dn)[0], hull_roc_bounds(cs, alpha_up)[1]
    else:
        def q(*cs):
            return hull_value_bounds(cs, alpha_up)[0], hull_value_bounds(cs, alpha_dn)[1]
    return _Refinement(sets, q, h, tau, progress)


def epsilon_refinement(leaves, d_dn: float, d_up: float, h: float | None = None,
                       tau: float = DEFAULT_TAIL, progress: bool = False) -> _Refinement:
    """Refinement of eps(d) for any d in [d_dn, d_up] (eps(d) is non-increasing in d)."""
    leaves = _check_leaves(leaves)
    tau = min(tau, d_dn * 1e-6) if d_dn > 0 else tau

    def tilt(c, b, stalled):  # towards the current estimate of eps, once the width stalls
        if not stalled or not (0 < b[0] <= b[1] < math.inf):
            return None
        return _theta_for(leaves, c.h, (b[0] + b[1]) / 2, tau, b, force=True)

    return _Refinement((leaves,), lambda c: (c.epsilon_bounds(d_up)[0],
                                          c.epsilon_bounds(d_dn)[1]),
                       h, tau, progress, tilt)


def delta_enclosure(leaves, eps: float, tol: float = DEFAULT_TOL, h: float | None = None,
                    tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of delta(eps) of the product of ``leaves`` = ((f, n), ...), refined to
    relative width ``tol`` (or on the fixed grid step ``h``)."""
    return max_enclosure([delta_refinement(leaves, eps, eps, h, tau, progress)], tol)


def value_enclosure(leaves, alpha: float, tol: float = DEFAULT_TOL, h: float | None = None,
                    tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of f(alpha) of the product of ``leaves``."""
    return max_enclosure([value_refinement((leaves,), alpha, alpha, False, h, tau, progress)],
                         tol)


def roc_enclosure(leaves, alpha: float, tol: float = DEFAULT_TOL, h: float | None = None,
                  tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of 1 - f(alpha) of the product of ``leaves``."""
    return max_enclosure([value_refinement((leaves,), alpha, alpha, True, h, tau, progress)],
                         tol)


def epsilon_enclosure(leaves, d: float, tol: float = DEFAULT_TOL, h: float | None = None,
                      tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of the smallest eps >= 0 with delta(eps) <= d."""
    return max_enclosure([epsilon_refinement(leaves, d, d, h, tau, progress)], tol)
