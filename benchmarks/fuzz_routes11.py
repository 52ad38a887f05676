"""Fuzz the newest certified paths (eleventh audit) against independent references (seeded).

Generators (the loop, nesting and guard are benchmarks/_fuzz.py; the answer checks, the exact
finite atoms and the PLD bracket are fuzz_routes10's, imported; every reference is computed here
or there, never through the route checked):

* ``one``: one step of the subsampled Laplace hull (``routes/hull_one``: C_q(L) in Arb), written
  ``laplace_mechanism(b, 1, sampling="poisson", p=q)``, ``...**1`` (``unit_power_base``) or
  ``AddRemove(Mix(Laplace(b), q))``; b in 1/4 .. 10, q in 1e-6 .. 1/2; roc, evaluate (levels
  include the knots 1/2 and e^{-b}/2 to 30 digits), delta (also past the largest loss), epsilon
  and curves; a quarter of the draws AddRemove(Mix(G_mu, q)) (mu 1/10 .. 3, its own
  identity). Reference: the closed form of both directions' profiles at 50 digits
  (:class:`OneStep`: P = Lap(0, 1), Q' = (1 - q) P + q Lap(b, 1), the loss monotone in x),
  delta_C = max of the two, the power inf_{v >= 0} delta_C(v) + v alpha (Dong, Roth & Su,
  Prop. 6) by golden sections on the convex h (its slope within [-1, 1]: the last bracket's
  width bounds the miss);
* ``few``: T = 2, 3 steps of the hull (``routes/hull_few``: tol <= 1e-7), roc and evaluate
  mostly, at tol 1e-8, 1e-9 (and 1e-6, 5e-4): T = 2 against the same closed form integrated
  once (delta_2(v) = int dQ'(x) delta_1(v / R(x)), mpmath quadrature at 40 digits split at
  the kinks, :class:`TwoStep`), T = 3 against dp_accounting's optimistic/pessimistic pair
  (fuzz_routes10.power_bracket);
* ``atoms``: the atoms kept exact in the cells' products (``numeric/cells_atoms``):
  curves, roc, evaluate and delta of Mix(Laplace(b), q)^k (k 2 .. 10; dp_accounting's pair of
  the one direction, the power read without cancellation by the inverse's profile below
  eps = 0) and Mix(discrete_laplace(D, t), q)^k (the composed atoms at 60 digits);
* ``small``: ``numeric/finite_small``: eps and delta of f_{eps0,0}^k (k to 64; eps0 = log r
  or rational), randomized response and finite pairs to small powers; eps at levels exactly
  delta at an atom, delta(0) and delta(oo) = Q(P = 0), delta at eps exactly an atom's loss.
  Reference: the composed atoms in Fraction (e^{eps0} rational) or at 60 digits;
* ``ends``: curves of finite products and of the hulls at 0, at z = P(Q > 0) (the float
  nearest and its neighbours) and above: f(0) and f = 0 on [z, 1] exactly
  (``numeric/curves._with_ends``): a band at those levels must be the exact value rounded
  outward;
* ``unit``: roc of f**1 and of f (f a Laplace, Gaussian, f_{eps,delta}, one hull step, Mix,
  discrete Laplace, randomized response; alone or in a product): the same guarantee class
  and meeting intervals (``operators/tensor.unit_power_base``);
* ``nest``, ``fresh``, ``deadline``: one question of one, few, atoms, small at 2-3
  tolerances in this process / in fresh ones, and under ``ta.time_limit(s)``, s 0.05 .. 2.

Checks (fuzz_routes10.check_value): a certified or exact answer contains the reference (a PLD
pair widened by 1e-12 relative); an estimate within 1e-3 relative of it (eps: delta just
below its lower end above the level); nesting; wider than 1.5 tol or vacuous without a
ToleranceWarning; wall past 2 x limit + 1 s; NaN, lo > hi, outside [0, 1], an internal error,
an estimate whose route says certified. Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_routes11.py --seed 1 --minutes 20 \\
        --results benchmarks/RESULTS_audit_routes11.md [--only one,few]
"""

from __future__ import annotations

import os
import sys
import time
from fractions import Fraction
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)

import _fuzz  # noqa: E402
import fuzz_routes10 as F  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
from _fuzz import Case, draw_levels, mpf_of, rat, tight  # noqa: E402
from _fuzz import dps_for as _dps  # noqa: E402
from references import audit6_refs as R6  # noqa: E402
from references.golden_sup import grid_golden_sup  # noqa: E402

TOLS = [5e-4, 1e-6, 1e-9]
FEW_TOLS = [1e-8, 1e-9, 1e-9, 1e-6, 5e-4]
DPS = 50


# ---------------------------------------------------------------------------------------------
# (a) one and two steps of the subsampled Laplace hull: closed forms at 50 / 40 digits
# ---------------------------------------------------------------------------------------------

