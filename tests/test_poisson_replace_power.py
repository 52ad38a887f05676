"""PoissonReplace(mu, q)^k (replace-one DP-SGD) by the certified Laplace inversion of its Arb
loss law (families/poisson_replace_law.py).

References, each computed here by another route:
* the moment generating function M(z) = int phi(x) a(x)^{1+z} a(-x)^{-z} dx by mpmath
  quadrature at 30 digits on many subintervals (complex z);
* one step: the family's closed-form profile (Dong, Roth & Su, Prop. 6) against the inversion
  of the law's first power;
* two and three steps: delta_k(eps) = E_P[H(eps - L_1 - ... - L_{k-1})], H the one-step
  hockey-stick divergence at any real level from its threshold (the quadratic's root, written
  here), integrated by mpmath at 40 (k = 2) and 12 (k = 3, nested) digits;
* 100 and 1000 steps: dp_accounting's optimistic and pessimistic REPLACE_ONE PLDs at grid
  1e-5 (the certified interval must meet their bracket).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw, replace_law
from tradeoff_algebra.numeric.cf import delta_enclosure
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.privacy_loss import privacy_loss
from tradeoff_algebra.routes import product as rp

R = sp.Rational


def _mp_pair(mu, q):
    """mpmath lam(x) = log a(x), a(x) = 1 - q + q e^{mu x - mu^2/2}, at the current precision."""
    mu, q = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(q.numerator) / q.denominator
    c = mpmath.exp(-mu * mu / 2)

    def lam(x):
        return mpmath.log(1 - q + q * c * mpmath.exp(mu * x))

    return mu, q, c, lam


def _mp_mgf(mu, q, z):
    """M(z) by mpmath quadrature on [-14, 24] in unit pieces (the tilted mass beyond is below
    1e-40 for the z used here: c <= 7, mu = 5/4)."""
    m, _, _, lam = _mp_pair(mu, q)
    return mpmath.quad(lambda x: mpmath.npdf(x) * mpmath.exp((1 + z) * lam(x) - z * lam(-x)),
                       mpmath.linspace(-14, 24, 39))


def _mp_hockey(mu, q):
    """H(e) = E_P[(1 - e^{e - L})_+] = P(L > e) - e^e Q(L > e) for every real e: the threshold
    x_e with L(x_e) = e solves q c u^2 + (1 - q)(1 - e^e) u - e^e q c = 0, u = e^{mu x_e} (its
    positive root, in the form without cancellation for either sign of e^e - 1)."""
    m, qq, c, lam = _mp_pair(mu, q)

    def H(e):
        E = mpmath.exp(e)
        b = (1 - qq) * mpmath.expm1(e)
        r = mpmath.sqrt(b * b + 4 * E * (qq * c) ** 2)
        u = (b + r) / (2 * qq * c) if b >= 0 else 2 * E * qq * c / (r - b)
        x = mpmath.log(u) / m
        sp_ = (1 - qq) * mpmath.ncdf(-x) + qq * mpmath.ncdf(m - x)
        sq = (1 - qq) * mpmath.ncdf(-x) + qq * mpmath.ncdf(-m - x)
        return sp_ - E * sq

    def L(x):
        return lam(x) - lam(-x)

    def p(x):
        return mpmath.npdf(x) * mpmath.exp(lam(x))

    return H, L, p


def _cuts(lo=-14, hi=14, n=56):
    return [mpmath.mpf(lo) + (hi - lo) * mpmath.mpf(i) / n for i in range(n + 1)]


def _delta_two(mu, q, eps):
    with mpmath.workdps(40):
        H, L, p = _mp_hockey(mu, q)
        e = mpmath.mpf(eps)
        return mpmath.quad(lambda x: p(x) * H(e - L(x)), _cuts())


def _delta_three(mu, q, eps):
    """Nested: the outer step's x over the two-step divergence at eps - L(x), 12 digits
    (Gauss-Legendre to degree 5 on five pieces each; about a minute)."""
    with mpmath.workdps(12):
        H, L, p = _mp_hockey(mu, q)
        cuts = _cuts(-9, 11, 5)

        def two(e):
            return mpmath.quad(lambda y: p(y) * H(e - L(y)), cuts, maxdegree=5)

        return mpmath.quad(lambda x: p(x) * two(mpmath.mpf(eps) - L(x)), cuts, maxdegree=5)


def _meets(v, ref, digits=None):
    lo, hi = v.interval() if v.lo == v.hi else (v.lo, v.hi)
    return lo <= ref <= hi


# -- the law ---------------------------------------------------------------------------------


@pytest.mark.parametrize("z", [(2, 0), (2, 30), (0.5, 100), (7, 5)])
def test_mgf_encloses_the_quadrature(z):
    mu, q = Fraction(5, 4), Fraction(1, 100)
    law = ReplaceLaw(mu, q)
    with working_precision(100):
        m = law.mgf(acb(*z))
    with mpmath.workdps(20):
        ref = _mp_mgf(mu, q, mpmath.mpc(*z))
        slack = abs(ref) * 1e-17  # (the quadrature's digits)
        for part, ball in ((ref.real, m.real), (ref.imag, m.imag)):
            assert ball.lower() <= part + slack and part - slack <= ball.upper()
        assert m.real.rad() < 1e-18 * abs(ref)  # (the working precision's width, not vacuous)


@pytest.mark.slow
def test_decay_bound_holds_and_falls():
    mu, q = Fraction(1), Fraction(1, 10)
    law = ReplaceLaw(mu, q)
    with working_precision(64):
        prev = math.inf
        for t in (0, 5, 20, 60):
            d = float(law.decay_bound(arb(2), arb(t)).upper())
            with mpmath.workdps(20):
                for s in (t, t + 3):
                    assert abs(_mp_mgf(mu, q, mpmath.mpc(2, s))) <= d
            assert d <= prev
            prev = d
        assert prev < 0.05  # (it decays: sigma(x) >= 2 s(0) > 0)


@pytest.mark.parametrize("mu, q, t", [(Fraction(5, 4), Fraction(1, 100), 3),
                                     (Fraction(2), Fraction(3, 5), 25)])
def test_power_decay_holds(mu, q, t):
    """|M(c + it)| <= V/t^2 against the quadrature (q = 3/5: sigma's minimum is its limit 1,
    not 2 s(0))."""
    law = ReplaceLaw(mu, q)
    with working_precision(64):
        v, p = law.power_decay(arb(2))
    assert p == 2
    with mpmath.workdps(20):
        assert abs(_mp_mgf(mu, q, mpmath.mpc(2, t))) <= float(v.upper()) / t**2


def test_law_is_its_own_inverse_and_rational_parameters_only():
    law = replace_law(Fraction(1), Fraction(1, 10))
    assert law.inverse() is law and law.loss_sup() is None and not law.closed_under_tensor
    assert privacy_loss(ta.PoissonReplace(1, R(1, 10))).law() is law
    assert privacy_loss(ta.PoissonReplace(sp.sqrt(2), R(1, 10))).law() is None
    with pytest.raises(ValueError, match="q"):
        ReplaceLaw(1, 1)


# -- powers ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_one_step_inversion_meets_the_closed_form():
    """The law's first power inverted against the family's closed-form profile (Prop. 6)."""
    f = ta.PoissonReplace(2, R(1, 2))
    lo, hi = delta_enclosure([(replace_law(Fraction(2), Fraction(1, 2)), 1)], 1.0, 1e-8)
    ref = ta.delta(f, 1, dps=30)
    assert ref.guarantee == "certified"
    rlo, rhi = ref.interval()
    assert lo <= rhi and rlo <= hi and hi - lo <= 1e-6 * hi


def test_power_goes_to_the_inversion():
    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 100
    assert [r.name for r in rp.routes_for(f, "delta")][0] == "certified Laplace inversion"
    v = ta.delta(f, 1, dps=20)
    assert v.guarantee == "certified" and v.route == "certified Laplace inversion"


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 3])
def test_few_steps_against_nested_quadrature(k):
    mu, q = Fraction(1), Fraction(1, 10)
    f = ta.PoissonReplace(1, R(1, 10)) ** k
    eps = R(1, 2)
    with ta.pld_options(tol=1e-9), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = ta.delta(f, eps, dps=20)
    assert v.guarantee == "certified"
    ref = _delta_two(mu, q, 0.5) if k == 2 else _delta_three(mu, q, 0.5)
    slack = 1e-30 if k == 2 else 1e-10 * ref
    assert v.lo - slack <= ref <= v.hi + slack
    assert v.hi - v.lo <= 1e-6 * v.hi


@pytest.mark.slow
def test_two_steps_eps_against_quadrature():
    """eps(delta) of two steps, proved, contains the level where the reference crosses it."""
    mu, q = Fraction(2), Fraction(3, 10)
    f = ta.PoissonReplace(2, R(3, 10)) ** 2
    d = R(1, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = ta.epsilon(f, d, dps=10)
    assert e.guarantee == "certified"
    lo, hi = float(e.lo), float(e.hi)
    assert _delta_two(mu, q, lo) >= 0.1 >= _delta_two(mu, q, hi)


def _dpa_plds(sigma: float, q: float, k: int):
    """dp_accounting's REPLACE_ONE optimistic and pessimistic (connect-the-dots) PLDs of the
    subsampled Gaussian at grid 1e-5, composed k times (float64, not proved)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from dp_accounting import NeighboringRelation

    return [pld.from_gaussian_mechanism(sigma, pessimistic_estimate=pess, sampling_prob=q,
                                        value_discretization_interval=1e-5,
                                        use_connect_dots=pess,
                                        neighboring_relation=NeighboringRelation.REPLACE_ONE
                                        ).self_compose(k)
            for pess in (False, True)]


