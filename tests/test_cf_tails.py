"""The loss tails of the certified Laplace inversion (``numeric.cf_tails``) and the band from
curve points (``numeric.profile_band.point_band``, ``routes.inversion_curve.tail_band``):
against closed forms (G_mu products, whose tails are normal distribution functions), against
certified deltas of the single-eps inversion (delta = power - e^eps alpha, and alpha between
the secants of the convex delta(log v)), and whole curves of DP-SGD against the envelope's own
lines and across tolerances."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.families.gaussian import GaussianLaw
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_tails import tail_inverter
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.options import pld_options
from tradeoff_algebra.numeric.profile_band import _upper_hull, point_band
from tradeoff_algebra.routes import inversion_curve as ic
from tradeoff_algebra.routes.engines import _cf_laws, hull_directions

R = sp.Rational


class _DecayingGaussian(GaussianLaw):
    """G_mu's law with the power decay its mgf has: |M(c + it)| = e^{mu^2 (c^2 + c - t^2)/2}
    and sup_t t e^{-mu^2 t^2 / 2} = 1 / (mu sqrt(e)), so |M(c + it)| <= V / t with
    V = e^{mu^2 (c^2 + c) / 2} / sqrt(mu^2 e) (the family's law offers none: its products
    have a closed form)."""

    def power_decay(self, c: arb):
        m2 = self._m2()
        return (m2 * (c * c + c) / 2).exp() / (m2 * arb(1).exp()).sqrt(), 1


def _gauss_tails(mu, eps):
    """(delta, power, alpha) of G_mu at eps: L ~ N(mu^2/2, mu^2) under A, N(-mu^2/2, mu^2)
    under B (Dong, Roth & Su, Cor. 2 and Eq. (6))."""
    p = mp.ncdf(mu / 2 - eps / mu)
    a = mp.ncdf(-eps / mu - mu / 2)
    return p - mp.exp(eps) * a, p, a


def _contains(ball: arb, x) -> bool:
    return mp.mpf(ball.lower()) <= x <= mp.mpf(ball.upper())


def test_gaussian_tails_hold_the_closed_forms():
    """G_{1/2}^{(x) 8} = G_{sqrt 2}: the three balls hold the normal distribution functions at
    40 digits, each narrower than 1e-9 relative near the planning point."""
    law = _DecayingGaussian(R(1, 2))
    factors = [(law, 8)]
    inv, _ = cf._certified_inverter(factors, 1.0, 1e-12)
    tails = tail_inverter(factors, inv)
    assert tails is not None
    mu = mp.sqrt(2)
    with mp.workdps(40):
        for eps in (0.0, 0.25, 1.0, 1.75, 2.5):
            pt = tails.point(eps)
            d, p, a = _gauss_tails(mu, mp.mpf(eps))
            assert _contains(pt.delta, d) and _contains(pt.power, p) and _contains(pt.alpha, a)
            if eps <= 1.75:
                for ball, v in ((pt.power, p), (pt.alpha, a)):
                    assert float(ball.rad()) <= 1e-9 * float(v)
            assert _contains(tails.delta(eps), d)
        est = tails.estimate(np.array([1.0]))  # the floats that place the points
        assert abs(est[1][0] - float(_gauss_tails(mu, mp.one)[1])) < 1e-10
        # d power / d eps = e^eps d alpha / d eps (the slope of the curve is -e^eps)
        assert abs(est[3][0] - math.e * est[4][0]) < 1e-10 * abs(est[3][0])


def test_no_power_decay_no_tails():
    """Without a power decay of |M(c + it)| the kernel 1/z is not summable: no tails."""
    factors = [(GaussianLaw(R(1, 2)), 8)]
    inv, _ = cf._certified_inverter(factors, 1.0, 1e-8)
    assert tail_inverter(factors, inv) is None


def _dp_sgd_sets(T: int = 1000):
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), T)
    sets = _cf_laws(list(hull_directions(f)))
    return f, [[(law, int(n)) for law, n in s] for s in sets]


@pytest.mark.parametrize("direction, eps", [
    (0, 0.3), pytest.param(0, 0.8, marks=pytest.mark.slow),
    pytest.param(1, 0.3, marks=pytest.mark.slow)])
def test_dp_sgd_tails_meet_certified_deltas_and_their_secants(direction, eps):
    """Each direction of DP-SGD (T = 1000): delta of the tails holds the single-eps inversion's
    certified delta (another plan, another contour), and B(L > eps) lies between the secant
    slopes of delta(log v) at v = e^{eps -+ 1e-5}, e^eps (delta is convex in v with slope
    -alpha there, Dong, Roth & Su, Prop. 6)."""
    _, sets = _dp_sgd_sets()
    factors = sets[direction]
    inv, _ = cf._certified_inverter(factors, 0.8, 1e-11)
    tails = tail_inverter(factors, inv)
    pt = tails.point(eps)
    lo, hi = cf.delta_enclosure(factors, eps, 1e-10)
    assert pt.delta.lower() <= hi and lo <= pt.delta.upper()
    step = 1e-5
    dl = cf.delta_enclosure(factors, eps - step, 1e-10)
    dr = cf.delta_enclosure(factors, eps + step, 1e-10)
    with mp.workdps(30):
        v, vl, vr = (mp.exp(mp.mpf(e)) for e in (eps, eps - step, eps + step))
        # -alpha between the secants: alpha in [-(right secant), -(left secant)]
        a_lo = -(mp.mpf(dr[1]) - mp.mpf(lo)) / (vr - v)
        a_hi = -(mp.mpf(lo) - mp.mpf(dl[1])) / (v - vl)
        assert mp.mpf(pt.alpha.upper()) >= a_lo and mp.mpf(pt.alpha.lower()) <= a_hi
        assert a_hi - a_lo <= 1e-3 * a_hi  # (a bracket that says something)
        # delta = power - e^eps alpha
        assert _contains(pt.power - arb(eps).exp() * pt.alpha,
                         (mp.mpf(lo) + mp.mpf(hi)) / 2)


def test_upper_hull_and_point_band_on_g_mu():
    """point_band from exact points of G_1's power curve (rounded down) and its support lines
    (delta rounded up): the band holds 1 - G_1(alpha) (Phi(Phi^-1(alpha) + 1)) at levels
    between the points, its width second order in the spacing."""
    eps = np.linspace(0.0, 4.0, 201)
    px, py, lines_at = [], [], {}
    with mp.workdps(30):
        for e in eps:
            d, p, a = _gauss_tails(mp.one, mp.mpf(float(e)))
            px += [float(a) * (1 + 1e-15), 1 - float(p) * (1 - 1e-15)]
            py += [float(p) * (1 - 1e-15), (1 - float(a)) * (1 - 1e-15)]
            lines_at[float(e)] = float(d) * (1 + 1e-15) + 1e-300
        x = np.concatenate([[0.0], np.logspace(-4, -0.01, 40), [1.0]])
        lines = []
        for _ in x:  # every line at every level, both branches
            lines.append([(float(e), lines_at[float(e)], b) for e in eps for b in (1, 2)])
        band = point_band(np.array(px), np.array(py), x, lines)
        for a, lo, hi in zip(x, band.power_lo, band.power_hi, strict=True):
            truth = mp.ncdf(mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1) + 1) if 0 < a < 1 else a
            assert lo <= truth <= hi
            if 0 < a < 1:
                assert hi - lo <= 2e-3 * truth
    hx, hy = _upper_hull(np.array([0.0, 0.5, 1.0, 0.25]), np.array([0.0, 0.2, 1.0, 0.5]))
    assert hx.tolist() == [0.0, 0.25, 1.0] and hy.tolist() == [0.0, 0.5, 1.0]


@pytest.mark.slow
def test_dp_sgd_curve_at_tol_1e_9_meets_it_and_holds_the_lines():
    """101 levels of DP-SGD (T = 1000) at tol 1e-9: every level within 1e-9 of the power
    (relative), no warning; the band lies above the lines 1 - delta(eps) - e^eps alpha of
    certified ta.delta at other eps, and inside the band at tol 1e-4 (a tighter tolerance
    never gives a wider band)."""
    f, sets = _dp_sgd_sets()
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        tight = ic.tail_band(sets, x, 1e-9)
        loose = ic.tail_band(sets, x, 1e-4)
    rel = (tight.power_hi - tight.power_lo)[1:] / tight.power_hi[1:]
    assert np.max(rel) <= 1e-9
    assert np.all(loose.power_lo <= tight.power_lo) and np.all(tight.power_hi <= loose.power_hi)
    assert np.max(((loose.power_hi - loose.power_lo) / loose.power_hi)[1:]) <= 1e-4
    for e in (0.15, 0.6, 1.1):
        d = ta.delta(f, e, dps=15)
        with mp.workdps(30):
            for a, p_lo in zip(x, tight.power_lo, strict=True):
                assert p_lo <= mp.mpf(d.hi) + mp.exp(e) * mp.mpf(float(a))  # 1 - f <= line
                # the mirror image: 1 - f(alpha) <= 1 - e^-eps (1 - alpha - delta)
                assert p_lo <= 1 - mp.exp(-e) * (1 - mp.mpf(float(a)) - mp.mpf(d.hi))


def test_curve_and_roc_of_dp_sgd_at_tol_1e_9():
    """ta.curve(bounds=True) and ta.roc of DP-SGD (T = 1000) at pld tol 1e-9: certified, no
    warning, within 1e-9; the roc enclosure inside the curve's at the same level."""
    f, _ = _dp_sgd_sets()
    x = np.linspace(0, 1, 51)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        warnings.simplefilter("error", ta.EstimateWarning)
        with pld_options(tol=1e-9):
            lo, hi = ta.curve(f, x, bounds=True)
            r = ta.roc(f, R(1, 50))
    assert r.guarantee == "certified" and "profile band" in r.route
    assert np.max((hi - lo)[1:] / (1 - lo[1:])) <= 1e-9
    assert mp.mpf(r.hi) - mp.mpf(r.lo) <= 1e-9 * mp.mpf(r.hi)
    i = 1  # alpha = 0.02
    assert 1 - hi[i] <= float(r.hi) and float(r.lo) <= 1 - lo[i]


