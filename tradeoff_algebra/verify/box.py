"""Parameter boxes: domains of the free symbols, sample points, proofs over a box.

A box maps each free symbol to a closed interval ``(lo, hi)`` of SymPy numbers (``-oo``/``oo``
allowed); it comes from ``over`` or, without it, from the symbol's assumptions (positive:
``(0, oo)``; nonnegative: ``[0, oo)``; otherwise ``(-oo, oo)``). Integer symbols take integer
sample values.
"""

from __future__ import annotations

import random
from itertools import product
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.validate import param
from .cover import cover
from .interval import Undecidable, enclose

__all__ = ["make_box", "sample_points", "prove_nonneg"]

MAX_BOXES = 2000
#: Seconds a cover of one scalar claim may take before it reports the cells left.
COVER_SECONDS = 60.0


def _interval(sym: sp.Symbol, spec: Any) -> tuple:
    if isinstance(spec, sp.Interval):
        lo, hi = spec.start, spec.end
    elif isinstance(spec, (tuple, list)) and len(spec) == 2:
        # each end a real number or +-oo, read by the validator (NaN, complex numbers, strings
        # and containers refused by name; a float infinity is oo)
        lo, hi = (param("over", x, allow_infinite=True, numeric=True, owner="verify")
                  for x in spec)
    else:
        raise InvalidParameter("over", spec, f"an interval (lo, hi) or a SymPy Interval for {sym}")
    if lo is sp.nan or hi is sp.nan or lo.has(sp.zoo, sp.nan) or hi.has(sp.zoo, sp.nan):
        raise InvalidParameter("over", spec, f"an interval lo <= hi of real numbers for {sym}",
                               hint="NaN is not a number")
    if not (lo.is_comparable or lo.is_infinite) or not (hi.is_comparable or hi.is_infinite) \
            or bool(lo > hi):
        raise InvalidParameter("over", spec, f"an interval lo <= hi of real numbers for {sym}")
    return lo, hi


def _domain(sym: sp.Symbol) -> sp.Set:
    """The real numbers that ``sym``'s assumptions allow."""
    dom = sp.S.Reals
    if sym.is_positive:
        dom = sp.Interval.open(0, sp.oo)
    elif sym.is_nonnegative:
        dom = sp.Interval(0, sp.oo)
    elif sym.is_negative:
        dom = sp.Interval.open(-sp.oo, 0)
    elif sym.is_nonpositive:
        dom = sp.Interval(-sp.oo, 0)
    return dom


def _assumed(sym: sp.Symbol) -> str:
    names = ("positive", "nonnegative", "negative", "nonpositive", "integer")
    said = [n for n in names if getattr(sym, "is_" + n)]
    return said[0] if said else "real"


def _clip(sym: sp.Symbol, lo, hi) -> tuple:
    """[lo, hi] intersected with what the assumptions of ``sym`` allow (its closure), refused
    with :class:`InvalidParameter` where nothing of it is allowed: a verdict over values the
    symbol cannot take would be about another claim."""
    dom = _domain(sym)
    inner = sp.Interval(lo, hi).intersect(dom)
    if inner is sp.S.EmptySet or not isinstance(inner, sp.Interval) \
            or (inner.measure == 0 and not inner.contains(inner.start)):
        raise InvalidParameter("over", (lo, hi), f"an interval inside the assumptions of {sym} "
                               f"({_assumed(sym)}: {dom})",
                               hint=f"no value of [{lo}, {hi}] satisfies them")
    return inner.start, inner.end


def admissible(sym: sp.Symbol, value) -> bool:
    """Does ``value`` satisfy the assumptions of ``sym``? (A sample point that does not is
    outside the claim's domain: a counterexample there would be about another claim.)"""
    if sym.is_integer and not sp.sympify(value).is_integer:
        return False
    return bool(_domain(sym).contains(value))


