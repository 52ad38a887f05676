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

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy import S, Tuple

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.node import TradeOff
from ..core.validate import items, param
from ..numeric.arb_expr import Unenclosable
from ..numeric.finite_values import numeric_irrational, pair_delta_ball, ratio_order
from ..numeric.knots import clean_knots, pl_knots
from ..numeric.protocol import arb_delta, exact_ends, exact_value, mp_roc, mp_value, np_value
from .piecewise import PiecewiseLinear, as_fraction, knots_delta, same_function, to_rational

__all__ = ["Discrete", "SUM_TOL"]

#: How far from 1 the total of a distribution with float entries may be (the entries are then
#: rescaled exactly by their sum); rational and symbolic entries must sum to exactly 1.
SUM_TOL = sp.Rational(1, 10**12)

_OWNER = "Discrete"
#: Largest number of outcomes accepted (each is a SymPy number in the tree): 10^6.
MAX_OUTCOMES = 10**6


def _exact_sum(xs: list[Fraction]) -> Fraction:
    """The exact sum of Fractions, numerators added per denominator (one Fraction addition
    per distinct denominator instead of one per term)."""
    by_den: dict[int, int] = {}
    for x in xs:
        by_den[x.denominator] = by_den.get(x.denominator, 0) + x.numerator
    return sum((Fraction(p, q) for q, p in by_den.items()), Fraction(0))


def _fast_distribution(name: str, xs: list) -> list[sp.Expr] | None:
    """The entries as exact SymPy rationals when every one is a plain number (int, Fraction,
    SymPy Rational, float at its binary value): validated in Fractions, linear in their
    count (a SymPy ``param`` per entry costs about a millisecond). None when some entry is
    anything else (symbols, irrationals): the general route then decides."""
    frs = [as_fraction(x) for x in xs]
    if any(x is None for x in frs):
        return None
    for x in frs:
        if not 0 <= x.numerator <= x.denominator:  # the general route raises the message
            return None
    total = _exact_sum(frs)
    if total != 1:
        floats = any(isinstance(x, (float, sp.Float)) or type(x).__module__ == "numpy"
                     for x in xs)
        if not floats or abs(total - 1) > Fraction(1, 10**12):
            return None
        frs = [x / total for x in frs]  # float entries: rescaled exactly by their sum
    return [to_rational(x) for x in frs]


def _distribution(name: str, dist: Any) -> list[sp.Expr]:
    """Sympify and validate one finite distribution (entries in [0, 1] summing to 1)."""
    allowed = "a finite probability distribution: a non-empty sequence of numbers >= 0 with sum 1"
    xs = items(name, dist, allowed, _OWNER, "Pass e.g. [1/2, 1/4, 1/4]")
    if not xs:
        raise InvalidParameter(name, dist, allowed, _OWNER, "The outcome set is empty")
    if len(xs) > MAX_OUTCOMES:
        raise InvalidParameter(name, f"a sequence of {len(xs)} entries", f"at most "
                               f"{MAX_OUTCOMES} outcomes (MAX_OUTCOMES)", _OWNER,
                               "merge outcomes of equal likelihood ratio Q/P first (they "
                               "give the same trade-off function)")
    fast = _fast_distribution(name, xs)
    if fast is not None:
        return fast
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
    def free_symbols(self) -> set:
        return set() if _numeric_entries(self) else super().free_symbols

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


@lru_cache(maxsize=512)
def _numeric_entries(f: Discrete) -> bool:
    """Are all entries SymPy numbers (so that there is no free symbol)?"""
    return all(isinstance(x, sp.Number) for t in f.args for x in t)


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