@pytest.mark.slow
def test_secant_band_below_its_floor_says_so():
    """The secant band (products without certified tails) aims at SECANT_TOL_MIN below it, with
    a ToleranceWarning; its band holds the points' band."""
    f, sets = _dp_sgd_sets()
    x = np.array([0.01, 0.3])
    with pytest.warns(ToleranceWarning, match="SECANT_TOL_MIN"):
        sec = ic.secant_band(sets, x, 1e-9)
    pts = ic.tail_band(sets, x, 1e-9)
    assert np.all(sec.power_lo <= pts.power_hi) and np.all(pts.power_lo <= sec.power_hi)
    assert np.max((sec.power_hi - sec.power_lo) / sec.power_hi) <= 1e-6


@pytest.mark.parametrize("K", [1, 7, 60, 341, 1500])
def test_blocked_sums_hold_high_precision_polynomial_values(K):
    """The tails' sums by rectangular splitting (``cf_tails._Blocks``) hold the polynomials'
    values summed term by term by mpmath at 60 digits (a different route: direct powers, no
    balls), and keep about the working precision (the guard bits cover the chains' growth,
    where plain Horner in complex balls would lose about K/2 bits)."""
    from flint import acb

    from tradeoff_algebra.numeric.cf_laws import working_precision
    from tradeoff_algebra.numeric.cf_tails import _Blocks

    def exact(x: arb):  # an exact arb as an mpf (no rounding)
        man, e = x.man_exp()
        return mp.mpf((int(man), int(e)))

    rng = np.random.default_rng(K)
    mids = [complex(a, b) * math.exp(-k / 60) for k, (a, b) in
            enumerate(rng.standard_normal((K, 2)).tolist())]
    polys = [[acb(z.real, z.imag) for z in mids],
             [acb(k * z.real, k * z.imag) for k, z in enumerate(mids)]]
    blocks = _Blocks(polys)
    prec = 70
    for theta in (0.013, 0.7, 2.9):
        with working_precision(prec + blocks.guard):
            w = acb(0, -arb(theta)).exp()
            got = blocks.sums(w)
            first = blocks.sums(w, 1)
        with mp.workdps(60):
            ref = [mp.fsum(mp.mpc(exact(c.real), exact(c.imag)) * mp.expj(-k * mp.mpf(theta))
                           for k, c in enumerate(q)) for q in polys]
            for ball, r in zip(got + first, ref + ref[:1], strict=True):
                for part, rp in ((ball.real, r.real), (ball.imag, r.imag)):
                    assert exact(part.lower()) <= rp <= exact(part.upper())
                    assert float(part.rad()) <= 2.0 ** (10 - prec) * float(max(abs(r), 1))


def test_float_sums_in_blocks_match_direct_powers():
    """The tails' float sums at many eps (blocks of nodes, Horner's rule in w^m) agree with
    those at few eps (every power of w taken directly) to float rounding: Laplace(1/10)^1000's
    split tails (``numeric.cf_split_tails``)."""
    from tradeoff_algebra.numeric.cf_split_tails import split_tails
    from tradeoff_algebra.numeric.cf_tails import FEW_EPS
    from tradeoff_algebra.routes.plan import pld_leaves

    f = ta.TensorPower(ta.Laplace(R(1, 10)), 1000)
    factors = [(law, int(n)) for law, n in _cf_laws([pld_leaves(f)])[0]]
    t = split_tails(factors, 1, 3.0, 1e-9).rest
    e = np.linspace(0.0, 20.0, 4 * FEW_EPS + 37)
    many = t._float_sums(e)
    few = [t._float_sums(e[i:i + FEW_EPS]) for i in range(0, e.size, FEW_EPS)]
    for j in range(3):
        direct = np.concatenate([x[j] for x in few])
        assert np.max(np.abs(many[j] - direct)) <= 1e-12 * np.max(np.abs(direct))
