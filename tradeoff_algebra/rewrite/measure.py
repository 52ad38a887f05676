"""The termination measure of the rewriting: a polynomial interpretation of the tree.

Every node is mapped to a positive integer ``weight(node)``:

* a leaf without parameters (``Id``, ``Zero``): 1;
* a leaf with parameters (``G_mu``, ``f_{eps,delta}``, ``L_mu``, ...): 2;
* ``Inverse(f)``: ``2 * weight(f)``;
* every other operator node (``Tensor``, ``TensorPower``, ``Group``, ``Mix``, ``Max``, ...):
  ``1 + sum of the weights of its trade-off children`` (SymPy parameters weigh nothing).

Each interpretation is strictly increasing in each child's weight, so replacing a subterm by one
of smaller weight makes the whole tree lighter (monotonicity). The weights are positive integers,
so a sequence of strictly decreasing weights is finite: a rewrite system in which every step
strictly lowers ``weight`` terminates. ``simplify`` checks the decrease at every step and raises
:class:`RewriteError` naming the rule if a rule ever fails to shrink the tree.

Why these numbers: ``Inverse`` counts double so that pushing an inverse into a product,
``(f (x) g)^{-1} -> f^{-1} (x) g^{-1}`` (2w_f + 2w_g + 2 -> 2w_f + 2w_g + 1), shrinks the tree;
parametric leaves weigh 2 so that collecting ``f (x) f (x) g -> f^{(x)2} (x) g``
(2w_f + w_g + 1 -> w_f + w_g + 2) shrinks it for a leaf ``f``, and ``G_0 -> Id`` (2 -> 1) does.

An operator whose rules need another interpretation registers it with :func:`register_weight`;
the function must be strictly increasing in every child weight and return a positive integer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.node import TradeOffExpr
from ..operators.subsample import Subsample
from ..operators.unary import Inverse

__all__ = ["weight", "register_weight", "WEIGHTS"]

#: Per-class interpretations ``f(node, child_weights) -> int`` overriding the default.
WEIGHTS: dict[type, Callable[[Any, list[int]], int]] = {}


def register_weight(cls: type, func: Callable[[Any, list[int]], int]) -> None:
    """Use ``func(node, child_weights)`` as the interpretation of nodes of class ``cls``."""
    WEIGHTS[cls] = func


register_weight(Inverse, lambda node, ws: 2 * ws[0])
# C_p(f) counts 2 w_f + 2, so that its closed forms shrink the tree: C_p(f_{eps,delta}) ->
# max{f_{eps',delta'}, f_{0,c}} (6 -> 5), C_p(0) -> f_{0,p} (4 -> 2), C_1(f) -> C(f)
# (2 w_f + 2 -> w_f + 1).
register_weight(Subsample, lambda node, ws: 2 * ws[0] + 2)
# A leaf class may weigh more than 2 (its attribute ``leaf_weight``) so that its rules to
# simpler families shrink the tree: ShuffleDP(eps0, 1) -> f_{eps0,0} (3 -> 2),
# NormalPair(m0, s, m1, s) -> G_{|m1 - m0|/s} (3 -> 2).


def _local(node: TradeOffExpr, ws: list[int]) -> int:
    for c in type(node).__mro__:
        f = WEIGHTS.get(c)
        if f is not None:
            return f(node, ws)
    if not ws:  # a leaf
        w = getattr(type(node), "leaf_weight", None)
        return w if w is not None else (2 if node.args else 1)
    return 1 + sum(ws)


def weight(node: Any, memo: dict | None = None) -> int:
    """The polynomial interpretation of ``node`` (see the module docstring); 0 for non-nodes."""
    if not isinstance(node, TradeOffExpr):
        return 0
    if memo is not None:
        hit = memo.get(node)
        if hit is not None:
            return hit
    ws = [weight(a, memo) for a in node.args if isinstance(a, TradeOffExpr)]
    w = _local(node, ws)
    if memo is not None:
        memo[node] = w
    return w
