"""From dp_accounting's ``DpEvent`` trees to trade-off expressions.

``from_dp_event(event)`` reads the event tree by its class names and fields (dp_accounting is
not imported here; any object with the same names and fields works), under add/remove
neighbours, the relation of dp_accounting's accountants by default:

=====================================  =====================================================
``GaussianDpEvent(noise_multiplier)``   ``G(1/noise_multiplier)`` (sensitivity 1); ``Zero`` at 0
``LaplaceDpEvent(noise_multiplier)``    ``Laplace(1/noise_multiplier)``; ``Zero`` at 0
``RandomizedResponseDpEvent(p, k)``     the pair of the two buckets a change moves between:
                                        ``Discrete([1 - p + p/k, p/k, (k-2)p/k], [p/k,
                                        1 - p + p/k, (k-2)p/k])``
``EpsilonDeltaDpEvent(eps, delta)``     ``EpsDelta(eps, delta)``
``PoissonSampledDpEvent(q, e)``         ``AddRemove(Mix(f, q))``: remove direction
                                        T(P, (1-q)P + qQ), both directions composed together
``SampledWithoutReplacementDpEvent``    ``C(m/n, f)`` (Dong, Roth & Su, Thm. 9: Sample_m, replace-
(n, m, e)                               one neighbours within a fixed-size batch)
``ComposedDpEvent(events)``             ``@`` of the parts (mechanisms pair their directions)
``SelfComposedDpEvent(e, count)``       ``f ** count``
``ZCDpEvent(rho, xi)``                  ``zCDP(rho, xi).to_tradeoff()``: the tightest trade-off
                                        function the zCDP guarantee implies (``RenyiRegion``)
``NoOpDpEvent``                         ``Id``;  ``NonPrivateDpEvent``: ``Zero``
=====================================  =====================================================

Floats are read as the exact binary numbers they hold (the library's convention). An event
kind without an exact trade-off function (``UnsupportedDpEvent``, tree aggregation, repeat-and-
select, ...) raises :class:`InvalidParameter` naming it.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .core.errors import InvalidParameter
from .core.node import TradeOff
from .core.validate import items, param
from .families.discrete import Discrete
from .families.epsdelta import EpsDelta
from .families.gaussian import Gaussian
from .families.laplace import Laplace
from .families.trivial import Id, Zero
from .notions.renyi_dp import zCDP
from .operators.mechanism import AddRemove
from .operators.subsample import Mix, Subsample

__all__ = ["from_dp_event"]


_OWNER = "from_dp_event"


def _field(event: Any, name: str) -> Any:
    try:
        return getattr(event, name)
    except AttributeError:
        raise InvalidParameter(name, None, f"a field of {type(event).__name__}", _OWNER,
                               "the event has no such field") from None


def _num(x: Any, name: str, **bounds: Any) -> sp.Expr:
    """A field of an event: a number (floats read exactly), checked by the validator with the
    field's range; NaN, booleans, strings, complex numbers and symbols raise InvalidParameter
    naming the field."""
    return param(name, x, owner=_OWNER, numeric=True, **bounds)


def _noise(event: Any, family) -> TradeOff:
    s = _num(_field(event, "noise_multiplier"), "noise_multiplier", lower=0)
    if s == 0:
        return Zero
    return family(1 / s)


def _rr(event: Any) -> TradeOff:
    p = _num(_field(event, "noise_parameter"), "noise_parameter", lower=0, upper=1)
    k = int(_num(_field(event, "num_buckets"), "num_buckets", lower=1, integer=True))
    if k < 2:
        return Id
    a, b = 1 - p + p / k, p / k
    rest = (k - 2) * p / k
    return Discrete([a, b, rest], [b, a, rest]) if rest else Discrete([a, b], [b, a])


def from_dp_event(event: Any) -> TradeOff:
    """The trade-off expression of a dp_accounting ``DpEvent`` tree (module docstring)."""
    kind = type(event).__name__
    if kind == "GaussianDpEvent":
        return _noise(event, Gaussian)
    if kind == "LaplaceDpEvent":
        return _noise(event, Laplace)
    if kind == "RandomizedResponseDpEvent":
        return _rr(event)
    if kind == "EpsilonDeltaDpEvent":
        return EpsDelta(_num(_field(event, "epsilon"), "epsilon", lower=0),
                        _num(_field(event, "delta"), "delta", lower=0, upper=1))
    if kind == "ZCDpEvent":
        return zCDP(_num(_field(event, "rho"), "rho", lower=0),
                    _num(getattr(event, "xi", 0), "xi", lower=0)).to_tradeoff()
    if kind == "NoOpDpEvent":
        return Id
    if kind == "NonPrivateDpEvent":
        return Zero
    if kind == "PoissonSampledDpEvent":
        inner = from_dp_event(_field(event, "event"))
        q = _num(_field(event, "sampling_probability"), "sampling_probability", lower=0,
                 upper=1)
        return AddRemove(Mix(inner, q))
    if kind == "SampledWithoutReplacementDpEvent":
        inner = from_dp_event(_field(event, "event"))
        n = _num(_field(event, "source_dataset_size"), "source_dataset_size", lower=1,
                 integer=True)
        m = _num(_field(event, "sample_size"), "sample_size", lower=0, upper=n, integer=True)
        return Subsample(inner, m / n)
    if kind == "ComposedDpEvent":
        events = items("events", _field(event, "events"), "a sequence of DpEvents", _OWNER)
        parts = [from_dp_event(e) for e in events]
        if not parts:
            return Id
        out = parts[0]
        for g in parts[1:]:
            out = out @ g
        return out
    if kind == "SelfComposedDpEvent":
        count = _num(_field(event, "count"), "count", lower=0, integer=True)
        return from_dp_event(_field(event, "event")) ** count
    raise InvalidParameter("event", kind, "a DpEvent with a trade-off function: Gaussian, "
                           "Laplace, RandomizedResponse, EpsilonDelta, PoissonSampled, "
                           "SampledWithoutReplacement, Composed, SelfComposed, ZCDp, NoOp, "
                           "NonPrivate", "from_dp_event")
