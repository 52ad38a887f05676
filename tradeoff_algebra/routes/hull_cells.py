"""Certified power, values and whole curves of the symmetric hull C(g) of a power g = T(P, Q)^T
of one law with the cells of its loss (the Poisson-subsampled Laplace mechanism's, add/remove:
``AddRemove(Mix(Laplace(mu), q)**T)``), from the one composed lattice of g's cells
(``numeric.cells_curve``): the profile band of the hull, whose profile is the larger of its two
directions', with no grid of eps and no inverse product.

**The hull's profile from one direction.** For a pair of probability laws, the hockey-stick
divergence of the reversed pair at any real eps is (complements of the events)

    delta_{g^-1}(eps) = sup_E P(E) - e^eps Q(E) = 1 - e^eps + e^eps delta_g(-eps),

and the hull's profile is delta_C = max(delta_g, delta_{g^-1}) for eps >= 0 (Wang et al., Sec. 4;
``routes.engines``), so at every real eps too (C is symmetric: the same relation carries both
sides to -eps). The split product of the cells bounds delta_g above at every real eps
(``numeric.cells_curve``: delta_U(eps) = B_U(> i) - e^eps A_U(> i) for G_i <= eps <= G_{i+1},
every term non-decreasing in the rounded-up masses), so

    1 - C(alpha) <= max(delta_U(eps), 1 - e^eps + e^eps delta_U(-eps)) + e^eps alpha

for every real eps (Dong, Roth & Su, Prop. 6, for any pair): the upper band, at the eps that
floats place near the least such line (the kinks of either branch, +-G_k, and the crossing of
the branches beside the least kink; any eps is sound), each line proved in Arb with the lattice
index of eps and of -eps decided exactly (G_i = (i + T lo)/D is rational, eps a float).

**Lower band.** C <= g and C <= g^-1, so each test of g (size <= A_t, power >= B_t, from the
cells) gives the point (A_t, B_t) below the hull's power, and its complement, a test of the
reversed pair, the point (1 - B_t, 1 - A_t); the power is concave: the chords of those points
(``numeric.profile_band.point_band``).

The grid of cells is refined as in ``cells_curve.cells_band`` (its ``read`` is
:meth:`HullCurve.band`) until every level meets the tolerance, up to ``MAX_POINTS`` lattice
points; where it stays wider than the tolerance the route offers it (``numeric.offer``: the
inversion's band answers where it can, else this band with its ToleranceWarning).
:func:`hull_cells_point` is a point route (``evaluate``, ``roc``), :func:`hull_cells_band` a
curve band.
"""

from __future__ import annotations

import math
import time
import warnings
from fractions import Fraction

import numpy as np
from flint import arb

from ..core import trace
from ..numeric import budget
from ..numeric.cells_curve import MAX_POINTS, CellCurve, _power, cells_band, loss_range, widths
from ..numeric.cf_laws import lower, upper, working_precision
from ..numeric.context import mp
from ..numeric.curves import CURVE_BANDS
from ..numeric.lattice_cells import CELLS
from ..numeric.offer import Offer
from ..numeric.options import DEFAULT_TOL, options
from ..numeric.profile_band import Band, _upper_hull, point_band
from ..numeric.protocol import POINT_ROUTES, short
from ..numeric.value import CertifiedPair
from ..operators.tensor import Tensor, TensorPower, unit_power_base
from ..operators.unary import Inverse, SymmetricHull
from . import hull_one  # noqa: F401 (registers the one-step hull's point route first)
from .engines import HULL_EPSILON, hull_directions
from .grid_band import _warn_if_wide
from .hull_few import hull_few_point
from .inversion_curve import hull_point, inversion_band
from .plan import _float_bracket
from .profile_curve import _cells_law
from .tail_laws import band_value, floats_around

