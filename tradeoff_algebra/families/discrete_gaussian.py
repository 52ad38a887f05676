"""The discrete Gaussian mechanism: T(N_Z(0, sigma^2), N_Z(Delta, sigma^2)) on the integers.

Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020,
arXiv:2004.00010; CKS below), Def. 1: ``N_Z(mu, sigma^2)(x) = e^{-(x - mu)^2/(2 sigma^2)} /
sum_{y in Z} e^{-(y - mu)^2/(2 sigma^2)}`` for x in Z. Adding N_Z(0, sigma^2) to an integer query
of sensitivity Delta (a positive integer) gives the pair P = N_Z(0, sigma^2), Q = N_Z(Delta,
sigma^2); for integer Delta both normalisers are theta = sum_y e^{-y^2/(2 sigma^2)}, so

    L(x) = log Q(x)/P(x) = (2 x Delta - Delta^2) / (2 sigma^2),

increasing in x: a lattice law with spacing Delta/sigma^2. The Neyman-Pearson tests reject
``x >= k`` (randomised at one atom), so f is piecewise linear with the knots

    (P(X >= k), P(X <= k - Delta - 1)),  X ~ N_Z(0, sigma^2),  k in Z,

and on the segment U(k+1) <= alpha <= U(k) (``U(m) = P(X >= m)``), with ``p`` the mass function
of X and p(k - Delta)/p(k) = e^{L(k)},

    f(alpha)     = P(X <= k - Delta - 1) + (U(k) - alpha) e^{L(k)},
    1 - f(alpha) = P(X >= k - Delta + 1) + (alpha - U(k + 1)) e^{L(k)},

each a sum of non-negative terms. Its slope there is -e^{L(k)}.

**Symmetry.** x -> Delta - x is a bijection of Z with N_Z(0)(Delta - x) = N_Z(Delta)(x) and
N_Z(Delta)(Delta - x) = N_Z(0)(x) (the exponent is even in x - mu), so it maps the pair (P, Q)
onto (Q, P); a trade-off function is invariant under a bijection applied to both sides, hence
T(P, Q) = T(Q, P): f is symmetric (f = f^{-1}).

**Privacy profile** (Dong, Roth & Su, Prop. 6): delta(eps) = sum_x (Q(x) - e^eps P(x))_+ =
Q(L > eps) - e^eps P(L > eps); L(x) > eps iff x > eps sigma^2/Delta + Delta/2, and Q(X >= m) =
P(X >= m - Delta), so

    delta(eps) = P(X > eps sigma^2/Delta - Delta/2) - e^eps P(X > eps sigma^2/Delta + Delta/2),

CKS Thm. 7 as printed (checked in ``tests/test_discrete_gaussian.py`` against direct summation at
high precision; no misprint found). It is computed here as the sum of the non-negative terms
Q(x) (1 - e^{eps - L(x)}), x > eps sigma^2/Delta + Delta/2 (no cancellation).

**Renyi divergences.** Completing the square, sum_x P(x)^a Q(x)^{1-a} = e^{-a(1-a) Delta^2/(2
sigma^2)} theta((1 - a) Delta)/theta(0) with theta(c) = sum_x e^{-(x - c)^2/(2 sigma^2)}, which
is largest at integer c; so D_a(P || Q) = a Delta^2/(2 sigma^2) + log(theta(c)/theta(0))/(a - 1):
at most a Delta^2/(2 sigma^2) for a > 1 (CKS Prop. 5 and the zCDP bound of Thm. 4, rho =
(Delta/sigma)^2/2), with equality exactly when a Delta is an integer (checked against direct
sums in the tests). ``renyi_form`` gives this identity with the theta ratio as an exact series
(``discrete_gaussian_law.LatticeThetaRatio``, enclosed in Arb with rigorous tails, so
``ta.renyi(f, a, dps=...)`` is certified); KL = D_1 = Delta^2/(2 sigma^2) (E_P[X] = 0).

**The Arb law and the profile at large sigma** (``discrete_gaussian_law``): the privacy loss's
moment generating function M(z) = e^{z(z+1) Delta^2/(2 sigma^2)} theta(z Delta)/theta(0) for the
certified Laplace inversion (products with decaying laws; a lattice law's mgf does not decay),
and delta(eps) by the Euler-Maclaurin formula with a rigorous remainder from sigma = 8 on, so
that eps(delta) is a bracket proved in Arb in a fraction of a second at any sigma.

**Products on a budget grid.** For sigma^2 an exact rational the loss under Q is u y + v, y ~
N_Z(0, sigma^2), u = Delta/sigma^2, v = Delta^2/(2 sigma^2) (``lattice_factor``): a product of
discrete Gaussians whose u_i, v_i share a denominator D (rho_i = Delta_i^2/(2 sigma_i^2) = k_i/D)
is a lattice law, composed exactly in integers by ``numeric.lattice_product``. By Poisson
summation that law is the one of a single discrete Gaussian, DiscreteGaussian(sum n_i a_i
Delta_i, sqrt(sum n_i sigma_i^2 a_i^2)) (a_i the factors' steps on the lattice), up to a factor
(N'/N)(1 + [-eta, eta]) bounded in Arb (``discrete_gaussian_sum``); where eta is below the tolerance
(large sigma_i or many factors) the product is answered that way (:class:`OneDiscreteGaussian`,
the lattice product's shortcut: 1000 factors on the grids 1/10^4 to 1/10^6 in well under a
second once planned, ``benchmarks/RESULTS_census.md``), elsewhere by the exact integer
composition. The product is symmetric (each factor is), so its profile is that of either
direction, add or remove.

**Numerics.** Every value comes from the tail sums T(m) = sum_{x >= m} e^{-x^2/(2 sigma^2)}
(m >= 0) in Arb balls: the terms by the recurrence w(x + 1) = w(x) e^{-(2x + 1)/(2 sigma^2)},
the sum stopped when a term falls below 2^-(prec + 8) of it, the rest bounded by the geometric
series w(x)/(1 - e^{-(2x + 1)/(2 sigma^2)}) (the ratios decrease for x >= 0) and added to the
ball as [0, bound]. ``arb_value`` is therefore certified; ``mp_value``, ``mp_roc`` and
``mp_delta`` give the same balls' ends for an mpf argument (an estimate: the argument is rounded).
The PLD engine reads the atoms in float64 over a window holding all but 1e-40 of each law; the
dropped mass is parked at +-oo for the pessimistic side only.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import round_ceiling, round_floor, round_nearest

from ..core import trace
from ..core.citations import Paper
from ..core.errors import NumericalError
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball, ball_interval
from ..numeric.capability import functional_form, kinks, log_slope, renyi_form
from ..numeric.context import ThreadCache, arb_precision, mp
from ..numeric.lattice_pair import (
    LatticeTails,
    lattice_ball,
    lattice_pair,
    lattice_segment,
)
from ..numeric.lattice_product import OFF_GRID, SHORTCUTS, lattice_factor
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
    arb_delta,
    arb_value,
    mp_delta,
    mp_epsilon,
    mp_roc,
    mp_value,
    np_value,
    num,
    register_ends,
)
from ..numeric.renyi_orders import arb_renyi_orders
from ..numeric.roots import Probe, expand_bracket, findroot
from ..numeric.value import CertifiedPair
from .discrete_gaussian_law import (
    DiscreteGaussianLattice,
    _dual_terms,
    _theta_dual,
    dg_law,
    em_profile_sum,
    em_tail_sum,
    renyi_expr,
)
from .discrete_gaussian_np import OneGaussianTails
from .discrete_gaussian_offgrid import off_grid_product
from .discrete_gaussian_sum import GaussianSum, gaussian_sum

__all__ = ["DiscreteGaussian", "CKS"]

CKS = Paper("CKS", "Canonne, Kamath & Steinke",
            "C. L. Canonne, G. Kamath, T. Steinke. The discrete Gaussian for differential "
            "privacy. NeurIPS 2020; arXiv:2004.00010.")

#: The most terms one tail sum may take (about 14 sigma at 100 bits): beyond, sigma is refused
#: by the numeric routes with a NumericalError naming it.
MAX_TERMS = 2_000_000
#: From this sigma on the tail sums are taken by the Euler-Maclaurin formula first.
EM_SIGMA = 8.0
#: Mass of each law left out of the float64 atoms of the PLD grid (parked at +-oo).
FLOAT_TAU = 1e-40


class DiscreteGaussian(TradeOff):
    """T(N_Z(0, sigma^2), N_Z(Delta, sigma^2)): the discrete Gaussian mechanism on an integer
    query of sensitivity Delta (a positive integer), sigma > 0 (CKS, Def. 1; see the module)."""

    def __new__(cls, sensitivity: Any, sigma: Any):
        d = param("sensitivity", sensitivity, lower=1, integer=True, owner="DiscreteGaussian")
        s = param("sigma", sigma, lower=0, lower_open=True, owner="DiscreteGaussian")
        return TradeOff.__new__(cls, d, s)

    @property
    def sensitivity(self) -> sp.Expr:
        return self.args[0]

    @property
    def sigma(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        """True: x -> Delta - x swaps N_Z(0, sigma^2) and N_Z(Delta, sigma^2) (module)."""
        return True

    def _sympystr(self, printer):
        return "DiscreteGaussian(%s, %s)" % (printer._print(self.sensitivity),
                                             printer._print(self.sigma))

    def _latex(self, printer):
        s2 = printer._print(self.sigma**2)
        return (r"T\left(\mathcal{N}_{\mathbb{Z}}(0, %s), \mathcal{N}_{\mathbb{Z}}(%s, %s)\right)"
                % (s2, printer._print(self.sensitivity), s2))


# -- the lattice sums in Arb ---------------------------------------------------------------------
class _Sums(LatticeTails):
    """T(m) = sum_{x >= m} w(x), w(x) = e^{-h x^2}, h = 1/(2 sigma^2), as Arb balls at one
    precision (module docstring), with theta = 1 + 2 T(1) (``norm``) and the tails U(m) = P(X >=
    m) (``numeric.lattice_pair.LatticeTails``)."""

    def __init__(self, sigma, prec: int):
        from flint import arb

        super().__init__()
        self.prec = prec
        self.large = float(sigma.mid()) >= EM_SIGMA  # (Euler-Maclaurin first: ``direct``)
        self.h = 1 / (2 * sigma * sigma)
        self.g = (-2 * self.h).exp()  # the ratio of consecutive term ratios
        self.eps = arb(2) ** -(prec + 8)
        self.theta = self.norm = 1 + 2 * self.tail(1)

    def w(self, x: int):
        return (-self.h * (x * x)).exp()

    mass = w

    def direct(self, m: int):
        """T(m): from sigma = EM_SIGMA on by Euler-Maclaurin (``em_tail_sum``), else (or where it
        does not converge: far out, where the terms fall fast) the terms until the rest, bounded
        by a geometric series, is negligible (the time limit checked every 2^16 terms)."""
        from flint import arb

        if self.large:
            v = em_tail_sum(self.h, m, self.prec)
            if v is not None:
                return v
        w = self.w(m)
        r = (-self.h * (2 * m + 1)).exp()
        total = arb(0)
        for i in range(MAX_TERMS):
            if not i & 0xFFFF:
                budget.check()
            total += w
            w *= r
            r *= self.g
            if w < total * self.eps:
                # the rest: sum_{y >= x} w(y) <= w(x)/(1 - r_x), the ratios decreasing (x >= 0)
                return total + (w / (1 - r)) * (1 + arb(0, 1)) / 2
        raise NumericalError(f"discrete Gaussian tail sum from {m}: more than {MAX_TERMS} terms "
                             "(sigma is too large for the lattice sums)")

    def loss(self, k: int, d: int):
        """L(k) = h (2 k Delta - Delta^2)."""
        return self.h * (2 * k * d - d * d)

    def ratio(self, k: int, d: int):
        """e^{L(k)} (``numeric.lattice_pair.LatticeTails``)."""
        return self.loss(k, d).exp()


_SUMS = ThreadCache()


def _sums(f: DiscreteGaussian, prec: int) -> _Sums:
    key = (f.sigma, prec)
    s = _SUMS.get(key)
    if s is None:
        if len(_SUMS) > 16:
            _SUMS.clear()
        _check_size(f, prec)
        s = _SUMS[key] = _Sums(arb_ball(f.sigma), prec)
    return s


def _check_size(f: DiscreteGaussian, prec: int) -> None:
    sigma = float(f.sigma)
    if sigma >= EM_SIGMA:
        return  # (the tails by Euler-Maclaurin; the direct sums only far out, where they are short)
    if sigma * math.sqrt(2 * math.log(2) * (prec + 16)) + 16 > MAX_TERMS:
        raise NumericalError(f"DiscreteGaussian: sigma={f.sigma} is too large for the lattice "
                             f"sums (about {int(sigma * math.sqrt(1.4 * (prec + 16)))} terms, at "
                             f"most {MAX_TERMS})")


def _ball(f: DiscreteGaussian, a, ac, power: bool, prec: int):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball from exact balls a = alpha and
    ac = 1 - alpha (``numeric.lattice_pair``), or None where the segment is not decided."""
    return lattice_ball(_sums(f, prec), int(f.sensitivity), a, ac, power, float(f.sigma),
                        "DiscreteGaussian")


