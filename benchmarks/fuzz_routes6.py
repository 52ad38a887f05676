"""Fuzz the routes of the sixth audit against independent references (seeded random draws).

Routes (references in tests/references/audit6_refs.py, audit5_refs.py, dpsgd_power.py; the
runner and the checks are those of benchmarks/fuzz_routes5.py, imported):

* ``shuffle``: ShuffleDP(eps0, n) curves (families/shuffle_locate + shuffle_curve: every
  level's threshold in one float pass, the strict tails in one Arb pass, nested strides), with
  levels near 0 and 1 and grids of 101 levels, n <= 150: e^eps0 rational against the exact
  Fraction atom table's Neyman--Pearson polygon, eps0 rational against the pair of Feldman,
  McMillan & Talwar summed at 40 digits; and roc/evaluate at one level;
* ``shuffle-big``: n = 10^3 .. 10^5, curves under time limits 0.05 .. 5 s (no reference: the
  deadline, errors, NaN);
* ``lapsamp``: Poisson-subsampled Laplace, T = 1 .. 10^5 (families/laplace_sampled split
  masses, numeric/cf_split_tails, cf_split_whole): delta, eps, roc, curve against
  dp_accounting's optimistic/pessimistic pair (grid 1e-5 where T >= 1000, else 1e-4), and at
  T <= 2 delta by exact quadrature at 20 digits;
* ``replace``: PoissonReplace(mu, q)**k, k = 2 .. 30 (poisson_replace_profile, _poly, _curve):
  delta, eps, roc, curve against dp_accounting's REPLACE_ONE pair, k = 2 by 30-digit
  quadrature;
* ``sgd``: few-step DP-SGD, T = 2 .. 30, sigma 0.5 .. 8, q 1e-4 .. 0.5 (cf_flat, the
  subsampled Gaussian's flat view, cf_saddle): delta, eps, roc, curve against dp_accounting's
  pair (grid 1e-4), T <= 2 delta by quadrature at 20 digits;
* ``power``: delta, eps and roc of Group, Inverse, Symmetrize, Shift of G, L, f_{eps,delta},
  Mix (operators/power_profile) against brute-force Neyman--Pearson at 30 digits (the
  operators written from their definitions) and closed forms (Group(G(mu), k) = G(k mu),
  Inverse and Symmetrize of a symmetric f);
* ``rdp``: RDP.of(C_p(G_mu or L_mu)**k) (analysis/renyi_products) against k times Thm. 9 of
  Wang, Balle & Kasiviswanathan at 60 digits and dp_accounting's RdpAccountant (at or below);
* ``nest``: curves of the inversion route (DP-SGD, PoissonReplace, subsampled Laplace), levels
  near 0 and 1 together, at two tolerances (5e-4/1e-6/1e-9/1e-12): the tighter band inside the
  looser one (routes/inversion_curve's TAIL_PLAN);
* ``deadline``: the inversion routes' curves, delta and eps under time limits 0.05 .. 5 s;
* ``gap``: a draw of the others under 0.05 s: the CPU spent before it stops or answers.

Checks on every answer (fuzz_routes5.check): a certified or exact value meets the reference
(its one-unit interval; the float64 references widened); no NaN; values in [0, 1]; a certified
enclosure much wider than the tolerance only with a ToleranceWarning; the route's name never
says "certified" on an estimate; no exception other than a TradeOffError; the time limit not
overrun by more than 2x (+0.5 s for the load) in wall time, nor by more than 2x (+0.1 s) in
the process's CPU time (the wall time of a loaded machine flags stretches that are short on an
idle one; the CPU time does not). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes6.py --seed 1 --minutes 10 [--only sgd,rdp]
"""

from __future__ import annotations

import gc
import math
import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import fuzz_routes5 as F5  # noqa: E402
import mpmath  # noqa: E402
from references import audit5_refs as A5  # noqa: E402
from references import audit6_refs as R6  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

Case, rat, mpf_of = F5.Case, F5.rat, F5.mpf_of
_dps, _widen = F5._dps, F5._widen


