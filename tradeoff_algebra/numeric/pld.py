"""The privacy-loss-distribution (PLD) engine: guaranteed bounds for tensor products without
closed form.

Representation. For ``f = T(P, Q)`` the loss ``L = log dQ/dP`` under Q determines f through the
hockey-stick profile ``delta(eps) = E_Q[(1 - e^{eps - L})_+]`` (+ ``Q(L = +oo)``), valid for every
real eps, and ``f(alpha) = max{0, sup_eps 1 - delta(eps) - e^eps alpha}`` (Dong, Roth & Su,
Prop. 6 and the conjugate duality behind it). Composition adds independent losses
(Def. 5: ``T(P x P', Q x Q')``), so the laws under Q convolve.

Order. For non-negative measures mu, nu on the losses write ``mu <= nu`` when
``delta_mu(eps) <= delta_nu(eps)`` for every real eps, with ``delta_mu(eps) = int (1 - e^{eps-l})_+
dmu + mu({+oo})``. Because ``(1 - e^{eps - (l + r)})_+`` is the same functional at ``eps - r``,
``mu <= nu`` implies ``mu * rho <= nu * rho`` for every non-negative rho: the order is preserved
by convolution, and products of dominated factors are dominated. Neither side needs to be a
probability measure. Every operation below either keeps one side ``<=`` the truth (optimistic,
``opt``) or ``>=`` it (pessimistic, ``pess``):

* pessimistic discretisation: *connect the dots* (the split of each grid cell's mass onto its two
  grid points that keeps both its Q-mass and its P-mass: a mean-preserving spread in ``e^{-L}``,
  under which the convex functional grows); mass below the grid is rounded up to its first point;
  mass above the grid goes to +oo; every mass is rounded up by its error bound.
* optimistic discretisation: the outcomes with loss in the cell ``((j-1/2)h, (j+1/2)h]`` are merged
  (a garbling: data processing lowers delta); an atom whose merged ratio is below ``e^{jh}`` borrows
  the needed fraction of the next atom up (again a garbling) so that its ratio is at least
  ``e^{jh}``, then its loss is rounded down to ``jh``; an atom that cannot be corrected is dropped.
  Both discretisations are second order in the grid step h (the first-order rounding of the
  losses would move each factor by up to h, n factors by n h).
* composition: the discretised laws are multiplied in the Fourier domain (powers by repeated
  squaring of each coefficient), one inverse transform at the end, on a window of the composed
  loss chosen by Chernoff bounds of the discretised laws. The circular convolution folds the mass
  outside the window onto it: the pessimistic side adds the Chernoff bound of the mass above the
  window to +oo and of the mass below to the first bin (the folded mass itself only adds); the
  optimistic side subtracts the folded mass bound from every bin and drops what lies outside.

Rigour. Exact arithmetic would make both sides exact bounds. The float64 evaluation is covered
as follows, and the bounds hold under these (standard, but not machine-checked) error models:

* factor distribution functions: relative error at most ``model.rel_err`` (scipy.special.ndtr,
  exp, expm1, log1p assumed accurate to 5e-15 relative, plus the conditioning of the cut);
  every cell mass is widened by its bound before use;
* cuts: the evaluated cell boundaries may sit ``model.edge_err`` from the exact ones; the composed
  loss is then off by at most ``shift = sum n_j edge_err_j``, and the pessimistic (optimistic)
  profile is read at ``eps - shift`` (``eps + shift``);
* FFT: the entrywise bound ``|fl(F x) - F x|_k <= gamma_N ||x||_1`` with
  ``gamma_N = 2 (log2 N + 2) * 8u`` (Higham, *Accuracy and Stability of Numerical Algorithms*,
  Thm. 24.2, with ``eta <= 8u`` for accurately computed twiddle factors; the product of the
  absolute butterfly matrices is the all-ones matrix, so the normwise analysis holds entrywise
  with ``||x||_1``; a factor 2 of room covers the real-input transforms); the coefficient powers
  and products carry the propagated bound ``n (|A| + e)^{n-1} e`` and their own rounding;
  the inverse transform's error per entry is ``(1/N) sum_k |dC_k| + gamma_N (1/N) sum_k |C_k|``;
* sums and recurrences of non-negative terms: relative error at most ``(3 m + 10) u``;
* masses below ~1e-300 are not represented (at most N * 1e-300 in total; added to +oo).
"""

