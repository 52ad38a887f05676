"""LaTeX and plain-text printing of expressions and values in the papers' notation.

Each node knows its own notation (``_latex`` / ``_sympystr`` in its module); this module is the
public entry point and handles values and plain SymPy expressions alike.
"""

from __future__ import annotations

import fractions
from typing import Any

import sympy as sp

from ..core.node import sstr, tex

__all__ = ["latex", "text"]


def latex(obj: Any, **settings: Any) -> str:
    """LaTeX for a trade-off expression, a SymPy expression, a Value or a Derivation."""
    if hasattr(obj, "latex") and not isinstance(obj, sp.Basic):
        return obj.latex()
    if isinstance(obj, fractions.Fraction):  # SymPy's printer takes it for a SymPy Rational
        obj = sp.Rational(obj.numerator, obj.denominator)
    return tex(obj, **settings)


def text(obj: Any) -> str:
    """Plain text in the API's Python syntax (``G(1) @ G(2)**3``)."""
    if isinstance(obj, sp.Basic):
        return sstr(obj)
    return str(obj)
