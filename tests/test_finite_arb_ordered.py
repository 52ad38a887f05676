"""Certified values of finite compositions with irrational e^eps (numeric.finite:
FiniteLoss.arb_ordered, the atoms built in Arb and ordered by their exponent) at rational and
irrational levels, and of products with f_{0,delta} parts in Arb (routes.product, Eq. (12)).
References formed here in mpmath at 60 digits: the binomial knots (A_j, A_{n+1-j}) of
f_{eps,0}^{(x) n} (Dong, Roth & Su, Sec. 3.3; A_j = P(K >= j), K ~ B(n, 1/(1 + e^eps))) read
piecewise linearly, and (1 - D) g(alpha/(1 - D)) for g (x) f_{0,D}."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _binomial_curve(eps, n):
    p = 1 / (1 + mp.exp(eps))
    pmf = [mp.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    A = [mp.fsum(pmf[j:]) for j in range(n + 2)]  # A_j = P(K >= j), A_{n+1} = 0
    knots = sorted((A[j], A[n + 1 - j]) for j in range(n + 2))

    def f(a):
        for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
            if x1 <= a <= x2:
                return y1 + (y2 - y1) * (a - x1) / (x2 - x1)
        raise ValueError(a)
    return f


@pytest.mark.parametrize("eps, n", [(sp.sqrt(10) / 40, 160), (R(1, 3), 30)])
@pytest.mark.parametrize("A", [R(1, 100), R(1, 10), R(1, 2), ta.Phi(-R(3, 2)),
                               sp.sqrt(2) / 7])
def test_binomial_composition_is_certified(eps, n, A):
    v = ta.evaluate(ta.BinomialDP(eps, n), A, dps=25)
    assert v.guarantee == "certified", v.route
    with mp.workdps(60):
        ref = _binomial_curve(mp.mpf(sp.N(eps, 70)), n)(mp.mpf(sp.N(A, 70)))
        assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref


@pytest.mark.parametrize("A", [R(1, 100), R(1, 10), R(1, 2)])
def test_epsdelta_power_and_delta_part(A):
    """f_{eps,delta}^{(x) 10} = f_{eps,0}^{(x) 10} (x) f_{0, 1 - (1 - delta)^10} (Eq. (11),
    (12)) and G_1 (x) f_{0, 1 - e^{-1/2}}: both certified, against (1 - D) g(alpha/(1 - D))."""
    eps, d = sp.sqrt(10) / 10, R(1, 20)
    v = ta.evaluate(ta.EpsDelta(eps, d) ** 10, A, dps=25)
    w = ta.evaluate(ta.EpsDelta(0, 1 - sp.exp(-R(1, 2))) @ ta.G(1), A, dps=25)
    assert v.guarantee == "certified" and w.guarantee == "certified"
    with mp.workdps(60):
        a = mp.mpf(A.p) / A.q
        keep = (1 - mp.mpf(d.p) / d.q) ** 10
        g = _binomial_curve(mp.mpf(sp.N(eps, 70)), 10)
        ref = keep * g(a / keep) if a < keep else mp.zero
        assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref
        keep = mp.exp(-mp.mpf(1) / 2)
        ref = keep * mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * (a / keep) - 1) - 1)
        assert abs(w.mid - ref) <= mp.mpf(10) ** -24 * ref
