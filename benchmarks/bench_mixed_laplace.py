"""eps(1e-6), delta(eps) and roc(1/100) of products of Laplace factors with different scales (no
Gaussian factor), ours at tol 1e-9 beside dp_accounting, each eps and delta row checked against
dp_accounting's optimistic and pessimistic PLDs (a bracket of the truth up to their float
errors); roc has no peer (dp_accounting gives no trade-off curve).

    python benchmarks/bench_mixed_laplace.py [--write benchmarks/RESULTS_mixed_laplace.md]

Every timed call runs in a fresh process (``bench_laplace.run``: CPU time by
``time.process_time`` with the imports excluded, peak resident size above the imports, the
warnings raised). The rows:

* Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3): every term summed exactly
  (``numeric/cf_mixed_split.py``);
* (x)_{i<100} Laplace(1/10 + i/10^4): the split on the common grid 10^-4
  (``numeric/cf_mixed_grid.py``: the terms with at most 8 density components summed exactly,
  the rest inverted); its roc from the same pieces (``numeric/cf_mixed_grid_tails.py``);
* (x)_{i<1000} Laplace(1/10 + i/10^5): eps, delta and roc by the split with the terms without
  a density component bounded by their mass (6.3e-23: a grid of 10^7 points is too fine to sum
  them), the rest inverted with the decay bound that sees the factors' phases
  (``numeric/cf_mixed_decay.py``).

Each of our questions is asked at tol 1e-9 and at the default tolerance (5e-4).

Laplace(mu) here is Lap(0, 1) against Lap(mu, 1): dp_accounting's Laplace mechanism with
parameter 1/mu and sensitivity 1.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_laplace as bl  # noqa: E402
from _report import Report, run_line  # noqa: E402

#: (title, our expression, the scales as a Python expression, the bracket's grid)
ROWS = (
    ("Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3)",
     "ta.Laplace(1) @ ta.Laplace(sp.Rational(1, 2)) @ ta.Laplace(sp.Rational(1, 3))",
     "[1, 1 / 2, 1 / 3]", 1e-5),
    ("(x)_{i<100} Laplace(1/10 + i/10^4)",
     "ta.Tensor(*[ta.Laplace(sp.Rational(1, 10) + sp.Rational(i, 10**4)) for i in range(100)])",
     "[1 / 10 + i / 10**4 for i in range(100)]", 1e-5),
    ("(x)_{i<1000} Laplace(1/10 + i/10^5)",
     "ta.Tensor(*[ta.Laplace(sp.Rational(1, 10) + sp.Rational(i, 10**5)) for i in range(1000)])",
     "[1 / 10 + i / 10**5 for i in range(1000)]", 1e-4),
)

DELTA = 1e-6
#: The eps of the delta rows (near each product's eps(DELTA)), by title.
EPS = {"(x)_{i<100} Laplace(1/10 + i/10^4)": "5", "(x)_{i<1000} Laplace(1/10 + i/10^5)": "20"}
#: The level of the roc rows.
LEVEL = "1/100"


def bracket(mus: str, grid: float, eps: str | None = None) -> dict:
    """dp_accounting's [optimistic, pessimistic] eps(DELTA) at ``grid`` (and, with ``eps``,
    their delta(eps) after them)."""
    tail = f"\nout += [p_.get_delta_for_epsilon({eps}) for p_ in pl]" if eps else ""
    body = ("out, pl = [], []\nfor pess in (False, True):\n"
            "    p = None\n"
            f"    for m in {mus}:\n"
            "        q = pld_lib.from_laplace_mechanism(1 / m, 1.0, pessimistic_estimate=pess, "
            f"value_discretization_interval={grid})\n"
            "        p = q if p is None else p.compose(q)\n"
            f"    out.append(p.get_epsilon_for_delta({DELTA}))\n    pl.append(p)" + tail)
    return bl.run(bl.SANDWICH, body, timeout=1800)


def ours_at(expr: str, question: str, arg: str, tol: str = "1e-9") -> dict:
    """Our delta(arg) or roc(arg) at ``tol`` in a fresh process."""
    body = (f"f = {expr}\n"
            f"try:\n    with ta.pld_options(tol={tol}), ta.time_limit(300):\n"
            f"        v = ta.{question}(f, sp.Rational({arg!r}))\n"
            "    out = [float(v.lo), float(v.hi), v.route, v.guarantee]\n"
            "except ta.TimeLimitExceeded as e:\n"
            "    out = ['time limit', str(e.best)]")
    return bl.run(bl.OURS, body)


def peer_delta(mus: str, eps: str) -> dict:
    ev = f"dp_event.ComposedDpEvent([dp_event.LaplaceDpEvent(1 / m) for m in {mus}])"
    return bl.run(bl.DPA, f"acc = pa.PLDAccountant()\nacc.compose({ev})\n"
                          f"out = acc.get_delta({eps})")


def peer(mus: str) -> dict:
    ev = f"dp_event.ComposedDpEvent([dp_event.LaplaceDpEvent(1 / m) for m in {mus}])"
    return bl.dpa(ev, DELTA)


def _check(lo: float, hi: float, ref: dict) -> str:
    if "error" in ref:
        return "not checked"
    rl, rh = ref["out"]
    if rl <= lo and hi <= rh:
        return "inside"
    if lo == hi and lo > rh:  # (the peer's default: pessimistic at a coarser grid)
        return f"above by {(lo - rh) / rh:.1e} (an upper bound)"
    return "intersects" if max(lo, rl) <= min(hi, rh) else "**DISJOINT**"


def _check_pair(r: dict, pair: list) -> str:
    """Our [lo, hi] of delta against dp_accounting's [optimistic, pessimistic] delta."""
    if "error" in r or not isinstance(r["out"][0], float):
        return "not checked"
    lo, hi = r["out"][:2]
    rl, rh = pair
    if rl <= lo and hi <= rh:
        return "inside"
    if lo == hi and lo > rh:  # (the peer's default: pessimistic at a coarser grid)
        return f"above by {(lo - rh) / rh:.1e} (an upper bound)"
    return "intersects" if max(lo, rl) <= min(hi, rh) else "**DISJOINT**"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    R = Report()
    R.out("# Laplace factors of different scales: eps(1e-6), delta(eps) and roc(1/100)")
    R.out()
    R.out(run_line("python benchmarks/bench_mixed_laplace.py", ("python-flint", "dp_accounting")))
    R.out()
    R.out("| workload | who | setting | eps(1e-6) | rel. width | route | warnings | check | "
          "CPU | peak mem |")
    R.out("|---|---|---|---|---|---|---|---|---|---|")
    later = []
    for title, expr, mus, grid in ROWS:
        ref = bracket(mus, grid, EPS.get(title))
        eps_ref = dict(ref, out=ref["out"][:2]) if "error" not in ref else ref
        R.out(f"| {title} | dp_accounting | [optimistic, pessimistic], grid {grid:g} | "
              f"{bl.fmt(eps_ref)} | {bl.width(eps_ref)} | - | - | (the bracket) | {bl.t_(ref)} | "
              f"{bl.m_(ref)} |")
        r = bl.ours(expr, "1/1000000", "1e-9")
        ok = "error" not in r and isinstance(r["out"][0], float)
        route = f"{r['out'][2]} ({r['out'][3]})" if ok else "-"
        chk = _check(*r["out"][:2], eps_ref) if ok else "not checked"
        R.out(f"| {title} | ours | tol 1e-9 | {bl.fmt(r)} | {bl.width(r)} | {route} | "
              f"{bl.warned(r)} | {chk} | {bl.t_(r)} | {bl.m_(r)} |")
        if title in EPS:  # (the loose tolerance of a default accountant)
            r = bl.ours(expr, "1/1000000", "5e-4")
            ok = "error" not in r and isinstance(r["out"][0], float)
            route = f"{r['out'][2]} ({r['out'][3]})" if ok else "-"
            chk = _check(*r["out"][:2], eps_ref) if ok else "not checked"
            R.out(f"| {title} | ours | tol 5e-4 | {bl.fmt(r)} | {bl.width(r)} | {route} | "
                  f"{bl.warned(r)} | {chk} | {bl.t_(r)} | {bl.m_(r)} |")
        p = peer(mus)
        pc = _check(p["out"], p["out"], eps_ref) if "error" not in p else "not checked"
        R.out(f"| {title} | dp_accounting | PLDAccountant, grid 1e-4 (default) | {bl.fmt(p)} | "
              f"- (estimate) | - | - | {pc} | {bl.t_(p)} | {bl.m_(p)} |")
        if title in EPS:
            later.append((title, expr, mus, grid, ref))
    R.out()
    R.out("| workload | question | who | setting | value | rel. width | route | warnings | "
          "check | CPU | peak mem |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|")
    for title, expr, mus, grid, ref in later:
        eps = EPS[title]
        pair = ref["out"][2:4] if "error" not in ref else None
        if pair is not None:
            R.out(f"| {title} | delta({eps}) | dp_accounting | [optimistic, pessimistic], grid "
                  f"{grid:g} | [{pair[0]:.13g}, {pair[1]:.13g}] | "
                  f"{(pair[1] - pair[0]) / pair[1]:.1e} | - | - | (the bracket) | (above) | "
                  "(above) |")
        for tol in ("1e-9", "5e-4"):
            r = ours_at(expr, "delta", eps, tol)
            ok = "error" not in r and isinstance(r["out"][0], float)
            route = f"{r['out'][2]} ({r['out'][3]})" if ok else "-"
            chk = _check_pair(r, pair) if pair is not None else "not checked"
            R.out(f"| {title} | delta({eps}) | ours | tol {tol} | {bl.fmt(r)} | {bl.width(r)} | "
                  f"{route} | {bl.warned(r)} | {chk} | {bl.t_(r)} | {bl.m_(r)} |")
        p = peer_delta(mus, eps)
        pc = ("not checked" if "error" in p or pair is None else
              _check_pair(dict(p, out=[p["out"], p["out"]]), pair))
        R.out(f"| {title} | delta({eps}) | dp_accounting | PLDAccountant, grid 1e-4 (default) | "
              f"{bl.fmt(p)} | - (estimate) | - | - | {pc} | {bl.t_(p)} | {bl.m_(p)} |")
        for tol in ("1e-9", "5e-4"):
            r = ours_at(expr, "roc", LEVEL, tol)
            ok = "error" not in r and isinstance(r["out"][0], float)
            route = f"{r['out'][2]} ({r['out'][3]})" if ok else "-"
            R.out(f"| {title} | roc({LEVEL}) | ours | tol {tol} | {bl.fmt(r)} | {bl.width(r)} | "
                  f"{route} | {bl.warned(r)} | (no peer) | {bl.t_(r)} | {bl.m_(r)} |")
    R.out()
    R.out(NOTES)
    R.write(a.write)