from __future__ import annotations

import math
import threading
import warnings

import numpy as np

from ..core.errors import NoClosedForm, ToleranceWarning
from . import budget, pld_grid
from .context import mp
from .options import DEFAULT_TOL, H_MIN, H_START, MAX_FFT, options, pld_options
from .pld_compose import (
    _THETAS,
    Composed,
    Side,
    _best_theta,
    _logmgf,
    compose,
    hull_roc_bounds,
    hull_roc_bounds_many,
    hull_value_bounds,
    value_bounds_from_roc,
)
from .pld_grid import (
    DEFAULT_TAIL,
    LOSS_CAP,
    Factor,
    GridTooLarge,
    _trim,
    check_memory,
    discretise,
    grid_step,
)
from .pld_profile import leaf_factor, options_key
from .privacy_loss import U64, delta_part, leaf_model
from .protocol import num

__all__ = ["Factor", "Side", "Composed", "discretise", "compose", "DEFAULT_TAIL", "DEFAULT_TOL",
           "grid_step", "leaf_model", "delta_enclosure", "value_enclosure", "roc_enclosure",
           "epsilon_enclosure", "delta_refinement", "epsilon_refinement", "max_enclosure",
           "tolerance_stages",
           "hull_roc_bounds", "hull_value_bounds", "value_refinement",
           "pld_options", "options", "GridTooLarge", "split_trivial", "LOSS_CAP", "H_START",
           "H_MIN", "MAX_FFT"]

# The engine in four modules: privacy_loss (loss models of the factors), pld_grid (their
# discretisation), pld_compose (composition by FFT and the composed laws), and this one (the
# expression level: leaves with multiplicities -> enclosures, with adaptive grid and tilt).

#: Below this delta the pessimistic side cannot certify eps(delta) (see epsilon_refinement).
MASS_FLOOR = 1e-280

#: Composed laws by (leaves, h, tau, theta): a memo (the law is a function of its key), so a
#: refinement walks the same grids whatever was composed before; ``_LOCK`` guards the dict
#: (never held while composing: two threads may compose one law, and get equal ones). At most
#: _CACHE_SIZE laws and _CACHE_BYTES of their arrays; part of the engine's working memory
#: (``MAX_PLD_BYTES``): the oldest laws go first to make room for a composition
#: (:func:`_make_room`), which never depends on what the cache holds.
_CACHE: dict = {}
_CACHE_SIZE = 12
_CACHE_BYTES = 400 * 2**20
_LOCK = threading.Lock()


def _law_bytes(c: Composed) -> int:
    """The bytes of a composed law's arrays (both sides: masses and the two profile arrays)."""
    return sum(a.nbytes for s in (c.pess, c.opt) for a in (s.arr, s.S0, s.D))


def _make_room(need: int) -> None:
    """Drop the oldest cached laws until they and ``need`` more bytes fit in MAX_PLD_BYTES."""
    with _LOCK:
        while _CACHE and sum(map(_law_bytes, _CACHE.values())) + need > pld_grid.MAX_PLD_BYTES:
            _CACHE.pop(next(iter(_CACHE)))


_ALIGN: dict = {}


def _aligned_step(leaves: tuple, h: float) -> float:
    """The grid step for the product of ``leaves`` at the power of 2 ``h``: ``a / 2^m``
    (within a factor sqrt 2 of h) when the factors' loss laws have a finite atom a != 0 (the
    heaviest, weighted by multiplicity): a and every multiple of it then lie on the grid.

    Why: the pessimistic side splits an atom between its two grid points (second order in
    h), but the optimistic side can only round it down to the grid point below (garblings
    cannot move it up): up to h per factor, n h for n factors, first order. On an aligned grid
    the atom is exact on both sides (L_mu^n, f_{eps,0}^n: the rounding loss of the optimistic
    side goes, and the width falls like h^2). Products with a factor that has no loss model
    (its certified profile nodes are dyadic, :mod:`.pld_profile`) keep the dyadic step."""
    try:
        a = _ALIGN[leaves]
    except KeyError:
        if len(_ALIGN) > 256:
            _ALIGN.clear()
        a = _ALIGN[leaves] = _heaviest_atom(leaves)
    if a is None or a < h / math.sqrt(2):
        return h
    return math.ldexp(a, -round(math.log2(a / h)))


