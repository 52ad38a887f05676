"""Numeric evaluation: per-class dispatch and the public ``evaluate``, ``roc`` and ``curve``.

Evaluation dispatches on the node class with :func:`functools.singledispatch` (as SymPy's stats
sampling does); each family or operator module registers its own implementations:

``mp_value(f, a, ac) -> (lo, hi)``
    f(alpha) in the current mpmath context. ``a`` is alpha and ``ac`` is ``1 - alpha``, each
    with full relative accuracy (the complement is formed exactly before rounding), so tails on
    both ends keep their digits. A closed form returns ``(v, v)``; anything else an enclosure.
``mp_roc(f, a, ac) -> (lo, hi)``
    The power ``1 - f(alpha)`` without cancellation; the default subtracts (families override).
``exact_value(f, A, Ac) -> Rational | None``
    The exact value for rational alpha where the objects are finite.
``exact_ends(f) -> (f(0), z)``
    The two ends of f exactly (each a Rational or None): f(0) and its zero point
    z = f^{-1}(0); :func:`exact_ends`.
``np_value(f, x) -> ndarray``
    The float64 vectorised path used by :func:`curve`.
``arb_value(f, a, ac, power) -> arb | None``
    A rigorous Arb ball (python-flint) of f(alpha), or of ``1 - f(alpha)`` if ``power``, from
    exact-rational balls ``a`` and ``ac``: the fast path of :func:`evaluate` and :func:`roc`
    for closed forms. A ball narrow enough for the digits asked is returned at once; a wider
    one (cancellation, a branch undecided) sends the call to the mpmath route.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import warnings
from collections.abc import Callable
from functools import singledispatch
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import round_nearest

from ..core import trace
from ..core.errors import (
    InvalidParameter,
    NoClosedForm,
    NumericalError,
    ToleranceWarning,
)
from ..core.levels import as_level
from ..core.node import TradeOff
from . import budget
from .context import mp
from .offer import settle
from .options import options, pld_options
from .precision_loop import precision_loop
from .tol_nest import nest
from .value import CertifiedPair, Value, dps_to_prec

__all__ = ["expression_value", "mp_value", "mp_roc", "exact_value", "exact_ends", "register_ends",
           "arb_value", "arb_delta", "np_value", "mp_conjugate", "mp_delta", "mp_epsilon",
           "POINT_ROUTES", "point_of", "LEVEL_ROUTES", "EXACT_TV_ROUTES", "enclose_delta",
           "delta_value", "evaluate", "roc", "prepare_call", "num", "GUARD_DPS", "certified",
           "short", "caller_level"]

#: Guard digits carried beyond the requested ``dps`` inside every evaluation.
GUARD_DPS = 20


def _no_route(f: Any, what: str) -> NoClosedForm:
    return NoClosedForm(f"{type(f).__name__} node {f}: no numeric {what} is available for this "
                        "node yet; try ta.simplify(f) for a closed form")


@singledispatch
def mp_value(f: Any, a, ac):
    """Enclosure (lo, hi) of f(alpha) in the current mpmath context."""
    raise _no_route(f, "evaluation")


@singledispatch
def mp_roc(f: Any, a, ac):
    """Enclosure (lo, hi) of 1 - f(alpha); default by subtraction (may cancel)."""
    lo, hi = mp_value(f, a, ac)
    return 1 - hi, 1 - lo


@singledispatch
def exact_value(f: Any, A: sp.Rational, Ac: sp.Rational) -> sp.Rational | None:
    """Exact rational f(A) where the objects are finite, else None."""
    return None


@singledispatch
def exact_ends(f: Any) -> tuple[sp.Rational | None, sp.Rational | None]:
    """The ends of f exactly: ``(f(0), z)`` with z = f^{-1}(0) = inf{alpha : f(alpha) = 0}, each
    a Rational or None (not known here).

    For f = T(P, Q) (Dong, Roth & Su, Def. 2) the most powerful test of size 0 rejects exactly
    where P = 0, so f(0) = 1 - Q(P = 0); the test rejecting wherever Q > 0 has power 1 and size
    P(Q > 0), and no smaller size reaches power 1, so z = 1 - P(Q = 0) = T(Q, P)(0). Hence
    f(0) = 1 and z = 1 exactly when P and Q are mutually absolutely continuous (no privacy loss
    of +-oo). The inverse swaps the two ends (f^{-1} = T(Q, P), Lemma A.2); a product multiplies
    each (Def. 5: Q^n(P^n = 0) = 1 - prod_i (1 - Q_i(P_i = 0)), :class:`routes.product.
    EndsRoute`). Default: f(0) from :func:`exact_value`; z = f(0) for a symmetric f (f = f^{-1}),
    else None. A family or operator that knows its ends without a rational f(0) registers them
    (the discrete Gaussian: both laws charge every integer, (1, 1))."""
    e = exact_value(f, sp.S.Zero, sp.S.One)
    e = sp.Rational(e) if isinstance(e, sp.Rational) else None
    return e, (e if getattr(f, "is_symmetric", None) is True else None)


_NO_ENDS = exact_ends.dispatch(object)


def register_ends(cls: type, ends: tuple = (sp.S.One, sp.S.One)) -> None:
    """Register constant ends of ``cls`` with :func:`exact_ends` (default (1, 1): a family
    whose two laws are mutually absolutely continuous at every parameter)."""
    exact_ends.register(cls)(lambda f: ends)


def register_value_and_power(cls: type, fn: Callable) -> None:
    """Register ``fn(f, a, ac, power)`` as both :func:`mp_value` (``power=False``) and
    :func:`mp_roc` (``power=True``) of ``cls``: the shape of the nodes that compute f and
    1 - f by one routine."""
    mp_value.register(cls)(lambda f, a, ac: fn(f, a, ac, power=False))
    mp_roc.register(cls)(lambda f, a, ac: fn(f, a, ac, power=True))


@singledispatch
def arb_value(f: Any, a, ac, power: bool):
    """An Arb ball containing f(alpha) (``power``: 1 - f(alpha)) at the current Arb precision,
    from balls ``a`` = alpha and ``ac`` = 1 - alpha, or None where the node has no ball form."""
    return None


_NO_ARB = arb_value.dispatch(object)

@singledispatch
def arb_delta(f: Any, eps):
    """The privacy profile delta(eps) of ``f`` (Dong, Roth & Su, Prop. 6) as an Arb ball at
    Arb's working precision, for ``eps`` given as a ball, or None: a family registers it where
    it has a rigorous sum or form that is not a SymPy closed form (``profile_form``)."""
    return None


#: Guard bits of the Arb fast path beyond the precision of the requested digits.
ARB_GUARD_BITS = 32


def _arb_point(f: TradeOff, A: sp.Rational, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) from :func:`arb_value` as a point Value, or None.

    Arb's balls are rigorous (Johansson, "Arb: efficient arbitrary-precision midpoint-radius
    interval arithmetic", IEEE Trans. Comput. 66 (2017)): when the ball's relative radius is
    below 2^-(prec(dps) + 8) its midpoint carries every one of the ``dps`` digits, the
    guarantee the mpmath route reaches by computing twice (:func:`certified`). A finite ball
    too wide is asked once more at four times the precision (a value near 0 formed from
    powers near 1 loses about log2 of their ratio); still too wide, or no registered form,
    gives None (the mpmath route)."""
    fn = arb_value.dispatch(type(f))
    if fn is _NO_ARB:
        return None
    from flint import arb, fmpq

    from .arb import arb_endpoint
    from .context import arb_precision

    need = dps_to_prec(dps) + 8
    base = need + ARB_GUARD_BITS
    p, q = int(A.p), int(A.q)
    for prec in (base, 4 * base):  # (once more where a finite ball lost bits: a value near 0
        with arb_precision(prec):  # from powers near 1, Group(RR(1, 2)^3, 2) at 1 - 1e-6)
            try:
                ball = fn(f, arb(fmpq(p, q)), arb(fmpq(q - p, q)), power)
            except ValueError:  # a parameter Arb cannot enclose: the other routes answer
                return None
            if ball is None or not ball.is_finite():
                return None
            if ball.rel_accuracy_bits() >= need:
                mid = ball.mid()
                break
    else:
        return None
    with mp.workprec(prec):
        x = arb_endpoint(mid, round_nearest)
    # the truth lies in [0, 1]: a ball across an end (1 +- 1e-31) has its midpoint moved to
    # that end, which stays within the radius of the truth
    return Value.point(min(max(x, mp.zero), mp.one), dps,
                       guarantee="certified").routed("Arb ball of the registered form")