__all__ = ["HullCurve", "hull_cells_band", "hull_cells_point", "hull_cells_epsilon", "ROUTE",
           "EPSILON_ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "certified cells of the loss composed on a lattice (symmetric hull band)"
#: Arb precision of the support lines (bits).
PREC = 128


class HullCurve:
    """The symmetric hull's band from one :class:`~..numeric.cells_curve.CellCurve` of g
    (module docstring)."""

    def __init__(self, cc: CellCurve) -> None:
        self.cc = cc
        n = len(cc.cu)
        # B(> i), A(> i) in floats for i = -1 .. n - 1 (index i + 1): placement only
        u0 = float(np.ldexp(float(cc.cu[0]), -cc.cp.eu)) if n else 0.0
        self.bf = np.concatenate([[cc.sbf[0] + u0], cc.sbf])
        # (u0 e^{-G_0} in logs: G_0 ~ -T |min loss| overflows a float's exp at T = 10^4)
        a0 = math.exp(min(math.log(u0) - float(cc.g[0]), 700.0)) if u0 > 0 else 0.0
        self.af = np.concatenate([[cc.saf[0] + a0], cc.saf])

    def _index(self, e: float) -> int:
        """The lattice index i in [-1, n - 1] with G_i <= e < G_{i+1}, decided exactly."""
        cp = self.cc.cp
        i = math.floor(Fraction(e) * cp.D - cp.T * cp.lo)
        return max(-1, min(i, len(self.cc.cu) - 1))

    def _float_lines(self, e: np.ndarray, a: float) -> np.ndarray:
        """Float estimates of the lines at the eps ``e`` (placement only)."""
        g = self.cc.g
        i = np.clip(np.searchsorted(g, e, side="right") - 1, -1, len(g) - 1) + 1
        j = np.clip(np.searchsorted(g, -e, side="right") - 1, -1, len(g) - 1) + 1
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.exp(np.minimum(e, 700.0))
            d1 = self.bf[i] - v * self.af[i]
            d2 = 1 - v + v * self.bf[j] - self.af[j]
            return np.maximum(d1, d2) + v * a

    def _candidates(self, a: float) -> list[float]:
        """A few eps near the least line at alpha = ``a``: the least kink and its neighbours,
        and the crossings of the two branches between them."""
        g = self.cc.g
        e = np.unique(np.concatenate([g, -g]))
        vals = self._float_lines(e, a)
        k = int(np.nanargmin(vals))
        out = [float(e[m]) for m in range(max(k - 1, 0), min(k + 2, len(e)))]
        for lo, hi in ((k - 1, k), (k, k + 1)):
            if lo < 0 or hi >= len(e):
                continue
            mid = 0.5 * (e[lo] + e[hi])  # (both branches affine in v = e^eps between kinks)
            i = int(np.clip(np.searchsorted(g, mid, side="right") - 1, -1, len(g) - 1)) + 1
            j = int(np.clip(np.searchsorted(g, -mid, side="right") - 1, -1, len(g) - 1)) + 1
            den = 1 - self.af[i] - self.bf[j]
            if den != 0:
                v = (1 - self.af[j] - self.bf[i]) / den
                if v > 0 and math.exp(e[lo]) < v < math.exp(e[hi]):
                    out.append(math.log(v))
        return out

    def _delta_hi(self, eps: list[float]) -> dict:
        """An upper end of delta_C(e) for each e (module docstring), proved in Arb."""
        cc = self.cc
        cp = cc.cp
        idx = {e: (self._index(e), self._index(-e)) for e in eps}
        tails = cc._a_tails(sorted({i for p in idx.values() for i in p}))
        scale = arb(2) ** (-cp.eu)
        inf_b = arb(cc.slack[0])
        out = {}
        rng = cc.loss_range
        least = None if rng is None or rng[0] is None else rng[0] * cp.T
        for e, (i, j) in idx.items():
            v = arb(e).exp()
            if least is not None and arb(e) >= -least:  # (True only when proved)
                # the reversed pair's loss -L is at most -T inf L <= e: delta_{g^-1}(e) = 0
                out[e] = max(upper(arb(int(cc.su[i + 1])) * scale - v * tails[i] + inf_b), 0.0)
                continue
            # (the powers' cut tops, slack[0]: alternative mass moved to +oo, which delta_g
            # counts whole at every eps, and delta_{g^-1} = 1 - v + v delta_g(-eps) v times)
            d1 = arb(int(cc.su[i + 1])) * scale - v * tails[i] + inf_b
            d2 = 1 - v + v * (arb(int(cc.su[j + 1])) * scale + inf_b) - tails[j]
            out[e] = max(upper(d1), upper(d2), 0.0)
        return out

    def _tests(self) -> tuple[np.ndarray, np.ndarray]:
        """The vertices of the upper concave hull of g's test points and of their complements
        (1 - B_t, 1 - A_t): the hull's power bridges the two directions, so a level's chord
        may join points far from it (floats choose the vertices; every chord is sound)."""
        px, py = self.cc.px, self.cc.py
        return _upper_hull(np.concatenate([px, np.nextafter(1 - py, np.inf)]),
                           np.concatenate([py, np.nextafter(1 - px, 0.0)]))

    def band(self, alphas: np.ndarray) -> Band:
        """Certified bands of C and of its power at the levels ``alphas``."""
        x = np.asarray(alphas, dtype=np.float64).ravel()
        cands = {float(a): self._candidates(float(a)) for a in np.unique(x)}
        with working_precision(PREC):
            d = self._delta_hi(sorted({e for c in cands.values() for e in c}))
        lines = [[(e, d[e], 1) for e in cands[float(a)]] for a in x]
        px, py = self._tests()
        b = point_band(px, py, x, lines, prec=PREC)
        return Band(*(v.reshape(np.shape(alphas)) for v in (b.f_lo, b.f_hi, b.power_lo,
                                                             b.power_hi)))


    # -- eps(delta) of the hull: a certified bracket from the two sides' bounds of delta_C ----
    def _float_hi(self, e: float) -> float:
        """A float estimate of the upper bound of delta_C(e) (placement only; the mirror
        branch 0 from the reversed pair's largest loss on, as :meth:`_delta_hi`)."""
        rng = self.cc.loss_range
        if rng is not None and rng[0] is not None and e >= -float(rng[0].mid()) * self.cc.cp.T:
            i = self._index(e) + 1
            return float(self.bf[i] - math.exp(min(e, 700.0)) * self.af[i])
        return float(self._float_lines(np.array([e]), 0.0)[0])

    def _float_lo(self, e: float) -> float:
        """A float estimate of the tests' lower bound of delta_C(e) (:meth:`_delta_lo`)."""
        v = math.exp(min(e, 700.0))
        px, py = self.cc.px, self.cc.py
        with np.errstate(over="ignore", invalid="ignore"):
            return float(max(np.max(py - v * px), np.max((1 - px) - v * (1 - py))))

    def _delta_lo(self, e: float) -> float:
        """A lower end of delta_C(e), proved in Arb: every test t of g (size at most px_t,
        power at least py_t) gives delta_g(e) >= py_t - e^e px_t, and its complement, a test
        of the reversed pair, delta_{g^-1}(e) >= (1 - px_t) - e^e (1 - py_t) (the hockey-stick
        divergence is a supremum over events; Dong, Roth & Su, Prop. 6); delta_C is the larger
        of the two (module docstring). Floats choose the test; the bound is any test's."""
        px, py = self.cc.px, self.cc.py
        v = math.exp(min(e, 700.0))
        with np.errstate(over="ignore", invalid="ignore"):
            t1 = int(np.argmax(py - v * px))
            t2 = int(np.argmax((1 - px) - v * (1 - py)))
        with working_precision(PREC):
            ve = arb(e).exp()
            b1 = arb(float(py[t1])) - ve * arb(float(px[t1]))
            b2 = (1 - arb(float(px[t2]))) - ve * (1 - arb(float(py[t2])))
            return max(lower(b1), lower(b2), 0.0)

    def epsilon(self, dn: float, up: float, top: float) -> tuple[float, float]:
        """A certified bracket (lo, hi) of eps_C(d) for every d in [dn, up]: delta_C(lo) > up
        (so eps_C(d) >= lo, delta_C non-increasing; lo = 0 where no eps >= 0 is proved) and
        delta_C(hi) <= dn (so eps_C(d) <= hi), the ends placed by bisection on the floats,
        then proved in Arb, each moved outward by doubling steps until it is; ``top`` bounds
        the search (an eps where the float upper bound is at most dn, else hi = inf)."""
        def bisect(fn, a: float, b: float, above: float) -> tuple[float, float]:
            for _ in range(60):  # fn(a) > above >= fn(b)
                m = 0.5 * (a + b)
                if m in (a, b):
                    break
                a, b = (m, b) if fn(m) > above else (a, m)
            return a, b

        with working_precision(PREC):
            if self._delta_hi([0.0])[0.0] <= dn:
                return 0.0, 0.0  # (delta_C(0) <= d proved: eps = 0)
        lo = 0.0
        if self._float_lo(0.0) > up:
            a = 0.0  # (the float crossing of the lower bound: an eps with delta_lo > up)
            b = max(1e-3, 2 * top) if self._float_lo(top) > up else top
            lo = bisect(self._float_lo, a, b, up)[0]
            step = max(lo * 1e-12, 1e-300)
            for _ in range(60):
                budget.check()
                if self._delta_lo(lo) > up:
                    break
                lo, step = max(lo - step, 0.0), step * 4
                if lo == 0.0:
                    break
            if not self._delta_lo(lo) > up:
                lo = 0.0
        # hi: the upper bound's float crossing above lo (its mirror branch grows again far
        # out, where e^eps times the masses' rounding is no longer negligible: steps up from
        # lo, not a bisection over [0, top])
        a, b, step = lo, lo, max(lo * 1e-3, 1e-6)
        while self._float_hi(b) > dn:
            a, b, step = b, b + step, 2 * step
            if b > top:
                return lo, math.inf
        hi = bisect(self._float_hi, a, b, dn)[1]
        step = max(hi * 1e-12, 1e-300)
        for _ in range(60):
            budget.check()
            with working_precision(PREC):
                if self._delta_hi([hi])[hi] <= dn:
                    return lo, hi
            hi, step = hi + step, step * 4
        return lo, math.inf


def _hull_law(f) -> tuple | None:
    """(law, T) where f = C(g), g the T-fold power of one law with loss cells of its own (no
    cut tail: ``for_levels``, ``cells_slack``), else None; T = 1 too (one step: g the law)."""
    if not isinstance(f, SymmetricHull):
        return None
    g = unit_power_base(f.arg)
    one = not isinstance(g, (Tensor, TensorPower))
    if (one and (isinstance(g, Inverse) or g.is_symmetric is True)) or (
            not one and hull_directions(f) is None):
        return None
    got = _cells_law(g, single=one)
    if got is None or not hasattr(got[0], "loss_cells"):
        return None
    law = got[0]
    if hasattr(law, "for_levels") or hasattr(law, "cells_slack"):
        return None
    return got


def hull_cells_band(f, alphas: np.ndarray, tol: float = 1e-3,
                    progress: bool | None = None, measure: str = "curve",
                    warn: bool = True) -> Band | Offer | None:
    """The certified band of the hull f at ``alphas`` (module docstring), None where f is not
    such a hull; an :class:`~..numeric.offer.Offer` of it where it stays wider than ``tol``."""
    got = _hull_law(f)
    if got is None:
        return None
    law, n = got
    x = np.asarray(alphas, dtype=np.float64)
    b = cells_band(law, n, x.ravel(), tol, measure, read=lambda cc, y: HullCurve(cc).band(y))
    if b is None:
        return None
    w = float(np.max(widths(b, x.ravel(), measure), initial=0.0))
    zero = x.ravel() == 0  # (no mass at +oo, _cells_law: C(0) = 1 exactly)
    b.f_lo[zero], b.f_hi[zero], b.power_lo[zero], b.power_hi[zero] = 1.0, 1.0, 0.0, 0.0
    b = Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))
    if w > tol:  # offered: the later routes first (the inversion's band meets tight
        # tolerances), this band where none answers (numeric.offer)
        return Offer(b, f"certified band of {short(f)} (loss cells composed on a lattice) "
                        f"wider than tol = {tol:.3g}: relative width {w:.3g}; the band holds "
                        "the curve (certified)")
    trace.note(ROUTE)
    if warn:
        _warn_if_wide(b, x, tol)
    return b


