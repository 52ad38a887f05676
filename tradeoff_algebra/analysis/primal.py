"""From a privacy profile back to the trade-off function (Dong, Roth & Su, Prop. 5 and 6): the
value f(alpha) of a symmetric f from its delta(eps) on a grid of eps, as a lower bound
(:func:`primal_value_lower`, the supremum over the grid of the f_{eps, delta(eps)}) and as an
enclosure (:func:`primal_value`, the cells between grid points bounded by monotonicity).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.levels import as_level
from ..core.node import TradeOff
from ..core.validate import count, param
from ..core.validate import items as _items
from ..numeric import budget
from ..numeric.context import MPF, mp
from ..numeric.protocol import (
    GUARD_DPS,
    MAX_DPS,
    enclose_delta,
    num,
    prepare_call,
    short,
)
from ..numeric.value import Value
from .conversions import _eps_arg

__all__ = ["primal_value", "primal_value_lower"]


# -- dual to primal (Prop. 5) -------------------------------------------------------------------
def _f_epsdelta(eps, d, a, ac):
    """f_{eps,d}(alpha) (Eq. (5)) from alpha and 1 - alpha; d may exceed 1 (then 0)."""
    if eps == mp.inf:
        return max(mp.zero, 1 - d) if a == 0 else mp.zero
    return max(mp.zero, 1 - d - mp.exp(eps) * a, mp.exp(-eps) * (ac - d))


def _profile_enclosure(delta_fn) -> Callable:
    """eps -> (lo, hi) from a trade-off expression, a callable, or a callable returning pairs."""
    if isinstance(delta_fn, TradeOff):
        prepare_call(delta_fn, 15)
        return lambda e: enclose_delta(delta_fn, e)
    if not callable(delta_fn):
        raise InvalidParameter("delta_fn", delta_fn,
                               "a callable eps -> delta or a trade-off expression")

    def encl(e):
        v = delta_fn(e)
        if isinstance(v, Value):
            lo, hi = mp.mpf(v.lo), mp.mpf(v.hi)
        elif isinstance(v, tuple) and len(v) == 2:
            lo, hi = mp.mpf(v[0]), mp.mpf(v[1])
        elif isinstance(v, (numbers.Real, MPF, sp.Number)):
            lo = hi = mp.mpf(v) if not isinstance(v, sp.Basic) else num(v)
        else:
            raise InvalidParameter("delta_fn", delta_fn, "a callable returning real numbers",
                                   hint=f"delta_fn({e}) returned {v!r}")
        if mp.isnan(lo) or mp.isnan(hi) or lo > hi or hi < 0 or lo > 1:
            raise InvalidParameter("delta_fn", delta_fn, "values in [0, 1]",
                                   hint=f"delta_fn({e}) returned {v!r}")
        return max(lo, mp.zero), min(hi, mp.one)

    return encl


#: The largest eps of a primal_value grid (e^eps = 10^434294): the cell bounds slow down with
#: the size of eps (eps_max = 10^100 took 6 s, 10^400 did not finish).
MAX_EPS_GRID = 10**6


def _grid(eps_grid: Sequence[Any] | None, eps_max: Any, n: int, max_evals: int = 2000) -> list:
    if eps_grid is None:
        top = _eps_arg(eps_max, "primal_value", "eps_max")
        if top == mp.inf or top <= 0 or top > MAX_EPS_GRID:
            raise InvalidParameter("eps_max", eps_max, f"a real number in (0, {MAX_EPS_GRID}]",
                                   "primal_value")
        n = count("n", n, lower=2, upper=max_evals, owner="primal_value")
        return [top * i / (n - 1) for i in range(n)]
    given = _items("eps_grid", eps_grid, "a non-empty list of finite eps >= 0")
    grid = [_eps_arg(e, "primal_value", f"eps_grid[{i}]") for i, e in enumerate(given)]
    if not grid or any(e > MAX_EPS_GRID for e in grid):
        raise InvalidParameter("eps_grid", eps_grid, "a non-empty list of eps in "
                               f"[0, {MAX_EPS_GRID}]")
    if any(b <= a for a, b in zip(grid, grid[1:], strict=False)):
        raise InvalidParameter("eps_grid", eps_grid, "strictly increasing eps values")
    return grid


def _resolved(grid: list, name: str, given: Any) -> list:
    """``grid`` if neighbouring points have distinct e^eps at the working precision (the
    convexity checks and cell bounds divide by their differences), else InvalidParameter."""
    ys = [mp.exp(e) for e in grid]
    close = mp.ldexp(1, -mp.prec + 8)
    if any(b - a <= close * b for a, b in zip(ys, ys[1:], strict=False)):
        raise InvalidParameter(name, given, "a grid whose points are far enough apart to tell "
                               "e^eps apart at the digits asked", "primal_value",
                               "Use a larger eps_max or fewer points")
    return grid


@budget.deadline(lambda a: f"primal_value_lower({short(a['delta_fn'])}, {short(a['alpha'])})")
def primal_value_lower(delta_fn: Callable | TradeOff, alpha: Any,
                       eps_grid: Sequence[Any], dps: int = 30) -> MPF:
    """A LOWER bound of the Prop. 5 trade-off function ``sup_eps f_{eps,delta(eps)}(alpha)``.

    The supremum over the finite ``eps_grid`` only (Dong, Roth & Su, Prop. 5 with the index
    set restricted to the grid); the true value over all eps >= 0 can be larger. No
    assumption on ``delta_fn``. For an enclosure use :func:`primal_value`.
    """
    A = as_level(alpha)
    dps = count("dps", dps, upper=MAX_DPS, owner="primal_value_lower")
    if eps_grid is None:
        raise InvalidParameter("eps_grid", eps_grid, "a non-empty list of eps in "
                               f"[0, {MAX_EPS_GRID}]", "primal_value_lower")
    with mp.workdps(dps + GUARD_DPS):
        a, ac = num(A), num(1 - A)
        encl = _profile_enclosure(delta_fn)
        best = mp.zero
        for e in _grid(eps_grid, None, 0):
            _, hi = encl(e)
            best = max(best, _f_epsdelta(e, hi, a, ac))
        return +best


def _cell_upper(es, vals, i, a, ac, Y):
    """Upper bound of sup f_{eps,delta(eps)}(alpha) over eps in [es[i], es[i+1]].

    In y = e^eps the profile is convex (delta = 1 + f^*(-y), f^* convex), so on the cell it lies
    above the constant lo(es[i+1]) (monotonicity) and above the chords of the neighbouring cells
    extended into it. With delta >= l(y) = max of these lines, both branches of
    f_{eps,delta}(alpha), ``1 - l(y) - y alpha`` and ``(1 - alpha - l(y)) / y``, are maximal
    at an end of the cell or where two of the lines cross.
    """
    x, z = es[i], es[i + 1]
    Y0, Y1 = Y[x], Y[z]
    lines = [(mp.zero, vals[z][0])]
    if i >= 1:
        p = es[i - 1]
        Yp = Y[p]
        s = (vals[x][0] - vals[p][1]) / (Y0 - Yp)
        lines.append((s, vals[x][0] - s * Y0))
    if i + 2 < len(es):
        t = es[i + 2]
        Yt = Y[t]
        s = (vals[t][1] - vals[z][0]) / (Yt - Y1)
        lines.append((s, vals[z][0] - s * Y1))
    cands = [Y0, Y1]
    for j in range(len(lines)):
        for k in range(j + 1, len(lines)):
            (s1, t1), (s2, t2) = lines[j], lines[k]
            if s1 != s2:
                y = (t2 - t1) / (s1 - s2)
                if Y0 < y < Y1:
                    cands.append(y)
    best = mp.zero
    for y in cands:
        d = max(s * y + t for s, t in lines)
        best = max(best, 1 - d - y * a, (ac - d) / y)
    return best


@budget.deadline(lambda a: f"primal_value({short(a['delta_fn'])}, {short(a['alpha'])})")
def primal_value(delta_fn: Callable | TradeOff, alpha: Any,
                 eps_grid: Sequence[Any] | None = None, *, eps_max: Any = 50, n: int = 65,
                 delta_inf: Any = 0, dps: int = 30, max_evals: int = 2000) -> Value:
    """Enclosure of the Prop. 5 trade-off function ``f(alpha) = sup_{eps >= 0}
    f_{eps, delta(eps)}(alpha)`` of a privacy profile (Dong, Roth & Su, Prop. 5).

    ``delta_fn`` is a trade-off expression (its profile :func:`delta`, with enclosures) or a
    callable ``eps -> delta`` returning a real number, a ``(lo, hi)`` pair or a ``Value``.

    **Assumptions** (both hold for every privacy profile ``delta(eps) = sup_E Q(E) - e^eps
    P(E)``, a supremum of affine functions of ``e^eps``): ``delta`` is non-increasing in eps
    and convex in ``e^eps``. Both are checked on the evaluated points; a certain violation
    raises :class:`InvalidParameter` (for a profile that is not of this kind use
    :func:`primal_value_lower`).

    Guarantee: every grid point gives a lower bound; on a cell the supremum is bounded above
    through the convexity (see ``_cell_upper``: a second-order bound), beyond the last point
    by ``f_{e_N, delta_inf}(alpha)`` (``delta_inf`` a lower bound of ``lim delta``, 0 by default,
    ``1 - f(0)`` for an expression) and below the first by ``f_{0, delta(e_0)}(alpha)``. Cells
    whose bound exceeds the lower bound by more than ``10^-dps`` are bisected, up to
    ``max_evals`` evaluations of ``delta_fn``; the enclosure is valid whatever budget is left.
    The grid is ``eps_grid`` or ``n`` points on ``[0, eps_max]``.
    """
    A = as_level(alpha)
    max_evals = count("max_evals", max_evals, owner="primal_value")
    dps = count("dps", dps, upper=MAX_DPS, owner="primal_value")
    with mp.workdps(dps + GUARD_DPS):
        a, ac = num(A), num(1 - A)
        encl = _profile_enclosure(delta_fn)
        d_inf = num(param("delta_inf", delta_inf, lower=0, upper=1, owner="primal_value",
                          numeric=True))
        if isinstance(delta_fn, TradeOff):  # the profile's own limit, 1 - f(0)
            try:
                d_inf = encl(mp.inf)[0]
            except NoClosedForm:
                d_inf = mp.zero
        grid = _grid(eps_grid, eps_max, n, max_evals)
        grid = _resolved(grid, *(("eps_max", eps_max) if eps_grid is None
                                 else ("eps_grid", eps_grid)))
        vals = {e: encl(e) for e in grid}
        evals = len(vals)
        tol = mp.mpf(10) ** (-dps)

        Y: dict = {}
        checked: set = set()
        memo: dict = {}

        def check_shape(es):
            for e in es:
                if e not in Y:
                    Y[e] = mp.exp(e)
            for x, y in zip(es, es[1:], strict=False):
                if vals[y][0] > vals[x][1]:
                    raise InvalidParameter("delta_fn", delta_fn, "a non-increasing profile",
                                           hint=f"delta({y}) > delta({x})")
            for p, q, r in zip(es, es[1:], es[2:], strict=False):
                if (p, q, r) in checked:
                    continue
                checked.add((p, q, r))
                Yp, Yq, Yr = Y[p], Y[q], Y[r]
                chord = vals[p][1] + (vals[r][1] - vals[p][1]) * (Yq - Yp) / (Yr - Yp)
                if vals[q][0] > chord * (1 + mp.ldexp(1, -mp.prec + 8)):
                    raise InvalidParameter("delta_fn", delta_fn, "a profile convex in e^eps",
                                           hint=f"delta({q}) lies above the chord of its "
                                           "neighbours; use primal_value_lower")

        def bounds(es):
            lower = max(_f_epsdelta(e, vals[e][1], a, ac) for e in es)
            cells = []
            for i in range(len(es) - 1):
                key = tuple(es[max(i - 1, 0): i + 3]) + (i == 0,)
                if key not in memo:
                    memo[key] = _cell_upper(es, vals, i, a, ac, Y)
                cells.append((memo[key], es[i], es[i + 1]))
            edge = max(_f_epsdelta(mp.zero, vals[es[0]][0], a, ac),
                       _f_epsdelta(es[-1], d_inf, a, ac))
            return lower, cells, edge

        es = sorted(vals)
        check_shape(es)
        lower, cells, edge = bounds(es)
        while evals < max_evals:
            wide = [(x, y) for u, x, y in cells if u > lower + tol]
            new = 0
            for x, y in wide[: max(1, max_evals - evals)]:
                m = (x + y) / 2
                if x < m < y:
                    vals[m] = encl(m)
                    evals += 1
                    new += 1
            if not new:
                break
            es = sorted(vals)
            check_shape(es)
            lower, cells, edge = bounds(es)
        upper = max([edge, lower] + [u for u, _, _ in cells])
        upper = min(upper, ac)  # f(alpha) <= 1 - alpha (Prop. 1)
        if upper <= lower:
            return Value.point(lower, dps)
        return Value.enclosure(lower, upper, dps)
