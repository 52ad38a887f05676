"""C_{1/10}(RR(1, 3)^{(x) n}) for n = 30, 100, 1000: eps(1e-6), roc(1/100), delta(1) and the
101-level curve with bounds, ours (certified from the operand's Arb balls,
``numeric/subsample_balls.py``) beside the code before it (``--before DIR``: a copy of the
package at the previous commit, which kept estimates) and beside dp_accounting's PLD of the
same pair (an estimate).

The peer is given the pair of f_p = T(P, (1 - p) P + p Q) for the trinomial law of RR(1, 3)^n
(log-masses in float64 from log-gamma counts, summed by logsumexp), as two PLDs
(``from_two_probability_mass_functions``, pessimistic, grid 1e-4), one per direction of
C_p(f) = min{f_p, f_p^{-1}}^{**}: its delta(1) the larger of the two hockey sticks and its
eps(1e-6) the larger of the two epsilons (Dong, Roth & Su, Prop. 6 and Def. 6: the profile of
C_p(f) is the larger of the two directions' profiles for symmetric f). Each cell is a fresh
process: CPU seconds without the imports, peak resident memory above them.

    python benchmarks/bench_cp_balls.py [--before DIR] [--write benchmarks/RESULTS_cp_balls.md]
"""

from __future__ import annotations

import argparse
import os

from _report import CHILD_POST, CHILD_PRE, Report, child_json, run_line

OURS = CHILD_PRE + """
import sympy as sp, numpy as np, mpmath
import tradeoff_algebra as ta
R = sp.Rational
f = ta.C(R(1, 10), ta.TensorPower(ta.randomized_response(1, 3), {n}))
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
q = "{q}"
if q == "curve":
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lo, hi = ta.curve(f, np.linspace(0, 1, 101), bounds=True)
    est = sum("estimate" in str(x.message) for x in w)
    out = dict(value="max width %.2g" % float(np.max(hi - lo)),
               guarantee="estimate" if est else "certified")
else:
    v = {{"eps": lambda: ta.epsilon(f, R(1, 10**6)), "roc": lambda: ta.roc(f, R(1, 100)),
          "delta": lambda: ta.delta(f, 1)}}[q]()
    out = dict(value=mpmath.nstr(v.lo, 15) if v.lo == v.hi
               else "[%s, %s]" % (mpmath.nstr(v.lo, 6), mpmath.nstr(v.hi, 6)),
               guarantee=v.guarantee)
""" + CHILD_POST

PEER = CHILD_PRE + """
import numpy as np
from scipy.special import gammaln, logsumexp
from dp_accounting.pld import privacy_loss_distribution as pld
n, p = {n}, 0.1
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
lz = np.log(np.e + 2)
u = np.arange(n + 1)[:, None]
w = np.arange(n + 1)[None, :]
ok = u + w <= n
lc = gammaln(n + 1) - gammaln(u + 1) - gammaln(w + 1) - gammaln(np.maximum(n - u - w, 0) + 1)
lP = np.where(ok, lc + w - n * lz, -np.inf)  # (u at the true answer: P = 1/z, Q = e/z)
lQ = np.where(ok, lc + u - n * lz, -np.inf)
d = (u - w) + 0 * w
P, Q, M = {{}}, {{}}, {{}}
for k in range(-n, n + 1):
    sel = ok & (d == k)
    P[k], Q[k] = logsumexp(lP[sel]), logsumexp(lQ[sel])
    M[k] = np.logaddexp(np.log1p(-p) + P[k], np.log(p) + Q[k])
a = pld.from_two_probability_mass_functions(P, M, value_discretization_interval=1e-4)
b = pld.from_two_probability_mass_functions(M, P, value_discretization_interval=1e-4)
q = "{q}"
if q == "delta":
    out = dict(value="%.15g" % max(a.get_delta_for_epsilon(1.0), b.get_delta_for_epsilon(1.0)),
               guarantee="estimate")
else:
    out = dict(value="%.15g" % max(a.get_epsilon_for_delta(1e-6), b.get_epsilon_for_delta(1e-6)),
               guarantee="estimate")
""" + CHILD_POST


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=None)
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rep = Report()
    rep.out("# C_{1/10}(RR(1, 3)^n) from the operand's balls")
    rep.out()
    rep.out(run_line("python benchmarks/bench_cp_balls.py", ("numpy", "python-flint",
                                                             "dp-accounting")))
    rep.out()
    rep.out("| n | question | ours | CPU s | MiB | before | CPU s | dp_accounting PLD | CPU s "
            "| MiB |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|")
    for n in (30, 100, 1000):
        for q in ("eps", "roc", "delta", "curve"):
            cells = []
            for root in (here, a.before):
                if root is None:
                    cells.append({"error": "not run"})
                    continue
                env_code = f"import sys; sys.path.insert(0, {root!r})\n" + OURS.format(n=n, q=q)
                cells.append(child_json(env_code, timeout=900))
            peer = (child_json(PEER.format(n=n, q=q), timeout=900) if q in ("eps", "delta")
                    else {"error": "-"})

            def show(c, mem=True):
                if "error" in c:
                    return [c["error"], "", ""][: 3 if mem else 2]
                o = c["out"]
                cols = [f"{o['value']} ({o['guarantee']})", f"{c['cpu']:.2f}"]
                return cols + ([f"{c['mib']:.0f}"] if mem else [])

            row = [str(n), q, *show(cells[0]), *show(cells[1], False), *show(peer)]
            rep.out("| " + " | ".join(row) + " |")
    rep.write(a.write)


if __name__ == "__main__":
    main()
