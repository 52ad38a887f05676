"""The Neyman-Pearson tails of BinomialDP(eps, n) = f_{eps,0}^{(x) n} for the vertex reading of
``numeric.lattice_np``: a whole curve from one window of binomial masses.

Under Q the count K of the outcomes Q favours is Bin(n, p), p = e^eps/(1 + e^eps), under P it is
Bin(n, 1 - p), and the loss is eps (2 K - n) (Dong, Roth & Su, Sec. 3.3; Kairouz, Oh &
Viswanath): a lattice law. The masses q_k = C(n, k) p^k (1 - p)^{n - k} over a window [k_lo,
k_hi] around the levels' thresholds come from one Arb ball at k_lo (log-gamma functions) and
the exact ratio q_{k+1}/q_k = e^eps (n - k)/(k + 1), the P-masses from q_k e^{-eps (2k - n)},
and the tails above the window from two regularised incomplete beta functions
(``numeric.binomial_cdf``): Q(K >= k) and P(K >= k) for k in the window are those plus suffix
sums, each a ball that holds the exact value. Outside the window a tail is asked of the
incomplete beta functions directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import sympy as sp
from flint import arb

from ..numeric import budget
from ..numeric.arb_expr import arb_ball
from ..numeric.binomial_cdf import binom_sf_ball
from ..numeric.cf_laws import working_precision
from ..numeric.lattice_np import NPTails
from .binomial_loss import float_p

__all__ = ["BinomialTails", "binomial_np_tails"]

#: Standard deviations of the P-law added on each side of the levels' thresholds.
MARGIN_SD = 12
#: The most masses a window holds (beyond: None, the points answer).
MAX_WINDOW = 400_000


class BinomialTails(NPTails):
    """Tails of BinomialDP(eps, n) on the window [k_lo, k_hi] (module docstring)."""

    def __init__(self, eps: sp.Expr, n: int, k_lo: int, k_hi: int, prec: int) -> None:
        self.n, self.lo, self.hi, self.prec = n, k_lo, k_hi, prec
        self.singular = arb(0)
        with working_precision(prec + 64 + max(k_hi - k_lo, 1).bit_length()):
            self.e = arb_ball(sp.S(eps))
            E = self.e.exp()
            self.p = E / (1 + E)
            self.pc = 1 / (1 + E)  # 1 - p, without cancellation
            k = arb(k_lo)
            N = arb(n)
            log_q = ((N + 1).lgamma() - (k + 1).lgamma() - (N - k + 1).lgamma()
                     + k * self.p.log() + (N - k) * self.pc.log())
            q = log_q.exp()
            qs, ps = [], []
            for j in range(k_lo, k_hi + 1):
                if not (j - k_lo) & 1023:
                    budget.check()
                qs.append(q)
                ps.append(q * (-self.e * (2 * j - n)).exp())
                q = q * E * (n - j) / (j + 1)
            self.q_top = binom_sf_ball(k_hi + 1, n, self.p)
            self.p_top = binom_sf_ball(k_hi + 1, n, self.pc)
            m = len(qs)
            self._q, self._p = [arb(0)] * (m + 1), [arb(0)] * (m + 1)
            aq, ap = self.q_top, self.p_top
            self._q[m], self._p[m] = aq, ap
            for i in range(m - 1, -1, -1):
                aq, ap = aq + qs[i], ap + ps[i]
                self._q[i], self._p[i] = aq, ap
        self._pf = np.array([float(v.mid()) for v in self._p])

    def loss(self, s: int) -> arb:
        return self.e * (2 * s - self.n)

    def tails(self, s: int) -> tuple[arb, arb]:
        if self.lo <= s <= self.hi + 1:
            i = s - self.lo
            return self._q[i], self._p[i]
        return binom_sf_ball(s, self.n, self.p), binom_sf_ball(s, self.n, self.pc)

    def p_float(self) -> np.ndarray:
        return self._pf


def binomial_np_tails(eps: sp.Expr, n: int, alphas: Sequence[float],
                      rel: float) -> BinomialTails | None:
    """The tails of BinomialDP(eps, n) on a window holding the thresholds of the levels
    ``alphas`` (0 < alpha < 1; normal approximation of the P-law, :data:`MARGIN_SD` more on
    each side), at a precision for the relative width ``rel``; None for eps = 0 or a window
    beyond :data:`MAX_WINDOW`."""
    e = float(sp.S(eps))
    if not e > 0 or n < 1:
        return None
    pc = float_p(e)
    mean, sd = n * pc, math.sqrt(n * pc * (1 - pc))
    nd = NormalDist()
    zs = [-nd.inv_cdf(min(max(float(a), 1e-300), 1 - 1e-16)) for a in alphas] or [0.0]
    k_lo = max(math.floor(mean + (min(zs) - MARGIN_SD) * sd) - 2, 0)
    k_hi = min(math.ceil(mean + (max(zs) + MARGIN_SD) * sd) + 2, n)
    if k_hi - k_lo + 1 > MAX_WINDOW:
        return None
    prec = 64 + int(-math.log2(max(rel, 1e-300)))
    return BinomialTails(sp.S(eps), n, k_lo, k_hi, prec)
