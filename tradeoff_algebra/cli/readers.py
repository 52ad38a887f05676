"""The arguments of the ``tradeoff`` subcommands: how one is declared (:class:`Arg`), the ones
many subcommands share (:data:`EXPR`, :data:`LATEX`, :func:`dps_option`), and the readers that
turn their text into checked values, each error naming the argument, its value and the allowed
range.

ALPHA, EPS, DELTA and the like are parsed as expressions (with the parser's size limits), so
decimals and fractions are exact; ``oo``/``inf`` is infinity. ``--dps`` is an integer in
[:data:`MIN_DPS`, :data:`MAX_DPS`].
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import sympy as sp

from ..core.errors import InvalidParameter, brief

__all__ = ["Arg", "arg", "EXPR", "EXPR_HELP", "LATEX", "dps_option", "ARGUMENTS_HELP",
           "MIN_DPS", "MAX_DPS", "integer_option", "check_dps", "expression",
           "numeric_expression", "no_value", "number", "shown", "digits_asked", "digits_note"]

#: The range of --dps (the library enforces the same cap).
MIN_DPS, MAX_DPS = 1, 10_000

#: How the arguments read, for the command's --help.
ARGUMENTS_HELP = f"""\
The commands that print a number (or draw one) refuse an expression with free symbols, naming
them: substitute numbers first.

ALPHA, EPS and DELTA are parsed the same way (with the parser's size limits) and taken exactly
(1e-300, 1/3, 1 - 1e-20), oo or inf meaning infinity (delta "G(1)" oo is 1 - f(0)); an error
names the argument (alpha, eps, delta, order, tol, start, ...); --dps is an integer in
[{MIN_DPS}, {MAX_DPS}]."""


class Arg(NamedTuple):
    """One argument of a subcommand: the positional ``argparse`` names and the keyword options
    of ``ArgumentParser.add_argument`` (``arg("--dps", type=int, default=30)``)."""

    flags: tuple[str, ...]
    options: dict[str, Any]


def arg(*flags: str, **options: Any) -> Arg:
    """An :class:`Arg`, written as the ``add_argument`` call it stands for."""
    return Arg(flags, options)


EXPR_HELP = 'an expression in the API\'s Python syntax, e.g. "G(1) @ EpsDelta(1, 0)**3"'
#: The expression argument of most subcommands (read it with :func:`expression` or
#: :func:`numeric_expression`).
EXPR = arg("expr", metavar="EXPR", help=EXPR_HELP)
#: --latex: print LaTeX instead of text.
LATEX = arg("--latex", action="store_true", help="print LaTeX instead of text")


def integer_option(option: str, lo: int, hi: int) -> Callable[[str], int]:
    """An integer option's ``type``: the text must be an integer of at most 30 digits; the
    range [lo, hi] is checked after parsing, so that the error names the parameter."""

    def parse(text: str) -> int:
        t = text.strip()
        if not re.fullmatch(r"[+-]?\d+", t):
            raise argparse.ArgumentTypeError(f"invalid int value: {brief(text)}")
        if len(t.lstrip("+-0")) > 30:
            raise argparse.ArgumentTypeError(f"invalid value {brief(text)}: {option} must be "
                                             f"an integer in [{lo}, {hi}]")
        return int(t)

    return parse


class _Given(argparse.Action):
    """Store the option and record that it was given (``args.dps_given``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, self.dest + "_given", True)


def dps_option(default: int) -> Arg:
    """--dps with its default (check the value with :func:`check_dps`). Given explicitly
    (``args.dps_given``), it also sets the digits printed of each end of an enclosure
    (:func:`digits_asked`)."""
    return arg("--dps", type=integer_option("--dps", MIN_DPS, MAX_DPS), default=default,
               action=_Given,
               help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default {default}); given, also "
                    "the significant digits printed of each end of an enclosure")


def digits_asked(args: argparse.Namespace) -> int | None:
    """The --dps given on the command line, or None when the default applies."""
    return args.dps if getattr(args, "dps_given", False) else None


