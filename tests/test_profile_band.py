"""Certified bands of symmetric trade-off functions from their privacy profiles
(``numeric.profile_band``) against closed forms in mpmath, and DP-SGD's whole curves by the
Laplace inversion (``routes.inversion_curve``) against certified deltas and the PLD engine."""

import warnings

import numpy as np
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.profile_band import band
from tradeoff_algebra.numeric.protocol import mp_curve
from tradeoff_algebra.routes.inversion_curve import inversion_band

R = sp.Rational


def _gauss_delta(mu: float, e: float) -> arb:
    """delta of G_mu at eps: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), in Arb."""
    with working_precision(160):
        m, x = arb(mu), arb(e)
        phi = lambda z: (-z / arb(2).sqrt()).erfc() / 2  # noqa: E731
        return phi(-x / m + m / 2) - x.exp() * phi(-x / m - m / 2)


def _gauss_truth(mu: float, a: float):
    """(f, 1 - f) of G_mu at alpha in mpmath at 40 digits: Phi(Phi^-1(1 - a) - mu)."""
    with mp.workdps(40):
        z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1) if 0 < a < 1 else None
        if z is None:
            return (mp.one, mp.zero) if a == 0 else (mp.zero, mp.one)
        f = mp.ncdf(z - mu)
        return f, mp.ncdf(mu - z)


@pytest.mark.parametrize("mu,n", [(1.5, 60), (1.5, 240), (0.3, 120), (4.0, 200)])
def test_gaussian_band_holds_the_closed_form(mu, n):
    eps = [0.0] + [12.0 * k / n for k in range(1, n + 1)]
    d = [_gauss_delta(mu, e) for e in eps]
    x = np.concatenate([np.linspace(0, 1, 101), np.logspace(-12, -1, 23)])
    b = band(eps, d, x)
    for i, a in enumerate(x):
        f, p = _gauss_truth(mu, float(a))
        assert b.f_lo[i] <= f <= b.f_hi[i], (a, b.f_lo[i], f, b.f_hi[i])
        assert b.power_lo[i] <= p <= b.power_hi[i], (a, b.power_lo[i], p, b.power_hi[i])
    inner = (x > 1e-4) & (x < 1)
    step = 12.0 / n / min(mu, 1.0)  # the grid step on the profile's own scale
    assert np.max((b.power_hi - b.power_lo)[inner] / b.power_hi[inner]) < 4 * step**2


def test_band_width_is_second_order_in_the_grid_step():
    x = np.linspace(0.01, 0.99, 99)
    widths = []
    for n in (40, 160):
        eps = [0.0] + [10.0 * k / n for k in range(1, n + 1)]
        widths.append(band(eps, [_gauss_delta(1.0, e) for e in eps], x).width)
    assert widths[1] < widths[0] / 8


@pytest.mark.parametrize("on_grid", [True, False])
def test_kinked_profile_of_f_eps_delta(on_grid):
    """f_{eps0, delta0} (Dong, Roth & Su, Eq. (10)): its profile has a kink at eps0 and is
    delta0 beyond (the atom f(0) = 1 - delta0); the band holds the exact curve whether eps0 is
    a grid point or not."""
    e0, d0 = 1.0, 0.01
    n = 50
    top = 3.0 if on_grid else 3.1
    eps = [0.0] + [top * k / n for k in range(1, n + 1)]
    d = []
    with working_precision(128):
        for e in eps:
            v = d0 + (1 - arb(d0)) * ((arb(e0).exp() - arb(e).exp()) / (1 + arb(e0).exp()))
            d.append(v if e < e0 else arb(d0))
    x = np.linspace(0, 1, 201)
    b = band(eps, d, x)
    for i, a in enumerate(x):
        with mp.workdps(30):
            a, dd = mp.mpf(float(a)), mp.mpf(d0)  # (the floats' exact values)
            f = max(0, 1 - dd - mp.exp(e0) * a, mp.exp(-e0) * (1 - dd - a))
        assert b.f_lo[i] <= f <= b.f_hi[i]
    assert b.width < 0.05


def test_band_refuses_a_grid_not_starting_at_zero():
    with pytest.raises(ValueError, match="eps must increase from 0"):
        band([0.5, 1.0, 2.0], [arb(0.1)] * 3, np.array([0.5]))
    with pytest.raises(ValueError, match="eps must increase from 0"):
        band([0.0, 1.0, 1.0], [arb(0.1)] * 3, np.array([0.5]))


