"""Random expression trees over every family and operator of tradeoff_algebra, with independent
references, for the property-based suite (tests/test_fuzz_trees.py) and a large-budget run.

Layout
------
* Parameters (:class:`Num`, :class:`Level`) keep what is handed to the library (a Python int,
  float, SymPy Rational, ``sp.log(r)`` or a decimal string), a Python source string for the
  reproducer and the exact rational value (floats at their binary value).
* One tree builder, ``build_case(chooser)``, drives both hypothesis (``cases()``, a
  ``DrawChooser`` around ``draw``) and the seeded loop of the big run (``random_case(seed)``, a
  ``RandomChooser``): the same trees, the same references, the same checks.
* References (:class:`Ref` and subclasses, shared with the family suite in
  ``tests/references/``) never call the library. Each node gets the best one available:
  exact rationals for finite objects (Neyman--Pearson on the pair, products and powers of
  pairs, exact piecewise-linear operator algebra), mpmath closed forms for G_mu
  (Phi(PhiInv(1 - alpha) - mu), Gaussian products G_sqrt(sum mu^2)), f_{eps,delta} (Eq. (4)),
  f_{eps,0}^{(x)n} (binomial pair, Kairouz et al.), Laplace and a Gaussian times a finite pair
  (likelihood-ratio threshold solved on erfc sums), the operator references of
  tests/operator_reference.py (Mix, inverse, group, maximum, Eq. (13) for C_p of symmetric
  operands) and, where nothing closed exists, one-sided rigorous bounds (a tensor lies below each
  factor; a convex hull lies below the lower hull of sampled points of both branches).
  Every reference returns bounds (L, U); L == U for point references.
* A violation found against an mpmath reference is re-checked at about three times the precision
  with the strict references of tests/reference_np.py (gauss_np, laplace_np); it is reported
  only when it persists and the two reference runs agree (otherwise counted as ``ref_unstable``).
* :func:`check_case` runs every API call under a wall-clock alarm, times it, and records
  allowed errors (TradeOffError), slow calls, timeouts and violations in a :class:`Recorder`.

Standalone (the big run; results as JSON lines, one per tree)::

    python tests/fuzz_trees.py run --trees 10000 --seed 1 --workers 2 --out /tmp/fuzz_run
    python tests/fuzz_trees.py summary /tmp/fuzz_run
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import reference_np as rnp
import sympy as sp
from mpmath import mp
from references.base import (  # noqa: F401  (names used by the tests through fz)
    F0,
    F1,
    MAX_EXACT_EXP,
    HugeExponent,
    Num,
    Ref,
    RefHardTimeout,
    RefTimeout,
    RefUnavailable,
    _in_main_thread,
    _tick,
    lev,
    n_float,
    n_frac,
    n_int,
    n_log,
    n_rat,
    ref_context,
    strict,
    to_frac,
    to_m,
)
from references.finite import (  # noqa: F401
    EpsDeltaRef,
    Finite,
    binomial_pair,
    id_ref,
    np_knots,
    pair_from_knots,
    pair_power,
    pair_product,
    pl_group,
    pl_max,
    pl_power,
    pl_value,
    zero_ref,
)
from references.gauss import GaussFiniteRef, GaussRef, LaplaceRef, upper_quantile  # noqa: F401
from references.operators import (  # noqa: F401
    Func,
    _side_fn,
    hull_upper,
    ref_group,
    ref_hull,
    ref_inverse,
    ref_max,
    ref_mix,
    ref_power,
    ref_symmetrize,
    ref_tensor,
)

import tradeoff_algebra as ta
from tradeoff_algebra import (
    BinomialDP,
    C,
    Discrete,
    EpsDelta,
    G,
    Group,
    Id,
    Inverse,
    Laplace,
    Max,
    Mix,
    PiecewiseLinear,
    ShuffleDP,
    Subsample,
    SymmetricHull,
    Symmetrize,
    Tensor,
    TensorPower,
    Zero,
)
from tradeoff_algebra.core.errors import TradeOffError

R = sp.Rational

#: Calls slower than this are reported as slow.
SLOW_SECONDS = 10.0



def dec_exp(v: Fraction) -> int:
    """floor(log10 |v|) exactly, v != 0."""
    v = abs(v)
    e = len(str(v.numerator)) - len(str(v.denominator))
    while Fraction(10) ** e > v:
        e -= 1
    while Fraction(10) ** (e + 1) <= v:
        e += 1
    return e


def ulp(v: Fraction, digits: int) -> Fraction:
    """One unit in the ``digits``-th significant decimal digit of v (0 for v = 0)."""
    if v == 0:
        return F0
    return Fraction(10) ** (dec_exp(v) - digits + 1)


def round_dec(v: Fraction, digits: int) -> Fraction:
    """v rounded to ``digits`` significant decimal digits (half to even), exactly."""
    if v == 0:
        return F0
    scale = Fraction(10) ** (dec_exp(v) - digits + 1)
    return round(v / scale) * scale


def fmt(x, n: int = 20) -> str:
    if x is None:
        return "None"
    if isinstance(x, Fraction):
        if x.denominator < 10**12 and x.numerator < 10**15:
            return str(x)
        with mp.workdps(max(n + 5, 30)):
            return mpmath.nstr(to_m(x), n)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, n)
    return str(x)


def fmt_value(v) -> str:
    if v is None:
        return "None"
    if getattr(v, "exact", None) is not None:
        return f"exact={fmt(to_frac(v.exact))}"
    if v.lo == v.hi:
        return f"point {mpmath.nstr(v.mid, v.dps + 2)} (dps={v.dps})"
    return f"[{mpmath.nstr(v.lo, 20)}, {mpmath.nstr(v.hi, 20)}] (dps={v.dps})"



@dataclass(frozen=True)
class Level:
    """A type-I level (or a delta for ta.epsilon): ``value`` for the library, ``frac`` exact."""

    value: Any
    src: str
    frac: Fraction

    def __repr__(self):
        return self.src


def lv_frac(fr: Fraction) -> Level:
    if fr.denominator == 1:
        return Level(int(fr), str(int(fr)), fr)
    return Level(R(fr.numerator, fr.denominator), f"R({fr.numerator}, {fr.denominator})", fr)


def lv_float(x: float) -> Level:
    return Level(float(x), repr(float(x)), Fraction(float(x)))


def lv_str(s: str) -> Level:
    return Level(s, repr(s), Fraction(s))


# =============================================================================================
# choosers: one builder for hypothesis and for the seeded loop
# =============================================================================================
class RandomChooser:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def real(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)


class DrawChooser:
    def __init__(self, draw):
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def real(self, lo: float, hi: float) -> float:
        return self.draw(self.st.floats(lo, hi, allow_nan=False, allow_infinity=False))


def pick(ch, seq):
    return seq[ch.integer(0, len(seq) - 1)]


def weighted(ch, items):
    """items: [(weight:int, value)], the first item being the simplest (hypothesis shrinks
    towards it)."""
    total = sum(w for w, _ in items)
    k = ch.integer(0, total - 1)
    for w, v in items:
        if k < w:
            return v
        k -= w
    raise AssertionError


def gen_mu(ch) -> Num:
    kind = ch.integer(0, 8)
    if kind == 0:
        return n_rat(ch.integer(0, 30), 10)
    if kind == 1:
        return n_int(0)
    if kind == 2:
        return n_float(ch.real(0.0, 5.0))
    if kind == 3:
        return n_float(ch.real(0.0, 40.0))
    if kind == 4:
        return n_int(ch.integer(1, 40))
    if kind == 5:
        return n_int(40)
    if kind == 6:
        return n_rat(1, 10 ** ch.integer(1, 30))
    if kind == 7:
        return n_float(10.0 ** -ch.integer(1, 300))
    return n_rat(ch.integer(1, 400), ch.integer(1, 40))


def gen_eps(ch, hi: int = 50) -> Num:
    kind = ch.integer(0, 8)
    if kind == 0:
        return n_log(Fraction(ch.integer(10, 40), 10))
    if kind == 1:
        return n_int(0)
    if kind == 2:
        return n_rat(ch.integer(1, 30), 10)
    if kind == 3:
        return n_float(ch.real(0.0, float(hi)))
    if kind == 4:
        return n_int(hi)
    if kind == 5:
        return n_log(Fraction(ch.integer(2, 9), ch.integer(1, 2)))
    if kind == 6:
        return n_float(ch.real(0.0, 3.0))
    if kind == 7:
        return n_rat(1, 10 ** ch.integer(1, 30))
    return n_int(ch.integer(1, hi))


def gen_prob(ch) -> Num:
    """delta or p in [0, 1], extremes near 0 and 1 included."""
    kind = ch.integer(0, 9)
    if kind == 0:
        return n_rat(ch.integer(0, 10), 10)
    if kind == 1:
        return n_int(0)
    if kind == 2:
        return n_int(1)
    if kind == 3:
        return n_rat(1, 10 ** ch.integer(1, 300))
    if kind == 4:
        k = 10 ** ch.integer(1, 30)
        return n_rat(k - 1, k)
    if kind == 5:
        return n_float(ch.real(0.0, 1.0))
    if kind == 6:
        return n_float(10.0 ** -ch.integer(1, 300))
    if kind == 7:
        return n_float(1 - 10.0 ** -ch.integer(1, 15))
    if kind == 8:
        return n_rat(ch.integer(0, 100), 100)
    return n_rat(ch.integer(1, 6), ch.integer(6, 12))


def gen_level(ch) -> Level:
    kind = ch.integer(0, 8)
    if kind == 0:
        return lv_frac(Fraction(ch.integer(1, 99), 100))
    if kind == 1:
        return lv_frac(F0)
    if kind == 2:
        return lv_frac(F1)
    if kind == 3:
        return lv_str("1e-300")
    if kind == 4:
        return lv_frac(1 - Fraction(1, 10**20))
    if kind == 5:
        return lv_float(ch.real(0.0, 1.0))
    if kind == 6:
        return lv_float(10.0 ** -ch.integer(1, 300))
    if kind == 7:
        q = ch.integer(2, 10**6)
        return lv_frac(Fraction(ch.integer(1, q - 1), q))
    return lv_frac(Fraction(1, 10 ** ch.integer(2, 40)))


def gen_interior(ch) -> Level:
    if ch.integer(0, 1):
        q = ch.integer(2, 1000)
        return lv_frac(Fraction(ch.integer(1, q - 1), q))
    return lv_float(ch.real(0.001, 0.999))


def gen_pair(ch, kmax: int = 5):
    """A random finite pair (P, Q) of Fractions on k <= kmax atoms (zeros included)."""
    k = ch.integer(1, kmax)
    while True:
        wp = [ch.integer(0, 9) for _ in range(k)]
        wq = [ch.integer(0, 9) for _ in range(k)]
        if sum(wp) and sum(wq):
            break
        k = max(k, 2)
        if not sum(wp):
            wp[0] = 1
        if not sum(wq):
            wq[-1] = 1
        break
    sp_, sq = sum(wp), sum(wq)
    return [Fraction(w, sp_) for w in wp], [Fraction(w, sq) for w in wq]


# trees
# =============================================================================================
@dataclass
class Node:
    expr: Any  # the library expression
    src: str  # Python source building it
    ref: Ref | None
    depth: int = 0
    size: int = 1

    def __repr__(self):
        return self.src


def _src_list(xs):
    return "[" + ", ".join(xs) + "]"


def leaf(ch) -> Node:
    kind = weighted(ch, [(3, "G"), (3, "EpsDelta"), (2, "Laplace"), (1, "Id"), (1, "Zero"),
                         (2, "PL"), (2, "Discrete"), (2, "BinomialDP"), (2, "ShuffleDP")])
    if kind == "G":
        mu = gen_mu(ch)
        name = pick(ch, ["G", "Gaussian"])
        return Node(G(mu.value), f"{name}({mu})", GaussRef(mu.frac ** 2, f"G({mu})"))
    if kind == "EpsDelta":
        eps, d = gen_eps(ch), gen_prob(ch)
        return Node(EpsDelta(eps.value, d.value), f"EpsDelta({eps}, {d})", EpsDeltaRef(eps, d))
    if kind == "Laplace":
        mu = gen_mu(ch)
        return Node(Laplace(mu.value), f"Laplace({mu})", LaplaceRef(mu))
    if kind == "Id":
        return Node(Id, "Id", id_ref())
    if kind == "Zero":
        return Node(Zero, "Zero", zero_ref())
    if kind == "PL":
        P, Q = gen_pair(ch)
        knots = [(x, y) for x, y, _ in np_knots(P, Q, True)]
        if ch.integer(0, 3) == 0:  # floats, at their binary values
            fk = [(float(x), float(y)) for x, y in knots]
            fk[0] = (0.0, fk[0][1])
            fk[-1] = (1.0, 0.0)
            if all(b[0] > a[0] for a, b in zip(fk, fk[1:], strict=False)):
                try:
                    e = PiecewiseLinear(fk)
                    ex = [(Fraction(x), Fraction(y)) for x, y in fk]
                    return Node(e, f"PiecewiseLinear({fk!r})",
                                Finite(True, lambda: ex, "knots", label="PL(float)"))
                except TradeOffError:
                    pass
        e = PiecewiseLinear([(R(x.numerator, x.denominator), R(y.numerator, y.denominator))
                             for x, y in knots])
        src = "PiecewiseLinear(" + _src_list(
            f"({n_frac(x)}, {n_frac(y)})" for x, y in knots) + ")"
        return Node(e, src, Finite(True, lambda: knots, "knots", label="PL"))
    if kind == "Discrete":
        P, Q = gen_pair(ch)
        if ch.integer(0, 3) == 0:
            fP, fQ = [float(x) for x in P], [float(x) for x in Q]
            try:
                e = Discrete(fP, fQ)
                eP = [Fraction(x) for x in fP]
                eQ = [Fraction(x) for x in fQ]
                sP, sQ = sum(eP), sum(eQ)
                eP, eQ = [x / sP for x in eP], [x / sQ for x in eQ]
                # the library rounds the knots of float input to 15 digits (documented)
                return Node(e, f"Discrete({fP!r}, {fQ!r})",
                            Finite(True, lambda: (eP, eQ), "pair", slack=Fraction(1, 10**13),
                                   label="Discrete(float)"))
            except TradeOffError:
                pass
        e = Discrete([R(x.numerator, x.denominator) for x in P],
                     [R(x.numerator, x.denominator) for x in Q])
        src = f"Discrete({_src_list(str(n_frac(x)) for x in P)}, " \
              f"{_src_list(str(n_frac(x)) for x in Q)})"
        return Node(e, src, Finite(True, lambda: (P, Q), "pair", label="Discrete"))
    if kind == "BinomialDP":
        eps = gen_eps(ch)
        n = pick(ch, [0, 1, 2, 3, 5, 10, 50, 200, ch.integer(0, 200)])
        E = eps.exp_exact()
        ref = Finite(E is not None,
                     lambda: binomial_pair(E if E is not None else eps.exp_m(), n, E is not None),
                     "pair", sym=True, label=f"BinomialDP({eps}, {n})")
        return Node(BinomialDP(eps.value, n), f"BinomialDP({eps}, {n})", ref)
    eps = gen_eps(ch, hi=pick(ch, [5, 50]))
    n = pick(ch, [1, 2, 3, 5, 20, ch.integer(1, 20)])
    E = eps.exp_exact()

    def make():
        _, P, Q = rnp.literal_pair(E if E is not None else eps.exp_m(), n)
        return P, Q
    return Node(ShuffleDP(eps.value, n), f"ShuffleDP({eps}, {n})",
                Finite(E is not None, make, "pair", sym=True, label=f"ShuffleDP({eps}, {n})"))


OPERATORS = [(3, "Tensor"), (2, "TensorPower"), (2, "Inverse"), (2, "Subsample"), (2, "Mix"),
             (2, "Symmetrize"), (2, "SymmetricHull"), (2, "Max"), (2, "Group")]


def _safe(fn, *args):
    try:
        return fn(*args)
    except (RefUnavailable, RefTimeout):
        return None


def tree(ch, depth: int, top: bool = False) -> Node:
    leaf_prob = 0 if depth <= 0 else (15 if top else 40)
    if depth <= 0 or ch.integer(0, 99) < leaf_prob:
        return leaf(ch)
    op = weighted(ch, OPERATORS)
    if op in ("Tensor", "Max"):
        kids = [tree(ch, depth - 1) for _ in range(ch.integer(2, 3))]
        exprs = [k.expr for k in kids]
        if op == "Tensor":
            if ch.integer(0, 1):
                e, src = Tensor(*exprs), "Tensor(" + ", ".join(k.src for k in kids) + ")"
            else:
                e = exprs[0]
                for x in exprs[1:]:
                    e = e @ x
                src = "(" + " @ ".join(k.src for k in kids) + ")"
            ref = None if any(k.ref is None for k in kids) else \
                _safe(ref_tensor, [k.ref for k in kids])
        else:
            e, src = Max(*exprs), "Max(" + ", ".join(k.src for k in kids) + ")"
            ref = None if any(k.ref is None for k in kids) else ref_max([k.ref for k in kids])
        return Node(e, src, ref, 1 + max(k.depth for k in kids), 1 + sum(k.size for k in kids))
    kid = tree(ch, depth - 1)
    r = kid.ref
    if op == "TensorPower":
        n = pick(ch, [0, 1, 2, 3, 5, 20, ch.integer(0, 20)])
        if ch.integer(0, 1):
            e, src = kid.expr ** n, f"({kid.src}) ** {n}"
        else:
            e, src = TensorPower(kid.expr, n), f"TensorPower({kid.src}, {n})"
        ref = None if r is None else _safe(ref_power, r, n)
    elif op == "Inverse":
        if ch.integer(0, 1):
            e, src = Inverse(kid.expr), f"Inverse({kid.src})"
        else:
            e, src = kid.expr.inverse(), f"({kid.src}).inverse()"
        ref = None if r is None else ref_inverse(r)
    elif op == "Subsample":
        p = gen_prob(ch)
        if ch.integer(0, 1):
            e, src = C(p.value, kid.expr), f"C({p}, {kid.src})"
        else:
            e, src = Subsample(kid.expr, p.value), f"Subsample({kid.src}, {p})"
        ref = None if r is None else ref_hull(r, p.frac)
    elif op == "Mix":
        p = gen_prob(ch)
        e, src = Mix(kid.expr, p.value), f"Mix({kid.src}, {p})"
        ref = None if r is None else ref_mix(r, p.frac)
    elif op == "Symmetrize":
        e, src = Symmetrize(kid.expr), f"Symmetrize({kid.src})"
        ref = None if r is None else ref_symmetrize(r)
    elif op == "SymmetricHull":
        e, src = SymmetricHull(kid.expr), f"SymmetricHull({kid.src})"
        ref = None if r is None else ref_hull(r, None)
    else:
        k = pick(ch, [1, 2, 3, 4])
        e, src = Group(kid.expr, k), f"Group({kid.src}, {k})"
        ref = None if r is None else ref_group(r, k)
    return Node(e, src, ref, kid.depth + 1, kid.size + 1)


@dataclass
class Case:
    node: Node
    alphas: list  # Levels, sorted by value, distinct
    dps: int
    eps: list  # Nums for ta.delta
    deltas: list  # Levels for ta.epsilon
    seed: Any = None

    def __repr__(self):
        return (f"Case({self.node.src}, alphas={self.alphas}, dps={self.dps}, eps={self.eps}, "
                f"deltas={self.deltas})")


MAX_DEPTH = int(os.environ.get("TA_FUZZ_DEPTH", "3"))


def build_case(ch, max_depth: int | None = None) -> Case:
    node = tree(ch, MAX_DEPTH if max_depth is None else max_depth, top=True)
    levels = [gen_interior(ch), gen_interior(ch), gen_level(ch), gen_level(ch)]
    if ch.integer(0, 1):
        levels.append(gen_level(ch))
    seen, alphas = set(), []
    for lv in sorted(levels, key=lambda l: l.frac):
        if lv.frac not in seen:
            seen.add(lv.frac)
            alphas.append(lv)
    dps = weighted(ch, [(4, 30), (3, 15), (2, 50), (1, 80)])
    eps = []
    for _ in range(2):
        k = ch.integer(0, 5)
        eps.append([n_int(0), n_rat(ch.integer(1, 50), 10), n_float(ch.real(0.0, 50.0)),
                    n_int(50), n_rat(1, 1000), n_log(Fraction(ch.integer(11, 40), 10))][k])
    k = ch.integer(0, 5)
    deltas = [[lv_frac(Fraction(1, 10**5)), lv_frac(Fraction(1, 10 ** ch.integer(1, 300))),
               lv_frac(Fraction(ch.integer(0, 100), 100)), lv_frac(F0), lv_frac(F1),
               lv_float(ch.real(0.0, 1.0))][k]]
    return Case(node, alphas, dps, eps, deltas)


def random_case(seed: int, max_depth: int | None = None) -> Case:
    c = build_case(RandomChooser(random.Random(seed)), max_depth)
    c.seed = seed
    return c


def cases(max_depth: int | None = None):
    """The hypothesis strategy of cases (same builder as the seeded loop)."""
    from hypothesis import strategies as st

    @st.composite
    def _cases(draw):
        return build_case(DrawChooser(draw), max_depth)

    return _cases()


# =============================================================================================
# running calls: timing, alarms, errors
# =============================================================================================
class CallTimeout(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` swallows it."""


