"""mu-GDP as a notion (Dong, Roth & Su, Def. 4).

``GDP(mu)``: its trade-off function is G_mu. ``@``: Cor. 2, sqrt(mu^2 + nu^2); ``group(k)``:
Thm. 3, k mu; ``to_zcdp()``: rho = mu^2/2 (the Renyi divergence of G_mu is a mu^2/2 at every
order a, Mironov 2017, Prop. 7), and conversely rho-zCDP does not imply any mu-GDP in
general (zCDP bounds only the Renyi divergences).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.validate import param
from ..families.gaussian import Gaussian
from .base import Notion
from .concentrated import zCDP

__all__ = ["GDP"]


class GDP(Notion):
    """mu-Gaussian differential privacy (Dong, Roth & Su, Def. 4); mu >= 0. ``delta(eps)`` is
    Cor. 1's profile of G_mu, ``epsilon(delta)`` its inverse."""

    def __new__(cls, mu: Any):
        return sp.Basic.__new__(cls, param("mu", mu, lower=0, owner="GDP"))

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    def to_tradeoff(self) -> Gaussian:
        return Gaussian(self.mu)

    def compose(self, other: Notion) -> GDP:
        """Dong, Roth & Su, Cor. 2: mu-GDP and nu-GDP compose to sqrt(mu^2 + nu^2)-GDP."""
        if not isinstance(other, GDP):
            raise self._refuse(other, "a GDP")
        return GDP(sp.sqrt(self.mu**2 + other.mu**2))

    def group(self, k: Any) -> GDP:
        """Dong, Roth & Su, Thm. 3 (Gaussian case): groups of size k are k mu-GDP."""
        k = param("k", k, lower=1, integer=True, owner="GDP.group")
        return GDP(k * self.mu)

    def to_zcdp(self):
        """mu-GDP implies (mu^2/2)-zCDP: D_a(N(0,1) || N(mu,1)) = a mu^2/2 (Mironov 2017,
        Prop. 7), for both orders of the pair."""
        return zCDP(self.mu**2 / 2)



    def _sympystr(self, printer) -> str:
        return "GDP(%s)" % printer._print(self.mu)

    def _latex(self, printer) -> str:
        return r"%s\text{-GDP}" % printer._print(self.mu)
