"""Functionals (kl, kappas, chi^2_+, TV, AUC, fixed point) against independent routes."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from precision import workdps

import tradeoff_algebra as ta

TOL = mpmath.mpf(10) ** -25


def diff(a, b):
    """|a - b| computed at 60 digits (mpf arithmetic rounds to the ambient precision)."""
    with workdps(60):
        return abs(mpmath.mpf(a) - mpmath.mpf(b))


def by_normal_law(mu, F, dps=40):
    """E F(mu Z - mu^2/2), Z ~ N(0,1), by quadrature over the real line (the law of
    log|G_mu'(x)| for x uniform) — a route independent of the alpha-space integrals."""
    with workdps(dps):
        mu = mpmath.mpf(mu)
        kink = mu / 2  # where mu z - mu^2/2 = 0
        return mpmath.quad(lambda z: F(mu * z - mu**2 / 2) * mpmath.npdf(z),
                           sorted({-mpmath.inf, mpmath.mpf(0), kink, mpmath.inf}))


def by_laplace_law(mu, F, dps=40):
    """E F(|X| - |X - mu|), X ~ Lap(0,1), by quadrature of the density e^{-|x|}/2."""
    with workdps(dps):
        mu = mpmath.mpf(mu)
        g = lambda x: F(abs(x) - abs(x - mu)) * mpmath.exp(-abs(x)) / 2  # noqa: E731
        x0 = -mpmath.expm1(-mu) / 2  # kink of |t + kl|
        return mpmath.quad(g, sorted([-mpmath.inf, 0, x0, mu / 2, mu, mpmath.inf]))


def val(x):
    return ta.Value.point(mpmath.mpf(sp.Float(x, 50)), 40).mid if isinstance(x, sp.Basic) \
        else x


@pytest.mark.parametrize("mu", ["0.05", "3"])
def test_gaussian_closed_forms_against_normal_law(mu):
    f = ta.G(sp.Rational(mu))
    with workdps(40):
        k = mpmath.mpf(mu) ** 2 / 2
    refs = {
        "kl": by_normal_law(mu, lambda t: -t),
        "kappa2": by_normal_law(mu, lambda t: t * t),
        "kappa3": by_normal_law(mu, lambda t: abs(t) ** 3),
        "kappa3_bar": by_normal_law(mu, lambda t: abs(t + k) ** 3),
        "chi2_plus": by_normal_law(mu, lambda t: mpmath.expm1(t) ** 2 if t > 0 else 0),
    }
    for name, ref in refs.items():
        v = getattr(ta, name)(f, dps=30)
        assert diff(v.mid, ref) <= TOL * abs(ref), (name, v, ref)


def test_gaussian_symbolic_closed_forms():
    mu = sp.Symbol("mu", positive=True)
    assert ta.kl(ta.G(mu)) == mu**2 / 2
    assert sp.expand(ta.kappa2(ta.G(mu)) - (mu**2 + mu**4 / 4)) == 0
    assert sp.simplify(ta.kappa3_bar(ta.G(mu)) - 2 * sp.sqrt(2) * mu**3 / sp.sqrt(sp.pi)) == 0
    assert ta.auc(ta.G(mu)) == ta.Phi(mu / sp.sqrt(2))
    # Dong, Roth & Su, Lemma 3 as printed
    assert ta.chi2_plus(ta.G(mu)) == (sp.exp(mu**2) * ta.Phi(3 * mu / 2)
                                      + 3 * ta.Phi(-mu / 2) - 2)
    assert ta.kl(ta.G(0)) == 0 and ta.auc(ta.G(0)) == sp.S.Half


@pytest.mark.parametrize("mu", ["0.5", "4"])
def test_laplace_closed_forms_against_laplace_law(mu):
    f = ta.Laplace(sp.Rational(mu))
    with workdps(40):
        m = mpmath.mpf(mu)
        k = m + mpmath.exp(-m) - 1  # KL(Lap(0,1) || Lap(mu,1))
    refs = {
        "kl": by_laplace_law(mu, lambda t: -t),
        "kappa2": by_laplace_law(mu, lambda t: t * t),
        "kappa3": by_laplace_law(mu, lambda t: abs(t) ** 3),
        "kappa3_bar": by_laplace_law(mu, lambda t: abs(t + k) ** 3),
        "chi2_plus": by_laplace_law(mu, lambda t: mpmath.expm1(t) ** 2 if t > 0 else 0),
    }
    for name, ref in refs.items():
        v = getattr(ta, name)(f, dps=30)
        assert diff(v.mid, ref) <= TOL * abs(ref), (name, v, ref)


def test_epsdelta_functionals_by_pieces():
    e = mpmath.mpf(1)
    with workdps(40):
        E = mpmath.e
        x = 1 / (1 + E)  # slope -e on [0, x], -1/e after
        k = -(x * e - (1 - x) * e)
        refs = {"kl": k, "kappa2": e**2, "kappa3": e**3,
                "kappa3_bar": x * abs(e + k) ** 3 + (1 - x) * abs(-e + k) ** 3,
                "chi2_plus": x * (E - 1) ** 2}
    f = ta.EpsDelta(1, 0)
    for name, ref in refs.items():
        assert diff(getattr(ta, name)(f, dps=30).mid, ref) < TOL
    assert ta.kl(ta.EpsDelta(1, sp.Rational(1, 10))) == sp.oo
    assert ta.kl(ta.Zero) == sp.oo and ta.kappa2(ta.Id) == 0


@pytest.mark.parametrize("f", [ta.G(2), ta.Laplace(1), ta.EpsDelta(1, sp.Rational(1, 10)),
                               ta.Mix(ta.G(1), sp.Rational(1, 3)), ta.Id, ta.Zero])
def test_tv_is_delta_at_zero(f):
    # max_alpha (1 - alpha - f(alpha)) = delta(0) (Prop. 6 at eps = 0)
    if isinstance(f, ta.Mix):  # 1 - a - f_p(a) = p (1 - a - f(a)); delta(0) of Mix is
        with workdps(40):  # another contributor's route
            ref = ta.tv(f.arg, dps=40).mid / 3
    else:
        ref = ta.delta(f, 0, dps=30).mid
    assert diff(ta.tv(f, dps=30).mid, ref) < TOL


def test_tv_by_maximisation():
    # TV of G_1 by golden-section maximisation of 1 - alpha - G_1(alpha)
    f = ta.G(1)
    with workdps(40):
        g = lambda a: 1 - a - ta.evaluate(f, a, dps=40).mid  # noqa: E731
        r = (mpmath.sqrt(5) - 1) / 2
        a, b = mpmath.mpf(0.1), mpmath.mpf(0.5)
        for _ in range(150):  # golden section on the concave 1 - a - G_1(a)
            c, d = b - r * (b - a), a + r * (b - a)
            a, b = (a, d) if g(c) > g(d) else (c, b)
        best = (a + b) / 2
        assert diff(ta.tv(f, dps=30).mid, g(best)) < TOL


@pytest.mark.parametrize("mu", ["0.1", "1", "2.5"])
def test_auc_gaussian_kaissis_and_integration(mu):
    with workdps(40):
        psi = mpmath.mpf(mu)
        kaissis = mpmath.ncdf(psi / mpmath.sqrt(2))  # Kaissis et al., Eq. (16)
        # 1 - int f with f(a) = Phi(Phi^{-1}(1 - a) - mu) through mpmath's own erfinv
        inv = lambda a: -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # noqa: E731
        integral = 1 - mpmath.quad(lambda a: mpmath.ncdf(inv(a) - psi), [0, 0.5, 1])
    v = ta.auc(ta.G(sp.Rational(mu)), dps=30)
    assert diff(v.mid, kaissis) < TOL
    assert diff(v.mid, integral) < mpmath.mpf(10) ** -20


def test_auc_laplace_and_epsdelta_by_integration():
    with workdps(40):
        for f in (ta.Laplace(1), ta.EpsDelta(1, sp.Rational(1, 10))):
            xs = [0, mpmath.exp(-1) / 2, 0.5, 1 / (1 + mpmath.e) * 0.9, 0.9, 1]
            ref = 1 - mpmath.quad(lambda a, f=f: ta.evaluate(f, a, dps=40).mid,
                                  sorted(set(xs)))
            assert diff(ta.auc(f, dps=30).mid, ref) < mpmath.mpf(10) ** -25


def test_fixed_point_numeric_and_symbolic():
    assert ta.fixed_point(ta.G(1)) == ta.Phi(-sp.S.Half)
    v = ta.fixed_point(ta.Inverse(ta.Laplace(2)), dps=30)  # no closed form: bisection
    with workdps(40):
        ref = mpmath.exp(-1) / 2
    assert v.lo <= ref <= v.hi and v.hi - v.lo < mpmath.mpf(10) ** -29
    # C_p(G_mu): (1 - p + 2 p Phi(-mu/2))/2, tv = p TV(G_mu)
    p = sp.Rational(1, 10)
    c = ta.fixed_point(ta.C(p, ta.G(1)))
    assert sp.simplify(c - ((1 - p) / 2 + p * ta.Phi(-sp.S.Half))) == 0
    assert sp.simplify(ta.tv(ta.C(p, ta.G(1))) - p * ta.tv(ta.G(1))) == 0


def test_api_errors():
    with pytest.raises(ta.NoClosedForm):
        ta.kl(ta.Mix(ta.G(1), sp.Rational(1, 2)))
    with pytest.raises(ta.NoClosedForm):
        ta.kl(ta.Mix(ta.G(1), sp.Rational(1, 2)), dps=20)  # no silent estimate
    with pytest.raises(ta.InvalidParameter):
        ta.kl(ta.G(sp.Symbol("m")), dps=20)
    with pytest.raises(ta.InvalidParameter):
        ta.kl(3)
    with pytest.raises(ta.InvalidParameter):
        ta.kl(ta.G(1), dps=0)


# -- quadrature estimates (opt-in) -------------------------------------------------------------
def test_estimates_agree_with_closed_forms():
    from tradeoff_algebra.analysis.functionals import _estimate

    for f, names in ((ta.G(1), ("kappa3", "auc")), (ta.Laplace(1), ("chi2_plus",))):
        for name in names:
            est = _estimate(name, f, 15)
            exact = getattr(ta, name)(f, dps=30).mid
            assert diff(est.mid, exact) < mpmath.mpf(10) ** -15, (f, name)


def lemma4(p, mu, which):
    """Dong, Roth & Su, Lemma 4: kl and kappa_2 of C_p(G_mu) as integrals over [mu/2, oo)."""
    with workdps(30):
        p, mu = mpmath.mpf(p), mpmath.mpf(mu)
        Z = lambda x: mpmath.log(p * mpmath.exp(mu * x - mu**2 / 2) + 1 - p)  # noqa: E731
        phi = mpmath.npdf
        if which == "kl":
            g = lambda x: p * Z(x) * (phi(x - mu) - phi(x))  # noqa: E731
        else:
            g = lambda x: Z(x) ** 2 * (p * phi(x - mu) + (2 - p) * phi(x))  # noqa: E731
        return mpmath.quad(g, [mu / 2, mpmath.inf])


def test_subsampled_gaussian_estimates_match_lemma4():
    f = ta.C(sp.Rational(1, 10), ta.G(1))
    for name in ("kl", "kappa2"):
        est = getattr(ta, name)(f, dps=15, estimate=True)
        assert diff(est.mid, lemma4("0.1", 1, name)) < mpmath.mpf(10) ** -14, name


def test_noisy_sgd_builder():
    f = ta.noisy_sgd(2, sp.Rational(1, 100), 50, sampling="gdp_paper")
    assert f == ta.TensorPower(ta.C(sp.Rational(1, 100), ta.G(sp.Rational(1, 2))), 50)
    g = ta.noisy_sgd(2, sp.Rational(1, 100), 50, sampling="poisson")
    assert g == ta.noisy_sgd(2, sp.Rational(1, 100), 50)  # Poisson is the default
    # the symmetric hull of the composed remove direction, as a mechanism (AddRemove is a
    # SymmetricHull that composes its two directions together under @)
    assert g == ta.AddRemove(ta.TensorPower(ta.Mix(ta.G(sp.Rational(1, 2)),
                                                   sp.Rational(1, 100)), 50))
    assert isinstance(g, ta.SymmetricHull)
    s = sp.Symbol("sigma", positive=True)
    assert ta.noisy_sgd(s, sp.Rational(1, 2), 3).free_symbols == {s}
    for bad in ((0, 0.1, 1), (1, 1.5, 1), (1, 0.1, 0), (1, 0.1, 2.5)):
        with pytest.raises(ta.InvalidParameter):
            ta.noisy_sgd(*bad)
    with pytest.raises(ta.InvalidParameter):
        ta.noisy_sgd(1, 0.1, 1, sampling="uniform")
    assert ta.noisy_sgd(1, 0.1, 1, sampling="shuffle") == ta.G(1)  # one started epoch
