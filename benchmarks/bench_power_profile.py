"""Cost and guarantee of roc, delta and epsilon of operator nodes whose profile comes from
certified powers (operators/power_profile.py), one call per fresh process.

    python benchmarks/bench_power_profile.py                 # this tree
    python benchmarks/bench_power_profile.py --root /path/to/another/checkout

Each call: CPU seconds (``time.process_time``) and peak resident memory of the process
(``ru_maxrss``, the import included), its guarantee, relative width and route; a call over the
time limit (wall clock) is reported as such.
"""

from __future__ import annotations

import argparse
import os

from _report import CHILD_POST, CHILD_PRE, child_json, child_result

EXPRESSIONS = [
    "ta.Group(ta.G(1), 3)", "ta.Group(ta.Laplace(1), 2)", "ta.Group(ta.EpsDelta(1, R(1, 100)), 3)",
    "ta.Group(ta.EpsDelta(R(1, 4), 0), 4)", "ta.Inverse(ta.Laplace(1))",
    "ta.Inverse(ta.Mix(ta.G(1), R(1, 2)))", "ta.Symmetrize(ta.Mix(ta.G(1), R(1, 2)))",
    "ta.Shift(ta.G(1), -R(1, 10))", "ta.Group(ta.G(1), 3)**5",
]
CALLS = {"roc(0.01)": "ta.roc(f, R(1, 100), dps=20)", "delta(1/2)": "ta.delta(f, R(1, 2), dps=20)",
         "eps(1e-6)": "ta.epsilon(f, R(1, 10**6), dps=20)"}

CHILD = CHILD_PRE + """
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = 0  # (the peak of the whole process, the import included)
t0 = time.process_time()
try:
    with ta.time_limit({limit}), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = {call}
    rel = None
    if not v.is_point and v.hi > 0 and v.hi != float("inf"):
        rel = float((v.hi - v.lo) / v.hi)
    out = {{"g": v.guarantee, "rel": rel, "route": v.route, "v": str(v)}}
except Exception as exc:  # noqa: BLE001 - reported
    out = {{"error": type(exc).__name__}}
""" + CHILD_POST


def run(root: str, expr: str, call: str, limit: float) -> dict:
    env = dict(os.environ, PYTHONPATH=root)
    code = CHILD.format(expr=expr, call=call, limit=limit)
    r = child_result(child_json(code, 3 * limit + 60, cwd=root, env=env))
    return {"error": "process failed"} if set(r) == {"error"} else r


def cell(r: dict) -> str:
    if "error" in r:
        return f"{r['error']} ({r.get('cpu', 0):.2f} s)"
    width = "" if r["rel"] is None else f", width {r['rel']:.0e}"
    return f"{r['g']}{width}, {r['cpu']:.2f} s, {r['mib']:.0f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--limit", type=float, default=300.0)
    args = ap.parse_args()
    print("| expression | " + " | ".join(CALLS) + " |")
    print("|---" * (len(CALLS) + 1) + "|")
    for expr in EXPRESSIONS:
        cells = [cell(run(args.root, expr, call, args.limit)) for call in CALLS.values()]
        print(f"| `{expr}` | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
