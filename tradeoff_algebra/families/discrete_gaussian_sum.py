"""A product of discrete Gaussians on one lattice is one discrete Gaussian, up to a proved factor.

Setting (``numeric.lattice_product``): factor i, taken n_i times, has the privacy loss L_i = u_i
y_i + v_i under Q with y_i ~ N_Z(0, sigma_i^2) (Canonne, Kamath & Steinke, arXiv:2004.00010,
Def. 1; u_i = Delta_i/sigma_i^2, v_i = Delta_i^2/(2 sigma_i^2), ``discrete_gaussian_law``), and u_i
D = g a_i with integers a_i of gcd 1. The loss of the product is L = (g S + B)/D, S = sum a_i y_i
(every copy its own y). Let V = sum_i n_i sigma_i^2 a_i^2 and Delta' = sum_i n_i a_i Delta_i.

**Claim.** Q(S = s) = pi'(s) (N'/N) (1 + zeta(s)) with |zeta(s)| <= eta for every integer s,
where pi' is the law N_Z(0, V), N = prod_i N_i^{n_i}, N_i = sum_{m in Z} e^{-2 pi^2 sigma_i^2 m^2},
N' the same sum for V, and

    eta = sqrt(2 pi V) int_{-1/2}^{1/2} prod_i theta_i(lam)^{n_i} dlam - 1,
    theta_i(lam) = sum_{m in Z} e^{-2 pi^2 sigma_i^2 (m - lam a_i)^2}.                          (1)

*Proof.* By Poisson summation E_Q[e^{i tau y_i}] = G_i(tau)/N_i with G_i(tau) = sum_m
e^{-sigma_i^2 (tau - 2 pi m)^2/2} (the dual theta series, ``discrete_gaussian_law`` (2)), so
Q(S = s) = (1/2 pi) int_{-pi}^{pi} prod G_i(a_i t)^{n_i} e^{-i t s} dt / N. Expanding the product
over m in Z^{sum n_i}, the exponent is -V (t - t_m)^2/2 - 2 pi^2 Q(m) with Q(m) = min_lam sum
sigma_i^2 (m_i - lam a_i)^2 >= 0 and t_m real; t -> t + 2 pi maps m to m + a, so the sum of the
integrals over [-pi, pi] is the sum over the classes [m] of Z^n/Z a of the integrals over R:
Q(S = s) = (e^{-s^2/(2V)}/sqrt(2 pi V)/N) sum_{[m]} e^{-2 pi^2 Q(m)} e^{-i s t_m}, the class of 0
giving 1. Since e^{-s^2/(2V)}/sqrt(2 pi V) = pi'(s) N', |zeta(s)| <= sum_{[m] != 0} e^{-2 pi^2
Q(m)}, and integrating e^{-2 pi^2 F_m(lam)}, F_m(lam) = sum sigma_i^2 (m_i - lam a_i)^2 = Q(m) + V
(lam - lam_m)^2, over lam in R gives e^{-2 pi^2 Q(m)}/sqrt(2 pi V); summed over m in Z^n with lam
in [-1/2, 1/2) this is the sum over the classes, hence (1). []

So the product's loss under Q is that of DiscreteGaussian(Delta', sqrt(V)) (its step Delta'/V =
g/D and offset Delta'^2/(2V) = B/D, checked exactly) up to the factor, and every profile value,
a sum of Q-masses times non-negative weights (Dong, Roth & Su, Prop. 6), is

    delta(eps) = (N'/N) delta'(eps) (1 + [-eta, eta]).                                         (2)

**Bounding eta** (:func:`gaussian_sum`). With g(lam) = e^{-2 pi^2 V lam^2}, whose integral over
[-1/2, 1/2] is at most 1/sqrt(2 pi V), eta <= sqrt(2 pi V) int (prod theta_i^{n_i} - g). Let x =
lam a_i and d = dist(x, Z) <= 1/2. For d <= kappa < 1/2, expanding about the nearest integer,
theta_i = e^{-2 pi^2 sigma_i^2 d^2} (1 + sum_{j >= 1} (e^{-2 pi^2 sigma_i^2 j (j - 2d)} + e^{-2
pi^2 sigma_i^2 j (j + 2d)})) and j (j - 2d) >= (1 - 2 kappa) + j - 1, so theta_i <= e^{-2 pi^2
sigma_i^2 d^2} (1 + r_i(kappa)), r_i(kappa) = 2 e^{-2 pi^2 sigma_i^2 (1 - 2 kappa)}/(1 - e^{-2
pi^2 sigma_i^2}); for d > kappa, theta_i is at most its value at d = kappa, theta_i being
decreasing in d on [0, 1/2] (it is a positive constant times the Jacobi theta function
prod_n (1 - p^{2n}) (1 + 2 p^{2n-1} cos 2 pi d + p^{4n-2}), p = e^{-1/(2 sigma_i^2)}). Hence:

* in the zone |lam| <= kappa/max a_i (every |x| <= kappa) prod theta_i^{n_i} <= g e^{C(kappa)},
  C(kappa) = sum n_i log(1 + r_i(kappa)); with the zones kappa = 1/4, 3/8, 7/16 (:data:`KAPPAS`)
  and the Gaussian mass outside the previous one, sqrt(2 pi V) int_{|lam| > k/max a_i} g =
  erfc(pi sqrt(2V) k/max a_i), they add at most (e^{C(1/4)} - 1) + (e^{C(3/8)} - 1) erfc(pi
  sqrt(2V)/(4 max a_i)) + (e^{C(7/16)} - 1) erfc(3 pi sqrt(2V)/(8 max a_i)) to eta;
* beyond, log theta_i <= -2 pi^2 sigma_i^2 min(d, 7/16)^2 + log(1 + r_i(7/16)): on dyadic
  intervals of lam (a branch and bound, in exact integers) d >= dist(mid a_i, Z) - a_i w (w the
  half width), and the least S = sum n_i sigma_i^2 min(d, 7/16)^2 over the cover (from below)
  bounds that part by sqrt(2 pi V) e^{-2 pi^2 S + C(7/16)}.

eta is thus about sqrt(2 pi V) e^{-2 pi^2 min Q(m)}: negligible when the sigma_i are large
against the lattice or the factors many (1000 discrete Gaussians with sigma_i >= 10: below
2^-512, the first bound tried), real for a few factors of moderate sigma on a coarse lattice
(sigma^2 = 50, 60: about 1e-8, from the class of m = (1, 1)). A product whose bound does not
reach the requested one is left to the exact lattice product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from ..numeric.cf_laws import to_arb
from ..numeric.context import arb_precision
from .discrete_gaussian_law import DiscreteGaussianLattice

__all__ = ["GaussianSum", "gaussian_sum", "MAX_INTERVALS"]

#: The most dyadic intervals the bound of eta may use before the product is left to the exact
#: lattice composition.
MAX_INTERVALS = 1024
#: The deepest dyadic level of that cover.
MAX_LEVEL = 60
#: The zones |lam| <= kappa/max a_i of the bound of eta (module): the last is also the cap of d.
KAPPAS = (Fraction(1, 4), Fraction(3, 8), Fraction(7, 16))


@dataclass(frozen=True)
class GaussianSum:
    """The product as one discrete Gaussian (module): ``sensitivity`` Delta', ``variance`` V
    (exact), ``factor`` a ball [lo, hi] holding (N'/N) (1 + zeta) for every zeta in [-eta, eta]
    (module (2)), and ``eta``, an upper bound of eta (a ball)."""

    sensitivity: int
    variance: Fraction
    factor: arb
    eta: arb


def _cover_minimum(factors: list[tuple[Fraction, int, int]], lam1: Fraction,
                   need: float) -> Fraction | None:
    """A lower bound of the least S = sum n sigma^2 min(d, kappa)^2 over a cover of [lam1, 1/2] by
    dyadic intervals on each of which the float estimate of 2 pi^2 S reaches ``need`` (module):
    each interval's S from below in integers (sigma^2 n rounded down to 2^-64), exactly; None
    when the cover needs more than :data:`MAX_INTERVALS` intervals or deeper levels."""
    todo = [(3, j) for j in range(4)]  # [j/8, (j + 1)/8], j = 0 .. 3, covers [0, 1/2]
    best: Fraction | None = None
    count = 0
    scale = 2 * math.pi**2
    floats = [float(s2) * n for s2, _, n in factors]
    weights = [(s2 * n * 2**64).__floor__() for s2, _, n in factors]  # <= 2^64 n sigma^2
    steps = [a for _, a, _ in factors]
    kappa = KAPPAS[-1]
    while todo:
        p, j = todo.pop()
        if Fraction(j + 1, 2**p) <= lam1:  # inside the inner zone |lam| <= lam1
            continue
        M = 2 ** (p + 1)  # mid = (2 j + 1)/M, half width 1/M
        k = 2 * j + 1
        cap = kappa.numerator * M // kappa.denominator  # (exact: M >= 16)
        ds = [min(max(min(r, M - r) - a, 0), cap)
              for a in steps for r in ((a * k) % M,)]
        est = scale * sum(w * d * d for w, d in zip(floats, ds, strict=True))
        if est / (M * M) >= need:
            S = Fraction(sum(w * d * d for w, d in zip(weights, ds, strict=True)),
                         2**64 * M * M)
            best = S if best is None or S < best else best
            count += 1
            if count > MAX_INTERVALS:
                return None
            continue
        if p >= MAX_LEVEL or len(todo) > MAX_INTERVALS:
            return None
        todo += [(p + 1, 2 * j), (p + 1, 2 * j + 1)]
    return best


def gaussian_sum(factors: list[tuple[DiscreteGaussianLattice, int]], a: list[int], g: int,
                 D: int, B: int, bits: int) -> GaussianSum | None:
    """The product of ``factors`` [(DiscreteGaussianLattice, multiplicity)] with lattice
    multipliers ``a`` (the loss (g S + B)/D, S = sum a_i y_i: ``numeric.lattice_product``) as one
    discrete Gaussian (module), eta bounded below 2^-bits; None when a factor is not a discrete
    Gaussian or the bound does not reach 2^-bits."""
    if not factors or any(not isinstance(f, DiscreteGaussianLattice) for f, _ in factors):
        return None
    trip = [(f.sigma2, int(ai), int(n)) for (f, n), ai in zip(factors, a, strict=True)]
    V = sum((n * s2 * ai * ai for s2, ai, n in trip), Fraction(0))
    dp = sum(n * ai * f.d for (f, n), ai in zip(factors, a, strict=True))
    if Fraction(dp) / V != Fraction(g, D) or Fraction(dp * dp) / (2 * V) != Fraction(B, D):
        return None  # (never, by the module's algebra; a guard)
    amax = max(ai for _, ai, _ in trip)
    with arb_precision(max(bits, 53) + 64):
        pi2 = arb.pi() ** 2
        norm = arb(1)  # prod (1 + 2 q_i/(1 - q_i))^{n_i} >= N
        C = [arb(0)] * len(KAPPAS)  # sum n_i log(1 + r_i(kappa)) for each kappa
        for s2, _, n in trip:
            x = 2 * pi2 * to_arb(s2)  # 2 pi^2 sigma_i^2
            q = (-x).exp()
            norm *= (1 + 2 * q / (1 - q)) ** n
            C = [c + n * (2 * (-x * (1 - 2 * to_arb(k))).exp() / (1 - q)).log1p()
                 for c, k in zip(C, KAPPAS, strict=True)]
        eta = C[0].exp() - 1
        if not eta < arb(2) ** -bits:  # small sigma_i: the lattice terms are real
            return None
        v = to_arb(V)
        root = (2 * arb.pi() * v).sqrt()
        z = arb.pi() * (2 * v).sqrt()
        for c, k in zip(C[1:], KAPPAS, strict=False):  # the zones between two kappas
            eta += (c.exp() - 1) * (z * to_arb(k) / amax).erfc()
        need = float((root.log() + C[-1]).upper()) + (bits + 4) * math.log(2)
        S = _cover_minimum(trip, Fraction(KAPPAS[-1]) / amax, need)
        if S is None:
            return None
        eta += root * (-2 * pi2 * to_arb(S) + C[-1]).exp()
        if not eta < arb(2) ** -bits:
            return None
        qv = (-2 * pi2 * v).exp()
        hi = (1 + 2 * qv / (1 - qv)) * (1 + eta)  # N'/N <= N' (N >= 1)
        lo = (1 - eta) / norm  # N'/N >= 1/N (N' >= 1)
        factor = lo.lower().union(hi.upper())
    return GaussianSum(dp, V, factor, eta)
