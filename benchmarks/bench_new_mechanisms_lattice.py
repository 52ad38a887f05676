"""epsilon(delta) of the lattice mechanisms (DiscreteLaplace, Skellam) and of long pure-DP
compositions, side by side with dp_accounting's PLD (pessimistic, value discretisation 1e-4):
``from_discrete_laplace_mechanism(1/t, sensitivity)`` for the discrete Laplace, for the Skellam
``from_two_probability_mass_functions`` over the pmf e^{-2 mu} I_|x|(2 mu) (scipy's ``ive``,
the window holding all but 1e-30), ``from_randomized_response`` (two buckets) for f_{eps0,0};
``self_compose(k)`` and ``compose`` with ``from_gaussian_mechanism(1.0)`` (G(1)). Ours:
``ta.epsilon`` at 8 digits with its guarantee (certified, or the PLD engine's estimate
enclosure; a point to its 8 digits, an enclosure rounded outward at 6 decimals). Every
number is computed in a fresh process (``_report.child_json``); the times
are of the computation after the imports (ours: building the expression and ``ta.epsilon``
under ``ta.pld_options(tol=...)``; dp_accounting: building, composing and
``get_epsilon_for_delta``), wall and CPU seconds and the peak resident memory.

    python benchmarks/bench_new_mechanisms_lattice.py \
        [--only Skellam] [--write benchmarks/RESULTS_new_mechanisms_lattice.md]

``--only NAME`` reruns the rows whose mechanism contains NAME and keeps the other rows of the
file named by ``--write`` as they were (the note under the table says which rows were rerun).
A row may ask ours for other digits (``4 digits``: about dp_accounting's own accuracy) and
another tolerance of ``pld_options`` (``tol 1e-9``: the grid refined to a relative width of
1e-9; 10 digits, so that the value's rounding does not widen it).
"""

from __future__ import annotations

import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _report import Report, child_json, run_line  # noqa: E402

#: Seconds a dp_accounting computation may take (its PLD of DiscreteLaplace(3, 2)^10000 at
#: discretisation 1e-4 grows past a gigabyte).
PEER_TIMEOUT = 120

#: (mechanism source, expression label, expression source with f, delta, dp_accounting kind,
#: its number of factors or "G"[, our digits when not 8[, the tolerance of ``pld_options``]])
CASES = [
    ("ta.DiscreteLaplace(1, sp.Rational(1, 2))", "f", "f", "1e-6", "dl", 1),
    ("ta.DiscreteLaplace(1, sp.Rational(1, 2))", "f**10", "f**10", "1e-6", "dl", 10),
    ("ta.DiscreteLaplace(1, sp.Rational(1, 2))", "f @ G(1)", "f @ ta.G(1)", "1e-6", "dl", "G"),
    ("ta.DiscreteLaplace(3, 2)", "f", "f", "1e-6", "dl", 1),
    ("ta.DiscreteLaplace(3, 2)", "f**10", "f**10", "1e-6", "dl", 10),
    ("ta.DiscreteLaplace(3, 2)", "f**10000", "f**10000", "1e-6", "dl", 10000),
    ("ta.DiscreteLaplace(3, 2)", "f @ G(1)", "f @ ta.G(1)", "1e-6", "dl", "G"),
    ("ta.DiscreteLaplace(2, 1/sp.log(2))", "f", "f", "1e-6", "dl", 1),
    ("ta.DiscreteLaplace(2, 1/sp.log(2))", "f**10", "f**10", "1e-6", "dl", 10),
    ("ta.DiscreteLaplace(2, 1/sp.log(2))", "f @ G(1)", "f @ ta.G(1)", "1e-6", "dl", "G"),
    ("ta.Skellam(1, 5)", "f", "f", "1e-6", "sk", 1),
    ("ta.Skellam(1, 5)", "f**10", "f**10", "1e-6", "sk", 10, 10, 1e-9),
    ("ta.Skellam(1, 5)", "f**10", "f**10", "1e-6", "sk", 10, 4, 1e-4),
    ("ta.Skellam(1, 5)", "f**100", "f**100", "1e-6", "sk", 100, 10, 1e-9),
    ("ta.Skellam(1, 5)", "f**100", "f**100", "1e-6", "sk", 100, 4, 1e-4),
    ("ta.Skellam(1, 5)", "f**1000", "f**1000", "1e-6", "sk", 1000, 10, 1e-8),
    ("ta.Skellam(1, 5)", "f**1000", "f**1000", "1e-6", "sk", 1000, 10, 1e-9),
    ("ta.Skellam(1, 5)", "f**1000", "f**1000", "1e-6", "sk", 1000, 4, 1e-4),
    ("ta.Skellam(1, 5)", "f @ G(1)", "f @ ta.G(1)", "1e-6", "sk", "G"),
    ("ta.Skellam(2, 50)", "f", "f", "1e-6", "sk", 1),
    ("ta.Skellam(2, 50)", "f**10", "f**10", "1e-6", "sk", 10, 10, 1e-9),
    ("ta.Skellam(2, 50)", "f**10", "f**10", "1e-6", "sk", 10, 4, 1e-4),
    ("ta.Skellam(2, 50)", "f @ G(1)", "f @ ta.G(1)", "1e-6", "sk", "G"),
    ("ta.EpsDelta(sp.Rational(1, 10), 0)", "f**10000", "f**10**4", "1e-5", "rr", 10**4),
    ("ta.EpsDelta(sp.Rational(1, 10), 0)", "f**1000000", "f**10**6", "1e-5", "rr", 10**6),
]

