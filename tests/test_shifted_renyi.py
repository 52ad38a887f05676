"""Privacy amplification by iteration (Dwork, Sec. 6.3): contractions
(``analysis.contractions``), W_oo and the shifted Rényi divergence (``analysis.shifted_renyi``),
the shift sequences and the cyclic Projected Noisy-SGD bound (``bounds.iteration``).

References, each independent of the code under test: exact difference quotients on rational
grids, explicit vectors with rational norms, NumPy singular values (evidence, away from the
boundary), the definition of W_oo by Hall's condition, the library's Rényi closed form of
normal pairs (Kaissis et al., Cor. 10), mpmath quadrature (evidence), the KKT conditions of
the shift problem (a certificate of optimality), SciPy's SLSQP (evidence), the window search
over every start, and Eq. (6.19).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import contractions as con
from tradeoff_algebra.analysis import shifted_renyi as sr
from tradeoff_algebra.bounds import iteration as it
from tradeoff_algebra.core.errors import InvalidParameter, NoClosedForm
from tradeoff_algebra.numeric.context import mp

R = sp.Rational
X = sp.Symbol("x")


# -- contractions ---------------------------------------------------------------------------------
def _grid_lipschitz(f, pts):
    """The largest exact difference quotient over pairs of rational grid points."""
    vals = [(p, f.subs(X, p)) for p in pts]
    return max(abs(fa - fb) / abs(a - b) for (a, fa), (b, fb) in itertools.combinations(vals, 2))


@pytest.mark.parametrize("f", [con.clamp(X, -1, 1), con.clamp(X, 0, R(5, 2)),
                               2 * con.clamp(X, 0, 1), sp.Abs(X - 1) / 3,
                               sp.Max(X, 2 * X - 1, -X / 2) - sp.Min(X / 3, 1)])
def test_pl_lipschitz_against_difference_quotients(f):
    pts = [R(k, 4) for k in range(-24, 25)]  # every breakpoint above is on this grid
    assert con.pl_lipschitz(f, X) == _grid_lipschitz(f, pts)


def test_clamp_values_and_errors():
    assert [con.clamp(v, -1, 1) for v in (-3, R(1, 2), 7)] == [-1, R(1, 2), 1]
    with pytest.raises(InvalidParameter, match="hi"):
        con.clamp(0, 2, 1)
    with pytest.raises(NoClosedForm):
        con.pl_lipschitz(X**2, X)
    with pytest.raises(NoClosedForm):
        con.pl_lipschitz(sp.exp(X), X)
    with pytest.raises(InvalidParameter, match="x"):
        con.pl_lipschitz(X, 3)


def test_projections_minimise_the_distance():
    x = (R(5, 2), R(-3, 1))
    box = con.project_box(x, (0, -1), (1, 1))
    assert box == (1, -1)
    # the box point is the closest among a rational grid of the box
    grid = [(R(i, 8), R(j, 8)) for i in range(0, 9) for j in range(-8, 9)]
    best = min(grid, key=lambda p: (p[0] - x[0])**2 + (p[1] - x[1])**2)
    assert best == box
    assert con.project_ball((3, 4), (0, 0), 1) == (R(3, 5), R(4, 5))
    assert con.project_ball((R(1, 3), 0), (0, 0), 1) == (R(1, 3), 0)
    assert con.project_ball((4, 5), (1, 1), 10) == (4, 5)
    with pytest.raises(InvalidParameter, match="center"):
        con.project_ball((1, 2), (0,), 1)


# points with rational norms: (3, 4), (5, 12), (8, 15), (-6, 8), (7, 24)
_VECS = [(3, 4), (5, 12), (8, 15), (-6, 8), (7, 24), (R(3, 10), R(2, 5))]


@pytest.mark.parametrize("r", [1, 5, 13, 30])
def test_ball_projection_formula_against_vectors(r):
    for u, v in itertools.combinations(_VECS, 2):
        a = sp.sqrt(u[0]**2 + u[1]**2)
        b = sp.sqrt(v[0]**2 + v[1]**2)
        c = (u[0] * v[0] + u[1] * v[1]) / (a * b)
        pu, pv = con.project_ball(u, (0, 0), r), con.project_ball(v, (0, 0), r)
        direct = (pu[0] - pv[0])**2 + (pu[1] - pv[1])**2
        assert sp.simplify(con.ball_projection_sq_distance(a, b, c, r) - direct) == 0
        assert direct <= (u[0] - v[0])**2 + (u[1] - v[1])**2  # the contraction itself


def test_operator_norm_and_affine_contractions():
    rot = [[R(3, 5), R(-4, 5)], [R(4, 5), R(3, 5)]]
    assert con.operator_norm(rot) == 1 and con.affine_is_contraction(rot)
    rng = np.random.default_rng(3)
    for _ in range(8):
        A = [[R(int(v), 7) for v in row] for row in rng.integers(-6, 7, size=(3, 3))]
        s = np.linalg.norm(np.array(A, dtype=float), 2)
        assert abs(float(con.operator_norm(A)) - s) < 1e-9
        if abs(s - 1) > 1e-6:
            assert con.affine_is_contraction(A) is bool(s < 1)
    with pytest.raises(InvalidParameter, match="A"):
        con.operator_norm([[X, 1], [0, 1]])


def test_quadratic_step_against_numpy():
    H = [[3, 1], [1, 3]]  # eigenvalues 2, 4
    for eta in (R(1, 10), R(1, 4), R(1, 2), R(3, 5)):
        ref = np.linalg.norm(np.eye(2) - float(eta) * np.array(H, dtype=float), 2)
        assert abs(float(con.quadratic_step_lipschitz(H, eta)) - ref) < 1e-12
    assert con.quadratic_step_lipschitz(H, R(1, 2)) == 1  # eta = 2/beta
    assert con.quadratic_step_lipschitz(H, R(3, 5)) == R(7, 5)
    with pytest.raises(InvalidParameter, match="H"):
        con.quadratic_step_lipschitz([[1, 2], [0, 1]], 1)


def test_gradient_step_range_by_brute_force():
    from fractions import Fraction as Fr

    for beta in (R(1, 4), R(1), R(3)):
        rng = con.gradient_step_contraction_range(beta)
        assert rng == sp.Interval(0, 2 / beta)
        lo, hi = Fr(int(rng.inf.p), int(rng.inf.q)), Fr(int(rng.sup.p), int(rng.sup.q))
        b = Fr(int(beta.p), int(beta.q))
        lams = [b * Fr(k, 20) for k in range(21)]
        for eta in [Fr(k, 10) / b for k in range(0, 31)]:
            ok = all(abs(1 - eta * lam) <= 1 for lam in lams)
            assert ok is (lo <= eta <= hi)
    b = sp.Symbol("beta", positive=True)
    assert con.gradient_step_contraction_range(b) == sp.Interval(0, 2 / b)


def test_gradient_step_counterexample():
    ce = con.gradient_step_counterexample(2, R(11, 10))
    assert ce["distance_after"] == R(6, 5) and ce["distance_before"] == 1
    with pytest.raises(InvalidParameter, match="eta"):
        con.gradient_step_counterexample(2, 1)


# -- W_oo ---------------------------------------------------------------------------------------
def _random_law(rng, k):
    atoms = rng.sample(range(-6, 7), k)
    w = [rng.randint(1, 5) for _ in range(k)]
    return sr.finite_law([R(a, 2) for a in atoms], [R(x, sum(w)) for x in w])


def test_w_infinity_finite_against_couplings():
    rng = random.Random(7)
    for _ in range(40):
        P, Q = _random_law(rng, rng.randint(1, 5)), _random_law(rng, rng.randint(1, 5))
        assert sr.w_infinity(P, Q) == sr.w_infinity_by_couplings(P, Q)
        assert sr.w_infinity(P, Q) == sr.w_infinity(Q, P)


def test_finite_law_and_w_infinity_values():
    P = sr.finite_law([1, 0, 1], [R(1, 4), R(1, 2), R(1, 4)])
    assert P.atoms == (0, 1) and P.masses == (R(1, 2), R(1, 2))
    assert sr.w_infinity(P, sr.point_mass(3)) == 3
    assert sr.w_infinity(sr.iso_gaussian((1, 2, 2), R(1, 3)),
                         sr.iso_gaussian((0, 0, 0), R(1, 3))) == 3
    assert sr.w_infinity(sr.iso_gaussian(0, 1), sr.iso_gaussian(0, 2)) == sp.oo
    assert sr.w_infinity(P, sr.iso_gaussian(0, 1)) == sp.oo
    assert sr.w_infinity(P, sr.iso_gaussian(1, 0)) == 1
    with pytest.raises(InvalidParameter, match="Q"):
        sr.w_infinity(sr.iso_gaussian((0, 0), 1), sr.iso_gaussian(0, 1))
    with pytest.raises(InvalidParameter, match="Q"):
        sr.w_infinity(P, sr.iso_gaussian((0, 0), 1))
    with pytest.raises(NoClosedForm):
        sr.w_infinity(P, sr.iso_gaussian(0, sp.Symbol("s", nonnegative=True)))
    with pytest.raises(InvalidParameter, match="masses"):
        sr.finite_law([0, 1], [R(1, 2), R(1, 3)])


# -- the shifted Renyi divergence ----------------------------------------------------------------
def test_shifted_renyi_gaussian_attained_by_the_translate():
    """The closed form equals D_alpha of the candidate N(m_P + z, sigma^2) against Q, by the
    library's normal-pair closed form (Kaissis et al., Cor. 10), a different route."""
    for d, z, s, a in ((3, 1, 2, 2), (R(5, 2), R(1, 2), R(3, 4), R(7, 2)), (1, 2, 1, 3)):
        P, Q = sr.iso_gaussian(0, s), sr.iso_gaussian(d, s)
        cand = ta.renyi(ta.NormalPair(min(z, d), s, d, s), a)
        assert sp.simplify(sr.shifted_renyi(P, Q, a, z) - cand) == 0


