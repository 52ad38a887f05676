"""The laws of products with a Laplace factor prepared for the certified loss tails of
``numeric.cf_tails``: the Neyman-Pearson points of G (x) Laplace and Laplace^{(x) k} from one
tail inversion per point, as for DP-SGD (``routes.inversion_curve``).

The tails' truncation bound needs a power decay |M(c + it)| <= V / t^P of the product's moment
generating function (``cf_tails``: the kernel 1/z alone is not summable). A Laplace factor has
none (its atoms at +-mu: |M| returns near M(c) / (1 + mu/2) at every t = n pi / mu), and the
Gaussian law states none although its decay is Gaussian. Two ways to one:

* **A Gaussian factor** G_mu (``numeric.capability.gaussian_form``: the node is G_mu itself):
  its loss is N(mu^2/2, mu^2) under A, so M(z) = exp(mu^2 z (z + 1) / 2),
  |M(c + it)| = M(c) e^{-mu^2 t^2 / 2}, and sup_t t^2 e^{-mu^2 t^2 / 2} = 2 / (e mu^2) (at
  t^2 = 2 / mu^2) gives |M(c + it)| <= (2 M(c) / (e mu^2)) / t^2: a power decay of order 2
  (:class:`PoweredGaussian`, with M(c) the law's own Arb ball and mu^2 = 2 log M(c) / (c (c + 1))
  from it). The Laplace factors then enter with their decay bound D(t) (a supremum over
  t' >= t), and the product's tails are certified whole.
* **Many Laplace factors alone** (the self-product of one lattice law): the lattice part of
  the binomial split bounded by its mass, the remainder inverted
  (``numeric.cf_split_tails``), where that mass is below the share asked.

Few Laplace factors alone (the atoms not negligible): :func:`lattice_point`, a point route of
``evaluate`` and ``roc``, brackets the level between two certified Neyman-Pearson points of
exactly summed terms plus an inverted remainder (``numeric.cf_lattice_tails``), and
:func:`lattice_curve`, a band route of ``curve``, takes one set of those tails for every level
(``numeric.cf_lattice_curve``: one certified point at each level's threshold, two beside an
atom). Few Laplace factors of different scales (no Gaussian factor): every term of the product
summed exactly (``numeric.cf_mixed_tails``), their curves by the same band
(:func:`mixed_curve`) and their values by the band at the two floats around the level
(:func:`mixed_point`). Many factors whose scales lie on one grid (a hundred) take the same band on
the split of ``numeric.cf_mixed_grid_tails``: the terms with few density components summed on
the grid, the rest inverted (route :data:`MIXED_GRID_ROUTE`).

:func:`tail_sets` returns the prepared sets with each one's split order (None: whole), or None
where neither applies (the products keep their profile routes, ``routes.profile_curve``).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
from flint import acb, arb

from ..core.errors import ToleranceWarning
from ..numeric import budget, pld
from ..numeric.capability import gaussian_form
from ..numeric.cf_lattice import split_terms
from ..numeric.cf_lattice_curve import tails_band
from ..numeric.cf_lattice_tails import LatticeTails, eps_guess, lattice_power_at
from ..numeric.cf_laws import working_precision
from ..numeric.cf_mixed_grid_tails import FIRST_SCALE
from ..numeric.cf_mixed_tails import MixedTails, every_term_exact, mixed_factors
from ..numeric.cf_route import MAX_SPLIT, REL_MIN
from ..numeric.cf_split_tails import split_order
from ..numeric.context import mp
from ..numeric.curves import CURVE_BANDS
from ..numeric.options import options
from ..numeric.profile_band import Band
from ..numeric.protocol import POINT_ROUTES
from ..numeric.value import Value
from ..operators.tensor import Tensor, TensorPower
from .engines import _cf_laws
from .grid_band import _warn_if_wide
from .plan import pld_leaves

#: The lattice part of a split self-product may be this fraction of the tolerance times the
#: least level (or 1 - the largest) asked (``routes.inversion_curve`` and :func:`lattice_point`).
SPLIT_SHARE = 1e-3
#: A whole curve whose remainder is planned to this relative width or below sums at least
#: TIGHT_J terms exactly (the remainder's nodes grow like rel^{-1/J}, the exact part's work
#: per point like J^3: Laplace(1/10)^100 at tol 1e-9, J = 8: 0.40 s CPU, J = 4: 1.0 s; at
#: 1e-6, J = 4: 0.13 s, J = 8: 0.19 s).
TIGHT_REL = 1e-10
TIGHT_J = 8

__all__ = ["PoweredGaussian", "tail_sets", "lattice_point", "lattice_curve", "LATTICE_ROUTE",
           "SPLIT_SHARE", "mixed_curve", "mixed_point", "MIXED_ROUTE", "MIXED_GRID_ROUTE"]


class PoweredGaussian:
    """The law of G_mu's loss with its power decay of order 2 (module docstring); every other
    attribute is the law's own."""

    def __init__(self, law) -> None:
        self.law = law

    def __getattr__(self, name: str):
        return getattr(self.law, name)

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        if not c > 0:
            return None
        mc = self.law.mgf(acb(c)).real  # M(c) = sup_t |M(c + it)|
        m2 = 2 * mc.log() / (c * (c + 1))
        if not m2 > 0:  # (G_0: no decay)
            return None
        return 2 * mc / (arb(1).exp() * m2), 2

    def __eq__(self, other) -> bool:
        return isinstance(other, PoweredGaussian) and self.law == other.law

    def __hash__(self) -> int:
        return hash((PoweredGaussian, id(type(self.law)), self.law.mu))


