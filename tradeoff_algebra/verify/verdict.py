"""The :class:`Verdict` of a claim: True (proved), False (certified counterexample) or None."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..numeric.value import Value
from ..printing import latex as tex

__all__ = ["Verdict", "RELATIONS"]

RELATIONS = {"==": "=", "<=": r"\le", ">=": r"\ge"}


def _fmt(x: Any) -> str:
    if isinstance(x, Value):
        return str(x)
    if isinstance(x, sp.Basic):
        return sp.sstr(x)
    return str(x)


@dataclass(frozen=True)
class Verdict:
    """The outcome of ``ta.verify(lhs, rel, rhs, over)``.

    * ``status``: True only with a proof (sound rewrites to one canonical form, a decision
      procedure on exact or certified numbers over the whole domain); False only with a
      certified counterexample; None otherwise.
    * ``method``: how it was decided (``"rewrite"``, ``"monotonicity"``, ``"exact"``,
      ``"certified cover"``, ``"interval arithmetic"``, ``"counterexample"``, ...).
    * ``evidence``: what was computed, in words (for None: where it could not decide).
    * ``counterexample``: for False, the parameter values, ``"alpha"`` (pointwise claims) and
      both sides' enclosures ``"lhs"`` and ``"rhs"`` (disjoint, in the wrong order).
    * ``derivations``: the rewrite derivations of the two sides when they were used.
    """

    lhs: Any
    rel: str
    rhs: Any
    over: dict
    status: bool | None
    method: str
    evidence: str
    counterexample: dict | None = None
    derivations: tuple = field(default_factory=tuple)
    seconds: float = 0.0

    def __bool__(self) -> bool:
        raise TypeError("a Verdict is three-valued; test `verdict.status is True`")

    @property
    def word(self) -> str:
        return {True: "holds", False: "fails", None: "undecided"}[self.status]

    def claim_latex(self) -> str:
        s = f"{tex(self.lhs)} {RELATIONS[self.rel]} {tex(self.rhs)}"
        if self.over:
            dom = ", ".join(f"{tex(k)} \\in [{tex(sp.sympify(lo))}, {tex(sp.sympify(hi))}]"
                            for k, (lo, hi) in self.over.items())
            s += r"\quad \text{for } " + dom
        return s

    def latex(self) -> str:
        """The claim and its verdict as a LaTeX display (``\\begin{gather*}``)."""
        lines = [self.claim_latex()]
        head = {True: r"\text{holds}", False: r"\text{fails}",
                None: r"\text{undecided}"}[self.status]
        lines.append(head + r" \quad (\text{%s})" % self.method)
        if self.counterexample:
            ce = self.counterexample
            parts = [f"{tex(sp.Symbol(k) if isinstance(k, str) else k)} = {tex(v)}"
                     for k, v in ce.items() if k not in ("lhs", "rhs")]
            for side in ("lhs", "rhs"):
                v = ce.get(side)
                parts.append(r"\text{%s} \in %s" % (side, v.latex()) if isinstance(v, Value)
                             else r"\text{%s} = %s" % (side, tex(v)))
            lines.append(r"\text{counterexample: } " + r",\ ".join(parts))
        return "\\begin{gather*}\n%s\n\\end{gather*}" % " \\\\\n".join(lines)

    def _repr_latex_(self) -> str:
        return self.latex()

    def __str__(self) -> str:
        out = [f"{_fmt(self.lhs)} {self.rel} {_fmt(self.rhs)}"]
        if self.over:
            out[0] += "  for " + ", ".join(f"{k} in [{lo}, {hi}]"
                                            for k, (lo, hi) in self.over.items())
        out.append(f"  {self.word.upper()} ({self.method}): {self.evidence}")
        if self.counterexample:
            out.append("  counterexample: " + ", ".join(
                f"{k} = {_fmt(v)}" for k, v in self.counterexample.items()))
        for d in self.derivations:
            out.append("  " + str(d).replace("\n", "\n  "))
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"Verdict({self.status}, method={self.method!r})"
