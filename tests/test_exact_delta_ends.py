"""delta_f at eps = 0 and eps = +oo for finite pairs, exactly (numeric.protocol.enclose_delta,
_exact_delta_pair), so that epsilon() of a pair with an event impossible under one law is a
certified +oo (Dwork & Roth, Def. 2.2: infinite privacy loss). References by hand: the mass
of Q singular to P and the total variation of the pairs."""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.protocol import enclose_delta

R = sp.Rational


def test_ends_are_exact():
    f = ta.Discrete([0, 1], [R(1, 10), R(9, 10)])  # Q puts 1/10 where P has no mass
    with mp.workdps(30):
        lo, hi = enclose_delta(f, mp.inf)
        assert lo <= mp.mpf(1) / 10 <= hi and hi - lo <= mp.mpf(10) ** -29
        lo, hi = enclose_delta(f, mp.zero)  # TV = 1/10
        assert lo <= mp.mpf(1) / 10 <= hi and hi - lo <= mp.mpf(10) ** -29
    assert type(enclose_delta(f, mp.inf)).__name__ == "CertifiedPair"


def test_infinite_epsilon_is_certified():
    for f, d in ((ta.Discrete([1, 0], [0, 1]), R(1, 2)),
                 (ta.Discrete([0, 1], [R(1, 10), R(9, 10)]), R(1, 20))):
        v = ta.epsilon(f, d)
        assert v.guarantee == "certified" and v.lo == mp.inf


def test_finite_epsilon_of_a_finite_pair():
    """delta(eps) = (9/10 - e^eps 2/3)_+ for P = (1/3, 2/3), Q = (1/10, 9/10): eps(1/20) =
    log(51/40), certified (the end at eps = 0 is now exact, the rest as before)."""
    v = ta.epsilon(ta.Discrete([R(1, 3), R(2, 3)], [R(1, 10), R(9, 10)]), R(1, 20))
    assert v.guarantee == "certified"
    with mp.workdps(40):
        assert v.lo <= mp.log(mp.mpf(51) / 40) <= v.hi
