"""Certified power, values and whole curves of symmetric products from any certified route of
their privacy profile.

A symmetric f is the upper envelope of the f_{eps, delta(eps)}, eps >= 0 (Dong, Roth & Su,
Prop. 6 and Eq. (10)), and the band of ``numeric.profile_band`` turns balls of delta at grid
points into a certified band of f and of its power 1 - f, second order in the grid step
(``routes.grid_band``: a uniform grid, then points near each level's
minimiser). Here delta(eps) comes from whichever certified route of the product answers it
(``routes.product``: the exact lattice product of discrete Gaussians, discrete Laplaces and
randomized response, the Arb lattice power, the Laplace inversion of laws with atoms such as
Laplace^{(x) k} and G (x) Laplace), each a ball proved by exact or Arb arithmetic; the PLD
engine's estimate is never used. So roc(alpha), f(alpha) and curves of those products are
certified where the PLD engine gave estimates (Laplace(1/10)^{(x) 1000}: [0.78371889, 0.78371894]
with a warning in 5 s) or refused (G(1) (x) Laplace(1) at tol 1e-9: a grid too large).

Two structures make the band cost a few delta calls. A product whose finite losses lie on a
lattice (the lattice product, the Arb and tilted lattice powers: :func:`loss_lattice`) has a
piecewise-linear trade-off curve whose vertices are the Neyman-Pearson points of the lattice
losses (Prop. 6); between consecutive losses h is affine, so the band is exact once the grid
holds points just above the losses around each level's minimiser (``numeric.profile_band``,
``Lattice``; ``grid_band`` starts coarse and refines to them). A product that the plain
Laplace inversion answers (:class:`_InversionDirection`) takes delta at every grid point from
a few inverters planned along the grid, each certified at every eps.

Where the inverters for the band's delta width (a thousandth of its tolerance) are beyond the
route's work, as for the symmetric hull of the subsampled Gaussian (whose transform keeps an
atom), the direction plans for what the band needs instead (``_InversionDirection.wide``: a
tenth of :data:`DELTA_LOOSE` of the tolerance, inverters anchored every :data:`WIDE_ANCHOR`):
roc(C(1/10, G(1))^{(x) 10}, 1/100) certified to 2e-4 in 0.6 s, where one plan per eps, each
falling short of the width asked, took 9 s with a ToleranceWarning per eps.

A power of one law whose loss has cells on a grid (the Poisson-subsampled Laplace law's
``loss_cells``; Mix(G_mu, q), its inverse and C_q(G_mu) by ``numeric.cells_normal``, read from
the expression) is bounded whole, before any eps grid, from one composed lattice
(``numeric.cells_curve``: the split product's support lines at every real eps above, the tests'
chords below, both directions at once): Mix(Laplace(1), 1/3)^{(x) 10} roc(1/100) certified to
3e-5 in about 0.02 s, Mix(G(2), 1/10)^{(x) 10} in 0.07 s, C(1/10, G(1))^{(x) 10} in 0.15 s
(:func:`_cells_law`), where the PLD engine gave estimates and the eps-grid band took 0.6 to
12 s. Where its largest lattice stays wider than the default tolerance (many steps) the
other routes answer.

A product not known to be symmetric is the envelope of its own support lines of slope
-e^eps <= -1 (from its profile) and of the mirror images of its inverse's (from the profile of
the product of the inverses, ``_Mirrored``; ``numeric.profile_band.band``'s ``delta2``): Dong,
Roth & Su, Prop. 6 holds for any pair, so the power, values and curves of G(1) (x) T(P, Q) are
certified where the PLD engine gave estimates. Only where both profiles come from inverters
shared across eps: with per-eps plans (Mix(Laplace(1), 1/3)^{(x) 10}) one roc took 6.5 s and a
curve over 120 s where the PLD engine's estimate takes 0.04 s, so the band passes there.

:class:`ProfileBandRoute` answers ``value`` and ``roc`` of a product (before the PLD engine);
:func:`profile_curve_band` gives the band of a whole curve (after the inversion's own band,
``numeric.curves.CURVE_BANDS``). Both hand the question on (PASS, None) where no certified
route gives delta (of the product or of its inverse), or the time limit of the call ends the
grid.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
from flint import arb, fmpq

from ..core import trace
from ..core.errors import ToleranceWarning, TradeOffError
from ..core.validate import mpf_rational
from ..numeric import cf, cf_route
from ..numeric.capability import gaussian_form
from ..numeric.cells_curve import CELLS_CURVE_ROUTE, cells_band, widths
from ..numeric.cells_normal import NormalMixtureCells
from ..numeric.cf_atom_sum import split_factors
from ..numeric.cf_atoms import has_decay, mass_at_infinity
from ..numeric.cf_laws import to_arb, working_precision
from ..numeric.cf_route import MAX_WORK, REL_MIN, _work
from ..numeric.context import mp
from ..numeric.curves import BAND_TOL_MIN, CURVE_BANDS
from ..numeric.lattice_power import LatticePower
from ..numeric.lattice_power import _ball as ratio_ball
from ..numeric.lattice_product import LatticeProduct
from ..numeric.lattice_tilted import TiltedLatticeProduct
from ..numeric.options import DEFAULT_TOL, options, pld_options
from ..numeric.profile_band import Band, Lattice
from ..numeric.protocol import arb_value, mp_roc
from ..numeric.value import CertifiedPair
from ..operators.subsample import Mix, Subsample
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse
from .engines import _cf_laws, largest_loss
from .grid_band import _warn_if_wide, grid_band
from .inversion_curve import DELTA_SHARE, PLAN_SHARE
from .plan import lattice_power, pld_leaves
from .product import (
    PASS,
    ROUTES,
    InversionRoute,
    LossBoundRoute,
    PLDRoute,
    Route,
    lattice_product,
    route,
    routes_for,
)

__all__ = ["ProfileBandRoute", "profile_curve_band", "ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "certified band of the privacy profile"


def _fraction(x) -> Fraction:
    """The exact binary rational of a finite mpf."""
    r = mpf_rational(mp.mpf(x))
    return Fraction(int(r.p), int(r.q))


class _NoProfile(Exception):
    """No certified route gives delta(eps) at a grid point."""


class _RouteDirection:
    """delta(eps) of one product as certified balls from its certified delta routes (every
    route of ``routes.product`` that answers delta, but the PLD engine's), in their order."""

    def __init__(self, f, plan: tuple, routes: list, rel: float):
        self.f, self.plan, self.routes, self.rel = f, plan, routes, rel
        #: eps -> ball of delta, kept between calls: every ball is what the routes give at that
        #: eps alone, so a call's result never depends on the calls before it
        self.memo: dict = {}
        #: ``routes.grid_band.profile_grid`` asks the largest eps of a grid first: a route's
        #: certificate for a small delta (cached by the route) then serves the larger ones
        self.largest_first = True
        #: the lattice of the product's finite losses, or None (``grid_band`` refines to it)
        self.lattice = loss_lattice(plan[1])

    def delta(self, e: float) -> arb:
        if e not in self.memo:
            self.memo[e] = self._delta(e)
        return self.memo[e]

    def _delta(self, e: float) -> arb:
        eps = mp.mpf(e)  # (exact: a float)
        for r in self.routes:
            if isinstance(r, LossBoundRoute):  # (its bound once, not one per eps)
                if self._above_largest_loss(e):
                    return arb(0)
                continue
            with _tol_options(self.rel), warnings.catch_warnings():
                # (a ball wider than its share of the band says nothing to the caller: the
                # band's own width is what the routes judge and warn about)
                warnings.simplefilter("ignore", ToleranceWarning)
                out = r.enclose(self.f, self.plan, "delta", eps)
            if isinstance(out, CertifiedPair):
                lo, hi = out
                return to_arb(_fraction(lo)).union(to_arb(_fraction(hi)))
        raise _NoProfile

    def _above_largest_loss(self, e: float) -> bool:
        """Whether e is at or above the product's largest privacy loss, proved in Arb
        (``engines.zero_above_largest_loss``: delta(e) = 0 there), its bound computed once."""
        if not hasattr(self, "_top"):
            with working_precision(mp.prec + 64):
                self._top = largest_loss(self.plan[1])
        if self._top is None:
            return False
        with working_precision(mp.prec + 64):
            return bool(arb(e) >= self._top)  # (exact: a float; True only when proved)


def _tol_options(rel: float) -> pld_options:
    """``pld_options(tol=rel)`` for a ``rel`` already a positive finite float (the band's own
    width), without validating it again (a SymPy decision per delta ball)."""
    ctx = pld_options.__new__(pld_options)
    ctx._new = {"tol": rel}
    return ctx


class _InversionDirection(_RouteDirection):
    """delta(eps) of a product whose certified route is the Laplace inversion of its laws
    (``numeric.cf_route``: laws with a density, or atoms next to them as in Laplace^{(x) k} and
    G (x) Laplace, split into an exactly summed part and an inverted remainder where the
    atoms keep the mgf from decaying), from inverters planned along the grid and reused at
    the eps near them (as ``inversion_curve._Direction``): an inverter's ``parts(eps)`` is a
    certified ball at every eps (its discretisation and truncation bounds are computed there),
    accepted where it meets the relative width; a new one is planned ahead of eps to the
    tighter width ``PLAN_SHARE`` so that it reaches the next points. Where it plans nothing
    (work beyond the route's ``MAX_WORK``, a failed plan) the product's routes answer."""

    def __init__(self, f, plan: tuple, routes: list, rel: float, factors: list,
                 loosest: float | None = None):
        super().__init__(f, plan, routes, rel)
        self.factors = factors
        self.inverters: dict = {}  # eps_0 -> inverter (or None: none affordable there)
        #: the share of the width an inverter is planned to (tighter: it reaches further)
        self.share = PLAN_SHARE
        #: the relative width of delta the :attr:`wide` mode plans for (``tol`` times
        #: :data:`DELTA_LOOSE`: what the band needs, not its share of the secants' grid)
        self.loosest = rel if loosest is None else max(loosest, rel)
        self.largest_first = False  # (anchored inverters: no order to prefer)

    def _ok(self, d: arb) -> bool:
        return float(d.rad()) <= self.rel * abs(float(d.mid())) and d.lower() >= 0

    def _rung(self, e0: float, rel: float) -> bool | None:
        """Whether an inverter planned at e0 to ``rel`` is within the route's work; None where
        the route would sum a part exactly (it costs at every eps what a plan does)."""
        rest, extra = cf_route._split(self.factors, "delta", e0, rel)
        return None if extra is not None else _work(rest, e0, rel) <= MAX_WORK

    @property
    def wide(self) -> bool:
        """Whether the inverters are planned to the loose rung: the plan for ``rel`` (to
        ``share`` of it) is beyond the route's work at eps = 1 and the plan for ``loosest`` (to
        1 / :data:`LADDER_REACH` of it) is not (C_p(G_1)^{(x) 10} at the default tolerance: the
        hull law's transform cannot afford 5e-9 at any eps). Decided at eps = 1 alone, so
        which inverter answers an eps depends on (f, tol) and that eps only."""
        if not hasattr(self, "_wide"):
            self._wide = False
            if self.loosest > self.rel:
                try:
                    with working_precision(64):
                        self._wide = (self._rung(1.0, max(self.rel * self.share, REL_MIN))
                                      is False
                                      and self._rung(1.0, self.loosest / LADDER_REACH) is True)
                except (ValueError, RuntimeError, ArithmeticError, ZeroDivisionError):
                    self._wide = False
        return self._wide

    def _plan(self, e0: float):
        """The inverter planned at e0 (once: kept by e0), or None where it is beyond the
        route's work: to ``share`` of ``rel``, or in the :attr:`wide` mode to 1 /
        :data:`LADDER_REACH` of ``loosest``."""
        if e0 not in self.inverters:
            rel = (self.loosest / LADDER_REACH if self.wide
                   else max(self.rel * self.share, REL_MIN))
            inv = None
            if self._rung(e0, rel):
                rest, extra = cf_route._split(self.factors, "delta", e0, rel)
                inv, _ = cf._certified_inverter(rest, e0, rel, extra)
            self.inverters[e0] = inv
        return self.inverters[e0]

    def _inverted(self, e: float) -> arb | None:
        """delta(e) from the inverter anchored at the next multiple of :data:`ANCHOR` above e,
        else from one planned at e itself: which inverter answers depends on e alone. In the
        :attr:`wide` mode, from the anchor at the next multiple of :data:`WIDE_ANCHOR` (at
        least that) alone, whatever its width there (an inverter keeps a few times its planned
        width over a few units of eps, ``tests/test_profile_ladder.py``: the band says how wide
        it is)."""
        if cf._all_losses_at_most(self.factors, e):
            return arb(0)
        if self.wide:
            inv = self._plan(WIDE_ANCHOR * max(math.ceil(e / WIDE_ANCHOR), 1))
            if inv is None:
                return None
            d = inv.parts(e).delta
            return d if d.lower() >= 0 else None
        for e0 in dict.fromkeys((ANCHOR * math.ceil(e / ANCHOR), e)):
            inv = self._plan(e0)
            if inv is None:
                return None
            d = inv.parts(e).delta
            if self._ok(d):
                return d
        return None

    def _delta(self, e: float) -> arb:
        try:
            with working_precision(64):
                d = self._inverted(e)
        except (ValueError, RuntimeError, ArithmeticError, ZeroDivisionError):
            d = None
        if d is None:
            return super()._delta(e)
        return d

    def delta(self, e: float) -> arb:
        d = super().delta(e)
        trace.note(InversionRoute.name)  # (the route whose machinery gave delta)
        return d


def _inversion_laws(plan: tuple, routes: list) -> list | None:
    """The laws (law, n) of a product whose first certified delta route (past the zero above
    the largest loss) is the Laplace inversion and whose laws the plain inversion takes: one
    product, no mass at +oo, no atoms summed against one L_mu, a decaying mgf, no law of the
    Poisson-subsampled Laplace mechanism's split or with a cut; else None."""
    first = [r for r in routes if not isinstance(r, LossBoundRoute)]
    if not first or not isinstance(first[0], InversionRoute):
        return None
    sets = _cf_laws([plan[1]], atoms=True)
    if sets is None or len(sets) != 1:
        return None
    factors = [(law, int(n)) for law, n in sets[0]]
    with working_precision(64):
        if (not mass_at_infinity(factors).is_zero() or split_factors(factors) is not None
                or not has_decay(factors)
                or any(hasattr(law, a) for law, _ in factors
                       for a in ("lattice_split", "cut_for"))):
            return None
    return factors


def loss_lattice(leaves) -> Lattice | None:
    """The lattice holding every finite privacy loss of the product of ``leaves``, where a
    lattice composition describes it: the exact lattice product's losses (g s + B)/D
    (``numeric.lattice_product``), the Arb and tilted lattice powers' k log R
    (``numeric.lattice_power``, ``numeric.lattice_tilted``: likelihood ratios that are integer
    powers of one R); else None. The lattice is the product's, whichever route gives delta."""
    try:
        lp = lattice_product(leaves)
        if type(lp) is LatticeProduct:  # (a grid product's cells are no lattice of the loss)
            return Lattice(Fraction(lp.B, lp.D), Fraction(lp.g, lp.D))
        lw = lattice_power(leaves)
    except (TradeOffError, ValueError, TypeError, ArithmeticError):
        return None
    if isinstance(lw, (LatticePower, TiltedLatticeProduct)):
        with working_precision(160):
            step = ratio_ball(lw.ratio).log()
        return Lattice(Fraction(0), step) if step > 0 else None
    return None


#: The profiles of the last products asked (their delta routes and the balls computed so far,
#: keyed by the product, the band's tolerance and the precision): a root search that
#: evaluates f at many nearby levels (the fixed point of C_p(f)) computes each grid point's
#: delta once.
_PROFILES: dict = {}
MAX_PROFILES = 8
#: Inverters of a product are planned at the multiples of this eps (and at an eps that its
#: anchor does not serve), so each ball of delta depends on its eps alone.
ANCHOR = 0.5
#: Where an inverter for the band's delta width is beyond the route's work
#: (``_InversionDirection.wide``), the inverters are planned to 1 / LADDER_REACH of
#: DELTA_LOOSE times the band's tolerance, anchored at the multiples of WIDE_ANCHOR.
LADDER_REACH = 10.0
WIDE_ANCHOR = 3.0
DELTA_LOOSE = 0.2
#: Bands tried for one value, each with a tighter tolerance where f's relative width misses.
BAND_TRIES = 4


class _Mirrored:
    """The profiles of a product not known to be symmetric and of its inverse (the branch h_2
    of ``numeric.profile_band.band`` takes the inverse's: Dong, Roth & Su, Prop. 6, for any
    pair): ``first`` and ``second``, each a :class:`_RouteDirection`."""

    def __init__(self, first: _RouteDirection, second: _RouteDirection):
        self.first, self.second = first, second
        self.plan = first.plan  # (the product's leaves: its singular mass, its factors)


def _shared(d: _Mirrored) -> bool:
    """Whether both profiles come from inverters shared across eps (``_InversionDirection``)."""
    return isinstance(d.first, _InversionDirection) and isinstance(d.second, _InversionDirection)


def _inverse_product(leaves):
    """The product of the inverses of ``leaves`` (a symmetric leaf is its own inverse), whose
    profile is f^{-1}'s for f the product of ``leaves`` ((f (x) g)^{-1} = f^{-1} (x) g^{-1}:
    the pair (P1 x P2, Q1 x Q2) reversed is the product of the reversed pairs)."""
    g = None
    for x, n in leaves:
        y = x if x.is_symmetric is True else Inverse(x)
        y = y if int(n) == 1 else TensorPower(y, int(n))
        g = y if g is None else Tensor(g, y)
    return g


def _direction(f, tol: float) -> _RouteDirection | _Mirrored | None:
    """The certified profile of ``f`` when f is a product with a certified route of delta: a
    product known to be symmetric (its profile's envelope is f, Prop. 6) alone, another with
    the profile of its inverse (:class:`_Mirrored`); else None. delta is asked to a small
    share of the band's ``tol`` (the secants divide its width by the grid step)."""
    if not isinstance(f, (Tensor, TensorPower)):
        return None
    key = (f, tol, mp.prec)  # (the routes' widths follow the working precision)
    if key in _PROFILES:
        return _PROFILES[key]
    d = _one_direction(f, tol)
    if d is not None and f.is_symmetric is not True:
        leaves = pld_leaves(f)
        g = None if leaves is None else _inverse_product(leaves)
        d2 = None if g is None else _one_direction(g, tol)
        d = None if d2 is None else _Mirrored(d, d2)
    if len(_PROFILES) >= MAX_PROFILES:
        _PROFILES.clear()
    _PROFILES[key] = d
    return d


def _one_direction(f, tol: float) -> _RouteDirection | None:
    """The certified profile of the product ``f`` (its delta routes), or None."""
    if not isinstance(f, (Tensor, TensorPower)):
        return None
    plan = route(f)
    if plan[0] != "pld":
        return None
    rs = [r for r in routes_for(f, "delta") if not isinstance(r, (PLDRoute, ProfileBandRoute))]
    rel = max(tol * DELTA_SHARE, REL_MIN)
    if not rs:
        return None
    laws = _inversion_laws(plan, rs)
    return (_RouteDirection(f, plan, rs, rel) if laws is None
            else _InversionDirection(f, plan, rs, rel, laws, tol * DELTA_LOOSE))


def _end(x: np.ndarray, tol: float) -> float:
    """The end of the eps grid: beyond log(1/alpha_min), alpha e^eps >= 1 bounds h_1 above the
    power, and beyond log(2/tol) the second branch gains less than tol/2
    (``numeric.profile_band``); the band is certified whatever the end. log(2/tol) + 1, doubled
    until it passes log(1/alpha_min) + 1: few distinct grids, so the balls kept from earlier
    calls serve the next levels."""
    pos = x[x > 0]
    alpha_min = float(pos.min()) if pos.size else 0.5
    base = math.log(2 / tol) + 1
    need = math.log(1 / alpha_min) + 1
    return base if need <= base else base * 2 ** math.ceil(math.log2(need / base))


def _band(d: _RouteDirection | _Mirrored, x: np.ndarray, tol: float,
          progress=None) -> Band | None:
    try:
        if isinstance(d, _Mirrored):
            return grid_band([d.first], x, tol, _end(x, tol), progress, mirror=[d.second])
        return grid_band([d], x, tol, _end(x, tol), progress)
    except (_NoProfile, ValueError, ArithmeticError, ZeroDivisionError):
        return None


def _cells_law(f, single: bool = False) -> tuple | None:
    """(law, T) where the product f is the T-fold power of one law with the cells of its loss
    (``loss_cells``: the Poisson-subsampled Laplace mechanism's, either direction, as in
    Mix(Laplace(1), 1/3)^{(x) 10}) and no mass at +oo; else None. Its whole curve is then
    bounded from one composed lattice (``numeric.cells_curve``), both directions at once.
    ``single``: f may also be that one law itself (T = 1: the add/remove hull of one step)."""
    if not (isinstance(f, (Tensor, TensorPower)) or single):
        return None
    try:
        plan = route(f)
        if single and plan[0] == "node" and plan[1] == f:  # (equal, not only the same
            # object: route() is cached by equality and returns the first equal tree's plan)
            plan = ("pld", ((f, 1),))
        if plan[0] != "pld":
            return None
        sets = _cf_laws([plan[1]], atoms=True)
    except (TradeOffError, ValueError, TypeError, ArithmeticError):
        return None
    if sets is None or len(sets) != 1 or len(sets[0]) != 1:
        return None
    law, n = sets[0][0]
    if int(n) < 1:
        return None
    with working_precision(64):
        if not mass_at_infinity([(law, int(n))]).is_zero():
            return None
    if not hasattr(law, "loss_cells"):
        law = _normal_cells(plan[1])  # (the subsampled Gaussian's cells, cut tail and all)
    return None if law is None else (law, int(n))


def _normal_cells(leaves) -> NormalMixtureCells | None:
    """The cells of Mix(G_mu, q), of its inverse or of C_q(G_mu) where the product's one leaf is
    one of them (``numeric.cells_normal``: mu from ``gaussian_form``), else None."""
    if len(leaves) != 1:
        return None
    leaf = leaves[0][0]
    if isinstance(leaf, Subsample):  # C_q(G_mu): its pair by Eq. (13) (numeric.cells_normal)
        mu = gaussian_form(leaf.arg)
        try:
            return None if mu is None else NormalMixtureCells(mu, leaf.p, True, hull=True)
        except (ValueError, TypeError, ArithmeticError):
            return None
    remove = not isinstance(leaf, Inverse)
    mix = leaf if remove else leaf.args[0]
    if not isinstance(mix, Mix):
        return None
    mu = gaussian_form(mix.arg)
    try:
        return None if mu is None else NormalMixtureCells(mu, mix.p, remove)
    except (ValueError, TypeError, ArithmeticError):
        return None


def _cells_curve(f, x: np.ndarray, tol: float, measure: str) -> Band | None:
    """The band of ``numeric.cells_curve`` where f is a power of one law with loss cells
    (:func:`_cells_law`) and the band is within ``tol`` or at least the default tolerance
    (a tighter ``tol`` that the largest lattice misses is answered certified with a
    ToleranceWarning), else None."""
    got = _cells_law(f)
    if got is None:
        return None
    law, n = got
    b = cells_band(law, n, x, tol, measure)
    if b is None or float(np.max(widths(b, x, measure), initial=0.0)) > max(tol, DEFAULT_TOL):
        # (wider than the default tolerance asks, where the lattice the grid allows is too
        # coarse for many steps: the other routes answer, as before)
        return None
    trace.note(CELLS_CURVE_ROUTE)
    return b


def profile_curve_band(f, alphas: np.ndarray, tol: float = 1e-3,
                       progress: bool | None = None) -> Band | None:
    """The certified band of f at the levels ``alphas`` from its certified profile (module
    docstring), with a ToleranceWarning where it stays wider than ``tol``; None where the
    route does not apply."""
    x = np.asarray(alphas, dtype=np.float64)
    b = _cells_curve(f, x.ravel(), tol, "curve")
    if b is not None:  # (one composed lattice bounds the whole curve: no grid of eps)
        zero = x.ravel() == 0  # (no mass at +oo, _cells_law: f(0) = 1 exactly)
        b.f_lo[zero], b.f_hi[zero], b.power_lo[zero], b.power_hi[zero] = 1.0, 1.0, 0.0, 0.0
        b = Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))
        _warn_if_wide(b, x, tol)
        return b
    d = _direction(f, tol)
    if d is None or isinstance(d, _Mirrored) and not _shared(d):
        # (an asymmetric product's two profiles from per-eps plans: the minimisers of 101
        # levels ask too many balls, Mix(Laplace(1), 1/3)^{(x) 10} past 120 s; the PLD engine's
        # curve, an estimate, says so)
        return None
    x = np.asarray(alphas, dtype=np.float64)
    b = _band(d, x.ravel(), tol, progress)
    if b is None:
        return None
    if _no_singular_mass(d.plan[1]):  # f(0) = 1 exactly (no grid of eps decides it)
        zero = x.ravel() == 0
        b.f_lo[zero], b.f_hi[zero], b.power_lo[zero], b.power_hi[zero] = 1.0, 1.0, 0.0, 0.0
    b = Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))
    _warn_if_wide(b, x, tol)
    return b


