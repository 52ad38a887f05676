"""A privacy accountant: mechanisms composed into one trade-off expression.

``Accountant(neighbours="add_remove")`` records mechanisms as dp_accounting's accountants do
(``compose(mechanism, count)``, consecutive equal mechanisms merged into one power, ``NoOp``
dropped, a power ``f ** n`` recorded as ``(f, n)``) and answers from the composed trade-off
expression: ``expression`` (simplified by the ``eq`` rules only), ``latex()``,
``epsilon(delta)`` and ``delta(eps)`` (the library's ``Value`` with its guarantee),
``curve(alphas)``, and dp_accounting's ``get_epsilon(target_delta)`` / ``get_delta(
target_epsilon)`` as floats on the safe side. A mechanism is a trade-off expression of the
library or a dp_accounting ``DpEvent`` (read by ``interop.from_dp_event`` under the
accountant's relation; dp_accounting itself is never imported for that).

Neighbouring relation. ``"add_remove"``: each mechanism runs on the same pair of neighbouring
datasets, so the compositions pair their directions (``operators.mechanism``): an
``AddRemove(h)`` mechanism (``noisy_sgd(..., sampling="poisson")``, a Poisson-sampled
``DpEvent``) contributes its remove direction h, a symmetric one (G_mu, Laplace) its only
direction, and the result is ``AddRemove(h_1 (x) ... (x) h_k)`` = C(h_1 (x) ... (x) h_k)
(Dong, Roth & Su, Sec. 3.1 property 4; the symmetric hull C of Wang et al., Sec. 2). Any other
expression f is taken as a guarantee "f-DP" and composed by the tensor product (Dong, Roth &
Su, Thm. 4). ``"replace_one"``: expressions compose by the tensor product; ``AddRemove``
mechanisms are refused (they are statements under the other relation), and ``DpEvent``\\ s are
read as dp_accounting's ``REPLACE_ONE`` reads them (a Gaussian event has twice the
sensitivity; ``interop._replace_one``).

State: the relation and the list of ``(mechanism, count)``. It pickles (nodes are SymPy
objects) and saves to JSON (:meth:`Accountant.to_json`): every node and SymPy number by its
class (module and name) and arguments, Integers and Rationals exactly, a Float by its mpmath
binary value and precision, Symbols with their assumptions; reading rebuilds only SymPy and
tradeoff_algebra classes, never evaluates text as code, and ``from_json(to_json(a)) == a``.
"""

from __future__ import annotations

import importlib
import json
import math
import warnings
from typing import Any

import sympy as sp

from .analysis.conversions import delta as _delta
from .analysis.conversions import epsilon as _epsilon
from .core.errors import InvalidParameter, NumericalError
from .core.node import TradeOff
from .core.validate import choice, param
from .core.validate import count as _count
from .interop import dp_event_module, from_dp_event, to_dp_event
from .numeric import curve as _curve
from .numeric.value import Value
from .operators.mechanism import AddRemove
from .operators.tensor import Tensor, TensorPower
from .printing import latex as _latex
from .rewrite import simplify

__all__ = ["Accountant", "NEIGHBOURS", "FORMAT"]

#: The neighbouring relations, as dp_accounting's ``ADD_OR_REMOVE_ONE`` and ``REPLACE_ONE``.
NEIGHBOURS = ("add_remove", "replace_one")

#: The ``format`` field of :meth:`Accountant.to_json` (its version follows).
FORMAT = "tradeoff_algebra.Accountant"
_VERSION = 1

_ID = Tensor()  # the empty product: Id, the trade-off function of a mechanism revealing nothing


def _is_event(x: Any) -> bool:
    """A dp_accounting ``DpEvent`` (or an object of the same shape: its class name ends in
    ``DpEvent``, as ``from_dp_event`` reads it)."""
    return type(x).__name__.endswith("DpEvent")


