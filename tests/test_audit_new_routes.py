"""An audit from outside of the newest certified routes: every value labelled "certified" (or
"exact") must contain the truth computed without the library, and the calls keep their contract
(time limit, ToleranceWarning, errors naming the parameter).

Routes: the profile of one and two Poisson-subsampled Gaussian steps (``noisy_sgd`` with T = 1, 2:
families/gaussian_sampled_profile.py, families/gaussian_sampled_tails.py, numeric/cf_profile.py),
the loss tails of Laplace powers and of G (x) Laplace (routes/tail_laws.py,
numeric/cf_split_tails.py, numeric/cf_lattice_tails.py), delta and eps of Max
(operators/max_delta.py), Renyi divergences at many orders (numeric/renyi_orders.py), BinomialDP
next to randomized response on a second lattice (numeric/binomial_profile.py,
numeric/lattice_two.py), Skellam powers (numeric/grid_nest.py, families/skellam_grid.py).

References (tests/references/audit2_refs.py, which does not import ``tradeoff_algebra``):
mpmath closed forms and quadrature (the subsampled Gaussian's half-line profile, its two-step
integral over the first step, the Gaussian tails against the Laplace loss law), Irwin--Hall sums
for L_mu^n (checked here against a quadrature of the convolution), Mironov's Laplace divergence
and the discrete Gaussian's theta sums, direct double sums of binomial and trinomial laws, exact
enumeration of Skellam pairs, a rounded-losses FFT bracket, the concave search of
1 - e^eps alpha - max(f, g). Defects found are strict xfails with a minimal reproducer.
"""

from __future__ import annotations

import sys
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import fmpq
from references import audit2_refs as R2

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_orders as ro

MP = mpmath.mp
Q_ = sp.Rational


def _mpq(x) -> mpmath.mpf:
    x = Fraction(x)
    return MP.mpf(x.numerator) / x.denominator


def _contains(v: ta.Value, ref, rel=None, ab=None) -> bool:
    """Does the certified Value ``v`` (widened by one unit) meet ref +- (rel |ref| + ab)
    (rel 1e-20 and ab 1e-300 by default)?"""
    with MP.workdps(60):
        rel = MP.mpf(10) ** -20 if rel is None else rel
        ab = MP.mpf(10) ** -300 if ab is None else ab
        lo, hi = v.interval()
        r = MP.mpf(ref)
        e = abs(r) * rel + ab
        return MP.mpf(lo) <= r + e and r - e <= MP.mpf(hi)


def _certified(v) -> bool:
    return isinstance(v, ta.Value) and v.guarantee in ("certified", "exact")


# ---------------------------------------------------------------------------------------------
# the references checked by a second route
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("e", [-1, 0, Fraction(3, 10), 2])
def test_reference_one_step_profile_against_direct_quadrature(direction, e):
    with MP.workdps(30):
        a = R2.sg_one_hp(2, _mpq(Fraction(1, 10)), direction, _mpq(e), 25)
        b = R2.sg_one_quad(2, _mpq(Fraction(1, 10)), direction, _mpq(e))
        assert abs(a - b) <= MP.mpf(10) ** -20 * (1 + abs(a))


@pytest.mark.slow  # (nested mpmath quadrature: ~10 s each)
@pytest.mark.parametrize("side", ["Q", "P"])
@pytest.mark.parametrize("t", [-Fraction(1, 2), Fraction(9, 10)])
def test_reference_laplace_irwin_hall_against_convolution(side, t):
    with MP.workdps(30):
        mu = MP.mpf(1) / 2
        a = R2.LaplacePower(Fraction(1, 2), 2).tail(side, _mpq(t))
        b = R2.laplace_power_tail_conv(mu, 2, side, _mpq(t))
        assert abs(a - b) <= MP.mpf(10) ** -22


def test_reference_gauss_laplace_two_routes():
    with MP.workdps(30):
        a = R2.gauss_laplace_delta(1, 1, MP.mpf(1) / 2, 25)
        b = R2.gauss_laplace_delta_direct(1, 1, MP.mpf(1) / 2)
        assert abs(a - b) <= MP.mpf(10) ** -22


