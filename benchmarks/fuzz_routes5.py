"""Fuzz the routes of the fifth audit against independent references (seeded random draws).

Routes (tests/references/audit5_refs.py holds the references; nothing there imports the
library):

* ``replace``: PoissonReplace(mu, q)**k by Laplace inversion (delta, eps, roc, evaluate) against
  dp_accounting's REPLACE_ONE optimistic/pessimistic pair (grid 1e-4), and at k = 2 the
  hockey-stick quadrature at 30 digits;
* ``lapmix``: products of Laplaces of different scales, with and without Gaussians
  (numeric/cf_mixed_*), against dp_accounting's pair; two Laplaces by 30-digit quadrature;
* ``lat2d``: EpsDelta(a, 0)^k (x) RR(b, c)^m (numeric/lattice2d.py) against the joint atoms
  enumerated at 50 digits;
* ``cp``: C_p of finite operands, symmetric and asymmetric, and C_p(RR^m), against the lower
  convex hull of min{f_p, f_p^{-1}} in Fraction (mpmath for irrational masses);
* ``knots``: delta and values of Max, Group, Mix(Max), Inverse, Symmetrize, C(f) of
  piecewise-linear operands against exact knot algebra in Fraction;
* ``shuffle``: roc, evaluate and curves of ShuffleDP(eps0, n), n <= 200, against the mixture
  pair of Feldman, McMillan & Talwar at 40 digits;
* ``sgd``: few-step DP-SGD (T = 5 .. 30) roc and curves against dp_accounting's bracket of the
  power (tests/references/dpsgd_power.py);
* ``nest``: the same questions at tolerances 1e-3, 1e-6, 1e-9: every tighter certified answer
  inside every looser one.

Checks on every answer: a certified or exact value meets the reference (its one-unit
interval; the float64 references widened); no NaN; delta, f, power in [0, 1]; a certified
enclosure much wider than the tolerance only with a ToleranceWarning; the route's name never
says "certified" on an estimate; no exception other than a TradeOffError naming what failed;
the time limit (0.05 .. 5 s) not overrun by more than 2x (wall time, with 0.5 s of slack for
the load). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes5.py --seed 1 --minutes 10 [--only cp,knots]
"""

from __future__ import annotations

import math
import os
import sys
import time
import traceback
import warnings
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import _fuzz  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from references import audit5_refs as A  # noqa: E402
from references import dpsgd_power as DP  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

MP = mpmath.mp
NS = {"ta": ta, "sp": sp}


rat, mpf_of, Case = _fuzz.rat, _fuzz.mpf_of, _fuzz.Case
_tol, _dps, _widen = _fuzz.draw_tol, _fuzz.dps_for, _fuzz.widen


def _limit(rng):
    return rng.choice([60.0, 60.0, 60.0, 0.05, 0.3, 1.0, 5.0])


def _alpha(rng):
    return rng.choice([Fraction(1, 10 ** rng.randint(2, 9)), Fraction(rng.randint(1, 999), 1000),
                       1 - Fraction(1, 10 ** rng.randint(2, 6))])


# ---------------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------------

