"""The base class of privacy notions other than f-DP.

A notion is an immutable SymPy ``Basic`` holding its parameters in ``args`` (so ``subs``,
equality, hashing and pickling work as for trade-off expressions), printed in the papers'
notation, composed with ``@`` (each class states the composition theorem it applies) and
converted to (eps, delta) and to trade-off functions by the methods each class documents.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..analysis.conversions import delta as _delta
from ..analysis.conversions import epsilon as _epsilon
from ..core.errors import InvalidParameter
from ..numeric.value import Value

__all__ = ["Notion"]


class Notion(sp.Basic):
    """A privacy guarantee: ``ApproxDP``, ``GDP``, ``RDP``, ``zCDP``, ``tCDP``."""

    def __matmul__(self, other: Any) -> Notion:
        if not isinstance(other, Notion):
            return NotImplemented
        return self.compose(other)

    def compose(self, other: Notion) -> Notion:  # pragma: no cover - every class overrides
        raise NotImplementedError

    def to_tradeoff(self):  # pragma: no cover - every class overrides
        raise NotImplementedError

    def delta(self, eps: Any, dps: int = 30) -> Value:
        """The smallest delta' with (eps, delta')-DP implied: the profile of
        :meth:`to_tradeoff` (Dong, Roth & Su, Prop. 6)."""
        return _delta(self.to_tradeoff(), eps, dps=dps)

    def epsilon(self, delta: Any, dps: int = 30) -> Value:
        """The smallest eps' with (eps', delta)-DP implied (the profile of
        :meth:`to_tradeoff`)."""
        return _epsilon(self.to_tradeoff(), delta, dps=dps)

    def _refuse(self, other: Notion, what: str) -> InvalidParameter:
        return InvalidParameter("other", other, what, f"{type(self).__name__}.compose")

    def __str__(self) -> str:
        return sp.sstr(self)

    __repr__ = __str__

    def _repr_latex_(self) -> str:
        return "$\\displaystyle %s$" % sp.latex(self)
