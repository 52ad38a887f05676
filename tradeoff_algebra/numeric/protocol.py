"""Numeric evaluation: per-class dispatch and the public ``evaluate``, ``roc`` and ``curve``.

Evaluation dispatches on the node class with :func:`functools.singledispatch` (as SymPy's stats
sampling does); each family or operator module registers its own implementations:

``mp_value(f, a, ac) -> (lo, hi)``
    f(alpha) in the current mpmath context. ``a`` is alpha and ``ac`` is ``1 - alpha``, each
    with full relative accuracy (the complement is formed exactly before rounding), so tails on
    both ends keep their digits. A closed form returns ``(v, v)``; anything else an enclosure.
``mp_roc(f, a, ac) -> (lo, hi)``
    The power ``1 - f(alpha)`` without cancellation; the default subtracts (families override).
``exact_value(f, A, Ac) -> Rational | None``
    The exact value for rational alpha where the objects are finite.
``np_value(f, x) -> ndarray``
    The float64 vectorised path used by :func:`curve`.
"""

from __future__ import annotations

import math
import numbers
from functools import singledispatch
from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..core.node import TradeOff
from .context import MPF, mp
from .value import Value

__all__ = ["mp_value", "mp_roc", "exact_value", "np_value", "mp_conjugate", "mp_delta",
           "evaluate", "roc", "curve", "as_level", "num", "GUARD_DPS"]

#: Guard digits carried beyond the requested ``dps`` inside every evaluation.
GUARD_DPS = 20


def _no_route(f: Any, what: str) -> NoClosedForm:
    return NoClosedForm(f"{type(f).__name__} node {f}: no numeric {what} is available for this "
                        "node yet; try ta.simplify(f) for a closed form")


@singledispatch
def mp_value(f: Any, a, ac):
    """Enclosure (lo, hi) of f(alpha) in the current mpmath context."""
    raise _no_route(f, "evaluation")


@singledispatch
def mp_roc(f: Any, a, ac):
    """Enclosure (lo, hi) of 1 - f(alpha); default by subtraction (may cancel)."""
    lo, hi = mp_value(f, a, ac)
    return 1 - hi, 1 - lo


@singledispatch
def exact_value(f: Any, A: sp.Rational, Ac: sp.Rational) -> sp.Rational | None:
    """Exact rational f(A) where the objects are finite, else None."""
    return None


@singledispatch
def np_value(f: Any, x: np.ndarray) -> np.ndarray:
    """Vectorised float64 f(x)."""
    raise _no_route(f, "float64 curve")


@singledispatch
def mp_conjugate(f: Any, y):
    """Enclosure (lo, hi) of the convex conjugate f^*(y) = sup_alpha {y alpha - f(alpha)}
    (Dong, Roth & Su, Eq. (7)) in the current mpmath context."""
    raise _no_route(f, "convex conjugate")


@singledispatch
def mp_delta(f: Any, eps):
    """Enclosure (lo, hi) of the privacy profile delta(eps) = 1 + f^*(-e^eps)
    (Dong, Roth & Su, Prop. 6); the default goes through ``mp_conjugate`` (which may cancel:
    families override with tail-accurate closed forms)."""

    lo, hi = mp_conjugate(f, -mp.exp(eps))
    return 1 + lo, 1 + hi


def num(x: sp.Basic, name: str = "parameter"):
    """A SymPy number as an mpf at the current precision (fast paths for rationals)."""
    if isinstance(x, sp.Integer):
        return mp.mpf(int(x))
    if isinstance(x, sp.Rational):
        return mp.mpf(int(x.p)) / int(x.q)
    if isinstance(x, sp.Float):
        return mp.mpf(x._mpf_)
    if x.free_symbols:
        raise InvalidParameter(name, x, "a number", hint="substitute values for the symbols "
                               f"{sorted(map(str, x.free_symbols))} before evaluating")
    v = x.evalf(mp.dps + 5)
    if not v.is_Number:
        raise InvalidParameter(name, x, "a real number")
    if v.is_infinite:
        return mp.inf if v > 0 else mp.ninf
    return mp.mpf(v._mpf_) if isinstance(v, sp.Float) else num(v)


