"""The Arb law of the discrete Gaussian's privacy loss, and its Renyi divergences.

Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy" (arXiv:2004.00010;
CKS), Def. 1. For P = N_Z(0, sigma^2), Q = N_Z(Delta, sigma^2), Delta a positive integer, the
privacy loss L(x) = log Q(x)/P(x) = (2 x Delta - Delta^2)/(2 sigma^2) (module
``discrete_gaussian``). Under Q, x = y + Delta with y ~ P, so L = (2 y Delta + Delta^2)/(2 sigma^2)
and, completing the square -y^2/(2 sigma^2) + z y Delta/sigma^2 = -(y - z Delta)^2/(2 sigma^2) +
z^2 Delta^2/(2 sigma^2),

    M(z) = E_Q[e^{z L}] = e^{z (z + 1) Delta^2/(2 sigma^2)} theta(z Delta)/theta(0),
    theta(w) = sum_{y in Z} e^{-(y - w)^2/(2 sigma^2)}                                   (1)

for every complex z: the moment generating function of the continuous Gaussian G_{Delta/sigma}
times a ratio of theta sums. By Poisson summation (the Fourier transform of e^{-y^2/(2 sigma^2)}
is sigma sqrt(2 pi) e^{-2 pi^2 sigma^2 k^2}),

    theta(w) = sigma sqrt(2 pi) sum_{k in Z} q^{k^2} e^{2 pi i k w},  q = e^{-2 pi^2 sigma^2},   (2)

so for real z the ratio is 1 + O(q): the discrete Gaussian's mgf on the real axis is the
Gaussian's up to exponentially small terms. The loss lives on the lattice Delta^2/(2 sigma^2) +
(Delta/sigma^2) Z, so |M(c + it)| is periodic in t with period 2 pi sigma^2/Delta and equals
M(c) at every multiple: the characteristic function of a lattice law does not decay, and the
best bound of sup_{t' >= t} |M(c + it')| is M(c) itself (:meth:`DiscreteGaussianLaw.decay_bound`).
A product with a factor whose mgf decays (G_mu, the subsampled Gaussian) is inverted by
``numeric.cf``; a product of discrete Gaussians alone is declined there (its truncation bound
never meets a tolerance: see ``benchmarks/RESULTS_census.md``). Where the sigma_i^2 are
rationals whose steps Delta_i/sigma_i^2 and offsets Delta_i^2/(2 sigma_i^2) share a small
denominator (zCDP budgets on a grid), the product is composed exactly on its lattice
(:class:`DiscreteGaussianLattice`, ``numeric.lattice_product``); otherwise the PLD engine
answers.

Both (1) and (2) are summed in Arb with a rigorous bound on the omitted terms (the one with
fewer terms is taken; the tests check each against the other and against brute-force sums):

* (1) directly: y within K of Re w; beyond, the terms |e^{-(y - w)^2 h}| = e^{-h((y - Re w)^2 -
  (Im w)^2)} (h = 1/(2 sigma^2)) decrease with ratios at most e^{-h(2K + 2)}, so each side's
  rest is at most its first term over 1 - e^{-h(2K + 2)};
* (2) for |k| <= K: |q^{k^2} e^{2 pi i k w}| = e^{-a k^2 - 2 pi k Im w} (a = 2 pi^2 sigma^2) <=
  e^{-a k^2 + b |k|}, b = 2 pi |Im w|, with ratios at most e^{-a(2K + 3) + b} beyond K >= b/(2a).

**Renyi divergences** (:func:`renyi_ball`): sum_x P(x)^a Q(x)^{1-a} = e^{-a(1 - a) Delta^2
h} theta((1 - a) Delta)/theta(0) by the same completion of the square, so

    D_a(P || Q) = a Delta^2/(2 sigma^2) + log(theta((1 - a) Delta)/theta(0))/(a - 1)   (a != 1),

an exact series (CKS Prop. 5 bounds it by a Delta^2/(2 sigma^2), with equality when a Delta is
an integer); D_1 = KL = Delta^2/(2 sigma^2).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import sympy as sp
from flint import acb, arb, ctx

from ..core.errors import NumericalError
from ..numeric.cf_laws import to_arb
from ..numeric.context import arb_precision

__all__ = ["theta_ratio", "DiscreteGaussianLaw", "DiscreteGaussianLattice", "dg_law",
           "renyi_ball", "em_profile_sum", "em_tail_sum", "LatticeThetaRatio", "renyi_expr"]

#: The most terms one theta sum may take.
MAX_TERMS = 4_000_000


def _direct_terms(sigma: float, prec: int) -> int:
    return int(sigma * math.sqrt(2 * math.log(2) * (prec + 20))) + 3


def _dual_terms(sigma: float, im: float, prec: int) -> int:
    a = 2 * math.pi**2 * sigma * sigma
    return int(math.pi * abs(im) / a + math.sqrt(math.log(2) * (prec + 20) / a)) + 2


def _theta_direct(h: arb, w: acb, K: int) -> acb:
    """theta(w) = sum_y e^{-h (y - w)^2} by (1) with y in [y0 - K, y0 + K], y0 = round(Re w),
    plus the bound of the rest as a complex ball."""
    y0 = int(w.real.mid().floor().unique_fmpz()) if w.real.is_finite() else 0
    s = acb(0)
    for y in range(y0 - K, y0 + K + 1):
        d = acb(y) - w
        s += (-h * d * d).exp()
    # each side: the first omitted point is at distance >= K + 1/2 from Re w (|Re w - y0| <= 1)
    dist = arb(K) - (w.real - y0).abs_upper()
    im2 = w.imag * w.imag
    first = (-h * (dist * dist - im2)).exp()
    ratio = (-h * (2 * dist + 1)).exp()
    if not ratio < 1:
        raise NumericalError("theta sum: the tail ratio is not below 1")
    rest = 2 * first / (1 - ratio)
    r = rest.upper()
    return s + acb(arb(0, r), arb(0, r))


def _theta_dual(sigma: arb, w: acb, K: int) -> acb:
    """sum_k q^{k^2} e^{2 pi i k w} by (2) for |k| <= K, plus the rest (without the factor
    sigma sqrt(2 pi), which cancels in every ratio)."""
    a = 2 * arb.pi() ** 2 * sigma * sigma
    b = 2 * arb.pi() * w.imag.abs_upper()
    if not a * K >= b / 2:
        raise NumericalError("theta sum: too few dual terms")
    e = (2 * arb.pi() * acb(0, 1) * w).exp()
    einv = 1 / e
    q = (-a).exp()
    s = acb(1)
    up, dn = acb(1), acb(1)
    qk = arb(1)  # q^{k^2}, by q^{(k+1)^2} = q^{k^2} q^{2k+1}
    for k in range(1, K + 1):
        up *= e
        dn *= einv
        qk *= q ** (2 * k - 1)
        s += qk * (up + dn)
    k1 = K + 1
    first = (-a * k1 * k1 + b * k1).exp()
    ratio = (-a * (2 * k1 + 1) + b).exp()
    if not ratio < 1:
        raise NumericalError("theta sum: the dual tail ratio is not below 1")
    r = (2 * first / (1 - ratio)).upper()
    return s + acb(arb(0, r), arb(0, r))


def theta_ratio(sigma: Fraction | arb, w: acb, form: str | None = None) -> acb:
    """theta(w)/theta(0) (module, (1)) as a complex Arb ball at the working precision (sigma
    exact, or a ball), by the direct sum (``form="direct"``), the Poisson dual sum (``"dual"``)
    or the one with fewer terms (default)."""
    prec = ctx.prec
    sg = sigma if isinstance(sigma, arb) else to_arb(sigma)
    s = float(sg.mid())
    im = float(w.imag.mid()) if w.imag.is_finite() else math.inf
    nd, nq = _direct_terms(s, prec), _dual_terms(s, im, prec)
    if form is None:
        form = "direct" if 2 * nd + 1 <= nq else "dual"
    if form == "direct":
        if nd > MAX_TERMS:
            raise NumericalError(f"theta sum: sigma={sigma} needs {nd} terms")
        h = 1 / (2 * sg * sg)
        return _theta_direct(h, w, nd) / _theta_direct(h, acb(0), nd)
    if nq > MAX_TERMS:
        raise NumericalError(f"theta sum: the dual series at Im w = {im:.3g} needs {nq} terms")
    return _theta_dual(sg, w, nq) / _theta_dual(sg, acb(0), _dual_terms(s, 0.0, prec))


class DiscreteGaussianLaw:
    """The law of the discrete Gaussian's privacy loss under Q for the certified Laplace
    inversion (``numeric.cf_laws.LossLaw``): M(z) by (1) of the module, the lattice bound
    |M(c + it)| <= M(c) for the truncation (periodic in t: no decay), float cumulants from the
    tilted lattice sums for planning."""

    #: Products of discrete Gaussians have no closed form.
    closed_under_tensor = False

    def __init__(self, d: int, sigma: Fraction) -> None:
        self.d, self._sigma = int(d), Fraction(sigma)
        self.sigma = float(self._sigma)

    def __repr__(self) -> str:
        return f"DiscreteGaussianLaw({self.d}, {self._sigma})"

    def mgf(self, z: acb) -> acb:
        """M(z) = e^{z(z+1) Delta^2/(2 sigma^2)} theta(z Delta)/theta(0) (module, (1))."""
        s = to_arb(self._sigma)
        g = (z * (z + 1) * (self.d * self.d) / (2 * s * s)).exp()
        return g * theta_ratio(self._sigma, z * self.d)

    def _float_log_theta(self, c: float) -> tuple[float, float, float]:
        """log theta(c Delta)/theta(0) and its first two derivatives in c (floats): 0 beyond
        sigma = 3, where (2) puts them below e^{-170}; else from the tilted lattice weights."""
        if self.sigma >= 3:
            return 0.0, 0.0, 0.0
        import numpy as np

        s2 = self.sigma**2
        w = c * self.d
        K = int(self.sigma * 40) + 4
        y = np.arange(math.floor(w) - K, math.floor(w) + K + 1, dtype=float)
        y0 = np.arange(-K, K + 1, dtype=float)
        e = -((y - w) ** 2) / (2 * s2)
        m = e.max()
        p = np.exp(e - m)
        lt = m + math.log(p.sum()) - math.log(np.exp(-(y0**2) / (2 * s2)).sum())
        p /= p.sum()
        u = (y - w) / s2
        mean = float((p * u).sum())
        var = float((p * u * u).sum()) - mean**2
        return lt, self.d * mean, self.d**2 * (var - 1 / s2)

    def cumulants(self, c: float) -> tuple[float, float, float]:
        m2 = self.d**2 / self.sigma**2
        lt, l1, l2 = self._float_log_theta(c)
        return m2 * c * (c + 1) / 2 + lt, m2 * (c + 0.5) + l1, m2 + l2

    def log_decay_estimate(self, c: float, t: float) -> float:
        return self.cumulants(c)[0]

    def decay_bound(self, c: arb, t: arb) -> arb:
        """M(c): |M(c + it')| <= E|e^{(c + it')L}| = M(c), attained at every multiple of the
        period 2 pi sigma^2/Delta, so no smaller bound holds for all t' >= t."""
        return self.mgf(acb(c)).real

    def power_decay(self, c: arb) -> None:
        return None

    def loss_sup(self) -> None:
        return None

    def inverse(self) -> DiscreteGaussianLaw:
        """f is symmetric (x -> Delta - x swaps P and Q): its own inverse."""
        return self

    def atom_list(self) -> tuple[list[tuple[arb, arb]], arb]:
        """(atoms, missing): the atoms (loss u y + v, Q-mass e^{-y^2/(2 sigma^2)}/theta(0)) for
        |y| <= Y as Arb balls at the current precision, Y = ceil(sigma sqrt(2 (prec + 20) log
        2)), and an Arb upper bound of the Q-mass of the others: for y >= Y + 1, y^2 >= (Y +
        1)^2 + 2 (Y + 1)(y - Y - 1), so both tails add at most 2 e^{-(Y+1)^2/(2 sigma^2)}/(1 -
        e^{-(Y+1)/sigma^2}), and theta(0) >= 1 (its y = 0 term). The atoms of the laws next to
        one L_mu are summed against its profile (``numeric.cf_atom_sum``)."""
        prec = ctx.prec
        lattice = DiscreteGaussianLattice(self.d, self._sigma * self._sigma)
        Y = math.ceil(self.sigma * math.sqrt(2 * (prec + 20) * math.log(2))) + 1
        s2 = to_arb(lattice.sigma2)
        u, v = to_arb(lattice.step), to_arb(lattice.offset)
        theta = lattice._theta0()
        atoms = [(u * y + v, (-(arb(y) ** 2) / (2 * s2)).exp() / theta) for y in range(-Y, Y + 1)]
        y1 = arb(Y + 1)
        missing = 2 * (-(y1 * y1) / (2 * s2)).exp() / (1 - (-y1 / s2).exp())
        return atoms, missing


