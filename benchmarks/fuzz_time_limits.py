"""Fuzz of the time-limit contract: random products of every family, each question under
small limits, each call in a fresh process with a hard external timeout.

The contract (``numeric/budget.py``, ``numeric/progress.py``): a numeric call under
``ta.time_limit(s)`` returns, or raises ``ta.TimeLimitExceeded``, within a small bounded
overrun of ``s``; a phase that cannot finish is refused at once. This script draws products of
1 to 3 factors (``G``, ``Laplace``, ``EpsDelta``, ``Discrete``, ``randomized_response``,
``BinomialDP``, ``DiscreteGaussian``, ``DiscreteLaplace``, ``Skellam``, ``PoissonReplace``,
``ShuffleDP``, ``exponential_mechanism``, ``noisy_sgd``, the Poisson-subsampled Laplace
mechanism), each factor raised to a power up to 10^6, and asks ``epsilon(f, 1e-6)``,
``delta(f, 1)``, ``roc(f, 1/10)``, ``evaluate(f, 1/10)`` and ``curve(f, [1/100, 1/10, 1/2])``
under each limit (default 0.05, 0.5 and 2 s). Each call runs in a fresh process (nothing
cached; the package imported before the clock starts), killed after ``max(20, 10 limit)``
seconds. The overrun is the wall time past the limit; a call is reported when it exceeds
``max(0.5 s, 50 % of the limit)`` or was killed.

    python benchmarks/fuzz_time_limits.py --draws 14 --seed 1 --out /tmp/fuzz.jsonl
    python benchmarks/fuzz_time_limits.py --replay /tmp/fuzz.jsonl --only-flagged \
        --root /tmp/before   # the flagged calls again, on another checkout (its package root)
    python benchmarks/fuzz_time_limits.py --targeted   # the calls behind the fixes
    python benchmarks/fuzz_time_limits.py --report /tmp/fuzz.jsonl   # a markdown table

Wall time, not CPU time: the contract is about wall time. The machine's load is printed with
the results (a loaded machine stretches every call; the threshold is generous for that).
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

QUESTIONS = {
    "eps": "ta.epsilon(f, 1e-6)",
    "delta": "ta.delta(f, 1)",
    "roc": "ta.roc(f, sp.Rational(1, 10))",
    "evaluate": "ta.evaluate(f, sp.Rational(1, 10))",
    "curve": "ta.curve(f, [sp.Rational(1, 100), sp.Rational(1, 10), sp.Rational(1, 2)])",
}

CHILD = r"""
import json, sys, time
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra import *  # noqa: F401,F403 (the families by name)
R = sp.Rational
log = sp.log
expr, question, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
f = eval(expr)
import warnings
warnings.simplefilter("ignore")
t0 = time.monotonic()
try:
    with ta.time_limit(limit):
        r = eval(question)
    outcome, msg = "answered", repr(r)[:120]
except ta.TimeLimitExceeded as e:
    outcome, msg = "limit", str(e)[:200]
except Exception as e:
    outcome, msg = type(e).__name__, str(e)[:200]
wall = time.monotonic() - t0
print("@@" + json.dumps({"outcome": outcome, "wall": wall, "msg": msg,
                        "package": ta.__file__}))
