"""The guarantee a Value states, against independent references, over random trees and routes;
and verify's verdicts at extreme arguments, on boxes and on estimates.

Part 1 (random trees of tests/fuzz_trees.py, seeded). For every tree, at random levels (the
harness's, plus one of 1e-300, 1e-60, 1e-300 as a float and 1 - 1e-30), the public functions
``evaluate``, ``roc``, ``delta``, ``epsilon``, ``renyi`` and ``kl`` are called at the tree's dps,
and ``evaluate``/``roc`` also route by route (the exact route, the Arb fast path, each certified
point route, the numeric engine alone). Every Value labelled exact or certified states an
interval that must hold the truth (:func:`stated`: ``[lo, hi]``, an exact rational, or a point
with its ``dps`` digits, ``10^(1 - dps)`` relative, as ``Value.interval`` documents). It is
compared with

* the harness's reference (never the library: exact Neyman-Pearson on finite pairs, mpmath
  closed forms at 2 dps + 30 digits, one-sided bounds for operators without a closed form),
  with the reference's own error bound ``tol`` stated explicitly (0 for an exact reference;
  the harness's relative 10^-(digits - 15) for an mpmath one). No tolerance is added: a
  *violation* is a claim disjoint from ``[L - tol, U + tol]``, confirmed by the harness at
  about 3x and 15x the digits with its strict references (``fuzz_trees.ref_verdict``). A
  check *counts as a containment* only when ``[L - tol, U + tol]`` lies inside the claim and
  ``tol + (U - L)`` is at most a thousandth of the claim's width; anything else (one-sided
  bounds, a reference error not far below the width, an exact value against an mpmath
  reference) is counted as "consistent" or "skipped", never as a pass of containment;
* Renyi divergences and KL: an mpmath reference from the reference's finite pair (sums
  ``p^a q^(1-a)``), a ``a mu^2/2`` for Gaussian parts, and the Laplace integral summed piece
  by piece (derived here, not the library's form), at two precisions: the difference of the
  two plus 10^-(digits - 10) relative is the reference's error bound;
* a second route: the same call at dps + 30 and every certified route of evaluate/roc; two
  certified or exact claims are both claims about the truth, so they must intersect.

The tallies (fraction exact / certified / estimate per function and per route, and the
outcomes of the checks) are printed with ``-s``. CI runs ``CI_TREES`` trees (env
TA_GUARANTEE_TREES); the long run is ``pytest tests/test_guarantee_property.py
--guarantee-trees 10000 [--guarantee-seed S] [--guarantee-minutes M] [--guarantee-out F] -s``.

Part 2: verify with Φ, Φ⁻¹, exp and log of extreme arguments (claims true by a relative
margin far below 1e-20 are never False, false ones never True), boxes against the symbols'
assumptions, NaN / infinite / empty boxes and sides, estimates.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

import fuzz_trees as fz
import mpmath
import pytest
import sympy as sp
from mpmath import mp
from mpmath.libmp import to_rational

import tradeoff_algebra as ta
from tradeoff_algebra import C, G, Laplace
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.core.normal import Phi, PhiInv
from tradeoff_algebra.numeric import protocol
from tradeoff_algebra.numeric.value import Value

R = sp.Rational
F0 = Fraction(0)

CI_TREES = int(os.environ.get("TA_GUARANTEE_TREES", "6"))
CI_SEED = 7_000_000  # a seed range of its own (test_fuzz_trees draws through hypothesis)
CALL_LIMIT = float(os.environ.get("TA_GUARANTEE_CALL_LIMIT", "3"))
TREE_BUDGET = float(os.environ.get("TA_GUARANTEE_TREE_BUDGET", "8"))

#: Extreme levels added to the harness's (one per tree).
EXTREME_LEVELS = [fz.lv_str("1e-300"), fz.lv_frac(Fraction(1, 10**60)), fz.lv_float(1e-300),
                  fz.lv_frac(1 - Fraction(1, 10**30))]
RENYI_ORDERS = [R(1, 2), R(3, 2), 2, 5, sp.oo, 1]  # 1: kl


@pytest.fixture(autouse=True)
def _print_long_integers():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(old)


# =============================================================================================
# tallies
# =============================================================================================
@dataclass
class Tally:
    labels: Counter = field(default_factory=Counter)  # (function, guarantee)
    routes: Counter = field(default_factory=Counter)  # (route, guarantee)
    outcomes: Counter = field(default_factory=Counter)  # (function, outcome)
    violations: list = field(default_factory=list)
    trees: int = 0
    seconds: float = 0.0

    def label(self, func: str, v: Value):
        self.labels[(func, v.guarantee)] += 1

    def violation(self, kind: str, call: str, observed: str, expected: str, detail: str = ""):
        self.violations.append(dict(kind=kind, call=call, observed=observed, expected=expected,
                                    detail=detail))

    def merge(self, other: Tally):
        self.labels.update(other.labels)
        self.routes.update(other.routes)
        self.outcomes.update(other.outcomes)
        self.violations += other.violations
        self.trees += other.trees
        self.seconds += other.seconds

    def fractions(self, counter: Counter) -> dict:
        out = {}
        for name in sorted({k[0] for k in counter}):
            n = sum(counter[(name, g)] for g in ("exact", "certified", "estimate"))
            out[name] = {g: f"{counter[(name, g)]} ({100 * counter[(name, g)] / max(n, 1):.0f}%)"
                         for g in ("exact", "certified", "estimate")} | {"n": n}
            if counter[(name, "not applicable")]:
                out[name]["not applicable"] = counter[(name, "not applicable")]
        return out

    def report(self) -> str:
        lines = [f"trees {self.trees} in {self.seconds:.0f} s"]
        lines.append("guarantees per function:")
        for k, v in self.fractions(self.labels).items():
            lines.append(f"  {k}: {v}")
        lines.append("guarantees per route (evaluate/roc, route by route):")
        for k, v in self.fractions(self.routes).items():
            lines.append(f"  {k}: {v}")
        lines.append("outcomes of the checks of certain values:")
        for (f, o), n in sorted(self.outcomes.items()):
            lines.append(f"  {f:24s} {o:40s} {n}")
        lines.append(f"violations: {len(self.violations)}")
        for v in self.violations:
            lines.append(f"  [{v['kind']}] {v['call']}\n     observed {v['observed']}\n"
                         f"     expected {v['expected']}\n     {v['detail']}")
        return "\n".join(lines)

    def as_json(self) -> dict:
        return dict(trees=self.trees, seconds=round(self.seconds, 1),
                    labels=[[*k, n] for k, n in self.labels.items()],
                    routes=[[*k, n] for k, n in self.routes.items()],
                    outcomes=[[*k, n] for k, n in self.outcomes.items()],
                    violations=self.violations)


# =============================================================================================
# what a Value states
# =============================================================================================
def stated(v: Value) -> tuple:
    """The interval (Fractions; None for an infinite end) that a certain Value states to hold
    the truth: its exact rational, ``[lo, hi]``, or a point +- 10^(1 - dps) relative (its
    ``dps`` digits; ``Value.interval``), formed exactly here."""
    if v.exact is not None:
        q = fz.to_frac(v.exact)
        return q, q
    lo = None if mpmath.isinf(v.lo) else fz.to_frac(v.lo)
    hi = None if mpmath.isinf(v.hi) else fz.to_frac(v.hi)
    if v.lo == v.hi and lo is not None:
        r = abs(lo) / 10 ** (v.dps - 1)
        return lo - r, hi + r
    return lo, hi


def _meets(c1, c2) -> bool:
    """Do two stated intervals (None = infinite end) intersect?"""
    lo1, hi1 = c1
    lo2, hi2 = c2
    if hi1 is not None and lo2 is not None and hi1 < lo2:
        return False
    if hi2 is not None and lo1 is not None and hi2 < lo1:
        return False
    return True


def _bad_value(c):
    """``bad(L, U, tol)`` for fz.ref_verdict: the claim c misses [L - tol, U + tol]."""
    lo, hi = c

    def bad(L, U, tol):
        return (lo is not None and U + tol < lo) or (hi is not None and L - tol > hi)

    return bad


def check_against_ref(t: Tally, rec: fz.Recorder, func: str, call: str, v: Value, ref, what,
                      arg, dps: int):
    """A certain Value against the harness's reference (module docstring, first bullet)."""
    if ref is None:
        t.outcomes[(func, "no reference")] += 1
        return
    try:
        c = stated(v)
    except fz.HugeExponent:
        t.outcomes[(func, "skipped: exponent beyond 2^200000")] += 1
        return
    seen = []
    bad0 = _bad_value(c)

    def bad(L, U, tol):
        seen.append((L, U, tol))
        return bad0(L, U, tol)

    r = fz.ref_verdict(rec, ref, what, arg, dps, bad)
    if r is not None:
        L, U, note = r
        t.violation(f"{func}: certain value excludes the reference", call, fz.fmt_value(v)
                    + f" [{v.guarantee}]", f"[{fz.fmt(L, 25)}, {fz.fmt(U, 25)}]",
                    f"reference {ref} ({note})")
        return
    if not seen:
        t.outcomes[(func, "skipped: reference unavailable")] += 1
        return
    L, U, tol = seen[0]
    if bad0(L, U, tol):  # stage 1 disagreed; the stricter stages withdrew it
        t.outcomes[(func, "skipped: reference unstable")] += 1
        return
    lo, hi = c
    exact_ref = tol == 0 and L == U
    if exact_ref:
        t.outcomes[(func, "contained: exact reference")] += 1
        return
    if not ref.point or L != U:
        t.outcomes[(func, "consistent: one-sided reference")] += 1
        return
    width = None if (lo is None or hi is None) else hi - lo
    if width == 0:  # an exact value: no width for an mpmath reference to be far below
        t.outcomes[(func, "consistent: exact value, mpmath reference")] += 1
    elif width is None or (lo <= L - tol and U + tol <= hi and 1000 * (tol + U - L) <= width):
        t.outcomes[(func, "contained: mpmath reference")] += 1
    else:
        t.outcomes[(func, "skipped: reference error not << width")] += 1


