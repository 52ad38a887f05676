"""The PLD engine's bounds of a value from composed laws: ``1 - C(alpha)`` and ``C(alpha)``
where the profile of C is the maximum of the profiles of one or more composed laws (one
product, or the symmetric hull of a product and its inverse: Wang et al., Sec. 4; Dong, Roth &
Su, Prop. 6), at one level (:func:`hull_roc_bounds`, by golden section over the minimax
weights) or at many (:func:`hull_roc_bounds_many`, vectorised on a weight grid).

A composed law is a :class:`~.pld_compose.Composed` (its pessimistic and optimistic sides with
their kinks, profiles and totals); part of the privacy-loss-distribution engine described in
:mod:`tradeoff_algebra.numeric.pld`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import budget
from .concave import golden_section
from .privacy_loss import U64

__all__ = ["hull_roc_bounds", "hull_roc_bounds_many", "hull_value_bounds",
           "value_bounds_from_roc", "LAMBDA_GRID"]


#: Points per vectorised profile evaluation between two looks at the deadline.
_SPAN = 1 << 17


def _profiles(sides: list[Any], E: np.ndarray) -> np.ndarray:
    """The rows ``side.delta_many(E)``, in spans of :data:`_SPAN` points with a look at the
    deadline before each (a refined grid has millions of kinks)."""
    out = np.empty((len(sides), len(E)))
    for i in range(0, len(E), _SPAN):
        budget.check()
        for r, side in enumerate(sides):
            out[r, i:i + _SPAN] = side.delta_many(E[i:i + _SPAN])
    return out


def hull_roc_bounds(cs: list[Any], alpha: float) -> tuple[float, float]:
    """Enclosure of ``1 - C(alpha)`` for the trade-off function C whose profile is the maximum
    of the profiles of the composed laws ``cs`` (the symmetric hull of a product and of its
    inverse: Wang et al., Sec. 4; Dong, Roth & Su, Prop. 6):
    ``1 - C(alpha) = min{1, inf_eps max_i delta_i(eps) + e^eps alpha}``.

    Upper end: the pessimistic profiles at their kinks, at the crossings of the two between
    consecutive kinks (where both are linear in ``x = e^eps``) and at ``eps = -oo``: every
    point gives an upper bound. Lower end: by minimax,
    ``inf_x max_i A_i(x) = max_lambda inf_x sum_i lambda_i A_i(x)`` over the simplex for convex
    ``A_i``; for a fixed lambda the optimistic combination plus ``alpha x`` is piecewise linear
    in x with kinks among the sides' kinks, so its infimum is a minimum over them (and
    ``x -> 0``); every lambda gives a lower bound, and lambda is optimised by golden section
    (two terms) or taken at the vertices otherwise."""
    if len(cs) == 1:
        return cs[0].roc_bounds(alpha)

    def plus_ex(vals: np.ndarray, E: np.ndarray, up: bool) -> np.ndarray:
        with np.errstate(over="ignore"):
            ex = np.exp(E) * alpha
        return vals + ex * ((1 + 4 * U64) if up else (1 - 4 * U64))

    # -- upper end: any eps gives one; each side's kinks and the crossings between them -------
    hi = math.inf
    for side in cs:
        budget.check()
        E = side.pess.kinks()
        vals = _profiles([c.pess for c in cs], E)
        if len(cs) == 2 and len(E) > 1:
            d = vals[0] - vals[1]
            i = np.flatnonzero(np.signbit(d[:-1]) != np.signbit(d[1:]))
            if len(i):  # where both are (nearly) linear in x between the points: the crossing
                x0, x1 = np.exp(E[i]), np.exp(E[i + 1])
                with np.errstate(divide="ignore", invalid="ignore"):
                    Ex = np.log(x0 + d[i] / (d[i] - d[i + 1]) * (x1 - x0))
                Ex = Ex[np.isfinite(Ex)]
                E = np.concatenate([E, Ex])
                vals = np.concatenate([vals, _profiles([c.pess for c in cs], Ex)], axis=1)
        if len(E):
            hi = min(hi, float(plus_ex(vals.max(axis=0), E, True).min()))
    hi = min(hi, max(c.pess.total for c in cs))
    if alpha == 0:
        hi = min(hi, max(c.pess.inf for c in cs))
    hi = min(hi * (1 + 8 * U64), 1.0)
    # -- lower end: minimax over the union of the optimistic kinks ------------------------------
    budget.check()
    E = np.concatenate([c.opt.kinks() for c in cs])
    vals = _profiles([c.opt for c in cs], E)
    ex = plus_ex(np.zeros(len(E)), E, False)
    # a point where even the smallest profile plus alpha x exceeds the upper end is the minimum
    # of no combination (each combination's minimum is at most the true value <= hi)
    keep = vals.min(axis=0) + ex <= hi
    vals, ex = vals[:, keep], ex[keep]
    totals = np.array([c.opt.total for c in cs])
    infs = np.array([c.opt.inf for c in cs])

    def phi(lam: np.ndarray) -> float:
        budget.check()
        m = float((lam @ vals + ex).min()) if len(ex) else math.inf
        m = min(m, float(lam @ totals))
        if alpha == 0:
            m = min(m, float(lam @ infs))
        return m * (1 - 8 * U64)

    if len(cs) == 2:
        # every value seen is attained: the largest is a lower bound of the concave maximum
        lo = golden_section(lambda t: phi(np.array([t, 1.0 - t])), 0.0, 1.0, iters=30,
                            maximise=True, ends=True)[1]
    else:
        lo = max(phi(np.eye(len(cs))[i]) for i in range(len(cs)))
    return max(min(lo, 1.0), alpha), max(hi, alpha)


#: Points of the lambda grid of :func:`hull_roc_bounds_many` (each lambda gives a lower bound).
LAMBDA_GRID = 5
#: Largest number of (alpha, eps) pairs formed at once by the vectorised curve bounds.
_CHUNK = 2_000_000


def _values(c: np.ndarray, x: np.ndarray, j, a) -> np.ndarray:
    """c_j + x_j a (NaN, from inf * 0, read as +inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        v = c[j] + x[j] * a
    return np.where(np.isnan(v), np.inf, v)


def _window_min(c: np.ndarray, x: np.ndarray, alphas: np.ndarray, K: int) -> np.ndarray:
    """min over j of c_j + x_j alpha near the coarse minimiser: the coarse minimum over every
    K-th j, then every j within K of it (for a profile convex in x the minimiser is there; any
    j gives an upper bound of the true minimum)."""
    n = len(x)
    idx = np.arange(0, n, K)
    jc = np.zeros(len(alphas), dtype=np.int64)
    step = max(1, _CHUNK // len(idx))
    for i in range(0, len(alphas), step):
        jc[i:i + step] = idx[np.argmin(_values(c, x, idx[None, :], alphas[i:i + step, None]),
                                       axis=1)]
    best = np.full(len(alphas), math.inf)
    for d in range(-K, K + 1):
        best = np.fmin(best, _values(c, x, np.clip(jc + d, 0, n - 1), alphas))
    return best


def _env_min(c: np.ndarray, E: np.ndarray, alphas: np.ndarray, up: bool) -> np.ndarray:
    """min over j of c_j + e^{E_j} alpha for every alpha, the product rounded outward as in
    :func:`hull_roc_bounds`.

    ``up`` (an upper bound is wanted: any j gives one): the profile is convex in x = e^eps, so
    a coarse minimum over every sqrt(n)-th point and a full-resolution window around it find
    the minimiser (:func:`_window_min`). Otherwise (a lower bound must not exceed the minimum
    over every j): the same window gives an incumbent, and block bounds decide which j need
    evaluating."""
    if len(E) == 0:
        return np.full(len(alphas), math.inf)
    order = np.argsort(E, kind="stable")
    E, c = E[order], c[order]
    if up:  # one point per eps (the two sides' kinks may coincide): the smaller value
        E, first = np.unique(E, return_index=True)
        c = np.minimum.reduceat(c, first)
    with np.errstate(over="ignore"):
        x = np.exp(E) * ((1 + 4 * U64) if up else (1 - 4 * U64))
    n = len(E)
    if up:
        return _window_min(c, x, alphas, max(1, int(math.sqrt(n))))
    # the lower bound, the minimum over every j of the computed values, without forming all
    # n x m of them: blocks of B consecutive j (x increasing) have the lower bound
    # min_block c + x_first alpha; only the blocks whose bound lies below the incumbent for
    # some alpha are evaluated in full, for those alpha.
    B = max(16, int(math.sqrt(n)))
    out = _window_min(c, x, alphas, B)
    idx = np.arange(0, n, B)
    cmin = np.minimum.reduceat(np.where(np.isnan(c), -np.inf, c), idx)
    for b, s0 in enumerate(idx):
        with np.errstate(over="ignore", invalid="ignore"):
            lb = cmin[b] + x[s0] * alphas
        need = np.nonzero(~(lb >= out))[0]  # NaN bounds count as needed
        if len(need) == 0:
            continue
        seg = np.arange(s0, min(s0 + B, n))
        rows = max(1, _CHUNK // len(seg))
        for i in range(0, len(need), rows):
            k = need[i:i + rows]
            out[k] = np.fmin(out[k], _values(c, x, seg[None, :], alphas[k, None]).min(axis=1))
    return out


def hull_roc_bounds_many(cs: list[Any], alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hull_roc_bounds` at every alpha of a float array, on the same composed laws:
    the upper end from the pessimistic profiles at their kinks (every eps gives an upper
    bound), the lower end from the optimistic combinations ``sum_i lambda_i delta_i`` on a
    grid of :data:`LAMBDA_GRID` weights (every lambda gives a lower bound, by minimax) rather
    than the per-alpha golden section; both vectorised over alpha."""
    a = np.asarray(alphas, dtype=np.float64)
    E = np.concatenate([c.pess.kinks() for c in cs])
    M = np.max([c.pess.delta_many(E) for c in cs], axis=0)
    hi = np.minimum(_env_min(M, E, a, True), max(c.pess.total for c in cs))
    hi = np.where(a == 0, np.minimum(hi, max(c.pess.inf for c in cs)), hi)
    hi = np.minimum(hi * (1 + 8 * U64), 1.0)
    Eo = np.concatenate([c.opt.kinks() for c in cs])
    vals = np.array([c.opt.delta_many(Eo) for c in cs])
    totals = np.array([c.opt.total for c in cs])
    infs = np.array([c.opt.inf for c in cs])
    if len(cs) == 1:
        lams = [np.ones(1)]
    elif len(cs) == 2:
        lams = [np.array([t, 1.0 - t]) for t in np.linspace(0.0, 1.0, LAMBDA_GRID)]
    else:
        lams = list(np.eye(len(cs)))
    lo = np.zeros(len(a))
    for lam in lams:
        m = np.minimum(_env_min(lam @ vals, Eo, a, False), float(lam @ totals))
        m = np.where(a == 0, np.minimum(m, float(lam @ infs)), m)
        lo = np.maximum(lo, m * (1 - 8 * U64))
    lo = np.maximum(np.minimum(lo, 1.0), a)
    return lo, np.maximum(hi, a)


def value_bounds_from_roc(rlo, rhi, alpha):
    """Bounds of ``C(alpha)`` from bounds ``[rlo, rhi]`` of ``1 - C(alpha)``, rounded outward,
    with ``C(alpha) <= 1 - alpha`` rounded up (1.0 - alpha rounds to nearest: below the truth
    for alpha = 1e-16, where it gives 1 - 2^-53) and ``C(1) = 0``; floats or arrays."""
    rlo, rhi, a = (np.asarray(x, dtype=np.float64) for x in (rlo, rhi, alpha))
    lo = np.maximum(0.0, (1.0 - rhi) * (1 - 2 * U64) - 2 * U64)
    cap = np.nextafter(1.0 - a, np.inf)
    hi = np.where(a < 1, np.minimum(cap, (1.0 - rlo) * (1 + 2 * U64) + 2 * U64), 0.0)
    return lo, np.maximum(hi, lo)


def hull_value_bounds(cs: list[Any], alpha: float) -> tuple[float, float]:
    """Enclosure of ``C(alpha)`` (see :func:`hull_roc_bounds`)."""
    lo, hi = value_bounds_from_roc(*hull_roc_bounds(cs, alpha), alpha)
    return float(lo), float(hi)
