"""Shared helpers for operator nodes: operand validation and sorting."""

from __future__ import annotations

from typing import Any

from sympy import default_sort_key
from sympy.core.logic import fuzzy_and

from ..core.errors import InvalidParameter
from ..core.node import TradeOff

__all__ = ["operand", "sorted_operands", "all_symmetric"]


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
