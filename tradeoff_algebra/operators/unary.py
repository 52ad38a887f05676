"""Unary operators on one trade-off function: inverse, symmetrisation, symmetric hull.

* ``Inverse(f)``: f^{-1}(alpha) = inf{t in [0,1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)),
  the trade-off function of the swapped pair: T(P,Q)^{-1} = T(Q,P).
* ``Symmetrize(f)``: f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2 discussion).
* ``SymmetricHull(f)``: C(f) = min{f, f^{-1}}^{**}, the lower convex envelope of the pointwise
  minimum (Wang, Su, Ye, Shokri & Su, Sec. 2; Dong, Roth & Su, Def. 6 uses it for C_p).
"""

from __future__ import annotations

from functools import singledispatch

import numpy as np

from ..core import trace
from ..core.citations import DRS, WANG
from ..core.errors import NoClosedForm
from ..core.node import PREC_ATOM, PREC_POSTFIX, TradeOff, register_operator
from ..core.rules import rule
from ..numeric import budget
from ..numeric.capability import profile_form
from ..numeric.context import mp
from ..numeric.envelope import hull_mp, hull_np
from ..numeric.finite import FiniteLoss, finite_loss
from ..numeric.knots import (
    clean_knots,
    exact_knots,
    lower_hull,
    pl_inverse,
    pl_knots,
    pl_max,
    pl_symmetric_hull,
)
from ..numeric.knots_eval import (
    pl_exact,
    pl_finite_loss,
    pl_hull_exact,
    pl_hull_mp,
    pl_hull_np,
    pl_knots_cached,
    pl_mp_value,
    pl_np,
)
from ..numeric.knots_profile import knots_delta
from ..numeric.pld import leaf_model
from ..numeric.privacy_loss import LazyLoss, PrivacyLoss, loss_views, privacy_loss
from ..numeric.protocol import (
    arb_delta,
    arb_value,
    conjugate_delta,
    exact_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
)
from ..numeric.roots import bracket_level, c_bounds, t_bounds, widen
from ._base import UnaryOperator
from .losses import InverseLoss
from .maxgroup import Max
from .power_profile import (
    inverse_delta,
    inverse_epsilon,
    power_delta,
    symmetrized_delta,
    unbounded_epsilon,
)
from .tensor import Tensor, TensorPower

__all__ = ["Inverse", "Symmetrize", "SymmetricHull", "hull_route"]


@register_operator
class Inverse(UnaryOperator):
    """f^{-1} (Dong, Roth & Su, Eq. (3)); ``f.inverse()``."""

    _precedence = PREC_POSTFIX

    @property
    def is_symmetric(self) -> bool | None:
        return self.arg.is_symmetric

    def _eval_inverse(self):
        return self.arg

    def _eval_at(self, alpha):
        g = self.arg._eval_inverse()
        return None if g is None or isinstance(g, Inverse) else g._eval_at(alpha)

    def _latex(self, printer):
        return r"%s^{-1}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class Symmetrize(UnaryOperator):
    """f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2)."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"%s^{\mathrm{S}}" % self._latex_parens(printer, self.arg, PREC_ATOM)


@register_operator
class SymmetricHull(UnaryOperator):
    """C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 2)."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _latex(self, printer):
        return r"\mathcal{C}\left(%s\right)" % printer._print(self.arg)


# -- numeric evaluation: see the NUMERIC EVALUATION section at the end of this module ----------


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Dong, Roth & Su, Eq. (3) defines f^{-1}; the discussion after Prop. 2 shows f^{-1} = T(Q, P)
# when f = T(P, Q). Hence (f^{-1})^{-1} = T(P, Q) = f for every trade-off function, and
# Sec. 3.1, property 4 gives (f (x) g)^{-1} = f^{-1} (x) g^{-1}.

_SWAP = DRS.eq(3, note="f^{-1} = T(Q, P) for f = T(P, Q)")


@rule(Inverse, cite=_SWAP, priority=100)
def inverse_involution(f: Inverse):
    """(f^{-1})^{-1} = f for a trade-off function f = T(P, Q): both equal T(P, Q).

    (For a general non-increasing function the double inverse is only its lower semicontinuous
    hull; trade-off functions are continuous on [0, 1], Prop. 1, so it is f itself.)
    """
    return f.arg.arg if isinstance(f.arg, Inverse) else None


