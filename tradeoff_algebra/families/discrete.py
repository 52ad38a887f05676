"""The exact trade-off function T(P, Q) of two distributions on a finite outcome set.

Dong, Roth & Su, Def. 2: ``T(P, Q)(alpha) = inf{beta_phi : alpha_phi <= alpha}`` over all
(randomised) rejection rules ``phi``. By the Neyman--Pearson lemma (Dong, Roth & Su, Appendix A)
the optimal tests reject the outcomes in decreasing order of the likelihood ratio ``Q/P``,
randomising on one ratio class at a time. Outcomes with ``P = 0 < Q`` (ratio infinity) come
first, those with ``Q = 0 < P`` (ratio 0) last, outcomes of equal ratio are merged into one
class, and outcomes with ``P = Q = 0`` play no part. Rejecting the first ``j`` classes gives the
errors ``(alpha_j, beta_j) = (P(C_1 u ... u C_j), 1 - Q(C_1 u ... u C_j))``, and randomising
within a class moves linearly between consecutive points, so ``T(P, Q)`` is the
piecewise-linear function through these knots (with ``f(0) = 1 - Q(P = 0)``). Its slopes
``-Q(C_j)/P(C_j)`` increase because the ratios decrease, which is the convexity of Prop. 1.

The inverse is ``T(P, Q)^{-1} = T(Q, P)`` (Dong, Roth & Su, Sec. 2.1, after Prop. 2), and
f_{eps,delta} (Eq. (4)) is ``T(P, Q)`` of the four-point pair behind Prop. 3,
``P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0)`` and ``Q`` its reversal (the
main text does not print the pair; the tests check it by brute force over all tests).

Rational inputs give rational knots and exact values. Float inputs are taken at their exact
binary values, each distribution is divided by its exact total (validated to be within ``1e-12``
of 1), the knots are computed exactly and then rounded to double precision.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy import S, Tuple

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value
from .piecewise import PiecewiseLinear, same_function

__all__ = ["Discrete", "SUM_TOL"]

#: How far from 1 the total of a distribution with float entries may be (the entries are then
#: rescaled exactly by their sum); rational and symbolic entries must sum to exactly 1.
SUM_TOL = sp.Rational(1, 10**12)

_OWNER = "Discrete"


def _distribution(name: str, dist: Any) -> list[sp.Expr]:
    """Sympify and validate one finite distribution (entries in [0, 1] summing to 1)."""
    allowed = "a finite probability distribution: a non-empty sequence of numbers >= 0 with sum 1"
    if isinstance(dist, (str, bytes)) or not isinstance(dist, Iterable):
        raise InvalidParameter(name, dist, allowed, _OWNER, "Pass e.g. [1/2, 1/4, 1/4]")
    xs = list(dist)
    if not xs:
        raise InvalidParameter(name, dist, allowed, _OWNER, "The outcome set is empty")
    ps = [param(f"{name}[{i}]", x, lower=0, upper=1, owner=_OWNER) for i, x in enumerate(xs)]
    floats = any(isinstance(x, (float, sp.Float)) or type(x).__module__ == "numpy" for x in xs)
    total = sp.Add(*ps)
    d = total - 1
    if floats and d.is_Rational:
        # Float entries are their exact binary rationals, which rarely sum to exactly 1
        # ([0.1, 0.2, 0.7] sums to 1 - 2^-55): within SUM_TOL they are rescaled exactly by
        # their sum, so that one list of floats always gives the same exact distribution.
        bad = abs(d) > SUM_TOL
        if not bad and d != 0:
            ps = [x / total for x in ps]
    else:
        z = d.is_zero
        if z is None:
            z = sp.expand(d).is_zero
        if z is None and d.is_number:
            z = not (abs(d.evalf(50)) > sp.Float("1e-40"))
        bad = z is False
    if bad:
        tol = f" (to within {SUM_TOL} for floats)" if floats else ""
        raise InvalidParameter(name, dist, allowed, _OWNER,
                               f"its entries sum to {sp.sstr(total)}, not 1{tol}")
    return ps


class Discrete(TradeOff):
    """T(P, Q) for distributions P, Q on the same finite outcome set (Dong, Roth & Su, Def. 2).

    ``P`` and ``Q`` are sequences of probabilities over the same outcomes (in the same order).
    The function is the exact Neyman--Pearson trade-off: ``as_piecewise()`` gives it as a
    :class:`PiecewiseLinear`, ``knots`` its knots.

    Entries are read exactly: rationals and symbols as given (they must sum to exactly 1);
    floats as the binary rationals they hold, rescaled exactly by their sum when that sum is
    within ``SUM_TOL`` (1e-12) of 1, as float rounding leaves it (``[0.1, 0.2, 0.7]``).

    >>> Discrete([sp.Rational(1, 2), sp.Rational(1, 2)], [sp.Rational(1, 4), sp.Rational(3, 4)])
    Discrete([1/2, 1/2], [1/4, 3/4])
    """

    def __new__(cls, P: Any, Q: Any):
        P = _distribution("P", P)
        Q = _distribution("Q", Q)
        if len(P) != len(Q):
            raise InvalidParameter("Q", Tuple(*Q), f"a distribution on the same {len(P)} "
                                   "outcomes as P", _OWNER,
                                   f"P has {len(P)} entries and Q has {len(Q)}")
        return TradeOff.__new__(cls, Tuple(*P), Tuple(*Q))

    @property
    def P(self) -> Tuple:
        return self.args[0]

    @property
    def Q(self) -> Tuple:
        return self.args[1]

    def as_piecewise(self) -> PiecewiseLinear:
        """T(P, Q) as the piecewise-linear function through its Neyman--Pearson knots.

        Raises NoClosedForm when symbolic entries leave the order of the likelihood ratios
        undecided.
        """
        return _neyman_pearson(self.P, self.Q)

    @property
    def knots(self) -> Tuple:
        """The knots (cumulative P, 1 - cumulative Q) of T(P, Q); see :meth:`as_piecewise`."""
        return self.as_piecewise().knots

    def _piecewise_or_none(self) -> PiecewiseLinear | None:
        try:
            return self.as_piecewise()
        except NoClosedForm:
            return None

    # -- closed forms --------------------------------------------------------------------------
    def _eval_at(self, alpha):
        f = self._piecewise_or_none()
        return None if f is None else f._eval_at(alpha)

    def _eval_derivative_at(self, alpha):
        f = self._piecewise_or_none()
        return None if f is None else f._eval_derivative_at(alpha)

    def _eval_fixed_point(self):
        f = self._piecewise_or_none()
        return None if f is None else f._eval_fixed_point()

    def _eval_inverse(self) -> Discrete:
        """T(P, Q)^{-1} = T(Q, P) (Dong, Roth & Su, Sec. 2.1)."""
        return Discrete(self.Q, self.P)

    @property
    def is_symmetric(self) -> bool | None:
        """Is T(P, Q) = T(Q, P)? Decided whenever both sets of knots are numbers."""
        f = self._piecewise_or_none()
        g = None if f is None else Discrete(self.Q, self.P)._piecewise_or_none()
        return None if f is None or g is None else same_function(f, g)

    # -- printing ------------------------------------------------------------------------------
    def _sympystr(self, printer):
        return "Discrete([%s], [%s])" % (", ".join(printer._print(p) for p in self.P),
                                         ", ".join(printer._print(q) for q in self.Q))

    def _latex(self, printer):
        return r"T\left(\left(%s\right), \left(%s\right)\right)" % (
            ", ".join(printer._print(p) for p in self.P),
            ", ".join(printer._print(q) for q in self.Q))


# -- the Neyman--Pearson knots -----------------------------------------------------------------
def _decide(b: Any, what: str) -> bool:
    if b not in (sp.true, sp.false, True, False):
        raise NoClosedForm(f"{_OWNER}: cannot decide {what} for symbolic entries; substitute "
                           "numbers for the symbols")
    return bool(b)


def _is_zero(x: sp.Expr) -> bool:
    z = x.is_zero
    if z is None:
        raise NoClosedForm(f"{_OWNER}: cannot decide whether {x} is zero; substitute numbers "
                           "for the symbols")
    return z


@lru_cache(maxsize=512)
def _neyman_pearson(P: Tuple, Q: Tuple) -> PiecewiseLinear:
    floats = any(x.has(sp.Float) for x in (*P, *Q))
    ps, qs = list(P), list(Q)
    if floats:  # exact binary values, each distribution normalised exactly
        ps = [sp.Rational(x) if isinstance(x, sp.Float) else x for x in ps]
        qs = [sp.Rational(x) if isinstance(x, sp.Float) else x for x in qs]
        tp, tq = sp.Add(*ps), sp.Add(*qs)
        ps, qs = [x / tp for x in ps], [x / tq for x in qs]
    # likelihood-ratio classes, keyed by Q/P (oo for P = 0 < Q); P = Q = 0 outcomes drop out
    outcomes = []
    for p, q in zip(ps, qs, strict=True):
        pz, qz = _is_zero(p), _is_zero(q)
        if pz and qz:
            continue
        outcomes.append((S.Infinity if pz else q / p, p, q))
    try:
        outcomes.sort(key=lambda t: t[0], reverse=True)
    except TypeError as exc:
        raise NoClosedForm(f"{_OWNER}: cannot order the likelihood ratios Q/P of symbolic "
                           "entries; substitute numbers for the symbols") from exc
    classes: list[list[sp.Expr]] = []  # [ratio, P mass, Q mass]
    for r, p, q in outcomes:
        if classes and (r == classes[-1][0] or _decide(sp.Eq(r, classes[-1][0]),
                                                       "a tie of likelihood ratios")):
            classes[-1][1] += p
            classes[-1][2] += q
        else:
            classes.append([r, p, q])
    knots = [(S.Zero, S.One)]
    alpha, Qcum = S.Zero, S.Zero
    # P has mass 1, so the last class has P > 0; its end is (1, 0) as both totals are 1
    for r, p, q in classes[:-1]:
        alpha, Qcum = alpha + p, Qcum + q
        if r is S.Infinity:  # the class P = 0 < Q: f(0) = 1 - Q(P = 0)
            knots[0] = (S.Zero, 1 - Qcum)
        else:
            knots.append((alpha, 1 - Qcum))
    knots.append((S.One, S.Zero))
    if floats:
        knots = _round_knots(knots)
    return PiecewiseLinear(knots)


def _round_knots(knots: list[tuple[sp.Expr, sp.Expr]]) -> list[tuple[sp.Expr, sp.Expr]]:
    """Round exact knots to double precision; a knot whose alpha rounds onto the previous one is
    merged into it (the lower value is kept, as the trade-off function takes the infimum)."""
    out: list[tuple[sp.Expr, sp.Expr]] = []
    for a, v in knots:
        fa = a if a in (S.Zero, S.One) else sp.Float(a, 15)
        fv = v if v in (S.Zero, S.One) else sp.Float(v, 15)
        if out and sp.Rational(out[-1][0]) == sp.Rational(fa):
            out[-1] = (fa, fv)
        else:
            out.append((fa, fv))
    return out


# -- numerics: through the piecewise-linear form ------------------------------------------------
def _pl(f: Discrete) -> PiecewiseLinear:
    return f.as_piecewise()  # raises NoClosedForm for undecided symbolic entries


@exact_value.register(Discrete)
def _(f, A, Ac):
    g = f._piecewise_or_none()
    return None if g is None else exact_value(g, A, Ac)


@mp_value.register(Discrete)
def _(f, a, ac):
    return mp_value(_pl(f), a, ac)


@mp_roc.register(Discrete)
def _(f, a, ac):
    return mp_roc(_pl(f), a, ac)


@np_value.register(Discrete)
def _(f, x):
    return np_value(_pl(f), x)


# -- exact composition and privacy profile (tradeoff_algebra.numeric.finite) ---------------------
def _register_finite() -> None:
    from ..numeric.finite import FiniteLoss, finite_loss
    from ..numeric.protocol import mp_delta

    @finite_loss.register(Discrete)
    def _(f):
        """The pair (P, Q) itself; floats at their exact binary values, each distribution
        divided by its exact total (as for the knots); None for symbolic entries."""
        if f.free_symbols:
            return None
        ps, qs = list(f.P), list(f.Q)
        if any(x.has(sp.Float) for x in ps + qs):
            ps = [sp.Rational(x) if isinstance(x, sp.Float) else x for x in ps]
            qs = [sp.Rational(x) if isinstance(x, sp.Float) else x for x in qs]
            tp, tq = sp.Add(*ps), sp.Add(*qs)
            ps, qs = [x / tp for x in ps], [x / tq for x in qs]
        return FiniteLoss.pair(ps, qs)

    @mp_delta.register(Discrete)
    def _(f, eps):
        """delta(eps) = sum_{Q/P > e^eps} (Q - e^eps P) (Dong, Roth & Su, Prop. 6)."""
        fl = finite_loss(f)
        if fl is None:
            raise NoClosedForm(f"{f}: delta(eps) needs numeric entries")
        return fl.mp_delta(eps)


_register_finite()
