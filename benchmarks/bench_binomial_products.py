"""n-fold pure eps-DP (BinomialDP) alone and next to randomized response on another lattice:
ours (certified) beside dp_accounting's PLD of the same composition, and ours under time limits.

The calls of the time-limit report (``RESULTS_time_limits.md``) that stopped at their limits:
delta and f(alpha) of f_{log 2,0}^{(x) 20000}; eps(1e-6) of f_{1/10,0}^{(x) 10^5} (x)
RR(log 3, k)^{(x) 10^5} for k = 5 and k = 2 (RR(log 3, 2) = f_{log 3,0}), whose losses lie on
(1/10) Z and log(3) Z: no common lattice. Each cell is a fresh process; CPU seconds without the
imports, peak resident memory above them. The peer runs under a 3 GiB address-space limit, at
grid 1e-4 and, where that fails, 1e-3 and 1e-2; its value is an estimate (pessimistic PLD),
compared with our certified bracket. The second table: our calls under ``ta.time_limit(L)``,
wall time from the call to its return (the package imported before the clock starts).

    python benchmarks/bench_binomial_products.py [--write benchmarks/RESULTS_binomial_products.md]
"""

from __future__ import annotations

import argparse
import json

from _report import CHILD_POST, CHILD_PRE, Report, child_json, pld_peer_child, run_line

_PRE, _POST = CHILD_PRE, CHILD_POST

OURS = _PRE + """
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with ta.pld_options(tol={tol}):
    v = ta.{question}(f, {arg})
import mpmath
out = dict(lo=mpmath.nstr(v.lo, 12), hi=mpmath.nstr(v.hi, 12),
           rel=float((v.hi - v.lo) / v.hi) if v.hi else 0.0,
           guarantee=v.guarantee, route=v.route)
""" + _POST

LIMITED = _PRE + """
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
w0 = time.perf_counter()
try:
    with ta.time_limit({limit}):
        v = ta.{question}(f, {arg})
    import mpmath
    out = dict(outcome="answered", value=f"[{{mpmath.nstr(v.lo, 10)}}, {{mpmath.nstr(v.hi, 10)}}]",
               route=v.route, wall=time.perf_counter() - w0)
except ta.TimeLimitExceeded:
    out = dict(outcome="stopped", value="", route="", wall=time.perf_counter() - w0)
""" + _POST

PEER = pld_peer_child(3)


def _pure(eps: str, n: str, h: str) -> str:
    return (f"pld.from_privacy_parameters(common.DifferentialPrivacyParameters({eps}, 0), "
            f"value_discretization_interval={h}).self_compose({n})")


def _rr5(n: str, h: str) -> str:  # RR(log 3, 5): e^eps = 1 + k (1 - p)/p = 3 at p = 5/7
    return (f"pld.from_randomized_response(5 / 7, 5, value_discretization_interval={h})"
            f".self_compose({n})")


B20K = "ta.BinomialDP(sp.log(2), 20000)"
PROD5 = "ta.Tensor(ta.BinomialDP(R(1, 10), 10**5), ta.randomized_response(sp.log(3), 5) ** 10**5)"
PROD2 = "ta.Tensor(ta.BinomialDP(R(1, 10), 10**5), ta.randomized_response(sp.log(3), 2) ** 10**5)"

#: (name, our expression, question, our argument, peer expression at grid h (or None), peer
#: question, peer argument)
ROWS = [
    ("f_{log 2,0}^20000, delta(1)", B20K, "delta", "1",
     lambda h: _pure("math.log(2)", "20000", h), "get_delta_for_epsilon", "1"),
    ("f_{log 2,0}^20000, delta(5000)", B20K, "delta", "5000",
     lambda h: _pure("math.log(2)", "20000", h), "get_delta_for_epsilon", "5000"),
    ("f_{log 2,0}^20000, eps(1e-6)", B20K, "epsilon", "R(1, 10**6)",
     lambda h: _pure("math.log(2)", "20000", h), "get_epsilon_for_delta", "1e-6"),
    ("f_{log 2,0}^20000, f(1/10)", B20K, "evaluate", "R(1, 10)", None, None, None),
    ("f_{1/10,0}^10^5 (x) RR(log 3, 5)^10^5, eps(1e-6)", PROD5, "epsilon", "R(1, 10**6)",
     lambda h: _pure("0.1", "10**5", h) + ".compose(" + _rr5("10**5", h) + ")",
     "get_epsilon_for_delta", "1e-6"),
    ("f_{1/10,0}^10^5 (x) RR(log 3, 2)^10^5, eps(1e-6)", PROD2, "epsilon", "R(1, 10**6)",
     lambda h: _pure("0.1", "10**5", h) + ".compose(" + _pure("math.log(3)", "10**5", h) + ")",
     "get_epsilon_for_delta", "1e-6"),
    ("f_{1/10,0}^10^5 (x) RR(log 3, 5)^10^5, delta(33000)", PROD5, "delta", "33000",
     lambda h: _pure("0.1", "10**5", h) + ".compose(" + _rr5("10**5", h) + ")",
     "get_delta_for_epsilon", "33000"),
]

