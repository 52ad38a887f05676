"""A float estimate of eps(delta) of a few replace-one DP-SGD steps, ``PoissonReplace(mu, q)**n``,
and of the slope -d log delta / d eps there: the seed of the certified eps search
(``numeric/cf_epsilon.py``, through ``numeric/cf_flat.flat_enclosure``), which then plans its
one grid at the level and at the width that slope asks. An estimate only: the search proves its
bracket by Arb balls of delta wherever the seed lies; the seed sets the plan's contour, level and
width (without it the search inverts a locating grid and a second one at the level).

The estimate (floats, numpy), as ``families/gaussian_sampled_seed.py`` does for the add/remove
pair (both compose their cells by ``numeric/pld_seed.compose_epsilon``): the loss
L(x) = lam(x) - lam(-x) of :mod:`.poisson_replace_law` is increasing in x, with the closed-form
inverse u = e^{mu x} = ((E - 1) + sqrt D) / (2 w), E = e^y, D = (E - 1)^2 + 4 w^2 E (the module
docstring of :mod:`.poisson_replace_poly`), so the P-mass of the loss cell [y_j, y_j + h] is exactly
F(x(y_j + h)) - F(x(y_j)), F(x) = (1 - q) Phi(x) + q Phi(x - mu) (no density is sampled: the loss
of mu = 3, q = 1/100 has most of its mass within 1e-3 of 0). Each cell's mass is put at its
centre, on [a1, b1] cut where a float Chernoff bound leaves at most eta = 1e-6 delta / n beyond
either end; the masses are composed n times by one real FFT over a window holding the n-fold sum
between its own Chernoff ends (the mass outside, at most 2 eta n, folds onto the window's cells),
and delta(eps) = sum_{S_k > eps} p_k (1 - e^{eps - S_k}) = A_k - e^eps B_k between two grid sums
gives eps(delta) = log((A_k - delta) / B_k) in the cell where delta crosses the level, and the
slope e^eps B_k / delta.

Chernoff ends: P(L > y) <= M(c) e^{-c y}; the law is its own inverse (L under Q has the law of
-L under P), so E_P e^{-c L} = E_Q e^{(1 - c) L} = M(c - 1) and P(L < -y) <= M(c - 1) e^{-c y}
(c >= 1), with M the float log-mgf of the law's planning grid.
"""

from __future__ import annotations

import math

import numpy as np

from ..numeric.pld_seed import compose_epsilon

__all__ = ["replace_epsilon", "replace_log_delta", "SEED_POINTS",
           "SEED_MIN_DELTA"]

#: The FFT length of the n-fold sum (a power of two), raised fourfold (up to 2^17) while eps
#: spans fewer than 400 cells.
SEED_POINTS = 2**14
#: Levels below this are left to the saddle-point guess (the FFT's rounding, about 1e-16 of the
#: whole mass, would dominate delta).
SEED_MIN_DELTA = 1e-11
#: The abscissas of the float Chernoff ends.
_CS = np.geomspace(1.0, 400.0, 40)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _phi_cdf(x: np.ndarray) -> np.ndarray:
    """Phi(x) in floats (erfc: no cancellation in either tail)."""
    return 0.5 * _ERFC(-x / math.sqrt(2.0)).astype(float)


def _ends(log_m: np.ndarray, log_m_neg: np.ndarray, n: int, log_eta: float) -> tuple[float, float]:
    """(lo, hi) with P(S_n < lo), P(S_n > hi) <= eta by the float Chernoff bounds at _CS."""
    ok = np.isfinite(log_m)
    hi = float(np.min((n * log_m[ok] - log_eta) / _CS[ok]))
    ok = np.isfinite(log_m_neg)
    lo = -float(np.min((n * log_m_neg[ok] - log_eta) / _CS[ok]))
    return lo, hi


def replace_epsilon(law, n: int, delta: float) -> tuple[float, float] | None:
    """(eps, slope): float estimates of eps(delta) of the n-fold power of ``law`` (a
    ``ReplaceLaw``) and of -d log delta / d eps there; None for a level outside
    [:data:`SEED_MIN_DELTA`, 1) or where the estimate is not found (the caller's saddle-point
    guess then serves)."""
    if not SEED_MIN_DELTA <= delta < 1 or n < 1:
        return None
    log_m = np.asarray(law.log_mgf_many(_CS), dtype=float)
    log_m_neg = np.asarray(law.log_mgf_many(_CS - 1.0), dtype=float)
    log_eta = math.log(1e-6 * delta / n)
    a1, b1 = _ends(log_m, log_m_neg, 1, log_eta)
    lo_all, hi_all = _ends(log_m, log_m_neg, n, log_eta + math.log(n))
    lo_all, hi_all = min(lo_all, a1), max(hi_all, b1)
    if not (math.isfinite(lo_all) and math.isfinite(hi_all) and b1 > a1 and hi_all > lo_all):
        return None
    size = SEED_POINTS
    while True:
        h = (hi_all - lo_all) / (size - n - 2)
        masses = _cell_masses(law, a1, b1, h)
        if masses is None:
            return None
        got = compose_epsilon(masses, a1, h, n, lo_all, size, delta)
        if got is not None and not got[0] > 0:
            return None
        if got is None or got[0] - lo_all >= 400 * (hi_all - lo_all) / size or size >= 2**17:
            return got
        size *= 4


