"""Shared helpers for operator nodes: operand validation and sorting."""

from __future__ import annotations

from typing import Any

from sympy import default_sort_key
from sympy.core.logic import fuzzy_and

from ..core.errors import InvalidParameter
from ..core.node import TradeOff

__all__ = ["operand", "sorted_operands", "all_symmetric", "UnaryOperator", "SamplingOperator"]


def operand(value: Any, owner: str, name: str = "f") -> TradeOff:
    """Check that ``value`` is a trade-off function node."""
    if not isinstance(value, TradeOff):
        raise InvalidParameter(name, value, "a trade-off function (G(1), EpsDelta(1, 0), Id, ...)",
                               owner)
    return value


def sorted_operands(fs) -> list[TradeOff]:
    """Canonical order for commutative operators."""
    return sorted(fs, key=default_sort_key)


def all_symmetric(fs) -> bool | None:
    return fuzzy_and(f.is_symmetric for f in fs)


class UnaryOperator(TradeOff):
    """Base of the operators with one trade-off operand and no parameter (f^{-1}, f^S, C(f))."""

    def __new__(cls, f: Any):
        return TradeOff.__new__(cls, operand(f, cls.__name__))

    @property
    def arg(self) -> TradeOff:
        return self.args[0]


class SamplingOperator(TradeOff):
    """Base of the operators of one operand and a probability p in [0, 1] (f_p, C_p(f))."""

    def __new__(cls, f: Any, p: Any):
        from ..core.validate import param

        f = operand(f, cls.__name__)
        p = param("p", p, lower=0, upper=1, owner=cls.__name__)
        return TradeOff.__new__(cls, f, p)

    @property
    def arg(self) -> TradeOff:
        return self.args[0]

    @property
    def p(self):
        return self.args[1]
