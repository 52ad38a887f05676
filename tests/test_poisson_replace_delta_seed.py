"""delta(eps) of a few replace-one DP-SGD steps (PoissonReplace(mu, q)^k) at the default
tolerance from one grid planned at the level of the tilted float PLD
(families/poisson_replace_seed.py, ``replace_log_delta``; numeric/cf_route.py,
``_seed_levels``): the estimate against delta(1) from the certified Laplace inversion at
relative width 1e-10 (the route before this seed: an Arb computation by a different route)
and dp_accounting's optimistic/pessimistic PLD pair; the answer meets the asked width from one
grid and holds those references."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace_law import replace_law
from tradeoff_algebra.numeric import cf

Q = Fraction(1, 100)
#: delta(1) of PoissonReplace(1/sigma, 1/100)^k by the certified inversion at width 1e-10.
INVERSION = {(2, 3): 9.446441597e-27, (2, 10): 4.66221183321968e-26,
             (2, 30): 4.4520260994e-25, (1, 10): 3.48427e-8}
#: dp_accounting's REPLACE_ONE pair (optimistic, pessimistic) at grid 1e-4: sigma = 1, k = 3.
DPA_1_3 = (9.185269178878304e-09, 9.196190716410456e-09)


@pytest.mark.parametrize("sigma,k", sorted(INVERSION))
def test_tilted_seed_near_the_certified_delta(sigma, k):
    """The float estimate lies within 2% of the certified delta(1), down to 1e-26 (the
    untilted PLD's floor is about 1e-16 of the mass)."""
    law = replace_law(Fraction(1, sigma), Q)
    got = math.exp(law.float_log_delta(k, 1.0))
    assert abs(got / INVERSION[(sigma, k)] - 1) < 0.02


def test_tilted_seed_beside_dp_accounting():
    """sigma = 1, k = 3: the estimate within 0.5% of dp_accounting's pair."""
    got = math.exp(replace_law(Fraction(1), Q).float_log_delta(3, 1.0))
    assert DPA_1_3[0] * 0.995 <= got <= DPA_1_3[1] * 1.005


def test_seed_declines_outside_its_range():
    law = replace_law(Fraction(1, 8), Fraction(1, 1000))
    assert law.float_log_delta(10**4, 1.0) is None  # (the far tail: the route's own path)
    assert law.float_log_delta(3, 0.0) is None


@pytest.mark.parametrize("sigma,k", [(2, 10), (1, 3)])
def test_default_delta_from_one_grid(monkeypatch, sigma, k):
    """One grid, the default tolerance met (5e-4), and the references held: the inversion's
    1e-10 enclosure inside (sigma = 2), dp_accounting's pair met (sigma = 1)."""
    grids = []
    real = cf._Inverter.__init__

    def spy(self, factors, plan, extra=None):
        grids.append(plan.n_nodes)
        real(self, factors, plan, extra)

    monkeypatch.setattr(cf._Inverter, "__init__", spy)
    f = ta.PoissonReplace(1 / sp.Integer(sigma), sp.Rational(1, 100)) ** k
    with ta.pld_options():
        v = ta.delta(f, 1, dps=20)
    lo, hi = float(v.lo), float(v.hi)
    assert v.guarantee == "certified" and len(grids) == 1
    assert 0 < hi - lo <= 5e-4 * hi
    if sigma == 2:
        assert lo <= 4.66221183321968425e-26 and 4.66221183321968541e-26 <= hi
    else:
        assert lo <= DPA_1_3[1] and DPA_1_3[0] <= hi