class OneStep:
    """The profiles of Mix(L_b, q) = T(P, Q'), P = Lap(0, 1), Q' = (1 - q) P + q Lap(b, 1):
    ``dA(c)`` = int (Q' - c P)_+ and ``dB(c)`` = int (P - c Q')_+ (its inverse), c = e^eps
    > 0. The ratio R(x) = dQ'/dP = 1 - q + q e^{-(|x - b| - |x|)} is r0 on x <= 0, r1 on
    x >= b and 1 - q + q e^{2x - b} between (increasing), so each set {R > c} is a half line."""

    def __init__(self, b: Fraction, q: Fraction):
        with mpmath.workdps(DPS):
            self.b, self.q = mpf_of(b), mpf_of(q)
            self.r0 = 1 - self.q + self.q * mpmath.exp(-self.b)
            self.r1 = 1 - self.q + self.q * mpmath.exp(self.b)

    def x_of(self, r):
        """The x in [0, b] with R(x) = r (r in [r0, r1])."""
        return (self.b + mpmath.log((r - 1 + self.q) / self.q)) / 2

    def tails(self, x):
        """(P(X > x), Q'(X > x)) for x in [0, b]."""
        b, q = self.b, self.q
        p = mpmath.exp(-x) / 2
        return p, (1 - q) * p + q * (1 - mpmath.exp(x - b) / 2)

    def dA(self, c):
        if c >= self.r1:
            return mpmath.mpf(0)
        if c <= self.r0:
            return 1 - c
        p, qq = self.tails(self.x_of(c))
        return qq - c * p

    def dB(self, c):
        if c <= 0:
            return mpmath.mpf(1)
        if 1 / c <= self.r0:
            return mpmath.mpf(0)
        if 1 / c >= self.r1:
            return 1 - c
        p, qq = self.tails(self.x_of(1 / c))
        return (1 - p) - c * (1 - qq)

    def delta(self, c):
        return max(self.dA(c), self.dB(c))

    def top(self):
        return max(self.r1, 1 / self.r0)


class OneStepG(OneStep):
    """The same for Mix(G_mu, q) = T(P, Q'), P = N(0, 1), Q' = (1 - q) P + q N(mu, 1): R(x) =
    1 - q + q e^{mu x - mu^2/2} increasing on R (no atoms), so {R > c} = (x(c), oo) for
    c > 1 - q, all of R below; ``top`` None (the power's minimiser lies below 1 / alpha)."""

    def __init__(self, mu: Fraction, q: Fraction):
        with mpmath.workdps(DPS):
            self.b, self.q = mpf_of(mu), mpf_of(q)
            self.r0, self.r1 = 1 - self.q, mpmath.inf

    def x_of(self, r):
        return (mpmath.log((r - 1 + self.q) / self.q) + self.b ** 2 / 2) / self.b

    def tails(self, x):
        p = mpmath.ncdf(-x)
        return p, (1 - self.q) * p + self.q * mpmath.ncdf(self.b - x)

    def top(self):
        return None


def min_convex(h, top, iters=150, n=9):
    """(lo, hi) of inf_{0 <= c <= top} h(c), h convex with slope in [-1, 1]: the best of a grid
    of ``n`` points refined by ``iters`` golden sections between its neighbours
    (references.golden_sup); hi = the least value seen, lo = hi less the last bracket's width
    (at most 2 top / (n - 1) times 0.618^iters)."""
    xs = [mpmath.mpf(top) * i / (n - 1) for i in range(n)]
    best = -grid_golden_sup(lambda x: -h(x), xs, iters)[1]
    width = 2 * mpmath.mpf(top) / (n - 1) * ((mpmath.sqrt(5) - 1) / 2) ** iters
    return best - width - mpmath.mpf(10) ** -(mpmath.mp.dps - 5), best


class TwoStep:
    """The profiles of Mix(L_b, q)^2 by one integral over the first step's outcome:
    int (Q'Q' - c PP)_+ = int dQ'(x) dA(c / R(x)), int (PP - c Q'Q')_+ = int dP(x) dB(c R(x))
    (the atoms x <= 0, x >= b apart; the integral on (0, b) split where its argument crosses
    r0 or r1)."""

    def __init__(self, one: OneStep):
        self.o = one

    def _parts(self, fn, weight, arg, c):
        o = self.o
        with mpmath.workdps(40):
            b, q = o.b, o.q
            pts = [mpmath.mpf(0), b]
            for r in (o.r0, o.r1):
                for R in (c / r, 1 / (c * r)):
                    if o.r0 < R < o.r1:
                        pts.append(o.x_of(R))
            pts = sorted(set(pts))
            dens = (lambda x: (1 - q) * mpmath.exp(-x) / 2 + q * mpmath.exp(x - b) / 2) \
                if weight == "Q" else (lambda x: mpmath.exp(-x) / 2)
            R = lambda x: 1 - q + q * mpmath.exp(2 * x - b)  # noqa: E731
            s = mpmath.quad(lambda x: dens(x) * fn(arg(c, R(x))), pts)
            a0 = (1 - q) / 2 + q * mpmath.exp(-b) / 2 if weight == "Q" else mpmath.mpf(1) / 2
            a1 = (1 - q) * mpmath.exp(-b) / 2 + q / 2 if weight == "Q" \
                else mpmath.exp(-b) / 2
            return a0 * fn(arg(c, o.r0)) + a1 * fn(arg(c, o.r1)) + s

    def delta(self, c):
        c = mpmath.mpf(c)
        if c <= 0:
            return mpmath.mpf(1)
        return max(self._parts(self.o.dA, "Q", lambda c, r: c / r, c),
                   self._parts(self.o.dB, "P", lambda c, r: c * r, c))

    def top(self):
        return max(self.o.r1, 1 / self.o.r0) ** 2


