"""The power 1 - f(alpha) and whole trade-off curves of products beyond DP-SGD (Laplace,
discrete Gaussian, randomized response, Gaussian (x) Laplace), certified by the band of their
privacy profile (``routes/profile_curve.py``), beside dp_accounting's PLD read by riskcal
(``get_beta_from_pld``). Each call in a fresh process; CPU seconds (``time.process_time``)
without the imports, peak memory above them. One ``ta.epsilon`` of the same product at the
same tolerance gives the scale of a single call.

References, independent of the library: G(1) (x) Laplace(1) by 30-digit quadrature of its two
loss laws (the Neyman-Pearson test at level alpha); DG(1, 10)^100 by the law of the sum of the
noises (the loss is linear in it) as one python-flint ``arb_poly`` power, its Neyman-Pearson
curve summed from the largest sum down; Laplace(1/10)^1000 and RR(1, 3)^1000 by dp_accounting's
optimistic and pessimistic PLDs at grid 1e-5 read by riskcal (a bracket up to float errors).

    python benchmarks/bench_profile_curve.py [--write benchmarks/RESULTS_profile_curve.md]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _report import Report, child_json, run_line  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_HEAD = r"""
import functools, json, resource, sys, time, warnings
sys.path.insert(0, {root!r})
import numpy as np
import sympy as sp
"""

_OURS = _HEAD + r"""
import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
R = sp.Rational
f = {expr}
warnings.simplefilter("ignore")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with ta.pld_options(tol={tol}):
    {call}
cpu = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(dict(cpu=cpu, mem=mem, **out)))
"""

_ROC = r"""v = ta.roc(f, R(1, 100))
    with mp.workdps(30):
        out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=v.route)"""
_EPS = r"""v = ta.epsilon(f, R(1, 10**6))
    with mp.workdps(30):
        out = dict(lo=float(v.lo), hi=float(v.hi), g=v.guarantee, route=v.route)"""
_CURVE = r"""x = np.linspace(0, 1, 101)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lo, hi = ta.curve(f, x, bounds=True)
    i = 1  # alpha = 0.01
    rel = float(np.max((hi - lo)[1:-1] / np.maximum(1 - lo[1:-1], 1e-300)))
    out = dict(lo=float(1 - hi[i]), hi=float(1 - lo[i]), rel=rel,
               g="estimate" if any("estimate" in str(m.message) for m in w) else "certified",
               route="ta.curve, bounds=True")"""

_PEER = _HEAD + r"""
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # (a grid past 4 GiB: an error row)
from dp_accounting.pld import privacy_loss_distribution as P
from dp_accounting.pld import common
from riskcal.analysis import get_beta_from_pld
warnings.simplefilter("ignore")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
out = {{}}
for pess in {sides}:
    pld = {build}
    b = get_beta_from_pld(pld, alpha=np.array([0.01]))
    out["pess" if pess else "opt"] = 1 - float(np.ravel(b)[0])
    if {curve}:
        get_beta_from_pld(pld, alpha=np.linspace(0, 1, 101))
