"""Proofs of f >= g from the order structure, valid for every value of the parameters.

* Id is the largest trade-off function and Zero the smallest (Dong, Roth & Su, Sec. 2.1).
* The families are ordered by their parameters: G_mu is non-increasing in mu (Sec. 2.2),
  f_{eps,delta} in eps and in delta (Eq. (5)), L_mu in mu, f_{eps,0}^{(x) n} in eps and n.
* The operators are monotone in their operands: f ⊗ g is (Lemma 4, part 2), and so are
  C_p(f), f^{-1}, the symmetric hull, max and group privacy (Sec. 4.1, Prop. 9 and its
  remark: g >= h iff g^{-1} >= h^{-1}), and so is Shift(f, t), non-increasing in t
  (``operators.shift``: the translate f(alpha + t) - t is); f^{⊗n} is non-increasing in n,
  C_p(f) and the mixture f_p in p (f <= Id), Group(f, k) in k.
* f ⊗ g <= f, since g <= Id and f ⊗ Id = f (Lemma 4); max{g_1, ...} >= each g_i, and f >= every
  g_i gives f >= max{g_1, ...}.
* Composition of approximate DP (the basic composition theorem; Dong, Roth & Su, Sec. 3 and
  Lemma 4): f_{eps_1,delta_1} ⊗ f_{eps_2,delta_2} >= f_{eps_1 + eps_2, delta_1 + delta_2}, so a
  tensor product whose factors each lie above some f_{eps_i,delta_i} (the factor itself, the
  n-fold randomized response BinomialDP(eps, n) >= f_{n eps, 0}, or a registered lower bound of
  the factor such as L_mu >= f_{mu,0}) lies above f_{sum eps_i, sum delta_i}.
* The mixture f_p = p f + (1 - p) Id lies above f (f <= Id); C_p(f) >= C_1(f) = f for a symmetric
  f (C_p is non-increasing in p, Sec. 4.1); Group(f, k) <= Group(f, 1) = f for k >= 1 (Thm. 3:
  1 - f >= alpha, so composing 1 - f with itself only raises it).

:func:`dominates` combines these recursively; a parameter comparison is proved by
:func:`prove_le` (SymPy's assumptions, then interval arithmetic over the parameter box).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import sympy as sp

from ..bounds.berry_esseen import factors
from ..core import trace
from ..core.citations import DRS, DWORK, Citation
from ..core.errors import TradeOffError
from ..core.node import TradeOff
from ..notions.approx import epsdelta_pair
from ..numeric.capability import monotonicity
from ..operators.maxgroup import Group, Max
from ..operators.shift import Shift
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull
from ..rewrite import bound
from .box import prove_nonneg

__all__ = ["dominates", "prove_le", "same_node"]

# How each argument of an operator moves it: +1 non-decreasing (a trade-off operand: monotone),
# -1 non-increasing; "all+" for operators monotone in every operand. The families register
# theirs in their own modules.
for _cls, _dirs in ((Tensor, "all+"), (Max, "all+"), (TensorPower, (+1, -1)),
                    (Subsample, (+1, -1)), (Mix, (+1, -1)), (Group, (+1, -1)),
                    (Inverse, (+1,)), (SymmetricHull, (+1,)), (Shift, (+1, -1))):
    monotonicity.register(_cls)(lambda f, d=_dirs: d)


@dataclass(frozen=True)
class Step:
    """A cited fact the order route uses; recorded in the verdict's basis (as a rule event of
    ``core.trace``) only on the path that proves the claim."""

    name: str
    cite: Citation


ID_GREATEST = Step("f <= Id <= ... : Id is the greatest and 0 the least trade-off function",
                   DRS.at("Sec. 2.1", note="the test that ignores the data has beta = 1 - alpha"))
MAX_ORDER = Step("max{g_1, ...} >= g_i, and f >= every g_i gives f >= max{g_1, ...}",
                 DRS.at("Sec. 2.1", note="the pointwise maximum"))
TENSOR_BELOW = Step("f (x) g <= f: g <= Id, f (x) Id = f and (x) is monotone",
                    DRS.at("Sec. 3.1, properties 2 and 3"))
GROUP_BELOW = Step("Group(f, k) <= f for k >= 1: 1 - f >= alpha",
                   DRS.thm(3, note="composing 1 - f with itself only raises it"))
MIX_ABOVE = Step("f_p = p f + (1 - p) Id >= f", DRS.at("Sec. 4.1", note="f <= Id"))
SUBSAMPLE_ABOVE = Step("C_p(f) >= C_1(f) = f for a symmetric f",
                       DRS.at("Sec. 4.1, facts 1 and 2", note="C_p is non-increasing in p"))
BASIC_COMPOSITION = (
    Step("basic composition: f_{e1,d1} (x) f_{e2,d2} >= f_{e1+e2,d1+d2}",
         DWORK.at("Sec. 4.1", note="simple composition: the epsilons and the deltas add up")),
    Step("basic composition: f_{e1,d1} (x) f_{e2,d2} >= f_{e1+e2,d1+d2}",
         DRS.at("Sec. 1", note="(eps, delta)-DP composes by adding the parameters")))
OPERATOR_MONOTONE = Step("the operators are monotone in their trade-off operands",
                         DRS.at("Sec. 3.1 property 2; Sec. 4.1 fact 2; Thm. 3",
                                note="(x), C_p, the inverse, the symmetric hull, max, group"))


def _used(*steps: Step) -> bool:
    for st in steps:
        trace.used(("rule", st))
    return True


def prove_le(a: sp.Expr, b: sp.Expr, box: dict) -> bool:
    """Is ``a <= b`` proved for every parameter value in ``box``?"""
    d = sp.simplify(sp.sympify(b) - sp.sympify(a))
    if d == 0 or d.is_nonnegative:
        return True
    return prove_nonneg(d, box)[0] is True


def _equal_numbers(x: sp.Expr, y: sp.Expr) -> bool:
    """``x == y`` proved symbolically (SymPy's simplification of the difference to 0; numbers
    alone never prove it)."""
    if x == y:
        return True
    if isinstance(x, sp.Tuple) and isinstance(y, sp.Tuple):  # (a family's list parameters)
        return len(x) == len(y) and all(_equal_numbers(a, b) for a, b in zip(x, y, strict=True))
    if not (isinstance(x, sp.Expr) and isinstance(y, sp.Expr)):
        return False
    d = x - y
    if sp.count_ops(d) > 400:
        return False
    return sp.simplify(d) == 0


def same_node(f: TradeOff, g: TradeOff) -> bool:
    """``f`` and ``g`` are the same expression up to the SymPy form of their parameters: the
    same node classes in the same tree, each pair of scalar parameters proved equal
    (:func:`_equal_numbers`); the arguments of a commutative operator (Max, Tensor) in any
    order (up to four)."""
    if f == g:
        return True
    if type(f) is not type(g) or len(f.args) != len(g.args):
        return False
    pairs = [list(zip(f.args, g.args, strict=True))]
    if isinstance(f, (Max, Tensor)) and 1 < len(f.args) <= 4:
        pairs = [list(zip(f.args, p, strict=True)) for p in permutations(g.args)]
    for ps in pairs:
        ok = True
        for x, y in ps:
            if isinstance(x, TradeOff) != isinstance(y, TradeOff):
                ok = False
            elif isinstance(x, TradeOff):
                ok = same_node(x, y)
            else:
                ok = _equal_numbers(x, y)
            if not ok:
                break
        if ok:
            return True
    return False


def _dp_lower(f: TradeOff, depth: int = 0) -> tuple | None:
    """(eps, delta) with f >= f_{eps,delta} proved by structure (see the module docstring),
    or None."""
    pair = epsdelta_pair(f)
    if pair is not None:
        return pair
    fs = factors(f)  # a tensor product, a power, BinomialDP(eps, n) = f_{eps,0}^{(x) n}
    if len(fs) > 1 or fs[0][0] is not f:
        parts = [(_dp_lower(g, depth), m) for g, m in fs]
        if any(p is None or not m.is_nonnegative for p, m in parts):
            return None
        return (sp.Add(*(p[0] * m for p, m in parts)), sp.Add(*(p[1] * m for p, m in parts)))
    if depth:
        return None
    try:
        lb = bound(f, "lower")  # a registered lower bound (L_mu >= f_{mu,0}, ...)
    except TradeOffError:
        return None
    return None if lb == f else _dp_lower(lb, depth + 1)


def dominates(big: TradeOff, small: TradeOff, box: dict) -> bool:
    """A proof that ``big >= small`` pointwise for all parameters in ``box``, or False (not
    proved; it may still hold). The cited steps of the proof (:class:`Step`, the rules of
    registered lower bounds) enter the verdict's basis; those of branches that fail do not."""
    with trace.basis(keep=False) as events:
        ok = _dominates(big, small, box)
    if ok:
        for e in events:
            trace.used(e)
    return ok


