"""Independent references for the audit of the certified routes (tests/test_audit_certified.py,
benchmarks/fuzz_certified_routes.py). Nothing here imports ``tradeoff_algebra``.

* :func:`finite_power` -- the n-fold product of a finite pair by exact enumeration of its types
  (count vectors, multinomial masses), exactly in Fractions or in mpmath at the working precision;
  :func:`np_delta` and :func:`np_value` -- brute-force Neyman--Pearson on such a list of atoms:
  delta(eps) = sum (Q - e^eps P)_+ and f(alpha) = 1 - (best power at size alpha), the atoms sorted
  by their likelihood ratio Q/P (P = 0 first, ratio +oo).
* :func:`binary_power_delta` -- delta of f_{eps0,0}^{(x) n} = RR^n (binary) by the binomial sum in
  mpmath, summed over the window where the terms matter (n up to 10^6).
* :func:`epsdelta_power_delta` -- delta of f_{eps0,delta0}^{(x) n}: 1 - (1 - delta0)^n (1 -
  delta_pure) (f_{eps,delta} is f_{eps,0} mixed with a release of probability delta).
* :func:`dg_lattice` -- products of discrete Gaussians with rational sigma_i^2 on one lattice:
  the P-law of T = sum a_i x_i (a_i = D u_i integers) by an exact integer product of polynomials
  (python-flint fmpz_poly) of the pmfs rounded down at 2^-bits, the rounding bounded; delta and f
  from it by brute-force Neyman--Pearson.
* :func:`skellam_delta` -- delta of Skellam products of one or two factors by summing the pmfs
  (mpmath Bessel functions) over the grid of outcomes.
* :func:`shuffle_delta` -- delta of the shuffle pair of Feldman, McMillan & Talwar by summing its
  closed-form atoms (a, b) in mpmath (n up to a few hundred).
* :func:`shuffled_rr_delta_ref` -- delta of the shuffled binary randomized-response pair by the
  binomial sum in mpmath.
* :func:`pld_bracket` -- dp_accounting's pessimistic and optimistic privacy-loss distributions
  (a peer library; its bracket is float64 and not proved: the callers widen it).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations_with_replacement

import mpmath

from .shuffle_pair import shuffle_points

MP = mpmath.mp


# ---------------------------------------------------------------------------------------------
# finite pairs
# ---------------------------------------------------------------------------------------------

def _compositions(n: int, k: int):
    """Every (c_1, .., c_k) of non-negative integers with sum n."""
    for bars in combinations_with_replacement(range(k), n):
        c = [0] * k
        for b in bars:
            c[b] += 1
        yield tuple(c)


def finite_power(P: list, Q: list, n: int) -> list[tuple]:
    """The atoms (p, q) of the n-fold product of the pair (P, Q) (Fractions stay exact, mpfs in
    mpmath), outcomes grouped by their count vector (the masses depend on the counts only)."""
    k = len(P)
    out = []
    exact = all(isinstance(x, (int, Fraction)) for x in list(P) + list(Q))
    for c in _compositions(n, k):
        m = math.factorial(n)
        for ci in c:
            m //= math.factorial(ci)
        p = Fraction(m) if exact else MP.mpf(m)
        q = Fraction(m) if exact else MP.mpf(m)
        for pi, qi, ci in zip(P, Q, c, strict=True):
            if ci:
                p *= pi ** ci
                q *= qi ** ci
        if p or q:
            out.append((p, q))
    return out


def np_delta(atoms: list[tuple], eps) -> MP.mpf:
    """delta(eps) = sum (q - e^eps p)_+ in mpmath (``eps`` an mpmath number or a string)."""
    E = MP.exp(MP.mpf(eps)) if not isinstance(eps, MP.mpf) else MP.exp(eps)
    s = MP.mpf(0)
    for p, q in atoms:
        t = _mp(q) - E * _mp(p)
        if t > 0:
            s += t
    return s


def _mp(x):
    if isinstance(x, Fraction):
        return MP.mpf(x.numerator) / x.denominator
    return MP.mpf(x)


def _ratio_key(p, q):
    if p == 0:
        return (1, 0)
    r = q / p
    return (0, r)


def np_groups(atoms: list[tuple]) -> list[tuple]:
    """The atoms grouped by equal likelihood ratio and sorted by decreasing ratio: [(P, Q)]
    (exact atoms group exactly; mpf atoms by their ratio to the working precision less 10
    digits)."""
    groups: dict = {}
    for p, q in atoms:
        if p == 0:
            key = (1, 0)
        else:
            r = q / p
            key = (0, r if isinstance(r, Fraction) else MP.nstr(r, MP.dps - 10))
        P0, Q0 = groups.get(key, (0, 0))
        groups[key] = (P0 + p, Q0 + q)
    def order(k):
        return (k[0], _mp(k[1]) if k[0] == 0 and not isinstance(k[1], Fraction) else k[1])
    keys = sorted(groups, key=lambda k: (k[0], order(k)[1]), reverse=True)
    return [groups[k] for k in keys]


def np_value(groups: list[tuple], alpha):
    """f(alpha) = 1 - sup{Q(reject): P(reject) <= alpha} over randomised tests, the groups in
    decreasing ratio (:func:`np_groups`); exact when the groups and alpha are exact."""
    used_p, power = 0, 0
    for p, q in groups:
        if used_p + p <= alpha:
            used_p += p
            power += q
        else:
            power += q * (alpha - used_p) / p
            return 1 - power
    return 1 - power


def np_vertices(groups: list[tuple]) -> list:
    """The sizes alpha of the Neyman--Pearson vertices (cumulative P-masses), exact when exact."""
    out, s = [], 0
    for p, _ in groups:
        s += p
        out.append(s)
    return out


# ---------------------------------------------------------------------------------------------
# binary randomized response and f_{eps, delta}
# ---------------------------------------------------------------------------------------------

def binary_power_delta(eps0, n: int, eps) -> MP.mpf:
    """delta(eps) of f_{eps0,0}^{(x) n}: the loss is (2k - n) eps0 with k ~ Bin(n, p) under Q,
    p = e^eps0/(1 + e^eps0), and P(k) = Q(k) e^{-(2k - n) eps0}; summed where the term exceeds
    10^-(dps + 10) of the largest (the binomial terms are unimodal: the window is exact up to
    that share, bounded by n times it)."""
    eps0, eps = MP.mpf(eps0), MP.mpf(eps)
    p = MP.exp(eps0) / (1 + MP.exp(eps0))
    lp, lq = MP.log(p), MP.log(1 - p)
    E = MP.exp(eps)
    kmin = max(0, int(MP.ceil((eps / eps0 + n) / 2)))  # loss > eps
    mode = int(n * p)
    cut = -(MP.dps + 10) * MP.log(10) - MP.log(n + 1)

    def term(k):
        lc = MP.loggamma(n + 1) - MP.loggamma(k + 1) - MP.loggamma(n - k + 1)
        lQ = lc + k * lp + (n - k) * lq
        return lQ, MP.exp(lQ) * (1 - E * MP.exp(-(2 * k - n) * eps0))

    total = MP.mpf(0)
    start = max(kmin, mode)
    # upwards from the mode (or kmin)
    k = start
    top = None
    while k <= n:
        lQ, t = term(k)
        if t > 0:
            total += t
        top = lQ if top is None else max(top, lQ)
        if lQ < top + cut and k > mode:
            break
        k += 1
    k = start - 1
    while k >= kmin:
        lQ, t = term(k)
        if t > 0:
            total += t
        if lQ < top + cut and k < mode:
            break
        k -= 1
    return max(total, MP.mpf(0))


def epsdelta_power_delta(eps0, delta0, n: int, eps) -> MP.mpf:
    """delta(eps) of f_{eps0,delta0}^{(x) n} = 1 - (1 - delta0)^n (1 - delta_pure(eps))."""
    d0 = MP.mpf(delta0) if not isinstance(delta0, Fraction) else _mp(delta0)
    return 1 - (1 - d0) ** n * (1 - binary_power_delta(eps0, n, eps))


# ---------------------------------------------------------------------------------------------
# discrete Gaussians on one lattice
# ---------------------------------------------------------------------------------------------

def _dg_pmf_ints(s2: Fraction, bits: int):
    """(X, [floor(2^bits p(x)) for x in -X..X], bound of the dropped mass) for N_Z(0, s2)."""
    X = _dg_window(s2, bits)
    with MP.workprec(bits + 64):
        h = 1 / (2 * (MP.mpf(s2.numerator) / s2.denominator))
        w = [MP.exp(-h * x * x) for x in range(-X, X + 1)]
        # theta = sum over Z: the terms beyond X bounded by a geometric series
        first = MP.exp(-h * (X + 1) ** 2)
        tail = 2 * first / (1 - MP.exp(-h * (2 * X + 3)))
        theta = MP.fsum(w)
        ints = [int(MP.floor(x / (theta + tail) * MP.mpf(2) ** bits)) for x in w]
        dropped = tail / theta
    return X, ints, dropped


def _dg_window(s2: Fraction, bits: int) -> int:
    return int(math.sqrt(float(s2)) * math.sqrt(2 * math.log(2) * (bits + 40))) + 3


def dg_lattice(factors: list[tuple[int, Fraction, int]], bits: int = 200,
               max_size: int = 300_000):
    """The product of DiscreteGaussian(Delta_i, sigma_i)^{n_i}, ``factors`` [(Delta, sigma^2, n)]
    with rational sigma^2: (groups, err) with groups [(P, Q)] in decreasing likelihood ratio as
    mpfs and err a bound of the total absolute error of any sum of their masses.

    The loss of factor i at x is u_i (x - Delta_i/2), u_i = Delta_i/sigma_i^2 = a_i/D; with T =
    sum a_i x_i the loss is (T - sum a_i Delta_i/2)/D, so P-law of T decides everything and the
    Q-law is it shifted by sum a_i Delta_i. The P-law is the product of the polynomials
    sum_x floor(2^bits p(x)) z^{a_i x} (exact integers); each rounding loses less than 2^-bits
    per point, so a sum of masses of the product is low by at most (the number of factors) x
    (the most points of a factor) x 2^-bits, plus the dropped tails."""
    from flint import fmpz_poly

    us = [Fraction(d) / s2 for d, s2, _ in factors]
    D = 1
    for u in us:
        D = D * u.denominator // math.gcd(D, u.denominator)
    size = sum(n * 2 * _dg_window(s2, bits) * int(u * D)
               for (_, s2, n), u in zip(factors, us, strict=True))
    if size > max_size:
        raise ValueError(f"the lattice product has {size} points, above {max_size}")
    poly = fmpz_poly([1])
    low = 0  # the exponent of z^0
    nf, most, dropped = 0, 0, 0.0
    shift = 0
    for (d, s2, n), u in zip(factors, us, strict=True):
        a = int(u * D)
        X, ints, dr = _dg_pmf_ints(s2, bits)
        coeffs = [0] * (2 * X * a + 1)
        for i, v in enumerate(ints):
            coeffs[i * a] = v
        f = fmpz_poly(coeffs) ** n
        poly *= f
        low += -X * a * n
        nf += n
        most = max(most, 2 * X + 1)
        dropped += n * float(dr)
        shift += a * d * n
    scale = MP.mpf(2) ** (bits * nf)
    c = [MP.mpf(int(x)) / scale for x in poly.coeffs()]
    # T = low + j; P(T) = c[j]; Q(T) = P(T - shift) = c[j - shift]
    groups = []
    m = len(c)
    for j in range(m + shift - 1, -1, -1):  # decreasing T: decreasing ratio
        p = c[j] if j < m else MP.zero
        q = c[j - shift] if 0 <= j - shift < m else MP.zero
        if p or q:
            groups.append((p, q))
    err = nf * most * MP.mpf(2) ** -bits * (1 + 0) + dropped * 2 + MP.mpf(2) ** (-bits // 2)
    return groups, err, D


def dg_delta(groups: list[tuple], eps) -> MP.mpf:
    return np_delta(groups, eps)


# ---------------------------------------------------------------------------------------------
# Skellam
# ---------------------------------------------------------------------------------------------

def skellam_pmf(mu, x: int):
    """P(X = x) for X = A - B, A, B ~ Poisson(mu) independent: e^{-2 mu} I_|x|(2 mu)."""
    mu = MP.mpf(mu)
    return MP.exp(-2 * mu) * MP.besseli(abs(x), 2 * mu)


def skellam_delta(factors: list[tuple[int, object]], eps, width: int | None = None) -> MP.mpf:
    """delta(eps) of Skellam(Delta_1, mu_1) (x) ... (at most two factors) by summing (Q - e^eps
    P)_+ over the outcomes (Q = P shifted by Delta), the window |x| <= W with W chosen so that the
    dropped mass is below 10^-(dps)."""
    E = MP.exp(MP.mpf(eps))
    tabs = []
    for d, mu in factors:
        W = width or int(float(mu) * 2 + 12 * math.sqrt(2 * float(mu) + 1) + 40 + d)
        pm = {x: skellam_pmf(mu, x) for x in range(-W - d, W + d + 1)}
        tabs.append((d, W, pm))
    if len(tabs) == 1:
        d, W, pm = tabs[0]
        return MP.fsum(max(pm[x - d] - E * pm[x], 0) for x in range(-W, W + d + 1))
    (d1, W1, p1), (d2, W2, p2) = tabs
    s = MP.mpf(0)
    for x in range(-W1, W1 + d1 + 1):
        a, b = p1[x - d1], p1[x]
        for y in range(-W2, W2 + d2 + 1):
            t = a * p2[y - d2] - E * b * p2[y]
            if t > 0:
                s += t
    return s


# ---------------------------------------------------------------------------------------------
# shuffle
# ---------------------------------------------------------------------------------------------

def shuffle_atoms(eps0, n: int) -> list[tuple]:
    """The points (P, Q) of ShuffleDP(eps0, n) from the mixture definition (P = (1 - w) P0 +
    w Q0, Q = (1 - w) Q0 + w P0, ...: references/shuffle_pair.shuffle_points), at the current
    mpmath precision."""
    return [tuple(pq) for pq in shuffle_points(eps0, n, MP.dps).values()]


def shuffled_rr_delta_ref(n: int, q, eps, direction: str = "QP") -> MP.mpf:
    """delta(eps) of the shuffled binary randomized-response pair (analysis/shuffle_rr.py
    docstring): c = N + Bernoulli, N ~ Bin(n - 1, q); P(c) = (1 - q) b(c - 1) + q b(c), Q(c) =
    q b(c - 1) + (1 - q) b(c); direction "QP" sums (Q - e^eps P)_+, "PQ" (P - e^eps Q)_+."""
    q = MP.mpf(q)
    E = MP.exp(MP.mpf(eps))
    b = [MP.binomial(n - 1, c) * q ** c * (1 - q) ** (n - 1 - c) for c in range(n)]

    def bb(c):
        return b[c] if 0 <= c < n else MP.zero

    s = MP.mpf(0)
    for c in range(n + 1):
        P = (1 - q) * bb(c - 1) + q * bb(c)
        Q = q * bb(c - 1) + (1 - q) * bb(c)
        t = (Q - E * P) if direction == "QP" else (P - E * Q)
        if t > 0:
            s += t
    return s


# ---------------------------------------------------------------------------------------------
# the peer library's bracket
# ---------------------------------------------------------------------------------------------

def pld_bracket(kind: str, params: dict, n: int, eps: float, h: float = 1e-4):
    """(lower, upper) of delta(eps) from dp_accounting's optimistic and pessimistic PLDs of a
    mechanism composed n times (``kind`` "laplace", "gaussian" or "laplace_sampled"; the
    ``params`` of dp_accounting's constructors). float64, not proved: widen it before use."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pld

    logging.getLogger().setLevel(logging.ERROR)

    out = []
    for pess in (False, True):
        if kind == "laplace":
            d = pld.from_laplace_mechanism(params["b"], sensitivity=params["s"],
                                           pessimistic_estimate=pess,
                                           value_discretization_interval=h)
        elif kind == "gaussian":
            d = pld.from_gaussian_mechanism(params["sigma"], sensitivity=params["s"],
                                            pessimistic_estimate=pess,
                                            value_discretization_interval=h)
        elif kind == "laplace_sampled":
            d = pld.from_laplace_mechanism(params["b"], sensitivity=params["s"],
                                           pessimistic_estimate=pess,
                                           value_discretization_interval=h,
                                           sampling_prob=params["p"])
        else:
            raise ValueError(kind)
        out.append(d)
    return out


def pld_compose(parts) -> list:
    """The (optimistic, pessimistic) PLDs of the composition of ``parts``, a list of
    (optimistic, pessimistic) pairs with their multiplicities [(pair, n)]."""
    res = []
    for side in (0, 1):
        comp = None
        for pair, n in parts:
            d = pair[side].self_compose(n) if n > 1 else pair[side]
            comp = d if comp is None else comp.compose(d)
        res.append(comp)
    return res


def pld_delta(parts, eps: float, composed=None) -> tuple[float, float]:
    """(lower, upper) of delta(eps) of the composition of ``parts`` (:func:`pld_compose`)."""
    comp = composed or pld_compose(parts)
    return comp[0].get_delta_for_epsilon(eps), comp[1].get_delta_for_epsilon(eps)


def pld_from_atoms(losses: list[float], q_masses: list[float], h: float) -> list:
    """dp_accounting's (optimistic, pessimistic) PLDs of a pair given by its atoms under Q: the
    loss log(Q/P) of each atom and its Q-mass, rounded down (optimistic) or up (pessimistic) to
    the grid h Z (a pessimistic rounding of the loss gives a pair that dominates the true one,
    an optimistic one a pair it dominates)."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pld

    logging.getLogger().setLevel(logging.ERROR)
    out = []
    for pess in (False, True):
        pmf: dict = {}
        for l, q in zip(losses, q_masses, strict=True):
            k = math.ceil(l / h) if pess else math.floor(l / h)
            pmf[k] = pmf.get(k, 0.0) + q
        out.append(pld.PrivacyLossDistribution.create_from_rounded_probability(
            pmf, 0.0, h, pessimistic_estimate=pess))
    return out


def dg_atoms(d: int, s2: Fraction, cut: float = 1e-18) -> tuple[list[float], list[float]]:
    """(losses, Q-masses) of DiscreteGaussian(d, sqrt(s2)) in floats: under Q, x = y + d with y ~
    N_Z(0, s2), the loss (2 d x - d^2)/(2 s2); the Q-mass beyond the window (below ``cut``) is
    dropped (the caller widens by it)."""
    s = math.sqrt(float(s2))
    X = int(s * math.sqrt(2 * math.log(1 / cut))) + 2
    w = [math.exp(-y * y / (2 * float(s2))) for y in range(-X, X + 1)]
    t = math.fsum(w)
    losses = [(2 * d * (y + d) - d * d) / (2 * float(s2)) for y in range(-X, X + 1)]
    return losses, [x / t for x in w]
