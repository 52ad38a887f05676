"""eps(delta) of f_{eps0,0}^{(x) n} where p = 1/(1 + e^{eps0}) is below the float range (eps0 >
~745): the float guess of the segment cannot be made (it raised OverflowError, then a math
domain error: an InternalError), the certified walk answers. Reference: above the second
largest loss l(n - 1) = eps0 (n - 2), delta(eps) = q^n - e^eps p^n (Dong, Roth & Su, Sec. 3.3:
only the top atom K = n lies above eps), so eps(d) = log(q^n - d) - n log p, at 60 digits."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta


def _reference(eps0: int, n: int, d: sp.Rational) -> mpmath.mpf:
    ctx = mpmath.MPContext()
    ctx.dps = 60
    p = 1 / (1 + ctx.exp(eps0))
    q = 1 - p
    return ctx.log(q**n - ctx.mpf(d.p) / d.q) - n * ctx.log(p)


@pytest.mark.parametrize("d", [sp.Rational(1, 10**6), sp.Rational(1, 2), sp.Rational(99, 100)])
def test_huge_eps0_power_epsilon_certified(d):
    v = ta.epsilon(ta.EpsDelta(800, 0) ** 3, d, dps=30)
    lo, hi = v.interval()
    ref = _reference(800, 3, d)
    assert v.guarantee in ("certified", "exact")
    assert lo <= ref <= hi
    assert hi - lo <= 1e-25 * ref
