"""Whole trade-off curves: f at an array of levels, as float64 arrays, with bounds.

:func:`curve` takes the fastest sound path: a float64 path of the node (``np_value``) checked
against certified values at a few levels, certified bands of the whole curve where a band route
applies (:data:`CURVE_BANDS`: DP-SGD's hulls by the Laplace inversion), one composed grid for
every level of a product or a symmetric hull (``mp_curve``), else per-point certified
evaluations (:func:`.protocol.evaluate`);
``bounds=True`` returns guaranteed lower and upper curves, with a warning where they are only
estimates. Core's ``f.curve`` forwards here (``core.node.NUMERIC``).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.errors import (
    EstimateWarning,
    InvalidParameter,
    NoClosedForm,
    NumericalError,
    ToleranceWarning,
)
from ..core.node import NUMERIC, TradeOff
from ..core.validate import flag
from . import budget
from .context import mp
from .offer import intersect, settle
from .options import DEFAULT_TOL
from .progress import bar, check_progress
from .protocol import (
    as_level,
    evaluate,
    exact_ends,
    mp_curve,
    np_value,
    prepare_call,
    short,
)
from .tol_nest import chain_has, looser, nest, nest_many
from .value import dps_to_prec

__all__ = ["curve", "CURVE_DPS", "CURVE_BANDS", "curve_band", "nested_band", "BAND_TOL_MIN"]

#: Routes that give certified bands of a whole curve at once (``routes.inversion_curve``
#: registers the Laplace inversion of symmetric hulls of products): functions
#: ``(f, levels, tol, progress) -> numeric.profile_band.Band | None``, tried in order before
#: the composed grid of the PLD engine.
CURVE_BANDS: list = []
#: The narrowest relative width asked of a band route (``pld_options(tol=...)`` below it is
#: raised to it): the curve points of the inversion are planned to 1e-2 of the tolerance and
#: the inversion aims at relative widths down to 1e-14 (``numeric.cf_route.REL_MIN``).
BAND_TOL_MIN = 1e-12


def curve_band(f: TradeOff, x: np.ndarray, tol: float | None = None,
               progress: bool | None = None) -> Any:
    """Certified bands of f (and of its power 1 - f) at the levels ``x`` from the first of
    :data:`CURVE_BANDS` that applies (a ``numeric.profile_band.Band``), else None. ``tol``:
    the target width, by default the PLD engine's tolerance (``pld_options``)."""
    from .options import options

    if tol is None:
        tol = options()["tol"]
    asked = float(tol)
    tol = max(asked, BAND_TOL_MIN)
    flat = np.asarray(x, dtype=np.float64).ravel()
    b = _route_band(f, flat, tol, progress)
    if b is None:
        return None
    if asked < tol:
        warnings.warn(f"tol = {asked:.3g} is below BAND_TOL_MIN = {tol:.3g}, the "
                      "narrowest band of a whole curve: this band is certified to width "
                      f"{b.width:.3g}",
                      ToleranceWarning, stacklevel=3)
    if tol < DEFAULT_TOL and BAND_ANCHOR:
        _anchor_band(f, flat, progress)
    return nested_band(f, flat, tol, _with_ends(f, flat, b))


def _with_ends(f: TradeOff, flat: np.ndarray, b: Any) -> Any:
    """The band ``b`` intersected with what is known exactly at the ends: f(0) where
    ``protocol.exact_ends`` knows it (Dong, Roth & Su, Def. 2: f(0) = 1 - Q(P = 0)), and f = 0
    on [z, 1], z = f^{-1}(0) = P(Q > 0) where it knows z (f is non-increasing; z = 1 at
    least: f(1) = 0 for every trade-off function), each rounded outward to float64. A band
    route's own bounds there may be vacuous (Laplace(1)^1000 at 21 levels: [0, 1] at
    alpha = 0, where f(0) = 1) or merely small (f_{log 3, 1/10}^3: 2.9e-22 above z = 0.729);
    a band that excludes an exact value is a defect (ArithmeticError)."""
    e, z = exact_ends(f) if (flat < 1).any() else (None, None)
    z = Fraction(1) if z is None else Fraction(int(z.p), int(z.q))
    z_lo, z_hi = _outward(z)
    at_zero = flat >= z_hi  # (then a >= z; the floats in [z_lo, z_hi) decided exactly)
    for i in np.flatnonzero((flat >= z_lo) & (flat < z_hi)):
        at_zero[i] = Fraction(float(flat[i])) >= z
    known = [(at_zero, Fraction(0))]
    if e is not None:
        known.append((flat == 0, Fraction(int(e.p), int(e.q))))
    if not any(at.any() for at, _ in known):
        return b
    shape = b.f_lo.shape
    f_lo, f_hi = np.zeros(flat.shape), np.ones(flat.shape)
    p_lo, p_hi = np.zeros(flat.shape), np.ones(flat.shape)
    for at, v in known:
        f_lo[at], f_hi[at] = _outward(v)
        p_lo[at], p_hi[at] = _outward(1 - v)
    ends = type(b)(*(v.reshape(shape) for v in (f_lo, f_hi, p_lo, p_hi)))
    return intersect(b, ends)


