"""Subcommands that print an expression: latex, text, simplify, derive, approx.

EXPR is read through ``readers.expression`` (looked up at each call, so that one replacement
of the reader reaches every subcommand).
"""

from __future__ import annotations

import argparse

from . import readers
from .readers import EXPR, LATEX, arg
from .registry import subcommand
from .status import EXIT_OK


@subcommand("latex", "print the LaTeX of an expression", EXPR,
            examples=[('"C(1/100, G(1))**1000 @ EpsDelta(1, delta=1e-5)"', "")])
def _latex(args: argparse.Namespace) -> int:
    from ..printing import latex

    print(latex(readers.expression(args.expr)))
    return EXIT_OK


@subcommand("text", "print an expression in canonical text form", EXPR,
            examples=[('"G(mu) @ G(nu)**3"', "")])
def _text(args: argparse.Namespace) -> int:
    from ..printing import text

    print(text(readers.expression(args.expr)))
    return EXIT_OK


@subcommand("simplify", "print the simplified expression", EXPR, LATEX,
            examples=[('"G(mu) @ G(nu)**3 @ Id"', "the closed form")])
def _simplify(args: argparse.Namespace) -> int:
    from ..printing import latex, text
    from ..rewrite import simplify

    g = simplify(readers.expression(args.expr))
    print(latex(g) if args.latex else text(g))
    return EXIT_OK


@subcommand("derive", "print the derivation with its cited steps", EXPR, LATEX,
            arg("--relation", choices=("eq", "lower", "upper", "approx"), default="eq",
                help="identities only (eq, the default), or a chain ending in a lower or upper "
                "bound, or an approximation"),
            examples=[('"C(p, EpsDelta(eps, delta))" --latex', "the cited steps, as align*"),
                      ('"EpsDelta(1/3, 0)**30" --relation lower', "a cited lower bound (Thm. 5)")])
def _derive(args: argparse.Namespace) -> int:
    from ..rewrite import derive

    d = derive(readers.expression(args.expr), args.relation)
    print(d.latex() if args.latex else d)
    return EXIT_OK


@subcommand("approx", "the asymptotic form by the CLTs, with the error the papers state",
            EXPR, LATEX,
            examples=[('"C(1/100, G(1))**10000"', "the CLT form and its stated error")])
def _approx(args: argparse.Namespace) -> int:
    from ..rewrite import approx

    a = approx(readers.expression(args.expr))
    if args.latex:
        print(a.latex())
        print(a.derivation.latex())
    else:
        print(a)
        print(a.derivation)
    return EXIT_OK