def _candidate_divergence(a, d, z, sigma=1):
    """D_a(T(X) || N(d, 1)) for X ~ N(0, 1) and the increasing map T(x) = x + h(x),
    h = z (1 + tanh x)/2 in (0, z): within W_oo distance z of N(0, 1), not a translate
    (mpmath quadrature of the change of variables: evidence)."""
    def integrand(x):
        t = x + z * (1 + mp.tanh(x)) / 2
        dt = 1 + z / (2 * mp.cosh(x)**2)
        p = mp.npdf(x) / dt
        q = mp.npdf(t, d, sigma)
        return p**a * q**(1 - a) * dt
    return mp.log(mp.quad(integrand, [-mp.inf, 0, mp.inf])) / (a - 1)


def test_shifted_renyi_other_candidates_are_not_better():
    with mp.workdps(15):
        for a, d, z in ((2, 3, 1), (R(3, 2), 2, 1)):
            closed = sr.shifted_renyi(sr.iso_gaussian(0, 1), sr.iso_gaussian(d, 1), a, z)
            cand = _candidate_divergence(a, d, z)
            assert cand >= mp.mpf(closed.p) / closed.q * (1 + mp.mpf(10)**-6), (cand, closed)


def test_shifted_renyi_equal_scales_written_differently():
    s = sp.Symbol("s", positive=True)
    P, Q = sr.iso_gaussian(0, sp.sqrt(2) * s), sr.iso_gaussian(3, sp.sqrt(2 * s**2))
    assert sp.simplify(sr.shifted_renyi(P, Q, 2, 1) - R(1) * 4 / (2 * s**2)) == 0


