"""Census of guarantees: for each public numeric function, the share of its results over a fixed
panel of expressions that is exact, certified or an estimate, and the time it took.

    python benchmarks/guarantee_census.py                      # print the table
    python benchmarks/guarantee_census.py --write benchmarks/RESULTS_guarantees.md

The panel mixes every family and operator the library evaluates (closed forms, finite objects,
subsampling, groups, products through the PLD grid, the Gaussian mixtures, shuffling); each
call has a time limit, and a call that raises counts as an error (its type is listed).
"""

from __future__ import annotations

import argparse
import collections
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
]

LEVELS = [R(1, 20), R(1, 2), 1 - R(1, 10**6)]
CALLS = {
    "evaluate": lambda f: [ta.evaluate(f, a, dps=20) for a in LEVELS],
    "roc": lambda f: [ta.roc(f, a, dps=20) for a in LEVELS],
    "delta": lambda f: [ta.delta(f, e, dps=20) for e in (R(1, 2), 2)],
    "epsilon": lambda f: [ta.epsilon(f, d, dps=20) for d in (R(1, 10**3), R(1, 10**6))],
}


def census(limit: float) -> list[tuple]:
    rows = []
    for name, call in CALLS.items():
        counts: collections.Counter = collections.Counter()
        errors: collections.Counter = collections.Counter()
        t0 = time.perf_counter()
        for f in PANEL:
            try:
                with ta.time_limit(limit), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for v in call(f):
                        counts[v.guarantee] += 1
            except Exception as exc:  # noqa: BLE001 - counted and named
                errors[type(exc).__name__] += 1
        n = sum(counts.values())
        rows.append((name, n, counts["exact"], counts["certified"], counts["estimate"],
                     ", ".join(f"{k} {v}" for k, v in errors.items()) or "-",
                     time.perf_counter() - t0))
    return rows


def table(rows) -> str:
    out = ["| function | values | exact | certified | estimate | certain share | errors "
           "(expressions) | seconds |", "|---|---|---|---|---|---|---|---|"]
    for name, n, ex, ce, es, err, sec in rows:
        share = f"{(ex + ce) / n:.0%}" if n else "-"
        out.append(f"| `{name}` | {n} | {ex} | {ce} | {es} | {share} | {err} | {sec:.1f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per expression and call")
    ap.add_argument("--write", help="write the table, with the command, to this Markdown file")
    args = ap.parse_args()
    text = table(census(args.limit))
    print(text)
    if args.write:
        with open(args.write, "w") as fh:
            fh.write("# Guarantees of the public numeric functions\n\n"
                     f"`python benchmarks/guarantee_census.py --limit {args.limit}` on "
                     f"{time.strftime('%Y-%m-%d')}: {len(PANEL)} expressions, levels "
                     f"{', '.join(map(str, LEVELS))}; delta at eps = 1/2 and 2, epsilon at "
                     "delta = 1e-3 and 1e-6.\n\n" + text + "\n")


if __name__ == "__main__":
    main()
