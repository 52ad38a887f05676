"""Fuzz the certified routes (tenth audit) against independent references (seeded random draws).

Generators (the loop and draw helpers are benchmarks/_fuzz.py; every reference is computed
here or in tests/references, never through the route checked):

* ``hull``: the Poisson-subsampled Laplace hulls ``ta.laplace_mechanism(b, 1, sampling=
  "poisson", p=q)**T`` (L_b subsampled: mu = b), b in [1/4, 4], q in [1/1000, 1/5],
  T in {1, 2, 3, 10, 100, 1000, 10^4}: roc, evaluate, delta, epsilon and ``curve(...,
  bounds=True)`` at tol 5e-4, 1e-6, 1e-9. Reference: dp_accounting's optimistic/pessimistic PLD
  pair (grid 1e-5 for T <= 10, 1e-4 above), the power inf over eps in R of delta(eps) +
  e^eps alpha (:func:`power_bracket`: the pessimistic PLD's least value on a grid above, the
  optimistic one's convex lower bound below, refined around the minimiser; f and the power
  each read without cancellation, below eps = 0 by the hull's mirror); for T <= 2 also
  delta by mpmath quadrature of the one- and two-step hull at 30 digits
  (references.audit6_refs.sampled_laplace_hull_delta);
* ``finite``: products of powers of f_{log r, d}, randomized response RR(log r, k) and
  T(P, Q) of random rational P, Q on 2-3 outcomes: every answer against exact sums over the
  composed atoms in Fraction (Neyman--Pearson by decreasing ratio; delta(log v) =
  sum (Q - v P)_+; at a rational eps the same sum at 60 digits);
* ``lattice``: discrete Gaussian and discrete Laplace powers, their products with each other,
  with G_mu and with L_mu: the lattice part's masses summed at 60 digits (a discrete Gaussian
  cut where e^{-x^2/2 sigma^2} < 1e-50), delta(eps) = sum_s Q_s delta_B(eps - l_s) with the
  closed forms of delta_B (G_mu: Dong, Roth & Su, Cor. 1; L_mu: 1 - e^{(e - mu)/2} on
  [-mu, mu]), the power by bisection on P(L > eps) = alpha (the subgradient of
  delta(eps) + e^eps alpha);
* ``nest``: one question of the three at 2-3 of the tolerances, random order, this process;
* ``fresh``: the same with each tolerance in a fresh process;
* ``deadline``: ``ta.time_limit(s)``, s in {0.05, 0.2, 0.5, 1, 2}, a question of the three at
  tol 1e-9.

Checks: (i) a certified or exact answer contains the exact / 60-digit reference, or meets the
PLD bracket with a float slack of 1e-12 relative; (ii) nested across tolerances; (iii) a
certified answer wider than 1.5 tol (relative; for f and the power the narrower of the two
relative widths), or vacuous, without a ToleranceWarning is flagged; (iv) wall time at most
2 x limit + 1 s (CPU time recorded too); (v) no exception but a TradeOffError that is not an
InternalError, no NaN, no estimate whose route says "certified". Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes10.py --seed 1 --minutes 25 \
        --results benchmarks/RESULTS_audit_routes10.md [--only hull,finite]
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from fractions import Fraction
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from _fuzz import Case, draw_levels, mpf_of, rat, tight  # noqa: E402
from _fuzz import dps_for as _dps  # noqa: E402
from references import audit6_refs as R6  # noqa: E402
from references.dpsgd_power import _convex_lower  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

TOLS = [5e-4, 1e-6, 1e-9]
SLACK = 1e-12  # relative slack on a float64 peer bracket
#: dp_accounting's float sums carry an absolute noise of a few 1e-12 where many masses are
#: summed (delta(-0.8) = 0.5508 of AddRemove(Mix(L_2, 2/25))^2 at grid 1e-5: the pessimistic
#: value 2.9e-12 below the 30-digit quadrature): a miss within SLACK_ABS is recorded as a near
#: miss (to be checked by hand), not flagged.
SLACK_ABS = 1e-11
NS = {"ta": ta, "sp": sp}
MP60 = 60


def _alpha(rng) -> Fraction:
    return rng.choice([Fraction(0), Fraction(1), Fraction(1, 10 ** rng.randint(2, 12)),
                       Fraction(rng.randint(1, 999), 1000),
                       1 - Fraction(1, 10 ** rng.randint(2, 9))])


# ---------------------------------------------------------------------------------------------
# (a) the subsampled Laplace hull against dp_accounting's pair
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=6)
def hull_plds(b: Fraction, q: Fraction, T: int):
    """dp_accounting's (optimistic, pessimistic) PLDs of AddRemove(Mix(L_b, q))^T: Laplace
    noise of scale 1/b at sensitivity 1."""
    return R6.sampled_laplace_plds(1 / float(b), float(q), T, 1e-5 if T <= 10 else 1e-4)


def pld_pair(plds, eps):
    """(lower, upper) of delta at eps (a float or an array): the pessimistic PLD's delta above;
    below, the optimistic one's less its mass at +oo in each direction (dp_accounting moves
    the truncated tail mass, 1e-15 a composition, to +oo in the optimistic PLD too, where it
    is no lower bound: delta(1/2) = 0 of one step of Mix(L_2, 2/25), past its largest loss,
    read 1e-15 from both)."""
    opt, pess = plds
    up = np.asarray(pess.get_delta_for_epsilon(eps), dtype=float)
    lo = np.maximum(0.0, np.maximum(*(
        np.asarray(m.get_delta_for_epsilon(eps), dtype=float) - m._infinity_mass
        for m in (opt._pmf_remove, opt._pmf_add))))
    return (lo, up) if np.ndim(eps) else (float(lo), float(up))


def _both(plds, alpha: float, eps: np.ndarray):
    """(P_opt, P_pess, F_opt, F_pess) at each eps: the power delta(eps) + e^eps alpha and f =
    1 - that, each computed where it has no cancellation: for eps < 0 by the symmetric hull's
    mirror delta(eps) = 1 - e^eps + e^eps delta(-eps) (Dong, Roth & Su, Prop. 6), f =
    e^eps (1 - alpha - delta(-eps)); the PLD's sums at eps < 0 carry a noise of a few 1e-12
    (AddRemove(Mix(L_2, 2/25))^2: delta(-0.8) = 0.5508 read 2.9e-12 below the quadrature)."""
    u, back = np.unique(np.abs(eps), return_inverse=True)  # (dp_accounting: ascending)
    d_lo, d_up = (d[back] for d in pld_pair(plds, u))
    v = np.exp(eps)
    pos = eps >= 0
    out = []
    for d in (d_lo, d_up):
        out.append(np.where(pos, d + alpha * v, 1 - v * (1 - alpha - d)))
    for d in (d_lo, d_up):
        out.append(np.where(pos, 1 - d - alpha * v, v * (1 - alpha - d)))
    return out


def power_bracket(plds, alpha: float, emax: float, points: int = 2001, both=None) -> tuple:
    """(P_lo, P_up, f_lo, f_up): brackets of the power 1 - f(alpha) = inf_{eps in R} delta(eps)
    + e^eps alpha (Dong, Roth & Su, Prop. 6) and of f(alpha) from the pair (:func:`_both`):
    P_up and f_lo the pessimistic profile's values at the grid's best point; P_lo and f_up
    the optimistic one's convex (in v = e^eps) lower bound of P and concave upper bound of f on
    a grid refined around the coarse optimum, or past the grid's ends (v < e^-emax: P >= 1 -
    v (1 - alpha); v > e^emax: P >= alpha v). ``both``: the profile's reader (default
    :func:`_both`, the symmetric hull's)."""
    both = _both if both is None else both
    if alpha <= 0:
        return 0.0, 0.0, 1.0, 1.0
    if alpha >= 1:
        return 1.0, 1.0, 0.0, 0.0
    eps = np.linspace(-emax, emax, points)
    P_o, P_p, F_o, F_p = both(plds, alpha, eps)
    p_up, f_lo = float(P_p.min()), float(F_p.max())
    i = int(np.argmin(P_o))
    if i == 0 or i == points - 1:
        edge_f = math.exp(-emax) * (1 - alpha) if i == 0 else max(0.0, 1 - alpha *
                                                                   math.exp(emax))
        p_lo, f_up = min(float(P_o[i]), 1 - edge_f), max(float(F_o[i]), edge_f)
    else:
        fine = np.linspace(eps[i - 1], eps[i + 1], points)
        fo, fp, go, gp = both(plds, alpha, fine)
        v = np.exp(fine)
        p_up, f_lo = min(p_up, float(fp.min())), max(f_lo, float(gp.max()))
        p_lo, f_up = _convex_lower(v, fo), -_convex_lower(v, -go)
    clip = lambda x: min(1.0, max(0.0, x))  # noqa: E731
    return clip(min(p_lo, p_up)), clip(p_up), clip(f_lo), clip(max(f_up, f_lo))


