"""Verification: state a claim about trade-off functions or scalars, get a certified verdict.

See :func:`~tradeoff_algebra.verify.api.verify` and docs/architecture.md, "Verification".
"""

from .api import verify
from .verdict import Verdict

__all__ = ["verify", "Verdict"]
