"""The Poisson-subsampled Gaussian law's flat view (families/gaussian_sampled_poly.py: M(c + it)
from Chebyshev pieces of the tilted loss density, a cost flat in t) and the few-step DP-SGD
inversion it makes affordable (numeric/cf_flat.py); against independent references: the law's
own trapezoidal sum in x (a different quadrature of the same integral), the stored 3-fold mpmath
convolution of tests/test_dpsgd_fewstep.py, and dp_accounting's optimistic/pessimistic PLD
pair."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw, sampled_law
from tradeoff_algebra.families.gaussian_sampled_poly import T_SWITCH
from tradeoff_algebra.numeric import cf_flat, cf_route
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.engines import INVERSION

Q = Fraction(256, 60000)


@pytest.mark.parametrize("mu,direction,c", [
    (Fraction(10, 11), "remove", 7.4), (Fraction(10, 11), "add", 3.0),
    (Fraction(1, 4), "remove", 100.0), (Fraction(5, 4), "add", 2.0)])
def test_flat_mgf_matches_the_trapezoidal_sum(mu, direction, c):
    """M(c + it) of the flat view (Chebyshev pieces in the loss y, closed-form transforms) and
    of the law's own trapezoidal sum in x (an independent quadrature) overlap, and the flat
    ball is within the law's tolerance 2^(30 - prec) M(c), at small |t| (the pieces' power
    series: every t != 0 takes the pieces, T_SWITCH = 0) and large."""
    law = SubsampledGaussianLaw(mu, Q, direction)
    flat = law.flat_view()
    with working_precision(100):
        m_c = law.mgf(acb(arb(c))).real
        assert T_SWITCH < 0.5
        for t in (0.5, 20.0, 150.0, 731.25, 2500.0):
            z = acb(arb(c), arb(t))
            a, b = flat.mgf(z), law.mgf(z)
            assert a.overlaps(b)
            assert float(a.real.rad()) <= 2.0 ** (30 - 100) * float(m_c.mid())
        assert float(abs(a).mid()) < float(m_c.mid())  # (decayed: a value, not a zero)


def test_three_steps_by_the_flat_view_against_convolution():
    """delta(1/2) of three steps of Mix(G_1, 1/2) inverted with the flat view holds the stored
    3-fold mpmath convolution (tests/test_dpsgd_fewstep.py, THREE_STEPS)."""
    from test_dpsgd_fewstep import THREE_STEPS

    law = SubsampledGaussianLaw(Fraction(1), Fraction(1, 2), "remove")
    with working_precision(64):
        lo, hi = cf_route._plain_enclosure([(law.flat_view(), 3)], "delta", 0.5, 0.5, 1e-9)
    assert 0 < hi - lo <= 1e-9 * hi
    with mp.workdps(20):
        r = mp.mpf(THREE_STEPS["remove"])
        assert mp.mpf(lo) - 1e-14 <= r <= mp.mpf(hi) + 1e-14


def test_the_flat_view_is_taken_where_it_is_faster():
    """Ten DP-SGD steps (sigma = 1.1) plan nodes up to t ~ 2000: the flat view is taken; a
    product of two laws, or a law without a flat view, is left as it is."""
    few = sampled_law(Fraction(10, 11), Q, "remove")
    with working_precision(64):
        got = cf_flat.flat_factors([(few, 10)], 0.1017, 1e-10)
        assert got[0][0] is few.flat_view() and got[0][1] == 10
        two = [(few, 10), (few.inverse(), 10)]
        assert cf_flat.flat_factors(two, 0.1017, 1e-10) == two
        flat = [(few.flat_view(), 10)]
        assert cf_flat.flat_factors(flat, 0.1017, 1e-10) == flat


def _dp_accounting_pair(sigma: float, T: int, eps: float | None, grid: float = 1e-5):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    out = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(sigma, pessimistic_estimate=pess, sampling_prob=float(Q),
                                        value_discretization_interval=grid,
                                        use_connect_dots=pess).self_compose(T)
        out.append(p.get_delta_for_epsilon(eps) if eps is not None
                   else p.get_epsilon_for_delta(1e-5))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("sigma,T", [(1.1, 10), (2.0, 3)])
def test_few_steps_epsilon_certified_beside_dp_accounting(sigma, T):
    """eps(1e-5) of DP-SGD with few steps at tol 1e-9: certified by the inversion (through the
    flat view), as narrow as asked, and meeting dp_accounting's optimistic/pessimistic bracket
    at grid 1e-5 (float64, not proved: a relative 1e-9 of slack each side)."""
    pess_eps, opt_eps = _dp_accounting_pair(sigma, T, None)  # (opt first: the smaller eps)
    f = ta.noisy_sgd(sigma, dataset_size=60000, batch_size=256, steps=T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, Fraction(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    lo, hi = sorted((pess_eps, opt_eps))
    assert lo * (1 - 1e-9) <= float(v.hi) and float(v.lo) <= hi * (1 + 1e-9)


@pytest.mark.slow
def test_three_steps_at_the_default_tolerance_beside_dp_accounting():
    """eps(1e-5) of three DP-SGD steps at sigma = 4 at the default tolerance: certified by the
    inversion (the PLD engine answered before, an estimate), within the tolerance, and meeting
    dp_accounting's optimistic/pessimistic bracket at grid 1e-5 (float64, not proved: a
    relative 1e-9 of slack each side)."""
    a, b = _dp_accounting_pair(4.0, 3, None)
    f = ta.noisy_sgd(4, dataset_size=60000, batch_size=256, steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.epsilon(f, Fraction(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 5e-4 * v.hi
    lo, hi = sorted((a, b))
    assert lo * (1 - 1e-9) <= float(v.hi) and float(v.lo) <= hi * (1 + 1e-9)


def test_a_flat_plan_beyond_the_time_left_is_declined_at_once():
    """The flat view's work is nodes at ``node_seconds`` each: affordable without a limit, and
    declined before any node is evaluated where the time left is below its estimate."""
    from tradeoff_algebra.numeric import budget

    flat = sampled_law(Fraction(10, 11), Q, "remove").flat_view()
    f = [(flat, 10)]
    with working_precision(64):
        work = cf_route._work(f, 0.1017, 1e-10, 1e9)
        assert 0 < work <= flat.work_caps[0]
        assert cf_route._affordable_work(f, 0.1017, 1e-10, 1e-10)
        with budget.time_limit(work * flat.node_seconds / 2), budget.call("test"):
            assert not cf_route._affordable_work(f, 0.1017, 1e-10, 1e-10)


@pytest.mark.parametrize("mu,direction,c,h,n", [
    (Fraction(10, 11), "remove", 7.4, 0.7, 1500), (Fraction(5, 4), "add", 2.0, 0.5, 1200),
    (Fraction(1, 4), "remove", 100.0, 23.3, 80), (Fraction(5, 4), "remove", 3.9, 0.6, 1500)])
def test_flat_mgf_grid_matches_the_trapezoidal_sum(mu, direction, c, h, n):
    """M(c + i k h), k = 0 .. n, of the flat view's grid (every node at once: the pieces'
    polynomials by multipoint evaluation of their real and imaginary parts, the phases by
    recurrence, the ends' series cut with a bound) overlaps the law's own trapezoidal sum in x
    (an independent quadrature) at every 100th node and the view's one-node evaluation at every
    node, each ball within the law's tolerance 2^(30 - prec) M(c)."""
    law = SubsampledGaussianLaw(mu, Q, direction)
    flat = law.flat_view()
    with working_precision(90):
        cc, hh = arb(c), arb(h)
        grid = flat.mgf_grid(cc, hh, n)
        assert len(grid) == n + 1
        m_c = law.mgf(acb(cc)).real
        for k in range(0, n + 1, 100):
            assert grid[k].overlaps(law.mgf(acb(cc, hh * k)))
        with working_precision(200):  # (the nodes exactly: h k needs more than 90 bits)
            nodes = [acb(cc, hh * k) for k in range(1, n + 1)]
        for k, z in enumerate(nodes, start=1):
            assert grid[k].overlaps(flat.mgf(z))
            assert float(grid[k].real.rad()) <= 2.0 ** (30 - 90) * float(m_c.mid())


