"""eps(delta) by the certified Laplace inversion (:mod:`.cf`): the exactly summed part alone
by bisection, else a float estimate (the saddle point, or the exact part's bisection plus the
remainder's saddle-point estimate), Newton steps in log(delta) on the inverter's midpoint, then
a certified bracket: two eps whose delta balls lie on either side of the level (proved by the
balls themselves, so the estimates only guide). Re-planned at most a few times where the
bracket is wider than asked."""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import budget
from .cf import (
    _certified_inverter,
    _exact_prec,
    _first_plan,
    _Inverter,
    _log_delta_saddle,
    _saddle,
    _saddle_epsilon,
)
from .cf_laws import Factor, upper, working_precision
from .roots import Probe, expand_bracket, findroot

__all__ = ["epsilon_enclosure"]


def _newton(inv: _Inverter, eps: float, delta: float, rel_tol: float,
            guarded: bool = False) -> float:
    """Solve mid(delta(eps)) = delta by Newton steps in log(delta) (floats). ``guarded`` (a flat
    view's locating grid): the points where mid(delta) is above or below the level bound the
    root, and where a step cannot be taken (a slope that is not positive or finite: a sum near
    0, far from the planning point) or lands outside [0, oo), that bracket is bisected instead
    (the saddle-point guess of eps is far off for a few DP-SGD steps: 0.40 for 0.07, where plain
    steps ran to NaN); unguarded, such a step fails (ZeroDivisionError) or wanders, and the
    route tries its next path (the cut laws)."""
    if not guarded:
        for _ in range(50):
            budget.check()
            mid = float(inv.parts(eps).delta.mid())
            if not mid > 0:
                eps -= 1.0 / inv.plan.c  # delta underflowed the certified sum: step back
                continue
            step = (math.log(mid) - math.log(delta)) / inv.log_slope(eps)
            eps += step
            if abs(step) <= 1e-3 * rel_tol * abs(eps):
                break
        return eps
    lo, hi = 0.0, math.inf
    for _ in range(50):
        budget.check()
        mid = float(inv.parts(eps).delta.mid())
        if mid > delta:
            lo = max(lo, eps)
        else:
            hi = min(hi, eps)
        if not mid > 0:
            eps -= 1.0 / inv.plan.c  # delta underflowed the certified sum: step back
            if not eps > lo:
                eps = 0.5 * (lo + hi)
            continue
        try:
            slope = inv.log_slope(eps)
        except ZeroDivisionError:
            slope = math.nan
        nxt = eps + (math.log(mid) - math.log(delta)) / slope if slope > 0 else math.nan
        if not (math.isfinite(nxt) and nxt >= 0.0):
            nxt = 0.5 * (lo + hi) if hi < math.inf else 2 * eps + 1.0 / inv.plan.c
        step, eps = nxt - eps, nxt
        if abs(step) <= 1e-3 * rel_tol * abs(eps):
            break
    return eps


def _bracket(inv: _Inverter, eps: float, d_dn: float, d_up: float) -> tuple[float, float] | None:
    """Floats lo < hi around eps with delta(lo) > d_up and delta(hi) < d_dn, both certified."""
    parts = inv.parts(eps)
    slope = inv.log_slope(eps) * float(parts.delta.mid())
    if not slope > 0:
        return None
    w = 2.5 * upper(parts.delta.rad()) / slope + 4 * math.ulp(eps)

    def side(x: float) -> Probe:  # +1: delta(x) > d_up certified (or x = 0); -1: < d_dn
        if x == 0.0:
            return Probe(1)
        d = inv.parts(x).delta
        return Probe(1 if d > d_up else -1 if d < d_dn else None)

    # the half-width w 2^j: the lower end eps - w 2^j first (never below 0), then the upper end
    # eps + w 2^k from the width that certified the lower
    half = [w]

    def trial(L, H, last, i):
        if L is None:
            half[0] = w * 2.0**i
            return max(eps - half[0], 0.0)
        if last >= eps:  # an upper trial that did not certify: wider
            half[0] *= 2
        return eps + half[0]

    found = expand_bracket(side, trial, max_iter=60, fail=lambda L, H: None)
    return None if found is None else (found.lo, found.hi)


_GUESSES: dict = {}


def _guess_epsilon(factors: Sequence[Factor], extra, delta: float) -> float:
    """Float estimate of eps(delta) for the exact part plus the remainder's saddle-point
    estimate, by bisection on [0, k mu] (kept: the route asks it several times)."""
    key = (tuple(factors), extra.law, extra.k, extra.J, delta)
    if key not in _GUESSES:
        if len(_GUESSES) > 64:
            _GUESSES.clear()
        _GUESSES[key] = _guess_uncached(factors, extra, delta)
    return _GUESSES[key]


