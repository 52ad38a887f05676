"""Upper bounds on Renyi divergences at many orders, certified in Arb: the dispatch point
:func:`arb_renyi_bounds` (a bound, never an identity: a node registers it where no enclosure
of D_a is known) and Wang, Balle & Kasiviswanathan's bound for sampling without replacement.

**The theorem** (Wang, Balle & Kasiviswanathan, "Subsampled Renyi differential privacy and
analytical moments accountant", AISTATS 2019, Thm. 9). Neighbouring relation: replace-one
(datasets of the same public size n differing in one record); subsampling: a uniformly random
subset of m = gamma n records, without replacement. If the base mechanism M (on datasets of
size m, replace-one) is (j, eps(j))-RDP at every integer j >= 2, then M o Sample_m is
(a, eps'(a))-RDP at every integer a >= 2 with

    eps'(a) <= log A(a)/(a - 1),
    A(a) = 1 + gamma^2 C(a, 2) min{4 (e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps(oo)} - 1)^2}}
             + sum_{j=3}^{a} gamma^j C(a, j) e^{(j - 1) eps(j)} min{2, (e^{eps(oo)} - 1)^j}.

Every term is computed as printed: eps(oo) = D_oo of the base (its closed form ``renyi_form``
at a = oo, an Arb ball; +oo, e.g. the Gaussian, or unknown: min{2, .} = 2), so for a base with
a bounded likelihood ratio (the Laplace pair: eps(oo) = mu) the terms carry
(e^{eps(oo)} - 1)^j, far below 2 for a small eps(oo) (C_{1/10}(L_{1/10}): 1.1e-4 at a = 2
and 5.7e-4 at a = 10, where 2 gave 3.9e-4 and 3.0e-2).

Fractional orders: K(a) = log E_Q[(P/Q)^a] = (a - 1) D_a is convex in a (Hoelder), K(1) = 0,
so K(a) <= (1 - t) K(floor a) + t K(ceil a), t = a - floor a (their Cor. 10), each K(k) <=
log A(k).

**Why it bounds D_a(C_p(f)) itself** (C_p(f) = min{f_p, f_p^{-1}}^{**}, Dong, Roth & Su,
Def. 6 and Eq. (13), the trade-off function ``from_dp_event`` gives this mechanism; f
symmetric, f = T(P0, Q1) with densities p0, q1, w = q1/p0, eps(j) = D_j(Q1 || P0) from f's
program ``renyi_orders``). By Eq. (13) the hull is f_p up to its point of slope -1, a segment
of slope -1, then f_p^{-1}; f_p = T(P0, (1 - p) P0 + p Q1) has slope -(1 - p + p w), so the
hull is the trade-off of the pair (P_h, Q_h): on a copy "+" of {w > 1}, P0 against
(1 - p) P0 + p Q1; on a copy "-" of {w > 1}, (1 - p) P0 + p Q1 against P0; and a common part
of equal mass on both sides (the segment). So |P_h - Q_h| = p (q1 - p0) on both copies and 0
on the common part, Q_h >= p0 on both copies, and the masses are equal. For integer a,

    E_{Q_h}[(P_h/Q_h)^a] = sum_j C(a, j) E_{Q_h}[((P_h - Q_h)/Q_h)^j],

the j = 0 term 1, the j = 1 term 0, and for j >= 2

    |E_{Q_h}[((P_h - Q_h)/Q_h)^j]| <= 2 p^j E_{P0}[(w - 1)^j; w > 1] <= 2 p^j E_{P0}[w^j]
                                    = 2 p^j e^{(j-1) eps(j)}

(0 < w - 1 < w on {w > 1}), and for j = 2, 2 p^2 E_{P0}[(w - 1)^2] = 2 p^2 (e^{eps(2)} - 1)
<= p^2 min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}. With W = e^{eps(oo)} finite: f symmetric, so
1/W <= w <= W, and the total variation E_{P0}[(w - 1)_+] = Q1(S) - P0(S) (S = {w > 1}) is at
most (W - 1)/(W + 1) (Q1(S) <= W P0(S) and 1 - Q1(S) >= (1 - P0(S))/W; the two bounds meet at
P0(S) = 1/(W + 1)); so 2 E_{P0}[(w - 1)^j; w > 1] <= 2 (W - 1)^{j-1} E_{P0}[(w - 1)_+]
<= 2 (W - 1)^j/(W + 1) <= (W - 1)^j <= e^{(j-1) eps(j)} (W - 1)^j (E_{P0}[w^j] >= 1 by
Jensen), which gives the theorem's other branch min{2, (W - 1)^j} for every j >= 2 (at j = 2,
e^{eps(2)} (W - 1)^2). Any upper bound of eps(oo) keeps the bound valid (it is increasing in
eps(oo)), and either branch of a min is a valid bound, so a ball's upper end stays one
whichever branch its midpoint picks. Term by term E_{Q_h}[(P_h/Q_h)^a] <= A(a); C_p(f)
is symmetric, so D_a(P_h || Q_h) = D_a(Q_h || P_h) <= log A(a)/(a - 1). (Checked in the tests
against the hull pair's divergence by 40-digit quadrature, which lies below, and against
dp_accounting's ``_compute_rdp_sample_wor_gaussian``, the authors' strengthened Thm. 27,
which lies below.)

Every value is an Arb ball of log A(a)/(a - 1) from the exact order, the Arb (or exact) p and
the base's balls: its upper end is a certified upper bound on the divergence, not an
enclosure of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import sympy as sp
from flint import arb, fmpq

from ..core.errors import NoClosedForm
from .arb_expr import arb_ball
from .capability import renyi_form
from .renyi_orders import _orders

__all__ = ["arb_renyi_bounds", "renyi_bounds", "renyi_bounds_all", "wbk_bounds", "has_bounds",
           "max_divergence_ball", "WBK_CITE"]

#: What the values of :func:`wbk_bounds` are, for the notions that carry them.
WBK_CITE = ("upper bound: Wang, Balle & Kasiviswanathan (AISTATS 2019), Thm. 9 (sampling "
            "without replacement, replace-one neighbours; Cor. 10 between integer orders), "
            "which also bounds D_a of C_p(f) (numeric.renyi_wor)")


@singledispatch
def arb_renyi_bounds(f: Any, orders: Sequence) -> list | None:
    """Upper bounds on D_a(P || Q) and D_a(Q || P) of f = T(P, Q) at each order (as
    ``numeric.renyi_orders.arb_renyi_orders`` takes them), as Arb balls whose upper ends are
    the bounds, at the current Arb precision; None where no bound is registered."""
    return None


_DEFAULT = arb_renyi_bounds.dispatch(object)


def has_bounds(f: Any) -> bool:
    """Whether f's class registers a program with :func:`arb_renyi_bounds`."""
    return arb_renyi_bounds.dispatch(type(f)) is not _DEFAULT


