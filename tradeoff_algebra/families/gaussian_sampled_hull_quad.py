"""Gauss-Legendre panels for the density part of C_p(G_mu)'s loss law
(:mod:`.gaussian_sampled_hull`): D(c + it) = int_0^U F(u) du + tail, u = x - mu/2,

    F(u) = phi(x) (w^{1+c+it} + w^{-c-it}) = P(u) e^{it l(u)} + N(u) e^{-it l(u)},
    P = phi w^{1+c}, N = phi w^{-c}, l = log w, w = 1 - p + p e^{mu u},

so on fixed nodes u_i with weights W_i, D(c + it) ~ sum W_i [(P + N) cos(t l) + i (P - N) sin(t l)]:
the node data do not depend on t, and each t costs one sine and cosine per node (Arb's adaptive
integration, ``acb.integral``, costs several times more per t).

The error (Trefethen, "Approximation Theory and Approximation Practice", Thm. 19.3, where I_n
is the (n + 1)-point rule): on a panel of half-width ell, n-point Gauss-Legendre quadrature of a
function analytic in the Bernstein ellipse E_rho (scaled to the panel) and bounded by M there
errs by at most (64/15) ell M rho^{-2(n-1)} / (rho^2 - 1). The ellipse lies in the box
|Re u - m| <= ell (rho + 1/rho)/2, |Im u| <= ell (rho - 1/rho)/2 =: ell b, and mu ell b <= 1 <
pi/2 keeps Re w > 0 there (so l is analytic), with |arg w| <= mu |Im u| (the module of
``families/gaussian_sampled.py``), hence |w^{it}| <= e^{|t| mu ell b} and M <= M_0 e^{|t| mu ell
b}, M_0 a bound of |phi| (|w|^{1+c} + |w|^{-c}) on the box from real intervals
(:meth:`Panels._box_bound`). A level serves |t| <= tau / (mu ell b) (tau = :data:`_TAU`); finer
levels halve ell. Panels where 2 ell M_0 (a bound of |int F| on the real segment) is below the
tolerance's share are left out and that bound added. The tail beyond U is the law's bound
(:meth:`~.gaussian_sampled_hull.SampledGaussianHullLaw._tail`).
"""

from __future__ import annotations

import math

from flint import acb, arb, ctx

from ..numeric.cf_laws import log_sqrt_2pi, pm, upper

__all__ = ["Panels", "panels_for"]

#: The Bernstein ellipse's parameter rho and its half-height factor b = (rho - 1/rho) / 2.
_RHO = 4
_B = (_RHO - 1 / _RHO) / 2
_A = (_RHO + 1 / _RHO) / 2
#: A level serves |t| <= _TAU / (mu ell b): its error bound grows by at most e^_TAU there.
_TAU = 6.0
_MAX_DEGREE = 72
_MAX_LEVEL = 6
_NODES: dict = {}


def _gauss_legendre(n: int) -> list[tuple[arb, arb]]:
    """Nodes and weights of n-point Gauss-Legendre quadrature on (-1, 1), Arb balls at the
    working precision (``arb.legendre_p_root``)."""
    key = (n, ctx.prec)
    if key not in _NODES:
        if len(_NODES) > 256:
            _NODES.clear()
        _NODES[key] = [arb.legendre_p_root(n, k, weight=True) for k in range(n)]
    return _NODES[key]


