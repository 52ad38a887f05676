"""The error hierarchy (docs/architecture.md, "Errors").

Every error raised on purpose by the library is a :class:`TradeOffError`; messages say what
failed and what to do next.

Messages never print a gigantic value in full: :func:`brief` shows at most
:data:`MAX_SHOWN` characters of a value's ``repr`` (an integer too long for that is shown as
"an integer with N digits"), and it never fails, even where ``repr`` itself would (Python
refuses to convert integers of more than 4300 digits to text). Every error survives
``pickle`` and ``copy.deepcopy`` with its class, message and attributes (``__reduce__`` below),
so errors can cross process boundaries (``multiprocessing``, ``concurrent.futures``).
"""

from __future__ import annotations

import math
import pickle
from typing import Any

__all__ = ["TradeOffError", "InvalidParameter", "NoClosedForm", "NumericalError", "brief",
           "MAX_SHOWN", "ToleranceWarning",
           "EstimateWarning"]

#: Longest ``repr`` of a value shown in an error message, in characters.
MAX_SHOWN = 60

_LOG10_2 = math.log10(2)


def _digits(n: int) -> tuple[int, bool]:
    """The number of decimal digits of ``|n|`` and whether that count is exact.

    Exact up to a million bits (one comparison with a power of ten); beyond that the count
    from the bit length may be one too high, and computing the power of ten would take seconds.
    """
    n = abs(n)
    bits = n.bit_length()
    if bits == 0:
        return 1, True
    hi = int(bits * _LOG10_2) + 1  # 10**(hi-1) <= 2**bits, so hi-1 <= digits <= hi
    if bits <= 1_000_000:
        return (hi if n >= 10 ** (hi - 1) else hi - 1), True
    return hi, False


def _describe_integer(n: int) -> str:
    d, exact = _digits(n)
    sign = "a negative" if n < 0 else "an"
    return f"{sign} integer with {'' if exact else 'about '}{d} digits"


def brief(value: object, limit: int = MAX_SHOWN) -> str:
    """``repr(value)`` for an error message, at most about ``limit`` characters long.

    An integer (Python or SymPy) too long to show becomes "an integer with N digits", a
    rational with such a numerator or denominator "a rational number with N-digit numerator
    and M-digit denominator"; any other long ``repr`` is cut, keeping its start and end and
    saying how long it was. A ``repr`` that raises (an integer beyond Python's 4300-digit
    conversion limit inside a SymPy expression, a recursion limit on a deep tree, a broken
    ``__repr__``) is replaced by a description of the value's type. Never raises.
    """
    try:
        if isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > 3.33 * limit:
                return _describe_integer(value)
        elif getattr(value, "is_Rational", False) is True:
            p, q = int(value.p), int(value.q)  # type: ignore[attr-defined]
            if max(p.bit_length(), q.bit_length()) > 3.33 * limit:
                if q == 1:
                    return _describe_integer(p)
                return (f"a rational number with {_digits(p)[0]}-digit numerator and "
                        f"{_digits(q)[0]}-digit denominator")
        text = repr(value)
    except Exception:
        module = getattr(type(value), "__module__", "") or ""
        if module.startswith(("sympy", "tradeoff_algebra")):
            return "<a SymPy expression too large or too deep to print>"
        return f"<a {getattr(type(value), '__name__', 'value')} that cannot be printed>"
    if len(text) <= limit:
        return text
    tail = max(limit // 6, 4)
    head = max(limit - tail - 3, 4)
    return f"{text[:head]}...{text[-tail:]} ({len(text)} characters)"


def _rebuild(cls: type, args: tuple, state: dict[str, Any]) -> TradeOffError:
    """Unpickle an error without calling its ``__init__`` (whose signature may differ from
    ``args``, the already formatted message)."""
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


def _picklable(value: object) -> bool:
    try:
        pickle.dumps(value)
    except Exception:
        return False
    return True


class TradeOffError(Exception):
    """Base class of every error the library raises on purpose.

    Errors pickle and deep-copy as themselves: the message (``args``) and every attribute are
    restored without calling ``__init__``, so subclasses with any constructor signature
    round-trip.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


class InvalidParameter(TradeOffError, ValueError):
    """A parameter or argument is outside its allowed range or of the wrong kind.

    The message names the parameter, the value received (shortened by :func:`brief` when its
    ``repr`` is long or cannot be formed) and the allowed range; the attributes ``name``,
    ``value``, ``allowed``, ``owner`` and ``hint`` keep what was passed, ``value`` unshortened.
    """

    def __init__(self, name: str, value: object, allowed: str, owner: str | None = None,
                 hint: str | None = None):
        self.name = name
        self.value = value
        self.allowed = allowed
        self.owner = owner
        self.hint = hint
        where = f"{owner}: " if owner else ""
        msg = f"{where}parameter {name} = {brief(value)} is invalid; allowed: {allowed}"
        if hint:
            msg += f". {hint}"
        super().__init__(msg)

    def __reduce__(self) -> tuple[Any, ...]:
        """Round-trip through ``pickle``/``copy.deepcopy`` with the same class, message and
        attributes. A ``value`` that cannot be pickled (a lambda, an open file) is replaced by
        its shortened ``repr`` so that the error itself still pickles; the message is unchanged.
        """
        state = dict(self.__dict__)
        if not _picklable(state.get("value")):
            state["value"] = brief(state.get("value"))
        return (_rebuild, (type(self), self.args, state))


class NoClosedForm(TradeOffError):
    """No closed form (or no evaluation route yet) exists for the requested object."""


class NumericalError(TradeOffError, ArithmeticError):
    """A numeric computation did not reach the requested accuracy."""


class ToleranceWarning(UserWarning):
    """A refined enclosure stopped above the requested relative width (the size limits of the
    grid or the float64 rounding floor were reached first): the result is still a guaranteed
    enclosure, only wider than asked; ``Value.width`` says how wide."""


class EstimateWarning(UserWarning):
    """A result that was asked for as a guaranteed enclosure holds estimates (an mpmath or
    float64 route without an error bound): those numbers are not certified. A ``Value`` says so
    itself (``Value.guarantee``); this warning is for arrays, which cannot."""


class InternalError(NumericalError):
    """An unexpected exception inside a public numeric call, caught at the API boundary: a
    defect of the library, never a wrong number. The message names the call and the original
    exception (also kept as ``__cause__``); ``MemoryError`` and ``RecursionError`` become this
    error too, with a hint to ask for less."""