def _np_rational(P: Tuple, Q: Tuple) -> PiecewiseLinear | None:
    """:func:`_neyman_pearson` in integer arithmetic for rational entries, O(k log k) and no
    SymPy comparisons: the masses as integers over one common denominator D (when D has at
    most 4096 bits, else Fractions), the ratio classes keyed by the reduced ratio of the
    integers, sorted by its correctly rounded float value with runs of equal floats ordered
    exactly; None when an entry is not rational."""
    ps, qs = [as_fraction(x) for x in P], [as_fraction(x) for x in Q]
    if any(x is None for x in ps + qs):
        return None
    D = 1
    for x in ps + qs:
        if D % x.denominator:
            D = D * x.denominator // math.gcd(D, x.denominator)
            if D.bit_length() > 4096:
                break
    frac = D.bit_length() > 4096
    if frac:  # no small common denominator: Fractions
        D, P_, Q_ = 1, ps, qs
    else:
        P_ = [x.numerator * (D // x.denominator) for x in ps]
        Q_ = [x.numerator * (D // x.denominator) for x in qs]
    classes: dict = {}  # (num, den) of the ratio Q/P, None for +oo -> [P mass, Q mass]
    for p, q in zip(P_, Q_, strict=True):
        if p == 0 and q == 0:
            continue
        if p == 0:
            key = None
        elif frac:
            r = q / p
            key = (r.numerator, r.denominator)
        else:
            g = math.gcd(q, p)
            key = (q // g, p // g)
        c = classes.get(key)
        if c is None:
            classes[key] = [p, q]
        else:
            c[0] += p
            c[1] += q
    finite = [k for k in classes if k is not None]
    finite.sort(key=lambda k: k[0] / k[1], reverse=True)  # int / int: correctly rounded
    i = 0
    while i < len(finite):  # runs of equal floats: order exactly
        j = i + 1
        while j < len(finite) and finite[j][0] / finite[j][1] == finite[i][0] / finite[i][1]:
            j += 1
        if j - i > 1:
            finite[i:j] = sorted(finite[i:j], key=lambda k: Fraction(*k), reverse=True)
        i = j
    order = ([None] if None in classes else []) + finite
    tot = sum(classes[r][0] for r in order)  # D (or 1): the common denominator of the knots
    knots = [(0, tot)]
    alpha = Qcum = 0
    for r in order[:-1]:
        p, q = classes[r]
        alpha, Qcum = alpha + p, Qcum + q
        if r is None:
            knots[0] = (0, tot - Qcum)
        else:
            knots.append((alpha, tot - Qcum))
    knots.append((tot, 0))
    if frac:
        return PiecewiseLinear._trusted([(Fraction(a), Fraction(v)) for a, v in knots])
    return PiecewiseLinear._trusted([(Fraction(a, D), Fraction(v, D)) for a, v in knots])


@lru_cache(maxsize=512)
def _neyman_pearson(P: Tuple, Q: Tuple) -> PiecewiseLinear:
    fast = _np_rational(P, Q)
    if fast is not None:
        return fast
    fast = _np_arb(P, Q)
    if fast is not None:
        return fast
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


def _np_arb(P: Tuple, Q: Tuple) -> PiecewiseLinear | None:
    """The Neyman--Pearson knots of numeric irrational entries (the softmax laws of the
    exponential mechanism) in the order of the likelihood ratios proved by disjoint Arb balls
    (:func:`~..numeric.finite_values.ratio_order`), the knots exact SymPy sums of the entries;
    the ratios are distinct, so the slopes increase strictly and the knots are canonical. None
    when the entries are not of that kind or two ratios are not separated (the SymPy route
    decides ties), replacing SymPy comparisons that took seconds for a hundred candidates."""
    if not numeric_irrational((*P, *Q)):
        return None
    try:
        order = ratio_order(tuple(P), tuple(Q))
    except Unenclosable:
        return None
    if order is None:
        return None
    knots = [(S.Zero, S.One)]
    alpha, Qcum = S.Zero, S.Zero
    for i in order[:-1]:
        alpha, Qcum = alpha + P[i], Qcum + Q[i]
        if P[i] == 0:  # the class P = 0 < Q: f(0) = 1 - Q(P = 0)
            knots[0] = (S.Zero, 1 - Qcum)
        else:
            knots.append((alpha, 1 - Qcum))
    knots.append((S.One, S.Zero))
    return TradeOff.__new__(PiecewiseLinear, Tuple(*(Tuple(a, v) for a, v in knots)))


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


@exact_ends.register(Discrete)
def _(f):
    """f(0) = 1 - sum of Q over the outcomes with P = 0, z = 1 - sum of P over those with Q = 0
    (``numeric.protocol.exact_ends``), read from the masses without ordering their ratios
    (irrational masses: randomized response RR(1, 3)); None where an entry's zero is undecided
    or the sum is not rational."""
    def end(A, B):
        zero = [a.is_zero for a in A]
        if None in zero:
            return None
        m = 1 - sp.Add(*[b for b, z in zip(B, zero, strict=True) if z])
        return m if isinstance(m, sp.Rational) else None
    return end(f.P, f.Q), end(f.Q, f.P)


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
    from ..numeric.privacy_loss import loss_views, privacy_loss
    from ..numeric.protocol import mp_delta

    @privacy_loss.register(Discrete)

    @loss_views("grid", "exact")
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
        """delta(eps) = sum_{Q/P > e^eps} (Q - e^eps P) (Dong, Roth & Su, Prop. 6): from the
        rational knots (O(log k)), in Arb for numeric irrational entries, else from the finite
        loss."""
        pair = _arb_profile(f, eps)
        if pair is not None:
            return pair
        g = f._piecewise_or_none()
        if g is not None:
            v = knots_delta(g, eps)
            if v is not None:
                return v
        fl = finite_loss(f)
        if fl is None:
            raise NoClosedForm(f"{f}: delta(eps) needs numeric entries")
        return fl.mp_delta(eps)


_register_finite()


def _arb_profile(f: Discrete, eps) -> tuple | None:
    """delta(eps) (``eps`` an mpf, or ``mp.inf``: 1 - f(0)) for numeric irrational entries:
    the Arb sum of :func:`~..numeric.finite_values.pair_delta_ball` (certified by the protocol's
    Arb path) and 1 - f(0) from the knots proved in Arb (:func:`_np_arb`); None for other
    entries."""
    from ..numeric.context import mp
    from ..numeric.protocol import _arb_delta_pair

    if not numeric_irrational((*f.P, *f.Q)):
        return None
    if eps == mp.inf:
        return mp_roc(f, mp.zero, mp.one) if _np_arb(f.P, f.Q) is not None else None
    return _arb_delta_pair(f, eps)


@arb_delta.register(Discrete)
def _(f, eps):
    """delta(eps) as an Arb ball for numeric irrational entries (the softmax laws of the
    exponential mechanism: sum_r max(0, Q_r - e^eps P_r) from balls of the entries computed
    once), else None (rational entries have exact knots)."""
    if not numeric_irrational((*f.P, *f.Q)):
        return None
    try:
        return pair_delta_ball(tuple(f.P), tuple(f.Q), eps)
    except Unenclosable:
        return None


@pl_knots.register(Discrete)
def _(f):
    """The knots of the Neyman-Pearson curve of the pair (numeric.knots), or None."""
    try:
        return clean_knots(f.as_piecewise().knots)
    except NoClosedForm:
        return None


# -- lattice view (tradeoff_algebra.numeric.lattice_product) -------------------------------------
def _register_lattice() -> None:
    from ..numeric.lattice_power import finite_lattice_factor
    from ..numeric.lattice_product import lattice_factor

    @lattice_factor.register(Discrete)
    def _(f):
        """The pair as a lattice factor when its likelihood ratios are integer powers of e^r, r
        rational (k-ary randomized response with a rational eps; ``numeric.lattice_power.
        FiniteLatticeFactor``): its powers and products with discrete Gaussians and discrete
        Laplaces of rational steps compose exactly at any n; None otherwise."""
        if f.free_symbols or len(f.P) > 64:
            return None
        return finite_lattice_factor(list(f.P), list(f.Q))


_register_lattice()


# -- the singular part (tradeoff_algebra.numeric.privacy_loss.delta_part) ------------------------
def singular_split(P: list, Q: list) -> tuple[list, list, sp.Rational] | None:
    """(P', Q', m) with T(P, Q) = T(P', Q') (x) f_{0,m}, m = min(a, b) > 0, for rational P, Q
    with Q-mass a where P = 0 and P-mass b where Q = 0; None when m = 0 or an entry is not
    rational.

    Proof: only the law of the likelihood ratio matters (Neyman--Pearson). f_{0,m} is T of
    P0 = (m, 1 - m, 0), Q0 = (0, 1 - m, m). In the product of (P', Q') with it, where (P', Q')
    is the common support of (P, Q) divided by 1 - m plus an outcome with P'-mass
    (b - m)/(1 - m) where Q' = 0 and one with Q'-mass (a - m)/(1 - m) where P' = 0, the Q-mass
    where P = 0 is m + (1 - m)(a - m)/(1 - m) = a, the P-mass where Q = 0 is b likewise, and on
    the common support the masses are (1 - m)(P_i, Q_i)/(1 - m) = (P_i, Q_i) with their ratios.
    So Dong, Roth & Su's Eq. (10) (f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, the case a = b)
    holds for every finite pair with singular mass on both sides."""
    ps = [sp.Rational(x) if isinstance(x, sp.Float) else sp.S(x) for x in P]
    qs = [sp.Rational(x) if isinstance(x, sp.Float) else sp.S(x) for x in Q]
    if not all(isinstance(x, sp.Rational) for x in ps + qs):
        return None
    tp, tq = sp.Add(*ps), sp.Add(*qs)
    ps, qs = [x / tp for x in ps], [x / tq for x in qs]
    a = sp.Add(*[q for p, q in zip(ps, qs, strict=True) if p == 0])
    b = sp.Add(*[p for p, q in zip(ps, qs, strict=True) if q == 0])
    m = min(a, b)
    if m == 0:
        return None
    if m == 1:
        return [], [], m
    P2 = [p / (1 - m) for p, q in zip(ps, qs, strict=True) if p != 0 and q != 0]
    Q2 = [q / (1 - m) for p, q in zip(ps, qs, strict=True) if p != 0 and q != 0]
    if b > m:
        P2.append((b - m) / (1 - m))
        Q2.append(sp.Integer(0))
    if a > m:
        P2.append(sp.Integer(0))
        Q2.append((a - m) / (1 - m))
    return P2, Q2, m


def _register_delta_part() -> None:
    from ..numeric.privacy_loss import delta_part

    @delta_part.register(Discrete)
    def _(f):
        """T(P, Q) = T(P', Q') (x) f_{0,m} (:func:`singular_split`): the singular part
        re-enters a product by Eq. (12) of Dong, Roth & Su, so eps = oo is decided at once and
        the regular part goes to the exact and lattice routes; (f, 0) when there is none."""
        if f.free_symbols or len(f.P) > 64:
            return f, 0
        split = singular_split(list(f.P), list(f.Q))
        if split is None:
            return f, 0
        P2, Q2, m = split
        return (Discrete(P2, Q2) if P2 else None), m


_register_delta_part()