def _emax(b, T):
    return min(float(b) * T, 80.0) + 1.0


@lru_cache(maxsize=64)
def _quad_delta(b: Fraction, q: Fraction, T: int, eps: Fraction):
    """delta(eps) of the one- or two-step hull by mpmath quadrature (30 digits), as a pair
    with 20 digits either side."""
    with mpmath.workdps(30):
        d = R6.sampled_laplace_hull_delta(mpf_of(b), mpf_of(q), T, mpf_of(eps))
        return tight(d, 20)


def _hull_question(rng, tol):
    b = Fraction(rng.randint(1, 16), 4)
    q = rng.choice([Fraction(1, 1000), Fraction(1, 200), Fraction(1, 100), Fraction(1, 20),
                    Fraction(1, 5), Fraction(rng.randint(1, 200), 1000)])
    T = rng.choice([1, 2, 3, 10, 100, 1000, 10 ** 4])
    expr = f"ta.laplace_mechanism({rat(b)}, 1, sampling='poisson', p={rat(q)})" + (
        f"**{T}" if T > 1 else "")  # (the form **1: defect 1 of the results)
    which = rng.choice(["roc", "evaluate", "delta", "epsilon", "curve", "curve"])
    emax = _emax(b, T)
    d = _dps(tol)

    def plds():
        return hull_plds(b, q, T)
    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 6))
        code = f"ta.curve({expr}, {als!r}, bounds=True)"

        def cref():
            return [("pair", *power_bracket(plds(), a, emax)[2:]) for a in als]
        c = Case("hull", code, cref, "curve", tol, 60.0)
        c.als = als
        return c
    if which in ("roc", "evaluate"):
        al = _alpha(rng)
        code = f"ta.{which}({expr}, {rat(al)}, dps={d})"

        def vref():
            if al in (0, 1):
                p = Fraction(al)
                return ("exact", p if which == "roc" else 1 - p)
            br = power_bracket(plds(), float(al), emax)
            return ("pair", *br[:2]) if which == "roc" else ("pair", *br[2:])
        return Case("hull", code, vref, "power" if which == "roc" else "prob", tol, 60.0)
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, 1.2) * min(float(b) * T, 30.0) * 100), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={d})"

        def dref():
            out = [("pair", *pld_pair(plds(), float(eps)))]
            if T <= 2:
                out.append(("tight", *_quad_delta(b, q, T, eps)))
            return out
        return Case("hull", code, dref, "delta", tol, 60.0)
    D = Fraction(1, 10 ** rng.randint(1, 10))
    code = f"ta.epsilon({expr}, {rat(D)}, dps={d})"

    def eref(e):
        """[(kind, lo, hi)] of delta at e (an mpf)."""
        out = [("pair", *pld_pair(plds(), float(e)))]
        if T <= 2 and e < 1e3:
            with mpmath.workdps(30):
                out.append(("tight", *tight(R6.sampled_laplace_hull_delta(
                    mpf_of(b), mpf_of(q), T, mpmath.mpf(e)), 20)))
        return out
    return Case("hull", code, lambda: eref, "eps", tol, 60.0, level=D)


