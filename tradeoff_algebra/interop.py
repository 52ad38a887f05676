"""From dp_accounting's ``DpEvent`` trees to trade-off expressions.

``from_dp_event(event)`` reads the event tree by its class names and fields (dp_accounting is
not imported here; any object with the same names and fields works), under add/remove
neighbours, the relation of dp_accounting's accountants by default (``neighbours=
"replace_one"`` reads it under replace-one neighbours, see ``_replace_one``):

=====================================  =====================================================
``GaussianDpEvent(noise_multiplier)``   ``G(1/noise_multiplier)`` (sensitivity 1); ``Zero`` at 0
``LaplaceDpEvent(noise_multiplier)``    ``Laplace(1/noise_multiplier)``; ``Zero`` at 0
``RandomizedResponseDpEvent(p, k)``     the pair of the two buckets a change moves between:
                                        ``Discrete([1 - p + p/k, p/k, (k-2)p/k], [p/k,
                                        1 - p + p/k, (k-2)p/k])``; for k = 2
                                        ``EpsDelta(log((2-p)/p), 0)``; ``Zero`` at p = 0
``SingleEpochTreeAggregationDpEvent``   ``G(sqrt(d)/s)``, d = ceil(log2(T + 1)) the most nodes
(s, step_counts)                        a record touches, T the largest step count: exact
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
kind without an exact trade-off function (``UnsupportedDpEvent``, ``RepeatAndSelectDpEvent``:
only Renyi-DP bounds are known for it, ...) raises :class:`InvalidParameter` naming it.

``to_dp_event(f, neighbours=...)`` goes the other way for what has a ``DpEvent`` equivalent:
``Id`` (``NoOpDpEvent``), ``Zero`` (``NonPrivateDpEvent``), ``G(mu)``, ``Laplace(mu)``,
``EpsDelta(eps, delta)``, the k-ary randomized response pair ``Discrete([1 - p + p/k, p/k,
(k-2)p/k], [p/k, 1 - p + p/k, (k-2)p/k])`` with rational entries (``RandomizedResponseDpEvent(p,
k)``, p rounded down), ``f ** n`` (``SelfComposedDpEvent``), ``f @ g`` (``ComposedDpEvent``)
and, under add/remove neighbours, ``AddRemove(h)`` with ``Mix(g, q)`` factors in ``h``
(``PoissonSampledDpEvent(q, event of g)``, as ``from_dp_event`` reads it); under replace-one
neighbours (dp_accounting's ``REPLACE_ONE``, where a Gaussian event has twice the sensitivity)
``G(mu)`` is ``GaussianDpEvent(2/mu)`` and ``PoissonReplace(mu, q)``
``PoissonSampledDpEvent(q, GaussianDpEvent(1/mu))``. Event fields are floats, rounded in the
direction that claims less privacy (noise multipliers down; epsilon, delta and sampling
probabilities up), so the event never states more than the expression; a float parameter
(an exact binary number) is kept exactly, and ``from_dp_event(to_dp_event(f)) == f``. Anything
else (``C_p``: the event needs the dataset and batch sizes; ``RenyiRegion``; symbolic
parameters) raises :class:`InvalidParameter` naming it.
"""

from __future__ import annotations

import importlib
import math
from fractions import Fraction
from typing import Any

import sympy as sp

from .core.errors import InvalidParameter, TradeOffError
from .core.node import TradeOff
from .core.validate import choice, items, param
from .families.discrete import Discrete
from .families.epsdelta import EpsDelta
from .families.gaussian import Gaussian
from .families.laplace import Laplace
from .families.poisson_replace import PoissonReplace
from .families.trivial import Id, Zero
from .notions.concentrated import zCDP
from .operators.mechanism import AddRemove
from .operators.subsample import Mix, Subsample
from .operators.tensor import Tensor, TensorPower

__all__ = ["from_dp_event", "to_dp_event", "dp_event_module"]


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
    """k-ary randomized response with noise parameter p (dp_accounting's
    ``RandomizedResponseDpEvent``: with probability 1 - p the value itself, else a uniform draw
    from the k buckets): the true bucket has probability a = 1 - p + p/k, each other p/k, so
    e^eps = a/(p/k) = 1 + k (1 - p)/p (``mechanisms.randomized_response``). The pair of two
    inputs x != x' is the one of the buckets x' and x and the k - 2 others:
    ``Discrete([a, p/k, (k-2) p/k], [p/k, a, (k-2) p/k])``; for k = 2 it is f_{eps,0} itself,
    ``EpsDelta(log((2 - p)/p), 0)``; p = 0 (no noise) is ``Zero``, p = 1 and k = 1 ``Id``."""
    p = _num(_field(event, "noise_parameter"), "noise_parameter", lower=0, upper=1)
    k = int(_num(_field(event, "num_buckets"), "num_buckets", lower=1, integer=True))
    if k < 2 or p == 1:
        return Id
    if p == 0:
        return Zero
    if k == 2:
        return EpsDelta(sp.log((2 - p) / p), 0)
    a, b = 1 - p + p / k, p / k
    return Discrete([a, b, (k - 2) * b], [b, a, (k - 2) * b])