def test_shifted_renyi_point_masses_and_errors():
    P, Q = sr.iso_gaussian((0, 0), 0), sr.iso_gaussian((3, 4), 0)
    assert [sr.shifted_renyi(P, Q, 2, z) for z in (4, 5)] == [sp.oo, 0]
    z = sp.Symbol("z", nonnegative=True)
    assert sr.shifted_renyi(P, Q, 2, z) == sp.Piecewise((0, 5 <= z), (sp.oo, True))
    Pf, Qf = sr.finite_law([0, 2], [R(1, 2)] * 2), sr.finite_law([R(1, 2), R(3, 2)], [R(1, 2)] * 2)
    assert sr.shifted_renyi(Pf, Qf, 2, R(1, 2)) == 0
    with pytest.raises(NoClosedForm):
        sr.shifted_renyi(Pf, Qf, 2, R(1, 4))
    with pytest.raises(NoClosedForm):
        sr.shifted_renyi(sr.iso_gaussian(0, 1), sr.iso_gaussian(0, 2), 2, 1)
    with pytest.raises(InvalidParameter, match="alpha"):
        sr.shifted_renyi(P, Q, R(1, 2), 1)
    with pytest.raises(InvalidParameter, match="z"):
        sr.shifted_renyi(P, Q, 2, -1)


def test_add_noise_and_cni_identity():
    s, T = sp.Symbol("s", positive=True), sp.Symbol("T", positive=True, integer=True)
    g = sr.add_noise(sr.add_noise(sr.iso_gaussian(1, 0), s), s)
    assert sp.simplify(g.sigma - sr.cni_identity(1, s, 2).sigma) == 0
    assert sr.cni_identity((1, 2), s, T) == sr.IsoGaussian((1, 2), sp.sqrt(T) * s)