def replace_log_delta(law, n: int, eps: float) -> float | None:
    """A float estimate of log delta(eps) of the n-fold power of ``law`` (a ``ReplaceLaw``) at
    any level (DP-SGD replace-one, sigma = 2, k = 10: delta(1) ~ 5e-26, far below what the
    untilted PLD of :func:`replace_epsilon` resolves), from the exponentially tilted float
    PLD: with the one step's cell masses m_j at centres y_j tilted, p_j = m_j e^{c y_j} / Z,
    the n-fold sum has P(S = s) = Z^n p^{*n}(s) e^{-c s}, so
    delta(eps) = Z^n e^{-c eps} sum_{s > eps} p^{*n}(s) e^{-c (s - eps)} (1 - e^{eps - s}),
    whose terms are of order one near eps at the Chernoff tilt c (the minimiser over a grid
    of n log M(c) - c eps): no cancellation and no float floor. The one step's cells run from
    its untilted lower Chernoff end (the tilt only moves mass up: P_c(L < y) <= P(L < y) for
    y < 0) to the tilted law's upper one, P_c(L > y) <= M(c + s) / M(c) e^{-s y}; the n-fold
    sum is linear (no wrap) on 2048 n cells (at least :data:`SEED_POINTS`), n <= 512. None
    for eps <= 0, n > 512 or where the estimate is not found. The level of the certified
    delta's one grid (``numeric/cf_route.py``), an estimate it does not rely on."""
    if not (eps > 0 and math.isfinite(eps)) or n < 1 or n > 512:
        return None
    size = max(SEED_POINTS, 1 << math.ceil(math.log2(2048 * n)))  # (2048 cells a step)
    cs = np.geomspace(0.05, 400.0, 80)
    lm = np.asarray(law.log_mgf_many(cs), dtype=float)
    expo = n * lm - cs * eps
    if not np.any(np.isfinite(expo)):
        return None
    c = float(cs[int(np.nanargmin(np.where(np.isfinite(expo), expo, np.inf)))])
    log_mc = float(law.log_mgf_many([c])[0])
    log_eta = math.log(1e-12 / n)
    log_m = np.asarray(law.log_mgf_many(_CS), dtype=float)
    log_m_neg = np.asarray(law.log_mgf_many(_CS - 1.0), dtype=float)
    a1, _ = _ends(log_m, log_m_neg, 1, log_eta)
    lm_t = np.asarray(law.log_mgf_many(c + _CS), dtype=float) - log_mc
    ok = np.isfinite(lm_t)
    if not np.any(ok):
        return None
    b1 = float(np.min((lm_t[ok] - log_eta) / _CS[ok]))
    if not (math.isfinite(a1) and math.isfinite(b1) and b1 > a1):
        return None
    k1 = (size - 1) // n
    h = (b1 - a1) / k1
    log_m1 = _cell_log_masses(law, a1, h, k1)
    if log_m1 is None:
        return None
    centres = a1 + (np.arange(k1) + 0.5) * h
    lw = log_m1 + c * centres
    top = float(np.max(lw))
    w = np.exp(lw - top)
    log_z = top + math.log(float(w.sum()))
    p = np.fft.irfft(np.fft.rfft(w / w.sum(), size) ** n, size)[: n * (k1 - 1) + 1]
    np.maximum(p, 0.0, out=p)
    sums = n * a1 + (np.arange(len(p)) + 0.5 * n) * h
    up = sums > eps
    if not np.any(up):
        return None
    terms = p[up] * np.exp(-c * (sums[up] - eps)) * -np.expm1(eps - sums[up])
    total = float(terms.sum())
    if not total > 0:
        return None
    return n * log_z - c * eps + math.log(total)


def _cell_x(law, y: np.ndarray) -> np.ndarray | None:
    """The x of the loss values y under the inverse of L (module docstring): u = ((E - 1) +
    sqrt D) / (2 w), or 2 w E / (sqrt D - (E - 1)) for y < 0 (no cancellation either way),
    x = log(u) / mu; None where some x is not finite."""
    mu, q = law.mu, law.q
    w = math.exp(math.log(q) - mu * mu / 2 - math.log1p(-q))
    em1 = np.expm1(y)
    s = np.sqrt(em1 * em1 + 4 * w * w * (em1 + 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_u = np.where(y >= 0, np.log(em1 + s) - math.log(2 * w),
                         math.log(2 * w) + y - np.log(s - em1))
    x = log_u / mu
    return x if np.all(np.isfinite(x)) else None


def _cell_log_masses(law, a1: float, h: float, k1: int) -> np.ndarray | None:
    """log of the P-masses of the k1 loss cells [a1 + j h, a1 + (j + 1) h] (as
    :func:`_cell_masses`, unnormalised), each from the distribution function below the loss 0
    and from the survival function above it (no cancellation in the upper tail, where the
    tilted law has its mass)."""
    mu, q = law.mu, law.q
    y = a1 + np.arange(k1 + 1) * h
    x = _cell_x(law, y)
    if x is None:
        return None
    cdf = (1 - q) * _phi_cdf(x) + q * _phi_cdf(x - mu)
    sf = (1 - q) * _phi_cdf(-x) + q * _phi_cdf(mu - x)
    m = np.where(y[1:] <= 0, np.diff(cdf), -np.diff(sf))
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(m, 0.0))


def _cell_masses(law, a1: float, b1: float, h: float) -> np.ndarray | None:
    """The P-masses of the loss cells [a1 + j h, a1 + (j + 1) h], j < ceil((b1 - a1) / h), by
    the inverse of L and the mixture's distribution function (module docstring)."""
    mu, q = law.mu, law.q
    k1 = max(2, math.ceil((b1 - a1) / h))
    x = _cell_x(law, a1 + np.arange(k1 + 1) * h)
    if x is None:
        return None
    cdf = (1 - q) * _phi_cdf(x) + q * _phi_cdf(x - mu)
    m = np.diff(cdf)
    np.maximum(m, 0.0, out=m)
    total = float(m.sum())
    if not total > 0:
        return None
    return m / total
