"""Conversions between f-DP and (eps, delta)-DP: the primal-dual perspective.

* :func:`delta` — primal to dual, ``delta(eps) = 1 + f^*(-e^eps)`` (Dong, Roth & Su, Prop. 6).
* :func:`epsilon` — its inverse: the smallest ``eps >= 0`` with ``delta(eps) <= delta``.
* :func:`from_privacy_profile` — dual to primal for finitely many pairs:
  ``max_i f_{eps_i, delta_i}`` (Prop. 5) as an expression.
* :func:`primal_value` — dual to primal for a whole profile ``eps -> delta(eps)`` at one
  ``alpha``: a guaranteed enclosure of ``sup_eps f_{eps, delta(eps)}(alpha)`` for a
  non-increasing profile; :func:`primal_value_lower` is the plain grid supremum, a lower bound.

Every numeric result is a :class:`~tradeoff_algebra.numeric.value.Value` with the guarantees
of docs/architecture.md, "Evaluation contract": closed forms give ``lo = hi`` to ``dps``
digits, anything else an enclosure ``lo <= truth <= hi``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import sympy as sp
from flint import arb

from ..core import trace
from ..core.errors import InvalidParameter, NoClosedForm, ToleranceWarning
from ..core.levels import as_level
from ..core.node import TradeOff
from ..core.validate import mpf_rational, param
from ..numeric import budget
from ..numeric.arb_expr import Unenclosable, arb_ball, arb_enclose, ball_point, certify
from ..numeric.capability import profile_form
from ..numeric.context import MPF, arb_precision, mp
from ..numeric.finite import finite_loss
from ..numeric.lattice_product import exact_fraction
from ..numeric.options import options as _pld_options
from ..numeric.protocol import (
    GUARD_DPS,
    arb_delta,
    caller_level,
    certified,
    enclose_delta,
    mp_epsilon,
    num,
    prepare_call,
    short,
    shown_level,
)
from ..numeric.roots import Bracket, Probe, expand_bracket, findroot
from ..numeric.value import CertifiedPair, Value, dps_to_prec, weakest
from .largest_loss import largest_loss_exact, with_top
from .lazy import defer
from .pure_power import lattice_power_delta, small_power_delta, small_power_epsilon

__all__ = ["delta", "epsilon"]

#: The generic epsilon search looks no further than this (a guarantee with eps beyond it says
#: nothing); past it the answer is the enclosure [last eps known too small, inf].
EPS_SEARCH_CAP = 2**30


def _eps_arg(eps: Any, owner: str, name: str = "eps"):
    """Validate eps >= 0 (``oo``/``float('inf')`` allowed) and return it as an mpf."""
    if isinstance(eps, float) and eps == float("inf"):
        return mp.inf
    if isinstance(eps, MPF):
        if mp.isnan(eps) or eps < 0:
            raise InvalidParameter(name, eps, "a real number in [0, oo]", owner)
        return +eps
    e = param(name, eps, lower=0, owner=owner, allow_infinite=True)
    return num(e, name)


@defer("delta", r"\delta_{{{f}}}\left({args}\right)")
@budget.deadline(lambda a: f"delta({short(a['f'])}, {short(a['eps'])})")
def delta(f: TradeOff, eps: Any, dps: int = 30) -> Value:
    """The (eps, delta)-DP profile of f: ``delta(eps) = 1 + f^*(-e^eps)``.

    Dong, Roth & Su, Prop. 6: a mechanism is f-DP (f symmetric) if and only if it is
    (eps, delta(eps))-DP for every ``eps >= 0``. For G_mu this is Cor. 1; closed forms exist
    for G_mu, L_mu, f_{eps,delta}, Id and Zero (each family's module) and stay accurate to
    ``dps`` digits for delta down to 1e-300 and far below (no cancellation to 0, never
    negative); other expressions go through the numeric convex conjugate and return its
    enclosure. For an asymmetric f the number is that of the ordered pair behind f only.

    ``eps`` must be a real number ``>= 0`` (Prop. 6 is stated for eps >= 0, and f_{eps,delta}
    is a trade-off function only for eps >= 0); ``eps = oo`` gives ``delta(oo) = 1 - f(0)``,
    the mass the two distributions do not share near alpha = 0.

    With free symbols in ``f`` or ``eps`` the result is an unevaluated
    :class:`~tradeoff_algebra.analysis.lazy.Functional` (for claims in ``ta.verify``).
    """
    prepare_call(f, dps)
    v = _closed_delta(f, eps, dps)
    if v is not None:
        return v
    v = _zero_above_top(f, eps, dps)
    if v is not None:
        return v

    def compute():
        e = _eps_arg(eps, "delta")
        ends = _eps_bracket(eps, e)
        r = enclose_delta(f, ends[0])
        if isinstance(r, CertifiedPair) and ends[1] != ends[0]:
            # The routes certify delta at an mpf. Where eps is not one, delta is proved at the
            # two mpfs around it and, being non-increasing in eps (Prop. 6), lies between:
            # where it vanishes at the exact eps (eps = eps0 of a shuffled pair) the result is
            # [0, delta(rounded down)], never a point proved at a rounded eps.
            r2 = enclose_delta(f, ends[1])
            r = (CertifiedPair(r2[0], r[1]) if isinstance(r2, CertifiedPair)
                 else (r2[0], r[1]))
        elif not isinstance(r, CertifiedPair) or ends[0] != e:
            r = tuple(r)  # an estimate, or a certificate of an eps other than the one asked
        lo, hi = r
        if lo > hi:
            from ..core.errors import NumericalError

            raise NumericalError(f"delta of {f} at eps={e}: enclosure left [0, 1]; raise dps")
        return r

    with warnings.catch_warnings(record=True) as seen:  # (the filters stay the caller's)
        v = certified(compute, dps, lambda: f"delta({short(f)}, {short(eps)})", ("delta", f))
    for w in seen:  # passed on as they came
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    if not any(issubclass(w.category, ToleranceWarning) for w in seen):
        _delta_tolerance_met(f, eps, v)
    return v


def _delta_tolerance_met(f: TradeOff, eps: Any, v: Value) -> None:
    """A ToleranceWarning when ``v``, an estimate that no route has warned about, is relatively
    wider than the tolerance of ``pld_options`` (delta of Max(G(3/2), G(1) @ L_1) at 1 came
    back as [0.2528, 0.2558], 1.2 % wide, in silence at tol = 5e-4: the convex conjugate of
    its values), and likewise a certified enclosure that no route has warned about (the
    maximum's concave search on certified powers, operators/max_delta.py, is about
    tol P(alpha*)/delta wide: 2e-9 at tol 1e-9 for the same Max at 7.45); an enclosure [0, x]
    that determines no digit (delta of Max(G(1), L_1) at 2, which is 0, proved below 1e-617)
    says so, whatever its guarantee."""
    if v.is_point or not v.hi > 0 or v.hi == mp.inf:
        return
    if v.lo == 0:
        warnings.warn(f"delta({short(f)}, {short(eps)}): the enclosure {v} determines no digit "
                      f"of the value ({v.guarantee}; it may be 0)", ToleranceWarning,
                      stacklevel=caller_level())
        return
    tol = _pld_tolerance()
    with mp.workprec(dps_to_prec(v.dps) + 20):
        rel = (mp.mpf(v.hi) - mp.mpf(v.lo)) / mp.mpf(v.hi)
    if rel > tol:
        what = "estimate" if v.guarantee == "estimate" else f"{v.guarantee} enclosure"
        warnings.warn(f"delta({short(f)}, {short(eps)}): the {what} {v} is {mp.nstr(rel, 2)} "
                      f"wide (relative), above the tolerance {tol:g} of pld_options",
                      ToleranceWarning, stacklevel=caller_level())


def _eps_bracket(eps: Any, e: Any) -> tuple:
    """``(lo, hi)``: mpfs at the working precision with ``lo <= eps <= hi``, ``lo == hi == e``
    when the mpf ``e`` is eps exactly (an mpf, a float, a dyadic rational, oo), ``(e, e)`` also
    when eps cannot be enclosed (the caller then treats a certificate as one of ``e`` only)."""
    if isinstance(eps, MPF) or isinstance(eps, float) or e == mp.inf:
        return e, e
    try:
        x = param("eps", eps, lower=0, owner="delta", allow_infinite=True)
    except InvalidParameter:
        return e, e
    if isinstance(x, sp.Rational):
        if mpf_rational(e) == x:
            return e, e
        return (mp.fdiv(int(x.p), int(x.q), rounding="d"),
                mp.fdiv(int(x.p), int(x.q), rounding="u"))
    from mpmath.libmp import round_ceiling, round_floor

    from ..numeric.arb import arb_endpoint

    try:
        with arb_precision(mp.prec + 30):
            b = arb_ball(x)
            if not b.is_finite():
                return e, e
            return arb_endpoint(b.lower(), round_floor), arb_endpoint(b.upper(), round_ceiling)
    except (Unenclosable, TypeError, ValueError):
        return e, e


def _closed_delta(f: TradeOff, eps: Any, dps: int) -> Value | None:
    """delta_f(eps) from the family's closed-form profile (``profile_form``)
    enclosed by Arb balls, or from the exact finite loss (exact, or Arb over its atoms): a
    certified point or an exact value, or None (neither applies, or eps = oo)."""
    with mp.workdps(dps + GUARD_DPS):
        e = _eps_arg(eps, "delta")
    if not mp.isfinite(e):
        return None
    E = _exact_eps(eps, e)
    v = small_power_delta(f, E, dps)  # f_{eps0,0}^(x)k at small k: its atoms, no beta function
    if v is not None:
        return v
    form = profile_form(f, E)
    if form is None:
        fl = finite_loss(f)
        if fl is not None and fl.affordable():
            v = fl.certified_delta(E, dps)
            return None if v is None else v.routed("exact finite composition")
        v = None if fl is None else lattice_power_delta(fl, E, dps)
        return v if v is not None else _arb_delta_point(f, E, dps)
    if isinstance(form, sp.Rational) and 0 <= form <= 1:  # an exact profile value stays exact
        return Value.from_exact(form, dps).routed("the closed-form profile, exactly")
    v = certify(form, dps)
    if v is None:
        return None
    return Value.point(min(max(v.mid, mp.zero), mp.one), dps,
                       guarantee="certified").routed("Arb ball of the closed-form profile")


def _zero_above_top(f: TradeOff, eps: Any, dps: int) -> Value | None:
    """delta_f(eps) = 0 where eps is proved at or above the largest privacy loss of the product
    f (:func:`.largest_loss.largest_loss_exact`): exact 0 when the comparison is exact
    (rationals), a
    certified 0 when Arb decided it; None otherwise (or for a node that is not a product).

    delta(eps) = E_Q[(1 - e^{eps - L})_+] (Dong, Roth & Su, Prop. 6 with the likelihood ratio
    e^L of Q to P) vanishes once L <= eps almost surely; at eps = sup L exactly the top atom
    contributes 1 - e^0 = 0. The routes prove delta at mpfs, so at an eps no mpf holds (the
    sum 1/2 + 1/3 + 1/5 + 1/7 of Laplace scales) the mpf just below gave [0, 1e-17]."""
    if not _is_product(f):
        return None
    with mp.workdps(dps + GUARD_DPS):
        e = _eps_arg(eps, "delta")
    if not mp.isfinite(e):
        return None
    top = largest_loss_exact(f)
    if top is None:
        return None
    gap = _exact_eps(eps, e) - top
    if gap.is_Rational:
        return Value.from_exact(sp.S.Zero, dps).routed("above the largest privacy loss, exactly") \
            if gap >= 0 else None
    try:
        ball = arb_enclose(gap, prec=mp.prec + 64)
    except Unenclosable:
        return None
    if not ball >= 0:  # (True only when proved)
        return None
    return Value.point(mp.zero, dps, guarantee="certified").routed(
        "above the largest privacy loss")


def _arb_delta_point(f: TradeOff, E: sp.Expr, dps: int) -> Value | None:
    """delta_f(E) from the family's Arb ball (``arb_delta``) as a certified point, or None."""
    if arb_delta.dispatch(type(f)) is arb_delta.dispatch(object):
        return None

    def make_ball(prec):
        with arb_precision(prec):
            return arb_delta(f, arb_ball(E))

    v = ball_point(make_ball, dps, unit=True)
    return None if v is None else v.routed("Arb ball of the registered profile")


def _exact_eps(eps: Any, e) -> sp.Expr:
    """eps as an exact SymPy number: the expression given (``log(2)`` stays exact) or the
    binary rational of the validated mpf ``e``."""
    if isinstance(eps, sp.Basic) and eps.is_number and not eps.has(sp.Float):
        return eps
    return mpf_rational(e)


def _certified_bracket(f: TradeOff, D: sp.Rational, lo, hi) -> bool:
    """Is the smallest eps with delta_f(eps) <= D proved to lie in [lo, hi]? By the
    closed-form profile in Arb: delta_f is non-increasing, so delta_f(lo) > D (or lo = 0) and
    delta_f(hi) <= D put it there. False where f has no closed-form profile or a side is not
    decided."""
    if not (mp.isfinite(lo) and mp.isfinite(hi)) or lo < 0:
        return False
    ends = [(hi, "hi")] if lo == 0 else [(lo, "lo"), (hi, "hi")]
    fl = None
    for x, side in ends:
        form = profile_form(f, mpf_rational(x))
        try:
            if form is not None:
                # delta_f(x) - D as one ball: the comparison is Arb's, decided when certain
                gap = arb_enclose(form - sp.Rational(D), prec=mp.prec + 32)
            else:
                fl = fl or finite_loss(f)
                ball = None if fl is None or not fl.affordable() else \
                    fl.arb_delta(mpf_rational(x), mp.prec + 32)
                if ball is None:
                    return False
                gap = ball - arb_enclose(sp.Rational(D), prec=mp.prec + 32)
        except Unenclosable:
            return False
        if side == "lo" and not gap > 0:
            return False
        if side == "hi" and not gap <= 0:
            return False
    return True


def _log_gap(d, target):
    if d <= 0 or target <= 0:
        return None
    return mp.log(d) - mp.log(target)


def _search_epsilon(f: TradeOff, target, dps: int, exact: sp.Expr | None = None):
    """Bracket and refine the smallest eps with delta(eps) <= target (delta non-increasing).

    Invariant: delta(L) > target is certain (``lo >`` the mpf above a rational level) or L = 0,
    and delta(U) <= target is certain (``hi <=`` the mpf below it: a delta equal to it decides
    nothing). The bracket is found by :func:`numeric.roots.expand_bracket`
    (eps = 1, 2, 4, ..., 4096, then steps of 64 times up to :data:`EPS_SEARCH_CAP`) and
    narrowed by :func:`numeric.roots.findroot` (Illinois on log delta, bisection as the
    safeguard; an undecided enclosure stops it); returns (L, U, all_points, certain) where
    all_points says every delta was a closed form and certain that every decision was proved
    (each delta a :class:`CertifiedPair`, compared with the mpfs around the level ``exact``)."""
    bracket = [mp.zero, mp.inf]  # the eps bracket so far, reported at a time limit
    points = [True]
    t_lo = t_hi = target
    if isinstance(exact, sp.Rational):
        t_lo = mp.fdiv(int(exact.p), int(exact.q), rounding="d")
        t_hi = mp.fdiv(int(exact.p), int(exact.q), rounding="u")
    certain = [isinstance(exact, sp.Rational)]
    seen: dict = {}  # eps -> the enclosure of delta there
    straddles: list = []  # the eps whose enclosure straddled the target

    def enclose(e):  # a time limit inside delta reports the eps bracket, not delta's enclosure
        try:
            r = enclose_delta(f, e)
            lo, hi = r
        except budget.TimeLimitExceeded as exc:
            raise budget.TimeLimitExceeded(exc.what, exc.seconds, tuple(bracket),
                                           ("epsilon", f)) from None
        points[0] &= lo == hi
        seen[e] = (lo, hi)
        return lo, hi, isinstance(r, CertifiedPair)

    def probe(e) -> Probe:  # +1: delta(e) > target certain; -1: delta(e) <= target certain
        lo, hi, proved = enclose(e)
        if hi <= t_lo:
            bracket[1] = min(bracket[1], e)
            certain[0] &= proved
            return Probe(-1, _log_gap(hi, target))
        if lo > t_hi:
            bracket[0] = max(bracket[0], e)
            certain[0] &= proved
            return Probe(1, _log_gap(lo, target))
        points[0] = False  # the enclosure straddles the target
        straddles.append(e)
        return Probe(None)

    lo0, hi0, proved = enclose(mp.zero)
    if hi0 <= target:
        return mp.zero, mp.zero, points[0], certain[0] and proved and hi0 <= t_lo
    certain[0] &= proved and lo0 > t_hi  # delta(0) > target: eps > 0
    try:
        inf_lo, _, proved = enclose(mp.inf)
    except NoClosedForm:
        inf_lo, proved = mp.zero, True
    if target < inf_lo:
        return mp.inf, mp.inf, points[0], certain[0] and proved and t_hi < inf_lo

    def trial(lo, hi, last, i):  # beyond 4096 (long pure compositions) in bigger steps
        e = mp.one if last is None else last * (2 if last < 2**12 else 64)
        return e if e <= EPS_SEARCH_CAP else None

    found = expand_bracket(probe, trial, lo=mp.zero, plo=Probe(1, _log_gap(hi0, target)),
                           fail=lambda lo, hi: Bracket(lo, mp.inf),
                           best=lambda lo, hi: (lo, mp.inf))
    if found.hi == mp.inf:  # no eps up to the cap is certain to meet the target
        return found.lo, mp.inf, False, certain[0]
    r = findroot(probe, (found.lo, found.hi), method="collapse", ends=(found.plo, found.phi),
                 rtol=mp.ldexp(1, -(mp.prec - 4)), max_iter=4 * mp.prec,
                 best=lambda lo, hi: (lo, hi))
    lo, hi = r.lo, r.hi
    if r.undecided and straddles and hi - lo > _pld_tolerance() * hi:
        lo, hi = _narrow_straddle(probe, lo, hi, straddles[-1], seen)
    return lo, hi, points[0] and not r.undecided, certain[0]


#: Probes that :func:`_narrow_straddle` spends at most on each side of an undecided eps.
STRADDLE_PROBES = 6


def _narrow_straddle(probe: Callable, lo, hi, m, seen: dict) -> tuple:
    """The eps bracket [lo, hi] narrowed around ``m``, an eps inside it whose enclosure of delta
    straddled the target, by probes at m -/+ h on either side.

    The bracketing search stops at the first undecided eps, and its secant steps converge on
    the root faster than the bracket does: eps(1e-10) of Max(G(3/2), G(1) (x) L_1) at tol 1e-9
    stopped at a bracket 7.6e-6 wide, its last trial within 1e-9 of the root, where delta's
    enclosure 1e-8 wide straddled the level; the width of the result was set by where the
    trials happened to fall, not by the width of delta, and at tol 1e-9 it came out wider than
    at 1e-6. The undecided zone around m spans about w / s in eps, w the relative width of
    delta's enclosure at m and s = |d log delta / d eps| (the secant of log delta across the
    bracket), so h starts at 2 w / s and doubles while a probe stays undecided. Only certain
    signs move the ends (``probe``), so the bracket stays valid whatever h is. (Called only
    where the bracket is relatively wider than the tolerance of ``pld_options``.)"""
    d_lo, d_hi = seen[m]
    a, b = seen.get(lo), seen.get(hi)
    step = None
    if d_lo > 0 and a is not None and b is not None and a[0] > 0 and b[1] > 0 and hi > lo:
        slope = (mp.log(a[0]) - mp.log(b[1])) / (hi - lo)
        if slope > 0:
            step = 2 * mp.log(d_hi / d_lo) / slope
    if step is None or not step > 0:
        step = (hi - lo) / 8
    for side in (-1, 1):
        h = step
        for _ in range(STRADDLE_PROBES):
            x = m + side * h
            if not lo < x < hi:
                break
            k = probe(x).k
            if k == 1:
                lo = x
            elif k == -1:
                hi = x
            if k is not None:
                break
            h *= 2
    return lo, hi


@defer("epsilon", r"\varepsilon_{{{f}}}\left({args}\right)")
@budget.deadline(lambda a: f"epsilon({short(a['f'])}, {shown_level(a['delta'], 'delta')})")
def epsilon(f: TradeOff, delta: Any, dps: int = 30) -> Value:
    """The smallest ``eps >= 0`` such that f-DP implies (eps, delta)-DP.

    That is ``inf {eps >= 0 : delta_f(eps) <= delta}`` with ``delta_f`` of :func:`delta`
    (Dong, Roth & Su, Prop. 6); ``delta_f`` is non-increasing, so the search brackets the
    crossing and refines it (regula falsi on ``log delta_f`` safeguarded by bisection) on the
    enclosures of ``delta_f``: the result encloses the true eps (a point when every
    ``delta_f`` was a closed form and the bracket is below ``dps`` digits). Closed forms:
    f_{eps0,delta0}, L_mu, Id, Zero.

    * ``delta`` outside [0, 1] raises :class:`InvalidParameter`.
    * ``delta >= delta_f(0)`` (the total variation distance) gives 0.
    * ``delta < delta_f(oo) = 1 - f(0)`` gives ``oo``: no finite eps works, because every
      (eps, delta)-DP guarantee admits the test that rejects on the part of Q singular to P,
      of power ``1 - f(0)`` at level 0. For G_mu, ``delta = 0`` gives ``oo`` as well.
    """
    prepare_call(f, dps)
    D = as_level(delta, "delta")
    if D == 1:  # delta_f(0) = TV(P, Q) <= 1 for every f, so eps_f(1) = 0 (Prop. 6)
        return Value.from_exact(sp.Integer(0), dps).routed("delta_f(0) <= 1 (Prop. 6)")
    v = small_power_epsilon(f, D, dps)  # f_{eps0,0}^(x)k at small k: its atoms, no search
    if v is not None:
        return v
    try:
        with trace.recording() as names:
            v = with_top(f, D, dps, lambda: _epsilon(f, D, dps))
        v = v if v.route else v.routed(trace.described(
            names, "the node's proved eps" if v.is_certain else "the node's mpmath evaluation"))
        return _zero_proved(f, D, dps, v)
    except budget.TimeLimitExceeded as exc:
        raise budget.own_best(exc, "epsilon", f) from None


def _zero_proved(f: TradeOff, D: sp.Expr, dps: int, v: Value) -> Value:
    """``v`` (eps_f(D) from any route) certified as the point 0 when it is an estimate whose
    upper end is 0 and a certified upper bound of delta_f(0) is at most D.

    delta_f is non-increasing (Dong, Roth & Su, Prop. 6) and eps_f(D) = inf{eps >= 0 :
    delta_f(eps) <= D}, so delta_f(0) <= D gives eps_f(D) = 0 exactly: one certified delta at 0
    (:func:`delta`; an exact one compared as its rational) and one exact comparison decide it,
    where the route that answered eps (a PLD grid) proved nothing. Asked only of such an
    estimate; a delta that cannot be certified (or its time limit) leaves ``v`` as it is."""
    if v.is_certain or not v.hi == 0 or not isinstance(D, sp.Rational):
        return v
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d0 = delta(f, 0, dps)
    except (NoClosedForm, ArithmeticError, ValueError):
        return v
    top = d0.exact if d0.exact is not None else mpf_rational(d0.interval()[1])
    if not d0.is_certain or not top <= D:
        return v
    return Value.point(mp.zero, dps, guarantee="certified").routed(
        f"delta(0) <= delta proved ({d0.route}; Prop. 6)")


#: Upper bounds of eps_f(delta) by other routes, ``bound(f, delta) -> mpf | None`` (a valid
#: upper bound, or None): consulted when the enclosure's upper end is +oo (registered by
#: modules above this one: the Renyi-DP conversion of ``analysis.renyi``).
EPSILON_UPPER_BOUNDS: list[Callable[[TradeOff, MPF], MPF | None]] = []


def _bounded_above(f: TradeOff, D: sp.Expr, lo, hi, dps: int) -> Value:
    """The enclosure [lo, hi] of eps with an infinite upper end replaced by the best bound of
    :data:`EPSILON_UPPER_BOUNDS`; either way a ToleranceWarning says how wide it is (an
    enclosure [lo, +oo] was returned in silence: eps of Laplace(1/10)^(x)100000 at 1e-6, whose
    privacy losses lie beyond the PLD engine's float64 range, came back as [0, +oo])."""
    how = "no route bounded it"
    if hi == mp.inf and lo < mp.inf:
        for bound in EPSILON_UPPER_BOUNDS:
            with budget.call(lambda: f"epsilon({short(f)}, {short(D)})"), \
                    mp.workdps(dps + GUARD_DPS):
                b = bound(f, num(D, "delta"))
            if b is not None and b < hi:
                hi, how = max(b, lo), "its upper end is the Renyi-DP conversion bound"
        warnings.warn(f"epsilon({short(f)}, {short(D)}): the numeric engines could not enclose "
                      f"eps tightly; {how}: [{mp.nstr(lo, 8)}, {mp.nstr(hi, 8)}]",
                      ToleranceWarning, stacklevel=4)
    return Value.enclosure(lo, hi, dps)


def _epsilon(f: TradeOff, D: sp.Expr, dps: int) -> Value:
    if _is_product(f) and _singular_above(f, D):  # decided at once, before any composition
        trace.note("singular part (Prop. 6)")
        return Value.point(mp.inf, dps, guarantee="certified")
    split = _delta_parts_epsilon(f, D, dps)
    if split is not None:
        return split
    with budget.call(lambda: f"epsilon({short(f)}, {short(D)})"), mp.workdps(dps + GUARD_DPS), \
            trace.recording(keep=False) as tried:
        first = mp_epsilon(f, num(D, "delta"))
    if first is not None:  # (a direct route answered: its names, else none of them)
        for name in tried:
            trace.note(name)
        if first[0] != first[1]:  # an enclosure (a composed grid): no need to compute it again
            if isinstance(first, CertifiedPair):  # the Laplace inversion (Arb)
                return Value.enclosure(first[0], first[1], dps, guarantee="certified")
            return _proved(f, D, _bounded_above(f, D, first[0], first[1], dps))
        if isinstance(first, CertifiedPair):  # a proved point: computing it again proves
            return Value.point(first[0], dps, guarantee="certified")  # nothing more
        v = certified(lambda: mp_epsilon(f, num(D, "delta")), dps,
                      lambda: f"epsilon({short(f)}, {short(D)})")
        if v.is_certain:  # (certified's default name is an estimate's: epsilon names the proof)
            return v
        return _proved(f, D, v)
    trace.note("bracketing search on delta(eps)")
    with budget.call(lambda: f"epsilon({short(f)}, {short(D)})"), mp.workdps(dps + GUARD_DPS):
        L, U, points, certain = _search_epsilon(f, num(D, "delta"), dps, D)
        g = "certified" if certain else "estimate"  # every decision proved (Arb or exact)
        if L == U:
            return _proved(f, D, Value.point(L, dps, guarantee=g))
        if (points or certain) and U != mp.inf and (U - L) <= mp.ldexp(U, -(mp.prec - 30)):
            return _proved(f, D, Value.point((L + U) / 2, dps, guarantee=g))
        if certain and U != mp.inf:
            return _tolerance_met(f, D, Value.enclosure(L, U, dps, guarantee="certified"))
    return _tolerance_met(f, D, _proved(f, D, _bounded_above(f, D, L, U, dps)))


def _pld_tolerance() -> float:
    """The relative width asked of numeric enclosures (``pld_options(tol=...)``)."""
    return float(_pld_options()["tol"])


def _tolerance_met(f: TradeOff, D: sp.Expr, v: Value) -> Value:
    """``v``, the enclosure of the bracketing search, with a ToleranceWarning when it is
    finite and relatively wider than the tolerance of ``pld_options`` (the search stops where
    the enclosures of delta straddle the level: eps(1e-6) of Max(G(3/2), G(1) @ L_1) came
    back as [5.718, 5.764], 0.8 % wide, in silence at tol = 5e-4). An infinite upper end has
    warned already (:func:`_bounded_above`)."""
    if v.is_point or v.hi == mp.inf:
        return v
    tol = _pld_tolerance()
    with mp.workprec(dps_to_prec(v.dps) + 20):
        rel = (mp.mpf(v.hi) - mp.mpf(v.lo)) / mp.mpf(v.hi)
    if rel > tol:
        warnings.warn(f"epsilon({short(f)}, {short(D)}): the bracketing search on delta(eps) "
                      f"stopped at the relative width {mp.nstr(rel, 2)}, above the tolerance "
                      f"{tol:g} (the enclosures of delta straddle the level); the result is the "
                      f"enclosure {v}", ToleranceWarning, stacklevel=caller_level())
    return v


def _bits_below_one(D) -> int:
    """About -log2(1 - D) for a rational D < 1 (else 0): the bits a ball of S - D needs
    beyond the digits asked when S and D both lie within 1 - D of 1 (at a fixed precision
    their balls then hold 1 and the comparison stays undecided)."""
    if not isinstance(D, sp.Rational) or not 0 < D < 1:
        return 0
    gap = 1 - D
    return max(0, int(gap.q).bit_length() - int(gap.p).bit_length() + 2)


def _singular_above(f: TradeOff, D: sp.Rational) -> bool:
    """Is delta_f(oo) = 1 - f(0) > D proved, so that eps_f(D) = oo (Dong, Roth & Su, Prop. 6:
    the test rejecting on the part of Q singular to P)? For a finite pair: delta(oo) =
    1 - prod_i (1 - q_oo,i)^{n_i}, q_oo,i a factor's Q-mass where P = 0 (Eq. (11)), decided
    in Arb (the exact power of a 53-bit mass at n = 10^6 would hold 5 * 10^7 bits) from the
    factors' exact masses."""
    if isinstance(D, sp.Rational) and D >= 1:
        return False
    fl = finite_loss(f)
    if fl is None:
        return False
    singular = fl.singular_leaves()
    if not singular:  # delta(oo) = 0 exactly: never above D >= 0
        return False
    prec = 128 + _bits_below_one(D)
    with arb_precision(prec):
        keep = arb(1)
        try:
            for q, m in singular:
                keep *= arb_ball(1 - q) ** m
            gap = 1 - keep - arb_enclose(sp.S(D), prec=prec)
        except (Unenclosable, ValueError):
            return False
    return bool(gap > 0)


def _is_product(f: TradeOff) -> bool:
    from ..operators.tensor import Tensor, TensorPower

    return isinstance(f, (Tensor, TensorPower)) and not f.free_symbols


def _delta_parts_epsilon(f: TradeOff, D: sp.Expr, dps: int) -> Value | None:
    """eps_f(D) of a product with f_{0,delta} parts (``delta_part``: f_{eps,delta} = f_{eps,0}
    (x) f_{0,delta}, a finite pair with equal singular masses on both sides), decided by
    Eq. (12) of Dong, Roth & Su before any composition: with 1 - S = prod (1 - delta_i)^{n_i}
    (Eq. (11)) and g the product of the rest, delta_f(eps) = S + (1 - S) delta_g(eps), so

        eps_f(D) = +oo                       when D < S (the test rejecting on the singular part),
        eps_f(D) = eps_g((D - S)/(1 - S))    when D > S

    (delta_g is non-increasing, so its generalised inverse at the shifted level is f's; Kairouz,
    Oh & Viswanath's optimal composition of (eps, delta)-DP is the case g = f_{eps,0}^{(x) k}).
    1 - S is an Arb ball (the exact power of a 53-bit delta at n = 10^6 holds 5 * 10^7 bits):
    D < S is decided in Arb, and the shifted level, enclosed in [d_lo, d_hi] (exact dyadic
    ends), gives eps_g(d_hi) <= eps_f(D) <= eps_g(d_lo), each by :func:`epsilon` at an exact
    level. None (the other routes answer) when f has no such part, its rest has more than one
    factor, a delta has no ball, or D = S is not decided."""
    from ..numeric.privacy_loss import delta_part
    from ..operators.tensor import Tensor, TensorPower
    from ..routes.plan import _product, pld_leaves

    if not isinstance(f, (Tensor, TensorPower)) or f.free_symbols or not isinstance(D, sp.Rational):
        return None
    leaves = pld_leaves(f)
    if leaves is None:
        return None
    rest, parts = [], []
    for g, n in leaves:
        r, d = delta_part(g)
        if d != 0:
            parts.append((sp.S(d), n))
        if r is not None:
            rest.append((r, n))
    if not parts or len(rest) > 1:  # (a rest of several factors: the product routes take the
        return None  # parts out themselves; simplified anew, f_{eps,0}^(x)k would become a
        # BinomialDP leaf whose exact table the PLD grid builds at any k)
    prec = dps_to_prec(dps) + 64 + _bits_below_one(D)
    with arb_precision(prec):
        try:
            keep = arb(1)
            for d, n in parts:
                keep *= arb_ball(1 - d) ** int(n)
        except (Unenclosable, ValueError):
            return None
        gap = 1 - keep - arb_enclose(D, prec=prec)  # S - D
        if gap > 0:  # D < S: no finite eps (Prop. 6)
            trace.note("f_{0,delta} parts by Eq. (12)")
            return Value.point(mp.inf, dps, guarantee="certified")
        if not gap < 0:
            return None
        level = (arb_enclose(D, prec=prec) - 1 + keep) / keep
        ends = [sp.Rational(*exact_fraction(x).as_integer_ratio())
                for x in (level.lower(), level.upper())]
    trace.note("f_{0,delta} parts by Eq. (12)")
    g = _product(tuple(rest))
    hi_end = epsilon(g, min(max(ends[0], sp.Integer(0)), sp.Integer(1)), dps)
    lo_end = epsilon(g, min(ends[1], sp.Integer(1)), dps)
    return _ordered_enclosure(lo_end, hi_end, dps)


def _ordered_enclosure(a: Value, b: Value, dps: int) -> Value:
    """The Value holding every x with a's truth <= x <= b's truth (a <= b): a point when both
    are the same point, else the enclosure from a's lower end to b's upper end; the weaker
    guarantee of the two."""
    g = weakest(a.guarantee, b.guarantee)
    if a.is_point and b.is_point and a.mid == b.mid:
        return Value.point(a.mid, dps, guarantee=g)
    lo = a.interval()[0] if a.is_point else a.lo
    hi = b.interval()[1] if b.is_point else b.hi
    return Value.enclosure(lo, hi, dps, guarantee=g)


def _proved(f: TradeOff, D: sp.Rational, v: Value) -> Value:
    """``v`` (an estimate of eps_f(D)) certified where the closed-form profile proves its
    bracket (:func:`_certified_bracket`): an enclosure as it is, a point by the bracket of
    one unit in its last digit on either side."""
    if v.is_certain:
        return v
    if v.lo == v.hi == mp.inf:
        return Value.point(mp.inf, v.dps, guarantee="certified") if _singular_above(f, D) else v
    with mp.workprec(dps_to_prec(v.dps) + 40):
        lo, hi = mp.mpf(v.lo), mp.mpf(v.hi)
        if lo == hi:
            r = abs(lo) * mp.mpf(10) ** (-v.dps)
            lo, hi = lo - r, lo + r
        if not _certified_bracket(f, D, max(lo, mp.zero), hi):
            return v
    if v.is_point:
        return Value.point(v.mid, v.dps, guarantee="certified")
    return Value.enclosure(v.lo, v.hi, v.dps, mid=v.mid, guarantee="certified")
