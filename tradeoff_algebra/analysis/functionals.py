"""Functionals of a trade-off function (Dong, Roth & Su, Sec. 3.2, Sec. 5.2; Kaissis et al.).

With ``l(x) = log|f'(x)|`` (non-increasing, as f is convex):

* ``kl(f) = -int_0^1 l``, ``kappa2(f) = int_0^1 l^2``, ``kappa3(f) = int_0^1 |l|^3``,
  ``kappa3_bar(f) = int_0^1 |l + kl(f)|^3`` (Dong, Roth & Su, Sec. 3.2, before Thm. 5);
* ``chi2_plus(f) = int_0^1 (|f'| - 1)_+^2`` (Thm. 11; Lemma 3 for G_mu) — the definition
  counts only the absolutely continuous part: for f(0) < 1 it ignores the singular mass
  (Thm. 11 assumes f(0) = 1);
* ``tv(f) = max_alpha (1 - alpha - f(alpha)) = delta(0)`` (Prop. 6 at eps = 0), ``= 1 - 2 x*``
  for symmetric f with fixed point x* (the subgradient there contains -1);
* ``auc(f) = int_0^1 (1 - f) = 1 - int_0^1 f``, the area under the ROC curve ``1 - f``
  (``Phi(mu/sqrt 2)`` for G_mu: Kaissis et al., Lemma 3 / Eq. (16));
* ``fixed_point(f)``: the alpha with ``f(alpha) = alpha``.

If ``x`` is uniform on [0, 1] then ``l(x)`` has the law of the log-likelihood ratio
``log dQ/dP`` under P (for f = T(P, Q)); e.g. for G_mu, ``l = mu Z - mu^2/2`` with Z ~ N(0, 1),
which gives the Gaussian closed forms (``kl = mu^2/2``, ``kappa2 = mu^2 + mu^4/4``,
``kappa3_bar = mu^3 E|Z|^3 = 2 sqrt(2/pi) mu^3``, ``kappa3 = E|N(-mu^2/2, mu^2)|^3``).

API (the same for every functional ``F`` here):

``F(f)``
    the closed form as a SymPy expression (symbols allowed); :class:`NoClosedForm` if none is
    known.
``F(f, dps=30)``
    a :class:`Value`: the closed form to ``dps`` digits; otherwise a guaranteed enclosure
    where one is available (``tv`` through the profile's enclosure, ``fixed_point`` by
    bisection on the enclosures of f); otherwise :class:`NoClosedForm`.
``F(f, dps=30, estimate=True)``
    additionally allows tanh-sinh quadrature of ``l`` (``kl``, the kappas, ``chi2_plus``,
    ``auc``): an ESTIMATE, not a guaranteed enclosure. Its ``lo``/``hi`` span the quadrature's
    error estimate and the difference between two working precisions; on the families tested
    (``tests/test_functionals.py``) it agrees with the closed forms to better than ``dps``
    digits. Never the default.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.node import TradeOff
from ..core.validate import flag
from ..numeric import budget
from ..numeric.arb_expr import closed_value as arb_closed_value
from ..numeric.capability import FUNCTIONALS, functional_form, gaussian_form, kinks, log_slope
from ..numeric.context import mp
from ..numeric.protocol import GUARD_DPS, MAX_DPS, mp_roc, mp_value, num, short
from ..numeric.roots import Probe, findroot
from ..numeric.value import Value
from ..operators.subsample import Mix, Subsample
from ..operators.unary import Inverse
from .conversions import delta as _delta
from .subsampled_moments import MOMENTS, moment_value

__all__ = ["kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc", "fixed_point"]

NAMES = FUNCTIONALS


# ---------------------------------------------------------------------------------------------
# closed forms: the families register theirs with ``functional_form`` (numeric/capability.py);
# the operators' rules follow
# ---------------------------------------------------------------------------------------------
@functional_form.register(Mix)
def _(f, name):
    # f_p = p f + (1 - p) Id is affine in f: 1 - alpha - f_p = p (1 - alpha - f).
    g = functional_form(f.arg, name) if name in ("tv", "auc") else None
    if g is None:
        return None
    return f.p * g if name == "tv" else f.p * g + (1 - f.p) / 2


def subsample_fixed_point(f: Subsample) -> sp.Expr | None:
    """Fixed point of C_p(g), g symmetric with fixed point x*: the middle piece of C_p(g) is
    the segment of slope -1 from (x*, g_p(x*)) to (g_p(x*), x*) (Dong, Roth & Su, Sec. 5.2),
    whose midpoint is ``(x* + g_p(x*))/2 = (1 - p + 2 p x*)/2``."""
    if not f.arg.is_symmetric:
        return None
    try:
        xs = f.arg.fixed_point()
    except NoClosedForm:
        return None
    return (1 - f.p + 2 * f.p * xs) / 2


@functional_form.register(Subsample)
def _(f, name):
    if name == "tv":  # 1 - 2 (1 - p + 2 p x*)/2 = p (1 - 2 x*) = p TV(g)
        c = subsample_fixed_point(f)
        return None if c is None else sp.expand(1 - 2 * c)
    return None


@functional_form.register(Inverse)
def _(f, name):
    # The region under f^{-1} is the mirror image of the region under f (same area), and
    # max (1 - a - f^{-1}(a)) = max (1 - b - f(b)) (swap the roles of the two errors).
    if name in ("tv", "auc"):
        return functional_form(f.arg, name)
    if f.arg.is_symmetric:
        return functional_form(f.arg, name)
    return None


# ---------------------------------------------------------------------------------------------
# numeric log-slope for quadrature: the families register theirs with ``log_slope``
# ---------------------------------------------------------------------------------------------
@log_slope.register(Mix)
def _(f, a, ac):
    p = num(f.p, "p")
    ell = log_slope(f.arg, a, ac)
    if ell == mp.ninf:
        return mp.log1p(-p)
    return mp.log(p * mp.exp(ell) + (1 - p))


@log_slope.register(Inverse)
def _(f, a, ac):
    if f.arg.is_symmetric:
        return log_slope(f.arg, a, ac)
    raise NoClosedForm(f"{f}: no numeric log-slope for the inverse of an asymmetric function")


@kinks.register(Mix)
@kinks.register(Inverse)
def _(f):
    return kinks(f.arg)


# ---------------------------------------------------------------------------------------------
# quadrature (estimates)
# ---------------------------------------------------------------------------------------------
def _crossing(f: TradeOff, c) -> list:
    """The x in (0, 1) where the non-increasing l(x) = log|f'(x)| crosses the level c
    (empty if it does not), by bisection; geometric steps reach deep into both tails."""
    half = mp.mpf(0.5)
    lh = log_slope(f, half, half)
    if lh == c:
        return [half]
    # left half: l(u) decreasing in u; right half: l(1 - u) increasing in u.
    side = 1 if lh > c else 0

    def g(u):  # +1: the crossing lies at larger u (in the distance u from the nearer end)
        if side:  # l(1 - u) >= c: the crossing is at smaller u
            return Probe(-1 if log_slope(f, 1 - u, u) >= c else 1)
        return Probe(1 if log_slope(f, u, 1 - u) >= c else -1)

    tiny = mp.ldexp(1, -4 * mp.prec)  # no crossing below 2^(-4 prec) is worth splitting at
    lo, hi, *_ = findroot(g, (mp.zero, half), method="bisect", split="geometric",
                          ends=(1, -1), max_iter=6 * mp.prec,
                          done=lambda lo, hi: lo == 0 and hi / 16 < tiny)
    if lo == 0 and hi / 16 < tiny:
        return []
    u = (lo + hi) / 2
    return [1 - u] if side else [u]


def _quad_unit(f: TradeOff, F: Callable, pts: list) -> tuple:
    """int_0^1 F(l(x)) dx with x and 1 - x both kept accurate: split at 1/2 and integrate
    the right half in u = 1 - x. Returns (value, error estimate)."""
    half = mp.mpf(0.5)
    left = sorted({p for p in pts if 0 < p < half} | {mp.zero, half})
    right = sorted({1 - p for p in pts if half < p < 1} | {mp.zero, half})
    v1, e1 = mp.quad(lambda u: F(_slope(f, u, 1 - u)), left, error=True)
    v2, e2 = mp.quad(lambda u: F(_slope(f, 1 - u, u)), right, error=True)
    return v1 + v2, e1 + e2


def _slope(f: TradeOff, a, ac):
    """:func:`log_slope` for a quadrature: each evaluation checks the deadline (mpmath's
    quad evaluates thousands of points at high precision, with no check of its own)."""
    budget.check()
    return log_slope(f, a, ac)


def _subsample_parts(f: Subsample):
    """For C_p(g), g symmetric with g(0) = 1 (Dong, Roth & Su, Sec. 5.2 piecewise form):
    C_p(g) = g_p on [0, x*], slope -1 on [x*, g_p(x*)], g_p^{-1} on [g_p(x*), 1], with x* the
    fixed point of g. Substituting y = g_p(t) in the last piece,
    ``int_0^1 F(l_C) = int_0^{x*} [F(l_p) + F(-l_p) e^{l_p}] dt + (1 - p)(1 - 2 x*) F(0)``."""
    g = f.arg
    if not g.is_symmetric:
        raise NoClosedForm(f"{f}: quadrature needs a symmetric inner function")
    lo, hi = mp_roc(g, mp.zero, mp.one)
    if hi != 0:
        raise NoClosedForm(f"{f}: quadrature needs g(0) = 1 for the inner function g")
    xs = fixed_point(g, dps=mp.dps + 5)
    return g, num(f.p, "p"), mp.mpf(xs.mid)


def quad_log_slope(f: TradeOff, F: Callable, levels: list) -> tuple:
    """int_0^1 F(log|f'|), split at the kinks of f and where log|f'| crosses ``levels``
    (the kinks of F)."""
    if isinstance(f, Subsample):
        g, p, xs = _subsample_parts(f)
        m = Mix(g, f.p)

        def h(t):
            ell = _slope(m, t, 1 - t)
            return F(ell) + F(-ell) * mp.exp(ell)

        cuts = [x for c in levels for x in _crossing(m, c) + _crossing(m, -c)]
        pts = sorted({q for q in kinks(g) + cuts if 0 < q < xs} | {mp.zero, xs})
        v, e = mp.quad(h, pts, error=True)
        return v + (1 - p) * (1 - 2 * xs) * F(mp.zero), e
    cuts = [x for c in levels for x in _crossing(f, c)]
    return _quad_unit(f, F, kinks(f) + cuts)


def _quad_functional(name: str, f: TradeOff) -> tuple:
    if name == "kl":
        return quad_log_slope(f, lambda t: -t, [])
    if name == "kappa2":
        return quad_log_slope(f, lambda t: t * t, [])
    if name == "kappa3":
        return quad_log_slope(f, lambda t: abs(t) ** 3, [mp.zero])
    if name == "chi2_plus":
        return quad_log_slope(f, lambda t: mp.expm1(t) ** 2 if t > 0 else mp.zero, [mp.zero])
    if name == "kappa3_bar":
        k, ek = quad_log_slope(f, lambda t: -t, [])
        if mp.isinf(k):
            return k, ek
        v, e = quad_log_slope(f, lambda t: abs(t + k) ** 3, [-k])
        return v, e
    if name == "auc":
        return _auc_quad(f)
    raise NoClosedForm(f"no quadrature for {name}")  # pragma: no cover


def _auc_quad(f: TradeOff) -> tuple:
    """1 - int_0^1 f by tanh-sinh on the midpoints of f's enclosures (split at kinks).

    For C_p(g) (g symmetric, fixed point x*, C_p's fixed point c): the region under a
    symmetric f is symmetric about the diagonal, so ``int_0^1 f = 2 int_0^c f - c^2``, and on
    [0, c] C_p(g) is g_p up to x* and then the segment of slope -1 (Sec. 5.2)."""
    half = mp.mpf(0.5)
    if isinstance(f, Subsample):
        g, p, xs = _subsample_parts(f)

        def gp(t):
            budget.check()
            lo, hi = mp_value(g, t, 1 - t)
            return p * (lo + hi) / 2 + (1 - p) * (1 - t)

        pts = sorted({q for q in kinks(g) if 0 < q < xs} | {mp.zero, xs})
        v, e = mp.quad(gp, pts, error=True)
        top = gp(xs)
        c = (xs + top) / 2
        v += (c - xs) * (top + (xs + top - c)) / 2  # trapezoid of the segment on [x*, c]
        return 1 - (2 * v - c * c), e
    pts = kinks(f)

    def mid(a, ac):
        budget.check()
        lo, hi = mp_value(f, a, ac)
        return (lo + hi) / 2

    left = sorted({p for p in pts if 0 < p < half} | {mp.zero, half})
    right = sorted({1 - p for p in pts if half < p < 1} | {mp.zero, half})
    v1, e1 = mp.quad(lambda u: mid(u, 1 - u), left, error=True)
    v2, e2 = mp.quad(lambda u: mid(1 - u, u), right, error=True)
    return 1 - (v1 + v2), e1 + e2


def two_precision_estimate(compute: Callable[[], tuple], dps: int, what: str) -> Value:
    """A quadrature ESTIMATE as a Value: ``compute() -> (value, error estimate)`` run at two
    working precisions; ``lo``/``hi`` span the error estimate and the difference of the two
    (see the module docstring). An infinite value is returned as such; NaN is refused."""
    vals = []
    for extra in (GUARD_DPS // 2, GUARD_DPS):
        with mp.workdps(dps + extra):
            v, err = compute()
            if mp.isnan(v):
                raise NoClosedForm(f"{what}: quadrature produced NaN")
            if mp.isinf(v):
                return Value.point(v, dps)
            vals.append((v, err))
    with mp.workdps(dps + GUARD_DPS):
        (v1, _), (v2, e2) = vals
        r = abs(v2 - v1) + e2
        return Value.enclosure(v2 - r, v2 + r, dps, mid=v2)


def _estimate(name: str, f: TradeOff, dps: int) -> Value:
    """Quadrature estimate of functional ``name`` at two working precisions."""
    return two_precision_estimate(lambda: _quad_functional(name, f), dps, f"{name}({f})")


# ---------------------------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------------------------
def check_functional_args(f: Any, dps: Any, owner: str, estimate: Any = False) -> None:
    """The arguments every functional shares: a trade-off expression, ``dps`` None or a count,
    ``estimate`` True or False."""
    flag("estimate", estimate, owner)
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression (G(1), EpsDelta(1, 0), ...)",
                               owner)
    if dps is not None and (isinstance(dps, bool) or not isinstance(dps, numbers.Integral)
                            or not 1 <= dps <= MAX_DPS):
        raise InvalidParameter("dps", dps, f"None (symbolic) or an integer in [1, {MAX_DPS}]",
                               owner)


def _symbolic(name: str, f: TradeOff) -> sp.Expr:
    v = functional_form(f, name)
    if v is None:
        raise NoClosedForm(f"{name}({f}): no closed form is known; pass dps=30 for a number "
                           "(estimate=True allows a quadrature estimate)")
    return v


def closed_value(v: sp.Expr, f: TradeOff, dps: int) -> Value:
    """A closed form ``v`` of a functional of ``f`` as a point Value to ``dps`` digits."""
    if v.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols for a numeric value",
                               hint="substitute values with f.subs(...)")
    c = arb_closed_value(v, dps)  # exact, or certified by Arb balls
    if c is not None:
        return c
    with mp.workdps(dps + GUARD_DPS):  # a function without a ball rule: an estimate
        x = num(v, "value")
        if mp.isnan(x):
            raise NoClosedForm(f"closed form {v} evaluated to NaN")
        return Value.point(x, dps)


def _certified(name: str, f: TradeOff, dps: int) -> Value | None:
    """A guaranteed enclosure where a rigorous route exists: the moments of C_p(G_mu)
    (Lemma 4, corrected; ``analysis.subsampled_moments``)."""
    mu = gaussian_form(f.arg) if isinstance(f, Subsample) else None
    if name in MOMENTS and mu is not None and f.p.is_positive and mu.is_positive:
        return moment_value(name, f.p, mu, dps)
    return None


@budget.deadline(lambda a: f"{a['name']}({short(a['f'])})")
def _functional(name: str, f: TradeOff, dps: int | None, estimate: bool):
    check_functional_args(f, dps, name, estimate)
    if dps is None:
        return _symbolic(name, f)
    v = functional_form(f, name)
    if v is not None and not v.free_symbols:
        return closed_value(v, f, dps)
    if v is not None:
        return closed_value(v, f, dps)  # raises with a hint about the symbols
    if f.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols for a numeric value")
    if name == "tv":
        return _delta(f, 0, dps)  # TV = delta(0) = 1 + f^*(-1) (Prop. 6), an enclosure
    certified = _certified(name, f, dps)
    if certified is not None:
        return certified
    if not estimate:
        raise NoClosedForm(f"{name}({f}): no closed form and no guaranteed numeric route; "
                           "estimate=True gives a quadrature estimate (not an enclosure)")
    return _estimate(name, f, dps)


def kl(f: TradeOff, dps: int | None = None, *, estimate: bool = False) -> sp.Expr | Value:
    """kl(f) = -int_0^1 log|f'(x)| dx = KL(P || Q) for f = T(P, Q) (Dong, Roth & Su, Sec. 3.2).

    ``kl(G(mu)) = mu**2/2``; ``oo`` when f(0) < 1. See the module docstring for the API.
    """
    return _functional("kl", f, dps, estimate)


def kappa2(f: TradeOff, dps: int | None = None, *, estimate: bool = False) -> sp.Expr | Value:
    """kappa_2(f) = int_0^1 log^2|f'(x)| dx (Dong, Roth & Su, Sec. 3.2); G_mu: mu^2 + mu^4/4."""
    return _functional("kappa2", f, dps, estimate)


def kappa3(f: TradeOff, dps: int | None = None, *, estimate: bool = False) -> sp.Expr | Value:
    """kappa_3(f) = int_0^1 |log|f'(x)||^3 dx (Dong, Roth & Su, Sec. 3.2)."""
    return _functional("kappa3", f, dps, estimate)


def kappa3_bar(f: TradeOff, dps: int | None = None, *,
               estimate: bool = False) -> sp.Expr | Value:
    """bar kappa_3(f) = int_0^1 |log|f'(x)| + kl(f)|^3 dx (Dong, Roth & Su, Sec. 3.2);
    G_mu: 2 sqrt(2/pi) mu^3."""
    return _functional("kappa3_bar", f, dps, estimate)


def chi2_plus(f: TradeOff, dps: int | None = None, *,
              estimate: bool = False) -> sp.Expr | Value:
    """chi^2_+(f) = int_0^1 (|f'(x)| - 1)_+^2 dx (Dong, Roth & Su, Thm. 11);
    G_mu: e^{mu^2} Phi(3 mu/2) + 3 Phi(-mu/2) - 2 (Lemma 3, re-derived and tested)."""
    return _functional("chi2_plus", f, dps, estimate)


def tv(f: TradeOff, dps: int | None = None, *, estimate: bool = False) -> sp.Expr | Value:
    """TV(P, Q) = max_alpha (1 - alpha - f(alpha)) = delta(0) (Dong, Roth & Su, Sec. 2.1 and
    Prop. 6); ``1 - 2 x*`` for symmetric f. Numerically always an enclosure (``estimate`` is
    accepted for a uniform signature and not needed)."""
    return _functional("tv", f, dps, estimate)


def auc(f: TradeOff, dps: int | None = None, *, estimate: bool = False) -> sp.Expr | Value:
    """Area under the ROC curve 1 - f: ``1 - int_0^1 f`` (Kaissis et al., Lemma 3:
    ``Phi(psi/sqrt 2)`` for the Gaussian mechanism, psi = mu)."""
    return _functional("auc", f, dps, estimate)


@budget.deadline(lambda a: f"fixed_point({short(a['f'])})")
def fixed_point(f: TradeOff, dps: int | None = None) -> sp.Expr | Value:
    """The alpha* in [0, 1/2] with f(alpha*) = alpha*.

    C_p(g) with g symmetric has the closed form ``(1 - p + 2 p x*_g)/2`` (see
    :func:`subsample_fixed_point`).

    ``dps=None``: ``f.fixed_point()`` (closed form, :class:`NoClosedForm` if none). With
    ``dps``: the closed form to ``dps`` digits, else an enclosure by bisection on the
    enclosures of ``f(alpha) - alpha`` (decreasing), guaranteed whenever those are.
    """
    check_functional_args(f, dps, "fixed_point")
    if dps is None:
        try:
            return f.fixed_point()
        except NoClosedForm:
            v = subsample_fixed_point(f) if isinstance(f, Subsample) else None
            if v is None:
                raise
            return v
    try:
        v = f.fixed_point()
    except NoClosedForm:
        v = subsample_fixed_point(f) if isinstance(f, Subsample) else None
    if v is not None:
        return closed_value(sp.sympify(v), f, dps)
    if f.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols for a numeric value")
    with mp.workdps(dps + GUARD_DPS):
        # f(0) - 0 >= 0 and f(1/2) <= 1/2; f(alpha) - alpha is decreasing
        L, U, *_ = findroot(lambda m: tuple(v - m for v in mp_value(f, m, 1 - m)),
                            (mp.zero, mp.mpf(0.5)), method="bisect", ends=(1, -1), rtol=0,
                            atol=mp.ldexp(1, -(mp.prec - 4)))
        return Value.point(L, dps) if L == U else Value.enclosure(L, U, dps)