def gen_hull(rng):
    return _hull_question(rng, rng.choice(TOLS))


# ---------------------------------------------------------------------------------------------
# (b) finite products: exact sums over the composed atoms
# ---------------------------------------------------------------------------------------------

INF = None  # the key of atoms with P = 0


def _ratio(p, q):
    return INF if p == 0 else q / p


def _compose(a: dict, b: dict) -> dict:
    out: dict = {}
    for pa, qa in a.values():
        for pb, qb in b.values():
            p, q = pa * pb, qa * qb
            if p == 0 and q == 0:
                continue
            k = _ratio(p, q)
            e = out.setdefault(k, [Fraction(0), Fraction(0)])
            e[0] += p
            e[1] += q
    return out


def _group(P, Q) -> dict:
    out: dict = {}
    for p, q in zip(P, Q, strict=True):
        p, q = Fraction(p), Fraction(q)
        if p == 0 and q == 0:
            continue
        e = out.setdefault(_ratio(p, q), [Fraction(0), Fraction(0)])
        e[0] += p
        e[1] += q
    return out


def power_of(atoms: dict, k: int) -> dict:
    out, base = {Fraction(1): [Fraction(1), Fraction(1)]}, atoms
    while k:
        if k & 1:
            out = _compose(out, base)
        k >>= 1
        if k:
            base = _compose(base, base)
    return out


def np_power(atoms: dict, alpha):
    """1 - f(alpha) = sup E_Q phi, E_P phi <= alpha: atoms by decreasing Q/P (P = 0 first)."""
    keys = sorted(atoms, key=lambda k: (k is not INF, -(k if k is not INF else 0)))
    used, power = 0 * alpha, 0 * alpha
    for k in keys:
        p, q = atoms[k]
        if used + p <= alpha:
            used, power = used + p, power + q
        else:
            return power + q * (alpha - used) / p
    return power


def delta_exact(atoms: dict, v):
    return sum(((q - v * p) for p, q in atoms.values() if q > v * p), 0 * v)


def _finite_factor(rng):
    """(source, P, Q) in Fraction."""
    kind = rng.choice(["ed", "ed", "rr", "disc"])
    r = rng.choice([Fraction(2), Fraction(3), Fraction(3, 2), Fraction(5, 4), Fraction(10)])
    if kind == "ed":
        d = rng.choice([Fraction(0), Fraction(1, 10), Fraction(1, 100), Fraction(1, 1000)])
        a, c = (1 - d) * r / (1 + r), (1 - d) / (1 + r)
        return f"ta.EpsDelta(sp.log({rat(r)}), {rat(d)})", [d, a, c, 0], [0, c, a, d]
    if kind == "rr":
        k = rng.choice([2, 3, 5])
        z = r + k - 1
        rest = [1 / z] * (k - 2)
        return (f"ta.randomized_response(sp.log({rat(r)}), {k})", [r / z, 1 / z] + rest,
                [1 / z, r / z] + rest)
    n = rng.choice([2, 3])
    while True:
        wp = [rng.randint(0, 6) for _ in range(n)]
        wq = [rng.randint(0, 6) for _ in range(n)]
        if sum(wp) and sum(wq) and [Fraction(x, sum(wp)) for x in wp] != \
                [Fraction(x, sum(wq)) for x in wq]:
            break
    P = [Fraction(x, sum(wp)) for x in wp]
    Q = [Fraction(x, sum(wq)) for x in wq]
    src = ("ta.Discrete([" + ", ".join(rat(x) for x in P) + "], ["
           + ", ".join(rat(x) for x in Q) + "])")
    return src, P, Q


