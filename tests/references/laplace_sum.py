"""The loss tails of Laplace(mu)^{(x) n} by mpmath quadrature of the Irwin-Hall densities,
written from the loss law directly (independent of numeric/cf_lattice*.py).

Per factor, the loss l(x) = |x| - |x - mu| under Q = Lap(mu, 1) has atoms 1/2 at mu and
e^{-mu}/2 at -mu and the density e^{(s - mu)/2}/4 on (-mu, mu); under P = Lap(0, 1) the atoms
are e^{-mu}/2 at mu and 1/2 at -mu, the density e^{-s} times Q's (dP = e^{-l} dQ). The sum of n
losses with j factors in their density part and m of the others at +mu is
c = mu (2m - (n - j)) plus D, whose Q-density is (e^{-mu/2}/4)^j e^{d/2} times the j-fold
convolution of the indicator of (-mu, mu): (2 mu)^{j-1} IH_j((d + j mu) / (2 mu)), IH_j the
Irwin-Hall density of j uniforms on (0, 1).
"""

from __future__ import annotations

from tradeoff_algebra.numeric.context import mp


def _irwin_hall(j: int, x):
    if x <= 0 or x >= j:
        return mp.zero
    total = mp.zero
    for i in range(int(mp.floor(x)) + 1):
        total += (-1) ** i * mp.binomial(j, i) * (x - i) ** (j - 1)
    return total / mp.factorial(j - 1)


def tails(mu, n: int, t) -> tuple:
    """(Q(S > t), P(S > t), Q(S = t), P(S = t)) at the current mpmath precision, for the
    mpf ``mu`` and ``t``."""
    aq = (mp.mpf(1) / 2, mp.exp(-mu) / 2)  # Q-atoms at +mu, -mu
    ap = (mp.exp(-mu) / 2, mp.mpf(1) / 2)
    q_gt = p_gt = q_eq = p_eq = mp.zero
    for j in range(n + 1):
        r = n - j
        for m in range(r + 1):
            c = mu * (2 * m - r)
            wq = mp.binomial(n, j) * mp.binomial(r, m) * aq[0] ** m * aq[1] ** (r - m)
            wp = mp.binomial(n, j) * mp.binomial(r, m) * ap[0] ** m * ap[1] ** (r - m)
            if j == 0:
                if c > t:
                    q_gt += wq
                    p_gt += wp
                elif c == t:
                    q_eq += wq
                    p_eq += wp
                continue
            lo = t - c
            if lo >= j * mu:
                continue
            k = (mp.exp(-mu / 2) / 4) ** j * (2 * mu) ** (j - 1)

            def dens(d, j=j, k=k):
                return k * mp.exp(d / 2) * _irwin_hall(j, (d + j * mu) / (2 * mu))

            pts = [-j * mu + 2 * i * mu for i in range(j + 1)]
            pts = [max(lo, -j * mu)] + [p for p in pts if p > max(lo, -j * mu)]
            q_gt += wq * mp.quad(dens, pts)
            p_gt += wq * mp.quad(lambda d, c=c, dens=dens: mp.exp(-d - c) * dens(d), pts)
    # (the density parts under P: dP = e^{-S} dQ with S = c + D)
    return q_gt, p_gt, q_eq, p_eq
