"""Progress bars for long computations: tqdm (``tqdm.auto``: a widget in Jupyter where
ipywidgets is installed, a text bar on stderr otherwise).

``bar(total, desc, progress)`` is the one entry point (plots, calibration, the PLD engine):

* ``progress=True``: the bar is drawn at once, whatever stderr is;
* ``progress=None`` (the default of the public calls): drawn only when the call has run for
  :data:`DELAY` seconds, and then on a terminal or as Jupyter's widget (``disable=None`` for
  the text bar), so a quick call, a test capturing stderr or a script writing to a file prints
  nothing; the tqdm bar is built (and tqdm imported, a tenth of a second) only then, starting
  at the steps already counted;
* ``progress=False``: never.

A bar shows the steps done, the elapsed time and, inside a call with a time limit
(``ta.time_limit``), the seconds left before it (:func:`budget.remaining`); the computation
itself checks the limit as before, so a bar never extends it.

Phases that cannot be interrupted are counted against the deadline before they start
(:func:`ensure_time`): among them the first import of a heavy module inside a call (scipy's
submodules, imported at first use so that the package imports fast: a few tenths of a second
that no check can stop). A finder at the head of ``sys.meta_path`` (:class:`_ImportCost`)
refuses such an import at once, with TimeLimitExceeded naming it, when the time left cannot
cover its cost (:data:`IMPORT_SECONDS`); outside a call, or with time enough, it does nothing
and the import proceeds as usual.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import InvalidParameter
from . import budget
from .arb import arb_endpoint

__all__ = ["bar", "DELAY", "check_progress", "ensure_time", "best_pair", "IMPORT_SECONDS"]

#: Seconds after which a call with ``progress=None`` shows its bar (on a terminal).
DELAY = 3.0


def best_pair(best: Any) -> tuple | None:
    """A loop's best enclosure as the ``(lo, hi)`` pair :class:`~.budget.TimeLimitExceeded`
    carries: a pair as it is, an Arb ball as its ends rounded outward to mpfs at the working
    precision (None for a ball that is not finite: no enclosure)."""
    if best is None or isinstance(best, tuple):
        return best
    if hasattr(best, "rad") and hasattr(best, "lower"):  # a python-flint arb
        if not best.is_finite():
            return None
        return arb_endpoint(best.lower(), round_floor), arb_endpoint(best.upper(), round_ceiling)
    return tuple(best)


def ensure_time(seconds: float, phase: str, best: Any = None) -> None:
    """Refuse at once a phase that cannot end before the caller's deadline: raise
    :class:`~.budget.TimeLimitExceeded` (carrying ``best``) when its estimated cost
    ``seconds`` (measured on the phase's first part: a lower bound of the whole) exceeds the
    time left (:func:`budget.remaining`), rather than starting it and stopping at the limit
    or after it. ``phase`` names the work and its size in the message; ``best`` a pair or an
    Arb ball (:func:`best_pair`). Outside a call, or with no limit, it does nothing."""
    left = budget.remaining()
    if not seconds > left:
        return
    best = best_pair(best)
    budget.check(best)  # (past the deadline already: the ordinary report)
    state = budget._local  # (the call's name and limit, as budget.check reads them)
    what = getattr(state, "what", "computation")
    what = what() if callable(what) else what
    raise budget.TimeLimitExceeded(f"{what}: {phase} would take about {seconds:.3g} s, "
                                   f"{max(left, 0.0):.3g} s were left",
                                   getattr(state, "seconds", None), best)


#: The least time (seconds) the first import of a heavy module takes after the package's own
#: (an idle x86_64 core, Python 3.11, scipy 1.17: scipy.special 0.43 s of which the base it
#: shares with the other submodules, scipy._lib._array_api, about half; under a load of 8 on
#: 2 cores twice as long). Only these are counted; a module imported by another's import (a
#: nested import) is part of that one's cost.
IMPORT_SECONDS = {"scipy.special": 0.2, "scipy.fft": 0.2, "scipy.stats": 0.6,
                  "scipy.signal": 0.4, "scipy.optimize": 0.3, "scipy.integrate": 0.3,
                  "scipy.linalg": 0.2, "scipy.interpolate": 0.3, "matplotlib.pyplot": 0.3}
#: The part of :data:`IMPORT_SECONDS` of a scipy submodule that its base (this module) takes:
#: once the base is loaded, a submodule costs less (scipy.fft after scipy.special: 0.05 s).
_SCIPY_BASE, _SCIPY_BASE_SECONDS = "scipy._lib._array_api", 0.15


def _import_seconds(name: str) -> float:
    seconds = IMPORT_SECONDS[name]
    if name.startswith("scipy.") and _SCIPY_BASE in sys.modules:
        seconds = max(seconds - _SCIPY_BASE_SECONDS, 0.02)
    return seconds


def _nested_import() -> bool:
    """Is the import being looked up one that another module's import is running (the body of
    a module being executed imports it)? Then it is part of that import's cost: refusing it
    would leave the outer module half imported."""
    frame, loads = sys._getframe(2), 0
    while frame is not None:
        if frame.f_code.co_name == "_find_and_load" and "importlib" in frame.f_code.co_filename:
            loads += 1
            if loads > 1:
                return True
        frame = frame.f_back
    return False


class _ImportCost:
    """A meta path finder that finds nothing: it refuses (TimeLimitExceeded from
    :func:`ensure_time`) the first import of a module of :data:`IMPORT_SECONDS` inside a
    public call whose time left cannot cover it, before the import starts; otherwise it hands
    the import on to the next finders."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name not in IMPORT_SECONDS or math.isinf(budget.remaining()) or _nested_import():
            return None
        ensure_time(_import_seconds(name), f"importing {name} (once per process: import it "
                    "before the call to keep it out of the time limit)")
        return None

    def invalidate_caches(self) -> None:
        pass