def _finite_expr(rng):
    parts, atoms = [], {Fraction(1): [Fraction(1), Fraction(1)]}
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        src, P, Q = _finite_factor(rng)
        k = rng.choice([1, 2, 3, 5, 10, 20, 50] if src.startswith("ta.EpsDelta")
                       else [1, 2, 3, 5, 10])
        parts.append(src + (f"**{k}" if k > 1 else ""))
        atoms = _compose(atoms, power_of(_group(P, Q), k))
    expr = parts[0] if len(parts) == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    return expr, atoms


def _delta_mp(atoms, e):
    """delta at eps = e (an mpf) at 60 digits, as a pair (at +oo: Q(P = 0), exact)."""
    if mpmath.isinf(e):
        d = sum((q for p, q in atoms.values() if p == 0), Fraction(0))
        return d, d
    with mpmath.workdps(MP60):
        v = mpmath.exp(e)
        s = mpmath.mpf(0)
        for p, q in atoms.values():
            t = mpf_of(q) - v * mpf_of(p)
            if t > 0:
                s += t
        return tight(s, 45)


def _finite_question(rng, tol):
    expr, atoms = _finite_expr(rng)
    which = rng.choice(["roc", "evaluate", "delta", "delta", "epsilon", "curve"])
    d = _dps(tol)
    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 6))

        def cref():
            return [("exact", 1 - np_power(atoms, Fraction(a))) for a in als]
        c = Case("finite", f"ta.curve({expr}, {als!r}, bounds=True)", cref, "curve", tol, 60.0)
        c.als = als
        return c
    if which in ("roc", "evaluate"):
        al = _alpha(rng)
        code = f"ta.{which}({expr}, {rat(al)}, dps={d})"

        def vref():
            p = np_power(atoms, al)
            return ("exact", p if which == "roc" else 1 - p)
        return Case("finite", code, vref, "power" if which == "roc" else "prob", tol, 60.0)
    if which == "delta":
        if rng.random() < 0.5:
            v = rng.choice([Fraction(1), Fraction(2), Fraction(3, 2), Fraction(5), Fraction(7, 3),
                            Fraction(100)])
            code = f"ta.delta({expr}, sp.log({rat(v)}), dps={d})"
            return Case("finite", code, lambda: [("exact", delta_exact(atoms, v))], "delta",
                        tol, 60.0)
        eps = Fraction(rng.randint(0, 300), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={d})"
        return Case("finite", code, lambda: [("tight", *_delta_mp(atoms, mpf_of(eps)))], "delta",
                    tol, 60.0)
    D = Fraction(1, 10 ** rng.randint(1, 10)) if rng.random() < 0.8 else Fraction(
        rng.randint(1, 99), 100)
    code = f"ta.epsilon({expr}, {rat(D)}, dps={d})"
    return Case("finite", code, lambda: (lambda e: [("tight", *_delta_mp(atoms, e))]), "eps",
                tol, 60.0, level=D)


def gen_finite(rng):
    return _finite_question(rng, rng.choice(TOLS))


# ---------------------------------------------------------------------------------------------
# (c) discrete Gaussian / discrete Laplace powers, with G_mu and L_mu
# ---------------------------------------------------------------------------------------------

def _dg_one(D: int, s2: Fraction) -> dict:
    """{loss (Fraction): (P, Q)} of N_Z(0, s2) vs N_Z(D, s2) at 60 digits, cut where the
    weight is below 1e-50 (x^2 / 2 s2 > 115.2)."""
    K = int(math.ceil(math.sqrt(2 * float(s2) * 116))) + D + 1
    with mpmath.workdps(MP60):
        w = {x: mpmath.exp(-mpmath.mpf(x * x) / (2 * mpf_of(s2))) for x in range(-K, K + 1)}
        Z = mpmath.fsum(w.values())
        return {Fraction(2 * x * D - D * D) / (2 * s2): (w[x] / Z, w.get(x - D, 0) / Z)
                for x in range(-K, K + 1)}