def check_second(t: Tally, func: str, call: str, v: Value, w: Value, how: str):
    """Two certain claims about one number must intersect."""
    if not (v.is_certain and w.is_certain):
        return
    try:
        c1, c2 = stated(v), stated(w)
    except fz.HugeExponent:
        t.outcomes[(func, "skipped: exponent beyond 2^200000")] += 1
        return
    if _meets(c1, c2):
        t.outcomes[(func, f"agrees: {how}")] += 1
    else:
        t.violation(f"{func}: two certain values disjoint ({how})", call,
                    fz.fmt_value(v) + f" [{v.guarantee}]",
                    fz.fmt_value(w) + f" [{w.guarantee}]")


# -- Renyi references --------------------------------------------------------------------------
def _finite_renyi(P, Q, a):
    """D_a(P || Q) of a finite pair in mpmath (a: Fraction, or None for order oo; a == 1: KL)."""
    if a is None:
        best = mp.ninf
        for p, q in zip(P, Q, strict=True):
            if p != 0:
                if q == 0:
                    return mp.inf
                best = max(best, mpmath.log(fz.to_m(p) / fz.to_m(q)))
        return best
    if a == 1:
        s = mp.zero
        for p, q in zip(P, Q, strict=True):
            if p != 0:
                if q == 0:
                    return mp.inf
                s += fz.to_m(p) * mpmath.log(fz.to_m(p) / fz.to_m(q))
        return s
    am = fz.to_m(a)
    s = mp.zero
    for p, q in zip(P, Q, strict=True):
        if p == 0:
            continue
        if q == 0:
            if a > 1:
                return mp.inf
            continue
        s += fz.to_m(p) ** am * fz.to_m(q) ** (1 - am)
    if s == 0:
        return mp.inf
    return mpmath.log(s) / (am - 1)


def _laplace_renyi(mu, a):
    """D_a(Lap(0, 1) || Lap(mu, 1)), mu >= 0: the integral of p^a q^(1-a) over (-oo, 0),
    (0, mu), (mu, oo), each an exponential: e^{-(1-a) mu}, e^{-(1-a) mu} (e^{(1-2a) mu} - 1)
    / (1 - 2a) (mu e^{-mu/2} at a = 1/2), e^{-a mu}; halved. KL (a = 1): mu + e^-mu - 1;
    order oo: mu."""
    if a is None:
        return +mu
    if a == 1:
        return mu + mpmath.exp(-mu) - 1
    am = fz.to_m(a)
    if a == Fraction(1, 2):
        mid = mu * mpmath.exp(-mu / 2)
    else:
        mid = mpmath.exp(-(1 - am) * mu) * mpmath.expm1((1 - 2 * am) * mu) / (1 - 2 * am)
    total = (mpmath.exp(-(1 - am) * mu) + mid + mpmath.exp(-am * mu)) / 2
    return mpmath.log(total) / (am - 1)


