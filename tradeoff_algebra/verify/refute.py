"""The most convincing counterexample of a claim over a parameter box.

A counterexample convinces when a reader recognises where it is and sees the sides far apart:
of the box's readable points (its corners, its centre, each symbol's quarter points when there
is one symbol, and the point a cover or sample already refuted at), the one where the certified
gap between the sides is largest, the earlier point on a tie (the ends and midpoints come
first). Each point is decided by the caller's certified procedure; the gap is a lower bound
from the certified enclosures of both sides, so the ranking itself is certified.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..numeric import budget
from ..numeric.value import Value
from .box import admissible
from .interval import EstimateOnly, Undecidable, enclose

__all__ = ["best_counterexample", "candidates", "gap"]

#: Points of a box tried for the most convincing counterexample.
REFUTE_POINTS = 27


def candidates(box: dict, found: dict | None = None) -> list[dict]:
    """Readable points of a bounded box, the corners and centre first: each symbol at its ends,
    its midpoint and quarter points (ends and midpoint only with several symbols), and the
    values of a counterexample already found (``found``: symbol name -> value)."""
    syms = sorted(box, key=lambda s: s.name)
    vals = {}
    for s in syms:
        lo, hi = (sp.sympify(v) for v in box[s])
        if not (lo.is_finite and hi.is_finite):
            return []
        vs = [lo, hi, (lo + hi) / 2]
        if len(syms) == 1:
            vs += [lo + (hi - lo) / 4, lo + 3 * (hi - lo) / 4]
        if found and str(s) in found:
            vs.append(sp.sympify(found[str(s)]))
        vals[s] = [v for v in dict.fromkeys(vs) if admissible(s, v)]
    pts = [dict(zip(syms, c, strict=True)) for c in product(*(vals[s] for s in syms))]
    return pts[:REFUTE_POINTS]


def _iv(v: Any) -> tuple:
    if isinstance(v, Value):
        return v.interval()
    if isinstance(v, tuple):
        return v
    return enclose(v)


def gap(ce: dict, rel: str):
    """A certified lower bound of how far a counterexample's sides ``ce["lhs"]``, ``ce["rhs"]``
    are in the wrong order for ``rel`` (None where they cannot be enclosed)."""
    try:
        L, R = (_iv(ce[k]) for k in ("lhs", "rhs"))
    except (KeyError, Undecidable, TypeError, ValueError):
        return None
    if rel == ">=":
        return R[0] - L[1]
    if rel == "<=":
        return L[0] - R[1]
    return max(R[0] - L[1], L[0] - R[1])


def best_counterexample(lhs: Any, rel: str, rhs: Any, box: dict,
                        at: Callable[[Any, Any, dict], tuple],
                        refine: Callable[[Any, Any, dict], tuple] | None = None,
                        found: dict | None = None) -> tuple | None:
    """``(point, verdict tuple)`` of the readable point of ``box`` where ``at(lhs_p, rhs_p,
    point)`` (a verdict tuple ``(status, method, evidence, counterexample, derivations)``)
    refutes the claim with the largest certified gap; ``refine`` decides that point again more
    thoroughly (the levels of a pointwise claim). None when no candidate refutes it. A side that
    has only estimates ends the search (the other points would take as long to say so)."""
    best, best_gap = None, None
    for p in candidates(box, found):
        budget.check()
        try:
            l2, r2 = lhs.xreplace(p), rhs.xreplace(p)
            if getattr(l2, "free_symbols", None) or getattr(r2, "free_symbols", None):
                continue
            out = at(l2, r2, p)
        except EstimateOnly:
            break
        except (InvalidParameter, NoClosedForm, NumericalError, Undecidable):
            continue
        if out[0] is not False:
            continue
        g = gap(out[3], rel)
        if g is not None and g > 0 and (best_gap is None or g > best_gap):
            best, best_gap = (p, out), g
    if best is None:
        return None
    p, out = best
    if refine is not None:
        try:
            full = refine(lhs.xreplace(p), rhs.xreplace(p), p)
            if full[0] is False:
                out = full
        except (InvalidParameter, NoClosedForm, NumericalError, Undecidable):
            pass
    return p, out
