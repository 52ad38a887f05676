"""The privacy loss of f_{eps,0}^{(x) n} = T(B(n, p), B(n, q)) for the PLD grid at large n (Dong,
Roth & Su, Sec. 3.3): the binomial distribution functions in place of n + 1 atoms (registered for
:class:`~.binomial.BinomialDP` by ``families/binomial.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..numeric.privacy_loss import RHO_LIB, U64, PrivacyLoss


def float_p(eps0: float) -> float:
    """p = 1/(1 + e^eps0), the P-probability of a success of f_{eps0,0} (Dong, Roth & Su,
    Sec. 3.3), in floats without overflow: e^{-eps0}/(1 + e^{-eps0}) for eps0 > 0 (0.0 past
    eps0 ~ 745, where 1/(1 + math.exp(eps0)) raised OverflowError from eps0 ~ 710 on)."""
    e0 = float(eps0)
    if e0 > 0:
        return math.exp(-e0 - math.log1p(math.exp(-e0)))
    return 1.0 / (1.0 + math.exp(e0))

__all__ = ["BinomialLoss"]


class BinomialLoss(PrivacyLoss):
    """f_{eps,0}^{(x) n} = T(B(n, p), B(n, q)), p = 1/(1 + e^eps), q = 1 - p (Dong, Roth & Su,
    Sec. 3.3): the loss of K successes is ``eps (2K - n)``, so ``M(L <= t) = M(K <= k(t))``
    with ``k(t) = floor((t/eps + n)/2)`` (``left``: ``M(L < t) = M(K <= ceil((t/eps + n)/2) -
    1)``), K ~ B(n, p) under P and B(n, q) under Q. The distribution functions are
    ``scipy.stats.binom`` (Boost's incomplete beta), whose relative error grows like n times
    the unit roundoff (measured below 3e-10 at n = 10^9 against exact tail sums); the bound
    ``rel_err`` takes 16 n u, far above it. For large n, where n + 1 atoms would be costly."""

    def __init__(self, eps: float, n: int, exact: Any = None,
                 check: Callable[[], None] | None = None):
        if not (eps > 0 and math.isfinite(eps)) or n < 1:
            raise ValueError("BinomialLoss needs 0 < eps < oo and n >= 1")
        self.eps, self.n = float(eps), int(n)
        self.p = float_p(self.eps)
        self._exact, self._check = exact, check

    def grid(self) -> BinomialLoss:
        """The float view, for n up to the family's limit (``check``: else NumericalError naming
        n)."""
        if self._check is not None:
            self._check()
        return self

    def exact(self):
        """The exact atoms (n + 1 of them, built lazily by the finite engine)."""
        return self._exact

    def _k(self, t, left: bool):
        x = (np.asarray(t, dtype=np.float64) / self.eps + self.n) / 2
        with np.errstate(invalid="ignore"):
            k = np.ceil(x) - 1 if left else np.floor(x)
        return np.clip(np.nan_to_num(k, nan=0.0, posinf=self.n, neginf=-1.0), -1.0, self.n)

    def cdf(self, t, which, left=False):
        from scipy.stats import binom

        k = self._k(t, left)
        prob = self.p if which == "P" else 1.0 - self.p
        # a fine grid has many cuts between two atoms: each distinct k is evaluated once
        ku, inv = np.unique(k, return_inverse=True)
        inside = (ku >= 0) & (ku < self.n)
        Fu = np.where(ku < 0, 0.0, 1.0)
        Su = 1.0 - Fu
        Fu[inside] = binom.cdf(ku[inside], self.n, prob)
        Su[inside] = binom.sf(ku[inside], self.n, prob)
        inv = inv.reshape(k.shape)
        return Fu[inv], Su[inv]

    @property
    def rel_err(self) -> float:
        return RHO_LIB + 16 * U64 * self.n * max(1.0, self.eps)

    def edge_err(self, t):
        # the cut (t/eps + n)/2 is rounded (relative u each step) and eps is a float (relative
        # u): in loss units at most 4u (|t| + n eps)
        fin = np.asarray(t)[np.isfinite(t)]
        tm = float(np.max(np.abs(fin), initial=0.0))
        return 8 * U64 * (tm + self.n * self.eps + 1.0)

    def support(self, tau):
        from scipy.stats import binom

        # the lowest loss from the lower tail of K under P; the law under Q is its mirror
        # image (K -> n - K), so the highest loss is minus it
        lo = self.eps * (2 * float(binom.ppf(tau, self.n, self.p)) - self.n)
        return lo, -lo

    def heavy_atoms(self):
        return [(self.eps, 1.0)]  # every loss is a multiple of eps
