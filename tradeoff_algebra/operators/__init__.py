"""Operator nodes (docs/architecture.md, "Layers"): one module per operator family."""

from . import (  # noqa: F401  (registrations: the exact ends f(0), f^{-1}(0) of the
    ends,  # operators' nodes; the losses and finite views of Mix and Subsample; the point
    equal_node,  # route of an inverse equal to a node without it)
    subsample_loss,
)
from .conjugate import Conjugate, conjugate_value
from .maxgroup import Group, Max
from .mechanism import AddRemove
from .shift import Shift
from .subsample import C, Mix, Subsample
from .tensor import Tensor, TensorPower
from .unary import Inverse, SymmetricHull, Symmetrize

__all__ = ["Tensor", "TensorPower", "Inverse", "Symmetrize", "SymmetricHull", "Mix",
           "Subsample", "C", "Max", "Group", "Conjugate", "conjugate_value", "AddRemove", "Shift"]
