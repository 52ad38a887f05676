"""Fuzz the certified routes against independent references (seeded random draws).

Each draw builds one question (delta, f(alpha), the power, an RDP order) about an expression the
newest certified routes answer, asks ``tradeoff_algebra``, and compares with a reference computed
without the library (tests/references/audit_refs.py: exact enumeration of product laws, exact
integer lattice products, mpmath sums, dp_accounting's PLD bracket):

* a value labelled "certified" or "exact" must meet the reference interval (widened by the
  reference's own error and by one unit of the value);
* no NaN, nothing outside [0, 1] for delta and f;
* a certified enclosure wider than the tolerance must come with a ToleranceWarning;
* the route's name must not say "certified" when the guarantee is an estimate.

Every failure is printed with a reproducer (the exact call). Usage:

    PYTHONPATH=. nice python benchmarks/fuzz_certified_routes.py --seed 1 --budget 600 \
        [--only offgrid,finite,...] [--per-case 60]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
import traceback
import warnings
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import mpmath  # noqa: E402
import sympy as sp  # noqa: E402
from references import audit2_refs as R2  # noqa: E402
from references import audit3_refs as A3  # noqa: E402
from references import audit4_refs as A4  # noqa: E402
from references import audit_refs as R  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402
from tradeoff_algebra.families import discrete_gaussian_offgrid as og  # noqa: E402

MP = mpmath.mp


def og_delta(factors, eps: Fraction, tol: float):
    """OffGridSum(factors).delta(eps, tol) at the precision the product route uses: an arb ball
    or None (declined)."""
    from flint import arb, fmpq

    from tradeoff_algebra.numeric.context import arb_precision

    prec = int(-math.log2(tol)) + 80
    with arb_precision(prec):
        return og.OffGridSum(factors).delta(arb(fmpq(eps.numerator, eps.denominator)), tol,
                                            prec)


NS = {"ta": ta, "sp": sp, "og": og, "Fraction": Fraction, "og_delta": og_delta, "math": math}


def rat(x: Fraction) -> str:
    return f"sp.Rational({x.numerator}, {x.denominator})"


class Case:
    """One question: ``code`` evaluates to a Value (or a number for the RDP checks); ``ref()``
    returns (lo, hi) mpfs; ``kind`` "prob" (in [0, 1]) or "rdp" (the answer an upper bound)."""

    def __init__(self, family: str, code: str, ref, kind: str = "prob", tol: float = 1e-3,
                 setup: str = ""):
        self.family, self.code, self.ref, self.kind, self.tol = family, code, ref, kind, tol
        self.setup = setup

    def reproducer(self) -> str:
        return (self.setup + "\n" if self.setup else "") + self.code


# ---------------------------------------------------------------------------------------------
# generators: each returns a Case
# ---------------------------------------------------------------------------------------------

def _rand_sigma2(rng: random.Random, lo=0.3, hi=50.0) -> Fraction:
    s = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return Fraction(round(s * s * 1000), 1000) or Fraction(1, 10)


def gen_offgrid_direct(rng):
    """OffGridSum.delta on commensurate sigma^2 = m_i/D (its argument does not assume the steps
    incommensurate) against the exact integer lattice product."""
    L = rng.choice([2, 3, 4, 5, 6, 8, 10, 12])  # steps u_i = k_i/L on one lattice
    factors = []
    for _ in range(rng.randint(2, 8)):
        d = rng.choice([1, 1, 1, 2, 3])
        k = rng.randint(max(1, d * L // 12), 3 * d * L)
        factors.append((d, Fraction(d * L, k), rng.choice([1, 1, 2, 3, 5])))
    eps = Fraction(rng.choice([0, 1, 3, 10, 50, 100, 200]), 100)
    tol = rng.choice([1e-2, 1e-4, 1e-8, 1e-15, 1e-30])
    fs = ", ".join(f"({d}, Fraction({s2.numerator}, {s2.denominator}), {n})"
                   for d, s2, n in factors)
    setup = "from benchmarks.fuzz_certified_routes import og_delta"
    code = f"og_delta([{fs}], Fraction({eps.numerator}, {eps.denominator}), {tol!r})"

    def ref():
        with MP.workdps(60):
            g, err, _ = R.dg_lattice(factors, bits=int(-math.log2(tol)) + 80)
            v = R.np_delta(g, MP.mpf(eps.numerator) / eps.denominator)
            return v - err, v + err

    return Case("offgrid-direct", code, ref, "ball", tol, setup)


def gen_offgrid_ta(rng):
    """ta.delta of a product of discrete Gaussians with incommensurate sigma (the off-grid route
    where it fits) against the exact sums of dg_sums (two or three factors) or the exact lattice
    product (commensurate)."""
    k = rng.randint(1, 3)
    s2s = [_rand_sigma2(rng, 2.0, 15.0) for _ in range(k)]
    ds = [rng.choice([1, 1, 2, 3]) for _ in range(k)]
    if k == 3:
        s2s = [_rand_sigma2(rng, 0.5, 4.0) for _ in range(k)]
    eps = Fraction(rng.choice([0, 1, 5, 30, 100, 300]), 100)
    dps = rng.choice([10, 20, 30])
    expr = "ta.Tensor(" + ", ".join(f"ta.DiscreteGaussian({d}, sp.sqrt({rat(s2)}))"
                                    for d, s2 in zip(ds, s2s, strict=True)) + ")"
    if k == 1:
        expr = f"ta.DiscreteGaussian({ds[0]}, sp.sqrt({rat(s2s[0])}))"
    code = f"ta.delta({expr}, {rat(eps)}, dps={dps})"

    def ref():
        with MP.workdps(50):
            g, err, _ = R.dg_lattice([(d, s2, 1) for d, s2 in zip(ds, s2s, strict=True)],
                                     bits=200)
            v = R.np_delta(g, MP.mpf(eps.numerator) / eps.denominator)
            return v - err, v + err

    return Case("offgrid-ta", code, ref, "prob", 10.0 ** -dps)


def gen_offgrid_many(rng):
    """Many discrete Gaussians with sigma_i = s + i/10 (off any grid; the census shape, smaller):
    the off-grid route against dp_accounting-free reference: the exact lattice product of the
    same factors with sigma_i^2 rounded to a common denominator is NOT the same law, so here the
    reference is the integer lattice product of the exact rational sigma_i^2 (denominators 100):
    feasible for a few factors only."""
    k = rng.randint(3, 6)
    base = rng.choice([2, 3, 4, 5])
    s2s = [(base + Fraction(i, 10)) ** 2 for i in range(1, k + 1)]
    eps = Fraction(rng.choice([0, 10, 50, 100]), 100)
    dps = rng.choice([10, 20])
    expr = "ta.Tensor(" + ", ".join(f"ta.DiscreteGaussian(1, {rat(base + Fraction(i, 10))})"
                                    for i in range(1, k + 1)) + ")"
    code = f"ta.delta({expr}, {rat(eps)}, dps={dps})"

    def ref():
        with MP.workdps(40):
            g, err, _ = R.dg_lattice([(1, s2, 1) for s2 in s2s], bits=140)
            v = R.np_delta(g, MP.mpf(eps.numerator) / eps.denominator)
            return v - err, v + err

    return Case("offgrid-many", code, ref, "prob", 10.0 ** -dps)


def gen_dg_power(rng):
    """DG(Delta, sigma)^n: delta (lattice routes) and f at a random alpha and at a
    Neyman--Pearson vertex (the profile band) against the exact lattice product."""
    s2 = Fraction(rng.randint(1, 60), rng.choice([1, 2, 4]))
    d = rng.choice([1, 1, 2])
    n = rng.choice([2, 5, 10, 30, 100])
    q = rng.random()
    dps = rng.choice([6, 10, 20])
    expr = f"ta.DiscreteGaussian({d}, sp.sqrt({rat(s2)}))**{n}"
    which = rng.choice(["delta", "value", "roc", "vertex"])
    if which == "delta":
        eps = Fraction(rng.choice([0, 1, 10, 50, 100, 300]), 100)
        code = f"ta.delta({expr}, {rat(eps)}, dps={dps})"

        def ref():
            with MP.workdps(50):
                g, err, _ = R.dg_lattice([(d, s2, n)], bits=180)
                v = R.np_delta(g, MP.mpf(eps.numerator) / eps.denominator)
                return v - err, v + err
        return Case("dg-power", code, ref, "prob", 10.0 ** -dps)
    with MP.workdps(50):
        g, err, _ = R.dg_lattice([(d, s2, n)], bits=180)
    if which == "vertex":
        vs = [v for v in R.np_vertices(g) if 1e-6 < v < 1 - 1e-6]
        if not vs:
            return None
        alpha = vs[rng.randrange(len(vs))]
        a = Fraction(mpmath.nstr(alpha, 30, strip_zeros=False).replace(" ", "")) \
            if False else Fraction(str(mpmath.nstr(alpha, 25)))
    else:
        a = Fraction(round(q * 10**6), 10**6) or Fraction(1, 10**6)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(a)}, dps={dps})"

    def ref():
        with MP.workdps(50):
            al = MP.mpf(a.numerator) / a.denominator
            v = R.np_value(g, al)
            if fn == "roc":
                v = 1 - v
            return v - 4 * err, v + 4 * err
    return Case("dg-power-" + which, code, ref, "prob", 10.0 ** -dps)


def gen_rr_power(rng):
    """Binary randomized response RR(eps0)^n, n up to 10^6, eps0 irrational or log of a
    rational, delta at irrational eps against the binomial sum in mpmath."""
    eps0 = rng.choice([sp.log(3), sp.log(2), sp.Rational(1, 2), sp.Integer(1), sp.sqrt(2) / 10,
                       sp.pi / 7, sp.Rational(1, 100)])
    n = rng.choice([1, 7, 100, 1000, 10**4, 10**5, 10**6])
    # eps near the mean loss so delta is not 0 or 1
    e0 = float(eps0)
    mean = n * e0 * math.tanh(e0 / 2)
    sd = 2 * e0 * math.sqrt(n) * math.sqrt(math.exp(e0)) / (1 + math.exp(e0))
    x = max(0.0, mean + rng.uniform(-1, 4) * sd)
    eps = rng.choice([sp.Rational(round(x * 1000), 1000), sp.Rational(round(x * 1000), 1000)
                      + sp.sqrt(2) / 1000, sp.log(1 + sp.Rational(round(x * 100), 100))])
    dps = rng.choice([10, 20])
    code = (f"ta.delta(ta.randomized_response({sp.srepr(eps0)})**{n}, {sp.srepr(eps)}, "
            f"dps={dps})")
    code = code.replace("Integer(", "sp.Integer(").replace("Rational(", "sp.Rational(") \
        .replace("log(", "sp.log(").replace("Pow(", "sp.Pow(").replace("Mul(", "sp.Mul(") \
        .replace("Add(", "sp.Add(").replace("Symbol(", "sp.Symbol(").replace("pi", "sp.pi") \
        .replace("Half", "sp.Rational(1, 2)").replace("sp.sp.", "sp.")

    def ref():
        with MP.workdps(50):
            v = R.binary_power_delta(sp.N(eps0, 60), n, sp.N(eps, 60))
            return v * (1 - MP.mpf(10) ** -40) - MP.mpf(10) ** -45, v * (1 + MP.mpf(10) ** -40) \
                + MP.mpf(10) ** -45
    return Case("rr-power", code, ref, "prob", 10.0 ** -dps)


def _srepr(x) -> str:
    s = sp.srepr(x)
    for name in ("Integer", "Rational", "log", "Pow", "Mul", "Add", "sqrt", "exp", "Float"):
        s = s.replace(name + "(", "sp." + name + "(")
    return s.replace("pi", "sp.pi").replace("Half", "sp.Rational(1, 2)").replace(
        "sp.sp.", "sp.").replace("One", "sp.Integer(1)")


def gen_epsdelta_power(rng):
    eps0 = rng.choice([sp.log(3), sp.Rational(1, 2), sp.Integer(1), sp.sqrt(2) / 10])
    d0 = rng.choice([sp.Rational(1, 10**6), sp.Rational(1, 1000), sp.Rational(1, 10**9)])
    n = rng.choice([1, 3, 50, 1000, 10**5])
    e0 = float(eps0)
    x = max(0.0, n * e0 * math.tanh(e0 / 2) + rng.uniform(0, 4) * e0 * math.sqrt(n))
    eps = sp.Rational(round(x * 1000), 1000) + rng.choice([0, sp.sqrt(3) / 100])
    dps = rng.choice([10, 20])
    code = f"ta.delta(ta.EpsDelta({_srepr(eps0)}, {_srepr(d0)})**{n}, {_srepr(eps)}, dps={dps})"

    def ref():
        with MP.workdps(50):
            v = R.epsdelta_power_delta(sp.N(eps0, 60), sp.N(d0, 60), n, sp.N(eps, 60))
            return v * (1 - MP.mpf(10) ** -40) - MP.mpf(10) ** -45, v * (1 + MP.mpf(10) ** -40) \
                + MP.mpf(10) ** -45
    return Case("epsdelta-power", code, ref, "prob", 10.0 ** -dps)


def _rand_pair(rng, k, zeros=True):
    """A random finite pair on k outcomes with small rational masses, some zero-mass outcomes
    (singular atoms) on either side."""
    while True:
        P = [rng.randint(0, 6) for _ in range(k)]
        Q = [rng.randint(0, 6) for _ in range(k)]
        if zeros:
            i = rng.randrange(k)
            P[i] = 0
            if rng.random() < 0.5:
                j = rng.randrange(k)
                if j != i:
                    Q[j] = 0
        if sum(P) and sum(Q) and P != Q:
            return [Fraction(x, sum(P)) for x in P], [Fraction(x, sum(Q)) for x in Q]


def gen_finite_power(rng):
    """A finite pair with zero-mass outcomes composed n times: delta at irrational eps and f/roc
    at random alphas and at exact Neyman--Pearson vertices, against exact enumeration."""
    k = rng.randint(2, 4)
    P, Q = _rand_pair(rng, k)
    n = rng.choice([1, 2, 5, 12, 25] if k <= 3 else [1, 2, 5, 10])
    sym = rng.random() < 0.3
    expr = (f"ta.Discrete([{', '.join(rat(x) for x in P)}], "
            f"[{', '.join(rat(x) for x in Q)}])")
    if sym:
        expr = f"ta.SymmetricHull({expr})"
    expr = f"({expr})**{n}" if n > 1 else expr
    dps = rng.choice([10, 20, 30])
    which = rng.choice(["delta", "value", "roc", "vertex"])
    atoms = R.finite_power(P, Q, n)
    if sym:
        which = "skip"
    if which == "skip":
        return None
    if which == "delta":
        eps = rng.choice([sp.Integer(0), sp.Rational(1, 3), sp.log(2), sp.sqrt(2),
                          sp.Rational(rng.randint(0, 400), 100) + sp.sqrt(2) / 100])
        code = f"ta.delta({expr}, {_srepr(eps)}, dps={dps})"

        def ref():
            with MP.workdps(60):
                v = R.np_delta(atoms, sp.N(eps, 70))
                return v - MP.mpf(10) ** -50, v + MP.mpf(10) ** -50
        return Case("finite-power", code, ref, "prob", 10.0 ** -dps)
    g = R.np_groups(atoms)
    if which == "vertex":
        vs = [v for v in R.np_vertices(g) if 0 < v < 1]
        if not vs:
            return None
        a = vs[rng.randrange(len(vs))]
    else:
        a = Fraction(rng.randint(0, 10**6), 10**6)
        if rng.random() < 0.2:
            a = rng.choice([Fraction(1, 10**12), 1 - Fraction(1, 10**12)])
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(a)}, dps={dps})"
    v = R.np_value(g, a)
    if fn == "roc":
        v = 1 - v

    def ref():
        return MP.mpf(v.numerator) / v.denominator, MP.mpf(v.numerator) / v.denominator
    return Case("finite-power-" + which, code, ref, "prob", 10.0 ** -dps)


def gen_rr3_power(rng):
    """k-ary randomized response (k = 3, 4; atoms of ratio 1) composed n times (n up to 300, the
    lattice routes): delta and f against the exact trinomial enumeration in mpmath."""
    k = rng.choice([3, 4])
    eps0 = rng.choice([sp.log(3), sp.Integer(1), sp.Rational(1, 2)])
    n = rng.choice([20, 60, 150])
    dps = rng.choice([10, 20])
    which = rng.choice(["delta", "value", "roc"])
    expr = f"ta.randomized_response({_srepr(eps0)}, {k})**{n}"
    with MP.workdps(50):
        E = MP.exp(sp.N(eps0, 60))
        den = E + k - 1
        # classes: ratio E (P = E/den, Q = 1/den), ratio 1/E, ratio 1 (k - 2 outcomes merged)
        P = [E / den, 1 / den, (k - 2) / den]
        Q = [1 / den, E / den, (k - 2) / den]
        atoms = R.finite_power(P, Q, n)
    if which == "delta":
        x = max(0.0, rng.uniform(-1, 3) * math.sqrt(n) * float(eps0) * 0.7)
        eps = sp.Rational(round(x * 100), 100) + sp.sqrt(5) / 1000
        code = f"ta.delta({expr}, {_srepr(eps)}, dps={dps})"

        def ref():
            with MP.workdps(50):
                v = R.np_delta(atoms, sp.N(eps, 60))
                return v - MP.mpf(10) ** -35, v + MP.mpf(10) ** -35
        return Case("rr3-power", code, ref, "prob", 10.0 ** -dps)
    with MP.workdps(50):
        g = R.np_groups(atoms)
    a = Fraction(rng.randint(1, 10**6 - 1), 10**6)
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(a)}, dps={dps})"

    def ref():
        with MP.workdps(50):
            v = R.np_value(g, MP.mpf(a.numerator) / a.denominator)
            if fn == "roc":
                v = 1 - v
            return v - MP.mpf(10) ** -35, v + MP.mpf(10) ** -35
    return Case("rr3-power-" + which, code, ref, "prob", 10.0 ** -dps)


def _f_bracket_from_delta(delta_lo, delta_hi, alpha: float, E: float, m: int = 1500):
    """Bounds of a symmetric f(alpha) from bounds of its profile on a grid of eps in [-E, E]:
    f(alpha) = sup_eps (1 - delta(eps) - e^eps alpha) (Dong, Roth & Su, Prop. 6, with delta at
    negative eps); below by the grid points with delta_hi, above by 1 - delta_lo(eps_{j+1}) -
    e^{eps_j} alpha on each cell (delta non-increasing), e^{-E} beyond the left end and 1 -
    e^{E} alpha beyond the right."""
    xs = [-E + 2 * E * j / m for j in range(m + 1)]
    dl = [delta_lo(x) for x in xs]
    dh = [delta_hi(x) for x in xs]
    lo = max(0.0, max(1 - dh[j] - math.exp(xs[j]) * alpha for j in range(m + 1)))
    hi = max(math.exp(-E), 1 - math.exp(E) * alpha)
    for j in range(m):
        hi = max(hi, 1 - dl[j + 1] - math.exp(xs[j]) * alpha)
    return lo, min(hi, 1.0)


def gen_laplace_power(rng):
    """Laplace(mu)^n and G(nu) (x) Laplace(mu)^n: delta, f, roc (the profile band over the Laplace
    inversion) against dp_accounting's PLD bracket (widened by 1e-9 absolute, 1e-6 relative)."""
    mu = rng.choice([sp.Rational(1, 10), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2)])
    n = rng.choice([1, 2, 3, 10, 50])
    nu = rng.choice([None, None, sp.Rational(1, 2), sp.Integer(1)])
    which = rng.choice(["delta", "value", "roc"])
    dps = rng.choice([6, 10])
    expr = f"ta.Laplace({_srepr(mu)})**{n}" if n > 1 else f"ta.Laplace({_srepr(mu)})"
    if nu is not None:
        expr = f"ta.Tensor(ta.G({_srepr(nu)}), {expr})"
    h = 1e-4
    lap = R.pld_bracket("laplace", {"b": 1.0, "s": float(mu)}, n, 0.0, h)
    parts = [(lap, n)]
    if nu is not None:
        parts.append((R.pld_bracket("gaussian", {"sigma": 1.0, "s": float(nu)}, 1, 0.0, h), 1))

    def dlo(x):
        return R.pld_delta(parts, x)[0]

    def dhi(x):
        return R.pld_delta(parts, x)[1]

    cache: dict = {}

    def both(x):
        if "comp" not in cache:
            cache["comp"] = R.pld_compose(parts)
        if x not in cache:
            cache[x] = R.pld_delta(parts, x, cache["comp"])
        return cache[x]

    if which == "delta":
        eps = sp.Rational(rng.randint(0, 300), 100)
        code = f"ta.delta({expr}, {_srepr(eps)}, dps={dps})"

        def ref():
            lo, hi = both(float(eps))
            return MP.mpf(lo) * (1 - 1e-6) - 1e-9, MP.mpf(hi) * (1 + 1e-6) + 1e-9
        return Case("laplace-power", code, ref, "prob", 1e-3)
    a = Fraction(rng.randint(1, 999), 1000) if rng.random() < 0.8 else \
        rng.choice([Fraction(1, 10**5), 1 - Fraction(1, 10**5)])
    fn = "roc" if which == "roc" else "evaluate"
    code = f"ta.{fn}({expr}, {rat(a)}, dps={dps})"
    tot = float(mu) * n + (float(nu) ** 2 * 4 + 5 if nu is not None else 0)

    def ref():
        lo, hi = _f_bracket_from_delta(lambda x: both(x)[0], lambda x: both(x)[1], float(a),
                                       min(tot + 1, 30.0))
        lo, hi = lo - 1e-6, hi + 1e-6
        if fn == "roc":
            lo, hi = 1 - hi, 1 - lo
        return MP.mpf(lo), MP.mpf(hi)
    return Case("laplace-power-" + which, code, ref, "prob", 1e-3)


