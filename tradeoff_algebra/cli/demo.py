"""The demo subcommand: build, evaluate and print a few expressions, a tour of the library."""

from __future__ import annotations

import argparse

from .readers import check_dps, dps_option
from .registry import subcommand


@subcommand("demo", "build, evaluate and print a few expressions", dps_option(30),
            examples=[("", "")])
def _demo(args: argparse.Namespace) -> int:
    import sympy as sp

    import tradeoff_algebra as ta

    dps = check_dps(args.dps)
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
