"""The Gaussian trade-off function G_mu = T(N(0,1), N(mu,1)).

Dong, Roth & Su, "Gaussian differential privacy", Sec. 2.2, Eq. (5):
``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``. It is symmetric (Prop. 2 / Sec. 2.4), its fixed
point is ``Phi(-mu/2)`` and ``G_mu'(alpha) = -exp(mu Phi^{-1}(1-alpha) - mu^2/2)``.
Numerically ``Phi^{-1}(1 - alpha)`` is taken as ``-Phi^{-1}(alpha)`` for alpha <= 1/2 and
as ``Phi^{-1}(1 - alpha)`` from the exact complement otherwise, so both tails keep their digits;
the power ``1 - G_mu(alpha) = Phi(mu - Phi^{-1}(1 - alpha))`` is computed directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import DRS
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.rules import hook, rule
from ..core.validate import param
from ..numeric.arb_expr import arb_ball
from ..numeric.context import mp
from ..numeric.normal import ncdf, ncdf_enclosure, ncdf_inv, ncdf_inv_upper
from ..numeric.pld_models import AtomLoss, NormalLoss, cf_spec, exact_fraction, loss_model
from ..numeric.protocol import arb_value, mp_conjugate, mp_roc, mp_value, np_value, num
from .trivial import Id

__all__ = ["Gaussian", "G"]


class Gaussian(TradeOff):
    """G_mu: the trade-off between N(0,1) and N(mu,1), mu >= 0 (Dong, Roth & Su, Eq. (5))."""

    def __new__(cls, mu: Any):
        mu = param("mu", mu, lower=0, owner="Gaussian")
        return TradeOff.__new__(cls, mu)

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval_at(self, alpha):
        return Phi(PhiInv(1 - alpha) - self.mu)

    def _eval_derivative_at(self, alpha):
        mu = self.mu
        return -sp.exp(mu * PhiInv(1 - alpha) - mu**2 / 2)

    def _eval_fixed_point(self):
        return Phi(-self.mu / 2)

    def _sympystr(self, printer):
        return "G(%s)" % printer._print(self.mu)

    def _latex(self, printer):
        return "G_{%s}" % printer._print(self.mu)


#: The papers' short name.
G = Gaussian


def _quantile_upper(a, ac):
    """Phi^{-1}(1 - alpha) from (alpha, 1 - alpha), accurate in both tails."""
    return ncdf_inv_upper(a) if a <= ac else ncdf_inv(ac)


@mp_value.register(Gaussian)
def _(f, a, ac):
    return ncdf_enclosure(_quantile_upper(a, ac) - num(f.mu, "mu"))


@mp_roc.register(Gaussian)
def _(f, a, ac):
    return ncdf_enclosure(num(f.mu, "mu") - _quantile_upper(a, ac))


@arb_value.register(Gaussian)
def _(f, a, ac, power):
    """Eq. (5) as a ball: with t = erfcinv(2 alpha), Phi^{-1}(1 - alpha) = sqrt 2 t, so
    G_mu(alpha) = erfc(mu/sqrt 2 - t)/2 and 1 - G_mu(alpha) = erfc(t - mu/sqrt 2)/2; t is
    taken from the smaller of alpha and 1 - alpha (erfcinv(2 - x) = -erfcinv(x))."""
    from flint import arb

    t = (2 * a).erfcinv() if a.mid() <= ac.mid() else -(2 * ac).erfcinv()
    m = arb_ball(f.mu) / arb(2).sqrt()
    return ((t - m) if power else (m - t)).erfc() / 2


@np_value.register(Gaussian)
def _(f, x):
    mu = float(f.mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        from scipy import special  # (imported at first use: it slows the package import)
        # z = Phi^{-1}(1 - x) from the smaller tail m = min(x, 1 - x) (full relative accuracy
        # for small x; 1 - x is exact for x >= 1/2): one quantile per level, in place
        x = np.asarray(x, dtype=np.float64)
        shape, x = x.shape, x.reshape(-1)
        z = 1.0 - x
        np.minimum(z, x, out=z)
        z = special.ndtri(z)
        np.negative(z, out=z, where=x <= 0.5)
        z -= mu
        return special.ndtr(z, out=z).reshape(shape)


# -- rewrite rules (applied by ``simplify``; see tradeoff_algebra.rewrite) ---------------------
# The family's own rule, and its hooks for the operators (core.rules.hook): the tensor product,
# the tensor power and group privacy ask for them without the family importing the operators.


@rule(Gaussian, cite=DRS.eq(5, note="G_0(alpha) = Phi(Phi^{-1}(1 - alpha)) = 1 - alpha"),
      priority=100)
def gaussian_zero(f: Gaussian):
    """G_0 = Id: N(0,1) against itself."""
    return Id if _is_zero(f.mu) is True else None


def _is_zero(x: sp.Expr) -> bool | None:
    """Three-valued ``x == 0``, cheap on the large radicands that compositions build.

    SymPy's assumption system can take seconds on a 1000-term sum; a sqrt or a sum of
    non-negative terms is zero iff its parts are, which is decided term by term instead.
    """
    if x.is_Number or x.is_Symbol:
        return x.is_zero
    if x.is_Pow and x.exp.is_positive:
        return _is_zero(x.base)
    if x.is_Add and len(x.args) > 8:
        known = [a.is_nonnegative for a in x.args]
        if all(known):
            return sp.core.logic.fuzzy_and(_is_zero(a) for a in x.args)
        return None
    return x.is_zero


@hook("tensor", cite=DRS.cor(2), priority=50)
def gaussian_tensor(factors):
    """G_{mu_1} (x) ... (x) G_{mu_n} = G_{sqrt(mu_1^2 + ... + mu_n^2)}.

    All Gaussian factors of a product merge in one step (rotational invariance of N(0, I));
    other factors stay.
    """
    gs = [f for f in factors if isinstance(f, Gaussian)]
    if len(gs) < 2:
        return None
    rest = [f for f in factors if not isinstance(f, Gaussian)]
    # sqrt(sum of squares of admissible mu_i) is admissible: build the node without
    # re-validating it (SymPy's assumptions are slow on a sum of a thousand squares).
    merged = TradeOff.__new__(Gaussian, sp.sqrt(sp.Add(*[g.mu**2 for g in gs])))
    return [merged, *rest]


@hook("tensor_power", cite=DRS.cor(2, note="mu_1 = ... = mu_n = mu"), priority=50)
def gaussian_power(base, n):
    """G_mu^{(x) n} = G_{sqrt(n) mu} (Cor. 2 with equal mu_i), n a non-negative integer."""
    return Gaussian(sp.sqrt(n) * base.mu) if isinstance(base, Gaussian) else None


@hook("group", cite=DRS.thm(3), priority=50)
def gaussian_group(f, k):
    """1 - (1 - G_mu)^{o k} = G_{k mu}: mu-GDP is k mu-GDP for groups of size k.

    With 1 - G_mu(alpha) = Phi(Phi^{-1}(alpha) + mu), the k-fold composition is
    Phi(Phi^{-1}(alpha) + k mu), and 1 minus it is G_{k mu}(alpha).
    """
    return Gaussian(k * f.mu) if isinstance(f, Gaussian) else None


# -- convex conjugate (Dong, Roth & Su, Eq. (7)) ------------------------------------------------
def _register_gaussian_conjugate() -> None:
    @mp_conjugate.register(Gaussian)
    def _(f, y):
        """G_mu^*(y) = sup_alpha {y alpha - G_mu(alpha)}.

        For y >= 0 the supremum is at alpha = 1 (value y). For y < 0 the optimality condition
        G_mu'(alpha) = -exp(mu z - mu^2/2) = y with z = Phi^{-1}(1 - alpha) gives
        z = (log(-y) + mu^2/2)/mu, alpha = Phi(-z) and G_mu(alpha) = Phi(z - mu), so
        G_mu^*(y) = y Phi(-z) - Phi(z - mu): a sum of two non-positive terms, no cancellation
        (1 + G_mu^*(-e^eps) is Corollary 1's delta(eps)). mu = 0 is Id: max(y, -1).
        """
        mu = num(f.mu, "mu")
        if y >= 0:
            return y, y
        if mu == 0:
            v = max(y, -mp.one)
            return v, v
        z = (mp.log(-y) + mu * mu / 2) / mu
        v = y * ncdf(-z) - ncdf(z - mu)
        return v, v


_register_gaussian_conjugate()


# -- privacy-loss model for the PLD engine (numeric.pld) -----------------------------------------
def _register_gaussian_loss() -> None:
    @loss_model.register(Gaussian)
    def _(f):
        """L = mu x - mu^2/2: N(mu^2/2, mu^2) under Q = N(mu, 1), N(-mu^2/2, mu^2) under P."""
        if f.free_symbols:
            return None
        mu = float(f.mu)
        return NormalLoss(mu) if mu > 0 else AtomLoss([0.0], [1.0], [1.0])

    @cf_spec.register(Gaussian)
    def _(f):
        """G_mu for the Laplace inversion (numeric.cf), mu rational or a float (exactly)."""
        m = exact_fraction(f.mu)
        return None if m is None or m <= 0 else ("gaussian", m)


_register_gaussian_loss()
