"""Independent references for the tests: one per family and one per operator, shared by the
family suite (tests/test_families.py), the capability checkers (tests/test_capabilities.py)
and the random-tree harness (tests/fuzz_trees.py).

Nothing here imports ``tradeoff_algebra``. A reference (:class:`~.base.Ref`) gives bounds
``L <= f(alpha) <= U`` (``L == U`` for a point reference), ``1 - f`` and, where it can,
``delta(eps)``, computed from the family's definition by another route than the library's:

* :mod:`.base` numbers, parameters, the reference budget and :class:`~.base.Ref`;
* :mod:`.finite` exact Neyman--Pearson on finite pairs, piecewise-linear algebra;
* :mod:`.gauss` G_mu, L_mu and G_mu (x) T(P, Q) for the random trees;
* :mod:`.pairs` continuous pairs (normal and Laplace mixtures) on the real line;
* :mod:`.families` :func:`reference`: the reference of a family instance (the lattice
  mechanisms DiscreteLaplace and Skellam from :mod:`.lattice`);
* :mod:`.functionals` profiles, conjugates, functionals and Renyi divergences of a reference;
* :mod:`.operators` Mix, inverse, maximum, group privacy, symmetric hull, C_p, tensor products.
"""

from .families import FAMILIES as _FAMILIES
from .families import num  # noqa: F401
from .families import reference as _reference
from .lattice import LATTICE, lattice_reference

#: The families :func:`reference` covers (class names).
FAMILIES = _FAMILIES + LATTICE


def reference(f):
    """The reference of a family instance with numeric parameters (:mod:`.families`,
    :mod:`.lattice`)."""
    if type(f).__name__ in LATTICE:
        return lattice_reference(f)
    return _reference(f)
