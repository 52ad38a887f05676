"""A float estimate of eps(delta) of the n-fold sum of one step's privacy loss given as masses on
a grid of cells: the composition both few-step seeds share (``families/gaussian_sampled_seed.py``,
``families/poisson_replace_seed.py``; plain arrays, no family). An estimate only: the certified
eps search (``numeric/cf_epsilon.py``) proves its bracket wherever the seed lies.

The masses sit at the cell centres a1 + (j + 1/2) h; one real FFT of length ``size`` composes
them n times, read on ``size`` cells from the one holding ``lo_all`` (the FFT's circular sums
fold the mass outside that window onto it); delta(eps) = sum_{S_k > eps} p_k (1 - e^{eps - S_k})
= A_k - e^eps B_k between two grid sums gives eps(delta) = log((A_k - delta) / B_k) in the cell
where delta crosses the level, and the slope -d log delta / d eps = e^eps B_k / delta.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["compose_epsilon"]


def compose_epsilon(masses: np.ndarray, a1: float, h: float, n: int, lo_all: float, size: int,
                    delta: float) -> tuple[float, float] | None:
    """(eps, slope) of the n-fold sum of one step's ``masses`` at the cell centres
    a1 + (j + 1/2) h, read on ``size`` cells from the one holding ``lo_all`` (the FFT's circular
    sums fold the mass outside that window onto it); None where delta does not cross the level
    inside the window."""
    got = _composed(masses, a1, h, n, lo_all, size)
    if got is None:
        return None
    s, a, b = got
    with np.errstate(over="ignore"):
        d = a - np.exp(s) * b  # (delta at each grid sum: the cells above it)
    above = np.flatnonzero(d > delta)
    if not len(above) or above[-1] + 1 >= size or above[-1] == 0 and not d[0] > delta:
        return None
    k = int(above[-1]) + 1  # (delta(S_{k-1}) > delta >= delta(S_k): eps in (S_{k-1}, S_k])
    if not (a[k] > delta and b[k] > 0):
        return None
    eps = math.log((a[k] - delta) / b[k])
    eps = min(max(eps, float(s[k - 1])), float(s[k]))
    return eps, math.exp(eps) * float(b[k]) / delta


def _composed(masses: np.ndarray, a1: float, h: float, n: int, lo_all: float, size: int):
    """(S, A, B) of the n-fold sum of one step's ``masses`` (:func:`compose_epsilon`): the grid
    sums S_k from the cell holding ``lo_all``, A_k = sum_{j >= k} p_j and
    B_k = sum_{j >= k} p_j e^{-S_j}, so that delta(eps) = A_k - e^eps B_k for S_{k-1} < eps
    <= S_k; None where one step's cells exceed the window."""
    if len(masses) > size:
        return None
    p = np.fft.irfft(np.fft.rfft(masses, size) ** n, size)
    np.maximum(p, 0.0, out=p)
    # (the sum of the cells j_i has the centre n a1 + (k + n/2) h, k = sum j_i)
    k_start = max(0, math.floor((lo_all - n * a1) / h - 0.5 * n))
    ks = k_start + np.arange(size)
    p = p[ks % size]
    s = n * a1 + (ks + 0.5 * n) * h
    a = np.cumsum(p[::-1])[::-1]
    with np.errstate(over="ignore"):
        b = np.cumsum((p * np.exp(-s))[::-1])[::-1]
    return s, a, b