def _factor_bound(leaves, q: Fraction, power: bool):
    """``f <= f_i`` for each factor f_i of the product f (Dong, Roth & Su, Sec. 3.1, properties 2
    and 3: ``f_i (x) g <= f_i (x) Id = f_i``): the least upper end of the Arb balls of the
    leaves' values at alpha = ``q`` (``power``: the greatest lower end of their powers), an exact
    mpf (no float underflow), or None where no leaf has a ball form. It decides values far
    below the band's absolute width (G_40 (x) f_{21,0} at 1/2: 3.7e-350)."""
    best = None
    with working_precision(96):
        a = arb(fmpq(q.numerator, q.denominator))
        for leaf, _ in leaves:
            b = arb_value(leaf, a, 1 - a, power)
            if b is None or not b.is_finite():
                continue
            man, exp = (b.lower() if power else b.upper()).man_exp()
            x = mp.mpf((int(man), int(exp)))
            best = x if best is None else (max(best, x) if power else min(best, x))
    return best


def _no_singular_mass(leaves) -> bool:
    """Whether f(0) = 1 for the product of ``leaves``: every factor's f_i(0) is exactly one
    (its Q-mass where P = 0 is zero), so the test of size 0 has power 0 (Dong, Roth & Su,
    Def. 5: the product's Q-mass where P = 0 is 1 - prod (1 - Q_i(P_i = 0))^{n_i})."""
    for leaf, _ in leaves:
        lo, hi = mp_roc(leaf, mp.zero, mp.one)
        if not lo == hi == 0:
            return False
    return True


