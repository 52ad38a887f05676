"""Which split of a product of many Laplace factors the routes take (:mod:`.cf_mixed_grid`):
on one grid of scales, the least order J of :data:`GRID_ORDERS` whose remainder plans within
:data:`GRID_NODES` t-nodes (:func:`grid_split`; every term exact for few factors); off a usable
grid, the least order whose left-out mass is negligible and whose remainder plans within the
nodes (:func:`mass_split`; J = 0 where the all-atoms term is negligible: its remainder's decay
bound with the factors' phases, :mod:`.cf_mixed_decay`, is the lowest and each node needs no
head), for the tails and, where that mass is negligible beside delta, for delta and eps
(:func:`profile_mass_split`). The exact parts and the parts bounded by their mass are kept
between calls (their build is the route's main cost) and a build that cannot end in
the time left is refused at once.
"""

from __future__ import annotations

import math

from . import budget
from .cf import _first_plan
from .cf_epsilon import _guess_epsilon
from .cf_laws import Factor, working_precision
from .cf_mixed_grid import GridPart, grid_of, lattice_laws, scales_of
from .cf_mixed_grid_remainder import GridRemainder
from .cf_mixed_mass import MassPart
from .progress import ensure_time

__all__ = ["grid_split", "mass_split", "mass_viable", "profile_mass_split", "GRID_ORDERS",
           "GRID_NODES", "MASS_ORDERS", "MASS_SCREEN", "ATOM_SHARE"]

#: The split orders tried (the terms with at most J density components summed exactly).
GRID_ORDERS = (8, 12, 16)
#: The most t-nodes of the remainder's first plan (each evaluates a product of r linear
#: polynomials: about 1 ms at r = 100).
GRID_NODES = 3000
#: Seconds per unit of S J (S = sum m_i) to build the exact part (about 1 s at S = 10^5, J = 8 on
#: a loaded core; a lower estimate): a build that cannot end in the time left is refused at once.
GRID_BUILD_SECONDS = 4e-7
#: Seconds per unit of r^2 K of the atoms' product (r factors, K = sum (m_i - min m) + 1: about
#: r K coefficients of up to r bits; 0.36 s at r = 100, K = 4951 on loaded cores: 7e-9; a lower
#: estimate).
PRODUCT_SECONDS = 4e-9
#: Above this probability that no factor contributes its density (the atoms' share, whose
#: transform does not decay) the grid split is taken; below, the whole product inverts to any
#: width asked (a thousand factors: 6e-23) and the split is left to the curves
#: (:mod:`.cf_mixed_grid_tails`).
ATOM_SHARE = 1e-20


_PARTS: dict = {}


def _part(laws: list, J: int) -> GridPart:
    """One :class:`GridPart` per product and order, kept (its build is the route's main cost)."""
    key = (tuple(laws), J)
    p = _PARTS.get(key)
    if p is None:
        if len(_PARTS) > 4:
            _PARTS.clear()
        h, ms = grid_of(laws)
        r, K = len(ms), sum(ms) - len(ms) * min(ms) + 1
        ensure_time(GRID_BUILD_SECONDS * sum(ms) * (J + 1) + PRODUCT_SECONDS * r * r * K,
                    f"the exact part of {r} Laplace factors on a grid of {sum(ms)} points")
        p = _PARTS[key] = GridPart(laws, J)
    return p


def _atom_share(laws: list) -> float:
    """Float P_A(no factor contributes its density) = prod (p+ + p-) (planning only)."""
    with working_precision(64):
        return math.exp(sum(math.log(float((p[1] + p[2]).mid()))
                            for p in (law.lattice_parts() for law in laws)))


def grid_split(factors: list[Factor], kind: str, x: float, rel: float):
    """``(remainder factors, exact part)`` of the split of a product of many Laplace factors
    on one grid (module docstring; the remainder factors empty where every term is exact), or
    None where the scales lie on no usable grid, the atoms' share is below :data:`ATOM_SHARE`
    (not for ``kind`` "tails": the curves have no other route), or no order's plan is within
    :data:`GRID_NODES` at ``x`` (eps, or delta for ``kind`` "epsilon")."""
    laws = lattice_laws([(law, int(n)) for law, n in factors])
    if laws is None or grid_of(laws) is None:
        return None
    if kind != "tails" and _atom_share(laws) < ATOM_SHARE:
        return None  # (the whole product inverts: the other routes)
    if len(laws) <= GRID_ORDERS[0]:
        return [], _part(laws, len(laws))
    for J in GRID_ORDERS:
        if J >= len(laws):
            return [], _part(laws, len(laws))
        part = _part(laws, J)
        r = _within_nodes(part, lambda rest, part=part: (
            _guess_epsilon(rest, part, x) if kind == "epsilon" else x), rel)
        if r is not None:
            return r
    return None


