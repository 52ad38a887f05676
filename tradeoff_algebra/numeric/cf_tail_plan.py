"""The float model of the inversion's truncation bound (``numeric.cf``'s ``_Inverter``) that
sets a plan's number of nodes: the tail of the t-integral from t = m h is bounded by segments
[m_j h, m_{j+1} h] (m_{j+1} = ceil(1.5 m_j)) with each law's float decay estimate at the
segment's start, and past a few segments by the laws' power decay V / t^p; the cut is the least
m whose tail meets the budget (:class:`_TailPlanner`). A plan only: the inverter bounds the
truncation it leaves in Arb at the plan's own segments."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from flint import arb

from .cf_laws import Factor, upper, working_precision
from .roots import Probe, findroot

__all__: list[str] = []

_POWER_AFTER = 8  # segments tried before the power decay V / t^p is computed


def _log0(x: float) -> float:
    """log x, -inf at x = 0 (a segment weight that underflowed)."""
    return math.log(x) if x > 0 else -math.inf


def _segment_weight(c: float, t0: float, t1: float) -> float:
    """int_{t0}^{t1} dt / (c^2 + t^2) (t1 = inf allowed)."""
    return (math.atan(t1 / c) - math.atan(t0 / c)) / c


#: The t's of a tail plan's chain whose decay estimates are asked at once (:meth:`_TailPlanner.
#: _prefetch`): DP-SGD's chains walk 2 to 11 of them (sigma = 4, T = 10: the cut's 12 plans
#: 8.9 -> 7.7 ms at 4, best of 12; 2, 3 and 8 no better).
PREFETCH = 4


class _TailPlanner:
    """Float model of the rigorous truncation bound (see `_Inverter`)."""

    def __init__(self, factors: Sequence[Factor], c: float, h: float, log_budget: float) -> None:
        self.factors, self.c, self.h, self.log_budget = factors, c, h, log_budget
        self._cache: dict[float, list[float]] = {}
        self._powers: list[tuple[float, int] | None] | None = None

    def _log_decays(self, t: float) -> list[float]:
        if t not in self._cache:
            self._cache[t] = [law.log_decay_estimate(self.c, t) for law, _ in self.factors]
        return self._cache[t]

    def _prefetch(self, m0: int) -> None:
        """The decay estimates at the next :data:`PREFETCH` t's of the chain from m0 h that
        :meth:`plan` walks, in one call per law where every law has the vectorised
        ``log_decay_estimates(c, ts)`` (the same values as one at a time)."""
        ms = [m0]
        while len(ms) < PREFETCH:
            ms.append(max(ms[-1] + 1, math.ceil(1.5 * ms[-1])))
        ts = [m * self.h for m in ms if m * self.h not in self._cache]
        if not ts or not all(hasattr(law, "log_decay_estimates") for law, _ in self.factors):
            return
        rows = [law.log_decay_estimates(self.c, ts) for law, _ in self.factors]
        for k, t in enumerate(ts):
            self._cache[t] = [row[k] for row in rows]

    def _powers_float(self) -> list[tuple[float, int] | None]:
        """(log V_i, p_i) of each law's power decay: its float estimate where the law has one
        (the optional ``log_power_decay_estimate(c)``), else its certified ball's upper end."""
        if self._powers is None:
            self._powers = []
            for law, _ in self.factors:
                est = getattr(law, "log_power_decay_estimate", None)
                if est is not None:
                    self._powers.append(est(self.c))
                    continue
                with working_precision(64):
                    p = law.power_decay(arb(self.c))
                self._powers.append(None if p is None else (math.log(upper(p[0])), p[1]))
        return self._powers

    def final_log(self, t: float, use_power: bool) -> float:
        logs = self._log_decays(t)
        const = sum(n * d for (_, n), d in zip(self.factors, logs, strict=True))
        best = const + _log0(_segment_weight(self.c, t, math.inf))
        if use_power:
            log_v, p = 0.0, 0
            for (_, n), d, pw in zip(self.factors, logs, self._powers_float(), strict=True):
                if pw is not None and pw[0] - pw[1] * math.log(t) < d:
                    log_v, p = log_v + n * pw[0], p + n * pw[1]
                else:
                    log_v += n * d
            best = min(best, log_v - (p + 1) * math.log(t) - math.log(p + 1))
        return best

    def plan(self, m0: int) -> tuple[float, list[int]]:
        """Log of the tail bound from t = m0 h, and its segment boundaries m_j."""
        ms = [m0]
        total = -math.inf
        use_power = False
        for j in range(64):
            t = ms[-1] * self.h
            if t not in self._cache:
                self._prefetch(ms[-1])
            if j == _POWER_AFTER:
                use_power = any(p is not None for p in self._powers_float())
            fin = self.final_log(t, use_power)
            if fin < self.log_budget - math.log(100.0) or j == 63:
                return float(np.logaddexp(total, fin)), ms
            m_next = max(ms[-1] + 1, math.ceil(1.5 * ms[-1]))
            seg = sum(n * d for (_, n), d in zip(self.factors, self._log_decays(t), strict=True))
            total = float(
                np.logaddexp(total, seg + _log0(_segment_weight(self.c, t, m_next * self.h)))
            )
            ms.append(m_next)
        raise AssertionError("unreachable")

    def _first_power(self) -> int:
        """Where the search for the least power of two meeting the budget starts: half the
        least power m whose tail bound with the decay frozen at t = m h, ``final_log(t)``
        (above each chain's sum from there: the decay estimates fall with t), meets the
        budget, its estimates asked :data:`PREFETCH` powers at a time, where every law has
        ``log_decay_estimates``; else 1 (the search from 1). Any start finds the same power
        where meeting the budget is monotone in m (DP-SGD sigma = 4, T = 10: 12 plans and 33
        decay estimates from 1, 7 and 17 from here, the same 59 nodes)."""
        if not all(hasattr(law, "log_decay_estimates") for law, _ in self.factors):
            return 1
        powers = [2**k for k in range(23)]
        for i in range(0, len(powers), PREFETCH):
            chunk = powers[i:i + PREFETCH]
            ts = [m * self.h for m in chunk if m * self.h not in self._cache]
            if ts:
                rows = [law.log_decay_estimates(self.c, ts) for law, _ in self.factors]
                for k, t in enumerate(ts):
                    self._cache[t] = [row[k] for row in rows]
            for m in chunk:
                if self.final_log(m * self.h, False) <= self.log_budget:
                    return max(1, m // 2)
        return 1

    def cut(self, max_nodes: int = 2**22) -> tuple[int, list[int]]:
        """Smallest number of nodes K (t_cut = K h) meeting the budget (ValueError beyond
        ``max_nodes``)."""
        ok = lambda m: self.plan(m)[0] <= self.log_budget  # noqa: E731
        if max_nodes < 2**22 and not ok(max_nodes):  # (a declined plan costs one trial)
            raise ValueError(f"the t-range needs more than {max_nodes} nodes")
        m = self._first_power()
        if ok(m):  # (the least power of two that meets the budget: down from the guess ...)
            while m > 1 and ok(m // 2):
                m //= 2
        else:  # (... or up from it, as from 1)
            while True:
                m *= 2
                if m > 2 * max_nodes:
                    raise ValueError(f"the t-range needs more than {max_nodes} nodes")
                if ok(m):
                    break
        _, m, *_ = findroot(lambda k: Probe(-1 if ok(k) else 1), (m // 2, m), method="bisect",
                            split="integer", ends=(1, -1), done=lambda lo, hi: hi <= 8)
        return m, self.plan(m)[1]