@lru_cache(maxsize=4096)
def dg_law(d: int, sigma: Fraction) -> DiscreteGaussianLaw:
    """The (shared) law of DiscreteGaussian(d, sigma) for an exact rational sigma."""
    return DiscreteGaussianLaw(d, sigma)


class DiscreteGaussianLattice:
    """The discrete Gaussian's loss as a lattice factor (``numeric.lattice_product``): under Q,
    L = u y + v with y ~ N_Z(0, sigma^2), u = Delta/sigma^2, v = Delta^2/(2 sigma^2) (module
    docstring), for sigma^2 an exact rational, so that products whose u and v share a
    denominator are lattice laws. The tilted masses q(y) e^{c L(y)} = e^{-h (y - c Delta)^2 +
    c (c + 1) v}/theta(0) (h = 1/(2 sigma^2)) are lower-bounded in integers by the recurrences
    of the ratios of consecutive terms, e^{-h (2 y + 1) + c u} upwards and e^{h (2 y - 1) - c u}
    downwards from the mode, each ratio times e^{-2 h} at the next step, every product rounded
    down (non-negative lower bounds times non-negative lower bounds); the starting term, the
    ratios and theta(0) (by its Poisson dual series (2)) are Arb balls."""

    def __init__(self, d: int, sigma2: Fraction) -> None:
        self.d, self.sigma2 = int(d), Fraction(sigma2)
        self.step = Fraction(self.d) / self.sigma2
        self.offset = Fraction(self.d * self.d) / (2 * self.sigma2)
        self.sigma = math.sqrt(float(self.sigma2))

    def __repr__(self) -> str:
        return f"DiscreteGaussianLattice({self.d}, sigma^2={self.sigma2})"

    def plan(self, c: float) -> tuple[float, float, float]:
        """(log M(c), tilted mean of y, its sd): the Gaussian values c (c + 1) v, c Delta and
        sigma (the theta corrections are below e^{-170} from sigma = 3 on; planning only)."""
        return c * (c + 1) * float(self.offset), c * self.d, max(self.sigma, 0.5)

    def _sigma_ball(self) -> arb:
        return to_arb(self.sigma2).sqrt()

    def _theta0(self) -> arb:
        sg = self._sigma_ball()
        K = _dual_terms(self.sigma, 0.0, ctx.prec)
        return sg * (2 * arb.pi()).sqrt() * _theta_dual(sg, acb(0), K).real

    def mgf_ball(self, c: arb) -> arb:
        """M(c) = e^{c (c + 1) v} theta(c Delta)/theta(0) (module, (1))."""
        v = to_arb(self.offset)
        return (c * (c + 1) * v).exp() * theta_ratio(self._sigma_ball(), acb(c * self.d)).real

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        """Integers I(y) <= 2^prec q(y) e^{c L(y)}/scale, y = ylo .. yhi (class docstring)."""
        from flint import fmpz

        with arb_precision(prec + 64):
            cc, sc = to_arb(Fraction(c)), to_arb(scale)
            h = to_arb(1 / (2 * self.sigma2))
            u, v = to_arb(self.step), to_arb(self.offset)
            one = arb(2) ** prec

            def low(x: arb) -> int:
                lo = (x * one).lower()
                return 0 if not lo > 0 else int(lo.floor().unique_fmpz())

            y0 = min(max(round(c * self.d), ylo), yhi)
            start = ((-h * y0 * y0 + cc * (u * y0 + v)).exp() / (self._theta0() * sc))
            g = fmpz(low((-2 * h).exp()))
            up = fmpz(low((-h * (2 * y0 + 1) + cc * u).exp()))
            dn = fmpz(low((h * (2 * y0 - 1) - cc * u).exp()))
            w0 = fmpz(low(start))
        out = [0] * (yhi - ylo + 1)
        out[y0 - ylo] = w0
        w = w0
        for y in range(y0 + 1, yhi + 1):  # I(y) = I(y - 1) r(y - 1), r(y) = r(y - 1) e^{-2h}
            w = (w * up) >> prec
            up = (up * g) >> prec
            out[y - ylo] = w
        w = w0
        for y in range(y0 - 1, ylo - 1, -1):
            w = (w * dn) >> prec
            dn = (dn * g) >> prec
            out[y - ylo] = w
        return out


