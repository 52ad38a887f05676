"""Fuzz the routes of the ninth audit against independent references (seeded random draws).

Routes (the runner and draw helpers are benchmarks/_fuzz.py; the value checks those of
fuzz_routes5/6/7/8, imported):

* ``hband``: curves (``bounds=True``) and roc of the add/remove hull of the Poisson-subsampled
  Laplace mechanism, ``ta.laplace_mechanism(1, b, sampling="poisson", p=q)**T``, T 1 .. 50, at
  tolerances 5e-4 .. 1e-12, where a curve band route may offer a certified band wider than tol
  (``numeric/curves._route_band``, ``routes/hull_cells.hull_cells_band``): (i) every band
  against dp_accounting's optimistic/pessimistic pair (grid 1e-5, 1e-4 past T = 10; the power
  inf over eps in [-e_max, e_max] of delta(eps) + e^eps alpha, fuzz_routes6._curve_ref);
  (iii) a band wider than 1.5 tol (the route's measure: max of the power's relative width and
  f's absolute width, ``numeric/cells_curve.widths``) without a ToleranceWarning is flagged,
  and so is an estimate (an EstimateWarning) whose value would be named certified;
* ``hnest``: (ii) one hband question at 2 or 3 of 5e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12 in a
  random order, in this process (whatever ran before): each tighter band inside each looser;
* ``hfresh``: (ii) the same in fresh processes, one per tolerance (nothing in the chain);
* ``deadline``: ``ta.time_limit(s)``, s 0.05 .. 2, calls of epsilon, delta, roc and curve at
  tol 1e-8 .. 1e-12 on noisy_sgd, Laplace powers and products, PoissonReplace powers and the
  subsampled Laplace hull, fresh parameters each draw: the CPU time past the limit (the
  overrun) recorded; flagged past 1.5 s;
* ``ends``: evaluate and roc at alpha = 0, 1 of products of fuzz_routes8's factors and the hulls
  (noisy_sgd, the subsampled Laplace), Laplace and f_{eps,delta} of irrational parameter and
  f_p of irrational p (``routes/product.EndsRoute``; an irrational f(0) a certified ball),
  against prod f_i(0) at 60 digits; a rational end expected exact;
* ``sandwich``: delta, epsilon, roc and evaluate of L_mu^k (k 1 .. 4) and G_nu (x) L_mu, mu in
  {sqrt 2, pi/3, log 3, sqrt 3/2, e/3} (``routes/parameter_sandwich.py``), against 60 digits:
  delta by the Irwin-Hall quadrature of references.laplace_sum (and np_power's
  gauss_laplace_tail), roc by Neyman-Pearson (references.np_power; k = 1: the closed form).

Flags: fuzz_routes8's, and "wide, no warning" (a band or value wider than 1.5 tol without a
ToleranceWarning), "overrun (CPU)" (deadline: more than 1.5 s of CPU past the limit), "hung"
(any call 60 s of CPU past its limit: stopped by SIGPROF, so the run goes on). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes9.py --seed 1 --minutes 30 \
        --results benchmarks/RESULTS_audit_routes9.md [--only hband,deadline]
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import fuzz_routes5 as F5  # noqa: E402
import fuzz_routes6 as F6  # noqa: E402
import fuzz_routes7 as F7  # noqa: E402
import fuzz_routes8 as F8  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from _fuzz import Case, draw_levels, mpf_of, rat, tight  # noqa: E402
from _fuzz import dps_for as _dps  # noqa: E402
from references import audit6_refs as R6  # noqa: E402
from references import laplace_sum as LS  # noqa: E402
from references import np_power as NP  # noqa: E402
from references.audit8_refs import laplace_power  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

TOLS = [5e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12]


def _st(stats, key):
    return _fuzz.route_stats(stats, key)


# ---------------------------------------------------------------------------------------------
# (a) the hull bands of the subsampled Laplace
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=8)
def _plds(b: float, q: float, T: int):
    return R6.sampled_laplace_plds(b, q, T, 1e-5 if T <= 10 else 1e-4)


def _hband_question(rng):
    """(expr, code with dps=DPS, kind, reference thunk, levels or alpha)."""
    b = Fraction(rng.choice([5, 10, 20, 50]), 10)
    q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20), Fraction(1, 5)])
    T = rng.choice([1, 2, 3, 5, 10, 10, 20, 50])
    expr = f"ta.laplace_mechanism(1, {rat(b)}, sampling='poisson', p={rat(q)})**{T}"
    emax = float(1 / b) * min(T, 40) + 2

    def pair(e):
        return R6.pld_delta_pair(_plds(float(b), float(q), T), e)
    if rng.random() < 0.6:
        als = draw_levels(rng, rng.randint(1, 6))
        if rng.random() < 0.2:
            als = sorted(set(als) | {0.0, 1.0})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"
        return expr, code, "curve", lambda: F6._curve_ref(pair, als, emax, 4001), als
    al = F7._alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps=DPS)"

    def rref():
        if al in (0, 1):
            return mpf_of(al), mpf_of(al)
        return F6._roc_ref(pair, al, emax, 4001)
    return expr, code, "power", rref, al


def gen_hband(rng):
    expr, code, kind, ref, x = _hband_question(rng)
    tol = rng.choice(TOLS)
    c = Case("hband", code.replace("dps=DPS", f"dps={_dps(tol)}"), ref, kind, tol, 120.0)
    c.als = x
    c.expect_exact_end = kind == "power" and x in (0, 1)
    return c


def _curve_width(lo, hi, als):
    """The route's measure of a curve band (numeric/cells_curve.widths, 'curve')."""
    lo, hi, x = np.asarray(lo), np.asarray(hi), np.asarray(als)
    p_rel = (hi - lo) / np.maximum(1 - lo, 1e-300)
    return float(np.max(np.where(x > 0, np.maximum(p_rel, hi - lo), 0.0), initial=0.0))


