"""Whole certified curves of few Laplace factors from one set of loss tails
(numeric/cf_lattice_curve.py, routes/tail_laws.lattice_curve, numeric/cf_lattice_tails.py),
against independent references: the Irwin-Hall quadrature of tests/references/laplace_sum.py at
levels on both branches and inside the atoms' jumps (the randomised tests, power linear in the
level there); the profile band (routes/profile_curve.py), a second certified route (the two
must intersect); the exact part's suffix sums against a direct sum over every lattice point in
mpmath at 40 digits."""

import math

import numpy as np
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric.cf_lattice import ExactPart
from tradeoff_algebra.numeric.cf_lattice_tails import ExactTails
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.product import route
from tradeoff_algebra.routes.profile_curve import ProfileBandRoute
from tradeoff_algebra.routes.tail_laws import lattice_curve

R = sp.Rational


def _tails(mu, n, t):
    from references.laplace_sum import tails

    return tails(mp.mpf(mu.p) / mu.q, n, mp.mpf(t))


def _level_and_power(mu, n, t, frac=None):
    """A float level and the power there at 30 digits: at a threshold t off the atoms the level
    P(S > t) rounded to a float and the power Q(S > t) moved along the slope e^t (the error is
    second order: about 1e-33); at an atom t (``frac``) the level P(S > t) + frac P(S = t)
    inside its jump, where the power is linear: Q(S > t) + Q(S = t) (alpha - P(S > t)) / P(S = t)
    (the randomised test)."""
    with mp.workdps(30):
        q_gt, p_gt, q_eq, p_eq = _tails(mu, n, t)
        if frac is None:
            assert q_eq == p_eq == 0
            a = float(p_gt)
            return a, q_gt + mp.exp(mp.mpf(t)) * (mp.mpf(a) - p_gt)
        assert p_eq > 0
        a = float(p_gt + frac * p_eq)
        return a, q_gt + q_eq * (mp.mpf(a) - p_gt) / p_eq


@pytest.mark.parametrize("mu,n,cases", [
    (R(1), 2, [("1.3", None), ("0.4", None), ("-0.6", None), ("2", 0.5), ("0", 0.25),
               ("-2", 0.7)]),
    (R(1, 2), 3, [("0.7", None), ("-0.2", None), ("0.5", 1 / 3), ("-0.5", 0.6), ("1.5", 0.1)]),
])
def test_curve_of_few_laplace_factors_against_quadrature(mu, n, cases):
    f = ta.TensorPower(ta.Laplace(mu), n)
    pairs = [_level_and_power(mu, n, t, frac) for t, frac in cases]
    x = np.array([0.0] + [a for a, _ in pairs] + [1.0])
    tol = 1e-9
    band = lattice_curve(f, x, tol)
    assert band is not None
    assert band.f_lo[0] == band.f_hi[0] == 1 and band.f_lo[-1] == band.f_hi[-1] == 0
    with mp.workdps(30):
        for i, (_, ref) in enumerate(pairs, start=1):
            lo, hi = mp.mpf(band.power_lo[i]), mp.mpf(band.power_hi[i])
            assert lo <= ref <= hi, (i, lo, ref, hi)
            assert hi - lo <= tol * hi
            assert mp.mpf(band.f_lo[i]) <= 1 - ref <= mp.mpf(band.f_hi[i])
    # the public call takes this route: bounds, no estimate
    with ta.pld_options(tol=tol):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            flo, fhi = ta.curve(f, x, bounds=True)
    assert np.all(flo <= 1 - band.power_lo + 1e-15) and np.all(fhi >= 1 - band.power_hi - 1e-15)