@rule(Inverse, cite=DRS.at("Sec. 2.1, after Prop. 2", note="symmetric: f = f^{-1}"),
      priority=95)
def inverse_symmetric(f: Inverse):
    """f^{-1} = f when f is symmetric (``is_symmetric`` is True), as G_mu, f_{eps,delta}, Id."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(Inverse, cite=_SWAP, priority=50)
def inverse_closed_form(f: Inverse):
    """f^{-1} in closed form when the family knows it (its ``_eval_inverse`` hook)."""
    g = f.arg._eval_inverse()
    return None if g is None or isinstance(g, Inverse) else g


@rule(Inverse, cite=DRS.at("Sec. 3.1, property 4"), priority=40)
def inverse_tensor(f: Inverse):
    """(f (x) g)^{-1} = f^{-1} (x) g^{-1}: T(P x P', Q x Q')^{-1} = T(Q x Q', P x P')."""
    if isinstance(f.arg, Tensor):
        return Tensor(*[Inverse(g) for g in f.arg.factors])
    return None


@rule(Inverse, cite=DRS.at("Sec. 3.1, property 4"), priority=40)
def inverse_power(f: Inverse):
    """(f^{(x) n})^{-1} = (f^{-1})^{(x) n} (property 4 applied n - 1 times)."""
    if isinstance(f.arg, TensorPower):
        return TensorPower(Inverse(f.arg.base), f.arg.n)
    return None


# -- rules for the symmetrisations (f^S and C(f)) ------------------------------------------------
# Dong, Roth & Su, Prop. 2: f^S = max{f, f^{-1}}; Wang et al., Sec. 4 (before Thm. 4.2):
# C(f) = min{f, f^{-1}}^{**}. Both are symmetric in f and f^{-1}, and both return f when f is
# symmetric (f = f^{-1}; f is convex, so min{f, f}^{**} = f).

_SYM = DRS.prop(2, note="f^S = max{f, f^{-1}}")
_HULL = WANG.at("Sec. 4, before Thm. 4.2", note="C(f) = min{f, f^{-1}}^{**}")


@rule(Symmetrize, cite=_SYM, priority=100)
def symmetrize_symmetric(f: Symmetrize):
    """f^S = f when f is symmetric (``is_symmetric`` True)."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(Symmetrize, cite=_SYM, priority=90)
def symmetrize_inverse(f: Symmetrize):
    """(f^{-1})^S = max{f^{-1}, f} = f^S ((f^{-1})^{-1} = f for trade-off functions)."""
    return Symmetrize(f.arg.arg) if isinstance(f.arg, Inverse) else None


@rule(SymmetricHull, cite=_HULL, priority=100)
def symmetric_hull_symmetric(f: SymmetricHull):
    """C(f) = f when f is symmetric (``is_symmetric`` True)."""
    return f.arg if f.arg.is_symmetric is True else None


@rule(SymmetricHull, cite=_HULL, priority=90)
def symmetric_hull_inverse(f: SymmetricHull):
    """C(f^{-1}) = min{f^{-1}, f}^{**} = C(f)."""
    return SymmetricHull(f.arg.arg) if isinstance(f.arg, Inverse) else None


# ================================================================================================
# NUMERIC EVALUATION of Inverse, Symmetrize and SymmetricHull (registered with numeric.protocol)
# ================================================================================================
# f^{-1}(alpha) = inf{t in [0, 1] : f(t) <= alpha} (Dong, Roth & Su, Eq. (3)). The routes, in
# order (``inverse_route``):
#
# 1. sound identities that remove the inverse (``inverse_target``): (f^{-1})^{-1} = f (Eq. (3):
#    T(P, Q)^{-1} = T(Q, P), so nested inverses cancel in pairs), f^{-1} = f for symmetric f, the
#    operand's closed-form inverse (its ``_eval_inverse`` hook), (f (x) g)^{-1} = f^{-1} (x) g^{-1}
#    and (f^{(x) n})^{-1} = (f^{-1})^{(x) n} (Sec. 3.1, property 4), and max{f, g}^{-1} =
#    max{f^{-1}, g^{-1}} ({t : max{f, g}(t) <= alpha} is the intersection of the two up-sets
#    [f^{-1}(alpha), 1] and [g^{-1}(alpha), 1]);
# 2. a finite operand (numeric.finite): the pair with P and Q exchanged, exact;
# 3. a piecewise-linear operand with known knots: the mirrored knots (numeric.knots);
# 4. otherwise the infimum is bracketed on the level t with the operand's own enclosures
#    (numeric.roots.bracket_level): only certified comparisons f(t) > alpha or f(t) <= alpha
#    move the bracket, so the result [L, H] contains f^{-1}(alpha). A point value of the
#    operand is taken with a margin of a few units in its last place, and the level (alpha,
#    1 - alpha) with the half-unit it was rounded by, so the bracket is valid for the exact
#    alpha even where the comparison is ill-conditioned. For alpha > 1/2 the comparison is made
#    on the power, 1 - f(t) < 1 - alpha, so that both tails keep their relative accuracy; the
#    power 1 - f^{-1}(alpha) is the complement of the bracket, carried exactly by the levels.
#    When every operand value met was a point (a closed form) and the bracket lies inside
#    (0, 1), the result is returned as a point (the midpoint of the bracket), which the
#    caller's precision check (numeric.protocol.certified) confirms at a higher precision: an
#    ill-conditioned level then gets all its digits instead of an enclosure as wide as the
#    conditioning.


