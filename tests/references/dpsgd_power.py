"""A bracket of the power 1 - f(alpha) of DP-SGD (the symmetric hull of T Poisson-subsampled
Gaussian steps) from dp_accounting's optimistic and pessimistic PLD pair. Nothing here imports
``tradeoff_algebra``.

The power of a trade-off function with privacy profile delta is
1 - f(alpha) = inf_eps delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6: the envelope of the
support lines of slope -e^eps); dp_accounting's ``get_delta_for_epsilon`` is the larger of the
two directions' profiles, the hull's. For each PLD, g(v) = delta(log v) + alpha v is convex in
v = e^eps (delta(log v) = E[(1 - v e^{-L})_+] plus the mass at infinity, a convex function of v):

* upper end: the least g on a grid of v from the pessimistic PLD (any v gives an upper bound,
  and the pessimistic delta is above the true one);
* lower end: from the optimistic PLD, on each grid interval [v_i, v_{i+1}] g is at least the
  larger of the line through v_i with the slope of the secant to its left and the line through
  v_{i+1} with the slope of the secant to its right (convexity); the least of their meeting
  values over the intervals, and g at the grid's ends' outer sides by the end secants.

Both ends are float64 values of float64 PLDs (not proved): tests allow a relative 1e-9 of slack.
"""

from __future__ import annotations

import math

import numpy as np


def hull_plds(sigma: float, q: float, T: int, grid: float):
    """dp_accounting's optimistic and pessimistic PLDs of T Poisson-subsampled Gaussian steps
    (noise sigma, rate q; the pessimistic one connect-the-dots) at discretisation ``grid``:
    [optimistic, pessimistic]."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(sigma, pessimistic_estimate=pess, sampling_prob=q,
                                        value_discretization_interval=grid,
                                        use_connect_dots=pess)
        out.append(p.self_compose(T))
    return out


def _convex_lower(v: np.ndarray, g: np.ndarray) -> float:
    """A lower bound of the minimum over v >= v[0] of a convex g sampled at increasing v (the
    minimum assumed inside [v[0], v[-1]]: the caller's grid brackets it)."""
    s = np.diff(g) / np.diff(v)
    best = float(g.min())
    for i in range(1, v.size - 2):
        sl, sr = s[i - 1], s[i + 1]
        # lines g_i + sl (x - v_i) and g_{i+1} + sr (x - v_{i+1}) meet at x
        if sr == sl:
            continue
        x = (g[i + 1] - sr * v[i + 1] - g[i] + sl * v[i]) / (sl - sr)
        x = min(max(x, v[i]), v[i + 1])
        best = min(best, max(g[i] + sl * (x - v[i]), g[i + 1] + sr * (x - v[i + 1])))
    return best


def pld_power_bracket(opt, pess, alphas, eps_max: float, points: int) -> list[tuple[float, float]]:
    """[(lower, upper)] of the power 1 - f(alpha) = inf_eps delta(eps) + e^eps alpha from a
    dp_accounting optimistic/pessimistic PLD pair (module docstring), eps on a grid of
    ``points`` in [0, eps_max] (the minimiser must lie inside: checked)."""
    eps = np.linspace(0.0, eps_max, points)
    v = np.exp(eps)
    d_opt = np.array(opt.get_delta_for_epsilon(eps), dtype=float)
    d_pess = np.array(pess.get_delta_for_epsilon(eps), dtype=float)
    out = []
    for a in alphas:
        g_opt, g_pess = d_opt + a * v, d_pess + a * v
        i = int(np.argmin(g_pess))
        if i in (0, points - 1) or int(np.argmin(g_opt)) in (0, points - 1):
            raise ValueError(f"the minimiser of alpha = {a} is at an end of [0, {eps_max}]")
        out.append((_convex_lower(v, g_opt), float(g_pess[i])))
    return out


def dpsgd_power_bracket(sigma: float, q: float, T: int, alphas, grid: float = 1e-5,
                        eps_max: float = 2.0, points: int = 4001) -> list[tuple[float, float]]:
    """[(lower, upper)] of the power 1 - f(alpha) of DP-SGD at each level (module docstring),
    eps on [0, eps_max] (the minimiser must lie inside: the caller checks the ends)."""
    opt, pess = hull_plds(sigma, q, T, grid)
    return pld_power_bracket(opt, pess, alphas, eps_max, points)


if __name__ == "__main__":
    import sys

    sigma, q, T = 1.1, 256 / 60000, int(sys.argv[1])
    for a, b in zip((0.01, 0.1, 0.3), dpsgd_power_bracket(sigma, q, T, (0.01, 0.1, 0.3)),
                    strict=True):
        print(T, a, repr(b[0]), repr(b[1]), math.nan if b[0] == 0 else b[1] / b[0] - 1)