def _guess_uncached(factors: Sequence[Factor], extra, delta: float) -> float:

    def est(eps: float) -> float:
        with working_precision(64):
            v = float(extra.terms(eps, derivative=False)[0].mid())
        if factors:
            try:
                v += math.exp(_log_delta_saddle(factors, _saddle(factors, eps), eps))
            except (ValueError, ArithmeticError, OverflowError):
                pass
        return v

    lo, hi = 0.0, extra.k * float(extra.law.mu)
    sup = getattr(extra.law, "loss_sup", None)  # (a tighter end: delta is 0 beyond k sup L)
    if sup is not None:
        with working_precision(64):
            top = sup()
        if top is not None and top.is_finite():
            hi = min(hi, upper(extra.k * top))
    if est(lo) <= delta:
        return 0.0
    # (a starting point: Newton steps on the certified sum follow); delta(hi) = 0 < delta
    r = findroot(lambda e: Probe(1 if est(e) > delta else -1), (lo, hi), method="bisect",
                 ends=(1, -1), rtol=1e-7)
    return 0.5 * (r.lo + r.hi)


def _exact_epsilon(extra, d_dn: float, d_up: float, rel_tol: float) -> tuple[float, float]:
    """eps(d) for a product summed exactly (no remainder): bisection with certified sides,
    delta(lo) > d_up and delta(hi) < d_dn (delta non-increasing)."""
    lo, hi = 0.0, extra.k * float(extra.law.mu)  # delta(k mu) = 0 < d

    def sign(eps: float) -> Probe:  # d within the ball of the level: undecided, stop there
        d = extra.terms(eps, derivative=False)[0]
        return Probe(1 if d > d_up else -1 if d < d_dn else None)

    with working_precision(_exact_prec(extra, rel_tol)):
        if not extra.terms(lo, derivative=False)[0] > d_up:
            raise ValueError("eps(delta) is not positive")
        r = findroot(sign, (lo, hi), method="bisect", ends=(1, -1), rtol=rel_tol,
                     best=lambda a, b: (a, b))
    return r.lo, r.hi


#: The relative width of delta at which a flat law's first grid is planned (it locates eps,
#: whose saddle-point guess is far off: DP-SGD, sigma = 1.1, T = 3, 0.40 for 0.07; at the
#: width asked it took 12 916 nodes, here about 1000).
LOCATE_REL = 1e-3


#: A flat law's first grid is planned at the width asked where that plan has at most this many
#: times the nodes of the plan at :data:`LOCATE_REL` (:func:`_one_grid_width`).
ONE_GRID_FACTOR = 1.5


def _one_grid_width(factors: Sequence[Factor], eps: float, loose: float, tight: float) -> float:
    """The width of a flat law's first grid: ``tight`` (the width asked of delta) where its plan
    at the guess has at most :data:`ONE_GRID_FACTOR` times the nodes of the plan at ``loose``
    (:data:`LOCATE_REL`), else ``loose``. The nodes grow slowly with the digits (the t cut-off
    as the square root of log(1/width), the step as its inverse), so the tight grid costs
    little more and, the guess being near, usually answers alone: DP-SGD, sigma = 4, q =
    256/60000, T = 10, eps(1e-5) at the default tolerance, 54 nodes at 1e-3 and 78 at the
    2.5e-5 asked, where the locating grid and a second grid at the level took 54 + 78. Where
    the guess is far off (sigma = 1.1, T = 3: 0.40 for 0.07, 12 916 nodes at the width asked
    against about 1000) the tight plan is declined at its cap, after one trial."""
    try:
        base = _first_plan(factors, eps, loose)
        _first_plan(factors, eps, tight, ONE_GRID_FACTOR * base.n_nodes)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, ArithmeticError, OverflowError):
        return loose
    return tight


#: The share of the eps width asked that a seeded search's delta width takes
#: (:func:`seeded_width`; the unseeded search's 0.4 with its slope c). At 0.5 the bracket of
#: DP-SGD, sigma = 1.1, T = 3 at the route's 1.25e-4 is about 9e-5 wide: the margin against a
#: second grid, where the nodes grow only as the inverse square root of the width.
SEED_SHARE = 0.5


def seeded_width(rel_tol: float, eps: float, slope: float) -> float:
    """The relative width of delta a search seeded at ``eps`` with the slope ``slope`` of
    -log delta there plans (:func:`epsilon_enclosure`): an eps bracket is about 2.5 delta
    radii over slope delta wide, so SEED_SHARE rel_tol eps slope of delta gives rel_tol eps.
    The saddle-point search takes the slope to be c, which for a few DP-SGD steps is 4 to 5
    times too small (sigma = 1.1, T = 3: 7.6 for 51): its grids were planned that much finer."""
    return SEED_SHARE * rel_tol * max(eps * slope, 1e-3)


