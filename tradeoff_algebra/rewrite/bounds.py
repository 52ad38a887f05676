"""Bounds and approximations: chains of identities and registered inequalities or limits.

``derive(f, relation)`` with ``relation`` in ``"lower"``, ``"upper"``, ``"approx"``:

1. the identities (``eq`` rules) are applied as ``simplify`` does;
2. then, top-down, the first registered rule of the requested relation that fires replaces the
   subterm (at the root first: bounding a whole composition is tighter than bounding its parts);
   a bound is applied to a subterm only where the whole expression is non-decreasing in it
   (the operators of :data:`MONOTONE`: Dong, Roth & Su, Lemma 4, Sec. 4.1, Prop. 9), so a lower
   bound of the subterm is a lower bound of the whole; an approximation may be applied anywhere;
3. the result is simplified again by the identities.

Each step keeps its rule, citation and relation, so the chain prints with ``=``, ``\\geq``,
``\\leq`` and ``\\approx`` where they belong. ``simplify`` never applies a bound or an
approximation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..core.node import TradeOffExpr, tex
from ..core.rules import Rule, rules_for
from ..core.validate import choice
from ..numeric import budget
from ..operators.maxgroup import Group, Max
from ..operators.shift import Shift
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull
from .derive import Derivation, Step, derive_identities
from .simplify import Rewriter, _check, check_output

__all__ = ["derive", "bound", "approx", "Approximation", "MONOTONE", "BOUND_RELATIONS"]

#: Operators non-decreasing in every trade-off operand: f (x) g (Lemma 4), f^{(x) n}, C_p(f) and
#: f_p (Sec. 4.1), group privacy (Thm. 3), the pointwise maximum, the inverse and the symmetric
#: hull (Prop. 9 and its remark), and the diagonal translate.
MONOTONE = (Tensor, TensorPower, Subsample, Mix, Group, Max, Inverse, SymmetricHull, Shift)

BOUND_RELATIONS = ("lower", "upper", "approx")

#: Bound or approximation steps at most, per derivation (each fires once per subterm).
MAX_STEPS = 200


class _Chain:
    """One derivation: the whole expression as it is rewritten, and its steps."""

    def __init__(self, expr: TradeOffExpr, relation: str):
        self.whole = expr
        self.relation = relation
        self.steps: list[Step] = []

    def record(self, r: Rule, before: TradeOffExpr, after: TradeOffExpr) -> None:
        new = after if self.whole == before else self.whole.xreplace({before: after})
        if new != self.whole:
            self.steps.append(Step(r, before, after, self.whole, new))
            self.whole = new

    def identities(self, node: Any) -> Any:
        return Rewriter(self.record).run(node)

    def fire(self, node: Any) -> Any | None:
        """The first rule of the chain's relation that rewrites ``node``, simplified; or None."""
        if len(self.steps) > MAX_STEPS:
            return None
        for r in rules_for(node, self.relation):
            out = r(node)
            if out is None or out == node:
                continue
            check_output(r, node, out)
            self.record(r, node, out)
            return self.identities(out)
        return None

    def run(self, node: Any, active: bool = True) -> Any:
        if not isinstance(node, TradeOffExpr):
            return node
        node = self.identities(node)
        if active:
            out = self.fire(node)
            if out is not None:
                return out
        down = active and (self.relation == "approx" or isinstance(node, MONOTONE))
        if not down:
            return node
        args = tuple(self.run(a) if isinstance(a, TradeOffExpr) else a for a in node.args)
        if all(x is y for x, y in zip(args, node.args, strict=True)):
            return node
        rebuilt = self.identities(node.func(*args))
        out = self.fire(rebuilt)
        return rebuilt if out is None else out


def _shown(name: str, relation: str | None) -> Callable[[dict], str]:
    """The name of a call in time-limit messages: ``name(expr, relation)``."""

    def shown(a: dict) -> str:
        from ..numeric.protocol import short

        rel = "" if relation is None else f", {a.get('relation', relation)!r}"
        return f"{name}({short(a['expr'])}{rel})"

    return shown