class MixTwo(TwoStep):
    """The one direction Mix(L_b, q)^2 (no hull): int dQ'(x) dA(c / R(x))."""

    def delta(self, c):
        c = mpmath.mpf(c)
        if c <= 0:
            return mpmath.mpf(1)
        return self._parts(self.o.dA, "Q", lambda c, r: c / r, c)

    def top(self):
        return self.o.r1 ** 2


@lru_cache(maxsize=256)
def mix_two_power(b: Fraction, q: Fraction, alpha: Fraction):
    """(lo, hi) of the power of Mix(L_b, q)^2 at alpha (40 digits, golden sections)."""
    r = MixTwo(OneStep(b, q))
    with mpmath.workdps(40):
        a = mpf_of(alpha)
        return min_convex(lambda c: r.delta(c) + c * a, r.top(), 110)


@lru_cache(maxsize=32)
def hull_ref(b: Fraction, q: Fraction, T: int, gauss: bool = False):
    if gauss:
        return OneStepG(b, q)
    one = OneStep(b, q)
    return one if T == 1 else TwoStep(one)


@lru_cache(maxsize=256)
def hull_power(b: Fraction, q: Fraction, T: int, alpha: Fraction, gauss: bool = False):
    """(lo, hi) of the power 1 - C(alpha) (T = 1: 50 digits; T = 2: 40 digits, fewer sections;
    ``gauss``: one step of Mix(G_b, q))."""
    r = hull_ref(b, q, T, gauss)
    dps, iters = (DPS, 220) if T == 1 else (40, 110)
    with mpmath.workdps(dps):
        a = mpf_of(alpha)
        top = r.top() if r.top() is not None else 1 / a + 1
        return min_convex(lambda c: r.delta(c) + c * a, top, iters + (40 if r.top() is None
                                                                     else 0))


def _hull_expr(b, q, T, rng):
    base = f"ta.laplace_mechanism({rat(b)}, 1, sampling='poisson', p={rat(q)})"
    if T > 1:
        return base + f"**{T}" if rng.random() < 0.9 else f"ta.Inverse({base}**{T})"
    form = rng.choice(["plain", "plain", "pow1", "addremove", "inverse"])
    if form == "pow1":
        return base + "**1"
    if form == "inverse":  # (C^{-1} = C: defect 5 of the results)
        return f"ta.Inverse({base})"
    if form == "addremove":
        return f"ta.AddRemove(ta.Mix(ta.Laplace({rat(b)}), {rat(q)}))"
    return base


def _knots(b: Fraction, q: Fraction, T: int) -> list[Fraction]:
    """Levels at knots of T steps: the null masses of the atoms' products (P(x <= 0) = 1/2,
    P(x >= b) = e^{-b}/2, Q'(x >= b) = (1 - q) e^{-b}/2 + q/2 of one step; all T steps on
    one atom, or T - 1 on x <= 0), 30 digits where irrational."""
    with mpmath.workdps(40):
        e = mpmath.exp(-mpf_of(b)) / 2
        k2 = (1 - mpf_of(q)) * e + mpf_of(q) / 2
        xs = [e ** T, k2 ** T, 1 - (1 - e) ** T, T * e / 2 ** (T - 1)]
        out = [Fraction(1, 2 ** T), 1 - Fraction(1, 2 ** T), Fraction(1, 2)]
        return out + [Fraction(round(x * 10 ** 30), 10 ** 30) for x in xs]


def _hull_alpha(rng, b, q, T):
    return rng.choice(_knots(b, q, T)) if rng.random() < 0.35 else F._alpha(rng)