@arb_value.register(DiscreteGaussian)
def _(f, a, ac, power):
    """The certified ball of f(alpha) or 1 - f(alpha) (module docstring)."""
    from flint import ctx

    prec = ctx.prec
    with arb_precision(prec + 24):
        return _ball(f, a, ac, power, prec + 24)


def _level_value(f, a, ac, power):
    num(f.sigma, "sigma")  # symbols: a clear error
    return lattice_pair(lambda prec: _ball(f, arb_exact(a), arb_exact(ac), power, prec), str(f))


mp_value.register(DiscreteGaussian)(lambda f, a, ac: _level_value(f, a, ac, False))
mp_roc.register(DiscreteGaussian)(lambda f, a, ac: _level_value(f, a, ac, True))


# -- the privacy profile -------------------------------------------------------------------------
def delta_ball(f: DiscreteGaussian, eps, prec: int):
    """delta(eps) as an Arb ball (``eps`` a ball): sum_{x >= m} Q(x) (1 - e^{eps - L(x)})_+ with
    m below the threshold eps sigma^2/Delta + Delta/2, the rest bounded by the tail T of P
    (module docstring; CKS Thm. 7); from sigma = 8 on by the Euler-Maclaurin formula
    (:func:`_delta_em`, a few dozen operations at any sigma) where its remainder is small
    enough."""
    from flint import arb

    em = _delta_em(f, eps, prec)
    if em is not None:
        return em
    d = int(f.sensitivity)
    S = _sums(f, prec)
    thr = eps / (2 * S.h * d) + arb(d) / 2
    m = int(thr.lower().floor().unique_fmpz())  # every x < m has L(x) < eps
    y = m - d  # Q(x) = P(x - Delta) = w(x - Delta)/theta
    w = S.w(y)
    r = (-S.h * (2 * y + 1)).exp()
    total = arb(0)
    x = m
    for _ in range(MAX_TERMS):
        term = w * (-(eps - S.loss(x, d)).expm1()).max(arb(0))
        total += term
        w *= r
        r *= S.g
        x += 1
        y += 1
        if y >= 0 and total > 0 and w < total * S.eps:
            rest = (w / (1 - r)) * (1 + arb(0, 1)) / 2
            return (total + rest) / S.theta
    raise NumericalError(f"{f}: delta({eps}) needs more than {MAX_TERMS} terms")


