"""The ``tradeoff`` command line: expressions in the API's Python syntax, parsed by a whitelist
(``tradeoff_algebra.parse``; nothing is ever passed to eval). ``tradeoff --help`` lists the
subcommands with examples; ``tradeoff NAME --help`` describes one.

The package, one idea a module:

* ``status``: the exit statuses and how any exception becomes one error line;
* ``readers``: the arguments (``Arg``), the shared ones (EXPR, --latex, --dps) and the readers
  that check their values, naming the argument;
* ``registry``: the subcommands (``@subcommand``), in one ordered registry that builds the
  parser and dispatches;
* the subcommands by theme: ``symbolic`` (latex, text, simplify, derive, approx), ``values``
  (eval, roc, delta, eps, renyi, gdp, convert), ``design`` (plot, calibrate), ``claims``
  (verify), ``demo``.

Adding a subcommand is one decorated function in one of these modules (or in a module imported
below, for a new theme); :func:`main` is the ``tradeoff`` console script and
``python -m tradeoff_algebra.cli``.
"""

from __future__ import annotations

from .readers import MAX_DPS, MIN_DPS
from .registry import COMMANDS, dispatch, subcommand, unregister
from .status import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_FAILS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNDECIDED,
    classify,
    report,
    silence_stdout,
)

# isort: off
# The subcommands register on import, in this order (the order of --help).
from . import symbolic, values, design, claims, demo  # noqa: F401
# isort: on

__all__ = ["main", "subcommand", "unregister", "COMMANDS", "MIN_DPS", "MAX_DPS", "EXIT_OK",
           "EXIT_FAILS", "EXIT_BAD_INPUT", "EXIT_UNDECIDED", "EXIT_FAILED", "EXIT_INTERRUPTED"]

def main(argv: list[str] | None = None) -> int:
    """Run the ``tradeoff`` command with ``argv`` (default ``sys.argv[1:]``); return the status.

    0 on success (verify: holds); 1 verify: fails; 2 for bad input (usage errors,
    :class:`InvalidParameter`, expressions the parser refuses); 3 verify: undecided; 4 for a
    computation that failed (any other :class:`TradeOffError`, an overflow, memory or recursion
    exhaustion, any unexpected exception, a closed output pipe) — never 1, which a script
    reads as a failed claim; 130 on Ctrl-C. Every error is one line ``tradeoff: error: ...``
    on stderr; no traceback is ever printed. ``--help`` exits through ``SystemExit(0)`` as
    argparse does.
    """
    try:
        return dispatch(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout closed early (| head): nothing more to say
        silence_stdout()
        return EXIT_FAILED
    except Exception as exc:  # the command line never shows a traceback
        try:
            status, message = classify(exc)
        except Exception:  # pragma: no cover - classifying must not fail either
            status, message = EXIT_FAILED, f"internal error ({type(exc).__name__})"
        report(message)
        return status
