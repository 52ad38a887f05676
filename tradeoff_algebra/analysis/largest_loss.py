"""The largest privacy loss of a product, exactly: sum_i n_i sup L_i over its factors' Arb laws.

Where the loss of Q against P never exceeds it, delta(eps) = E_Q[(1 - e^{eps - L})_+] (Dong,
Roth & Su, Prop. 6) vanishes from it on (``analysis.conversions`` answers an exact 0 there).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import sympy as sp

from ..core.errors import NoClosedForm
from ..core.node import TradeOff
from ..numeric.arb_expr import Unenclosable, arb_enclose, certify
from ..numeric.finite import finite_loss
from ..numeric.lattice_product import exact_fraction
from ..numeric.value import Value


def largest_loss_exact(f: TradeOff) -> sp.Expr | None:
    """sum_i n_i sup L_i exactly for a product f = (x)_i f_i^{n_i}, from each factor's Arb law
    (``privacy_loss(f_i).law()``): its optional ``loss_sup_exact()`` (L_mu: mu), else its
    ``loss_sup()`` ball where that ball is exact; None where a factor has no law, an unbounded
    loss, mass at +oo, or no exact supremum. (Any exact upper bound of the loss would do: the
    product's loss is the sum of the factors', so delta vanishes from that sum on.)"""
    from ..numeric.privacy_loss import privacy_loss
    from ..routes.plan import pld_leaves

    leaves = pld_leaves(f)
    if not leaves:
        return None
    total = sp.S.Zero
    for g, n in leaves:
        pl = privacy_loss(g)
        law = None if pl is None else pl.law()
        if law is None:
            return None
        at_inf = getattr(law, "mass_at_infinity", None)
        if at_inf is not None and not at_inf() == 0:
            return None
        exact = getattr(law, "loss_sup_exact", None)
        s = None if exact is None else exact()
        if s is None:
            ball = law.loss_sup()
            if ball is None or not ball.is_finite():
                return None
            s = exact_fraction(ball.mid()) if ball.is_exact() else _finite_sup(g)
            if s is None:
                return None
        total += int(n) * sp.Rational(s.numerator, s.denominator) \
            if not isinstance(s, sp.Basic) else int(n) * s
    return total


#: The most atoms of one finite factor whose largest loss is proved symbolically.
MAX_SUP_ATOMS = 64


def _finite_sup(g: TradeOff) -> sp.Expr | None:
    """The largest privacy loss log(Q/P) of the finite factor ``g`` exactly, as a SymPy number
    (RR(1, 3): log(e) = 1; the discrete Laplace of scale 3: log(e^{1/3}) = 1/3), where the Arb
    ball of its law is not exact (an irrational ratio, a non-dyadic loss); None where ``g`` has
    no exact table of at most :data:`MAX_SUP_ATOMS` atoms or the order is not proved.

    The proof: the exact atoms (ratio r_i, P_i, Q_i) of ``g`` with P_i > 0 are finite, so the
    supremum of the loss is max_i log r_i; a candidate r_top is that maximum when every other
    atom's ratio is proved below it (Arb balls of r_i - r_top entirely negative) or equal to it
    (SymPy simplifies r_i - r_top to 0). A ball that meets 0 without the identity leaves None."""
    fl = finite_loss(g)
    if fl is None:
        return None
    try:
        atoms = fl.raw_atoms(MAX_SUP_ATOMS)
    except (NoClosedForm, ArithmeticError, ValueError):  # no exact table: no exact supremum
        return None
    if not atoms:
        return None
    ratios = [r for r, p, _ in atoms if not p == 0]
    if not ratios or any(not r.is_finite for r in ratios):
        return None
    top = ratios[0]
    for r in ratios[1:]:
        d = r - top
        try:
            if arb_enclose(d, prec=128) < 0:
                continue
        except Unenclosable:
            pass
        if sp.simplify(d) != 0:
            return None
    s = sp.expand_log(sp.log(top), force=False)
    s = sp.simplify(s) if not s.is_Rational else s
    return s if s.is_real and s.is_finite else None


#: The most atoms of a finite loss whose table :func:`top_proved` reads.
TOP_ATOMS = 4000


def with_top(f: TradeOff, D: sp.Expr, dps: int, compute: Callable[[], Value]) -> Value:
    """``compute()`` (eps_f(D) by the routes) through :func:`top_proved` for a finite pair at a
    rational level; its warnings are held and given only where the routes' answer stands (a
    ToleranceWarning about the search's [0, +oo] does not belong to the certified top)."""
    if not isinstance(D, sp.Rational) or not 0 < D < 1 or finite_loss(f) is None:
        return compute()
    w = None
    try:
        with warnings.catch_warnings(record=True) as held:
            warnings.simplefilter("always")
            v = compute()
        w = top_proved(f, D, dps, v)
    finally:  # (the routes' warnings given wherever their answer, or their error, stands)
        if w is None or w is v:
            for m in held:
                warnings.warn_explicit(m.message, m.category, m.filename, m.lineno,
                                       source=m.source)
    return w


def top_proved(f: TradeOff, D: sp.Expr, dps: int, v: Value) -> Value:
    """``v`` (eps_f(D) from any route) replaced by the certified largest finite loss of a finite
    pair when it is not certain and D = delta_f(oo) = Q(P = 0) exactly: delta_f(eps) = Q(P = 0)
    + sum over the atoms of ratio r > e^eps of (Q - e^eps P) (Prop. 6), equal to D exactly for
    e^eps >= r_max (the largest finite ratio of an atom with P > 0) and above it below, so
    eps_f(D) = max(0, log r_max). At that level every delta ball ties with D, and the search
    proved nothing (it returned [1.07e9, +oo], or [0, +oo]). Leaves ``v`` as it is elsewhere."""
    if v.is_certain or not isinstance(D, sp.Rational) or not 0 < D < 1:
        return v
    fl = finite_loss(f)
    if fl is None or not fl.affordable():
        return v
    try:
        atoms = fl.raw_atoms(TOP_ATOMS)  # (by decreasing ratio)
    except NoClosedForm:
        return v
    if atoms is None:
        return v
    q_inf = sum((q for r, _, q in atoms if r is sp.S.Infinity), sp.S.Zero)
    finite = [r for r, p, _ in atoms if r is not sp.S.Infinity and p != 0]
    if not finite or sp.simplify(q_inf - D) != 0:
        return v
    r_max = finite[0]
    if (r_max <= 1) is sp.true:
        return Value.from_exact(sp.S.Zero, dps).routed(_TOP_ROUTE)
    if (r_max > 1) is not sp.true:
        return v
    got = certify(sp.log(r_max), dps)
    return v if got is None else got.routed(_TOP_ROUTE)


_TOP_ROUTE = "delta = delta(oo) from the largest finite loss on (Prop. 6; the exact atoms)"