def _delta_em(f: DiscreteGaussian, eps, prec: int):
    """delta(eps) = S/theta(0): S = sum_{x > thr} [w(x - Delta) - e^eps w(x)] (thr = eps
    sigma^2/Delta + Delta/2, every such term positive) by Euler-Maclaurin
    (``discrete_gaussian_law.em_profile_sum``; its corrections shrink like (eps/(2 pi Delta))^2
    far out) or, where that does not converge, by the terms themselves (:func:`_far_sum`, few
    there), a lattice point within the ball of thr counted as max(term, 0), theta(0) by its
    Poisson dual series; None below sigma = 8 or where neither is short (the direct sums of
    :class:`_Sums` answer)."""
    from flint import acb, arb

    if float(f.sigma) < 8:
        return None
    d = int(f.sensitivity)
    sg = arb_ball(f.sigma)
    h = 1 / (2 * sg * sg)
    thr = eps / (2 * h * d) + arb(d) / 2
    if not thr.is_finite():
        return None
    lo_i = int(thr.lower().floor().unique_fmpz())
    hi_i = int(thr.upper().floor().unique_fmpz())
    if hi_i - lo_i > 1:
        return None
    extra = arb(0)
    if hi_i > lo_i:  # thr may equal the lattice point hi_i: its term counts only if positive
        g = (-h * (hi_i - d) ** 2).exp() - eps.exp() * (-h * hi_i * hi_i).exp()
        extra = g.max(arb(0))
    S = em_profile_sum(d, h, eps, hi_i + 1, prec)
    if S is None:  # far out (eps >~ 2 pi Delta): the terms fall fast, sum them directly
        S = _far_sum(d, h, eps, hi_i + 1, prec)
    if S is None:
        return None
    theta0 = sg * (2 * arb.pi()).sqrt() * _theta_dual(sg, acb(0), _dual_terms(float(f.sigma),
                                                                              0.0, prec)).real
    return ((S + extra) / theta0).max(arb(0))


