"""The power from a privacy profile in floats: 1 - f(alpha) = inf over eps of delta(eps) + e^eps
alpha (Dong, Roth & Su, Prop. 6: every eps gives an upper bound of the power, and the infimum
is the power of a symmetric f at levels below its fixed point), the infimum located by golden
section (no ``tradeoff_algebra`` import: the profile is the caller's, a float reference or the
library's certified balls)."""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["golden_section", "power_from_profile"]


def golden_section(h: Callable[[float], float], a: float, b: float,
                   steps: int) -> tuple[float, float]:
    """The bracket [a, b] of a minimiser of ``h`` (unimodal on [a, b]) after ``steps``
    golden-section steps, each keeping the side of the smaller of its two probes."""
    r = (math.sqrt(5) - 1) / 2
    for _ in range(steps):
        m1, m2 = b - r * (b - a), a + r * (b - a)
        if h(m1) < h(m2):
            b = m2
        else:
            a = m1
    return a, b


def power_from_profile(delta: Callable[[float], float], alpha: float, lo: float, hi: float,
                       steps: int) -> float:
    """delta(eps) + e^eps alpha at the middle of the golden-section bracket of its minimiser
    over eps in [lo, hi] (an estimate of 1 - f(alpha) from above, as good as ``delta``)."""
    def h(e: float) -> float:
        return delta(e) + math.exp(e) * alpha

    a, b = golden_section(h, lo, hi, steps)
    return h((a + b) / 2)
