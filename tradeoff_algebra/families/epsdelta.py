"""The (epsilon, delta)-DP trade-off function f_{eps,delta}.

Dong, Roth & Su, Eq. (5): ``f_{eps,delta}(alpha) = max{0, 1 - delta - e^eps alpha,
e^{-eps}(1 - delta - alpha)}``; it is symmetric, piecewise linear with a kink at its fixed point
``(1 - delta)/(1 + e^eps)`` and zero on ``[1 - delta, 1]``. It is the trade-off function of the
four-point pair of Dong, Roth & Su, Prop. 3 (used by the tests as an independent route).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath import mp

from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value, num

__all__ = ["EpsDelta"]


class EpsDelta(TradeOff):
    """f_{eps,delta} with eps >= 0 and 0 <= delta <= 1 (Dong, Roth & Su, Eq. (5))."""

    def __new__(cls, eps: Any, delta: Any = 0):
        eps = param("eps", eps, lower=0, owner="EpsDelta")
        delta = param("delta", delta, lower=0, upper=1, owner="EpsDelta")
        return TradeOff.__new__(cls, eps, delta)

    @property
    def eps(self) -> sp.Expr:
        return self.args[0]

    @property
    def delta(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        e, d = sp.exp(self.eps), self.delta
        kink = (1 - d) / (1 + e)
        # strict inequalities: the same values (f is continuous), and ``derivative`` then gives
        # the right derivative at the kinks (TradeOff.derivative)
        return sp.Piecewise((1 - d - e * alpha, alpha < kink),
                            ((1 - d - alpha) / e, alpha < 1 - d),
                            (sp.S.Zero, True))

    def _eval_fixed_point(self):
        return (1 - self.delta) / (1 + sp.exp(self.eps))

    def _sympystr(self, printer):
        return "EpsDelta(%s, %s)" % (printer._print(self.eps), printer._print(self.delta))

    def _latex(self, printer):
        return r"f_{%s,%s}" % (printer._print(self.eps), printer._print(self.delta))


@exact_value.register(EpsDelta)
def _(f, A, Ac):
    e = sp.exp(f.eps)
    if not (isinstance(e, sp.Rational) and isinstance(f.delta, sp.Rational)):
        return None
    d = f.delta
    return max(sp.S.Zero, 1 - d - e * A, (Ac - d) / e)


@mp_value.register(EpsDelta)
def _(f, a, ac):
    eps, d = num(f.eps, "eps"), num(f.delta, "delta")
    v = max(mp.zero, 1 - d - mpmath.exp(eps) * a, mpmath.exp(-eps) * (ac - d))
    return v, v


@mp_roc.register(EpsDelta)
def _(f, a, ac):
    eps, d = num(f.eps, "eps"), num(f.delta, "delta")
    # 1 - e^{-eps}(1 - d - a) = -expm1(-eps) + e^{-eps}(d + a)
    v = min(mp.one, d + mpmath.exp(eps) * a, -mpmath.expm1(-eps) + mpmath.exp(-eps) * (d + a))
    return v, v


@np_value.register(EpsDelta)
def _(f, x):
    e, d = float(sp.exp(f.eps)), float(f.delta)
    return np.maximum(0.0, np.maximum(1 - d - e * x, ((1.0 - x) - d) / e))
