"""The Gaussian trade-off function G_mu = T(N(0,1), N(mu,1)).

Dong, Roth & Su, "Gaussian differential privacy", Def. 3 (Eq. (4)):
``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``. It is symmetric (Prop. 2 / Sec. 2.4), its fixed
point is ``Phi(-mu/2)`` and ``G_mu'(alpha) = -exp(mu Phi^{-1}(1-alpha) - mu^2/2)``.
Numerically ``Phi^{-1}(1 - alpha)`` is taken as ``-Phi^{-1}(alpha)`` for alpha <= 1/2 and
as ``Phi^{-1}(1 - alpha)`` from the exact complement otherwise, so both tails keep their digits;
the power ``1 - G_mu(alpha) = Phi(mu - Phi^{-1}(1 - alpha))`` is computed directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from scipy import special

from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.validate import param
from ..numeric.normal import ncdf, ncdf_inv, ncdf_inv_upper
from ..numeric.protocol import mp_roc, mp_value, np_value, num

__all__ = ["Gaussian", "G"]


class Gaussian(TradeOff):
    """G_mu: the trade-off between N(0,1) and N(mu,1), mu >= 0 (Dong, Roth & Su, Def. 3)."""

    def __new__(cls, mu: Any):
        mu = param("mu", mu, lower=0, owner="Gaussian")
        return TradeOff.__new__(cls, mu)

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        return Phi(PhiInv(1 - alpha) - self.mu)

    def _eval_derivative_at(self, alpha):
        mu = self.mu
        return -sp.exp(mu * PhiInv(1 - alpha) - mu**2 / 2)

    def _eval_fixed_point(self):
        return Phi(-self.mu / 2)

    def _sympystr(self, printer):
        return "G(%s)" % printer._print(self.mu)

    def _latex(self, printer):
        return "G_{%s}" % printer._print(self.mu)


#: The papers' short name.
G = Gaussian


def _quantile_upper(a, ac):
    """Phi^{-1}(1 - alpha) from (alpha, 1 - alpha), accurate in both tails."""
    return ncdf_inv_upper(a) if a <= ac else ncdf_inv(ac)


@mp_value.register(Gaussian)
def _(f, a, ac):
    v = ncdf(_quantile_upper(a, ac) - num(f.mu, "mu"))
    return v, v


@mp_roc.register(Gaussian)
def _(f, a, ac):
    v = ncdf(num(f.mu, "mu") - _quantile_upper(a, ac))
    return v, v


@np_value.register(Gaussian)
def _(f, x):
    mu = float(f.mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(x <= 0.5, -special.ndtri(x), special.ndtri(1.0 - x))
        return special.ndtr(z - mu)