def gen_laplace_sampled(rng):
    """Few-step Poisson-subsampled Laplace (the polynomial split) against dp_accounting."""
    b = rng.choice([sp.Rational(1, 2), sp.Integer(1), sp.Integer(2)])
    p = rng.choice([sp.Rational(1, 100), sp.Rational(1, 10), sp.Rational(1, 2)])
    T = rng.choice([1, 2, 3, 5, 10, 30])
    eps = sp.Rational(rng.randint(0, 200), 100)
    dps = rng.choice([6, 8])
    expr = f"ta.laplace_mechanism(1, {_srepr(b)}, sampling='poisson', p={_srepr(p)})"
    if T > 1:
        expr = f"({expr})**{T}"
    code = f"ta.delta({expr}, {_srepr(eps)}, dps={dps})"
    pair = R.pld_bracket("laplace_sampled", {"b": float(b), "s": 1.0, "p": float(p)}, T, 0.0,
                         1e-5)

    def ref():
        lo, hi = R.pld_delta([(pair, T)], float(eps))
        return MP.mpf(lo) * (1 - 1e-6) - 1e-9, MP.mpf(hi) * (1 + 1e-6) + 1e-9
    return Case("laplace-sampled", code, ref, "prob", 1e-3)


def gen_skellam(rng):
    """Skellam and Skellam products (the grid product) against mpmath sums over the outcomes."""
    k = rng.choice([1, 2, 2])
    fs = [(rng.choice([1, 1, 2]), rng.choice([sp.Integer(2), sp.Integer(5), sp.Rational(7, 2),
                                              sp.Integer(10), sp.Rational(31, 3)]))
          for _ in range(k)]
    eps = sp.Rational(rng.randint(0, 150), 100)
    dps = rng.choice([6, 10])
    parts = [f"ta.Skellam({d}, {_srepr(m)})" for d, m in fs]
    expr = parts[0] if k == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    code = f"ta.delta({expr}, {_srepr(eps)}, dps={dps})"

    def ref():
        with MP.workdps(40):
            v = R.skellam_delta([(d, sp.N(m, 50)) for d, m in fs], sp.N(eps, 50))
            return v - MP.mpf(10) ** -30, v + MP.mpf(10) ** -30
    return Case("skellam", code, ref, "prob", 10.0 ** -dps)


def gen_shuffle(rng):
    """ShuffleDP(eps0, n) delta against the mixture's atoms summed in mpmath (n <= 200)."""
    eps0 = rng.choice([sp.Rational(1, 2), sp.Integer(1), sp.log(3), sp.Integer(3), sp.sqrt(2)])
    n = rng.choice([2, 5, 20, 60, 160, 200])
    eps = sp.Rational(rng.randint(0, 100), 100) * eps0
    dps = rng.choice([10, 20])
    code = f"ta.delta(ta.ShuffleDP({_srepr(eps0)}, {n}), {_srepr(eps)}, dps={dps})"

    def ref():
        with MP.workdps(40):
            atoms = R.shuffle_atoms(sp.N(eps0, 50), n)
            v = R.np_delta(atoms, sp.N(eps, 50))
            return v - MP.mpf(10) ** -30, v + MP.mpf(10) ** -30
    return Case("shuffle", code, ref, "prob", 10.0 ** -dps)


def shuffled_rr_delta_lib():
    from tradeoff_algebra.analysis.shuffle_rr import shuffled_rr_delta

    return shuffled_rr_delta


def gen_shuffle_rr(rng):
    """analysis.shuffle_rr.shuffled_rr_delta against the binomial sum in mpmath."""
    n = rng.choice([2, 10, 100, 1000, 5000])
    q = rng.choice([Fraction(1, 20), Fraction(1, 4), Fraction(1, 3), Fraction(49, 100)])
    eps = Fraction(rng.randint(0, 300), 100)
    direction = rng.choice(["max", "QP", "PQ"])
    setup = "from tradeoff_algebra.analysis.shuffle_rr import shuffled_rr_delta"
    NS["shuffled_rr_delta"] = shuffled_rr_delta_lib()
    dirarg = {"max": "max", "QP": "Q||P", "PQ": "P||Q"}[direction]
    code = (f"shuffled_rr_delta({n}, {rat(q)}, {rat(eps)}, prec=128, "
            f"direction={dirarg!r})")

    def ref():
        with MP.workdps(40):
            qm = MP.mpf(q.numerator) / q.denominator
            e = MP.mpf(eps.numerator) / eps.denominator
            if direction == "max":
                v = max(R.shuffled_rr_delta_ref(n, qm, e, "QP"),
                        R.shuffled_rr_delta_ref(n, qm, e, "PQ"))
            else:
                v = R.shuffled_rr_delta_ref(n, qm, e, direction)
            return v - MP.mpf(10) ** -30, v + MP.mpf(10) ** -30
    return Case("shuffle-rr", code, ref, "arb", 1e-20, setup)


def gen_rdp(rng):
    """RDP.of (certified upper ends) of Laplace, randomized response and finite pairs against
    mpmath (closed form of the Laplace divergence; sums for the finite pairs): the bound must be
    >= the truth and within 10^-dps relative."""
    a = rng.choice([sp.Rational(1001, 1000), sp.Rational(3, 2), sp.Integer(2), sp.Rational(17, 3),
                    sp.Integer(64), sp.Integer(500), sp.Rational(100001, 100000)])
    dps = rng.choice([10, 20])
    kind = rng.choice(["laplace", "rr", "finite"])
    if kind == "laplace":
        mu = rng.choice([sp.Rational(1, 10), sp.Integer(1), sp.Integer(3)])
        expr = f"ta.Laplace({_srepr(mu)})"

        def truth():
            m, al = sp.N(mu, 60), sp.N(a, 60)
            m, al = MP.mpf(m), MP.mpf(al)
            return MP.log(al / (2 * al - 1) * MP.exp((al - 1) * m)
                          + (al - 1) / (2 * al - 1) * MP.exp(-al * m)) / (al - 1)
    else:
        if kind == "rr":
            e0 = rng.choice([sp.Integer(1), sp.log(3), sp.Rational(1, 2)])
            expr = f"ta.randomized_response({_srepr(e0)})"
            E = sp.exp(e0)
            P = [E / (1 + E), 1 / (1 + E)]
            Q = [1 / (1 + E), E / (1 + E)]
        else:
            Pf, Qf = _rand_pair(rng, 3, zeros=False)
            if any(x == 0 for x in Pf + Qf):
                return None
            expr = (f"ta.Discrete([{', '.join(rat(x) for x in Pf)}], "
                    f"[{', '.join(rat(x) for x in Qf)}])")
            P = [sp.Rational(x.numerator, x.denominator) for x in Pf]
            Q = [sp.Rational(x.numerator, x.denominator) for x in Qf]

        def truth():
            al = MP.mpf(sp.N(a, 60))
            best = None
            for X, Y in ((P, Q), (Q, P)):
                s = MP.fsum(MP.mpf(sp.N(x, 60)) ** al * MP.mpf(sp.N(y, 60)) ** (1 - al)
                            for x, y in zip(X, Y, strict=True))
                v = MP.log(s) / (al - 1)
                best = v if best is None else max(best, v)
            return best
    code = f"ta.RDP.of({expr}, [{_srepr(a)}], dps={dps}).curve[{_srepr(a)}]"

    def ref():
        with MP.workdps(50):
            v = truth()
            return v, v
    return Case("rdp-" + kind, code, ref, "rdp", 10.0 ** -dps)



