"""The Neyman-Pearson tails of a product of discrete Gaussians on one lattice, from one discrete
Gaussian and the proved factor of ``discrete_gaussian_sum``.

Setting (``discrete_gaussian_sum``; Canonne, Kamath & Steinke, arXiv:2004.00010, Def. 1): the
product's privacy loss is l(s) = (g s + B)/D with S = sum a_i y_i, and

    Q(S = s) = pi'(s) F(s),  F(s) = (N'/N) (1 + zeta(s)) in [F_lo, F_hi] for every integer s,

pi' the law N_Z(0, V) (``discrete_gaussian_sum``, (1)-(2); the ball [F_lo, F_hi] is its
``factor``). The one discrete Gaussian DiscreteGaussian(Delta', sqrt V) has, under its Q, the
loss u' y + v' with y ~ pi', u' = Delta'/V = g/D and v' = Delta'^2/(2V) = B/D (checked exactly
by ``gaussian_sum``): the same function l of y as the product's of S.

**Claim.** With U(m) = P(X >= m), X ~ N_Z(0, V),

    Q(S >= s) in [F_lo, F_hi] U(s),   P(S >= s) in [F_lo, F_hi] U(s + Delta').               (1)

*Proof.* The product's likelihood ratio at an outcome is e^{l(S)}, a function of S alone, so
P(S = s) = e^{-l(s)} Q(S = s) = p'(s) F(s) with p'(s) = pi'(s) e^{-l(s)}; and pi'(s + Delta')/
pi'(s) = e^{-((s + Delta')^2 - s^2)/(2V)} = e^{-l(s)}, so p'(s) = pi'(s + Delta') is the law of y
= x - Delta' for x ~ N_Z(0, V), the one discrete Gaussian's P. Each tail is a sum of non-negative
masses pi'(t) F(t) (resp. p'(t) F(t)), t >= s, hence lies between F_lo and F_hi times sum_{t >= s}
pi'(t) = U(s) (resp. sum_{t >= s} pi'(t + Delta') = U(s + Delta')). []

The tails (1) are what ``numeric.lattice_np`` reads the power 1 - f(alpha) from at the vertex
around alpha (Dong, Roth & Su, Prop. 6): roc, values and whole curves of the product at the cost
of a few tail sums of one discrete Gaussian, each a few dozen Arb operations at any sigma (the
Euler-Maclaurin tails of ``discrete_gaussian``), where the exact lattice product builds a root
of ~30 sqrt(V) points. The vertex is not the one discrete Gaussian's: the tails are scaled, not
its curve, so a relative width of F passes to the power at most as (F_hi - F_lo)/F_lo times
Q_{s+1} + e^{l(s)} P_{s+1} <= 2 power (P_{s+1} <= alpha at the vertex).
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

from flint import arb, fmpq

from ..numeric import budget
from ..numeric.cf_laws import working_precision
from ..numeric.lattice_np import NPTails

__all__ = ["OneGaussianTails", "ROUTE"]

#: The name of the tails' route (``Value.route``, before the Neyman-Pearson reading's).
ROUTE = "Neyman-Pearson tails of one discrete Gaussian (smoothing bound, certified)"
#: The most steps of the walk from the normal guess to the vertex (on the balls' midpoints).
MAX_WALK = 64


class OneGaussianTails(NPTails):
    """The tails (1) of the module: ``sums`` the one discrete Gaussian's tail sums
    (``discrete_gaussian._Sums``, whose ``upper(m)`` is (U(m), 1 - U(m)) as balls), ``d`` =
    Delta', ``factor`` the ball [F_lo, F_hi], the loss ``step`` s + ``offset`` (Delta'/V and
    Delta'^2/(2V), exact), ``sd`` = sqrt V (a float,
    for locating), ``prec`` the working bits."""

    route = ROUTE

    def __init__(self, sums, d: int, factor: arb, step: Fraction, offset: Fraction, sd: float,
                 prec: int) -> None:
        self.sums, self.d, self.factor = sums, int(d), factor
        self.step, self.offset = fmpq(step.numerator, step.denominator), \
            fmpq(offset.numerator, offset.denominator)
        self.sd, self.prec = float(sd), int(prec)
        self.singular = arb(0)
        # (no window: every tail is a closed sum; the search range of ``power_ball``)
        reach = int(40 * self.sd) + abs(self.d) + 64
        self.lo, self.hi = -reach - self.d, reach
        self._cache: dict[int, tuple[arb, arb]] = {}

    def loss(self, s: int) -> arb:
        return arb(self.step * s + self.offset)  # (exact rationals, rounded once)

    def tails(self, s: int) -> tuple[arb, arb]:
        hit = self._cache.get(s)
        if hit is None:
            budget.check()
            with working_precision(self.prec + 64):
                hit = (self.factor * self.sums.upper(s)[0],
                       self.factor * self.sums.upper(s + self.d)[0])
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[s] = hit
        return hit

    def locate(self, alpha_f: float, alpha: arb | None = None) -> int:
        """The largest s with P_s >= alpha on the balls' midpoints, from the normal guess
        U(m) ~ Phi((1/2 - m)/sd) (locating only: ``power_ball`` proves the bracket); a level
        above 1/2 is placed by its complement 1 - alpha (from the exact ball where given)."""
        a = arb(alpha_f) if alpha is None else arb(alpha.mid())
        nd = NormalDist()
        if alpha_f <= 0.5:
            z = -nd.inv_cdf(min(max(alpha_f, 1e-300), 0.5))
        else:
            z = nd.inv_cdf(min(max(float((1 - a).mid()), 1e-300), 0.5))
        s = math.floor(self.sd * z + 0.5) - self.d

        def ge(t: int) -> bool | None:  # (None: the ball does not decide it)
            p = self.tails(t)[1]
            return None if p.overlaps(a) else arb(p.mid()) >= a

        for _ in range(MAX_WALK):
            here, above = ge(s), ge(s + 1)
            if here is None or above is None:
                break  # (more bits decide: ``power_ball`` widens, its caller raises them)
            if not here:
                s -= 1
            elif above:
                s += 1
            else:
                break
        return s
