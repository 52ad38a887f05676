"""The add/remove hull of the Poisson-subsampled Laplace mechanism at high per-step eps:
``ta.laplace_mechanism(1, 1/mu, sampling="poisson", p=q) ** T`` (AddRemove(Mix(L_mu, q))^T)
over a grid of mu, q and T, the calls eps(1e-5), delta(1) and roc(1/100) at the default
tolerance and at 1e-9, each in a fresh process under ``ta.time_limit``: CPU time (imports
excluded; best of three where a run takes under two seconds), relative width, guarantee,
warnings and route. Beside it dp_accounting's ``PLDAccountant`` (``PoissonSampledDpEvent(q,
LaplaceDpEvent(1/mu))``, noise multiplier b/Delta, composed T times, grid 1e-4, one run) for
time, and its optimistic and pessimistic PLDs at grid 1e-5 (``from_laplace_mechanism(...,
pessimistic_estimate=False / True, sampling_prob=q)``, both neighbouring directions) as the
reference bracket: every certified enclosure of ours is checked to meet [optimistic,
pessimistic] widened by a relative 1e-6 (their float errors). dp_accounting has no roc; roc
rows are checked for nesting only.

    python benchmarks/bench_hull_laplace.py run --root . --out new.jsonl [--limit 60]
    python benchmarks/bench_hull_laplace.py peers --out dpa.jsonl
    python benchmarks/bench_hull_laplace.py table base.jsonl new.jsonl dpa.jsonl

``run`` appends one JSON line a cell (``--cells mu,q,T,call,tol;...`` for a subset); ``table``
prints the before/after markdown with the checks.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MUS = ("2", "5", "10", "100")
QS = ("1/10", "1/100", "1/1000")
TS = (10, 100, 1000, 10000)
CALLS = ("eps", "delta", "roc")
TOLS = ("default", "1e-9")

OURS = r'''
import json, sys, time, warnings
sys.path.insert(0, {root!r})
import sympy as sp
import tradeoff_algebra as ta
import scipy.special, scipy.fft
mu, q, T, call, tol = sp.Rational({mu!r}), sp.Rational({q!r}), {T}, {call!r}, {tol!r}
f = ta.laplace_mechanism(1, 1 / mu, sampling="poisson", p=q) ** T
t0 = time.process_time()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        opt = ta.pld_options() if tol == "default" else ta.pld_options(tol=float(tol))
        with opt, ta.time_limit({limit}):
            if call == "eps":
                v = ta.epsilon(f, sp.Rational(1, 10**5), dps=20)
            elif call == "delta":
                v = ta.delta(f, 1, dps=20)
            else:
                v = ta.roc(f, sp.Rational(1, 100), dps=20)
        out = dict(lo=float(v.lo), hi=float(v.hi), route=v.route, g=v.guarantee)
    except ta.TimeLimitExceeded as e:
        b = e.best
        out = dict(error="time limit", best=None if b is None else [float(b[0]), float(b[1])])
    except Exception as e:
        out = dict(error=type(e).__name__ + ": " + str(e)[:120])
out["cpu"] = time.process_time() - t0
out["warn"] = sorted({{type(w.message).__name__ for w in caught}})
print(json.dumps(out))
'''

PEER = r'''
import json, math, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant as pa
from dp_accounting.pld import privacy_loss_distribution as pld_lib
mu, q, T, call = {mu}, {q}, {T}, {call!r}
out = {{}}
t0 = time.process_time()
try:
    acc = pa.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.LaplaceDpEvent(1 / mu)), T))
    out["value"] = acc.get_epsilon(1e-5) if call == "eps" else acc.get_delta(1.0)
except Exception as e:
    out["error"] = type(e).__name__ + ": " + str(e)[:100]
out["cpu"] = time.process_time() - t0
t0 = time.process_time()
try:
    ends = []
    for pess in (False, True):
        p = pld_lib.from_laplace_mechanism(1 / mu, 1.0, pessimistic_estimate=pess,
                                           value_discretization_interval={grid},
                                           sampling_prob=q).self_compose(T)
        ends.append(p.get_epsilon_for_delta(1e-5) if call == "eps"
                    else p.get_delta_for_epsilon(1.0))
    out["bracket"] = ends
except Exception as e:
    out["bracket_error"] = type(e).__name__ + ": " + str(e)[:100]
out["bracket_cpu"] = time.process_time() - t0
out["bracket_grid"] = {grid}
print(json.dumps(out))
'''


def child(code: str, timeout: float) -> dict:
    """One fresh process; its last line of output as JSON, or {"error": ...}."""
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout:g} s (killed)"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:160]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def cells(spec: str | None, mus=MUS):
    if spec:
        for item in spec.split(";"):
            mu, q, T, call, tol = item.split(",")
            yield mu, q, int(T), call, tol
        return
    yield from itertools.product(mus, QS, TS, CALLS, TOLS)


def _rank(r: dict) -> tuple:
    """(relative width, CPU): the order of the best of three."""
    if "lo" not in r:
        return (2.0, r.get("cpu", 1e9))
    w = (r["hi"] - r["lo"]) / abs(r["hi"]) if r["hi"] else 0.0
    return (round(w, 12), r["cpu"])


def run(args) -> None:
    with open(args.out, "a") as fh:
        for mu, q, T, call, tol in cells(args.cells, args.mus.split(",")):
            code = OURS.format(root=os.path.abspath(args.root), mu=mu, q=q, T=T, call=call,
                               tol=tol, limit=args.limit)
            best = child(code, 3 * args.limit + 60)
            n = 1
            while "cpu" in best and best["cpu"] < 2.0 and n < 3:  # (best of three: the
                # narrowest answer, then the least CPU; a time-based early stop under load is
                # faster and wider, never "best")
                again = child(code, 3 * args.limit + 60)
                n += 1
                if _rank(again) < _rank(best):
                    best = again
            row = dict(mu=mu, q=q, T=T, call=call, tol=tol, runs=n, **best)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(json.dumps(row), flush=True)


def peers(args) -> None:
    with open(args.out, "a") as fh:
        for mu, q, T in itertools.product(MUS, QS, TS):
            for call in ("eps", "delta"):
                if args.cells and f"{mu},{q},{T}" not in args.cells.split(";"):
                    continue
                code = PEER.format(mu=float(mu), q=float(eval(q)), T=T, call=call,
                                   grid=args.grid)
                r = child(code, args.timeout)
                row = dict(mu=mu, q=q, T=T, call=call, **r)
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(json.dumps(row), flush=True)


def _cell_key(r: dict) -> tuple:
    return r["mu"], r["q"], int(r["T"]), r["call"], r.get("tol")


def load_rows(path: str, key=_cell_key) -> dict:
    """The JSON lines of ``path`` (none where it is missing) by ``key(row)``: a cell's (mu, q,
    T, call, tol) by default."""
    out = {}
    if path and os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                r = json.loads(line)
                out[key(r)] = r
    return out


def _fmt(r: dict | None) -> str:
    if r is None:
        return "-"
    if "error" in r:
        b = r.get("best")
        extra = f" best [{b[0]:.10g}, {b[1]:.10g}]" if b else ""
        return f"{r['error']}{extra}, {r['cpu']:.2f} s" if "cpu" in r else r["error"]
    lo, hi = r["lo"], r["hi"]
    w = (hi - lo) / abs(hi) if hi else 0.0
    warn = "W" if r.get("warn") else ""
    return f"[{lo:.10g}, {hi:.10g}] {w:.1e} {r['g'][:4]}{warn}, {r['cpu']:.2f} s"


def _check(r: dict | None, peer: dict | None) -> str:
    """Does the certified enclosure meet dp_accounting's [optimistic, pessimistic] widened by a
    relative 1e-6?"""
    if r is None or "lo" not in r or peer is None or "bracket" not in peer:
        return "-"
    a, b = sorted(peer["bracket"])
    a, b = a - 1e-6 * abs(a), b + 1e-6 * abs(b)
    return "meets" if r["lo"] <= b and r["hi"] >= a else "**MISSES**"


def table(args) -> None:
    base, dpa = load_rows(args.base), {}
    for path in (args.peers or "").split(","):  # (later files override earlier ones)
        dpa.update(load_rows(path))
    new, marks = {}, {}
    files = args.new.split(",")  # (later files override earlier ones; rows of an earlier one
    for i, path in enumerate(files):  # are marked with a dagger)
        for k, v in load_rows(path).items():
            new[k], marks[k] = v, ("" if i == len(files) - 1 else " †")
    print("| mu | q | T | call | tol | before | after | dp_accounting 1e-4 (CPU) | "
          "bracket [opt, pess] | check |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(new, key=lambda k: (float(eval(k[0])), -float(eval(k[1])), k[2],
                                          CALLS.index(k[3]), k[4])):
        mu, q, T, call, tol = key
        p = dpa.get((mu, q, T, call, None))
        ps = "-" if p is None else (f"{p['value']:.10g} ({p['cpu']:.2f} s)" if "value" in p
                                    else p.get("error", "-")[:40])
        br = "-" if p is None or "bracket" not in p else \
            (f"[{p['bracket'][0]:.10g}, {p['bracket'][1]:.10g}] ({p['bracket_cpu']:.1f} s, "
             f"grid {p.get('bracket_grid', 1e-5):g})")
        print(f"| {mu} | {q} | {T} | {call} | {tol} | {_fmt(base.get(key))} | "
              f"{_fmt(new[key])}{marks[key]} | {ps} | {br} | {_check(new[key], p)} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--root", default=ROOT)
    r.add_argument("--out", required=True)
    r.add_argument("--limit", type=float, default=60)
    r.add_argument("--cells")
    r.add_argument("--mus", default=",".join(MUS))
    p = sub.add_parser("peers")
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--cells")
    p.add_argument("--grid", type=float, default=1e-5, help="the bracket's grid")
    t = sub.add_parser("table")
    t.add_argument("base")
    t.add_argument("new", help="one file, or several separated by commas")
    t.add_argument("peers", nargs="?")
    a = ap.parse_args()
    {"run": run, "peers": peers, "table": table}[a.cmd](a)


if __name__ == "__main__":
    main()
