"""Exact lattice sums of compositions of a few discrete Gaussians (the census row's reference).

delta(eps) of DG(1, s_1) (x) ... (x) DG(1, s_n), n <= 3, summed over the integer outcomes:
delta = sum_{x_1..x_{n-1}} [Q_1..Q_{n-1} Q_n(L_n > t) - e^eps P_1..P_{n-1} P_n(L_n > t)], t = eps -
L_1 - ... - L_{n-1}, each threshold decided in exact rationals (the loss of factor i at x is
(2 x - 1)/(2 s_i^2)), the masses P(x) = e^{-x^2/(2 s^2)}/theta, Q(x) = P(x - 1) as Arb balls,
theta by its direct sum with a geometric tail bound, and the masses outside the windows bounded by
their Gaussian tails. Nothing here imports ``tradeoff_algebra``.
"""

from __future__ import annotations

from fractions import Fraction


def _lattice(s2: Fraction, prec: int, d: int = 1):
    """(K, P on [-K - d, K + d] as Arb balls, the bound b of P(|X| > K) and of Q outside the
    window, h) for sigma^2 = s2: P(x) = e^{-h x^2}/theta, theta by its direct sum with the
    geometric tail."""
    import math

    from flint import arb, fmpq

    h = 1 / (2 * arb(fmpq(s2.numerator, s2.denominator)))
    K = int(math.sqrt(float(s2)) * math.sqrt(2 * math.log(2) * (prec + 20))) + 4
    w = {x: (-h * x * x).exp() for x in range(-K - d, K + d + 1)}
    first = (-h * (K + 1) ** 2).exp()  # the terms beyond K decrease with ratio <= e^{-h(2K+3)}
    tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())
    theta = sum((w[x] for x in range(-K, K + 1)), arb(0)) + arb(0, float(tail.upper()) * 2)
    P = {x: w[x] / theta for x in range(-K - d, K + d + 1)}
    return K, P, 2 * tail / theta, h


def exact_delta(s2s: list[Fraction], eps: Fraction, prec: int = 160, ds: list[int] | None = None):
    """delta(eps) of DG(d_1, s_1) (x) ... (x) DG(d_n, s_n), n <= 3, as an Arb ball (module),
    from the variances s2s = [s_1^2, ...] (exact rationals) and the sensitivities ds (default
    1): P_i = N_Z(0, s_i^2), Q_i(x) = P_i(x - d_i), the loss of factor i at x (2 d_i x -
    d_i^2)/(2 s_i^2)."""
    ds = [1] * len(s2s) if ds is None else list(ds)
    import itertools

    from flint import arb, ctx, fmpq

    old = ctx.prec
    ctx.prec = prec
    try:
        labs = [_lattice(s, prec, d) for s, d in zip(s2s, ds, strict=True)]
        dn = ds[-1]
        *first, (Kn, Pn, bn, _) = labs
        # tails of the last factor: TP(m) = P_n(X >= m), TQ(m) = Q_n(X >= m) = TP(m - d_n)
        tp = {Kn + 2: arb(0, float(bn.upper()))}
        for x in range(Kn + 1, -Kn - 2, -1):
            tp[x] = tp[x + 1] + Pn[x]

        def TP(m):
            if m > Kn + 2:
                return arb(0, float(bn.upper()))
            if m < -Kn - 1:
                return 1 - arb(0, float(bn.upper()))
            return tp[m]

        gamma = arb(fmpq(eps.numerator, eps.denominator)).exp()
        total, outside = arb(0), arb(0)
        ranges = [range(-K, K + d + 1) for (K, _, _, _), d in zip(first, ds, strict=False)]
        for xs in itertools.product(*ranges):
            loss = sum((Fraction(2 * d * x - d * d, 2) / s2
                        for x, s2, d in zip(xs, s2s, ds, strict=False)), Fraction(0))
            # the last factor's loss (2 d y - d^2)/(2 s^2) > t = eps - loss  iff
            # y > (2 s^2 t + d^2)/(2 d)
            thr = (2 * s2s[-1] * (eps - loss) + dn * dn) / (2 * dn)
            m = thr.numerator // thr.denominator + 1
            q, p = arb(1), arb(1)
            for x, (_, P, _, _), d in zip(xs, first, ds, strict=False):
                q, p = q * P[x - d], p * P[x]
            total += q * TP(m - dn) - gamma * p * TP(m)
        for _, _, b, _ in first:  # Q-mass of a factor outside its window: at most its tail
            outside += b
        return total + arb(0, float(outside.upper()))
    finally:
        ctx.prec = old


