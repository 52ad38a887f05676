"""Generic numeric machinery: mpmath kernels, the Value type, evaluation dispatch."""

from . import normal  # noqa: F401  (installs the Phi kernels into core)
from .curves import curve
from .protocol import as_level, evaluate, exact_value, mp_roc, mp_value, np_value, roc
from .value import Value

__all__ = ["Value", "evaluate", "roc", "curve", "mp_value", "mp_roc", "exact_value",
           "np_value", "as_level"]