def renyi_ball(d: int, sigma: Fraction, a: Fraction) -> arb:
    """D_a(P || Q) of the discrete Gaussian pair as an Arb ball at the working precision (module:
    a Delta^2/(2 sigma^2) + log(theta((1 - a) Delta)/theta(0))/(a - 1); KL at a = 1), for
    rational a > 0."""
    s = to_arb(sigma)
    rho = arb(d * d) / (2 * s * s)
    if a == 1:
        return rho
    A = to_arb(a)
    r = theta_ratio(sigma, acb((1 - A) * d)).real
    return A * rho + r.log() / (A - 1)


# -- Euler-Maclaurin: the profile's lattice sum at large sigma -----------------------------------
#: Most Euler-Maclaurin correction pairs tried before the direct sum is used instead.
EM_MAX_P = 40


def _gauss_taylor(h: arb, x0: arb, n: int) -> list:
    """The Taylor coefficients c_j = g^{(j)}(x0)/j!, j < n, of g(x) = e^{-h x^2}: from
    g' = -2 h x g, (j + 1) c_{j+1} = -2 h (x0 c_j + c_{j-1})."""
    c = [(-h * x0 * x0).exp()]
    c.append(-2 * h * x0 * c[0])
    for j in range(1, n - 1):
        c.append(-2 * h * (x0 * c[j] + c[j - 1]) / (j + 1))
    return c[:n]


