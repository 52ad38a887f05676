"""eps and delta of small powers of f_{eps0,0} (randomized response, ``ta.randomized_response(
eps0)`` = ``EpsDelta(eps0, 0)``, composed k times) against dp_accounting's PLD.

Rows: k in {1, 2, 3, 5, 10, 30}, eps0 in {1/2, log 3, 2}; ``ta.epsilon(f, 1e-6)`` and
``ta.delta(f, 1/10)`` at the default 30 digits, ``f = EpsDelta(eps0, 0)**k``; the peer is
``from_privacy_parameters(DifferentialPrivacyParameters(eps0, 0))`` (the pure-DP pair, its
default grid 1e-4, pessimistic), ``self_compose(k)``, ``get_epsilon_for_delta(1e-6)`` /
``get_delta_for_epsilon(0.1)``. Two clocks, both CPU time (``time.process_time_ns``):

* fresh: each call in a fresh process (the imports before the clock; the construction of the
  expression, as the peer's PLD, inside it, and reported apart), best of ``--repeats``;
* warm: one process per row, a warm-up call on another eps0 (excluded), then the median of 50
  calls, each on a freshly constructed expression (construction included) with SymPy's cache
  cleared before it.

Checks, computed here without the library: delta(eps) = sum over the atoms j = 0..k whose loss
eps0 (2j - k) exceeds eps of C(k, j) (x^j - e^eps x^(k-j)) / (1 + x)^k, x = e^eps0 (Kairouz, Oh &
Viswanath; Dong, Roth & Su, Prop. 6), in exact Fractions where x and e^eps are rational, else in
mpmath at 60 digits; eps(delta) by bisection on that sum to 1e-45. Our interval must contain the
reference; dp_accounting's estimate is shown with its relative deviation from it.

    python benchmarks/bench_finite_small.py [--quick] [--root PATH] [--repeats 3]
        [--modes fresh,warm] [--write PATH]

``--root`` runs our side from another copy of the package; ``--before PATH`` times a second
copy beside it, process by process (the figures before a change: ``before -> after``).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from fractions import Fraction

import mpmath
import sympy as sp
from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KS = [1, 2, 3, 5, 10, 30]
EPS0 = ["1/2", "log(3)", "2"]
#: The warm-up's eps0 for each row's eps0 (the same kind of number, another value).
WARM_EPS0 = {"1/2": "7/10", "log(3)": "log(5/2)", "2": "9/4"}
DELTA = "1/1000000"  # the level of eps(delta)
EPS = "1/10"  # the eps of delta(eps)

_OURS = r"""
import json, sys, time, statistics, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import sympy as sp
import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
import mpmath
mode, q, k = {mode!r}, {q!r}, {k}
eps0, warm0 = sp.sympify({eps0!r}), sp.sympify({warm0!r})
arg = sp.Rational({arg!r})  # (given, as the peer's float literal is: not timed)
fn = ta.epsilon if q == "eps" else ta.delta
T = time.process_time_ns

def one(e0):
    t0 = T()
    f = ta.EpsDelta(e0, 0) ** k if k > 1 else ta.EpsDelta(e0, 0)
    t1 = T()
    v = fn(f, arg)
    t2 = T()
    return v, t1 - t0, t2 - t1

if mode == "fresh":
    v, tc, tq = one(eps0)
else:
    one(warm0)
    ts = []
    for _ in range(50):
        sp.core.cache.clear_cache()
        v, tc, tq = one(eps0)
        ts.append((tc + tq, tq))
    tc = statistics.median(t[0] for t in ts) - statistics.median(t[1] for t in ts)
    tq = statistics.median(t[1] for t in ts)
with mp.workdps(60):
    lo, hi = v.interval()
    lo, hi = mpmath.nstr(lo, 45), mpmath.nstr(hi, 45)
print(json.dumps(dict(lo=lo, hi=hi, g=v.guarantee, route=v.route, tc=tc / 1e9, tq=tq / 1e9)))
"""

_PEER = r"""
import json, time, statistics
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld
mode, q, k, eps0, warm0 = {mode!r}, {q!r}, {k}, {eps0!r}, {warm0!r}
T = time.process_time_ns

def one(e0):
    t0 = T()
    p = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, 0.0))
    p = p.self_compose(k) if k > 1 else p
    v = p.get_epsilon_for_delta(1e-6) if q == "eps" else p.get_delta_for_epsilon(0.1)
    return v, T() - t0

if mode == "fresh":
    v, t = one(eps0)
else:
    one(warm0)
    ts = []
    for _ in range(50):
        v, t = one(eps0)
        ts.append(t)
    t = statistics.median(ts)