def _arb_level_point(f: TradeOff, A: sp.Expr, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) for an irrational closed-form level ``A`` (``Phi(-1/2)``,
    ``91 sqrt(2)/1500``) from :func:`arb_value` at the Arb enclosures of ``A`` and ``1 - A``
    (:func:`.arb_expr.arb_ball`: the closed forms walked in Arb, never a decimal widened by
    hand), at rising precision until the ball carries ``dps`` digits (:func:`.arb_expr.ball_point`),
    or None: no ball form, a level Arb cannot enclose, or a branch the balls do not decide. Arb's
    operations contain their result for every point of the argument balls (the inclusion
    principle), so the ball holds f(A) however wide the level's ball is."""
    fn = arb_value.dispatch(type(f))
    if fn is _NO_ARB:
        return None
    from .arb_expr import arb_ball, ball_point
    from .context import arb_precision

    Ac = 1 - A

    def make_ball(prec):
        with arb_precision(prec):
            try:
                a, ac = arb_ball(A), arb_ball(Ac)
                if not (a.is_finite() and ac.is_finite()) or a < 0 or ac < 0:
                    return None
                ball = fn(f, a, ac, power)
            except ValueError:  # a level or parameter Arb cannot enclose
                return None
            return ball if ball is not None and ball.is_finite() else None

    v = ball_point(make_ball, dps, max_bits=4 * dps_to_prec(dps) + 512, unit=True)
    return None if v is None else v.routed("Arb ball of the registered form at the level's "
                                           "Arb enclosure")