def _heaviest_atom(leaves: tuple) -> float | None:
    """|loss| of the heaviest finite atom != 0 over the factors (Q-mass times multiplicity),
    None without one or with a factor that has no loss model (the step is then kept)."""
    best, a = 0.0, None
    for f, n in split_trivial(leaves)[0]:
        try:
            ats = leaf_model(f).heavy_atoms()
        except NoClosedForm:
            return None
        for loss, m in ats:
            if math.isfinite(loss) and loss != 0 and n * m > best:
                best, a = n * m, abs(loss)
    return a


_PROFILED: dict = {}


def _profile_options(leaves: tuple) -> tuple:
    """The options the factors without a loss model build their certified profiles with
    (:func:`.pld_profile.options_key`), or ``()`` when every factor has a loss model."""
    try:
        some = _PROFILED[leaves]
    except KeyError:
        some = False
        for f, _ in split_trivial(leaves)[0]:
            try:
                leaf_model(f)
            except NoClosedForm:
                some = True
                break
        if len(_PROFILED) > 256:
            _PROFILED.clear()
        _PROFILED[leaves] = some
    return options_key() if some else ()


def _composed(leaves: tuple, h: float, tau: float, theta: float, progress: bool,
              max_fft: int | None = None) -> Composed:
    """The composed law of the product of ``leaves`` on the grid of step ``h`` (a power of 2,
    aligned to the factors' atoms by :func:`_aligned_step`), cached."""
    # (a law beyond max_fft bins is refused; one with profile factors depends on their options)
    key = (leaves, h, tau, theta, max_fft, _profile_options(leaves))
    with _LOCK:
        c = _CACHE.get(key)
    if c is None:
        rest, deltas = split_trivial(leaves)
        if rest:
            step = _aligned_step(leaves, h)
            _make_room(_check_memory(rest, step, tau))
            facs = [(leaf_factor(f, step, tau), n) for f, n in rest]
            c = compose(facs, tau, theta, progress, max_fft, _make_room)
            del facs
        else:
            c = _identity(h)
        if deltas:
            c = _with_delta(c, deltas)
        with _LOCK:
            _CACHE[key] = c
            # bounded memory: at most _CACHE_SIZE results and _CACHE_BYTES of arrays (the
            # oldest go first)
            while len(_CACHE) > 1 and (len(_CACHE) > _CACHE_SIZE or sum(
                    map(_law_bytes, _CACHE.values())) > _CACHE_BYTES):
                _CACHE.pop(next(iter(_CACHE)))
    return c


def _check_memory(rest: tuple, step: float, tau: float) -> int:
    """Refuse at once (GridTooLarge naming ``MAX_PLD_BYTES``, :func:`.pld_grid.check_memory`)
    a composition whose discretised factors would not fit in the working memory allowed: each
    factor with a loss model counted by its grid (a factor built from its certified profile,
    :mod:`.pld_profile`, is counted by the composition, once discretised). Factors are held at
    once by the composition (its window is chosen by Chernoff bounds over all of them).
    Returns the bytes planned."""
    return check_memory(_loss_models(rest), step, tau)


def _loss_models(rest: tuple) -> list:
    """The loss models of the factors that have one (:func:`leaf_model`; the others are built
    from their certified profiles and counted once discretised)."""
    models = []
    for f, _ in rest:
        try:
            models.append(leaf_model(f))
        except NoClosedForm:
            continue
    return models


def split_trivial(leaves) -> tuple[tuple, list]:
    """``(rest, deltas)``: the factors Id dropped (the unit of the product, Dong, Roth & Su,
    Sec. 3.1) and the f_{0,delta} parts taken out (f_{eps,delta} = f_{eps,0} (x) f_{0,delta},
    Eq. (10); ``deltas`` a list of (delta, n) with delta > 0), both by the factors'
    ``delta_part`` hooks; they re-enter exactly (:func:`_with_delta`) instead of through a grid,
    so they widen nothing."""
    rest, deltas = [], []
    for f, n in leaves:
        if n == 0:
            continue
        g, d = delta_part(f)
        if d != 0:
            deltas.append((d, n))
        if g is not None:
            rest.append((g, n))
    return tuple(rest), deltas