def make_box(symbols: set, over: dict | None) -> dict:
    """The box of ``symbols``: ``over`` where given (clipped to the assumptions), else from
    the assumptions."""
    box = {}
    over = dict(over or {})
    by_name = {s.name: s for s in symbols}
    for key, spec in over.items():
        sym = key if isinstance(key, sp.Symbol) else by_name.get(str(key))
        if sym is None or sym not in symbols:
            raise InvalidParameter("over", key, "a free symbol of the claim: "
                                   + ", ".join(sorted(by_name)))
        box[sym] = _clip(sym, *_interval(sym, spec))
    for s in symbols - set(box):
        if s.is_positive or s.is_nonnegative:
            box[s] = (sp.Integer(1) if s.is_integer and s.is_positive else sp.Integer(0), sp.oo)
        else:
            box[s] = (-sp.oo, sp.oo)
    return box


def _values(sym: sp.Symbol, lo, hi, rng: random.Random) -> list:
    if lo.is_finite and hi.is_finite:
        cand = [lo, hi, (lo + hi) / 2, lo + (hi - lo) / 4, lo + 3 * (hi - lo) / 4]
        cand += [lo + (hi - lo) * sp.Rational(rng.randint(1, 99), 100) for _ in range(3)]
    elif lo.is_finite:
        cand = [lo, lo + sp.Rational(1, 10), lo + 1, lo + 3, lo + 10, lo + sp.Rational(1, 1000)]
    elif hi.is_finite:
        cand = [hi, hi - sp.Rational(1, 10), hi - 1, hi - 10]
    else:
        cand = [sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(10)]
    if sym.is_integer:
        cand = [sp.floor(c) for c in cand] + [sp.ceiling(c) for c in cand]
        cand = [c for c in cand if bool(lo <= c <= hi)]
    cand = [c for c in cand if admissible(sym, c)]
    if not cand and lo.is_finite and hi.is_finite:  # an open end: a point just inside
        cand = [c for c in (lo + (hi - lo) / 1000, hi - (hi - lo) / 1000) if admissible(sym, c)]
    return list(dict.fromkeys(cand))


def sample_points(box: dict, limit: int = 24, seed: int = 0) -> list[dict]:
    """Parameter points of ``box``: the corners and centre first, then random points."""
    rng = random.Random(seed)
    syms = sorted(box, key=lambda s: s.name)
    vals = {s: _values(s, *box[s], rng) for s in syms}
    pts = []
    heads = [v[:3] for v in (vals[s] for s in syms)]
    for combo in product(*heads):
        pts.append(dict(zip(syms, combo, strict=True)))
        if len(pts) >= limit // 2:
            break
    while len(pts) < limit and syms:
        pts.append({s: rng.choice(vals[s]) for s in syms})
    out, seen = [], set()
    for p in pts:
        key = tuple(p[s] for s in syms)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out or [{}]


def prove_nonneg(expr: sp.Expr, box: dict, dps: int = 30, seconds: float | None = None) -> tuple:
    """``(status, evidence)``: True if ``expr >= 0`` on the whole box (interval arithmetic with
    subdivision), False with ``{symbol: value}`` if a point of the box has ``expr < 0``
    (certified), None if neither was reached within the budget (``seconds``, by default
    :data:`COVER_SECONDS`)."""
    syms = [s for s in box if s in expr.free_symbols]
    sub = {s: box[s] for s in syms}
    if any(not (lo.is_finite and hi.is_finite) for lo, hi in sub.values()):
        # unbounded: only points
        for p in sample_points(sub):
            try:
                lo, hi = enclose(expr.xreplace(p), dps=dps)
            except Undecidable:
                continue
            if hi < 0:
                return False, p
        return None, "unbounded box"
    res = cover(expr, ">=", sp.Integer(0), sub, dps=dps, max_cells=MAX_BOXES,
                seconds=COVER_SECONDS if seconds is None else seconds)
    if res.status is True:
        return True, f"interval arithmetic on {res.evidence}"
    if res.status is False:
        ce = res.counterexample
        return False, {s: sp.sympify(ce[str(s)]) for s in sub}
    return None, res.evidence
