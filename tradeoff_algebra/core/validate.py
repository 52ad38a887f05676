"""Parameter validation with three-valued logic (docs/architecture.md, "Nodes").

A condition raises only when it is *definitely* false: ``mu >= 0`` passes for a plain symbol
(unknown), for a symbol declared ``nonnegative`` (true) and for ``1``, and raises for ``-1``.

Whatever a user passes, validation either returns a SymPy expression or raises
:class:`InvalidParameter`; it never lets a raw ``TypeError``/``ValueError``/``OverflowError``
out of SymPy or mpmath. Refused, with the reason in the message:

* strings, bytes, booleans, ``None`` and anything that is not a real scalar (complex numbers,
  even with a zero imaginary part, Python's, NumPy's and mpmath's, containers, arrays, sets,
  arbitrary objects; a 0-d NumPy array is read as the number it holds);
* SymPy Floats whose exact binary rational (every Float is taken as the rational it holds)
  would need more than a million bits, such as ``Float("1e-400000")``;
* NaN of every float type (Python, NumPy, Decimal, mpmath, SymPy), and +-infinity unless
  the caller allows it;
* numbers too large to compare with a bound in reasonable time: a number containing ``exp(x)``
  (or ``b**x``) whose exponent may exceed ``10**100`` in absolute value
  (:data:`MAX_EXP_ARG_LOG10`), e.g. ``exp(10**1000)``, ``exp(exp(10**100))``; SymPy decides
  the sign of such numbers by evaluating them, which takes seconds to hours, or overflows;
* numbers whose comparison with a bound fails inside SymPy/mpmath (the failure is named).

Options that are not numbers are read by the same module: :func:`flag` (``True``/``False``
only: a truthy string would switch an option on), :func:`choice` (one of a few words) and
:func:`items` (a sequence read once into a list: a 0-d NumPy array, a string or a number is
refused by name instead of failing in iteration).

Symbolic values stay three-valued: when SymPy cannot decide a condition on an expression with
free symbols (even by failing), the condition is unknown and passes; ``numeric=True`` refuses
free symbols where a number is needed (a tolerance, a target, a search range), and
:func:`count` reads a count (``dps``, a number of points) as a Python ``int``.
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Callable, Iterable, Mapping

import mpmath
import numpy as np
import sympy as sp
from sympy import S

from .errors import InvalidParameter

__all__ = ["param", "count", "flag", "choice", "items", "fuzzy_ge", "fuzzy_le", "fuzzy_gt",
           "fuzzy_lt", "fuzzy_equals", "is_number", "to_sympy", "MAX_EXP_ARG_LOG10", "mpf_rational",
           "probability_vector"]

#: A number is refused when it contains ``exp(x)`` or ``b**x`` with ``|x|`` possibly above
#: ``10**MAX_EXP_ARG_LOG10`` (a crude upper bound, see :func:`_log10_bound`): deciding its sign
#: would make mpmath reduce ``x`` modulo ``log 2`` to that many digits.
MAX_EXP_ARG_LOG10 = 100

#: Integral Floats (``2.0``) become Integers; one with more bits than this is refused rather
#: than expanded (``Float("1e100000000")`` would be a 40 MB integer).
_MAX_FLOAT_INT_BITS = 100_000

#: Floats are taken as the exact binary rationals they hold; a SymPy Float whose rational
#: needs more bits than this in numerator or denominator is refused (a Python float needs at
#: most 1075).
_MAX_FLOAT_BITS = 1_000_000

# Trees larger than this are not scanned for huge exponents (the scan is linear in the tree).
_MAX_SCAN_NODES = 100_000


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


def fuzzy_equals(x: sp.Basic, c: int) -> bool | None:
    """Three-valued ``x == c`` for an integer ``c``: ``(x - c).is_zero``, decided for a SymPy
    Rational by its numerator and denominator (x = p/q with q > 0 equals c iff p = c q) without
    forming ``x - c`` and running SymPy's assumption deductions on the new number (the rules
    that test a parameter against 0 or 1 on every query)."""
    if isinstance(x, sp.Rational):
        return x.p == c * x.q
    return (x - c).is_zero


def is_number(x: sp.Basic) -> bool:
    """True for a SymPy number without free symbols (``1``, ``1/3``, ``sqrt(2)``)."""
    return bool(getattr(x, "is_number", False)) and not x.free_symbols


_LOG10_E = math.log10(math.e)


def _log10_bound(x: sp.Basic) -> float | None:
    """A crude upper bound on ``log10 |x|`` (``inf`` if astronomically large), or ``None`` where
    the structure gives none (logarithms, negative powers, unknown functions, symbols).

    Cheap and never evaluates anything: Rationals by their bit length, ``+`` by its largest
    term, ``*`` by the sum, ``b**e`` and ``exp`` by the exponent's bound.
    """
    if x.is_Rational:
        return max(abs(int(x.p)).bit_length(), 1) * math.log10(2)
    if x.is_Float:
        if not x.is_finite:
            return math.inf
        m, e = x._mpf_[1], x._mpf_[2]
        return (int(m).bit_length() + int(e)) * math.log10(2) if m else 0.0
    if x.is_NumberSymbol or x is S.ImaginaryUnit:
        return 1.0
    if x.is_Add or x.is_Mul:
        parts = [_log10_bound(a) for a in x.args]
        if any(b is None for b in parts):
            return None
        if x.is_Add:
            return max(parts) + math.log10(len(parts))  # type: ignore[type-var]
        return sum(max(b, 0.0) for b in parts)  # type: ignore[type-var]
    if isinstance(x, sp.exp) or (x.is_Pow and x.base is S.Exp1):
        a = _log10_bound(x.exp)
        return None if a is None else _pow10(a) * _LOG10_E
    if x.is_Pow:
        b, e = _log10_bound(x.base), _log10_bound(x.exp)
        if b is None or e is None or (x.exp.is_extended_nonnegative is not True):
            return None
        return _pow10(e) * max(b, 0.0)
    return None


def _pow10(a: float) -> float:
    return math.inf if a > 300 else 10.0 ** a


def _exponent_bound(x: sp.Basic) -> float | None:
    """Upper bound on ``log10 |t|`` over the exponents ``t`` of every ``exp(t)`` and ``b**t``
    in ``x`` (``b**t`` as ``exp(t log b)``), where :func:`_log10_bound` gives one."""
    worst: float | None = None
    for count, node in enumerate(sp.preorder_traversal(x)):
        if count > _MAX_SCAN_NODES:
            break
        if isinstance(node, sp.exp) or (node.is_Pow and node.base is S.Exp1):
            t = _log10_bound(node.exp)
        elif node.is_Pow:
            e, b = _log10_bound(node.exp), _log10_bound(node.base)
            t = None if e is None or b is None else e + math.log10(1.0 + 2.31 * max(b, 0.0))
        else:
            continue
        if t is not None and (worst is None or t > worst):
            worst = t
    return worst


def _fmt_range(lower, upper, lower_open, upper_open, integer, infinite=False):
    lo = "-oo" if lower is None else str(lower)
    hi = "oo" if upper is None else str(upper)
    left = "(" if (lower_open or (lower is None and not infinite)) else "["
    right = ")" if (upper_open or (upper is None and not infinite)) else "]"
    kind = "an integer in " if integer else "a real number in "
    return f"{kind}{left}{lo}, {hi}{right}"


def _failure(exc: BaseException) -> str:
    """A one-line account of an exception raised by SymPy/mpmath while checking a value."""
    try:
        text = " ".join(str(exc).split())
    except Exception:
        text = ""
    if len(text) > 100:
        text = text[:97] + "..."
    return (f"It cannot be checked: SymPy failed with {type(exc).__name__}"
            + (f" ({text})" if text else "") + "; the value is probably too large or too small")


def mpf_rational(x) -> sp.Rational:
    """The exact binary rational a finite mpf holds, with its sign (``man_exp`` gives the
    mantissa without it); +-inf and NaN give SymPy's ``oo``, ``-oo`` and ``nan`` (their
    ``man_exp`` has mantissa 0: they were read as 0, so ``RDP.of(Zero)`` was ``{2: 0}``)."""
    if not mpmath.isfinite(x):
        return S.NaN if mpmath.isnan(x) else (S.Infinity if x > 0 else S.NegativeInfinity)
    man, exp = x.man_exp
    r = sp.Integer(int(man)) * sp.Integer(2) ** int(exp)
    return -r if x < 0 else r


def to_sympy(name: str, value: object, allowed: str, owner: str | None = None) -> sp.Expr:
    """Sympify ``value`` strictly: numbers and SymPy expressions are accepted.

    Refused with :class:`InvalidParameter`: strings and bytes (never parsed here; use
    :func:`tradeoff_algebra.parse.parse_expr`), booleans and ``None`` (almost always a mistake
    for a number), NaN, non-scalars (lists, arrays, sets, Booleans, matrices), values that are
    definitely not real (``1j``, ``I``, ``log(-1)``), numbers containing an exponential too
    large to validate (see :data:`MAX_EXP_ARG_LOG10`), and anything whose conversion fails.
    """
    try:
        return _to_sympy(name, value, allowed, owner)
    except InvalidParameter:
        raise
    except Exception as exc:  # SymPy/mpmath failures, RecursionError, MemoryError, ...
        raise InvalidParameter(name, value, allowed, owner, _failure(exc)) from None


def _to_sympy(name: str, value: object, allowed: str, owner: str | None) -> sp.Expr:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]  # a 0-d array is the NumPy scalar it holds
    if isinstance(value, (str, bytes, bytearray, memoryview, bool, np.bool_)) or value is None:
        raise InvalidParameter(name, value, allowed, owner,
                               "Pass a number or a SymPy expression, not "
                               f"{type(value).__name__}")
    if isinstance(value, (complex, np.complexfloating, mpmath.mpc)):
        raise InvalidParameter(name, value, allowed, owner,
                               "The value must be real (a complex number is refused even with "
                               "a zero imaginary part)")
    if isinstance(value, (numbers.Real, decimal.Decimal)) and not isinstance(value, sp.Basic):
        # NaN of every float type (float32 NaN used to fail in sympify); a float infinity
        # (read as oo only where param allows it)
        if (isinstance(value, (float, np.floating, decimal.Decimal))
                and (math.isnan(value) or math.isinf(value))):
            raise InvalidParameter(name, value, allowed, owner)
    if isinstance(value, mpmath.mpf) and mpmath.isfinite(value):
        # an mpf is the exact binary rational it holds (sympify would round it to the global
        # mpmath precision, 53 bits by default)
        value = mpf_rational(value)
    try:
        v = sp.sympify(value, strict=True)
    except Exception as exc:
        raise InvalidParameter(name, value, allowed, owner,
                               f"Cannot interpret {type(value).__name__} as a number") from exc
    if (not isinstance(v, sp.Expr) or isinstance(v, (sp.AccumBounds, sp.MatrixExpr, sp.Order))
            or v.is_commutative is False):
        raise InvalidParameter(name, value, allowed, owner, "Expected a scalar expression")
    if v is S.NaN or v.has(S.NaN):
        raise InvalidParameter(name, value, allowed, owner)
    if v.has(sp.Float):
        # A float is the exact binary rational it holds, on every route: no rule or numeric
        # path may round it to its 15 printed digits (printing shows it as the float again).
        floats = [x for x in v.atoms(sp.Float) if x.is_finite]
        if any(max(abs(int(x._mpf_[2])), int(x._mpf_[3])) > _MAX_FLOAT_BITS for x in floats):
            raise InvalidParameter(name, value, allowed, owner,
                                   "A Float this large or this small has no exact rational "
                                   f"of at most {_MAX_FLOAT_BITS} bits; pass a Rational or "
                                   "a SymPy expression such as 10**-400000")
        v = v.xreplace({x: sp.Rational(x) for x in floats})
    worst = _exponent_bound(v)
    if worst is not None and worst > MAX_EXP_ARG_LOG10:
        raise InvalidParameter(
            name, value, allowed, owner,
            "The value is too large to validate: it contains an exponential exp(x) or b**x "
            f"whose exponent x may exceed 10**{MAX_EXP_ARG_LOG10} in absolute value")
    if v.is_extended_real is False:
        raise InvalidParameter(name, value, allowed, owner, "The value must be real")
    return v


def _is_nan(value: object) -> bool:
    try:
        return math.isnan(value)  # type: ignore[arg-type]
    except Exception:  # a signalling Decimal NaN
        return True


def _decide(cond: Callable[[], bool | None], v: sp.Expr, name: str, value: object,
            allowed: str, owner: str | None) -> bool | None:
    """Run a three-valued check; a failure inside SymPy is "unknown" for an expression with
    free symbols and an :class:`InvalidParameter` for a number."""
    try:
        return cond()
    except Exception as exc:
        if getattr(v, "free_symbols", None):
            return None
        raise InvalidParameter(name, value, allowed, owner, _failure(exc)) from None


def _exact(x: object) -> tuple[int, int] | None:
    """The exact rational value of a plain number (a Python int, a finite Python float, a
    SymPy Rational) as (numerator, denominator > 0), else None (bool, NaN, infinities and
    everything else). Integer pairs, not Fractions: no gcd is needed to compare."""
    t = type(x)
    if t is int:
        return x, 1
    if t is float:
        return x.as_integer_ratio() if math.isfinite(x) else None
    if isinstance(x, sp.Rational):
        return int(x.p), int(x.q)
    return None


def _rational_in_range(value: object, lower, upper, lower_open: bool, upper_open: bool,
                       integer: bool) -> sp.Rational | None:
    """:func:`param`'s answer for a plain number inside a range of plain bounds (the common
    case: a Rational, an int or a float checked against 0 or 1), decided in exact rationals
    without SymPy's assumptions (a/b <= c/d iff a d <= c b for b, d > 0); None wherever the
    general path is needed (any other value or bound, a value outside the range or not an
    integer: that path raises with its message). The value returned is the one the general
    path returns: the number itself as a SymPy Rational, a float as the exact binary rational
    it holds."""
    v = _exact(value)
    if v is None or (integer and v[1] != 1):
        return None
    a, b = v
    if lower is not None:
        lo = _exact(lower)
        if lo is None:
            return None
        x, y = a * lo[1], lo[0] * b
        if not (x > y if lower_open else x >= y):
            return None
    if upper is not None:
        hi = _exact(upper)
        if hi is None:
            return None
        x, y = a * hi[1], hi[0] * b
        if not (x < y if upper_open else x <= y):
            return None
    if isinstance(value, sp.Rational):
        return value
    return sp.Integer(a) if b == 1 else sp.Rational(a, b)


def _log_in_range(value: object, lower, upper, lower_open: bool,
                  integer: bool) -> sp.Expr | None:
    """:func:`param`'s answer for log r, r a positive Rational, against a lower bound 0 and
    no upper bound (eps = log 3 of randomized response and f_{eps,delta}): log r >= 0 iff
    r >= 1, decided without SymPy's assumptions (0.3 ms in a fresh process); None wherever
    the general path is needed."""
    if integer or upper is not None or not isinstance(value, sp.log):
        return None
    r = value.args[0]
    if not (isinstance(r, sp.Rational) and r > 0):
        return None
    if lower is not None:
        lo = _exact(lower)
        if lo is None or lo[0] != 0 or not (r > 1 if lower_open else r >= 1):
            return None
    return value


def param(name: str, value: object, *, lower=None, upper=None, lower_open: bool = False,
          upper_open: bool = False, integer: bool = False, owner: str | None = None,
          allow_infinite: bool = False, numeric: bool = False) -> sp.Expr:
    """Sympify and validate a scalar parameter; raise only if a condition is definitely false.

    Returns the sympified value. ``lower``/``upper`` bound the allowed range (``None`` for
    unbounded), ``*_open`` make the bound strict, ``integer`` demands an integer,
    ``allow_infinite`` admits +-oo (a float infinity is read as SymPy's ``oo``), ``numeric``
    demands a number (no free symbols). Raises :class:`InvalidParameter` for everything
    :func:`to_sympy` refuses, for infinite values (unless ``allow_infinite``), for values
    definitely outside the range or definitely not integers, for free symbols when
    ``numeric``, and for numbers whose comparison fails inside SymPy (too large to compare);
    never any other exception.
    """
    fast = _rational_in_range(value, lower, upper, lower_open, upper_open, integer)
    if fast is None:
        fast = _log_in_range(value, lower, upper, lower_open, integer)
    if fast is not None:
        return fast
    allowed = _fmt_range(lower, upper, lower_open, upper_open, integer, allow_infinite)
    if numeric:
        allowed = allowed.replace("a real number in", "a number in").replace(
            "an integer in", "an integer (a number) in")
    if (allow_infinite and isinstance(value, (float, np.floating, decimal.Decimal))
            and not isinstance(value, bool) and not _is_nan(value) and math.isinf(value)):
        value_ = sp.oo if value > 0 else -sp.oo
        v = to_sympy(name, value_, allowed, owner)
    else:
        v = to_sympy(name, value, allowed, owner)
    if numeric and v.free_symbols:
        raise InvalidParameter(name, value, allowed, owner,
                               "A number is needed here: substitute values for the symbols "
                               f"{', '.join(sorted(map(str, v.free_symbols)))}")

    def decide(cond: Callable[[], bool | None]) -> bool | None:
        return _decide(cond, v, name, value, allowed, owner)

    if not allow_infinite and decide(lambda: v.is_finite) is False:
        raise InvalidParameter(name, value, allowed, owner)
    if integer and isinstance(v, sp.Float) and v.is_finite:
        mpf = v._mpf_
        if int(mpf[2]) + int(mpf[3]) > _MAX_FLOAT_INT_BITS:
            raise InvalidParameter(name, value, allowed, owner,
                                   "The Float is too large to convert to an integer exactly")
        if sp.Rational(v).is_Integer:
            v = sp.Integer(int(v))  # 2.0 is the integer 2: one node for one meaning
    if integer and decide(lambda: v.is_integer) is False:
        raise InvalidParameter(name, value, allowed, owner)
    if lower is not None:
        ok = decide(lambda: fuzzy_gt(v, lower) if lower_open else fuzzy_ge(v, lower))
        if ok is False:
            raise InvalidParameter(name, value, allowed, owner)
    if upper is not None:
        ok = decide(lambda: fuzzy_lt(v, upper) if upper_open else fuzzy_le(v, upper))
        if ok is False:
            raise InvalidParameter(name, value, allowed, owner)
    return v


def count(name: str, value: object, *, lower: int = 1, upper: int | None = None,
          owner: str | None = None) -> int:
    """A count (digits ``dps``, a number of points or pixels) as a Python ``int``: an integer
    type (``int``, NumPy integers, SymPy Integers; not ``bool``, not a float such as ``2.0``)
    in ``[lower, upper]``, checked by :func:`param`; anything else raises
    :class:`InvalidParameter`."""
    allowed = _fmt_range(lower, upper, False, False, True)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,
                                                                     sp.Integer)):
        raise InvalidParameter(name, value, allowed, owner,
                               f"Pass an integer, not {type(value).__name__}")
    return int(param(name, int(value), lower=lower, upper=upper, integer=True, owner=owner))


def flag(name: str, value: object, owner: str | None = None) -> bool:
    """A yes/no option: ``True`` or ``False`` (a NumPy bool too). Anything else (``"no"``,
    ``0``, ``None``, an array) raises :class:`InvalidParameter`: a truthy string would
    otherwise silently switch the option on."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidParameter(name, value, "True or False", owner)


def choice(name: str, value: object, options: tuple[str, ...], owner: str | None = None) -> str:
    """One of the words ``options`` (compared as strings, so that an array or a symbol is
    refused by name instead of failing inside ``in``)."""
    if not isinstance(value, str) or value not in options:
        words = [repr(o) for o in options]
        allowed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
        raise InvalidParameter(name, value, allowed, owner)
    return value


def items(name: str, value: object, allowed: str, owner: str | None = None,
          hint: str | None = None, mapping: bool = False) -> list:
    """The entries of a sequence parameter as a list: strings, bytes, non-iterables, 0-d
    NumPy arrays and (unless ``mapping``) mappings raise :class:`InvalidParameter`, as does an
    iterable that fails while it is read; a mapping gives its ``(key, value)`` pairs."""
    refused = (str, bytes, bytearray) if mapping else (str, bytes, bytearray, Mapping)
    if (isinstance(value, refused) or not isinstance(value, Iterable)
            or (isinstance(value, np.ndarray) and value.ndim == 0)):
        raise InvalidParameter(name, value, allowed, owner, hint)
    try:
        return list(value.items()) if isinstance(value, Mapping) else list(value)
    except Exception as exc:
        raise InvalidParameter(name, value, allowed, owner,
                               f"Reading its entries failed with {type(exc).__name__}") from None


#: A float probability vector within this of summing to 1 is rescaled exactly by its sum.
PROBABILITY_SUM_TOL = sp.Rational(1, 10**12)


def probability_vector(name: str, ws, owner: str) -> list[sp.Expr]:
    """A probability vector: entries in [0, 1] summing to 1, each read by :func:`param`
    (floats at their exact binary values); a vector with float entries within
    :data:`PROBABILITY_SUM_TOL` of summing to 1 is rescaled exactly by its sum (as
    ``Discrete`` does), any other must sum to exactly 1."""
    from collections.abc import Sequence

    allowed = "a non-empty sequence of numbers >= 0 with sum 1"
    if isinstance(ws, (str, bytes)) or not isinstance(ws, (Sequence, sp.Tuple)):
        raise InvalidParameter(name, ws, allowed, owner)
    items = list(ws)
    if not items:
        raise InvalidParameter(name, ws, allowed, owner, "the sequence is empty")
    out = [param(f"{name}[{i}]", x, lower=0, upper=1, owner=owner) for i, x in enumerate(items)]
    total = sp.Add(*out)
    d = total - 1
    if d.is_Rational and d != 0:
        floats = any(isinstance(x, (float, sp.Float)) for x in items)
        if floats and abs(d) <= PROBABILITY_SUM_TOL:
            return [x / total for x in out]
        raise InvalidParameter(name, ws, allowed, owner, f"its entries sum to {sp.sstr(total)}")
    if d.is_number and d.is_zero is False:
        raise InvalidParameter(name, ws, allowed, owner, f"its entries sum to {sp.sstr(total)}")
    return out