def _abs_derivative_tail(h: arb, y0: arb, n: int) -> arb:
    """An upper bound of int_m^oo |d^n/dx^n e^{-h (x - s)^2}| dx with y0 = sqrt(2h)(m - s): in
    y = sqrt(2h)(x - s) the derivative is (2h)^{n/2} He_n(y) e^{-y^2/2}, and

    * for y0 >= n + 1: |He_n(y)| <= y^n e^{n^2/(2 y^2)} <= e^{1/2} y^n (from its explicit sum,
      n!/(n - 2k)! <= n^{2k}), and int_{y0}^oo y^n e^{-y^2/2} <= y0^{n-1} e^{-y0^2/2}/(1 - (n -
      1)/y0^2) (y^n e^{-y^2/2} = -F'(y)/(1 - (n - 1)/y^2), F = y^{n-1} e^{-y^2/2});
    * else by Cauchy-Schwarz, int_{y0}^oo |He_n| e^{-y^2/2} <= (n! sqrt(2 pi))^{1/2}
      (int_{y0}^oo e^{-y^2/2})^{1/2} (int_R He_n^2 e^{-y^2/2} = n! sqrt(2 pi))."""
    scale = (2 * h) ** (arb(n - 1) / 2)
    if y0 >= n + 1:
        far = arb(1).exp().sqrt() * y0 ** (n - 1) * (-y0 * y0 / 2).exp() / (1 - (n - 1) / (y0 * y0))
        return scale * far
    fact = arb.fac_ui(n)
    tail = (arb.pi() / 2).sqrt() * (y0 / arb(2).sqrt()).erfc()
    return scale * (fact * (2 * arb.pi()).sqrt() * tail).sqrt()


