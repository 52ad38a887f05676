"""Randomized response composed many times, a discrete Gaussian beside a Laplace mechanism, and
delta far below a long composition's typical loss: ours (certified) beside dp_accounting's PLD,
each row in a fresh process (CPU time without the imports, peak resident memory above them).

The second table: finite pairs (randomized response, f_{eps,delta}) composed up to n = 10^6, eps
at delta = 1e-6, with an independent reference per row, each in its own fresh process: the
exact Q-law of the product (integer coefficients of a polynomial power, python-flint) summed at
60 digits for n <= 3000; the other lattice route (the whole table composed in Arb) at 10^4 and
10^5; Kairouz, Oh & Viswanath's binomial sum for f_{eps,delta}^n at 60 digits; the tilted
lattice power where the row's own route is the exact integer lattice product. The peer runs under
a 3 GiB address-space limit (it was killed for lack of memory at RR(2, 4)^10^5).

    python benchmarks/bench_practitioner_rows.py [--write benchmarks/RESULTS_practitioner_rows.md]
"""

from __future__ import annotations

import argparse
import json

from _report import CHILD_POST, CHILD_PRE, Report, child_json, pld_peer_child, run_line

_PRE, _POST = CHILD_PRE, CHILD_POST

OURS = _PRE + """
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with ta.pld_options(tol={tol}):
    v = ta.{question}(f, {arg})
import mpmath
out = dict(lo=mpmath.nstr(v.lo, 20), hi=mpmath.nstr(v.hi, 20),
           rel=0.0 if v.lo == v.hi else float((v.hi - v.lo) / v.hi) if v.hi else 0.0,
           guarantee=v.guarantee, route=v.route)
""" + _POST

PEER = pld_peer_child(3)

ROWS = [
    ("RR(1, 3)^1000, eps(1e-6)", "ta.randomized_response(1, 3) ** 1000", "epsilon", "R(1, 10**6)",
     "pld.from_randomized_response(3 / (math.e + 2), 3, value_discretization_interval=1e-4)"
     ".self_compose(1000)", "get_epsilon_for_delta", "1e-6"),
    ("RR(2, 4)^10^5, eps(1e-6)", "ta.randomized_response(2, 4) ** 10**5", "epsilon",
     "R(1, 10**6)",
     "pld.from_randomized_response(4 / (math.exp(2) + 3), 4, value_discretization_interval=1e-4)"
     ".self_compose(10**5)", "get_epsilon_for_delta", "1e-6"),
    ("RR(1, 3)^10^6, eps(1e-6)", "ta.randomized_response(1, 3) ** 10**6", "epsilon",
     "R(1, 10**6)", None, None, None),
    ("RR(log 3, 5)^1000, eps(1e-6)", "ta.randomized_response(sp.log(3), 5) ** 1000", "epsilon",
     "R(1, 10**6)",
     "pld.from_randomized_response(5 / 7, 5, value_discretization_interval=1e-4)"
     ".self_compose(1000)", "get_epsilon_for_delta", "1e-6"),
    ("DG(1, 2) (x) Laplace(1), delta(1)", "ta.DiscreteGaussian(1, 2) @ ta.Laplace(1)", "delta",
     "1",
     "pld.from_discrete_gaussian_mechanism(2, sensitivity=1, value_discretization_interval=1e-4)"
     ".compose(pld.from_laplace_mechanism(1, value_discretization_interval=1e-4))",
     "get_delta_for_epsilon", "1"),
    ("DG(1, 2) (x) Laplace(1), eps(1e-6)", "ta.DiscreteGaussian(1, 2) @ ta.Laplace(1)",
     "epsilon", "R(1, 10**6)",
     "pld.from_discrete_gaussian_mechanism(2, sensitivity=1, value_discretization_interval=1e-4)"
     ".compose(pld.from_laplace_mechanism(1, value_discretization_interval=1e-4))",
     "get_epsilon_for_delta", "1e-6"),
    ("Laplace(1/10)^10^6, delta(1)", "ta.Laplace(R(1, 10)) ** 10**6", "delta", "1", None, None,
     None),
    ("f_{1/2,0}^10^6 (x) G(1), delta(1)", "ta.EpsDelta(R(1, 2), 0) ** 10**6 @ ta.G(1)", "delta",
     "1", None, None, None),
]