def test_piece_short_of_its_target_takes_the_fine_cover(monkeypatch):
    """A piece whose coarse ellipse bound (24 boxes) leaves its interpolant short of the target
    at the largest degree is made again with FINE_BOXES: pieces up to 2.0 long at sigma = 4,
    c = 103.87 (the far tail's piece reached 1.8e42 with the coarse cover), the model's whole
    error within the law's tolerance 2^(30 - 82) M(c), each piece's bound below its target."""
    from tradeoff_algebra.families import gaussian_sampled_poly as gsp

    monkeypatch.setattr(gsp, "MAX_PIECE", 2.0)
    view = SubsampledGaussianLaw(Fraction(1, 4), Fraction(256, 60000), "remove").flat_view()
    with working_precision(82):
        model = view._model(arb(103.87017688146115), 128, 82)
        assert model.err < model.m_upper * arb(2) ** (30 - 82)
        assert all(p.n < 160 for p in model.pieces)


@pytest.mark.slow
def test_few_steps_tight_tolerance_large_sigma():
    """sigma = 4, T = 5, eps(1e-5) at tol 1e-9 (the case the fine cover serves): certified by the
    inversion, no warning, within the tolerance, inside dp_accounting's optimistic/pessimistic
    pair at grid 1e-4 (float64, not proved)."""
    import sympy as sp

    f = ta.noisy_sgd(sp.Integer(4), sp.Rational(256, 60000), 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, sp.Rational(1, 10**5))
    assert v.guarantee == "certified" and v.route == INVERSION
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    pair = []
    for pess in (False, True):
        p = pld.from_gaussian_mechanism(4.0, pessimistic_estimate=pess,
                                        sampling_prob=256 / 60000,
                                        value_discretization_interval=1e-4,
                                        use_connect_dots=pess)
        pair.append(p.self_compose(5).get_epsilon_for_delta(1e-5))
    assert float(v.lo) <= pair[1] * (1 + 1e-9) and float(v.hi) >= pair[0] * (1 - 1e-9)