@budget.deadline(_shown("derive", "eq"))
def derive(expr: TradeOffExpr, relation: str = "eq") -> Derivation:
    """The chain of cited steps from ``expr``: identities only (``relation="eq"``, what
    ``simplify`` does), or identities and bounds (``"lower"``: every step keeps the expression
    at or below the previous one; ``"upper"``), or approximations (``"approx"``).

    >>> import tradeoff_algebra as ta
    >>> print(ta.derive(ta.G(3) @ ta.G(4)))
    G(3) @ G(4)
      = G(5)    [gaussian_tensor: Dong, Roth & Su, Cor. 2]
    """
    if choice("relation", relation, ("eq", *BOUND_RELATIONS), "derive") == "eq":
        return derive_identities(expr)
    _check(expr)
    chain = _Chain(expr, relation)
    result = chain.run(expr)
    if chain.whole != result:  # pragma: no cover - the chain keeps the two in step
        raise AssertionError(f"derivation lost track: {chain.whole} != {result}")
    return Derivation(expr, result, tuple(chain.steps))


@budget.deadline(_shown("bound", "lower"))
def bound(expr: TradeOffExpr, relation: str = "lower") -> TradeOffExpr:
    """A closed-form lower (``"lower"``) or upper (``"upper"``) bound of ``expr`` from the
    registered identities and bounds; ``derive(expr, relation)`` gives the cited steps.

    A lower bound g <= f is a valid privacy guarantee for an f-DP mechanism (g-DP); an upper
    bound says how much privacy f can at most give. Returns the simplified ``expr`` itself when
    no registered bound applies.
    """
    choice("relation", relation, ("lower", "upper"), "bound")
    return derive(expr, relation).result


@dataclass(frozen=True)
class Approximation:
    """The asymptotic form of an expression (``node``) from the registered limit theorems,
    with the error the papers state (``error``: text with the numbers, or None when the papers
    give none), and the derivation (``derivation``: the cited steps)."""

    expr: TradeOffExpr
    node: TradeOffExpr
    error: str | None
    derivation: Derivation

    @property
    def exact(self) -> bool:
        """No approximation was applied: ``node`` equals ``expr``."""
        return all(s.relation == "eq" for s in self.derivation.steps)

    def numeric_node(self) -> TradeOffExpr | None:
        """For display only: ``node`` with its irrational numeric parameters shown to 4
        digits (``G(0.8551)``, the digits of the stated error), or None when ``node`` is not a
        leaf with such a parameter. (Built without the constructor, which would store the
        Float as its binary rational: never evaluate it.)"""
        args = getattr(self.node, "args", ())
        if not args or not all(isinstance(a, sp.Expr) and a.is_number for a in args) \
                or all(a.is_Rational for a in args):
            return None
        shown = [a if a.is_Rational else sp.Float(sp.N(a, 4), 4) for a in args]
        return sp.Basic.__new__(type(self.node), *shown)

    def __str__(self) -> str:
        err = self.error or "the papers state no error bound for it"
        num = self.numeric_node()
        shown = sp.sstr(self.node) + ("" if num is None else f" ~ {sp.sstr(num)}")
        return f"{sp.sstr(self.expr)} ~ {shown}  (error: {err})"

    def latex(self) -> str:
        """A LaTeX display (``\\begin{gather*}``, as ``Derivation`` and ``Verdict``): the
        approximation, its numeric form, and the error the papers state."""
        num = self.numeric_node()
        head = r"%s \approx %s%s" % (tex(self.expr), tex(self.node),
                                      "" if num is None else r" \approx " + tex(num))
        err = self.error or "the papers state no error bound for it"
        return "\\begin{gather*}\n%s \\\\\n\\text{error: %s}\n\\end{gather*}" % (
            head, _text(err))

    def _repr_latex_(self) -> str:
        return self.latex()


def _text(s: str) -> str:
    """Plain text for LaTeX's \\text{}: its special characters escaped."""
    out = []
    for c in s:
        out.append({"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_",
                    "&": r"\&", "%": r"\%", "#": r"\#", "$": r"\$", "^": r"\^{}",
                    "~": r"\~{}"}.get(c, c))
    return "".join(out)


@budget.deadline(_shown("approx", None))
def approx(expr: TradeOffExpr) -> Approximation:
    """The asymptotic form of ``expr`` by the registered limit theorems (the CLTs of Dong, Roth
    & Su, Thms. 6, 7 and 11), with the error they state where they state one."""
    d = derive(expr, "approx")
    errs = []
    for s in d.steps:
        if s.relation == "approx" and s.rule.error is not None:
            e = s.rule.error(s.before)
            if e:
                errs.append(e)
    return Approximation(expr, d.result, "; ".join(errs) if errs else None, d)
