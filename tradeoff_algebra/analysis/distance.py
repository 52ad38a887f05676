"""The uniform distance sup_alpha |f(alpha) - g(alpha)| between two trade-off functions.

Claims of the papers compare curves uniformly (Dong, Roth & Su, the remark after Prop. 7: the
group-privacy bound 1 - (1 - f_{eps/k,0})^{o k} is within 0.005 of L_eps). :func:`sup_distance`
returns a certified enclosure by branch and bound on [0, 1]. A cell [a, b] with midpoint m
carries certified values of f and g at a, m and b. Trade-off functions are convex and
non-increasing. On the half [a, m], f lies above the secant of [m, b] extended (the line
with value f(m) at m and 2 f(m) - f(b) at a) and g lies below its chord through (a, g(a))
and (m, g(m)), so g - f is at most a linear function of alpha, whose maximum is at an end of
the half; on the whole cell also g - f <= g(a) - f(b) (monotonicity). The same on [m, b] and
with f and g exchanged gives an upper bound of the distance on the cell that is exact where
both functions are linear; any point gives a lower bound. Cells whose upper bound exceeds the
best lower bound by more than the tolerance are split until the enclosure is narrower than
``tol`` (absolute) or the cell budget is spent; the enclosure is valid at every stage
(differences are rounded outward).
"""

from __future__ import annotations

import heapq
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import count, fuzzy_lt, param
from ..numeric import budget
from ..numeric.context import mp
from ..numeric.protocol import MAX_DPS, evaluate, short
from ..numeric.value import Value, weakest
from .lazy import defer

__all__ = ["sup_distance"]

MAX_CELLS = 20000


def _up(x, y):
    return mp.fsub(x, y, rounding="u")


def _down(x, y):
    return mp.fsub(x, y, rounding="d")


def _half(go, gm, fm, ff):
    """Upper bound of g - f on the half between m and its outer end o (f, g values as
    intervals; ``ff`` is f at the far end of the other half): g lies below its chord, f above
    the secant of the other half extended (value f(m) at m, 2 f(m) - f(far) at o); the
    difference of the two lines is largest at an end."""
    ext = _down(2 * fm[0], ff[1])  # 2 f(m) - f(far), rounded down (2x is exact)
    return max(_up(go[1], ext), _up(gm[1], fm[0]))


@defer("sup_distance", r"\sup_{{\alpha}} \left|{f} - {args}\right|")
@budget.deadline(lambda a: f"sup_distance({short(a['f'])}, {short(a['g'])})")
def sup_distance(f: TradeOff, g: TradeOff, dps: int = 20, tol: Any = None) -> Value:
    """Certified enclosure of ``sup_{alpha in [0, 1]} |f(alpha) - g(alpha)|``.

    ``tol``: the absolute width to reach (default ``10^-6``); the result is an enclosure
    ``[lo, hi]`` (a narrower one costs more cells; at most :data:`MAX_CELLS`).
    """
    for name, x in (("f", f), ("g", g)):
        if not isinstance(x, TradeOff):
            raise InvalidParameter(name, x, "a trade-off expression")
    dps = count("dps", dps, upper=MAX_DPS, owner="sup_distance")
    # the values are enclosures to dps digits: a width below about 100 units of their last
    # digit is never reached (the search used to run through its MAX_CELLS evaluations)
    floor = sp.Rational(1, 10 ** max(dps - 2, 0))
    if tol is not None:  # a positive number, read exactly (an infinite or NaN tol looped)
        t = param("tol", tol, lower=0, lower_open=True, numeric=True, owner="sup_distance")
        if fuzzy_lt(t, floor):
            raise InvalidParameter("tol", tol, f"a number >= {floor} at dps = {dps}",
                                   "sup_distance", "Ask for more digits (dps) for a finer "
                                   "tolerance")
    with mp.workdps(dps + 10):
        tol = (mp.mpf(max(sp.Rational(1, 10**6), floor)) if tol is None
               else mp.mpf(sp.Float(sp.N(t, dps + 10))._mpf_))
    cache: dict = {}
    guarantees = {"exact"}  # the result is as certain as the weakest value it used

    def vals(a):
        hit = cache.get(a)
        if hit is None:
            vf, vg = evaluate(f, a, dps=dps), evaluate(g, a, dps=dps)
            guarantees.update((vf.guarantee, vg.guarantee))
            hit = cache[a] = (vf.interval(), vg.interval())
        return hit

    with mp.workdps(dps + 10):

        def upper(a, b):
            (fa, ga), (fm, gm), (fb, gb) = vals(a), vals((a + b) / 2), vals(b)
            convex = max(_half(ga, gm, fm, fb), _half(fa, fm, gm, gb),   # [a, m]
                         _half(gb, gm, fm, fa), _half(fb, fm, gm, ga))   # [m, b]
            monotone = max(_up(fa[1], gb[0]), _up(ga[1], fb[0]))
            return max(min(convex, monotone), mp.zero)

        def lower(a):
            (fa, ga) = vals(a)
            return max(_down(fa[0], ga[1]), _down(ga[0], fa[1]), mp.zero)

        best = mp.zero
        heap = []
        n = 32
        for k in range(n):
            a, b = sp.Rational(k, n), sp.Rational(k + 1, n)
            u = upper(a, b)
            best = max(best, lower(a), lower((a + b) / 2), lower(b))
            heapq.heappush(heap, (-u, a, b))
        cells = n
        while heap and cells < MAX_CELLS:
            neg_u, a, b = heap[0]
            if -neg_u - best <= tol:
                break
            heapq.heappop(heap)
            m = (a + b) / 2
            for lo_, hi_ in ((a, m), (m, b)):
                u = upper(lo_, hi_)
                best = max(best, lower((lo_ + hi_) / 2))
                heapq.heappush(heap, (-u, lo_, hi_))
            cells += 1
        hi = max(-heap[0][0], best) if heap else best
        # (directed rounding throughout: exact and certified inputs give a certified bound)
        g = weakest("certified", *guarantees)
        return Value.enclosure(best, min(hi, mp.one), dps, guarantee=g)
