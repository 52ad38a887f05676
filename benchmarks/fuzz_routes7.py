"""Fuzz the routes of the seventh audit against independent references (seeded random draws).

Routes (references in tests/references/audit7_refs.py, audit6_refs.py, audit5_refs.py,
laplace_sum.py, mixed_finite.py, finite.py; the runner is benchmarks/_fuzz.py, the checks those
of benchmarks/fuzz_routes6.py, imported):

* ``lprof``: L_mu^k, k = 2 .. 20 (numeric/cf_lattice_profile): delta (eps near 0, inside, near
  and at the largest loss k mu), eps, roc, curve; k <= 3 delta by nested Irwin--Hall quadrature
  at 30 digits, else dp_accounting's Laplace PLD pair (sampling rate 1);
* ``cells``: the subsampled Laplace T = 2 .. 100 (numeric/lattice_cells): delta, eps, roc,
  curve against dp_accounting's pair (T <= 2 delta by exact quadrature at 20 digits);
* ``sgd``: few-step DP-SGD seeded by a float PLD (families/gaussian_sampled_seed, numeric/cf's
  node sum), sigma 0.5 .. 8, q 1e-4 .. 0.5, T 2 .. 100, against dp_accounting's pair (T <= 2
  delta by quadrature);
* ``largest``: products of Laplace factors (powers and mixed scales, with a G or f_{eps,delta}
  factor sometimes) at eps at, above and just below the largest loss (analysis/largest_loss):
  exact 0 at and above (the atom bound of audit7_refs below); eps at levels near delta(0)
  (conversions.epsilon's certified 0) for G_mu, L_mu^k, f_{eps,delta}^k; the ends alpha = 0, 1
  and near them of G, L, f_{eps,delta}, Mix (closed forms);
* ``operand``: Mix, Group and Max of RR(eps, k)^n with irrational masses
  (operators/operand_ball): evaluate, roc, delta against the exact knots at 40 digits;
* ``nest``: one question at two tolerances in both call orders in one process (inversion curves'
  milestones, cf_mixed_split.cells_floor's few subsampled Laplace steps): the tighter answer
  inside the looser;
* ``replace``: PoissonReplace k = 1 (certified?) and the far tail (sigma 8, q 1e-3, k 1e4)
  against dp_accounting's REPLACE_ONE pair;
* ``shuffle``: ShuffleDP's roc/evaluate at 0 and curves at levels below its top atom, against
  the exact Fraction atom table or the 40-digit mixture;
* ``contract``: discrete Gaussian, discrete Laplace, randomized response, f_{eps,delta},
  products with Laplace/Gaussian factors, k up to 10^6, under time limits 0.05 .. 5 s: a
  certified enclosure holding the reference (binomial sums where one exists), or the best
  enclosure with a ToleranceWarning inside the limit, or a refusal at once.

Flags beyond fuzz_routes6's (wrong values, NaN, overruns in wall and CPU time, internal errors,
estimates named certified): "not nested" (a tighter tolerance's answer not inside a looser
one's), "wide, no warning" (a certified enclosure 10x wider than tol without a
ToleranceWarning), "slow refusal" (a refusal after more than 0.5 s), "missed exact" (delta
above the largest loss, an end alpha = 0 or 1, or eps = 0 at a level above delta(0) not proved
where the brief says it is). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes7.py --seed 1 --minutes 10 [--only lprof]
"""

from __future__ import annotations

import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import fuzz_routes5 as F5  # noqa: E402
import fuzz_routes6 as F6  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
from references import audit5_refs as A5  # noqa: E402
from references import audit6_refs as R6  # noqa: E402
from references import audit7_refs as R7  # noqa: E402
from references import finite as FN  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

Case, rat, mpf_of = F5.Case, F5.rat, F5.mpf_of
_dps, _widen, _tight = F5._dps, F5._widen, F6._tight


_tol, _limit = _fuzz.draw_tol, _fuzz.draw_limit


def _alpha(rng):
    return rng.choice([Fraction(0), Fraction(1), Fraction(1, 10 ** rng.randint(2, 30)),
                       Fraction(rng.randint(1, 999), 1000),
                       1 - Fraction(1, 10 ** rng.randint(2, 15))])


