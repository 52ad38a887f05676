"""Levels: the type-I error alpha (or any number in [0, 1]) a user passes, taken exactly.

Every real number a user holds is read as the exact number it is (``float`` as its binary
rational, strings as decimals or ``p/q`` literals), and everything that is not a real number in
[0, 1] raises :class:`~.errors.InvalidParameter` naming the parameter, before any computation.
"""

from __future__ import annotations

import decimal
import fractions
import math
import numbers
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath.ctx_mp_python import _mpf as MPF

from .errors import InvalidParameter
from .validate import mpf_rational

__all__ = ["as_level", "decimal_string", "MAX_EXPONENT", "MAX_DIGITS"]


#: The largest decimal exponent accepted in a level written as a string ("1e-100000").
MAX_EXPONENT = 100_000
#: The most significant digits of a level written as a decimal string.
MAX_DIGITS = 4000


class _Refused(Exception):
    """A value that is not a level: what to show of it and why (raised once, by the caller, as
    :class:`InvalidParameter`)."""

    def __init__(self, shown: Any, hint: str | None = None):
        super().__init__(hint)
        self.shown, self.hint = shown, hint


_STRING_HINT = "a string must be a decimal or p/q literal such as '1e-300', '0.05' or '1/3'"


def decimal_string(text: str, name: str, allowed: str) -> sp.Rational:
    """A decimal (``"1e-300"``, ``"0.999"``) or ``p/q`` literal as an exact Rational, refusing
    exponents beyond :data:`MAX_EXPONENT` before any big number is built; else
    :class:`InvalidParameter` naming ``name``."""
    try:
        return _decimal_string(text)
    except _Refused as why:
        raise InvalidParameter(name, why.shown, allowed, hint=why.hint) from None


def _decimal_string(text: str) -> sp.Rational:
    t = text.strip()
    if "/" in t:
        parts = t.split("/")
        if len(parts) != 2:
            raise _Refused(text, _STRING_HINT)
        p_, q_ = (_decimal_string(x) for x in parts)
        if q_ == 0:
            raise _Refused(text, "the denominator is 0")
        return p_ / q_
    try:
        d = decimal.Decimal(t)
    except decimal.InvalidOperation:
        raise _Refused(text, _STRING_HINT) from None
    return _from_decimal(d, text)


def _from_decimal(d: decimal.Decimal, shown: Any) -> sp.Rational:
    if not d.is_finite():
        raise _Refused(shown)
    sign, digits, exp = d.as_tuple()
    if len(digits) > MAX_DIGITS:  # (Python refuses to read longer integers from text)
        raise _Refused(f"<a decimal of {len(digits)} digits>",
                       f"at most {MAX_DIGITS} significant digits")
    if abs(exp + len(digits)) > MAX_EXPONENT:
        raise _Refused(shown, f"decimal exponents beyond +-{MAX_EXPONENT} are not supported")
    m = int("".join(map(str, digits)) or "0")
    r = sp.Integer(m) * sp.Integer(10) ** exp if exp >= 0 else sp.Rational(m, 10**-exp)
    return -r if sign else r


def _exact(alpha: Any) -> sp.Expr:
    """The exact SymPy number a user's value holds, else :class:`_Refused`."""
    if isinstance(alpha, sp.Rational):  # (the common case, first: itself)
        return alpha
    if isinstance(alpha, (bool, np.bool_, bytes, bytearray)) or alpha is None:
        raise _Refused(alpha)
    if isinstance(alpha, str):
        return _decimal_string(alpha)
    if isinstance(alpha, MPF):  # (the mpf of any mpmath context)
        if not mpmath.isfinite(alpha):
            raise _Refused(alpha)
        return mpf_rational(alpha)
    if isinstance(alpha, (float, np.floating)):
        if math.isnan(alpha) or math.isinf(alpha):
            raise _Refused(alpha)
        # (exact: sp.Rational(float) rounds at mpmath's global precision)
        return sp.Rational(*float(alpha).as_integer_ratio())
    if isinstance(alpha, fractions.Fraction):
        return sp.Rational(alpha.numerator, alpha.denominator)
    if isinstance(alpha, decimal.Decimal):
        return _from_decimal(alpha, alpha)
    if isinstance(alpha, sp.Float):
        return sp.Rational(alpha) if alpha.is_finite else alpha
    if isinstance(alpha, (numbers.Integral, np.integer)):
        return sp.Integer(int(alpha))
    if isinstance(alpha, sp.Basic):
        if alpha.atoms(sp.Float):
            return alpha.xreplace({x: sp.Rational(x) for x in alpha.atoms(sp.Float)
                                   if x.is_finite})
        return alpha
    raise _Refused(alpha)


def _in_unit_interval(A: sp.Expr, alpha: Any) -> sp.Expr:
    """A itself when it is a real number in [0, 1], else :class:`_Refused`."""
    if isinstance(A, sp.Rational):  # (decided by its integers, without SymPy's assumptions)
        if A.p < 0 or A.p > A.q:
            raise _Refused(alpha)
        return A
    if A is sp.nan or not A.is_number or A.free_symbols:
        raise _Refused(alpha, "use f(alpha) for the symbolic value")
    if A.is_extended_real is False or A.is_finite is False:
        raise _Refused(alpha)
    if (A < 0) == sp.true or (A > 1) == sp.true:
        raise _Refused(alpha)
    return A


def as_level(alpha: Any, name: str = "alpha") -> sp.Expr:
    """Convert a type-I level to an exact SymPy number in [0, 1].

    Every real number a user holds is taken exactly: ``int``, ``float`` and ``numpy`` floats
    (the binary rational they hold), ``fractions.Fraction``, ``decimal.Decimal``, mpmath
    ``mpf``, SymPy numbers, and strings spelling a decimal or ``p/q`` (``"1e-300"``,
    ``"0.999"``, ``"1/3"``). Booleans, bytes, complex numbers, NaN, infinities and values
    outside [0, 1] raise :class:`InvalidParameter` naming ``name``.
    """
    try:
        return _in_unit_interval(_exact(alpha), alpha)
    except _Refused as why:
        raise InvalidParameter(name, why.shown, "a real number in [0, 1]",
                               hint=why.hint) from None
