"""``format(v, spec)`` for a :class:`~tradeoff_algebra.numeric.value.Value`: rigorous rounding.

The spec is Python's for floats (``[[fill]align][sign][#][0][width][,|_][.precision][type]``,
type one of ``e E f F g G %`` or none). The value's guaranteed interval (exact: the rational;
certified or estimate: :meth:`Value.interval`, a point widened by one unit of its last digit)
is formatted as follows:

* when both ends round (to nearest, ties to even, as Python rounds a float) to the same text,
  that one number is printed: every point of the interval rounds to it, so it is the truth
  correctly rounded (for an estimate: the estimate's interval correctly rounded);
* otherwise ``[lo, hi]``, the lower end rounded down and the upper end up (outward), so the
  printed interval contains the guaranteed one.

``f"{v:.3g}"`` of the DP-SGD epsilon [3.068342, 3.068799] is ``3.07``; ``f"{v:.5g}"`` is
``[3.0683, 3.0688]``. Width, fill and alignment apply to the whole text. Each end is converted to
a decimal exactly (an mpf is a binary fraction), or for ends of more than ``_MAX_EXACT_BITS``
bits of exponent bracketed by directed rounding first (then a bracket whose two sides round
apart is printed as an interval: never a digit the interval does not support).
"""

from __future__ import annotations

import decimal
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal

import mpmath
import sympy as sp

from .context import MPF, mp

__all__ = ["format_value", "SPEC"]

#: Python's format spec for floats.
SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<alt>#)?(?P<zero>0)?"
                  r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?"
                  r"(?P<type>[eEfFgG%])?\Z", re.S)

#: Ends whose binary exponent exceeds this are bracketed by mpmath before the decimal step.
_MAX_EXACT_BITS = 20_000


def _mpf_bracket(x: MPF, digits: int) -> tuple[Decimal, Decimal]:
    """Decimals a <= x <= b: x itself when it converts exactly, else x rounded to ``digits``
    significant digits down and up."""
    if not mpmath.isfinite(x):
        raise ValueError("an infinite end")  # handled by the caller
    if x == 0:
        return Decimal(0), Decimal(0)
    sign, man, exp, _ = x._mpf_
    if abs(exp) <= _MAX_EXACT_BITS:
        d = _dec(int(man) << exp, 0) if exp >= 0 else _dec(int(man) * 5 ** -exp, exp)
        d = d.copy_negate() if sign else d  # (unary minus would round to the context)
        return d, d
    with mp.workprec(int(digits * 3.33) + 64 + 4 * len(str(abs(exp)))):
        y = mp.mpf(x)
        e = int(mp.floor(mp.log10(abs(y)))) - digits - 2
        u = mp.ldexp(1, -(mp.prec - 8))  # a relative margin beyond the rounding of 10^e
        q = y / mp.power(10, e)
        lo_n = int(mp.floor(q * ((1 - u) if y > 0 else (1 + u))))
        hi_n = int(mp.ceil(q * ((1 + u) if y > 0 else (1 - u))))
    return _dec(lo_n, e), _dec(hi_n, e)


def _dec(n: int, e: int) -> Decimal:
    """n * 10^e as a Decimal, exactly (``scaleb`` and ``*`` round to the thread's context)."""
    return Decimal(f"{n}E{e}")


def _rational_bracket(q: sp.Rational, digits: int) -> tuple[Decimal, Decimal]:
    """Decimals a <= q <= b of ``digits`` significant digits (equal when exact)."""
    ctx = decimal.Context(prec=max(digits, 1) + 5, Emax=decimal.MAX_EMAX,
                          Emin=decimal.MIN_EMIN)
    p, d = Decimal(int(q.p)), Decimal(int(q.q))
    ctx.rounding = ROUND_FLOOR
    a = ctx.divide(p, d)
    ctx.rounding = ROUND_CEILING
    return a, ctx.divide(p, d)


