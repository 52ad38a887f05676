"""The power 1 - f(alpha) of the shuffle pair at one level from the tails at its
Neyman--Pearson threshold, summed by slices: no table of atoms.

With the pair of :mod:`.shuffle` (``P(a, b) = (E a + b) K``, ``Q(a, b) = (E b + a) K``, ``K =
B_n(s) b_s(a)/n``, ``s = a + b``, ``E = e^eps0``) the likelihood ratio ``Q/P = (E b + a)/(E a +
b)`` is increasing in ``b/a``, i.e. decreasing in ``a/s``: the atoms are the fractions ``a/s``
of the Farey set ``F_n`` (``s <= n``). The Neyman--Pearson test of level alpha rejects the
atoms with ``a/s < tau`` for the fraction ``tau = a*/s*`` of the threshold and randomises on the
atom ``a/s = tau`` (its points ``(k a*, k s*)``, ``k s* <= n``, all of ratio ``r* = (E b* +
a*)/(E a* + b*)``, ``b* = s* - a*``). With the strict tails ``P_< = P(a/s < tau)``, ``Q_<``
and the threshold atom's P-mass ``P_=``, for ``P_< <= alpha <= P_< + P_=`` (Dong, Roth & Su,
Appendix A: the trade-off curve of a finite pair is the polygon of these points)

    1 - f(alpha) = Q_< + r* (alpha - P_<),

and the line ``Q_< + r* (alpha - P_<)`` holds the segment of slope r* of the concave power
curve, so it bounds the power from above at every level (the line 1 - f <= delta(log r*) +
r* alpha of Prop. 6): the identity needs only the bracket ``P_< <= alpha <= P_< + P_=``, proved
with the balls.

The strict tails by slices. In slice s the rejected points are ``a <= M_s = ceil(s tau) - 1``
(integer arithmetic: no ratio is compared), and with ``a = M_s - j``

    sum_{a <= M} b_s(a) ((s - a) c1 - a c2) = b_s(M) (base R0 + (c1 + c2) R1),
    base = (s - M) c1 - M c2,  R0 = sum_j rho_j,  R1 = sum_j j rho_j,  rho_j = b_s(M - j)/b_s(M),

with ``(c1, c2) = (1, -E)`` for P (``E a + b``) and ``(E, -1)`` for Q (``E b + a``): the same
``R0, R1`` as the privacy profile's slice sums (:mod:`.shuffle_profile`, whose recurrences
and series this reuses), so both tails cost one pass, ``O(sqrt(n log 1/tau))`` Arb operations.
The slices outside ``[s_lo, s_hi]`` hold at most ``(E + 1)/2 P(Binom(n, theta) outside)`` of
each of P and Q (a slice's P-mass is ``B_n(s) s (E + 1)/(2 n)``), Chernoff bounds in Arb.

The threshold fraction is located in float64 (a search only: a wrong fraction fails the proved
bracket and the route gives way) by the one float pass of :mod:`.shuffle_locate` (the points
near the level listed with their masses: the fraction exactly), else by bisection on float64
tails (``scipy.stats.binom``, :func:`search_fraction`), the fraction being the one of denominator
at most n in the last float interval, shorter than 1/(2n^2) (two fractions of F_n are at least
1/n^2 apart). Whole curves: :mod:`.shuffle_curve`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp
from mpmath.libmp import round_floor

from ..core import trace
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.value import CertifiedPair
from .shuffle_locate import locate_thresholds
from .shuffle_pair import _outside_slices, _slice_masses, _slices
from .shuffle_profile import MAX_SLICES, _fresh_state, _log_binom_half, _next_state

__all__ = ["threshold_fraction", "search_fraction", "strict_tails", "shuffle_power"]

#: Largest n searched: the float64 bisection resolves fractions 1/(2 n^2) apart.
MAX_SEARCH_N = 10**7

#: Working-precision steps of :func:`shuffle_power` before it gives way to the table route.
MAX_STEPS = 3


def _float_ptail(e0: float, n: int, x: float, window: tuple[int, int]) -> float:
    """P(a/s < x) in float64 (an estimate for the search): per slice
    ``B_n(s)/n [(E - 1) (s/2) F_{s-1}(M - 1) + s F_s(M)]``, F the Binom(., 1/2) distribution
    function (``sum_{a <= M} a b_s(a) = (s/2) F_{s-1}(M - 1)``)."""
    import numpy as np
    from scipy.stats import binom

    E = math.exp(e0)
    theta = 2.0 / (E + 1.0)
    s = np.arange(window[0], window[1] + 1, dtype=np.int64)
    M = np.ceil(s * x) - 1
    Bn = binom.pmf(s, n, theta)
    inner = (E - 1.0) * (s / 2.0) * binom.cdf(M - 1, s - 1, 0.5) + s * binom.cdf(M, s, 0.5)
    return float(np.sum(Bn * inner) / n)


def threshold_fraction(e0: float, n: int, alpha: float) -> Fraction | None:
    """The fraction tau = a*/s* (s* <= n) of the Neyman--Pearson threshold at level alpha (an
    estimate, proved by the caller): the float pass of :mod:`.shuffle_locate`, else the
    bisection of :func:`search_fraction`; None when neither finds one."""
    if n > MAX_SEARCH_N:
        return None
    t = locate_thresholds(e0, n, [alpha])[0]
    return t if t is not None else search_fraction(e0, n, alpha)


def search_fraction(e0: float, n: int, alpha: float) -> Fraction | None:
    """The fraction tau = a*/s* (s* <= n) of the Neyman--Pearson threshold at level alpha, by
    bisection on float64 tails (module docstring; an estimate, proved by the caller); None
    when the search finds none."""
    if n > MAX_SEARCH_N:
        return None
    window = _slices(e0, n, math.log(1e-30))
    # P(< lo) <= alpha < P(< hi) (P(< 1) = 1 - P(a = s) > alpha): regula falsi with the
    # Illinois halving (P(< x) is a fine staircase, smooth at the scale of the first steps),
    # a bisection step whenever an interpolation did not halve the bracket
    lo, hi, flo, fhi = 0.0, 1.0, -alpha, 1.0 - alpha
    gap = 1.0 / (2.0 * n * n)
    side = 0
    while hi - lo >= gap:
        budget.check()
        width = hi - lo
        mid = lo - flo * (hi - lo) / (fhi - flo) if fhi > flo else (lo + hi) / 2
        if not lo + width / 64 < mid < hi - width / 64:
            mid = min(max(mid, lo + width / 64), hi - width / 64)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
            if not lo < mid < hi:
                break
        fm = _float_ptail(e0, n, mid, window) - alpha
        if fm <= 0:
            lo, flo = mid, fm
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = mid, fm
            if side == 1:
                flo /= 2
            side = 1
        if hi - lo > width / 2:  # (the interpolation did not halve it: bisect once)
            mid = (lo + hi) / 2
            fm = _float_ptail(e0, n, mid, window) - alpha
            if fm <= 0:
                lo, flo = mid, fm
            else:
                hi, fhi = mid, fm
    # the fraction of denominator <= n in (lo, hi] (at most one: the interval is shorter than
    # 1/(2 n^2)); P(< x) jumps only there
    t = Fraction(hi).limit_denominator(n)
    if not Fraction(lo) - Fraction(gap) <= t <= Fraction(hi) + Fraction(gap):
        return None
    return t if 0 < t <= 1 else None


def strict_tails(E, n: int, tau: Fraction, s_lo: int, s_hi: int, prec: int):
    """Arb balls of (P(a/s < tau), Q(a/s < tau)) of ShuffleDP(eps0, n), ``E = e^eps0`` an arb,
    from the slices ``s_lo..s_hi`` plus the Chernoff bound of the others (module docstring).
    Runs at the current Arb precision ``prec``."""
    from flint import arb

    num, den = tau.numerator, tau.denominator
    tp, tq = arb(0), arb(0)
    state = None  # no recurrence state yet
    for s, B in _slice_masses(E, n, s_lo, s_hi):
        M2 = (s * num - 1) // den  # the largest a with a/s < tau
        if M2 < 0:
            continue
        state = (_fresh_state(s, M2, prec) if state is None
                 else _next_state(state, s, M2, prec))
        M, b, R0, R1, _ = state
        w = B * b
        tp += w * ((s - M + E * M) * R0 + (1 - E) * R1)
        tq += w * ((E * (s - M) + M) * R0 + (E - 1) * R1)
    drop = arb(0).union((E + 1) / 2 * _outside_slices(E, n, s_lo, s_hi))
    return tp / n + drop, tq / n + drop


def _atom_mass(E, n: int, tau: Fraction, s_lo: int, s_hi: int):
    """A lower bound (an arb) of the P-mass of the threshold atom a/s = tau: its points
    ``(k a*, k b*)`` with ``k s*`` in the kept slices, ``(E a + b) B_n(s) b_s(a)/n`` each."""
    from flint import arb

    a0, s0 = tau.numerator, tau.denominator
    theta = 2 / (E + 1)
    lt, l1t = theta.log(), (1 - theta).log()
    tot = arb(0)
    for k in range(max(1, -(-s_lo // s0)), s_hi // s0 + 1):
        if k & 255 == 0:
            budget.check()
        s, a = k * s0, k * a0
        lB = (arb(n + 1).lgamma() - arb(s + 1).lgamma() - arb(n - s + 1).lgamma()
              + s * lt + (n - s) * l1t)
        tot += (E * a + (s - a)) * (lB + _log_binom_half(s, a)).exp()
    return tot / n


def shuffle_power(eps0: sp.Expr, n: int, a, ac, power: bool) -> CertifiedPair | None:
    """1 - f(alpha) (``power``) or f(alpha) of ShuffleDP(eps0, n) at ``alpha = a`` (``ac = 1 -
    a``, mpfs), proved to the working precision relative to the value (a point), from the
    tails at the Neyman--Pearson threshold (module docstring); None where the threshold is not
    found or not proved within :data:`MAX_STEPS` precisions (the caller's table route
    answers)."""
    from flint import arb

    e0 = float(eps0)
    if not (0 < a < 1) or not math.isfinite(e0) or e0 <= 0 or n < 2:
        return None
    tau = threshold_fraction(e0, n, float(a))
    if tau is None:
        return None
    p = mp.prec
    small = max(-math.log2(float(min(a, ac))), 0.0)
    w, tb = p + 40 + 2 * int(math.log2(n + 1)), int(p + 16 + small)
    for _ in range(MAX_STEPS):
        budget.check()
        s_lo, s_hi = _slices(e0, n, -tb * math.log(2.0))
        if s_hi - s_lo + 1 > MAX_SLICES:
            return None
        with arb_precision(w):
            E = arb_ball(sp.exp(eps0))
            A = arb_exact(a)
            Pl, Ql = strict_tails(E, n, tau, s_lo, s_hi, w)
            a0, s0 = tau.numerator, tau.denominator
            r = (E * (s0 - a0) + a0) / (E * a0 + (s0 - a0))
            if not Pl <= A:
                return None  # (a wrong fraction, or balls too wide to tell: the table route)
            if not Pl + _atom_mass(E, n, tau, s_lo, s_hi) >= A:
                return None
            pw = Ql + r * (A - Pl)
            v = pw if power else arb(1) - pw
            lo, hi = max(v.lower(), arb(0)), min(v.upper(), arb(1))
            if hi.upper() <= 0:
                return None
            if hi - lo <= hi * arb(2) ** (-p - 2):
                trace.note("the shuffle pair's tails at its Neyman-Pearson threshold, in Arb")
                mid = arb_endpoint(((lo + hi) / 2).mid(), round_floor)
                return CertifiedPair(mid, mid)
        w, tb = 2 * w, tb + 64
    return None