# ---------------------------------------------------------------------------------------------
# L_mu^k by the piecewise closed form
# ---------------------------------------------------------------------------------------------

def gen_lprof(rng):
    mu = Fraction(rng.choice([1, 2, 3, 5, 10, 20, 50]), 10)
    k = rng.choice([2, 2, 3, 3, 4, 5, 7, 10, 15, 20])
    tol, lim = _tol(rng), _limit(rng)
    expr = f"ta.Laplace({rat(mu)})**{k}"
    M = mu * k
    grid = 1e-4 if float(M) < 20 else 1e-3

    def plds():
        return R6.sampled_laplace_plds(float(1 / mu), 1.0, k, grid)

    which = rng.choice(["delta", "delta", "delta", "eps", "roc", "curve"])
    if which == "delta":
        r = rng.random()
        if r < 0.2:
            eps = Fraction(0)
        elif r < 0.5:
            eps = M - Fraction(1, 10 ** rng.randint(1, 12)) * mu
        elif r < 0.6:
            eps = M + rng.choice([Fraction(0), Fraction(1, 10 ** 9), Fraction(1)])
        else:
            eps = Fraction(round(rng.random() * float(M) * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if eps >= M:
                return mpmath.mpf(0), mpmath.mpf(0)
            if k <= 3:
                return _tight(R7.laplace_power_delta(mpf_of(mu), k, mpf_of(eps), 30), 20)
            lo, hi = _widen(*R6.pld_delta_pair(plds(), float(eps)))
            return max(lo, R7.laplace_atom_lower([mpf_of(mu)] * k, mpf_of(eps))), hi
        return Case("lprof", code, ref, "prob", tol, lim)
    if which == "eps":
        D = rng.choice([Fraction(1, 10 ** rng.randint(1, 14)), Fraction(rng.randint(1, 99), 100)])
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"

        def eref(e):
            if e >= mpf_of(M):
                return mpmath.mpf(0), mpmath.mpf(0)
            if k <= 2:
                return _tight(R7.laplace_power_delta(mpf_of(mu), k, e, 30), 20)
            return _widen(*R6.pld_delta_pair(plds(), float(e)))
        return Case("lprof", code, lambda: eref, "eps", tol, lim, level=D)

    def pair(e):
        return R6.pld_delta_pair(plds(), e)
    emax = float(M) + 2
    if which == "curve":
        als = F6._levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"
        return Case("lprof", code, lambda: F6._curve_ref(pair, als, emax, 2001), "curve", tol,
                    lim)
    al = _alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"

    def rref():
        if al in (0, 1):
            return mpf_of(al), mpf_of(al)
        return F6._roc_ref(pair, al, emax, 2001)
    return Case("lprof", code, rref, "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# the subsampled Laplace by exact cells, T <= 100
# ---------------------------------------------------------------------------------------------

def _cells_params(rng):
    b = Fraction(rng.choice([1, 2, 5, 10, 20, 50, 100]), 10)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20),
                    Fraction(1, 5), Fraction(1, 2)])
    T = rng.choice([2, 2, 3, 5, 10, 20, 50, 100])
    return b, q, T


def gen_cells(rng):
    old = F6._lapsamp_params
    F6._lapsamp_params = _cells_params
    try:
        c = F6.gen_lapsamp(rng)
    finally:
        F6._lapsamp_params = old
    c.route = "cells"  # (its tol and limit are fuzz_routes6's draws: the code's dps follows tol)
    return c


# ---------------------------------------------------------------------------------------------
# few-step DP-SGD
# ---------------------------------------------------------------------------------------------

