"""roc(1/100) and a 101-point curve of powers of asymmetric laws whose profiles are planned per
eps, beside one certified eps call of the same expression and dp_accounting's PLD.

    python benchmarks/bench_asym_curves.py [--before DIR] [--timeout S] [--quick] [--only ...]
                                          [--tols ...] [--no-nice] [--no-peer]
                                          [--write benchmarks/RESULTS_asym_curves.md]

Every timed call runs in a fresh process (CPU time by ``time.process_time``, the imports
excluded; peak resident MiB above the imports; the warnings raised), for this tree and, with
``--before``, for another checkout of the package (the code before a change). The rows:
Mix(Laplace(1), 1/3)^10, Mix(G(2), 1/10)^10 and C(1/10, G(1))^10 at tol = 5e-4 (the default),
1e-6 and 1e-9 (``pld_options``): roc(1/100), the curve on linspace(0, 1, 101) with bounds, and
epsilon(1e-5). The peer: dp_accounting's pessimistic PLD (connect the dots, grid 1e-4) composed
ten times, its power at a level the least delta(eps_i) + e^eps_i alpha over its losses
eps_i >= 0 (the hockey-stick line at each of its losses; the PLD's own curve at these levels),
the optimistic PLD beside it for the bracket (dp_accounting has no trade-off curve of its own).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from _report import Report, run_line

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

EXPRS = {
    "Mix(Laplace(1), 1/3)^10": "ta.Mix(ta.Laplace(1), sp.Rational(1, 3)) ** 10",
    "Mix(G(2), 1/10)^10": "ta.Mix(ta.G(2), sp.Rational(1, 10)) ** 10",
    "C(1/10, G(1))^10": "ta.C(sp.Rational(1, 10), ta.G(1)) ** 10",
}
#: dp_accounting's PLD of each (the pair of Mix is the PLD's "remove" pmf: tests/test_cells_curve)
PEERS = {
    "Mix(Laplace(1), 1/3)^10": ("pld.from_laplace_mechanism(1.0, 1.0, pessimistic_estimate={pe}, "
                                "value_discretization_interval=1e-4, sampling_prob=1/3)", "remove"),
    "Mix(G(2), 1/10)^10": ("pld.from_gaussian_mechanism(0.5, sensitivity=1.0, "
                           "pessimistic_estimate={pe}, value_discretization_interval=1e-4, "
                           "sampling_prob=0.1)", "remove"),
    "C(1/10, G(1))^10": ("pld.from_gaussian_mechanism(1.0, sensitivity=1.0, "
                         "pessimistic_estimate={pe}, value_discretization_interval=1e-4, "
                         "sampling_prob=0.1)", "both"),
}
TOLS = (5e-4, 1e-6, 1e-9)

CHILD = """
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import numpy as np
import sympy as sp
import tradeoff_algebra as ta
f = {expr}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ta.pld_options(tol={tol!r}):
        {body}
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
warned = sorted({{type(w.message).__name__ for w in caught
                  if type(w.message).__name__ in ("ToleranceWarning", "EstimateWarning")}})
