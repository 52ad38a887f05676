"""A deadline reached with an Arb ball as the best enclosure (numeric.progress.best_pair): the
stop is a TimeLimitExceeded whose pair holds the ball (its ends compared as exact rationals),
never a TypeError turned InternalError."""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import pytest
from flint import arb, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.progress import best_pair, ensure_time


def _frac(x) -> Fraction:
    m, e = x.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _mpf_frac(x) -> Fraction:
    m, e = mpmath.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def test_best_pair_holds_the_ball():
    b = arb(fmpq(1, 3)) + arb(0, 1e-20)
    lo, hi = best_pair(b)
    assert _mpf_frac(lo) <= _frac(b.lower()) and _frac(b.upper()) <= _mpf_frac(hi)
    assert _mpf_frac(lo) <= Fraction(1, 3) <= _mpf_frac(hi)
    assert best_pair((1, 2)) == (1, 2) and best_pair(None) is None
    assert best_pair(arb(0, float("inf"))) is None


@pytest.mark.parametrize("via", ["check", "ensure_time"])
def test_deadline_with_a_ball_is_time_limit_exceeded(via):
    b = arb(fmpq(2, 7)) + arb(0, 1e-30)
    with pytest.raises(ta.TimeLimitExceeded) as info:
        with ta.time_limit(1e-9), budget.call("ball probe"):
            time.sleep(1e-3)
            if via == "check":
                budget.check(best_pair(b))
            else:
                ensure_time(10.0, "a phase", b)
    lo, hi = info.value.best
    assert _mpf_frac(lo) <= Fraction(2, 7) <= _mpf_frac(hi)
