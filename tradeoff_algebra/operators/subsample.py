"""Subsampling and mixing with the identity.

* ``Mix(f, p)``: f_p = p f + (1 - p) Id (Dong, Roth & Su, Sec. 4.1 / Eq. (13)), the trade-off
  of sampling with probability p under one of the two directions.
* ``Subsample(f, p)`` = ``C(p, f)``: C_p(f) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6),
  the subsampling operator of Thm. 9.
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_ATOM, TradeOff, register_operator
from ..core.validate import param
from ._base import operand

__all__ = ["Mix", "Subsample", "C"]


@register_operator
class Mix(TradeOff):
    """f_p = p f + (1 - p) Id, 0 <= p <= 1 (Dong, Roth & Su, Sec. 4.1)."""

    def __new__(cls, f: Any, p: Any):
        f = operand(f, "Mix")
        p = param("p", p, lower=0, upper=1, owner="Mix")
        return TradeOff.__new__(cls, f, p)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def p(self):
        return self.args[1]

    def _eval_at(self, alpha):
        v = self.arg._eval_at(alpha)
        return None if v is None else self.p * v + (1 - self.p) * (1 - alpha)

    def _latex(self, printer):
        return r"%s_{%s}" % (self._latex_parens(printer, self.arg, PREC_ATOM + 1),
                             printer._print(self.p))


@register_operator
class Subsample(TradeOff):
    """C_p(f) = min{f_p, f_p^{-1}}^{**}, 0 <= p <= 1 (Dong, Roth & Su, Def. 6)."""

    def __new__(cls, f: Any, p: Any):
        f = operand(f, "Subsample")
        p = param("p", p, lower=0, upper=1, owner="Subsample")
        return TradeOff.__new__(cls, f, p)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def p(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer):
        return "C(%s, %s)" % (printer._print(self.p), printer._print(self.arg))

    def _latex(self, printer):
        return r"C_{%s}\left(%s\right)" % (printer._print(self.p), printer._print(self.arg))


def C(p: Any, f: Any) -> Subsample:
    """The papers' notation C_p(f) for ``Subsample(f, p)``."""
    return Subsample(f, p)
