"""ta.sweep: a grid evaluated serially, on a process pool and on a Dask cluster gives the same
table bit for bit (apart from the time column); failures are rows; the time limit, the
progress bar and the table type degrade gracefully; importing the package imports none of
pandas, dask or tqdm."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import types
from concurrent.futures import ProcessPoolExecutor

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.sweep import COLUMNS, grid_points, sweep


def eps_of_gaussian(mu, delta):
    """A work unit: eps(delta) of G_mu (top level: it pickles by reference)."""
    return ta.epsilon(ta.G(mu), delta, dps=20)


def delta_of_laplace(mu, eps):
    if mu == 0:
        raise ValueError("mu = 0 is refused here on purpose")
    return ta.delta(ta.Laplace(mu), eps, dps=20)


def slow_unit(steps):
    """The power at 1/100 of C_{1/10}(G_1) composed ``steps`` times at tol 1e-9: seconds of
    work at 10 steps (the cells' finest grids), cut by the time limit. (At the default
    tolerance it now takes 0.05 s, the limit itself; eps of DP-SGD, used before, milliseconds.)"""
    with ta.pld_options(tol=1e-9):  # (mu = 101/100: no other test asks this tree, whose
        # answers a worker would hold)
        return ta.roc(ta.C(sp.Rational(1, 10), ta.G(sp.Rational(101, 100))) ** steps,
                      sp.Rational(1, 100))


GRID = {"mu": [sp.Rational(1, 2), 1, 2], "delta": [sp.Rational(1, 10**5), sp.Rational(1, 100)]}


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_grid_points_orders():
    pts = grid_points({"a": [1, 2], "b": [3, 4, 5]})
    assert pts[:3] == [{"a": 1, "b": 3}, {"a": 1, "b": 4}, {"a": 1, "b": 5}] and len(pts) == 6
    assert grid_points([{"x": 1}, {"x": 2, "y": 0}]) == [{"x": 1}, {"x": 2, "y": 0}]
    for bad, name in [({"a": 3}, "grid\\['a'\\]"), ("ab", "grid"), ([1, 2], "grid\\[0\\]"),
                      ({"not valid": [1]}, "grid")]:
        with pytest.raises(ta.InvalidParameter, match=name):
            grid_points(bad)


def test_serial_rows_hold_the_values():
    rows = sweep(eps_of_gaussian, GRID, progress=False, frame=False)
    assert len(rows) == 6 and list(rows[0]) == ["mu", "delta", *COLUMNS]
    for r in rows:
        v = eps_of_gaussian(r["mu"], r["delta"])  # recomputed: the same Value
        assert r["value"] == v and r["route"] == v.route and r["error"] is None
        lo, hi = v.interval() if v.is_certain else (v.lo, v.hi)
        assert r["lo"] <= lo and hi <= r["hi"]  # rounded outward to floats
        assert r["width"] == r["hi"] - r["lo"] and isinstance(r["seconds"], float)
        with mpmath.workdps(30):  # eps_G(delta) by its profile (Dong, Roth & Su, Cor. 1)
            mu = mpmath.mpf(sp.Float(r["mu"], 30))
            e = mpmath.mpf(r["lo"] + r["hi"]) / 2

            dlt = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
            assert abs(dlt - mpmath.mpf(sp.Float(r["delta"], 30))) < 1e-12


def test_failures_are_rows():
    rows = sweep(delta_of_laplace, {"mu": [0, 1], "eps": [sp.Rational(1, 2)]}, progress=False,
                 frame=False)
    assert rows[0]["error"].startswith("ValueError: mu = 0") and rows[0]["value"] is None
    assert rows[1]["error"] is None and rows[1]["lo"] > 0
    rows = sweep(delta_of_laplace, {"mu": [1], "eps": [-1]}, progress=False, frame=False)
    assert "InvalidParameter" in rows[0]["error"]


def test_time_limit_per_unit():
    rows = sweep(slow_unit, {"steps": [10]}, progress=False, time_limit=0.05, frame=False)
    row = rows[0]
    if row["error"] is None:  # (a warm process reaches an offer before the limit: the best
        # enclosure is returned, certified and wider than the tolerance asked; numeric.offer)
        assert row["guarantee"] == "certified" and row["width"] > 1e-9 * row["hi"]
    else:
        assert row["error"].startswith("TimeLimitExceeded")
        assert "time limit of 0.05 s" in row["error"]  # the unit's own limit fired (how soon:
    assert isinstance(row["seconds"], float)           # benchmarks/bench_time_limits.py)
    with pytest.raises(ta.InvalidParameter, match="time_limit"):
        sweep(slow_unit, {"steps": [1]}, time_limit=-1)


def test_process_pool_gives_the_same_table():
    serial = sweep(eps_of_gaussian, GRID, progress=False, frame=False)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = sweep(eps_of_gaussian, GRID, executor=pool, progress=False, frame=False)
    assert _strip(pooled) == _strip(serial)
    assert [r["route"] for r in pooled] == [r["route"] for r in serial]


def test_unpicklable_fn_is_refused():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(ta.InvalidParameter, match="fn"):
            sweep(lambda mu, delta: 0, GRID, executor=pool, progress=False)
    with pytest.raises(ta.InvalidParameter, match="executor"):
        sweep(eps_of_gaussian, GRID, executor="pool")


@pytest.mark.slow
def test_dask_cluster_gives_the_same_table():
    distributed = pytest.importorskip("dask.distributed")
    serial = sweep(eps_of_gaussian, GRID, progress=False, frame=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        rows = sweep(eps_of_gaussian, GRID, executor=client.get_executor(), progress=False,
                     frame=False)
    assert _strip(rows) == _strip(serial)
    assert [r["route"] for r in rows] == [r["route"] for r in serial]


def test_progress_bar_when_tqdm_is_there(monkeypatch):
    seen = []

    class Bar:
        def __init__(self, total, desc):
            seen.append(("total", total))

        def update(self, n):
            seen.append(("update", n))

        def close(self):
            seen.append(("close",))

    mod = types.ModuleType("tqdm.auto")
    mod.tqdm = Bar
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", mod)
    sweep(eps_of_gaussian, [{"mu": 1, "delta": sp.Rational(1, 100)}] * 2, frame=False)
    assert seen == [("total", 2), ("update", 1), ("update", 1), ("close",)]
    seen.clear()
    sweep(eps_of_gaussian, [{"mu": 1, "delta": sp.Rational(1, 100)}], progress=False,
          frame=False)
    assert seen == []


def test_without_tqdm_and_pandas_it_degrades(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import fails
    monkeypatch.setitem(sys.modules, "pandas", None)
    rows = sweep(eps_of_gaussian, [{"mu": 1, "delta": sp.Rational(1, 100)}])
    assert isinstance(rows, list) and rows[0]["error"] is None
    with pytest.raises(ta.InvalidParameter, match="frame"):
        sweep(eps_of_gaussian, [{"mu": 1, "delta": sp.Rational(1, 100)}], frame=True)


def test_pandas_frame():
    pd = pytest.importorskip("pandas")
    df = sweep(eps_of_gaussian, GRID, progress=False)
    assert isinstance(df, pd.DataFrame) and list(df.columns) == ["mu", "delta", *COLUMNS]
    assert len(df) == 6


def test_import_pulls_in_no_optional_dependency():
    code = ("import sys, tradeoff_algebra as ta; ta.sweep; "
            "print(sorted(m for m in ('pandas', 'dask', 'distributed', 'tqdm') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=pathlib.Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