print(json.dumps(dict(v=v, t=t / 1e9)))
"""

_M = mpmath.MPContext()
_M.dps = 60


def _ratio(e: sp.Expr) -> Fraction | None:
    """e^e as a Fraction where e is 0 or log of a rational; else None."""
    if e == 0:
        return Fraction(1)
    if isinstance(e, sp.log) and isinstance(e.args[0], sp.Rational):
        return Fraction(int(e.args[0].p), int(e.args[0].q))
    return None


def ref_delta(eps0: sp.Expr, k: int, eps: sp.Expr | mpmath.mpf):
    """delta(eps) of f_{eps0,0}^(x)k by the direct sum over the k + 1 atoms: a Fraction where
    e^eps0 and e^eps are rational (eps a SymPy number), else a 60-digit mpf."""
    x = _ratio(eps0)
    r = _ratio(eps) if isinstance(eps, sp.Basic) else None
    if x is not None and r is not None:
        tot = Fraction(0)
        for j in range(k + 1):
            if x ** (2 * j - k) > r:  # the atom's loss eps0 (2j - k) exceeds eps, exactly
                tot += math.comb(k, j) * (x**j - r * x ** (k - j))
        return tot / (1 + x) ** k
    m = _M
    e0 = m.mpf(sp.N(eps0, 80))
    e = m.mpf(sp.N(eps, 80)) if isinstance(eps, sp.Basic) else eps
    xx, ee, tot = m.exp(e0), m.exp(e), m.zero
    for j in range(k + 1):
        if e0 * (2 * j - k) > e:
            tot += math.comb(k, j) * (xx**j - ee * xx ** (k - j))
    return tot / (1 + xx) ** k


def _mp(x) -> mpmath.mpf:
    """A Fraction or an mpf as a 60-digit mpf."""
    if isinstance(x, Fraction):
        return _M.mpf(x.numerator) / x.denominator
    return _M.mpf(x)


def ref_epsilon(eps0: sp.Expr, k: int, d: sp.Rational) -> mpmath.mpf:
    """eps(d) = inf{eps >= 0 : delta(eps) <= d} by bisection on :func:`ref_delta` (60 digits)
    to an interval of width 1e-45 (its midpoint)."""
    m = _M
    dd = m.mpf(sp.N(d, 80))
    if _mp(ref_delta(eps0, k, sp.Integer(0))) <= dd:
        return m.zero
    lo, hi = m.zero, k * m.mpf(sp.N(eps0, 80))  # delta(0) > d >= 0 = delta(k eps0)
    while hi - lo > m.mpf(10) ** -45:
        mid = (lo + hi) / 2
        if _mp(ref_delta(eps0, k, mid)) > dd:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _best(runs: list[dict], key: str) -> dict:
    ok = [r for r in runs if "error" not in r]
    return min(ok, key=lambda r: r[key]) if ok else runs[0]


def _ms(t: float) -> str:
    return f"{t * 1e3:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="k in {1, 3, 10}, one repeat")
    ap.add_argument("--root", default=ROOT, help="the package's tree for our side")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--modes", default="fresh,warm")
    ap.add_argument("--peer", default="yes", help="'no': our side only")
    ap.add_argument("--before", help="another tree of the package, timed beside ours (its "
                                     "figures before a change), interleaved process by process")
    ap.add_argument("--write")
    a = ap.parse_args()
    ks = [1, 3, 10] if a.quick else KS
    reps = 1 if a.quick else a.repeats
    modes = a.modes.split(",")
    R = Report()
    R.out("# eps and delta of f_{eps0,0}^(x)k at small k: ours against dp_accounting")
    R.out()
    R.out(run_line("python benchmarks/bench_finite_small.py" + (" --quick" if a.quick else "")
                   + ("" if a.root == ROOT else f" --root {a.root}")
                   + (f" --before {a.before}" if a.before else ""),
                   ("sympy", "mpmath", "python-flint", "dp-accounting", "numpy")))
    R.out()
    R.out("CPU ms (`time.process_time_ns`). fresh: the best of "
          f"{reps} fresh processes, construction + call (the call alone in brackets); warm: one "
          "process per row, a warm-up on another eps0 excluded, the median of 50 calls on "
          "fresh expressions with SymPy's cache cleared (construction + call; the call alone in "
          "brackets). dp_accounting: the pure-DP PLD (grid 1e-4, pessimistic) built, composed "
          "and asked, likewise. check: our interval contains the reference (exact sum over the "
          "atoms: Fractions where e^eps0 and e^eps are rational, else 60-digit mpmath; eps by "
          "bisection on it). dev.: dp_accounting's estimate relative to the reference."
          + (" ours: the tree before -> this tree, timed alternately." if a.before else ""))
    R.out()
    R.out("| query | eps0 | k | ours [lo, hi] | guarantee | check | ours fresh | ours warm "
          "| dp_accounting | dev. | its fresh | its warm | fresh ratio | warm ratio |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    t_start = time.time()
    worst = {"fresh": 0.0, "warm": 0.0}
    for q in ("eps", "delta"):
        arg = DELTA if q == "eps" else EPS
        for e0s in EPS0:
            eps0 = sp.sympify(e0s)
            for k in ks:
                if q == "eps":
                    ref = ref_epsilon(eps0, k, sp.Rational(DELTA))
                else:
                    ref = ref_delta(eps0, k, sp.Rational(EPS))
                ours, peer, before = {}, {}, {}
                for mode in modes:
                    n = reps if mode == "fresh" else 1
                    code = _OURS.format(root=a.root, mode=mode, q=q, k=k, eps0=e0s,
                                        warm0=WARM_EPS0[e0s], arg=arg)
                    bcode = None if not a.before else _OURS.format(
                        root=a.before, mode=mode, q=q, k=k, eps0=e0s, warm0=WARM_EPS0[e0s],
                        arg=arg)
                    runs, bruns = [], []
                    for _ in range(n):
                        runs.append(child_json(code, 600))
                        if bcode:
                            bruns.append(child_json(bcode, 600))
                    ours[mode] = _best(runs, "tq")
                    if bruns:
                        before[mode] = _best(bruns, "tq")
                    if a.peer == "yes":
                        pcode = _PEER.format(mode=mode, q=q, k=k, eps0=float(sp.N(eps0, 20)),
                                             warm0=float(sp.N(sp.sympify(WARM_EPS0[e0s]))))
                        pr = [child_json(pcode, 600) for _ in range(reps if mode == "fresh"
                                                                    else 1)]
                        peer[mode] = _best(pr, "t")
                first = next(iter(ours.values()))
                if "error" in first:
                    R.out(f"| {q} | {e0s} | {k} | error: {first['error']} |")
                    continue
                with mpmath.workdps(60):
                    lo, hi = mpmath.mpf(first["lo"]), mpmath.mpf(first["hi"])
                    rf = mpmath.mpf(_mp(ref))
                    inside = lo <= rf <= hi
                    exact = isinstance(ref, Fraction)
                    check = ("contains " + ("the exact value" if exact else "ref")
                             if inside else f"MISSES ref {mpmath.nstr(rf, 20)}")
                    val = f"[{mpmath.nstr(lo, 13)}, {mpmath.nstr(hi, 13)}]"

                    def cell(r: dict) -> str:
                        if "error" in r:
                            return "error"
                        return f"{_ms(r['tc'] + r['tq'])} ({_ms(r['tq'])})"

                    pv, dev, pt, pw, rf_, rw = "-", "-", "-", "-", "-", "-"
                    if peer:
                        p0 = next(iter(peer.values()))
                        if "error" not in p0:
                            pv = f"{p0['v']:.10g}"
                            dev = ("-" if rf == 0 else
                                   f"{float((mpmath.mpf(p0['v']) - rf) / rf):+.1e}")
                        if "fresh" in peer and "error" not in peer["fresh"]:
                            pt = _ms(peer["fresh"]["t"])
                            if "error" not in ours.get("fresh", {"error": 1}):
                                x = (ours["fresh"]["tc"] + ours["fresh"]["tq"]) / \
                                    peer["fresh"]["t"]
                                worst["fresh"] = max(worst["fresh"], x)
                                rf_ = f"{x:.2f}"
                        if "warm" in peer and "error" not in peer["warm"]:
                            pw = _ms(peer["warm"]["t"])
                            if "error" not in ours.get("warm", {"error": 1}):
                                x = (ours["warm"]["tc"] + ours["warm"]["tq"]) / peer["warm"]["t"]
                                worst["warm"] = max(worst["warm"], x)
                                rw = f"{x:.2f}"
                fresh = cell(ours["fresh"]) if "fresh" in ours else "-"
                warm = cell(ours["warm"]) if "warm" in ours else "-"
                if before:
                    fresh = (cell(before["fresh"]) if "fresh" in before else "-") + " -> " + fresh
                    warm = (cell(before["warm"]) if "warm" in before else "-") + " -> " + warm
                R.out(f"| {q} | {e0s} | {k} | {val} | {first['g']} | {check} | {fresh} | "
                      f"{warm} | {pv} | {dev} | {pt} | {pw} | {rf_} | {rw} |")
    R.out()
    if a.peer == "yes":
        R.out(f"Largest ratio ours / dp_accounting: fresh {worst['fresh']:.2f}, "
              f"warm {worst['warm']:.2f}.")
    R.out(f"Whole run: {time.time() - t_start:.0f} s wall.")
    R.write(a.write)


if __name__ == "__main__":
    main()
