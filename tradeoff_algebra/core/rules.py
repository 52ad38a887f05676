"""The rule registry: ``@rule(NodeClass, cite=..., relation=..., priority=...)``.

A rule is a small pure function from a node to a new node or ``None`` (does not apply). It is
registered for a node class with a priority (higher first), a citation pinned to a paper and
locator, and a relation: ``"eq"`` for an identity (used by ``simplify``), ``"lower"``/``"upper"``
for a bound (the result is pointwise below/above the input; never used as an identity, applied by
``bound`` and ``derive(..., relation=...)``), ``"approx"`` for an asymptotic statement (a limit
theorem: the result approximates the input, with the error the paper gives, if any, from
``error(node)``; applied by ``approx`` only). ``hypotheses`` states, in words, what the rule
checks before it fires.
Rules used by ``simplify`` must strictly shrink the expression (see ``rewrite.measure``) so that
rewriting cannot cycle. A soundness meta-test checks every registered rule numerically.

What a family knows about an operator (G_mu (x) G_nu = G_sqrt(mu^2 + nu^2)) reaches the operator
through a *hook* the operator asks for, in the manner of SymPy's ``_eval_power``: the family
registers ``@hook("tensor", cite=...)`` on a function of the operator's operands (the factors of
a product, the base and exponent of a power, ...), without importing the operator; the operator
module binds the hook kind to its class with an adapter that feeds a node's operands to the hook
and rebuilds the node (:func:`bind_hook`). Each hook becomes an ordinary rule of the operator's
class, with the family's name, citation and priority, so ``simplify``, ``derive`` and the
soundness meta-test see no difference. The kinds in use: ``"tensor"`` (factors -> factors),
``"tensor_power"`` (base, n -> node) and ``"group"`` (f, k -> node).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import trace
from .citations import Citation

__all__ = ["Rule", "rule", "rules", "rules_for", "hook", "bind_hook", "RELATIONS"]

RELATIONS = ("eq", "lower", "upper", "approx")

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
    hypotheses: str = ""
    error: Callable[[Any], Any] | None = field(default=None, repr=False)

    def __call__(self, node: Any) -> Any:
        if not isinstance(node, self.cls):
            return None
        out = self.func(node)
        if out is not None and trace.recording_basis() and out != node:
            trace.used(("rule", self))  # the rule fired: part of the basis (core.trace)
        return out

    def __str__(self) -> str:
        return f"{self.name} [{self.relation}] on {self.cls.__name__} ({self.cite})"


def _check(relation: str, cite: Any) -> None:
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if not isinstance(cite, Citation):
        raise TypeError("cite must be a Citation (e.g. DRS.cor(2))")


def _add(r: Rule) -> Rule:
    lst = _REGISTRY.setdefault(r.cls, [])
    if any(x.name == r.name for x in lst):
        raise ValueError(f"rule {r.name} is already registered for {r.cls.__name__}")
    lst.append(r)
    lst.sort(key=lambda x: -x.priority)
    return r


def rule(cls: type, *, cite: Citation, relation: str = "eq", priority: int = 0,
         name: str | None = None, hypotheses: str = "",
         error: Callable[[Any], Any] | None = None) -> Callable[[Callable], Callable]:
    """Register ``func(node) -> node | None`` as a rule for nodes of class ``cls``.

    ``hypotheses``: what the rule checks before it fires, in words (shown by the catalogue and
    the derivations). ``error``: for an ``"approx"`` rule, ``error(node)`` gives the error bound
    the paper states for the approximation of ``node`` (a short text with the numbers, or None
    when the paper gives none for these parameters).
    """
    _check(relation, cite)
    if error is not None and relation != "approx":
        raise ValueError("only an 'approx' rule states an approximation error")

    def deco(func: Callable) -> Callable:
        func.rule = _add(Rule(name or func.__name__, cls, func, cite, relation, priority,
                              (func.__doc__ or "").strip(), hypotheses, error))
        return func

    return deco


@dataclass(frozen=True)
class _Hook:
    name: str
    func: Callable = field(repr=False)
    cite: Citation
    relation: str
    priority: int
    doc: str = field(default="", repr=False)


_HOOKS: dict[str, list[_Hook]] = {}
_BINDINGS: dict[str, list[tuple[type, Callable]]] = {}


def _bound(cls: type, adapter: Callable, h: _Hook) -> Rule:
    def apply(node: Any) -> Any:
        return adapter(node, h.func)

    apply.__name__ = h.name
    return _add(Rule(h.name, cls, apply, h.cite, h.relation, h.priority, h.doc))


def hook(kind: str, *, cite: Citation, relation: str = "eq", priority: int = 0,
         name: str | None = None) -> Callable[[Callable], Callable]:
    """Register ``func(*operands) -> result | None`` as a family's answer to the operator hook
    ``kind`` (see the module docstring); it becomes a rule of every class bound to ``kind``."""
    _check(relation, cite)

    def deco(func: Callable) -> Callable:
        h = _Hook(name or func.__name__, func, cite, relation, priority,
                  (func.__doc__ or "").strip())
        _HOOKS.setdefault(kind, []).append(h)
        for cls, adapter in _BINDINGS.get(kind, ()):
            func.rule = _bound(cls, adapter, h)
        return func

    return deco


def bind_hook(kind: str, cls: type, adapter: Callable[[Any, Callable], Any]) -> None:
    """Make the hooks of ``kind`` rules of ``cls``: ``adapter(node, func)`` calls the hook
    ``func`` on the node's operands and returns the rewritten node, or None."""
    _BINDINGS.setdefault(kind, []).append((cls, adapter))
    for h in _HOOKS.get(kind, ()):
        h.func.rule = _bound(cls, adapter, h)


def rules(cls: type | None = None, relation: str | None = None) -> list[Rule]:
    """The registered rules, optionally for one node class and/or one relation."""
    from .errors import InvalidParameter
    from .node import TradeOffExpr
    from .validate import choice

    if relation is not None:
        choice("relation", relation, RELATIONS, "rules")
    if cls is not None and not (isinstance(cls, type) and issubclass(cls, TradeOffExpr)):
        raise InvalidParameter("cls", cls, "None or a node class (G, Mix, TensorPower, ...)",
                               "rules")
    out = [r for c, lst in _REGISTRY.items() if cls is None or c is cls for r in lst]
    return [r for r in out if relation is None or r.relation == relation]


def rules_for(node: Any, relation: str = "eq") -> list[Rule]:
    """Rules that may apply to ``node`` (its class and bases), highest priority first."""
    out: list[Rule] = []
    for c in type(node).__mro__:
        out.extend(r for r in _REGISTRY.get(c, ()) if r.relation == relation)
    return sorted(out, key=lambda r: -r.priority)
