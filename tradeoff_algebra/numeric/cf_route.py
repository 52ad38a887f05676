"""The policy of the certified Laplace inversion (:mod:`.cf`) for the product routes: whether a
product is affordable (:data:`MAX_WORK`), at which width it is computed (:data:`REL_FLOOR`,
:data:`REL_MIN`), the lattice split of a Laplace power (:mod:`.cf_lattice`), Chernoff bounds for
products left out, and the maximum over the products of a symmetric hull
(:func:`route_enclosure`, called by ``routes.engines``). A product that is one law's power whose
law gives that power's profile itself (the optional law method ``few_step_delta``: one and two
Poisson-subsampled Gaussian steps, whose characteristic function decays too slowly to invert)
is answered from it before any plan (:func:`_profile_enclosure`, route name :data:`PROFILE`).
One power of a law with ``scan_contour`` (a few to a few hundred subsampled Gaussian steps,
whose planner places the contour below the saddle point: ``numeric/cf.py``) is allowed the
larger work :data:`FEW_STEP_WORK` where the PLD engine, its alternative, is slower.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Sequence

from flint import arb

from ..core import trace
from ..core.errors import ToleranceWarning
from . import budget
from .cf import (
    TIGHT_REL,
    _all_losses_at_most,
    _first_plan,
    _flat_cost,
    _log_delta_saddle,
    _saddle,
    _saddle_epsilon,
    delta_enclosure,
    plan_tolerance,
)
from .cf_atom_sum import split_factors, sum_enclosure
from .cf_atoms import has_decay, mass_at_infinity, with_infinity
from .cf_bounds import (
    DELTA_FLOOR,
    below_floor,
    chernoff_any,
    epsilon_c,
    near_one_delta,
    tiny_delta,
)
from .cf_epsilon import _guess_epsilon, epsilon_enclosure
from .cf_flat import flat_enclosure, flat_factors
from .cf_lattice import ExactPart, RemainderLaw, split_terms
from .cf_laws import Factor, lower, upper, working_precision
from .cf_mixed_split import FLOOR_REL, cells_floor, mixed_enclosure
from .cf_profile import PROFILE, _profile_enclosure, answers_from_profile
from .lattice_cells import CELLS_ROUTE
from .tol_nest import anchor_chain, looser, nest

__all__ = ["route_enclosure", "PROFILE", "answers_from_profile", "MAX_WORK", "REL_FLOOR",
           "REL_MIN", "MAX_SPLIT", "DELTA_FLOOR"]


#: Planned work (t-nodes times the t cut-off; about 25 microseconds each) above which
#: :func:`route_enclosure` declines and leaves the question to the PLD engine: few factors with
#: a slowly decaying characteristic function (T = 16 subsampled steps need 6e5, 27 s).
MAX_WORK = 20_000.0


#: The planned work allowed for one power of a law with ``scan_contour`` (few Poisson-subsampled
#: Gaussian steps, T = 10 .. 900), whose alternative is the PLD engine: at relative widths below
#: :data:`TIGHT_REL` it takes 8 to 12 s or more (and gives an estimate; sigma = 0.8, T = 30 ran
#: past 120 s), so the inversion is allowed up to about 8 s (DP-SGD, q = 256/60000, eps(1e-5) at
#: 1e-9, 2 loaded cores: sigma = 1.1, T = 30 4.2 s; sigma = 0.8, T = 30 8.4 s; one unit 2 to
#: 11 us, the smaller mu the cheaper); above, where the PLD engine takes 0.4 to 0.7 s, 4e4 units.
FEW_STEP_WORK = 800_000.0
FEW_STEP_WORK_LOOSE = 40_000.0
# (TIGHT_REL, numeric/cf.py: the relative width below which FEW_STEP_WORK applies)
#: Seconds per unit of planned work of the subsampled Gaussian's inversion (measured 9 to 11 us
#: on 2 loaded cores; a lower estimate): a plan whose estimate exceeds the time left is declined
#: at once (:func:`_affordable_work`).
WORK_SECONDS = 5e-6


def _cap(factors: Sequence[Factor], rel: float) -> float:
    """The work allowed for ``factors`` at relative width ``rel``: :data:`MAX_WORK`, or for one
    power of a law with ``scan_contour`` :data:`FEW_STEP_WORK` (tight widths) or
    :data:`FEW_STEP_WORK_LOOSE`, or the law's own ``work_caps`` (tight, loose) where it has them
    (a flat view, ``numeric/cf_flat.py``: its work is nodes)."""
    if len(factors) == 1 and getattr(factors[0][0], "scan_contour", False):
        caps = getattr(factors[0][0], "work_caps", None)  # (a flat view: its own, in nodes)
        if caps is not None:
            return caps[0] if rel < TIGHT_REL else caps[1]
        return max(MAX_WORK, FEW_STEP_WORK if rel < TIGHT_REL else FEW_STEP_WORK_LOOSE)
    return MAX_WORK


def _affordable_work(factors: Sequence[Factor], eps: float, rel: float, cap_rel: float) -> bool:
    """Is the plan at ``rel`` within the cap of :func:`_cap` (at the asked width ``cap_rel``)
    and, above :data:`MAX_WORK`, within the time left (:data:`WORK_SECONDS` a unit)?"""
    cap = _cap(factors, cap_rel)
    work = _work(factors, eps, rel, cap)
    unit = max(getattr(law, "node_seconds", WORK_SECONDS) for law, _ in factors)
    if unit != WORK_SECONDS:  # (a flat view: its work is nodes, each ~0.2 ms; always timed)
        return work <= cap and work * unit <= budget.remaining()
    return work <= cap and (work <= MAX_WORK or work * unit <= budget.remaining())


def _work(factors: Sequence[Factor], eps: float, rel_tol: float,
          cap: float = MAX_WORK) -> float:
    try:
        plan = _first_plan(factors, eps, rel_tol, cap)
    except ValueError:  # (beyond the cap: planning stops there)
        return math.inf
    if _flat_cost(factors):  # (a closed form whose cost grows with |t| says by how much)
        rate = max(getattr(law, "mgf_cost_per_t", 0.0) for law, _ in factors)
        return plan.n_nodes * max(1.0, plan.n_nodes * plan.h * rate)
    return plan.n_nodes * max(1.0, plan.n_nodes * plan.h)


def route_enclosure(
    sets: Sequence[Sequence[tuple]], kind: str, dn: float, up: float, tol: float
) -> tuple[float, float] | None:
    """``max_i`` of delta(eps) (``kind`` "delta", eps in the float bracket [dn, up]) or of
    eps(delta) ("epsilon", delta in [dn, up]) over the products ``sets`` (each a list of
    (law, n): the Arb views of the factors' privacy losses), to relative width ``tol``; None
    when a product is beyond :data:`MAX_WORK` or outside what the inversion certifies here
    (eps(delta) = 0) and its Chernoff bound (:func:`~.cf_bounds.chernoff`) does not show it
    below the others' maximum (the two directions of a symmetric hull are usually far apart).
    Each product's enclosure is placed in its tolerance chain (``numeric.tol_nest``): nested
    with its enclosures at every other ``tol`` of this process; the maximum over the products
    of nested enclosures is nested."""
    rel = tol / 4
    done, left, tiny = [], [], []
    with working_precision(64):  # one lock for the whole call (the laws' caches)
        for specs in sets:
            factors = [(law, int(n)) for law, n in specs]
            b = tiny_delta(factors, dn) if kind == "delta" else None
            if b is not None:  # (far below every float: not inverted, [0, b])
                tiny.append(b)
                continue
            if kind == "epsilon" and done and _eps_below(factors, dn, max(x[0] for x in done)):
                continue  # (its eps is certainly at most another's lower end: not the maximum)
            # 1 - delta below a float's resolution near 1: [1 - b, 1] without inverting
            r = near_one_delta(factors, up, min(rel, 2.0**-53)) if kind == "delta" else None
            if r is not None:
                done.append(r)
                continue
            try:
                r = _profile_enclosure(factors, kind, dn, up, max(min(rel, REL_FLOOR), REL_MIN))
                if r is None:
                    r = _one_enclosure(factors, kind, dn, up, rel)
                else:
                    trace.note(PROFILE)
            except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
                raise
            except (ValueError, RuntimeError, ArithmeticError):
                r = None
            if r is None and kind == "delta":  # (the inversion declined: [1 - b, 1] if b <= rel)
                r = near_one_delta(factors, up, rel)
            if r is not None:  # (the tolerance chain of this product's answer: tol_nest)
                r = nest(("route", kind, tuple(factors), float(dn), float(up)), rel, *r)
            (left if r is None else done).append(factors if r is None else r)
        if not done:
            return below_floor(left, kind, dn, tiny)
        lo, hi = max(x[0] for x in done), max(x[1] for x in done)
        floors = list(tiny)  # (Chernoff bounds below DELTA_FLOOR taken as [0, b])
        for factors in left:  # each certainly below the maximum's lower end, or negligible
            if not mass_at_infinity(factors).is_zero():
                return None  # (its Chernoff bound would miss the mass at +oo)
            if kind == "epsilon" and _all_losses_at_most(factors, lo):
                continue  # (its delta is 0 from its largest loss on: its eps is at most that)
            try:
                b = chernoff_any(factors, kind, dn, lo if kind == "epsilon" else dn)
            except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
                raise
            except (ValueError, RuntimeError, ArithmeticError):
                return None
            if b <= lo:
                continue
            if kind == "delta" and b <= DELTA_FLOOR:
                floors.append(b)
                continue
            return None
    warned = False
    for b in floors:  # (a floor at most the maximum's upper end changes nothing)
        if b > hi:
            hi, warned = b, True
            warnings.warn(f"a delta below {b:.3g} (a Chernoff bound) is taken as [0, {b:.3g}]",
                          ToleranceWarning, stacklevel=3)
    if hi > lo and (hi - lo) > tol * hi and not warned:
        sub = " (a subnormal float: fewer digits)" if hi < sys.float_info.min else ""
        warnings.warn(f"the Laplace inversion stopped at relative width {(hi - lo) / hi:.2g}"
                      f"{sub}, above the requested {tol:g}; the result is a guaranteed enclosure",
                      ToleranceWarning, stacklevel=3)
    return lo, hi


def _eps_below(factors: Sequence[Factor], d: float, lo: float) -> bool:
    """Is eps(d) of this product certainly at most ``lo`` (another product's lower end of eps,
    so that it does not change the maximum)? By its largest loss (delta = 0 from there on) or
    its Chernoff bound (:func:`~.cf_bounds.chernoff_any`, at the c that minimises it in floats,
    :func:`~.cf_bounds.epsilon_c`, where the laws have ``log_mgf_many``; one evaluation of M
    at a real argument, at 53 bits and, only where ``lo`` lies inside that bound's ball, again
    at 128 bits: both balls hold the bound's exact value at that c, so a 53-bit ball above ``lo``
    means a 128-bit one ends above it too; True only from a ball's upper end at most ``lo``, a
    proof at any precision); False with a mass at +oo or where the bound fails. The two
    directions of DP-SGD: the add direction's eps(1e-5) lies well below the remove direction's
    and is not inverted."""
    if not mass_at_infinity(factors).is_zero():
        return False
    if _all_losses_at_most(factors, lo):
        return True
    try:
        c = epsilon_c(factors, d)  # (the bound's own minimiser, else the saddle point at lo)
        b_lo, b_hi = chernoff_any(factors, "epsilon", d, lo, c, prec=53, ends=True)
        if b_hi <= lo or b_lo > lo:  # (decided at 53 bits: Arb at low precision is a proof)
            return b_hi <= lo
        return chernoff_any(factors, "epsilon", d, lo, c) <= lo  # (undecided: at 128 bits)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError, OverflowError):
        return False


#: The inversion's cost grows with log(1/width) only: where the tighter plan stays within
#: :data:`MAX_WORK`, it computes to this relative width at least, whatever looser tolerance was
#: asked (so every tolerance above 4e-10 gives one and the same enclosure: a tighter tolerance
#: never a wider one, and searches that call delta(eps) many times keep its digits).
REL_FLOOR = 1e-10
#: The tightest relative width the inversion aims at (its floats: eps is bracketed by floats,
#: the plans by float cumulants); a tighter tolerance returns this enclosure with a
#: ToleranceWarning (:func:`route_enclosure`).
REL_MIN = 1e-14


def _at(factors: Sequence[Factor], kind: str, x: float, extra=None) -> float:
    """The eps at which a plan is made: x itself, or the estimate of eps(x)."""
    if kind == "delta":
        return x
    return _saddle_epsilon(factors, x) if extra is None else _guess_epsilon(factors, extra, x)


def _rel_target(factors: Sequence[Factor], kind: str, x: float, rel: float, extra=None) -> float:
    """``min(rel, REL_FLOOR)`` where that plan is affordable, else ``rel``."""
    if rel <= REL_FLOOR:
        return rel
    if not factors:  # an exact sum: its cost grows with the digits only
        return REL_FLOOR
    try:
        at = _at(factors, kind, x, extra)
        if at > 0 and _affordable_work(factors, at, REL_FLOOR, rel):
            return REL_FLOOR
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    return rel


#: The largest k for the lattice split (its exact part sums about 12 k terms; beyond, the
#: atoms' share e^{-k p_u} of |M(c + it)| is far below any tolerance and the whole law inverts).
MAX_SPLIT = 20_000


def _split(factors: Sequence[Factor], kind: str, x: float, rel: float):
    """``(factors, None)``, or for the self-product of one lattice law (``lattice_parts``, the
    Laplace mechanism's) whose whole inversion is beyond :data:`MAX_WORK` (its atoms keep
    |M(c + it)| from decaying): ``(remainder, exact part)`` of :mod:`.cf_lattice`."""
    if len(factors) != 1 or not hasattr(factors[0][0], "lattice_parts"):
        return factors, None
    law, k = factors[0]
    if k > MAX_SPLIT:
        return factors, None
    try:
        at = _at(factors, kind, x)
        if at > 0 and _work(factors, at, rel) <= MAX_WORK:
            return factors, None
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    for J in split_terms(k):
        extra = ExactPart(law, k, J)
        if J > k:
            return [], extra
        rest = [(RemainderLaw(law, k, J), 1)]
        try:
            at = _at(rest, kind, x, extra)
            if at > 0 and _work(rest, at, rel) <= MAX_WORK:
                return rest, extra
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
            raise
        except (ValueError, RuntimeError, ArithmeticError):
            pass
    return rest, extra


#: The largest k for the split of a law with ``lattice_split`` (the Poisson-subsampled
#: Laplace mechanism's: its exact part sums about 2 k terms); the whole law is tried first, so
#: the split answers only where that does not reach the route's width (q = 1/100, b = 2:
#: T = 64 .. 100).
MAX_SAMPLED_SPLIT = 1000


def _sampled_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                       rel: float) -> tuple[float, float] | None:
    """Few factors of a law with ``lattice_split`` (the Poisson-subsampled Laplace mechanism's,
    whose atoms keep |M(c + it)| from decaying): the whole law inverted at the tightest
    affordable width of :func:`_ladder_target` when that is 1e-4 or better; else the
    certified bounds of :func:`_split_bounds` (k = 1: the exact sum alone), intersected with
    the inversion at a looser affordable width if there is one."""
    law, k = factors[0]
    r = _ladder_target(factors, kind, max(dn, 0.0), rel)
    if r is not None and r <= min(rel, REL_FLOOR):
        return _invert(factors, kind, dn, up, r)
    got = None
    if k <= min(MAX_J3_SPLIT, getattr(law, "poly_split_max", lambda: 3)()):
        # (a tolerance below REL_FLOOR where affordable, else REL_FLOOR:
        if rel < REL_FLOOR:  # never wider when tighter)
            got = _sampled_split(law, k, kind, dn, up, rel, fallback=False)
        if got is None:
            got = _sampled_split(law, k, kind, dn, up, REL_FLOOR)
    if got is not None:
        return got
    rest, extra = law.lattice_split(k)
    if r is not None and r <= 1e-4:
        return _invert(factors, kind, dn, up, r)
    if k < extra.J:  # every term summed exactly
        if kind == "delta":
            return delta_enclosure([], up, rel, extra)[0], delta_enclosure([], dn, rel, extra)[1]
        return epsilon_enclosure([], dn, max(rel, REL_FLOOR), up, extra)
    out = _split_bounds([(rest, 1)], extra, kind, dn, up)
    if r is not None:
        try:
            inv = _invert(factors, kind, dn, up, r)
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
            raise
        except (ValueError, RuntimeError, ArithmeticError):
            inv = None
        if inv is not None:
            out = inv if out is None else (max(out[0], inv[0]), min(out[1], inv[1]))
    return out


#: The largest k for the split of :func:`_sampled_split` (the law's ``lattice_split(k, None)``,
#: up to its ``poly_split_max()``): the subsampled Laplace law sums the terms with fewer than
#: min(k + 1, 6) density components exactly (``numeric/cf_sampled_poly.py``) and inverts the rest,
#: whose transform decays as t^-6 (q = 1/100, b = 1, eps(1e-5): about 240 nodes at k = 63); the
#: j <= 2 split alone (``numeric/cf_sampled.py``) decays as t^-3 only (k = 4: 272 nodes, k = 6
#: 1266). The whole law is inverted first wherever it reaches the route's width (from about
#: T = 64 on); the split continues past T = 63 where it does not (q = 1/100, b = 1, T = 64 was
#: 6e-9 wide with a ToleranceWarning; b = 2, T = 64 .. 100 up to 1.5e-6).
MAX_J3_SPLIT = 1000


def _sampled_split(law, k: int, kind: str, dn: float, up: float, rel: float,
                   fallback: bool = True):
    """The split with the j <= 2 density components summed exactly (``lattice_split(k, 3)``:
    k <= 2 wholly, with no inversion) and the remainder inverted, when that is affordable at
    ``rel`` of the whole delta (:func:`~.cf.plan_tolerance`); else (``fallback``) the bounds
    with the remainder's Chernoff bound (:func:`_split_bounds`), or None."""
    rest, extra = law.lattice_split(k, None)
    try:
        if k < extra.J:  # every term summed exactly
            if kind == "delta":
                return (delta_enclosure([], up, rel, extra)[0],
                        delta_enclosure([], dn, rel, extra)[1])
            return epsilon_enclosure([], dn, rel, up, extra)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    fac = [(rest, 1)]
    try:
        at = _at(fac, kind, max(dn, 0.0), extra)
        tol = plan_tolerance(fac, at, rel, extra) if at > 0 else rel
        if at > 0 and _work(fac, at, tol) <= MAX_WORK and _within_guard(law, fac, at, tol):
            if kind == "delta":
                lo, hi = delta_enclosure(fac, up, rel, extra)
                return lo, (delta_enclosure(fac, dn, rel, extra)[1] if dn != up else hi)
            return epsilon_enclosure(fac, dn, rel, up, extra)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    # (no saddle point or beyond the work: the remainder's Chernoff bound, narrower than the
    # split with one density component exact; eps near the largest loss, where the remainder
    # is negligible, or a direction of a hull far below the other)
    return _split_bounds(fac, extra, kind, dn, up) if fallback else None


def _within_guard(law, fac, at: float, tol: float) -> bool:
    """Does the plan's t cut-off keep 2F1's guard bits within twice the law's ``max_guard``, by
    the estimate 3 |t| r e^mu (r e^mu = 10 times the law's ``mgf_cost_per_t``; an overestimate:
    at q = 1/100, b = 1, T = 3 it says 4100 where 512 sufficed, and at q = 1/50, b = 2, T = 3
    18 700, where the evaluations took 3.5 s)?"""
    cap = getattr(law, "max_guard", None)
    if cap is None or not getattr(fac[0][0], "uses_law_mgf", True):
        return True
    plan = _first_plan(fac, at, tol, MAX_WORK)
    return 30 * plan.n_nodes * plan.h * law.mgf_cost_per_t <= 2 * cap


def _invert(factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float):
    if kind == "delta":
        lo, hi = delta_enclosure(factors, up, rel)
        if dn != up:
            hi = delta_enclosure(factors, dn, rel)[1]
        return lo, hi
    return epsilon_enclosure(factors, dn, rel, up)


#: The relative widths tried, tightest first, when a product of few lattice-like factors is
#: beyond :data:`MAX_WORK` at the requested width (:func:`_sampled_enclosure`): the tightest
#: affordable one is computed, whatever looser tolerance was asked (ToleranceWarning if
#: looser than asked), so a tighter tolerance never gives a wider enclosure.
SPLIT_LADDER = (1e-8, 1e-6, 1e-4, 1e-2, 3e-2, 1e-1)


def _split_bounds(rest: Sequence[Factor], extra, kind: str, dn: float, up: float):
    """Certified bounds of a split product whose remainder (a positive measure) is beyond the
    inversion's work: delta(eps) = delta-part(eps) + delta_R(eps) with
    0 <= delta_R(eps) <= K e^{-c eps} R(c) (:func:`~.cf_bounds.chernoff`, c the remainder's
    saddle point for eps); eps(d) by bisection on both bounds, each comparison certified (delta is
    non-increasing). Wider than the inversion (a ToleranceWarning says how wide), never
    vacuous."""
    prec = 64 + 40

    def part(eps: float):
        with working_precision(prec):
            return extra.terms(eps, derivative=False)[0]

    def bound_r(eps: float) -> float:  # (0 beyond the remainder's largest loss)
        return 0.0 if _all_losses_at_most(rest, eps) else chernoff_any(rest, "delta", eps, eps)

    if kind == "delta":
        lo = max(0.0, lower(part(up)))
        return lo, min(1.0, math.nextafter(upper(part(dn)) + bound_r(dn), math.inf))
    with working_precision(64):  # every loss is at most k sup L: delta = 0 there
        top = upper(extra.k * extra.law.loss_sup())
    if not part(0.0) > up:
        return None

    def bisect(pred) -> tuple[float, float]:  # pred(a) True, pred(b) False: (a, b)
        a_, b_ = 0.0, top
        for _ in range(200):
            budget.check()
            m = 0.5 * (a_ + b_)
            if m in (a_, b_):
                break
            a_, b_ = (m, b_) if pred(m) else (a_, m)
        return a_, b_

    lo = bisect(lambda e: bool(part(e) > up))[0]  # delta >= part > up at lo: eps(d) > lo
    hi = bisect(lambda e: not (upper(part(e)) + bound_r(e) < dn))[1]
    return lo, hi


def _ladder_target(factors: Sequence[Factor], kind: str, x: float, rel: float):
    """The tightest affordable of ``min(rel, REL_FLOOR)`` and the looser :data:`SPLIT_LADDER`
    widths, or None when none is (see :data:`SPLIT_LADDER`)."""
    first = min(rel, REL_FLOOR)
    try:
        at = _at(factors, kind, x)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    if not at > 0:
        return None
    for r in (first,) + tuple(r for r in SPLIT_LADDER if r > first):
        budget.check()
        try:
            if _work(factors, at, r) <= MAX_WORK:
                return r
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
            raise
        except (ValueError, RuntimeError, ArithmeticError):
            return None
    return None


def _one_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    """The enclosure of one product, or None; where the whole laws are beyond
    :data:`MAX_WORK` or their planning fails, the laws with a cut (:func:`_cut_enclosure`).
    Atoms at +oo (the f_{0,delta} parts, :mod:`.cf_atoms`) are added by Eq. (12); a product of
    atom laws alone (no decay in t) is refused."""
    D = mass_at_infinity(factors)
    if split_factors(factors) is not None:  # atoms with one L_mu: summed (.cf_atom_sum)
        r = with_infinity(lambda k, a, b: sum_enclosure(factors, k, a, b,
                                                        max(min(rel, REL_FLOOR), REL_MIN)),
                          D, kind, dn, up)
        if r is not None:
            return r
    if not has_decay(factors):
        return None
    if not D.is_zero():
        return with_infinity(lambda k, a, b: _finite_enclosure(factors, k, a, b, rel), D, kind,
                             dn, up)
    return _finite_enclosure(factors, kind, dn, up, rel)


def _finite_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    """:func:`_one_enclosure` of the finite part of the loss, placed in the tolerance chain of
    (``kind``, ``factors``, ``dn``, ``up``) (``numeric.tol_nest``: nested with this quantity's
    enclosures at every other width asked in this process), anchored where it is cheap at the
    default tolerance's width by the cells of one power of a law with ``loss_cells``
    (:func:`~.cf_mixed_split.cells_floor`: the inversion at eps = 0 of ten subsampled Laplace
    steps was 0.0055 wide at tol 1e-6 where the cells gave 2.4e-6 at 5e-4). Where the
    inversion declines, the chain's nearest looser enclosure answers (None if there is none)."""
    try:
        r = _plain_enclosure(factors, kind, dn, up, rel)
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        r = None
    if r is None and any(hasattr(law, "cut_for") for law, _ in factors):
        r = _cut_enclosure(factors, kind, dn, up, rel)
    key = ("cf", kind, tuple(factors), float(dn), float(up))
    anchor = None
    if rel < FLOOR_REL and len(factors) == 1 and hasattr(factors[0][0], "loss_cells"):
        anchor = lambda: cells_floor(factors, kind, dn, up, rel)  # noqa: E731
    if r is None:
        anchor_chain(key, rel, anchor, FLOOR_REL)
        got = looser(key, rel)
        if got is None:
            return None
        if anchor is not None:
            trace.note(CELLS_ROUTE)  # (the cells at a looser width answer)
        return nest(key, rel, *got)
    out = nest(key, rel, r[0], r[1], anchor, FLOOR_REL)
    if anchor is not None and out != tuple(r):
        trace.note(CELLS_ROUTE)  # (the chain, anchored by the cells, narrowed it)
    return out


#: The share of the tolerance given to the mass a cut leaves out (:func:`_cut_enclosure`).
CUT_SHARE = 1e-3
#: The planned work allowed with a cut (the products it answers are many factors whose
#: |M(c + it)|^n falls within a few dozen nodes, each at its own x-grid: DP-SGD at
#: delta = 1.1e-18 plans 1.3e5 and takes about 0.5 s).
CUT_WORK = 10 * MAX_WORK


def _cut_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    """The product with each law that has one (``cut_for``) replaced by its cut: the
    sub-probability measure w A with an entire weight 0 < w <= 1 (the Poisson-subsampled
    Gaussian's: ``families/gaussian_sampled.py``), whose moment generating function stays
    that of the bulk where the whole law's is dominated by its far tail (the remove direction
    of DP-SGD at small delta: E[(1 - q + qY)^{c+1}], Y log-normal, at c ~ 1000). With
    eta = sum n_i E_A[1 - w_i] (certified), 1 - prod w_i <= sum (1 - w_i) and
    0 <= (1 - e^{eps - L})_+ <= 1 give delta_cut(eps) <= delta(eps) <= delta_cut(eps) + eta:
    delta gets eta added to its upper end, eps(d) lies in [eps_cut(d), eps_cut(d - eta)]."""
    rel = max(min(rel, REL_FLOOR), REL_MIN)
    n_cut = sum(n for law, n in factors if hasattr(law, "cut_for"))
    level = dn if kind == "epsilon" else None
    c_max, cut = 64.0, list(factors)
    for _ in range(8):
        budget.check()
        lv = level if level is not None else 1e-300
        eta = CUT_SHARE * rel * lv / n_cut
        cut = [(law.cut_for(eta, c_max) if hasattr(law, "cut_for") else law, n)
               for law, n in factors]
        at = _at(cut, kind, max(dn, 0.0))
        if not at > 0:
            return None
        c = _saddle(cut, at)
        if kind == "delta":
            est = math.exp(max(_log_delta_saddle(cut, c, at), -690.0))
            if level is None or not 0.1 * level <= est <= 10 * level:
                level = est
                c_max = max(c_max, 2 * c)
                continue
        if c <= c_max / 1.2:
            break
        c_max = 2 * c
    else:
        return None
    with working_precision(64):
        eta_cert = upper(sum((n * law.tail_mass() for law, n in cut if hasattr(law, "tail_mass")),
                             arb(0)))
    if _work(cut, at, rel, CUT_WORK) > CUT_WORK:
        return None
    if kind == "delta":
        lo, hi = delta_enclosure(cut, up, rel)
        if dn != up:
            hi = delta_enclosure(cut, dn, rel)[1]
        return lo, min(1.0, math.nextafter(hi + eta_cert, math.inf))
    d_lo = math.nextafter(dn - eta_cert, 0.0)
    if not d_lo > 0:
        return None
    return epsilon_enclosure(cut, d_lo, rel, up)


def _seed_levels(factors: Sequence[Factor], dn: float, up: float
                 ) -> tuple[float, float] | None:
    """(log delta(up), log delta(dn)): one power's law's own float estimates (the optional law
    method ``float_log_delta(n, eps)``: the replace-one subsampled Gaussian's float PLD,
    ``families/poisson_replace_seed.py``), or None (no such law, or it declines: a level
    below its least, the far tail). With them delta plans its one grid at the level at the
    width asked, as the seeded eps search does (``cf_flat.flat_enclosure``), where the
    saddle-point estimate planned a grid at :data:`REL_FLOOR` and a second at the level it
    found. An estimate only: the grid's ball is certified wherever the level lies."""
    if len(factors) != 1 or not 0 < dn <= up:
        return None
    law, n = factors[0]
    est = getattr(law, "float_log_delta", None)
    if est is None:
        return None
    try:
        got = [est(n, up), est(n, dn) if dn != up else None]
    except (ValueError, ArithmeticError, OverflowError):  # (a float failure: no seed)
        return None
    got[1] = got[0] if dn == up else got[1]
    if any(x is None or not math.isfinite(x) for x in got):
        return None
    return got[0], got[1]


def _plain_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    if kind == "delta" and _all_losses_at_most(factors, dn):
        return 0.0, 0.0
    rel = max(rel, REL_MIN)  # (a tighter tolerance is met no better: ToleranceWarning)
    r = mixed_enclosure(factors, kind, dn, up, rel)  # (few Laplace factors, different scales)
    if r is not None:
        return r
    if (len(factors) == 1 and hasattr(factors[0][0], "lattice_split")
            and factors[0][1] <= MAX_SAMPLED_SPLIT):
        return _sampled_enclosure(factors, kind, dn, up, rel)
    r = flat_enclosure(factors, kind, dn, up, rel, _cap(factors, rel))  # (one plan, one grid)
    if r is not None:
        return r
    factors, extra = _split(factors, kind, max(dn, 0.0), rel)
    asked = rel
    levels = _seed_levels(factors, dn, up) if kind == "delta" and extra is None else None
    if levels is None:  # (a seeded delta: one grid at the level, at the width asked)
        rel = _rel_target(factors, kind, max(dn, 0.0), rel, extra)
    if extra is None:  # (a view of the law whose M costs the same at every t, where faster)
        factors = flat_factors(factors, _at(factors, kind, max(dn, 0.0)), rel,
                               _cap(factors, asked))
    if kind == "delta":
        if factors and not _affordable_work(factors, max(dn, 0.0), rel, asked):
            return None
        log_up, log_dn = levels if levels is not None else (None, None)
        lo, hi = delta_enclosure(factors, up, rel, extra, log_up)  # (delta non-increasing)
        if dn != up:
            hi = delta_enclosure(factors, dn, rel, extra, log_dn)[1]
        return lo, hi
    if factors:
        e0 = _at(factors, kind, dn, extra)
        if not e0 > 0 or not _affordable_work(factors, e0, rel, asked):
            return None
    return epsilon_enclosure(factors, dn, rel, up, extra)