def _outward(q: Fraction) -> tuple[float, float]:
    """The float64 ends of the exact rational q rounded outward."""
    y = float(q)
    lo = y if Fraction(y) <= q else float(np.nextafter(y, -np.inf))
    hi = y if Fraction(y) >= q else float(np.nextafter(y, np.inf))
    return lo, hi


#: Whether a band below the default tolerance is nested with the default's band in a fresh
#: process too (:func:`_anchor_band`: one band at ``DEFAULT_TOL`` per node and levels). Off:
#: not cheap (DP-SGD, T = 1000, 101 levels at tol 1e-9: 0.107 s without, 0.157 s with it, one
#: eps call 0.063 s; benchmarks/RESULTS_curve_ratio.md), so a band's nesting across processes
#: rests on the routes' construction (``routes.tail_points``' nested grids).
BAND_ANCHOR = False


def _route_band(f: TradeOff, flat: np.ndarray, tol: float, progress) -> Any:
    """The first band of :data:`CURVE_BANDS` that meets ``tol``; where a route can only
    offer a certified band wider than ``tol`` (``numeric.offer.Offer``) and no later route
    answers, the offers intersected with the bands of the routes that declined ``tol``, asked
    again at looser tolerances (``numeric.offer.settle``), with a ToleranceWarning (not the
    PLD grid's estimates)."""
    return settle(CURVE_BANDS, lambda route, t: route(f, flat, t, progress), tol,
                  lambda b: band_width(b, flat), stacklevel=4)


def band_width(b: Any, x: np.ndarray) -> float:
    """The widest level of the band ``b`` at the levels ``x`` in the measure of a curve's
    tolerance: f absolutely, the power 1 - f relative to its upper end (levels alpha > 0)."""
    f_w = (b.f_hi - b.f_lo).ravel()
    p_rel = ((b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)).ravel()
    w = np.where(np.asarray(x).ravel() > 0, np.maximum(f_w, p_rel), 0.0)
    return float(np.max(w, initial=0.0))


def _band_keys(f: TradeOff, flat: np.ndarray) -> tuple[list, list]:
    levels = flat.tolist()
    return [("f", f, a) for a in levels], [("power", f, a) for a in levels]


def nested_band(f: TradeOff, flat: np.ndarray, tol: float, b: Any) -> Any:
    """The band ``b`` at ``tol`` placed in the tolerance chain of each level's f and power
    (``numeric.tol_nest``): nested with the bands and points of f at every other tolerance of
    this process."""
    kf, kp = _band_keys(f, flat)
    f_lo, f_hi = nest_many(kf, tol, b.f_lo.ravel().tolist(), b.f_hi.ravel().tolist())
    p_lo, p_hi = nest_many(kp, tol, b.power_lo.ravel().tolist(), b.power_hi.ravel().tolist())
    # (a point's mpf ends in the chain: rounded outward, a monotone map, so still nested)
    f_lo, p_lo = ([v if type(v) is float else _float_down(v) for v in vs] for vs in (f_lo, p_lo))
    f_hi, p_hi = ([v if type(v) is float else _float_up(v) for v in vs] for vs in (f_hi, p_hi))
    shape = b.f_lo.shape
    return type(b)(*(np.asarray(v, dtype=np.float64).reshape(shape)
                     for v in (f_lo, f_hi, p_lo, p_hi)))


