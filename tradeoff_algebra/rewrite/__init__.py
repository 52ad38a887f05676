"""Rewriting: ``simplify``, ``derive`` and the rule catalogue (docs/architecture.md, "Rewriting").

The rules themselves live with the nodes they rewrite (families and operators register them
with :func:`tradeoff_algebra.core.rules.rule`); this layer holds the strategy that applies them,
the termination measure and the trace of steps.
"""

from ..core.rules import Rule, rule, rules, rules_for
from .bounds import Approximation, approx, bound, derive
from .catalogue import rule_catalogue, rule_summary
from .derive import Derivation, Step, citation_latex
from .measure import register_weight, weight
from .params import tidy
from .simplify import RewriteError, Rewriter, simplify

__all__ = ["simplify", "derive", "Derivation", "Step", "RewriteError", "Rewriter", "rule",
           "rules", "rules_for", "Rule", "rule_catalogue", "rule_summary", "citation_latex",
           "register_weight", "weight", "tidy", "bound", "approx", "Approximation"]
