"""The rule registry: ``@rule(NodeClass, cite=..., relation=..., priority=...)``.

A rule is a small pure function from a node to a new node or ``None`` (does not apply). It is
registered for a node class with a priority (higher first), a citation pinned to a paper and
locator, and a relation: ``"eq"`` for an identity (used by ``simplify``), ``"lower"``/``"upper"``
for a bound (the result is pointwise below/above the input; never used as an identity).
Rules used by ``simplify`` must strictly shrink the expression (see ``rewrite.measure``) so that
rewriting cannot cycle. A soundness meta-test checks every registered rule numerically.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .citations import Citation

__all__ = ["Rule", "rule", "rules", "rules_for", "RELATIONS"]

RELATIONS = ("eq", "lower", "upper")

_REGISTRY: dict[type, list[Rule]] = {}


@dataclass(frozen=True)
class Rule:
    """A registered rewrite rule."""

    name: str
    cls: type
    func: Callable[[Any], Any] = field(repr=False)
    cite: Citation
    relation: str = "eq"
    priority: int = 0
    doc: str = field(default="", repr=False)

    def __call__(self, node: Any) -> Any:
        if not isinstance(node, self.cls):
            return None
        return self.func(node)

    def __str__(self) -> str:
        return f"{self.name} [{self.relation}] on {self.cls.__name__} ({self.cite})"


def rule(cls: type, *, cite: Citation, relation: str = "eq", priority: int = 0,
         name: str | None = None) -> Callable[[Callable], Callable]:
    """Register ``func(node) -> node | None`` as a rule for nodes of class ``cls``."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if not isinstance(cite, Citation):
        raise TypeError("cite must be a Citation (e.g. DRS.cor(2))")

    def deco(func: Callable) -> Callable:
        r = Rule(name or func.__name__, cls, func, cite, relation, priority,
                 (func.__doc__ or "").strip())
        lst = _REGISTRY.setdefault(cls, [])
        if any(x.name == r.name for x in lst):
            raise ValueError(f"rule {r.name} is already registered for {cls.__name__}")
        lst.append(r)
        lst.sort(key=lambda x: -x.priority)
        func.rule = r
        return func

    return deco


def rules(cls: type | None = None, relation: str | None = None) -> list[Rule]:
    """The registered rules, optionally for one node class and/or one relation."""
    out = [r for c, lst in _REGISTRY.items() if cls is None or c is cls for r in lst]
    return [r for r in out if relation is None or r.relation == relation]


def rules_for(node: Any, relation: str = "eq") -> list[Rule]:
    """Rules that may apply to ``node`` (its class and bases), highest priority first."""
    out: list[Rule] = []
    for c in type(node).__mro__:
        out.extend(r for r in _REGISTRY.get(c, ()) if r.relation == relation)
    return sorted(out, key=lambda r: -r.priority)
