"""The exact n-fold composition of pure eps-DP: the binomial family f_{eps,0}^{(x) n}.

Kairouz, Oh & Viswanath's optimal composition, as rephrased by Dong, Roth & Su at the end of
Sec. 3.3 (proof sketch of Thm. 8):

    f_{eps,0}^{(x) n} = T(B(n, p_eps), B(n, q_eps)),  p_eps = 1/(1 + e^eps), q_eps = e^eps p_eps.

Write ``P_k = C(n,k) p^k (1-p)^{n-k}`` for the null B(n, p_eps); the alternative has
``Q_k = P_{n-k}`` and likelihood ratio ``Q_k / P_k = e^{eps (2k - n)}``, increasing in k, so the
Neyman--Pearson tests reject for large k. With the upper tails ``A_j = P(K >= j)``
(``A_0 = 1``, ``A_{n+1} = 0``) the trade-off function is the piecewise-linear function through the
knots ``(A_j, A_{n+1-j})``, j = n+1, ..., 0; on ``[A_{j+1}, A_j]``

    f(alpha) = A_{n+1-j} + (A_j - alpha) e^{eps (2j - n)},
    1 - f(alpha) = (1 - A_{n-j}) + (alpha - A_{j+1}) e^{eps (2j - n)}.

It is symmetric (the knots are symmetric under swapping coordinates); its fixed point is the
knot ``A_{(n+1)/2}`` for odd n and the midpoint ``(A_{n/2} + A_{n/2+1})/2`` of the slope -1 piece
for even n. ``n = 0`` gives Id, ``n = 1`` gives f_{eps,0}.

Numerics: exact rationals when ``e^eps`` is rational (``eps = log 2``): with ``e^eps = a/b`` the
masses are ``C(n,k) a^{n-k} b^k / (a+b)^n``, integers over one denominator. Otherwise the pmf by
the recurrence ``P_{k+1} = P_k (n-k)/(k+1) e^{-eps}`` from ``P_0 = (1 + e^{-eps})^{-n}`` at
extra working precision, tails as sums of positive terms (both tails kept, so no value is formed
by cancellation); O(n) per evaluation, cached per (eps, n, precision), for n <= TABLE_MAX_N.

Large n (above TABLE_MAX_N, up to MAX_N = 10^10): no table. A value needs the segment
``A_{j+1} <= alpha <= A_j`` and three tails (``A_j``, ``A_{j+1}``, ``A_{n+1-j}`` or their
complements); each tail is summed from its first term outwards on the side of the mode where
the terms fall (ratio of consecutive masses below 1 and decreasing, so the rest after a term t
is at most ``t r/(1 - r)``), in fixed point from a log-gamma start, the other side being 1 minus
it; the segment is located from scipy.stats.binom and confirmed by exact tails. A tail near the
centre costs about ``17 sqrt(n p (1 - p))`` terms (0.2 s at n = 10^9); far tails a few terms.
``delta(eps) = Q(K >= m) - e^eps P(K >= m)`` from two such tails, the working precision raised
by the bits the difference cancels. Beyond MAX_N numeric values are refused at once
(:class:`~tradeoff_algebra.core.errors.NumericalError`); the exact rational route stops at
EXACT_MAX_N; the PLD engine takes n > LOSS_ATOMS_MAX_N through the binomial distribution
functions (``families.binomial_loss.BinomialLoss``) instead of n + 1 atoms.

The privacy profile for TABLE_MAX_N < n <= ARB_MAX_N = 10^15 is certified in Arb:
``delta(eps) = F(n - m) - e^eps S(m)`` with F and S the distribution functions of B(n, p),
regularised incomplete beta functions (``numeric.binomial_cdf``: O(1) Arb calls at any n, about
0.1 s at n = 10^6), and eps(delta) the segment's closed form ``log((F(n - m) - delta)/S(m))``
bracketed and the bracket proved by two more balls of delta (``binomial_tails.arb_epsilon``),
and f(alpha) (its power too) by the segment's line from three such functions
(``binomial_tails.arb_value_ball``), so that no value at large n waits for a table of n + 1
atoms of n log2(1 + e^eps) bits.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import DRS
from ..core.node import TradeOff
from ..core.rules import hook, rule
from ..core.validate import fuzzy_equals, param
from ..numeric.capability import monotonicity
from ..numeric.context import mp, thread_cache
from ..numeric.finite_small import positive_eps0, register_pure_power
from ..numeric.lattice_np import np_tails
from ..numeric.privacy_loss import PrivacyLoss, loss_views, privacy_loss
from ..numeric.protocol import (
    arb_delta,
    arb_value,
    exact_value,
    mp_epsilon,
    np_value,
    num,
    register_value_and_power,
)
from ..numeric.value import CertifiedPair
from .binomial_loss import BinomialLoss, float_p
from .binomial_np import binomial_np_tails
from .binomial_tails import (
    _delta_big,
    _eval_big,
    _extra_bits,
    _float_log_delta,
    _guess_eps_segment,
    _integer_tails,
    arb_delta_ball,
    arb_epsilon,
    arb_value_ball,
)
from .epsdelta import EpsDelta
from .trivial import Id

__all__ = ["BinomialDP"]

#: Largest numeric n for which ``f(alpha)`` returns the explicit SymPy Piecewise.
PIECEWISE_MAX_N = 12
#: Largest numeric n for which the fixed point is returned as an explicit (expanded) sum.
FIXED_POINT_EXPAND_N = 40


class BinomialDP(TradeOff):
    """f_{eps,0}^{(x) n} = T(B(n, 1/(1+e^eps)), B(n, e^eps/(1+e^eps))), eps >= 0, n >= 0 integer.

    The exact trade-off function of n-fold composition of eps-DP (Kairouz, Oh & Viswanath;
    Dong, Roth & Su, Sec. 3.3). ``BinomialDP(eps, 0)`` is Id, ``BinomialDP(eps, 1)`` is
    f_{eps,0}; ``simplify`` makes those rewrites. Numeric values for n up to ``MAX_N`` =
    10^10 (from the tails they need, not a table, above ``TABLE_MAX_N``); larger n is refused
    at once with a NumericalError naming the limit.
    """

    def __new__(cls, eps: Any, n: Any):
        eps = param("eps", eps, lower=0, owner="BinomialDP")
        n = param("n", n, lower=0, integer=True, owner="BinomialDP")
        return TradeOff.__new__(cls, eps, n)

    @property
    def eps(self) -> sp.Expr:
        return self.args[0]

    @property
    def n(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    # -- closed forms ----------------------------------------------------------------------------
    def _tails_symbolic(self, n: int) -> list[sp.Expr]:
        """A_j = P(K >= j), j = 0..n+1, as SymPy expressions in e^eps (numeric n)."""
        e = sp.exp(self.eps)
        den = (1 + e) ** n
        masses = [sp.binomial(n, k) * e ** (n - k) / den for k in range(n + 1)]
        tails = [sp.S.Zero] * (n + 2)
        for j in range(n, -1, -1):
            tails[j] = tails[j + 1] + masses[j]
        tails[0] = sp.S.One
        return tails

    def _eval_at(self, alpha):
        n = self.n
        if not (isinstance(n, sp.Integer) and int(n) <= PIECEWISE_MAX_N):
            return None
        n = int(n)
        A = self._tails_symbolic(n)
        e = sp.exp(self.eps)
        pieces = []
        for j in range(n, -1, -1):
            val = A[n + 1 - j] + (A[j] - alpha) * e ** (2 * j - n)
            pieces.append((val, True if j == 0 else alpha <= A[j]))
        return sp.Piecewise(*pieces)

    def _eval_fixed_point(self):
        n = self.n
        k = sp.Dummy("k", integer=True)
        e = sp.exp(self.eps)

        def tail(j):
            return sp.Sum(sp.binomial(n, k) * e ** (n - k), (k, j, n)) / (1 + e) ** n

        if n.is_even:
            fp = (tail(n / 2) + tail(n / 2 + 1)) / 2
        elif n.is_odd:
            fp = tail((n + 1) / 2)
        else:
            return None
        if isinstance(n, sp.Integer) and int(n) <= FIXED_POINT_EXPAND_N:
            # factor only a rational e^eps (a rational fixed point): for an irrational one
            # (eps from a float) SymPy's factorisation takes minutes and gains nothing
            v = fp.doit()
            return sp.factor(v) if isinstance(e, sp.Rational) else v
        return fp

    # -- printing ----------------------------------------------------------------------------------
    def _sympystr(self, printer):
        return "BinomialDP(%s, %s)" % (printer._print(self.eps), printer._print(self.n))

    def _latex(self, printer):
        e = printer._print(sp.exp(self.eps))
        n = printer._print(self.n)
        return (r"T\left(\mathrm{B}\left(%s, \frac{1}{1 + %s}\right), "
                r"\mathrm{B}\left(%s, \frac{%s}{1 + %s}\right)\right)" % (n, e, n, e, e))


# -- numerics ----------------------------------------------------------------------------------
def _numeric_n(f: BinomialDP) -> int:
    n = f.n
    if not isinstance(n, sp.Integer):
        from ..core.errors import InvalidParameter

        raise InvalidParameter("n", n, "a non-negative integer", "BinomialDP",
                               "substitute a number for n before evaluating")
    return int(n)




@thread_cache(maxsize=16)  # (per thread: an mpf computes at its own context's precision)
def _tables(eps: sp.Expr, n: int, prec: int):
    """(upper, lower): upper[j] = P(K >= j), lower[j] = P(K < j), j = 0..n+1, at ``prec`` bits.

    K ~ B(n, 1/(1+e^eps)); both tails are sums of positive terms (no cancellation).
    """
    with mp.workprec(prec):
        e = num(eps, "eps")
        with mp.workprec(prec + _extra_bits(e, n)):
            e = num(eps, "eps")
            em = mp.exp(-e)
            pk = mp.exp(-n * mp.log1p(em))  # P_0 = (1 - p)^n
            pmf = [pk]
            for k in range(n):
                pk = pk * (n - k) / (k + 1) * em
                pmf.append(pk)
            upper = [mp.zero] * (n + 2)
            acc = mp.zero
            for j in range(n, -1, -1):
                acc += pmf[j]
                upper[j] = acc
            lower = [mp.zero] * (n + 2)
            acc = mp.zero
            for j in range(n + 1):
                acc += pmf[j]
                lower[j + 1] = acc
        return tuple(upper), tuple(lower)


def _segment(upper, lower, a, ac, n: int) -> int:
    """The j with A_{j+1} <= alpha <= A_j (A_j = upper[j]), searched on the accurate side."""
    if a <= ac:
        # the largest j with A_j >= alpha; -A_j is increasing in j
        j = bisect_right([-u for u in upper], -a) - 1
    else:
        # A_j >= alpha  <=>  P(K < j) <= 1 - alpha; lower[j] = P(K < j) is increasing in j
        j = bisect_right(lower, ac) - 1
    return min(max(j, 0), n)


def _distances(upper, lower, a, ac, j):
    """(A_j - alpha, alpha - A_{j+1}), each >= 0, formed on the side without cancellation."""
    if a <= ac:
        d_hi, d_lo = upper[j] - a, a - upper[j + 1]
    else:
        d_hi, d_lo = ac - lower[j], lower[j + 1] - ac
    return max(d_hi, mp.zero), max(d_lo, mp.zero)


def _eval(f: BinomialDP, a, ac, power: bool):
    n = _numeric_n(f)
    if n > TABLE_MAX_N:
        _check_size(f, n)
        return _eval_big(f, n, a, ac, power)
    upper, lower = _tables(f.eps, n, mp.prec)
    with mp.workprec(mp.prec + _extra_bits(num(f.eps, "eps"), n)):
        j = _segment(upper, lower, a, ac, n)
        lr = mp.exp(num(f.eps, "eps") * (2 * j - n))
        d_hi, d_lo = _distances(upper, lower, a, ac, j)
        v = lower[n - j] + d_lo * lr if power else upper[n + 1 - j] + d_hi * lr
    v = +v
    return v, v


# -- large n: the tails summed from where they start (binomial_tails) ---------------------------
#: Largest n evaluated through the full table of tails (above it: :class:`_Tails`, which sums
#: each needed tail from its start, O(sigma sqrt(precision)) terms).
TABLE_MAX_N = 4000
#: Largest n with numeric values: a tail near the centre needs about 17 sqrt(n p (1 - p))
#: terms (1.7 10^6 at n = 10^10), so beyond it the evaluation is refused at once.
MAX_N = 10**10
#: Largest n for the exact rational route (e^eps rational): the integers have n log2(a + b)
#: bits and there are n of them; above it the mpmath route answers.
EXACT_MAX_N = 20000
#: Largest n whose n + 1 atoms feed the PLD engine; above it the binomial distribution
#: functions do (families.binomial_loss.BinomialLoss).
LOSS_ATOMS_MAX_N = 10**5


def _check_size(f: BinomialDP, n: int) -> None:
    if n > MAX_N:
        from ..core.errors import NumericalError

        raise NumericalError(
            f"BinomialDP(eps, n) with n = {brief(n)}: values f(alpha) are available for "
            f"n <= {MAX_N:.0e} (MAX_N; a tail sum near the centre of B(n, p) needs about "
            "17 sqrt(n p (1 - p)) terms), delta(eps) and eps(delta) for n <= "
            "1e+15 (ARB_MAX_N); the symbolic form f(alpha) and the rules apply for any n")


def brief(n: int) -> str:
    """n for a message: in full below 10^12, else as a power of ten (a float would overflow
    beyond 10^308)."""
    return str(n) if n < 10**12 else f"10^{math.log10(n):.1f}"


register_value_and_power(BinomialDP, _eval)


@exact_value.register(BinomialDP)
def _(f, A, Ac):
    r = sp.exp(f.eps)
    if not isinstance(r, sp.Rational) or not isinstance(f.n, sp.Integer):
        return None
    n, a, b = int(f.n), int(r.p), int(r.q)
    if n > EXACT_MAX_N or n * n * (a + b).bit_length() > 5 * 10**8:
        return None  # the integers would be too long: the mpmath route answers
    upper = _integer_tails(n, a, b)
    D = upper[0]
    x = Fraction(int(A.p), int(A.q)) * D
    j = n
    while j > 0 and upper[j] < x:
        j -= 1
    lr = Fraction(a, b) ** (2 * j - n)
    val = (upper[n + 1 - j] + (upper[j] - x) * lr) / D
    return sp.Rational(val.numerator, val.denominator)


@np_value.register(BinomialDP)
def _(f, x):
    """The knots (A_j, A_{n+1-j}) in float64 from scipy.stats.binom (accurate for large n,
    unlike scipy.special.bdtrc); for large n only the knots where a coordinate is not
    saturated at 0 or 1 (j within 40 standard deviations of n p or of n + 1 - n p) and one
    knot on each side of those windows (the others coincide with these in float64)."""
    from scipy.stats import binom

    n = _numeric_n(f)
    _check_size(f, n)
    p = float_p(float(f.eps))
    if n <= 10**6:
        j = np.arange(n + 2, dtype=float)
    else:
        c = 40.0 * math.sqrt(n * p * (1.0 - p)) + 50.0
        lo, hi = max(int(n * p - c), 0), min(int(n * p + c) + 1, n + 1)
        w = np.arange(lo, hi + 1)
        j = np.unique(np.concatenate([[0, n + 1, max(lo - 1, 0), min(hi + 1, n + 1)], w,
                                      n + 1 - w])).astype(float)
    with np.errstate(all="ignore"):
        upper = binom.sf(j - 1, n, p)  # P(K > j - 1) = P(K >= j)
        mirror = binom.sf(n - j, n, p)  # A_{n+1-j} = P(K >= n + 1 - j)
    upper[j == 0], upper[j == n + 1] = 1.0, 0.0
    mirror[j == 0], mirror[j == n + 1] = 0.0, 1.0
    order = np.argsort(upper, kind="stable")
    xs, ys = upper[order], mirror[order]
    xs, idx = np.unique(xs, return_index=True)
    # Knots tied in float64 (tails below the smallest double): keep the lowest ordinate,
    # except at alpha = 0 where f(0) = 1 (the mass P(K = n) is positive).
    lowest = np.minimum.reduceat(ys, idx)
    if xs[0] == 0.0:  # f(0) = 1; knots below the smallest double end at the lowest ordinate,
        top = np.maximum.reduceat(ys, idx)[0]  # reached before the first positive double
        if top != lowest[0]:
            xs = np.concatenate([[0.0, np.nextafter(0.0, 1.0)], xs[1:]])
            lowest = np.concatenate([[top], lowest])
        else:
            lowest[0] = top
    ys = lowest
    return np.interp(x, xs, ys)


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# The family's own rule, and its hooks for the tensor product and power (core.rules.hook).

_KOV = DRS.at("Sec. 3.3", note="f_{eps,0}^{(x) n} = T(B(n, p_eps), B(n, q_eps)), after "
              "Kairouz, Oh & Viswanath")


@hook("tensor_power", cite=_KOV, priority=40)
def epsdelta_power_binomial(b, n):
    """f_{eps,0}^{(x) n} = T(B(n, 1/(1+e^eps)), B(n, e^eps/(1+e^eps))) = BinomialDP(eps, n).

    Checked against brute-force Neyman-Pearson on the n-fold product of the randomized-response
    pair for n <= 6 (both orientations of the binomial pair give the same, symmetric, function).
    """
    if isinstance(b, EpsDelta) and b.delta.is_zero is True:
        return BinomialDP(b.eps, n)
    return None


@hook("tensor_power", cite=_KOV, priority=40)
def binomial_power(b, m):
    """(f_{eps,0}^{(x) n})^{(x) m} = f_{eps,0}^{(x) nm}."""
    return BinomialDP(b.eps, b.n * m) if isinstance(b, BinomialDP) else None


def _pure_eps_count(f):
    """(eps, count) for f_{eps,0} (count 1) and BinomialDP(eps, n) (count n); else None."""
    if isinstance(f, BinomialDP):
        return f.eps, f.n
    if isinstance(f, EpsDelta) and f.delta.is_zero is True:
        return f.eps, sp.S.One
    return None


@hook("tensor", cite=_KOV, priority=45)
def binomial_tensor(factors):
    """f_{eps,0}^{(x) n} (x) f_{eps,0}^{(x) m} = f_{eps,0}^{(x)(n+m)} (and f_{eps,0} counts 1).

    Merges the factors with the same eps when at least one is already a BinomialDP (products
    of plain f_{eps,0} factors are collected into a power first, then rewritten).
    """
    groups: dict = {}
    has_binomial: dict = {}
    for f in factors:
        ec = _pure_eps_count(f)
        if ec is not None:
            groups.setdefault(ec[0], []).append(f)
            has_binomial[ec[0]] = has_binomial.get(ec[0], False) or isinstance(f, BinomialDP)
    merge = {e for e, fs in groups.items() if len(fs) >= 2 and has_binomial[e]}
    if not merge:
        return None
    out = [f for f in factors if (_pure_eps_count(f) or (None,))[0] not in merge]
    for e in merge:
        out.append(BinomialDP(e, sp.Add(*[_pure_eps_count(f)[1] for f in groups[e]])))
    return out


@rule(BinomialDP, cite=_KOV, priority=100)
def binomial_trivial(f: BinomialDP):
    """f_{eps,0}^{(x) 0} = Id (B(0, p) is a point mass) and f_{0,0}^{(x) n} = Id (p = q = 1/2)."""
    return Id if (fuzzy_equals(f.n, 0) is True or fuzzy_equals(f.eps, 0) is True) else None


@np_tails.register(BinomialDP)
def _(f, alphas, rel):
    """The Neyman-Pearson tails of f_{eps,0}^{(x) n} (``families.binomial_np``)."""
    if f.free_symbols or not isinstance(f.n, sp.Integer):
        return None
    return binomial_np_tails(f.eps, int(f.n), alphas, rel)


@monotonicity.register(BinomialDP)
def _(f):
    """f_{eps,0}^{(x) n} is non-increasing in eps (each factor is, Eq. (4), and the tensor
    product is monotone in its factors, Lemma 4) and in n (f (x) g <= f, Lemma 4)."""
    return (-1, -1)


# -- exact composition and privacy profile (tradeoff_algebra.numeric.finite) ---------------------
def _register_finite() -> None:
    from ..core.errors import NoClosedForm
    from ..numeric.finite import FiniteLoss, finite_loss
    from ..numeric.protocol import mp_delta

    @lru_cache(maxsize=32)
    def binomial_loss(eps: sp.Expr, n: int) -> FiniteLoss:
        # one object per (eps, n): its tables (per working precision) are built once for the
        # many delta evaluations of an epsilon search
        return FiniteLoss.binomial(eps, n)

    @privacy_loss.register(BinomialDP)

    @loss_views("grid", "exact")
    def _(f) -> PrivacyLoss | None:
        """The n-fold product of randomized response (None for symbolic eps or n): its exact
        atoms; for n above LOSS_ATOMS_MAX_N the PLD grid reads the binomial distribution
        functions instead (BinomialLoss)."""
        if f.free_symbols or not isinstance(f.n, sp.Integer):
            return None
        n = int(f.n)
        exact = binomial_loss(f.eps, n)
        if n <= LOSS_ATOMS_MAX_N or f.eps.is_zero is True:
            return exact
        return BinomialLoss(float(f.eps), n, exact=exact, check=lambda: _check_size(f, n))

    @mp_delta.register(BinomialDP)
    def _(f, eps):
        """delta(eps) = sum_{k: (2k - n) eps0 > eps} (Q_k - e^eps P_k) with the binomial masses
        P_k = C(n,k) e^{(n-k) eps0}/(1 + e^eps0)^n, Q_k = P_{n-k} (Dong, Roth & Su, Prop. 6 and
        Sec. 3.3): the far terms from the binomial tails, the near ones as
        -Q_k expm1(eps - (2k - n) eps0), so no cancellation."""
        fl = finite_loss(f)
        if fl is None:
            raise NoClosedForm(f"{f}: delta(eps) needs numeric eps and n")
        if int(f.n) > TABLE_MAX_N:
            pair = _arb_delta_pair(f, eps)
            if pair is not None:
                return pair
            _check_size(f, int(f.n))
            return _delta_big(f, int(f.n), eps)
        return fl.mp_delta(eps)


_register_finite()


# -- the profile in Arb for large n: two regularised incomplete beta functions -------------------
#: Largest n of the Arb profile (delta(eps) and eps(delta) by incomplete beta functions,
#: ``binomial_tails.arb_delta_ball``): the float search of the segment counts exactly below
#: 2^53, and Arb's incomplete beta stays O(1) calls far beyond MAX_N.
ARB_MAX_N = 10**15


def _arb_n(f: BinomialDP, least: int = TABLE_MAX_N + 1) -> int | None:
    """n when the Arb profile applies (numeric eps > 0, least <= n <= ARB_MAX_N)."""
    if f.free_symbols or not isinstance(f.n, sp.Integer) or fuzzy_equals(f.eps, 0) is not False:
        return None
    n = int(f.n)
    return n if least <= n <= ARB_MAX_N else None


@arb_delta.register(BinomialDP)
def _(f, eps):
    """delta(eps) = Q(K >= m) - e^eps P(K >= m) as a certified ball from two regularised
    incomplete beta functions (Kairouz, Oh & Viswanath's sum; Dong, Roth & Su, Prop. 6 and
    Sec. 3.3; ``binomial_tails.arb_delta_ball``), for 1 <= n <= ARB_MAX_N (O(1) Arb calls at
    any n; the public delta takes the exact finite route first where it is affordable)."""
    from flint import ctx

    n = _arb_n(f, 1)
    return None if n is None else arb_delta_ball(f.eps, n, eps, ctx.prec)


@arb_value.register(BinomialDP)
def _(f, a, ac, power):
    """f(alpha) (``power``: 1 - f(alpha)) as a ball for TABLE_MAX_N < n <= ARB_MAX_N: the
    Neyman--Pearson segment's line from three regularised incomplete beta functions
    (``binomial_tails.arb_value_ball``; O(1) Arb calls at any n, where the exact table of
    n + 1 atoms costs O(n) big-integer operations); None below (the exact routes answer)."""
    n = _arb_n(f)
    return None if n is None else arb_value_ball(f.eps, n, a, ac, power)


def _pair_of(ball, unit: bool = True) -> CertifiedPair:
    """A ball's ends as mpfs rounded outward (``unit``: clipped to [0, 1])."""
    from mpmath.libmp import round_ceiling, round_floor

    from ..numeric.arb import arb_endpoint
    from ..numeric.context import arb_precision

    with arb_precision(mp.prec + 64):  # (a ball's ends are rounded at Arb's precision)
        lo = arb_endpoint(ball.lower(), round_floor)
        hi = arb_endpoint(ball.upper(), round_ceiling)
    return CertifiedPair(max(lo, mp.zero), min(hi, mp.one)) if unit else CertifiedPair(lo, hi)