def _hull_case(rng, tol, b, q, T, route, which, refs_pld, gauss=False):
    """A hull question; ``refs_pld``: also (or, T = 3, only) dp_accounting's pair; ``gauss``:
    one step of AddRemove(Mix(G_b, q)) (the closed form only)."""
    expr = _hull_expr(b, q, T, rng)
    if gauss:
        expr = f"ta.AddRemove(ta.Mix(ta.G({rat(b)}), {rat(q)}))" + rng.choice(["", "**1"])
    d = _dps(tol)
    exact_ref = T <= 2
    emax = F._emax(b, T)

    def plds():
        return F.hull_plds(b, q, T)
    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 4 if T == 2 else 6))

        def cref():
            out = []
            for a in als:
                if a in (0, 1):  # (f(0) = 1, f(1) = 0: every level's power is finite)
                    out.append(("exact", Fraction(1 - a)))
                elif exact_ref:
                    lo, hi = hull_power(b, q, T, Fraction(a), gauss)
                    out.append(("tight", 1 - hi, 1 - lo))
                else:
                    out.append(("pair", *F.power_bracket(plds(), a, emax)[2:]))
            return out
        c = Case(route, f"ta.curve({expr}, {als!r}, bounds=True)", cref, "curve", tol, 60.0)
        c.als = als
        return c
    if which in ("roc", "evaluate"):
        al = _hull_alpha(rng, b, q, T)
        code = f"ta.{which}({expr}, {rat(al)}, dps={d})"

        def vref():
            if al in (0, 1):
                return ("exact", al if which == "roc" else 1 - al)
            out = []
            if exact_ref:
                lo, hi = hull_power(b, q, T, al, gauss)
                out.append(("tight", lo, hi) if which == "roc" else ("tight", 1 - hi, 1 - lo))
            if refs_pld or not exact_ref:
                br = F.power_bracket(plds(), float(al), emax)
                out.append(("pair", *br[:2]) if which == "roc" else ("pair", *br[2:]))
            return out
        return Case(route, code, vref, "power" if which == "roc" else "prob", tol, 60.0)
    r = hull_ref(b, q, T, gauss) if exact_ref else None
    if which == "delta":
        with mpmath.workdps(DPS):
            past = float(b * b / 2 + 4 * b) if gauss else float(
                mpmath.log(hull_ref(b, q, 1).top())) * T
        eps = Fraction(round(rng.uniform(0, 1.2) * past * 1000), 1000)
        code = f"ta.delta({expr}, {rat(eps)}, dps={d})"

        def dref():
            if r is None:
                return [("pair", *F.pld_pair(plds(), float(eps)))]
            with mpmath.workdps(DPS):
                return [("tight", *tight(r.delta(mpmath.exp(mpf_of(eps))), 30 if T == 1
                                          else 25))]
        return Case(route, code, dref, "delta", tol, 60.0)
    D = Fraction(1, 10 ** rng.randint(1, 10))
    code = f"ta.epsilon({expr}, {rat(D)}, dps={d})"

    def eref(e):
        if r is None:
            return [("pair", *F.pld_pair(plds(), float(e)))]
        with mpmath.workdps(DPS):
            return [("tight", *tight(r.delta(mpmath.exp(mpmath.mpf(e))), 25))]
    return Case(route, code, lambda: eref, "eps", tol, 60.0, level=D)


def _one_question(rng, tol):
    b = rng.choice([Fraction(rng.randint(1, 16), 4), Fraction(8), Fraction(10)])
    q = rng.choice([Fraction(1, 10 ** 6), Fraction(1, 10 ** 4), Fraction(1, 1000),
                    Fraction(1, 100), Fraction(1, 20), Fraction(1, 5), Fraction(1, 2),
                    Fraction(rng.randint(1, 500), 1000)])
    which = rng.choice(["roc", "evaluate", "roc", "delta", "epsilon", "curve"])
    if rng.random() < 0.25:  # (the one-step identity of another law: Mix(G_mu, q))
        mu = Fraction(rng.randint(1, 30), 10)
        return _hull_case(rng, tol, mu, q, 1, "one", which, False, gauss=True)
    return _hull_case(rng, tol, b, q, 1, "one", which, False)


def gen_one(rng):
    return _one_question(rng, rng.choice(TOLS))


def _few_question(rng, tol):
    b = Fraction(rng.randint(1, 16), 4)
    q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20), Fraction(1, 5),
                    Fraction(rng.randint(1, 200), 1000)])
    T = rng.choice([2, 2, 3])
    which = rng.choice(["roc", "evaluate", "roc", "evaluate", "delta", "curve"])
    if T == 2 and which == "delta" and rng.random() < 0.5:
        which = "epsilon"
    return _hull_case(rng, tol, b, q, T, "few", which, T == 3)


def gen_few(rng):
    return _few_question(rng, rng.choice(FEW_TOLS))


# ---------------------------------------------------------------------------------------------
# (b) the atoms kept exact: Mix(Laplace(b), q)^k and Mix(discrete Laplace, q)^k
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=6)
def mix_plds(b: Fraction, q: Fraction, k: int):
    """dp_accounting's (optimistic, pessimistic) PLDs of Mix(L_b, q)^k's two directions
    (``_pmf_remove``: Mix(L_b, q) itself, checked against :class:`OneStep`; ``_pmf_add``: its
    inverse)."""
    return R6.sampled_laplace_plds(1 / float(b), float(q), k, 1e-5 if k <= 5 else 1e-4)


def _dir_pair(plds, eps, name):
    opt, pess = plds
    m = getattr(pess, name)
    up = np.asarray(m.get_delta_for_epsilon(eps), dtype=float)
    mo = getattr(opt, name)
    lo = np.maximum(0.0, np.asarray(mo.get_delta_for_epsilon(eps), dtype=float)
                    - mo._infinity_mass)
    return lo, up


def _both_remove(plds, alpha, eps):
    """fuzz_routes10._both for the one direction Mix(L_b, q)^k: below eps = 0 by its
    inverse's profile, delta(eps) = 1 - e^eps + e^eps delta_inv(-eps)."""
    u, back = np.unique(np.abs(eps), return_inverse=True)
    d_r = [d[back] for d in _dir_pair(plds, u, "_pmf_remove")]
    d_a = [d[back] for d in _dir_pair(plds, u, "_pmf_add")]
    v = np.exp(eps)
    pos = eps >= 0
    out = []
    for dr, da in zip(d_r, d_a, strict=True):
        out.append(np.where(pos, dr + alpha * v, 1 - v * (1 - alpha - da)))
    for dr, da in zip(d_r, d_a, strict=True):
        out.append(np.where(pos, 1 - dr - alpha * v, v * (1 - alpha - da)))
    return out


