"""The tightest trade-off function implied by Renyi DP at finitely many orders.

If D_a(P || Q) <= tau_a for orders a > 1, any test with type I error alpha and type II error
beta post-processes (P, Q) into the binary pair P' = (alpha, 1 - alpha), Q' = (1 - beta, beta),
and by the data-processing inequality (van Erven & Harremoes 2014, Thm. 9)

    g_a(alpha, beta) = alpha^a (1 - beta)^{1-a} + (1 - alpha)^a beta^{1-a} <= e^{(a-1) tau_a}.

Conversely every binary pair that satisfies the constraints is itself such a (P, Q), so the
trade-off function

    f(alpha) = max_a inf{beta in [0, 1 - alpha] : g_a(alpha, beta) <= e^{(a-1) tau_a}}

is the tightest one the guarantee implies (Balle et al. 2020, Sec. 3; Zhu, Dong & Wang 2022,
Sec. 3; Asoodeh et al. 2021 for the optimal (eps, delta) conversion it gives). For Renyi DP
of a mechanism, which bounds both D_a(P || Q) and D_a(Q || P) over neighbouring pairs,
``symmetric=True`` (the default) also imposes the reverse constraint
``(1 - beta)^a alpha^{1-a} + beta^a (1 - alpha)^{1-a} <= e^{(a-1) tau_a}``. Both constraint
functions are convex in beta with their minimum 1 at beta = 1 - alpha, hence decreasing on
[0, 1 - alpha]: each infimum is the unique root there, found by false position (in log beta for the
first constraint, whose root lies in [(1 - alpha)^{a/(a-1)} e^{-tau}, 1 - alpha]). The feasible
set is convex (``e^{(a-1) D_a}`` is jointly convex for a > 1), so f is convex: a trade-off
function, and ``delta``/``epsilon`` of it are the optimal conversions of the RDP guarantee.

Numerically the brackets are computed in log space at the working precision and widened by a
few units in the last place; the certified evaluation loop then checks the digits at a higher
precision. With many orders a float64 pass first estimates every order's root and only the
orders within a relative 1e-6 of the largest (far above float64's rounding) are computed at
high precision.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import round_nearest

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric import budget
from ..numeric.context import mp
from ..numeric.protocol import arb_delta, arb_value, mp_roc, mp_value, np_value, num

__all__ = ["RenyiRegion"]


class RenyiRegion(TradeOff):
    """The tightest trade-off function with D_a <= tau_a at the given orders (module docstring).

    ``RenyiRegion({2: 1, 8: 3})`` or ``RenyiRegion([(2, 1), (8, 3)])``; ``symmetric=False``
    bounds D_a(P || Q) only.
    """

    def __new__(cls, bounds: Any, symmetric: Any = True):
        try:
            items = dict(bounds).items()
        except (TypeError, ValueError) as exc:
            raise InvalidParameter("bounds", bounds, "a mapping {order: tau} or a list of pairs "
                                   "(order, tau) with orders > 1", "RenyiRegion") from exc
        pairs = []
        for a, t in items:
            a = param("order", a, lower=1, lower_open=True, owner="RenyiRegion")
            t = param("tau", t, lower=0, owner="RenyiRegion")
            pairs.append(sp.Tuple(a, t))
        if not pairs:
            raise InvalidParameter("bounds", bounds, "at least one order", "RenyiRegion")
        if not isinstance(symmetric, (bool, sp.logic.boolalg.BooleanAtom)):
            raise InvalidParameter("symmetric", symmetric, "True or False", "RenyiRegion")
        pairs.sort(key=sp.default_sort_key)
        return TradeOff.__new__(cls, sp.Tuple(*pairs), sp.sympify(bool(symmetric)))

    @property
    def bounds(self) -> dict:
        return {a: t for a, t in self.args[0]}

    @property
    def is_symmetric(self) -> bool:
        return bool(self.args[1])

    def _eval_inverse(self):
        return self if self.is_symmetric else None

    def _sympystr(self, printer) -> str:
        body = ", ".join("(%s, %s)" % (printer._print(a), printer._print(t))
                         for a, t in self.args[0])
        sym = "" if self.is_symmetric else ", symmetric=False"
        return "RenyiRegion([%s]%s)" % (body, sym)

    def _latex(self, printer) -> str:
        body = ", ".join(r"D_{%s} \le %s" % (printer._print(a), printer._print(t))
                         for a, t in self.args[0])
        return r"T_{\mathrm{R\acute{e}nyi}}\left(%s\right)" % body


def _logsum(x, y):
    if x == mp.ninf:
        return y
    if y == mp.ninf:
        return x
    m = max(x, y)
    return m + mp.log(mp.exp(x - m) + mp.exp(y - m))


def _lg(x):
    return mp.ninf if x == 0 else mp.log(x)


def _root(F, lo, hi):
    """(lo, hi) bracketing the root of the decreasing F on [lo, hi] (F(lo) > 0 >= F(hi)), by
    the Illinois variant of false position (superlinear), to a relative width 2^-(prec-4)."""
    flo, fhi = F(lo), F(hi)
    tol = mp.ldexp(1, -(mp.prec - 4))
    side = 0
    for _ in range(4 * mp.prec):
        if hi - lo <= tol * max(abs(lo), abs(hi), mp.ldexp(1, -mp.prec * 4)):
            break
        m = hi - fhi * (hi - lo) / (fhi - flo) if fhi != flo else (lo + hi) / 2
        if not lo < m < hi:
            m = (lo + hi) / 2
        fm = F(m)
        if fm <= 0:
            hi, fhi = m, fm
            if side == -1:
                flo /= 2
            side = -1
        else:
            lo, flo = m, fm
            if side == 1:
                fhi /= 2
            side = 1
    return lo, hi


def _beta_forward(A, T, la, lac):
    """inf beta with alpha^a (1-beta)^{1-a} + (1-alpha)^a beta^{1-a} <= e^{(a-1) tau}, from
    log alpha and log(1 - alpha); returns (lo, hi) of the root in beta."""
    C = (A - 1) * T

    def G(lb):  # log g - log C at beta = e^lb (1 - beta from expm1: accurate near beta = 0)
        l1b = mp.log(-mp.expm1(lb)) if lb < 0 else mp.ninf
        return _logsum(A * la + (1 - A) * l1b if la != mp.ninf else mp.ninf,
                       A * lac + (1 - A) * lb) - C

    hi = lac  # beta = 1 - alpha: g = 1
    lo = A / (A - 1) * lac - T
    if lo >= hi:
        return mp.exp(hi), mp.exp(hi)
    if G(lo) <= 0:  # the lower bound of the root is feasible: it is the root
        return mp.exp(lo), mp.exp(lo)
    lo, hi = _root(G, lo, hi)
    return mp.exp(lo), mp.exp(hi)


def _beta_reverse(A, T, a, ac):
    """inf beta with (1-beta)^a alpha^{1-a} + beta^a (1-alpha)^{1-a} <= e^{(a-1) tau}."""
    C = (A - 1) * T
    la, lac = _lg(a), _lg(ac)
    if la == mp.ninf:
        return ac, ac  # alpha = 0: alpha^{1-a} = oo forces beta = 1

    def H(b):
        return _logsum(A * mp.log1p(-b) + (1 - A) * la if b < 1 else mp.ninf,
                       A * _lg(b) + (1 - A) * lac if lac != mp.ninf else mp.ninf) - C

    lo, hi = mp.zero, ac
    if H(lo) <= 0:
        return lo, lo
    return _root(H, lo, hi)


#: Relative margin of the float64 screening of the orders (far above its rounding errors).
SCREEN_MARGIN = 1e-6


def _float_roots(A: np.ndarray, T: np.ndarray, a: float, ac: float, symmetric: bool):
    """Float64 estimates of each order's root (the larger of the two directions), by
    vectorised bisection; used only to skip orders that cannot attain the maximum."""
    with np.errstate(all="ignore"):
        la, lac = (np.log(a) if a > 0 else -np.inf), np.log(ac)
        C = (A - 1) * T
        lo, hi = A / (A - 1) * lac - T, np.full_like(A, lac)
        lo = np.minimum(lo, hi)
        for _ in range(64):
            m = (lo + hi) / 2
            l1b = np.log(-np.expm1(np.minimum(m, -1e-300)))
            g = np.logaddexp(A * la + (1 - A) * l1b if a > 0 else -np.inf,
                             A * lac + (1 - A) * m) - C
            hi, lo = np.where(g <= 0, m, hi), np.where(g <= 0, lo, m)
        beta = np.exp(hi)
        if symmetric and a > 0:
            lo, hi = np.zeros_like(A), np.full_like(A, ac)
            for _ in range(64):
                m = (lo + hi) / 2
                h = np.logaddexp(A * np.log1p(-m) + (1 - A) * la,
                                 A * np.log(np.maximum(m, 1e-320)) + (1 - A) * lac) - C
                hi, lo = np.where(h <= 0, m, hi), np.where(h <= 0, lo, m)
            beta = np.maximum(beta, hi)
        elif symmetric:
            beta = np.full_like(A, ac)
    return beta


def _candidates(f: RenyiRegion, a, ac) -> list:
    """The (order, tau) pairs that can attain the maximum at alpha (all of them for two or
    fewer orders, or when the float64 screening is not conclusive)."""
    pairs = list(f.args[0])
    if len(pairs) <= 2:
        return pairs
    A = np.array([float(x) for x, _ in pairs])
    T = np.array([float(t) for _, t in pairs])
    b = _float_roots(A, T, float(a), float(ac), f.is_symmetric)
    if not np.all(np.isfinite(b)) or float(ac) == 0.0:
        return pairs
    top = b.max()
    return [p for p, x in zip(pairs, b, strict=True) if x >= top * (1 - SCREEN_MARGIN)]


def _value(f: RenyiRegion, a, ac):
    if ac == 0:
        return mp.zero, mp.zero
    la, lac = _lg(a), _lg(ac)
    lo = hi = mp.zero
    for A_, T_ in _candidates(f, a, ac):
        A, T = num(A_, "order"), num(T_, "tau")
        bl, bh = _beta_forward(A, T, la, lac)
        if f.is_symmetric:
            rl, rh = _beta_reverse(A, T, a, ac)
            bl, bh = max(bl, rl), max(bh, rh)
        lo, hi = max(lo, bl), max(hi, bh)
    u = mp.ldexp(1, -(mp.prec - 8))
    return max(mp.zero, lo * (1 - u)), min(ac, hi * (1 + u))


# -- certified values (Arb) ------------------------------------------------------------------------
# Each constraint function is decreasing on [0, 1 - alpha] (module docstring), so a root lies in
# [lo, hi] exactly when the function is > C at lo (or lo = 0) and <= C at hi: the mpmath
# brackets above, widened a little, are proved by two Arb evaluations each; the root is
# <= 1 - alpha always (there the function is 1 <= C).
def _polish(F, dF, lo, hi):
    """Newton steps on the decreasing F from a bracket (lo, hi) of its root, kept inside the
    bracket (bisection where a step leaves it); an estimate that the caller proves in Arb."""
    x = (lo + hi) / 2
    tol = mp.ldexp(1, -(mp.prec - 8))
    for _ in range(2 * mp.prec.bit_length() + 40):
        budget.check()
        fx, d = F(x), dF(x)
        if fx == 0:
            return x
        if fx > 0:
            lo = x
        else:
            hi = x
        nx = x - fx / d if d < 0 and mp.isfinite(d) else (lo + hi) / 2
        if not lo <= nx <= hi:
            nx = (lo + hi) / 2
        if abs(nx - x) <= tol * max(abs(x), mp.ldexp(1, -4 * mp.prec)):
            return nx
        x = nx
    return x


def _flogsum(x, y):
    m = max(x, y)
    return m if m == -math.inf else m + math.log1p(math.exp(-abs(x - y)))


def _float_bracket(forward: bool, A, T, la, lac):
    """A float64 bisection bracket (mpf ends) of the root, in log beta for the forward
    constraint and in beta for the reverse one, or None (a float leaves its range): the start
    of the Newton polish, never a bound (the caller proves the polished root in Arb)."""
    try:
        A, T, la, lac = float(A), float(T), float(la), float(lac)
        C = (A - 1) * T
        if forward:
            def F(x):
                return _flogsum(A * la + (1 - A) * math.log(-math.expm1(x)),
                                A * lac + (1 - A) * x) - C
            lo, hi = A / (A - 1) * lac - T, lac
        else:
            def F(x):
                return _flogsum(A * math.log1p(-x) + (1 - A) * la,
                                A * math.log(x) + (1 - A) * lac if x > 0 else -math.inf) - C
            lo, hi = 0.0, math.exp(lac)
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
            return None
        for _ in range(64):
            m = (lo + hi) / 2
            if F(m) > 0:
                lo = m
            else:
                hi = m
    except (ValueError, OverflowError):
        return None
    return mp.mpf(lo), mp.mpf(hi)


def _fast_forward(A, T, la, lac):
    """:func:`_beta_forward` as a 64-bit bracket polished by Newton steps in log beta
    (dG/dlb = (A - 1)((1 - w) beta/(1 - beta) - w), w the share of the second term)."""
    fb = _float_bracket(True, A, T, la, lac)
    if fb is not None:
        lo, hi = mp.exp(fb[0]), mp.exp(fb[1])
    else:
        with mp.workprec(64):
            lo, hi = _beta_forward(A, T, la, lac)
    C = (A - 1) * T

    def parts(lb):
        l1b = mp.log(-mp.expm1(lb))
        return A * la + (1 - A) * l1b, A * lac + (1 - A) * lb

    def G(lb):
        x, y = parts(lb)
        return _logsum(x, y) - C

    def dG(lb):
        x, y = parts(lb)
        w = 1 / (1 + mp.exp(x - y))
        b = mp.exp(lb)
        return (A - 1) * ((1 - w) * b / (1 - b) - w)

    w = mp.ldexp(1, -40)  # the 64-bit bracket, widened beyond its rounding
    x = _polish(G, dG, mp.log(lo) - w, min(mp.log(hi) + w, lac))
    return mp.exp(x), mp.exp(x), abs(dG(x))


def _fast_reverse(A, T, a, ac):
    """:func:`_beta_reverse` as a 64-bit bracket polished by Newton steps in beta."""
    if a > 0 and (1 - A) * _lg(a) <= (A - 1) * T:  # H(0) = alpha^{1-a} <= C: the root is 0
        return mp.zero, mp.zero, mp.one
    fb = None if a == 0 or float(a) == 0.0 else _float_bracket(False, A, T, _lg(a), _lg(ac))
    if fb is not None and fb[1] > 0:
        lo, hi = fb
    else:
        with mp.workprec(64):
            lo, hi = _beta_reverse(A, T, a, ac)
    if hi == 0:  # H(0) <= C: the root is 0 (proved in Arb by the caller)
        return lo, hi, mp.one
    C = (A - 1) * T
    la, lac = _lg(a), _lg(ac)

    def parts(b):
        return A * mp.log1p(-b) + (1 - A) * la, A * mp.log(b) + (1 - A) * lac

    def H(b):
        x, y = parts(b)
        return _logsum(x, y) - C

    def dH(b):
        x, y = parts(b)
        w = 1 / (1 + mp.exp(x - y))
        return A * (w / b - (1 - w) / (1 - b))

    w = mp.ldexp(1, -40)  # the 64-bit bracket, widened beyond its rounding
    x = _polish(H, dH, lo * (1 - w), min(hi * (1 + w), ac))
    return x, x, abs(x * dH(x))


def _arb_forward(a, ac, A, b):
    return a ** A * (1 - b) ** (1 - A) + ac ** A * b ** (1 - A)


def _arb_reverse(a, ac, A, b):
    return (1 - b) ** A * a ** (1 - A) + b ** A * ac ** (1 - A)


def _arb_bracket(fn, a, ac, A, C, lo, hi, slope):
    """The ball [lo', hi'] of inf{beta in [0, 1 - alpha] : fn(beta) <= C} from the mpf bracket
    (lo, hi), widened by 2^-(prec - 24) relative (divided by ``slope`` = |d log fn/d log beta|
    at the root where it is below 1, so that the widening moves fn beyond the balls' radius)
    and proved in Arb, or None (undecided)."""
    from flint import arb

    from ..numeric.arb import arb_exact

    if hi == 0:  # only the reverse constraint's root is 0: H(0) = alpha^{1-a} <= C
        return arb(0) if fn is _arb_reverse and a ** (1 - A) <= C else None
    u = mp.ldexp(1, -(mp.prec - 24)) / min(mp.one, max(slope, mp.ldexp(1, -64)))
    blo = arb_exact(max(lo * (1 - u), mp.zero))
    if blo > 0 and not fn(a, ac, A, blo) > C:
        return None
    if hi * (1 + u) >= mp.mpf(ac.mid()) * (1 - u):  # the root is <= 1 - alpha
        bhi = ac
    else:
        bhi = arb_exact(hi * (1 + u))
        if not fn(a, ac, A, bhi) <= C:
            return None
    return arb(0).union(bhi) if blo == 0 else blo.union(bhi)


def _arb_value(f: RenyiRegion, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball for balls a, ac with 0 < alpha < 1:
    every order's roots (both directions when symmetric) bracketed by the mpmath route at the
    ball's midpoint and proved in Arb (:func:`_arb_bracket`), then their maximum. None where a
    bracket is not proved."""
    from flint import arb, ctx

    from ..numeric.arb import arb_endpoint
    from ..numeric.arb_expr import arb_ball

    if not (a > 0 and ac > 0):
        return None
    best = None
    with mp.workprec(ctx.prec + 16):
        am, acm = arb_endpoint(a.mid(), round_nearest), arb_endpoint(ac.mid(), round_nearest)
        la, lac = _lg(am), _lg(acm)
        for A_, T_ in f.args[0]:
            A, T = num(A_, "order"), num(T_, "tau")
            Ab, C = arb_ball(A_), ((arb_ball(A_) - 1) * arb_ball(T_)).exp()
            parts = [(_arb_forward, _fast_forward(A, T, la, lac))]
            if f.is_symmetric:
                parts.append((_arb_reverse, _fast_reverse(A, T, am, acm)))
            for fn, (lo, hi, slope) in parts:
                ball = _arb_bracket(fn, a, ac, Ab, C, lo, hi, slope)
                if ball is None:
                    return None
                best = ball if best is None else arb.max(best, ball)
    return 1 - best if power else best


@mp_value.register(RenyiRegion)
def _(f, a, ac):
    return _value(f, a, ac)


@mp_roc.register(RenyiRegion)
def _(f, a, ac):
    lo, hi = _value(f, a, ac)
    return 1 - hi, 1 - lo


@np_value.register(RenyiRegion)
def _(f, x):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i, a in enumerate(x.ravel()):
        with mp.workdps(17):
            lo, hi = _value(f, mp.mpf(float(a)), 1 - mp.mpf(float(a)))
        out.flat[i] = float((lo + hi) / 2)
    return out


arb_value.register(RenyiRegion)(_arb_value)


@arb_delta.register(RenyiRegion)
def _(f, eps):
    """delta(eps) = sup_alpha {1 - e^eps alpha - f(alpha)} (Dong, Roth & Su, Prop. 6), the
    optimal (eps, delta) conversion of the Renyi bounds (Asoodeh et al. 2021), as an Arb ball:
    the maximum of the concave function by :func:`~..numeric.concave.arb_max_concave` on the
    certified values of :func:`_arb_value`; f(0) = 1 when symmetric (the reverse constraint
    forces beta = 1), else max_a e^{-tau_a} (beta^{1-a} <= e^{(a-1) tau_a}); f(1) = 0."""
    from flint import arb

    from ..numeric.arb_expr import arb_ball
    from ..numeric.concave import arb_max_concave

    E = eps.exp()
    if f.is_symmetric:
        f0 = arb(1)
    else:
        f0 = None
        for _, T_ in f.args[0]:
            x = (-arb_ball(T_)).exp()
            f0 = x if f0 is None else arb.max(f0, x)

    def psi(t):
        if t == 0:
            return 1 - f0
        if t == 1:
            return 1 - E
        v = _arb_value(f, t, 1 - t, False)
        return None if v is None else 1 - E * t - v

    return arb_max_concave(psi)
