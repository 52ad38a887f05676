"""The shuffle model at scale: delta(eps) and eps(delta) of ShuffleDP(eps0, n) for n = 10^4 to
10^6, each in a fresh process (CPU time including import, peak RSS).

Run from the repository root::

    python benchmarks/bench_shuffle.py
    python benchmarks/bench_shuffle.py --write benchmarks/RESULTS_shuffle.md

delta(eps) sums the slices a + b = s of the pair (families/shuffle_profile.py). Its independent
reference here is the table of atoms (families/shuffle_pair.py: every atom of the pair grouped
by its likelihood ratio, sorted, prefix sums in Arb; the hockey-stick sum over it), a different
computation of the same divergence, run where it fits in memory (n = 10^4). eps(delta) is
checked by the reference delta at the two ends of a bracket one part in 10^20 around it.

roc(1/100) (families/shuffle_roc.py: the threshold fraction from the float pass of
families/shuffle_locate.py, the strict tails at it in Arb) is checked at n = 10^4 and 10^5
against the power from the closed-form pair summed in float64 log space
(``bench_issue29.shuffle_delta_ref``, an estimate), 1 - f(alpha) = inf over eps in (0, eps0) of
delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6; golden section, the function being convex
in eps). The whole curve, ``ta.curve(f, numpy.linspace(0, 1, 101), bounds=True)`` at
``pld_options(tol=5e-4)`` and ``1e-9`` (families/shuffle_curve.py: every level's fraction in one
float pass, the tails of all in one Arb slice pass), shows its power band at 0.01 and its largest
relative width, and is checked to hold the roc row's certified value (a different code path:
per-level tails at 30 digits).
"""

from __future__ import annotations

import argparse
import os
import sys

from _report import CHILD_POST, CHILD_PRE, child_json, child_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from references.profile_power import power_from_profile  # noqa: E402

#: The timed children's head after CHILD_PRE: this tree first, the CPU time and the peak
#: resident memory of the whole process (its imports included).
_TIMED = """import sys
sys.path.insert(0, {root!r})
rss0 = 0
t0 = time.process_time()
"""

_DELTA = CHILD_PRE + _TIMED + r"""
import sympy as sp
import tradeoff_algebra as ta
v = ta.delta(ta.ShuffleDP({eps0}, {n}), sp.Rational({eps!r}), dps=30)
import mpmath
out = dict(lo=mpmath.nstr(v.lo, 25), hi=mpmath.nstr(v.hi, 25), g=v.guarantee, route=v.route)
""" + CHILD_POST

_EPS = CHILD_PRE + _TIMED + r"""
import sympy as sp
import tradeoff_algebra as ta
v = ta.epsilon(ta.ShuffleDP({eps0}, {n}), sp.Rational({d!r}), dps={dps})
import mpmath
out = dict(lo=mpmath.nstr(v.lo, 25), hi=mpmath.nstr(v.hi, 25), mid=mpmath.nstr(v.mid, 25),
           g=v.guarantee)
""" + CHILD_POST

_REF = r"""
import json, sys
sys.path.insert(0, {root!r})
import sympy as sp
from flint import arb
from tradeoff_algebra.families.shuffle import _hockey_stick
from tradeoff_algebra.families.shuffle_pair import _table
from tradeoff_algebra.numeric.arb import arb_exact
from tradeoff_algebra.numeric.context import arb_precision, mp
t = _table(sp.Integer({eps0}), {n}, 200, 140)
out = []
with mp.workdps(60):
    xs = [mp.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in {xs!r}]
for x in xs:
    with arb_precision(200):
        ee = arb_exact(x).exp()
        c1, c2 = t.E - ee, t.E * ee - 1
        lo, hi = _hockey_stick(t, c1, c2, ee, float((c2 / c1).mid()), len(t.negkey))
        out.append([lo.lower().str(40, radius=False), hi.upper().str(40, radius=False)])
print(json.dumps(out))
"""


_ROC = CHILD_PRE + _TIMED + r"""
import sympy as sp
import tradeoff_algebra as ta
v = ta.roc(ta.ShuffleDP({eps0}, {n}), sp.Rational(1, 100), dps=30)
import mpmath
out = dict(lo=mpmath.nstr(v.lo, 25), hi=mpmath.nstr(v.hi, 25), mid=mpmath.nstr(v.mid, 25),
           g=v.guarantee, route=v.route)
""" + CHILD_POST

_CURVE = CHILD_PRE + _TIMED + r"""
import numpy as np
import tradeoff_algebra as ta
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ta.pld_options(tol={tol}):
        lo, hi = ta.curve(ta.ShuffleDP({eps0}, {n}), np.linspace(0, 1, 101), bounds=True)
pw = 1 - lo[1:-1]
out = dict(lo=repr(float(1 - hi[1])), hi=repr(float(1 - lo[1])),
           rel=float(np.max((hi - lo)[1:-1] / pw)),
           warned=sorted({{type(w.message).__name__ for w in caught}}))
""" + CHILD_POST


def power_ref(eps0: float, n: int, alpha: float) -> float:
    """1 - f(alpha) = inf over eps in (0, eps0) of delta(eps) + e^eps alpha, delta from the
    float64 log-space sum of the closed-form pair (bench_issue29.shuffle_delta_ref; an
    estimate), by golden section."""
    from bench_issue29 import shuffle_delta_ref

    return power_from_profile(lambda e: shuffle_delta_ref(eps0, n, e), alpha, 1e-9,
                              eps0 - 1e-9, 50)