def _mix_dl_atoms(D: int, t: Fraction, q: Fraction, k: int) -> list:
    """[(loss, P, Q)] of Mix(discrete_laplace(D, t), q)^k at 60 digits: one step's D + 1
    classes of outcomes (x <= 0, 0 < x < D, x >= D: fuzz_routes10._dl_one), mixed
    (Q' = (1 - q) P + q Q) and composed by the counts of each class."""
    with mpmath.workdps(F.MP60):
        one = [(p, (1 - mpf_of(q)) * p + mpf_of(q) * qq) for _, (p, qq) in
               sorted(F._dl_one(D, t).items())]
        law = {(0,) * len(one): (mpmath.mpf(1), mpmath.mpf(1))}
        for _ in range(k):
            nxt: dict = {}
            for key, (p, qq) in law.items():
                for i, (p1, q1) in enumerate(one):
                    kk = key[:i] + (key[i] + 1,) + key[i + 1:]
                    a, c = nxt.get(kk, (0, 0))
                    nxt[kk] = (a + p * p1, c + qq * q1)
            law = nxt
        return [(mpmath.log(qq / p), p, qq) for p, qq in law.values()]


class AtomRef(F.LatticeRef):
    """fuzz_routes10.LatticeRef of finitely many atoms given as (loss mpf, P, Q)."""

    def __init__(self, items):
        self.items, self.kind, self.mu = items, None, None


@lru_cache(maxsize=16)
def _dl_ref(D, t, q, k):
    return AtomRef(_mix_dl_atoms(D, t, q, k))


def _atoms_question(rng, tol):
    q = rng.choice([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 20), Fraction(1, 3),
                    Fraction(rng.randint(1, 500), 1000)])
    k = rng.choice([2, 3, 5, 10])
    which = rng.choice(["curve", "curve", "roc", "evaluate", "delta"])
    d = _dps(tol)
    if rng.random() < 0.55:
        b = Fraction(rng.randint(1, 12), 4)
        expr = f"ta.Mix(ta.Laplace({rat(b)}), {rat(q)})**{k}"
        emax = F._emax(b, k)

        def pw(a):
            if k == 2 and 0 < a < 1:  # (the integral at 40 digits)
                lo, hi = mix_two_power(b, q, Fraction(a))
                return lo, hi, 1 - hi, 1 - lo
            return F.power_bracket(mix_plds(b, q, k), float(a), emax, both=_both_remove)

        def dl(eps):
            return [("pair", *(float(x) for x in _dir_pair(mix_plds(b, q, k), float(eps),
                                                            "_pmf_remove")))]
        kind = "tight" if k == 2 else "pair"
    else:
        D, t = rng.choice([1, 1, 2]), rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
        k = min(k, 10)
        expr = f"ta.Mix(ta.discrete_laplace({D}, {rat(t)}), {rat(q)})**{k}"

        def pw(a):
            lo, hi = _dl_ref(D, t, q, k).power(Fraction(a))
            return lo, hi, 1 - hi, 1 - lo

        def dl(eps):
            return [("tight", *tight(_dl_ref(D, t, q, k).delta(mpf_of(eps)), 40))]
        kind = "tight"
    if which == "curve":
        als = draw_levels(rng, rng.randint(1, 6))
        c = Case("atoms", f"ta.curve({expr}, {als!r}, bounds=True)",
                 lambda: [(kind, *pw(a)[2:]) for a in als], "curve", tol, 60.0)
        c.als = als
        return c
    if which in ("roc", "evaluate"):
        al = F._alpha(rng)

        def vref():
            if al in (0, 1):
                return ("exact", al if which == "roc" else 1 - al)
            br = pw(al)
            return (kind, *br[:2]) if which == "roc" else (kind, *br[2:])
        return Case("atoms", f"ta.{which}({expr}, {rat(al)}, dps={d})", vref,
                    "power" if which == "roc" else "prob", tol, 60.0)
    eps = Fraction(rng.randint(0, 300), 100)
    return Case("atoms", f"ta.delta({expr}, {rat(eps)}, dps={d})", lambda: dl(eps), "delta",
                tol, 60.0)


def gen_atoms(rng):
    return _atoms_question(rng, rng.choice(TOLS))


# ---------------------------------------------------------------------------------------------
# (c) finite_small: pure powers, randomized response, finite pairs
# ---------------------------------------------------------------------------------------------

