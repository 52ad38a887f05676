"""``derive``: simplification with the trace of its steps, printable as LaTeX ``align*``.

Each :class:`Step` records the rule, its citation, the subterm rewritten (``before`` ->
``after``) and the whole expression before and after the step; :class:`Derivation` prints as
plain text (``str``) or as a LaTeX ``align*`` block with one line per step and the citation of
each step as ``\\text{...}`` (``latex()``, ``_repr_latex_`` for Jupyter). A step's relation
(``=`` for an identity, ``>=``/``<=`` for a bound, ``~`` for an approximation) is printed where
it belongs (``\\geq``, ``\\leq``, ``\\approx``). ``derive(f, relation="lower")`` (or
``"upper"``, ``"approx"``) chains bounds or approximations with the identities
(:mod:`tradeoff_algebra.rewrite.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..core.citations import Citation
from ..core.node import TradeOffExpr, tex
from ..core.rules import Rule
from .simplify import Rewriter, _check

__all__ = ["Step", "Derivation", "derive_identities", "citation_latex", "TEX_SIGN", "TEXT_SIGN"]

def citation_latex(cite: Citation) -> str:
    """``\\text{Dong, Roth \\& Su, Cor.~2}``: a citation for LaTeX, special characters escaped.

    The citation's note (plain text, often with ASCII formulas) is left to the plain-text trace.
    """
    return cite.latex()


@dataclass(frozen=True)
class Step:
    """One rewriting step: ``rule`` turned the subterm ``before`` into ``after``."""

    rule: Rule
    before: TradeOffExpr
    after: TradeOffExpr
    expr_before: TradeOffExpr
    expr_after: TradeOffExpr

    @property
    def cite(self) -> Citation:
        return self.rule.cite

    @property
    def relation(self) -> str:
        """How the whole expression after the step compares with the one before."""
        return self.rule.relation

    def __str__(self) -> str:
        return f"{self.before} -> {self.after}  [{self.rule.name}; {self.cite}]"


#: The sign of a step in LaTeX and in plain text, by relation (whole after vs whole before:
#: a lower bound makes the expression before >= the expression after).
TEX_SIGN = {"eq": "=", "lower": r"\geq", "upper": r"\leq", "approx": r"\approx"}
TEXT_SIGN = {"eq": "=", "lower": ">=", "upper": "<=", "approx": "~"}


@dataclass(frozen=True)
class Derivation:
    """The result of :func:`derive`: the input, the steps and the simplified result."""

    expr: TradeOffExpr
    result: TradeOffExpr
    steps: tuple[Step, ...] = field(default_factory=tuple)

    @property
    def relation(self) -> str:
        """``expr`` vs ``result``: "eq" when every step is an identity, else the relation of the
        bounds ("lower": expr >= result; "upper": expr <= result) or "approx"."""
        rels = {s.relation for s in self.steps} - {"eq"}
        return rels.pop() if len(rels) == 1 else ("eq" if not rels else "mixed")

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def latex(self) -> str:
        """An ``align*`` block: the input, then ``&= ... && \\text{citation}`` per step."""
        if not self.steps:
            body = r"%s && \text{(no rule applies)}" % tex(self.expr)
        else:
            lines = []
            for i, s in enumerate(self.steps):
                head = tex(self.expr) + " " if i == 0 else ""
                lines.append(r"%s&%s %s && %s" % (head, TEX_SIGN[s.relation],
                                                  tex(s.expr_after), citation_latex(s.cite)))
            body = " \\\\\n".join(lines)
        return "\\begin{align*}\n%s\n\\end{align*}" % body

    def _repr_latex_(self) -> str:
        return self.latex()

    def __str__(self) -> str:
        out = [sp.sstr(self.expr)]
        for s in self.steps:
            out.append(f"  {TEXT_SIGN[s.relation]} {sp.sstr(s.expr_after)}    "
                       f"[{s.rule.name}: {s.cite}]")
        if not self.steps:
            out.append("  (no rule applies)")
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"Derivation({self.expr} -> {self.result}, {len(self.steps)} steps)"


def derive_identities(expr: TradeOffExpr) -> Derivation:
    """Simplify ``expr`` as :func:`simplify` does and return the steps with their citations."""
    _check(expr)
    state = {"whole": expr}
    steps: list[Step] = []

    def tracer(rule: Rule, before: TradeOffExpr, after: TradeOffExpr) -> None:
        whole = state["whole"]
        new = after if whole == before else whole.xreplace({before: after})
        if new != whole:
            steps.append(Step(rule, before, after, whole, new))
            state["whole"] = new

    result = Rewriter(tracer).run(expr)
    if state["whole"] != result:  # pragma: no cover - the engine keeps the two in step
        raise AssertionError(f"derivation lost track: {state['whole']} != {result}")
    return Derivation(expr, result, tuple(steps))
