"""An offer: a certified answer a route could not narrow to the tolerance asked.

A route of :data:`.protocol.POINT_ROUTES` or :data:`.curves.CURVE_BANDS` that holds a
certified enclosure wider than the tolerance returns an :class:`Offer` instead of declining:
the later routes are asked first (one of them may meet the tolerance), and where none answers,
the first offer is returned with its :class:`~..core.errors.ToleranceWarning`, rather than a
later engine's estimate. Never vacuous, never silent (issue 29: "a tolerance that cannot be
met returns its best enclosure with a ToleranceWarning").
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from ..core.errors import ToleranceWarning

__all__ = ["Offer", "first_answer"]


@dataclass(frozen=True)
class Offer:
    """A certified ``answer`` (a Value or a band) wider than asked, and the text of the
    warning that goes with it where it is returned."""

    answer: Any
    warning: str


def first_answer(answers, stacklevel: int = 3) -> Any:
    """The first answer of the iterable ``answers`` (None: the route declined) that is not an
    :class:`Offer`; where none is, the first offer's answer with its warning; else None.
    Routes are asked lazily: none after the first real answer."""
    offer = None
    for a in answers:
        if a is None:
            continue
        if not isinstance(a, Offer):
            return a
        if offer is None:
            offer = a
    if offer is None:
        return None
    warnings.warn(offer.warning, ToleranceWarning, stacklevel=stacklevel + 1)
    return offer.answer