def _small_law(rng):
    """(source, atoms {ratio: [P, Q]}, e0) of a small power: the atoms in Fraction (e0 None)
    or, for f_{e0,0}^k of a rational e0, at 60 digits."""
    kind = rng.choice(["pure", "pure", "pure_irr", "rr", "disc"])
    r = rng.choice([Fraction(2), Fraction(3), Fraction(3, 2), Fraction(5, 4), Fraction(10)])
    if kind == "pure_irr":
        e0 = rng.choice([Fraction(1, 2), Fraction(1), Fraction(3, 10), Fraction(2)])
        k = rng.choice([1, 2, 3, 7, 16, 33, 64])
        with mpmath.workdps(F.MP60):
            x = mpmath.exp(mpf_of(e0))
            one = {1 / x: [x / (1 + x), 1 / (1 + x)], x: [1 / (1 + x), x / (1 + x)]}
            atoms = F.power_of(one, k)
        return f"ta.EpsDelta({rat(e0)}, 0)" + (f"**{k}" if k > 1 else ""), atoms, e0
    if kind == "pure":
        k = rng.choice([1, 2, 3, 5, 8, 13, 32, 64])
        src, P, Q = f"ta.EpsDelta(sp.log({rat(r)}), 0)", [r / (1 + r), 1 / (1 + r)], \
            [1 / (1 + r), r / (1 + r)]
    elif kind == "rr":
        m, k = rng.choice([2, 3, 5]), rng.choice([1, 2, 3, 5, 10])
        z = r + m - 1
        rest = [1 / z] * (m - 2)
        src, P, Q = (f"ta.randomized_response(sp.log({rat(r)}), {m})", [r / z, 1 / z] + rest,
                     [1 / z, r / z] + rest)
    else:
        src, P, Q = F._finite_factor(rng)
        while not src.startswith("ta.Discrete"):
            src, P, Q = F._finite_factor(rng)
        k = rng.choice([1, 2, 3, 5])
    return src + (f"**{k}" if k > 1 else ""), F.power_of(F._group(P, Q), k), None


def _delta_atoms(atoms, e):
    """delta at eps = e (mpf) of Fraction or mpf atoms, at 60 digits, a pair."""
    if mpmath.isinf(e):
        d = sum((q for p, q in atoms.values() if p == 0), Fraction(0))
        return (d, d) if isinstance(d, Fraction) else tight(d, 45)
    with mpmath.workdps(F.MP60):
        v = mpmath.exp(e)
        s = mpmath.fsum(F._mp(q) - v * F._mp(p) for p, q in atoms.values()
                        if F._mp(q) > v * F._mp(p))
        lo, hi = tight(s, 45)
        # (60-digit atoms: an atom at eps itself adds q - v p = 0 up to their rounding)
        return max(lo - mpmath.mpf(10) ** -50, mpmath.mpf(0)), hi + mpmath.mpf(10) ** -50


def _small_question(rng, tol):
    expr, atoms, e0 = _small_law(rng)
    exact = e0 is None
    d = _dps(tol)
    ratios = sorted(k for k in atoms if k is not None)
    which = rng.choice(["delta", "delta", "epsilon", "epsilon", "roc", "evaluate"])
    if which == "delta":
        pick = rng.random()
        if exact and pick < 0.4:  # at an atom's loss, or at log v
            v = rng.choice(ratios + [Fraction(1), Fraction(7, 3)])
            v = max(v, Fraction(1))
            code = f"ta.delta({expr}, sp.log({rat(v)}), dps={d})"
            return Case("small", code, lambda: [("exact", F.delta_exact(atoms, v))], "delta",
                        tol, 60.0)
        if not exact and pick < 0.4:  # eps0 rational: the atoms' losses are j eps0
            eps = e0 * rng.randint(0, 6)
        else:
            eps = Fraction(rng.randint(0, 300), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={d})"
        return Case("small", code, lambda: [("tight", *_delta_atoms(atoms, mpf_of(eps)))],
                    "delta", tol, 60.0)
    if which == "epsilon":
        pick = rng.random()
        if exact and pick < 0.5:  # D exactly delta at an atom (a knot of eps(D))
            D = F.delta_exact(atoms, rng.choice([x for x in ratios if x >= 1] or [Fraction(1)]))
            if not 0 < D < 1:
                D = Fraction(1, 10 ** rng.randint(1, 8))
        elif exact and pick < 0.7:  # D = delta(0) or delta(oo) = Q(P = 0): delta flat there
            D = rng.choice([F.delta_exact(atoms, Fraction(1)),
                            sum((q for p, q in atoms.values() if p == 0), Fraction(0))])
            if not 0 < D < 1:
                D = Fraction(1, 10 ** rng.randint(1, 8))
        else:
            D = Fraction(1, 10 ** rng.randint(1, 10))
        code = f"ta.epsilon({expr}, {rat(D)}, dps={d})"
        return Case("small", code, lambda: (lambda e: [("tight", *_delta_atoms(atoms, e))]),
                    "eps", tol, 60.0, level=D)
    # roc / evaluate at a knot (the cumulative null mass by decreasing ratio) or anywhere
    if exact and rng.random() < 0.5:
        keys = sorted(atoms, key=lambda k: (k is not None, -(k if k is not None else 0)))
        cum = np.cumsum([0] + [atoms[k][0] for k in keys]).tolist()
        al = rng.choice([Fraction(c) for c in cum if 0 < c < 1] or [Fraction(1, 2)])
    else:
        al = F._alpha(rng)

    def vref():
        if exact:
            p = F.np_power(atoms, al)
            return ("exact", p if which == "roc" else 1 - p)
        with mpmath.workdps(F.MP60):  # (the sums at 60 digits: f = 1 - p near alpha = 1)
            p = F.np_power(atoms, mpf_of(al))
            lo, hi = tight(mpmath.mpf(p), 40)
            return ("tight", lo, hi) if which == "roc" else ("tight", 1 - hi, 1 - lo)
    code = f"ta.{which}({expr}, {rat(al)}, dps={d})"
    return Case("small", code, vref, "power" if which == "roc" else "prob", tol, 60.0)


