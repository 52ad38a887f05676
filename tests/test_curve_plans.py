"""What whole curves spend on placing their points: how many tail inverters the inversion plans
(routes/inversion_curve.py: a direction stops planning once a plan fails to better the error
bound where it was made, or would be one it made already), and the atoms decided before the
Newton steps (numeric/cf_lattice_curve.py: none where a level's bracket holds more than a few).
References: dp_accounting's power bracket of DP-SGD stored in tests/test_dpsgd_fewstep_curve.py
(recomputed by its slow test); the support line of the delta route (numeric/cf_mixed_split's
grid_enclosure) for a hundred Laplace scales."""

import warnings

import numpy as np
import pytest
import sympy as sp
from test_dpsgd_fewstep_curve import BRACKETS, SIGMA, Q, _meets

import tradeoff_algebra as ta
from tradeoff_algebra.routes import inversion_curve


def _count_plans(monkeypatch) -> list:
    seen: list = []
    orig = inversion_curve._Tails.plan

    def plan(self, e0):
        seen.append((id(self), float(self.reach(e0))))
        return orig(self, e0)

    monkeypatch.setattr(inversion_curve._Tails, "plan", plan)
    return seen


@pytest.mark.slow
def test_ten_steps_plan_each_abscissa_once(monkeypatch):
    """T = 10 at tol 1e-9 (the remove direction's loss is at most T log(1/(1 - q)): its points
    near eps = 0 keep their error bound whatever is planned; it planned 15 times at one
    abscissa, 0.7 s of one eps call's 0.8 s): every plan at its own abscissa, at most three, and
    the band meets dp_accounting's bracket at 1e-8 relative width."""
    seen = _count_plans(monkeypatch)
    f = ta.noisy_sgd(SIGMA, Q, 10)
    x = np.linspace(0, 1, 101)
    # no deadline (time_limit(None)): every cap of the planners is then in planned work (nodes
    # times a constant node_seconds, cf_route._cap, cf._replan_cap), none in the time left, so
    # the count does not follow the machine's load; one band (the milestones' bands are gone:
    # the tolerance chain of numeric/tol_nest nests bands without computing looser ones)
    with warnings.catch_warnings(), ta.time_limit(None):
        warnings.simplefilter("error")
        b = inversion_curve.inversion_band(f, x, 1e-9)
    assert len(seen) == len(set(seen)) and len(seen) <= 4
    assert _meets(float(b.power_lo[1]), float(b.power_hi[1]), BRACKETS[(10, 0.01)])
    inner = (x > 0) & (x < 1)
    assert np.all(b.power_hi[inner] - b.power_lo[inner] <= 1e-8 * b.power_hi[inner])



def test_ten_steps_plan_each_direction_once_at_the_default_tolerance(monkeypatch):
    """T = 10 at tol 5e-4: the remove direction (loss at most T log(1/(1 - q)) = 0.043) plans
    its first inverter at a quarter of its largest loss (``inversion_tails.FIRST_REACH``),
    where its error bound near eps = 0 (both deltas equal the total variation there) meets
    the share asked; planned at half of it, its steep tilt left that bound 60 times too wide
    and a second plan at eps = 0.0002 followed. One plan per direction; the band meets
    dp_accounting's bracket and the tolerance."""
    seen = _count_plans(monkeypatch)
    f = ta.noisy_sgd(SIGMA, Q, 10)
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings(), ta.time_limit(None):
        warnings.simplefilter("error")
        b = inversion_curve.inversion_band(f, x, 5e-4)
    assert len(seen) == 2 and len({who for who, _ in seen}) == 2
    assert _meets(float(b.power_lo[1]), float(b.power_hi[1]), BRACKETS[(10, 0.01)])
    inner = (x > 0) & (x < 1)
    assert np.all(b.power_hi[inner] - b.power_lo[inner] <= 5e-4 * b.power_hi[inner])


