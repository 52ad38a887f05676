"""Subsampling and mixing with the identity.

* ``Mix(f, p)``: f_p = p f + (1 - p) Id (Dong, Roth & Su, Sec. 4.1 / Eq. (13)), the trade-off
  of sampling with probability p under one of the two directions.
* ``Subsample(f, p)`` = ``C(p, f)``: C_p(f) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6),
  the subsampling operator of Thm. 9.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
import sympy as sp

from ..core import trace
from ..core.citations import DRS
from ..core.errors import NoClosedForm
from ..core.node import PREC_ATOM, TradeOff, register_operator
from ..core.rules import bind_hook, rule
from ..families.trivial import Id
from ..numeric.capability import profile_form
from ..numeric.context import mp as _mp
from ..numeric.knots import clean_knots, pl_knots
from ..numeric.knots_eval import pl_hull_exact, pl_knots_cached, pl_mp_delta
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
)
from ..numeric.roots import HALF, bracket_level, c_bounds, level, t_bounds, widen
from ._base import SamplingOperator
from .maxgroup import Max, closed_by_rules
from .operand_ball import operand_ball
from .profile_ball import mix_delta
from .unary import Inverse, SymmetricHull, inverse_bracket, inverse_np, inverse_value

__all__ = ["Mix", "Subsample", "C"]


@register_operator
class Mix(SamplingOperator):
    """f_p = p f + (1 - p) Id, 0 <= p <= 1 (Dong, Roth & Su, Sec. 4.1)."""

    def _eval_at(self, alpha):
        v = self.arg._eval_at(alpha)
        return None if v is None else self.p * v + (1 - self.p) * (1 - alpha)

    def _eval_symmetric_hull(self):
        """C(f_p) = C_p(f) (Dong, Roth & Su, Def. 6) for symmetric f, evaluated by Eq. (13)."""
        return Subsample(self.arg, self.p) if self.arg.is_symmetric is True else None

    def _latex(self, printer):
        return r"%s_{%s}" % (self._latex_parens(printer, self.arg, PREC_ATOM + 1),
                             printer._print(self.p))


@register_operator
class Subsample(SamplingOperator):
    """C_p(f) = min{f_p, f_p^{-1}}^{**}, 0 <= p <= 1 (Dong, Roth & Su, Def. 6)."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer):
        return "C(%s, %s)" % (printer._print(self.p), printer._print(self.arg))

    def _latex(self, printer):
        return r"C_{%s}\left(%s\right)" % (printer._print(self.p), printer._print(self.arg))


