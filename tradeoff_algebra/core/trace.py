"""What a computation used: the route that answered, and the results it rests on. A record per
thread.

Two channels, one mechanism (a list per thread that nested recordings pass on to the enclosing
one):

* **routes**: a route that answers (a product route of ``routes/``, a certified point route,
  the Arb fast path, the exact finite arithmetic) calls :func:`note` with its name;
  :func:`recording` collects the names noted while it is open, in the order first noted. A
  public call reads them into ``Value.route``. The record says what was computed, not what it
  guarantees (that is ``Value.guarantee``), and names only what produced the answer: an
  attempt that declined (a route that passed, a route's test of whether it applies) is
  recorded with ``recording(keep=False)`` and its names dropped.
* **basis**: a registered rewrite rule that fires (``core.rules.Rule``) and a closed form the
  library substitutes (the capability points ``profile_form`` and ``functional_form``) call
  :func:`used` with an event: ``("rule", rule)`` or ``("closed form", kind, node, name)``.
  :func:`basis` collects the events while it is open; the proofs read a verdict's basis from
  them. :class:`Memo` is the one bounded memo of a node's registered identity: it stores the
  events its computation used and replays them on a hit, so a rule used through the memo is
  seen each time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["note", "recording", "described", "used", "basis", "Memo"]

_LOCAL = threading.local()


@contextmanager
def _collect(channel: str, keep: bool = True) -> Iterator[list]:
    outer = getattr(_LOCAL, channel, None)
    items: list = []
    setattr(_LOCAL, channel, items)
    try:
        yield items
    finally:
        setattr(_LOCAL, channel, outer)
        if keep and outer is not None:
            outer.extend(x for x in items if x not in outer)


def _add(channel: str, item: Any) -> None:
    items = getattr(_LOCAL, channel, None)
    if items is not None and item not in items:
        items.append(item)


# -- routes -------------------------------------------------------------------------------------
def recording(keep: bool = True) -> Any:
    """Collect the route names noted in this thread until the block ends; ``keep=False``: do
    not pass them on to an enclosing recording (an attempt that may decline, or a route's test
    of its own reach: its caller passes the names on with :func:`note` only when the attempt
    produced the answer, so a declined attempt leaves no trace in a route label)."""
    return _collect("routes", keep)


def note(name: str) -> None:
    """Record that the route ``name`` answered (a no-op outside :func:`recording`)."""
    _add("routes", name)


def described(names: list[str], default: str) -> str:
    """The routes of a record as one text (``default`` when none was noted)."""
    return " + ".join(names) if names else default


# -- basis --------------------------------------------------------------------------------------
def basis(keep: bool = True) -> Any:
    """Collect the basis events (module docstring) used in this thread until the block ends;
    ``keep=False``: do not pass them on to an enclosing :func:`basis` (the library side of a
    cross-check, which is not part of the reference's basis)."""
    return _collect("basis", keep)


def used(event: tuple) -> None:
    """Record a basis event (a no-op outside :func:`basis`)."""
    _add("basis", event)


def recording_basis() -> bool:
    """Whether a :func:`basis` is open in this thread (callers skip building an event when
    not)."""
    return getattr(_LOCAL, "basis", None) is not None


_MISS = object()


class Memo:
    """A bounded memo of a function of a node (emptied when it exceeds ``size`` entries) that
    replays the basis events its computation used. Safe under threads: one lookup per call,
    and a concurrent clear loses entries, never corrupts them."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._table: dict = {}

    def __call__(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        hit = self._table.get(key, _MISS)
        if hit is not _MISS:
            value, events = hit
            for e in events:
                used(e)
            return value
        with basis() as events:
            value = compute()
        if len(self._table) > self.size:
            self._table.clear()
        self._table[key] = (value, tuple(events))
        return value

    def clear(self) -> None:
        self._table.clear()
