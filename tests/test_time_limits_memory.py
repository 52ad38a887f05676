"""The PLD engine's working memory: a composition whose discretised factors would need more
than ``MAX_PLD_BYTES`` is refused before anything is discretised, naming the limit
(numeric/pld_grid.py, ``check_memory``; numeric/pld.py, ``_check_memory``), and one whose
transforms would is refused once its window is known, before they are taken
(numeric/pld_compose.py); the refinement then ends on the finest grid that fitted, with its
enclosure and a ToleranceWarning naming the limit.

1000 discrete Gaussians with sigma_i = 10 + i/10 (benchmarks/RESULTS_census.md) grew to 4.3 GB
at h = 2^-16 before the time limit of 240 s fired; they now stop at h = 2^-14 (0.6 GB).
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import sympy as sp
from references.routes import decline_inversion

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import pld, pld_compose, pld_grid

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


# -- the whole working set: discretisation, transforms, cached laws ------------------------------
#
# The byte counts of the plan (pld_grid.DISCRETISE_BYTES, BYTES_PER_POINT; pld_compose.FFT_BYTES,
# SIDE_BYTES) are checked against tracemalloc, which sees every numpy array the engine allocates
# (an independent measurement: the plan is arithmetic on grid sizes). PoissonReplace(1, 1/10)^3
# at tol 1e-9 peaked at 2.6 GiB resident when only the factors' grids were counted (its
# composition at h = 2^-18 runs on 2^23 transform bins).


def _traced_peak(fn):
    """fn() and the peak of the memory tracemalloc saw allocated during it (bytes)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("leaf", [ta.PoissonReplace(1, R(1, 10)), ta.G(1), ta.Laplace(1),
                                  ta.DiscreteGaussian(1, R(101, 10))],
                         ids=["PoissonReplace", "G", "Laplace", "DiscreteGaussian"])
def test_a_discretisation_stays_within_its_plan(leaf):
    """The peak of one discretisation is at most DISCRETISE_BYTES per grid point."""
    model = pld.leaf_model(leaf)
    model.cdf(np.zeros(4), "P")  # (its first call may import and cache)
    h = 2.0**-13
    j_lo, j_hi = pld_grid.grid_range(model, h)
    _, peak = _traced_peak(lambda: pld_grid.discretise(model, h))
    assert peak <= pld_grid.DISCRETISE_BYTES * (j_hi - j_lo + 3)


@pytest.mark.parametrize("case", ["one factor cubed", "three distinct factors", "a power 400"])
def test_a_composition_stays_within_its_plan(case):
    """The peak of a composition (both sides, the factors held) is at most the plan it checks
    against MAX_PLD_BYTES once its window is known (handed to make_room)."""
    h = 2.0**-13

    def fac(f):
        return pld_grid.discretise(pld.leaf_model(f), h)
    facs = {"one factor cubed": lambda: [(fac(ta.PoissonReplace(1, R(1, 10))), 3)],
            "three distinct factors": lambda: [(fac(ta.G(1)), 1), (fac(ta.Laplace(1)), 2),
                                               (fac(ta.PoissonReplace(1, R(1, 10))), 2)],
            "a power 400": lambda: [(fac(ta.Mix(ta.G(1), R(1, 100))), 400)]}[case]()
    planned = []
    c, peak = _traced_peak(lambda: pld_compose.compose(facs, make_room=planned.append))
    assert len(planned) == 1 and planned[0] >= pld_compose.FFT_BYTES * c.pess.info["N"]
    assert peak <= planned[0]


def test_a_composition_beyond_the_limit_is_refused_before_its_transforms(monkeypatch):
    """A limit that the factors and their parts fit but the transforms do not: GridTooLarge
    naming MAX_PLD_BYTES, raised before the transforms take their memory (the peak: the
    parts, PARTS_BYTES + PART_PEAK_BYTES per grid point of the one factor)."""
    model = pld.leaf_model(ta.PoissonReplace(1, R(1, 10)))
    fa = pld_grid.discretise(model, 2.0**-13)
    held = fa.pess.arr.nbytes + fa.opt.arr.nbytes
    parts = (pld_grid.PARTS_BYTES + pld_grid.PART_PEAK_BYTES) * max(len(fa.pess.arr),
                                                                    len(fa.opt.arr))
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", held + parts)
    with pytest.raises(pld_grid.GridTooLarge, match="MAX_PLD_BYTES") as e:
        pld_compose.compose([(fa, 3)])
    assert e.value.limit == "MAX_PLD_BYTES" and "FFT size" in str(e.value)
    _, peak = _traced_peak(lambda: _refused(lambda: pld_compose.compose([(fa, 3)])))
    assert peak <= parts