# ---------------------------------------------------------------------------------------------
# the second audit: few subsampled Gaussian steps, Laplace tails, Max, Renyi orders, two
# lattices, Skellam powers (references in tests/references/audit2_refs.py)
# ---------------------------------------------------------------------------------------------

def _logu(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _rat_str(x: float, digits: int = 6) -> str:
    fr = Fraction(x).limit_denominator(10**digits)
    return rat(fr) if fr.denominator != 1 else f"sp.Integer({fr.numerator})"


def _frac(x: str) -> Fraction:
    return Fraction(x)


def _mpq(fr: Fraction):
    return MP.mpf(fr.numerator) / fr.denominator


def _wrap(code: str, tol: float) -> str:
    return f"_tol({tol!r}, lambda: {code})"


def _tol(tol, fn):
    with ta.pld_options(tol=tol):
        return fn()


NS["_tol"] = _tol


def _sgd_sym_roc_upper(mu, q, T, alpha, dps=20, iters=70):
    """min over eps of delta_sym(eps) + e^eps alpha (golden section in eps; the function is
    convex in e^eps): every evaluation is an upper bound of the truth roc(alpha). Two steps:
    the search on a coarse quadrature, the minimiser's value at full precision."""
    fast = T == 2
    with MP.workdps(dps + 10):
        al = MP.mpf(alpha)

        def h(e, fast=fast):
            return R2.sg_profile(mu, q, T, e, True, 12 if fast else dps, fast) + MP.exp(e) * al
        a, b = MP.mpf(-40), MP.mpf(40)
        g = (MP.sqrt(5) - 1) / 2
        c, d = b - g * (b - a), a + g * (b - a)
        hc, hd = h(c), h(d)
        for _ in range(iters):
            if hc > hd:
                a, c, hc = c, d, hd
                d = a + g * (b - a)
                hd = h(d)
            else:
                b, d, hd = d, c, hc
                c = b - g * (b - a)
                hc = h(c)
        best = c if hc <= hd else d
        return min(h(best, False), MP.one)


def gen_sgd(rng):
    """ta.noisy_sgd(sigma, p=q, steps=T), T = 1, 2 (the profile of few subsampled Gaussian steps):
    delta, eps, roc, f and curves against the mpmath profile of the add/remove hull."""
    sigma = Fraction(round(_logu(rng, 0.3, 50.0), 3)).limit_denominator(1000)
    sigma = sigma or Fraction(3, 10)
    q = Fraction(_logu(rng, 1e-5, 0.9)).limit_denominator(10**6) or Fraction(1, 10**5)
    T = rng.choice([1, 2])
    mu = 1 / sigma
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 15, 20])
    which = rng.choice(["delta", "delta", "delta-tiny", "epsilon", "roc", "value", "curve"])
    expr = f"ta.noisy_sgd({rat(sigma)}, p={rat(q)}, steps={T})"
    with MP.workdps(60):
        mum, qm = _mpq(mu), _mpq(q)
    if which.startswith("delta"):
        if which == "delta-tiny":
            eps = Fraction(rng.choice([5, 10, 20, 30, 40, 50])) + Fraction(rng.randint(0, 99), 100)
        else:
            eps = Fraction(round(_logu(rng, 1e-3, 20.0) if rng.random() < 0.9 else 0, 3)
                           ).limit_denominator(1000)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            with MP.workdps(45):
                v = R2.sg_profile(mum, qm, T, _mpq(eps), True, 30)
                return v * (1 - MP.mpf(10) ** -22) - MP.mpf(10) ** -300, \
                    v * (1 + MP.mpf(10) ** -22) + MP.mpf(10) ** -300
        return Case2("sgd-delta", code, ref, tol, dps)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([1, 2, 3, 5, 6, 8, 10, 20, 40, 60, 100]))
        code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

        def check_eps(lo, hi):
            """the truth eps* lies in [lo, hi] iff delta(lo) >= D >= delta(hi)."""
            with MP.workdps(45):
                Dm = _mpq(D)
                if lo > 0:
                    dl = R2.sg_profile(mum, qm, T, lo, True, 30)
                    if dl < Dm * (1 - MP.mpf(10) ** -20):
                        return f"delta_ref(lo={MP.nstr(lo, 20)}) = {MP.nstr(dl, 20)} < D"
                dh = R2.sg_profile(mum, qm, T, hi, True, 30)
                if dh > Dm * (1 + MP.mpf(10) ** -20):
                    return f"delta_ref(hi={MP.nstr(hi, 20)}) = {MP.nstr(dh, 20)} > D"
            return None
        return Case2("sgd-epsilon", code, None, tol, dps, custom=check_eps)
    if which in ("roc", "value"):
        alpha = rng.choice([Fraction(rng.randint(1, 999), 1000),
                            Fraction(1, 10 ** rng.randint(3, 30)),
                            1 - Fraction(1, 10 ** rng.randint(3, 15))])
        fn = "roc" if which == "roc" else "evaluate"
        code = _wrap(f"ta.{fn}({expr}, {rat(alpha)}, dps={dps})", tol)

        def check_roc(lo, hi):
            with MP.workdps(40):
                up = _sgd_sym_roc_upper(mum, qm, T, _mpq(alpha), 25 if T == 1 else 20,
                                        90 if T == 1 else 32)
                slack = MP.mpf(10) ** -(18 if T == 1 else 12)
                if fn == "roc":
                    if lo > up * (1 + slack) + slack * 1e-30:
                        return f"roc lo {MP.nstr(lo, 20)} > an upper bound {MP.nstr(up, 20)}"
                    if hi < up * (1 - MP.mpf(10) ** -8) - MP.mpf(10) ** -40:
                        return (f"roc hi {MP.nstr(hi, 20)} < the search's minimum "
                                f"{MP.nstr(up, 20)} (heuristic side)")
                else:
                    fv = 1 - up
                    if hi < fv * (1 - slack) - slack * 1e-30:
                        return f"f hi {MP.nstr(hi, 20)} < a lower bound {MP.nstr(fv, 20)}"
                    if lo > fv + abs(up) * MP.mpf(10) ** -8 + MP.mpf(10) ** -40:
                        return (f"f lo {MP.nstr(lo, 20)} > the search's value {MP.nstr(fv, 20)}"
                                " (heuristic side)")
            return None
        return Case2("sgd-" + which, code, None, tol, dps, custom=check_roc)
    # curve: bounds at a few alphas
    alphas = sorted({Fraction(rng.randint(1, 999), 1000) for _ in range(4 if T == 1 else 1)}
                    | {Fraction(1, 10**6)})
    alist = "[" + ", ".join(f"{float(a)!r}" for a in alphas) + "]"
    code = _wrap(f"ta.curve({expr}, {alist}, bounds=True)", tol)

    def check_curve(res):
        lo, hi = res[0], res[1]
        for k, a in enumerate(alphas):
            with MP.workdps(40):
                up = _sgd_sym_roc_upper(mum, qm, T, MP.mpf(float(a)), 20,
                                        80 if T == 1 else 32)
                fv = 1 - up  # a lower bound of f(alpha)
                if float(hi[k]) < float(fv) - 1e-13:
                    return f"curve hi {hi[k]!r} at alpha {float(a)} < a lower bound {fv}"
                if float(lo[k]) > float(fv) + 1e-7:
                    return f"curve lo {lo[k]!r} at alpha {float(a)} > the search's f {fv}"
        return None
    return Case2("sgd-curve", code, None, tol, dps, custom=check_curve, kind="curve")


def _laplace_params(rng, big=False):
    mu = rng.choice([Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2),
                     Fraction(1), Fraction(2), Fraction(5), Fraction(7, 3)])
    n = rng.choice(list(range(1, 13)) + [16, 20])
    return mu, n


def gen_laplace_tails(rng):
    """roc, f and delta of L_mu^n (n <= 20) at thresholds t of the loss (alpha = P(L > t) to 40
    digits, an exact Neyman--Pearson vertex when t is an atom) against the Irwin--Hall sums."""
    mu, n = _laplace_params(rng)
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 15])
    expr = f"ta.Laplace({rat(mu)})**{n}" if n > 1 else f"ta.Laplace({rat(mu)})"
    which = rng.choice(["roc", "roc-vertex", "value", "delta", "roc-edge"])
    L = R2.LaplacePower(mu, n, 40)
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, float(mu) * n * 1.05), 3)).limit_denominator(1000)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            v = L.delta(_mpq(eps))
            with MP.workdps(45):
                return v - abs(v) * MP.mpf(10) ** -25 - MP.mpf(10) ** -60, \
                    v + abs(v) * MP.mpf(10) ** -25 + MP.mpf(10) ** -60
        return Case2("laplace-tails-delta", code, ref, tol, dps)
    strict = True
    with MP.workdps(L.wd):
        if which == "roc-vertex":
            a = rng.randint(0, n)
            t = (2 * a - n) * _mpq(mu)
            strict = rng.random() < 0.5
        elif which == "roc-edge":
            side = rng.choice([-1, 1])
            t = side * (n * _mpq(mu) - _mpq(mu) * MP.mpf(rng.choice([1e-3, 0.1, 0.5])))
        else:
            t = MP.mpf(rng.uniform(-n * float(mu), n * float(mu)))
        al, pw = L.np_point(t, strict)
    if al <= 0 or al >= 1:
        return None
    return _np_case("laplace-tails-", which, expr, al, pw, t, tol, dps, 40, 30, 60)


def _np_case(name: str, which: str, expr: str, al, pw, t, tol: float, dps: int, digits: int,
             rel_digits: int, prec_digits: int):
    """roc (or, for ``which == "value"``, evaluate) at the Neyman-Pearson point (al, pw) of the
    threshold t, the level rounded to ``digits`` digits: the reference moves by at most
    |alpha - al| e^t (the slope of the curve there), plus the reference's own error."""
    alpha = Fraction(MP.nstr(al, digits, strip_zeros=False, min_fixed=-1000, max_fixed=1000))
    fn = "evaluate" if which == "value" else "roc"
    code = _wrap(f"ta.{fn}({expr}, {rat(alpha)}, dps={dps})", tol)

    def ref():
        with MP.workdps(prec_digits):
            err = abs(_mpq(alpha) - al) * MP.exp(t) + abs(pw) * MP.mpf(10) ** -rel_digits \
                + MP.mpf(10) ** -prec_digits
            v = pw if fn == "roc" else 1 - pw
            return v - err, v + err
    return Case2(name + which, code, ref, tol, dps)


def gen_gauss_laplace(rng):
    """G_nu (x) L_mu: roc at thresholds (alpha = P(L > t)) and delta against the quadrature of the
    Laplace law against the Gaussian tails."""
    nu = rng.choice([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4)])
    mu = rng.choice([Fraction(1, 20), Fraction(1, 4), Fraction(1), Fraction(3), Fraction(5)])
    tol = rng.choice([1e-3, 1e-6, 1e-9])
    dps = rng.choice([10, 15])
    expr = f"ta.Tensor(ta.G({rat(nu)}), ta.Laplace({rat(mu)}))"
    which = rng.choice(["roc", "value", "delta"])
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, float(mu) + float(nu) ** 2 * 2 + 3), 3)
                       ).limit_denominator(1000)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            with MP.workdps(40):
                v = R2.gauss_laplace_delta(_mpq(nu), _mpq(mu), _mpq(eps), 30)
                return v - abs(v) * MP.mpf(10) ** -20 - MP.mpf(10) ** -40, \
                    v + abs(v) * MP.mpf(10) ** -20 + MP.mpf(10) ** -40
        return Case2("gauss-laplace-delta", code, ref, tol, dps)
    with MP.workdps(45):
        t = MP.mpf(rng.uniform(-float(mu) - 3 * float(nu) ** 2 - 2, float(mu) + 3 *
                               float(nu) ** 2 + 2))
        al = R2.gauss_laplace_tail(_mpq(nu), _mpq(mu), "P", t)
        pw = R2.gauss_laplace_tail(_mpq(nu), _mpq(mu), "Q", t)
    if not (MP.mpf(10) ** -30 < al < 1 - MP.mpf(10) ** -12):
        return None
    return _np_case("gauss-laplace-", which, expr, al, pw, t, tol, dps, 35, 25, 45)


def gen_laplace_big(rng):
    """L_mu^n for n = 100, 1000: delta against dp_accounting's PLD bracket (widened)."""
    mu = rng.choice([Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)])
    n = rng.choice([100, 1000])
    tol = rng.choice([1e-3, 1e-6])
    mean = n * float(mu) ** 2 / 2
    sd = math.sqrt(n) * float(mu)
    eps = Fraction(round(max(0.0, mean + rng.uniform(0, 5) * sd), 3)).limit_denominator(1000)
    code = _wrap(f"ta.delta(ta.Laplace({rat(mu)})**{n}, {rat(eps)}, dps=10)", tol)
    h = 1e-4 if n == 100 else 3e-4

    def ref():
        pair = R.pld_bracket("laplace", {"b": 1.0, "s": float(mu)}, n, 0.0, h)
        lo, hi = R.pld_delta([(pair, n)], float(eps))
        return MP.mpf(lo) * (1 - 1e-6) - 1e-10, MP.mpf(hi) * (1 + 1e-6) + 1e-10
    return Case2("laplace-big", code, ref, tol, 10, wide_ok=True)


def _max_operand(rng):
    """(code, f(alpha) in mpmath, optional finite pair) of one argument of Max."""
    k = rng.choice(["G", "L", "ED", "fin", "GG", "ED2"])
    if k == "G":
        mu = rng.choice([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)])
        return f"ta.G({rat(mu)})", R2.f_gauss_c(_mpq(mu))
    if k == "GG":
        a, b = rng.choice([(1, 1), (1, 2), (Fraction(1, 2), Fraction(3, 2))])
        m = MP.sqrt(_mpq(Fraction(a)) ** 2 + _mpq(Fraction(b)) ** 2)
        return f"ta.Tensor(ta.G({rat(Fraction(a))}), ta.G({rat(Fraction(b))}))", R2.f_gauss_c(m)
    if k == "L":
        mu = rng.choice([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)])
        return f"ta.Laplace({rat(mu)})", R2.f_laplace(_mpq(mu))
    if k == "ED":
        e = rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
        d = rng.choice([Fraction(0), Fraction(1, 100), Fraction(1, 10**5)])
        return f"ta.EpsDelta({rat(e)}, {rat(d)})", R2.f_epsdelta(_mpq(e), _mpq(d))
    if k == "ED2":
        e = rng.choice([Fraction(1, 2), Fraction(1)])
        d = rng.choice([Fraction(0), Fraction(1, 100)])
        p = R2.epsdelta_pair(_mpq(e), _mpq(d))
        P, Q = R2.finite_product([p, p])
        return f"ta.EpsDelta({rat(e)}, {rat(d)})**2", R2.f_finite(P, Q)
    P, Q = _rand_pair(rng, 3, zeros=rng.random() < 0.5)
    code = (f"ta.Discrete([{', '.join(rat(x) for x in P)}], "
            f"[{', '.join(rat(x) for x in Q)}])")
    return code, R2.f_finite([_mpq(x) for x in P], [_mpq(x) for x in Q])


