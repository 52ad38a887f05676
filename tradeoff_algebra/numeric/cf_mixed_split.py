"""Certified delta(eps) and eps(delta) of products of few Laplace factors with different scales
(Laplace(mu_1) (x) ... (x) Laplace(mu_r), no Gaussian factor), for the product routes of
:mod:`.cf_route`: nothing is inverted.

The atoms of each factor's loss law (Dong, Roth & Su, Prop. 7: atoms at +-mu_i and a density on
(-mu_i, mu_i)) keep |M(c + it)| from decaying, so the Laplace inversion of the whole product
cannot reach a tight width (Laplace(1) (x) Laplace(1/2) (x) Laplace(1/3) was left to the PLD
engine, an estimate). For few factors every one of the 3^r terms of the product (each factor's
atom at +mu_i, at -mu_i, or its density) is summed exactly in Arb by
:class:`~.cf_mixed_tails.MixedTails` (its module docstring: Irwin--Hall-type pieces integrated
in closed form), so

    delta(eps) = A(L > eps) - e^eps B(L > eps)

is a ball with no truncation or aliasing error, certified. delta is non-increasing in eps, so
eps(d) = inf{eps >= 0 : delta(eps) <= d} lies in [lo, hi] as soon as delta(lo) > d (then
eps(d) > lo) and delta(hi) < d (then eps(d) <= hi) are proved by the balls: bisection on
[0, sum mu_i] (delta(sum mu_i) = 0, every loss is at most sum mu_i), each side decided only by a
certified comparison (an undecided ball, an eps on a kink of delta, stops the bisection there
with the bracket proved so far).

Many factors whose scales lie on one grid (mu_i = m_i h: Laplace(1/10 + i/10^4), i < 100) are
split by the number of density components (:mod:`.cf_mixed_grid`): the terms with at most J of
them summed exactly on the grid (``GridPart``), the rest (``GridRemainder``, a transform
decaying like |t|^-(J+1)) inverted by :mod:`.cf` with that part added, delta by
``delta_enclosure`` and eps(d) by ``epsilon_enclosure`` (Newton steps and a bracket proved by
two balls) (:func:`grid_enclosure`; J by :func:`~.cf_mixed_grid_plan.grid_split`).
Many factors on no usable grid whose all-atoms term is negligible (Laplace(1/10 + i/10^5),
i < 1000: its mass 6.3e-23) bound that term by its mass and invert the rest (the same
:func:`grid_enclosure`, :func:`~.cf_mixed_grid_plan.profile_mass_split`; declined where the
mass is not below 1e-3 rel of delta). Scales on no usable grid whose atoms matter
(Laplace(1/k), k = 1 .. 50: a step 1/lcm(1..50)) are left to the other routes.

One power of one law (:func:`_one_power`) is answered here too, before any plan: L_mu^k
(k <= 20) by the piecewise closed form of :mod:`.cf_lattice_profile` (eps(1e-6) of
L(1/10)^10 in about 4 ms, 1e-11 wide), and a few steps of a law with ``loss_cells`` (the
Poisson-subsampled Laplace mechanism's) by its cells composed on a lattice
(:mod:`.lattice_cells`, at the width asked where that is modest: q = 1/100, b = 1, T = 10 in
about 7 ms at the default tolerance).
"""

from __future__ import annotations

from collections.abc import Sequence

from flint import arb

from ..core import trace
from . import budget
from .cf import delta_enclosure
from .cf_epsilon import epsilon_enclosure
from .cf_lattice_profile import power_enclosure
from .cf_laws import Factor, lower, upper, working_precision
from .cf_mixed_grid_plan import grid_split, profile_mass_split
from .cf_mixed_tails import MixedTails, mixed_factors
from .lattice_cells import CELLS_ROUTE, cells_enclosure
from .roots import Probe, findroot

__all__ = ["mixed_enclosure", "grid_enclosure", "cells_floor",
           "MIXED_SPLIT", "GRID_SPLIT", "MASS_SPLIT"]

#: The route's note (``core.trace``) when it answers.
MIXED_SPLIT = "certified Laplace factors of different scales, every term summed exactly"
#: The relative width the grid split aims at whatever looser tolerance is asked: its cost is the
#: exact part's build and a few hundred nodes, no more at 1e-10 than at 1e-4 (100 factors on the
#: grid 10^-4: eps(1e-6) 0.41 s after the build at 1e-10, 0.70 s at 1.25e-4, whose bracket needs
#: more steps), so a tighter tolerance never gives a wider enclosure.
GRID_REL = 1e-10
#: The note of the split off any usable grid, the few-density terms bounded by their mass.
MASS_SPLIT = ("certified Laplace factors of different scales, few density components bounded by "
              "their mass")
#: The note of the split on a common grid.
GRID_SPLIT = "certified Laplace factors on a common grid, few density components summed exactly"

#: The most factors (counted with their powers) summed here: 4^r pieces at r factors
#: (:data:`~.cf_mixed_tails.MAX_TERMS` admits r <= 5).
MAX_FACTORS = 5

_TAILS: dict = {}


def _tails(laws: list, rel: float) -> MixedTails:
    """One :class:`MixedTails` per product and width, kept (a route asks several times)."""
    key = (tuple(laws), rel)
    t = _TAILS.get(key)
    if t is None:
        if len(_TAILS) > 16:
            _TAILS.clear()
        t = _TAILS[key] = MixedTails(laws, rel)
    return t


