"""Fuzz the routes of the eighth audit against independent references (seeded random draws).

Routes (the runner and draw helpers are benchmarks/_fuzz.py; the value checks those of
fuzz_routes5/6/7, imported):

* ``cellsL``: Mix(Laplace(mu), q)^k and its inverse (numeric/cells_curve): roc, evaluate, curve;
  k = 1 against the closed form f_q = q L_mu + (1 - q) Id at 40 digits (the inverse by
  bisection of it), k >= 2 against dp_accounting's one-direction pair (its remove pmf is Mix's,
  its add pmf the inverse's), the power inf_eps delta(eps) + e^eps alpha over every real eps
  (exact for a discrete PLD: min over its losses and v -> 0);
* ``cellsG``: Mix(G_mu, q)^k, its inverse and C_q(G_mu)^k (numeric/cells_normal): k = 1 against
  the closed forms (C_q by Eq. (13) with x* = Phi(-mu/2), where f_q' = -1), k >= 2 against
  dp_accounting's one-direction pair or references.hull_power's bracket of the hull;
* ``replace``: PoissonReplace(mu, q)^k, k = 2 .. 30 (families/poisson_replace_seed,
  numeric/pld_seed): delta, eps, roc against dp_accounting's REPLACE_ONE pair (k = 2 delta by
  quadrature at 30 digits);
* ``ends``: f(0), f(1) and the power at 0, 1 of products of G, Laplace, f_{eps,delta}, RR,
  Mix, PoissonReplace, DG factors (routes/product.EndsRoute): exact, equal to prod f_i(0) in
  Fraction;
* ``largest``: delta at, above and just below the largest loss of RR(eps, c)^n (irrational and
  rational top ratio) and of Laplace (x) RR products (analysis/largest_loss): exact 0 at and
  above, below against the exact outcome sum at 50 digits;
* ``binom``: f_{eps0,0}^n at large eps0 (3 .. 5000; families/binomial_tails): delta, eps
  against the binomial sum at 40+ digits;
* ``wor``: RDP.of(C_p(f)) (numeric/renyi_wor, Wang, Balle & Kasiviswanathan Thm. 9) for
  Laplace and Gaussian bases: each order's upper end at or above the theorem at 60 digits
  (references.audit6_refs.thm9) and within 1e-20 of it;
* ``cells``: the subsampled Laplace, T = 2 .. 100 (numeric/lattice_cells; fuzz_routes7's draw);
* ``lcurve``: RR(eps0)^k with rational eps0 (routes/lattice_curve): roc and curves against the
  binomial knots at 40 digits;
* ``nest``: one question of cellsL/cellsG/replace/cells at two or three tolerances in a random
  order in one process (numeric/tol_nest): each tighter answer inside each looser one;
* ``bad``: bad parameters of the new routes: a TradeOffError naming the parameter and its
  value, at once.

Flags: fuzz_routes7's (wrong value/eps/curve, NaN, outside [0, 1], estimate named certified,
internal error, overrun in wall and CPU time, not nested, wide without a warning, slow refusal,
missed exact), and "wrong bound" (wor), "bad input" (a bad parameter accepted, or an error not
naming it). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes8.py --seed 1 --minutes 10 [--only cellsG]
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import fuzz_routes5 as F5  # noqa: E402
import fuzz_routes7 as F7  # noqa: E402
import mpmath  # noqa: E402
import sympy as sp  # noqa: E402
from _fuzz import Case, draw_levels, draw_limit, draw_tol, mpf_of, rat, tight, widen  # noqa: E402
from _fuzz import dps_for as _dps  # noqa: E402
from references import audit5_refs as A5  # noqa: E402
from references import audit6_refs as R6  # noqa: E402
from references import audit7_refs as R7  # noqa: E402
from references import finite as FN  # noqa: E402
from references.audit8_refs import (  # noqa: E402
    as_pair,
    cq_gauss_power,
    dpa_power_bracket,
    gauss_power,
    inverse_power,
    laplace_power,
    mix_power,
)
from references.hull_power import hull_power_bracket  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

_alpha = F7._alpha


# ---------------------------------------------------------------------------------------------
# the cells curves
# ---------------------------------------------------------------------------------------------

def _cells_case(route, expr, power1, bracket, k, rng, exact_ends=True):
    """roc / evaluate / curve of expr; ``power1(a)`` the one-step power at 40 digits (k = 1),
    ``bracket(alphas)`` the k-step bracket of the power."""
    tol, lim = draw_tol(rng), draw_limit(rng)
    which = rng.choice(["roc", "roc", "evaluate", "curve"])

    def pw(a):
        if float(a) <= 0 or float(a) >= 1:
            return (mpmath.mpf(0), mpmath.mpf(0)) if float(a) <= 0 else (mpmath.mpf(1),) * 2
        if k == 1:
            with mpmath.workdps(40):
                lo, hi = as_pair(power1(mpf_of(Fraction(a))))
                return tight(lo, 30)[0], tight(hi, 30)[1]
        return bracket([float(a)])[0]

    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 5))
        if rng.random() < 0.3:
            als = sorted(set(als) | {0.0, 1.0})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def cref():
            inner = [a for a in als if 0 < a < 1]
            br = dict(zip(inner, bracket(inner) if k > 1 and inner else
                          [pw(a) for a in inner], strict=True))
            out = []
            for a in als:
                lo, hi = br[a] if a in br else pw(a)
                out.append((1 - hi, 1 - lo))
            return out
        return Case(route, code, cref, "curve", tol, lim)
    al = _alpha(rng)
    code = f"ta.{which}({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref():
        lo, hi = pw(al)
        return (lo, hi) if which == "roc" else (1 - hi, 1 - lo)
    c = Case(route, code, ref, "power" if which == "roc" else "prob", tol, lim)
    c.expect_exact_end = exact_ends and al in (0, 1)
    return c


def gen_cells_lap(rng):
    mu = Fraction(rng.choice([1, 10, 50, 100, 200, 500]), 100)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 100), Fraction(1, 3), Fraction(9, 10),
                    Fraction(999, 1000), Fraction(1)])
    k = rng.choice([1, 2, 2, 3, 5, 10, 20])
    inverse = rng.random() < 0.4
    node = f"ta.Mix(ta.Laplace({rat(mu)}), {rat(q)})"
    node = f"ta.Inverse({node})" if inverse else node
    expr = node + (f"**{k}" if k > 1 else "")
    m, qm = mpf_of(mu), mpf_of(q)

    def p1(a):
        pw = lambda t: mix_power(laplace_power, t, m, qm)  # noqa: E731
        return inverse_power(pw, a) if inverse else pw(a)
    h = 1e-4 if k == 2 else 1e-3  # (the bracket's width ~ k h: cheap, and still a bracket)

    def br(als):
        return dpa_power_bracket("lap", float(1 / mu), float(q), k, h, inverse, als)
    return _cells_case("cellsL", expr, p1, br, k, rng)


def gen_cells_gauss(rng):
    mu = Fraction(rng.choice([1, 10, 50, 100, 200, 500]), 100)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 2),
                    Fraction(99, 100)])
    k = rng.choice([1, 2, 2, 3, 5, 10])
    variant = rng.choice(["mix", "inverse", "C"])
    base = f"ta.Mix(ta.G({rat(mu)}), {rat(q)})"
    node = {"mix": base, "inverse": f"ta.Inverse({base})",
            "C": f"ta.C({rat(q)}, ta.G({rat(mu)}))"}[variant]
    expr = node + (f"**{k}" if k > 1 else "")
    m, qm = mpf_of(mu), mpf_of(q)

    def p1(a):
        if variant == "C":
            return cq_gauss_power(a, m, qm)
        pw = lambda t: mix_power(gauss_power, t, m, qm)  # noqa: E731
        return inverse_power(pw, a) if variant == "inverse" else pw(a)
    h = 1e-4 if k == 2 and float(mu) < 2 else 1e-3

    def br(als):
        if variant == "C":
            try:
                out = hull_power_bracket(float(mu), float(q), k, als, h=h)
            except (AssertionError, ValueError):
                return [(mpmath.mpf(0), mpmath.mpf(1))] * len(als)
            return [widen(lo, hi, 1e-7, 1e-11) for lo, hi in out]
        return dpa_power_bracket("gauss", float(1 / mu), float(q), k, h, variant == "inverse",
                                 als)
    return _cells_case("cellsG:" + variant, expr, p1, br, k, rng)


# ---------------------------------------------------------------------------------------------
# PoissonReplace, a few steps seeded
# ---------------------------------------------------------------------------------------------

def gen_replace(rng):
    mu = Fraction(rng.choice([5, 10, 20, 30]), 10)
    q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 2),
                    Fraction(99, 100)])
    k = rng.choice([2, 2, 3, 5, 10, 20, 30])
    tol, lim = draw_tol(rng), draw_limit(rng)
    expr = f"ta.PoissonReplace({rat(mu)}, {rat(q)})**{k}"
    no_ref = k * float(mu) * (1 + 4 * float(q)) > 200

    def pair(e):
        return A5.dpa_replace_bracket(float(mu), float(q), k, e, 1e-4 if k == 2 else 1e-3)
    which = rng.choice(["delta", "delta", "eps", "eps", "roc"])
    scale = float(mu) * (k ** 0.5) * (float(q) * 4 + 0.5) + float(mu) ** 2 * k * float(q) ** 2
    if which == "delta":
        r = rng.random()
        eps = Fraction(0) if r < 0.1 else Fraction(round(rng.uniform(0, 1.5) * scale * 10 ** 4),
                                                   10 ** 4)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if k == 2 and q >= Fraction(1, 100) and rng_exact:
                v = A5.replace_two_steps(mu, q, float(eps), dps=30)
                return tight(v, 20)
            return None if no_ref else widen(*pair(float(eps)))
        rng_exact = rng.random() < 0.5
        return Case("replace", code, ref, "prob", tol, lim)
    if which == "eps":
        D = rng.choice([Fraction(1, 10 ** rng.randint(1, 12)), Fraction(rng.randint(1, 99), 100)])
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("replace", code, lambda: None if no_ref else (lambda e: widen(*pair(float(e)))),
                    "eps", tol, lim, level=D)
    al = _alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"

    def rref():
        if al in (0, 1):
            return mpf_of(al), mpf_of(al)
        return None if no_ref else F7.F6._roc_ref(pair, al, scale * 3 + 5, 2001)
    c = Case("replace", code, rref, "power", tol, lim)
    c.expect_exact_end = al in (0, 1)
    return c


# ---------------------------------------------------------------------------------------------
# the exact ends of products
# ---------------------------------------------------------------------------------------------

def _end_factor(rng):
    """(source, f(0) as a Fraction)."""
    kind = rng.choice(["G", "L", "ED", "RR", "MixG", "MixED", "PR", "DG", "InvMixED"])
    if kind == "G":
        return f"ta.G({rat(Fraction(rng.randint(1, 30), 10))})", Fraction(1)
    if kind == "L":
        return f"ta.Laplace({rat(Fraction(rng.randint(1, 30), 10))})", Fraction(1)
    d = Fraction(1, 10 ** rng.randint(1, 12)) if rng.random() < 0.8 else Fraction(1, 2)
    e = Fraction(rng.randint(0, 30), 10)
    if kind == "ED":
        return f"ta.EpsDelta({rat(e)}, {rat(d)})", 1 - d
    if kind == "RR":
        return f"ta.randomized_response({rat(e + 1)}, {rng.choice([2, 3])})", Fraction(1)
    q = rng.choice([Fraction(1, 100), Fraction(1, 3), Fraction(99, 100), Fraction(1)])
    if kind == "MixG":
        return f"ta.Mix(ta.G({rat(Fraction(rng.randint(1, 30), 10))}), {rat(q)})", Fraction(1)
    if kind == "MixED":
        return f"ta.Mix(ta.EpsDelta({rat(e)}, {rat(d)}), {rat(q)})", 1 - q * d
    if kind == "InvMixED":  # (f_q^{-1}(0) = inf{t : f_q(t) = 0} = 1 for q < 1, 1 - d at q = 1)
        return f"ta.Inverse(ta.Mix(ta.EpsDelta({rat(e)}, {rat(d)}), {rat(q)}))", \
            (1 - d) if q == 1 else Fraction(1)
    if kind == "PR":
        return f"ta.PoissonReplace({rat(Fraction(rng.randint(1, 30), 10))}, {rat(q)})", \
            Fraction(1)
    return f"ta.discrete_gaussian(1, {rng.choice([1, 2, 5])})", Fraction(1)


def gen_ends(rng):
    parts, f0 = [], Fraction(1)
    for _ in range(rng.randint(1, 3)):
        src, v = _end_factor(rng)
        p = rng.choice([1, 2, 3, 10, 1000, 10 ** 6] if v == 1 else [1, 2, 3, 10, 100])
        parts.append(src + (f"**{p}" if p > 1 else ""))
        f0 *= v ** p
    expr = parts[0] if len(parts) == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    tol, lim = draw_tol(rng), draw_limit(rng)
    end = rng.choice([0, 0, 1])
    fn = rng.choice(["evaluate", "roc"])
    val = (f0 if end == 0 else Fraction(0))
    val = val if fn == "evaluate" else 1 - val
    dps = _dps(tol)
    code = f"ta.{fn}({expr}, {end}, dps={dps})"
    with mpmath.workdps(60):
        v = mpf_of(val)
    c = Case("ends", code, lambda: (v, v), "prob" if fn == "evaluate" else "power", tol, lim)
    c.expect_exact_end = True
    return c


# ---------------------------------------------------------------------------------------------
# the largest loss of finite products
# ---------------------------------------------------------------------------------------------

def gen_largest(rng):
    tol, lim = draw_tol(rng), draw_limit(rng)
    rational_ratio = rng.random() < 0.4
    c_ans = rng.choice([2, 3, 4])
    n = rng.choice([1, 2, 3, 5, 8])
    if rational_ratio:
        E = Fraction(rng.choice([2, 3, 5]))
        src_e, e = f"sp.log({E.numerator})", None
    else:
        e = Fraction(rng.randint(1, 30), 10)
        src_e, E = rat(e), None
    rr = f"ta.randomized_response({src_e}, {c_ans})" + (f"**{n}" if n > 1 else "")
    lap = None
    if rng.random() < 0.3:
        lap = Fraction(rng.randint(1, 20), 10)
        expr = f"ta.Tensor({rr}, ta.Laplace({rat(lap)}))"
    else:
        expr = rr
    s = rng.random()
    if s < 0.4:
        off = Fraction(0)
    elif s < 0.55:
        off = Fraction(1, 10 ** rng.randint(1, 15))
    else:
        off = -Fraction(1, 10 ** rng.randint(1, 15))
    lap_src = f" + {rat(lap)}" if lap else ""
    eps_src = f"{n} * {src_e}{lap_src}" + (f" + {rat(off)}" if off else "")
    code = f"ta.delta({expr}, {eps_src}, dps={_dps(tol)})"

    def ref():
        with mpmath.workdps(60):
            Em = mpf_of(E) if E is not None else mpmath.exp(mpf_of(e))
            M = n * mpmath.log(Em) + (mpf_of(lap) if lap else 0)
            eps = M + mpf_of(off)
            if off >= 0:
                return mpmath.mpf(0), mpmath.mpf(0)
            if lap:
                return mpmath.mpf(0), mpmath.mpf(1)  # (positive below: expect_positive)
            pairs = A5.rr_pairs(n, Em, c_ans, mpmath.mpf(1))
            return tight(A5.hockey(pairs, mpmath.exp(eps), mpmath.mpf(1)), 40)
    c = Case("largest", code, ref, "prob", tol, lim)
    c.expect_exact0 = off >= 0 and lap is None
    c.expect_positive = off < 0
    return c


# ---------------------------------------------------------------------------------------------
# f_{eps0,0}^n at large eps0
# ---------------------------------------------------------------------------------------------

def gen_binom(rng):
    e0 = Fraction(rng.choice([3, 10, 50, 300, 700, 744, 746, 800, 2000, 5000]))
    n = rng.choice([1, 2, 3, 5, 100, 10 ** 4, 10 ** 6])
    tol, lim = draw_tol(rng), draw_limit(rng)
    src = rng.choice([f"ta.EpsDelta({rat(e0)})", f"ta.randomized_response({rat(e0)})"])
    expr = src + (f"**{n}" if n > 1 else "")
    has_ref = n <= 10 ** 4
    if rng.random() < 0.55:
        r = rng.random()
        if r < 0.15:
            eps = Fraction(0)
        elif r < 0.6:  # at a lattice point of the loss (n - 2j) eps0, or just off it
            j = rng.randint(0, min(n, 5))
            eps = max(Fraction(0), (n - 2 * j) * e0 + rng.choice([0, 0, Fraction(1, 10 ** 9),
                                                                   -Fraction(1, 10 ** 9)]))
        else:
            eps = Fraction(round(rng.uniform(0, float(n * e0)) * 100), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        c = Case("binom", code, lambda: tight(R7.rr_power_delta(mpf_of(e0), n, mpf_of(eps), 40),
                                              30) if has_ref else None, "prob", tol, lim)
        c.expect_exact0 = eps >= n * e0
        return c
    D = rng.choice([Fraction(1, 10 ** rng.randint(1, 300)), Fraction(rng.randint(1, 99), 100)])
    if e0 >= 300 and n >= 300:  # (defect 2 of RESULTS_audit_routes8: past its time limit, in
        return None  # one Arb call the limit cannot stop, which would stop the fuzz too)
    code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
    return Case("binom", code, (lambda: (lambda e: tight(R7.rr_power_delta(
        mpf_of(e0), n, mpmath.mpf(e), 40), 30))) if has_ref else (lambda: None), "eps", tol,
        lim, level=D)


# ---------------------------------------------------------------------------------------------
# Thm. 9 of Wang, Balle & Kasiviswanathan
# ---------------------------------------------------------------------------------------------

class WorCase(Case):
    pass


def gen_wor(rng):
    p = rng.choice([Fraction(1, 10 ** 4), Fraction(256, 60000), Fraction(1, 10), Fraction(1, 2),
                    Fraction(9, 10), Fraction(999, 1000)])
    mu = Fraction(rng.choice([1, 10, 50, 100, 300]), 100)
    base = rng.choice(["L", "G"])
    orders = sorted(set(rng.sample([2, 3, 4, 5, 7, 10, 16, 32, 64, 100], rng.randint(1, 4))))
    src = f"ta.Laplace({rat(mu)})" if base == "L" else f"ta.G({rat(mu)})"
    code = f"ta.RDP.of(ta.C({rat(p)}, {src}), {orders!r})"
    lim = rng.choice([20.0, 20.0, 1.0])
    c = WorCase("wor:" + base, code, None, "wor", 1e-6, lim)
    c.orders, c.p, c.mu, c.base = orders, p, mu, base
    return c


def _laplace_dj(mu):
    def eps(c, j):
        m = c.mpf(mu.numerator) / mu.denominator
        return c.log(c.mpf(j) / (2 * j - 1) * c.exp((j - 1) * m)
                     + c.mpf(j - 1) / (2 * j - 1) * c.exp(-j * m)) / (j - 1)
    return eps


def _gauss_dj(mu):
    def eps(c, j):
        m = c.mpf(mu.numerator) / mu.denominator
        return j * m ** 2 / 2
    return eps


def check_wor(case, flags, stats):
    st = stats.setdefault(case.route, {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0,
                                       "refused": 0, "checked": 0})
    st["draws"] += 1
    out, err, wall, cpu, ws = F5._ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    if err is not None:
        _fuzz.tally_error(err, st, flags, case)
        return
    st["certified"] += 1
    st["checked"] += 1
    dj = _laplace_dj(case.mu) if case.base == "L" else _gauss_dj(case.mu)
    einf = case.mu if case.base == "L" else None
    if out.bound is None or "Thm. 9" not in out.bound:
        flags.append(("wrong bound", case, f"not labelled as Thm. 9's bound: {out.bound!r}"))
    for a in case.orders:
        ref = R6.thm9(dj, case.p, a, einf, 60)
        up = out.at(a)
        with mpmath.workdps(60):
            upm = mpmath.mpf(sp.Rational(up).p) / sp.Rational(up).q
            if upm < ref * (1 - mpmath.mpf(10) ** -40) or upm > ref * (1 + mpmath.mpf(10) ** -20) \
                    + mpmath.mpf(10) ** -40:
                flags.append(("wrong bound", case, f"order {a}: {mpmath.nstr(upm, 25)} vs Thm. 9 "
                              f"{mpmath.nstr(ref, 25)}"))
                return


# ---------------------------------------------------------------------------------------------
# lattice curves of f_{eps0,0}^k
# ---------------------------------------------------------------------------------------------

def _abs_slack(pair):
    """The knots' sum at 80 digits is good to about 1e-75 absolute (f below it is noise)."""
    return pair[0] - mpmath.mpf(10) ** -70, pair[1] + mpmath.mpf(10) ** -70


