"""Bounds and approximations: the diagonal translate, Berry–Esseen (Dong, Roth & Su, Thm. 5),
the CLTs (Thms. 6, 7, 11) as registered approximations, and the chains of ``derive``.

References: exact Neyman–Pearson of the finite compositions (tests/rewrite_reference.py), the
two-point law of f_{eps,0}'s log-likelihood ratio for the functionals, and an mpmath tangent
construction (root finding on the derivative) for the upper translate.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from precision import close, workdps
from rewrite_reference import reference

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import InvalidParameter

R = sp.Rational


def _G(mu, x):
    """G_mu(x) = Phi(Phi^{-1}(1 - x) - mu), extended by 1 below 0 and 0 above 1."""
    if x <= 0:
        return mpmath.mpf(1)
    if x >= 1:
        return mpmath.mpf(0)
    return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * x - 1) - mu)


# -- the diagonal translate ----------------------------------------------------------------------
@pytest.mark.parametrize("t", [R(1, 10), R(1, 3)])
def test_lower_translate_is_the_shifted_curve(t):
    f = ta.Shift(ta.G(1), t)
    for a in ("0", "1e-8", "0.05", "0.3", "0.6", "0.9", "1"):
        v = ta.evaluate(f, a, dps=30)
        with workdps(50):
            truth = max(_G(1, mpmath.mpf(a) + mpmath.mpf(t.p) / t.q) - mpmath.mpf(t.p) / t.q, 0)
        assert close(v, truth, 28), (a, v, truth)


def _upper_reference(mu, g, a):
    """The greatest convex minorant of min{1 - a, G_mu(a - g) + g}: the tangents from (0, 1)
    and to (1, 0) by root finding on the derivative of the slope, then the translate."""
    U = lambda b: _G(mu, b - g) + g  # noqa: E731
    phi = lambda b: (U(b) - 1) / b  # noqa: E731
    psi = lambda b: U(b) / (1 - b)  # noqa: E731
    b1 = mpmath.findroot(lambda b: mpmath.diff(phi, b), (g * 1.5, mpmath.mpf(0.6)),
                         solver="anderson")
    b2 = mpmath.findroot(lambda b: mpmath.diff(psi, b), (mpmath.mpf(0.4), 1 - g / 2),
                         solver="anderson")
    if a <= b1:
        return 1 + phi(b1) * a
    if a >= b2:
        return psi(b2) * (1 - a)
    return U(a)


@pytest.mark.parametrize("mu,g", [(1, R(1, 10)), pytest.param(2, R(1, 20), marks=pytest.mark.slow)])
def test_upper_translate_is_the_convex_minorant(mu, g):
    f = ta.Shift(ta.G(mu), -g)
    for a in ("0.001", "0.05", "0.2", "0.45", "0.7", "0.95"):
        v = ta.evaluate(f, a, dps=25)
        with workdps(45):
            truth = _upper_reference(mu, mpmath.mpf(g.p) / g.q, mpmath.mpf(a))
            tol = mpmath.mpf(10) ** -40
            if not v.is_point:  # an enclosure contains the truth; a point has its 25 digits
                assert v.lo <= truth + tol and truth - tol <= v.hi, (a, v, truth)
        assert close(v, truth, 24), (a, v, truth)


def test_upper_translate_above_id_is_id():
    # G_{1/10} translated up by 1/4 lies above 1 - alpha everywhere
    f = ta.Shift(ta.G(R(1, 10)), -R(1, 4))
    for a in ("0.1", "0.5", "0.9"):
        v = ta.evaluate(f, a, dps=20)
        with workdps(40):
            truth = 1 - mpmath.mpf(a)
        assert v.is_point and close(v, truth, 20)


def test_translate_properties_and_float_path():
    f = ta.Shift(ta.G(1), R(1, 10))
    assert f.is_symmetric and ta.Shift(ta.G(1), -R(1, 10)).is_symmetric
    assert ta.simplify(ta.Shift(ta.G(2), 0)) == ta.G(2)
    with pytest.raises(InvalidParameter, match="t"):
        ta.Shift(ta.G(1), 2)
    x = np.linspace(0, 1, 41)
    for h in (f, ta.Shift(ta.G(1), -R(1, 10))):
        fast = h.curve(x)
        slow = [float(ta.evaluate(h, float(a), dps=15).mid) for a in x[::8]]
        assert np.allclose(fast[::8], slow, atol=2e-6)
    assert "Shift" in ta.latex(f) and ta.text(f) == "Shift(G(1), 1/10)"


# -- Berry-Esseen ----------------------------------------------------------------------------------
def test_berry_esseen_closed_forms_for_randomized_response():
    e, n = sp.symbols("epsilon n", positive=True)
    be = ta.berry_esseen(ta.EpsDelta(e, 0), n)
    assert sp.simplify(be.mu - 2 * sp.sqrt(n) * sp.sinh(e / 2)) == 0
    # the two-point law of the log-likelihood ratio under P: -eps w.p. q = e^eps/(1 + e^eps)...
    q = sp.exp(e) / (1 + sp.exp(e))
    kl = e * (2 * q - 1)
    k2 = e**2
    k3bar = q * (e - kl) ** 3 + (1 - q) * (e + kl) ** 3
    gamma = R(56, 100) * n * k3bar / (n * (k2 - kl**2)) ** R(3, 2)
    for ev, nv in ((R(1, 3), 30), (2, 7)):
        assert sp.N((be.gamma - gamma).subs({e: ev, n: nv}), 40) == 0 or \
            abs(sp.N((be.gamma - gamma).subs({e: ev, n: nv}), 40)) < 1e-35


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x


def _grid():
    return [Fraction(1, 10**6), Fraction(1, 1000), Fraction(1, 50), Fraction(1, 7),
            Fraction(1, 3), Fraction(1, 2), Fraction(7, 10), Fraction(19, 20), Fraction(999, 1000)]


@pytest.mark.parametrize("eps,n", [pytest.param(sp.log(R(6, 5)), 40, marks=pytest.mark.slow),
                                   (sp.log(R(3, 2)), 12),
                                   pytest.param(sp.log(R(5, 2)), 3, marks=pytest.mark.slow)])
def test_berry_esseen_sandwich_holds_on_exact_compositions(eps, n):
    f = ta.BinomialDP(eps, n)
    be = ta.berry_esseen(f)
    for A in _grid():
        exact = reference(f, A, 30)
        a = sp.Rational(A.numerator, A.denominator)
        lo = ta.evaluate(be.lower, a, dps=20)
        hi = ta.evaluate(be.upper, a, dps=20)
        with workdps(40):
            assert lo.hi <= _mp(exact) <= hi.lo, (A, lo, exact, hi)


def test_berry_esseen_heterogeneous_and_delta():
    P = [R(2, 5), R(1, 3), R(4, 15)]
    d = ta.Discrete(P, P[::-1])
    f = ta.Tensor(d**6, ta.EpsDelta(sp.log(R(3, 2)), R(1, 50)) ** 4)
    be = ta.berry_esseen(f)
    assert be.delta == 1 - R(49, 50) ** 4
    for A in _grid()[1:-1]:
        exact = reference(f, A, 30)
        a = sp.Rational(A.numerator, A.denominator)
        lo, hi = ta.evaluate(be.lower, a, dps=20), ta.evaluate(be.upper, a, dps=20)
        with workdps(40):
            assert lo.hi <= _mp(exact) <= hi.lo, (A, lo, exact, hi)


def test_berry_esseen_refuses_asymmetric_and_infinite_kappa3():
    with pytest.raises(InvalidParameter, match="symmetric"):
        ta.berry_esseen(ta.Mix(ta.G(1), R(1, 2)), 10)
    with pytest.raises(InvalidParameter, match="n"):
        ta.berry_esseen(ta.G(1), 0)
    with pytest.raises(InvalidParameter):
        ta.berry_esseen(ta.Id, 3)


# -- chains: derive with bounds, approximations ---------------------------------------------------
# The bound's check at one level costs ~6 s of CPU (the certified Laplace inversion of the
# composed law, at any dps); the default run checks one level, the slow run three.
@pytest.mark.parametrize("levels", [
    ("0.1",),
    pytest.param(("0.001", "0.1", "0.5"), marks=pytest.mark.slow),
], ids=["one_level", "three_levels"])
def test_derive_lower_chain_prints_geq_and_is_a_bound(levels):
    f = ta.Subsample(ta.G(1), R(1, 10)) ** 10
    d = ta.derive(f, "lower")
    assert d.relation == "lower" and d.result == ta.G(sp.sqrt(10))
    assert r"\geq" in d.latex() and ">=" in str(d)
    assert ta.bound(f, "lower") == d.result
    assert ta.simplify(f) == f  # simplify never applies a bound
    # the bound holds: the certified enclosure of C_p(G_1)^{10} lies above G_sqrt(10)
    for a in levels:
        v = ta.evaluate(f, a, dps=10)
        assert v.guarantee == "certified"
        assert v.lo >= ta.evaluate(d.result, a, dps=10).hi


def test_derive_upper_and_lower_of_a_binomial_composition():
    f = ta.EpsDelta(R(1, 3), 0) ** 30
    lo = ta.derive(f, "lower")
    up = ta.derive(f, "upper")
    assert isinstance(lo.result, ta.Shift) and lo.result.t > 0
    assert isinstance(up.result, ta.Shift) and up.result.t < 0
    assert r"\leq" in up.latex()
    assert lo.steps[-1].rule.cite.locator == "Thm. 5"
    with pytest.raises(InvalidParameter, match="relation"):
        ta.derive(f, "below")


def test_laplace_chain_to_pure_dp():
    d = ta.derive(ta.Laplace(1) @ ta.Laplace(2), "lower")
    # Berry-Esseen applies to the product first (closed-form functionals)
    assert isinstance(d.result, (ta.Shift, ta.Tensor, ta.EpsDelta))
    d2 = ta.derive(ta.Max(ta.Laplace(1), ta.G(3)), "lower")
    assert ta.EpsDelta(1, 0) in d2.result.args


def test_approx_thm7_with_thm8_error():
    a = ta.approx(ta.EpsDelta(1 / sp.sqrt(10), 0) ** 10)
    assert a.node == ta.G(1)
    assert "Thm. 8" in a.error and "gamma" in a.error
    assert not a.exact and r"\approx" in a.latex()


def test_approx_thm11_is_corollary4_corrected():
    sigma, c = sp.Integer(1), R(1, 2)
    T = 400
    f = ta.noisy_sgd(sigma, c / sp.sqrt(T), T, sampling="gdp_paper")
    a = ta.approx(f)
    mu = sp.sqrt(2) * c * sp.sqrt(sp.exp(sigma**-2) * ta.Phi(R(3, 2) / sigma)
                                  + 3 * ta.Phi(-1 / (2 * sigma)) - 2)
    assert isinstance(a.node, ta.Gaussian)
    assert abs(sp.N(a.node.mu - mu, 30)) < 1e-25
    assert abs(sp.N(a.node.mu, 15) - sp.Float("0.855071237797665", 15)) < 1e-12
    assert a.error.startswith("Thm. 11 states no rate")


def test_clt_gap_shrinks_like_one_over_n():
    """Thm. 7 / Thm. 8: f_{1/sqrt(n),0}^{(x) n} -> G_1; the largest gap on a grid times n stays
    near 0.125 (proofs/audit/drs_part1.md) while n grows fourfold twice."""
    gaps = []
    for n in (10, 40, 160):
        f = ta.BinomialDP(1 / sp.sqrt(n), n)
        assert ta.approx(f).node == ta.G(1)
        g = 0
        for A in (Fraction(1, 100), Fraction(1, 25), Fraction(1, 10), Fraction(1, 4),
                  Fraction(1, 2)):
            with workdps(30):
                g = max(g, abs(_mp(reference(f, A, 20)) - _G(1, _mp(A))))
        gaps.append(float(g) * n)
    assert all(0.02 < x < 0.2 for x in gaps), gaps


# -- the command line ---------------------------------------------------------------------------
def test_cli_derive_relation_and_approx(capsys):
    from tradeoff_algebra.cli import main

    assert main(["derive", "EpsDelta(1/3, 0)**30", "--relation", "lower", "--latex"]) == 0
    out = capsys.readouterr().out
    assert r"\geq" in out and "Thm.~5" in out
    assert main(["approx", "C(1/100, G(1))**2500"]) == 0
    out = capsys.readouterr().out
    assert "Thm. 11" in out and "~ G(" in out
    assert main(["derive", "G(1)", "--relation", "below"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "Traceback" not in err


# -- amplification by iteration (Dwork, Sec. 6.3) -----------------------------------------------
def test_iteration_zcdp_matches_the_exact_gaussian_iteration():
    """x -> x/2 for T steps, one shift 1 at the first step, noise sigma: X_T and X'_T are
    N(0, v), N(2^{1-T}, v); their Renyi divergence (closed form) is below T (1/T)^2 a/(2 s^2)."""
    s7 = R(7, 10)
    for T in (1, 3, 8):
        z = ta.iteration_zcdp([R(1, T)] * T, s7, s=[1] + [0] * (T - 1))
        assert z.rho == R(1, 2 * T) / s7**2
        v = s7**2 * sum(R(1, 4) ** j for j in range(T))
        pair = ta.NormalPair(0, sp.sqrt(v), R(1, 2) ** (T - 1), sp.sqrt(v))
        for order in (2, 5):
            assert sp.N(ta.renyi(pair, order) - order * z.rho, 30) <= 0
    with pytest.raises(InvalidParameter, match="z_2"):
        ta.iteration_zcdp([1, 1], 1, s=[1, 0])
    with pytest.raises(InvalidParameter, match="z_T"):
        ta.iteration_zcdp([R(1, 2)], 1, s=[1])
    from tradeoff_algebra.bounds.iteration import noisy_sgd_iteration_zcdp

    assert noisy_sgd_iteration_zcdp(1, 2, 100, 1).rho == R(1, 200)
    with pytest.raises(InvalidParameter, match="t"):
        noisy_sgd_iteration_zcdp(1, 2, 10, 11)


# -- certified moments of C_p(G_mu) and Cor. 5 ----------------------------------------------------
def _quad_moments(p, mu):
    """The corrected Lemma 4 by mpmath quadrature (a different route from Arb's integration)."""
    with workdps(40):
        p, mu = mpmath.mpf(p.p) / p.q, mpmath.mpf(mu)
        Z = lambda t: mpmath.log(p * mpmath.exp(mu * t - mu**2 / 2) + 1 - p)  # noqa: E731
        phi = mpmath.npdf
        a, b = mu / 2, mpmath.inf
        kl = p * mpmath.quad(lambda t: Z(t) * (phi(t - mu) - phi(t)), [a, mu, b])
        k2 = mpmath.quad(lambda t: Z(t) ** 2 * (p * phi(t - mu) + (2 - p) * phi(t)), [a, mu, b])
        wB = lambda t: p * phi(t - mu) + (1 - p) * phi(t)  # noqa: E731
        t0 = mpmath.findroot(lambda t: Z(t) - kl, mu)
        k3b = (mpmath.quad(lambda t: (Z(t) + kl) ** 3 * phi(t), [a, mu, b])
               + mpmath.quad(lambda t: abs(Z(t) - kl) ** 3 * wB(t), [a, t0, mu + 1, b])
               + kl**3 * (1 - p) * (2 * mpmath.ncdf(mu / 2) - 1))
        return {"kl": kl, "kappa2": k2, "kappa3_bar": k3b}


@pytest.mark.parametrize("p,mu", [(R(1, 2), 2), (R(1, 100), 1), (R(256, 60000), R(10, 11))])
def test_subsampled_gaussian_moments_are_certified(p, mu):
    ref = _quad_moments(p, mu)
    f = ta.C(p, ta.G(mu))
    for name, F in (("kl", ta.kl), ("kappa2", ta.kappa2), ("kappa3_bar", ta.kappa3_bar)):
        v = F(f, dps=25)
        assert v.guarantee == "certified", (name, v)  # Arb integrals (it once said estimate)
        assert not v.is_point and v.width < 1e-22 * float(abs(ref[name]))
        with workdps(40):
            assert v.lo <= ref[name] * (1 + mpmath.mpf(10) ** -30) and \
                ref[name] * (1 - mpmath.mpf(10) ** -30) <= v.hi, (name, v, ref[name])


def test_cor5_berry_esseen_for_noisy_sgd():
    f = ta.noisy_sgd(1, R(1, 100), 2500, sampling="gdp_paper")
    be = ta.berry_esseen(f)
    lo_mu, hi_mu = be.mu_bounds
    assert lo_mu <= hi_mu and float(hi_mu - lo_mu) < 1e-14
    assert abs(float(hi_mu) - 0.8362306574) < 1e-9
    assert abs(float(be.gamma) - 0.0562070711) < 1e-9
    for a in ("0.01", "0.1", "0.5"):
        ex = ta.evaluate(f, a, dps=10)
        assert ta.evaluate(be.lower, a, dps=10).hi <= ex.lo
        assert ex.hi <= ta.evaluate(be.upper, a, dps=10).lo
    # the chain uses it where gamma < 1/2, and falls back to C_p(f) >= C(f) where not
    assert isinstance(ta.bound(ta.C(R(1, 10), ta.G(1)) ** 1000, "lower"), ta.Shift)
    assert ta.bound(ta.C(R(1, 10), ta.G(1)) ** 10, "lower") == ta.G(sp.sqrt(10))


def _polygon_hull_value(knots, g, a):
    """The greatest convex minorant of min{1 - x, f(x - g) + g} for piecewise-linear f (knots
    (x, f(x)) of f, exact rationals): the lower convex hull of (0, 1), (1, 0) and the shifted
    knots that land in [0, 1], evaluated at a (by brute force over all pairs of points)."""
    pts = [(sp.Integer(0), sp.Integer(1)), (sp.Integer(1), sp.Integer(0))]
    pts += [(x + g, y + g) for x, y in knots if x + g <= 1]
    best = sp.oo
    for (x0, y0) in pts:
        for (x1, y1) in pts:
            if x0 <= a <= x1 and x0 < x1:
                line = lambda x, x0=x0, y0=y0, x1=x1, y1=y1: y0 + (y1 - y0) * (x - x0) / (x1 - x0)  # noqa: E731
                if all(line(x) <= y for x, y in pts):
                    best = min(best, line(a))
    return best


# ~12 s of CPU each: the default run keeps the second, the slow run (-m slow) has the others
@pytest.mark.parametrize("f,g", [
    pytest.param(ta.EpsDelta(0, R(1, 100)), R(1, 1000), marks=pytest.mark.slow),
    (ta.EpsDelta(sp.log(3), R(1, 100)), R(1, 1000)),
    pytest.param(ta.EpsDelta(sp.log(2), R(1, 50)), R(1, 500), marks=pytest.mark.slow)])
def test_upper_translate_of_piecewise_linear_operands(f, g):
    """Tangent points inside the last cell of the cover (the chord bound must not be used
    there when it turns negative): against the exact polygon hull."""
    e = sp.exp(f.args[0])
    d = f.args[1]
    x1 = (1 - d) / (1 + e)  # f_{eps,delta}: knots (0, 1 - d), (x1, (1 - d) - e x1), (1 - d, 0)
    knots = [(sp.Integer(0), 1 - d), (x1, 1 - d - e * x1), (1 - d, sp.Integer(0)),
             (sp.Integer(1), sp.Integer(0))]
    h = ta.Shift(f, -g)
    for a in (R(1, 1000), R(1, 3), R(9, 10), R(995, 1000)):
        v = ta.evaluate(h, a, dps=20)
        truth = _polygon_hull_value(knots, g, a)
        with workdps(40):
            t = mpmath.mpf(sp.N(truth, 45))
            if not v.is_point:  # an enclosure holds the truth; a point has its 20 digits
                assert v.lo <= t + mpmath.mpf(10) ** -30 and t - mpmath.mpf(10) ** -30 <= v.hi, \
                    (a, v, truth)
        assert close(v, t, 19), (a, v, truth)


def test_upper_translate_degenerate_cases():
    for f, t in ((ta.Id, -R(1, 2)), (ta.G(1), -1), (ta.EpsDelta(1, R(1, 10)), -R(1, 2))):
        v = ta.evaluate(ta.Shift(f, t), "0.3", dps=20)
        with workdps(40):
            truth = mpmath.mpf(7) / 10
        assert v.is_point and close(v, truth, 19)
