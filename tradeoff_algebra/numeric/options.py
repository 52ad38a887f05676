"""Thread-private options of the PLD engine (:class:`pld_options`) and the base of the option
context managers (:class:`OptionsContext`, also behind ``profile_options``)."""

from __future__ import annotations

import math
from collections.abc import MutableMapping

from ..core.errors import InvalidParameter
from .context import ThreadOptions
from .pld_grid import DEFAULT_TAIL

__all__ = ["OptionsContext", "pld_options", "options", "DEFAULT_TOL", "H_START", "H_MIN",
           "MAX_FFT"]

#: Default target for the relative width (hi - lo)/hi of a PLD result.
DEFAULT_TOL = 5e-4
#: First grid step tried, and the finest one allowed; the largest FFT the refinement may use.
H_START, H_MIN = 2.0**-10, 2.0**-19
MAX_FFT = 1 << 23
#: The options of the calling thread (each thread starts from these defaults).
_OPTIONS = ThreadOptions({"tol": DEFAULT_TOL, "h": None, "tail": DEFAULT_TAIL,
                          "progress": False})


class OptionsContext:
    """Base of the option context managers: subclasses set ``_store`` (a module's
    :class:`ThreadOptions`, private to the calling thread) and ``_new`` (the values to set
    inside the ``with`` block)."""

    _store: MutableMapping
    _new: dict

    def __enter__(self):
        self._old = dict(self._store)
        self._store.update(self._new)
        return self

    def __exit__(self, *exc):
        self._store.clear()
        self._store.update(self._old)
        return False


class pld_options(OptionsContext):
    """Context manager for the PLD route of ``ta.evaluate``, ``ta.roc``, ``ta.delta`` and
    ``ta.epsilon``: ``tol`` (target relative width, default 5e-4), ``h`` (a fixed grid step:
    no refinement; rounded down to a power of 2, then scaled by at most sqrt 2 so that the
    heaviest atom of the factors' loss laws lies on the grid), ``tail`` (mass allowed outside
    the composed window per side, default 1e-20), ``progress`` (a progress bar on stderr). A
    product whose composed loss needs more than ``MAX_FFT`` grid bins on the coarsest grid
    (``Laplace(1)**10**9``) is refused at once with :class:`GridTooLarge` (a NumericalError),
    naming the limit::

        with pld_options(tol=1e-5, progress=True):
            ta.epsilon(noisy_sgd(1.1, 256/60000, 14062, sampling="poisson"), 1e-5)
    """

    _store = _OPTIONS

    def __init__(self, tol: float | None = None, h: float | None = None,
                 tail: float | None = None, progress: bool | None = None):
        new = {"tol": tol, "h": h, "tail": tail, "progress": progress}
        if tol is not None and not (tol > 0 and math.isfinite(tol)):
            raise InvalidParameter("tol", tol, "a positive finite number", "pld_options")
        if tail is not None and not (0 < tail < 1):
            raise InvalidParameter("tail", tail, "a number in (0, 1)", "pld_options")
        if h is not None and not (h > 0 and math.isfinite(h)):
            raise InvalidParameter("h", h, "a positive finite grid step", "pld_options")
        self._new = {k: v for k, v in new.items() if v is not None}


def options() -> dict:
    """The current PLD options (see :class:`pld_options`)."""
    return dict(_OPTIONS)
