"""The error hierarchy (DESIGN.md section 7).

Every error raised on purpose by the library is a :class:`TradeOffError`; messages say what
failed and what to do next.
"""

from __future__ import annotations


class TradeOffError(Exception):
    """Base class of every error the library raises on purpose."""


class InvalidParameter(TradeOffError, ValueError):
    """A parameter or argument is outside its allowed range or of the wrong kind.

    The message names the parameter, the value received and the allowed range.
    """

    def __init__(self, name: str, value: object, allowed: str, owner: str | None = None,
                 hint: str | None = None):
        self.name = name
        self.value = value
        self.allowed = allowed
        self.owner = owner
        where = f"{owner}: " if owner else ""
        msg = f"{where}parameter {name} = {value!r} is invalid; allowed: {allowed}"
        if hint:
            msg += f". {hint}"
        super().__init__(msg)


class NoClosedForm(TradeOffError):
    """No closed form (or no evaluation route yet) exists for the requested object."""


class NumericalError(TradeOffError, ArithmeticError):
    """A numeric computation did not reach the requested accuracy."""
