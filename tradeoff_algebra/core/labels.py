"""Labels: a caption that a node carries for display, outside its value.

A mechanism constructor knows what a practitioner gave it ("DP-SGD, σ = 1.1, q = 256/60000,
T = 14063, Poisson"); the node it returns is the trade-off expression
(``AddRemove(Mix(G(10/11), 16/3125)**14063)``). The label keeps the first for ``repr``, the
Jupyter display and plot legends, and is no part of the second:

* a node is a ``sympy.Basic`` whose ``args`` hold its whole value; the label is an instance
  attribute, so equality, hashing, ``subs``, ``xreplace``, rewriting and every numeric route
  see the same node with or without it (``labelled(f, t) == f``, same hash);
* :func:`labelled` returns a new instance (the node it is given is never changed, so a node
  shared by SymPy's cache or by another expression never acquires a label);
* anything built from a labelled node (``f @ g``, ``f.subs(...)``, ``simplify(f)`` when it
  rebuilds, a pickle round trip) is a plain node: the label describes the construction, and a
  new expression is a new construction. An operation that hands back its argument unchanged
  hands back the label with it; since a label never takes part in equality, a cached result
  may come back with or without the label of an equal node.

``TradeOffExpr.__repr__`` appends the label as a comment (``expr  # label``, so the repr stays
the expression's source), ``_repr_latex_`` after the formula, and ``ta.plot`` uses it as the
legend.
"""

from __future__ import annotations

from typing import TypeVar

from sympy import Basic

from .errors import InvalidParameter

__all__ = ["labelled", "label_of"]

N = TypeVar("N", bound=Basic)

#: The instance attribute that holds a label.
_ATTR = "_label"


def labelled(node: N, text: str) -> N:
    """A copy of ``node`` that carries the caption ``text`` (module docstring); equal to
    ``node`` and of the same hash. ``text`` is a non-empty string of one line."""
    if not isinstance(node, Basic):
        raise InvalidParameter("node", node, "a SymPy node (a trade-off expression)",
                               "labelled")
    if not isinstance(text, str) or not text.strip() or "\n" in text:
        raise InvalidParameter("text", text, "a non-empty string of one line", "labelled")
    copy = Basic.__new__(type(node), *node.args)  # the class's __new__ (and any cache) skipped
    copy.__dict__.update(getattr(node, "__dict__", {}))
    setattr(copy, _ATTR, text.strip())
    return copy


def label_of(node: object) -> str | None:
    """The label ``node`` carries, or ``None``."""
    return getattr(node, "__dict__", {}).get(_ATTR)
