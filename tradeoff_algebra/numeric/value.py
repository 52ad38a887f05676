"""The :class:`Value` type: a number with its guarantee.

See docs/architecture.md, "Evaluation contract".

A value is either exact (``exact`` holds the SymPy rational, ``lo == hi == mid``), a closed form
at the requested digits (``lo == hi == mid``), or an enclosure ``lo <= truth <= hi``.

Every value states its **guarantee** (:data:`GUARANTEES`, strongest first):

``"exact"``
    a rational computed exactly (``exact`` holds it);
``"certified"``
    proved by exact or Arb ball arithmetic (python-flint, directed rounding): an enclosure holds
    the truth, a point carries every one of its ``dps`` digits (it lies within
    ``10^(1 - dps)`` relative of the truth, :meth:`Value.interval`);
``"estimate"``
    anything else: mpmath evaluations confirmed by a second precision (mpmath gives no error
    bound), float64 paths and float error models, quadrature without an error bound. An
    estimate is never used as a certificate (``verify`` refuses it) and says so when shown.

A value built from others carries the weakest of their guarantees (:func:`weakest`).

As a number (each rule keeps the guarantee honest):

* **arithmetic** ``v + 1``, ``1 - v``, ``v * w``, ``v / w``, ``-v``, ``abs(v)``, ``v ** 2``,
  ``v.exp()``, ``v.log()``, ``v.sqrt()`` (:mod:`.value_arith`): exact operands give an exact
  result; otherwise Arb ball arithmetic on the guaranteed intervals (:meth:`Value.interval`),
  ends rounded outward, the weakest guarantee of the operands;
* **comparisons** ``v < x`` are True only when the whole guaranteed interval is below ``x``,
  False only when none of it is, and raise :class:`NumericalError` otherwise (never a guess);
  ``==`` compares the stored fields (two equal enclosures), not numbers;
* **format** ``f"{v:.3g}"`` (:mod:`.value_format`): one number when every point of the
  guaranteed interval rounds to it (the truth correctly rounded), else the interval rounded
  outward; ``str`` shows the digits that tell an enclosure's ends apart, ``text(n)`` ``n``
  digits of each end; ``latex()``, ``_repr_latex_`` and ``_repr_html_`` for Jupyter;
* **SymPy** ``sympify(v)`` is the exact rational of an exact value and is refused for any other
  (a claim would otherwise rest on digits the value does not guarantee).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace

import mpmath
import sympy as sp
from mpmath.libmp import (
    finf,
    fnan,
    fninf,
    from_rational,
    mpf_pos,
    round_ceiling,
    round_floor,
    round_nearest,
    to_rational,
)

from ..core.errors import InvalidParameter, brief
from ..core.validate import choice, param
from . import value_arith, value_format
from .context import MPF, mp

__all__ = ["Value", "dps_to_prec", "GUARANTEES", "weakest", "CertifiedPair"]

#: The guarantees a Value can state, strongest first.
GUARANTEES = ("exact", "certified", "estimate")


class CertifiedPair(tuple):
    """``(lo, hi)`` that exact or Arb ball arithmetic proved to hold the truth (``lo == hi``: a
    point correct to the working precision): how a numeric route says so to
    :func:`~.protocol.certified`. A plain tuple is an estimate, so a route that
    combines its children's pairs by mpmath arithmetic gives an estimate without saying so."""

    def __new__(cls, lo, hi):
        return super().__new__(cls, (lo, hi))


def weakest(*guarantees: str) -> str:
    """The weakest of ``guarantees`` (what a value computed from them can claim)."""
    return max(guarantees, key=GUARANTEES.index, default="exact")


def dps_to_prec(dps: int) -> int:
    """Binary precision that holds ``dps`` decimal digits."""
    return int(dps * 3.3219280948873626) + 4


