"""Whole curves of symmetric hulls of products by the certified Laplace inversion.

For f = C(g) with g a product whose factors have Arb laws (the subsampled Gaussian steps of
DP-SGD, ``noisy_sgd``), the hull's support line of slope -e^eps is the line of the direction
with the larger delta (delta_f = max(delta_g, delta_{g^-1}), ``engines``), and it touches the
curve at that direction's Neyman-Pearson point (alpha, 1 - beta) = (B(L > eps), A(L > eps))
(Dong, Roth & Su, Prop. 6; every point of either direction, and its mirror image, lies on or
below the hull's power 1 - f, since f <= g and f <= g^-1). :func:`tail_band`:

* for each level, the eps whose contact point (or its mirror image, above the slope -1) reaches
  it, from float estimates of a few tail inverters (``numeric.cf_tails``: an inverter's nodes
  M(z_k)/(z_k(z_k + 1)) do not depend on eps and give delta and both tails at every eps);
  a new inverter is planned where a point's error bound exceeds its share of the tolerance;
* the certified points of the direction (both where the deltas tie) at the two points around
  that eps of a dyadic grid whose step shrinks with the tolerance (``routes.tail_points``:
  a tighter tolerance's grid refines the looser one's, so its points lie nearer the contact
  point and its band inside the looser one's), for the levels where the chord-tangent gap
  between neighbours calls for them, and the larger delta;
* ``numeric.profile_band.point_band``: the chords of the points below, the support lines at the
  two points around each level above. The band is first order in the points' widths (about
  1e-2 of the tolerance), so a width of 1e-9 of the power costs one point per level.

A power of one law with a flat view (``numeric.cf_flat``: the subsampled Gaussian's Chebyshev
model, M(c + it) at a cost flat in t) inverts the view where its plan is the cheaper or the
law's own is beyond its cap (a few DP-SGD steps, T = 5 to a few hundred: the own plan is
unbounded at tight widths), while its first plan stays within :data:`FLAT_TAIL_SECONDS`; a
direction whose loss is bounded (the remove direction, at most T log(1/(1 - q))) is planned
below half its largest loss (beyond, its delta and tails are 0: no saddle point).

A product of one law's few factors whose law gives its Neyman-Pearson points itself (the
optional law method ``few_step_tails``: one and two Poisson-subsampled Gaussian steps, whose
characteristic function decays too slowly for an affordable inverter) takes those points in
place of the inverters' (:func:`few_step_tails`), with the same placement and band.

Many Poisson-subsampled Laplace steps (a law with atoms at both ends of its loss: no power
decay) take their tails from the split of ``numeric.cf_split_tails`` where the terms with few
density components weigh less than the share asked (``routes.tail_laws.tail_sets``: T = 10^4,
q = 1/100, b = 1, at 0.68^(10^4)), the remainder read from the whole law's inverter
(``numeric.cf_split_whole``); fewer steps keep the secant band below.

Products whose tails are not certified (no power decay of |M(c + it)|) get the secant band
(:func:`secant_band`: delta on a grid of eps from shared inverters, ``profile_band.band``,
second order in the grid step, refined near the levels' minimisers by ``routes.grid_band``, down to
:data:`SECANT_TOL_MIN`).

A tighter tolerance never gives a wider band (issue 29): ``numeric.curves.curve_band`` places
every band in the tolerance chain (``numeric.tol_nest``); here a split product whose tails are
not served at tol takes the nearest looser tolerance's band (with the width warning) before the
secant band (:func:`_nested`).

A band left wider than asked says so with a ToleranceWarning naming the widths reached.
:func:`inversion_band` is the route: None where it does not apply (then the PLD engine
answers, ``engines``). :func:`hull_point` answers ``evaluate`` and ``roc`` of such hulls at
one level the same way (a certified enclosure at the PLD engine's tolerance,
``pld_options``), as a point route of ``numeric.protocol``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from flint import arb

from ..core.errors import ToleranceWarning
from ..numeric import budget, cf
from ..numeric.cf_laws import working_precision
from ..numeric.cf_route import MAX_WORK, REL_MIN, _work
from ..numeric.cf_split_tails import splits as splits_law
from ..numeric.curves import CURVE_BANDS, nested_band
from ..numeric.options import options
from ..numeric.profile_band import Band
from ..numeric.progress import bar
from ..numeric.protocol import POINT_ROUTES
from ..numeric.value import Value
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import SymmetricHull
from .engines import _cf_laws, hull_directions, looser_tolerances
from .grid_band import (
    GRID_MAX,
    GRID_START,
    _warn_if_wide,
    grid_band,
    profile_grid,
)
from .inversion_tails import (
    STALL,
    TAIL_PLAN,
    TAIL_PLAN_MAX,
    TAIL_PLANS,
    _alpha_eps,
    _alpha_eps_few,
    _NoTails,
    _solve_levels,
    _Tails,
    few_step_tails,
)
from .plan import pld_leaves
from .tail_laws import SPLIT_SHARE, band_value, floats_around, tail_sets
from .tail_points import TAIL_SHARE, certified_band, grid_step

__all__ = ["inversion_band", "tail_band", "secant_band", "grid_band", "hull_point", "profile_grid",
           "GRID_START", "GRID_MAX", "SECANT_TOL_MIN", "ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "certified Laplace inversion, profile band"
#: Its name where every direction's points come from its law itself (:func:`few_step_tails`).
FEW_ROUTE = "certified Neyman-Pearson points of few subsampled Gaussian steps, profile band"

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
                   progress: bool | None = None, warn: bool = True) -> Band | None:
    """Certified bands of f at the levels ``alphas`` (module docstring), aiming at an absolute
    width ``tol`` of f and a relative width ``tol`` of the power 1 - f; None when f is not the
    symmetric hull of a product of Arb laws or the inversion is beyond its planned work (at
    ``tol`` and at the looser tolerances of ``engines.looser_tolerances``, whose band answers a
    tighter ``tol`` beyond it). The
    curve points of :func:`tail_band` where the tails are certified, else the secant band of
    the profile on a grid (:func:`secant_band`, at widths down to :data:`SECANT_TOL_MIN`).
    ``warn=False`` leaves out the band's ToleranceWarnings (a band wider than ``tol``, a
    ``tol`` below :data:`SECANT_TOL_MIN`): a caller that judges the width itself
    (:func:`hull_point`) says what it finds."""
    dirs = _directions(f)
    sets = None if dirs is None else _cf_laws(list(dirs))
    if sets is None:
        return None
    sets = [[(law, int(n)) for law, n in s] for s in sets]
    x = np.asarray(alphas, dtype=np.float64)
    split = any(splits_law(law) for s in sets for law, _ in s)
    lattice = any(hasattr(law, "lattice_parts") for s in sets for law, _ in s)
    floats: dict = {}  # (the few-step laws' float estimates, shared by the tolerances)
    with bar(None, "curve (inversion)", progress, unit="delta") as shown:
        try:
            own = _tails_at(dirs, sets, x, tol, shown, split, floats)
        except budget.TimeLimitExceeded:
            raise
        except _NoRoute:
            return None  # (the profile route answers products with Laplace factors)
        except (_NoTails, ValueError, ArithmeticError, RuntimeError, ZeroDivisionError):
            if not split:  # (the tails' certification does not depend on tol)
                return secant_band(sets, x, tol, progress, warn)
            own = _FAILED
        result = _nested(dirs, sets, x, tol, shown, split, own, floats)
    if result is None and own is _FAILED:
        if lattice:
            return None
        return secant_band(sets, x, tol, progress, warn)
    if result is None:  # beyond the planned work
        return None
    result = Band(*(v.reshape(x.shape) for v in (result.f_lo, result.f_hi, result.power_lo,
                                                  result.power_hi)))
    if warn:
        _warn_if_wide(result, x, tol)
    return result


class _NoRoute(Exception):
    """The route does not apply at this tolerance (the profile route answers)."""


#: The outcome of a tolerance whose tails are not certified (:func:`_tails_at`).
_FAILED = object()


def _tails_at(dirs: tuple, sets: list, x: np.ndarray, tol: float, shown,
              split: bool, floats: dict | None = None) -> Band | None:
    """The band of :func:`tail_band` at the one tolerance ``tol`` (None beyond its planned
    work): Laplace factors take their tails from ``routes.tail_laws`` (a Gaussian factor, or
    the lattice part of a self-product below the share asked; where neither, :class:`_NoRoute`
    for laws with lattice parts, else the tails of the laws themselves, which raise
    :class:`_NoTails` where they are not certified)."""
    splits = None
    if split:
        pos = x[(x > 0) & (x < 1)]
        a_min = float(min(pos.min(), 1 - pos.max())) if pos.size else 0.5
        prepared = tail_sets(list(dirs), sets, SPLIT_SHARE * tol * a_min)
        if prepared is not None:
            sets = [s for s, _ in prepared]
            splits = [J for _, J in prepared]
        elif any(hasattr(law, "lattice_parts") for s in sets for law, _ in s):
            raise _NoRoute
    return tail_band(sets, x.ravel(), tol, shown, splits, floats)


def _nested(dirs: tuple, sets: list, x: np.ndarray, tol: float, shown, split: bool,
            own, floats: dict | None = None) -> Band | None:
    """The band at ``tol``: ``own``, or, where it is None (beyond its planned work) or
    ``_FAILED`` (a split product whose lattice part weighs more than the share asked), the band
    of the nearest looser tolerance of ``engines.looser_tolerances`` that gives one (the
    caller's width warning names its widths), never wider than that tolerance's. The nesting
    of bands at different tolerances is the tolerance chain's (``numeric.tol_nest``, applied by
    ``numeric.curves.curve_band`` to every curve band)."""
    result = None if own is _FAILED else own
    if result is None:
        for looser in looser_tolerances(tol):
            result = _try_tails(dirs, sets, x, looser, shown, split, floats)
            if result is not None:
                break
    return result


def _try_tails(dirs: tuple, sets: list, x: np.ndarray, tol: float, shown,
               split: bool, floats: dict | None = None) -> Band | None:
    """:func:`_tails_at`, None where it gives no band (its tails not certified there)."""
    try:
        return _tails_at(dirs, sets, x, tol, shown, split, floats)
    except budget.TimeLimitExceeded:
        raise
    except (_NoRoute, _NoTails, ValueError, ArithmeticError, RuntimeError, ZeroDivisionError):
        return None


#: The narrowest width the secant band aims at (its grid grows like tol^-1/2 and the secants
#: divide the deltas' widths by the grid step).
SECANT_TOL_MIN = 1e-6


def secant_band(sets: list, x: np.ndarray, tol: float, progress: bool | None = None,
                warn: bool = True) -> Band | None:
    """The band of the profile on a grid of eps (:func:`numeric.profile_band.band`), for
    products whose tails are not certified; below :data:`SECANT_TOL_MIN` it aims at that
    width, with a ToleranceWarning (``warn``: as in :func:`inversion_band`)."""
    if tol < SECANT_TOL_MIN:
        if warn:
            warnings.warn(f"tol = {tol:.3g} is below SECANT_TOL_MIN = {SECANT_TOL_MIN:.3g}, the "
                          "narrowest secant band of a whole curve (the loss tails of this "
                          "product are not certified)", ToleranceWarning, stacklevel=4)
        tol = SECANT_TOL_MIN
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
    result = grid_band(directions, x, tol, end, progress)
    if warn:
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


# -- the band from curve points: the tails of the inversion ------------------------------------
def tail_band(sets: list, x: np.ndarray, tol: float, progress=None,
              splits: list | None = None, floats: dict | None = None) -> Band | None:
    """Certified bands of the symmetric hull whose directions are the products ``sets`` at the
    levels ``x``, from curve points: for each level the eps whose Neyman-Pearson point of the
    hull reaches it (floats, :func:`_solve`), the certified points of both directions at the
    two points of the nested dyadic grid around it (:func:`~.tail_points.grid_step`,
    ``numeric.cf_tails``) with their mirror images, and the support lines of the larger delta
    (``numeric.profile_band.point_band``), at most ``TAIL_SHARE`` tol of the power apart for
    the points' balls and as much for the chords between them. None beyond the planned work
    (``MAX_WORK``); raises :class:`_NoTails` where the tails are not certified. ``progress``:
    a bar (``numeric.progress``) counting the certified points. ``splits``: each product's
    split order (``routes.tail_laws``), None for none. ``floats``: a cache of the float
    estimates of laws that give their points themselves, shared by one band's tolerances
    (:func:`_share_floats`)."""
    rel = max(min(tol * TAIL_PLAN, TAIL_PLAN_MAX), REL_MIN)
    dirs = [_Tails(s, rel, None if splits is None else splits[k], floats)
            for k, s in enumerate(sets)]
    if any(d.few is None and d.split is None and _never_decays(d.factors) for d in dirs):
        raise _NoTails  # (before a plan: no inverter's tails would be certified)
    inner = x[(x > 0) & (x < 1)]
    a_min = float(inner.min()) if inner.size else 0.5
    cap = max(math.log(1 / a_min), math.log(2 / tol)) + 1
    # (the first inverter's eps depends on the levels only, never on tol: B(L > eps) <=
    # e^-eps, so the size a_min is reached below log(1/a_min); the bisection's interval is the
    # power of two above log(1/a_min) + 1, and the same levels plan the same first inverter)
    a_cap = 2.0 ** math.ceil(math.log2(math.log(1 / a_min) + 1))
    e_min = (_alpha_eps(sets[0], a_min, a_cap) if dirs[0].few is None
             else _alpha_eps_few(dirs[0].few, a_min, a_cap))
    e_start = e_min if len(set(inner.tolist())) <= 2 else 0.5 * e_min
    with working_precision(64):  # (the plan is kept by numeric.cf for the first inverter)
        for d in dirs:
            d.flatten(e_start)
        if any(d.few is None and not d.affordable(e_start) for d in dirs):
            return None
    for d in dirs:
        d.plan(e_start)
    flat = x.ravel()
    for _ in range(TAIL_PLANS):
        # at eps = 0 (slope -1) and at the candidate ends of the grid, in one estimate each
        tries = [max(1.5 * e_min, 1.0)]
        while tries[-1] < cap:
            tries.append(min(1.5 * tries[-1], cap))
        z = [d.estimate(np.array([0.0] + tries)) for d in dirs]
        ends = [float(e[2][0]) for e in z] + [1 - float(e[1][0]) for e in z]
        b1, b2 = flat < min(ends), flat > max(ends)
        top = 1 - float(flat[b2].max(initial=0.0))
        end = tries[-1]
        for k, e_try in enumerate(tries[:-1]):
            # the grid reaches the smallest size and the largest power asked
            if (max(e[2][k + 1] for e in z) <= a_min and max(e[1][k + 1] for e in z) <= top):
                end = e_try
                break
        eps = _solve_levels(dirs, flat, b1, b2, end)
        # each direction's error bound against the power at the level (its share of tol)
        power = np.where(b2, 1 - flat, np.maximum(flat, 1e-300))
        inside = (flat > 0) & (flat < 1) & (eps < end)  # (0, 1 and beyond the grid: bounds)
        worst = None
        ests: list | None = []
        for k, d in enumerate(dirs):
            est = d.estimate(eps)
            ests.append(est)
            value = np.where(b2, 1 - est[2], est[1])
            need = TAIL_SHARE * tol * np.maximum(np.minimum(value, 1.0), power)
            bad = (est[5] > need) & inside
            if bad.any() and len(d.inv) < TAIL_PLANS and d.few is None and not d.stalled:
                j = int(np.argmax(np.where(bad, est[5] / need, 0.0)))
                at = d.reach(float(eps[j]))
                if any(abs(at - e0) <= 1e-12 * max(1.0, abs(at)) for e0 in d.e0):
                    d.stalled = True  # (planned there: the same inverter again)
                    continue
                worst = (k, float(eps[j]), float(est[5][j]))
                break
        if worst is None:
            break
        ests = None  # (a new plan: the estimates change)
        d = dirs[worst[0]]
        try:
            d.plan(worst[1])
        except budget.TimeLimitExceeded:
            raise
        except (ValueError, ArithmeticError, RuntimeError):
            break  # (the band says how wide it is)
        # a plan that does not halve the error bound where it was made will not be bettered
        # by more plans of this direction (DP-SGD, T = 10, tol 1e-9: the remove direction,
        # whose loss is bounded, planned 15 times at one abscissa, the same inverter)
        d.stalled = float(d.best(np.array([worst[1]]))[1][0]) > STALL * worst[2]
    # (the points placed for the tolerance the plans stand for: rel / TAIL_PLAN, capped)
    return certified_band(dirs, flat, eps, b2, tol, grid_step(rel), progress, rel / TAIL_PLAN,
                          ests)


def _never_decays(factors: Sequence) -> bool:
    """Whether no law of ``factors`` has a power decay at any abscissa (the optional law
    attribute ``power_decay_never``: the symmetric hull of the subsampled Gaussian, whose
    atom at loss 0 keeps |M(c + it)| above m0 - |D|): ``numeric.cf_tails`` then certifies no
    tails (the kernel 1/z is not summable), so no inverter is planned for them."""
    return all(getattr(law, "power_decay_never", False) for law, _ in factors)


def _at(inverted: tuple[list, float], e: float) -> tuple[list, float, float]:
    """(factors, e, rel) for ``cf_route._work`` from :meth:`_Tails.inverted`."""
    return inverted[0], e, inverted[1]


def hull_point(f, A, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) at a rational level 0 < A < 1 as a certified enclosure from
    :func:`inversion_band` at the two floats around A (f is non-increasing, its power
    non-decreasing), to the relative width of ``pld_options``; None where the band route does
    not apply. The band's own width warnings are left out (``warn=False``): one warning, about
    this value's relative width, where it exceeds the tolerance."""
    if not isinstance(f, (SymmetricHull, Tensor, TensorPower)) or not 0 < A < 1:
        return None
    a = float(A)
    tol = options()["tol"]
    levels = np.array(floats_around(A))
    b = inversion_band(f, levels, tol, warn=False)
    if b is None:
        return None
    b = nested_band(f, levels, tol, b)  # (the tolerance chain: numeric.tol_nest)
    if power:  # (nothing learnt: between Id and 0; the next route answers)
        if b.power_lo[0] <= a and b.power_hi[1] >= 1:
            return None
    elif b.f_lo[1] <= 0 and b.f_hi[0] >= 1 - a:
        return None
    # (the band's tolerance is absolute in f: the value's is relative)
    return band_value(b, f, A, dps, power, tol, FEW_ROUTE if _all_few(f) else ROUTE)


def _all_few(f) -> bool:
    """Whether every direction of f gives its points itself (:func:`few_step_tails`)."""
    dirs = _directions(f)
    sets = None if dirs is None else _cf_laws(list(dirs))
    return sets is not None and all(
        few_step_tails([(law, int(n)) for law, n in s], 1.0) is not None for s in sets)


CURVE_BANDS.append(inversion_band)
POINT_ROUTES.append(hull_point)
