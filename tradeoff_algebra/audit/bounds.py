"""What a confidence box refutes: the claimed curve, f_{eps,delta} and G_mu, proved in Arb.

A box ``[a_lo, a] x [b_lo, b]`` holding the true errors (FPR, FNR) of a test refutes a claimed
trade-off function f when it lies entirely below f: every trade-off function is non-increasing,
so ``f(a) > b`` (f at the box's largest FPR above its largest FNR) says that every point of the
box has ``beta < f(alpha)``, which no test of a pair that is f-DP can achieve (Dong, Roth &
Su, Def. 3: T(P, Q) >= f). Against the families the condition is explicit:

* f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)} (Dong,
  Roth & Su, Eq. (4)): ``f_{eps,delta}(a) > b`` iff ``eps < log((1 - delta - b)/a)`` or
  ``eps < log((1 - delta - a)/b)``. So the box refutes every eps below

      eps*(delta) = max{0, log((1 - delta - b)/a), log((1 - delta - a)/b)},

  and ``eps*`` is a lower bound on the eps of the mechanism at delta (at the box's confidence).
* G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) (Dong, Roth & Su, Eq. (5)): ``G_mu(a) > b``
  iff ``mu < Phi^-1(1 - a) - Phi^-1(b) = sqrt(2) (erfcinv(2a) + erfcinv(2b))``; the box
  refutes every mu below ``mu* = max{0, sqrt(2) (erfcinv(2a) + erfcinv(2b))}``.

The logarithms and ``erfcinv`` are Arb balls; the bounds returned are their lower ends rounded
down to dyadic rationals, so ``eps*`` and ``mu*`` as returned are proved lower bounds of the
exact values above. ``f(a)`` is the library's :func:`~tradeoff_algebra.numeric.protocol.evaluate`;
only an exact or certified value decides (an estimate leaves the point undecided).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from ..core.node import TradeOff
from ..numeric.context import arb_precision, mp
from ..numeric.protocol import evaluate
from ..numeric.value import Value

__all__ = ["eps_lower", "mu_lower", "refutes", "arb_floor", "mpf_fraction"]

#: Arb precision (bits) of the logarithms and erfcinv
PREC = 128


def _arb_q(q: Fraction):
    from flint import arb, fmpq

    return arb(fmpq(q.numerator, q.denominator))


def arb_floor(ball) -> Fraction:
    """The lower end of an Arb ball as an exact Fraction."""
    man, exp = ball.lower().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def mpf_fraction(x) -> Fraction:
    """An mpf as its exact Fraction."""
    man, exp = x.man_exp
    man, exp = int(man), int(exp)
    if x < 0:
        man = -abs(man)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def eps_lower(a: Fraction, b: Fraction, delta: Fraction) -> Fraction:
    """A proved lower bound of ``eps*(delta)`` (module docstring) for the box corner
    ``(a, b) = (FPR_hi, FNR_hi)``: every ``(eps, delta)``-DP claim with eps below it is
    refuted by the box. 0 when the box refutes no eps."""
    if not (0 < a and 0 < b):  # a box at alpha = 0 or beta = 0: nothing to take the log of
        return Fraction(0)
    ratio = max((1 - delta - b) / a, (1 - delta - a) / b)  # exact
    if ratio <= 1:
        return Fraction(0)
    with arb_precision(PREC):
        return max(Fraction(0), arb_floor(_arb_q(ratio).log()))


def mu_lower(a: Fraction, b: Fraction) -> Fraction:
    """A proved lower bound of ``mu*`` (module docstring): every G_mu with mu below it lies
    above the box corner ``(a, b)``, so the box refutes it. 0 when it refutes no mu > 0."""
    if not (0 < a < 1 and 0 < b < 1):
        return Fraction(0)
    if a + b >= 1:  # Phi^-1(1 - a) <= Phi^-1(b): no mu >= 0 is refuted (exact)
        return Fraction(0)
    with arb_precision(PREC):
        from flint import arb

        m = arb(2).sqrt() * ((2 * _arb_q(a)).erfcinv() + (2 * _arb_q(b)).erfcinv())
        return max(Fraction(0), arb_floor(m))


def refutes(f: TradeOff, a: Fraction, b: Fraction, dps: int = 30) -> tuple[bool | None, Value]:
    """Does the box with corner ``(a, b)`` lie below f, that is ``f(a) > b``? ``(True, v)``
    when the exact or certified value ``v = f(a)`` proves it, ``(False, v)`` when ``v`` proves
    ``f(a) <= b``, ``(None, v)`` when ``v`` is an estimate or straddles ``b``."""
    v = evaluate(f, sp.Rational(a.numerator, a.denominator), dps=dps)
    if not v.is_certain:
        return None, v
    lo, hi = v.interval()
    with mp.workprec(max(mp.prec, 64)):
        if mpf_fraction(lo) > b:
            return True, v
        if mpf_fraction(hi) <= b:
            return False, v
    return None, v