def renyi_reference(ref, a):
    """D_a of the tree from its harness reference (mpf, +inf), or None where the reference has
    no law (one-sided bounds, operators on continuous laws) or carries slack."""
    if ref is None or getattr(ref, "slack", 0):
        return None
    if isinstance(ref, fz.GaussRef):
        if a is None:
            return mp.zero if ref.mu2 == 0 else mp.inf
        return fz.to_m(a) * fz.to_m(ref.mu2) / 2
    if isinstance(ref, fz.LaplaceRef):
        return _laplace_renyi(abs(ref.mu_.m()), a)
    if isinstance(ref, fz.GaussFiniteRef):
        fin = renyi_reference(ref.fin, a)
        if fin is None:
            return None
        g = renyi_reference(fz.GaussRef(ref.mu2), a)
        return g + fin
    if isinstance(ref, fz.Finite):
        P, Q = ref.pair()
        return _finite_renyi(P, Q, a)
    return None


#: Operators whose harness reference is a pair computed directly from the leaves' pairs
#: (products, powers, swaps). Other operators' non-exact references come from mpmath knots
#: (hulls, maxima, groups, mixtures), where masses below 10^-digits next to 1 collapse: a
#: BinomialDP(49.49, 121) under SymmetricHull got a flat piece (a Q-mass of 1e-2601 lost), so
#: D_2 = +oo instead of 5987.8. Those trees have a Renyi reference only when it is exact.
LAW_OPERATORS = (ta.Tensor, ta.TensorPower, ta.Inverse)


def _law_tree(f) -> bool:
    if isinstance(f, LAW_OPERATORS):
        return all(_law_tree(g) for g in f.args if isinstance(g, ta.TradeOff))
    return not any(isinstance(g, ta.TradeOff) for g in f.args)


def renyi_ref_for(f, ref):
    """The reference to use for the divergences of f (see LAW_OPERATORS), or None."""
    if ref is None:
        return None
    if _law_tree(f) or (isinstance(ref, fz.Finite) and ref.exact and not ref.slack):
        return ref
    return None


def check_renyi(t: Tally, func: str, call: str, v: Value, ref, a, dps: int):
    """A certain divergence against :func:`renyi_reference` at two precisions (their difference
    plus 10^-(digits - 10) relative is the reference's error bound); an apparent violation is
    recomputed at 4x the digits and reported only if it persists."""
    try:
        c = stated(v)
    except fz.HugeExponent:
        t.outcomes[(func, "skipped: exponent beyond 2^200000")] += 1
        return
    lo, hi = c
    if mpmath.isinf(v.lo) and v.lo > 0:  # the Value says +oo
        c = ("inf", "inf")

    def ref_at(digits):
        try:
            with fz.ref_context(digits, 20.0):
                r1 = renyi_reference(ref, a)
            if r1 is None:
                return None
            if mpmath.isinf(r1):
                return "inf"
            with fz.ref_context(digits + 20, 20.0):
                r2 = renyi_reference(ref, a)
            if mpmath.isnan(r1) or mpmath.isnan(r2):
                return None
            x1, x2 = fz.to_frac(r1), fz.to_frac(r2)
            err = abs(x1 - x2) + abs(x2) / 10 ** (digits - 10)
            return x2, err
        except (fz.RefTimeout, fz.RefHardTimeout, fz.RefUnavailable, ValueError,
                ZeroDivisionError, OverflowError, AssertionError):
            return None

    def disagrees(r):
        if r == "inf" or c == ("inf", "inf"):
            return not (r == "inf" and c == ("inf", "inf")) and not (r == "inf" and hi is None)
        x, err = r
        return (lo is not None and x + err < lo) or (hi is not None and x - err > hi)

    rdps = 2 * dps + 30
    r = ref_at(rdps)
    if r is None:
        t.outcomes[(func, "no reference" if ref is None or not _has_law(ref)
                    else "skipped: reference unavailable")] += 1
        return
    if disagrees(r):
        r2 = ref_at(4 * rdps)
        if r2 is None or not disagrees(r2):
            t.outcomes[(func, "skipped: reference unstable")] += 1
            return
        t.violation(f"{func}: certain value excludes the reference", call,
                    fz.fmt_value(v) + f" [{v.guarantee}]",
                    "+oo" if r2 == "inf" else f"{fz.fmt(r2[0], 25)} +- {fz.fmt(r2[1], 3)}",
                    f"mpmath reference from {ref} at {4 * rdps} digits")
        return
    if r == "inf":
        t.outcomes[(func, "contained: infinite")] += 1
        return
    x, err = r
    if lo is not None and hi is not None and lo == hi:
        t.outcomes[(func, "consistent: exact value, mpmath reference")] += 1
    elif lo is None or hi is None or (lo <= x - err and x + err <= hi
                                      and 1000 * err <= hi - lo):
        t.outcomes[(func, "contained: mpmath reference")] += 1
    else:
        t.outcomes[(func, "skipped: reference error not << width")] += 1


def _has_law(ref) -> bool:
    with fz.ref_context(30, 5.0):
        try:
            return renyi_reference(ref, Fraction(2)) is not None
        except Exception:  # noqa: BLE001
            return False


# =============================================================================================
# one tree
# =============================================================================================
def _routes(f, A, dps: int, power: bool):
    """(name, callable) of every route of evaluate (power False) / roc (power True) at the
    rational level A, each on its own (numeric.protocol)."""

    def exact():
        q = protocol.exact_value(f, A, 1 - A)
        return None if q is None else Value.from_exact(1 - q if power else q, dps)

    out = [("exact", exact),
           ("arb", lambda: protocol._arb_point(f, A, dps, power))]
    for route in protocol.POINT_ROUTES:
        out.append((route.__name__.strip("_"),
                    lambda route=route: route(f, A, dps, power)))

    def engine():
        def compute():
            a, ac = protocol._level_pair(A)
            pair = (protocol.mp_roc if power else protocol.mp_value)(f, a, ac)
            return protocol._unit_pair(pair, f, "roc" if power else "evaluate")
        return protocol.certified(compute, dps, lambda: f"engine({protocol.short(f)})")

    out.append(("engine", engine))
    return out