def em_profile_sum(d: int, h: arb, eps: arb, m: int, prec: int) -> arb | None:
    """S = sum_{x >= m} [e^{-h (x - Delta)^2} - e^eps e^{-h x^2}] (theta(0) delta(eps) when m is
    the first lattice point with L(x) > eps) by the Euler-Maclaurin formula

        sum_{x >= m} g(x) = int_m^oo g + g(m)/2 - sum_{k=1}^p B_{2k}/(2k)! g^{(2k-1)}(m) + R_p,
        |R_p| <= 2 zeta(2p)/(2 pi)^{2p} int_m^oo |g^{(2p)}|

    (the periodic Bernoulli function is at most |B_{2p}| and |B_{2p}|/(2p)! = 2 zeta(2p)/
    (2 pi)^{2p}), the integrals by erfc and the derivatives by Arb power series; the smallest p
    whose bound is below 2^-(prec + 4) of |S| is taken, None when no p <= EM_MAX_P is (small
    sigma: the direct sum is short there)."""
    ee = eps.exp()
    sq = (arb.pi() / h).sqrt() / 2
    rh = h.sqrt()
    main = sq * (rh * (m - d)).erfc() - ee * sq * (rh * m).erfc()
    n = 2 * EM_MAX_P + 1
    cq = _gauss_taylor(h, arb(m - d), n)
    cp = _gauss_taylor(h, arb(m), n)
    main += (cq[0] - ee * cp[0]) / 2
    r2h = (2 * h).sqrt()
    yq, yp = r2h * (m - d), r2h * m
    scale = main.abs_lower()
    target = arb(2) ** -(prec + 4)
    for p in range(1, EM_MAX_P + 1):
        b = fmpq_bernoulli(2 * p)
        main -= b / (2 * p) * (cq[2 * p - 1] - ee * cp[2 * p - 1])  # B_2k/(2k)! (2k-1)! c
        zeta = arb(2 * p).zeta()
        rest = 2 * zeta / (2 * arb.pi()) ** (2 * p) * (
            _abs_derivative_tail(h, yq, 2 * p) + ee * _abs_derivative_tail(h, yp, 2 * p))
        if rest < target * scale:
            return main + arb(0, rest.upper())
    return None