def hull_cells_point(f, A, dps: int, power: bool):
    """f(A) (``power``: 1 - f(A)) of such a hull at a rational 0 < A < 1 from the band at the
    two floats around A, to the relative width of ``pld_options``; None where the route does
    not apply."""
    if not isinstance(f, SymmetricHull) or not 0 < A < 1:
        return None
    tol = options()["tol"]
    b = hull_cells_band(f, np.array(floats_around(A)), tol,
                        measure="roc" if power else "value", warn=False)
    if b is None:
        return None
    if isinstance(b, Offer):  # (band_value's warning goes with the offer, if it is taken)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            v = band_value(b.answer, f, A, dps, power, tol, ROUTE)
        return Offer(v, str(said[0].message) if said else b.warning)
    return band_value(b, f, A, dps, power, tol, ROUTE)


#: The relative width of the default tolerance's question (a quarter of DEFAULT_TOL): the
#: grids of :func:`hull_cells_epsilon` stop where the h^2 law says the finest allowed would
#: not reach four times it.
PREDICT_REL = DEFAULT_TOL / 4
#: The route's note for eps(delta) (``Value.route``).
EPSILON_ROUTE = "certified cells of the loss composed on a lattice (symmetric hull eps)"


#: eps_C(d) is asked of the cells (this module's and ``routes.hull_tilted``'s) before the
#: engines (``routes.engines.HULL_EPSILON``), and the band and points before the inversion's
#: (:func:`_by_span`), only where one step's loss spans at least this
#: much (``loss_span``): high per-step losses, whose atoms the inversion cannot invert in
#: reasonable time (AddRemove(Mix(L_10, 1/1000))^43: span 3.1). Below it the engines answer at
#: any tolerance (q = 1/100, b = 1, span 0.023, T = 10^4: 0.02 s at 1e-9 and 0.006 s at the
#: default), where the cells' grids spent about a second first (1.1 s; 3.8 to 8.2 s with the
#: tilted cells at 1e-9).
SPAN_MIN = 1.0