def _alarm(signum, frame):
    raise CallTimeout()


_TRACE = os.environ.get("TA_FUZZ_TRACE") == "1"

#: The hard alarm fires this long after the cooperative limit.
HARD_EXTRA = float(os.environ.get("TA_FUZZ_HARD_EXTRA", "20"))
TimeLimitExceeded = getattr(ta, "TimeLimitExceeded", CallTimeout)


@dataclass
class Recorder:
    trees: int = 0
    points: int = 0
    calls: Counter = field(default_factory=Counter)
    call_time: Counter = field(default_factory=Counter)
    allowed: Counter = field(default_factory=Counter)  # (api, error type, message head)
    violations: list = field(default_factory=list)
    slow: list = field(default_factory=list)
    timeouts: list = field(default_factory=list)
    ref_stats: Counter = field(default_factory=Counter)
    unstable: list = field(default_factory=list)
    ref_time: float = 0.0
    checks: Counter = field(default_factory=Counter)
    limit: float = 60.0  # time limit per call (s)
    call_cpu: Counter = field(default_factory=Counter)
    abandoned: bool = False  # two timeouts in this tree: skip its remaining calls
    skipped: int = 0
    ref_seconds: float = 30.0  # budget per reference computation
    deep: bool = True  # stage-2 re-verification of reference violations

    def violation(self, prop: str, call: str, observed: str, expected: str, detail: str = "",
                  **extra):
        self.violations.append(dict(prop=prop, call=call, observed=observed, expected=expected,
                                    detail=detail, **extra))

    def run(self, api: str, call_src: str, fn, *args):
        """(result, error) with error None, 'timeout' or the exception; records everything.

        The call runs under ``ta.time_limit(limit)`` (the library's cooperative deadline, which
        raises TimeLimitExceeded) and, as a backstop, a SIGALRM at limit + HARD_EXTRA seconds
        (a CallTimeout, BaseException). Both count as timeouts, the second as a hard one."""
        self.calls[api] += 1
        if _TRACE:
            print(f"[call] {call_src}", file=sys.stderr, flush=True)
        if self.abandoned:
            self.skipped += 1
            return None, "skipped"
        use_alarm = _in_main_thread() and self.limit
        if use_alarm:
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, self.limit + HARD_EXTRA)
        tl = getattr(ta, "time_limit", None)
        t0, c0 = time.perf_counter(), time.process_time()
        res, err, hard = None, None, False
        try:
            if tl is not None and self.limit:
                with tl(self.limit):
                    res = fn(*args)
            else:
                res = fn(*args)
        except CallTimeout:
            err, hard = "timeout", True
        except KeyboardInterrupt:
            raise
        except TimeLimitExceeded:
            err = "timeout"
        except TradeOffError as e:
            err = e
            head = str(e).split(";")[0][:90]
            self.allowed[(api, type(e).__name__, _generalise(head))] += 1
        except Exception as e:  # noqa: BLE001
            err = e
            tb = traceback.extract_tb(e.__traceback__)
            where = [f"{os.path.relpath(fr.filename, _PKG_ROOT) if fr.filename.startswith(_PKG_ROOT) else os.path.basename(fr.filename)}:{fr.lineno} {fr.name}"  # noqa: E501
                     for fr in tb]
            lib = [w for w in where if w.startswith("tradeoff_algebra")]
            self.violation("d:unexpected-exception", call_src, f"{type(e).__name__}: {e}"[:300],
                           "a value or a TradeOffError", detail=" <- ".join(reversed(lib[-4:]))
                           or " <- ".join(reversed(where[-3:])))
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        self.call_time[api] += dt
        self.call_cpu[api] += cpu
        if err == "timeout":
            self.timeouts.append(dict(call=call_src, seconds=round(dt, 1), cpu=round(cpu, 1),
                                      hard=hard))
            if len(self.timeouts) >= 2:
                self.abandoned = True
        elif dt > SLOW_SECONDS:
            self.slow.append(dict(call=call_src, seconds=round(dt, 1), cpu=round(cpu, 1)))
        return res, err

    def summary(self) -> str:
        lines = [f"trees {self.trees}, points {self.points}, calls {sum(self.calls.values())}"]
        for v in self.violations:
            lines.append(f"[{v['prop']}] {v['call']}\n    observed: {v['observed']}\n"
                         f"    expected: {v['expected']}\n    {v['detail']}")
        for s in self.slow:
            lines.append(f"[slow {s['seconds']} s] {s['call']}")
        for s in self.timeouts:
            lines.append(f"[timeout >{s['seconds']} s] {s['call']}")
        return "\n".join(lines)


_PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(ta.__file__)))


def _generalise(msg: str) -> str:
    import re

    return re.sub(r"[-+]?\d[\d.e+-]*", "#", msg)


# =============================================================================================
# claims and comparisons
# =============================================================================================
def claim(v) -> tuple[Fraction, Fraction]:
    """The interval a Value asserts to contain the truth: the exact value, a point +- one unit
    in its dps-th digit, or [lo, hi]."""
    if v.exact is not None:
        q = to_frac(v.exact)
        return q, q
    if v.lo == v.hi:
        m = to_frac(v.mid)
        u = ulp(m, v.dps)
        return m - u, m + u
    return to_frac(v.lo), to_frac(v.hi)


def claim_hi0(v) -> Fraction:
    """Upper end of the claim, 0 for values below 2^-MAX_EXACT_EXP (never above 1)."""
    try:
        return claim(v)[1]
    except HugeExponent:
        return F0


def mp_claim(v):
    """The claim as mpf (any exponent), slightly widened: for comparisons only."""
    with mp.workdps(2 * v.dps + 20):
        if v.lo == v.hi:
            u = abs(v.mid) * mp.mpf(10) ** (1 - v.dps)
            return v.mid - u, v.mid + u
        return +v.lo, +v.hi


def sane(v, dps: int) -> str | None:
    """Why a returned Value breaks 0 <= lo <= hi <= 1 / has NaN, or None."""
    from tradeoff_algebra import Value

    if not isinstance(v, Value):
        return f"not a Value: {type(v).__name__}"
    for name in ("lo", "hi", "mid"):
        x = getattr(v, name)
        if not isinstance(x, mpmath.mpf):
            return f"{name} is {type(x).__name__}"
        if mpmath.isnan(x):
            return f"{name} is NaN"
    if not (0 <= v.lo <= v.hi <= 1):
        return f"not 0 <= lo <= hi <= 1: lo={v.lo}, hi={v.hi}"
    if not (v.lo <= v.mid <= v.hi):
        return f"mid outside [lo, hi]: {v.mid}"
    if v.exact is not None:
        q = to_frac(v.exact)
        if not (to_frac(v.lo) <= q <= to_frac(v.hi)):
            return f"exact {v.exact} outside [lo, hi]"
    if v.dps != dps:
        return f"dps {v.dps} != requested {dps}"
    return None


