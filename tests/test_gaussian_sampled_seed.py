"""The float seed of the eps search for a few Poisson-subsampled Gaussian steps
(families/gaussian_sampled_seed.py: a float PLD of one FFT) against dp_accounting's
optimistic/pessimistic PLD pair per direction, its slope against finite differences of the
certified delta (the Laplace inversion, another computation), its refusals, and the search it
seeds: one grid, certified, inside dp_accounting's pair."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw, sampled_law
from tradeoff_algebra.families.gaussian_sampled_seed import float_epsilon
from tradeoff_algebra.numeric import cf, cf_route
from tradeoff_algebra.numeric.cf_laws import working_precision

Q = Fraction(256, 60000)


def _pair(sigma: float, T: int, direction: str, delta: float, grid: float):
    """dp_accounting's optimistic and pessimistic eps(delta) of one direction (float64, not
    proved)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(sigma, pessimistic_estimate=pess, sampling_prob=float(Q),
                                        value_discretization_interval=grid,
                                        use_connect_dots=pess).self_compose(T)
        pmf = p._pmf_remove if direction == "remove" else p._pmf_add
        out.append(pmf.get_epsilon_for_delta(delta))
    return out


@pytest.mark.parametrize("sigma,T,direction,grid", [
    (4, 10, "remove", 1e-4), (4, 3, "add", 1e-4), (2, 30, "remove", 1e-4),
    pytest.param(1.1, 3, "remove", 1e-5, marks=pytest.mark.slow),
    pytest.param(1.1, 100, "remove", 1e-5, marks=pytest.mark.slow),
    pytest.param(2, 100, "add", 1e-5, marks=pytest.mark.slow)])
def test_seed_within_dp_accountings_pair(sigma, T, direction, grid):
    """The seed lies in dp_accounting's [optimistic, pessimistic] eps(1e-5), widened by a
    relative 3e-4 (an estimate: its midpoint rule and cells; it only places the plan)."""
    law = sampled_law(1 / Fraction(sigma), Q, direction)
    eps, slope = float_epsilon(law, T, 1e-5)
    opt, pess = _pair(float(sigma), T, direction, 1e-5, grid)
    assert opt * (1 - 3e-4) <= eps <= pess * (1 + 3e-4)
    assert slope > 0


@pytest.mark.parametrize("sigma,T", [(4, 10), pytest.param(1.1, 3, marks=pytest.mark.slow)])
def test_slope_against_certified_differences(sigma, T):
    """-d log delta / d eps at the seed against the central difference of log delta from the
    certified inversion at eps -+ 1e-3 eps (within 2 %: the difference's own error is second
    order, about 1e-5 here)."""
    law = sampled_law(1 / Fraction(sigma), Q, "remove")
    eps, slope = float_epsilon(law, T, 1e-5)
    step = 1e-3 * eps
    logs = []
    for x in (eps - step, eps + step):
        lo, hi = cf_route.route_enclosure([[(law, T)]], "delta", x, x, 1e-6)
        logs.append(math.log(0.5 * (lo + hi)))
    diff = (logs[0] - logs[1]) / (2 * step)
    assert abs(slope - diff) <= 0.02 * diff


def test_refusals():
    """None where the seed does not serve: a cut law, q = 1, levels below SEED_MIN_DELTA or at
    1 (the saddle-point guess then seeds the search, as before)."""
    law = sampled_law(Fraction(1, 2), Q, "remove")
    assert float_epsilon(law.truncated(6), 10, 1e-5) is None
    assert float_epsilon(SubsampledGaussianLaw(Fraction(1, 2), 1, "remove"), 10, 1e-5) is None
    assert float_epsilon(law, 10, 1e-13) is None
    assert float_epsilon(law, 10, 1.0) is None


@pytest.mark.parametrize("sigma,T", [(4, 10), pytest.param(1.1, 3, marks=pytest.mark.slow)])
def test_seeded_search_inverts_one_grid(monkeypatch, sigma, T):
    """eps(1e-5) at the default tolerance (sigma = 1.1, T = 3: its saddle-point guess 0.40 for
    0.07 cost a locating grid of about 1700 nodes): the seeded search inverts one grid, and its
    certified interval is within the tolerance and meets dp_accounting's pair at grid 1e-4."""
    law = sampled_law(1 / Fraction(sigma), Q, "remove")
    grids = []
    real = cf._Inverter.__init__

    def spy(self, factors, plan, extra=None):
        grids.append(plan.n_nodes)
        real(self, factors, plan, extra)

    monkeypatch.setattr(cf._Inverter, "__init__", spy)
    with working_precision(64):
        lo, hi = cf_route.route_enclosure([[(law, T)]], "epsilon", 1e-5, 1e-5, 5e-4)
    assert len(grids) == 1
    assert 0 < hi - lo <= 5e-4 * hi
    opt, pess = _pair(float(sigma), T, "remove", 1e-5, 1e-4)
    assert lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9)
