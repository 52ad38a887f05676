"""The privacy profile of a piecewise-linear trade-off function from its exact knots, certified.

For f piecewise linear and convex through the exact knots (x_0 = 0, y_0), ..., (x_n = 1, 0)
(:func:`~.knots.pl_knots`: the lower hull, so its segments' likelihood ratios
r_k = d_k / w_k, d_k = y_{k-1} - y_k the drop and w_k = x_k - x_{k-1} the width, do not
increase), Dong, Roth & Su, Prop. 6 gives, with v = e^eps,

    delta(eps) = sup_{alpha in [0, 1]} psi(alpha),   psi(alpha) = 1 - f(alpha) - v alpha.

psi is concave and piecewise linear with the knots of f as its breakpoints, so the supremum is
psi at a knot: from psi(0) = 1 - y_0, segment k changes psi by d_k - v w_k = d_k (1 - v/r_k),
positive exactly when r_k > v, and since the r_k do not increase the steps are positive up to
the maximiser and non-positive after it. Hence

    delta(eps) = (1 - y_0) + sum_k d_k (1 - v / r_k)_+ ,

a sum of non-negative terms (no cancellation: delta = 1e-300 keeps its digits). Where every
term vanishes the sum is 1 - y_0, exactly; in particular delta(eps) = 0 exactly when f(0) = 1
and no ratio exceeds e^eps (Max(f_{1,0}, f_{2,0}) = f_{1,0} at eps = 3/2, or at eps = 1, where
the ratio e ties with e^eps).

Certification. Each term's sign is the sign of r_k - e^eps, decided first by Arb balls of both
(at 128, 640 and 2560 bits); where they overlap, the difference is shown to vanish as an exact
SymPy expression (``cancel``, then ``simplify``) and the term is an exact 0; an undecided sign
gives None (the caller's estimate). The positive terms are summed in Arb, doubling the precision
until the ball is as narrow as the working precision asks (at most :data:`MAX_PREC_FACTOR`
times it; beyond, the wider enclosure is returned, still proved). Only the knots' exactness is
assumed: they are exact SymPy numbers (:mod:`.knots`).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from flint import arb, fmpq
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from . import budget
from .arb import arb_endpoint
from .context import arb_precision, mp
from .knots import Knots, _ball, _identically_zero, _to_sympy
from .value import CertifiedPair

__all__ = [
    "pl_profile_terms", "pl_certified_delta", "pl_profile_form", "pl_epsilon_unbounded",
    "knots_delta", "ROUTE_KNOTS",
]

#: The Arb precisions (bits) at which a ratio is compared with e^eps before the exact test.
SIGN_PRECS = (128, 640, 2560)
#: The largest power of the one exponential X that :func:`_one_exponential` expands.
MAX_DEGREE = 64
#: The summation stops doubling its precision at this multiple of the working precision.
MAX_PREC_FACTOR = 8


def pl_profile_terms(knots: Knots) -> tuple:
    """``(1 - y_0, ((drop, ratio), ...))`` of the segments with a positive drop, as exact SymPy
    numbers (module docstring)."""
    pts = [(_to_sympy(x), _to_sympy(y)) for x, y in knots]
    segs = []
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        d, w = y0 - y1, x1 - x0
        if d == 0:
            continue
        segs.append((d, d / w))
    return 1 - pts[0][1], tuple(segs)


def _ratio_sign(r: sp.Expr, v: sp.Expr) -> int | None:
    """The sign of r - v (exact real SymPy numbers, v = e^eps): Arb balls first, then an exact
    proof of r = v; None where neither decides."""
    for prec in SIGN_PRECS:
        budget.check()
        with arb_precision(prec):
            try:
                d = _ball(r, prec) - _ball(v, prec)
            except (ValueError, ZeroDivisionError, TypeError):
                return None
            if d > 0:
                return 1
            if d < 0:
                return -1
    z = r - v
    if z == 0:
        return 0
    if _identically_zero(z):  # a fast filter; the proof is the cancellation below
        budget.check()
        if _one_exponential(z) == 0 or sp.cancel(z) == 0 or sp.simplify(z) == 0:
            return 0
    return None


def _one_exponential(z: sp.Expr) -> sp.Rational | None:
    """z as an exact rational where it is one as a rational function of one exponential, else
    None. Where the only non-rational atoms of z are exp(r_i) with rational r_i, each is
    X^(r_i/g) for X = e^g, g the rational gcd of the r_i, so z = R(X) with R in Q(X); where R
    reduces to a constant c (its numerator and denominator, expanded, are polynomials of degree
    0 in X, or the numerator is 0), z = c. (The knots of a maximum of several f_{eps,delta} are
    nested expressions whose ``cancel`` takes seconds; as polynomials in X they expand at
    once.)"""
    import math

    if z.free_symbols or any(not a.exp.is_Integer for a in z.atoms(sp.Pow)):
        return None  # (a root: sqrt(2), sqrt(1 + e) is no rational function of exponentials)
    atoms = list(z.atoms(sp.Function, sp.NumberSymbol))
    rs = []
    for a in atoms:
        r = sp.Integer(1) if a is sp.E else (a.args[0] if isinstance(a, sp.exp) else None)
        if r is None or not r.is_Rational or r == 0:
            return None
        rs.append(r)
    if not rs:
        return z if isinstance(z, sp.Rational) else None
    g = sp.Rational(math.gcd(*(int(r.p) for r in rs)), math.lcm(*(int(r.q) for r in rs)))
    ks = [int(r / g) for r in rs]
    if max(abs(k) for k in ks) > MAX_DEGREE:  # (eps = 2^-100 next to eps = 1: X^(2^100))
        return None
    X = sp.Dummy("X")
    w = z.xreplace({a: X ** k for a, k in zip(atoms, ks, strict=True)})
    try:
        num, den = (sp.Poly(sp.expand(t), X) for t in sp.together(w).as_numer_denom())
    except sp.PolynomialError:  # (anything else not a rational function of X)
        return None
    if num.is_zero:
        return sp.S.Zero
    q = sp.div(num, den)
    if q[1].is_zero and q[0].degree() <= 0:
        return sp.Rational(q[0].as_expr())
    return None


def _active(knots: Knots, E: sp.Expr) -> tuple | None:
    """``(1 - y_0, ((drop, ratio), ...))`` of the segments whose ratio exceeds e^E (proved), or
    None where a comparison is undecided."""
    c, segs = pl_profile_terms(knots)
    v = sp.exp(E)
    out = []
    for d, r in segs:
        s = _ratio_sign(r, v)
        if s is None:
            return None
        if s > 0:
            out.append((d, r))
    return c, tuple(out)


def _terms(knots: Knots, E: sp.Expr) -> tuple | None:
    """``(1 - y_0, active segments)`` at E (``oo``: no segment counts), or None."""
    if E == sp.oo:
        return pl_profile_terms(knots)[0], ()
    return _active(knots, E)


def pl_profile_form(knots: Knots, E: sp.Expr) -> sp.Expr | None:
    """delta(E) of the piecewise-linear function through the exact ``knots`` as an exact SymPy
    number, ``(1 - y_0) + sum over the segments proved to have r_k > e^E of d_k (1 - e^E/r_k)``
    (module docstring): a rational where no segment counts (an exact 0 where also f(0) = 1) or
    where the sum reduces to one (:func:`_one_exponential`);
    None for an E that is not a number proved >= 0, or where a comparison is undecided."""
    E = sp.sympify(E)
    if not E.is_number or E.free_symbols or E.has(sp.nan, sp.zoo):
        return None
    try:
        if E != sp.oo and sp.Ge(E, 0) is not sp.true:
            return None
    except TypeError:  # (a complex number)
        return None
    a = _terms(knots, E)
    if a is None:
        return None
    c, act = a
    if not act:
        return c
    v = sp.exp(E)
    form = sp.Add(c, *[d * (1 - v / r) for d, r in act])
    q = _one_exponential(form)  # (a sum that is rational: delta(1/2) = 1/5 of a maximum)
    return form if q is None else q


def _sum(c: sp.Expr, act: Sequence, E: sp.Expr, prec: int) -> arb:
    with arb_precision(prec):
        total = arb(fmpq(int(c.p), int(c.q))) if isinstance(c, sp.Rational) else _ball(c, prec)
        if not act:
            return total
        v = _ball(sp.exp(E), prec)
        for d, r in act:
            rb = _ball(r, prec)
            total += arb.max(_ball(d, prec) * (rb - v) / rb, arb(0))  # (r > v is proved)
        return total


def pl_certified_delta(knots: Knots, eps) -> CertifiedPair | None:
    """delta(eps) (an mpf eps >= 0, or ``mp.inf``) of the piecewise-linear function through the
    exact ``knots`` as a :class:`CertifiedPair` at the working precision (module docstring):
    ``(0, 0)`` where delta is exactly 0; None where a comparison of a ratio with e^eps is
    undecided (the caller's estimate)."""
    from ..core.validate import mpf_rational

    E = sp.oo if eps == mp.inf else mpf_rational(eps)
    a = _terms(knots, E)
    if a is None:
        return None
    c, act = a
    need = mp.prec + 2
    prec = mp.prec + 32
    while True:
        b = _sum(c, act, E, prec)
        if b.is_exact() or (b.is_finite() and b.rel_accuracy_bits() >= need) \
                or prec >= MAX_PREC_FACTOR * (mp.prec + 32):
            break
        prec *= 2
    if b.is_exact() and b == 0:
        return CertifiedPair(mp.zero, mp.zero)
    with arb_precision(prec):  # (Arb's max and min round to the context's precision)
        lo = arb_endpoint(arb.max(b, arb(0)).lower(), round_floor)
        hi = arb_endpoint(arb.min(b, arb(1)).upper(), round_ceiling)
    return CertifiedPair(max(lo, mp.zero), min(hi, mp.one))


def pl_epsilon_unbounded(knots: Knots, d) -> CertifiedPair | None:
    """``(inf, inf)`` where no finite eps has delta(eps) <= d (an mpf): delta is non-increasing
    with limit delta(oo) = 1 - y_0 = 1 - f(0), the first term of the sum (module docstring),
    so eps(d) = oo exactly when d < 1 - f(0), decided by an Arb ball of 1 - f(0) or exactly;
    None otherwise (a finite eps: the caller's search)."""
    from ..core.validate import mpf_rational

    c = pl_profile_terms(knots)[0]
    D = mpf_rational(d)
    if isinstance(c, sp.Rational):
        below = D < c
    else:
        s = _ratio_sign(c, D)  # (the sign of c - D)
        below = s is not None and s > 0
    return CertifiedPair(mp.inf, mp.inf) if below else None


def knots_delta(knots: Knots, eps):
    """delta(eps) from exact knots: the certified sum of ``numeric.knots_profile`` (every
    ratio's comparison with e^eps decided exactly, so an exact 0 is proved), else the mpmath
    enclosure of ``pl_mp_delta`` (an estimate) where a comparison is undecided."""
    from .knots_eval import pl_mp_delta

    r = pl_certified_delta(knots, eps)
    if r is not None:
        trace.note(ROUTE_KNOTS)
        return r
    return pl_mp_delta(knots, eps)


#: The name of the certified route from exact knots in ``Value.route``.
ROUTE_KNOTS = "Arb sum over the exact knots' segments (Prop. 6)"
