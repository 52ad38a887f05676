"""A float estimate of eps(delta) of a few Poisson-subsampled Gaussian steps (the remove
direction), and of the slope -d log delta / d eps there: the seed of the certified eps search
(``numeric/cf_epsilon.py``), which plans its one grid at it. An estimate only: the search proves
its bracket by Arb balls of delta wherever the seed lies; the seed sets the plan's contour, its
level and its width (the saddle-point guess of few steps is far off: sigma = 1.1, q =
256/60000, T = 3, 0.40 for 0.07, which cost a locating grid of 1675 nodes).

The estimate (floats, numpy): the loss L = l(x) = log(1 - q + q Y), Y = e^{mu x - mu^2/2}, under
A = (1 - q) N(0, 1) + q N(mu, 1) has the density rho(y) = phi(x) e^{2l} / (mu q Y) on
(y0, oo), y0 = log(1 - q) (the change of variables of ``gaussian_sampled_poly``'s rho_c at
c = 0); its masses rho(y_j) h at the cell centres y_j = y0 + (j + 1/2) h (the midpoint rule),
the right end where a float Chernoff bound leaves at most eta = 1e-6 delta / n beyond, are
composed n times by one real FFT of a length holding the n-fold sum up to its own Chernoff end
(the sum's left end n y0 is exact: the mass beyond the right end, at most eta n, folds onto the
lowest sums); delta(eps) = sum_{S_k > eps} p_k (1 - e^{eps - S_k}) is A_k - e^eps B_k between two
grid sums (A_k, B_k the suffix sums of p and p e^{-S}), so eps(delta) = log((A_k - delta) /
B_k) in the cell where it crosses the level, and the slope e^eps B_k / delta.
"""

from __future__ import annotations

import math

import numpy as np

from ..numeric.pld_seed import compose_epsilon

__all__ = ["float_epsilon", "SEED_POINTS", "SEED_MIN_DELTA"]

#: The FFT length of the n-fold sum (a power of two), raised fourfold (up to 2^17) while eps
#: spans fewer than 400 cells.
SEED_POINTS = 2**14
#: Levels below this are left to the saddle-point guess (the FFT's rounding, about 1e-16 of the
#: whole mass, would dominate delta).
SEED_MIN_DELTA = 1e-11
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: The abscissas of the float Chernoff ends.
_CS = np.geomspace(0.25, 400.0, 48)


def _chernoff_end(log_m: np.ndarray, n: int, log_eta: float) -> float:
    """The least y over the abscissas with n log M(c) - c y <= log eta: P(S_n > y) <= eta."""
    ok = np.isfinite(log_m)
    return float(np.min((n * log_m[ok] - log_eta) / _CS[ok]))


def float_epsilon(law, n: int, delta: float) -> tuple[float, float] | None:
    """(eps, slope): float estimates of eps(delta) of the n-fold power of ``law`` (a
    ``SubsampledGaussianLaw``, uncut) and of -d log delta / d eps there; None for a cut law,
    q = 1, a level outside [:data:`SEED_MIN_DELTA`, 1) or where the estimate is not found (the
    caller's saddle-point guess then serves)."""
    if law.cut is not None or law._q_is_one or not SEED_MIN_DELTA <= delta < 1 or n < 1:
        return None
    y0 = math.log1p(-law.q)  # (remove: L > y0; add: L < -y0)
    log_eta = math.log(1e-6 * delta / n)
    if law.direction == "remove":  # (L bounded below: the sums' left end n y0 exact)
        log_m = np.asarray(law.log_mgf_many(_CS), dtype=float)
        a1, b1 = y0, _chernoff_end(log_m, 1, log_eta)
        lo_all, hi_all = n * y0, max(_chernoff_end(log_m, n, log_eta + math.log(n)), b1)
    else:  # (L bounded above by -y0: the left ends by Chernoff on -L, E e^{-cL} = M(-c))
        log_m = np.asarray(law.log_mgf_many(-_CS), dtype=float)
        a1, b1 = -_chernoff_end(log_m, 1, log_eta), -y0
        lo_all, hi_all = min(-_chernoff_end(log_m, n, log_eta + math.log(n)), a1), -n * y0
    if not (math.isfinite(lo_all) and math.isfinite(hi_all) and hi_all > lo_all and b1 > a1):
        return None
    size = SEED_POINTS
    while True:
        got = _epsilon_on_grid(law, (a1, b1), (lo_all, hi_all), n, size, delta)
        if got is None or got[0] - lo_all >= 400 * (hi_all - lo_all) / size or size >= 2**17:
            return got
        size *= 4


def _epsilon_on_grid(law, one: tuple[float, float], window: tuple[float, float], n: int,
                     size: int, delta: float) -> tuple[float, float] | None:
    """The estimate on ``size`` cells: one step's masses on [a1, b1] (``one``), the n-fold sums
    read on the ``size`` cells from the one holding the window's left end (the FFT's circular
    sums fold the mass outside the window, at most 1e-6 delta, onto it)."""
    mu, q = law.mu, law.q
    (a1, b1), (lo_all, hi_all) = one, window
    h = (hi_all - lo_all) / (size - n - 2)
    k1 = min(size, max(2, math.ceil((b1 - a1) / h)))
    y = a1 + (np.arange(k1) + 0.5) * h
    ell = law._sign * y
    with np.errstate(invalid="ignore", divide="ignore"):
        log_y = np.log(np.expm1(ell) + q) - math.log(q)  # (log Y: Y = (e^l - (1 - q)) / q)
    x = (log_y + 0.5 * mu * mu) / mu
    log_rho = -0.5 * x * x - _LOG_SQRT_2PI + (law._alpha + 1) * ell - math.log(mu * q) - log_y
    m = np.where(np.isfinite(log_rho), np.exp(log_rho), 0.0) * h
    total = float(m.sum())
    if not total > 0:
        return None
    m /= total  # (the midpoint rule's mass, within O(h^2) of 1, and the tails left out)
    return compose_epsilon(m, a1, h, n, lo_all, size, delta)
