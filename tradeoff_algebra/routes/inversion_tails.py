"""The tail inverters of the inversion's curve points (``routes.inversion_curve.tail_band``).

:class:`_Tails`: for one direction of a symmetric hull (a product of Arb laws), a few shared
tail inverters (``numeric.cf_tails``) planned to :data:`TAIL_PLAN` of the band's tolerance,
their float estimates of delta and of the Neyman-Pearson point at any eps, and the certified
points they give; few DP-SGD steps take the flat view (``numeric.cf_flat``, a first plan of at
most :data:`FLAT_TAIL_SECONDS`). :func:`_solve` and :func:`_newton` place, for each level, the
eps whose Neyman-Pearson point of the hull reaches it (floats: they only place the points,
every ball is proved by the inverters); :func:`_alpha_eps` and :func:`_alpha_eps_few` bound the
eps range a level needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..numeric import budget, cf
from ..numeric.cf_flat import flat_factors
from ..numeric.cf_route import MAX_WORK, _affordable_work, _cap, _work
from ..numeric.cf_split_whole import WHOLE_PLAN, whole_split_tails
from ..numeric.cf_tails import tail_inverter

#: A tail inverter is planned to this fraction of the band's tolerance (relative to delta), and
#: to :data:`TAIL_PLAN_MAX` at least: the default tolerance's share (5e-4 TAIL_PLAN), so every
#: looser tolerance plans the default's inverters and gives its band to the last bit (the
#: first inverter's eps depends on the levels only, :func:`tail_band`). It was 1e-7 (planned
#: for 1e-5 whatever the tolerance: an inverter planned tighter reaches farther in eps), which
#: cost DP-SGD, sigma = 1.1, q = 256/60000, T = 10 a curve of 0.64 s at the default tolerance
#: (0.52 s at 5e-6: the same three inverters, each cheaper) for a width of 1e-9 where 5e-4
#: was asked.
TAIL_PLAN = 1e-2
TAIL_PLAN_MAX = 5e-6
#: At most this many inverters per direction for the points of one call.
TAIL_PLANS = 16
#: A direction plans no more once a plan leaves the error bound where it was made above this
#: fraction of what it was.
STALL = 0.5
#: Float grid of eps on which the points' thresholds are first bracketed (a hull's two
#: directions: the grid also places the jumps of the contact point).
TAIL_GRID = 257
#: The same for one direction (a symmetric product: its values are monotone in eps, so the
#: grid only starts the safeguarded Newton steps).
TAIL_GRID_ONE = 65


#: The longest first plan of a flat view the points take (its estimated seconds; a band takes
#: a few plans) where the plan's width is above :data:`FLAT_TIGHT_REL`: there the PLD engine or
#: a looser plan answers in a fraction of a second (DP-SGD, sigma = 1.1, q = 256/60000, T = 3 at
#: tol 1e-4: 0.06 s by the PLD engine, 1.6 s by this route).
FLAT_TAIL_SECONDS = 0.6
#: Plans at most this wide (tol <= 1e-6, the tails planned to TAIL_PLAN of it) may take
#: :data:`FLAT_TAIL_SECONDS_TIGHT`: at such widths the alternatives are a looser tolerance's band
#: with a ToleranceWarning or the PLD engine's estimate in seconds. With the whole inversion grid
#: evaluated at once (``SampledGaussianPolyLaw.mgf_grid``), roc(0.01) of DP-SGD (sigma = 1.1, q =
#: 256/60000) at tol 1e-9 is certified to 3e-11 in 4.0 s at T = 3 and 1.6 s at T = 5 (measured in
#: fresh processes; T = 3 planned some 14 500 nodes).
FLAT_TIGHT_REL = 1e-8
FLAT_TAIL_SECONDS_TIGHT = 6.0
#: A flat view of bounded loss planned at most FLAT_TIGHT_REL wide plans its first inverter this
#: many times tighter (:meth:`_Tails.first_rel`): DP-SGD, sigma = 1.1, q = 256/60000, T = 10 at
#: tol 1e-9 planned its remove direction twice, 384 nodes at 0.0107 and 439 at 0.0002 (its
#: error bound near eps = 0 seven to ten times its share after the first), now once, 547 nodes.
BOUNDED_FIRST = 1e-2
#: The eps at which a direction's flat view is weighed where the first inverter's is 0.
FLAT_AT_MIN = 1e-3
#: A flat view of bounded loss (the remove direction of a few subsampled Gaussian steps, loss
#: at most T log(1/(1 - q))) plans its first inverter at most this share of its largest loss.
#: Its points matter where its delta is near the other direction's, at small eps (both equal
#: the total variation at eps = 0), and an inverter planned near the largest loss has a tilt
#: so steep that its error bound there is e^(c eps0) times larger: at half the largest loss
#: (the cap of later plans) DP-SGD, sigma = 1.1, q = 256/60000, T = 10, tol 5e-4 planned the
#: remove direction twice (0.0214, then 0.0002), at a quarter once.
FIRST_REACH = 0.25


class _NoTails(Exception):
    """The tails of :mod:`numeric.cf_tails` are not certified for a direction."""


class _Tails:
    """One direction's tail inverters (``numeric.cf_tails``), planned where points need them;
    with a split order J, those of ``numeric.cf_split_tails`` (the lattice part of a
    self-product of Laplace laws bounded by its mass, the remainder inverted)."""

    def __init__(self, factors: Sequence, rel: float, split: int | None = None,
                 floats: dict | None = None):
        self.factors, self.rel, self.split = list(factors), rel, split
        #: whether the factors are a law's flat view (:meth:`flatten`)
        self.flat = False
        self.e0: list = []
        self.inv: list = []
        #: whether a plan failed to better the error bound where it was made (no more plans)
        self.stalled = False
        #: the certified points of a product too short for the inversion, from its law itself
        #: (:func:`few_step_tails`): one object for every eps, never planned again
        self.few = few_step_tails(self.factors, rel) if split is None else None
        if self.few is not None and floats is not None:
            law, n = self.factors[0]
            _share_floats(self.few, floats.setdefault((id(law), int(n)), {}))

    def flatten(self, e0: float) -> None:
        """Take the law's flat view (``numeric.cf_flat``: M(c + it) at a cost flat in t, the
        same certified balls) where its plan at ``e0`` is estimated faster than the law's own
        or the law's own is beyond its cap (a few DP-SGD steps: the own plan's work is
        unbounded at tight widths, the view's a few hundred nodes)."""
        if self.few is None and self.split is None:
            factors, rel = self.inverted()
            # (the choice is made at a positive eps: at eps = 0, at FLAT_AT_MIN; the view's
            # plan changes little with eps, DP-SGD T = 10: 2055 nodes at 5e-4, 2072 at 1e-2)
            self.factors = flat_factors(factors, max(e0, FLAT_AT_MIN), rel, _cap(factors, rel))
            self.flat = self.factors[0][0] is not factors[0][0]

    def affordable(self, e0: float) -> bool:
        """Whether the first inverter's plan at ``e0`` is within the route's work: MAX_WORK,
        or for a flat view its own cap in nodes, the time left (``cf_route``) and
        :data:`FLAT_TAIL_SECONDS` (:data:`FLAT_TAIL_SECONDS_TIGHT` at tight widths)."""
        factors, rel = self.inverted()
        rel = self.first_rel(rel)
        e0 = self.reach(e0, FIRST_REACH)
        if self.flat:
            law = factors[0][0]
            cap = FLAT_TAIL_SECONDS_TIGHT if rel <= FLAT_TIGHT_REL else FLAT_TAIL_SECONDS
            return (_affordable_work(factors, e0, rel, rel)
                    and _work(factors, e0, rel, law.work_caps[0]) * law.node_seconds <= cap)
        return _work(factors, e0, rel) <= MAX_WORK

    def inverted(self) -> tuple[list, float]:
        """The factors the inverters invert and the relative width they are planned to: the
        product's own (a split self-product's too: its remainder's tails are read from the
        whole law's nodes, ``numeric.cf_split_whole``, planned ``WHOLE_PLAN`` times tighter);
        the work check plans what the first inverter then uses, kept by ``numeric.cf``."""
        return self.factors, self.rel * (1.0 if self.split is None else WHOLE_PLAN)

    def first_rel(self, rel: float) -> float:
        """The width of the first plan: ``rel``, or :data:`BOUNDED_FIRST` times it for a flat
        view of bounded loss planned at most :data:`FLAT_TIGHT_REL` wide (the remove direction
        of a few DP-SGD steps at tight widths: its steep tilt leaves the tails' error bound at
        eps near 0 up to ten times its share from a plan at a quarter of its largest loss, and
        a second plan followed there)."""
        if self.flat and not self.inv and rel <= FLAT_TIGHT_REL \
                and self.reach(math.inf, 1.0) < math.inf:
            return rel * BOUNDED_FIRST
        return rel

    def reach(self, e0: float, share: float = 0.5) -> float:
        """``e0``, or for a flat view ``share`` of the product's largest loss where that is
        below it (beyond half of it, delta and both tails are 0 and the saddle-point plan has
        no saddle: the remove direction of a few subsampled steps, whose loss is at most
        T log(1/(1 - q))); the first plan takes :data:`FIRST_REACH`."""
        if not self.flat:  # (other laws: planned where asked, as before)
            return e0
        total = 0.0
        for law, n in self.factors:
            sup = getattr(law, "loss_sup", lambda: None)()
            if sup is None:
                return e0
            total += n * float(sup.mid())
        return min(e0, share * total)

    def plan(self, e0: float) -> None:
        budget.check()
        e0 = self.reach(e0, FIRST_REACH if not self.inv else 0.5)
        if self.few is not None:
            if not self.inv:
                self.e0.append(float(e0))
                self.inv.append(self.few)
            return
        if self.split is not None:
            t = whole_split_tails(self.factors, self.split, float(e0), self.rel)
        else:
            # (a flat view, few steps: the law's float estimate of delta in place of the
            # saddle point's, which is far off there; many steps keep the saddle point's)
            hint = log_delta_seed(self.factors, float(e0)) if self.flat else None
            inv, _ = cf._certified_inverter(self.factors, float(e0), self.first_rel(self.rel),
                                            log_delta=hint)
            t = tail_inverter(self.factors, inv)
        if t is None:
            raise _NoTails
        self.e0.append(float(e0))
        self.inv.append(t)

    def best(self, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each eps: the index of the inverter with the least error bound, and that bound."""
        if len(self.inv) == 1:
            err = np.asarray(self.inv[0].error(e), dtype=np.float64).ravel()
            return np.zeros(err.size, dtype=np.intp), err
        errs = np.array([t.error(e) for t in self.inv])
        i = np.argmin(errs, axis=0)
        return i, errs[i, np.arange(e.size)]

    def estimate(self, e: np.ndarray) -> tuple[np.ndarray, ...]:
        """(delta, power, alpha, d power, d alpha, error) at the floats ``e``."""
        e = np.asarray(e, dtype=np.float64).ravel()
        if len(self.inv) == 1:  # (one inverter: its estimates as they are)
            t = self.inv[0]
            err = np.asarray(t.error(e), dtype=np.float64).ravel()
            return (*(np.array(v, dtype=np.float64).reshape(e.shape) for v in t.estimate(e)),
                    err)
        i, err = self.best(e)
        out = [np.empty_like(e) for _ in range(5)]
        for k in set(i.tolist()):  # (np.unique imports numpy.ma: 0.15 s, once)
            sel = i == k
            for o, v in zip(out, self.inv[k].estimate(e[sel]), strict=True):
                o[sel] = v
        return (*out, err)



def _share_floats(few, cache: dict) -> None:
    """Let the law's points ``few`` (:func:`few_step_tails`) read their float estimates from
    ``cache``, by the exact floats asked, shared by the same law's points at every tolerance
    one band tries (``inversion_curve._nested``: the looser tolerances): the estimates only
    place the points, and are a function of the law and the floats alone (not of ``rel``), so
    each tolerance's band is the same to the last bit as its own call's, at a fraction of the
    cost (two DP-SGD steps: the float quadrature is most of a band's time)."""
    raw = few.estimate

    def estimate(eps):
        e = np.asarray(eps, dtype=np.float64).ravel()
        key = e.tobytes()
        if key not in cache:
            cache[key] = tuple(np.asarray(v, dtype=np.float64) for v in raw(e))
        return tuple(v.copy() for v in cache[key])

    few.estimate = estimate


def few_step_tails(factors: Sequence, rel: float):
    """The certified Neyman-Pearson points of a product of one law's few factors that the law
    gives itself (its optional method ``few_step_tails(n, rel)``: one subsampled Gaussian step,
    whose half-line tests are closed forms in Phi), with the interface of
    ``numeric.cf_tails.TailInverter``; else None."""
    if len(factors) != 1:
        return None
    law, n = factors[0]
    method = getattr(law, "few_step_tails", None)
    return None if method is None else method(int(n), rel)


#: Newton steps of :func:`log_delta_seed` (each one float PLD of the law; two reach 1e-4).
SEED_STEPS = 3


def log_delta_seed(factors: Sequence, e0: float) -> float | None:
    """A float estimate of log delta(e0) from the law's own float estimate of eps(delta) and
    its slope -d log delta / d eps (``cf._seed_epsilon``: the Poisson-subsampled Gaussian's
    float PLD), by Newton steps in log delta from the saddle-point estimate; None where the
    law gives none. The first tail plan then meets its width at once: the saddle-point
    estimate of a few DP-SGD steps is a factor 6 to 40 too large (sigma = 1.1, q = 256/60000,
    T = 10: log delta(0.041) -6.43 for -8.21), so the first inverter, planned too coarse, was
    thrown away (2126 nodes before the 3163 kept, at tol 1e-9). A search aid only: the
    inverter's width is checked by its balls whatever the estimate."""
    if len(factors) != 1 or getattr(factors[0][0], "float_epsilon", None) is None:
        return None
    try:
        log_d = cf._log_delta_saddle(factors, cf._saddle(factors, e0), e0)
        for _ in range(SEED_STEPS):
            got = cf._seed_epsilon(factors, math.exp(log_d))
            if got is None:
                return None
            step = got[1] * (e0 - got[0])
            log_d -= step
            if not (math.isfinite(log_d) and log_d < 0):
                return None
            if abs(step) < 1e-3:
                break
    except (ValueError, ArithmeticError, RuntimeError):
        return None
    return log_d


def _value(est, branch) -> np.ndarray:
    """The decreasing function of eps whose level is sought: alpha (branch 1) or the power
    (branch 2, the mirror image: the point (1 - power, 1 - alpha)); ``branch`` an int or an
    array of them, one per eps."""
    if np.ndim(branch) == 0:
        return est[2] if branch == 1 else est[1]
    return np.where(branch == 1, est[2], est[1])


def _slope(est, branch) -> np.ndarray:
    """The derivative in eps of :func:`_value`."""
    if np.ndim(branch) == 0:
        return est[4] if branch == 1 else est[3]
    return np.where(branch == 1, est[4], est[3])


def _solve_levels(dirs: list, flat: np.ndarray, b1: np.ndarray, b2: np.ndarray,
                  end: float) -> np.ndarray:
    """The floats eps of :func:`_solve` for the levels ``flat`` reached by alpha (``b1``) and
    by the mirror image (``b2``; 0 elsewhere): both branches bracketed on one grid of
    estimates and their Newton steps taken together (one estimate of the direction per step
    for all levels, where each branch took its own grid and steps)."""
    eps = np.zeros_like(flat)
    sel = np.flatnonzero(b1 | b2)
    if sel.size:
        branch = np.where(b2[sel], 2, 1)
        targets = np.where(branch == 1, flat[sel], 1 - flat[sel])
        grid = np.linspace(0.0, end, TAIL_GRID if len(dirs) > 1 else TAIL_GRID_ONE)
        ests = [d.estimate(grid) for d in dirs]
        out = np.empty(sel.size)
        parts = [_solve(dirs, targets[branch == b], b, end, (grid, ests), newton=False)
                 for b in (1, 2)]
        for b, part in zip((1, 2), parts, strict=True):
            out[branch == b] = part[0]
        # (Newton's steps of both branches together, per direction)
        who = np.empty(sel.size, dtype=np.int64)
        lo, hi, start = np.empty(sel.size), np.empty(sel.size), np.empty(sel.size)
        for b, part in zip((1, 2), parts, strict=True):
            m = branch == b
            who[m], lo[m], hi[m], start[m] = part[1:]
        for d in range(len(dirs)):
            s = np.flatnonzero((who == d) & np.isnan(out))
            if s.size:
                out[s] = _newton(dirs[d], targets[s], lo[s], hi[s], branch[s], start[s])
        eps[sel] = out
    return eps


def _solve(dirs: list, targets: np.ndarray, branch: int, end: float,
           grid_ests: tuple | None = None, newton: bool = True):
    """Floats eps in [0, end] where the hull's Neyman-Pearson point reaches the targets: alpha_C
    (branch 1) or power_C (branch 2) of the direction with the larger delta (its contact point,
    Prop. 6), both decreasing in eps; at a change of direction (a jump of the contact point)
    the eps of the jump. ``grid_ests``: the grid and the directions' estimates on it, where
    the caller has them; ``newton=False``: the eps settled so far (NaN for the rest) with the
    Newton steps' inputs (direction, bracket, start) instead (:func:`_solve_levels`)."""
    if grid_ests is None:
        grid = np.linspace(0.0, end, TAIL_GRID if len(dirs) > 1 else TAIL_GRID_ONE)
        ests = [d.estimate(grid) for d in dirs]
    else:
        grid, ests = grid_ests
    dom = np.argmax(np.array([e[0] for e in ests]), axis=0)
    vals = np.array([_value(e, branch) for e in ests])
    vc = np.minimum.accumulate(vals[dom, np.arange(grid.size)])
    out = np.full(targets.shape, np.nan)
    # bracket: vc[i] >= target > vc[i + 1]
    idx = np.clip(np.searchsorted(-vc, -targets, side="left") - 1, 0, grid.size - 2)
    lo, hi = grid[idx], grid[idx + 1]
    who = dom[idx].copy()
    out[targets < vc[-1]] = end  # beyond the grid: its end (the band says how wide it is)
    jumps: dict = {}
    for k in np.flatnonzero((dom[idx] != dom[idx + 1]) & np.isnan(out)):
        j = int(idx[k])
        if j not in jumps:  # the contact point jumps in the interval: its eps, by sub-grids
            a, b = grid[j], grid[j + 1]
            for _ in range(10):
                sub = np.linspace(a, b, 65)
                ds = np.argmax(np.array([x.estimate(sub)[0] for x in dirs]), axis=0)
                i = int(np.argmax(ds != dom[j]))  # the first point past the jump
                if i == 0 or sub[i - 1] >= sub[i]:
                    break
                a, b = sub[i - 1], sub[i]
            jumps[j] = (b, _value(dirs[dom[j]].estimate(np.array([b])), branch)[0],
                        _value(dirs[dom[j + 1]].estimate(np.array([b])), branch)[0])
        b, v_left, v_right = jumps[j]
        t = targets[k]
        if v_right <= t <= v_left:
            out[k] = b
        elif t > v_left:
            hi[k] = b
        else:
            lo[k], who[k] = b, dom[j + 1]
    # (Newton's steps start where log value is linear between the grid's two points)
    with np.errstate(divide="ignore", invalid="ignore"):
        v1, v2 = np.log(vc[idx]), np.log(vc[idx + 1])
        frac = np.clip((v1 - np.log(targets)) / (v1 - v2), 0.0, 1.0)
    start = np.where(np.isfinite(frac), lo + frac * (hi - lo), 0.5 * (lo + hi))
    if not newton:
        return out, who, lo, hi, start
    for d in range(len(dirs)):
        sel = np.flatnonzero((who == d) & np.isnan(out))
        if sel.size:
            out[sel] = _newton(dirs[d], targets[sel], lo[sel], hi[sel], branch, start[sel])
    return out


def _newton(d: _Tails, t: np.ndarray, lo: np.ndarray, hi: np.ndarray, branch,
            start: np.ndarray | None = None) -> np.ndarray:
    """eps in [lo, hi] with value(eps) = t (value decreasing), by safeguarded Newton steps,
    all the targets at once, from ``start`` where it lies inside [lo, hi] (else the
    midpoint). Each step evaluates the targets not yet settled only; a target t <= 0 (the
    level 0, which no eps of the bracket reaches: value > 0 there) is settled at once at
    ``hi``, where the bisection it took before converged (30 steps of every target's sums)."""
    lo, hi = lo.copy(), hi.copy()
    e = 0.5 * (lo + hi)
    if start is not None:
        e = np.where((lo <= start) & (start <= hi), start, e)
    zero = ~(t > 0)
    e[zero] = hi[zero]
    act = np.flatnonzero(~zero)
    per = np.ndim(branch) > 0  # (one branch per target)
    for _ in range(30):
        if not act.size:
            break
        ea, ta, la, ha = e[act], t[act], lo[act], hi[act]
        ba = branch[act] if per else branch
        est = d.estimate(ea)
        g = _value(est, ba) - ta
        dg = _slope(est, ba)
        la = np.where(g > 0, ea, la)
        ha = np.where(g > 0, ha, ea)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(dg < 0, ea - g / dg, 0.5 * (la + ha))
        new = np.where((la < step) & (step < ha), step, 0.5 * (la + ha))
        done = (np.abs(g) <= 1e-14 * ta) | (ha - la <= 1e-15 * np.maximum(ha, 1e-300))
        # a Newton step from within NEWTON_LAST of the target lands within about its square
        # (the values are near exponential in eps: f'' f / f'^2 about 1): taken, not checked
        last = ~done & (dg < 0) & (np.abs(g) <= NEWTON_LAST * ta) & (la < step) & (step < ha)
        lo[act], hi[act] = la, ha
        e[act] = np.where(done, ea, new)
        act = act[~(done | last)]
    return e


#: :func:`_newton` takes its last step unchecked from a value this close to its target
#: (relative): the step lands within about its square, below the 1e-14 the steps aim at, one
#: estimate of every level fewer (four to three for G(1) (x) Laplace(1)'s 101 levels).
NEWTON_LAST = 1e-8


def _alpha_eps(factors: Sequence, a: float, cap: float) -> float:
    """Float saddle-point estimate of the eps whose Neyman-Pearson size B(L > eps) is ``a``
    (as :func:`_alpha_eps_saddles`), parametrised by the saddle point c itself: eps(c) =
    K'(c) - 1/c - 1/(c + 1) is explicit, so each step is one evaluation of the cumulants where
    each step in eps solved for its saddle point (about 0.1 ms each, eight of them: 0.7 ms of
    a 101-level curve of G(1) (x) Laplace(1) at 12 ms). Safeguarded Newton steps in log c from
    the saddle point of eps = 0 (:func:`_alpha_eps_c`), to ALPHA_EPS_TOL in log alpha; where the
    cumulants fail or no bracket is found below c = 4^8, the search in eps."""
    try:
        got = _alpha_eps_c(factors, a, cap)
    except (ValueError, ArithmeticError, RuntimeError):
        got = None
    return _alpha_eps_saddles(factors, a, cap) if got is None else got


def _alpha_eps_c(factors: Sequence, a: float, cap: float) -> float | None:
    """:func:`_alpha_eps` in u = log c (None where it gives up: then the search in eps).
    g(u) = log c + log delta_sp(c) - eps(c) - log a falls as u rises, with slope about
    1 - c (c + 1) h2 (h2 = eps'(c); the derivative of log h2 left out, as in
    ``cf._saddle_epsilon``): safeguarded Newton steps, at most a factor 4 in c before the root
    is bracketed. The same answers as the search in eps at its ends: 0 where g(0) <= 0; cap
    where eps reaches cap with g still positive, and cap/2 where the search in eps found no
    saddle point at cap (eps at c = 4^8, the last the saddle point's bracket tries, below
    cap: a bounded loss)."""
    log_a = math.log(a)

    def at(u: float) -> tuple[float, float, float]:
        c = math.exp(u)
        k0, k1, k2 = cf._total_cumulants(factors, c)
        e = k1 - 1 / c - 1 / (c + 1)
        h2 = k2 + 1 / c**2 + 1 / (c + 1) ** 2
        log_d = k0 - c * e - math.log(c * (c + 1)) - 0.5 * math.log(2 * math.pi * h2)
        g = u + log_d - e - log_a
        if not (math.isfinite(e) and math.isfinite(g) and h2 > 0):
            raise ValueError("non-finite saddle-point estimate")
        return e, g, 1 - c * (c + 1) * h2

    u_max = math.log(4.0**8)
    u = math.log(cf._saddle(factors, 0.0))
    e, g, dg = at(u)
    if g <= 0:
        return 0.0
    top, e_top = u, e  # (the largest u evaluated, and its eps)
    lo, hi = u, None  # g(lo) > 0 >= g(hi)
    step4 = math.log(4.0)
    found = None
    for _ in range(60):
        v = u - g / dg if dg < 0 else math.inf
        if hi is None:
            v = min(v, lo + step4) if v > lo else lo + step4
        elif not lo < v < hi:
            v = 0.5 * (lo + hi)
        if v > u_max:
            return None
        u = v
        e, g, dg = at(u)
        if u > top:
            top, e_top = u, e
        if g > 0 and e >= cap:
            return cap
        if abs(g) <= ALPHA_EPS_TOL or (hi is not None and hi - lo <= 1e-12):
            found = min(max(e, 0.0), cap)
            break
        if g > 0:
            lo = u
        else:
            hi = u
    if found is None:
        return None
    # (the search in eps first asked for the saddle point at cap: where there is none below
    # c = 4^8, it answered cap/2)
    while e_top < cap:
        if top >= u_max:
            return 0.5 * cap
        top = min(top + step4, u_max)
        e_top = at(top)[0]
    return found


def _alpha_eps_saddles(factors: Sequence, a: float, cap: float) -> float:
    """Float saddle-point estimate of the eps whose Neyman-Pearson size B(L > eps) is ``a``
    (alpha ~ c delta e^{-eps}: -d delta / d eps = e^eps alpha and d log delta / d eps ~ -c),
    by regula falsi (Illinois) on [0, cap] in log alpha, nearly linear in eps: about 5
    saddle points where a bisection to cap 2^-14 took 15 (each a root search; G(1) (x)
    Laplace(1): 1.7 ms of a 101-level curve's 21 ms). A starting point only (the first
    inverter's eps and the grid's end): to ALPHA_EPS_TOL in log alpha or cap 2^-14 in eps."""
    def g(e: float) -> float:
        c = cf._saddle(factors, e)
        return math.log(c) + cf._log_delta_saddle(factors, c, e) - e - math.log(a)

    lo, hi = 0.0, cap
    try:
        g_lo = g(lo)
        if g_lo <= 0:
            return 0.0
        g_hi = g(hi)
        if g_hi >= 0:
            return cap
        side = 0
        for _ in range(30):
            m = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)
            if not lo < m < hi:
                m = 0.5 * (lo + hi)
            g_m = g(m)
            if abs(g_m) <= ALPHA_EPS_TOL or hi - lo <= cap * 2.0**-14:
                return m
            if g_m > 0:
                lo, g_lo = m, g_m
                if side == 1:
                    g_hi *= 0.5  # (Illinois: the end kept twice is halved)
                side = 1
            else:
                hi, g_hi = m, g_m
                if side == -1:
                    g_lo *= 0.5
                side = -1
    except (ValueError, ArithmeticError, RuntimeError):
        return 0.5 * (lo + hi)
    return 0.5 * (lo + hi)


#: :func:`_alpha_eps` stops where log alpha is this close to log a.
ALPHA_EPS_TOL = 1e-3


def _alpha_eps_few(tails, a: float, cap: float) -> float:
    """The eps in [0, cap] whose size B(L > eps) is ``a``, by bisection on the float
    estimates of ``tails`` (a starting point, as :func:`_alpha_eps`)."""
    lo, hi = 0.0, cap
    if tails.estimate(np.array([lo]))[2][0] <= a:
        return 0.0
    for _ in range(40):
        m = 0.5 * (lo + hi)
        lo, hi = (m, hi) if tails.estimate(np.array([m]))[2][0] > a else (lo, m)
    return 0.5 * (lo + hi)
