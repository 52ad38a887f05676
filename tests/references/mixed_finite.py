"""Brute-force references for finite pairs written without the library: the product pair of a few
factors enumerated outcome by outcome, Neyman-Pearson values by sorting the outcomes, the
hockey-stick divergence, the mixture with the identity and the symmetric hull of a minimum as a
lower convex hull of points.

Numbers are ``Fraction`` (exact) or mpmath ``mpf`` (at the caller's precision): every function
works on whatever the masses are.

* ``product(factors)``: the outcomes of P_1 x ... x P_n against Q_1 x ... x Q_n (Dong, Roth &
  Su, Def. 5) as a list of (P, Q), one per tuple of outcomes (no merging).
* ``np_value(pairs, a)``: T(P, Q)(a) by rejecting the outcomes in decreasing order of Q/P
  (ratio oo first) and the last one in part (the Neyman-Pearson lemma).
* ``hockey(pairs, t)``: sup_S Q(S) - t P(S) = sum (Q - t P)_+ (Prop. 6: delta(eps) at t = e^eps).
* ``mixed(pairs, p)``: (P, (1 - p) P + p Q), the pair of f_p = p f + (1 - p) Id.
* ``hull_of_min(pairs_a, pairs_b)``: the knots of the lower convex envelope of min{T_a, T_b}: the
  knots of both curves and the crossings of their pieces, the minimum at each, then the lower
  hull of those points by Andrew's monotone chain.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from .hull import monotone_chain


def product(factors: list) -> list:
    """The product pair's outcomes (P, Q) of the factors, each a list of (P, Q) outcomes."""
    out = []
    for combo in itertools.product(*factors):
        p = q = 1
        for a, b in combo:
            p, q = p * a, q * b
        out.append((p, q))
    return out


def _sorted(pairs: list) -> list:
    """Outcomes with mass, by decreasing ratio Q/P (P = 0 first), compared by cross products."""
    import functools

    items = [(p, q) for p, q in pairs if p != 0 or q != 0]

    def cmp(x, y):  # ratio of x > ratio of y: q_x p_y > q_y p_x
        lhs, rhs = x[1] * y[0], y[1] * x[0]
        return -1 if lhs > rhs else (1 if lhs < rhs else 0)

    return sorted(items, key=functools.cmp_to_key(cmp))


def knots(pairs: list) -> list:
    """The knots (alpha, T(alpha)) of the trade-off curve of the pair, from alpha = 0 to 1."""
    items = _sorted(pairs)
    a, qc = 0 * items[0][0], 0 * items[0][0]
    pts = []
    for p, q in items:
        if p == 0:
            qc += q
            continue
        if not pts:
            pts.append((a, 1 - qc))
        a, qc = a + p, qc + q
        pts.append((a, 1 - qc))
    if not pts:
        pts = [(0 * qc, 1 - qc), (1 + 0 * qc, 0 * qc)]
    return pts


def pl_at(pts: list, a):
    """The piecewise-linear function through the knots ``pts`` at a (a level within rounding
    of the ends, in mpmath, taken at the end)."""
    a = min(max(a, pts[0][0]), pts[-1][0])
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        if x0 <= a <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (a - x0) / (x1 - x0)
    raise ValueError("level outside the knots")


def np_value(pairs: list, a):
    """T(P, Q)(a)."""
    return pl_at(knots(pairs), a)


def hockey(pairs: list, t):
    """sum (Q - t P)_+ over the outcomes."""
    total = 0 * t
    for p, q in pairs:
        v = q - t * p
        if v > 0:
            total += v
    return total


def mixed(pairs: list, p) -> list:
    """The pair of f_p = p T(P, Q) + (1 - p) Id: (P, (1 - p) P + p Q)."""
    return [(a, (1 - p) * a + p * b) for a, b in pairs]


def swapped(pairs: list) -> list:
    """The pair (Q, P) of the inverse T(P, Q)^{-1}."""
    return [(b, a) for a, b in pairs]


