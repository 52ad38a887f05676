"""Comparisons of a library Value with a reference, for the audits: the Value's enclosure
(``Value.interval()``, widened by one unit of its last digit) as mpfs, whether it meets a
reference interval, and whether its label claims a proof."""

from __future__ import annotations

import mpmath

MP = mpmath.mp


def iv(v):
    """The enclosure of ``v`` as a pair of mpfs."""
    lo, hi = v.interval()
    return MP.mpf(lo), MP.mpf(hi)


def meets(v, lo, hi) -> bool:
    """Does the enclosure of ``v`` meet [lo, hi]?"""
    a, b = iv(v)
    return not (b < lo or a > hi)


def certified(v) -> bool:
    """Is ``v`` labelled a proof (certified or exact)?"""
    return v.guarantee in ("certified", "exact")
