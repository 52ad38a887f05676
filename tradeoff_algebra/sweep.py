"""Parameter sweeps that scale out on an existing executor: ``sweep(fn, grid, executor=...)``.

``sweep`` evaluates ``fn(**point)`` at every point of a grid and returns one row per point:
the point's parameters, the enclosure ``lo``/``hi`` of the result and its ``width``, its
``guarantee`` and ``route`` (:class:`~tradeoff_algebra.numeric.value.Value`), the ``value``
itself, the ``seconds`` the unit took, and ``error`` (None, or the failure's type and message:
a failing point is a row, never an abort). The table is a pandas DataFrame when pandas is
installed (``frame=None``, the default), else a list of dicts.

Scaling out. The library ships no scheduler: ``executor`` is any
:class:`concurrent.futures.Executor` — a local ``ProcessPoolExecutor``, a Dask cluster's
``Client.get_executor()``, Ray's ``RayExecutor`` — and each point is one independent work
unit sent with ``executor.submit``. A unit must pickle: ``fn`` is a top-level function of an
importable module (not a lambda, not a closure, not defined in ``__main__`` of an interactive
session for a process pool that spawns) and the grid's values are picklable. Each unit
computes in its worker's own thread-private precision context, so the rows do not depend on
the executor: the serial path, a process pool and a Dask cluster give the same table (bit for
bit, apart from ``seconds``).

``time_limit`` (seconds) runs each unit under the library's time limit
(:class:`~tradeoff_algebra.numeric.budget.time_limit`, cooperative: it stops the library's own
loops, not arbitrary code in ``fn``); a unit past it is a failed row whose ``lo``/``hi`` hold
the best enclosure reached when the library had one. ``progress=True`` shows a tqdm bar when
tqdm is installed (imported lazily; nothing happens without it).

Nothing here imports pandas, tqdm or dask when ``tradeoff_algebra`` is imported.
"""

from __future__ import annotations

import itertools
import math
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, as_completed
from typing import Any

from .core.errors import InvalidParameter
from .numeric import budget
from .numeric.value import Value

__all__ = ["sweep", "grid_points", "run_unit", "COLUMNS"]

#: The columns each row has after the point's parameters.
COLUMNS = ("lo", "hi", "width", "guarantee", "route", "value", "seconds", "error")


def grid_points(grid: Any) -> list[dict]:
    """The points of ``grid``: a mapping of parameter -> list of values (the Cartesian product,
    in the mapping's order, the last parameter varying fastest) or a sequence of mappings (as
    given)."""
    if isinstance(grid, Mapping):
        names = list(grid)
        values = []
        for name in names:
            if not isinstance(name, str) or not name.isidentifier():
                raise InvalidParameter("grid", name, "parameter names that are identifiers",
                                       "sweep")
            v = grid[name]
            if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
                raise InvalidParameter(f"grid[{name!r}]", v, "a list of values", "sweep")
            values.append(list(v))
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
    if isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)):
        out = []
        for i, p in enumerate(grid):
            if not isinstance(p, Mapping) or not all(isinstance(k, str) for k in p):
                raise InvalidParameter(f"grid[{i}]", p, "a dict of keyword arguments", "sweep")
            out.append(dict(p))
        return out
    raise InvalidParameter("grid", grid, "a dict of lists (a Cartesian product) or a list of "
                           "dicts", "sweep")


def _float(x: Any, down: bool) -> float:
    """A number as a float rounded outward (down or up), so [lo, hi] still holds the truth."""
    from mpmath.libmp import round_ceiling, round_floor, to_float

    if hasattr(x, "_mpf_"):
        return to_float(x._mpf_, rnd=round_floor if down else round_ceiling)
    v = float(x)
    if math.isfinite(v) and v != x:  # an exact number that float rounded: step outward
        v = math.nextafter(v, -math.inf if down else math.inf)
    return v


def _fields(result: Any) -> dict:
    """lo, hi, width, guarantee, route and the value of what ``fn`` returned."""
    if isinstance(result, Value):
        lo, hi = result.interval() if result.is_certain else (result.lo, result.hi)
        flo, fhi = _float(lo, True), _float(hi, False)
        return {"lo": flo, "hi": fhi, "width": fhi - flo, "guarantee": result.guarantee,
                "route": result.route, "value": result}
    if isinstance(result, (int, float)) and not isinstance(result, bool):
        v = float(result)
        return {"lo": v, "hi": v, "width": 0.0, "guarantee": None, "route": "",
                "value": result}
    return {"lo": None, "hi": None, "width": None, "guarantee": None, "route": "",
            "value": result}