"""


#: The calls behind the fixes (exact finite tables built without a look at the limit), asked
#: with ``--targeted`` under the limits given (default 0.05, 0.5, 2 s).
TARGETED = [
    ("Tensor(BinomialDP(R(1, 10), 10**5), (randomized_response(log(3), 5)) ** 10**5)", "eps"),
    ("Tensor(BinomialDP(R(1, 10), 10**5), (randomized_response(log(3), 2)) ** 10**5)", "eps"),
    ("BinomialDP(log(2), 20000)", "delta"),
    ("BinomialDP(log(2), 20000)", "evaluate"),
    ("BinomialDP(log(3), 4000)", "eps"),
    ("Tensor(BinomialDP(log(3), 10**5), G(1))", "roc"),
]


def _factor(rng: random.Random) -> str:
    """One factor: a family with parameters drawn from small sets, as source text."""
    kind = rng.choice(["G", "Laplace", "EpsDelta", "Discrete", "rr", "BinomialDP", "DG", "DL",
                       "Skellam", "PoissonReplace", "ShuffleDP", "expmech", "sgd", "sublap"])
    if kind == "G":
        return f"G({rng.choice(['R(1, 2)', '1', '3'])})"
    if kind == "Laplace":
        return f"Laplace({rng.choice(['R(1, 10)', '1', '2'])})"
    if kind == "EpsDelta":
        return (f"EpsDelta({rng.choice(['R(1, 2)', '1', 'log(2)'])}, "
                f"{rng.choice(['0', 'R(1, 1000)', 'R(1, 10**5)'])})")
    if kind == "Discrete":
        k = rng.choice([2, 3, 4])
        p = [rng.randint(1, 9) for _ in range(k)]
        q = [rng.randint(1, 9) for _ in range(k)]
        sp_, sq = sum(p), sum(q)
        return (f"Discrete([{', '.join(f'R({x}, {sp_})' for x in p)}], "
                f"[{', '.join(f'R({x}, {sq})' for x in q)}])")
    if kind == "rr":
        return f"randomized_response({rng.choice(['log(3)', 'R(1, 2)', '1'])}, " \
               f"{rng.choice([2, 3, 5])})"
    if kind == "BinomialDP":
        return f"BinomialDP({rng.choice(['R(1, 10)', 'log(3)', '1'])}, " \
               f"{rng.choice(['10', '1000', '10**5'])})"
    if kind == "DG":
        return f"DiscreteGaussian(1, {rng.choice(['1', 'R(5, 2)', '10'])})"
    if kind == "DL":
        return f"DiscreteLaplace(1, {rng.choice(['1', '2', 'R(1, 2)'])})"
    if kind == "Skellam":
        return f"Skellam(1, {rng.choice(['2', '10', 'R(1, 2)'])})"
    if kind == "PoissonReplace":
        return f"PoissonReplace({rng.choice(['1', '4'])}, {rng.choice(['R(1, 10)', 'R(1, 2)'])})"
    if kind == "ShuffleDP":
        return f"ShuffleDP({rng.choice(['1', '2'])}, {rng.choice(['100', '10**4'])})"
    if kind == "expmech":
        return rng.choice(["exponential_mechanism(1, [0, 1, 2], [1, 0, 2])",
                           "exponential_mechanism(R(1, 2))"])
    if kind == "sgd":
        return f"noisy_sgd({rng.choice(['R(11, 10)', '2'])}, " \
               f"{rng.choice(['R(1, 100)', 'R(1, 10)'])}, {rng.choice(['10', '1000', '10**5'])})"
    return (f"laplace_mechanism(1, {rng.choice(['1', '2'])}, sampling='poisson', "
            f"p={rng.choice(['R(1, 100)', 'R(1, 10)'])})")


def draw(rng: random.Random) -> str:
    """A product of 1 to 3 factors, each raised to a power up to 10^6."""
    parts = []
    for _ in range(rng.choice([1, 2, 2, 3])):
        g = _factor(rng)
        m = rng.choice([1, 1, 10, 100, 1000, 10**4, 10**5, 10**6])
        parts.append(g if m == 1 else f"({g}) ** {m}")
    return parts[0] if len(parts) == 1 else f"Tensor({', '.join(parts)})"


def run_one(expr: str, question: str, limit: float, root: Path) -> dict:
    """One call in a fresh process; the overrun is its wall time past the limit."""
    hard = max(20.0, 10 * limit)
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-c", CHILD, expr, QUESTIONS[question], str(limit)]
    try:
        # (cwd: the checkout itself, since ``python -c`` puts the working directory first on
        # sys.path, before PYTHONPATH)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=hard, env=env,
                             cwd=str(root))
        line = [x for x in out.stdout.splitlines() if x.startswith("@@")]
        rec = json.loads(line[-1][2:]) if line else {
            "outcome": "crash", "wall": float("nan"), "msg": out.stderr[-300:]}
    except subprocess.TimeoutExpired:
        rec = {"outcome": "killed", "wall": hard, "msg": f"killed after {hard:g} s"}
    rec.update(expr=expr, question=question, limit=limit)
    rec["overrun"] = rec["wall"] - limit
    rec["flagged"] = rec["outcome"] == "killed" or rec["overrun"] > max(0.5, 0.5 * limit)
    return rec


def report(paths: list[str]) -> str:
    """A markdown table of sweeps (JSON lines files): per file and limit, the calls, how they
    ended, the largest and the median overrun of the calls that stopped or answered late, and
    the calls past max(0.5 s, 50 %) of the limit."""
    rows = ["| sweep | limit | calls | answered | stopped at the limit | killed | other errors "
            "| median wall - limit | largest wall - limit | past max(0.5 s, 50 %) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for path in paths:
        recs = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
        for limit in sorted({r["limit"] for r in recs}):
            rs = [r for r in recs if r["limit"] == limit]
            over = sorted(r["overrun"] for r in rs)
            count = {k: sum(r["outcome"] == k for r in rs) for k in ("answered", "limit",
                                                                        "killed")}
            other = len(rs) - sum(count.values())
            rows.append(f"| {Path(path).stem} | {limit:g} s | {len(rs)} | {count['answered']} "
                        f"| {count['limit']} | {count['killed']} | {other} "
                        f"| {over[len(over) // 2]:.2f} s | {over[-1]:.2f} s "
                        f"| {sum(r['flagged'] for r in rs)} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=14, help="random products (default 14)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limits", default="0.05,0.5,2", help="seconds, comma separated")
    ap.add_argument("--questions", default=",".join(QUESTIONS))
    ap.add_argument("--out", default="/tmp/fuzz_time_limits.jsonl", help="JSON lines")
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose package runs")
    ap.add_argument("--replay", help="a previous --out: rerun its calls instead of drawing")
    ap.add_argument("--only-flagged", action="store_true", help="with --replay")
    ap.add_argument("--targeted", action="store_true", help="the calls of TARGETED instead")
    ap.add_argument("--report", nargs="+", help="print the markdown table of these sweeps")
    args = ap.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0
    limits = [float(x) for x in args.limits.split(",")]
    if args.replay:
        old = [json.loads(x) for x in Path(args.replay).read_text().splitlines() if x.strip()]
        calls = [(r["expr"], r["question"], r["limit"]) for r in old
                 if r["flagged"] or not args.only_flagged]
    elif args.targeted:
        calls = [(e, q, s) for e, q in TARGETED for s in limits]
    else:
        rng = random.Random(args.seed)
        exprs = [draw(rng) for _ in range(args.draws)]
        calls = [(e, q, s) for e in exprs for q in args.questions.split(",") for s in limits]
    print(f"{len(calls)} calls, load {os.getloadavg()[0]:.2f}, root {args.root}", flush=True)
    t0 = time.monotonic()
    flagged = []
    with open(args.out, "w") as fh:
        for i, (e, q, s) in enumerate(calls):
            rec = run_one(e, q, s, Path(args.root))
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            mark = "  OVERRUN" if rec["flagged"] else ""
            print(f"[{i + 1}/{len(calls)}] {q:8s} {s:5g} s  {rec['outcome']:18s} "
                  f"{rec['wall']:7.2f} s  {e}{mark}", flush=True)
            if rec["flagged"]:
                flagged.append(rec)
    print(f"\n{len(calls)} calls in {time.monotonic() - t0:.0f} s, load "
          f"{os.getloadavg()[0]:.2f}; {len(flagged)} past max(0.5 s, 50 %) of the limit:")
    for r in flagged:
        print(f"  {r['question']} {r['limit']:g} s: {r['outcome']} after {r['wall']:.2f} s "
              f"(overrun {r['overrun']:.2f} s): {r['expr']}")
    other = [r for r in map(json.loads, Path(args.out).read_text().splitlines())
             if r["outcome"] not in ("answered", "limit", "killed")]
    print(f"{len(other)} ended otherwise (an error other than the time limit):")
    for r in other:
        print(f"  {r['question']} {r['limit']:g} s: {r['outcome']}: {r['msg'][:160]} "
              f"({r['expr']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