class Accountant:
    """Mechanisms composed under a neighbouring relation (module docstring).

    >>> acct = Accountant().compose(noisy_sgd(1.0, 0.01, 1, "poisson"), count=1000)
    >>> acct.epsilon("1e-5").hi  # certified upper end of epsilon at delta = 1e-5
    """

    def __init__(self, neighbours: str = "add_remove") -> None:
        self._neighbours = choice("neighbours", neighbours, NEIGHBOURS, "Accountant")
        self._entries: list[tuple[TradeOff, int]] = []
        self._expr: TradeOff | None = None

    # -- recording -------------------------------------------------------------------------
    @property
    def neighbours(self) -> str:
        """The neighbouring relation, ``"add_remove"`` or ``"replace_one"``."""
        return self._neighbours

    @property
    def entries(self) -> tuple[tuple[TradeOff, int], ...]:
        """The recorded ``(mechanism, count)`` pairs, consecutive equal mechanisms merged."""
        return tuple(self._entries)

    def compose(self, mechanism: Any, count: int = 1) -> Accountant:
        """Record ``count`` runs of ``mechanism`` (a trade-off expression or a ``DpEvent``);
        returns the accountant, so calls chain as dp_accounting's do. ``count`` is an integer
        >= 1; :class:`InvalidParameter` names what is refused."""
        n = _count("count", count, lower=1, owner="Accountant.compose")
        f = self._mechanism(mechanism)
        f, k = _split_power(f)
        if f == _ID:
            return self
        n *= k
        if self._entries and self._entries[-1][0] == f:
            n += self._entries[-1][1]
            self._entries[-1] = (f, n)
        else:
            self._entries.append((f, n))
        self._expr = None
        return self

    def _mechanism(self, mechanism: Any) -> TradeOff:
        owner = "Accountant.compose"
        if isinstance(mechanism, TradeOff):
            f = mechanism
        elif _is_event(mechanism):
            f = from_dp_event(mechanism, neighbours=self._neighbours)
        else:
            raise InvalidParameter("mechanism", mechanism, "a trade-off expression (e.g. "
                                   "ta.noisy_sgd(...), ta.G(mu)) or a dp_accounting DpEvent",
                                   owner)
        if self._neighbours == "replace_one" and f.has(AddRemove):
            raise InvalidParameter("mechanism", mechanism, "an expression under replace-one "
                                   "neighbours (no AddRemove)", owner,
                                   "AddRemove(...) states a mechanism under add/remove "
                                   "neighbours: use Accountant(neighbours='add_remove'), or "
                                   "noisy_sgd(..., neighbours='replace_one')")
        return f

    # -- the composed expression -------------------------------------------------------------
    @property
    def expression(self) -> TradeOff:
        """The trade-off expression of everything composed so far, simplified by the
        identities (``eq`` rules) only: ``Id`` before anything is composed."""
        if self._expr is None:
            out: TradeOff = _ID
            for f, n in self._entries:
                term = f if n == 1 else f ** n
                out = term if out == _ID else out @ term
            self._expr = simplify(out)
        return self._expr

    def latex(self) -> str:
        """The LaTeX of :attr:`expression` in the papers' notation."""
        return _latex(self.expression)

    def epsilon(self, delta: Any, dps: int = 30) -> Value:
        """The smallest epsilon with delta(epsilon) <= delta (``ta.epsilon``): a ``Value``
        whose ``guarantee`` says how it is known; ``hi`` is the safe end."""
        return _epsilon(self.expression, delta, dps=dps)

    def delta(self, eps: Any, dps: int = 30) -> Value:
        """The privacy profile delta(eps) (``ta.delta``; Dong, Roth & Su, Prop. 6)."""
        return _delta(self.expression, eps, dps=dps)

    def curve(self, alphas: Any, bounds: bool = False) -> Any:
        """The trade-off curve at the levels ``alphas`` (``ta.curve``)."""
        return _curve(self.expression, alphas, bounds=bounds)

    # -- dp_accounting's float interface ------------------------------------------------------
    def get_epsilon(self, target_delta: Any, dps: int = 8) -> float:
        """The upper end of the epsilon enclosure at ``target_delta``, rounded up to a float
        (dp_accounting's ``get_epsilon``): ``inf`` for a non-private composition, and ``inf``
        with a ``RuntimeWarning`` naming the cause when the engine cannot enclose it."""
        if not isinstance(target_delta, str):  # strings are levels read exactly ("1e-5")
            param("target_delta", target_delta, lower=0, upper=1, numeric=True,
                  owner="Accountant.get_epsilon")
        if not self._entries:
            return 0.0
        try:
            v = _epsilon(self.expression, target_delta, dps=dps)
        except NumericalError as e:
            warnings.warn(f"Accountant: no finite certified epsilon ({e})", RuntimeWarning,
                          stacklevel=2)
            return math.inf
        return _float_up(v.hi)

    def get_delta(self, target_epsilon: Any, dps: int = 8) -> float:
        """The upper end of the delta enclosure at ``target_epsilon``, rounded up to a float
        (dp_accounting's ``get_delta``); 1.0 with a ``RuntimeWarning`` when the engine
        cannot enclose it."""
        if not isinstance(target_epsilon, str):
            param("target_epsilon", target_epsilon, lower=0, numeric=True,
                  owner="Accountant.get_delta")
        if not self._entries:
            return 0.0
        try:
            v = _delta(self.expression, target_epsilon, dps=dps)
        except NumericalError as e:
            warnings.warn(f"Accountant: no certified delta ({e})", RuntimeWarning,
                          stacklevel=2)
            return 1.0
        return min(_float_up(v.hi), 1.0)

    # -- DpEvents --------------------------------------------------------------------------
    def to_dp_event(self, events: Any = None) -> Any:
        """The ledger as one ``DpEvent``, built as dp_accounting's ``DpEventBuilder`` builds
        it: ``NoOpDpEvent`` when empty, the event itself for one entry of count 1, a
        ``SelfComposedDpEvent`` for a count above 1, a ``ComposedDpEvent`` of several
        entries. ``events``: the module of ``DpEvent`` classes (``dp_accounting.dp_event`` by
        default; without dp_accounting a :class:`TradeOffError` says how to install it). A
        mechanism without an event (``interop.to_dp_event``) raises
        :class:`InvalidParameter` naming it."""
        if events is None:
            events = dp_event_module()
        parts = []
        for f, n in self._entries:
            e = to_dp_event(f, self._neighbours, events)
            parts.append(e if n == 1 else events.SelfComposedDpEvent(event=e, count=n))
        if not parts:
            return events.NoOpDpEvent()
        return parts[0] if len(parts) == 1 else events.ComposedDpEvent(events=parts)

    @classmethod
    def from_dp_event(cls, event: Any, neighbours: str = "add_remove") -> Accountant:
        """An accountant with ``event`` composed once (a ``ComposedDpEvent`` part by part, so
        that ``Accountant.from_dp_event(a.to_dp_event()) == a``)."""
        acct = cls(neighbours)
        if not _is_event(event):
            raise InvalidParameter("event", event, "a dp_accounting DpEvent",
                                   "Accountant.from_dp_event")
        parts = getattr(event, "events", None) if type(event).__name__ == \
            "ComposedDpEvent" else None
        for e in (parts if parts is not None else [event]):
            acct.compose(e)
        return acct

    # -- state -----------------------------------------------------------------------------
    def to_json(self) -> str:
        """The state as JSON text, parameters exact (module docstring)."""
        state = {"format": FORMAT, "version": _VERSION, "neighbours": self._neighbours,
                 "entries": [{"mechanism": _encode(f), "count": n} for f, n in self._entries]}
        return json.dumps(state)

    @classmethod
    def from_json(cls, text: str | bytes) -> Accountant:
        """The accountant saved by :meth:`to_json`; :class:`InvalidParameter` for text that
        is not such a state."""
        owner = "Accountant.from_json"
        try:
            state = json.loads(text)
        except (TypeError, ValueError) as e:
            raise InvalidParameter("text", text, "JSON text of Accountant.to_json", owner,
                                   str(e)) from None
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise InvalidParameter("text", text, f"a JSON object with format {FORMAT!r}", owner)
        if state.get("version") != _VERSION:
            raise InvalidParameter("version", state.get("version"), str(_VERSION), owner)
        acct = cls(state.get("neighbours"))
        entries = state.get("entries")
        if not isinstance(entries, list):
            raise InvalidParameter("entries", entries, "a list", owner)
        for item in entries:
            if not isinstance(item, dict) or set(item) != {"mechanism", "count"}:
                raise InvalidParameter("entries", item, "objects with mechanism and count",
                                       owner)
            f = _decode(item["mechanism"])
            if not isinstance(f, TradeOff):
                raise InvalidParameter("mechanism", f, "a trade-off expression", owner)
            acct._entries.append((acct._mechanism(f),
                                  _count("count", item["count"], lower=1, owner=owner)))
        return acct

    def __getstate__(self) -> dict[str, Any]:
        return {"neighbours": self._neighbours, "entries": list(self._entries)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._neighbours = state["neighbours"]
        self._entries = [(f, int(n)) for f, n in state["entries"]]
        self._expr = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Accountant):
            return NotImplemented
        return (self._neighbours, self._entries) == (other._neighbours, other._entries)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        body = ", ".join(f"{f}" if n == 1 else f"({f}, {n})" for f, n in self._entries)
        return f"Accountant(neighbours={self._neighbours!r}, entries=[{body}])"