def check_hband(case, flags, stats):
    F8.check(case, flags, stats)
    out, err, ws = F7._OUT.get("out"), F7._OUT.get("err"), F7._OUT.get("ws", [])
    if err is not None or out is None:
        return
    warned = any(issubclass(w.category, ta.ToleranceWarning) for w in ws)
    est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
    if isinstance(out, tuple):
        if est:
            return
        w = _curve_width(out[0], out[1], case.als)
        stats.setdefault("band widths", []).append((case.tol, w, warned))
        if w > 1.5 * case.tol and not warned:
            flags.append(("wide, no warning", case, f"band width {w:.3g} at tol {case.tol}"))
        return
    if not F5._is_cert(out):
        return
    lo, hi = (float(t) for t in out.interval())
    w = (hi - lo) / max(hi, 1e-300)
    stats.setdefault("band widths", []).append((case.tol, w, warned))
    if w > 1.5 * case.tol and not warned and lo != hi:
        flags.append(("wide, no warning", case, f"relative width {w:.3g} at tol {case.tol}"))


def gen_hnest(rng, route="hnest"):
    code = _hband_question(rng)[1]
    return _fuzz.nest_case(rng, route, code, "hnest", 120.0, TOLS, route == "hfresh")


def gen_hfresh(rng):
    return gen_hnest(rng, "hfresh")


def _interval(out):
    return F5._interval(out) if F5._is_cert(out) else None


def check_hnest(case, flags, stats):
    st = _st(stats, case.route)
    st["draws"] += 1
    _fuzz.check_nested(case, st, flags, stats, F5._ask, _interval, 900)


# ---------------------------------------------------------------------------------------------
# (b) time limits at tight tolerances
# ---------------------------------------------------------------------------------------------

