"""Mechanisms under add/remove neighbours: the two directions composed together.

Under add/remove neighbours a mechanism has two trade-off functions: f = T(M(D), M(D')) for
removing a record (D' = D minus one record) and f^{-1} = T(M(D'), M(D)) for adding it. A
k-fold composition of such mechanisms, run on the same pair of neighbouring datasets in
every step, has the directions f_1 (x) ... (x) f_k and (f_1 (x) ... (x) f_k)^{-1} (Dong, Roth &
Su, Sec. 3.1, property 4), so it is C(f_1 (x) ... (x) f_k)-DP, C the symmetric hull
(Wang et al., Sec. 2; Dong, Roth & Su, Prop. 2 for the lower convex envelope).

``AddRemove(f)`` is that trade-off function, ``C(f)``, as a node that remembers it came from
a mechanism: its value is the symmetric hull's (it is a ``SymmetricHull``, and every numeric
route of the hull serves it), and ``@`` and ``**`` compose the *mechanisms*:

* ``AddRemove(f) @ AddRemove(g) = AddRemove(f (x) g)``;
* ``AddRemove(f) @ g = AddRemove(f (x) g)`` for a symmetric g (g = g^{-1}: both directions of
  the mechanism are g, as for the Gaussian mechanism G_mu);
* ``AddRemove(f) ** k = AddRemove(f^{(x) k})``.

``C(f) (x) C(g)`` built explicitly (``SymmetricHull(f) @ SymmetricHull(g)``) stays that
product: a valid but looser bound (it allows the worst direction of each step separately).
"""

from __future__ import annotations

from typing import Any

from ..core.node import TradeOff, register_operator
from .tensor import Tensor, TensorPower
from .unary import SymmetricHull

__all__ = ["AddRemove"]


@register_operator
class AddRemove(SymmetricHull):
    """C(f) for a mechanism under add/remove neighbours with remove direction f (module
    docstring); ``@`` and ``**`` compose mechanisms, pairing the directions."""

    _composes_as_mechanism = True

    def __matmul__(self, other: Any) -> TradeOff:
        if isinstance(other, AddRemove):
            return AddRemove(Tensor(self.arg, other.arg))
        if isinstance(other, TradeOff) and other.is_symmetric is True:
            return AddRemove(Tensor(self.arg, other))
        return super().__matmul__(other)

    def __rmatmul__(self, other: Any) -> TradeOff:
        if isinstance(other, TradeOff) and other.is_symmetric is True:
            return AddRemove(Tensor(other, self.arg))
        if isinstance(other, TradeOff):
            return Tensor(other, self)
        return NotImplemented

    def __pow__(self, n: Any) -> TradeOff:
        return AddRemove(TensorPower(self.arg, n))
