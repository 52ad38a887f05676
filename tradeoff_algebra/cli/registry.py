"""The subcommands of ``tradeoff``: one ordered registry that builds the parser and dispatches.

A subcommand is one function and one registration, which holds everything about it::

    @subcommand("auc", "the area under the ROC curve 1 - f", EXPR, dps_option(20),
                examples=[('"G(1)"', "Phi(1/sqrt(2))")])
    def _auc(args):
        ...
        return EXIT_OK

Its name, one-line help, arguments (:class:`~.readers.Arg`), examples (shown in ``tradeoff
--help`` and ``tradeoff NAME --help``) and handler (``args -> exit status``) form a
:class:`Subcommand` in :data:`COMMANDS`, in registration order; :func:`build_parser` turns the
registry into an ``argparse`` parser and :func:`dispatch` runs the chosen handler.
:func:`unregister` takes a subcommand out again.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from ..core.errors import InvalidParameter
from .readers import ARGUMENTS_HELP, Arg
from .status import EXIT_HELP, UsageError, shorten_quoted

__all__ = ["Subcommand", "subcommand", "register", "unregister", "COMMANDS", "build_parser",
           "dispatch", "OVERVIEW"]

#: The head of ``tradeoff --help``; the examples of every subcommand and the notes follow.
OVERVIEW = """\
tradeoff: trade-off functions of f-differential privacy on the command line.

Expressions are written in the API's Python syntax (G(1), EpsDelta(1, delta=1e-5), C(p, f),
f @ g, f**n, noisy_sgd(...), ...) and parsed by a whitelist: nothing is ever passed to eval.
In Python, help(tradeoff_algebra) lists the constructors, help(tradeoff_algebra.parse) what
an expression may contain, and tradeoff_algebra.rules() the cited rules that simplify and
derive apply."""

#: Where the comments of the examples start in ``tradeoff --help``.
_COMMENT_COLUMN = 48
_WIDTH = 95


@dataclass(frozen=True)
class Subcommand:
    """One subcommand: ``tradeoff NAME ARGS...`` runs ``run(args)``, which returns the exit
    status. ``examples`` are (arguments, comment) pairs; an argument string may continue on
    further lines (indented under the first argument, plus their own leading spaces).
    ``description`` (default: ``help``) heads ``tradeoff NAME --help``."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], int]
    args: tuple[Arg, ...] = ()
    examples: tuple[tuple[str, str], ...] = ()
    description: str = ""


#: Every registered subcommand by name, in registration order (the order of --help).
COMMANDS: dict[str, Subcommand] = {}


def register(command: Subcommand) -> Subcommand:
    """Add ``command`` to :data:`COMMANDS`; a name is registered once."""
    if not (isinstance(command.name, str) and re.fullmatch(r"[a-z][a-z0-9_-]*", command.name)):
        raise InvalidParameter("name", command.name, "a lowercase word such as 'kl'",
                               "subcommand")
    if command.name in COMMANDS:
        raise InvalidParameter("name", command.name, "a name not registered yet (unregister "
                               "the old subcommand first)", "subcommand")
    if not callable(command.run):
        raise InvalidParameter("run", command.run, "a function of the parsed arguments",
                               "subcommand")
    COMMANDS[command.name] = command
    return command


def subcommand(name: str, help: str, *args: Arg, examples: Sequence[tuple[str, str]] = (),
               description: str = "") -> Callable[[Callable[[argparse.Namespace], int]],
                                                   Callable[[argparse.Namespace], int]]:
    """Register the decorated function as the subcommand ``name`` (see :class:`Subcommand`);
    the function is returned unchanged."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace],
                                                                          int]:
        register(Subcommand(name, help, run, tuple(args), tuple(map(tuple, examples)),
                            description))
        return run

    return decorate


def unregister(name: str) -> Subcommand:
    """Take the subcommand ``name`` out of :data:`COMMANDS` and return it."""
    if name not in COMMANDS:
        raise InvalidParameter("name", name, f"a registered subcommand ({', '.join(COMMANDS)})",
                               "unregister")
    return COMMANDS.pop(name)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (:class:`~.status.UsageError`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{shorten_quoted(message)} (see {self.prog} --help)")


def _example_lines(command: Subcommand, indent: str) -> list[str]:
    lines = []
    for text, comment in command.examples:
        head = f"tradeoff {command.name} "
        first, *more = text.split("\n")
        line = (indent + head + first).rstrip()
        if comment:
            line = f"{line:<{_COMMENT_COLUMN}}" + ("  " if len(line) >= _COMMENT_COLUMN else "")
            line += f"# {comment}"
        lines.append(line)
        lines.extend(indent + " " * len(head) + m for m in more)
    return lines


def _paragraphs(text: str) -> str:
    return "\n\n".join(textwrap.fill(" ".join(p.split()), _WIDTH) for p in text.split("\n\n"))


def _overview() -> str:
    examples = [line for c in COMMANDS.values() for line in _example_lines(c, "    ")]
    return "\n\n".join([OVERVIEW, "Examples:\n" + "\n".join(examples), ARGUMENTS_HELP,
                        EXIT_HELP])


def build_parser() -> Parser:
    """The ``argparse`` parser of every registered subcommand, in registration order."""
    parser = Parser(prog="tradeoff", description=_overview(),
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for c in COMMANDS.values():
        examples = _example_lines(c, "  ")
        p = sub.add_parser(c.name, help=c.help, description=_paragraphs(c.description or c.help),
                           epilog="examples:\n" + "\n".join(examples) if examples else None,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        for a in c.args:
            p.add_argument(*a.flags, **a.options)
    return parser


def dispatch(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run the chosen subcommand's handler."""
    args = build_parser().parse_args(argv)
    return COMMANDS[args.command].run(args)
