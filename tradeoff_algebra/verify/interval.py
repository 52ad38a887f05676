"""Certified enclosures of scalar expressions, at a point or over a box of parameters.

A scalar side of a claim is a SymPy expression built from numbers, parameters, elementary
functions, Φ and Φ⁻¹, and functionals of trade-off expressions
(:class:`~tradeoff_algebra.analysis.lazy.Functional`, or a computed
:class:`~tradeoff_algebra.numeric.value.Value`). :func:`enclose` walks the tree with interval
arithmetic on mpf endpoints: each elementary operation is computed at the working precision and
its result widened outward by a few units in the last place (mpmath's operations are accurate to
within one), so the interval always contains the true value. Parameters may be intervals
(a box), which is how a strict inequality is proved over a whole parameter box
(:func:`prove_over_box`: subdivide until every sub-box decides).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..analysis.lazy import Functional
from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..core.normal import Phi, PhiInv
from ..numeric.context import mp
from ..numeric.value import Value

__all__ = ["Interval", "enclose", "Undecidable"]

Interval = tuple  # (lo, hi) of mpf


class Undecidable(Exception):
    """The expression cannot be enclosed here (an unsupported function, a functional whose
    parameters are intervals, a domain error); the verdict will be None."""


def _widen(lo, hi) -> Interval:
    """Outward by four ulps at the working precision (and never across a sign change that the
    exact operation cannot make: the caller clips where the function's range is known)."""
    lo = mp.mpf(lo)
    hi = mp.mpf(hi)
    if mp.isnan(lo) or mp.isnan(hi):
        raise Undecidable("NaN in interval arithmetic")
    e = mp.ldexp(1, -(mp.prec - 2))
    lo = lo - abs(lo) * e if mp.isfinite(lo) else lo
    hi = hi + abs(hi) * e if mp.isfinite(hi) else hi
    return lo, hi


def _exact(x: sp.Rational) -> Interval:
    if x.q == 1:
        v = mp.mpf(int(x.p))
        if v == int(x.p):
            return v, v
    return _widen(mp.mpf(int(x.p)) / int(x.q), mp.mpf(int(x.p)) / int(x.q))


def _value_interval(v: Value) -> Interval:
    """A Value's guaranteed interval (:meth:`Value.interval`; an exact one as its rational)."""
    if v.exact is not None:
        return _exact(sp.Rational(v.exact))
    return v.interval()


def _add(a: Interval, b: Interval) -> Interval:
    return _widen(a[0] + b[0], a[1] + b[1])


def _mul(a: Interval, b: Interval) -> Interval:
    ps = [x * y for x in a for y in b if not ((x == 0 and mp.isinf(y)) or (y == 0 and mp.isinf(x)))]
    if not ps:
        raise Undecidable("0 * oo")
    return _widen(min(ps), max(ps))


def _inv(a: Interval) -> Interval:
    if a[0] <= 0 <= a[1]:
        raise Undecidable("division by an interval containing 0")
    return _widen(1 / a[1], 1 / a[0])


def _monotone(fn, a: Interval, increasing: bool = True) -> Interval:
    lo, hi = fn(a[0]), fn(a[1])
    return _widen(lo, hi) if increasing else _widen(hi, lo)


def _pow(base: Interval, e: sp.Basic, env, dps) -> Interval:
    if isinstance(e, sp.Integer):
        n = int(e)
        if n == 0:
            return mp.mpf(1), mp.mpf(1)
        if n < 0:
            return _inv(_pow(base, sp.Integer(-n), env, dps))
        lo, hi = base
        if n % 2 == 1 or lo >= 0:
            return _widen(lo ** n, hi ** n)
        if hi <= 0:
            return _widen(hi ** n, lo ** n)
        return _widen(0, max(lo ** n, hi ** n))
    if e == sp.S.Half:
        if base[0] < 0:
            raise Undecidable("sqrt of a negative interval")
        return _monotone(mp.sqrt, base)
    # general exponent: exp(e log b), b > 0
    if base[0] <= 0:
        raise Undecidable("power of a non-positive base")
    lg = _monotone(mp.log, base)
    ex = _enclose(e, env, dps)
    return _monotone(mp.exp, _mul(lg, ex))


def _enclose(x: Any, env: Mapping, dps: int) -> Interval:
    if isinstance(x, Value):
        return _value_interval(x)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return _exact(sp.Rational(x))
    if not isinstance(x, sp.Basic):
        raise Undecidable(f"cannot enclose {type(x).__name__}")
    if isinstance(x, sp.Rational):
        return _exact(x)
    if isinstance(x, sp.Float):
        return _exact(sp.Rational(x))
    if isinstance(x, sp.Symbol):
        if x not in env:
            raise Undecidable(f"no value for {x}")
        return env[x]
    if x is sp.S.Infinity:
        return mp.inf, mp.inf
    if x is sp.S.NegativeInfinity:
        return -mp.inf, -mp.inf
    if x is sp.S.Pi:
        return _widen(mp.pi, mp.pi)
    if x is sp.S.Exp1:
        return _widen(mp.e, mp.e)
    if isinstance(x, Functional):
        if x.free_symbols:
            raise Undecidable(f"{x} with free parameters")
        try:
            return _value_interval(x.value(dps=dps))
        except (NoClosedForm, NumericalError, InvalidParameter) as exc:
            raise Undecidable(f"{x}: {exc}") from exc
    if isinstance(x, sp.Add):
        out = _enclose(x.args[0], env, dps)
        for a in x.args[1:]:
            out = _add(out, _enclose(a, env, dps))
        return out
    if isinstance(x, sp.Mul):
        out = _enclose(x.args[0], env, dps)
        for a in x.args[1:]:
            out = _mul(out, _enclose(a, env, dps))
        return out
    if isinstance(x, sp.Pow):
        return _pow(_enclose(x.base, env, dps), x.exp, env, dps)
    if len(x.args) == 1:
        a = _enclose(x.args[0], env, dps)
        if isinstance(x, sp.exp):
            return _monotone(mp.exp, a)
        if isinstance(x, sp.log):
            if a[0] <= 0:
                raise Undecidable("log of a non-positive interval")
            return _monotone(mp.log, a)
        if isinstance(x, Phi):
            lo, hi = _monotone(mp.ncdf, a)
            return max(lo, mp.zero), min(hi, mp.one)
        if isinstance(x, PhiInv):
            if a[0] < 0 or a[1] > 1:
                raise Undecidable("PhiInv outside [0, 1]")
            return _monotone(lambda t: -mp.inf if t == 0 else mp.inf if t == 1
                             else mp.sqrt(2) * mp.erfinv(2 * t - 1), a)
        if isinstance(x, sp.erf):
            return _monotone(mp.erf, a)
        if isinstance(x, sp.erfc):
            return _monotone(mp.erfc, a, increasing=False)
        if isinstance(x, sp.Abs):
            lo, hi = a
            if lo >= 0:
                return lo, hi
            if hi <= 0:
                return -hi, -lo
            return mp.zero, max(-lo, hi)
    if isinstance(x, (sp.Max, sp.Min)):
        parts = [_enclose(a, env, dps) for a in x.args]
        pick = max if isinstance(x, sp.Max) else min
        return pick(p[0] for p in parts), pick(p[1] for p in parts)
    raise Undecidable(f"no interval rule for {type(x).__name__}")


def enclose(x: Any, env: Mapping | None = None, dps: int = 30) -> Interval:
    """Enclosure ``(lo, hi)`` (mpf) of the scalar ``x`` with symbols set by ``env`` (a symbol
    to an interval of mpf, or to a number). Raises :class:`Undecidable` where it cannot."""
    env2 = {}
    for k, v in (env or {}).items():
        env2[k] = v if isinstance(v, tuple) else _enclose(sp.sympify(v), {}, dps)
    with mp.workdps(dps + 20):
        return _enclose(x, env2, dps)