def _identity(h: float) -> Composed:
    """The composed law of Id (the loss 0 with mass 1 under Q), exactly."""
    return Composed(Side(0, np.array([1.0]), 0.0, h, 0.0, True),
                    Side(0, np.array([1.0]), 0.0, h, 0.0, False), h)


def _with_delta(c: Composed, deltas) -> Composed:
    """c (x) f_{0,D}, 1 - D = prod (1 - delta_i)^{n_i} (Eq. (11)): under Q the loss is the
    composed one with probability 1 - D and +oo with probability D, so every mass is scaled by
    1 - D and D joins the mass at +oo (delta = D + (1 - D) delta_c, Eq. (12) through Prop. 6).
    The pessimistic side takes the upper ends of 1 - D and D, the optimistic the lower ends."""
    with mp.workprec(96):
        t = mp.zero
        for d, n in deltas:
            dd = num(d, "delta")
            if dd >= 1:
                t = mp.ninf
                break
            t += n * mp.log1p(-dd)
        keep, D = mp.exp(t), -mp.expm1(t)
        kf, Df = float(keep), float(D)
    up, dn = (lambda x: math.nextafter(x, math.inf)), (lambda x: math.nextafter(x, -math.inf))
    k_lo, k_hi = max(dn(kf), 0.0), min(up(kf), 1.0)
    D_lo, D_hi = max(dn(Df), 0.0), min(up(Df), 1.0)
    f_up, f_dn = 1 + 4 * U64, 1 - 4 * U64
    p, o = c.pess, c.opt
    pess = Side(p.k0, p.arr * (k_hi * f_up), min(1.0, (D_hi + k_hi * p.inf) * f_up), p.h,
                p.shift, True, dict(p.info))
    opt = Side(o.k0, o.arr * (k_lo * f_dn), max(0.0, (D_lo + k_lo * o.inf) * f_dn), o.h,
               o.shift, False, dict(o.info))
    return Composed(pess, opt, c.h, c.seconds)


def _rel(lo: float, hi: float) -> float:
    if hi == lo:
        return 0.0
    # (an infinite upper end is infinitely wide: inf/inf was NaN, which no width test caught,
    # so [0, +oo] came back without the ToleranceWarning)
    return (hi - lo) / hi if 0 < hi < math.inf else math.inf


def _meet(best: tuple[float, float] | None, new: tuple[float, float]) -> tuple[float, float]:
    """The enclosure kept after ``best`` and a new one: their intersection when they meet (both
    hold the truth, so it does: never wider than either), else (disjoint by rounding) the
    narrower of the two. A rule of the two alone, so a run that visits more grids ends inside
    the enclosure of one that visits a prefix of them."""
    if best is None:
        return new
    lo, hi = max(best[0], new[0]), min(best[1], new[1])
    if lo <= hi:
        return lo, hi
    return new if new[1] - new[0] < best[1] - best[0] else best


