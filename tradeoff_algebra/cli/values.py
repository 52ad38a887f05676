"""Subcommands that print a number: eval, roc, delta, eps, renyi, gdp, convert.

Each refuses an expression with free symbols, naming them (``readers.numeric_expression``),
and checks --dps first. EXPR is read through the ``readers`` module at each call.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from . import readers
from .readers import EXPR, arg, dps_option
from .registry import subcommand
from .status import EXIT_OK

_ALPHA = ("alpha", "a number in [0, 1] such as 0.05, 1e-300 or 1/3")
_EPS = ("eps", "a number >= 0 such as 1, 1/2 or 50")
_DELTA = ("delta", "a number in [0, 1] such as 1e-5")

ALPHA = arg("value", metavar="ALPHA",
            help="type-I error level, taken exactly: 0.05, 1e-300, 1/3, 1 - 1e-20")
EPS = arg("value", metavar="EPS", help="the epsilon at which to take delta(eps), taken exactly")
DELTA = arg("value", metavar="DELTA",
            help="the delta for which to find the smallest epsilon, taken exactly")


def _print(v: Any, args: argparse.Namespace, label: str | None = None) -> None:
    """The value with the digits asked (an explicit --dps: each end of an enclosure), on a
    second line what the expression was built as where a constructor labelled it (DP-SGD's
    sampling scheme included), and on stderr a note where the enclosure is known to fewer
    digits than printed."""
    digits = readers.digits_asked(args)
    print(readers.shown(v, digits))
    if label:
        print(f"for {label}")
    note = readers.digits_note(v, digits)
    if note:
        print(f"tradeoff: {note}", file=sys.stderr)


def _at_point(what: Callable[..., Any], args: argparse.Namespace, point: tuple[str, str]) -> tuple:
    """``what(f, point, dps=...)`` for the expression as given; where it has no numeric route,
    its simplified form (an identity, so the same number) is evaluated instead. Returns the
    value and the expression's label (``core.labels``), or None."""
    from ..core.errors import NoClosedForm
    from ..core.labels import label_of
    from ..rewrite import simplify

    readers.check_dps(args.dps)
    f, a = readers.numeric_expression(args.expr), readers.number(args.value, *point)
    try:
        v = what(f, a, dps=args.dps)
    except NoClosedForm:
        g = simplify(f)
        if g == f:
            raise
        v = what(g, a, dps=args.dps)
    return v, label_of(f)


@subcommand("eval", "evaluate f(ALPHA) to --dps digits", EXPR, ALPHA, dps_option(30),
            examples=[('"G(1)" 1e-300 --dps 40', "f(alpha) as a Value")])
def _eval(args: argparse.Namespace) -> int:
    from ..numeric import evaluate

    v, label = _at_point(evaluate, args, _ALPHA)
    _print(v, args, label)
    return EXIT_OK


@subcommand("roc", "the attacker's power 1 - f(ALPHA) (TPR at FPR ALPHA)", EXPR, ALPHA,
            dps_option(30), examples=[('"G(1)" 1e-300', "the attacker's power 1 - f(alpha)")])
def _roc(args: argparse.Namespace) -> int:
    from ..numeric import roc

    v, label = _at_point(roc, args, _ALPHA)
    _print(v, args, label)
    return EXIT_OK


@subcommand("delta", "the privacy profile delta(EPS) = 1 + f^*(-e^EPS)", EXPR, EPS,
            dps_option(30), examples=[('"G(1)" 5', "delta(eps) = 1 + f^*(-e^eps)")])
def _delta(args: argparse.Namespace) -> int:
    from ..analysis import delta

    v, label = _at_point(delta, args, _EPS)
    _print(v, args, label)
    return EXIT_OK


@subcommand("eps", "the smallest epsilon with delta(epsilon) <= DELTA", EXPR, DELTA,
            dps_option(30),
            examples=[('"G(1)" 1e-5', "the smallest eps with delta(eps) <= delta"),
                      ("\"noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30,\n"
                       "           sampling='poisson')\" 1e-5", "")])
def _eps(args: argparse.Namespace) -> int:
    from ..analysis import epsilon

    v, label = _at_point(epsilon, args, _DELTA)
    _print(v, args, label)
    return EXIT_OK


@subcommand("renyi", "the Renyi divergence D_ORDER(P || Q) of f = T(P, Q)", EXPR,
            arg("order", metavar="ORDER", help="a number > 0 (1 is KL), or oo"),
            dps_option(30),
            arg("--estimate", action="store_true",
                help="allow a quadrature estimate where no closed form is known"),
            examples=[('"G(1) @ Laplace(2)" 3', "the Renyi divergence of order 3")])