def hull_cells_epsilon(f, d, tol: float | None = None) -> CertifiedPair | Offer | None:
    """eps_C(d) of such a hull (an mpf 0 < d < 1), a certified pair (an ``Offer`` of it where
    it does not meet the tolerance: ``routes.engines._hull_epsilon``): the bracket of
    :meth:`HullCurve.epsilon` on the grids of ``cells_curve.cells_band`` (D_0 2^k cells a unit
    of loss, D_0 = ``lattice_cells.CELLS`` a step, up to ``cells_curve.MAX_POINTS`` lattice
    points), intersected grid by grid, until its relative width is at most a quarter of
    ``tol`` (``pld_options``) or of the default's (:data:`PREDICT_REL`; a tighter
    tolerance is the engines', intersected with this bracket by ``routes.engines``: the finest
    grids cost seconds where the inversion of a few small-mu steps takes less), else the
    narrowest reached (a finer grid the time left
    cannot pay for is not begun). The grids do not depend on ``tol``: a tighter tolerance
    computes every grid of a looser one, so its bracket lies inside the looser one's. None
    where f is not such a hull or one step's loss spans less than :data:`SPAN_MIN`.
    AddRemove(Mix(L_10, 1/1000))^43, eps(1e-5): 6.2286 to a
    relative 1.2e-4 at 496 cells a unit, 0.3 s, where the inversion's polynomial split of
    the 43 steps took minutes."""
    got = _hull_law(f)
    if got is None or not 0 < d < 1:
        return None
    law, n = got
    span = law.loss_span()
    if span < SPAN_MIN:
        return None
    rel = (options()["tol"] if tol is None else tol) / 4
    dn, up = _float_bracket(d)
    top_d = math.floor(MAX_POINTS / (n * span))
    if top_d < 1:
        return None
    D = min(max(1, math.ceil(CELLS / span)), top_d)
    rng = loss_range(law)
    lo, hi, last = 0.0, math.inf, None
    while True:
        best = CertifiedPair(mp.mpf(lo), mp.mpf(hi)) if hi < math.inf else None
        if last is not None and last * D * 1.5 > budget.remaining():
            break  # (the finer grid cannot end in the time left)
        budget.check(best)
        t0 = time.monotonic()
        cc = CellCurve(_power(law, n, D), rng)
        top = float(cc.g[-1]) + 1.0 if len(cc.g) else 1.0
        a, b = HullCurve(cc).epsilon(dn, up, top)
        last = (time.monotonic() - t0) / D
        lo, hi = max(lo, a), min(hi, b)
        if lo > hi:
            raise ArithmeticError(f"hull_cells_epsilon: disjoint certified brackets of eps of "
                                  f"{f} at {d}: [{a}, {b}] and the previous grids'")
        if hi - lo <= max(rel, PREDICT_REL) * hi:
            break  # (below the default's width the engines answer, intersected with this)
        size = max(len(x) for x in cc.cp.ints)
        del cc
        if 2 * size > MAX_POINTS:
            break
        if hi < math.inf and (hi - lo) * (D / top_d) ** 2 > 4 * PREDICT_REL * hi:
            break  # (by the h^2 law the finest grid allowed would not meet the default's
            # width either; a rule without rel, so a tighter tolerance computes every grid a
            # looser one does and its bracket lies inside the looser one's)
        D *= 2
    if not hi < math.inf:
        return None
    pair = CertifiedPair(mp.mpf(lo), mp.mpf(hi))
    if hi - lo > rel * hi:  # (offered: the engines answer, this route named only where it
        # narrows theirs, routes.engines._hull_epsilon)
        return Offer(pair, f"eps of {short(f)}: the certified enclosure [{mp.nstr(pair[0], 10)}"
                           f", {mp.nstr(pair[1], 10)}] of the loss's cells is wider than the "
                           "tolerance (the engines gave an estimate)")
    trace.note(EPSILON_ROUTE)
    return pair


