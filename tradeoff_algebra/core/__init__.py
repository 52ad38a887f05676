"""Core: nodes, parameter validation, errors, citations, the rule registry, Phi and Phi^{-1}."""

from .errors import (
    EstimateWarning,
    InternalError,
    InvalidParameter,
    NoClosedForm,
    NumericalError,
    ToleranceWarning,
    TradeOffError,
)
from .node import Applied, TradeOff, TradeOffExpr, alpha_symbol, check_alpha, register_operator
from .normal import Phi, PhiInv
from .validate import param

__all__ = ["TradeOffError", "InvalidParameter", "NoClosedForm", "NumericalError", "InternalError",
           "ToleranceWarning", "EstimateWarning", "TradeOff",
           "TradeOffExpr", "Applied", "alpha_symbol", "check_alpha", "register_operator", "Phi",
           "PhiInv", "param"]
