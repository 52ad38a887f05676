"""The loss tails of Laplace(mu_1) (x) ... (x) Laplace(mu_r) (r <= 3, scales free) by nested
mpmath quadrature of the factors' loss laws, written from the laws directly (independent of
numeric/cf_mixed_tails.py): one factor's tails in closed form, each further factor by
conditioning on its loss (two atoms and an integral over its density, broken at the kinks).

Per factor, under Q = Lap(mu, 1) the loss has atoms 1/2 at mu and e^{-mu}/2 at -mu and the
density e^{(s - mu)/2}/4 on (-mu, mu); under P = Lap(0, 1) the atoms are e^{-mu}/2 at mu and
1/2 at -mu and the density e^{-s} times Q's.
"""

from __future__ import annotations

from tradeoff_algebra.numeric.context import mp


def _law(mu, under_q: bool):
    """(atoms [(position, mass)], density) of one factor's loss."""
    h = mp.exp(-mu) / 2
    if under_q:
        return [(mu, mp.mpf(1) / 2), (-mu, h)], lambda s: mp.exp((s - mu) / 2) / 4
    return [(mu, h), (-mu, mp.mpf(1) / 2)], lambda s: mp.exp((-s - mu) / 2) / 4


def _one(mu, under_q: bool, v):
    """P(L > v) of one factor."""
    atoms, dens = _law(mu, under_q)
    total = sum((m for a, m in atoms if a > v), mp.zero)
    lo = max(v, -mu)
    if lo < mu:
        total += mp.quad(dens, [lo, mu], method="gauss-legendre")
    return total


def tail(mus, under_q: bool, t):
    """P(L_1 + ... + L_r > t) under Q (``under_q``) or P, at the current precision."""
    mus = [mp.mpf(m) for m in mus]
    if len(mus) == 1:
        return _one(mus[0], under_q, t)
    *rest, mu = mus
    atoms, dens = _law(mu, under_q)
    total = sum((m * tail(rest, under_q, t - a) for a, m in atoms), mp.zero)
    # the rest's tail jumps or kinks where t - s meets a sum of +-mu_i: break the integral there
    kinks = {mp.zero}
    for signs in range(3 ** len(rest)):
        k, s = mp.zero, signs
        for m in rest:
            k += (0, m, -m)[s % 3]
            s //= 3
        kinks.add(k)
    pts = sorted({-mu, mu} | {t - k for k in kinks if -mu < t - k < mu})
    total += mp.quad(lambda s: dens(s) * tail(rest, under_q, t - s), pts, method="gauss-legendre")
    return total
