"""Independent references for the sixth audit of the routes (nothing here imports
``tradeoff_algebra`` except through the shared one-step quadratures of
``references.sampled_laplace`` / ``references.sampled_gaussian``, which only read its mpmath
context).

* **Shuffle, exact** (Feldman, McMillan & Talwar; Wang et al., Sec. 4.1): for e^eps0 = E
  rational every mass is rational. The pair is P = (1 - w) P0 + w Q0, Q = (1 - w) Q0 + w P0,
  P0 the law of (A + 1, C - A), Q0 of (A, C - A + 1), A ~ Binom(C, 1/2),
  C ~ Binom(n - 1, 2/(E + 1)), w = 1/(E + 1); atoms (x, y) grouped by y/x (the likelihood ratio
  Q/P = (E y + x)/(E x + y) increases with y/x), Neyman--Pearson by walking the groups in
  decreasing ratio (:func:`shuffle_exact`, :func:`power_sorted`). The float route
  ``audit5_refs.shuffle_groups`` is the same pair at 40 digits for irrational E.
* **dp_accounting PLD pairs** (float64, not proved: callers widen) of the symmetric hull of T
  Poisson-subsampled Laplace steps (:func:`sampled_laplace_plds`) and of DP-SGD
  (``dpsgd_power.hull_plds``): delta(eps) as the (optimistic, pessimistic) pair, and the power
  bracket of ``dpsgd_power.pld_power_bracket``.
* **Exact convolutions** (mpmath quadrature, the caller's precision): the hull's delta of one
  and two subsampled-Laplace steps, one to three subsampled-Gaussian steps, the larger of the
  two directions (add, remove).
* **Brute-force Neyman--Pearson** (:func:`np_delta`): sup over a grid of alpha of
  1 - f(alpha) - e^eps alpha (a value attained: a lower bound of delta(eps), Dong, Roth & Su,
  Prop. 6) refined by golden section (psi concave), with f evaluated from its definition:
  G_mu, L_mu, f_{eps,delta}, Mix, the group's k-fold composition (Thm. 3), the inverse by
  bisection (Eq. (3)), the maximum of f and f^{-1} (Prop. 2), the shift of Thm. 5.
* **Wang, Balle & Kasiviswanathan, Thm. 9** (:func:`thm9`) at 60 digits in an mpmath context
  of its own, written from the paper (min{2, (e^{eps(oo)} - 1)^j} kept as the paper states it
  when ``eps_inf`` is given, 2 otherwise).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from operator_reference import group

from references.golden_sup import grid_golden_sup
from references.hull_renyi import gauss_renyi, laplace_renyi  # noqa: F401 (D_j of the bases)
from references.max_profile import g_delta, l_value
from references.shuffle_pair import mixture_terms, power_of_sorted

# ---------------------------------------------------------------------------------------------
# shuffle
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def shuffle_exact(E: Fraction, n: int) -> tuple:
    """[(P, Q)] in Fraction of the shuffle pair with e^eps0 = E (rational), grouped by y/x, in
    decreasing ratio Q/P (module docstring)."""
    groups: dict = {}
    for x, y, p, q in mixture_terms(n, 1 / (Fraction(E) + 1), math.comb, 2):
        key = Fraction(y, x) if x else Fraction(10 ** 12)
        g = groups.setdefault(key, [Fraction(0), Fraction(0)])
        g[0] += p
        g[1] += q
    return tuple(tuple(groups[k]) for k in sorted(groups, reverse=True))


power_sorted = power_of_sorted  # (references.shuffle_pair; Fraction or mpf)


def delta_sorted(groups, v):
    """delta at e^eps = v: sum (Q - v P)_+ over the outcomes."""
    s = v * 0
    for p, q in groups:
        if q > v * p:
            s += q - v * p
    return s


# ---------------------------------------------------------------------------------------------
# dp_accounting pairs
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def sampled_laplace_plds(b: float, q: float, T: int, grid: float):
    """(optimistic, pessimistic) PLDs of T Poisson-subsampled Laplace steps (scale b,
    sensitivity 1, rate q), the hull of both directions (dp_accounting's default)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    return tuple(pld.from_laplace_mechanism(b, sensitivity=1, sampling_prob=q,
                                            pessimistic_estimate=p,
                                            value_discretization_interval=grid,
                                            use_connect_dots=p).self_compose(T)
                 for p in (False, True))


@lru_cache(maxsize=16)
def dpsgd_plds(sigma: float, q: float, T: int, grid: float):
    """(optimistic, pessimistic) PLDs of DP-SGD (``dpsgd_power.hull_plds``)."""
    from references.dpsgd_power import hull_plds

    return tuple(hull_plds(sigma, q, T, grid))