class _Refinement:
    """Successive enclosures ``query(*composed) -> (lo, hi)`` of a quantity of one or more
    products (``leaf_sets``, each composed on the same grid) on finer grids: h
    halves, or jumps by the second-order rule (width ~ h^2) towards the step that meets the
    tolerance, down to :data:`H_MIN`; ``tilt_for(composed, best, stalled) -> (theta, tau)``
    (``stalled``: the last grid did not halve the width) may propose
    a tilted recomputation for deep tails. Every intermediate result is a valid enclosure;
    ``best`` is the intersection of all of them (the narrowest kept when they are disjoint
    by rounding)."""

    def __init__(self, leaf_sets: tuple, query, h: float | None, tau: float, progress: bool,
                 tilt_for=None):
        self.leaf_sets, self.query, self.tau, self.progress = leaf_sets, query, tau, progress
        self.tilt_for, self.fixed = tilt_for, h is not None
        # a fixed step, or the first grid of the path (always the same one: an enclosure
        # depends on its arguments and the tolerance, never on the grids composed before it,
        # by this thread or another; the grids of the path are cached)
        self.h = grid_step(h) if self.fixed else H_START
        self.theta = 0.0
        self.h_ok: float | None = None  # the finest step that fitted the size limits
        self.coarser = 0  # coarser grids tried for a tilted law that did not fit
        self.exhausted = False  # no further grid can help (fixed step, size limits, H_MIN)
        self.best: tuple[float, float] | None = None
        self.prev_w: float | None = None
        self.done = False
        self.hopeless_inf = False  # an infinite upper end no grid can lower (see below)
        self.limit: str | None = None  # the size limit that ended the refinement (MAX_...)
        # called with the composed laws of every grid the refinement visits (in its order):
        # a curve reads all its levels from each of them (:func:`curve_enclosure`)
        self.on_grid = None

    def step(self, tol: float) -> tuple[float, float]:
        """One more grid; afterwards ``done`` tells whether further steps can help."""
        b = self._step(tol)
        if self.hopeless_inf and b[1] == math.inf:
            self.done = self.exhausted = True
        return b

    def _step(self, tol: float) -> tuple[float, float]:
        refused = None
        try:
            cs = [_composed(x, self.h, self.tau, self.theta, self.progress,
                            None if self.fixed else MAX_FFT) for x in self.leaf_sets]
        except GridTooLarge as exc:
            if self.best is None:
                raise
            refused = exc.limit or "size"
        # (handled outside the except clause: its traceback holds the refused composition's
        # frames, and with them its arrays, which the next grid must not find still in memory)
        if refused is not None:
            if self.h_ok is not None and 2 * self.h < self.h_ok:
                # a step between the last grid that fitted and this one may still fit: a
                # tighter tolerance must not end on a coarser grid than a looser one
                self.h *= 2
                return self._step(tol)
            if self.theta != 0.0 and self.coarser < 4 and 2 * self.h <= H_START:
                # a tilted law spans a wider window: it may fit on a coarser grid, where the
                # tilt still beats the untilted floor
                self.h *= 2
                self.coarser += 1
                return self._step(tol)
            if self.tilt_for is not None and self.theta == 0.0 and self.h_ok is not None:
                # the finest grid that fits, tilted towards the point of interest: the tilt
                # lowers the FFT's rounding floor, which is what limits the width there
                self.h = self.h_ok
                c0 = _composed(self.leaf_sets[0], self.h, self.tau, 0.0, self.progress,
                               MAX_FFT)
                t = self.tilt_for(c0, self.best, True)
                if t is not None:
                    self.theta, self.tau = t
                    return self._step(tol)
            self.done = self.exhausted = True
            self.limit = refused
            return self.best
        self.h_ok = self.h
        lo, hi = self.query(*cs)
        if self.on_grid is not None:
            self.on_grid(cs)
        self.best = _meet(self.best, (lo, hi))
        w = _rel(*self.best)
        # the width no longer shrinks like h^2: a floor (the FFT's entrywise error bound, summed
        # over the bins that matter) that tilting towards the point of interest lowers
        stalled = self.prev_w is not None and w > self.prev_w / 2
        self.prev_w = w
        if self.fixed or w <= tol:
            self.done = True
            self.exhausted = self.fixed
        elif self.tilt_for is not None and self.theta == 0.0 and \
                (t := self.tilt_for(cs[0], self.best, stalled)) is not None:
            self.theta, self.tau = t
        elif self.h <= H_MIN:
            self.done = self.exhausted = True
        else:
            ratio = math.sqrt(tol / w) * 0.9 if w < math.inf else 0.5
            ratio = min(0.5, max(ratio, 1 / 16))
            self.h = max(H_MIN, 2.0 ** round(math.log2(self.h * ratio)))
        return self.best


def max_enclosure(refinements: list[_Refinement], tol: float) -> tuple[float, float]:
    """Enclosure of ``max_i v_i`` from refinements of each ``v_i``: ``[max lo_i, max hi_i]``,
    refining only the terms that can still hold the maximum (``hi_i`` above the largest
    ``lo``), the one with the largest ``hi`` first, until the relative width is at most
    ``tol``. The two directions of
    a symmetric hull (Wang et al., Sec. 4) are usually far apart: the smaller one is then
    settled on a coarse grid."""
    if tol <= 0 or not math.isfinite(tol):
        raise ValueError("tol must be a positive number")
    try:
        return _max_enclosure(refinements, tol)
    except budget.TimeLimitExceeded as exc:
        if exc.best is not None or not all(r.best is not None for r in refinements):
            raise
        # stopped inside a composition: report the enclosure of the grids finished so far
        best = (max(r.best[0] for r in refinements), max(r.best[1] for r in refinements))
        raise budget.TimeLimitExceeded(exc.what, exc.seconds, best) from None


