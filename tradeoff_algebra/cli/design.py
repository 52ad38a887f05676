"""Subcommands for choosing a mechanism: plot (its trade-off or log-log ROC curves, drawn to an
image file) and calibrate (the value of a parameter that meets a privacy target)."""

from __future__ import annotations

import argparse
from typing import Any

from . import readers
from .readers import EXPR_HELP, arg, dps_option, integer_option
from .registry import subcommand
from .status import EXIT_OK

__all__ = ["MAX_POINTS", "MIN_DPI", "MAX_DPI"]

#: The range of plot --points and --dpi (a 5 x 4.5 inch figure: 1000 dpi is 22 megapixels;
#: below 8 dpi the fonts cannot be sized).
MAX_POINTS, MIN_DPI, MAX_DPI = 100_000, 10, 1000


def _output(path: str, figure: Any) -> str:
    """-o/--output: a file in an existing folder, with a format matplotlib writes."""
    import os

    from ..core.errors import InvalidParameter

    if not path.strip() or "\x00" in path:
        raise InvalidParameter("--output", path, "a file name such as curve.png")
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise InvalidParameter("--output", path, "a file in an existing folder",
                               hint=f"the folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise InvalidParameter("--output", path, "a file name, not a folder")
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    formats = sorted(figure.canvas.get_supported_filetypes())
    if ext and ext not in formats:
        raise InvalidParameter("--output", path, "a file name ending in one of ."
                               + ", .".join(formats))
    return path


@subcommand("plot", "draw trade-off curves (or log-log ROC curves) to an image file",
            arg("exprs", metavar="EXPR", nargs="+", help=EXPR_HELP),
            arg("-o", "--output", default="tradeoff.png", help="the image file (png, pdf, svg)"),
            arg("--kind", choices=["tradeoff", "roc"], default="tradeoff"),
            arg("--points", type=integer_option("--points", 2, MAX_POINTS), default=200,
                help=f"points per curve, 2 to {MAX_POINTS} (default 200)"),
            arg("--dpi", type=integer_option("--dpi", MIN_DPI, MAX_DPI), default=150,
                help=f"resolution of a raster image, {MIN_DPI} to {MAX_DPI} (default 150)"),
            examples=[('"G(1)" "EpsDelta(1, 1e-5)" --kind roc -o roc.png', "")])
def _plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..core.errors import InvalidParameter
    from ..core.validate import count
    from ..plot import plot

    points = count("--points", args.points, lower=2, upper=MAX_POINTS)
    dpi = count("--dpi", args.dpi, lower=MIN_DPI, upper=MAX_DPI)
    exprs = [readers.numeric_expression(e) for e in args.exprs]
    ax = plot(*exprs, kind=args.kind, points=points)
    path = _output(args.output, ax.figure)
    try:
        ax.figure.savefig(path, dpi=dpi, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise InvalidParameter("--output", path, "a file that can be written",
                               hint=f"{type(exc).__name__}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    print(path)
    return EXIT_OK


_TARGETS = (("epsilon", "with --delta: (epsilon, delta)-DP"), ("delta", "with --epsilon"),
            ("tpr", "with --fpr: power at that FPR"), ("fpr", "with --tpr"),
            ("advantage", "TPR - FPR of the best test"))


@subcommand("calibrate", "the value of a parameter (a symbol of EXPR) at which the mechanism "
            "meets a privacy target, certified",
            arg("expr", metavar="EXPR", help="an expression with one symbol, e.g. \"noisy_sgd("
                "s, 1/100, 1000, sampling='poisson')\""),
            arg("--param", required=True, help="the symbol to calibrate, e.g. s"),
            *(arg(f"--{name}", help=what) for name, what in _TARGETS),
            arg("--integer", action="store_true", help="an integer parameter (steps)"),
            arg("--start", help="where the search starts (default 1)"),
            dps_option(10),
            examples=[("\"noisy_sgd(s, 1/100, 1000, sampling='poisson')\" --param s \\\n"
                       "--epsilon 3 --delta 1e-5", "")])
def _calibrate(args: argparse.Namespace) -> int:
    import sympy as sp

    from ..calibration import calibrate
    from ..core.errors import InvalidParameter
    from ..parse import symbol_for

    f = readers.expression(args.expr)
    x = symbol_for(args.param)
    if x not in getattr(f, "free_symbols", set()):
        raise InvalidParameter("--param", args.param, f"a symbol of the expression {args.expr}")
    others = sorted(str(s) for s in f.free_symbols if s != x)
    if others:
        raise InvalidParameter("EXPR", args.expr, f"an expression whose only symbol is "
                               f"{args.param}", hint=readers.no_value(others))
    kw = {}
    for name, _ in _TARGETS:
        text = getattr(args, name)
        if text is not None:
            kw[name] = readers.number(text, name, "a number")
    start = sp.Integer(1) if args.start is None else readers.number(args.start, "start",
                                                                    "a number")
    c = calibrate(lambda v: f.xreplace({x: v}), integer=args.integer, start=start,
                  dps=readers.check_dps(args.dps), **kw)
    print(f"{args.param} = {float(c.value):.{max(c.achieved.dps, 6)}g}  "
          f"({c.measure} = {c.achieved} <= {c.target}; "
          f"{args.param} = {float(c.other):.10g} does not meet it)" if c.other is not None else
          f"{args.param} = {float(c.value):.10g}  ({c.measure} = {c.achieved} <= {c.target})")
    return EXIT_OK
