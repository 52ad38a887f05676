"""Binomial distribution functions as Arb balls: regularised incomplete beta functions.

For N ~ Bin(n, q),

    F(c) = P[N <= c] = I_{1-q}(n - c, c + 1),   S(c) = P[N >= c] = I_q(c, n - c + 1)

(0 <= c <= n; the identity of the binomial tail with the incomplete beta integral, e.g. DLMF
8.17.5), the smaller tail read from its incomplete beta function and the larger one as its
complement (F(c) = 1 - S(c + 1)). python-flint's ``arb.beta_lower(a, b, 1)`` encloses the
regularised I_x(a, b) in Arb: O(1) Arb calls at any n (about 10 ms at n = 10^6, 128 bits),
where a sum of the masses costs O(sqrt(n)) terms. Every function returns a ball that contains
the exact value when ``q`` is given exactly (a SymPy number, enclosed by ``numeric.arb_expr``)
or as a ball holding it.

Used by the shuffled randomized-response pair (``analysis.shuffle_rr``: its profile is two such
distribution functions) and by the n-fold composition of pure eps-DP
(``families.binomial_tails``: Kairouz, Oh & Viswanath's sum is two binomial tails).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import sympy as sp
from flint import arb

from .arb_expr import arb_ball

__all__ = ["binom_cdf_ball", "binom_sf_ball", "binom_tail"]


def binom_cdf_ball(c: int, n: int, q: arb) -> arb:
    """F(c) = P[Bin(n, q) <= c] for a ball ``q`` in [0, 1], at the working precision."""
    if c < 0:
        return arb(0)
    if c >= n:
        return arb(1)
    if _upper_is_smaller(c + 1, n, q):
        return 1 - q.beta_lower(c + 1, n - c, 1)
    return (1 - q).beta_lower(n - c, c + 1, 1)


def binom_sf_ball(c: int, n: int, q: arb) -> arb:
    """S(c) = P[Bin(n, q) >= c] for a ball ``q`` in [0, 1], at the working precision."""
    if c <= 0:
        return arb(1)
    if c > n:
        return arb(0)
    if not _upper_is_smaller(c, n, q):
        return 1 - (1 - q).beta_lower(n - c + 1, c, 1)
    return q.beta_lower(c, n - c + 1, 1)


def _upper_is_smaller(c: int, n: int, q: arb) -> bool:
    """Whether S(c) = P[N >= c] is the smaller tail (c above the mean n q): then S(c) is read
    from I_q and F(c - 1) as 1 - S(c), else F(c - 1) from I_{1-q} and S(c) as 1 - F(c - 1).
    The complement then loses at most about a bit, where the direct form at a q below 2^-prec
    reads I_{1-q} at a ball of 1 - q touching 1 (a NaN: f_{700,0}^300, q ~ 1e-304), and the
    complement of the larger tail would cancel. Either form encloses the value; the choice
    only sets the width."""
    return c > n * float(q.mid())


@lru_cache(maxsize=4096)
def binom_tail(kind: str, c: int, n: int, q: sp.Expr | Any, prec: int) -> arb:
    """``F(c)`` (kind "F") or ``S(c)`` (kind "S") of Bin(n, q) for the exact SymPy number
    ``q``, an Arb ball at ``prec`` bits (call it inside ``arb_precision(prec)``). Memoised:
    a search for eps(delta) meets the same counts again and again."""
    if kind not in ("F", "S"):
        raise ValueError(f"binom_tail: kind={kind!r}, expected 'F' or 'S'")
    qb = arb_ball(q)
    return binom_cdf_ball(c, n, qb) if kind == "F" else binom_sf_ball(c, n, qb)