def _closed_inverse(f: Inverse) -> TradeOff | None:
    """The closed-form f^{-1} of ``Inverse(f)`` from the operand's hook, or ``None``."""
    g = f.arg._eval_inverse()
    return None if g is None or isinstance(g, Inverse) else g


def _inverse_of(g: TradeOff) -> TradeOff:
    """g^{-1} as a node: g when symmetric, the closed form of its family, the operand of a
    nested inverse, else ``Inverse(g)``."""
    if isinstance(g, Inverse):
        return g.arg
    if g.is_symmetric is True:
        return g
    h = g._eval_inverse()
    return h if h is not None and not isinstance(h, Inverse) else Inverse(g)


def inverse_target(f: Inverse) -> TradeOff | None:
    """A node equal to ``f = Inverse(g)`` without the outer inverse, by the identities listed
    above (route 1), or ``None`` when none applies."""

    g, n = f.arg, 1
    while isinstance(g, Inverse):
        g, n = g.arg, n + 1
    if n % 2 == 0:
        return g
    if g.is_symmetric is True:
        return g
    h = g._eval_inverse()
    if h is not None and not isinstance(h, Inverse):
        return h
    if isinstance(g, Tensor):
        return Tensor(*[_inverse_of(x) for x in g.factors])
    if isinstance(g, TensorPower) and g.n.is_Integer:
        return TensorPower(_inverse_of(g.base), g.n)
    if isinstance(g, Max):
        return Max(*[_inverse_of(x) for x in g.args])
    return Inverse(g) if n > 1 else None


def swapped_loss(fl):
    """The finite loss of T(Q, P) from that of T(P, Q) (numeric.finite.FiniteLoss), or None for
    a kind of leaf not known here: every explicit pair has P and Q exchanged; randomized
    response and the f_{0,delta} pair are symmetric and stay."""
    out = FiniteLoss()
    for (kind, x), m in fl._factors.items():
        if kind == "atoms":
            leaf = FiniteLoss.pair([q for _, _, q in x], [p for _, p, _ in x])
        elif kind == "rr":
            leaf = FiniteLoss.epsdelta(x)
        elif kind == "delta":
            leaf = FiniteLoss.epsdelta(0, x)
        else:
            return None
        out = out.tensor(leaf.power(m))
    return out


_ROUTES = trace.Memo()


def inverse_route(f: Inverse) -> tuple:
    """``('node', g)`` (an equal node without the inverse), ``('finite', FiniteLoss)``,
    ``('knots', knots)`` or ``('bracket', None)``: how ``f`` is evaluated (cached per node)."""
    return _ROUTES(f, lambda: _inverse_route(f))


def _inverse_route(f: Inverse) -> tuple:
    t = inverse_target(f)
    if t is not None:
        return ("node", t)
    fl = finite_loss(f.arg)
    fl = None if fl is None else swapped_loss(fl)
    if fl is not None:
        return ("finite", fl)
    k = pl_knots_cached(f)
    return ("knots", k) if k is not None else ("bracket", None)


