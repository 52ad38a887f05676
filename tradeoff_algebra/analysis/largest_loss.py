"""The largest privacy loss of a product, exactly: sum_i n_i sup L_i over its factors' Arb laws.

Where the loss of Q against P never exceeds it, delta(eps) = E_Q[(1 - e^{eps - L})_+] (Dong,
Roth & Su, Prop. 6) vanishes from it on (``analysis.conversions`` answers an exact 0 there).
"""

from __future__ import annotations

import sympy as sp

from ..core.errors import NoClosedForm
from ..core.node import TradeOff
from ..numeric.arb_expr import Unenclosable, arb_enclose
from ..numeric.finite import finite_loss
from ..numeric.lattice_product import exact_fraction


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
