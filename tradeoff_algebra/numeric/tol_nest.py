"""One rule for "a tighter tolerance never gives a wider result" (issue 29): the tolerance chain.

Every certified enclosure of one quantity (f(alpha) of a node, its power 1 - f(alpha), delta(eps)
or eps(delta) of a product) that a route answers at a tolerance ``tol`` passes through
:func:`nest` with a key naming the quantity. The chain keeps, per key, the results returned so far
in this process, one per tolerance, ordered by tolerance, and answers at ``tol``

    R(tol) = (own(tol) cap R(t+)) cup R(t-),

own(tol) the route's enclosure, t+ the nearest looser tolerance and t- the nearest tighter one in
the chain (a missing neighbour drops its term; cup is the hull of the two intervals).

*Why nested.* Invariant: the chain's results are nested, R(t1) inside R(t2) for t1 < t2. Then
R(t-) lies inside R(t+), own(tol) cap R(t+) too, so their hull does: R(t-) inside R(tol) inside
R(t+), and the invariant holds with R(tol) added (and with R(tol) replaced, when ``tol`` is
already in the chain: the same argument). Every term holds the truth (certified enclosures of
one number), so intersections and hulls of them do; an empty intersection can only come from an
enclosure that does not hold the truth, a bug, reported by :class:`NestError`.

*Anchor.* In a fresh process the chain is empty; a route may pass ``anchor``, its own result at
the default tolerance ``DEFAULT_TOL`` where that is cheap (the cells of a few subsampled Laplace
steps at the default's width: ``numeric.cf_mixed_split.cells_floor``), which enters the chain
first, so every result below the default lies inside the default's, whatever ran before.

*Where it applies.* ``numeric.curves`` (every curve band, keys ("f", f, level) and ("power", f,
level), and every certain curve point), ``numeric.protocol`` (every certified enclosure of the
point routes, the same keys, so values and curves of one node share a chain),
``numeric.cf_route`` (each product's delta or eps at a float bracket, and the finite part's
enclosure with the cells' anchor). A band of 101 levels costs about 0.3 ms in it.

*What it does not give.* Two tolerances both tighter than the default, computed in different
processes, are tied only by their routes' own construction (the nested dyadic grids of
``routes.tail_points``, the dps rungs of ``numeric.curves.point_dps_rungs``): the chain ties the
results of one process, in any order of calls, and each to the anchor where there is one.

The chain is bounded (:data:`MAX_KEYS` keys, least recently used dropped first); a dropped key
starts a new chain, so the nesting covers the results since the key was last dropped.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

__all__ = ["nest", "nest_many", "chain_has", "anchor_chain", "looser", "NestError", "clear",
           "MAX_KEYS"]

#: The number of quantities whose chains are kept.
MAX_KEYS = 50_000

_LOCK = threading.Lock()
_CHAINS: OrderedDict = OrderedDict()  # key -> (sorted tolerances, [(lo, hi)])


class NestError(ArithmeticError):
    """Two certified enclosures of one quantity at two tolerances are disjoint."""


def clear() -> None:
    """Forget every chain (for tests that compare fresh processes in one)."""
    with _LOCK:
        _CHAINS.clear()


def chain_has(key: Hashable, tol: float) -> bool:
    """Whether the chain of ``key`` holds a result at ``tol`` or looser."""
    with _LOCK:
        got = _CHAINS.get(key)
        return bool(got and got[0] and got[0][-1] >= tol)


def _chain(key: Hashable) -> tuple[list, list]:
    got = _CHAINS.get(key)
    if got is None:
        got = ([], [])
        _CHAINS[key] = got
        if len(_CHAINS) > MAX_KEYS:
            _CHAINS.popitem(last=False)
    else:
        _CHAINS.move_to_end(key)
    return got


def _insert(tols: list, vals: list, tol: float, lo, hi, key) -> tuple:
    i = bisect.bisect_left(tols, tol)
    here = i < len(tols) and tols[i] == tol
    tighter = vals[i - 1] if i > 0 else None
    looser = vals[i + 1 if here else i] if (i + 1 if here else i) < len(vals) else None
    if here:  # (the chain's own result at tol is already inside the looser one)
        lo, hi = max(lo, vals[i][0]), min(hi, vals[i][1])
    if looser is not None:
        lo, hi = max(lo, looser[0]), min(hi, looser[1])
    if lo > hi:
        raise NestError(f"certified enclosures of {key!r} at tol {tol:.3g} and a looser tolerance "
                        f"are disjoint: {lo!r} > {hi!r}")
    if tighter is not None:
        lo, hi = min(lo, tighter[0]), max(hi, tighter[1])
    if here:
        vals[i] = (lo, hi)
    else:
        tols.insert(i, tol)
        vals.insert(i, (lo, hi))
    return lo, hi


def anchor_chain(key: Hashable, tol: float, anchor: Callable[[], tuple | None] | None,
                 default: float | None) -> None:
    """Put ``anchor()``, the enclosure of ``key`` at the looser tolerance ``default``, in the
    chain where ``tol < default`` and the chain holds nothing at ``default`` or looser (a fresh
    process); nothing where ``anchor`` gives None."""
    if anchor is None or default is None or not float(tol) < default or chain_has(key, default):
        return
    got = anchor()  # (outside the lock: it may compute)
    if got is not None:
        with _LOCK:
            tols, vals = _chain(key)
            _insert(tols, vals, float(default), got[0], got[1], key)


def looser(key: Hashable, tol: float) -> tuple | None:
    """The chain's enclosure of ``key`` at the nearest tolerance at or above ``tol``, or None."""
    with _LOCK:
        got = _CHAINS.get(key)
        if not got:
            return None
        tols, vals = got
        i = bisect.bisect_left(tols, float(tol))
        return vals[i] if i < len(vals) else None


def nest(key: Hashable, tol: float, lo, hi,
         anchor: Callable[[], tuple | None] | None = None, default: float | None = None
         ) -> tuple:
    """The enclosure ``[lo, hi]`` of the quantity ``key`` answered at ``tol``, placed in its chain
    (module docstring): the result, nested with every result of ``key`` at another tolerance in
    this process. ``anchor``, ``default``: :func:`anchor_chain` first. The bounds may be floats,
    mpfs or Fractions (compared with ``<``); both finite."""
    anchor_chain(key, tol, anchor, default)
    with _LOCK:
        tols, vals = _chain(key)
        return _insert(tols, vals, float(tol), lo, hi, key)


def nest_many(keys: list, tol: float, lo: list, hi: list) -> tuple[list, list]:
    """:func:`nest` of each ``(keys[i], lo[i], hi[i])`` (no anchor), in one lock."""
    out_lo, out_hi = list(lo), list(hi)
    tol = float(tol)
    with _LOCK:
        for i, key in enumerate(keys):
            tols, vals = _chain(key)
            out_lo[i], out_hi[i] = _insert(tols, vals, tol, lo[i], hi[i], key)
    return out_lo, out_hi