def test_reference_dgauss_renyi_two_routes():
    with MP.workdps(40):
        for a in (MP.mpf(3) / 2, MP.mpf(17) / 3, MP.mpf(10**6 + 1) / 10**6):
            assert abs(R2.renyi_dgauss(1, 2, a) - R2.renyi_dgauss_direct(1, 2, a)) \
                <= MP.mpf(10) ** -25


# ---------------------------------------------------------------------------------------------
# few subsampled Gaussian steps
# ---------------------------------------------------------------------------------------------

SGD_ONE = [  # (sigma, q, eps): delta from 0.8 down to 1e-42 and below the least float
    (Q_(3, 10), Q_(9, 10), 0), (Q_(3, 10), Q_(9, 10), 50), (Q_(1, 2), Q_(1, 2), 10),
    (50, Q_(1, 10**5), 0), (2, Q_(1, 100), 1), (Q_(11, 10), Q_(1, 1000), Q_(1, 1000)),
    (Q_(7, 10), Q_(3, 4), 20)]


@pytest.mark.parametrize("sigma, q, eps", SGD_ONE)
def test_sgd_one_step_delta(sigma, q, eps):
    f = ta.noisy_sgd(sigma, p=q, steps=1)
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, eps, dps=15)
    with MP.workdps(50):
        r = R2.sg_profile(1 / _mpq(sigma), _mpq(q), 1, _mpq(eps), True, 30)
    assert _certified(v) and _contains(v, r), (v, r)
    assert v.hi - v.lo <= 1e-11 * v.hi


SGD_TWO = [(Q_(3, 10), Q_(9, 10), 1), (Q_(1, 2), Q_(1, 2), 10), (2, Q_(1, 100), 0)]


@pytest.mark.slow  # (the reference's quadrature: ~7 s each)
@pytest.mark.parametrize("sigma, q, eps", SGD_TWO)
def test_sgd_two_step_delta(sigma, q, eps):
    f = ta.noisy_sgd(sigma, p=q, steps=2)
    with ta.pld_options(tol=1e-10):
        v = ta.delta(f, eps, dps=15)
    with MP.workdps(40):
        r = R2.sg_profile(1 / _mpq(sigma), _mpq(q), 2, _mpq(eps), True, 25)
    assert _certified(v) and _contains(v, r, MP.mpf(10) ** -18), (v, r)


@pytest.mark.slow
@pytest.mark.parametrize("sigma, q, eps", [(Q_(3, 10), Q_(9, 10), 50), (Q_(1, 2), Q_(1, 2), 50),
                                           (2, Q_(1, 100), 10), (50, Q_(1, 10**5), 0)])
def test_sgd_two_step_delta_tiny(sigma, q, eps):
    """delta down to 1e-164 (rescaled quadrature)."""
    f = ta.noisy_sgd(sigma, p=q, steps=2)
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, eps, dps=15)
    with MP.workdps(40):
        r = R2.sg_profile(1 / _mpq(sigma), _mpq(q), 2, _mpq(eps), True, 25)
    assert _certified(v) and _contains(v, r, MP.mpf(10) ** -18), (v, r)


def test_sgd_delta_below_the_least_float_warns():
    """sigma = 50, q = 1e-5, eps = 1: delta ~ 1e-78892, answered [0, 5e-324] with a warning."""
    f = ta.noisy_sgd(50, p=Q_(1, 10**5), steps=1)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        v = ta.delta(f, 1, dps=15)
    assert v.lo == 0 and v.hi > 0 and v.guarantee == "certified"
    assert any(issubclass(w.category, ta.ToleranceWarning) for w in ws)


@pytest.mark.parametrize("sigma, q, D", [(Q_(1, 2), Q_(1, 2), Q_(1, 10**6)),
                                         (Q_(3, 10), Q_(9, 10), Q_(1, 10**40)),
                                         (2, Q_(1, 100), Q_(1, 10**10))])
