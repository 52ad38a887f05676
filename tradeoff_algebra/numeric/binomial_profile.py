"""The privacy profile of f_{eps0,0}^{(x) n} (n-fold pure eps0-DP) as Arb balls at any n.

Kairouz, Oh & Viswanath's optimal composition (Dong, Roth & Su, Sec. 3.3): the pair is
T(B(n, p), B(n, 1 - p)), p = 1/(1 + e^{eps0}); k successes have the likelihood ratio
e^{eps0 (2k - n)}, increasing in k. With m the first k whose loss eps0 (2k - n) exceeds eps,
the hockey-stick divergence (Prop. 6) is

    delta(eps) = Q(K >= m) - e^eps P(K >= m) = F(n - m) - e^eps S(m),

F and S the distribution functions of B(n, p) (Q(K >= m) = P(B(n, p) <= n - m) by the mirror
K -> n - K): two regularised incomplete beta functions in Arb (``numeric.binomial_cdf``), O(1) Arb
calls at any n. On the segment [l(m - 1), l(m)], l(k) = eps0 (2k - n), delta is A - e^eps B with
fixed A, B, so delta is continuous and neighbouring segments agree at their common point: where
the ball of eps does not decide m, the union over the few possible m holds delta.

Used by the family (``families.binomial``: delta and eps(delta) of BinomialDP for large n) and
by the exact finite loss of randomized response composed n times (``numeric.finite``), whose
materialised table costs O(n) big-integer operations where this costs O(1).
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from . import budget
from .arb_expr import arb_ball
from .binomial_cdf import binom_cdf_ball, binom_sf_ball, binom_tail
from .context import arb_precision

__all__ = ["arb_delta_ball", "arb_delta_once", "segment_formula", "ARB_MAX_EXTRA"]

# delta(eps) = Q(K >= m) - e^eps P(K >= m) with K ~ B(n, p) under P, B(n, 1 - p) under Q and m
# the first k with eps0 (2k - n) > eps (Dong, Roth & Su, Prop. 6 and Sec. 3.3); Q(K >= m) =
# P(B(n, p) <= n - m) = F(n - m) and P(K >= m) = S(m), both regularised incomplete beta
# functions in Arb (``numeric.binomial_cdf``): O(1) Arb calls at any n.

#: Extra bits tried beyond the first attempt of a ball (doubling) before the best is returned.
ARB_MAX_EXTRA = 4096


def _p_expr(eps0: sp.Expr) -> sp.Expr:
    """p = 1/(1 + e^eps0), exactly (the null's success probability)."""
    return 1 / (1 + sp.exp(eps0))


@lru_cache(maxsize=4096)
def _tail(kind: str, c: int, n: int, eps0: sp.Expr, prec: int):
    """``binom_tail(kind, c, n, p, prec)`` for p = 1/(1 + e^eps0), from the ball of p formed
    in Arb from the ball of eps0 (the same enclosure, without forming p in SymPy and
    enclosing that expression: most of a small query's time). Memoised as ``binom_tail``."""
    p = 1 / (1 + arb_ball(eps0).exp())
    return binom_cdf_ball(c, n, p) if kind == "F" else binom_sf_ball(c, n, p)


def segment_formula(eps0: sp.Expr, n: int, m: int, prec: int) -> tuple:
    """(A, B) with delta(eps) = A - e^eps B for l(m - 1) <= eps <= l(m), l(k) = eps0 (2k - n):
    A = F(n - m), B = S(m) of B(n, p), balls at ``prec`` bits (inside arb_precision(prec))."""
    if isinstance(eps0, sp.Rational):
        return _tail("F", n - m, n, eps0, prec), _tail("S", m, n, eps0, prec)
    p = _p_expr(eps0)
    return binom_tail("F", n - m, n, p, prec), binom_tail("S", m, n, p, prec)


def arb_delta_once(eps0: sp.Expr, n: int, eps, prec: int):
    """A ball holding delta(eps) of f_{eps0,0}^{(x) n} (``eps`` a ball >= 0) at ``prec`` bits
    (inside arb_precision(prec)): the union of A - e^eps B over the segments the ball of
    (n + eps/eps0)/2 does not exclude (delta is continuous: neighbouring segments agree at
    their common lattice point), or None when more than four are possible."""
    from flint import arb

    e0 = arb_ball(eps0)
    if not e0 > 0:
        return None
    if isinstance(eps0, sp.Rational) and eps.is_exact():  # the segment decided exactly
        x = (n + _fraction_of(eps.mid()) / Fraction(int(eps0.p), int(eps0.q))) / 2
        lo = hi = x.numerator // x.denominator + 1
    else:
        t = (n + eps / e0) / 2
        if not t.is_finite():
            return None
        lo = int(t.lower().floor().unique_fmpz()) + 1
        hi = int(t.upper().floor().unique_fmpz()) + 1
    if hi - lo > 3:
        return None
    ee = eps.exp()
    out = None
    for m in range(lo, hi + 1):
        if m > n:
            v = arb(0)
        else:
            A, B = segment_formula(eps0, n, max(m, 0), prec)
            v = A - ee * B
        out = v if out is None else out.union(v)
    return out


def arb_delta_ball(eps0: sp.Expr, n: int, eps, bits: int):
    """delta(eps) as a ball carrying ``bits`` bits relative (or an exact 0): precision raised
    from bits + 2 log2 n + 24 while the difference A - e^eps B cancels (at most
    :data:`ARB_MAX_EXTRA` extra bits, or until a doubling no longer halves the radius: then the
    best ball). ``eps`` a ball, exact or not."""
    from .progress import best_pair, ensure_time

    extra = 2 * n.bit_length() + 24
    best = None
    while True:
        prec = bits + extra
        t0 = time.perf_counter()
        with arb_precision(prec):
            b = arb_delta_once(eps0, n, eps, prec)
        spent = time.perf_counter() - t0
        if b is None:
            return best
        if b.is_finite() and (b == 0 or b.rel_accuracy_bits() >= bits):
            return b
        if best is not None and b.is_finite() and best.is_finite() and 2 * b.rad() > best.rad():
            return b  # no progress: the ball of eps (or eps0) limits the accuracy, not prec
        if best is None or (b.is_finite() and b.rad() < best.rad()):
            best = b
        if extra > ARB_MAX_EXTRA:
            return best
        # (the incomplete beta functions' cost grows about 8-fold per doubling at n ~ 10^6:
        # a doubling that cannot end before the call's deadline is refused at once)
        # (the deadline reports carry a (lo, hi) pair: the best ball's ends, rounded outward)
        budget.check(best_pair(best))
        ensure_time(8 * spent, f"delta of f_(eps,0)^(x){n} at {2 * (bits + extra)} bits", best)
        extra *= 2


def _fraction_of(x) -> Fraction:
    """The exact rational value of an exact Arb number (a ball's end)."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
