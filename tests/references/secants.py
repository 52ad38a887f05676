"""The Neyman--Pearson point of a certified loss-tail route checked against the secants of
the privacy profile (Dong, Roth & Su, Prop. 6): delta(log v) is convex in v = e^eps with
derivative -alpha(v) (the level of the test that rejects L > log v), so with ``dv`` > 0

    (delta(log v) - delta(log(v + dv)))/dv <= alpha(v) <= (delta(log(v - dv)) - delta(log v))/dv,

and the power at that level is ``delta(log v) + v alpha(v)``. The deltas are the caller's
(certified enclosures by a different computation: the inversion of delta's kernel alone), so
the bracket is independent of the tails' own sums. Comparisons in the library's mpmath
context (the deltas' mpfs are its own) at 40 digits."""

from __future__ import annotations

import math
from collections.abc import Callable

from tradeoff_algebra.numeric.context import mp

__all__ = ["arb_mpf", "check_point_against_secants"]


def arb_mpf(x):
    """The exact mpf of an exact arb (a ball's end)."""
    man, exp = x.man_exp()
    return mp.mpf((int(man), int(exp)))


def check_point_against_secants(pt, delta: Callable[[float], tuple], eps: float,
                                with_delta: bool = False, dv: float = 1e-4) -> None:
    """Assert that the point ``pt`` (balls ``pt.alpha``, ``pt.power`` and, ``with_delta``,
    ``pt.delta`` at threshold ``eps``) meets the secant bracket of the enclosures ``delta(e) ->
    (lo, hi)`` at ``log(v - dv)``, ``eps``, ``log(v + dv)`` (module docstring), that the bracket
    decides something (relative width 1e-3) and that the point's balls are narrower than a
    relative 1e-9."""
    v = math.exp(eps)
    es = [math.log(v - dv), eps, math.log(v + dv)]
    (dm_lo, dm_hi), (d0_lo, d0_hi), (dp_lo, dp_hi) = (delta(e) for e in es)
    with mp.workdps(40):
        vm, v0, vp = (mp.exp(mp.mpf(e)) for e in es)
        a_lo = (d0_lo - dp_hi) / (vp - v0)  # -(right secant) <= alpha
        a_hi = (dm_hi - d0_lo) / (v0 - vm)  # alpha <= -(left secant)
        al, ah = arb_mpf(pt.alpha.lower()), arb_mpf(pt.alpha.upper())
        assert max(al, a_lo) <= min(ah, a_hi), (al, ah, a_lo, a_hi)
        assert a_hi - a_lo <= 1e-3 * a_hi  # (the bracket decides something)
        pl, ph = arb_mpf(pt.power.lower()), arb_mpf(pt.power.upper())
        assert max(pl, d0_lo + v0 * a_lo) <= min(ph, d0_hi + v0 * a_hi)
        if with_delta:
            dl, dh = arb_mpf(pt.delta.lower()), arb_mpf(pt.delta.upper())
            assert max(dl, d0_lo) <= min(dh, d0_hi)
        assert ah - al <= 1e-9 * ah and ph - pl <= 1e-9 * ph
