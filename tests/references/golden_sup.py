"""The sup of a concave function of alpha in [0, 1]: a grid's best value, then golden section.

:func:`grid_golden_sup` is the brute-force Neyman--Pearson step shared by the references of
delta(eps) = sup_alpha psi(alpha) (Dong, Roth & Su, Prop. 6): the best value over a grid is
attained, hence a lower bound of the sup; psi concave puts the maximiser between the best grid
point's two neighbours, where ``steps`` golden-section steps refine it (the best value seen is
again attained). Nothing here imports ``tradeoff_algebra``; arithmetic is the caller's mpmath.
"""

from __future__ import annotations

import mpmath


def grid_golden_sup(psi, xs, steps: int):
    """(grid sup, refined sup) of a concave ``psi`` over the sorted grid ``xs``, refined by
    ``steps`` golden-section steps between the best grid point's neighbours."""
    vals = [psi(x) for x in xs]
    i = max(range(len(xs)), key=lambda j: vals[j])
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
    g = (mpmath.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    pc, pd = psi(c), psi(d)
    best = max(vals[i], pc, pd)
    for _ in range(steps):
        if pc >= pd:
            hi, d, pd = d, c, pc
            c = hi - g * (hi - lo)
            pc = psi(c)
        else:
            lo, c, pc = c, d, pd
            d = lo + g * (hi - lo)
            pd = psi(d)
        best = max(best, pc, pd)
    return vals[i], best
