"""delta(eps) and eps(delta) of a product that is one law's power whose law gives the privacy
profile of that power itself (its optional method ``few_step_delta``: the Poisson-subsampled
Gaussian's one and two steps, ``families/gaussian_sampled_profile.py``), answered by
``cf_route.route_enclosure`` before any plan of the inversion: delta from the law's balls,
eps from a bracket found in floats and proved by two balls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import budget
from .cf_laws import Factor

__all__ = ["PROFILE", "answers_from_profile"]


#: The name an answer from a law's own profile carries (``Value.route``).
PROFILE = "Arb profile of the power (few subsampled Gaussian steps)"


def _profile_of(factors: Sequence[Factor]):
    """``delta(eps, rel) -> (lo, hi)`` for a product that is one law's power whose law gives the
    profile of that power directly (its optional method ``few_step_delta(n, eps, rel)``: float
    bounds of a certified ball, or None beyond the powers it knows; the Poisson-subsampled
    Gaussian's one and two steps, ``families/gaussian_sampled_profile.py``), else None."""
    if len(factors) != 1:
        return None
    law, n = factors[0]
    method = getattr(law, "few_step_delta", None)
    if method is None or method(int(n), None, None) is None:
        return None
    return lambda eps, rel: method(int(n), eps, rel)


def answers_from_profile(factors: Sequence[Factor]) -> bool:
    """Does ``cf_route.route_enclosure`` answer this product from its law's own profile (without a
    plan of the inversion, whatever the tolerance: :func:`_profile_enclosure`)? The plain
    inversion's work (``cf_route._work``, which the curves' routes read) is not changed by it."""
    return _profile_of(factors) is not None


def _profile_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                       rel: float) -> tuple[float, float] | None:
    """The enclosure of ``cf_route.route_enclosure`` for one product from its law's own
    profile (:func:`_profile_of`; ``rel`` already within the route's floor and minimum), or
    None. delta is non-increasing: delta(eps) for eps in [dn, up]
    lies in [delta(up).lo, delta(dn).hi]. eps(d) for d in [dn, up] (eps(d) = inf{e: delta(e)
    <= d}) lies in [a, b] when delta(a) > up and delta(b) <= dn are proved (every e <= a has
    delta(e) > up; b is feasible for dn); a and b are found in floats about the root of
    log delta(e) = log d by regula falsi, then proved, widened until they are."""
    prof = _profile_of(factors)
    if prof is None:
        return None
    if kind == "delta":
        lo, hi = prof(max(up, 0.0), rel)
        if dn != up:
            hi = prof(max(dn, 0.0), rel)[1]
        return lo, max(hi, lo)
    if prof(0.0, rel)[1] <= dn:  # (delta(0) <= d: eps(d) = 0)
        return 0.0, 0.0
    d_mid = math.sqrt(dn) * math.sqrt(up)  # (dn up underflows below 1e-162)
    sub = rel / 16

    def f(e: float, r: float) -> float:
        lo_, hi_ = prof(e, r)
        return math.log(max(lo_ + hi_, 1e-320) / 2) - math.log(d_mid)

    rough = max(rel, 1e-4)
    # (from small eps up: a delta far below the level costs many bits, one near it few)
    a, b = 0.0, 1.0 / 64
    fb = f(b, rough)
    while fb > 0:  # (delta(b) > d: further out)
        budget.check()
        a, b = b, 2 * b
        if b > 1e6:
            return None
        fb = f(b, rough)
    fa = f(a, rough)
    ga, gb, side = fa, fb, 0
    for _ in range(200):  # Illinois regula falsi on the decreasing f, to about 1e-4
        budget.check()
        if b - a <= 1e-4 * b:
            break
        x = (a * gb - b * ga) / (gb - ga)
        if not a < x < b:
            x = (a + b) / 2
        fx = f(x, rough)
        if fx > 0:
            a, fa, ga = x, fx, fx
            if side == 1:
                gb /= 2
            side = 1
        else:
            b, fb, gb = x, fx, fx
            if side == -1:
                ga /= 2
            side = -1
    # secant steps at the final width from the rough root (the rough values' midpoints may lie
    # anywhere in their balls: only the precise ones place the root)
    x0 = (a + b) / 2
    f0 = f(x0, sub)
    x1 = x0 * (1 + 1e-6) if f0 > 0 else x0 * (1 - 1e-6)
    step = abs(x1 - x0)
    for _ in range(8):
        budget.check()
        f1 = f(x1, sub)
        if f1 == f0:
            break
        x0, x1, f0 = x1, max(x1 - f1 * (x1 - x0) / (f1 - f0), 0.0), f1
        step = abs(x1 - x0)
        if step <= rel * x1 / 16:
            break
    x = x1
    w = max(rel * x / 8, 2 * step)
    for _ in range(60):
        budget.check()
        lo_e, hi_e = max(x - w, 0.0), x + w
        ok_lo = lo_e == 0.0 or prof(lo_e, sub)[0] > up
        ok_hi = ok_lo and prof(hi_e, sub)[1] <= dn
        if ok_lo and ok_hi:
            return lo_e, hi_e
        w *= 2
    return None
