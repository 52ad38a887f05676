"""The cost of placing the hull's certified curve points on nested dyadic grids of eps
(``routes/inversion_curve.py``): ``ta.roc``, ``ta.evaluate`` and ``ta.curve`` of DP-SGD
(T = 100, 1000, 14063) and of G(1) (x) Laplace(1), before and after, each call in a fresh
process under ``nice``: CPU time (process_time, imports excluded) and peak memory (ru_maxrss),
the least of ``--repeat`` runs, and the width reached.

    nice python benchmarks/bench_tolerance_nested.py --before /tmp/before --write \
        benchmarks/RESULTS_tolerance_nested.md

``--before``: a directory holding the former package (``git archive <commit> tradeoff_algebra |
tar -x -C DIR``). There is no peer: dp_accounting and riskcal give no certified whole curve (the
peers' times are in RESULTS_curves.md); this measures the route against itself.
"""

from __future__ import annotations

import argparse
import os

from _report import CHILD_POST, CHILD_PRE, child_json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = CHILD_PRE + r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np, sympy as sp, tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace
R = sp.Rational
f = eval(sys.argv[2])
question, tol = sys.argv[3], float(sys.argv[4])
rss0 = 0  # (the peak of the whole process, the imports included; their CPU time excluded)
t0 = time.process_time()
with ta.pld_options(tol=tol):
    if question == "curve":
        lo, hi = ta.curve(f, np.linspace(0, 1, 101), bounds=True)
        width = float(np.max(hi - lo))
    else:
        v = getattr(ta, question)(f, R(1, 1000) if question == "evaluate" else R(1, 100))
        width = float(v.width)
out = dict(width=width)
""" + CHILD_POST

EXPRS = {
    "DP-SGD T = 100": "ta.noisy_sgd(R(11, 10), R(1, 100), 100)",
    "DP-SGD T = 1000": "ta.noisy_sgd(R(11, 10), R(1, 100), 1000)",
    "DP-SGD T = 14063": "ta.noisy_sgd(R(11, 10), R(256, 60000), 14063)",
    "G(1) (x) Laplace(1)": "G(1) @ Laplace(1)",
}
QUESTIONS = ("roc", "evaluate", "curve")


def one(root: str, expr: str, question: str, tol: float, repeat: int) -> dict:
    """The least CPU time of ``repeat`` fresh processes: ``{"t", "width", "rss"}`` (seconds,
    the width reached, peak KiB), or ``{"error"}``."""
    best = None
    for _ in range(repeat):
        r = child_json(CHILD, 900, args=(root, expr, question, str(tol)))
        if "error" in r:
            return r
        r = {"t": r["cpu"], "width": r["out"]["width"], "rss": r["mib"] * 1024}
        best = r if best is None or r["t"] < best["t"] else best
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="directory holding the former package")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tols", default="5e-4,1e-9")
    ap.add_argument("--write", help="markdown output")
    a = ap.parse_args()
    rows = ["| expression | question | tol | before CPU s | after CPU s | ratio | before MiB "
            "| after MiB | before width | after width |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name, expr in EXPRS.items():
        for q in QUESTIONS:
            for tol in (float(t) for t in a.tols.split(",")):
                b = one(a.before, expr, q, tol, a.repeat)
                n = one(ROOT, expr, q, tol, a.repeat)
                if "error" in b or "error" in n:
                    row = f"| {name} | {q} | {tol:g} | {b.get('error', '')[:60]} | " \
                          f"{n.get('error', '')[:60]} | | | | | |"
                else:
                    row = (f"| {name} | {q} | {tol:g} | {b['t']:.3f} | {n['t']:.3f} | "
                           f"{n['t'] / max(b['t'], 1e-9):.2f} | {b['rss'] / 1024:.0f} | "
                           f"{n['rss'] / 1024:.0f} | {b['width']:.3g} | {n['width']:.3g} |")
                print(row, flush=True)
                rows.append(row)
    load = os.getloadavg()
    text = "\n".join(rows) + f"\n\nLoad average at the end: {load[0]:.1f} {load[1]:.1f} " \
        f"{load[2]:.1f} (2 cores, shared).\n"
    print(text)
    if a.write:
        with open(a.write, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
