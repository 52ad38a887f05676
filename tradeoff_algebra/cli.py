"""The ``tradeoff`` command line (docs/architecture.md, "Interfaces").

Expressions are written in the API's Python syntax and parsed by a whitelist
(tradeoff_algebra.parse; nothing is ever passed to eval):

    tradeoff latex "C(1/100, G(1))**1000 @ EpsDelta(1, delta=1e-5)"
    tradeoff text  "G(mu) @ G(nu)**3"
    tradeoff eval  "G(1)" 1e-300 --dps 40      # f(alpha) as a Value
    tradeoff roc   "G(1)" 1e-300               # the attacker's power 1 - f(alpha)
    tradeoff simplify "G(mu) @ G(nu)**3 @ Id"  # the closed form
    tradeoff derive "C(p, EpsDelta(eps, delta))" --latex   # the cited steps, as align*
    tradeoff derive "EpsDelta(1/3, 0)**30" --relation lower  # a cited lower bound (Thm. 5)
    tradeoff approx "C(1/100, G(1))**10000"        # the CLT form and its stated error
    tradeoff delta "G(1)" 5                    # delta(eps) = 1 + f^*(-e^eps)
    tradeoff eps   "G(1)" 1e-5                 # the smallest eps with delta(eps) <= delta
    tradeoff verify "G(mu) @ G(nu)" == "G(sqrt(mu**2 + nu**2))"    # a claim and its verdict
    tradeoff verify "G(1)" ">=" "C(1/2, EpsDelta(1, 0))" --over mu=0:5
    tradeoff renyi "G(1) @ Laplace(2)" 3       # the Renyi divergence of order 3
    tradeoff gdp "Laplace(1)"                  # the smallest mu with f >= G_mu
    tradeoff convert "zCDP(1/2)" --delta 1e-5  # every (eps, delta) conversion, with its method
    tradeoff eps "noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30,
                            sampling='poisson')" 1e-5
    tradeoff calibrate "noisy_sgd(s, 1/100, 1000, sampling='poisson')" --param s \
                       --epsilon 3 --delta 1e-5
    tradeoff plot "G(1)" "EpsDelta(1, 1e-5)" --kind roc -o roc.png
    tradeoff demo

verify prints the claim, the verdict (holds / fails / undecided), how it was decided, the
evidence and a counterexample; its exit status is 0 (holds), 1 (fails) or 3 (undecided).

The commands that print a number (eval, roc, delta, eps, renyi, gdp, convert, calibrate, plot)
refuse an expression with free symbols, naming them: substitute numbers first.

ALPHA, EPS and DELTA are parsed the same way (with the parser's size limits) and taken exactly
(1e-300, 1/3, 1 - 1e-20), oo or inf meaning infinity (delta "G(1)" oo is 1 - f(0)); an error
names the argument (alpha, eps, delta, order, tol, start, ...); --dps is an integer in
[1, 10000].

Exit status: 0 success (verify: the claim holds); 1 verify: the claim fails; 2 bad input (an
invalid parameter, an expression the parser refuses, a usage error, an output file that cannot
be written); 3 verify: undecided; 4 the computation failed (a numerical error, no closed form
or evaluation route, an overflow, running out of memory or recursion depth, any other
unexpected exception; never reported as 1, so a failed verify is never mistaken for "fails");
130 Ctrl-C (nothing printed). Errors print exactly one line "tradeoff: error: ..." on stderr,
never a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

__all__ = ["main", "MIN_DPS", "MAX_DPS", "EXIT_OK", "EXIT_FAILS", "EXIT_BAD_INPUT",
           "EXIT_UNDECIDED", "EXIT_FAILED", "EXIT_INTERRUPTED"]

#: The range of --dps (the library enforces the same cap).
MIN_DPS, MAX_DPS = 1, 10_000
#: The range of plot --points and --dpi (a 5 x 4.5 inch figure: 1000 dpi is 22 megapixels;
#: below 8 dpi the fonts cannot be sized).
MAX_POINTS, MIN_DPI, MAX_DPI = 100_000, 10, 1000

#: Exit statuses (module docstring).
EXIT_OK, EXIT_FAILS, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_FAILED, EXIT_INTERRUPTED = \
    0, 1, 2, 3, 4, 130

#: Longest error line printed, in characters (the values inside are already shortened).
_MAX_LINE = 1000


class _UsageError(Exception):
    """A command-line usage error, reported as one line."""


def _shorten_quoted(message: str) -> str:
    """Shorten long quoted arguments that argparse copies into its messages."""
    from .core.errors import MAX_SHOWN

    def cut(m: re.Match[str]) -> str:
        body = m.group(0)
        return f"{body[:MAX_SHOWN - 10]}...' ({len(body) - 2} characters)"

    return re.sub(r"'[^']{%d,}'" % (MAX_SHOWN + 1), cut, message)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{_shorten_quoted(message)} (see {self.prog} --help)")


def _integer_option(option: str, lo: int, hi: int):
    """An integer option (range-checked after parsing, so the error names the parameter)."""

    def parse(text: str) -> int:
        from .core.errors import brief

        t = text.strip()
        if not re.fullmatch(r"[+-]?\d+", t):
            raise argparse.ArgumentTypeError(f"invalid int value: {brief(text)}")
        if len(t.lstrip("+-0")) > 30:
            raise argparse.ArgumentTypeError(f"invalid value {brief(text)}: {option} must be "
                                             f"an integer in [{lo}, {hi}]")
        return int(t)

    return parse


#: --dps: an integer (range-checked after parsing, so the error names the parameter).
_dps = _integer_option("--dps", MIN_DPS, MAX_DPS)


def _check_dps(dps: int) -> int:
    """Refuse --dps outside [MIN_DPS, MAX_DPS]: 0 digits mean nothing, and beyond 10000
    digits mpmath's working precision makes a single evaluation take minutes or exhaust
    memory (99999999999999999999 digits cannot be represented at all)."""
    from .core.errors import InvalidParameter

    if not MIN_DPS <= dps <= MAX_DPS:
        raise InvalidParameter("dps", dps, f"an integer in [{MIN_DPS}, {MAX_DPS}]",
                               hint="--dps is the number of decimal digits to compute")
    return dps


def _expression(text: str):
    from .parse import parse_expr

    return parse_expr(text)


def _numeric_expression(text: str, name: str = "EXPR", notions: bool = False):
    """A trade-off expression (or with ``notions`` a privacy notion) for a command that prints
    a number: anything else and free symbols are refused, the symbols named."""
    from .core.errors import InvalidParameter
    from .core.node import TradeOff
    from .notions import Notion

    f = _expression(text)
    if not isinstance(f, (TradeOff, Notion) if notions else TradeOff):
        raise InvalidParameter(name, text, "a trade-off expression (G(1), EpsDelta(1, 0), ...)"
                               + (" or a notion (GDP(mu), zCDP(rho), tCDP(rho, omega), "
                                  "ApproxDP(eps, delta))" if notions else ""))
    syms = sorted(map(str, getattr(f, "free_symbols", ())))
    if syms:
        raise InvalidParameter(name, text, "an expression without free symbols (this command "
                               "computes a number)", hint=_no_value(syms))
    return f


def _no_value(syms: list[str]) -> str:
    which = f"symbol {syms[0]} has" if len(syms) == 1 else f"symbols {', '.join(syms)} have"
    return f"the {which} no value: write numbers in their place"


def _number(text: str, name: str = "alpha",
            allowed: str = "a number in [0, 1] such as 0.05, 1e-300 or 1/3"):
    """A numeric argument, parsed like an expression, so decimals and fractions are exact;
    ``oo``/``inf`` (with a sign) is infinity, for the library to accept (``delta G(1) oo``) or
    refuse by name."""
    import sympy as sp

    from .core.errors import InvalidParameter

    word = text.strip().lstrip("+")
    if word in ("oo", "inf", "-oo", "-inf"):
        return -sp.oo if word.startswith("-") else sp.oo
    try:
        a = _expression(text)
    except InvalidParameter as err:  # the parser names "expression": name the argument
        if err.name != "expression":
            raise
        raise InvalidParameter(name, text, allowed, hint=err.hint) from None
    if not isinstance(a, sp.Expr) or not a.is_number:
        raise InvalidParameter(name, text, allowed)
    return a


def _level(text: str):
    """ALPHA: parsed like an expression, so decimals and fractions are taken exactly."""
    return _number(text)


def _simplify(args: argparse.Namespace) -> int:
    from .printing import latex, text
    from .rewrite import simplify

    g = simplify(_expression(args.expr))
    print(latex(g) if args.latex else text(g))
    return 0


def _derive(args: argparse.Namespace) -> int:
    from .rewrite import derive

    d = derive(_expression(args.expr), args.relation)
    print(d.latex() if args.latex else d)
    return 0


def _approx(args: argparse.Namespace) -> int:
    from .rewrite import approx

    a = approx(_expression(args.expr))
    if args.latex:
        print(a.derivation.latex())
    else:
        print(a)
        print(a.derivation)
    return 0


def _over(text: str) -> tuple[str, tuple]:
    """``name=lo:hi`` with lo and hi parsed like numbers (``oo`` allowed)."""
    import sympy as sp

    name, sep, rng = text.partition("=")
    lo, sep2, hi = rng.partition(":")
    if not (sep and sep2 and name.strip().isidentifier()):
        raise _UsageError(f"--over {text!r}: expected NAME=LO:HI such as mu=0:5")
    ends = []
    for t in (lo, hi):
        t = t.strip()
        ends.append(sp.oo if t in ("oo", "inf") else -sp.oo if t in ("-oo", "-inf")
                    else _number(t, "over", "a real number or oo"))
    return name.strip(), tuple(ends)


def _verify(args: argparse.Namespace) -> int:
    import sympy as sp

    from .core.errors import InvalidParameter
    from .core.node import TradeOff
    from .verify import verify

    over = dict(_over(t) for t in args.over or [])
    sides = []
    for name, text in (("LHS", args.lhs), ("RHS", args.rhs)):
        x = _expression(text)
        if not isinstance(x, (TradeOff, sp.Expr)):
            raise InvalidParameter(name, text, "a trade-off expression or a scalar expression",
                                   hint="a privacy notion compares through its trade-off "
                                   "function, e.g. G(1) for GDP(1)")
        sides.append(x)
    v = verify(sides[0], args.rel, sides[1], over=over or None, dps=args.dps)
    print(v.latex() if args.latex else _shown(v))
    return {True: EXIT_OK, False: EXIT_FAILS, None: EXIT_UNDECIDED}[v.status]


def _latex(args: argparse.Namespace) -> int:
    from .printing import latex

    print(latex(_expression(args.expr)))
    return 0


def _text(args: argparse.Namespace) -> int:
    from .printing import text

    print(text(_expression(args.expr)))
    return 0


def _shown(v) -> str:
    """A Value as printed: exact and certified numbers plainly, an estimate marked as one
    (``0.6278685 (estimate)``); anything else as it prints itself."""
    from .numeric.value import Value

    if isinstance(v, Value) and not v.is_certain:
        return f"{v} (estimate)"
    return str(v)


def _numeric(what, args: argparse.Namespace):
    """Evaluate the expression as given; where it has no numeric route, its simplified form
    (an identity, so the same number) is evaluated instead."""
    from .core.errors import NoClosedForm
    from .rewrite import simplify

    _check_dps(args.dps)
    f, a = _numeric_expression(args.expr), args.point(args.value)
    try:
        return what(f, a, dps=args.dps)
    except NoClosedForm:
        g = simplify(f)
        if g == f:
            raise
        return what(g, a, dps=args.dps)


def _eval(args: argparse.Namespace) -> int:
    from .numeric import evaluate

    print(_shown(_numeric(evaluate, args)))
    return 0


def _roc(args: argparse.Namespace) -> int:
    from .numeric import roc

    print(_shown(_numeric(roc, args)))
    return 0


def _delta(args: argparse.Namespace) -> int:
    from .analysis import delta

    print(_shown(_numeric(delta, args)))
    return 0


def _eps(args: argparse.Namespace) -> int:
    from .analysis import epsilon

    print(_shown(_numeric(epsilon, args)))
    return 0


def _renyi(args: argparse.Namespace) -> int:
    import sympy as sp

    from .analysis import renyi

    _check_dps(args.dps)
    order = sp.oo if args.order.strip() in ("oo", "inf") else _number(
        args.order, "order", "a number > 0, or oo")
    f = _numeric_expression(args.expr)
    v = renyi(f, order, dps=args.dps, estimate=args.estimate)
    print(_shown(v))
    return 0


def _gdp(args: argparse.Namespace) -> int:
    import warnings

    from .analysis import gdp_mu

    _check_dps(args.dps)
    f = _numeric_expression(args.expr)
    tol = None if args.tol is None else _number(args.tol, "tol", "a number > 0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = gdp_mu(f, dps=args.dps, tol=tol)
    print(_shown(v))
    for w in caught:
        print(f"note: {w.message}")
    return 0


def _convert(args: argparse.Namespace) -> int:
    """Every conversion of a notion (or a trade-off function) at --delta and/or --eps."""
    from .analysis import delta as f_delta
    from .analysis import epsilon as f_epsilon
    from .core.errors import InvalidParameter
    from .core.node import TradeOff
    from .notions import GDP, ApproxDP, Notion, zCDP

    dps = _check_dps(args.dps)
    x = _numeric_expression(args.expr, notions=True)
    if args.delta is None and args.eps is None:
        raise InvalidParameter("--delta/--eps", None, "at least one of --delta D and --eps E")
    rows = []
    if isinstance(x, TradeOff):
        if args.delta is not None:
            d = _number(args.delta, "delta", "a number in (0, 1]")
            rows.append((f"epsilon at delta = {d} (exact profile)", f_epsilon(x, d, dps=dps)))
        if args.eps is not None:
            e = _number(args.eps, "eps", "a number >= 0")
            rows.append((f"delta at eps = {e} (exact profile)", f_delta(x, e, dps=dps)))
    elif isinstance(x, Notion):
        tradeoff = x.to_tradeoff() if isinstance(x, (GDP, ApproxDP)) else None
        rdp = x.to_zcdp() if isinstance(x, GDP) else (None if isinstance(x, ApproxDP) else x)
        methods = ["balle", "mironov"] + (["bun_steinke"] if isinstance(rdp, zCDP) else []) \
            + (["optimal"] if args.optimal else [])
        if args.delta is not None:
            d = _number(args.delta, "delta", "a number in (0, 1]")
            if tradeoff is not None:
                rows.append((f"epsilon at delta = {d} (exact, {tradeoff})",
                             f_epsilon(tradeoff, d, dps=dps)))
            for m in methods if rdp is not None else []:
                rows.append((f"epsilon at delta = {d} ({m}, via {rdp})",
                             rdp.epsilon(d, method=m, dps=dps)))
        if args.eps is not None:
            e = _number(args.eps, "eps", "a number >= 0")
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
        print(f"{label:<{width}}  {_shown(v)}")
    return 0


def _output(path: str, figure) -> str:
    """-o/--output: a file in an existing folder, with a format matplotlib writes."""
    import os

    from .core.errors import InvalidParameter

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


def _plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from .core.errors import InvalidParameter
    from .core.validate import count
    from .plot import plot

    points = count("--points", args.points, lower=2, upper=MAX_POINTS)
    dpi = count("--dpi", args.dpi, lower=MIN_DPI, upper=MAX_DPI)
    exprs = [_numeric_expression(e) for e in args.exprs]
    ax = plot(*exprs, kind=args.kind, points=points)
    path = _output(args.output, ax.figure)
    try:
        ax.figure.savefig(path, dpi=dpi, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise InvalidParameter("--output", path, "a file that can be written",
                               hint=f"{type(exc).__name__}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    print(path)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    import sympy as sp

    from .calibration import calibrate
    from .core.errors import InvalidParameter
    from .parse import symbol_for

    f = _expression(args.expr)
    x = symbol_for(args.param)
    if x not in getattr(f, "free_symbols", set()):
        raise InvalidParameter("--param", args.param, f"a symbol of the expression {args.expr}")
    others = sorted(str(s) for s in f.free_symbols if s != x)
    if others:
        raise InvalidParameter("EXPR", args.expr, f"an expression whose only symbol is "
                               f"{args.param}", hint=_no_value(others))
    kw = {}
    for name in ("epsilon", "delta", "tpr", "fpr", "advantage"):
        text = getattr(args, name)
        if text is not None:
            kw[name] = _number(text, name, "a number")
    start = _number(args.start, "start", "a number") if args.start is not None else sp.Integer(1)
    c = calibrate(lambda v: f.xreplace({x: v}), integer=args.integer, start=start,
                  dps=_check_dps(args.dps), **kw)
    print(f"{args.param} = {float(c.value):.{max(c.achieved.dps, 6)}g}  "
          f"({c.measure} = {c.achieved} <= {c.target}; "
          f"{args.param} = {float(c.other):.10g} does not meet it)" if c.other is not None else
          f"{args.param} = {float(c.value):.10g}  ({c.measure} = {c.achieved} <= {c.target})")
    return 0


def _demo(args: argparse.Namespace) -> int:
    import sympy as sp

    import tradeoff_algebra as ta

    dps = _check_dps(args.dps)
    mu, nu = sp.symbols("mu nu", nonnegative=True)
    a = sp.Symbol("alpha", nonnegative=True)
    print("tradeoff_algebra demo: trade-off functions of f-differential privacy\n")
    print("Expressions (text | LaTeX):")
    exprs = [ta.G(mu), ta.G(mu) @ ta.G(nu) ** 3 @ ta.Id, ta.EpsDelta(1, sp.Rational(1, 100)),
             ta.Laplace(1), ta.C(sp.Rational(1, 100), ta.G(1)) ** 1000,
             ta.gaussian_mechanism(1, sp.Rational(11, 10))]
    for e in exprs:
        print(f"  {ta.text(e):<40} | {ta.latex(e)}")
    print("\nClosed forms f(alpha):")
    for e in [ta.G(mu), ta.Laplace(mu), ta.EpsDelta(1, 0)]:
        print(f"  {ta.text(e)}(alpha) = {e(a)}")
        print(f"      LaTeX: {ta.latex(e(a))}")
    print(f"\nValues at {dps} digits:")
    for e, x in [(ta.G(1), "0.05"), (ta.G(1), "1e-300"), (ta.G(1), "0.99999999999999999999"),
                 (ta.EpsDelta(1, sp.Rational(1, 10)), "1/4"), (ta.Laplace(2), "0.3")]:
        print(f"  {ta.text(e)}({x}) = {ta.evaluate(e, x, dps=dps)}")
    print(f"\nAttacker's power 1 - f(alpha) (TPR at FPR alpha), {dps} digits:")
    for x in ["1e-300", "1e-10", "0.01"]:
        print(f"  1 - G(1)({x}) = {ta.roc(ta.G(1), x, dps=dps)}")
    print("\nFloat64 curve of G(1) at alpha = 0, 0.25, 0.5, 0.75, 1:")
    print("  ", ta.G(1).curve([0, 0.25, 0.5, 0.75, 1]))

    print("\nDerivations with cited steps:")
    d = ta.derive(ta.G(mu) @ ta.G(nu) ** 3 @ ta.Id)
    print("  " + str(d).replace("\n", "\n  "))
    print("  LaTeX:\n    " + d.latex().replace("\n", "\n    "))
    p, eps, delta = sp.symbols("p epsilon delta", positive=True)
    sub = ta.C(p, ta.EpsDelta(eps, delta))
    print(f"  simplify({ta.text(sub)}) = {ta.text(ta.simplify(sub))}"
          "   [Cor. 3 with its corrected constant: proofs/drs_counterexamples.md]")
    k = ta.simplify(ta.EpsDelta(1, 0) ** 100)
    print(f"  simplify(EpsDelta(1, 0)**100) = {ta.text(k)};"
          f"  value at alpha = 1/10: {ta.evaluate(k, sp.Rational(1, 10), dps=dps)}")

    print(f"\nPrivacy profiles and conversions, {dps} digits:")
    for e in [0, 5, 50]:
        print(f"  delta(G(1), eps={e}) = {ta.delta(ta.G(1), e, dps=dps)}")
    print(f"  epsilon(G(1), delta=1e-5) = {ta.epsilon(ta.G(1), sp.Rational(1, 10**5), dps=dps)}")
    print(f"  Group privacy, groups of 3: Group(G(1), 3) at 0.05 = "
          f"{ta.evaluate(ta.Group(ta.G(1), 3), '0.05', dps=dps)}  (= G(3) by Thm. 3)")
    print(f"  Subsampling C_(1/10)(G(1)) at 0.05 = "
          f"{ta.evaluate(ta.C(sp.Rational(1, 10), ta.G(1)), '0.05', dps=dps)}")

    d5 = sp.Rational(1, 10**5)
    print("\nPrivacy notions and conversions (Kaissis et al., psi = 1, delta = 1e-5):")
    z = ta.GDP(1).to_zcdp()
    order = sp.Symbol("a", positive=True)
    print(f"  {ta.text(z)}: Renyi divergence of G(mu) at order a = "
          f"{ta.renyi(ta.G(mu), order)}")
    print(f"  epsilon: exact profile {ta.epsilon(ta.G(1), d5, dps=dps)}, Cor. 12 "
          f"{z.epsilon(d5, dps=dps)}, Cor. 11 {z.epsilon(d5, method='mironov', dps=dps)}")

    print("\nAccounting: two DP-SGD phases (Poisson sampling, 50000 records, batches of 512):")
    p1 = ta.noisy_sgd(1, dataset_size=50000, batch_size=512, epochs=30, sampling="poisson")
    p2 = ta.noisy_sgd(2, dataset_size=50000, batch_size=512, steps=1000, sampling="poisson")
    print(f"  {ta.text(p1 @ p2)}")
    print(f"  epsilon at delta = 1e-5: {ta.epsilon(p1 @ p2, d5, dps=8)}")
    return 0


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
        return _run(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout closed early (| head): nothing more to say
        _silence_stdout()
        return EXIT_FAILED
    except Exception as exc:  # the command line never shows a traceback
        try:
            status, message = _classify(exc)
        except Exception:  # pragma: no cover - classifying must not fail either
            status, message = EXIT_FAILED, f"internal error ({type(exc).__name__})"
        _report(message)
        return status


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that the interpreter's final flush
    does not print "Exception ignored ... BrokenPipeError"."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except Exception:  # no real file descriptor (captured output): nothing to silence
        pass


def _run(argv: list[str] | None) -> int:
    parser = _Parser(prog="tradeoff", description=__doc__,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    expr_help = 'an expression in the API\'s Python syntax, e.g. "G(1) @ EpsDelta(1, 0)**3"'
    for name, run, what in [("latex", _latex, "print the LaTeX of an expression"),
                            ("text", _text, "print an expression in canonical text form")]:
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("expr", metavar="EXPR", help=expr_help)
        p.set_defaults(run=run)
    for name, run, what in [("simplify", _simplify, "print the simplified expression"),
                            ("derive", _derive, "print the derivation with its cited steps"),
                            ("approx", _approx, "the asymptotic form by the CLTs, with the "
                                                "error the papers state")]:
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("expr", metavar="EXPR", help=expr_help)
        p.add_argument("--latex", action="store_true", help="print LaTeX instead of text")
        if name == "derive":
            p.add_argument("--relation", choices=("eq", "lower", "upper", "approx"),
                           default="eq", help="identities only (eq, the default), or a chain "
                           "ending in a lower or upper bound, or an approximation")
        p.set_defaults(run=run)
    eps_arg = ("EPS", "eps", "a number >= 0 such as 1, 1/2 or 50",
               "the epsilon at which to take delta(eps), taken exactly")
    delta_arg = ("DELTA", "delta", "a number in [0, 1] such as 1e-5",
                 "the delta for which to find the smallest epsilon, taken exactly")
    alpha_arg = ("ALPHA", "alpha", "a number in [0, 1] such as 0.05, 1e-300 or 1/3",
                 "type-I error level, taken exactly: 0.05, 1e-300, 1/3, 1 - 1e-20")
    for name, run, what, (meta, pname, allowed, phelp) in [
            ("eval", _eval, "evaluate f(ALPHA) to --dps digits", alpha_arg),
            ("roc", _roc, "the attacker's power 1 - f(ALPHA) (TPR at FPR ALPHA)", alpha_arg),
            ("delta", _delta, "the privacy profile delta(EPS) = 1 + f^*(-e^EPS)", eps_arg),
            ("eps", _eps, "the smallest epsilon with delta(epsilon) <= DELTA", delta_arg)]:
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("expr", metavar="EXPR", help=expr_help)
        p.add_argument("value", metavar=meta, help=phelp)
        p.add_argument("--dps", type=_dps, default=30,
                       help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 30)")
        p.set_defaults(run=run, point=lambda t, n=pname, a=allowed: _number(t, n, a))
    what = "the Renyi divergence D_ORDER(P || Q) of f = T(P, Q)"
    p = sub.add_parser("renyi", help=what, description=what)
    p.add_argument("expr", metavar="EXPR", help=expr_help)
    p.add_argument("order", metavar="ORDER", help="a number > 0 (1 is KL), or oo")
    p.add_argument("--dps", type=_dps, default=30,
                   help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 30)")
    p.add_argument("--estimate", action="store_true",
                   help="allow a quadrature estimate where no closed form is known")
    p.set_defaults(run=_renyi)
    what = "the smallest mu with f >= G_mu (f is mu-GDP), certified"
    p = sub.add_parser("gdp", help=what, description=what)
    p.add_argument("expr", metavar="EXPR", help=expr_help)
    p.add_argument("--dps", type=_dps, default=20,
                   help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 20)")
    p.add_argument("--tol", metavar="TOL", default=None,
                   help="the absolute width aimed at (default 1e-5)")
    p.set_defaults(run=_gdp)
    what = ("convert a notion (GDP(mu), zCDP(rho), tCDP(rho, omega), ApproxDP(eps, delta)) or "
            "a trade-off expression to (eps, delta) by every available route")
    p = sub.add_parser("convert", help=what, description=what)
    p.add_argument("expr", metavar="EXPR", help='e.g. "zCDP(1/2)" or "G(1) @ G(2)"')
    p.add_argument("--delta", metavar="DELTA", help="the delta at which to give epsilon")
    p.add_argument("--eps", metavar="EPS", help="the epsilon at which to give delta")
    p.add_argument("--optimal", action="store_true",
                   help="also the optimal RDP conversion (slower: seconds to a minute)")
    p.add_argument("--dps", type=_dps, default=20,
                   help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 20)")
    p.set_defaults(run=_convert)
    what = "draw trade-off curves (or log-log ROC curves) to an image file"
    p = sub.add_parser("plot", help=what, description=what)
    p.add_argument("exprs", metavar="EXPR", nargs="+", help=expr_help)
    p.add_argument("-o", "--output", default="tradeoff.png", help="the image file (png, pdf, svg)")
    p.add_argument("--kind", choices=["tradeoff", "roc"], default="tradeoff")
    p.add_argument("--points", type=_integer_option("--points", 2, MAX_POINTS), default=200,
                   help=f"points per curve, 2 to {MAX_POINTS} (default 200)")
    p.add_argument("--dpi", type=_integer_option("--dpi", MIN_DPI, MAX_DPI), default=150,
                   help=f"resolution of a raster image, {MIN_DPI} to {MAX_DPI} (default 150)")
    p.set_defaults(run=_plot)
    what = ("the value of a parameter (a symbol of EXPR) at which the mechanism meets a privacy "
            "target, certified")
    p = sub.add_parser("calibrate", help=what, description=what)
    p.add_argument("expr", metavar="EXPR",
                   help="an expression with one symbol, e.g. \"noisy_sgd(s, 1/100, 1000, "
                   "sampling='poisson')\"")
    p.add_argument("--param", required=True, help="the symbol to calibrate, e.g. s")
    for name, what_ in (("epsilon", "with --delta: (epsilon, delta)-DP"),
                        ("delta", "with --epsilon"), ("tpr", "with --fpr: power at that FPR"),
                        ("fpr", "with --tpr"), ("advantage", "TPR - FPR of the best test")):
        p.add_argument(f"--{name}", help=what_)
    p.add_argument("--integer", action="store_true", help="an integer parameter (steps)")
    p.add_argument("--start", help="where the search starts (default 1)")
    p.add_argument("--dps", type=_dps, default=10,
                   help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 10)")
    p.set_defaults(run=_calibrate)
    what = "decide a claim LHS REL RHS (pointwise in alpha for trade-off functions)"
    p = sub.add_parser("verify", help=what, description=what)
    p.add_argument("lhs", metavar="LHS", help=expr_help + ", or a scalar expression")
    p.add_argument("rel", metavar="REL", choices=["==", "<=", ">="], help="==, <= or >=")
    p.add_argument("rhs", metavar="RHS", help="the other side, of the same kind")
    p.add_argument("--over", action="append", metavar="NAME=LO:HI",
                   help="the range of a parameter, e.g. mu=0:5 (repeatable; oo allowed)")
    p.add_argument("--dps", type=_dps, default=30,
                   help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 30)")
    p.add_argument("--latex", action="store_true", help="print the verdict as LaTeX")
    p.set_defaults(run=_verify)
    demo = sub.add_parser("demo", help="build, evaluate and print a few expressions")
    demo.add_argument("--dps", type=_dps, default=30,
                      help=f"decimal digits, {MIN_DPS} to {MAX_DPS} (default 30)")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return args.run(args)


def _text_of(exc: BaseException) -> str:
    """``str(exc)`` without failing (a message may hold an integer too long to print)."""
    try:
        return str(exc)
    except Exception:
        return ""


def _classify(exc: BaseException) -> tuple[int, str]:
    """The exit status and the message for an exception that reached :func:`main`."""
    from .core.errors import InvalidParameter, TradeOffError

    text = _text_of(exc)
    if isinstance(exc, (_UsageError, InvalidParameter)):
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


def _report(message: str) -> None:
    line = " ".join(message.split()) or "unknown error"
    if len(line) > _MAX_LINE:
        line = line[: _MAX_LINE - 3] + "..."
    try:
        print(f"tradeoff: error: {line}", file=sys.stderr)
    except Exception:  # stderr closed: nothing more can be said
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
