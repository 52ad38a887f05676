"""Independent references for the fifth audit of the routes (no ``tradeoff_algebra`` import).

Everything here works on ``Fraction`` (exact) or mpmath ``mpf`` (at the caller's precision):

* **Piecewise-linear trade-off functions** as knot lists [(x, y)], x increasing from 0 to 1
  (``pl_*``): the value by interpolation; the Neyman-Pearson knots of a finite pair (reject in
  decreasing Q/P, ratio oo first); f_{eps,delta}'s four knots (Dong, Roth & Su, Eq. (4));
  max{f, g} and min{f, g} over the union of the knots and the crossings of their pieces (both
  are linear between consecutive candidates); the inverse f^{-1}(y) = inf{t : f(t) <= y} by
  mirroring the knots; the mixture p f + (1 - p) Id; the lower convex hull (Andrew's monotone
  chain), so C(f) = hull(min{f, f^{-1}}) and C_p(f) = hull(min{f_p, f_p^{-1}}) (Def. 6, Thm. 9,
  Eq. (13) for symmetric f); group privacy 1 - (1 - f)^{o k} by composing the increasing
  piecewise-linear power (its knots: the inner function's knots and the preimages of the outer
  one's); the privacy profile delta(eps) = max(0, max over knots of 1 - y - e^eps x) (Prop. 6:
  the sup of a concave piecewise-linear function is at a knot).
* **Finite pairs** as lists of (P, Q) outcomes: f_{eps,0}^{(x) k} (binomial), randomized
  response with c answers composed m times (trinomial counts), the product of two laws, the
  mixture (P, (1 - p) P + p Q) and the hockey-stick sum (Q - t P)_+.
* **Shuffle** (Feldman, McMillan & Talwar; Wang et al., Sec. 4.1): the mixture pair
  P = (1 - w) P0 + w Q0, Q = (1 - w) Q0 + w P0, P0 the law of (A + 1, C - A), Q0 of
  (A, C - A + 1), A ~ Binom(C, 1/2), C ~ Binom(n - 1, 2/(e^eps0 + 1)), w = 1/(e^eps0 + 1),
  written out atom by atom and grouped by the exact fraction y/x (Q/P = (E y + x)/(E x + y)
  increases with y/x).
* **PoissonReplace(mu, q)^k**: dp_accounting's REPLACE_ONE optimistic/pessimistic PLDs (float64,
  not proved: callers widen), and for k = 2 the hockey-stick integral E_P[H(eps - L)] by mpmath
  quadrature, H the one-step profile at any real level from the quadratic's root.
* **Products of Laplace factors of different scales**: dp_accounting's pair (as in the fourth
  round) composed factor by factor.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import mpmath

from .hull import monotone_chain
from .shuffle_pair import power_of_sorted, shuffle_groups  # noqa: F401  (this module's callers)

# ---------------------------------------------------------------------------------------------
# piecewise-linear functions
# ---------------------------------------------------------------------------------------------


def pl_at(knots, x):
    """The linear interpolation of the knots at x (x in [knots[0].x, knots[-1].x]; an mpf a
    rounding error outside is clamped)."""
    if not isinstance(x, Fraction):
        x = min(max(x, knots[0][0]), knots[-1][0]) if abs(x) < 2 else x
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError(f"x = {x} outside [{knots[0][0]}, {knots[-1][0]}]")


def _clean(points):
    """Sorted by x, one point per x (the last), collinear interior points kept (harmless)."""
    out: dict = {}
    for x, y in points:
        out[x] = y
    return sorted(out.items())


def np_knots(pairs, one=Fraction(1)):
    """Knots of T(P, Q) for outcomes [(P, Q)]: reject in decreasing Q/P (P = 0 first)."""
    zero = one - one
    inf_q = sum((q for p, q in pairs if p == 0), zero)
    fin = sorted(((p, q) for p, q in pairs if p != 0), key=lambda t: t[1] / t[0], reverse=True)
    knots = [(zero, one - inf_q)]
    a, b = zero, inf_q
    for p, q in fin:
        a, b = a + p, b + q
        knots.append((a, one - b))
    knots[-1] = (one, knots[-1][1])
    return knots


def epsdelta_knots(E, d, one=Fraction(1)):
    """f_{eps,delta}, E = e^eps: max{0, 1 - d - E a, (1 - d - a)/E}."""
    zero = one - one
    k = (one - d) / (E + 1)
    pts = [(zero, one - d), (k, k), (one - d, zero)]
    if d != 0:
        pts.append((one, zero))
    return _clean(pts)


def _segments(knots):
    return list(zip(knots, knots[1:], strict=False))


def pl_eval_sorted(knots, xs):
    """The interpolation at increasing xs by one walk over the knots."""
    out, i = [], 0
    for x in xs:
        while i + 2 < len(knots) and knots[i + 1][0] < x:
            i += 1
        (x0, y0), (x1, y1) = knots[i], knots[i + 1]
        if x <= x0:
            out.append(y0)
        elif x >= x1:
            out.append(y1)
        else:
            out.append(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return out


def pl_combine(ka, kb, op):
    """op(f, g) (max or min) of two piecewise-linear functions on [0, 1]: on the merged knots
    both are linear between neighbours, so f - g changes sign at most once there."""
    xs = sorted(set([x for x, _ in ka] + [x for x, _ in kb]))
    fa, fb = pl_eval_sorted(ka, xs), pl_eval_sorted(kb, xs)
    pts = []
    for i, x in enumerate(xs):
        pts.append((x, op(fa[i], fb[i])))
        if i + 1 < len(xs):
            d0, d1 = fa[i] - fb[i], fa[i + 1] - fb[i + 1]
            if (d0 > 0 > d1) or (d0 < 0 < d1):
                xc = x + d0 / (d0 - d1) * (xs[i + 1] - x)
                pts.append((xc, fa[i] + (fa[i + 1] - fa[i]) * (xc - x) / (xs[i + 1] - x)))
    return pts


def pl_max(ka, kb):
    return pl_combine(ka, kb, max)


def pl_min(ka, kb):
    return pl_combine(ka, kb, min)


def pl_inverse(knots, one=Fraction(1)):
    """f^{-1}(y) = inf{t : f(t) <= y} for a non-increasing f with f(1) = 0."""
    zero = one - one
    best: dict = {}
    for x, y in knots:
        if y not in best or x < best[y]:
            best[y] = x
    pts = sorted(best.items())
    if pts[-1][0] < one:
        pts.append((one, zero))
    if pts[0][0] > zero:
        pts.insert(0, (zero, pts[0][1]))
    return pts


def pl_mix(knots, p, one=Fraction(1)):
    """f_p = p f + (1 - p) Id (Id(a) = 1 - a)."""
    return [(x, p * y + (one - p) * (one - x)) for x, y in knots]


def lower_hull(points):
    """The lower convex hull of points (Andrew's monotone chain: references/hull), as knots."""
    return monotone_chain(sorted(set(points)))


def pl_sym_hull(knots, one=Fraction(1)):
    """C(f) = lower convex hull of min{f, f^{-1}}."""
    return lower_hull(pl_min(knots, pl_inverse(knots, one)))


def pl_cp(knots, p, one=Fraction(1)):
    """C_p(f) = lower convex hull of min{f_p, f_p^{-1}} (Dong, Roth & Su, Thm. 9)."""
    m = pl_mix(knots, p, one)
    return lower_hull(pl_min(m, pl_inverse(m, one)))


def _preimages(knots, t):
    """x where the piecewise-linear h (knots) equals t, one per piece crossing it."""
    out = []
    for (x0, y0), (x1, y1) in _segments(knots):
        if y0 != y1 and min(y0, y1) <= t <= max(y0, y1):
            out.append(x0 + (t - y0) * (x1 - x0) / (y1 - y0))
    return out


def pl_compose(kg, kh):
    """g o h for h with values in g's domain."""
    xs = set(x for x, _ in kh)
    for t, _ in kg:
        xs.update(_preimages(kh, t))
    xs = sorted(x for x in xs if kh[0][0] <= x <= kh[-1][0])
    return [(x, pl_at(kg, pl_at(kh, x))) for x in xs]


def pl_group(knots, k: int, one=Fraction(1)):
    """1 - (1 - f)^{o k} (Dong, Roth & Su, group privacy)."""
    r = [(x, one - y) for x, y in knots]
    acc = r
    for _ in range(k - 1):
        acc = pl_compose(r, acc)
    return [(x, one - y) for x, y in acc]


def pl_delta(knots, v, one=Fraction(1)):
    """delta at e^eps = v: max(0, max over knots of 1 - y - v x)."""
    zero = one - one
    return max([zero] + [one - y - v * x for x, y in knots])


# ---------------------------------------------------------------------------------------------
# finite pairs
# ---------------------------------------------------------------------------------------------


def binomial_pairs(k: int, E, one=Fraction(1)):
    """f_{eps,0}^{(x) k}, E = e^eps: j "wrong" answers out of k, P = C(k, j) E^(k-j)/(1+E)^k,
    Q = C(k, j) E^j/(1+E)^k (ratio Q/P = E^(2j - k))."""
    z = (one + E) ** k
    return [(comb(k, j) * E ** (k - j) / z, comb(k, j) * E ** j / z) for j in range(k + 1)]


def rr_pairs(m: int, E, c: int, one=Fraction(1)):
    """Randomized response with c answers and ratio E (the true answer E/z, any other 1/z,
    z = E + c - 1) composed m times, grouped by (i true answers of P, j of Q's)."""
    z = E + c - 1
    by_d: dict = {}
    zm = z ** m
    for i in range(m + 1):
        for j in range(m - i + 1):
            r = m - i - j
            cnt = comb(m, i) * comb(m - i, j) * (c - 2) ** r if (c > 2 or r == 0) else 0
            if cnt == 0:
                continue
            base = cnt / zm * one
            p, q = base * E ** i, base * E ** j
            a = by_d.setdefault(j - i, [one - one, one - one])  # equal ratios E^(j - i) merged
            a[0] += p
            a[1] += q
    return [tuple(by_d[d]) for d in sorted(by_d)]


def joint(a, b):
    """The product pair of two outcome lists."""
    return [(p1 * p2, q1 * q2) for p1, q1 in a for p2, q2 in b]


def mixed(pairs, p, one=Fraction(1)):
    """(P, (1 - p) P + p Q): the pair of f_p."""
    return [(x, (one - p) * x + p * y) for x, y in pairs]


def hockey(pairs, t, one=Fraction(1)):
    """sum (Q - t P)_+ = delta at e^eps = t."""
    zero = one - one
    return sum((max(zero, q - t * p) for p, q in pairs), zero)


# ---------------------------------------------------------------------------------------------
# shuffle: the mixture pair's groups and their power are in references/shuffle_pair.py
# (shuffle_groups, power_of_sorted, imported above for the callers of this module)
# ---------------------------------------------------------------------------------------------


def _num(x):
    """An mpf at the current precision from a Fraction, an int or an mpf."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


# ---------------------------------------------------------------------------------------------
# PoissonReplace
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _replace_plds(mu: float, q: float, k: int, h: float):
    import logging

    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld

    logging.getLogger().setLevel(logging.ERROR)
    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(1.0 / mu, pessimistic_estimate=pess, sampling_prob=q,
                                        value_discretization_interval=h,
                                        use_connect_dots=pess,
                                        neighboring_relation=NeighboringRelation.REPLACE_ONE)
        out.append(p.self_compose(k) if k > 1 else p)
    return out


def dpa_replace_bracket(mu: float, q: float, k: int, eps, h: float = 1e-4):
    """(optimistic, pessimistic) delta(eps) (eps a float or an array) of dp_accounting's
    REPLACE_ONE PLDs of k steps of the Poisson-subsampled Gaussian with noise 1/mu (float64,
    not proved)."""
    opt, pess = _replace_plds(mu, q, k, h)
    return opt.get_delta_for_epsilon(eps), pess.get_delta_for_epsilon(eps)


def replace_two_steps(mu: Fraction, q: Fraction, eps, dps: int = 30):
    """delta_2(eps) of PoissonReplace(mu, q)^2 = E_P[H(eps - L)] by mpmath quadrature; H(e) =
    P(L > e) - e^e Q(L > e) from the threshold x_e of L(x_e) = e: with u = e^{mu x},
    L = log((1 - q + q c u)/(1 - q + q c/u)) (c = e^{-mu^2/2}), so L = e solves
    q c u^2 + (1 - q)(1 - e^e) u - e^e q c = 0 (positive root, cancellation-free form)."""
    with mpmath.workdps(dps):
        m = mpmath.mpf(mu.numerator) / mu.denominator
        qq = mpmath.mpf(q.numerator) / q.denominator
        c = mpmath.exp(-m * m / 2)

        def lam(x):
            return mpmath.log(1 - qq + qq * c * mpmath.exp(m * x))

        def H(e):
            E = mpmath.exp(e)
            b = (1 - qq) * mpmath.expm1(e)
            r = mpmath.sqrt(b * b + 4 * E * (qq * c) ** 2)
            u = (b + r) / (2 * qq * c) if b >= 0 else 2 * E * qq * c / (r - b)
            x = mpmath.log(u) / m
            sp_ = (1 - qq) * mpmath.ncdf(-x) + qq * mpmath.ncdf(m - x)
            sq = (1 - qq) * mpmath.ncdf(-x) + qq * mpmath.ncdf(-m - x)
            return sp_ - E * sq

        def integrand(x):
            return mpmath.npdf(x) * mpmath.exp(lam(x)) * H(mpmath.mpf(eps) - lam(x) + lam(-x))

        top = 12 + m
        cuts = [-12 + (top + 12) * mpmath.mpf(i) / 48 for i in range(49)]
        return mpmath.quad(integrand, cuts)


# ---------------------------------------------------------------------------------------------
# Laplace products
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _mixed_plds(mus: tuple, gs: tuple, h: float):
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pld

    logging.getLogger().setLevel(logging.ERROR)
    out = []
    for pess in (False, True):
        acc = None
        for m in mus:
            d = pld.from_laplace_mechanism(1.0 / m, sensitivity=1.0, pessimistic_estimate=pess,
                                           value_discretization_interval=h)
            acc = d if acc is None else acc.compose(d)
        for g in gs:
            d = pld.from_gaussian_mechanism(1.0 / g, pessimistic_estimate=pess,
                                            value_discretization_interval=h)
            acc = d if acc is None else acc.compose(d)
        out.append(acc)
    return out


def dpa_laplace_pair(mus, eps, h: float = 1e-4, gs=()):
    """(optimistic, pessimistic) delta(eps) (a float or an array) of dp_accounting's Laplace
    PLDs (scale 1/mu, sensitivity 1) and Gaussian PLDs (noise 1/g) composed over the factors
    (float64, not proved)."""
    opt, pess = _mixed_plds(tuple(float(m) for m in mus), tuple(float(g) for g in gs), h)
    return opt.get_delta_for_epsilon(eps), pess.get_delta_for_epsilon(eps)


def laplace_two_exact(mu1, mu2, eps, dps: int = 30):
    """delta(eps) of Laplace(mu1) (x) Laplace(mu2) (Fractions or mpfs) by mpmath quadrature of
    the hockey-stick integral over the plane: P = Lap(0,1)^2, Q = Lap((mu1, mu2), 1); the
    region {Q > e^eps P} in each x-slice is a union of intervals of y found from the
    one-dimensional loss l2(y) = |y| - |y - mu2| (non-decreasing, clipped at +-mu2). Written as
    int dx sum over y-pieces, with the integrand (q - e^eps p)_+ integrated exactly in y on
    each piece where l1(x) + l2(y) is linear (y < 0, 0 < y < mu2, y > mu2)."""
    with mpmath.workdps(dps):
        m1, m2, e = _num(mu1), _num(mu2), _num(eps)
        E = mpmath.exp(e)

        def lap(z):
            return mpmath.exp(-abs(z)) / 2

        def inner(x):
            # over y: q2(y) e^{l1} - E p2(y) where q1 = p1 e^{l1}; factor p1(x)
            l1 = abs(x) - abs(x - m1)
            tot = mpmath.mpf(0)
            # y <= 0: l2 = -m2 (p2 = e^{y}/2, q2 = e^{y - m2}/2)
            a = mpmath.exp(l1 - m2) - E
            if a > 0:
                tot += a * mpmath.mpf(1) / 2
            # 0 < y < m2: l2 = 2y - m2; p2 = e^{-y}/2; q2 - E p2 = (e^{l1 + 2y - m2} - E) e^{-y}/2
            # positive for y > y0 = (e - l1 + m2)/2
            y0 = (e - l1 + m2) / 2
            lo = min(max(y0, mpmath.mpf(0)), m2)
            if lo < m2:
                # int_lo^m2 (e^{l1 - m2 + y} - E e^{-y})/2 dy
                tot += (mpmath.exp(l1 - m2) * (mpmath.exp(m2) - mpmath.exp(lo))
                        - E * (mpmath.exp(-lo) - mpmath.exp(-m2))) / 2
            # y >= m2: l2 = m2: (e^{l1 + m2} - E) e^{-y}/2
            b = mpmath.exp(l1 + m2) - E
            if b > 0:
                tot += b * mpmath.exp(-m2) / 2
            return lap(x) * tot

        # l1 = 2x - m1 on (0, m1), constant outside; the pieces switch where l1 = e +- m2
        pts = {mpmath.mpf(0), m1}
        for l1 in (e + m2, e - m2):
            x = (l1 + m1) / 2
            if 0 < x < m1:
                pts.add(x)
        pts = sorted(pts)
        return mpmath.quad(inner, [-mpmath.inf] + pts + [mpmath.inf])


def pl_symmetrize(knots, one=Fraction(1)):
    """f^S = max{f, f^{-1}} (Dong, Roth & Su, Prop. 2)."""
    return pl_max(knots, pl_inverse(knots, one))
