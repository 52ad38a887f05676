"""Replace-one DP-SGD, PoissonReplace(1/sigma, q)^k, beside dp_accounting: eps(1e-5) and
delta(1), each call in a fresh process (imports excluded): CPU seconds and peak MB above the
imports, ours certified by the Laplace inversion of the step's Arb loss law
(families/poisson_replace_law.py) at the default tolerance and under ``pld_options(tol=1e-9)``,
dp_accounting's ``PLDAccountant(REPLACE_ONE)`` (grid 1e-4) with
``PoissonSampledDpEvent(q, GaussianDpEvent(sigma))`` composed k times beside. check: our interval
meets [optimistic, pessimistic] of dp_accounting's REPLACE_ONE PLD pair at grid 1e-5
(connect-the-dots for the pessimistic one; float64, not proved). prv_accountant has no
replace-one relation for its subsampled Gaussian (its PoissonSubsampledGaussianMechanism is
the add/remove pair), so it is not run.

    python benchmarks/bench_poisson_replace.py [--quick | --few | --points | --targets
        [--sigma S ...]] [--write benchmarks/RESULTS_poisson_replace.md]
"""

from __future__ import annotations

import argparse
import os

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = r"""
import json, math, resource, sys, time, warnings
sys.path.insert(0, {root!r})
{imports}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
{body}
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
warned = [type(w.message).__name__ for w in caught]
print(json.dumps(dict(out=out, t=t, mem=mem, warned=warned)))
"""

OURS = "import sympy as sp\nimport tradeoff_algebra as ta\nimport scipy.special, scipy.fft"
DPA = ("from dp_accounting import dp_event, NeighboringRelation as NR\n"
       "from dp_accounting.pld import pld_privacy_accountant as pa")
PAIR = ("from dp_accounting import NeighboringRelation as NR\n"
        "from dp_accounting.pld import privacy_loss_distribution as pld")


def run(imports: str, body: str, timeout: int = 600) -> dict:
    body = "\n".join("    " + line for line in body.splitlines())
    return child_json(_PRELUDE.format(root=ROOT, imports=imports, body=body), timeout)


def ours(sigma: str, q: str, k: int, kind: str, tol: str | None) -> dict:
    opts = "ta.pld_options()" if tol is None else f"ta.pld_options(tol={tol})"
    arg = "sp.Rational(1, 100000)" if kind == "epsilon" else "1"
    node = f"ta.PoissonReplace(1 / sp.Rational({sigma!r}), sp.Rational({q!r})) ** {k}"
    return run(OURS, f"f = {node}\n"
                     f"with {opts}, ta.time_limit(60):\n"
                     f"    v = ta.{kind}(f, {arg}, dps=20)\n"
                     "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")