cpu = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(dict(cpu=cpu, mem=mem, **out)))
"""

ROWS = [
    ("Laplace(1/10)^1000", "ta.TensorPower(ta.Laplace(R(1, 10)), 1000)",
     "P.from_laplace_mechanism(10.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).self_compose(1000)"),
    ("Laplace(1/10)^100", "ta.TensorPower(ta.Laplace(R(1, 10)), 100)",
     "P.from_laplace_mechanism(10.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).self_compose(100)"),
    ("Laplace(1)^2", "ta.TensorPower(ta.Laplace(1), 2)",
     "P.from_laplace_mechanism(1.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).self_compose(2)"),
    ("G(1) (x) Laplace(1)", "ta.Tensor(ta.G(1), ta.Laplace(1))",
     "P.from_gaussian_mechanism(1.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).compose(P.from_laplace_mechanism(1.0, sensitivity=1, "
     "pessimistic_estimate=pess, value_discretization_interval={h}))"),
    ("DG(1, 10)^100", "ta.TensorPower(ta.DiscreteGaussian(1, 10), 100)",
     "P.from_discrete_gaussian_mechanism(10.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).self_compose(100)"),
    ("RR(1/10, 3)^1000", "ta.TensorPower(ta.randomized_response(R(1, 10), 3), 1000)",
     "P.from_randomized_response(3 / (2 + np.exp(0.1)), 3, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).self_compose(1000)"),
    ("Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3)",
     "ta.Tensor(ta.Laplace(1), ta.Laplace(R(1, 2)), ta.Laplace(R(1, 3)))",
     "P.from_laplace_mechanism(1.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}).compose(P.from_laplace_mechanism(2.0, sensitivity=1, "
     "pessimistic_estimate=pess, value_discretization_interval={h})).compose("
     "P.from_laplace_mechanism(3.0, sensitivity=1, pessimistic_estimate=pess, "
     "value_discretization_interval={h}))"),
    ("Laplace(1/10 + i/10^4), i < 100",
     "ta.Tensor(*[ta.Laplace(R(1, 10) + R(i, 10**4)) for i in range(100)])",
     "functools.reduce(lambda a, b: a.compose(b), [P.from_laplace_mechanism(1 / (0.1 + i / 1e4), "
     "sensitivity=1, pessimistic_estimate=pess, value_discretization_interval={h}) "
     "for i in range(100)])"),
]

#: Seconds a row's own calls may run (a child past it: "> limit s" in the table).
LIMITS = {"Laplace(1/10 + i/10^4), i < 100": 120}


def gl_reference() -> float:
    """1 - f(1/100) of G(1) (x) Laplace(1) by quadrature (as tests/test_profile_curve.py)."""
    import mpmath as mp

    mp.mp.dps = 30

    def bar(t):
        return mp.erfc(t / mp.sqrt(2)) / 2

    def tails(e):
        h, e1 = mp.mpf(1) / 2, mp.exp(-1)
        p = (bar(e + 1 + h) / 2 + e1 / 2 * bar(e - 1 + h)
             + mp.quad(lambda x: mp.exp(-x) / 2 * bar(e - (2 * x - 1) + h), [0, 1]))
        q = (e1 / 2 * bar(e + 1 - h) + bar(e - 1 - h) / 2
             + mp.quad(lambda x: mp.exp(x - 1) / 2 * bar(e - (2 * x - 1) - h), [0, 1]))
        return p, q

    eps = mp.findroot(lambda e: tails(e)[0] - mp.mpf(1) / 100, 1)
    return float(tails(eps)[1])


def l2_reference() -> float:
    """1 - f(1/100) of Laplace(1)^2 from the Irwin-Hall quadrature of its loss law
    (tests/references/laplace_sum.py): the threshold t with P(S > t) <= 1/100 <= P(S >= t) by
    bisection; S has atoms at -2, 0, 2, and where t is one of them the test is randomised
    (1/100 lies in the jump at the largest loss 2: P(S = 2) = e^-2/4)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from references.laplace_sum import tails

    from tradeoff_algebra.numeric.context import mp

    with mp.workdps(30):
        lo, hi = mp.mpf(0), mp.mpf(2)
        for _ in range(100):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if tails(mp.one, 2, m)[1] > mp.mpf(1) / 100 else (lo, m)
        atom = min((-2, 0, 2), key=lambda a: abs(hi - a))
        if abs(hi - atom) < mp.mpf(10) ** -25:
            q_gt, p_gt, q_eq, p_eq = tails(mp.one, 2, mp.mpf(atom))
            return float(q_gt + q_eq * (mp.mpf(1) / 100 - p_gt) / p_eq)
        return float(tails(mp.one, 2, (lo + hi) / 2)[0])