def _bracket(f: TradeOff, a, ac, power: bool | None = None) -> tuple:
    """``(L, H, points)``: levels with ``L[0] <= f^{-1}(alpha) <= H[0]`` for every alpha the
    rounded level ``(a, ac)`` may stand for, and whether every operand value was a point.
    ``power`` says which quantity the caller returns (for the time limit's best enclosure:
    the value f^{-1}(alpha), its power, or neither when None)."""
    u = mp.ldexp(1, -(mp.prec - 4))  # a few units in the last place
    pts = [True]

    def encl(lo, hi):
        if lo == hi:
            m = abs(lo) * u
            return lo - m, hi + m
        pts[0] = False
        return lo, hi

    if a <= ac:
        a_lo, a_hi = a * (1 - u), a * (1 + u)

        def probe(t):
            lo, hi = encl(*mp_value(f, *t))
            k = 1 if lo > a_hi else (-1 if hi <= a_lo else 0)
            return k, (lo + hi) / 2 - a
    else:
        c_lo, c_hi = ac * (1 - u), ac * (1 + u)

        def probe(t):  # f(t) > alpha  <=>  1 - f(t) < 1 - alpha
            lo, hi = encl(*mp_roc(f, *t))
            k = 1 if hi < c_lo else (-1 if lo >= c_hi else 0)
            return k, ac - (lo + hi) / 2
    zero = (mp.zero, mp.one)
    if probe(zero)[0] < 0:  # f(0) <= alpha: the infimum is 0
        return zero, zero, pts[0]
    best = None if power is None else (c_bounds if power else t_bounds)
    L, H = bracket_level(probe, rel_bits=max(mp.prec - 12, 20), best=best)
    L, H = widen(L, H)
    return L, H, pts[0]


def inverse_bracket(f: TradeOff, a, ac):
    """Levels ``(L, H)`` with ``L[0] <= f^{-1}(alpha) <= H[0]`` (and ``H[1] <= 1 - f^{-1} <=
    L[1]``), alpha given as ``(a, ac) = (alpha, 1 - alpha)`` (Dong, Roth & Su, Eq. (3))."""
    L, H, _ = _bracket(f, a, ac)
    return L, H


def inverse_value(f: TradeOff, a, ac, power: bool = False):
    """f^{-1}(alpha) (``power``: 1 - f^{-1}(alpha)) by the bracket of route 4: an enclosure, or
    a point when every operand value was a point (see above)."""
    L, H, points = _bracket(f, a, ac, power)
    lo, hi = c_bounds(L, H) if power else t_bounds(L, H)
    # a point only when the bracket lies inside (0, 1): an end of [0, 1] may be the answer
    # itself (f(t) > alpha for every t < 1), which no probe can confirm
    if points and lo != hi and L[0] > 0 and H[1] > 0:
        m = (lo + hi) / 2
        return m, m
    return lo, hi


def arb_inverse_ball(g: TradeOff, a, ac):
    """g^{-1}(alpha) = inf{t in [0, 1] : g(t) <= alpha} (Dong, Roth & Su, Sec. 2.1) as an Arb
    ball from g's ball form, for balls a = alpha and ac = 1 - alpha, or None (no ball form).

    Bisection on exact dyadic points keeping g(hi) <= alpha and, once lo > 0, g(lo) > alpha
    (g is non-increasing, so the infimum stays in [lo, hi]). Each step is decided by Arb's
    comparison of the power 1 - g(t) with ``ac`` (no cancellation near alpha = 1), in
    geometric steps while lo = 0 (a root of 1e-300 keeps its digits). Stops with the ball
    [lo, hi] when a comparison is undecided at this precision (the caller raises it) or the
    ball is narrow."""
    from flint import arb, ctx

    top = arb_value(g, arb(0), arb(1), True)  # 1 - g(0), where the ball form reaches 0
    if top is not None and top.is_finite() and top >= ac:  # g(0) <= alpha: the infimum is 0
        return arb(0)
    # g(1) = 0 <= alpha (Prop. 1); lo = 0 needs no proof (the infimum is >= 0)
    lo, hi = arb(0), arb(1)
    for _ in range(4 * ctx.prec + 200):
        if lo > 0 and hi - lo <= hi * arb(2) ** (-ctx.prec + 2):
            break
        budget.check()
        mid = arb((hi * arb(2) ** -32).mid()) if lo == 0 else arb(((lo + hi) / 2).mid())
        v = arb_value(g, mid, 1 - mid, True)
        if v is None:
            return None
        if v < ac:  # g(mid) > alpha
            lo = mid
        elif v >= ac:  # g(mid) <= alpha
            hi = mid
        else:
            break
    return lo.union(hi)


