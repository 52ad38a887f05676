"""An accountant with Opacus's interface whose epsilon is a certified upper bound.

``TradeoffAccountant`` keeps Opacus's ``history`` of ``(noise_multiplier, sample_rate,
num_steps)`` entries (DP-SGD with Poisson sampling, add/remove neighbours), ``step``,
``get_epsilon(delta)``, ``len()`` (the number of steps), ``mechanism()`` (``"tradeoff"``),
``get_optimizer_hook_fn`` and ``state_dict``/``load_state_dict``. The whole history is one
:class:`~tradeoff_algebra.accountant.Accountant` (``accountant()``) with the expression
``AddRemove(Mix(G(1/sigma_1), q_1)^{(x) T_1} (x) ...)`` — every phase on the same pair of
neighbouring datasets, so the directions compose together (``operators.mechanism``) — and
``get_epsilon`` returns the upper end of its certified epsilon enclosure, rounded up to a
float. Float parameters are read as the binary numbers they hold.

With Opacus importable, ``TradeoffAccountant`` subclasses ``opacus.accountants.IAccountant``
and takes ``get_optimizer_hook_fn`` from it; without Opacus it has the same method from
:class:`_Standalone`, written after Opacus 1.6's. The state dict is Opacus 1.6's on every
version (``{"history": [...], "mechanism": "tradeoff"}``, checked on loading). Opacus
(and so torch) is imported when this module is imported, never by ``import tradeoff_algebra``.
:func:`register` makes ``PrivacyEngine(accountant="tradeoff")`` use the accountant (see there
for how, per Opacus version).
"""

from __future__ import annotations

import importlib
import math
import numbers
from collections import OrderedDict
from collections.abc import Callable, Mapping
from copy import deepcopy
from typing import Any

from .accountant import Accountant
from .accountant import _float_up as _float_up  # the least float >= x (re-exported)
from .core.errors import InvalidParameter
from .core.validate import param
from .families.gaussian import Gaussian
from .families.trivial import Zero
from .operators.mechanism import AddRemove
from .operators.subsample import Mix

try:  # optional: Opacus (and torch with it); a broken torch install counts as absent
    from opacus.accountants import IAccountant as _OpacusAccountant
except (ImportError, OSError):
    _OpacusAccountant = None

__all__ = ["TradeoffAccountant", "register", "MECHANISM", "HAVE_OPACUS"]

MECHANISM = "tradeoff"

#: True when Opacus was importable with this module, so that ``TradeoffAccountant`` is an
#: ``opacus.accountants.IAccountant``.
HAVE_OPACUS = _OpacusAccountant is not None


class _Standalone:
    """The methods Opacus's ``IAccountant`` gives its subclasses (as in Opacus 1.6), for use
    without Opacus: the optimizer hook, and a state dict of ``history`` and ``mechanism``."""

    history: list

    @classmethod
    def mechanism(cls) -> str:
        raise NotImplementedError

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        raise NotImplementedError

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """A callback for ``DPOptimizer.attach_step_hook``: one step per optimizer step, at
        ``sample_rate`` times the optimizer's accumulated iterations."""

        def hook_fn(optim: Any) -> None:
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination: Any = None) -> Any:
        """``history`` (a deep copy) and ``mechanism`` in ``destination`` (a new
        ``OrderedDict`` when None)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a state dict of :meth:`state_dict`; ValueError when it is empty, lacks
        ``history`` or ``mechanism``, or is of another mechanism."""
        if not state_dict:
            raise ValueError("state dict is either None or empty and hence cannot be loaded"
                             " into Privacy Accountant.")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict does not have the key `{key}`."
                                 " Cannot be loaded into Privacy Accountant.")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(f"state_dict of {state_dict['mechanism']} cannot be loaded into "
                             f" Privacy Accountant with mechanism {self.mechanism()}")
        self.history = state_dict["history"]


_Base: type = _OpacusAccountant if _OpacusAccountant is not None else _Standalone


