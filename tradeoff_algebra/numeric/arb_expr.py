"""Arb ball enclosures of SymPy scalar expressions: the certified evaluation of closed forms.

A closed form (``Phi(PhiInv(6/7) - 1)``, ``9/10 - E/7``, a privacy profile, a divergence) is
walked once with python-flint's ``arb`` balls: each operation is Arb's, whose result ball
contains the exact result for every point of the argument balls (Johansson, "Arb: efficient
arbitrary-precision midpoint-radius interval arithmetic", IEEE Trans. Comput. 66 (2017)), so the
final ball contains the exact value — the inclusion principle. Φ is ``erfc(-x/√2)/2`` and
Φ⁻¹(t) is ``-√2 erfcinv(2t)`` (``√2 erfcinv(2(1 - t))`` above 1/2, with ``1 - t`` formed exactly
for a rational t), both rigorous in Arb at every magnitude (Φ⁻¹(1e-300) included).

:func:`arb_enclose` gives the ball at one precision (symbols from balls in ``env``; leaves it
does not know go to the caller's ``leaf``); :func:`certify` raises the precision until the ball
proves the digits asked for and returns a certified :class:`~.value.Value`, or None when the
expression has a part it cannot enclose. :func:`ball_interval` converts a ball to mpf ends
rounded outward.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor, round_nearest

from ..core.normal import Phi, PhiInv
from .arb import arb_endpoint, arb_exact
from .context import MPF, arb_precision, mp
from .precision_loop import precision_loop
from .value import Value, dps_to_prec

__all__ = ["Unenclosable", "arb_ball", "arb_enclose", "certify", "ball_interval",
           "ball_from_interval", "ball_of_number", "ball_point", "interval", "closed_value",
           "enclose_interval"]


class Unenclosable(Exception):
    """The expression has a part that Arb cannot enclose here (an unknown function or leaf, a
    domain error such as the log of a ball that reaches 0, an infinite value)."""


def _flint():
    from flint import arb, fmpq

    return arb, fmpq


def arb_ball(x: sp.Expr):
    """An Arb ball containing the SymPy number x (at the current flint precision): exact for a
    rational, otherwise the Arb enclosure of its closed form, never a decimal evaluation widened
    by hand. Raises ValueError where Arb cannot enclose it."""
    from flint import ctx

    if isinstance(x, (sp.Integer, sp.Rational)):
        return ball_of_number(x)
    try:
        return arb_enclose(sp.sympify(x), prec=ctx.prec)
    except Unenclosable as exc:
        raise ValueError(f"no Arb enclosure of {x}: {exc}") from exc


def ball_of_number(x: sp.Basic):
    """The exact SymPy number ``x`` (Integer, Rational or Float) as an Arb ball at the current
    precision (a Float is the binary rational it holds)."""
    arb, fmpq = _flint()
    if isinstance(x, sp.Integer):
        return arb(int(x))
    if isinstance(x, sp.Float):
        x = sp.Rational(x)
    return arb(fmpq(int(x.p), int(x.q)))


def ball_from_interval(lo: MPF, hi: MPF):
    """The ball holding [lo, hi] (finite mpf ends, exactly converted)."""

    if not (mp.isfinite(lo) and mp.isfinite(hi)):
        raise Unenclosable("an infinite end")
    a, b = arb_exact(mp.mpf(lo)), arb_exact(mp.mpf(hi))
    return a if lo == hi else a.union(b)


def ball_interval(ball, prec: int) -> tuple[MPF, MPF]:
    """``(lo, hi)`` as mpf containing the ball, its ends rounded outward to ``prec`` bits."""
    if not ball.is_finite():
        raise Unenclosable("the ball is not finite")
    with arb_precision(prec), mp.workprec(prec):
        return arb_endpoint(ball.lower(), round_floor), arb_endpoint(ball.upper(), round_ceiling)


def _phi(x):
    arb, _ = _flint()
    return (-x / arb(2).sqrt()).erfc() / 2


def _phi_inv_low(t):
    """Φ⁻¹(t) = -√2 erfcinv(2t) for a ball 0 < t <= 1/2 (Arb's ``erfcinv`` is tight at every
    magnitude: Φ⁻¹(1e-100000) to the working precision)."""
    arb, _ = _flint()
    return -arb(2).sqrt() * (2 * t).erfcinv()


def _phi_inv(t, exact: sp.Rational | None):
    """Φ⁻¹ of the ball t in (0, 1); ``exact`` is t's rational when it has one (then the branch
    is chosen on it and 1 - t is formed exactly: Φ⁻¹(1 - 1e-300) keeps its digits)."""
    arb, fmpq = _flint()
    if exact is not None:
        if not 0 < exact < 1:
            raise Unenclosable("PhiInv outside (0, 1) is not finite")
        if exact <= sp.S.Half:
            return _phi_inv_low(t)
        c = 1 - exact
        return -_phi_inv_low(arb(fmpq(int(c.p), int(c.q))))
    if t.lower() <= 0 or t.upper() >= 1:
        raise Unenclosable("PhiInv of a ball that reaches 0 or 1")
    if t.upper() <= arb(1) / 2:
        return _phi_inv_low(t)
    return -_phi_inv_low(1 - t) if t.lower() >= arb(1) / 2 else _phi_inv_low(t)


def _check(ball, what: str):
    if not ball.is_finite():
        raise Unenclosable(f"{what}: not a finite ball")
    return ball


class _I:
    """An interval whose ends are Arb balls: the value lies in [lo.lower(), hi.upper()].

    Midpoint-radius balls lose tightness on wide arguments (the ball [-3, -1] squared is
    [-1, 9]); interval arithmetic on ball ends keeps the classic endpoint rules and takes
    rigour from Arb at each end. A point (``lo is hi``) is computed once."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        self.lo, self.hi = lo, (lo if hi is None else hi)

    @property
    def point(self) -> bool:
        return self.lo is self.hi

    def map(self, fn, increasing: bool = True) -> _I:
        if self.point:
            return _I(fn(self.lo))
        a, b = fn(self.lo), fn(self.hi)
        return _I(a, b) if increasing else _I(b, a)

    def low(self):
        return self.lo.lower()

    def high(self):
        return self.hi.upper()

    def ball(self):
        return self.lo if self.point else self.lo.union(self.hi)


