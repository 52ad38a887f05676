"""The workloads of the performance issue, side by side with the peers, each call in a fresh
process (cold caches; imports excluded from the times, measured separately): time, peak memory
above the imports, and the values, ours as a certified [lo, hi].

    python benchmarks/bench_peers.py [--quick] [--write benchmarks/RESULTS_peers.md]

Rows: DP-SGD at tight tolerances; small delta down to 1e-300; T = 10^7; a heterogeneous
product; Koskela et al.'s case (q = 0.01, sigma = 4, T = 10^4); the prv_accountant failure
case (q = 0.00033, sigma = 4, T = 10^4, delta = 1.1e-18 and 1.13e-18); closed-form point
evaluation and curves against scipy; import time.
"""

from __future__ import annotations

import argparse
import os
from fractions import Fraction

from _report import Report, child_json, run_line, timed_prelude

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = timed_prelude("wall", memory=True)

# the library imports scipy.special and scipy.fft at first use (they slow its import), where
# dp_accounting imports them with itself: both are imported before the clock starts
OURS = "import sympy as sp\nimport tradeoff_algebra as ta\nimport scipy.special, scipy.fft"
DPA = ("from dp_accounting import dp_event\n"
       "from dp_accounting.pld import pld_privacy_accountant as pa")
PRV = ("from prv_accountant import PRVAccountant\n"
       "from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism")


def run(imports: str, body: str, timeout: int = 1800) -> dict:
    return child_json(_PRELUDE.format(root=ROOT, imports=imports, body=body), timeout)


def ours_eps(expr: str, delta: str, tol: str | None = None) -> dict:
    opt = f"with ta.pld_options(tol={tol}):\n    " if tol else ""
    return run(OURS, f"f = {expr}\n{opt}v = ta.epsilon(f, sp.Rational({delta!r}), dps=12)\n"
                     "out = [float(v.lo), float(v.hi)]")


def ours_delta(expr: str, eps: str) -> dict:
    return run(OURS, f"f = {expr}\nv = ta.delta(f, sp.Rational({eps!r}), dps=12)\n"
                     "out = [float(v.lo), float(v.hi)]")


def dpa_body(event: str, what: str, arg: float, grid: float | None = None) -> str:
    """The body (after ``DPA``) of dp_accounting's PLD accountant on ``event``: eps(arg) or
    delta(arg) at its default grid or ``grid``."""
    acc = "pa.PLDAccountant()" if grid is None else \
        f"pa.PLDAccountant(value_discretization_interval={grid})"
    call = "get_epsilon" if what == "eps" else "get_delta"
    return f"acc = {acc}\nacc.compose({event})\nout = acc.{call}({arg})"


def dpa(event: str, what: str, arg: float, grid: float | None = None) -> dict:
    return run(DPA, dpa_body(event, what, arg, grid))


def prv_body(q: float, sigma: float, T: int, what: str, arg: float, eps_error: float = 0.01,
             delta_error: float | None = None) -> str:
    """The body (after ``PRV``) of prv_accountant on Poisson-subsampled Gaussian DP-SGD:
    ``out = [lower, estimate, upper]`` of eps(arg) or delta(arg)."""
    m = f"PoissonSubsampledGaussianMechanism(noise_multiplier={sigma}, sampling_probability={q})"
    de = delta_error if delta_error is not None else (arg / 1000 if what == "eps" else 1e-10)
    acc = (f"acc = PRVAccountant(prvs={m}, max_self_compositions={T}, eps_error={eps_error}, "
           f"delta_error={de})")
    call = f"acc.compute_epsilon(delta={arg}, num_self_compositions={T})" if what == "eps" \
        else f"acc.compute_delta(epsilon={arg}, num_self_compositions={T})"
    return f"{acc}\nr = {call}\nout = [float(x) for x in r]"


def prv(q: float, sigma: float, T: int, what: str, arg: float, eps_error: float = 0.01,
        delta_error: float | None = None) -> dict:
    return run(PRV, prv_body(q, sigma, T, what, arg, eps_error, delta_error))


