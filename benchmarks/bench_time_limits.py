"""How soon a time limit stops a call: the overshoot (wall time minus the limit) of the
workloads the tests use to check that limits fire (tests/test_time_limits.py,
tests/test_reliability.py, tests/test_plot.py, tests/test_regressions_operators.py,
tests/test_time_limits_tail.py, tests/test_time_limits_pld.py, tests/test_time_limits_memory.py,
tests/test_time_limits_imports.py), each in a fresh process, the package imported before the
call (scipy's first import, inside the call, counts), with the process's resident memory
(ru_maxrss) before the call and at its peak. The tests assert that the limit fires; this
measures when.

Run from the repository root (``--root DIR``: the package of another checkout, e.g. an older
commit unpacked with ``git archive``, for a before/after comparison)::

    python benchmarks/bench_time_limits.py
    python benchmarks/bench_time_limits.py --write benchmarks/RESULTS_time_limits.md
"""

from __future__ import annotations

import argparse
import os

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_HEAD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import matplotlib
matplotlib.use("Agg")
import sympy as sp
import tradeoff_algebra as ta
warnings.simplefilter("ignore")
had_scipy = "scipy.special" in sys.modules
R = sp.Rational
limit = {limit!r}
call = {call}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
answer = ""
try:
    with ta.time_limit(limit):
        v = call()
    out = "finished"
    if isinstance(v, ta.Value):
        answer = f"[{{float(v.lo):.4g}}, {{float(v.hi):.4g}}]"
except ta.TimeLimitExceeded as exc:
    out = "stopped"
    if exc.best is not None:
        answer = f"best [{{float(exc.best[0]):.4g}}, {{float(exc.best[1]):.4g}}]"
except ta.NumericalError as exc:
    out = "refused: " + str(exc)[:60]
t = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
imported = not had_scipy and "scipy.special" in sys.modules
print(json.dumps(dict(out=out, t=t, limit=limit, answer=answer, rss0=rss0, rss=rss,
                      imported=imported)))
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
    # delta far below every float by the Laplace inversion (numeric/cf_route.py)
    ("delta(100) of noisy_sgd(11/10, 1/100, 10)", 3,
     "lambda: ta.delta(ta.noisy_sgd(R(11, 10), R(1, 100), 10), 100)"),
    ("delta(400) of noisy_sgd(11/10, 1/100, 10)", 20,
     "lambda: ta.delta(ta.noisy_sgd(R(11, 10), R(1, 100), 10), 400)"),
    # the PLD grids of PoissonReplace (numeric/pld_grid.py)
    ("eps(1e-10) of PoissonReplace(1, 1/10)^3 at tol 1e-9", 3,
     "lambda: _tol(1e-9, lambda: ta.epsilon(ta.PoissonReplace(1, R(1, 10)) ** 3, '1e-10'))"),
    ("eps(1e-10) of PoissonReplace(1, 1/10)^3 at tol 1e-9", 20,
     "lambda: _tol(1e-9, lambda: ta.epsilon(ta.PoissonReplace(1, R(1, 10)) ** 3, '1e-10'))"),
    # the PLD engine's working memory (numeric/pld.py, MAX_PLD_BYTES)
    ("delta(2) of 1000 discrete Gaussians, sigma_i = 10 + i/10", 60,
     "lambda: ta.delta(_census(1000), 2)"),
    ("delta(2) of 1000 discrete Gaussians, sigma_i = 10 + i/10", 240,
     "lambda: ta.delta(_census(1000), 2)"),
    # first calls of a process under a tiny limit: scipy's first import (numeric/progress.py)
    ("first eps(1e-6) of G(1) (x) L(1)", 0.05,
     "lambda: ta.epsilon(ta.Tensor(ta.G(1), ta.Laplace(1)), 1e-6)"),
    ("first evaluate of G(1) (x) L(1) at 1/10", 0.05,
     "lambda: ta.evaluate(ta.G(1) @ ta.Laplace(1), R(1, 10))"),
    ("first delta(1) of PoissonReplace(1, 1/10)^3", 0.05,
     "lambda: ta.delta(ta.PoissonReplace(1, R(1, 10)) ** 3, 1)"),
    ("first delta(3) of Skellam(2, 7)^10", 0.05, "lambda: ta.delta(ta.Skellam(2, 7) ** 10, 3)"),
    # the inversion's planning took the time limit for a declined plan (numeric/cf_route.py)
    ("first eps(1e-5) of L(1)^50 at tol 1e-9", 0.05,
     "lambda: _tol(1e-9, lambda: ta.epsilon(ta.Laplace(1) ** 50, R(1, 10**5)))"),
]

#: helpers of the cases, defined in each child before ``call``
_HELPERS = r"""
def _tol(tol, fn):
    with ta.pld_options(tol=tol):
        return fn()
def _census(n):
    return ta.Tensor(*[ta.DiscreteGaussian(1, 10 + R(i, 10)) for i in range(1, n + 1)])
"""


def measure(limit, call, root: str = ROOT) -> dict:
    head = _HEAD.replace("call = {call}", _HELPERS + "call = {call}")
    r = child_json(head.format(root=root, limit=limit, call=call), 900)
    if "error" in r:
        return dict(out="error: " + r["error"][:80], t=float("nan"), limit=limit, answer="",
                    rss0=float("nan"), rss=float("nan"), imported=False)
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the Markdown report to this file")
    ap.add_argument("--root", default=ROOT, help="the checkout whose package is measured")
    ap.add_argument("--only", default="", help="measure the cases whose name contains this "
                    "(several: separated by |)")
    a = ap.parse_args()
    r = Report()
    r.out("# Time limits: how soon a call stops (fresh processes)")
    r.out("")
    r.out(run_line("python benchmarks/bench_time_limits.py"))
    r.out("")
    r.out("Wall time from the call to its return under `ta.time_limit(limit)`, the package "
          "imported before the call (scipy is not: its first import inside the call counts, "
          "column scipy); overshoot = time - limit for a call that stopped; the answer (an "
          "enclosure, or the best one a stopped call carries); the resident memory of the "
          "process (ru_maxrss) before the call and at its peak. The tests check that these "
          "limits fire; the times are measured here, not asserted.")
    r.out("")
    r.out("| workload | limit | outcome | answer | time | overshoot | scipy imported | "
          "RSS before, peak |")
    r.out("|---|---|---|---|---|---|---|---|")
    only = [x for x in a.only.split("|")] if a.only else [""]
    for name, limit, call in CASES:
        if not any(x in name for x in only):
            continue
        m = measure(limit, call, a.root)
        over = f"{m['t'] - limit:.2f} s" if m["out"] == "stopped" else "-"
        r.out(f"| {name} | {limit} s | {m['out']} | {m['answer']} | {m['t']:.2f} s | {over} | "
              f"{'yes' if m.get('imported') else 'no'} | "
              f"{m['rss0']:.0f} MiB, {m['rss']:.0f} MiB |")
    r.write(a.write)


if __name__ == "__main__":
    main()
