"""Certified delta and epsilon of Group, Inverse, Symmetrize and Shift nodes (operators/
power_profile.py and the closed forms read through the equal node), against references
computed here in mpmath by another route: the closed-form profiles of G_mu and L_mu at 40
digits, and brute-force Neyman-Pearson (sup over a grid of alpha of 1 - f(alpha) - e^eps alpha,
a lower bound of delta, refined by a golden section at 40 digits) with f evaluated from its
definition (the group's k-fold composition, the inverse by root finding, never the identity
sup_t {1 - t - e^eps f(t)} the route uses)."""

from __future__ import annotations

import warnings

import mpmath
import pytest
import sympy as sp
from operator_reference import group  # 1 - (1 - f)^{o k} (Dong, Roth & Su, Thm. 3)
from references.golden_sup import grid_golden_sup

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning

R = sp.Rational
DPS = 40


# -- references (mpmath, 40+ digits) -----------------------------------------------------------
def _phi(x):
    return mpmath.ncdf(x)


def _phi_inv_upper(a):
    """Phi^{-1}(1 - a) for a in (0, 1): sqrt(2) erfinv(1 - 2a) with 40 extra digits (1 - 2a
    cancels for small a; the tests' levels stay above 1e-30)."""
    with mpmath.workdps(mpmath.mp.dps + 40):
        z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(a))
    return +z


def gauss(mu):
    def f(a):
        if a <= 0:
            return mpmath.mpf(1)
        if a >= 1:
            return mpmath.mpf(0)
        return _phi(_phi_inv_upper(a) - mu)
    return f


def gauss_delta(mu, eps):
    """Dong, Roth & Su, Cor. 1."""
    return _phi(-eps / mu + mu / 2) - mpmath.exp(eps) * _phi(-eps / mu - mu / 2)


def laplace_delta(mu, eps):
    """L_mu's profile: 1 - e^{(eps - mu)/2} for eps < mu, else 0."""
    return max(mpmath.mpf(0), -mpmath.expm1((eps - mu) / 2))


def epsdelta(eps, d):
    e = mpmath.exp(eps)

    def f(a):
        return max(mpmath.mpf(0), 1 - d - e * a, (1 - d - a) / e)
    return f


def mix(f, p):
    return lambda a: p * f(a) + (1 - p) * (1 - a)


def mix_gauss_slope(mu, p):
    """d/dalpha of p G_mu(alpha) + (1 - p)(1 - alpha): G_mu' = -e^{mu z - mu^2/2}, z =
    Phi^{-1}(1 - alpha)."""
    return lambda a: -p * mpmath.exp(mu * _phi_inv_upper(a) - mu * mu / 2) - (1 - p)


def inverse(f, df):
    """f^{-1}(alpha) = inf{t : f(t) <= alpha} (Eq. (3)): bisection to 2^-12, then Newton's
    method on f(t) = alpha (f convex and decreasing: the iterates stay on one side)."""
    def g(a):
        if f(mpmath.mpf(0)) <= a:
            return mpmath.mpf(0)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(12):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if f(m) > a else (lo, m)
        return mpmath.findroot(lambda t: f(t) - a, (lo + hi) / 2, df=df, solver="newton")
    return g


def np_delta(power, eps, grid: int = 400, steps: int = 160):
    """(grid sup, refined sup) of psi = power(alpha) - e^eps alpha: the sup over a grid of
    alpha (uniform and logarithmic), a lower bound of delta, then ``steps`` golden-section
    steps between the best grid point's neighbours (concave psi)."""
    v = mpmath.exp(eps)
    xs = sorted({mpmath.mpf(i) / grid for i in range(grid + 1)}
                | {mpmath.mpf(10) ** (-j / 4) for j in range(4 * 12)})

    def psi(a):
        return power(a) - v * a

    return grid_golden_sup(psi, xs, steps)


def _certified(v):
    """The certified enclosure of ``v`` as mpmath numbers at the current precision (a point
    widened by one unit in its last digit)."""
    assert v.guarantee in ("certified", "exact"), (v, v.guarantee, v.route)
    lo, hi = v.interval() if v.is_point else (v.lo, v.hi)
    return mpmath.mpf(lo), mpmath.mpf(hi)