def _anchor_band(f: TradeOff, flat: np.ndarray, progress) -> None:
    """The band at ``DEFAULT_TOL`` put in the chain first where some level's chain holds
    nothing at the default or looser (a fresh process), so the band at a tighter tolerance
    lies inside the default's whatever ran before (``numeric.tol_nest``: the anchor)."""
    kf, _ = _band_keys(f, flat)
    if all(chain_has(k, DEFAULT_TOL) for k in kf):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the default's own width warnings)
        b = _route_band(f, flat, DEFAULT_TOL, progress)
    if b is not None:
        nested_band(f, flat, DEFAULT_TOL, b)


def _curve_levels(alphas: Any) -> np.ndarray:
    """The levels of :func:`curve` as a float64 array, validated.

    A numpy array of real dtype (or a float) is checked vectorised; anything else element by
    element with :func:`as_level` (so ``True``, bytes and values just above 1 are refused, not
    rounded into [0, 1])."""
    allowed = "real numbers in [0, 1]"
    if isinstance(alphas, np.ndarray) and alphas.dtype.kind in "fiu":
        x = alphas.astype(np.float64)
    elif isinstance(alphas, (float, np.floating)):
        x = np.asarray(alphas, dtype=np.float64)
    else:
        items = alphas if isinstance(alphas, (list, tuple, np.ndarray)) else [alphas]
        if isinstance(alphas, np.ndarray):
            items = alphas.ravel().tolist()
        try:
            vals = [float(v) if isinstance(v, (float, np.floating)) else float(as_level(v))
                    for v in items]
        except InvalidParameter as exc:
            raise InvalidParameter("alphas", exc.value, allowed) from exc
        except TypeError as exc:  # nested sequences of the wrong shape, ...
            raise InvalidParameter("alphas", alphas, allowed) from exc
        x = np.asarray(vals, dtype=np.float64)
        if isinstance(alphas, np.ndarray):
            x = x.reshape(alphas.shape)
        elif not isinstance(alphas, (list, tuple)):
            x = x.reshape(())
    if x.size and not (x.min() >= 0 and x.max() <= 1):  # (NaN fails both)
        bad = ~np.isfinite(x) | (x < 0) | (x > 1)
        raise InvalidParameter("alphas", x[bad][0], allowed)
    return x


#: Digits of the per-point certified evaluations behind :func:`curve` where no float64 path
#: exists, and behind ``bounds=True``.
CURVE_DPS = 10


#: The digits of the certified points behind ``bounds=True`` follow the tolerance on the rungs
#: ``CURVE_DPS + CURVE_DPS_STEP * k`` (at most :data:`CURVE_DPS_MAX`).
CURVE_DPS_STEP = 5
CURVE_DPS_MAX = 60


def point_dps_rungs(tol: float, f_mid: float) -> list[int]:
    """The digits at which a curve point of value about ``f_mid`` is evaluated for the
    tolerance ``tol`` (``bounds=True``): the rungs from :data:`CURVE_DPS` up to the first with
    at least ``1 + log10(2 / tol) + log10(max(1, f / (1 - f)))`` digits, capped at
    :data:`CURVE_DPS_MAX`. A certified point with d digits is widened by |f| 10^(1 - d) either
    side (``Value.interval``), a width 2 |f| 10^(1 - d) <= tol min(1, (1 - f) / f): at most
    ``tol`` for f and, relative, for the power 1 - f. A function of (``tol``, ``f_mid``) only,
    and a tighter ``tol`` gives a list that starts with the looser one's."""
    ratio = f_mid / (1 - f_mid) if f_mid < 1 else math.inf
    need = 1 + math.log10(2 / tol) + math.log10(max(1.0, ratio))
    rungs = [CURVE_DPS]
    while rungs[-1] < need and rungs[-1] + CURVE_DPS_STEP <= CURVE_DPS_MAX:
        rungs.append(rungs[-1] + CURVE_DPS_STEP)
    return rungs


