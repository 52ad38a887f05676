"""Whole curves with ``bounds=True`` at the default tolerance and at 1e-9: CPU time, peak
memory and the widths reached, for a single mechanism (certified points on the digit rungs of
``numeric.curves.point_dps_rungs``), a lattice product and ten DP-SGD steps (certified bands of
their routes at the tolerance asked). Each case in a fresh process; 101
levels in [0, 1]. No peer gives certified bounds of a whole curve, so none is run beside.

    python benchmarks/bench_curve_tol.py   # writes benchmarks/RESULTS_curve_tol.md
"""

from __future__ import annotations

import os
import subprocess
import sys

CASES = [
    ("PoissonReplace(1, 1/100)", "ta.PoissonReplace(1, R(1, 100))"),
    ("Laplace(1)^5", "ta.Laplace(1) ** 5"),
    ("DP-SGD sigma=1.1 q=256/60000 T=10", "ta.noisy_sgd(R(11, 10), R(256, 60000), 10)"),
]
TOLS = (5e-4, 1e-9)

CHILD = r"""
import resource, time, warnings
import numpy as np, sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
R = sp.Rational
f = {expr}
x = np.linspace(0, 1, 101)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = time.process_time()
    with ta.pld_options(tol={tol}):
        lo, hi = ta.curve(f, x, bounds=True)
    cpu = time.process_time() - t
warned = any(issubclass(w.category, ToleranceWarning) for w in caught)
m = (x > 0) & (lo < 1)
rel = float(np.max(((hi - lo) / (1 - lo))[m]))
mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{cpu:.2f}}|{{mb:.0f}}|{{float(np.max(hi - lo)):.2e}}|{{rel:.2e}}|{{warned}}")
"""


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(here))
    rows = []
    for name, expr in CASES:
        for tol in TOLS:
            out = subprocess.run([sys.executable, "-c", CHILD.format(expr=expr, tol=tol)],
                                 capture_output=True, text=True, env=env, timeout=600)
            cells = out.stdout.strip().splitlines()[-1].split("|") if out.stdout.strip() \
                else ["error"] * 5
            rows.append(f"| {name} | {tol:g} | " + " | ".join(cells) + " |")
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