@pytest.mark.parametrize("mu,direction,c", [(0.25, "remove", 103.8), (0.5, "remove", 60.0),
                                            (0.25, "add", 20.0)])
def test_real_sup_bounds_the_density_on_each_piece(mu, direction, c):
    """``_real_sup`` (the cheap bound that leaves a model's negligible pieces out) is at least
    the largest value of rho_c on the piece, by 30-digit mpmath at 200 points of each piece of
    the model's grading (rho_c(y) = phi(x) e^{(e + 1) l} / (mu q Y), l = s y, Y = (e^l -
    (1 - q)) / q, x = (log Y + mu^2/2) / mu: the module docstring's formula written again)."""
    from tradeoff_algebra.families import gaussian_sampled_poly as gsp

    q = Fraction(256, 60000)
    law = SubsampledGaussianLaw(Fraction(mu).limit_denominator(100), q, direction)
    with working_precision(64):
        dens = gsp._Density(law, arb(c))
        y0 = float(dens.y0.mid())
        s, e1 = dens.s, float((dens.e + 1).mid())
    lo, hi = (y0 + 1e-4, 2.5) if s > 0 else (-2.5, y0 - 1e-4)
    ends = gsp._graded(lo, hi, y0, s)
    with mp.workdps(30):
        mq, mmu = mp.mpf(q.numerator) / q.denominator, mp.mpf(mu)

        def rho(y):
            ell = s * y
            big_y = (mp.exp(ell) - (1 - mq)) / mq
            x = (mp.log(big_y) + mmu * mmu / 2) / mmu
            return mp.npdf(x) * mp.exp(e1 * ell) / (mmu * mq * big_y)

        for a, b in zip(ends[:-1], ends[1:], strict=True):
            bound = gsp._real_sup(dens, arb(a), arb(b))
            top = max(rho(mp.mpf(a) + (mp.mpf(b) - a) * k / 199) for k in range(200))
            assert float(bound.upper()) >= top
            assert top >= 0


def test_cheap_drops_keep_the_answer_narrow():
    """DP-SGD sigma = 4, T = 10 (the far pieces left out by ``_real_sup``): eps(1e-5) at the
    default tolerance is certified, lies inside the enclosure the model gave when those pieces
    were built ([0.009107400702836254, 0.009108232274052571], from the previous code), holds
    the answer at tol 1e-9 (benchmarks/RESULTS_dpsgd_fewstep.md: [0.00910781812866,
    0.00910781813021], rounded outward here) and meets dp_accounting's optimistic/pessimistic
    pair at grid 1e-5 ([0.00905784599, 0.009107873796], the same file's check column)."""
    f = ta.noisy_sgd(4, dataset_size=60000, batch_size=256, steps=10)
    v = ta.epsilon(f, Fraction(1, 10**5))
    lo, hi = float(v.lo), float(v.hi)
    assert v.guarantee == "certified"
    assert 0.009107400702836254 <= lo <= hi <= 0.009108232274052571
    assert lo <= 0.0091078181286 and 0.0091078181303 <= hi
    assert max(lo, 0.00905784599) <= min(hi, 0.009107873796)