def _far_sum(d: int, h, eps, m: int, prec: int, max_terms: int = 100_000):
    """sum_{x >= m} [w(x - Delta) - e^eps w(x)] (every term positive) directly, the rest
    bounded by the geometric tail of w(x - Delta) (ratios e^{-h(2(x - Delta) + 1)}, decreasing for
    x >= Delta), or None beyond ``max_terms`` terms."""
    from flint import arb

    ee = eps.exp()
    total = arb(0)
    eps_rel = arb(2) ** -(prec + 8)
    for x in range(m, m + max_terms):
        wq = (-h * (x - d) ** 2).exp()
        total += wq - ee * (-h * x * x).exp()
        if x - d >= 0 and total > 0 and wq < total * eps_rel:
            r = (-h * (2 * (x + 1 - d) + 1)).exp()
            rest = (-h * (x + 1 - d) ** 2).exp() / (1 - r)
            return total + arb(0, rest.upper())
    return None


@arb_delta.register(DiscreteGaussian)
def _(f, eps):
    """delta(eps) as a certified ball (:func:`delta_ball`, CKS Thm. 7)."""
    from flint import ctx

    return delta_ball(f, eps, ctx.prec)


@mp_delta.register(DiscreteGaussian)
def _(f, eps):
    """delta(eps) (CKS Thm. 7) from :func:`delta_ball` at the working precision."""
    if eps == mp.inf:
        return mp.zero, mp.zero
    num(f.sigma, "sigma")
    return lattice_pair(lambda prec: delta_ball(f, arb_exact(eps), prec), str(f))


