"""Arithmetic on :class:`~tradeoff_algebra.numeric.value.Value`: rigorous propagation.

``v + 1``, ``1 - v``, ``v * w``, ``v / w``, ``-v``, ``abs(v)``, ``v ** 2``, ``v.exp()``,
``v.log()``, ``v.sqrt()`` (docs/architecture.md, "Evaluation contract"):

* **exact stays exact**: when every operand is exact (an exact Value, an int, a Rational, a
  ``fractions.Fraction``, a float or an mpf, each taken as the exact rational it holds), ``+ - *
  /`` and integer powers are computed in rational arithmetic and the result is exact;
* otherwise each operand becomes an Arb ball (python-flint) holding its guaranteed interval
  (:meth:`Value.interval`: an enclosure's ends, a point widened by one unit of its last digit),
  the operation runs in Arb ball arithmetic, and the result's ends are the ball's ends rounded
  outward: the true result of the operation on *any* points of the operands' intervals lies in
  the result. Its guarantee is the weakest of the operands' (:func:`~.value.weakest`): certified
  only when every operand is exact or certified, an estimate as soon as one is (the arithmetic
  is still interval arithmetic on the estimate's interval, so the result is exactly as good as
  its inputs).

Digits: the result carries the fewest ``dps`` of its Value operands. A result of points only (no
operand an enclosure) is a point when the ball fits inside a point's claim of some ``d <= dps``
digits (checked exactly: the point's :meth:`~Value.interval` must contain the ball), with the
most such digits (``1 - v`` near 1 keeps fewer digits than ``v``); otherwise it is an
enclosure.

Refused, naming the operand: a divisor whose interval contains 0 (``ZeroDivisionError`` for an
exact 0), ``log`` of an interval not above 0, ``sqrt`` of one reaching below 0, a non-integer
power of a base not above 0, operands with infinite ends, NaN and infinite numbers.
"""

from __future__ import annotations

import fractions
import math
import numbers
from collections.abc import Callable

import mpmath
import sympy as sp
from mpmath.libmp import fzero, mpf_neg, round_ceiling, round_floor, to_rational

from ..core.errors import InvalidParameter, NumericalError
from .arb import arb_endpoint, arb_exact
from .context import MPF, arb_precision, mp

__all__ = ["binary", "unary", "operand_rational"]

#: Extra bits of the Arb working precision beyond the result's digits.
GUARD_BITS = 40


def operand_rational(x) -> sp.Rational | None:
    """A plain number as the exact rational it holds, or None if it is not one (a Value, a
    SymPy expression other than a rational, anything else). NaN and infinities raise."""
    if isinstance(x, bool):
        return None
    if isinstance(x, sp.Rational):
        return x
    if isinstance(x, numbers.Integral):
        return sp.Integer(int(x))
    if isinstance(x, fractions.Fraction):
        return sp.Rational(x.numerator, x.denominator)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InvalidParameter("operand", x, "a finite number or a Value", "Value arithmetic")
        return sp.Rational(*x.as_integer_ratio())  # exact (sp.Rational(float) is not)
    if isinstance(x, MPF):
        if not mpmath.isfinite(x):
            raise InvalidParameter("operand", x, "a finite number or a Value", "Value arithmetic")
        return sp.Rational(*to_rational(x._mpf_))
    return None


class _Operand:
    """One operand: its exact rational (``q``) or its guaranteed interval (``lo``, ``hi``)."""

    __slots__ = ("q", "lo", "hi", "guarantee", "dps", "point")

    def __init__(self, x, is_value: Callable[[object], bool]):
        self.q = self.lo = self.hi = None
        self.dps = None
        if is_value(x):
            self.guarantee, self.dps, self.point = x.guarantee, x.dps, x.is_point
            if x.exact is not None:
                self.q, self.point = x.exact, True
                return
            lo, hi = x.interval()
            if not (mp.isfinite(lo) and mp.isfinite(hi)):
                raise InvalidParameter("operand", x, "a Value with finite ends",
                                       "Value arithmetic")
            self.lo, self.hi = lo, hi
            return
        q = operand_rational(x)
        if q is None:
            raise TypeError
        self.q, self.guarantee, self.point = q, "exact", True

    def ball(self):
        """The operand as an Arb ball (call inside ``arb_precision``)."""
        from flint import arb, fmpq

        if self.q is not None:
            return arb(fmpq(int(self.q.p), int(self.q.q)))
        lo, hi = arb_exact(self.lo), arb_exact(self.hi)
        return lo.union(hi)


