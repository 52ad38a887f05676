"""Verification: state a claim about trade-off functions or scalars, get a certified verdict.

See :func:`~tradeoff_algebra.verify.api.verify` and docs/architecture.md, "Verification".
"""

from .api import verify
from .limits import Limit, verify_limit
from .membership import is_member, is_not_member
from .predicates import PredicateVerdict, is_not_tradeoff, is_tradeoff, negate
from .verdict import Verdict

__all__ = ["verify", "Verdict", "Limit", "verify_limit", "is_tradeoff", "is_not_tradeoff",
           "is_member", "is_not_member", "negate", "PredicateVerdict"]
