"""How a rational made from floats reads: the printing rule for float parameters.

A parameter given as a Python float is stored as the exact binary rational it holds
(docs/architecture.md, "Nodes"): ``G(1.1)`` holds 2476979795053773/2251799813685248, and
``gaussian_mechanism(1, 1.1)`` holds 1 divided by that rational exactly. Equality, hashing and
every computation use the rational; only printing changes.

The rule (:func:`readable`), stateless and exact. Every text below denotes the rational exactly
when each decimal in it is read as the float64 it reads to (``float("1.1")``) and the
arithmetic is exact:

1. a rational that *is* a float (a power-of-two denominator of 2^24 or more, so that ``1/2``
   and ``3/4`` stay fractions) prints as that float's literal, ``repr(float)``: the shortest
   decimal that reads back to the same float (``1.1``, ``1e-05``);
2. otherwise the shortest of: the fraction ``p/q`` (SymPy's form); a quotient ``x/y`` of two
   float literals (an integer literal included), at least one of them a float by rule 1:
   ``1/1.1`` for 1 / 1.1, ``0.7/1.3``, the ratios the mechanisms form (Delta / sigma), never
   ``16000/1.6e+16`` for 1/10^12; the square ``(t)**2`` of such a text (mu^2 in closed
   forms).

In case 2 a text is chosen only when it is strictly shorter than the fraction, so exact
rationals the user wrote as fractions (1/3, 17/30, 1/100000) keep their form. Python itself
divides floats with rounding, so ``eval("1/1.1")`` is a float near the rational, not the
rational: read a printed quotient as exact arithmetic on the floats (``Rational(1) /
Rational(1.1)``), which :func:`value` does. (The command line's parser reads ``1.1`` as the
decimal 11/10, not as the float: there, write the fraction for an exact value.)
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import sympy as sp

__all__ = ["Readable", "readable", "value", "MIN_FLOAT_DENOMINATOR"]

#: A power-of-two denominator from which a rational prints as the float it is (2^24: below it
#: the fraction is short anyway, 1/2, 3/1024).
MIN_FLOAT_DENOMINATOR = 1 << 24

_MANTISSA = 1 << 53
#: The largest common odd factor tried when a quotient's operands were reduced (0.7/1.3 loses
#: the common factor of the two mantissas in the reduced fraction).
_MAX_COMMON = 255
#: Magnitudes tried for the numerator of a quotient: 2^-60 to 2^60.
_MAGNITUDES = range(-60, 61)


class Readable(NamedTuple):
    """A rational's readable text: ``kind`` is "float", "quotient" or "square"; ``parts`` the
    float(s) (``(x,)``, ``(x, y)``) or, for "square", ``(inner,)`` the Readable of the root."""

    kind: str
    parts: tuple
    negative: bool = False

    def text(self) -> str:
        """Plain text in the API's Python syntax."""
        if self.kind == "float":
            s = _lit(self.parts[0])
        elif self.kind == "quotient":
            s = f"{_lit(self.parts[0])}/{_lit(self.parts[1])}"
        else:
            s = f"({self.parts[0].text()})**2"
        return "-" + s if self.negative else s

    def latex(self, float_latex) -> str:
        """LaTeX; ``float_latex(x)`` prints one float (the printer's own Float style)."""
        if self.kind == "float":
            s = float_latex(self.parts[0])
        elif self.kind == "quotient":
            s = r"\frac{%s}{%s}" % tuple(float_latex(x) for x in self.parts)
        else:
            s = r"\left(%s\right)^{2}" % self.parts[0].latex(float_latex)
        return "- " + s if self.negative else s

    def is_quotient_like(self) -> bool:
        """Printed with a slash at the top level (needs parentheses as a base or a factor)."""
        return self.kind == "quotient"


def _lit(x: float) -> str:
    """The shortest literal of a float; integral values without ``.0`` (``1``, ``2e+20``)."""
    s = repr(x)
    return s[:-2] if s.endswith(".0") else s


def _exact(x: float) -> sp.Rational:
    return sp.Rational(*x.as_integer_ratio())  # (exact at any mpmath precision)


