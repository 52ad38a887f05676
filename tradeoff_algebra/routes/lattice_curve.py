"""The power, values and whole curves of lattice products from their Neyman-Pearson vertices.

A product whose privacy loss lives on a lattice (the exact lattice product of discrete
Gaussians, discrete Laplaces and randomized response with rational eps; the Arb and tilted
lattice powers of finite pairs whose likelihood ratios are powers of one R) has a
piecewise-linear trade-off curve with vertices (P(L >= l), Q(L >= l)) at its lattice losses l
(Dong, Roth & Su, Prop. 6). ``numeric.lattice_np`` reads 1 - f(alpha) from the tails at the
vertex around alpha, certified; ``numeric.lattice_np_plan`` gives those tails from one root of
the product tree (the same tree the privacy profile builds), planned for the levels asked. So
roc(alpha) and a whole curve cost one root each, where the band of the privacy profile
(``routes.profile_curve``, the next route) asked delta at a grid of eps. A product of discrete
Gaussians on one lattice whose shortcut holds takes no root: its tails are one discrete
Gaussian's scaled by the proved factor (``families.discrete_gaussian_np``). A product off any
lattice whose object gives its power itself (``power_ball``: discrete Gaussians off a grid, the
G_mu curve within a uniform aliasing bound, ``families.discrete_gaussian_offgrid``) is answered
from it (:func:`off_grid_law`).

:class:`LatticeNPRoute` answers ``value`` and ``roc`` of such products (before the profile
band); :func:`lattice_curve_band` gives the band of a whole curve (first of
``numeric.curves.CURVE_BANDS``). Either hands the question on where the product is no such
lattice, the window is too large or the result misses the tolerance.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import NumericalError, TradeOffError
from ..numeric import budget
from ..numeric.arb import arb_endpoint
from ..numeric.arb_expr import ball_point
from ..numeric.cf_laws import lower, upper, working_precision
from ..numeric.context import arb_precision, mp
from ..numeric.curves import BAND_TOL_MIN, CURVE_BANDS
from ..numeric.finite import finite_loss
from ..numeric.finite_np import finite_tails
from ..numeric.lattice_np import np_band, np_tails, power_ball
from ..numeric.lattice_np_plan import tails_for
from ..numeric.lattice_power import LatticePower
from ..numeric.lattice_product import MAX_FACTORS, LatticeProduct, arb_of, mpf_fraction
from ..numeric.lattice_tilted import TiltedLatticeProduct
from ..numeric.lattice_two import two_lattice_product
from ..numeric.options import options
from ..numeric.profile_band import Band
from ..numeric.protocol import GUARD_DPS, POINT_ROUTES
from ..numeric.value import CertifiedPair, Value
from ..operators.tensor import Tensor, TensorPower
from .grid_band import _too_wide, _warn_if_wide
from .plan import lattice_power
from .product import PASS, ROUTES, Route, lattice_product, route

__all__ = ["LatticeNPRoute", "lattice_curve_band", "lattice_law", "lattice_point", "ROUTE"]

#: The name of this route (``Value.route``).
ROUTE = "Neyman-Pearson vertices of the lattice law (certified)"
#: Plans tried, each with more window and precision (``lattice_np_plan.tails_for``'s extra).
TRIES = 3


def lattice_law(leaves):
    """The lattice law of the product of ``leaves`` (the exact lattice product, the tilted or
    Arb lattice power), or None."""
    try:
        lp = lattice_product(leaves)
        if type(lp) is LatticeProduct and lp.count <= MAX_FACTORS:
            return lp
        if two_lattice_product(leaves) is not None:  # (two lattices, decided in floats: the
            return None  # plan's proof that the ratios share no base would call SymPy)
        lw = lattice_power(leaves)
    except (TradeOffError, ValueError, TypeError, ArithmeticError):
        return None
    return lw if isinstance(lw, (LatticePower, TiltedLatticeProduct)) else None


def off_grid_law(leaves):
    """The product of ``leaves`` off any lattice whose object gives the power itself
    (``power_ball(alpha, alpha_f, rel_tol)``: discrete Gaussians off a grid,
    ``families.discrete_gaussian_offgrid``), or None."""
    try:
        lp = lattice_product(leaves)
    except (TradeOffError, ValueError, TypeError, ArithmeticError):
        return None
    return lp if callable(getattr(lp, "power_ball", None)) else None


def _rel() -> float:
    """The caller's digits (the working precision less its guard digits), and one more (as
    the lattice product's delta route)."""
    return 10.0 ** -max(mp.dps - GUARD_DPS + 1, 4)


