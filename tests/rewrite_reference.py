"""A brute-force reference evaluator for unsimplified expression trees (tests only).

It evaluates a tree by the *definitions* of its nodes, never by the rewrite rules, so that the
soundness meta-test (tests/test_rule_soundness.py) can compare a rule's output with its input.

Two dispatch tables, both keyed by node class (the first class in the MRO that has an entry
wins); other contributors register their operators with small appends at the end of this file:

``VALUE[cls](node, A, dps) -> mpf | Fraction``
    f(alpha) for ``A`` an exact level (``fractions.Fraction``), computed at ``dps`` digits.
``MODEL[cls](node) -> Pair``
    a pair of distributions (P, Q) with T(P, Q) = node, used to form tensor products by the
    definition T(P, Q) (x) T(P', Q') = T(P x P', Q x Q') (Dong, Roth & Su, Def. 5).

A :class:`Pair` is a finite part (atoms (p_j, q_j), exact ``Fraction`` where the parameters are
rational) times a Gaussian part N(0, I) against N(m, I) (the shifts m). Its trade-off function
is computed by the Neyman--Pearson lemma on the product distribution:

* finite only: the likelihood-ratio test with randomisation on one ratio class, exact in
  rational arithmetic;
* with Gaussian coordinates: reject when log(q_j/p_j) + m.x - |m|^2/2 > tau; the size
  alpha(tau) and type-II error beta(tau) are sums over atoms of P_0(m.x > u) and
  P_1(m.x <= u), each a one-dimensional mpmath quadrature over the first coordinate x_1 of the
  conditional normal CDF of the others (m_2 x_2 + ... ~ N(0, r^2) under P, N(r^2, r^2) under
  Q), with a single shift in closed form; tau solves alpha(tau) = alpha by bracketed root
  finding. Nothing here uses the composition identities being tested (G_mu (x) G_nu = ...).

Other nodes: leaves by their closed forms (``ta.evaluate``, verified against Neyman--Pearson
in their own tests); ``Tensor`` and ``TensorPower`` (integer n, as the n-fold product) through
pair models; ``Inverse`` by root finding, f^{-1}(alpha) = inf{t : f(t) <= alpha} (Eq. (3)),
and, inside a product, as the swapped pair T(Q, P) (the discussion after Prop. 2; the test
file checks that both routes agree); ``Group`` by k-fold composition of 1 - f (Thm. 3);
``Mix`` of a finite pair as T(P, (1 - p) P + p Q) (its pair; the value is p f + (1 - p) Id);
``Id`` and ``Zero`` exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.core.node import TradeOff

__all__ = ["reference", "model", "Pair", "VALUE", "MODEL", "NoReference", "to_fraction",
           "register_value", "register_model", "pair_value", "root_inverse", "mpf_to_fraction"]

GUARD = 15


class NoReference(Exception):
    """The reference evaluator has no route for this node (choose other test cases)."""


# ------------------------------------------------------------------------------------------------
# numbers
def to_fraction(x: Any) -> Fraction | None:
    """An exact Fraction for a SymPy rational / int / Fraction, else None."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    x = sp.sympify(x)
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    return None


def _num(x: Any):
    """Exact Fraction when rational, else an mpf at the current precision."""
    q = to_fraction(x)
    if q is not None:
        return q
    v = sp.sympify(x).evalf(mp.dps + 10)
    return mp.mpf(v._mpf_) if isinstance(v, sp.Float) else mp.mpf(str(v))


def _mpf(x):
    return mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mp.mpf(x)


# ------------------------------------------------------------------------------------------------
# distribution pairs
@dataclass(frozen=True)
class Pair:
    """(P, Q) = (finite P_f x N(0, I), finite Q_f x N(m, I)): atoms (p_j, q_j), shifts m."""

    atoms: tuple = ((Fraction(1), Fraction(1)),)
    shifts: tuple = ()

    def __mul__(self, other: Pair) -> Pair:
        atoms = [(p1 * p2, q1 * q2) for p1, q1 in self.atoms for p2, q2 in other.atoms]
        return Pair(_merge(atoms), self.shifts + other.shifts)

    def swap(self) -> Pair:
        """T(Q, P): the Gaussian part N(m, I) vs N(0, I) is N(0, I) vs N(-m, I) mirrored,
        i.e. the same pair of shifts up to the reflection x -> m - x."""
        return Pair(tuple((q, p) for p, q in self.atoms), self.shifts)