def gen_max(rng):
    """delta and eps of Max(f, g) against the concave search of 1 - e^eps alpha - max(f, g)."""
    with MP.workdps(40):
        (c1, f1), (c2, f2) = _max_operand(rng), _max_operand(rng)
    expr = f"ta.Max({c1}, {c2})"
    dps = rng.choice([10, 15, 20])
    tol = rng.choice([1e-3, 1e-6, 1e-9])
    if rng.random() < 0.6:
        eps = Fraction(rng.choice([0, 1, 5, 10, 25, 50, 100, 150, 250, 400]), 100)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            with MP.workdps(40):
                v = R2.max_delta([f1, f2], _mpq(eps))
                return v - MP.mpf(10) ** -28, v + MP.mpf(10) ** -28
        return Case2("max-delta", code, ref, tol, dps)
    D = Fraction(1, 10 ** rng.choice([1, 2, 3, 4, 6, 9]))
    code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

    def check_eps(lo, hi):
        with MP.workdps(40):
            Dm = _mpq(D)
            if lo > 0:
                dl = R2.max_delta([f1, f2], lo)
                if dl < Dm - MP.mpf(10) ** -25:
                    return f"delta_ref(lo={MP.nstr(lo, 20)}) = {MP.nstr(dl, 20)} < D"
            if MP.isfinite(hi):
                dh = R2.max_delta([f1, f2], hi)
                if dh > Dm + MP.mpf(10) ** -25:
                    return f"delta_ref(hi={MP.nstr(hi, 20)}) = {MP.nstr(dh, 20)} > D"
        return None
    return Case2("max-epsilon", code, None, tol, dps, custom=check_eps)


def gen_renyi_orders(rng):
    """renyi_orders (the Arb programs) of Laplace, G_mu and the discrete Gaussian at orders near
    1, fractional, large and many at once, against mpmath (Mironov; a mu^2/2; theta sums)."""
    fam = rng.choice(["L", "G", "DG"])
    orders = rng.sample([Fraction(1000001, 1000000), Fraction(1 + 10**6, 10**6),
                         Fraction(10**6 + 1, 10**6), Fraction(3, 2), Fraction(17, 3),
                         Fraction(2), Fraction(10), Fraction(257, 4), Fraction(10**4),
                         Fraction(12345, 7), Fraction(101, 100)], rng.randint(1, 6))
    orders = sorted(set(orders))
    if rng.random() < 0.2:
        orders = sorted(set(orders) | {Fraction(k) for k in range(2, 40)})
    dps = rng.choice([10, 20, 30])
    if fam == "L":
        mu = rng.choice([Fraction(1, 20), Fraction(1, 2), Fraction(1), Fraction(5), Fraction(7, 3)])
        expr = f"ta.Laplace({rat(mu)})"

        def truth(a):
            return R2.renyi_laplace(_mpq(mu), _mpq(a))
    elif fam == "G":
        mu = rng.choice([Fraction(1, 20), Fraction(1, 2), Fraction(3), Fraction(7, 3)])
        expr = f"ta.G({rat(mu)})"

        def truth(a):
            return _mpq(a) * _mpq(mu) ** 2 / 2
    else:
        d = rng.choice([1, 2, 3])
        s2 = rng.choice([Fraction(1, 2), Fraction(1), Fraction(4), Fraction(25, 3),
                         Fraction(100)])
        expr = f"ta.DiscreteGaussian({d}, sp.sqrt({rat(s2)}))"

        def truth(a):
            return R2.renyi_dgauss(d, _mpq(s2), _mpq(a))
    olist = "[" + ", ".join(f"fmpq({a.numerator}, {a.denominator})" for a in orders) + "]"
    code = f"ro.renyi_orders({expr}, {olist}, {dps})"

    def check(res):
        if res is None:
            return None
        for a, v in zip(orders, res, strict=True):
            if v is None:
                continue
            with MP.workdps(80):
                tv = truth(a)
                lo, hi, _, _ = _interval(v) if not isinstance(v, type(None)) else (None,) * 4
                if hi < tv * (1 - MP.mpf(10) ** -40) or lo > tv * (1 + MP.mpf(10) ** -40):
                    return (f"order {a}: [{MP.nstr(lo, 25)}, {MP.nstr(hi, 25)}] misses "
                            f"{MP.nstr(tv, 25)}")
        return None
    return Case2("renyi-orders-" + fam, code, None, None, dps, custom=check, kind="raw",
                 setup="from flint import fmpq\nfrom tradeoff_algebra.numeric import "
                       "renyi_orders as ro")


def gen_two_lattices(rng):
    """BinomialDP(eps0, n) (x) RR(log 3, 5)^m and BinomialDP alone: delta and eps against the
    laws' direct double sums in mpmath (n, m <= 1500)."""
    e0 = rng.choice([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3, 7)])
    n = rng.choice([1, 5, 40, 300, 1500])
    m = rng.choice([0, 0, 3, 50, 400, 1500])
    dps = rng.choice([10, 15])
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    parts = [f"ta.BinomialDP({rat(e0)}, {n})"]
    if m:
        parts.append(f"ta.randomized_response(sp.log(3), 5)**{m}")
    expr = parts[0] if len(parts) == 1 else "ta.Tensor(" + ", ".join(parts) + ")"
    with MP.workdps(40):
        l1 = R2.binomial_law(_mpq(e0), n)
        l2 = R2.rr_law(MP.log(3), 5, m) if m else [(MP.zero, MP.one)]
        cut = MP.mpf(10) ** -45
        l1 = [x for x in l1 if x[1] > cut]
        l2 = [x for x in l2 if x[1] > cut]
        mean = MP.fsum(l * w for l, w in l1) + MP.fsum(l * w for l, w in l2)
        var = MP.fsum(l * l * w for l, w in l1) + MP.fsum(l * l * w for l, w in l2) - \
            (MP.fsum(l * w for l, w in l1)) ** 2 - (MP.fsum(l * w for l, w in l2)) ** 2
    sd = float(MP.sqrt(max(var, MP.zero)))
    miss = MP.mpf(10) ** -43 * (len(l1) + len(l2))

    def dref(e):
        with MP.workdps(40):
            return R2.product_delta(l1, l2, e)
    if rng.random() < 0.6:
        eps = Fraction(round(max(0.0, float(mean) + rng.uniform(-1, 6) * sd), 3)
                       ).limit_denominator(1000)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            v = dref(_mpq(eps))
            return v * (1 - MP.mpf(10) ** -30) - miss, v * (1 + MP.mpf(10) ** -30) + miss
        return Case2("two-lattices-delta", code, ref, tol, dps)
    D = Fraction(1, 10 ** rng.choice([2, 3, 6, 9, 12]))
    code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

    def check_eps(lo, hi):
        Dm = _mpq(D)
        if lo > 0 and dref(lo) < Dm * (1 - MP.mpf(10) ** -25) - miss:
            return f"delta_ref(lo={MP.nstr(lo, 20)}) = {MP.nstr(dref(lo), 20)} < D"
        if MP.isfinite(hi) and dref(hi) > Dm * (1 + MP.mpf(10) ** -25) + miss:
            return f"delta_ref(hi={MP.nstr(hi, 20)}) = {MP.nstr(dref(hi), 20)} > D"
        return None
    return Case2("two-lattices-epsilon", code, None, tol, dps, custom=check_eps)


def gen_skellam_power(rng):
    """Skellam(d, mu)^k, k to 1000 (the grid product and the nested grid): delta against exact
    enumeration (k <= 2) or the rounded-losses FFT bracket (float64; widened)."""
    d = rng.choice([1, 1, 2])
    mu = rng.choice([Fraction(2), Fraction(5), Fraction(7, 2), Fraction(10), Fraction(31, 3)])
    k = rng.choice([1, 2, 5, 20, 48, 100, 300, 1000])
    tol = rng.choice([1e-3, 1e-6, 1e-9] if k <= 2 else [1e-3, 1e-5])
    dps = 10
    expr = f"ta.Skellam({d}, {rat(mu)})" + (f"**{k}" if k > 1 else "")
    # the loss's mean and sd per factor ~ d^2/(4 mu) and d/sqrt(2 mu)
    m1, s1 = d * d / (4 * float(mu)), d / math.sqrt(2 * float(mu))
    eps = Fraction(round(max(0.0, k * m1 + rng.uniform(-1, 5) * math.sqrt(k) * s1), 3)
                   ).limit_denominator(1000)
    code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

    def ref():
        if k <= 2:
            with MP.workdps(50):
                v, miss = R2.skellam_power_exact(d, _mpq(mu), k, _mpq(eps))
                return v - miss - MP.mpf(10) ** -35, v + miss + MP.mpf(10) ** -35
        with MP.workdps(30):
            atoms, miss = R2.skellam_atoms(d, _mpq(mu), cut=25)
        atoms_f = [(float(l), float(w)) for l, w in atoms if w > 1e-24]
        h = min(1e-4, 2e-3 / k)
        lo, hi = R2.rounded_bracket(atoms_f, k, float(eps), h)
        return MP.mpf(lo) - 1e-12, MP.mpf(hi) + 1e-12 + k * 1e-22
    return Case2("skellam-power", code, ref, tol, dps, wide_ok=True)


class Case2(Case):
    """A case of the second audit: ``code`` runs under ``pld_options(tol)``; ``ref()`` gives an
    interval of the truth, or ``custom(lo, hi)`` (resp. ``custom(result)`` for curves and raw
    answers) returns a message when the answer is wrong."""

    def __init__(self, family, code, ref, tol, dps, custom=None, kind="prob", setup="",
                 wide_ok=False, calls=1):
        super().__init__(family, code, ref, kind, tol or 1e-3, setup)
        self.dps, self.custom, self.tol_req, self.wide_ok = dps, custom, tol, wide_ok
        self.calls = calls  # public calls the code makes in a row (each has its own limit)


#: family -> the guarantees of the answers check2 compared (a summary of what was checked)
GUARANTEES: dict = {}


def check2(case: Case2, per_case: float) -> tuple[str, str] | None:
    """None when the case passes, else (kind, message): wrong enclosure, NaN, out of range,
    estimate labelled certified, certified wider than tol without a ToleranceWarning, the time
    limit overrun (elapsed > limit + 5 s), a crash or an error that is not a TradeOffError."""
    ns = dict(NS)
    if case.setup:
        exec(case.setup, ns)  # noqa: S102 (our own generated code)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        w0 = time.time()
        try:
            with MP.workdps(50):
                with ta.time_limit(per_case):
                    got = eval(case.code, ns)  # noqa: S307
        except ta.TimeLimitExceeded:
            el = time.time() - w0
            if el > per_case * case.calls + 5:
                return ("time", f"TimeLimitExceeded after {el:.1f} s (limit {per_case} s)")
            GUARANTEES[case.family] = GUARANTEES.get(case.family, []) + ["time limit"]
            return None
        except ta.TradeOffError as e:
            return ("refused", f"{type(e).__name__}: {e}"[:300])
        except Exception as e:  # noqa: BLE001
            return ("crash", "".join(traceback.format_exception_only(type(e), e))[:500])
        el = time.time() - w0
    if el > per_case * case.calls + 5:
        return ("time", f"answered after {el:.1f} s, over the limit {per_case} s"
                + (f" ({case.calls} calls, each with its own limit)" if case.calls > 1 else ""))
    tolw = any(issubclass(w.category, ta.ToleranceWarning) for w in ws)
    if case.kind in ("raw", "curve"):
        GUARANTEES[case.family] = GUARANTEES.get(case.family, []) + [case.kind]
    if case.kind == "raw":
        return (("wrong", m) if (m := case.custom(got)) else None)
    if case.kind == "curve":
        import numpy as np

        lo, hi = np.asarray(got[0]), np.asarray(got[1])
        if np.isnan(lo).any() or np.isnan(hi).any():
            return ("nan", f"{got!r}")
        return (("wrong", m) if (m := case.custom(got)) else None)
    with MP.workdps(50):
        lo, hi, guar, route = _interval(got)
        if MP.isnan(lo) or MP.isnan(hi):
            return ("nan", f"{got!r}")
        if "delta" in case.family or "roc" in case.family or "value" in case.family \
                or "tails" in case.family or "skellam" in case.family:
            if lo < -MP.mpf(10) ** -30 or hi > 1 + MP.mpf(10) ** -30:
                return ("range", f"[{lo}, {hi}] outside [0, 1]")
        if (guar == "estimate" and "certified" in route.lower()
                and "estimate" not in route.lower()):
            return ("label", f"estimate labelled {route!r}")
        GUARANTEES[case.family] = GUARANTEES.get(case.family, []) + [guar]
        if guar not in ("certified", "exact"):
            return None
        if case.custom is not None:
            m = case.custom(lo, hi)
            if m:
                return ("wrong", f"{guar} [{MP.nstr(lo, 20)}, {MP.nstr(hi, 20)}] (route "
                        f"{route!r}): {m}")
        else:
            rlo, rhi = case.ref()
            rlo, rhi = MP.mpf(rlo), MP.mpf(rhi)
            if hi < rlo or lo > rhi:
                return ("wrong", f"{guar} [{MP.nstr(lo, 25)}, {MP.nstr(hi, 25)}] (route "
                        f"{route!r}) misses the reference [{MP.nstr(rlo, 25)}, "
                        f"{MP.nstr(rhi, 25)}]")
        if isinstance(got, ta.Value) and got.is_point:
            return None
        width = MP.mpf(got.hi) - MP.mpf(got.lo) if isinstance(got, ta.Value) else hi - lo
        scale = max(abs(lo), abs(hi))
        if (case.tol_req and not tolw and width > 2 * case.tol_req * scale
                and width > 10.0 ** (1 - case.dps) * scale and width > MP.mpf(10) ** -300):
            return ("wide", f"relative width {MP.nstr(width / scale, 3)} > tol "
                    f"{case.tol_req} with no ToleranceWarning (route {route!r})")
    return None




# ---------------------------------------------------------------------------------------------
# third audit: DP-SGD at T = 10 .. 1000, Laplace products of different scales, lattice and
# finite products' roc, Max / Mix(Max) of heterogeneous pairs, the RDP quick path
# (references: tests/references/audit3_refs.py and the shared family references)
# ---------------------------------------------------------------------------------------------

def _widen(lo, hi, rel=A3.FLOAT_SLACK, absolute=1e-300):
    with MP.workdps(40):
        return MP.mpf(lo) * (1 - rel) - absolute, MP.mpf(hi) * (1 + rel) + absolute