@pytest.mark.parametrize("mu,n", [(R(1), 3), pytest.param(R(1, 2), 10, marks=pytest.mark.slow)])
def test_curve_meets_the_profile_band(mu, n):
    # a second certified route: the two enclosures must intersect
    f = ta.TensorPower(ta.Laplace(mu), n)
    x = np.array([0.01, 0.2, 0.7])
    band = lattice_curve(f, x, 1e-9)
    assert np.all(band.power_hi - band.power_lo <= 1e-9 * band.power_hi)
    with ta.pld_options(tol=1e-6), mp.workdps(30):
        for i in (0, 1) if n < 10 else (1,):  # (the profile band: about a second a level)
            a = mp.mpf(x[i])
            lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
            assert max(lo, band.power_lo[i]) <= min(hi, band.power_hi[i])


@pytest.mark.slow
def test_curve_of_a_hundred_laplace_factors_is_certified_and_meets_its_roc():
    # 101 levels at tol 1e-6 from one plan (the profile band gave estimates here), against the
    # profile band's roc at 0.01 (a second route)
    f = ta.TensorPower(ta.Laplace(R(1, 10)), 100)
    x = np.linspace(0, 1, 101)
    band = lattice_curve(f, x, 1e-6)
    assert band is not None
    inner = (x > 0) & (x < 1)
    rel = (band.power_hi - band.power_lo)[inner] / band.power_hi[inner]
    assert rel.max() <= 1e-6
    assert np.all(np.diff(band.power_lo[inner]) > 0)  # (the power increases)
    with ta.pld_options(tol=1e-6), mp.workdps(30):
        a = mp.mpf(1) / 100
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    assert max(lo, band.power_lo[1]) <= min(hi, band.power_hi[1])


@pytest.mark.slow
def test_curve_of_a_hundred_laplace_factors_meets_tol_1e_9():
    """At 1e-9 the points' own balls were wider than the tolerance at 38 levels (the band
    stayed at 1.6e-9 with a ToleranceWarning): one tighter plan where they are
    (``cf_lattice_curve._tighter``) brings every level within it; the power at 0.01 meets the
    profile band's roc (a second route: the privacy profile by the Laplace inversion)."""
    import warnings

    f = ta.TensorPower(ta.Laplace(R(1, 10)), 100)
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        band = lattice_curve(f, x, 1e-9)
    inner = (x > 0) & (x < 1)
    assert ((band.power_hi - band.power_lo)[inner] / band.power_hi[inner]).max() <= 1e-9
    with ta.pld_options(tol=1e-6), mp.workdps(30):
        a = mp.mpf(1) / 100
        lo, hi = ProfileBandRoute().enclose(f, route(f), "roc", a, 1 - a)
    assert max(lo, band.power_lo[1]) <= min(hi, band.power_hi[1])


def _mp(x: arb):
    """The exact mpf of an exact arb (a ball's end)."""
    man, exp = x.man_exp()
    return mp.mpf((int(man), int(exp)))


def _direct_exact(mu, k, J, eps):
    """(A(L > eps), e^eps B(L > eps)) of the terms with fewer than J density components, every
    lattice point summed in mpmath (the Irwin-Hall pieces by quadrature of their densities)."""
    m_ = mp.mpf(mu.p) / mu.q
    pp, pm, kappa = mp.mpf(1) / 2, mp.exp(-m_) / 2, mp.exp(-m_ / 2) / 4
    e = mp.mpf(eps)
    pa = pb = mp.zero
    for j in range(min(J, k + 1)):
        n = k - j
        for m in range(n + 1):
            c = m_ * (2 * m - n)
            w = mp.binomial(k, j) * kappa**j * mp.binomial(n, m) * pp**m * pm ** (n - m)
            if j == 0:
                if c > e:
                    pa += w
                    pb += w * mp.exp(e - c)
                continue
            lo = max(e - c, -j * m_)
            if lo >= j * m_:
                continue

            def v(s, j=j):  # the j-fold convolution of the indicator of (-mu, mu)
                y = (s + j * m_) / (2 * m_)
                tot = sum((-1) ** i * mp.binomial(j, i) * (y - i) ** (j - 1)
                          for i in range(j + 1) if y > i)
                return tot / mp.factorial(j - 1) * (2 * m_) ** (j - 1)

            pts = [lo] + [-j * m_ + 2 * i * m_ for i in range(j + 1) if -j * m_ + 2 * i * m_ > lo]
            pa += w * mp.quad(lambda s, v=v: v(s) * mp.exp(s / 2), pts)
            pb += w * mp.exp(e - c) * mp.quad(lambda s, v=v: v(s) * mp.exp(-s / 2), pts)
    return pa, pb