def test_sgd_one_step_epsilon(sigma, q, D):
    """eps(D) is certified iff delta_ref(lo) >= D >= delta_ref(hi)."""
    f = ta.noisy_sgd(sigma, p=q, steps=1)
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, D, dps=15)
    assert _certified(v)
    lo, hi = v.interval()
    with MP.workdps(50):
        mu, qm = 1 / _mpq(sigma), _mpq(q)
        assert R2.sg_profile(mu, qm, 1, lo, True, 30) >= _mpq(D) * (1 - MP.mpf(10) ** -25)
        assert R2.sg_profile(mu, qm, 1, hi, True, 30) <= _mpq(D) * (1 + MP.mpf(10) ** -25)


@pytest.mark.parametrize("alpha", [Q_(1, 10**12), Q_(1, 100), Q_(1, 2), 1 - Q_(1, 10**9)])
def test_sgd_one_step_roc_is_below_every_support_line(alpha):
    """roc(alpha) of the add/remove hull = min_eps delta_sym(eps) + e^eps alpha: the certified
    lower end lies below every such line (a golden-section search) and the upper end above the
    search's minimum up to its convergence."""
    f = ta.noisy_sgd(Q_(7, 10), p=Q_(1, 5), steps=1)
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, alpha, dps=15)
    assert _certified(v)
    with MP.workdps(40):
        al = _mpq(alpha)
        mu, q = 1 / MP.mpf(0.7), MP.mpf(1) / 5
        mu = MP.mpf(10) / 7

        def h(e):
            return R2.sg_profile(mu, q, 1, e, True, 25) + MP.exp(e) * al
        a, b = MP.mpf(-40), MP.mpf(40)
        g = (MP.sqrt(5) - 1) / 2
        for _ in range(90):
            c, d = b - g * (b - a), a + g * (b - a)
            if h(c) > h(d):
                a = c
            else:
                b = d
        up = h((a + b) / 2)
        lo, hi = v.interval()
        assert lo <= up * (1 + MP.mpf(10) ** -20)
        assert hi >= up * (1 - MP.mpf(10) ** -12)


def test_sgd_tighter_tolerance_is_not_wider():
    f = ta.noisy_sgd(Q_(3, 10), p=Q_(9, 10), steps=2)
    widths = []
    for tol in (1e-3, 1e-6, 1e-9):
        with ta.pld_options(tol=tol):
            v = ta.delta(f, 1, dps=15)
        widths.append(v.hi - v.lo)
    assert widths[2] <= widths[1] <= widths[0]


@pytest.mark.parametrize("call, name", [
    (lambda: ta.noisy_sgd(1, p=Q_(3, 2), steps=2), "p"),
    (lambda: ta.noisy_sgd(-1, p=Q_(1, 2), steps=2), "sigma"),
    (lambda: ta.noisy_sgd(1, p=Q_(1, 2), steps=0), "steps"),
    (lambda: ta.roc(ta.noisy_sgd(1, p=Q_(1, 2), steps=2), Q_(3, 2)), "alpha"),
    (lambda: ta.delta(ta.noisy_sgd(1, p=Q_(1, 2), steps=2), float("nan")), "eps"),
    (lambda: ta.Laplace(-1), "mu"),
    (lambda: ta.Skellam(1, 0), "mu"),
    (lambda: ta.RDP.of(ta.Laplace(1), [Q_(1, 2)], dps=10), "orders")])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ta.TradeOffError, match=name):
        call()


# ---------------------------------------------------------------------------------------------
# Laplace powers and G (x) Laplace: roc at thresholds of the loss and at its atoms
# ---------------------------------------------------------------------------------------------

LAPLACE = [  # (mu, n, threshold t as a multiple of mu, strict): atoms at (2a - n) mu
    (Fraction(1, 2), 5, Fraction(1), True), (Fraction(1, 2), 5, Fraction(1), False),
    (Fraction(1, 2), 5, Fraction(13, 10), True), (Fraction(5), 3, Fraction(3), False),
    (Fraction(5), 3, -Fraction(29, 10), True),
    pytest.param(Fraction(1, 20), 8, Fraction(0), False, marks=pytest.mark.slow),
    (Fraction(2), 6, Fraction(59, 10), True),
    pytest.param(Fraction(1), 12, Fraction(-4), False, marks=pytest.mark.slow)]


