"""The one-run audit of Steinke, Nasr & Jagielski (2023), "Privacy auditing with one (1)
training run": a lower confidence bound on eps from the number of correct guesses.

The setting: ``m`` canaries, each included in the training set independently with probability
1/2; after one training run the auditor guesses inclusion for ``r`` of them (abstaining on the
rest) and ``v`` guesses are right. With ``q = e^eps/(1 + e^eps)`` (the accuracy of eps-DP
randomised response) and ``F(t) = P(Bin(r, q) >= t)``:

* eps-DP (delta = 0): ``W``, the number of correct guesses, is stochastically dominated by
  Bin(r, q), so ``P(W >= v) <= F(v)``;
* (eps, delta)-DP: ``P(W >= v) <= F(v) + 2 m delta max_{1 <= i <= v} (F(v - i) - F(v))/i``
  (their main theorem for approximate DP; its right side is the p-value their auditing
  procedure reports).

A claim (eps, delta) whose p-value is below ``1 - confidence`` is refuted; the p-value increases
with eps, so the refuted claims are the eps below a threshold, whose lower bound is returned.
For delta = 0 the bound is the one-sided Clopper–Pearson lower bound ``q*`` of ``v`` in ``r``
(:func:`.binomial.cp_lower`) mapped by ``eps = log(q/(1 - q))``; for delta > 0 a bisection on
eps whose every comparison of the p-value with the level is proved in Arb (the binomial masses
as Arb balls, summed). Both are proved lower bounds of the exact values.

Not implemented: the f-DP refinement of the same experiment (Mahloujifar, Melis & Chaudhuri,
"Auditing f-differential privacy in one run").
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core.errors import InvalidParameter
from ..numeric.context import arb_precision
from .attack import as_fraction
from .binomial import check_level, cp_lower
from .bounds import arb_floor

__all__ = ["OneRunAudit", "audit_one_run", "one_run_p_value"]

#: Arb precision (bits) of the p-value sums
PREC = 128


def _check(m: Any, r: Any, v: Any) -> tuple[int, int, int]:
    out = []
    for name, x in (("m", m), ("r", r), ("v", v)):
        if isinstance(x, bool) or not hasattr(x, "__index__") or int(x) < 0:
            raise InvalidParameter(name, x, "a non-negative integer", "audit_one_run")
        out.append(int(x))
    m, r, v = out
    if m < 1:
        raise InvalidParameter("m", m, "an integer >= 1 (the number of canaries)",
                               "audit_one_run")
    if r > m:
        raise InvalidParameter("r", r, f"an integer in [0, m] = [0, {m}]", "audit_one_run")
    if v > r:
        raise InvalidParameter("v", v, f"an integer in [0, r] = [0, {r}]", "audit_one_run")
    return m, r, v


def _p_value_ball(m: int, r: int, v: int, eps: Fraction, delta: Fraction):
    """An Arb ball of the p-value of the module docstring at (eps, delta)."""
    from flint import arb, fmpq

    e = arb(fmpq(eps.numerator, eps.denominator)).exp()
    q = e / (1 + e)
    # masses P(Bin(r, q) = j) for j = 0..v - 1 by the recurrence from j = 0
    mass = (1 - q) ** r
    masses = []
    for j in range(v):
        masses.append(mass)
        mass = mass * (r - j) / (j + 1) * q / (1 - q)
    tail = 1 - sum(masses, arb(0)) if v > 0 else arb(1)  # F(v) = 1 - P(Bin < v)
    if delta == 0 or v == 0:
        return tail
    best, acc = arb(0), arb(0)
    for i in range(1, v + 1):  # F(v - i) - F(v) = P(v - i <= Bin < v)
        acc = acc + masses[v - i]
        best = best.max(acc / i)  # Arb's max: a ball holding the larger of the two
    return tail + 2 * m * arb(fmpq(delta.numerator, delta.denominator)) * best


def one_run_p_value(m: Any, r: Any, v: Any, eps: Any, delta: Any = 0) -> tuple[Fraction,
                                                                                  Fraction]:
    """The p-value of the module docstring at (eps, delta) as a proved interval of exact
    rationals ``(lo, hi)`` (the p-value's ball rounded outward; capped at 1 by the caller)."""
    m, r, v = _check(m, r, v)
    e = as_fraction(eps, "eps", "one_run_p_value", 0, 10**6)
    d = as_fraction(delta, "delta", "one_run_p_value")
    with arb_precision(PREC):
        b = _p_value_ball(m, r, v, e, d)
        return arb_floor(b), -arb_floor(-b)


def _refuted(m: int, r: int, v: int, eps: Fraction, delta: Fraction, gamma: Fraction) -> bool:
    """Is the p-value at (eps, delta) proved below gamma?"""
    from flint import arb, fmpq

    with arb_precision(PREC):
        return bool(_p_value_ball(m, r, v, eps, delta) < arb(fmpq(gamma.numerator,
                                                                  gamma.denominator)))


@dataclass(frozen=True)
class OneRunAudit:
    """The one-run audit: ``m`` canaries, ``r`` guesses, ``v`` correct; ``eps_lower`` is the
    proved lower bound of the eps that the p-value refutes at ``delta`` and ``confidence``;
    ``refuted`` answers the claimed (eps, delta) (None without a claim)."""

    m: int
    r: int
    v: int
    delta: Fraction
    confidence: Fraction
    eps_lower: Fraction
    claimed: tuple[Fraction, Fraction] | None = None
    refuted: bool | None = None

    def latex(self) -> str:
        """The finding in LaTeX."""
        s = (rf"{self.v}/{self.r}\ \text{{correct guesses on }} {self.m}\ \text{{canaries}}:"
             rf"\ \varepsilon({float(self.delta):.3g}) \ge {float(self.eps_lower):.4g}"
             rf"\ \text{{at confidence }} {float(self.confidence):.4g}")
        if self.claimed is not None:
            e, d = self.claimed
            s += (rf",\ ({float(e):.4g}, {float(d):.3g})\text{{-DP }}"
                  + (r"\text{refuted}" if self.refuted else r"\text{not refuted}"))
        return s

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"


def audit_one_run(m: Any, r: Any, v: Any, delta: Any = 0, confidence: Any = Fraction(95, 100),
                  claimed: Any = None) -> OneRunAudit:
    """The one-run audit of Steinke, Nasr & Jagielski (module docstring): ``v`` correct of
    ``r`` guesses on ``m`` canaries. ``claimed`` is an ``ApproxDP`` or a pair (eps, delta);
    its delta replaces ``delta`` when given."""
    m, r, v = _check(m, r, v)
    conf = check_level(confidence, "confidence", "audit_one_run")
    gamma = 1 - conf
    d = as_fraction(delta, "delta", "audit_one_run")
    claim = None
    if claimed is not None:
        if hasattr(claimed, "eps") and hasattr(claimed, "delta_"):
            ce, cd = claimed.eps, claimed.delta_
        elif isinstance(claimed, (tuple, list)) and len(claimed) == 2:
            ce, cd = claimed
        else:
            raise InvalidParameter("claimed", claimed, "an ApproxDP or a pair (eps, delta)",
                                   "audit_one_run")
        claim = (as_fraction(ce, "claimed eps", "audit_one_run", 0, 10**6),
                 as_fraction(cd, "claimed delta", "audit_one_run"))
        d = claim[1]
    if r == 0 or v == 0:
        lower = Fraction(0)
    elif d == 0:
        q = cp_lower(v, r, gamma)[0]  # P(Bin(r, q) >= v) <= gamma for q <= q*: refuted
        if q <= Fraction(1, 2):
            lower = Fraction(0)
        else:
            with arb_precision(PREC):
                from flint import arb, fmpq

                lower = max(Fraction(0), arb_floor((arb(fmpq(q.numerator, q.denominator))
                                                    / (1 - arb(fmpq(q.numerator,
                                                                    q.denominator)))).log()))
    else:
        lo, hi = Fraction(0), Fraction(1)
        if not _refuted(m, r, v, lo, d, gamma):
            lower = Fraction(0)
        else:
            while _refuted(m, r, v, hi, d, gamma) and hi < 2**20:
                lo, hi = hi, 2 * hi
            for _ in range(40):  # keep: refuted at lo (proved), not proved refuted at hi
                mid = (lo + hi) / 2
                if _refuted(m, r, v, mid, d, gamma):
                    lo = mid
                else:
                    hi = mid
            lower = lo
    refuted = None if claim is None else _refuted(m, r, v, claim[0], claim[1], gamma)
    return OneRunAudit(m, r, v, d, conf, lower, claim, refuted)
