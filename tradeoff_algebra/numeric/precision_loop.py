"""The one precision loop: compute at rising precision until the result meets its target.

Ziv's strategy (Ziv 1991, "Fast evaluation of elementary mathematical functions with correctly
rounded last bit"), as mpmath's ``workprec`` loops and Arb's "evaluate, check the radius,
double the precision" idiom use it: evaluate at a working precision, test the result, and if it
does not meet the target evaluate again at a higher precision, until it does or the precision
reaches a cap. :func:`precision_loop` is that loop once; each caller passes in what is its own:

* ``compute(prec)``: the evaluation at one precision (bits, digits, or any ordered state the
  caller raises, e.g. a pair of working bits and table resolution);
* ``done(result, previous)``: whether the result meets the target (an Arb ball narrow enough,
  two mpmath evaluations that agree, an error bound below the tolerance); ``previous`` is the
  result of the step before (None at the first);
* ``grow(result, prec)``: the next precision (default: twice ``prec``), or None when the caller
  sees no way to improve it;
* ``cap`` (a precision beyond which it never computes) and ``max_steps`` (evaluations at most);
* ``give_up(result, previous, prec)``: the answer at the cap (a wider enclosure, None) or, when
  not given, a :class:`NumericalError` naming ``what`` and the precision reached.

The loop checks the time limit (numeric.budget) before each rise of the precision (unless the
caller's ``compute`` does). Whether its
answer is certified is the caller's business: the loop decides nothing but when to stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import NumericalError
from . import budget

__all__ = ["precision_loop"]


def _double(result: Any, prec: Any) -> Any:
    return 2 * prec


def precision_loop(compute: Callable[[Any], Any], start: Any, *,
                   done: Callable[[Any, Any], bool],
                   grow: Callable[[Any, Any], Any] | None = None,
                   cap: Any = None, max_steps: int | None = None,
                   give_up: Callable[[Any, Any, Any], Any] | None = None,
                   what: str | Callable[[], str] = "the computation",
                   check: bool = True) -> Any:
    """``compute(prec)`` at ``start`` and then at rising precision (module docstring): the first
    result with ``done(result, previous)`` true, else ``give_up(result, previous, prec)`` (or a
    :class:`NumericalError` naming ``what``) once the next precision ``grow(result, prec)``
    (default ``2 * prec``) is None or exceeds ``cap``, or ``max_steps`` evaluations are made.
    A ``start`` beyond ``cap`` computes nothing: ``give_up(None, None, start)``. ``check``:
    consult the time limit before each rise (callers whose ``compute`` does so leave it off)."""
    grow = grow if grow is not None else _double
    prec, prev, steps = start, None, 0
    if cap is not None and prec > cap:
        return _give_up(give_up, None, None, prec, what)
    while True:
        result = compute(prec)
        steps += 1
        if done(result, prev):
            return result
        nxt = grow(result, prec)
        if nxt is None or (cap is not None and nxt > cap) or \
                (max_steps is not None and steps >= max_steps):
            return _give_up(give_up, result, prev, prec, what)
        if check:
            budget.check()
        prev, prec = result, nxt


def _give_up(give_up, result, prev, prec, what) -> Any:
    if give_up is not None:
        return give_up(result, prev, prec)
    name = what() if callable(what) else what
    raise NumericalError(f"{name}: the result did not meet its target by a working precision "
                         f"of {prec}")