print(json.dumps(dict(out=out, t=t, mem=mem, warned=warned)))
"""

BODIES = {
    "roc": ("v = ta.roc(f, sp.Rational(1, 100))\n        "
            "out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=v.route)"),
    "curve": ("lo, hi = ta.curve(f, np.linspace(0, 1, 101), bounds=True)\n        "
              "est = sum(1 for w in caught if type(w.message).__name__ == 'EstimateWarning')\n"
              "        out = dict(lo=float(lo[1]), hi=float(hi[1]), w=float(np.max(hi - lo)), "
              "g='estimate' if est else 'certified')"),
    "eps": ("v = ta.epsilon(f, sp.Rational(1, 10**5))\n        "
            "out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=v.route)"),
}

PEER_CHILD = """
import json, resource, time
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
alphas = {alphas!r}
res = []
for pe in (True, False):
    d = {expr}.self_compose(10)
    pmfs = [d._pmf_remove] if {which!r} == "remove" else [d._pmf_add, d._pmf_remove]
    eps = None
    for pmf in pmfs:
        n = len(pmf._probs)
        e = (pmf._lower_loss + np.arange(n)) * pmf._discretization
        eps = e if eps is None else np.union1d(eps, e)
    eps = eps[eps >= 0]
    delta = np.max([np.asarray(pmf.get_delta_for_epsilon(eps)) for pmf in pmfs], axis=0)
    res.append([float(np.min(delta + np.exp(eps) * a)) for a in alphas])
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(dict(out=res, t=t, mem=mem)))
"""


#: The children run under ``nice`` unless ``--no-nice`` (on a machine loaded by other jobs a
#: niced child may get a few per cent of a core: the CPU seconds are the same, the wall time
#: is not).
NICE = ["nice"]


def _run(code: str, timeout: float) -> dict:
    try:
        r = subprocess.run([*NICE, sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout:g} s"}
    for line in reversed(r.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"error": (r.stderr.strip().splitlines() or ["no output"])[-1][:120]}


def ours(root: str, name: str, tol: float, what: str, timeout: float) -> dict:
    return _run(CHILD.format(root=root, expr=EXPRS[name], tol=tol, body=BODIES[what]), timeout)


def peer(name: str, what: str, timeout: float) -> dict:
    expr, which = PEERS[name]
    alphas = [0.01] if what == "roc" else [i / 100 for i in range(101)]
    return _run(PEER_CHILD.format(expr=expr.format(pe="pe"), which=which, alphas=alphas), timeout)


def _cell(r: dict | None) -> str:
    if r is None:
        return "-"
    if "error" in r:
        return r["error"]
    o = r["out"]
    g = o.get("g", "")
    g = "cert" if g == "certified" else "est" if g else ""
    w = " W" if r.get("warned") else ""
    return f"{r['t']:.3f} s {g}{w}, {r['mem']:.0f} MiB"


def _width(r: dict | None) -> str:
    if r is None or "error" in r:
        return "-"
    o = r["out"]
    if "w" in o:
        return f"{o['w']:.1e}"
    return f"{(o['hi'] - o['lo']) / max(abs(o['hi']), 1e-300):.1e}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="another checkout of the package (the code before)")
    ap.add_argument("--timeout", type=float, default=150.0)
    ap.add_argument("--quick", action="store_true", help="the default tolerance only")
    ap.add_argument("--tols", nargs="*", type=float, help="the tolerances to run (default: all)")
    ap.add_argument("--only", nargs="*", help="expressions (keys of EXPRS) to run")
    ap.add_argument("--before-tols", nargs="*", type=float, default=list(TOLS),
                    help="the tolerances at which --before is run")
    ap.add_argument("--before-only", action="store_true",
                    help="run --before alone (no after, eps or peer columns)")
    ap.add_argument("--no-nice", action="store_true", help="run the children without nice")
    ap.add_argument("--no-peer", action="store_true",
                    help="leave out dp_accounting's columns (its figures do not change)")
    ap.add_argument("--write")
    args = ap.parse_args()
    if args.no_nice:
        NICE.clear()
    tols = TOLS[:1] if args.quick else tuple(args.tols) if args.tols else TOLS
    rep = Report()
    rep.out("# roc and curves of asymmetric products planned per eps")
    rep.out()
    rep.out(run_line("python benchmarks/bench_asym_curves.py " + " ".join(sys.argv[1:]),
                     ("dp_accounting", "python-flint")))
    rep.out()
    head = ["expression", "tol", "roc before", "roc after", "roc width", "curve before",
            "curve after", "curve width", "eps(1e-5)", "eps width", "PLD roc [opt, pess]",
            "PLD curve"]
    rep.out("| " + " | ".join(head) + " |")
    rep.out("|" + "---|" * len(head))
    for name in args.only or EXPRS:
        pr = ({w: {"error": "-"} for w in ("roc", "curve")} if args.before_only or args.no_peer
              else {w: peer(name, w, args.timeout) for w in ("roc", "curve")})
        for tol in tols:
            if args.before_only and tol not in args.before_tols:
                continue
            row = [name, f"{tol:g}"]
            for what in ("roc", "curve"):
                before = (ours(args.before, name, tol, what, args.timeout)
                          if args.before and tol in args.before_tols else None)
                after = None if args.before_only else ours(ROOT, name, tol, what, args.timeout)
                row += [_cell(before), _cell(after), _width(after)]
            eps = None if args.before_only else ours(ROOT, name, tol, "eps", args.timeout)
            row += [_cell(eps), _width(eps)]
            ref = pr["roc"]
            row += ["-" if "error" in ref else
                    f"{ref['t']:.3f} s [{ref['out'][1][0]:.7g}, {ref['out'][0][0]:.7g}]",
                    "-" if "error" in pr["curve"] else f"{pr['curve']['t']:.3f} s"]
            rep.out("| " + " | ".join(row) + " |")
    rep.write(args.write)


if __name__ == "__main__":
    main()