def _closed_point(f: TradeOff, A: sp.Rational, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) from the node's closed form (``f._eval_at``) enclosed by Arb
    balls (:func:`.arb_expr.certify`), or None where there is none or Arb cannot enclose it."""
    from .arb_expr import certify

    try:
        form = f._eval_at(A)
    except (TypeError, ValueError, ArithmeticError, NoClosedForm):
        return None
    if form is None or not isinstance(form, sp.Basic):
        return None
    v = certify(1 - form if power else form, dps)
    if v is None:
        return None
    m = min(max(v.mid, mp.zero), mp.one)  # the truth lies in [0, 1]
    return Value.point(m, dps, guarantee="certified").routed("Arb ball of the closed form")


#: The certified routes of :func:`evaluate` and :func:`roc` tried after the Arb fast path and
#: before the mpmath route: ``route(f, A, dps, power) -> Value | None`` (a module that knows
#: another exact representation appends its route here when it is imported).
POINT_ROUTES: list[Callable] = [_closed_point]


#: The certified routes of :func:`evaluate` and :func:`roc` at an irrational closed-form level,
#: after the registered ball form: ``route(f, A, dps, power) -> Value | None`` (the exact finite
#: composition appends its Arb route when it is imported).
LEVEL_ROUTES: list[Callable] = [_closed_point]


def _certified_point(f: TradeOff, A: sp.Rational, dps: int, power: bool) -> Value | None:
    """The first answer of :data:`POINT_ROUTES` at the PLD engine's tolerance, nested; where a
    route offers a certified enclosure wider than it (``numeric.offer.Offer``) and no later
    route answers, the offers intersected with the answers of the routes that declined, asked
    again at looser tolerances (``numeric.offer.settle``), with a ToleranceWarning."""
    tol = options()["tol"]

    def ask(route: Callable, t: float):
        if t == tol:
            return route(f, A, dps, power)
        with pld_options(tol=t):  # (a route reads its tolerance there)
            return route(f, A, dps, power)

    v = settle(POINT_ROUTES, ask, tol, _relative_width)
    return None if v is None else _nested_point(f, A, power, v)


point_of = _certified_point  # (a node's certified point, asked for an equal node's)


def _relative_width(v: Value) -> float:
    """(hi - lo) / |hi| of a point route's Value (its tolerance's measure); 0 for a point."""
    if v.is_point:
        return 0.0
    lo, hi = v.interval()
    return float((hi - lo) / abs(hi)) if hi != 0 else (0.0 if lo == hi else math.inf)


def _nested_point(f: TradeOff, A: sp.Rational, power: bool, v: Value) -> Value:
    """A certified enclosure ``v`` of f(A) (``power``: 1 - f(A)) placed in the tolerance chain
    of that quantity at the PLD engine's tolerance (``numeric.tol_nest``: nested with its
    enclosures at every other tolerance of this process, the curve's bands and points too);
    exact values and points (their digits are the route's claim) are left as they are."""
    if v.guarantee != "certified" or v.is_point:
        return v
    lo, hi = nest(("power" if power else "f", f, float(A)) if A == sp.Rational(float(A))
                  else ("power" if power else "f", f, A), options()["tol"], v.lo, v.hi)
    if (lo, hi) == (v.lo, v.hi):
        return v
    return Value.enclosure(lo, hi, v.dps, guarantee="certified").routed(v.route)


@singledispatch
def np_value(f: Any, x: np.ndarray) -> np.ndarray:
    """Vectorised float64 f(x)."""
    raise _no_route(f, "float64 curve")


@singledispatch
def mp_conjugate(f: Any, y):
    """Enclosure (lo, hi) of the convex conjugate f^*(y) = sup_alpha {y alpha - f(alpha)}
    (Dong, Roth & Su, Eq. (7)) in the current mpmath context."""
    raise _no_route(f, "convex conjugate")


@singledispatch
def mp_delta(f: Any, eps):
    """Enclosure (lo, hi) of the privacy profile delta(eps) = 1 + f^*(-e^eps)
    (Dong, Roth & Su, Prop. 6); the default goes through ``mp_conjugate`` (which may cancel:
    families override with tail-accurate closed forms)."""

    return conjugate_delta(f, eps)


def conjugate_delta(f: Any, eps) -> tuple:
    """delta(eps) = 1 + f^*(-e^eps) (Dong, Roth & Su, Prop. 6) from an enclosure of the
    conjugate. A point that cancels to within rounding of 0 (a delta of 2e-142 at 100 digits)
    would read as an exact 0 that agrees with itself at every precision: it is returned as
    the enclosure [0, 2^-(prec - 4)] instead."""
    lo, hi = mp_conjugate(f, -mp.exp(eps))
    a, b = 1 + lo, 1 + hi
    tiny = mp.ldexp(1, 4 - mp.prec)
    if lo == hi and abs(a) <= tiny:
        return mp.zero, tiny
    return a, b


@singledispatch
def mp_epsilon(f: Any, d):
    """Closed-form (lo, hi) of the smallest eps >= 0 with delta(eps) <= d, or None.

    ``d`` is an mpf in [0, 1]; ``mp.inf`` stands for "no finite eps". ``None`` sends the caller
    to the generic bracketing search on ``mp_delta`` (analysis.conversions.epsilon).
    """
    return None


@singledispatch
def mp_curve(f: Any, x: np.ndarray):
    """Enclosures (lo, hi) of f at every level of a float64 array at once, or None: products
    and symmetric hulls of products register one composed-grid route (``routes.product``)."""
    return None


def num(x: sp.Basic, name: str = "parameter"):
    """A SymPy number as an mpf at the current precision (fast paths for rationals)."""
    if isinstance(x, sp.Integer):
        return mp.mpf(int(x))
    if isinstance(x, sp.Rational):
        return mp.mpf(int(x.p)) / int(x.q)
    if isinstance(x, sp.Float):
        return mp.mpf(x._mpf_)
    if x.free_symbols:
        raise InvalidParameter(name, x, "a number", hint="substitute values for the symbols "
                               f"{sorted(map(str, x.free_symbols))} before evaluating")
    v = x.evalf(mp.dps + 5)
    if v is sp.nan or x is sp.nan:
        raise InvalidParameter(name, x, "a real number", hint="NaN is not a number")
    if not v.is_Number:
        raise InvalidParameter(name, x, "a real number")
    if v.is_infinite:
        return mp.inf if v > 0 else mp.ninf
    return mp.mpf(v._mpf_) if isinstance(v, sp.Float) else num(v)


#: The most digits a computation may ask for (``dps``).
MAX_DPS = 10_000


def _level_pair(A: sp.Expr):
    """(alpha, 1 - alpha) as mpf at the current precision, each with full relative accuracy."""
    if isinstance(A, sp.Rational):
        return num(A), num(1 - A)
    return num(A), num(sp.expand(1 - A))


def _in_unit(lo, hi):
    """[lo, hi] intersected with [0, 1], where the truth lies. Ends that cross by a rounding of
    the working precision (a point closed form at 1 + 1e-40, or a point composed by Eq. (12)
    with a bound of 1) are joined at the inner one and moved into [0, 1]; a larger crossing is
    left for the caller to report."""
    if lo > hi and lo - hi <= mp.ldexp(max(abs(lo), abs(hi)), 20 - mp.prec):
        lo = hi
    if lo == hi:
        lo = hi = min(max(lo, mp.zero), mp.one)
    return max(lo, mp.zero), min(hi, mp.one)


def _check_unit(lo, hi, f, what, proved: bool = False):
    """The enclosure intersected with [0, 1] (a :class:`CertifiedPair` stays one when
    ``proved``)."""
    if mp.isnan(lo) or mp.isnan(hi):
        raise NumericalError(f"{what} of {f} produced NaN; raise dps or report the input")
    lo, hi = _in_unit(lo, hi)
    if lo > hi:
        raise NumericalError(f"{what} of {f}: enclosure [{lo}, {hi}] left [0, 1]; "
                             "increase dps")
    return CertifiedPair(lo, hi) if proved else (lo, hi)


def _unit_pair(pair, f, what):
    """:func:`_check_unit` of a route's pair, keeping what it proved."""
    return _check_unit(*pair, f, what, isinstance(pair, CertifiedPair))


def prepare_call(f: Any, dps: int) -> None:
    """Check the two arguments every public numeric call takes: a trade-off expression and a
    number of digits in [1, MAX_DPS]."""
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression (G(1), EpsDelta(1, 0), ...)")
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or not 1 <= dps <= MAX_DPS:
        raise InvalidParameter("dps", dps, f"an integer >= 1 and <= {MAX_DPS}")
    if f.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols",
                               hint=f"substitute values for {sorted(map(str, f.free_symbols))}"
                               " with f.subs(...)")


