"""(eps, delta)-DP as a notion, and advanced composition.

* ``ApproxDP(eps, delta)``: (eps, delta)-DP (Dwork, Def. 4.1). Its trade-off function is
  f_{eps,delta} (Dong, Roth & Su, Eq. (5), Prop. 1: a mechanism is (eps, delta)-DP iff it is
  f_{eps,delta}-DP). ``@`` applies basic composition (Dwork, Sec. 4.1: the epsilons and the
  deltas add), valid but not tight: the exact composition is the trade-off function
  ``a.to_tradeoff() @ b.to_tradeoff()`` (Dong, Roth & Su, Sec. 3). ``group(k)``: Dwork,
  Remark 4.5 as corrected in ``proofs/`` — (k eps, delta (e^{k eps} - 1)/(e^eps - 1))-DP, the
  printed factor k e^{k-1} lacks eps.
* ``advanced_composition(eps, delta, k, delta_prime, improved=False)``: Dwork, Thm. 4.1,
  Eq. (4.2): k-fold composition of (eps, delta)-DP is (sqrt(2 k ln(1/delta')) eps
  + k eps (e^eps - 1), k delta + delta')-DP; ``improved=True`` halves the second term
  (Remark 4.2; Kairouz, Oh & Viswanath). Both are bounds: the exact answer is
  f_{eps,delta}^{(x) k}, whose (eps, delta) profile ``ta.delta`` computes exactly.
* ``amplified_epsilon(eps_star, p)`` = log(1 + p (e^{eps*} - 1)): Poisson subsampling with
  probability p of an eps*-DP algorithm is exactly this DP (tight: randomized response on the
  presence bit); ``sampling_rate(eps_star, eps)`` solves it for p:
  (e^eps - 1)/(e^{eps*} - 1). Dwork, Thm. 5.1, Eq. (5.1) prints
  (e^eps - 1)/(e^{eps*} - e^{eps - eps*} - 1), which is not a probability for some
  (eps*, eps) and gives more than eps at (2, 1): recorded in ``proofs/``;
  ``sampling_rate(..., form="bbkn")`` is the valid but looser form with + e^eps in the
  denominator (Beimel et al.).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, brief
from ..core.node import TradeOff
from ..core.validate import choice, flag, param
from ..core.validate import items as _items
from ..families.epsdelta import EpsDelta
from ..operators.maxgroup import Max
from .base import Notion

__all__ = ["ApproxDP", "advanced_composition", "amplified_epsilon", "sampling_rate"]


class ApproxDP(Notion):
    """(eps, delta)-differential privacy (Dwork, Def. 4.1); eps >= 0, delta in [0, 1]."""

    def __new__(cls, eps: Any, delta: Any = 0):
        e = param("eps", eps, lower=0, owner="ApproxDP", allow_infinite=True)
        d = param("delta", delta, lower=0, upper=1, owner="ApproxDP")
        return sp.Basic.__new__(cls, e, d)

    @property
    def eps(self) -> sp.Expr:
        return self.args[0]

    @property
    def delta_(self) -> sp.Expr:
        return self.args[1]

    def to_tradeoff(self) -> EpsDelta:
        """f_{eps,delta} (Dong, Roth & Su, Prop. 1: (eps, delta)-DP iff f_{eps,delta}-DP)."""
        return EpsDelta(self.eps, self.delta_)

    def compose(self, other: Notion) -> ApproxDP:
        """Basic composition (Dwork, Sec. 4.1): (eps + eps', delta + delta'), delta capped at 1.
        A valid bound, not the tight one (``self.to_tradeoff() @ other.to_tradeoff()``)."""
        if not isinstance(other, ApproxDP):
            raise self._refuse(other, "an ApproxDP (convert with .to_approx_dp(delta) first)")
        return ApproxDP(self.eps + other.eps, sp.Min(1, self.delta_ + other.delta_))

    def group(self, k: Any) -> ApproxDP:
        """Groups of size k: (k eps, delta (e^{k eps} - 1)/(e^eps - 1))-DP, capped at 1 (Dwork,
        Remark 4.5 as corrected in proofs/; k delta at eps = 0)."""
        k = param("k", k, lower=1, integer=True, owner="ApproxDP.group")
        e, d = self.eps, self.delta_
        factor = k if e.is_zero else (sp.exp(k * e) - 1) / (sp.exp(e) - 1)
        return ApproxDP(k * e, sp.Min(1, d * factor))



    def _sympystr(self, printer) -> str:
        return "ApproxDP(%s, %s)" % (printer._print(self.eps), printer._print(self.delta_))

    def _latex(self, printer) -> str:
        return r"(%s, %s)\text{-DP}" % (printer._print(self.eps), printer._print(self.delta_))


def advanced_composition(eps: Any, delta: Any, k: Any, delta_prime: Any, *,
                         improved: bool = False) -> ApproxDP:
    """Dwork, Thm. 4.1, Eq. (4.2): the k-fold composition of (eps, delta)-DP mechanisms is
    (sqrt(2 k ln(1/delta')) eps + c k eps (e^eps - 1), k delta + delta')-DP with c = 1, or
    c = 1/2 with ``improved=True`` (Remark 4.2). delta' in (0, 1]. A bound: compare with the
    exact ``ta.epsilon(EpsDelta(eps, delta)**k, k*delta + delta_prime)``."""
    e = param("eps", eps, lower=0, owner="advanced_composition")
    d = param("delta", delta, lower=0, upper=1, owner="advanced_composition")
    k = param("k", k, lower=1, integer=True, owner="advanced_composition")
    dp = param("delta_prime", delta_prime, lower=0, upper=1, lower_open=True,
               owner="advanced_composition")
    c = sp.S.Half if flag("improved", improved, "advanced_composition") else sp.S.One
    eps_k = sp.sqrt(2 * k * sp.log(1 / dp)) * e + c * k * e * (sp.exp(e) - 1)
    return ApproxDP(eps_k, sp.Min(1, k * d + dp))


def amplified_epsilon(eps_star: Any, p: Any) -> sp.Expr:
    """log(1 + p (e^{eps*} - 1)): the exact DP of Poisson subsampling with probability p of an
    eps*-DP algorithm (Dwork, Sec. 5.1; tight for randomized response on the presence bit).
    The same as ``epsilon(C(p, EpsDelta(eps_star, 0)), 0)`` (Dong, Roth & Su, Cor. 3)."""
    e = param("eps_star", eps_star, lower=0, owner="amplified_epsilon")
    q = param("p", p, lower=0, upper=1, owner="amplified_epsilon")
    return sp.log(1 + q * (sp.exp(e) - 1))


def sampling_rate(eps_star: Any, eps: Any, *, form: str = "tight") -> sp.Expr:
    """The sampling probability that turns an eps*-DP algorithm into an eps-DP one, eps <= eps*
    (Dwork, Thm. 5.1 as corrected in proofs/): ``form="tight"`` (e^eps - 1)/(e^{eps*} - 1),
    the largest such probability; ``form="bbkn"`` (e^eps - 1)/(e^{eps*} + e^eps - e^{eps -
    eps*} - 1), valid and smaller."""
    q = param("eps_star", eps_star, lower=0, lower_open=True, owner="sampling_rate")
    e = param("eps", eps, lower=0, owner="sampling_rate")
    if (e > q) is sp.true:
        raise InvalidParameter("eps", eps, f"a number in [0, eps_star] = [0, {brief(q)}]",
                               "sampling_rate")
    if choice("form", form, ("tight", "bbkn"), "sampling_rate") == "tight":
        return (sp.exp(e) - 1) / (sp.exp(q) - 1)
    if form == "bbkn":
        return (sp.exp(e) - 1) / (sp.exp(q) + sp.exp(e) - sp.exp(e - q) - 1)
    raise InvalidParameter("form", form, "'tight' or 'bbkn'", "sampling_rate")


# -- dual to primal (Dong, Roth & Su, Prop. 5) -------------------------------------------------
def from_privacy_profile(pairs: Iterable[tuple[Any, Any]] | Mapping[Any, Any]) -> TradeOff:
    """``max_i f_{eps_i, delta_i}``: the f of Dong, Roth & Su, Prop. 5 for finitely many pairs.

    A mechanism is (eps_i, delta_i)-DP for every i if and only if it is f-DP with this f.
    ``pairs`` is an iterable of ``(eps, delta)`` or a mapping ``{eps: delta}``; each pair is
    validated by :class:`EpsDelta` (eps >= 0, 0 <= delta <= 1). Returns a ``Max`` node (a
    single ``EpsDelta`` for one pair).
    """
    items = _items("pairs", pairs, "(eps, delta) pairs or a mapping {eps: delta}",
                   "from_privacy_profile", mapping=True)
    if not items:
        raise InvalidParameter("pairs", items, "at least one (eps, delta) pair",
                               "from_privacy_profile")
    fs = []
    for i, item in enumerate(items):
        try:
            e, d = item
        except (TypeError, ValueError) as exc:
            raise InvalidParameter(f"pairs[{i}]", item, "a pair (eps, delta)",
                                   "from_privacy_profile") from exc
        fs.append(EpsDelta(e, d))
    return Max(*fs)


def epsdelta_pair(f: Any) -> tuple[sp.Expr, sp.Expr] | None:
    """``(eps, delta)`` when ``f`` is the trade-off function f_{eps,delta} of (eps, delta)-DP
    (Dong, Roth & Su, Eq. (4)), else None."""
    return (f.eps, f.delta) if isinstance(f, EpsDelta) else None