def _arb_delta_pair(f: BinomialDP, eps) -> CertifiedPair | None:
    """delta at the mpf eps from :func:`arb_delta_ball` (certified), or None."""
    from ..numeric.arb import arb_exact

    n = _arb_n(f)
    if n is None:
        return None
    if eps == mp.inf:
        return CertifiedPair(mp.zero, mp.zero)
    ball = arb_delta_ball(f.eps, n, arb_exact(eps), mp.prec + 10)
    if ball is None or not ball.is_finite():
        return None
    if ball.rel_accuracy_bits() >= mp.prec + 4:  # a point correct to the working precision
        from mpmath.libmp import round_nearest

        from ..numeric.arb import arb_endpoint
        from ..numeric.context import arb_precision

        with arb_precision(mp.prec + 64):
            m = min(max(arb_endpoint(ball.mid(), round_nearest), mp.zero), mp.one)
        return CertifiedPair(m, m)
    return _pair_of(ball)


@mp_epsilon.register(BinomialDP)
def _(f, d):
    """eps(d) for 1 <= n <= ARB_MAX_N as a CertifiedPair proved in Arb
    (``binomial_tails.arb_epsilon``: the segment's closed form log((A - d)/B), then delta(lo) >
    d >= delta(hi) proved by incomplete beta functions); eps(0) = n eps0 (delta vanishes
    exactly from the largest loss on); None where Arb proves nothing (the bracketing search
    answers)."""
    from flint import arb, fmpq

    from ..core.errors import NumericalError
    from ..numeric.arb_expr import arb_ball
    from ..numeric.budget import TimeLimitExceeded
    from ..numeric.context import arb_precision

    n = _arb_n(f, 1)
    if n is None:
        return None
    if d >= 1:
        return CertifiedPair(mp.zero, mp.zero)
    if d <= 0:
        with arb_precision(mp.prec + 20):
            return _pair_of(arb_ball(f.eps) * n, unit=False)
    D = _mpf_fraction(d)
    if _guess_positive(f.eps, n, float(d)):
        # arb_epsilon proves delta(lo) > d; with lo > 0, delta(0) >= delta(lo) > d (delta is
        # non-increasing, Prop. 6), so the check of delta(0) below is implied and skipped. The
        # float guess only orders the work: a wrong guess falls through to that check.
        try:
            lo, hi = arb_epsilon(f.eps, n, D, mp.prec + 12)
        except TimeLimitExceeded:
            raise
        except NumericalError:
            lo = hi = None
        if lo is not None and lo > 0:
            return _bracket_pair(lo, hi)
    with arb_precision(mp.prec + 2 * n.bit_length() + 40):
        at0 = arb_delta_ball(f.eps, n, arb(0), mp.prec + 16)
        dd = arb(fmpq(D.numerator, D.denominator))
        if at0 is None:
            return None
        if at0 <= dd:
            return CertifiedPair(mp.zero, mp.zero)
        if not at0 > dd:
            return None
    try:
        lo, hi = arb_epsilon(f.eps, n, D, mp.prec + 12)
    except TimeLimitExceeded:  # (a NumericalError, but no answer of "Arb proves nothing")
        raise
    except NumericalError:
        return None
    return _bracket_pair(lo, hi)


