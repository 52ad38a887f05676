"""Renyi divergences of products and powers at many orders at once, from their factors' programs.

For f = T(P_1 x ... x P_n, Q_1 x ... x Q_n) (Dong, Roth & Su, Def. 5) the Renyi divergence
adds over the factors (van Erven & Harremoes 2014, Thm. 28):

    D_a(P_1 x ... x P_n || Q_1 x ... x Q_n) = sum_i D_a(P_i || Q_i),

since the integral of prod_i p_i^a q_i^{1-a} over the product space is the product of the
factors' integrals (Fubini), and the logarithm of the product is the sum of the logarithms. So
the capability "renyi_orders" (``numeric.renyi_orders``) of ``Tensor(f_1, ..., f_n)`` is the
sum of its factors' programs, and that of ``TensorPower(f, k)`` k times f's, order by order:
Arb balls add as balls (their sum contains the sum of the divergences), exact ``fmpq`` stay
exact. A factor without a program, an order a factor leaves out (None) or a symbolic power
gives None there, and the caller's other routes answer. This is what dp_accounting's
RdpAccountant does for ``ComposedDpEvent`` and ``SelfComposedDpEvent`` (its curves add), here
with certified values: ``RDP.of(Laplace(1)**10)`` runs one Laplace program and multiplies.
A power of a node with a registered certified upper bound (``numeric.renyi_wor``: C_p(f),
sampling without replacement) has k times its bounds as bounds (``arb_renyi_bounds``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from flint import fmpq

from ..numeric.renyi_orders import _program, arb_renyi_orders, has_program
from ..numeric.renyi_wor import arb_renyi_bounds, has_bounds
from ..operators.tensor import Tensor, TensorPower

__all__: list[str] = []


@arb_renyi_orders.register(Tensor)
def _(f, orders: Sequence) -> list | None:
    """The sum of the factors' programs at each order (module docstring)."""
    if not all(map(has_program, f.factors)):
        return None
    out = None
    for g in f.factors:
        vals = _program(g)(g, orders)
        if vals is None:
            return None
        out = vals if out is None else [None if x is None or y is None else x + y
                                         for x, y in zip(out, vals, strict=True)]
    return out


@arb_renyi_orders.register(TensorPower)
def _(f, orders: Sequence) -> list | None:
    """k times the base's program at each order, for an integer power k >= 0 (module
    docstring); k = 0 (Id) gives 0 exactly."""
    k = f.n
    if not isinstance(k, sp.Integer) or not has_program(f.base):
        return None
    k = int(k)
    if k == 0:
        return [fmpq(0)] * len(orders)
    vals = _program(f.base)(f.base, orders)
    if vals is None:
        return None
    return [None if v is None else v * k for v in vals]


@arb_renyi_bounds.register(TensorPower)
def _(f, orders: Sequence) -> list | None:
    """Certified upper bounds for a power of a node with registered bounds (C_p(f) of a
    symmetric f: ``numeric.renyi_wor``): k times the base's bounds at each order, since
    D_a(P^k || Q^k) = k D_a(P || Q) (module docstring) and each base ball's upper end bounds
    D_a(P || Q) and D_a(Q || P); dp_accounting's SelfComposedDpEvent of a
    SampledWithoutReplacementDpEvent multiplies its curve the same way."""
    k = f.n
    if not isinstance(k, sp.Integer) or not has_bounds(f.base):
        return None
    k = int(k)
    if k == 0:
        return [fmpq(0)] * len(orders)
    vals = arb_renyi_bounds.dispatch(type(f.base))(f.base, orders)
    if vals is None:
        return None
    return [None if v is None else v * k for v in vals]
