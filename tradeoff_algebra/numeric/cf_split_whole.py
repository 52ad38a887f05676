"""The loss tails of many-fold products of a lattice law (``numeric.cf_split_tails``: the
lattice part bounded by its mass, the remainder's tails inverted) from the nodes of the whole
law's inverter, which costs less to plan and to evaluate than the remainder's.

Split M^k = R_J + E_J as in :mod:`.cf_split_tails` (E_J the terms with fewer than J density
components, R_J the rest, both positive measures). The tails of :class:`~.cf_tails.TailInverter`
need the power decay of the measure inverted, which R_J has and M^k has not; but its
trapezoidal sums are linear in the nodes, so the sums of R_J's nodes are those of M^k's nodes
(the whole law's inverter, ``cf._certified_inverter``: closed-form cumulants to plan, M(z)^k
per node, no cancellation to guard) less those of E_J's. With |A(c + it)| <= alpha =
p+ e^{c mu} + p- e^{-c mu} and |U(c + it)| <= U(c) (both transforms of positive measures),

    |E_J(c + it)| <= m_c = sum_{j<J} C(k, j) alpha^{k-j} U(c)^j      at every t,

and the sums' share of E_J in each of delta, A(L > eps), e^eps B(L > eps) (kernels
1/(z (z + 1)), 1/z, 1/(z + 1), each at most 1/|z| on Re z = c > 0) is at most

    (h / pi) e^{-c eps} m_c sum'_{k=0}^{K} 1 / |z_k|  <=  e^{-c eps} m_c (h / (2 pi c)
                                                           + (1 + log K) / pi),

(sum_{k=1}^{K} 1/(h k) <= (1 + log K)/h), both ways. The rest of the error bound is R_J's:
its aliasing by the Chernoff bounds of M^k (R_J <= M^k as measures, so M's bounds hold for
R_J's tails), its tails' truncation by R_J's ``decay_bound`` and ``power_decay``, and delta's
truncation by the whole law's bound plus E_J's beyond the last node,
(1/pi) int_{t_K}^oo m_c / t^2 dt = m_c / (pi t_K) (times e^{-c eps}). Laplace(1/10)^{(x) 1000}
with J = 1: m_c = alpha^1000 ~ 1e-21 at c ~ 0.2, far below every width asked.
"""

from __future__ import annotations

from math import comb

from flint import arb

from . import cf
from .cf_laws import Factor, upper, working_precision
from .cf_split_tails import SplitTails, lattice_mass, remainder_law
from .cf_tails import tail_inverter

__all__ = ["whole_split_tails", "WholeBounded", "WHOLE_PLAN"]

#: The whole law's inverter is planned to this share of the relative width asked of the
#: remainder's (its plan, made for delta's faster-decaying kernel, stops earlier in t than the
#: tails' 1/z needs: Laplace(1/10)^1000 at 1e-11, the share 0.03 gives 426 nodes and error
#: bounds 0.65 times the remainder's own plan's, at half its cost).
WHOLE_PLAN = 0.03


def lattice_bound(law, k: int, J: int, c: arb) -> arb:
    """m_c (module docstring): a bound of |E_J(c + it)| at every t, a ball (the law's own
    ``split_bound`` where it has one)."""
    method = getattr(law, "split_bound", None)
    if method is not None:
        return method(k, J, c)
    mu, pp, pm_, kappa, lam = law.lattice_parts()
    alpha = pp * (c * mu).exp() + pm_ * (-c * mu).exp()
    a = c + lam
    u0 = 2 * kappa * (a * mu).sinh() / a
    return sum((comb(k, j) * alpha ** (k - j) * u0**j for j in range(min(J, k + 1))), arb(0))


class WholeBounded:
    """R_J (``rest``, the law of one factor) with the decay bound |R_J(c + it')| <=
    D(t)^k + m_c for every t' >= t, D the whole law's ``decay_bound`` (R_J = M^k - E_J and
    |E_J| <= m_c, :func:`lattice_bound`), where that is below R_J's own: the subsampled Laplace
    law's own bound of R_J, C(k, J) u^J (alpha + u)^{k-J}, stays near M(c)^k up to
    t ~ e^mu / p, while the whole law's envelope falls from t ~ 1 / (p e^mu) on
    (``families.laplace_sampled``). Every other attribute is ``rest``'s (its power decay of
    order J among them)."""

    def __init__(self, rest, law, k: int, J: int) -> None:
        self.rest, self.law, self.k, self.J = rest, law, int(k), int(J)
        self._m: dict = {}  # m_c per abscissa (the ball's ends)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.rest, name)

    def decay_bound(self, c: arb, t: arb) -> arb:
        own = self.rest.decay_bound(c, t)
        key = (c.mid().str(radius=False, more=True), c.rad().str(radius=False, more=True))
        m_c = self._m.get(key)
        if m_c is None:
            m_c = self._m[key] = arb(upper(lattice_bound(self.law, self.k, self.J, c)))
        whole = self.law.decay_bound(c, t) ** self.k + m_c
        return whole if whole < own else own

    def __eq__(self, other) -> bool:
        return isinstance(other, WholeBounded) and self.rest == other.rest

    def __hash__(self) -> int:
        return hash((WholeBounded, self.rest))


def whole_split_tails(factors: list[Factor], J: int, eps: float, rel: float
                      ) -> SplitTails | None:
    """The tails of the k-fold product ``factors`` = [(law, k)] (as
    ``cf_split_tails.split_tails``, the terms j < J bounded by their mass) from the whole law's
    inverter planned at ``eps`` to ``WHOLE_PLAN`` times ``rel``; None where they are not
    certified."""
    law, k = factors[0]
    # (the first plan, as the route's work check made it, without delta's acceptance at eps:
    # every tail point carries its own error bound, and the curve plans again where a point's
    # bound exceeds its share)
    plan = cf._first_plan(factors, eps, rel * WHOLE_PLAN)
    inv = cf._Inverter(factors, plan)
    with working_precision(plan.prec):
        c, h = arb(plan.c), arb(plan.h)
        K = max(plan.n_nodes, 1)
        m_c = arb(upper(lattice_bound(law, k, J, c)))
        off = m_c * (h / (2 * arb.pi() * c) + (1 + arb(K).log()) / arb.pi()
                     + 1 / (arb.pi() * h * K))
        if not off.is_finite():
            return None
    rest = remainder_law(law, k, J)
    if hasattr(law, "split_bound"):  # (its own bound of R_J stays near M(c)^k for long)
        rest = WholeBounded(rest, law, k, J)
    t = tail_inverter([(rest, 1)], inv, off)
    if t is None:
        return None
    with working_precision(64):
        m_a, m_b = lattice_mass(law, k, J)
    return SplitTails(t, m_a, m_b)
