"""The size limits of expression strings: every number is checked before SymPy forms it.

A short string can spell a number that takes hours or all memory to form
(``10**10**10``, ``(10**10000)**10000``, ``1e-99999999999``, ``sqrt(10**10000 + 1)``,
``exp(10**10000)``), so the interpreter of :mod:`tradeoff_algebra.parse` checks every number
*before* SymPy forms it and refuses, with an
:class:`~tradeoff_algebra.core.errors.InvalidParameter` that says which limit:

* the expression has at most :data:`MAX_LENGTH` characters and :data:`MAX_DEPTH` levels of
  nesting;
* every integer, and the numerator and denominator of every rational -- literals, decimal
  literals taken exactly (``1e-300`` is ``1/10**300``) and every intermediate result -- is at
  most ``10**MAX_DIGITS`` in absolute value (:data:`MAX_DIGITS` is 4000: so at most 4001
  digits), which also keeps every number printable (Python refuses to convert integers of
  more than 4300 digits to text); decimal literals therefore run from ``1e-4000`` to
  ``1e4000``, and one beyond that (``1e-99999999999``) is refused rather than formed, whether
  or not a float64 would over- or underflow;
* every other number (``sqrt(2)*10**3000``, ``exp(x)``, ``pi**k``, ``Phi(x)``) is zero or has
  magnitude between ``10**-MAX_DIGITS`` and ``10**MAX_DIGITS``, checked on a 50-digit
  approximation built node by node; so ``exp(x)`` needs ``|x| <= MAX_DIGITS * ln 10`` (about
  9210), which is checked before ``exp`` is formed;
* ``log`` needs a positive argument and ``PhiInv`` one in ``[0, 1]`` (parameters are real, and
  SymPy takes exponential time to nest logarithms of negative numbers);
* a power of numbers ``a**b`` needs an exponent ``b = p/q`` with ``|p|, q <=`` :data:`MAX_POWER`
  (10000) and a result within the two limits above, estimated before it is formed;
* a root (a fractional power, ``sqrt``) of a rational with more than :data:`MAX_ROOT_DIGITS` (500)
  digits in numerator or denominator is refused: SymPy factors the radicand, which takes
  seconds at 1600 digits and minutes at 4000.

Numbers within these limits can still be too large for a particular evaluation
(``G(1e999)`` at ``alpha = 0.5``); that is the numeric layer's to report.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import sympy as sp

from .core.errors import InvalidParameter, brief
from .core.node import TradeOffExpr
from .core.normal import PhiInv
from .numeric.context import mp

__all__ = ["MAX_LENGTH", "MAX_DEPTH", "MAX_DIGITS", "MAX_POWER", "MAX_ROOT_DIGITS",
           "SizeLimits", "too_long", "digits", "pow_text"]

#: Longest accepted expression string, in characters.
MAX_LENGTH = 10_000
#: Deepest accepted nesting of the syntax tree.
MAX_DEPTH = 200
#: Integers, numerators and denominators are at most ``10**MAX_DIGITS`` in absolute value, and
#: every other nonzero number has ``|log10 |x|| <= MAX_DIGITS`` (see the module docstring).
MAX_DIGITS = 4000
#: Largest ``|p|`` and ``q`` of an exponent ``p/q`` in a power of numbers.
MAX_POWER = 10_000
#: Most digits of a rational whose root (fractional power) is taken.
MAX_ROOT_DIGITS = 500

_LOG2_10 = math.log2(10)
_MAX_BITS = math.ceil(MAX_DIGITS * _LOG2_10)  # 10**MAX_DIGITS needs 13288 bits
_TEN_TO_MAX_DIGITS = 10**MAX_DIGITS
_MAX_ROOT_BITS = math.ceil(MAX_ROOT_DIGITS * _LOG2_10)
_MAX_EXP_ARG = MAX_DIGITS * math.log(10)  # exp(x) <= 10**MAX_DIGITS
_LOG10_2 = math.log10(2)

def too_long(n: int) -> bool:
    """``|n| > 10**MAX_DIGITS`` (from the bit length, comparing only at the boundary)."""
    bits = abs(n).bit_length()
    return bits > _MAX_BITS or (bits == _MAX_BITS and abs(n) > _TEN_TO_MAX_DIGITS)


def digits(n: int) -> int:
    """Decimal digits of ``|n|`` (from the bit length and one power of ten; never converts
    the number to text)."""
    n = abs(n)
    d = int(n.bit_length() * _LOG10_2)  # d or d + 1 digits
    return d + 1 if n >= 10**d else max(d, 1)



class SizeLimits:
    """The checks of one parse: ``misuse(text)`` makes the error the caller raises; the
    50-digit approximations of the numbers met are memoised for the length of the parse."""

    def __init__(self, misuse: Callable[[str], InvalidParameter]):
        self.misuse = misuse
        self._approximations: dict[sp.Expr, sp.Expr | None] = {}

    def too_large(self, what: str) -> InvalidParameter:
        return self.misuse(f"{what} (see the size limits in the docstring of "
                           "tradeoff_algebra.parse_limits)")

    def check(self, x: Any) -> Any:
        """Refuse a scalar beyond the size limits: a rational with numerator or denominator
        above 10**MAX_DIGITS, another number of magnitude outside
        10**-MAX_DIGITS .. 10**MAX_DIGITS."""
        if not isinstance(x, sp.Expr) or isinstance(x, TradeOffExpr):
            return x
        for r in x.atoms(sp.Rational):
            if too_long(int(r.p)) or too_long(int(r.q)):
                raise self.too_large(f"the number {brief(r)} is too large: integers, "
                                      f"numerators and denominators are at most "
                                      f"10**{MAX_DIGITS}")
        if x.is_number and not x.is_Rational and not x.has(*_INFINITIES):
            m = self.log10_abs(x)
            if m is not None and abs(m) > MAX_DIGITS:
                size = "large" if m > 0 else "small"
                raise self.too_large(f"the number {brief(x)} is too {size}: numbers lie "
                                      f"between 10**-{MAX_DIGITS} and 10**{MAX_DIGITS} in "
                                      "magnitude (or are 0)")
        return x

    def log10_abs(self, x: sp.Expr) -> float | None:
        """``log10 |x|`` of a number from its approximation (the largest over real and
        imaginary parts); ``None`` for zero or where no approximation is available."""
        v = self.approx(x)
        if v is None:
            return None
        worst: float | None = None
        for f in v.atoms(sp.Float):
            _, man, exp, bc = f._mpf_
            if not man:
                continue  # zero (or a special value, which SymPy reports elsewhere)
            e2 = int(exp) + int(bc)  # 2**(e2 - 1) <= |f| < 2**e2
            if abs(e2) < 10**15:
                m = float(mp.log10(abs(mp.make_mpf(f._mpf_))))
            else:
                m = math.copysign(math.inf, e2)
            if worst is None or abs(m) > abs(worst):
                worst = m
        return worst

    def approx(self, x: sp.Expr) -> sp.Expr | None:
        """A 50-digit approximation of the number ``x`` (a Float, or Floats and ``I``), built
        node by node from the approximations of the arguments and memoised, so its cost is
        linear in the tree (SymPy's own ``evalf`` re-evaluates shared subtrees and is
        exponential in the depth of nested logarithms). ``None`` where a node leaves no number.
        Refuses (with :class:`InvalidParameter`) a number whose evaluation fails or whose
        exponent is astronomically large."""
        if x in self._approximations:
            return self._approximations[x]
        try:
            v = self.approx_node(x)
        except InvalidParameter:
            raise
        except Exception as exc:  # mpmath overflows on arguments beyond its range
            raise self.too_large(f"the number {brief(x)} cannot be evaluated to check its "
                                  f"size ({type(exc).__name__})") from None
        self._approximations[x] = v
        return v

    def approx_node(self, x: sp.Expr) -> sp.Expr | None:
        if x.is_Rational or x.is_Float:
            return sp.Float(x, _APPROX_DPS)
        if not x.args:
            v = x.evalf(_APPROX_DPS)  # pi, E, I, ...
            return v if _is_approximation(v) else None
        args = []
        for a in x.args:
            v = self.approx(a)
            if v is None:
                return None
            args.append(v)
        if isinstance(x, sp.exp) or (x.is_Pow and x.base is sp.S.Exp1):
            t = sp.re(args[-1])
        elif x.is_Pow:
            b = args[0]
            t = 0 if b.is_zero else abs(args[1]) * abs(sp.log(abs(b))) if b.is_number else 0
        else:
            t = 0
        if abs(t) > _MAX_EXP_ARG * 100:  # exp(t) with |t| > 10**6: beyond every limit
            raise self.too_large(f"the number {brief(x)} is too large or too small: numbers "
                                  f"lie between 10**-{MAX_DIGITS} and 10**{MAX_DIGITS} in "
                                  "magnitude")
        if isinstance(x, PhiInv):
            p = args[0]
            if p.is_extended_real and (p <= 0 or p >= 1):  # rounding at the ends of [0, 1]
                if p < -_ROUNDING or p > 1 + _ROUNDING:
                    return None
                return sp.Float(-_PHIINV_END if p <= 0 else _PHIINV_END, _APPROX_DPS)
        v = x.func(*args)
        if not _is_approximation(v):
            v = v.evalf(_APPROX_DPS)
        return v if _is_approximation(v) else None

    def check_power(self, base: sp.Expr, e: sp.Rational) -> None:
        """Refuse ``base**e`` before SymPy forms it if the numeric factors of ``base`` (which
        SymPy raises to the power exactly, even beside symbols) would exceed the size limits,
        or if it takes the root of a rational with more than MAX_ROOT_DIGITS digits."""
        ae = abs(e)
        root = e.q != 1
        for f in sp.Mul.make_args(base):
            if not f.is_number or f in (sp.S.One, sp.S.NegativeOne):
                continue
            if f.is_Rational:
                radicand, power = f, sp.S.One
            elif f.is_Pow and f.base.is_Rational and f.exp.is_Rational:
                radicand, power = f.base, abs(f.exp)
            else:
                radicand = None
            if radicand is not None:
                p, q = abs(int(radicand.p)), int(radicand.q)
                log2 = max(math.log2(p) if p else 0.0, math.log2(q))
                if log2 * float(power) * float(ae) > _MAX_BITS:
                    raise self.too_large(f"the power {pow_text(base, e)} is too "
                                          f"large: it would exceed 10**{MAX_DIGITS}")
                if root and max(p.bit_length(), q.bit_length()) > _MAX_ROOT_BITS:
                    raise self.too_large(f"the root {pow_text(base, e)} is too "
                                          f"large: roots are taken of numbers with at most "
                                          f"{MAX_ROOT_DIGITS} digits")
                continue
            m = self.log10_abs(f)
            if m is not None and abs(m) * float(ae) > MAX_DIGITS:
                raise self.too_large(f"the power {pow_text(base, e)} is too large "
                                      f"or too small: numbers lie between 10**-{MAX_DIGITS} "
                                      f"and 10**{MAX_DIGITS} in magnitude")

    def check_radicands(self, a: sp.Expr, b: sp.Expr) -> None:
        """SymPy merges roots of rationals in a product (``sqrt(2)*sqrt(3)`` is ``sqrt(6)``)
        and factors the merged radicand: refuse products whose radicands together exceed
        MAX_ROOT_DIGITS digits."""
        bits = 0
        for f in (*sp.Mul.make_args(a), *sp.Mul.make_args(b)):
            if f.is_Pow and f.base.is_Rational and f.exp.is_Rational and f.exp.q != 1:
                bits += max(abs(int(f.base.p)).bit_length(), int(f.base.q).bit_length())
        if bits > _MAX_ROOT_BITS:
            raise self.too_large(f"the product {brief(a)} * {brief(b)} is too large: it "
                                  f"merges roots of numbers with more than {MAX_ROOT_DIGITS} "
                                  "digits in all")

    def check_domain(self, name: str, a: sp.Expr) -> None:
        """log needs a positive number and PhiInv one in [0, 1]: every parameter of the
        algebra is real, and SymPy's logarithm of a negative number is complex and expensive
        to nest (deciding the sign of log(log(...(-2))) takes exponential time)."""
        if not a.is_number:
            return
        if a.has(*_INFINITIES):
            if name == "PhiInv" or a is not sp.S.Infinity:
                raise self.misuse(f"the argument of {name}({brief(a)}) is infinite")
            return
        v = self.approx(a)
        if v is None:
            return
        if not v.is_extended_real:
            raise self.misuse(f"the argument of {name}({brief(a)}) is a complex number; "
                              "parameters are real")
        if name == "log" and v <= 0:
            raise self.misuse(f"the argument of log({brief(a)}) is <= 0; log needs a "
                              "positive number")
        if name == "PhiInv" and (v < -_ROUNDING or v > 1 + _ROUNDING):
            raise self.misuse(f"the argument of PhiInv({brief(a)}) is outside [0, 1], the "
                              "domain of PhiInv")

    def check_exp(self, a: sp.Expr) -> None:
        """exp(a) needs |a| <= MAX_DIGITS * ln 10 for a number a; SymPy turns exp(c*log(b))
        into b**c, which is checked as that power."""
        if a.is_number:
            m = self.log10_abs(sp.re(a))
            if m is not None and m > math.log10(_MAX_EXP_ARG):
                raise self.too_large(f"the exponential exp({brief(a)}) is too large or too "
                                      f"small: its argument must lie in [-{_MAX_EXP_ARG:.0f}, "
                                      f"{_MAX_EXP_ARG:.0f}] (numbers lie between "
                                      f"10**-{MAX_DIGITS} and 10**{MAX_DIGITS} in magnitude)")
        for term in sp.Add.make_args(a):
            factors = sp.Mul.make_args(term)
            logs = [f for f in factors if isinstance(f, sp.log)]
            if len(logs) == 1:
                coeff = sp.Mul(*[f for f in factors if f is not logs[0]])
                if isinstance(coeff, sp.Rational):
                    self.check_power(logs[0].args[0], coeff)


_APPROX_DPS = 50
# |PhiInv(p)| for p within 10**-MAX_DIGITS of 0 or 1 (where a 50-digit approximation of p
# may round to 0 or 1).
_PHIINV_END = 136
_ROUNDING = sp.Float("1e-40", _APPROX_DPS)
_INFINITIES = (sp.S.Infinity, sp.S.NegativeInfinity, sp.S.ComplexInfinity)


def _is_approximation(v: Any) -> bool:
    """A number made of Floats and ``I`` only (what :meth:`SizeLimits.approx` returns)."""
    if not isinstance(v, sp.Expr) or v.has(*_INFINITIES, sp.nan):
        return False
    return all(a.is_Float or a is sp.S.ImaginaryUnit or a.is_Integer
               for a in v.atoms())


def pow_text(base: sp.Expr, e: sp.Expr) -> str:
    """``base**e`` for a message, shortened, with parentheses only where needed."""
    def plain(v: sp.Expr) -> bool:
        return bool(v.is_Symbol or (v.is_Integer and v.is_nonnegative))

    b, x = brief(base), brief(e)
    return f"{b if plain(base) else f'({b})'}**{x if plain(e) else f'({x})'}"