@pytest.mark.slow
def test_a_hundred_scales_curve_is_tight_and_touches_the_delta_routes_line():
    """(x)_{i<100} Laplace(1/10 + i/10^4) at tol 1e-9 on 101 levels (46 516 atoms above 0,
    some 180 in each level's grid bracket, left to the Newton steps): no warning, every power
    1e-9 wide; at 0.01 the band lies on the support line delta(eps) + e^eps alpha of its own
    threshold, delta from the delta route (``grid_enclosure``: the remainder's delta inverted
    with the exact part added, another sum), to 1e-9."""
    from fractions import Fraction as F

    from flint import arb

    from tradeoff_algebra.families.laplace import LaplaceLaw
    from tradeoff_algebra.numeric.cf_laws import working_precision
    from tradeoff_algebra.numeric.cf_mixed_grid_tails import GridTails
    from tradeoff_algebra.numeric.cf_mixed_split import grid_enclosure

    mus = [F(1, 10) + F(i, 10**4) for i in range(100)]
    f = ta.Tensor(*[ta.Laplace(m) for m in mus])
    x = np.linspace(0, 1, 101)
    with ta.pld_options(tol=1e-9), warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = ta.curve(f, x, bounds=True)
    inner = slice(1, -1)
    assert np.all((hi - lo)[inner] <= 1e-9 * (1 - lo)[inner])
    laws = [LaplaceLaw(m) for m in mus]
    tails = GridTails(laws, 1e-11)
    a, b = 0.0, 8.0  # (the threshold whose size is 0.01: alpha decreases in eps)
    for _ in range(60):
        m = 0.5 * (a + b)
        a, b = (m, b) if float(tails.estimate(np.array([m]))[2][0]) > 0.01 else (a, m)
    eps = 0.5 * (a + b)
    d_lo, d_hi = grid_enclosure([(law, 1) for law in laws], "delta", eps, eps, 1e-12)
    with working_precision(128):
        e = arb(eps).exp()
        line_hi = float((arb(d_hi) + e * arb(0.01)).upper())
        line_lo = float((arb(d_lo) + e * arb(0.01)).lower())
    p_lo, p_hi = 1 - hi[1], 1 - lo[1]
    assert p_lo <= line_hi * (1 + 1e-15)  # (every support line bounds the power above)
    assert line_lo - p_hi <= 1e-9 * p_hi  # (and this one touches it at 0.01)


@pytest.mark.slow
def test_a_hundred_scales_curve_plans_one_remainder(monkeypatch):
    """(x)_{i<100} Laplace(1/10 + i/10^4) at tol 1e-9 on 101 levels: the first remainder
    (numeric/cf_mixed_grid_tails.FIRST_SCALE of rel) answers every level's point, where at rel
    the level 0.01 (eps 2.64) asked a second plan; every power 2e-11 wide (1.7e-11 before at
    that level, two plans), and the power at 0.01 inside dp_accounting's bracket at grid 1e-4
    (pessimistic and optimistic PLDs, benchmarks/RESULTS_curve_ratio.md)."""
    from tradeoff_algebra.numeric import cf_mixed_grid_tails

    seen: list = []
    orig = cf_mixed_grid_tails.GridTails._plan

    def plan(self, eps0, scale=1.0):
        seen.append((eps0, scale))
        return orig(self, eps0, scale)

    monkeypatch.setattr(cf_mixed_grid_tails.GridTails, "_plan", plan)
    f = ta.Tensor(*[ta.Laplace(sp.Rational(1, 10) + sp.Rational(i, 10**4)) for i in range(100)])
    x = np.linspace(0, 1, 101)
    with ta.pld_options(tol=1e-9), warnings.catch_warnings(), ta.time_limit(None):
        warnings.simplefilter("error")
        lo, hi = ta.curve(f, x, bounds=True)
    assert seen == [(seen[0][0], cf_mixed_grid_tails.FIRST_SCALE)]
    inner = slice(1, -1)
    assert np.all((hi - lo)[inner] <= 2e-11 * (1 - lo)[inner])
    assert 0.0973401373542 <= 1 - hi[1] <= 1 - lo[1] <= 0.0974432270087
