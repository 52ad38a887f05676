"""The Skellam family (Agarwal, Kairouz & Liu, arXiv:2110.04995) against references written
here: the pmf as a difference of two Poissons by direct convolution of Poisson masses (not
Bessel functions), brute-force Neyman-Pearson over it at 40 digits (the neglected tail
bounded), the hockey-stick sum for delta(eps), direct sums for the Renyi divergence, exact
convolution of the lattice laws for products, and dp_accounting when installed."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.skellam import renyi_ball
from tradeoff_algebra.mechanisms import skellam
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.parse import parse_expr

R = sp.Rational
CASES = [(1, R(5)), (2, R(7, 2)), (3, R(1, 2)), (1, R(30))]


# -- references ----------------------------------------------------------------------------------
def poisson_difference(mu, K: int, N: int) -> dict:
    """P(X1 - X2 = x), |x| <= K, X1, X2 ~ Poisson(mu): sum_{j <= N} Pois(x + j) Pois(j), N so
    large that the neglected mass (Poisson tail beyond N) is negligible (checked by the
    caller through the total)."""
    m = mp.mpf(sp.N(mu, mp.dps + 10))
    pois = [mp.exp(-m)]
    for j in range(1, N + K + 1):
        pois.append(pois[-1] * m / j)
    out = {}
    for x in range(0, K + 1):
        out[x] = mp.fsum(pois[x + j] * pois[j] for j in range(N + 1))
        out[-x] = out[x]
    return out


def lattice(mu, tiny: int = 40) -> dict:
    K = int(4 * mu + 40 + 3 * tiny)
    P = poisson_difference(mu, K, K)
    # (the total is 1 up to the truncation and the rounding of the working precision)
    assert abs(mp.fsum(P.values()) - 1) < mp.mpf(10) ** -min(tiny, mp.dps - 5)
    return P


def np_value_ref(P: dict, d: int, alpha):
    """T(P, P(. - d))(alpha): the ratio increases with x (log-concavity), so the most powerful
    test rejects the largest x first."""
    size, power = mp.zero, mp.zero
    for x in sorted(set(P) | {y + d for y in P}, reverse=True):
        px, qx = P.get(x, mp.zero), P.get(x - d, mp.zero)
        if size + px <= alpha:
            size, power = size + px, power + qx
        else:
            return 1 - (power + qx * (alpha - size) / px)
    return 1 - power


def hockey(P: dict, d: int, gamma):
    xs = set(P) | {y + d for y in P}
    return mp.fsum(max(P.get(x - d, mp.zero) - gamma * P.get(x, mp.zero), 0) for x in xs)


# -- the family ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,name", [((R(3, 2), 2), "sensitivity"), ((0, 2), "sensitivity"),
                                      ((1, 0), "mu"), ((1, -1), "mu")])
def test_parameters_are_validated(bad, name):
    with pytest.raises(ta.InvalidParameter, match=name):
        ta.Skellam(*bad)
    with pytest.raises(ta.InvalidParameter, match=name):
        skellam(*bad)


def test_the_loss_is_increasing_and_antisymmetric():
    # log-concavity (module docstring): L(x) = log P(x - d)/P(x) strictly increasing
    with mp.workdps(40):
        P = lattice(R(7, 2))
        for d in (1, 2):
            L = [mp.log(P[x - d] / P[x]) for x in range(-30, 31)]
            assert all(b > a for a, b in zip(L, L[1:], strict=False))
            assert all(abs(mp.log(P[x - d] / P[x]) + mp.log(P[d - x - d] / P[d - x])) <
                       mp.mpf(10) ** -30 for x in range(-10, 11))


@pytest.mark.parametrize("d,mu", CASES)
def test_values_and_power_against_brute_force_neyman_pearson(d, mu):
    f = ta.Skellam(d, mu)
    with mp.workdps(40):
        P = lattice(mu)
        for a in ("1e-20", "1e-6", "0.01", "0.25", "0.5", "0.9", "0.999999"):
            ref = np_value_ref(P, d, mp.mpf(a))
            v, w = ta.evaluate(f, a, dps=25), ta.roc(f, a, dps=25)
            assert v.guarantee == "certified" and w.guarantee == "certified"
            assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref, (a, v, ref)
            assert abs(w.mid - (1 - ref)) <= mp.mpf(10) ** -24 * (1 - ref) + mp.mpf(10) ** -35


def test_symmetric_f_is_its_own_inverse():
    f = ta.Skellam(2, R(7, 2))
    assert f.is_symmetric
    with mp.workdps(40):
        for a in ("0.01", "0.3", "0.8"):
            y = ta.evaluate(f, a, dps=30).mid
            assert abs(ta.evaluate(f, y, dps=30).mid - mp.mpf(a)) < mp.mpf(10) ** -25


@pytest.mark.parametrize("d,mu", CASES[:3])
def test_delta_against_the_hockey_stick_sum(d, mu):
    f = ta.Skellam(d, mu)
    with mp.workdps(40):
        P = lattice(mu)
        # eps = 0, 1/2, 2, and eps exactly the loss of an atom (the tie counts nothing)
        atom = mp.log(P[2 - d] / P[2])
        for eps in (R(0), R(1, 2), R(2), None):
            e = atom if eps is None else mp.mpf(eps.p) / eps.q
            ref = hockey(P, d, mp.exp(e))
            v = ta.delta(f, eps if eps is not None else e, dps=25)
            assert v.guarantee == "certified"
            assert abs(v.mid - ref) <= mp.mpf(10) ** -24 * ref + mp.mpf(10) ** -35, (eps, v)


def test_epsilon_inverts_delta():
    f = ta.Skellam(1, 5)
    for target in ("1e-3", "1e-6"):
        e = ta.epsilon(f, target, dps=15)
        with mp.workdps(40):
            P = lattice(5)
            lo, hi = e.interval()
            assert hockey(P, 1, mp.exp(lo)) >= mp.mpf(target) * (1 - mp.mpf(10) ** -10)
            assert hockey(P, 1, mp.exp(hi)) <= mp.mpf(target) * (1 + mp.mpf(10) ** -10)


@pytest.mark.parametrize("a", [R(2), R(3), R(3, 2)])
def test_renyi_ball_against_direct_sums_and_below_the_gaussian_term(a):
    for d, mu in ((1, R(5)), (2, R(7, 2))):
        f = ta.Skellam(d, mu)
        ball = renyi_ball(f, a, 128)
        with mp.workdps(40):
            P = lattice(mu)
            A = mp.mpf(a.p) / a.q
            ref = mp.log(mp.fsum(p**A * P[x - d] ** (1 - A) for x, p in P.items()
                                 if x - d in P)) / (A - 1)
            with arb_precision(200):  # (the ends read at the ball's precision)
                lo = mp.mpf(ball.lower().str(35, radius=False))
                hi = mp.mpf(ball.upper().str(35, radius=False))
            assert lo - mp.mpf(10) ** -30 <= ref <= hi + mp.mpf(10) ** -30
            assert hi - lo < mp.mpf(10) ** -25
            # the Gaussian term a Delta^2/(4 mu) of AKL's RDP bound (variance 2 mu): here the
            # true divergence is below it (recorded; AKL's bound adds a correction on top)
            assert hi < A * d * d / (4 * mp.mpf(mu.p) / mu.q)


def test_amos_ratio_bound_used_by_the_renyi_tail():
    # I_{m+1}(z)/I_m(z) >= z/(m + 1 + sqrt((m + 1)^2 + z^2)) (Amos 1974), checked directly
    with mp.workdps(30):
        for z in (mp.mpf(1), mp.mpf(7), mp.mpf(60)):
            for m in (0, 1, 5, 40, 200):
                r = mp.besseli(m + 1, z) / mp.besseli(m, z)
                assert r >= z / (m + 1 + mp.sqrt((m + 1) ** 2 + z * z))
                assert r <= z / (2 * (m + 1))  # the tail bound of the sums


# -- composition ---------------------------------------------------------------------------------
def _inside(v, ref, slack=1e-9):
    return float(v.lo) - slack <= float(ref) <= float(v.hi) + slack


def loss_law(P: dict, d: int) -> dict:
    """{x: (P(x), Q(x))} of one factor over the lattice (each x its own loss)."""
    return {x: (P.get(x, mp.zero), P.get(x - d, mp.zero))
            for x in set(P) | {y + d for y in P}}


@pytest.mark.slow
def test_twofold_product_against_the_exact_double_sum():
    # T(P x P, Q x Q): delta(eps) = sum over pairs (x1, x2) of (Q1 Q2 - e^eps P1 P2)_+
    d, mu = 1, R(5)
    f = ta.Skellam(d, mu)
    with mp.workdps(30):
        P = lattice(mu, 25)
        law = [(p, q) for p, q in loss_law(P, d).values() if p > mp.mpf(10) ** -34 or
               q > mp.mpf(10) ** -34]
        refs = {eps: mp.fsum(max(q1 * q2 - mp.exp(eps) * p1 * p2, 0)
                             for p1, q1 in law for p2, q2 in law) for eps in (R(1, 2), R(2))}
    for eps, ref in refs.items():
        assert _inside(ta.delta(f @ f, eps, dps=8), ref, 1e-8)


@pytest.mark.slow
def test_tenfold_product_within_the_renyi_bound_and_above_one_factor():
    # delta of f^10 lies below the RDP conversion exp((a - 1)(10 D_a - eps))/a... (Mironov,
    # Prop. 3: delta <= exp((a - 1)(D - eps)) with D = 10 D_a) and above delta of f itself
    f = ta.Skellam(1, 5)
    a = R(4)
    with arb_precision(64):
        D = 10 * mp.mpf(renyi_ball(f, a, 64).upper().str(20, radius=False))
    for eps in (2, 4):
        v = ta.delta(f**10, eps, dps=8)
        assert float(v.hi) <= float(mp.exp((a - 1) * (D - eps)))
        assert float(v.lo) >= float(ta.delta(f, eps, dps=8).mid)


def test_product_with_a_gaussian_against_the_mixed_sum():
    f = ta.Skellam(1, 5)
    with mp.workdps(30):
        P = lattice(5, 25)

        def gauss(gamma):  # H_gamma(N(1,1) || N(0,1))
            e = mp.log(gamma)
            return mp.ncdf(-e + mp.mpf(1) / 2) - gamma * mp.ncdf(-e - mp.mpf(1) / 2)

        refs = {eps: mp.fsum(q * gauss(mp.exp(eps - mp.log(q / p)))
                             for x, (p, q) in loss_law(P, 1).items() if p > 0 and q > 0)
                for eps in (1, 3)}
    for eps, ref in refs.items():
        assert _inside(ta.delta(f @ ta.G(1), eps, dps=8), ref, 1e-8)


def test_dp_accounting_pld_of_the_skellam_pmf_agrees():
    # dp_accounting has no Skellam mechanism: its PLD of the two explicit pmfs (scipy's ive)
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from scipy.special import ive

    logp = {x: float(mp.log(mp.besseli(abs(x), 10) * mp.exp(-10))) for x in range(-80, 81)}
    acc = pld.from_two_probability_mass_functions(logp, {x + 1: v for x, v in logp.items()},
                                                  value_discretization_interval=1e-5)
    assert abs(ive(3, 10.0) - float(mp.besseli(3, 10) * mp.exp(-10))) < 1e-15
    ours = ta.delta(ta.Skellam(1, 5), 1, dps=10)
    assert abs(acc.get_delta_for_epsilon(1.0) - float(ours.mid)) < 1e-4


# -- the interfaces ------------------------------------------------------------------------------
def test_latex_parse_and_constructor():
    f = ta.Skellam(1, 5)
    assert ta.latex(f) == r"T\left(\mathrm{Sk}(5), \mathrm{Sk}(5) + 1\right)"
    assert skellam(1, 5) == f
    for g in (f, f @ ta.G(1), ta.Skellam(2, R(7, 2)) ** 4):
        assert parse_expr(ta.text(g)) == g
    assert "Skellam" in ta.__all__ and "Skellam" in ta.families.__all__


def test_the_command_line_reaches_the_family_through_the_parser():
    code = "import sys; from tradeoff_algebra.cli import main; sys.exit(main(sys.argv[1:]))"
    out = subprocess.run([sys.executable, "-c", code, "eval", "Skellam(1, 5)", "0.25"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    with mp.workdps(40):
        ref = np_value_ref(lattice(5), 1, mp.mpf("0.25"))
        assert abs(mp.mpf(out.stdout.strip()) - ref) < mp.mpf(10) ** -18


def test_recurrence_masses_against_direct_bessel_values_for_a_large_mu():
    # the blocks of the downward recurrence (module docstring) against mpmath's besseli
    from flint import arb

    from tradeoff_algebra.families.skellam import _Sums

    with arb_precision(120):
        S = _Sums(arb(1000), 120)
        with mp.workdps(40):
            for x in (0, 1, 37, 127, 128, 300, 1000):
                ref = mp.besseli(x, 2000) * mp.exp(-2000)
                ball = S.p(x)
                assert abs(mp.mpf(ball.mid().str(35, radius=False)) - ref) <= \
                    mp.mpf(10) ** -30 * ref
                assert ball.rel_accuracy_bits() > 100


def _log_p_far(y, mu):
    """log p(y) = log(e^{-2 mu} I_y(2 mu)) for large y by the power series of I_y (mpmath):
    I_y(z) = (z/2)^y / y! sum_k (z^2/4)^k / (k! (y + 1)_k)."""
    s = mp.nsum(lambda k: mu ** (2 * k) / (mp.factorial(k) * mp.rf(y + 1, k)), [0, mp.inf])
    return -2 * mu + y * mp.log(mu) - mp.loggamma(y + 1) + mp.log(s)


def test_delta_far_in_the_tail_against_the_bessel_series():
    """L(x) = log p(x - 1)/p(x) grows like log(x/mu): at mu = 5, eps = 20 the first atom with
    L > eps lies near x = 2.4e9 (the sum started at the Gaussian guess ran out of terms). The
    certified value against the sum from that atom with masses from the power series of
    I_y at 40 digits; eps = 50 lies beyond MAX_ORDER: an enclosure [0, b], b >= the truth."""
    from tradeoff_algebra.families import skellam as family

    mu, eps = 5, 20
    with mp.workdps(40):
        L = lambda x: _log_p_far(x - 1, mu) - _log_p_far(x, mu)  # noqa: E731
        lo, hi = 1, 2
        while L(hi) <= eps:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if L(mid) <= eps else (lo, mid)
        ref = mp.fsum(mp.exp(_log_p_far(x - 1, mu)) * (1 - mp.exp(eps - L(x)))
                      for x in range(hi, hi + 6))
        v = ta.delta(ta.Skellam(1, mu), eps)
        assert v.guarantee == "certified"
        assert abs(mp.log(mp.mpf(v.lo)) / mp.log(ref) - 1) < mp.mpf(10) ** -20
        far = ta.delta(ta.Skellam(1, mu), 50)
        assert far.lo == 0 and 0 < far.hi < mp.mpf(10) ** (-10**18)
        assert family.MAX_ORDER == 2**62