class Panels:
    """The node data of one level (panel half-width ell) at one c and the working precision,
    for |t| <= ``t_max``; ``None``-like (``ok`` False) where a bound is not finite."""

    def __init__(self, law, c: float, level: int, rel_bits: int, log_scale: float) -> None:
        mu, q = law._balls()
        mu_f = law.mu
        self.ell = min(0.25, 1.0 / (mu_f * _B)) / 2**level
        self.growth = mu_f * self.ell * _B  # |t| mu ell b = growth |t|
        self.t_max = _TAU / self.growth
        tol = arb(2) ** (-rel_bits) * arb(log_scale).exp()
        x_end = law._x_end(c, rel_bits + 8)
        n_panels = math.ceil((x_end - law.mu / 2) / (2 * self.ell))
        c_arb = arb(c)
        self.tail = law._tail(c_arb, arb(law.mu / 2 + 2 * self.ell * n_panels), 0)
        share = tol / (8 * n_panels)
        ls = log_sqrt_2pi()
        one_q, half, ell = 1 - q, mu / 2, arb(self.ell)  # (ell: a float, exact)
        rho2 = arb(_RHO) ** 2
        self.dropped = arb(0)
        self.k_sum = arb(0)  # sum of the panels' error constants (times e^{growth |t|})
        self.a: list[arb] = []
        self.b: list[arb] = []
        self.lw: list[arb] = []
        self.ok = True
        for j in range(n_panels):
            m = ell * (2 * j + 1)
            m0 = self._box_bound(m, mu, q, c_arb)
            if not m0.is_finite():
                self.ok = False
                return
            if 2 * ell * m0 < share:  # the whole panel: |int F| <= 2 ell sup |F| on the segment
                self.dropped += 2 * ell * m0
                continue
            # the degree: (64/15) ell M0 e^{tau} rho^{-2(n-1)} / (rho^2 - 1) <= share
            k = 64 * ell * m0 * arb(_TAU).exp() / (15 * (rho2 - 1))
            ratio = upper(k / share)
            n = max(4, 1 + math.ceil(math.log(max(ratio, 1.0)) / (2 * math.log(_RHO))))
            if n > _MAX_DEGREE:
                self.ok = False
                return
            self.k_sum += 64 * ell * m0 * arb(_RHO) ** (-2 * (n - 1)) / (15 * (rho2 - 1))
            for xi, wi in _gauss_legendre(n):
                u = m + ell * xi
                xx = u + half
                lw = (one_q + q * (mu * u).exp()).log()
                lp = -(xx * xx) / 2 - ls
                p_, n_ = (lp + (1 + c_arb) * lw).exp(), (lp - c_arb * lw).exp()
                w = ell * wi
                self.a.append(w * (p_ + n_))
                self.b.append(w * (p_ - n_))
                self.lw.append(lw)

    def _box_bound(self, m: arb, mu: arb, q: arb, c: arb) -> arb:
        """M_0 >= |phi(x)| (|w|^{1+c} + |w|^{-c}) on the box |Re u - m| <= ell a, |Im u| <= ell b
        (x = u + mu/2), from real intervals: with Y = e^{mu Re u} and |Im u| <= ell b,
        |w| <= 1 - p + p Y, |w| >= (1 - p + p Y) cos(mu ell b / 2) (the module of
        ``gaussian_sampled``), |phi(x)| = phi(Re x) e^{(Im x)^2 / 2}."""
        ell = arb(self.ell)
        half_w, half_h = ell * _A, ell * _B
        lo, hi = m - half_w, m + half_w
        w_hi = 1 - q + q * (mu * hi).exp()
        w_lo = (1 - q + q * (mu * lo).exp()) * (mu * half_h / 2).cos()
        x_lo, x_hi = lo + mu / 2, hi + mu / 2
        if x_lo > 0:  # the distance of [x_lo, x_hi] from 0 (0 where undecided: phi's top)
            nearest = x_lo
        elif x_hi < 0:
            nearest = -x_hi
        else:
            nearest = arb(0)
        phi = (-(nearest * nearest) / 2 + half_h * half_h / 2 - log_sqrt_2pi()).exp()
        return phi * ((1 + c) * w_hi.log()).exp() + phi * (-c * w_lo.log()).exp()

    def density(self, t: arb) -> acb:
        """D(c + it) for |t| <= t_max, a certified ball."""
        re, im = arb(0), arb(0)
        for a, b, lw in zip(self.a, self.b, self.lw, strict=True):
            s, co = (t * lw).sin_cos()
            re += a * co
            im += b * s
        err = self.k_sum * (arb(self.growth) * abs(t)).exp() + self.dropped + self.tail
        r = pm(err)
        return acb(re + r, im + r)


def panels_for(law, c: float, t: float, rel_bits: int, log_scale: float) -> Panels | None:
    """The law's kept panels for (c, the working precision, the level serving |t|), or None
    (a level beyond :data:`_MAX_LEVEL`, or bounds that are not finite: the caller integrates
    adaptively)."""
    base = min(0.25, 1.0 / (law.mu * _B))
    level = 0
    while _TAU / (law.mu * base / 2**level * _B) < abs(t):
        level += 1
        if level > _MAX_LEVEL:
            return None
    key = (c, ctx.prec, rel_bits, level)
    cache = law._panels
    pan = cache.get(key)
    if pan is None:
        if len(cache) >= 64:
            cache.pop(next(iter(cache)))
        pan = cache[key] = Panels(law, c, level, rel_bits, log_scale)
    return pan if pan.ok else None