def sane_eps(v, dps: int) -> str | None:
    from tradeoff_algebra import Value

    if not isinstance(v, Value):
        return f"not a Value: {type(v).__name__}"
    for name in ("lo", "hi", "mid"):
        x = getattr(v, name)
        if mpmath.isnan(x):
            return f"{name} is NaN"
    if not (0 <= v.lo <= v.hi):
        return f"not 0 <= lo <= hi: lo={v.lo}, hi={v.hi}"
    return None


def points_agree(v1, v2) -> bool:
    try:
        return _points_agree(v1, v2)
    except HugeExponent:  # compare in mpmath: relative difference within 1.5 units
        with mp.workdps(2 * max(v1.dps, v2.dps) + 20):
            if v1.lo == v1.hi and v2.lo == v2.hi:
                if v2.mid == 0:
                    return v1.mid == 0
                return abs(v1.mid - v2.mid) <= abs(v2.mid) * 15 * mp.mpf(10) ** (-v1.dps)
            return v1.lo <= v2.hi * (1 + mp.mpf(10) ** (1 - v1.dps)) and \
                v2.lo <= v1.hi * (1 + mp.mpf(10) ** (1 - v1.dps))


def _points_agree(v1, v2) -> bool:
    """(c): v1 at dps and v2 at a higher precision. Exact values must be equal; point values:
    the dps-digit value equals the higher-precision one rounded to dps significant digits up to
    one unit in the last place; otherwise the claims must overlap."""
    if v1.exact is not None and v2.exact is not None:
        return to_frac(v1.exact) == to_frac(v2.exact)
    if v1.lo == v1.hi and v2.lo == v2.hi:
        d = round_dec(to_frac(v1.mid), v1.dps)
        r = round_dec(to_frac(v2.mid), v1.dps)
        return abs(d - r) <= ulp(r if r else d, v1.dps)
    c1, c2 = claim(v1), claim(v2)
    return c1[0] <= c2[1] and c2[0] <= c1[1]


