"""Products of discrete Gaussians whose budgets share no grid: the continuous Gaussian composition
up to an aliasing bound proved by n-dimensional Poisson summation and lattice enumeration.

Setting. Factor i (n_i copies) is DiscreteGaussian(Delta_i, sigma_i) (Canonne, Kamath & Steinke,
arXiv:2004.00010, Def. 1), sigma_i^2 rational; under Q its loss is L_i = u_i y_i + v_i, y_i ~
N_Z(0, sigma_i^2), u_i = Delta_i/sigma_i^2, v_i = Delta_i^2/(2 sigma_i^2)
(``discrete_gaussian_law``). When the u_i share no small denominator (sigma_i = 10 + i/10) the
product is no lattice law of small step (``discrete_gaussian_sum`` needs one). Let mu^2 = sum n_i
Delta_i^2/sigma_i^2 (exact), G_mu the continuous composition and

    delta_G(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
    N = prod_i N_i^{-n_i},  N_i = sum_{m in Z} e^{-2 pi^2 sigma_i^2 m^2}.

**Claim.** delta(eps) = N delta_G(eps) + r with |r| <= E1 + ... + E5 below.

*Exact expansion.* delta = E_Q[h(L)], h(l) = (1 - e^{eps - l})_+ (Dong, Roth & Su, Prop. 6),
a sum over y in Z^n (one coordinate per copy) of F(y) = prod_i e^{-y_i^2/(2 sigma_i^2)}
h(L(y))/Z_i, Z_i = sum_y e^{-y^2/(2 sigma_i^2)} = sqrt(2 pi) sigma_i N_i (Poisson). F is
continuous with Gaussian decay and, as shown below, sum_k |F^(k)| < oo, so Poisson summation
holds: delta = sum_{k in Z^n} F^(k). Under x ~ N(0, diag sigma_i^2), L(x) = w.x + mu^2/2 with
w_i = u_i, and w.x ~ N(0, mu^2); writing x = Sigma w s/mu^2 + x_perp (s = w.x, x_perp
independent of s), k.x = K s/mu^2 + k.x_perp with K = sum k_i Delta_i an integer and Var(k.x_perp)
= sum sigma_i^2 k_i^2 - K^2/mu^2 =: Q(k). Hence

    delta = N sum_{K in Z} S_K T_K,  S_K = sum_{k: sum k_i Delta_i = K} e^{-2 pi^2 Q(k)},
    T_K = E_{s ~ N(0, mu^2)}[h(s + mu^2/2) e^{-i omega_K s}],  omega_K = 2 pi K/mu^2,     (1)

T_0 = delta_G, S_0 = 1 + S_0' (k = 0 and the rest). Q(k) = min_lam F_k(lam), F_k(lam) = sum
sigma_i^2 (k_i - lam u_i)^2, attained at lam_K = K/mu^2 (a function of K alone), so with a_i(m;
lam) = e^{-2 pi^2 sigma_i^2 (m - lam u_i)^2} and theta_i(lam) = sum_m a_i(m; lam):

    S_K = sum_{k: sum k_i Delta_i = K} prod_i a_i(k_i; lam_K)
        <= Theta(lam_K) = prod_i theta_i(lam_K)^{n_i}.

*The bounds.* theta_i is even, 1/u_i-periodic in lam and decreasing in d_i = dist(lam u_i, Z) on
[0, 1/2] (a Jacobi triple product, ``discrete_gaussian_sum``), so theta_i <= theta_i(0) = N_i
and Theta <= 1/N. For d <= kappa < 1/2, theta_i <= e^{-2 pi^2 sigma_i^2 d^2} (1 + r_i(kappa)),
r_i(kappa) = 2 e^{-2 pi^2 sigma_i^2 (1 - 2 kappa)}/(1 - e^{-2 pi^2 sigma_i^2})
(``discrete_gaussian_sum``), and for d > kappa theta_i is below its value at kappa. With kappa =
7/16, C = sum n_i log(1 + r_i(kappa)) and G(lam) = sum n_i sigma_i^2 min(d_i, kappa)^2:

    N S_K <= N Theta(lam_K) <= e^{C - 2 pi^2 G(lam_K)}   (N <= 1).                          (2)

T_K (K != 0): g(s) = phi(s) h(s + mu^2/2), phi the N(0, mu^2) density, vanishes for s <= s0 =
eps - mu^2/2, is smooth beyond and g'(s0+) = phi(s0). Integrating by parts twice, |T_K| <=
(phi(s0) + int_{s0}^oo |g''|)/omega_K^2, and g'' = phi'' h + 2 phi' h' + phi h'' with 0 <= h <= 1,
0 <= h' = e^{eps - l} <= 1, |h''| <= 1 beyond the kink, so |T_K| <= A mu^4/(4 pi^2 K^2) with

    A = phi(s0) + V + 2 I + Phi(-s0/mu),  V = TV(phi' on [s0, oo)), I = int_{s0}^oo |phi'|:
    V = s0 phi(s0)/mu^2 for s0 >= mu (phi' increases there), else V <= 4 phi(mu)/mu (its total
    variation on R); I = phi(s0) for s0 >= 0, else I <= 2 phi(0).                            (3)

So sum_K |S_K T_K| < oo (S_K <= 1/N), which justified the Poisson summation. The terms of (1):

* E1 = delta_G (1 - N) >= N delta_G S_0' (S_0 <= prod N_i^{n_i}: for K = 0, Q(k) = sum
  sigma_i^2 k_i^2).
* E2, 0 < |K| <= K0 (K0 the largest K with |lam_K u_i| <= 1/4 for every i): k = 0 is not in the
  sum (sum k_i Delta_i = K != 0), and sum_{k != 0} prod a_i <= sum_copies (theta - a(0)) prod_others
  theta <= (1/N) sum n_i r_i(1/4) (theta - a(0) <= a(0) r(|x|): m (m - 2|x|) >= (1 - 2|x|) + (m -
  1) for m >= 1). So E2 = R4 A mu^4/12, R4 = sum n_i r_i(1/4) (sum_{K != 0} 1/K^2 = pi^2/3).
* E3, the K0 < |K| that the enumeration below lists: (2) at each, G(lam_K) from Arb balls of
  dist(K u_i/mu^2, Z) (all factors), times A mu^4/(4 pi^2 K^2).
* E4, every other K0 < |K| <= Kmax: G >= B proved by the enumeration, so N S_K <= e^{C - 2 pi^2
  B}, times A mu^4/(4 pi^2) 2 z (z = 1/K0 >= sum_{K > K0} 1/K^2, or pi^2/6 when K0 = 0).
* E5, |K| > Kmax: N S_K <= 1, so E5 = A mu^4/(4 pi^2) 2/Kmax.

**The enumeration** (:func:`_enumerate`). Pick a set S of factors (merged by u_i; weights W_j =
sum n_i sigma_i^2 over the merged ones) with W_j kappa^2 >= B, so that a d_j > kappa already gives
G >= B. If G(lam_K) < B then every d_j <= kappa and, m_j the integers nearest K c_j (c_j =
u_j/mu^2), sum_S W_j (K c_j - m_j)^2 < B. So every such K with |K| <= Kmax gives an integer point
(K, m) with

    Q'(K, m) = beta K^2 + sum_S W_j (K c'_j - m_j)^2 < R = B + (sqrt(B) + e)^2,  beta = B/Kmax^2,

c'_j = c_j rounded to 2^-P and e = Kmax 2^-P-1 sqrt(sum W_j) (the triangle inequality in the
weighted norm). Q' is a positive definite form of s + 1 variables with exact rational Gram
matrix; a unimodular U from LLL (python-flint, of a rounded basis: any unimodular U serves) and an
exact LDL^T decomposition of U G U^T over the rationals give the Fincke--Pohst enumeration of
every point with Q' <= R, exactly (fmpq): at each level the integers y with D_j (y - c)^2 <= rest
form an interval containing floor(c) or floor(c) + 1 when not empty. The K it lists go to E3;
every other 0 < |K| <= Kmax has G >= B (E4). Heuristically the count is the ellipsoid's volume
V_{s+1} R^{(s+1)/2} Kmax/sqrt(B prod W_j): S is grown (largest W first) until it is small.

On the census row (sigma_i = 10 + i/10, i = 1 .. 1000: mu^2 = 0.904, K0 = 23) delta(2) to 1e-31
takes B = 4, Kmax = 2^106 and S the 23 largest sigma_i: the enumeration (dimension 24) visits 140
nodes and lists only |K| <= 58, the line m = 0 near lam = 0, where G(lam_K) = K^2/mu^2 > 580; the
bound is then 2.4e-32 of delta (E5, the truncation, dominates), in half a second.

**The power** (:meth:`OffGridSum.power`). Nothing above asks eps >= 0, and A of (3) is at most
A_max = 5 phi(0) + 4 phi(mu)/mu + 1 at every eps, so |delta(eps) - N delta_G(eps)| <= E =
(1 - N) + (E2 + ... + E5 at A_max) for every real eps (:meth:`OffGridSum.uniform_error`). Since
1 - f(alpha) = inf over real eps of delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6),
1 - f(alpha) lies within E of inf_eps N delta_G(eps) + e^eps alpha = N (1 - f_G(alpha/N)) = N
Phi(Phi^{-1}(alpha/N) + mu): roc, values and whole curves from G_mu's closed form, one bound E
for every level (the census row: E = 2e-32 at once, a curve of 101 levels in 0.01 s).

The result is declined (None) when the bound exceeds the requested share of delta, the
enumeration exceeds :data:`MAX_NODES` nodes or lists more than :data:`MAX_LISTED` K, or S cannot
be made large enough (few factors: their near returns are real and the lattice product or the
PLD engine answer). eps(delta) is bracketed by two certified values of delta around the root of
N delta_G(eps) = delta (delta is non-increasing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

from flint import arb, fmpq, fmpq_mat, fmpz_mat
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.context import arb_precision, mp
from ..numeric.value import CertifiedPair
from .discrete_gaussian_law import DiscreteGaussianLattice

__all__ = ["OffGridSum", "OffGridProduct", "off_grid_product", "MAX_NODES", "MAX_LISTED",
           "MAX_SUBSET"]

#: The route of the power from G_mu's curve (``OffGridProduct.power_ball``).
POWER_ROUTE = ("discrete Gaussians off a grid: the G_mu curve at alpha/N within a uniform "
               "aliasing bound (certified)")
#: The cap of d in G (module): theta_i is bounded at distances up to kappa.
KAPPA = Fraction(7, 16)
#: The zone |lam u_i| <= 1/4 of every factor where k = 0 is the nearest point (E2).
SMALL = Fraction(1, 4)
#: The most nodes of one Fincke--Pohst enumeration.
MAX_NODES = 20_000
#: The most K the enumeration may list (each bounded on its own, E3).
MAX_LISTED = 4096
#: A listing longer than this is retried with twice the factors in S (up to :data:`MAX_SUBSET`).
RETRY_LISTED = 256
#: The most merged factors in the enumeration's set S (its lattice has dimension |S| + 1).
MAX_SUBSET = 48
#: The target of the heuristic count of lattice points besides the listed line (log).
LOG_COUNT = math.log(1e-6)


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _arb(x: Fraction) -> arb:
    return arb(_fq(x))


def _log_ball_volume(dim: int) -> float:
    return dim / 2 * math.log(math.pi) - math.lgamma(dim / 2 + 1)


@dataclass(frozen=True)
class Enumerated:
    """The enumeration's outcome: every K with 0 < |K| <= 2^kbits and G(lam_K) < B is in
    ``listed`` (module); ``dim`` the lattice's dimension, ``nodes`` its search tree's size."""

    B: Fraction
    kbits: int
    listed: tuple[int, ...]
    dim: int
    nodes: int


class OffGridSum:
    """DiscreteGaussian(Delta_i, sigma_i)^{n_i} composed (module): ``factors`` [(Delta, sigma^2,
    n)] with sigma^2 exact rationals."""

    name = "discrete Gaussians off a grid: G_mu up to a proved aliasing bound (certified)"

    def __init__(self, factors: list[tuple[int, Fraction, int]]) -> None:
        merged: dict[tuple[int, Fraction], int] = {}
        for d, s2, n in factors:
            merged[(int(d), Fraction(s2))] = merged.get((int(d), Fraction(s2)), 0) + int(n)
        self.factors = [(d, s2, n) for (d, s2), n in sorted(merged.items())]
        mu2 = fmpq(0)
        for d, s2, n in self.factors:
            mu2 += fmpq(n * d * d) / _fq(s2)
        self.mu2 = Fraction(int(mu2.p), int(mu2.q))
        # K0: |K| u_i/mu^2 <= 1/4 for every i, i.e. |K| <= mu^2 sigma_i^2/(4 Delta_i)
        self.K0 = min(math.floor(self.mu2 * s2 / (4 * d)) for d, s2, _ in self.factors)
        self._consts: dict[int, tuple] = {}
        self._enum: list[Enumerated] = []
        self._uniform: list[arb] = []  # (the bounds E of ``uniform_error`` reached)

    # -- Arb constants at a precision ------------------------------------------------------
    def constants(self, prec: int) -> tuple[arb, arb, arb, arb]:
        """(mu, log N, C, R4) as balls at ``prec`` bits (module): log N = -sum n log N_i, C =
        sum n log(1 + r_i(kappa)), R4 = sum n r_i(1/4)."""
        if prec not in self._consts:
            with arb_precision(prec):
                pi2 = arb.pi() ** 2
                logn, C, R4 = arb(0), arb(0), arb(0)
                for _, s2, n in self.factors:
                    a = 2 * pi2 * _arb(s2)
                    q = (-a).exp()
                    # N_i = 1 + 2 sum_{m >= 1} q^{m^2}: the terms to 2^-prec, the rest below
                    # q^{(M+1)^2}/(1 - q) (q^{m^2} <= q^{(M+1)^2} q^{m - M - 1})
                    s, m = arb(0), 1
                    while True:
                        t = (-a * m * m).exp()
                        s += t
                        m += 1
                        nxt = (-a * m * m).exp()
                        if nxt < arb(2) ** -(prec + 8) or m > 10_000:
                            s += arb(0, (2 * nxt / (1 - q)).upper())
                            break
                    logn -= n * (2 * s).log1p()
                    den = 1 - q
                    C += n * (2 * (-a * (1 - 2 * _arb(KAPPA))).exp() / den).log1p()
                    R4 += n * 2 * (-a * (1 - 2 * _arb(SMALL))).exp() / den
                mu = _arb(self.mu2).sqrt()
            self._consts[prec] = (mu, logn, C, R4)
        return self._consts[prec]

    # -- the enumeration -------------------------------------------------------------------
    def certificate(self, B: Fraction, kbits: int) -> Enumerated | None:
        """An enumeration for (B, 2^kbits) or one that dominates it, else None (cached)."""
        for e in self._enum:
            if e.B >= B and e.kbits >= kbits:
                return e
        e = _enumerate(self, B, kbits)
        if e is not None:
            self._enum.append(e)
        return e

    # -- delta -----------------------------------------------------------------------------
    def delta(self, eps: arb, tol: float, prec: int) -> arb | None:
        """A ball of delta(eps) (eps an exact ball, >= 0) whose radius is at most about ``tol``
        times delta besides the ball's own rounding, or None (module)."""
        with arb_precision(prec):
            mu, logn, C, R4 = self.constants(prec)
            main, A = _gaussian_terms(eps, mu)
            N = logn.exp()
            value = N * main
            if not value > 0:
                return None
            mu4 = _arb(self.mu2) ** 2
            a = A * mu4 / (4 * arb.pi() ** 2)  # |T_K| <= a/K^2
            # log(8 a/target), target = tol delta (in logs: delta may lie below the floats)
            alias = self._aliasing(a, C, R4, (8 * a / (value * arb(tol))).log(), prec)
            if alias is None:
                return None
            err = main * (1 - N) + alias  # E1 + (E2 .. E5)
            if not err < value * tol:
                return None
            return value + arb(0, err.upper())

    def uniform_error(self, target: float, prec: int) -> arb | None:
        """A ball E >= |delta(eps) - N delta_G(eps)| at every real eps, of about ``target`` or
        less, or None (:meth:`delta`'s terms at the largest A of (3): nothing in the module's
        proof asks eps >= 0, and phi <= phi(0) = norm, V <= 4 phi(mu)/mu (s phi(s) is largest
        at s = mu), I <= 2 norm and Phi <= 1 give A <= 5 norm + 4 phi(mu)/mu + 1; E1 <= 1 - N)."""
        with arb_precision(prec):
            mu, logn, C, R4 = self.constants(prec)
            N = logn.exp()
            norm = 1 / ((2 * arb.pi()).sqrt() * mu)
            A = 5 * norm + 4 * norm * (-arb(1) / 2).exp() / mu + 1
            a = A * _arb(self.mu2) ** 2 / (4 * arb.pi() ** 2)
            alias = self._aliasing(a, C, R4, (8 * a / arb(target)).log(), prec)
            if alias is None:
                return None
            return arb((1 - N + alias).upper())  # E1 (delta_G <= 1) + (E2 .. E5)

    def _aliasing(self, a: arb, C: arb, R4: arb, log_ratio: arb, prec: int) -> arb | None:
        """E2 + E3 + E4 + E5 of (3) for |T_K| <= a/K^2 and ``log_ratio`` = log(8 a/target)
        (E5 <= target/4: Kmax = 2^kbits >= 8 a/target; E4 <= target/4: B), or None."""
        lr = float(log_ratio.upper())
        if not math.isfinite(lr):
            return None
        K0 = self.K0
        kbits = max(8, math.ceil(lr / math.log(2)))
        zeta = 1 / K0 if K0 >= 1 else math.pi**2 / 6
        need = (float(C.upper()) + lr + math.log(2 * zeta)) / (2 * math.pi**2)
        b = Fraction(max(1, math.ceil(8 * math.sqrt(max(need, 0.0)) + 1e-9)), 8)
        cert = self.certificate(b * b, kbits)
        if cert is None:
            return None
        pi2 = arb.pi() ** 2
        err = R4 * a * pi2 / 3  # E2: sum_{K != 0} 1/K^2 = pi^2/3
        err += self._listed(cert, C, a, prec)  # E3
        z = arb(1) / K0 if K0 >= 1 else pi2 / 6  # >= sum_{K > K0} 1/K^2
        err += 2 * a * (C - 2 * pi2 * _arb(cert.B)).exp() * z  # E4
        return err + 2 * a / arb(2) ** cert.kbits  # E5

    def power(self, alpha: arb, target: float, prec: int) -> tuple[arb, arb] | None:
        """(lo, hi) exact balls with lo <= 1 - f(alpha) <= hi, 0 < alpha < 1: 1 - f(alpha) =
        inf over real eps of delta(eps) + e^eps alpha (Dong, Roth & Su, Prop. 6: every test of
        size alpha has power at most that, the Neyman-Pearson test of threshold eps* attains
        it), and |delta - N delta_G| <= E at every eps (:meth:`uniform_error`), so 1 - f(alpha)
        lies within E of inf_eps N delta_G(eps) + e^eps alpha = N (1 - f_G(alpha/N)) = N
        Phi(Phi^{-1}(alpha/N) + mu), the G_mu curve's closed form at alpha/N (N <= 1). Also
        alpha <= 1 - f(alpha) <= 1. None where E is not reached."""
        E = next((e for e in self._uniform if e <= target), None)
        if E is None:
            E = self.uniform_error(target, prec)
            if E is None:
                return None
            self._uniform.append(E)
        with arb_precision(prec):
            mu, logn, _, _ = self.constants(prec)
            N = logn.exp()
            x = alpha / N
            if not x < 1:
                return alpha, arb(1)
            sq2 = arb(2).sqrt()
            z = -sq2 * (2 * x).erfcinv()  # Phi^{-1}(alpha/N)
            g = N * (-(z + mu) / sq2).erfc() / 2
            lo, hi = (g - E).lower(), (g + E).upper()
            lo = arb(lo) if lo > alpha.lower() else arb(alpha.lower())
            hi = arb(hi) if hi < 1 else arb(1)
            return lo, hi

    def _listed(self, cert: Enumerated, C: arb, a: arb, prec: int) -> arb:
        """E3: sum over the listed K (K0 < |K|) of e^{C - 2 pi^2 G(lam_K)} a/K^2 (module)."""
        ks = [k for k in cert.listed if abs(k) > self.K0]
        if not ks:
            return arb(0)
        hp = prec + 8 + max(abs(k) for k in ks).bit_length()
        total = arb(0)
        with arb_precision(hp):
            mu2 = _arb(self.mu2)
            us = [(_arb(Fraction(d) / s2) / mu2, n * _arb(s2)) for d, s2, n in self.factors]
            kap = _arb(KAPPA)
            two_pi2 = 2 * arb.pi() ** 2
            for k in ks:
                budget.check()
                G = arb(0)
                for c, w in us:
                    x = c * k
                    y = abs(x - _nearest(x))
                    lo1, lo2 = y.lower(), (1 - y).lower()  # dist(x, Z) >= min of the two
                    dl = lo1 if lo1 < lo2 else lo2
                    dl = arb(0) if dl < 0 else (kap if dl > kap else dl)
                    G += w * dl * dl
                total += (C - two_pi2 * G).exp() * a / (k * k)
        return total


