"""roc, values and curves of products of discrete Gaussians from one discrete Gaussian's tails
(``families.discrete_gaussian_np``), and the Euler-Maclaurin tail sums they read
(``discrete_gaussian_law.em_tail_sum``), each against an independent reference: the k-fold
convolution of the masses in Arb (python-flint alone), mpmath sums at 60 digits, and the exact
lattice product's tails (the integer product tree, the shortcut withheld)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, arb_poly, ctx

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.families.discrete_gaussian_law import em_tail_sum
from tradeoff_algebra.families.discrete_gaussian_np import ROUTE
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.lattice_np import power_ball
from tradeoff_algebra.numeric.lattice_np_plan import tails_for
from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor

R = sp.Rational


# -- the tail sums --------------------------------------------------------------------------
@pytest.mark.parametrize("sigma", [Fraction(8), Fraction(25, 2), Fraction(300)])
@pytest.mark.parametrize("m", [-50, 0, 1, 17, 40, 900])
def test_em_tail_sum_against_mpmath(sigma, m):
    """T(m) = sum_{x >= m} e^{-x^2/(2 sigma^2)} against an mpmath sum at 60 digits (terms to
    30 sigma past max(m, 0), where they are below 1e-190 of the sum)."""
    a, b = sigma.numerator, sigma.denominator
    with arb_precision(300):
        v = em_tail_sum(arb(b * b) / (2 * a * a), m, 200)
    if v is None:  # (far out, where the corrections do not converge: the direct sum answers)
        assert m > 3 * float(sigma) ** 2
        return
    with mpmath.workdps(60):
        hh = mpmath.mpf(b * b) / (2 * a * a)
        top = max(m, 0) + int(30 * float(sigma)) + 10
        ref = mpmath.fsum(mpmath.exp(-hh * x * x) for x in range(m, top))
        rb = arb(mpmath.nstr(ref, 55)) * (1 + arb(0, 1e-50))
    assert v.overlaps(rb)
    assert v.rad() < 1e-55 * abs(v.mid())


# -- an independent reference: the k-fold convolution of the masses in Arb --------------------
def reference_power(sigma2: Fraction, k: int, alpha: Fraction, prec: int = 320) -> arb:
    """1 - f(alpha) of DiscreteGaussian(1, sigma)^k (sigma^2 = ``sigma2``) from the masses of S =
    y_1 + ... + y_k under Q (y_i ~ N_Z(0, sigma^2), the loss (2 S + k)/(2 sigma^2)), convolved as
    one Arb polynomial power, and the Neyman-Pearson vertex around alpha (Dong, Roth & Su,
    Prop. 6); the masses beyond |y| = Y (below e^{-300} of each law) are left out and allowed
    for by a radius."""
    old = ctx.prec
    ctx.prec = prec
    try:
        s2 = arb(sigma2.numerator) / sigma2.denominator
        Y = int(26 * float(sigma2) ** 0.5) + 2
        w = [(-arb(y * y) / (2 * s2)).exp() for y in range(-Y, Y + 1)]
        theta = sum(w, arb(0))
        pk = arb_poly(w) ** k
        n = k * (2 * Y) + 1
        q = [pk[j] / theta**k for j in range(n)]  # Q(S = j - k Y)
        loss = [(2 * arb(j - k * Y) + k) / (2 * s2) for j in range(n)]
        p = [q[j] * (-loss[j]).exp() for j in range(n)]
        a = arb(alpha.numerator) / alpha.denominator
        Qt, Pt = arb(0), arb(0)  # Q(S > s), P(S > s) as s descends
        for j in range(n - 1, -1, -1):
            if Pt + p[j] >= a:  # P_{s+1} <= alpha <= P_s: the vertex s = j
                out = Qt + loss[j].exp() * (a - Pt)
                return out + arb(0, 1e-100)
            Qt += q[j]
            Pt += p[j]
        raise AssertionError("no vertex")
    finally:
        ctx.prec = old


CASES = [(5, 10), (10, 10), (10, 30), (Fraction(17, 2), 20)]
LEVELS = [Fraction(1, 10**6), Fraction(1, 100), Fraction(3, 10), Fraction(9, 10)]


@pytest.mark.parametrize("sigma,k", CASES)
@pytest.mark.parametrize("alpha", LEVELS)
def test_roc_and_value_against_convolution(sigma, k, alpha):
    sigma = Fraction(sigma)
    f = ta.TensorPower(ta.DiscreteGaussian(1, sp.Rational(sigma.numerator, sigma.denominator)), k)
    ref = reference_power(sigma * sigma, k, alpha)
    assert ref.rad() < 1e-40
    A = R(alpha.numerator, alpha.denominator)
    v = ta.roc(f, A, dps=30)
    assert ROUTE in v.route and v.guarantee == "certified"
    lo, hi = v.interval()
    with mp.workdps(60):
        r_lo = mp.mpf(ref.lower().str(50, radius=False))
        r_hi = mp.mpf(ref.upper().str(50, radius=False))
        assert lo <= r_hi * (1 + mp.mpf(10) ** -45) and r_lo * (1 - mp.mpf(10) ** -45) <= hi
    u = ta.evaluate(f, A, dps=30)
    assert ROUTE in u.route and u.guarantee == "certified"
    lo, hi = u.interval()
    with mp.workdps(60):
        one = 1 - ref
        o_lo = mp.mpf(one.lower().str(50, radius=False))
        o_hi = mp.mpf(one.upper().str(50, radius=False))
        assert lo <= o_hi + mp.mpf(10) ** -45 and o_lo - mp.mpf(10) ** -45 <= hi


@pytest.mark.parametrize("sigma,k", [(10, 20), (25, 100)])
def test_tails_against_the_exact_lattice_product(sigma, k):
    """The one discrete Gaussian's tails against the integer product tree's (the shortcut
    withheld from a second product): the two power balls overlap at every level, and the new
    one is at least as narrow as asked."""
    leaf = lattice_factor(ta.DiscreteGaussian(1, sigma))
    fast = LatticeProduct.build([(leaf, k)])
    exact = LatticeProduct.build([(leaf, k)])
    exact.shortcut = lambda rel: None
    levels = [1e-9, 0.01, 0.25, 0.5, 0.75, 0.99]
    t_new = tails_for(fast, levels, 1e-25)
    t_old = tails_for(exact, levels, 1e-25)
    assert type(t_new).__name__ == "OneGaussianTails"
    assert type(t_old).__name__ == "TiltedTails"
    with arb_precision(t_new.prec + 64):
        for a in levels:
            A = Fraction(a)
            x = arb(A.numerator) / A.denominator
            n_lo, n_hi = power_ball(t_new, x, a)
            o_lo, o_hi = power_ball(t_old, x, a)
            assert n_lo <= o_hi and o_lo <= n_hi
            assert n_hi - n_lo <= 1e-24 * n_hi


def _fft_reference(sigma: float, k: int, alphas: np.ndarray) -> np.ndarray:
    """1 - f(alpha) of DiscreteGaussian(1, sigma)^k in float64: the k-th power of the masses'
    transform (``benchmarks/bench_targets``' discrete Gaussian reference), then the vertices."""
    Y = int(20 * sigma) + 2
    y = np.arange(-Y, Y + 1)
    w = np.exp(-y * y / (2 * sigma * sigma))
    w /= w.sum()
    n = 1 << int(np.ceil(np.log2(k * (2 * Y) + 1)))
    q = np.fft.irfft(np.fft.rfft(w, n) ** k, n)[: k * 2 * Y + 1].clip(0)
    s = np.arange(q.size) - k * Y
    loss = (2 * s + k) / (2 * sigma * sigma)
    p = q * np.exp(-loss)
    P = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])  # P(S >= s)
    Q = np.concatenate([np.cumsum(q[::-1])[::-1], [0.0]])
    out = []
    for a in alphas:
        j = int(np.searchsorted(-P, -a, side="right")) - 1  # the largest j with P_j >= a
        out.append(Q[j + 1] + np.exp(loss[j]) * (a - P[j + 1]))
    return np.array(out)


