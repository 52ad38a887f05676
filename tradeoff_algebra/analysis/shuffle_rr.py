"""Shuffled binary randomized response: the exact pair of counts, its privacy profile in Arb.

Each of n users holds a bit and reports it flipped with probability q < 1/2 (local
randomized response, eps0 = ln((1 - q)/q); Dwork's RR(u, p) of Sec. 3 flips with q = p/2); the
shuffler releases the multiset of reports, that is the count of ones (Dwork, Sec. 5.2 and
Sec. 6.2; Cheu, Smith, Ullman, Zeber & Zhilyaev). Two neighbouring datasets differ in user 1's
bit. When the other n - 1 users hold 0 their reports sum to ``N ~ Bin(n - 1, q)`` and the
count is ``N + Bernoulli``:

    P(c) = (1 - q) b(c - 1) + q b(c),   Q(c) = q b(c - 1) + (1 - q) b(c),   c = 0, ..., n,

(P: user 1 holds 1; Q: user 1 holds 0; ``b`` the pmf of Bin(n - 1, q), ``b(-1) = b(n) = 0``).
The likelihood ratio ``Q(c)/P(c) = (q r + 1 - q)/((1 - q) r + q)`` with ``r = b(c - 1)/b(c) =
c (1 - q)/((n - c) q)`` is decreasing in c, so each hockey-stick divergence is a prefix (or
suffix) sum, a combination of two binomial distribution functions ``F(c) = P[N <= c]`` and
``S(c) = P[N >= c]``:

    delta_{Q||P}(eps) = max_c (q - e^eps (1 - q)) F(c - 1) + (1 - q - e^eps q) F(c),
    delta_{P||Q}(eps) = max_c (1 - q - e^eps q) S(c - 1) + (q - e^eps (1 - q)) S(c),

each maximum attained at the last (first) count where the summand is positive. ``F`` and ``S``
are regularised incomplete beta functions (``F(c) = I_{1-q}(n - 1 - c, c + 1)``, ``S(c) =
I_q(c, n - c)``), which Arb encloses (python-flint's ``arb.beta_lower``): delta costs O(1) Arb
operations at any n (about 0.06 s from n = 10^4 to 10^7).

This is one pair of neighbouring datasets, so its delta is a lower bound on the mechanism's
(every other neighbouring pair has its own ``N``: a sum of Bin(m, 1 - q) and Bin(n - 1 - m, q)
when m others hold 1; m = n - 1 mirrors this pair). It is not always the worst one: at n = 10,
q = 1/20 the total variation (eps = 0) is 0.567 for m = 0 and 0.599 for m = 4, 5
(``shuffled_rr_pair`` gives every m exactly for small n). An upper bound for every pair is the
shuffle theorem of Feldman, McMillan & Talwar (``families.shuffle.ShuffleDP``).

Functions return Arb balls (python-flint ``arb``), enclosing the exact value.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..numeric.arb_expr import arb_ball
from ..numeric.binomial_cdf import binom_tail
from ..numeric.context import arb_precision

__all__ = ["shuffled_rr_pair", "shuffled_rr_delta", "shuffled_rr_epsilon", "rr_flip"]

#: Largest n (the incomplete beta functions stay cheap far beyond; the float search of the
#: threshold count is exact for counts below 2^53).
MAX_N = 10**12


def rr_flip(eps0: Any) -> sp.Expr:
    """The flip probability q = 1/(1 + e^eps0) of eps0-DP binary randomized response."""
    eps0 = sp.sympify(eps0)
    if eps0.free_symbols or not eps0.is_positive:
        raise InvalidParameter("eps0", eps0, "a number > 0")
    return 1 / (1 + sp.exp(eps0))


def _check(n: Any, q: Any, owner: str) -> tuple[int, sp.Expr]:
    if isinstance(n, bool) or not isinstance(n, (int, sp.Integer)) or not 1 <= int(n) <= MAX_N:
        raise InvalidParameter("n", n, f"an integer in [1, {MAX_N}]", hint=owner)
    q = sp.sympify(q)
    if q.free_symbols or not q.is_real or not (0 < q < sp.Rational(1, 2)):
        raise InvalidParameter("q", q, "a number in (0, 1/2) (the flip probability)",
                               hint=owner)
    return int(n), q


def shuffled_rr_pair(n: int, q: Any, ones: int = 0) -> tuple[list, list]:
    """The exact laws (P, Q) of the count of ones over c = 0..n when ``ones`` of the other
    n - 1 users hold 1 (P: user 1 holds 1, Q: user 1 holds 0), as Fractions (q rational) by
    direct convolution. For small n (tests and the worst case over ``ones``)."""
    n, q = _check(n, q, "shuffled_rr_pair")
    if not isinstance(q, sp.Rational):
        raise InvalidParameter("q", q, "a rational number for the exact pair")
    if n > 2000:
        raise InvalidParameter("n", n, "at most 2000 for the exact pair (use "
                               "shuffled_rr_delta)")
    if isinstance(ones, bool) or not isinstance(ones, int) or not 0 <= ones <= n - 1:
        raise InvalidParameter("ones", ones, f"an integer in [0, {n - 1}]")
    fq = Fraction(int(q.p), int(q.q))
    law = [Fraction(1)]
    for bit in [1] * ones + [0] * (n - 1 - ones):
        p1 = 1 - fq if bit else fq  # the report is 1 with probability p1
        law = [(law[c] if c < len(law) else 0) * (1 - p1) + (law[c - 1] * p1 if c else 0)
               for c in range(len(law) + 1)]
    P = [(law[c - 1] * (1 - fq) if c else 0) + (law[c] * fq if c < n else 0)
         for c in range(n + 1)]
    Q = [(law[c - 1] * fq if c else 0) + (law[c] * (1 - fq) if c < n else 0)
         for c in range(n + 1)]
    return P, Q


# -- the profile in Arb -------------------------------------------------------------------------
def _cdf(kind: str, c: int, N: int, q: sp.Expr, prec: int):
    """``F(c) = P[Bin(N, q) <= c]`` (kind "F") or ``S(c) = P[Bin(N, q) >= c]`` (kind "S"), an
    Arb ball at ``prec`` bits (``numeric.binomial_cdf.binom_tail``: regularised incomplete beta
    functions, memoised)."""
    return binom_tail(kind, c, N, q, prec)


def _threshold(n: int, qf: float, ef: float) -> int:
    """The float estimate of the last count c with Q(c) > e^eps P(c): r(c) < rho* (module
    docstring), r(c) = c (1 - q)/((n - c) q)."""
    rho = ((1 - qf) - ef * qf) / (ef * (1 - qf) - qf)
    if rho <= 0:
        return -1
    # c (1 - q) < rho (n - c) q  <=>  c < rho n q/((1 - q) + rho q)
    return min(n, max(-1, math.ceil(rho * n * qf / ((1 - qf) + rho * qf)) - 1))


def _sign_q_side(c: int, n: int, q, E) -> int | None:
    """The certified sign of Q(c) - e^eps P(c) (divided by b(c) > 0), or None."""
    if c < 0 or c > n:
        return None
    if c == n:  # Q(n) - E P(n) = (q - E (1 - q)) b(n - 1) < 0
        return -1
    r = (c * (1 - q)) / ((n - c) * q)
    v = q * r + (1 - q) - E * ((1 - q) * r + q)
    return 1 if v > 0 else (-1 if v < 0 else None)


def _delta_q_side(n: int, q, E, qf: float, ef: float, qs: sp.Expr, prec: int):
    """delta_{Q||P}(eps) = max_c D(c) over the counts between the certified last positive and
    first negative summand."""
    from flint import arb

    N = n - 1
    t = _threshold(n, qf, ef)
    lo, hi = t, t + 1
    while lo >= 0 and _sign_q_side(lo, n, q, E) != 1:
        lo -= 1
    while hi <= n and _sign_q_side(hi, n, q, E) != -1:
        hi += 1
    if lo < 0:  # no summand is certified positive: the maximum is over c < hi (and D(-1) = 0)
        lo = -1
    best = arb(0)
    a, b_ = q - E * (1 - q), (1 - q) - E * q
    for c in range(max(lo, 0), min(hi, n + 1)):
        best = best.max(a * _cdf("F", c - 1, N, qs, prec) + b_ * _cdf("F", c, N, qs, prec))
    return best


def shuffled_rr_delta(n: int, q: Any, eps: Any, prec: int = 128, direction: str = "max"):
    """An Arb ball containing delta(eps) of the shuffled count pair (module docstring): the
    hockey-stick divergence ``sum_c (Q(c) - e^eps P(c))_+`` (``direction="Q||P"``), the other
    order (``"P||Q"``) or the larger (``"max"``, the (eps, delta) guarantee of this pair).
    ``q`` and ``eps`` are SymPy numbers (enclosed by Arb, never rounded by hand)."""
    n, q = _check(n, q, "shuffled_rr_delta")
    eps = sp.sympify(eps)
    if eps.free_symbols or not (eps.is_nonnegative or eps.is_zero):
        raise InvalidParameter("eps", eps, "a number >= 0")
    if direction not in ("max", "Q||P", "P||Q"):
        raise InvalidParameter("direction", direction, "'max', 'Q||P' or 'P||Q'")
    with arb_precision(prec):
        qa, E = arb_ball(q), arb_ball(sp.exp(eps))
        qf, ef = float(q), (float(sp.exp(eps)) if eps < 700 else math.inf)
        if not math.isfinite(ef):  # beyond eps0: every likelihood ratio is below e^eps
            from flint import arb
            return arb(0)
        out = []
        if direction in ("max", "Q||P"):
            out.append(_delta_q_side(n, qa, E, qf, ef, q, prec))
        if direction in ("max", "P||Q"):
            out.append(_delta_p_side(n, qa, E, qf, ef, q, prec))
        return out[0] if len(out) == 1 else out[0].max(out[1])


def _sign_p_side(c: int, n: int, q, E) -> int | None:
    """The certified sign of P(c) - e^eps Q(c) (divided by b(c) > 0 for c < n), or None."""
    if c < 0 or c > n:
        return None
    if c == n:  # P(n) - E Q(n) = ((1 - q) - E q) b(n - 1)
        v = (1 - q) - E * q
    else:
        r = (c * (1 - q)) / ((n - c) * q)
        v = (1 - q) * r + q - E * (q * r + (1 - q))
    return 1 if v > 0 else (-1 if v < 0 else None)


def _delta_p_side(n: int, q, E, qf: float, ef: float, qs: sp.Expr, prec: int):
    """delta_{P||Q}(eps) = max_c of the suffix sums from c: P(c) > e^eps Q(c) iff
    r(c) > rho' = (e^eps (1 - q) - q)/((1 - q) - e^eps q) (when the denominator is > 0)."""
    from flint import arb

    N = n - 1
    den = (1 - qf) - ef * qf
    if den <= 0:
        t = n + 1
    else:
        rho = (ef * (1 - qf) - qf) / den
        t = min(n + 1, max(0, math.floor(rho * n * qf / ((1 - qf) + rho * qf)) + 1))
    lo, hi = t - 1, t  # certify: summand at lo negative, at hi positive
    while lo >= 0 and _sign_p_side(lo, n, q, E) != -1:
        lo -= 1
    while hi <= n and _sign_p_side(hi, n, q, E) != 1:
        hi += 1
    lo = max(lo, -1)
    best = arb(0)
    a, b_ = (1 - q) - E * q, q - E * (1 - q)
    for c in range(lo + 1, min(hi, n) + 1):
        best = best.max(a * _cdf("S", c - 1, N, qs, prec) + b_ * _cdf("S", c, N, qs, prec))
    return best


