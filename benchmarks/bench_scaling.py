"""Scaling of the composition routes: CPU time against the number of factors k, the number of
steps T and the tolerance, with the exponents fitted by least squares of log time on log k,
log T and log(1/tol), beside dp_accounting's default PLD accountant where it runs in seconds.
Each point runs in a fresh process (imports excluded from the times, the expression's
construction included, as the peer's event construction is; CPU time by
``time.process_time``), and each of our results is checked in the same run:

* L_{1/10}^{(x) k}, eps(1e-6), k = 2, 3, 5, 10 .. 10^6: against ``bench_laplace.reference`` (the
  lattice split or the whole law's inversion at width 1e-12 / 1e-13, certified; the PLD engine
  at tol 1e-8, an estimate, at k <= 10);
* f_{1/10,0}^{(x) k}, eps(1e-6), k = 2, 3, 5, 10 .. 10^6: against the exact sum (Kairouz, Oh &
  Viswanath): delta(eps) = sum over l < (k - eps/eps0)/2 of Binom(k, 1/(1 + e^eps0))(l)
  (1 - e^{eps - eps0 (k - 2l)}), in mpmath at 40 digits over the l within 60 standard
  deviations of the mean; the check is that this delta at our two ends brackets 1e-6;
* DP-SGD (p = 256/60000, sigma = 1.1, Poisson), eps(1e-5), T = 10 .. 10^7, and the
  Poisson-subsampled Laplace mechanism (p = 1/100, b = 1, add/remove), eps(1e-5),
  T = 2, 3, 5, 10, 20, 50, 100 .. 10^6: our lower end at most dp_accounting's pessimistic
  value (an upper bound at its grid) where it ran;
* the width reached against the tolerance (DP-SGD, T = 14063): each enclosure contains the
  tightest one of the run.

    python benchmarks/bench_scaling.py [--quick] [--series lap,rr,slap] [--write PATH]
"""

from __future__ import annotations

import argparse
import math
import os

import mpmath
from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import sympy as sp
import mpmath
import tradeoff_algebra as ta
import scipy.special, scipy.fft
D = sp.Rational({delta!r})  # (the level is given, as the peer's float literal is: not timed)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
f = {expr}  # (the construction timed too, as the peer's event is)
with ta.pld_options(tol={tol}):
    v = ta.epsilon(f, D, dps=20)
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
from tradeoff_algebra.numeric.context import mp
with mp.workdps(60):  # a point Value carries its dps digits: the interval it claims
    lo, hi = v.interval()
    lo, hi = mpmath.nstr(lo, 40), mpmath.nstr(hi, 40)
print(json.dumps({{"lo": lo, "hi": hi, "t": t, "mem": mem, "g": v.guarantee,
                   "route": v.route}}))