def gen_replace(rng):
    mu = Fraction(rng.choice([3, 5, 7, 10, 12, 15, 20, 25, 30]), 10)
    q = rng.choice([Fraction(1, 10 ** rng.randint(2, 4)), Fraction(rng.randint(1, 9), 10),
                    Fraction(99, 100)])
    k = rng.choice([2, 2, 3, 5, 10, 30, 100, 300, 1000, 3000])
    tol = _tol(rng)
    lim = _limit(rng)
    expr = f"ta.PoissonReplace({rat(mu)}, {rat(q)})**{k}"
    # dp_accounting's k-fold PLD of a wide one-step loss takes minutes: no reference there
    no_ref = k * float(mu) * (1 + 4 * float(q)) > 900
    which = rng.choice(["delta", "delta", "eps", "roc"])
    if which == "delta":
        eps = Fraction(rng.choice([0, 1, 5, 10, 20, 50, 100, 200]), 20)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if k == 2 and q >= Fraction(1, 100):
                v = A.replace_two_steps(mu, q, float(eps), dps=30)
                return v * (1 - mpmath.mpf(10) ** -20), v * (1 + mpmath.mpf(10) ** -20)
            if no_ref:
                return None
            lo, hi = A.dpa_replace_bracket(float(mu), float(q), k, float(eps), 1e-4)
            return _widen(lo, hi)
        return Case("replace", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"

        def ref():
            if no_ref:
                return None

            def d(e):
                lo, hi = A.dpa_replace_bracket(float(mu), float(q), k, float(e), 1e-4)
                return _widen(lo, hi)
            return d
        return Case("replace", code, ref, "eps", tol, lim, level=D)
    a = _alpha(rng)
    code = f"ta.roc({expr}, {rat(a)}, dps={_dps(tol)})"

    def ref():
        if no_ref:
            return None
        lo, hi = _power_from_pair(lambda e: A.dpa_replace_bracket(float(mu), float(q), k, e,
                                                                    1e-4), float(a),
                                  eps_max=12.0, points=4001)
        return _widen(lo, hi, 1e-5, 1e-9)
    return Case("replace", code, ref, "power", tol, lim)


def _power_from_pair(delta_pair, a, eps_max=30.0, points=3001):
    """A bracket of 1 - f(a) = inf_eps delta(eps) + e^eps a from (opt, pess) profiles, eps on
    a grid of [0, eps_max] (upper: the least pessimistic value on the grid; lower: the convex
    lower bound of dpsgd_power._convex_lower in v = e^eps)."""
    eps = np.linspace(-eps_max, eps_max, points)
    opt, pess = delta_pair(eps)
    opt, pess = np.asarray(opt, dtype=float), np.asarray(pess, dtype=float)
    v = np.exp(eps)
    g_opt, g_pess = opt + a * v, pess + a * v
    up = float(min(g_pess.min(), 1.0))
    i = int(np.argmin(g_opt))
    lo = DP._convex_lower(v, g_opt) if 0 < i < points - 1 else 0.0
    return max(0.0, min(lo, up)), up


def gen_lapmix(rng):
    r = rng.choice([2, 2, 3, 5, 10, 30, 60])
    a = rng.uniform(0.05, 2.0)
    mus = [Fraction(round((a + rng.uniform(0, 1.0)) * 1000), 1000) for _ in range(r)]
    gs = []
    if rng.random() < 0.3:
        gs = [Fraction(rng.randint(1, 20), 10) for _ in range(rng.randint(1, 2))]
    tol = _tol(rng)
    lim = _limit(rng)
    facs = [f"ta.Laplace({rat(m)})" for m in mus] + [f"ta.G({rat(g)})" for g in gs]
    expr = "ta.Tensor(" + ", ".join(facs) + ")"
    e_tot = float(sum(mus))

    def pair(e):
        return A.dpa_laplace_pair(mus, e, 1e-4, gs)

    which = rng.choice(["delta", "delta", "eps", "roc"])
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1.2) * e_tot * 100), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if r == 2 and not gs:
                v = A.laplace_two_exact(mus[0], mus[1], eps, 30)
                return v - mpmath.mpf(10) ** -22, v + mpmath.mpf(10) ** -22
            return _widen(*pair(float(eps)))
        return Case("lapmix", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 9))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("lapmix", code, lambda: (lambda e: _widen(*pair(float(e)))), "eps", tol,
                    lim, level=D)
    al = _alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref():
        return _widen(*_power_from_pair(pair, float(al), eps_max=max(2.0, 1.2 * e_tot + 5),
                                        points=1201), 1e-5, 1e-9)
    return Case("lapmix", code, ref, "power", tol, lim)


