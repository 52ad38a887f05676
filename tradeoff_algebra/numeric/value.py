"""The :class:`Value` type: a number with its guarantee.

See docs/architecture.md, "Evaluation contract".

A value is either exact (``exact`` holds the SymPy rational, ``lo == hi == mid``), a closed form
at the requested digits (``lo == hi == mid``), or an enclosure ``lo <= truth <= hi``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy as sp
from mpmath.libmp import (
    from_rational,
    mpf_pos,
    round_ceiling,
    round_floor,
    round_nearest,
    to_rational,
)

from .context import MPF, mp

__all__ = ["Value", "dps_to_prec"]


def dps_to_prec(dps: int) -> int:
    """Binary precision that holds ``dps`` decimal digits."""
    return int(dps * 3.3219280948873626) + 4


def _round(x: MPF, prec: int, rnd) -> MPF:
    """``x`` rounded to ``prec`` bits in direction ``rnd``, whatever the ambient mpmath context.

    (``mpmath.mpf(...)`` would round a second time, to the context's precision.)
    """
    if not isinstance(x, MPF):
        x = mp.mpf(x)
    return mpmath.mp.make_mpf(mpf_pos(x._mpf_, prec, rnd))  # the public class; no rounding


def _as_rational(x) -> sp.Rational:
    """The exact rational value of an mpf."""
    return sp.Rational(*to_rational(x._mpf_))


@dataclass(frozen=True)
class Value:
    """A real number with its guarantee: ``lo <= truth <= hi``; ``mid`` is the best estimate.

    ``exact`` is the exact SymPy number when the objects are finite (rational arithmetic),
    otherwise ``None``. ``dps`` is the number of significant digits asked for.
    """

    lo: MPF
    hi: MPF
    mid: MPF
    dps: int
    exact: sp.Rational | None = None

    @classmethod
    def point(cls, x, dps: int) -> Value:
        """A closed-form value correct to ``dps`` digits (lo = hi = mid)."""
        r = _round(x, dps_to_prec(dps), round_nearest)
        return cls(r, r, r, dps)

    @classmethod
    def enclosure(cls, lo, hi, dps: int, mid=None) -> Value:
        """An enclosure; ``lo`` is rounded down and ``hi`` up to ``dps`` digits."""
        prec = dps_to_prec(dps)
        lo_r, hi_r = _round(lo, prec, round_floor), _round(hi, prec, round_ceiling)
        if mid is None:
            with mp.workprec(prec + 10):
                mid = (mp.mpf(lo) + mp.mpf(hi)) / 2
        return cls(lo_r, hi_r, _round(mid, prec, round_nearest), dps)

    @classmethod
    def from_exact(cls, q: sp.Rational, dps: int) -> Value:
        """An exact rational; lo, hi, mid are its correctly rounded mpf neighbours."""
        q = sp.Rational(q)
        prec = dps_to_prec(dps)
        p_, q_ = int(q.p), int(q.q)

        def rounded(rnd):  # correctly rounded from the exact rational, never double-rounded
            return mpmath.mp.make_mpf(from_rational(p_, q_, prec, rnd))

        return cls(rounded(round_floor), rounded(round_ceiling), rounded(round_nearest), dps, q)

    @property
    def width(self) -> MPF:
        return self.hi - self.lo

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    def contains(self, x) -> bool:
        """Does ``[lo, hi]`` contain ``x``? Compared exactly (mpf, float, int, Rational);
        other SymPy numbers are evaluated with ``dps + 30`` digits first."""
        if isinstance(x, MPF):
            r = _as_rational(x)
        elif isinstance(x, sp.Rational):
            r = x
        elif isinstance(x, (int, float)):
            r = sp.Rational(x)
        else:
            v = sp.Float(sp.sympify(x).evalf(self.dps + 30), self.dps + 30)
            r = sp.Rational(*to_rational(v._mpf_))
        return _as_rational(self.lo) <= r <= _as_rational(self.hi)

    def __float__(self) -> float:
        return float(self.mid)

    def _sympy_(self):
        """A Value is a number with its guarantee; SymPy would silently turn it into a 15-digit
        Float (through ``__float__``) and arithmetic would drop the guarantee. Refused: use
        ``.exact``, ``.mid`` explicitly, or ``ta.Functional(...)`` for a lazy scalar."""
        raise sp.SympifyError(self, "a Value does not enter SymPy arithmetic; use .exact, "
                              ".mid, or tradeoff_algebra.Functional for a lazy scalar")

    def _fmt(self, x) -> str:
        return mp.nstr(x, self.dps, min_fixed=-4, max_fixed=6)

    def __str__(self) -> str:
        if self.exact is not None:
            return str(self.exact) if self.exact.q < 10**12 else self._fmt(self.mid)
        if self.is_point:
            return self._fmt(self.mid)
        return f"[{self._fmt(self.lo)}, {self._fmt(self.hi)}]"

    def __repr__(self) -> str:
        if self.exact is not None:
            return f"Value(exact={self.exact})"
        if self.is_point:
            return f"Value({self._fmt(self.mid)}, dps={self.dps})"
        return f"Value(lo={self._fmt(self.lo)}, hi={self._fmt(self.hi)}, dps={self.dps})"

    def latex(self) -> str:
        if self.exact is not None:
            return sp.latex(self.exact)
        if self.is_point:
            return sp.latex(sp.Float(self._fmt(self.mid), self.dps))
        return r"\left[%s,\ %s\right]" % (sp.latex(sp.Float(self._fmt(self.lo), self.dps)),
                                          sp.latex(sp.Float(self._fmt(self.hi), self.dps)))

    def _repr_latex_(self) -> str:
        return "$%s$" % self.latex()