def C(p: Any, f: Any) -> Subsample:
    """The papers' notation C_p(f) for ``Subsample(f, p)``."""
    return Subsample(f, p)


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Sec. 4.1: f_p = p f + (1 - p) Id (before Def. 6), C_p(f) = min{f_p,
# f_p^{-1}}^{**} (Def. 6), the facts listed after Thm. 9, Eq. (13) and Cor. 3 / Eq. (14).
# Eq. (14) is misprinted: see ``subsample_epsdelta`` and proofs/drs_counterexamples.md.

_MIX = DRS.sec("4.1", note="f_p = p f + (1 - p) Id")


@rule(Subsample, cite=DRS.defn(6, note="f_p >= f and f_p^-1 >= f^-1, so C_p(f) >= C(f)"),
      relation="lower", priority=10, hypotheses="none")
def subsample_lower(f: Subsample):
    """C_p(f) >= C(f) = min{f, f^{-1}}^{**}: subsampling never lowers the symmetric hull
    (= f for symmetric f)."""
    return SymmetricHull(f.arg)


@rule(Mix, cite=_MIX, priority=100)
def mix_one(f: Mix):
    """f_1 = f."""
    return f.arg if (f.p - 1).is_zero is True else None


@rule(Mix, cite=_MIX, priority=100)
def mix_zero(f: Mix):
    """f_0 = Id."""
    return Id if f.p.is_zero is True else None


@rule(Mix, cite=_MIX, priority=95)
def mix_id(f: Mix):
    """Id_p = p Id + (1 - p) Id = Id."""
    return Id if f.arg == Id else None


@rule(Mix, cite=_MIX, priority=90)
def mix_mix(f: Mix):
    """(f_p)_q = q (p f + (1-p) Id) + (1-q) Id = (pq) f + (1 - pq) Id = f_{pq}."""
    return Mix(f.arg.arg, f.arg.p * f.p) if isinstance(f.arg, Mix) else None


@rule(Subsample, cite=DRS.defn(6, note="p = 0: f_0 = Id"), priority=100)
def subsample_zero(f: Subsample):
    """C_0(f) = min{Id, Id^{-1}}^{**} = Id (fact 1 after Thm. 9)."""
    return Id if f.p.is_zero is True else None


@rule(Subsample, cite=DRS.at("Sec. 4.1, fact 3 after Thm. 9"), priority=100)
def subsample_id(f: Subsample):
    """C_p(Id) = Id: Id_p = Id, and min{Id, Id}^{**} = Id."""
    return Id if f.arg == Id else None


@rule(Subsample, cite=DRS.at("Sec. 4.1, fact 1 after Thm. 9", note="f symmetric"),
      priority=95)
def subsample_one_symmetric(f: Subsample):
    """C_1(f) = f for symmetric f (fact 1; it needs the symmetry).

    C_1(f) = min{f, f^{-1}}^{**}, which is f when f = f^{-1} (f is convex). Only when
    ``f.is_symmetric`` is True; see ``subsample_one`` for the general case.
    """
    return f.arg if (f.p - 1).is_zero is True and f.arg.is_symmetric is True else None


@rule(Subsample, cite=DRS.defn(6, note="p = 1: f_1 = f; the hull is Wang et al.'s C(f)"),
      priority=90)
def subsample_one(f: Subsample):
    """C_1(f) = min{f, f^{-1}}^{**} = SymmetricHull(f) for every trade-off function f.

    Fact 1 after Thm. 9 states C_1(f) = f for symmetric f only. For asymmetric f the two
    differ: f(alpha) = max{0, 1 - 4 alpha} = T((3/4, 1/4), (0, 1)) has f^{-1}(alpha) =
    (1 - alpha)/4 and C_1(f)(alpha) = max{0, 1/4 - alpha}, so C_1(f)(1/8) = 1/8 while
    f(1/8) = 1/2.
    """
    return SymmetricHull(f.arg) if (f.p - 1).is_zero is True else None


# A family's closed form of C_p reaches Subsample through the ``"subsample"`` hook
# (core.rules.hook): ``func(f, p)`` returns trade-off functions whose pointwise maximum is
# C_p(f) (f_{eps,delta}: Cor. 3, families/epsdelta.py), or None.
bind_hook("subsample", Subsample,
          lambda s, func: (lambda parts: None if parts is None else Max(*parts))(func(s.arg, s.p)))


# -- numerics of f_p = p f + (1 - p) Id: each term is monotone in f's value (0 <= p <= 1) --------
#: The finite views of f_p and C_p(g), filled by ``operators.subsample_loss`` (the exact finite
#: loss built atom by atom, the operand's ordered balls): "exact"(f, A, hull) -> the value at a
#: rational A or None, "mixed"(f, hull) -> the finite loss or None, "balls"(f) -> C_p(g)'s
#: balls or None.
FINITE_VIEWS: dict = {}


def _register_mix_numerics() -> None:
    @mp_value.register(Mix)
    def _(f, a, ac):
        p = num(f.p, "p")
        lo, hi = mp_value(f.arg, a, ac)
        return p * lo + (1 - p) * ac, p * hi + (1 - p) * ac

    @mp_roc.register(Mix)
    def _(f, a, ac):
        # 1 - f_p(alpha) = p (1 - f(alpha)) + (1 - p) alpha
        p = num(f.p, "p")
        lo, hi = mp_roc(f.arg, a, ac)
        return p * lo + (1 - p) * a, p * hi + (1 - p) * a

    @exact_value.register(Mix)
    def _(f, A, Ac):
        if not isinstance(f.p, sp.Rational):  # f_p = p f + (1 - p)(1 - alpha) = 1 - alpha at
            if A != 0:  # any p where f = 1 - alpha: at alpha = 0 when f(0) = 1 (alpha = 1 is
                return None  # answered before any route: f(1) = 0)
            return sp.S.One if exact_value(f.arg, A, Ac) == 1 else None
        v = exact_value(f.arg, A, Ac)
        if v is not None:
            return f.p * v + (1 - f.p) * Ac
        return FINITE_VIEWS["exact"](f, A, False)

    @np_value.register(Mix)
    def _(f, x):
        p = float(f.p)
        return p * np_value(f.arg, x) + (1 - p) * (1.0 - x)

    @mp_delta.register(Mix)
    def _(f, eps):
        """delta_{f_p}(eps) = p delta_f(eps') with e^{eps'} = 1 + (e^eps - 1)/p (see
        ``mix_profile``)."""
        p = num(f.p, "p")
        if p == 0:
            return _mp.zero, _mp.zero
        pair = mix_delta(f.arg, f.p, eps)  # certified where f's profile is
        return mix_profile(f.arg, p, eps) if pair is None else pair




def _shifted_profile(f: TradeOff, e, err):
    """delta_f at the argument e (an mpf with error bound ``err``, or ``mp.inf``): the
    profile's point value, or its enclosure widened by the error of the argument (delta_f is
    non-increasing with slope at least -e^eps, Dong, Roth & Su, Prop. 6)."""
    if e == _mp.inf:
        return mp_delta(f, _mp.inf)
    lo, hi = mp_delta(f, max(+e, _mp.zero))
    if lo == hi or err == 0:
        return lo, hi
    shift = _mp.exp(e + err) * 2 * err
    return max(lo - shift, _mp.zero), min(hi + shift, _mp.one)


def _mix_profile_form(g: TradeOff, p: sp.Expr, eps: sp.Expr) -> sp.Expr | None:
    """p delta_g(eps') with e^{eps'} = 1 + (e^eps - 1)/p: the profile of g_p (``mix_profile``)
    as a SymPy expression, where g has a closed-form profile, eps >= 0 and p in (0, 1]."""
    if not (sp.Ge(eps, 0) is sp.true and sp.Gt(p, 0) is sp.true and sp.Le(p, 1) is sp.true):
        return None
    inner = profile_form(g, sp.log(1 + (sp.exp(eps) - 1) / p))
    return None if inner is None else p * inner


@profile_form.register(Mix)
def _(f, eps):
    return _mix_profile_form(f.arg, f.p, eps)


@profile_form.register(Subsample)
def _(f, eps):
    """For symmetric f, delta of C_p(f) is delta of f_p (``subsample_profile``)."""
    return _mix_profile_form(f.arg, f.p, eps) if f.arg.is_symmetric is True else None


@profile_form.register(SymmetricHull)
def _(f, eps):
    """delta of the symmetric hull min{g, g^{-1}}^{**} is max(delta_g, delta_{g^{-1}}) (the
    conjugate of the hull of a minimum is the maximum of the conjugates; Prop. 6): delta_g
    itself when g is symmetric, and delta_{g_p} when g = Mix(h, p) with h symmetric (then
    the hull is C_p(h), Def. 6, whose profile is that of h_p: ``subsample_profile``)."""
    g = f.arg
    if g.is_symmetric is True:
        return profile_form(g, eps)
    if isinstance(g, Mix) and g.arg.is_symmetric is True:
        return _mix_profile_form(g.arg, g.p, eps)
    return None


def mix_profile(f: TradeOff, p, eps):
    """delta(eps) of f_p = p f + (1 - p) Id = T(P, (1 - p) P + p Q) for f = T(P, Q), p > 0:
    sup_S {(1 - p) P(S) + p Q(S) - e^eps P(S)} = p delta_f(eps') with e^{eps'} = 1 + (e^eps -
    1)/p (Dong, Roth & Su, Prop. 6; eps' >= eps >= 0)."""
    if eps == _mp.inf:
        e, err = _mp.inf, _mp.zero
    else:
        with _mp.workprec(_mp.prec + 24):
            e = _mp.log1p(_mp.expm1(eps) / p)
            err = _mp.ldexp(abs(e) + 1, -(_mp.prec - 8))
    lo, hi = _shifted_profile(f, e, err)
    return p * lo, p * hi


def subsample_profile(f: TradeOff, p, eps):
    """delta(eps) of C_p(f) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6), eps >= 0.

    The conjugate of the lower convex envelope of a minimum is the maximum of the conjugates,
    so (Prop. 6) delta is the larger of the profiles of f_p = T(P, R), R = (1 - p) P + p Q, and
    of f_p^{-1} = T(R, P). The first is ``mix_profile``. The second is sup_S {c P(S) - p e^eps
    Q(S)} with c = 1 - (1 - p) e^eps: 0 when c <= 0, else c delta_{f^{-1}}(eps'') with
    e^{eps''} = p e^eps / c (>= 1). For symmetric f the first is the larger (the hull is f_p up
    to its fixed point, where the slope is -1 >= -e^eps), so only it is computed.
    """
    d1 = mix_profile(f, p, eps)
    if f.is_symmetric is True or eps == _mp.inf:  # (at eps = oo, c = -oo)
        return d1
    with _mp.workprec(_mp.prec + 24):
        c = p - (1 - p) * _mp.expm1(eps)
        c_err = _mp.ldexp(p + (1 - p) * _mp.expm1(eps) + 1, -(_mp.prec - 8))
    if c <= -c_err:
        return d1
    if c <= c_err:  # c within its rounding of 0: the second profile is at most c <= 2 c_err
        return d1[0], max(d1[1], 2 * c_err)
    with _mp.workprec(_mp.prec + 24):
        e = eps + _mp.log(p) - _mp.log(c)
        err = _mp.ldexp(abs(eps) + abs(_mp.log(p)) + abs(_mp.log(c)) + 1,
                        -(_mp.prec - 8)) + 2 * c_err / c
    lo, hi = _shifted_profile(Inverse(f), e, err)
    d2 = (c * lo, c * lo) if lo == hi else ((c - c_err) * lo, (c + c_err) * hi)
    return max(d1[0], d2[0]), max(d1[1], d2[1])


_register_mix_numerics()


# ================================================================================================
# NUMERIC EVALUATION of Subsample: C_p(f) for symmetric f by Eq. (13) (Dong, Roth & Su)
# ================================================================================================
# For symmetric f with fixed point x* (f(x*) = x*), the slope -1 line through (x*, f_p(x*)) is
# tangent to f_p (f'(x*) contains -1 by symmetry) and to f_p^{-1} (its mirror image), so
#
#     C_p(f)(x) = f_p(x)                              on [0, x*],
#                 x* + f_p(x*) - x = 1 - x - p(1 - 2 x*)  on [x*, f_p(x*)],
#                 f_p^{-1}(x)                          on [f_p(x*), 1]            (Eq. (13)),
#
# checked against the brute-force lower convex envelope of min{f_p, f_p^{-1}} in
# tests/test_operator_numerics.py. x* comes from the family's closed form or from a bracket on
# f(t) > t (numeric.roots); with x* in [xl, xh] the three pieces become an enclosure: between xl
# and xh the value lies between the tangent line and f_p, and near f_p(x*) between the line and
# f_p^{-1} (C_p(f) <= min{f_p, f_p^{-1}} and the line is an affine minorant). An asymmetric
# operand needs the general envelope, which has no guaranteed route yet: NoClosedForm.

_FIXED_POINTS: dict = {}


def fixed_point_bracket(f: TradeOff):
    """Levels ``(L, H)`` bracketing the fixed point x* = f(x*) of f (in [0, 1/2]), at the
    current precision; exact (L = H) when the family has a closed-form fixed point."""
    key = (f, _mp.prec)
    hit = _FIXED_POINTS.get(key)  # (one lookup: another thread may clear the dict)
    if hit is not None:  # cached as raw values: an mpf belongs to its thread's context
        mk = _mp.make_mpf
        return tuple((mk(t), mk(tc)) for t, tc in hit)
    v = f._eval_fixed_point()
    if v is not None and v.is_number:
        x = level(num(v, "fixed point"))
        out = (x, x)
    else:
        def probe(t):
            lo, hi = mp_value(f, *t)
            return (1 if lo > t[0] else (-1 if hi <= t[0] else 0)), (lo + hi) / 2 - t[0]

        zero = (_mp.zero, _mp.one)
        if probe(zero)[0] < 0:
            out = (zero, zero)
        else:
            out = widen(*bracket_level(probe, hi=HALF()))
    if len(_FIXED_POINTS) > 512:
        _FIXED_POINTS.clear()
    _FIXED_POINTS[key] = tuple((t._mpf_, tc._mpf_) for t, tc in out)
    return out


def _symmetric_operand(f: Subsample) -> TradeOff:
    if f.arg.is_symmetric is not True:
        raise NoClosedForm(
            f"{f}: C_p(g) is evaluated for symmetric g (Dong, Roth & Su, Eq. (13)); "
            f"{f.arg} is not known to be symmetric and the general lower convex envelope of "
            "min{g_p, g_p^-1} has no guaranteed numeric route yet")
    return f.arg


def _widen_out(lo, hi):
    eps = _mp.ldexp(1, -(_mp.prec - 4))
    return lo - abs(lo) * eps, hi + abs(hi) * eps


_TARGETS = trace.Memo()


def subsample_target(f: Subsample) -> TradeOff | None:
    """A node equal to C_p(f) by a registered identity (C_p(f_{eps,delta}) = max of two
    f_{eps,delta}, Cor. 3 as corrected; C_0(f) = Id; C_1(f) = C(f); ...), or ``None``."""
    return _TARGETS(f, lambda: None if f.free_symbols else closed_by_rules(f))


def _subsample_eval(f: Subsample, a, ac, power: bool):
    """Enclosure of C_p(f)(alpha) (``power=False``) or of 1 - C_p(f)(alpha) (``power=True``)."""
    t = subsample_target(f)
    if t is not None:
        return mp_roc(t, a, ac) if power else mp_value(t, a, ac)
    if f.arg.is_symmetric is not True:  # C_p(f) = C(f_p): the general envelope
        h = SymmetricHull(Mix(f.arg, f.p))
        return mp_roc(h, a, ac) if power else mp_value(h, a, ac)
    g = _symmetric_operand(f)
    p = num(f.p, "p")
    if p == 0:
        return (a, a) if power else (ac, ac)
    if p == 1:
        return mp_roc(g, a, ac) if power else mp_value(g, a, ac)
    fp = Mix(g, f.p)
    (xl, _), (xh, _) = fixed_point_bracket(g)
    exact_x = xl == xh

    def line(x):  # 1 - a - p(1 - 2x) or its power a + p(1 - 2x), at doubled precision
        with _mp.workprec(2 * _mp.prec):
            q = num(f.p, "p")
            return (a + q * (1 - 2 * x)) if power else (ac - q * (1 - 2 * x))

    def line_encl():
        u, v = line(xl), line(xh)
        lo, hi = min(u, v), max(u, v)
        return (+lo, +lo) if exact_x else _widen_out(lo, hi)

    # the right end of the linear piece, r = f_p(x*) = 1 - p + (2p - 1) x*, over x* in [xl, xh]
    r1, r2 = 1 - p + (2 * p - 1) * xl, 1 - p + (2 * p - 1) * xh
    r_lo, r_hi = min(r1, r2), max(r1, r2)
    if not exact_x:
        r_lo, r_hi = _widen_out(r_lo, r_hi)
    if a <= xl:
        return mp_roc(fp, a, ac) if power else mp_value(fp, a, ac)
    if a >= r_hi and a > xh:  # f_p^{-1}: a point when f's values are (see operators.unary)
        return inverse_value(fp, a, ac, power)
    if xh <= a <= r_lo:
        return line_encl()
    # a sits where the piece is uncertain: between the tangent line and f_p or f_p^{-1}
    llo, lhi = line_encl()
    if a < xh:
        other = mp_roc(fp, a, ac) if power else mp_value(fp, a, ac)
    else:
        LH = inverse_bracket(fp, a, ac)
        other = c_bounds(*LH) if power else t_bounds(*LH)
    # C_p(f) lies between the line (below) and the piece (above); powers the other way round
    return (other[0], lhi) if power else (llo, other[1])


def _subsample_np(f: Subsample, x):
    if f.arg.is_symmetric is not True:
        return np_value(SymmetricHull(Mix(f.arg, f.p)), x)
    g = _symmetric_operand(f)
    p = float(f.p)
    v = g._eval_fixed_point()
    if v is not None and v.is_number:
        xs = float(v)
    else:
        lo, hi = 0.0, 0.5
        for _ in range(60):
            m = (lo + hi) / 2
            if float(_np.asarray(np_value(g, _np.array([m])))[0]) > m:
                lo = m
            else:
                hi = m
        xs = (lo + hi) / 2
    fp = Mix(g, f.p)
    r = 1 - p + (2 * p - 1) * xs
    x = _np.asarray(x, dtype=_np.float64)
    out = _np.where(x <= xs, _np.asarray(np_value(fp, x), dtype=_np.float64),
                    (1.0 - x) - p * (1 - 2 * xs))
    right = x > r
    if right.any():
        out = _np.where(right, 0.0, out)
        out[right] = inverse_np(fp, x[right])
    return out


def _pl_exact_subsample(f: Subsample, A):
    """C_p(f)(A) = C(f_p)(A) exactly when f_p is piecewise linear with rational knots (the hull
    of its knots, numeric.knots_eval), else None."""
    k = pl_knots(Mix(f.arg, f.p))
    return None if k is None else pl_hull_exact(k, A)


def _p_ball(p):
    from ..numeric.arb_expr import arb_ball

    return arb_ball(p)


# -- Arb balls of Mix and of C_p(f) for symmetric f (the fast path of evaluate and roc) --------
def _arb_mix(g: TradeOff, P, a, ac, power: bool):
    """f_p(alpha) = p g(alpha) + (1 - p)(1 - alpha), or its power p (1 - g) + (1 - p) alpha,
    as a ball from g's ball (None where g has none)."""
    v = operand_ball(g, a, ac, power)
    return None if v is None else P * v + (1 - P) * (a if power else ac)


def _arb_mix_root(g: TradeOff, P, ac, hi):
    """The ball of t in [0, hi] with f_p(t) = alpha (f_p decreasing, f_p(hi) <= alpha), from
    ``ac`` = 1 - alpha: bisection on exact dyadic points, each step decided by Arb's comparison
    of the power 1 - f_p(t) with ``ac`` (no cancellation near alpha = 1; geometric steps while
    the lower end is 0, so that t = 1e-300 keeps its digits). Returns the ball [lo, hi]
    reached when a comparison can no longer be decided, or None."""
    from flint import arb, ctx

    lo, hi = arb(0), arb(hi.upper())
    for _ in range(4 * ctx.prec + 200):
        if lo > 0 and hi - lo <= hi * arb(2) ** (-ctx.prec + 2):
            break
        mid = arb((hi * arb(2) ** -32).mid()) if lo == 0 else arb(((lo + hi) / 2).mid())
        v = _arb_mix(g, P, mid, 1 - mid, True)  # 1 - f_p(mid)
        if v is None:
            return None
        if v < ac:  # f_p(mid) > alpha: the root lies right of mid
            lo = mid
        elif v > ac:
            hi = mid
        else:
            break
    return lo.union(hi)


def _arb_subsample(f: Subsample, a, ac, power: bool):
    """C_p(f)(alpha) by Eq. (13) in Arb for symmetric f with a closed-form fixed point and a
    ball form: f_p on [0, x*], the line x* + f_p(x*) - alpha, then f_p^{-1} (the root of
    f_p(t) = alpha by :func:`_arb_mix_root`). None where a piece is not decided by the balls
    (alpha at a junction within rounding): the mpmath route answers."""

    from ..numeric.arb_expr import arb_ball

    g = f.arg
    t = subsample_target(f)
    if t is not None:  # a closed identity (Max of two f_{a,b} for f_{eps,delta}): its balls
        return arb_value(t, a, ac, power)
    if g.is_symmetric is not True or f.p.free_symbols:
        return None
    if not (0 < f.p < 1):
        return None
    xs_form = g._eval_fixed_point()
    if xs_form is None or not xs_form.is_number:
        return None
    try:
        xs = arb_ball(xs_form)
    except ValueError:
        return None
    P = arb_ball(f.p)
    fx = 1 - P + (2 * P - 1) * xs  # f_p(x*), as g(x*) = x*
    if a < xs:
        return _arb_mix(g, P, a, ac, power)
    if a > xs and a < fx:
        return a + P * (1 - 2 * xs) if power else ac - P * (1 - 2 * xs)
    if a > fx:
        t = _arb_mix_root(g, P, ac, xs)
        return None if t is None else (1 - t if power else t)
    return None


def _register_subsample_numerics() -> None:
    arb_value.register(Mix)(lambda f, a, ac, power: _arb_mix(f.arg, _p_ball(f.p), a, ac,
                                                             power))
    arb_value.register(Subsample)(_arb_subsample)

    mp_value.register(Subsample)(lambda f, a, ac: _subsample_eval(f, a, ac, False))
    mp_roc.register(Subsample)(lambda f, a, ac: _subsample_eval(f, a, ac, True))

    @np_value.register(Subsample)
    def _(f, x):
        t = subsample_target(f)
        return np_value(t, x) if t is not None else _subsample_np(f, x)

    @mp_delta.register(Subsample)
    def _(f, eps):
        """delta of C_p(f): a closed form by the identities; exact from the knots when
        piecewise linear; else from the profiles of f and f^{-1} (``subsample_profile``)."""
        t = subsample_target(f)
        if t is not None:
            lo, hi = mp_delta(t, eps)
            if lo == hi:
                return lo, hi
        k = pl_knots_cached(f)
        if k is not None:  # (exact knots: also where the target's parameters cancel, such
            # as eps' = log(1 - p + p e^eps) for p = 1e-122)
            return pl_mp_delta(k, eps)
        if t is not None:
            return lo, hi
        p = num(f.p, "p")
        if p == 0:
            return _mp.zero, _mp.zero
        return subsample_profile(f.arg, p, eps)


    @mp_epsilon.register(Subsample)
    def _(f, d):
        """eps(d) of C_p(g) for a finite g from the exact finite loss built atom by atom
        (``numeric.finite_subsample``): the crossing proved from its ordered Arb balls
        (``FiniteValues.arb_epsilon``, a CertifiedPair); None otherwise (the bracketing search
        on delta answers)."""
        if subsample_target(f) is not None:
            return None
        fl = FINITE_VIEWS["mixed"](f, True)
        if fl is None:
            fl = FINITE_VIEWS["balls"](f)  # (a large operand on one lattice: its balls)
        if fl is None or not fl.arb_first():
            return None
        r = fl.arb_epsilon(d)
        if r is not None:
            trace.note("C_p(f) as a finite pair in Arb")
        return r

    @exact_value.register(Subsample)
    def _(f, A, Ac):
        t = subsample_target(f)
        if t is not None:
            v = exact_value(t, A, Ac)
            if v is not None:
                return v
        g = f.arg
        v = FINITE_VIEWS["exact"](f, A, True) if isinstance(f.p, sp.Rational) else None
        if v is not None:
            return v
        if g.is_symmetric is not True or not isinstance(f.p, sp.Rational):
            return _pl_exact_subsample(f, A)
        x = g._eval_fixed_point()
        if not isinstance(x, sp.Rational):
            return None
        if A <= x:
            return exact_value(Mix(g, f.p), A, Ac)
        if A <= 1 - f.p + (2 * f.p - 1) * x:
            return Ac - f.p * (1 - 2 * x)
        return _pl_exact_subsample(f, A)


_register_subsample_numerics()


# -- knots of piecewise-linear operands (numeric.knots) --------------------------------------------
@pl_knots.register(Mix)
def _(f):
    """p f + (1 - p) Id on the operand's knots."""
    k = pl_knots(f.arg)
    if k is None:
        return None
    p = f.p
    return clean_knots([(x, p * y + (1 - p) * (1 - x)) for x, y in k])


@pl_knots.register(Subsample)
def _(f):
    """C_p(f) = C(f_p) (Def. 6)."""
    return pl_knots(SymmetricHull(Mix(f.arg, f.p)))