def as_level(alpha: Any, name: str = "alpha") -> sp.Expr:
    """Convert a type-I level to an exact SymPy number in [0, 1].

    Floats and mpf values convert to the rational they represent exactly; decimal strings
    (``"1e-300"``, ``"0.999"``) convert exactly; SymPy numbers stay as they are.
    """
    allowed = "a real number in [0, 1]"
    if isinstance(alpha, bool) or alpha is None:
        raise InvalidParameter(name, alpha, allowed)
    if isinstance(alpha, str):
        try:
            A = sp.Rational(alpha.strip())
        except (TypeError, ValueError) as exc:
            raise InvalidParameter(name, alpha, allowed,
                                   hint="a string must be a decimal or p/q literal") from exc
    elif isinstance(alpha, MPF):
        if not mp.isfinite(alpha):
            raise InvalidParameter(name, alpha, allowed)
        man, exp = alpha.man_exp
        A = sp.Integer(man) * sp.Integer(2) ** exp
    elif isinstance(alpha, float):
        if math.isnan(alpha) or math.isinf(alpha):
            raise InvalidParameter(name, alpha, allowed)
        A = sp.Rational(alpha)
    elif isinstance(alpha, sp.Float):
        A = sp.Rational(alpha) if alpha.is_finite else alpha
    elif isinstance(alpha, (numbers.Integral, sp.Basic)) or isinstance(alpha, np.number):
        A = sp.sympify(alpha)
        if isinstance(A, sp.Float):
            return as_level(A, name)
    else:
        raise InvalidParameter(name, alpha, allowed)
    if A is sp.nan or not A.is_number or A.free_symbols:
        raise InvalidParameter(name, alpha, allowed,
                               hint="use f(alpha) for the symbolic value")
    if A.is_extended_real is False or A.is_finite is False:
        raise InvalidParameter(name, alpha, allowed)
    if (A < 0) == sp.true or (A > 1) == sp.true:
        raise InvalidParameter(name, alpha, allowed)
    return A


def _level_pair(A: sp.Expr):
    """(alpha, 1 - alpha) as mpf at the current precision, each with full relative accuracy."""
    if isinstance(A, sp.Rational):
        return num(A), num(1 - A)
    return num(A), num(sp.expand(1 - A))


def _check_unit(lo, hi, f, what):
    if mp.isnan(lo) or mp.isnan(hi):
        raise NumericalError(f"{what} of {f} produced NaN; raise dps or report the input")
    # The truth lies in [0, 1]: intersecting the enclosure with it keeps the guarantee.
    lo, hi = max(lo, mp.zero), min(hi, mp.one)
    if lo > hi:
        raise NumericalError(f"{what} of {f}: enclosure [{lo}, {hi}] left [0, 1]; "
                             "increase dps")
    return lo, hi


def _prepare(f: Any, dps: int) -> None:
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression (G(1), EpsDelta(1, 0), ...)")
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 1:
        raise InvalidParameter("dps", dps, "an integer >= 1")
    if f.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols",
                               hint=f"substitute values for {sorted(map(str, f.free_symbols))}"
                               " with f.subs(...)")


def evaluate(f: TradeOff, alpha: Any, dps: int = 30) -> Value:
    """f(alpha) as a :class:`Value` with ``dps`` correct digits or a guaranteed enclosure."""
    _prepare(f, dps)
    A = as_level(alpha)
    if isinstance(A, sp.Rational):
        q = exact_value(f, A, 1 - A)
        if q is not None:
            return Value.from_exact(q, dps)
    with mp.workdps(dps + GUARD_DPS):
        a, ac = _level_pair(A)
        lo, hi = _check_unit(*mp_value(f, a, ac), f, "evaluate")
        return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)


def roc(f: TradeOff, alpha: Any, dps: int = 30) -> Value:
    """The attacker's power 1 - f(alpha) (TPR at FPR alpha) without cancellation."""
    _prepare(f, dps)
    A = as_level(alpha)
    if isinstance(A, sp.Rational):
        q = exact_value(f, A, 1 - A)
        if q is not None:
            return Value.from_exact(1 - q, dps)
    with mp.workdps(dps + GUARD_DPS):
        a, ac = _level_pair(A)
        lo, hi = _check_unit(*mp_roc(f, a, ac), f, "roc")
        return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)


def curve(f: TradeOff, alphas: Any) -> np.ndarray:
    """f at each alpha in float64, vectorised (no SymPy in the loop)."""
    _prepare(f, 15)
    x = np.asarray(alphas, dtype=np.float64)
    bad = ~np.isfinite(x) | (x < 0) | (x > 1)
    if bad.any():
        raise InvalidParameter("alphas", x[bad][0], "real numbers in [0, 1]")
    y = np.asarray(np_value(f, x), dtype=np.float64)
    if np.isnan(y).any():
        raise NumericalError(f"curve of {f} produced NaN")
    return np.clip(y, 0.0, 1.0)