def renyi_bounds(f: Any, orders: Sequence, dps: int) -> list | None:
    """As :func:`renyi_bounds_all`, with None at an order whose ball stays too wide (the
    caller's route answers it), and None where no bound is registered."""
    if not has_bounds(f):
        return None
    return _orders(f, orders, dps, arb_renyi_bounds.dispatch(type(f)))[0]


def renyi_bounds_all(f: Any, orders: Sequence, dps: int) -> list | None:
    """The bounds of :func:`arb_renyi_bounds` at every order, as balls of relative width below
    10^-dps (the driver of ``numeric.renyi_orders``: one precision, the wide balls again at
    twice and four times it), else None."""
    if not has_bounds(f):
        return None
    out, complete = _orders(f, orders, dps, arb_renyi_bounds.dispatch(type(f)))
    return out if complete else None


def max_divergence_ball(base: Any) -> arb | None:
    """eps(oo) = D_oo(P || Q) of the base f = T(P, Q) as an Arb ball at the current precision
    (from its closed form ``renyi_form(f, oo)``, enclosed by ``arb_ball``), or None where it is
    +oo, not known or not enclosed (the theorem's min{2, .} is then 2: still a bound)."""
    try:
        d = renyi_form(base, sp.oo)
    except NoClosedForm:
        return None
    if d is None or not isinstance(d, sp.Expr) or d.free_symbols or not d.is_finite:
        return None
    try:
        ball = arb_ball(d)
    except ValueError:
        return None
    return ball if ball.is_finite() else None


def wbk_bounds(p: arb | fmpq, base: Any, program, orders: Sequence,
               eps_inf: arb | fmpq | None | str = "auto") -> list | None:
    """log A(a)/(a - 1) (module docstring) at each order a > 1 (a Python int or an ``fmpq``),
    for the sampling fraction p in [0, 1] and the base f whose ``renyi_orders`` ``program``
    gives eps(j) = D_j at the integers 2..ceil(max order); None where the program does not
    answer them all. ``eps_inf``: eps(oo) of the base (an upper bound is enough), None for
    +oo, ``"auto"`` (the default) for :func:`max_divergence_ball` of the base. Cost: one exp
    per integer j and O(a) products per integer order."""
    top = max(o if type(o) is int else -(-int(o.p) // int(o.q)) for o in orders)
    ints = list(range(2, top + 1))
    eps = program(base, ints)
    if eps is None or any(e is None for e in eps):
        return None
    if isinstance(eps_inf, str):
        eps_inf = max_divergence_ball(base)
    b = None if eps_inf is None else arb(eps_inf).expm1()  # e^{eps(oo)} - 1
    p = arb(p)
    # u[j] = p^j times the j-th term's factor (j >= 2); u[0] = u[1] = 0 (1 is added apart)
    e2 = arb(eps[0])
    two = arb(2)
    bj = None if b is None else b * b  # (e^{eps(oo)} - 1)^j
    m2 = two if bj is None else min((two, bj), key=_mid)
    u = [arb(0), arb(0), p * p * min((4 * e2.expm1(), e2.exp() * m2), key=_mid)]
    pj = p * p
    for j, e in zip(ints[1:], eps[1:], strict=True):
        pj = pj * p
        if bj is not None:
            bj = bj * b
        mj = two if bj is None else min((two, bj), key=_mid)
        u.append(pj * (arb(e) * (j - 1)).exp() * mj)
    need = set()
    for o in orders:
        if type(o) is int:
            need.add(o)
        else:
            fl = int(o.p) // int(o.q)
            need.update((fl, fl + 1))
    K = {1: arb(0)}
    for a in sorted(need - {1}):
        s, c = arb(0), 1
        for j in range(1, a + 1):  # c = C(a, j)
            c = c * (a - j + 1) // j
            if j >= 2:
                s += u[j] * c
        K[a] = s.log1p()
    out = []
    for o in orders:
        if type(o) is int:
            out.append(K[o] / (o - 1))
        else:
            fl = int(o.p) // int(o.q)
            t = o - fl
            out.append((K[fl] * (1 - t) + K[fl + 1] * t) / (o - 1))
    return out


def _mid(x: arb) -> float:
    """The float of a ball's midpoint (to choose between two valid bounds)."""
    return float(x.mid())
