"""The largest privacy loss of a product, exactly: sum_i n_i sup L_i over its factors' Arb laws.

Where the loss of Q against P never exceeds it, delta(eps) = E_Q[(1 - e^{eps - L})_+] (Dong,
Roth & Su, Prop. 6) vanishes from it on (``analysis.conversions`` answers an exact 0 there).
"""

from __future__ import annotations

import sympy as sp

from ..core.node import TradeOff
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
            if ball is None or not ball.is_exact() or not ball.is_finite():
                return None
            s = exact_fraction(ball.mid())
        total += int(n) * sp.Rational(s.numerator, s.denominator) \
            if not isinstance(s, sp.Basic) else int(n) * s
    return total
