"""The rule catalogue: the registry rendered as a Markdown table (for the documentation)."""

from __future__ import annotations

from ..core.rules import Rule, rules
from ..numeric import symbol_values  # noqa: F401  (a trade-off symbol refuses every number)
from . import general  # noqa: F401  (the rules valid for every trade-off function)

__all__ = ["rule_catalogue", "rule_summary"]


def rule_summary(r: Rule) -> str:
    """The first paragraph of the rule's docstring, on one line."""
    para = r.doc.split("\n\n", 1)[0] if r.doc else ""
    return " ".join(para.split())


def _cell(s: str) -> str:
    return s.replace("|", r"\|")


def rule_catalogue(relation: str | None = None) -> str:
    """The registered rules as a Markdown table: name, node, relation, priority, citation, rule
    (with its hypotheses, for bounds and approximations).

    Rows are grouped by node class (alphabetically) and ordered by priority within a class.
    """
    rows = sorted(rules(relation=relation), key=lambda r: (r.cls.__name__, -r.priority, r.name))
    out = ["| rule | node | relation | priority | citation | statement |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        stmt = rule_summary(r)
        if r.hypotheses and r.hypotheses != "none":
            stmt += " Hypotheses: " + r.hypotheses + "."
        out.append("| `%s` | `%s` | %s | %d | %s | %s |" % (
            r.name, r.cls.__name__, r.relation, r.priority, _cell(str(r.cite)), _cell(stmt)))
    return "\n".join(out) + "\n"