def gen_small(rng):
    return _small_question(rng, rng.choice(TOLS))


# ---------------------------------------------------------------------------------------------
# (d) exact ends of curves; f**1
# ---------------------------------------------------------------------------------------------

def gen_ends(rng):
    """A curve at 0, around z = P(Q > 0) and above, of a finite product (exact f(0), z) or a
    hull / Mix power (f(0) = 1, z = 1)."""
    tol = rng.choice(TOLS)
    if rng.random() < 0.6:
        expr, atoms = F._finite_expr(rng)
        f0 = 1 - sum((q for p, q in atoms.values() if p == 0), Fraction(0))
        z = sum((p for p, q in atoms.values() if q > 0), Fraction(0))
    else:
        b, q = Fraction(rng.randint(1, 12), 4), Fraction(rng.choice([1, 10, 50]), 1000)
        T = rng.choice([1, 2, 10])
        expr = rng.choice([f"ta.laplace_mechanism({rat(b)}, 1, sampling='poisson', "
                           f"p={rat(q)})" + (f"**{T}" if T > 1 else ""),
                           f"ta.Mix(ta.Laplace({rat(b)}), {rat(q)})**{T}",
                           f"ta.Laplace({rat(b)})**{T}"])
        atoms, f0, z = None, Fraction(1), Fraction(1)
    zf = float(z)
    als = {0.0, zf, float(np.nextafter(zf, 0)), float(np.nextafter(zf, 2)), 1.0,
           (zf + 1) / 2, zf / 2} | set(draw_levels(rng, 2))
    als = sorted(a for a in als if 0 <= a <= 1)

    def cref():
        out = []
        for a in als:
            fa = Fraction(a)
            if fa == 0:
                out.append(("exact", f0))
            elif fa >= z:
                out.append(("exact", Fraction(0)))
            elif atoms is not None:
                out.append(("exact", 1 - F.np_power(atoms, fa)))
            else:
                out.append(("tight", mpmath.mpf(0), mpmath.mpf(1)))
        return out
    c = Case("ends", f"ta.curve({expr}, {als!r}, bounds=True)", cref, "curve", tol, 60.0)
    c.als, c.ends = als, (f0, z)
    return c


def check_ends(case, flags, stats):
    """fuzz_routes10's checks, then the ends: the band at 0 and on [z, 1] the exact value
    rounded outward (``curves._with_ends``)."""
    F.check_value(case, flags, stats)
    out, err, *_ = F.ask(case.code, case.tol, case.limit)
    if err is not None or out is None:
        return
    f0, z = case.ends
    lo, hi = np.asarray(out[0]), np.asarray(out[1])
    for i, a in enumerate(case.als):
        fa = Fraction(a)
        want = f0 if fa == 0 else (Fraction(0) if fa >= z else None)
        if want is None:
            continue
        wl, wh = _outward(want)
        if not (lo[i] >= wl and hi[i] <= wh):
            flags.append(("end not exact", case, f"level {a!r}: [{lo[i]!r}, {hi[i]!r}], "
                          f"exactly {want}"))
            return


def _outward(q: Fraction):
    y = float(q)
    lo = y if Fraction(y) <= q else float(np.nextafter(y, -np.inf))
    hi = y if Fraction(y) >= q else float(np.nextafter(y, np.inf))
    return lo, hi


UNIT_BASES = [
    lambda r: f"ta.Laplace({rat(Fraction(r.randint(1, 12), 4))})",
    lambda r: f"ta.G({rat(Fraction(r.randint(1, 30), 10))})",
    lambda r: f"ta.EpsDelta(sp.log({r.randint(2, 5)}), {rat(Fraction(1, 10 ** r.randint(1, 6)))})",
    lambda r: (f"ta.laplace_mechanism({rat(Fraction(r.randint(1, 12), 4))}, 1, "
               f"sampling='poisson', p={rat(Fraction(r.randint(1, 200), 1000))})"),
    lambda r: f"ta.Mix(ta.Laplace({rat(Fraction(r.randint(1, 12), 4))}), "
              f"{rat(Fraction(r.randint(1, 200), 1000))})",
    lambda r: f"ta.discrete_laplace({r.randint(1, 2)}, {rat(Fraction(r.randint(1, 6), 2))})",
    lambda r: f"ta.randomized_response(sp.log({r.randint(2, 5)}), {r.randint(2, 4)})",
]


def gen_unit(rng):
    f = rng.choice(UNIT_BASES)(rng)
    g = rng.choice(UNIT_BASES)(rng) if rng.random() < 0.3 else None
    tol = rng.choice(TOLS)
    al = F._alpha(rng)
    one = f"({f})**1" if g is None else f"ta.Tensor(({f})**1, {g})"
    plain = f if g is None else f"ta.Tensor({f}, {g})"
    c = Case("unit", f"ta.roc({one}, {rat(al)}, dps={_dps(tol)})", None, "unit", tol, 60.0)
    c.plain = f"ta.roc({plain}, {rat(al)}, dps={_dps(tol)})"
    return c