def inverse_np(f: TradeOff, x: np.ndarray) -> np.ndarray:
    """f^{-1} at many alphas in float64 by vectorised bisection on t (Eq. (3))."""
    x = np.asarray(x, dtype=np.float64)
    lo, hi = np.zeros_like(x), np.ones_like(x)
    at0 = np.asarray(np_value(f, np.zeros_like(x))) <= x
    for _ in range(64):
        m = (lo + hi) / 2
        below = np.asarray(np_value(f, m)) <= x
        hi, lo = np.where(below, m, hi), np.where(below, lo, m)
    return np.where(at0, 0.0, hi)


@singledispatch
def hull_route(g: TradeOff, f: SymmetricHull, kind: str, x):
    """An enclosure of ``f = SymmetricHull(g)`` by a route a later layer registers for the
    operand's class (the products: the larger of their two directions' profiles,
    routes.product): ``kind`` "value" or "roc" at alpha = x, "delta" at eps = x; None where no
    such route applies (the generic envelope or conjugate is used)."""
    return None


def _register_unary_numerics() -> None:
    def generic_delta(f, eps):
        """delta(eps) = 1 + f^*(-e^eps) (Dong, Roth & Su, Prop. 6) from the conjugate."""
        return conjugate_delta(f, eps)

    def inverse_eval(f, a, ac, power: bool):
        kind, obj = inverse_route(f)
        if kind == "node":
            return mp_roc(obj, a, ac) if power else mp_value(obj, a, ac)
        if kind == "finite":
            return obj.mp_roc(a, ac) if power else obj.mp_value(a, ac)
        if kind == "knots":
            return pl_mp_value(obj, a, ac, power=power)
        return inverse_value(f.arg, a, ac, power)

    mp_value.register(Inverse)(lambda f, a, ac: inverse_eval(f, a, ac, False))
    mp_roc.register(Inverse)(lambda f, a, ac: inverse_eval(f, a, ac, True))

    @arb_delta.register(Inverse)
    def _(f, eps):
        kind, obj = inverse_route(f)  # an equal node without the inverse: its Arb profile
        return arb_delta(obj, eps) if kind == "node" else None

    @arb_value.register(Inverse)
    def _(f, a, ac, power):
        kind, obj = inverse_route(f)
        if kind == "node":
            return arb_value(obj, a, ac, power)
        if kind == "bracket":
            t = arb_inverse_ball(f.arg, a, ac)
            return None if t is None else (1 - t if power else t)
        return None  # (finite objects and knots: exact routes answer first)

    @np_value.register(Inverse)
    def _(f, x):
        kind, obj = inverse_route(f)
        if kind == "node":
            return np_value(obj, x)
        if kind == "knots":
            return pl_np(obj, x)
        return inverse_np(f.arg, x)

    @exact_value.register(Inverse)
    def _(f, A, Ac):
        kind, obj = inverse_route(f)
        if kind == "node":
            return exact_value(obj, A, Ac)
        if kind == "finite":
            return obj.value(A, Ac)
        return pl_exact(obj, A) if kind == "knots" else None

    @mp_delta.register(Inverse)
    def _(f, eps):
        """delta of f^{-1} = T(Q, P): of the equal node without the inverse (Inverse(L_mu) =
        L_mu, symmetric, whose closed-form profile the exact route reads first); exact for
        finite objects and knots; else sup_t {1 - t - e^eps f(t)} from the operand's certified
        values (``power_profile.inverse_delta``: no inversion); else the conjugate (an
        estimate)."""
        kind, obj = inverse_route(f)
        if kind == "node":
            return mp_delta(obj, eps)
        if kind == "finite":
            return obj.mp_delta(eps)
        if kind == "knots":
            return knots_delta(obj, eps)
        r = inverse_delta(f.arg, eps)
        return generic_delta(f, eps) if r is None else r

    def inverse_exact(f: Inverse) -> FiniteLoss | None:
        t = inverse_target(f)
        if t is not None:
            return finite_loss(t)
        fl = finite_loss(f.arg)
        return None if fl is None else swapped_loss(fl)

    def inverse_grid(f: Inverse) -> InverseLoss | None:
        """f^{-1} = T(Q, P): the loss -L with P and Q exchanged (see InverseLoss)."""
        try:
            return InverseLoss(leaf_model(f.arg))
        except NoClosedForm:
            return None

    def inverse_law(f: Inverse):
        """The operand's law for the swapped pair (a symmetric law is its own inverse; the
        subsampled Gaussian changes direction)."""
        inner = privacy_loss(f.arg)
        law = None if inner is None else inner.law()
        return None if law is None else law.inverse()

    @privacy_loss.register(Inverse)

    @loss_views("grid", "exact", "law")
    def _(f) -> PrivacyLoss | None:
        return LazyLoss(grid=lambda: inverse_grid(f), exact=lambda: inverse_exact(f),
                        law=lambda: inverse_law(f))

    # f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2): its values are those of the Max node
    # (operators/maxgroup.py: the max of the lows and of the highs, the power the min of the
    # powers, exact where both are), one mechanism instead of a copy.
    def _as_max(f: Symmetrize) -> TradeOff:
        g = f.arg
        return g if g.is_symmetric is True else Max(g, Inverse(g))

    mp_value.register(Symmetrize)(lambda f, a, ac: mp_value(_as_max(f), a, ac))
    mp_roc.register(Symmetrize)(lambda f, a, ac: mp_roc(_as_max(f), a, ac))
    np_value.register(Symmetrize)(lambda f, x: np_value(_as_max(f), x))
    exact_value.register(Symmetrize)(lambda f, A, Ac: exact_value(_as_max(f), A, Ac))
    # the balls of max{f, f^{-1}}: the max of the values, the min of the powers (Max's ball
    # form), f^{-1}'s by the certified bisection of ``arb_inverse_ball``
    arb_value.register(Symmetrize)(lambda f, a, ac, power: arb_value(_as_max(f), a, ac, power))

    @mp_delta.register(Symmetrize)
    def _(f, eps):
        """The profile of f^S: f itself when symmetric; exact from the knots when piecewise
        linear; else min{delta_f, delta_f^-1} where the searches of f and f^{-1} prove it
        attained (``power_profile.symmetrized_delta``: no inversion); else the certified
        concave search on min{1 - f, 1 - f^{-1}} - e^eps alpha (``power_profile.power_delta``;
        f^S is a maximum of two convex functions, Prop. 2, so the minimum of the powers is
        concave); else 1 + (f^S)^*(-e^eps) (Prop. 6, an estimate)."""
        if f.arg.is_symmetric is True:
            return mp_delta(f.arg, eps)
        k = pl_knots_cached(f)
        if k is not None:
            return knots_delta(k, eps)
        r = symmetrized_delta(f.arg, eps)
        if r is not None:
            return r
        g = _as_max(f)
        r = power_delta(list(g.args) if isinstance(g, Max) else [g], eps)
        return generic_delta(f, eps) if r is None else r

    # the piecewise-linear f^S and C(f) of piecewise-linear operands are finite pairs
    privacy_loss.register(Symmetrize)(pl_finite_loss)
    privacy_loss.register(SymmetricHull)(pl_finite_loss)

    # C(f) = min{f, f^{-1}}^{**} (Wang et al., Sec. 4): f itself for symmetric f; C(f^{-1}) =
    # C(f); C(f_p) = C_p(f) (Dong, Roth & Su, Def. 6) for f_p = Mix(f, p), evaluated by Eq. (13)
    # when f is symmetric (Mix answers ``_eval_symmetric_hull``). Any other operand: the exact
    # hull of its knots when it is piecewise linear (numeric.knots_eval), a route registered for
    # its class (``hull_route``: products), else the certified envelope (numeric.envelope).
    def _hull_operand(f: SymmetricHull) -> TradeOff:
        g = f.arg
        while isinstance(g, Inverse):
            g = g.arg
        return g

    def _hull_target(f: SymmetricHull):
        g = _hull_operand(f)
        return g if g.is_symmetric is True else g._eval_symmetric_hull()

    def _hull_eval(f: SymmetricHull, a, ac, power: bool):
        t = _hull_target(f)
        if t is not None:
            return mp_roc(t, a, ac) if power else mp_value(t, a, ac)
        g = _hull_operand(f)
        k = pl_knots(g)
        if k is not None:
            return pl_hull_mp(k, a, ac, power)
        with budget.about("roc" if power else "value", f):
            v = hull_route(g, f, "roc" if power else "value", a)
        return v if v is not None else hull_mp(g, a, ac, power, inverse_bracket)

    mp_value.register(SymmetricHull)(lambda f, a, ac: _hull_eval(f, a, ac, False))
    mp_roc.register(SymmetricHull)(lambda f, a, ac: _hull_eval(f, a, ac, True))

    @np_value.register(SymmetricHull)
    def _(f, x):
        t = _hull_target(f)
        if t is not None:
            return np_value(t, x)
        g = _hull_operand(f)
        k = pl_knots(g)
        return pl_hull_np(k, x) if k is not None else hull_np(g, x)

    @exact_value.register(SymmetricHull)
    def _(f, A, Ac):
        k = pl_knots(_hull_operand(f))
        v = None if k is None else pl_hull_exact(k, A)
        if v is not None:
            return v
        t = _hull_target(f)
        return None if t is None else exact_value(t, A, Ac)


