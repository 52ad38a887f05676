"""The PLD engine's composition: discretised factors multiplied in the Fourier domain on a
window chosen by Chernoff bounds (:func:`compose`), the composed laws of both sides
(:class:`Side`, :class:`Composed`) and their profiles and values; the bounds of a value from
one composed law or the symmetric hull of several are in :mod:`.pld_hull` (re-exported here).

Part of the privacy-loss-distribution engine; its order, its error model and the rigour of each
step are described in :mod:`tradeoff_algebra.numeric.pld`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import budget
from .concave import golden_section
from .pld_grid import (
    _TINY,
    DEFAULT_TAIL,
    LOSS_CAP,
    PART_PEAK_BYTES,
    PARTS_BYTES,
    Factor,
    GridTooLarge,
    Half,
    _trim,
    refuse_memory,
)
from .pld_hull import (
    hull_roc_bounds,
    hull_roc_bounds_many,
    hull_value_bounds,
    value_bounds_from_roc,
)
from .privacy_loss import U64, AtomLoss
from .progress import bar, ensure_time

__all__ = ["Side", "Composed", "compose", "hull_roc_bounds", "hull_roc_bounds_many",
           "hull_value_bounds", "value_bounds_from_roc", "trivial_model"]


#: Largest block of :func:`decay_filter` (its temporaries: six arrays of this length).
_FILTER_BLOCK = 1 << 18


def decay_filter(x: np.ndarray, h: float, c: float) -> np.ndarray:
    """y[0] = 0, y[k] = e^{-h} y[k-1] + c x[k-1] for non-negative x, vectorised: in blocks of
    length B with h B <= 500, y[s + t] = e^{-h t} (y[s] + c sum_{j<t} x[s+j] e^{h (j+1)}), a
    cumulative sum of non-negative terms (relative rounding at most (t + 4) ulps per element,
    within the (3n + 10) ulps the callers allow: the carry adds at most 4 ulps per block, and
    a block holds at least 2 elements). Replaces a linear filter from scipy.signal, whose
    import alone takes 0.7 s. Blocks of at most :data:`_FILTER_BLOCK` elements: the
    temporaries of a block (six arrays of its length) stay small beside x."""
    n = len(x)
    y = np.empty(n, dtype=np.float64)
    B = max(2, min(int(500.0 / h), _FILTER_BLOCK))
    carry = 0.0
    for s in range(0, n, B):
        e = min(n, s + B)
        t = np.arange(e - s, dtype=np.float64)
        w = x[s:e] * np.exp(h * (t + 1))
        cs = np.cumsum(w)
        y[s:e] = np.exp(-h * t) * (carry + c * np.concatenate(([0.0], cs[:-1])))
        carry = math.exp(-h * (e - s)) * (carry + c * float(cs[-1]))
    return y


#: Peak bytes per FFT bin of one side of a composition (its transforms, the product of the
#: factors' transforms with its error bound, the inverse transform and pocketfft's own
#: buffers; measured 40 by tracemalloc and about 55 in the resident set at 2^21 to 2^23 bins).
FFT_BYTES = 56
#: Bytes per window bin of the composed law (its masses and two profile arrays, both sides):
#: the pessimistic side is held while the optimistic one is composed.
SIDE_BYTES = 48


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


def _best_theta(fn, upper: bool) -> float:
    """theta > 0 (upper) or < 0 minimising fn over a geometric grid, refined by golden section."""
    sgn = 1.0 if upper else -1.0
    vals = [fn(sgn * th) for th in _THETAS]
    i = int(np.argmin(vals))
    a = _THETAS[max(i - 1, 0)] if i > 0 else 0.0
    b = _THETAS[min(i + 1, len(_THETAS) - 1)]
    # every theta gives a valid Chernoff bound, the minimiser only the tightest
    th = golden_section(lambda x: fn(sgn * x), a, b, iters=16)[0]
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


def _tail_mass(parts, t: float, upper: bool) -> float:
    """The best Chernoff bound ``min_s exp(K(s) - s t)`` (s > 0 if ``upper``, else s < 0) on
    the composed mass at losses >= t (<= t), s searched on the binned parts (:func:`_coarse`;
    every s gives a valid bound, evaluated on the parts themselves)."""
    coarse = _coarse(parts, upper)
    s = _best_theta(lambda x: _logmgf(coarse, x) - x * t, upper)
    return _chernoff_mass(parts, t, s)


def _power(A: np.ndarray, n: int) -> np.ndarray:
    """A^n entrywise by repeated squaring, in place: ``A`` itself holds the squares (it is
    overwritten) and one more array the product (the same products in the same order as
    out-of-place squaring: bit-identical, with two arrays of A's size at most)."""
    out = None
    base = A
    while n:
        if n & 1:
            if out is None:
                out = base.copy() if n > 1 else base
            else:
                out *= base
        n >>= 1
        if n:
            np.multiply(base, base, out=base)
    return out


class _Progress:
    """The steps of one composition on a progress bar (``numeric.progress``: tqdm, with the
    real elapsed time; shown while ``pld_options(progress=True)``, gone when it ends)."""

    def __init__(self, on: bool, steps: int, what: str):
        self.bar = bar(steps, what, True if on else False, leave=False)

    def step(self, msg: str) -> None:
        self.bar.set_postfix_str(msg, refresh=False)
        self.bar.update()

    def close(self) -> None:
        self.bar.close()


def _too_large_msg(halves, width, N: int, max_fft: int, h: float) -> str:
    count = sum(n for _, n in halves)
    shown = str(count) if count < 10**9 else f"{float(count):.3g}"
    width = f"{float(width):.3g}"
    return (f"the composed privacy loss of {shown} factors needs a window of {width} grid "
            f"bins at step h = 2^{round(math.log2(h))} (FFT size 2^{N.bit_length() - 1}, limit "
            f"2^{max_fft.bit_length() - 1} = MAX_FFT): too many factors for the PLD engine to "
            "enclose; use a closed form (ta.simplify) or fewer factors")


def _compose_side(halves: list[tuple[Half, int]], h: float, tau: float, pess: bool,
                  theta: float, prog: _Progress, window=None, max_fft: int = 1 << 27,
                  plan=None) -> Side:
    # (the time limit is checked between the phases: on a window of 2^23 bins each takes
    # up to half a second, a transform as long)
    budget.check()
    halves = [(_trim(hf, copy=False), n) for hf, n in halves if n > 0]
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
    del l, la, keep
    budget.check()
    lo_lim = sum(n * hf.k0 for hf, n in halves) * h
    hi_lim = sum(n * (hf.k0 + len(hf.arr) - 1) for hf, n in halves) * h
    if window is None:
        log_tau = math.log(tau)
        t_hi, s_hi = _chernoff_cut(parts, log_tau, True, hi_lim)
        budget.check()
        t_lo, s_lo = _chernoff_cut(parts, log_tau, False, lo_lim)
        budget.check()
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
        raise GridTooLarge(_too_large_msg(halves, width, N, max_fft, h), "MAX_FFT")
    if plan is not None and window is None:
        plan(N, width)  # (its working memory, before the transforms take it)
    prog.step(f"window {width} bins, FFT size {N}")
    budget.check()  # (each transform of a large window takes a while: the limit is honoured
    # between them; the refinement adds its best enclosure to the report)
    gam = _gamma_fft(N)
    off = sum(n * hf.k0 for hf, n in halves)
    log_scale = 0.0
    C = None
    dC = None
    R_all = None
    eps_mul = 0.0
    # the mean time of the transforms after the first (which may pay for first-use costs)
    # estimates the rest of the transforms, of this side and, on the pessimistic side, of the
    # optimistic one after it: a composition that cannot end before the deadline is refused
    # at once (ensure_time)
    rest_after = len(parts) if window is None else 0
    first_done = None
    for i, ((la, l, n), (hf, _)) in enumerate(zip(parts, halves, strict=True)):
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
        n_at = len(at)
        del at, x, full_l
        A = np.fft.rfft(buf)  # (numpy's pocketfft: scipy.fft's, without its 0.4 s import)
        del buf
        budget.check()
        e = gam * (1 + n_at * U64) + 4 * U64
        # propagated error of the power: n (|A| + e)^{n-1} e, then its own rounding
        B = np.abs(A)
        P = _power(A, n)  # (A is its work array: no longer A afterwards)
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
        budget.check()
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
        budget.check()
        if i == 0:
            first_done = time.perf_counter()
        elif i & (i - 1) == 0 and len(parts) > i + 1:  # (after transforms 2, 3, 5, 9, ...:
            # their mean time, which varies by a factor of 5 from one to the next)
            left = len(parts) - i - 1 + rest_after
            ensure_time((time.perf_counter() - first_done) / i * left,
                        f"composing {len(parts)} distinct factors (FFT size 2^{N.bit_length() - 1}"
                        f", {left} transforms left)")
    absC = np.abs(C)
    if eps_mul:
        dC += eps_mul * 1.01 * absC
    z = np.fft.irfft(C, N)
    del C, R_all
    # inverse-transform error per entry: (1/N) sum_k w_k (|dC_k| + gam |C_k|), w = 1, 2, ..., 2, 1
    dC += gam * absC
    del absC
    E = 2 * float(dC.sum()) - dC[0] - (dC[-1] if N % 2 == 0 else 0.0)
    del dC
    E = E / N * 1.01 + 4 * U64 * float(np.abs(z).max())
    prog.step("inverse transform")
    budget.check()
    start = (K_lo - off) % N
    width = K_hi - K_lo + 1
    zt = z[start:start + width] if start + width <= N else \
        np.concatenate([z[start:], z[:start + width - N]])
    # tilted (normalised) tail masses outside the window: what the circular fold can add
    tparts = [(la + theta * l - (lambda x: x.max() + math.log(np.exp(x - x.max()).sum()))(
        la + theta * l), l, n) for la, l, n in parts]
    fold_hi = 0.0 if none_above else _chernoff_mass(tparts, (K_hi + 1) * h, s_hi - theta)
    fold_lo = 0.0 if none_below else _chernoff_mass(tparts, (K_lo - 1) * h, s_lo - theta)
    if window is not None:  # the other side's Chernoff parameters need not suit these tails
        if fold_hi > 0:
            fold_hi = min(fold_hi, _tail_mass(tparts, (K_hi + 1) * h, True))
        if fold_lo > 0:
            fold_lo = min(fold_lo, _tail_mass(tparts, (K_lo - 1) * h, False))
    fold = fold_hi + fold_lo
    budget.check()
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
        D = decay_filter(S0[::-1], self.h, c)[::-1]
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


def compose(factors: list[tuple[Factor, int]], tau: float = DEFAULT_TAIL, theta: float = 0.0,
            progress: bool = False, max_fft: int | None = None,
            make_room: Callable[[int], None] | None = None) -> Composed:
    """Compose discretised factors ``[(factor, multiplicity), ...]`` (same step h). Once the
    window is known, its working memory (the factors held and in use, :data:`FFT_BYTES` per
    transform bin, :data:`SIDE_BYTES` per window bin) is checked against ``MAX_PLD_BYTES``
    (:class:`GridTooLarge` naming it, before the transforms) and handed to ``make_room`` (the
    caller's cache makes room for it)."""
    budget.check()
    t0 = time.time()
    h = factors[0][0].h
    if any(f.h != h for f, _ in factors):
        raise ValueError("factors must share the grid step")
    max_fft = max_fft or 1 << 27
    _check_spread(factors, h, max_fft)
    shift = sum(n * f.edge for f, n in factors)
    sides = []
    window = None
    prog = _Progress(progress, 2 * (len(factors) + 2),
                     f"PLD composition, h = 2^{round(math.log2(h))}")
    try:
        return _compose_sides(factors, h, tau, theta, prog, window, max_fft, shift, sides, t0,
                              _memory_plan(factors, h, make_room))
    finally:
        prog.close()


def _memory_plan(factors: list[tuple[Factor, int]], h: float, make_room):
    """``plan(N, width)``: refuse (GridTooLarge naming MAX_PLD_BYTES) a composition of these
    factors on ``N`` transform bins and a window of ``width`` bins beyond the working memory
    allowed, else make room for it (``make_room(bytes)``)."""
    held = sum(f.pess.arr.nbytes + f.opt.arr.nbytes for f, _ in factors)
    sizes = [max(len(f.pess.arr), len(f.opt.arr)) for f, _ in factors]
    parts = PARTS_BYTES * sum(sizes) + PART_PEAK_BYTES * max(sizes, default=0)

    def plan(N: int, width: int) -> None:
        need = held + parts + FFT_BYTES * N + SIDE_BYTES * width
        refuse_memory(need, f"composing {len(factors)} distinct factors at step "
                      f"h = 2^{round(math.log2(h))} (FFT size 2^{N.bit_length() - 1}, window "
                      f"{width} bins)")
        if make_room is not None:
            make_room(need)

    return plan


def _compose_sides(factors, h, tau, theta, prog, window, max_fft, shift, sides, t0,
                   plan) -> Composed:
    """The pessimistic and the optimistic side of :func:`compose`."""
    for pess in (True, False):
        try:
            s = _compose_side([((f.pess if pess else f.opt), n) for f, n in factors], h, tau,
                              pess, theta, prog, window, max_fft, plan)
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
                                          max_fft, h), "MAX_FFT")


def trivial_model() -> AtomLoss:
    """Id = T(P, P): the loss is 0 almost surely."""
    return AtomLoss([0.0], [1.0], [1.0])