def check_tree(seed: int, t: Tally, routes_at: int = 2, limit: float = CALL_LIMIT,
               budget: float = TREE_BUDGET):
    """Every call of one seeded tree (module docstring)."""
    t0 = time.perf_counter()
    t.trees += 1
    rng = random.Random(seed ^ 0x5EED)
    case = fz.random_case(seed)
    extra = rng.choice(EXTREME_LEVELS)
    alphas = list(case.alphas)
    if extra.frac not in {lv.frac for lv in alphas}:
        alphas.append(extra)
    node, dps, f, ref = case.node, case.dps, case.node.expr, case.node.ref
    rec = fz.Recorder(limit=limit, ref_seconds=10.0)

    def over():
        return time.perf_counter() - t0 > budget

    def run(api, src, fn, *args, route=False):
        v, err = rec.run(api, src, fn, *args)
        if err is None and v is None and route:  # the route does not apply here
            t.routes[(api, "not applicable")] += 1
            return None
        if err is None and not isinstance(v, Value):
            t.violation(f"{api}: not a Value", src, repr(v)[:100], "a Value")
            return None
        if err is None:
            for x in (v.lo, v.hi, v.mid):
                if mpmath.isnan(x):
                    t.violation(f"{api}: NaN", src, fz.fmt_value(v), "no NaN")
                    return None
            if v.lo > v.hi:
                t.violation(f"{api}: lo > hi", src, fz.fmt_value(v), "lo <= hi")
                return None
        return v if err is None else None

    # -- evaluate and roc: the public functions, then route by route -----------------------
    route_levels = set(rng.sample(range(len(alphas)), min(routes_at, len(alphas))))
    if extra in alphas:
        route_levels.add(alphas.index(extra))
    for i, lv in enumerate(alphas):
        if over():
            t.outcomes[("tree", "budget reached")] += 1
            break
        for api, fn, what in (("evaluate", ta.evaluate, "value"), ("roc", ta.roc, "roc")):
            src = fz._call_src(api, node, lv, dps)
            v = run(api, src, fn, f, lv.value, dps)
            if v is None:
                continue
            t.label(api, v)
            if v.is_certain:
                check_against_ref(t, rec, api, src, v, ref, what, lv.frac, dps)
                if i == len(alphas) // 2 or lv is extra:  # a second precision
                    src2 = fz._call_src(api, node, lv, dps + 30)
                    w = run(api, src2, fn, f, lv.value, dps + 30)
                    if w is not None:
                        check_second(t, api, src, v, w, "dps + 30")
            if i not in route_levels:  # every route, also where the public value estimates
                continue
            try:
                A = protocol.as_level(lv.value)
            except ta.TradeOffError:
                continue
            if not isinstance(A, sp.Rational):
                continue
            for name, route in _routes(f, A, dps, api == "roc"):
                rsrc = f"route {name}: {src}"
                w = run(f"{api}[{name}]", rsrc, route, route=True)
                if w is None:
                    continue
                t.routes[(f"{api}[{name}]", w.guarantee)] += 1
                if w.is_certain:
                    check_second(t, f"{api}[{name}]", rsrc, v, w, "public value")
                    check_against_ref(t, rec, f"{api}[{name}]", rsrc, w, ref, what, lv.frac,
                                      dps)
    # -- delta(eps) and epsilon(delta) ---------------------------------------------------------
    for e in case.eps:
        if over():
            break
        src = fz._call_src("delta", node, e, dps)
        d = run("delta", src, ta.delta, f, e.value, dps)
        if d is None:
            continue
        t.label("delta", d)
        if d.is_certain:
            E = e.exp_exact()
            if isinstance(ref, fz.Finite) and ref.exact and not ref.slack and E is not None:
                check_finite_delta(t, "delta", src, d, ref, E)
            else:
                check_against_ref(t, rec, "delta", src, d, ref, "delta", e, dps)
    for lv in case.deltas:
        if over():
            break
        src = fz._call_src("epsilon", node, lv, dps)
        v = run("epsilon", src, ta.epsilon, f, lv.value, dps)
        if v is None:
            continue
        t.label("epsilon", v)
        if v.is_certain:
            check_epsilon(t, rec, src, v, ref, lv.frac, dps)
    # -- Renyi divergences and KL -----------------------------------------------------------
    if not over():
        a = rng.choice(RENYI_ORDERS)
        if a == 1:
            api, src = "kl", f"ta.kl({node.src}, {dps})"
            v = run(api, src, ta.kl, f, dps)
        else:
            api, src = "renyi", f"ta.renyi({node.src}, {a}, {dps})"
            v = run(api, src, ta.renyi, f, a, dps)
        if v is not None:
            t.label(api, v)
            if v.is_certain:
                af = None if a is sp.oo else Fraction(int(sp.Rational(a).p),
                                                      int(sp.Rational(a).q))
                check_renyi(t, api, src, v, renyi_ref_for(f, ref), af, dps)
    for s in rec.violations:  # an exception other than a TradeOffError escaped
        t.violation(s["prop"], s["call"], s["observed"], s["expected"], s["detail"])
    t.seconds += time.perf_counter() - t0


def check_finite_delta(t: Tally, func: str, call: str, v: Value, ref, E: Fraction):
    """delta(eps) = sum (Q - e^eps P)_+ over the exact pair of a finite reference, e^eps
    rational: exact, tolerance-free. (The harness's delta_bounds sums in mpmath, and its error
    bound is relative to the result: delta(SymmetricHull(Mix(EpsDelta(log 5, 3/5), 1e-236)), 0)
    = 13/15 1e-236 cancels from masses near 1/2 and was "confirmed" wrong at 1100 digits.)"""
    try:
        with fz.ref_context(60, 20.0):
            P, Q = ref.pair()
            x = sum((q - E * p for p, q in zip(P, Q, strict=True) if q > E * p), F0)
        lo, hi = stated(v)
    except (fz.RefTimeout, fz.RefHardTimeout, fz.RefUnavailable):
        t.outcomes[(func, "skipped: reference unavailable")] += 1
        return
    except fz.HugeExponent:
        t.outcomes[(func, "skipped: exponent beyond 2^200000")] += 1
        return
    if lo <= x <= hi:
        t.outcomes[(func, "contained: exact reference")] += 1
    else:
        t.violation(f"{func}: certain value excludes the exact reference", call,
                    fz.fmt_value(v) + f" [{v.guarantee}]", fz.fmt(x, 25),
                    f"sum (Q - e^eps P)_+ over the exact pair of {ref}")


