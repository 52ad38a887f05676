"""PoissonReplace: one Poisson-subsampled Gaussian step under replace-one neighbours, against
independent references: the Neyman-Pearson test found by quadrature of the mixture densities at
40 digits, the hockey-stick integral split at the density crossing, and dp_accounting's
REPLACE_ONE accountant where it is installed."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from precision import close

import tradeoff_algebra as ta
from tradeoff_algebra import PoissonReplace

R = sp.Rational


def _densities(mu, q):
    mu, q = mpmath.mpf(mu.p) / mu.q, mpmath.mpf(q.p) / q.q

    def p(x):
        return (1 - q) * mpmath.npdf(x) + q * mpmath.npdf(x, mu)

    def qd(x):
        return (1 - q) * mpmath.npdf(x) + q * mpmath.npdf(x, -mu)

    return p, qd


# every alpha with the first (mu, q) and every (mu, q) at the first alpha in the default run; the
# other six pairs (about 1.3 s of CPU each) in the slow run (-m slow)
@pytest.mark.parametrize("mu, q, alpha", [
    pytest.param(mu, q, alpha, marks=[pytest.mark.slow] if i and j else [])
    for i, alpha in enumerate([R(1, 10**6), R(1, 10), R(1, 2), R(9, 10)])
    for j, (mu, q) in enumerate([(R(1), R(1, 10)), (R(2), R(1, 2)), (R(1, 2), R(1, 100))])])
def test_values_against_the_quadrature_of_the_test(mu, q, alpha):
    with mpmath.workdps(40):
        p, qd = _densities(mu, q)
        a = mpmath.mpf(alpha.p) / alpha.q
        # the test rejects for x < t (the likelihood ratio q/p decreases): P(X < t) = alpha
        start = mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # Phi^{-1}(alpha)
        t = mpmath.findroot(lambda t: mpmath.quad(p, [-mpmath.inf, t]) - a, start)
        ref = 1 - mpmath.quad(qd, [-mpmath.inf, t])
    assert close(ta.evaluate(PoissonReplace(mu, q), alpha, dps=30), ref, 30)


@pytest.mark.parametrize("eps", [0, R(1, 10), 1, 3])
def test_profile_against_the_hockey_stick_integral(eps):
    mu, q = R(1), R(1, 10)
    with mpmath.workdps(40):
        p, qd = _densities(mu, q)
        e = sp.Rational(eps)
        E = mpmath.exp(mpmath.mpf(e.p) / e.q)

        def d(x):
            return qd(x) - E * p(x)

        # the crossing (q - E p changes sign once): split the integral of (q - E p)_+ there
        lo, hi = mpmath.mpf(-10), mpmath.mpf(5)  # d > 0 at -10, < 0 at 5: bisection
        for _ in range(200):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if d(m) > 0 else (lo, m)
        t = lo
        ref = mpmath.quad(d, [-mpmath.inf, t])
    assert close(ta.delta(PoissonReplace(mu, q), eps, dps=30), ref, 28)


def test_shape_symmetry_and_trivial_cases():
    f = PoissonReplace(1, R(1, 5))
    xs = np.linspace(0, 1, 201)
    y = f.curve(xs)
    assert y[0] == 1 and y[-1] == 0 and np.all(np.diff(y) <= 1e-15)
    assert np.all(np.diff(y, 2) >= -1e-12) and np.all(y <= 1 - xs + 1e-15)
    a = R(3, 10)
    v, w = ta.evaluate(f, a, dps=25), ta.evaluate(f.inverse(), a, dps=25)
    assert close(v, w.mid, 25)
    assert ta.evaluate(PoissonReplace(0, R(1, 2)), a).mid == pytest.approx(0.7)
    with pytest.raises(ta.InvalidParameter, match="q"):
        PoissonReplace(1, 2)


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_dp_sgd_replace_one_against_dp_accounting():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant as pa

    acc = pa.PLDAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE,
                           value_discretization_interval=1e-5)
    acc.compose(dpa.PoissonSampledDpEvent(512 / 50000, dpa.GaussianDpEvent(1.0)), 300)
    ref = acc.get_epsilon(1e-5)
    f = ta.noisy_sgd(1, R(512, 50000), 300, sampling="poisson", neighbours="replace_one")
    e = ta.epsilon(f, R(1, 10**5), dps=6)
    assert e.lo <= ref <= float(e.hi) * (1 + 1e-3)


@pytest.mark.slow
def test_products_through_the_loss_model_against_a_double_integral():
    # delta(eps) of f (x) f = E_{Q x Q}[(1 - e^{eps - L(x) - L(y)})_+]: for each x the set
    # {L(x) + L(y) > eps} is {y < y*(x)} (L decreases), so
    # delta = int [q(x) F_Q(y*) - e^eps p(x) F_P(y*)] dx, y* from L(y*) = eps - L(x) by bisection
    mu, q, eps = 1, R(1, 10), 1
    with mpmath.workdps(30):
        M, Qm, E = mpmath.mpf(mu), mpmath.mpf(q.p) / q.q, mpmath.e
        c = mpmath.exp(-M * M / 2)

        def L(x):
            return mpmath.log((1 - Qm) + Qm * c * mpmath.exp(-M * x)) - mpmath.log(
                (1 - Qm) + Qm * c * mpmath.exp(M * x))

        def ystar(target):
            lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
            for _ in range(120):
                m = (lo + hi) / 2
                lo, hi = (m, hi) if L(m) > target else (lo, m)
            return lo

        def FQ(y):
            return (1 - Qm) * mpmath.ncdf(y) + Qm * mpmath.ncdf(y + M)

        def FP(y):
            return (1 - Qm) * mpmath.ncdf(y) + Qm * mpmath.ncdf(y - M)

        def qd(x):
            return (1 - Qm) * mpmath.npdf(x) + Qm * mpmath.npdf(x, -M)

        def pd(x):
            return (1 - Qm) * mpmath.npdf(x) + Qm * mpmath.npdf(x, M)

        def integrand(x):
            y = ystar(mpmath.mpf(eps) - L(x))
            return qd(x) * FQ(y) - E * pd(x) * FP(y)

        ref = mpmath.quad(integrand, [-12, -3, 0, 3, 12])
    v = ta.delta(PoissonReplace(mu, q) ** 2, eps, dps=10)
    # contains the reference, at the engine's default relative tolerance (5e-4) or better
    assert v.lo - 1e-12 <= ref <= v.hi + 1e-12 and v.hi - v.lo <= 5e-4 * ref


def _group_roc_reference(mu, q, k: int, alpha: str):
    """g^{o k}(alpha) for g = 1 - f: each step solves F_P(t) = x by 600 bisections on
    [-80 - mu, 80 + mu] at 120 digits and takes F_Q(t) (the mixture CDFs of the pair)."""
    with mpmath.workdps(120):
        mu, q = mpmath.mpf(mu.p) / mu.q, mpmath.mpf(q.p) / q.q
        x = mpmath.mpf(alpha)
        for _ in range(k):
            lo, hi = -80 - mu, 80 + mu
            for _ in range(600):
                m = (lo + hi) / 2
                if (1 - q) * mpmath.ncdf(m) + q * mpmath.ncdf(m - mu) > x:
                    hi = m
                else:
                    lo = m
            x = (1 - q) * mpmath.ncdf(lo) + q * mpmath.ncdf(lo + mu)
        return x


@pytest.mark.parametrize("mu, q, k", [
    pytest.param(R(8), R(1, 2**40), 4, marks=pytest.mark.slow),  # a power near 2e-31 (~5 s)
    (R(1, 10), R(1, 10**20), 3),  # a power of 1e-300 (1 - f is alpha to 16 digits)
    (R(3), R(1, 2), 2),
])
def test_group_at_a_tiny_level_against_an_independent_iteration(mu, q, k):
    """Group(PoissonReplace(mu, q), k) at alpha = 1e-300 with 50 digits (reported as
    1 - 6.15e-31 where the truth was said to be 1 - O(1e-300)): the value and the power both
    enclose the 120-digit iteration of the pair's mixture CDFs."""
    f = ta.Group(PoissonReplace(mu, q), k)
    ref = _group_roc_reference(mu, q, k, "1e-300")
    v, r = ta.evaluate(f, "1e-300", dps=50), ta.roc(f, "1e-300", dps=50)
    with mpmath.workdps(120):
        tol = mpmath.mpf(10) ** -49
        assert r.lo - tol * ref <= ref <= r.hi + tol * ref
        assert v.lo - tol <= 1 - ref <= v.hi + tol


