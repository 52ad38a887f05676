"""eps(delta) of n-fold pure eps0-DP at small n, answered before the routes.

f_{eps0,0}^{(x) k} (``EpsDelta(eps0, 0)**k``, ``BinomialDP(eps0, k)``, ``EpsDelta(eps0, 0)``
itself) with 1 <= k <= ``numeric.finite_small.MAX_K``: its k + 1 atoms give eps(delta) as the
closed form log((U_m - delta (1 + e^{eps0})^k) / V_m) on the segment that two Arb comparisons
prove (Kairouz, Oh & Viswanath; Dong, Roth & Su, Prop. 6 and Sec. 3.3; ``numeric.finite_small``),
without the rewriting, the route ladder or the incomplete beta functions of the general path.
Asked by :func:`~tradeoff_algebra.analysis.conversions.epsilon` first; None (the general path
answers) for every other node, level or an undecided segment.
"""

from __future__ import annotations

import sympy as sp
from mpmath.libmp import from_man_exp, round_nearest

from ..numeric.context import mp
from ..numeric.finite_small import MAX_K, epsilon_ball, pure_power
from ..numeric.value import Value, dps_to_prec

__all__ = ["small_power_epsilon", "ROUTE"]

#: The route label of an answer from here.
ROUTE = "f_{eps0,0}^(x)k by its atoms: the segment's closed form (Arb)"


def small_power_epsilon(f, D, dps: int) -> Value | None:
    """eps_f(D) of f = f_{eps0,0}^{(x) k} (``numeric.finite_small.pure_power``, k <= MAX_K)
    at a rational level 0 < D < 1, certified: a point correct to ``dps`` digits (the Arb ball
    of the closed form, 2^-(prec + 32) relative, its midpoint rounded to the nearest
    ``dps``-digit mpf), or the exact 0 where delta(0) <= D is proved; None where this path
    does not apply."""
    got = pure_power(f)
    if got is None or got[1] > MAX_K or not isinstance(D, sp.Rational):
        return None
    eps0, k = got
    prec = dps_to_prec(dps)
    y = epsilon_ball(eps0, k, (int(D.p), int(D.q)), prec + 32)  # (None unless 0 < D < 1)
    if y is None:
        return None
    if isinstance(y, int):  # delta(0) <= D proved: eps = 0 exactly (Prop. 6)
        return Value.point(mp.zero, dps, guarantee="certified", route=ROUTE)
    man, exp = y.mid().man_exp()  # (the midpoint is exact: no rounding here)
    x = mp.make_mpf(from_man_exp(int(man), int(exp), prec, round_nearest))
    return Value.point(x, dps, guarantee="certified", route=ROUTE)