def check_dps(dps: int) -> int:
    """Refuse --dps outside [MIN_DPS, MAX_DPS]: 0 digits mean nothing, and beyond 10000
    digits mpmath's working precision makes a single evaluation take minutes or exhaust
    memory (99999999999999999999 digits cannot be represented at all)."""
    if not MIN_DPS <= dps <= MAX_DPS:
        raise InvalidParameter("dps", dps, f"an integer in [{MIN_DPS}, {MAX_DPS}]",
                               hint="--dps is the number of decimal digits to compute")
    return dps


def expression(text: str) -> Any:
    """EXPR: a trade-off expression, a notion or a scalar, by the parser's whitelist."""
    from ..parse import parse_expr

    return parse_expr(text)


def numeric_expression(text: str, name: str = "EXPR", notions: bool = False) -> Any:
    """A trade-off expression (or with ``notions`` a privacy notion) for a command that prints
    a number: anything else and free symbols are refused, the symbols named."""
    from ..core.node import TradeOff
    from ..notions import Notion

    f = expression(text)
    if not isinstance(f, (TradeOff, Notion) if notions else TradeOff):
        raise InvalidParameter(name, text, "a trade-off expression (G(1), EpsDelta(1, 0), ...)"
                               + (" or a notion (GDP(mu), zCDP(rho), tCDP(rho, omega), "
                                  "ApproxDP(eps, delta))" if notions else ""))
    syms = sorted(map(str, getattr(f, "free_symbols", ())))
    if syms:
        raise InvalidParameter(name, text, "an expression without free symbols (this command "
                               "computes a number)", hint=no_value(syms))
    return f


def no_value(syms: list[str]) -> str:
    """The hint for free symbols where a number is needed."""
    which = f"symbol {syms[0]} has" if len(syms) == 1 else f"symbols {', '.join(syms)} have"
    return f"the {which} no value: write numbers in their place"


def number(text: str, name: str = "alpha",
           allowed: str = "a number in [0, 1] such as 0.05, 1e-300 or 1/3") -> sp.Expr:
    """A numeric argument, parsed like an expression, so decimals and fractions are exact;
    ``oo``/``inf`` (with a sign) is infinity, for the library to accept (``delta G(1) oo``) or
    refuse by name."""
    word = text.strip().lstrip("+")
    if word in ("oo", "inf", "-oo", "-inf"):
        return -sp.oo if word.startswith("-") else sp.oo
    try:
        a = expression(text)
    except InvalidParameter as err:  # the parser names "expression": name the argument
        if err.name != "expression":
            raise
        raise InvalidParameter(name, text, allowed, hint=err.hint) from None
    if not isinstance(a, sp.Expr) or not a.is_number:
        raise InvalidParameter(name, text, allowed)
    return a


def shown(v: Any, digits: int | None = None) -> str:
    """A Value as printed: exact and certified numbers plainly, an estimate marked as one
    (``0.6278685 (estimate)``); anything else as it prints itself. With ``digits`` (an explicit
    --dps), each end of an enclosure has that many significant digits, rounded outward
    (:meth:`Value.text`)."""
    from ..numeric.value import Value

    if isinstance(v, Value):
        text = v.text(digits)
        return text if v.is_certain else f"{text} (estimate)"
    return str(v)


def digits_note(v: Any, digits: int | None) -> str | None:
    """Why an enclosure printed with ``digits`` digits of each end is not known to that many
    digits (its ends agree to fewer), or None."""
    from ..numeric.value import Value

    if digits is None or not isinstance(v, Value):
        return None
    known = v.known_digits()
    if known is None or known >= digits:
        return None
    why = (" (route: %s)" % v.route) if v.route else ""
    hint = ("; the privacy-loss distribution engine stops at a relative width of 5e-4 by "
            "default (in Python, tradeoff_algebra.pld_options(tol=...) narrows it)"
            if "privacy-loss" in v.route else "")
    return (f"note: each end is printed to {digits} digits, but the enclosure{why} is "
            f"{float(v.width):.2g} wide: the value is known to about {known} significant "
            f"digits, not {digits}{hint}")