def _by_span(route, wide: bool):
    """``route`` (:func:`hull_cells_band` or :func:`hull_cells_point`) asked only of hulls
    whose one step's loss spans at least :data:`SPAN_MIN` (``wide``: registered before the
    inversion's route, which declines such hulls only after planning its inverters) or less
    (after it: the inversion answers many steps of a small loss in milliseconds at any
    tolerance, or declines in milliseconds, where the cells' grids take seconds: q = 1/100,
    b = 1, T = 10^4, roc(1/100) at 1e-9: 0.01 s against 5.1 s), else None."""
    def asked(f, *args):
        got = _hull_law(f)
        if got is None or (got[0].loss_span() >= SPAN_MIN) != wide:
            return None
        return route(f, *args)
    asked.__name__ = f"{route.__name__}_{'wide' if wide else 'narrow'}"
    asked.__doc__ = route.__doc__
    return asked


HULL_EPSILON.append(hull_cells_epsilon)
# (the order by one step's span, as eps's and delta's: routes.engines)
CURVE_BANDS.insert(CURVE_BANDS.index(inversion_band), _by_span(hull_cells_band, True))
CURVE_BANDS.insert(CURVE_BANDS.index(inversion_band) + 1, _by_span(hull_cells_band, False))
POINT_ROUTES.insert(POINT_ROUTES.index(hull_point), _by_span(hull_cells_point, True))
# (the few steps' profile route before the narrow spans' cells, routes.hull_few: every T <= 3,
# and more steps where its cost estimate says a ball takes milliseconds, T = 1000; not for wide
# spans, whose balls take seconds each: mu = 10, q = 1/1000, T = 3 spent 40 s on them before
# the cells' band answered as before)
_few = _by_span(hull_few_point, False)
POINT_ROUTES.insert(POINT_ROUTES.index(hull_point) + 1, _few)
POINT_ROUTES.insert(POINT_ROUTES.index(_few) + 1, _by_span(hull_cells_point, False))