class TradeoffAccountant(_Base):  # type: ignore[valid-type, misc]
    """Opacus accountant with a certified epsilon (module docstring)."""

    def __init__(self) -> None:
        self.history: list[tuple[float, float, int]] = []

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One optimiser step; consecutive steps with the same parameters are merged. The
        noise multiplier must be a number >= 0 and the sample rate one in [0, 1]
        (:class:`~tradeoff_algebra.core.errors.InvalidParameter`, a ``ValueError``, names the
        one that is not); the history keeps them as given."""
        _checked(noise_multiplier, sample_rate)
        if self.history and tuple(self.history[-1][:2]) == (noise_multiplier, sample_rate):
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        """The number of steps taken (Opacus's own accountants count history entries)."""
        return sum(n for _, _, n in self.history)

    def _phases(self) -> list[tuple[Any, Any, int]]:
        """The history as exact ``(sigma, q, steps)``, without the phases that reveal nothing
        (no steps, or ``q = 0``: no record is ever sampled)."""
        out = []
        for s, q, n in self.history:
            (s, q), n = _checked(s, q), int(n)
            if n > 0 and q != 0:
                out.append((s, q, n))
        return out

    def accountant(self) -> Accountant:
        """The history as an :class:`~tradeoff_algebra.accountant.Accountant` under add/remove
        neighbours: one Poisson-sampled Gaussian step ``AddRemove(Mix(G(1/sigma), q))``
        composed ``steps`` times per phase (``Zero`` for sigma = 0), so that its ``latex()``,
        ``curve``, ``delta``, ``to_dp_event`` and ``to_json`` describe the training run."""
        acct = Accountant("add_remove")
        for s, q, n in self._phases():
            acct.compose(Zero if s == 0 else AddRemove(Mix(Gaussian(1 / s), q)), n)
        return acct

    def expression(self):
        """The trade-off expression of the whole history,
        ``AddRemove(Mix(G(1/sigma_1), q_1)^{(x) T_1} (x) ...)`` (ValueError before any step
        that reveals something)."""
        acct = self.accountant()
        if not acct.entries:
            raise ValueError("no steps taken yet")
        return acct.expression

    def get_epsilon(self, delta: float, dps: int = 8, **kwargs: Any) -> float:
        """The certified upper bound of epsilon at ``delta`` (a float rounded up).

        0.0 before any step that reveals something, ``inf`` when a phase has noise
        multiplier 0. When the engine cannot enclose the composition (a ``NumericalError``,
        e.g. thousands of steps with a tiny noise multiplier) the certified bound is ``inf``,
        with a ``RuntimeWarning`` naming the cause (:meth:`Accountant.get_epsilon`). Other
        keyword arguments (those of Opacus's other accountants) are ignored.
        """
        if not isinstance(delta, str):  # strings are levels read exactly ("1e-5")
            param("delta", delta, lower=0, upper=1, numeric=True,
                  owner="TradeoffAccountant.get_epsilon")
        phases = self._phases()
        if any(s == 0 for s, _, _ in phases):
            return math.inf
        return self.accountant().get_epsilon(delta, dps=dps)

    def get_privacy_spent(self, *, delta: float, **kwargs: Any) -> tuple[float, None]:
        return self.get_epsilon(delta), None

    # Opacus 1.6's state dict on every Opacus version (1.4-1.5 store the bound classmethod
    # ``mechanism`` where 1.6 stores its value): ``history`` and ``"mechanism": "tradeoff"``.
    state_dict = _Standalone.state_dict

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a state dict of :meth:`state_dict`; ValueError when it is empty, lacks
        ``history`` or ``mechanism``, or is of another mechanism."""
        _Standalone.load_state_dict(self, state_dict)
        self.history = [tuple(h) for h in self.history]


def _exact(x: Any, name: str = "value"):
    """A history number as an exact sympy number (a float as the binary number it holds);
    :class:`InvalidParameter` naming ``name`` for what is not a finite real number."""
    import numpy as np
    import sympy as sp

    allowed = "a finite real number"
    try:
        if isinstance(x, sp.Basic):
            return x
        if isinstance(x, (bool, np.bool_, bytes, complex)) or x is None:
            raise TypeError
        if isinstance(x, numbers.Integral):
            return sp.Integer(int(x))
        if isinstance(x, numbers.Rational):
            return sp.Rational(int(x.numerator), int(x.denominator))
        if isinstance(x, str):
            return sp.Rational(x)
        v = float(x)  # floats, numpy/torch scalars
        if not math.isfinite(v):  # sp.Rational(nan) is 0
            raise ValueError
        # (exact: sp.Rational(float) rounds at mpmath's global precision)
        return sp.Rational(*v.as_integer_ratio())
    except Exception:
        raise InvalidParameter(name, x, allowed, "TradeoffAccountant") from None


def _checked(noise_multiplier: Any, sample_rate: Any) -> tuple[Any, Any]:
    """(sigma, q) exact and checked: sigma >= 0, q in [0, 1]."""
    s = param("noise_multiplier", _exact(noise_multiplier, "noise_multiplier"), lower=0,
              numeric=True, owner="TradeoffAccountant")
    q = param("sample_rate", _exact(sample_rate, "sample_rate"), lower=0, upper=1,
              numeric=True, owner="TradeoffAccountant")
    return s, q


def register() -> bool:
    """Make ``PrivacyEngine(accountant="tradeoff")`` (and ``create_accountant("tradeoff")``,
    so ``make_private_with_epsilon``) use :class:`TradeoffAccountant`; True when done, False
    without Opacus. Calling it again is harmless.

    * Opacus >= 1.6 has a registry (``opacus.accountants.registry._ACCOUNTANTS``, filled by
      ``register_accountant``): the class is registered there under ``"tradeoff"``.
    * Opacus 1.4-1.5 looks the name up in a fixed ``if``/``elif`` chain,
      ``opacus.accountants.create_accountant``, which ``opacus.privacy_engine`` and
      ``opacus.accountants.utils`` import by name: that function is replaced in those three
      modules by a wrapper that answers ``"tradeoff"`` and hands every other name to it.
    """
    if _OpacusAccountant is None:
        return False
    oa = importlib.import_module("opacus.accountants")
    reg = getattr(oa, "register_accountant", None)
    if reg is not None:
        reg(MECHANISM, TradeoffAccountant, force=True)
        return True
    return _wrap_create_accountant(oa)


def _wrap_create_accountant(oa: Any) -> bool:
    """Opacus before 1.6: wrap ``create_accountant`` where Opacus looks it up."""
    current = getattr(oa, "create_accountant", None)
    if current is None:
        return False
    original = getattr(current, "_tradeoff_wraps", current)
    if current is original:
        def create_accountant(mechanism: str):
            if mechanism == MECHANISM:
                return TradeoffAccountant()
            return original(mechanism)

        create_accountant.__doc__ = original.__doc__
        create_accountant._tradeoff_wraps = original  # type: ignore[attr-defined]
        wrapped = create_accountant
    else:
        wrapped = current
    for name in ("opacus.accountants", "opacus.accountants.utils", "opacus.privacy_engine"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(mod, "create_accountant", None) in (original, wrapped):
            mod.create_accountant = wrapped
    return True
