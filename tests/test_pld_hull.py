"""f-values of the symmetric hull of a product (Poisson-subsampled NoisySGD): the PLD route of
numeric.pld.hull_roc_bounds against Eq. (13) of Dong, Roth & Su for one factor and against an
independent quadrature of both directions' profiles for two factors."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import C, G, Inverse, Mix, SymmetricHull
from tradeoff_algebra.numeric import pld

H = 2.0**-11
MU, P = 1.0, 0.3


def _hull(leaves, a, power=False, h=H):
    inv = tuple((Inverse(f), n) for f, n in leaves)
    r = pld.value_refinement((leaves, inv), a, a, power, h=h)
    return pld.max_enclosure([r], 1e-12)


@pytest.mark.parametrize("a", [0.0, 1e-6, 1e-3, 0.05, 0.2, 0.3, 0.6, 0.95, 1.0])
def test_one_factor_is_eq13(a):
    """C(f_p) = C_p(f) for symmetric f (Def. 6); C_p(G_1) by Eq. (13) at 20 digits."""
    leaves = ((Mix(G(MU), P), 1),)
    ref = ta.evaluate(C(P, G(MU)), a, dps=20).mid
    lo, hi = _hull(leaves, a)
    assert lo <= ref <= hi
    assert hi - lo < 1e-5
    rlo, rhi = _hull(leaves, a, power=True)
    assert rlo <= 1 - ref <= rhi


# -- two factors: g = f_p (x) f_p = T(P x P, R x R), R = (1-p) N(0,1) + p N(mu,1) ---------------
def _single_profiles(e):
    """delta of f_p = T(P, R) and of f_p^{-1} = T(R, P) at any real e (closed forms in Phi):
    L(x) = log(1 - p + p e^{mu x - mu^2/2}) is increasing, L > t iff x > x_t."""
    p, mu = mpmath.mpf(P), mpmath.mpf(MU)

    def x_of(t):  # L(x) > t  iff  x > x_of(t); -oo when e^t <= 1 - p
        v = mpmath.exp(t) - (1 - p)
        return -mpmath.inf if v <= 0 else (mpmath.log(v / p) + mu**2 / 2) / mu

    xt = x_of(e)
    R_gt = (1 - p) * mpmath.ncdf(-xt) + p * mpmath.ncdf(mu - xt)
    P_gt = mpmath.ncdf(-xt)
    d_fwd = max(R_gt - mpmath.exp(e) * P_gt, 0)
    xs = x_of(-e)  # T(R, P): loss -L under P; -L > e iff x < x_of(-e)
    P_lt = mpmath.ncdf(xs)
    R_lt = (1 - p) * mpmath.ncdf(xs) + p * mpmath.ncdf(xs - mu)
    d_inv = max(P_lt - mpmath.exp(e) * R_lt, 0)
    return d_fwd, d_inv


def _two_factor_profiles(eps):
    """Both directions' delta(eps) for the product of two factors, conditioning on the first
    coordinate (its loss adds to the second's): E_{x ~ R}[d_fwd(eps - L(x))] and
    E_{x ~ P}[d_inv(eps + L(x))], by mpmath quadrature."""
    p, mu = mpmath.mpf(P), mpmath.mpf(MU)

    def L(x):
        return mpmath.log(1 - p + p * mpmath.exp(mu * x - mu**2 / 2))

    def dens_R(x):
        return (1 - p) * mpmath.npdf(x) + p * mpmath.npdf(x - mu)

    def kink(t):  # the x with L(x) = t: the conditional profile has a kink there
        v = mpmath.exp(t) - (1 - p)
        return [] if v <= 0 else [(mpmath.log(v / p) + mu**2 / 2) / mu]

    c = -mpmath.log(1 - p)
    fwd = mpmath.quad(lambda x: _single_profiles(eps - L(x))[0] * dens_R(x),
                      sorted([-10, 11] + kink(eps + c)))
    inv = mpmath.quad(lambda x: _single_profiles(eps + L(x))[1] * mpmath.npdf(x),
                      sorted([-10, 11] + kink(c - eps)))
    return fwd, inv


def _reference_roc(a):
    """1 - C(alpha) = min_eps max(delta_g, delta_{g^-1})(eps) + e^eps alpha (convex in e^eps),
    by golden section on eps."""
    def F(e):
        return max(_two_factor_profiles(e)) + mpmath.exp(e) * a

    lo, hi = mpmath.mpf(-3), mpmath.mpf(3)
    g = (mpmath.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = F(c), F(d)
    for _ in range(32):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = F(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = F(d)
    return min(fc, fd)


@pytest.mark.slow  # (0.05: ~5 s, 0.3: ~10 s)
@pytest.mark.parametrize("a", [0.05, 0.3])
def test_two_factors_against_quadrature(a):
    with workdps(15):
        ref = _reference_roc(mpmath.mpf(a))
    leaves = ((Mix(G(MU), P), 2),)
    rlo, rhi = _hull(leaves, a, power=True)
    # the reference minimises by golden section: it is at least the true value, and within
    # the golden-section tolerance of it (eps bracket 6 * 0.618^32 = 1e-6: value error < 1e-9)
    assert rlo <= ref and ref - 1e-9 <= rhi
    assert rhi - rlo < 1e-4


def test_noisy_sgd_poisson_curve_via_evaluate():
    """ta.evaluate / ta.roc on the Poisson NoisySGD expression: enclosures, monotone in alpha,
    consistent with the profile (f(alpha) >= 1 - delta(eps) - e^eps alpha, Prop. 6)."""
    f = ta.noisy_sgd(2, sp.Rational(1, 100), 200, sampling="poisson")
    eps = 0.5
    d = ta.delta(f, eps, dps=10)
    prev = None
    for a in ("1e-4", "0.01", "0.1", "0.4"):
        v = ta.evaluate(f, a, dps=10)
        r = ta.roc(f, a, dps=10)
        assert 0 <= v.lo <= v.hi <= 1 - mpmath.mpf(a)
        assert max(1 - v.hi, r.lo) <= min(1 - v.lo, r.hi)  # both enclose 1 - f(alpha)
        assert v.hi >= 1 - d.hi - mpmath.exp(eps) * mpmath.mpf(a)
        if prev is not None:
            assert v.lo <= prev.hi
        prev = v


def test_hull_of_a_product_is_symmetric():
    """C(g) is symmetric: C(alpha) at the image of its own value (a point of the graph maps to
    the mirrored point), within the enclosures."""
    f = SymmetricHull(Mix(G(1), sp.Rational(1, 5)) ** 3)
    a = 0.1
    v = ta.evaluate(f, a, dps=10)
    w_lo = ta.evaluate(f, float(v.hi), dps=10)
    w_hi = ta.evaluate(f, float(v.lo), dps=10)
    assert w_lo.lo - 1e-9 <= a <= w_hi.hi + 1e-9


def test_lower_envelope_is_the_full_minimum():
    """_env_min(..., up=False) is a lower bound of min_j c_j + e^{E_j} alpha over every j (it
    must not miss a j), on convex profiles with duplicated kinks and on arbitrary data, against
    the full broadcast minimum; up=True is an upper bound."""
    import numpy as np

    from tradeoff_algebra.numeric import pld_hull as pc

    rng = np.random.default_rng(7)
    for trial in range(120):
        n = int(rng.integers(2, 2500))
        E = np.sort(rng.normal(0, 3, n))
        E = np.sort(np.concatenate([E, E[: n // 4]]))
        x = np.exp(E)
        L, q = np.exp(rng.normal(0, 3, 40)), rng.dirichlet(np.ones(40))
        c = np.maximum(1 - x[:, None] / L[None, :], 0) @ q
        if trial % 3 == 0:
            c = rng.uniform(0, 1, len(x))
        a = np.sort(rng.uniform(0, 1, 200))
        a[0] = 0.0
        full = np.min(c[None, :] + x[None, :] * a[:, None], axis=1)
        assert np.all(pc._env_min(c, E, a, False) <= full)
        if trial % 3:
            assert np.all(pc._env_min(c, E, a, True) >= full * (1 - 1e-12))


def test_delta_below_the_mass_floor_stops_at_once_with_a_warning():
    """eps at delta = 1e-300 for DP-SGD: the pessimistic side holds up to 1e-300 per grid point
    at +oo, so its profile never reaches 1e-300 and the upper end stays infinite; the search
    used to refine to the grid's size limits (42 s) before saying so. It now stops after the
    first grid with a ToleranceWarning naming the floor; the enclosure stays valid (the lower
    end lies below eps(1e-250) = 51.2, computed here too). (A fixed grid step keeps the call in
    the PLD engine; by default the Laplace inversion answers, to the tolerance.)"""
    import warnings

    from tradeoff_algebra.core.errors import ToleranceWarning

    f = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), 14063, sampling="poisson")
    with warnings.catch_warnings(record=True) as w, ta.pld_options(h=2.0**-12):
        warnings.simplefilter("always")
        v = ta.epsilon(f, sp.Rational(1, 10**300), dps=12)
    assert any(issubclass(x.category, ToleranceWarning) and "floor" in str(x.message) for x in w)
    u = ta.epsilon(f, sp.Rational(1, 10**250), dps=12)
    assert v.lo <= u.lo and u.hi < 52 and v.hi >= u.hi
    c = ta.epsilon(f, sp.Rational(1, 10**300), dps=12)
    assert v.lo <= c.lo and c.hi <= v.hi and u.hi < c.lo and c.hi - c.lo <= 5e-4 * c.hi
