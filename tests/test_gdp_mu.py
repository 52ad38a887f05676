"""gdp_mu(f): the smallest mu with f >= G_mu, against references computed here from the
families' own formulas (mpmath at 40 digits, golden-section maximisation of
m(alpha) = Phi^{-1}(1 - alpha) - Phi^{-1}(f(alpha)))."""

import warnings

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Id, Inverse, Laplace, Mix, Zero

mp40 = mpmath.MPContext()
mp40.dps = 40


def _m(f, a):
    """m(alpha) for a closed-form f given as an mpmath function."""
    return mp40.sqrt(2) * (mp40.erfinv(1 - 2 * a) + mp40.erfinv(1 - 2 * f(a)))


def _sup_m(f, lo, hi, n=400):
    """sup of m on [lo, hi] (m unimodal near its maximum): a grid, then golden section."""
    xs = [lo + (hi - lo) * k / n for k in range(1, n)]
    k = max(range(len(xs)), key=lambda i: _m(f, xs[i]))
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, len(xs) - 1)]
    g = (mp40.sqrt(5) - 1) / 2
    for _ in range(150):
        c, d = b - g * (b - a), a + g * (b - a)
        if _m(f, c) > _m(f, d):
            b = d
        else:
            a = c
    return _m(f, (a + b) / 2)


def _laplace(mu):
    e = mp40.exp(mu)

    def f(a):
        if a < 1 / (2 * e):
            return 1 - e * a
        if a <= mp40.mpf(1) / 2:
            return 1 / (4 * e * a)
        return (1 - a) / e
    return f


def _contains(v, x):
    return v.lo <= x <= v.hi


def test_closed_forms_symbolic():
    mu, eps = sp.symbols("mu eps", positive=True)
    assert ta.gdp_mu(G(mu) @ G(2)) == sp.sqrt(mu**2 + 4)
    assert ta.gdp_mu(G(mu) ** 3) == sp.sqrt(3) * mu
    assert ta.gdp_mu(EpsDelta(eps, 0)) == 2 * ta.PhiInv(sp.exp(eps) / (1 + sp.exp(eps)))
    assert ta.gdp_mu(EpsDelta(eps, sp.Rational(1, 10))) is sp.oo
    assert ta.gdp_mu(Zero).lo == mpmath.inf  # numeric objects give a Value
    assert abs(mp40.mpf(ta.gdp_mu(G(2) @ G(1)).mid) - mp40.sqrt(5)) < 1e-18


@pytest.mark.parametrize("eps", [sp.Rational(1, 10), 1, 3])
def test_epsdelta_kink_value_against_grid(eps):
    """2 Phi^{-1}(e^eps/(1 + e^eps)) is the maximum of m over a dense grid of f_{eps,0}."""
    e = mp40.exp(mp40.mpf(sp.N(eps, 45)))
    f = lambda a: max(1 - e * a, (1 - a) / e)  # noqa: E731
    ref = _sup_m(f, mp40.mpf(10) ** -12, mp40.mpf(1) / 2)
    v = ta.gdp_mu(EpsDelta(eps, 0), dps=30)
    assert abs(v.mid - ref) < mp40.mpf(10) ** -25 * (1 + ref)


@pytest.mark.parametrize("mu", [sp.Rational(1, 2), 1, pytest.param(3, marks=pytest.mark.slow)])
def test_laplace_enclosure(mu):
    ref = _sup_m(_laplace(mp40.mpf(sp.N(mu, 45))), mp40.mpf(10) ** -12, mp40.mpf(1) / 2)
    v = ta.gdp_mu(Laplace(mu))
    assert _contains(v, ref)
    assert v.width <= 1e-5


def test_mixture_and_its_inverse():
    """f_p = p f_{1,0} + (1 - p) Id (asymmetric): both sides of the curve, and the reflection
    f^{-1} has the same mu."""
    p, e = mp40.mpf(1) / 3, mp40.e
    s0, s1, kink = p * e + 1 - p, p / e + 1 - p, 1 / (1 + e)
    f = lambda a: 1 - s0 * a if a <= kink else (1 - a) * s1  # noqa: E731
    finv = lambda b: (1 - b) / s0 if b >= f(kink) else 1 - b / s1  # noqa: E731
    ref = max(_sup_m(f, mp40.mpf(10) ** -12, mp40.mpf(1) / 2),
              _sup_m(finv, mp40.mpf(10) ** -12, mp40.mpf(1) / 2))
    v = ta.gdp_mu(Mix(EpsDelta(1, 0), sp.Rational(1, 3)))
    w = ta.gdp_mu(Inverse(Mix(EpsDelta(1, 0), sp.Rational(1, 3))))
    assert _contains(v, ref) and _contains(w, ref)
    assert v.width <= 1e-5


def test_infinite_and_zero():
    assert ta.gdp_mu(EpsDelta(1, sp.Rational(1, 10))).lo == mpmath.inf
    assert ta.gdp_mu(Id).hi == 0


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_product_between_factor_bounds():
    """f (x) g <= f gives mu(f (x) g) >= mu(f); Cor. 2 gives
    mu(f (x) g) <= sqrt(mu_f^2 + mu_g^2)."""
    a, b = ta.gdp_mu(Laplace(1)), ta.gdp_mu(Laplace(2))
    v = ta.gdp_mu(Laplace(1) @ Laplace(2))
    assert v.hi >= b.lo and v.lo <= mpmath.sqrt(a.hi**2 + b.hi**2)
    assert v.lo >= b.lo and v.width <= 1e-5


def test_unbounded_likelihood_ratio_is_decided_in_the_tail():
    """C_p(G_1): C_p(f) >= f gives mu* <= 1, and near alpha = 0 the power p(1 - G_1(alpha))
    has Gaussian shift tending to 1: mu* = 1. The enclosure holds 1 and says it is wide."""
    with pytest.warns(ta.ToleranceWarning):
        v = ta.gdp_mu(ta.C(sp.Rational(1, 10), G(1)))
    assert _contains(v, 1) and v.lo > 0.9


def test_functional_for_symbols():
    eps = sp.Symbol("eps", positive=True)
    F = ta.gdp_mu(Laplace(eps))
    assert isinstance(F, ta.Functional)
    assert ta.latex(F) == r"\mu_{\mathrm{GDP}}\!\left(L_{\varepsilon}\right)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = F.subs(eps, 1).value(dps=20)
    assert _contains(v, _sup_m(_laplace(mp40.mpf(1)), mp40.mpf(10) ** -12, mp40.mpf(1) / 2))


def test_bad_input():
    with pytest.raises(ta.InvalidParameter, match="f"):
        ta.gdp_mu(3)
