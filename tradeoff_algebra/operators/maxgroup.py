"""Pointwise maximum and group privacy.

* ``Max(f, g, ...)``: the pointwise maximum, a trade-off function; an (eps, delta) family is
  the maximum of the f_{eps_i,delta_i} of its members (Dong, Roth & Su, Prop. 5 (primal-dual)).
* ``Group(f, k)``: 1 - (1 - f)^{o k}, the guarantee for groups of size k (Dong, Roth & Su,
  Thm. 3), where ``o k`` is k-fold functional composition.
"""

from __future__ import annotations

from typing import Any

from ..core.node import TradeOff, register_operator
from ..core.validate import param
from ._base import all_symmetric, operand, sorted_operands

__all__ = ["Max", "Group"]

PREC_GROUP = 5


@register_operator
class Max(TradeOff):
    """max{f_1, ..., f_n} pointwise (Dong, Roth & Su, Prop. 5)."""

    def __new__(cls, *fs: Any):
        flat: list[TradeOff] = []
        for f in fs:
            f = operand(f, "Max")
            flat.extend(f.args if isinstance(f, Max) else (f,))
        unique = list(dict.fromkeys(flat))
        if not unique:
            from ..core.errors import InvalidParameter

            raise InvalidParameter("fs", fs, "at least one trade-off function", "Max")
        if len(unique) == 1:
            return unique[0]
        return TradeOff.__new__(cls, *sorted_operands(unique))

    @property
    def is_symmetric(self) -> bool | None:
        return True if all_symmetric(self.args) else None

    def _latex(self, printer):
        return r"\max\left\{%s\right\}" % ", ".join(printer._print(f) for f in self.args)


@register_operator
class Group(TradeOff):
    """1 - (1 - f)^{o k}: f-DP for groups of size k >= 1 (Dong, Roth & Su, Thm. 3)."""

    _precedence = PREC_GROUP

    def __new__(cls, f: Any, k: Any):
        f = operand(f, "Group")
        k = param("k", k, lower=1, integer=True, owner="Group")
        return TradeOff.__new__(cls, f, k)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def k(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool | None:
        # Symmetry is preserved by the group operation (Dong, Roth & Su, Appendix A).
        return True if self.arg.is_symmetric else None

    def _latex(self, printer):
        # a nested group needs its own parentheses: 1 - (1 - (1 - (1 - f)^{o 2}))^{o 3}
        return r"1 - \left(1 - %s\right)^{\circ %s}" % (
            self._latex_parens(printer, self.arg, PREC_GROUP + 1),
            self._latex_exponent(printer, self.k))
