"""Loss laws from certified privacy profiles: a PLD factor for every trade-off function whose
profile ``delta(eps)`` has certified enclosures (the input of :mod:`.pld` for factors without a
closed-form :class:`~.privacy_loss.PrivacyLoss`).

Mathematics. For ``f = T(P, Q)`` with loss ``L = log dQ/dP`` write ``x = e^eps`` and

    D(x) = delta(log x) = E_Q[(1 - x e^{-L})_+] + Q(L = +oo)      (x > 0),

the profile of Dong, Roth & Su, Prop. 6 (``delta(eps) = 1 + f^*(-e^eps)``), valid for every real
eps. Each term ``(1 - x e^{-l})_+`` is convex and non-increasing in x, so D is convex and
non-increasing, ``D(0+) = Q(L > -oo) = 1``, ``D(+oo) = Q(L = +oo)`` and ``D(x) >= 1 - x`` (the
tangent at 0: ``D'(0+) = -P(L > -oo) >= -1``). Conversely a measure with Q-masses ``m_i`` at
finite losses ``l_i`` and ``m_oo`` at +oo has the profile ``sum_i m_i (1 - x e^{-l_i})_+ + m_oo``,
piecewise linear in x with a kink at ``x_i = e^{l_i}`` where the slope jumps by
``p_i = m_i e^{-l_i}`` (its P-mass) and the constant ``m_oo`` beyond the last kink. So a convex,
non-increasing, piecewise-linear function Y of x with vertices ``(X_0 = 0, Y_0), (X_1, Y_1), ...,
(X_M, Y_M)`` and constant after ``X_M`` *is* the profile of the discrete measure with P-masses
``p_i = sigma_i - sigma_{i-1}`` (``sigma_i`` the slope after vertex i, ``sigma_M = 0``), Q-masses
``m_i = p_i X_i`` at losses ``log X_i`` (i >= 1) and ``m_oo = Y_M``; its Q-total is ``Y_0`` (Abel
summation) and its P-total ``-sigma_0``. (A P-atom at -oo, of mass ``1 - P-total``, changes no
profile; it is not passed to the engine, whose optimistic rounding would charge it to the lowest
atom.) In the order of :mod:`.pld` (``mu <= nu`` iff ``delta_mu <= delta_nu`` for every real eps)
it therefore suffices to build such a Y above D (pessimistic) and one below D (optimistic).

Data: nodes ``eps_0 < ... < eps_K`` (``x_j = e^{eps_j}``) with certified ``l_j <= D(x_j) <= u_j``
(``ta.delta`` for eps >= 0; for eps < 0 the identity ``D_f(x) = 1 - x + x D_{f^{-1}}(1/x)``,
from ``Q(S) - x P(S) = 1 - x + x (P(S^c) - Q(S^c)/x)``, with ``f^{-1} = T(Q, P)``, or f itself when
f is symmetric). They are first tightened by monotonicity: u by its running minimum (``D(x_j) <=
D(x_i) <= u_i`` for i <= j), l by the running maximum from the right, by ``1 - x_j`` and by a
lower bound ``c0`` of ``D(+oo) = 1 - f(0)``.

Pessimistic side. The lower convex hull H of the points ``(0, 1)`` and ``(x_j, u_j)``, continued
by the constant ``u_K`` after ``x_K``. On a hull segment between two of these points H is the chord
through two upper bounds, which lies above the chord of D, which lies above D (convexity); before
``x_0`` the chord from ``(0, 1) = (0, D(0+))`` does the same; after ``x_K``, ``D <= D(x_K) <= u_K``
(D non-increasing). So H >= D for every x, i.e. for every real eps: the truncation costs at most
``u_K - D(+oo)`` on the right (put into the +oo atom) and the chord on ``[0, x_0]`` on the left.

Optimistic side. Convexity bounds the one-sided slopes by secants of the enclosures:
``D'_-(x_j) >= (D(x_j) - D(x_{j-1}))/(x_j - x_{j-1}) >= (l_j - u_{j-1})/(x_j - x_{j-1}) =: A_j``
(with ``(x_{-1}, u_{-1}) = (0, 1)``) and ``D'_+(x_j) <= (u_{j+1} - l_j)/(x_{j+1} - x_j) =: B_j``
(``B_K = 0``). Hence the *tent* ``T_j(x) = l_j + A_j (x - x_j)`` for ``x >= x_j`` and
``l_j + B_j (x - x_j)`` for ``x <= x_j`` is a concave global minorant of D (``D(x) >= D(x_j) +
g (x - x_j)`` for a subgradient ``A_j <= g <= B_j``); so is ``T_{-1}(x) = 1 - x``. (A secant
line through ``(x_j, u_j)`` and ``(x_{j+1}, l_{j+1})`` is a minorant only on ``x >= x_{j+1}``, not
on the whole line; the tents make that restriction explicit.) Between consecutive nodes put a
*valley* ``v_j`` where the right arm of ``T_j`` meets the left arm of ``T_{j+1}``, with value
``w_j = min(T_j(v_j), T_{j+1}(v_j))``. The piecewise-linear W through ``(0, 1), v_{-1}, (x_0,
l_0), v_0, (x_1, l_1), ..., (x_K, l_K), v_K`` is ``<= D``: every segment joins two points lying
on or below one concave tent, so it lies below that tent. After the first vertex at or below
``c0`` (``v_K`` is where ``T_K``'s right arm reaches ``c0``) W continues by the constant ``c0 <=
D(+oo) <= D``. Its lower convex hull is ``<= W <= D``, convex and (ending at its minimum)
non-increasing: the profile of a dominated measure.

Both measures become :class:`~.privacy_loss.AtomLoss` models (Q-masses, P-masses, the +oo atom,
edge error 0); ``discretise`` of the pessimistic model gives the pessimistic half and of the
optimistic model the optimistic half of one :class:`~.Factor`.

Nodes and accuracy. With nodes ``eta`` apart in eps the two sides differ from D by about
``D''(x) (x eta)^2``: second order in the node spacing, the optimistic side (crossing of extended
secants, the best lower bound values alone allow) about three times further from D than the
pessimistic chord. The nodes start on the lattice ``Z/4`` over the range where ``D(x) - D(+oo)``
(on the left: ``D_{f^{-1}}(1/x) - D_{f^{-1}}(+oo)``) exceeds the tail level ``tau``, and are
refined by bisection (dyadic eps, so enclosures are cached and reused across grid steps h and
tail levels) where the gap between the sides at a valley, relative to the profile there (for
x < 1: to ``x D_{f^{-1}}(1/x)``, the part of D above the trivial ``1 - x``), exceeds ``rtol``;
an interval whose gap is within twice its nodes' enclosure widths and float resolution, or
narrower than 2^-12, is left alone. The trade-off is calls against width: the composed
relative width is about the largest relative gap of the factor in the region that matters,
falling like (number of nodes)^-2, and each node costs one certified ``delta`` (well under a
millisecond for closed forms, 3-200 ms for operator nodes, seconds for some envelopes), hence
the budget ``max_calls``. On the engine's grid the optimistic atoms that fall between grid
points are rounded down by ``discretise`` (first order in h, by at most h per atom), the
pessimistic ones are split (second order); nodes are dyadic, so on grids ``h <= 2^-12`` the
pessimistic atoms sit on grid points.

Rigour. The enclosures are taken as certified; the geometry (:mod:`.pld_profile_geometry`) runs in
float64 with every derived quantity rounded outward by a relative margin ``GAMMA`` of the
magnitudes involved (exp, expm1, log1p assumed accurate to ``RHO_LIB``), and the finished measures
are checked against the certified points (pessimistic: its profile, evaluated with an error bound,
at least the hull at the hull's vertices and Q-total at least 1; optimistic: at most W at W's
vertices, Q-total at most 1): the profiles are linear in x between those vertices, so this holds
for every x. A measure failing the check by a rounding-size amount is rescaled (multiplying a
measure multiplies its profile); a larger failure raises
:class:`~tradeoff_algebra.core.errors.NumericalError`. The optimistic P-total (minus W's first
slope) is the exception: near x = 0 W sits within float resolution of 1, so its excess over 1 is
removed from the lowest losses (:func:`_trim_p_total`), which costs the profile only their
negligible Q-mass.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import NoClosedForm, TradeOffError
from ..core.validate import count
from . import budget
from .context import MPF, ThreadOptions, mp
from .options import OptionsContext, options, positive_float
from .pld_grid import DEFAULT_TAIL, Factor, discretise
from .pld_profile_geometry import (  # (_lower_hull: read by the tests through this module)
    _Geometry,
    _geometry,
    _lower_hull,  # noqa: F401
    _opt_model,
    _pess_model,
    _tame,
)
from .privacy_loss import AtomLoss, leaf_model
from .protocol import delta_value

__all__ = ["leaf_factor", "profile_factor", "profile_models", "ProfileModels", "profile_options",
           "DEFAULT_RTOL", "DEFAULT_MAX_CALLS"]

#: Floor of the target relative gap between the two sides of a factor's profile (the default
#: target is half the PLD tolerance, ``options()['tol'] / 2``, but not below this).
DEFAULT_RTOL = 1e-4
#: Budget of certified ``delta`` enclosures per factor and tail level, and of their seconds
#: for the refinement (the first lattice of nodes is always computed).
DEFAULT_MAX_CALLS = 1000
DEFAULT_MAX_SECONDS = 20.0
#: Initial lattice step and finest node spacing (in eps).
STEP0, STEP_MIN = 0.25, 2.0**-12
#: The node range stops at |eps| = EPS_CAP at the latest.
EPS_CAP = 64.0
#: The node tail level is never below this (generic enclosures are absolute to ~1e-30).
TAIL_FLOOR = 1e-40
#: Digits asked of ``ta.delta`` per node.
NODE_DPS = 20

#: The options of the calling thread (each thread starts from these defaults).
_OPTIONS = ThreadOptions({"rtol": None, "max_calls": DEFAULT_MAX_CALLS,
                          "max_seconds": DEFAULT_MAX_SECONDS})


class profile_options(OptionsContext):
    """Context manager for profile factors: ``rtol`` (target relative gap of a factor's two
    sides; default: half of ``options()['tol']``, at least :data:`DEFAULT_RTOL`),
    ``max_calls`` (budget of certified ``delta`` enclosures per factor) and ``max_seconds``
    (time budget of the node refinement per factor; a factor whose enclosures are slow, such
    as a generic envelope, then stops with a wider but still valid law)."""

    _store = _OPTIONS

    def __init__(self, rtol: float | None = None, max_calls: int | None = None,
                 max_seconds: float | None = None):
        if rtol is not None:
            rtol = positive_float("rtol", rtol, "profile_options")
        if max_calls is not None:
            max_calls = count("max_calls", max_calls, lower=8, owner="profile_options")
        if max_seconds is not None:  # oo: no time budget
            max_seconds = positive_float("max_seconds", max_seconds, "profile_options",
                                         allow_infinite=True)
        self._new = {k: v for k, v in (("rtol", rtol), ("max_calls", max_calls),
                                       ("max_seconds", max_seconds)) if v is not None}


def _rtol() -> float:
    r = _OPTIONS["rtol"]
    if r is not None:
        return float(r)
    return max(options()["tol"] / 2, DEFAULT_RTOL)


def options_key() -> tuple:
    """``(rtol, max_calls, max_seconds)``: what :func:`leaf_factor` builds a profile model
    with in the calling thread (a law composed from profile factors depends on them)."""
    return (_rtol(), int(_OPTIONS["max_calls"]), float(_OPTIONS["max_seconds"]))


# ------------------------------------------------------------------------------------------------
# certified node enclosures (cached per trade-off function)
# ------------------------------------------------------------------------------------------------
def _down(x: MPF) -> float:
    v = float(x)
    return math.nextafter(v, -math.inf) if mp.mpf(v) > x else v


def _up(x: MPF) -> float:
    v = float(x)
    return math.nextafter(v, math.inf) if mp.mpf(v) < x else v


class _Source:
    """Certified enclosures of ``D(e^eps)`` at dyadic eps of one trade-off function f.

    Shared by the threads (its enclosures are pure functions of the node: a memo); a call that
    builds models from it counts what it *uses* in its own tally (raw key -> CPU seconds the
    enclosure cost when it was computed), so its budget and hence its model do not depend on
    which nodes other calls (or other threads) computed before. ``lock`` serialises the
    builds of one source (a second thread waits for the first model instead of computing the
    same nodes again)."""

    def __init__(self, f: Any):
        self.f = f
        self.sym = f.is_symmetric is True
        self.inv = f if self.sym else f.inverse()
        self.raw: dict = {}  # (which, e >= 0) -> (mpf lo, mpf hi)
        self.cost: dict = {}  # raw key, or ("c0", inverse) -> CPU seconds of its enclosure
        self.nodes: dict = {}  # eps -> ((lo, hi, excess_lo, excess_hi) floats, raw key)
        self.calls = 0  # enclosures computed (over all calls)
        self.seconds = 0.0
        self._c0: dict = {}
        self.lock = threading.RLock()

    def _delta(self, g: Any, e: float, tally: dict) -> tuple[MPF, MPF]:
        """(lo, hi) of delta_g(e), e >= 0, as mpf at NODE_DPS + 20 digits."""
        key = (g is self.f, e)
        r = self.raw.get(key)
        if r is None:
            t0 = time.thread_time()  # (CPU time of this thread: not the other threads')
            v = delta_value(g, e, NODE_DPS)
            dt = time.thread_time() - t0
            lo, hi = mp.mpf(v.lo), mp.mpf(v.hi)
            if lo == hi:  # a closed form correct to NODE_DPS digits: widen to an enclosure
                r_ = abs(lo) * mp.mpf(10) ** (1 - NODE_DPS)
                lo, hi = lo - r_, hi + r_
            r = (max(lo, mp.mpf(0)), min(hi, mp.mpf(1)))
            self.calls += 1
            self.seconds += dt
            self.cost[key] = dt
            self.raw[key] = r
        tally[key] = self.cost[key]
        return r

    def node(self, e: float, tally: dict) -> tuple[float, float, float, float]:
        """Float bounds of D(e^e) and of its excess over the trivial bound, normalised:
        ``D`` for e >= 0, ``D_{f^{-1}}(e^{-e}) = (D - 1 + x)/x`` for e < 0 (the enclosure
        used is charged to ``tally``)."""
        hit = self.nodes.get(e)
        if hit is not None:
            tally[hit[1]] = self.cost[hit[1]]
            return hit[0]
        if e >= 0:
            lo, hi = self._delta(self.f, e, tally)
            r = (_down(lo), _up(hi), _down(lo), _up(hi))
            key = (True, e)
        else:
            ilo, ihi = self._delta(self.inv, -e, tally)
            with mp.workdps(NODE_DPS + 30):
                x = mp.exp(e)
                om = -mp.expm1(e)
                lo, hi = om + x * ilo, om + x * ihi
                pad = mp.mpf(10) ** (-(NODE_DPS + 20))
                lo, hi = lo * (1 - pad), hi * (1 + pad)
            r = (max(_down(lo), 0.0), min(_up(hi), 1.0), _down(ilo), _up(ihi))
            key = (self.inv is self.f, -e)
        self.nodes[e] = (r, key)
        return r

    def c0(self, tally: dict, inverse: bool = False) -> float:
        """A lower bound of D(+oo) = 1 - f(0) (of the inverse pair's if ``inverse``)."""
        key = inverse and not self.sym
        if key not in self._c0:
            try:
                v = delta_value(self.inv if key else self.f, mp.inf, NODE_DPS)
                self.calls += 1
                self.cost[("c0", key)] = 0.0
                c = max(_down(mp.mpf(v.lo) * (1 - mp.mpf(10) ** (1 - NODE_DPS))), 0.0)
            except TradeOffError:
                c = 0.0
            self._c0[key] = c
        if ("c0", key) in self.cost:
            tally[("c0", key)] = 0.0
        return self._c0[key]


#: Guards the two caches below (short sections: lookups and insertions, never a build).
_LOCK = threading.RLock()
_SOURCES: OrderedDict = OrderedDict()
_MODELS: OrderedDict = OrderedDict()
_SOURCES_SIZE, _MODELS_SIZE = 64, 64


def _source(f: Any) -> _Source:
    with _LOCK:
        s = _SOURCES.get(f)
        if s is None:
            s = _Source(f)
            _SOURCES[f] = s
            while len(_SOURCES) > _SOURCES_SIZE:
                _SOURCES.popitem(last=False)
        else:
            _SOURCES.move_to_end(f)
        return s


def _cached_model(key: tuple) -> ProfileModels | None:
    with _LOCK:
        m = _MODELS.get(key)
        if m is not None:
            _MODELS.move_to_end(key)
        return m


@dataclass
class ProfileModels:
    """The two loss laws of one factor (``pess`` dominates, ``opt`` is dominated) and what
    they cost: ``nodes`` (eps), ``calls`` and ``seconds`` (CPU) of the certified enclosures
    computed for them (enclosures cached by earlier builds are reused; ``info['used']`` counts
    every one the build used, the count its ``max_calls`` budget is charged with), ``gap`` (the
    largest relative gap between the sides at a valley: the metric refined towards ``rtol``)."""

    pess: AtomLoss
    opt: AtomLoss
    nodes: np.ndarray
    calls: int
    seconds: float
    gap: float
    info: dict = field(default_factory=dict)


def _metric(geo: _Geometry, tau: float) -> np.ndarray:
    """Gap at each valley relative to the profile there (for x < 1: both divided by x, the gap
    against the inverse pair's profile ``D_{f^{-1}}(1/x)``), with the tail level as a floor."""
    ex = (geo.ex[:-1] + geo.ex[1:]) / 2
    return geo.gap / np.minimum(1.0, np.exp(geo.valley)) / (ex + tau)


def _range(src: _Source, tau: float, inverse: bool, tally: dict) -> float:
    """The smallest e >= 0 on the lattice STEP0 Z (at most EPS_CAP) beyond which the normalised
    excess of the (inverse's, if ``inverse``) profile is below tau or unresolved."""
    c0 = src.c0(tally, inverse)

    def done(e: float) -> bool:
        lo, hi, elo, ehi = src.node(-e if inverse else e, tally)
        if inverse:
            lo, hi = elo, ehi
        return hi - c0 <= tau or (hi - lo) >= (hi - c0) / 2

    prev, e = 0.0, STEP0
    while e < EPS_CAP and not done(e):
        prev, e = e, 2 * e
    e = min(e, EPS_CAP)
    lo_, hi_ = prev, e  # done(hi_) (or the cap); refine to the lattice
    while hi_ - lo_ > STEP0:
        m = math.floor((lo_ + hi_) / 2 / STEP0) * STEP0
        if m <= lo_:
            break
        if done(m):
            hi_ = m
        else:
            lo_ = m
    return hi_


def profile_models(f: Any, tau: float = DEFAULT_TAIL, rtol: float | None = None,
                   max_calls: int | None = None) -> ProfileModels:
    """Pessimistic and optimistic :class:`AtomLoss` laws of f from certified enclosures of its
    privacy profile (see the module docstring), cached per (f, tail level, rtol, budget).

    The model depends on these and on f only, not on what was computed before nor on other
    threads: the budget counts the enclosures the build uses, cached or not, and their CPU
    seconds when they were computed (so a time budget that binds may still end a build at
    another node under different load). Concurrent calls for one f wait for one build."""
    rtol = _rtol() if rtol is None else float(rtol)
    max_calls = int(_OPTIONS["max_calls"] if max_calls is None else max_calls)
    max_seconds = float(_OPTIONS["max_seconds"])
    tau_n = max(float(tau), TAIL_FLOOR)
    key = (f, tau_n, rtol, max_calls, max_seconds)
    m = _cached_model(key)
    if m is not None:
        return m
    src = _source(f)
    with budget.locked(src.lock):
        m = _cached_model(key)  # (built by another thread while this one waited)
        if m is None:
            m = _build(src, tau_n, rtol, max_calls, max_seconds)
            with _LOCK:
                _MODELS[key] = m
                while len(_MODELS) > _MODELS_SIZE:
                    _MODELS.popitem(last=False)
    return m


def _build(src: _Source, tau_n: float, rtol: float, max_calls: int,
           max_seconds: float) -> ProfileModels:
    calls0, sec0 = src.calls, src.seconds
    tally: dict = {}  # the enclosures this build uses -> their CPU seconds
    e_hi = _range(src, tau_n, False, tally)
    e_lo = -e_hi if src.sym else -_range(src, tau_n, True, tally)
    n0 = int(round((e_hi - e_lo) / STEP0))
    nodes = set(float(e_lo + k * STEP0) for k in range(n0 + 1))
    c0 = src.c0(tally, False)

    def arrays(ns):
        eps = np.array(sorted(ns))
        vals = np.array([src.node(e, tally) for e in eps])
        return eps, vals[:, 0], vals[:, 1], np.where(eps >= 0, vals[:, 1], vals[:, 3])

    eps, lo, hi, ex = arrays(nodes)
    geo = _geometry(eps, lo, hi, ex, c0)
    worst = math.inf
    for _ in range(64):
        met = _metric(geo, tau_n)
        spacing = np.diff(eps)
        cand = (met > rtol) & (geo.gap > 2 * geo.width) & (spacing > 2 * STEP_MIN)
        worst = float(met[geo.gap > 2 * geo.width].max(initial=0.0))
        idx = np.flatnonzero(cand)
        if len(idx) == 0 or len(tally) >= max_calls or sum(tally.values()) >= max_seconds:
            break
        idx = idx[np.argsort(-met[idx])]
        room = max_calls - len(tally)
        idx = idx[: max(1, min(room, max(16, len(idx) // 2)))]
        for j in idx:
            mid = (eps[j] + eps[j + 1]) / 2
            nodes.add(float(mid))
            if src.sym and e_lo <= -mid <= e_hi:
                nodes.add(float(-mid))
        eps, lo, hi, ex = arrays(nodes)
        geo = _geometry(eps, lo, hi, ex, c0)
    pess = _pess_model(geo)
    opt = _tame(_opt_model(geo), pess)
    return ProfileModels(pess, opt, eps, src.calls - calls0, src.seconds - sec0, worst,
                         {"range": (e_lo, e_hi), "c0": c0, "rtol": rtol, "tau": tau_n,
                          "u": geo.u, "l": geo.l, "used": len(tally)})


# ------------------------------------------------------------------------------------------------
# factors for the engine
# ------------------------------------------------------------------------------------------------
def profile_factor(f: Any, h: float, tau: float = DEFAULT_TAIL, rtol: float | None = None,
                   max_calls: int | None = None) -> Factor:
    """The PLD factor of f on grid step h from its certified privacy profile (whether or not
    f has a closed-form loss model)."""
    m = profile_models(f, tau, rtol, max_calls)
    fp = discretise(m.pess, h, tau)
    fo = discretise(m.opt, h, tau)
    return Factor(fp.h, fp.pess, fo.opt, max(fp.edge, fo.edge))


def leaf_factor(f: Any, h: float, tau: float = DEFAULT_TAIL) -> Factor:
    """``discretise(leaf_model(f), h, tau)`` when f has a loss model, else the factor
    of its certified privacy profile (:func:`profile_factor`)."""
    try:
        model = leaf_model(f)
    except NoClosedForm:
        return profile_factor(f, h, tau)
    return discretise(model, h, tau)