# -- D_alpha of finite laws plus noise, Arb quadrature -------------------------------------------
def test_noisy_renyi_point_masses_enclose_fact_61():
    """Point masses plus noise are the Gaussian pair: alpha d^2/(2 sigma^2) (Fact 6.1)."""
    for d, s, a in ((1, 1, 2), (R(3, 2), R(7, 10), 3), (-2, R(1, 2), 4)):
        v = sr.noisy_renyi(sr.point_mass(0), sr.point_mass(d), a, s, dps=20)
        assert v.guarantee == "certified"
        lo, hi = (sp.Integer(int(e.man)) * sp.Integer(2)**int(e.exp) for e in v.interval())
        assert lo <= a * sp.S(d)**2 / (2 * sp.S(s)**2) <= hi


def test_noisy_renyi_mixtures_against_mpmath():
    P = sr.finite_law([0, 1, 3], [R(1, 3), R(1, 6), R(1, 2)])
    Q = sr.finite_law([R(1, 2), 2], [R(1, 4), R(3, 4)])
    for a, s in ((2, 1), (3, R(3, 5))):
        v = sr.noisy_renyi(P, Q, a, s, dps=15)
        with mp.workdps(25):
            sf = mp.mpf(s.p) / s.q if isinstance(s, sp.Rational) else mp.mpf(s)

            def dens(x, L, sf=sf):
                return sum(mp.mpf(m.p) / m.q * mp.npdf(x, mp.mpf(y.p) / y.q, sf)
                           for y, m in zip(L.atoms, L.masses, strict=True))
            ref = mp.log(mp.quad(lambda x, a=a: dens(x, P)**a * dens(x, Q)**(1 - a),
                                 [-mp.inf, -2, 0, 1, 2, 3, 5, mp.inf])) / (a - 1)
            lo, hi = v.interval()
            assert lo - mp.mpf(10)**-22 <= ref <= hi + mp.mpf(10)**-22


@pytest.mark.parametrize("mp_,mq,s,a,lo,hi", [(R(1, 2), 2, 1, 3, -1, 1),
                                               (0, R(-1, 3), R(1, 2), R(5, 2), -2, R(1, 2))])
def test_clamped_gaussian_renyi_against_quadrature(mp_, mq, s, a, lo, hi):
    expr = sr.clamped_gaussian_renyi(mp_, mq, s, lo, hi, a)
    with mp.workdps(30):
        f = [mp.mpf(sp.S(v).p) / sp.S(v).q for v in (mp_, mq, s, a, lo, hi)]
        m1, m2, sg, al, lo_, hi_ = f
        left = mp.ncdf((lo_ - m1) / sg)**al * mp.ncdf((lo_ - m2) / sg)**(1 - al)
        right = mp.ncdf((m1 - hi_) / sg)**al * mp.ncdf((m2 - hi_) / sg)**(1 - al)
        inner = mp.quad(lambda x: mp.npdf(x, m1, sg)**al * mp.npdf(x, m2, sg)**(1 - al),
                        [lo_, hi_])
        ref = mp.log(left + inner + right) / (al - 1)
        assert abs(ref - mp.mpf(sp.N(expr, 40))) < mp.mpf(10)**-25
    with pytest.raises(InvalidParameter, match="alpha"):
        sr.clamped_gaussian_renyi(0, 1, 1, -1, 1, 1)


def test_noisy_renyi_errors():
    P = sr.point_mass(0)
    with pytest.raises(InvalidParameter, match="alpha"):
        sr.noisy_renyi(P, P, R(3, 2), 1)
    with pytest.raises(InvalidParameter, match="sigma"):
        sr.noisy_renyi(P, P, 2, sp.sqrt(2))
    with pytest.raises(InvalidParameter, match="P"):
        sr.noisy_renyi(sr.iso_gaussian(0, 1), P, 2, 1)


# -- shift sequences -----------------------------------------------------------------------------
def _kkt(s, z0, a):
    """The KKT certificate of min sum a^2 subject to A_t <= z0 + S_t (t < T), A_T = z0 + S_T:
    admissible, a non-decreasing, and a_{t+1} > a_t only where the constraint at t is tight
    (the multipliers lambda_t = 2 (a_{t+1} - a_t) >= 0 with complementary slackness)."""
    z = it.shift_slack(s, a, z0)
    if any(v < 0 for v in z) or z[-1] != 0:
        return False
    return all(a[t + 1] >= a[t] and (a[t + 1] == a[t] or z[t] == 0) for t in range(len(a) - 1))


