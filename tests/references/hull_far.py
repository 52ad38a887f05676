"""The far constant C2 of the symmetric hull C_p(G_mu) (families/gaussian_sampled_hull.py): C2 =
2 |g'(0)| + int_0^oo |g''(y)| 2 cosh((c + 1/2) y) dy, g(y) = rho(y) e^{-y/2}, rho the density of
the loss L = log(1 - p + p e^{mu x - mu^2/2}) under A = (1 - p) N(0, 1) + p N(mu, 1) on y > 0
(Dong, Roth & Su, Def. 6 and Eq. (13)). Computed here in the loss variable y from the density's
definition (the library integrates a closed form of the derivatives in x): the derivatives of g
by mpmath's numerical differentiation, the sign changes of g'' found on a grid and refined by a
root finder, the quadrature split there. Nothing here imports ``tradeoff_algebra``."""

from __future__ import annotations

from fractions import Fraction

import mpmath


def far_constant_reference(mu, p, c: float, dps: int = 30):
    """C2 at (mu, p, c) as an mpf (about ``dps`` - 10 correct digits)."""
    ctx = mpmath.mp.clone()
    ctx.dps = dps

    def num(v):
        v = Fraction(v)
        return ctx.mpf(v.numerator) / v.denominator

    m, q, e = num(mu), num(p), ctx.mpf(c) + ctx.mpf(1) / 2

    def g(y):  # rho_A(y) e^{-y/2}, x(y) the inverse of the loss
        x = (ctx.log((ctx.expm1(y) + q) / q) + m * m / 2) / m
        dx = ctx.exp(y) / (m * (ctx.expm1(y) + q))
        return ((1 - q) * ctx.npdf(x) + q * ctx.npdf(x - m)) * dx * ctx.exp(-y / 2)

    def g2(y):
        return ctx.diff(g, y, 2)

    ys = [ctx.mpf(i) / 20 for i in range(1, 400)]
    roots = [ctx.findroot(g2, (a, b), solver="anderson")
             for a, b in zip(ys[:-1], ys[1:], strict=True) if g2(a) * g2(b) < 0]
    cuts = sorted(set([ctx.zero, *roots, ctx.mpf(1), ctx.mpf(4), ctx.mpf(12), ctx.mpf(40)]))
    body = ctx.quad(lambda y: abs(g2(y)) * 2 * ctx.cosh(e * y), [*cuts, ctx.inf])
    return 2 * abs(ctx.diff(g, 0, 1, direction=1)) + body