@pytest.mark.parametrize("mu,k,J,eps", [(R(1, 10), 20, 3, 0.45), (R(1, 10), 20, 3, 1.23),
                                        (R(1, 2), 6, 4, 1.3), (R(1, 2), 6, 4, 0.0),
                                        (R(1, 10), 20, 3, 0.3)])
def test_exact_part_suffix_sums_against_a_direct_sum(mu, k, J, eps):
    et = ExactTails(ExactPart(LaplaceLaw(mu), k, J))
    with working_precision(200), mp.workprec(256):
        pa, pb = et.tails(eps)
        ends = [(_mp(b.lower()), _mp(b.upper())) for b in (pa, pb)]
    with mp.workdps(40):
        ra, rb = _direct_exact(mu, k, J, eps)
        for (lo, hi), ref in zip(ends, (ra, rb), strict=True):
            slack = mp.mpf(10) ** -35
            assert lo - slack <= ref <= hi + slack, (lo, ref, hi)
            assert hi - lo <= 1e-40 + 1e-30 * abs(ref)
    # the float estimate for placement (and its density, a finite difference)
    fa, fb, d = et.estimate(np.array([eps, eps + 1e-7]))
    assert math.isclose(fa[0], float(ra), rel_tol=1e-9, abs_tol=1e-15)
    assert math.isclose(fb[0], float(rb), rel_tol=1e-9, abs_tol=1e-15)
    if eps > 0:
        assert math.isclose(d[0], (fa[0] - fa[1]) / 1e-7, rel_tol=1e-3, abs_tol=1e-9)


# -- Laplace factors of different scales (numeric/cf_mixed_tails.py) ----------------------------
def _mixed_level_and_power(mus, t, atom_frac=None, atom_mass=None):
    """As :func:`_level_and_power` for the product of Laplace(mu_i), from the nested quadrature
    of tests/references/laplace_mixed.py (20 digits); at an atom t its masses (P, Q) are
    given."""
    from references.laplace_mixed import tail

    with mp.workdps(20):
        ms = [mp.mpf(m.p) / m.q for m in mus]
        q_gt, p_gt = tail(ms, True, mp.mpf(t)), tail(ms, False, mp.mpf(t))
        if atom_frac is None:
            a = float(p_gt)
            return a, q_gt + mp.exp(mp.mpf(t)) * (mp.mpf(a) - p_gt)
        p_eq, q_eq = atom_mass
        a = float(p_gt + atom_frac * p_eq)
        return a, q_gt + q_eq * (mp.mpf(a) - p_gt) / p_eq


def _check_mixed(f, pairs, tol=1e-9):
    from tradeoff_algebra.routes.tail_laws import mixed_curve

    x = np.array([a for a, _ in pairs])
    band = mixed_curve(f, x, tol)
    assert band is not None
    with mp.workdps(20):
        for i, (_, ref) in enumerate(pairs):
            lo, hi = mp.mpf(band.power_lo[i]), mp.mpf(band.power_hi[i])
            slack = mp.mpf(10) ** -17  # (the reference's 20 digits)
            assert lo - slack <= ref <= hi + slack, (i, lo, ref, hi)
            assert hi - lo <= tol * hi


