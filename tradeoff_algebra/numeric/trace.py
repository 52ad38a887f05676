"""Which route answered a numeric question: a record per thread that a public call reads into
``Value.route``.

A route that answers (a product route of ``routes/``, a certified point route, the Arb fast
path, the exact finite arithmetic) calls :func:`note` with its name; :func:`recording` collects
the names noted while it is open (nested recordings pass theirs on to the enclosing one), in
the order first noted. The record says what was computed, not what it guarantees (that is
``Value.guarantee``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["note", "recording", "described"]

_LOCAL = threading.local()


@contextmanager
def recording() -> Iterator[list[str]]:
    """Collect the route names noted in this thread until the block ends."""
    outer = getattr(_LOCAL, "names", None)
    names: list[str] = []
    _LOCAL.names = names
    try:
        yield names
    finally:
        _LOCAL.names = outer
        if outer is not None:
            outer.extend(n for n in names if n not in outer)


def note(name: str) -> None:
    """Record that the route ``name`` answered (a no-op outside :func:`recording`)."""
    names = getattr(_LOCAL, "names", None)
    if names is not None and name not in names:
        names.append(name)


def described(names: list[str], default: str) -> str:
    """The routes of a record as one text (``default`` when none was noted)."""
    return " + ".join(names) if names else default