def _dpa_bracket(sigma: float, q: float, k: int, eps: float):
    """The optimistic and pessimistic delta(eps) of :func:`_dpa_plds`."""
    return [p.get_delta_for_epsilon(eps) for p in _dpa_plds(sigma, q, k)]


@pytest.mark.slow
@pytest.mark.parametrize("sigma, k", [(R(11, 10), 100), (R(2), 1000), (R(4, 5), 1000)])
def test_many_steps_meet_dp_accounting(sigma, k):
    f = ta.PoissonReplace(1 / sigma, R(1, 100)) ** k
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, 1, dps=20)
    assert v.guarantee == "certified" and float(v.hi - v.lo) <= 1e-9 * float(v.hi)
    opt, pess = _dpa_bracket(float(sigma), 0.01, k, 1.0)
    assert float(v.lo) <= pess * (1 + 1e-12) and opt * (1 - 1e-12) <= float(v.hi)


def test_ten_thousand_steps_eps_certified():
    """eps(1e-5) of 10^4 steps, sigma = 2, q = 1/100, to 1e-9 in well under a second; its
    delta at the bracket's ends straddles the level (a check by the delta route)."""
    f = ta.PoissonReplace(R(1, 2), R(1, 100)) ** 10_000
    with ta.pld_options(tol=1e-9):
        e = ta.epsilon(f, R(1, 10**5), dps=20)
        assert e.guarantee == "certified" and float(e.hi - e.lo) <= 1e-9 * float(e.hi)
        assert ta.delta(f, e.lo, dps=20).hi >= 1e-5 >= ta.delta(f, e.hi, dps=20).lo