_register_unary_numerics()


@mp_delta.register(SymmetricHull)
def _(f, eps):
    """delta_C(eps) = max(delta_f(eps), delta_{f^{-1}}(eps)): C(f)^* = max{f^*, (f^{-1})^*}
    (the conjugate of the lower convex envelope of a minimum is the maximum of the
    conjugates), so by Prop. 6 of Dong, Roth & Su the profile of C(f) is the larger of the two
    profiles (the "remove" and "add" neighbouring relations of NoisySGD). The operand's route
    (``hull_route``) first, else f itself when symmetric, else 1 + C(f)^*(-e^eps)."""
    g = f.arg
    while isinstance(g, Inverse):
        g = g.arg
    with budget.about("delta", f):
        v = hull_route(g, f, "delta", eps)
    if v is not None:
        return v
    if f.arg.is_symmetric is True:  # C(f) = f
        return mp_delta(f.arg, eps)
    k = pl_knots_cached(f)
    if k is not None:  # exact knots: no 1 + (-1 + 2e-142) cancellation of the conjugate
        return knots_delta(k, eps)
    return conjugate_delta(f, eps)


# -- knots of piecewise-linear operands (numeric.knots) --------------------------------------------
@pl_knots.register(Inverse)
def _(f):
    """The mirrored knots (Eq. (3))."""
    k = pl_knots(f.arg)
    return None if k is None else clean_knots(pl_inverse(exact_knots(k)))