def _dl_one(D: int, t: Fraction) -> dict:
    """{loss: (P, Q)} of L_Z(0, t) vs L_Z(D, t), masses e^{-|x|/t}/Z: the loss
    (|x| - |x - D|)/t, every x <= 0 and every x >= D grouped (geometric sums, exact)."""
    with mpmath.workdps(MP60):
        r = mpmath.exp(-1 / mpf_of(t))
        Z = (1 + r) / (1 - r)
        out = {Fraction(-D) / t: (1 / (1 - r) / Z, r ** D / (1 - r) / Z)}
        for x in range(1, D):
            out[Fraction(2 * x - D) / t] = (r ** x / Z, r ** (D - x) / Z)
        out[Fraction(D) / t] = (r ** D / (1 - r) / Z, 1 / (1 - r) / Z)
        return out


def _lconv(a: dict, b: dict) -> dict:
    out: dict = {}
    with mpmath.workdps(MP60):
        for la, (pa, qa) in a.items():
            for lb, (pb, qb) in b.items():
                p, q = out.get(la + lb, (0, 0))
                out[la + lb] = (p + pa * pb, q + qa * qb)
    return out


def _lpow(a: dict, k: int) -> dict:
    out = {Fraction(0): (mpmath.mpf(1), mpmath.mpf(1))}
    for _ in range(k):
        out = _lconv(out, a)
    return out


def _delta_B(kind, mu, e):
    """delta of the continuous factor at any real e (60 digits)."""
    if kind is None:
        return max(mpmath.mpf(0), 1 - mpmath.exp(e))
    if kind == "G":
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
    if e >= mu:
        return mpmath.mpf(0)
    if e < -mu:
        return 1 - mpmath.exp(e)
    return 1 - mpmath.exp((e - mu) / 2)


def _tailP_B(kind, mu, t):
    """P(L_B > t) under the null of the continuous factor."""
    if kind is None:
        return mpmath.mpf(1 if t < 0 else 0)
    if kind == "G":
        return mpmath.ncdf(-t / mu - mu / 2)
    if t >= mu:
        return mpmath.mpf(0)
    if t < -mu:
        return mpmath.mpf(1)
    return mpmath.exp(-(t + mu) / 2) / 2


class LatticeRef:
    """The reference of a lattice part (loss -> (P, Q)) times a continuous factor B."""

    def __init__(self, law: dict, kind, mu):
        with mpmath.workdps(MP60):
            self.items = [(mpf_of(lo), p, q) for lo, (p, q) in law.items() if p > 1e-70
                          or q > 1e-70]
            self.kind, self.mu = kind, (mpf_of(mu) if mu is not None else None)

    def delta(self, e):
        with mpmath.workdps(MP60):
            e = mpmath.mpf(e)
            return mpmath.fsum(q * _delta_B(self.kind, self.mu, e - lo)
                               for lo, p, q in self.items)

    def tailP(self, e):
        with mpmath.workdps(MP60):
            return mpmath.fsum(p * _tailP_B(self.kind, self.mu, e - lo) for lo, p, q in self.items)

    def power(self, alpha: Fraction):
        """inf_eps delta(eps) + e^eps alpha by bisection on P(L > eps) <= alpha (a pair)."""
        with mpmath.workdps(MP60):
            a = mpf_of(alpha)
            lo_e = min(x[0] for x in self.items) - 1
            hi_e = max(x[0] for x in self.items) + 1
            extra = 0 if self.kind is None else (self.mu if self.kind == "L" else
                                                 40 * self.mu + self.mu ** 2)
            lo_e, hi_e = lo_e - extra, hi_e + extra
            while self.tailP(lo_e) <= a:
                lo_e -= 10
            while self.tailP(hi_e) > a:
                hi_e += 10
            for _ in range(220):
                m = (lo_e + hi_e) / 2
                if self.tailP(m) > a:
                    lo_e = m
                else:
                    hi_e = m
            ga, gb = (self.delta(x) + mpmath.exp(x) * a for x in (lo_e, hi_e))
            g = min(ga, gb)
            slack = abs(ga - gb) + mpmath.mpf(10) ** -45 * max(g, mpmath.mpf(10) ** -300)
            return g - slack, g + mpmath.mpf(10) ** -45 * g


@lru_cache(maxsize=16)
def _lattice_ref(parts: tuple, kind, mu) -> LatticeRef:
    law = {Fraction(0): (mpmath.mpf(1), mpmath.mpf(1))}
    for name, D, s, k in parts:
        one = _dg_one(D, s * s) if name == "dg" else _dl_one(D, s)
        law = _lconv(law, _lpow(one, k))
    return LatticeRef(law, kind, mu)