def test_power_and_value_certified():
    """roc and evaluate to 1e-9 from the certified Neyman-Pearson points of the inversion's
    tails (they need the law's power decay); consistent with the default width's band."""
    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 100
    p = ta.roc(f, R(1, 1000))
    v = ta.evaluate(f, R(1, 10))
    assert p.guarantee == v.guarantee == "certified"
    with ta.pld_options(tol=1e-9), warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning: the width is met)
        pt = ta.roc(f, R(1, 1000), dps=20)
        vt = ta.evaluate(f, R(1, 10), dps=20)
    assert pt.guarantee == vt.guarantee == "certified"
    assert pt.hi - pt.lo <= 1e-9 * pt.hi and vt.hi - vt.lo <= 1e-9 * vt.hi
    assert p.lo <= pt.lo <= pt.hi <= p.hi and v.lo <= vt.lo <= vt.hi <= v.hi
    assert 0 < p.lo <= p.hi < 1 and 0 < v.lo <= v.hi < 1
    # the trade-off function's defining inequality, f(alpha) <= 1 - alpha, and symmetry's
    # consequence 1 - f(a) >= a
    assert v.hi <= 0.9 and p.lo >= R(1, 1000)


def test_time_limit_is_respected():
    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 10
    with ta.pld_options(tol=1e-9), ta.time_limit(0.05), pytest.raises(ta.TimeLimitExceeded):
        ta.delta(f, 1)


