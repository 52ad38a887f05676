"""The GDP parameter of a trade-off function: the smallest mu with f >= G_mu.

Dong, Roth & Su, Def. 4: a mechanism is mu-GDP when its trade-off function satisfies
f >= G_mu, with G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (Eq. (5)). G_mu decreases in mu, so
f >= G_mu exactly when

    mu >= m(alpha) = Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha))

for every alpha in (0, 1), so the smallest such mu is ``mu* = sup_alpha m(alpha)`` (+oo when
f(0) < 1 or f reaches 0 before alpha = 1: G_mu does neither). ``m`` is the same at (alpha,
f(alpha)) and at the reflected point (f(alpha), alpha) of f^{-1}, and every point of f has
alpha <= 1/2 or f(alpha) <= 1/2 (f <= 1 - alpha), so the sup is taken over alpha in (0, 1/2] for
f and, when f is not symmetric, for f^{-1}.

Certified enclosure (:func:`gdp_mu`). In the coordinate u = Phi^{-1}(1 - alpha) in [0, U], a
point gives a lower bound of mu*; on a cell [u1, u2] (alpha in [alpha(u2), alpha(u1)]) monotonicity
gives ``m <= u2 + Phi^{-1}(roc(alpha(u1)))`` with the certified upper end of roc = 1 - f, and
branch and bound splits the cells whose bound exceeds the best point by more than ``tol``. The
tail alpha < alpha(U) is bounded in one of two ways:

* when the likelihood ratio is bounded, dQ/dP <= s = exp(D_oo(Q || P)) < oo: every test has
  E_Q phi <= s E_P phi, so f(alpha) >= 1 - s alpha and
  m(alpha) <= Phi^{-1}(1 - alpha) - Phi^{-1}(1 - s alpha), which is non-decreasing in alpha
  (the Gaussian tail is log-concave: the shift that multiplies the upper tail by s shrinks as
  the tail recedes), so its value at alpha(U) bounds the whole tail;
* otherwise by a Gaussian minorant known from the expression: G_mu itself; f (x) g >= G_a (x) G_b
  = G_sqrt(a^2 + b^2) (Cor. 2, the product is monotone in each factor); C_p(f), Mix(f, p),
  hulls, f^{-1} and max(f, g) lie above a common minorant of their operands (C_p(f) >= f
  because f_p >= f and f is symmetric, Id >= G_mu); a factor with a bounded likelihood ratio
  brings its own certified mu.

For an unbounded likelihood ratio mu* is decided in the far tail (for C_p(G_mu) and Mix(G_mu,
p) it is mu itself: near alpha = 0 the power is p(1 - G_mu(alpha)) + ..., whose Gaussian shift
tends to mu), and the points reached (u <= :data:`U_MAX`) approach it only like log(1/p)/u: the
enclosure then says so by its width.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import InvalidParameter, ToleranceWarning, TradeOffError
from ..core.node import TradeOff
from ..core.validate import count, param
from ..numeric import budget
from ..numeric.capability import gdp_mu_form
from ..numeric.context import mp
from ..numeric.normal import ncdf, ncdf_inv_upper
from ..numeric.protocol import MAX_DPS, evaluate, mp_curve, roc, short
from ..numeric.value import Value
from ..operators.maxgroup import Max
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull, Symmetrize
from ..rewrite.simplify import simplify
from .functionals import closed_value
from .lazy import FUNCTIONALS, Functional

__all__ = ["gdp_mu"]

#: Largest u = Phi^{-1}(1 - alpha) the cells reach (alpha ~ 1e-890).
U_MAX = 64
#: Cells per side before the search stops with the enclosure it has.
MAX_CELLS = 3000
#: Smallest level evaluated through a composed grid (float64 f; 1 - f must resolve the power).
ALPHA_BATCH = 1e-13


def _pad(x, up: bool):
    """x moved outward by a few units of the working precision, relative to 1 + |x|."""
    if not mp.isfinite(x):
        return x
    r = mp.ldexp(1 + abs(x), -mp.prec + 12)
    return x + r if up else x - r


def _z_up(q):
    """Upper bound of Phi^{-1}(1 - q) (decreasing in q)."""
    return _pad(ncdf_inv_upper(q), True)


def _z_lo(q):
    return _pad(ncdf_inv_upper(q), False)


def _tail_slope(h: TradeOff):
    """An upper bound of s = |h'(0+)| = exp(D_oo(Q || P)) for h = T(P, Q), or None (unbounded
    or unknown). From the max divergence where it has a closed form, and through the sampling
    operators: f_p = p f + (1 - p) Id has slope p s(f) + 1 - p at 0 and, at 1, p |f'(1-)| + 1 - p
    with |f'(1-)| = 1/s(f^{-1}); C_p(f) is the convex minorant of min{f_p, f_p^{-1}}, whose
    steepest chord from (0, 1) is the steeper of the two initial slopes."""
    from .renyi import renyi

    if isinstance(h, (Mix, Subsample)) or (isinstance(h, Inverse)
                                           and isinstance(h.arg, (Mix, Subsample))):
        inv = isinstance(h, Inverse)
        g = h.arg if inv else h
        p = mp.mpf(sp.N(g.p, mp.dps + 10))
        s0, s1 = _tail_slope(g.arg), _tail_slope(Inverse(g.arg))
        if s0 is None or s1 is None:
            return None
        at0, at1 = p * s0 + 1 - p, 1 / (p / s1 + 1 - p)  # slopes of f_p, f_p^{-1} at 0
        if isinstance(g, Subsample):
            return _pad(max(at0, at1), True)
        return _pad(at1 if inv else at0, True)
    if isinstance(h, Max):  # max{f, g} >= f >= 1 - s_f alpha (dQ/dP <= s_f: E_Q phi <= s_f alpha)
        ss = [x for x in map(_tail_slope, h.args) if x is not None]
        return min(ss) if ss else None
    if isinstance(h, Inverse):
        g = simplify(h)
        if g != h:
            return _tail_slope(g)
    try:
        d = renyi(Inverse(h), sp.oo)
    except TradeOffError:
        return None
    if d is sp.oo or d.free_symbols:
        return None
    return _pad(mp.exp(mp.mpf(sp.N(d, mp.dps + 10))), True)


def _minorant(f: TradeOff, dps: int):
    """An upper bound of mu* known from the structure of f (module docstring), or None."""
    form = gdp_mu_form(f)
    if form is not None and form.is_number and form.is_finite:  # mu* itself
        return mp.zero if form.is_zero else _pad(mp.mpf(sp.N(form, mp.dps + 10)), True)
    if isinstance(f, (Inverse, SymmetricHull, Symmetrize, Mix, Subsample)):
        return _minorant(f.args[0], dps)
    if isinstance(f, Max):
        ms = [m for m in (_minorant(g, dps) for g in f.args) if m is not None]
        return min(ms) if ms else None
    if isinstance(f, (Tensor, TensorPower)):
        parts = [(f.base, f.n)] if isinstance(f, TensorPower) else [(g, 1) for g in f.factors]
        total = mp.zero
        for g, n in parts:
            m = _minorant(g, dps)
            if m is None:
                return None
            total += m * m * mp.mpf(sp.N(n, mp.dps + 10))
        return _pad(mp.sqrt(total), True)
    if _tail_slope(f) is not None:  # a bounded likelihood ratio: its own certified mu
        hi = _enclosure(f, dps, mp.mpf(10) ** -6)[1]
        return hi if mp.isfinite(hi) else None
    return None


def _enclosure(g: TradeOff, dps: int, tol) -> tuple:
    """(lo, hi) of mu* for a numeric g: the sides of the module docstring."""
    sides = [g] if g.is_symmetric else [g, simplify(Inverse(g))]
    for h in sides:
        if evaluate(h, 0, dps=dps).interval()[1] < 1:  # h(0) < 1: no G_mu lies below
            return mp.inf, mp.inf
    lo, hi = mp.zero, mp.zero
    for h in sides:
        slope = _tail_slope(h)
        s_lo, s_hi = _side(h, dps, tol, slope, None if slope is not None else _minorant(h, dps))
        lo, hi = max(lo, s_lo), max(hi, s_hi)
    return lo, hi


def _powers(h: TradeOff, us: list, dps: int, cache: dict) -> None:
    """Fill ``cache[u] = (alpha(u), (lo, hi) of roc(alpha(u)))`` for the new u: one composed
    grid for every level at once where the node has one (``mp_curve``: products and their
    hulls; levels >= 1e-13, where 1 - f in float64 still resolves the power), else certified
    point evaluations of the power."""
    us = [u for u in us if u not in cache]
    alphas = {u: ncdf(-u) for u in us}
    batch = [u for u in us if alphas[u] >= ALPHA_BATCH]
    levels = np.array([float(alphas[u]) for u in batch])
    enc = mp_curve(h, levels) if len(batch) > 1 else None
    if enc is not None:
        for u, flo, fhi, x in zip(batch, enc[0], enc[1], levels, strict=True):
            # the enclosure is of f at the float level x, which stands for u from here on
            cache[u] = (mp.mpf(float(x)), (1 - mp.mpf(float(np.nextafter(fhi, np.inf))),
                                          1 - mp.mpf(float(np.nextafter(flo, -np.inf)))))
    for u in us:
        if u not in cache:
            a = alphas[u]
            cache[u] = (a, roc(h, a, dps=dps).interval())


def _side(h: TradeOff, dps: int, tol, slope, minor=None) -> tuple:
    """(lo, hi) of sup over alpha in (0, 1/2] of m(alpha) for h (module docstring): rounds of
    branch and bound, each round's new levels evaluated together."""
    cache: dict = {}
    zs: dict = {}

    def z(u):
        """(lower, upper) of Phi^{-1}(1 - alpha) and of Phi^{-1}(roc(alpha)) at the level
        alpha evaluated for u (Phi(-u), or its float64 neighbour on a composed grid)."""
        hit = zs.get(u)
        if hit is None:
            a, (r_lo, r_hi) = cache[u]
            zr_lo = mp.ninf if r_lo <= 0 else -_z_up(r_lo)
            zr_hi = mp.inf if r_hi >= 1 else -_z_lo(r_hi)
            hit = zs[u] = (_z_lo(a), _z_up(a), zr_lo, zr_hi)
        return hit

    def lower(u):
        zu_lo, _, zr_lo, _ = z(u)
        return _pad(zu_lo + zr_lo, False) if mp.isfinite(zr_lo) else mp.ninf

    def upper(u1, u2):
        return _pad(z(u2)[1] + z(u1)[3], True)

    def tail(U):
        bounds = [] if minor is None else [minor]
        if slope is not None:
            _powers(h, [U], dps, cache)
            sa = slope * cache[U][0]
            if sa < mp.mpf(1) / 2:
                bounds.append(_pad(z(U)[1] - _z_lo(sa), True))
        return min(bounds) if bounds else mp.inf

    def grid(u1, u2, n):
        return [u1 + (u2 - u1) * k / n for k in range(n + 1)]

    # the first cells: [0, 8] in steps of 1/4, then doubling ranges while the tail matters;
    # a node composed on a grid stops where its levels leave the grid (alpha < 1e-13)
    composed = mp_curve(h, np.array([0.25, 0.5])) is not None
    cells, U, best = [], mp.mpf(7) if composed else mp.mpf(8), mp.zero
    us = grid(mp.zero, U, 32)
    while True:
        _powers(h, us, dps, cache)
        cells += list(zip(us[:-1], us[1:], strict=True))
        best = max([best] + [lower(u) for u in us])
        t = tail(U)
        if t <= best + tol or U >= U_MAX or composed:
            break
        us = grid(U, 2 * U, 16)
        U = 2 * U
    bounds = {c: upper(*c) for c in cells}
    while len(bounds) < MAX_CELLS:
        budget.check()
        split = [c for c, b in bounds.items() if b > max(best, t) + tol / 2 and b > t]
        if not split:
            break
        split = sorted(split, key=lambda c: -bounds[c])[: max(1, MAX_CELLS - len(bounds))]
        mids = [(u1 + u2) / 2 for u1, u2 in split]
        _powers(h, mids, dps, cache)
        for (u1, u2), m in zip(split, mids, strict=True):
            del bounds[(u1, u2)]
            bounds[(u1, m)], bounds[(m, u2)] = upper(u1, m), upper(m, u2)
            best = max(best, lower(m))
    hi = max([best, t] + list(bounds.values()))
    return best, hi


