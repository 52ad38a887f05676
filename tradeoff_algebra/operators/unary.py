"""Unary operators on one trade-off function: inverse, symmetrisation, symmetric hull.

* ``Inverse(f)``: f^{-1}(alpha) = inf{t in [0,1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)),
  the trade-off function of the swapped pair: T(P,Q)^{-1} = T(Q,P).
* ``Symmetrize(f)``: f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2 discussion).
* ``SymmetricHull(f)``: C(f) = min{f, f^{-1}}^{**}, the lower convex envelope of the pointwise
  minimum (Wang, Su, Ye, Shokri & Su, Sec. 2; Dong, Roth & Su, Def. 6 uses it for C_p).
"""

from __future__ import annotations

from typing import Any

from ..core.node import PREC_ATOM, PREC_POSTFIX, TradeOff, register_operator
from ._base import operand

__all__ = ["Inverse", "Symmetrize", "SymmetricHull"]


@register_operator
class Inverse(TradeOff):
    """f^{-1} (Dong, Roth & Su, Eq. (3)); ``f.inverse()``."""

    _precedence = PREC_POSTFIX

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "Inverse"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool | None:
        return self.arg.is_symmetric

    def _eval_inverse(self):
        return self.arg

    def _eval_at(self, alpha):
        g = self.arg._eval_inverse()
        return None if g is None or isinstance(g, Inverse) else g._eval_at(alpha)

    def _latex(self, printer):
        return r"%s^{-1}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class Symmetrize(TradeOff):
    """f^S = max{f, f^{-1}} (Dong, Roth & Su, Sec. 2.3)."""

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "Symmetrize"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"%s^{\mathrm{S}}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class SymmetricHull(TradeOff):
    """C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 2)."""

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, "SymmetricHull"))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"\mathcal{C}\left(%s\right)" % printer._print(self.arg)


# -- numeric evaluation: an inverse with a closed form evaluates as that closed form --------------
def _closed_inverse(f: Inverse) -> TradeOff:
    from ..numeric.protocol import _no_route

    g = f.arg._eval_inverse()
    if g is None or isinstance(g, Inverse):
        raise _no_route(f, "evaluation")
    return g


def _register_inverse_numerics() -> None:
    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value

    mp_value.register(Inverse)(lambda f, a, ac: mp_value(_closed_inverse(f), a, ac))
    mp_roc.register(Inverse)(lambda f, a, ac: mp_roc(_closed_inverse(f), a, ac))
    np_value.register(Inverse)(lambda f, x: np_value(_closed_inverse(f), x))

    @exact_value.register(Inverse)
    def _(f, A, Ac):
        g = f.arg._eval_inverse()
        return None if g is None or isinstance(g, Inverse) else exact_value(g, A, Ac)


_register_inverse_numerics()