def overlap(c1, c2, tol=F0) -> bool:
    return c1[0] <= c2[1] + tol and c2[0] <= c1[1] + tol


def ref_tol(L, U, rdps: int, slack) -> Fraction:
    scale = max(abs(to_frac(L)), abs(to_frac(U)))
    return scale * Fraction(1, 10 ** (rdps - 15)) + slack


# =============================================================================================
# the checks
# =============================================================================================
def _ref_bounds(ref: Ref, what: str, arg, rdps: int, seconds: float, strict_: bool, rec):
    """Reference bounds (Fractions) or None; what in {'value', 'roc', 'delta'}."""
    t0 = time.perf_counter()
    try:
        with ref_context(rdps, seconds, strict_):
            if what == "value":
                L, U = ref.bounds(arg)
            elif what == "roc":
                L, U = ref.roc_bounds(arg)
            else:
                b = ref.delta_bounds(to_m(arg) if not isinstance(arg, Num) else arg.m())
                if b is None:
                    return None
                L, U = b
            if isinstance(L, mpmath.mpf) and (mpmath.isnan(L) or mpmath.isnan(U)):
                rec.ref_stats["nan"] += 1
                return None
            return to_frac(L), to_frac(U)
    except RefTimeout:
        rec.ref_stats["timeout"] += 1
    except RefHardTimeout:
        rec.ref_stats["hard_timeout"] += 1
    except RefUnavailable:
        rec.ref_stats["unavailable"] += 1
    except (ZeroDivisionError, ValueError, AssertionError, OverflowError, TypeError,
            RecursionError) as e:
        rec.ref_stats[f"error:{type(e).__name__}"] += 1
    finally:
        rec.ref_time += time.perf_counter() - t0
    return None


def _tol(ref, what, L, U, rdps):
    t = ref_tol(L, U, rdps, ref.slack)
    if what == "roc" and not ref.native_roc:  # 1 - f by subtraction: absolute error only
        t += Fraction(1, 10 ** (rdps - 15))
    if U == 0 and not getattr(ref, "exact", False):  # a computed 0 carries an absolute error
        t += Fraction(1, 10 ** (rdps - 15))
    return t


def ref_verdict(rec, ref, what, arg, dps, bad):
    """Two-stage reference check. ``bad(L, U, tol)`` says whether the library's claim
    contradicts the reference bounds [L, U] (tolerance tol). Returns None (no violation, or no
    reference, or an unstable reference) or (L, U, note) of the confirming stage.

    Stage 1 at 2 dps + 30 digits; exact references decide at once. Otherwise stage 2 recomputes
    at 3x the digits with the strict references (gauss_np / laplace_np of reference_np): the
    violation must persist and, for point references, both stages must agree."""
    if ref is None:
        return None
    rdps = 2 * dps + 30
    b = _ref_bounds(ref, what, arg, rdps, rec.ref_seconds, False, rec)
    if b is None:
        return None
    rec.checks[f"ref:{what}"] += 1
    L, U = b
    exact_ref = isinstance(ref, Finite) and ref.exact and what != "delta" and not ref.slack
    tol = F0 if exact_ref else _tol(ref, what, L, U, rdps)
    if not bad(L, U, tol):
        return None
    if exact_ref:
        return L, U, "exact reference"
    if not rec.deep:
        return L, U, f"reference at {rdps} digits (unconfirmed)"
    rdps2 = 3 * rdps + 40
    b2 = _ref_bounds(ref, what, arg, rdps2, 4 * rec.ref_seconds, True, rec)
    if b2 is None:
        rec.ref_stats["unverified"] += 1
        return None
    L2, U2 = b2
    tol2 = _tol(ref, what, L2, U2, rdps2)
    if not bad(L2, U2, tol2) or (ref.point and abs(L2 - L) > tol + tol2):
        rec.ref_stats["ref_unstable"] += 1
        rec.unstable.append(dict(ref=repr(ref)[:200], what=what,
                                 arg=repr(arg) if isinstance(arg, Num) else fmt(arg),
                                 L1=fmt(L), L2=fmt(L2)))
        return None
    # a third stage far above both: parameters like delta = 1e-284 need more digits than the
    # second stage has (1 - delta rounds to 1 at 220 digits)
    rdps3 = 5 * rdps2
    b3 = _ref_bounds(ref, what, arg, rdps3, 8 * rec.ref_seconds, True, rec)
    if b3 is None:
        rec.ref_stats["unverified"] += 1
        return None
    L3, U3 = b3
    if not bad(L3, U3, _tol(ref, what, L3, U3, rdps3)):
        rec.ref_stats["ref_unstable"] += 1
        return None
    strict_note = ", strict" if isinstance(ref, (GaussRef, LaplaceRef)) else ""
    return L3, U3, f"confirmed at {rdps2} and {rdps3} digits{strict_note}"


def compare_ref(rec, prop, call, v, ref, what, arg, dps):
    """Does the claim of Value v (point +- 1 unit in the dps-th digit, exact, or [lo, hi])
    meet the reference bounds? Exact references also demand equality of exact values."""
    try:
        _compare_ref(rec, prop, call, v, ref, what, arg, dps)
    except HugeExponent:
        rec.ref_stats["huge_exponent"] += 1


def _compare_ref(rec, prop, call, v, ref, what, arg, dps):
    c = claim(v)

    def bad(L, U, tol):
        if c[1] < L - tol or c[0] > U + tol:
            return True
        return (tol == 0 and v.exact is not None and L == U and to_frac(v.exact) != L)

    r = ref_verdict(rec, ref, what, arg, dps, bad)
    if r is None:
        return
    L, U, note = r
    exp = fmt(L, 25) if L == U else f"[{fmt(L, 20)}, {fmt(U, 20)}]"
    detail = f"ref {ref} ({note})"
    if (L == U or ref.point) and L != 0:
        rel = abs(to_frac(v.mid) - L) / abs(L)
        detail += f"; rel.err {fmt(rel, 3)}"
    rec.violation(prop, call, fmt_value(v), exp, detail)


