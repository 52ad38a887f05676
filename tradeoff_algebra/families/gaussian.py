"""The Gaussian trade-off function G_mu = T(N(0,1), N(mu,1)).

Dong, Roth & Su, "Gaussian differential privacy", Sec. 2.2, Eq. (5):
``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``. It is symmetric (Prop. 2 / Sec. 2.4), its fixed
point is ``Phi(-mu/2)`` and ``G_mu'(alpha) = -exp(mu Phi^{-1}(1-alpha) - mu^2/2)``.
Numerically ``Phi^{-1}(1 - alpha)`` is taken as ``-Phi^{-1}(alpha)`` for alpha <= 1/2 and
as ``Phi^{-1}(1 - alpha)`` from the exact complement otherwise, so both tails keep their digits;
the power ``1 - G_mu(alpha) = Phi(mu - Phi^{-1}(1 - alpha))`` is computed directly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from flint import acb, arb

from ..core.citations import DRS
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.rules import hook, rule
from ..core.validate import param
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import (
    functional_form,
    gaussian_form,
    gdp_mu_form,
    log_slope,
    monotonicity,
    profile_form,
    renyi_form,
)
from ..numeric.cf_laws import Number, to_arb, to_fraction
from ..numeric.context import mp
from ..numeric.normal import (
    NCDF_ASYMPTOTIC,
    NCDF_MAX,
    log_ncdf,
    ncdf,
    ncdf_enclosure,
    ncdf_inv,
    ncdf_inv_upper,
    ncdf_tail_bound,
)
from ..numeric.precision_loop import precision_loop
from ..numeric.privacy_loss import (
    RHO_LIB,
    U64,
    AtomLoss,
    LazyLoss,
    PrivacyLoss,
    exact_fraction,
    loss_views,
    privacy_loss,
)
from ..numeric.protocol import (
    arb_value,
    exact_value,
    mp_conjugate,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
)
from ..numeric.renyi_orders import arb_renyi_orders
from ..numeric.value import CertifiedPair
from .gaussian_sampled import SubsampledGaussianLaw, sampled_law
from .trivial import Id

__all__ = ["Gaussian", "G", "gaussian_delta"]


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

    if a == 0 or ac == 0:  # (exact balls) the ends, where erfcinv is infinite: G_mu(0) = 1,
        end = arb(1) if a == 0 else arb(0)  # G_mu(1) = 0 (mu finite; see exact_value)
        return 1 - end if power else end
    t = (2 * a).erfcinv() if a.mid() <= ac.mid() else -(2 * ac).erfcinv()
    m = arb_ball(f.mu) / arb(2).sqrt()
    return ((t - m) if power else (m - t)).erfc() / 2


@exact_value.register(Gaussian)
def _(f, A, Ac):
    """The ends, exactly: G_mu(0) = Phi(+oo) = 1 and G_mu(1) = Phi(-oo) = 0 for every finite
    mu (Eq. (5), Phi^{-1}(1) = +oo, Phi^{-1}(0) = -oo); G_0 = Id is 1 - alpha; else None
    (Phi of a finite argument is irrational)."""
    if A == 0 or Ac == 0:
        return sp.S.One if A == 0 else sp.S.Zero
    return Ac if f.mu == 0 else None


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


# -- privacy loss: the PLD grid and the Laplace inversion (numeric.privacy_loss) -----------------
class GaussianLoss(PrivacyLoss):
    """G_mu (Dong, Roth & Su, Eq. (5)): ``L = mu x - mu^2/2``; under Q = N(mu, 1),
    ``L ~ N(m, s^2)``; under P = N(0, 1), ``L ~ N(-m, s^2)``, with ``m = mu^2/2``, ``s = mu``."""

    def __init__(self, mu: float, exact_mu: Fraction | None = None):
        if not (mu > 0 and math.isfinite(mu)):
            raise ValueError("GaussianLoss needs 0 < mu < oo")
        self.mu = float(mu)
        self.exact_mu = exact_mu
        self.m, self.s = self.mu * self.mu / 2, self.mu
        self._zmax = 0.0

    def cdf(self, t, which, left=False):
        c = self.m if which == "Q" else -self.m
        with np.errstate(invalid="ignore"):
            z = (np.asarray(t, dtype=np.float64) - c) / self.s
        fin = np.abs(z[np.isfinite(z)])
        self._zmax = max(self._zmax, float(fin.max(initial=0.0)))
        from scipy import special  # (imported at first use: it slows the package import)
        return special.ndtr(z), special.ndtr(-z)

    @property
    def rel_err(self) -> float:
        # ndtr itself, and the rounding of z = (t - c)/s (relative 3u of z, which moves Phi by
        # phi(z) |z| 3u <= (z^2 + 1) 3u Phi(-|z|) relatively in the tail)
        # (z is capped before squaring: for mu near 1e-272, z reaches 1e272 and z^2 overflows;
        # the bound then exceeds 1, i.e. the cells carry no information, which is still valid)
        return RHO_LIB + 4 * U64 * (min(self._zmax, 1e150) ** 2 + 2)

    def edge_err(self, t):
        # the cut's rounding in z is in rel_err; the float parameter mu (relative error <= u)
        # moves L = m + s Z by at most 2u (m + 40 s) for |Z| <= 40 (beyond: mass < 1e-300)
        return 4 * U64 * (self.m + 40 * self.s)

    def support(self, tau):
        from scipy import special  # (imported at first use: it slows the package import)
        z = -special.ndtri(tau)
        return -self.m - z * self.s, self.m + z * self.s

    #: mu^2 as a Fraction when it is rational and mu is not (G_sqrt(2), or the product
    #: G_sqrt(mu^2 + nu^2) of Cor. 2): the Arb law needs mu^2 only.
    exact_mu2: Fraction | None = None

    def law(self) -> GaussianLaw | None:
        """The Arb view (mu or mu^2 rational, or mu a float taken exactly)."""
        if self.exact_mu is not None:
            return GaussianLaw(self.exact_mu)
        return None if self.exact_mu2 is None else GaussianLaw(mu2=self.exact_mu2)

    def mixed_law(self, p: Fraction) -> SubsampledGaussianLaw | None:
        """Mix(G_mu, p) = T(N(0, 1), (1 - p) N(0, 1) + p N(mu, 1)): the remove direction of the
        Poisson-subsampled Gaussian mechanism (Dong, Roth & Su, Sec. 4.1)."""
        if self.exact_mu is None or not 0 < p < 1:
            return None
        return sampled_law(self.exact_mu, p, "remove")


class GaussianLaw:
    """Gaussian mechanism G_mu: A = N(mu, 1), B = N(0, 1).

    L = mu x - mu^2/2 is N(mu^2/2, mu^2) under A, so M(z) = exp(mu^2 z (z+1) / 2)
    and |M(c + it)| = exp(mu^2 (c^2 + c - t^2) / 2), decreasing in |t|. M is a closed form:
    its cost is the same at every t (``mgf_cost_flat``).
    """

    mgf_cost_flat = True

    def __init__(self, mu: Number | None = None, mu2: Number | None = None) -> None:
        # (M depends on mu^2 only: the law of G_sqrt(r) for a rational r is exact too)
        self._mu2 = to_fraction(mu) ** 2 if mu2 is None else to_fraction(mu2)
        self.mu = math.sqrt(float(self._mu2))

    def _m2(self) -> arb:
        return to_arb(self._mu2)

    def mgf(self, z: acb) -> acb:
        return (self._m2() * z * (z + 1) / 2).exp()

    def cumulants(self, c: float) -> tuple[float, float, float]:
        m2 = self.mu**2
        return m2 * c * (c + 1) / 2, m2 * (c + 0.5), m2

    def log_decay_estimate(self, c: float, t: float) -> float:
        return self.mu**2 * (c * c + c - t * t) / 2

    def decay_bound(self, c: arb, t: arb) -> arb:
        return (self._m2() * (c * c + c - t * t) / 2).exp()

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        return None

    def loss_sup(self) -> arb | None:
        return None

    #: G_mu (x) G_nu = G_sqrt(mu^2 + nu^2) (Dong, Roth & Su, Cor. 2).
    closed_under_tensor = True

    def inverse(self) -> GaussianLaw:
        """G_mu is symmetric: its own inverse (Dong, Roth & Su, Sec. 2.1)."""
        return self


@privacy_loss.register(Gaussian)


@loss_views("grid", "law")
def _(f) -> PrivacyLoss | None:
    """L = mu x - mu^2/2: N(mu^2/2, mu^2) under Q = N(mu, 1), N(-mu^2/2, mu^2) under P."""
    if f.free_symbols:
        return None
    mu = float(f.mu)
    if not math.isfinite(mu):  # beyond float64: no grid; the closed forms answer
        return None
    if mu > 0:
        loss = GaussianLoss(mu, exact_fraction(f.mu))
        if loss.exact_mu is None:
            loss.exact_mu2 = exact_fraction(sp.expand(f.mu**2))
        return loss
    # G_0 = Id: the loss is 0 under both measures, N(0, 0) (its moment generating function 1)
    return LazyLoss(grid=lambda: AtomLoss([0.0], [1.0], [1.0]), law=lambda: GaussianLaw(0))


# -- privacy profile (Dong, Roth & Su, Cor. 1) --------------------------------------------------
def gaussian_delta(mu, eps):
    """delta(eps) = Phi(a) - e^eps Phi(b), ``a = -eps/mu + mu/2``, ``b = -eps/mu - mu/2``, of G_mu
    at the current precision with full relative accuracy (Dong, Roth & Su, Cor. 1).

    ``mu > 0`` and ``0 <= eps < inf`` are mpf. Computed as ``Phi(a) * (-expm1(t))`` with
    ``t = eps + log Phi(b) - log Phi(a) < 0``; mpmath numbers have an unbounded exponent, so
    ``log Phi`` never underflows, and the working precision is raised by the number of bits that
    the sum for ``t`` cancels (``log2((eps + |log Phi(a)| + |log Phi(b)| + 1) / |t|)``, which also
    covers the conditioning of ``Phi`` at the rounded arguments, ``~ a^2`` relative).
    """
    target = mp.prec

    def compute(prec: int) -> tuple:
        """(delta or None, the bits the sum for t cancels) at working precision ``prec``."""
        with mp.workprec(prec):
            a = -eps / mu + mu / 2
            b = -eps / mu - mu / 2
            la, lb = log_ncdf(a), log_ncdf(b)
            t = eps + lb - la
            if t >= 0:  # every bit cancelled (tiny mu: t ~ mu^2 against log-terms ~ (eps/mu)^2)
                return None, 2 * prec
            lost = int(mp.ceil(mp.log((abs(eps) + abs(la) + abs(lb) + 1) / -t, 2)))
            if prec - lost < target + 20:
                return None, lost
            return ncdf(a) * -mp.expm1(t), lost

    d, _ = precision_loop(compute, target + 30, done=lambda r, _: r[0] is not None,
                          grow=lambda r, prec: target + r[1] + 40, max_steps=24, check=False,
                          what=lambda: f"delta of G({mu}) at eps={eps}")
    return +d


@mp_delta.register(Gaussian)
def _(f, eps):
    mu = num(f.mu, "mu")
    if mu == 0 or eps == mp.inf:
        return mp.zero, mp.zero
    a, b = -eps / mu + mu / 2, -eps / mu - mu / 2
    if a < -NCDF_ASYMPTOTIC:  # 0 <= delta <= Phi(a), astronomically small: bounded, not computed
        return mp.zero, ncdf_enclosure(a)[1]
    if b < -NCDF_MAX:  # Phi(a) - e^eps Phi(b) with e^eps Phi(b) <= e^eps 2^-k, beyond all digits
        pa = ncdf(a)
        return max(pa - mp.exp(eps) * ncdf_tail_bound(b), mp.zero), pa
    v = gaussian_delta(mu, eps)
    return v, v


@mp_epsilon.register(Gaussian)
def _(f, d):
    # delta(eps) > 0 for every finite eps when mu > 0 (Phi(a) > e^eps Phi(b)): eps(0) = inf.
    if d == 0 and num(f.mu, "mu") > 0:  # a proof, not a computation
        return CertifiedPair(mp.inf, mp.inf)
    if num(f.mu, "mu") == 0:
        return mp.zero, mp.zero
    return None


@profile_form.register(Gaussian)
def _(f, eps):
    mu = f.mu
    if mu.is_positive is not True:
        return None
    return Phi(-eps / mu + mu / 2) - sp.exp(eps) * Phi(-eps / mu - mu / 2)


# -- functionals (Dong, Roth & Su, Sec. 3.2; Kaissis et al.) and Renyi divergences -------------
def _gauss_abs3(m, s):
    """E|W|^3 for W ~ N(m, s^2), s > 0 (direct integration; checked in the tests)."""
    r = m / s
    return (sp.sqrt(2 / sp.pi) * s**3 * (2 + r**2) * sp.exp(-r**2 / 2)
            + m * (m**2 + 3 * s**2) * (1 - 2 * Phi(-r)))


@functional_form.register(Gaussian)
def _(f, name):
    """The log-likelihood ratio is l = mu Z - mu^2/2, Z ~ N(0, 1), under P."""
    mu = f.mu
    if mu.is_zero:
        return sp.S.Half if name == "auc" else sp.S.Zero
    forms = {
        "kl": mu**2 / 2,
        "kappa2": mu**2 + mu**4 / 4,
        # l ~ N(-mu^2/2, mu^2); at mu = 0 every moment is 0
        "kappa3": _gauss_abs3(-mu**2 / 2, mu) if mu.is_positive
        else sp.Piecewise((0, sp.Eq(mu, 0)), (_gauss_abs3(-mu**2 / 2, mu), True)),
        "kappa3_bar": 2 * sp.sqrt(2 / sp.pi) * mu**3,
        # Dong, Roth & Su, Lemma 3 (re-derived: E[(e^l - 1)^2; l > 0])
        "chi2_plus": sp.exp(mu**2) * Phi(3 * mu / 2) + 3 * Phi(-mu / 2) - 2,
        "tv": 1 - 2 * Phi(-mu / 2),
        # Kaissis et al., Lemma 3: Phi(psi / sqrt 2)
        "auc": Phi(mu / sp.sqrt(2)),
    }
    return forms.get(name)


@log_slope.register(Gaussian)
def _(f, a, ac):
    mu = num(f.mu, "mu")
    z = ncdf_inv_upper(a) if a <= ac else ncdf_inv(ac)
    return mu * z - mu**2 / 2


@renyi_form.register(Gaussian)
def _(f, a):
    """a mu^2/2 (Mironov 2017, Prop. 7; Kaissis et al., Lemma 7)."""
    if a is sp.oo:
        return sp.S.Zero if f.mu.is_zero else (sp.oo if f.mu.is_positive else None)
    return a * f.mu**2 / 2


@gdp_mu_form.register(Gaussian)
def _(f):
    return f.mu


gaussian_form.register(Gaussian)(lambda f: f.mu)


@arb_renyi_orders.register(Gaussian)
def _(f, orders):
    """D_a(N(0, 1) || N(mu, 1)) = a mu^2/2 at many orders (Mironov 2017, Prop. 7; the
    capability "renyi_orders"): exact ``fmpq`` for a rational mu or a rational mu^2 (sqrt(d)/s,
    the tree aggregation's G, ``interop``), else Arb balls from the enclosure of mu; None for a
    symbolic mu."""
    from flint import fmpq

    mu = f.mu
    if isinstance(mu, sp.Rational):
        c = fmpq(int(mu.p) ** 2, 2 * int(mu.q) ** 2)
    elif mu.free_symbols:
        return None
    elif (c := _half_square(mu)) is not None:
        pass
    else:
        try:
            m = arb_ball(mu)
        except ValueError:
            return None
        c = m * m / 2
    return [c * a for a in orders]


def _half_square(mu: sp.Expr):
    """mu^2/2 as an exact ``fmpq`` when mu is sqrt(b) or c sqrt(b) with b, c rational (read
    from the tree: SymPy arithmetic costs more than the whole program), else None."""
    from flint import fmpq

    c, r = (sp.S.One, mu) if mu.is_Pow else mu.args if mu.is_Mul and len(mu.args) == 2 \
        else (None, None)
    if not (isinstance(c, sp.Rational) and r.is_Pow and r.exp is sp.S.Half
            and isinstance(r.base, sp.Rational)):
        return None
    b = r.base
    return fmpq(int(c.p) ** 2 * int(b.p), 2 * int(c.q) ** 2 * int(b.q))


@monotonicity.register(Gaussian)
def _(f):
    return (-1,)
