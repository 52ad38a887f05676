"""The Poisson-subsampled Laplace mechanism by the certified Laplace inversion: the Arb law of
Mix(L_mu, p)'s loss in both directions (families/laplace_sampled.py: its moment generating
function by 2F1, its decay bound, its float cumulants) and the routes that use it.

References, each independent of the code under test: the moment generating function
E_P[phi(L)^w] by mpmath quadrature of the Laplace loss law's atoms and density (no
hypergeometric function); the decay bound against that quadrature at many t beyond the bound's
t; the cumulants against finite differences of the quadrature; delta of a composed product
against a two-sided float sandwich computed here (the loss rounded up and down to a grid of
step h, the exact bin masses from the Laplace distribution functions, composed by FFT: the
rounded-down product's delta is below the truth and the rounded-up one's above); and eps(delta)
of the add/remove mechanism against the printed value of the ``privacy-loss distribution``
engine at a finer tolerance in the benchmark (benchmarks/RESULTS_laplace.md).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra import Laplace
from tradeoff_algebra.families.laplace_sampled import SubsampledLaplaceLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.operators.subsample import Mix
from tradeoff_algebra.operators.unary import Inverse

R = sp.Rational
CASES = [(Fraction(1), Fraction(1, 100)), (Fraction(1, 2), Fraction(1, 10)),
         (Fraction(3), Fraction(1, 2)), (Fraction(1, 100), Fraction(1, 3))]


def _g(mu, p, w):
    """E_P[phi(L)^w], phi(s) = 1 - p + p e^s, by quadrature of the Laplace loss law under
    P = Lap(0, 1) (atoms 1/2 at -mu, e^{-mu}/2 at mu, density e^{-(s + mu)/2}/4 between)."""
    phi = lambda s: 1 - p + p * mp.exp(s)  # noqa: E731
    dens = mp.quad(lambda s: phi(s) ** w * mp.exp(-(s + mu) / 2) / 4, [-mu, 0, mu])
    return phi(-mu) ** w / 2 + mp.exp(-mu) * phi(mu) ** w / 2 + dens


def _w(direction, z):
    return z + 1 if direction == "remove" else -z


def _mpf(x: Fraction):
    return mp.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize("mu,p", CASES)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_mgf_encloses_quadrature(mu, p, direction):
    law = SubsampledLaplaceLaw(mu, p, direction)
    with mp.workdps(30):
        for re_z, im_z in [(0, 0), (-1, 0), ("0.5", 0), (2, 7), (1, 150), ("0.25", 40)]:
            z = mp.mpc(mp.mpf(re_z), im_z)
            ref = _g(_mpf(mu), _mpf(p), _w(direction, z))
            with working_precision(100):
                ball = law.mgf(acb(arb(str(re_z)), arb(im_z)))
            mid = mp.mpc(ball.real.mid().str(30, radius=False),
                         ball.imag.mid().str(30, radius=False))
            rad = mp.mpf(ball.real.rad().str(5, radius=False)) + mp.mpf(
                ball.imag.rad().str(5, radius=False))
            assert abs(mid - ref) <= rad + mp.mpf("1e-24") * abs(ref)
            assert rad <= mp.mpf("1e-20") * max(abs(ref), 1)


@pytest.mark.parametrize("mu,p", CASES)
def test_both_directions_are_probability_measures(mu, p):
    """M(0) = 1 for the law under A, and M(-1) = 1 for the remove direction (the pair's other
    measure: E_A[e^{-L}] = 1 on the common support)."""
    with working_precision(80):
        for d in ("remove", "add"):
            assert SubsampledLaplaceLaw(mu, p, d).mgf(acb(0)).contains(1)
        assert SubsampledLaplaceLaw(mu, p, "remove").mgf(acb(-1)).contains(1)


@pytest.mark.parametrize("mu,p", CASES)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_decay_bound_holds_beyond_t(mu, p, direction):
    law = SubsampledLaplaceLaw(mu, p, direction)
    c = mp.mpf("1.3")
    with mp.workdps(20):
        for t in (0, 10, 100, 1000):
            with working_precision(64):
                b = mp.mpf(law.decay_bound(arb("1.3"), arb(t)).upper().str(20, radius=False))
            for tt in (t, 1.5 * t + 1, 3 * t + 2, 10 * t + 7):
                ref = abs(_g(_mpf(mu), _mpf(p), _w(direction, mp.mpc(c, tt))))
                assert ref <= b * (1 + mp.mpf("1e-15"))


@pytest.mark.parametrize("mu,p", CASES[:3])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_planning_cumulants_match_finite_differences(mu, p, direction):
    law = SubsampledLaplaceLaw(mu, p, direction)
    with mp.workdps(30):
        k = lambda c: mp.log(mp.re(_g(_mpf(mu), _mpf(p), _w(direction, c))))  # noqa: E731
        for c in (0.3, 2.0):
            k0, k1, k2 = law.cumulants(c)
            assert abs(k0 - k(c)) <= 1e-12 * (1 + abs(k0))
            assert abs(k1 - mp.diff(k, c)) <= 1e-9 * (1 + abs(k1))
            assert abs(k2 - mp.diff(k, c, 2)) <= 1e-7 * (1 + abs(k2))


def test_loss_sup_and_inverse():
    law = SubsampledLaplaceLaw(Fraction(1), Fraction(1, 100), "remove")
    with working_precision(64):
        sups = [float(law.loss_sup().mid()), float(law.inverse().loss_sup().mid())]
    with mp.workdps(30):
        refs = [mp.log1p(mp.expm1(1) / 100), -mp.log1p(mp.expm1(-1) / 100)]
    for s, r in zip(sups, refs, strict=True):
        assert abs(s - r) <= 1e-15 * abs(r)
    assert law.inverse().inverse() == law and law.inverse() != law


# -- a two-sided float sandwich of a composed delta ----------------------------------------------
def _sandwich(mu: float, p: float, k: int, eps: float, direction: str, h: float):
    """(lower, upper) of delta(eps) of the k-fold product of one direction, from its loss rounded
    down / up to the grid h Z (module docstring), composed by FFT."""
    em = math.exp(-mu)
    phi = lambda s: 1 - p + p * np.exp(s)  # noqa: E731
    if direction == "remove":  # under A = (1 - p) P + p Q, loss log phi(L)
        atoms = [(math.log(phi(-mu)), (1 - p) / 2 + p * em / 2),
                 (math.log(phi(mu)), (1 - p) * em / 2 + p / 2)]

        def cont_cdf(t):  # the density part's mass on (-mu, t], t in [-mu, mu]
            return ((1 - p) * (0.5 - np.exp(-(t + mu) / 2) / 2)
                    + p * (np.exp((t - mu) / 2) / 2 - em / 2))
        sign = 1.0
    else:  # under A = P, loss -log phi(L)
        atoms = [(-math.log(phi(-mu)), 0.5), (-math.log(phi(mu)), em / 2)]

        def cont_cdf(t):
            return 0.5 - np.exp(-(t + mu) / 2) / 2
        sign = -1.0
    lo_y = min(a for a, _ in atoms)
    hi_y = max(a for a, _ in atoms)
    j0, j1 = math.floor(lo_y / h) - 1, math.ceil(hi_y / h) + 1
    edges = np.arange(j0, j1 + 1) * h  # bins (edges[i], edges[i + 1]]
    inv = lambda y: np.clip(np.log((np.exp(sign * y) - 1 + p) / p), -mu, mu)  # noqa: E731
    m = cont_cdf(inv(edges))
    bins = np.abs(np.diff(m))  # the density's mass with loss in each bin
    up, dn = np.zeros(len(edges)), np.zeros(len(edges))
    up[1:] += bins
    dn[:-1] += bins
    for y, w in atoms:
        up[math.ceil(y / h) - j0] += w
        dn[math.floor(y / h) - j0] += w
    out = []
    for vec in (dn, up):
        n = k * (len(vec) - 1) + 1
        size = 1 << (n - 1).bit_length()
        comp = np.fft.irfft(np.fft.rfft(vec, size) ** k, size)[:n]
        ys = (k * j0 + np.arange(n)) * h
        out.append(float(np.sum(np.clip(comp, 0, None) * np.maximum(0.0, -np.expm1(eps - ys)))))
    return out[0], out[1]


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_a_composed_delta_lies_in_the_float_sandwich(direction):
    mu, p, k, eps = Fraction(1), Fraction(1, 100), 300, 0.25
    f = Mix(Laplace(1), R(1, 100)) ** k
    f = f if direction == "remove" else Inverse(f)
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, sp.Float(eps), dps=15)
    assert v.route == "certified Laplace inversion" and v.guarantee == "certified"
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    lo, hi = _sandwich(float(mu), float(p), k, eps, direction, 2e-6)
    assert lo * (1 - 1e-9) <= v.lo and v.hi <= hi * (1 + 1e-9)
    assert hi - lo <= 2e-2 * hi  # (the sandwich is informative: its gap is about k h c)


def test_the_mechanism_is_certified_and_tolerances_nest():
    """The add/remove mechanism, q = 0.01, b = 1, T = 1000 (before: [1.12, oo] from the PLD
    engine): certified, 1e-9 narrow; a tighter tolerance never gives a wider enclosure, and one
    beyond the inversion's floats warns and returns its best."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.route == "certified Laplace inversion" and 0 < v.hi - v.lo <= 1e-9 * v.hi
    with pytest.warns(ta.ToleranceWarning), ta.pld_options(tol=1e-20):
        w = ta.epsilon(f, R(1, 10**5), dps=20)
    assert v.lo <= w.lo <= w.hi <= v.hi
    # delta at the enclosure's ends brackets 1e-5 (delta is non-increasing)
    with ta.pld_options(tol=1e-6):
        assert ta.delta(f, sp.Float(v.lo, 20), dps=10).lo >= 1e-5 * (1 - 1e-6)
        assert ta.delta(f, sp.Float(v.hi, 20), dps=10).hi <= 1e-5 * (1 + 1e-6)


