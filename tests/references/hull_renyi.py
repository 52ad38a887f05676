"""References for the Renyi divergences of the subsampling hull C_p(f) (Dong, Roth & Su,
Def. 6, Eq. (13)) of a symmetric pair with a monotone likelihood ratio, and Wang, Balle &
Kasiviswanathan's Thm. 9, both in mpmath contexts of their own.

``hull_renyi``: for f = T(P0, Q1) symmetric, w = q1/p0 increasing in x, w > 1 exactly for
x > t, and L = 1 - p + p w, the hull is the trade-off of a pair made of P0 against
(1 - p) P0 + p Q1 on {x > t}, its mirror image, and a common part of mass
1 - P0(x > t) - Q0(x > t) (Q0 = (1 - p) P0 + p Q1), so

    D_a(C_p(f)) = log( int_t^oo p0 (L^a + L^(1-a)) dx + 1 - P0(x > t) - Q0(x > t) )/(a - 1),

by mpmath quadrature at 40 digits (both directions are equal). ``wbk`` is Thm. 9's
log A(a)/(a - 1) at an integer a from the base's eps(j) (a callable), at 50 digits, with the
Cor. 10 interpolation at a fractional order; ``gauss_renyi`` and ``laplace_renyi`` are the
bases' eps(j) it takes.
"""

from __future__ import annotations

import mpmath

from .contexts import mp_context as _ctx

__all__ = ["hull_renyi", "gaussian_hull", "laplace_hull", "wbk", "gauss_renyi", "laplace_renyi"]


def hull_renyi(p0, q1, p0_tail, q1_tail, t, a, p, cuts, dps: int = 40):
    """D_a(C_p(T(P0, Q1))) (module docstring): densities ``p0(c, x)``, ``q1(c, x)``, tails
    ``p0_tail(c, t) = P0(x > t)``, ``q1_tail(c, t)``, quadrature points ``cuts`` above t."""
    c = _ctx(dps)
    p, a, t = c.mpf(p), c.mpf(a), c.mpf(t)

    def g(x):
        L = 1 - p + p * q1(c, x) / p0(c, x)
        return p0(c, x) * (L**a + L ** (1 - a))

    pts = sorted({t, *[c.mpf(x) for x in cuts if x > t]})
    integral = c.quad(g, [*pts, c.inf])
    P, Q1 = p0_tail(c, t), q1_tail(c, t)
    return c.log(integral + 1 - P - ((1 - p) * P + p * Q1)) / (a - 1)


def gaussian_hull(mu, p, a, dps: int = 40):
    """D_a(C_p(G_mu)): P0 = N(0, 1), Q1 = N(mu, 1), t = mu/2."""
    mu_f = float(mu)
    return hull_renyi(lambda c, x: c.npdf(x), lambda c, x: c.npdf(x - c.mpf(mu)),
                      lambda c, t: c.ncdf(-t), lambda c, t: c.ncdf(c.mpf(mu) - t),
                      mpmath.mpf(mu) / 2, a, p,
                      [mu_f / 2 + 4, float(a) * mu_f, float(a) * mu_f + 8, 30], dps)


def laplace_hull(mu, p, a, dps: int = 40):
    """D_a(C_p(L_mu)): P0 = Lap(0, 1), Q1 = Lap(mu, 1), w = e^{|x| - |x - mu|}, t = mu/2."""
    mu_f = float(mu)

    def lap(c, x, m=0):
        return c.exp(-abs(x - m)) / 2

    def tail(c, t, m=0):  # P(X > t) for Lap(m, 1)
        return c.exp(-(t - m)) / 2 if t >= m else 1 - c.exp(t - m) / 2

    return hull_renyi(lambda c, x: lap(c, x), lambda c, x: lap(c, x, c.mpf(mu)),
                      lambda c, t: tail(c, t), lambda c, t: tail(c, t, c.mpf(mu)),
                      mpmath.mpf(mu) / 2, a, p, [mu_f, mu_f + 20, mu_f + 60], dps)


def wbk(eps, p, a, dps: int = 50):
    """Thm. 9's log A(a)/(a - 1) with min{2, .} = 2 (eps(oo) = oo), ``eps(c, j)`` the base's
    D_j; at a fractional a the Cor. 10 interpolation of (a - 1) D_a between floor and ceil."""
    c = _ctx(dps)
    p = c.mpf(p)

    def K(k):
        if k == 1:
            return c.zero
        e2 = eps(c, 2)
        s = 1 + p**2 * c.binomial(k, 2) * min(4 * c.expm1(e2), 2 * c.exp(e2))
        s += c.fsum(2 * p**j * c.binomial(k, j) * c.exp((j - 1) * eps(c, j))
                    for j in range(3, k + 1))
        return c.log(s)

    a = c.mpf(a)
    fl = int(c.floor(a))
    if a == fl:
        return K(fl) / (a - 1)
    t = a - fl
    return ((1 - t) * K(fl) + t * K(fl + 1)) / (a - 1)


def _pq(mu):
    """(numerator, denominator) of a Fraction or a SymPy Rational, as ints."""
    if hasattr(mu, "numerator"):
        return int(mu.numerator), int(mu.denominator)
    return int(mu.p), int(mu.q)


def gauss_renyi(mu):
    """D_j(G_mu) = j mu^2 / 2, as ``eps(c, j)`` in the context c (mu rational)."""
    n, d = _pq(mu)
    return lambda c, j: j * c.mpf(n) ** 2 / (2 * c.mpf(d) ** 2)


def laplace_renyi(mu):
    """D_j(Lap(0, 1) || Lap(mu, 1)) (Mironov, Prop. 6) for j > 1, as ``eps(c, j)`` (mu
    rational)."""
    n, d = _pq(mu)

    def eps(c, j):
        m = c.mpf(n) / d
        return c.log(c.mpf(j) / (2 * j - 1) * c.exp((j - 1) * m)
                     + c.mpf(j - 1) / (2 * j - 1) * c.exp(-j * m)) / (j - 1)
    return eps