def _max_enclosure(refinements: list[_Refinement], tol: float) -> tuple[float, float]:
    for stage in tolerance_stages(tol):
        for r in refinements:
            if r.best is None:
                r.step(stage)
            elif r.done and not r.exhausted and _rel(*r.best) > stage:
                r.done = False
        for _ in range(12 * len(refinements)):
            lo = max(r.best[0] for r in refinements)
            hi = max(r.best[1] for r in refinements)
            if _rel(lo, hi) <= stage:
                break
            budget.check((lo, hi))
            open_ = [r for r in refinements if not r.done and r.best[1] > lo]
            if not open_:
                break
            max(open_, key=lambda r: r.best[1]).step(stage)
    lo = max(r.best[0] for r in refinements)
    hi = max(r.best[1] for r in refinements)
    if _rel(lo, hi) > tol and not all(r.fixed for r in refinements):
        if any(r.limit == "MAX_PLD_BYTES" for r in refinements):
            why = ("its next grid would need more working memory than MAX_PLD_BYTES = "
                   f"{pld_grid.show_bytes(pld_grid.MAX_PLD_BYTES)}")
        else:
            why = "the grid's size limits or the float64 floor near 1e-6 came first"
        warnings.warn(f"a PLD enclosure stopped above the requested relative width ({why}); "
                      "the result is the grid's enclosure under its float64 error model (an "
                      "estimate), wider than asked: see its width",
                      ToleranceWarning, stacklevel=3)
    return lo, hi


def tolerance_stages(tol: float) -> list[float]:
    """The targets the refinement passes through: 5e-1, 5e-2, ... down to the largest of them
    not above ``tol``. The grids and tilts a run visits depend only on the stage reached, so a
    tighter tolerance continues the path of a looser one and its enclosure (the intersection
    of all results on the way) is never wider."""
    out, k = [], 1
    while True:
        out.append(5 * 10.0**-k)
        if out[-1] <= tol:
            return out
        k += 1


def _check_leaves(leaves) -> tuple:
    out = []
    for f, n in leaves:
        n = int(n)
        if n < 0:
            raise ValueError("multiplicities must be >= 0")
        if n:
            out.append((f, n))
    return tuple(out)


def _tilt_step(rest: tuple, h: float) -> float:
    """The step (h, or h times a power of 4) on which :func:`_theta_for` holds the factors'
    deep supports within the working memory (``MAX_PLD_BYTES``, :func:`.pld_grid.memory_plan`
    counting the factors with a loss model), the cached laws making room for them."""
    models = _loss_models(rest)
    while True:
        need = pld_grid.memory_plan([j_hi - j_lo + 3 for j_lo, j_hi in
                                     (pld_grid.grid_range(m, h, 1e-300) for m in models)])
        if need <= pld_grid.MAX_PLD_BYTES or h >= 1.0:
            break
        h *= 4
    _make_room(need)
    return h


def _theta_for(leaves: tuple, h: float, eps: float, tau: float, best, force: bool = False):
    """Tilt theta* = argmin_s K(s) - s eps (the Chernoff exponent of the pessimistic factor
    laws) and a tail cut far below that bound (per factor), for delta(eps) deep in the tail
    (or, with ``force``, wherever the caller saw the width stall); None when the untilted
    result is fine or no mass lies above eps."""
    lo, hi = best
    if not force and ((hi > 1e-10 and lo > 0) or hi <= 0):
        return None
    parts = []
    top = 0.0
    rest = split_trivial(leaves)[0]
    h = _tilt_step(rest, h)
    for f, n in rest:
        hh = h  # the tilt needs the MGF only roughly: a coarser grid where the fine one is
        while True:  # too large for the deep support
            try:
                half = _trim(leaf_factor(f, hh, 1e-300).pess)
                break
            except GridTooLarge:
                hh *= 4
        if len(half.arr) == 0:
            continue
        l = (half.k0 + np.arange(len(half.arr))) * hh
        keep = half.arr > 0
        parts.append((np.log(half.arr[keep]), l[keep], n))
        top += n * l[keep][-1]
    if not parts or top <= eps:  # no finite mass above eps: nothing to tilt towards
        return None

    def fn(s):
        return _logmgf(parts, s) - s * eps

    s = _best_theta(fn, True)
    if not (0 < s < _THETAS[-1] / 2):
        return None
    est = math.exp(min(fn(s), 0.0))
    if est < 1e-290:
        return None
    # every factor's pessimistic side parks up to tau at +oo, so the composition n tau: far
    # below est, which bounds delta(eps) from above (loosely: 1e-30 for a delta of 1e-34)
    n_tot = sum(n for _, n in split_trivial(leaves)[0])
    return s, max(min(tau, est * 1e-10 / max(n_tot, 1)), 1e-300)