@budget.deadline(lambda a: f"gdp_mu({short(a['f'])})")
def gdp_mu(f: TradeOff, dps: int = 20, tol: Any = None) -> Value | sp.Expr:
    """The smallest mu with f >= G_mu (f is mu-GDP; Dong, Roth & Su, Def. 4).

    The closed form where one is known (:func:`gdp_mu_form`; symbols allowed), an unevaluated
    :class:`Functional` for other expressions with free symbols. Numerically a certified
    :class:`Value` enclosure ``[lo, hi]`` of mu* (module docstring): +oo when f(0) < 1 or f
    reaches 0 before 1 (f_{eps,delta} with delta > 0); ``tol`` is the absolute width aimed at
    (default ``10^-5``); a wider result (cell budget
    spent, or an unbounded likelihood ratio decided only in the far tail) comes with a
    :class:`ToleranceWarning`.

    >>> gdp_mu(G(1) @ G(2))          # sqrt(5), exactly
    >>> gdp_mu(EpsDelta(eps, 0))     # 2*PhiInv(exp(eps)/(exp(eps) + 1))
    >>> gdp_mu(Laplace(1))           # [1.0300639, 1.0300677], certified
    """
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression", "gdp_mu")
    dps = count("dps", dps, upper=MAX_DPS, owner="gdp_mu")
    if tol is not None:  # a positive number, read exactly (floats, Decimal, NumPy scalars)
        tol = param("tol", tol, lower=0, lower_open=True, numeric=True, owner="gdp_mu")
    g = simplify(f)
    form = gdp_mu_form(g)
    if form is not None:
        if f.free_symbols:
            return form
        return closed_value(form, f, dps)
    if f.free_symbols:
        return Functional("gdp_mu", f)
    with mp.workdps(dps + 15):
        # tol may be irrational (sqrt(2)/1000) or tiny (exp(-10**5)): its value at the digits
        tol_ = mp.mpf(10) ** -5 if tol is None else mp.mpf(sp.Float(sp.N(tol, dps + 10))._mpf_)
        # one deadline for the whole search: its evaluations share it (each opened its own, so
        # a 1 s limit let gdp_mu(Laplace(1)) run for 23 s)
        with budget.call(lambda: f"gdp_mu({short(f)})"):
            lo, hi = _enclosure(g, dps, tol_)
        if lo == mp.inf:
            return Value(mp.inf, mp.inf, mp.inf, dps)
        if hi - lo > tol_:
            warnings.warn(f"gdp_mu({f}): the enclosure [{mp.nstr(lo, 8)}, {mp.nstr(hi, 8)}] "
                          "is wider than the tolerance asked", ToleranceWarning, stacklevel=2)
        return Value.enclosure(lo, hi, dps)


FUNCTIONALS["gdp_mu"] = (gdp_mu, r"\mu_{{\mathrm{{GDP}}}}\!\left({f}\right)")