"""

_PEER = r"""
import json, resource, sys, time
{imports}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
{body}
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps({{"lo": e, "hi": e, "t": t, "mem": mem}}))
"""

_DPA = ("from dp_accounting import dp_event\n"
        "from dp_accounting.pld import pld_privacy_accountant as pa")
_DPA_RR = ("from dp_accounting.pld import privacy_loss_distribution as pld, common")

SGD = "ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), {n}, sampling='poisson')"
SLAP = "ta.laplace_mechanism(1, 1, sampling='poisson', p=sp.Rational(1, 100))**{n}"


def ours(expr: str, delta: str, tol: float = 5e-4, timeout: float = 600) -> dict:
    return child_json(_CHILD.format(root=ROOT, expr=expr, tol=tol, delta=delta), timeout)


def peer(kind: str, n: int, delta: float, timeout: float = 600) -> dict:
    """dp_accounting's default PLD accountant: eps(delta) of the workload ``kind`` at n."""
    if kind == "rr":
        body = ("b = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(0.1, 0.0))\n"
                f"e = b.self_compose({n}).get_epsilon_for_delta({delta})")
        return child_json(_PEER.format(imports=_DPA_RR, body=body), timeout)
    ev = {"sgd": f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent({256 / 60000!r}, "
                 f"dp_event.GaussianDpEvent(1.1)), {n})",
          "slap": "dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, "
                  f"dp_event.LaplaceDpEvent(1.0)), {n})",
          "lap": f"dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(10.0), {n})"}[kind]
    body = f"acc = pa.PLDAccountant()\nacc.compose({ev})\ne = acc.get_epsilon({delta})"
    return child_json(_PEER.format(imports=_DPA, body=body), timeout)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x (nan when the x are all equal)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / den if den else math.nan


_M = mpmath.MPContext()
_M.dps = 40


def rr_delta(k: int, eps, eps0=None):
    """delta(eps) of f_{eps0,0}^{(x) k} (randomized response composed k times) by the exact sum
    of the module docstring, in mpmath at 40 digits; ``eps``, ``eps0`` as strings or mpf."""
    m = _M
    e0 = m.mpf(1) / 10 if eps0 is None else m.mpf(eps0)
    e = m.mpf(eps)
    q = 1 / (1 + m.exp(e0))  # the probability of the outcome of loss -eps0 under P
    mean, sd = k * q, m.sqrt(k * q * (1 - q))
    lmax = int(m.ceil((k - e / e0) / 2)) - 1  # the last l with eps0 (k - 2l) > eps
    l0 = max(0, int(mean - 60 * sd))
    if lmax < l0:
        return m.zero
    term = m.exp(m.loggamma(k + 1) - m.loggamma(l0 + 1) - m.loggamma(k - l0 + 1)
                 + l0 * m.log(q) + (k - l0) * m.log(1 - q))
    tot, r = m.zero, q / (1 - q)
    for li in range(l0, lmax + 1):
        tot += term * (1 - m.exp(e - e0 * (k - 2 * li)))
        term *= (k - li) * r / (li + 1)
    return tot


def _fmt(r: dict, digits: int = 13) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    return f"[{float(r['lo']):.{digits}g}, {float(r['hi']):.{digits}g}]"


def _w(r: dict) -> str:
    if "error" in r:
        return "-"
    lo, hi = float(r["lo"]), float(r["hi"])
    from fractions import Fraction

    w = (Fraction(r["hi"]) - Fraction(r["lo"])) / Fraction(r["hi"]) if hi else 0
    return f"{float(w):.1e}" if w else "< 1e-20" if lo == hi else "-"


def _t(t: float) -> str:
    """A CPU time: milliseconds with two decimals below 10 ms (the few-composition queries),
    else seconds."""
    return f"{t * 1e3:.2f} ms" if t < 0.01 else f"{t:.3f} s"


def _series(R: Report, title: str, var: str, ns: list[int], expr: str, delta: str,
            check, peer_kind: str | None, peer_max: int, unit: str) -> None:
    R.out()
    R.out(f"## {title}")
    R.out()
    R.out(f"| {var} | ours [lo, hi] | rel. width | guarantee | CPU | memory | check | "
          "dp_accounting default | its CPU |")
    R.out("|---|---|---|---|---|---|---|---|---|")
    xs, ts, pxs, pts, ratios = [], [], [], [], []
    for n in ns:
        r = ours(expr.format(n=n), delta)
        p = peer(peer_kind, n, float(eval(delta))) if peer_kind and n <= peer_max else None
        ck = "-" if "error" in r else check(n, r, p)
        if "error" in r or r["g"] != "certified":
            NOT_CERTIFIED.append(f"{title}, {var} = {n}: "
                                 + (f"error {r['error']}" if "error" in r else r["g"]))
        if "error" not in r and r["t"] > 0:
            xs.append(n)
            ts.append(r["t"])
        if p is not None and "error" not in p and p["t"] > 0:
            pxs.append(n)
            pts.append(p["t"])
            if "error" not in r and n <= 10:
                ratios.append(f"{n}: {r['t'] / p['t']:.2f}")
        pv = "not run" if p is None else f"error: {p['error']}" if "error" in p else \
            f"{p['lo']:.10g}"
        pt = "-" if p is None or "error" in p else _t(p["t"])
        R.out(f"| {n} | {_fmt(r)} | {_w(r)} | {r.get('g', '-')} | "
              + ("-" if "error" in r else f"{_t(r['t'])} | {r['mem']:.0f} MiB")
              + f" | {ck} | {pv} | {pt} |")
    R.out()
    line = f"Fitted exponent of CPU time against {unit}: ours " + (
        f"{slope(xs, ts):.2f} ({len(xs)} points, {xs[0]} to {xs[-1]})" if len(xs) >= 2 else "-")
    if len(pxs) >= 2:
        line += f"; dp_accounting {slope(pxs, pts):.2f} ({pxs[0]} to {pxs[-1]})"
    R.out(line + ".")
    if ratios:
        R.out()
        R.out(f"CPU time ours / dp_accounting's at {var} = " + ", ".join(ratios) + ".")
    EXPONENTS.append((title, unit, slope(xs, ts) if len(xs) >= 2 else None,
                      slope(pxs, pts) if len(pxs) >= 2 else None))


EXPONENTS: list = []
NOT_CERTIFIED: list = []


def _below_peer(n: int, r: dict, p: dict | None) -> str:
    if p is None or "error" in p:
        return "not checked"
    return "lo <= dp_accounting's pessimistic" if float(r["lo"]) <= p["lo"] * (1 + 1e-12) else \
        "**lo ABOVE dp_accounting's pessimistic**"


def _tolerances(R: Report, title: str, expr: str, delta: str, tols: list[float]) -> None:
    """CPU time against the tolerance asked and the width reached; each enclosure checked to
    contain the tightest of the series."""
    R.out()
    R.out(f"## CPU time against the tolerance, {title}")
    R.out()
    R.out("| tol | ours [lo, hi] | rel. width | guarantee | CPU | memory | check |")
    R.out("|---|---|---|---|---|---|---|")
    res = [(tol, ours(expr, delta, tol)) for tol in tols]
    ok = [(tol, r) for tol, r in res if "error" not in r]
    tight = min(ok, key=lambda x: float(x[1]["hi"]) - float(x[1]["lo"]))[1] if ok else None
    ws, ts, its = [], [], []
    for tol, r in res:
        if "error" in r:
            R.out(f"| {tol:g} | error: {r['error']} | | | | | |")
            continue
        w = (float(r["hi"]) - float(r["lo"])) / float(r["hi"])
        ws.append(w)
        ts.append(r["t"])
        its.append(1 / tol)
        c = "contains the tightest" if float(r["lo"]) <= float(tight["lo"]) and \
            float(tight["hi"]) <= float(r["hi"]) else "**misses the tightest**"
        R.out(f"| {tol:g} | {_fmt(r, 14)} | {w:.1e} | {r['g']} | {r['t']:.3f} s | "
              f"{r['mem']:.0f} MiB | {c} |")
    if len(ws) >= 2:
        a, b = slope(its, ts), slope(ws, ts)
        R.out()
        R.out(f"Fitted exponents: CPU time ~ (1/tol)^{a:.2f}, and ~ width^{b:.2f} against the "
              "width reached" + (" (one width throughout)" if math.isnan(b) else "") + ".")
        EXPONENTS.append((f"{title}: against 1/tol", "1/tol", a, None))
        EXPONENTS.append((f"{title}: against the width reached", "width", b, None))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--quick", action="store_true", help="fewer points per series")
    ap.add_argument("--series", metavar="NAMES", help="a comma-separated subset of lap, rr, "
                    "sgd, slap, tol (default: all)")
    args = ap.parse_args()
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_laplace as bl

    R = Report()
    R.out("# Scaling of the composition routes")
    R.out()
    R.out(run_line("python benchmarks/bench_scaling.py" + (" --quick" if args.quick else "")
                   + (f" --series {args.series}" if args.series else ""),
                   ("dp-accounting", "python-flint")) + "; each point in a fresh process, CPU "
          "time without the imports (the expression's construction included, as the peer's "
          "event is; the level parsed from its string before the clock starts), memory the "
          "peak resident size above them; default "
          "tolerance 5e-4 unless said otherwise. Single runs on a shared machine: times below "
          "0.05 s are dominated by noise, and so are the exponents of flat series.")
    def decades(a: int, b: int, few: tuple = ()) -> list[int]:
        """Powers of ten from 10^a to 10^b, after the few-composition points ``few`` (one
        report is a few queries: k = 2, 3, 5)."""
        return list(few) + [10**i for i in range(a, b + 1)][::2 if args.quick else 1]

    series = set(args.series.split(",")) if args.series else {"lap", "rr", "sgd", "slap", "tol"}

    def lap_check(k: int, r: dict, p) -> str:
        laws = f"[(LaplaceLaw(Fraction(1, 10)), {k})]"
        split = "pld" if k <= 10 else {100: 8, 1000: 4}.get(k)
        ref = bl.reference(str(k) if split == "pld" else laws, 1e-6, split)
        if "error" in ref:
            return f"reference failed: {ref['error']}"
        rl, rh = ref["out"][:2]
        name = "PLD engine 1e-8" if split == "pld" else f"split J = {split}" if split else \
            "whole 1e-13"
        ok = float(r["lo"]) <= rh and rl <= float(r["hi"])
        return f"{'meets' if ok else '**MISSES**'} {name} [{rl:.13g}, {rh:.13g}]"

    if "lap" in series:
        _series(R, "L(1/10)^(x)k, eps(1e-6)", "k", decades(1, 6, (2, 3, 5)),
                "ta.Laplace(sp.Rational(1, 10))**{n}", "1/1000000", lap_check, "lap", 10**4, "k")

    def rr_check(k: int, r: dict, p) -> str:
        dlo, dhi = rr_delta(k, r["lo"]), rr_delta(k, r["hi"])
        target = _M.mpf(1) / 10**6
        ok = dlo >= target >= dhi
        return (f"exact delta at the ends 1e-6 (1 + {mpmath.nstr(dlo / target - 1, 2)}) / "
                f"1e-6 (1 + {mpmath.nstr(dhi / target - 1, 2)}): "
                + ("brackets 1e-6" if ok else "**does not bracket 1e-6**"))

    if "rr" in series:
        _series(R, "f_{1/10,0}^(x)k (randomized response), eps(1e-6)", "k",
                decades(1, 6, (2, 3, 5)), "ta.EpsDelta(sp.Rational(1, 10), 0)**{n}", "1/1000000",
                rr_check, "rr", 10**4, "k")
    if "sgd" in series:
        _series(R, "DP-SGD (q = 256/60000, sigma = 1.1, Poisson), eps(1e-5)", "T", decades(1, 7),
                SGD, "1/100000", _below_peer, "sgd", 10**7, "T")
    if "slap" in series:
        _series(R, "Poisson-subsampled Laplace (q = 1/100, b = 1, add/remove), eps(1e-5)", "T",
                decades(1, 6, (2, 3, 5)) if args.quick else
                [2, 3, 5, 10, 20, 50, 100, 1000, 10**4, 10**5, 10**6], SLAP, "1/100000",
                _below_peer, "slap", 10**5, "T")

    tols = [5e-3, 5e-4, 5e-6, 1e-9, 1e-12] if not args.quick else [5e-3, 1e-9]
    if "tol" in series:
        _tolerances(R, "DP-SGD (sigma = 1.1, T = 14063), eps(1e-5)", SGD.format(n=14063),
                    "1/100000", tols)
        _tolerances(R, "L(1/10)^(x)100, eps(1e-6)", "ta.Laplace(sp.Rational(1, 10))**100",
                    "1/1000000", tols)
    R.out()
    R.out("## Fitted exponents")
    R.out()
    R.out("| series | variable | ours | dp_accounting |")
    R.out("|---|---|---|---|")
    for title, unit, a, b in EXPONENTS:
        R.out(f"| {title} | {unit} | {'-' if a is None else f'{a:.2f}'} | "
              f"{'-' if b is None else f'{b:.2f}'} |")
    R.out()
    R.out("Points not certified: " + ("; ".join(NOT_CERTIFIED) or "none") + ".")
    R.write(args.write)


if __name__ == "__main__":
    main()