def _max_ball(balls, pick_max: bool):
    arb, _ = _flint()
    out = balls[0]
    for b in balls[1:]:
        out = arb.max(out, b) if pick_max else arb.min(out, b)
    return out


def _mul(a: _I, b: _I) -> _I:
    if a.point and b.point:
        return _I(a.lo * b.lo)
    ps = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return _I(_max_ball(ps, False), _max_ball(ps, True))


def _ipow(x: _I, n: int) -> _I:
    """x**n for an integer n >= 1 (python-flint's ``**`` is the real power, NaN below 0)."""
    def pw(ball):
        base, out = ball, None
        k = n
        while k:
            if k & 1:
                out = base if out is None else out * base
            k >>= 1
            if k:
                base = base * base
        return out

    if x.point:
        return _I(pw(x.lo))
    if n % 2 == 1 or x.low() >= 0:
        return x.map(pw)
    if x.high() <= 0:
        return x.map(pw, increasing=False)
    arb, _ = _flint()
    return _I(arb(0), _max_ball([pw(x.lo), pw(x.hi)], True))


def _phi_inv_i(x: _I, exact) -> _I:
    return x.map(lambda t: _phi_inv(t, exact if x.point else None))


#: Increasing (or decreasing) elementary functions with their Arb methods.
_MONOTONE = ((sp.tanh, "tanh", True), (sp.sinh, "sinh", True), (sp.atan, "atan", True),
             (sp.asinh, "asinh", True))


#: Most terms of a finite ``Sum`` that :func:`arb_enclose` adds term by term.
MAX_SUM_TERMS = 100_000


def _flint_fmpz():
    from flint import fmpz

    return fmpz


def _exact_integer(v: _I) -> int | None:
    """The integer a point interval holds exactly, else None."""
    if not v.point or not v.lo.is_exact():
        return None
    z = v.lo.unique_fmpz()
    return None if z is None else int(z)


def _sum(x: sp.Sum, env: Mapping, leaf: Callable | None) -> _I:
    """A finite ``Sum(term, (k, a, b))`` with integer limits, term by term with ``k`` bound to
    each integer (the summand is walked, never substituted: no SymPy in the loop)."""
    arb, _ = _flint()
    if len(x.limits) != 1:
        raise Unenclosable("a sum over more than one index")
    k, a, b = x.limits[0]
    lo, hi = (_exact_integer(_walk(t, env, leaf)) for t in (a, b))
    if lo is None or hi is None:
        raise Unenclosable("a sum whose limits are not integers")
    if hi - lo + 1 > MAX_SUM_TERMS:
        raise Unenclosable(f"a sum of {hi - lo + 1} terms (at most {MAX_SUM_TERMS})")
    out = _I(arb(0))
    for i in range(lo, hi + 1):
        t = _walk(x.function, {**env, k: _I(arb(i))}, leaf)
        out = _I(out.lo + t.lo) if out.point and t.point else _I(out.lo + t.lo, out.hi + t.hi)
    return out