def _curve_points(f: TradeOff, x: np.ndarray, estimates: list | None = None,
                  progress: bool | None = None, tol: float | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, mid, hi) of f at every level of ``x`` by :func:`evaluate` (the engines cache what
    they compose, so the points after the first cost little). ``lo``, ``hi`` hold the truth
    wherever the Value is certain: a point is widened by the unit of its last digit
    (:meth:`Value.interval`) before it is rounded outward to float64. The levels whose Value is
    an estimate are appended to ``estimates``. ``progress``: a bar of the levels
    (``numeric.progress``).

    ``tol``: the points are evaluated at every rung of :func:`point_dps_rungs` (``tol``, f at
    :data:`CURVE_DPS` digits) and their intervals intersected (each holds the truth where
    certain), so the width follows ``tol``; a certain point then enters the tolerance chain of
    f at its level (``numeric.tol_nest``), so a tighter ``tol`` never gives a wider interval in
    one process (the rungs include the looser one's, but a route may plan each rung by the
    tolerance: the Laplace factors' tails at dps 15 gave an upper end 2.5e-17 higher at tol
    1e-12 than at 1e-9). None: :data:`CURVE_DPS` digits alone."""
    lo, mid, hi = (np.empty_like(x) for _ in range(3))
    with bar(x.size, "curve", progress, unit="level") as shown:
        for i, a in enumerate(x.ravel()):
            v = evaluate(f, float(a), dps=CURVE_DPS)
            rungs = [CURVE_DPS] if tol is None else point_dps_rungs(tol, float(v.mid))
            a_lo, a_hi, certain = -math.inf, math.inf, True
            for d in rungs:
                if d != CURVE_DPS:
                    v = evaluate(f, float(a), dps=d)
                if v.exact is not None:  # (the rational itself, not its dps-digit ends)
                    v_lo, v_hi = _outward(Fraction(int(v.exact.p), int(v.exact.q)))
                    a_lo, a_hi = max(a_lo, v_lo), min(a_hi, v_hi)
                    continue
                with mp.workprec(dps_to_prec(d) + 40):
                    v_lo, v_hi = v.interval()
                    a_lo, a_hi = max(a_lo, _float_down(v_lo)), min(a_hi, _float_up(v_hi))
                certain = certain and v.is_certain
            if certain and tol is not None:  # (the tolerance chain: numeric.tol_nest)
                a_lo, a_hi = nest(("f", f, float(a)), tol, a_lo, max(a_hi, a_lo))
                a_lo, a_hi = _float_down(a_lo), _float_up(a_hi)  # (mpf ends of points)
            lo.flat[i], hi.flat[i] = a_lo, max(a_hi, a_lo)
            mid.flat[i] = float(v.mid)
            if estimates is not None and not certain:
                estimates.append(float(a))
            shown.update()
    return lo, mid, hi


def _float_down(x) -> float:
    """The largest float64 <= the mpf x."""
    y = float(x)
    return float(np.nextafter(y, -np.inf)) if mp.mpf(y) > x else y


def _float_up(x) -> float:
    """The smallest float64 >= the mpf x."""
    y = float(x)
    return float(np.nextafter(y, np.inf)) if mp.mpf(y) < x else y


#: A composed-grid curve point wider than this (absolute) is uninformative: it is re-evaluated
#: on its own (at most :data:`CURVE_REFINE` of them per call) and, if it stays wider, warned
#: about. Narrower points are the engine's enclosures at its tolerance (``pld_options``).
CURVE_WIDTH = 1e-3
CURVE_REFINE = 64
#: Levels at which a float64 path of an operator tree is checked against certified values.
CURVE_CHECKS = 5


def _composed_enclosures(f: TradeOff, x: np.ndarray):
    """(lo, hi) of f at every level from one composed grid (``mp_curve``), the levels it leaves
    wider than :data:`CURVE_WIDTH` re-evaluated one by one (``evaluate`` has more routes:
    Eq. (12), factor bounds, negligible factors) and intersected; None without a grid."""
    enc = mp_curve(f, x)
    if enc is None:
        return None
    lo, hi = (np.array(e, dtype=np.float64).reshape(x.shape) for e in enc)
    for i in np.flatnonzero((hi - lo).ravel() > CURVE_WIDTH)[:CURVE_REFINE]:
        v = evaluate(f, float(x.flat[i]), dps=CURVE_DPS)
        lo.flat[i] = max(lo.flat[i], float(v.lo))
        hi.flat[i] = min(hi.flat[i], float(v.hi))
    return lo, hi


def _float_path_agrees(f: TradeOff, x: np.ndarray, y: np.ndarray) -> bool:
    """Spot check of an operator tree's float64 path: at the smallest and largest level and a
    few between, the certified value must hold the float value within 1e-9 (absolute) or
    1e-6 (relative). Catches the systematic failures of float64 composition (cancellation in
    1 - f near 1, underflowed tails); it is a check, not a guarantee (``bounds=True`` is)."""
    flat_x, flat_y = x.ravel(), y.ravel()
    order = np.argsort(flat_x, kind="stable")
    picks = np.unique(order[np.linspace(0, len(order) - 1, CURVE_CHECKS).astype(int)])
    for i in picks:
        v = evaluate(f, float(flat_x[i]), dps=CURVE_DPS)
        slack = 1e-9 + 1e-6 * abs(float(v.mid))
        if not float(v.lo) - slack <= flat_y[i] <= float(v.hi) + slack:
            return False
    return True


def _warn_wide(f: TradeOff, lo: np.ndarray, hi: np.ndarray) -> None:
    wide = int(((hi - lo) > CURVE_WIDTH).sum())
    if wide:
        warnings.warn(f"curve of {short(f)}: {wide} of {lo.size} points are enclosed less "
                      f"tightly than {CURVE_WIDTH} (midpoints returned; bounds=True gives the "
                      "enclosures)", ToleranceWarning, stacklevel=3)


def _warn_above_tol(f: TradeOff, x: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    tol: float) -> None:
    """A ToleranceWarning where the bounds of f are wider than ``tol`` or those of the power
    1 - f wider than ``tol`` relative to its upper end (levels alpha > 0). Levels whose bounds
    of f are adjacent float64 numbers (or equal) are as narrow as a float f can be: there the
    power lies below f's resolution (about 1e-16) and the message says so, and that
    :func:`~tradeoff_algebra.roc` gives it certified."""
    rel = (hi - lo) / np.maximum(1 - lo, 1e-300)
    wide = (x > 0) & ((hi - lo > tol) | (rel > tol))
    floor = wide & (hi <= np.nextafter(lo, np.inf))
    n_wide, n_floor = int(wide.sum()), int(floor.sum())
    if n_wide > n_floor:
        warnings.warn(f"curve of {short(f)}, bounds=True: {n_wide - n_floor} of {x.size} levels "
                      f"are wider than tol = {tol:.3g} (f, or the power 1 - f relative to its "
                      "upper end)", ToleranceWarning, stacklevel=4)
    if n_floor:
        warnings.warn(f"curve of {short(f)}, bounds=True: at {n_floor} of {x.size} levels "
                      f"(alpha up to {float(np.max(x[floor])):.3g}) the power 1 - f lies below "
                      "float64's resolution of f: f's bounds are adjacent floats, and the power "
                      f"is not carried to tol = {tol:.3g} relative; ta.roc(f, alpha) gives it "
                      "certified", ToleranceWarning, stacklevel=4)


def _certified_midpoints(f: TradeOff, x: np.ndarray, progress: bool | None = None
                         ) -> np.ndarray:
    lo, mid, hi = _curve_points(f, x, progress=progress)
    _warn_wide(f, lo, hi)
    return mid


def curve(f: TradeOff, alphas: Any, bounds: bool = False, progress: bool | None = None):
    """f at each alpha in float64.

    The family's vectorised float64 path where it has one (no SymPy in the loop). Products
    and hulls of products: the midpoints of certified enclosures from one composed
    privacy-loss grid for all levels at once (``mp_curve``), accurate to the engine's
    tolerance; points wider than :data:`CURVE_WIDTH` re-evaluated singly, and a
    :class:`ToleranceWarning` when some stay wider. Other operator trees: their float64 path,
    spot-checked at :data:`CURVE_CHECKS` levels against certified values and replaced by
    certified evaluations at ``CURVE_DPS`` digits, one per level, when the check fails or there
    is no float path.
    ``bounds=True`` returns the arrays ``(lo, hi)`` of enclosures rounded outward to float64:
    certified where the Value of the level is (closed forms through Arb, exact finite laws);
    an :class:`EstimateWarning` counts the levels whose bounds are estimates.
    ``progress``: True shows a bar of the levels evaluated one by one (and of the PLD
    engine's compositions) at once, None after a few seconds on a terminal, False never
    (``numeric.progress``).
    """
    prepare_call(f, 15)
    bounds = flag("bounds", bounds, "curve")
    progress = check_progress(progress, "curve")
    x = _curve_levels(alphas)
    # one deadline for the whole call: the grid and every certified point inside share it
    with budget.call(lambda: f"curve({short(f)}, {x.size} levels)"):
        if progress:
            from .options import pld_options

            with pld_options(progress=True):
                return _curve(f, x, bounds, progress)
        return _curve(f, x, bounds, progress)


def _held_band(f: TradeOff, x: np.ndarray) -> tuple | None:
    """Where no route gives a certified band at the tolerance asked, the certified bands this
    process already holds at a looser tolerance (``numeric.tol_nest.looser``, every level),
    with a ToleranceWarning: a certified band of a looser tolerance, not the PLD grid's
    estimates at this one (a tighter tolerance never gives a wider or a less certain band;
    a band cut by the time left at a tight tolerance is what this catches). None where some
    level has no such band."""
    from .options import options

    tol = max(float(options()["tol"]), BAND_TOL_MIN)
    kf, _ = _band_keys(f, x.ravel())
    got = [looser(k, tol) for k in kf]
    if any(g is None for g in got):
        return None
    lo = np.array([_float_down(g[0]) if type(g[0]) is not float else g[0] for g in got])
    hi = np.array([_float_up(g[1]) if type(g[1]) is not float else g[1] for g in got])
    width = float(np.max(hi - lo, initial=0.0))
    warnings.warn(f"curve of {short(f)}, bounds=True: no route gave a certified band at tol = "
                  f"{tol:.3g} (one may have run out of time); the certified bands this process "
                  f"holds at a looser tolerance are returned (widest level {width:.3g})",
                  ToleranceWarning, stacklevel=4)
    return lo.reshape(x.shape).clip(0.0, 1.0), hi.reshape(x.shape).clip(0.0, 1.0)


def _curve(f: TradeOff, x: np.ndarray, bounds: bool, progress: bool | None = None):
    b = curve_band(f, x, progress=progress) if x.size else None
    if b is not None:  # certified bands (Arb), rounded outward
        lo, hi = b.f_lo.reshape(x.shape), b.f_hi.reshape(x.shape)
        if bounds:
            return lo, hi
        _warn_wide(f, lo, hi)
        return np.clip((lo + hi) / 2, 0.0, 1.0)
    if bounds and x.size:
        held = _held_band(f, x)
        if held is not None:
            return held
    enc = _composed_enclosures(f, x)
    if bounds:
        if enc is not None:  # the PLD grid: bounds under its float64 error model
            lo, hi = enc
            lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
            estimates = x.size
        else:
            est: list = []
            from .options import options

            tol = float(options()["tol"])
            lo, _, hi = _curve_points(f, x, est, progress, tol)
            lo, hi = lo.clip(0.0, 1.0), hi.clip(0.0, 1.0)
            estimates = len(est)
            _warn_above_tol(f, x, lo, hi, tol)
        if estimates:
            warnings.warn(f"curve of {short(f)}, bounds=True: {estimates} of {x.size} points are "
                          "estimates (a route without a certified error bound: the PLD grid's "
                          "float64 error model, or mpmath), not certified enclosures",
                          EstimateWarning, stacklevel=3)
        return lo.clip(0.0, 1.0), hi.clip(0.0, 1.0)
    if enc is not None:
        _warn_wide(f, *enc)
        y = (enc[0] + enc[1]) / 2
    else:
        try:
            y = np.asarray(np_value(f, x), dtype=np.float64)
            if (y.size and any(isinstance(a, TradeOff) for a in f.args)
                    and not _float_path_agrees(f, x, y)):
                y = _certified_midpoints(f, x, progress)
        except NoClosedForm:
            y = _certified_midpoints(f, x, progress)
        except (ValueError, OverflowError, TypeError, ZeroDivisionError,
                FloatingPointError) as exc:
            raise NumericalError(f"curve of {f} failed in float64 ({type(exc).__name__}: "
                                 f"{str(exc)[:80]}); use ta.evaluate for these points") from exc
    if y.size and np.isnan(y.min()):
        raise NumericalError(f"curve of {f} produced NaN")
    return np.clip(y, 0.0, 1.0, out=y if y.flags.writeable and y.dtype == np.float64 else None)


NUMERIC["curve"] = curve