@pytest.mark.parametrize("direction,c", [("remove", 103.80296700799599), ("add", 35.0)])
def test_decay_estimates_at_once_are_the_single_ones(direction, c):
    """``log_decay_estimates`` (the tail planner's chains asked at once) gives the values of
    ``log_decay_estimate`` one t at a time, bit for bit, and the tail planner's cut (its
    search started from the frozen-decay guess, ``_first_power``, with it; from 1 without it)
    is the same: DP-SGD sigma = 4, T = 10 at its step h = 24.826, and T = 3, 100 at others."""
    from tradeoff_algebra.numeric import cf

    def fresh():
        return SubsampledGaussianLaw(Fraction(1, 4), Fraction(256, 60000), direction)

    ts = [24.826 * m for m in (1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93, 140, 400)]
    one, many = fresh(), fresh()
    assert many.log_decay_estimates(c, ts) == [one.log_decay_estimate(c, t) for t in ts]

    class Single:  # (the law without the vectorised method: one t at a time)
        def __init__(self, law):
            self.law = law

        def log_decay_estimate(self, c, t):
            return self.law.log_decay_estimate(c, t)

        def log_power_decay_estimate(self, c):
            return self.law.log_power_decay_estimate(c)

    for budget, h, n in ((-40.0, 24.826, 10), (-20.0, 24.826, 10), (-60.0, 0.5, 3),
                         (-30.0, 5.0, 100)):
        a = cf._TailPlanner([(fresh(), n)], c, h, budget).cut()
        b = cf._TailPlanner([(Single(fresh()), n)], c, h, budget).cut()
        assert a == b


@pytest.mark.parametrize("mu,direction,c", [(0.25, "remove", 103.8), (0.5, "remove", 25.5),
                                            (0.25, "add", 20.0), (Fraction(10, 11), "add", 3.0)])
def test_real_density_is_the_complex_one_and_the_cdf_derivative(mu, direction, c):
    """``_Density.loss_density_real`` (the interpolation nodes' and ``_real_sup``'s real path)
    gives the very ball of ``loss_density`` at the real point, and holds e^{c y} F'(y), F the
    loss's distribution function under the mechanism's law (remove: F - 1 = -(1 - q)
    Phi(-x(y)) - q Phi(mu - x(y)); add: F = Phi(-x(-y)); x(l) = (log((e^l - (1 - q)) / q) +
    mu^2/2) / mu), differentiated by 30-digit mpmath (an independent route: no closed form of
    the density)."""
    from references.base import arb_frac

    from tradeoff_algebra.families import gaussian_sampled_poly as gsp

    q = Fraction(256, 60000)
    m = Fraction(mu).limit_denominator(100)
    law = SubsampledGaussianLaw(m, q, direction)
    with mp.workdps(30):
        mq, mmu = mp.mpf(q.numerator) / q.denominator, mp.mpf(m.numerator) / m.denominator

        def x_of(ell):
            return (mp.log((mp.exp(ell) - (1 - mq)) / mq) + mmu * mmu / 2) / mmu

        def minus_sf(y):  # (F - 1, F = 1 - (1 - q) Phi(-x) - q Phi(mu - x) for the remove
            return -(1 - mq) * mp.ncdf(-x_of(y)) - mq * mp.ncdf(mmu - x_of(y))

        def cdf_add(y):  # (F = Phi(-x(-y)) for the add direction: no cancellation either)
            return mp.ncdf(-x_of(-y))

        for prec in (64, 216):
            with working_precision(prec):
                dens = gsp._Density(law, arb(c))
                y0 = float(dens.y0.mid())
                for k in range(12):
                    y = arb(y0 + dens.s * 2e-3 * 1.6**k)
                    real, full = dens.loss_density_real(y), dens.loss_density(acb(y), False)
                    assert real.mid() == full.real.mid() and real.rad() == full.real.rad()
                    assert full.imag == 0
                    yf = mp.mpf(float(y.mid()))
                    ref = mp.exp(c * yf) * mp.diff(minus_sf if direction == "remove"
                                                   else cdf_add, yf)
                    mid, rad = (mp.mpf(f.numerator) / f.denominator
                                for f in (arb_frac(real.mid()), arb_frac(real.rad())))
                    assert abs(mid - ref) <= rad + mp.mpf(10) ** -20 * abs(ref), (prec, k)
                    assert ref > 0
