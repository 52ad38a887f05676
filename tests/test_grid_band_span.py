"""The first grid of few levels in ``routes/grid_band`` ends past their minimisers
(``_span``): the band of G_1's profile at two levels holds the closed-form power (mpmath at 30
digits, Dong, Roth & Su, Eq. (6): 1 - G_mu(alpha) = Phi(mu - Phi^{-1}(1 - alpha))), meets the
tolerance, and asks delta at no eps beyond the span."""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.grid_band import _span, grid_band


class _GaussianProfile:
    """delta(eps) of G_mu as Arb balls: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""

    def __init__(self, mu: float) -> None:
        self.mu = mu
        self.asked: list[float] = []

    def delta(self, eps: float) -> arb:
        self.asked.append(eps)
        m, e = arb(self.mu), arb(eps)

        def phi(z):
            return (-z / arb(2).sqrt()).erfc() / 2

        return phi(-e / m + m / 2) - e.exp() * phi(-e / m - m / 2)


def test_few_levels_band_within_the_span():
    d = _GaussianProfile(1.0)
    x = np.array([0.01, 0.3])
    end = math.log(2 / 1e-9) + 1
    b = grid_band([d], x, 1e-9, end)
    assert max(d.asked) <= _span(x) + 1e-12 < end
    with mp.workdps(30):
        for i, a in enumerate(x):
            ref = mp.ncdf(1 - mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)))  # Phi^{-1}(1 - a)
            assert b.power_lo[i] <= ref <= b.power_hi[i]
            assert b.power_hi[i] - b.power_lo[i] <= 1e-9 * b.power_hi[i]


def test_a_power_near_one_asks_the_far_end():
    """G_8 at 0.01: 1 - f = 1 - 7e-9, below what h_2's bound past the span proves (1 - (1 -
    alpha) e^-span): the far end is asked once, and the band meets the tolerance."""
    d = _GaussianProfile(8.0)
    x = np.array([0.01, 0.02])
    end = math.log(2 / 1e-9) + 1
    b = grid_band([d], x, 1e-9, end)
    assert end in d.asked
    with mp.workdps(30):
        for i, a in enumerate(x):
            ref = mp.ncdf(8 - mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)))
            assert b.power_lo[i] <= ref <= b.power_hi[i]
            assert b.power_hi[i] - b.power_lo[i] <= 1e-9 * b.power_hi[i]


def test_large_eps_grid_points_raise_no_overflow_warning():
    """The band's grid of eps can reach past 709 (delta(200) of Max(G_1, G_1 (x) L_1) asks for
    powers at levels whose grid does), where e^eps overflows a float: +inf there is never the
    minimiser, and no numpy RuntimeWarning may leak to the caller (it did, eleven times in
    that call). The local choice of grid points keeps the minimisers and both ends."""
    import warnings

    from tradeoff_algebra.routes.grid_band import NEAR, _near
    grid = [float(e) for e in np.linspace(0, 800, 8 * NEAR)]
    known = {e: arb(math.exp(-e / 2)) for e in grid}  # (a decreasing profile)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = _near(grid, known, np.array([1e-3, 0.5]))
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert kept[0] == grid[0] and kept[-1] == grid[-1] and len(kept) < len(grid)


def test_largest_first_asks_each_grid_from_its_largest_eps():
    """A direction with ``largest_first`` is asked each grid's points from the largest eps
    down (a route's cached certificate for a small delta then serves the rest); the band is
    the same balls' band, and holds G_1's closed-form power."""
    from tradeoff_algebra.routes.grid_band import profile_grid

    plain, first = _GaussianProfile(1.0), _GaussianProfile(1.0)
    first.largest_first = True
    eps = [0.0, 0.5, 2.0, 1.0, 3.5]
    a, b = profile_grid([plain], eps), profile_grid([first], eps)
    assert plain.asked == eps and first.asked == sorted(eps, reverse=True)
    assert all(x.mid() == y.mid() and x.rad() == y.rad() for x, y in zip(a, b, strict=True))
    x = np.array([0.01, 0.3])
    band = grid_band([first], x, 1e-9, math.log(2 / 1e-9) + 1)
    with mp.workdps(30):
        for i, al in enumerate(x):
            ref = mp.ncdf(1 - mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(al)))
            assert band.power_lo[i] <= ref <= band.power_hi[i]
            assert band.power_hi[i] - band.power_lo[i] <= 1e-9 * band.power_hi[i]