LIMIT_ROWS = [
    ("delta(f_{log 2,0}^20000, 1)", B20K, "delta", "1"),
    ("f_{log 2,0}^20000 at 1/10", B20K, "evaluate", "R(1, 10)"),
    ("eps(1e-6) of f_{1/10,0}^10^5 (x) RR(log 3, 5)^10^5", PROD5, "epsilon", "R(1, 10**6)"),
    ("eps(1e-6) of f_{1/10,0}^10^5 (x) RR(log 3, 2)^10^5", PROD2, "epsilon", "R(1, 10**6)"),
]


def _peer(pexpr, pq, parg, grids) -> tuple[str, dict, str]:
    """(grid, result, the failures at the finer grids) of the first grid at which the peer
    answers (the last grid's failure when none does)."""
    failed = []
    for h in grids:
        p = child_json(PEER.format(expr=pexpr(h), question=pq, arg=parg), timeout=900)
        if "error" not in p:
            break
        why = "killed (out of memory?)" if p["error"] == "?" else p["error"]
        failed.append(f"{h}: {why}")
    return h, p, "; ".join(failed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    ap.add_argument("--tol", default="1e-9")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    rep = Report()
    rep.out("# BinomialDP alone and on two lattices: ours beside dp_accounting, and under limits")
    rep.out()
    rep.out(run_line("python benchmarks/bench_binomial_products.py",
                     ("python-flint", "numpy", "dp-accounting")))
    rep.out()
    rep.out(f"Ours at `pld_options(tol={args.tol})`; dp_accounting's pessimistic PLD at grid 1e-4 "
            "(coarser where 1e-4 failed, the failure shown), an estimate. CPU seconds without "
            "the imports, memory above them, each cell a fresh process.")
    rep.out()
    rep.out("| workload | ours | rel. width | guarantee (route) | CPU | memory | dp_accounting "
            "(grid) | its CPU | its memory | peer vs ours |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, q, arg, pexpr, pq, parg in ROWS:
        o = child_json(OURS.format(expr=expr, question=q, arg=arg, tol=args.tol), timeout=600)
        if "error" in o:
            ours = (f"error: {o['error']}", "-", "-", "-", "-")
        else:
            r = o["out"]
            ours = (f"[{r['lo']}, {r['hi']}]", f"{r['rel']:.1e}",
                    f"{r['guarantee']} ({r['route']})", f"{o['cpu']:.2f} s", f"{o['mib']:.0f} MiB")
        if pexpr is None or args.no_peer:
            peer, check = ("not run" if pexpr else "no such question", "-", "-"), "-"
        else:
            h, p, failed = _peer(pexpr, pq, parg, ("1e-4", "1e-3", "1e-2"))
            if "error" in p:
                peer, check = (f"failed ({failed})", "-", "-"), "-"
            else:
                val = p["out"]["value"]
                note = f"; failed at {failed}" if failed else ""
                peer = (f"{val:.10g} (grid {h}{note})", f"{p['cpu']:.2f} s",
                        f"{p['mib']:.0f} MiB")
                check = "-"
                if "error" not in o:
                    lo, hi = float(o["out"]["lo"]), float(o["out"]["hi"])
                    ref = hi if val > hi else max(lo, 1e-300)
                    check = (f"{'above' if val > hi else 'below' if val < lo else 'inside'}"
                             f" (rel. {(val - ref) / ref:+.1e})")
        rep.out(f"| {name} | " + " | ".join(ours) + " | " + " | ".join(peer) + f" | {check} |")
    rep.out()
    rep.out("Under `ta.time_limit(L)` (wall time from the call to its return):")
    rep.out()
    rep.out("| call | limit | outcome | answer | route | wall | CPU |")
    rep.out("|---|---|---|---|---|---|---|")
    for name, expr, q, arg in LIMIT_ROWS:
        for limit in ("0.05", "0.5", "2"):
            o = child_json(LIMITED.format(expr=expr, question=q, arg=arg, limit=limit),
                           timeout=120)
            if "error" in o:
                rep.out(f"| {name} | {limit} s | error: {o['error']} | | | | |")
                continue
            r = o["out"]
            rep.out(f"| {name} | {limit} s | {r['outcome']} | {r['value']} | {r['route']} | "
                    f"{r['wall']:.2f} s | {o['cpu']:.2f} s |")
    rep.write(args.write)
    print(json.dumps({"rows": len(ROWS), "limit_rows": 3 * len(LIMIT_ROWS)}))


if __name__ == "__main__":
    main()
