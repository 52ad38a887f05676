"""eps_f(D) at D = delta_f(oo) = Q(P = 0) exactly, for finite pairs (analysis/largest_loss,
``top_proved``): delta is flat at D from the largest finite loss on, so eps_f(D) = max(0, log
r_max). The search's balls tie with the level there (audit 11, defect 3: [1.07e9, +oo], an
estimate excluding the truth). Reference: the atoms' delta summed exactly in Fractions at e^eps
just below and at r_max (Dong, Roth & Su, Prop. 6), and the closed form log r_max."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

import tradeoff_algebra as ta

R = sp.Rational


def _delta_at_ratio(P, Q, v: Fraction) -> Fraction:
    """delta(log v) = Q(P = 0) + sum over atoms with Q/P > v of (Q - v P), exactly."""
    out = Fraction(0)
    for p, q in zip(P, Q, strict=True):
        if p == 0:
            out += q
        elif q > v * p:
            out += q - v * p
    return out


@pytest.mark.parametrize("P, Q", [
    ([0, Fraction(1, 5), Fraction(4, 5)], [Fraction(5, 12), Fraction(1, 4), Fraction(1, 3)]),
    ([0, Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 10), Fraction(3, 5), Fraction(3, 10)]),
])
def test_discrete_pair_at_its_singular_mass(P, Q):
    f = ta.Discrete([R(x.numerator, x.denominator) for x in P],
                    [R(x.numerator, x.denominator) for x in Q])
    q_inf = sum(q for p, q in zip(P, Q, strict=True) if p == 0)
    r_max = max(q / p for p, q in zip(P, Q, strict=True) if p > 0)
    # the reference: delta equals the level at r_max and exceeds it just below
    assert _delta_at_ratio(P, Q, r_max) == q_inf
    assert _delta_at_ratio(P, Q, r_max * (1 - Fraction(1, 10**9))) > q_inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no stale warning of the search's [0, +oo])
        v = ta.epsilon(f, R(q_inf.numerator, q_inf.denominator), dps=20)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    with mp.workdps(40):
        assert lo <= mp.log(mp.mpf(r_max.numerator) / r_max.denominator) <= hi


def test_eps_delta_power_at_its_singular_mass():
    """f_{1, 1/10}^3: delta(oo) = 1 - (9/10)^3 and the largest finite loss 3 (each factor's
    largest finite loss is eps = 1)."""
    f = ta.EpsDelta(1, R(1, 10)) ** 3
    v = ta.epsilon(f, 1 - R(9, 10) ** 3, dps=20)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    assert lo <= 3 <= hi
    # just above the level the answer lies below 3; just below it no finite eps works
    above = ta.epsilon(f, 1 - R(9, 10) ** 3 + R(1, 10**6), dps=20)
    assert above.interval()[1] < 3
    assert ta.epsilon(f, 1 - R(9, 10) ** 3 - R(1, 10**6), dps=20).interval()[0] == mp.inf