def certified(compute: Callable[[], tuple], dps: int, what: Callable[[], str],
              about: tuple | None = None) -> Value:
    """Run ``compute() -> (lo, hi)`` (in the calling thread's context) and return its Value.

    The Value is certified when ``compute`` returned a :class:`CertifiedPair` (proved by exact or
    Arb arithmetic; a point pair is correct to the working precision, ``dps + GUARD_DPS``
    digits), an estimate otherwise (mpmath evaluations carry no error bound).
    An enclosure (lo < hi) is returned as it is. A point value (lo == hi) that is not proved
    claims ``dps`` digits, so it is confirmed first (Ziv's strategy): computed again with more
    guard digits, it must agree to ``dps + 2`` digits; where terms cancel the two disagree, and
    the working precision doubles until they agree. Agreement is a heuristic: the point stays an
    estimate. The whole call runs under the time limit
    (:mod:`.budget`); ``about`` = (quantity, node) of a public call keeps the enclosure of a
    time limit only when a route marked it as that quantity of that node
    (:func:`.budget.own_best`).
    """
    try:
        with trace.recording() as names:
            v = _certified(compute, dps, what)
        if not names and _vacuous(v):  # (a route that noted itself warns on its own)
            warnings.warn(f"{what()}: the node's mpmath evaluation determines no digit of the "
                          f"value; it returns the guaranteed enclosure {v} (raise dps, or use a "
                          "route with a certified bound)", ToleranceWarning,
                          stacklevel=caller_level())
        return v.routed(trace.described(names, "the node's mpmath evaluation"))
    except budget.TimeLimitExceeded as exc:
        if about is None:
            raise
        raise budget.own_best(exc, *about) from None