def check_epsilon(t, rec, call, v, ref, target: Fraction, dps: int):
    """eps* = inf{eps >= 0: delta(eps) <= target} lies in the stated [lo, hi] iff
    delta(hi) <= target and delta(lo) >= target (lo > 0; delta is continuous and
    non-increasing). Violation: the reference proves delta(hi) > target or delta(lo) <
    target, beyond its error bound (confirmed by fz.ref_verdict's stricter stages)."""
    func = "epsilon"
    if ref is None:
        t.outcomes[(func, "no reference")] += 1
        return
    try:
        lo, hi = stated(v)
    except fz.HugeExponent:
        t.outcomes[(func, "skipped: exponent beyond 2^200000")] += 1
        return
    decided = []
    for which, e_val in (("hi", hi), ("lo", lo)):
        if e_val is None or (which == "lo" and e_val <= 0):
            continue
        eN = fz.Num(None, fz.fmt(e_val, 30), e_val)
        seen = []
        if which == "hi":
            def bad(L, U, tol, seen=seen):
                seen.append((L, U, tol))
                return L - tol > target

            def good(L, U, tol):
                return U + tol <= target
        else:
            def bad(L, U, tol, seen=seen):
                seen.append((L, U, tol))
                return U + tol < target

            def good(L, U, tol):
                return L - tol >= target
        r = fz.ref_verdict(rec, ref, "delta", eN, dps, bad)
        if r is not None:
            L, U, note = r
            t.violation("epsilon: certain value excludes the reference", call,
                        fz.fmt_value(v) + f" [{v.guarantee}]",
                        f"delta(eps_{which}) {'<=' if which == 'hi' else '>='} {fz.fmt(target)}",
                        f"reference delta({fz.fmt(e_val)}) in [{fz.fmt(L)}, {fz.fmt(U)}] "
                        f"({ref}; {note})")
            return
        decided.append(bool(seen) and good(*seen[0]))
    if not decided:
        t.outcomes[(func, "skipped: nothing to check (0 or oo)")] += 1
    elif all(decided):
        t.outcomes[(func, "contained: reference profile")] += 1
    else:
        t.outcomes[(func, "skipped: reference cannot separate")] += 1


def run_trees(seeds, t: Tally, minutes: float | None = None, out: str | None = None):
    stop = None if minutes is None else time.time() + 60 * minutes
    for k, seed in enumerate(seeds):
        if stop is not None and time.time() > stop:
            break
        one = Tally()
        try:
            check_tree(seed, one)
        except Exception as e:  # noqa: BLE001  a harness failure is reported, not hidden
            one.violation("harness", f"seed {seed}", f"{type(e).__name__}: {e}"[:300], "")
        t.merge(one)
        if out and (k % 20 == 0 or one.violations):
            with open(out, "w") as fh:
                json.dump(t.as_json() | {"last_seed": seed}, fh)
    if out:
        with open(out, "w") as fh:
            json.dump(t.as_json(), fh)


def _assert_clean(t: Tally):
    print("\n" + t.report())
    assert not t.violations, "\n" + t.report()


@pytest.mark.slow
def test_guarantees_of_random_trees_ci():
    """The CI budget: CI_TREES seeded trees (module docstring); something must be checked."""
    t = Tally()
    run_trees(range(CI_SEED, CI_SEED + CI_TREES), t)
    _assert_clean(t)
    certain = sum(n for (f, g), n in t.labels.items() if g != "estimate")
    contained = sum(n for (f, o), n in t.outcomes.items() if o.startswith("contained"))
    assert certain > 0 and contained > 0, t.report()


def test_guarantees_long_run(request):
    """The long run: ``--guarantee-trees N`` trees from ``--guarantee-seed``."""
    n = request.config.getoption("--guarantee-trees")
    if not n:
        pytest.skip("the long run: pass --guarantee-trees N")
    seed = request.config.getoption("--guarantee-seed")
    t = Tally()
    run_trees(range(seed, seed + n), t, request.config.getoption("--guarantee-minutes"),
              request.config.getoption("--guarantee-out"))
    _assert_clean(t)


# -- the checker itself ------------------------------------------------------------------------
def test_stated_interval_and_disjointness_detection():
    """stated() is the Value's own claim, and a wrong certified value is caught."""
    v = ta.evaluate(G(1), R(1, 3), 20)
    assert v.guarantee == "certified" and v.is_point
    lo, hi = stated(v)
    assert hi - lo == 2 * abs(fz.to_frac(v.mid)) / 10**19
    t, rec = Tally(), fz.Recorder(limit=10)
    ref = fz.GaussRef(Fraction(1))
    check_against_ref(t, rec, "evaluate", "G(1) at 1/3", v, ref, "value", Fraction(1, 3), 20)
    assert t.outcomes[("evaluate", "contained: mpmath reference")] == 1 and not t.violations
    wrong = Value.point(v.mid * (1 + mpmath.mpf(10) ** -17), 20, guarantee="certified")
    check_against_ref(t, rec, "evaluate", "G(1) at 1/3 (moved)", wrong, ref, "value",
                      Fraction(1, 3), 20)
    assert len(t.violations) == 1
    ex = Value.from_exact(R(1, 3), 20)
    check_second(t, "evaluate", "exact vs exact", ex, Value.from_exact(R(1, 3) + R(1, 10**40),
                                                                       20), "test")
    assert len(t.violations) == 2


def test_finite_delta_reference_is_exact():
    """The case where the harness's mpmath delta cancelled (check_finite_delta)."""
    eps0, d0 = fz.n_log(Fraction(5)), fz.n_frac(Fraction(3, 5))
    p = Fraction(1, 10**236)
    ref = fz.ref_hull(fz.ref_mix(fz.EpsDeltaRef(eps0, d0), p), None)
    f = ta.SymmetricHull(ta.Mix(ta.EpsDelta(sp.log(5), R(3, 5)), R(1, 10**236)))
    v = ta.delta(f, 0, 15)
    assert v.exact == R(13, 15) / 10**236
    t = Tally()
    check_finite_delta(t, "delta", "reproducer", v, ref, Fraction(1))
    assert t.outcomes[("delta", "contained: exact reference")] == 1 and not t.violations
    moved = Value.from_exact(R(13, 15) / 10**236 * (1 + R(1, 10**30)), 15)
    check_finite_delta(t, "delta", "moved", moved, ref, Fraction(1))
    assert len(t.violations) == 1


@pytest.mark.parametrize("dps", [15, 30, 80])
def test_finite_delta_of_a_ratio_just_above_e_eps(dps):
    """Found by the long run: delta(Mix(Group(PiecewiseLinear(float knots).inverse(), 1),
    2/5), log 3) was exactly 0; an atom's likelihood ratio is 3 + 2e-16 and the exact table
    compared log-ratios negated at 53 bits (numeric.finite_tables). The true value is
    Q - 3 P of that atom, formed exactly here."""
    d = ta.Discrete([R(1, 4), R(3, 4)], [R(3, 4) + R(1, 10**20), R(1, 4) - R(1, 10**20)])
    v = ta.delta(d, sp.log(3), dps)
    assert v.is_certain and v.contains(R(1, 10**20)), v
    h = ta.PiecewiseLinear([(0.0, 1.0), (0.05, 0.7), (0.2, 0.4), (0.55, 0.2), (1.0, 0.0)])
    w = ta.delta(ta.Mix(h, R(2, 5)), sp.log(3), dps)
    x0, y0 = Fraction(0.05), Fraction(0.7)  # the first knot of the mixture, exactly
    truth = 1 - 3 * x0 - (Fraction(2, 5) * y0 + Fraction(3, 5) * (1 - x0))
    assert truth == Fraction(1, 90071992547409920)
    assert w.is_certain and w.contains(R(truth.numerator, truth.denominator)), w