def _run(code: str):
    """The JSON the child prints last (``{"error"}`` where it fails)."""
    return child_json(code, 3600, cwd=ROOT)


def _timed(code: str) -> dict:
    """A timed child's result (CHILD_POST): its ``out`` with ``t`` (CPU seconds) and ``mem``
    (peak bytes)."""
    r = child_result(_run(code))
    if "error" not in r:
        r["t"], r["mem"] = r.pop("cpu"), r.pop("mib") * 1024 * 1024
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    args = ap.parse_args()
    lines = ["# The shuffle model at scale", "",
             "ShuffleDP(1, n), each row a fresh process (CPU time including import and peak "
             "RSS); `python benchmarks/bench_shuffle.py`.", "",
             "| question | n | result | guarantee | CPU s | peak MiB | reference |",
             "|---|---|---|---|---|---|---|"]
    eps = "1/100"
    for n in (10**4, 10**5, 10**6):
        r = _timed(_DELTA.format(root=ROOT, eps0=1, n=n, eps=eps))
        ref = ""
        if n == 10**4 and "error" not in r:
            rr = _run(_REF.format(root=ROOT, eps0=1, n=n, xs=[eps]))
            if "error" not in rr:
                from fractions import Fraction as F

                lo, hi = (F(x) for x in rr[0])  # the enclosures overlap (25 printed digits)
                ok = lo <= F(r["hi"]) * (1 + F(1, 10**22)) and F(r["lo"]) <= hi * (1 + F(1, 10**22))
                verdict = "agrees" if ok else "DISAGREES"
                ref = f"table of atoms [{rr[0][0][:22]}, {rr[0][1][:22]}]: {verdict}"
        lines.append(f"| delta({eps}) | {n} | {_short(r.get('lo', r.get('error')))} | "
                     f"{r.get('g', '')} | {r.get('t', 0):.2f} | {r.get('mem', 0) / 2**20:.0f} | "
                     f"{ref} |")
    for n, dps in ((10**4, 30), (10**5, 30), (10**6, 10)):
        r = _timed(_EPS.format(root=ROOT, eps0=1, n=n, d="1/1000000", dps=dps))
        ref = ""
        if n == 10**4 and "error" not in r:
            m = float(r["mid"])
            rr = _run(_REF.format(root=ROOT, eps0=1, n=n,
                                  xs=[str(sp_rat(m * (1 - 1e-12))), str(sp_rat(m * (1 + 1e-12)))]))
            if "error" not in rr:
                below, above = float(rr[0][0]), float(rr[1][1])
                ok = below > 1e-6 > above
                ref = f"table delta at eps(1 -/+ 1e-12): {below:.15e} / {above:.15e}: " \
                      f"{'brackets 1e-6' if ok else 'DOES NOT bracket'}"
        lines.append(f"| eps(1e-6), dps {dps} | {n} | {_short(r.get('mid', r.get('error')))} | "
                     f"{r.get('g', '')} | {r.get('t', 0):.2f} | {r.get('mem', 0) / 2**20:.0f} | "
                     f"{ref} |")
    rocs = {}
    for n in (10**4, 10**5, 10**6):
        r = _timed(_ROC.format(root=ROOT, eps0=1, n=n))
        ref = ""
        if "error" not in r:
            rocs[n] = (float(r["lo"]), float(r["hi"]))
            if n <= 10**5:
                pr = power_ref(1.0, n, 0.01)
                gap = abs(float(r["mid"]) - pr) / pr
                ref = (f"float64 profile's inf_eps delta + e^eps alpha: {pr:.15g} "
                       f"(rel. gap {gap:.1e})")
        lines.append(f"| roc(1/100), dps 30 | {n} | {_short(r.get('mid', r.get('error')))} | "
                     f"{r.get('g', '')} | {r.get('t', 0):.2f} | {r.get('mem', 0) / 2**20:.0f} | "
                     f"{ref} |")
    for n in (10**4, 10**5, 10**6):
        for tol in ("5e-4", "1e-9"):
            r = _timed(_CURVE.format(root=ROOT, eps0=1, n=n, tol=tol))
            ref = ""
            if "error" not in r and n in rocs:
                lo, hi = float(r["lo"]), float(r["hi"])
                ok = lo <= rocs[n][0] and rocs[n][1] <= hi
                ref = f"holds roc's value: {'yes' if ok else 'NO'}"
            res = (f"power(0.01) in [{float(r['lo']):.15g}, {float(r['hi']):.15g}], max rel. "
                   f"width {r['rel']:.1e}, warnings: {', '.join(r['warned']) or 'none'}"
                   if "error" not in r else r["error"][:100])
            lines.append(f"| curve, 101 levels, tol {tol} | {n} | {res} | certified band | "
                         f"{r.get('t', 0):.2f} | {r.get('mem', 0) / 2**20:.0f} | {ref} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        with open(args.write, "w") as fh:
            fh.write(text)


def _short(x: str) -> str:
    """A 16-digit rendering of a 25-digit result (an error text as it is)."""
    import mpmath

    try:
        return mpmath.nstr(mpmath.mpf(x), 16)
    except (ValueError, TypeError):
        return x


def sp_rat(x: float) -> str:
    from fractions import Fraction

    f = Fraction(x)
    return f"{f.numerator}/{f.denominator}"


if __name__ == "__main__":
    main()