def pld_delta_pair(plds, eps):
    """(optimistic, pessimistic) delta at eps (a float or an array)."""
    opt, pess = plds
    if np.ndim(eps):
        return (np.asarray(opt.get_delta_for_epsilon(eps), dtype=float),
                np.asarray(pess.get_delta_for_epsilon(eps), dtype=float))
    return float(opt.get_delta_for_epsilon(eps)), float(pess.get_delta_for_epsilon(eps))


def pld_power(plds, alphas, eps_max: float = 8.0, points: int = 4001):
    """[(lower, upper)] of the power at each level from a PLD pair
    (``dpsgd_power.pld_power_bracket``)."""
    from references.dpsgd_power import pld_power_bracket

    return pld_power_bracket(plds[0], plds[1], alphas, eps_max, points)


# ---------------------------------------------------------------------------------------------
# exact convolutions (quadrature at the caller's precision)
# ---------------------------------------------------------------------------------------------


def sampled_laplace_hull_delta(mu, q, T: int, eps):
    """delta(eps) of T in {1, 2} Poisson-subsampled Laplace steps, the hull: the larger of the
    two directions (references.sampled_laplace)."""
    from references import sampled_laplace as SL

    fn = {1: SL.sampled_laplace_delta_one, 2: SL.sampled_laplace_delta_two}[T]
    return max(fn(mu, q, d, eps) for d in ("remove", "add"))


def sampled_gaussian_hull_delta(mu, q, T: int, eps):
    """delta(eps) of T in {1, 2, 3} subsampled Gaussian steps, the hull (both directions)."""
    from references import sampled_gaussian as SG

    fn = {1: SG.sampled_gaussian_delta_halfline, 2: SG.sampled_gaussian_delta_two,
          3: SG.sampled_gaussian_delta_three}[T]
    return max(fn(mu, q, d, eps) for d in ("remove", "add"))


# ---------------------------------------------------------------------------------------------
# brute-force Neyman--Pearson on trade-off functions written from their definitions
# ---------------------------------------------------------------------------------------------


def _phi_inv_upper(a):
    """Phi^{-1}(1 - a) with 40 guard digits (1 - 2a cancels for small a)."""
    with mpmath.workdps(mpmath.mp.dps + 40):
        z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(a))
    return +z


def f_gauss(mu):
    mu = mpmath.mpf(mu)

    def f(a):
        if a <= 0:
            return mpmath.mpf(1)
        if a >= 1:
            return mpmath.mpf(0)
        return mpmath.ncdf(_phi_inv_upper(a) - mu)
    return f


def f_laplace(mu):
    """L_mu (Dong, Roth & Su, Prop. 7 / Eq. after it): 1 - e^mu a for a < e^-mu/2,
    e^-mu/(4a) for e^-mu/2 <= a <= 1/2, e^-mu (1 - a) for a > 1/2."""
    inner = l_value(mu)  # (references.max_profile: the three pieces inside (0, 1))

    def f(a):
        a = mpmath.mpf(a)
        if a <= 0:
            return mpmath.mpf(1)
        if a >= 1:
            return mpmath.mpf(0)
        return inner(a)
    return f


def f_epsdelta(eps, d):
    E = mpmath.exp(mpmath.mpf(eps))
    d = mpmath.mpf(d)
    return lambda a: max(mpmath.mpf(0), 1 - d - E * a, (1 - d - a) / E)


def f_mix(f, p):
    p = mpmath.mpf(p)
    return lambda a: p * f(a) + (1 - p) * (1 - a)


f_group = group  # 1 - (1 - f)^{o k} (Dong, Roth & Su, Thm. 3), composing k times


def f_inverse(f, bits: int | None = None):
    """f^{-1}(a) = inf{t : f(t) <= a} (Eq. (3)) by bisection to the working precision (f is
    continuous and non-increasing)."""
    def g(a):
        a = mpmath.mpf(a)
        if f(mpmath.mpf(0)) <= a:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(bits or mpmath.mp.prec + 4):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if f(m) > a else (lo, m)
        return hi
    return g


def f_symmetrize(f, bits: int | None = None):
    fi = f_inverse(f, bits)
    return lambda a: max(f(a), fi(a))


def f_shift(f, t):
    """Thm. 5's lower side, t >= 0: max{f(a + t) - t, 0}, f = 0 beyond 1."""
    t = mpmath.mpf(t)
    return lambda a: max(f(a + t) - t if a + t <= 1 else -t, mpmath.mpf(0))


def np_delta(f, eps, grid: int = 200, steps: int = 120):
    """(grid sup, refined sup) of psi(a) = 1 - f(a) - e^eps a over a uniform and a logarithmic
    grid of [0, 1], then golden section between the best grid point's neighbours (psi is
    concave). The grid sup is attained: a lower bound of delta(eps) (Prop. 6)."""
    v = mpmath.exp(mpmath.mpf(eps))
    xs = sorted({mpmath.mpf(i) / grid for i in range(grid + 1)}
                | {mpmath.mpf(10) ** (-j / mpmath.mpf(4)) for j in range(1, 4 * 14)})

    def psi(a):
        return 1 - f(a) - v * a

    gsup, best = grid_golden_sup(psi, xs, steps)
    return max(gsup, mpmath.mpf(0)), max(best, mpmath.mpf(0))