def _weakest(gs) -> str:
    order = ("exact", "certified", "estimate")
    return max(gs, key=order.index)


def _result(cls, ops: list[_Operand], ball, what: str):
    """The Value of an Arb ball: an outward enclosure, or a point where one holds it."""
    dps = min(o.dps for o in ops if o.dps is not None)
    guarantee = _weakest([o.guarantee for o in ops] + ["certified"])
    if not ball.is_finite():
        raise NumericalError(f"{what}: the result is not finite (an operand's interval is too "
                             "wide or reaches a singularity); raise the operands' precision")
    lo = arb_endpoint(ball.lower(), round_floor)
    hi = arb_endpoint(ball.upper(), round_ceiling)
    mid = arb_endpoint(ball.mid(), round_floor)
    if all(o.point for o in ops) and lo != hi:
        v = _as_point(cls, lo, hi, mid, dps, guarantee)
        if v is not None:
            return v
    return cls.enclosure(lo, hi, dps, mid=mid, guarantee=guarantee)


def _as_point(cls, lo: MPF, hi: MPF, mid: MPF, dps: int, guarantee: str):
    """A point of the most digits d <= dps whose claim (:meth:`Value.interval`: within
    ``|x| 10^(1-d)`` of the truth) holds [lo, hi] with a relative margin of 2^-20 (so that the
    claim holds at any working precision), or None."""
    if mid == 0:
        return None
    with mp.workprec(53):  # (lo, hi, mid are global mpf: they would compute at its precision)
        rel = (mp.mpf(hi) - mp.mpf(lo)) / abs(mp.mpf(mid))
        if rel <= 0:
            return None
        start = min(dps, max(1, int(1 - mp.log10(rel))))
    for d in range(start, max(0, start - 3), -1):
        v = cls.point(mid, d, guarantee)
        x = mp.mpf(v.mid)
        r = abs(x) * mp.mpf(10) ** (1 - d) * (1 - mp.ldexp(1, -20))
        if x - r <= lo and hi <= x + r:
            return v
    return None


def _exact_binary(op: str, a: sp.Rational, b: sp.Rational):
    if op in ("/", "//") and b == 0:
        raise ZeroDivisionError("division by the exact Value 0")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "**":
        if not b.is_Integer:
            return None  # an irrational power in general: Arb
        if a == 0 and b < 0:
            raise ZeroDivisionError("0 to a negative power")
        if abs(b) > 10**4:
            return None  # a huge exact power: Arb
        return a**b
    raise ValueError(op)  # pragma: no cover - the dunder methods pass only these


def binary(op: str, x, y, cls):
    """``x op y`` for ``op`` in ``+ - * / **`` (a Value among them), or NotImplemented when an
    operand is not a number this module takes (Python then tries the other operand)."""
    is_value = lambda z: isinstance(z, cls)  # noqa: E731
    try:
        a, b = _Operand(x, is_value), _Operand(y, is_value)
    except TypeError:
        # an exact Value with a SymPy expression (x + v, sqrt(2) * v): SymPy arithmetic on its
        # rational; a certified or estimated Value does not enter SymPy (Value._sympy_)
        if any(isinstance(z, sp.Basic) for z in (x, y)) and all(
                not is_value(z) or z.exact is not None for z in (x, y)):
            x, y = (z.exact if is_value(z) else z for z in (x, y))
            return {"+": sp.Add, "*": sp.Mul}.get(op, _SYMPY_OPS.get(op))(x, y)
        return NotImplemented
    dps = min(o.dps for o in (a, b) if o.dps is not None)
    if a.q is not None and b.q is not None:
        r = _exact_binary(op, a.q, b.q)
        if r is not None:
            return cls.from_exact(r, dps)
    what = f"{_brief(x)} {op} {_brief(y)}"
    with arb_precision(_prec(dps)), mp.workprec(_prec(dps)):
        p, q = a.ball(), b.ball()
        if op == "+":
            r = p + q
        elif op == "-":
            r = p - q
        elif op == "*":
            r = p * q
        elif op == "/":
            if q.contains(0):
                raise NumericalError(f"{what}: the divisor's interval [{_e(q.lower())}, "
                                     f"{_e(q.upper())}] contains 0")
            r = p / q
        else:
            if b.q is not None and b.q.is_Integer and abs(b.q) <= 10**6:
                if b.q < 0 and p.contains(0):
                    raise NumericalError(f"{what}: the base's interval contains 0")
                r = p ** int(b.q)
            else:
                if not p > 0:
                    raise NumericalError(f"{what}: a non-integer power needs a base above 0; "
                                         f"its interval is [{_e(p.lower())}, {_e(p.upper())}]")
                r = (q * p.log()).exp()
        return _result(cls, [a, b], r, what)


