"""How good are the central limit theorems at finite n? The approximations ``ta.approx`` gives
(Dong, Roth & Su, Thms. 6, 7 and 11) against the exact compositions the library computes, and
the Berry–Esseen sandwich (Thm. 5) against the same.

    python benchmarks/clt_accuracy.py [--write benchmarks/RESULTS_clt_accuracy.md]

For each n: the certified sup-distance sup_alpha |f_n(alpha) - approx(alpha)| (``ta.sup_distance``,
an enclosure), n times it (the O(1/n) of Thm. 8 shows as a constant), Thm. 5's gamma (the width
of the guaranteed sandwich), and the time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy as sp  # noqa: E402
from _report import Report, run_line  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

R = sp.Rational


def _fmt(v) -> str:
    return f"[{float(v.lo):.4g}, {float(v.hi):.4g}]"


def _row(name, n, f, tol=None):
    t0 = time.perf_counter()
    a = ta.approx(f)
    d = ta.sup_distance(f, a.node, tol=tol if tol is not None else R(1, 10**6))
    t = time.perf_counter() - t0
    try:
        g = float(ta.berry_esseen(f).gamma)
        gs = f"{g:.4f}"
    except ta.TradeOffError:
        gs = "n/a (no closed-form functionals)"
    return (f"| {name} | {n} | `{a.node}` | {_fmt(d)} | {float(d.hi) * n:.4f} | {gs} | "
            f"{t:.2f} s |")


def thm7(ns):
    out = []
    for n in ns:
        out.append(_row("Thm. 7: f_{1/sqrt(n),0}^n", n, ta.BinomialDP(1 / sp.sqrt(n), n)))
    for n in ns[:3]:
        f = ta.EpsDelta(1 / sp.sqrt(n), R(1, 2 * n)) ** n
        out.append(_row("Thm. 7: f_{1/sqrt(n),1/(2n)}^n", n, f))
    return out


def thm6(ns):
    """A triangular array of three-point pairs P_n = (1/3 + a_n, 1/3, 1/3 - a_n) against P_n
    reversed, a_n = 1/(5 sqrt(n)) (n a square: rational masses)."""
    out = []
    for n in ns:
        a = R(1, 5) / sp.sqrt(n)
        P = [R(1, 3) + a, R(1, 3), R(1, 3) - a]
        d = ta.Discrete(P, P[::-1])
        out.append(_row("Thm. 6: three-point pair_n^n", n, d ** n, tol=R(1, 10**5)))
    return out


def thm11(Ts):
    out = []
    for T in Ts:
        f = ta.noisy_sgd(1, R(1, 2) / sp.sqrt(T), T, "gdp_paper")
        t0 = time.perf_counter()
        a = ta.approx(f)
        dl = ta.delta(f, 1, dps=10)
        dg = ta.delta(a.node, 1, dps=10)
        t = time.perf_counter() - t0
        out.append(f"| Thm. 11: C_(1/(2 sqrt T))(G_1)^T | {T} | `{a.node}` | "
                   f"delta(1): exact {_fmt(dl)}, limit {float(dg.mid):.6f} | "
                   f"gap {float(dg.mid - dl.hi):.2e}..{float(dg.mid - dl.lo):.2e} | n/a | "
                   f"{t:.2f} s |")
    return out


def cor5(cases):
    """Cor. 5 (Thm. 5 with the certified functionals of C_p(G_{1/sigma})): mu~, gamma and the
    gap between the exact composition (PLD enclosure) and the guaranteed lower bound."""
    out = ["", "## Cor. 5: the Berry-Esseen lower bound of NoisySGD against the exact composition",
           "", "| sigma, p, T | mu~ | gamma | CLT (Thm. 11) mu | exact - Cor. 5 at alpha = "
           "0.01 / 0.1 / 0.3 / 0.5 | time |", "|---|---|---|---|---|---|"]
    for sigma, p, T in cases:
        f = ta.noisy_sgd(sigma, p, T, "gdp_paper")
        t0 = time.perf_counter()
        be = ta.berry_esseen(f)
        t = time.perf_counter() - t0
        gaps = []
        for a in ("0.01", "0.1", "0.3", "0.5"):
            ex = ta.evaluate(f, a, dps=10)
            lo = ta.evaluate(be.lower, a, dps=10)
            gaps.append(f"{float(ex.mid - lo.mid):.4f}")
        clt = ta.approx(f).node
        out.append(f"| {sigma}, {p}, {T} | {float(be.mu_bounds[1]):.6f} | "
                   f"{float(be.gamma):.4f} | {float(clt.mu):.6f} | {' / '.join(gaps)} | "
                   f"{t:.2f} s |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the Markdown results to this file")
    args = ap.parse_args()
    head = ["# CLT accuracy: the approximations of `ta.approx` against exact compositions", "",
            run_line("python benchmarks/clt_accuracy.py"), "",
            "sup-distance: certified enclosure of sup_alpha |exact - approximation| "
            "(`ta.sup_distance`); gamma: Thm. 5's shift (the sandwich "
            "Shift(G_mu, gamma) <= f <= Shift(G_mu, -gamma) is guaranteed; the CLT forms are "
            "not).", "",
            "| theorem / composition | n | approximation | sup-distance | n x sup | "
            "Thm. 5 gamma | time |", "|---|---|---|---|---|---|---|"]
    rows = thm7([10, 40, 160, 640]) + thm6([16, 64, 256]) + thm11([100, 400, 1600, 6400])
    rows += cor5([(1, R(1, 100), 2500), (1, R(1, 100), 10000), (R(11, 10), R(256, 60000), 14063)])
    report = Report()
    for line in head + rows:
        report.out(line)
    report.write(args.write)


if __name__ == "__main__":
    main()
