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
``(1 - beta)^a alpha^{1-a} + beta^a (1 - alpha)^{1-a} <= e^{(a-1) tau_a}``, which is the first
constraint function at the order 1 - a: both are
g(beta) = alpha^p (1 - beta)^q + (1 - alpha)^p beta^q with p + q = 1, (p, q) = (a, 1 - a) or
(1 - a, a) (``_exponents``; the skew symmetry of Renyi divergences), and one solver serves
both. g is convex in beta with its minimum 1 at beta = 1 - alpha, hence decreasing on
[0, 1 - alpha]: each infimum is the unique root there, found by false position in log beta
from a lower bound where the term decreasing in beta alone reaches e^{(a-1) tau}
((1 - alpha)^{a/(a-1)} e^{-tau} for the first constraint; for the reverse one the root is 0
when alpha^{1-a} <= e^{(a-1) tau}). A bound tau_a = 0 forces P = Q, so f(alpha) = 1 - alpha.
The feasible
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


def _exponents(A, symmetric: bool) -> list:
    """The exponents (p, q) of g = alpha^p (1 - beta)^q + (1 - alpha)^p beta^q <= e^{(a-1) tau}
    for one order: (a, 1 - a), the constraint on D_a(P || Q), and when ``symmetric`` also
    (1 - a, a), the reverse constraint on D_a(Q || P), which is the same function at the order
    1 - a (the skew symmetry of Renyi divergences, van Erven & Harremoes 2014). ``A`` is an
    mpf, a float or an Arb ball."""
    return [(A, 1 - A), (1 - A, A)] if symmetric else [(A, 1 - A)]


def _floor(p, q, L, la, lac):
    """log of a lower bound of the root of g (module docstring; exponents p + q = 1, q < 0
    or q > 1, L = (a-1) tau): the root makes each term at most e^L, and the term that
    decreases in beta gives the bound, (1 - alpha)^p beta^q when q < 0 and
    alpha^p (1 - beta)^q when q > 1; None when that term is at most e^L at beta = 0 (q > 1
    and alpha^p <= e^L: the root is 0)."""
    if q < 0:
        return (L - p * lac) / q
    x = (L - p * la) / q  # log(1 - beta) at the bound
    if x >= 0:
        return None
    return mp.log(-mp.expm1(x)) if x > -mp.ln2 else mp.log1p(-mp.exp(x))  # (no cancellation)


def _log_g(p, q, L, la, lac):
    """log g - L as a function of t = log beta (decreasing on (-oo, log(1 - alpha)]; 1 - beta
    from expm1, accurate near beta = 0), for the exponents (p, q) of :func:`_exponents`."""
    def G(t):
        if la == mp.ninf:  # alpha = 0 (only q < 0 comes here): the first term vanishes
            x = mp.ninf
        else:
            x = p * la + q * (mp.log(-mp.expm1(t)) if t < 0 else mp.ninf)
        return _logsum(x, p * lac + q * t) - L
    return G


def _beta_root(p, q, L, la, lac):
    """inf{beta in [0, 1 - alpha] : g(beta) <= e^L} for the exponents (p, q) (module
    docstring), by false position in log beta from the bracket [:func:`_floor`,
    log(1 - alpha)], from log alpha and log(1 - alpha); returns (lo, hi) of the root."""
    hi = lac  # beta = 1 - alpha: g = 1
    lo = _floor(p, q, L, la, lac)
    if lo is None:
        return mp.zero, mp.zero
    if lo >= hi:
        return mp.exp(hi), mp.exp(hi)
    G = _log_g(p, q, L, la, lac)
    if G(lo) <= 0:  # the lower bound of the root is feasible: it is the root
        return mp.exp(lo), mp.exp(lo)
    lo, hi = _root(G, lo, hi)
    return mp.exp(lo), mp.exp(hi)


#: Relative margin of the float64 screening of the orders (far above its rounding errors).
SCREEN_MARGIN = 1e-6


