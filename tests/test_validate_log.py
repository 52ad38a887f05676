"""param's fast path for log r (r a positive Rational) against a lower bound 0: the decision
of log r against 0 at 100 digits (mpmath; SymPy's own comparison calls log(1 + 10^-30) > 0
false at its default precision), and the value returned unchanged."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.core.validate import param

RATIOS = [sp.Rational(p, q) for p in (1, 2, 3, 7, 10**30 + 1) for q in (1, 2, 3, 10**30)]


@pytest.mark.parametrize("r", RATIOS)
@pytest.mark.parametrize("lower_open", [False, True])
def test_log_of_a_rational_against_zero_is_decided_at_100_digits(r, lower_open):
    v = sp.log(r)
    with mpmath.workdps(100):
        x = mpmath.log(mpmath.mpf(int(r.p)) / int(r.q))
    expect = x > 0 if lower_open else x >= 0
    if expect:
        assert param("eps", v, lower=0, lower_open=lower_open) == v
    else:
        with pytest.raises(InvalidParameter, match="eps"):
            param("eps", v, lower=0, lower_open=lower_open)


def test_other_bounds_take_the_general_path():
    assert param("eps", sp.log(3), lower=1) == sp.log(3)  # (log 3 > 1)
    with pytest.raises(InvalidParameter):
        param("eps", sp.log(2), lower=1)
    with pytest.raises(InvalidParameter):
        param("eps", sp.log(3), lower=0, upper=1)
    with pytest.raises(InvalidParameter):
        param("eps", sp.log(3), integer=True)
