"""The float saddle-point approximations behind the inversion's plans (``numeric.cf``): the
factors' total cumulants and log-mgf at real c, the saddle point c(eps) of the integrand
exp(-c eps) M(c) / (c (c + 1)), the saddle-point estimate of log delta(eps) and a guess of
eps(delta). Search aids only: every certified value is proved by the inversion itself, whose
bounds hold at any c (``numeric.cf`` module docstring)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .cf_laws import Factor
from .roots import Probe, expand_bracket, findroot

__all__: list[str] = []


def _total_cumulants(factors: Sequence[Factor], c: float) -> tuple[float, float, float]:
    k0 = k1 = k2 = 0.0
    for law, n in factors:
        a, b, d = law.cumulants(c)
        k0, k1, k2 = k0 + n * a, k1 + n * b, k2 + n * d
    return k0, k1, k2


def _total_log_mgf(factors: Sequence[Factor], cs: np.ndarray) -> np.ndarray:
    """Float sum n_i log M_i(c) at every c of ``cs``: the optional law method ``log_mgf_many``
    (one vectorised call), else each law's ``cumulants`` one c at a time."""
    total = np.zeros(len(cs))
    for law, n in factors:
        many = getattr(law, "log_mgf_many", None)
        if many is not None:
            total += n * np.asarray(many(cs), dtype=float)
        else:
            total += n * np.array([law.cumulants(float(x))[0] for x in cs])
    return total


# the last answer of `_saddle`: (laws, counts, eps, c), the laws held so that identity
# comparison is sound (an eps search asks the same saddle point from several plans)
_SADDLE_LAST: tuple | None = None


def _saddle(factors: Sequence[Factor], eps: float) -> float:
    """c > 0 minimising sum n_i log M_i(c) - c eps - log(c (c+1)) (the last answer kept: a
    deterministic function of the laws, their counts and eps)."""
    global _SADDLE_LAST
    laws, counts = tuple(law for law, _ in factors), tuple(n for _, n in factors)
    last = _SADDLE_LAST
    if last is not None and last[2] == eps and last[1] == counts and len(last[0]) == len(laws) \
            and all(a is b for a, b in zip(last[0], laws, strict=True)):
        return last[3]
    c = _saddle_uncached(factors, eps)
    _SADDLE_LAST = (laws, counts, eps, c)
    return c


def _saddle_uncached(factors: Sequence[Factor], eps: float) -> float:
    """c > 0 minimising sum n_i log M_i(c) - c eps - log(c (c+1))."""

    def slope(c: float) -> tuple[float, float]:
        _, k1, k2 = _total_cumulants(factors, c)
        return k1 - eps - 1 / c - 1 / (c + 1), k2 + 1 / c**2 + 1 / (c + 1) ** 2

    def no_saddle(lo, hi):
        raise ValueError("no saddle point: eps is at or beyond the largest loss")

    # the slope rises with c: by factors of 4 from 1 to a certain positive slope (c <= 1e5;
    # the Newton steps below in log A cross a factor 4 in a few steps)
    lo, hi, *_ = expand_bracket(lambda c: Probe(-1 if slope(c)[0] < 0 else 1),
                                lambda L, H, last, i: 1.0 if last is None else
                                (4 * last if 4 * last <= 1e5 else None),
                                sa=-1, lo=1e-9, fail=no_saddle)
    seen: list = []

    def probe(c: float) -> Probe:
        """The sign of g = A(c) - eps, A = K'(c) - 1/c - 1/(c + 1) increasing, a zero within
        1e-13 g2 c; Newton's step on log(A / eps) where A > 0 < eps (its value and derivative
        A'/A: the subsampled Gaussian's A grows by orders of magnitude across a factor 2 of c
        once its far tail dominates, DP-SGD sigma = 4, T = 10: 0.0016 at c = 128, 106 at 256,
        where Newton's steps on g itself, safeguarded, took about 16 evaluations), else on g."""
        g, g2 = slope(c)
        seen.append(c)
        sign = 0 if abs(g) <= 1e-13 * g2 * c else (1 if g > 0 else -1)
        a = g + eps
        if a > 0 and eps > 0:
            return Probe(sign, math.log(a / eps), g2 / a)
        return Probe(sign, g, g2)

    findroot(probe, (lo, hi), method="newton", ends=(-1, 1), rtol=1e-14, max_iter=200,
             start=math.sqrt(lo * hi) if lo > 1e-9 else hi / 2)
    return seen[-1]