def delta_refinement(leaves, eps_dn: float, eps_up: float, h: float | None = None,
                     tau: float = DEFAULT_TAIL, progress: bool = False) -> _Refinement:
    """Refinement of delta(eps) for any eps in [eps_dn, eps_up] (a float bracket of an exact
    eps: the lower end is read at eps_up, the upper at eps_dn; delta is non-increasing)."""
    leaves = _check_leaves(leaves)
    return _Refinement((leaves,),
                       lambda c: (c.delta_bounds(eps_up)[0], c.delta_bounds(eps_dn)[1]),
                       h, tau, progress,
                       lambda c, b, stalled: _theta_for(leaves, c.h, eps_dn, tau, b,
                                                        force=stalled))


def value_refinement(leaf_sets, alpha_dn: float, alpha_up: float, power: bool,
                     h: float | None = None, tau: float = DEFAULT_TAIL,
                     progress: bool = False) -> _Refinement:
    """Refinement of C(alpha) (``power``: 1 - C(alpha)) for any alpha in [alpha_dn, alpha_up],
    C the trade-off function whose profile is the maximum of the products' profiles: the
    product itself for one product, the symmetric hull for a product and its inverse."""
    sets = tuple(_check_leaves(x) for x in leaf_sets)
    if power:  # 1 - C is non-decreasing in alpha
        def q(*cs):
            return hull_roc_bounds(cs, alpha_dn)[0], hull_roc_bounds(cs, alpha_up)[1]
    else:
        def q(*cs):
            return hull_value_bounds(cs, alpha_up)[0], hull_value_bounds(cs, alpha_dn)[1]
    return _Refinement(sets, q, h, tau, progress)


def epsilon_refinement(leaves, d_dn: float, d_up: float, h: float | None = None,
                       tau: float = DEFAULT_TAIL, progress: bool = False) -> _Refinement:
    """Refinement of eps(d) for any d in [d_dn, d_up] (eps(d) is non-increasing in d)."""
    leaves = _check_leaves(leaves)
    tau = min(tau, d_dn * 1e-6) if d_dn > 0 else tau
    # Below MASS_FLOOR the pessimistic profile cannot reach d on any grid (masses under 1e-300
    # are not represented: each grid point may hold 1e-300 at +oo), so an infinite upper end
    # stays infinite: stop after the first grid instead of refining to the size limits.
    hopeless = d_up < MASS_FLOOR
    if hopeless:
        warnings.warn(f"delta = {d_up:.3g} lies below the PLD engine's float64 floor "
                      f"({MASS_FLOOR:g}): the upper end of eps may stay infinite", ToleranceWarning,
                      stacklevel=3)

    def tilt(c, b, stalled):  # towards the current estimate of eps, once the width stalls
        if not stalled or not (0 < b[0] <= b[1] < math.inf):
            return None
        return _theta_for(leaves, c.h, (b[0] + b[1]) / 2, tau, b, force=True)

    r = _Refinement((leaves,), lambda c: (c.epsilon_bounds(d_up)[0],
                                       c.epsilon_bounds(d_dn)[1]),
                    h, tau, progress, tilt)
    r.hopeless_inf = hopeless
    return r