def test_optimal_shifts_satisfy_kkt_and_beat_slsqp():
    from scipy.optimize import minimize

    rng = random.Random(11)
    for _ in range(25):
        T = rng.randint(1, 9)
        s = [R(rng.choice([0, 0, 1, 2, 3]), rng.randint(1, 3)) for _ in range(T)]
        z0 = R(rng.randint(0, 3), 2)
        if z0 + sum(s) == 0:
            continue
        a, ss = it.optimal_shift_reductions(s, z0)
        assert _kkt(s, z0, a) and ss == sum(x * x for x in a)
        assert ss >= (z0 + sum(s))**2 / T  # Cauchy-Schwarz
        S = np.cumsum([float(v) for v in s]) + float(z0)
        cons = [{"type": "ineq", "fun": (lambda x, t=t, S=S: S[t] - np.sum(x[:t + 1]))}
                for t in range(T - 1)] + [{"type": "eq",
                                           "fun": lambda x, S=S: S[-1] - np.sum(x)}]
        res = minimize(lambda x: np.sum(x**2), np.full(T, S[-1] / T), constraints=cons,
                       method="SLSQP")
        assert float(ss) <= res.fun + 1e-9


def test_optimal_shifts_eq_619():
    """One shift s at step t of n: a_i = s/(n - t + 1) from t on (Eq. (6.19))."""
    for n, t in ((5, 1), (5, 3), (7, 7)):
        a, ss = it.optimal_shift_reductions([2 if k == t else 0 for k in range(1, n + 1)])
        assert a == [0] * (t - 1) + [R(2, n - t + 1)] * (n - t + 1)
        assert ss == R(4, n - t + 1)
    with pytest.raises(InvalidParameter, match="s"):
        it.optimal_shift_reductions([])
    with pytest.raises(InvalidParameter, match="z0"):
        it.optimal_shift_reductions([1], sp.sqrt(2))


def test_cauchy_schwarz_shifts_by_exact_sums():
    rng = random.Random(5)
    for _ in range(30):
        T = rng.randint(1, 7)
        a = [R(rng.randint(0, 9), rng.randint(1, 4)) for _ in range(T)]
        bound, const = it.cauchy_schwarz_shifts(sum(a), T)
        assert sum(x * x for x in a) >= bound
        assert T * const**2 == bound and T * const == sum(a)
    with pytest.raises(InvalidParameter, match="T"):
        it.cauchy_schwarz_shifts(1, 0)


def test_iteration_zcdp_with_a_starting_shift():
    z = it.iteration_zcdp([1, 1], 1, s=[0, 1], z0=1)
    assert z.rho == 1
    with pytest.raises(InvalidParameter, match="a"):
        it.iteration_zcdp([1, 1], 1, s=[0, 1], z0=0)  # z_1 = -1
    assert it.shift_slack([1, 0], [R(1, 2), R(1, 2)]) == [R(1, 2), 0]


def _every_window(L, eta, sigma, n, m, D, pos):
    """The least rho over every window start w in [0, T) (not only after an occurrence)."""
    T = n * m
    occ = {j * n + pos for j in range(m)}
    best = None
    for w in range(T):
        s = [2 * eta * L if w + k + 1 in occ else 0 for k in range(T - w)]
        _, ss = it.optimal_shift_reductions(s, 0 if w == 0 else D)
        rho = ss / (2 * eta**2 * sigma**2)
        best = rho if best is None else min(best, rho)
    return best


@pytest.mark.parametrize("n,m,D,pos", [(3, 2, 1, 1), (4, 3, 5, 2), (2, 4, 3, 2), (5, 2, 2, 5)])
def test_cyclic_rho_against_every_window(n, m, D, pos):
    rho, w = it.cyclic_noisy_sgd_rho(1, R(1, 2), 2, n, m, D, pos)
    assert rho == _every_window(1, R(1, 2), 2, n, m, D, pos)


def test_cyclic_rho_one_pass_is_eq_619():
    L, sig = R(3, 2), R(7, 10)
    for n, t in ((6, 1), (6, 4), (6, 6)):
        rho, w = it.cyclic_noisy_sgd_rho(L, R(1, 10), sig, n, 1, 100, t)
        assert w == 0 and rho == it.noisy_sgd_iteration_zcdp(L, sig, n, t).rho
    with pytest.raises(InvalidParameter, match="position"):
        it.cyclic_noisy_sgd_rho(1, 1, 1, 3, 1, 1, 4)
    with pytest.raises(InvalidParameter, match="D"):
        it.cyclic_noisy_sgd_rho(1, 1, 1, 3, 1, sp.pi, 1)


def test_altschuler_talwar_rate():
    assert it.altschuler_talwar_rate(1, 1, 1, 4, 8, 5) == R(1, 2)
    assert it.altschuler_talwar_rate(1, 1, 1, 4, 100, 5) == R(20, 16)
    assert it.altschuler_talwar_rate(2, R(1, 2), 3, 10, 1000, 1) == R(4, 900) * 10
