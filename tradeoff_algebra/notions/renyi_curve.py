"""The RDP curve of a mechanism at many orders from its families' Arb programs (the
capability ``renyi_orders``, ``numeric.renyi_orders``): the orders taken as they are when
they are Python ints, each side's values, their exact upper ends (Arb balls rounded up, or
exact ``fmpq``) and the SymPy ``Dict`` of the curve, formed only when it is first read
(:class:`_PendingCurve`). Used by :meth:`notions.renyi_dp.RDP.of`, which asks
:func:`quick_batch` first: Python int orders, at most ``CHUNK`` of them, every one answered by
the sides' programs. Two more kinds take the same quick path: a notion whose RDP curve is
affine, a -> xi + rho a on (1, omega) (zCDP, tCDP: ``_affine_rdp``), read at the orders as
exact ``fmpq``; and a node with no enclosure of D_a but a registered certified upper bound
(``numeric.renyi_wor.arb_renyi_bounds``: C_p(f) of a symmetric f with a program, Wang, Balle &
Kasiviswanathan's Thm. 9), whose curve says so (``RDP.bound``). Products and powers of nodes
with programs have one, the sum of their factors' (``analysis.renyi_products``); a node with
no program but a small exact finite loss (randomized response, f_{eps,0}, finite pairs, the
discrete Laplace pair with Delta = 1) takes both directions from its atoms in Arb
(``analysis.renyi_finite``).
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from flint import fmpq
from sympy.core.expr import Expr

from ..analysis import renyi_products  # noqa: F401 (the programs of products and powers)
from ..analysis.renyi_batch import dyadic
from ..analysis.renyi_finite import finite_orders
from ..core.errors import TradeOffError
from ..core.node import TradeOff
from ..numeric.context import arb_precision
from ..numeric.finite import finite_loss
from ..numeric.renyi_orders import (
    CHUNK,
    _program,
    flint_order,
    has_program,
    precision_bits,
    renyi_orders,
    renyi_orders_all,
)
from ..numeric.renyi_wor import (
    WBK_CITE,
    arb_renyi_bounds,
    has_bounds,
    renyi_bounds,
    renyi_bounds_all,
    wbk_bounds,
)
from ..operators.mechanism import AddRemove
from ..operators.subsample import Subsample
from ..operators.unary import Inverse

#: The largest dps :func:`quick_batch` takes: each program does O(1) Arb operations an order,
#: microseconds at up to ~180 bits, so ``CHUNK`` orders end within milliseconds and the
#: section needs no deadline.
QUICK_DPS = 50


def quick_batch(f: Any, orders: Any, dps: int) -> tuple[list, list, str | None] | None:
    """(the orders as a list, each side's values there, None or what the values bound) when
    ``orders`` is a list, tuple or range of at most ``CHUNK`` Python ints > 1,
    1 <= dps <= ``QUICK_DPS``, and f is a trade-off expression (``AddRemove(g)``: g's two
    directions) whose sides all have a program (``numeric.renyi_orders``) answering every
    order, or a registered bound (``numeric.renyi_wor``: the third entry says which), or a
    notion with an affine RDP curve (``_affine_rdp``: exact values); else None (``RDP.of``
    takes its general route, which validates and runs under a deadline). Bounded work
    (``QUICK_DPS``); an unexpected error of a program is left to the general route, which
    reports it."""
    if type(orders) not in (list, tuple, range) or not 0 < len(orders) <= CHUNK \
            or set(map(type, orders)) != {int} or min(orders) < 2 \
            or not 0 < dps <= QUICK_DPS:
        return None
    if not isinstance(f, TradeOff):
        vals = affine_values(f, orders)
        return None if vals is None else (list(orders), [vals], None)
    g = f.arg if isinstance(f, AddRemove) else f
    bound = None
    try:
        if has_program(g):
            sides = [g] if g.is_symmetric else [g, Inverse(g)]
            orders = list(orders)
            batch = []
            for h in sides:
                vals = renyi_orders_all(h, orders, dps) if has_program(h) else None
                if vals is None:
                    return None
                batch.append(vals)
        elif has_bounds(g) and g.is_symmetric is True:
            orders = list(orders)
            vals = renyi_bounds_all(g, orders, dps)
            if vals is None:
                return None
            batch, bound = [vals], WBK_CITE
        else:
            orders = list(orders)
            batch = _finite_batch(g, orders, dps)
            if batch is None:
                return None
    except TradeOffError:
        raise
    except Exception:  # (the general route runs it again under its safety net)
        return None
    return orders, batch, bound


def affine_values(notion: Any, orders: Any) -> list | None:
    """xi + rho a at each order a (Python ints or SymPy rationals) as exact ``fmpq``, for a
    notion whose RDP curve is affine (``_affine_rdp()``: (xi, rho, omega) as ``fmpq`` and
    omega as ``fmpq`` or None for oo; zCDP, tCDP) with every order below omega; else None."""
    affine = getattr(notion, "_affine_rdp", None)
    form = affine() if affine is not None else None
    if form is None:
        return None
    xi, rho, omega = form
    if type(orders) is not range and any(type(a) is not int for a in orders):
        try:
            orders = [fmpq(a) if type(a) is int else fmpq(int(a.p), int(a.q)) for a in orders]
        except (AttributeError, TypeError):
            return None
    if omega is not None and any(a >= omega for a in orders):
        return None
    out, prev, v = [], None, None
    append = out.append
    for a in orders:  # (consecutive ints: one exact addition each)
        v = v + rho if type(a) is int and a - 1 == prev else xi + rho * a
        prev = a
        append(v)
    return out


@arb_renyi_bounds.register(Subsample)
def _(f, orders):
    """C_p(g) for a symmetric g with a program ``renyi_orders``: Wang, Balle &
    Kasiviswanathan's Thm. 9 from g's D_j at the integers (``numeric.renyi_wor``, where the
    proof that it bounds D_a(C_p(g)) is); None for a symbolic p or another g."""
    g, p = f.arg, f.p
    if not (g.is_symmetric is True and has_program(g) and isinstance(p, sp.Rational)):
        return None
    return wbk_bounds(fmpq(int(p.p), int(p.q)), g, _program(g), orders)


def _int_orders(orders: Any) -> list | None:
    """``orders`` as a list when it is a non-empty list, tuple or range of Python ints > 1
    (valid as they are), else None (``_order_list`` validates)."""
    if type(orders) not in (list, tuple, range) or not orders:
        return None
    for a in orders:
        if type(a) is not int or a < 2:
            return None
    return list(orders)


def _capability_orders(sides: list, orders: list, dps: int, ints: bool) -> list | None:
    """Per side, the list of its values at the orders from the capability "renyi_orders"
    (``numeric.renyi_orders``: Arb balls of relative width below 10^-dps or exact ``fmpq``,
    None at an order it leaves out); None where a side has no such program or an order is
    not rational (+oo). ``ints``: the orders are Python ints (nothing to convert)."""
    programs = all(map(has_program, sides))
    if not programs and finite_loss(sides[0]) is None:  # (before converting the orders)
        return None
    if not ints:
        if not all(a.is_Rational for a in orders):
            return None
        orders = [flint_order(a) for a in orders]
    if not programs:
        out = [finite_orders(h, orders, dps)[0] for h in sides]
        return None if None in out else out
    out = []
    for h in sides:
        vals = renyi_orders(h, orders, dps)
        if vals is None:
            return None
        out.append(vals)
    return out


def _finite_batch(g: Any, orders: list, dps: int) -> list | None:
    """Each side's values at the Python int orders from g's exact finite loss
    (``analysis.renyi_finite``: D_a(P || Q) and D_a(Q || P); every order answered), or
    None."""
    if finite_loss(g) is None:
        return None
    batch = []
    for reverse in (False, True):  # (both from g's table; a symmetry test may cost more:
        # Discrete.is_symmetric builds the exchanged pair, 2 ms for 4-ary randomized response)
        vals, complete = finite_orders(g, orders, dps, reverse)
        if not complete:
            return None
        batch.append(vals)
    return batch


def _bound_orders(g: Any, orders: list, dps: int, ints: bool) -> list | None:
    """The values of a registered bound (``numeric.renyi_wor``) of a symmetric g at every
    order (rational: Python ints when ``ints``, else SymPy rationals), as one side's list;
    None where there is none, an order is not rational or a ball stays too wide."""
    if not (has_bounds(g) and g.is_symmetric is True):
        return None
    if not ints:
        if not all(a.is_Rational for a in orders):
            return None
        orders = [flint_order(a) for a in orders]
    vals = renyi_bounds(g, orders, dps)
    return None if vals is None or None in vals else [vals]


def _exact_upper(v: Any) -> sp.Rational:
    """The upper end of an Arb ball (at least 0: a divergence is never negative; rounded up
    to the current precision) or an exact ``fmpq``, as an exact SymPy rational."""
    if type(v) is fmpq:
        p, q = int(v.p), int(v.q)
        if p <= 0:
            return sp.S.Zero
        if q == 1:
            return sp.Integer(p)
        r = Expr.__new__(sp.Rational)  # (fmpq is in lowest terms: SymPy's gcd not needed)
        r.p, r.q = p, q
        return r
    man, exp = v.upper().man_exp()
    return sp.S.Zero if man <= 0 else dyadic(int(man), int(exp))


def _largest_upper(values: tuple, dps: int) -> sp.Rational:
    """The largest of the sides' upper ends (:func:`_exact_upper`, rounded up to
    ``precision_bits(dps) + 36`` bits, 32 beyond the relative width 10^-dps of the balls):
    eps(a) bounds both directions."""
    with arb_precision(precision_bits(dps) + 36):
        return max(_exact_upper(v) for v in values)


def _integer(a: int) -> sp.Integer:
    """The SymPy Integer a >= 2 built directly (SymPy's cached constructor costs more)."""
    r = Expr.__new__(sp.Integer)
    r.p = a
    return r


class _PendingCurve:
    """The curve of :meth:`RDP._pending`: its orders (Python ints or SymPy rationals) and
    each side's values there; called once, it forms the SymPy ``Dict`` of the upper ends
    (rounded up to ``precision_bits(dps) + 36`` bits, as :func:`_largest_upper`)."""

    __slots__ = ("orders", "batch", "dps")

    def __init__(self, orders: list, batch: list, dps: int):
        self.orders, self.batch, self.dps = orders, batch, dps

    def __call__(self) -> sp.Dict:
        with arb_precision(precision_bits(self.dps) + 36):
            ends = [list(map(_exact_upper, vals)) for vals in self.batch]
        vals = ends[0] if len(ends) == 1 else [max(t) for t in zip(*ends, strict=True)]
        keys = [_integer(a) if type(a) is int else a for a in self.orders]
        return _number_dict(dict(zip(keys, vals, strict=True)))


def _number_dict(items: dict) -> sp.Dict:
    """``sp.Dict(items)`` for keys that are distinct SymPy numbers (rationals, oo): SymPy
    orders a Dict's pairs by ``default_sort_key``, which for such keys is their numeric
    order, so the pairs sorted by value are the same arguments (equality and hashing agree)
    without SymPy's sort keys."""
    if not all(isinstance(a, sp.Rational) or a is sp.oo for a in items):
        return sp.Dict(items)
    ordered = sorted(items.items(), key=lambda kv: (
        kv[0] is sp.oo, kv[0].p / kv[0].q if kv[0] is not sp.oo else 0))
    keys = [kv[0] for kv in ordered]
    if any(not (x is sp.oo or y is sp.oo) and x.p * y.q >= y.p * x.q
           for x, y in zip(keys, keys[1:], strict=False)):  # (floats that do not order them)
        ordered.sort(key=lambda kv: (kv[0] is sp.oo, sp.Rational(kv[0]) if kv[0] is not sp.oo
                                     else 0))
    pairs = [sp.Basic.__new__(sp.Tuple, a, t) for a, t in ordered]  # (sp.Tuple, unsympified)
    d = sp.Basic.__new__(sp.Dict, *pairs)
    d.elements = frozenset(pairs)
    d._dict = dict(ordered)
    return d
