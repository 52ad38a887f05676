"""Products with a factor of irrational parameter that has no Arb law (L_mu with mu = sqrt(2),
pi/3, log 3), certified by a sandwich between rational parameters.

The certified routes of Laplace factors (the Arb law ``families.laplace.LaplaceLaw``, the
piecewise closed form ``numeric.cf_lattice_profile``, the inversion) need mu rational. For an
irrational mu, rationals a < mu < b are read from an Arb ball of mu, and

    L_b <= L_mu <= L_a

(L_mu is non-increasing in mu: Dong, Roth & Su, Prop. 7, the trade-off between Lap(0, 1) and
Lap(mu, 1), a larger shift being easier to test). The tensor product is monotone in each
operand (Lemma 4, part 2), so with every irrational Laplace factor replaced by L_a (resp. L_b)
the products f_a, f_b satisfy f_b <= f <= f_a, hence

    delta_{f_a}(eps) <= delta_f(eps) <= delta_{f_b}(eps)   (delta_f = sup 1 - e^eps alpha - f),
    eps_{f_a}(delta) <= eps_f(delta)  <= eps_{f_b}(delta),
    1 - f_a(alpha)   <= 1 - f(alpha)  <= 1 - f_b(alpha),

each end certified by the rational routes, so the pair is. The bracket [a, b] is dyadic and
narrowed until the gap it causes is below the tolerance (or below the ends' own widths).

The same holds for any factor of one scalar parameter that the family declares non-increasing
(``numeric.capability.monotonicity`` = (-1,)) and whose privacy loss has no Arb law at the
irrational value (``PrivacyLoss.law()`` None): such a factor is replaced, the others kept
(G_1 (x) L_sqrt(2)). A family whose law takes irrational parameters (G_mu) is never replaced.
"""

from __future__ import annotations

import math

from flint import arb
from sympy import Rational

from ..numeric import pld
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import monotonicity
from ..numeric.context import arb_precision, mp
from ..numeric.privacy_loss import exact_fraction, privacy_loss
from ..numeric.protocol import mp_delta, mp_epsilon, mp_roc, mp_value
from ..numeric.value import CertifiedPair
from .plan import _product
from .product import PASS, ROUTES, PLDRoute, Route

__all__ = ["ParameterSandwichRoute", "mu_bracket", "MAX_BITS"]

#: The most relative bits of the rational bracket of mu (a route past it answers what it has).
MAX_BITS = 160

_POINTS = {"value": mp_value, "roc": mp_roc, "delta": mp_delta, "epsilon": mp_epsilon}


def _replaceable(x) -> bool:
    """Is ``x`` a node of one positive irrational parameter (not rational, not a float), non-
    increasing in it, whose privacy loss has no Arb law (L_mu with mu = sqrt(2))?"""
    if x.free_symbols or len(x.args) != 1 or monotonicity(x) != (-1,):
        return False
    mu = x.args[0]
    if exact_fraction(mu) is not None or not (mu.is_positive and mu.is_finite):
        return False
    loss = privacy_loss(x)
    return loss is not None and getattr(loss, "law", None) is not None and loss.law() is None


def mu_bracket(mu, bits: int) -> tuple[Rational, Rational]:
    """Dyadic rationals 0 < a < mu < b with b - a = 2^(e - bits), 2^e <= mu < 2^(e+1), from an
    Arb ball of ``mu`` (a SymPy number) at ``bits + 40`` bits of precision: a proof of the
    order, never a rounded float."""
    e = math.floor(math.log2(float(mu)))
    with arb_precision(bits + 40 + abs(e)):
        ball = arb_ball(mu)
        if not ball.rad() < ball.mid().abs_lower() * arb(2) ** (-bits - 4):
            raise ValueError(f"mu = {mu}: its Arb ball {ball} is too wide for {bits} bits")
        scale = arb(2) ** (bits - e)
        lo = (ball.lower() * scale).floor()
        hi = (ball.upper() * scale).floor() + 1
        lo_i, hi_i = int(lo.unique_fmpz()), int(hi.unique_fmpz())
    den = Rational(2) ** (bits - e)
    a, b = Rational(lo_i) / den, Rational(hi_i) / den
    if not 0 < a < b:
        raise ValueError(f"mu = {mu}: no positive rational bracket at {bits} bits")
    return a, b


class ParameterSandwichRoute(Route):
    """A product with factors of irrational parameter mu (L_mu) between the products with those
    factors at a and b, a < mu < b rational (module docstring): each end by the certified
    routes of rational parameters, the pair certified where both ends are."""

    name = "sandwich between rational parameters (the factor non-increasing in its parameter)"
    questions = ("value", "roc", "delta", "epsilon")

    def supports(self, plan, question):
        return (plan[0] == "pld" and question in self.questions
                and any(_replaceable(x) for x, _ in plan[1]))

    def cost(self, plan, question):
        return 5.0  # (after every route of rational parameters, before the PLD engine)

    def _ends(self, leaves, question, args, bits):
        """The enclosures (at a, at b) of ``question`` with every irrational mu bracketed at
        ``bits`` relative bits; None where either is not certified."""
        out = []
        for side in (0, 1):
            ends = [(type(x)(mu_bracket(x.args[0], bits)[side]), n) if _replaceable(x)
                    else (x, n) for x, n in leaves]
            r = _POINTS[question](_product(ends), *args)
            if not isinstance(r, CertifiedPair):
                return None
            out.append(r)
        return out

    def enclose(self, f, plan, question, *args):
        tol = pld.options()["tol"]
        bits = max(24, math.ceil(math.log2(4 / tol)) + 8)
        best = None
        while bits <= MAX_BITS:
            ends = self._ends(plan[1], question, args, bits)
            if ends is None:
                return PASS if best is None else best
            ra, rb = ends
            if question == "value":  # f_b <= f <= f_a: the lower end from b
                ra, rb = rb, ra
            lo, hi = ra[0], rb[1]
            own = max(ra[1] - ra[0], rb[1] - rb[0])
            gap = (hi - lo) - own
            best = CertifiedPair(lo, hi)
            if gap <= max(own, tol / 4 * max(abs(lo), abs(hi)), mp.mpf(2) ** (-mp.prec)):
                return best
            # the gap is about linear in b - a: enough bits for it to fall below the target
            want = max(own, tol / 8 * max(abs(lo), abs(hi)), mp.mpf(2) ** (-mp.prec))
            bits += max(8, int(mp.ceil(mp.log(gap / want, 2))) + 4)
        return best


ROUTES.insert(ROUTES.index(next(r for r in ROUTES if isinstance(r, PLDRoute))),
              ParameterSandwichRoute())