def _has_power(factors: list) -> bool:
    return any(hasattr(law, "power_decay") and law.power_decay(arb(1)) is not None
               for law, _ in factors)


def _wrapped(leaves, specs: list) -> list:
    """``specs`` (the laws of ``engines._cf_laws`` for ``leaves``, in the order of their
    non-trivial leaves) with the laws of Gaussian leaves given their power decay."""
    rest, _ = pld.split_trivial(pld._check_leaves(leaves))
    out = [(law, int(n)) for law, n in specs]
    for i, (f, n) in enumerate(rest[:len(out)]):
        if int(n) == out[i][1] and gaussian_form(f) is not None:
            out[i] = (PoweredGaussian(out[i][0]), out[i][1])
    return out


def tail_sets(leaf_sets: list, sets: list, share: float) -> list | None:
    """``[(factors, J)]`` for the products ``leaf_sets`` with laws ``sets`` (lists of (law, n)
    from ``engines._cf_laws``): the Gaussian laws with their power decay and J = None where a
    factor then decays like a power; J from ``numeric.cf_split_tails.split_order`` for a
    self-product of a lattice law whose lattice part is below ``share``; None if a product has
    neither."""
    out = []
    for leaves, s in zip(leaf_sets, sets, strict=True):
        wrapped = _wrapped(leaves, s)
        if any(isinstance(law, PoweredGaussian) for law, _ in wrapped) and _has_power(wrapped):
            out.append((wrapped, None))
            continue
        J = split_order(wrapped, share)
        if J is None:
            return None
        out.append((wrapped, J))
    return out


# -- the power at one level of few Laplace factors ----------------------------------------------
#: The name of the point route below (``Value.route``).
LATTICE_ROUTE = "certified loss tails of a lattice split, bracketed level"