def _tree(event: Any, sensitivity: int) -> TradeOff:
    """``SingleEpochTreeAggregationDpEvent(s, step_counts)``: tree aggregation (Kairouz et al.
    2021, "Practical and private (deep) learning without sampling or shuffling", App. D), each
    record in one leaf of one tree, every node of a tree with T steps released with Gaussian
    noise of s times the sensitivity. A tree over T steps releases the dyadic intervals within
    [1, T]; leaf 1 lies in one of each length 2^j <= T, the most of any leaf, so a record
    touches at most d = ceil(log2(T + 1)) = floor(log2 T) + 1 nodes (dp_accounting's
    ``max_depth``, from the largest T). A change of the record moves each of them by at most
    the sensitivity: conditioned on the earlier outputs each node is a Gaussian mechanism, of
    sensitivity 0 except at those d nodes, so the release is G_{sqrt(d)/s} (Dong, Roth & Su,
    Thm. 4 and Cor. 2), attained when the change moves all d nodes by the full sensitivity
    (a non-adaptive stream): ``G(sqrt(d)/s)``, the exact worst case; dp_accounting's RDP
    accountant gives it the RDP of that Gaussian, alpha d/(2 s^2). Under replace-one
    neighbours the change of a leaf is at most twice the bound (``sensitivity=2``), as for
    ``GaussianDpEvent``. No steps: ``Id``; s = 0: ``Zero``."""
    s = _num(_field(event, "noise_multiplier"), "noise_multiplier", lower=0)
    raw = _field(event, "step_counts")
    if isinstance(raw, (list, tuple)):
        if not raw:
            raise InvalidParameter("step_counts", raw, "a non-negative integer or a non-empty "
                                   "list of them", _OWNER)
        steps = [_num(x, "step_counts", lower=0, integer=True) for x in raw]
    else:
        steps = [_num(raw, "step_counts", lower=0, integer=True)]
    T = int(max(steps))
    if T == 0:
        return Id
    if s == 0:
        return Zero
    d = T.bit_length()  # ceil(log2(T + 1)) = floor(log2 T) + 1, exactly
    return Gaussian(sensitivity * sp.sqrt(d) / s)


#: Why a RepeatAndSelectDpEvent has no trade-off function here.
_REPEAT_SELECT = ("RepeatAndSelectDpEvent (Papernot & Steinke 2022, hyperparameter tuning with "
                  "a random number of runs) has only Renyi-DP bounds in the literature (the ones "
                  "dp_accounting's RDP accountant applies), no exact trade-off "
                  "function; account it with dp_accounting's RdpAccountant, or give a bound "
                  "yourself (e.g. ta.RDP(...).to_tradeoff())")


def from_dp_event(event: Any, neighbours: str = "add_remove") -> TradeOff:
    """The trade-off expression of a dp_accounting ``DpEvent`` tree (module docstring);
    ``neighbours="replace_one"`` reads it as dp_accounting's accountants do under
    ``REPLACE_ONE`` (:func:`_replace_one`)."""
    if choice("neighbours", neighbours, ("add_remove", "replace_one"),
              _OWNER) == "replace_one":
        return _replace_one(event)
    kind = type(event).__name__
    if kind == "GaussianDpEvent":
        return _noise(event, Gaussian)
    if kind == "LaplaceDpEvent":
        return _noise(event, Laplace)
    if kind == "RandomizedResponseDpEvent":
        return _rr(event)
    if kind == "SingleEpochTreeAggregationDpEvent":
        return _tree(event, 1)
    if kind == "RepeatAndSelectDpEvent":
        raise InvalidParameter("event", kind, "a DpEvent with an exact trade-off function",
                               _OWNER, _REPEAT_SELECT)
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
                           "SampledWithoutReplacement, SingleEpochTreeAggregation, Composed, "
                           "SelfComposed, ZCDp, NoOp, NonPrivate", "from_dp_event")