gauss_delta = g_delta  # Dong, Roth & Su, Cor. 1 (references.max_profile)


def gauss_eps(mu, d):
    """eps of G_mu at delta = d by bisection on Cor. 1 (delta decreasing in eps)."""
    lo, hi = mpmath.mpf(-50), mpmath.mpf(1)
    while gauss_delta(mu, hi) > d:
        hi *= 2
    for _ in range(mpmath.mp.prec + 8):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if gauss_delta(mu, m) > d else (lo, m)
    return max((lo + hi) / 2, mpmath.mpf(0))


# ---------------------------------------------------------------------------------------------
# Wang, Balle & Kasiviswanathan, Thm. 9
# ---------------------------------------------------------------------------------------------


def thm9(eps_j, p, a: int, eps_inf=None, dps: int = 60):
    """Thm. 9's bound log A(a)/(a - 1) at an integer order a >= 2 (replace-one subsampling
    without replacement, ratio p = m/n): ``eps_j(c, j)`` the base's D_j in the mpmath context
    c; ``eps_inf`` the base's eps(oo) (None: oo, every min{2, .} is 2)."""
    c = mpmath.MPContext()
    c.dps = dps
    p = c.mpf(p.numerator) / p.denominator if isinstance(p, Fraction) else c.mpf(p)

    def m2(j):
        if eps_inf is None:
            return c.mpf(2)
        e = Fraction(eps_inf)
        return min(c.mpf(2), c.expm1(c.mpf(e.numerator) / e.denominator) ** j)

    e2 = eps_j(c, 2)
    A = 1 + p ** 2 * c.binomial(a, 2) * min(4 * c.expm1(e2), c.exp(e2) * m2(2))
    for j in range(3, a + 1):
        A += p ** j * c.binomial(a, j) * c.exp((j - 1) * eps_j(c, j)) * m2(j)
    return c.log(A) / (a - 1)


# ---------------------------------------------------------------------------------------------
# PoissonReplace, two steps, over a domain that follows the level
# ---------------------------------------------------------------------------------------------


def replace_two_steps_wide(mu: Fraction, q: Fraction, eps: Fraction, dps: int = 30,
                           pieces: int = 64):
    """delta_2(eps) of PoissonReplace(mu, q)^2 = int p(x) H(eps - L(x)) dx (P = (1 - q) N(0, 1)
    + q N(mu, 1), Q = (1 - q) N(0, 1) + q N(-mu, 1), L = log(p/q_Q), H(e) = P(L > e) -
    e^e Q(L > e) the one-step profile at any real level), by mpmath quadrature over [-12, X]
    with X = 12 + (the x where one step's loss reaches eps) + mu, so that the first step's
    region that carries a tiny delta (both steps' losses near eps/2 and beyond) is inside
    (``audit5_refs.replace_two_steps`` stops at 12 + mu). The threshold s(e) of {L > e} =
    {x > s}: with u = e^{mu x}, c = e^{-mu^2/2}, L = e solves
    q c u^2 + (1 - q)(1 - e^e) u - e^e q c = 0 (its positive root, cancellation-free)."""
    with mpmath.workdps(dps):
        m = mpmath.mpf(mu.numerator) / mu.denominator
        qq = mpmath.mpf(q.numerator) / q.denominator
        E0 = mpmath.mpf(eps.numerator) / eps.denominator
        c = mpmath.exp(-m * m / 2)

        def loss(x):
            return (mpmath.log(1 - qq + qq * c * mpmath.exp(m * x))
                    - mpmath.log(1 - qq + qq * c * mpmath.exp(-m * x)))

        def s_of(e):
            E = mpmath.exp(e)
            b = (1 - qq) * mpmath.expm1(e)
            r = mpmath.sqrt(b * b + 4 * E * (qq * c) ** 2)
            u = (b + r) / (2 * qq * c) if b >= 0 else 2 * E * qq * c / (r - b)
            return mpmath.log(u) / m

        def H(e):
            s = s_of(e)
            tp = (1 - qq) * mpmath.ncdf(-s) + qq * mpmath.ncdf(m - s)
            tq = (1 - qq) * mpmath.ncdf(-s) + qq * mpmath.ncdf(-m - s)
            return tp - mpmath.exp(e) * tq

        def p(x):
            return (1 - qq) * mpmath.npdf(x) + qq * mpmath.npdf(x - m)

        top = 12 + max(s_of(E0), mpmath.mpf(0)) + m
        cuts = [-12 + (top + 12) * mpmath.mpf(i) / pieces for i in range(pieces + 1)]
        return mpmath.quad(lambda x: p(x) * H(E0 - loss(x)), cuts)