OURS = """
import json, resource, time, sympy as sp
import tradeoff_algebra as ta
t = time.perf_counter()
c = time.process_time()
f = {mech}
g = {expr}
with ta.pld_options(tol={tol}):
    v = ta.epsilon(g, sp.Rational(1, 10**{exp}), dps={dps})
s = time.perf_counter() - t
cpu = time.process_time() - c
mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"lo": float(v.lo), "hi": float(v.hi), "g": v.guarantee, "s": s,
                  "cpu": cpu, "mb": mb, "route": v.route}}))
"""

PEER = """
import json, math, resource, time
from dp_accounting.pld import privacy_loss_distribution as pld
t = time.perf_counter()
c = time.process_time()
kind, par, d, k = {kind!r}, {par}, {d}, {k!r}
if kind == "dl":
    one = pld.from_discrete_laplace_mechanism(1 / par, sensitivity=d,
                                              value_discretization_interval=1e-4)
elif kind == "sk":
    from scipy.special import ive
    K = int(par + 20 * math.sqrt(2 * par) + 40)
    logp = {{x: math.log(ive(abs(x), 2 * par)) for x in range(-K, K + 1)}}
    one = pld.from_two_probability_mass_functions(
        logp, {{x + d: v for x, v in logp.items()}}, value_discretization_interval=1e-4)
else:
    one = pld.from_randomized_response(2 / (1 + math.exp(par)), 2,
                                       value_discretization_interval=1e-4)
if k == "G":
    one = one.compose(pld.from_gaussian_mechanism(1.0, value_discretization_interval=1e-4))
elif k > 1:
    one = one.self_compose(k)
e = one.get_epsilon_for_delta({delta})
print(json.dumps({{"e": e, "s": time.perf_counter() - t, "cpu": time.process_time() - c,
                  "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


NOTES = """How the certified rows are computed: the discrete Laplace with a rational scale is a
lattice factor (its clipped loss (2y - Delta)/t) composed exactly in integers by
`numeric/lattice_product.py`; the Skellam powers go through `numeric/grid_product.py`: below,
the best test "reject the product's cells s >= t" from cells of a grid with their exact P- and
Q-masses; above, the split (connect-the-dots) product, each atom shared between the two grid
points around its loss keeping both its masses, a lattice pair that dominates the Skellam pair.
A power is composed in exact blocks of two factors (the pairs of atoms, ~4500 for
Skellam(1, 5)), so the grid's error, ~ k h^2 for k factors on the grid h, is paid k/2 times;
from 24 factors on, the refined grid nests: blocks of m ~ sqrt(2k) factors composed exactly on
a grid r times finer (r^2 m ~ k), each block one factor of the coarse grid
(`numeric/grid_nest.py`: k/m coarse discretisations and k/2 fine ones at 1/r^2, about 1.7 times
less work at k = 1000 for the same width); the first grid (about 16000 points) gives a width
that the h^2 law, weighed by where the heavy atoms fall in their cells, turns into one finer
grid for the tolerance of `pld_options` (the `tol` of the row; at most 2^22 points, the
products' coefficients exact integers in fmpz_poly, certified after the fact by the tilted
missing mass). A row's times are wall seconds in its
own process, with its CPU seconds and peak resident memory (`ru_maxrss`) where measured (the
rows marked with a `tol` and those rerun since); rows without `tol` use the default 5e-4.
f_{eps0,0}^{(x)k} by two regularised incomplete beta functions in Arb
(`families/binomial_tails.py`). Rows with G(1) are estimates of the PLD engine (no certified
route composes a lattice law with a Gaussian here). dp_accounting's value must lie at or above
our lower end (its PLD is pessimistic): it does in every row where it answered (its 10^6-fold
randomized response ran past the 120 s limit)."""


def _times(r: dict) -> str:
    """Wall seconds, with the CPU seconds and the peak resident memory where measured."""
    if "cpu" not in r:
        return f"{r['s']:.2f}"
    return f"{r['s']:.2f} (cpu {r['cpu']:.2f}, {r['mb']:.0f} MB)"


def _params(mech: str):
    """(kind parameter, sensitivity) for the peer: the scale t, mu, or eps0, as a float."""
    import sympy as sp

    import tradeoff_algebra as ta

    f = eval(mech, {"ta": ta, "sp": sp})  # noqa: S307 - our own table
    if isinstance(f, ta.EpsDelta):
        return float(f.eps), 1
    par = f.scale if hasattr(f, "scale") else f.mu
    return float(par), int(f.sensitivity)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    ap.add_argument("--only", help="rerun the rows whose mechanism contains this; keep the "
                    "others from the file of --write")
    args = ap.parse_args()
    old: dict = {}
    if args.only and args.write and os.path.exists(args.write):
        with open(args.write) as fh:
            for line in fh:
                cells = line.split(" | ")
                if line.startswith("| `") and len(cells) > 3:
                    old[tuple(c.strip(" |") for c in cells[:3])] = line.rstrip("\n")
    R = Report()
    R.out("# epsilon(delta) of the lattice mechanisms: this library and dp_accounting\n")
    R.out("Written by `python benchmarks/bench_new_mechanisms_lattice.py --write ...`; "
          + run_line("python benchmarks/bench_new_mechanisms_lattice.py",
                     ("python-flint", "dp-accounting")) + ".\n")
    R.out("dp_accounting's PLD is pessimistic (an upper estimate) at value discretisation 1e-4; "
          "ours names its guarantee. Times: each number in a fresh process, after the imports "
          "(ours: the expression and `ta.epsilon` at 8 digits; dp_accounting: building, "
          "composing and `get_epsilon_for_delta`).\n")
    R.out("| mechanism | expression | delta | ours | route | time (s) | dp_accounting "
          "| time (s) |")
    R.out("|---|---|---|---|---|---|---|---|")
    for mech, label, expr, delta, kind, k, *more in CASES:
        dps = more[0] if more else 8
        tol = more[1] if len(more) > 1 else 5e-4
        name = mech.replace("ta.", "").replace("sp.Rational(1, 2)", "1/2").replace(
            "sp.Rational(1, 10)", "1/10").replace("1/sp.log(2)", "1/log(2)")
        label = label if dps == 8 else f"{label} ({dps} digits)"
        label = label if len(more) < 2 else f"{label}, tol {tol:g}"
        key = (f"`{name}`", label, delta)
        if args.only and args.only not in mech and key in old:
            R.out(old[key])
            continue
        exp = delta.split("e-")[1]
        mine = child_json(OURS.format(mech=mech, expr=expr, exp=exp, dps=dps, tol=tol),
                          cwd=ROOT)
        par, d = _params(mech)
        theirs = child_json(PEER.format(kind=kind, par=par, d=d, k=k, delta=delta),
                            timeout=PEER_TIMEOUT)
        if "error" in mine:
            ours, route, t1 = mine["error"], "", ""
        else:
            lo, hi = mine["lo"], mine["hi"]
            # a point holds its digits; an enclosure is shown rounded outward at 6 decimals, or
            # at as many as its width needs (at most 12), with its relative width
            n = 6 if hi - lo >= 1e-6 * abs(hi) or hi == lo else \
                min(12, 2 - math.floor(math.log10(hi - lo)))
            ours = (f"{lo:.8g}" if lo == hi else
                    f"[{math.floor(lo * 10**n) / 10**n:.{n}f}, "
                    f"{math.ceil(hi * 10**n) / 10**n:.{n}f}]")
            if lo != hi and hi > 0:
                ours += f" (width {(hi - lo) / hi:.1e})"
            ours += f" ({mine['g']})"
            route, t1 = mine["route"], _times(mine)
        peer = ("not installed" if "error" in theirs and "dp_accounting" in theirs["error"]
                else theirs.get("error") or f"{theirs['e']:.6f}")
        t2 = _times(theirs) if "s" in theirs else ""
        R.out(f"| `{name}` | {label} | {delta} | {ours} | {route} | {t1} | {peer} | {t2} |")
    R.out()
    R.out(NOTES)
    if args.only:
        R.out(f"\nRows of mechanisms containing `{args.only}` rerun on this date; the other rows "
              "are kept from the previous run of the file.")
    R.write(args.write)


if __name__ == "__main__":
    main()
