"""Concrete trade-off functions offered as substitutes for trade-off symbols.

``verify`` on a claim about an arbitrary trade-off function (``core/symbol.py``) looks for a
certified counterexample among these, each used only for the symbols whose declared properties
it has (symmetric: f = f^{-1}, Dong, Roth & Su, Sec. 2.1; tight: f(0) = 1). They cover the
shapes the papers' statements distinguish: smooth (G_1, Eq. (5)), piecewise linear with kinks
(f_{1,0} and f_{1,1/10}, Eq. (4)), a Laplace pair with atoms in its privacy loss (L_2,
Prop. 7), and two asymmetric finite pairs, with f(0) = 1 and with f(0) = 1/4. Id and Zero are
registered as the extremes the rules valid for every f return (Sec. 2.1: 0 <= f <= Id).
"""

from __future__ import annotations

import sympy as sp

from ..core.symbol import EXTREMES, register_instance
from .discrete import Discrete
from .epsdelta import EpsDelta
from .gaussian import G
from .laplace import Laplace
from .trivial import Id, Zero

__all__: list[str] = []

_R = sp.Rational

EXTREMES.update(Id=Id, Zero=Zero)
register_instance(G(1), symmetric=True, tight=True)
register_instance(Discrete([_R(3, 4), _R(1, 4)], [0, 1]), symmetric=False, tight=True)
register_instance(Discrete([_R(1, 2), _R(1, 2), 0], [0, _R(1, 4), _R(3, 4)]), symmetric=False,
                  tight=False)
register_instance(EpsDelta(1, 0), symmetric=True, tight=True)
register_instance(EpsDelta(1, _R(1, 10)), symmetric=True, tight=False)
register_instance(Laplace(2), symmetric=True, tight=True)