def _refused(fn):
    try:
        fn()
    except pld_grid.GridTooLarge:
        return
    raise AssertionError("not refused")


def test_the_refinement_stops_at_the_memory_limit_with_a_warning_naming_it(monkeypatch):
    """eps(1e-10) of PoissonReplace(1, 1/10)^3 at tol 1e-9 (unreachable: the refinement would
    go to h = 2^-18) with MAX_PLD_BYTES lowered to 4 MiB: a guaranteed enclosure with a
    ToleranceWarning naming MAX_PLD_BYTES, the engine's arrays within the limit (the traced
    peak also holds the call's own objects: at most 16 MiB here), the enclosure meeting the
    one of a fixed coarse grid (both contain eps)."""
    decline_inversion(monkeypatch)  # (the Laplace inversion certifies it now: the engine's test)
    f = ta.PoissonReplace(1, R(1, 10)) ** 3
    with ta.pld_options(h=2.0**-10):
        coarse = ta.epsilon(f, "1e-10")
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", 4 * 2**20)
    pld._CACHE.clear()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with ta.pld_options(tol=1e-9), ta.time_limit(60):
            v, peak = _traced_peak(lambda: ta.epsilon(f, "1e-10"))
    msgs = [str(w.message) for w in seen if issubclass(w.category, ta.ToleranceWarning)]
    assert any("MAX_PLD_BYTES" in m for m in msgs), msgs
    assert max(v.lo, coarse.lo) <= min(v.hi, coarse.hi) and v.hi - v.lo > 1e-9 * v.hi
    assert peak <= 4 * 2**20 + 16 * 2**20


def test_a_first_grid_beyond_the_limit_is_refused_at_once(monkeypatch):
    """Even the first grid (h = 2^-10) needs more than a limit of 1 MiB: refused at once with
    a NumericalError naming MAX_PLD_BYTES, no enclosure."""
    decline_inversion(monkeypatch)
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", 2**20)
    pld._CACHE.clear()
    with ta.time_limit(20), pytest.raises(ta.NumericalError, match="MAX_PLD_BYTES") as e:
        ta.epsilon(ta.PoissonReplace(1, R(1, 10)) ** 3, "1e-10")
    assert not isinstance(e.value, ta.TimeLimitExceeded)


def test_cached_laws_make_room_for_a_composition(monkeypatch):
    """The laws kept in the cache count against MAX_PLD_BYTES: a composition's plan drops the
    oldest until they fit beside it."""
    monkeypatch.setattr(pld, "_CACHE", {})
    f = ta.PoissonReplace(1, R(1, 10))
    for h in (2.0**-9, 2.0**-10, 2.0**-11):
        pld._composed(((f, 2),), h, pld_grid.DEFAULT_TAIL, 0.0, False)
    held = sum(map(pld._law_bytes, pld._CACHE.values()))
    assert len(pld._CACHE) == 3
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", held + 1000)
    pld._make_room(held // 8)
    assert 0 < len(pld._CACHE) < 3
    assert sum(map(pld._law_bytes, pld._CACHE.values())) + held // 8 <= held + 1000


def test_the_tilt_search_holds_its_deep_supports_within_the_limit(monkeypatch):
    """The search of a tilt discretises the factors down to tails of 1e-300 (wider than the
    composition's): on a step coarsened by powers of 4 until they fit in MAX_PLD_BYTES."""
    leaf = ta.PoissonReplace(1, R(1, 10))
    rest = ((leaf, 3),)
    h = 2.0**-16
    assert pld._tilt_step(rest, h) == h  # (the default limit holds it)
    monkeypatch.setattr(pld_grid, "MAX_PLD_BYTES", 2**20)
    h2 = pld._tilt_step(rest, h)
    j_lo, j_hi = pld_grid.grid_range(pld.leaf_model(leaf), h2, 1e-300)
    assert h2 > h and pld_grid.memory_plan([j_hi - j_lo + 3]) <= 2**20
    j_lo, j_hi = pld_grid.grid_range(pld.leaf_model(leaf), h2 / 4, 1e-300)
    assert pld_grid.memory_plan([j_hi - j_lo + 3]) > 2**20  # (the finest that fits)