#: References of the finite rows (fresh processes; each prints lo, hi of eps(1e-6)).
REF_EXACT = _PRE + """
from fractions import Fraction as F
from flint import fmpz_poly
from mpmath import mp
w, kmin, R, n, D = {w}, {kmin}, {R}, {n}, F(1, 10**6)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
c = [int(x) for x in (fmpz_poly(w) ** n).coeffs()]  # Q(n kmin + i) = c[i] / sum(w)^n
with mp.workdps(60):
    den, lr, d0 = mp.mpf(sum(w)) ** n, mp.log(R), n * kmin
    A, B = [mp.zero], [mp.zero]  # suffix sums from the top
    for i in range(len(c) - 1, -1, -1):
        q = mp.mpf(c[i]) / den
        A.append(A[-1] + q)
        B.append(B[-1] + q * mp.exp(-(d0 + i) * lr))
    A, B = A[::-1], B[::-1]
    def at(m):  # delta(m l): the d >= m + 1
        i = min(max(m + 1 - d0, 0), len(c))
        return A[i] - mp.exp(m * lr) * B[i]
    lo, hi = 0, d0 + len(c) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if at(mid) > D.numerator / mp.mpf(D.denominator) else (lo, mid)
    i = min(max(hi - d0, 0), len(c))
    e = mp.log((A[i] - mp.mpf(D.numerator) / D.denominator) / B[i])
    out = dict(lo=mp.nstr(e, 20), hi=mp.nstr(e, 20), what="exact Q-law, 60 digits")
""" + _POST

REF_TABLE = _PRE + """
from fractions import Fraction as F
from tradeoff_algebra.numeric.lattice_power import LatticePower
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
lp = LatticePower(F({R}), {ks}, [F(*x) for x in {qs}], {n})
lp.tilted = None  # the whole table in Arb
lo, hi = lp.epsilon(1e-6, 1e-6, 1e-12)
out = dict(lo=repr(lo), hi=repr(hi), what="whole table in Arb")
""" + _POST

REF_TILTED = _PRE + """
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra.numeric.lattice_power import symbolic_lattice_pair
from tradeoff_algebra.numeric.lattice_tilted import TiltedLatticePower
f = {expr}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
lo, hi = TiltedLatticePower(*symbolic_lattice_pair(list(f.P), list(f.Q)), {n}).epsilon(
    1e-6, 1e-6, 1e-12)
out = dict(lo=repr(lo), hi=repr(hi), what="tilted lattice power")
""" + _POST

REF_KOV = _PRE + """
from mpmath import mp
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
n, nd = {n}, {nd}  # n factors f_{{e0,0}}, nd of them with the f_{{0,d0}} part
with mp.workdps(60):
    e0, d0, D = {e0}, mp.mpf({d0}), mp.mpf(1) / 10**6
    S = 1 - (1 - d0) ** nd  # the singular mass (Kairouz, Oh & Viswanath, Thm. 3.3)
    if D < S:
        out = dict(lo="inf", hi="inf", what="KOV: D < 1 - (1 - delta)^n")
    else:
        Dp = (D - S) / (1 - S)  # the binomial part: j swapped outcomes, loss (n - 2j) e0
        p = mp.exp(e0) / (1 + mp.exp(e0))
        q, g, r = p ** n, mp.exp(-n * e0), (1 - p) / p
        A, B = [], []  # prefix sums over j (losses from the top)
        a = b = mp.zero
        for j in range(n // 2 + 1):
            a, b = a + q, b + q * g
            A.append(a)
            B.append(b)
            q, g = q * (n - j) / (j + 1) * r, g * mp.exp(2 * e0)
        def at(m):  # delta at the loss (n - 2m) e0: the j < m
            return A[m - 1] - mp.exp((n - 2 * m) * e0) * B[m - 1] if m > 0 else mp.zero
        lo, hi = 0, n // 2  # at(lo) <= Dp < at(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if at(mid) > Dp else (mid, hi)
        e = mp.log((A[lo] - Dp) / B[lo])  # on [(n - 2 hi) e0, (n - 2 lo) e0]: the j <= lo
        out = dict(lo=mp.nstr(e, 20), hi=mp.nstr(e, 20), what="KOV binomial sum, 60 digits")
""" + _POST

