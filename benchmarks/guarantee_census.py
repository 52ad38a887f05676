"""Census of guarantees: for each public numeric function, the share of its results over a fixed
panel of expressions that is exact, certified or an estimate, and the time it took; then, per
expression, which calls gave estimates and by which route (``Value.route``).

    python benchmarks/guarantee_census.py                      # print the tables
    python benchmarks/guarantee_census.py --write benchmarks/RESULTS_guarantees.md

The panel mixes every family and operator the library evaluates (closed forms, finite objects,
subsampling, groups, inverses, products through the PLD grid, the Gaussian mixtures,
shuffling); each expression runs in a fresh process (CPU time, ``time.process_time``), each
call has a time limit, and a call that raises counts as an error (its type is listed).
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
import warnings

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import C, EpsDelta, G, Laplace

R = sp.Rational

PANEL = [
    G(1), G(R(1, 10)), Laplace(1), EpsDelta(1, R(1, 100)), ta.Id,
    ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)]),
    EpsDelta(1 / sp.sqrt(10), 0) ** 10, ta.BinomialDP(R(1, 10), 50),
    C(R(1, 3), G(1)), C(R(1, 100), Laplace(1)), ta.Mix(G(2), R(1, 4)),
    ta.Group(EpsDelta(R(1, 4), 0), 4), ta.Group(Laplace(1), 3), G(1).inverse(),
    ta.Max(G(1), EpsDelta(1, R(1, 10))), ta.Symmetrize(ta.Mix(G(1), R(1, 2))),
    ta.Shift(G(1), -R(1, 10)), G(1) @ Laplace(1), C(R(1, 3), G(1)) ** 10,
    ta.PoissonReplace(2, R(1, 10)), ta.NormalPair(0, 1, 1, 2),
    ta.GaussianMixturePair([R(1, 2), R(1, 2)], [0, 0], [0, 2]),
    ta.shuffle(1, 1000, bound="wang"),
    ta.noisy_sgd(R(11, 10), R(256, 60000), 1000, sampling="poisson"),
    ta.Group(G(1), 3), ta.Group(Laplace(1), 2), ta.Group(EpsDelta(1, R(1, 100)), 3),
    ta.Inverse(Laplace(1)), ta.Group(G(1), 3) ** 5,
]

LEVELS = [R(1, 20), R(1, 2), 1 - R(1, 10**6)]
CALLS = {
    "evaluate": lambda f: [ta.evaluate(f, a, dps=20) for a in LEVELS],
    "roc": lambda f: [ta.roc(f, a, dps=20) for a in LEVELS],
    "delta": lambda f: [ta.delta(f, e, dps=20) for e in (R(1, 2), 2)],
    "epsilon": lambda f: [ta.epsilon(f, d, dps=20) for d in (R(1, 10**3), R(1, 10**6))],
}


def run_one(i: int, limit: float) -> dict:
    """The calls of :data:`CALLS` on ``PANEL[i]`` in this process: per call the guarantees, the
    routes of the estimates, the error (if any) and the CPU seconds."""
    f = PANEL[i]
    out = {}
    for name, call in CALLS.items():
        t0 = time.process_time()
        got, routes, err = [], [], None
        try:
            with ta.time_limit(limit), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for v in call(f):
                    got.append(v.guarantee)
                    if v.guarantee == "estimate":
                        routes.append(v.route or "?")
        except Exception as exc:  # noqa: BLE001 - counted and named
            err = type(exc).__name__
        out[name] = {"got": got, "routes": routes, "error": err,
                     "seconds": time.process_time() - t0}
    return out


def census(limit: float) -> list[dict]:
    """One fresh process per expression (no cache shared between them)."""
    res = []
    for i in range(len(PANEL)):
        p = subprocess.run([sys.executable, __file__, "--one", str(i), "--limit", str(limit)],
                           capture_output=True, text=True, timeout=20 * limit + 120)
        try:
            res.append(json.loads(p.stdout.strip().splitlines()[-1]))
        except (IndexError, json.JSONDecodeError):
            res.append({name: {"got": [], "routes": [], "error": "process failed",
                               "seconds": 0.0} for name in CALLS})
        print(f"{i + 1}/{len(PANEL)} {PANEL[i]}", file=sys.stderr, flush=True)
    return res


def table(res: list[dict]) -> str:
    out = ["| function | values | exact | certified | estimate | certain share | errors "
           "(expressions) | CPU seconds |", "|---|---|---|---|---|---|---|---|"]
    for name in CALLS:
        counts: collections.Counter = collections.Counter()
        errors: collections.Counter = collections.Counter()
        sec = 0.0
        for r in res:
            c = r[name]
            counts.update(c["got"])
            if c["error"]:
                errors[c["error"]] += 1
            sec += c["seconds"]
        n = sum(counts.values())
        ex, ce, es = counts["exact"], counts["certified"], counts["estimate"]
        share = f"{(ex + ce) / n:.0%}" if n else "-"
        err = ", ".join(f"{k} {v}" for k, v in errors.items()) or "-"
        out.append(f"| `{name}` | {n} | {ex} | {ce} | {es} | {share} | {err} | {sec:.1f} |")
    return "\n".join(out)


def _cell(c: dict) -> str:
    n = len(c["got"])
    certain = sum(g != "estimate" for g in c["got"])
    text = f"{certain}/{n} certain" if n else "-"
    if c["routes"]:
        text += " (estimate: " + "; ".join(sorted(set(c["routes"]))) + ")"
    if c["error"]:
        text += f", {c['error']}"
    return f"{text}, {c['seconds']:.1f} s"


def breakdown(res: list[dict]) -> str:
    """Per expression and call: the share certain, the routes of the estimates, errors, CPU
    seconds."""
    out = ["| expression | " + " | ".join(CALLS) + " |", "|---" * (len(CALLS) + 1) + "|"]
    for f, r in zip(PANEL, res, strict=True):
        out.append(f"| `{f}` | " + " | ".join(_cell(r[name]) for name in CALLS) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per expression and call")
    ap.add_argument("--write", help="write the table, with the command, to this Markdown file")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the worker of one expression
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(run_one(args.one, args.limit)))
        return
    res = census(args.limit)
    text = table(res) + "\n\n" + breakdown(res)
    print(text)
    if args.write:
        with open(args.write, "w") as fh:
            fh.write("# Guarantees of the public numeric functions\n\n"
                     f"`python benchmarks/guarantee_census.py --limit {args.limit}` on "
                     f"{time.strftime('%Y-%m-%d')}: {len(PANEL)} expressions, levels "
                     f"{', '.join(map(str, LEVELS))}; delta at eps = 1/2 and 2, epsilon at "
                     "delta = 1e-3 and 1e-6; one fresh process per expression, CPU time.\n\n"
                     + text + "\n")


if __name__ == "__main__":
    main()
