"""Wang et al.'s shuffling results side by side: Fig. 1, Table 1 and Table 2 of "Unified
enhancement of privacy bounds for mixture mechanisms via f-DP" (Sec. 4.2), n = 10^4.

Run ``python benchmarks/wang_shuffling.py`` (``--write PATH`` also records the tables). For the
paper's parameters it prints the printed values, the closed-form bound of Feldman, McMillan &
Talwar (Thm. 3.2 of their SODA 2023 paper, Wang et al.'s [23]: ``bounds.shuffling``), Wang et
al.'s Thm. 4.2 bound ``shuffle(eps0, n, bound='wang')`` and the exact shuffle trade-off
``ShuffleDP(eps0, n)``, each with its time in this process (the first call at a given eps0
builds the table of the shuffle atoms and carries its cost). Values are the library's
certified results: a point is correct to the digits shown, ``[lo, hi]`` an enclosure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# the working tree's package (bounds.shuffling is new), not an older installed copy
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mpmath  # noqa: E402
import sympy as sp  # noqa: E402
from _report import Report, run_line, timed  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402
from tradeoff_algebra.bounds.shuffling import (  # noqa: E402
    fmt_delta,
    fmt_eps0_max,
    fmt_epsilon,
    fmt_tradeoff,
)
from tradeoff_algebra.core.errors import InvalidParameter  # noqa: E402

S = sp.Rational
N = 10**4
E4444 = S(1111, 250)  # the "fixed value eps0 = 4.444" of Tables 1 and 2
EPS0_FIG1 = fmt_eps0_max(N, S(1, 10**6))  # log(n/(8 log(2 n^1.5)) - 1) = 4.44448..., unrounded
DPS = 10
REPORT = Report()
out = REPORT.out

TABLE1 = [(S(1, 2), "3e-6", ""), (S(6, 10), "1e-7", ""), (S(7, 10), "4e-9", "0.1038"),
          (S(8, 10), "9e-11", ""), (S(9, 10), "2e-12", "0.0018"), (S(1), "2e-14", "8e-5")]
TABLE2 = [(S(5, 10**5), "0.4", "1.014", "0.369"), (S(3, 10**6), "0.5", "1.085", "0.470"),
          (S(1, 10**7), "0.6", "eps0", "0.575"), (S(4, 10**9), "0.7", "eps0", "0.664"),
          (S(9, 10**11), "0.8", "eps0", "0.758")]


def show(v, digits: int = 4) -> str:
    """A Value: the point, or the enclosure [lo, hi]; an expression: its value."""
    if isinstance(v, ta.Value):
        if v.lo == v.hi:
            return mpmath.nstr(v.mid, digits)
        return f"[{mpmath.nstr(v.lo, digits)}, {mpmath.nstr(v.hi, digits)}]"
    return mpmath.nstr(mpmath.mpf(sp.N(v, 30)), digits)


def rounds(v, printed: str) -> bool:
    """Does the Value round to the printed number (one significant digit, or the printed
    decimals)? Decided on the enclosure: every point of [lo, hi] rounds to it."""
    digits = len(printed.split(".")[1]) if "." in printed and "e" not in printed else None
    fmt = (lambda y: f"{y:.{digits}f}") if digits is not None else (lambda y: f"{y:.0e}")
    want = fmt(float(printed))
    return fmt(float(v.lo)) == want and fmt(float(v.hi)) == want


def yes(b: bool) -> str:
    return "yes" if b else "no"


def secs(t: float) -> str:
    return f"{t:.2f} s"


def wang(e0):
    return ta.shuffle(e0, N, bound="wang")


def exact(e0):
    return ta.ShuffleDP(e0, N)


def header(argv: str) -> None:
    out("# Wang et al., shuffling (Sec. 4.2): Fig. 1, Tables 1 and 2")
    out()
    out(run_line(f"python benchmarks/wang_shuffling.py{argv}",
                 ("sympy", "mpmath", "python-flint", "numpy", "scipy")))
    out()
    out(f"n = {N}. Wang's Thm. 4.2 bound and the exact ShuffleDP at eps0 = 4.444 (the tables' "
        f"fixed value); FMT (Feldman, McMillan & Talwar, SODA 2023, Thm. 3.2) at the unrounded "
        f"eps0 = log(n/(8 log(2 n^1.5)) - 1) = {show(EPS0_FIG1, 8)} of the Fig. 1 caption, "
        "which its printed entries need, and at 4.444. Certified values at dps = "
        f"{DPS}, shown to 4 digits.")
    out()


def fmt_delta_cell(e0, e) -> tuple[str, float]:
    try:
        v, t = timed(lambda: fmt_delta(e0, N, e, dps=DPS))
    except InvalidParameter as exc:
        return f"refused ({exc.name})", 0.0
    return show(v), t


def fmt_eps_cell(e0, d) -> tuple[str, float]:
    try:
        v, t = timed(lambda: fmt_epsilon(e0, N, d, dps=DPS))
    except InvalidParameter:
        return f"hypothesis fails (eps0 > {show(fmt_eps0_max(N, d))})", 0.0
    return show(v), t


def table1() -> None:
    out("## Table 1: delta(eps)")
    out()
    out("| eps | printed ours | printed [23] | FMT (4.44448) | time | FMT (4.444) | "
        "Thm. 4.2 (ours) | time | rounds to printed | exact ShuffleDP | time |")
    out("|---|---|---|---|---|---|---|---|---|---|---|")
    for e, pr, pr23 in TABLE1:
        f1, t1 = fmt_delta_cell(EPS0_FIG1, e)
        f2, _ = fmt_delta_cell(E4444, e)
        w, tw = timed(lambda e=e: ta.delta(wang(E4444), e, dps=DPS))
        x, tx = timed(lambda e=e: ta.delta(exact(E4444), e, dps=DPS))
        out(f"| {e} | {pr} | {pr23 or '(blank)'} | {f1} | {secs(t1)} | {f2} | {show(w)} | "
            f"{secs(tw)} | {yes(rounds(w, pr))} | {show(x)} | {secs(tx)} |")
    out()


def table2() -> None:
    out("## Table 2: eps(delta)")
    out()
    out("| delta | printed ours | printed [23] upper | printed lower | FMT (4.44448) | time | "
        "FMT (4.444) | Thm. 4.2 (ours) | time | rounds to printed | exact ShuffleDP | time | "
        "lower <= exact <= Thm. 4.2 |")
    out("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d, pr, pr23, low in TABLE2:
        f1, t1 = fmt_eps_cell(EPS0_FIG1, d)
        f2, _ = fmt_eps_cell(E4444, d)
        w, tw = timed(lambda d=d: ta.epsilon(wang(E4444), d, dps=DPS))
        x, tx = timed(lambda d=d: ta.epsilon(exact(E4444), d, dps=DPS))
        out(f"| {mpmath.nstr(mpmath.mpf(sp.N(d, 20)), 2)} | {pr} | {pr23} | {low} | {f1} | "
            f"{secs(t1)} | {f2} | {show(w)} | {secs(tw)} | {yes(rounds(w, pr))} | {show(x)} | "
            f"{secs(tx)} | {yes(mpmath.mpf(low) <= x.lo and x.hi <= w.lo)} |")
    out()


def clones_epsilon(e0, n, d):
    """The closed form of FMT's earlier paper (FOCS 2021, Thm. 3.1), for comparison only:
    log(1 + (E-1)/(E+1) (8 sqrt(E log(4/d)/n) + 8E/n)) under eps0 <= log(n/(16 log(2/d)))."""
    E = sp.exp(e0)
    ok = bool(e0 <= sp.log(n / (16 * sp.log(2 / d))))
    v = sp.log(1 + (E - 1) / (E + 1) * (8 * sp.sqrt(E * sp.log(4 / d) / n) + 8 * E / n))
    return v, ok


def which_form() -> None:
    out("## Which bound of FMT the tables use")
    out()
    out("| delta | printed [23] | SODA 2023 Thm. 3.2 (4.44448) | (4.444) | FOCS 2021 Thm. 3.1 "
        "(4.44448) | its hypothesis | exact ShuffleDP eps (4.444) |")
    out("|---|---|---|---|---|---|---|")
    for d, _, pr23, _ in TABLE2[:2]:
        a = show(fmt_epsilon(EPS0_FIG1, N, d, dps=DPS))
        b = show(fmt_epsilon(E4444, N, d, dps=DPS))
        c, ok = clones_epsilon(EPS0_FIG1, N, d)
        x = show(ta.epsilon(exact(E4444), d, dps=DPS))
        out(f"| {mpmath.nstr(mpmath.mpf(sp.N(d, 20)), 2)} | {pr23} | {a} | {b} | {show(c)} | "
            f"{'holds' if ok else 'fails'} | {x} |")
    out()


FIG1_EPS0 = [S(1), S(2), S(3), E4444, S(6)]
FIG1_ALPHA = [S(1, 10**4), S(1, 1000), S(1, 100), S(1, 10), S(3, 10), S(1, 2)]


def fig1() -> None:
    d = S(1, 10**6)  # delta = n^-1.5
    out("## Fig. 1: trade-off values f(alpha), delta = n^-1.5 for FMT")
    out()
    out("| eps0 | alpha | Thm. 4.2 (ours) | time | exact ShuffleDP | time | FMT f_{eps,delta} | "
        "time |")
    out("|---|---|---|---|---|---|---|---|")
    for e0 in FIG1_EPS0:
        try:
            g = fmt_tradeoff(e0, N, d)
        except InvalidParameter as exc:
            g, why = None, f"no result ({exc.name} > {show(fmt_eps0_max(N, d))})"
        for a in FIG1_ALPHA:
            w, tw = timed(lambda a=a, e0=e0: ta.evaluate(wang(e0), a, dps=DPS))
            x, tx = timed(lambda a=a, e0=e0: ta.evaluate(exact(e0), a, dps=DPS))
            if g is None:
                gv, tg = why, 0.0
            else:
                v, tg = timed(lambda a=a, g=g: ta.evaluate(g, a, dps=DPS))
                gv = show(v, 6)
            out(f"| {show(e0, 5)} | {show(a, 2)} | {show(w, 6)} | {secs(tw)} | {show(x, 6)} | "
                f"{secs(tx)} | {gv} | {secs(tg)} |")
    out()
    out("The first call at each eps0 builds the table of the shuffle atoms (its time is in the "
        "first row of that eps0; the later calls reuse it).")
    out()
    out("FMT's f_{eps,delta} at eps0 = 4.444: eps = "
        f"{show(fmt_epsilon(E4444, N, d, dps=DPS), 6)} at delta = 1e-6.")
    out()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    a = ap.parse_args()
    t0 = time.perf_counter()
    header(f" --write {a.write}" if a.write else "")
    table1()
    table2()
    which_form()
    fig1()
    out(f"Total {time.perf_counter() - t0:.0f} s.")
    REPORT.write(a.write)


if __name__ == "__main__":
    main()