_SYMPY_OPS = {"-": lambda a, b: a - b, "/": lambda a, b: a / b, "**": lambda a, b: a**b}


def unary(name: str, x, cls):
    """``-x``, ``abs(x)``, ``exp(x)``, ``log(x)``, ``sqrt(x)`` of a Value."""
    a = _Operand(x, lambda z: isinstance(z, cls))
    if a.q is not None:
        q = a.q
        if name == "neg":
            return cls.from_exact(-q, a.dps)
        if name == "abs":
            return cls.from_exact(abs(q), a.dps)
        if name == "exp" and q == 0:
            return cls.from_exact(sp.Integer(1), a.dps)
        if name == "log" and q == 1:
            return cls.from_exact(sp.Integer(0), a.dps)
        if name == "sqrt" and q >= 0:
            r = sp.sqrt(q)
            if r.is_Rational:
                return cls.from_exact(r, a.dps)
    if name == "abs" and x.lo >= 0:
        return x
    if name == "neg" or (name == "abs" and x.hi <= 0):
        # the mirror image: the same claim, nothing rounded
        return cls(_neg(x.hi), _neg(x.lo), _neg(x.mid), x.dps, None, x.guarantee, x.route)
    if name == "abs":  # [lo, hi] around 0: [0, max(-lo, hi)], the ends exact
        top = x.hi if x.hi >= _neg(x.lo) else _neg(x.lo)  # (-x.lo rounds: a global mpf)
        zero = mpmath.mp.make_mpf(fzero)
        return cls(zero, top, _neg(x.mid) if x.mid < 0 else x.mid,
                   x.dps, None, x.guarantee, x.route)
    what = f"{name}({_brief(x)})"
    with arb_precision(_prec(a.dps)), mp.workprec(_prec(a.dps)):
        p = a.ball()
        if name == "neg":
            r = -p
        elif name == "abs":
            r = abs(p)
        elif name == "exp":
            r = p.exp()
        elif name == "log":
            if not p > 0:
                raise NumericalError(f"{what}: log needs an interval above 0, not "
                                     f"[{_e(p.lower())}, {_e(p.upper())}]")
            r = p.log()
        elif name == "sqrt":
            if p < 0 or (p.lower() < 0 and not p.contains(0)):
                raise NumericalError(f"{what}: sqrt needs an interval not below 0, not "
                                     f"[{_e(p.lower())}, {_e(p.upper())}]")
            if p.lower() < 0:
                raise NumericalError(f"{what}: the interval [{_e(p.lower())}, "
                                     f"{_e(p.upper())}] reaches below 0")
            r = p.sqrt()
        else:  # pragma: no cover - the methods pass only these
            raise ValueError(name)
        return _result(cls, [a], r, what)


def _neg(x: MPF) -> MPF:
    """-x exactly (``-x`` would round to the global mpmath precision)."""
    return mpmath.mp.make_mpf(mpf_neg(x._mpf_))


def _prec(dps: int) -> int:
    return int(dps * 3.3219280948873626) + 4 + GUARD_BITS


def _e(x) -> str:
    """An Arb endpoint, briefly."""
    return x.str(5, radius=False)


def _brief(x) -> str:
    s = str(x)
    return s if len(s) <= 60 else s[:57] + "..."