def _call_src(api: str, node: Node, *args) -> str:
    return f"ta.{api}({node.src}, " + ", ".join(repr(a) for a in args) + ")"


def check_case(case: Case, rec: Recorder, props: str = "abcde",
               tree_budget: float | None = None, values: bool = True, profile: bool = True,
               curve: bool = True):
    """Run the calls of one case and check the properties named in ``props``:
    a references & sanity (evaluate, roc, delta, epsilon, curve), b simplify, c double
    precision, e shape; d (no escaped exception) always. ``values``/``profile``/``curve`` select
    the groups of calls (evaluate+roc / delta+epsilon / f.curve)."""
    rec.trees += 1
    node, dps = case.node, case.dps
    f, ref = node.expr, node.ref
    t_start = time.perf_counter()

    def over_budget():
        if tree_budget is not None and time.perf_counter() - t_start > tree_budget:
            rec.ref_stats["tree_budget"] += 1
            return True
        return False

    vals = {}  # alpha index -> Value
    need_values = values or (profile and "a" in props) or "b" in props or "e" in props
    for i, lv in enumerate(case.alphas if need_values else []):
        if over_budget():
            break
        rec.points += 1
        src = _call_src("evaluate", node, lv, dps)
        v, err = rec.run("evaluate", src, ta.evaluate, f, lv.value, dps)
        if err is not None:
            continue
        why = sane(v, dps)
        if why:
            rec.violation("a:value-range", src, fmt_value(v), "0 <= lo <= hi <= 1, no NaN", why)
            continue
        vals[i] = v
        if not values:
            continue
        if "a" in props:
            compare_ref(rec, "a:reference", src, v, ref, "value", lv.frac, dps)
        if "c" in props and (v.lo == v.hi):
            src2 = _call_src("evaluate", node, lv, 2 * dps)
            v2, err2 = rec.run("evaluate", src2, ta.evaluate, f, lv.value, 2 * dps)
            if err2 is None and not sane(v2, 2 * dps):
                rec.checks["c:evaluate"] += 1
                if not points_agree(v, v2):
                    rec.violation("c:double-precision", src, fmt_value(v),
                                  f"{fmt_value(v2)} at dps={2 * dps}", "")
        if "a" in props or "c" in props:
            src_r = _call_src("roc", node, lv, dps)
            r, err_r = rec.run("roc", src_r, ta.roc, f, lv.value, dps)
            if err_r is not None:
                continue
            why = sane(r, dps)
            if why:
                rec.violation("a:roc-range", src_r, fmt_value(r), "0 <= lo <= hi <= 1", why)
                continue
            if "a" in props:
                try:
                    c1 = claim(r)
                    c2 = tuple(1 - x for x in reversed(claim(v)))
                except HugeExponent:
                    c1 = c2 = (F0, F1)
                    rec.ref_stats["huge_exponent"] += 1
                rec.checks["a:roc-vs-evaluate"] += 1
                if not overlap(c1, c2):
                    rec.violation("a:roc-vs-evaluate", src_r, fmt_value(r),
                                  f"1 - evaluate = [{fmt(c2[0])}, {fmt(c2[1])}]",
                                  f"evaluate: {fmt_value(v)}")
                compare_ref(rec, "a:roc-reference", src_r, r, ref, "roc", lv.frac, dps)
            if "c" in props and r.lo == r.hi:
                r2, e2 = rec.run("roc", _call_src("roc", node, lv, 2 * dps), ta.roc, f,
                                 lv.value, 2 * dps)
                if e2 is None and not sane(r2, 2 * dps):
                    rec.checks["c:roc"] += 1
                    if not points_agree(r, r2):
                        rec.violation("c:double-precision", src_r, fmt_value(r),
                                      f"{fmt_value(r2)} at dps={2 * dps}", "")
    if "e" in props:
        check_shape(case, vals, rec)
    if "b" in props and not over_budget():
        check_simplify(case, vals, rec)
    if profile and not over_budget():
        check_profile(case, vals, rec, props)
    if curve and "a" in props and not over_budget():
        check_curve(case, rec)
    return vals


def check_shape(case, values, rec):
    try:
        return _check_shape(case, values, rec)
    except HugeExponent:
        rec.ref_stats["huge_exponent"] += 1


def _check_shape(case, values, rec):
    """(e) f(alpha) <= 1 - alpha, non-increasing, convex over the evaluated levels."""
    node = case.node
    idx = sorted(values)
    cl = {i: claim(values[i]) for i in idx}
    al = {i: case.alphas[i].frac for i in idx}
    where = f"{node.src} at alphas {[case.alphas[i] for i in idx]}, dps={case.dps}"
    for i in idx:
        rec.checks["e:below-diagonal"] += 1
        if cl[i][0] > 1 - al[i]:
            rec.violation("e:above-1-alpha", _call_src("evaluate", node, case.alphas[i], case.dps),
                          fmt_value(values[i]), f"<= 1 - alpha = {fmt(1 - al[i])}", "")
    for i, j in itertools.combinations(idx, 2):
        rec.checks["e:monotone"] += 1
        if cl[j][0] > cl[i][1]:
            rec.violation("e:not-monotone", where,
                          f"f({case.alphas[i]}) = {fmt_value(values[i])}, "
                          f"f({case.alphas[j]}) = {fmt_value(values[j])}",
                          "non-increasing", "")
    for i, j, k in itertools.combinations(idx, 3):
        rec.checks["e:convex"] += 1
        a, b, c = al[i], al[j], al[k]
        chord = (cl[i][1] * (c - b) + cl[k][1] * (b - a)) / (c - a)
        if cl[j][0] > chord:
            rec.violation("e:not-convex", where,
                          f"f({case.alphas[j]}) >= {fmt(cl[j][0])} above the chord {fmt(chord)}",
                          "convex", f"f({case.alphas[i]})={fmt_value(values[i])}, "
                          f"f({case.alphas[k]})={fmt_value(values[k])}")


def check_simplify(case, values, rec):
    try:
        return _check_simplify(case, values, rec)
    except HugeExponent:
        rec.ref_stats["huge_exponent"] += 1


