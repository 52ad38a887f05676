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
width 10^-dps (its bits plus ``GUARD`` bits: a program that loses more, by cancellation, is
recomputed), the balls accepted when finite with a relative radius below 2^-(bits + 4) (so
below 10^-dps: ``rel_accuracy_bits`` is -log2(rad/|mid|)), the others recomputed once at twice
and once at four times the precision, and what is still too wide left out (None: the caller's
order-by-order route answers it); :func:`renyi_orders_all` is the same when every order is
answered, else None. Every value is a ball of Arb's interval arithmetic from the exact
rational order and the exact (or Arb-enclosed) parameters, or an exact rational: certified.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

from flint import arb, ctx, fmpq

from . import budget
from .context import _ARB_LOCK, arb_precision

__all__ = ["arb_renyi_orders", "renyi_orders", "renyi_orders_all", "has_program", "flint_order",
           "precision_bits", "GUARD"]

#: Orders handled between two checks of the time limit.
CHUNK = 4096

#: Bits of the first working precision beyond the requested accuracy (``precision_bits``): a
#: program with O(1) rounded operations an order loses a few; one that loses more (the Laplace
#: pair's mu + log(.)/(a - 1) at small mu cancels about log2(1/mu) bits) is recomputed at twice
#: the precision.
GUARD = 12


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
    return type(f) in _REGISTRY or arb_renyi_orders.dispatch(type(f)) is not _DEFAULT


def _program(f: Any):
    """The program of f's class: the registry's entry for the class itself, else the
    dispatch along its bases (``functools.singledispatch``)."""
    p = _REGISTRY.get(type(f))
    return p if p is not None else arb_renyi_orders.dispatch(type(f))


def flint_order(a: Any):
    """A rational order as the point takes it: an ``int`` for an integer, else an ``fmpq``
    (``a``: a Python int, a SymPy Rational or anything with ``p`` and ``q``)."""
    if type(a) is int:
        return a
    p, q = int(a.p), int(a.q)
    return p if q == 1 else fmpq(p, q)


_DEFAULT = arb_renyi_orders.dispatch(object)
_REGISTRY = arb_renyi_orders.registry  # (a live view: later registrations appear in it)


def precision_bits(dps: int) -> int:
    """The relative accuracy in bits that gives a relative width below 10^-dps, with 4 to
    spare: ceil(dps log2(10)) + 4."""
    return math.ceil(dps * 3.3219280948873626) + 4


def renyi_orders(f: Any, orders: Sequence, dps: int) -> list | None:
    """D_a(P || Q) of f at each order (as :func:`arb_renyi_orders` takes them): a list of Arb
    balls of relative width below 10^-dps or exact ``fmpq`` (None at an order left to the
    caller), or None where f has no program (module docstring)."""
    return _orders(f, orders, dps)[0]


def renyi_orders_all(f: Any, orders: Sequence, dps: int) -> list | None:
    """:func:`renyi_orders` when it answers every order, else None."""
    out, complete = _orders(f, orders, dps)
    return out if complete else None


def _orders(f: Any, orders: Sequence, dps: int, program=None) -> tuple[list | None, bool]:
    """(the values of :func:`renyi_orders`, whether every order is answered); ``program``:
    another program of the same signature run by the same driver (``numeric.renyi_wor``'s
    bounds), f's own by default."""
    need = precision_bits(dps)
    prec = need + GUARD
    program = _program(f) if program is None else program
    out = _run(program, f, orders, prec)
    if out is None:
        return None, False
    if _all_accepted(out, need):
        return out, True
    for _ in range(2):  # the balls too wide (or not finite): again at twice the precision
        wide = [i for i, v in enumerate(out) if v is not None and not _accepted(v, need)]
        if not wide:
            break
        prec *= 2
        again = _run(program, f, [orders[i] for i in wide], prec)
        for i, v in zip(wide, again, strict=True):
            out[i] = v
    out = [v if v is None or _accepted(v, need) else None for v in out]
    return out, all(v is not None for v in out)


def _all_accepted(vals: list, need: int) -> bool:
    """Whether every value is :func:`_accepted` (no None), in one pass of C-level maps for a
    list of balls or of rationals alone."""
    kinds = set(map(type, vals))
    if kinds == {arb}:
        return all(map(arb.is_finite, vals)) and min(map(arb.rel_accuracy_bits, vals)) >= need
    if kinds == {fmpq}:
        return True
    return all(v is not None and _accepted(v, need) for v in vals)


def _accepted(v: Any, need: int) -> bool:
    """An exact ``fmpq``, or a finite ball of relative accuracy at least ``need`` bits."""
    return type(v) is fmpq or (v.is_finite() and v.rel_accuracy_bits() >= need)


def _run(program, f: Any, orders: Sequence, prec: int) -> list | None:
    """The program at precision ``prec``, ``CHUNK`` orders at a time with the time limit
    checked between them. The Arb precision is process-global: the section holds the lock of
    ``context.arb_precision``, taken here at once when it is free (two fewer generators than
    the context manager, whose first use in a process costs about as much as a 100-order
    program), else through ``arb_precision`` (waiting with the deadline checked)."""
    if len(orders) <= CHUNK:
        if _ARB_LOCK.acquire(blocking=False):
            saved = ctx.prec
            try:
                ctx.prec = prec
                return program(f, orders)
            finally:
                ctx.prec = saved
                _ARB_LOCK.release()
        with arb_precision(prec):
            return program(f, orders)
    out: list = []
    for start in range(0, len(orders), CHUNK):
        with arb_precision(prec):
            part = program(f, orders[start:start + CHUNK])
        if part is None:
            return None
        out.extend(part)
        budget.check()
    return out