def _seed_epsilon(factors: Sequence[Factor], delta: float) -> tuple[float, float] | None:
    """(eps, slope): one power's law's own float estimates of eps(delta) and of
    -d log delta / d eps there (the optional law method ``float_epsilon(n, delta)``: the
    Poisson-subsampled Gaussian's float PLD, within 1e-4 where the saddle-point guess is a
    factor 5 off), or None (no such law, or it declines). A search aid as the rest."""
    if len(factors) != 1:
        return None
    law, n = factors[0]
    est = getattr(law, "float_epsilon", None)
    if est is None:
        return None
    try:
        got = est(n, delta)
    except (ValueError, ArithmeticError, OverflowError):  # (a float failure: no seed)
        return None
    if got is None or not (got[0] > 0 and math.isfinite(got[0])
                           and got[1] > 0 and math.isfinite(got[1])):
        return None
    return got


def _log_delta_saddle(factors: Sequence[Factor], c: float, eps: float) -> float:
    k0, _, k2 = _total_cumulants(factors, c)
    h2 = k2 + 1 / c**2 + 1 / (c + 1) ** 2
    return k0 - c * eps - math.log(c * (c + 1)) - 0.5 * math.log(2 * math.pi * h2)


def _saddle_epsilon(factors: Sequence[Factor], delta: float) -> float:
    """Float saddle-point approximation of eps(delta): the root in u = log c of
    g(u) = log delta_sp(c) - log delta, eps(c) = K'(c) - 1/c - 1/(c + 1).

    A guess only (it seeds the certified searches, which do not rely on it), found by
    safeguarded Newton steps (numeric/roots.findroot: bisection where a step leaves the
    bracket) to |du| <= 1e-10, about 10 evaluations where bisection to the float's last bit
    took 80. The slope: with h2 = K''(c) + 1/c^2 + 1/(c+1)^2 = eps'(c), the main part
    K(c) - c eps(c) - log(c (c+1)) of log delta_sp has c-derivative -c h2, so
    dg/du = -c^2 h2 less the derivative of (1/2) log(2 pi h2), which is left out (relatively
    small where c h2 is large; a poorer slope only costs steps, not the root)."""

    def at(c: float) -> tuple[float, float, float]:
        k0, k1, k2 = _total_cumulants(factors, c)
        h2 = k2 + 1 / c**2 + 1 / (c + 1) ** 2
        eps = k1 - 1 / c - 1 / (c + 1)
        log_d = k0 - c * eps - math.log(c * (c + 1)) - 0.5 * math.log(2 * math.pi * h2)
        return eps, log_d, c * c * h2

    target = math.log(delta)
    seen: dict[float, float] = {}

    def probe(u: float) -> Probe:
        eps, log_d, slope = at(math.exp(u))
        seen[u] = eps
        g = log_d - target
        return Probe(1 if g > 0 else -1, g, -slope)

    lo, hi, *_ = findroot(probe, (math.log(1e-6), math.log(1e4)), method="newton",
                          ends=(1, -1), rtol=0.0, atol=1e-10, max_iter=80, start=0.0)
    mid = 0.5 * (lo + hi)
    near = min(seen, key=lambda u: abs(u - mid)) if seen else None
    return seen[near] if near is not None and abs(near - mid) <= 1e-10 else at(math.exp(mid))[0]
