"""eps(delta) and delta(eps) of n-fold pure eps0-DP at small n, answered before the routes; delta
of a lattice pair composed n times exactly where e^eps is rational.

f_{eps0,0}^{(x) k} (``EpsDelta(eps0, 0)**k``, ``BinomialDP(eps0, k)``, ``EpsDelta(eps0, 0)``
itself) with 1 <= k <= ``numeric.finite_small.MAX_K``: its k + 1 atoms give eps(delta) as the
closed form log((U_m - delta (1 + e^{eps0})^k) / V_m) on the segment that two Arb comparisons
prove (Kairouz, Oh & Viswanath; Dong, Roth & Su, Prop. 6 and Sec. 3.3; ``numeric.finite_small``),
without the rewriting, the route ladder or the incomplete beta functions of the general path.
Asked by :func:`~tradeoff_algebra.analysis.conversions.epsilon` first; None (the general path
answers) for every other node, level or an undecided segment. :func:`small_power_delta` gives
delta(eps) of the same nodes from the same atoms (no incomplete beta function), and
:func:`lattice_power_delta` delta(log r) of a finite pair with rational masses on one lattice
composed n times, exactly (``numeric.finite_small.lattice_delta_exact``), where the Arb lattice
route would decide the atoms at the mpfs around eps (RR(log 3, 3)^300 at log(3^300 - 1): its
top atom alone, 5^-300).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from mpmath.libmp import from_man_exp, round_nearest

from ..numeric.arb_expr import ball_point
from ..numeric.context import arb_precision, mp
from ..numeric.finite_small import (
    MAX_K,
    delta_ball,
    delta_exact,
    epsilon_ball,
    lattice_delta_exact,
    loss_above,
    pure_power,
)
from ..numeric.value import Value, dps_to_prec

__all__ = ["small_power_epsilon", "small_power_delta", "lattice_power_delta", "ROUTE",
           "EXACT_ROUTE", "LATTICE_ROUTE"]

#: The route label of an answer from here.
ROUTE = "f_{eps0,0}^(x)k by its atoms: the segment's closed form (Arb)"
#: The route label of an exact delta of f_{eps0,0}^(x)k (e^{eps0} and e^eps rational).
EXACT_ROUTE = "f_{eps0,0}^(x)k by its atoms, exactly"
#: The route label of an exact delta of a lattice pair's power.
LATTICE_ROUTE = "lattice pair composed n times: exact integer polynomial powers"


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


def small_power_delta(f, E: sp.Expr, dps: int) -> Value | None:
    """delta_f(E) of f = f_{eps0,0}^{(x) k} (k <= MAX_K) at an exact E >= 0 without symbols:
    exact where e^{eps0} and e^E are rationals (``delta_exact``) or the largest loss is
    exactly at most E (0), else certified: the Arb ball of (U_m - e^E V_m)/(1 + e^{eps0})^k on
    the segment of E (``numeric.finite_small.delta_ball``) as a point to ``dps`` digits; None
    where this path does not apply."""
    got = pure_power(f)
    if got is None or got[1] > MAX_K or not isinstance(E, sp.Expr) or E.free_symbols:
        return None
    eps0, k = got
    if loss_above(eps0, k, E) is False:  # the largest loss k eps0 <= E, decided exactly
        return Value.from_exact(sp.S.Zero, dps).routed(EXACT_ROUTE)
    d = delta_exact(eps0, k, E)  # (e^{eps0} and e^E rational: exactly)
    if d is not None:
        return Value.from_exact(sp.Rational(d.numerator, d.denominator), dps).routed(EXACT_ROUTE)

    def make_ball(prec):
        with arb_precision(prec):
            return delta_ball(eps0, k, E)

    v = ball_point(make_ball, dps, unit=True)
    return None if v is None else v.routed(ROUTE)


def lattice_power_delta(fl, E: sp.Expr, dps: int) -> Value | None:
    """delta(E) of a finite loss ``fl`` (``numeric.finite.FiniteLoss``) that is one finite pair
    with rational masses on one lattice composed n >= 2 times, exactly, where e^E is rational
    (E = 0 or log r, r a Rational): ``numeric.finite_small.lattice_delta_exact``. None
    otherwise (other pairs, E, or a table too large)."""
    if E == 0:
        r = Fraction(1)
    elif isinstance(E, sp.log) and isinstance(E.args[0], sp.Rational):
        r = Fraction(int(E.args[0].p), int(E.args[0].q))
    else:
        return None
    parts = fl.leaves()
    if len(parts) != 1 or parts[0][1] < 2:
        return None
    pairs, n = parts[0]
    if not all(isinstance(x, sp.Rational) for pq in pairs for x in pq):
        return None
    P = [Fraction(int(p.p), int(p.q)) for p, _ in pairs]
    Q = [Fraction(int(q.p), int(q.q)) for _, q in pairs]
    d = lattice_delta_exact(P, Q, int(n), r)
    if d is None:
        return None
    return Value.from_exact(sp.Rational(d.numerator, d.denominator), dps).routed(LATTICE_ROUTE)