@pytest.mark.parametrize("mu, q, eps", [(1, R(1, 10), 1), (R(1, 2), R(1, 100), R(1, 5)),
                                        (2, R(3, 10), 3)])
def test_power_one_is_the_node_and_certified(mu, q, eps):
    """PoissonReplace**1 (closed to the node by the rule power_one of operators/tensor.py, then
    answered by the product route) keeps the node's certificate: delta(eps) holds the 40-digit
    hockey-stick quadrature of the one-step pair, and eps(delta(eps)) brackets eps."""
    f = ta.PoissonReplace(mu, q)
    v = ta.delta(f**1, eps, dps=25)
    assert v.guarantee == "certified"
    with mpmath.workdps(40):
        H, _, _ = _mp_hockey(Fraction(str(mu)), Fraction(str(q)))
        ref = H(mpmath.mpf(sp.Rational(eps).p) / sp.Rational(eps).q)
    lo, hi = v.interval() if v.lo == v.hi else (v.lo, v.hi)
    assert lo <= ref <= hi and hi - lo <= 1e-20 * ref
    d = sp.Rational(str(mpmath.nstr(ref, 15)))
    e = ta.epsilon(f**1, d, dps=20)
    assert e.guarantee == "certified"
    elo, ehi = e.interval() if e.lo == e.hi else (e.lo, e.hi)
    with mpmath.workdps(40):
        level = mpmath.mpf(d.p) / d.q
        assert H(mpmath.mpf(elo)) >= level >= H(mpmath.mpf(ehi))


@pytest.mark.parametrize("mu, q, c, h, n", [
    (Fraction(1, 2), Fraction(1, 100), 4.0, 0.7, 30),
    pytest.param(Fraction(1), Fraction(1, 10), 3.0, 0.3, 40, marks=pytest.mark.slow)])
def test_mgf_grid_meets_the_quadrature_and_the_single_nodes(mu, q, c, h, n):
    """The law's nodes at once (recurrence of the phases by level) overlap its nodes one by one
    and hold mpmath's quadrature of M(c + i k h) at a few k."""
    law = ReplaceLaw(mu, q)
    with working_precision(100):
        grid = law.mgf_grid(arb(c), arb(h), n)
        single = [ReplaceLaw(mu, q).mgf(acb(arb(c), arb(h) * k)) for k in range(n + 1)]
    assert all(a.overlaps(b) for a, b in zip(grid, single, strict=True))
    assert all(a.real.rad() < 1e-20 for a in grid)  # (not vacuous)
    with mpmath.workdps(25):
        for k in (1, n):
            ref = _mp_mgf(mu, q, mpmath.mpc(c, mpmath.mpf(h) * k))
            for part, ball in ((ref.real, grid[k].real), (ref.imag, grid[k].imag)):
                assert ball.lower() - 1e-20 <= part <= ball.upper() + 1e-20


def test_mgf_grid_refuses_at_once_beyond_its_evaluations():
    """A grid whose x-grid sums would exceed MAX_EVALS is refused before any is made."""
    from tradeoff_algebra.families import poisson_replace_law as prl

    law = ReplaceLaw(Fraction(1), Fraction(1, 10))
    saved = prl.MAX_EVALS
    prl.MAX_EVALS = 1000
    try:
        with working_precision(64):
            with pytest.raises(ValueError, match="refused before any"):
                law.mgf_grid(arb(3), arb(0.3), 40)
            assert law._tilt(arb(3)).evals == 0
    finally:
        prl.MAX_EVALS = saved


@pytest.mark.slow
def test_far_tail_certified_in_seconds():
    """sigma = 8, q = 1/1000, 10^4 steps, delta(1): certified by the inversion (was the PLD
    engine's estimate [0, 7.7e-123] after ~19 s) within a 30 s limit, below the Chernoff bound
    M(c)^k e^{-c} at c = 880 from mpmath's quadrature of M (an upper bound of delta proved
    independently of the inversion: delta(eps) <= P(L > eps) <= M(c)^k e^{-c eps})."""
    f = ta.PoissonReplace(R(1, 8), R(1, 1000)) ** 10_000
    with ta.time_limit(30), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a ToleranceWarning: the bound is a subnormal float)
        v = ta.delta(f, 1, dps=20)
    assert v.guarantee == "certified" and v.route == "certified Laplace inversion"
    with mpmath.workdps(30):
        m = _mp_mgf_far(Fraction(1, 8), Fraction(1, 1000), 880)
        chernoff = mpmath.exp(10_000 * mpmath.log(m) - 880)
    assert 0 <= v.lo <= v.hi <= chernoff  # (chernoff ~ 1.2e-277)