def _check_delta(v, grid_sup, refined, rel: float = 1e-12):
    with mpmath.workdps(DPS):
        lo, hi = _certified(v)
        assert hi >= grid_sup, (v, grid_sup)           # above a value attained
        assert lo <= refined + mpmath.mpf(10) ** -30   # below the supremum
        if refined == 0:  # delta = 0 (the likelihood ratio is bounded by e^eps)
            assert hi <= mpmath.mpf(10) ** -100, v
        else:
            assert hi - lo <= rel * hi, (v, refined)   # and not vacuous


# -- closed forms through the equal node ---------------------------------------------------------
def test_group_of_gaussian_is_g_of_k_mu_certified_point():
    """Group(G_1, 3) = G_3 (Dong, Roth & Su, Thm. 2.14, a registered rule): delta and eps
    certified, against G_3's profile (Cor. 1) at 40 digits."""
    f = ta.Group(ta.G(1), 3)
    assert ta.simplify(f) == ta.G(3)
    v = ta.delta(f, R(1, 2), dps=30)
    assert v.guarantee == "certified" and v.is_point
    with mpmath.workdps(DPS):
        ref = gauss_delta(3, mpmath.mpf(1) / 2)
        lo, hi = v.interval()
        assert lo <= ref <= hi
        e = ta.epsilon(f, R(1, 10**6), dps=20)
        lo, hi = _certified(e)
        assert gauss_delta(3, mpmath.mpf(lo)) >= mpmath.mpf(10) ** -6
        assert gauss_delta(3, mpmath.mpf(hi)) <= mpmath.mpf(10) ** -6


def test_group_power_closed_by_the_rules_is_certified():
    """Group(G_1, 3)^{(x) 5} = G_{3 sqrt 5} (Cor. 2): the product's delta is the closed form's."""
    f = ta.Group(ta.G(1), 3) ** 5
    v = ta.delta(f, 2, dps=25)
    assert v.guarantee == "certified"
    with mpmath.workdps(DPS):
        ref = gauss_delta(3 * mpmath.sqrt(5), mpmath.mpf(2))
        lo, hi = v.interval()
        assert lo <= ref <= hi
    e = ta.epsilon(f, R(1, 10**3), dps=20)
    with mpmath.workdps(DPS):
        lo, hi = _certified(e)
        assert gauss_delta(3 * mpmath.sqrt(5), mpmath.mpf(lo)) >= mpmath.mpf(10) ** -3
        assert gauss_delta(3 * mpmath.sqrt(5), mpmath.mpf(hi)) <= mpmath.mpf(10) ** -3


@pytest.mark.parametrize("f, mu", [(ta.Inverse(ta.Laplace(1)), 1), (ta.Group(ta.Laplace(1), 2), 2),
                                   (ta.Symmetrize(ta.Laplace(1)), 1)])
def test_laplace_profile_through_the_equal_node(f, mu):
    """Inverse of a symmetric f is f (Dong, Roth & Su, after Prop. 2); L_1's group of 2 is L_2:
    delta and eps certified, against L_mu's profile at 40 digits."""
    v = ta.delta(f, R(1, 2), dps=30)
    with mpmath.workdps(DPS):
        lo, hi = _certified(v)
        assert lo <= laplace_delta(mu, mpmath.mpf(1) / 2) <= hi
        e = ta.epsilon(f, R(1, 10**6), dps=20)
        lo, hi = _certified(e)
        # eps = mu + 2 log(1 - delta), from the closed form
        ref = mu + 2 * mpmath.log1p(-mpmath.mpf(10) ** -6)
        assert lo - mpmath.mpf(10) ** -18 <= ref <= hi + mpmath.mpf(10) ** -18