def _check_simplify(case, values, rec):
    """(b) simplify(f) evaluates to the same numbers (and against the reference)."""
    node, dps = case.node, case.dps
    src = f"ta.simplify({node.src})"
    s, err = rec.run("simplify", src, ta.simplify, node.expr)
    if err is not None:
        return
    if not isinstance(s, ta.TradeOff):
        rec.violation("b:simplify-type", src, repr(s)[:200], "a TradeOff", "")
        return
    if s == node.expr:
        rec.checks["b:unchanged"] += 1
        return
    idx = sorted(values)
    chosen = idx[:1] + idx[-1:] if len(idx) > 1 else idx
    if len(idx) > 2:
        chosen.append(idx[len(idx) // 2])
    for i in sorted(set(chosen)):
        lv, v = case.alphas[i], values[i]
        call = f"ta.evaluate(ta.simplify({node.src}), {lv!r}, {dps})"
        w, e = rec.run("evaluate", call, ta.evaluate, s, lv.value, dps)
        if e is not None:
            continue
        why = sane(w, dps)
        if why:
            rec.violation("a:value-range", call, fmt_value(w), "0 <= lo <= hi <= 1", why)
            continue
        rec.checks["b:simplify"] += 1
        ok = points_agree(v, w) if (v.lo == v.hi and w.lo == w.hi) else overlap(claim(v), claim(w))
        if not ok:
            rec.violation("b:simplify-disagrees", call, f"{fmt_value(w)}  [simplified: {s}]",
                          f"{fmt_value(v)} (unsimplified)", "")
        compare_ref(rec, "a:reference(simplified)", call, w, node.ref, "value", lv.frac, dps)


def check_profile(case, values, rec, props="abcde"):
    try:
        return _check_profile(case, values, rec, props)
    except HugeExponent:
        rec.ref_stats["huge_exponent"] += 1


def _check_profile(case, values, rec, props="abcde"):
    """delta(eps) and epsilon(delta): range, monotonicity, consistency with evaluate, with each
    other and with the reference profile; (c) for their point values."""
    node, dps, f, ref = case.node, case.dps, case.node.expr, case.node.ref
    ds = []
    for e in sorted(case.eps, key=lambda n: float(n.frac) if n.frac is not None
                    else float(n.expfrac and math.log(n.expfrac))):
        src = _call_src("delta", node, e, dps)
        d, err = rec.run("delta", src, ta.delta, f, e.value, dps)
        if err is not None:
            continue
        why = sane(d, dps)
        if why:
            rec.violation("a:delta-range", src, fmt_value(d), "0 <= lo <= hi <= 1", why)
            continue
        ds.append((e, d))
        if "a" in props:
            compare_ref(rec, "a:delta-reference", src, d, ref, "delta", e, dps)
        # delta(eps) >= 1 - f(alpha) - e^eps alpha at every evaluated alpha (DRS Prop. 6)
        with mp.workdps(2 * dps + 40):
            if "a" not in props:
                values = {}
            E = e.exp_m()
            for i, v in values.items():
                a = case.alphas[i].frac
                lb = 1 - claim_hi0(v) - to_frac(E) * a
                rec.checks["a:delta-vs-evaluate"] += 1
                if claim_hi0(d) < lb - Fraction(1, 10 ** (2 * dps + 20)):
                    rec.violation("a:delta-below-primal", src, fmt_value(d),
                                  f">= 1 - f(a) - e^eps a = {fmt(lb)} at a={case.alphas[i]!r}",
                                  f"f(a) = {fmt_value(v)}")
                    break
        if "c" in props and d.lo == d.hi:
            d2, e2 = rec.run("delta", _call_src("delta", node, e, 2 * dps), ta.delta, f, e.value,
                             2 * dps)
            if e2 is None and not sane(d2, 2 * dps):
                rec.checks["c:delta"] += 1
                if not points_agree(d, d2):
                    rec.violation("c:double-precision", src, fmt_value(d),
                                  f"{fmt_value(d2)} at dps={2 * dps}", "")
    for (e1, d1), (e2, d2) in zip(ds, ds[1:], strict=False) if "a" in props else ():
        rec.checks["a:delta-monotone"] += 1
        if mp_claim(d2)[0] > mp_claim(d1)[1]:
            rec.violation("a:delta-increasing", f"{node.src}: delta at eps={e1!r}, {e2!r}",
                          f"{fmt_value(d1)}, {fmt_value(d2)}", "non-increasing in eps", "")
    for lv in case.deltas:
        src = _call_src("epsilon", node, lv, dps)
        v, err = rec.run("epsilon", src, ta.epsilon, f, lv.value, dps)
        if err is not None:
            continue
        why = sane_eps(v, dps)
        if why:
            rec.violation("a:epsilon-range", src, fmt_value(v), "0 <= lo <= hi", why)
            continue
        lo_inf, hi_inf = v.lo == mp.inf, v.hi == mp.inf
        if lo_inf:
            continue
        c = claim(v) if not hi_inf else (to_frac(v.lo), None)
        target = lv.frac
        for which, e_val in (("hi", c[1]), ("lo", c[0])) if "a" in props else ():
            if e_val is None or (which == "lo" and e_val == 0):
                continue
            eN = Num(None, fmt(e_val, 30), e_val)
            slack_t = target * Fraction(1, 10 ** (dps + 5))
            if which == "hi":  # delta(eps_hi) <= target, else the true eps exceeds eps_hi
                def bad(L, U, tol, t=target, s_=slack_t):
                    return L > t + tol + s_
            else:  # delta(eps_lo) >= target, else the true eps lies below eps_lo
                def bad(L, U, tol, t=target, s_=slack_t):
                    return U < t - tol - s_
            r = ref_verdict(rec, ref, "delta", eN, dps, bad)
            if r is not None:
                L, U, note = r
                rec.violation("a:epsilon-reference", src, fmt_value(v),
                              f"delta(eps_{which}) {'<=' if which == 'hi' else '>='} {lv!r}",
                              f"reference delta({fmt(e_val)}) = [{fmt(L)}, {fmt(U)}]: eps is too "
                              f"{'small' if which == 'hi' else 'large'} ({ref}; {note})")
        if "c" in props and v.lo == v.hi:
            v2, e2 = rec.run("epsilon", _call_src("epsilon", node, lv, 2 * dps), ta.epsilon, f,
                             lv.value, 2 * dps)
            if e2 is None and not sane_eps(v2, 2 * dps) and v2.hi != mp.inf:
                rec.checks["c:epsilon"] += 1
                if not points_agree(v, v2):
                    rec.violation("c:double-precision", src, fmt_value(v),
                                  f"{fmt_value(v2)} at dps={2 * dps}", "")


def check_curve(case, rec):
    """f.curve (float64) against the reference: no NaN, in [0, 1], and within its contract
    (``numeric.curves.curve``): 1e-9 + 1e-6 |ref| for a family's float path, half of
    ``CURVE_WIDTH`` plus that for an operator tree (midpoints of certified enclosures at the
    engine's tolerance), unless the call warned (``ToleranceWarning``: some enclosure stayed
    wider; counted, not a violation)."""
    import warnings

    import numpy as np

    from tradeoff_algebra.numeric.curves import CURVE_WIDTH

    node, ref = case.node, case.node.ref
    xs = [float(lv.frac) for lv in case.alphas]
    src = f"({node.src}).curve({xs!r})"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y, err = rec.run("curve", src, node.expr.curve, xs)
    if err is not None:
        return
    if any(issubclass(w.category, ta.ToleranceWarning) for w in caught):
        rec.allowed[("curve", "ToleranceWarning", "an enclosure wider than CURVE_WIDTH")] += 1
        return
    y = np.asarray(y)
    if y.shape != (len(xs),) or np.isnan(y).any() or (y < 0).any() or (y > 1).any():
        rec.violation("a:curve-range", src, repr(y), "finite values in [0, 1]", "")
        return
    if ref is None or not ref.point:
        return
    # a family's float path is held to 1e-9 + 1e-6 |ref|; an operator tree's values are
    # midpoints of certified enclosures, each within half its width (< CURVE_WIDTH unwarned)
    leaf = not any(isinstance(a, ta.TradeOff) for a in node.expr.args)
    slack = 0.0 if leaf else CURVE_WIDTH / 2
    for x, yv in zip(xs, y, strict=False):
        b = _ref_bounds(ref, "value", Fraction(x), 30, rec.ref_seconds, False, rec)
        if b is None:
            continue
        if b[0] > 1 - Fraction(x) + Fraction(1, 10**20):  # no trade-off value exceeds 1 - x
            rec.ref_stats["ref_invalid"] += 1
            continue
        rec.checks["a:curve"] += 1
        r = float(b[0])
        if abs(yv - r) > slack + 1e-9 + 1e-6 * abs(r):
            # confirm at higher precision first (a reference through 1 - f near 1 needs the
            # digits: Group(BinomialDP(50, 10), 2) at 1e-300 is f(1.4e-83) = 1.2e-150)
            b2 = _ref_bounds(ref, "value", Fraction(x), 400, 4 * rec.ref_seconds, True, rec)
            if b2 is None or abs(yv - float(b2[0])) <= slack + 1e-9 + 1e-6 * abs(
                    float(b2[0])):
                rec.ref_stats["ref_unstable"] += 1
                continue
            r = float(b2[0])
            rec.violation("a:curve-inaccurate", f"({node.src}).curve([{x!r}])", repr(float(yv)),
                          repr(r), f"abs.err {abs(yv - r):.3g}")


# =============================================================================================
# the big run
# =============================================================================================
def _one_tree(seed, path, limit, budget, mem_gb):
    """Check one tree (in a forked child) and append its JSON line to ``path``."""
    if mem_gb:
        import resource

        cap = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    rec = Recorder(limit=limit)
    t0 = time.perf_counter()
    src = None
    try:
        case = random_case(seed)
        src = repr(case)
        check_case(case, rec, tree_budget=budget)
    except Exception as e:  # noqa: BLE001  a builder or checker failure
        rec.violation("harness", src or f"seed {seed}", f"{type(e).__name__}: {e}"[:400],
                      "", traceback.format_exc()[-1500:])
    dt = time.perf_counter() - t0
    line = json.dumps(dict(
        seed=seed, case=src, seconds=round(dt, 3), points=rec.points,
        calls=dict(rec.calls), call_time={k: round(v, 3) for k, v in rec.call_time.items()},
        allowed=[[*k, n] for k, n in rec.allowed.items()], violations=rec.violations,
        slow=rec.slow, timeouts=rec.timeouts, ref_stats=dict(rec.ref_stats),
        ref_time=round(rec.ref_time, 3), checks=dict(rec.checks),
        call_cpu={k: round(v, 3) for k, v in rec.call_cpu.items()},
        unstable=rec.unstable, skipped=rec.skipped))
    with open(path, "a") as fh:
        fh.write(line + "\n")


def _worker(args):
    """Run each tree in a forked child: a call stuck in C code (no signal delivered) or a
    runaway allocation is killed by the parent after ``budget + 180`` s or by RLIMIT_AS."""
    import multiprocessing as mpr

    wid, seeds, out, limit, budget, stop_at, mem_gb, done = args
    path = os.path.join(out, f"trees-{wid}.jsonl")
    ctx = mpr.get_context("fork")
    for seed in seeds:
        if stop_at is not None and time.time() > stop_at:
            break
        if seed in done:
            continue
        t0 = time.time()
        p = ctx.Process(target=_one_tree, args=(seed, path, limit, budget, mem_gb))
        p.start()
        p.join(budget + 180)
        if p.is_alive():
            p.kill()
            p.join()
            src = None
            try:
                src = repr(random_case(seed))
            except Exception:  # noqa: BLE001
                pass
            with open(path, "a") as fh:
                fh.write(json.dumps(dict(seed=seed, case=src, killed=True,
                                         seconds=round(time.time() - t0, 1))) + "\n")
        elif p.exitcode != 0:
            with open(path, "a") as fh:
                fh.write(json.dumps(dict(seed=seed, died=p.exitcode,
                                         seconds=round(time.time() - t0, 1))) + "\n")


def main(argv=None):
    import argparse

    # Exact rationals of tails like 1e-5000 are printed in reproducers (the pytest module sets
    # the same limit in a fixture and restores it).
    sys.set_int_max_str_digits(0)

    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--trees", type=int, default=1000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--out", default="/tmp/fuzz_run")
    r.add_argument("--limit", type=float, default=60.0, help="alarm per call (s)")
    r.add_argument("--budget", type=float, default=180.0, help="soft budget per tree (s)")
    r.add_argument("--minutes", type=float, default=None, help="stop starting trees after")
    r.add_argument("--mem-gb", type=float, default=4.0, help="address-space cap per tree")
    s = sub.add_parser("summary")
    s.add_argument("out")
    one = sub.add_parser("one")
    one.add_argument("seed", type=int)
    a = ap.parse_args(argv)
    if a.cmd == "run":
        import multiprocessing as mpr

        os.makedirs(a.out, exist_ok=True)
        seeds = list(range(a.seed, a.seed + a.trees))
        stop_at = None if a.minutes is None else time.time() + 60 * a.minutes
        with open(os.path.join(a.out, f"meta-{int(time.time())}.json"), "w") as fh:
            json.dump(dict(package=ta.__file__, seed=a.seed, trees=a.trees, limit=a.limit,
                           budget=a.budget, minutes=a.minutes, started=time.time()), fh)
        done = {r["seed"] for r in load(a.out)}
        parts = [(w, seeds[w::a.workers], a.out, a.limit, a.budget, stop_at, a.mem_gb, done)
                 for w in range(a.workers)]
        ctx = mpr.get_context("fork")
        procs = [ctx.Process(target=_worker, args=(p,)) for p in parts]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
    elif a.cmd == "one":
        rec = Recorder()
        case = random_case(a.seed)
        print(case)
        check_case(case, rec)
        print(rec.summary())
        print(dict(rec.calls), dict(rec.ref_stats), dict(rec.allowed))
        print(dict(rec.checks), "ref time", round(rec.ref_time, 2))
    else:
        summarize(a.out)


def load(out):
    rows = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".jsonl"):
            with open(os.path.join(out, name)) as fh:
                for line in fh:
                    line = line.strip()
                    if line:
                        rows.append(json.loads(line))
    return rows