def _walk(x: Any, env: Mapping, leaf: Callable | None) -> _I:
    arb, _ = _flint()
    if isinstance(x, (sp.Integer, sp.Rational, sp.Float)):
        if isinstance(x, sp.Float) and not x.is_finite:
            raise Unenclosable("an infinite or NaN Float")
        return _I(ball_of_number(x))
    if isinstance(x, sp.Symbol):
        if x not in env:
            raise Unenclosable(f"no value for {x}")
        v = env[x]
        return v if isinstance(v, _I) else _I(v)
    if x is sp.S.Pi:
        return _I(arb.pi())
    if x is sp.S.Exp1:
        return _I(arb(1).exp())
    if x in (sp.S.Infinity, sp.S.NegativeInfinity, sp.S.ComplexInfinity, sp.S.NaN):
        raise Unenclosable(f"{x} is not a finite number")
    if leaf is not None:
        b = leaf(x)
        if b is not None:
            return b if isinstance(b, _I) else _I(b)
    if not isinstance(x, sp.Basic):
        raise Unenclosable(f"cannot enclose {type(x).__name__}")
    if isinstance(x, sp.Add):
        out = _walk(x.args[0], env, leaf)
        for a in x.args[1:]:
            b = _walk(a, env, leaf)
            out = _I(out.lo + b.lo) if out.point and b.point else _I(out.lo + b.lo,
                                                                     out.hi + b.hi)
        return out
    if isinstance(x, sp.Mul):
        out = _walk(x.args[0], env, leaf)
        for a in x.args[1:]:
            out = _mul(out, _walk(a, env, leaf))
        return out
    if isinstance(x, sp.Sum):
        return _sum(x, env, leaf)
    if isinstance(x, sp.binomial):
        n, k = (_exact_integer(_walk(a, env, leaf)) for a in x.args)
        if n is None or k is None or n < 0:
            raise Unenclosable("a binomial coefficient of other than non-negative integers")
        return _I(arb(_flint_fmpz().bin_uiui(n, k) if 0 <= k <= n else 0))
    if isinstance(x, sp.Pow):
        base = _walk(x.base, env, leaf)
        e = x.exp
        n = int(e) if isinstance(e, sp.Integer) else (
            _exact_integer(_walk(e, env, leaf)) if e.free_symbols else None)
        if n is not None:
            if n == 0:
                return _I(arb(1))
            p = _ipow(base, abs(n))
            if n > 0:
                return p
            if p.low() <= 0 <= p.high():
                raise Unenclosable("a negative power of an interval containing 0")
            return p.map(lambda t: 1 / t, increasing=False)
        if base.low() <= 0:
            if e == sp.S.Half and base.point and base.lo.is_exact() and base.lo.mid() == 0:
                return _I(arb(0))
            raise Unenclosable("a fractional power of an interval that reaches 0 or below")
        if e == sp.S.Half:
            return base.map(lambda t: t.sqrt())
        lg = base.map(lambda t: t.log())
        return _mul(lg, _walk(e, env, leaf)).map(lambda t: t.exp())
    if isinstance(x, (sp.Max, sp.Min)):
        parts = [_walk(a, env, leaf) for a in x.args]
        big = isinstance(x, sp.Max)
        return _I(_max_ball([p.lo for p in parts], big), _max_ball([p.hi for p in parts], big))
    if len(x.args) == 1 and isinstance(x, sp.Function):
        a = _walk(x.args[0], env, leaf)
        if isinstance(x, sp.exp):
            return a.map(lambda t: t.exp())
        if isinstance(x, sp.log):
            if a.low() <= 0:
                raise Unenclosable("log of an interval that reaches 0 or below")
            return a.map(lambda t: t.log())
        if isinstance(x, Phi):
            return a.map(_phi)
        if isinstance(x, PhiInv):
            arg = x.args[0]
            return _phi_inv_i(a, arg if isinstance(arg, sp.Rational) else None)
        if isinstance(x, sp.erf):
            return a.map(lambda t: t.erf())
        if isinstance(x, sp.erfc):
            return a.map(lambda t: t.erfc(), increasing=False)
        for fn, method, up in _MONOTONE:
            if isinstance(x, fn):
                return a.map(lambda t, m=method: getattr(t, m)(), increasing=up)
        if isinstance(x, sp.Abs):
            if a.low() >= 0:
                return a
            if a.high() <= 0:
                return a.map(lambda t: -t, increasing=False)
            return _I(arb(0), _max_ball([abs(a.lo), abs(a.hi)], True))
    own = getattr(x, "_arb_ball", None)  # a function that encloses itself (its own series)
    if callable(own):
        b = own()
        if b is not None:
            return _I(b)
    raise Unenclosable(f"no ball rule for {type(x).__name__}")