class LatticeNPRoute(Route):
    """f(alpha) and 1 - f(alpha) of a lattice product from its Neyman-Pearson vertices (module
    docstring), certified."""

    name = ROUTE
    questions = ("value", "roc")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and (lattice_law(plan[1]) is not None or off_grid_law(plan[1]) is not None))

    def cost(self, plan, question):
        return 4.0  # (before the band of the privacy profile, 5.0)

    def enclose(self, f, plan, question, a, ac):
        if not (0 < a < 1):
            return PASS
        law = lattice_law(plan[1])
        og = off_grid_law(plan[1]) if law is None else None
        if law is None and og is None:
            return PASS
        tol = max(options()["tol"], 1e-15)
        rel = min(_rel(), tol / 4)
        A = mpf_fraction(mp.mpf(a))
        power = question == "roc"
        with budget.about(question, f):
            best = None
            for extra in range(TRIES):
                if og is not None:  # (its power directly, at rel; one try)
                    if extra:
                        break
                    with working_precision(int(-math.log2(rel)) + 128):
                        b = og.power_ball(arb_of(A), float(a), rel, of_f=not power)
                        if b is None:
                            break
                        lo, hi = b
                        if not power:
                            lo, hi = arb((1 - hi).lower()), arb((1 - lo).upper())
                    best = (lo, hi)
                    break
                try:
                    t = tails_for(law, [float(a)], rel, extra)
                except (NumericalError, OverflowError, ZeroDivisionError, ValueError):
                    t = None
                if t is None:
                    break
                with working_precision(t.prec + 64):
                    lo, hi = power_ball(t, arb_of(A), float(a))
                    if not power:
                        lo, hi = arb((1 - hi).lower()), arb((1 - lo).upper())
                    width = hi - lo
                if best is None or width < best[1] - best[0]:
                    best = (lo, hi)
                if width <= arb(rel) * hi or hi.is_zero():
                    break
            if best is None:
                return PASS
        lo, hi = best
        if not (hi - lo <= arb(tol) * hi or hi.is_zero()):
            return PASS  # (the band of the profile may do better)
        with arb_precision(mp.prec + 64):
            lo_m = max(arb_endpoint(lo, round_floor), mp.zero)
            hi_m = min(arb_endpoint(hi, round_ceiling), mp.one)
        return CertifiedPair(lo_m, max(hi_m, lo_m))


#: The most units of the exact table's cost (``FiniteLoss.cost``) built for a curve of a node
#: that has its own values (BinomialDP(1/10, 10^5): 2.7 s of exact arithmetic for a table its
#: closed form does not need).
NODE_TABLE_UNITS = 200_000


def _finite_band(f, plan, x: np.ndarray, tol: float) -> Band | None:
    """The band of a finite product (or a node with an affordable finite loss) from one pass
    over its atoms (``numeric.finite_np``), or None."""
    if plan[0] == "finite":
        fl = plan[1]
    elif plan[0] == "node" and not isinstance(plan[1], (Tensor, TensorPower)):
        try:
            fl = finite_loss(plan[1])
        except TradeOffError:
            return None
        if fl is None or fl.cost(NODE_TABLE_UNITS) is None:
            return None
    else:
        return None
    if not fl.is_rational and fl._op_count() <= 4 * fl.ARB_SYMBOLIC_ATOMS:
        return None  # (its balls would come from a SymPy table: the points are cheaper)
    prec = 64 + int(-math.log2(tol))
    b = None
    for _ in range(TRIES):
        try:
            t = finite_tails(fl, prec)
        except TradeOffError:
            return None
        if t is None:
            return None
        new = np_band(t, x.ravel())
        b = new if b is None else b.intersect(new)
        if not _too_wide(b, x.ravel(), tol).any():
            break
        prec *= 2
    return b


def lattice_curve_band(f, alphas: np.ndarray, tol: float = 1e-3,
                       progress: bool | None = None) -> Band | None:
    """The certified band of a lattice product's curve at the levels ``alphas`` (module
    docstring), or of a finite product's from its atoms, with a ToleranceWarning where it stays
    wider than ``tol``; None where the route does not apply."""
    x = np.asarray(alphas, dtype=np.float64)
    tol = max(tol, BAND_TOL_MIN)
    if not isinstance(f, (Tensor, TensorPower)):
        b = _node_band(f, x, tol)  # (a family whose law is a lattice: BinomialDP)
        if b is not None:
            _warn_if_wide(b, x, tol)
        return b
    plan = route(f)
    b = _node_band(plan[1], x, tol) if plan[0] == "node" else None
    if b is None:
        b = _finite_band(f, plan, x, tol)
    if b is None and plan[0] == "pld":
        b = _lattice_band(lattice_law(plan[1]), x, tol)
    if b is None and plan[0] == "pld":
        b = _off_grid_band(off_grid_law(plan[1]), x, tol)
    if b is None:
        return None
    b = Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))
    _warn_if_wide(b, x, tol)
    return b


def _inner_levels(x: np.ndarray) -> list[float]:
    """The levels strictly inside (0, 1) as floats (one vectorised pass: a Python loop over
    10^6 levels cost 0.6 s before a family declined them), or [0.5] where there are none."""
    xs = np.asarray(x, dtype=float).ravel()
    return xs[(xs > 0) & (xs < 1)].tolist() or [0.5]