def _lattice_question(rng, tol):
    parts, srcs = [], []
    for name in rng.choice([["dg"], ["dl"], ["dg"], ["dl"], ["dg", "dl"]]):
        D = rng.choice([1, 1, 2])
        if name == "dg":
            s = rng.choice([Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2),
                            Fraction(3)])
            k = rng.choice([1, 2, 3, 5])
            srcs.append(f"ta.discrete_gaussian({D}, {rat(s)})" + (f"**{k}" if k > 1 else ""))
        else:
            s = rng.choice([Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)])
            k = rng.choice([1, 2, 3, 5, 10])
            srcs.append(f"ta.discrete_laplace({D}, {rat(s)})" + (f"**{k}" if k > 1 else ""))
        parts.append((name, D, s, k))
    kind = rng.choice([None, None, "G", "L"])
    mu = None
    if kind is not None:
        mu = Fraction(rng.choice([1, 2, 5, 10, 20]), 10)
        srcs.append(f"ta.{'G' if kind == 'G' else 'Laplace'}({rat(mu)})")
    expr = srcs[0] if len(srcs) == 1 else "ta.Tensor(" + ", ".join(srcs) + ")"
    key = (tuple(parts), kind, mu)

    def ref():
        return _lattice_ref(*key)
    which = rng.choice(["roc", "evaluate", "delta", "delta", "epsilon", "curve"])
    d = _dps(tol)
    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 5))

        def cref():
            out = []
            for a in als:
                lo, hi = ref().power(Fraction(a))
                out.append(("tight", 1 - hi, 1 - lo))
            return out
        c = Case("lattice", f"ta.curve({expr}, {als!r}, bounds=True)", cref, "curve", tol, 60.0)
        c.als = als
        return c
    if which in ("roc", "evaluate"):
        al = _alpha(rng)
        code = f"ta.{which}({expr}, {rat(al)}, dps={d})"

        def vref():
            if al in (0, 1):
                return ("exact", Fraction(al) if which == "roc" else 1 - Fraction(al))
            lo, hi = ref().power(al)
            return ("tight", lo, hi) if which == "roc" else ("tight", 1 - hi, 1 - lo)
        return Case("lattice", code, vref, "power" if which == "roc" else "prob", tol, 60.0)
    if which == "delta":
        eps = Fraction(rng.randint(0, 400), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={d})"
        return Case("lattice", code, lambda: [("tight", *tight(ref().delta(mpf_of(eps)), 40))],
                    "delta", tol, 60.0)
    D = Fraction(1, 10 ** rng.randint(1, 10))
    code = f"ta.epsilon({expr}, {rat(D)}, dps={d})"
    return Case("lattice", code, lambda: (lambda e: [("tight", *tight(ref().delta(e), 40))]),
                "eps", tol, 60.0, level=D)


def gen_lattice(rng):
    return _lattice_question(rng, rng.choice(TOLS))


QUESTIONS = {"hull": _hull_question, "finite": _finite_question, "lattice": _lattice_question}


# ---------------------------------------------------------------------------------------------
# asking and checking one answer
# ---------------------------------------------------------------------------------------------

def ask(code: str, tol: float, limit: float):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        t0, c0 = time.perf_counter(), time.process_time()
        out = err = None
        try:
            with ta.time_limit(limit), ta.pld_options(tol=tol):
                out = eval(code, NS)  # noqa: S307  (the fuzz's own generated code)
        except Exception as e:  # noqa: BLE001
            err = e
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return out, err, wall, cpu, list(ws)


def _st(stats, key):
    return _fuzz.route_stats(stats, key, exact=True)


def _mp(x):
    return x if isinstance(x, mpmath.mpf) else (mpf_of(x) if isinstance(x, Fraction)
                                               else mpmath.mpf(x))


def _frac(x) -> Fraction | float:
    """An mpf as an exact Fraction (an infinity as a float)."""
    x = mpmath.mpf(x)
    if mpmath.isinf(x):
        return float(x)
    man, exp = x.man_exp
    return Fraction(man) * Fraction(2) ** exp


def meets(lo, hi, ref, absolute=0.0) -> bool:
    """Does [lo, hi] (mpf) meet the reference? ("exact", x): contains x (Fraction: exactly);
    ("tight", a, b): meets [a, b]; ("pair", a, b) float64 peer bracket: meets it widened by
    SLACK relative and ``absolute``."""
    with mpmath.workdps(MP60):
        if ref[0] == "exact":
            x = ref[1]
            if isinstance(x, Fraction):
                return _frac(lo) <= x <= _frac(hi)
            return lo <= x <= hi
        a, b = _mp(ref[1]), _mp(ref[2])
        if ref[0] == "pair":
            a, b = a - SLACK * abs(a) - absolute, b + SLACK * abs(b) + absolute
        return not (hi < a or lo > b)


def _width(kind, lo, hi):
    """The relative width a tolerance asks (f and the power: the narrower of the two)."""
    lo, hi = float(lo), float(hi)
    w = (hi - lo) / max(abs(hi), 1e-300)
    if kind in ("prob", "power"):
        w = min(w, (hi - lo) / max(1 - lo, 1e-300))
    return w


def _curve_width(lo, hi, als):
    lo, hi, x = np.asarray(lo), np.asarray(hi), np.asarray(als)
    p_rel = (hi - lo) / np.maximum(1 - lo, 1e-300)
    f_rel = (hi - lo) / np.maximum(hi, 1e-300)
    return float(np.max(np.where(x > 0, np.minimum(p_rel, f_rel), 0.0), initial=0.0))


