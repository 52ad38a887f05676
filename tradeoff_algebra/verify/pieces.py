"""The pieces of a function of alpha on [0, 1], and exact or certified comparisons of numbers.

A SymPy expression with ``Max``, ``Min``, ``Abs`` or ``Piecewise`` is split into smooth pieces
on intervals of [0, 1] (:func:`split_pieces`): a ``Max``/``Min`` of arguments whose pairwise
differences are polynomials at their exact crossings (the larger argument between two crossings
picked by certified enclosures), anything else by SymPy's ``piecewise_fold``. Numbers are
compared exactly, by SymPy's simplification of their difference to 0, or by disjoint Arb balls
(:func:`compare`); the predicates of :mod:`.predicates` and :mod:`.membership` decide on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..numeric.context import mp
from .interval import Undecidable, enclose

__all__ = ["Piece", "split_pieces", "midpoint", "proved_equal", "compare", "value_at", "ball_iv",
           "show_num"]


@dataclass
class Piece:
    lo: sp.Expr
    hi: sp.Expr
    g: sp.Expr


def _atoms_of(s: sp.Set) -> list:
    return list(s.args) if isinstance(s, sp.Union) else [s]


_SPLIT = (sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.Heaviside)


def _crossings(d: sp.Expr, t: sp.Symbol) -> list | None:
    """The roots of the polynomial ``d`` in (0, 1) as exact numbers, or None (not a
    polynomial, or roots without an explicit form)."""
    if not d.is_polynomial(t):
        return None
    poly = sp.Poly(d, t)
    if poly.is_zero or poly.degree() <= 0:
        return []
    roots = sp.roots(poly)
    if sum(roots.values()) != poly.degree():
        return None
    out = []
    for r in roots:
        if r.is_real is False:
            continue
        if r.has(sp.I):  # real roots written with complex radicals: not decided here
            return None
        if compare(r, sp.Integer(0), 30) == 1 and compare(r, sp.Integer(1), 30) == -1:
            out.append(r)
        elif compare(r, sp.Integer(0), 30) is None or compare(r, sp.Integer(1), 30) is None:
            return None
    return out


def _max_pieces(e: sp.Expr, t: sp.Symbol) -> list[Piece] | None:
    """The pieces of a ``Max``/``Min`` of smooth polynomial-crossing arguments on [0, 1]: the
    break points are the exact crossings of the arguments; on each interval between them the
    largest (smallest) argument is picked at the midpoint by certified enclosures. None where
    this does not apply (SymPy's general splitting is used instead)."""
    if not isinstance(e, (sp.Max, sp.Min)) or any(a.has(*_SPLIT) for a in e.args):
        return None
    args = list(e.args)
    cuts = [sp.Integer(0), sp.Integer(1)]
    for i, g in enumerate(args):
        for h in args[i + 1:]:
            c = _crossings(sp.expand(g - h), t)
            if c is None:
                return None
            cuts += c
    cuts = sorted(cuts, key=midpoint)
    uniq = [cuts[0]]
    for c in cuts[1:]:
        if not proved_equal(c, uniq[-1]):
            uniq.append(c)
    big = isinstance(e, sp.Max)
    pieces: list[Piece] = []
    for lo, hi in zip(uniq, uniq[1:], strict=False):
        m = (lo + hi) / 2
        ivs = [enclose(g.xreplace({t: m}), dps=30) for g in args]
        pick = None
        for k, iv in enumerate(ivs):
            ok = True
            for j, jv in enumerate(ivs):
                if j == k or (iv[0] >= jv[1] if big else iv[1] <= jv[0]):
                    continue
                if (iv[1] < jv[0] if big else iv[0] > jv[1]) or not proved_equal(args[k], args[j]):
                    ok = False
                    break
            if ok:
                pick = args[k]
                break
        if pick is None:
            return None
        if pieces and pieces[-1].g == pick:
            pieces[-1].hi = hi
        else:
            pieces.append(Piece(lo, hi, pick))
    return pieces


def split_pieces(e: sp.Expr, t: sp.Symbol) -> tuple[list[Piece], dict]:
    """The pieces of ``e`` on [0, 1] (intervals of positive length, sorted) and the values at
    the points that a piece of zero length holds."""
    try:
        quick = _max_pieces(e, t)
    except Undecidable:
        quick = None
    if quick is not None:
        return quick, {}
    e = sp.piecewise_fold(e.rewrite(sp.Piecewise)) if e.has(sp.Max, sp.Min, sp.Abs,
                                                               sp.Piecewise, sp.Heaviside) else e
    if not isinstance(e, sp.Piecewise):
        return [Piece(sp.Integer(0), sp.Integer(1), e)], {}
    pieces, points = [], {}
    for g, s in e.as_expr_set_pairs(sp.Interval(0, 1)):
        for a in _atoms_of(s):
            if isinstance(a, sp.FiniteSet):
                for p in a:
                    points[p] = g
            elif isinstance(a, sp.Interval):
                if a.measure == 0:
                    points[a.start] = g
                else:
                    pieces.append(Piece(a.start, a.end, g))
            elif a is not sp.S.EmptySet:
                raise Undecidable(f"a piece on {a}")
    pieces.sort(key=lambda p: midpoint(p.lo))
    for p, q in zip(pieces, pieces[1:], strict=False):
        if not proved_equal(p.hi, q.lo):
            raise Undecidable(f"pieces that do not meet ({p.hi}, {q.lo})")
    if not pieces or not (proved_equal(pieces[0].lo, 0) and proved_equal(pieces[-1].hi, 1)):
        raise Undecidable("the pieces do not cover [0, 1]")
    return pieces, points


def midpoint(x: sp.Expr):
    lo, hi = enclose(x, dps=30)
    return (lo + hi) / 2


def proved_equal(a: sp.Expr, b: sp.Expr) -> bool:
    """a == b proved: identical, a polynomial difference that expands to 0, or SymPy's
    simplification of the difference to 0 (a difference that Arb separates from 0 first)."""
    if a == b:
        return True
    d = a - b
    if d.is_Rational:
        return d == 0
    if d.is_number:
        try:
            lo, hi = enclose(d, dps=30)
            if lo > 0 or hi < 0:
                return False
        except Undecidable:
            pass
    elif d.is_polynomial(*d.free_symbols):
        return sp.expand(d) == 0
    try:
        return sp.simplify(d) == 0
    except Exception:  # noqa: BLE001 - SymPy's simplify may fail on exotic input
        return False


def compare(a: sp.Expr, b: sp.Expr, dps: int) -> int | None:
    """-1, 0, +1 for a < b, a == b, a > b, proved (exact, SymPy, or disjoint Arb balls), or
    None."""
    if isinstance(a, sp.Rational) and isinstance(b, sp.Rational):
        return int(bool(a > b)) - int(bool(a < b))
    if proved_equal(a, b):
        return 0
    try:
        A, B = enclose(a, dps=dps), enclose(b, dps=dps)
    except Undecidable:
        return None
    if A[1] < B[0]:
        return -1
    if A[0] > B[1]:
        return +1
    return None


def value_at(g: sp.Expr, t: sp.Symbol, c: sp.Expr, side: str | None = None) -> sp.Expr:
    """g at c, or its one-sided limit there when the substitution is not a finite number."""
    v = g.subs(t, c)
    if v.is_finite and v.is_extended_real is not False and not v.has(sp.nan, sp.zoo):
        return v
    if side is None:
        return v
    return sp.limit(g, t, c, dir=side)


def ball_iv(x: sp.Expr, env: dict | None, dps: int) -> tuple:
    return enclose(x, env, dps=dps)


def show_num(x) -> str:
    return mp.nstr(x, 8) if isinstance(x, mp.mpf) else sp.sstr(x)
