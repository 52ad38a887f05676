"""Randomized response composed many times, a discrete Gaussian beside a Laplace mechanism, and
delta far below a long composition's typical loss: ours (certified) beside dp_accounting's PLD,
each row in a fresh process (CPU time without the imports, peak resident memory above them).

    python benchmarks/bench_practitioner_rows.py [--write benchmarks/RESULTS_practitioner_rows.md]
"""

from __future__ import annotations

import argparse
import json

from _report import Report, child_json, run_line

_PRE = """
import json, resource, time, warnings
warnings.simplefilter("ignore")
"""

_POST = """
cpu = time.process_time() - t0
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
print(json.dumps(dict(out=out, cpu=cpu, mib=rss)))
"""

OURS = _PRE + """
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with ta.pld_options(tol={tol}):
    v = ta.{question}(f, {arg})
out = dict(lo=str(v.lo), hi=str(v.hi), rel=float((v.hi - v.lo) / v.hi) if v.hi else 0.0,
           guarantee=v.guarantee, route=v.route)
""" + _POST

PEER = _PRE + """
import math
from dp_accounting.pld import privacy_loss_distribution as pld
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
p = {expr}
out = dict(value=p.{question}({arg}))
""" + _POST

ROWS = [
    ("RR(1, 3)^1000, eps(1e-6)", "ta.randomized_response(1, 3) ** 1000", "epsilon", "R(1, 10**6)",
     "pld.from_randomized_response(3 / (math.e + 2), 3, value_discretization_interval=1e-4)"
     ".self_compose(1000)", "get_epsilon_for_delta", "1e-6"),
    ("RR(2, 4)^10^5, eps(1e-6)", "ta.randomized_response(2, 4) ** 10**5", "epsilon",
     "R(1, 10**6)",
     "pld.from_randomized_response(4 / (math.exp(2) + 3), 4, value_discretization_interval=1e-4)"
     ".self_compose(10**5)", "get_epsilon_for_delta", "1e-6"),
    ("RR(1, 3)^10^6, eps(1e-6)", "ta.randomized_response(1, 3) ** 10**6", "epsilon",
     "R(1, 10**6)", None, None, None),
    ("RR(log 3, 5)^1000, eps(1e-6)", "ta.randomized_response(sp.log(3), 5) ** 1000", "epsilon",
     "R(1, 10**6)",
     "pld.from_randomized_response(5 / 7, 5, value_discretization_interval=1e-4)"
     ".self_compose(1000)", "get_epsilon_for_delta", "1e-6"),
    ("DG(1, 2) (x) Laplace(1), delta(1)", "ta.DiscreteGaussian(1, 2) @ ta.Laplace(1)", "delta",
     "1",
     "pld.from_discrete_gaussian_mechanism(2, sensitivity=1, value_discretization_interval=1e-4)"
     ".compose(pld.from_laplace_mechanism(1, value_discretization_interval=1e-4))",
     "get_delta_for_epsilon", "1"),
    ("DG(1, 2) (x) Laplace(1), eps(1e-6)", "ta.DiscreteGaussian(1, 2) @ ta.Laplace(1)",
     "epsilon", "R(1, 10**6)",
     "pld.from_discrete_gaussian_mechanism(2, sensitivity=1, value_discretization_interval=1e-4)"
     ".compose(pld.from_laplace_mechanism(1, value_discretization_interval=1e-4))",
     "get_epsilon_for_delta", "1e-6"),
    ("Laplace(1/10)^10^6, delta(1)", "ta.Laplace(R(1, 10)) ** 10**6", "delta", "1", None, None,
     None),
    ("f_{1/2,0}^10^6 (x) G(1), delta(1)", "ta.EpsDelta(R(1, 2), 0) ** 10**6 @ ta.G(1)", "delta",
     "1", None, None, None),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    ap.add_argument("--tol", default="1e-9")
    args = ap.parse_args()
    rep = Report()
    rep.out("# Randomized response powers, a discrete Gaussian beside Laplace, delta near 1")
    rep.out()
    rep.out(run_line("python benchmarks/bench_practitioner_rows.py",
                     ("python-flint", "numpy", "dp-accounting")))
    rep.out()
    rep.out(f"Ours at `pld_options(tol={args.tol})`, certified; dp_accounting's PLD at grid 1e-4 "
            "(pessimistic, an estimate). CPU seconds without the imports; memory above them; "
            "each cell a fresh process.")
    rep.out()
    rep.out("| workload | ours | rel. width | guarantee (route) | CPU | memory | dp_accounting "
            "| its CPU | its memory | check |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, q, arg, pexpr, pq, parg in ROWS:
        o = child_json(OURS.format(expr=expr, question=q, arg=arg, tol=args.tol), timeout=300)
        if "error" in o:
            ours = (f"error: {o['error']}", "-", "-", "-", "-")
        else:
            r = o["out"]
            ours = (f"[{float(r['lo']):.12g}, {float(r['hi']):.12g}]", f"{r['rel']:.1e}",
                    f"{r['guarantee']} ({r['route']})", f"{o['cpu']:.2f} s", f"{o['mib']:.0f} MiB")
        if pexpr is None:
            peer, check = ("not run", "-", "-"), "-"
        else:
            p = child_json(PEER.format(expr=pexpr, question=pq, arg=parg), timeout=300)
            if "error" in p:
                why = "killed (no message: out of memory?)" if p["error"] == "?" else p["error"]
                peer, check = (f"failed: {why}", "-", "-"), "-"
            else:
                val = p["out"]["value"]
                peer = (f"{val:.10g}", f"{p['cpu']:.2f} s", f"{p['mib']:.0f} MiB")
                check = "-"
                if "error" not in o:
                    lo, hi = float(o["out"]["lo"]), float(o["out"]["hi"])
                    ref = hi if val > hi else max(lo, 1e-300)
                    check = (f"peer {'above' if val > hi else 'below' if val < lo else 'inside'}"
                             f" (rel. diff. {(val - ref) / ref:+.1e})")
        rep.out(f"| {name} | " + " | ".join(ours) + " | " + " | ".join(peer) + f" | {check} |")
    rep.write(args.write)
    print(json.dumps({"rows": len(ROWS)}))


if __name__ == "__main__":
    main()
