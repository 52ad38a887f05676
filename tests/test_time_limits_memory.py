"""The PLD engine's working memory: a composition whose discretised factors would need more
than ``MAX_PLD_BYTES`` is refused before anything is discretised, naming the limit
(numeric/pld_grid.py, ``check_memory``; numeric/pld.py, ``_check_memory``); the refinement
then ends on the finest grid that fitted, with its enclosure and a ToleranceWarning.

1000 discrete Gaussians with sigma_i = 10 + i/10 (benchmarks/RESULTS_census.md) grew to 4.3 GB
at h = 2^-16 before the time limit of 240 s fired; they now stop at h = 2^-14 (0.6 GB).
"""

from __future__ import annotations

import warnings

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import pld, pld_grid

R = sp.Rational


def _dgs(n: int):
    return tuple((ta.DiscreteGaussian(1, 10 + R(i, 10)), 1) for i in range(1, n + 1))


def test_the_plan_counts_each_factors_grid():
    """The estimate is the factors' grid points (as discretise forms them) times
    BYTES_PER_POINT: checked against the grids themselves at a coarse step."""
    leaves = _dgs(3)
    h = 2.0**-8
    models = [pld.leaf_model(f) for f, _ in leaves]
    counted = sum(j_hi - j_lo + 3 for j_lo, j_hi in (pld_grid.grid_range(m, h) for m in models))
    made = sum(len(pld_grid.discretise(m, h).pess.arr) for m in models)
    assert made <= counted <= made + 3 * len(models)


def test_an_oversized_plan_is_refused_at_once_naming_the_limit():
    """200 distinct discrete Gaussians at a fixed step 2^-18: 3e7 grid points, about 1.8 GiB;
    refused before any discretisation (inside a limit of 20 s, which would fire otherwise). The
    PLD route is called itself: ta.delta answers this product by the off-grid route
    (families/discrete_gaussian_offgrid.py)."""
    from tradeoff_algebra.numeric.context import mp
    from tradeoff_algebra.routes.plan import route
    from tradeoff_algebra.routes.product import PLDRoute

    f = ta.Tensor(*[g for g, _ in _dgs(200)])
    with ta.time_limit(20), ta.pld_options(h=2.0**-18):
        with pytest.raises(ta.NumericalError, match="MAX_PLD_BYTES") as e:
            PLDRoute().enclose(f, route(f), "delta", mp.mpf(2))
    assert not isinstance(e.value, ta.TimeLimitExceeded)


def test_the_refinement_ends_on_the_finest_grid_that_fits(monkeypatch):
    """With the limit lowered to 8 MiB (the grids of h = 2^-11 fit, not those of 2^-12),
    delta(1) of PoissonReplace(1, 1/10) (x) PoissonReplace(2, 1/10) at tol 1e-9 stops refining
    where its two grids no longer fit: an enclosure with a ToleranceWarning, which meets the
    one computed without the limit (both contain delta)."""
    f = ta.PoissonReplace(1, R(1, 10)) @ ta.PoissonReplace(2, R(1, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ta.time_limit(60):
            ref = ta.delta(f, 1)
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", 8 * 2**20)
    pld._CACHE.clear()
    with pytest.warns(ta.ToleranceWarning), ta.time_limit(60), ta.pld_options(tol=1e-9):
        v = ta.delta(f, 1)
    assert v.lo <= v.hi and max(v.lo, ref.lo) <= min(v.hi, ref.hi)
    assert v.hi - v.lo > 1e-9 * v.hi
