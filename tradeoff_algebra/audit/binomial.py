"""Exact binomial confidence bounds proved in Arb: the Clopper–Pearson quantiles by bisection.

Clopper & Pearson (1934): for ``k`` successes in ``n`` Bernoulli(p) trials, the one-sided upper
bound at level ``gamma`` is the ``p`` where ``P(Bin(n, p) <= k) = gamma`` (1 when ``k = n``),
and the lower bound the ``p`` where ``P(Bin(n, p) >= k) = gamma`` (0 when ``k = 0``). Both
tails are regularised incomplete beta functions,

    P(Bin(n, p) <= k) = I_{1-p}(n - k, k + 1),     P(Bin(n, p) >= k) = I_p(k, n - k + 1),

which Arb encloses in a ball (``arb.beta_lower(..., regularized=True)``, python-flint). The
tails are monotone in ``p``, so a bisection over dyadic rationals whose every comparison is
decided by a ball proves its bracket (a float quantile of scipy may propose a narrow bracket
first; it is kept only when Arb proves both its ends): the returned upper bound ``u`` has
``P(Bin(n, u) <= k) < gamma`` proved, hence lies above the exact Clopper–Pearson bound, and the
lower bound below it. The bounds are therefore conservative (their coverage is at least
``1 - gamma``) and exact dyadic rationals (``fractions.Fraction``); no float enters a decision.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NumericalError
from ..numeric.context import arb_precision

__all__ = ["binomial_cdf_ball", "binomial_sf_ball", "cp_upper", "cp_lower", "clopper_pearson",
           "check_counts", "check_level", "exact_fraction"]

#: bits of the dyadic bisection (the bracket of the exact quantile is 2^-BITS wide at most)
BITS = 64

#: working precisions (bits) of the Arb balls, tried in turn when a comparison is undecided
PRECISIONS = (64, 128, 256, 512)


def check_counts(k: Any, n: Any, name: str = "k", owner: str = "clopper_pearson") -> tuple:
    """``(k, n)`` as Python ints with ``0 <= k <= n`` and ``n >= 1``, else InvalidParameter."""
    for nm, x in ((name, k), ("n", n)):
        if isinstance(x, bool) or not hasattr(x, "__index__"):
            raise InvalidParameter(nm, x, "a non-negative integer", owner)
    k, n = int(k), int(n)
    if n < 1:
        raise InvalidParameter("n", n, "an integer >= 1 (the number of trials)", owner)
    if not 0 <= k <= n:
        raise InvalidParameter(name, k, f"an integer in [0, n] = [0, {n}]", owner)
    return k, n


def exact_fraction(x: Any) -> Fraction:
    """A real number as an exact Fraction: a float or a SymPy Float by its exact binary value,
    a string as written ("0.95" = 19/20, "1e-5" = 1/100000), a SymPy Rational exactly.
    TypeError or ValueError for anything else (booleans, NaN, infinities, irrationals)."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number here")
    if isinstance(x, sp.Basic):
        r = sp.Rational(x)  # exact for Float and Rational; raises for others
        return Fraction(int(r.p), int(r.q))
    return Fraction(x)


def check_level(gamma: Any, name: str = "gamma", owner: str = "clopper_pearson") -> Fraction:
    """A level in the open interval (0, 1) as an exact Fraction (:func:`exact_fraction`)."""
    try:
        g = exact_fraction(gamma)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameter(name, gamma, "a number in (0, 1)", owner) from None
    if not 0 < g < 1:
        raise InvalidParameter(name, gamma, "a number in (0, 1)", owner)
    return g


def _arb_q(q: Fraction):
    from flint import arb, fmpq

    return arb(fmpq(q.numerator, q.denominator))


def binomial_cdf_ball(k: int, n: int, p: Fraction, prec: int = 64):
    """An Arb ball of ``P(Bin(n, p) <= k)`` (``p`` an exact rational in [0, 1])."""
    if k >= n or p == 0:
        return _ball_one()
    if p == 1:
        return _ball_zero()
    with arb_precision(prec):
        z = 1 - _arb_q(p)
        return z.beta_lower(n - k, k + 1, regularized=True)


def binomial_sf_ball(k: int, n: int, p: Fraction, prec: int = 64):
    """An Arb ball of ``P(Bin(n, p) >= k)`` (``p`` an exact rational in [0, 1])."""
    if k <= 0 or p == 1:
        return _ball_one()
    if p == 0:
        return _ball_zero()
    with arb_precision(prec):
        return _arb_q(p).beta_lower(k, n - k + 1, regularized=True)


def _ball_one():
    from flint import arb

    return arb(1)


def _ball_zero():
    from flint import arb

    return arb(0)


def _compare(tail, p: Fraction, gamma: Fraction) -> int:
    """+1 if ``tail(p) > gamma`` is proved, -1 if ``tail(p) < gamma``, 0 if no precision of
    :data:`PRECISIONS` decides."""
    g = _arb_q(gamma)
    for prec in PRECISIONS:
        with arb_precision(prec):
            b = tail(p, prec)
            if b > g:
                return 1
            if b < g:
                return -1
    return 0