def _epsilon_guess(f: DiscreteGaussian, d) -> float:
    """A float start for eps(d): the Gaussian's Chernoff-type guess mu^2/2 + mu sqrt(2 log 1/d),
    mu = Delta/sigma (the discrete Gaussian's profile tends to G_mu's for large sigma)."""
    mu = float(f.sensitivity) / float(f.sigma)
    return mu * mu / 2 + mu * math.sqrt(2 * max(-float(mp.log(d)), 1e-3))


@mp_epsilon.register(DiscreteGaussian)
def _(f, d):
    """eps(d) = min{eps >= 0: delta(eps) <= d} as a certified enclosure at the working
    precision: delta(eps) is continuous and strictly decreasing while positive (its derivative
    is -e^eps P(L > eps)), so an eps with delta(eps) > d proved in Arb (:func:`delta_ball`) lies
    below the root and one with delta(eps) < d above it; the bracket is widened around a
    Gaussian guess (``numeric.roots.expand_bracket``) and narrowed by the one root finder
    (``findroot``, secant steps on log delta). ``d`` is the caller's level rounded to the working
    precision: the comparisons are made against a ball holding every number it may stand for."""
    from flint import arb

    num(f.sigma, "sigma")
    if d <= 0:  # Q has points with L > eps for every eps: delta(eps) > 0 (a proof)
        return CertifiedPair(mp.inf, mp.inf)
    if d >= 1:
        return CertifiedPair(mp.zero, mp.zero)
    target = mp.prec
    prec = target + 24
    with arb_precision(prec):
        dball = arb_exact(d) * (1 + arb(0, 1) * arb(2) ** -(target - 2))
        log_d = mp.log(d)

        def probe(e) -> Probe:
            ball = delta_ball(f, arb_exact(mp.mpf(e)), prec)
            k = 1 if ball > dball else -1 if ball < dball else None
            mid = ball.mid()
            est = None
            if mid > 0:
                with mp.workprec(64):
                    est = mp.log(arb_endpoint(mid, round_nearest)) - log_d
            return Probe(k, est)

        p0 = probe(mp.zero)
        if p0.k == -1:  # delta(0) < d: eps = 0
            trace.note("certified bracket on the Arb profile")
            return CertifiedPair(mp.zero, mp.zero)
        if p0.k is None:
            return None
        g = mp.mpf(_epsilon_guess(f, d))

        def trial(lo, hi, last, i):  # 0.97 g, then 1.03 g, 1.12 g, 1.48 g, ... until above
            x = g * (mp.mpf("0.97") if i == 0 else 1 + mp.mpf("0.03") * 4 ** (i - 1))
            return x if x < 1e8 else None

        found = expand_bracket(probe, trial, lo=mp.zero, plo=p0, max_iter=400,
                               what=lambda: f"eps({d}) of {f}")
        if found.lo == found.hi:
            return CertifiedPair(found.lo, found.hi)
        r = findroot(probe, (found.lo, found.hi), method="collapse", ends=(found.plo, found.phi),
                     rtol=mp.ldexp(1, -(target - 4)), max_iter=4 * target)
    trace.note("certified bracket on the Arb profile")
    return CertifiedPair(r.lo, r.hi)


