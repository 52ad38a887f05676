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
by cancellation); O(n) per evaluation, cached per (eps, n, precision).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp

from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.context import MPF, mp
from ..numeric.protocol import exact_value, mp_roc, mp_value, np_value, num

__all__ = ["BinomialDP"]

#: Largest numeric n for which ``f(alpha)`` returns the explicit SymPy Piecewise.
PIECEWISE_MAX_N = 12
#: Largest numeric n for which the fixed point is returned as an explicit (expanded) sum.
FIXED_POINT_EXPAND_N = 40


class BinomialDP(TradeOff):
    """f_{eps,0}^{(x) n} = T(B(n, 1/(1+e^eps)), B(n, e^eps/(1+e^eps))), eps >= 0, n >= 0 integer.

    The exact trade-off function of n-fold composition of eps-DP (Kairouz, Oh & Viswanath;
    Dong, Roth & Su, Sec. 3.3). ``BinomialDP(eps, 0)`` is Id, ``BinomialDP(eps, 1)`` is
    f_{eps,0}; ``simplify`` makes those rewrites.
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
            return sp.factor(fp.doit())
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


def _extra_bits(eps: MPF, n: int) -> int:
    # The pmf recurrence loses ~3 ulp per step; a value assembled from one tail and one
    # linear piece amplifies relative errors by at most about e^{2 eps}.
    return 2 * max(1, n).bit_length() + int(3 * eps / math.log(2)) + 16


@lru_cache(maxsize=16)
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
    upper, lower = _tables(f.eps, n, mp.prec)
    with mp.workprec(mp.prec + _extra_bits(num(f.eps, "eps"), n)):
        j = _segment(upper, lower, a, ac, n)
        lr = mp.exp(num(f.eps, "eps") * (2 * j - n))
        d_hi, d_lo = _distances(upper, lower, a, ac, j)
        v = lower[n - j] + d_lo * lr if power else upper[n + 1 - j] + d_hi * lr
    v = +v
    return v, v


@mp_value.register(BinomialDP)
def _(f, a, ac):
    return _eval(f, a, ac, power=False)


@mp_roc.register(BinomialDP)
def _(f, a, ac):
    return _eval(f, a, ac, power=True)


@lru_cache(maxsize=4)
def _integer_tails(n: int, a: int, b: int) -> tuple[int, ...]:
    """upper[j] = sum_{k >= j} C(n,k) a^{n-k} b^k: the tails of B(n, b/(a+b)) times (a+b)^n."""
    w = a**n
    weights = [w]
    for k in range(n):
        w = w * (n - k) * b // ((k + 1) * a)
        weights.append(w)
    upper = [0] * (n + 2)
    acc = 0
    for j in range(n, -1, -1):
        acc += weights[j]
        upper[j] = acc
    return tuple(upper)


@exact_value.register(BinomialDP)
def _(f, A, Ac):
    r = sp.exp(f.eps)
    if not isinstance(r, sp.Rational) or not isinstance(f.n, sp.Integer):
        return None
    n, a, b = int(f.n), int(r.p), int(r.q)
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
    from scipy import special

    n = _numeric_n(f)
    p = 1.0 / (1.0 + math.exp(float(f.eps)))
    j = np.arange(n + 2, dtype=float)
    with np.errstate(all="ignore"):
        upper = special.bdtrc(j - 1, n, p)  # P(K > j - 1) = P(K >= j)
    upper[0], upper[-1] = 1.0, 0.0
    xs, ys = upper[::-1], upper  # knots (A_j, A_{n+1-j}) in increasing A_j
    xs, idx = np.unique(xs, return_index=True)
    # Knots tied in float64 (tails below the smallest double): keep the lowest ordinate,
    # except at alpha = 0 where f(0) = 1 (the mass P(K = n) is positive).
    lowest = np.minimum.reduceat(ys, idx)
    if xs[0] == 0.0:
        lowest[0] = np.maximum.reduceat(ys, idx)[0]
    ys = lowest
    return np.interp(x, xs, ys)


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# Registered here, with the family, for the nodes they rewrite.

from ..core.citations import DRS  # noqa: E402
from ..core.rules import rule  # noqa: E402
from ..operators.tensor import Tensor, TensorPower  # noqa: E402
from .epsdelta import EpsDelta  # noqa: E402
from .trivial import Id  # noqa: E402

_KOV = DRS.at("Sec. 3.3", note="f_{eps,0}^{(x) n} = T(B(n, p_eps), B(n, q_eps)), after "
              "Kairouz, Oh & Viswanath")


@rule(TensorPower, cite=_KOV, priority=40)
def epsdelta_power_binomial(t: TensorPower):
    """f_{eps,0}^{(x) n} = T(B(n, 1/(1+e^eps)), B(n, e^eps/(1+e^eps))) = BinomialDP(eps, n).

    Checked against brute-force Neyman-Pearson on the n-fold product of the randomized-response
    pair for n <= 6 (both orientations of the binomial pair give the same, symmetric, function).
    """
    b = t.base
    if isinstance(b, EpsDelta) and b.delta.is_zero is True:
        return BinomialDP(b.eps, t.n)
    return None


@rule(TensorPower, cite=_KOV, priority=40)
def binomial_power(t: TensorPower):
    """(f_{eps,0}^{(x) n})^{(x) m} = f_{eps,0}^{(x) nm}."""
    b = t.base
    return BinomialDP(b.eps, b.n * t.n) if isinstance(b, BinomialDP) else None


def _pure_eps_count(f):
    """(eps, count) for f_{eps,0} (count 1) and BinomialDP(eps, n) (count n); else None."""
    if isinstance(f, BinomialDP):
        return f.eps, f.n
    if isinstance(f, EpsDelta) and f.delta.is_zero is True:
        return f.eps, sp.S.One
    return None


@rule(Tensor, cite=_KOV, priority=45)
def binomial_tensor(t: Tensor):
    """f_{eps,0}^{(x) n} (x) f_{eps,0}^{(x) m} = f_{eps,0}^{(x)(n+m)} (and f_{eps,0} counts 1).

    Merges the factors with the same eps when at least one is already a BinomialDP (products
    of plain f_{eps,0} factors are collected into a power first, then rewritten).
    """
    groups: dict = {}
    has_binomial: dict = {}
    for f in t.factors:
        ec = _pure_eps_count(f)
        if ec is not None:
            groups.setdefault(ec[0], []).append(f)
            has_binomial[ec[0]] = has_binomial.get(ec[0], False) or isinstance(f, BinomialDP)
    merge = {e for e, fs in groups.items() if len(fs) >= 2 and has_binomial[e]}
    if not merge:
        return None
    out = [f for f in t.factors if (_pure_eps_count(f) or (None,))[0] not in merge]
    for e in merge:
        out.append(BinomialDP(e, sp.Add(*[_pure_eps_count(f)[1] for f in groups[e]])))
    return Tensor(*out)


@rule(BinomialDP, cite=_KOV, priority=100)
def binomial_trivial(f: BinomialDP):
    """f_{eps,0}^{(x) 0} = Id (B(0, p) is a point mass) and f_{0,0}^{(x) n} = Id (p = q = 1/2)."""
    return Id if (f.n.is_zero is True or f.eps.is_zero is True) else None


# -- exact composition and privacy profile (tradeoff_algebra.numeric.finite) ---------------------
def _register_finite() -> None:
    from ..core.errors import NoClosedForm
    from ..numeric.finite import FiniteLoss, finite_loss
    from ..numeric.protocol import mp_delta

    @finite_loss.register(BinomialDP)
    def _(f):
        """The n-fold product of randomized response (None for symbolic eps or n)."""
        if f.free_symbols or not isinstance(f.n, sp.Integer):
            return None
        return FiniteLoss.binomial(f.eps, int(f.n))

    @mp_delta.register(BinomialDP)
    def _(f, eps):
        """delta(eps) = sum_{k: (2k - n) eps0 > eps} (Q_k - e^eps P_k) with the binomial masses
        P_k = C(n,k) e^{(n-k) eps0}/(1 + e^eps0)^n, Q_k = P_{n-k} (Dong, Roth & Su, Prop. 6 and
        Sec. 3.3): the far terms from the binomial tails, the near ones as
        -Q_k expm1(eps - (2k - n) eps0), so no cancellation."""
        fl = finite_loss(f)
        if fl is None:
            raise NoClosedForm(f"{f}: delta(eps) needs numeric eps and n")
        return fl.mp_delta(eps)


_register_finite()