def _certified(compute: Callable[[], tuple], dps: int, what: Callable[[], str]) -> Value:
    w0 = dps + GUARD_DPS
    cap = 8 * (dps + GUARD_DPS) + 2000  # digits: past it, one last doubling and then give up

    def at(w):
        with mp.workdps(w):
            return compute(), w

    def done(r, prev) -> bool:
        (lo, hi), w = r
        if isinstance(r[0], CertifiedPair):  # proved
            return True
        if lo != hi:  # an enclosure: as it is, unless it is all of [0, 1]
            return not _whole_unit(lo, hi)
        if prev is None:
            return False
        with mp.workdps(w):
            return _agree(prev[0][0], lo, dps + 2)

    def give_up(r, prev, w):
        if r[0][0] != r[0][1]:  # still all of [0, 1] at the cap: that enclosure (and a warning)
            return Value.enclosure(*r[0], dps)
        lo, prv = r[0][0], prev[0][0]
        tiny = max(abs(prv), abs(lo))
        if tiny <= mp.mpf(10) ** -(w // 4):
            # the values shrink with the working precision (a difference whose true value is
            # 0 or beyond every digit tried): report that bound, not a point
            return Value.enclosure(min(prv, lo, mp.zero), tiny, dps)
        raise NumericalError(f"{what()}: the point value cancels beyond {w} digits of "
                             "working precision and cannot be certified; report the input")

    with budget.call(what):
        r = precision_loop(at, w0, done=done, give_up=give_up,
                           grow=lambda r, w: w + 12 if w == w0 else (2 * w if w <= cap else None))
    if isinstance(r, Value):
        return r
    pair, _ = r
    lo, hi = pair
    g = "certified" if isinstance(pair, CertifiedPair) else "estimate"
    if lo != hi:
        return Value.enclosure(lo, hi, dps, guarantee=g)
    return Value.point(lo, dps, guarantee=g)  # proved, or confirmed by a second precision


def enclose_delta(f: TradeOff, eps) -> tuple:
    """(lo, hi) of delta_f(eps) = 1 + f^*(-e^eps) (Dong, Roth & Su, Prop. 6) for an mpf
    eps >= 0 in the current context, intersected with [0, 1]; at eps = +oo the mass
    1 - f(0) (continuity of f at 0)."""
    pair = None
    if eps != mp.inf and arb_delta.dispatch(type(f)) is not arb_delta.dispatch(object):
        pair = _arb_delta_pair(f, eps)  # a family's rigorous sum: proved in Arb
    if pair is None and (eps == mp.inf or eps == 0):
        pair = _exact_delta_pair(f, eps)
    if pair is None:
        pair = mp_roc(f, mp.zero, mp.one) if eps == mp.inf else mp_delta(f, eps)
    lo, hi = pair
    if mp.isnan(lo) or mp.isnan(hi):
        raise NumericalError(f"delta of {f} at eps={eps} produced NaN")
    lo, hi = _in_unit(lo, hi)
    return CertifiedPair(lo, hi) if isinstance(pair, CertifiedPair) else (lo, hi)


#: Exact total variations delta_f(0) of finite objects, ``route(f) -> Rational | None`` (the
#: module of exact finite composition appends its route when it is imported).
EXACT_TV_ROUTES: list[Callable] = []


def _exact_delta_pair(f: TradeOff, eps) -> CertifiedPair | None:
    """delta_f(eps) at eps = +oo (the mass 1 - f(0), from the exact value f(0)) or at eps = 0
    (the total variation sum_r (Q_r - P_r)_+ of the exact finite loss) as the CertifiedPair of
    the exact rational rounded outward, or None where the objects are not finite."""
    if eps == mp.inf:
        q = exact_value(f, sp.S.Zero, sp.S.One)
        m = None if q is None else 1 - sp.Rational(q)
    else:
        m = next((x for x in (r(f) for r in EXACT_TV_ROUTES) if x is not None), None)
    if m is None:
        return None
    m = sp.Rational(m)
    trace.note("exact finite composition")
    return CertifiedPair(mp.fdiv(int(m.p), int(m.q), rounding="d"),
                         mp.fdiv(int(m.p), int(m.q), rounding="u"))


def _arb_delta_pair(f: TradeOff, eps) -> CertifiedPair | None:
    """:func:`arb_delta` at the mpf ``eps`` (an exact ball) with guard bits beyond the working
    precision, as the CertifiedPair of its ball's ends rounded outward, or None."""
    from mpmath.libmp import round_ceiling, round_floor

    from .arb import arb_endpoint, arb_exact
    from .context import arb_precision

    with arb_precision(mp.prec + ARB_GUARD_BITS):
        b = arb_delta(f, arb_exact(eps))
        if b is None or not b.is_finite():
            return None
        trace.note("Arb sum of the family's privacy profile")
        return CertifiedPair(arb_endpoint(b.lower(), round_floor),
                             arb_endpoint(b.upper(), round_ceiling))


def delta_value(f: TradeOff, eps, dps: int) -> Value:
    """The certified Value of delta_f(eps) at an exact eps (a float or an mpf >= 0, or +oo):
    :func:`enclose_delta` confirmed by :func:`certified`. The validating public entry point is
    ``analysis.conversions.delta``; this one serves the numeric layer (profile factors)."""

    def compute():
        lo, hi = enclose_delta(f, mp.mpf(eps))
        if lo > hi:
            raise NumericalError(f"delta of {f} at eps={eps}: enclosure left [0, 1]; raise dps")
        return lo, hi

    return certified(compute, dps, lambda: f"delta({short(f)}, {short(eps)})")


def _whole_unit(lo, hi) -> bool:
    """Does the unproved enclosure [lo, hi] say nothing about a number of [0, 1]? (The convex
    conjugate of Max(G(1), Laplace(1)) at y = -e^200 cancels beyond 50 digits: the mpmath route
    returned delta in [0, 1], in silence; a higher precision gives [0, 1.5e-22].)"""
    return lo <= 0 and 1 <= hi < mp.inf


def caller_level() -> int:
    """The ``stacklevel`` that attributes a warning issued by the function calling this one to
    the first frame outside the package and the standard library's wrappers it calls through
    (``functools.singledispatch``, ``contextlib``): the public calls reach it at different
    depths."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename.startswith(root) or os.path.basename(
            frame.f_code.co_filename) in ("functools.py", "contextlib.py")):
        frame, level = frame.f_back, level + 1
    return level


def _vacuous(v: Value) -> bool:
    """Is the Value an enclosure that determines no digit: [0, x] with x > 0, or [lo, +oo]?"""
    return v.lo != v.hi and (v.lo == 0 or v.hi == mp.inf)


def _agree(a, b, digits: int) -> bool:
    """|a - b| <= 10^-digits max(|a|, |b|) (exactly, whatever the context)."""
    if a == b:
        return True
    if not (mp.isfinite(a) and mp.isfinite(b)):
        return False
    with mp.workprec(max(mp.prec, 64) + 64):
        return abs(a - b) <= mp.mpf(10) ** -digits * max(abs(a), abs(b))


def shown_level(x: Any, name: str = "alpha") -> str:
    """:func:`short` of the level ``x`` as :func:`as_level` reads it (as given if it cannot)."""
    try:
        return short(as_level(x, name))
    except Exception:
        return short(x)


@budget.deadline(lambda a: f"evaluate({short(a['f'])}, {shown_level(a['alpha'])})")
def evaluate(f: TradeOff, alpha: Any, dps: int = 30) -> Value:
    """f(alpha) as a :class:`Value` with ``dps`` correct digits or a guaranteed enclosure."""
    return _at_level(f, alpha, dps, power=False)


@budget.deadline(lambda a: f"roc({short(a['f'])}, {shown_level(a['alpha'])})")
def roc(f: TradeOff, alpha: Any, dps: int = 30) -> Value:
    """The attacker's power 1 - f(alpha) (TPR at FPR alpha) without cancellation."""
    return _at_level(f, alpha, dps, power=True)


def _at_level(f: TradeOff, alpha: Any, dps: int, power: bool) -> Value:
    """f(alpha), or 1 - f(alpha) when ``power``: exact where the objects are, else the certified
    point routes (Arb balls, :data:`POINT_ROUTES`), else the node's mpmath route
    (``mp_value`` / ``mp_roc``) under :func:`certified`."""
    prepare_call(f, dps)
    A = as_level(alpha)
    if A == 1:  # f(1) <= 1 - 1 = 0 for every trade-off function (Dong, Roth & Su, Prop. 1)
        return Value.from_exact(sp.S.One if power else sp.S.Zero, dps).routed(
            "f(1) = 0 (Prop. 1)")
    if isinstance(A, sp.Rational):
        q = exact_value(f, A, 1 - A)
        if q is None and A == 0 and exact_ends.dispatch(type(f)) is not _NO_ENDS:
            q = exact_ends(f)[0]  # (a registered end: f(0) = 1 - Q(P = 0) without f's values)
        if q is None and A > 0:  # (f non-increasing and f(z) = 0: f = 0 on [z, 1])
            z = exact_ends(f)[1]
            if z is not None and A >= z:
                q = sp.S.Zero
        if q is not None:
            return Value.from_exact(1 - q if power else q, dps).routed("exact arithmetic")
        v = _arb_point(f, A, dps, power) or _certified_point(f, A, dps, power)
        if v is not None:
            return v
    elif not A.free_symbols:  # a closed-form level (Phi(-1/2), 91 sqrt(2)/1500): its balls
        v = _arb_level_point(f, A, dps, power)
        for route in LEVEL_ROUTES:
            if v is not None:
                break
            v = route(f, A, dps, power)
        if v is not None:
            return v
    what, point = ("roc", mp_roc) if power else ("evaluate", mp_value)

    def compute():
        a, ac = _level_pair(A)
        return _unit_pair(point(f, a, ac), f, what)

    return certified(compute, dps, lambda: f"{what}({short(f)}, {short(A)})",
                     ("roc" if power else "value", f))


def short(x: Any) -> str:
    """A short text for x in messages (never a number with thousands of digits)."""
    if isinstance(x, sp.Rational) and (abs(x.p) > 10**30 or x.q > 10**30):
        with mp.workdps(15):
            return mp.nstr(num(x), 12)
    try:
        s = str(x)
    except ValueError:  # Python's limit on int -> str conversion
        return f"<{type(x).__name__} too large to print>"
    return s if len(s) <= 80 else s[:77] + "..."




def expression_value(x: sp.Basic, dps: int, floor: Any = None, cap: Any = None) -> Value:
    """The parameter-free SymPy number ``max(floor, min(cap, x))`` as a Value: exact or
    certified where :func:`closed_value` gives one, else an mpmath estimate (a function with no
    ball rule), which says so."""
    lo = None if floor is None else sp.sympify(floor)
    hi = None if cap is None else sp.sympify(cap)
    from .arb_expr import closed_value

    v = closed_value(x, dps)
    if v is not None and v.exact is not None:
        q = v.exact
        q = max(q, lo) if lo is not None else q
        q = min(q, hi) if hi is not None else q
        return Value.from_exact(q, dps)
    if v is not None:
        m = v.mid
    else:
        with mp.workdps(dps + GUARD_DPS):
            m = num(x, "value")
    with mp.workprec(dps_to_prec(dps) + 20):
        if lo is not None:
            m = max(m, mp.mpf(lo.p) / lo.q if lo.is_Rational else mp.mpf(lo.evalf(dps + 5)))
        if hi is not None:
            m = min(m, mp.mpf(hi.p) / hi.q if hi.is_Rational else mp.mpf(hi.evalf(dps + 5)))
    return Value.point(m, dps, guarantee="estimate" if v is None else v.guarantee)