def em_tail_sum(h: arb, m: int, prec: int) -> arb | None:
    """T(m) = sum_{x >= m} e^{-h x^2} (any integer m) by the Euler-Maclaurin formula of
    :func:`em_profile_sum` with g(x) = e^{-h x^2}: int_m^oo g = (sqrt(pi/h)/2) erfc(sqrt(h) m),
    the corrections -B_{2k}/(2k) c_{2k-1} (c_j = g^{(j)}(m)/j!) and the remainder
    2 zeta(2p)/(2 pi)^{2p} int_m^oo |g^{(2p)}| (:func:`_abs_derivative_tail`, valid for y0 =
    sqrt(2h) m of either sign); the smallest p whose bound is below 2^-(prec + 4) of the sum,
    None when no p <= EM_MAX_P is (small sigma: the direct sum is short there). At sigma >= 8
    the corrections fall like (p/(e 4 pi^2 sigma^2))^p: a few terms at any sigma."""
    main = (arb.pi() / h).sqrt() / 2 * (h.sqrt() * m).erfc()
    c = _gauss_taylor(h, arb(m), 2 * EM_MAX_P + 1)
    main += c[0] / 2
    y0 = (2 * h).sqrt() * m
    target = arb(2) ** -(prec + 4) * main.abs_lower()
    for p in range(1, EM_MAX_P + 1):
        main -= fmpq_bernoulli(2 * p) / (2 * p) * c[2 * p - 1]
        rest = (2 * arb(2 * p).zeta() / (2 * arb.pi()) ** (2 * p)
                * _abs_derivative_tail(h, y0, 2 * p))
        if rest < target:
            return main + arb(0, rest.upper())
    return None


