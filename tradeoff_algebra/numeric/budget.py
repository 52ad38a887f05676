"""Time limits: no call is a silent hang.

Every public numeric call (``evaluate``, ``roc``, ``delta``, ``epsilon`` …) runs under a
deadline: the one the user set with :class:`time_limit`, or :data:`DEFAULT_SECONDS`. Long loops
call :func:`check` with the best enclosure they hold; past the deadline it raises
:class:`TimeLimitExceeded`, which carries that enclosure, so the work done is not lost::

    with ta.time_limit(5):
        try:
            ta.epsilon(f, 1e-5)
        except ta.TimeLimitExceeded as exc:
            lo, hi = exc.best          # the best enclosure found in 5 s (or None)

Deadlines are private to the calling thread; nested calls share the outermost deadline. A
public function runs its whole body under one deadline (:func:`deadline`, or :func:`call` around
the body): its validation and fast paths, and every public call it makes, which would otherwise
each open their own (a search of n evaluations under a 1 s limit ran n seconds). Loops check
it (:func:`check`); callbacks that must not raise, such as the integrands of Arb's integration,
look at :func:`expired` and the caller checks after the integral (:func:`integral` does both);
a thread waiting for a lock another thread holds (Arb's process-global precision, a profile
factor being built) checks it while it waits (:func:`locked`).
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flint import acb

from ..core.errors import InternalError, InvalidParameter, NumericalError, TradeOffError
from . import context as _context
from .context import public_mpf

__all__ = ["time_limit", "check", "expired", "call", "deadline", "remaining", "within", "locked",
           "integral", "TimeLimitExceeded", "DEFAULT_SECONDS"]

#: The time limit of a call when the user set none (seconds).
DEFAULT_SECONDS = 600.0

_local = threading.local()


class TimeLimitExceeded(NumericalError):
    """A computation ran past its time limit. ``best`` is the best enclosure ``(lo, hi)`` found
    so far (``None`` if none was reached); ``seconds`` the limit that was exceeded."""

    def __init__(self, what: str, seconds: float, best: Any = None, about: Any = None):
        if best is not None:
            best = tuple(public_mpf(x) if hasattr(x, "_mpf_") else x for x in best)
        self.what, self.seconds, self.best = what, seconds, best
        #: (quantity, node) the enclosure ``best`` belongs to, set by the route that computed
        #: it (:func:`about`); the public call keeps ``best`` only when it is its own
        self.about = about
        msg = f"{what}: stopped at the time limit of {seconds:g} s"
        if best is not None:
            msg += f"; best enclosure so far [{_fmt(best[0])}, {_fmt(best[1])}]"
        msg += ("; raise the limit with `with ta.time_limit(seconds):` or ask for fewer digits "
                "(dps, pld_options(tol=...))")
        super().__init__(msg)

    def without_best(self) -> TimeLimitExceeded:
        """The same report without an enclosure (one that belongs to an inner quantity)."""
        return TimeLimitExceeded(self.what, self.seconds)

    def __reduce__(self):
        return (type(self), (self.what, self.seconds, self.best, self.about))


def _fmt(x: Any) -> str:
    try:
        return f"{float(x):.10g}"
    except (TypeError, ValueError, OverflowError):  # pragma: no cover - defensive
        return repr(x)[:40]


class time_limit:
    """Context manager: calls inside the block stop after ``seconds`` (``None``: no limit) with
    :class:`TimeLimitExceeded`. Applies to the calling thread."""

    def __init__(self, seconds: float | None):
        if seconds is not None:
            ok = isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            if ok and isinstance(seconds, int) and seconds > 10**9:
                seconds = math.inf  # (beyond a float: no limit in practice)
            if not ok or not (seconds > 0) or math.isnan(seconds):
                raise InvalidParameter("seconds", seconds, "a positive number of seconds or None",
                                       "time_limit")
        self.seconds = seconds

    def __enter__(self) -> time_limit:
        self._saved = getattr(_local, "limit", _UNSET)
        _local.limit = self.seconds
        return self

    def __exit__(self, *exc) -> bool:
        if self._saved is _UNSET:
            del _local.limit
        else:
            _local.limit = self._saved
        return False


_UNSET = object()


@contextmanager
def call(what: str | Callable[[], str]) -> Iterator[None]:
    """Run a public call under its deadline (the outermost call of the thread sets it);
    ``what`` names the call in messages (a callable is formatted only when needed)."""
    if getattr(_local, "deadline", None) is not None:
        yield
        return
    limit = getattr(_local, "limit", DEFAULT_SECONDS)
    _local.deadline = math.inf if limit is None else time.monotonic() + limit
    _local.seconds, _local.what = limit, what
    try:
        yield
    except TradeOffError:
        raise
    except Exception as exc:  # the safety net of the API boundary: see InternalError
        raise _internal(what() if callable(what) else what, exc) from exc
    finally:
        _local.deadline = None


def deadline(what: Callable[[dict], str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator of a public function: its whole body runs under one deadline (:func:`call`).
    Everything inside shares it: the validation and fast paths, and the public calls the
    function makes (each of them opened its own, so a search of n evaluations under
    ``time_limit(1)`` could run n seconds). ``what(arguments)`` names the call in messages
    (``arguments``: the names and values passed; formatted only when needed)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn)
        fits = _fits(sig)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not fits(args, kwargs):
                sig.bind(*args, **kwargs)  # (a wrong call: Python's error, outside the call)

            def name() -> str:
                try:
                    return what(sig.bind(*args, **kwargs).arguments)
                except Exception:  # (a message must never fail)
                    return fn.__name__

            with call(name):
                return fn(*args, **kwargs)

        return wrapper

    return deco


def _fits(sig: inspect.Signature) -> Callable[[tuple, dict], bool]:
    """A quick test that a call binds to ``sig`` (True only where ``sig.bind`` would succeed:
    plain parameters, no more positional arguments than names, each keyword a later name, the
    required names all given), so that the binding is formed only for a message."""
    params = list(sig.parameters.values())
    if not all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params):
        return lambda args, kwargs: False
    names = [p.name for p in params]
    required = {p.name for p in params if p.default is p.empty}

    def fits(args: tuple, kwargs: dict) -> bool:
        if len(args) > len(names):
            return False
        rest = names[len(args):]
        return all(k in rest for k in kwargs) and all(
            n in kwargs for n in rest if n in required)

    return fits


@contextmanager
def about(quantity: str, node: Any) -> Iterator[None]:
    """Mark the enclosure of a time limit raised inside as one of ``quantity`` ('value', 'roc',
    'delta', 'epsilon') of ``node`` (unless a route further in has marked it already: it is
    then of an inner node, at another argument, and the public call drops it)."""
    try:
        yield
    except TimeLimitExceeded as exc:
        if exc.best is not None and exc.about is None:
            exc.about = (quantity, node)
        raise


def own_best(exc: TimeLimitExceeded, quantity: str, node: Any) -> TimeLimitExceeded:
    """``exc`` as the public call of ``quantity`` of ``node`` reports it: its enclosure only
    when a route marked it as this very quantity (an inner node's enclosure, e.g. of g at a
    scaled level inside f = g (x) f_{0,D}, does not enclose the answer)."""
    if exc.best is None or exc.about == (quantity, node):
        return exc
    return exc.without_best()


def _internal(what: str, exc: Exception) -> InternalError:
    if isinstance(exc, MemoryError):
        return InternalError(f"{what}: ran out of memory; ask for fewer digits (dps) or a "
                             "smaller problem")
    if isinstance(exc, RecursionError):
        return InternalError(f"{what}: the expression is nested too deeply for this route")
    text = str(exc).split("\n")[0][:200]
    return InternalError(f"{what}: internal error {type(exc).__name__}: {text}; please report "
                         "the input")


def remaining() -> float:
    """Seconds left before the current deadline (``inf`` outside a call or without a limit)."""
    d = getattr(_local, "deadline", None)
    return math.inf if d is None else d - time.monotonic()


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """The calling thread's deadline moved to at most ``seconds`` from now inside the block
    (every :func:`check` below sees it: a route's own share of a call's time), restored after;
    nothing outside a public call (no deadline to move)."""
    saved = getattr(_local, "deadline", None)
    if saved is None:
        yield
        return
    _local.deadline = min(saved, time.monotonic() + seconds)
    try:
        yield
    finally:
        _local.deadline = saved


def expired() -> bool:
    """Has the calling thread's deadline passed? For callbacks that must not raise (the
    integrands of Arb's ``acb.integral``: an exception inside one is not propagated by
    python-flint): past the deadline they return a cheap value, and the caller calls
    :func:`check` right after the integral, so that value is never used."""
    d = getattr(_local, "deadline", None)
    return d is not None and time.monotonic() > d


def integral(f: Callable[[acb, bool], acb], a: Any, b: Any, best: Any = None,
             **options: Any) -> acb:
    """Arb's certified ``acb.integral(f, a, b, **options)`` of a Python integrand ``f(u,
    analytic)`` under the calling thread's deadline. An exception raised inside the integrand
    does not leave python-flint's integration cleanly (0.9: a ``SystemError`` after further
    calls), so past the deadline the integrand is replaced by 0 (a cheap value, never used) and
    :func:`check` (carrying ``best``) raises right after: the clock is monotonic, so an integral
    that saw the deadline pass is never returned."""

    def guarded(u: acb, analytic: bool) -> acb:
        return acb(0) if expired() else f(u, analytic)

    out = acb.integral(guarded, a, b, **options)
    check(best)
    return out


def check(best: Any = None) -> None:
    """Raise :class:`TimeLimitExceeded` (carrying ``best``) if the deadline has passed."""
    d = getattr(_local, "deadline", None)
    if d is not None and time.monotonic() > d:
        what = getattr(_local, "what", "computation")
        raise TimeLimitExceeded(what() if callable(what) else what, _local.seconds, best)


# a thread waiting for a lock (Arb precision sections, profile builds) checks its deadline
_context.waiting_check = check
locked = _context.locked
