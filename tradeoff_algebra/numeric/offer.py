"""An offer: a certified answer a route could not narrow to the tolerance asked.

A route of :data:`.protocol.POINT_ROUTES` or :data:`.curves.CURVE_BANDS` that holds a
certified enclosure wider than the tolerance returns an :class:`Offer` instead of declining:
the later routes are asked first (one of them may meet the tolerance). Where none answers
(:func:`settle`), every offer is intersected (each encloses the truth, so their intersection
does: certified), the routes that declined are asked again at looser tolerances — a route may
decline a tolerance below its floor and answer a looser one — and their answers intersected
too, within the time left; the result comes with a
:class:`~..core.errors.ToleranceWarning` that says the width reached, rather than a later
engine's estimate. Never vacuous, never silent (issue 29: "a tolerance that cannot be met
returns its best enclosure with a ToleranceWarning").

Why it matters across processes: a route whose result depends on the time left (the cells'
grids cut short by the clock) offers a wider band at a tighter tolerance than at a looser one;
every other certified answer that is on hand narrows it again.

Behind the routes of a symmetric hull's delta and eps (``routes.engines``) stand the composing
engines (an :class:`Engine`): asked once where no route meets the tolerance, they always
answer — the Laplace inversion's certified enclosure, or the PLD grid's estimate, which is
never intersected with the offers (they stand for it, with their warning).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ToleranceWarning
from . import budget
from .context import mp
from .options import DEFAULT_TOL
from .value import Value, weakest

__all__ = ["Offer", "Engine", "settle", "intersect", "looser_steps", "REASK_STEPS"]


@dataclass(frozen=True)
class Offer:
    """A certified ``answer`` (a Value or a band) wider than asked, and the text of the
    warning that goes with it where it is returned."""

    answer: Any
    warning: str


@dataclass(frozen=True)
class Engine:
    """The engines behind the routes of :func:`settle`, asked where no route meets the
    tolerance (``routes.engines``: the Laplace inversion, else the PLD grid, behind a symmetric
    hull's routes). ``answer()`` always answers, at the tolerance or, where it cannot, at the
    nearest looser one it affords (so it is asked once, and the routes are not asked again):
    a certified enclosure (``certified(answer)``) or an estimate. Its certified answer at most
    as wide as the offers' intersection is returned with its own warnings (intersected with
    the offers, which narrow it at most); else ``note()`` records that the offers narrow it
    or stand for an estimate, and the narrowest offer's warning goes with the result where it
    is wider than the tolerance."""

    answer: Callable[[], Any]
    certified: Callable[[Any], bool]
    note: Callable[[], None]


#: The most looser tolerances a declined route is asked at (:func:`settle`).
REASK_STEPS = 6


def looser_steps(tol: float, width: float) -> list[float]:
    """The tolerances tol 10^k (k >= 1), tightest first, up to the first that is at least
    ``width`` (the width the offers reached), at most :data:`REASK_STEPS` of them (the
    loosest: a floor lies just below the width the offers could not beat) and none above the
    default tolerance (``DEFAULT_TOL``, or ten times ``tol`` where ``tol`` is looser)."""
    cap = max(DEFAULT_TOL, 10 * tol)
    out: list[float] = []
    k = 1
    while len(out) < 60:  # (60 decades: any tol > 1e-300 reaches the cap)
        t = min(float(f"{tol * 10**k:.12g}"), cap)  # (1e-9 * 10^3 is 1e-6 itself)
        out.append(t)
        if t >= width or t >= cap:
            break
        k += 1
    return out[-REASK_STEPS:]


def intersect(a: Any, b: Any) -> Any:
    """The intersection of two certified enclosures of the same quantity: two
    :class:`~.value.Value` (their intervals, ``Value.interval``) or two bands
    (``numeric.profile_band.Band``: f and the power 1 - f at the same levels), or two pairs
    (lo, hi) of one type (``value.CertifiedPair``: a new one of that type; a plain pair is an
    estimate, never intersected with a certified one: TypeError). ``a`` itself where ``b``
    does not narrow it (a Value or band). Disjoint enclosures are a defect of one of them:
    ArithmeticError."""
    if isinstance(a, tuple):
        if type(a) is not type(b):
            raise TypeError(f"an enclosure {type(b).__name__} intersected with a "
                            f"{type(a).__name__}: an estimate is never intersected with a "
                            "certified enclosure")
        lo, hi = max(a[0], b[0]), min(a[1], b[1])
        if lo > hi:
            raise ArithmeticError(f"disjoint certified enclosures of one number: {tuple(a)} "
                                  f"and {tuple(b)}")
        return type(a)(lo, hi)
    if isinstance(a, Value):
        with mp.workprec(max(mp.prec, 53) + 40):
            (alo, ahi), (blo, bhi) = a.interval(), b.interval()
            lo, hi = max(alo, blo), min(ahi, bhi)
        if lo > hi:
            raise ArithmeticError(f"disjoint certified enclosures of one number: "
                                  f"[{alo}, {ahi}] ({a.route}) and [{blo}, {bhi}] ({b.route})")
        if (lo, hi) == (alo, ahi) and not a.is_point:
            return a
        if (lo, hi) == (blo, bhi) and not b.is_point:
            return b
        route = a.route if not b.route or b.route == a.route else f"{a.route}; {b.route}"
        return Value.enclosure(lo, hi, max(a.dps, b.dps),
                               guarantee=weakest(a.guarantee, b.guarantee)).routed(route)
    f_lo, f_hi = np.maximum(a.f_lo, b.f_lo), np.minimum(a.f_hi, b.f_hi)
    p_lo, p_hi = np.maximum(a.power_lo, b.power_lo), np.minimum(a.power_hi, b.power_hi)
    if (f_lo > f_hi).any() or (p_lo > p_hi).any():
        raise ArithmeticError("disjoint certified bands of one curve (f or its power 1 - f)")
    if all((x == y).all() for x, y in ((f_lo, a.f_lo), (f_hi, a.f_hi), (p_lo, a.power_lo),
                                       (p_hi, a.power_hi))):
        return a
    return type(a)(f_lo, f_hi, p_lo, p_hi)


def settle(routes: Sequence[Callable], ask: Callable[[Callable, float], Any], tol: float,
           width: Callable[[Any], float], stacklevel: int = 3,
           engine: Engine | None = None) -> Any:
    """The answer of ``routes`` at ``tol``, each asked by ``ask(route, tol)`` (None: declined;
    an :class:`Offer`: a certified answer wider than ``tol``), lazily: the first answer that is
    not an offer is returned, and no route after it is asked (no extra cost where a route
    meets ``tol``). Where none is, and some route offered:

    1. the offers are intersected (:func:`intersect`: certified enclosures of one quantity);
    2. each route that declined is asked again (in order) at :func:`looser_steps` — first at
       the loosest (the step at or above the width reached: a route whose decline does not
       depend on the tolerance costs one more ask), then, while it answers and narrows its
       own answer, at the next tighter step (down to its floor) — and every answer it gives is
       intersected; its own ToleranceWarnings are left out (the one warning below says what
       was reached), other warnings pass;
    3. the time limit stops step 2 (the result holds what was reached before it);

    then the result, with a ToleranceWarning: the first offer's text where nothing narrowed
    it, else that text and the width the intersection reached; none where the intersection
    meets ``tol``. ``width(answer)``: its width in the measure of ``tol``. None where no route
    answers or offers.

    With an ``engine`` (:class:`Engine`: the routes of a symmetric hull's delta and eps,
    ``routes.engines``), every certified answer on hand narrows the result, and the engine
    stands for step 2 (:func:`_last_resort`): a route's answer is intersected with the offers
    before it, and where no route answers the engine is asked once."""
    offers: list[Offer] = []
    declined: list[Callable] = []
    for route in routes:
        a = ask(route, tol)
        if a is None:
            declined.append(route)
        elif isinstance(a, Offer):
            offers.append(a)
        else:
            return a if engine is None or not offers else intersect(a, _offered(offers))
    if engine is not None:
        return _last_resort(engine, offers, tol, width, stacklevel)
    if not offers:
        return None
    best = _offered(offers)
    by = [f"{len(offers) - 1} later offer" + ("s" if len(offers) > 2 else "")] \
        if best is not offers[0].answer else []
    stopped = False
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            for route in declined:
                if width(best) <= tol:
                    break
                got = _reask(route, ask, tol, width, best)
                if got is not None:
                    best, at = got
                    by.append(f"{getattr(route, '__name__', 'a route')} asked at tol = {at:.3g}")
        except budget.TimeLimitExceeded:
            stopped = True
    for w in said:
        if not issubclass(w.category, ToleranceWarning):
            warnings.warn(w.message, w.category, stacklevel=stacklevel + 1)
    w_best = width(best)
    if w_best <= tol:
        return best
    text = offers[0].warning
    if by:
        text += (f"; intersected with the certified answers of {', '.join(by)}: width "
                 f"{w_best:.3g} reached (tol = {tol:.3g})")
    if stopped:
        text += "; the time limit stopped the routes asked again at looser tolerances"
    warnings.warn(text, ToleranceWarning, stacklevel=stacklevel + 1)
    return best


def _reask(route: Callable, ask: Callable[[Callable, float], Any], tol: float,
           width: Callable[[Any], float], best: Any) -> tuple[Any, float] | None:
    """(best narrowed, the tightest tolerance that answered) from ``route`` asked at the steps
    of :func:`looser_steps`, loosest first, then tighter while it answers and narrows its own
    answer (step 2 of :func:`settle`); None where it declines the loosest."""
    steps = looser_steps(tol, width(best))
    own, at = None, None
    for t in reversed(steps):
        budget.check()  # (the time left spent: settle returns what it holds)
        a = ask(route, t)
        if a is None:
            break
        a = a.answer if isinstance(a, Offer) else a
        w = width(a)
        if own is not None and not w < width(own):
            break  # (no narrower at a tighter tolerance: its floor, or a looser band again)
        own, at = a, t
        best = intersect(best, a)
        if w <= tol or not math.isfinite(w):
            break
    return None if own is None else (best, at)


def _offered(offers: list[Offer]) -> Any:
    """The intersection of the offers' answers (:func:`intersect`)."""
    best = offers[0].answer
    for o in offers[1:]:
        best = intersect(best, o.answer)
    return best