@pytest.mark.parametrize("mu, n, tm, strict", LAPLACE)
def test_laplace_power_roc_at_thresholds(mu, n, tm, strict):
    L = R2.LaplacePower(mu, n, 40)
    with MP.workdps(L.wd):
        t = _mpq(tm) * _mpq(mu)
        al, pw = L.np_point(t, strict)
    alpha = Fraction(MP.nstr(al, 40, strip_zeros=False, min_fixed=-1000, max_fixed=1000))
    f = ta.Laplace(Q_(mu.numerator, mu.denominator)) ** n
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, Q_(alpha.numerator, alpha.denominator), dps=15)
    with MP.workdps(60):
        err = abs(_mpq(alpha) - al) * MP.exp(t) + MP.mpf(10) ** -35
        assert _certified(v) and _contains(v, pw, 0, err), (v, pw)


@pytest.mark.parametrize("mu, n, eps", [(Fraction(1, 4), 8, Fraction(3, 2)),
                                        (Fraction(7, 3), 8, Fraction(12)),
                                        pytest.param(Fraction(1, 20), 20, Fraction(1, 4),
                                                     marks=pytest.mark.slow),
                                        (Fraction(5), 2, Fraction(9))])
def test_laplace_power_delta(mu, n, eps):
    L = R2.LaplacePower(mu, n, 40)
    r = L.delta(_mpq(eps))
    with ta.pld_options(tol=1e-9):
        v = ta.delta(ta.Laplace(Q_(mu.numerator, mu.denominator)) ** n,
                     Q_(eps.numerator, eps.denominator), dps=15)
    assert _certified(v) and _contains(v, r), (v, r)


@pytest.mark.parametrize("nu, mu, t", [(Fraction(1), Fraction(1), Fraction(1, 2)),
                                       (Fraction(1, 10), Fraction(5), Fraction(-3)),
                                       (Fraction(2), Fraction(1, 4), Fraction(4))])
def test_gauss_laplace_roc(nu, mu, t):
    with MP.workdps(45):
        al = R2.gauss_laplace_tail(_mpq(nu), _mpq(mu), "P", _mpq(t))
        pw = R2.gauss_laplace_tail(_mpq(nu), _mpq(mu), "Q", _mpq(t))
    alpha = Fraction(MP.nstr(al, 35, strip_zeros=False, min_fixed=-1000, max_fixed=1000))
    f = ta.Tensor(ta.G(Q_(nu.numerator, nu.denominator)), ta.Laplace(Q_(mu.numerator,
                                                                       mu.denominator)))
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, Q_(alpha.numerator, alpha.denominator), dps=15)
    with MP.workdps(45):
        err = abs(_mpq(alpha) - al) * MP.exp(_mpq(t)) + MP.mpf(10) ** -28
        assert _certified(v) and _contains(v, pw, 0, err), (v, pw)


# ---------------------------------------------------------------------------------------------
# Max
# ---------------------------------------------------------------------------------------------

def _max_cases():
    with MP.workdps(40):
        ed = R2.epsdelta_pair(1, MP.mpf(1) / 100)
        P2, Q2 = R2.finite_product([ed, ed])
        return [
            ("G1-L1", ta.Max(ta.G(1), ta.Laplace(1)), [R2.f_gauss_c(1), R2.f_laplace(1)]),
            ("G2-L3", ta.Max(ta.G(2), ta.Laplace(3)), [R2.f_gauss_c(2), R2.f_laplace(3)]),
            ("GG-ED", ta.Max(ta.Tensor(ta.G(1), ta.G(2)), ta.EpsDelta(2, Q_(1, 10**5))),
             [R2.f_gauss_c(MP.sqrt(5)), R2.f_epsdelta(2, MP.mpf(1) / 10**5)]),
            ("ED2-fin", ta.Max(ta.EpsDelta(1, Q_(1, 100)) ** 2,
                               ta.Discrete([Q_(1, 2), Q_(1, 3), Q_(1, 6)],
                                           [Q_(1, 6), Q_(1, 3), Q_(1, 2)])),
             [R2.f_finite(P2, Q2), R2.f_finite([MP.mpf(1) / 2, MP.mpf(1) / 3, MP.mpf(1) / 6],
                                               [MP.mpf(1) / 6, MP.mpf(1) / 3, MP.mpf(1) / 2])])]