def _float_bisect(p, q, L, la: float, lac: float, lo: np.ndarray) -> np.ndarray:
    """64 float64 bisection steps on log g - L in t = log beta from [lo, log(1 - alpha)], for
    arrays of exponents p, q and L (one entry per order; callers hold np.errstate): the upper
    ends, each an estimate of its root (the screening of the orders, the start of the Newton
    polish), never a bound."""
    hi = np.full_like(lo, lac)
    lo = np.minimum(lo, hi)
    for _ in range(64):
        m = (lo + hi) / 2
        first = p * la + q * np.log(-np.expm1(np.minimum(m, -1e-300))) if la > -np.inf else -np.inf
        g = np.logaddexp(first, p * lac + q * m) - L
        hi, lo = np.where(g <= 0, m, hi), np.where(g <= 0, lo, m)
    return hi


def _float_starts(A: np.ndarray, T: np.ndarray, la: float, lac: float, symmetric: bool
                  ) -> list:
    """For each pair of exponents of :func:`_exponents`, float64 estimates of log of every
    order's root (-inf where the root is 0), by :func:`_float_bisect` from :func:`_floor`'s
    bound: the screening of the orders and the starts of the Newton polish."""
    with np.errstate(all="ignore"):
        L = (A - 1) * T
        out = []
        for p, q in _exponents(A, symmetric):
            x = np.minimum((L - p * la) / q, 0)  # (0 where the root is 0)
            floor = np.where(q < 0, (L - p * lac) / q,
                             np.where(x > -math.log(2), np.log(-np.expm1(x)),
                                      np.log1p(-np.exp(x))))
            out.append(np.where((q > 0) & (x >= 0), -np.inf,  # (the root 0: _floor)
                                _float_bisect(p, q, L, la, lac, floor)))
    return out


def _float_roots(A: np.ndarray, T: np.ndarray, a: float, ac: float, symmetric: bool):
    """Float64 estimates of each order's root (the largest over :func:`_exponents`); used
    only to skip orders that cannot attain the maximum."""
    with np.errstate(divide="ignore"):
        la, lac = (np.log(a) if a > 0 else -np.inf), np.log(ac)
    return np.exp(np.max(_float_starts(A, T, la, lac, symmetric), axis=0))


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
    if any(t == 0 for _, t in f.args[0]):  # D_a = 0: P = Q, beta = 1 - alpha
        return ac, ac
    la, lac = _lg(a), _lg(ac)
    lo = hi = mp.zero
    for A_, T_ in _candidates(f, a, ac):
        A, T = num(A_, "order"), num(T_, "tau")
        for p, q in _exponents(A, f.is_symmetric):
            bl, bh = _beta_root(p, q, (A - 1) * T, la, lac)
            lo, hi = max(lo, bl), max(hi, bh)
    u = mp.ldexp(1, -(mp.prec - 8))
    return max(mp.zero, lo * (1 - u)), min(ac, hi * (1 + u))


# -- certified values (Arb) ------------------------------------------------------------------------
# Each constraint function is decreasing on [0, 1 - alpha] (module docstring), so a root lies in
# [lo, hi] exactly when the function is > C at lo (or lo = 0) and <= C at hi: the roots of the
# Newton polish below, widened a little, are proved by two Arb evaluations each; the root is
# <= 1 - alpha always (there the function is 1 <= C).
def _polish(F, dF, lo, hi, x):
    """Newton steps on the decreasing F from x in a bracket (lo, hi) of its root, kept inside
    the bracket, which each step narrows (bisection where a step leaves it); an estimate that
    the caller proves in Arb."""
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