def _round(x: MPF, prec: int, rnd, name: str = "x", owner: str = "Value") -> MPF:
    """``x`` rounded to ``prec`` bits in direction ``rnd``, whatever the ambient mpmath context.

    (``mpmath.mpf(...)`` would round a second time, to the context's precision.) A number
    that is not an mpf is read by the validator (NaN, booleans, strings and complex numbers
    raise :class:`InvalidParameter` naming ``name``) and rounded from its exact rational.
    """
    if not isinstance(x, MPF):
        r = param(name, x, numeric=True, allow_infinite=True, owner=owner)
        if r.is_infinite:
            return mpmath.mp.make_mpf(finf if r > 0 else fninf)
        if not r.is_Rational:
            raise InvalidParameter(name, x, "an mpf or a rational number", owner,
                                   "Evaluate an irrational number to an mpf first")
        return mpmath.mp.make_mpf(from_rational(int(r.p), int(r.q), prec, rnd))
    return mpmath.mp.make_mpf(mpf_pos(x._mpf_, prec, rnd))  # the public class; no rounding


#: Most digits a Value holds (computations ask for at most ``protocol.MAX_DPS`` = 10^4; a
#: Value of 2^64 digits could not be printed).
MAX_VALUE_DPS = 100_000


def _check_dps(dps, owner: str) -> int:
    """A Value's digits: an integer in [1, MAX_VALUE_DPS] (checked before ``dps_to_prec``)."""
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) \
            or not 1 <= dps <= MAX_VALUE_DPS:
        raise InvalidParameter("dps", dps, f"an integer in [1, {MAX_VALUE_DPS}]", owner)
    return int(dps)


def _as_rational(x) -> sp.Rational:
    """The exact rational value of an mpf."""
    return sp.Rational(*to_rational(x._mpf_))


