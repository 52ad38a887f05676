"""Certified privacy profiles of composed mechanisms by Laplace inversion.

For distributions A, B with privacy loss L = log(dA/dB) and any c > 0 with
E_A[exp(cL)] finite, the hockey-stick divergence of a product of loss laws is

    delta(eps) = E[(1 - exp(eps - L_tot))_+]
               = (1/2pi) int_R G(t) dt,
    G(t)       = exp(-z eps) M(z) / (z (z + 1)),   z = c + i t,

where M(z) = prod_i M_i(z)^{n_i} and M_i(z) = E_A[exp(z L_i)].  (Proof: the
two-sided Laplace transform of f(x) = (1 - exp(eps - x))_+ is
int_eps^inf (exp(-zx) - exp(eps) exp(-(z+1)x)) dx = exp(-z eps) / (z(z+1))
for Re z > 0; Fubini applies because |G(t)| <= exp(-c eps) M(c) / t^2.)

Everything returned is certified with Arb ball arithmetic (python-flint):

* M_i(c + it) is enclosed by a trapezoidal sum on a truncated x-grid, plus a
  proven bound on the omitted nodes and the Trefethen-Weideman bound for the
  trapezoidal rule of a function analytic in a strip (see
  `SubsampledGaussianLaw`).
* The t-integral is the trapezoidal rule on the whole line with step h: its
  discretisation error is at most 2 Psi / (exp(2 pi a / h) - 1), where Psi
  bounds int |G(s + iu)| ds for |u| < a < c.  Because |M(c' + is)| <= M(c') and
  |z (z + 1)| >= |z|^2 for Re z > -1/2,
      int |G(s + iu)| ds <= pi exp(-(c - u) eps) M(c - u) / (c - u),
  which is log-convex in u, so its maximum over |u| <= a is at u = +-a.
* The trapezoidal sum is truncated at t_cut; the omitted nodes are bounded with
  per-law bounds D_i(t) >= sup_{t' >= t} |M_i(c + it')| on a finite list of
  segments, and a final segment using either D_i or |M_i(c + it)| <= V_i / t.

The working precision of every Arb computation is set by `working_precision`,
which holds a lock while `ctx.prec` differs from the caller's value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from flint import acb, acb_poly, arb

from . import budget
from .cf_laws import Factor, lower, pm, upper, working_precision
from .cf_saddle import (  # noqa: F401 (the planners' float helpers, read as cf._saddle)
    _log_delta_saddle,
    _saddle,
    _saddle_epsilon,
    _saddle_uncached,
    _seed_epsilon,
    _total_cumulants,
    _total_log_mgf,
)
from .cf_tail_plan import _POWER_AFTER, _TailPlanner

# ----------------------------------------------------------------------------
# Planning (floats)
# ----------------------------------------------------------------------------


@dataclass
class _Plan:
    """Parameters of one certified evaluation."""

    c: float  # abscissa of the inversion contour
    a: float  # half-width of the analyticity strip used for the error bound
    h: float  # trapezoidal step in t
    n_nodes: int  # nodes t_k = k h, k = 0..n_nodes
    segments: list[int]  # tail segment boundaries m_j h, m_0 = n_nodes < m_1 < ...
    prec: int  # Arb working precision (bits)


#: The fractions of the saddle point tried as the contour's abscissa for laws that ask for it
#: (:func:`_make_plan`): the first, then its two neighbours, then one step further on the side
#: that was better (the work is unimodal in c in practice, and flat near its least: DP-SGD,
#: sigma = 1.1, T = 100 between 0.5 and 0.7 of the saddle point within 20 %).
CONTOUR_START, CONTOUR_NEIGHBOURS, CONTOUR_FURTHER = 0.6, (0.45, 0.8), (0.3, 1.0)


#: A plan at :data:`CONTOUR_START` of laws whose nodes cost the same at every t (a flat view,
#: about 0.05 ms a node) with at most this many nodes is kept without trying the neighbouring
#: abscissas (each trial about 3 ms, as much as 60 nodes; DP-SGD, sigma = 4, T = 10: 59 nodes
#: at 0.6 of the saddle point, the neighbours declined at their cap after 2 ms).
FLAT_SCAN_NODES = 400


def _plan_work(factors: Sequence[Factor], plan: _Plan) -> float:
    """The planned work of ``plan`` (as ``cf_route._work``: nodes, times the t cut-off for laws
    whose evaluation of M grows with |t|)."""
    if _flat_cost(factors):
        return float(plan.n_nodes)
    return plan.n_nodes * max(1.0, plan.n_nodes * plan.h)


def _make_plan(
    factors: Sequence[Factor],
    eps: float,
    rel_tol: float,
    log_delta: float | None,
    slack: dict[str, float],
    max_work: float | None = None,
    prefer: float | None = None,
) -> _Plan:
    """The plan at the saddle point c of the composed law; for laws with the attribute
    ``scan_contour`` (the Poisson-subsampled Gaussian: its mgf grows like e^{mu^2 c^2/2} once
    its far tail dominates, just above the saddle point, so the strip of the discretisation
    bound there is narrow and the step small), the plan of least work among a few fractions of
    it (:data:`CONTOUR_START` first; a candidate beyond the least work found is refused early).
    Any c > 0 gives a valid inversion (the errors below are bounded at the plan's own c); the
    saddle point only minimises the integrand's size, and below it the wider strip allows a
    step up to 60 times longer (DP-SGD, sigma = 4, q = 256/60000, T = 300: 25 000 nodes at
    c = 172, 25 at c = 86)."""
    c = _saddle(factors, eps)
    if log_delta is None:  # (the saddle-point estimate, at the saddle point itself)
        log_delta = _log_delta_saddle(factors, c, eps)
    if not any(getattr(law, "scan_contour", False) for law, _ in factors):
        return _plan_at(factors, c, eps, rel_tol, log_delta, slack, max_work)
    found: dict[float, _Plan] = {}
    error: Exception | None = None
    # (``prefer``: an abscissa whose per-contour work the laws have done already, a flat view's
    # model of its tilted density; its plan is charged that work less, in nodes)
    kept = prefer / c if prefer is not None and prefer > 0 else None
    bonus = _reuse_bonus(factors) if kept is not None else 0.0

    def charged(f: float) -> float:
        return _plan_work(factors, found[f]) - (bonus if f == kept else 0.0)

    def trial(frac: float) -> None:
        nonlocal error
        budget.check()
        cap = max_work  # (a plan of more work than the best so far is refused early)
        if found:
            least = min(_plan_work(factors, p) for p in found.values())
            cap = least if cap is None else min(cap, least)
        try:
            at = prefer if frac == kept else c * frac  # (the kept abscissa exactly)
            found[frac] = _plan_at(factors, at, eps, rel_tol, log_delta, slack, cap)
        except (ValueError, ArithmeticError, OverflowError) as exc:
            error = error or exc

    if kept is not None:
        trial(kept)
        # (charged at most 0: no other abscissa, charged at least 0, does better)
        if kept in found and charged(kept) <= 0:
            return found[kept]
    trial(CONTOUR_START)
    if CONTOUR_START in found and _flat_cost(factors) \
            and found[CONTOUR_START].n_nodes <= FLAT_SCAN_NODES:
        return found[CONTOUR_START]  # (nodes cheaper than the trials that might save some)
    for frac in CONTOUR_NEIGHBOURS:
        trial(frac)
    plain = [f for f in found if f != kept]
    if plain:
        best = min(plain, key=lambda f: _plan_work(factors, found[f]))
        if best != CONTOUR_START:
            trial(CONTOUR_FURTHER[CONTOUR_NEIGHBOURS.index(best)])
    else:  # (none within the cap: the saddle point and the far side)
        for frac in CONTOUR_FURTHER:
            trial(frac)
    if not found:
        raise error if isinstance(error, ValueError) else ValueError(str(error))
    return found[min(found, key=charged)]


def _reuse_bonus(factors: Sequence[Factor]) -> float:
    """The nodes' worth of the per-contour work a plan at an abscissa already used saves: the
    optional law attributes ``model_seconds`` (a flat view's model at one abscissa) over
    ``node_seconds``, summed (0 for laws without them)."""
    total = 0.0
    for law, _ in factors:
        model, node = getattr(law, "model_seconds", 0.0), getattr(law, "node_seconds", 0.0)
        if model > 0 and node > 0:
            total += model / node
    return total


def _plan_at(
    factors: Sequence[Factor],
    c: float,
    eps: float,
    rel_tol: float,
    log_delta: float,
    slack: dict[str, float],
    max_work: float | None = None,
) -> _Plan:
    """The plan with contour abscissa ``c`` (:func:`_make_plan`)."""
    for law, n in factors:  # (optional: a law whose decay bound at c depends on the level
        prepare = getattr(law, "plan_decay", None)  # its n factors need)
        if prepare is not None:
            prepare(c, n)
    n_tot = sum(n for _, n in factors)
    log_half = math.log(rel_tol / 2) + log_delta

    # Step h: maximise over the strip half-width a < c.
    best = (0.0, 0.0)
    log_disc = log_half + math.log(0.3 / slack["disc"])
    strips = c * np.linspace(0.02, 0.98, 49)
    both = _total_log_mgf(factors, np.concatenate([c - strips, c + strips]))  # (one call)
    k_lo, k_hi = both[:49], both[49:]
    # (at every strip at once: log Psi the larger of its two sides, a NaN side taken as +oo)
    sides = [math.log(math.pi) - (c - u) * eps + np.asarray(k, dtype=float) - np.log(c - u)
             for u, k in ((strips, k_lo), (-strips, k_hi))]
    log_psi = np.fmax(*(np.where(np.isnan(x), np.inf, x) for x in sides))
    den = np.logaddexp(0.0, log_psi - math.log(math.pi) - log_disc)
    # (den = 0: the discretisation error is below any level, every step serves; den = oo:
    # none does; the same values numpy's division gave, without its RuntimeWarnings)
    ok = (den > 0) & (den < np.inf)
    with np.errstate(over="ignore"):  # (a subnormal den: the step +oo, as at den = 0)
        hs = np.where(ok, 2 * math.pi * strips / np.where(ok, den, 1.0),
                      np.where(den == 0, np.inf, 0.0))
    for a_, h_ in zip(strips, hs, strict=True):  # (the largest step, then the widest strip)
        best = max(best, (float(h_), float(a_)))
    h, a = float(best[0]), float(best[1])

    # Precision: relative mgf errors eta change the sum by at most
    # n eta e^{-c eps} M(c)^n (h/(2 pi c^2) + 1/(2c)).
    k0 = _total_cumulants(factors, c)[0]
    log_eta = (
        log_half
        + math.log(0.4 / slack["mgf"])
        - math.log(n_tot)
        - (k0 - c * eps)
        - math.log(h / (2 * math.pi * c * c) + 1 / (2 * c))
    )
    prec = max(64, math.ceil(30 - log_eta / math.log(2)) + 8)

    # Truncation: exp(-c eps) coeff / pi <= 0.3 B, with coeff modelled by the planner.
    log_budget = log_half + math.log(0.3 * math.pi / slack["trunc"]) + c * eps
    if max_work is None:
        cap = 2**22
    elif _flat_cost(factors):  # work = nodes <= max_work
        cap = int(max_work) + 1
    else:  # work = nodes * max(1, nodes h) <= max_work
        cap = int(max(math.sqrt(max_work / h), min(max_work, 1 / h))) + 1
    n_nodes, segments = _TailPlanner(factors, c, h, log_budget).cut(cap)
    return _Plan(c, a, h, n_nodes, segments, prec)


# ----------------------------------------------------------------------------
# Certified evaluation
# ----------------------------------------------------------------------------


@dataclass
class _Parts:
    """A certified delta(eps) with its error budget split (for refinement)."""

    delta: arb  # enclosure of delta(eps)
    sum_radius: float  # radius of the trapezoidal sum (mgf errors and rounding)
    disc: float  # bound of the t-discretisation error
    trunc: float  # bound of the omitted t-nodes


class _NodeSum:
    """Q(w) = sum_{k=1}^{n} P_k w^k at w = e^{-i h eps} (the inverter's node sum), in blocks of
    m nodes: Q(w) = sum_i w^{i m + 1} B_i(w), B_i(x) = sum_{j < m} P_{i m + 1 + j} x^j, each
    B_i(w) by Horner's rule in Arb (``acb_poly``) and each w^{i m + 1} = e^{-i (i m + 1) h eps}
    by its own exponential: every operation a ball holding its exact result, so the sum holds
    the exact one as the node-by-node sum of n exponentials does, in n / m of them.

    The block length: a complex ball product's radius is carried by its real and imaginary
    parts, so each Horner step multiplies the radius by up to |cos t| + |sin t| <= 1 + |t| (t
    = h eps); m |t| <= 0.7 keeps a block's growth below e^0.7 ~ 2 (one Horner over all n = 464
    nodes at t = 0.088 grew it by e^37: a 1e-14 ball to 1e-3)."""

    def __init__(self, products: list) -> None:
        self.p = list(products)
        self._blocks: dict = {}

    def at(self, h: arb, e: arb) -> acb:
        """Q(e^{-i h e}) (h, e: real balls)."""
        n = len(self.p)
        if n == 0:
            return acb(0)
        t = abs(float((h * e).mid()))
        m = n if t * n <= 0.7 else max(1, int(0.7 / t))
        blocks = self._blocks.get(m)
        if blocks is None:
            if len(self._blocks) > 4:
                self._blocks.clear()
            blocks = self._blocks[m] = [acb_poly(self.p[i:i + m]) for i in range(0, n, m)]
        he = h * e
        w = acb(0, -he).exp()
        out = acb(0)
        for i, b in enumerate(blocks):
            out += acb(0, -he * (i * m + 1)).exp() * b(w)
        return out


class _Inverter:
    """Certified delta(eps) for eps near a planning point, on one t-grid.

    The products P_k = M(z_k) / (z_k (z_k + 1)) do not depend on eps, so many
    eps share them: delta(eps) = (h / 2 pi) [P_0 e^{-c eps}
    + 2 Re sum_k e^{-z_k eps} P_k] +- disc(eps) +- trunc(eps).
    """

    def __init__(self, factors: Sequence[Factor], plan: _Plan, extra=None) -> None:
        self.plan = plan
        #: an exactly summed part of delta (``cf_lattice.ExactPart``: ``terms(eps)`` gives its
        #: ball and derivative), added to the inverted remainder; None for none
        self.extra = extra
        with working_precision(plan.prec):
            c, h, a = arb(plan.c), arb(plan.h), arb(plan.a)
            self._z = [acb(c, h * k) for k in range(plan.n_nodes + 1)]
            # (a law with the optional ``mgf_grid(c, h, K)`` gives M(c + i k h), k = 0 .. K, at
            # once: each ball holds M at the exact node, which z_k's ball holds)
            grids = [law.mgf_grid(c, h, plan.n_nodes) if hasattr(law, "mgf_grid") else None
                     for law, _ in factors]
            self._p = []
            for k, z in enumerate(self._z):
                budget.check()  # (each node evaluates every factor's M: up to ms each)
                m = acb(1)
                for (law, n), grid in zip(factors, grids, strict=True):
                    m *= (law.mgf(z) if grid is None else grid[k]) ** n
                self._p.append(m / (z * (z + 1)))
            # M(c -+ a) for the strip bound Psi (real arguments, so real enclosures).
            self._m_side = []
            for side in (c - a, c + a):
                m = arb(1)
                for law, n in factors:  # (its upper end as a ball: a float may overflow)
                    m *= arb(law.mgf(acb(side)).real.upper()) ** n
                self._m_side.append(m)
            self._trunc_coeff = self._truncation(factors, c, h)

    def _truncation(self, factors: Sequence[Factor], c: arb, h: arb) -> arb:
        """Bound of sum_{k > K} h |G(kh)| e^{c eps} (one side of t = 0).

        With D(t) = prod D_i(t)^{n_i} nonincreasing and segment ends on the grid,
        h sum_{kh in (t_j, t_j+1]} |G(kh)| <= e^{-c eps} D(t_j) int dt / (c^2 + t^2).
        The last segment uses D(t_J) or the power decay V_i / t^{p_i}:
        h sum_{kh > t_J} t^{-P-2} <= t_J^{-P-1} / (P + 1).
        """
        segs = [h * m for m in self.plan.segments]
        total = arb(0)
        decays = [[law.decay_bound(c, t) for law, _ in factors] for t in segs]
        for j in range(len(segs) - 1):
            d = arb(1)
            for (_, n), dj in zip(factors, decays[j], strict=True):
                d *= dj**n
            total += d * ((segs[j + 1] / c).atan() - (segs[j] / c).atan()) / c
        t_last = segs[-1]
        d_const = arb(1)
        for (_, n), dj in zip(factors, decays[-1], strict=True):
            d_const *= dj**n
        final = d_const * (arb.pi() / 2 - (t_last / c).atan()) / c
        powers = [law.power_decay(c) if len(segs) > _POWER_AFTER else None for law, _ in factors]
        if any(p is not None for p in powers):
            v, p_tot = arb(1), 0
            for (_, n), dj, pw in zip(factors, decays[-1], powers, strict=True):
                if pw is not None and upper(pw[0] / t_last ** pw[1]) < upper(dj):
                    v *= pw[0] ** n
                    p_tot += n * pw[1]
                else:
                    v *= dj**n
            alt = v / t_last ** (p_tot + 1) / (p_tot + 1)
            final = arb(min(upper(final), upper(alt)))
        return total + final

    def _sums(self, weighted: bool) -> _NodeSum:
        """The node products P_1, P_2, ... (``weighted``: k P_k) as a :class:`_NodeSum`."""
        cache = self.__dict__.setdefault("_node_sums", {})
        got = cache.get(weighted)
        if got is None:
            ps = self._p[1:]
            got = cache[weighted] = _NodeSum([p * (k + 1) for k, p in enumerate(ps)]
                                             if weighted else ps)
        return got

    def parts(self, eps: float) -> _Parts:
        """Certified delta(eps), eps an exact float."""
        plan = self.plan
        with working_precision(plan.prec):
            e = arb(eps)
            c, h, a = arb(plan.c), arb(plan.h), arb(plan.a)
            # sum_{k >= 1} e^{-z_k eps} P_k = e^{-c eps} Q(e^{-i h eps}) (:class:`_NodeSum`)
            ec = (-c * e).exp()
            s = self._p[0].real * ec + 2 * (ec * self._sums(False).at(h, e)).real
            s = s * h / (2 * arb.pi())
            psi = [
                arb.pi() * (-(c - a) * e).exp() * self._m_side[0] / (c - a),
                arb.pi() * (-(c + a) * e).exp() * self._m_side[1] / (c + a),
            ]
            disc = arb(psi[0].max(psi[1]).upper()) / (
                arb.pi() * (2 * arb.pi() * a / h).expm1()
            )
            trunc = (-c * e).exp() * self._trunc_coeff / arb.pi()
            if self.extra is not None:
                s += self.extra.terms(eps, derivative=False)[0]
            delta = s + pm(disc + trunc)
            if delta.lower() < 0:
                hi = upper(delta)
                delta = arb(hi / 2, hi / 2)
            return _Parts(delta, upper(s.rad()), upper(disc), upper(trunc))

    def log_slope(self, eps: float) -> float:
        """Float estimate of -d log(delta) / d eps from the trapezoidal sum."""
        plan = self.plan
        with working_precision(plan.prec):
            e = arb(eps)
            c, h = arb(plan.c), arb(plan.h)
            # d/d eps of e^{-z_k eps} = -(c + i k h) e^{-z_k eps}: the k-weighted node sum
            ec = (-c * e).exp()
            val = self._p[0].real * ec + 2 * (ec * self._sums(False).at(h, e)).real
            der = -c * val + 2 * (ec * acb(0, -1) * h * self._sums(True).at(h, e)).real
            val, der = val * plan.h / (2 * arb.pi()), der * plan.h / (2 * arb.pi())
            if self.extra is not None:
                v, d = self.extra.terms(eps)
                val, der = val + v, der + d
            return -float(der.mid()) / float(val.mid())


_PLANS: dict = {}


def _first_plan(
    factors: Sequence[Factor], eps: float, rel_tol: float, max_work: float | None = None,
    log_delta: float | None = None,
) -> _Plan:
    """The first plan of :func:`_certified_inverter`, kept (the route's cost check makes the
    same one; a plan capped by ``max_work`` is the uncapped one when it exists); ``log_delta``:
    the level's log where known (an eps search seeded at the level), else the saddle-point
    estimate."""
    key = (tuple(factors), eps, rel_tol, log_delta)
    plan = _PLANS.get(key)
    if plan is None:
        slack = {"disc": 1.0, "trunc": 1.0, "mgf": 1.0}
        plan = _make_plan(factors, eps, rel_tol, log_delta, slack, max_work)
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def plan_tolerance(factors: Sequence[Factor], eps: float, rel_tol: float, extra=None) -> float:
    """The relative width the first plan of the inverted ``factors`` aims at: ``rel_tol`` of
    the whole delta, which with an exactly summed part ``extra`` (a float estimate at eps) is
    rel_tol (1 + part / delta_R) of the inverted remainder's (its saddle-point estimate): a
    remainder far below the exact part needs few digits (the acceptance below is of the whole)."""
    if extra is None:
        return rel_tol
    try:
        with working_precision(64):
            part = float(extra.terms(eps, derivative=False)[0].mid())
        d_r = math.exp(_log_delta_saddle(factors, _saddle(factors, eps), eps))
    except (ValueError, ArithmeticError, OverflowError):
        return rel_tol
    if not (part > 0 and d_r > 0):
        return rel_tol
    return min(rel_tol * (1 + part / d_r), 0.1)


#: For laws with ``scan_contour``, a re-plan of :func:`_certified_inverter` may cost at most this
#: many times the first plan's work (whose cost the route checked); beyond, the last enclosure
#: is returned (wider than asked: the route says so). DP-SGD, sigma = 2, T = 10: the first
#: plan 6.9e5 units (1.2 s), the re-plan 6.5e6.
REPLAN_WORK = 3.0


#: The relative width below which a few-step law's tight cap of work applies (its
#: ``work_caps[0]``; above, ``work_caps[1]``); read by ``cf_route`` too.
TIGHT_REL = 1e-6


def _replan_cap(factors: Sequence[Factor], plan: _Plan, rel_tol: float) -> float:
    """The work a re-plan may take: :data:`REPLAN_WORK` times the first plan's, or for laws
    whose nodes cost the same at every t and that state their own cap of nodes (a flat view's
    ``work_caps``: the tight one below :data:`TIGHT_REL`) that cap, as far as the time left
    pays for it at their ``node_seconds`` (the first plan rests on the saddle-point estimate
    of delta, a factor 100 off for a few DP-SGD steps: sigma = 1.1, T = 10, delta(1/2) ~
    1.2e-9 stopped at 3.8e-7)."""
    first = REPLAN_WORK * _plan_work(factors, plan)
    if not _flat_cost(factors):
        return first
    caps = [getattr(law, "work_caps", None) for law, _ in factors]
    unit = max(getattr(law, "node_seconds", 0.0) for law, _ in factors)
    if any(c is None for c in caps) or not unit > 0:
        return first
    afford = budget.remaining() / unit
    own = min(c[0] if rel_tol < TIGHT_REL else c[1] for c in caps)
    return max(first, min(own, afford))


def _certified_inverter(
    factors: Sequence[Factor], eps: float, rel_tol: float, extra=None, replans: int = 3,
    log_delta: float | None = None, prefer: float | None = None,
) -> tuple[_Inverter, _Parts]:
    """Plan, evaluate, and re-plan (at most ``replans`` times) until the width meets rel_tol
    (of the whole delta, the exact part ``extra`` included); for laws with ``scan_contour``
    each re-plan within :data:`REPLAN_WORK` times the first plan's work. ``log_delta``: a
    known estimate of log delta(eps) for the first plan in place of the saddle-point one (the
    eps search's level, once a first grid has located eps: the saddle-point estimate of a few
    DP-SGD steps is off by a factor 100). ``prefer``: a contour abscissa used before (its laws'
    per-contour work kept: :func:`_make_plan`); each re-plan prefers the last plan's."""
    slack = {"disc": 1.0, "trunc": 1.0, "mgf": 1.0}
    scan = any(getattr(law, "scan_contour", False) for law, _ in factors)
    cap = None
    for i in range(1 + replans):
        budget.check()
        if i == 0 and log_delta is not None and extra is None and prefer is None:
            plan = _first_plan(factors, eps, rel_tol, log_delta=log_delta)
            cap = _replan_cap(factors, plan, rel_tol) if scan else None
        elif i == 0 and log_delta is not None and extra is None:
            plan = _make_plan(factors, eps, rel_tol, log_delta, slack, prefer=prefer)
            cap = _replan_cap(factors, plan, rel_tol) if scan else None
        elif i == 0:
            plan = _first_plan(factors, eps, plan_tolerance(factors, eps, rel_tol, extra))
            cap = _replan_cap(factors, plan, rel_tol) if scan else None
        else:
            try:
                plan = _make_plan(factors, eps, rel_tol, log_delta, slack, cap, plan.c)
            except ValueError:
                if cap is None:
                    raise
                break  # (beyond the re-plan's work: the last enclosure)
        inv = _Inverter(factors, plan, extra)
        parts = inv.parts(eps)
        mid = float(parts.delta.mid())
        if parts.delta < _LEAST_FLOAT:
            break  # (its floats are [0, 5e-324] whatever the next plan)
        # (errors below the least float move a subnormal delta's floats by an ulp at most)
        allowed = max(rel_tol * mid / 2, LEAST)
        if mid > 0 and parts.sum_radius + parts.disc + parts.trunc <= allowed:
            break
        if mid > 0:
            log_delta = math.log(mid)
        for key, val in (("disc", parts.disc), ("trunc", parts.trunc), ("mgf", parts.sum_radius)):
            if val > allowed / 3:
                slack[key] *= 12 * val / allowed
    return inv, parts


#: The least positive float (a subnormal, 2^-1074): a delta below it has the float enclosure
#: [0, 5e-324] however it is computed, and errors below it change a subnormal delta's floats
#: by an ulp at most, so :func:`_certified_inverter` stops at either (its relative test
#: underflowed to 0 there: a ZeroDivisionError, or plans re-made for nothing).
LEAST = math.ldexp(1.0, -1074)
_LEAST_FLOAT = arb(LEAST)


def _all_losses_at_most(factors: Sequence[Factor], eps: float) -> bool:
    """True if sum n_i ess sup L_i <= eps is certain (then delta(eps) = 0)."""
    total = arb(0)
    for law, n in factors:
        sup = law.loss_sup()
        if sup is None:
            return False
        total += n * sup
    return bool(total <= arb(eps))


def delta_enclosure(
    factors: Sequence[Factor], eps: float, rel_tol: float = 1e-10, extra=None,
    log_delta: float | None = None,
) -> tuple[float, float]:
    """Certified bounds lo <= delta(eps) <= hi for the product prod law_i^{(x) n_i}.

    `factors` is a list of (law, n_i) pairs (with ``extra``, an exactly summed part of the
    measure added to them: :mod:`.cf_lattice`; ``factors`` may then be empty).  The width
    hi - lo targets rel_tol * delta; the bounds are guaranteed whatever width is reached.
    ``log_delta``: an estimate of log delta(eps) for the first plan in place of the
    saddle-point one (:func:`_certified_inverter`; ignored with ``extra``).
    """
    if _all_losses_at_most(factors if extra is None else [(extra.law, extra.k)], eps):
        return 0.0, 0.0
    if not factors:
        with working_precision(_exact_prec(extra, rel_tol)):
            d = extra.terms(eps, derivative=False)[0]
        return max(0.0, lower(d)), min(1.0, upper(d))
    _, parts = _certified_inverter(factors, eps, rel_tol, extra,
                                   log_delta=None if extra is not None else log_delta)
    return max(0.0, lower(parts.delta)), min(1.0, upper(parts.delta))


def _exact_prec(extra, rel_tol: float) -> int:
    """Arb precision for an exactly summed part: the digits asked for plus guard bits for the
    cancellations of its polynomial pieces (about J log2(1/mu))."""
    mu, J = float(extra.law.mu), extra.J
    return 64 + int(-math.log2(rel_tol)) + int(J * (max(0.0, -math.log2(mu)) + math.log2(J + 1)))


def _flat_cost(factors: Sequence[Factor]) -> bool:
    """Do all the laws evaluate M(c + it) at a cost independent of t (closed forms: the
    optional LossLaw attribute ``mgf_cost_flat``; the subsampled Gaussian's quadrature grows
    with t)?"""
    return all(getattr(law, "mgf_cost_flat", False) for law, _ in factors)