def _split_power(f: TradeOff) -> tuple[TradeOff, int]:
    """``f = g ** n`` with a positive integer n as (g, n), also inside ``AddRemove``
    (``AddRemove(h ** n) = AddRemove(h) ** n``, ``operators.mechanism``); else (f, 1)."""
    inner, wrap = (f.arg, AddRemove) if isinstance(f, AddRemove) else (f, None)
    if isinstance(inner, TensorPower) and inner.n.is_Integer and inner.n >= 1:
        base = inner.base if wrap is None else wrap(inner.base)
        g, k = _split_power(base)
        return g, k * int(inner.n)
    return f, 1


def _float_up(x: Any) -> float:
    """The least float >= x."""
    v = float(x)
    return math.nextafter(v, math.inf) if v < x else v


# ------------------------------------------------------------------------------------------
# JSON of SymPy trees: classes by module and name, numbers exactly
# ------------------------------------------------------------------------------------------
_PACKAGES = ("sympy.", "tradeoff_algebra.")


def _encode(x: Any) -> Any:
    if isinstance(x, sp.Integer):
        return {"integer": str(int(x))}
    if isinstance(x, sp.Rational):
        return {"rational": f"{int(x.p)}/{int(x.q)}"}
    if isinstance(x, sp.Float):
        sign, man, exp, bc = x._mpf_
        return {"float": [sign, hex(man), exp, bc], "precision": x._prec}
    if type(x) is sp.Symbol:
        given = getattr(x, "_assumptions_orig", None)  # as given (SymPy >= 1.12)
        return {"symbol": x.name, "assumptions": dict(x._assumptions0 if given is None
                                                      else given)}
    if isinstance(x, sp.core.symbol.Str):
        return {"str": x.name}
    if isinstance(x, sp.Basic) and (x.args or not x.is_Symbol):
        cls = type(x)
        if not cls.__module__.startswith(_PACKAGES):
            raise InvalidParameter("mechanism", x, "SymPy and tradeoff_algebra objects",
                                   "Accountant.to_json")
        return {"class": f"{cls.__module__}:{cls.__qualname__}",
                "args": [_encode(a) for a in x.args]}
    raise InvalidParameter("mechanism", x, "SymPy and tradeoff_algebra objects (a Dummy or an "
                           "unnamed object cannot be saved)", "Accountant.to_json")