def check_unit(case, flags, stats):
    st = F._st(stats, "unit")
    st["draws"] += 1
    got = []
    for code in (case.plain, case.code):
        out, err, wall, cpu, ws = F.ask(code, case.tol, case.limit)
        stats["wall"] += wall
        if err is not None:
            _fuzz.tally_error(err, st, flags, case)
            return
        got.append(out)
    a, b = got
    ca, cb = (v.guarantee in ("certified", "exact") for v in got)
    st["certified" if cb else "estimate"] += 1
    if ca != cb:
        flags.append(("f**1 not as f", case, f"f: {a!r} {a.guarantee} ({a.route}); f**1: "
                      f"{b!r} {b.guarantee} ({b.route})"))
        return
    if ca:
        st["checked"] += 1
        (al, ah), (bl, bh) = a.interval(), b.interval()
        if ah < bl or bh < al:
            flags.append(("f**1 not as f", case, f"disjoint: f {a!r}, f**1 {b!r}"))


# ---------------------------------------------------------------------------------------------
# nesting, time limits, the loop
# ---------------------------------------------------------------------------------------------

QUESTIONS = {"one": _one_question, "few": _few_question, "atoms": _atoms_question,
             "small": _small_question}


def gen_nest(rng, route="nest"):
    name = rng.choice(list(QUESTIONS))
    c0 = QUESTIONS[name](rng, 1e-6)
    tols = FEW_TOLS[:3] + [1e-6] if name == "few" else TOLS
    return _fuzz.nest_case(rng, f"{route}:{name}", _fuzz.with_dps_slot(c0.code), "nest", 60.0,
                           sorted(set(tols)), route == "fresh")


def gen_fresh(rng):
    return gen_nest(rng, "fresh")


def gen_deadline(rng):
    return F.gen_deadline(rng, QUESTIONS)


GENERATORS = {"one": gen_one, "few": gen_few, "atoms": gen_atoms, "small": gen_small,
              "ends": gen_ends, "unit": gen_unit, "nest": gen_nest, "one2": gen_one,
              "few2": gen_few, "deadline": gen_deadline, "fresh": gen_fresh,
              "small2": gen_small}


_LAST: dict = {}
_ask0 = F.ask


def _ask_kept(code, tol, limit):
    """fuzz_routes10.ask, its answer kept for :func:`check_estimate`."""
    r = _ask0(code, tol, limit)
    _LAST["r"] = r
    return r


F.ask = _ask_kept  # (fuzz_routes10.check_value asks through it)


def check_estimate(case, flags):
    """An estimate (a Value, not a curve) is not held to its reference, but one that misses it
    by more than 1e-3 relative (its own interval widened so) is flagged "estimate far off"."""
    out, err = _LAST.get("r", (None, None))[:2]
    if err is not None or out is None or isinstance(out, tuple) or \
            out.guarantee in ("certified", "exact"):
        return
    lo, hi = out.interval()
    with mpmath.workdps(F.MP60):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        lo, hi = lo - 1e-3 * abs(lo) - 1e-12, hi + 1e-3 * abs(hi) + 1e-12
        ref = case.ref()
        if case.kind == "eps":  # (eps* = inf{eps: delta(eps) <= D}: delta(lo-) > D)
            Dm = mpf_of(case.level)
            if mpmath.isinf(lo):  # (eps* = +oo: delta above D at every finite eps)
                lo = mpmath.mpf(10) ** 6
            bad = (lo > 0 and any(
                (F._mp(r[1]) + F._mp(r[2])) / 2 <= Dm * (1 + mpmath.mpf(10) ** -30)
                for r in ref(lo))) or (
                not mpmath.isinf(hi) and any(F._mp(r[1]) > Dm * (1 + 1e-3) for r in ref(hi)))
        else:
            bad = any(not F.meets(lo, hi, r) for r in (ref if isinstance(ref, list) else [ref]))
    if bad:
        flags.append(("estimate far off", case, f"{out!r} ({out.route})"))


def check(case, flags, stats):
    def one():
        if case.kind == "nest":
            return F.check_nest(case, flags, stats)
        if case.kind == "deadline":
            return F.check_deadline(case, flags, stats)
        if case.kind == "unit":
            return check_unit(case, flags, stats)
        if case.route == "ends":
            return check_ends(case, flags, stats)
        t0 = time.process_time()
        _LAST.clear()
        F.check_value(case, flags, stats)
        check_estimate(case, flags)
        stats.setdefault("ref cpu", []).append(time.process_time() - t0)
    _fuzz.guarded(one, case, flags, 180.0 + case.limit, 3 if case.kind == "nest" else 1)


def summary(stats) -> list[str]:
    out = F.summary(stats)
    ref = stats.get("ref cpu", [])
    if ref:
        out.append(f"checked calls with their references: {len(ref)}, CPU {sum(ref):.0f} s")
    return out


if __name__ == "__main__":
    _fuzz.run(GENERATORS, check, summary)