def _eps_case(tag: str, expr: str, D: Fraction, delta_br, tol: float, dps: int) -> Case2:
    """eps(D) checked by a bracket ``delta_br(eps) -> (lo, hi)`` of delta: delta(lo) >= D and
    delta(hi) <= D must be possible (delta is non-increasing), each up to the float slack."""
    code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

    def check_eps(lo, hi):
        Dm = _mpq(D)
        if lo > 0 and MP.isfinite(lo):
            _, u = delta_br(float(lo))
            if u * (1 + A3.FLOAT_SLACK) < Dm:
                return f"delta(lo={MP.nstr(lo, 17)}) <= {MP.nstr(u, 12)} < D"
        if MP.isfinite(hi):
            lw, _ = delta_br(float(hi))
            if lw * (1 - A3.FLOAT_SLACK) > Dm:
                return f"delta(hi={MP.nstr(hi, 17)}) >= {MP.nstr(lw, 12)} > D"
        return None
    return Case2(f"{tag}-epsilon", code, None, tol, dps, custom=check_eps)


def _power_case(tag: str, expr: str, which: str, draw_alpha, roc_br, tol: float, dps: int,
                rng) -> Case2:
    """roc or f at a level ``draw_alpha()`` ("roc", "value"), else a curve at three levels,
    checked by a bracket ``roc_br(alpha) -> (lo, hi)`` of the power."""
    if which in ("roc", "value"):
        alpha = draw_alpha()
        fn = "roc" if which == "roc" else "evaluate"
        code = _wrap(f"ta.{fn}({expr}, {rat(alpha)}, dps={dps})", tol)

        def ref():
            lo, hi = roc_br(float(alpha))
            if fn == "evaluate":
                lo, hi = 1 - hi, 1 - lo
            return _widen(lo, hi, 1e-9, 1e-13)
        return Case2(f"{tag}-{which}", code, ref, tol, dps)
    alphas = sorted({Fraction(rng.randint(1, 999), 1000) for _ in range(3)})
    alist = "[" + ", ".join(f"{float(a)!r}" for a in alphas) + "]"
    code = _wrap(f"ta.curve({expr}, {alist}, bounds=True)", tol)

    def check_curve(res):
        lo, hi = res[0], res[1]
        for k, a in enumerate(alphas):
            rl, rh = roc_br(float(a))
            fl, fh = 1 - float(rh), 1 - float(rl)
            if float(hi[k]) < fl - 1e-12 or float(lo[k]) > fh + 1e-12:
                return f"curve [{lo[k]!r}, {hi[k]!r}] at alpha {float(a)} misses [{fl}, {fh}]"
        return None
    return Case2(f"{tag}-curve", code, None, tol, dps, custom=check_curve, kind="curve")


def _sgd_params(rng):
    sigma = Fraction(round(_logu(rng, 0.6, 8.0), 3)).limit_denominator(1000)
    T = int(round(_logu(rng, 10, 1000)))
    if rng.random() < 0.4:  # the training-configuration form: q = batch / dataset
        B = rng.choice([16, 64, 100, 256, 500, 1024])
        N = max(B * 4, int(round(B / _logu(rng, 1e-4, 0.25))))
        q = Fraction(B, N)
        expr = f"ta.noisy_sgd({rat(sigma)}, dataset_size={N}, batch_size={B}, steps={T})"
    else:
        q = Fraction(_logu(rng, 1e-4, 0.3)).limit_denominator(10**6) or Fraction(1, 10**4)
        expr = f"ta.noisy_sgd({rat(sigma)}, {rat(q)}, {T})"
    return sigma, q, T, expr


def gen_sgd_many(rng):
    """noisy_sgd(sigma, q, T), T = 10 .. 1000 (the certified Laplace inversion, contours below
    the saddle point): delta (down to ~1e-30), eps, roc, f, curve against the tilted rounded-grid
    bracket of the add/remove hull (audit3_refs; the roc from untilted laws)."""
    sigma, q, T, expr = _sgd_params(rng)
    mu, qf = 1 / float(sigma), float(q)
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 15])
    which = rng.choice(["delta", "delta", "delta-tiny", "epsilon", "roc", "value", "curve"])
    # the CLT's scale of the T-fold loss: mu_eff = q sqrt(T (e^{mu^2} - 1))
    me = qf * math.sqrt(T * math.expm1(min(mu * mu, 50)))
    if which.startswith("delta"):
        k = rng.uniform(0.3, 4) if which == "delta" else rng.uniform(5, 11)
        e = min(30.0, me * k + me * me / 2 + (0 if rng.random() < 0.7 else rng.uniform(0, 2)))
        eps = Fraction(round(e, 4)).limit_denominator(10**4)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            lo, hi = A3.sgd_sym_bracket(mu, qf, T, float(eps), max_points=2**19, rel=3e-3)
            return _widen(lo, hi)
        return Case2("sgd3-" + which, code, ref, tol, dps)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([2, 3, 5, 8, 12, 20, 30]))
        return _eps_case("sgd3", expr, D, lambda e: A3.sgd_sym_bracket(
            mu, qf, T, e, max_points=2**19, rel=3e-3), tol, dps)
    return _power_case("sgd3", expr, which, lambda: rng.choice([
        Fraction(rng.randint(1, 999), 1000), Fraction(1, 10 ** rng.randint(2, 7)),
        1 - Fraction(1, 10 ** rng.randint(2, 6))]), lambda a: A3.sgd_roc_bracket(
            mu, qf, T, a, max_points=2**19, rel=3e-3), tol, dps, rng)


def gen_mix_one(rng):
    """AddRemove(Mix(G_mu, q)): the one-step closed form, delta and eps, against the mpmath
    half-line profile of both directions (audit2_refs.sg_one_hp)."""
    mu = Fraction(round(_logu(rng, 0.05, 6.0), 3)).limit_denominator(1000) or Fraction(1, 20)
    q = Fraction(_logu(rng, 1e-6, 0.999)).limit_denominator(10**6) or Fraction(1, 10**6)
    expr = f"ta.AddRemove(ta.Mix(ta.G({rat(mu)}), {rat(q)}))"
    tol = rng.choice([1e-6, 1e-12])
    dps = rng.choice([15, 25])
    with MP.workdps(60):
        mum, qm = _mpq(mu), _mpq(q)
    if rng.random() < 0.7:
        eps = Fraction(round(_logu(rng, 1e-4, 40.0), 4)).limit_denominator(10**4)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            with MP.workdps(50):
                v = R2.sg_profile(mum, qm, 1, _mpq(eps), True, 40)
                return v * (1 - MP.mpf(10) ** -30) - MP.mpf(10) ** -320, \
                    v * (1 + MP.mpf(10) ** -30) + MP.mpf(10) ** -320
        return Case2("mix1-delta", code, ref, tol, dps)
    D = Fraction(1, 10 ** rng.choice([1, 3, 6, 10, 20, 50]))
    code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

    def check_eps(lo, hi):
        with MP.workdps(50):
            Dm = _mpq(D)
            if lo > 0:
                dl = R2.sg_profile(mum, qm, 1, lo, True, 40)
                if dl < Dm * (1 - MP.mpf(10) ** -25):
                    return f"delta_ref(lo={MP.nstr(lo, 20)}) = {MP.nstr(dl, 20)} < D"
            if MP.isfinite(hi):
                dh = R2.sg_profile(mum, qm, 1, hi, True, 40)
                if dh > Dm * (1 + MP.mpf(10) ** -25):
                    return f"delta_ref(hi={MP.nstr(hi, 20)}) = {MP.nstr(dh, 20)} > D"
        return None
    return Case2("mix1-epsilon", code, None, tol, dps, custom=check_eps)


_LAPLACE_SCALES = [Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 3),
                   Fraction(1, 2), Fraction(2, 3), Fraction(1), Fraction(3, 2), Fraction(2),
                   Fraction(3)]


def gen_laplace_mixed(rng):
    """Laplace(mu_1) (x) ... (x) Laplace(mu_r), r = 2 .. 5 factors of different scales (the
    mixed tails and split routes): delta, eps, roc, f, curve against the tilted rounded-grid
    bracket of the product (audit3_refs.laplace_product_bracket, hull_roc_bracket)."""
    r = rng.randint(2, 5)
    mus = sorted(rng.choice(_LAPLACE_SCALES) for _ in range(r))
    if len(set(mus)) == 1:
        mus[-1] = rng.choice([m for m in _LAPLACE_SCALES if m != mus[0]])
        mus.sort()
    counts: dict = {}
    for m in mus:
        counts[m] = counts.get(m, 0) + 1
    parts = [f"ta.Laplace({rat(m)})" + (f"**{k}" if k > 1 else "") for m, k in counts.items()]
    expr = "ta.Tensor(" + ", ".join(parts) + ")"
    mf = [float(m) for m in mus]
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 15])
    which = rng.choice(["delta", "delta", "epsilon", "roc", "value", "curve"])
    span = sum(mf)
    h = max(1e-5, 2 * span / 2**21)  # (the composed law on at most 2^21 points)
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, span * 1.02), 4)).limit_denominator(10**4)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            return _widen(*A3.laplace_product_bracket(mf, float(eps), h))
        return Case2("lapmix-delta", code, ref, tol, dps)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([1, 2, 3, 5, 8, 12]))
        return _eps_case("lapmix", expr, D, lambda e: A3.laplace_product_bracket(mf, e, h),
                         tol, dps)

    def roc_br(a):
        lows, ups = zip(*(A3.laplace_laws(m, h, 0.0) for m in mf), strict=True)
        lo, up = lows[0], ups[0]
        for x in lows[1:]:
            lo = lo.compose(x)
        for x in ups[1:]:
            up = up.compose(x)
        return A3.hull_roc_bracket([lo], [up], a)
    return _power_case("lapmix", expr, which, lambda: rng.choice([
        Fraction(rng.randint(1, 999), 1000), Fraction(1, 10 ** rng.randint(2, 8)),
        1 - Fraction(1, 10 ** rng.randint(2, 8))]), roc_br, tol, dps, rng)


def gen_laplace_vertex(rng):
    """Laplace(mu)^n roc and f at alpha exactly at (a 60-digit rational next to) a
    Neyman--Pearson vertex P(L >= t), t = (2a - n) mu an atom of the loss, and at the strict
    side P(L > t), against the Irwin--Hall sums (audit2_refs.LaplacePower)."""
    mu = rng.choice(_LAPLACE_SCALES)
    n = rng.choice([1, 2, 3, 5, 8, 12, 20])
    lp = R2.LaplacePower(mu, n, 60)
    a = rng.randint(0, n)
    t = (2 * a - n) * _mpq(mu)
    strict = rng.random() < 0.5
    with MP.workdps(lp.wd):
        al, pw = lp.np_point(t, strict)
    if not (MP.mpf(10) ** -40 < al < 1 - MP.mpf(10) ** -40):
        return None
    tol = rng.choice([1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 20])
    which = rng.choice(["roc", "value"])
    return _np_case("lapvertex-", which, f"ta.Laplace({rat(mu)})**{n}", al, pw, t, tol, dps,
                    60, 40, 60)


def _binary_law(r: Fraction, n: int, exact: bool):
    """Groups (P, Q) of EpsDelta(log r, 0)^n by decreasing likelihood ratio: k ones carry loss
    (2k - n) log r, Q-mass C(n, k) p^k (1-p)^{n-k}, P-mass C(n, k) p^{n-k} (1-p)^k,
    p = r/(1+r); exact Fractions or mpfs at the working precision."""
    p = r / (1 + r) if exact else _mpq(r) / (1 + _mpq(r))
    one = Fraction(1) if exact else MP.mpf(1)
    out = []
    c = one
    for k in range(n, -1, -1):  # decreasing loss
        out.append((c * p ** (n - k) * (one - p) ** k, c * p ** k * (one - p) ** (n - k)))
        c = c * k / (n - k + 1)
    return out