if not any(type(f).__name__ == "_ImportCost" for f in sys.meta_path):  # (once per process)
    sys.meta_path.insert(0, _ImportCost())


def check_progress(progress: Any, owner: str) -> bool | None:
    """``progress`` validated: True, False or None."""
    if progress is not None and not isinstance(progress, bool):
        raise InvalidParameter("progress", progress, "True, False or None (a bar after "
                               f"{DELAY:g} s on a terminal)", owner)
    return progress


def _tqdm_class() -> Any:
    """tqdm.auto's class, or the text bar where the Jupyter widget cannot be built (tqdm's
    notebook bar needs ipywidgets); None without tqdm."""
    import importlib.util

    try:
        if importlib.util.find_spec("ipywidgets") is None:  # (tqdm.auto would warn)
            from tqdm.std import tqdm
        else:
            from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm


class _Off:
    """The bar of ``progress=False``: every method does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


class _Bar:
    """A tqdm bar that shows the time left before the caller's deadline."""

    def __init__(self, inner: Any):
        self._inner = inner
        self._note = ""

    def _postfix(self) -> None:
        left = budget.remaining()
        parts = [self._note] if self._note else []
        if math.isfinite(left):
            parts.append(f"time limit in {max(left, 0):.0f} s")
        self._inner.set_postfix_str(", ".join(parts), refresh=False)

    def update(self, n: int = 1) -> None:
        self._postfix()
        self._inner.update(n)

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self._note = s
        self._postfix()
        if refresh:
            self._inner.refresh()

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False


class _Deferred:
    """The bar of ``progress=None``: counts its steps, and only once the call has run for
    :data:`DELAY` seconds builds the tqdm bar (so a quick call does not even import tqdm,
    which costs a tenth of a second), starting it at the steps already done."""

    def __init__(self, total: int | None, desc: str, unit: str, leave: bool):
        import time

        self._clock = time.monotonic
        self._start = self._clock()
        self._args = (total, desc, unit, leave)
        self._done = 0
        self._note = ""
        self._inner: Any = None
        self._tried = False
        self._maybe_start()

    def _maybe_start(self) -> None:
        if self._tried or self._clock() - self._start < DELAY:
            return
        self._tried = True
        total, desc, unit, leave = self._args
        self._inner = _make(total, desc, None, unit, leave, initial=self._done)
        if self._note and self._inner is not None:
            self._inner.set_postfix_str(self._note, refresh=False)

    def update(self, n: int = 1) -> None:
        self._done += n
        if self._inner is not None:
            self._inner.update(n)
        else:
            self._maybe_start()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self._note = s
        if self._inner is not None:
            self._inner.set_postfix_str(s, refresh)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()

    def __enter__(self) -> _Deferred:
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False


def _make(total: int | None, desc: str, progress: bool | None, unit: str, leave: bool,
          initial: int = 0) -> _Bar | None:
    cls = _tqdm_class()
    if cls is None:
        return None
    # progress=None: tqdm's disable=None hides a text bar off a terminal; Jupyter's widget
    # (tqdm.notebook, where ipywidgets is installed) is shown there too
    widget = not cls.__module__.startswith("tqdm.std")
    inner = cls(total=total, desc=desc, unit=unit, leave=leave, dynamic_ncols=True,
                delay=0, initial=initial, disable=False if progress or widget else None)
    return _Bar(inner)


def bar(total: int | None, desc: str, progress: bool | None, *, unit: str = "step",
        leave: bool = True) -> _Bar | _Off | _Deferred:
    """A progress bar of ``total`` steps (None: a counter) for ``progress`` (module
    docstring); use as a context manager, ``update()`` after each step. ``progress=None``
    builds the bar only once the call has run for :data:`DELAY` seconds."""
    if progress is None:
        return _Deferred(total, desc, unit, leave)
    made = _make(total, desc, progress, unit, leave) if progress is not False else None
    return _Off() if made is None else made