def _dominates(big: TradeOff, small: TradeOff, box: dict) -> bool:
    if same_node(big, small):
        return True
    if big.is_greatest or small.is_least:
        return _used(ID_GREATEST)
    if isinstance(big, Max) and any(dominates(g, small, box) for g in big.args):
        return _used(MAX_ORDER)  # max{g_1, ...} >= g_i
    if isinstance(small, Max) and not isinstance(big, Max) \
            and all(dominates(big, g, box) for g in small.args):
        return _used(MAX_ORDER)  # f >= every g_i gives f >= max{g_1, ...}
    if isinstance(small, Tensor) and not isinstance(big, Tensor):
        return any(dominates(big, g, box) for g in small.args) and _used(TENSOR_BELOW)
    if isinstance(small, TensorPower) and small.args[1].is_positive:
        if dominates(big, small.args[0], box):
            return _used(TENSOR_BELOW)
    if isinstance(small, Group) and dominates(big, small.args[0], box):
        return _used(GROUP_BELOW)  # Group(g, k) <= g
    if isinstance(big, Mix) and not isinstance(small, Mix) \
            and dominates(big.args[0], small, box):
        return _used(MIX_ABOVE)  # f_p >= f
    if isinstance(big, Subsample) and not isinstance(small, Subsample) \
            and big.args[0].is_symmetric is True and dominates(big.args[0], small, box):
        return _used(SUBSAMPLE_ABOVE)  # C_p(f) >= C_1(f) = f for symmetric f
    target = epsdelta_pair(small)
    if target is not None and type(big) is not type(small):
        with trace.basis(keep=False) as events:
            pl = _dp_lower(big)
        if pl is not None and prove_le(pl[0], target[0], box) \
                and prove_le(pl[1], target[1], box):
            for e in events:
                trace.used(e)
            fs = factors(big)
            if len(fs) > 1 or fs[0][1] != 1:
                _used(*BASIC_COMPOSITION)
            return True  # big >= f_{pl} >= f_{eps,delta}
    if type(big) is not type(small) or len(big.args) != len(small.args):
        return False
    dirs = monotonicity(big)
    if dirs is None:
        return False
    if any(isinstance(x, TradeOff) for x in big.args):
        with trace.basis(keep=False) as events:
            ok = _by_operands(big, small, box, dirs)
        if ok:
            for e in events:
                trace.used(e)
            _used(OPERATOR_MONOTONE)
        return ok
    return _by_operands(big, small, box, dirs)


def _by_operands(big: TradeOff, small: TradeOff, box: dict, dirs) -> bool:
    """``big >= small`` operand by operand (same class): trade-off operands in the direction of
    the operator's monotonicity, scalar parameters in the family's."""
    if dirs == "all+":
        n = len(big.args)
        orders = permutations(range(n)) if n <= 4 else [tuple(range(n))]
        return any(all(dominates(big.args[i], small.args[j], box) for i, j in enumerate(p))
                   for p in orders)
    for x, y, d in zip(big.args, small.args, dirs, strict=True):
        if x == y:
            continue
        if isinstance(x, TradeOff) and isinstance(y, TradeOff):
            if not (d > 0 and dominates(x, y, box)):
                return False
        elif isinstance(x, TradeOff) or isinstance(y, TradeOff):
            return False
        elif not (prove_le(x, y, box) if d < 0 else prove_le(y, x, box)):
            return False
    return True
