"""Independent high-precision references for the operator numerics.

Nothing here uses the library's numeric code: the families are written out in raw mpmath
(Phi through erfc, Phi^{-1} through ``mpmath.findroot`` on erfc), inverses come from mpmath's
own root finder, envelopes from an explicit lower convex hull of samples, conjugates from a
dense grid refined by ternary search. Callers set the precision with ``mpmath.workdps``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mp
from references.hull import monotone_chain


def ncdf(x):
    return mpmath.erfc(-mp.mpf(x) / mpmath.sqrt(2)) / 2


def ncdf_inv(p):
    """Phi^{-1}(p) by Newton (mpmath.findroot) on Phi(x) - p from the erfinv start."""
    p = mp.mpf(p)
    x0 = mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1)
    return mpmath.findroot(lambda x: ncdf(x) - p, x0)


def gauss(mu):
    """G_mu(x) = Phi(Phi^{-1}(1 - x) - mu) = Phi(-Phi^{-1}(x) - mu)."""
    mu = mp.mpf(mu)

    def f(x):
        x = mp.mpf(x)
        if x <= 0:
            return mp.one
        if x >= 1:
            return mp.zero
        return ncdf(-ncdf_inv(x) - mu)
    return f


def laplace(mu):
    mu = mp.mpf(mu)

    def f(x):
        x = mp.mpf(x)
        if x < mpmath.exp(-mu) / 2:
            return 1 - mpmath.exp(mu) * x
        if x <= 0.5:
            return mpmath.exp(-mu) / (4 * x)
        return mpmath.exp(-mu) * (1 - x)
    return f


def epsdelta(eps, delta):
    eps, delta = mp.mpf(eps), mp.mpf(delta)

    def f(x):
        x = mp.mpf(x)
        return max(mp.zero, 1 - delta - mpmath.exp(eps) * x, mpmath.exp(-eps) * (1 - delta - x))
    return f


def mix(f, p):
    p = mp.mpf(p)
    return lambda x: p * f(x) + (1 - p) * (1 - mp.mpf(x))


def inverse(f):
    """f^{-1}(x) = inf{t : f(t) <= x} by mpmath's Anderson root finder on f(t) - x."""
    def g(x):
        x = mp.mpf(x)
        if f(mp.zero) <= x:
            return mp.zero
        lo, hi = mp.zero, mp.one
        for _ in range(40):  # coarse bracket by halving, then mpmath's solver
            m = (lo + hi) / 2
            if f(m) > x:
                lo = m
            else:
                hi = m
        try:
            r = mpmath.findroot(lambda t: f(t) - x, (lo, hi), solver="anderson")
            if lo <= r <= hi:
                return r
        except (ValueError, ZeroDivisionError):
            pass
        for _ in range(mp.prec + 20):  # flat stretches: plain bisection
            m = (lo + hi) / 2
            if f(m) > x:
                lo = m
            else:
                hi = m
        return hi
    return g


def group(f, k):
    """1 - (1 - f)^{o k}(x), composing 1 - f k times."""
    def g(x):
        y = mp.mpf(x)
        for _ in range(k):
            y = 1 - f(y)
        return 1 - y
    return g


def lower_hull(xs, ys):
    """Vertices of the lower convex hull of the points, given in increasing x (monotone chain:
    references/hull)."""
    return monotone_chain(list(zip(xs, ys, strict=True)))


def hull_eval(pts, x):
    for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False):
        if x1 <= x <= x2:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    raise ValueError(x)


def pl_min_envelope(knots_f, knots_g):
    """Exact lower convex envelope of min{F, G} for piecewise-linear F, G on [0, 1] given by
    knot lists [(x, y), ...] with Fraction entries; returns the hull's vertices."""
    def ev(knots, x):
        for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
            if x1 <= x <= x2:
                return y1 if x2 == x1 else y1 + (y2 - y1) * (x - x1) / (x2 - x1)
        raise ValueError(x)
    xs = sorted({x for x, _ in knots_f} | {x for x, _ in knots_g})
    pts = set(xs)
    for a, b in zip(xs, xs[1:], strict=False):  # crossings inside each common linear piece
        da, db = ev(knots_f, a) - ev(knots_g, a), ev(knots_f, b) - ev(knots_g, b)
        if da * db < 0:
            pts.add(a + (b - a) * da / (da - db))
    xs = sorted(pts)
    return lower_hull(xs, [min(ev(knots_f, x), ev(knots_g, x)) for x in xs])


def pl_inverse_knots(knots):
    """Knots of the inverse of a decreasing piecewise-linear trade-off function: the mirrored
    graph, with the vertical stretches of f^{-1} where f is flat (and f(0) < 1)."""
    mirrored = sorted((y, x) for x, y in knots)
    out = []
    if mirrored[0][0] > 0:
        out.append((Fraction(0), mirrored[0][1]))
    out.extend(mirrored)
    if out[-1][0] < 1:
        out.append((Fraction(1), Fraction(0)))
    # a flat stretch f = c on [x1, x2] mirrors to a jump at c: keep the lower value (the inf)
    clean = []
    for x, y in out:
        if clean and clean[-1][0] == x:
            clean[-1] = (x, min(clean[-1][1], y))
        else:
            clean.append((x, y))
    return clean


def conjugate(f, y, n=400, dps_extra=10):
    """sup_{alpha in [0,1]} {y alpha - f(alpha)}: grid of n + 1 points, then ternary search."""
    y = mp.mpf(y)
    psi = lambda t: y * t - f(t)  # noqa: E731
    ts = [mp.mpf(i) / n for i in range(n + 1)]
    vals = [psi(t) for t in ts]
    i = max(range(n + 1), key=lambda j: vals[j])
    lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, n)]
    for _ in range(int(mp.prec * 1.8)):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if psi(m1) < psi(m2):
            lo = m1
        else:
            hi = m2
    return max(psi((lo + hi) / 2), vals[i])
