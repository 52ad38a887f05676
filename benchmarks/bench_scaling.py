"""Scaling of the composition routes (the certified Laplace inversion for DP-SGD, the PLD
engine where it declines): time against the number of steps T and against the relative width
reached, with fitted exponents (least squares on log-log), beside dp_accounting's default
accountant on the same DP-SGD workloads. Each point runs in a fresh process (cold caches).

    python benchmarks/bench_scaling.py [--write benchmarks/RESULTS_scaling.md]
"""

from __future__ import annotations

import argparse
import math
import os

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import sympy as sp
import tradeoff_algebra as ta
sigma, T, tol, peer = {sigma!r}, {T!r}, {tol!r}, {peer!r}
if peer:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    ev = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(
        256 / 60000, dp_event.GaussianDpEvent(float(sp.Rational(sigma)))), T)
    t0 = time.perf_counter()
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(ev)
    e = acc.get_epsilon(1e-5)
    print(json.dumps({{"lo": e, "hi": e, "t": time.perf_counter() - t0, "mem": 0}}))
else:
    f = ta.noisy_sgd(sp.Rational(sigma), sp.Rational(256, 60000), T, sampling="poisson")
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    with ta.pld_options(tol=tol):
        v = ta.epsilon(f, sp.Rational(1, 10**5), dps=12)
    t = time.perf_counter() - t0
    mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024
    print(json.dumps({{"lo": float(v.lo), "hi": float(v.hi), "t": t, "mem": mem}}))
"""


def run(sigma: str, T: int, tol: float, peer: bool = False) -> dict:
    return child_json(_CHILD.format(root=ROOT, sigma=sigma, T=T, tol=tol, peer=peer), 1800)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    args = ap.parse_args()
    lines = ["# Scaling of the composition routes", "",
             run_line("python benchmarks/bench_scaling.py", ("dp-accounting",))
             + "; each point in a fresh process (import excluded), DP-SGD with p = 256/60000, "
             "Poisson sampling, eps at delta = 1e-5.", ""]

    lines += ["## Time against T (default tolerance 5e-4), sigma = 1.1", "",
              "| T | ours [lo, hi] | rel. width | time | peak RSS growth | dp_accounting default "
              "| time |", "|---|---|---|---|---|---|---|"]
    Ts, ours_t, peer_t = [1000, 10_000, 100_000, 1_000_000, 10_000_000], [], []
    for T in Ts:
        r = run("11/10", T, 5e-4)
        p = run("11/10", T, 5e-4, peer=True)
        if "error" in r:
            lines.append(f"| {T} | {r['error']} | | | | | |")
            continue
        ours_t.append(r["t"])
        peer_t.append(p.get("t", float("nan")))
        lines.append(f"| {T} | [{r['lo']:.6f}, {r['hi']:.6f}] | "
                     f"{(r['hi'] - r['lo']) / r['hi']:.1e} | {r['t']:.3f} s | "
                     f"{r['mem'] / 2**20:.0f} MiB | {p.get('lo', float('nan')):.6f} | "
                     f"{p.get('t', float('nan')):.2f} s |")
    if len(ours_t) == len(Ts):
        lines += ["", f"Fitted exponent of time against T: ours {slope(Ts, ours_t):.2f}, "
                  f"dp_accounting {slope(Ts, peer_t):.2f}."]

    lines += ["", "## Time against the width reached, sigma = 1.1, T = 14063", "",
              "| tol | ours [lo, hi] | rel. width | time | peak RSS growth |",
              "|---|---|---|---|---|"]
    ws, ts = [], []
    for tol in (5e-3, 5e-4, 5e-6, 1e-9, 1e-12):
        r = run("11/10", 14063, tol)
        if "error" in r:
            lines.append(f"| {tol:g} | {r['error']} | | | |")
            continue
        w = (r["hi"] - r["lo"]) / r["hi"]
        ws.append(w)
        ts.append(r["t"])
        lines.append(f"| {tol:g} | [{r['lo']:.13f}, {r['hi']:.13f}] | {w:.1e} | {r['t']:.3f} s | "
                     f"{r['mem'] / 2**20:.0f} MiB |")
    if len(ws) >= 2:
        lines += ["", f"Fitted exponent of time against the relative width: "
                  f"{slope(ws, ts):.2f} (time ~ width^{slope(ws, ts):.2f})."]
    report = Report()
    for line in lines:
        report.out(line)
    report.write(args.write)


if __name__ == "__main__":
    main()