def _lat2d_params(rng):
    a = rng.choice([Fraction(rng.randint(1, 30), 100), Fraction(rng.randint(1, 20), 7)])
    b_num = rng.choice([2, 3, 5, 7])
    c = rng.choice([2, 3, 5])
    k = rng.randint(1, 40)
    m = rng.randint(1, 25 if c > 2 else 60)
    return a, b_num, c, k, m


def gen_lat2d(rng):
    a, bn, c, k, m = _lat2d_params(rng)
    tol = _tol(rng)
    lim = _limit(rng)
    expr = (f"ta.Tensor(ta.TensorPower(ta.EpsDelta({rat(a)}), {k}), "
            f"ta.TensorPower(ta.randomized_response(sp.log({bn}), {c}), {m}))")

    def pairs():
        with mpmath.workdps(50):
            one = mpmath.mpf(1)
            return A.joint(A.binomial_pairs(k, mpmath.exp(mpf_of(a)), one),
                           A.rr_pairs(m, mpmath.mpf(bn), c, one))

    which = rng.choice(["delta", "eps", "roc", "value", "curve"])
    dps = _dps(tol)
    if which == "delta":
        e = rng.choice([Fraction(0), Fraction(rng.randint(1, 300), 100) * (float(a) * k + 1)])
        e = Fraction(e).limit_denominator(1000)
        code = f"ta.delta({expr}, {rat(e)}, dps={dps})"

        def ref():
            with mpmath.workdps(50):
                v = A.hockey(pairs(), mpmath.exp(mpf_of(e)), mpmath.mpf(1))
                return v - mpmath.mpf(10) ** -40, v + mpmath.mpf(10) ** -40
        return Case("lat2d", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 8))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={dps})"

        def ref():
            ps = pairs()

            def d(e):
                with mpmath.workdps(50):
                    v = A.hockey(ps, mpmath.exp(mpmath.mpf(e)), mpmath.mpf(1))
                    return v - mpmath.mpf(10) ** -40, v + mpmath.mpf(10) ** -40
            return d
        return Case("lat2d", code, ref, "eps", tol, lim, level=D)
    if which == "curve":
        als = sorted({float(_alpha(rng)) for _ in range(4)})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            with mpmath.workdps(50):
                kn = A.np_knots(pairs(), mpmath.mpf(1))
                out = []
                for x in als:
                    v = A.pl_at(kn, mpmath.mpf(x))
                    out.append((v - mpmath.mpf(10) ** -40, v + mpmath.mpf(10) ** -40))
                return out
        return Case("lat2d", code, ref, "curve", tol, lim)
    al = _alpha(rng)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(al)}, dps={dps})"

    def ref():
        with mpmath.workdps(50):
            kn = A.np_knots(pairs(), mpmath.mpf(1))
            v = A.pl_at(kn, mpf_of(al))
            v = 1 - v if fn == "roc" else v
            return v - mpmath.mpf(10) ** -40, v + mpmath.mpf(10) ** -40
    return Case("lat2d", code, ref, "power" if fn == "roc" else "prob", tol, lim)


def _rand_discrete(rng, n):
    ws = [rng.randint(1, 9) for _ in range(n)]
    vs = [rng.randint(1, 9) for _ in range(n)]
    if rng.random() < 0.2:
        vs[rng.randrange(n)] = 0  # an outcome of Q-mass 0
    if rng.random() < 0.2:
        ws[rng.randrange(n)] = 0  # an outcome of P-mass 0 (singular part)
    if sum(vs) == 0:
        vs[0] = 1
    if sum(ws) == 0:
        ws[0] = 1
    P = [Fraction(w, sum(ws)) for w in ws]
    Q = [Fraction(v, sum(vs)) for v in vs]
    return P, Q