def hull_of_min(pairs_a: list, pairs_b: list) -> list:
    """Knots of the lower convex envelope of min{T(pairs_a), T(pairs_b)}."""
    ka, kb = knots(pairs_a), knots(pairs_b)
    xs = {x for x, _ in ka} | {x for x, _ in kb}
    for (x0, y0), (x1, y1) in zip(ka, ka[1:], strict=False):  # crossings of every pair of pieces
        for (u0, v0), (u1, v1) in zip(kb, kb[1:], strict=False):
            if x1 == x0 or u1 == u0:
                continue
            s, r = (y1 - y0) / (x1 - x0), (v1 - v0) / (u1 - u0)
            if s == r:
                continue
            x = (v0 - r * u0 - y0 + s * x0) / (s - r)
            if max(x0, u0) <= x <= min(x1, u1):
                xs.add(x)
    return monotone_chain(sorted((x, min(pl_at(ka, x), pl_at(kb, x))) for x in xs))


# -- products on two lattices: the joint law written out -------------------------------------
def binomial_law(n: int, eps) -> list:
    """f_{eps,0}^{(x) n} (randomized response with ratios e^{+-eps}) as (loss, P, Q) per count
    k of coordinates with ratio e^eps: loss (2k - n) eps, P = C(n,k) e^{(n-k) eps}/(1 + e^eps)^n,
    Q the same with k and n - k exchanged (mpmath)."""
    import mpmath

    E = mpmath.exp(eps)
    out = []
    for k in range(n + 1):
        c = mpmath.binomial(n, k) / (1 + E) ** n
        out.append(((2 * k - n) * eps, c * E ** (n - k), c * E**k))
    return out


def rr_law(n: int, ratio: int, k: int) -> list:
    """Randomized response with k answers and integer ratio R composed n times, as (exponent d,
    P, Q) in Fraction: u coordinates at the true answer (P = 1/z, Q = R/z, z = R + k - 1), w at
    the neighbour's (P = R/z, Q = 1/z), the rest at the k - 2 others (P = Q = (k - 2)/z), by the
    trinomial count; d = u - w."""
    from math import comb

    z = ratio + k - 1
    law: dict = {}
    for u in range(n + 1):
        for w in range(n - u + 1):
            c = comb(n, u) * comb(n - u, w)
            rest = Fraction(k - 2, z) ** (n - u - w)
            p = c * Fraction(1, z) ** u * Fraction(ratio, z) ** w * rest
            q = c * Fraction(ratio, z) ** u * Fraction(1, z) ** w * rest
            a, b = law.get(u - w, (Fraction(0), Fraction(0)))
            law[u - w] = (a + p, b + q)
    return sorted((d, p, q) for d, (p, q) in law.items())


def joint(law1: list, law2: list, ell2) -> list:
    """The product's outcomes (P, Q) and their losses: law1 as (loss, P, Q) in mpmath, law2 as
    (exponent, P, Q) with loss exponent * ell2."""
    import mpmath

    out = []
    for l1, p1, q1 in law1:
        for d, p2, q2 in law2:
            p2m = mpmath.mpf(p2.numerator) / p2.denominator
            q2m = mpmath.mpf(q2.numerator) / q2.denominator
            out.append((l1 + d * ell2, p1 * p2m, q1 * q2m))
    return out



def rr_law_mp(n: int, k: int, ratio) -> list:
    """Randomized response with k answers and ratio ``ratio`` (an mpmath number, e for eps = 1)
    composed n times, as (exponent d, P, Q) by increasing d in mpmath: :func:`rr_law` with the
    trinomial counts summed in mpmath (u coordinates at the true answer, w at the neighbour's,
    d = u - w)."""
    import mpmath

    z = ratio + k - 1
    one, R_, rest = 1 / z, ratio / z, mpmath.mpf(k - 2) / z
    law: dict = {}
    for u in range(n + 1):
        cu = mpmath.binomial(n, u)
        for w in range(n - u + 1):
            c = cu * mpmath.binomial(n - u, w) * rest ** (n - u - w)
            p = c * one**u * R_**w
            q = c * R_**u * one**w
            a, b = law.get(u - w, (0, 0))
            law[u - w] = (a + p, b + q)
    return sorted((d, p, q) for d, (p, q) in law.items())