def _deadline_expr(rng):
    kind = rng.choice(["sgd", "lap", "laptensor", "replace", "hull"])
    r = rng.randint
    if kind == "sgd":
        return kind, (f"ta.noisy_sgd({rat(Fraction(r(6, 30), 10))}, "
                      f"{rat(Fraction(r(1, 200), 10000))}, {rng.choice([10, 100, 1000, 10000])})")
    if kind == "lap":
        return kind, f"ta.Laplace({rat(Fraction(r(1, 300), 1000))})**{rng.choice([10, 100, 1000])}"
    if kind == "laptensor":
        return kind, (f"ta.Tensor(ta.Laplace({rat(Fraction(r(1, 300), 1000))})**{r(2, 50)}, "
                      f"ta.Laplace({rat(Fraction(r(1, 300), 1000))})**{r(2, 50)}, "
                      f"ta.G({rat(Fraction(r(1, 30), 10))}))")
    if kind == "replace":
        return kind, (f"ta.PoissonReplace({rat(Fraction(r(5, 30), 10))}, "
                      f"{rat(Fraction(r(1, 500), 1000))})**{rng.choice([5, 10, 50, 100])}")
    return kind, (f"ta.laplace_mechanism(1, {rat(Fraction(r(5, 50), 10))}, sampling='poisson', "
                  f"p={rat(Fraction(r(1, 200), 1000))})**{rng.choice([10, 100, 1000])}")


def gen_deadline(rng):
    kind, expr = _deadline_expr(rng)
    tol = rng.choice([1e-8, 1e-10, 1e-12])
    lim = rng.choice([0.05, 0.2, 0.5, 1.0, 2.0])
    which = rng.choice(["epsilon", "delta", "roc", "curve"])
    if which == "epsilon":
        code = f"ta.epsilon({expr}, {rat(Fraction(1, 10 ** rng.randint(3, 10)))}, dps={_dps(tol)})"
    elif which == "delta":
        code = f"ta.delta({expr}, {rat(Fraction(rng.randint(1, 400), 100))}, dps={_dps(tol)})"
    elif which == "roc":
        code = f"ta.roc({expr}, {rat(F7._alpha(rng))}, dps={_dps(tol)})"
    else:
        code = f"ta.curve({expr}, {draw_levels(rng, rng.randint(1, 20))!r}, bounds=True)"
    c = Case("deadline:" + kind, code, None, "deadline", tol, lim)
    return c


def check_deadline(case, flags, stats):
    st = _st(stats, case.route)
    st["draws"] += 1
    out, err, wall, cpu, ws = F5._ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    over = cpu - case.limit
    stats.setdefault("overruns", []).append((over, case.limit, case.route, case.call()))
    print(f"  = {type(err).__name__ if err else 'answered'} wall {wall:.2f} s cpu {cpu:.2f} s "
          f"(limit {case.limit})", flush=True)
    if over > 1.5:
        flags.append(("overrun (CPU)", case, f"cpu {cpu:.2f} s, wall {wall:.2f} s, limit "
                      f"{case.limit} s, outcome {type(err).__name__ if err else 'answered'}"))
    if err is not None:
        _fuzz.tally_error(err, st, flags, case)
        return
    if isinstance(out, tuple):
        bad = np.any(np.isnan(out[0])) or np.any(np.isnan(out[1])) or np.any(out[0] > out[1])
        est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
    else:
        bad = mpmath.isnan(mpmath.mpf(out.lo)) or mpmath.isnan(mpmath.mpf(out.hi))
        est = not F5._is_cert(out)
        route = str(getattr(out, "route", "") or "").lower()
        if est and "certified" in route and "not certified" not in route:
            flags.append(("estimate named certified", case, f"{out!r} route {route!r}"))
    if bad:
        flags.append(("NaN", case, str(out)[:200]))
    st["estimate" if est else "certified"] += 1


# ---------------------------------------------------------------------------------------------
# (c) exact ends and the parameter sandwich
# ---------------------------------------------------------------------------------------------

