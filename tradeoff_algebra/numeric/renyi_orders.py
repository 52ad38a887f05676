"""Renyi divergences of a numeric family member at many orders at once, certified, without SymPy.

The dispatch point :func:`arb_renyi_orders` is a family's capability "renyi_orders": for
f = T(P, Q) with numeric parameters and a list of rational orders a > 1 (Python ``int`` for an
integer order, ``fmpq`` otherwise), D_a(P || Q) at each order as an Arb ball at the current Arb
precision (python-flint) or an exact ``fmpq``, straight from the family's own formula in Arb:
no SymPy expression is formed or compiled (the SymPy closed form in a symbolic order is the
capability "renyi", ``numeric.capability.renyi_form``). The family registers it in its own
module (the Laplace pair: Mironov 2017, Prop. 6, the powers of e^{-2 mu} of consecutive
integer orders by multiplication; G_mu: a mu^2/2 exactly; the discrete Gaussian at integer
shifts: a Delta^2/(2 sigma^2) exactly); the default answers None ("not known here").

:func:`renyi_orders` is the driver: one working precision chosen from the requested relative
width 10^-dps (its bits plus a guard), the balls accepted when finite with a relative radius
below 2^-(bits + 4) (so below 10^-dps: ``rel_accuracy_bits`` is -log2(rad/|mid|)), the others
recomputed once at twice and once at four times the precision, and what is still too wide left
out (None: the caller's order-by-order route answers it). Every value is a ball of Arb's
interval arithmetic from the exact rational order and the exact (or Arb-enclosed) parameters,
or an exact rational: certified.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

from flint import arb, fmpq

from . import budget
from .context import arb_precision

__all__ = ["arb_renyi_orders", "renyi_orders", "has_program", "flint_order", "precision_bits"]

#: Orders handled between two checks of the time limit.
CHUNK = 4096


@singledispatch
def arb_renyi_orders(f: Any, orders: Sequence) -> list | None:
    """D_a(P || Q) of f = T(P, Q) at each order a of ``orders`` (rational a > 1: a Python
    ``int`` or an ``fmpq``), at the current Arb precision: a list of the same length of Arb
    balls or exact ``fmpq`` (an entry None: that order not answered), or None where the family
    has no such program (the default) or f has symbolic parameters."""
    return None


def has_program(f: Any) -> bool:
    """Whether f's class registers a program with :func:`arb_renyi_orders` (it may still
    answer None for symbolic parameters)."""
    return arb_renyi_orders.dispatch(type(f)) is not _DEFAULT


def flint_order(a: Any):
    """A rational order as the point takes it: an ``int`` for an integer, else an ``fmpq``
    (``a``: a Python int, a SymPy Rational or anything with ``p`` and ``q``)."""
    if type(a) is int:
        return a
    p, q = int(a.p), int(a.q)
    return p if q == 1 else fmpq(p, q)


_DEFAULT = arb_renyi_orders.dispatch(object)


def precision_bits(dps: int) -> int:
    """The relative accuracy in bits that gives a relative width below 10^-dps, with 4 to
    spare: ceil(dps log2(10)) + 4."""
    return math.ceil(dps * 3.3219280948873626) + 4


def renyi_orders(f: Any, orders: Sequence, dps: int) -> list | None:
    """D_a(P || Q) of f at each order (as :func:`arb_renyi_orders` takes them): a list of Arb
    balls of relative width below 10^-dps or exact ``fmpq`` (None at an order left to the
    caller), or None where f has no program (module docstring)."""
    need = precision_bits(dps)
    prec = need + 36
    out = _run(f, orders, prec)
    if out is None:
        return None
    for _ in range(2):  # the balls too wide (or not finite): again at twice the precision
        wide = _too_wide(out, need)
        if not wide:
            return out
        prec *= 2
        again = _run(f, [orders[i] for i in wide], prec)
        for i, v in zip(wide, again, strict=True):
            out[i] = v
    return [v if v is None or _accepted(v, need) else None for v in out]


def _too_wide(vals: list, need: int) -> list:
    """The positions of the values not :func:`_accepted` (None: left out, not counted); a
    list of balls or of rationals alone is checked in one pass of C-level maps."""
    kinds = set(map(type, vals))
    if kinds == {fmpq}:
        return []
    if kinds == {arb} and all(map(arb.is_finite, vals)) \
            and min(map(arb.rel_accuracy_bits, vals)) >= need:
        return []
    return [i for i, v in enumerate(vals) if v is not None and not _accepted(v, need)]


def _accepted(v: Any, need: int) -> bool:
    """An exact ``fmpq``, or a finite ball of relative accuracy at least ``need`` bits."""
    return type(v) is fmpq or (v.is_finite() and v.rel_accuracy_bits() >= need)


def _run(f: Any, orders: Sequence, prec: int) -> list | None:
    """The point at precision ``prec``, ``CHUNK`` orders at a time with the time limit
    checked between them."""
    if len(orders) <= CHUNK:
        with arb_precision(prec):
            return arb_renyi_orders(f, orders)
    out: list = []
    for start in range(0, len(orders), CHUNK):
        with arb_precision(prec):
            part = arb_renyi_orders(f, orders[start:start + CHUNK])
        if part is None:
            return None
        out.extend(part)
        budget.check()
    return out