def gen_lcurve(rng):
    e0 = Fraction(rng.choice([1, 5, 10, 30, 100]), 100)
    k = rng.choice([2, 5, 10, 50, 200, 1000])
    tol, lim = draw_tol(rng), draw_limit(rng)
    expr = f"ta.randomized_response({rat(e0)})**{k}"
    if rng.random() < 0.5:
        als = draw_levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def cref():
            with mpmath.workdps(80):  # (a level near 1: f tiny, digits lost to 1 - y)
                K = R7.binomial_knots(mpf_of(e0), k, 80)
                return [_abs_slack(tight(FN.pl_value(K, mpmath.mpf(a)), 25)) for a in als]
        return Case("lcurve", code, cref, "curve", tol, lim)
    al = _alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"

    def rref():
        with mpmath.workdps(80):
            return _abs_slack(tight(1 - FN.pl_value(R7.binomial_knots(mpf_of(e0), k, 80),
                                                    mpf_of(al)), 25))
    c = Case("lcurve", code, rref, "power", tol, lim)
    c.expect_exact_end = al in (0, 1)
    return c


# ---------------------------------------------------------------------------------------------
# nesting across tolerances in one process
# ---------------------------------------------------------------------------------------------

def gen_nest(rng):
    src = rng.choice(["cellsL", "cellsG", "replace", "cells"])
    c = {"cellsL": gen_cells_lap, "cellsG": gen_cells_gauss, "replace": gen_replace,
         "cells": F7.gen_cells}[src](rng)
    code = c.code
    if "dps=" in code:
        code = code.rsplit("dps=", 1)[0] + "dps=DPS)"
    n = rng.choice([2, 2, 3])
    tols = rng.sample([5e-4, 1e-5, 1e-6, 1e-9, 1e-12], n)
    out = NestCase("nest:" + src, code, None, "nest8", 1e-6, 60.0)
    out.tols = tuple(tols)
    return out