def _merge(atoms):
    """Merge atoms with equal likelihood ratio q/p (the ratio is a sufficient statistic)."""
    out: dict = {}
    for p, q in atoms:
        if p == 0 and q == 0:
            continue
        key = ("inf",) if p == 0 else q / p
        if isinstance(key, Fraction) or key == ("inf",):
            k = key
        else:
            k = mpmath.nstr(key, mp.dps - 5)
        a, b = out.get(k, (0, 0))
        out[k] = (a + p, b + q)
    return tuple(out.values())


def _finite_np(atoms, A):
    """beta at size A for a finite pair: the likelihood-ratio test, randomised on one class."""
    classes = sorted(atoms, key=lambda pq: (0, 0) if pq[0] == 0 else (1, -_mpf(pq[1] / pq[0])))
    if not all(isinstance(x, Fraction) for pq in atoms for x in pq):
        A = _mpf(A)  # irrational parameters: the atoms are mpf at the working precision
    size = 0
    beta = sum(q for _, q in atoms)
    for p, q in classes:
        if size + p <= A:
            size += p
            beta -= q
        else:
            return beta - (A - size) / p * q
    return beta


def _sf(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def _cdf(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def _phi(x):
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mp.pi)


class _Gauss:
    """P_0(m.x > u) and P_1(m.x <= u) for N(0, I) vs N(m, I), by 1-D quadrature over x_1."""

    def __init__(self, shifts):
        self.m1 = shifts[0]
        self.r2 = sum(s * s for s in shifts[1:])
        self.r = mpmath.sqrt(self.r2)
        self.norm2 = self.m1 ** 2 + self.r2

    def size(self, u):
        m1, r = self.m1, self.r
        if self.r2 == 0:
            return _sf(u / m1)
        c = u / m1
        return mpmath.quad(lambda x: _phi(x) * _sf((u - m1 * x) / r), [mp.ninf, min(c, 0),
                                                                        max(c, 0), mp.inf])

    def miss(self, u):
        m1, r, r2 = self.m1, self.r, self.r2
        if r2 == 0:
            return _cdf((u - m1 * m1) / m1)
        c = (u - r2) / m1
        return mpmath.quad(lambda x: _phi(x - m1) * _cdf((u - m1 * x - r2) / r),
                           [mp.ninf, min(c, m1), max(c, m1), mp.inf])


def pair_value(pair: Pair, A: Fraction):
    """T(P, Q)(A) of a pair by the Neyman-Pearson lemma (see the module docstring)."""
    shifts = [_mpf(_num(s)) for s in pair.shifts if s != 0]
    atoms = [(p, q) for p, q in pair.atoms if not (p == 0 and q == 0)]
    if not shifts:
        return _finite_np(atoms, A)
    g = _Gauss(shifts)
    a = _mpf(A)
    # atoms with p = 0 are always rejected (no size, no miss); atoms with q = 0 never are
    # (no miss): only atoms with p, q > 0 enter alpha(tau) and beta(tau).
    live = [(_mpf(p), _mpf(q), mpmath.log(_mpf(q) / _mpf(p)))
            for p, q in atoms if p != 0 and q != 0]
    cap = sum(p for p, _, _ in live)  # alpha(-inf)
    if a >= cap:
        return Fraction(0)  # every point of Q's mass is rejected: beta = 0 exactly
    if a == 0:
        return sum(q for _, q, _ in live)

    def u(tau, llr):
        return tau - llr + g.norm2 / 2

    def size(tau):
        return sum(p * g.size(u(tau, llr)) for p, _, llr in live)

    tau = _solve_size(size, live, g, a)
    return sum(q * g.miss(u(tau, llr)) for _, q, llr in live)


def _solve_size(size, live, g, a):
    """tau with size(tau) = a (size decreasing), by secant steps on the quadrature size.

    The starting point solves the same equation with m.x replaced by a N(0, |m|^2) variable (a
    cheap guess only: the secant iteration runs on the quadrature until the step is below the
    working precision, and the final residual is checked).
    """
    nm = mpmath.sqrt(g.norm2)
    with workdps(20):
        def guess(t):
            return sum(p * _sf((t - llr + g.norm2 / 2) / nm) for p, _, llr in live) - a
        lo, hi = mp.mpf(-1), mp.mpf(1)
        while guess(lo) < 0:
            lo *= 2
        while guess(hi) > 0:
            hi *= 2
        t0 = mpmath.findroot(guess, (lo, hi), solver="anderson")
    eps = mp.mpf(10) ** (-(mp.dps - 5))
    t_prev, s_prev = t0, size(t0) - a
    t = t0 + mp.mpf(10) ** -17 * (1 + abs(t0))
    s_cur = size(t) - a
    for _ in range(40):
        if s_cur == s_prev:
            break
        t_next = t - s_cur * (t - t_prev) / (s_cur - s_prev)
        t_prev, s_prev = t, s_cur
        t, s_cur = t_next, size(t_next) - a
        if abs(t - t_prev) < eps * (1 + abs(t)):
            break
    if abs(s_cur) > mp.mpf(10) ** (-(mp.dps - 10)) * a:
        raise ArithmeticError(f"size equation not solved: residual {s_cur}")
    return t


# ------------------------------------------------------------------------------------------------
# dispatch
VALUE: dict[type, Callable[[Any, Fraction, int], Any]] = {}
MODEL: dict[type, Callable[[Any], Pair]] = {}


def register_value(cls: type):
    def deco(fn):
        VALUE[cls] = fn
        return fn
    return deco


def register_model(cls: type):
    def deco(fn):
        MODEL[cls] = fn
        return fn
    return deco


def _lookup(table, node):
    for c in type(node).__mro__:
        if c in table:
            return table[c]
    return None


def model(node: TradeOff) -> Pair:
    """A pair (P, Q) with T(P, Q) = node, or raise NoReference."""
    fn = _lookup(MODEL, node)
    if fn is None:
        raise NoReference(f"no distribution pair for {type(node).__name__} node {node}")
    return fn(node)


def _value(node: TradeOff, A: Fraction, dps: int):
    fn = _lookup(VALUE, node)
    if fn is not None:
        return fn(node, A, dps)
    return pair_value(model(node), A)


def reference(expr: TradeOff, alpha: Any, dps: int = 50):
    """expr(alpha) by the definitions: an exact Fraction where everything is finite and
    rational, else an mpf computed with ``dps`` + guard digits."""
    A = to_fraction(alpha)
    if A is None or not 0 <= A <= 1:
        raise ValueError(f"alpha must be a rational in [0, 1], got {alpha}")
    if expr.free_symbols:
        raise ValueError(f"substitute numbers for {expr.free_symbols} first")
    with workdps(dps + GUARD):
        return _value(expr, A, dps)


def _is_leaf(node) -> bool:
    return not any(isinstance(a, ta.TradeOffExpr) for a in node.args)


# -- leaves: closed forms ------------------------------------------------------------------------
@register_value(TradeOff)
def _leaf_or_model(node, A, dps):
    if _lookup(MODEL, node) is not None and not _is_leaf(node):
        return pair_value(model(node), A)
    if not _is_leaf(node):
        raise NoReference(f"no reference value for {type(node).__name__} node {node}")
    v = ta.evaluate(node, sp.Rational(A.numerator, A.denominator), dps=dps + GUARD)
    if v.exact is not None:
        return Fraction(int(v.exact.p), int(v.exact.q))
    if not v.is_point:
        raise NoReference(f"{node}: ta.evaluate gave an enclosure, not a closed form")
    return v.mid


@register_value(ta.families.IdTradeOff)
def _(node, A, dps):
    return 1 - A


@register_value(ta.families.ZeroTradeOff)
def _(node, A, dps):
    return Fraction(0)


@register_model(ta.families.IdTradeOff)
def _(node):
    return Pair(((Fraction(1), Fraction(1)),))


@register_model(ta.families.ZeroTradeOff)
def _(node):
    return Pair(((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))))


