"""Working precision for tests that call the library's internal numeric routines.

The library computes in a private mpmath context of the calling thread
(:mod:`tradeoff_algebra.numeric.context`), never in the global ``mpmath.mp``. A test that calls
an internal routine (``mp_value``, ``num``, the envelope functions …) and compares it with its own
reference computed by global ``mpmath`` sets both precisions together with these managers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import mpmath

from tradeoff_algebra.numeric.context import mp as lib_mp

__all__ = ["workdps", "workprec"]


@contextmanager
def workdps(n: int) -> Iterator[None]:
    """``n`` decimal digits in mpmath's global context and in the library's thread context."""
    with mpmath.workdps(n), lib_mp.workdps(n):
        yield


@contextmanager
def workprec(n: int) -> Iterator[None]:
    """``n`` bits in mpmath's global context and in the library's thread context."""
    with mpmath.workprec(n), lib_mp.workprec(n):
        yield