def test_renyi_references_against_known_values():
    """The Renyi references meet textbook values: G_mu a mu^2/2 through a finite pair would
    not apply; randomized response D_a of the pair (e^e, 1)/(1 + e^e) by hand; Laplace KL
    mu + e^-mu - 1 and its order-2 value (2/3 e^mu + 1/3 e^-2mu, Mironov 2017, Prop. 6)."""
    with mp.workdps(60):
        E = mpmath.e
        P = [E / (1 + E), 1 / (1 + E)]
        Q = [1 / (1 + E), E / (1 + E)]
        ref2 = mpmath.log((E**2 + E**-1) / (1 + E))
        assert abs(_finite_renyi(P, Q, Fraction(2)) - ref2) < mpmath.mpf(10) ** -55
        assert _finite_renyi(P, Q, None) == 1 or abs(_finite_renyi(P, Q, None) - 1) < 1e-55
        mu = mp.mpf(3) / 2
        assert abs(_laplace_renyi(mu, 1) - (mu + mpmath.exp(-mu) - 1)) < mpmath.mpf(10) ** -55
        two = mpmath.log(mpmath.exp(mu) * 2 / 3 + mpmath.exp(-2 * mu) / 3)
        assert abs(_laplace_renyi(mu, Fraction(2)) - two) < mpmath.mpf(10) ** -55
        q = mpmath.quad(lambda x: mpmath.exp(-abs(x)) ** mp.mpf(0.5)
                        * mpmath.exp(-abs(x - mu)) ** mp.mpf(0.5) / 2, [-mp.inf, 0, mu, mp.inf])
        assert abs(_laplace_renyi(mu, Fraction(1, 2)) + 2 * mpmath.log(q)) < mpmath.mpf(10) ** -40


# =============================================================================================
# the sampled Gaussian's Renyi divergence: mpmath quadrature at high precision
# =============================================================================================
def _sampled_gaussian_quad(p, mu, a, inverse: bool, digits: int):
    """D_a(P || Q) (inverse: D_a(Q || P)) for Mix(G_mu, p) = T(N(0,1), (1-p) N(0,1) + p N(mu,1))
    by tanh-sinh quadrature of E_P[r^(1-a)] (E_P[r^a]), r = 1 - p + p e^{mu x - mu^2/2}, split
    at the bulk of the integrand; returns (value, error estimate)."""
    with mp.workdps(digits):
        P, M, A = (fz.to_m(x) for x in (p, mu, a))
        s = A if inverse else 1 - A

        def g(x):
            r = 1 - P + P * mpmath.exp(M * x - M * M / 2)
            return mpmath.npdf(x) * r ** s

        c = A * M if inverse else mp.zero  # the mass moves towards a mu under Q-weighting
        pts = [-mp.inf, c - 20, c - 5, c, c + 5, c + 20, mp.inf]
        v, err = mpmath.quad(g, pts, error=True)
        return mpmath.log(v) / (A - 1), abs(err / v / (A - 1))


@pytest.mark.parametrize("seed", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in (1, 2))])
def test_sampled_gaussian_renyi_against_quadrature(seed):
    """renyi(Mix(G(mu), p), a) and of its inverse (certified, Arb integration or the binomial
    sum) against mpmath quadrature at dps + 40 digits: the quadrature's error estimate and the
    difference of two quadrature precisions must be far below the claim's width (else the case
    is skipped and counted); then the value must lie inside the claim."""
    rng = random.Random(seed)
    dps = rng.choice([10, 15, 20])
    skipped = checked = 0
    for _ in range(4):
        p = Fraction(rng.randint(1, 99), 100)
        mu = Fraction(rng.randint(1, 30), 10)
        a = rng.choice([Fraction(2), Fraction(3), Fraction(3, 2), Fraction(1, 2),
                        Fraction(5, 4)])
        for inverse in (False, True):
            f = ta.Mix(G(R(mu.numerator, mu.denominator)), R(p.numerator, p.denominator))
            f = ta.Inverse(f) if inverse else f
            v = ta.renyi(f, R(a.numerator, a.denominator), dps)
            if not v.is_certain:
                continue
            lo, hi = stated(v)
            r1, e1 = _sampled_gaussian_quad(p, mu, a, inverse, dps + 40)
            r2, e2 = _sampled_gaussian_quad(p, mu, a, inverse, dps + 60)
            err = fz.to_frac(abs(r1 - r2) + e1 + e2 + abs(r2) * mpmath.mpf(10) ** -(dps + 30))
            x = fz.to_frac(r2)
            if 1000 * err > hi - lo:
                skipped += 1
                continue
            assert lo <= x - err and x + err <= hi, (str(f), a, fz.fmt_value(v), fz.fmt(x, 30))
            checked += 1
    assert checked >= 2, f"checked {checked}, skipped {skipped}"


# =============================================================================================
# Part 2: verify
# =============================================================================================
def _phi_inv_ref(t: Fraction, digits: int = 120):
    """Φ⁻¹(t) = -(upper quantile of t), Newton on the log of the smaller tail (fz)."""
    with mp.workdps(digits):
        a, ac = fz.lev(t)
        return -fz.upper_quantile(a, ac)


def _phi_ref(x: Fraction, digits: int = 120):
    with mp.workdps(digits):
        return mpmath.erfc(-fz.to_m(x) / mpmath.sqrt(2)) / 2


def _near(ref, rel: Fraction, side: int, digits: int) -> sp.Rational:
    """A rational within ``rel`` relative of ``ref`` below (side -1) or above (+1) it, with the
    mpmath reference's own error (10^-(digits - 10) relative) kept clear of the gap."""
    assert rel > Fraction(1, 10 ** (digits - 20)), "the margin must dwarf the reference error"
    x = sp.Rational(*to_rational(ref._mpf_))  # exact, at any exponent (Φ(-1000) = 1e-217151)
    return x + side * abs(x) * sp.Rational(rel.numerator, rel.denominator)


