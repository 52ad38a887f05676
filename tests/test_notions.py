"""Privacy notions (ApproxDP, GDP, RDP, zCDP, tCDP), their conversions and calibration, against
independent references: the exact privacy profile of G_mu, analytic optima, exact group and
composition profiles, direct root finding at 50 digits."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from precision import close, rational

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G

R = sp.Rational
D5 = R(1, 10**5)
INT_ORDERS = list(range(2, 65))


def mpf(x):
    return mpmath.mpf(sp.N(x, 50)) if isinstance(x, sp.Basic) else mpmath.mpf(x)


def test_kaissis_figures_psi_1_delta_1e5():
    # Kaissis et al., Sec. 5: exact profile 4.377, Cor. 12 at its best order 4.728, Cor. 11
    # 5.2985 (= psi^2/2 + psi sqrt(2 log(1/delta)) at the analytic optimum of Eq. (29))
    rdp = ta.GDP(1).to_zcdp().to_rdp()
    exact = ta.epsilon(G(1), D5)
    assert close(exact, "4.37717809568122462765011629324", 28)
    with mpmath.workdps(30):
        cor11 = mpmath.mpf(1) / 2 + mpmath.sqrt(2 * mpmath.log(10**5))
    v11 = rdp.epsilon(D5, method="mironov")
    assert cor11 <= v11.mid < cor11 + 1e-9  # the optimum, found numerically
    assert abs(ta.zCDP(R(1, 2)).epsilon(D5, method="bun_steinke").mid - cor11) < 1e-25
    # Cor. 12: a dense independent scan of the formula in mpmath
    with mpmath.workdps(30):
        def eps12(a):
            return a / 2 + mpmath.log((a - 1) / a) - (mpmath.log(1e-5) + mpmath.log(a)) / (a - 1)

        scan = min(eps12(1 + mpmath.mpf(k) / 1000) for k in range(1, 20000))
    v12 = rdp.epsilon(D5)
    assert v12.mid <= scan + 1e-12 and abs(v12.mid - mpmath.mpf("4.72838698494")) < 1e-10
    # at integer orders (the audit's table): 4.7527283 at alpha = 5, 5.3025851 at alpha = 6
    r = ta.RDP({a: R(a, 2) for a in INT_ORDERS})
    assert close(r.epsilon(D5), "4.75272833681982", 13)
    assert r.best_order(D5) == 5
    assert close(r.epsilon(D5, method="mironov"), "5.30258509299405", 13)


@pytest.mark.parametrize("psi", [R(1, 20), R(1, 2), 1, 3, 6])
@pytest.mark.parametrize("delta", [R(1, 10**10), D5, R(3, 10)])
def test_rdp_conversions_are_sound(psi, delta):
    # the converted eps is at least the exact eps of the Gaussian mechanism (Cor. 13 profile)
    exact = ta.epsilon(G(psi), delta, dps=20)
    rdp = ta.zCDP(sp.Rational(psi) ** 2 / 2)
    for method in ("balle", "mironov"):
        assert rdp.epsilon(delta, method=method, dps=20).lo >= exact.hi
        e = rdp.epsilon(delta, method=method, dps=20)
        assert ta.delta(G(psi), rational(e.hi), dps=20).hi <= delta


def test_optimal_conversion_is_sound_and_tightest():
    r = ta.RDP({a: R(a, 2) for a in (2, 3, 4, 5, 6, 8)})
    opt = r.delta(5, method="optimal", dps=12)
    balle = r.delta(5, dps=12)
    exact = ta.delta(G(1), 5, dps=12)
    assert exact.hi <= opt.lo and opt.hi <= balle.lo * (1 + 1e-9)


def test_renyi_region_is_implied_and_solves_its_constraints():
    # the region implied by G_1's RDP lies below G_1 (G_1 satisfies every constraint)
    f = ta.RenyiRegion({a: R(a, 2) for a in (2, 4, 8)})
    for a in (R(1, 10**6), R(1, 100), R(1, 3), R(9, 10)):
        assert ta.evaluate(f, a, dps=20).hi <= ta.evaluate(G(1), a, dps=20).lo
    # one order, one direction: the root of alpha^2/(1-beta) + (1-alpha)^2/beta = e^tau
    g = ta.RenyiRegion({2: R(1, 2)}, symmetric=False)
    with mpmath.workdps(50):
        al = mpmath.mpf(1) / 10
        C = mpmath.exp(mpmath.mpf(1) / 2)
        beta = mpmath.findroot(lambda b: al**2 / (1 - b) + (1 - al)**2 / b - C, (0.1, 0.899),
                               solver="bisect")
    v = ta.evaluate(g, R(1, 10), dps=30)
    assert abs(v.mid - beta) < 1e-28
    # both directions: the larger of the two roots
    h = ta.RenyiRegion({2: R(1, 2)})
    with mpmath.workdps(50):
        rev = mpmath.findroot(lambda b: (1 - b)**2 / al + b**2 / (1 - al) - C, (0, 0.9),
                              solver="bisect")
    assert abs(ta.evaluate(h, R(1, 10), dps=30).mid - max(beta, rev)) < 1e-28


def test_compositions():
    assert ta.zCDP(1) @ ta.zCDP(2, xi=R(1, 2)) == ta.zCDP(3, R(1, 2))
    assert ta.tCDP(1, 5) @ ta.tCDP(2, 3) == ta.tCDP(3, 3)
    assert ta.GDP(1) @ ta.GDP(2) == ta.GDP(sp.sqrt(5))
    # RDP curves add: against the Renyi divergence of the product (additive over pairs)
    f, g = G(1), ta.Laplace(1)
    r = ta.RDP({a: ta.renyi(f, a) for a in (2, 3)}) @ ta.RDP({a: ta.renyi(g, a) for a in (2, 5)})
    assert r.orders == (2,)
    assert sp.simplify(r.at(2) - ta.renyi(f @ g, 2)) == 0
    lam = ta.zCDP(1).to_rdp() @ ta.RDP({2: 1, 3: 2})
    assert lam.at(3) == 5
    assert ta.ApproxDP(1, R(1, 10)) @ ta.ApproxDP(2, R(1, 5)) == ta.ApproxDP(3, R(3, 10))


def test_group_privacy():
    # Dwork, Remark 4.5 as corrected: the exact group profile equals delta (e^{k eps}-1)/(e^eps-1)
    e, d = sp.log(8), R(1, 100)
    grp = ta.ApproxDP(e, d).group(2)
    exact = ta.delta(ta.Group(EpsDelta(e, d), 2), 2 * e, dps=30)
    assert grp == ta.ApproxDP(2 * e, R(9, 100)) and close(exact, R(9, 100), 28)
    assert ta.zCDP(R(1, 2)).group(3) == ta.zCDP(R(9, 2))  # = GDP(3) at every order
    assert sp.simplify(ta.renyi(ta.Group(G(1), 3), 2) - ta.zCDP(R(9, 2)).to_rdp().at(2)) == 0
    assert ta.tCDP(1, 5).group(2) == ta.tCDP(4, R(5, 2))
    # the Gaussian instance: groups of k shift the mean by k mu, D_a = a k^2 mu^2/2, which
    # meets (k^2 rho, omega/k)-tCDP at every order below omega/k
    for k in (2, 3):
        g = ta.tCDP(R(1, 2), 10).group(k)
        for a in (R(3, 2), 2, R(3) if k == 3 else 4):
            assert ta.renyi(ta.Group(G(1), k), a) <= g.to_rdp().at(a)
    with pytest.raises(ta.InvalidParameter, match="k"):
        ta.tCDP(1, 3).group(3)


@pytest.mark.parametrize("eps, k, delta, dp", [(R(1, 10), 100, R(1, 10**6), D5),
                                               (1, 10, R(1, 100), R(1, 10)),
                                               (R(1, 2), 30, 0, R(1, 10**3))])
def test_advanced_composition_is_sound(eps, k, delta, dp):
    for improved in (False, True):
        adv = ta.advanced_composition(eps, delta, k, dp, improved=improved)
        exact = ta.delta(EpsDelta(eps, delta) ** k, adv.eps, dps=20)
        assert exact.hi <= adv.args[1]


def test_gaussian_calibration_round_trip_and_dwork_failure():
    s = ta.gaussian_sigma(1, 1, D5)
    assert ta.delta(ta.gaussian_mechanism(1, rational(s.hi)), 1, dps=20).hi <= D5
    assert ta.delta(ta.gaussian_mechanism(1, rational(s.lo) * R(999, 1000)), 1,
                    dps=20).lo > D5
    # Dwork, Thm. 4.3 fails at eps = 10, delta = 1e-5 (delta_G(10) = 1.364e-5 > 1e-5)
    sd = ta.gaussian_sigma(1, 10, D5, method="dwork")
    d = ta.delta(ta.gaussian_mechanism(1, sd), 10, dps=20)
    assert close(d, "1.36441033672984829617991003e-5", 18)
    assert d.lo > D5
    assert ta.sensitivity_index(R(13, 10), R(7, 10)) == R(13, 7)


def test_tail_bounds_hold_for_the_gaussian_mechanism():
    # G_mu: the privacy loss Z ~ N(mu^2/2, mu^2), rho = mu^2/2: Pr[Z > t + rho] = Phi(-t/mu)
    for m in (R(1, 10), 1, 3):
        rho = m**2 / 2
        for t in (R(1, 10), 1, 5, 20):
            exact = ta.Phi(-t / m)
            assert sp.N(exact - ta.zCDP(rho).tail_bound(t), 30) <= 0
            assert sp.N(exact - ta.tCDP(rho, 4).tail_bound(t), 30) <= 0
            # xi > 0 (a weaker guarantee G_mu also meets): e^{-(t - xi)^2/(4 rho)} for t >= xi
            xi = R(1, 20)
            assert sp.N(exact - ta.zCDP(rho, xi).tail_bound(t), 30) <= 0
            a = 3  # RDP at order a: eps(a) = a rho
            z = ta.Phi(-(t + a * rho - rho) / m)
            assert sp.N(z - ta.RDP({a: a * rho}).tail_bound(a, t), 30) <= 0


def test_printing_and_errors():
    assert str(ta.zCDP(R(1, 2))) == "zCDP(1/2)"
    assert ta.latex(ta.GDP(1)) == r"1\text{-GDP}"
    assert "RDP" in ta.latex(ta.RDP({2: 1}))
    with pytest.raises(ta.InvalidParameter, match="delta"):
        ta.ApproxDP(1, 2)
    with pytest.raises(ta.InvalidParameter, match="order"):
        ta.RDP({R(1, 2): 1})
    with pytest.raises(ta.InvalidParameter, match="method"):
        ta.zCDP(1).epsilon(D5, method="nope")
    with pytest.raises(ta.InvalidParameter, match="order"):
        ta.RDP({2: 1}).at(3)


def test_command_line(capsys):
    from tradeoff_algebra.cli import main

    assert main(["renyi", "G(1) @ G(2)", "3"]) == 0
    assert capsys.readouterr().out.strip() == "15/2"  # exact: D_3(G_{sqrt 5}) = 3 * 5/2
    assert main(["convert", "zCDP(1/2)", "--delta", "1e-5"]) == 0
    out = capsys.readouterr().out
    assert "4.72838698494" in out and "5.29852591218" in out
    assert main(["convert", "GDP(1)", "--delta", "1e-5", "--eps", "5"]) == 0
    assert "4.3771780956812246" in capsys.readouterr().out
    assert main(["renyi", "G(1)", "-1"]) == 2
    assert "order" in capsys.readouterr().err
    assert main(["convert", "G(1)"]) == 2


def test_subsampling_of_pure_dp():
    # the exact amplified eps equals epsilon(C_p(f_{eps*,0}), 0) (Dong, Roth & Su, Cor. 3)
    es, p = 2, R(1, 4)
    v = ta.epsilon(ta.C(p, EpsDelta(es, 0)), 0, dps=30)
    assert close(v, ta.amplified_epsilon(es, p), 28)
    # the tight rate gives exactly eps; Dwork's printed rate (Eq. (5.1)) gives more at (2, 1)
    r = ta.sampling_rate(2, 1)
    assert sp.simplify(ta.amplified_epsilon(2, r) - 1) == 0
    printed = (sp.E - 1) / (sp.exp(2) - sp.exp(-1) - 1)
    assert ta.epsilon(ta.C(printed, EpsDelta(2, 0)), 0, dps=20).lo > 1
    bbkn = ta.sampling_rate(2, 1, form="bbkn")
    assert ta.epsilon(ta.C(bbkn, EpsDelta(2, 0)), 0, dps=20).hi <= 1
    with pytest.raises(ta.InvalidParameter, match="eps"):
        ta.sampling_rate(1, 2)


def test_symbolic_profile_by_doit():
    # Dong, Roth & Su, Cor. 1 for a symbolic mu; evaluated, it agrees with the numeric profile
    m, e = sp.symbols("mu epsilon", positive=True)
    form = ta.delta(G(m), e).doit()
    assert form == ta.Phi(-e / m + m / 2) - sp.exp(e) * ta.Phi(-e / m - m / 2)
    assert close(ta.delta(G(R(3, 2)), 2, dps=30), form.subs({m: R(3, 2), e: 2}), 28)
    assert isinstance(ta.delta(ta.Laplace(m), e).doit(), ta.Functional)  # case split undecided


def _random_pair(rng, k):
    """Two random distributions on k outcomes with rational masses (rng: random.Random)."""
    P = [R(rng.randint(1, 20)) for _ in range(k)]
    Q = [R(rng.randint(1, 20)) for _ in range(k)]
    sP, sQ = sum(P), sum(Q)
    return [p / sP for p in P], [q / sQ for q in Q]


@pytest.mark.parametrize("seed", range(30))
def test_rdp_region_and_conversions_are_implied_by_random_finite_pairs(seed):
    # a finite pair (P, Q) satisfies RDP with its own exact divergences in both directions;
    # the region they imply must lie below T(P, Q) (data processing), and every converted
    # (eps, delta) must hold for the pair's exact profile
    import random

    rng = random.Random(seed)
    P, Q = _random_pair(rng, rng.randint(2, 4))
    f = ta.Discrete(P, Q)
    orders = [2, 3, 5]
    taus = {a: max(ta.renyi(f, a), ta.renyi(f.inverse(), a)) for a in orders}
    region = ta.RenyiRegion(taus)
    for a in (R(1, 50), R(1, 5), R(1, 2), R(4, 5)):
        assert ta.evaluate(region, a, dps=15).lo <= ta.evaluate(f, a).exact
        assert ta.evaluate(region, a, dps=15).lo <= ta.evaluate(f.inverse(), a).exact
    r = ta.RDP(taus)
    for d in (R(1, 100), R(1, 10)):
        for method in ("balle", "mironov"):
            e = r.epsilon(d, method=method, dps=15)
            eps = rational(e.hi)
            assert ta.delta(f, eps, dps=15).hi <= d and ta.delta(f.inverse(), eps, dps=15).hi <= d