def gen_lattice_roc(rng):
    """roc and f of lattice and finite products at alpha near 0, near 1, exactly at a vertex and
    at random, huge powers included: randomized response EpsDelta(log r, 0)^n (n to 10^5, the
    binomial law in mpmath or exact), EpsDelta(log r, d)^n, DiscreteLaplace(1, s)^n,
    BinomialDP(e0, m)^n, DiscreteGaussian(1, s)^n (np_lattice's Arb law), two-factor mixes;
    exact Neyman--Pearson from the atoms."""
    kind = rng.choice(["rr", "rr", "ed", "dl", "bin", "dg", "mix"])
    dps = rng.choice([10, 20, 30])
    tol = rng.choice([1e-6, 1e-12])
    groups, exact, atoms = None, True, None
    if kind == "rr":
        r = rng.choice([Fraction(2), Fraction(3), Fraction(3, 2), Fraction(5)])
        n = rng.choice([1, 3, 10, 50, 400, 2000, 10**4, 10**5])
        expr = f"ta.EpsDelta(sp.log({rat(r)}), 0)**{n}"
        exact = n <= 2000
        with MP.workdps(80):
            groups = _binary_law(r, n, exact)
    elif kind == "ed":
        r = rng.choice([Fraction(2), Fraction(3), Fraction(3, 2)])
        d0 = rng.choice([Fraction(1, 100), Fraction(1, 10**6), Fraction(1, 3)])
        n = rng.choice([1, 2, 5, 12, 25])
        expr = f"ta.EpsDelta(sp.log({rat(r)}), {rat(d0)})**{n}"
        E = r
        P = [d0, (1 - d0) * E / (1 + E), (1 - d0) / (1 + E), Fraction(0)]
        Q = [Fraction(0), (1 - d0) / (1 + E), (1 - d0) * E / (1 + E), d0]
        atoms = R.finite_power(P, Q, n)
    elif kind == "dl":
        s = rng.choice([Fraction(1), Fraction(2), Fraction(1, 2), Fraction(5, 2)])
        n = rng.choice([1, 4, 30, 300])
        expr = f"ta.DiscreteLaplace(1, {rat(s)})**{n}"
        # the loss takes the two values +-1/s (x >= 1 or x <= 0): binary with r = e^{1/s}
        exact = False
        with MP.workdps(80):
            p = MP.exp(1 / _mpq(s)) / (1 + MP.exp(1 / _mpq(s)))
            c = MP.mpf(1)
            groups = []
            for k in range(n, -1, -1):
                groups.append((c * p ** (n - k) * (1 - p) ** k, c * p ** k * (1 - p) ** (n - k)))
                c = c * k / (n - k + 1)
    elif kind == "bin":
        e0 = rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
        m = rng.choice([2, 3, 5])
        n = rng.choice([1, 2, 4])
        expr = f"ta.BinomialDP({rat(e0)}, {m})**{n}" if n > 1 else f"ta.BinomialDP({rat(e0)}, {m})"
        from references import reference as _ref
        exact = False
        with MP.workdps(80):  # (the reference's masses formed at this precision)
            P, Q = _ref(eval(f"ta.BinomialDP({rat(e0)}, {m})", NS)).pair()  # noqa: S307
            atoms = R.finite_power([MP.mpf(x) for x in P], [MP.mpf(x) for x in Q], n)
    elif kind == "dg":
        s = rng.choice([1, 2, 3])
        n = rng.choice([1, 2, 4])
        expr = f"ta.DiscreteGaussian(1, {s})**{n}"
        exact = False
        with MP.workdps(80):
            groups = A3.dg_shift_groups(s, n, 75)  # (the n-fold law summed directly)
    else:
        r = rng.choice([Fraction(2), Fraction(3)])
        n1, n2 = rng.choice([1, 3, 10]), rng.choice([1, 2, 4])
        d0 = rng.choice([Fraction(0), Fraction(1, 100)])
        expr = (f"ta.Tensor(ta.EpsDelta(sp.log({rat(r)}), 0)**{n1}, "
                f"ta.EpsDelta(sp.log(2), {rat(d0)})**{n2})")
        P1 = [Fraction(1) / (1 + r), r / (1 + r)]
        Q1 = [r / (1 + r), Fraction(1) / (1 + r)]
        P2 = [d0, (1 - d0) * 2 / 3, (1 - d0) / 3, Fraction(0)]
        Q2 = [Fraction(0), (1 - d0) / 3, (1 - d0) * 2 / 3, d0]
        a1, a2 = R.finite_power(P1, Q1, n1), R.finite_power(P2, Q2, n2)
        atoms = [(p1 * p2, q1 * q2) for p1, q1 in a1 for p2, q2 in a2]
    if groups is None:
        with MP.workdps(80):
            groups = R.np_groups(atoms)
    with MP.workdps(80):
        verts = [v for v in R.np_vertices(groups)
                 if (v > 0 and v < 1)]
    where = rng.choice(["vertex", "vertex", "random", "near0", "near1"])
    if where == "vertex" and verts:
        v = verts[rng.randrange(len(verts))]
        a = v if isinstance(v, Fraction) else Fraction(MP.nstr(v, 60, min_fixed=-10**6,
                                                             max_fixed=10**6))
    elif where == "near0":
        a = Fraction(1, 10 ** rng.choice([12, 30, 100, 300]))
    elif where == "near1":
        a = 1 - Fraction(1, 10 ** rng.choice([9, 15, 30, 60]))
    else:
        a = Fraction(rng.randint(1, 10**6 - 1), 10**6)
    fn = rng.choice(["roc", "evaluate"])
    code = _wrap(f"ta.{fn}({expr}, {rat(a)}, dps={dps})", tol)

    def ref():
        with MP.workdps(80):
            if exact and all(isinstance(x, Fraction) for g in groups for x in g):
                v = R.np_value(groups, a)
                v = 1 - v if fn == "roc" else v
                vm = MP.mpf(v.numerator) / v.denominator
                return vm, vm
            v = R.np_value(groups, _mpq(a))
            v = 1 - v if fn == "roc" else v
            err = MP.mpf(10) ** -50 if kind != "dg" else MP.mpf(10) ** -40
            return v - err, v + err
    return Case2(f"lattice-{kind}-{where}", code, ref, tol, dps)


def _max_leaf(rng):
    """(code, family reference) of one heterogeneous argument of Max."""
    from references import reference as _ref
    k = rng.choice(["G", "L", "ED", "fin", "DG", "PR", "PR", "GG"])
    if k == "G":
        m = rng.choice([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2)])
        code = f"ta.G({rat(m)})"
    elif k == "GG":
        from references.gauss import GaussRef

        base, n, mu2 = rng.choice([("ta.G(1)", 2, Fraction(2)),
                                   ("ta.G(sp.Rational(1, 2))", 3, Fraction(3, 4))])
        return f"{base}**{n}", GaussRef(mu2)  # G_mu^n = G_{sqrt(n) mu}
    elif k == "L":
        code = f"ta.Laplace({rat(rng.choice([Fraction(1, 4), Fraction(1), Fraction(2)]))})"
    elif k == "ED":
        code = (f"ta.EpsDelta({rat(rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)]))}, "
                f"{rat(rng.choice([Fraction(0), Fraction(1, 100), Fraction(1, 10**5)]))})")
    elif k == "DG":
        code = f"ta.DiscreteGaussian(1, {rng.choice([1, 2, 3])})"
    elif k == "PR":
        mu = rng.choice([Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)])
        q = rng.choice([Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)])
        code = f"ta.PoissonReplace({rat(mu)}, {rat(q)})"
    else:
        P, Q = _rand_pair(rng, 3, zeros=rng.random() < 0.5)
        code = (f"ta.Discrete([{', '.join(rat(x) for x in P)}], "
                f"[{', '.join(rat(x) for x in Q)}])")
    return code, _ref(eval(code, NS))  # noqa: S307


def gen_max3(rng):
    """Max(f, g[, h]) and Mix(Max(f, g), p) of heterogeneous pairs (G, G^k, Laplace, EpsDelta,
    finite pairs, DiscreteGaussian, PoissonReplace): delta (claims of delta = 0 included), eps
    and f against the family references combined by references.operators (ref_max, ref_mix)
    and the brute-force profile (references.functionals)."""
    from references import functionals as FN
    from references.operators import ref_max, ref_mix

    k = rng.choice([2, 2, 3])
    with MP.workdps(40):  # (the family references form their weights at this precision)
        leaves = [_max_leaf(rng) for _ in range(k)]
    expr = "ta.Max(" + ", ".join(c for c, _ in leaves) + ")"
    ref = ref_max([r for _, r in leaves])
    if rng.random() < 0.35:
        p = rng.choice([Fraction(1, 100), Fraction(1, 3), Fraction(9, 10)])
        expr = f"ta.Mix({expr}, {rat(p)})"
        ref = ref_mix(ref, p)
    dps = rng.choice([10, 15])
    tol = rng.choice([1e-3, 1e-6, 1e-9])
    which = rng.choice(["delta", "delta", "epsilon", "value"])
    if which == "delta":
        eps = Fraction(rng.choice([0, 1, 10, 50, 100, 200, 300, 500, 800, 1500]), 100)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def check_delta(lo, hi):
            with MP.workdps(40):
                try:
                    v = FN.delta(ref, _mpq(eps))  # a value of the sup: a lower bound
                except AssertionError as e:  # (a family reference's threshold solver)
                    print(f"  [reference skipped: {e!r}]")
                    return None
                if hi < v * (1 - MP.mpf(10) ** -12) - MP.mpf(10) ** -25:
                    return f"certified hi {MP.nstr(hi, 20)} < a lower bound {MP.nstr(v, 20)}"
                if lo > v * (1 + MP.mpf(10) ** -6) + MP.mpf(10) ** -15:
                    return (f"certified lo {MP.nstr(lo, 20)} > the search's sup "
                            f"{MP.nstr(v, 20)} (heuristic side)")
            return None
        return Case2("max3-delta", code, None, tol, dps, custom=check_delta)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([1, 2, 3, 5, 8]))
        code = _wrap(f"ta.epsilon({expr}, {rat(D)}, dps={dps})", tol)

        def check_eps(lo, hi):
            with MP.workdps(40):
                Dm = _mpq(D)
                if MP.isfinite(hi):
                    dh = FN.delta(ref, hi)
                    if dh > Dm * (1 + MP.mpf(10) ** -12) + MP.mpf(10) ** -25:
                        return f"delta_ref(hi={MP.nstr(hi, 20)}) >= {MP.nstr(dh, 20)} > D"
                if lo > 0 and MP.isfinite(lo):
                    dl = FN.delta(ref, lo)
                    if dl < Dm * (1 - MP.mpf(10) ** -6) - MP.mpf(10) ** -15:
                        return (f"delta_ref(lo={MP.nstr(lo, 20)}) = {MP.nstr(dl, 20)} < D "
                                "(heuristic side)")
            return None
        return Case2("max3-epsilon", code, None, tol, dps, custom=check_eps)
    a = rng.choice([Fraction(rng.randint(1, 999), 1000), Fraction(1, 10**8),
                    1 - Fraction(1, 10**8)])
    code = _wrap(f"ta.evaluate({expr}, {rat(a)}, dps={dps})", tol)

    def ref_v():
        with MP.workdps(40):
            lo = ref.val(_mpq(a), 1 - _mpq(a), 0)
            hi = ref.val(_mpq(a), 1 - _mpq(a), 1)
            return MP.mpf(lo) - MP.mpf(10) ** -25, MP.mpf(hi) + MP.mpf(10) ** -25
    return Case2("max3-value", code, ref_v, tol, dps)


def gen_rdp_quick(rng):
    """RDP.of at Python int orders (the quick path, notions/renyi_curve.quick_batch): Laplace,
    G_mu, the discrete Gaussian, AddRemove of them, up to CHUNK orders, dps to 50, against
    Mironov's closed form, a mu^2/2 and the theta sums: every value an upper bound within
    10^-dps relative."""
    fam = rng.choice(["L", "G", "DG", "AL"])
    dps = rng.choice([1, 5, 20, 50])
    kind = rng.choice(["few", "many", "huge"])
    if kind == "few":
        orders = sorted(set(rng.randint(2, 200) for _ in range(rng.randint(1, 8))))
    elif kind == "many":
        orders = list(range(2, rng.choice([100, 1000, 4097])))
    else:
        orders = sorted({2, 10**rng.randint(3, 7), 2**rng.randint(20, 40) + 1})
    if fam == "DG":
        orders = [a for a in orders if a <= 3000]
    if fam in ("L", "AL"):
        mu = rng.choice([Fraction(1, 50), Fraction(1, 2), Fraction(1), Fraction(7, 3),
                         Fraction(20)])
        expr = f"ta.Laplace({rat(mu)})"
        if fam == "AL":
            expr = f"ta.AddRemove({expr})"

        def truth(a):
            return R2.renyi_laplace(_mpq(mu), a)
    elif fam == "G":
        mu = rng.choice([Fraction(1, 50), Fraction(1, 2), Fraction(3), Fraction(7, 3)])
        expr = f"ta.G({rat(mu)})"

        def truth(a):
            return MP.mpf(a) * _mpq(mu) ** 2 / 2
    else:
        s = rng.choice([1, 2, 5])
        expr = f"ta.DiscreteGaussian(1, {s})"

        def truth(a):
            return R2.renyi_dgauss(1, MP.mpf(s * s), a)
    sample = orders if len(orders) <= 12 else sorted(set(rng.sample(orders, 12))
                                                     | {orders[0], orders[-1]})
    olist = str(orders) if len(orders) < 20 else f"list(range(2, {orders[-1] + 1}))"
    code = f"ta.RDP.of({expr}, {olist}, {dps})"

    def check(res):
        curve = res.curve
        if len(curve) != len(orders):
            return f"{len(curve)} orders answered of {len(orders)}"
        for a in sample:
            v = curve[sp.Integer(a)]
            with MP.workdps(max(60, dps + 20)):
                tv = truth(a)
                vm = MP.mpf(v.p) / v.q
                if vm < tv * (1 - MP.mpf(10) ** -(dps + 15)):
                    return f"order {a}: {MP.nstr(vm, 25)} below the truth {MP.nstr(tv, 25)}"
                if vm > tv * (1 + 10 * MP.mpf(10) ** -dps) + MP.mpf(10) ** -(dps + 15):
                    return (f"order {a}: {MP.nstr(vm, 25)} above the truth {MP.nstr(tv, 25)} by "
                            f"more than 10^-{dps} relative")
        return None
    return Case2("rdp-quick-" + fam, code, None, None, dps, custom=check, kind="raw")


# ---------------------------------------------------------------------------------------------
# fourth audit: DP-SGD with 3 .. 30 steps (the flat Chebyshev view), many Laplace factors on one
# grid of scales, RDP of sampling without replacement (a bound), zCDP / tCDP's affine curves,
# the tolerance contract (nested enclosures) and mpmath's global precision
# (references: tests/references/audit4_refs.py and audit3_refs.py)
# ---------------------------------------------------------------------------------------------

def _sgd_few_params(rng):
    """sigma in 0.5 .. 8 (a fifth at 0.5 .. 0.6: steep densities), q in 1e-4 .. 0.5 (a sixth
    near 1), T in 3 .. 30."""
    if rng.random() < 0.2:
        sigma = Fraction(rng.choice([50, 52, 55, 60]), 100)
    else:
        sigma = Fraction(round(_logu(rng, 0.5, 8.0), 3)).limit_denominator(1000)
    if rng.random() < 1 / 6:
        q = rng.choice([Fraction(7, 10), Fraction(9, 10), Fraction(95, 100), Fraction(99, 100),
                        Fraction(999, 1000)])
    else:
        q = Fraction(_logu(rng, 1e-4, 0.5)).limit_denominator(10**6) or Fraction(1, 10**4)
    T = rng.randint(3, 30)
    return sigma, q, T, f"ta.noisy_sgd({rat(sigma)}, {rat(q)}, {T})"


def gen_sgd_few(rng):
    """noisy_sgd(sigma, q, T), T = 3 .. 30 (the certified inversion with the flat view of
    families/gaussian_sampled_poly.py where it is faster): delta at eps = 0, moderate, large
    (delta to ~1e-30 and below) and huge, eps(D) with D to 1e-30, roc, f, curve, against the
    rounded-grid bracket of the add/remove hull (audit4_refs.sgd_few_sym_bracket)."""
    sigma, q, T, expr = _sgd_few_params(rng)
    mu, qf = 1 / float(sigma), float(q)
    tol = rng.choice([1e-3, 1e-6, 1e-9, 1e-12])
    dps = rng.choice([10, 15])
    which = rng.choice(["delta", "delta", "delta0", "delta-tiny", "delta-huge", "epsilon",
                        "epsilon", "roc", "value", "curve"])
    me = qf * math.sqrt(T * math.expm1(min(mu * mu, 50)))
    if which.startswith("delta"):
        if which == "delta0":
            e = 0.0
        elif which == "delta-huge":
            e = rng.choice([40.0, 100.0, 1000.0])
        else:
            k = rng.uniform(0.2, 4) if which == "delta" else rng.uniform(5, 12)
            e = min(60.0, me * k + me * me / 2)
        eps = Fraction(round(e, 4)).limit_denominator(10**4)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            return _widen(*A4.sgd_few_sym_bracket(mu, qf, T, float(eps)))
        return Case2("sgd4-" + which, code, ref, tol, dps)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([1, 2, 3, 5, 8, 12, 20, 30]))
        return _eps_case("sgd4", expr, D, lambda e: A4.sgd_few_sym_bracket(mu, qf, T, e),
                         tol, dps)
    return _power_case("sgd4", expr, which, lambda: rng.choice([
        Fraction(rng.randint(1, 999), 1000), Fraction(1, 10 ** rng.randint(2, 7)),
        1 - Fraction(1, 10 ** rng.randint(2, 6))]), lambda a: A3.sgd_roc_bracket(
            mu, qf, T, a, max_points=2**19, rel=3e-3), tol, dps, rng)