def delta_enclosure(leaves, eps: float, tol: float = DEFAULT_TOL, h: float | None = None,
                    tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of delta(eps) of the product of ``leaves`` = ((f, n), ...), refined to
    relative width ``tol`` (or on the fixed grid step ``h``)."""
    return max_enclosure([delta_refinement(leaves, eps, eps, h, tau, progress)], tol)


def value_enclosure(leaves, alpha: float, tol: float = DEFAULT_TOL, h: float | None = None,
                    tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of f(alpha) of the product of ``leaves``."""
    return max_enclosure([value_refinement((leaves,), alpha, alpha, False, h, tau, progress)],
                         tol)


def roc_enclosure(leaves, alpha: float, tol: float = DEFAULT_TOL, h: float | None = None,
                  tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of 1 - f(alpha) of the product of ``leaves``."""
    return max_enclosure([value_refinement((leaves,), alpha, alpha, True, h, tau, progress)],
                         tol)


def epsilon_enclosure(leaves, d: float, tol: float = DEFAULT_TOL, h: float | None = None,
                      tau: float = DEFAULT_TAIL, progress: bool = False) -> tuple[float, float]:
    """Enclosure of the smallest eps >= 0 with delta(eps) <= d."""
    return max_enclosure([epsilon_refinement(leaves, d, d, h, tau, progress)], tol)


def curve_enclosure(leaf_sets, alphas, tau: float = DEFAULT_TAIL, tol: float = DEFAULT_TOL,
                    progress: bool = False):
    """Enclosures (lo, hi) of C(alpha) at every alpha of a float array, C the product (one
    leaf set) or the symmetric hull (a product and its inverse): one value refinement at the
    median level to ``tol``, and every level read from EVERY grid it visits (vectorised:
    :func:`~.pld_compose.hull_roc_bounds_many`), the enclosures of each level intersected
    (:func:`_meet`, level by level). Levels far from the median may be wider than ``tol``;
    every one is a valid enclosure (an intersection of valid ones).

    A tighter tolerance never gives a wider level: the grids a refinement visits depend only on
    the stage of :func:`tolerance_stages` reached (same start, same rule, same tail), so a
    tighter tolerance visits the looser one's grids and then more, and its intersection lies
    inside the looser one's. Reading only the last grid did not: the finer grid of a tighter
    tolerance, chosen for the median level, could be wider at a far one (f(1e-6) of
    C_{1/10}(G(1))^3, 2.5e-10 wide at 1e-6 against 1.4e-10 at 5e-4)."""
    sets = tuple(_check_leaves(x) for x in leaf_sets)
    a = np.asarray(alphas, dtype=np.float64)
    flat = a.ravel()
    mid = float(np.median(a)) if a.size else 0.5
    acc: list = []
    last: list = [None]

    def read(cs) -> None:
        key = (r.h, r.tau, r.theta)  # (the key of the laws cs in the cache of _composed)
        if key == last[0]:
            return  # the grid just read (a new stage begins on the grid the last one ended on)
        last[0] = key
        new = value_bounds_from_roc(*hull_roc_bounds_many(cs, flat), flat)
        if not acc:
            acc.append(new)
            return
        (blo, bhi), (nlo, nhi) = acc[0], new
        lo, hi = np.maximum(blo, nlo), np.minimum(bhi, nhi)
        apart = lo > hi  # disjoint by rounding: the narrower one (as in _meet)
        take_new = apart & (nhi - nlo < bhi - blo)
        lo = np.where(apart, np.where(take_new, nlo, blo), lo)
        hi = np.where(apart, np.where(take_new, nhi, bhi), hi)
        acc[0] = (lo, hi)

    r = value_refinement(sets, mid, mid, False, None, tau, progress)
    r.on_grid = read
    max_enclosure([r], tol)
    if r.h != r.h_ok:
        # the refinement stopped before composing the grid it chose last: a size limit
        # refused it (then any tighter tolerance ends the same way: read it without the FFT
        # size cap, as the one grid a size limit leaves) or the stage's step count ran out
        # (then a tighter tolerance composes it next, capped: so here too)
        try:
            read([_composed(x, r.h, r.tau, 0.0, progress,
                            None if r.limit is not None else MAX_FFT) for x in sets])
        except GridTooLarge:
            pass  # (refused whatever the tolerance: the grids read are the same)
    lo, hi = acc[0]
    return lo.reshape(a.shape), hi.reshape(a.shape)