def test_curve_band_against_fft_reference():
    f = ta.TensorPower(ta.DiscreteGaussian(1, 10), 50)
    x = np.linspace(0, 1, 101)
    with ta.pld_options(tol=1e-9), warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    ref = 1 - _fft_reference(10.0, 50, x[1:-1])
    assert np.all(lo[1:-1] <= ref + 1e-12) and np.all(ref - 1e-12 <= hi[1:-1])
    assert np.all(hi[1:-1] - lo[1:-1] <= 1e-9 * hi[1:-1] + 1e-300)


def test_large_power_meets_tight_tolerance():
    """DiscreteGaussian(1, 100)^(10^6): roc at 1e-9 and the curve's band, certified, without a
    ToleranceWarning, from the one discrete Gaussian DiscreteGaussian(10^6, 10^5); the band at
    1e-9 no wider than at 5e-4 anywhere."""
    f = ta.TensorPower(ta.DiscreteGaussian(1, 100), 10**6)
    with ta.pld_options(tol=1e-9), warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        v = ta.roc(f, R(1, 100))
        lo9, hi9 = ta.curve(f, np.linspace(0, 1, 101), bounds=True)
    assert ROUTE in v.route and v.guarantee == "certified"
    one = ta.roc(ta.DiscreteGaussian(10**6, 10**5), R(1, 100))  # (F is within 2^-500 of 1)
    assert abs(v.mid - one.mid) <= 1e-12 * one.mid
    with ta.pld_options(tol=5e-4):
        lo4, hi4 = ta.curve(f, np.linspace(0, 1, 101), bounds=True)
    assert np.all(hi9 - lo9 <= hi4 - lo4 + 1e-300)
    assert np.all(lo4 <= hi9) and np.all(lo9 <= hi4)


