"""Attack-risk metrics of a trade-off function f = T(P, Q), each as a certified enclosure.

The auditing literature and riskcal read f as the errors of a membership-inference attacker
who tests H0: the record is out (P) against H1: it is in (Q):

* ``roc(f, fpr)`` (in ``numeric``): the best attack's true-positive rate at a false-positive
  rate, 1 - f(fpr);
* ``advantage(f)``: the largest TPR - FPR over all attacks, max_alpha (1 - alpha - f(alpha))
  = delta_f(0), the total variation between P and Q (Dong, Roth & Su, Prop. 6 at eps = 0;
  Yeom et al.'s membership advantage);
* ``bayes_risk(f, prior)``: the smallest probability of a wrong guess when the record is in
  with probability ``prior`` = pi:
  ``min_alpha (1 - pi) alpha + pi f(alpha)``. With e^eps = (1 - pi)/pi and Prop. 6,
  ``min_alpha (f(alpha) + e^eps alpha) = 1 - delta_f(eps)``, so for pi <= 1/2 the risk is
  ``pi (1 - delta_f(log((1 - pi)/pi)))``, and for pi > 1/2, exchanging the roles of the two
  errors (f^{-1} = T(Q, P)), ``(1 - pi)(1 - delta_{f^{-1}}(log(pi/(1 - pi))))``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import count, param
from ..numeric import budget
from ..numeric.context import mp
from ..numeric.protocol import GUARD_DPS, MAX_DPS, short
from ..numeric.value import Value
from .conversions import delta

__all__ = ["advantage", "bayes_risk"]


@budget.deadline(lambda a: f"advantage({short(a['f'])})")
def advantage(f: TradeOff, dps: int = 30) -> Value:
    """The membership advantage max (TPR - FPR) = delta_f(0) (module docstring)."""
    return delta(f, 0, dps=dps)


@budget.deadline(lambda a: f"bayes_risk({short(a['f'])})")
def bayes_risk(f: TradeOff, prior: Any = sp.S.Half, dps: int = 30) -> Value:
    """The Bayes risk of the best attacker with prior ``prior`` on membership (module
    docstring): an enclosure derived from the certified privacy profile."""
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression", "bayes_risk")
    pi = param("prior", prior, lower=0, upper=1, owner="bayes_risk", numeric=True)
    dps = count("dps", dps, upper=MAX_DPS, owner="bayes_risk")
    if pi == 0 or pi == 1:
        return Value.from_exact(sp.S.Zero, dps)
    if pi <= sp.S.Half:
        w, g, e = pi, f, sp.log((1 - pi) / pi)
    else:
        w, g, e = 1 - pi, f.inverse(), sp.log(pi / (1 - pi))
    d = delta(g, e, dps=dps + 5)
    with mp.workdps(dps + GUARD_DPS):
        W = mp.mpf(w.p) / w.q if w.is_Rational else mp.mpf(sp.N(w, dps + GUARD_DPS))
        lo = mp.fmul(W, 1 - mp.mpf(d.hi), rounding="d")
        hi = mp.fmul(W, 1 - mp.mpf(d.lo), rounding="u")
        return Value.enclosure(max(lo, mp.zero), hi, dps)