@register_model(ta.Gaussian)
def _(node):
    return Pair(shifts=(node.mu,))


def four_point(e_eps, delta):
    """The four-point pair of f_{eps,delta}: P = (delta, (1-delta) e^eps/(1+e^eps),
    (1-delta)/(1+e^eps), 0), Q = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta)."""
    s = (1 - delta) / (1 + e_eps)
    return Pair(_merge([(delta, 0 * delta), (s * e_eps, s), (s, s * e_eps), (0 * delta, delta)]))


@register_model(ta.EpsDelta)
def _(node):
    e, d = _num(sp.exp(node.eps)), _num(node.delta)
    if not (isinstance(e, Fraction) and isinstance(d, Fraction)):
        e, d = _mpf(e), _mpf(d)
    return four_point(e, d)


# -- operators --------------------------------------------------------------------------------
@register_model(ta.Tensor)
def _(node):
    out = Pair()
    for f in node.factors:
        out = out * model(f)
    return out


@register_model(ta.TensorPower)
def _(node):
    if not node.n.is_Integer:
        raise NoReference(f"{node}: the exponent must be a number")
    out = Pair()
    f = model(node.base)
    for _ in range(int(node.n)):
        out = out * f
    return out


@register_model(ta.Inverse)
def _(node):
    return model(node.arg).swap()


