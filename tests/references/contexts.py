"""A private mpmath context at a fixed precision, for references that must not share mpmath's
global precision (no ``tradeoff_algebra`` import)."""

from __future__ import annotations

import mpmath

__all__ = ["mp_context"]


def mp_context(dps: int) -> mpmath.MPContext:
    """A fresh ``mpmath.MPContext`` working at ``dps`` decimal digits: its numbers and
    functions keep that precision whatever the global context's."""
    c = mpmath.MPContext()
    c.dps = dps
    return c