def _within_nodes(part, at, rel: float):
    """``([remainder], part)`` where the remainder's first plan at ``at(rest)`` (eps, positive)
    is within :data:`GRID_NODES` t-nodes, else None (a plan that fails declines this order)."""
    rest = [(GridRemainder(part), 1)]
    try:
        x = at(rest)
        if x > 0 and _first_plan(rest, x, rel).n_nodes <= GRID_NODES:
            return rest, part
    except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined plan)
        raise
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    return None


#: The orders tried by :func:`mass_split`, least first: the less the part bounded by its mass
#: holds, the lower the remainder's floor (:func:`~.cf_mixed_decay.sup_bound`: the head's bound
#: grows like (sum u_i / a_i)^J / J!) and the cheaper each node (no head to subtract at J = 0);
#: a thousand factors at J = 0: the floor 2e-21 of M(c), the cut at t ~ 3.
MASS_ORDERS = (0, 2, 4)
#: The most mass left out at the least order for :func:`mass_split` to be tried at all.
MASS_SCREEN = 1e-12


def mass_split(laws: list, eps0: float, rel: float, share: float, at=None):
    """``([remainder], MassPart)`` for Laplace factors on no usable grid whose terms with few
    density components have a negligible mass (many factors: a thousand): the least order J
    of :data:`MASS_ORDERS` whose left-out mass is at most ``share`` and whose remainder's plan
    at ``eps0`` (or at ``at(rest, part)``) is within :data:`GRID_NODES`; None where there is
    none."""
    if scales_of(laws) is None or not eps0 > 0:
        return None
    for J in MASS_ORDERS:
        if J >= len(laws):
            continue
        budget.check()
        part = _mass_part(laws, J)
        if not part.mass <= share:
            continue
        r = _within_nodes(part, (lambda _rest: eps0) if at is None else
                          (lambda rest, part=part: at(rest, part)), rel)
        if r is not None:
            return r
    return None


def profile_mass_split(factors: list[Factor], kind: str, x: float, rel: float):
    """:func:`mass_split` for the privacy profile (``kind`` "delta" at eps = ``x``, or
    "epsilon" at delta = ``x``) of a product of many Laplace factors on no usable grid whose
    atoms' share is negligible (a thousand factors): the part bounded by its mass, at most
    1e-3 rel x for eps (delta's own scale), the remainder inverted; None where it does not
    apply (the delta route checks the mass against the delta found)."""
    laws = lattice_laws([(law, int(n)) for law, n in factors])
    if laws is None or grid_of(laws) is not None or not mass_viable(laws) or not x > 0:
        return None
    if kind == "epsilon":
        return mass_split(laws, 1.0, rel, 1e-3 * rel * x,
                          at=lambda rest, part: _guess_epsilon(rest, part, x))
    return mass_split(laws, x, rel, MASS_SCREEN)


_MASS: dict = {}


def _mass_part(laws: list, J: int, prec: int = 128) -> MassPart:
    """One :class:`MassPart` per product, order and precision, kept (a thousand factors' balls
    cost a few tenths of a second)."""
    key = (tuple(laws), J, prec)
    p = _MASS.get(key)
    if p is None:
        if len(_MASS) > 8:
            _MASS.clear()
        p = _MASS[key] = MassPart(laws, J, prec)
    return p


def mass_viable(laws: list) -> bool:
    """Is :func:`mass_split` worth trying: exact scales, and the mass left out at the least
    order at most :data:`MASS_SCREEN`?"""
    if scales_of(laws) is None or len(laws) <= MASS_ORDERS[0]:
        return False
    return bool(_mass_part(laws, MASS_ORDERS[0], 64).mass <= MASS_SCREEN)