_limit, _tol6, _levels, _tight = _fuzz.draw_limit, _fuzz.draw_tol, _fuzz.draw_levels, _fuzz.tight


# ---------------------------------------------------------------------------------------------
# shuffle
# ---------------------------------------------------------------------------------------------

def _shuffle_params(rng):
    if rng.random() < 0.5:
        E = rng.choice([Fraction(3, 2), Fraction(2), Fraction(3), Fraction(5), Fraction(10),
                        Fraction(40)])
        eps0, expr_e = None, f"sp.log({rat(E)})"
    else:
        E = None
        eps0 = Fraction(rng.choice([rng.randint(1, 20), rng.randint(20, 60)]), 10)
        expr_e = rat(eps0)
    n = rng.choice([2, 3, 5, 17, 40, 64, 100, 128, 150])
    return E, eps0, expr_e, n


def _shuffle_groups(E, eps0, n):
    if E is not None:
        return R6.shuffle_exact(E, n)
    return A5.shuffle_groups(eps0, n, 40)


def gen_shuffle(rng):
    E, eps0, ee, n = _shuffle_params(rng)
    tol, lim = _tol6(rng), rng.choice([20.0, 20.0, 20.0, 0.3, 2.0])
    expr = f"ta.ShuffleDP({ee}, {n})"
    which = rng.choice(["curve", "curve", "curve101", "roc", "value"])
    if which.startswith("curve"):
        als = (_levels(rng, rng.randint(1, 6)) if which == "curve" else
               [i / 100 for i in range(101)])
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def ref():
            g = _shuffle_groups(E, eps0, n)
            out = []
            with mpmath.workdps(40):
                for x in als:
                    if E is not None:
                        v = 1 - R6.power_sorted(g, Fraction(x))
                        out.append((mpf_of(v), mpf_of(v)))
                    else:
                        lo, hi = _tight(1 - A5.power_of_sorted(g, mpmath.mpf(x)))
                        out.append((lo - mpmath.mpf(10) ** -35, hi + mpmath.mpf(10) ** -35))
            return out
        return Case("shuffle", code, ref, "curve", tol, lim)
    al = F5._alpha(rng)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(al)}, dps={_dps(tol)})"

    def ref1():
        g = _shuffle_groups(E, eps0, n)
        with mpmath.workdps(40):
            if E is not None:
                v = R6.power_sorted(g, al)
                v = mpf_of(v if fn == "roc" else 1 - v)
                return v, v
            v = A5.power_of_sorted(g, mpf_of(al))
            return _tight(v if fn == "roc" else 1 - v)
    return Case("shuffle", code, ref1, "power" if fn == "roc" else "prob", tol, lim)


def gen_shuffle_big(rng):
    eps0 = rng.choice(["sp.log(3)", "1", "sp.Rational(1, 2)", "2", "5"])
    n = rng.choice([1000, 3000, 10 ** 4, 10 ** 5])
    als = _levels(rng, rng.randint(1, 5)) if rng.random() < 0.6 else [i / 100 for i in
                                                                        range(101)]
    code = f"ta.curve(ta.ShuffleDP({eps0}, {n}), {als!r}, bounds=True)"
    return Case("shuffle-big", code, lambda: None, "curve", _tol6(rng),
                rng.choice([0.05, 0.2, 0.5, 1.0, 2.0, 5.0]))


# ---------------------------------------------------------------------------------------------
# Poisson-subsampled Laplace
# ---------------------------------------------------------------------------------------------

def _lapsamp_params(rng):
    b = Fraction(rng.choice([1, 2, 5, 10, 20, 50, 100]), 10)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20),
                    Fraction(1, 5), Fraction(1, 2)])
    T = rng.choice([1, 2, 3, 10, 100, 1000, 10 ** 4, 10 ** 5])
    return b, q, T


