"""An accountant with Opacus's interface whose epsilon is a certified upper bound.

``TradeoffAccountant`` keeps Opacus's ``history`` of ``(noise_multiplier, sample_rate,
num_steps)`` entries (DP-SGD with Poisson sampling, add/remove neighbours), ``step``,
``get_epsilon(delta)`` and ``len()``. The whole history is one expression:
``AddRemove(Mix(G(1/sigma_1), q_1)^{(x) T_1} (x) ...)`` — every phase on the same pair of
neighbouring datasets, so the directions compose together (``operators.mechanism``) — and
``get_epsilon`` returns the upper end of its certified epsilon enclosure, rounded up to a
float. Float parameters are read as the binary numbers they hold.

With Opacus installed (the ``opacus`` extra), :func:`register` adds the accountant to
Opacus's registry under the mechanism name ``"tradeoff"`` where the installed version has
``opacus.accountants.register_accountant``, so ``PrivacyEngine(accountant="tradeoff")``
uses it. Without Opacus the class works on its own with the same methods.
"""

from __future__ import annotations

import math
from typing import Any

from .analysis.conversions import epsilon as _epsilon
from .families.gaussian import Gaussian
from .operators.mechanism import AddRemove
from .operators.subsample import Mix
from .operators.tensor import Tensor, TensorPower

__all__ = ["TradeoffAccountant", "register", "MECHANISM"]

MECHANISM = "tradeoff"


class TradeoffAccountant:
    """Opacus-style accountant (module docstring)."""

    def __init__(self) -> None:
        self.history: list[tuple[float, float, int]] = []

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One optimiser step; consecutive steps with the same parameters are merged."""
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    def expression(self):
        """The trade-off expression of the whole history."""
        parts = [TensorPower(Mix(Gaussian(1 / _exact(s)), _exact(q)), n)
                 for s, q, n in self.history if n > 0]
        if not parts:
            raise ValueError("no steps taken yet")
        return AddRemove(parts[0] if len(parts) == 1 else Tensor(*parts))

    def get_epsilon(self, delta: float, dps: int = 8, **kwargs: Any) -> float:
        """The certified upper bound of epsilon at ``delta`` (a float rounded up)."""
        v = _epsilon(self.expression(), delta, dps=dps)
        return math.nextafter(float(v.hi), math.inf)

    def get_privacy_spent(self, *, delta: float, **kwargs: Any) -> tuple[float, None]:
        return self.get_epsilon(delta), None

    def state_dict(self, destination: Any = None) -> dict:
        d = {} if destination is None else destination
        d["history"] = list(self.history)
        return d

    def load_state_dict(self, state_dict: dict) -> None:
        self.history = list(state_dict["history"])


def _exact(x: Any):
    import sympy as sp

    return sp.Rational(x) if isinstance(x, float) else sp.sympify(x)


def register() -> bool:
    """Register with Opacus's accountant registry; True when registered (Opacus installed and
    its version has ``register_accountant``), False otherwise."""
    try:
        from opacus import accountants as oa
    except ImportError:
        return False
    reg = getattr(oa, "register_accountant", None)
    if reg is None:
        return False
    cls = type("TradeoffOpacusAccountant", (TradeoffAccountant, oa.IAccountant), {})
    try:
        reg(MECHANISM, cls, force=True)
    except TypeError:  # older signature without force=
        reg(MECHANISM, cls)
    return True
