"""Fuzz of "a tighter tolerance never gives a wider result" (issue 29's contract).

Random expressions (products, maxima and mixtures of the families of the contract sweep,
``tests/test_contract_sweep.py``) and one question each (eps at delta, delta at eps, the power
roc at alpha), asked at the tolerances 1e-3, 1e-6 and 1e-9 (``ta.pld_options(tol=...)``) under
a time limit, in that order, in one fresh process per draw (the order of the sweep, where the
defect of the maximum showed). Reported: a pair of tolerances where the tighter one is wider
beyond the rounding of the ends at ``dps`` digits (the sweep's slack), certified enclosures
that are disjoint, and errors other than the time limit.

    python benchmarks/fuzz_tolerance_monotone.py --budget 900 --seed 1 --out /tmp/mono.jsonl
    python benchmarks/fuzz_tolerance_monotone.py --report /tmp/mono.jsonl  # markdown

``--mode curves`` draws instead the products whose whole curves and single levels take the
curve routes (the hull's Laplace inversion tails of DP-SGD, Gaussian times Laplace products,
the lattice curves of Laplace, randomized response, discrete Gaussian and discrete Laplace
powers, maxima and mixtures of them) and asks ``ta.roc`` or ``ta.evaluate`` at one level or
``ta.curve(..., bounds=True)`` at a grid of levels (compared level by level), at the tolerances
5e-4 (the default), 1e-6 and 1e-9. Each finding prints a reproducer.

Each child is killed after ``3 limit + 60`` s; CPU time (process_time) and peak memory
(ru_maxrss) of each child are recorded. The load of the machine is printed with the results.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOLS = (1e-3, 1e-6, 1e-9)

#: The factors: the families of the contract sweep.
ATOMS = [
    "G(1)", "G(R(1, 2))", "Laplace(1)", "Laplace(R(1, 2))", "EpsDelta(1, R(1, 10**5))",
    "randomized_response(1, 3)", "randomized_response(R(1, 2), 2)", "DiscreteGaussian(1, 2)",
    "DiscreteLaplace(1, 2)", "Skellam(1, 5)", "PoissonReplace(1, R(1, 10))", "BinomialDP(1, 10)",
    "Discrete([R(1, 2), R(1, 4), R(1, 4)], [R(1, 4), R(1, 4), R(1, 2)])", "C(R(1, 10), G(1))",
    "Group(Laplace(1), 3)", "Group(G(1), 2)", "shuffle(1, 100)",
    "noisy_sgd(R(11, 10), R(1, 100), 50)",
    "laplace_mechanism(1, 1, sampling='poisson', p=R(1, 20))",
]
QUESTIONS = ([("epsilon", d) for d in ("1e-3", "1e-6", "1e-10")]
             + [("delta", e) for e in ("0", "R(1, 2)", "1", "5")]
             + [("roc", a) for a in ("'1e-6'", "R(1, 100)", "R(1, 2)")])


#: The products of ``--mode curves`` (templates: {T} a number of steps, {k} a small power).
CURVE_ATOMS = [
    "noisy_sgd(R(11, 10), R(1, 100), {T})", "noisy_sgd(R(1, 1), R(1, 50), {T})",
    "noisy_sgd(R(2, 1), R(1, 20), {T})", "G(1) @ Laplace(1)", "G(R(1, 2)) @ Laplace(1) ** {k}",
    "Laplace(R(1, 10)) ** {T}", "Laplace(1) ** {k}", "randomized_response(1, 3) ** {T}",
    "DiscreteGaussian(1, 2) ** {k}", "DiscreteLaplace(1, 2) ** {k} @ DiscreteGaussian(1, 3)",
    "C(R(1, 10), G(1)) ** {k}", "laplace_mechanism(1, 1, sampling='poisson', p=R(1, 20)) ** {k}",
]
CURVE_QUESTIONS = ([("roc", a) for a in ("'1e-6'", "'1e-3'", "R(1, 100)", "R(1, 3)", "R(9, 10)")]
                   + [("evaluate", a) for a in ("'1e-6'", "'1e-3'", "R(1, 100)", "R(1, 2)")]
                   + [("curve", "np.concatenate([[0, 1e-6, 1e-4], np.linspace(0, 1, 21)])")] * 3)
CURVE_TOLS = (5e-4, 1e-6, 1e-9)


def draw_curve(rng: random.Random) -> str:
    """One product of ``CURVE_ATOMS``, alone (mostly), a maximum of two or a mixture."""
    def atom():
        return rng.choice(CURVE_ATOMS).format(T=rng.choice([10, 50, 100, 300, 1000]),
                                              k=rng.choice([2, 3, 5, 10]))

    kind = rng.choice(["one", "one", "one", "one", "max", "mix"])
    if kind == "one":
        return atom()
    if kind == "max":
        return f"Max({atom()}, {atom()})"
    return f"Mix({atom()}, R(1, {rng.choice([2, 10])}))"


def draw(rng: random.Random) -> str:
    """One expression: a product of one to three factors (small powers), a maximum of two, or
    a mixture Mix(g, p)."""
    kind = rng.choice(["product", "product", "max", "mix"])

    def factor():
        a = rng.choice(ATOMS)
        return a if rng.random() < 0.7 else f"({a}) ** {rng.choice([2, 3, 5])}"

    if kind == "product":
        return " @ ".join(factor() for _ in range(rng.choice([1, 2, 2, 3])))
    if kind == "max":
        return f"Max({factor()}, {' @ '.join(factor() for _ in range(rng.choice([1, 2])))})"
    return f"Mix({factor()}, R(1, {rng.choice([2, 10])}))"


CHILD = r"""
import json, resource, sys, time, warnings
import sympy as sp
import numpy as np
import tradeoff_algebra as ta
from tradeoff_algebra import *  # noqa: F401,F403 (the families by name)
from tradeoff_algebra.mechanisms import laplace_mechanism, noisy_sgd, randomized_response, shuffle
R = sp.Rational
expr, question, arg, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
tols = [float(t) for t in sys.argv[5].split(",")]
f = eval(expr)
x = eval(arg)
out = []
for tol in tols:
    rec = {"tol": tol}
    t0 = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with ta.time_limit(limit), ta.pld_options(tol=tol):
                if question == "curve":
                    lo, hi = ta.curve(f, x, bounds=True)
                    rec.update(outcome="answered", los=[float(v) for v in lo],
                               his=[float(v) for v in hi])
                else:
                    v = getattr(ta, question)(f, x)
                    rec.update(outcome="answered", lo=str(v.lo), hi=str(v.hi),
                               width=str(v.width), guarantee=v.guarantee, dps=v.dps,
                               route=v.route[:120])
        except ta.TimeLimitExceeded as e:
            rec.update(outcome="limit", best=None if e.best is None else [str(b) for b in e.best])
        except Exception as e:
            rec.update(outcome=type(e).__name__, msg=str(e)[:200])
    rec["warned"] = any(issubclass(w.category, ta.ToleranceWarning) for w in caught)
    rec["cpu"] = time.process_time() - t0
    out.append(rec)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("@@" + json.dumps({"results": out, "rss_kb": rss}))
