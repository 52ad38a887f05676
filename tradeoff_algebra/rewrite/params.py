"""Cheap tidying of the SymPy parameters a rule builds.

Rules build parameters with SymPy's automatic evaluation (``sqrt(mu**2 + nu**2)``,
``sqrt(n)*mu``); :func:`tidy` tries a few inexpensive, value-preserving rewrites on small
expressions and keeps one only when it is strictly shorter (by ``count_ops``). Large expressions
(for example the radicand of a 1000-fold Gaussian composition) are left untouched, so
simplification stays fast. ``sympy.simplify`` is never called on anything but tiny expressions.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..core.node import TradeOffExpr

__all__ = ["tidy", "tidy_new_params"]

#: Expressions with more nodes than this are left as they are.
MAX_TIDY_SIZE = 40
#: ``sympy.simplify`` is tried only below this size.
MAX_SIMPLIFY_SIZE = 12


def _size(x: sp.Basic, cap: int) -> int:
    n = 0
    for _ in sp.preorder_traversal(x):
        n += 1
        if n > cap:
            break
    return n


@lru_cache(maxsize=4096)
def tidy(x: sp.Basic) -> sp.Basic:
    """A value-preserving, strictly shorter form of a small parameter expression, or ``x``."""
    if not isinstance(x, sp.Expr) or x.is_Atom:
        return x
    size = _size(x, MAX_TIDY_SIZE)
    if size > MAX_TIDY_SIZE:
        return x
    cands = [sp.powdenest(x), sp.factor_terms(x)]
    if size <= MAX_SIMPLIFY_SIZE:
        cands.append(sp.simplify(x))
    best, best_ops = x, sp.count_ops(x)
    for c in cands:
        if c.free_symbols <= x.free_symbols and c.is_finite is not False:
            ops = sp.count_ops(c)
            if ops < best_ops:
                best, best_ops = c, ops
    return best


def _params(node: sp.Basic, out: set) -> set:
    for a in node.args:
        if isinstance(a, TradeOffExpr):
            _params(a, out)
        else:
            out.add(a)
    return out


def tidy_new_params(out: sp.Basic, before: sp.Basic) -> sp.Basic:
    """Tidy the parameters of ``out`` that a rule built (those not already in ``before``)."""
    if not isinstance(out, TradeOffExpr):
        return out
    old = _params(before, set())

    def walk(n: sp.Basic) -> sp.Basic:
        new, changed = [], False
        for a in n.args:
            if isinstance(a, TradeOffExpr):
                b = walk(a)
            elif a in old:
                b = a
            else:
                b = tidy(a)
            changed |= b is not a
            new.append(b)
        return n.func(*new) if changed else n

    return walk(out)