def _rat(x) -> sp.Rational:
    """The exact binary rational an mpf holds."""
    man, exp = x.man_exp
    if not man:
        return sp.Integer(0)
    return sp.Integer(int(man)) * sp.Integer(2)**int(exp) if exp >= 0 else sp.Rational(
        int(man), 2**int(-exp))


def _float_delta(n: int, qf: float, eps: float) -> float:
    """delta(eps) in float64 from scipy's binomial distribution functions: the search only."""
    from scipy.special import bdtr, bdtrc  # scipy.special: a fraction of scipy.stats' import

    def cdf(c: int) -> float:
        return 0.0 if c < 0 else (1.0 if c >= N else float(bdtr(c, N, qf)))

    def sf(c: int) -> float:  # P[N >= c]
        return 1.0 if c <= 0 else (0.0 if c > N else float(bdtrc(c - 1, N, qf)))

    ef = math.exp(eps)
    N = n - 1
    t, tp = _threshold(n, qf, ef), _threshold_p(n, qf, ef)
    dq = max(((qf - ef * (1 - qf)) * cdf(c - 1) + ((1 - qf) - ef * qf) * cdf(c))
             for c in range(max(t - 1, 0), min(t + 2, n + 1)))
    dp = max(((1 - qf) - ef * qf) * sf(c - 1) + (qf - ef * (1 - qf)) * sf(c)
             for c in range(max(tp - 1, 0), min(tp + 2, n + 1)))
    return max(dq, dp, 0.0)


