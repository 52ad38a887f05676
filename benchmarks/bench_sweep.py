"""ta.sweep on a DP-SGD grid: serial against a 2-worker process pool, in fresh processes.

The grid: eps at delta = 1e-5 (``ta.epsilon(ta.noisy_sgd(sigma, q, T), 1e-5, dps=6)``,
fixed-size batches, Dong, Roth & Su's Thm. 10, composed by the privacy-loss-distribution
engine) over ``--n`` noise multipliers sigma in [0.8, 2] times ``--n`` sampling rates q in
[0.001, 0.05] (log-spaced), T = ``--steps`` steps. Each run is a new ``python`` process that
builds the grid, calls ``ta.sweep`` (``executor=None``, then a ``ProcessPoolExecutor`` with
``--workers`` workers) and reports its wall time and a digest of the table (every column but
the time); the two digests must agree (the table does not depend on the executor).

    python benchmarks/bench_sweep.py [--n 20] [--steps 1000] [--workers 2] [--write PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

from _report import Report, run_line

CHILD = r"""
import hashlib, json, sys, time
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import tradeoff_algebra as ta
from bench_sweep import dpsgd_eps

n, steps, workers = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
grid = {"sigma": [float(s) for s in np.linspace(0.8, 2.0, n)],
        "q": [float(q) for q in np.geomspace(0.001, 0.05, n)], "steps": [steps]}
t = time.perf_counter()
if workers:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        rows = ta.sweep(dpsgd_eps, grid, executor=pool, progress=False, frame=False)
else:
    rows = ta.sweep(dpsgd_eps, grid, progress=False, frame=False)
wall = time.perf_counter() - t
keep = [[r["sigma"], r["q"], r["lo"], r["hi"], r["route"], r["error"]] for r in rows]
digest = hashlib.sha256(json.dumps(keep).encode()).hexdigest()[:16]
widths = [r["width"] for r in rows if r["width"] is not None]
print(json.dumps({"wall": wall, "digest": digest, "units": len(rows),
                  "failed": sum(r["error"] is not None for r in rows),
                  "unit_seconds": sum(r["seconds"] for r in rows),
                  "max_width": max(widths) if widths else None,
                  "eps_range": [min(r["lo"] for r in rows if r["lo"] is not None),
                                max(r["hi"] for r in rows if r["hi"] is not None)]}))
"""


def dpsgd_eps(sigma: float, q: float, steps: int):
    """A work unit: eps(1e-5) of DP-SGD (top level, so it pickles by reference)."""
    import tradeoff_algebra as ta

    return ta.epsilon(ta.noisy_sgd(sigma, q, steps), 1e-5, dps=6)


def run(n: int, steps: int, workers: int) -> dict:
    here = pathlib.Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(steps), str(workers)],
                         capture_output=True, text=True, cwd=here,
                         env={**os.environ,
                              "PYTHONPATH": f"{here}:{here.parent}"})
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    rep = Report()
    cmd = " ".join(["python benchmarks/bench_sweep.py", *sys.argv[1:]])
    rep.out("# ta.sweep: serial against a process pool")
    rep.out()
    rep.out(run_line(cmd, ("numpy", "python-flint")))
    rep.out()
    rep.out(f"Grid: {a.n} x {a.n} = {a.n * a.n} units, eps(1e-5) of "
            f"`noisy_sgd(sigma, q, {a.steps})` at dps 6, sigma in [0.8, 2], q in "
            f"[0.001, 0.05] (log-spaced); each run in a fresh process.")
    rep.out()
    rep.out("| run | wall (s) | sum of unit times (s) | units | failed | table digest |")
    rep.out("|---|---|---|---|---|---|")
    res = {}
    for label, w in (("serial (executor=None)", 0),
                     (f"ProcessPoolExecutor({a.workers})", a.workers)):
        r = res[label] = run(a.n, a.steps, w)
        rep.out(f"| {label} | {r['wall']:.1f} | {r['unit_seconds']:.1f} | {r['units']} | "
                f"{r['failed']} | `{r['digest']}` |")
    (s, p) = res.values()
    rep.out()
    rep.out(f"Speed-up: {s['wall'] / p['wall']:.2f}x with {a.workers} workers on "
            f"{os.cpu_count()} cores; the tables are "
            + ("identical (same digest)." if s["digest"] == p["digest"] else "DIFFERENT."))
    rep.out(f"eps over the grid: [{s['eps_range'][0]:.4g}, {s['eps_range'][1]:.4g}]; widest "
            f"enclosure {s['max_width']:.3g}.")
    rep.write(a.write)
    if s["digest"] != p["digest"]:
        raise SystemExit("the serial and the pooled tables differ")


if __name__ == "__main__":
    main()
