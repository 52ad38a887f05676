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


def _lattice(s2: Fraction, prec: int):
    """(K, P on [-K, K + 1] as Arb balls, the bound b of P(|X| > K) and of Q outside the
    window, h) for sigma^2 = s2: P(x) = e^{-h x^2}/theta, theta by its direct sum with the
    geometric tail."""
    import math

    from flint import arb, fmpq

    h = 1 / (2 * arb(fmpq(s2.numerator, s2.denominator)))
    K = int(math.sqrt(float(s2)) * math.sqrt(2 * math.log(2) * (prec + 20))) + 4
    w = {x: (-h * x * x).exp() for x in range(-K - 1, K + 2)}
    first = (-h * (K + 1) ** 2).exp()  # the terms beyond K decrease with ratio <= e^{-h(2K+3)}
    tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())
    theta = sum((w[x] for x in range(-K, K + 1)), arb(0)) + arb(0, float(tail.upper()) * 2)
    P = {x: w[x] / theta for x in range(-K - 1, K + 2)}
    return K, P, 2 * tail / theta, h


def exact_delta(s2s: list[Fraction], eps: Fraction, prec: int = 160):
    """delta(eps) of DG(1, s_1) (x) ... (x) DG(1, s_n), n <= 3, as an Arb ball (module, 4.),
    from the variances s2s = [s_1^2, ...] (exact rationals)."""
    import itertools

    from flint import arb, ctx, fmpq

    old = ctx.prec
    ctx.prec = prec
    try:
        labs = [_lattice(s, prec) for s in s2s]
        *first, (Kn, Pn, bn, _) = labs
        # tails of the last factor: TP(m) = P_n(X >= m), TQ(m) = Q_n(X >= m) = TP(m - 1)
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
        ranges = [range(-K, K + 2) for K, _, _, _ in first]
        for xs in itertools.product(*ranges):
            loss = sum((Fraction(2 * x - 1, 2) / s2 for x, s2 in zip(xs, s2s, strict=False)),
                       Fraction(0))
            # the last factor's loss (2 y - 1)/(2 s^2) > eps - loss  iff  y > (eps - loss) s^2 + 1/2
            thr = (eps - loss) * s2s[-1] + Fraction(1, 2)
            m = thr.numerator // thr.denominator + 1
            q, p = arb(1), arb(1)
            for x, (_, P, _, _) in zip(xs, first, strict=True):
                q, p = q * P[x - 1], p * P[x]
            total += q * TP(m - 1) - gamma * p * TP(m)
        for _, _, b, _ in first:  # Q-mass of a factor outside its window: at most its tail
            outside += b
        return total + arb(0, float(outside.upper()))
    finally:
        ctx.prec = old