# -- float64: the curve and the PLD grid ---------------------------------------------------------
@lru_cache(maxsize=8)
def _float_atoms(d: int, sigma: float):
    """x, P(x), Q(x) on the window [-K, K + Delta] holding all but FLOAT_TAU of each law, and
    the largest exponent x^2/(2 sigma^2) used (for the error bound)."""
    h = 1.0 / (2.0 * sigma * sigma)
    K = max(int(math.ceil(sigma * math.sqrt(2 * math.log(4 / FLOAT_TAU)))) + 1, 1)
    while True:  # P(X > K) <= w(K+1)/(1 - e^{-h(2K+3)}) (theta >= 1) below FLOAT_TAU/4
        bound = math.exp(-h * (K + 1) ** 2) / -math.expm1(-h * (2 * K + 3))
        if bound <= FLOAT_TAU / 8:
            break
        K += max(K // 8, 1)
    if 2 * K + d + 1 > MAX_TERMS:
        raise NumericalError(f"DiscreteGaussian: sigma={sigma} needs {2 * K + d + 1} atoms in "
                             f"float64 (at most {MAX_TERMS})")
    x = np.arange(-K, K + d + 1, dtype=np.float64)
    wp = np.exp(-h * x * x)
    wq = np.exp(-h * (x - d) ** 2)
    theta = math.fsum(np.exp(-h * np.arange(-K - d, K + d + 1, dtype=np.float64) ** 2))
    zmax = h * float(K + d) ** 2
    return x, wp / theta, wq / theta, zmax


class DiscreteGaussianLoss(AtomLoss):
    """The lattice law of L (module docstring) in float64 for the PLD grid: atoms l(x) =
    (2 x Delta - Delta^2)/(2 sigma^2) with P(x) and Q(x) = P(x - Delta) on a window holding all
    but FLOAT_TAU of each law; that rest goes to +-oo for the pessimistic side only. The masses
    e^{-z}/theta, z = x^2/(2 sigma^2) <= zmax, carry a relative error of at most
    5 u zmax (z rounded) + RHO_LIB (exp) + (n + 2) u (theta); the losses are rounded by at most
    4 u (1 + max |l|) (``edge_err``)."""

    def __init__(self, d: int, sigma: float):
        x, pm, qm, zmax = _float_atoms(d, sigma)
        loss = (2.0 * x * d - d * d) / (2.0 * sigma * sigma)
        rel = RHO_LIB + U64 * (5 * zmax + len(x) + 4)
        super().__init__(loss, pm, qm, q_inf=FLOAT_TAU, p_ninf=FLOAT_TAU, rel_err=rel,
                         q_inf_sure=0.0, p_ninf_sure=0.0)
        self._edge = 8 * U64 * (1.0 + float(np.max(np.abs(loss))))

    def edge_err(self, t):
        return self._edge


@privacy_loss.register(DiscreteGaussian)


@loss_views("grid", "law")
def _(f) -> PrivacyLoss | None:
    """The lattice law in float64 (DiscreteGaussianLoss) and its Arb law for the certified
    Laplace inversion (``discrete_gaussian_law``; sigma an exact rational or float); None for
    symbolic parameters."""
    if f.free_symbols:
        return None
    d, sigma = int(f.sensitivity), exact_fraction(f.sigma)
    return LazyLoss(grid=lambda: DiscreteGaussianLoss(d, float(f.sigma)),
                    law=None if sigma is None else lambda: dg_law(d, sigma))


@lattice_factor.register(DiscreteGaussian)
def _(f) -> DiscreteGaussianLattice | None:
    """The lattice view of the loss (``discrete_gaussian_law.DiscreteGaussianLattice``: L = u y
    + v under Q, u = Delta/sigma^2, v = Delta^2/(2 sigma^2)) when sigma^2 is an exact rational:
    products whose u_i, v_i share a small denominator (zCDP budgets rho_i = Delta^2/(2
    sigma_i^2) on a common grid) are composed exactly (``numeric.lattice_product``)."""
    if f.free_symbols:
        return None
    s2 = f.sigma**2
    if not isinstance(s2, sp.Rational):
        return None
    return DiscreteGaussianLattice(int(f.sensitivity), Fraction(int(s2.p), int(s2.q)))


class OneDiscreteGaussian:
    """A product of discrete Gaussians on one lattice answered as DiscreteGaussian(Delta',
    sqrt(V)) times a proved factor (``discrete_gaussian_sum``, (2)): delta(eps) by
    :func:`delta_ball`, eps(delta) by the certified bracket of the one discrete Gaussian at the
    levels delta/factor (delta' is decreasing: eps(d) lies between eps'(d/lo) and eps'(d/hi))."""

    name = "discrete Gaussians as one discrete Gaussian (smoothing bound, certified)"

    def __init__(self, s: GaussianSum) -> None:
        self.sum = s
        v = sp.Rational(s.variance.numerator, s.variance.denominator)
        self.node = DiscreteGaussian(s.sensitivity, sp.sqrt(v))

    def np_tails(self, alphas, rel_tol: float, extra: int = 0) -> OneGaussianTails:
        """The product's Neyman-Pearson tails: the one discrete Gaussian's times the factor
        (``discrete_gaussian_np``, (1)), at the bits of ``rel_tol`` (``extra``: 32 more each)."""
        s = self.sum
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300))) + 32 * extra
        step = Fraction(s.sensitivity) / s.variance
        trace.note(OneGaussianTails.route)
        with arb_precision(prec + 64):
            sums = _sums(self.node, prec)  # (sigma's ball at the tails' precision)
        return OneGaussianTails(sums, s.sensitivity, s.factor, step, step * s.sensitivity / 2,
                                math.sqrt(s.variance), prec)

    def enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair | None:
        """delta(arg) or eps(arg) (an mpf, taken exactly) as a CertifiedPair of mpfs rounded
        outward (``numeric.lattice_product.LatticeProduct.enclosure``), or None."""
        prec = max(int(-math.log2(rel_tol)), mp.prec) + 32
        F = self.sum.factor
        with arb_precision(prec + 64):
            if question == "delta":
                if arg < 0:
                    return None  # (the exact composition answers below 0)
                b = delta_ball(self.node, arb_exact(arg), prec)
                if b is None or not b.is_finite():
                    return None
                b = b * F
                lo = max(arb_endpoint(b.lower(), round_floor), mp.zero)
                return CertifiedPair(lo, min(arb_endpoint(b.upper(), round_ceiling), mp.one))
            d = arb_exact(arg) / F  # (every level d/F, F in the factor's ball)
            up = arb_endpoint(d.upper(), round_ceiling)
            dn = arb_endpoint(d.lower(), round_floor)
        if not dn > 0:
            return None
        left = mp_epsilon(self.node, up)  # eps(d) >= eps'(d/lo) >= eps'(up)
        right = left if dn == up else mp_epsilon(self.node, dn)  # eps(d) <= eps'(dn)
        if not (isinstance(left, CertifiedPair) and isinstance(right, CertifiedPair)):
            return None  # (a plain pair is an estimate)
        return CertifiedPair(left[0], max(right[1], left[0]))