def _cp_operand(rng):
    """(expr, knots in Fraction or None, pairs in mpmath or None, symmetric)."""
    kind = rng.choice(["discrete", "rr", "rrbig", "epsdelta", "binom"])
    if kind == "discrete":
        P, Q = _rand_discrete(rng, rng.randint(2, 6))
        expr = (f"ta.Discrete([{', '.join(rat(x) for x in P)}], "
                f"[{', '.join(rat(x) for x in Q)}])")
        return expr, A.np_knots(list(zip(P, Q, strict=True))), None
    if kind == "rr":
        r, c, m = rng.choice([2, 3, 5]), rng.choice([2, 3, 4]), rng.randint(1, 6)
        expr = f"ta.TensorPower(ta.randomized_response(sp.log({r}), {c}), {m})"
        return expr, A.np_knots(A.rr_pairs(m, Fraction(r), c)), None
    if kind == "rrbig":
        b = Fraction(rng.randint(1, 20), 10)
        c = rng.choice([2, 2, 3])
        m = rng.choice([50, 100, 200, 400]) if c == 3 else rng.choice([100, 500, 1000])
        if c == 3:
            m = min(m, 150)
        expr = f"ta.TensorPower(ta.randomized_response({rat(b)}, {c}), {m})"

        def pairs():
            return A.rr_pairs(m, mpmath.exp(mpf_of(b)), c, mpmath.mpf(1))
        return expr, None, pairs
    if kind == "binom":
        r, m = rng.choice([2, 3, 4]), rng.randint(1, 12)
        expr = f"ta.TensorPower(ta.EpsDelta(sp.log({r})), {m})"
        return expr, A.np_knots(A.binomial_pairs(m, Fraction(r))), None
    r = rng.choice([2, 3, 5, 10])
    d = rng.choice([Fraction(0), Fraction(1, rng.choice([10, 100, 10 ** 6]))])
    expr = f"ta.EpsDelta(sp.log({r}), {rat(d)})"
    return expr, A.epsdelta_knots(Fraction(r), d), None


def _p(rng):
    return rng.choice([Fraction(1, 10 ** rng.randint(1, 6)), Fraction(rng.randint(1, 99), 100),
                       Fraction(999, 1000)])


def _knot_questions(rng, route, expr, kn_fn, tol, lim):
    """delta / value / roc / eps / curve questions of a node whose reference knots kn_fn()
    gives (Fraction or mpmath)."""
    dps = _dps(tol)
    which = rng.choice(["delta", "delta_log", "value", "roc", "eps", "curve"])
    one_mp = mpmath.mpf(1)

    def at(kn, x):
        return A.pl_at(kn, x if isinstance(kn[0][0], Fraction) else mpf_of(Fraction(x)))

    def tight(v):
        if isinstance(v, Fraction):
            return mpf_of(v), mpf_of(v)
        return v - mpmath.mpf(10) ** -35, v + mpmath.mpf(10) ** -35

    if which == "delta_log":
        r = Fraction(rng.randint(101, 400), 100)
        code = f"ta.delta({expr}, sp.log({rat(r)}), dps={dps})"

        def ref():
            kn = kn_fn()
            with mpmath.workdps(50):
                if isinstance(kn[0][0], Fraction):
                    return tight(A.pl_delta(kn, r))
                return tight(A.pl_delta(kn, mpf_of(r), one_mp))
        return Case(route, code, ref, "prob", tol, lim)
    if which == "delta":
        e = Fraction(rng.randint(0, 300), 100)
        code = f"ta.delta({expr}, {rat(e)}, dps={dps})"

        def ref():
            kn = kn_fn()
            with mpmath.workdps(50):
                kn = [(mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x,
                       mpmath.mpf(y.numerator) / y.denominator if isinstance(y, Fraction) else y)
                      for x, y in kn]
                return tight(A.pl_delta(kn, mpmath.exp(mpf_of(e)), one_mp))
        return Case(route, code, ref, "prob", tol, lim)
    if which == "eps":
        D = rng.choice([Fraction(1, 10 ** rng.randint(1, 8)), Fraction(rng.randint(1, 50), 100)])
        code = f"ta.epsilon({expr}, {rat(D)}, dps={dps})"

        def ref():
            kn = kn_fn()
            with mpmath.workdps(50):
                kn = [(mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x,
                       mpmath.mpf(y.numerator) / y.denominator if isinstance(y, Fraction) else y)
                      for x, y in kn]

            def d(e):
                with mpmath.workdps(50):
                    return tight(A.pl_delta(kn, mpmath.exp(mpmath.mpf(e)), one_mp))
            return d
        return Case(route, code, ref, "eps", tol, lim, level=D)
    if which == "curve":
        als = sorted({float(_alpha(rng)) for _ in range(4)} | {0.0, 1.0})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            kn = kn_fn()
            with mpmath.workdps(50):
                return [tight(at(kn, Fraction(x))) for x in als]
        return Case(route, code, ref, "curve", tol, lim)
    al = _alpha(rng)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(al)}, dps={dps})"

    def ref():
        kn = kn_fn()
        with mpmath.workdps(50):
            v = at(kn, al)
            v = 1 - v
            return tight(v if fn == "roc" else 1 - v)
    return Case(route, code, ref, "power" if fn == "roc" else "prob", tol, lim)