RR5 = "ta.randomized_response(sp.log(3), 5)"
RR5_TABLE = dict(R=3, ks=[-1, 0, 1], qs=[(1, 7), (3, 7), (3, 7)])
RR5_PEER = ("pld.from_randomized_response(5 / 7, 5, value_discretization_interval={h})"
            ".self_compose({n})")
ED_PEER = ("pld.from_privacy_parameters(common.DifferentialPrivacyParameters({e}, {d}), "
           "value_discretization_interval={h}).self_compose({n})")

#: (name, our expression, peer expression or None, reference (template, fields) or None)
FINITE_ROWS = [
    ("RR(log 3, 5)^1000", f"{RR5} ** 1000", RR5_PEER.format(h="1e-4", n=1000),
     (REF_EXACT, dict(w=[1, 3, 3], kmin=-1, R=3, n=1000))),
    ("RR(log 3, 5)^3000", f"{RR5} ** 3000", RR5_PEER.format(h="1e-4", n=3000),
     (REF_EXACT, dict(w=[1, 3, 3], kmin=-1, R=3, n=3000))),
    ("RR(log 3, 5)^10^4", f"{RR5} ** 10**4", RR5_PEER.format(h="1e-4", n=10**4),
     (REF_TABLE, dict(RR5_TABLE, n=10**4))),
    ("RR(log 3, 5)^10^5 (peer grid 1e-3)", f"{RR5} ** 10**5",
     RR5_PEER.format(h="1e-3", n=10**5), (REF_TABLE, dict(RR5_TABLE, n=10**5))),
    ("RR(log 3, 5)^10^6 (peer grid 1e-2)", f"{RR5} ** 10**6",
     RR5_PEER.format(h="1e-2", n=10**6), None),
    ("RR(log 3, 2)^10^6 (peer grid 1e-2)", "ta.randomized_response(sp.log(3), 2) ** 10**6",
     "pld.from_randomized_response(1 / 2, 2, value_discretization_interval=1e-2)"
     ".self_compose(10**6)", (REF_KOV, dict(n=10**6, nd=10**6, e0="mp.log(3)", d0="0"))),
    ("RR(1/2, 10)^10^6 (peer grid 1e-2)", "ta.randomized_response(R(1, 2), 10) ** 10**6",
     "pld.from_randomized_response(10 / (math.exp(0.5) + 9), 10, "
     "value_discretization_interval=1e-2).self_compose(10**6)",
     (REF_TILTED, dict(expr="ta.randomized_response(sp.Rational(1, 2), 10)", n=10**6))),
    ("f_{log 3, 1e-12}^10^6 (peer grid 1e-2)", "ta.EpsDelta(sp.log(3), 1e-12) ** 10**6",
     ED_PEER.format(e="math.log(3)", d="1e-12", h="1e-2", n=10**6),
     (REF_KOV, dict(n=10**6, nd=10**6, e0="mp.log(3)", d0="mp.mpf(1e-12)"))),
    ("f_{1/10, 1e-13}^10^6 (peer grid 1e-2)", "ta.EpsDelta(R(1, 10), 1e-13) ** 10**6",
     ED_PEER.format(e="0.1", d="1e-13", h="1e-2", n=10**6),
     (REF_KOV, dict(n=10**6, nd=10**6, e0="mp.mpf(1) / 10", d0="mp.mpf(1e-13)"))),
    ("f_{1/10, 1e-9}^10^6 (peer grid 1e-2)", "ta.EpsDelta(R(1, 10), 1e-9) ** 10**6",
     ED_PEER.format(e="0.1", d="1e-9", h="1e-2", n=10**6),
     (REF_KOV, dict(n=10**6, nd=10**6, e0="mp.mpf(1) / 10", d0="mp.mpf(1e-9)"))),
    ("RR(log 3, 2)^(5 10^5) (x) f_{log 3, 1e-12}^(5 10^5) (peer grid 1e-2)",
     "ta.Tensor(ta.Discrete([R(1, 4), R(3, 4)], [R(3, 4), R(1, 4)]) ** (5 * 10**5), "
     "ta.EpsDelta(sp.log(3), 1e-12) ** (5 * 10**5))",
     "pld.from_randomized_response(1 / 2, 2, value_discretization_interval=1e-2)"
     ".self_compose(5 * 10**5).compose("
     + ED_PEER.format(e="math.log(3)", d="1e-12", h="1e-2", n="5 * 10**5") + ")",
     (REF_KOV, dict(n=10**6, nd=5 * 10**5, e0="mp.log(3)", d0="mp.mpf(1e-12)"))),
    ("RR(log 3, 5)^10^6 (x) RR(log 9, 3)^10^6 (peer grid 1e-2)",
     f"ta.Tensor({RR5} ** 10**6, ta.randomized_response(sp.log(9), 3) ** 10**6)",
     RR5_PEER.format(h="1e-2", n=10**6) + ".compose(pld.from_randomized_response(3 / 11, 3, "
     "value_discretization_interval=1e-2).self_compose(10**6))", None),
]


