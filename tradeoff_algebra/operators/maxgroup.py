"""Pointwise maximum and group privacy.

* ``Max(f, g, ...)``: the pointwise maximum, a trade-off function; an (eps, delta) family is
  the maximum of the f_{eps_i,delta_i} of its members (Dong, Roth & Su, Prop. 5 (primal-dual)).
* ``Group(f, k)``: 1 - (1 - f)^{o k}, the guarantee for groups of size k (Dong, Roth & Su,
  Thm. 3), where ``o k`` is k-fold functional composition.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.node import TradeOff, register_operator
from ..core.validate import param
from ._base import all_symmetric, operand, sorted_operands

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

from sympy.core.logic import fuzzy_and  # noqa: E402

from ..core.citations import DRS  # noqa: E402
from ..core.rules import rule  # noqa: E402
from ..core.validate import fuzzy_le  # noqa: E402
from ..families.epsdelta import EpsDelta  # noqa: E402
from ..families.trivial import Id, Zero  # noqa: E402


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


def _epsdelta_dominates(g: EpsDelta, h: EpsDelta) -> bool:
    """f_{eps1,d1} >= f_{eps2,d2} pointwise, certainly (eps1 <= eps2 and d1 <= d2)."""
    return fuzzy_and([fuzzy_le(g.eps, h.eps), fuzzy_le(g.delta, h.delta)]) is True


@rule(Max, cite=DRS.eq(4, note="f_{eps,delta} is non-increasing in eps and delta"),
      priority=90)
def max_epsdelta_dominated(f: Max):
    """max{f_{eps1,d1}, f_{eps2,d2}} = f_{eps1,d1} when eps1 <= eps2 and d1 <= d2.

    Each of the three pieces of max{0, 1 - d - e^eps alpha, e^{-eps}(1 - d - alpha)} is
    non-increasing in eps and in delta (on alpha <= 1 - delta the second is; beyond, the max is
    0 anyway). Decided with three-valued logic: a pair is dropped only when both inequalities
    are certain.
    """
    eds = [g for g in f.args if isinstance(g, EpsDelta)]
    drop = set()
    for i, h in enumerate(eds):
        for j, g in enumerate(eds):
            if i != j and j not in drop and _epsdelta_dominates(g, h):
                drop.add(i)
                break
    if not drop:
        return None
    dropped = {eds[i] for i in drop}
    return Max(*[g for g in f.args if g not in dropped])


# -- numerics: the pointwise maximum of the arguments' values -------------------------------------
def _register_max_numerics() -> None:
    import numpy as np

    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value

    @mp_value.register(Max)
    def _(f, a, ac):
        encl = [mp_value(g, a, ac) for g in f.args]
        return max(lo for lo, _ in encl), max(hi for _, hi in encl)

    @mp_roc.register(Max)
    def _(f, a, ac):
        encl = [mp_roc(g, a, ac) for g in f.args]
        return min(lo for lo, _ in encl), min(hi for _, hi in encl)

    @exact_value.register(Max)
    def _(f, A, Ac):
        vals = [exact_value(g, A, Ac) for g in f.args]
        return None if any(v is None for v in vals) else max(vals)

    @np_value.register(Max)
    def _(f, x):
        return np.maximum.reduce([np.asarray(np_value(g, x), dtype=float) for g in f.args])


_register_max_numerics()


# ================================================================================================
# NUMERIC EVALUATION of Group: 1 - (1 - f)^{o k} (Dong, Roth & Su, Thm. 3)
# ================================================================================================
# With g = 1 - f (non-decreasing), the k-fold composition is iterated on levels (x, 1 - x):
# g(x) is the operand's power mp_roc and 1 - g(x) = f(x) its value mp_value, so both the level
# and its complement keep full relative accuracy and no 1 - (1 - ...) cancellation occurs. The
# operand's enclosures propagate monotonically: g(x) for x in [X_lo, X_hi] lies in
# [g_lo(X_lo), g_hi(X_hi)] and f(x) in [f_lo(X_hi), f_hi(X_lo)]. Point operands give a point.


def _group_k(f: Group) -> int:
    from ..numeric.protocol import num

    k = f.k
    if not (k.is_Integer or k.is_number):
        num(k, "k")  # raises InvalidParameter naming the free symbols
    return int(k)


def _group_eval(f: Group, a, ac):
    """((x_lo, x_hi), (v_lo, v_hi)): enclosures of g^k(alpha) and of 1 - g^k(alpha)."""
    from ..numeric.protocol import mp_roc, mp_value
    from ..numeric.roots import level, level_c

    def below(x, xc):  # a level <= the true one (x lower bound, xc upper bound of 1 - x)
        return level(x) if x <= 0.5 else level_c(xc)

    def above(x, xc):  # a level >= the true one (x upper bound, xc lower bound of 1 - x)
        return level(x) if x <= 0.5 else level_c(xc)

    g = f.arg
    lo_lvl = hi_lvl = (a, ac)
    xs, vs = (a, a), (ac, ac)
    for _ in range(_group_k(f)):
        r_lo, r_hi = mp_roc(g, *lo_lvl)[0], mp_roc(g, *hi_lvl)[1]
        v_lo, v_hi = mp_value(g, *hi_lvl)[0], mp_value(g, *lo_lvl)[1]
        new = ((r_lo, r_hi), (v_lo, v_hi))
        if new == (xs, vs):
            break  # g fixes the level (e.g. x = 1): further steps change nothing
        xs, vs = new
        if lo_lvl is hi_lvl and r_lo == r_hi and v_lo == v_hi:
            lo_lvl = hi_lvl = (r_lo, v_lo)  # point: the pair is the level itself
        else:
            lo_lvl, hi_lvl = below(r_lo, v_hi), above(r_hi, v_lo)
    return xs, vs


def _register_group_numerics() -> None:
    import numpy as np

    from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value

    mp_value.register(Group)(lambda f, a, ac: _group_eval(f, a, ac)[1])
    mp_roc.register(Group)(lambda f, a, ac: _group_eval(f, a, ac)[0])

    @exact_value.register(Group)
    def _(f, A, Ac):
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
        x = np.asarray(x, dtype=np.float64)
        v = np.asarray(np_value(f.arg, x), dtype=np.float64)
        for _ in range(_group_k(f) - 1):
            v = np.asarray(np_value(f.arg, np.clip(1.0 - v, 0.0, 1.0)), dtype=np.float64)
        return v


_register_group_numerics()