def _odd(n: int) -> tuple[int, int]:
    """``n = odd * 2**e``: (odd, e)."""
    e = (n & -n).bit_length() - 1
    return n >> e, e


def _float(m: int, e: int) -> float | None:
    """The float m * 2**e when it is one exactly (0 < m < 2^53, a normal float)."""
    if not (0 < m < _MANTISSA and -1000 < e + m.bit_length() < 1000):
        return None
    return math.ldexp(m, e)  # exact: a 53-bit mantissa and a normal exponent


def _as_float(p: int, q: int) -> Readable | None:
    if q < MIN_FLOAT_DENOMINATOR or q & (q - 1):
        return None
    P, a = _odd(p)
    x = _float(P, a - (q.bit_length() - 1))
    return None if x is None else Readable("float", (x,))


def _quotient(p: int, q: int) -> Readable | None:
    """The shortest x/y of two floats equal to p/q exactly (p, q > 0 coprime), or None."""
    P, a = _odd(p)
    Q, b = _odd(q)
    best, best_key = None, None
    for k in range(1, _MAX_COMMON + 1, 2):
        if P * k >= _MANTISSA or Q * k >= _MANTISSA:
            break
        for mag in _MAGNITUDES:
            i = mag - (P * k).bit_length()
            x = _float(P * k, i)
            y = _float(Q * k, i - a + b)
            if x is None or y is None or y == 1 or not (_is_float(x) or _is_float(y)):
                continue
            # the shortest text; then the denominator nearest 1 in magnitude (2/1.1, not 1/0.55)
            key = (len(_lit(x)) + len(_lit(y)) + 1, abs(_log2(y)))
            if best_key is None or key < best_key:
                best, best_key = Readable("quotient", (x, y)), key
    return best


def _is_float(x: float) -> bool:
    """``x`` is a float by rule 1 (its exact value has a power-of-two denominator of at least
    ``MIN_FLOAT_DENOMINATOR``): a quotient needs one such part, else it is a fraction of
    integers or short dyadics written in exponent notation (16000/1.6e+16 for 1/10^12,
    7.8125e+17/0.0078125 for 10^20), which the fraction itself states plainly."""
    return x.as_integer_ratio()[1] >= MIN_FLOAT_DENOMINATOR


def _log2(x: float) -> float:
    return math.log2(abs(x))


@functools.lru_cache(maxsize=4096)
def _readable(p: int, q: int) -> Readable | None:
    negative = p < 0
    p = abs(p)
    if p == 0 or max(p, q) < MIN_FLOAT_DENOMINATOR:
        return None  # a short fraction: nothing is shorter
    as_float = _as_float(p, q)
    if as_float is not None:  # the float the user wrote
        return as_float._replace(negative=negative)
    plain = len(str(p)) + (len(str(q)) + 1 if q != 1 else 0)
    cands = [c for c in (_quotient(p, q),) if c is not None]
    rp, exact_p = sp.integer_nthroot(p, 2)
    rq, exact_q = sp.integer_nthroot(q, 2)
    if exact_p and exact_q:
        inner = _readable(int(rp), int(rq))
        if inner is not None and all(2.0**-100 < abs(x) < 2.0**100 for x in inner.parts
                                     if isinstance(x, float)):
            cands.append(Readable("square", (inner,)))
    cands = [c for c in cands if len(c.text()) < plain]
    if not cands:
        return None
    best = min(cands, key=lambda c: len(c.text()))
    return best._replace(negative=negative)


def readable(r: sp.Rational) -> Readable | None:
    """The readable text of ``r`` by the module's rule, or None where the fraction is shortest
    (or ``r`` is not a finite rational)."""
    if not isinstance(r, sp.Rational):
        return None
    return _readable(int(r.p), int(r.q))


def value(t: Readable) -> sp.Rational:
    """The exact rational a Readable denotes (its floats taken exactly): the inverse of
    :func:`readable`."""
    if t.kind == "float":
        v = _exact(t.parts[0])
    elif t.kind == "quotient":
        v = _exact(t.parts[0]) / _exact(t.parts[1])
    else:
        v = value(t.parts[0]) ** 2
    return -v if t.negative else v