def gen_lapsamp(rng):
    b, q, T = _lapsamp_params(rng)
    tol, lim = _tol6(rng), _limit(rng)
    expr = f"ta.laplace_mechanism(1, {rat(b)}, sampling='poisson', p={rat(q)})**{T}"
    grid = 1e-5 if T >= 1000 else 1e-4
    # dp_accounting's support spans about T times the one-step loss range over the grid: past
    # ~3e6 points (or T = 10^5 at grid 1e-5, ~20 s) no reference
    span = T * math.log1p(float(q) * math.expm1(float(1 / b))) / grid
    no_ref = span > 3e6 or T >= 10 ** 5

    def plds():
        return R6.sampled_laplace_plds(float(b), float(q), T, grid)

    which = rng.choice(["delta", "delta", "eps", "roc", "curve"])
    mu = 1 / b
    if which == "delta":
        # eps around the scale of the composed loss
        scale = max(0.05, min(float(mu), float(mu) * float(q) * (T ** 0.5) * 4))
        eps = Fraction(round(rng.uniform(0, 3) * scale * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if T <= 2 and rng_exact:
                with mpmath.workdps(20):
                    v = R6.sampled_laplace_hull_delta(mpf_of(mu), mpf_of(q), T, mpf_of(eps))
                return _tight(v, 12)
            if no_ref:
                return None
            return _widen(*R6.pld_delta_pair(plds(), float(eps)))
        rng_exact = rng.random() < 0.7
        return Case("lapsamp", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"

        return Case("lapsamp", code, lambda: None if no_ref else _eps_ref(plds()), "eps", tol,
                    lim, level=D)
    if which == "curve":
        als = _levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        return Case("lapsamp", code, lambda: None if no_ref else _curve_ref(
            lambda e: R6.pld_delta_pair(plds(), e), als, float(mu) * min(T, 40) + 2, 2001),
            "curve", tol, lim)
    al = F5._alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
    return Case("lapsamp", code, lambda: None if no_ref else _roc_ref(
        lambda e: R6.pld_delta_pair(plds(), e), al, float(mu) * min(T, 40) + 2, 2001),
        "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# PoissonReplace, few steps
# ---------------------------------------------------------------------------------------------

def _power_levels(delta_pair, alphas, eps_max, points):
    """fuzz_routes5._power_from_pair at several levels from one evaluation of the pair on the
    grid of eps in [-eps_max, eps_max] (negative eps: the levels above the fixed point, whose
    minimiser dpsgd_power.pld_power_bracket, on eps >= 0, refuses; a minimiser at an end
    leaves the lower end 0)."""
    import numpy as np

    eps = np.linspace(-eps_max, eps_max, points)
    opt, pess = (np.asarray(x, dtype=float) for x in delta_pair(eps))
    return [F5._power_from_pair(lambda e, o=opt, p=pess: (o, p), a, eps_max, points)
            for a in alphas]


def _curve_ref(delta_pair, alphas, eps_max, points):
    """The curve's (lo, hi) at each level from the power bracket of :func:`_power_levels`,
    widened for the float64 pair."""
    return [_widen(1 - hi, 1 - lo, 1e-5, 1e-8)
            for lo, hi in _power_levels(delta_pair, alphas, eps_max, points)]


def _eps_ref(plds):
    """delta(e) -> its widened (optimistic, pessimistic) pair, for an eps check."""
    return lambda e: _widen(*R6.pld_delta_pair(plds, float(e)))


def _roc_ref(delta_pair, alpha, eps_max, points):
    """The power's (lo, hi) at one level (:func:`_power_levels`), widened."""
    return _widen(*_power_levels(delta_pair, [float(alpha)], eps_max, points)[0], 1e-5, 1e-8)


def gen_replace(rng):
    mu = Fraction(rng.choice([3, 5, 7, 10, 15, 20, 30]), 10)
    q = rng.choice([Fraction(1, 10 ** rng.randint(2, 4)), Fraction(rng.randint(1, 9), 10),
                    Fraction(99, 100)])
    k = rng.choice([2, 2, 3, 4, 5, 10, 20, 30])
    tol, lim = _tol6(rng), _limit(rng)
    expr = f"ta.PoissonReplace({rat(mu)}, {rat(q)})**{k}"
    which = rng.choice(["delta", "delta", "eps", "roc", "curve"])

    def pair(e):
        return A5.dpa_replace_bracket(float(mu), float(q), k, e, 1e-4)

    emax = float(mu) * k * 2 + 5
    # dp_accounting's k-fold REPLACE_ONE PLD of a wide loss takes minutes (fuzz_routes5)
    no_ref = k * float(mu) * (1 + 4 * float(q)) > 60
    if which == "delta":
        eps = Fraction(rng.choice([0, 1, 5, 10, 20, 50, 100]), 20)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"

        def ref():
            if k == 2 and q >= Fraction(1, 100):
                v = A5.replace_two_steps(mu, q, float(eps), dps=30)
                # (its first step stops at x = 12 + mu: a delta below ~1e-25 misses mass there,
                # 21 % at delta(5/2) = 1.06e-50 of mu = 3/10, q = 1/10)
                if v > mpmath.mpf(10) ** -25:
                    return _tight(v, 20)
            return None if no_ref else _widen(*pair(float(eps)))
        return Case("replace", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"
        return Case("replace", code, lambda: None if no_ref else (
            lambda e: _widen(*pair(float(e)))), "eps", tol, lim, level=D)
    if which == "curve":
        als = _levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        return Case("replace", code, lambda: None if no_ref else _curve_ref(pair, als, emax, 1201),
                    "curve", tol, lim)
    al = F5._alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
    return Case("replace", code, lambda: None if no_ref else _roc_ref(pair, al, emax, 1201),
                "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# few-step DP-SGD
# ---------------------------------------------------------------------------------------------

def gen_sgd(rng):
    sigma = Fraction(rng.choice([5, 6, 8, 10, 11, 15, 20, 40, 80]), 10)
    q = rng.choice([Fraction(1, 10000), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20),
                    Fraction(1, 5), Fraction(1, 2)])
    T = rng.choice([2, 3, 4, 5, 8, 10, 15, 20, 30])
    tol, lim = _tol6(rng), _limit(rng)
    expr = f"ta.noisy_sgd({rat(sigma)}, {rat(q)}, {T})"
    which = rng.choice(["delta", "eps", "roc", "curve"])
    mu = 1 / sigma

    def plds():
        return R6.dpsgd_plds(float(sigma), float(q), T, 1e-4)

    emax = float(mu) * (T ** 0.5) * 3 + float(mu) ** 2 * T + 3
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1.0) * emax * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={_dps(tol)})"
        exact = T <= 2 and rng.random() < 0.6

        def ref():
            if exact:
                with mpmath.workdps(20):
                    v = R6.sampled_gaussian_hull_delta(mpf_of(mu), mpf_of(q), T, mpf_of(eps))
                return _tight(v, 10)
            return _widen(*R6.pld_delta_pair(plds(), float(eps)))
        return Case("sgd", code, ref, "prob", tol, lim)
    if which == "eps":
        D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={_dps(tol)})"

        return Case("sgd", code, lambda: _eps_ref(plds()), "eps", tol, lim, level=D)
    if which == "curve":
        als = _levels(rng, rng.randint(1, 5))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        return Case("sgd", code, lambda: _curve_ref(lambda e: R6.pld_delta_pair(plds(), e),
                                                    als, emax + 5, 2001), "curve", tol, lim)
    al = F5._alpha(rng)
    code = f"ta.roc({expr}, {rat(al)}, dps={_dps(tol)})"
    return Case("sgd", code, lambda: _roc_ref(lambda e: R6.pld_delta_pair(plds(), e), al,
                                              emax + 5, 2001), "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# operators from certified powers
# ---------------------------------------------------------------------------------------------

def _power_base(rng):
    """(expr, reference f, symmetric?)."""
    k = rng.choice(["G", "L", "ED", "mixG", "mixL"])
    mu = Fraction(rng.choice([1, 3, 5, 10, 15, 20, 30]), 10)
    if k == "G":
        return f"ta.G({rat(mu)})", R6.f_gauss(mpf_of(mu)), mu
    if k == "L":
        return f"ta.Laplace({rat(mu)})", R6.f_laplace(mpf_of(mu)), True
    if k == "ED":
        e = Fraction(rng.randint(1, 20), 10)
        d = rng.choice([Fraction(0), Fraction(1, 100), Fraction(1, 10 ** 6)])
        return f"ta.EpsDelta({rat(e)}, {rat(d)})", R6.f_epsdelta(mpf_of(e), mpf_of(d)), True
    p = rng.choice([Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
    if k == "mixG":
        return f"ta.Mix(ta.G({rat(mu)}), {rat(p)})", R6.f_mix(R6.f_gauss(mpf_of(mu)),
                                                              mpf_of(p)), False
    return f"ta.Mix(ta.Laplace({rat(mu)}), {rat(p)})", R6.f_mix(R6.f_laplace(mpf_of(mu)),
                                                                mpf_of(p)), False


def gen_power(rng):
    be, bf, sym = _power_base(rng)
    gmu = sym if isinstance(sym, Fraction) else None  # (a G_mu base: closed forms below)
    op = rng.choice(["group", "group", "inverse", "symmetrize", "shift"])
    tol, lim = _tol6(rng), _limit(rng)
    heavy = False
    if op == "group":
        k = rng.randint(2, 5)
        node, fr = f"ta.Group({be}, {k})", R6.f_group(bf, k)
        gmu = None if gmu is None else gmu * k  # (Group(G_mu, k) = G_{k mu})
    elif op == "inverse":
        node, fr = f"ta.Inverse({be})", (bf if sym else R6.f_inverse(bf, 90))
        heavy = not sym
    elif op == "symmetrize":
        node, fr = f"ta.Symmetrize({be})", (bf if sym else R6.f_symmetrize(bf, 90))
        heavy = not sym
    else:
        t = Fraction(rng.choice([1, 5, 10, 50]), 1000)
        node, fr = f"ta.Shift({be}, {rat(t)})", R6.f_shift(bf, mpf_of(t))
        gmu = None
    grid, steps = (30, 60) if heavy else (200, 120)

    def brute(e):
        """(lower, upper) of delta(e): G_mu's closed form (Cor. 1) where the node is one (the
        maximiser of a large eps lies below the brute force's grid), else brute force."""
        with mpmath.workdps(30):
            if gmu is not None:
                return _tight(R6.gauss_delta(mpf_of(gmu), e), 20)
            g, r = R6.np_delta(fr, e, grid, steps)
            return g - mpmath.mpf(10) ** -25, r * (1 + mpmath.mpf(10) ** -12) \
                + mpmath.mpf(10) ** -25
    which = rng.choice(["delta", "delta", "eps", "roc"])
    dps = min(_dps(tol), 25)
    if which == "delta":
        eps = Fraction(rng.choice([0, 1, 5, 10, 20, 40]), 10)
        code = f"ta.delta({node}, {rat(eps)}, dps={dps})"

        return Case("power:" + op, code, lambda: brute(mpf_of(eps)), "prob", tol, lim)
    if which == "eps":
        D = rng.choice([Fraction(1, 10 ** rng.randint(1, 8)), Fraction(rng.randint(1, 50), 100)])
        code = f"ta.epsilon({node}, {rat(D)}, dps={dps})"

        return Case("power:" + op, code, lambda: (lambda e: brute(mpmath.mpf(e))), "eps", tol,
                    lim, level=D)
    al = F5._alpha(rng)
    code = f"ta.roc({node}, {rat(al)}, dps={dps})"

    def ref_r():
        with mpmath.workdps(40):
            return _tight(1 - fr(mpf_of(al)), 20 if not heavy else 18)
    return Case("power:" + op, code, ref_r, "power", tol, lim)


# ---------------------------------------------------------------------------------------------
# RDP of powers of sampling without replacement
# ---------------------------------------------------------------------------------------------

class RdpCase(Case):
    """RDP.of of a power of C_p(f): the upper ends against k Thm. 9 (60 digits) and
    dp_accounting's RdpAccountant."""


def gen_rdp(rng):
    base = rng.choice(["G", "L"])
    mu = Fraction(rng.choice([1, 3, 5, 10, 20]), 10)
    n = rng.choice([100, 1000, 60000])
    m = rng.choice([1, 2, 10, 50, 99]) if n == 100 else rng.choice([1, 10, 256, n // 10])
    p = Fraction(m, n)
    k = rng.choice([1, 2, 10, 100, 1000])
    orders = sorted(set(rng.sample(range(2, 101), rng.randint(1, 6))))
    b = f"ta.G({rat(mu)})" if base == "G" else f"ta.Laplace({rat(mu)})"
    code = f"ta.RDP.of(ta.C({rat(p)}, {b})**{k}, {orders!r})"
    c = RdpCase("rdp", code, None, "rdp", 1e-6, 60.0)
    c.data = (base, mu, p, n, m, k, orders)
    return c


def check_rdp(case, flags, stats):
    out, err, wall, cpu, ws = F5._ask(case.code, case.tol, case.limit)
    st = stats.setdefault("rdp", {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0,
                                  "refused": 0, "checked": 0})
    st["draws"] += 1
    stats["wall"] += wall
    if err is not None:
        flags.append(("internal error" if not isinstance(err, ta.TradeOffError) else "refused",
                      case, repr(err)[:300]))
        return
    base, mu, p, n, m, k, orders = case.data
    ej = R6.gauss_renyi(mu) if base == "G" else R6.laplace_renyi(mu)
    st["checked"] += 1
    st["certified"] += 1
    theirs = None
    if base == "G" and p < 1:
        import dp_accounting
        from dp_accounting.rdp import rdp_privacy_accountant as rdp
        ev = dp_accounting.SelfComposedDpEvent(dp_accounting.SampledWithoutReplacementDpEvent(
            n, m, dp_accounting.GaussianDpEvent(float(1 / mu))), k)
        from dp_accounting import NeighboringRelation
        acc = rdp.RdpAccountant(orders, neighboring_relation=NeighboringRelation.REPLACE_ONE)
        acc.compose(ev)
        theirs = list(acc._rdp)
    for i, a in enumerate(orders):
        v = out.at(a)
        ours = mpmath.mpf(int(v.p)) / int(v.q) if hasattr(v, "p") else mpmath.mpf(str(v))
        with mpmath.workdps(60):
            ref = k * R6.thm9(ej, p, a, dps=60)
            ours = mpmath.mpf(int(v.p)) / int(v.q) if hasattr(v, "p") else mpmath.mpf(str(v))
            if ours < ref * (1 - mpmath.mpf(10) ** -18):
                flags.append(("rdp below Thm. 9", case, f"order {a}: {ours} < {ref}"))
                return
            if ours > ref * (1 + mpmath.mpf(10) ** -12) + mpmath.mpf(10) ** -40:
                stats.setdefault("wide", []).append((case.code, f"order {a}: {ours} vs "
                                                     f"k Thm. 9 {ref}", "rdp"))
        if theirs is not None and theirs[i] > float(ours) * (1 + 1e-12) + 1e-300:
            flags.append(("rdp below dp_accounting", case, f"order {a}: {float(ours)} < "
                          f"{theirs[i]}"))
            return


# ---------------------------------------------------------------------------------------------
# nesting across tolerances and time limits of the inversion curves
# ---------------------------------------------------------------------------------------------

def _inversion_expr(rng):
    r = rng.random()
    if r < 0.4:
        s = Fraction(rng.choice([5, 8, 11, 20, 40]), 10)
        q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)])
        return f"ta.noisy_sgd({rat(s)}, {rat(q)}, {rng.choice([2, 3, 5, 10, 30])})"
    if r < 0.7:
        mu = Fraction(rng.choice([5, 10, 20]), 10)
        q = rng.choice([Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)])
        return f"ta.PoissonReplace({rat(mu)}, {rat(q)})**{rng.choice([2, 3, 5, 10, 30])}"
    b = Fraction(rng.choice([5, 10, 20]), 10)
    q = rng.choice([Fraction(1, 100), Fraction(1, 10)])
    return (f"ta.laplace_mechanism(1, {rat(b)}, sampling='poisson', p={rat(q)})"
            f"**{rng.choice([2, 3, 10, 100, 1000])}")


def gen_nest(rng):
    expr = _inversion_expr(rng)
    xs = _levels(rng, rng.randint(2, 5))
    code = f"ta.curve({expr}, {xs!r}, bounds=True)"
    c = Case("nest", code, None, "nest", 1e-6, 60.0)
    t = sorted(rng.sample([5e-4, 1e-6, 1e-9, 1e-12], 2), reverse=True)
    c.tols = tuple(t)
    return c


def gen_deadline(rng):
    expr = _inversion_expr(rng)
    which = rng.choice(["curve", "delta", "eps", "roc"])
    tol = _tol6(rng)
    if which == "curve":
        code = f"ta.curve({expr}, {_levels(rng, rng.randint(1, 6))!r}, bounds=True)"
    elif which == "delta":
        code = f"ta.delta({expr}, {rat(Fraction(rng.randint(0, 40), 10))}, dps={_dps(tol)})"
    elif which == "eps":
        code = f"ta.epsilon({expr}, {rat(Fraction(1, 10 ** rng.randint(1, 10)))}, " \
               f"dps={_dps(tol)})"
    else:
        code = f"ta.roc({expr}, {rat(F5._alpha(rng))}, dps={_dps(tol)})"
    return Case("deadline", code, lambda: None, "curve" if which == "curve" else "prob", tol,
                rng.choice([0.05, 0.1, 0.3, 1.0, 2.0, 5.0]))


GENERATORS = {"shuffle": gen_shuffle, "shuffle-big": gen_shuffle_big, "lapsamp": gen_lapsamp,
              "replace": gen_replace, "sgd": gen_sgd, "power": gen_power, "rdp": gen_rdp,
              "nest": gen_nest, "deadline": gen_deadline}


def gen_gap(rng):
    """A draw of another generator under a limit of 0.05 s (no reference): the CPU spent before
    it stops or answers measures the longest stretch without a deadline check."""
    name = rng.choice(["lapsamp", "replace", "sgd", "power", "shuffle-big", "deadline"])
    c = GENERATORS[name](rng)
    c.route, c.limit, c.ref = "gap:" + name, 0.05, (lambda: None)
    if c.kind == "prob":
        c.kind = "eps" if c.code.startswith("ta.epsilon") else "power"
    return c


GENERATORS["gap"] = gen_gap

_LAST: dict = {}
_ask = F5._ask
_GC = {"t0": 0.0, "sum": 0.0}


def _gc_timer(phase, info):
    """Time spent in the garbage collector (a loaded heap of references makes a full
    collection inside a call cost seconds: not the library's stretch without a check)."""
    if phase == "start":
        _GC["t0"] = time.process_time()
    else:
        _GC["sum"] += time.process_time() - _GC["t0"]


gc.callbacks.append(_gc_timer)


def _ask_recorded(code, tol, limit):
    _GC["sum"] = 0.0
    out = _ask(code, tol, limit)
    _LAST["cpu"] = out[3] - _GC["sum"]
    _LAST["gc"] = _GC["sum"]
    return out


F5._ask = _ask_recorded


def check(case, flags, stats):
    if case.kind == "rdp":
        return check_rdp(case, flags, stats)
    if case.kind == "prob" and case.route == "deadline":  # (no reference: the same checks)
        case.kind = "eps" if case.code.startswith("ta.epsilon") else "power"
    _LAST.clear()
    F5.check(case, flags, stats)
    cpu = _LAST.get("cpu")
    if case.kind != "nest" and cpu is not None and cpu > 2 * case.limit + 0.1:
        flags.append(("overrun (CPU)", case, f"cpu {cpu:.2f} s (garbage collection "
                      f"{_LAST.get('gc', 0):.2f} s more), limit {case.limit} s"))



if __name__ == "__main__":
    _fuzz.main(GENERATORS, check)