#: (expression, reference at 200 digits, decided at dps 30 with a 1e-21 margin): Φ, Φ⁻¹, exp
#: and log of extreme arguments. log(1 + 1e-40) is not decided at dps 30: verify encloses the
#: argument with dps + 20 = 50 digits, 40 of which cancel (test_verify_log1p_tiny_claims).
#: (Φ(-1000) = 2e-217151 works too, but SymPy takes ~20 s per claim on the 217151-digit
#: rational; Φ(-200) keeps the suite fast.)
def _extreme_cases():
    cases = []
    for t in (Fraction(1, 10**300), Fraction(1, 10**60), 1 - Fraction(1, 10**40),
              Fraction(1, 10**5000), Fraction(3, 10)):
        cases.append((PhiInv(R(t.numerator, t.denominator)), _phi_inv_ref(t, 200), True))
    for x in (Fraction(-40), Fraction(-200), Fraction(-3, 7), Fraction(38), Fraction(9, 1)):
        cases.append((Phi(R(x.numerator, x.denominator)), _phi_ref(x, 200), True))
    with mp.workdps(200):
        for k in (700, 10**5, -(10**5), -745):
            cases.append((sp.exp(sp.Integer(k)), mpmath.exp(k), True))
        for t in (Fraction(1, 10**300), 1 + Fraction(1, 10**40), Fraction(10**400)):
            cases.append((sp.log(R(t.numerator, t.denominator)), mpmath.log(fz.to_m(t)),
                          t != 1 + Fraction(1, 10**40)))
    return cases


# the ends of the range of margins: 1e-21 (~5-9 s) and 1e-45 (~10 s of CPU), in the slow run
@pytest.mark.slow
@pytest.mark.parametrize("margin_exp", [21, 45])
def test_verify_extreme_arguments_tiny_margins(margin_exp):
    """For x = Φ⁻¹(1e-300), Φ(-200), exp(1e5), log(1 + 1e-40), ...: with c a rational
    10^-m relative below x (m = 21 .. 45), ``x >= c`` and ``c <= x`` are true (never False) and
    ``x <= c`` false (never True); symmetrically above. With m = 21 at dps 30 the enclosures
    (50 digits) decide the well-conditioned ones: the true claims must be True and the false
    ones False."""
    rel = Fraction(1, 10**margin_exp)
    decided = total = 0
    for expr, ref, decides in _extreme_cases():
        below, above = _near(ref, rel, -1, 200), _near(ref, rel, +1, 200)
        for claim, truth in (((expr, ">=", below), True), ((below, "<=", expr), True),
                             ((expr, "<=", above), True), ((expr, "<=", below), False),
                             ((expr, ">=", above), False), ((above, "<=", expr), False)):
            st = ta.verify(*claim).status
            total += 1
            assert st is not (not truth), (claim, truth, st)
            if st is not None:
                assert st is truth
                decided += 1
            if margin_exp == 21 and decides:
                assert st is truth, (claim, truth, "undecided at a margin of 1e-21 and dps 30")
    if margin_exp == 45:
        assert decided < total, "45 digits cannot all be proved at dps 30"


def test_verify_phi_inv_of_exp_tail():
    """Φ⁻¹(e^-1000): the argument is itself an extreme closed form (4e-435); the quantile
    against the mpmath reference on the exact log tail, margins 1e-22 either side."""
    with mp.workdps(200):
        a = mpmath.exp(-1000)
        ref = -fz.upper_quantile(a, 1 - a)
    x = PhiInv(sp.exp(sp.Integer(-1000)))
    below, above = _near(ref, Fraction(1, 10**22), -1, 200), _near(ref, Fraction(1, 10**22), 1,
                                                                      200)
    assert ta.verify(x, ">=", below).status is True
    assert ta.verify(x, "<=", above).status is True
    assert ta.verify(x, "<=", below).status is False
    assert ta.verify(x, ">=", above).status is False


@pytest.mark.parametrize("k", [40, 60, 80])
def test_verify_log1p_tiny_claims(k):
    """log(1 + x) <= x and log(1 + x) >= x - x^2/2 for x = 10^-k: true by x^2/2 and x^3/3, a
    relative margin of 10^-k and 10^-2k (far below 1e-20): never False; the reverse claims
    false by those margins: never True."""
    x = R(1, 10**k)
    lhs = sp.log(1 + x)
    for claim, truth in (((lhs, "<=", x), True), ((lhs, ">=", x - x**2 / 2), True),
                         ((lhs, ">=", x), False), ((lhs, "<=", x - x**2 / 2), False)):
        for dps in (30, 60):
            st = ta.verify(*claim, dps=dps).status
            assert st is not (not truth), (claim, dps, st)
    # the first margin is x^2/2 absolute: decided once verify's enclosure of the argument
    # 1 + x (dps + 20 digits) resolves it, from dps = 2k on
    assert ta.verify(lhs, "<=", x, dps=2 * k).status is True
    assert ta.verify(lhs, ">=", x, dps=2 * k).status is False


def test_verify_exp_huge_and_tiny_against_each_other():
    """exp(1e5) * exp(-1e5) == 1 symbolically; exp(-1e5) >= 0 and exp(1e5) >= 10^43429 (true:
    log10 e^1e5 = 43429.448...), exp(1e5) <= 10^43429 false; exp(-1e5) <= 10^-43430 false
    (10^-43429.448 > 10^-43430)."""
    big, tiny = sp.exp(sp.Integer(10**5)), sp.exp(-sp.Integer(10**5))
    assert ta.verify(big * tiny, "==", 1).status is True
    assert ta.verify(tiny, ">=", 0).status is True
    assert ta.verify(big, ">=", sp.Integer(10) ** 43429).status is True
    assert ta.verify(big, "<=", sp.Integer(10) ** 43429).status is False
    assert ta.verify(tiny, "<=", sp.Integer(10) ** -43430).status is False
    assert ta.verify(tiny, ">=", sp.Integer(10) ** -43430).status is True


# -- boxes and the symbols' assumptions ---------------------------------------------------------
ASSUMPTIONS = [("positive", sp.Interval.open(0, sp.oo)), ("nonnegative", sp.Interval(0, sp.oo)),
               ("negative", sp.Interval.open(-sp.oo, 0)),
               ("nonpositive", sp.Interval(-sp.oo, 0)), (None, sp.S.Reals)]