def lattice_point(f, A, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) of a symmetric self-product of one Laplace factor whose atoms
    are not negligible (few factors: ``numeric.cf_lattice_tails``; many factors are answered by
    the tails of ``routes.inversion_curve``), at a rational level 0 < A < 1, to the relative
    width of ``pld_options``; None where it does not apply (the profile route answers)."""
    if not isinstance(f, (Tensor, TensorPower)) or f.is_symmetric is not True or not 0 < A < 1:
        return None
    leaves = pld_leaves(f)
    sets = None if leaves is None else _cf_laws([leaves])
    if sets is None or len(sets) != 1 or len(sets[0]) != 1:
        return None
    law, k = sets[0][0]
    factors = [(law, int(k))]
    if not hasattr(law, "lattice_parts") or k > MAX_SPLIT:
        return None
    tol = options()["tol"]
    if split_order(factors, SPLIT_SHARE * tol * min(float(A), 1 - float(A))) is not None:
        return None  # (negligible atoms: the tails of routes.inversion_curve)
    q = Fraction(int(A.p), int(A.q))
    try:
        guess = eps_guess(factors, float(q))
        got = lattice_power_at(factors, q, tol, guess)
        if got is not None and not power and got[1] - got[0] > tol * (1 - got[1]):
            # (f = 1 - power: its relative width asks the power's to shrink by f / power)
            tighter = max(tol * (1 - got[1]) / max(got[1], 1e-300) / 2, 1e-15)
            again = lattice_power_at(factors, q, tighter, guess)
            if again is not None:
                got = (max(got[0], again[0]), min(got[1], again[1]))
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
        raise
    except (ValueError, ArithmeticError, RuntimeError, ZeroDivisionError):
        return None
    if got is None:
        return None
    with mp.workprec(256):  # (exact: 1 - a double)
        lo, hi = mp.mpf(got[0]), mp.mpf(got[1])
        if not power:
            lo, hi = 1 - hi, 1 - lo
    if not lo <= hi:
        return None
    if hi - lo > tol * abs(hi):
        warnings.warn(f"{'power' if power else 'f'}({A}) of {f}: the certified bracket reaches "
                      f"the relative width {float((hi - lo) / abs(hi)):.2g}, above tol = {tol:g} "
                      "(pld_options)", ToleranceWarning, stacklevel=4)
    return Value.enclosure(lo, hi, dps, guarantee="certified").routed(LATTICE_ROUTE)


POINT_ROUTES.append(lattice_point)


# -- whole curves of few Laplace factors ---------------------------------------------------------
def _few_factors(f, share_of: float):
    """``(law, k)`` of a symmetric self-product of one law with ``lattice_parts`` whose atoms
    are not negligible at the absolute width ``share_of`` (the many-factor products take the
    tails of ``routes.inversion_curve``), else None."""
    if not isinstance(f, (Tensor, TensorPower)) or f.is_symmetric is not True:
        return None
    leaves = pld_leaves(f)
    sets = None if leaves is None else _cf_laws([leaves])
    if sets is None or len(sets) != 1 or len(sets[0]) != 1:
        return None
    law, k = sets[0][0]
    if not hasattr(law, "lattice_parts") or int(k) > MAX_SPLIT:
        return None
    if split_order([(law, int(k))], share_of) is not None:
        return None
    return law, int(k)


def _declined_on_error(build):
    """``build()``, or None where it fails numerically (the route declines and the next one
    answers); the time limit is never a declined route (TimeLimitExceeded is an
    ArithmeticError too)."""
    try:
        return build()
    except budget.TimeLimitExceeded:
        raise
    except (ValueError, ArithmeticError, RuntimeError, ZeroDivisionError):
        return None


def _shaped(band: Band | None, x: np.ndarray, tol: float) -> Band | None:
    """``band`` (of the flattened levels) in the shape of ``x``, warning where it is wider
    than ``tol``."""
    if band is None:
        return None
    band = Band(*(v.reshape(x.shape) for v in (band.f_lo, band.f_hi, band.power_lo,
                                                band.power_hi)))
    _warn_if_wide(band, x, tol)
    return band


def floats_around(A) -> tuple[float, float]:
    """The two floats around the rational level 0 < A < 1 (equal where A is one): the band at
    them brackets f(A) and its power (f is non-increasing, its power non-decreasing)."""
    a = float(A)
    q = Fraction(int(A.p), int(A.q))
    return (a if Fraction(a) <= q else math.nextafter(a, 0.0),
            a if Fraction(a) >= q else math.nextafter(a, 1.0))


def band_value(b: Band, f, A, dps: int, power: bool, tol: float, route: str,
               what: str = "certified band") -> Value:
    """f(A) (``power``: 1 - f(A)) from the band ``b`` at :func:`floats_around` A, a certified
    enclosure, with a ToleranceWarning where it is relatively wider than ``tol``."""
    lo, hi = (b.power_lo[0], b.power_hi[1]) if power else (b.f_lo[1], b.f_hi[0])
    if hi - lo > tol * abs(hi):
        warnings.warn(f"{'power' if power else 'f'}({A}) of {f}: the {what} reaches the "
                      f"relative width {(hi - lo) / abs(hi):.2g}, above tol = {tol:g} "
                      "(pld_options)", ToleranceWarning, stacklevel=5)
    return Value.enclosure(mp.mpf(lo), mp.mpf(hi), dps, guarantee="certified").routed(route)


def lattice_curve(f, alphas: np.ndarray, tol: float = 1e-3, progress=None) -> Band | None:
    """Certified bands of f at the levels ``alphas`` for a symmetric self-product of one
    Laplace factor whose atoms are not negligible (``numeric.cf_lattice_curve``: one set of
    loss tails, exactly summed terms plus an inverted remainder, for every level); None where
    it does not apply (the profile band answers)."""
    x = np.asarray(alphas, dtype=np.float64)
    flat = x.ravel()
    pos = flat[(flat > 0) & (flat < 1)]
    a_min = float(min(pos.min(), 1 - pos.max())) if pos.size else 0.5
    got = _few_factors(f, SPLIT_SHARE * tol * a_min)
    if got is None:
        return None
    law, k = got
    rel = max(min(tol * 1e-2, 1e-7), REL_MIN)
    shared: dict = {}

    def make(e0: float, scale: float) -> LatticeTails:
        if rel * scale < REL_MIN:
            raise ValueError("no tighter plan")
        t = LatticeTails(law, k, e0, rel * scale, shared.get("J"), shared.get("exact"),
                         TIGHT_J if rel <= TIGHT_REL else 0)
        shared["J"], shared["exact"] = t.part.J, t.exact
        return t

    with working_precision(64):
        mu = float(law.lattice_parts()[0].mid())
    atoms = mu * (2 * np.arange(k + 1) - k).astype(np.float64)
    # (where every term is summed exactly nothing is planned: no threshold to plan at)
    first = (lambda: eps_guess([(law, k)], a_min)) if split_terms(k) != (k + 1,) else \
        (lambda: 0.0)
    return _shaped(_declined_on_error(
        lambda: tails_band(make, atoms, k * mu, flat, tol, first())), x, tol)


CURVE_BANDS.append(lattice_curve)


# -- Laplace factors of different scales -----------------------------------------------------------
#: The name of the point route of products of Laplace factors with different scales.
MIXED_ROUTE = "certified loss tails of Laplace factors, every term summed exactly"
#: ... and of many factors on one grid of scales (``numeric.cf_mixed_grid_tails``).
MIXED_GRID_ROUTE = ("certified loss tails of Laplace factors of many scales, the terms with few "
                    "density components summed exactly on a grid of scales or bounded by their "
                    "mass, the rest inverted")


def _mixed_laws(f) -> list | None:
    """The factors' laws (one per factor) of a symmetric product of few lattice laws with
    different scales (``numeric.cf_mixed_tails.mixed_factors``), else None."""
    if not isinstance(f, (Tensor, TensorPower)) or f.is_symmetric is not True:
        return None
    leaves = pld_leaves(f)
    sets = None if leaves is None else _cf_laws([leaves])
    if sets is None or len(sets) != 1:
        return None
    return mixed_factors([(law, int(n)) for law, n in sets[0]])


def _mixed_band(laws: list, flat: np.ndarray, tol: float) -> Band | None:
    rel = max(min(tol * 1e-2, 1e-7), REL_MIN)
    # (a whole curve's first remainder tight enough for every level, FIRST_SCALE; one level,
    # the two floats around it, at rel)
    many = np.unique(flat[(flat > 0) & (flat < 1)]).size > 2
    tails = MixedTails(laws, rel, FIRST_SCALE if many else 1.0)
    return tails_band(lambda _e0, _scale: tails, tails.atoms, tails.loss_sup, flat, tol, 0.0)


def mixed_curve(f, alphas: np.ndarray, tol: float = 1e-3, progress=None) -> Band | None:
    """Certified bands of f at the levels ``alphas`` for a symmetric product of few Laplace
    factors with different scales (``numeric.cf_mixed_tails``: every term summed exactly, one
    set of tails for every level, ``numeric.cf_lattice_curve``); None where it does not apply."""
    laws = _mixed_laws(f)
    if laws is None:
        return None
    x = np.asarray(alphas, dtype=np.float64)
    return _shaped(_declined_on_error(lambda: _mixed_band(laws, x.ravel(), tol)), x, tol)


def mixed_point(f, A, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) of a symmetric product of few Laplace factors with different
    scales at a rational level 0 < A < 1, from the band at the two floats around A (f is
    non-increasing, its power non-decreasing), to the relative width of ``pld_options``; None
    where it does not apply."""
    if not 0 < A < 1:
        return None
    laws = _mixed_laws(f)
    if laws is None:
        return None
    tol = options()["tol"]
    b = _declined_on_error(lambda: _mixed_band(laws, np.array(floats_around(A)), tol))
    route = MIXED_ROUTE if every_term_exact(laws) else MIXED_GRID_ROUTE
    return None if b is None else band_value(b, f, A, dps, power, tol, route)


CURVE_BANDS.append(mixed_curve)
POINT_ROUTES.append(mixed_point)