IRR = ["sp.sqrt(2)", "sp.pi/3", "sp.log(3)", "sp.sqrt(3)/2", "sp.E/3"]


def _end_factor9(rng):
    """(source, f(0) as a SymPy number)."""
    kind = rng.choice(["old", "old", "sgd", "hull", "Lirr", "EDirr", "MixIrr"])
    if kind == "old":
        src, v = F8._end_factor(rng)
        return src, sp.Rational(v.numerator, v.denominator)
    if kind == "sgd":
        return (f"ta.noisy_sgd({rat(Fraction(rng.randint(5, 30), 10))}, "
                f"{rat(Fraction(1, rng.choice([10, 100, 1000])))}, {rng.choice([1, 10, 1000])})",
                sp.S.One)
    if kind == "hull":
        return (f"ta.laplace_mechanism(1, {rat(Fraction(rng.randint(5, 30), 10))}, "
                f"sampling='poisson', p={rat(Fraction(1, rng.choice([2, 100])))})", sp.S.One)
    if kind == "Lirr":
        return f"ta.Laplace({rng.choice(IRR)})", sp.S.One
    d = Fraction(1, 10 ** rng.randint(1, 8))
    if kind == "EDirr":
        return f"ta.EpsDelta({rng.choice(IRR)}, {rat(d)})", 1 - sp.Rational(d.numerator,
                                                                             d.denominator)
    p = rng.choice(["1/sp.sqrt(2)", "1/sp.sqrt(3)", "sp.pi/4"])
    dd = sp.Rational(d.numerator, d.denominator)
    return f"ta.Mix(ta.EpsDelta(1, {rat(d)}), {p})", 1 - eval(p, {"sp": sp}) * dd  # noqa: S307


def gen_ends(rng):
    parts, f0 = [], sp.S.One
    for _ in range(rng.randint(1, 3)):
        src, v = _end_factor9(rng)
        p = rng.choice([1, 2, 3, 10, 1000] if v == 1 else [1, 2, 3, 10])
        parts.append(src + (f"**{p}" if p > 1 else ""))
        f0 *= v ** p
    expr = parts[0] if len(parts) == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    tol, lim = rng.choice(TOLS), rng.choice([20.0, 20.0, 1.0, 0.3])
    end = rng.choice([0, 0, 1])
    fn = rng.choice(["evaluate", "roc"])
    val = f0 if end == 0 else sp.S.Zero
    val = val if fn == "evaluate" else 1 - val
    code = f"ta.{fn}({expr}, {end}, dps={_dps(tol)})"
    with mpmath.workdps(60):
        v = mpmath.mpf(sp.N(val, 70))
        pair = (v, v) if isinstance(val, sp.Rational) else tight(v, 50)
    c = Case("ends", code, lambda: pair, "prob" if fn == "evaluate" else "power", tol, lim)
    c.expect_exact_end = isinstance(val, sp.Rational)
    c.want_cert = True
    return c


def _mu(src):
    with mpmath.workdps(70):
        return mpmath.mpf(sp.N(eval(src, {"sp": sp}), 70))  # noqa: S307


def _tails_fn(mu_src, k, nu):
    """(P(L > t), Q(L > t)) at 60 digits of L_mu^k (nu None) or G_nu (x) L_mu."""
    def tp(t):
        if nu is None:
            return LS.tails(_mu(mu_src), k, t)[1]
        return NP.gauss_laplace_tail(mpf_of(nu), _mu(mu_src), False, t)

    def tq(t):
        if nu is None:
            return LS.tails(_mu(mu_src), k, t)[0]
        return NP.gauss_laplace_tail(mpf_of(nu), _mu(mu_src), True, t)
    return tp, tq