def _miss(case, flags, stats, kind, lo, hi, ref, msg) -> bool:
    """Flag a miss of ``ref``, or record it as a near miss where it is a PLD pair met within
    SLACK_ABS. True where anything was recorded."""
    if meets(lo, hi, ref):
        return False
    if ref[0] == "pair" and meets(lo, hi, ref, SLACK_ABS):
        stats.setdefault("near misses", []).append(f"{case.call()} -- {msg}".replace("\n", " "))
        return True
    flags.append((kind, case, msg))
    return True


def _fmt(ref):
    return ref[0] + " " + ", ".join(mpmath.nstr(_mp(x), 17) for x in ref[1:])


def check_value(case, flags, stats):
    st = _st(stats, case.route)
    st["draws"] += 1
    out, err, wall, cpu, ws = ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    print(f"  = {type(err).__name__ if err else getattr(out, 'guarantee', 'curve')} "
          f"wall {wall:.2f} s cpu {cpu:.2f} s", flush=True)
    if wall > 2 * case.limit + 1:
        flags.append(("overrun", case, f"wall {wall:.2f} s, cpu {cpu:.2f} s, limit "
                      f"{case.limit} s, {type(err).__name__ if err else 'answered'}"))
    if err is not None:
        _fuzz.tally_error(err, st, flags, case)
        if isinstance(err, ta.TradeOffError) and not isinstance(err, ta.InternalError):
            stats.setdefault("refusals", []).append((case.call(), f"{type(err).__name__}: "
                                                     f"{str(err)[:160]}"))
        return
    warned = any(issubclass(w.category, ta.ToleranceWarning) for w in ws)
    est_w = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
    if case.kind == "curve":
        lo, hi = np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float)
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)) or np.any(lo > hi):
            flags.append(("NaN or lo > hi", case, f"{lo} {hi}"))
            return
        if est_w:
            st["estimate"] += 1
            return
        st["certified"] += 1
        w = _curve_width(lo, hi, case.als)
        stats.setdefault("widths", []).append((case.route, case.tol, w, warned))
        if w > 1.5 * case.tol and not warned:
            flags.append(("wide, no warning", case, f"band width {w:.3g} at tol {case.tol}"))
        ref = case.ref()
        st["checked"] += 1
        for i, r in enumerate(ref):
            if _miss(case, flags, stats, "wrong curve", mpmath.mpf(lo[i]), mpmath.mpf(hi[i]), r,
                     f"level {case.als[i]!r}: [{lo[i]!r}, {hi[i]!r}] vs {_fmt(r)}"):
                return
        return
    v = out
    if mpmath.isnan(v.lo) or mpmath.isnan(v.hi):
        flags.append(("NaN", case, repr(v)))
        return
    route = str(getattr(v, "route", "") or "").lower()
    if v.guarantee not in ("certified", "exact"):
        st["estimate"] += 1
        if "certified" in route and "not certified" not in route:
            flags.append(("estimate named certified", case, f"{v!r} route {route!r}"))
        if not (est_w or warned):
            stats.setdefault("silent estimates", []).append(case.call())
        return
    st[v.guarantee] += 1
    lo_m, hi_m = v.interval()
    if case.kind in ("prob", "power", "delta") and (v.lo < 0 or v.hi > 1):
        flags.append(("outside [0, 1]", case, repr(v)))
    if v.guarantee == "certified":
        w = _width(case.kind, lo_m, hi_m) if lo_m != hi_m else 0.0
        stats.setdefault("widths", []).append((case.route, case.tol, w, warned))
        vacuous = (case.kind in ("prob", "power", "delta") and lo_m <= 0 and hi_m >= 1) or \
            (mpmath.isinf(hi_m) and not mpmath.isinf(lo_m))
        if (w > 1.5 * case.tol or vacuous) and not warned:
            flags.append(("wide, no warning", case, f"{v!r}: relative width {w:.3g} at tol "
                          f"{case.tol}"))
    ref = case.ref()
    st["checked"] += 1
    if case.kind == "eps":
        Dm = mpf_of(case.level)
        head = f"{v!r} [{mpmath.nstr(lo_m, 17)}, {mpmath.nstr(hi_m, 17)}]: "
        if lo_m > 0:
            for r in ref(lo_m):  # delta(lo) >= D, else eps* < lo
                if _miss(case, flags, stats, "wrong eps", Dm, mpmath.inf, r,
                         head + f"delta(lo) {_fmt(r)} < D"):
                    return
        if not mpmath.isinf(hi_m):
            for r in ref(hi_m):  # delta(hi) <= D, else eps* > hi
                if _miss(case, flags, stats, "wrong eps", -mpmath.inf, Dm, r,
                         head + f"delta(hi) {_fmt(r)} > D"):
                    return
        return
    refs = ref if isinstance(ref, list) else [ref]
    for r in refs:
        msg = f"{v!r} [{mpmath.nstr(lo_m, 20)}, {mpmath.nstr(hi_m, 20)}] vs {_fmt(r)}"
        if v.guarantee == "exact" and r[0] == "exact" and isinstance(r[1], Fraction):
            if Fraction(int(sp.numer(v.exact)), int(sp.denom(v.exact))) != r[1]:
                flags.append(("wrong value", case, msg))
                return
        elif _miss(case, flags, stats, "wrong value", lo_m, hi_m, r, msg):
            return


