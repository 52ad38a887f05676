"""The whole curve of one replace-one step, ``PoissonReplace(mu, q)``, in one pass over the levels:
a ``numeric.curves.CURVE_BANDS`` route, certified by Arb balls at two proved thresholds per
level instead of one certified evaluation (a search) per level.

The Neyman-Pearson test of level alpha rejects for x < t with (``poisson_replace`` docstring)

    alpha = F_P(t) = (1 - q) Phi(t) + q Phi(t - mu),
    f(alpha) = S_Q(t) = (1 - q) Phi_c(t) + q Phi_c(t + mu),  1 - f(alpha) = F_Q(t),

F_P and F_Q increasing in t. The threshold of each level is found in float64 (Newton steps on the
logarithm of the tail; from the upper tail S_P(t) = 1 - alpha for alpha > 1/2, exact in float
there), then for each level two floats t_lo < t < t_hi are proved by Arb to straddle the root:
F_P(t_lo) <= alpha <= F_P(t_hi) (for alpha > 1/2: S_P(t_lo) >= 1 - alpha >= S_P(t_hi)). By
monotonicity f(alpha) lies in [S_Q(t_hi), S_Q(t_lo)] and 1 - f(alpha) in [F_Q(t_lo), F_Q(t_hi)],
each a ball rounded outward to float64, each tail computed as erfc without cancellation. A level
whose straddle is not proved (a float root off in a far tail) takes the family's own Arb ball
(``arb_value``: a proved bracket by Newton steps). alpha = 0 and 1 are exact (f = 1, 0).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from flint import arb

from ..numeric.cf_laws import lower, upper
from ..numeric.context import arb_precision
from ..numeric.profile_band import Band

__all__ = ["replace_band"]

#: The half-widths of the straddle tried, relative to 1 + |t| (f's band is about 2 density r
#: wide): the first whose band meets the tolerance at the level is taken; the float root is
#: good to about 1e-15 (1 + |t|), so the second may fail to straddle (then the level's own ball).
STRADDLES = (2.0**-44, 2.0**-50)
#: Arb's working precision for the balls.
PREC = 80
_NORMAL = NormalDist()
_ROOT_2PI = math.sqrt(2 * math.pi)


def _phi_c(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def _float_root(mu: float, q: float, a: float) -> float:
    """t with F_P(t) = a (a <= 1/2) or S_P(t) = 1 - a (a > 1/2), in float64: Newton steps on
    the logarithm of the tail from Phi^{-1}(a) (no scipy: its import would cost more than the
    curve), kept inside [Phi^{-1}(a), Phi^{-1}(a) + mu] (Phi(t - mu) <= F_P(t) <= Phi(t))."""
    upper_half = a > 0.5
    y = 1 - a if upper_half else a
    z = _NORMAL.inv_cdf(y)  # (Phi^{-1}(y); the mirror image for the upper half)
    lo, hi = (-z, -z + mu) if upper_half else (z, z + mu)
    t = (lo + hi) / 2
    s2 = math.sqrt(2)
    for _ in range(60):
        if upper_half:
            tail = (1 - q) * math.erfc(t / s2) / 2 + q * math.erfc((t - mu) / s2) / 2
        else:
            tail = (1 - q) * math.erfc(-t / s2) / 2 + q * math.erfc((mu - t) / s2) / 2
        dens = ((1 - q) * math.exp(-t * t / 2) + q * math.exp(-(t - mu) ** 2 / 2)) / _ROOT_2PI
        if not (tail > 0 and dens > 0):
            return t
        step = (math.log(tail) - math.log(y)) * tail / dens
        nt = t + step if upper_half else t - step
        nt = min(max(nt, lo), hi)
        if abs(nt - t) <= 1e-15 * (1 + abs(t)):
            return nt
        t = nt
    return t


def _meets(fv: arb, pw: arb, tol: float) -> bool:
    """f's width within ``tol`` of min(1, 1 - f) and the power's within ``tol`` of its lower end
    (the band's widths, measured either way, within the tolerance)."""
    return (upper(fv) - lower(fv) <= tol * min(1.0, 1 - lower(fv))
            and upper(pw) - lower(pw) <= tol * lower(pw))


def replace_band(mu_pq: tuple[int, int], q_pq: tuple[int, int], alphas: np.ndarray,
                 level_ball, tol: float = 1e-3) -> Band | None:
    """The certified band of ``PoissonReplace(mu, q)``, mu = mu_pq[0]/mu_pq[1] > 0,
    0 < q = q_pq[0]/q_pq[1] < 1, at ``alphas`` (module docstring); ``level_ball(a, power)``
    the family's Arb ball of f(a) (``power``: 1 - f(a)) at a float level, or None. None also
    where a level's ball is wider than ``tol`` (f, or the power relative to its upper end):
    the per-point route, whose digits follow the tolerance, answers."""
    a = np.asarray(alphas, dtype=np.float64).ravel()
    n = a.size
    f_lo, f_hi, p_lo, p_hi = (np.empty(n) for _ in range(4))
    inner = (a > 0) & (a < 1)
    f_lo[~inner] = f_hi[~inner] = np.where(a[~inner] <= 0, 1.0, 0.0)
    p_lo[~inner] = p_hi[~inner] = np.where(a[~inner] <= 0, 0.0, 1.0)
    mu_f, q_f = mu_pq[0] / mu_pq[1], q_pq[0] / q_pq[1]
    with arb_precision(PREC):
        mu = arb(mu_pq[0]) / mu_pq[1]
        q = arb(q_pq[0]) / q_pq[1]
        for i in np.flatnonzero(inner):
            al = arb(float(a[i]))
            t = _float_root(mu_f, q_f, float(a[i]))
            fv = pw = None
            for share in STRADDLES:
                r = share * (1 + abs(t))
                t_lo, t_hi = arb(t - r), arb(t + r)
                if a[i] <= 0.5:
                    ok = ((1 - q) * (1 - _phi_c(t_lo)) + q * (1 - _phi_c(t_lo - mu)) <= al
                          and (1 - q) * (1 - _phi_c(t_hi)) + q * (1 - _phi_c(t_hi - mu)) >= al)
                else:
                    ac = 1 - al  # (exact: a float above 1/2)
                    ok = ((1 - q) * _phi_c(t_lo) + q * _phi_c(t_lo - mu) >= ac
                          and (1 - q) * _phi_c(t_hi) + q * _phi_c(t_hi - mu) <= ac)
                if not ok:
                    break
                fv = arb(lower((1 - q) * _phi_c(t_hi) + q * _phi_c(t_hi + mu))).union(
                    arb(upper((1 - q) * _phi_c(t_lo) + q * _phi_c(t_lo + mu))))
                pw = arb(lower((1 - q) * _phi_c(-t_lo) + q * _phi_c(-t_lo - mu))).union(
                    arb(upper((1 - q) * _phi_c(-t_hi) + q * _phi_c(-t_hi - mu))))
                if _meets(fv, pw, tol):
                    break
            if fv is None or not _meets(fv, pw, tol):
                fv, pw = level_ball(float(a[i]), False), level_ball(float(a[i]), True)
                if fv is None or pw is None or not _meets(fv, pw, tol):
                    return None
            f_lo[i], f_hi[i] = max(lower(fv), 0.0), min(upper(fv), 1.0)
            p_lo[i], p_hi[i] = max(lower(pw), 0.0), min(upper(pw), 1.0)
    return Band(f_lo, f_hi, p_lo, p_hi)

