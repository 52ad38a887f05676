"""delta(eps) near 1 (eps far below the typical privacy loss of a long composition): 1 - delta
= E[min(1, e^{eps - L})] <= e^{s eps} M(-s) (``numeric.cf_bounds.near_one_delta``), checked
against the certified Laplace inversion where that resolves 1 - delta (a different route:
Fourier inversion, not a Chernoff bound), and the public answers where it does not."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import cf_bounds
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.engines import _cf_laws
from tradeoff_algebra.routes.plan import route

R = sp.Rational


def _factors(f):
    (specs,) = _cf_laws([route(f)[1]], atoms=True)
    return [(law, int(n)) for law, n in specs]


@pytest.mark.parametrize("f, eps", [(ta.Laplace(1) ** 200, 5), (ta.Laplace(1) ** 120, 2),
                                    (ta.G(1) ** 30 @ ta.Laplace(1) ** 30, 3)])
def test_the_bound_lies_below_the_inverted_delta(f, eps):
    lo, hi = cf_bounds.near_one_delta(_factors(f), float(eps), 1.0)
    assert hi == 1.0 and 0 < lo < 1
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, eps)
    assert v.route.startswith("certified Laplace inversion") and v.guarantee == "certified"
    assert lo <= v.lo  # the bound on 1 - delta holds
    assert 1 - lo < 1e3 * (1 - v.hi) + 1e-15  # and is not vacuous (a Chernoff bound: a factor)


@pytest.mark.parametrize("f", [ta.Laplace(R(1, 10)) ** 10**6, ta.Laplace(1) ** 10**9,
                               ta.EpsDelta(R(1, 2), 0) ** 10**6 @ ta.G(1)])
def test_long_compositions_far_below_their_loss_are_certified_near_one(f):
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, 1)
    assert v.guarantee == "certified"
    assert v.hi == 1 and v.lo >= 1 - mp.mpf(2) ** -52


def test_no_bound_where_delta_is_not_near_one():
    assert cf_bounds.near_one_delta(_factors(ta.Laplace(1) ** 3), 1.0, 1e-3) is None


@pytest.mark.parametrize("mu", [R(1, 10), 1, 5])
def test_laplace_cumulants_across_the_removable_point(mu):
    """The float cumulants of L_mu's law (planning) at and around c = -1/2, where w = c + 1/2
    vanishes: log M(c) agrees with the Arb mgf's logarithm away from it, and is continuous
    through it (the search of the near-one bound evaluates it there)."""
    from fractions import Fraction

    from flint import acb

    from tradeoff_algebra.families.laplace import LaplaceLaw

    law = LaplaceLaw(Fraction(mu))
    for c in (-0.9, -0.5 + 1e-3, -0.3, 0.4, 2.0):
        ref = float(law.mgf(acb(c)).real.log().mid())
        assert abs(law.cumulants(c)[0] - ref) <= 1e-12 * max(1.0, abs(ref))
    at, left, right = (law.cumulants(c) for c in (-0.5, -0.5 - 1e-9, -0.5 + 1e-9))
    for k in range(3):
        assert abs(at[k] - left[k]) <= 1e-6 * max(1.0, abs(at[k]))
        assert abs(at[k] - right[k]) <= 1e-6 * max(1.0, abs(at[k]))