def _one_discrete_gaussian(product, bits: int) -> OneDiscreteGaussian | None:
    """The shortcut of a lattice product whose factors are all discrete Gaussians
    (``numeric.lattice_product.SHORTCUTS``), or None."""
    s = gaussian_sum(product.factors, product.a, product.g, product.D, product.B, bits)
    return None if s is None else OneDiscreteGaussian(s)


SHORTCUTS.append(_one_discrete_gaussian)
OFF_GRID.append(off_grid_product)


@np_value.register(DiscreteGaussian)
def _(f, x):
    """Interpolation of the knots (U(k), P(X <= k - Delta - 1)) built from the float atoms."""
    d = int(f.sensitivity)
    xs, pm, _, _ = _float_atoms(d, float(f.sigma))
    n = len(xs) - d  # the masses of X on [-K, K]
    p = pm[:n]
    ge = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])  # U(k), k = -K .. K + 1
    le = np.concatenate([[0.0], np.cumsum(p)])  # P(X <= k - 1), k = -K .. K + 1
    # f at alpha = U(k) is P(X <= k - Delta - 1): le shifted by Delta (0 below the window)
    fk = np.concatenate([np.zeros(d), le])[: n + 1]
    a = np.concatenate([[1.0], ge[::-1][::-1]])
    v = np.concatenate([[0.0], fk])
    order = np.argsort(a, kind="stable")
    a, v = a[order], v[order]
    a = np.concatenate([[0.0], a])
    v = np.concatenate([[1.0], v])
    return np.interp(np.asarray(x, dtype=np.float64), a, v)


