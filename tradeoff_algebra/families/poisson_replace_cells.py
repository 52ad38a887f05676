"""Certified delta(eps) and eps(delta) of a few replace-one DP-SGD steps,
``PoissonReplace(mu, q)**T``, by the cells of the step's privacy loss on a grid composed in
fixed point (``numeric/lattice_cells.py``: the split pair above, the best threshold test below),
nothing inverted: the answer of a few steps (T <= :data:`MAX_STEPS`) at a modest width, asked
of the law (``ReplaceLaw.cells_enclosure``) before any plan of the Laplace inversion.

The pair is P = (1 - q) N(0, 1) + q N(mu, 1) against Q = (1 - q) N(0, 1) + q N(-mu, 1), its loss
L(x) = log(dP/dQ)(x) increasing in x with the closed-form inverse x(y) = log(u(y))/mu,
u = ((E - 1) + sqrt D)/(2 w) = 2 w E/(sqrt D - (E - 1)), E = e^y, D = (E - 1)^2 + 4 w^2 E,
w = q e^{-mu^2/2}/(1 - q) (``families/poisson_replace_poly.py``). So the outcomes whose loss lies
in [g_j, g_{j+k}] (g_j = j/D) are the x-slice [x(g_j), x(g_{j+k})], with P-mass
(1 - q) N[x_a, x_b] + q N[x_a - mu, x_b - mu] and Q-mass (1 - q) N[x_a, x_b] + q N[x_a + mu,
x_b + mu] (N[a, b] = Phi(b) - Phi(a) by erfc from the side of 0 each end lies on: no
cancellation in either tail), Arb balls; the cell's test index is j, its split between g_j and
g_{j+k} (``numeric/lattice_cells.CellPower``).

* **Cells of several steps** (k > 1) where the tilted float mass is small: the split's and the
  test's error in a cell grows like its mass times its width squared (Dong, Roth & Su's
  Sec. 3.1 merging: both bounds hold for any cells), so a cell is widened (doubling k) while
  its tilted float mass m e^{c y} times k^2 stays below :data:`GROUP` times the largest fine
  cell's: the bulk keeps the fine step, the far lower side and the upper tail a few dozen cells.
* **Tails.** Below g_lo the outcomes (Q-mass a_t, P-mass b_t) are one cell at j_lo (its split
  puts at least b_t at g_lo, an upper bound: the split sum is non-decreasing in each mass).
  Above g_hi (every ratio at least e^{g_hi}) the outcome (a_t, a_t e^{g_hi}) goes to g_hi and
  the P-mass m = b_t - a_t e^{g_hi} to +oo: the T-fold product's outcomes with a step at +oo
  carry P-mass at most T m, added to delta's upper end (the tests understate P only).
  g_hi is where T P(L > g_hi) is below :data:`SLACK` rel times the level; g_lo = -g_hi.
* **Tilt.** A level far below 2^-62 (delta(1) ~ 1e-26 at sigma = 2) is kept in fixed point
  by tilting every mass by e^{c j/D} (``CellPower``'s ``tilt``), c the float Chernoff tilt
  of the level (the minimiser of T log M(c) - c eps over a grid); c also weighs the cells'
  grouping. Levels above :data:`UNTILTED_ABOVE` are composed untilted.

Grid: D = :data:`D_SCALE` c sqrt(T / rel) cells a unit of loss (the bounds miss delta by about
T h^2 c^2 delta/8 relative), refined by the h^2 law at most twice; declined (None: the inversion
answers) beyond :data:`MAX_POINTS` lattice points or where the width is not met.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from ..numeric import budget
from ..numeric.cf_laws import lower, to_arb, upper, working_precision
from ..numeric.lattice_cells import CellPower
from .poisson_replace_seed import _CS, _cell_log_masses, _cell_x, _phi_cdf

__all__ = ["replace_cells", "replace_cells_enclosure", "REPLACE_CELLS_ROUTE", "MAX_STEPS"]

#: The route's note (``core.trace``).
REPLACE_CELLS_ROUTE = "certified cells of the replace-one loss composed on a lattice"
#: The most steps answered here (the lattice grows like T D, D like sqrt T).
MAX_STEPS = 40
#: The most lattice points of a composed power, estimated as T 2 g_hi D before any cell (the
#: lattice's cost grows with it: sigma = 2, q = 1/100, eps(1e-5) at 3 and 10 steps, 6 300 and
#: 30 000 points, 0.06 and 0.10 s; sigma = 1 at 10 steps, 65 000 points, took 0.27 s where the
#: inversion takes 0.2 s, and 30 steps at sigma = 2, 124 000 points, 0.27 s against 0.05 s).
MAX_POINTS = 35_000
#: D = D_SCALE c sqrt(T / rel) (calibrated: sigma = 2, q = 1/100, T = 3 .. 30 meet
#: rel = 1.25e-4 on the first grid).
D_SCALE = 0.92
#: A cell is widened while its tilted mass times k^2 stays below GROUP times the largest fine
#: cell's tilted mass.
GROUP = 1e-1
#: The widest cell, in grid steps.
MAX_WIDTH = 256
#: T times the tail's P-mass beyond g_hi is at most SLACK rel times the level (it moves eps by
#: about SLACK rel / (c eps) relative: 4e-6 at sigma = 2, three steps; was 1e-3, a lattice
#: 30 % longer).
SLACK = 0.1
#: The lower tail's share of e^{log_floor} (:func:`_lower_end`).
LOW_SHARE = 1e-3
#: Levels at least this are composed untilted (62 bits of the total mass resolve them).
UNTILTED_ABOVE = 1e-9
#: Working precision of the cells (bits).
PREC = 96


def _log_mgf(law, cs: np.ndarray) -> np.ndarray:
    return np.asarray(law.log_mgf_many(cs), dtype=float)


def _tilt(law, T: int, eps: float) -> float:
    """The float Chernoff tilt of the level at eps: argmin of T log M(c) - c eps on a grid."""
    cs = _CS  # (the seed's abscissas: their float tilts are kept by the law)
    expo = T * _log_mgf(law, cs) - cs * eps
    ok = np.isfinite(expo)
    if not np.any(ok):
        return 0.0
    return float(cs[int(np.argmin(np.where(ok, expo, np.inf)))])


def _upper_end(law, T: int, budget_mass: float) -> float:
    """The least y on a grid of 1/64 with T P(L > y) <= budget_mass (floats, planning)."""
    mu, q = law.mu, law.q
    y = 1.0 / 64
    while y < 64.0:
        x = _cell_x(law, np.array([y]))
        if x is not None:
            tail = (1 - q) * _phi_cdf(-x) + q * _phi_cdf(mu - x)
            if T * float(tail[0]) <= budget_mass:
                return y
        y += 1.0 / 64
    return y


def _widths(law, D: int, jlo: int, jhi: int, c: float, log_floor: float
            ) -> list[tuple[int, int]]:
    """[(j, k), ...]: the cells [g_j, g_{j+k}] covering [g_jlo, g_jhi] (module docstring): a
    cell is widened while its tilted float mass m e^{c y} times k^2 stays below e^{log_floor}
    (the share of the level a cell's error may carry, :func:`_plan`)."""
    log_m = _cell_log_masses(law, jlo / D, 1.0 / D, jhi - jlo)
    if log_m is None:
        raise ArithmeticError("poisson_replace_cells: no float cell masses")
    lw = log_m + c * (jlo + np.arange(jhi - jlo) + 0.5) / D
    with np.errstate(over="ignore", under="ignore"):
        cum = np.concatenate([[0.0], np.cumsum(np.exp(lw - log_floor))])
    out, j, n = [], 0, jhi - jlo
    while j < n:
        k = 1
        while (2 * k <= MAX_WIDTH and j + 2 * k <= n
               and (cum[j + 2 * k] - cum[j]) * (2 * k) ** 2 <= 1.0):
            k *= 2
        out.append((jlo + j, k))
        j += k
    return out


def _lower_end(law, D: int, jhi: int, c: float, log_floor: float) -> int:
    """The first grid index above which the fine cells from -jhi on carry a tilted float mass
    at least :data:`LOW_SHARE` e^{log_floor} (the outcomes below are the lower tail's cell:
    their P-mass put at g_lo, their Q-mass's rest at loss -oo), at most -1."""
    log_m = _cell_log_masses(law, -jhi / D, 1.0 / D, jhi)
    if log_m is None:
        return -jhi
    lw = log_m + c * (-jhi + np.arange(jhi) + 0.5) / D
    with np.errstate(over="ignore", under="ignore"):
        cum = np.cumsum(np.exp(lw - log_floor))
    above = np.flatnonzero(cum > LOW_SHARE)
    return -jhi + int(above[0]) if len(above) else -1


def _normal_ends(xs: list) -> list[tuple[arb, arb]]:
    """(Phi(x), 1 - Phi(x)) of each ball x, each by erfc from its own side of 0."""
    r2 = arb(2).sqrt()
    out = []
    for x in xs:
        if x < 0:
            f = (-x / r2).erfc() / 2
            out.append((f, 1 - f))
        else:
            s = (x / r2).erfc() / 2
            out.append((1 - s, s))
    return out


def _between(ea: tuple, eb: tuple, xa_neg: bool, xb_neg: bool) -> arb:
    """N[x_a, x_b] from the ends' (Phi, 1 - Phi), the differences on the accurate side."""
    if xb_neg:
        return eb[0] - ea[0]
    if not xa_neg:
        return ea[1] - eb[1]
    return 1 - ea[0] - eb[1]


def replace_cells(law, D: int, groups: list[tuple[int, int]]) -> tuple[list, arb]:
    """(cells, m): the cells [(a, b, j, k), ...] of the groups (Q-mass a, P-mass b, module
    docstring), the lower tail one cell at the first group's j, the upper tail's point at the
    last group's end, and m, the P-mass at +oo of one step (a ball)."""
    with working_precision(PREC):
        mu, q = to_arb(law._mu), to_arb(law._q)
        w = q * (-mu * mu / 2).exp() / (1 - q)
        ends = [j for j, _ in groups] + [groups[-1][0] + groups[-1][1]]
        xs = []
        for j in ends:
            y = arb(j) / D
            e, em1 = y.exp(), y.expm1()
            s = (em1 * em1 + 4 * w * w * e).sqrt()
            u = (em1 + s) / (2 * w) if j >= 0 else 2 * w * e / (s - em1)
            xs.append(u.log() / mu)
        sides = []
        for shift in (arb(0), -mu, mu):
            zs = [x + shift for x in xs]
            sides.append((_normal_ends(zs), [bool(z < 0) for z in zs]))
        (n0, s0), (nm, sm), (npl, spl) = sides

        def masses(i: int | None, i2: int | None) -> tuple[arb, arb]:
            """(Q-mass, P-mass) between ends i and i2 (None: -oo or +oo)."""
            def part(ends_, neg):
                if i is None:
                    return ends_[i2][0]
                if i2 is None:
                    return ends_[i][1]
                return _between(ends_[i], ends_[i2], neg[i], neg[i2])
            base = (1 - q) * part(n0, s0)
            return base + q * part(npl, spl), base + q * part(nm, sm)

        a_t, b_t = masses(None, 0)
        # (the lower tail: P-mass b_t at g_lo with Q-mass b_t e^{-g_lo}, the rest of its
        # Q-mass at loss -oo; a_t >= b_t e^{-g_lo}, every ratio there being below e^{g_lo})
        a_split = b_t * (-arb(ends[0]) / D).exp()
        cells = [(a_split, b_t, groups[0][0], 1), (a_t - a_split, arb(0), groups[0][0], 1)]
        for i, (j, k) in enumerate(groups):
            a, b = masses(i, i + 1)
            cells.append((a, b, j, k))
        a_t, b_t = masses(len(ends) - 1, None)
        e_hi = (arb(ends[-1]) / D).exp()
        cells.append((a_t, a_t * e_hi, ends[-1] - 1, 1))
        m = b_t - a_t * e_hi
        return cells, m


def _plan(law, T: int, level_eps: float, level: float, rel: float, D: int, c: float,
          y_hi: float) -> tuple[list, arb, Fraction]:
    """(cells, m, tilt) on the grid 1/D up to g_hi ~ ``y_hi`` for a level ``level`` at eps
    ``level_eps``, c the level's tilt. A cell y carries at most m e^{c y} e^{-c eps}
    M(c)^{T-1} of delta (the Chernoff bound of the other steps' profile at eps - y), so its
    error is of order that times (k h c)^2: cells are widened below GROUP rel times the
    level (:func:`_widths`)."""
    jhi = math.ceil(y_hi * D)
    log_mc = float(_log_mgf(law, np.array([c]))[0]) if c > 0 else 0.0
    log_floor = (math.log(GROUP * rel * level) + c * level_eps - (T - 1) * log_mc
                 + 2 * math.log(D / max(c, 1.0)))
    jlo = _lower_end(law, D, jhi, c, log_floor)
    groups = _widths(law, D, jlo, jhi, c, log_floor)
    cells, m = replace_cells(law, D, groups)
    tilt = Fraction(0) if level >= UNTILTED_ABOVE else Fraction(round(c * 16), 16)
    return cells, m, tilt


def replace_cells_enclosure(law, T: int, kind: str, dn: float, up: float,
                            rel: float) -> tuple[float, float] | None:
    """Certified float bounds of delta(eps) (``kind`` "delta", eps in [dn, up]) or eps(d)
    ("epsilon", d in [dn, up]) of ``law``'s T-fold power at the relative width ``rel``, or None
    (module docstring)."""
    T = int(T)
    if not 1 <= T <= MAX_STEPS or not rel > 0:
        return None
    if kind == "delta":
        if not dn > 0:
            return None
        log_d = law.float_log_delta(T, up)
        if log_d is None or not math.isfinite(log_d):
            return None
        level, level_eps = math.exp(log_d), up
        if not level > 0:
            return None
    else:
        if not 0 < dn <= up < 1:
            return None
        got = law.float_epsilon(T, dn)
        if got is None:
            return None
        level, level_eps = dn, got[0]
        if not level_eps > 0:
            return None
    c = _tilt(law, T, level_eps)
    D = max(16, math.ceil(D_SCALE * max(c, 1.0) * T ** 0.25 / math.sqrt(rel)))
    y_hi = _upper_end(law, T, SLACK * rel * level)
    for _ in range(3):
        budget.check()
        if T * 2 * y_hi * D > MAX_POINTS:  # (before any cell: at most this many points)
            return None
        cells, m, tilt = _plan(law, T, level_eps, level, rel, D, c, y_hi)
        cp = CellPower(cells, T, D, tilt=tilt)
        with working_precision(128):
            slack = arb(T) * arb(max(upper(m), 0.0))  # (P-mass at +oo: at most T m)
            if kind == "delta":
                lo = max(0.0, lower(cp.delta_lower_near(up)))
                hi = min(1.0, upper(cp.delta_upper(dn) + slack))
            else:
                d_dn = lower(arb(dn) - slack)
                if not d_dn > 0:
                    return None
                got = cp.epsilon(d_dn, up)
                if got is None:
                    return None
                lo, hi = got
        if hi > 0 and hi - lo <= rel * hi:
            return lo, hi
        w = (hi - lo) / hi if hi > 0 else math.inf
        if not math.isfinite(w):
            return None
        D = math.ceil(D * min(4.0, max(1.5, 1.2 * math.sqrt(w / rel))))
    return None