# -- the concave search on certified powers, against brute-force Neyman-Pearson -----------------
def test_group_of_epsdelta_delta_and_unbounded_epsilon():
    """Group(f_{1,1/100}, 3): delta by the search (its knots are irrational), eps(1e-6) = oo
    proved from 1 - f(0) = 1 - 0.99^... > 1e-6 (Prop. 6)."""
    f = ta.Group(ta.EpsDelta(1, R(1, 100)), 3)
    v = ta.delta(f, R(1, 2), dps=25)
    with mpmath.workdps(DPS):
        fr = group(epsdelta(1, mpmath.mpf(1) / 100), 3)
        grid, ref = np_delta(lambda a: 1 - fr(a), mpmath.mpf(1) / 2)
        _check_delta(v, grid, ref)
        e = ta.epsilon(f, R(1, 10**6), dps=20)
        assert e.guarantee == "certified" and e.lo == e.hi == mpmath.inf
        assert 1 - fr(0) > mpmath.mpf(10) ** -6


def test_group_flat_top_is_narrow():
    """Group(f_{1/4,0}, 4) at eps = 1/2 has a segment of ratio e^{1/2}: psi is flat at its
    maximum; the enclosure still closes (it was 1 % wide with the golden section alone)."""
    f = ta.Group(ta.EpsDelta(R(1, 4), 0), 4)
    v = ta.delta(f, R(1, 2), dps=25)
    with mpmath.workdps(DPS):
        fr = group(epsdelta(mpmath.mpf(1) / 4, 0), 4)
        grid, ref = np_delta(lambda a: 1 - fr(a), mpmath.mpf(1) / 2)
        _check_delta(v, grid, ref)
        e = ta.epsilon(f, R(1, 10**3), dps=20)
        lo, hi = _certified(e)
        _, d_lo = np_delta(lambda a: 1 - fr(a), mpmath.mpf(lo) - mpmath.mpf(10) ** -12)
        _, d_hi = np_delta(lambda a: 1 - fr(a), mpmath.mpf(hi) + mpmath.mpf(10) ** -12)
        assert d_lo > mpmath.mpf(10) ** -3 > d_hi


def test_shift_delta_and_epsilon():
    """Shift(G_1, 1/10) = max{G_1(alpha + 1/10) - 1/10, 0} (Thm. 5): delta certified by the
    default route of every node; eps(1e-3) = oo since f(0) = G_1(1/10) - 1/10 < 1."""
    f = ta.Shift(ta.G(1), R(1, 10))
    v = ta.delta(f, 1, dps=25)
    with mpmath.workdps(DPS):
        t = mpmath.mpf(1) / 10
        g = gauss(1)
        grid, ref = np_delta(lambda a: 1 - max(g(a + t) - t, 0), mpmath.mpf(1))
        _check_delta(v, grid, ref)
    e = ta.epsilon(f, R(1, 10**3), dps=20)
    assert e.guarantee == "certified" and e.lo == mpmath.inf


@pytest.mark.slow
def test_inverse_of_mix_from_the_operand_values():
    """Inverse(Mix(G_1, 1/2)): sup_t {1 - t - e^eps f(t)} from f's balls, against
    brute-force sup_alpha {1 - f^{-1}(alpha) - e^eps alpha} with f^{-1} by root finding."""
    f = ta.Inverse(ta.Mix(ta.G(1), R(1, 2)))
    fi = inverse(mix(gauss(1), mpmath.mpf(1) / 2), mix_gauss_slope(1, mpmath.mpf(1) / 2))
    for eps in (R(1, 2), 2):  # (f^{-1}'s ratio is at most 1/(1 - p) = 2: delta(2) = 0)
        v = ta.delta(f, eps, dps=25)
        assert v.route.startswith("concave search on the operand's certified values")
        with mpmath.workdps(30):
            grid, ref = np_delta(lambda a: 1 - fi(a), mpmath.mpf(eps), grid=40, steps=90)
            _check_delta(v, grid, ref)