def _replace_one(event: Any) -> TradeOff:
    """A ``DpEvent`` under replace-one neighbours, as dp_accounting's PLD accountant reads it
    with ``REPLACE_ONE``: ``GaussianDpEvent(s)`` has twice the sensitivity, ``G(2/s)``;
    ``PoissonSampledDpEvent(q, GaussianDpEvent(s))`` is the substitution pair
    ``PoissonReplace(1/s, q)`` (``noisy_sgd(..., sampling="poisson",
    neighbours="replace_one")``); Laplace events and other Poisson-sampled events are refused,
    as dp_accounting refuses them; compositions recurse; the remaining kinds do not depend on
    the relation (EpsilonDelta, ZCDp, NoOp, NonPrivate) or are a replace-one pair already
    (RandomizedResponse) and are read as by :func:`from_dp_event`;
    ``SampledWithoutReplacementDpEvent`` is ``C(m/n, g)`` with g its event read here (Dong,
    Roth & Su, Thm. 9: g is the inner mechanism's replace-one trade-off function)."""
    kind = type(event).__name__
    if kind == "GaussianDpEvent":
        s = _num(_field(event, "noise_multiplier"), "noise_multiplier", lower=0)
        return Zero if s == 0 else Gaussian(2 / s)
    if kind == "SingleEpochTreeAggregationDpEvent":
        return _tree(event, 2)
    if kind == "PoissonSampledDpEvent" and type(_field(event, "event")).__name__ == \
            "GaussianDpEvent":
        q = _num(_field(event, "sampling_probability"), "sampling_probability", lower=0,
                 upper=1)
        s = _num(_field(_field(event, "event"), "noise_multiplier"), "noise_multiplier",
                 lower=0)
        if q == 0:
            return Id
        return Zero if s == 0 else PoissonReplace(1 / s, q)
    if kind in ("LaplaceDpEvent", "PoissonSampledDpEvent"):
        raise InvalidParameter("event", kind, "under replace-one neighbours: Gaussian, "
                               "PoissonSampled(Gaussian), RandomizedResponse, EpsilonDelta, "
                               "SampledWithoutReplacement, Composed, SelfComposed, ZCDp, NoOp, "
                               "NonPrivate", _OWNER, "dp_accounting refuses it under "
                               "REPLACE_ONE too: its noise multiplier is relative to the "
                               "add/remove sensitivity")
    if kind == "ComposedDpEvent":
        events = items("events", _field(event, "events"), "a sequence of DpEvents", _OWNER)
        return Tensor(*[_replace_one(e) for e in events])
    if kind == "SelfComposedDpEvent":
        count = _num(_field(event, "count"), "count", lower=0, integer=True)
        return _replace_one(_field(event, "event")) ** count
    if kind == "SampledWithoutReplacementDpEvent":
        n = _num(_field(event, "source_dataset_size"), "source_dataset_size", lower=1,
                 integer=True)
        m = _num(_field(event, "sample_size"), "sample_size", lower=0, upper=n, integer=True)
        return Subsample(_replace_one(_field(event, "event")), m / n)
    return from_dp_event(event)


# ------------------------------------------------------------------------------------------
# the other way: trade-off expressions to DpEvents
# ------------------------------------------------------------------------------------------
_TO = "to_dp_event"


def dp_event_module() -> Any:
    """``dp_accounting.dp_event`` (its ``DpEvent`` classes); a :class:`TradeOffError` saying
    how to install it when dp_accounting is not importable."""
    try:
        return importlib.import_module("dp_accounting.dp_event")
    except ImportError:
        raise TradeOffError("to_dp_event needs dp_accounting (pip install dp-accounting), or "
                            "events=<a module or namespace with the DpEvent classes>") from None


def _number(x: sp.Expr, what: str, f: TradeOff) -> sp.Expr:
    if not (x.is_number and x.is_extended_real):
        raise InvalidParameter("f", f, "an expression with numeric parameters", _TO,
                               f"its {what} is {x}")
    return x


def _float(x: sp.Expr, up: bool, what: str, f: TradeOff) -> float:
    """The float nearest to the real number x on the side that claims less privacy: the least
    float >= x (``up``) or the greatest float <= x. Exact for a Rational; an irrational x is
    evaluated to 40 digits and then moved one more float outward (the error of the 40-digit
    value is far below a float's spacing)."""
    x = _number(x, what, f)
    if x is sp.oo or x is sp.S.Infinity:
        return math.inf
    if x.is_Rational:
        r = Fraction(int(x.p), int(x.q))
        v = float(r)
        if up and Fraction(v) < r:
            v = math.nextafter(v, math.inf)
        elif not up and Fraction(v) > r:
            v = math.nextafter(v, -math.inf)
        return v
    v = float(sp.N(x, 40))
    return math.nextafter(v, math.inf if up else -math.inf)


def _noise_multiplier(mu: sp.Expr, sensitivity: int, f: TradeOff) -> float:
    """The noise multiplier sensitivity/mu rounded down (a smaller noise multiplier claims
    less privacy)."""
    mu = _number(mu, "mu", f)
    return _float(sensitivity / mu, False, "noise multiplier", f)


