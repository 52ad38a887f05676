"""The shared base of the references: exact and mpf numbers, the reference budget and
strictness (:class:`ref_context`), and :class:`Ref`, bounds ``L <= f(alpha) <= U`` of a trade-off
function computed without the library.

Nothing in ``tests/references`` imports ``tradeoff_algebra``: every value comes from the
distributions themselves (Neyman--Pearson on a pair, exact sums, quadrature), in mpmath's
global context (set it with ``ref_context`` or ``precision.workdps``).
"""

from __future__ import annotations

import signal
import threading
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import reference_np as rnp
import sympy as sp
from mpmath import mp

R = sp.Rational
F0, F1 = Fraction(0), Fraction(1)


class HugeExponent(ValueError):
    """An mpf too far from 1 (|binary exponent| > MAX_EXACT_EXP) to compare as a Fraction:
    values like delta(G(1e-85), 1) = 10^(-10^169) are legitimate. Such comparisons are skipped
    (counted as ``huge_exponent``)."""


MAX_EXACT_EXP = 200_000


def to_frac(x) -> Fraction:
    """Exact Fraction of an mpf / int / Fraction / SymPy Rational / float."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise TypeError(x)
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"not finite: {x}")
        man, exp = x.man_exp  # (|mantissa|, exponent): the sign is separate
        if x < 0:
            man = -man
        if abs(exp) > MAX_EXACT_EXP:
            raise HugeExponent(f"2^{exp}")
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, float):
        return Fraction(x)
    if isinstance(x, sp.Float):
        return to_frac(sp.Rational(x))
    raise TypeError(f"cannot convert {type(x).__name__} to Fraction")


def to_m(x):
    """mpf at the current precision."""
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, Fraction):
        return mp.mpf(x.numerator) / x.denominator
    if isinstance(x, int):
        return mp.mpf(x)
    if isinstance(x, sp.Rational):
        return mp.mpf(int(x.p)) / int(x.q)
    return mp.mpf(x)


def lev(a):
    """(alpha, 1 - alpha) as mpf, the complement exact for rational alpha."""
    if isinstance(a, mpmath.mpf):
        return a, 1 - a
    return rnp.level(to_frac(a))



@dataclass(frozen=True)
class Num:
    """A numeric parameter: ``value`` for the library, ``src`` for the reproducer, ``frac`` its
    exact value (None for sp.log(r)), ``expfrac`` e^value exactly when value = log(r)."""

    value: Any
    src: str
    frac: Fraction | None
    expfrac: Fraction | None = None

    def m(self):
        if self.frac is not None:
            return to_m(self.frac)
        return mpmath.log(to_m(self.expfrac))

    def exp_exact(self) -> Fraction | None:
        if self.expfrac is not None:
            return self.expfrac
        if self.frac == 0:
            return F1
        return None

    def exp_m(self):
        e = self.exp_exact()
        return to_m(e) if e is not None else mpmath.exp(self.m())

    def expm1_m(self):
        e = self.exp_exact()
        return to_m(e - 1) if e is not None else mpmath.expm1(self.m())

    def __repr__(self):
        return self.src


def n_int(k: int) -> Num:
    return Num(k, str(k), Fraction(k))


def n_rat(p: int, q: int) -> Num:
    fr = Fraction(p, q)
    if fr.denominator == 1:
        return n_int(fr.numerator)
    return Num(R(fr.numerator, fr.denominator), f"R({fr.numerator}, {fr.denominator})", fr)


def n_frac(fr: Fraction) -> Num:
    return n_rat(fr.numerator, fr.denominator)


def n_float(x: float) -> Num:
    x = float(x)
    return Num(x, repr(x), Fraction(x))


def n_log(r: Fraction) -> Num:
    if r == 1:
        return n_int(0)
    src = f"sp.log({r.numerator})" if r.denominator == 1 else \
        f"sp.log(R({r.numerator}, {r.denominator}))"
    return Num(sp.log(R(r.numerator, r.denominator)), src, None, r)



def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class RefTimeout(Exception):
    pass


class RefUnavailable(Exception):
    pass


_REF = threading.local()


def _tick():
    dl = getattr(_REF, "deadline", None)
    if dl is not None and time.perf_counter() > dl:
        raise RefTimeout()


def strict() -> bool:
    return getattr(_REF, "strict", False)


class RefHardTimeout(BaseException):
    """The hard alarm of a reference computation that does not reach a cooperative tick in time
    (a long SymPy or mpmath step): a BaseException, so no ``except Exception`` swallows it."""


def _ref_alarm(signum, frame):
    raise RefHardTimeout()


#: The hard alarm of the outermost reference context fires this long after its budget, and
#: at the latest after REF_HARD_CAP s: a point's three reference attempts (the second and
#: third re-verifications) stay within the 180 s after which the parent kills a tree.
REF_HARD_EXTRA = 30.0
REF_HARD_CAP = 50.0


class ref_context:
    """Precision, time budget and strictness (re-verification) for reference computations.

    The budget is cooperative (:func:`_tick`); the outermost context in the main thread also
    arms a hard alarm ``REF_HARD_EXTRA`` s later, so that a reference stuck between ticks ends
    as a reference timeout instead of stalling its tree until the parent kills it."""

    def __init__(self, dps: int, seconds: float | None, strict_: bool = False):
        self.dps, self.seconds, self.strict = dps, seconds, strict_

    def __enter__(self):
        self._old = (getattr(_REF, "deadline", None), getattr(_REF, "strict", False))
        _REF.deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        _REF.strict = self.strict
        self._alarm = (self.seconds is not None and not getattr(_REF, "armed", False)
                       and _in_main_thread() and signal.getitimer(signal.ITIMER_REAL)[0] == 0)
        if self._alarm:
            self._old_handler = signal.signal(signal.SIGALRM, _ref_alarm)
            signal.setitimer(signal.ITIMER_REAL,
                             min(self.seconds + REF_HARD_EXTRA, REF_HARD_CAP))
            _REF.armed = True
        self._wd = mp.workdps(self.dps)
        self._wd.__enter__()
        return self

    def __exit__(self, *exc):
        self._wd.__exit__(*exc)
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler)
            _REF.armed = False
        _REF.deadline, _REF.strict = self._old
        return False


class Ref:
    """Bounds L <= f(alpha) <= U of the true trade-off function.

    ``val(a, ac, side)``: the lower (side 0) or upper (side 1) bound at mpf alpha (with its
    complement). ``bounds(A)`` at a rational level: Fractions when exact, else mpf.
    """

    kind = "func"
    sym = False
    point = True
    exact = False
    slack = F0
    label = ""
    native_roc = False  # roc_val computed without cancellation (else: absolute tolerance)

    def val(self, a, ac, side):
        raise NotImplementedError

    def roc_val(self, a, ac, side):
        """Bound of 1 - f (side 0 lower, 1 upper); default by subtraction."""
        return 1 - self.val(a, ac, 1 - side)

    def bounds(self, A: Fraction):
        a, ac = lev(A)
        return self.val(a, ac, 0), self.val(a, ac, 1)

    def roc_bounds(self, A: Fraction):
        a, ac = lev(A)
        return self.roc_val(a, ac, 0), self.roc_val(a, ac, 1)

    def delta_bounds(self, eps):
        """(L, U) of delta(eps) for mpf eps, or None."""
        return None

    def fn(self, side=0):
        return lambda t: self.val(to_m(t), 1 - to_m(t), side)

    def __repr__(self):
        return self.label or type(self).__name__


def arb_frac(x) -> Fraction:
    """An exact arb (a ball's midpoint, radius or end) as a Fraction."""
    m, e = x.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def arb_ends(v) -> tuple[Fraction, Fraction]:
    """The exact ends of an Arb ball, as Fractions."""
    mid, rad = arb_frac(v.mid()), arb_frac(v.rad())
    return mid - rad, mid + rad


def mpf_frac(x) -> Fraction:
    """An mpf of any mpmath context as the exact Fraction of its binary value."""
    m, e = x.man_exp  # (|mantissa|, exponent): the sign is separate
    return (-1 if x < 0 else 1) * Fraction(int(m)) * Fraction(2) ** int(e)



def mp60(x):
    """x (a SymPy number, or a float / Fraction read as the rational it is near) as a 60-digit
    mpf."""
    x = sp.nsimplify(x) if not isinstance(x, sp.Basic) else x
    return mpmath.mpf(sp.N(x, 60))


def ask(fn, *args, tol=None, limit=None, **kw):
    """fn(*args) with its warnings, under pld_options(tol) and time_limit(limit): (value,
    the warnings' categories)."""
    import tradeoff_algebra as ta  # (the references load without the library elsewhere)

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with ta.time_limit(limit), ta.pld_options(tol=tol):
            v = fn(*args, **kw)
    return v, [w.category for w in ws]