@pytest.mark.slow
def test_symmetrize_of_mix_delta_and_epsilon():
    """Symmetrize(Mix(G_1, 1/2)) = max{f, f^{-1}} (Prop. 2): delta from min of the two
    certified powers, eps(1e-3) certified, against brute force with f^{-1} by root finding."""
    f = ta.Symmetrize(ta.Mix(ta.G(1), R(1, 2)))
    fm = mix(gauss(1), mpmath.mpf(1) / 2)
    fi = inverse(fm, mix_gauss_slope(1, mpmath.mpf(1) / 2))

    def power(a):
        return 1 - max(fm(a), fi(a))

    v = ta.delta(f, R(1, 2), dps=25)
    assert v.route.startswith("delta of f^S from the certified searches of f and f^{-1}")
    with mpmath.workdps(30):
        grid, ref = np_delta(power, mpmath.mpf(1) / 2, grid=40, steps=90)
        _check_delta(v, grid, ref)
    w = ta.delta(f, R(1, 20), dps=25)  # (both powers bind: the search on their minimum)
    assert w.route.startswith("concave search on the node's certified powers")
    with mpmath.workdps(30):
        grid, ref = np_delta(power, mpmath.mpf(1) / 20, grid=40, steps=90)
        _check_delta(w, grid, ref)
    e = ta.epsilon(f, R(1, 10**3), dps=20)
    with mpmath.workdps(30):
        lo, hi = _certified(e)
        _, d_lo = np_delta(power, lo - mpmath.mpf(10) ** -10, grid=40, steps=90)
        _, d_hi = np_delta(power, hi + mpmath.mpf(10) ** -10, grid=40, steps=90)
        assert d_lo > mpmath.mpf(10) ** -3 > d_hi


def test_symmetrize_roc_is_certified():
    """f^S's power min{1 - f, 1 - f^{-1}} as a ball (Max's ball form, f^{-1} by the certified
    bisection), against the brute-force power at 30 digits."""
    f = ta.Symmetrize(ta.Mix(ta.G(1), R(1, 2)))
    v = ta.roc(f, R(1, 100), dps=20)
    assert v.guarantee == "certified"
    with mpmath.workdps(30):
        fm = mix(gauss(1), mpmath.mpf(1) / 2)
        a = mpmath.mpf(1) / 100
        ref = 1 - max(fm(a), inverse(fm, mix_gauss_slope(1, mpmath.mpf(1) / 2))(a))
        lo, hi = v.interval()
        assert lo <= ref <= hi


@pytest.mark.slow
def test_tighter_tolerance_never_wider():
    """The search stops at the working precision, or at the tolerance once it has spent a few
    dozen levels: a tighter tolerance only runs it longer."""
    f = ta.Inverse(ta.Mix(ta.G(1), R(1, 2)))
    widths = []
    for tol in (1e-2, 1e-6, 1e-12):
        with ta.pld_options(tol=tol), warnings.catch_warnings():
            warnings.simplefilter("ignore", ToleranceWarning)
            ws = []
            for v in (ta.delta(f, R(1, 2), dps=30), ta.epsilon(f, R(1, 10**4), dps=30)):
                with mpmath.workdps(DPS):
                    lo, hi = _certified(v)
                    ws.append(hi - lo)
            widths.append(ws)
    for a, b in zip(widths, widths[1:], strict=False):
        assert b[0] <= a[0] and b[1] <= a[1], widths


# -- epsilon in one search over alpha (power_profile.power_epsilon) -----------------------------
def _bracketing(f, d, monkeypatch):
    """eps by the bracketing search on delta (the one search switched off)."""
    from tradeoff_algebra.operators import power_profile, unary
    with monkeypatch.context() as m:
        m.setattr(power_profile, "power_epsilon", lambda args, d: None)
        m.setattr(unary, "inverse_epsilon", lambda g, d: None)
        power_profile._CACHE.clear()
        w = ta.epsilon(f, d, dps=20)
    assert w.route.startswith("bracketing search on delta"), w.route
    return w


def _one_search(f, d):
    v = ta.epsilon(f, d, dps=20)
    assert v.route.startswith("one concave search for e^"), v.route
    return v