def _rr_parameters(f: Discrete) -> tuple[sp.Expr, int] | None:
    """(p, k) when f is the pair of k-ary randomized response that :func:`from_dp_event` reads
    (``Discrete([a, b, (k-2) b], [b, a, (k-2) b])``, a = 1 - p + p/k, b = p/k, k >= 3, all
    rational), else None."""
    P, Q = f.P, f.Q
    if len(P) != 3 or not all(x.is_Rational for x in (*P, *Q)):
        return None
    a, b, r = P
    if (Q[0], Q[1], Q[2]) != (b, a, r) or b <= 0 or a <= b:
        return None
    k = 2 + r / b
    if not k.is_Integer or k < 3 or a != 1 - k * b + b:
        return None
    return k * b, int(k)


def to_dp_event(f: TradeOff, neighbours: str = "add_remove", events: Any = None) -> Any:
    """The ``DpEvent`` of a trade-off expression (module docstring); ``events`` is the module
    of ``DpEvent`` classes (``dp_accounting.dp_event`` by default: any object with the same
    class names and fields works)."""
    choice("neighbours", neighbours, ("add_remove", "replace_one"), _TO)
    if not isinstance(f, TradeOff):
        raise InvalidParameter("f", f, "a trade-off expression", _TO)
    ev = dp_event_module() if events is None else events
    return _event(f, neighbours, ev, inside=False)


def _event(f: TradeOff, rel: str, ev: Any, inside: bool) -> Any:
    """``inside``: a factor of the remove direction h of ``AddRemove(h)``."""
    if f == Id:
        return ev.NoOpDpEvent()
    if f == Zero:
        return ev.NonPrivateDpEvent()
    if isinstance(f, Gaussian):
        if _number(f.mu, "mu", f) == 0:
            return ev.NoOpDpEvent()
        return ev.GaussianDpEvent(noise_multiplier=_noise_multiplier(f.mu, 2 if rel == "replace_one"
                                                          else 1, f))
    if isinstance(f, Laplace) and rel == "add_remove":
        if _number(f.mu, "mu", f) == 0:
            return ev.NoOpDpEvent()
        return ev.LaplaceDpEvent(noise_multiplier=_noise_multiplier(f.mu, 1, f))
    rr = _rr_parameters(f) if isinstance(f, Discrete) else None
    if rr is not None:
        p, k = rr
        return ev.RandomizedResponseDpEvent(noise_parameter=_float(p, False, "p", f),
                                            num_buckets=k)
    if isinstance(f, EpsDelta):
        return ev.EpsilonDeltaDpEvent(epsilon=_float(f.eps, True, "epsilon", f),
                                      delta=_float(f.delta, True, "delta", f))
    if isinstance(f, TensorPower):
        n = _number(f.n, "exponent", f)
        if not n.is_Integer or n < 0:
            raise InvalidParameter("f", f, "a power with a non-negative integer exponent", _TO)
        return ev.SelfComposedDpEvent(event=_event(f.base, rel, ev, inside), count=int(n))
    if isinstance(f, Tensor):
        return ev.ComposedDpEvent(events=[_event(g, rel, ev, inside) for g in f.factors])
    if isinstance(f, AddRemove) and rel == "add_remove" and not inside:
        return _event(f.arg, rel, ev, inside=True)
    if isinstance(f, Mix) and inside:
        if f.arg.is_symmetric is not True:
            raise InvalidParameter("f", f, "Mix(g, q) of a symmetric g inside AddRemove", _TO)
        return ev.PoissonSampledDpEvent(sampling_probability=_float(f.p, True, "q", f),
                                        event=_event(f.arg, rel, ev, inside=False))
    if isinstance(f, PoissonReplace) and rel == "replace_one":
        if _number(f.q, "q", f) == 0 or _number(f.mu, "mu", f) == 0:
            return ev.NoOpDpEvent()
        return ev.PoissonSampledDpEvent(
            sampling_probability=_float(f.q, True, "q", f),
            event=ev.GaussianDpEvent(noise_multiplier=_noise_multiplier(f.mu, 1, f)))
    if isinstance(f, Subsample):
        hint = ("C_p(g) is SampledWithoutReplacementDpEvent(n, m, event of g), which needs the "
                "dataset size n and the batch size m, not only p = m/n")
    elif type(f).__name__ == "BoundedRange":
        hint = ("dp_accounting has no event for the exponential mechanism (BoundedRange); "
                "EpsilonDeltaDpEvent(eps, 0) states the weaker eps-DP guarantee")
    elif isinstance(f, (AddRemove, PoissonReplace, Laplace)):
        hint = f"{type(f).__name__} is not an event under {rel} neighbours"
    else:
        hint = None
    raise InvalidParameter("f", f, "an expression with a DpEvent equivalent: Id, Zero, G, "
                           "Laplace, EpsDelta, the k-ary randomized response pair, powers and "
                           "products of these, AddRemove of "
                           "Mix(G, q) (add/remove), PoissonReplace (replace-one)", _TO,
                           hint or f"no DpEvent for {type(f).__name__}")
