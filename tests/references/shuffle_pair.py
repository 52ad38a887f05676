"""Independent references for ShuffleDP(eps0, n), the shuffle pair of Feldman, McMillan &
Talwar as restated by Wang, Su, Ye, Shokri & Su, Sec. 4.1 (no ``tradeoff_algebra`` import).

* :func:`shuffle_points`: the pair from its mixture definition, point by point, in mpmath:
  ``P = (1 - w) P0 + w Q0``, ``Q = (1 - w) Q0 + w P0``, ``P0`` the law of ``(A + 1, C - A)``,
  ``Q0`` of ``(A, C - A + 1)``, ``A ~ Binom(C, 1/2)``, ``C ~ Binom(n - 1, 2/(E + 1))``, ``w =
  1/(E + 1)``, ``E = e^eps0`` (not the closed form the library sums);
* :func:`shuffle_groups`: those points grouped by the exact fraction y/x, in decreasing
  likelihood ratio ``Q/P = (E y + x)/(E x + y)`` (increasing in y/x for E > 1), and
  :func:`power_of_sorted`, the Neyman--Pearson power 1 - f(alpha) of such groups (the last
  randomised; Dong, Roth & Su, Appendix A);
* :func:`fraction_atoms`: the exact atoms for a rational ``E`` in Fraction from the closed form
  ``P(a, b) = (E a + b) K``, ``Q(a, b) = (E b + a) K``, ``K = C(n, s) theta^s (1 - theta)^(n - s)
  C(s, a)/(2^s n)``, ``theta = 2/(E + 1)``, ``s = a + b``, grouped by a/s.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

__all__ = ["shuffle_points", "shuffle_groups", "power_of_sorted", "fraction_atoms",
           "mixture_terms"]


def _num(x):
    """An mpf at the current precision from a Fraction, a SymPy rational, an int or an mpf."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if hasattr(x, "q") and hasattr(x, "p"):  # a SymPy Rational
        return mpmath.mpf(int(x.p)) / int(x.q)
    return mpmath.mpf(x)


def shuffle_points(eps0, n: int, dps: int = 40) -> dict:
    """{(x, y): [P, Q]} of the shuffle pair from the mixture (module docstring), mpfs summed
    at ``dps`` digits (eps0 a Fraction, a SymPy number, an int or an mpf: converted at that
    precision)."""
    with mpmath.workdps(dps):
        E = mpmath.exp(_num(eps0))
        law: dict = {}
        for x, y, p, q in mixture_terms(n, 1 / (E + 1), mpmath.binomial, mpmath.mpf(2)):
            e = law.setdefault((x, y), [mpmath.mpf(0), mpmath.mpf(0)])
            e[0] += p
            e[1] += q
        return law


def mixture_terms(n: int, w, comb, two):
    """(x, y, P-mass, Q-mass) of each term of the mixture (module docstring), C = c and A = a
    in turn, in the arithmetic of ``w`` = 1/(E + 1): Fraction (``comb`` = math.comb, ``two`` =
    2: exact) or mpf (``comb`` = mpmath.binomial, ``two`` = mpf(2): the caller's precision).
    A point (x, y) comes from up to two terms; the callers sum them."""
    th = 2 * w
    for c in range(n):
        pc = comb(n - 1, c) * th ** c * (1 - th) ** (n - 1 - c)
        for a in range(c + 1):
            m = pc * comb(c, a) / two ** c
            for (x, y), (wp, wq) in (((a + 1, c - a), (1 - w, w)),
                                     ((a, c - a + 1), (w, 1 - w))):
                yield x, y, wp * m, wq * m


def shuffle_groups(eps0, n: int, dps: int = 40) -> list[tuple]:
    """[(P, Q)] of the shuffle pair's points grouped by the fraction y/x (x = 0 last of all:
    ratio E), in decreasing ratio Q/P, summed at ``dps`` digits."""
    law = shuffle_points(eps0, n, dps)
    with mpmath.workdps(dps):
        groups: dict = {}
        for (x, y), (p, q) in law.items():
            key = Fraction(y, x) if x else Fraction(10 ** 12)
            g = groups.setdefault(key, [mpmath.mpf(0), mpmath.mpf(0)])
            g[0] += p
            g[1] += q
        return [tuple(groups[k]) for k in sorted(groups, reverse=True)]


def power_of_sorted(groups, alpha):
    """1 - f(alpha) for outcomes already in decreasing ratio (the last one randomised), in the
    arithmetic of alpha and the groups (Fraction: exact; mpf: the current precision)."""
    pw = used = alpha * 0
    for p, q in groups:
        if used + p >= alpha:
            return pw + (alpha - used) * q / p
        used += p
        pw += q
    return pw


def fraction_atoms(E: Fraction, n: int) -> tuple[list, list, list]:
    """The exact atoms of ShuffleDP(log E, n), E > 1 rational, by increasing fraction a/s
    (decreasing likelihood ratio Q/P = (E b + a)/(E a + b)): (fractions, P, Q) in Fraction,
    from the closed form (module docstring)."""
    E = Fraction(E)
    th = 2 / (E + 1)
    groups: dict = {}
    for s in range(1, n + 1):
        Bs = math.comb(n, s) * th**s * (1 - th) ** (n - s) / n
        for a in range(s + 1):
            K = Bs * Fraction(math.comb(s, a), 2**s)
            g = groups.setdefault(Fraction(a, s), [Fraction(0), Fraction(0)])
            g[0] += (E * a + (s - a)) * K
            g[1] += (E * (s - a) + a) * K
    keys = sorted(groups)
    return keys, [groups[k][0] for k in keys], [groups[k][1] for k in keys]