# -- closed forms of divergences (identities only) -----------------------------------------------
@renyi_form.register(DiscreteGaussian)
def _(f, a):
    """D_a(P || Q) = a Delta^2/(2 sigma^2) + log(theta((1 - a) Delta)/theta(0))/(a - 1), the
    theta ratio an exact series that Arb encloses (``discrete_gaussian_law.renyi_expr``); the
    zCDP value a Delta^2/(2 sigma^2) exactly when a Delta is an integer; +oo at a = oo."""
    if a == 1:
        return f.sensitivity**2 / (2 * f.sigma**2)
    return renyi_expr(f.sensitivity, f.sigma, a)



@arb_renyi_orders.register(DiscreteGaussian)
def _(f, orders):
    """D_a(P || Q) at the orders where (1 - a) Delta is an integer (every integer order): theta
    has period 1 (theta(c + 1) = theta(c): shift the summation index), so the ratio
    theta((1 - a) Delta)/theta(0) of the form above is 1 and D_a = a Delta^2/(2 sigma^2), the
    zCDP value (CKS, Prop. 5 and the module docstring); exact ``fmpq`` for a rational
    sigma^2, else Arb balls from its enclosure. Other orders None (the theta ratio: the
    closed-form route); a symbolic sigma None (the capability "renyi_orders")."""
    from flint import fmpq

    if not isinstance(f.sensitivity, sp.Integer):
        return None
    d, s2 = int(f.sensitivity), f.sigma**2
    if isinstance(s2, sp.Rational):
        c = fmpq(d * d * int(s2.q), 2 * int(s2.p))
    elif s2.free_symbols:
        return None
    else:
        try:
            c = d * d / (2 * arb_ball(s2))
        except ValueError:
            return None
    return [c * a if type(a) is int or (a * d).q == 1 else None for a in orders]


@functional_form.register(DiscreteGaussian)
def _(f, name):
    """KL(P || Q) = E_P[-L] = Delta^2/(2 sigma^2) (E_P[X] = 0 by symmetry); no other closed
    forms."""
    return f.sensitivity**2 / (2 * f.sigma**2) if name == "kl" else None


# -- quadrature: the slope and the knots ---------------------------------------------------------
@log_slope.register(DiscreteGaussian)
def _(f, a, ac):
    """log|f'| = L(k) on the segment k of alpha (the right derivative at a knot)."""
    if a == 0:  # the first segment's slope: L(k) -> oo
        return mp.inf
    if ac == 0:  # the last one's: L(k) -> -oo
        return mp.ninf
    prec = mp.prec + 40
    with arb_precision(prec):
        S = _sums(f, prec)
        k = lattice_segment(S, arb_exact(a), arb_exact(ac), float(f.sigma), str(f))
        d = int(f.sensitivity)
        lo, hi = ball_interval(S.loss(k, d), mp.prec)
    return (lo + hi) / 2


@kinks.register(DiscreteGaussian)
def _(f):
    """The knots U(k) in [1/64, 63/64] (at most 20003 of them): quadrature splits there; a
    piece next to an end narrower than that has nodes that round onto the end at the working
    precision, so the knots nearer the ends are left to the quadrature of the end pieces (the
    functionals by quadrature are estimates)."""
    prec = mp.prec + 20
    out = []
    edge = mp.mpf(1) / 64
    with arb_precision(prec):
        S = _sums(f, prec)
        K = min(int(float(f.sigma) * math.sqrt(math.log(2) * prec)) + 2, 10_000)
        for k in range(-K, K + 2):
            lo, hi = ball_interval(S.upper(k)[0], mp.prec)
            m = (lo + hi) / 2
            if edge < m < 1 - edge:
                out.append(m)
    return sorted(set(out))


# f(0) = 1 and f^{-1}(0) = 1 (numeric.protocol.exact_ends): both discrete Gaussians charge every
# integer (sigma > 0), so the pair is mutually absolutely continuous.
register_ends(DiscreteGaussian)
