"""The convex conjugate f^*(y) = sup_alpha { y alpha - f(alpha) } (Dong, Roth & Su, Eq. (7)).

f^* is a convex function on R, not a trade-off function; it is the bridge to (eps, delta):
delta(eps) = 1 + f^*(-e^eps) (Prop. 6).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.node import PREC_ATOM, PREC_POSTFIX, Applied, TradeOffExpr, register_operator
from ..core.validate import param
from ._base import operand

__all__ = ["Conjugate"]


@register_operator
class Conjugate(TradeOffExpr):
    """f^* (Dong, Roth & Su, Eq. (7)); ``f.conjugate()``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, f: Any):
        return TradeOffExpr.__new__(cls, operand(f, "Conjugate"))

    @property
    def arg(self):
        return self.args[0]

    def __call__(self, y: Any) -> sp.Expr:
        return Applied(self, param("y", y))

    def _latex(self, printer):
        return r"%s^{*}" % self._latex_parens(printer, self.arg, PREC_ATOM)