def mpf_to_fraction(x) -> Fraction:
    """The exact rational value of a finite mpf."""
    man, exp = mp.mpf(x).man_exp
    return Fraction(man) * (Fraction(2) ** exp)


def root_inverse(f: TradeOff, A: Fraction, dps: int):
    """f^{-1}(A) = inf{t in [0, 1] : f(t) <= A} (Dong, Roth & Su, Eq. (3)).

    A trade-off function is continuous and strictly decreasing where positive, so for A > 0 the
    infimum is the root of f(t) = A; for A = 0 it is the left end of the zero set. The bracket
    [lo, hi] (f(lo) > A >= f(hi)) shrinks by Anderson-Bjorck regula falsi steps, bisecting when
    they stall; the result is returned once the bracket, or a step certified by the signs at
    t -/+ tol, is below the working precision. An exact rational root (f piecewise linear with
    rational data) is returned exactly. f is evaluated with 10 more digits than the root.
    """
    def g(t):
        with workdps(mp.dps + 10):
            return _value(f, t, dps + 10) - A

    if g(Fraction(0)) <= 0:
        return Fraction(0)
    lo, hi = Fraction(0), Fraction(1)
    Glo, Ghi = g(lo), g(hi)  # exact Fractions where f is finite with rational data
    glo, ghi = _mpf(Glo), _mpf(Ghi)
    tol = mp.mpf(10) ** (-(dps + GUARD - 3))
    near = mp.mpf(10) ** (-(dps // 3))  # steps this small: try to certify t +- tol/2
    side = stall = 0
    t_prev = None
    for _ in range(8 * mp.prec):
        if _mpf(hi - lo) < tol:
            break
        if A > 0 and isinstance(Glo, Fraction) and isinstance(Ghi, Fraction) and Glo != Ghi:
            # the exact secant point: the root itself when lo and hi lie on one linear piece
            t = lo - Glo * (hi - lo) / (Ghi - Glo)
            if lo < t < hi and g(t) == 0:
                return t
        t = None
        if stall < 3 and glo != ghi:
            t = mpf_to_fraction(_mpf(lo) - glo * _mpf(hi - lo) / (ghi - glo))
            if not lo < t < hi:
                t = None
        if t is None:  # bisect when the secant leaves the bracket or stalls
            t = (lo + hi) / 2
        width = hi - lo
        gt = g(t)
        if gt == 0 and A > 0 and isinstance(gt, Fraction):
            return t
        gm = _mpf(gt)
        if gt > 0:
            if side == -1:  # lo moved twice: Anderson-Bjorck scaling of the other end
                mfac = 1 - gm / glo
                ghi *= mfac if mfac > 0 else mp.mpf(0.5)
            lo, Glo, glo, side = t, gt, gm, -1
        else:
            if side == 1:
                mfac = 1 - gm / ghi if ghi != 0 else mp.mpf(0.5)
                glo *= mfac if mfac > 0 else mp.mpf(0.5)
            hi, Ghi, ghi, side = t, gt, gm, 1
        stall = 0 if 2 * (hi - lo) <= width else stall + 1
        if t_prev is not None and abs(_mpf(t - t_prev)) < near and A > 0:
            d = mpf_to_fraction(tol) / 2
            a, b = max(lo, t - d), min(hi, t + d)
            ga, gb = g(a), g(b)
            if ga > 0 >= gb:  # certified: the root lies in [a, b]
                return _exact_secant(g, a, b, ga, gb, A) or _mpf(t)
            if ga <= 0:
                hi, Ghi, ghi = a, ga, _mpf(ga)
            if gb > 0:
                lo, Glo, glo = b, gb, _mpf(gb)
        t_prev = t
    return _exact_secant(g, lo, hi, Glo, Ghi, A) or _mpf(hi)


def _exact_secant(g, a, b, ga, gb, A):
    """The exact rational root on a linear piece through (a, ga), (b, gb), if it is one."""
    if A > 0 and isinstance(ga, Fraction) and isinstance(gb, Fraction) and ga != gb:
        t = a - ga * (b - a) / (gb - ga)
        if a <= t <= b and g(t) == 0:
            return t
    return None


@register_value(ta.Inverse)
def _(node, A, dps):
    return root_inverse(node.arg, A, dps)


@register_value(ta.Group)
def _(node, A, dps):
    """1 - (1 - f)^{o k}(alpha): compose x -> 1 - f(x) k times (Dong, Roth & Su, Thm. 3)."""
    if not node.k.is_Integer:
        raise NoReference(f"{node}: k must be a number")
    x = A
    for _ in range(int(node.k)):
        v = _value(node.arg, x if isinstance(x, Fraction) else mpf_to_fraction(x), dps)
        x = 1 - v
    return 1 - x


@register_model(ta.Mix)
def _(node):
    """f_p = T(P, (1-p) P + p Q) for f = T(P, Q) finite (the test mixing the two hypotheses)."""
    inner = model(node.arg)
    if inner.shifts:
        raise NoReference("Mix of a Gaussian pair is not a finite x Gaussian pair")
    p = _num(node.p)
    if not isinstance(p, Fraction) or not all(isinstance(x, Fraction) for pq in inner.atoms
                                               for x in pq):
        p = _mpf(p)
        return Pair(_merge([(_mpf(a), (1 - p) * _mpf(a) + p * _mpf(b))
                            for a, b in inner.atoms]))
    return Pair(_merge([(a, (1 - p) * a + p * b) for a, b in inner.atoms]))


# ------------------------------------------------------------------------------------------------
# Registrations by other modules go below this line (small appends: @register_value(Cls) or
# @register_model(Cls) with a docstring naming the definition used).


# -- Max, Mix, Subsample, Symmetrize, SymmetricHull, BinomialDP (by their definitions) ----------
def _pl_knots(pair: Pair):
    """Knots of T(P, Q) for a finite pair: tests in decreasing likelihood ratio (Neyman-Pearson)."""
    if pair.shifts:
        raise NoReference("the piecewise-linear route needs a finite pair")
    atoms = [(p, q) for p, q in pair.atoms if not (p == 0 and q == 0)]
    atoms.sort(key=lambda pq: (0, 0) if pq[0] == 0 else (1, -_mpf(pq[1] / pq[0])))
    size, beta = 0 * atoms[0][0], sum(q for _, q in atoms)
    pts = [(size, 1 + 0 * beta)]
    for p, q in atoms:
        size, beta = size + p, beta - q
        pts.append((size, beta))
    pts.append((1 + 0 * size, 0 * beta))
    return _pl_clean(pts)


def _pl_clean(points):
    out = []
    for x, y in sorted(points, key=lambda t: (_mpf(t[0]), _mpf(t[1]))):
        if out and out[-1][0] == x:
            out[-1] = (x, min(out[-1][1], y))
        else:
            out.append((x, y))
    return out


def _pl_eval(kn, x):
    for (x0, y0), (x1, y1) in zip(kn, kn[1:], strict=False):
        if x0 <= x <= x1:
            return min(y0, y1) if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError(x)


def _pl_inverse(kn):
    """f^{-1}(a) = inf{t : f(t) <= a} (Eq. (3)) of a convex non-increasing knot list."""
    one = kn[-1][0]
    return _pl_clean([(y, x) for x, y in kn] + [(one, 0 * one)])


def _pl_min(f, g):
    xs = sorted({x for x, _ in f} | {x for x, _ in g}, key=_mpf)
    extra = []
    for x0, x1 in zip(xs, xs[1:], strict=False):
        d0, d1 = _pl_eval(f, x0) - _pl_eval(g, x0), _pl_eval(f, x1) - _pl_eval(g, x1)
        if d0 * d1 < 0:
            extra.append(x0 + (x1 - x0) * d0 / (d0 - d1))
    return [(x, min(_pl_eval(f, x), _pl_eval(g, x))) for x in sorted(set(xs) | set(extra),
                                                                      key=_mpf)]


def _pl_hull(points):
    """Lower convex hull: the biconjugate h^{**} of a piecewise-linear h on [0, 1]."""
    h = []
    for pt in points:
        while len(h) >= 2:
            (x1, y1), (x2, y2) = h[-2], h[-1]
            if (y2 - y1) * (pt[0] - x1) >= (pt[1] - y1) * (x2 - x1):
                h.pop()
            else:
                break
        h.append(pt)
    return h


def _pl_mix(kn, p):
    return [(x, p * y + (1 - p) * (1 - x)) for x, y in kn]


@register_value(ta.Max)
def _(node, A, dps):
    """max{f_1, ..., f_n}(alpha) pointwise."""
    vals = [_value(f, A, dps) for f in node.args]
    if all(isinstance(v, Fraction) for v in vals):
        return max(vals)
    return max(_mpf(v) for v in vals)


@register_value(ta.Mix)
def _(node, A, dps):
    """f_p(alpha) = p f(alpha) + (1 - p)(1 - alpha) (Dong, Roth & Su, Sec. 4.1)."""
    p = _num(node.p)
    v = _value(node.arg, A, dps)
    if not (isinstance(p, Fraction) and isinstance(v, Fraction)):
        p, v = _mpf(p), _mpf(v)
    return p * v + (1 - p) * (1 - A)


@register_value(ta.Subsample)
def _(node, A, dps):
    """C_p(f) = min{f_p, f_p^{-1}}^{**} (Def. 6), literally, for f of a finite pair."""
    p = _num(node.p)
    kn = _pl_knots(model(node.arg))
    if not isinstance(p, Fraction) or not all(isinstance(c, Fraction) for pt in kn for c in pt):
        p, kn = _mpf(p), [(_mpf(x), _mpf(y)) for x, y in kn]
    fp = _pl_mix(kn, p)
    return _pl_eval(_pl_hull(_pl_min(fp, _pl_inverse(fp))), A)


@register_value(ta.SymmetricHull)
def _(node, A, dps):
    """C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4), literally, for f of a finite pair."""
    kn = _pl_knots(model(node.arg))
    return _pl_eval(_pl_hull(_pl_min(kn, _pl_inverse(kn))), A)


@register_value(ta.Symmetrize)
def _(node, A, dps):
    """f^S(alpha) = max{f(alpha), f^{-1}(alpha)} (Prop. 2), f^{-1} by root finding (Eq. (3))."""
    vals = [_value(node.arg, A, dps), root_inverse(node.arg, A, dps)]
    if all(isinstance(v, Fraction) for v in vals):
        return max(vals)
    return max(_mpf(v) for v in vals)


@register_model(ta.BinomialDP)
def _(node):
    """f_{eps,0}^{(x) n}: the n-fold product of the randomized-response pair (Def. 5)."""
    if not node.n.is_Integer:
        raise NoReference(f"{node}: n must be a number")
    e = _num(sp.exp(node.eps))
    one = four_point(e, 0 * e) if isinstance(e, Fraction) else four_point(_mpf(e), mp.zero)
    out = Pair()
    for _ in range(int(node.n)):
        out = out * one
    return out


register_value(ta.BinomialDP)(lambda node, A, dps: pair_value(model(node), A))


@register_model(ta.ShuffleDP)
def _(node):
    """The shuffle pair of Wang et al., Sec. 4.1, literally: P = (1-w)P0 + wQ0,
    Q = (1-w)Q0 + wP0 with P0 = law of (A+1, C-A), Q0 = law of (A, C-A+1),
    A ~ Binom(C, 1/2), C ~ Binom(n-1, 2w), w = 1/(e^eps0 + 1) (small n, rational e^eps0)."""
    if not node.n.is_Integer or int(node.n) > 12:
        raise NoReference(f"{node}: n must be a number <= 12")
    n = int(node.n)
    E = _num(sp.exp(node.eps0))
    if not isinstance(E, Fraction):
        raise NoReference(f"{node}: the reference needs rational e^eps0")
    from reference_np import literal_pair

    _, P, Q = literal_pair(E, n)
    atoms = list(zip(P, Q, strict=True))
    return Pair(_merge(atoms))


register_value(ta.ShuffleDP)(lambda node, A, dps: pair_value(model(node), A))


# -- Subsample as a pair, Shift (the diagonal translate) -------------------------------------------
def _pl_pair(kn) -> Pair:
    """The finite pair of a convex piecewise-linear trade-off function from its knots: one atom
    per segment, P mass = its width, Q mass = its drop (plus Q's mass 1 - f(0) where P has
    none)."""
    atoms = []
    if kn[0][1] < 1:
        atoms.append((0 * kn[0][1], 1 - kn[0][1]))
    for (x0, y0), (x1, y1) in zip(kn, kn[1:], strict=False):
        if x1 > x0 or y0 > y1:
            atoms.append((x1 - x0, y0 - y1))
    return Pair(_merge(atoms))


@register_model(ta.Subsample)
def _(node):
    """C_p(f) of a finite pair (Def. 6, literally: the hull of min{f_p, f_p^{-1}}), as a pair."""
    p = _num(node.p)
    kn = _pl_knots(model(node.arg))
    if not isinstance(p, Fraction) or not all(isinstance(c, Fraction) for pt in kn for c in pt):
        raise NoReference(f"{node}: exact rational knots needed for the pair")
    fp = _pl_mix(kn, p)
    return _pl_pair(_pl_hull(_pl_min(fp, _pl_inverse(fp))))


@register_value(ta.Shift)
def _(node, A, dps):
    """max{f(alpha + t) - t, 0} for t >= 0 (Dong, Roth & Su, Eq. (9), with f = 0 beyond 1)."""
    t = _num(node.t)
    if t < 0:
        raise NoReference("the upper translate has no reference route")
    if not isinstance(t, Fraction):
        x = _mpf(A) + _mpf(t)
        return mp.zero if x >= 1 else max(_mpf(_value(node.arg, mpf_to_fraction(x), dps))
                                          - _mpf(t), mp.zero)
    x = A + t
    if x >= 1:
        return Fraction(0)
    v = _value(node.arg, x, dps)
    return max(v - t, 0 * v) if isinstance(v, Fraction) else max(_mpf(v) - _mpf(t), mp.zero)


@register_model(ta.Discrete)
def _(node):
    """T(P, Q) of the finite pair itself (exact rationals)."""
    atoms = [(to_fraction(p_), to_fraction(q_)) for p_, q_ in zip(node.P, node.Q, strict=True)]
    if any(x is None for pq in atoms for x in pq):
        raise NoReference(f"{node}: rational masses needed")
    return Pair(_merge(atoms))