def gen_sandwich(rng):
    mu_src = rng.choice(IRR)
    nu = Fraction(rng.randint(2, 20), 10) if rng.random() < 0.25 else None
    k = 1 if nu is not None else rng.choice([1, 1, 2, 2, 3, 4])
    lap = f"ta.Laplace({mu_src})" + (f"**{k}" if k > 1 else "")
    expr = lap if nu is None else f"ta.Tensor(ta.G({rat(nu)}), {lap})"
    tol, lim = rng.choice(TOLS), rng.choice([20.0, 20.0, 20.0, 1.0])
    tp, tq = _tails_fn(mu_src, k, nu)
    m = float(sp.N(eval(mu_src, {"sp": sp})))  # noqa: S307
    top = k * m + (0 if nu is None else float(nu) * 6 + float(nu) ** 2)
    which = rng.choice(["delta", "delta", "epsilon", "roc", "evaluate"] if k <= 2 or nu
                       else ["delta", "delta", "epsilon"])

    def delta_at(e):
        with mpmath.workdps(60):
            e = mpmath.mpf(e)
            return tight(tq(e) - mpmath.exp(e) * tp(e), 45)
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1.1) * top * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        with mpmath.workdps(60):
            e60 = mpf_of(eps)
        return Case("sandwich", code, lambda: delta_at(e60), "prob", tol, lim)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.randint(1, 8))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("sandwich", code, lambda: delta_at, "eps", tol, lim, level=D)
    al = F7._alpha(rng)
    while al in (0, 1) or al < Fraction(1, 10 ** 12):
        al = F7._alpha(rng)
    code = f"ta.{which}({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref():
        with mpmath.workdps(60):
            a = mpf_of(al)
            if k == 1 and nu is None:
                p = laplace_power(a, _mu(mu_src))
            else:
                lo, hi = -top - 1, top + 1
                p = NP.np_power(tp, tq, a, lo, hi, iters=120)
            lo_, hi_ = tight(p, 35)
            return (lo_, hi_) if which == "roc" else (1 - hi_, 1 - lo_)
    return Case("sandwich", code, ref, "power" if which == "roc" else "prob", tol, lim)


# ---------------------------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------------------------

GENERATORS = {"hband": gen_hband, "hnest": gen_hnest, "deadline": gen_deadline, "ends": gen_ends,
              "sandwich": gen_sandwich, "hfresh": gen_hfresh, "deadline2": gen_deadline}


def check(case, flags, stats):
    def one():
        if case.kind == "hnest":
            return check_hnest(case, flags, stats)
        if case.kind == "deadline":
            return check_deadline(case, flags, stats)
        if case.route == "hband":
            return check_hband(case, flags, stats)
        F8.check(case, flags, stats)
        out = F7._OUT.get("out")
        if getattr(case, "want_cert", False) and out is not None and not F5._is_cert(out):
            flags.append(("missed certificate", case, f"an end: {out!r} {out.guarantee} "
                          f"{getattr(out, 'route', '')}"))
    _fuzz.guarded(one, case, flags, 60.0 + (case.limit if case.kind == "deadline" else 0.0),
                  3 if case.kind == "hnest" else 1)


def summary(stats) -> list[str]:
    out = []
    over = sorted(stats.get("overruns", []), reverse=True)
    if over:
        xs = np.array([o[0] for o in over])
        out.append(f"deadline overruns (CPU past the limit, {len(xs)} calls): max "
                   f"{xs.max():.2f} s, "
              f"p90 {np.quantile(xs, 0.9):.2f} s, median {np.median(xs):.2f} s")
        for o in over[:5]:
            out.append(f"  {o[0]:.2f} s past {o[1]} s [{o[2]}]: {o[3]}".replace("\n", " "))
    ws = stats.get("band widths", [])
    if ws:
        wide = [w for w in ws if w[1] > w[0]]
        out.append(f"hband: {len(ws)} certified answers, {len(wide)} wider than tol "
              f"({sum(1 for w in wide if w[2])} with a ToleranceWarning)")
    return out


if __name__ == "__main__":
    _fuzz.run(GENERATORS, check, summary)
