"""Trade-off symbols: an arbitrary trade-off function f, named, as a leaf of the expression tree.

``f = TradeOffSymbol("f")`` stands for *every* trade-off function (Dong, Roth & Su, Def. 2:
convex, continuous, non-increasing, 0 <= f(alpha) <= 1 - alpha); ``symmetric=True`` for every
symmetric one (f = f^{-1}, Sec. 2.1 after Prop. 2), ``tight=True`` for every one with
f(0) = 1 (no f_{0,delta} part: the hypothesis of Thm. 5's kappa_3 < oo and of Thm. 11).
Operators build on it as on any node (``f @ g``, ``Inverse(f)``, ``C(p, f)``, ``Group(f, k)``);
``simplify``, ``derive`` and ``verify`` then work by the rules valid for every trade-off
function (``rewrite/general.py``, ``verify/symbolic.py``), and ``xreplace({f: G(1)})``
substitutes a concrete trade-off expression for the symbol.

A symbol has no numbers: every numeric question about an expression that contains one raises
:class:`NoClosedForm` naming the symbol (:func:`check_no_symbol`).

The node's ``args`` hold its whole state, ``(Str(name), symmetric, tight)``, so equality,
hashing, pickling and ``func(*args)`` work as for every node; its ``free_symbols`` are empty
(a trade-off symbol is not a scalar parameter: parameter boxes never range over it).
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.symbol import Str

from .errors import InvalidParameter, NoClosedForm
from .node import TradeOff

__all__ = ["TradeOffSymbol", "tradeoff_symbols", "has_tradeoff_symbol", "check_no_symbol",
           "INSTANCES", "EXTREMES", "register_instance"]

#: Concrete trade-off functions that may stand in for a symbol (the search for a
#: counterexample of ``verify/symbolic.py``), each as ``(f, symmetric, tight)``; and the extreme
#: functions ``EXTREMES["Id"]``, ``EXTREMES["Zero"]`` for the rules valid for every f. Filled by
#: ``families/symbol_instances.py`` (core names no family: docs/architecture.md, "Layers").
INSTANCES: list[tuple[TradeOff, bool, bool]] = []
EXTREMES: dict[str, TradeOff] = {}


def register_instance(f: TradeOff, symmetric: bool, tight: bool) -> None:
    """Offer ``f`` as a substitute for symbols: for every symbol when it is symmetric and has
    f(0) = 1, else for the symbols that do not declare what it lacks."""
    INSTANCES.append((f, bool(symmetric), bool(tight)))


def _flag(name: str, value: Any) -> sp.Basic:
    if isinstance(value, (bool, sp.logic.boolalg.BooleanAtom)):
        return sp.true if bool(value) else sp.false
    raise InvalidParameter(name, value, "True or False", "TradeOffSymbol")


def _name(value: Any) -> Str:
    if isinstance(value, Str):
        value = value.name
    elif isinstance(value, sp.Symbol):  # the expression parser makes names symbols
        value = value.name
    if not isinstance(value, str) or not value.isidentifier():
        raise InvalidParameter("name", value, "a name: a Python identifier such as 'f' or 'g1'",
                               "TradeOffSymbol")
    return Str(value)


class TradeOffSymbol(TradeOff):
    """An arbitrary trade-off function named ``name`` (Dong, Roth & Su, Def. 2).

    ``symmetric=True``: f = f^{-1} (Sec. 2.1, after Prop. 2); ``tight=True``: f(0) = 1.
    Two symbols are the same function iff their name and flags agree.

    >>> import tradeoff_algebra as ta
    >>> f = ta.TradeOffSymbol("f")
    >>> ta.simplify(ta.Inverse(ta.Inverse(f @ ta.Id)))
    f
    """

    def __new__(cls, name: Any, symmetric: Any = False, tight: Any = False):
        return TradeOff.__new__(cls, _name(name), _flag("symmetric", symmetric),
                                _flag("tight", tight))

    @property
    def name(self) -> str:
        return self.args[0].name

    @property
    def is_symmetric(self) -> bool | None:
        """True when declared symmetric; otherwise unknown (an arbitrary f may be either)."""
        return True if self.args[1] is sp.true else None

    @property
    def is_tight(self) -> bool | None:
        """True when declared with f(0) = 1; otherwise unknown."""
        return True if self.args[2] is sp.true else None

    @property
    def free_symbols(self) -> set:
        return set()

    def _eval_at(self, alpha):
        return None  # f(alpha) stays the unevaluated Applied(f, alpha)

    def _eval_inverse(self):
        return self if self.is_symmetric else None

    def _sympystr(self, printer) -> str:
        return self.name

    def _latex(self, printer) -> str:
        name = self.name
        base, _, sub = name.partition("_")
        if not sub and len(base) > 1 and base[-1].isdigit():  # g1 -> g_{1}
            i = len(base.rstrip("0123456789"))
            base, sub = base[:i], base[i:]
        return base + ("_{%s}" % sub if sub else "")

    def _sympyrepr(self, printer) -> str:  # srepr: source that rebuilds the node
        return "TradeOffSymbol(%r, symmetric=%s, tight=%s)" % (
            self.name, self.is_symmetric is True, self.is_tight is True)

    def __reduce__(self):
        return (type(self), self.args)

    def description(self) -> str:
        """What the symbol ranges over, in words (the scope of a verdict about it):
        "every symmetric trade-off function f with f(0) = 1"."""
        kind = "symmetric trade-off function" if self.is_symmetric else "trade-off function"
        tail = f" with {self.name}(0) = 1" if self.is_tight else ""
        return f"every {kind} {self.name}{tail}"


def tradeoff_symbols(*exprs: Any) -> list[TradeOffSymbol]:
    """The trade-off symbols occurring in ``exprs`` (expressions or scalars holding
    functionals of expressions), in a fixed order."""
    found: set = set()
    for x in exprs:
        if isinstance(x, sp.Basic):
            found |= x.atoms(TradeOffSymbol)
    return sorted(found, key=lambda s: (s.name, s.args[1] is sp.true, s.args[2] is sp.true))


def has_tradeoff_symbol(*exprs: Any) -> bool:
    """Does any of ``exprs`` contain a trade-off symbol?"""
    return any(isinstance(x, sp.Basic) and x.has(TradeOffSymbol) for x in exprs)


def check_no_symbol(expr: Any, what: str = "a numeric value") -> None:
    """Raise :class:`NoClosedForm` naming the symbol when ``expr`` contains a trade-off symbol:
    an arbitrary trade-off function has no numbers."""
    syms = tradeoff_symbols(expr)
    if syms:
        names = ", ".join(s.name for s in syms)
        raise NoClosedForm(
            f"{what} of {expr} needs numbers, but the trade-off symbol {names} stands for an "
            f"arbitrary trade-off function; substitute a concrete one first "
            f"(expr.xreplace({{{syms[0].name}: G(1)}})) or reason with simplify/derive/verify")