def _round(x: Decimal, rounding: str, precision: int | None, kind: str | None,
           alt: bool, sign: str, grouping: str) -> str:
    """``x`` formatted by the number part of a float spec, rounded in direction
    ``rounding``."""
    ctx = decimal.Context(prec=decimal.MAX_PREC, rounding=rounding, Emax=decimal.MAX_EMAX,
                          Emin=decimal.MIN_EMIN)
    if kind in ("f", "F", "%"):
        k = 6 if precision is None else precision
        y = ctx.multiply(x, 100) if kind == "%" else x
        y = y.quantize(Decimal(1).scaleb(-k), context=ctx)
        s = format(y, f"{sign}{'#' if alt else ''}{grouping}.{k}f")
        return s + "%" if kind == "%" else (s.upper() if kind == "F" else s)
    if kind in ("e", "E"):
        k = 6 if precision is None else precision
        s = _sci(x, k + 1, ctx, sign, alt)
        return s.upper() if kind == "E" else s
    # g, G and no type: k significant digits, fixed between 1e-4 and 10^k, zeros stripped
    k = 6 if precision is None else max(precision, 1)
    y = _sig(x, k, ctx)
    e = y.adjusted() if y else 0
    if -4 <= e < k:
        s = format(y, f"{sign}{grouping}.{max(k - 1 - e, 0)}f")
        if not alt and "." in s:
            s = s.rstrip("0").rstrip(".")
        if kind is None and "." not in s:
            s += ".0"
    else:
        s = _sci(y, k, ctx, sign, alt)
        if not alt:
            m, _, ex = s.partition("e")
            if "." in m:
                m = m.rstrip("0").rstrip(".")
            s = f"{m}e{ex}"
    return s.upper() if kind == "G" else s


def _sig(x: Decimal, k: int, ctx: decimal.Context) -> Decimal:
    """x rounded to k significant digits in the context's direction."""
    if not x:
        return Decimal(0)
    return x.quantize(Decimal(1).scaleb(x.adjusted() - k + 1), context=ctx)


def _sci(x: Decimal, k: int, ctx: decimal.Context, sign: str, alt: bool) -> str:
    """Scientific notation with k significant digits, Python's float style (e+05)."""
    y = _sig(x, k, ctx)
    e = y.adjusted() if y else 0
    m = y.scaleb(-e, context=ctx)
    s = format(m, f"{sign}{'#' if alt else ''}.{k - 1}f")
    return f"{s}e{'-' if e < 0 else '+'}{abs(e):02d}"


def _end_text(x, digits: int) -> str | None:
    """The text of an infinite end, or None for a finite one."""
    if isinstance(x, MPF) and not mpmath.isfinite(x):
        return "inf" if x > 0 else "-inf"
    return None


def format_value(v, spec: str) -> str:
    """``format(v, spec)``: the module docstring's rule."""
    m = SPEC.match(spec)
    if m is None:
        raise ValueError(f"Invalid format specifier {spec!r} for a Value (a float spec such as "
                         "'.3g', '.2e', '.4f', '>12.3g')")
    g = m.groupdict()
    precision = None if g["precision"] is None else int(g["precision"])
    number = dict(precision=precision, kind=g["type"], alt=bool(g["alt"]),
                  sign=g["sign"] or "", grouping=g["grouping"] or "")
    digits = (precision or 6) + 10
    if v.exact is not None:
        a, b = _rational_bracket(v.exact, digits + len(str(v.exact.p)) + len(str(v.exact.q)))
        ends = None
    else:
        lo, hi = v.interval()
        ends = (_end_text(lo, digits), _end_text(hi, digits))
        if ends == (None, None):
            ends = None
            a, b = _mpf_bracket(lo, digits)[0], _mpf_bracket(hi, digits)[1]
    if ends is None:
        near_a = _round(a, ROUND_HALF_EVEN, **number)
        near_b = _round(b, ROUND_HALF_EVEN, **number)
        if near_a == near_b:
            text = near_a
        else:
            text = f"[{_round(a, ROUND_FLOOR, **number)}, {_round(b, ROUND_CEILING, **number)}]"
    else:
        lo_t = ends[0] or _round(_mpf_bracket(lo, digits)[0], ROUND_FLOOR, **number)
        hi_t = ends[1] or _round(_mpf_bracket(hi, digits)[1], ROUND_CEILING, **number)
        text = lo_t if lo_t == hi_t else f"[{lo_t}, {hi_t}]"
    if g["width"]:
        fill = g["fill"] or ("0" if g["zero"] and text[:1] not in "[-" else " ")
        align = g["align"] if g["align"] in ("<", ">", "^") else ">"
        text = format(text, f"{fill}{align}{g['width']}")
    return text