@pytest.mark.parametrize("mu, q, alpha", [
    (R(1), R(1, 10), "1e-600"),  # the depth the concave search of a maximum reaches
    (R(1), R(1, 10), "0.0625"),
    (R(2), R(1, 2), "0.875"),    # above 1/2: the mirror-image threshold
    (R(1, 2), R(1, 100), "0.5"),
    (R(3), R(1), "0.01"),        # q = 1: G_{2 mu}
    (R(16), R(1, 10), "1e-300"),  # far tails of both mixture components
    (R(1, 100), R(1, 10**20), "0.9999999"),
])
def test_certified_balls_against_the_bisection_of_the_mixture_cdfs(mu, q, alpha):
    """The Arb power and value (``arb_value``): certified, and each one's interval holds the
    120-digit bisection of the pair's mixture CDFs (``_group_roc_reference`` with k = 1)."""
    f = PoissonReplace(mu, q)
    ref = _group_roc_reference(mu, q, 1, alpha)
    r, v = ta.roc(f, alpha, dps=40), ta.evaluate(f, alpha, dps=40)
    assert r.guarantee == v.guarantee == "certified", (r, v)
    with mpmath.workdps(120):
        lo, hi = r.interval()
        assert mpmath.mpf(lo) <= ref <= mpmath.mpf(hi), (r, ref)
        lo, hi = v.interval()
        assert mpmath.mpf(lo) <= 1 - ref <= mpmath.mpf(hi), (v, 1 - ref)


@pytest.mark.parametrize("mu, q, eps", [(R(1), R(1, 10), R(1, 3)), (R(2), R(1, 2), 5),
                                        (R(1, 2), R(1, 100), 0), (R(1), R(1), 2)])
def test_certified_profile_against_the_hockey_stick_integral(mu, q, eps):
    """delta(eps) from the Arb closed form (``arb_delta``): certified, and its interval holds
    the integral of (q - e^eps p)_+ split at the density crossing (found by bisection)."""
    with mpmath.workdps(40):
        p, qd = _densities(mu, q)
        e = sp.Rational(eps)
        E = mpmath.exp(mpmath.mpf(e.p) / e.q)

        def d(x):
            return qd(x) - E * p(x)

        lo, hi = mpmath.mpf(-30), mpmath.mpf(30)
        for _ in range(200):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if d(m) > 0 else (lo, m)
        ref = mpmath.quad(d, [-mpmath.inf, lo - 5, lo])
    v = ta.delta(PoissonReplace(mu, q), eps, dps=30)
    assert v.guarantee == "certified", v
    with mpmath.workdps(60):
        a, b = (mpmath.mpf(x) for x in v.interval())
        assert a - mpmath.mpf("1e-36") <= ref <= b + mpmath.mpf("1e-36"), (v, ref)