def _threshold_p(n: int, qf: float, ef: float) -> int:
    """The float estimate of the first count c with P(c) > e^eps Q(c)."""
    den = (1 - qf) - ef * qf
    if den <= 0:
        return n + 1
    rho = (ef * (1 - qf) - qf) / den
    return min(n + 1, max(0, math.floor(rho * n * qf / ((1 - qf) + rho * qf)) + 1))


def shuffled_rr_epsilon(n: int, q: Any, delta: Any, dps: int = 20,
                        prec: int = 160) -> tuple[sp.Rational, sp.Rational]:
    """Rationals (lo, hi) with ``delta(lo) > delta >= delta(hi)`` proved in Arb for the pair's
    ``"max"`` profile, so that its eps(delta) lies in (lo, hi], with hi - lo about 10^-dps
    relative. ``delta`` in (0, 1).

    The search is a heuristic and only the final bracket is proved: a float64 bisection, then,
    at the counts where the summands change sign, the exact solution of the side's equation
    (between two such counts delta is affine in e^eps) from Arb balls of F and S."""
    n, q = _check(n, q, "shuffled_rr_epsilon")
    d = sp.sympify(delta)
    if d.free_symbols or not (0 < d < 1):
        raise InvalidParameter("delta", delta, "a number in (0, 1)")
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 60:
        raise InvalidParameter("dps", dps, "an integer in [5, 60]")
    from ..numeric.context import mp

    qf, df = float(q), float(d)
    eps0 = math.log((1 - qf) / qf)
    if _float_delta(n, qf, 0.0) <= df:
        raise InvalidParameter("delta", delta, "below the pair's total variation (eps(delta) "
                               "would be 0)")
    a, b = 0.0, eps0
    for _ in range(200):  # float bisection to the float resolution
        m = (a + b) / 2
        if not a < m < b:
            break
        a, b = (m, b) if _float_delta(n, qf, m) > df else (a, m)
    ef = math.exp((a + b) / 2)
    N = n - 1
    cands = []
    with arb_precision(prec):
        qa, da = arb_ball(q), arb_ball(d)
        for c in range(max(_threshold(n, qf, ef) - 1, 0), min(_threshold(n, qf, ef) + 2, n + 1)):
            F0, F1 = _cdf("F", c - 1, N, q, prec), _cdf("F", c, N, q, prec)
            # (q - E (1 - q)) F0 + ((1 - q) - E q) F1 = delta, solved for E
            cands.append((qa * F0 + (1 - qa) * F1 - da) / ((1 - qa) * F0 + qa * F1))
        tp = _threshold_p(n, qf, ef)
        for c in range(max(tp - 1, 1), min(tp + 2, n + 1)):
            S0, S1 = _cdf("S", c - 1, N, q, prec), _cdf("S", c, N, q, prec)
            den = (qa * S0 + (1 - qa) * S1)
            if den > 0:  # ((1 - q) - E q) S0 + (q - E (1 - q)) S1 = delta
                cands.append(((1 - qa) * S0 + qa * S1 - da) / den)
        good = [float(x.mid()) for x in cands if x > 0]
        # the candidate nearest the float root: a midpoint to try, proved below
        best = min(good, key=lambda x: abs(math.log(x) - math.log(ef))) if good else ef
        best_ball = next(x for x in cands if x > 0 and float(x.mid()) == best) if good else None
    with mp.workdps(dps + 15):
        if best_ball is not None:
            mid = mp.log(mp.mpf(best_ball.mid().str(dps + 12, radius=False)))
        else:  # pragma: no cover - the float root without an Arb refinement
            mid = mp.mpf((a + b) / 2)

        def above(e: sp.Rational) -> bool | None:
            v = shuffled_rr_delta(n, q, e, prec=prec)
            with arb_precision(prec):
                return True if v > da else (False if v <= da else None)

        width = mp.mpf(10)**-dps
        for _ in range(20):
            lo, hi = _rat(mid * (1 - width)), _rat(mid * (1 + width))
            if above(lo) is True and above(hi) is False:
                return lo, hi
            width *= 10
    raise ArithmeticError("shuffled_rr_epsilon: no bracket proved")  # pragma: no cover
