"""A bracket of the power 1 - f(alpha) of C_p(G_mu)^{(x) T} (T self-products of the symmetric
hull of the Poisson-subsampled Gaussian) from an optimistic/pessimistic pair of dp_accounting
PLDs built here from the hull's privacy loss. Nothing here imports ``tradeoff_algebra``.

The hull's loss (Dong, Roth & Su, Def. 6 and Eq. (13); the pair f_p = T(B, A), B = N(0, 1),
A = (1 - p) N(0, 1) + p N(mu, 1), loss L(x) = log(1 - p + p e^{mu x - mu^2/2}), increasing in
x): under the measure whose loss is taken, the law of L under A on L > 0, an atom
m0 = 1 - A(L > 0) - B(L > 0) at 0, and the law of -L under B (L > 0) on the negative side.
Its masses in the cells ((i - 1) h, i h] of the loss are differences of normal distribution
functions at the thresholds x(l) = (log((e^l - (1 - p)) / p) + mu^2 / 2) / mu (scipy, float64);
the pessimistic PLD puts each cell's mass at its upper end (losses rounded up, the tail beyond
the window at +oo), the optimistic one at its lower end (the tail dropped), as dp_accounting's
own PLDs do. ``dpsgd_power.pld_power_bracket`` turns the composed pair into the bracket. Float64
throughout (not proved): tests allow a relative 1e-9 of slack.
"""

from __future__ import annotations

import math

import numpy as np

from .dpsgd_power import pld_power_bracket


def _cells(mu: float, p: float, h: float, l_max: float) -> tuple:
    """(masses of the positive side's cells ((i - 1) h, i h], i = 1..n, under A; the same for
    -L under B on the negative side, cells [-i h, -(i - 1) h); the atom m0; A's and B's
    masses beyond the window)."""
    from scipy.stats import norm

    n = int(math.ceil(l_max / h))
    edges = h * np.arange(n + 1)
    x = (np.log(np.expm1(edges) + p) - math.log(p) + mu * mu / 2) / mu
    x[0] = mu / 2  # (L = 0 exactly at x = mu/2)
    # upper tails of A and B at the thresholds, differenced: cell masses
    a_sf = (1 - p) * norm.sf(x) + p * norm.sf(x - mu)
    b_sf = norm.sf(x)
    pos, neg = -np.diff(a_sf), -np.diff(b_sf)
    m0 = 1 - a_sf[0] - b_sf[0]
    return pos, neg, m0, a_sf[-1], b_sf[-1]


def _pld(mu: float, p: float, h: float, l_max: float, pessimistic: bool):
    from dp_accounting.pld import privacy_loss_distribution as pld

    pos, neg, m0, a_tail, _ = _cells(mu, p, h, l_max)
    n = pos.size
    pmf = {0: m0}
    shift = 1 if pessimistic else 0  # cell i: ((i - 1) h, i h] -> i (up) or i - 1 (down)
    for i in range(1, n + 1):
        k = i - 1 + shift
        pmf[k] = pmf.get(k, 0.0) + float(pos[i - 1])
        # -L in [-i h, -(i - 1) h): up to -(i - 1) h, down to -i h
        k = -(i - 1) if pessimistic else -i
        pmf[k] = pmf.get(k, 0.0) + float(neg[i - 1])
    inf_mass = float(a_tail) if pessimistic else 0.0
    return pld.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, inf_mass, h, pessimistic_estimate=pessimistic)


def hull_power_bracket(mu: float, p: float, T: int, alphas, h: float = 1e-4,
                       l_max: float = 12.0, eps_max: float = 8.0,
                       points: int = 8001) -> list[tuple[float, float]]:
    """[(lower, upper)] of the power 1 - f(alpha) of C_p(G_mu)^{(x) T} at each level (module
    docstring), the loss window (0, l_max] on each side, eps on [0, eps_max]."""
    opt = _pld(mu, p, h, l_max, False).self_compose(T)
    pess = _pld(mu, p, h, l_max, True).self_compose(T)
    return pld_power_bracket(opt, pess, alphas, eps_max, points)


if __name__ == "__main__":
    for a, b in zip((0.01, 0.05), hull_power_bracket(1.0, 0.1, 10, (0.01, 0.05)), strict=True):
        print(a, repr(b[0]), repr(b[1]), b[1] / b[0] - 1)
