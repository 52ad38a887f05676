"""Renyi divergences of a finite pair at many orders at once, in Arb, from its exact atoms.

For f = T(P, Q) with an exact finite loss (``numeric.finite``: randomized response, f_{eps,0},
finite pairs, the discrete Laplace mechanism with Delta = 1, and products and powers of them
up to ``MAX_ATOMS`` atoms), D_a(P || Q) is

    D_a = log(S_a)/(a - 1),   S_a = sum_i p_i rho_i^{a-1},   rho_i = p_i / q_i,

(Mironov 2017, Def. 3), summed over the atoms of the exact table. Every term of S_a is
positive, so nothing cancels; the masses are the table's Arb balls (``FiniteLoss.arb_items``:
built in Arb, no SymPy, taken once for both directions), and at consecutive integer orders
the terms p_i rho_i^{a-1} are updated by one product each (a fractional order:
exp((a - 1) log rho_i)). An outcome with q_i = 0 < p_i makes D_a infinite for a > 1: None
(the general route says so). This is a program of the signature of
``numeric.renyi_orders.arb_renyi_orders`` for every node with an affordable exact finite loss,
run by that module's driver (``finite_orders``), which checks the balls' widths: the RDP curve
of 4-ary randomized response at 100 orders costs about a microsecond an order instead of a
SymPy closed form compiled per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import add, mul
from typing import Any

from flint import arb, ctx

from ..numeric.finite import finite_loss
from ..numeric.renyi_orders import _orders

__all__ = ["finite_renyi_orders", "finite_orders", "MAX_ATOMS", "MAX_UNITS"]

#: The most atoms summed at each order (a larger table: the closed-form routes).
MAX_ATOMS = 256
#: The largest table built here, in the elementary products of ``FiniteLoss.cost`` (simulated
#: without building it): the work stays bounded, as the quick path of ``RDP.of`` needs.
MAX_UNITS = 4096


def finite_renyi_orders(f: Any, orders: Sequence, reverse: bool = False) -> list | None:
    """D_a(P || Q) of f's exact finite loss at each order (Python ints or ``fmpq`` > 1) as Arb
    balls at the current precision (module docstring); ``reverse``: D_a(Q || P), the same sum
    with the masses exchanged (the other direction of a neighbouring pair, without forming
    the inverse node). None where f has no affordable exact finite loss of at most
    ``MAX_ATOMS`` atoms, an outcome has q = 0 < p, or a mass cannot be enclosed."""
    fl = finite_loss(f)
    if fl is None:
        return None
    items = _items(fl, ctx.prec)
    if items is None or len(items) > MAX_ATOMS:
        return None
    masses, ratios = [], []
    for p, q in items:
        if reverse:
            p, q = q, p
        if p.is_zero():
            continue
        if not q > 0:
            return None  # q = 0 < p: D_a = oo for a > 1 (or a sign not decided)
        masses.append(p)
        ratios.append(p / q)
    if not masses:
        return None
    out = []
    append = out.append
    prev, terms = -2, None
    for a in orders:
        if type(a) is int:
            if a == prev + 1:  # (the terms p_i rho_i^{a-1}: one product each)
                terms = list(map(mul, terms, ratios))
            else:
                terms = [p * r ** (a - 1) for p, r in zip(masses, ratios, strict=True)]
            prev = a
            append(reduce(add, terms).log() / (a - 1))
        else:
            prev = -2
            A1 = arb(a) - 1
            s = arb(0)
            for p, r in zip(masses, ratios, strict=True):
                s += p * (r.log() * A1).exp()
            append(s.log() / A1)
    return out


#: The last table's Arb masses, (loss, prec, items): D_a(P || Q) and D_a(Q || P) are asked one
#: after the other of the same loss (``notions.renyi_curve``), so the second reads the first's
#: balls. Read and written inside the driver's section, which holds the Arb precision lock
#: (``numeric.renyi_orders._run``); the loss is kept, so its identity stays its own.
_LAST: list = [None, None, None]


def _items(fl: Any, prec: int) -> list | None:
    """``fl.arb_items(prec)`` when ``fl`` is affordable (``MAX_UNITS``), else None; the last
    answer kept (``_LAST``)."""
    if _LAST[0] is fl and _LAST[1] == prec:
        return _LAST[2]
    items = fl.arb_items(prec) if fl.affordable(MAX_UNITS) else None
    _LAST[:] = [fl, prec, items]
    return items


def finite_orders(f: Any, orders: Sequence, dps: int,
                  reverse: bool = False) -> tuple[list | None, bool]:
    """(:func:`finite_renyi_orders` run by the driver of ``numeric.renyi_orders``: balls of
    relative width below 10^-dps, None at an order still too wide; whether every order is
    answered)."""
    return _orders(f, orders, dps, _reverse if reverse else finite_renyi_orders)


def _reverse(f: Any, orders: Sequence) -> list | None:
    return finite_renyi_orders(f, orders, True)
