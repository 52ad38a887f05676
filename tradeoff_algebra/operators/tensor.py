"""The tensor product f (x) g: composition of mechanisms (Dong, Roth & Su, Def. 5).

``T(P, Q) (x) T(P', Q') = T(P x P', Q x Q')``; the product is well defined, commutative and
associative with unit Id (Prop. 4). Construction flattens nested tensors and sorts the factors
(cheap canonicalisation); it does not simplify.
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_POSTFIX, PREC_TENSOR, TradeOff, register_operator
from ..core.validate import param
from ._base import all_symmetric, operand, sorted_operands

__all__ = ["Tensor", "TensorPower"]


def _str_exponent(printer, n) -> str:
    s = printer._print(n)
    return s if (n.is_Atom or n.is_Function) else "(%s)" % s


@register_operator
class Tensor(TradeOff):
    """f_1 (x) f_2 (x) ... (x) f_n (Dong, Roth & Su, Def. 5); ``f @ g``."""

    _precedence = PREC_TENSOR

    def __new__(cls, *factors: Any):
        flat: list[TradeOff] = []
        for f in factors:
            f = operand(f, "Tensor")
            flat.extend(f.args if isinstance(f, Tensor) else (f,))
        if len(flat) == 1:
            return flat[0]
        if not flat:
            from ..families.trivial import Id

            return Id
        return TradeOff.__new__(cls, *sorted_operands(flat))

    @property
    def factors(self) -> tuple[TradeOff, ...]:
        return self.args

    @property
    def is_symmetric(self) -> bool | None:
        # The product of symmetric trade-off functions is symmetric (Dong, Roth & Su, Sec. 3.1).
        return True if all_symmetric(self.args) else None

    def _sympystr(self, printer):
        return " @ ".join(self._str_parens(printer, f, PREC_TENSOR + 1) for f in self.args)

    def _latex(self, printer):
        return r" \otimes ".join(self._latex_parens(printer, f, PREC_TENSOR + 1)
                                 for f in self.args)


@register_operator
class TensorPower(TradeOff):
    """f^{(x) n}: n-fold composition, n a non-negative integer or an integer symbol; ``f ** n``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, base: Any, n: Any):
        base = operand(base, "TensorPower", "base")
        n = param("n", n, lower=0, integer=True, owner="TensorPower")
        return TradeOff.__new__(cls, base, n)

    @property
    def base(self) -> TradeOff:
        return self.args[0]

    @property
    def n(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool | None:
        return True if self.base.is_symmetric else None

    def _sympystr(self, printer):
        return "%s**%s" % (self._str_parens(printer, self.base, PREC_POSTFIX + 1),
                           _str_exponent(printer, self.n))

    def _latex(self, printer):
        return r"%s^{\otimes %s}" % (self._latex_parens(printer, self.base, PREC_POSTFIX + 1),
                                     printer._print(self.n))
