"""Importance-sampling estimate of delta(eps) of the remove direction of T = 1000
Poisson-subsampled Laplace steps (mu = 10, q = 1/10): an independent check (an estimate, not a
certificate) of the hull's certified eps(1e-5) in RESULTS_sampled_laplace_grid.md, where
dp_accounting's grid is unreliable.

delta(eps) = E_Q[(1 - e^{eps - L})_+] (Dong, Roth & Su, Prop. 6) with each step drawn from the
exponentially tilted law Q e^{theta L} (theta such that the tilted mean of the T-step loss is
eps): the atoms x <= 0 and x >= 1 (L constant there) and cells of (0, 1), uniform inside a cell;
the weight of a draw is its exact density ratio, so the estimate is unbiased.

    python benchmarks/ref_sampled_laplace_is.py
"""

import numpy as np
from scipy.optimize import brentq

MU, Q, T = 10.0, 0.1, 1000
B = 1 / MU  # the Laplace scale (sensitivity 1)
CELLS = 200_000  # cells of (0, 1), the part where the loss is not constant
BATCHES, DRAWS = 20, 2000


def loss(x):
    """L = log(Q/P)(x), P = Lap(0, b), Q = (1 - q) Lap(0, b) + q Lap(1, b)."""
    return np.log(1 - Q + Q * np.exp((np.abs(x) - np.abs(x - 1)) / B))


def density_q(x):
    return ((1 - Q) * np.exp(-np.abs(x) / B) + Q * np.exp(-np.abs(x - 1) / B)) / (2 * B)


def cdf_q(x):
    def lap(m):
        z = (x - m) / B
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))
    return (1 - Q) * lap(0.0) + Q * lap(1.0)


def main() -> None:
    rng = np.random.default_rng(1)
    edges = np.linspace(0, 1, CELLS + 1)
    masses = np.concatenate([[cdf_q(0.0)], np.diff(cdf_q(edges)), [1 - cdf_q(1.0)]])
    at = np.concatenate([[loss(-1.0)], loss(0.5 * (edges[1:] + edges[:-1])), [loss(2.0)]])

    def tilt(th):
        w = masses * np.exp(th * (at - at.max()))
        return w / w.sum()

    for eps in (881.5, 882.45):
        th = brentq(lambda t, e=eps: T * float((tilt(t) * at).sum()) - e, 0.0, 50.0)
        g = tilt(th)
        cum = np.cumsum(g)
        cum /= cum[-1]
        est = []
        for _ in range(BATCHES):
            idx = np.minimum(np.searchsorted(cum, rng.random((DRAWS, T))), len(g) - 1)
            cont = (idx > 0) & (idx < len(g) - 1)  # (a cell of (0, 1): uniform inside it)
            x = np.where(cont, edges[np.clip(idx - 1, 0, CELLS - 1)]
                         + rng.random((DRAWS, T)) / CELLS, 0.0)
            s = np.where(cont, loss(x), at[idx]).sum(axis=1)
            logw = np.where(cont, np.log(density_q(x)) - np.log(g[idx] * CELLS),
                            np.log(masses[idx]) - np.log(g[idx])).sum(axis=1)
            est.append(np.mean(np.where(s > eps, -np.expm1(eps - s), 0.0) * np.exp(logw)))
        est = np.array(est)
        print(f"eps = {eps}: tilt {th:.4f}, delta ~ {est.mean():.6e} "
              f"+- {est.std() / np.sqrt(len(est)):.2e}", flush=True)


if __name__ == "__main__":
    main()