def gen_cp(rng):
    expr, kn, pairs = _cp_operand(rng)
    p = _p(rng)
    tol, lim = _tol(rng), _limit(rng)
    node = f"ta.C({rat(p)}, {expr})"

    def kn_fn():
        if kn is not None:
            return A.pl_cp(kn, p)
        with mpmath.workdps(50):
            one = mpmath.mpf(1)
            return A.pl_cp(A.np_knots(pairs(), one), mpf_of(p), one)
    return _knot_questions(rng, "cp", node, kn_fn, tol, lim)


def _pl_operand(rng):
    """A random piecewise-linear trade-off function (rational knots, convex, f <= 1 - x) or an
    f_{eps,delta} with e^eps rational."""
    if rng.random() < 0.4:
        r = rng.choice([2, 3, 5, Fraction(3, 2)])
        d = rng.choice([Fraction(0), Fraction(1, rng.choice([10, 20, 1000]))])
        return (f"ta.EpsDelta(sp.log({rat(Fraction(r))}), {rat(d)})",
                A.epsdelta_knots(Fraction(r), d))
    P, Q = _rand_discrete(rng, rng.randint(2, 5))
    kn = A.np_knots(list(zip(P, Q, strict=True)))
    txt = "[" + ", ".join(f"({rat(x)}, {rat(y)})" for x, y in kn) + "]"
    return f"ta.PiecewiseLinear({txt})", kn


def gen_knots(rng):
    e1, k1 = _pl_operand(rng)
    e2, k2 = _pl_operand(rng)
    op = rng.choice(["max", "group", "mixmax", "inverse", "symmetrize", "hull", "max3"])
    tol, lim = _tol(rng), _limit(rng)
    if op == "max":
        node, kf = f"ta.Max({e1}, {e2})", lambda: A.pl_max(k1, k2)
    elif op == "max3":
        e3, k3 = _pl_operand(rng)
        node, kf = f"ta.Max({e1}, {e2}, {e3})", lambda: A.pl_max(A.pl_max(k1, k2), k3)
    elif op == "group":
        g = rng.randint(2, 4)
        node, kf = f"ta.Group({e1}, {g})", lambda: A.pl_group(k1, g)
    elif op == "mixmax":
        p = _p(rng)
        node, kf = f"ta.Mix(ta.Max({e1}, {e2}), {rat(p)})", lambda: A.pl_mix(A.pl_max(k1, k2), p)
    elif op == "inverse":
        node, kf = f"ta.Inverse({e1})", lambda: A.pl_inverse(k1)
    elif op == "symmetrize":
        node, kf = f"ta.Symmetrize({e1})", lambda: A.pl_symmetrize(k1)
    else:
        node, kf = f"ta.SymmetricHull({e1})", lambda: A.pl_sym_hull(k1)
    return _knot_questions(rng, "knots", node, kf, tol, lim)


