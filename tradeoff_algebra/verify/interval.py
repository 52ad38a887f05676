"""Certified enclosures of scalar expressions, at a point or over a box of parameters.

A scalar side of a claim is a SymPy expression built from numbers, parameters, elementary
functions, Φ and Φ⁻¹, and functionals of trade-off expressions
(:class:`~tradeoff_algebra.analysis.lazy.Functional`, or a computed
:class:`~tradeoff_algebra.numeric.value.Value`). :func:`enclose` walks the tree with Arb ball
arithmetic (:mod:`tradeoff_algebra.numeric.arb_expr`: python-flint, rigorous at every magnitude,
Φ⁻¹ by ``erfcinv``), so the interval always contains the true value. Parameters may be
intervals (a box), which is how a strict inequality is proved over a whole parameter box
(:func:`~.box.prove_nonneg`: subdivide until every sub-box decides).

Only exact and certified numbers enter: a Value or functional whose guarantee is an estimate
makes the expression :class:`Undecidable` (an estimate never decides a verdict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..analysis.lazy import Functional
from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..numeric.arb import arb_exact
from ..numeric.arb_expr import Unenclosable, ball_of_number, enclose_interval, interval
from ..numeric.context import mp
from ..numeric.value import Value, dps_to_prec

__all__ = ["Interval", "enclose", "Undecidable", "EstimateOnly", "functional_value"]

Interval = tuple  # (lo, hi) of mpf

#: The expression cannot be enclosed here (an unsupported function, a functional whose
#: parameters are intervals, an estimate, a domain error); the verdict will be None.
Undecidable = Unenclosable


class EstimateOnly(Undecidable):
    """A side's route gives an estimate where a certified value was needed: the routes that
    need values of that side at many points stop at once (each estimate may take seconds)."""


def _value_interval(v: Value) -> Interval:
    """A Value's guaranteed interval (:meth:`Value.interval`), refused for an estimate."""
    if not v.is_certain:
        raise EstimateOnly(f"{v} is an estimate (no certified enclosure): it cannot decide")
    return v.interval()


#: The values of parameter-free functionals computed recently, by (functional, dps): a claim
#: asks for the same value first exactly (``api._exactify``) and then as an enclosure.
_VALUES: dict = {}


def functional_value(x: Functional, dps: int) -> Value:
    """``x.value(dps=dps)``, remembered for the next calls with the same arguments."""
    key = (x, dps)
    v = _VALUES.get(key)
    if v is None:
        v = x.value(dps=dps)
        if len(_VALUES) >= 64:
            try:  # (another thread may be changing it: the memo is only a shortcut)
                _VALUES.pop(next(iter(_VALUES)), None)
            except (StopIteration, RuntimeError):
                pass
        _VALUES[key] = v
    return v


def _leaf_interval(x: Any, dps: int) -> Interval | None:
    """The interval of a Value or a parameter-free functional (possibly infinite), else None."""
    if isinstance(x, Value):
        return _value_interval(x)
    if isinstance(x, Functional):
        if x.free_symbols:
            raise Undecidable(f"{x} with free parameters")
        try:
            return _value_interval(functional_value(x, dps))
        except (NoClosedForm, InvalidParameter) as exc:
            raise Undecidable(f"{x}: {exc}") from exc
        except NumericalError as exc:
            if isinstance(exc, Undecidable):
                raise
            raise Undecidable(f"{x}: {exc}") from exc
    return None


def _ends(lo, hi):
    """[lo, hi] (finite mpf) as an interval with exact ball ends."""
    if not (mp.isfinite(lo) and mp.isfinite(hi)):
        raise Undecidable("an infinite value inside arithmetic")
    return interval(arb_exact(mp.mpf(lo)), arb_exact(mp.mpf(hi)))


def enclose(x: Any, env: Mapping | None = None, dps: int = 30) -> Interval:
    """Enclosure ``(lo, hi)`` (mpf) of the scalar ``x`` with symbols set by ``env`` (a symbol
    to an interval ``(lo, hi)`` of mpf, or to a number). Raises :class:`Undecidable` where it
    cannot: an infinite value is enclosed only as the whole side (``oo``, a Value or functional
    that is +oo), never inside arithmetic."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        # (exact: sp.Rational(float) rounds at mpmath's global precision)
        x = sp.Rational(*x.as_integer_ratio())
    if isinstance(x, float) or x is None or isinstance(x, bool):
        raise Undecidable(f"cannot enclose {x!r}")
    if x is sp.S.Infinity:
        return mp.inf, mp.inf
    if x is sp.S.NegativeInfinity:
        return -mp.inf, -mp.inf
    if x is sp.S.NaN:
        raise Undecidable("NaN")
    prec = dps_to_prec(dps + 20)
    with mp.workprec(prec):
        whole = _leaf_interval(x, dps)
        if whole is not None:
            return whole
        balls = {}
        from ..numeric.context import arb_precision

        with arb_precision(prec):
            for k, v in (env or {}).items():
                if isinstance(v, tuple):
                    balls[k] = _ends(*v)
                else:
                    v = sp.sympify(v)
                    if not v.is_Rational and not isinstance(v, sp.Float):
                        raise Undecidable(f"the value {v} of {k} is not a number")
                    balls[k] = ball_of_number(v)

        def leaf(node):
            iv = _leaf_interval(node, dps)
            return None if iv is None else _ends(*iv)

        return enclose_interval(x, balls, prec, leaf)
