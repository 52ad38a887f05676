"""Operator nodes (DESIGN.md section 1): one module per operator family."""

from .conjugate import Conjugate
from .maxgroup import Group, Max
from .subsample import C, Mix, Subsample
from .tensor import Tensor, TensorPower
from .unary import Inverse, SymmetricHull, Symmetrize

__all__ = ["Tensor", "TensorPower", "Inverse", "Symmetrize", "SymmetricHull", "Mix",
           "Subsample", "C", "Max", "Group", "Conjugate"]
