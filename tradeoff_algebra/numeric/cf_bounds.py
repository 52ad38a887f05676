"""Certified Chernoff bounds for the products of the Laplace inversion's routes
(:mod:`.cf_route`), where inverting is needless or hopeless: a delta or an eps bounded from one
evaluation of each factor's M at a real argument (:func:`chernoff`), a delta far below every
float returned as [0, b] (:func:`tiny_delta`, :func:`below_floor`), and a delta within a float
of 1 (:func:`near_one_delta`). Each bound holds at any tilt c > 0 (the saddle point found in
floats only makes it tight), evaluated in Arb.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from flint import acb, arb

from ..core.errors import ToleranceWarning
from . import budget
from .cf import _all_losses_at_most, _log_delta_saddle, _saddle
from .cf_atoms import mass_at_infinity
from .cf_laws import Factor, lower, upper, working_precision
from .cf_saddle import _total_log_mgf
from .concave import golden_section

__all__ = ["chernoff", "chernoff_any", "epsilon_c", "below_floor", "near_one_delta",
           "tiny_delta", "DELTA_FLOOR"]

#: The abscissas over which :func:`epsilon_c` minimises the eps bound in floats (ratio about
#: 1.2 between neighbours; then a finer grid between the best one's neighbours).
_EPS_CS = np.geomspace(0.5, 1e5, 64)


def some_c(factors: Sequence[Factor], eps: float) -> float:
    """The saddle point for a Chernoff bound at eps, or 1 where the float search fails (any
    c > 0 gives a valid bound; far out, eps = 10^6, every c gives one below every float)."""
    try:
        c = _saddle(factors, eps)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, ArithmeticError):
        return 1.0
    return c if c > 0 and math.isfinite(c) else 1.0


def epsilon_c(factors: Sequence[Factor], d: float) -> float | None:
    """The c > 0 minimising the Chernoff bound of eps(d), (sum n_i log M_i(c) + log K_c -
    log d) / c (:func:`chernoff`), in floats over :data:`_EPS_CS` and a finer grid between the
    best point's neighbours, where every law has the vectorised ``log_mgf_many`` (two calls);
    None otherwise or where no abscissa gives a finite value (the caller's saddle point then
    serves). A choice only: the bound is certified at whatever c. The saddle point for the
    bound's own eps, which the search took before, minimises the delta integrand instead:
    DP-SGD's add direction, sigma = 4, q = 256/60000, d = 1e-5 at the remove direction's eps,
    T = 3 / 10 / 30 / 100: bounds 0.00380 / 0.00823 / 0.01600 / 0.03212 here where the saddle
    point gave 0.00409 / 0.00838 / 0.01606 / 0.03213, in a quarter of its time."""
    if not d > 0 or not all(hasattr(law, "log_mgf_many") for law, _ in factors):
        return None

    def best(cs: np.ndarray) -> tuple[int, float]:
        with np.errstate(all="ignore"):
            g = (_total_log_mgf(factors, cs) + cs * np.log(cs) - (cs + 1) * np.log1p(cs)
                 - math.log(d)) / cs
        g = np.where(np.isfinite(g), g, np.inf)
        i = int(np.argmin(g))
        return i, float(g[i])

    i, g0 = best(_EPS_CS)
    if not math.isfinite(g0):
        return None
    lo, hi = _EPS_CS[max(i - 1, 0)], _EPS_CS[min(i + 1, len(_EPS_CS) - 1)]
    fine = np.geomspace(lo, hi, 17)[1:-1]
    j, g1 = best(fine)
    return float(fine[j]) if g1 < g0 else float(_EPS_CS[i])


def chernoff_any(factors: Sequence[Factor], kind: str, arg: float, at: float,
                  c: float | None = None, prec: int = 128, ends: bool = False):
    """:func:`chernoff` at the saddle point c for ``at`` (or the ``c`` given), or where a
    law's evaluation fails there (the subsampled Gaussian's float planning overflows at
    c ~ 50) at c/2, c/4, ... down to 1 (any c > 0 gives a valid bound; the largest that
    evaluates is the closest to the saddle point, the bound being convex in c), and last at
    c = 1."""
    c = some_c(factors, at) if c is None else c
    while c > 1.0:
        try:
            return chernoff(factors, kind, arg, c, prec, ends)
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
            raise
        except (ValueError, ArithmeticError):
            c /= 2
    return chernoff(factors, kind, arg, 1.0, prec, ends)


def chernoff(factors: Sequence[Factor], kind: str, arg: float, c: float,
             prec: int = 128, ends: bool = False):
    """A certified upper bound of delta(arg) ("delta") or of eps(arg) ("epsilon") from
    (1 - e^{-y})_+ <= K e^{cy}, K = c^c/(c + 1)^{c + 1} (the maximum over y > 0 is at
    e^{-y} = c/(c + 1)): delta(eps) <= K e^{-c eps} M(c), for any c > 0. ``prec``: Arb's
    working precision; every precision gives a proof (the ball holds the exact value), a
    lower one a wider ball and so a slightly larger bound, at less cost (the laws' M at a real
    argument: DP-SGD's subsampled Gaussian, about half the time at 53 bits as at 128).
    ``ends`` (eps only): the pair (a float below, a float above) the ball of the bound at this
    c, so that a caller comparing it with a level knows whether a higher precision, whose ball
    lies inside this one, could decide otherwise."""
    with working_precision(prec):
        cc = arb(c)
        log_k = cc * cc.log() - (cc + 1) * (cc + 1).log()
        log_m = sum((n * law.mgf(acb(cc)).real.log() for law, n in factors), arb(0))
        if kind == "delta":  # (rounded up: an underflow gives the least subnormal, never 0)
            log_b = log_m + log_k - cc * arb(arg)
            return 1.0 if not log_b < 0 else min(upper(log_b.exp()), 1.0)
        b = (log_m + log_k - arb(arg).log()) / cc
        return (lower(b), upper(b)) if ends else upper(b)


#: Below this Chernoff bound a delta nothing certifies more closely is returned as [0, bound].
DELTA_FLOOR = 1e-290


def below_floor(sets: Sequence[Sequence[Factor]], kind: str, eps: float,
                 tiny: Sequence[float] = ()):
    """[0, b] with a ToleranceWarning when every product's Chernoff bound b on delta(eps) is
    below :data:`DELTA_FLOOR` (delta(1000) of DP-SGD: about e^{-10^5}), else None; ``tiny``:
    the bounds already found (:func:`tiny_delta`)."""
    if kind != "delta" or any(not mass_at_infinity(f).is_zero() for f in sets):
        return None
    try:
        b = max([chernoff_any(f, kind, eps, eps) for f in sets] + list(tiny))
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    if not b <= DELTA_FLOOR:
        return None
    warnings.warn(f"delta is below {b:.3g} (a Chernoff bound) and is returned as [0, {b:.3g}]",
                  ToleranceWarning, stacklevel=4)
    return 0.0, b


def near_one_delta(factors: Sequence[Factor], eps: float, rel: float
                    ) -> tuple[float, float] | None:
    """(1 - b, 1) when a certified bound b of 1 - delta(eps) is at most ``rel``, else None:
    1 - delta(eps) = E[min(1, e^{eps - L})] <= e^{s eps} M(-s) for every s in [0, 1]
    (min(1, x) <= x^s; the mass at L = +oo adds 0), M(-s) = prod M_i(-s)^{n_i} in Arb at the
    s that minimises it in floats (the laws' cumulants). A composition of many factors asked
    for delta far below its typical loss (Laplace(1/10)^(x)10^6 at eps = 1: 1 - delta about
    e^{-2500}) is not inverted: its saddle point lies at a negative tilt."""

    def g(t: float) -> float:
        return t * eps + sum(n * law.cumulants(-t)[0] for law, n in factors)

    try:
        if not g(0.5) < math.log(rel):  # (cheap screen: no bound at the middle order)
            return None
        t, _ = golden_section(g, 1e-6, 1.0, iters=40, ends=True)  # (g is convex in t)
        with working_precision(128):
            tt = arb(t)
            log_b = tt * arb(eps) + sum((n * law.mgf(acb(-tt)).real.log() for law, n in factors),
                                        arb(0))
            bound = upper(log_b.exp()) if log_b < 0 else 1.0
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, ArithmeticError, OverflowError):
        return None
    if bound > rel:
        return None
    return max(0.0, lower(1 - arb(bound))), 1.0


#: log of the least positive float (a subnormal, 2^-1074)
_LOG_LEAST = -1074 * math.log(2)


def tiny_delta(factors: Sequence[Factor], eps: float) -> float | None:
    """A certified bound b <= :data:`DELTA_FLOOR` of delta(eps) (:func:`chernoff` at the
    saddle point, :func:`chernoff_any`) where the float saddle-point estimate of delta(eps)
    (:func:`~.cf._log_delta_saddle`) lies below the least float, else None. Such a delta has
    the float enclosure [0, b] however it is computed, and is returned so without inverting:
    the inversion's plans for it are long and end without a digit (DP-SGD, sigma = 1.1,
    q = 1/100, T = 10: delta(100), about e^{-1300}, evaluated M at 580 nodes in 10 s and then
    failed; delta(400) overflowed after 16 s), while the bound costs one evaluation of each
    factor's M at a real argument."""
    if not mass_at_infinity(factors).is_zero() or _all_losses_at_most(factors, eps):
        return None  # (a mass at +oo escapes the bound; delta = 0 is proved by the route)
    try:
        c = _saddle(factors, eps)
        if not (c > 0 and _log_delta_saddle(factors, c, eps) < _LOG_LEAST):
            return None
        b = chernoff_any(factors, "delta", eps, eps, c)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    return b if b <= DELTA_FLOOR else None