NOTES = (
    "Notes. Our first row sums every one of the 27 terms of the product exactly in Arb "
    "(`numeric/cf_mixed_split.py`, no inversion). At 100 factors the atoms of the factors keep "
    "|M(c + it)| from decaying and the terms with few density components are not negligible "
    "(the probability that no factor contributes its density is prod (1 + e^{-mu_i})/2 = 6.0e-3, "
    "mean number of density components 5.0): the scales lie on the grid 10^-4, so the terms "
    "with at most 8 density components are summed exactly there (integer polynomials of "
    "degree 104 950 from one `fmpz_poly` product, combined by Krawtchouk numbers in `fmpz_mat` "
    "blocks, their tails by kept block sums and falling-factorial moments) and the rest, whose "
    "transform decays like |t|^-9, is inverted (`numeric/cf_mixed_grid.py`); roc(1/100) takes "
    "the same split's tails (`numeric/cf_mixed_grid_tails.py`). At 1000 factors that "
    "probability is 6.3e-23: eps, delta and roc bound the all-atoms term by its mass and invert "
    "the rest, whose decay bound sees the factors' phases (`numeric/cf_mixed_decay.py`: |R| <= "
    "prod_i sup |M_i| + the atoms' tilted mass, so it falls with the product's own transform "
    "to about 1e-20 of M(c) by t = 3, where the bound without phases stayed at M(c) up to t = "
    "10): the roc's remainder plans 35 nodes (it planned 283 and 438 before), each a product of "
    "1000 factors by powers of e^{wh}. dp_accounting's default accountant is pessimistic: its "
    "value lies above the finer pessimistic bracket end. Times are CPU seconds of one run on a "
    "shared machine (the load is in the header). The roc rows' route is named by "
    "`routes/tail_laws.py`.")


if __name__ == "__main__":
    main()
