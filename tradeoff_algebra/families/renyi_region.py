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

from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.context import mp
from ..numeric.protocol import mp_roc, mp_value, np_value, num

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
