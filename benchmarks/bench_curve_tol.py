"""Whole curves with ``bounds=True`` at the default tolerance and at 1e-9: CPU time, peak
memory and the widths reached, for a single mechanism (certified points on the digit rungs of
``numeric.curves.point_dps_rungs``), a lattice product and ten DP-SGD steps (certified bands of
their routes at the tolerance asked). Each case in a fresh process; 101
levels in [0, 1]. No peer gives certified bounds of a whole curve, so none is run beside.

    python benchmarks/bench_curve_tol.py   # writes benchmarks/RESULTS_curve_tol.md
"""

from __future__ import annotations

import os

from _report import CHILD_POST, CHILD_PRE, child_json

CASES = [
    ("PoissonReplace(1, 1/100)", "ta.PoissonReplace(1, R(1, 100))"),
    ("Laplace(1)^5", "ta.Laplace(1) ** 5"),
    ("DP-SGD sigma=1.1 q=256/60000 T=10", "ta.noisy_sgd(R(11, 10), R(256, 60000), 10)"),
]
TOLS = (5e-4, 1e-9)

CHILD = CHILD_PRE + r"""
import numpy as np, sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
R = sp.Rational
f = {expr}
x = np.linspace(0, 1, 101)
rss0 = 0  # (the peak of the whole process, the import included)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t0 = time.process_time()
    with ta.pld_options(tol={tol}):
        lo, hi = ta.curve(f, x, bounds=True)
warned = any(issubclass(w.category, ToleranceWarning) for w in caught)
m = (x > 0) & (lo < 1)
rel = float(np.max(((hi - lo) / (1 - lo))[m]))
out = [f"{{float(np.max(hi - lo)):.2e}}", f"{{rel:.2e}}", str(warned)]
""" + CHILD_POST


def row(name: str, expr: str, tol: float, env: dict) -> str:
    """The table row of one case in a fresh process: CPU s, peak MB, the widths, warned."""
    r = child_json(CHILD.format(expr=expr, tol=tol), 600, env=env)
    cells = ["error"] * 5 if "error" in r else [f"{r['cpu']:.2f}", f"{r['mib']:.0f}", *r["out"]]
    return f"| {name} | {tol:g} | " + " | ".join(cells) + " |"


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(here))
    rows = []
    for name, expr in CASES:
        for tol in TOLS:
            rows.append(row(name, expr, tol, env))
            print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    with open(os.path.join(here, "RESULTS_curve_tol.md"), "w") as fh:
        fh.write("# Whole curves with bounds=True: widths following the tolerance\n\n"
                 f"One run, fresh process per row, 101 levels; load average {load:.1f} on 2 "
                 "cores (shared).\n\n"
                 "| f | tol | CPU s | peak MB | max width of f | max relative width of "
                 "the power | ToleranceWarning |\n|---|---|---|---|---|---|---|\n")
        fh.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