@dataclass(frozen=True)
class Value:
    """A real number with its guarantee: ``lo <= truth <= hi``; ``mid`` is the best estimate.

    ``exact`` is the exact SymPy number when the objects are finite (rational arithmetic),
    otherwise ``None``. ``dps`` is the number of significant digits asked for. ``guarantee``
    is ``"exact"``, ``"certified"`` or ``"estimate"`` (module docstring); a value that does not
    say is an estimate.
    """

    lo: MPF
    hi: MPF
    mid: MPF
    dps: int
    exact: sp.Rational | None = None
    guarantee: str = "estimate"
    #: Which route computed the value (``core.trace``; e.g. "privacy-loss distribution",
    #: "certified Laplace inversion", "Arb ball of the closed form"); "" when not recorded.
    #: Not part of the value: two values with different routes compare equal.
    route: str = field(default="", compare=False)

    def __post_init__(self):
        # the constructor takes mpf numbers (Value.point, .enclosure and .from_exact build one
        # from any number): an int or a float failed later, when the Value was printed
        for name in ("lo", "hi", "mid"):
            x = getattr(self, name)
            if not isinstance(x, MPF) or x._mpf_ == fnan:
                raise InvalidParameter(name, x, "an mpmath mpf that is not NaN", "Value",
                                       "Value.point, Value.enclosure and Value.from_exact "
                                       "build a Value from other numbers")
        _check_dps(self.dps, "Value")
        if self.lo is not self.hi and not self.lo <= self.hi:
            raise InvalidParameter("lo", self.lo, f"a number <= hi = {brief(self.hi)}", "Value",
                                   "An enclosure [lo, hi] needs lo <= hi")
        if not isinstance(self.guarantee, str) or self.guarantee not in GUARANTEES:
            raise InvalidParameter("guarantee", self.guarantee,
                                   " or ".join(map(repr, GUARANTEES)), "Value")
        if (self.exact is not None) != (self.guarantee == "exact"):
            raise InvalidParameter("exact", self.exact, "a rational exactly when guarantee is "
                                   "'exact' (a Value is exact exactly when it holds its "
                                   "rational)", "Value")

    @classmethod
    def point(cls, x, dps: int, guarantee: str = "estimate", route: str = "") -> Value:
        """A value to ``dps`` digits (lo = hi = mid): ``"certified"`` only where a ball proved
        the digits; ``route`` names what computed it."""
        if isinstance(x, MPF) and x._mpf_ == fnan:
            raise InvalidParameter("x", x, "an mpf that is not NaN", "Value.point")
        r = _round(x, dps_to_prec(_check_dps(dps, "Value.point")), round_nearest,
                   owner="Value.point")
        return cls(r, r, r, dps, guarantee=guarantee, route=route)

    @classmethod
    def enclosure(cls, lo, hi, dps: int, mid=None, guarantee: str = "estimate") -> Value:
        """An enclosure; ``lo`` is rounded down and ``hi`` up to ``dps`` digits:
        ``"certified"`` only where exact or Arb ball arithmetic proved both ends."""
        prec = dps_to_prec(_check_dps(dps, "Value.enclosure"))
        lo_r = _round(lo, prec, round_floor, "lo", "Value.enclosure")
        hi_r = _round(hi, prec, round_ceiling, "hi", "Value.enclosure")
        if mid is None:
            with mp.workprec(prec + 10):
                mid = (mp.mpf(lo if isinstance(lo, MPF) else lo_r)
                       + mp.mpf(hi if isinstance(hi, MPF) else hi_r)) / 2
        return cls(lo_r, hi_r, _round(mid, prec, round_nearest), dps, guarantee=guarantee)

    @property
    def is_certain(self) -> bool:
        """Exact or certified: may serve as a certificate (``verify`` uses nothing else)."""
        return self.guarantee != "estimate"

    def weakened(self, guarantee: str) -> Value:
        """This value claiming no more than ``guarantee`` (an exact value keeps its rational
        only while it stays exact)."""
        g = weakest(self.guarantee, choice("guarantee", guarantee, GUARANTEES, "Value.weakened"))
        if g == self.guarantee:
            return self
        return Value(self.lo, self.hi, self.mid, self.dps, None, g, self.route)

    def routed(self, route: str) -> Value:
        """This value with the name of the route that computed it."""
        return replace(self, route=route)

    @classmethod
    def from_exact(cls, q: sp.Rational, dps: int) -> Value:
        """An exact rational; lo, hi, mid are its correctly rounded mpf neighbours."""
        given = q
        q = param("q", q, numeric=True, owner="Value.from_exact")  # sp.Rational(nan) was 0
        if not q.is_Rational:
            raise InvalidParameter("q", given, "a rational number", "Value.from_exact")
        prec = dps_to_prec(_check_dps(dps, "Value.from_exact"))
        p_, q_ = int(q.p), int(q.q)

        def rounded(rnd):  # correctly rounded from the exact rational, never double-rounded
            return mpmath.mp.make_mpf(from_rational(p_, q_, prec, rnd))

        return cls(rounded(round_floor), rounded(round_ceiling), rounded(round_nearest), dps, q,
                   "exact")

    @property
    def width(self) -> MPF:
        """hi - lo, rounded up (computed in this thread's context at the endpoints' precision,
        returned in the public mpf class); 0 for a point, also an infinite one (eps = +oo of a
        pair with a singular part: inf - inf was NaN)."""
        if self.lo == self.hi:
            return _round(mp.zero, dps_to_prec(self.dps), round_ceiling)
        with mp.workprec(dps_to_prec(self.dps) + 40):
            w = mp.fsub(mp.mpf(self.hi), mp.mpf(self.lo), rounding="u")
        return _round(w, dps_to_prec(self.dps) + 40, round_ceiling)

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    def interval(self) -> tuple:
        """``(lo, hi)`` as mpf in the calling thread's context, holding the truth: the
        endpoints converted exactly (they belong to mpmath's global context), and a point value
        that is not exact widened by one unit in its ``dps - 1``-th digit (it claims ``dps``
        correct digits). Call inside the working precision that the computation needs."""
        with mp.workprec(max(mp.prec, dps_to_prec(self.dps) + 40)):
            lo, hi = mp.mpf(self.lo), mp.mpf(self.hi)
            if self.exact is None and lo == hi and mp.isfinite(lo):
                r = abs(lo) * mp.mpf(10) ** (1 - self.dps)
                lo, hi = lo - r, hi + r
        return lo, hi

    def contains(self, x) -> bool:
        """Does ``[lo, hi]`` contain ``x``? Compared exactly (mpf, float, int, Rational);
        other SymPy numbers are evaluated with ``dps + 30`` digits first; +-oo compares as
        itself (NaN, booleans and strings raise :class:`InvalidParameter`)."""
        if isinstance(x, MPF) and mp.isfinite(x):
            r = _as_rational(x)
        elif isinstance(x, sp.Rational):
            r = x
        elif isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
            # (exact: sp.Rational(float) rounds at mpmath's global precision)
            r = sp.Rational(*x.as_integer_ratio())
        else:
            r = param("x", x, numeric=True, allow_infinite=True, owner="Value.contains")
            if r.is_infinite:
                return bool(self.lo <= (mp.inf if r > 0 else -mp.inf) <= self.hi)
            if not r.is_Rational:
                v = sp.Float(r.evalf(self.dps + 30), self.dps + 30)
                r = sp.Rational(*to_rational(v._mpf_))
        return _as_rational(self.lo) <= r <= _as_rational(self.hi)

    def __float__(self) -> float:
        return float(self.mid)

    def _sympy_(self):
        """``sympify(v)``: an exact Value is its rational (nothing is lost). A certified or
        estimated Value is refused: SymPy would take it as one exact number, and a claim built
        from it (``ta.verify``, a node parameter) would rest on a digit the Value does not
        guarantee. Use Value arithmetic (``v + 1``, ``v.exp()``: the guarantee is carried),
        ``.mid`` explicitly (an estimate), ``.interval()``, or ``ta.Functional(...)`` for a lazy
        scalar."""
        if self.exact is not None:
            return self.exact
        raise sp.SympifyError(self, f"a {self.guarantee} Value is an interval, not one number "
                              "for SymPy; use Value arithmetic (v + 1, v.exp()), .mid (an "
                              "estimate), .interval(), or tradeoff_algebra.Functional for a "
                              "lazy scalar")

    def _fmt(self, x) -> str:
        return mp.nstr(x, self.dps, min_fixed=-4, max_fixed=6)

    def _digits(self) -> int:
        """Significant digits an enclosure supports: enough to tell lo from hi, plus two."""
        if self.is_point or not (mp.isfinite(self.lo) and mp.isfinite(self.hi)):
            return self.dps
        with mp.workprec(dps_to_prec(self.dps) + 20):
            lo, hi = mp.mpf(self.lo), mp.mpf(self.hi)  # into this thread's context
            scale = max(abs(lo), abs(hi))
            if scale == 0:
                return self.dps
            w = (hi - lo) / scale
            return max(3, min(self.dps, int(mp.ceil(-mp.log10(w))) + 2))

    def _outward(self, x, digits: int, up: bool) -> str:
        """``x`` to ``digits`` significant digits, rounded away from the inside of [lo, hi]."""
        if x == 0 or not mp.isfinite(x):
            return self._fmt(x)
        man, exp2 = x.man_exp
        # the decimal exponent of x needs as many more bits as its binary exponent has digits
        # (x = 1e-(4e541) is a closed-form delta of G_{1e-272})
        extra = 4 * len(str(abs(int(exp2) + int(man).bit_length())))
        with mp.workprec(max(dps_to_prec(self.dps), x.context.prec) + 40 + extra):
            x = mp.mpf(x)  # exactly, into this thread's context (x belongs to mpmath's global)
            e = int(mp.floor(mp.log10(abs(x)))) - digits + 1
            r = "u" if up else "d"  # x scaled by 10^-e with directed rounding: q is outward
            if abs(e) <= 1000:  # an exact integer power of ten
                q = mp.fmul(x, 10**-e, rounding=r) if e < 0 else mp.fdiv(x, 10**e, rounding=r)
            else:  # a huge exponent: a rounded power, and a relative margin beyond its error
                u = mp.ldexp(1, -(mp.prec - 8))
                q = x / mp.power(10, e) * ((1 + u) if up == (x > 0) else (1 - u))
            n = int(mp.ceil(q) if up else mp.floor(q))
            return mp.nstr(mp.mpf(n) * mp.mpf(10) ** e, digits, min_fixed=-4, max_fixed=6)

    def _interval(self, digits: int | None = None) -> str:
        d = self._digits() if digits is None else digits
        return f"[{self._outward(self.lo, d, False)}, {self._outward(self.hi, d, True)}]"

    def text(self, digits: int | None = None) -> str:
        """As :func:`str`, with ``digits`` significant digits of each end of an enclosure
        (rounded outward: the lower end down, the upper end up); a point shows at most its
        ``dps`` digits, an exact rational as itself. The command line's ``--dps N`` prints
        ``v.text(N)``."""
        if digits is None or self.exact is not None:
            return str(self)
        digits = _check_dps(digits, "Value.text")
        if self.is_point:
            return mp.nstr(self.mid, min(digits, self.dps), min_fixed=-4, max_fixed=6)
        return self._interval(digits)

    def known_digits(self) -> int | None:
        """About how many significant digits an enclosure determines: floor(-log10 of its
        relative width), at least 0; None for a point or an exact value."""
        if self.exact is not None or self.is_point:
            return None
        if not (mp.isfinite(self.lo) and mp.isfinite(self.hi)):
            return 0
        with mp.workprec(dps_to_prec(self.dps) + 20):
            lo, hi = mp.mpf(self.lo), mp.mpf(self.hi)
            scale = max(abs(lo), abs(hi))
            return max(0, int(mp.floor(-mp.log10((hi - lo) / scale))))

    def __str__(self) -> str:
        if self.exact is not None:
            return str(self.exact) if self.exact.q < 10**12 else self._fmt(self.mid)
        if self.is_point:
            return self._fmt(self.mid)
        return self._interval()

    def __repr__(self) -> str:
        if self.exact is not None:
            return f"Value(exact={self.exact})"
        if self.is_point:
            return f"Value({self._fmt(self.mid)}, dps={self.dps}, {self.guarantee})"
        return f"Value({self._interval()}, width={mp.nstr(self.width, 2)}, {self.guarantee})"

    def describe(self) -> str:
        """The value and its guarantee in words, as the command line prints it."""
        if self.exact is not None:
            return f"{self} (exact)"
        return f"{self} ({self.guarantee})"

    # -- arithmetic (numeric/value_arith.py: exact stays exact, otherwise Arb ball arithmetic) --
    #: Above SymPy's expressions (10), so that ``Rational(1, 3) + v`` asks ``v.__radd__``
    #: instead of turning ``v`` into a SymPy number.
    _op_priority = 20.0

    def __add__(self, other):
        return value_arith.binary("+", self, other, Value)

    def __radd__(self, other):
        return value_arith.binary("+", other, self, Value)

    def __sub__(self, other):
        return value_arith.binary("-", self, other, Value)

    def __rsub__(self, other):
        return value_arith.binary("-", other, self, Value)

    def __mul__(self, other):
        return value_arith.binary("*", self, other, Value)

    def __rmul__(self, other):
        return value_arith.binary("*", other, self, Value)

    def __truediv__(self, other):
        return value_arith.binary("/", self, other, Value)

    def __rtruediv__(self, other):
        return value_arith.binary("/", other, self, Value)

    def __pow__(self, other):
        return value_arith.binary("**", self, other, Value)

    def __rpow__(self, other):
        return value_arith.binary("**", other, self, Value)

    def __neg__(self) -> Value:
        return value_arith.unary("neg", self, Value)

    def __pos__(self) -> Value:
        return self

    def __abs__(self) -> Value:
        return value_arith.unary("abs", self, Value)

    def exp(self) -> Value:
        """e^v, rigorously (Arb); exact only for an exact 0."""
        return value_arith.unary("exp", self, Value)

    def log(self) -> Value:
        """The natural logarithm, rigorously (Arb); the interval must lie above 0."""
        return value_arith.unary("log", self, Value)

    def sqrt(self) -> Value:
        """The square root, rigorously (Arb); exact for the square of a rational."""
        return value_arith.unary("sqrt", self, Value)

    # -- as a number: formatting, rounding, certain comparisons ---------------------------------
    def __format__(self, spec: str) -> str:
        """``format(v, ".3g")``: the guaranteed interval formatted rigorously
        (:mod:`.value_format`): one number when every point of the interval rounds to it (the
        truth correctly rounded), else ``[lo, hi]`` rounded outward; ``f"{v:.5g}"`` of the
        DP-SGD epsilon is ``[3.0683, 3.0688]``. An empty spec gives ``str(v)``; ``.mid``
        formats the estimate alone (``f"{float(v.mid):.3f}"``)."""
        return value_format.format_value(self, spec) if spec else str(self)

    def __round__(self, ndigits: int | None = None):
        return round(float(self.mid), ndigits)

    def guaranteed(self) -> tuple:
        """The guaranteed interval as exact SymPy numbers ``(lo, hi)``: the rational twice for
        an exact value, else :meth:`interval` (a point widened by one unit of its last digit),
        infinite ends as ``-oo``/``oo``. Comparisons decide on it."""
        if self.exact is not None:
            return self.exact, self.exact
        lo, hi = self.interval()
        return tuple(_as_rational(x) if mp.isfinite(x) else (sp.oo if x > 0 else -sp.oo)
                     for x in (lo, hi))

    def _bounds(self, other) -> tuple:
        if isinstance(other, Value):
            return other.guaranteed()
        if isinstance(other, MPF):
            r = _as_rational(other) if mp.isfinite(other) else None
        elif isinstance(other, float):  # exactly (sp.Rational(float) rounds)
            r = sp.Rational(*other.as_integer_ratio()) if math.isfinite(other) else None
        elif isinstance(other, (int, sp.Rational)) and not isinstance(other, bool):
            r = sp.Rational(other)
        else:
            try:
                r = sp.Rational(other)
            except (TypeError, ValueError):
                return NotImplemented
        if r is None:
            raise InvalidParameter("other", other, "a finite number or a Value", "Value "
                                   "comparison")
        return r, r

    def _compare(self, other, name: str, certainly, certainly_not):
        b = self._bounds(other)
        if b is NotImplemented:
            return NotImplemented
        lo, hi = self.guaranteed()
        if certainly(lo, hi, *b):
            return True
        if certainly_not(lo, hi, *b):
            return False
        from ..core.errors import NumericalError

        raise NumericalError(f"uncertain comparison: {self} {name} {other} holds for part of "
                             "the enclosure only; raise dps or the engine's accuracy, or compare "
                             ".lo / .hi explicitly")

    def __lt__(self, other):
        """True when the whole enclosure is below ``other``, False when none of it is; an
        enclosure that straddles ``other`` raises NumericalError (never a guess)."""
        return self._compare(other, "<", lambda lo, hi, a, b: hi < a,
                             lambda lo, hi, a, b: lo >= b)

    def __le__(self, other):
        return self._compare(other, "<=", lambda lo, hi, a, b: hi <= a,
                             lambda lo, hi, a, b: lo > b)

    def __gt__(self, other):
        return self._compare(other, ">", lambda lo, hi, a, b: lo > b,
                             lambda lo, hi, a, b: hi <= a)

    def __ge__(self, other):
        return self._compare(other, ">=", lambda lo, hi, a, b: lo >= b,
                             lambda lo, hi, a, b: hi < a)

    def latex(self) -> str:
        """The number in LaTeX; an estimate is marked ``\approx`` (an exact or certified value
        is printed plainly, an enclosure as an interval with the ends of :func:`str`, rounded
        outward)."""
        if self.exact is not None:
            return sp.latex(self.exact)

        def tex(text: str) -> str:
            if not any(c.isdigit() for c in text):
                return r"\infty" if "inf" in text and "-" not in text else r"-\infty"
            return sp.latex(sp.Float(text, max(1, sum(c.isdigit() for c in text))))

        if self.is_point:
            body = tex(self._fmt(self.mid))
        else:
            d = self._digits()
            body = r"\left[%s,\ %s\right]" % (tex(self._outward(self.lo, d, False)),
                                               tex(self._outward(self.hi, d, True)))
        return body if self.is_certain else r"\approx " + body

    def _repr_html_(self) -> str:
        """For Jupyter: the text of :func:`str` and the guarantee in small type."""
        import html

        return ('<span class="tradeoff-value">%s <small>(%s)</small></span>'
                % (html.escape(str(self)), self.guarantee))

    def _repr_latex_(self) -> str:
        return "$%s$" % self.latex()