def _nearest(x: arb) -> int:
    """An integer nearest the midpoint of ``x`` (exactly, at any size): floor(mid + 1/2) in
    integers from the midpoint's exact dyadic m 2^e. (Adding 1/2 in Arb rounds when the midpoint
    is a hair below a half-integer, 0.49999...98 at the working precision, and the floor of that
    ball is not one integer.) Any integer within 1/2 + rad of x serves :meth:`_listed`."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    if e >= 0:
        return m << e
    return (2 * m + (1 << -e)) >> (1 - e)  # floor((m 2^e + 1/2)), >> floors negatives too


def _gaussian_terms(eps: arb, mu: arb) -> tuple[arb, arb]:
    """(delta_G(eps), A) as balls (module, (3))."""
    mu2 = mu * mu
    sq2 = arb(2).sqrt()

    def Phi(x: arb) -> arb:
        return (-x / sq2).erfc() / 2

    main = Phi(-eps / mu + mu / 2) - eps.exp() * Phi(-eps / mu - mu / 2)
    s0 = eps - mu2 / 2
    norm = 1 / ((2 * arb.pi()).sqrt() * mu)

    def phi(s: arb) -> arb:
        return norm * (-s * s / (2 * mu2)).exp()

    p0 = phi(s0)
    if s0 >= mu:
        V = s0 * p0 / mu2
    else:
        V = 4 * phi(mu) / mu
    Ival = p0 if s0 >= 0 else 2 * norm
    A = p0 + V + 2 * Ival + Phi(-s0 / mu)
    return main, A


def _enumerate(s: OffGridSum, B: Fraction, kbits: int) -> Enumerated | None:
    """Every K with 0 < |K| <= 2^kbits and G(lam_K) < B (module: the Fincke--Pohst
    enumeration of Q' <= R over an LLL-reduced basis, in exact rationals), or None when no set S
    makes the count small or the search exceeds its caps."""
    b = Fraction(math.isqrt(B.numerator), math.isqrt(B.denominator))
    if b * b != B:
        raise ValueError(f"B must be the square of a rational, not {B}")
    groups: dict[Fraction, Fraction] = {}
    for d, s2, n in s.factors:
        u = Fraction(d) / s2
        groups[u] = groups.get(u, Fraction(0)) + n * s2
    cand = sorted(((W, u) for u, W in groups.items() if W * KAPPA * KAPPA >= B), reverse=True)
    chosen: list[tuple[Fraction, Fraction]] = []
    R_est = math.log(2 * float(B) + 1e-9)
    logc = math.inf
    for W, u in cand:
        chosen.append((W, u))
        dim = len(chosen) + 1
        logc = (_log_ball_volume(dim) + dim / 2 * R_est + kbits * math.log(2)
                - 0.5 * sum(math.log(float(w)) for w, _ in chosen) - 0.5 * math.log(float(B)))
        if logc < LOG_COUNT or len(chosen) >= MAX_SUBSET:
            break
    if not chosen or logc > math.log(MAX_LISTED):
        return None
    best = None
    size = len(chosen)
    top = min(MAX_SUBSET, len(cand))
    while True:  # (structured sets, e.g. budgets on a grid, list many K: grow S and retry)
        got = _enumerate_set(s, cand[:size], b, kbits)
        if got is not None and (best is None or len(got[0]) < len(best[0])):
            best = got
        if (best is not None and len(best[0]) <= RETRY_LISTED) or size >= top:
            break
        size = min(2 * size, top)
    if best is None:
        return None
    ks, dim, nodes = best
    return Enumerated(B, kbits, tuple(sorted(ks)), dim, nodes)


def _enumerate_set(s: OffGridSum, chosen: list[tuple[Fraction, Fraction]], b: Fraction,
                   kbits: int) -> tuple[set[int], int, int] | None:
    """The K of every point of Q' <= R for the set ``chosen`` [(W_j, u_j)] (module), with the
    lattice's dimension and the search's nodes; None past the caps."""
    B = b * b
    n = len(chosen) + 1
    sumW = sum(w for w, _ in chosen)
    P = kbits + 32 + max(0, math.ceil(math.log2(math.sqrt(float(sumW)) + 1)))
    mu2 = s.mu2
    cs = []  # c'_j = a_j/2^P, the nearest dyadic to u_j/mu^2
    for _, u in chosen:
        num, den = u.numerator * mu2.denominator << P, u.denominator * mu2.numerator
        cs.append(Fraction((2 * num + den) // (2 * den), 2**P))
    e = Fraction(1, 2**30)  # >= 2^kbits 2^-P-1 sqrt(sum W)
    R = B + (b + e) ** 2
    beta = B / 4**kbits
    # exact Gram matrix of Q'(K, m) = beta K^2 + sum W_j (K c'_j - m_j)^2
    G = [[fmpq(0)] * n for _ in range(n)]
    G[0][0] = _fq(beta + sum(W * c * c for (W, _), c in zip(chosen, cs, strict=True)))
    for j, ((W, _), c) in enumerate(zip(chosen, cs, strict=True), start=1):
        G[0][j] = G[j][0] = _fq(-W * c)
        G[j][j] = _fq(W)
    # a rounded basis (rows, coefficients (K, m)) for LLL: any unimodular transform serves
    T = kbits + 30
    M = [[0] * n for _ in range(n)]
    M[0][0] = b.numerator * 2**30 // b.denominator  # sqrt(beta) 2^T
    for j, ((W, _), c) in enumerate(zip(chosen, cs, strict=True), start=1):
        sw = math.isqrt(W.numerator * W.denominator * 4 ** (T + P)) // W.denominator
        M[0][j] = sw * int(c * 2**P) // 2 ** (2 * P)  # ~ sqrt(W) c' 2^T
        M[j][j] = -(sw >> P)  # ~ -sqrt(W) 2^T
    _, U = fmpz_mat(M).lll(transform=True)
    if abs(U.det()) != 1:
        return None  # (never: LLL's transform is unimodular; a guard)
    Ui = [[int(U[i, j]) for j in range(n)] for i in range(n)]
    Uq = fmpq_mat(U)
    P_ = Uq * fmpq_mat(G) * Uq.transpose()  # the Gram matrix of the reduced basis, exactly
    q = _fincke_pohst_form([[P_[i, j] for j in range(n)] for i in range(n)])
    if q is None:
        return None
    sols, nodes = _short(q, _fq(R))
    if sols is None:
        return None
    ks = set()
    for y in sols:
        K = sum(y[i] * Ui[i][0] for i in range(n))
        if K != 0:
            ks.add(K)
            if len(ks) > MAX_LISTED:
                return None
    return ks, n, nodes


def _fincke_pohst_form(G: list[list[fmpq]]) -> list[list[fmpq]] | None:
    """q with y^T G y = sum_i q_ii (y_i + sum_{j > i} q_ij y_j)^2 (Cohen, A Course in
    Computational Algebraic Number Theory, Alg. 2.7.5's decomposition), exactly; None when G is
    not positive definite."""
    n = len(G)
    q = [row[:] for row in G]
    for i in range(n):
        if not q[i][i] > 0:
            return None
        for j in range(i + 1, n):
            q[j][i] = q[i][j]
            q[i][j] = q[i][j] / q[i][i]
        for k in range(i + 1, n):
            for l in range(k, n):
                q[k][l] -= q[k][i] * q[i][l]
    return q


def _short(q: list[list[fmpq]], R: fmpq) -> tuple[list[list[int]] | None, int]:
    """Every integer y with sum_i q_ii (y_i + sum_{j > i} q_ij y_j)^2 <= R (exact), and the
    nodes visited; (None, nodes) past :data:`MAX_NODES`."""
    n = len(q)
    y = [0] * n
    out: list[list[int]] = []
    nodes = 0

    def level(i: int, rest: fmpq) -> bool:
        nonlocal nodes
        c = fmpq(0)
        for j in range(i + 1, n):
            if y[j]:
                c -= q[i][j] * y[j]
        f = int(c.floor())
        for start, step in ((f + 1, 1), (f, -1)):
            x = start
            while True:
                t = q[i][i] * (x - c) ** 2
                if t > rest:
                    break
                nodes += 1
                if nodes > MAX_NODES:
                    return False
                if nodes % 4096 == 0:
                    budget.check()
                y[i] = x
                if i == 0:
                    out.append(y[:])
                elif not level(i - 1, rest - t):
                    return False
                x += step
        y[i] = 0
        return True

    ok = level(n - 1, R)
    return (out if ok else None), nodes


class OffGridProduct:
    """The product route's object for discrete Gaussians off any grid (in place of
    ``numeric.lattice_product.LatticeProduct``): :meth:`fits` and :meth:`enclosure`."""

    name = OffGridSum.name
    power_route = POWER_ROUTE

    def __init__(self, s: OffGridSum) -> None:
        self.sum = s
        self._fits: bool | None = None

    def fits(self, c: float = 0.0) -> bool:
        """Does the bound reach 2^-100 of delta(1) (the enumeration it needs is cached)?"""
        if self._fits is None:
            prec = 100 + 64
            with arb_precision(prec):
                self._fits = self.sum.delta(arb(1), 2.0**-100, prec) is not None
        return self._fits

    def power_ball(self, alpha: arb, alpha_f: float, rel_tol: float,
                   of_f: bool = True) -> tuple[arb, arb] | None:
        """(lo, hi) exact balls around 1 - f(alpha), 0 < alpha < 1, their distance about
        ``rel_tol`` times alpha <= 1 - f(alpha) (``of_f``: times the smaller of alpha and f(alpha),
        f estimated by G_mu's curve in floats, for the target only) (:meth:`OffGridSum.power`),
        or None."""
        a = min(max(alpha_f, 1e-300), 1 - 1e-16)
        scale = a
        if of_f:
            mu = math.sqrt(float(self.sum.mu2))
            scale = min(a, NormalDist().cdf(-(NormalDist().inv_cdf(a) + mu)))
        target = max(rel_tol * scale / 4, 1e-300)
        prec = int(-math.log2(max(rel_tol, 1e-300))) + 64
        out = self.sum.power(alpha, target, prec)
        if out is not None:
            trace.note(POWER_ROUTE)
        return out

    def _delta(self, eps: arb, rel_tol: float, prec: int) -> arb | None:
        """delta(eps) at ``rel_tol``, or at the first of the looser tolerances up to 1e-6 that
        the bound reaches (a wider certified ball), or None."""
        tol = rel_tol
        while True:
            b = self.sum.delta(eps, tol, prec)
            if b is not None or tol >= 1e-6:
                return b
            tol = min(tol * 1e4, 1e-6)

    def enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair | None:
        """delta(arg) or eps(arg) (``arg`` an mpf, taken exactly) as a CertifiedPair of mpfs
        rounded outward, of relative width about ``rel_tol`` where the bound reaches it, or
        None."""
        if question == "delta" and arg == mp.inf:
            return CertifiedPair(mp.zero, mp.zero)
        out = self._enclosure(question, arg, rel_tol)
        if out is not None:
            trace.note(self.name)
        return out

    def _enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair | None:
        prec = max(int(-math.log2(rel_tol)), mp.prec) + 64
        with arb_precision(prec):
            if question == "delta":
                b = self._delta(arb_exact(arg), rel_tol, prec)
                if b is None:
                    return None
                lo = max(arb_endpoint(b.lower(), round_floor), mp.zero)
                return CertifiedPair(lo, min(arb_endpoint(b.upper(), round_ceiling), mp.one))
            if arg >= 1:
                return CertifiedPair(mp.zero, mp.zero)  # delta(0) <= 1
            if arg <= 0:  # the loss is unbounded (Gaussian tails): delta(eps) > 0 at every eps
                return CertifiedPair(mp.inf, mp.inf)
            br = self._epsilon(arb_exact(arg), rel_tol, prec)
            if br is None:
                return None
            lo, hi = br
            return CertifiedPair(arb_endpoint(lo.lower(), round_floor),
                                 arb_endpoint(hi.upper(), round_ceiling))

    def _epsilon(self, d: arb, rel_tol: float, prec: int) -> tuple[arb, arb] | None:
        """Exact points lo <= eps(d) <= hi (eps(d) = inf{eps >= 0: delta(eps) <= d}): delta(hi)
        < d and delta(lo) > d proved (delta non-increasing and continuous), around the root of
        N delta_G = d found by Newton's method (an estimate, then checked), or None."""
        s = self.sum
        mu, logn, _, _ = s.constants(prec)
        N = logn.exp()
        at0 = self._delta(arb(0), rel_tol, prec)
        if at0 is None:
            return None
        if at0 < d:  # delta(0) < d: eps(d) = 0
            return arb(0), arb(0)
        sq2 = arb(2).sqrt()

        def surrogate(e: arb) -> tuple[arb, arb]:  # N delta_G(e) - d and its derivative
            main, _ = _gaussian_terms(e, mu)
            return N * main - d, -N * e.exp() * (-(-e / mu - mu / 2) / sq2).erfc() / 2

        lo, hi = arb(0), arb(1)
        while surrogate(hi)[0] > 0:  # a bracket of the root (N delta_G decreases to 0)
            lo, hi = hi, 2 * hi
            if hi > 2**40:
                return None
        for _ in range(60):  # bisection to a few digits, then Newton's method
            mid = ((lo + hi) / 2).mid()
            if surrogate(arb(mid))[0] > 0:
                lo = arb(mid)
            else:
                hi = arb(mid)
        x = ((lo + hi) / 2).mid()
        for _ in range(2 * prec.bit_length()):
            budget.check()
            v, dv = surrogate(arb(x))
            step = (v / dv).mid()
            x = (arb(x) - step).mid()
            if abs(float(step)) < 2.0 ** -(prec - 8) * max(abs(float(x)), 1.0):
                break
        e = arb(x)
        main, _ = _gaussian_terms(e, mu)
        ratio = float(abs(surrogate(e)[1] / (N * main)).mid())  # |delta'/delta| at the root
        w = rel_tol * max(float(x), 1e-300) / 4
        for _ in range(6):
            tol = min(ratio * w / 4, 1e-3)
            a, b = arb(x - w).mid(), arb(x + w).mid()
            if not a > 0:
                a = arb(0)
            da = self._delta(arb(a), tol, prec)
            db = self._delta(arb(b), tol, prec)
            if da is None or db is None:
                return None
            if da > d and db < d:
                return arb(a), arb(b)
            w *= 16
        return None


def off_grid_product(factors) -> OffGridProduct | None:
    """The product of lattice views [(DiscreteGaussianLattice, multiplicity)] whose steps share
    no small denominator (``numeric.lattice_product.OFF_GRID``) as an :class:`OffGridProduct`
    when its bound reaches 2^-100 (:meth:`OffGridProduct.fits`), or None when a factor is not a
    discrete Gaussian or the bound does not reach it."""
    if not factors or any(not isinstance(f, DiscreteGaussianLattice) for f, _ in factors):
        return None
    p = OffGridProduct(OffGridSum([(f.d, f.sigma2, n) for f, n in factors]))
    return p if p.fits() else None