def test_two_laplace_scales_against_quadrature():
    mus = [R(1), R(1, 2)]
    f = ta.Tensor(ta.Laplace(mus[0]), ta.Laplace(mus[1]))
    e1, e2 = mp.exp(-1) / 2, mp.exp(-mp.mpf(1) / 2) / 2  # (P-masses of the atoms at +mu)
    pairs = [_mixed_level_and_power(mus, t) for t in ("0.9", "0.2", "-0.7", "1.45")]
    # inside the jumps at the atoms 3/2 (both +) and 1/2 (+mu_1, -mu_2): randomised tests
    pairs.append(_mixed_level_and_power(mus, mp.mpf(3) / 2, 0.4, (e1 * e2, mp.mpf(1) / 4)))
    pairs.append(_mixed_level_and_power(mus, mp.mpf(1) / 2, 0.5, (e1 / 2, mp.exp(-mp.mpf(1) / 2)
                                                                  / 4)))
    _check_mixed(f, pairs)
    # roc through the public call: this route, certified
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, R(1, 100))
    from tradeoff_algebra.routes.tail_laws import MIXED_ROUTE

    assert v.guarantee == "certified" and v.route == MIXED_ROUTE
    assert v.hi - v.lo <= 1e-9 * v.hi
    with ta.pld_options(tol=1e-9):  # f itself: 1 - the power, both certified
        w = ta.evaluate(f, R(1, 100))
    assert w.guarantee == "certified" and w.route == MIXED_ROUTE
    with mp.workdps(30):
        assert max(w.lo, 1 - v.hi) <= min(w.hi, 1 - v.lo)


@pytest.mark.slow
def test_three_laplace_scales_against_quadrature():
    mus = [R(1), R(1, 2), R(1, 3)]
    f = ta.Tensor(*(ta.Laplace(m) for m in mus))
    pairs = [_mixed_level_and_power(mus, t) for t in ("1.7", "0.3", "-1.1")]
    with mp.workdps(20):  # inside the jump at the largest loss 11/6 (every factor at +mu):
        p_eq = mp.exp(-mp.mpf(11) / 6) / 8  # nothing lies above it, the power is linear
        a = float(p_eq * 3 / 10)
        pairs.append((a, mp.mpf(a) / p_eq / 8))
    _check_mixed(f, pairs)


def test_curve_keeps_the_time_limit():
    # the routes re-raise the limit (TimeLimitExceeded is an ArithmeticError: never taken for a
    # declined route, after which the next route would start)
    f = ta.TensorPower(ta.Laplace(R(1, 10)), 100)
    x = np.linspace(0, 1, 101)
    with ta.pld_options(tol=1e-6), ta.time_limit(0.05), pytest.raises(ta.TimeLimitExceeded):
        ta.curve(f, x, bounds=True)
    from tradeoff_algebra.numeric import budget

    with ta.time_limit(0.05), pytest.raises(ta.TimeLimitExceeded), budget.call("a curve"):
        lattice_curve(f, x, 1e-6)  # (not None: the route does not decline at the limit)


@pytest.mark.slow
def test_curve_of_far_apart_levels_with_a_remainder_against_quadrature():
    # levels near 0 and near 1 in one call (k = 14: a remainder is inverted): the remainder
    # planned for the least level places nothing near eps = 0, where the branches part; the
    # band plans again there (a regression: the level near 1 was put on the wrong branch)
    mu, n = R(1, 2), 14
    f = ta.TensorPower(ta.Laplace(mu), n)
    pairs = [_level_and_power(mu, n, t) for t in ("5.3", "-5.3")]
    x = np.array([a for a, _ in pairs])
    band = lattice_curve(f, x, 1e-8)
    with mp.workdps(30):
        for i, (_, ref) in enumerate(pairs):
            lo, hi = mp.mpf(band.power_lo[i]), mp.mpf(band.power_hi[i])
            assert lo <= ref <= hi, (i, lo, ref, hi)
            assert hi - lo <= 1e-8 * hi
            assert band.f_hi[i] - band.f_lo[i] <= 1e-8