class NestCase(Case):
    def call(self) -> str:
        return "; ".join(f"with ta.time_limit(60.0), ta.pld_options(tol={t!r}): "
                         + self.code.replace("dps=DPS", f"dps={_dps(t)}") for t in self.tols)


def check_nest(case, flags, stats):
    st = stats.setdefault(case.route, {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0,
                                       "refused": 0, "checked": 0})
    st["draws"] += 1
    got = F7.nest_answers(case, flags, st, stats)
    if got is None:
        return
    st["certified"] += 1
    st["checked"] += 1
    _fuzz.flag_unnested(got, case, flags)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------

_BAD = [
    ("ta.Mix(ta.Laplace(1), sp.Rational(3, 2))**3", "p", "3/2"),
    ("ta.Mix(ta.G(1), -1)**2", "p", "-1"),
    ("ta.C(2, ta.G(1))**2", "p", "2"),
    ("ta.PoissonReplace(1, sp.Rational(-1, 10))**3", "q", "-1/10"),
    ("ta.PoissonReplace(-2, sp.Rational(1, 10))**3", "mu", "-2"),
    ("ta.Mix(ta.G(1), sp.Rational(1, 10))**-2", "n", "-2"),
    ("ta.roc(ta.Mix(ta.G(1), sp.Rational(1, 10))**3, sp.Rational(11, 10))", "alpha", "11/10"),
    ("ta.roc(ta.Mix(ta.Laplace(1), sp.Rational(1, 3))**3, -1)", "alpha", "-1"),
    ("ta.evaluate(ta.C(sp.Rational(1, 10), ta.G(1))**3, 2)", "alpha", "2"),
    ("ta.curve(ta.Mix(ta.G(1), sp.Rational(1, 10))**3, [0.5, 1.5], bounds=True)", "alphas",
     "1.5"),
    ("ta.curve(ta.Mix(ta.Laplace(1), sp.Rational(1, 3))**3, [float('nan')], bounds=True)",
     "alphas", "nan"),
    ("ta.delta(ta.PoissonReplace(1, sp.Rational(1, 10))**3, -1)", "eps", "-1"),
    ("ta.epsilon(ta.PoissonReplace(1, sp.Rational(1, 10))**3, 2)", "delta", "2"),
    ("ta.epsilon(ta.PoissonReplace(1, sp.Rational(1, 10))**3, -sp.Rational(1, 10))", "delta",
     "-1/10"),
    ("ta.delta(ta.randomized_response(1000)**5, float('nan'))", "eps", "nan"),
    ("ta.epsilon(ta.EpsDelta(800)**10, float('nan'))", "delta", "nan"),
    ("ta.RDP.of(ta.C(sp.Rational(1, 10), ta.Laplace(1)), [1])", "order", "1"),
    ("ta.RDP.of(ta.C(sp.Rational(1, 10), ta.Laplace(1)), [-2])", "order", "-2"),
    ("ta.delta(ta.Mix(ta.G(1), sp.Rational(1, 10))**3, float('inf'))", None, None),
]