def _mp_mgf_far(mu, q, c):
    m, qq, c0, lam = _mp_pair(mu, q)
    return mpmath.quad(lambda x: mpmath.npdf(x) * mpmath.exp((1 + c) * lam(x) - c * lam(-x)),
                       mpmath.linspace(-20, 250, 136))


def _dpa_pair(sigma: float, q: float, k: int):
    """[(eps(1e-5), delta(1))] of the optimistic and the pessimistic PLD of :func:`_dpa_plds`
    (float64, not proved)."""
    return [(p.get_epsilon_for_delta(1e-5), p.get_delta_for_epsilon(1.0))
            for p in _dpa_plds(sigma, q, k)]


@pytest.mark.slow
@pytest.mark.parametrize("sigma", [1, 2])
@pytest.mark.parametrize("k", [3, 10, 30])
def test_few_steps_inside_the_dp_accounting_pair(sigma, k):
    """k = 3, 10, 30 at the default tolerance, certified, inside dp_accounting's REPLACE_ONE
    optimistic/pessimistic pair at grid 1e-5: eps(1e-5) always, delta(1) at sigma = 1 (at
    sigma = 2 delta(1) ~ 1e-26 lies below the pair's float64 resolution, ~1e-15; the two-step
    and three-step values are checked against quadrature in the tests above)."""
    f = ta.PoissonReplace(R(1, sigma), R(1, 100)) ** k
    e = ta.epsilon(f, R(1, 10**5), dps=20)
    d = ta.delta(f, 1, dps=20)
    assert e.guarantee == d.guarantee == "certified"
    (eo, do), (ep, dp) = _dpa_pair(float(sigma), 0.01, k)
    assert float(e.lo) <= ep * (1 + 1e-12) and eo * (1 - 1e-12) <= float(e.hi)
    if sigma == 1:
        assert float(d.lo) <= dp * (1 + 1e-12) and do * (1 - 1e-12) <= float(d.hi)
    assert float(e.hi - e.lo) <= 1e-3 * float(e.hi) and float(d.hi - d.lo) <= 1e-3 * float(d.hi)


@pytest.mark.slow
def test_ten_steps_roc_between_the_dp_accounting_pair():
    """roc(1e-3) of ten steps (sigma = 1.1, q = 1/100) to 1e-9, certified (was stopped by the
    60 s limit), between the trade-off functions of dp_accounting's REPLACE_ONE pair at grid
    1e-5 (Dong, Roth & Su, Prop. 6: 1 - f(a) = inf_eps min(delta(eps) + e^eps a,
    1 - e^-eps (1 - delta(eps) - a)) for a symmetric f; on a grid of eps the pessimistic
    profile's infimum is an upper bound of 1 - f, the optimistic one's about a lower one)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    import numpy as np
    from dp_accounting import NeighboringRelation

    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 10
    a = R(1, 1000)
    with ta.pld_options(tol=1e-9), ta.time_limit(60):
        p = ta.roc(f, a, dps=20)
    assert p.guarantee == "certified" and p.hi - p.lo <= 1e-9 * p.hi
    eps = np.linspace(0, 12, 4001)
    bounds = []
    for pess in (False, True):
        d = pld.from_gaussian_mechanism(1.1, pessimistic_estimate=pess, sampling_prob=0.01,
                                        value_discretization_interval=1e-5,
                                        use_connect_dots=pess,
                                        neighboring_relation=NeighboringRelation.REPLACE_ONE)
        d = np.asarray(d.self_compose(10).get_delta_for_epsilon(eps))
        one_minus_f = np.minimum(d + np.exp(eps) * 1e-3, 1 - np.exp(-eps) * (1 - d - 1e-3))
        bounds.append(float(np.min(one_minus_f)))
    lo_ref, hi_ref = bounds
    assert float(p.lo) <= hi_ref * (1 + 1e-12)
    assert lo_ref * (1 - 1e-4) <= float(p.hi)
