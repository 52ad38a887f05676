"""The ``tradeoff`` command line (DESIGN.md section 8)."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    import sympy as sp

    import tradeoff_algebra as ta

    mu, nu = sp.symbols("mu nu", nonnegative=True)
    a = sp.Symbol("alpha", nonnegative=True)
    dps = args.dps
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
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tradeoff", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="build, evaluate and print a few expressions")
    demo.add_argument("--dps", type=int, default=30, help="decimal digits (default 30)")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except Exception as exc:  # the command line reports library errors without a traceback
        from .core.errors import TradeOffError

        if isinstance(exc, TradeOffError):
            print(f"tradeoff: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