def gen_bad(rng):
    code, name, val = rng.choice(_BAD)
    tol = draw_tol(rng)
    c = Case("bad", code, None, "bad", tol, 20.0)
    c.param, c.val = name, val
    return c


def check_bad(case, flags, stats):
    st = stats.setdefault("bad", {"draws": 0, "refused": 0, "answered": 0})
    st["draws"] += 1
    out, err, wall, cpu, ws = F5._ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    if case.param is None:  # (a valid edge: delta(oo) = 0, proved)
        if err is not None or not (F5._is_cert(out) and out.hi == 0):
            flags.append(("missed exact", case, f"{err!r} {out!r}"))
        return
    if err is None:
        st["answered"] += 1
        flags.append(("bad input", case, f"accepted: {str(out)[:150]}"))
        return
    st["refused"] += 1
    msg = str(err)
    if not isinstance(err, ta.TradeOffError) or case.param not in msg or \
            case.val.lower() not in msg.lower():
        flags.append(("bad input", case, f"{type(err).__name__}: {msg[:200]} (should name "
                      f"{case.param} = {case.val})"))
    if wall > 1.0:
        flags.append(("slow refusal", case, f"{wall:.2f} s"))


GENERATORS = {"cellsL": gen_cells_lap, "cellsG": gen_cells_gauss, "replace": gen_replace,
              "ends": gen_ends, "largest": gen_largest, "binom": gen_binom, "wor": gen_wor,
              "cells": F7.gen_cells, "lcurve": gen_lcurve, "nest": gen_nest, "bad": gen_bad}


def check(case, flags, stats):
    if case.kind == "wor":
        return check_wor(case, flags, stats)
    if case.kind == "nest8":
        return check_nest(case, flags, stats)
    if case.kind == "bad":
        return check_bad(case, flags, stats)
    F7.check(case, flags, stats)  # (an exact end is an mpf point: checked as an interval)


if __name__ == "__main__":
    t0 = time.time()
    warnings.simplefilter("default")
    logging.getLogger().setLevel(logging.ERROR)  # (dp_accounting's note on connect-the-dots)
    try:
        _fuzz.main(GENERATORS, check)
    finally:
        print(f"total wall {time.time() - t0:.0f} s")