"""


def run(expr: str, question: str, arg: str, limit: float, tols=TOLS) -> dict:
    cmd = [sys.executable, "-c", CHILD, expr, question, arg, str(limit),
           ",".join(str(t) for t in tols)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * limit + 60, env=env,
                           cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return {"killed": True, "wall": time.monotonic() - t0}
    line = next((x for x in p.stdout.splitlines() if x.startswith("@@")), None)
    if line is None:
        return {"crashed": p.stderr[-400:], "wall": time.monotonic() - t0}
    rec = json.loads(line[2:])
    rec["wall"] = time.monotonic() - t0
    return rec


def findings(rec: dict) -> list[str]:
    """What breaks the contract in one draw's results."""
    import mpmath as M

    M.mp.dps = 60
    out = []
    if rec.get("killed"):
        return ["killed by the external timeout"]
    if rec.get("crashed"):
        return ["crashed: " + rec["crashed"][-200:]]
    res = rec["results"]
    done = [r for r in res if r["outcome"] == "answered"]
    for r in res:
        if r["outcome"] not in ("answered", "limit"):
            out.append(f"tol {r['tol']:g}: {r['outcome']}: {r.get('msg', '')[:120]}")
    if done and "los" in done[0]:
        return out + _curve_findings(done)
    for a, b in zip(done, done[1:], strict=False):
        wa, wb = M.mpf(a["width"]), M.mpf(b["width"])
        top = max(abs(M.mpf(a["hi"])), abs(M.mpf(b["hi"])))
        slack = 4 * M.mpf(10) ** (1 - a["dps"]) * top if M.isfinite(top) else 0
        if wb > wa + slack:
            out.append(f"tol {b['tol']:g} wider than tol {a['tol']:g}: [{b['lo']}, {b['hi']}] "
                       f"vs [{a['lo']}, {a['hi']}]")
    sure = [r for r in done if r["guarantee"] in ("certified", "exact")]
    for i, a in enumerate(sure):
        for b in sure[i + 1:]:
            if max(M.mpf(a["lo"]), M.mpf(b["lo"])) > min(M.mpf(a["hi"]), M.mpf(b["hi"])):
                # (a point's ends are its digits: disjoint beyond one unit of the last digit)
                unit = M.mpf(10) ** (1 - min(a["dps"], b["dps"])) * max(
                    abs(M.mpf(a["hi"])), abs(M.mpf(b["hi"])))
                if max(M.mpf(a["lo"]), M.mpf(b["lo"])) > min(M.mpf(a["hi"]),
                                                             M.mpf(b["hi"])) + unit:
                    out.append(f"certified enclosures disjoint at tol {a['tol']:g} and "
                               f"{b['tol']:g}: [{a['lo']}, {a['hi']}], [{b['lo']}, {b['hi']}]")
    return out


