"""How soon a time limit stops a call: the overshoot (wall time minus the limit) of the
workloads the tests use to check that limits fire (tests/test_time_limits.py,
tests/test_reliability.py, tests/test_plot.py, tests/test_regressions_operators.py), each in a
fresh process, imports excluded. The tests assert that the limit fires; this measures when.

Run from the repository root::

    python benchmarks/bench_time_limits.py
    python benchmarks/bench_time_limits.py --write benchmarks/RESULTS_time_limits.md
"""

from __future__ import annotations

import argparse
import os

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_HEAD = r"""
import json, sys, time, warnings
sys.path.insert(0, {root!r})
import matplotlib
matplotlib.use("Agg")
import sympy as sp
import tradeoff_algebra as ta
warnings.simplefilter("ignore")
R = sp.Rational
limit = {limit!r}
call = {call}
t = time.perf_counter()
try:
    with ta.time_limit(limit):
        call()
    out = "finished"
except ta.TimeLimitExceeded:
    out = "stopped"
print(json.dumps(dict(out=out, t=time.perf_counter() - t, limit=limit)))
"""

CASES = [
    ("ROC plot of DP-SGD down to fpr 1e-200", 0.5,
     "lambda: ta.plot(ta.noisy_sgd(1.1, R(256, 60000), 14062, sampling='poisson'), "
     "kind='roc', fpr_min=1e-200, points=30)"),
    ("curve of f_{50, 1 - 1e-14} (x) G_{8/5}, 4 levels", 1,
     "lambda: ta.curve(ta.EpsDelta(50, 0.99999999999999) @ ta.G(R(8, 5)), "
     "[0.012645405679347094, 0.26583519946491985, 0.5008849557522124, 1.0])"),
    ("delta of C_{1e-122}(f_{1.9186, 2/5})", 1,
     "lambda: ta.delta(ta.Subsample(ta.EpsDelta(1.918597135354006, R(2, 5)), 1e-122), "
     "R(1, 1000), 15)"),
    ("eps of C_{1/2}(G(1) (x) L(1))", 15,
     "lambda: ta.epsilon(ta.C(R(1, 2), ta.G(1) @ ta.Laplace(1)), R(1, 10**5))"),
    ("Group(PoissonReplace(16, 1/10), 5000) at 1e-300, dps 100", 1,
     "lambda: ta.evaluate(ta.Group(ta.PoissonReplace(16, R(1, 10)), 5000), '1e-300', dps=100)"),
    ("gdp_mu(Laplace(1)) to tol 1e-8", 0.1,
     "lambda: ta.gdp_mu(ta.Laplace(1), dps=30, tol=R(1, 10**8))"),
]


def measure(limit, call) -> dict:
    r = child_json(_HEAD.format(root=ROOT, limit=limit, call=call), 600)
    if "error" in r:
        return dict(out="error: " + r["error"][:80], t=float("nan"), limit=limit)
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the Markdown report to this file")
    a = ap.parse_args()
    r = Report()
    r.out("# Time limits: how soon a call stops (fresh processes)")
    r.out("")
    r.out(run_line("python benchmarks/bench_time_limits.py"))
    r.out("")
    r.out("Wall time from the call to its return under `ta.time_limit(limit)`, imports "
          "excluded; overshoot = time - limit for a call that stopped. The tests check that "
          "these limits fire; the times are measured here, not asserted.")
    r.out("")
    r.out("| workload | limit | outcome | time | overshoot |")
    r.out("|---|---|---|---|---|")
    for name, limit, call in CASES:
        m = measure(limit, call)
        over = f"{m['t'] - limit:.2f} s" if m["out"] == "stopped" else "-"
        r.out(f"| {name} | {limit} s | {m['out']} | {m['t']:.2f} s | {over} |")
    r.write(a.write)


if __name__ == "__main__":
    main()
