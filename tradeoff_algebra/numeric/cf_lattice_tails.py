"""Certified Neyman-Pearson points and the power at one level of a k-fold product of a lattice
law (atoms at +-mu and a density on (-mu, mu), the Laplace mechanism's privacy loss) whose
atoms are not negligible: its loss tails from the exactly summed terms plus the inverted
remainder, and a certified bracket of the level.

**Tails.** Split M^k = sum_j C(k, j) A^{k-j} U^j by the number j of density components
(:mod:`.cf_lattice`). The terms j < J are a finite sum over the lattice points
mu (2m - (k - j)) of Irwin-Hall pieces kappa^j e^{lam s} V_j(s), and for each piece
``ExactPart._integral(x, j, ...)`` gives the pair (int_{s > x} V_j e^{lam s} ds,
e^x int_{s > x} V_j e^{(lam - 1) s} ds) at x = eps minus the lattice point: summed with the
terms' weights they are the exact part's A(L > eps) and e^eps B(L > eps) (dB = e^{-L} dA), in
Arb (the pure lattice term j = 0 is the indicator of the point above x: a ball [0, 1] only where
eps is not decided against the point). The remainder j >= J decays like t^{-J} (J >= 4), so its
tails are those of :class:`~.cf_tails.TailInverter`. With J = k + 1 (k <= 12) nothing is
inverted.

**The power at alpha** (:func:`lattice_power_at`). The power 1 - f is concave and
non-decreasing in alpha, and the test rejecting L > eps is a point (a(eps), p(eps)) =
(B(L > eps), A(L > eps)) on it (Dong, Roth & Su, Prop. 6); at a lattice atom l the curve is the
segment between the points at l+ and l- (the randomised tests). So for thresholds e_H > e_L
with a(e_H) <= alpha <= a(e_L) (certified by the balls' ends):

* power(alpha) >= the chord of the two points at alpha (concavity), a ball expression whose
  lower end is proved for every choice of the points in their balls;
* power(alpha) >= p(e_H) + e^{e_L} (alpha - a(e_H)): on [a(e_H), alpha] the chord's slope is at
  least the curve's left derivative at alpha, which is at least e^t for the threshold t of
  alpha, and t >= e_L as a(e_L) >= alpha (a is non-increasing) -- well conditioned where the
  bracket straddles an atom's jump, and exact as e_H - e_L shrinks to the atom;
* power(alpha) <= delta(eps) + e^eps alpha at every eps (the support line of slope e^eps).

A safeguarded secant search on log a(eps) shrinks the bracket (bisection every other step, so a
jump of a at an atom is bracketed down to the float spacing, where the chord is the segment);
it stops where the two bounds meet the tolerance. The float midpoints only steer; every bound
is an Arb ball.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

from flint import arb, fmpq

from . import budget, cf
from .cf_lattice import ExactPart, RemainderLaw, split_terms
from .cf_laws import Factor, lower, upper, working_precision
from .cf_route import MAX_WORK, REL_MIN, _work
from .cf_tails import TailPoint, _clip, _meet, tail_inverter

__all__ = ["LatticeTails", "eps_guess", "exact_tails", "lattice_power_at"]


def exact_tails(part: ExactPart, eps: float) -> tuple[arb, arb]:
    """(A(L > eps), e^eps B(L > eps)) of the terms with fewer than ``part.J`` density
    components (module docstring), Arb balls at the working precision."""
    mu, pp, pm_, kappa, lam = part.law.lattice_parts()
    e = arb(eps)
    k, J = part.k, part.J
    pa, pb = arb(0), arb(0)
    lp, lm = pp.log(), pm_.log()
    for j in range(min(J, k + 1)):
        n = k - j
        wj = comb(k, j) * kappa**j
        cm = 1
        for m in range(n + 1):
            if m % 256 == 255:
                budget.check()
            if m:
                cm = cm * (n - m + 1) // m
            x = e - mu * (2 * m - n)
            if j == 0:  # the atom at the lattice point: 1{0 > x}
                if x < 0:
                    a, b = arb(1), x.exp()
                elif x >= 0:
                    continue
                else:
                    a, b = arb(0).union(arb(1)), arb(0).union(x.exp())
            else:
                a, b = part._integral(x, j, mu, lam, False)
                if a == 0 and b == 0:
                    continue
            w = wj * arb(cm) * (m * lp + (n - m) * lm).exp()
            pa += w * a
            pb += w * b
    return pa, pb


def _remainder_order(law, k: int, eps: float, rel: float) -> int | None:
    """The least J of ``split_terms(k)`` whose remainder's plan at eps is within MAX_WORK
    (as ``cf_route._split``, without trying the whole law: its tails are not certified);
    k + 1 where everything is summed exactly; None if none is affordable."""
    for J in split_terms(k):
        if J > k:
            return J
        try:
            if _work([(RemainderLaw(law, k, J), 1)], eps, rel) <= MAX_WORK:
                return J
        except (ValueError, RuntimeError, ArithmeticError):
            continue
    return None


class LatticeTails:
    """Certified Neyman-Pearson points of the k-fold product of ``law`` at any eps >= 0: the
    exact part's tails plus the remainder's (module docstring), its inverter planned at
    ``eps0`` to the relative width ``rel`` of the remainder's delta."""

    def __init__(self, law, k: int, eps0: float, rel: float) -> None:
        self.law, self.k = law, int(k)
        J = _remainder_order(law, self.k, eps0, rel)
        if J is None:
            raise ValueError(f"the remainder of {law}^{k} is beyond the planned work")
        self.part = ExactPart(law, self.k, J)
        self.rest = None
        self.prec = cf._exact_prec(self.part, max(rel, REL_MIN))
        if J <= self.k:
            rest = [(RemainderLaw(law, self.k, J), 1)]
            inv, _ = cf._certified_inverter(rest, eps0, rel)
            self.rest = tail_inverter(rest, inv)
            if self.rest is None:
                raise ValueError("the remainder's tails are not certified")
            self.prec = max(self.prec, self.rest.eval_prec)

    def point(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps), B(L > eps)."""
        with working_precision(self.prec):
            pa, pb = exact_tails(self.part, eps)
            e = arb(eps)
            zero, one = arb(0), arb(1)
            if self.rest is not None:
                r = self.rest.point_here(eps)
                power = pa + r.power
                alpha = pb * (-e).exp() + r.alpha
            else:
                power, alpha = pa, pb * (-e).exp()
            power, alpha = _clip(power, zero, one), _clip(alpha, zero, one)
            delta = _clip(power - e.exp() * alpha, zero, one)
            if self.rest is not None:  # (delta of each part too: the narrower meet)
                delta = _meet(delta, _clip(pa - pb + r.delta, zero, one))
            return TailPoint(eps, delta, power, alpha)


def eps_guess(factors: list[Factor], alpha: float) -> float:
    """Float saddle-point estimate of the threshold whose size B(L > eps) is ``alpha``
    (alpha ~ c delta e^{-eps}), by bisection below the largest loss k mu (no saddle point
    beyond it); a start for :func:`lattice_power_at`, which proves its own bracket."""
    law, k = factors[0]
    lo, hi = 0.0, k * float(law.mu)
    target = math.log(alpha)
    for _ in range(40):
        m = 0.5 * (lo + hi)
        try:
            c = cf._saddle(factors, m)
            v = math.log(c) + cf._log_delta_saddle(factors, c, m) - m
        except (ValueError, ArithmeticError, RuntimeError):
            hi = m
            continue
        lo, hi = (m, hi) if v > target else (lo, m)
    return 0.5 * (lo + hi)


#: Steps of the bracket search at one level.
MAX_STEPS = 80


def lattice_power_at(factors: list[Factor], alpha: Fraction | float, tol: float,
                     eps_guess: float) -> tuple[float, float] | None:
    """Certified (lo, hi) of the power 1 - f(alpha) of the k-fold product ``factors`` =
    [(law, k)] of a law with ``lattice_parts``, at the level 0 < alpha < 1 (a Fraction: its
    Arb ball; or a float), to the
    relative width ``tol`` where the search reaches it (module docstring); None where the level
    lies above a(0) (a threshold below 0) or the remainder is beyond the planned work. The
    remainder is planned at the guess, then (where the points' balls leave the bounds wider
    than ``tol``) re-planned a hundred times tighter at the threshold found, up to
    :data:`PLANS` times."""
    law, k = factors[0]
    rel = max(min(tol * 1e-2, 1e-7), REL_MIN)
    best = None
    e0 = max(eps_guess, 0.0)
    for _ in range(PLANS):
        try:
            tails = LatticeTails(law, k, e0, rel)
        except (ValueError, ArithmeticError, RuntimeError):
            break
        got = _search(tails, alpha, tol, e0)
        if got is None:
            break
        lo, hi, e0 = got
        best = (lo, hi) if best is None else (max(best[0], lo), min(best[1], hi))
        if best[1] - best[0] <= tol * best[1] or rel <= REL_MIN or tails.rest is None:
            break
        rel = max(rel * 1e-2, REL_MIN)
    return best


#: Plans of the remainder at one level (each a hundred times tighter).
PLANS = 3


def _search(tails: LatticeTails, level: Fraction | float, tol: float,
            eps_guess: float) -> tuple[float, float, float] | None:
    """(lo, hi, eps) of :func:`lattice_power_at` from one set of tails: the bounds and the
    threshold reached."""
    alpha = float(level)
    with working_precision(tails.prec):
        a_t = (arb(fmpq(level.numerator, level.denominator)) if isinstance(level, Fraction)
               else arb(level))
    pts: dict = {}

    def at(e: float) -> TailPoint:
        if e not in pts:
            pts[e] = tails.point(e)
        return pts[e]

    def mid_a(p: TailPoint) -> float:
        return float(p.alpha.mid())

    # the bracket e_lo < e_hi: a(e_lo) >= alpha >= a(e_hi), proved by the balls' ends
    e_lo, e_hi = 0.0, None
    if not at(0.0).alpha.lower() >= a_t:
        return None
    e = max(eps_guess, 1e-3)
    for _ in range(60):
        p = at(e)
        if p.alpha.upper() <= a_t:
            e_hi = e
            break
        if p.alpha.lower() >= a_t:
            e_lo = e
        e = e * 1.5 + 0.5
    if e_hi is None:
        return None
    hi_bound = math.inf
    lo_bound = 0.0
    with working_precision(tails.prec):
        for step in range(MAX_STEPS):
            budget.check()
            pl, ph = at(e_lo), at(e_hi)
            for q in (pl, ph):  # the support lines
                hi_bound = min(hi_bound, upper(q.delta + (arb(q.eps).exp()) * a_t))
            # the chord at alpha (x1 = a(e_hi) <= alpha <= x2 = a(e_lo))
            x1, y1, x2, y2 = ph.alpha, ph.power, pl.alpha, pl.power
            # and the line from (x1, y1) of slope e^{e_lo}, at most the curve's slope on
            # [x1, alpha] (well conditioned where the bracket straddles an atom's jump)
            lo_bound = max(lo_bound, lower(y1 + arb(e_lo).exp() * (a_t - x1)))
            if x2.lower() > x1.upper():
                chord = y1 + (y2 - y1) * (a_t - x1) / (x2 - x1)
                lo_bound = max(lo_bound, lower(chord))
            hi_bound = min(hi_bound, 1.0)
            if hi_bound - lo_bound <= tol * hi_bound:
                break
            if e_hi - e_lo <= 4 * math.ulp(e_hi):
                break
            # the next threshold: a secant on log a, or the midpoint every other step
            g_lo, g_hi = mid_a(pl), mid_a(ph)
            m = 0.5 * (e_lo + e_hi)
            if step % 2 == 0 and g_lo > 0 and g_hi > 0 and g_lo != g_hi:
                s = e_hi - (math.log(g_hi) - math.log(alpha)) * (e_hi - e_lo) / (
                    math.log(g_hi) - math.log(g_lo))
                if e_lo < s < e_hi:
                    # (a step just inside the bracket's end, so that it shrinks from both)
                    w = (e_hi - e_lo) * 1e-3
                    m = min(max(s, e_lo + w), e_hi - w)
            q = at(m)
            if q.alpha.upper() <= a_t:
                e_hi = m
            elif q.alpha.lower() >= a_t:
                e_lo = m
            else:  # undecided: the ball holds alpha; both sides of it are close
                hi_bound = min(hi_bound, upper(q.delta + arb(m).exp() * a_t))
                w = (e_hi - e_lo) * 1e-6
                if not (at(min(m + w, e_hi)).alpha.upper() <= a_t
                        and at(max(m - w, e_lo)).alpha.lower() >= a_t):
                    break
                e_lo, e_hi = max(m - w, e_lo), min(m + w, e_hi)
    if not lo_bound <= hi_bound:
        return None
    return lo_bound, hi_bound, 0.5 * (e_lo + e_hi)