def summarize(out):
    rows = load(out)
    killed = [r for r in rows if r.get("killed") or r.get("died") is not None]
    rows = [r for r in rows if "calls" in r]
    print(f"killed (stuck > budget + 180 s) or died: {len(killed)}")
    for r in killed:
        print("   ", r.get("seed"), r.get("died"), (r.get("case") or "")[:160])
    calls, ctime, allowed, props, refst, checks = Counter(), Counter(), Counter(), Counter(), \
        Counter(), Counter()
    for r in rows:
        calls.update(r["calls"])
        ctime.update(r["call_time"])
        for *k, n in r["allowed"]:
            allowed[tuple(k)] += n
        for v in r["violations"]:
            props[v["prop"]] += 1
        refst.update(r["ref_stats"])
        checks.update(r["checks"])
    print(f"trees {len(rows)}, points {sum(r['points'] for r in rows)}, calls "
          f"{sum(calls.values())}, wall (sum over trees) {sum(r['seconds'] for r in rows):.0f} s")
    print("calls", dict(calls))
    print("call time", {k: round(v) for k, v in ctime.items()})
    print("violations", dict(props))
    print("ref stats", dict(refst))
    print("checks", dict(checks))
    print("slow", sum(len(r["slow"]) for r in rows), "timeouts",
          sum(len(r["timeouts"]) for r in rows))
    print("allowed errors:")
    for k, n in allowed.most_common(40):
        print("  ", n, k)


if __name__ == "__main__":
    main()