MAX_CASES = _max_cases()


def _honest(v: ta.Value) -> bool:
    """An estimate is allowed; it must not call itself certified."""
    return v.guarantee != "estimate" or "certified" not in (v.route or "").lower() \
        or "estimate" in (v.route or "").lower()


@pytest.mark.slow  # (the reference's golden-section search: 5-20 s each on a loaded machine)
@pytest.mark.parametrize("k", range(len(MAX_CASES)))
@pytest.mark.parametrize("eps", [0, 1, Q_(5, 2)])
def test_max_delta(k, eps):
    _, f, fs = MAX_CASES[k]
    v = ta.delta(f, eps, dps=15)
    assert _honest(v)
    if not _certified(v):
        return
    with MP.workdps(40):
        r = R2.max_delta(fs, MP.mpf(sp.Rational(eps).p) / sp.Rational(eps).q)
    assert _contains(v, r, 0, MP.mpf(10) ** -25), (v, r)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(MAX_CASES)))
def test_max_epsilon(k):
    _, f, fs = MAX_CASES[k]
    D = Q_(1, 1000)
    v = ta.epsilon(f, D, dps=15)
    assert _honest(v)
    if not _certified(v):
        return
    lo, hi = v.interval()
    with MP.workdps(40):
        if lo > 0:
            assert R2.max_delta(fs, lo) >= _mpq(Fraction(1, 1000)) - MP.mpf(10) ** -25
        assert R2.max_delta(fs, hi) <= _mpq(Fraction(1, 1000)) + MP.mpf(10) ** -25


# ---------------------------------------------------------------------------------------------
# Renyi orders
# ---------------------------------------------------------------------------------------------

def _ball(v):
    if isinstance(v, fmpq):
        x = MP.mpf(int(v.p)) / int(v.q)
        return x, x
    lo = MP.mpf(v.lower().str(60, radius=False)) * (1 - MP.mpf(10) ** -55)
    hi = MP.mpf(v.upper().str(60, radius=False)) * (1 + MP.mpf(10) ** -55)
    return lo, hi


ORDERS = [Fraction(10**6 + 1, 10**6), Fraction(10**12 + 1, 10**12), Fraction(3, 2),
          Fraction(17, 3), Fraction(2), Fraction(10**4), Fraction(12345, 7)]


@pytest.mark.parametrize("mu", [Fraction(1, 20), Fraction(1), Fraction(7, 3), Fraction(50)])
def test_renyi_orders_laplace(mu):
    vals = ro.renyi_orders(ta.Laplace(Q_(mu.numerator, mu.denominator)),
                           [fmpq(a.numerator, a.denominator) for a in ORDERS], 20)
    with MP.workdps(80):
        for a, v in zip(ORDERS, vals, strict=True):
            assert v is not None
            lo, hi = _ball(v)
            t = R2.renyi_laplace(_mpq(mu), _mpq(a))
            assert lo <= t <= hi, (a, v, t)


@pytest.mark.parametrize("d, s2", [(1, Fraction(1, 2)), (2, Fraction(25, 3)), (3, Fraction(100))])
def test_renyi_orders_discrete_gaussian(d, s2):
    """Integer orders (answered exactly) and fractional ones (answered or declined)."""
    orders = [Fraction(2), Fraction(7), Fraction(10**4), Fraction(3, 2), Fraction(10**6 + 1, 10**6)]
    f = ta.DiscreteGaussian(d, sp.sqrt(Q_(s2.numerator, s2.denominator)))
    vals = ro.renyi_orders(f, [fmpq(a.numerator, a.denominator) for a in orders], 20)
    with MP.workdps(60):
        for a, v in zip(orders, vals, strict=True):
            if v is None:
                continue
            lo, hi = _ball(v)
            # integer orders: (1 - a) d is an integer, the theta ratio is 1
            t = _mpq(a * d * d / (2 * s2)) if a.denominator == 1 else \
                R2.renyi_dgauss(d, _mpq(s2), _mpq(a))
            assert lo <= t * (1 + MP.mpf(10) ** -40) and t <= hi * (1 + MP.mpf(10) ** -40), \
                (a, v, t)