def _renyi(args: argparse.Namespace) -> int:
    import sympy as sp

    from ..analysis import renyi

    readers.check_dps(args.dps)
    order = sp.oo if args.order.strip() in ("oo", "inf") else readers.number(
        args.order, "order", "a number > 0, or oo")
    f = readers.numeric_expression(args.expr)
    _print(renyi(f, order, dps=args.dps, estimate=args.estimate), args)
    return EXIT_OK


@subcommand("gdp", "the smallest mu with f >= G_mu (f is mu-GDP), certified", EXPR,
            dps_option(20),
            arg("--tol", metavar="TOL", default=None,
                help="the absolute width aimed at (default 1e-5)"),
            examples=[('"Laplace(1)"', "the smallest mu with f >= G_mu")])
def _gdp(args: argparse.Namespace) -> int:
    import warnings

    from ..analysis import gdp_mu

    readers.check_dps(args.dps)
    f = readers.numeric_expression(args.expr)
    tol = None if args.tol is None else readers.number(args.tol, "tol", "a number > 0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = gdp_mu(f, dps=args.dps, tol=tol)
    print(readers.shown(v))
    for w in caught:
        print(f"note: {w.message}")
    return EXIT_OK


@subcommand("convert", "convert a notion (GDP(mu), zCDP(rho), tCDP(rho, omega), ApproxDP(eps, "
            "delta)) or a trade-off expression to (eps, delta) by every available route",
            arg("expr", metavar="EXPR", help='e.g. "zCDP(1/2)" or "G(1) @ G(2)"'),
            arg("--delta", metavar="DELTA", help="the delta at which to give epsilon"),
            arg("--eps", metavar="EPS", help="the epsilon at which to give delta"),
            arg("--optimal", action="store_true",
                help="also the optimal RDP conversion (slower: seconds to a minute)"),
            dps_option(20),
            examples=[('"zCDP(1/2)" --delta 1e-5', "every (eps, delta) conversion, with its "
                       "method")])
def _convert(args: argparse.Namespace) -> int:
    """Every conversion of a notion (or a trade-off function) at --delta and/or --eps."""
    from ..analysis import delta as f_delta
    from ..analysis import epsilon as f_epsilon
    from ..core.errors import InvalidParameter
    from ..core.node import TradeOff
    from ..notions import GDP, ApproxDP, Notion, zCDP

    dps = readers.check_dps(args.dps)
    x = readers.numeric_expression(args.expr, notions=True)
    if args.delta is None and args.eps is None:
        raise InvalidParameter("--delta/--eps", None, "at least one of --delta D and --eps E")
    rows = []
    if isinstance(x, TradeOff):
        if args.delta is not None:
            d = readers.number(args.delta, "delta", "a number in (0, 1]")
            rows.append((f"epsilon at delta = {d} (exact profile)", f_epsilon(x, d, dps=dps)))
        if args.eps is not None:
            e = readers.number(args.eps, "eps", "a number >= 0")
            rows.append((f"delta at eps = {e} (exact profile)", f_delta(x, e, dps=dps)))
    elif isinstance(x, Notion):
        tradeoff = x.to_tradeoff() if isinstance(x, (GDP, ApproxDP)) else None
        rdp = x.to_zcdp() if isinstance(x, GDP) else (None if isinstance(x, ApproxDP) else x)
        methods = ["balle", "mironov"] + (["bun_steinke"] if isinstance(rdp, zCDP) else []) \
            + (["optimal"] if args.optimal else [])
        if args.delta is not None:
            d = readers.number(args.delta, "delta", "a number in (0, 1]")
            if tradeoff is not None:
                rows.append((f"epsilon at delta = {d} (exact, {tradeoff})",
                             f_epsilon(tradeoff, d, dps=dps)))
            for m in methods if rdp is not None else []:
                rows.append((f"epsilon at delta = {d} ({m}, via {rdp})",
                             rdp.epsilon(d, method=m, dps=dps)))
        if args.eps is not None:
            e = readers.number(args.eps, "eps", "a number >= 0")
            if tradeoff is not None:
                rows.append((f"delta at eps = {e} (exact, {tradeoff})",
                             f_delta(tradeoff, e, dps=dps)))
            for m in [m for m in methods if m != "bun_steinke"] if rdp is not None else []:
                rows.append((f"delta at eps = {e} ({m}, via {rdp})",
                             rdp.delta(e, method=m, dps=dps)))
    else:
        raise InvalidParameter("EXPR", args.expr, "a trade-off expression or a notion "
                               "(GDP(mu), zCDP(rho), tCDP(rho, omega), ApproxDP(eps, delta))")
    width = max(len(r[0]) for r in rows)
    for label, v in rows:
        print(f"{label:<{width}}  {readers.shown(v, readers.digits_asked(args))}")
    return EXIT_OK
