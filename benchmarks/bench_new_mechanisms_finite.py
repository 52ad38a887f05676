"""k-ary randomized response and the Poisson-subsampled Laplace mechanism: epsilon at a
target delta from this library (its mechanisms and ``from_dp_event``) beside dp_accounting's
PLD accountant, each call in a fresh process (imports excluded from the times).

    python benchmarks/bench_new_mechanisms_finite.py \
        [--write benchmarks/RESULTS_new_mechanisms_finite.md]

The same ``DpEvent`` is given to both. Randomized response is read by dp_accounting only under
``REPLACE_ONE`` (the relation of two different inputs of one user, which is also how this
library reads it); the subsampled Laplace mechanism under ``ADD_OR_REMOVE_ONE`` (dp_accounting's
default, and ``from_dp_event``'s ``AddRemove(Mix(Laplace, q))``). Ours is the library's
``Value``: an exact or certified enclosure where the route proves it (a finite pair composed
exactly), else the PLD engine's enclosure (an estimate under its float error model);
dp_accounting's value is one-sided, the pessimistic PLD at its discretisation interval.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from _report import Report, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = r"""
import json, sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
{imports}
t0 = time.perf_counter()
{body}
print(json.dumps(dict(out=out, t=time.perf_counter() - t0)))
"""

OURS = ("import sympy as sp\nimport tradeoff_algebra as ta\nimport scipy.special, scipy.fft\n"
        "from dp_accounting import dp_event")
DPA = ("from dp_accounting import dp_event\nfrom dp_accounting.pld import "
       "pld_privacy_accountant as pa\nfrom dp_accounting.privacy_accountant import "
       "NeighboringRelation as NR")


def run(imports: str, body: str, timeout: int = 900) -> dict:
    code = _PRELUDE.format(root=ROOT, imports=imports, body=body)
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout} s"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def ours(event: str, delta: str) -> dict:
    return run(OURS, f"f = ta.from_dp_event({event})\n"
                     f"v = ta.epsilon(f, sp.Rational({delta!r}), dps=10)\n"
                     "out = [float(v.lo), float(v.hi), v.guarantee, v.route or '']")


def dpa(event: str, delta: float, relation: str, grid: float | None) -> dict:
    kw = f"neighboring_relation=NR.{relation}"
    if grid is not None:
        kw += f", value_discretization_interval={grid}"
    return run(DPA, f"acc = pa.PLDAccountant({kw})\nacc.compose({event})\n"
                    f"out = acc.get_epsilon({delta})")


def rr_event(p: str, k: int, T: int) -> str:
    """T copies in a ``ComposedDpEvent``: dp_accounting 0.6.0's PLD accountant drops the
    count of ``SelfComposedDpEvent(RandomizedResponseDpEvent, T)`` (see the last table)."""
    e = f"dp_event.RandomizedResponseDpEvent({p}, {k})"
    return e if T == 1 else f"dp_event.ComposedDpEvent([{e}] * {T})"


def lap_event(q: str, s: str, T: int) -> str:
    e = f"dp_event.PoissonSampledDpEvent({q}, dp_event.LaplaceDpEvent({s}))"
    return e if T == 1 else f"dp_event.SelfComposedDpEvent({e}, {T})"


def fmt_ours(r: dict) -> tuple[str, str]:
    if "error" in r:
        return f"error: {r['error']}", "-"
    lo, hi, g, _ = r["out"]
    v = f"{lo:.8g}" if lo == hi else f"[{lo:.8g}, {hi:.8g}]"
    return v, g


def fmt_dpa(r: dict) -> str:
    return f"error: {r['error']}" if "error" in r else f"{r['out']:.8g}"


def t_(r: dict) -> str:
    return "-" if "error" in r else f"{r['t']:.2f} s"


def table(R: Report, title: str, cases: list, make, relation: str, delta: str) -> None:
    R.out(f"## {title}, eps at delta = {delta}")
    R.out()
    R.out("| event | ours eps | guarantee | time | dp_acc. grid 1e-4 | time "
          "| dp_acc. grid 1e-5 | time |")
    R.out("|---|---|---|---|---|---|---|---|")
    for label, args in cases:
        ev = make(*args)
        o = ours(ev, delta)
        d4 = dpa(ev, float(delta), relation, None)
        d5 = dpa(ev, float(delta), relation, 1e-5)
        v, g = fmt_ours(o)
        R.out(f"| {label} | {v} | {g} | {t_(o)} | {fmt_dpa(d4)} | {t_(d4)} | {fmt_dpa(d5)} "
              f"| {t_(d5)} |")
    R.out()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    R = Report()
    R.out("# Randomized response and the subsampled Laplace mechanism beside dp_accounting")
    R.out()
    R.out(run_line("python benchmarks/bench_new_mechanisms_finite.py",
                   ("dp-accounting", "numpy", "scipy", "mpmath", "python-flint")))
    R.out()
    R.out("Each cell is a fresh process; times exclude imports. Ours: `ta.epsilon(ta."
          "from_dp_event(event), delta, dps=10)`, an enclosure [lo, hi] (a point when lo = "
          "hi at the printed digits) with its guarantee. dp_accounting: "
          "`PLDAccountant(...).get_epsilon(delta)`, a one-sided (pessimistic) value at its "
          "discretisation interval.")
    R.out()
    rr = [("p = 1/2, k = 2", ("0.5", 2, 1)), ("p = 1/2, k = 4", ("0.5", 4, 1)),
          ("p = 1/4, k = 10", ("0.25", 10, 1)), ("p = 1/2, k = 4, T = 20", ("0.5", 4, 20)),
          ("p = 3/4, k = 2, T = 200", ("0.75", 2, 200)),
          ("p = 0.9, k = 8, T = 1000", ("0.9", 8, 1000))]
    table(R, "k-ary randomized response (REPLACE_ONE)", rr, rr_event, "REPLACE_ONE", "1e-6")
    R.out("## dp_accounting's count of a self-composed randomized response, eps at delta = 1e-6")
    R.out()
    R.out("| event | ours eps | dp_acc. grid 1e-4 |")
    R.out("|---|---|---|")
    for T in (1, 20):
        e = f"dp_event.SelfComposedDpEvent(dp_event.RandomizedResponseDpEvent(0.5, 4), {T})"
        R.out(f"| SelfComposed(RR(p = 1/2, k = 4), {T}) | {fmt_ours(ours(e, '1e-6'))[0]} | "
              f"{fmt_dpa(dpa(e, 1e-6, 'REPLACE_ONE', None))} |")
    R.out()
    lap = [("q = 0.1, b = 2, T = 1", ("0.1", "2.0", 1)), ("q = 0.1, b = 2, T = 100",
                                                           ("0.1", "2.0", 100)),
           ("q = 0.01, b = 1, T = 1000", ("0.01", "1.0", 1000)),
           ("q = 0.001, b = 0.5, T = 10000", ("0.001", "0.5", 10000))]
    table(R, "Poisson-subsampled Laplace (ADD_OR_REMOVE_ONE)", lap, lap_event,
          "ADD_OR_REMOVE_ONE", "1e-5")
    R.write(a.write)


if __name__ == "__main__":
    main()
