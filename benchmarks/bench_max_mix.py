"""Maxima and mixtures of heterogeneous mechanisms: eps(1e-3), eps(1e-6) and delta(1) of
Max(a, b) and of Mix(Max(a, b), 1/5) for pairs a, b drawn from a list of mechanisms (the
Gaussian, Laplace, discrete Gaussian and discrete Laplace mechanisms, f_{eps,delta},
randomized response, one Poisson-subsampled Gaussian step under replace-one, an asymmetric
finite pair, a subsampled Gaussian and two small products), each at tol 5e-4 and 1e-9 under
``time_limit(20)``.

One fresh process per expression and tolerance (CPU time of each call without the imports, peak
resident memory of the process above its state after the imports); the three questions of a row
run one after the other in that process, so the later ones may reuse what the earlier cached.
A call that stops at the time limit, raises, or warns (ToleranceWarning: the result misses the
tolerance) is flagged. No peer answers a maximum of two mechanisms (dp_accounting, the PRV
accountant and riskcal compose; none takes the pointwise maximum of trade-off functions), so
the table is ours alone; the results are checked by the tests (tests/test_max_sweep.py).

    python benchmarks/bench_max_mix.py [--write benchmarks/RESULTS_max_mix.md] [--only SUBSTR]
"""

from __future__ import annotations

import argparse
import itertools
import os

from _report import CHILD_POST, CHILD_PRE, Report, child_json, run_line

#: (short name, expression in the child's namespace: ta, R)
MECHANISMS = [
    ("G1", "ta.G(1)"),
    ("L1", "ta.Laplace(1)"),
    ("DG", "ta.DiscreteGaussian(1, 2)"),
    ("DL", "ta.DiscreteLaplace(1, 1)"),
    ("ED", "ta.EpsDelta(1, R(1, 1000))"),
    ("RR", "ta.randomized_response(1, 4)"),
    ("PR", "ta.PoissonReplace(1, R(1, 10))"),
    ("FP", "ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 5), R(1, 5), R(3, 5)])"),
    ("SG", "ta.Mix(ta.G(2), R(1, 5))"),
    ("GxL", "ta.G(R(1, 2)) @ ta.Laplace(R(1, 2))"),
    ("PR^2", "ta.PoissonReplace(1, R(1, 10)) ** 2"),
]

QUESTIONS = [("eps(1e-3)", "epsilon", "R(1, 1000)"), ("eps(1e-6)", "epsilon", "R(1, 10**6)"),
             ("delta(1)", "delta", "1")]
TOLS = ("5e-4", "1e-9")
LIMIT = 20

CHILD = CHILD_PRE + """
import sympy as sp
import mpmath
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
out = []
for name, question, arg in {questions!r}:
    s = time.process_time()
    rec = dict(q=name)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            with ta.pld_options(tol={tol}), ta.time_limit({limit}):
                v = getattr(ta, question)(f, eval(arg))
            rec.update(lo=mpmath.nstr(v.lo, 12), hi=mpmath.nstr(v.hi, 12),
                       g=v.guarantee, rel=float((v.hi - v.lo) / v.hi) if v.hi else 0.0)
        except Exception as exc:
            rec.update(error=type(exc).__name__, msg=str(exc)[:100])
    rec["warn"] = sorted({{type(w.message).__name__ for w in ws
                          if issubclass(w.category, ta.ToleranceWarning)}})
    rec["cpu"] = time.process_time() - s
    out.append(rec)
""" + CHILD_POST


def expressions():
    """(label, expression): Max(a, b) and Mix(Max(a, b), 1/5) for every unordered pair."""
    for (na, ea), (nb, eb) in itertools.combinations(MECHANISMS, 2):
        yield f"Max({na}, {nb})", f"ta.Max({ea}, {eb})"
        yield f"Mix(Max({na}, {nb}), 1/5)", f"ta.Mix(ta.Max({ea}, {eb}), R(1, 5))"


def _cell(rec: dict) -> str:
    if "error" in rec:
        return f"**{rec['error']}** ({rec['cpu']:.1f} s)"
    flag = " **TW**" if rec["warn"] else ""
    slow = "**" if rec["cpu"] > 5 else ""
    val = rec["lo"] if rec["lo"] == rec["hi"] else f"[{rec['lo']}, {rec['hi']}]"
    return f"{slow}{rec['cpu']:.2f} s{slow} {val} {rec['g'][:4]}{flag}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    rep = Report()
    rep.out("# Maxima and mixtures of heterogeneous mechanisms")
    rep.out()
    rep.out(run_line("nice python benchmarks/bench_max_mix.py", ("python-flint", "mpmath")))
    rep.out()
    rep.out("Mechanisms: " + "; ".join(f"{n} = `{e}`" for n, e in MECHANISMS) + ".")
    rep.out()
    rep.out(f"Each cell: CPU seconds of the call (bold above 5 s), the value (a point, or the "
            f"enclosure [lo, hi]), its guarantee (cert = certified, esti = estimate, exac = "
            f"exact); TW = ended with a ToleranceWarning; an error names its exception "
            f"(TimeLimitExceeded at `time_limit({LIMIT})`). MiB: peak resident memory of the "
            "process above its state after the imports.")
    rep.out()
    rep.out("| expression | tol | " + " | ".join(q for q, _, _ in QUESTIONS) + " | MiB |")
    rep.out("|---|---|" + "---|" * len(QUESTIONS) + "---|")
    flagged = []
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for label, expr in expressions():
        if args.only and args.only not in label:
            continue
        for tol in TOLS:
            code = CHILD.format(expr=expr, tol=tol, limit=LIMIT, questions=QUESTIONS)
            res = child_json(code, timeout=8 * LIMIT, cwd=here)
            if "error" in res:
                rep.out(f"| {label} | {tol} | process failed: {res['error']} |" +
                        " |" * (len(QUESTIONS) - 1) + " |")
                flagged.append((label, tol, "process", res["error"]))
                continue
            cells = [_cell(r) for r in res["out"]]
            rep.out(f"| {label} | {tol} | " + " | ".join(cells) + f" | {res['mib']:.0f} |")
            for r in res["out"]:
                if "error" in r or r["warn"] or r["cpu"] > 5:
                    flagged.append((label, tol, r["q"], _cell(r)))
    rep.out()
    rep.out(f"Flagged calls (above 5 s, a ToleranceWarning or an error): {len(flagged)}")
    rep.out()
    for label, tol, q, cell in flagged:
        rep.out(f"* {label}, tol {tol}, {q}: {cell}")
    rep.write(args.write)


if __name__ == "__main__":
    main()