def _lapgrid_scales(rng):
    """(scales as Fractions, expression): mu_i = a + i h (on one grid), a few off-grid scales
    (denominators 7, 11, 13 next to a grid of 10^-k), or repeated scales (powers)."""
    shape = rng.choice(["grid", "grid", "offgrid", "repeated"])
    n = rng.choice([2, 3, 5, 10, 20, 50, 100, 100, 200, 1000])
    if shape in ("grid", "offgrid"):
        a = Fraction(rng.choice([1, 1, 2, 5, 10, 30]), 10)
        h = Fraction(1, 10 ** rng.choice([2, 3, 4, 5]))
        mus = [a + i * h for i in range(n)]
        if shape == "offgrid":
            for _ in range(rng.randint(1, 3)):
                mus[rng.randrange(n)] = Fraction(rng.randint(1, 30), rng.choice([7, 11, 13]))
        code = ("ta.Tensor(*[ta.Laplace(sp.Rational(" + str(a.numerator) + ", "
                + str(a.denominator) + ") + i * sp.Rational(1, " + str(h.denominator)
                + ")) for i in range(" + str(n) + ")])")
        if shape == "offgrid":
            code = "ta.Tensor(" + ", ".join(f"ta.Laplace({rat(m)})" for m in mus) + ")" \
                if n <= 20 else None
        if code is None:
            counts: dict = {}
            for m in mus:
                counts[m] = counts.get(m, 0) + 1
            code = ("ta.Tensor(*[ta.Laplace(sp.Rational(p, q))**k for p, q, k in "
                    + repr([(m.numerator, m.denominator, k) for m, k in counts.items()]) + "])")
        return mus, code
    k = rng.randint(2, 4)
    base = [Fraction(rng.randint(1, 30), rng.choice([10, 20, 100])) for _ in range(k)]
    reps = [rng.choice([1, 2, 3, 5, 10, 30]) for _ in range(k)]
    mus = [m for m, r in zip(base, reps, strict=True) for _ in range(r)]
    code = "ta.Tensor(" + ", ".join(f"ta.Laplace({rat(m)})" + (f"**{r}" if r > 1 else "")
                                    for m, r in zip(base, reps, strict=True)) + ")"
    return mus, code


def gen_lapgrid(rng):
    """Many Laplace factors of different scales (numeric/cf_mixed_grid*.py: the split on one
    grid of scales, the mass split off it, repeated scales): delta, eps, roc, f, curve against
    the rounded-grid bracket (few factors) or dp_accounting's PLD pair (many), widened."""
    mus, expr = _lapgrid_scales(rng)
    mf = [float(m) for m in mus]
    span = sum(mf)
    tol = rng.choice([1e-3, 1e-6, 1e-9])
    dps = rng.choice([10, 15])
    which = rng.choice(["delta", "delta", "epsilon", "roc", "value", "curve"])
    slack = 2e-6 if len(mus) > 40 or 2 * span / min(2e-5, 2e-3 / len(mus)) > 2**22 else 1e-9
    if which == "delta":
        eps = Fraction(round(rng.uniform(0, span * 0.8), 3)).limit_denominator(1000)
        code = _wrap(f"ta.delta({expr}, {rat(eps)}, dps={dps})", tol)

        def ref():
            return _widen(*A4.laplace_bracket(mf, float(eps)), rel=slack, absolute=1e-14)
        return Case2("lapgrid-delta", code, ref, tol, dps)
    if which == "epsilon":
        D = Fraction(1, 10 ** rng.choice([2, 3, 5, 6, 8]))

        def br(e):
            lo, hi = A4.laplace_bracket(mf, e)
            return lo * (1 - slack) - 1e-14, hi * (1 + slack) + 1e-14
        return _eps_case("lapgrid", expr, D, br, tol, dps)
    if len(mus) > 30:
        return None  # (the roc reference composes on one untilted grid: few factors only)
    h = max(1e-5, 2 * span / 2**21)

    def roc_br(a):
        lows, ups = zip(*(A3.laplace_laws(m, h, 0.0) for m in mf), strict=True)
        lo, up = lows[0], ups[0]
        for x in lows[1:]:
            lo = lo.compose(x)
        for x in ups[1:]:
            up = up.compose(x)
        return A3.hull_roc_bracket([lo], [up], a)
    return _power_case("lapgrid", expr, which, lambda: rng.choice([
        Fraction(rng.randint(1, 999), 1000), Fraction(1, 10 ** rng.randint(2, 6)),
        1 - Fraction(1, 10 ** rng.randint(2, 6))]), roc_br, tol, dps, rng)


def _rdp_orders(rng):
    """Integer orders 2 .. 300 and fractional ones (as SymPy rationals)."""
    ints = sorted(rng.sample(range(2, 300), rng.randint(1, 4)))
    fr = [sp.Rational(rng.randint(101, 2000), 100) for _ in range(rng.randint(0, 3))]
    return ints + [a for a in fr if a.q != 1]


def gen_rdp_wor(rng):
    """RDP.of(C(p, G(mu))) and RDP.of(C(p, Laplace(mu))) (numeric/renyi_wor.py: Wang, Balle &
    Kasiviswanathan's Thm. 9, a certified upper bound): every value at or above D_a of the hull
    pair (audit4_refs.hull_renyi_*, 40-digit quadrature), finite, labelled a bound (RDP.bound),
    at integer and fractional orders."""
    base = rng.choice(["G", "Laplace"])
    mu = Fraction(round(_logu(rng, 0.05, 4.0), 3)).limit_denominator(1000) or Fraction(1, 20)
    p = rng.choice([Fraction(_logu(rng, 1e-4, 0.5)).limit_denominator(10**5),
                    Fraction(rng.choice([9, 99, 999]), rng.choice([10, 100, 1000])),
                    Fraction(256, 60000)])
    if not 0 < p < 1:
        p = Fraction(1, 2)
    orders = _rdp_orders(rng)
    if base == "G":
        orders = [a for a in orders if a * float(mu) ** 2 < 400] or [2]
    olist = "[" + ", ".join(str(a) if isinstance(a, int) else f"sp.Rational({a.p}, {a.q})"
                           for a in orders) + "]"
    dps = rng.choice([10, 20])
    code = f"ta.RDP.of(ta.C({rat(p)}, ta.{base}({rat(mu)})), {olist}, dps={dps})"
    sample = orders if len(orders) <= 3 else rng.sample(orders, 3)

    def check(r):
        if r.bound is None or "Thm. 9" not in r.bound:
            return f"the curve is not labelled a bound (bound = {r.bound!r})"
        for a in sample:
            v = r.curve[sp.sympify(a)]
            vm = MP.mpf(int(v.p)) / int(v.q) if isinstance(v, sp.Rational) else MP.mpf(v)
            if not MP.isfinite(vm):
                return f"order {a}: {v}"
            af = Fraction(int(sp.Rational(a).p), int(sp.Rational(a).q))
            truth = (A4.hull_renyi_gauss if base == "G" else A4.hull_renyi_laplace)(mu, p, af)
            if vm < truth * (1 - MP.mpf(10) ** -30):
                return f"order {a}: bound {MP.nstr(vm, 25)} below D_a = {MP.nstr(truth, 25)}"
        return None
    return Case2("rdp-wor-" + base, code, None, None, dps, custom=check, kind="raw")


def gen_cdp_affine(rng):
    """RDP.of(zCDP(rho, xi)) and RDP.of(tCDP(rho, omega)): exact xi + rho a at each order below
    omega (Bun & Steinke Def. 1.1; Bun, Dwork, Rothblum & Steinke Def. 1), refused at orders
    >= omega (naming the order)."""
    rho = Fraction(rng.randint(1, 400), rng.choice([1, 7, 100, 1000]))
    which = rng.choice(["z", "t"])
    orders = _rdp_orders(rng)
    if which == "z":
        xi = Fraction(rng.randint(0, 50), rng.choice([1, 3, 10]))
        notion = f"ta.zCDP({rat(rho)}, {rat(xi)})"
        omega = None
    else:
        xi = Fraction(0)
        omega = Fraction(rng.randint(3, 400), rng.choice([1, 2, 3]))
        notion = f"ta.tCDP({rat(rho)}, {rat(omega)})"
        if rng.random() < 0.7:
            orders = [a for a in orders if a < omega] or [sp.Rational(omega + 1, 2)]
    olist = "[" + ", ".join(str(a) if isinstance(a, int) else f"sp.Rational({a.p}, {a.q})"
                           for a in orders) + "]"
    code = f"_cdp_call(lambda: ta.RDP.of({notion}, {olist}))"

    def check(res):
        kind, r = res
        over = omega is not None and any(a >= omega for a in orders)
        if kind == "error":
            if over and "order" in r and "omega" in r:
                return None
            return f"refused: {r}"
        if over:
            return f"orders at or above omega = {omega} answered: {r.curve}"
        for a in orders:
            v = r.curve[sp.sympify(a)]
            want = sp.Rational(xi.numerator, xi.denominator) \
                + sp.Rational(rho.numerator, rho.denominator) * sp.sympify(a)
            if v != want:
                return f"order {a}: {v} != {want}"
        return None
    return Case2("cdp-affine", code, None, None, 30, custom=check, kind="raw")


def _cdp_call(fn):
    try:
        return ("ok", fn())
    except ta.TradeOffError as e:
        return ("error", str(e))


NS["_cdp_call"] = _cdp_call


def _mechanism(rng):
    """(expression, family tag) of a mechanism for the contract checks: few-step DP-SGD, one or
    two steps (the closed profile), Laplace products of different scales, Laplace^n, G (x) L,
    G^k (x) Laplace^m products (PLD engine or inversion)."""
    kind = rng.choice(["sgd-few", "sgd-few", "sgd-12", "lapmix", "lapgrid", "lappow",
                       "gauss-lap", "pld"])
    if kind == "sgd-few":
        return _sgd_few_params(rng)[3], kind
    if kind == "sgd-12":
        s = Fraction(round(_logu(rng, 0.5, 6.0), 2)).limit_denominator(100)
        q = Fraction(_logu(rng, 1e-3, 0.5)).limit_denominator(10**4)
        return f"ta.noisy_sgd({rat(s)}, {rat(q)}, {rng.choice([1, 2])})", kind
    if kind == "lapmix":
        mus = sorted({rng.choice(_LAPLACE_SCALES) for _ in range(rng.randint(2, 4))})
        return "ta.Tensor(" + ", ".join(f"ta.Laplace({rat(m)})" for m in mus) + ")", kind
    if kind == "lapgrid":
        n = rng.choice([5, 20, 100])
        a = Fraction(rng.choice([1, 2, 5]), 10)
        return (f"ta.Tensor(*[ta.Laplace({rat(a)} + i * sp.Rational(1, 1000)) for i in "
                f"range({n})])"), kind
    if kind == "lappow":
        return f"ta.Laplace({rat(rng.choice(_LAPLACE_SCALES))})**{rng.randint(2, 30)}", kind
    if kind == "gauss-lap":
        return (f"ta.Tensor(ta.G({rat(rng.choice(_LAPLACE_SCALES))}), "
                f"ta.Laplace({rat(rng.choice(_LAPLACE_SCALES))}))"), kind
    return (f"ta.Tensor(ta.G({rat(rng.choice(_LAPLACE_SCALES))})**{rng.randint(1, 3)}, "
            f"ta.EpsDelta({rat(Fraction(rng.randint(1, 20), 10))}, 0)**{rng.randint(1, 5)}, "
            f"ta.Laplace({rat(rng.choice(_LAPLACE_SCALES))}))"), kind


def _question(rng):
    """(call template with {f}, name): delta, eps, roc, f, curve."""
    which = rng.choice(["delta", "epsilon", "roc", "value", "curve"])
    if which == "delta":
        e = Fraction(rng.choice([0, 1, 5, 10, 50, 100, 200, 500]), 100)
        return f"ta.delta({{f}}, {rat(e)}, dps=15)", which
    if which == "epsilon":
        return f"ta.epsilon({{f}}, sp.Rational(1, 10**{rng.choice([2, 3, 5, 6, 10])}), " \
               "dps=15)", which
    if which in ("roc", "value"):
        a = rng.choice([Fraction(rng.randint(1, 999), 1000), Fraction(1, 10 ** rng.randint(2, 6))])
        return f"ta.{'roc' if which == 'roc' else 'evaluate'}({{f}}, {rat(a)}, dps=15)", which
    al = sorted({round(rng.uniform(0.001, 0.999), 3) for _ in range(3)})
    return f"ta.curve({{f}}, {al!r}, bounds=True)", which


TOLS4 = (1e-3, 1e-6, 1e-9)


def _at_tols(fn, tols=TOLS4):
    """fn() at each tolerance (loosest first, one process): [(lo, hi, guarantee, warned,
    seconds)]; for a curve, lo and hi are float arrays. A call stopped by its time limit gives
    ("time", tol, seconds)."""
    out = []
    for tol in tols:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            w0 = time.time()
            try:
                with ta.pld_options(tol=tol):
                    r = fn()
            except ta.TimeLimitExceeded:
                out.append(("time", tol, time.time() - w0))
                continue
        el = time.time() - w0
        tw = any(issubclass(w.category, ta.ToleranceWarning) for w in ws)
        if isinstance(r, ta.Value):
            a, b = r.interval() if r.is_point else (MP.mpf(r.lo), MP.mpf(r.hi))
            out.append((MP.mpf(a), MP.mpf(b), r.guarantee, tw, el))
        else:
            est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
            out.append((r[0], r[1], "estimate" if est else "certified", tw, el))
    return out


NS["_at_tols"] = _at_tols


