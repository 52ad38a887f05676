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
two balls) (:func:`grid_enclosure`). J is the first of :data:`GRID_ORDERS` whose remainder's
plan is within :data:`GRID_NODES` nodes (every term exact where there are at most J factors).
Scales on no usable grid (Laplace(1/k), k = 1 .. 50: a step 1/lcm(1..50)) are left to the other
routes.
"""

from __future__ import annotations

from collections.abc import Sequence

from flint import arb

from ..core import trace
from . import budget
from .cf import _first_plan, delta_enclosure
from .cf_epsilon import _guess_epsilon, epsilon_enclosure
from .cf_laws import Factor, lower, upper, working_precision
from .cf_mixed_grid import GridPart, GridRemainder, grid_of
from .cf_mixed_tails import MixedTails, lattice_laws, mixed_factors
from .progress import ensure_time
from .roots import Probe, findroot

__all__ = ["mixed_enclosure", "grid_enclosure", "grid_split", "MIXED_SPLIT", "GRID_SPLIT"]

#: The route's note (``core.trace``) when it answers.
MIXED_SPLIT = "certified Laplace factors of different scales, every term summed exactly"
#: The note of the split on a common grid.
GRID_SPLIT = "certified Laplace factors on a common grid, few density components summed exactly"
#: The split orders tried (the terms with at most J density components summed exactly).
GRID_ORDERS = (8, 12, 16)
#: The most t-nodes of the remainder's first plan (each evaluates a product of r linear
#: polynomials: about 1 ms at r = 100).
GRID_NODES = 3000
#: Seconds per unit of S J (S = sum m_i) to build the exact part (about 1 s at S = 10^5, J = 8 on
#: a loaded core; a lower estimate): a build that cannot end in the time left is refused at once.
GRID_BUILD_SECONDS = 4e-7

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
    if len(factors) < 2:
        return None
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


_PARTS: dict = {}


def _part(laws: list, J: int) -> GridPart:
    """One :class:`GridPart` per product and order, kept (its build is the route's main cost)."""
    key = (tuple(laws), J)
    p = _PARTS.get(key)
    if p is None:
        if len(_PARTS) > 4:
            _PARTS.clear()
        h, ms = grid_of(laws)
        ensure_time(GRID_BUILD_SECONDS * sum(ms) * (J + 1) + 1e-3 * len(ms),
                    f"the exact part of {len(ms)} Laplace factors on a grid of {sum(ms)} points")
        p = _PARTS[key] = GridPart(laws, J)
    return p


def grid_split(factors: Sequence[Factor], kind: str, x: float, rel: float):
    """``(remainder factors, exact part)`` of the split of a product of many Laplace factors
    on one grid (module docstring; the remainder factors empty where every term is exact), or
    None where the scales lie on no usable grid or no order's plan is within
    :data:`GRID_NODES` at ``x`` (eps, or delta for ``kind`` "epsilon")."""
    laws = lattice_laws([(law, int(n)) for law, n in factors])
    if laws is None or grid_of(laws) is None:
        return None
    if len(laws) <= GRID_ORDERS[0]:
        return [], _part(laws, len(laws))
    for J in GRID_ORDERS:
        if J >= len(laws):
            return [], _part(laws, len(laws))
        part = _part(laws, J)
        rest = [(GridRemainder(part), 1)]
        try:
            at = x if kind == "delta" else _guess_epsilon(rest, part, x)
            if at > 0 and _first_plan(rest, at, rel).n_nodes <= GRID_NODES:
                return rest, part
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
            raise
        except (ValueError, RuntimeError, ArithmeticError):
            continue
    return None


def grid_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                   rel: float) -> tuple[float, float] | None:
    """:func:`mixed_enclosure` for many Laplace factors on one grid (module docstring), or
    None."""
    got = grid_split(factors, kind, max(dn, 0.0), rel)
    if got is None:
        return None
    rest, part = got
    trace.note(GRID_SPLIT)
    if kind == "delta":  # (delta is non-increasing)
        lo, hi = delta_enclosure(rest, up, rel, part)
        if dn != up:
            hi = delta_enclosure(rest, dn, rel, part)[1]
        return lo, hi
    if not rest and not part.terms(0.0)[0] > up:
        return None  # (eps(d) = 0 or undecided there: the other routes)
    return epsilon_enclosure(rest, dn, rel, up, part)