def sgd_event(q: float, sigma: float, T: int) -> str:
    return (f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent({q}, "
            f"dp_event.GaussianDpEvent({sigma})), {T})")


def fmt(r: dict, digits: int = 6) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    o = r["out"]
    if isinstance(o, list) and len(o) == 2:
        lo, hi = o
        return f"[{lo:.{digits}g}, {hi:.{digits}g}]"
    if isinstance(o, list) and len(o) == 3:
        return f"{o[1]:.{digits}g} in [{o[0]:.{digits}g}, {o[2]:.{digits}g}]"
    return f"{o:.{digits}g}" if isinstance(o, float) else str(o)


def t_(r: dict) -> str:
    return "-" if "error" in r else f"{r['t']:.2f} s"


def m_(r: dict) -> str:
    return "-" if "error" in r else f"{r['mem']:.0f} MiB"


def failure_table(R) -> None:
    """prv_accountant's failure case at tol 5e-4 and 1e-9 (the cut of the remove direction's law:
    families/gaussian_sampled.py), beside dp_accounting and prv_accountant in the same run."""
    R.out()
    R.out("## The prv_accountant failure case (q = 0.00033, sigma = 4, T = 10^4) at two "
          "tolerances")
    R.out()
    R.out("| delta | who | setting | eps | rel. width | time |")
    R.out("|---|---|---|---|---|---|")
    expr = "ta.noisy_sgd(4, sp.Rational('0.00033'), 10**4, sampling='poisson')"
    for arg in ("1.1e-18", "1.13e-18"):
        for tol in ("5e-4", "1e-9"):
            r = ours_eps(expr, arg, tol)
            w = "-" if "error" in r else f"{(r['out'][1] - r['out'][0]) / r['out'][1]:.1e}"
            R.out(f"| {arg} | ours | tol {tol} | {fmt(r, 12)} | {w} | {t_(r)} |")
        p1 = dpa(sgd_event(0.00033, 4.0, 10**4), "eps", float(arg))
        R.out(f"| {arg} | dp_accounting | grid default 1e-4 | {fmt(p1, 8)} | one-sided | "
              f"{t_(p1)} |")
        p2 = prv(0.00033, 4.0, 10**4, "eps", float(arg))
        R.out(f"| {arg} | prv_accountant | eps_error 0.01 | {fmt(p2, 8)} | - | {t_(p2)} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the slowest rows")
    ap.add_argument("--failure", action="store_true", help="only the failure case's table")
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    R = Report()
    if a.failure:
        R.out(run_line("python benchmarks/bench_peers.py --failure",
                       ("dp-accounting", "prv-accountant", "numpy", "scipy")))
        failure_table(R)
        R.write(a.write)
        return
    R.out("# The performance workloads beside the peers (fresh processes)")
    R.out()
    R.out(run_line("python benchmarks/bench_peers.py" + (" --quick" if a.quick else ""),
                   ("dp-accounting", "prv-accountant", "numpy", "scipy")))
    R.out()
    R.out("Times exclude imports (scipy's included, which the library loads at first use and "
          "dp_accounting at import); memory is the peak resident size above the imports. Ours "
          "is a certified enclosure [lo, hi]; dp_accounting's PLD value is one-sided (an upper "
          "bound at its discretisation); prv_accountant gives [lower, estimate, upper]. The "
          "last table times a fresh process from the first import.")

    q0, s0, T0 = "256/60000", "11/10", 14063
    sgd = f"ta.noisy_sgd(sp.Rational({s0!r}), sp.Rational({q0!r}), {T0}, sampling='poisson')"
    R.out()
    R.out(f"## DP-SGD (q = 256/60000, sigma = 1.1, T = {T0}), eps at delta = 1e-5")
    R.out()
    R.out("| who | setting | eps | rel. width | time | memory |")
    R.out("|---|---|---|---|---|---|")
    for tol in ("5e-4", "1e-6", "1e-9"):
        r = ours_eps(sgd, "1e-5", tol)
        w = "-" if "error" in r else f"{(r['out'][1] - r['out'][0]) / r['out'][1]:.1e}"
        R.out(f"| ours | tol {tol} | {fmt(r, 12)} | {w} | {t_(r)} | {m_(r)} |")
    ev = sgd_event(256 / 60000, 1.1, T0)
    for grid in (None, 1e-5):
        r = dpa(ev, "eps", 1e-5, grid)
        R.out(f"| dp_accounting | grid {grid or 'default 1e-4'} | {fmt(r, 8)} | one-sided | "
              f"{t_(r)} | {m_(r)} |")
    if not a.quick:
        r = prv(256 / 60000, 1.1, T0, "eps", 1e-5, eps_error=0.001)
        R.out(f"| prv_accountant | eps_error 0.001 | {fmt(r, 8)} | - | {t_(r)} | {m_(r)} |")

    R.out()
    R.out(f"## DP-SGD at three noise levels (q = 256/60000, T = {T0}), eps at delta = 1e-5")
    R.out()
    R.out("| sigma | ours, tol 1e-6 | rel. width | time | ours, tol 1e-9 | rel. width | time | "
          "dp_acc. default | time |")
    R.out("|---|---|---|---|---|---|---|---|---|")
    for s in ("4/5", "11/10", "2"):
        expr = f"ta.noisy_sgd(sp.Rational({s!r}), sp.Rational({q0!r}), {T0}, sampling='poisson')"
        cells = []
        for tol in ("1e-6", "1e-9"):
            r = ours_eps(expr, "1e-5", tol)
            w = "-" if "error" in r else f"{(r['out'][1] - r['out'][0]) / r['out'][1]:.1e}"
            cells.append(f"{fmt(r, 12)} | {w} | {t_(r)}")
        p = dpa(sgd_event(256 / 60000, float(Fraction(s)), T0), "eps", 1e-5)
        R.out(f"| {s} | {' | '.join(cells)} | {fmt(p, 8)} | {t_(p)} |")

    R.out()
    R.out("## Small delta (the same DP-SGD)")
    R.out()
    R.out("| delta | ours eps | time | dp_acc. default | time | dp_acc. grid 1e-5 | time |")
    R.out("|---|---|---|---|---|---|---|")
    for d in ("1e-10", "1e-15", "1e-30", "1e-100", "1e-300"):
        r = ours_eps(sgd, d)
        p1 = dpa(ev, "eps", float(d))
        p2 = dpa(ev, "eps", float(d), 1e-5) if d in ("1e-10", "1e-15") and not a.quick else {
            "error": "not run"}
        R.out(f"| {d} | {fmt(r, 8)} | {t_(r)} | {fmt(p1, 8)} | {t_(p1)} | {fmt(p2, 8)} | "
              f"{t_(p2)} |")

    R.out()
    R.out("## Koskela et al. (q = 0.01, sigma = 4, T = 10^4) and the prv_accountant failure case "
          "(q = 0.00033, sigma = 4, T = 10^4)")
    R.out()
    R.out("| case | ours | time | dp_acc. default | time | prv_accountant | time |")
    R.out("|---|---|---|---|---|---|---|")
    cases = [("0.01", 4, 10**4, "delta", "1"), ("0.01", 4, 10**4, "eps", "1e-5"),
             ("0.00033", 4, 10**4, "eps", "1.1e-18"), ("0.00033", 4, 10**4, "eps", "1.13e-18")]
    for q, s, T, what, arg in cases:
        expr = f"ta.noisy_sgd({s}, sp.Rational({q!r}), {T}, sampling='poisson')"
        r = ours_delta(expr, arg) if what == "delta" else ours_eps(expr, arg)
        p1 = dpa(sgd_event(float(q), float(s), T), what, float(arg))
        p2 = prv(float(q), float(s), T, what, float(arg))
        label = f"q={q}: {'delta(' + arg + ')' if what == 'delta' else 'eps(' + arg + ')'}"
        R.out(f"| {label} | {fmt(r, 8)} | {t_(r)} | {fmt(p1, 8)} | {t_(p1)} | {fmt(p2, 8)} | "
              f"{t_(p2)} |")
    failure_table(R)

    R.out()
    R.out("## T = 10^7 and a heterogeneous product")
    R.out()
    R.out("| workload | ours | time | memory | dp_acc. default | time | memory |")
    R.out("|---|---|---|---|---|---|---|")
    if not a.quick:
        r = ours_eps(f"ta.noisy_sgd(sp.Rational({s0!r}), sp.Rational({q0!r}), 10**7, "
                     "sampling='poisson')", "1e-5")
        p = dpa(sgd_event(256 / 60000, 1.1, 10**7), "eps", 1e-5)
        R.out(f"| DP-SGD T = 10^7, eps(1e-5) | {fmt(r, 8)} | {t_(r)} | {m_(r)} | {fmt(p, 8)} | "
              f"{t_(p)} | {m_(p)} |")
    het = "ta.G(sp.Rational(1, 3))**100 @ ta.Laplace(sp.Rational(1, 10))**100"
    r = ours_eps(het, "1e-6")
    hev = ("dp_event.ComposedDpEvent([dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(3.0), "
           "100), dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(10.0), 100)])")
    p = dpa(hev, "eps", 1e-6)
    R.out(f"| G(1/3)^100 (x) L(1/10)^100, eps(1e-6) | {fmt(r, 8)} | {t_(r)} | {m_(r)} | "
          f"{fmt(p, 8)} | {t_(p)} | {m_(p)} |")

    R.out()
    R.out("## Closed forms: point evaluation and curves")
    R.out()
    R.out("| workload | ours | scipy |")
    R.out("|---|---|---|")
    r = run(OURS + "\nimport numpy as np\nta.evaluate(ta.G(1), 0.5, dps=15)  # lazy imports",
            "xs = [sp.Rational(i, 1001) for i in range(1, 1001)]\n"
            "for x in xs: ta.evaluate(ta.G(1), x, dps=15)\n"
            "out = 0.0")
    s = run("from scipy.stats import norm",
            "for i in range(1, 1001): norm.cdf(norm.ppf(1 - i / 1001) - 1)\nout = 0.0")
    R.out(f"| G(1) at 1000 levels, dps 15, per point | {r['t']:.3g} ms | "
          f"{s['t']:.3g} ms (scipy.stats scalar) |".replace(" ms |", " ms |"))
    r = run(OURS + "\nimport numpy as np\nta.curve(ta.G(1), [0.5])  # scipy.special's import",
            "x = np.linspace(0, 1, 10**6)\ny = ta.curve(ta.G(1), x)\nout = 0.0")
    s = run("import numpy as np\nfrom scipy.special import ndtr, ndtri",
            "x = np.linspace(0, 1, 10**6)\ny = ndtr(ndtri(1 - x) - 1)\nout = 0.0")
    R.out(f"| G(1).curve on 10^6 levels | {r['t'] * 1e3:.0f} ms | {s['t'] * 1e3:.0f} ms "
          "(ndtr(ndtri(1 - x) - 1)) |")
    imp = run("", "import tradeoff_algebra\nout = 0.0")
    imp2 = run("", "import dp_accounting\nout = 0.0")
    R.out(f"| import | {imp['t']:.2f} s | dp_accounting {imp2['t']:.2f} s |")

    R.out()
    R.out("## Cold start: a fresh process, from the first import to the DP-SGD eps(1e-5)")
    R.out()
    R.out("| who | eps | time |")
    R.out("|---|---|---|")
    r = run("", f"{OURS.replace(chr(10) + 'import scipy.special, scipy.fft', '')}\n"
                f"f = {sgd}\nv = ta.epsilon(f, sp.Rational('1e-5'), dps=12)\n"
                "out = [float(v.lo), float(v.hi)]")
    p = run("", f"{DPA}\nacc = pa.PLDAccountant()\nacc.compose({ev})\n"
                "out = acc.get_epsilon(1e-5)")
    R.out(f"| ours (default tol) | {fmt(r, 8)} | {t_(r)} |")
    R.out(f"| dp_accounting (default grid) | {fmt(p, 8)} | {t_(p)} |")
    R.write(a.write)


if __name__ == "__main__":
    main()
