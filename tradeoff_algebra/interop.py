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
from .families.discrete import Discrete
from .families.epsdelta import EpsDelta
from .families.gaussian import Gaussian
from .families.laplace import Laplace
from .families.trivial import Id, Zero
from .notions.renyi_dp import zCDP
from .operators.mechanism import AddRemove
from .operators.subsample import Mix, Subsample

__all__ = ["from_dp_event"]


def _num(x: Any, name: str) -> sp.Expr:
    try:
        # (exact: sp.Rational(float) rounds at mpmath's global precision)
        return sp.Rational(*x.as_integer_ratio()) if isinstance(x, float) else sp.sympify(x)
    except (TypeError, sp.SympifyError) as exc:
        raise InvalidParameter(name, x, "a number", "from_dp_event") from exc


def _noise(event: Any, family) -> TradeOff:
    s = _num(event.noise_multiplier, "noise_multiplier")
    if s == 0:
        return Zero
    return family(1 / s)


def _rr(event: Any) -> TradeOff:
    p = _num(event.noise_parameter, "noise_parameter")
    k = int(event.num_buckets)
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
        return EpsDelta(_num(event.epsilon, "epsilon"), _num(event.delta, "delta"))
    if kind == "ZCDpEvent":
        return zCDP(_num(event.rho, "rho"), _num(getattr(event, "xi", 0), "xi")).to_tradeoff()
    if kind == "NoOpDpEvent":
        return Id
    if kind == "NonPrivateDpEvent":
        return Zero
    if kind == "PoissonSampledDpEvent":
        inner = from_dp_event(event.event)
        q = _num(event.sampling_probability, "sampling_probability")
        return AddRemove(Mix(inner, q))
    if kind == "SampledWithoutReplacementDpEvent":
        inner = from_dp_event(event.event)
        n = _num(event.source_dataset_size, "source_dataset_size")
        m = _num(event.sample_size, "sample_size")
        return Subsample(inner, m / n)
    if kind == "ComposedDpEvent":
        parts = [from_dp_event(e) for e in event.events]
        if not parts:
            return Id
        out = parts[0]
        for g in parts[1:]:
            out = out @ g
        return out
    if kind == "SelfComposedDpEvent":
        return from_dp_event(event.event) ** int(event.count)
    raise InvalidParameter("event", kind, "a DpEvent with a trade-off function: Gaussian, "
                           "Laplace, RandomizedResponse, EpsilonDelta, PoissonSampled, "
                           "SampledWithoutReplacement, Composed, SelfComposed, ZCDp, NoOp, "
                           "NonPrivate", "from_dp_event")