def _row(point: dict, fields: dict, seconds: float | None, error: str | None) -> dict:
    """A row: the point's parameters, then :data:`COLUMNS` in order."""
    out = {**fields, "seconds": seconds, "error": error}
    return {**point, **{c: out.get(c) for c in COLUMNS}}


_FAILED = {"lo": None, "hi": None, "width": None, "guarantee": None, "route": "", "value": None}


def run_unit(fn: Callable[..., Any], point: dict, time_limit: float | None) -> dict:
    """One work unit: ``fn(**point)`` under the time limit, timed, its failure caught. A
    top-level function, so executors can pickle it."""
    start = time.perf_counter()
    try:
        if time_limit is None:
            result = fn(**point)
        else:
            with budget.time_limit(time_limit):
                result = fn(**point)
        fields, error = _fields(result), None
    except Exception as exc:  # noqa: BLE001 - a failed point is a row of the table
        best = getattr(exc, "best", None)
        fields, error = dict(_FAILED), f"{type(exc).__name__}: {exc}"
        if isinstance(best, tuple) and len(best) == 2 and all(b is not None for b in best):
            lo, hi = _float(best[0], True), _float(best[1], False)
            fields.update(lo=lo, hi=hi, width=hi - lo)
    return _row(point, fields, time.perf_counter() - start, error)


def _bar(total: int, progress: bool):
    """A tqdm bar when asked for and tqdm is installed, else None."""
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="sweep")


def _table(rows: list[dict], frame: bool | None) -> Any:
    if frame is False:
        return rows
    try:
        import pandas as pd
    except ImportError:
        if frame:
            raise InvalidParameter("frame", frame, "False or None when pandas is not "
                                   "installed", "sweep") from None
        return rows
    return pd.DataFrame(rows)


def sweep(fn: Callable[..., Any], grid: Any, executor: Executor | None = None,
          progress: bool = True, time_limit: float | None = None, *,
          frame: bool | None = None) -> Any:
    """Evaluate ``fn(**point)`` at every point of ``grid`` (module docstring): a table with one
    row per point, in the grid's order, whatever the executor.

    ``grid``: a dict of lists (Cartesian product) or a list of dicts. ``executor``: None
    (serial, in this process) or any ``concurrent.futures.Executor``; ``fn`` must then pickle
    (a top-level function). ``time_limit``: seconds per unit (the library's time limit), or
    None. ``frame``: True for a pandas DataFrame, False for a list of dicts, None for a
    DataFrame when pandas is installed.
    """
    if not callable(fn):
        raise InvalidParameter("fn", fn, "a callable taking the grid's parameters as keywords",
                               "sweep")
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
                or not (math.isfinite(time_limit) and time_limit > 0):
            raise InvalidParameter("time_limit", time_limit, "a positive number of seconds or "
                                   "None", "sweep")
        time_limit = float(time_limit)
    if executor is not None and not isinstance(executor, Executor) \
            and not callable(getattr(executor, "submit", None)):
        raise InvalidParameter("executor", executor, "a concurrent.futures.Executor or None",
                               "sweep")
    if frame is not None and not isinstance(frame, bool):
        raise InvalidParameter("frame", frame, "True, False or None", "sweep")
    points = grid_points(grid)
    bar = _bar(len(points), progress)
    rows: list[dict | None] = [None] * len(points)
    try:
        if executor is None:
            for i, p in enumerate(points):
                rows[i] = run_unit(fn, p, time_limit)
                if bar is not None:
                    bar.update(1)
        else:
            try:
                pickle.dumps(fn)
            except Exception as exc:  # noqa: BLE001 - any pickling failure says the same
                raise InvalidParameter("fn", fn, "a picklable callable (a top-level function "
                                       "of an importable module) to send to an executor",
                                       "sweep", f"pickle said: {exc}") from None
            futures = {executor.submit(run_unit, fn, p, time_limit): i
                       for i, p in enumerate(points)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    rows[i] = fut.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker is a failed row
                    rows[i] = _row(points[i], _FAILED, None, f"{type(exc).__name__}: {exc}")
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return _table([r for r in rows if r is not None], frame)