def test_dp_sgd_curve_is_certified_and_meets_the_independent_routes():
    """ta.curve(bounds=True) of DP-SGD: certified bands (no EstimateWarning) that lie above
    every line 1 - delta(eps) - e^eps alpha of a certified delta (the envelope's own lines, by
    ta.delta at other eps), and that meet the PLD engine's enclosures (a different route)."""
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 1000)
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.EstimateWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    assert np.all(lo <= hi) and np.max(hi[1:] - lo[1:]) < 1e-3
    for e in (0.1, 0.37, 0.8):
        d = ta.delta(f, e, dps=12)
        assert d.guarantee == "certified"
        with mp.workdps(30):
            line = [1 - mp.mpf(d.hi) - mp.exp(e) * mp.mpf(float(a)) for a in x]
        assert all(h >= v for h, v in zip(hi, line, strict=True))
    plo, phi = (np.asarray(v, dtype=float) for v in mp_curve(f, x))
    assert np.all(lo <= phi + 1e-12) and np.all(plo <= hi + 1e-12)


def test_dp_sgd_power_band_at_tiny_levels():
    """The power 1 - f at alpha down to 1e-10 keeps its relative width (no cancellation), and
    contains the power of the PLD engine's enclosure there."""
    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 1000)
    x = np.logspace(-10, -1, 19)
    b = inversion_band(f, x, 1e-3)
    assert b is not None
    assert np.all(b.power_lo > 0) and np.max((b.power_hi - b.power_lo) / b.power_hi) < 2e-3
    assert np.all(b.power_lo >= x * (1 - 1e-12))  # 1 - f >= alpha for every trade-off f


def test_routes_that_do_not_apply_give_none():
    x = np.linspace(0, 1, 11)
    assert inversion_band(ta.G(1), x) is None  # not a hull
    assert inversion_band(ta.AddRemove(ta.Laplace(1) ** 3), x) is None  # a lattice law
    assert inversion_band(ta.noisy_sgd(R(11, 10), R(1, 100), 10, sampling="gdp_paper"),
                          x) is None  # symmetric C_p(G)^T: no hull of two directions


@pytest.mark.slow
def test_plot_of_the_pathological_dp_sgd_roc_draws_a_certified_band():
    """sigma = 1/2, q = 1/100, T = 20000 (the PLD whole curve took minutes): the ROC plot at
    default settings draws the inversion's band, which holds certified deltas' lines."""
    import matplotlib

    matplotlib.use("Agg")
    f = ta.noisy_sgd(R(1, 2), R(1, 100), 20000)
    ax = ta.plot(f, kind="roc", points=60)
    y = ax.lines[0].get_ydata()
    assert np.all((y > 0) & (y <= 1))
    b = inversion_band(f, np.logspace(-8, 0, 60), 1e-3)
    d = ta.delta(f, 30, dps=8)
    with mp.workdps(30):
        for a, p in zip(np.logspace(-8, 0, 60), b.power_lo, strict=True):
            assert p <= mp.mpf(d.hi) + mp.exp(30) * mp.mpf(float(a))  # 1 - f <= delta + e^eps a


def test_roc_and_evaluate_of_dp_sgd_are_certified_enclosures_of_the_band():
    """ta.roc / ta.evaluate of DP-SGD at one level: the band route's certified enclosure
    (named in Value.route), holding the certified lines of ta.delta and consistent with the
    PLD engine's enclosure of the same point."""
    from tradeoff_algebra.routes.engines import pld_hull_value

    f = ta.noisy_sgd(R(11, 10), R(256, 60000), 1000)
    a = R(1, 100)
    r, v = ta.roc(f, a), ta.evaluate(f, a)
    assert r.guarantee == v.guarantee == "certified" and "profile band" in r.route
    with mp.workdps(30):
        assert abs((1 - mp.mpf(v.mid)) - mp.mpf(r.mid)) <= (r.hi - r.lo) + (v.hi - v.lo)
        for e in (0.2, 0.5):
            d = ta.delta(f, e, dps=12)
            assert mp.mpf(r.hi) <= mp.mpf(d.hi) + mp.exp(e) * mp.mpf(a) * (1 + 1e-20)
        lo, hi = pld_hull_value(f, mp.mpf(a), True)
        assert lo <= mp.mpf(r.hi) and mp.mpf(r.lo) <= hi
