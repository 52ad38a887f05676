"""Brute-force privacy profiles of maxima of piecewise-linear trade-off functions, by lines.

A convex piecewise-linear trade-off function is the maximum of the lines through its segments
(and the line 0), so max{f_1, ..., f_n} is the maximum of the union of their lines, and
Mix(f, p) = p f + (1 - p) Id the maximum of the mixed lines. psi(alpha) = 1 - f(alpha) - v alpha
(v = e^eps) is then piecewise linear with its breakpoints among the pairwise crossings of the
lines, so the supremum delta(eps) (Dong, Roth & Su, Prop. 6: the Neyman-Pearson profile) is
psi's maximum over {0, 1, every crossing in [0, 1]}, and a grid of levels is added as a check.
Exact in Fraction where the lines have rational coefficients (eps0 = log of a rational), else in
mpmath at the caller's precision. Nothing here imports tradeoff_algebra.
"""

from __future__ import annotations

from fractions import Fraction


def epsdelta_lines(E0, d0, one=Fraction(1)):
    """The lines (a, b) (value a + b alpha) of f_{eps0, delta0}, E0 = e^eps0 (Eq. (4))."""
    return [(one - d0, -E0), ((one - d0) / E0, -one / E0), (one - one, one - one)]


def knots_lines(knots, one=Fraction(1)):
    """The lines through consecutive knots (x, y) of a convex piecewise-linear function."""
    out = [(one - one, one - one)]
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        b = (y1 - y0) / (x1 - x0)
        out.append((y0 - b * x0, b))
    return out


def mix_lines(lines, p, one=Fraction(1)):
    """The lines of p f + (1 - p)(1 - alpha) for f the maximum of ``lines``."""
    return [(p * a + (one - p), p * b - (one - p)) for a, b in lines]


def value(lines, alpha):
    return max(a + b * alpha for a, b in lines)


def breakpoints(lines, grid: int = 64, one=Fraction(1)):
    """0, 1, every pairwise crossing of the lines in (0, 1), and ``grid`` equal steps."""
    zero = one - one
    pts = {zero, one}
    pts.update(one * k / grid for k in range(1, grid))
    for i, (a1, b1) in enumerate(lines):
        for a2, b2 in lines[i + 1:]:
            if b1 != b2:
                x = (a2 - a1) / (b1 - b2)
                if zero < x < one:
                    pts.add(x)
    return sorted(pts)


def brute_delta(lines, v, grid: int = 64, one=Fraction(1)):
    """sup_alpha {1 - max(lines)(alpha) - v alpha} over :func:`breakpoints`, clipped at 0."""
    zero = one - one
    return max(zero, max(one - value(lines, x) - v * x for x in breakpoints(lines, grid, one)))
