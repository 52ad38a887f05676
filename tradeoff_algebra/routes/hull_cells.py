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
import warnings
from fractions import Fraction

import numpy as np
from flint import arb

from ..core import trace
from ..numeric.cells_curve import CellCurve, cells_band, widths
from ..numeric.cf_laws import upper, working_precision
from ..numeric.curves import CURVE_BANDS
from ..numeric.offer import Offer
from ..numeric.options import options
from ..numeric.profile_band import Band, _upper_hull, point_band
from ..numeric.protocol import POINT_ROUTES, short
from ..operators.unary import SymmetricHull
from .engines import hull_directions
from .grid_band import _warn_if_wide
from .inversion_curve import hull_point, inversion_band
from .profile_curve import _cells_law
from .tail_laws import band_value, floats_around

__all__ = ["HullCurve", "hull_cells_band", "hull_cells_point", "ROUTE"]

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
        a0 = u0 * math.exp(-cc.g[0]) if n else 0.0
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
        out = {}
        for e, (i, j) in idx.items():
            v = arb(e).exp()
            d1 = arb(int(cc.su[i + 1])) * scale - v * tails[i]
            d2 = 1 - v + v * (arb(int(cc.su[j + 1])) * scale) - tails[j]
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


def _hull_law(f) -> tuple | None:
    """(law, T) where f = C(g), g the T-fold power of one law with loss cells of its own (no
    cut tail: ``for_levels``, ``cells_slack``), else None."""
    if not isinstance(f, SymmetricHull) or hull_directions(f) is None:
        return None
    g = f.arg
    got = _cells_law(g)
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


# (before the inversion's: a hull of cells declines there only after planning its inverters)
CURVE_BANDS.insert(CURVE_BANDS.index(inversion_band), hull_cells_band)
POINT_ROUTES.insert(POINT_ROUTES.index(hull_point), hull_cells_point)