def mixed_reference() -> float:
    """1 - f(1/100) of Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3) from the factors' loss laws:
    where 1/100 lies inside the jump of P(S > t) at the largest loss l = 11/6 (every factor at
    +mu_i: P(S = l) = prod e^{-mu_i}/2, Q(S = l) = 1/8), the randomised test's power
    Q(S = l) (1/100) / P(S = l) = e^{11/6}/100; else the threshold with P(S > t) = 1/100 by
    bisection on the nested 20-digit quadrature (tests/references/laplace_mixed.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from references.laplace_mixed import tail

    from tradeoff_algebra.numeric.context import mp

    with mp.workdps(30):
        mus = [mp.mpf(1), mp.mpf(1) / 2, mp.mpf(1) / 3]
        a = mp.mpf(1) / 100
        p_top = mp.fprod(mp.exp(-m) / 2 for m in mus)
        if a <= p_top:
            return float(a / p_top / 2 ** len(mus))
    with mp.workdps(20):
        lo, hi = mp.mpf(-sum(mus)), mp.mpf(sum(mus))
        for _ in range(60):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if tail(mus, False, m) > a else (lo, m)
        return float(tail(mus, True, hi))


def dg_reference(sigma: int = 10, n: int = 100) -> float:
    """1 - f(1/100) of DG(1, sigma)^n: the loss is (2 s - n)/(2 sigma^2) in s = sum of the
    noises, whose law is the n-th power of one discrete Gaussian's (an Arb polynomial); the test
    rejects from the largest s down, the boundary atom randomised."""
    from flint import arb, arb_poly, ctx

    ctx.prec = 200
    w = 12 * sigma
    xs = range(-w, w + 1)
    ws = [(arb(-x * x) / (2 * sigma * sigma)).exp() for x in xs]
    z = sum(ws, arb(0))
    p = arb_poly([v / z for v in ws]) ** n  # coefficient j: s = j - n w
    coef = [p[j] for j in range(2 * n * w + 1)]
    # under Q every noise is shifted by one: the law of s - n under P's polynomial
    alpha = arb(1) / 100
    used, power = arb(0), arb(0)
    for j in range(len(coef) - 1, n - 1, -1):
        ps, qs = coef[j], coef[j - n]
        if (used + ps) >= alpha or (used + ps).overlaps(alpha):
            return float((power + qs * (alpha - used) / ps).mid())
        used += ps
        power += qs
    return float(power.mid())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--only", default=None, help="the rows whose name holds this text")
    args = ap.parse_args()
    r = Report()
    r.out("# The power and whole curves of products beyond DP-SGD (fresh processes)")
    r.out("")
    r.out(run_line("python benchmarks/bench_profile_curve.py",
                   ("dp-accounting", "riskcal", "python-flint", "numpy")))
    r.out("")
    r.out("ours: `ta.epsilon(f, 1e-6)` and `ta.roc(f, 1/100)` under `pld_options(tol=1e-9)`, "
          "`ta.curve(f, 101 levels, bounds=True)` under `pld_options(tol=1e-6)` and, at the "
          "tolerance of the eps call, under `pld_options(tol=1e-9)` (its shown "
          "value: the power at 0.01; rel. width: the largest over the curve). dp_accounting "
          "PLD (pessimistic and optimistic, grid 1e-4 and 1e-5) read by riskcal's "
          "`get_beta_from_pld` at 0.01 (and at the 101 levels for the curve row). CPU seconds "
          "without imports, one run each; x eps call: the CPU over that of the eps(1e-6) row. "
          "The lattice products' bands are refined to the grid points just above the lattice "
          "losses near each level's minimiser (exact there: `numeric/profile_band.Lattice`). "
          "Laplace factors: the Neyman-Pearson points from certified loss tails "
          "(`routes/tail_laws.py`): G (x) Laplace inverted whole (the Gaussian law's power "
          "decay), Laplace^1000 with the lattice part bounded by its mass "
          "(`numeric/cf_split_tails.py`), the remainder's tails read from the whole law's "
          "nodes (`numeric/cf_split_whole.py`), one certified point per level on its inner side "
          "(`routes/tail_points.py`), few factors from exactly summed terms plus an "
          "inverted remainder (`numeric/cf_lattice_tails.py`): roc by a certified bracket of the "
          "level, whole curves from one set of tails for every level, one certified point at "
          "each level's float threshold and two beside an atom (`numeric/cf_lattice_curve.py`); "
          "few factors of different scales with every term summed exactly "
          "(`numeric/cf_mixed_tails.py`, roc and curves by the same band). Laplace(1)^2's "
          "reference: its 30-digit Irwin-Hall quadrature (`tests/references/laplace_sum.py`); "
          "the three scales': 20-digit nested quadrature of the loss laws "
          "(`tests/references/laplace_mixed.py`). The hundred scales: our calls limited to "
          f"{LIMITS['Laplace(1/10 + i/10^4), i < 100']} s each.")
    r.out("")
    refs = {"G(1) (x) Laplace(1)": (gl_reference, "30-digit quadrature"),
            "Laplace(1)^2": (l2_reference, "30-digit Irwin-Hall quadrature"),
            "DG(1, 10)^100": (dg_reference, "Arb polynomial power of the noise law"),
            "Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3)": (
                mixed_reference, "the randomised test at the largest loss 11/6 "
                "(P(S = 11/6) = e^{-11/6}/8 > 1/100): e^{11/6}/100")}
    r.out("| workload | who | question | value (power at 0.01 or eps) | guarantee | rel. width "
          "| CPU | x eps call | memory | check | route |")
    r.out("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, build in ROWS:
        if args.only and args.only not in name:
            continue
        peer = {}
        for h, sides in ((1e-4, "(True, False)"), (1e-5, "(True, False)")):
            o = child_json(_PEER.format(root=ROOT, sides=sides, build=build.format(h=h),
                                        curve="False"), 900)
            peer[h] = o
        ref = refs.get(name)
        if ref is not None:
            ref = (ref[0](), ref[1])
        bracket = None
        if ref is None and "error" not in peer[1e-5]:
            bracket = sorted((peer[1e-5]["opt"], peer[1e-5]["pess"]))
            ref = ((peer[1e-5]["opt"] + peer[1e-5]["pess"]) / 2,
                   f"dp_accounting grid 1e-5 bracket [{bracket[0]:.10g}, {bracket[1]:.10g}] "
                   "(its midpoint; up to float errors)")
        eps_cpu = None
        for what, call, tol in (("eps(1e-6)", _EPS, "1e-9"), ("roc(0.01)", _ROC, "1e-9"),
                                ("curve, 101 levels", _CURVE, "1e-6"),
                                ("curve, 101 levels, tol 1e-9", _CURVE, "1e-9")):
            o = child_json(_OURS.format(root=ROOT, expr=expr, tol=tol, call=call),
                           LIMITS.get(name, 900))
            if "error" in o:
                r.out(f"| {name} | ours | {what} | {o['error'][:80]} | | | | | | | |")
                continue
            if eps_cpu is None:
                eps_cpu = o["cpu"]
            ratio = f"{o['cpu'] / eps_cpu:.1f}" if eps_cpu and eps_cpu > 0 else "-"
            rel = o.get("rel", (o["hi"] - o["lo"]) / max(abs(o["hi"]), 1e-300))
            chk = "-"
            if bracket is not None and what != "eps(1e-6)":  # (a bracket, not a value)
                chk = ("inside the bracket" if bracket[0] <= o["lo"] and o["hi"] <= bracket[1]
                       else "meets the bracket" if o["lo"] <= bracket[1] and o["hi"] >= bracket[0]
                       else "outside the bracket")
            elif ref is not None and what != "eps(1e-6)":
                chk = ("contains" if o["lo"] <= ref[0] <= o["hi"]
                       else f"off by {min(abs(o['lo'] - ref[0]), abs(o['hi'] - ref[0])):.1e}")
            r.out(f"| {name} | ours | {what} | [{o['lo']:.12g}, {o['hi']:.12g}] | {o['g']} | "
                  f"{rel:.1e} | {o['cpu']:.2f} s | {ratio} | {o['mem']:.0f} MiB | {chk} | "
                  f"{o.get('route', '')} |")
        for h, o in peer.items():
            if "error" in o:
                r.out(f"| {name} | dp_accounting+riskcal, grid {h:g} | roc(0.01) | "
                      f"{o['error'][:80]} | | | | | | | |")
                continue
            chk = "-" if ref is None else f"error {abs(o['pess'] - ref[0]):.1e} (pessimistic)"
            r.out(f"| {name} | dp_accounting+riskcal, grid {h:g} | roc(0.01), both PLDs | "
                  f"{o['pess']:.10g} / {o['opt']:.10g} | estimate | - | {o['cpu']:.2f} s | - | "
                  f"{o['mem']:.0f} MiB | {chk} | - |")
        if ref is not None:
            r.out(f"| {name} | reference | roc(0.01) | {ref[0]:.12g} | {ref[1]} | | | | | | |")
    r.write(args.write)


if __name__ == "__main__":
    main()
