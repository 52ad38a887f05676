"""RDP curves and whole trade-off curves of DP-SGD beside dp_accounting and riskcal, each call in
a fresh process (imports excluded from the times), each result checked against a reference
computed here by another route.

    python benchmarks/bench_curves.py [--write benchmarks/RESULTS_curves.md]

References: the RDP of the Poisson-subsampled Gaussian at integer orders by the binomial sum in
mpmath at 50 digits (Mironov, Talwar & Zhang 2019, Sec. 3.3), at fractional orders by mpmath
quadrature of both directions; the power 1 - f(alpha) of DP-SGD as min over eps of
delta(eps) + e^eps alpha (golden section on eps, each delta a certified ta.delta of the Laplace
inversion at that single eps: an upper bound of the power within the search's tolerance).
"""

from __future__ import annotations

import argparse
import os
import sys

import mpmath
from _report import Report, child_json, run_line, timed_prelude

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = timed_prelude("wall")

OURS = ("import numpy as np\nimport sympy as sp\nimport tradeoff_algebra as ta\n"
        "import scipy.special, scipy.fft")
DPA_RDP = "import numpy as np\nfrom dp_accounting.rdp import rdp_privacy_accountant as rdp\n" \
          "import dp_accounting"
RISKCAL = "import numpy as np\nfrom riskcal.calibration.dpsgd import get_beta_for_dpsgd"

Q, SIGMA, T = "256/60000", "11/10", 14063
SGD = f"ta.noisy_sgd(sp.Rational({SIGMA!r}), sp.Rational({Q!r}), {T})"
PATH = "ta.noisy_sgd(sp.Rational(1, 2), sp.Rational(1, 100), 20000)"


def run(imports: str, body: str, timeout: int = 900, repeat: int = 3, root: str = ROOT) -> dict:
    """The body timed in ``repeat`` fresh processes (the least time: the machine is shared);
    ``root``: the directory holding the package (the former version for the "before" rows)."""
    best: dict | None = None
    for _ in range(repeat):
        r = child_json(_PRELUDE.format(root=root, imports=imports, body=body), timeout)
        if "error" in r:
            return r
        best = r if best is None or r["t"] < best["t"] else best
    return best


def t_(r: dict) -> str:
    return r.get("error", "-") if "error" in r else f"{r['t']:.3f} s"


# -- references -------------------------------------------------------------------------------
mp = mpmath.MPContext()
mp.dps = 50


def _q(text: str):
    """An exact rational given as text, in mp (50 digits)."""
    from fractions import Fraction

    x = Fraction(text)
    return mp.mpf(x.numerator) / x.denominator


def rdp_ref_int(q, sigma, a: int):
    """T * D_a(Q || P) by the binomial sum (q, sigma as exact rationals given as strings)."""
    q, s = _q(q), _q(sigma)
    tot = mp.fsum(mp.binomial(a, k) * (1 - q) ** (a - k) * q**k * mp.exp(k * (k - 1) / (2 * s * s))
                  for k in range(a + 1))
    return T * mp.log(tot) / (a - 1)


def rdp_ref_frac(q, sigma, a):
    """T * max of both directions at a fractional order, by quadrature (30 digits)."""
    c = mpmath.MPContext()
    c.dps = 30
    q, mu = c.mpf(_q(q)), 1 / c.mpf(_q(sigma))
    a = c.mpf(a)
    out = []
    for e in (a, 1 - a):
        g = lambda x, e=e: c.npdf(x) * (1 - q + q * c.exp(mu * x - mu**2 / 2)) ** e  # noqa: E731
        out.append(c.log(c.quad(g, [-c.inf, -8, 0, 8, 8 + abs(e) * mu, c.inf])) / (a - 1))
    return T * max(out)


def power_ref(f, a: float, lo: float, hi: float, steps: int = 26, dps: int = 12,
              tol: float | None = None):
    """The power 1 - f(a) = min(1, min_eps delta(eps) + e^eps a, min_eps 1 - e^-eps (1 - a -
    delta(eps))) over eps in [lo, hi] (the two pieces of the f_{eps, delta(eps)} whose envelope
    f is, Dong, Roth & Su, Prop. 6; each convex in e^eps or e^-eps): golden section on
    certified ta.delta upper ends (at pld tolerance ``tol`` if given), an upper bound of the
    power within the search's bracket."""
    import contextlib

    import tradeoff_algebra as ta

    seen: dict = {}
    where = contextlib.nullcontext() if tol is None else ta.pld_options(tol=tol)

    def d(e):
        if e not in seen:
            with where:
                seen[e] = mp.mpf(ta.delta(f, e, dps=dps).hi)
        return seen[e]

    one = _golden(lambda e: d(e) + mp.exp(e) * a, lo, hi, steps)
    two = _golden(lambda e: 1 - mp.exp(-e) * (1 - a - d(e)), lo, hi, steps)
    return min(mp.one, one[0], two[0]), max(one[1], two[1])