def _nest_message(res) -> str | None:
    """A message when a tighter tolerance's certified enclosure is not inside a looser one's
    (up to one unit of the 15th digit: the points are read through ``interval()``) or the
    certified enclosures are disjoint."""
    import numpy as np

    for r in res:
        if r[-1] > _PER_CALL[0] + 5:
            return f"a call took {r[-1]:.1f} s (limit {_PER_CALL[0]} s): {r[:-1]}"
    done = [(t, r) for t, r in zip(TOLS4, res, strict=True) if not isinstance(r[0], str)]
    for i, (t1, r1) in enumerate(done):
        for t2, r2 in done[i + 1:]:
            if r1[2] not in ("certified", "exact") or r2[2] not in ("certified", "exact"):
                continue
            lo1, hi1, lo2, hi2 = r1[0], r1[1], r2[0], r2[1]
            if isinstance(lo1, np.ndarray):
                bad = np.nonzero((lo2 < lo1 - 2e-16 * abs(lo1) - 1e-300)
                                 | (hi2 > hi1 + 2e-16 * abs(hi1) + 1e-300))[0]
                if bad.size:
                    k = int(bad[0])
                    return (f"curve at index {k}: tol {t2} [{lo2[k]!r}, {hi2[k]!r}] not inside "
                            f"tol {t1} [{lo1[k]!r}, {hi1[k]!r}]")
                continue
            eps_ = MP.mpf(10) ** -15
            if hi2 < lo1 - eps_ * abs(lo1) or lo2 > hi1 + eps_ * abs(hi1):
                return (f"disjoint certified enclosures: tol {t1} [{MP.nstr(lo1, 17)}, "
                        f"{MP.nstr(hi1, 17)}], tol {t2} [{MP.nstr(lo2, 17)}, {MP.nstr(hi2, 17)}]")
            if lo2 < lo1 - eps_ * abs(lo1) or hi2 > hi1 + eps_ * abs(hi1):
                return (f"tol {t2} [{MP.nstr(lo2, 17)}, {MP.nstr(hi2, 17)}] not inside tol {t1} "
                        f"[{MP.nstr(lo1, 17)}, {MP.nstr(hi1, 17)}]")
    return None


def gen_tol_nested(rng):
    """The tolerance contract: one question about a random mechanism at the tolerances 1e-3,
    1e-6, 1e-9 in one process (routes/tail_points.py's nested grids, numeric/pld.py's visited
    grids): each tighter certified enclosure inside each looser one."""
    expr, kind = _mechanism(rng)
    call, which = _question(rng)
    code = f"_at_tols(lambda: {call.format(f=expr)})"
    return Case2(f"tolnest-{kind}-{which}", code, None, None, 15,
                 custom=_nest_message, kind="raw", calls=len(TOLS4))


def _clear_caches():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from test_global_precision import clear_caches

    clear_caches()


def _at_precisions(fn, precs=(53, 8, 500)):
    """fn() with mpmath's global precision at each of ``precs`` (caches emptied before each):
    [(fields, prec after the call)]; ``fields`` the lo, hi, mid, guarantee of a Value (or the
    arrays of a curve)."""
    out = []
    for prec in precs:
        _clear_caches()
        old = mpmath.mp.prec
        mpmath.mp.prec = prec
        try:
            r = fn()
            after = mpmath.mp.prec
        finally:
            mpmath.mp.prec = old
        if isinstance(r, ta.Value):
            f = (repr(r.lo), repr(r.hi), str(r), r.guarantee)
        else:
            f = (list(map(float, r[0])), list(map(float, r[1])))
        out.append((prec, f, after))
    return out


NS["_at_precisions"] = _at_precisions


def _prec_message(res) -> str | None:
    base = res[0][1]
    for prec, f, after in res:
        if after != prec:
            return f"the call changed mpmath.mp.prec from {prec} to {after}"
        if f != base:
            return f"at mp.prec = {prec}: {f} != {base} (at 53)"
    return None


def gen_global_prec(rng):
    """Results identical under mpmath.mp.prec 53, 8, 500 (caches emptied between), the
    precision left as found: random calls of the audited routes at tol 1e-6."""
    expr, kind = _mechanism(rng)
    call, which = _question(rng)
    code = f"_at_precisions(lambda: _tol(1e-6, lambda: {call.format(f=expr)}))"
    return Case2(f"globalprec-{kind}-{which}", code, None, None, 15,
                 custom=_prec_message, kind="raw", calls=3)


#: The per-call limit of the run (main sets it), for the checks of several calls in a row.
_PER_CALL = [60.0]


class _Gaps:
    """The largest CPU time between two consultations of the deadline (numeric.budget's check,
    remaining, expired) during a call, and where it ended: a stretch that never looks at the
    clock overruns ``time_limit`` by its length, whatever the limit."""

    def __enter__(self):
        from tradeoff_algebra.numeric import budget

        self.budget, self.saved = budget, {}
        self.last, self.max, self.where = time.process_time(), 0.0, ""
        for name in ("check", "remaining", "expired"):
            fn = getattr(budget, name)
            self.saved[name] = fn
            setattr(budget, name, self._wrap(fn))
        return self

    def _wrap(self, fn):
        def w(*a, **k):
            now = time.process_time()
            if now - self.last > self.max:
                self.max = now - self.last
                self.where = "".join(traceback.format_stack(limit=4)[:-1])
            self.last = now
            return fn(*a, **k)
        return w

    def __exit__(self, *exc):
        now = time.process_time()
        if now - self.last > self.max:
            self.max, self.where = now - self.last, "(after the last check)"
        for name, fn in self.saved.items():
            setattr(self.budget, name, fn)
        return False


def _gap_call(fn):
    """(the largest unchecked CPU stretch of fn(), where it ended, the outcome)."""
    with _Gaps() as g:
        try:
            r = fn()
            out = f"{r.guarantee} {r}" if isinstance(r, ta.Value) else "answered"
        except ta.TimeLimitExceeded:
            out = "time limit"
        except ta.TradeOffError as e:
            out = f"{type(e).__name__}"
    return g.max, g.where, out


NS["_gap_call"] = _gap_call
GAP_SECONDS = 2.0


def gen_time_gap(rng):
    """The time limit from inside: the largest CPU stretch without a look at the deadline, for
    adversarial calls of the audited routes (eps at 0 and huge, delta to 1e-300, alpha near 0
    and 1, tol 1e-12); flagged above ``GAP_SECONDS`` (a ``time_limit(s)`` call can overrun s by
    that much)."""
    if rng.random() < 0.6:
        expr = _sgd_few_params(rng)[3]
    else:
        expr = _mechanism(rng)[0]
    which = rng.choice(["delta", "delta", "epsilon", "roc", "value"])
    if which == "delta":
        arg = rat(Fraction(rng.choice([0, 1, 10, 100, 10**3, 10**4, 10**5, 10**6])))
    elif which == "epsilon":
        arg = f"sp.Rational(1, 10**{rng.choice([5, 30, 100, 300])})"
    else:
        arg = rng.choice(["sp.Rational(1, 10**12)", "sp.Rational(1, 10**100)",
                          "1 - sp.Rational(1, 10**12)", "sp.Rational(1, 2)"])
    fn = {"delta": "delta", "epsilon": "epsilon", "roc": "roc", "value": "evaluate"}[which]
    tol = rng.choice([1e-6, 1e-12])
    code = _wrap(f"ta.{fn}({expr}, {arg}, dps=15)", tol)
    code = f"_gap_call(lambda: {code})"

    def check(res):
        gap, where, out = res
        if gap > GAP_SECONDS:
            return f"{gap:.1f} s CPU without a look at the deadline ({out}), ending at\n{where}"
        return None
    return Case2(f"timegap-{which}", code, None, None, 15, custom=check, kind="raw")


GENERATORS = {
    "offgrid-direct": gen_offgrid_direct,
    "offgrid-ta": gen_offgrid_ta,
    "offgrid-many": gen_offgrid_many,
    "dg-power": gen_dg_power,
    "rr-power": gen_rr_power,
    "epsdelta-power": gen_epsdelta_power,
    "finite-power": gen_finite_power,
    "rr3-power": gen_rr3_power,
    "laplace-power": gen_laplace_power,
    "laplace-sampled": gen_laplace_sampled,
    "skellam": gen_skellam,
    "shuffle": gen_shuffle,
    "shuffle-rr": gen_shuffle_rr,
    "rdp": gen_rdp,
    "sgd": gen_sgd,
    "laplace-tails": gen_laplace_tails,
    "gauss-laplace": gen_gauss_laplace,
    "laplace-big": gen_laplace_big,
    "max": gen_max,
    "renyi-orders": gen_renyi_orders,
    "two-lattices": gen_two_lattices,
    "skellam-power": gen_skellam_power,
    "sgd-many": gen_sgd_many,
    "mix-one": gen_mix_one,
    "laplace-mixed": gen_laplace_mixed,
    "laplace-vertex": gen_laplace_vertex,
    "lattice-roc": gen_lattice_roc,
    "max3": gen_max3,
    "rdp-quick": gen_rdp_quick,
    "sgd-few": gen_sgd_few,
    "lapgrid": gen_lapgrid,
    "rdp-wor": gen_rdp_wor,
    "cdp-affine": gen_cdp_affine,
    "tol-nested": gen_tol_nested,
    "global-prec": gen_global_prec,
    "time-gap": gen_time_gap,
}


# ---------------------------------------------------------------------------------------------
# checking
# ---------------------------------------------------------------------------------------------

def _interval(x):
    """(lo, hi, guarantee, route) of an answer: a Value, an arb ball or a rational."""
    from flint import arb

    if isinstance(x, ta.Value):
        lo, hi = x.interval()
        return MP.mpf(lo), MP.mpf(hi), x.guarantee, x.route or ""
    if isinstance(x, arb):
        return (MP.mpf(x.lower().str(40, radius=False)) * (1 - MP.mpf(10) ** -38),
                MP.mpf(x.upper().str(40, radius=False)) * (1 + MP.mpf(10) ** -38),
                "certified", "arb")
    if isinstance(x, sp.Rational):
        v = MP.mpf(x.p) / x.q
        return v, v, "certified", "rational upper end"
    from flint import fmpq

    if isinstance(x, fmpq):
        v = MP.mpf(int(x.p)) / int(x.q)
        return v, v, "exact", "fmpq"
    raise TypeError(type(x))


def check(case: Case, per_case: float) -> tuple[str, str] | None:
    """None when the case passes, else (kind, message)."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            with MP.workdps(50):
                with ta.time_limit(per_case):
                    got = eval(case.code, NS)  # noqa: S307 (our own generated code)
        except ta.TimeLimitExceeded:
            return None
        except ta.TradeOffError as e:
            return ("refused", f"{type(e).__name__}: {e}"[:300])
        except Exception as e:  # noqa: BLE001
            return ("crash", "".join(traceback.format_exception_only(type(e), e))[:500])
    if got is None:
        return None  # (declined)
    with MP.workdps(50):
        lo, hi, guar, route = _interval(got)
        if MP.isnan(lo) or MP.isnan(hi):
            return ("nan", f"{got!r}")
        slack = MP.mpf(case.tol) * 20 + MP.mpf(10) ** -40  # (interval() widens by one unit)
        if case.kind in ("prob", "ball") and (lo < -slack or hi > 1 + slack):
            return ("range", f"[{lo}, {hi}] outside [0, 1]")
        if (guar == "estimate" and "certified" in route.lower()
                and "estimate" not in route.lower()):
            return ("label", f"estimate labelled {route!r}")
        if guar not in ("certified", "exact"):
            return None
        try:
            rlo, rhi = case.ref()
        except ValueError as e:  # (a reference too large to build: skipped)
            print(f"  [reference skipped: {e}]")
            return None
        rlo, rhi = MP.mpf(rlo), MP.mpf(rhi)
        if case.kind == "rdp":
            if hi < rlo * (1 - MP.mpf(10) ** -40):
                return ("wrong", f"RDP bound {hi} below the truth {rlo}")
            if hi > rlo + abs(rlo) * 10 * case.tol + MP.mpf(10) ** -40:
                return ("loose", f"RDP bound {hi} above the truth {rlo} by "
                        f"{MP.nstr((hi - rlo) / abs(rlo), 3)} relative (dps tol {case.tol})")
            return None
        if hi < rlo or lo > rhi:
            return ("wrong", f"{guar} [{MP.nstr(lo, 25)}, {MP.nstr(hi, 25)}] (route {route!r}) "
                    f"misses the reference [{MP.nstr(rlo, 25)}, {MP.nstr(rhi, 25)}]")
        width = hi - lo
        tolw = any(issubclass(w.category, ta.ToleranceWarning) for w in ws)
        if width > max(abs(hi), MP.mpf(10) ** -300) * 1e-3 and not tolw and width > 1e-12:
            return ("wide", f"width {MP.nstr(width, 3)} of [{MP.nstr(lo, 10)}, {MP.nstr(hi, 10)}] "
                    f"with no ToleranceWarning (route {route!r})")
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=300.0,
                    help="wall-clock seconds in all (the machine is shared)")
    ap.add_argument("--per-case", type=float, default=60.0, help="time limit of one call")
    ap.add_argument("--only", default="", help="comma-separated generator names")
    ap.add_argument("--skip", default="", help="comma-separated generator names")
    ap.add_argument("--verbose", action="store_true", help="print each call before it runs")
    args = ap.parse_args(argv)
    _PER_CALL[0] = args.per_case
    names = [x for x in (args.only.split(",") if args.only else GENERATORS) if x]
    names = [x for x in names if x not in args.skip.split(",")]
    rng = random.Random(args.seed)
    t0 = time.process_time()
    w0 = time.time()
    counts: dict = {}
    fails: list = []
    i = 0
    while time.time() - w0 < args.budget:
        name = names[i % len(names)]
        i += 1
        sub = random.Random(rng.randrange(2**62))
        try:
            case = GENERATORS[name](sub)
        except Exception as e:  # noqa: BLE001
            print(f"[generator {name} failed: {e!r}]", flush=True)
            continue
        if case is None:
            continue
        c0 = time.process_time()
        if args.verbose:
            print("  try: " + case.code, flush=True)
        try:
            res = (check2 if isinstance(case, Case2) else check)(case, args.per_case)
        except Exception as e:  # noqa: BLE001 (a reference that failed: reported, not fatal)
            res = ("reference", f"the reference failed: {e!r}"[:300])
        dt = time.process_time() - c0
        counts.setdefault(case.family, [0, 0])[0] += 1
        if res is not None:
            counts[case.family][1] += 1
            fails.append((case, res))
            print(f"FAIL [{res[0]}] {case.family} ({dt:.1f} s): {res[1]}\n  reproducer:\n    "
                  + case.reproducer().replace("\n", "\n    "), flush=True)
        else:
            print(f"ok   {case.family} ({dt:.1f} s)", flush=True)
    print(f"\n{i} draws, {time.process_time() - t0:.0f} s CPU, {time.time() - w0:.0f} s wall, "
          f"load {os.getloadavg()[0]:.1f}")
    for fam, (n, f) in sorted(counts.items()):
        g = GUARANTEES.get(fam, [])
        kinds = ", ".join(f"{k} {g.count(k)}" for k in sorted(set(g)))
        print(f"  {fam:28s} {n:4d} cases, {f:3d} failures  ({kinds or 'no value compared'})")
    return 1 if any(r[0] in ("wrong", "nan", "range", "label") for _, r in fails) else 0


if __name__ == "__main__":
    sys.exit(main())
