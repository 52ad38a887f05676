"""Whole curves of symmetric hulls of products by the certified Laplace inversion.

For f = C(g) with g a product whose factors have Arb laws (the subsampled Gaussian steps of
DP-SGD, ``noisy_sgd``), the profile delta_f = max(delta_g, delta_{g^-1}) (``engines``) is
enclosed on a grid of eps by a few certified inverters of :mod:`numeric.cf` per direction: an
inverter's products M(z_k)/(z_k(z_k + 1)) do not depend on eps, so once planned at eps_0 it
gives certified delta(eps) for every eps in about a tenth of a millisecond, to the planned width
near eps_0 and wider away from it; a new inverter is planned where the width exceeds the
target. :func:`numeric.profile_band.band` turns the grid into certified bands of f and of the
power 1 - f at every level (the envelope of the f_{eps, delta(eps)}, Dong, Roth & Su, Prop. 6),
the grid refined (twice as many points, the inverters kept) up to :data:`GRID_LOCAL` points,
then (and at once for a few levels, below tol 1e-4) by points near each level's minimisers
only (:func:`_refine`: the band is second order in the local step), until the band is as
narrow as asked or its cost stops paying; a band left wider than asked says so with a
ToleranceWarning naming the widths reached. :func:`inversion_band` is the route: None where it
does not apply (then the PLD engine answers, ``engines``). :func:`hull_point` answers
``evaluate`` and ``roc`` of such hulls at one level the same way (a certified enclosure at
the PLD engine's tolerance, ``pld_options``), as a point route of ``numeric.protocol``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb

from ..core.errors import ToleranceWarning
from ..numeric import budget, cf
from ..numeric.cf_laws import working_precision
from ..numeric.cf_route import MAX_WORK, _work
from ..numeric.context import mp
from ..numeric.curves import CURVE_BANDS
from ..numeric.options import options
from ..numeric.profile_band import Band, band
from ..numeric.progress import bar
from ..numeric.protocol import POINT_ROUTES
from ..numeric.value import Value
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import SymmetricHull
from .engines import _cf_laws, hull_directions
from .plan import pld_leaves

__all__ = ["inversion_band", "hull_point", "profile_grid", "GRID_START", "GRID_MAX", "ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "certified Laplace inversion, profile band"

#: Points of the first eps grid at a tolerance of 1e-3 (four times as many at 1e-4 ...), and
#: the most the refinement goes to.
GRID_START = 160
GRID_MAX = 2560
#: The uniform grid stops doubling at this many points when the band is still too wide: grid
#: points are then added near the levels' minimisers (:func:`_refine`), at most
#: :data:`LOCAL_ROUNDS` rounds and :data:`LOCAL_MAX` points in all.
GRID_LOCAL = 320
#: At most this many levels go to the local refinement straight from the first grid.
LOCAL_LEVELS = 8
#: The first grid of those few levels.
GRID_LOCAL_START = 40
LOCAL_ROUNDS = 24
LOCAL_SPLIT = 8
LOCAL_MAX = 40000
#: An inverter is planned to this fraction of the delta width it must meet.
PLAN_SHARE = 1e-2
#: delta is enclosed to this fraction of the band's target width.
DELTA_SHARE = 1e-3


class _Direction:
    """Certified delta(eps) of one product on demand, from inverters planned along the way."""

    def __init__(self, factors: Sequence, rel: float, floor: float):
        self.factors = list(factors)
        self.rel, self.floor = rel, floor
        self.inverters: list = []  # (eps_0, inverter)

    def _plan(self, e0: float):
        inv, _ = cf._certified_inverter(self.factors, e0, self.rel * PLAN_SHARE)
        self.inverters.append((e0, inv))
        return inv

    def _ok(self, d: arb) -> bool:
        r = float(d.rad())
        return r <= self.rel * abs(float(d.mid())) or r <= self.floor

    def delta(self, e: float) -> arb:
        best = None
        for _e0, inv in sorted(self.inverters, key=lambda p: abs(p[0] - e))[:2]:
            d = inv.parts(e).delta
            if best is None or d.rad() < best.rad():
                best = d
            if self._ok(best):
                return best
        # a new inverter ahead of eps (its reach is about the distance the last one covered)
        last = max((p[0] for p in self.inverters), default=None)
        ahead = e if last is None or last >= e else e + 0.5 * (e - last)
        d = self._plan(ahead).parts(e).delta
        if not self._ok(d) and ahead != e:
            d2 = self._plan(e).parts(e).delta
            d = d2 if d2.rad() < d.rad() else d
        return d if best is None or d.rad() < best.rad() else best


def profile_grid(dirs: list, eps: Sequence[float], progress=None) -> list:
    """Balls of max over the directions of delta(eps_i) at each grid point."""
    out = []
    with working_precision(64):
        for i, e in enumerate(eps):
            if i % 16 == 0:
                budget.check()
            hi_lo, hi_hi = arb(0), arb(0)
            for d in dirs:
                b = d.delta(float(e))
                lo_b, hi_b = arb(b.lower()), arb(b.upper())
                hi_lo = lo_b if lo_b > hi_lo else hi_lo
                hi_hi = hi_b if hi_b > hi_hi else hi_hi
            out.append(arb((hi_lo + hi_hi) / 2, (hi_hi - hi_lo) / 2))
            if progress is not None:
                progress.update()
    return out


def _eps_end(sets: list, alpha_min: float, tol: float) -> float:
    """The end of the eps grid: the float saddle-point estimate of eps(alpha_min / 1000) over
    the directions, at most log(1/alpha_min) + 1 (beyond, e^eps alpha >= 1: the power needs
    nothing there) or log(2/tol) + 1 (beyond, e^-eps (1 - alpha - delta) < tol/2); the band
    is certified whatever the end (its tails are bounded)."""
    cap = max(math.log(1 / alpha_min), math.log(2 / tol)) + 1
    best = 0.5
    for factors in sets:
        try:
            best = max(best, cf._saddle_epsilon(factors, alpha_min * 1e-3))
        except (ValueError, ArithmeticError, RuntimeError):
            return cap
    return min(max(best * 1.25, 0.5), cap)


def inversion_band(f, alphas: np.ndarray, tol: float = 1e-3,
                   progress: bool | None = None) -> Band | None:
    """Certified bands of f at the levels ``alphas`` (module docstring), aiming at an absolute
    width ``tol`` of f and a relative width ``tol`` of the power 1 - f; None when f is not the
    symmetric hull of a product of Arb laws or the inversion is beyond its planned work."""
    dirs = _directions(f)
    sets = None if dirs is None else _cf_laws(list(dirs))
    if sets is None or any(hasattr(law, "lattice_parts") for s in sets for law, _ in s):
        return None
    sets = [[(law, int(n)) for law, n in s] for s in sets]
    x = np.asarray(alphas, dtype=np.float64)
    pos = x[x > 0]
    alpha_min = float(pos.min()) if pos.size else 0.5
    rel = tol * DELTA_SHARE  # delta to a small share of the band: the secants carry its errors
    try:  # the first inverter's plan (at eps = 0), kept by numeric.cf for the grid's first point
        with working_precision(64):
            if any(_work(s, 0.0, rel * PLAN_SHARE) > MAX_WORK for s in sets):
                return None
    except (ValueError, ArithmeticError, RuntimeError):
        return None
    end = _eps_end(sets, alpha_min, tol)
    directions = [_Direction(s, rel, alpha_min * rel) for s in sets]
    # few levels: a coarse first grid, then points near their minimisers only
    local = x.size <= LOCAL_LEVELS and tol < 1e-4
    n = GRID_LOCAL_START if local else GRID_START  # (the width falls like n^-2: a narrower
    # tol starts on a finer grid)
    while not local and n < min(GRID_MAX, GRID_LOCAL) and (GRID_START / n) ** 2 * 1e-3 > tol:
        n *= 2
    known: dict = {}
    result = None
    with bar(None, "curve (inversion)", progress, unit="delta") as shown:
        while True:  # the uniform grid, then grid points near the levels' minimisers
            eps = [0.0] + [end * k / n for k in range(1, n + 1)]
            missing = [e for e in eps if e not in known]
            for e, d in zip(missing, profile_grid(directions, missing, shown), strict=True):
                known[e] = d
            new = band(eps, [known[e] for e in eps], x)
            result = new if result is None else result.intersect(new)
            # (alpha = 0 is left out: f(0) = 1 - delta(oo) is no grid's to decide)
            wide = np.max(result.f_hi - result.f_lo, initial=0.0, where=x > 0)
            rel = np.max((result.power_hi - result.power_lo)
                         / np.maximum(result.power_hi, 1e-300), initial=0.0, where=x > 0)
            if (wide <= tol and rel <= tol) or 2 * n > GRID_MAX or n >= GRID_LOCAL or local:
                break
            n *= 2
        result = _refine(directions, known, x, result, tol, shown)
    _warn_if_wide(result, x, tol)
    return result


def _directions(f) -> tuple | None:
    """The products whose larger profile is f's: the two directions of f = C(g), g a product
    (``engines.hull_directions``), or f itself when f is a product known to be symmetric (its
    profile is its own: C_p(G_mu)^{(x) T}), else None."""
    if isinstance(f, SymmetricHull):
        return hull_directions(f)
    if isinstance(f, (Tensor, TensorPower)) and f.is_symmetric is True:
        leaves = pld_leaves(f)
        return None if leaves is None else (leaves,)
    return None


def _too_wide(b: Band, x: np.ndarray, tol: float) -> np.ndarray:
    """The levels (alpha > 0) whose band of f is wider than ``tol`` or whose band of the
    power is wider than ``tol`` relative to its upper end."""
    rel = (b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)
    return (x > 0) & ((b.f_hi - b.f_lo > tol) | (rel > tol))


def _refine(directions: list, known: dict, x: np.ndarray, result: Band, tol: float,
            shown=None) -> Band:
    """Narrow the band at the levels still wider than ``tol`` by grid points near their
    minimisers: each round cuts the two grid intervals around the float minimiser of h_1 or
    h_2 (``numeric.profile_band``; the branch that decides the power, or both) of each such
    level into :data:`LOCAL_SPLIT` parts, so the local step shrinks by that factor and the band
    (second order in it) by its square per round; the new band at those levels is
    intersected with the old (each holds the truth, so a round never widens it). Stops when
    every level meets ``tol``, after :data:`LOCAL_ROUNDS` rounds or beyond
    :data:`LOCAL_MAX` grid points."""
    for _ in range(LOCAL_ROUNDS):
        bad = np.flatnonzero(_too_wide(result, x, tol))
        if bad.size == 0:
            break
        grid = sorted(known)
        e = np.array(grid)
        d = np.array([float(known[g].mid()) for g in grid])
        new: set = set()
        for a in np.unique(x[bad]):
            h1, h2 = d + a * np.exp(e), np.exp(-e) * (d - (1 - a))
            p1, p2 = float(np.min(h1)), 1 + float(np.min(h2))
            slack = 4 * tol * max(min(p1, p2), 1e-300) + 1e-300
            for h, p, other in ((h1, p1, p2), (h2, p2, p1)):
                if p > other + slack:  # this branch does not decide the power
                    continue
                m = int(np.argmin(h))
                for j in range(max(m - 1, 0), min(m + 1, len(e) - 1)):
                    for k in range(1, LOCAL_SPLIT):
                        t = e[j] + (e[j + 1] - e[j]) * k / LOCAL_SPLIT
                        if e[j] < t < e[j + 1] and t not in known:
                            new.add(float(t))
        if not new or len(known) + len(new) > LOCAL_MAX:
            break
        pts = sorted(new)
        for e_new, b in zip(pts, profile_grid(directions, pts, shown), strict=True):
            known[e_new] = b
        grid = sorted(known)
        sub = band(grid, [known[g] for g in grid], x[bad])
        old = Band(result.f_lo[bad], result.f_hi[bad], result.power_lo[bad],
                   result.power_hi[bad]).intersect(sub)
        result.f_lo[bad], result.f_hi[bad] = old.f_lo, old.f_hi
        result.power_lo[bad], result.power_hi[bad] = old.power_lo, old.power_hi
    return result


def _warn_if_wide(b: Band, x: np.ndarray, tol: float) -> None:
    """A ToleranceWarning naming the widths reached where the band is wider than asked."""
    wide = _too_wide(b, x, tol)
    if wide.any():
        f_w = float(np.max(b.f_hi - b.f_lo, initial=0.0, where=x > 0))
        p_w = float(np.max((b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300),
                           initial=0.0, where=x > 0))
        warnings.warn(f"certified band wider than tol = {tol:.3g} at {int(wide.sum())} of "
                      f"{x.size} levels: widths up to {f_w:.3g} (f) and {p_w:.3g} (the "
                      f"power, relative); the band holds the curve (certified)",
                      ToleranceWarning, stacklevel=4)


def hull_point(f, A, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) at a rational level 0 < A < 1 as a certified enclosure from
    :func:`inversion_band` at the two floats around A (f is non-increasing, its power
    non-decreasing), to the relative width of ``pld_options``; None where the band route does
    not apply."""
    if not isinstance(f, (SymmetricHull, Tensor, TensorPower)) or not 0 < A < 1:
        return None
    a = float(A)
    q = Fraction(int(A.p), int(A.q))
    lo_a = a if Fraction(a) <= q else math.nextafter(a, 0.0)
    hi_a = a if Fraction(a) >= q else math.nextafter(a, 1.0)
    b = inversion_band(f, np.array([lo_a, hi_a]), options()["tol"])
    if b is None:
        return None
    if power:
        lo, hi = b.power_lo[0], b.power_hi[1]
    else:
        lo, hi = b.f_lo[1], b.f_hi[0]
    return Value.enclosure(mp.mpf(lo), mp.mpf(hi), dps, guarantee="certified").routed(ROUTE)


CURVE_BANDS.append(inversion_band)
POINT_ROUTES.append(hull_point)
