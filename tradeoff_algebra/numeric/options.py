"""Thread-private options of the PLD engine (:class:`pld_options`) and the base of the option
context managers (:class:`OptionsContext`, also behind ``profile_options``)."""

from __future__ import annotations

import math

from ..core.errors import InvalidParameter
from ..core.validate import param
from .context import ThreadOptions
from .pld_grid import DEFAULT_TAIL

__all__ = ["OptionsContext", "pld_options", "options", "DEFAULT_TOL", "H_START", "H_MIN",
           "MAX_FFT", "positive_float"]

#: Default target for the relative width (hi - lo)/hi of a PLD result.
DEFAULT_TOL = 5e-4
#: First grid step tried, and the finest one allowed; the largest FFT the refinement may use.
H_START, H_MIN = 2.0**-10, 2.0**-19
MAX_FFT = 1 << 23
#: The options of the calling thread (each thread starts from these defaults).
_OPTIONS = ThreadOptions({"tol": DEFAULT_TOL, "h": None, "tail": DEFAULT_TAIL,
                          "progress": False})


def positive_float(name: str, value, owner: str, *, upper=None, allow_infinite=False) -> float:
    """An option read by :func:`~tradeoff_algebra.core.validate.param` as a number > 0 (below
    ``upper`` when given), returned as a float; refused when the float is 0 or infinite
    (unless ``allow_infinite``)."""
    if type(value) is float and 0 < value < (math.inf if upper is None else upper):
        return value  # (what the general path returns for a finite positive float: itself)
    v = param(name, value, lower=0, lower_open=True, upper=upper, upper_open=upper is not None,
              owner=owner, numeric=True, allow_infinite=allow_infinite)
    x = float(v) if v.is_finite else math.inf
    if not x > 0 or (math.isinf(x) and not allow_infinite):
        allowed = "a positive finite number" if upper is None else f"a number in (0, {upper})"
        raise InvalidParameter(name, value, allowed, owner, "it is not a positive float")
    return x


class OptionsContext:
    """Base of the option context managers: subclasses set ``_store`` (a module's
    :class:`ThreadOptions`, private to the calling thread) and ``_new`` (the values to set
    inside the ``with`` block)."""

    _store: ThreadOptions
    _new: dict

    def __enter__(self):
        self._old = self._store.copy()
        self._store.update(self._new)
        return self

    def __exit__(self, *exc):
        self._store.reset(self._old)
        return False


class pld_options(OptionsContext):
    """Context manager for the PLD route of ``ta.evaluate``, ``ta.roc``, ``ta.delta`` and
    ``ta.epsilon``: ``tol`` (target relative width, default 5e-4), ``h`` (a fixed grid step:
    no refinement; rounded down to a power of 2, then scaled by at most sqrt 2 so that the
    heaviest atom of the factors' loss laws lies on the grid), ``tail`` (mass allowed outside
    the composed window per side, default 1e-20), ``progress`` (a tqdm bar of each
    composition: ``numeric.progress``). A
    product whose composed loss needs more than ``MAX_FFT`` grid bins on the coarsest grid
    (``Laplace(1)**10**9``) is refused at once with :class:`GridTooLarge` (a NumericalError),
    naming the limit::

        with pld_options(tol=1e-5, progress=True):
            ta.epsilon(noisy_sgd(1.1, dataset_size=60000, batch_size=256, epochs=60), 1e-5)
    """

    _store = _OPTIONS

    def __init__(self, tol: float | None = None, h: float | None = None,
                 tail: float | None = None, progress: bool | None = None):
        if tol is not None:
            tol = positive_float("tol", tol, "pld_options")
        if tail is not None:
            tail = positive_float("tail", tail, "pld_options", upper=1)
        if h is not None:
            h = positive_float("h", h, "pld_options")
        if progress is not None and not isinstance(progress, bool):
            raise InvalidParameter("progress", progress, "True or False", "pld_options")
        new = {"tol": tol, "h": h, "tail": tail, "progress": progress}
        self._new = {k: v for k, v in new.items() if v is not None}


def options() -> dict:
    """The current PLD options (see :class:`pld_options`)."""
    return dict(_OPTIONS)