def _decode(d: Any) -> Any:
    owner = "Accountant.from_json"
    if not isinstance(d, dict):
        raise InvalidParameter("mechanism", d, "an encoded SymPy object", owner)
    try:
        if "integer" in d:
            return sp.Integer(int(d["integer"]))
        if "rational" in d:
            p, q = d["rational"].split("/")
            return sp.Rational(int(p), int(q))
        if "float" in d:
            sign, man, exp, bc = d["float"]
            return sp.Float._new((int(sign), int(man, 16), int(exp), int(bc)),
                                 int(d["precision"]))
        if "symbol" in d:
            return sp.Symbol(str(d["symbol"]), **{str(k): bool(v) for k, v in
                                                  d["assumptions"].items()})
        if "str" in d:
            return sp.core.symbol.Str(str(d["str"]))
        cls = _class(d["class"])
        return cls(*[_decode(a) for a in d["args"]])
    except InvalidParameter:
        raise
    except Exception as e:
        raise InvalidParameter("mechanism", d, "an encoded SymPy object", owner,
                               f"{type(e).__name__}: {e}") from None


def _class(name: str) -> type:
    module, _, qual = name.partition(":")
    if not module.startswith(_PACKAGES) or not qual or "." in qual:
        raise ValueError(f"not a SymPy or tradeoff_algebra class: {name}")
    cls = getattr(importlib.import_module(module), qual)
    if not (isinstance(cls, type) and issubclass(cls, sp.Basic)):
        raise ValueError(f"not a SymPy class: {name}")
    return cls
