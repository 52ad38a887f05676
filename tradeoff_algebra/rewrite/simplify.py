"""``simplify``: apply the registered identities (``eq`` rules) bottom-up to a fixpoint.

Strategy (docs/architecture.md, "Rewriting"): the children of a node are simplified first;
then the ``eq`` rules registered for the node's class (and its bases) are tried in priority
order (highest first). When a rule fires, its result's children are simplified in turn and the
rules are tried again on the result, until none applies. Every step must strictly lower the
polynomial interpretation of :mod:`tradeoff_algebra.rewrite.measure`, which is checked;
rewriting therefore terminates, and the result is a fixpoint:
``simplify(simplify(f)) == simplify(f)``.

The parameters a rule builds are tidied cheaply (:mod:`tradeoff_algebra.rewrite.params`).
Bounds (``lower``/``upper`` rules) are never applied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import InvalidParameter, TradeOffError
from ..core.node import TradeOffExpr
from ..core.rules import Rule, rules_for
from ..numeric import budget
from .measure import weight
from .params import tidy_new_params

__all__ = ["simplify", "RewriteError", "Rewriter", "check_output"]

Tracer = Callable[[Rule, TradeOffExpr, TradeOffExpr], None]


class RewriteError(TradeOffError):
    """A rule broke the rewriting contract (it did not shrink the tree, or returned junk)."""


class Rewriter:
    """One rewriting run: memo tables and an optional tracer ``tracer(rule, before, after)``.

    With a tracer the memo of simplified subterms is off, so every step is reported where it
    happens (``derive`` needs that); without one, equal subterms are simplified once.
    """

    def __init__(self, tracer: Tracer | None = None, relation: str = "eq"):
        self.tracer = tracer
        self.relation = relation
        self.memo: dict[Any, Any] | None = None if tracer else {}
        self.wmemo: dict[Any, int] = {}

    def run(self, node: Any) -> Any:
        if not isinstance(node, TradeOffExpr):
            return node
        if self.memo is not None:
            hit = self.memo.get(node)
            if hit is not None:
                return hit
        cur = self._children(node)
        while True:
            budget.check()
            for r in rules_for(cur, self.relation):
                out = r(cur)
                if out is None or out == cur:
                    continue
                check_output(r, cur, out)
                out = tidy_new_params(out, cur)
                w_out, w_cur = weight(out, self.wmemo), weight(cur, self.wmemo)
                if w_out >= w_cur:
                    raise RewriteError(
                        f"rule {r.name} does not shrink the tree ({cur} -> {out}: weight "
                        f"{w_cur} -> {w_out}); see tradeoff_algebra.rewrite.measure")
                if self.tracer is not None:
                    self.tracer(r, cur, out)
                cur = self._children(out)
                break
            else:
                break
        if self.memo is not None:
            self.memo[node] = cur
        return cur

    def _children(self, node: Any) -> Any:
        args = node.args
        new = tuple(self.run(a) if isinstance(a, TradeOffExpr) else a for a in args)
        if all(x is y for x, y in zip(new, args, strict=True)):
            return node
        return node.func(*new)


def check_output(r: Rule, node: TradeOffExpr, out: Any) -> None:
    """A rule returns a node of the kind it was given (a trade-off function for one)."""
    if not isinstance(out, TradeOffExpr) or out.is_TradeOff != node.is_TradeOff:
        raise RewriteError(f"rule {r.name} returned {out!r} for {node}, not a node of the same "
                           "kind")


def _check(expr: Any) -> None:
    if not isinstance(expr, TradeOffExpr):
        raise InvalidParameter("expr", expr, "a trade-off expression (G(1) @ G(2), ...)",
                               "simplify")


def _shown(a: dict) -> str:
    from ..numeric.protocol import short

    return f"simplify({short(a['expr'])})"


@budget.deadline(_shown)
def simplify(expr: TradeOffExpr) -> TradeOffExpr:
    """Apply the registered identities bottom-up to a fixpoint (docs/architecture.md, "Rewriting").

    >>> import tradeoff_algebra as ta
    >>> ta.simplify(ta.G(3) @ ta.G(4) @ ta.Id)
    G(5)
    """
    _check(expr)
    return Rewriter().run(expr)