def _curve_findings(done: list[dict]) -> list[str]:
    """A whole curve's bounds (floats, level by level): a tighter tolerance wider at a level
    beyond a few units of the last place, or two bounds that do not meet."""
    out = []
    for a, b in zip(done, done[1:], strict=False):
        for i, (alo, ahi, blo, bhi) in enumerate(zip(a["los"], a["his"], b["los"], b["his"],
                                                      strict=True)):
            slack = 4e-16 * max(abs(ahi), abs(bhi), 1e-300)
            if bhi - blo > ahi - alo + slack:
                out.append(f"level {i}: tol {b['tol']:g} wider than tol {a['tol']:g}: "
                           f"[{blo!r}, {bhi!r}] vs [{alo!r}, {ahi!r}]")
                break
    for i, a in enumerate(done):
        for b in done[i + 1:]:
            for k, (alo, ahi, blo, bhi) in enumerate(zip(a["los"], a["his"], b["los"], b["his"],
                                                         strict=True)):
                if max(alo, blo) > min(ahi, bhi) + 4e-16 * max(abs(ahi), abs(bhi)):
                    out.append(f"level {k}: bounds disjoint at tol {a['tol']:g} and "
                               f"{b['tol']:g}: [{alo!r}, {ahi!r}], [{blo!r}, {bhi!r}]")
                    break
    return out


def reproducer(rec: dict) -> str:
    """Python lines that ask the draw's question again at its tolerances."""
    tols = ", ".join(f"{r['tol']:g}" for r in rec.get("results", [])) or "5e-4, 1e-6, 1e-9"
    ask = (f"ta.curve(f, {rec['arg']}, bounds=True)" if rec["question"] == "curve"
           else f"ta.{rec['question']}(f, {rec['arg']})")
    return ("import numpy as np, sympy as sp, tradeoff_algebra as ta; "
            "from tradeoff_algebra import *; from tradeoff_algebra.mechanisms import *; "
            f"R = sp.Rational; f = {rec['expr']}\n"
            f"for tol in ({tols},):\n    with ta.pld_options(tol=tol): print(tol, {ask})")