def fmpq_bernoulli(n: int) -> arb:
    from flint import fmpq

    return arb(fmpq.bernoulli(n))


# -- the theta ratio as a SymPy function (the Renyi divergences' closed form) --------------------
class LatticeThetaRatio(sp.Function):
    """theta(c)/theta(0), theta(c) = sum_{y in Z} e^{-(y - c)^2/(2 sigma^2)} (module, (1)): an
    exact series, 1 at integer c (theta has period 1), even in c. Encloses itself in Arb
    (``_arb_ball``, the shorter of its two sums with its rigorous tail) for numeric sigma > 0
    and c."""

    @classmethod
    def eval(cls, sigma, c):
        if c.is_integer:
            return sp.S.One
        if c.could_extract_minus_sign():
            return cls(sigma, -c)
        return None

    def _balls(self) -> tuple[arb, arb] | None:
        """(sigma, c) as Arb balls at the working precision (closed forms enclosed by
        ``numeric.arb_expr``), or None for symbols or sigma not certainly positive."""
        from ..numeric.arb_expr import arb_ball

        if any(x.free_symbols for x in self.args):
            return None
        try:
            sg, c = (arb_ball(x) for x in self.args)
        except ValueError:
            return None
        return (sg, c) if sg > 0 else None

    def _arb_ball(self) -> arb | None:
        b = self._balls()
        return None if b is None else theta_ratio(b[0], acb(b[1])).real

    def _eval_evalf(self, prec):
        from ..numeric.arb_expr import ball_interval
        from ..numeric.context import arb_precision, mp

        with arb_precision(prec + 30), mp.workprec(prec + 10):
            ball = self._arb_ball()
            if ball is None:
                return None
            lo, hi = ball_interval(ball, prec + 10)
            return sp.Float((lo + hi) / 2, precision=prec)

    def _latex(self, printer):
        s, c = (printer._print(a) for a in self.args)
        return r"\frac{\vartheta_{%s}(%s)}{\vartheta_{%s}(0)}" % (s, c, s)


def renyi_expr(d: sp.Expr, sigma: sp.Expr, a: sp.Expr) -> sp.Expr:
    """D_a(P || Q) of the discrete Gaussian pair (module): a Delta^2/(2 sigma^2) +
    log(theta((1 - a) Delta)/theta(0))/(a - 1) for a != 1, +oo for a = oo (L is unbounded)."""
    if a is sp.oo:
        return sp.oo
    rho = d**2 / (2 * sigma**2)
    return a * rho + sp.log(LatticeThetaRatio(sigma, (1 - a) * d)) / (a - 1)
