"""Parameter validation with three-valued logic (DESIGN.md section 2).

A condition raises only when it is *definitely* false: ``mu >= 0`` passes for a plain symbol
(unknown), for a symbol declared ``nonnegative`` (true) and for ``1``, and raises for ``-1``.
"""

from __future__ import annotations

import math
import numbers

import sympy as sp
from sympy import S

from .errors import InvalidParameter

__all__ = ["param", "fuzzy_ge", "fuzzy_le", "fuzzy_gt", "fuzzy_lt", "is_number"]


def _sign_ge(d: sp.Basic) -> bool | None:
    return d.is_extended_nonnegative


def fuzzy_ge(x: sp.Basic, y: sp.Basic) -> bool | None:
    """Three-valued ``x >= y``."""
    return _sign_ge(sp.sympify(x) - sp.sympify(y))


def fuzzy_le(x: sp.Basic, y: sp.Basic) -> bool | None:
    """Three-valued ``x <= y``."""
    return _sign_ge(sp.sympify(y) - sp.sympify(x))


def fuzzy_gt(x: sp.Basic, y: sp.Basic) -> bool | None:
    """Three-valued ``x > y``."""
    return (sp.sympify(x) - sp.sympify(y)).is_extended_positive


def fuzzy_lt(x: sp.Basic, y: sp.Basic) -> bool | None:
    """Three-valued ``x < y``."""
    return (sp.sympify(y) - sp.sympify(x)).is_extended_positive


def is_number(x: sp.Basic) -> bool:
    """True for a SymPy number without free symbols (``1``, ``1/3``, ``sqrt(2)``)."""
    return bool(getattr(x, "is_number", False)) and not x.free_symbols


def _fmt_range(lower, upper, lower_open, upper_open, integer):
    lo = "-oo" if lower is None else str(lower)
    hi = "oo" if upper is None else str(upper)
    left = "(" if (lower_open or lower is None) else "["
    right = ")" if (upper_open or upper is None) else "]"
    kind = "an integer in " if integer else "a real number in "
    return f"{kind}{left}{lo}, {hi}{right}"


def to_sympy(name: str, value: object, allowed: str, owner: str | None = None) -> sp.Basic:
    """Sympify ``value`` strictly: numbers, SymPy expressions; never strings or NaN."""
    if isinstance(value, (str, bytes, bool)) or value is None:
        raise InvalidParameter(name, value, allowed, owner,
                               "Pass a number or a SymPy expression, not "
                               f"{type(value).__name__}")
    if isinstance(value, numbers.Real) and not isinstance(value, sp.Basic):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise InvalidParameter(name, value, allowed, owner)
    try:
        v = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise InvalidParameter(name, value, allowed, owner,
                               f"Cannot interpret {type(value).__name__} as a number") from exc
    if not isinstance(v, sp.Expr):
        raise InvalidParameter(name, value, allowed, owner, "Expected a scalar expression")
    if v is S.NaN or v.has(S.NaN):
        raise InvalidParameter(name, value, allowed, owner)
    if v.has(sp.Float):
        # A float is the exact binary rational it holds, on every route: no rule or numeric
        # path may round it to its 15 printed digits (printing shows it as the float again).
        v = v.xreplace({x: sp.Rational(x) for x in v.atoms(sp.Float) if x.is_finite})
    if v.is_extended_real is False:
        raise InvalidParameter(name, value, allowed, owner, "The value must be real")
    return v


def param(name: str, value: object, *, lower=None, upper=None, lower_open: bool = False,
          upper_open: bool = False, integer: bool = False, owner: str | None = None,
          allow_infinite: bool = False) -> sp.Expr:
    """Sympify and validate a scalar parameter; raise only if a condition is definitely false.

    Returns the sympified value. ``lower``/``upper`` bound the allowed range (``None`` for
    unbounded), ``*_open`` make the bound strict, ``integer`` demands an integer.
    """
    allowed = _fmt_range(lower, upper, lower_open, upper_open, integer)
    v = to_sympy(name, value, allowed, owner)
    if not allow_infinite and (v.is_finite is False):
        raise InvalidParameter(name, value, allowed, owner)
    if integer and isinstance(v, sp.Float) and v.is_finite and sp.Rational(v).is_Integer:
        v = sp.Integer(int(v))  # 2.0 is the integer 2: one node for one meaning
    if integer and v.is_integer is False:
        raise InvalidParameter(name, value, allowed, owner)
    if lower is not None:
        ok = fuzzy_gt(v, lower) if lower_open else fuzzy_ge(v, lower)
        if ok is False:
            raise InvalidParameter(name, value, allowed, owner)
    if upper is not None:
        ok = fuzzy_lt(v, upper) if upper_open else fuzzy_le(v, upper)
        if ok is False:
            raise InvalidParameter(name, value, allowed, owner)
    return v