def _finite_rows(rep: Report, tol: str) -> None:
    rep.out()
    rep.out("## Finite pairs composed up to n = 10^6: eps(1e-6)")
    rep.out()
    rep.out(f"Ours at `pld_options(tol={tol})`; the reference and the peer in their own fresh "
            "processes (reference: module docstring; dp_accounting's pessimistic PLD at grid "
            "1e-4 unless the row says otherwise, an estimate).")
    rep.out()
    rep.out("| workload | ours | rel. width | guarantee (route) | CPU | memory | reference | "
            "ref. CPU | ours vs ref. | dp_accounting | its CPU | its memory | peer vs ours |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, pexpr, ref in FINITE_ROWS:
        o = child_json(OURS.format(expr=expr, question="epsilon", arg="R(1, 10**6)", tol=tol),
                       timeout=600)
        if "error" in o:
            ours = (f"error: {o['error']}", "-", "-", "-", "-")
        else:
            r = o["out"]
            ours = (f"[{float(r['lo']):.12g}, {float(r['hi']):.12g}]", f"{r['rel']:.1e}",
                    f"{r['guarantee']} ({r['route']})", f"{o['cpu']:.2f} s", f"{o['mib']:.0f} MiB")
        refcells = ("none at this n (see the rows above)", "-", "-")
        if ref is not None:
            x = child_json(ref[0].format(**ref[1]), timeout=900)
            if "error" in x:
                refcells = (f"failed: {x['error']}", "-", "-")
            else:
                lo, hi = float(x["out"]["lo"]), float(x["out"]["hi"])
                agree = "-"
                if "error" not in o:
                    olo, ohi = float(o["out"]["lo"]), float(o["out"]["hi"])
                    slack = 4e-16 * max(abs(ohi), 1.0)  # (the float print of 60-digit values)
                    agree = ("agrees" if lo <= ohi + slack and olo <= hi + slack
                             else f"DISAGREES ({lo:.17g})")
                refcells = (f"{x['out']['what']}: {lo:.15g}", f"{x['cpu']:.1f} s", agree)
        if pexpr is None:
            peer, check = ("not run", "-", "-"), "-"
        else:
            p = child_json(PEER.format(expr=pexpr, question="get_epsilon_for_delta",
                                       arg="1e-6"), timeout=600)
            if "error" in p:
                peer, check = (f"failed: {p['error'][:80]}", "-", "-"), "-"
            else:
                val = p["out"]["value"]
                peer = (f"{val:.10g}", f"{p['cpu']:.2f} s", f"{p['mib']:.0f} MiB")
                check = "-"
                if "error" not in o:
                    lo, hi = float(o["out"]["lo"]), float(o["out"]["hi"])
                    if lo == hi == float("inf") or val == float("inf"):
                        check = "same" if val == hi else "differs"
                    else:
                        ref_v = hi if val > hi else max(lo, 1e-300)
                        check = (f"{'above' if val > hi else 'below' if val < lo else 'inside'}"
                                 f" (rel. {(val - ref_v) / ref_v:+.1e})")
        rep.out(f"| {name} | " + " | ".join(ours) + " | " + " | ".join(refcells) + " | "
                + " | ".join(peer) + f" | {check} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    ap.add_argument("--tol", default="1e-9")
    ap.add_argument("--only-finite", action="store_true", help="the second table alone")
    args = ap.parse_args()
    rep = Report()
    rep.out("# Randomized response powers, a discrete Gaussian beside Laplace, delta near 1")
    rep.out()
    rep.out(run_line("python benchmarks/bench_practitioner_rows.py",
                     ("python-flint", "numpy", "dp-accounting")))
    rep.out()
    rep.out(f"Ours at `pld_options(tol={args.tol})`, certified; dp_accounting's PLD at grid 1e-4 "
            "(pessimistic, an estimate). CPU seconds without the imports; memory above them; "
            "each cell a fresh process.")
    rep.out()
    rep.out("| workload | ours | rel. width | guarantee (route) | CPU | memory | dp_accounting "
            "| its CPU | its memory | check |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, q, arg, pexpr, pq, parg in ([] if args.only_finite else ROWS):
        o = child_json(OURS.format(expr=expr, question=q, arg=arg, tol=args.tol), timeout=300)
        if "error" in o:
            ours = (f"error: {o['error']}", "-", "-", "-", "-")
        else:
            r = o["out"]
            ours = (f"[{float(r['lo']):.12g}, {float(r['hi']):.12g}]", f"{r['rel']:.1e}",
                    f"{r['guarantee']} ({r['route']})", f"{o['cpu']:.2f} s", f"{o['mib']:.0f} MiB")
        if pexpr is None:
            peer, check = ("not run", "-", "-"), "-"
        else:
            p = child_json(PEER.format(expr=pexpr, question=pq, arg=parg), timeout=300)
            if "error" in p:
                why = "killed (no message: out of memory?)" if p["error"] == "?" else p["error"]
                peer, check = (f"failed: {why}", "-", "-"), "-"
            else:
                val = p["out"]["value"]
                peer = (f"{val:.10g}", f"{p['cpu']:.2f} s", f"{p['mib']:.0f} MiB")
                check = "-"
                if "error" not in o:
                    lo, hi = float(o["out"]["lo"]), float(o["out"]["hi"])
                    ref = hi if val > hi else max(lo, 1e-300)
                    check = (f"peer {'above' if val > hi else 'below' if val < lo else 'inside'}"
                             f" (rel. diff. {(val - ref) / ref:+.1e})")
        rep.out(f"| {name} | " + " | ".join(ours) + " | " + " | ".join(peer) + f" | {check} |")
    _finite_rows(rep, args.tol)
    rep.write(args.write)
    print(json.dumps({"rows": len(ROWS) + len(FINITE_ROWS)}))


if __name__ == "__main__":
    main()