@pl_knots.register(Symmetrize)
def _(f):
    """The lower hull of max{f, f^{-1}} (Prop. 2)."""
    k = pl_knots(f.arg)
    if k is None:
        return None
    k = exact_knots(k)
    return clean_knots(lower_hull(pl_max(k, pl_inverse(k))))


@pl_knots.register(SymmetricHull)
def _(f):
    """min{f, f^{-1}}^{**} from the knots (Wang et al., Sec. 4)."""
    k = pl_knots(f.arg)
    return None if k is None else clean_knots(pl_symmetric_hull(exact_knots(k)))


# -- closed-form profiles of the equal nodes (the exact and Arb routes of delta read them) -------
@profile_form.register(Inverse)
def _(f, eps):
    """delta_{f^{-1}}(eps) in closed form where an identity removes the inverse (route 1 of
    ``inverse_route``: f^{-1} = f for symmetric f, Dong, Roth & Su, after Prop. 2; the
    family's closed-form inverse; nested inverses)."""
    kind, obj = inverse_route(f)
    return profile_form(obj, eps) if kind == "node" else None


@profile_form.register(Symmetrize)
def _(f, eps):
    """delta_{f^S}(eps) = delta_f(eps) in closed form for symmetric f (f^S = f, Prop. 2)."""
    return profile_form(f.arg, eps) if f.arg.is_symmetric is True else None


@mp_epsilon.register(Inverse)
def _(f, d):
    """eps(d) of f^{-1}: the closed form of the equal node without the inverse, else eps = oo
    proved from the ball of 1 - f^{-1}(0) (``power_profile.unbounded_epsilon``), else the one
    search on f's values (``power_profile.inverse_epsilon``), else None (the bracketing search
    on the certified profile)."""
    kind, obj = inverse_route(f)
    if kind == "node":
        return mp_epsilon(obj, d)
    return unbounded_epsilon(f, d, lambda f, d: inverse_epsilon(f.arg, d))


@mp_epsilon.register(Symmetrize)
def _(f, d):
    """eps(d) of f^S: of f for symmetric f (f^S = f), else eps = oo proved from the ball of
    1 - f^S(0), else None (the bracketing search on the certified profile)."""
    return mp_epsilon(f.arg, d) if f.arg.is_symmetric is True else unbounded_epsilon(f, d)