def _delta(tails: MixedTails, eps: float) -> arb:
    return tails.point(eps).delta


def mixed_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                    rel: float) -> tuple[float, float] | None:
    """Certified float bounds of delta(eps) (``kind`` "delta", eps in [dn, up]) or of eps(d)
    (``kind`` "epsilon", d in [dn, up]) for a product of few lattice laws with different
    scales (:func:`~.cf_mixed_tails.mixed_factors`), or of many on one grid
    (:func:`grid_enclosure`), at the relative width ``rel``; None where the product is not of
    that kind."""
    if len(factors) < 2:  # (one power of one law: its closed form or its cells on a lattice)
        return _one_power(factors, kind, dn, up, rel)
    if sum(int(n) for _, n in factors) > MAX_FACTORS:
        return grid_enclosure(factors, kind, dn, up, rel)
    laws = mixed_factors([(law, int(n)) for law, n in factors])
    if laws is None:
        return None
    tails = _tails(laws, min(rel, 1e-10))
    trace.note(MIXED_SPLIT)
    if kind == "delta":
        lo = max(0.0, lower(_delta(tails, up)))
        hi = min(1.0, upper(_delta(tails, dn)))
        return lo, max(lo, hi)
    with working_precision(64):  # every loss is at most sum mu_i: delta(top) = 0 < d
        top = upper(sum((law.lattice_parts()[0] for law in laws), arb(0)))

    def sign(eps: float) -> Probe:
        budget.check()
        d = _delta(tails, eps)
        return Probe(1 if d > up else -1 if d < dn else None)

    with working_precision(tails.prec):
        if not _delta(tails, 0.0) > up:
            return None  # (eps(d) = 0 or undecided there: the other routes)
    r = findroot(sign, (0.0, top), method="bisect", ends=(1, -1), rtol=min(rel, 1e-10) / 4,
                 best=lambda a, b: (a, b))
    return r.lo, r.hi


def _one_power(factors: Sequence[Factor], kind: str, dn: float, up: float,
               rel: float) -> tuple[float, float] | None:
    """One power: L_mu^k by its piecewise closed form (:mod:`.cf_lattice_profile`), a law
    with its own ``cells_enclosure(k, kind, dn, up, rel)`` (the replace-one loss's, a few
    steps' eps) by it, or a law with ``loss_cells`` (the Poisson-subsampled Laplace
    mechanism's) by its cells composed on a lattice at the width asked (:mod:`.lattice_cells`,
    few steps at a modest width); else None."""
    if len(factors) != 1:
        return None
    r = power_enclosure(factors, kind, dn, up, rel)
    if r is not None:
        return r
    law, k = factors[0]
    own = getattr(law, "cells_enclosure", None)  # (a law's own cells: the replace-one loss)
    if own is not None and int(k) >= 1:
        return own(int(k), kind, dn, up, rel)
    if not hasattr(law, "loss_cells") or int(k) < 1:
        return None
    r = cells_enclosure(law, int(k), kind, dn, up, rel)
    if r is not None:
        trace.note(CELLS_ROUTE)
    return r


#: The relative width of the default tolerance's question (a quarter of 5e-4): the cells of
#: :func:`cells_floor` answer at it.
FLOOR_REL = 1.25e-4


def cells_floor(factors: Sequence[Factor], kind: str, dn: float,
                up: float, rel: float) -> tuple[float, float] | None:
    """The cells' enclosure of one power of a law with ``loss_cells`` at the default
    tolerance's width :data:`FLOOR_REL`, where ``rel`` asks tighter (None otherwise): the
    enclosure a looser tolerance answers with, which the caller intersects with its own, so a
    tighter tolerance never gives a wider result (the inversion at eps = 0 of ten subsampled
    Laplace steps was 0.0055 wide at tol 1e-6 where the cells gave 2.4e-6 at 5e-4). Both are
    certified enclosures of the same number, so their intersection is one."""
    if rel >= FLOOR_REL or len(factors) != 1:
        return None
    law, k = factors[0]
    if not hasattr(law, "loss_cells") or int(k) < 1:
        return None
    return cells_enclosure(law, int(k), kind, dn, up, FLOOR_REL)


def grid_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                   rel: float) -> tuple[float, float] | None:
    """:func:`mixed_enclosure` for many Laplace factors on one grid (module docstring), or on
    none with a negligible atoms' share (the part bounded by its mass), or None."""
    rel = min(rel, GRID_REL)
    got = grid_split(factors, kind, max(dn, 0.0), rel)
    note = GRID_SPLIT
    if got is None:
        got = profile_mass_split(factors, kind, max(dn, 0.0), rel)
        note = MASS_SPLIT
    if got is None:
        return None
    rest, part = got
    if kind == "delta":  # (delta is non-increasing)
        lo, hi = delta_enclosure(rest, up, rel, part)
        if dn != up:
            hi = delta_enclosure(rest, dn, rel, part)[1]
        if note is MASS_SPLIT and not part.mass <= 1e-3 * rel * lo:
            return None  # (the mass left out is not negligible beside delta: other routes)
        trace.note(note)
        return lo, hi
    if not rest and not part.terms(0.0)[0] > up:
        return None  # (eps(d) = 0 or undecided there: the other routes)
    out = epsilon_enclosure(rest, dn, rel, up, part)
    trace.note(note)
    return out