def epsilon_enclosure(
    factors: Sequence[Factor], delta: float, rel_tol: float = 1e-10, delta_up: float | None = None,
    extra=None, guess: float | None = None, slope: float | None = None,
) -> tuple[float, float]:
    """Certified bounds lo <= eps(d) <= hi, eps(d) = inf{eps >= 0: delta(eps) <= d}, for every
    d in [delta, delta_up] (a float bracket of an exact d; default delta_up = delta).
    ``guess``: the caller's saddle-point guess of eps(delta) where it has one (a search aid
    only: the bounds are certified whatever it is); ``slope``: with a guess from the law's own
    estimate (``cf_saddle._seed_epsilon``), its -d log delta / d eps: the first grid is then
    planned at the level itself and at :func:`seeded_width`, without a locating grid.

    A float saddle-point estimate and Newton steps on the certified sum locate
    eps; it is then certified by delta(lo) > delta_up and delta(hi) < delta, which
    suffices because delta(eps) is nonincreasing.  The delta tolerance is
    rel_tol * eps * |d log delta / d eps| (about rel_tol * eps * c), tightened
    if the bracket comes out too wide.
    """
    if extra is not None and not factors:
        return _exact_epsilon(extra, delta, delta if delta_up is None else delta_up, rel_tol)
    eps = guess if guess is not None else _saddle_epsilon(factors, delta) if extra is None \
        else _guess_epsilon(factors, extra, delta)
    if eps <= 0:
        raise ValueError("eps(delta) is not positive")
    seeded = slope is not None and guess is not None
    rel_delta = seeded_width(rel_tol, eps, slope) if seeded else \
        0.4 * rel_tol * max(eps * _saddle(factors, eps), 1e-3)
    best: tuple[float, float] | None = None
    inv: _Inverter | None = None
    scan = any(getattr(law, "scan_contour", False) for law, _ in factors)
    locate = scan and extra is None and all(getattr(law, "mgf_cost_flat", False)
                                            for law, _ in factors)
    for attempt in range(4):
        kept = False
        # (a scan_contour law's grids after the first are planned at the level itself, the
        # first having located eps)
        hint = math.log(delta) if locate and (attempt > 0 or seeded) and delta > 0 else None
        # (a law whose nodes cost the same at every t, ``mgf_cost_flat``, plans its locating
        # grid at LOCATE_REL: the saddle-point guess is far off, the grid only finds eps; a
        # seeded search plans at the level and its width at once)
        rel = max(rel_delta, LOCATE_REL) if locate and attempt == 0 and not seeded \
            else rel_delta
        if locate and attempt == 0 and rel > rel_delta:
            rel = _one_grid_width(factors, eps, rel, rel_delta)
        try:  # (a scan_contour law's first grid locates eps: not re-planned at the guess)
            inv, _ = _certified_inverter(factors, eps, rel, extra,
                                         0 if scan and attempt == 0 else 3, hint,
                                         None if inv is None else inv.plan.c)
        except ValueError:  # (no saddle point where Newton moved: the last grid, if any)
            if inv is None:
                raise
            kept = True
        plan_eps = eps
        eps = _newton(inv, eps, delta, rel_tol, locate)
        far = abs(eps - plan_eps) * inv.plan.c > 1.0 and attempt < 3 and not kept
        if far and locate:  # (the delta tolerance at the eps found, with the grid's slope of
            try:  # log delta there: DP-SGD, sigma = 1.1, T = 3, 34 where c = 7.5)
                slope = inv.log_slope(eps)
            except ZeroDivisionError:
                slope = math.nan
            slope = slope if math.isfinite(slope) and slope > inv.plan.c else inv.plan.c
            rel_delta = 0.4 * rel_tol * max(eps * slope, 1e-3)
        if far and not scan:
            continue  # moved far from the planning point: plan again there
        # (a law with scan_contour, whose saddle-point estimate of eps is far off, DP-SGD's
        # 0.45 for 0.22: the bracket on this grid first, certified wherever it was planned;
        # planned again only when it is too wide)
        found = _bracket(inv, eps, delta, delta if delta_up is None else delta_up)
        if found is None:
            continue
        if best is None or found[1] - found[0] < best[1] - best[0]:
            best = found
        lo, hi = best
        if hi - lo <= rel_tol * hi:
            break
        if far:
            continue
        rel_delta *= 0.5 * rel_tol * hi / (hi - lo)
    if best is None:
        raise RuntimeError("could not certify a bracket for eps(delta)")
    return best
