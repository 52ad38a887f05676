"""The tails of the binomial pair of :mod:`.binomial` for large n: each needed tail of
K ~ B(n, p) summed from its first term with full relative accuracy (never the whole table),
the Neyman--Pearson segment that holds alpha found from them, and f(alpha) and delta(eps) of
f_{eps,0}^{(x) n} (Dong, Roth & Su, Sec. 3.3) at the current precision; eps(delta) proved in
Arb from the profile's balls of ``numeric.binomial_profile`` (two regularised incomplete beta
functions, O(1) Arb calls at any n).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp

from ..numeric import budget
from ..numeric.arb_expr import arb_ball
from ..numeric.binomial_cdf import binom_tail
from ..numeric.binomial_profile import _fraction_of, arb_delta_ball
from ..numeric.binomial_profile import segment_formula as _segment_formula
from ..numeric.context import MPF, ThreadCache, arb_precision, mp
from ..numeric.progress import best_pair
from ..numeric.protocol import num
from .binomial_loss import float_p

#: Largest eps with numeric values: the working precision grows by 3 eps/log 2 bits (the
#: e^{2 eps} amplification of the tails), 43000 bits at this eps.
MAX_NUMERIC_EPS = 10**4

def _extra_bits(eps: MPF, n: int) -> int:
    # The pmf recurrence loses ~3 ulp per step; a value assembled from one tail and one
    # linear piece amplifies relative errors by at most about e^{2 eps}.
    if eps > MAX_NUMERIC_EPS:
        from ..core.errors import NumericalError

        raise NumericalError(
            f"BinomialDP(eps, n) with eps = {mp.nstr(eps, 6)}: numeric values are available "
            f"for eps <= {MAX_NUMERIC_EPS} (MAX_NUMERIC_EPS; the working precision grows by "
            "3 eps/log 2 bits); the symbolic form f(alpha) and the rules apply for any eps")
    return 2 * max(1, n).bit_length() + int(3 * eps / math.log(2)) + 16



class _Tails:
    """Tails of K ~ B(n, p), p = 1/(1 + e^eps), at the current precision, each with full
    relative accuracy, from a sum that starts at the tail's first term (see the module
    docstring): ``upper(m) = P(K >= m)`` and ``lower(m) = P(K < m)``.

    The side of ``m`` away from the mode is summed (its terms fall from the first one on, with
    ratio ``r_k = pmf(k+1)/pmf(k) = (n - k) e^{-eps}/(k + 1)`` decreasing in k, so the rest of
    the tail after a term t is at most ``t r/(1 - r)``: the sum stops when that is below
    2^-(prec + 16) of it); the other side is 1 minus it (the summed side holds at most about
    half the mass, so nothing cancels). The first term is ``exp(log pmf(m))`` from log-gamma
    at extra precision (the logarithm is ~ n log n); the terms are accumulated in fixed point
    with ``W`` bits, whose truncations (at most ``2 k`` units after k terms) are far below the
    working precision.
    """

    def __init__(self, eps, n: int):
        self.n = n
        self.prec = mp.prec
        self.eps = eps
        extra = 2 * n.bit_length() + 24
        with mp.workprec(self.prec + extra):
            self.lp = -mp.log1p(mp.exp(eps))  # log p
            self.lq = -mp.log1p(mp.exp(-eps))  # log q
            self.lgn = mp.loggamma(n + 1)
            self.em = mp.exp(-eps)
            self.ep = mp.exp(eps)
        self.mode = int(mp.floor((n + 1) * mp.exp(self.lp)))
        self.cache: dict[int, tuple] = {}

    def logpmf(self, k: int):
        n = self.n
        return (self.lgn - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + k * self.lp
                + (n - k) * self.lq)

    def pmf(self, k: int):
        if k < 0 or k > self.n:
            return mp.zero
        with mp.workprec(self.prec + 2 * self.n.bit_length() + 24):
            return mp.exp(self.logpmf(k))

    def _sum(self, k0: int, up: bool):
        """sum_{k >= k0} pmf(k) (up) or sum_{k <= k0} pmf(k) (down), k0 on the falling side."""
        n = self.n
        if (up and k0 > n) or (not up and k0 < 0):
            return mp.zero
        t0 = self.pmf(k0)
        if t0 == 0:
            return mp.zero
        W = self.prec + 2 * (4 * n.bit_length() + 8) + 40
        one = 1 << W
        mul = int(mp.floor(mp.ldexp(self.em if up else self.ep, W)))  # e^{-+eps} 2^W, floored
        t, S, k = one, one, k0
        stop = self.prec + 16
        steps = 0
        while True:
            if up:
                if k >= n:
                    break
                t = (t * (n - k) * mul >> W) // (k + 1)
                r_num, r_den = (n - k - 1) * mul, (k + 2) << W  # the next ratio, r_{k+1}
                k += 1
            else:
                if k <= 0:
                    break
                t = (t * k * mul >> W) // (n - k + 1)
                r_num, r_den = (k - 1) * mul, (n - k + 2) << W
                k -= 1
            S += t
            steps += 1
            if steps & 0xFFFF == 0:
                budget.check()
            # rest <= t r/(1 - r) with r the next ratio (< 1 on the falling side)
            if r_num < r_den and (t * r_num) << stop <= S * (r_den - r_num):
                break
        with mp.workprec(self.prec + 8):
            return t0 * mp.ldexp(S, -W)

    def tails(self, m: int):
        """(upper(m), lower(m)) = (P(K >= m), P(K < m))."""
        hit = self.cache.get(m)
        if hit is not None:
            return hit
        n = self.n
        if m <= 0:
            out = (mp.one, mp.zero)
        elif m > n:
            out = (mp.zero, mp.one)
        elif m > self.mode:  # the upper tail falls from m on
            u = self._sum(m, True)
            out = (u, 1 - u)
        else:  # the lower tail P(K <= m - 1) falls from m - 1 down
            lo = self._sum(m - 1, False)
            out = (1 - lo, lo)
        self.cache[m] = out
        return out


def _guess_segment(T: _Tails, a, ac) -> int:
    """A j near the segment A_{j+1} <= alpha <= A_j, from float approximations of the tails
    (scipy.stats.binom, or the log of the first term plus the geometric rest deep in the
    tails)."""
    from scipy.stats import binom

    n, p = T.n, float(mp.exp(T.lp))
    small = a <= ac
    t = float(a if small else ac)

    def logtail(m: int) -> float:  # log P(K >= m) (small) or log P(K < m) (otherwise)
        if (small and m > n) or (not small and m <= 0):
            return -math.inf
        if small:
            v = float(binom.sf(m - 1, n, p)) if m >= 1 else 1.0
        else:
            v = float(binom.cdf(m - 1, n, p)) if m >= 1 else 0.0
        if v > 1e-290:
            return math.log(v)
        k = m if small else m - 1  # the first term of the tail, and the geometric rest
        lg = float(T.logpmf(min(max(k, 0), n)))
        r = (n - k) * p / ((k + 1) * (1 - p)) if small else k * (1 - p) / ((n - k + 1) * p)
        return lg - math.log1p(-min(r, 0.5))

    lt = float(mp.log(a if small else ac)) if t == 0.0 or t < 1e-290 else math.log(t)
    lo, hi = 0, n + 1  # small: logtail decreasing in m; find the largest m with tail >= alpha
    while hi - lo > 1:
        mid = (lo + hi) // 2
        v = logtail(mid)
        if (v >= lt) if small else (v <= lt):
            lo = mid
        else:
            hi = mid
    return lo


def _find_segment(T: _Tails, a, ac) -> int:
    """The j in [0, n] with A_{j+1} <= alpha <= A_j (A_j = P(K >= j)), compared on the side of
    alpha that keeps its digits; exact tails, started from the float guess."""
    n = T.n
    j = min(max(_guess_segment(T, a, ac), 0), n)

    def ge(m: int) -> bool:  # A_m >= alpha
        u, lo = T.tails(m)
        return u >= a if a <= ac else lo <= ac

    for _ in range(64):
        if not ge(j):
            j -= 1
        elif j < n and ge(j + 1):
            j += 1
        else:
            return max(j, 0)
        if j < 0:
            return 0
    lo, hi = 0, n + 1  # the guess was far off: bisection on exact tails
    while hi - lo > 1:
        budget.check()
        mid = (lo + hi) // 2
        if ge(mid):
            lo = mid
        else:
            hi = mid
    return min(lo, n)


_BIG = ThreadCache()  # (per thread, as _tables)


def _tails_for(f: Any, n: int) -> _Tails:
    key = (f.eps, n, mp.prec)
    T = _BIG.get(key)
    if T is None:
        if len(_BIG) > 8:
            _BIG.clear()
        T = _BIG[key] = _Tails(num(f.eps, "eps"), n)
    return T


def _eval_big(f: Any, n: int, a, ac, power: bool):
    """f(alpha) (or 1 - f(alpha)) for large n (at most MAX_N, checked by the caller): the
    segment and the three tails it needs."""
    eps = num(f.eps, "eps")
    if eps == 0:
        return (+a, +a) if power else (+ac, +ac)
    T = _tails_for(f, n)
    with mp.workprec(T.prec + _extra_bits(eps, 0)):
        j = _find_segment(T, a, ac)
        lr = mp.exp(eps * (2 * j - n))
        uj, lj = T.tails(j)
        uj1, lj1 = T.tails(j + 1)
        if a <= ac:
            d_hi, d_lo = uj - a, a - uj1
        else:
            d_hi, d_lo = ac - lj, lj1 - ac
        d_hi, d_lo = max(d_hi, mp.zero), max(d_lo, mp.zero)
        if power:
            v = T.tails(n - j)[1] + d_lo * lr
        else:
            v = T.tails(n + 1 - j)[0] + d_hi * lr
    v = min(max(+v, mp.zero), mp.one)
    return v, v


def _delta_big(f: Any, n: int, eps):
    """delta(eps) = Q(K >= m) - e^eps P(K >= m), m the first k with (2k - n) eps0 > eps
    (Dong, Roth & Su, Prop. 6; Q_k = P_{n-k}): both tails with full relative accuracy; what
    cancels between them is recovered by recomputing with the bits lost added (n at most
    MAX_N, checked by the caller)."""
    e0 = num(f.eps, "eps")
    if eps == mp.inf or e0 == 0:
        return mp.zero, mp.zero
    with mp.workprec(mp.prec + 20):
        m = int(mp.floor((n + eps / e0) / 2)) + 1
    m = max(m, 0)
    if m > n:
        return mp.zero, mp.zero
    prec0 = mp.prec
    extra = 0
    for _ in range(8):
        with mp.workprec(prec0 + extra):
            T = _tails_for(f, n)
            qs = T.tails(n - m + 1)[1]  # Q(K >= m) = P(K <= n - m)
            ps = T.tails(m)[0]
            d = qs - mp.exp(eps) * ps
            if qs == 0 or (d > 0 and d >= mp.ldexp(qs, -extra - 24)):
                v = min(max(d, mp.zero), mp.one)
                return +v, +v
            lost = int(mp.log(qs / d, 2)) + 16 if d > 0 else prec0
            extra = max(2 * extra, extra + lost + 16)
            budget.check()
    # past the working-precision cap: the sum of positive terms is at most Q(K >= m)
    return mp.zero, min(qs, mp.one)



@lru_cache(maxsize=4)
def _integer_tails(n: int, a: int, b: int) -> tuple[int, ...]:
    """upper[j] = sum_{k >= j} C(n,k) a^{n-k} b^k: the tails of B(n, b/(a+b)) times (a+b)^n."""
    w = a**n
    weights = [w]
    for k in range(n):
        w = w * (n - k) * b // ((k + 1) * a)
        weights.append(w)
    upper = [0] * (n + 2)
    acc = 0
    for j in range(n, -1, -1):
        acc += weights[j]
        upper[j] = acc
    return tuple(upper)


# -- the profile in Arb: two regularised incomplete beta functions --------------------------------
def _float_log_sf(n: int, p: float, m: int) -> float:
    """log P(B(n, p) >= m) in floats by the saddle-point (Lugannani-Rice) formula with
    Daniels' continuity correction for lattice laws, 1 - Phi(w) + phi(w) (1/u - 1/w) (relative
    error O(1/n)); the normal law with a continuity correction near the mean (the search
    only: the caller proves what it keeps)."""
    if m <= 0:
        return 0.0
    if m > n:
        return -math.inf
    q = 1.0 - p
    if n * min(p, q) < 1e-3:  # a law near a point mass (eps0 > ~40): the leading term
        return _float_log_sf_point(n, p, m)
    sd = math.sqrt(n * p * q)
    if abs(m - n * p) < 2 or m == n:
        if m == n:
            return n * math.log(p)
        return math.log(0.5 * math.erfc((m - 0.5 - n * p) / (sd * math.sqrt(2))))
    pi = m / n
    kl = pi * math.log(pi / p) + (1 - pi) * math.log((1 - pi) / q)
    theta = math.log(pi * q / ((1 - pi) * p))
    w = math.copysign(math.sqrt(2 * n * kl), theta)
    u = -math.expm1(-theta) * math.sqrt(n * pi * (1 - pi))
    if w > 30:  # 1 - Phi(w) - phi(w)/w is phi(w) O(w^-3): the log of phi(w)/u
        return -w * w / 2 - 0.5 * math.log(2 * math.pi) - math.log(u)
    v = 0.5 * math.erfc(w / math.sqrt(2)) + math.exp(-w * w / 2) / math.sqrt(
        2 * math.pi) * (1 / u - 1 / w)
    return math.log(v) if v > 0 else -w * w / 2 - math.log(abs(u)) - 1.0


def _float_log_sf_point(n: int, p: float, m: int) -> float:
    """log P(B(n, p) >= m), 0 < m <= n, where n min(p, 1 - p) < 1e-3 by the leading term of
    the binomial sum (relative error O(n min(p, 1 - p))): C(n, m) p^m (1 - p)^(n - m) for small
    p, 1 - C(n, m - 1) (1 - p)^(n - m + 1) p^(m - 1) for p near 1. (The saddle point and the
    normal law divide by sd = sqrt(n p (1 - p)), 0 in floats there.)"""
    def log_term(k: int, x: float) -> float:  # log C(n, k) x^k (1 - x)^(n - k), x small
        if x <= 0.0:
            return 0.0 if k == 0 else -math.inf
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                + k * math.log(x) + (n - k) * math.log1p(-x))

    if p <= 0.5:
        return log_term(m, p)
    t = log_term(n - m + 1, 1.0 - p)  # P(B(n, 1 - p) >= n - m + 1) = P(B(n, p) <= m - 1)
    return math.log1p(-math.exp(t)) if t < 0 else -math.inf


def _float_log_tail(n: int, p: float, j: int, upper: bool) -> float:
    """log P(B(n, p) >= j) (``upper``) or log P(B(n, p) <= j) (by the mirror B(n, 1 - p))."""
    return _float_log_sf(n, p, j) if upper else _float_log_sf(n, 1.0 - p, n - j)


def _float_log_delta(n: int, p: float, e0: float, j: int) -> float:
    """log delta(l(j)) in floats (:func:`_float_log_tail`): the search only."""
    lf = _float_log_tail(n, p, n - j - 1, False)  # Q(K >= j + 1) = P(B(n, p) <= n - j - 1)
    ls = _float_log_tail(n, p, j + 1, True)  # P(K >= j + 1)
    if lf == -math.inf:
        return -math.inf
    x = e0 * (2 * j - n) + ls - lf
    return lf + math.log(-math.expm1(x)) if x < 0 else -math.inf


def _float_log_delta_point(n: int, lp: float, e0: float, j: int) -> float:
    """log delta(l(j)) in floats where n p < 1e-3, from lp = log p (p may lie below the float
    range: eps0 > ~745): each tail by its leading term in log space,
    log P(B(n, p) >= k) ~ log C(n, k) + k log p + (n - k) log(1 - p) (relative error
    O(n p)), and P(B(n, p) <= c) = 1 - P(B(n, p) >= c + 1). The search only."""
    lq = math.log1p(-math.exp(lp))

    def log_sf(k: int) -> float:  # log P(B(n, p) >= k), 1 <= k <= n
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                + k * lp + (n - k) * lq)

    c = n - j - 1  # Q(K >= j + 1) = P(B(n, p) <= n - j - 1)
    if c < 0:
        return -math.inf
    lf = 0.0 if c >= n else math.log1p(-math.exp(log_sf(c + 1)))
    ls = log_sf(j + 1) if j + 1 <= n else -math.inf  # P(K >= j + 1)
    x = e0 * (2 * j - n) + ls - lf
    return lf + math.log(-math.expm1(x)) if x < 0 else -math.inf


def _guess_eps_segment(n: int, eps0: sp.Expr, d: float) -> int:
    """The m with delta(l(m - 1)) > d >= delta(l(m)), from floats (a guess the caller walks
    from): bisection over the lattice points l(j) >= 0; a law near a point mass (n p < 1e-3,
    also p below the float range) by the tails' leading terms in log space."""
    e0 = float(eps0)
    p = float_p(e0)
    lp = -e0 - math.log1p(math.exp(-e0)) if e0 > 0 else math.log(p)
    lo, hi = (n - 1) // 2, n  # l(lo) < 0 <= l(lo + 1); delta(l(n)) = 0 <= d
    if not (d > 0 and lp > -math.inf):
        return lo + 1
    ld = math.log(d)
    point = n * p < 1e-3
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ldm = (_float_log_delta_point(n, lp, e0, mid) if point
               else _float_log_delta(n, p, e0, mid))
        if ldm > ld:
            lo = mid
        else:
            hi = mid
    return hi


