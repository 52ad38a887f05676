"""Precision that belongs to the computation, never to the process.

mpmath keeps its working precision in one global context (``mpmath.mp``); two threads that set
it at different ``dps`` corrupt each other's digits, and a library that changes it changes the
user's own computations. Every numeric routine of this package therefore works in a *private*
:class:`mpmath.MPContext` of the calling thread, reached through the proxy :data:`mp`:

    from .context import mp            # never ``from mpmath import mp``
    with mp.workdps(60):
        x = mp.erfc(mp.mpf(3))         # this thread's context, at 60 digits

``mp`` forwards every attribute to the calling thread's context, so the mpmath API reads as
usual (``mp.mpf``, ``mp.exp``, ``mp.workprec``, ``mp.quad`` …) while the global ``mpmath.mp`` is
never read or written. Numbers handed back to the user are converted to the global ``mpmath.mpf``
class without rounding (:func:`public_mpf`); numbers of any context are recognised with
:data:`MPF` (the common base class).

python-flint's Arb precision (``flint.ctx.prec``) is process-global in the C library; sections
that set it run under :func:`arb_precision`, which holds a lock for the section and restores the
previous precision.

An mpf computes in the context that *made* it: ``x + y`` rounds to the precision of ``x``'s
context, whatever thread runs it. An mpf kept between calls (a cache) and read by another
thread therefore computes at that other thread's current precision (53 bits when it is idle).
Caches of mpf values are kept per thread (:func:`thread_cache`, :class:`ThreadCache`) or hold
raw values (``x._mpf_``, rebuilt with ``mp.make_mpf``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

import mpmath
from flint import ctx as _FLINT_CTX
from mpmath.ctx_mp_python import _mpf

__all__ = ["mp", "context", "MPF", "public_mpf", "arb_precision", "locked", "ThreadOptions",
           "ThreadCache", "thread_cache", "lambdify_modules"]

#: The base class of the mpf numbers of every mpmath context (for ``isinstance``).
MPF = _mpf

_local = threading.local()


def context() -> mpmath.MPContext:
    """The calling thread's private mpmath context (created on first use at 53 bits)."""
    try:
        return _local.ctx
    except AttributeError:
        ctx = _local.ctx = mpmath.MPContext()
        return ctx


class _ThreadContext:
    """Forwards attribute access to :func:`context` of the calling thread."""

    __slots__ = ()

    def __getattr__(self, name: str):
        try:
            ctx = _local.ctx
        except AttributeError:
            ctx = context()
        return getattr(ctx, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(context(), name, value)

    def __repr__(self) -> str:
        return f"<thread-private mpmath context, dps={context().dps}>"


#: The calling thread's private mpmath context, as a proxy usable at module level.
mp = _ThreadContext()


def public_mpf(x) -> mpmath.mpf:
    """``x`` (an mpf of any context) as the global ``mpmath.mpf`` class, not rounded."""
    return mpmath.mp.make_mpf(x._mpf_)


_ARB_LOCK = threading.RLock()


def _nothing() -> None:
    return None


#: Run by a thread while it waits for a lock (:func:`locked`): :mod:`.budget` installs its
#: deadline check here when it is imported (it imports this module, not the other way round).
waiting_check: Callable[[], None] = _nothing
#: How often (seconds) a waiting thread runs :data:`waiting_check`.
LOCK_POLL = 0.05


@contextmanager
def locked(lock: Any) -> Iterator[None]:
    """Hold ``lock`` (a :class:`threading.Lock` or ``RLock``) for the block, running
    :data:`waiting_check` while waiting for it: a call queued behind another thread's long
    section still stops at its own time limit."""
    while not lock.acquire(timeout=LOCK_POLL):
        waiting_check()
    try:
        yield
    finally:
        lock.release()


class arb_precision:
    """Run a section at Arb precision ``prec`` bits, serialised with every other such section
    (Arb's precision is process-global); the previous precision is restored on exit. A thread
    waiting for another's section checks its own deadline meanwhile (:func:`locked`). (A class,
    not a generator: entered in every Arb computation, a few microseconds each.)"""

    __slots__ = ("prec", "saved")

    def __init__(self, prec: int) -> None:
        self.prec = int(prec)

    def __enter__(self) -> None:
        if not _ARB_LOCK.acquire(blocking=False):  # (held elsewhere: wait, checking the time)
            while not _ARB_LOCK.acquire(timeout=LOCK_POLL):
                waiting_check()
        try:
            self.saved = _FLINT_CTX.prec
            _FLINT_CTX.prec = self.prec
        except BaseException:
            _ARB_LOCK.release()
            raise

    def __exit__(self, *exc) -> bool:
        try:
            _FLINT_CTX.prec = self.saved
        finally:
            _ARB_LOCK.release()
        return False


class ThreadOptions(MutableMapping):
    """A dict of options private to each thread, like the mpmath contexts above: a thread sees
    the defaults until it sets its own values (``with pld_options(...)`` in one thread never
    changes the numbers another thread computes)."""

    def __init__(self, defaults: dict):
        self._defaults = dict(defaults)
        self._local = threading.local()

    def _dict(self) -> dict:
        d = getattr(self._local, "d", None)
        if d is None:
            d = self._local.d = dict(self._defaults)
        return d

    def __getitem__(self, key):
        return self._dict()[key]

    def __setitem__(self, key, value) -> None:
        self._dict()[key] = value

    def __delitem__(self, key) -> None:
        del self._dict()[key]

    def __iter__(self):
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def copy(self) -> dict:
        """This thread's options as a plain dict."""
        return dict(self._dict())

    def reset(self, values: dict) -> None:
        """Make this thread's options exactly ``values``."""
        self._local.d = dict(values)


class ThreadCache(ThreadOptions):
    """A cache (a dict) private to each thread, for values that hold mpf numbers: each thread
    reads only the numbers its own context made (see the module docstring)."""

    def __init__(self):
        super().__init__({})

    def clear(self) -> None:
        """Empty the calling thread's cache."""
        self._dict().clear()


def thread_cache(maxsize: int) -> Callable[[Callable], Callable]:
    """``functools.lru_cache(maxsize)`` with one cache per thread (for functions that return
    mpf numbers; see the module docstring). ``cache_clear()`` empties the calling thread's."""

    def deco(fn: Callable) -> Callable:
        local = threading.local()

        def cached() -> Callable:
            c = getattr(local, "fn", None)
            if c is None:
                c = local.fn = functools.lru_cache(maxsize=maxsize)(fn)
            return c

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return cached()(*args, **kwargs)

        wrapper.cache_clear = lambda: cached().cache_clear()  # type: ignore[attr-defined]
        wrapper.cache_info = lambda: cached().cache_info()  # type: ignore[attr-defined]
        return wrapper

    return deco


def lambdify_modules() -> list:
    """``modules`` for ``sympy.lambdify`` whose mpmath functions and constants are those of the
    calling thread's context: ``lambdify(..., "mpmath")`` binds the global ``mpmath.exp``,
    ``mpmath.log``, ..., which compute at the global precision (53 bits unless the user set
    another). Use the function in the thread that made it."""
    ctx = context()
    ns = {name: getattr(ctx, name) for name in dir(mpmath)
          if not name.startswith("_") and hasattr(ctx, name)}
    return [ns, "mpmath"]