# -- few steps: the split by the number of density components -----------------------------------
def _one_step_delta(mu, p, direction, eps):
    """delta of one step by mpmath quadrature over x of (A(x) - e^eps B(x))_+ (the Laplace
    densities of the pair: A the mixture (remove) or P (add)), split at the kinks and at the
    crossing point."""
    P = lambda x: mp.exp(-abs(x)) / 2  # noqa: E731
    Q = lambda x: mp.exp(-abs(x - mu)) / 2  # noqa: E731
    mix = lambda x: (1 - p) * P(x) + p * Q(x)  # noqa: E731
    a, b = (mix, P) if direction == "remove" else (P, mix)
    f = lambda x: max(mp.zero, a(x) - mp.exp(eps) * b(x))  # noqa: E731
    # the loss is monotone on [0, mu] (constant outside): its crossing with eps splits it
    pts = [-mp.inf, 0, mu, mp.inf]
    y = (mp.exp(eps if direction == "remove" else -eps) - 1 + p) / p
    if y > 0:
        xc = (mp.log(y) + mu) / 2
        if 0 < xc < mu:
            pts = [-mp.inf, 0, xc, mu, mp.inf]
    return mp.quad(f, pts)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_is_summed_exactly(direction):
    """k = 1: the exact part alone (atoms and one density component in closed form) against
    quadrature of the densities, at eps inside the loss range and at its atoms' values."""
    mu, p = Fraction(1), Fraction(1, 100)
    law = SubsampledLaplaceLaw(mu, p, direction)
    _, extra = law.lattice_split(1)
    with working_precision(64):
        top = float(law.loss_sup().mid())
    for eps in (0.0, 0.3 * top, 0.9 * top, 0.999 * top):
        with working_precision(128):
            v = extra.terms(eps)[0]
        with mp.workdps(30):
            ref = _one_step_delta(_mpf(mu), _mpf(p), direction, mp.mpf(eps))
            mid, rad = mp.mpf(v.mid().str(30, radius=False)), mp.mpf(v.rad().str(5, radius=False))
            assert abs(mid - ref) <= rad + mp.mpf(10) ** -25 * ref, (eps, v, ref)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_remainder_is_the_rest_of_the_binomial_sum(direction):
    """R = M^k - A^k - k A^{k-1} D at real c (balls overlap; R > 0, a positive measure), and its
    decay and power bounds hold at several t."""
    law = SubsampledLaplaceLaw(Fraction(1), Fraction(1, 10), direction)
    rest, _ = law.lattice_split(4)
    with working_precision(128):
        for c in (0.5, 5.0):
            a, d = law._g_split(law._w(acb(c)))
            r = rest.mgf(acb(c))
            assert r.real > 0 and abs(r.imag) < 1e-30
            assert (r - (law.mgf(acb(c)) ** 4 - a**4 - 4 * a**3 * d)).real.contains(0)
            v, pw = rest.power_decay(arb(c))
            for t in (1.0, 30.0, 300.0):
                m = abs(rest.mgf(acb(c, t)))
                assert m <= rest.decay_bound(arb(c), arb(t)) and m <= v / arb(t) ** pw


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_few_steps_are_finite_and_in_the_float_sandwich(k, direction):
    """A few steps (before: [x, oo] from the PLD engine): delta certified and finite, meeting the
    two-sided float sandwich (which brackets the truth up to its float errors)."""
    mu, p = Fraction(1), Fraction(1, 100)
    f = Mix(Laplace(1), R(1, 100)) ** k
    f = f if direction == "remove" else Inverse(f)
    with working_precision(64):
        top = k * float(SubsampledLaplaceLaw(mu, p, direction).loss_sup().mid())
    eps = 0.9 * top
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        v = ta.delta(f, sp.Float(eps, 20), dps=15)
    assert v.guarantee == "certified" and 0 < v.lo <= v.hi < 1
    lo, hi = _sandwich(float(mu), float(p), k, eps, direction, 1e-6)
    assert v.lo <= hi * (1 + 1e-9) and lo * (1 - 1e-9) <= v.hi


def test_few_steps_of_the_mechanism_are_narrow_and_nest():
    """eps of the add/remove mechanism at T = 3 (before: [0.04964466684496, 0.04964567485177],
    2e-5 wide, with a ToleranceWarning): certified to 1e-9 without a warning (the j <= 2
    density components summed exactly, the rest inverted), inside that enclosure and meeting
    dp_accounting's sandwich [0.04962475884427, 0.04964519873343] (grid 1e-5,
    benchmarks/RESULTS_laplace.md); a looser tolerance never gives a narrower enclosure, a
    tighter one (1e-20, beyond the inversion: ToleranceWarning) never a wider one."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.guarantee == "certified" and 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert 0.04964466684496 <= v.lo and v.hi <= 0.04964567485177
    assert 0.04962475884427 <= v.hi and v.lo <= 0.04964519873343
    w = ta.epsilon(f, R(1, 10**5), dps=15)
    assert w.lo <= v.lo and v.hi <= w.hi
    with pytest.warns(ta.ToleranceWarning), ta.pld_options(tol=1e-20):
        u = ta.epsilon(f, R(1, 10**5), dps=20)
    assert v.lo <= u.lo <= u.hi <= v.hi