# ---------------------------------------------------------------------------------------------
# nesting (this process, fresh processes) and time limits
# ---------------------------------------------------------------------------------------------

def gen_nest(rng, route="nest"):
    name = rng.choice(list(QUESTIONS))
    c0 = QUESTIONS[name](rng, 1e-6)
    return _fuzz.nest_case(rng, f"{route}:{name}", _fuzz.with_dps_slot(c0.code), "nest", 60.0,
                           TOLS, route == "fresh")


def gen_fresh(rng):
    return gen_nest(rng, "fresh")


def _interval(out):
    if out.guarantee not in ("certified", "exact"):
        return None
    return tuple(mpmath.mpf(x) for x in out.interval())


def check_nest(case, flags, stats):
    st = _st(stats, case.route.split(":")[0])
    st["draws"] += 1
    _fuzz.check_nested(case, st, flags, stats, ask, _interval, 600,
                       ("NoClosedForm", "NumericalError", "InvalidParameter", "GridTooLarge"))


def gen_deadline(rng, questions=None):
    """A question of ``questions`` (default: this fuzz's) at tol 1e-9 under a time limit."""
    questions = QUESTIONS if questions is None else questions
    name = rng.choice(list(questions))
    c = questions[name](rng, 1e-9)
    c.route, c.kind0, c.kind = f"deadline:{name}", c.kind, "deadline"
    c.limit = rng.choice([0.05, 0.2, 0.5, 1.0, 2.0])
    return c


def check_deadline(case, flags, stats):
    st = _st(stats, case.route)
    st["draws"] += 1
    out, err, wall, cpu, ws = ask(case.code, case.tol, case.limit)
    stats["wall"] += wall
    stats.setdefault("overruns", []).append((wall - case.limit, cpu - case.limit, case.limit,
                                             case.route, case.call()))
    print(f"  = {type(err).__name__ if err else 'answered'} wall {wall:.2f} s cpu {cpu:.2f} s "
          f"(limit {case.limit})", flush=True)
    if wall > 2 * case.limit + 1:
        flags.append(("overrun", case, f"wall {wall:.2f} s, cpu {cpu:.2f} s, limit "
                      f"{case.limit} s, {type(err).__name__ if err else 'answered'}"))
    if err is not None:
        _fuzz.tally_error(err, st, flags, case)
        return
    if isinstance(out, tuple):
        if np.any(np.isnan(out[0])) or np.any(np.isnan(out[1])):
            flags.append(("NaN", case, str(out)[:200]))
        est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
    else:
        if mpmath.isnan(v := out.lo) or mpmath.isnan(out.hi):
            flags.append(("NaN", case, repr(out) + str(v)))
        est = out.guarantee not in ("certified", "exact")
    st["estimate" if est else "certified"] += 1


# ---------------------------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------------------------

GENERATORS = {"hull": gen_hull, "finite": gen_finite, "lattice": gen_lattice, "nest": gen_nest,
              "hull2": gen_hull, "deadline": gen_deadline, "fresh": gen_fresh,
              "lattice2": gen_lattice, "finite2": gen_finite}


def check(case, flags, stats):
    def one():
        if case.kind == "nest":
            return check_nest(case, flags, stats)
        if case.kind == "deadline":
            return check_deadline(case, flags, stats)
        return check_value(case, flags, stats)
    _fuzz.guarded(one, case, flags, 120.0 + case.limit, 3 if case.kind == "nest" else 1)


def summary(stats) -> list[str]:
    out = []
    over = sorted(stats.get("overruns", []), reverse=True)
    if over:
        xs = np.array([o[0] for o in over])
        cs = np.array([o[1] for o in over])
        out.append(f"deadline: {len(xs)} calls; wall past the limit max {xs.max():.2f} s, median "
                   f"{np.median(xs):.2f} s; CPU past the limit max {cs.max():.2f} s")
        for o in over[:4]:
            out.append(f"  {o[0]:.2f} s wall past {o[2]} s [{o[3]}]: {o[4]}".replace("\n", " "))
    ws = stats.get("widths", [])
    if ws:
        wide = [w for w in ws if w[2] > w[1]]
        out.append(f"certified answers with a width: {len(ws)}; wider than tol: {len(wide)} "
                   f"({sum(1 for w in wide if w[3])} with a ToleranceWarning)")
    for call in stats.get("silent estimates", [])[:10]:
        out.append("estimate without a warning: " + call.replace("\n", " "))
    for line in stats.get("near misses", [])[:10]:
        out.append("near miss (a PLD pair met within SLACK_ABS): " + line)
    return out


if __name__ == "__main__":
    _fuzz.run(GENERATORS, check, summary)