def gen_sgd(rng):
    sigma = Fraction(rng.choice([5, 6, 8, 10, 11, 15, 20, 40, 80]), 10)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20),
                    Fraction(1, 5), Fraction(1, 2)])
    T = rng.choice([2, 2, 3, 4, 5, 10, 20, 50, 100])
    tol, lim = _tol(rng), _limit(rng)
    expr = f"ta.noisy_sgd({rat(sigma)}, {rat(q)}, {T})"
    which = rng.choice(["delta", "eps", "eps", "roc", "curve"])
    mu = 1 / sigma
    # dp_accounting's T-fold PLD of a wide loss (sigma < 1, q large, T large) takes minutes
    no_ref = float(mu) * float(q) * T > 40

    def plds():
        return R6.dpsgd_plds(float(sigma), float(q), T, 1e-4)

    emax = float(mu) * (T ** 0.5) * 3 + float(mu) ** 2 * T * float(q) + 3
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1.0) * emax * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        exact = T <= 2 and rng.random() < 0.6

        def ref():
            if exact:
                with mpmath.workdps(20):
                    v = R6.sampled_gaussian_hull_delta(mpf_of(mu), mpf_of(q), T, mpf_of(eps))
                return _tight(v, 10)
            return None if no_ref else _widen(*R6.pld_delta_pair(plds(), float(eps)))
        return Case("sgd", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 12))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("sgd", code, lambda: None if no_ref else F6._eps_ref(plds()), "eps", tol,
                    lim, level=D)

    def pair(e):
        return R6.pld_delta_pair(plds(), e)
    if which == "curve":
        als = F6._levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"
        return Case("sgd", code, lambda: None if no_ref else F6._curve_ref(
            pair, als, emax + 5, 2001), "curve", tol, lim)
    al = F5._alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
    return Case("sgd", code, lambda: None if no_ref else F6._roc_ref(pair, al, emax + 5, 2001),
                "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# the largest loss, eps = 0, the ends
# ---------------------------------------------------------------------------------------------

def _laplace_product(rng):
    """(expr, list of the factors' mu, has an unbounded or delta factor)."""
    n = rng.randint(1, 4)
    parts, mus = [], []
    for _ in range(n):
        mu = Fraction(rng.randint(1, 30), rng.choice([1, 2, 3, 5, 7, 10]))
        p = rng.choice([1, 1, 2, 3, 5])
        parts.append(f"ta.Laplace({rat(mu)})" + (f"**{p}" if p > 1 else ""))
        mus += [mu] * p
    extra = None
    if rng.random() < 0.25:
        extra = rng.choice(["ta.G(1)", "ta.EpsDelta(1, sp.Rational(1, 100))",
                            "ta.EpsDelta(sp.Rational(1, 2))"])
        parts.append(extra)
    expr = parts[0] if len(parts) == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    return expr, mus, extra


def gen_largest(rng):
    r = rng.random()
    tol, lim = _tol(rng), _limit(rng)
    if r < 0.45:
        expr, mus, extra = _laplace_product(rng)
        M = sum(mus)
        if extra == "ta.EpsDelta(sp.Rational(1, 2))":
            M += Fraction(1, 2)
        s = rng.random()
        if s < 0.35:
            eps = M
        elif s < 0.5:
            eps = M + Fraction(1, 10 ** rng.randint(1, 15))
        else:
            eps = M - Fraction(1, 10 ** rng.randint(1, 15))
        eps = max(eps, Fraction(0))
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        gauss = extra == "ta.G(1)"
        dfac = extra is not None and "100" in extra

        def ref():
            if gauss or dfac:
                return mpmath.mpf(0), mpmath.mpf(1)  # (delta > 0 everywhere: not exact 0)
            lo = R7.laplace_atom_lower([mpf_of(m) for m in mus]
                                       + ([mpmath.mpf(1) / 2] if extra else []), mpf_of(eps))
            return (mpmath.mpf(0), mpmath.mpf(0)) if eps >= M else (lo, mpmath.mpf(1))
        c = Case("largest", code, ref, "prob", tol, lim)
        c.expect_exact0 = eps >= M and not (gauss or dfac)
        c.expect_positive = eps < M or gauss or dfac
        return c
    if r < 0.75:
        # eps at a level near delta(0)
        kind = rng.choice(["G", "L", "ED"])
        if kind == "G":
            mu = Fraction(rng.choice([1, 5, 10, 20, 50]), 10)
            expr = f"ta.G({rat(mu)})"

            def dfun(e, mu=mu):
                return R6.gauss_delta(mpf_of(mu), e)
        elif kind == "L":
            mu = Fraction(rng.choice([1, 5, 10, 20]), 10)
            k = rng.choice([1, 2])
            expr = f"ta.Laplace({rat(mu)})" + (f"**{k}" if k > 1 else "")

            def dfun(e, mu=mu, k=k):
                return R7.laplace_power_delta(mpf_of(mu), k, e, 30)
        else:
            e0 = Fraction(rng.randint(1, 20), 10)
            d = rng.choice([Fraction(0), Fraction(1, 100), Fraction(1, 10 ** 6)])
            k = rng.choice([1, 2, 5, 30])
            expr = f"ta.EpsDelta({rat(e0)}, {rat(d)})" + (f"**{k}" if k > 1 else "")

            def dfun(e, e0=e0, d=d, k=k):
                return R7.epsdelta_power_delta(mpf_of(e0), mpf_of(d), k, e, 40)
        with mpmath.workdps(40):
            d0 = dfun(mpmath.mpf(0))
            sgn = rng.choice([-1, 1, 1])
            D = Fraction(mpmath.nstr(d0 * (1 + sgn * mpmath.mpf(10) ** -rng.randint(1, 14)), 35,
                                     min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
        D = min(D, Fraction(1))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"

        def eref(e):
            with mpmath.workdps(40):
                return _tight(dfun(mpmath.mpf(e)), 25)
        c = Case("eps0", code, lambda: eref, "eps", tol, lim, level=D)
        with mpmath.workdps(40):
            c.expect_eps0 = mpf_of(D) >= d0 * (1 + mpmath.mpf(10) ** -20)
        return c
    # the ends alpha = 0, 1 and near them
    kind = rng.choice(["G", "L", "ED", "mixG", "mixL", "mixED", "Gk", "Lk"])
    mu = Fraction(rng.choice([1, 5, 10, 20, 50]), 10)
    e0 = Fraction(rng.randint(1, 20), 10)
    d = rng.choice([Fraction(0), Fraction(1, 100)])
    p = rng.choice([Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
    base = {"G": (f"ta.G({rat(mu)})", R6.f_gauss(mpf_of(mu))),
            "L": (f"ta.Laplace({rat(mu)})", R6.f_laplace(mpf_of(mu))),
            "ED": (f"ta.EpsDelta({rat(e0)}, {rat(d)})", R6.f_epsdelta(mpf_of(e0), mpf_of(d)))}
    if kind in base:
        expr, fr = base[kind]
    elif kind.startswith("mix"):
        be, bf = base[kind[3:]]
        expr, fr = f"ta.Mix({be}, {rat(p)})", R6.f_mix(bf, mpf_of(p))
    elif kind == "Gk":
        expr, fr = f"ta.G({rat(mu)})**4", R6.f_gauss(2 * mpf_of(mu))
    else:
        expr, fr = f"ta.Laplace({rat(mu)})**3", None
    al = rng.choice([Fraction(0), Fraction(1), Fraction(0), Fraction(1),
                     Fraction(1, 10 ** rng.randint(5, 40)),
                     1 - Fraction(1, 10 ** rng.randint(5, 20))])
    fn = rng.choice(["roc", "evaluate"])
    code = f"ta.{fn}({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref():
        with mpmath.workdps(60):
            if fr is None:
                if al not in (0, 1):
                    return None
                v = mpmath.mpf(1) - al  # (f(0) = 1: no outcome with P = 0; f(1) = 0)
            else:
                v = fr(mpf_of(al))
            v = v if fn == "evaluate" else 1 - v
            return _tight(v, 40)
    c = Case("ends", code, ref, "prob" if fn == "evaluate" else "power", tol, lim)
    c.expect_exact_end = al in (0, 1)
    return c


# ---------------------------------------------------------------------------------------------
# Mix / Group / Max of finite operands with irrational masses
# ---------------------------------------------------------------------------------------------

def gen_operand(rng):
    eps = rng.choice(["1", "sp.Rational(1, 2)", "2", "sp.log(3)"])
    epsv = {"1": 1, "sp.Rational(1, 2)": mpmath.mpf(1) / 2, "2": 2,
            "sp.log(3)": None}[eps]
    kk = rng.choice([2, 2, 3])
    n = rng.choice([1, 2, 3, 5])
    f = f"ta.randomized_response({eps}, {kk})" + (f"**{n}" if n > 1 else "")
    op = rng.choice(["mix", "group", "max"])
    tol, lim = _tol(rng), _limit(rng)

    def kn0():
        with mpmath.workdps(45):
            ev = mpmath.log(3) if epsv is None else mpmath.mpf(epsv)
            return [(x, y) for x, y in R7.rr_knots(ev, kk, n, 45)]
    if op == "mix":
        p = rng.choice([Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)])
        node = f"ta.Mix({f}, {rat(p)})"

        def kn():
            with mpmath.workdps(45):
                pm = mpf_of(p)
                return [(x, pm * y + (1 - pm) * (1 - x)) for x, y in kn0()]
    elif op == "group":
        g = rng.choice([2, 3])
        node = f"ta.Group({f}, {g})"

        def kn():
            with mpmath.workdps(45):
                return FN.pl_group(kn0(), g)
    else:
        n2 = rng.choice([1, 2, 4])
        e2 = rng.choice([Fraction(1, 3), Fraction(3, 2)])
        node = f"ta.Max({f}, ta.randomized_response({rat(e2)})" + (f"**{n2})" if n2 > 1 else ")")

        def kn():
            with mpmath.workdps(45):
                k2 = [(x, y) for x, y in R7.rr_knots(mpf_of(e2), 2, n2, 45)]
                return FN.pl_max(kn0(), k2)
    which = rng.choice(["evaluate", "roc", "delta"])
    dps = min(_dps(tol), 25)
    if which == "delta":
        e = Fraction(rng.choice([0, 1, 3, 10, 20]), 10)
        code = f"ta.delta({node}, {rat(e)}, dps={dps})"

        def ref():
            with mpmath.workdps(45):
                return _tight(R7.pl_delta(kn(), mpf_of(e)), 30)
        return Case("operand:" + op, code, ref, "prob", tol, lim)
    al = F5._alpha(rng)
    code = f"ta.{which}({node}, {rat(al)}, dps={dps})"

    def ref2():
        with mpmath.workdps(45):
            v = FN.pl_value(kn(), mpf_of(al))
            return _tight(v if which == "evaluate" else 1 - v, 30)
    return Case("operand:" + op, code, ref2, "prob" if which == "evaluate" else "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# nesting across tolerances, both call orders
# ---------------------------------------------------------------------------------------------

def gen_nest(rng):
    if rng.random() < 0.5:
        expr = F6._inversion_expr(rng)
        code = f"ta.curve({expr}, {F6._levels(rng, rng.randint(1, 5))!r}, bounds=True)"
    else:
        b = Fraction(rng.choice([5, 10, 20, 50]), 10)
        q = rng.choice([Fraction(1, 100), Fraction(1, 20), Fraction(1, 10)])
        T = rng.choice([2, 3, 5, 10, 20])
        expr = f"ta.laplace_mechanism(1, {rat(b)}, sampling='poisson', p={rat(q)})**{T}"
        if rng.random() < 0.5:
            code = f"ta.delta({expr}, {rat(Fraction(rng.randint(0, 30), 100))}, dps=DPS)"
        else:
            code = f"ta.epsilon({expr}, {rat(Fraction(1, 10 ** rng.randint(1, 10)))}, dps=DPS)"
    c = Case("nest", code, None, "nest7", 1e-6, 60.0)
    t = sorted(rng.sample([5e-4, 1e-6, 1e-9, 1e-12], 2), reverse=True)
    c.tols = tuple(t) if rng.random() < 0.5 else tuple(reversed(t))
    return c


def nest_answers(case, flags, st, stats) -> dict | None:
    """The case's answers at each of its tolerances, in its order, in one process each (by
    fuzz_routes5's child): {tol: (lo, hi)} where every one is certified, else None (an error
    flagged, an estimate counted)."""
    got = {}
    for tol in case.tols:
        code = case.code.replace("dps=DPS", f"dps={_dps(tol)}")
        out, err, wall, cpu, ws = F5._ask(code, tol, 60.0)
        stats["wall"] += wall
        if err is not None:
            if isinstance(err, ta.InternalError) or not isinstance(err, ta.TradeOffError):
                flags.append(("internal error", case, repr(err)[:300]))
            return None
        if isinstance(out, tuple):
            if any(issubclass(w.category, ta.EstimateWarning) for w in ws):
                st["estimate"] += 1
                return None
            got[tol] = (np.asarray(out[0]), np.asarray(out[1]))
        else:
            if not F5._is_cert(out):
                st["estimate"] += 1
                return None
            with mpmath.workdps(60):
                got[tol] = F5._interval(out)
    return got


def check_nest(case, flags, stats):
    st = stats.setdefault("nest", {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0,
                                   "refused": 0, "checked": 0})
    st["draws"] += 1
    got = nest_answers(case, flags, st, stats)
    if got is None:
        return
    st["certified"] += 1
    st["checked"] += 1
    loose, tight = max(got), min(got)
    (l1, h1), (l2, h2) = got[loose], got[tight]
    if isinstance(l1, np.ndarray):
        bad = np.any(l2 < l1 * (1 - 2e-16) - 1e-300) or np.any(h2 > h1 * (1 + 2e-16) + 1e-300)
    else:
        bad = l2 < l1 - abs(l1) * 1e-15 or h2 > h1 + abs(h1) * 1e-15
    if bad:
        flags.append(("not nested", case, f"order {case.tols}: tol {tight}: [{l2}, {h2}] not "
                      f"inside tol {loose}: [{l1}, {h1}]"))


# ---------------------------------------------------------------------------------------------
# PoissonReplace k = 1 and the far tail
# ---------------------------------------------------------------------------------------------

def gen_replace(rng):
    if rng.random() < 0.6:
        mu = Fraction(rng.choice([3, 5, 10, 20, 30]), 10)
        q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 2),
                        Fraction(99, 100)])
        k, h = 1, 1e-4
    else:
        mu, q, k, h = Fraction(1, 8), Fraction(1, 1000), rng.choice([1000, 10 ** 4]), 1e-5
    tol, lim = _tol(rng), _limit(rng)
    expr = f"ta.PoissonReplace({rat(mu)}, {rat(q)})**{k}"

    def pair(e):
        return A5.dpa_replace_bracket(float(mu), float(q), k, e, h)
    which = rng.choice(["delta", "eps", "roc"])
    if which == "delta":
        scale = float(mu) * (k ** 0.5) * float(q) * 4 + (float(mu) if k == 1 else 0)
        eps = Fraction(round(rng.uniform(0, 2) * scale * 10 ** 6), 10 ** 6)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        c = Case("replace", code, lambda: _widen(*pair(float(eps))), "prob", tol, lim)
    elif which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        c = Case("replace", code, lambda: (lambda e: _widen(*pair(float(e)))), "eps", tol, lim,
                 level=D)
    else:
        al = F5._alpha(rng)
        code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
        emax = float(mu) * 2 + 5 if k == 1 else 1.0
        c = Case("replace", code, lambda: F6._roc_ref(pair, al, emax, 2001), "power", tol, lim)
    c.expect_cert = k == 1 and lim >= 5
    return c


# ---------------------------------------------------------------------------------------------
# ShuffleDP at 0 and below its top atom
# ---------------------------------------------------------------------------------------------

def gen_shuffle(rng):
    E, eps0, ee, n = F6._shuffle_params(rng)
    tol, lim = _tol(rng), rng.choice([20.0, 20.0, 0.3, 2.0])
    expr = f"ta.ShuffleDP({ee}, {n})"
    which = rng.choice(["curve", "roc0", "eval0"])
    if which == "curve":
        als = sorted({10.0 ** -rng.uniform(3, 40) for _ in range(rng.randint(1, 5))}
                     | ({0.0} if rng.random() < 0.3 else set()))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            g = F6._shuffle_groups(E, eps0, n)
            out = []
            with mpmath.workdps(60):
                for x in als:
                    if E is not None:
                        v = mpf_of(1 - R6.power_sorted(g, Fraction(x)))
                        out.append((v, v))
                    else:
                        lo, hi = _tight(1 - A5.power_of_sorted(g, mpmath.mpf(x)))
                        out.append((lo - mpmath.mpf(10) ** -35, hi + mpmath.mpf(10) ** -35))
            return out
        return Case("shuffle", code, ref, "curve", tol, lim)
    fn = "roc" if which == "roc0" else "evaluate"
    code = f"ta.{fn}({expr}, 0, dps={_dps(tol)})"
    v = mpmath.mpf(0) if fn == "roc" else mpmath.mpf(1)
    c = Case("shuffle", code, lambda: (v, v), "power" if fn == "roc" else "prob", tol, lim)
    c.expect_exact_end = True
    return c


# ---------------------------------------------------------------------------------------------
# the never-vacuous, never-silent contract on the new families
# ---------------------------------------------------------------------------------------------

def gen_contract(rng):
    kind = rng.choice(["RR", "ED", "DL", "DG", "mixed"])
    k = rng.choice([1, 2, 10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6])
    tol, lim = _tol(rng), rng.choice([0.05, 0.2, 0.5, 1.0, 2.0, 5.0])
    dref = None
    if kind == "RR":
        e0 = Fraction(rng.choice([1, 5, 10, 20]), 100 if k >= 1000 else 10)
        expr = f"ta.randomized_response({rat(e0)})**{k}"
        if k <= 10 ** 5:
            def dref(e, e0=e0):
                return R7.rr_power_delta(mpf_of(e0), k, e, 30)
        scale = float(e0) * (k ** 0.5) * 3 + float(e0) ** 2 * k / 2
    elif kind == "ED":
        e0 = Fraction(rng.choice([1, 5, 10, 20]), 100 if k >= 1000 else 10)
        d = rng.choice([Fraction(1, 10 ** 6), Fraction(1, 10 ** 9), Fraction(1, 10 ** 12)])
        expr = f"ta.EpsDelta({rat(e0)}, {rat(d)})**{k}"
        if k <= 10 ** 5:
            def dref(e, e0=e0, d=d):
                return R7.epsdelta_power_delta(mpf_of(e0), mpf_of(d), k, e, 30)
        scale = float(e0) * (k ** 0.5) * 3 + float(e0) ** 2 * k / 2
    elif kind == "DL":
        s = Fraction(rng.choice([1, 2, 10, 100, 1000]))
        expr = f"ta.discrete_laplace(1, {rat(s)})**{k}"
        if k <= 10 ** 5:  # (sensitivity 1: the loss is +-1/s, randomized response with 1/s)
            def dref(e, s=s):
                return R7.rr_power_delta(1 / mpf_of(s), k, e, 30)
        scale = (k ** 0.5) * 3 / float(s) + k / float(s) ** 2 / 2
    elif kind == "DG":
        s = Fraction(rng.choice([1, 2, 10, 100, 1000]), rng.choice([1, 3]))
        expr = f"ta.discrete_gaussian(1, {rat(s)})**{k}"
        scale = (k ** 0.5) * 3 / float(s) + k / float(s) ** 2 / 2
    else:
        mu = Fraction(rng.choice([1, 10]), 10)
        k2 = rng.choice([1, 3, 10, 100])
        extra = rng.choice(["ta.G(1)", f"ta.randomized_response(sp.Rational(1, 10))**{k2}",
                            f"ta.discrete_gaussian(1, 3)**{k2}",
                            f"ta.EpsDelta(1, sp.Rational(1, 10**6))**{k2}"])
        kk = min(k, 1000)
        expr = f"ta.Tensor(ta.Laplace({rat(mu)})**{kk}, {extra})"
        scale = float(mu) * kk ** 0.5 * 3 + float(mu) ** 2 * kk / 2 + 3
    which = rng.choice(["delta", "eps", "roc", "curve"])
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1) * scale * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        return Case("contract:" + kind, code,
                    (lambda: _tight(dref(mpf_of(eps)), 20)) if dref else (lambda: None),
                    "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 12))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("contract:" + kind, code,
                    (lambda: (lambda e: _tight(dref(mpmath.mpf(e)), 20))) if dref else
                    (lambda: None), "eps", tol, lim, level=D)
    if which == "roc":
        al = F5._alpha(rng)
        code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
        if kind in ("RR", "DL") and k <= 2000:
            e0v = mpf_of(e0) if kind == "RR" else 1 / mpf_of(s)

            def rref():
                with mpmath.workdps(40):
                    v = 1 - FN.pl_value(R7.binomial_knots(e0v, k, 40), mpf_of(al))
                    return _tight(v, 25)
            return Case("contract:" + kind, code, rref, "power", tol, lim)
        return Case("contract:" + kind, code, lambda: None, "power", tol, lim)
    als = F6._levels(rng, rng.randint(1, 5))
    code = f"ta.curve({expr}, {als!r}, bounds=True)"
    return Case("contract:" + kind, code, lambda: None, "curve", tol, lim)


GENERATORS = {"lprof": gen_lprof, "cells": gen_cells, "sgd": gen_sgd, "largest": gen_largest,
              "operand": gen_operand, "nest": gen_nest, "replace": gen_replace,
              "shuffle": gen_shuffle, "contract": gen_contract}

# ---------------------------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------------------------

_OUT: dict = {}
_ask6 = F5._ask


def _ask_keep(code, tol, limit):
    out = _ask6(code, tol, limit)
    _OUT["out"], _OUT["err"], _OUT["wall"], _OUT["ws"] = out[0], out[1], out[2], out[4]
    return out


F5._ask = _ask_keep


def check(case, flags, stats):
    if case.kind == "nest7":
        return check_nest(case, flags, stats)
    _OUT.clear()
    n0 = len(stats.get("wide", []))
    F6.check(case, flags, stats)
    out, err, wall, ws = _OUT.get("out"), _OUT.get("err"), _OUT.get("wall"), _OUT.get("ws", [])
    wide = stats.get("wide", [])
    for w in wide[n0:]:
        flags.append(("wide, no warning", case, str(w[1])[:200]))
    if err is not None:
        if isinstance(err, ta.TradeOffError) and not isinstance(err, ta.TimeLimitExceeded) \
                and wall > 0.5 and wall > 0.2 * case.limit:
            flags.append(("slow refusal", case, f"{type(err).__name__} after {wall:.2f} s: "
                          f"{str(err)[:150]}"))
        return
    if out is None or isinstance(out, tuple):
        return
    cert = F5._is_cert(out)
    if getattr(case, "expect_exact0", False) and not (out.guarantee == "exact" and out.hi == 0):
        flags.append(("missed exact", case, f"delta at/above the largest loss: {out!r} "
                      f"{out.guarantee} {getattr(out, 'route', '')}"))
    if getattr(case, "expect_positive", False) and cert and out.hi == 0:
        flags.append(("wrong value", case, f"delta exactly 0 below the largest loss: {out!r}"))
    if getattr(case, "expect_exact_end", False) and out.guarantee != "exact":
        flags.append(("missed exact", case, f"an end alpha in {{0, 1}}: {out!r} "
                      f"{out.guarantee} {getattr(out, 'route', '')}"))
    if getattr(case, "expect_eps0", False) and not (cert and out.lo == 0 and out.hi == 0):
        flags.append(("missed exact", case, f"eps at a level above delta(0): {out!r} "
                      f"{out.guarantee} {getattr(out, 'route', '')}"))
    if getattr(case, "expect_cert", False) and not cert:
        flags.append(("missed certificate", case, f"PoissonReplace k = 1: {out!r} "
                      f"{out.guarantee} {getattr(out, 'route', '')}"))
    if not cert and not any(issubclass(w.category, (ta.EstimateWarning, ta.ToleranceWarning))
                            for w in ws):
        stats.setdefault("silent estimates", {}).setdefault(case.route, 0)
        stats["silent estimates"][case.route] += 1
        stats.setdefault("silent_list", []).append(case.call())


if __name__ == "__main__":
    t0 = time.time()
    try:
        _fuzz.main(GENERATORS, check)
    finally:
        print(f"total wall {time.time() - t0:.0f} s")
