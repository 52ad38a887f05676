"""The evaluation policy above the nodes: how a numeric question about an expression is routed
(cheap identities first, then the exact, closed-form, PLD or profile route). Importing the
package registers the routes with the numeric protocol."""

from . import (
    hull_cells,
    hull_tilted,
    inversion_curve,
    lattice_curve,
    parameter_sandwich,
    product,
    profile_curve,
)

__all__ = ["product", "parameter_sandwich", "inversion_curve", "profile_curve", "lattice_curve",
           "hull_cells", "hull_tilted"]
