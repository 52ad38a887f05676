"""The power of PoissonReplace(mu, q) = T(P, Q), P = (1-q) N(0,1) + q N(mu,1),
Q = (1-q) N(0,1) + q N(-mu,1), by its Neyman-Pearson threshold test in 30-digit mpmath.

Q/P decreases in x (a ratio of mixtures whose components are ordered by a monotone likelihood
ratio), so the most powerful tests reject below a threshold t: level P(X < t), power
Q(X < t); t by bisection on the level. Nothing here imports ``tradeoff_algebra``."""

from __future__ import annotations

import mpmath


def poisson_replace_power(mu: float, q: float, alpha: float, dps: int = 30) -> float:
    """1 - f(alpha) of PoissonReplace(mu, q) (an estimate to about ``dps`` digits)."""
    with mpmath.workdps(dps):
        mu_, q_, a = mpmath.mpf(mu), mpmath.mpf(q), mpmath.mpf(alpha)

        def level(t):
            return (1 - q_) * mpmath.ncdf(t) + q_ * mpmath.ncdf(t - mu_)

        lo, hi = mpmath.mpf(-40), mpmath.mpf(40)
        for _ in range(160):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if level(m) < a else (lo, m)
        t = (lo + hi) / 2
        return float((1 - q_) * mpmath.ncdf(t) + q_ * mpmath.ncdf(t + mu_))