def dpa(sigma: str, q: str, k: int, kind: str) -> dict:
    ev = (f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(float(eval({q!r})), "
          f"dp_event.GaussianDpEvent(float(eval({sigma!r})))), {k})")
    call = "acc.get_epsilon(1e-5)" if kind == "epsilon" else "acc.get_delta(1.0)"
    return run(DPA, f"acc = pa.PLDAccountant(NR.REPLACE_ONE)\nacc.compose({ev})\nout = {call}")


def dpa_pair(sigma: str, q: str, k: int) -> dict:
    """[[eps_opt, eps_pess], [delta_opt, delta_pess]]: eps(1e-5) and delta(1) of the pair."""
    body = ("out = [[], []]\n"
            "for pess in (False, True):\n"
            f"    p = pld.from_gaussian_mechanism(float(eval({sigma!r})),\n"
            "        pessimistic_estimate=pess,\n"
            f"        sampling_prob=float(eval({q!r})), value_discretization_interval=1e-5,\n"
            "        use_connect_dots=pess, neighboring_relation=NR.REPLACE_ONE)\n"
            f"    p = p.self_compose({k})\n"
            "    out[0].append(p.get_epsilon_for_delta(1e-5))\n"
            "    out[1].append(p.get_delta_for_epsilon(1.0))\n")
    return run(PAIR, body, timeout=900)


def ours_point(sigma: str, q: str, k: int, kind: str) -> dict:
    """roc(1e-3), evaluate(1/10) or the curve at 101 levels (its largest width) under
    ``pld_options(tol=1e-9)``."""
    node = f"ta.PoissonReplace(1 / sp.Rational({sigma!r}), sp.Rational({q!r})) ** {k}"
    if kind == "curve":
        call = ("    import numpy as np\n"
                "    lo, hi = f.curve(np.linspace(0, 1, 101), bounds=True)\n"
                "out = [float(np.max(hi - lo)), 'curve', 'bounds']")
    else:
        arg = "sp.Rational(1, 1000)" if kind == "roc" else "sp.Rational(1, 10)"
        call = (f"    v = ta.{kind}(f, {arg}, dps=20)\n"
                "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")
    return run(OURS, f"f = {node}\nwith ta.pld_options(tol=1e-9), ta.time_limit(60):\n{call}")


def points(R: Report) -> None:
    R.out("## roc(1e-3), f(1/10) and the curve, sigma = 1.1, q = 1/100, tol 1e-9")
    R.out()
    R.out("No peer computes these for the replace-one pair (riskcal's DP-SGD is add/remove).")
    R.out()
    R.out("| k | roc(1e-3) | rel. width | guarantee | CPU s | f(1/10) | rel. width | guarantee | "
          "CPU s | curve (101 levels): largest width | CPU s | warnings |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in (10, 100, 1000, 10_000):
        p, v, c = (ours_point("1.1", "1/100", k, kind) for kind in ("roc", "evaluate", "curve"))
        warned = sorted({w for r in (p, v, c) for w in r.get("warned", [])})
        cw = "-" if "error" in c else f"{c['out'][0]:.1e}"
        R.out(f"| {k} | {fmt(p)} | {rel(p)} | {'' if 'error' in p else p['out'][3]} | "
              f"{num(p, 't', 3)} | {fmt(v)} | {rel(v)} | {'' if 'error' in v else v['out'][3]} | "
              f"{num(v, 't', 3)} | {cw} | {num(c, 't', 3)} | {','.join(warned) or 'none'} |")
    R.out()


def fmt(r: dict) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    o = r["out"]
    return f"[{o[0]:.10g}, {o[1]:.10g}]" if isinstance(o, list) else f"{o:.10g}"


def rel(r: dict) -> str:
    if "error" in r:
        return ""
    lo, hi = r["out"][0], r["out"][1]
    return f"{(hi - lo) / hi:.1e}" if hi > 0 else "0"


def num(r: dict, key: str, digits: int) -> str:
    return "-" if r.get(key) is None else f"{r[key]:.{digits}f}"


def check(o: dict, pair: dict, kind: str) -> str:
    if "error" in o or "error" in pair:
        return "-"
    lo, hi = o["out"][0], o["out"][1]
    opt, pess = pair["out"][0 if kind == "epsilon" else 1]
    a, b = min(opt, pess), max(opt, pess)
    if lo <= b * (1 + 1e-12) and a * (1 - 1e-12) <= hi:
        return "meets"
    return f"MISSES [{a:.10g}, {b:.10g}]"


def table(R: Report, steps: tuple[int, ...], pairs: dict) -> None:
    """The eps(1e-5) and delta(1) tables at ``steps`` (the pair at grid 1e-5 for k <= 1000:
    minutes beyond)."""
    for kind in ("epsilon", "delta"):
        R.out(f"## {'eps(1e-5)' if kind == 'epsilon' else 'delta(1)'}, q = 1/100")
        R.out()
        R.out("| sigma | k | ours, default tol | rel. width | guarantee | CPU s | MB | "
              "ours, tol 1e-9 | rel. width | guarantee | warning | CPU s | MB | "
              "dp_accounting | CPU s | MB | check (1e-9 row) |")
        R.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for sigma in ("0.8", "1.1", "2"):
            for k in steps:
                od = ours(sigma, "1/100", k, kind, None)
                ot = ours(sigma, "1/100", k, kind, "1e-9")
                d = dpa(sigma, "1/100", k, kind)
                if (sigma, k) not in pairs:
                    pairs[sigma, k] = dpa_pair(sigma, "1/100", k) if k <= 1000 else {"error": "-"}
                pair = pairs[sigma, k]
                warn = "" if "error" in ot else ",".join(sorted(set(ot["warned"]))) or "none"
                wd = "" if "error" in od else ",".join(sorted(set(od["warned"])))
                gd = "" if "error" in od else od["out"][3] + (f" ({wd})" if wd else "")
                R.out(f"| {sigma} | {k} | {fmt(od)} | {rel(od)} | {gd} | {num(od, 't', 3)} | "
                      f"{num(od, 'mem', 1)} | {fmt(ot)} | {rel(ot)} | "
                      f"{'' if 'error' in ot else ot['out'][3]} | {warn} | {num(ot, 't', 3)} | "
                      f"{num(ot, 'mem', 1)} | {fmt(d)} | {num(d, 't', 3)} | {num(d, 'mem', 1)} | "
                      f"{check(ot, pair, kind)} |")
        R.out()


def targets(R: Report, sigmas: tuple[str, ...] = ("1", "2"), far: bool = True) -> None:
    """k = 3, 10, 30 at ``sigmas`` (q = 1/100) at the default tolerance beside
    dp_accounting's REPLACE_ONE accountant, checked against its optimistic/pessimistic pair at
    grid 1e-5 (one pair per (sigma, k) for both tables); then the far tail (sigma = 8,
    q = 1/1000, k = 10^4, delta(1)) where ``far``."""
    pairs: dict = {}
    for kind in ("epsilon", "delta"):
        R.out(f"## Targets: {'eps(1e-5)' if kind == 'epsilon' else 'delta(1)'}, q = 1/100, "
              "default tolerance")
        R.out()
        R.out("| sigma | k | ours | rel. width | guarantee | CPU s | MB | dp_accounting | CPU s | "
              "MB | ours / dp CPU | check (pair, grid 1e-5) |")
        R.out("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for sigma in sigmas:
            for k in (3, 10, 30):
                o = ours(sigma, "1/100", k, kind, None)
                d = dpa(sigma, "1/100", k, kind)
                if (sigma, k) not in pairs:
                    pairs[sigma, k] = dpa_pair(sigma, "1/100", k)
                pair = pairs[sigma, k]
                w = "" if "error" in o else ",".join(sorted(set(o["warned"])))
                g = "" if "error" in o else o["out"][3] + (f" ({w})" if w else "")
                ratio = ("-" if "error" in o or "error" in d
                         else f"{o['t'] / max(d['t'], 1e-9):.2f}")
                R.out(f"| {sigma} | {k} | {fmt(o)} | {rel(o)} | {g} | {num(o, 't', 3)} | "
                      f"{num(o, 'mem', 1)} | {fmt(d)} | {num(d, 't', 3)} | {num(d, 'mem', 1)} | "
                      f"{ratio} | {check(o, pair, kind)} |")
        R.out()
    if not far:
        return
    R.out("## Far tail: sigma = 8, q = 1/1000, k = 10^4, delta(1), default tolerance")
    R.out()
    R.out("| ours | guarantee | warnings | CPU s | MB | dp_accounting | CPU s | MB |")
    R.out("|---|---|---|---|---|---|---|---|")
    o = ours("8", "1/1000", 10_000, "delta", None)
    d = dpa("8", "1/1000", 10_000, "delta")
    w = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
    R.out(f"| {fmt(o)} | {'' if 'error' in o else o['out'][3]} | {w} | {num(o, 't', 3)} | "
          f"{num(o, 'mem', 1)} | {fmt(d)} | {num(d, 't', 3)} | {num(d, 'mem', 1)} |")
    R.out()


def _append(R, path) -> None:
    """Append the report's rows to ``path`` (nothing without --write)."""
    if path:
        with open(path, "a") as fh:
            fh.write("\n" + "\n".join(R.rows) + "\n")


def _section(path, title: str, flag: str, body) -> None:
    """A titled section with its command line and packages, ``body(R)`` its rows, appended."""
    R = Report()
    R.out(title)
    R.out()
    R.out(run_line(f"nice python benchmarks/bench_poisson_replace.py {flag}",
                   ("numpy", "mpmath", "python-flint", "dp-accounting")))
    R.out()
    body(R)
    _append(R, path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", default=None)
    ap.add_argument("--points", action="store_true",
                    help="only the roc, value and curve rows, appended to --write")
    ap.add_argument("--few", action="store_true",
                    help="only k = 2, 3, 10 (the few-step routes), appended to --write")
    ap.add_argument("--targets", action="store_true",
                    help="only k = 3, 10, 30 at sigma = 1, 2 and the far tail, appended to --write")
    ap.add_argument("--sigma", action="append", default=None,
                    help="with --targets: only these sigmas (repeatable), no far tail")
    a = ap.parse_args()
    if a.targets and a.sigma:
        sig = tuple(a.sigma)
        _section(a.write, f"## Targets (k = 3, 10, 30; sigma = {', '.join(sig)})",
                 "--targets " + " ".join(f"--sigma {x}" for x in sig),
                 lambda R: targets(R, sig, far=False))
        return
    if a.targets:
        _section(a.write, "## Targets (k = 3, 10, 30; sigma = 1, 2) and the far tail",
                 "--targets", targets)
        return
    if a.few:
        _section(a.write, "## Few steps (k = 2, 3, 10), q = 1/100", "--few",
                 lambda R: table(R, (2, 3, 10), {}))
        return
    if a.points:
        R = Report()
        points(R)
        _append(R, a.write)
        return
    R = Report()
    R.out("# Replace-one DP-SGD: PoissonReplace(1/sigma, q)^k certified, beside dp_accounting")
    R.out()
    cmd = "nice python benchmarks/bench_poisson_replace.py" + (" --quick" if a.quick else "")
    R.out(run_line(cmd,
                   ("numpy", "mpmath", "python-flint", "dp-accounting")))
    R.out()
    R.out(__doc__.split("\n\n")[0].replace("\n", " "))
    R.out()
    steps = (10, 100, 1000) if a.quick else (10, 100, 1000, 10_000)
    table(R, steps, {})
    R.write(a.write)


if __name__ == "__main__":
    main()
