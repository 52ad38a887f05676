"""DP-SGD with a few to a few hundred steps (AddRemove(Mix(G_mu, q)^{(x) T})) by the certified
Laplace inversion with its contour below the saddle point (numeric/cf.py, ``scan_contour``) and
the larger work the route allows such a power (numeric/cf_route.py, ``FEW_STEP_WORK``), and one
step without a power (AddRemove(Mix(G_mu, q))) from its closed form; against independent
references: a 3-fold numerical convolution in mpmath (tests/references/sampled_gaussian.py),
the one-step half-line closed form in mpmath, dp_accounting's optimistic/pessimistic PLD pair
and the PLD engine."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from references.dpsgd_power import hull_plds
from references.sampled_gaussian import (
    sampled_gaussian_delta_halfline,
    sampled_gaussian_delta_three,
)

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw, sampled_law
from tradeoff_algebra.numeric import cf, cf_route
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.engines import INVERSION

R = sp.Rational

#: delta(1/2) of three steps of Mix(G_1, 1/2) (remove) and of its inverse (add), by
#: ``sampled_gaussian_delta_three`` at 15 digits (a 3-fold mpmath quadrature, 120 to 200 s each;
#: recomputed by the slow test below).
THREE_STEPS = {"remove": "0.205853458037448", "add": "0.153328139971702"}


def test_addremove_mix_epsilon_from_the_closed_form():
    """eps(1e-5) of AddRemove(Mix(G_1, q)) (one step, no power) from the one-step closed form
    in Phi (the power's profile route), certified; the 30-digit half-line reference (the larger
    direction) is above 1e-5 at its lower end and at most 1e-5 at its upper end."""
    q = R(256, 60000)
    v = ta.epsilon(ta.AddRemove(ta.Mix(ta.G(1), q)), R(1, 10**5))
    assert v.guarantee == "certified" and v.route == cf_route.PROFILE
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    with mp.workdps(30):
        qq = mp.mpf(256) / 60000
        for x, above in ((v.lo, True), (v.hi, False)):
            d = max(sampled_gaussian_delta_halfline(mp.one, qq, s, mp.mpf(x))
                    for s in ("remove", "add"))
            assert (d > mp.mpf(10) ** -5) == above


def test_addremove_mix_of_other_operands_keeps_its_search():
    """A Mix whose loss law has no profile of its own (the Laplace mechanism's) is not taken by
    the one-step route (the bracketing search answers it, as before)."""
    from tradeoff_algebra.routes import engines

    f = ta.AddRemove(ta.Mix(ta.Laplace(1), R(1, 10)))
    assert engines._single_factor_epsilon(f, mp.mpf(1) / 10**5) is None
    g = ta.AddRemove(ta.Mix(ta.G(1), R(1, 10)))
    assert engines._single_factor_epsilon(g, mp.mpf(1) / 10**5) is not None


@pytest.mark.parametrize("direction", ["remove", pytest.param("add", marks=pytest.mark.slow)])
def test_three_steps_against_convolution(direction):
    """delta(1/2) of three steps (mu = 1, q = 1/2: the inversion is affordable) holds the 3-fold
    mpmath convolution (stored, :data:`THREE_STEPS`)."""
    ref = THREE_STEPS[direction]
    if ref is None:
        pytest.skip("no stored reference")
    law = SubsampledGaussianLaw(Fraction(1), Fraction(1, 2), direction)
    with working_precision(64):
        lo, hi = cf_route._finite_enclosure([(law, 3)], "delta", 0.5, 0.5, 1e-9)
    assert hi - lo <= 1e-9 * hi
    with mp.workdps(20):
        r = mp.mpf(ref)
        assert mp.mpf(lo) - 1e-14 <= r <= mp.mpf(hi) + 1e-14  # (the reference's 15 digits)


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_three_step_reference_recomputed(direction):
    """The stored :data:`THREE_STEPS` is what the 3-fold quadrature gives (about 200 s)."""
    ref = THREE_STEPS[direction]
    if ref is None:
        pytest.skip("no stored reference")
    with mp.workdps(15):
        d = sampled_gaussian_delta_three(mp.one, mp.mpf(1) / 2, direction, mp.mpf(1) / 2)
        assert abs(d - mp.mpf(ref)) <= 1e-13 * d


def _plans(sigma: Fraction, T: int, eps: float, rel: float):
    law = sampled_law(1 / sigma, Fraction(256, 60000), "remove")
    f = [(law, T)]
    slack = {"disc": 1.0, "trunc": 1.0, "mgf": 1.0}
    c = cf._saddle(f, eps)
    log_delta = cf._log_delta_saddle(f, c, eps)
    at_saddle = cf._plan_at(f, c, eps, rel, log_delta, slack, 1e9)
    return f, at_saddle, cf._make_plan(f, eps, rel, None, slack, 1e9)


def test_contour_below_the_saddle_point_needs_fewer_nodes():
    """DP-SGD (sigma = 4, q = 256/60000, T = 300): at the saddle point the law's far tail
    makes the strip of the discretisation bound narrow (25 000 nodes); the plan chosen below it
    needs less than a hundredth of that work (the saddle point's plan is refused at 100 times
    the chosen plan's work)."""
    law = sampled_law(Fraction(1, 4), Fraction(256, 60000), "remove")
    f, eps, rel = [(law, 300)], 0.056, 2.5e-10
    slack = {"disc": 1.0, "trunc": 1.0, "mgf": 1.0}
    with working_precision(64):
        chosen = cf._make_plan(f, eps, rel, None, slack, 1e9)
        work = cf._plan_work(f, chosen)
        c = cf._saddle(f, eps)
        assert chosen.c < c
        with pytest.raises(ValueError, match="needs more than"):
            cf._plan_at(f, c, eps, rel, cf._log_delta_saddle(f, c, eps), slack, 100 * work)


def test_two_contours_agree():
    """The inversion on the chosen contour and on the saddle point's (sigma = 4, T = 900,
    both affordable): two certified balls of delta(0.55), on different grids, meet."""
    with working_precision(64):
        f, at_saddle, chosen = _plans(Fraction(4), 900, 0.1014, 2.5e-10)
        assert chosen.c < at_saddle.c
        a = cf._Inverter(f, at_saddle).parts(0.1014).delta
        b = cf._Inverter(f, chosen).parts(0.1014).delta
    assert a.overlaps(b)
    assert float(a.rad()) <= 1e-9 * float(a.mid()) and float(b.rad()) <= 1e-9 * float(b.mid())


def _dp_accounting_bracket(sigma: float, q: float, T: int, eps: float, grid: float):
    """dp_accounting's optimistic and pessimistic delta(eps) of T subsampled Gaussian steps
    (references/dpsgd_power.hull_plds: the larger of the two directions' profiles)."""
    pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    return [p.get_delta_for_epsilon(eps) for p in hull_plds(sigma, q, T, grid)]


@pytest.mark.parametrize("sigma,T,eps,grid", [
    pytest.param(4.0, 900, 0.1014, 1e-4, marks=pytest.mark.slow),
    pytest.param(2.0, 300, 0.13, 1e-5, marks=pytest.mark.slow),
    pytest.param(1.1, 100, 0.218, 1e-5, marks=pytest.mark.slow),
    pytest.param(0.8, 300, 0.95, 1e-5, marks=pytest.mark.slow),
    pytest.param(4.0, 30, 0.0163, 1e-5, marks=pytest.mark.slow)])
def test_delta_meets_dp_accountings_pair(sigma, T, eps, grid):
    """delta(eps) of DP-SGD (q = 256/60000) through the public API at tol 1e-9: certified by
    the inversion, no warning, and its ball meets dp_accounting's optimistic/pessimistic PLD
    bracket (grid 1e-5, 1e-4 in the fast case; float64, not proved: a relative 1e-9 of slack
    each side)."""
    opt, pess = _dp_accounting_bracket(sigma, 256 / 60000, T, eps, grid)
    f = ta.noisy_sgd(sigma, dataset_size=60000, batch_size=256, steps=T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.delta(f, eps)
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert opt * (1 - 1e-9) <= float(v.hi) and float(v.lo) <= pess * (1 + 1e-9)


@pytest.mark.slow
def test_epsilon_beside_the_pld_engine():
    """eps(1e-5) of DP-SGD (sigma = 1.1, T = 100) at tol 1e-9: certified by the inversion, and
    inside the PLD engine's enclosure (the same call with the inversion taken out)."""
    from tradeoff_algebra.routes import engines

    f = ta.noisy_sgd(R(11, 10), dataset_size=60000, batch_size=256, steps=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    with ta.pld_options(tol=1e-7), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dirs = engines.hull_directions(f)
        lo, hi = engines.pld_epsilon(list(dirs), mp.mpf(1) / 10**5, inversion=False)
    assert max(float(lo), float(v.lo)) <= min(float(hi), float(v.hi)) * (1 + 1e-12)


def test_time_limit_declines_the_larger_plan():
    """A plan above MAX_WORK (within FEW_STEP_WORK) is affordable without a limit and declined
    at once where the time left is below its estimate (WORK_SECONDS a unit): not started."""
    from tradeoff_algebra.numeric import budget

    law = sampled_law(Fraction(10, 11), Fraction(256, 60000), "remove")
    f = [(law, 100)]
    with working_precision(64):
        work = cf_route._work(f, 0.218, 1e-10, 1e9)
        assert cf_route.MAX_WORK < work <= cf_route.FEW_STEP_WORK
        assert cf_route._affordable_work(f, 0.218, 1e-10, 1e-10)
        with budget.time_limit(work * cf_route.WORK_SECONDS / 2), budget.call("test"):
            assert not cf_route._affordable_work(f, 0.218, 1e-10, 1e-10)
        # (at a loose width the cap is the smaller one)
        assert cf_route._cap(f, 1e-4) < cf_route._cap(f, 1e-10)


def _dp_accounting_eps_bracket(sigma: float, q: float, T: int, delta: float, grid: float):
    """dp_accounting's optimistic and pessimistic eps(delta), as :func:`_dp_accounting_bracket`."""
    pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    return [p.get_epsilon_for_delta(delta) for p in hull_plds(sigma, q, T, grid)]


def _short_and_general(monkeypatch, sigma: Fraction, T: int):
    """eps(1e-5) at the default width (route_enclosure, tol 5e-4) by the flat view's short path
    (asserted to answer) and by the general path (the short path taken out)."""
    law = sampled_law(1 / sigma, Fraction(256, 60000), "remove")
    got = []
    real = cf_route.flat_enclosure

    def spy(*args):
        got.append(real(*args))
        return got[-1]

    monkeypatch.setattr(cf_route, "flat_enclosure", spy)
    lo, hi = cf_route.route_enclosure([[(law, T)]], "epsilon", 1e-5, 1e-5, 5e-4)
    assert got and got[0] is not None and 0 < hi - lo <= 5e-4 * hi
    monkeypatch.setattr(cf_route, "flat_enclosure", lambda *args: None)
    lo2, hi2 = cf_route.route_enclosure([[(law, T)]], "epsilon", 1e-5, 1e-5, 5e-4)
    assert 0 < hi2 - lo2 <= 5e-4 * hi2
    return (lo, hi), (lo2, hi2)


def test_flat_enclosure_answers_large_sigma_from_one_plan(monkeypatch):
    """sigma = 4, T = 10: answered by the flat view's short path (numeric/cf_flat.flat_enclosure:
    the route's choices from the search's own first plan), certified to the tolerance; the
    general path's certified interval (other plans, two grids) overlaps it."""
    (lo, hi), (lo2, hi2) = _short_and_general(monkeypatch, Fraction(4), 10)
    assert max(lo, lo2) <= min(hi, hi2)


@pytest.mark.slow
@pytest.mark.parametrize("sigma,T", [(4, 5), (4, 20), (2, 5), (2, 20)])
def test_flat_enclosure_meets_dp_accountings_pair(monkeypatch, sigma, T):
    """The short path and the general path both meet dp_accounting's optimistic / pessimistic
    bracket at grid 1e-5 (float64, not proved: a relative 1e-9 of slack)."""
    short, general = _short_and_general(monkeypatch, Fraction(sigma), T)
    opt, pess = _dp_accounting_eps_bracket(float(sigma), 256 / 60000, T, 1e-5, 1e-5)
    for a, b in (short, general):
        assert a <= pess * (1 + 1e-9) and b >= opt * (1 - 1e-9)


@pytest.mark.slow
def test_few_steps_small_sigma_at_tight_tolerance():
    """sigma = 0.8, T = 3, eps(1e-5) at tol 1e-9 (about 90 000 nodes on the flat view's grid,
    ``mgf_grid``; formerly 1.5e-7 wide with a ToleranceWarning): certified, no warning, width
    at most 1e-9, meeting dp_accounting's optimistic/pessimistic bracket at grid 1e-5."""
    f = ta.noisy_sgd(R(4, 5), R(256, 60000), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    lo, hi = float(v.lo), float(v.hi)
    assert 0 < hi - lo <= 1e-9 * hi
    opt, pess = _dp_accounting_eps_bracket(0.8, 256 / 60000, 3, 1e-5, 1e-5)
    assert lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("sigma,T", [(s, t) for s in (2, 4) for t in (3, 10, 30, 100)])
def test_default_tolerance_rows_meet_dp_accountings_pair(sigma, T):
    """The benchmark's rows at sigma = 2 and 4 (eps(1e-5), q = 256/60000, default tolerance,
    benchmarks/RESULTS_dpsgd_fewstep.md): certified by the inversion, no warning, within the
    tolerance, meeting dp_accounting's optimistic / pessimistic bracket at grid 1e-5 (float64,
    not proved: a relative 1e-9 of slack)."""
    f = ta.noisy_sgd(R(sigma), R(256, 60000), T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, R(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    lo, hi = float(v.lo), float(v.hi)
    assert 0 < hi - lo <= 5e-4 * hi
    opt, pess = _dp_accounting_eps_bracket(float(sigma), 256 / 60000, T, 1e-5, 1e-5)
    assert lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9)



#: delta(eps) of three steps, sigma = 4, q = 256/60000, by ``sampled_gaussian_delta_three`` at
#: 10 digits (a 3-fold mpmath convolution, about 100 s each; recomputed by the slow test below):
#: (direction, eps) -> delta. eps(1e-5) lies in (0.0049155, 0.0049158]: above the first (its
#: delta is above 1e-5), at most the second (both directions' delta at most 1e-5 there).
SIGMA4_T3 = {("remove", "0.0049155"): "1.0001772158e-5",
             ("remove", "0.0049158"): "9.99854430472e-6",
             ("add", "0.0049158"): "1.67366220258e-7"}


def test_sigma4_three_steps_against_the_convolution():
    """eps(1e-5) of three steps at sigma = 4 (default tolerance, certified) contains the interval
    (0.0049155, 0.0049158] that the stored 3-fold convolution :data:`SIGMA4_T3` puts eps in."""
    ref = {k: float(v) for k, v in SIGMA4_T3.items()}
    assert ref[("remove", "0.0049155")] > 1e-5
    assert max(ref[("remove", "0.0049158")], ref[("add", "0.0049158")]) <= 1e-5
    v = ta.epsilon(ta.noisy_sgd(R(4), R(256, 60000), 3), R(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert float(v.lo) <= 0.0049155 and float(v.hi) >= 0.0049158
    assert float(v.hi) - float(v.lo) <= 5e-4 * float(v.hi)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(SIGMA4_T3))
def test_sigma4_three_step_reference_recomputed(key):
    """The stored :data:`SIGMA4_T3` is what the 3-fold quadrature gives (about 100 s each)."""
    direction, eps = key
    with mp.workdps(10):
        d = sampled_gaussian_delta_three(mp.mpf(1) / 4, mp.mpf(256) / 60000, direction,
                                         mp.mpf(eps))
        assert abs(d - mp.mpf(SIGMA4_T3[key])) <= 1e-8 * d
