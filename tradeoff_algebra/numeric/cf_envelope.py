"""A rigorous decay envelope for the certified Laplace inversion (:mod:`.cf`): an upper bound of
D(t) = sup_{t' >= t} |M(c + it')| for the moment generating function M of a loss law whose
support lies in an interval [l0, l1] of width W, from three proved pieces.

* Small t (the variance bound). With nu the tilted probability measure e^{cx} dmu(x) / M(c),
  |M(c + it)|^2 / M(c)^2 = |E_nu e^{itX}|^2 = 1 - 2 E[sin^2(t (X - Y) / 2)] (X, Y independent
  under nu). For |t| W <= 2 pi, |t (X - Y) / 2| <= theta_0 = |t| W / 2 <= pi, and sin(x) / x
  decreases on [0, pi], so sin^2(t (X - Y) / 2) >= (t (X - Y) / 2)^2 (sin theta_0 / theta_0)^2
  and, with E (X - Y)^2 = 2 Var_nu X,

      |M(c + it)| <= M(c) sqrt(1 - Var_nu(X) s(t)^2),   s(t) = 2 sin(t W / 2) / W,

  s increasing on [0, pi / W]: the bound at t holds for every t' in [t, pi / W].
* Middle t (a proved grid). t -> |M(c + it)| is Lipschitz with constant L = (W / 2) M(c):
  |M(c + it)| = |e^{-itm} M(c + it)| with m the midpoint of [l0, l1], and the derivative of
  e^{-itm} M(c + it) = E_mu[e^{cX} e^{it(X - m)}] in t has modulus at most
  E_mu[|X - m| e^{cX}] <= (W / 2) M(c) (the modulus is 1-Lipschitz).
  On a cell [t_j, t_{j+1}] of length h the value is at most min(m_j + L (t - t_j),
  m_{j+1} + L (t_{j+1} - t)) <= (m_j + m_{j+1} + L h) / 2, m_j upper ends of Arb balls of
  |M(c + it_j)| at exact float t_j.
* Large t: a bound ``tail(t)`` of the law valid for every t' >= t (non-increasing; for the
  Poisson-subsampled Laplace mechanism, atoms plus a piecewise integration by parts).

The grid starts at pi / W and ends where the tail bound falls below the level the cells reached
(or at ``max_evals`` evaluations); its steps keep the cells below ``theta`` M(c) (or halfway
from |M(c + it_j)| to M(c) where that is higher) (a level the
caller derives from the number of factors: any level gives a valid envelope, a coarse one only a
later truncation).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable

from flint import acb, arb

from .cf_laws import lower, upper

__all__ = ["DecayEnvelope"]


class DecayEnvelope:
    """D(t) >= sup_{t' >= t} |M(c + it')| (see the module), built at the current Arb precision.

    ``mgf(z)`` encloses M(z); ``m0`` is a ball of M(c); ``width`` a ball of W; ``var`` a ball
    whose lower end is at most Var_nu (0 for none); ``tail(t)`` an upper bound of |M(c + it')|
    for every t' >= t (an Arb ball, non-increasing in t)."""

    def __init__(self, mgf: Callable[[acb], acb], c: float, m0: arb, width: arb, var: arb,
                 tail: Callable[[float], arb], theta: float, max_evals: int = 48) -> None:
        self.c, self.theta = c, theta
        self._m0 = upper(m0)
        self._w = upper(width)
        self._var = max(0.0, lower(var))
        self._tail = tail
        lip = upper(arb(self._w) / 2 * arb(self._m0))
        self._t0 = lower(arb.pi() / arb(self._w))  # (a float at most pi / W)
        ts = [self._t0]
        ms = [upper(abs(mgf(acb(c, self._t0))))]
        cells: list[float] = []
        level = theta * self._m0
        if not (math.isfinite(self._m0) and lip > 0):  # (M(c) beyond the floats: no grid)
            max_evals = 0
        while len(ts) <= max_evals:
            t, m = ts[-1], ms[-1]
            if upper(tail(t)) <= max([level] + cells):
                break
            # the cell is at most m + L h (m' <= m + L h): h = (theta M(c) - m) / L keeps it
            # below the level, and at least halves the gap to M(c)
            step = max(level - m, (self._m0 - m) / 2, 1e-3 * self._m0) / lip
            t2 = t + step
            m2 = upper(abs(mgf(acb(c, t2))))
            cells.append(min(self._m0, upper((arb(m) + arb(m2) + arb(lip) * (arb(t2) - arb(t)))
                                             / 2)))
            ts.append(t2)
            ms.append(m2)
        self._ts = ts
        self._end = upper(tail(ts[-1]))
        # suffix maxima: the cells from j on and the tail from the grid's end
        suf = [self._end] * (len(cells) + 1)
        for j in range(len(cells) - 1, -1, -1):
            suf[j] = max(cells[j], suf[j + 1])
        self._suffix = suf
        self.evaluations = len(ts)

    def bound(self, t: float) -> float:
        """A float >= sup_{t' >= t} |M(c + it')|, t >= 0 exact."""
        t = abs(t)
        if t >= self._ts[-1]:
            return min(self._m0, upper(self._tail(t)))
        if t >= self._t0:
            return self._suffix[bisect_right(self._ts, t) - 1]
        rest = self._suffix[0]
        if self._var <= 0:
            return self._m0
        w = arb(self._w)  # s(t) at a W above the true one is lower: the bound stays valid
        s = 2 * (arb(t) * w / 2).sin() / w
        x = 1 - arb(self._var) * s * s
        v = self._m0 * math.sqrt(max(0.0, upper(x))) if x < 1 else self._m0
        return max(min(upper(arb(v) * (1 + arb(2.0) ** -50)), self._m0), rest)