def _node_band(g, x: np.ndarray, tol: float) -> Band | None:
    """The band of a node whose family gives its Neyman-Pearson tails
    (``numeric.lattice_np.np_tails``), or None."""
    if np_tails.dispatch(type(g)) is np_tails.dispatch(object):
        return None  # (no family tails: the levels are not listed)
    inner = _inner_levels(x)
    try:
        t = np_tails(g, inner, tol / 4)
    except (TradeOffError, OverflowError, ZeroDivisionError, ValueError):
        return None
    if t is None:
        return None
    b = np_band(t, x.ravel())
    return Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))


def _lattice_band(law, x: np.ndarray, tol: float) -> Band | None:
    if law is None:
        return None
    inner = _inner_levels(x)
    b = None
    for extra in range(TRIES):
        try:
            t = tails_for(law, inner, tol / 4, extra)
        except (NumericalError, OverflowError, ZeroDivisionError, ValueError):
            t = None
        if t is None:
            break
        new = np_band(t, x.ravel())
        b = new if b is None else b.intersect(new)
        if not _too_wide(b, x.ravel(), tol).any():
            break
    return b


def _off_grid_band(law, x: np.ndarray, tol: float) -> Band | None:
    """The band from the power of a product off any lattice at each level
    (``off_grid_law``: its ``power_ball``), or None where a level is not reached."""
    if law is None:
        return None
    xs = x.ravel()
    p_lo, p_hi = np.zeros_like(xs), np.ones_like(xs)
    f_lo, f_hi = np.zeros_like(xs), np.ones_like(xs)
    with working_precision(int(-math.log2(tol)) + 128):
        for i, a in enumerate(xs):
            if i % 16 == 0:
                budget.check()
            if a <= 0:  # (f(0) = 1: no factor has a singular part)
                p_hi[i] = 0.0
                continue
            if a >= 1:
                f_hi[i] = 0.0
                p_lo[i] = 1.0
                continue
            b = law.power_ball(arb(float(a)), float(a), tol / 4, of_f=False)  # (f: absolute)
            if b is None:
                return None
            lo, hi = b
            p_lo[i], p_hi[i] = max(lower(lo), 0.0), min(upper(hi), 1.0)
            f_lo[i], f_hi[i] = max(lower(1 - hi), 0.0), min(upper(1 - lo), 1.0)
    f_hi = np.minimum(f_hi, np.where(xs < 1, np.nextafter(1.0 - xs, np.inf), 0.0))
    return Band(f_lo, np.maximum(f_hi, f_lo), p_lo, np.maximum(p_hi, p_lo))


def lattice_point(f, A, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) of a lattice product at a rational level 0 < A < 1 as a
    certified point (``numeric.arb_expr.ball_point``: the vertices' ball at rising precision),
    or None where the product is no lattice law here (a point route of ``numeric.protocol``,
    tried before the inversion's band: ``POINT_ROUTES``)."""
    if not isinstance(f, (Tensor, TensorPower)) or not 0 < A < 1:
        return None
    plan = route(f)
    if plan[0] != "pld":
        return None
    law = lattice_law(plan[1])
    og = off_grid_law(plan[1]) if law is None else None
    if law is None and og is None:
        return None
    q = Fraction(int(A.p), int(A.q))
    a = float(q)
    names = [ROUTE]

    def make_ball(prec: int):
        if og is not None:  # (its power directly)
            with working_precision(prec + 64):
                b = og.power_ball(arb_of(q), a, max(2.0 ** -prec, 1e-300), of_f=not power)
                if b is None:
                    return None
                names[:] = [getattr(og, "power_route", ROUTE)]
                ball = b[0].union(b[1])
                return ball if power else 1 - ball
        try:
            t = tails_for(law, [a], max(2.0 ** -prec, 1e-300))
        except (NumericalError, OverflowError, ZeroDivisionError, ValueError):
            return None
        if t is None:
            return None
        if getattr(t, "route", None) and t.route not in names:
            names.insert(0, t.route)  # (a shortcut's tails: ``discrete_gaussian_np``)
        with working_precision(t.prec + 64):
            lo, hi = power_ball(t, arb_of(q), a)
            ball = lo.union(hi)
            return ball if power else 1 - ball

    with budget.about("roc" if power else "value", f):
        v = ball_point(make_ball, dps, MAX_BITS, unit=True)
    return None if v is None else v.routed(" + ".join(names))


#: The most bits the point route's precision loop goes to.
MAX_BITS = 1 << 11

ROUTES.insert(0, LatticeNPRoute())
CURVE_BANDS.insert(0, lattice_curve_band)
# (after the exact finite composition's Arb route, before the inversion's band)
_at = next((i + 1 for i, r in enumerate(POINT_ROUTES) if r.__name__ == "_finite_point"),
           len(POINT_ROUTES))
POINT_ROUTES.insert(_at, lattice_point)
