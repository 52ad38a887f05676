"""The verify subcommand: a claim LHS REL RHS, its verdict and the exit status it implies."""

from __future__ import annotations

import argparse

import sympy as sp

from . import readers
from .readers import EXPR_HELP, arg, dps_option
from .registry import subcommand
from .status import EXIT_FAILS, EXIT_OK, EXIT_UNDECIDED, UsageError


def _over(text: str) -> tuple[str, tuple]:
    """``name=lo:hi`` with lo and hi parsed like numbers (``oo`` allowed)."""
    name, sep, rng = text.partition("=")
    lo, sep2, hi = rng.partition(":")
    if not (sep and sep2 and name.strip().isidentifier()):
        raise UsageError(f"--over {text!r}: expected NAME=LO:HI such as mu=0:5")
    ends = []
    for t in (lo, hi):
        t = t.strip()
        ends.append(sp.oo if t in ("oo", "inf") else -sp.oo if t in ("-oo", "-inf")
                    else readers.number(t, "over", "a real number or oo"))
    return name.strip(), tuple(ends)


@subcommand("verify", "decide a claim LHS REL RHS (pointwise in alpha for trade-off functions)",
            arg("lhs", metavar="LHS", help=EXPR_HELP + ", or a scalar expression"),
            arg("rel", metavar="REL", choices=["==", "<=", ">="], help="==, <= or >="),
            arg("rhs", metavar="RHS", help="the other side, of the same kind"),
            arg("--over", action="append", metavar="NAME=LO:HI",
                help="the range of a parameter, e.g. mu=0:5 (repeatable; oo allowed)"),
            dps_option(30),
            arg("--latex", action="store_true", help="print the verdict as LaTeX"),
            examples=[('"G(mu) @ G(nu)" == "G(sqrt(mu**2 + nu**2))"', "a claim and its verdict"),
                      ('"G(1)" ">=" "C(1/2, EpsDelta(1, 0))" --over mu=0:5', "")],
            description="decide a claim LHS REL RHS (pointwise in alpha for trade-off "
            "functions). verify prints the claim, the verdict (holds / fails / undecided), how "
            "it was decided, the evidence and a counterexample; its exit status is 0 (holds), 1 "
            "(fails) or 3 (undecided).")
def _verify(args: argparse.Namespace) -> int:
    from ..core.errors import InvalidParameter
    from ..core.node import TradeOff
    from ..verify import verify

    over = dict(_over(t) for t in args.over or [])
    sides = []
    for name, text in (("LHS", args.lhs), ("RHS", args.rhs)):
        x = readers.expression(text)
        if not isinstance(x, (TradeOff, sp.Expr)):
            raise InvalidParameter(name, text, "a trade-off expression or a scalar expression",
                                   hint="a privacy notion compares through its trade-off "
                                   "function, e.g. G(1) for GDP(1)")
        sides.append(x)
    v = verify(sides[0], args.rel, sides[1], over=over or None, dps=args.dps)
    print(v.latex() if args.latex else readers.shown(v))
    return {True: EXIT_OK, False: EXIT_FAILS, None: EXIT_UNDECIDED}[v.status]