def gen_shuffle(rng):
    eps0 = Fraction(rng.choice([rng.randint(1, 20), rng.randint(20, 80)]), 10)
    n = rng.choice([2, 3, 10, 30, 100, 200])
    tol, lim = _tol(rng), _limit(rng)
    expr = f"ta.ShuffleDP({rat(eps0)}, {n})"
    which = rng.choice(["roc", "roc", "value", "curve"])
    dps = _dps(tol)

    def groups():
        return A.shuffle_groups(eps0, n, 40)

    if which == "curve":
        als = sorted({float(_alpha(rng)) for _ in range(4)})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            g = groups()
            with mpmath.workdps(40):
                out = []
                for x in als:
                    v = 1 - A.power_of_sorted(g, mpmath.mpf(x))
                    out.append((v - mpmath.mpf(10) ** -30, v + mpmath.mpf(10) ** -30))
                return out
        return Case("shuffle", code, ref, "curve", tol, lim)
    al = _alpha(rng)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(al)}, dps={dps})"

    def ref():
        g = groups()
        with mpmath.workdps(40):
            v = A.power_of_sorted(g, mpf_of(al))
            v = v if fn == "roc" else 1 - v
            return v - mpmath.mpf(10) ** -30, v + mpmath.mpf(10) ** -30
    return Case("shuffle", code, ref, "power" if fn == "roc" else "prob", tol, lim)


def gen_sgd(rng):
    sigma = Fraction(rng.choice([6, 8, 10, 12, 15, 20, 30]), 10)
    q = rng.choice([Fraction(1, 100), Fraction(1, 20), Fraction(1, 5), Fraction(1, 2)])
    T = rng.choice([5, 8, 10, 15, 20, 30])
    tol, lim = _tol(rng), _limit(rng)
    expr = f"ta.noisy_sgd({rat(sigma)}, {rat(q)}, {T})"
    which = rng.choice(["roc", "curve"])
    if which == "curve":
        als = sorted({float(rng.choice([0.01, 0.05, 0.1, 0.3])) for _ in range(3)})
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            br = DP.dpsgd_power_bracket(float(sigma), float(q), T, als, grid=1e-4,
                                        eps_max=8.0, points=4001)
            return [_widen(1 - hi, 1 - lo, 1e-5, 1e-8) for lo, hi in br]
        return Case("sgd", code, ref, "curve", tol, lim)
    al = rng.choice([Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(3, 10)])
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref():
        (lo, hi), = DP.dpsgd_power_bracket(float(sigma), float(q), T, [float(al)], grid=1e-4,
                                            eps_max=8.0, points=4001)
        return _widen(lo, hi, 1e-5, 1e-8)
    return Case("sgd", code, ref, "power", tol, lim)


GENERATORS = {"replace": gen_replace, "lapmix": gen_lapmix, "lat2d": gen_lat2d, "cp": gen_cp,
              "knots": gen_knots, "shuffle": gen_shuffle, "sgd": gen_sgd}


def gen_nest(rng):
    """A question of another generator asked at tol 1e-3, 1e-6, 1e-9 (no reference: each
    tighter certified answer must lie inside each looser one)."""
    name = rng.choice(["replace", "lapmix", "lat2d", "cp", "knots", "shuffle", "sgd"])
    c = GENERATORS[name](rng)
    c.route, c.kind, c.limit = "nest:" + name, "nest", 60.0
    return c


GENERATORS["nest"] = gen_nest


