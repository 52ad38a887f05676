"""DP-SGD's far tails and its few-step inversion's shared work: eps(delta) of one step down to
delta = 1e-300 (the closed form in Phi, certified) against 60-digit mpmath references computed
by quadrature, the planner's float shortcuts (log M(c) at many c at once, the power decay's
estimate) against a quadrature and the certified bound, one model of the tilted density per
eps search, and a tight delta(1/2) of ten steps inside dp_accounting's optimistic/pessimistic
pair."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families import gaussian_sampled_poly
from tradeoff_algebra.families.gaussian_sampled import sampled_law
from tradeoff_algebra.numeric import tol_nest
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_profile import PROFILE
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.engines import INVERSION

#: eps(10^-k) of AddRemove(Mix(G_1, 1/10)) (one step): the "remove" direction's root of
#: log delta(eps) = log 10^-k, delta by ``references.sampled_gaussian.sampled_gaussian_delta_one``
#: (mp.quad of (A - e^eps B)_+ split at the crossing, found by bisection: not the closed form)
#: at 70 digits, the root by secant steps to 1e-130. The "add" direction's loss is at most
#: -log(1 - q) = 0.105..., below every eps here, so the remove direction is the maximum.
ONE_STEP_EPS = {
    10: "3.8899235981722210318496548127239128052410005731835138256278928",
    30: "9.2378070941683491999799709526088101628364519372979351921454612",
    100: "19.216132332583846929516799325436560967882175224364463162182792",
    200: "28.212614455716965713516268695921639624528703112183287118240456",
    300: "35.083982065294159823225260775215145558825844736405163755995306",
}


@pytest.mark.parametrize("k", sorted(ONE_STEP_EPS))
def test_one_step_epsilon_down_to_1e_300(k):
    """eps(10^-k) of one step, k = 10 .. 300 (exact rational delta): certified from the
    one-step profile's closed form (Arb's erfc far in the tail, the root by a bracket proved by
    two balls), no warning, and the 60-digit reference inside the interval."""
    f = ta.AddRemove(ta.Mix(ta.G(1), sp.Rational(1, 10)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, sp.Rational(1, 10**k))
    assert v.guarantee == "certified" and v.route == PROFILE
    lo, hi = v.interval()
    with mp.workdps(70):
        ref = mp.mpf(ONE_STEP_EPS[k])
        assert mp.mpf(lo) <= ref <= mp.mpf(hi)
        assert 0 < hi - lo <= 1e-9 * ref
        # the add direction is below every loss the answer reaches
        assert -mp.log(1 - mp.mpf(1) / 10) < ref


def test_one_step_epsilon_float_level():
    """The float level 1e-300 (whose square underflowed the level's geometric mean: the
    former [8, oo] with a warning) answers as the exact one does, within the interval's width
    (the float differs from 10^-300 by a relative 1e-17, moving eps by about 1e-19)."""
    f = ta.AddRemove(ta.Mix(ta.G(1), sp.Rational(1, 10)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, 1e-300)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    with mp.workdps(70):
        assert mp.mpf(lo) <= mp.mpf(ONE_STEP_EPS[300]) <= mp.mpf(hi)


def _log_mgf_quad(mu, q, direction, c):
    """log E_A[e^{cL}] of one step by mp.quad over x (30 digits)."""
    with mp.workdps(30):
        mu, q, c = mp.mpf(mu), mp.mpf(q), mp.mpf(c)
        lr = lambda x: 1 - q + q * mp.exp(mu * x - mu * mu / 2)  # noqa: E731  (A/B, remove)
        if direction == "remove":  # A = B lr, E_A[lr^c] = E_B[lr^(c+1)]
            g = lambda x: mp.npdf(x) * lr(x) ** (c + 1)  # noqa: E731
        else:  # A = N(0, 1), L = -log lr
            g = lambda x: mp.npdf(x) * lr(x) ** (-c)  # noqa: E731
        peak = mu * (c + 1) if direction == "remove" else 0
        return mp.log(mp.quad(g, [-mp.inf, -10, 0, peak, peak + 10, mp.inf]))


@pytest.mark.parametrize("sigma,direction", [(2, "remove"), (4, "remove"), (2, "add")])
def test_log_mgf_many_matches_quadrature(sigma, direction):
    """The planner's vectorised log M(c) (one grid for every c) against an mpmath quadrature
    of E_A[e^{cL}], and against the one-c-at-a-time cumulants it replaces."""
    law = sampled_law(Fraction(1, sigma), Fraction(256, 60000), direction)
    cs = [0.5, 3.0, 25.0] if direction == "remove" else [0.5, 3.0]
    got = law.log_mgf_many(cs)
    for c, g in zip(cs, got, strict=True):
        ref = float(_log_mgf_quad(1 / sigma, 256 / 60000, direction, c))
        assert abs(g - ref) <= 1e-9 * max(1.0, abs(ref))
        assert abs(g - law.cumulants(c)[0]) <= 1e-9 * max(1.0, abs(ref))


@pytest.mark.parametrize("c", [5.0, 25.0, 100.0])
def test_power_decay_estimate_within_the_certified_bound(c):
    """The planner's float log V of the power decay |M(c + it)| <= V / t (a grid maximum of
    log W) lies below the certified bound (Arb branch and bound of sup W) and within 0.02 of
    it (the bound's boxes stop at 0.01 above the best point found)."""
    law = sampled_law(Fraction(1, 2), Fraction(256, 60000), "remove")
    est, p = law.log_power_decay_estimate(c)
    with working_precision(64):
        v, pc = law.power_decay(arb(c))
    assert p == pc == 1
    log_v = float(v.log().upper())  # (V itself may exceed every float: e^712 at c = 25)
    assert est <= log_v <= est + 0.02


#: dp_accounting 0.6.0's optimistic and pessimistic eps(1e-5) of sigma = 4, q = 256/60000,
#: T = 3 (``from_gaussian_mechanism``, grid 1e-5, the pessimistic one with connect-the-dots),
#: written here (its import and composition take seconds in a test).
PEER_EPS_SIGMA4_T3 = (0.004900672114634999, 0.004915694178928387)


def test_eps_search_builds_one_model(monkeypatch):
    """eps(1e-5) of DP-SGD (sigma = 4, T = 3): the locating grid and the grid at the level share
    one contour abscissa, so one model of the tilted density is built; the answer is certified
    by the inversion and meets dp_accounting's optimistic/pessimistic eps (float64: a relative
    1e-9 of slack each side)."""
    from test_global_precision import clear_caches

    clear_caches()  # (a model or an answer kept by an earlier test in the process: none built)
    tol_nest.clear()
    built = []
    orig = gaussian_sampled_poly._Model.__init__

    def counting(self, law, c, prec):
        built.append((float(c.mid()), prec))
        orig(self, law, c, prec)

    monkeypatch.setattr(gaussian_sampled_poly._Model, "__init__", counting)
    f = ta.noisy_sgd(4, dataset_size=60000, batch_size=256, steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, sp.Rational(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert len(built) == 1
    opt, pess = PEER_EPS_SIGMA4_T3
    assert max(float(v.lo), opt * (1 - 1e-9)) <= min(float(v.hi), pess * (1 + 1e-9))


@pytest.mark.slow
def test_tight_delta_of_ten_steps():
    """delta(1/2) of DP-SGD (sigma = 1.1, T = 10; about 1.2e-9) at tol 1e-9: the first plan
    rests on a saddle-point estimate a factor 100 off, and the re-plan at the level measured is
    allowed the flat view's own cap of nodes (formerly 3 times the first plan's work: 3.8e-7
    wide with a ToleranceWarning): certified to 1e-9, no warning, and inside dp_accounting's
    optimistic/pessimistic pair (grid 1e-5; float64: a relative 1e-9 of slack each side)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    f = ta.noisy_sgd(1.1, dataset_size=60000, batch_size=256, steps=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.delta(f, sp.Rational(1, 2))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(1.1, pessimistic_estimate=pess, sampling_prob=256 / 60000,
                                        value_discretization_interval=1e-5,
                                        use_connect_dots=pess)
        out.append(p.self_compose(10).get_delta_for_epsilon(0.5))
    assert out[0] * (1 - 1e-9) <= float(v.hi) and float(v.lo) <= out[1] * (1 + 1e-9)


def test_replan_cap_of_a_flat_view():
    """A re-plan of the flat view may take the view's own cap of nodes (tight below TIGHT_REL,
    loose above), never less than REPLAN_WORK times the first plan; the law's own quadrature
    keeps REPLAN_WORK times its first plan's work; a time limit lowers the flat view's cap to
    the nodes the time left pays for."""
    from tradeoff_algebra.numeric import budget, cf

    law = sampled_law(Fraction(10, 11), Fraction(256, 60000), "remove")
    flat = [(law.flat_view(), 10)]
    own = [(law, 10)]
    with working_precision(64):
        plan = cf._first_plan(flat, 0.1, 1e-3)
        first = cf.REPLAN_WORK * cf._plan_work(flat, plan)
        tight, loose = law.flat_view().work_caps
        assert cf._replan_cap(flat, plan, 1e-10) == max(first, tight)
        assert cf._replan_cap(flat, plan, 1e-4) == max(first, loose)
        plan_own = cf._first_plan(own, 0.1, 1e-3)
        assert cf._replan_cap(own, plan_own, 1e-10) == cf.REPLAN_WORK * cf._plan_work(own,
                                                                                     plan_own)
        with budget.time_limit(1.0), budget.call("test"):
            cap = cf._replan_cap(flat, plan, 1e-10)
        assert cap <= max(first, 1.0 / law.flat_view().node_seconds)


def test_default_tolerance_takes_the_flat_view_beyond_the_own_cap():
    """eps(1e-5) of DP-SGD (sigma = 4, T = 20) at the default tolerance: the law's own plan is
    beyond the route's cap of its work (it was left to the PLD engine, an estimate), so the
    flat view answers, certified, no warning, inside dp_accounting's optimistic/pessimistic
    eps (grid 1e-5, from benchmarks/RESULTS_dpsgd_fewstep.md, printed to 10 digits: a relative
    1e-9 of slack each side)."""
    f = ta.noisy_sgd(4, dataset_size=60000, batch_size=256, steps=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, sp.Rational(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    opt, pess = 0.01300643246, 0.01310647517
    assert max(float(v.lo), opt * (1 - 1e-9)) <= min(float(v.hi), pess * (1 + 1e-9))


def _cumulants_quad(mu, q, direction, c):
    """(log M, K'(c), K''(c)) of one step by mp.quad at 20 digits: the tilted law's mean and
    variance of L, E_A[L^k e^{cL}] / M for k = 1, 2."""
    with mp.workdps(20):
        mu, q, c = mp.mpf(mu), mp.mpf(q), mp.mpf(c)
        lr = lambda x: 1 - q + q * mp.exp(mu * x - mu * mu / 2)  # noqa: E731
        if direction == "remove":
            e, peak = c + 1, mu * (c + 1)
        else:
            e, peak = -c, 0
        # (two modes: phi's near 0 and the tilted tail's near mu (c + 1))
        pts = sorted({-mp.inf, mp.mpf(-10), mp.mpf(-2), mp.mpf(0), mp.mpf(2), mp.mpf(10),
                      peak - 10, peak - 2, peak, peak + 2, peak + 10, mp.inf})
        if direction == "remove":
            g = lambda x, k: mp.npdf(x) * lr(x) ** e * mp.log(lr(x)) ** k  # noqa: E731
        else:
            g = lambda x, k: mp.npdf(x) * lr(x) ** e * (-mp.log(lr(x))) ** k  # noqa: E731
        m0, m1, m2 = (mp.quad(lambda x, k=k: g(x, k), pts) for k in range(3))
        mean = m1 / m0
        return float(mp.log(m0)), float(mean), float(m2 / m0 - mean * mean)


@pytest.mark.parametrize("sigma,direction,c", [(4, "remove", 3.0), (4, "remove", 104.0),
                                               (4, "remove", 173.0), (4, "add", 1379.0),
                                               (2, "remove", 40.0), (1.1, "remove", 7.5)])
def test_planning_cumulants_at_the_plan_step_match_quadrature(sigma, direction, c):
    """The float planning sums at their step (gaussian_sampled.PLAN_STEP, 0.2 where 0.2 / mu is
    larger) against a 20-digit mpmath quadrature of E_A[L^k e^{cL}]: log M within 1e-10, the
    tilted mean and variance within 1e-9 relative (c: the plans' and the add direction's
    Chernoff saddle points of sigma = 4, T = 10, eps(1e-5), and sigma = 2 / 1.1's)."""
    law = sampled_law(Fraction(1) / Fraction(str(sigma)), Fraction(256, 60000), direction)
    lg, mean, var = law.cumulants(c)
    ref = _cumulants_quad(1 / sigma, 256 / 60000, direction, c)
    assert abs(lg - ref[0]) <= 1e-10 * max(1.0, abs(ref[0]))
    assert abs(mean - ref[1]) <= 1e-9 * abs(ref[1])
    assert abs(var - ref[2]) <= 1e-9 * abs(ref[2])
