"""Exit statuses of the ``tradeoff`` command and how an exception becomes one error line.

0 success (verify: the claim holds); 1 verify: the claim fails; 2 bad input; 3 verify:
undecided; 4 the computation failed (never 1, so a failed verify is never mistaken for
"fails"); 130 Ctrl-C. Every error is one line ``tradeoff: error: ...`` on stderr, never a
traceback.
"""

from __future__ import annotations

import re
import sys

from ..core.errors import MAX_SHOWN, InvalidParameter, TradeOffError

__all__ = ["EXIT_OK", "EXIT_FAILS", "EXIT_BAD_INPUT", "EXIT_UNDECIDED", "EXIT_FAILED",
           "EXIT_INTERRUPTED", "EXIT_HELP", "UsageError", "classify", "report",
           "shorten_quoted", "silence_stdout"]

#: Exit statuses (the module docstring; EXIT_HELP says the same in the command's --help).
EXIT_OK, EXIT_FAILS, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_FAILED, EXIT_INTERRUPTED = \
    0, 1, 2, 3, 4, 130

EXIT_HELP = """\
Exit status: 0 success (verify: the claim holds); 1 verify: the claim fails; 2 bad input (an
invalid parameter, an expression the parser refuses, a usage error, an output file that cannot
be written); 3 verify: undecided; 4 the computation failed (a numerical error, no closed form
or evaluation route, an overflow, running out of memory or recursion depth, any other
unexpected exception; never reported as 1, so a failed verify is never mistaken for "fails");
130 Ctrl-C (nothing printed). Errors print exactly one line "tradeoff: error: ..." on stderr,
never a traceback."""

#: Longest error line printed, in characters (the values inside are already shortened).
MAX_LINE = 1000


class UsageError(Exception):
    """A command-line usage error, reported as one line (exit status 2)."""


def shorten_quoted(message: str) -> str:
    """Shorten long quoted arguments that argparse copies into its messages."""

    def cut(m: re.Match[str]) -> str:
        body = m.group(0)
        return f"{body[:MAX_SHOWN - 10]}...' ({len(body) - 2} characters)"

    return re.sub(r"'[^']{%d,}'" % (MAX_SHOWN + 1), cut, message)


def _text_of(exc: BaseException) -> str:
    """``str(exc)`` without failing (a message may hold an integer too long to print)."""
    try:
        return str(exc)
    except Exception:
        return ""


def classify(exc: BaseException) -> tuple[int, str]:
    """The exit status and the message for an exception that reached the command's ``main``."""
    text = _text_of(exc)
    if isinstance(exc, (UsageError, InvalidParameter)):
        return EXIT_BAD_INPUT, text
    if isinstance(exc, TradeOffError):
        return EXIT_FAILED, text or type(exc).__name__
    if isinstance(exc, MemoryError):
        return EXIT_FAILED, "out of memory" + (f": {text}" if text else "") + \
            "; try a smaller expression or a lower --dps"
    if isinstance(exc, RecursionError):
        return EXIT_FAILED, "the computation nests too deeply (Python's recursion limit)"
    if isinstance(exc, OverflowError):
        return EXIT_FAILED, ("numerical overflow" + (f" ({text})" if text else "")
                             + ": a number in the computation is too large or too small for it")
    if isinstance(exc, ValueError) and "integer string conversion" in text:
        return EXIT_FAILED, "a number in the result is too long to print (more than 4300 digits)"
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return EXIT_FAILED, f"internal error ({detail})"


def report(message: str) -> None:
    """Print ``tradeoff: error: MESSAGE`` as one line of at most :data:`MAX_LINE` characters."""
    line = " ".join(message.split()) or "unknown error"
    if len(line) > MAX_LINE:
        line = line[: MAX_LINE - 3] + "..."
    try:
        print(f"tradeoff: error: {line}", file=sys.stderr)
    except Exception:  # stderr closed: nothing more can be said
        pass


def silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that the interpreter's final flush
    does not print "Exception ignored ... BrokenPipeError"."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except Exception:  # no real file descriptor (captured output): nothing to silence
        pass
