"""The float seed of the replace-one eps search (families/poisson_replace_seed.py), the flat
view's kept grids and its choice of the law's own sums (families/poisson_replace_poly.py).

References, each by another route:
* two steps: the certified two-step profile (``families/poisson_replace_profile.py``, a
  one-dimensional Arb integral, itself tested against a 40-digit quadrature): delta there at
  the seed's eps is the level within what the seed's error allows;
* three and ten steps: dp_accounting's REPLACE_ONE PLD at grid 1e-4 (float64, another
  discretisation: its values lie within ~1e-6 relative of the certified ones);
* the kept grid: the same balls as a fresh view's grid;
* PoissonReplace(3, 1/100)**3, delta(1/20): dp_accounting's REPLACE_ONE optimistic and
  pessimistic PLDs at grid 1e-5 bracket it (float64, not proved) and ours must meet that
  bracket.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families import poisson_replace_poly as poly
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw, replace_law
from tradeoff_algebra.families.poisson_replace_profile import two_step_delta
from tradeoff_algebra.families.poisson_replace_seed import replace_epsilon
from tradeoff_algebra.numeric.cf_laws import working_precision

R = sp.Rational


@pytest.mark.parametrize("mu, delta", [(Fraction(1), 1e-5), (Fraction(1, 2), 1e-3)])
def test_two_step_seed_meets_the_certified_profile(mu, delta):
    """delta_2(eps_seed) by the certified two-step integral is the level up to the seed's
    error: |log(delta_2(eps_seed) / delta)| <= slope * 2e-5 eps (the seed's relative error of eps
    is ~1e-6; the bound allows 20 times that), and the slope is -d log delta / d eps there to
    within a few per cent (the same integral at eps_seed + 1e-4)."""
    law = ReplaceLaw(mu, Fraction(1, 100))
    eps, slope = replace_epsilon(law, 2, delta)
    with working_precision(80):
        d0 = two_step_delta(law, eps, 1e-12)
        d1 = two_step_delta(law, eps + 1e-4, 1e-12)
    got = math.log(float(d0.mid()) / delta)
    assert abs(got) <= slope * 2e-5 * eps
    ref_slope = -math.log(float(d1.mid()) / float(d0.mid())) / 1e-4
    assert abs(slope - ref_slope) <= 0.05 * ref_slope


@pytest.mark.slow
@pytest.mark.parametrize("sigma, k", [(1, 3), (2, 10)])
def test_seed_meets_dp_accounting(sigma, k):
    """The seed within 2e-5 relative of dp_accounting's REPLACE_ONE eps(1e-5) (grid 1e-4)."""
    pa = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    from dp_accounting import NeighboringRelation, dp_event

    law = ReplaceLaw(Fraction(1, sigma), Fraction(1, 100))
    eps, _ = replace_epsilon(law, k, 1e-5)
    acc = pa.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(float(sigma))), k))
    ref = acc.get_epsilon(1e-5)
    assert abs(eps - ref) <= 2e-5 * ref


def test_seed_declines_outside_its_levels():
    law = ReplaceLaw(Fraction(1), Fraction(1, 100))
    assert replace_epsilon(law, 3, 1e-13) is None
    assert replace_epsilon(law, 3, 1.0) is None
    assert replace_epsilon(law, 0, 1e-5) is None


def test_kept_grid_is_the_fresh_grid_and_not_recomputed(monkeypatch):
    """A second grid at the same (c, h, n, precision) is the kept one (not computed again),
    and its balls meet a fresh view's."""
    law = ReplaceLaw(Fraction(1, 2), Fraction(1, 100))
    view = law.flat_view()
    c, h, n = arb(20), arb(1.5), 40
    with working_precision(64):
        first = view.mgf_grid(c, h, n)
        calls = []
        orig = poly.ReplacePolyLaw._mgf_grid
        monkeypatch.setattr(poly.ReplacePolyLaw, "_mgf_grid",
                            lambda self, *a: calls.append(1) or orig(self, *a))
        again = view.mgf_grid(c, h, n)
        kept_calls = len(calls)
        fresh = poly.ReplacePolyLaw(ReplaceLaw(Fraction(1, 2), Fraction(1, 100))).mgf_grid(c, h, n)
    assert kept_calls == 0 and len(calls) == 1  # (the kept grid: none; the fresh view: one)
    assert len(first) == len(again) == len(fresh) == n + 1
    for a, b, f in zip(first, again, fresh, strict=True):
        assert all(x.mid() == y.mid() and x.rad() == y.rad()  # (the same balls)
                   for x, y in ((a.real, b.real), (a.imag, b.imag)))
        assert a.overlaps(f)


def test_hundred_steps_take_the_law_own_sums():
    """A hundred steps' eps(1e-5) at the default tolerance: the flat view's grid reaches
    |t| ~ 40 only, where the law's own sums cost less than a model (none is built); certified,
    within the default width, and meeting the certified value at tol 1e-9 (the law's own
    inversion at its tighter plan: another grid, another contour)."""
    mu, q = Fraction(10, 11), Fraction(1, 101)  # (a law no other test builds models of)
    f = ta.PoissonReplace(R(10, 11), R(1, 101)) ** 100
    v = ta.epsilon(f, R(1, 10**5), dps=20)
    assert not replace_law(mu, q).flat_view()._models
    with ta.pld_options(tol=1e-9):
        tight = ta.epsilon(f, R(1, 10**5), dps=20)
    assert v.guarantee == tight.guarantee == "certified"
    assert v.lo <= tight.hi and tight.lo <= v.hi
    assert float(v.hi - v.lo) <= 5e-4 * float(v.hi)


@pytest.mark.slow
def test_three_large_mu_steps_answer_inside_the_dp_accounting_pair():
    """PoissonReplace(3, 1/100)**3, delta(1/20): the loss has most of its mass within 1e-3 of
    0, so the inversion needs |t| to ~2000 (10 630 nodes); it was stopped at the 15 s limit
    (each identical plan's grid evaluated again), now certified in ~5 s of CPU, inside
    dp_accounting's REPLACE_ONE pair at grid 1e-5."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_accounting import NeighboringRelation

    f = ta.PoissonReplace(3, R(1, 100)) ** 3
    with ta.time_limit(120):
        v = ta.delta(f, R(1, 20))
    assert v.guarantee == "certified" and float(v.hi - v.lo) <= 5e-4 * float(v.hi)
    pair = []
    for pess in (False, True):
        d = pld.from_gaussian_mechanism(1 / 3, pessimistic_estimate=pess, sampling_prob=0.01,
                                        value_discretization_interval=1e-5,
                                        use_connect_dots=pess,
                                        neighboring_relation=NeighboringRelation.REPLACE_ONE)
        pair.append(d.self_compose(3).get_delta_for_epsilon(0.05))
    lo, hi = min(pair), max(pair)
    assert float(v.lo) <= hi * (1 + 1e-9) and lo * (1 - 1e-9) <= float(v.hi)