def _first_arg(code: str) -> str:
    """The first argument of the call ``code`` (brackets balanced)."""
    start = code.index("(") + 1
    depth = 0
    for i in range(start, len(code)):
        ch = code[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            return code[start:i]
    raise ValueError(code)


def gen_nest_edge(rng):
    """A curve at levels near 0 and near 1 together (their mirror images share points) of a
    band-route node, asked at tol 1e-9 and 1e-12 (the probe that found the non-nested bands)."""
    name = rng.choice(["replace", "sgd", "lapmix"])
    c = GENERATORS[name](rng)
    expr = _first_arg(c.code)
    xs = sorted({10.0 ** -rng.randint(6, 10), 1 - 10.0 ** -rng.randint(4, 8), rng.random()})
    c.code = f"ta.curve({expr}, {xs!r}, bounds=True)"
    c.route, c.kind, c.limit, c.tols = "nest-edge:" + name, "nest", 60.0, (1e-9, 1e-12)
    return c


GENERATORS["nest-edge"] = gen_nest_edge


# ---------------------------------------------------------------------------------------------
# running and checking
# ---------------------------------------------------------------------------------------------

def _ask(code: str, tol: float, limit: float):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        t0, c0 = time.perf_counter(), time.process_time()
        err = None
        out = None
        try:
            with ta.time_limit(limit), ta.pld_options(tol=tol):
                out = eval(code, NS)  # noqa: S307  (the fuzz's own generated code)
        except Exception as e:  # noqa: BLE001
            err = e
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return out, err, wall, cpu, [w for w in ws]


def _interval(v):
    lo, hi = v.interval() if v.lo == v.hi else (v.lo, v.hi)
    return mpmath.mpf(lo), mpmath.mpf(hi)


def _is_cert(v) -> bool:
    return getattr(v, "guarantee", None) in ("certified", "exact")


def check(case: Case, flags: list, stats: dict) -> None:
    with mpmath.workdps(60):
        _check(case, flags, stats)


def _check(case: Case, flags: list, stats: dict) -> None:
    tolwarn = ta.ToleranceWarning
    if case.kind == "nest":
        return check_nest(case, flags, stats)
    out, err, wall, cpu, ws = _ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    print(f"  = {type(err).__name__ if err else getattr(out, 'guarantee', 'curve')} "
          f"wall {wall:.1f} s cpu {cpu:.1f} s", flush=True)
    key = case.route
    st = stats.setdefault(key, {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0,
                                "refused": 0, "checked": 0})
    st["draws"] += 1
    if wall > 2 * case.limit + 0.5:
        flags.append(("overrun", case, f"wall {wall:.2f} s, cpu {cpu:.2f} s, limit "
                      f"{case.limit} s, outcome {type(err).__name__ if err else 'answered'}"))
    if err is not None:
        if isinstance(err, ta.TimeLimitExceeded):
            st["stopped"] += 1
        elif isinstance(err, ta.InternalError) or not isinstance(err, ta.TradeOffError):
            flags.append(("internal error", case, "".join(
                traceback.format_exception_only(type(err), err)).strip()[:400]))
        else:
            st["refused"] += 1
            stats.setdefault("refusals", []).append((case.call(), str(err)[:160]))
        return
    warned = any(issubclass(w.category, tolwarn) for w in ws)
    if case.kind == "curve":
        lo, hi = out
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
            flags.append(("NaN", case, f"{lo} {hi}"))
            return
        est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
        st["estimate" if est else "certified"] += 1
        if est:
            return
        try:
            ref = case.ref()
        except ValueError:  # (the reference's grid does not reach the minimiser)
            ref = None
        if ref is None:
            return
        st["checked"] += 1
        for x, (a, b), (rl, rh) in zip(range(len(lo)), zip(lo, hi, strict=True), ref,
                                       strict=True):
            if a > b or a > float(rh) * (1 + 1e-15) + 1e-300 or b < float(rl) * (1 - 1e-15):
                flags.append(("wrong curve", case, f"level #{x}: [{a!r}, {b!r}] vs reference "
                              f"[{mpmath.nstr(rl, 17)}, {mpmath.nstr(rh, 17)}]"))
                return
        return
    v = out
    if any(isinstance(getattr(v, a), float) and math.isnan(getattr(v, a)) for a in ("lo", "hi")) \
            or mpmath.isnan(mpmath.mpf(v.lo)) or mpmath.isnan(mpmath.mpf(v.hi)):
        flags.append(("NaN", case, repr(v)))
        return
    route = str(getattr(v, "route", "") or "")
    if not _is_cert(v):
        st["estimate"] += 1
        if "certified" in route.lower() and "not certified" not in route.lower():
            flags.append(("estimate named certified", case, f"{v!r} route {route!r}"))
        return
    st["certified"] += 1
    lo, hi = _interval(v)
    if case.kind in ("prob", "power") and (v.lo < 0 or v.hi > 1 or v.lo > v.hi):
        flags.append(("outside [0, 1]", case, repr(v)))
    width = hi - lo
    mid = abs((lo + hi) / 2)
    if width > 10 * case.tol * max(mid, mpmath.mpf(10) ** -300) + mpmath.mpf(10) ** -300 \
            and not warned and v.lo != v.hi:
        stats.setdefault("wide", []).append((case.call(), repr(v), route))
    try:
        ref = case.ref()
    except ValueError:  # (the reference's grid does not reach the minimiser)
        ref = None
    if ref is None:
        return
    st["checked"] += 1
    if case.kind == "eps":
        D = mpf_of(case.level)
        big = mpmath.mpf(700)
        dlo = ref(min(lo, big))  # delta at the lower end of eps must be >= D (the reference)
        dhi = ref(hi) if not mpmath.isinf(hi) else (mpmath.mpf(0), mpmath.mpf(0))
        if (lo > 0 and dlo[1] < D) or dhi[0] > D:
            flags.append(("wrong eps", case, f"{v!r}: delta_ref(lo) in [{mpmath.nstr(dlo[0], 12)},"
                          f" {mpmath.nstr(dlo[1], 12)}], delta_ref(hi) in "
                          f"[{mpmath.nstr(dhi[0], 12)}, {mpmath.nstr(dhi[1], 12)}], D = {D}"))
        return
    rl, rh = ref
    if hi < rl or lo > rh:
        flags.append(("wrong value", case, f"{v!r} [{mpmath.nstr(lo, 20)}, {mpmath.nstr(hi, 20)}]"
                      f" vs reference [{mpmath.nstr(rl, 20)}, {mpmath.nstr(rh, 20)}]"))


def check_nest(case: Case, flags: list, stats: dict) -> None:
    st = stats.setdefault(case.route.split(":")[0], {"draws": 0, "certified": 0, "estimate": 0,
                                                      "stopped": 0, "refused": 0, "checked": 0})
    st["draws"] += 1
    got = []
    for tol in getattr(case, "tols", (1e-3, 1e-6, 1e-9)):
        code = case.code
        if "dps=" in code:
            code = code.rsplit("dps=", 1)[0] + f"dps={_dps(tol)})"
        out, err, wall, cpu, ws = _ask(code, tol, 60.0)
        stats["wall"] += wall
        if err is not None:
            if isinstance(err, ta.InternalError) or not isinstance(err, ta.TradeOffError):
                flags.append(("internal error", case, repr(err)[:300]))
            return
        if isinstance(out, tuple):
            if any(issubclass(w.category, ta.EstimateWarning) for w in ws):
                return
            got.append((tol, np.asarray(out[0]), np.asarray(out[1])))
        else:
            if not _is_cert(out):
                return
            with mpmath.workdps(60):
                lo, hi = _interval(out)
            got.append((tol, lo, hi))
    st["certified"] += 1
    st["checked"] += 1
    for i in range(len(got)):
        for j in range(i + 1, len(got)):
            (t1, l1, h1), (t2, l2, h2) = got[i], got[j]
            if isinstance(l1, np.ndarray):
                bad = np.any(l2 < l1 * (1 - 2e-16) - 1e-300) or np.any(h2 > h1 * (1 + 2e-16)
                                                                         + 1e-300)
            else:
                bad = l2 < l1 - abs(l1) * 1e-15 or h2 > h1 + abs(h1) * 1e-15
            if bad:
                flags.append(("not nested", case, f"tol {t2}: [{l2}, {h2}] not inside tol {t1}: "
                              f"[{l1}, {h1}]"))
                return



if __name__ == "__main__":
    _fuzz.main(GENERATORS, check)
