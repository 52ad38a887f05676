"""References for the privacy profile of a pointwise maximum, from definitions, in mpmath at
50 digits; nothing here imports ``tradeoff_algebra``.

* :func:`g_value`, :func:`l_value`: G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (Dong, Roth &
  Su, Eq. (5)) and L_mu(alpha), the trade-off of Lap(0, 1) against Lap(mu, 1) (piecewise:
  1 - e^mu alpha, e^-mu / (4 alpha), e^-mu (1 - alpha)).
* :func:`g_delta`, :func:`l_delta`: their profiles, Cor. 1 and 1 - e^{(eps - mu)/2}.
* :func:`primal_delta`: delta(eps) of max{f_i} by the definition, sup over alpha of
  1 - e^eps alpha - max_i f_i(alpha) (Prop. 6), by a log-spaced grid of alpha and a golden
  section of 200 steps around its best point (the function is concave in alpha).
* :func:`envelope_delta`: the same number by the dual description, the lower convex envelope
  in v = e^eps of min_i delta_i, from the lower hull of a fine grid (a check of that
  description, independent of the primal one, to about 1e-7).
* :class:`GaussLaplaceProduct`: G_1 (x) L_1 by quadrature: its privacy loss is
  (x - 1/2) + l(y), l(y) = |y| - |y - 1| (-1, 2y - 1 or +1), so P(L > eps) and Q(L > eps) are
  three terms each, two atoms and one integral over y in (0, 1) of normal tails.
"""

from __future__ import annotations

import mpmath as M

DPS = 50


def g_value(mu):
    mu = M.mpf(mu)
    return lambda a: M.ncdf(M.sqrt(2) * M.erfinv(1 - 2 * a) - mu) if a > 0 else M.mpf(1)


def l_value(mu):
    mu = M.mpf(mu)

    def f(a):
        k = M.exp(-mu)  # (at the caller's precision)
        if a < k / 2:
            return 1 - a / k
        if a <= M.mpf(1) / 2:
            return k / (4 * a)
        return k * (1 - a)
    return f


def g_delta(mu, e):
    mu, e = M.mpf(mu), M.mpf(e)
    return M.ncdf(-e / mu + mu / 2) - M.exp(e) * M.ncdf(-e / mu - mu / 2)


def l_delta(mu, e):
    mu, e = M.mpf(mu), M.mpf(e)
    return max(M.mpf(0), 1 - M.exp((e - mu) / 2))


def _golden_max(h, a, b, steps=200):
    g = (M.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    hc, hd = h(c), h(d)
    for _ in range(steps):
        if hc >= hd:
            b, d, hd = d, c, hc
            c = b - g * (b - a)
            hc = h(c)
        else:
            a, c, hc = c, d, hd
            d = a + g * (b - a)
            hd = h(d)
    return max((hc, c), (hd, d))


def primal_delta(fs, e, n=100):
    """(delta, alpha*) of max{fs} at eps = e (Prop. 6 on the definition of the maximum)."""
    with M.workdps(DPS):
        v = M.exp(M.mpf(e))

        def h(a):
            return 1 - v * a - max(f(a) for f in fs)

        xs = [M.mpf(0)] + [M.mpf(10) ** (-40 + 40 * M.mpf(i) / n) for i in range(n + 1)]
        hs = [h(x) for x in xs]
        k = max(range(len(xs)), key=lambda i: hs[i])
        best, at = _golden_max(h, xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)])
        return max((best, at), (hs[k], xs[k]))


def envelope_delta(deltas, e, lo_e, hi_e, n=4000):
    """The lower convex envelope in v = e^eps of m = min_i delta_i at eps = e, from above: the
    lower convex hull of the points (v_k, m(v_k)) of a grid of n + 1 values of eps in
    [lo_e, hi_e] (each chord of the hull lies above the envelope; the gap is second order in
    the step, about 1e-7 here)."""
    with M.workdps(30):
        pts = []
        for k in range(n + 1):
            x = M.mpf(lo_e) + (M.mpf(hi_e) - M.mpf(lo_e)) * k / n
            pts.append((M.exp(x), min(d(x) for d in deltas)))
        hull = []
        for p in pts:  # Andrew's monotone chain, lower side
            while len(hull) >= 2 and ((hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1])
                                      - (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0])) <= 0:
                hull.pop()
            hull.append(p)
        v = M.exp(M.mpf(e))
        for (v1, m1), (v2, m2) in zip(hull, hull[1:], strict=False):
            if v1 <= v <= v2:
                return m1 + (m2 - m1) * (v - v1) / (v2 - v1)
        raise ValueError("eps outside the grid")


class GaussLaplaceProduct:
    """G_1 (x) L_1 = T(N(0,1) x Lap(0,1), N(1,1) x Lap(1,1)) by quadrature (module docstring)."""

    def __init__(self):
        with M.workdps(DPS):
            e1 = M.exp(-1)
            # (loss l of the Laplace part, its P-mass, its Q-mass); the density part separately
            self.atoms = [(M.mpf(-1), M.mpf(1) / 2, e1 / 2), (M.mpf(1), e1 / 2, M.mpf(1) / 2)]

    def tails(self, e):
        """(P(L > e), Q(L > e)): under P the Gaussian part x - 1/2 has x ~ N(0, 1), under Q
        x ~ N(1, 1); the Laplace part's density on (0, 1) is e^-y / 2 under P and
        e^-(1 - y) / 2 under Q, with loss 2y - 1."""
        with M.workdps(DPS):
            e = M.mpf(e)
            p = M.fsum(w * M.ncdf(-(e - l + M.mpf(1) / 2)) for l, w, _ in self.atoms)
            q = M.fsum(w * M.ncdf(-(e - l - M.mpf(1) / 2)) for l, _, w in self.atoms)
            p += M.quad(lambda y: M.exp(-y) / 2 * M.ncdf(-(e - (2 * y - 1) + M.mpf(1) / 2)),
                        [0, M.mpf(1) / 2, 1])
            q += M.quad(lambda y: M.exp(y - 1) / 2 * M.ncdf(-(e - (2 * y - 1) - M.mpf(1) / 2)),
                        [0, M.mpf(1) / 2, 1])
            return p, q

    def delta(self, e):
        """delta(e) = Q(L > e) - e^e P(L > e) (the Neyman--Pearson test of threshold e)."""
        p, q = self.tails(e)
        with M.workdps(DPS):
            return q - M.exp(M.mpf(e)) * p