#: Most steps of the Arb walk from the float guess to the segment of eps(delta).
MAX_WALK = 256


def _solve_segment(eps0: sp.Expr, n: int, dd, m: int, prec: int):
    """The ball of eps(d) = log((A - d)/B) on the segment [l(m - 1), l(m)] that holds it,
    walking m from the guess on certified comparisons (inside arb_precision(prec)); None when
    the walk does not settle."""
    e0 = arb_ball(eps0)
    for _ in range(MAX_WALK):
        budget.check()
        if m > n:
            m = n
        if m < 1:
            return None
        A, B = _segment_formula(eps0, n, m, prec)
        lo_l, hi_l = e0 * (2 * m - 2 - n), e0 * (2 * m - n)
        if A <= dd:  # delta(l(m - 1)) <= A <= d: eps(d) <= l(m - 1)
            m -= 1
            continue
        if not (A > dd and B > 0):
            return None
        x = ((A - dd) / B).log()
        if x < lo_l:
            m -= 1
        elif x > hi_l:
            m += 1
        else:
            return x
    return None


def arb_epsilon(eps0: sp.Expr, n: int, d: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= eps(d) <= hi of f_{eps0,0}^{(x) n} (eps(d) = inf{eps >= 0: delta(eps) <=
    d}, 0 < d < 1, delta(0) > d), proved in Arb: on the segment [l(m - 1), l(m)] holding it
    delta = A - e^eps B, so eps(d) = log((A - d)/B), whose ball (the segment reached by a walk
    on certified comparisons from a float guess) gives a bracket widened by 2^-(bits - 8)
    relative; then delta(lo) > d (or lo = 0) and delta(hi) <= d are proved by
    :func:`arb_delta_ball` (delta is non-increasing, Prop. 6), with more bits and a wider
    bracket on failure. Raises NumericalError when no bracket is proved."""
    from flint import arb, fmpq

    from ..core.errors import NumericalError

    m0 = _guess_eps_segment(n, eps0, float(d))
    for attempt in range(4):
        prec = bits + 2 * n.bit_length() + 40 + 32 * attempt
        with arb_precision(prec):
            dd = arb(fmpq(d.numerator, d.denominator))
            x = _solve_segment(eps0, n, dd, m0, prec)
            if x is None:
                continue
            w = x.abs_upper() * arb(2) ** -(bits - 8 - 8 * attempt) + x.rad()
            lo = max(_fraction_of((x - w).lower()), Fraction(0))
            hi = _fraction_of((x + w).upper())
        check = bits + 16 + 32 * attempt

        def ball_at(v: Fraction, check: int = check):
            return arb_delta_ball(eps0, n, arb(fmpq(v.numerator, v.denominator)), check)

        with arb_precision(check + 2 * n.bit_length() + 24):
            dd = arb(fmpq(d.numerator, d.denominator))
            ok_lo = lo == 0 or ball_at(lo) > dd
            ok_hi = ball_at(hi) <= dd
        if ok_lo and ok_hi:
            return lo, hi
    raise NumericalError(f"f_{{{eps0},0}}^(x){n}: eps({float(d):.6g}) not bracketed in Arb")


# -- f(alpha) in Arb at any n: the segment's line from three incomplete beta functions -----------
# On the Neyman--Pearson segment A_{j+1} <= alpha <= A_j (A_j = P(K >= j) = S(j), K ~ B(n, p))
# f(alpha) = A_{n+1-j} + (A_j - alpha) e^{eps0 (2j - n)} and 1 - f(alpha) = F(n - j - 1) +
# (alpha - A_{j+1}) e^{eps0 (2j - n)} (the module docstring of ``families.binomial``): f is
# continuous, so where a ball of alpha meets a knot the union of the two lines holds f(alpha).
# Above alpha = 1/2 the distances to the knots are formed from 1 - alpha and F (A_j - alpha =
# (1 - alpha) - F(j - 1)), so neither side cancels.

#: Extra bits tried (doubling) before the best ball of f(alpha) is returned.
VALUE_MAX_EXTRA = 2048


def _guess_value_segment(n: int, p: float, la: float, small: bool) -> int:
    """The j with A_{j+1} <= alpha <= A_j from the saddle-point tails in floats (a guess):
    ``la`` = log alpha (``small``) or log(1 - alpha)."""
    lo, hi = 0, n + 1  # the largest j with A_j >= alpha (A_0 = 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if small:
            ok = _float_log_sf(n, p, mid) >= la
        else:  # A_j >= alpha <=> P(K <= j - 1) <= 1 - alpha
            ok = _float_log_tail(n, p, mid - 1, False) <= la
        lo, hi = (mid, hi) if ok else (lo, mid)
    return min(lo, n)


def _value_once(eps0: sp.Expr, n: int, a, ac, power: bool, prec: int):
    """A ball of f(alpha) (``power``: 1 - f(alpha)) at ``prec`` bits (inside
    arb_precision(prec)), or None where the segment is not found."""
    from flint import arb

    p = 1 / (1 + sp.exp(eps0))
    small = a.mid() <= arb(1) / 2

    def S(m: int):  # A_m = P(K >= m)
        return arb(1) if m <= 0 else arb(0) if m > n else binom_tail("S", m, n, p, prec)

    def F(m: int):  # P(K <= m)
        return arb(0) if m < 0 else arb(1) if m >= n else binom_tail("F", m, n, p, prec)

    def above(m: int):  # A_m >= alpha: True, False, or None (undecided)
        if m <= 0:
            return True
        if m > n:
            return False if a > 0 else None
        if small:
            x = S(m) - a
        else:  # A_m - alpha = (1 - alpha) - P(K <= m - 1)
            x = ac - F(m - 1)
        return True if x >= 0 else False if x < 0 else None

    pf = float_p(float(eps0))
    la = float((a if small else ac).mid().log().mid()) if (a if small else ac) > 0 else -math.inf
    if la == -math.inf:
        return None
    j = _guess_value_segment(n, pf, la, small)
    for _ in range(MAX_WALK):
        budget.check()
        if above(j) is False:
            j -= 1
        elif j < n and above(j + 1) is True:
            j += 1
        else:
            break
    else:
        return None
    cands = [j]
    if above(j) is None and j > 0:
        cands.append(j - 1)
    if j < n and above(j + 1) is None:
        cands.append(j + 1)
    e0 = arb_ball(eps0)
    out = None
    for k in cands:
        slope = (e0 * (2 * k - n)).exp()
        if small:
            d_hi, d_lo = S(k) - a, a - S(k + 1)
        else:
            d_hi, d_lo = ac - F(k - 1), F(k) - ac
        if power:
            v = F(n - k - 1) + d_lo * slope
        else:
            v = S(n + 1 - k) + d_hi * slope
        out = v if out is None else out.union(v)
    return out


def arb_value_ball(eps0: sp.Expr, n: int, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) of f_{eps0,0}^{(x) n} as an Arb ball carrying the
    working precision (Arb's ``ctx.prec``) less 8 bits, from balls ``a`` = alpha, ``ac`` = 1 -
    alpha: the segment found from float tails and confirmed by certified comparisons, its line
    from three regularised incomplete beta functions (O(1) Arb calls at any n), the precision
    raised while the line's terms cancel; None where no segment is found."""
    from flint import ctx

    want = ctx.prec - 8
    extra = 2 * n.bit_length() + 24
    best = None
    while True:
        prec = want + extra
        with arb_precision(prec):
            b = _value_once(eps0, n, a, ac, power, prec)
        if b is None:
            return best
        if b.is_finite() and (b == 0 or b.rel_accuracy_bits() >= want):
            return b
        if best is not None and b.is_finite() and best.is_finite() and 2 * b.rad() > best.rad():
            # (a doubling that does not halve the radius: the balls of alpha, not the
            # precision, limit it; the next doubling costs ~8x as much and gains nothing)
            return b if b.rad() < best.rad() else best
        if best is None or (b.is_finite() and b.rad() < best.rad()):
            best = b
        if extra > VALUE_MAX_EXTRA:
            return best
        budget.check(best_pair(best))
        extra *= 2
