"""The Neyman--Pearson threshold fractions of the shuffle pair at many levels at once, in
float64 (a search only: every fraction found is proved or refuted by Arb balls afterwards).

With the pair of :mod:`.shuffle` (``P(a, b) = (s + (E - 1) a) B_n(s) b_s(a)/n``, ``s = a + b``)
the test of level alpha rejects the atoms ``a/s < tau`` and randomises on ``a/s = tau``
(:mod:`.shuffle_roc`). With ``G(x) = P(a/s < x)`` the threshold of level alpha is the fraction
tau at which ``G`` jumps over alpha: ``G(tau) <= alpha < G(tau+)``.

One pass for all levels (levels sorted, so their thresholds are sorted):

* the range ``[x_lo, x_hi]`` holding every threshold (a normal approximation of ``a/s``,
  checked and widened);
* per slice s, the base ``W_s(M) = B_n(s)/n sum_{a <= M} (s + (E - 1) a) b_s(a)`` at ``M =
  ceil(s x_lo) - 1`` by the recurrences in s of ``F_s(M) = sum_{a <= M} b_s(a)`` and ``A_s(M) =
  sum_{a <= M} a b_s(a)`` (``X_{s+1} = X_s + Bernoulli(1/2)``: ``F_{s+1}(M) = F_s(M) -
  b_s(M)/2``, ``A_{s+1}(M) = A_s(M) + (F_s(M) - (M + 1) b_s(M))/2``), a Python loop of
  O(1) float operations per slice;
* the masses of the points ``x_lo <= a/s < x_hi`` slice by slice (numpy, chunks of slices),
  cumulated in a and read at the ``K + 1`` points of a grid of x: ``G`` on the grid;
* for each level, the grid interval where ``G`` passes alpha, the points in it (about one per
  slice: the grid step is about ``1/s``) listed with their masses (Loader's saddle-point form of
  the binomial masses, accurate to ~1e-14 relative), sorted by their fraction and cumulated from
  ``G`` at the interval's left end: the first whose cumulated mass exceeds alpha is the
  threshold, an exact fraction ``a/s``.

No scipy: ``log k!`` by Stirling's series with its remainder (Loader's ``stirlerr``) and
``log1p`` for the Kullback--Leibler parts. Cost: the points between the levels' extreme
thresholds (about ``4.7 sqrt(s) s_range`` for levels in [0.01, 0.99], ~2e5 at n = 10^4, ~2e7 at
n = 10^6) plus one float loop over the slices.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from ..numeric import budget
from .shuffle_pair import _slices

__all__ = ["locate_thresholds", "log_binom_pmf"]

#: Dropped slice mass of the float search (relative to the smallest level).
SEARCH_DROP = 1e-30
#: Most points (a, s) the pass may visit; levels whose range would exceed it are left to the
#: per-level search (None).
MAX_SEARCH_POINTS = 6 * 10**7
#: Points per numpy chunk.
CHUNK_POINTS = 1 << 19
#: Times the range of x is widened when its ends do not bracket the levels.
WIDEN_STEPS = 4

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_SMALL = 30
_STIRL_TABLE = np.array([0.0] + [math.lgamma(k + 1) - ((k + 0.5) * math.log(k) - k
                                                       + _HALF_LOG_2PI)
                                 for k in range(1, _SMALL)])


def _stirlerr(k: np.ndarray) -> np.ndarray:
    """log k! - ((k + 1/2) log k - k + log(2 pi)/2) for integers k >= 1 (float64): a table below
    30, else the series 1/(12k) - 1/(360k^3) + 1/(1260k^5) - 1/(1680k^7) (remainder below the
    next term, 1/(1188 k^9) < 1e-16 at k >= 30)."""
    k = np.asarray(k, dtype=np.float64)
    small = k < _SMALL
    kk = np.where(small, _SMALL, k)
    r = 1.0 / (kk * kk)
    ser = (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r / 1680))) / kk
    return np.where(small, _STIRL_TABLE[np.clip(k, 0, _SMALL - 1).astype(np.int64)], ser)


def log_binom_pmf(n, k, p: float) -> np.ndarray:
    """log of the Binom(n, p) mass at k (arrays of integers, 0 <= k <= n, 0 < p < 1), float64,
    in Loader's form: ``-(k log(k/(np)) + (n - k) log((n - k)/(n q))) + log(n/(2 pi k (n -
    k)))/2 + stirlerr(n) - stirlerr(k) - stirlerr(n - k)``, the logarithms by log1p."""
    n = np.asarray(n, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    n, k = np.broadcast_arrays(n, k)
    q = 1.0 - p
    mid = (k > 0) & (k < n)
    kk = np.where(mid, k, 1.0)
    nk = np.where(mid, n - k, 1.0)
    nn = np.where(mid, n, 2.0)
    d = (kk * np.log1p((kk - nn * p) / (nn * p)) + nk * np.log1p((nn * p - kk) / (nn * q)))
    val = (-d + 0.5 * np.log(nn / (2 * math.pi * kk * nk)) + _stirlerr(nn) - _stirlerr(kk)
           - _stirlerr(nk))
    ends = np.where(k == 0, n * math.log(q), n * math.log(p))
    return np.where(mid, val, ends)


class _Pair:
    """The float view of the pair: the kept slices and their weights ``B_n(s)/n``."""

    def __init__(self, e0: float, n: int, drop: float):
        self.n = n
        self.E = math.exp(e0)
        self.theta = 2.0 / (self.E + 1.0)
        s_lo, s_hi = _slices(e0, n, math.log(drop))
        self.s = np.arange(s_lo, s_hi + 1, dtype=np.int64)
        self.logw = log_binom_pmf(n, self.s, self.theta) - math.log(n)

    def x_guess(self, alpha: float) -> float:
        """The normal approximation of the alpha-quantile of a/s under P (mean 1/2 +
        (E - 1)/(2 (E + 1) s), standard deviation 1/(2 sqrt(s)) at s = n theta)."""
        s = max(self.n * self.theta, 1.0)
        z = NormalDist().inv_cdf(min(max(alpha, 1e-16), 1 - 1e-16))  # (a start: widened)
        return 0.5 + (self.E - 1) / (2 * (self.E + 1) * s) + z / (2 * math.sqrt(s))

    def base(self, M: np.ndarray) -> np.ndarray:
        """``W_s(M_s)`` for every kept slice (``M`` non-decreasing in s; module docstring)."""
        E1 = self.E - 1.0
        out = np.zeros(self.s.size)
        w = np.exp(self.logw)
        state = None
        for i, (s, m) in enumerate(zip(self.s.tolist(), M.tolist(), strict=True)):
            if i & 1023 == 1023:
                budget.check()
            if m < 0:
                state = None
                continue
            if state is None or state[0] != s - 1 or m < state[1] or state[4] == 0.0:
                F, A, b = _direct(s, m)
            else:
                _, mp, F, A, b = state
                F, A, b = F - b / 2, A + (F - (mp + 1) * b) / 2, b * s / (2 * (s - mp))
                while mp < m:
                    b = b * (s - mp) / (mp + 1)
                    mp += 1
                    F += b
                    A += mp * b
            state = (s, m, F, A, b)
            out[i] = w[i] * (s * F + E1 * A)
        return out


def _direct(s: int, m: int) -> tuple[float, float, float]:
    """(F_s(m), A_s(m), b_s(m)) summed down from m (float64)."""
    if m >= s:
        return 1.0, s / 2.0, math.exp(-s * math.log(2.0))
    b = math.exp(float(log_binom_pmf(s, m, 0.5)))
    F, A, t, a = 0.0, 0.0, b, m
    while a >= 0:
        F += t
        A += a * t
        if t < 1e-20 * F or a == 0:
            break
        t = t * a / (s - a + 1)
        a -= 1
    return F, A, b


def _grid_pass(pair: _Pair, x_lo: float, x_hi: float, K: int):
    """G at the K + 1 grid points ``x_lo + g (x_hi - x_lo)/K`` (module docstring)."""
    s = pair.s
    xs = x_lo + (x_hi - x_lo) * np.arange(K + 1) / K
    xs[-1] = x_hi
    A0 = np.ceil(s * x_lo).astype(np.int64) - 1
    A1 = np.ceil(s * x_hi).astype(np.int64) - 1
    base = pair.base(A0)
    G = np.full(K + 1, float(np.sum(base)))
    E1 = pair.E - 1.0
    lens = A1 - A0
    L = int(lens.max()) if lens.size else 0
    if L <= 0:
        return xs, G
    rows = max(1, CHUNK_POINTS // max(L, K + 1))
    for c0 in range(0, s.size, rows):
        budget.check()
        sl = slice(c0, c0 + rows)
        sc, a0, ln = s[sl], A0[sl], lens[sl]
        a = a0[:, None] + 1 + np.arange(L)[None, :]
        valid = a <= (a0 + ln)[:, None]
        a = np.where(valid, a, a0[:, None] + 1)
        # log b_s(a): Loader's form at the row's first point, then the ratios
        # b_s(a)/b_s(a - 1) = (s - a + 1)/a cumulated (relative error ~ L 1e-16)
        lr = np.log((sc[:, None] - a + 1) / np.maximum(a, 1))
        lr[:, 0] = log_binom_pmf(sc, a[:, 0], 0.5) + pair.logw[sl]
        lp = np.cumsum(lr, axis=1)
        m = np.where(valid, np.exp(lp) * (sc[:, None] + E1 * a), 0.0)
        C = np.concatenate([np.zeros((sc.size, 1)), np.cumsum(m, axis=1)], axis=1)
        idx = np.ceil(sc[:, None] * xs[None, :]).astype(np.int64) - 1 - a0[:, None]
        idx = np.clip(idx, 0, L)
        G += np.take_along_axis(C, idx, axis=1).sum(axis=0)
    return xs, G


def _points_between(pair: _Pair, x0: float, x1: float):
    """(a, s, P-mass) of the points with ``x0 <= a/s < x1`` (numpy arrays)."""
    s = pair.s
    m0 = np.ceil(s * x0).astype(np.int64)
    m1 = np.ceil(s * x1).astype(np.int64)
    cnt = np.maximum(m1 - m0, 0)
    tot = int(cnt.sum())
    if tot == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    rep = np.repeat(np.arange(s.size), cnt)
    off = np.arange(tot) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    a = m0[rep] + off
    ss = s[rep]
    mass = np.exp(log_binom_pmf(ss, a, 0.5) + pair.logw[rep]) * (ss + (pair.E - 1.0) * a)
    return a, ss, mass


def locate_thresholds(e0: float, n: int, alphas: list[float]) -> list[Fraction | None]:
    """The threshold fractions ``a/s`` (``s <= n``) of the levels ``alphas`` (0 < alpha < 1,
    any order), by the float pass of the module docstring; None for a level the pass could
    not place (the caller's per-level search answers)."""
    if not alphas:
        return []
    lv = np.asarray(alphas, dtype=np.float64)
    amin = float(min(lv.min(), 1 - lv.max()))
    pair = _Pair(e0, n, max(min(SEARCH_DROP, SEARCH_DROP * amin), 1e-300))
    if pair.s.size == 0:
        return [None] * len(alphas)
    x_lo = min(max(pair.x_guess(float(lv.min())), 0.0), 1.0)
    x_hi = min(max(pair.x_guess(float(lv.max())), x_lo), 1.0)
    sd = 1.0 / (2 * math.sqrt(max(n * pair.theta, 1.0)))
    margin = 0.25 * sd + 2.0 / max(n * pair.theta, 1.0)
    xs = G = None
    for _ in range(WIDEN_STEPS):
        x_lo, x_hi = max(x_lo - margin, 0.0), min(x_hi + margin, 1.0 + 0.5 / float(pair.s[-1]))
        span = x_hi - x_lo
        if pair.s.size * (span * float(pair.s[-1]) + 2) > MAX_SEARCH_POINTS:
            break
        # the grid: about one point per slice between grid points where the levels are few,
        # fewer grid points (more points per level's interval) where the levels are many
        top = math.ceil(float(pair.s[-1]) * span) + 1
        K = int(min(max(math.ceil(math.sqrt(4.0 * lv.size * top)), 16), top, 1 << 13))
        xs, G = _grid_pass(pair, x_lo, x_hi, K)
        if G[0] <= lv.min() and G[-1] > lv.max():
            break
        margin *= 4
    if xs is None:
        return [None] * len(alphas)
    out: list[Fraction | None] = []
    for alpha in lv.tolist():
        g = int(np.searchsorted(G, alpha, side="right")) - 1
        if g < 0 or g >= G.size - 1:
            out.append(None)
            continue
        a, s, mass = _points_between(pair, float(xs[g]), float(xs[g + 1]))
        key = a / s
        order = np.argsort(key, kind="stable")
        a, s, key, mass = a[order], s[order], key[order], mass[order]
        # atoms: equal fractions have equal float quotients (k a / (k s) rounds the same real)
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        cum = G[g] + np.cumsum(np.add.reduceat(mass, starts)) if starts.size else np.zeros(0)
        j = int(np.searchsorted(cum, alpha, side="right"))
        if j >= starts.size:
            out.append(None)
            continue
        i = starts[j]
        out.append(Fraction(int(a[i]), int(s[i])))
    return out
