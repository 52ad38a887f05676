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
import sympy as sp
from mpmath.libmp import to_rational

from tradeoff_algebra.numeric.context import mp as lib_mp

__all__ = ["workdps", "workprec", "close", "rational"]


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


def rational(x) -> sp.Rational:
    """The exact rational value of an mpf (no rounding through text)."""
    return sp.Rational(*to_rational(mpmath.mpf(x)._mpf_))


def close(v, ref, digits: int = 28) -> bool:
    """Does the Value ``v`` agree with ``ref`` (exact SymPy number, mpf or decimal string) to
    ``digits`` significant digits? Compared at 100 digits, so nothing is rounded twice."""
    with mpmath.workdps(100):
        if isinstance(ref, str):
            r = mpmath.mpf(ref)
        elif isinstance(ref, sp.Basic):
            r = mpmath.mpf(sp.N(ref, 100))
        else:
            r = mpmath.mpf(ref)
        tol = mpmath.mpf(10) ** -digits * max(1, abs(r))
        return mpmath.mpf(v.lo) - tol <= r <= mpmath.mpf(v.hi) + tol