class ProfileBandRoute(Route):
    """f(alpha) and its power 1 - f(alpha) of a symmetric product from the band of its
    certified privacy profile (module docstring), at the two floats around alpha (f is
    non-increasing, its power non-decreasing), to the relative width of ``pld_options``."""

    name = ROUTE
    questions = ("value", "roc")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and any(r.supports(plan, "delta") for r in ROUTES
                        if not isinstance(r, (PLDRoute, ProfileBandRoute))
                        and "delta" in r.questions))

    def cost(self, plan, question):
        return 5.0

    def enclose(self, f, plan, question, a, ac):
        if not (0 < a < 1):
            return PASS
        tol = max(options()["tol"], BAND_TOL_MIN)
        fa = float(a)
        q = _fraction(a)
        lo_a = fa if Fraction(fa) <= q else math.nextafter(fa, 0.0)
        hi_a = fa if Fraction(fa) >= q else math.nextafter(fa, 1.0)
        power = question == "roc"
        b = _cells_curve(f, np.array([lo_a, hi_a]), tol, question)
        if b is not None:
            lo, hi = ((b.power_lo[0], b.power_hi[1]) if power else (b.f_lo[1], b.f_hi[0]))
            return self._certified(f, a, q, lo, hi, tol, power, plan[1])
        d = _direction(f, tol)
        if d is None or isinstance(d, _Mirrored) and not _shared(d):
            return PASS  # (per-eps plans of two profiles: seconds where the PLD engine answers)
        band_tol = tol  # (the band's tolerance is absolute in f: a small f asks for a tighter one)
        for _ in range(BAND_TRIES):
            b = _band(d, np.array([lo_a, hi_a]), band_tol)
            if b is None:
                return PASS
            if power:
                lo, hi = b.power_lo[0], b.power_hi[1]
                if lo <= fa and hi >= 1:  # (nothing learnt: between Id and 0)
                    return PASS
            else:
                lo, hi = b.f_lo[1], b.f_hi[0]
                if lo <= 0 and hi >= 1 - fa:
                    return PASS
            if hi - lo <= tol * abs(hi) or band_tol <= BAND_TOL_MIN:
                break
            band_tol = max(band_tol * max(tol * abs(hi) / (hi - lo), 1e-3) / 2, BAND_TOL_MIN)
        return self._certified(f, a, q, lo, hi, tol, power, d.plan[1])

    @staticmethod
    def _certified(f, a, q, lo, hi, tol, power, leaves):
        """The pair (lo, hi) narrowed by the factors' bound (:func:`_factor_bound`), with a
        ToleranceWarning where it is wider than ``tol``."""
        lo, hi = mp.mpf(lo), mp.mpf(hi)
        bound = _factor_bound(leaves, q, power)
        if bound is not None:  # (f (x) g <= f: far below what the band resolves, it decides)
            lo, hi = (max(lo, bound), max(hi, bound)) if power else (min(lo, bound), min(hi, bound))
        if hi - lo > tol * abs(hi):
            warnings.warn(f"{'power' if power else 'f'}({mp.nstr(a, 12)}) of {f}: the certified "
                          f"band of the privacy profile reaches the relative width "
                          f"{float((hi - lo) / abs(hi)):.2g}, above tol = {tol:g} (pld_options)",
                          ToleranceWarning, stacklevel=7)
        return CertifiedPair(lo, hi)


ROUTES.insert(next(i for i, r in enumerate(ROUTES) if isinstance(r, PLDRoute)),
              ProfileBandRoute())
CURVE_BANDS.append(profile_curve_band)