def _last_resort(engine: Engine, offers: list[Offer], tol: float,
                 width: Callable[[Any], float], stacklevel: int) -> Any:
    """The engine's answer where no route of :func:`settle` answered: as it is, where none
    offered; else its certified answer intersected with the offers' — with its own warnings
    where it is at most as wide (absolutely) as the offers' intersection, else with the
    narrowest offer's ToleranceWarning where the result is wider than ``tol`` (``engine.note``:
    the offers narrow it) — or the offers alone where it is an estimate (``engine.note``: they
    stand for it), with that warning likewise. A time limit in the engine is raised carrying
    the offers' certified bracket."""
    if not offers:
        return engine.answer()
    offered = _offered(offers)
    text, narrowest = offers[0].warning, width(offers[0].answer)
    for o in offers[1:]:
        if width(o.answer) < narrowest:
            text, narrowest = o.warning, width(o.answer)
    stopped = None
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            r = engine.answer()
        except budget.TimeLimitExceeded as exc:
            stopped = exc
    if stopped is not None:
        raise _carrying(stopped, offered) from None
    certified = engine.certified(r)
    if certified and r[1] - r[0] <= offered[1] - offered[0]:
        _replay(said)
        return intersect(r, offered)
    engine.note()
    out = intersect(r, offered) if certified else offered
    if width(out) > tol:
        warnings.warn(text, ToleranceWarning, stacklevel=stacklevel + 2)
    return out


def _replay(said: list) -> None:
    """The recorded warnings ``said`` issued again, each where it was first issued."""
    for w in said:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _carrying(exc: budget.TimeLimitExceeded, offered: Any) -> budget.TimeLimitExceeded:
    """The engine's time limit ``exc`` carrying the offers' certified bracket ``offered``
    (lo, hi). Not narrowed by the engine's own best: that may be the PLD grid's estimate (the
    exception does not say which), and an estimate is never intersected into a certified
    enclosure."""
    return budget.TimeLimitExceeded(exc.what, exc.seconds, offered, exc.about)
