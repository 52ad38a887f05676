"""Pointwise maximum and group privacy.

* ``Max(f, g, ...)``: the pointwise maximum, a trade-off function; an (eps, delta) family is
  the maximum of the f_{eps_i,delta_i} of its members (Dong, Roth & Su, Prop. 5 (primal-dual)).
* ``Group(f, k)``: 1 - (1 - f)^{o k}, the guarantee for groups of size k (Dong, Roth & Su,
  Thm. 3), where ``o k`` is k-fold functional composition.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core import trace
from ..core.citations import DRS
from ..core.errors import NoClosedForm, NumericalError, TradeOffError
from ..core.node import TradeOff, register_operator
from ..core.rules import bind_hook, rule
from ..core.validate import fuzzy_le, param
from ..families.trivial import Id, Zero
from ..numeric.capability import monotonicity, profile_form
from ..numeric.knots import (
    Knots,
    clean_knots,
    exact_knots,
    lower_hull,
    pl_eval,
    pl_knots,
    pl_max,
    rational_knots,
)
from ..numeric.knots_eval import pl_knots_cached
from ..numeric.knots_profile import (
    knots_delta,
    pl_epsilon_unbounded,
    pl_profile_form,
)
from ..numeric.protocol import mp_epsilon
from ._base import all_symmetric, operand, sorted_operands
from .max_delta import max_delta
from .operand_ball import operand_ball
from .power_profile import power_delta, unbounded_epsilon

__all__ = ["Max", "Group"]

PREC_GROUP = 5


@register_operator
class Max(TradeOff):
    """max{f_1, ..., f_n} pointwise (Dong, Roth & Su, Prop. 5)."""

    def __new__(cls, *fs: Any):
        flat: list[TradeOff] = []
        for f in fs:
            f = operand(f, "Max")
            flat.extend(f.args if isinstance(f, Max) else (f,))
        unique = list(dict.fromkeys(flat))
        if not unique:
            from ..core.errors import InvalidParameter

            raise InvalidParameter("fs", fs, "at least one trade-off function", "Max")
        if len(unique) == 1:
            return unique[0]
        return TradeOff.__new__(cls, *sorted_operands(unique))

    @property
    def is_symmetric(self) -> bool | None:
        return True if all_symmetric(self.args) else None

    def _eval_at(self, alpha):
        vals = [f._eval_at(alpha) for f in self.args]
        return None if any(v is None for v in vals) else sp.Max(*vals)

    def _latex(self, printer):
        return r"\max\left\{%s\right\}" % ", ".join(printer._print(f) for f in self.args)


@register_operator
class Group(TradeOff):
    """1 - (1 - f)^{o k}: f-DP for groups of size k >= 1 (Dong, Roth & Su, Thm. 3)."""

    _precedence = PREC_GROUP

    def __new__(cls, f: Any, k: Any):
        f = operand(f, "Group")
        k = param("k", k, lower=1, integer=True, owner="Group")
        return TradeOff.__new__(cls, f, k)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def k(self):
        return self.args[1]

    @property
    def is_symmetric(self) -> bool | None:
        # Symmetry is preserved by the group operation (Dong, Roth & Su, Appendix A).
        return True if self.arg.is_symmetric else None

    def _latex(self, printer):
        # a nested group needs its own parentheses: 1 - (1 - (1 - (1 - f)^{o 2}))^{o 3}
        return r"1 - \left(1 - %s\right)^{\circ %s}" % (
            self._latex_parens(printer, self.arg, PREC_GROUP + 1),
            self._latex_exponent(printer, self.k))


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Every trade-off function f satisfies 0 <= f <= Id (Dong, Roth & Su, Def. 2 and Prop. 1:
# f(alpha) <= 1 - alpha), so in a pointwise maximum Zero is neutral and Id absorbing.
# Max(f, f) = f is built into the constructor (arguments are deduplicated).

# A family's knowledge of groups reaches Group through the ``"group"`` hook (core.rules.hook):
# ``func(f, k)`` for Group(f, k).
bind_hook("group", Group, lambda g, func: func(g.arg, g.k))


@rule(Max, cite=DRS.at("Def. 2", note="trade-off functions are >= 0"), priority=100)
def max_drop_zero(f: Max):
    """max{f, 0} = f: a trade-off function is non-negative."""
    if Zero not in f.args:
        return None
    return Max(*[g for g in f.args if g != Zero])


@rule(Max, cite=DRS.prop(1, note="f(alpha) <= 1 - alpha = Id(alpha)"), priority=100)
def max_id(f: Max):
    """max{f, Id} = Id: Id is the largest trade-off function."""
    return Id if Id in f.args else None


def _certainly_above(g: TradeOff, h: TradeOff) -> bool:
    """g >= h pointwise, certainly: two nodes of one family whose parameters move it the
    declared way (``numeric.capability.monotonicity``: +1 non-decreasing, -1 non-increasing in
    that parameter), every comparison certain in three-valued logic."""
    if type(g) is not type(h) or len(g.args) != len(h.args):
        return False
    dirs = monotonicity(g)
    if not isinstance(dirs, tuple) or len(dirs) != len(g.args):
        return False
    for d, x, y in zip(dirs, g.args, h.args, strict=True):
        if x == y:
            continue
        if isinstance(x, TradeOff) or isinstance(y, TradeOff):
            return False
        if (fuzzy_le(x, y) if d < 0 else fuzzy_le(y, x)) is not True:
            return False
    return True


@rule(Max, cite=DRS.at("Sec. 2.1", note="max{f, g} = f when f >= g; the order from each "
                                      "family's monotonicity in its parameters"), priority=90)
def max_dominated(f: Max):
    """max{g, h} = g when g >= h pointwise: g and h of one family with parameters ordered the
    way the family's declared monotonicity makes g the larger (f_{eps,delta} is non-increasing
    in eps and delta, Eq. (4); G_mu in mu, Eq. (5)). Decided with three-valued logic: an
    argument is dropped only when every comparison is certain."""
    args = f.args
    drop = set()
    for i, h in enumerate(args):
        for j, g in enumerate(args):
            if i != j and j not in drop and _certainly_above(g, h):
                drop.add(i)
                break
    if not drop:
        return None
    return Max(*[g for i, g in enumerate(args) if i not in drop])


# -- sound shortcuts for evaluation: registered "eq" rules ----------------------------------------
def closed_by_rules(f: TradeOff) -> TradeOff | None:
    """A node equal to ``f`` by one of its class's registered identities (``relation="eq"``,
    each checked by the soundness meta-test) that is no longer of ``f``'s class, or ``None``.
    Used by the numeric routes of Group and Subsample (G_mu's group, C_p(f_{eps,delta}), ...)."""
    from ..core.rules import rules_for

    for r in rules_for(f):
        try:
            g = r(f)
        except TradeOffError:  # pragma: no cover - a rule that cannot decide
            continue
        if g is not None and not isinstance(g, type(f)):
            return g
    return None


# -- numerics: the pointwise maximum of the arguments' values -------------------------------------
# Each argument is first replaced by a node its registered identities give (``closed_by_rules``:
# C_0(g) = Id, ...); then Zero is neutral and Id absorbing (rules max_drop_zero and max_id): only
# the other arguments are evaluated. Every trade-off function lies in [0, 1 - alpha] (Prop. 1),
# so the enclosure is intersected with that range (this also absorbs an argument's rounding just
# past 1 - alpha).
_MAX_ARGS = trace.Memo()


def _max_args(f: Max) -> tuple:
    def compute() -> tuple:
        args = tuple(closed_by_rules(g) or g for g in f.args)
        if Id in args:
            return (Id,)
        return tuple(g for g in args if g != Zero) or (Zero,)
    return _MAX_ARGS(f, compute)


def _exact_above(top: sp.Rational, rest: list, A: sp.Rational, Ac: sp.Rational):
    """``top`` where the Arb ball of every node of ``rest`` at A lies strictly below it, else
    None (a tie or an undecided comparison: the certified routes answer)."""
    from flint import arb, fmpq

    from ..numeric.context import arb_precision
    from ..numeric.protocol import arb_value

    if not (isinstance(top, sp.Rational) and isinstance(A, sp.Rational)
            and isinstance(Ac, sp.Rational)):
        return None
    with arb_precision(128):
        a, ac = arb(fmpq(int(A.p), int(A.q))), arb(fmpq(int(Ac.p), int(Ac.q)))
        t = arb(fmpq(int(top.p), int(top.q)))
        for g in rest:
            b = arb_value(g, a, ac, False)
            if b is None or not b.is_finite() or not b < t:
                return None
    return top


def _register_max_numerics() -> None:
    import numpy as np

    from ..numeric.context import mp
    from ..numeric.knots_eval import pl_finite_loss, pl_knots_cached
    from ..numeric.privacy_loss import privacy_loss
    from ..numeric.protocol import (
        arb_value,
        conjugate_delta,
        exact_value,
        mp_delta,
        mp_roc,
        mp_value,
        np_value,
    )

    @mp_value.register(Max)
    def _(f, a, ac):
        encl = [mp_value(g, a, ac) for g in _max_args(f)]
        lo, hi = max(lo for lo, _ in encl), max(hi for _, hi in encl)
        return min(max(lo, mp.zero), ac), min(max(hi, mp.zero), ac)

    @mp_roc.register(Max)
    def _(f, a, ac):
        encl = [mp_roc(g, a, ac) for g in _max_args(f)]
        lo, hi = min(lo for lo, _ in encl), min(hi for _, hi in encl)
        return max(min(lo, mp.one), a), max(min(hi, mp.one), a)

    @exact_value.register(Max)
    def _(f, A, Ac):
        """The exact maximum where every argument has an exact value; else the largest exact
        value where Arb balls of the other arguments' values lie strictly below it (max(disc,
        f_{1,1/20})(1/10) = disc(1/10) = 4/5 exactly, e/10 being irrational)."""
        args = _max_args(f)
        vals = [exact_value(g, A, Ac) for g in args]
        known = [v for v in vals if v is not None]
        if len(known) == len(vals):
            return max(vals)
        if not known:
            return None
        return _exact_above(max(known), [g for g, v in zip(args, vals, strict=True)
                                         if v is None], A, Ac)

    @np_value.register(Max)
    def _(f, x):
        return np.maximum.reduce([np.asarray(np_value(g, x), dtype=float)
                                  for g in _max_args(f)])

    @mp_delta.register(Max)
    def _(f, eps):
        """delta of a maximum: of the one argument left after dropping Zero; exact from the
        knots when piecewise linear (delta is exactly 0 beyond the largest log-slope when
        f(0) = 1; certified in Arb with each ratio's comparison with e^eps decided exactly,
        ``knots_delta``); else sup_alpha {min_i (1 - f_i(alpha)) - e^eps alpha} (Dong, Roth & Su,
        Prop. 6) from the arguments' certified powers (``max_delta``); else 1 + f^*(-e^eps)
        from their values (an estimate)."""
        args = _max_args(f)
        if len(args) == 1:
            return mp_delta(args[0], eps)
        k = pl_knots_cached(f)
        if k is not None:
            return knots_delta(k, eps)
        r = max_delta(args, eps)
        return conjugate_delta(f, eps) if r is None else r

    privacy_loss.register(Max)(pl_finite_loss)

    @arb_value.register(Max)
    def _(f, a, ac, power):
        """max_i f_i(alpha) (``power``: min_i (1 - f_i(alpha))) from the operands' balls
        (Arb's max and min contain the max and min of every choice of points of the balls),
        or None where an operand has no ball form."""
        from flint import arb

        balls = [operand_ball(g, a, ac, power) for g in _max_args(f)]
        if any(b is None for b in balls):
            return None
        out = balls[0]
        for b in balls[1:]:
            out = arb.min(out, b) if power else arb.max(out, b)
        return out


_register_max_numerics()




def knots_profile_form(f: TradeOff, eps: sp.Expr) -> sp.Expr | None:
    """delta_f(eps) in closed form for a maximum or group with exact knots: the exact sum over
    the segments whose likelihood ratio is proved to exceed e^eps (``numeric.knots_profile``),
    a rational where none does (delta of Max(f_{1,0}, f_{2,0}) at 3/2 is the exact 0). The
    exact profile route (``analysis.conversions``), the profile of Mix(f, p) and the certified
    brackets of eps(delta) read it."""
    if isinstance(eps, sp.Basic) and eps.free_symbols:
        return None
    k = pl_knots_cached(f)
    return None if k is None else pl_profile_form(k, eps)


def knots_epsilon(f: TradeOff, d):
    """eps(d) = oo proved for a maximum or group with exact knots and d < 1 - f(0)
    (``numeric.knots_profile.pl_epsilon_unbounded``); else None (the bracketing search on the
    certified profile)."""
    k = pl_knots_cached(f)
    r = None if k is None else pl_epsilon_unbounded(k, d)
    if r is not None:
        trace.note("delta(oo) = 1 - f(0) of the exact knots (Prop. 6)")
    return r


mp_epsilon.register(Max)(knots_epsilon)
profile_form.register(Max)(knots_profile_form)


@mp_epsilon.register(Group)
def group_epsilon(f: Group, d):
    """eps(d) of a group: the closed form of the node an identity puts in its place (or None:
    the bracketing search on the certified profile), else eps = oo proved from the exact knots
    or from the ball of 1 - f(0) (``power_profile.unbounded_epsilon``), else None."""
    t = group_target(f)
    if t is not None:
        return mp_epsilon(t, d)
    r = knots_epsilon(f, d)
    return r if r is not None else unbounded_epsilon(f, d)


@profile_form.register(Group)
def group_profile_form(f: Group, eps: sp.Expr) -> sp.Expr | None:
    """delta_f(eps) in closed form for a group: that of the node an identity puts in its place
    (``group_target``: G_{k mu} for Group(G_mu, k), Dong, Roth & Su, Thm. 2.14; L_{k mu}),
    else the exact sum over the segments of exact knots (:func:`knots_profile_form`)."""
    if isinstance(eps, sp.Basic) and eps.free_symbols:
        return None
    t = group_target(f)
    if t is not None:
        return profile_form(t, eps)
    return knots_profile_form(f, eps)


# ================================================================================================
# NUMERIC EVALUATION of Group: 1 - (1 - f)^{o k} (Dong, Roth & Su, Thm. 3)
# ================================================================================================
# Closed forms first (``group_target``): the registered identities (G_{k mu} and L_{k mu}, the
# families' "group" hooks), nested groups (g^{o j} composed k times is g^{o jk}), Id and Zero
# (g = identity, g = 1).
#
# Otherwise, with g = 1 - f (non-decreasing), the k-fold composition is iterated on levels
# (x, 1 - x): g(x) is the operand's power mp_roc and 1 - g(x) = f(x) its value mp_value, so both
# the level and its complement keep full relative accuracy and no 1 - (1 - ...) cancellation
# occurs. The operand's enclosures propagate monotonically: g(x) for x in [X_lo, X_hi] lies in
# [g_lo(X_lo), g_hi(X_hi)] and f(x) in [f_lo(X_hi), f_hi(X_lo)]. Point operands give a point.
# The iteration stops early at a fixed level (g(x) = x, e.g. x = 1); it runs under the time
# limit (numeric.budget: the values fall with every step, so [0, the current value] encloses
# the result), and a size k beyond GROUP_MAX_STEPS without a closed form is refused unless
# the iteration settles within GROUP_PROBE_STEPS steps.

#: Largest group size iterated step by step when no closed form applies.
GROUP_MAX_STEPS = 10**6
#: Steps tried for a larger group size: enough when the iteration reaches a fixed level.
GROUP_PROBE_STEPS = 200


def _group_k(f: Group) -> int:
    from ..numeric.protocol import num

    k = f.k
    if not (k.is_Integer or k.is_number):
        num(k, "k")  # raises InvalidParameter naming the free symbols
    return int(k)


_GROUP_TARGETS = trace.Memo()


def group_target(f: Group) -> TradeOff | None:
    """A node equal to ``f`` without the group operator (or with nested groups merged), by the
    identities listed above, or ``None``."""
    return _GROUP_TARGETS(f, lambda: _group_target(f))


def _group_target(f: Group) -> TradeOff | None:
    g, k = f.arg, f.k
    for _ in range(64):  # nested groups merged; the operand settled by its identities
        if isinstance(g, Group):
            g, k = g.arg, k * g.k
            continue
        h = closed_by_rules(g)
        if h is None:
            break
        g = h
    node = f if g is f.arg else Group(g, k)
    out = closed_by_rules(node)
    if out is None:
        if k == 1 or g == Id or g == Zero:  # 1 - (1 - g)^{o 1} = g; g = 1 - x, 1 fixed
            out = g
        elif node is not f:
            out = node
    return out


def _group_steps(f: Group) -> tuple[int, bool]:
    """(steps to iterate, whether stopping short of k is an error)."""
    k = _group_k(f)
    if k <= GROUP_MAX_STEPS:
        return k, False
    return GROUP_PROBE_STEPS, True


def _group_eval(f: Group, a, ac, power: bool = False):
    """((x_lo, x_hi), (v_lo, v_hi)): enclosures of g^k(alpha) and of 1 - g^k(alpha). ``power``
    says which one the caller returns (the best enclosure reported at the time limit)."""
    from ..numeric import budget
    from ..numeric.context import mp
    from ..numeric.protocol import mp_roc, mp_value
    from ..numeric.roots import level, level_c

    def below(x, xc):  # a level <= the true one (x lower bound, xc upper bound of 1 - x)
        return level(x) if x <= 0.5 else level_c(xc)

    def above(x, xc):  # a level >= the true one (x upper bound, xc lower bound of 1 - x)
        return level(x) if x <= 0.5 else level_c(xc)

    g = f.arg
    steps, strict = _group_steps(f)
    lo_lvl = hi_lvl = (a, ac)
    xs, vs = (a, a), (ac, ac)
    settled = False
    for i in range(steps):
        if i:  # (a step of a slow operand can take a second) the powers rise and the values
            # fall with every step
            budget.check((xs[0], mp.one) if power else (mp.zero, vs[1]))
        r_lo, r_hi = mp_roc(g, *lo_lvl)[0], mp_roc(g, *hi_lvl)[1]
        v_lo, v_hi = mp_value(g, *hi_lvl)[0], mp_value(g, *lo_lvl)[1]
        new = ((r_lo, r_hi), (v_lo, v_hi))
        if new == (xs, vs):
            settled = True
            break  # g fixes the level (e.g. x = 1): further steps change nothing
        xs, vs = new
        if lo_lvl is hi_lvl and r_lo == r_hi and v_lo == v_hi:
            lo_lvl = hi_lvl = (r_lo, v_lo)  # point: the pair is the level itself
        else:
            lo_lvl, hi_lvl = below(r_lo, v_hi), above(r_hi, v_lo)
    if strict and not settled:
        raise NumericalError(
            f"Group({f.arg}, k) with k = {_short_int(_group_k(f))}: no closed form applies "
            f"and k exceeds the {GROUP_MAX_STEPS} steps evaluated one by one (the iteration "
            f"does not settle); after {steps} steps the value at this alpha is at most "
            f"{mp.nstr(vs[1], 8)} (the values fall with k). Use an operand with a closed-form "
            "group (G_mu, Laplace) or a smaller group size")
    return xs, vs


def _arb_group(f: Group, a, ac, power: bool):
    """1 - (1 - g)^{o k}(alpha) (Dong, Roth & Su, Thm. 3) as a ball: k steps x -> 1 - g(x),
    each taking the ball of the level and of its complement to g's ball form (both computed:
    no cancellation in 1 - x). None where g has no ball form, or k needs the probing route."""
    from ..numeric.protocol import arb_value

    t = group_target(f)
    if t is not None:
        return arb_value(t, a, ac, power)
    if not f.k.is_Integer or int(f.k) > GROUP_MAX_STEPS:
        return None
    x, xc = a, ac
    for _ in range(int(f.k)):
        y, yc = operand_ball(f.arg, x, xc, True), operand_ball(f.arg, x, xc, False)
        if y is None or yc is None or not (y.is_finite() and yc.is_finite()):
            return None
        x, xc = y, yc
    return x if power else xc


def _short_int(k: int) -> str:
    """k in a message: its digits, or its order of magnitude when it is long."""
    return str(k) if k < 10**15 else f"about 10^{int(k.bit_length() * 0.30103)}"


def _register_group_numerics() -> None:
    import numpy as np

    from ..numeric.finite import finite_loss
    from ..numeric.knots_eval import pl_finite_loss, pl_knots_cached
    from ..numeric.privacy_loss import loss_views, privacy_loss
    from ..numeric.protocol import (
        arb_value,
        conjugate_delta,
        exact_value,
        mp_delta,
        mp_roc,
        mp_value,
        np_value,
    )

    # a group of a piecewise-linear operand is piecewise linear (numeric.knots): a finite
    # pair with an exact profile
    @privacy_loss.register(Group)
    @loss_views("grid", "exact")
    def _(f):
        return finite_loss(group_target(f)) if group_target(f) is not None else pl_finite_loss(f)

    @mp_delta.register(Group)
    def _(f, eps):
        """delta of 1 - (1 - g)^{o k}: of the node an identity puts in its place (whose
        closed-form profile the exact route reads first, ``group_profile_form``); exact from the
        knots when piecewise linear with rational knots; else the certified concave search on
        the group's own powers (``power_profile.power_delta``: the power g^{o k} is concave,
        a composition of concave non-decreasing maps); else 1 + f^*(-e^eps) (an estimate)."""
        t = group_target(f)
        if t is not None:
            return mp_delta(t, eps)
        k = pl_knots_cached(f)
        if k is not None:
            return knots_delta(k, eps)
        r = power_delta([f], eps)
        return conjugate_delta(f, eps) if r is None else r

    arb_value.register(Group)(_arb_group)

    @mp_value.register(Group)
    def _(f, a, ac):
        t = group_target(f)
        return mp_value(t, a, ac) if t is not None else _group_eval(f, a, ac)[1]

    @mp_roc.register(Group)
    def _(f, a, ac):
        t = group_target(f)
        return mp_roc(t, a, ac) if t is not None else _group_eval(f, a, ac, True)[0]

    @exact_value.register(Group)
    def _(f, A, Ac):
        t = group_target(f)
        if t is not None:
            return exact_value(t, A, Ac)
        k = _group_k(f)
        if k > 64:  # rational sizes grow with k; the mp route is exact to the digits asked
            return None
        x, v = A, Ac
        for _ in range(k):
            v = exact_value(f.arg, x, 1 - x)
            if v is None:
                return None
            x = 1 - v
        return v

    @np_value.register(Group)
    def _(f, x):
        t = group_target(f)
        if t is not None:
            return np_value(t, x)
        x = np.asarray(x, dtype=np.float64)
        v = np.asarray(np_value(f.arg, x), dtype=np.float64)
        steps, _ = _group_steps(f)
        # 1 - f(x) loses every digit where f(x) is within ~1e-9 of 1 (small x): there the
        # iteration runs on the high-precision route instead (Group of G(23) at 1e-300 gave
        # 1.0 for a value near 0)
        cancels = (v > 1.0 - 1e-9) & (x > 0)
        for _ in range(steps - 1):
            nv = np.asarray(np_value(f.arg, np.clip(1.0 - v, 0.0, 1.0)), dtype=np.float64)
            if np.array_equal(nv, v):
                break
            v = nv
        if cancels.any():
            v = np.array(v, dtype=np.float64)
            for i in np.flatnonzero(cancels):
                v.flat[i] = _mp_point(f, float(x.flat[i]))
        return v


def _mp_point(f, x: float) -> float:
    """f(x) in float64 through the high-precision route (the midpoint of its enclosure)."""
    from ..numeric.context import mp
    from ..numeric.protocol import mp_value

    with mp.workdps(25):
        a = mp.mpf(x)
        lo, hi = mp_value(f, a, 1 - a)
        return float((lo + hi) / 2)


_register_group_numerics()


# -- knots of piecewise-linear operands (numeric.knots) --------------------------------------------
@pl_knots.register(Max)
def _(f):
    """The lower hull of the pointwise maximum of the operands' knots."""
    ks = [pl_knots(g) for g in f.args]
    if any(k is None for k in ks):
        return None
    out = exact_knots(ks[0])
    for k in ks[1:]:
        out = pl_max(out, exact_knots(k))
    return clean_knots(lower_hull(out))


@pl_knots.register(Group)
def _(f):
    """1 - (1 - g)^{o k} (Dong, Roth & Su, Thm. 3) for piecewise-linear g with rational
    knots and k <= GROUP_KNOTS_MAX_K: composing piecewise-linear maps (exact)."""
    if not (f.k.is_Integer and int(f.k) <= GROUP_KNOTS_MAX_K):
        return None
    k = pl_knots(f.arg)
    if k is None or not rational_knots(k):
        return None
    return clean_knots(_pl_group(exact_knots(k), int(f.k)))


#: Largest group size whose knots are built by composition (their number grows with k).
GROUP_KNOTS_MAX_K = 64


def _pl_group(knots: Knots, k: int) -> Knots:
    """Knots of 1 - h^{o k}, h = 1 - g, for the knots of g (exact Fractions).

    h is non-decreasing and piecewise linear, so h o u for piecewise-linear non-decreasing u is
    piecewise linear with knots at the knots of u and at the points where u crosses a knot
    abscissa of h (u strictly increasing there, as h < 1 there)."""
    h = tuple((x, 1 - y) for x, y in knots)
    hx = [x for x, _ in h]
    u = h
    for _ in range(k - 1):
        xs = set(x for x, _ in u)
        for (x0, v0), (x1, v1) in zip(u, u[1:], strict=False):
            for X in hx:
                if v0 < X < v1:
                    xs.add(x0 + (X - v0) * (x1 - x0) / (v1 - v0))
        u = tuple((x, pl_eval(h, pl_eval(u, x))) for x in sorted(xs))
        if len(u) > 4096:
            raise NoClosedForm("group of a piecewise-linear function: too many knots")
    return lower_hull([(x, 1 - v) for x, v in u])