@pytest.mark.parametrize("seed", range(4))
def test_boxes_against_assumptions(seed):
    """Random boxes for symbols with assumptions: a box the assumptions exclude entirely is
    refused with InvalidParameter naming the symbol; any other is clipped to them (shown in
    ``verdict.over``), and a claim true on the domain (``x >= 0`` for a positive x, ...) is
    never False over a box reaching outside it, nor is a counterexample outside the domain."""
    rng = random.Random(seed)
    ends = [-sp.oo, -5, -1, R(-1, 10**30), 0, R(1, 10**30), 1, 5, sp.oo]
    for _ in range(25):
        name, dom = rng.choice(ASSUMPTIONS)
        x = sp.Symbol(f"x{rng.randint(0, 9)}", **({name: True} if name else {}))
        lo, hi = sorted(rng.sample(range(len(ends)), 2))
        box = (ends[lo], ends[hi])
        claim = (x, ">=", 0) if name in ("positive", "nonnegative") else (x, "<=", 0) \
            if name else (x**2, ">=", 0)
        inner = sp.Interval(*box).intersect(dom)
        key = rng.choice([x, x.name])
        if inner is sp.S.EmptySet or (isinstance(inner, sp.Interval) and inner.measure == 0
                                      and not inner.contains(inner.start)):
            with pytest.raises(InvalidParameter, match=x.name):
                ta.verify(*claim, over={key: box})
            continue
        if isinstance(inner, sp.FiniteSet):  # one admissible point: refused or clipped to it
            try:
                v = ta.verify(*claim, over={key: box})
            except InvalidParameter as exc:
                assert x.name in str(exc)
                continue
            (pt,) = inner
            assert v.over[x] == (pt, pt) and v.status is not False
            continue
        v = ta.verify(*claim, over={key: box})
        assert v.status is not False, (x, name, box, v.evidence)
        assert v.over[x] == (inner.start, inner.end), (box, v.over)
        # a false claim over the clipped box: the counterexample lies inside the domain
        if name in ("positive", "nonnegative") and inner.end.is_finite:
            w = ta.verify(x, "<=", inner.start - 1, over={key: box})
            assert w.status is not True
            if w.status is False and w.counterexample and x.name in w.counterexample:
                assert dom.contains(sp.sympify(w.counterexample[x.name]))


@pytest.mark.parametrize("box", [(float("nan"), 1), (0, float("nan")), (sp.nan, 1),
                                 (1, sp.zoo), (2, 1), (sp.oo, sp.oo), (-sp.oo, -sp.oo),
                                 (float("inf"), float("inf")), (sp.Rational(1, 2),),
                                 (1, 2, 3)])
def test_bad_boxes_refused(box):
    x = sp.Symbol("x")
    with pytest.raises(InvalidParameter):
        ta.verify(x, ">=", -1, over={x: box})


def test_unbounded_boxes_allowed():
    x = sp.Symbol("x", real=True)
    v = ta.verify(x**2, ">=", 0, over={x: (-sp.oo, sp.oo)})
    assert v.status is True
    w = ta.verify(x, ">=", 0, over={x: (float("-inf"), 1)})
    assert w.status is False and w.counterexample is not None


_NAN = mpmath.mpf("nan")


def test_a_value_without_a_number_cannot_be_built():
    """A Value with a NaN end is refused where it is made, so no such side reaches verify."""
    for ends in ((_NAN, _NAN, _NAN), (mpmath.mpf(0), _NAN, mpmath.mpf(0))):
        with pytest.raises(InvalidParameter):
            Value(*ends, 10, guarantee="certified")


def _empty_value():
    try:
        return Value(mpmath.mpf(2), mpmath.mpf(1), mpmath.mpf(1), 10, guarantee="certified")
    except InvalidParameter:
        return float("nan")  # refused where it is made: the NaN case stands in for it


@pytest.mark.parametrize("bad", [float("nan"), sp.nan, sp.zoo, mpmath.mpf("nan"),
                                 _empty_value()])
def test_nan_and_empty_sides_refused(bad):
    """A side that is NaN, or a Value with a NaN end or lo > hi (no number), is refused."""
    with pytest.raises(InvalidParameter):
        ta.verify(bad, "<=", 1)
    with pytest.raises(InvalidParameter):
        ta.verify(0, "<=", bad)


@pytest.mark.parametrize("inf, sign", [(float("inf"), 1), (float("-inf"), -1),
                                       (sp.oo, 1), (-sp.oo, -1), (mpmath.inf, 1),
                                       (-mpmath.inf, -1)])
def test_infinite_sides_are_infinite(inf, sign):
    """``oo`` is allowed as a side and means +oo in every spelling: a float infinity was read
    as sp.Rational(inf) = 0, so ``verify(float('inf'), '<=', 1)`` held."""
    for c in (1, -1, 10**400, -(10**400)):
        le, ge = ta.verify(inf, "<=", c).status, ta.verify(inf, ">=", c).status
        assert (le, ge) == ((False, True) if sign > 0 else (True, False)), (inf, c, le, ge)
        assert ta.verify(inf, "==", c).status is False


# -- estimates never decide ----------------------------------------------------------------------
def _estimates():
    out = [ta.kl(C(R(1, 3), Laplace(1)), dps=20, estimate=True),
           ta.kl(ta.Mix(Laplace(2), R(1, 2)), dps=15, estimate=True),
           ta.evaluate(ta.GaussianMixturePair([R(1, 2), R(1, 2)], [0, 0], [0, 2]), R(1, 20),
                       dps=20)]
    try:
        out.append(ta.renyi(C(R(1, 2), Laplace(1)), 2, 15, estimate=True))
    except ta.TradeOffError:
        pass
    return out


def test_estimates_never_decide():
    """Estimates against numbers far on either side, against each other and against
    themselves: never True, never False (the claims' truth is plain: KL and a trade-off value
    lie in [0, 10])."""
    ests = _estimates()
    assert len(ests) >= 3
    for est in ests:
        assert est.guarantee == "estimate", est
        assert 0 <= est.mid <= 10
        for claim in ((est, "<=", 100), (est, ">=", -100), (est, ">=", 100), (est, "<=", -100),
                      (est, "==", est), (100, ">=", est), (est, "<=", sp.oo)):
            v = ta.verify(*claim)
            assert v.status is None, (claim, v.status, v.evidence)
        for other in ests:
            assert ta.verify(est, "<=", other).status is None


def test_estimate_labels_kept_through_the_public_functions():
    """kl/renyi with estimate=True are estimates; without it a certified route or a refusal."""
    f = C(R(1, 3), Laplace(1))
    assert ta.kl(f, 15, estimate=True).guarantee == "estimate"
    with pytest.raises(ta.NoClosedForm):
        ta.kl(f, 15)
    g = ta.kl(G(2), 15)
    assert g.is_certain and g.contains(2)
    assert ta.verify(g, "==", 2).status in (True, None)
    assert ta.verify(g, ">=", R(3, 2)).status is True
    assert not math.isnan(float(g))
