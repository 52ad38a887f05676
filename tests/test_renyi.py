"""Renyi, hockey-stick and F-divergences of trade-off functions, against independent references:
quadrature of the densities at 40 digits, direct sums over finite pairs, binomial sums."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import Discrete, EpsDelta, G, Laplace

R = sp.Rational
mu, a = sp.symbols("mu a", positive=True)
D = Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)])
P3, Q3 = [R(1, 5), R(1, 2), R(3, 10)], [R(2, 5), R(2, 5), R(1, 5)]


def _quad_renyi(p, q, A, pts):
    """(1/(A-1)) log int p^A q^(1-A) by quadrature at 40 digits."""
    with mpmath.workdps(40):
        A = mpmath.mpf(A)
        v = mpmath.quad(lambda x: p(x) ** A * q(x) ** (1 - A), pts)
        return mpmath.log(v) / (A - 1)


def close(v, ref, digits=28):
    """The Value ``v`` agrees with the exact or high-precision ``ref`` to ``digits`` digits
    (compared at 80 digits: no double rounding)."""
    with mpmath.workdps(80):
        r = mpmath.mpf(sp.N(ref, 80)) if isinstance(ref, sp.Basic) else mpmath.mpf(ref)
        lo, hi = mpmath.mpf(v.lo), mpmath.mpf(v.hi)
        tol = mpmath.mpf(10) ** -digits * max(1, abs(r))
        return lo - tol <= r <= hi + tol


def _sum_renyi(P, Q, A):
    s = sum(sp.Rational(p) ** A * sp.Rational(q) ** (1 - A) for p, q in zip(P, Q, strict=True)
            if p and q)
    return sp.log(s) / (A - 1)


def test_gaussian_closed_form_and_quadrature():
    assert ta.renyi(G(mu), a) == a * mu**2 / 2
    npdf = mpmath.npdf
    for m, A in [(1, 2), (R(3, 2), R(1, 3)), (R(1, 2), 7)]:
        ref = _quad_renyi(lambda x: npdf(x), lambda x, m=m: npdf(x, float(m)), A,
                          [-mpmath.inf, 0, mpmath.inf])
        assert close(ta.renyi(G(m), A, dps=30), ref)


@pytest.mark.parametrize("m, A", [(1, 2), (1, R(1, 2)), (2, R(3, 10)), (R(1, 2), 5)])
def test_laplace_against_quadrature(m, A):
    def lap(x, c=0):
        return mpmath.exp(-abs(x - c)) / 2

    ref = _quad_renyi(lap, lambda x: lap(x, mpmath.mpf(m)), A,
                      [-mpmath.inf, 0, mpmath.mpf(m), mpmath.inf])
    assert close(ta.renyi(Laplace(m), A, dps=30), ref)


def test_epsdelta_four_point_pair():
    # P = (d, (1-d)E/(1+E), (1-d)/(1+E), 0), Q reversed (Dong, Roth & Su, Eq. (10))
    e, d = sp.log(3), R(1, 10)
    E = sp.exp(e)
    P = [d, (1 - d) * E / (1 + E), (1 - d) / (1 + E), 0]
    Q = [0, (1 - d) / (1 + E), (1 - d) * E / (1 + E), d]
    for A in (R(1, 2), R(1, 5)):
        assert close(ta.renyi(EpsDelta(e, d), A, dps=40), _sum_renyi(P, Q, A), 38)
    assert ta.renyi(EpsDelta(e, d), 2) is sp.oo  # P has mass where Q has none
    ref = _sum_renyi([E / (1 + E), 1 / (1 + E)], [1 / (1 + E), E / (1 + E)], 2)
    assert close(ta.renyi(EpsDelta(e, 0), 2, dps=30), ref)


def test_finite_objects_exactly():
    assert ta.renyi(D, 2) == sp.log(R(17, 9))
    assert sp.simplify(ta.renyi(Discrete(P3, Q3), 3) - _sum_renyi(P3, Q3, 3)) == 0
    # BinomialDP(eps, n) = f_{eps,0}^{(x) n}: n times the one-step divergence; against the
    # binomial sum over the pair (Bin(n, q), Bin(n, 1-q)) directly
    eps, n, A = sp.log(2), 6, 3
    q = 1 / (1 + sp.exp(eps))
    P = [sp.binomial(n, k) * q**k * (1 - q)**(n - k) for k in range(n + 1)]
    Q = [sp.binomial(n, k) * (1 - q)**k * q**(n - k) for k in range(n + 1)]
    ref = _sum_renyi(P, Q, A)
    assert sp.simplify(ta.renyi(ta.BinomialDP(eps, n), A) - ref) == 0
    assert sp.simplify(ta.renyi(EpsDelta(eps, 0) ** n, A) - ref) == 0


def test_products_add_and_inverse_swaps():
    assert ta.renyi(G(1) @ G(2), 3) == R(15, 2)
    f = G(1) @ Laplace(1)
    assert sp.simplify(ta.renyi(f, 2) - (1 + ta.renyi(Laplace(1), 2))) == 0
    # f^{-1} = T(Q, P): the finite route swaps the masses
    Dq = Discrete(P3, Q3)
    assert sp.simplify(ta.renyi(Dq.inverse(), 2) - _sum_renyi(Q3, P3, 2)) == 0
    # skew symmetry D_a(Q||P) = a/(1-a) D_{1-a}(P||Q), checked on a finite pair by sums
    A = R(1, 3)
    assert sp.simplify(_sum_renyi(Q3, P3, A) - A / (1 - A) * _sum_renyi(P3, Q3, 1 - A)) == 0


def test_orders_one_and_infinity():
    assert ta.renyi(G(mu), 1) == mu**2 / 2  # KL
    assert ta.renyi(EpsDelta(2, 0), sp.oo) == 2
    assert ta.renyi(Laplace(3), sp.oo) == 3
    assert ta.renyi(G(1), sp.oo) is sp.oo
    assert ta.renyi(Discrete(P3, Q3), sp.oo) == sp.log(R(3, 2))  # max log(p/q)
    assert ta.renyi(ta.Id, 2) == 0 and ta.renyi(ta.Zero, 2) is sp.oo


def test_monotone_in_the_order():
    vals = [ta.renyi(Discrete(P3, Q3), A, dps=20).mid for A in (R(1, 2), 2, 4, 16)]
    assert vals == sorted(vals)


def test_estimate_of_a_mixture_against_quadrature():
    # Mix(G(1), p) = T(N(0,1), (1-p) N(0,1) + p N(1,1))
    p = R(1, 2)
    npdf = mpmath.npdf
    ref = _quad_renyi(lambda x: npdf(x), lambda x: (1 - 0.5) * npdf(x) + 0.5 * npdf(x, 1), 2,
                      [-mpmath.inf, 0, mpmath.inf])
    v = ta.renyi(ta.Mix(G(1), p), 2, dps=15, estimate=True)
    assert abs(v.mid - ref) < 1e-12
    # without estimate=True: the certified route of analysis.renyi_mixture
    w = ta.renyi(ta.Mix(G(1), p), 2, dps=15)
    assert w.lo - 1e-14 <= ref <= w.hi + 1e-14 and w.width < 1e-13
    with pytest.raises(ta.NoClosedForm):
        ta.renyi(ta.Mix(ta.Laplace(1), p), 2, dps=15)


def test_bad_order():
    with pytest.raises(ta.InvalidParameter, match="order"):
        ta.renyi(G(1), 0)
    with pytest.raises(ta.InvalidParameter, match="order"):
        ta.renyi(G(1), -2)


def test_hockey_stick_against_sums_and_quadrature():
    P, Q = [R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)]
    for g in (R(1, 2), 1, 2, R(7, 3)):
        ref = sum(max(p - g * q, 0) for p, q in zip(P, Q, strict=True))
        assert close(ta.hockey_stick(D, g, dps=30), ref)
    with mpmath.workdps(40):
        m, g = mpmath.mpf(1), mpmath.mpf(3)
        # E_g(N(0,1) || N(1,1)) = int (p - g q)_+ : p > g q for x < 1/2 - log(g)
        c = mpmath.mpf(1) / 2 - mpmath.log(g)
        ref = mpmath.ncdf(c) - g * mpmath.ncdf(c - m)
    assert close(ta.hockey_stick(G(1), 3, dps=30), ref)


def test_f_divergences():
    kl = ta.f_divergence(D, lambda t: t * sp.log(t))
    assert sp.simplify(kl - ta.kl(D)) == 0
    chi2 = ta.f_divergence(Discrete(P3, Q3), lambda t: (t - 1) ** 2)
    assert chi2 == sum((p - q) ** 2 / q for p, q in zip(P3, Q3, strict=True))
    assert ta.f_divergence(EpsDelta(1, R(1, 10)), lambda t: (t - 1) ** 2) is sp.oo
    assert close(ta.f_divergence(G(1), lambda t: t * sp.log(t), dps=20, estimate=True),
                 R(1, 2), 18)


@pytest.mark.parametrize("m0, s0, m1, s1, A", [
    (0, 1, R(1, 2), R(13, 10), 2), (R(1, 5), R(9, 10), -1, R(11, 10), R(7, 2)),
    (0, 2, 1, R(3, 2), R(3, 2)), (0, 1, 1, 2, R(1, 2))])
def test_normal_pair_against_quadrature(m0, s0, m1, s1, A):
    # Kaissis et al., Cor. 10 (one dimension) against the densities' quadrature
    def dens(m, s):
        return lambda x: mpmath.npdf(x, mpmath.mpf(m.p) / m.q, mpmath.mpf(s.p) / s.q)

    m0, s0, m1, s1 = map(sp.Rational, (m0, s0, m1, s1))
    ref = _quad_renyi(dens(m0, s0), dens(m1, s1), A, [-mpmath.inf, -5, 0, 5, mpmath.inf])
    assert close(ta.renyi(ta.NormalPair(m0, s0, m1, s1), A, dps=25), ref, 24)


def test_normal_pair_infinite_where_the_variance_condition_fails():
    # a s1^2 + (1 - a) s0^2 = 3 - 8 < 0 at a = 3, s0 = 2, s1 = 1: the integral diverges
    assert ta.renyi(ta.NormalPair(0, 2, 0, 1), 3) is sp.oo


def test_kl_of_a_normal_pair_is_the_limit_of_renyi():
    f = ta.NormalPair(0, 1, R(1, 2), 2)
    assert ta.kl(f) == sp.log(2) - R(11, 32)
    near = ta.renyi(f, 1 + R(1, 10**20), dps=40)
    assert close(near, ta.kl(f), 18)


def test_f_divergence_limits_beyond_sympy_are_a_clear_error():
    # Q = 0 where P > 0 needs F'(oo) = lim F(t)/t: SymPy cannot take it for this Max
    Dz = Discrete([R(1, 2), R(1, 2), 0], [0, R(1, 2), R(1, 2)])
    with pytest.raises(ta.NoClosedForm, match="limit"):
        ta.f_divergence(Dz, lambda t: sp.Max(t - R(3, 2), 0))
    assert ta.f_divergence(Dz, lambda t: (t - 1) ** 2) is sp.oo


@pytest.mark.parametrize("f, d", [
    (ta.G(1), "1e-5"), (ta.G(30), "1e-10"), (ta.Laplace(2) ** 3, "1e-3"),
    (ta.EpsDelta(1, 0) ** 20, "1e-6"), (ta.BinomialDP(sp.Rational(1, 2), 40), "1e-8"),
])
def test_renyi_epsilon_bound_lies_above_the_exact_epsilon(f, d):
    """The Renyi-DP conversion (an upper bound of eps(delta) for every order) against eps from
    the exact profiles (closed forms, exact finite composition), and within the plain Chernoff
    bound at order 2, which it improves by the factor (1 - 1/a)^(a-1)/a."""
    from tradeoff_algebra.analysis.renyi import renyi_epsilon_bound
    from tradeoff_algebra.numeric.context import mp

    exact = ta.epsilon(f, d, dps=20)
    with mp.workdps(30):
        b = renyi_epsilon_bound(f, mp.mpf(d))
        chernoff2 = ta.renyi(f.inverse(), 2, dps=30).hi + mp.log(1 / mp.mpf(d))
    assert exact.hi <= b <= chernoff2