def test_renyi_orders_gauss_exact():
    vals = ro.renyi_orders(ta.G(Q_(7, 3)), [fmpq(10**4), fmpq(10**12 + 1, 10**12), fmpq(3, 2)],
                           20)
    assert vals == [fmpq(49 * 10**4, 18), fmpq(49 * (10**12 + 1), 18 * 10**12), fmpq(49 * 3, 36)]


def test_rdp_of_respects_the_time_limit():
    """150 fractional orders of a discrete Gaussian (each ~30 ms by the general route) under a
    limit of 0.05 s stop with TimeLimitExceeded (they ran to the end, ~1 s, before the orders'
    loop checked the deadline)."""
    f = ta.DiscreteGaussian(1, sp.sqrt(Q_(25, 3)))
    ta.RDP.of(f, [Q_(8, 7)], dps=30)  # (the first call's imports)
    with pytest.raises(ta.TimeLimitExceeded), ta.time_limit(0.05):
        ta.RDP.of(f, [Q_(k, 7) for k in range(9, 159)], dps=30)


# ---------------------------------------------------------------------------------------------
# BinomialDP next to randomized response; Skellam powers
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("e0, n, m, eps", [pytest.param(Fraction(1, 10), 300, 50, Fraction(16),
                                                        marks=pytest.mark.slow),
                                           (Fraction(1, 2), 40, 3, Fraction(5, 2)),
                                           (Fraction(3, 7), 1500, 0, Fraction(60))])
def test_binomial_next_to_rr5(e0, n, m, eps):
    parts = [ta.BinomialDP(Q_(e0.numerator, e0.denominator), n)]
    if m:
        parts.append(ta.randomized_response(sp.log(3), 5) ** m)
    f = parts[0] if len(parts) == 1 else ta.Tensor(*parts)
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, Q_(eps.numerator, eps.denominator), dps=15)
    with MP.workdps(40):
        l1 = R2.binomial_law(_mpq(e0), n)
        l2 = R2.rr_law(MP.log(3), 5, m) if m else [(MP.zero, MP.one)]
        cut = MP.mpf(10) ** -45
        r = R2.product_delta([x for x in l1 if x[1] > cut], [x for x in l2 if x[1] > cut],
                             _mpq(eps))
    assert _certified(v) and _contains(v, r, MP.mpf(10) ** -25, MP.mpf(10) ** -40), (v, r)


@pytest.mark.parametrize("d, mu, eps", [(1, Fraction(5), Fraction(1, 2)),
                                        (2, Fraction(7, 2), Fraction(3, 2))])
def test_skellam_square_exact(d, mu, eps):
    with ta.pld_options(tol=1e-9):
        v = ta.delta(ta.Skellam(d, Q_(mu.numerator, mu.denominator)) ** 2,
                     Q_(eps.numerator, eps.denominator), dps=12)
    with MP.workdps(50):
        r, miss = R2.skellam_power_exact(d, _mpq(mu), 2, _mpq(eps))
    assert _certified(v) and _contains(v, r, 0, miss + MP.mpf(10) ** -30), (v, r)


@pytest.mark.slow
@pytest.mark.parametrize("k, eps", [(20, Fraction(3, 2)), (100, Fraction(6)),
                                    (1000, Fraction(35))])
def test_skellam_power_rounded_bracket(k, eps):
    with ta.pld_options(tol=1e-5):
        v = ta.delta(ta.Skellam(1, 5) ** k, Q_(eps.numerator, eps.denominator), dps=10)
    with MP.workdps(30):
        atoms, _ = R2.skellam_atoms(1, 5, cut=25)
    lo, hi = R2.rounded_bracket([(float(a), float(b)) for a, b in atoms if b > 1e-24], k,
                                float(eps), min(1e-4, 2e-3 / k))
    assert _certified(v)
    a, b = v.interval()
    assert float(a) <= hi + 1e-12 and lo - 1e-12 <= float(b), (v, lo, hi)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