def arb_enclose(x: Any, env: Mapping | None = None, prec: int = 128,
                leaf: Callable | None = None):
    """An Arb ball containing the real SymPy expression ``x`` at ``prec`` bits.

    ``env`` maps symbols to balls (or to :func:`interval` ends); ``leaf(node)`` may return a
    ball for a node this module does not know (a functional, a computed value), or None.
    Arguments wider than a point are carried as intervals with ball ends (monotone functions
    at their ends), so a wide box stays tight. Raises :class:`Unenclosable`."""
    with arb_precision(prec):
        out = _walk(x, env or {}, leaf)
        ball = out.ball()
        if not ball.is_finite():
            raise Unenclosable("the closed form is not a finite ball")
        return ball


def enclose_interval(x: Any, env: Mapping | None = None, prec: int = 128,
                     leaf: Callable | None = None) -> tuple[MPF, MPF]:
    """``(lo, hi)`` (mpf, rounded outward to ``prec`` bits) containing the real SymPy
    expression ``x``: :func:`arb_enclose` without joining the ends into one ball (a ball's
    radius holds 30 bits, so the union of two far ends would lose digits)."""
    with arb_precision(prec), mp.workprec(prec):
        out = _walk(x, env or {}, leaf)
        lo, hi = out.lo.lower(), out.hi.upper()  # rounded outward at this precision
        if not (lo.is_finite() and hi.is_finite()):
            raise Unenclosable("the closed form is not a finite ball")
        return arb_endpoint(lo, round_floor), arb_endpoint(hi, round_ceiling)


def interval(lo_ball, hi_ball) -> _I:
    """The interval [lo_ball.lower(), hi_ball.upper()] as an ``env`` entry of
    :func:`arb_enclose`."""
    return _I(lo_ball, hi_ball)


#: The most bits :func:`certify` tries before it gives up on a closed form.
MAX_CERTIFY_BITS = 1 << 15


def ball_point(make_ball: Callable, dps: int, max_bits: int = MAX_CERTIFY_BITS,
               unit: bool = False, exact_zero: bool = False) -> Value | None:
    """The Arb routes' use of the one precision loop (:func:`.precision_loop.precision_loop`):
    ``make_ball(prec)`` at rising precision (the digits asked for plus guard bits, doubling
    while the ball is wider than ``2^-(prec(dps) + 8)`` relative: Ziv's strategy, with the
    ball, not a second evaluation, deciding) as a certified point Value, or None where
    ``make_ball`` gives None or the precision passes ``max_bits``. A ball that is not finite
    is tried again at more bits.
    ``unit``: the truth lies in [0, 1] (the midpoint is moved there, within the radius).
    An exact zero ball is the certified point 0 (``exact_zero``: the exact Value 0)."""
    need = dps_to_prec(dps) + 8

    def done(r, prev) -> bool:
        ball = r[0]
        return ball is None or (ball.is_exact() and ball.mid() == 0) or \
            (ball.is_finite() and ball.rel_accuracy_bits() >= need)

    ball, prec = precision_loop(lambda prec: (make_ball(prec), prec), need + 32, done=done,
                                cap=max_bits, give_up=lambda r, prev, prec: (None, prec),
                                check=False)
    if ball is None:
        return None
    if ball.is_exact() and ball.mid() == 0:
        return (Value.from_exact(sp.Integer(0), dps) if exact_zero
                else Value.point(mp.zero, dps, guarantee="certified"))
    with mp.workprec(prec):
        m = arb_endpoint(ball.mid(), round_nearest)
    if unit:
        m = min(max(m, mp.zero), mp.one)
    return Value.point(m, dps, guarantee="certified")


def certify(x: sp.Basic, dps: int, leaf: Callable | None = None,
            max_bits: int = MAX_CERTIFY_BITS) -> Value | None:
    """The closed form ``x`` (no free symbols) as a certified point Value with ``dps`` digits,
    or None where it has a part Arb cannot enclose or cancels beyond ``max_bits``
    (:func:`ball_point`)."""
    if isinstance(x, sp.Basic) and x.free_symbols:
        return None

    def make_ball(prec):
        try:
            return arb_enclose(x, prec=prec, leaf=leaf)
        except Unenclosable:
            return None

    return ball_point(make_ball, dps, max_bits)


def closed_value(x: sp.Basic, dps: int) -> Value | None:
    """The parameter-free closed form ``x`` as a Value that says what it is: exact for a
    rational, certified for ``oo`` and for what :func:`certify` encloses, None otherwise (the
    caller's estimate route)."""
    if isinstance(x, sp.Rational):
        return Value.from_exact(x, dps)
    if x is sp.S.Infinity or x is sp.S.NegativeInfinity:
        inf = mp.inf if x is sp.S.Infinity else mp.ninf
        return Value(inf, inf, inf, dps, guarantee="certified")
    return certify(x, dps)