@pytest.mark.parametrize("d", [R(1, 10**3), R(1, 10**6)])
def test_one_search_epsilon_of_group_against_brute_force_and_bracketing(d, monkeypatch):
    """Group(f_{1/4,0}, 4) (a flat top): the one search's eps ends bracket d through
    brute-force Neyman-Pearson on the 4-fold composition, and the bracketing search on delta
    agrees (the one search's enclosure lies within it, up to 1e-18)."""
    f = ta.Group(ta.EpsDelta(R(1, 4), 0), 4)
    v = _one_search(f, d)
    with mpmath.workdps(DPS):
        lo, hi = _certified(v)
        assert hi - lo <= mpmath.mpf(10) ** -15
        fr = group(epsdelta(mpmath.mpf(1) / 4, 0), 4)
        _, d_lo = np_delta(lambda a: 1 - fr(a), lo - mpmath.mpf(10) ** -12)
        _, d_hi = np_delta(lambda a: 1 - fr(a), hi + mpmath.mpf(10) ** -12)
        assert d_lo > mpmath.mpf(d) > d_hi
        wl, wh = _certified(_bracketing(f, d, monkeypatch))
        assert wl - mpmath.mpf(10) ** -18 <= lo and hi <= wh + mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_one_search_epsilon_of_inverse_against_brute_force_and_bracketing(monkeypatch):
    """Inverse(Mix(G_1, 1/2)) at 1e-3: the eps ends bracket d through brute force with
    f^{-1} by root finding; the bracketing search on delta agrees (the search on the
    operand's values, inf_t f(t)/(1 - d - t), no inversion)."""
    f = ta.Inverse(ta.Mix(ta.G(1), R(1, 2)))
    d = R(1, 10**3)
    v = _one_search(f, d)
    assert v.route.startswith("one concave search for e^-eps"), v.route
    fi = inverse(mix(gauss(1), mpmath.mpf(1) / 2), mix_gauss_slope(1, mpmath.mpf(1) / 2))
    with mpmath.workdps(30):
        lo, hi = _certified(v)
        _, d_lo = np_delta(lambda a: 1 - fi(a), lo - mpmath.mpf(10) ** -10, grid=40, steps=90)
        _, d_hi = np_delta(lambda a: 1 - fi(a), hi + mpmath.mpf(10) ** -10, grid=40, steps=90)
        assert d_lo > mpmath.mpf(d) > d_hi
        wl, wh = _certified(_bracketing(f, d, monkeypatch))
        assert wl - mpmath.mpf(10) ** -18 <= lo and hi <= wh + mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_one_search_epsilon_of_shift_meets_bracketing(monkeypatch):
    """Shift(G_1, -1/10) (a segment from the origin, the greatest convex minorant of Thm. 5):
    the one search stops at the tolerance of pld_options after its levels (a flat ratio near
    the segment's end); its enclosure holds the bracketing search's and is within tol."""
    from tradeoff_algebra.numeric.options import options
    f = ta.Shift(ta.G(1), -R(1, 10))
    d = R(1, 10**6)
    v = _one_search(f, d)
    with mpmath.workdps(DPS):
        lo, hi = _certified(v)
        wl, wh = _certified(_bracketing(f, d, monkeypatch))
        assert lo <= wl and wh <= hi  # both certified: the true eps is in both
        assert hi - lo <= options()["tol"] * hi


def test_one_search_epsilon_zero_and_unbounded():
    """d above the total variation gives eps = 0 (the ratio's bound at most 1); d below
    1 - f(0) stays eps = oo (Prop. 6), both certified."""
    f = ta.Group(ta.EpsDelta(R(1, 4), 0), 4)
    with mpmath.workdps(DPS):
        fr = group(epsdelta(mpmath.mpf(1) / 4, 0), 4)
        _, tv = np_delta(lambda a: 1 - fr(a), mpmath.mpf(0))
    v = ta.epsilon(f, R(1, 2), dps=20)
    assert tv < mpmath.mpf(1) / 2
    assert v.guarantee in ("certified", "exact") and mpmath.mpf(v.hi if not v.is_point
                                                                 else v.interval()[1]) <= 1e-15
    e = ta.epsilon(ta.Group(ta.EpsDelta(1, R(1, 100)), 3), R(1, 10**6), dps=20)
    assert e.lo == mpmath.inf and e.guarantee == "certified"
