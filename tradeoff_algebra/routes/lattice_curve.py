"""The power, values and whole curves of lattice products from their Neyman-Pearson vertices.

A product whose privacy loss lives on a lattice (the exact lattice product of discrete
Gaussians, discrete Laplaces and randomized response with rational eps; the Arb and tilted
lattice powers of finite pairs whose likelihood ratios are powers of one R) has a
piecewise-linear trade-off curve with vertices (P(L >= l), Q(L >= l)) at its lattice losses l
(Dong, Roth & Su, Prop. 6). ``numeric.lattice_np`` reads 1 - f(alpha) from the tails at the
vertex around alpha, certified; ``numeric.lattice_np_plan`` gives those tails from one root of
the product tree (the same tree the privacy profile builds), planned for the levels asked. So
roc(alpha) and a whole curve cost one root each, where the band of the privacy profile
(``routes.profile_curve``, the next route) asked delta at a grid of eps.

:class:`LatticeNPRoute` answers ``value`` and ``roc`` of such products (before the profile
band); :func:`lattice_curve_band` gives the band of a whole curve (first of
``numeric.curves.CURVE_BANDS``). Either hands the question on where the product is no such
lattice, the window is too large or the result misses the tolerance.
"""

from __future__ import annotations

import numpy as np
from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import NumericalError, TradeOffError
from ..numeric import budget
from ..numeric.arb import arb_endpoint
from ..numeric.cf_laws import working_precision
from ..numeric.context import arb_precision, mp
from ..numeric.curves import BAND_TOL_MIN, CURVE_BANDS
from ..numeric.lattice_np import np_band, power_ball
from ..numeric.lattice_np_plan import tails_for
from ..numeric.lattice_power import LatticePower
from ..numeric.lattice_product import MAX_FACTORS, LatticeProduct, arb_of, mpf_fraction
from ..numeric.lattice_tilted import TiltedLatticeProduct
from ..numeric.options import options
from ..numeric.profile_band import Band
from ..numeric.protocol import GUARD_DPS
from ..numeric.value import CertifiedPair
from ..operators.tensor import Tensor, TensorPower
from .grid_band import _too_wide, _warn_if_wide
from .plan import lattice_power
from .product import PASS, ROUTES, Route, lattice_product, route

__all__ = ["LatticeNPRoute", "lattice_curve_band", "lattice_law", "ROUTE"]

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
        lw = lattice_power(leaves)
    except (TradeOffError, ValueError, TypeError, ArithmeticError):
        return None
    return lw if isinstance(lw, (LatticePower, TiltedLatticeProduct)) else None


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
                and lattice_law(plan[1]) is not None)

    def cost(self, plan, question):
        return 4.0  # (before the band of the privacy profile, 5.0)

    def enclose(self, f, plan, question, a, ac):
        if not (0 < a < 1):
            return PASS
        law = lattice_law(plan[1])
        if law is None:
            return PASS
        tol = max(options()["tol"], 1e-15)
        rel = min(_rel(), tol / 4)
        A = mpf_fraction(mp.mpf(a))
        power = question == "roc"
        with budget.about(question, f):
            best = None
            for extra in range(TRIES):
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


def lattice_curve_band(f, alphas: np.ndarray, tol: float = 1e-3,
                       progress: bool | None = None) -> Band | None:
    """The certified band of a lattice product's curve at the levels ``alphas`` (module
    docstring), with a ToleranceWarning where it stays wider than ``tol``; None where the
    route does not apply."""
    if not isinstance(f, (Tensor, TensorPower)):
        return None
    plan = route(f)
    if plan[0] != "pld":
        return None
    law = lattice_law(plan[1])
    if law is None:
        return None
    x = np.asarray(alphas, dtype=np.float64)
    inner = [float(v) for v in x.ravel() if 0 < v < 1] or [0.5]
    tol = max(tol, BAND_TOL_MIN)
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
    if b is None:
        return None
    b = Band(*(v.reshape(x.shape) for v in (b.f_lo, b.f_hi, b.power_lo, b.power_hi)))
    _warn_if_wide(b, x, tol)
    return b


ROUTES.insert(0, LatticeNPRoute())
CURVE_BANDS.insert(0, lattice_curve_band)
