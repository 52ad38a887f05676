"""The Laplace trade-off function L_mu = T(Lap(0,1), Lap(mu,1)).

Dong, Roth & Su, Prop. 7 and Appendix A: the likelihood ratio of Lap(mu,1) to Lap(0,1) is
non-decreasing, so the Neyman--Pearson tests are thresholds ``x > t``; the three ranges of ``t``
(``t >= mu``, ``0 <= t <= mu``, ``t <= 0``) give

    L_mu(alpha) = 1 - e^mu alpha          for alpha < e^{-mu}/2,
                  e^{-mu} / (4 alpha)      for e^{-mu}/2 <= alpha <= 1/2,
                  e^{-mu} (1 - alpha)      for alpha > 1/2.

It is symmetric with fixed point ``e^{-mu/2}/2``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from flint import acb, arb, fmpq

from ..core.citations import DRS
from ..core.node import TradeOff
from ..core.rules import hook, rule
from ..core.validate import param
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import (
    functional_form,
    kinks,
    log_slope,
    monotonicity,
    profile_form,
    renyi_form,
)
from ..numeric.cf_laws import Number, to_arb, to_fraction
from ..numeric.context import mp
from ..numeric.privacy_loss import (
    RHO_LIB,
    U64,
    AtomLoss,
    PrivacyLoss,
    exact_fraction,
    loss_views,
    privacy_loss,
)
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
)
from ..numeric.renyi_orders import arb_renyi_orders
from .epsdelta import EpsDelta
from .laplace_sampled import SubsampledLaplaceLaw, sampled_laplace_law
from .trivial import Id

__all__ = ["Laplace"]


class Laplace(TradeOff):
    """L_mu: the trade-off between Lap(0,1) and Lap(mu,1), mu >= 0 (Dong, Roth & Su, Prop. 7)."""

    def __new__(cls, mu: Any):
        mu = param("mu", mu, lower=0, owner="Laplace")
        return TradeOff.__new__(cls, mu)

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        mu = self.mu
        return sp.Piecewise((1 - sp.exp(mu) * alpha, alpha < sp.exp(-mu) / 2),
                            (sp.exp(-mu) / (4 * alpha), alpha <= sp.S.Half),
                            (sp.exp(-mu) * (1 - alpha), True))

    def _eval_fixed_point(self):
        return sp.exp(-self.mu / 2) / 2

    def _sympystr(self, printer):
        return "Laplace(%s)" % printer._print(self.mu)

    def _latex(self, printer):
        return r"L_{%s}" % printer._print(self.mu)


@rule(Laplace, cite=DRS.prop(7, note="L_0 = T(Lap(0,1), Lap(0,1)) = Id"), priority=100)
def laplace_zero(f: Laplace):
    """L_0 = Id: Lap(0,1) against itself."""
    return Id if f.mu.is_zero is True else None


@rule(Laplace, cite=DRS.sec("2.3", note="the Laplace mechanism is eps-DP: L_eps >= f_{eps,0}"),
      relation="lower", priority=10, hypotheses="none")
def laplace_pure_dp(f: Laplace):
    """L_mu >= f_{mu,0}: the log-likelihood ratio of Lap(0,1) and Lap(mu,1) is bounded by mu."""
    return EpsDelta(f.mu, 0)


@hook("group", cite=DRS.thm(3, note="1 - L_mu(alpha) = S(S^{-1}(alpha) - mu), S the survival "
                               "function of Lap(0, 1)"), priority=50)
def laplace_group(f, k):
    """1 - (1 - L_mu)^{o k} = L_{k mu}: the group of size k of the Laplace mechanism.

    The likelihood ratio of Lap(mu, 1) to Lap(0, 1) is non-decreasing in x, so the
    Neyman-Pearson tests are thresholds: 1 - L_mu(alpha) = S(S^{-1}(alpha) - mu) with S the
    survival function of Lap(0, 1). Its k-fold composition is S(S^{-1}(alpha) - k mu), and 1
    minus it is L_{k mu}.
    """
    return Laplace(k * f.mu) if isinstance(f, Laplace) else None


def _branch(e_minus, a):
    """0, 1 or 2: which of the three pieces holds at alpha = a."""
    if 2 * a < e_minus:
        return 0
    return 1 if 2 * a <= 1 else 2


@exact_value.register(Laplace)
def _(f, A, Ac):
    if A == 0 or Ac == 0:  # the ends at any mu: L_mu(0) = 1 - e^mu 0 = 1, L_mu(1) = 0/e^mu = 0
        return sp.S.One if A == 0 else sp.S.Zero
    e = sp.exp(f.mu)
    if not isinstance(e, sp.Rational):
        return None
    b = _branch(1 / e, A)
    return (1 - e * A, 1 / (4 * A * e), Ac / e)[b]


@mp_value.register(Laplace)
def _(f, a, ac):
    mu = num(f.mu, "mu")
    em = mp.exp(-mu)
    b = _branch(em, a)
    v = 1 - mp.exp(mu) * a if b == 0 else (em / (4 * a) if b == 1 else em * ac)
    return v, v


@mp_roc.register(Laplace)
def _(f, a, ac):
    mu = num(f.mu, "mu")
    em = mp.exp(-mu)
    b = _branch(em, a)
    if b == 0:
        v = mp.exp(mu) * a
    elif b == 1:
        v = 1 - em / (4 * a)
    else:  # 1 - e^{-mu}(1 - a) = -expm1(-mu) + e^{-mu} a
        v = -mp.expm1(-mu) + em * a
    return v, v


@arb_value.register(Laplace)
def _(f, a, ac, power):
    """The three pieces of :class:`Laplace` as balls. A piece whose condition the balls cannot
    decide is joined with its neighbour (f is continuous, so both are near the same value)."""
    mu = arb_ball(f.mu)
    em = (-mu).exp()
    pieces = []
    if not 2 * a >= em:
        pieces.append(mu.exp() * a if power else 1 - mu.exp() * a)
    if not (2 * a < em or 2 * a > 1):
        pieces.append(1 - em / (4 * a) if power else em / (4 * a))
    if not 2 * a <= 1:  # 1 - e^{-mu}(1 - a) = -expm1(-mu) + e^{-mu} a
        pieces.append(-(-mu).expm1() + em * a if power else em * ac)
    out = pieces[0]
    for v in pieces[1:]:
        out = out.union(v)
    return out


@np_value.register(Laplace)
def _(f, x):
    mu = float(f.mu)
    em = np.exp(-mu)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return np.where(2 * x < em, 1 - np.exp(mu) * x,
                        np.where(2 * x <= 1, em / (4 * x), em * (1 - x)))


# -- convex conjugate (Dong, Roth & Su, Eq. (7)) ------------------------------------------------
def _register_laplace_conjugate() -> None:
    from ..numeric.context import mp
    from ..numeric.protocol import mp_conjugate

    @mp_conjugate.register(Laplace)
    def _(f, y):
        """L_mu^*(y) = sup_alpha {y alpha - L_mu(alpha)} from the three pieces of L_mu.

        The slopes of L_mu run through -e^mu (first piece), -e^{-mu}/(4 alpha^2) (middle) and
        -e^{-mu} (last), so the supremum sits at alpha = 0 for y <= -e^mu (value -1), at
        alpha = e^{-mu/2}/(2 sqrt(-y)) for -e^mu <= y <= -e^{-mu} (value -sqrt(-y) e^{-mu/2}),
        and at alpha = 1 for y >= -e^{-mu} (value y).
        """
        mu = num(f.mu, "mu")
        if y <= -mp.exp(mu):
            v = -mp.one
        elif y >= -mp.exp(-mu):
            v = y
        else:
            v = -mp.sqrt(-y) * mp.exp(-mu / 2)
        return v, v


_register_laplace_conjugate()


# -- privacy loss for the PLD engine (numeric.privacy_loss) --------------------------------------
class LaplaceLoss(PrivacyLoss):
    """L_mu (Dong, Roth & Su, Prop. 7): ``L(x) = |x| - |x - mu|`` is ``-mu`` for x <= 0,
    ``2x - mu`` on [0, mu] and ``mu`` for x >= mu. Under Q = Lap(mu, 1): atoms
    ``Q(L = -mu) = e^{-mu}/2``, ``Q(L = mu) = 1/2`` and ``Q(L <= t) = e^{(t - mu)/2}/2`` on
    ``[-mu, mu)``; under P = Lap(0, 1): ``P(L = -mu) = 1/2``, ``P(L = mu) = e^{-mu}/2`` and
    ``P(L > t) = e^{-(t + mu)/2}/2`` on ``[-mu, mu)``."""

    def __init__(self, mu: float):
        if not (mu > 0 and math.isfinite(mu)):
            raise ValueError("LaplaceLoss needs 0 < mu < oo")
        self.mu = float(mu)

    def cdf(self, t, which, left=False):
        t = np.asarray(t, dtype=np.float64)
        mu = self.mu
        below = (t <= -mu) if left else (t < -mu)
        above = (t > mu) if left else (t >= mu)
        mid = ~below & ~above
        tm = np.where(mid, t, 0.0)
        F = np.zeros_like(t)
        S = np.zeros_like(t)
        if which == "Q":
            Fm = 0.5 * np.exp((tm - mu) / 2)
            F = np.where(below, 0.0, np.where(above, 1.0, Fm))
            S = np.where(below, 1.0, np.where(above, 0.0, 1.0 - Fm))
        else:
            Sm = 0.5 * np.exp(-(tm + mu) / 2)
            S = np.where(below, 1.0, np.where(above, 0.0, Sm))
            F = np.where(below, 0.0, np.where(above, 1.0, 1.0 - Sm))
        return F, S

    @property
    def rel_err(self) -> float:
        return RHO_LIB + 4 * U64 * (1 + self.mu)

    def support(self, tau):
        return -self.mu, self.mu

    def heavy_atoms(self):
        return [(self.mu, 0.5), (-self.mu, 0.5 * math.exp(-self.mu))]

    #: The exact parameter (a Fraction) when mu is rational or a float, else None: the Arb view.
    exact_mu: Fraction | None = None

    def law(self) -> LaplaceLaw | None:
        """The Arb view (mu rational, or a float taken exactly): :class:`LaplaceLaw`."""
        return None if self.exact_mu is None else LaplaceLaw(self.exact_mu)

    def mixed_law(self, p: Fraction) -> SubsampledLaplaceLaw | None:
        """Mix(L_mu, p) = T(Lap(0, 1), (1 - p) Lap(0, 1) + p Lap(mu, 1)): the remove direction
        of the Poisson-subsampled Laplace mechanism (``families.laplace_sampled``)."""
        if self.exact_mu is None or not 0 < p < 1:
            return None
        return sampled_laplace_law(self.exact_mu, Fraction(p), "remove")


class LaplaceLaw:
    """The law of L_mu's privacy loss for the certified Laplace inversion (``numeric.cf``,
    the :class:`~tradeoff_algebra.numeric.cf_laws.LossLaw` protocol): A = Q = Lap(mu, 1).

    Under Q (see :class:`LaplaceLoss`) L has atoms 1/2 at mu and e^{-mu}/2 at -mu and the
    density e^{(t - mu)/2}/4 on (-mu, mu) (Dong, Roth & Su, Prop. 7 and Appendix A), so with
    w = z + 1/2

        M(z) = E_Q[e^{zL}] = e^{-mu/2} (cosh(w mu) + sinh(w mu) / (2 w)),

    the moment generating function of the symmetric measure e^{-L/2} Q (atoms e^{-mu/2}/2 at
    +-mu, density e^{-mu/2}/4 on (-mu, mu)) at w. M(0) = M(-1) = 1. For Re w = a > 0:
    |cosh(w mu)| <= cosh(a mu) and |sinh(w mu) / (2w)| <= min(sinh(a mu) / (2a),
    cosh(a mu) / (2 |w|)) (the integral of e^{wL} over (-mu, mu) is bounded by that of e^{aL},
    and |sinh(x + iy)| <= cosh x); the lattice atoms keep |M(c + it)| from decaying (it comes
    back near M(c) / (1 + mu/2) at every t = n pi / mu), so a product of many factors is
    needed before the truncated t-range certifies a small width (the routes decline otherwise).
    """

    def __init__(self, mu: Number) -> None:
        self._mu = to_fraction(mu)
        if not self._mu > 0:
            raise ValueError(f"LaplaceLaw needs mu > 0, not {mu}")
        self.mu = float(self._mu)

    def mgf(self, z: acb) -> acb:
        m = to_arb(self._mu)
        w = z + acb(0.5)
        x = w * m
        return (-m / 2).exp() * (x.cosh() + x.sinh() / (2 * w))

    def _log_g(self, c: float):
        """log(cosh(w mu) + sinh(w mu)/(2w)) at w = c + 1/2 and its first two derivatives in c
        (floats for planning; the small-x difference sinh(x)/x - cosh(x) by its series, without
        cancellation)."""
        m = self.mu
        w = c + 0.5
        x = w * m
        # scaled by e^{-x}: ch = e^{-x} cosh x, sh = e^{-x} sinh x
        e2 = math.exp(-2 * x)
        ch, sh = (1 + e2) / 2, -math.expm1(-2 * x) / 2
        if abs(x) < 0.5:  # q = (sinh(x)/x - cosh(x))/x^2 = -sum_{k>=1} 2k x^{2k-2}/(2k + 1)!
            q, term = 0.0, 1.0  # (12 terms: < 1e-17; no division by a small x or w)
            for k in range(1, 13):
                term *= (x * x if k > 1 else 1.0) / ((2 * k) * (2 * k + 1))
                q -= 2 * k * term
            q *= math.exp(-x)
            sx = ch + x * x * q  # e^{-x} sinh(x)/x = e^{-x} cosh(x) + x^2 q
        else:
            sx = sh / x
            q = (sx - ch) / (x * x)
        # with sinh/(2w) = mu sinh(x)/(2x): g, g', g'' without 1/w (w = 0 at c = -1/2)
        g = ch + m * sx / 2
        g1 = m * sh - m * m * x * q / 2
        # g'' = mu^2 cosh + mu^2 sinh/(2w) + mu (sinh/x - cosh)/w^2
        g2 = m * m * ch + m * m * m * sx / 2 + m * m * m * q
        return x + math.log(g), g1 / g, g2 / g - (g1 / g) ** 2

    def cumulants(self, c: float) -> tuple[float, float, float]:
        lg, d1, d2 = self._log_g(c)
        return lg - self.mu / 2, d1, d2

    def log_decay_estimate(self, c: float, t: float) -> float:
        m = self.mu
        a = c + 0.5
        x = a * m  # log(cosh x + part), part = min(sinh x / (2a), cosh x / (2|a + it|)), by e^x
        ch, sh = (1 + math.exp(-2 * x)) / 2, -math.expm1(-2 * x) / 2
        part = min(sh / (2 * a), ch / (2 * math.hypot(a, t)))
        return -m / 2 + x + math.log(ch + part)

    def decay_bound(self, c: arb, t: arb) -> arb:
        m = to_arb(self._mu)
        a = c + arb(0.5)
        x = a * m
        ch = x.cosh()
        w_abs = (a * a + t * t).sqrt()
        part = x.sinh() / (2 * a)
        other = ch / (2 * w_abs)
        if other < part:  # (certainly smaller: the tighter bound)
            part = other
        elif not other >= part:  # undecided: an upper bound of both
            part = part.union(other)
        return (-m / 2).exp() * (ch + part)

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        return None  # the lattice atoms: |M(c + it)| does not tend to 0

    def loss_sup(self) -> arb | None:
        return to_arb(self._mu)

    def loss_sup_exact(self) -> Fraction:
        """The largest loss exactly: mu, the atom Q(L = mu) = 1/2 (delta = 0 from eps = mu on,
        ``analysis.conversions``: a product's delta at the sum of its factors' mu is 0)."""
        return self._mu

    #: No closed form for L_mu (x) L_nu (the inversion is the route of such products).
    closed_under_tensor = False
    #: M(c + it) costs the same at every t (a closed form): the planned work is the nodes.
    mgf_cost_flat = True

    def inverse(self) -> LaplaceLaw:
        """L_mu is symmetric: its own inverse (Dong, Roth & Su, Prop. 7)."""
        return self

    def laplace_mu(self) -> Fraction:
        """mu, exactly: the exact part of a few-fold product of this law is then a piecewise
        closed form with rational polynomials (``numeric.cf_lattice_profile``)."""
        return self._mu

    def lattice_parts(self) -> tuple[arb, arb, arb, arb, arb]:
        """(mu, p+, p-, kappa, lam) = (mu, 1/2, e^{-mu}/2, e^{-mu/2}/4, 1/2): the atoms
        Q(L = +-mu) and the density kappa e^{lam t} on (-mu, mu), as balls (the optional split
        of ``numeric.cf_lattice``: a k-fold product's terms with few density components summed
        exactly)."""
        m = to_arb(self._mu)
        return m, arb(0.5), (-m).exp() / 2, (-m / 2).exp() / 4, arb(0.5)

    def __eq__(self, other) -> bool:
        return isinstance(other, LaplaceLaw) and self._mu == other._mu

    def __hash__(self) -> int:
        return hash((LaplaceLaw, self._mu))


@privacy_loss.register(Laplace)


@loss_views("grid", "law")
def _(f) -> PrivacyLoss | None:
    """L = |x| - |x - mu| in [-mu, mu], atoms at both ends (see LaplaceLoss); the Arb law for a
    rational (or float) mu (LaplaceLaw)."""
    if f.free_symbols:
        return None
    mu = float(f.mu)
    if not math.isfinite(mu):  # beyond float64: no grid; the closed forms answer
        return None
    if mu > 0:
        loss = LaplaceLoss(mu)
        loss.exact_mu = exact_fraction(f.mu)
        return loss
    return AtomLoss([0.0], [1.0], [1.0])


# -- privacy profile ----------------------------------------------------------------------------
# On [e^{-mu}/2, 1/2] the slope of L_mu is -e^{-mu}/(4 x^2); it equals -e^eps at
# x = e^{-(mu+eps)/2}/2, where e^eps x + L_mu(x) = e^{(eps-mu)/2}, so (Dong, Roth & Su, Prop. 6)
# delta(eps) = 1 - e^{(eps - mu)/2} = -expm1((eps - mu)/2) for eps < mu and 0 for eps >= mu (the
# infimum is then L_mu(0) = 1); checked against brute-force minimisation in the tests.
@mp_delta.register(Laplace)
def _(f, eps):
    mu = num(f.mu, "mu")
    v = -mp.expm1((eps - mu) / 2) if eps < mu else mp.zero
    return v, v


@mp_epsilon.register(Laplace)
def _(f, d):
    mu = num(f.mu, "mu")
    # delta(0) = 1 - e^{-mu/2}; on [0, mu] eps = mu + 2 log(1 - delta); delta(mu) = 0.
    if d >= -mp.expm1(-mu / 2):
        return mp.zero, mp.zero
    v = mu + 2 * mp.log1p(-d)
    return v, v


@profile_form.register(Laplace)
def _(f, eps):
    if sp.Ge(eps, f.mu) is sp.true:
        return sp.Integer(0)
    if sp.Le(eps, f.mu) is sp.true:
        return 1 - sp.exp((eps - f.mu) / 2)
    return None


# -- functionals and Renyi divergences ----------------------------------------------------------
def _laplace_forms(m):
    """Laplace functionals by integration over the privacy loss.

    Under P = Lap(0, 1), log dQ/dP = |x| - |x - m| is -m on x <= 0 (mass 1/2), m on x >= m
    (mass e^{-m}/2) and 2x - m in between (density e^{-x}/2); so each functional is
    ``F(-m)/2 + F(m) e^{-m}/2 + int_0^m F(2x - m) e^{-x}/2 dx``, split where F has a kink
    (x = m/2, and x = (1 - e^{-m})/2 for bar kappa_3). The integrals were done by SymPy and are
    checked against quadrature of the Laplace density in ``tests/test_functionals.py``.
    """
    E = sp.exp(-m)
    return {
        "kl": m - 1 + E,  # KL(Lap(0,1) || Lap(m,1))
        "kappa2": m**2 - 2 * m + 4 - (2 * m + 4) * E,
        "kappa3": (m**3 - 3 * m**2 + 12 * m - 24 + 48 * sp.exp(-m / 2)
                   - (3 * m**2 + 12 * m + 24) * E),
        "kappa3_bar": (48 * sp.exp((E - 1) / 2) - 14 - (12 * m**2 + 12 * m + 24) * E
                       - (12 * m + 6) * E**2 - 4 * E**3),
        "chi2_plus": 2 * sp.exp(m) / 3 - 2 + 4 * sp.exp(-m / 2) / 3,
        "tv": 1 - sp.exp(-m / 2),
        "auc": 1 - E * (2 + m) / 4,
    }


@functional_form.register(Laplace)
def _(f, name):
    if f.mu.is_zero:
        return sp.S.Half if name == "auc" else sp.S.Zero
    return _laplace_forms(f.mu).get(name)


@log_slope.register(Laplace)
def _(f, a, ac):
    mu = num(f.mu, "mu")
    if 2 * a < mp.exp(-mu):
        return mu
    if 2 * a <= 1:
        return -mu - mp.log(4) - 2 * mp.log(a)
    return -mu


@kinks.register(Laplace)
def _(f):
    mu = num(f.mu, "mu")
    return [mp.exp(-mu) / 2, mp.mpf(0.5)]


@renyi_form.register(Laplace)
def _(f, a):
    """``1/(a-1) log(a/(2a-1) e^{(a-1) mu} + (a-1)/(2a-1) e^{-a mu})`` for a != 1/2 (Mironov
    2017, Prop. 6, re-derived over the three pieces of the density ratio), its limit
    ``-2 log(e^{-mu/2}(1 + mu/2))`` at a = 1/2, and mu at a = oo."""
    m = f.mu
    if a is sp.oo:
        return m
    if a == sp.S.Half:
        return -2 * sp.log(sp.exp(-m / 2) * (1 + m / 2))
    return sp.log(a / (2 * a - 1) * sp.exp((a - 1) * m)
                  + (a - 1) / (2 * a - 1) * sp.exp(-a * m)) / (a - 1)


@arb_renyi_orders.register(Laplace)
def _(f, orders):
    """D_a(Lap(0, 1) || Lap(mu, 1)) at many orders in Arb (the capability "renyi_orders"): the
    closed form of ``renyi_form`` with e^{(a-1) mu} taken out of the logarithm,

        D_a = mu + log((a + (a - 1) y_a)/(2a - 1))/(a - 1),  y_a = e^{-(2a-1) mu}

    (Mironov 2017, Prop. 6: a/(2a-1) e^{(a-1) mu} + (a-1)/(2a-1) e^{-a mu} = e^{(a-1) mu}
    (a + (a-1) y_a)/(2a-1)), one log per order: the argument lies in [1/2, 1] and nothing
    cancels but mu against the log for small mu (the driver then raises the precision).
    Integer orders: y_a = e1^{2a-1} with e1 = e^{-mu}, for consecutive orders y e1^2 (one
    product), else a power of e1 (products); the integer factors a - 1, a, 2a - 1 are Python
    ints; 7 Arb operations an order and one exp in all. Fractional orders: one exp each.
    mu = 0 (L_0 = Id) gives 0 exactly; a symbolic mu gives None."""
    m = _mu_ball(f.mu)
    if m is None:
        return None
    if m.is_zero():
        return [_ZERO] * len(orders)
    e1 = (-m).exp()
    e2 = e1 * e1
    out = []
    append = out.append
    prev, y = -2, None  # (prev + 1 is no order)
    for a in orders:
        if type(a) is int:
            y = y * e2 if a == prev + 1 else e1 ** (2 * a - 1)
            prev = a
            append(((y * (a - 1) + a) / (2 * a - 1)).log() / (a - 1) + m)
        else:
            prev = -2
            A = arb(a)
            x = ((m * (1 - 2 * A)).exp() * (A - 1) + A) / (2 * A - 1)
            append(x.log() / (A - 1) + m)
    return out


_ZERO = fmpq(0)


def _mu_ball(mu: sp.Expr):
    """mu as an Arb ball at the current precision (exact for a rational), None if symbolic or
    not enclosable."""
    if isinstance(mu, sp.Rational):
        return arb(int(mu.p)) if mu.q == 1 else arb(fmpq(int(mu.p), int(mu.q)))
    if mu.free_symbols:
        return None
    try:
        return arb_ball(mu)
    except ValueError:
        return None


@monotonicity.register(Laplace)
def _(f):
    return (-1,)