def _fast_root(p, q, L, la, lac, t0: float):
    """:func:`_beta_root` by Newton steps in t = log beta (dG/dt = q (w - (1 - w) beta/(1 -
    beta)), w the share of the second term) from the float estimate t0 (:func:`_float_starts`),
    inside the bracket [:func:`_floor`, log(1 - alpha)] (where g is ill-conditioned, an order
    near 1, the root can lie outside any narrow float bracket); returns (beta, beta,
    |dG/dt|), or (0, 0, 1) where the root is 0 (proved in Arb by the caller)."""
    lo = _floor(p, q, L, la, lac)
    if lo is None:  # g(0) = alpha^p <= e^L: the root is 0
        return mp.zero, mp.zero, mp.one
    if not math.isfinite(t0):  # (a float left its range)
        with mp.workprec(64):
            t0 = mp.log(_beta_root(p, q, L, la, lac)[1])

    def dG(t):
        x, y = p * la + q * mp.log(-mp.expm1(t)), p * lac + q * t
        w = 1 / (1 + mp.exp(x - y))
        b = mp.exp(t)
        return q * (w - (1 - w) * b / (1 - b))

    lo = min(lo, lac) - mp.ldexp(1, -40)  # (the floor is the root where one term dominates)
    t = _polish(_log_g(p, q, L, la, lac), dG, lo, lac, min(max(mp.mpf(t0), lo), lac))
    return mp.exp(t), mp.exp(t), abs(dG(t))


def _arb_g(a, ac, p, q, b):
    return a ** p * (1 - b) ** q + ac ** p * b ** q


def _arb_bracket(a, ac, p, q, C, lo, hi, slope):
    """The ball [lo', hi'] of inf{beta in [0, 1 - alpha] : g(beta) <= C} (:func:`_arb_g`, the
    exponents p, q Arb balls) from the mpf bracket
    (lo, hi), widened by 2^-(prec - 24) relative (divided by ``slope`` = |d log g/d log beta|
    at the root where it is below 1, so that the widening moves g beyond the balls' radius)
    and proved in Arb, or None (undecided)."""
    from flint import arb

    from ..numeric.arb import arb_exact

    if hi == 0:  # only a root with q > 1 is 0: g(0) = alpha^p <= C
        return arb(0) if q > 1 and a ** p <= C else None
    u = mp.ldexp(1, -(mp.prec - 24)) / min(mp.one, max(slope, mp.ldexp(1, -64)))
    blo = arb_exact(max(lo * (1 - u), mp.zero))
    if blo > 0 and not _arb_g(a, ac, p, q, blo) > C:
        return None
    if hi * (1 + u) >= mp.mpf(ac.mid()) * (1 - u):  # the root is <= 1 - alpha
        bhi = ac
    else:
        bhi = arb_exact(hi * (1 + u))
        if not _arb_g(a, ac, p, q, bhi) <= C:
            return None
    return arb(0).union(bhi) if blo == 0 else blo.union(bhi)


def _arb_value(f: RenyiRegion, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball for balls a, ac with 0 < alpha < 1:
    every order's roots (each pair of exponents of :func:`_exponents`) bracketed at the
    ball's midpoint and proved in Arb (:func:`_arb_bracket`), then their maximum. None where a
    bracket is not proved."""
    from flint import arb, ctx

    from ..numeric.arb import arb_endpoint
    from ..numeric.arb_expr import arb_ball

    if not (a > 0 and ac > 0):
        return None
    if any(t == 0 for _, t in f.args[0]):  # D_a = 0: P = Q, beta = 1 - alpha
        return a if power else ac
    best = None
    with mp.workprec(ctx.prec + 16):
        am, acm = arb_endpoint(a.mid(), round_nearest), arb_endpoint(ac.mid(), round_nearest)
        la, lac = _lg(am), _lg(acm)
        pairs = [(num(A_, "order"), num(T_, "tau")) for A_, T_ in f.args[0]]
        starts = _float_starts(np.array([float(A) for A, _ in pairs]),
                               np.array([float(T) for _, T in pairs]), float(la), float(lac),
                               f.is_symmetric)
        for i, ((A_, T_), (A, T)) in enumerate(zip(f.args[0], pairs, strict=True)):
            Ab, C = arb_ball(A_), ((arb_ball(A_) - 1) * arb_ball(T_)).exp()
            for k, ((p, q), (pb, qb)) in enumerate(zip(_exponents(A, f.is_symmetric),
                                                       _exponents(Ab, f.is_symmetric),
                                                       strict=True)):
                lo, hi, slope = _fast_root(p, q, (A - 1) * T, la, lac, float(starts[k][i]))
                ball = _arb_bracket(a, ac, pb, qb, C, lo, hi, slope)
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