def _dyadic(x: float, up: bool) -> Fraction:
    """A dyadic rational of :data:`BITS` bits next to the float ``x`` in [0, 1], rounded up or
    down (the exact Fraction of a float, then rounded on the 2^-BITS grid)."""
    q = Fraction(min(max(x, 0.0), 1.0)) * 2**BITS
    m = -((-q.numerator) // q.denominator) if up else q.numerator // q.denominator
    return Fraction(min(max(m, 0), 2**BITS), 2**BITS)


def _bisect(tail, gamma: Fraction, increasing: bool, guess: float | None = None
            ) -> tuple[Fraction, Fraction]:
    """The bracket ``(lo, hi)`` of the root of ``tail(p) = gamma`` on [0, 1], ``tail`` monotone
    (increasing or decreasing), with the signs at both ends proved in Arb; dyadic ends.

    ``guess`` (a float, e.g. scipy's beta quantile) only proposes a narrow bracket
    ``guess (1 -+ 2^-40)``: it is kept when Arb proves the signs at its two ends; otherwise the
    bisection runs from [0, 1] to 2^-40 relative. Either way every end returned has its sign
    proved, and the bracket is at most 2^-38 relative to its upper end wide (or as narrow as
    the highest precision of :data:`PRECISIONS` decides).
    """
    def side(p: Fraction) -> int:  # +1: the root lies left of p; -1: right; 0: undecided
        s = _compare(tail, p, gamma)
        return 0 if s == 0 else (1 if (s > 0) == increasing else -1)

    if guess is not None and 0 < guess < 1:
        lo, hi = _dyadic(guess * (1 - 2.0**-40), False), _dyadic(guess * (1 + 2.0**-40), True)
        if 0 < lo < hi < 1 and side(lo) < 0 and side(hi) > 0:
            return lo, hi
    scale = 2**BITS
    a, b = 0, scale  # lo = a/scale, hi = b/scale
    while b - a > 1 and (b - a) * 2**40 > b:  # to 2^-40 relative of the upper end
        m = (a + b) // 2
        s = side(Fraction(m, scale))
        if s == 0:  # the ball straddles gamma even at the highest precision: stop here
            break
        if s > 0:
            b = m
        else:
            a = m
    return Fraction(a, scale), Fraction(b, scale)


def _guess(q: float, a: float, b: float) -> float | None:
    """scipy's float quantile of Beta(a, b) at q: a proposal only (see :func:`_bisect`)."""
    try:
        from scipy.special import betaincinv

        x = float(betaincinv(a, b, q))
    except Exception:  # noqa: BLE001 - a proposal that fails is simply not used
        return None
    return x if 0 < x < 1 else None


def cp_upper(k: Any, n: Any, gamma: Any) -> tuple[Fraction, Fraction]:
    """The one-sided Clopper–Pearson upper bound at level ``gamma`` for ``k`` of ``n``:
    ``(lo, hi)`` bracketing the exact bound ``u`` (``P(Bin(n, u) <= k) = gamma``), with
    ``P(Bin(n, hi) <= k) < gamma`` proved in Arb. ``hi`` is the conservative bound: for every
    ``p``, ``P_p(hi(K) >= p) >= 1 - gamma``. ``k = n`` gives ``(1, 1)``."""
    k, n = check_counts(k, n, owner="cp_upper")
    gamma = check_level(gamma, owner="cp_upper")
    if k == n:
        return Fraction(1), Fraction(1)
    # P(Bin(n, u) <= k) = gamma  <=>  u is the (1 - gamma) quantile of Beta(k + 1, n - k)
    lo, hi = _bisect(lambda p, prec: binomial_cdf_ball(k, n, p, prec), gamma, increasing=False,
                     guess=_guess(float(1 - gamma), k + 1, n - k))
    if hi == 1 and lo == 0:
        raise NumericalError(f"cp_upper({k}, {n}, {gamma}): no comparison was decided")
    return lo, hi


def cp_lower(k: Any, n: Any, gamma: Any) -> tuple[Fraction, Fraction]:
    """The one-sided Clopper–Pearson lower bound at level ``gamma``: ``(lo, hi)`` bracketing
    the exact bound ``l`` (``P(Bin(n, l) >= k) = gamma``), ``P(Bin(n, lo) >= k) < gamma``
    proved; ``lo`` is the conservative bound. ``k = 0`` gives ``(0, 0)``."""
    k, n = check_counts(k, n, owner="cp_lower")
    gamma = check_level(gamma, owner="cp_lower")
    if k == 0:
        return Fraction(0), Fraction(0)
    # P(Bin(n, l) >= k) = gamma  <=>  l is the gamma quantile of Beta(k, n - k + 1)
    lo, hi = _bisect(lambda p, prec: binomial_sf_ball(k, n, p, prec), gamma, increasing=True,
                     guess=_guess(float(gamma), k, n - k + 1))
    if hi == 1 and lo == 0:
        raise NumericalError(f"cp_lower({k}, {n}, {gamma}): no comparison was decided")
    return lo, hi


def clopper_pearson(k: Any, n: Any, confidence: Any = Fraction(95, 100)) -> tuple[Fraction,
                                                                                   Fraction]:
    """The two-sided Clopper–Pearson interval ``[lo, hi]`` at ``confidence`` (each side at
    level ``(1 - confidence)/2``), rounded outward to dyadic rationals with the rounding proved
    in Arb: it contains the exact Clopper–Pearson interval, so its coverage is at least
    ``confidence`` for every p."""
    c = check_level(confidence, "confidence", "clopper_pearson")
    side = (1 - c) / 2
    return cp_lower(k, n, side)[0], cp_upper(k, n, side)[1]