def _bracket_pair(lo: Fraction, hi: Fraction) -> CertifiedPair:
    """The proved bracket lo <= eps(d) <= hi as mpfs rounded outward, or one mpf where the
    bracket is narrower than the working precision (a point correct to it)."""
    if hi - lo <= lo / 2 ** (mp.prec + 2):  # a point correct to the working precision
        m = (lo + hi) / 2
        return CertifiedPair(*(2 * [mp.fdiv(m.numerator, m.denominator)]))
    with mp.workprec(mp.prec + 10):
        return CertifiedPair(mp.fdiv(lo.numerator, lo.denominator, rounding="d"),
                             mp.fdiv(hi.numerator, hi.denominator, rounding="u"))


def _guess_positive(eps0: sp.Expr, n: int, d: float) -> bool:
    """Whether floats put eps(d) above a lattice point l(m - 1) = eps0 (2(m - 1) - n) >= 0
    (at l(m - 1) = 0, with delta(0) above d by a margin of 1% in floats): a guess, never a
    proof; it only decides which check runs first."""
    if not 0 < d < 1:
        return False
    try:
        m = _guess_eps_segment(n, eps0, d)
        j = 2 * (m - 1) - n
        if j > 0:
            return True
        if j < 0:
            return False
        e0 = float(eps0)
        return _float_log_delta(n, float_p(e0), e0, m - 1) > math.log(d) + 0.01
    except (ValueError, OverflowError, ZeroDivisionError):
        return False


def _mpf_fraction(x) -> Fraction:
    """The exact rational value of a finite mpf."""
    sign, man, exp, _ = x._mpf_  # (mpf.man_exp drops the sign)
    man, exp = (-int(man) if sign else int(man)), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


@register_pure_power(BinomialDP)
def _(f):
    """BinomialDP(eps0, n) is f_{eps0,0}^{(x) n} (numeric.finite_small at small n)."""
    eps0, n = f.args
    return (eps0, int(n)) if isinstance(n, sp.Integer) and n.p >= 1 and positive_eps0(eps0) \
        else None