def _golden(F, lo: float, hi: float, steps: int = 26):
    g = (mp.sqrt(5) - 1) / 2
    c, d = hi - float(g) * (hi - lo), lo + float(g) * (hi - lo)
    fc, fd = F(c), F(d)
    for _ in range(steps):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - float(g) * (hi - lo)
            fc = F(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + float(g) * (hi - lo)
            fd = F(d)
    return min(fc, fd), hi - lo


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    ap.add_argument("--before", default=None,
                    help="a directory holding the former package (git archive BASE "
                         "tradeoff_algebra | tar -x -C DIR): its rows timed beside ours")
    a = ap.parse_args()
    sys.path.insert(0, ROOT)
    R = Report()
    notes: list = []  # the ratios, printed at the end
    R.out("# RDP curves and whole trade-off curves of DP-SGD beside the peers (fresh processes)")
    R.out()
    R.out(run_line("python benchmarks/bench_curves.py", ("dp-accounting", "riskcal", "numpy",
                                                          "python-flint")))
    R.out()
    R.out("Times exclude imports; each is the least of three fresh processes (nine for the RDP "
          "rows of 100 orders; the machine is shared: see the load). Ours: certified (Arb) "
          "unless said otherwise; the peers' values are float estimates. Each value is compared "
          "with a reference computed in the benchmark by another route (module docstring).")

    # -- 1. RDP curves --------------------------------------------------------------------------
    R.out()
    R.out(f"## RDP of DP-SGD (q = {Q}, sigma = {SIGMA}, T = {T}), both directions")
    R.out()
    R.out("| orders | who | what | time | max rel. error vs reference |")
    R.out("|---|---|---|---|---|")
    ints = list(range(2, 102))
    refs = {k: rdp_ref_int(Q, SIGMA, k) for k in ints}
    ours = run(OURS, f"r = ta.RDP.of({SGD}, orders=list(range(2, 102)))\n"
                     "out = [str(r.at(k)) for k in range(2, 102)]", repeat=9)
    if "error" not in ours:
        vals = [_q(s) for s in ours["out"]]
        err = max(abs(v - refs[k]) / refs[k] for v, k in zip(vals, ints, strict=True))
        above = all(v >= refs[k] * (1 - mp.mpf(10) ** -40) for v, k in zip(vals, ints,
                                                                            strict=True))
        R.out(f"| 2..101 (100) | ours | RDP.of, certified upper ends | {t_(ours)} | "
              f"{mpmath.nstr(err, 2)}{'' if above else ' (BELOW the reference)'} |")
    else:
        R.out(f"| 2..101 (100) | ours | RDP.of | {t_(ours)} | - |")
    q_f, s_f = 256 / 60000, 1.1
    theirs = run(DPA_RDP, f"r = rdp._compute_rdp_poisson_subsampled_gaussian({q_f}, {s_f}, "
                          f"list(range(2, 102))) * {T}\nout = [float(x) for x in r]", repeat=9)
    if "error" not in theirs:
        err = max(abs(mp.mpf(v) - refs[k]) / refs[k] for v, k in zip(theirs["out"], ints,
                                                                        strict=True))
        R.out(f"| 2..101 (100) | dp_accounting | _compute_rdp_poisson_subsampled_gaussian "
              f"(float) | {t_(theirs)} | {mpmath.nstr(err, 2)} |")
    if "error" not in ours and "error" not in theirs:
        notes.append(f"RDP.of at 100 integer orders: {ours['t'] / theirs['t']:.2f} times "
                     "dp_accounting's RDP of the same orders")
    # epsilon at 1e-5 from the curve
    e_ref = min(refs[k] + mp.log(mp.mpf(k - 1) / k) - (mp.log(mp.mpf(10) ** -5) + mp.log(k))
                / (k - 1) for k in ints)
    ours_e = run(OURS, f"r = ta.RDP.of({SGD}, orders=list(range(2, 102)))\n"
                       "v = r.epsilon(sp.Rational(1, 10**5))\nout = float(v.mid)")
    dpa_e = run(DPA_RDP, "acc = rdp.RdpAccountant(list(range(2, 102)))\n"
                         f"acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting."
                         f"PoissonSampledDpEvent({q_f}, dp_accounting.GaussianDpEvent({s_f})), "
                         f"{T}))\nout = acc.get_epsilon(1e-5)")
    for who, r, what in (("ours", ours_e, "RDP.of + RDP.epsilon(1e-5)"),
                         ("dp_accounting", dpa_e, "RdpAccountant compose + get_epsilon(1e-5)")):
        err = "-" if "error" in r else mpmath.nstr(abs(mp.mpf(r["out"]) - e_ref) / e_ref, 2)
        R.out(f"| 2..101 (100) | {who} | {what} | {t_(r)} | {err} |")
    # dp_accounting's default orders (99 fractional)
    dflt = "rdp.DEFAULT_RDP_ORDERS"
    ours_d = run(OURS + "\n" + DPA_RDP, f"r = ta.RDP.of({SGD}, orders={dflt})\n"
                                        "out = [float(r.at(k)) for k in [1.5, 3.0, 10, 63, 1024]]")
    theirs_d = run(DPA_RDP, f"r = rdp._compute_rdp_poisson_subsampled_gaussian({q_f}, {s_f}, "
                            f"{dflt}) * {T}\nout = [float(r[list({dflt}).index(k)]) "
                            "for k in [1.5, 3.0, 10, 63, 1024]]")
    picks = [1.5, 3, 10, 63, 1024]
    ref_d = [rdp_ref_frac(Q, SIGMA, 1.5)] + [refs.get(k) or rdp_ref_int(Q, SIGMA, k)
                                              for k in picks[1:]]
    rows_d = [("ours", ours_d), ("dp_accounting", theirs_d)]
    if a.before:
        rows_d.insert(1, ("ours, former version", run(
            OURS + "\n" + DPA_RDP, f"r = ta.RDP.of({SGD}, orders={dflt})\n"
            "out = [float(r.at(k)) for k in [1.5, 3.0, 10, 63, 1024]]", root=a.before)))
    fn = "_compute_rdp_poisson_subsampled_gaussian"
    for who, r in rows_d:
        err = "-" if "error" in r else mpmath.nstr(max(abs(mp.mpf(v) - x) / x for v, x in
                                                       zip(r["out"], ref_d, strict=True)), 2)
        R.out(f"| dp_accounting's default list (156: 90 fractional) | {who} | "
              f"{fn if who == 'dp_accounting' else 'RDP.of'} | "
              f"{t_(r)} | {err} (at orders 1.5, 3, 10, 63, 1024) |")
        if "error" not in r:
            per = ", ".join(mpmath.nstr(abs(mp.mpf(v) - x) / x, 2)
                            for v, x in zip(r["out"], ref_d, strict=True))
            R.out(f"|  | {who} | per order (1.5, 3, 10, 63, 1024) | | {per} |")
    if "error" not in ours_d and "error" not in theirs_d:
        notes.append(f"RDP.of at dp_accounting's default orders: {ours_d['t'] / theirs_d['t']:.2f}"
                     " times dp_accounting's RDP of the same orders")

    # -- 2. DP-SGD curves ----------------------------------------------------------------------
    import sympy as sp

    import tradeoff_algebra as ta  # (the references run in this process)

    f = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), T)
    R.out()
    R.out(f"## DP-SGD curves (q = {Q}, sigma = {SIGMA}, T = {T})")
    R.out()
    levels = [0.001, 0.01, 0.1, 0.3, 0.6]
    ref = {x: power_ref(f, x, 0.0, 4.0) for x in levels}
    R.out("Reference: the power 1 - f at alpha in " + ", ".join(map(str, levels)) + " = "
          + ", ".join(mpmath.nstr(ref[x][0], 8) for x in levels) + " (golden section on eps to "
          "a bracket of " + mpmath.nstr(max(r[1] for r in ref.values()), 2) + ").")
    R.out()
    R.out("| who | what | time | guarantee | band width (max) | power vs reference (max rel.; "
          "per level) |")
    R.out("|---|---|---|---|---|---|")
    idx = ", ".join(str(round(x * 1000)) for x in levels)
    body_curve = ("x = np.linspace(0, 1, 1001)\nlo, hi = ta.curve(f, x, bounds=True)\n"
                  f"out = [float(np.max(hi[1:] - lo[1:])), [[1 - float(hi[i]), 1 - float(lo[i])] "
                  f"for i in [{idx}]]]")
    rows = [
        ("ours", "ta.epsilon(f, 1e-5), dps=30 (the unit)",
         run(OURS, f"f = {SGD}\nv = ta.epsilon(f, sp.Rational(1, 10**5))\n"
                   "out = [None, None, v.guarantee]")),
        ("ours", "ta.roc(f, 1/100) (curve points, default pld tol)",
         run(OURS, f"f = {SGD}\nv = ta.roc(f, sp.Rational(1, 100))\n"
                   "out = [float(v.hi - v.lo), [[float(v.lo), float(v.hi)]], v.guarantee, 0.01]")),
        ("ours", "ta.curve(f, 1001 levels, bounds=True) (curve points)",
         run(OURS, f"f = {SGD}\n{body_curve}")),
        ("ours", "the same by the PLD engine (band route off; the former path)",
         run(OURS, f"f = {SGD}\nfrom tradeoff_algebra.numeric import curves\n"
                   f"curves.CURVE_BANDS.clear()\n{body_curve}")),
        ("riskcal", "get_beta_for_dpsgd(1001 levels), grid 1e-4",
         run(RISKCAL, f"x = np.linspace(0, 1, 1001)\nb = get_beta_for_dpsgd({s_f}, {q_f}, {T}, "
                      f"x)\nout = [None, [[1 - float(b[i]), 1 - float(b[i])] for i in [{idx}]]]")),
    ]
    unit = rows[0][2]
    if "error" not in unit:
        for who, what, r in rows[1:]:
            if "error" not in r:
                notes.append(f"{who}, {what.split(' (')[0]}: {r['t'] / unit['t']:.2f} times "
                             "one ta.epsilon call")
    for who, what, r in rows:
        if "error" in r:
            R.out(f"| {who} | {what} | {r['error']} | - | - | - |")
            continue
        o = r["out"]
        g = "estimate" if who == "riskcal" or "PLD" in what else "certified"
        w = "-" if o[0] is None else f"{o[0]:.2g}"
        cmp = "-"
        if o[1] is not None:
            lv = [o[3]] if len(o) > 3 else levels
            errs = []
            for (plo, phi), x in zip(o[1], lv, strict=True):
                rv = ref[x][0] if x in ref else power_ref(f, x, 0.0, 4.0)[0]
                errs.append(float(max(abs(mp.mpf(plo) - rv), abs(mp.mpf(phi) - rv)) / rv))
            cmp = f"{max(errs):.2g}" + ("" if len(errs) == 1 else
                                          " (" + ", ".join(f"{e:.1g}" for e in errs) + ")")
        R.out(f"| {who} | {what} | {t_(r)} | {g} | {w} | {cmp} |")

    # -- 2b. the same at tolerance 1e-9 -------------------------------------------------------
    R.out()
    R.out(f"## DP-SGD at pld_options(tol=1e-9) (q = {Q}, sigma = {SIGMA}, T = {T})")
    R.out()
    lv9 = [0.001, 0.01, 0.1, 0.3, 0.6]
    ref9 = {x: power_ref(f, x, 0.0, 4.0, steps=48, dps=16, tol=1e-13) for x in lv9}
    R.out("Reference: the power at alpha in " + ", ".join(map(str, lv9)) + " = "
          + ", ".join(mpmath.nstr(ref9[x][0], 14) for x in lv9) + " (golden section on eps "
          "to a bracket of " + mpmath.nstr(max(r[1] for r in ref9.values()), 2) + ", each "
          "delta the upper end of a certified ta.delta at pld tol 1e-13 (the single-eps "
          "inversion): an upper bound of the power within the search's second-order error).")
    R.out()
    R.out("| who | what | time | guarantee | width (max rel. of the power) | warned | power vs "
          "reference (max rel.; per level) | lower end above the reference |")
    R.out("|---|---|---|---|---|---|---|---|")
    tol9 = ("from tradeoff_algebra.numeric.options import pld_options\n"
            "rec = warnings.catch_warnings(record=True)\nw = rec.__enter__()\n"
            "warnings.simplefilter('always')\nwith pld_options(tol=1e-9):\n")
    b_eps = ("    v = ta.epsilon(f, sp.Rational(1, 10**5))\n"
             "out = [float((v.hi - v.lo) / v.hi), len(w), None]")
    b_roc = ("    v = ta.roc(f, sp.Rational(1, 100))\n"
             "out = [float((v.hi - v.lo) / v.hi), len(w), [[float(v.lo), float(v.hi)]]]")
    idx9 = ", ".join(str(round(x * 1000)) for x in lv9)
    b_cur = ("    x = np.linspace(0, 1, 1001)\n    lo, hi = ta.curve(f, x, bounds=True)\n"
             "out = [float(np.max((hi[1:] - lo[1:]) / np.maximum(1 - lo[1:], 1e-300))), len(w), "
             f"[[1 - float(hi[i]), 1 - float(lo[i])] for i in [{idx9}]]]")
    cases = [("ours", "ta.epsilon(f, 1e-5) (the unit)", b_eps, ROOT),
             ("ours", "ta.roc(f, 1/100)", b_roc, ROOT),
             ("ours", "ta.curve(f, 1001 levels, bounds=True)", b_cur, ROOT)]
    if a.before:
        cases += [("ours, former version", "ta.epsilon(f, 1e-5)", b_eps, a.before),
                  ("ours, former version", "ta.roc(f, 1/100)", b_roc, a.before),
                  ("ours, former version", "ta.curve(f, 1001 levels, bounds=True)", b_cur,
                   a.before)]
    r9 = {}
    for who, what, body, root in cases:
        r = run(OURS, f"f = {SGD}\n" + tol9 + body, root=root)
        r9[(who, what)] = r
        if "error" in r:
            R.out(f"| {who} | {what} | {r['error']} | - | - | - | - | - |")
            continue
        rel, warned, pw = r["out"]
        cmp, above = "-", "-"
        if pw is not None:
            lvs = [0.01] if len(pw) == 1 else lv9
            errs, bad = [], 0
            for (plo, phi), x in zip(pw, lvs, strict=True):
                x0 = ref9[x][0]
                errs.append(float(max(abs(mp.mpf(plo) - x0), abs(mp.mpf(phi) - x0)) / x0))
                bad += mp.mpf(plo) > x0  # the band's lower end above an upper bound: wrong
            cmp = f"{max(errs):.2g}" + ("" if len(errs) == 1 else
                                          " (" + ", ".join(f"{e:.1g}" for e in errs) + ")")
            above = "none" if not bad else f"{bad} (WRONG)"
        R.out(f"| {who} | {what} | {t_(r)} | certified | {rel:.2g} | {'yes' if warned else 'no'}"
              f" | {cmp} | {above} |")
    u9 = r9[("ours", "ta.epsilon(f, 1e-5) (the unit)")]
    if "error" not in u9:
        for (who, what), r in r9.items():
            if "error" not in r and "unit" not in what:
                notes.append(f"tol 1e-9: {who}, {what}: {r['t'] / u9['t']:.2f} times one "
                             "ta.epsilon call at tol 1e-9")

    # -- 3. the pathological ROC plot (issue 30) -------------------------------------------------
    R.out()
    R.out("## The ROC plot of DP-SGD with sigma = 1/2, q = 1/100, T = 20000 (issue 30)")
    R.out()
    g = ta.noisy_sgd(sp.Rational(1, 2), sp.Rational(1, 100), 20000)
    plv = [1e-8, 1e-4]
    pref = {x: power_ref(g, x, 0.0, 60.0) for x in plv}
    R.out("Reference power at alpha = 1e-8, 1e-4: " + ", ".join(mpmath.nstr(pref[x][0], 8)
                                                                   for x in plv) + ".")
    R.out()
    R.out("| who | what | time | band width (max rel. of the power) | power vs reference |")
    R.out("|---|---|---|---|---|")
    body = ("import matplotlib\nmatplotlib.use('Agg')\n"
            f"ax = ta.plot({PATH}, kind='roc')\n"
            "from tradeoff_algebra.routes.inversion_curve import inversion_band\n"
            f"b = inversion_band({PATH}, np.logspace(-8, 0, 200), 1e-3)\n"
            "w = float(np.max((b.power_hi - b.power_lo) / b.power_hi))\n"
            "b2 = inversion_band(" + PATH + ", np.array([1e-8, 1e-4]), 1e-3)\n"
            "out = [w, [[float(b2.power_lo[i]), float(b2.power_hi[i])] for i in (0, 1)]]")
    r = run(OURS, body, repeat=2)
    if "error" in r:
        R.out(f"| ours | ta.plot(kind='roc'), 200 levels | {r['error']} | - | - |")
    else:
        worst = max(float(max(abs(mp.mpf(lo) - pref[x][0]), abs(mp.mpf(hi) - pref[x][0]))
                          / pref[x][0]) for (lo, hi), x in zip(r["out"][1], plv, strict=True))
        R.out(f"| ours | ta.plot(kind='roc'), 200 levels (the plot and two bands; certified) | "
              f"{t_(r)} | {r['out'][0]:.2g} | {worst:.2g} |")
    R.out("| ours, former path | the PLD whole curve | 397 s (issue 30; not re-run) | - | - |")
    rr = run(RISKCAL, "x = np.logspace(-8, 0, 200)\nb = get_beta_for_dpsgd(0.5, 0.01, 20000, x)"
                      "\nout = [None, [1 - float(b[0])]]", timeout=600, repeat=1)
    if "error" in rr:
        R.out(f"| riskcal | get_beta_for_dpsgd, 200 levels | {rr['error']} | - | - |")
    else:
        R.out(f"| riskcal | get_beta_for_dpsgd, 200 levels (estimate) | {t_(rr)} | - | "
              f"power at 1e-8: {rr['out'][1][0]:.6g} |")
    # -- 4. the exponential mechanism with 100 explicit candidates ------------------------------
    R.out()
    R.out("## The exponential mechanism, 100 candidates (random integer utilities in [0, 20], "
          "moved by -1, 0, +1; eps = 1)")
    R.out()
    em = ("import random\nrandom.seed(1)\nu = [random.randint(0, 20) for _ in range(100)]\n"
          "v = [x + random.choice([-1, 0, 1]) for x in u]\n")
    uu_rng = __import__("random").Random(1)
    uu = [uu_rng.randint(0, 20) for _ in range(100)]
    vv = [x + uu_rng.choice([-1, 0, 1]) for x in uu]
    w_p = [mp.exp(mp.mpf(x) / 2) for x in uu]
    w_q = [mp.exp(mp.mpf(x) / 2) for x in vv]
    zp, zq = mp.fsum(w_p), mp.fsum(w_q)
    Pm, Qm = [x / zp for x in w_p], [x / zq for x in w_q]

    def hs(e):
        E = mp.exp(e)
        return mp.fsum(max(mp.zero, y - E * x) for x, y in zip(Pm, Qm, strict=True))

    lo_e, hi_e = mp.zero, mp.one
    for _ in range(150):
        mid = (lo_e + hi_e) / 2
        lo_e, hi_e = (mid, hi_e) if hs(mid) > mp.mpf(10) ** -6 else (lo_e, mid)
    R.out(f"Reference eps(1e-6) = {mpmath.nstr(hi_e, 20)} (the hockey-stick divergence of the "
          "softmax laws summed in mpmath at 50 digits, candidate by candidate, and bisection).")
    R.out()
    R.out("| who | what | time | guarantee | rel. error vs reference |")
    R.out("|---|---|---|---|---|")
    b_build = em + "f = ta.exponential_mechanism(1, u, v)\nout = [None, None]"
    b_em = (em + "f = ta.exponential_mechanism(1, u, v)\nt0 = time.perf_counter()\n"
            "e = ta.epsilon(f, sp.Rational(1, 10**6))\nout = [str(e.mid), e.guarantee]")
    em_cases = [("ours", "build the pair", b_build, ROOT),
                ("ours", "ta.epsilon(pair, 1e-6) (time excludes the build)", b_em, ROOT)]
    if a.before:
        em_cases.append(("ours, former version", "ta.epsilon(pair, 1e-6) (time excludes the "
                         "build)", b_em, a.before))
    for who, what, body, root in em_cases:
        r = run(OURS, body, root=root)
        if "error" in r:
            R.out(f"| {who} | {what} | {r['error']} | - | - |")
            continue
        err = "-" if r["out"][0] is None else \
            mpmath.nstr(abs(mp.mpf(r["out"][0]) - hi_e) / hi_e, 2)
        R.out(f"| {who} | {what} | {t_(r)} | {r['out'][1] or '-'} | {err} |")

    R.out()
    R.out("## Ratios")
    R.out()
    for line in notes:
        R.out(f"* {line}")
    R.write(a.write)


if __name__ == "__main__":
    main()
