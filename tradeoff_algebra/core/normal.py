"""Phi and Phi^{-1}: the standard normal CDF and quantile as SymPy functions.

``Phi(x)`` rewrites to ``erfc(-x/sqrt(2))/2`` and ``PhiInv(p)`` to ``-sqrt(2) erfcinv(2 p)``;
both have derivatives, LaTeX ``\\Phi`` and ``\\Phi^{-1}``, and evalf that is accurate in both
tails (the mpmath kernels live in :mod:`tradeoff_algebra.numeric.normal`).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from sympy import S, exp, pi, sqrt

from .errors import InvalidParameter

__all__ = ["Phi", "PhiInv"]

# The numeric layer installs its tail-accurate kernels here (see numeric/normal.py); core keeps
# no numerics of its own.
_MP_KERNELS: dict[str, object] = {}


def _evalf_with(kernel_name: str, arg: sp.Expr, prec: int):
    """Evaluate a kernel installed by the numeric layer. A kernel takes an mpf tuple and a
    working precision in bits and returns an mpf tuple; it computes in a precision context of
    its own (never the global mpmath context), so concurrent evalf calls do not interfere."""
    from mpmath.libmp import finf, fninf

    kernel = _MP_KERNELS.get(kernel_name)
    if kernel is None or not arg.is_number:
        return None
    guard = 30
    x = arg.evalf(prec_to_dps(prec) + 15)
    if not x.is_Number:
        return None
    if not x.is_finite:
        return None
    v = kernel(x._as_mpf_val(prec + guard), prec + guard)
    if v == finf:
        return S.Infinity
    if v == fninf:
        return S.NegativeInfinity
    return sp.Float._new(v, prec)


def _argument(owner: str, name: str, allowed: str, args: tuple) -> tuple:
    """The argument of Phi or PhiInv, checked where it enters: anything that is not a SymPy
    object goes through :func:`~.validate.to_sympy` (NaN, booleans, strings, complex numbers
    and containers raise :class:`InvalidParameter` instead of failing inside SymPy or giving
    ``nan``). SymPy expressions pass as they are, with SymPy's conventions (``Phi(nan)`` is
    ``nan``: closed forms hold it in Piecewise branches that are never taken); SymPy objects
    that are not expressions (``true``, sets) are refused."""
    from .validate import to_sympy

    if len(args) != 1:
        return args
    x = args[0]
    if isinstance(x, (float, np.floating)) and math.isinf(x):
        x = S.Infinity if x > 0 else S.NegativeInfinity  # as sympify reads it
    if not isinstance(x, sp.Basic):
        return (to_sympy(name, x, allowed, owner),)
    if not isinstance(x, sp.Expr):
        raise InvalidParameter(name, x, allowed, owner, "Expected a scalar expression")
    return args


def prec_to_dps(prec: int) -> int:
    return max(1, int(round(int(prec) / 3.3219280948873626) - 1))


class Phi(sp.Function):
    """The standard normal CDF, Phi(x) = P(N(0,1) <= x)."""

    nargs = 1

    def __new__(cls, *args, **options):
        return super().__new__(cls, *_argument("Phi", "x", "a real number or -oo, oo", args),
                               **options)

    @classmethod
    def eval(cls, x):
        if x is S.NaN:
            return S.NaN
        if x is S.Zero:
            return S.Half
        if x is S.Infinity:
            return S.One
        if x is S.NegativeInfinity:
            return S.Zero
        if isinstance(x, PhiInv):
            return x.args[0]

    def fdiff(self, argindex=1):
        x = self.args[0]
        return exp(-x**2 / 2) / sqrt(2 * pi)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.erfc(-x / sqrt(2)) / 2

    def _eval_rewrite_as_erf(self, x, **kwargs):
        return (1 + sp.erf(x / sqrt(2))) / 2

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_is_positive(self):
        if self.args[0].is_extended_real and self.args[0].is_finite:
            return True

    def _eval_evalf(self, prec):
        return _evalf_with("ncdf", self.args[0], prec)

    def _latex(self, printer, exp=None):
        x = printer._print(self.args[0])
        return r"\Phi\left(%s\right)" % x if exp is None else r"\Phi^{%s}\left(%s\right)" % (exp, x)


class PhiInv(sp.Function):
    """The standard normal quantile Phi^{-1}(p)."""

    nargs = 1

    def __new__(cls, *args, **options):
        return super().__new__(cls, *_argument("PhiInv", "p", "a real number in [0, 1]", args),
                               **options)

    @classmethod
    def eval(cls, p):
        if p is S.NaN:
            return S.NaN
        if p is S.Half:
            return S.Zero
        if p is S.Zero:
            return S.NegativeInfinity
        if p is S.One:
            return S.Infinity
        if isinstance(p, Phi):
            return p.args[0]
        if p.is_number and p.is_extended_real and (p.is_extended_negative
                                                   or (p - 1).is_extended_positive):
            raise InvalidParameter("p", p, "a real number in [0, 1]", "PhiInv")

    def fdiff(self, argindex=1):
        return sqrt(2 * pi) * exp(self**2 / 2)

    def _eval_rewrite_as_erfcinv(self, p, **kwargs):
        return -sqrt(2) * sp.erfcinv(2 * p)

    def _eval_rewrite_as_erfinv(self, p, **kwargs):
        return sqrt(2) * sp.erfinv(2 * p - 1)

    def _eval_is_extended_real(self):
        p = self.args[0]
        if p.is_extended_real and p.is_nonnegative and (1 - p).is_nonnegative:
            return True

    def _eval_evalf(self, prec):
        p = self.args[0]
        # 1 - q with q tiny: evaluate the complement symbolically to keep its digits.
        if p.is_number:
            q = (1 - p)
            qv = q.evalf(prec_to_dps(prec) + 15)
            if qv.is_Number and qv < sp.Rational(1, 2):
                return _evalf_with("ncdf_inv_upper", q, prec)
        return _evalf_with("ncdf_inv", p, prec)

    def _latex(self, printer, exp=None):
        s = r"\Phi^{-1}\left(%s\right)" % printer._print(self.args[0])
        return s if exp is None else r"\left(%s\right)^{%s}" % (s, exp)