def fuzz(budget: float, seed: int, limit: float, out_path: str | None,
         mode: str = "expressions") -> list[dict]:
    rng = random.Random(seed)
    start = time.monotonic()
    rows = []
    fh = open(out_path, "w") if out_path else None
    while time.monotonic() - start < budget:
        if mode == "curves":
            expr = draw_curve(rng)
            question, arg = rng.choice(CURVE_QUESTIONS)
            rec = run(expr, question, arg, limit, CURVE_TOLS)
        else:
            expr = draw(rng)
            question, arg = rng.choice(QUESTIONS)
            rec = run(expr, question, arg, limit)
        rec.update(expr=expr, question=question, arg=arg, findings=findings(rec))
        rows.append(rec)
        flag = "FLAG " if rec["findings"] else ""
        outs = ",".join(r["outcome"][:6] for r in rec.get("results", []))
        print(f"{flag}{question}({expr}, {arg}) [{outs}] {rec['wall']:.1f}s "
              f"{'; '.join(rec['findings'])}", flush=True)
        if rec["findings"]:
            print("  reproducer:\n" + reproducer(rec), flush=True)
        if fh:
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
    if fh:
        fh.close()
    return rows


def report(rows: list[dict]) -> str:
    load = os.getloadavg()
    n = len(rows)
    flagged = [r for r in rows if r["findings"]]
    calls = [x for r in rows for x in r.get("results", [])]
    tols = sorted({x["tol"] for x in calls}, reverse=True) or list(TOLS)
    lines = [
        "# A tighter tolerance is never wider: fuzz",
        "",
        f"{n} draws ({len(calls)} calls at tol {', '.join(f'{t:g}' for t in tols)}), "
        f"{sum(x['outcome'] == 'answered' for x in calls)} answered, "
        f"{sum(x['outcome'] == 'limit' for x in calls)} stopped by the time limit; "
        f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (2 cores, shared).",
        "",
        f"Flagged draws: {len(flagged)}.",
        "",
    ]
    if flagged:
        lines += ["| question | finding |", "|---|---|"]
        for r in flagged:
            for finding in r["findings"]:
                lines.append(f"| `{r['question']}({r['expr']}, {r['arg']})` | {finding} |")
        lines.append("")
        lines.append("Reproducers:")
        lines.append("")
        for r in flagged:
            lines += ["```python", reproducer(r), "```", ""]
    cpu = sorted(x["cpu"] for x in calls)
    rss = sorted(r.get("rss_kb", 0) for r in rows)
    if cpu:
        lines.append(f"CPU per call: median {cpu[len(cpu) // 2]:.2f} s, max {cpu[-1]:.1f} s; "
                     f"peak memory per draw: median {rss[len(rss) // 2] / 1024:.0f} MiB, "
                     f"max {rss[-1] / 1024:.0f} MiB.")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=900, help="seconds of fuzzing (wall)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=float, default=10, help="time limit of each call (s)")
    ap.add_argument("--out", help="JSON lines of every draw")
    ap.add_argument("--report", help="a JSON lines file: print its markdown report")
    ap.add_argument("--md", help="write the markdown report there")
    ap.add_argument("--mode", choices=["expressions", "curves"], default="expressions",
                    help="expressions: eps, delta, roc of random expressions; curves: roc, "
                         "evaluate and whole curves of products on the curve routes")
    a = ap.parse_args()
    if a.report:
        rows = [json.loads(x) for x in open(a.report)]
        for r in rows:
            r["findings"] = findings(r)
    else:
        rows = fuzz(a.budget, a.seed, a.limit, a.out, a.mode)
    text = report(rows)
    print(text)
    if a.md:
        Path(a.md).write_text(text)


if __name__ == "__main__":
    main()