# -- discrete Gaussians off a grid: the G_mu curve at alpha/N within a uniform bound ----------
CENSUS = ta.Tensor(*[ta.DiscreteGaussian(1, 10 + R(i, 10)) for i in range(1, 1001)])


def test_off_grid_power_against_the_profile():
    """The census product's roc at 1e-9 (``OffGridSum.power``) against its certified profile
    from the per-eps aliasing bound (``OffGridSum.delta``, another bound): 1 - f(alpha) <=
    delta(eps) + e^eps alpha at every eps (Dong, Roth & Su, Prop. 6), and the least right side
    over a grid of eps around the minimiser lies within 1e-3 of it (the grid's second-order
    gap)."""
    from tradeoff_algebra.families.discrete_gaussian_offgrid import POWER_ROUTE

    mu = mp.sqrt(sum(mp.mpf(1) / (10 + mp.mpf(i) / 10) ** 2 for i in range(1, 1001)))
    for alpha in (R(1, 100), R(1, 5)):
        with ta.pld_options(tol=1e-9):
            v = ta.roc(CENSUS, alpha)
        assert v.route == POWER_ROUTE and v.guarantee == "certified"
        lo, hi = v.interval()
        assert hi - lo <= 1e-9 * hi
        with mp.workdps(30):
            a = mp.mpf(alpha.p) / alpha.q
            e_star = mu * mp.sqrt(2) * mp.erfinv(1 - 2 * a) - mu * mu / 2  # Phi(-e/mu - mu/2) = a
        best = None
        for j in range(-3, 4):
            e = e_star + mp.mpf(j) / 100
            d = ta.delta(CENSUS, sp.Float(e, 30), dps=12)
            assert d.guarantee == "certified"
            with mp.workdps(30):
                up = d.interval()[1] + mp.exp(e) * a
            assert lo <= up
            best = up if best is None else min(best, up)
        assert best - hi <= 1e-3 * hi


def test_off_grid_curve_band():
    """The census product's band at 101 levels, at 1e-9 without a ToleranceWarning, no wider
    than at 5e-4, around G_mu's curve (mu^2 = sum 1/sigma_i^2: the product's power is N (1 -
    f_G(alpha/N)) within 1e-31, N within 1e-800 of 1; G_mu's by its own closed form)."""
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            lo9, hi9 = ta.curve(CENSUS, x, bounds=True)
        with ta.pld_options(tol=5e-4):
            lo4, hi4 = ta.curve(CENSUS, x, bounds=True)
    assert np.all(hi9 - lo9 <= 1e-9 * hi9 + 1e-300)
    assert np.all(hi9 - lo9 <= hi4 - lo4 + 1e-300)
    mu2 = sum(R(1) / (10 + R(i, 10)) ** 2 for i in range(1, 1001))
    g = ta.G(sp.sqrt(mu2))
    for i in (1, 10, 37, 50, 90, 99):
        q = Fraction(float(x[i]))  # (the float level exactly)
        ref = ta.evaluate(g, R(q.numerator, q.denominator), dps=30).mid
        assert lo9[i] - 1e-25 <= ref <= hi9[i] + 1e-25
