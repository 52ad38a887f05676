"""L_mu^k with an irrational mu (sqrt(2), pi/3), certified by the sandwich between rational
parameters (routes/parameter_sandwich), against 40-digit references with mu an mpf: the
convolution sums of the loss law (references/laplace_sum, k <= 10), the Bromwich integral of
the moment generating function (references/laplace_bromwich, k = 1000) and the closed form of
one step (Dong, Roth & Su, Prop. 7)."""

from __future__ import annotations

import pytest
import sympy as sp
from references import laplace_bromwich as lb
from references import laplace_sum as ls

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import pld
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes.parameter_sandwich import mu_bracket

MUS = {"sqrt2": sp.sqrt(2), "pi/3": sp.pi / 3}
#: eps with delta(eps) of moderate size, and a threshold t for the roc check, per k
EPS = {1: 1, 3: 1, 10: 3, 1000: {"sqrt2": 700, "pi/3": 450}}
THRESHOLD = {1: mp.mpf(1) / 5, 3: mp.mpf(1) / 5, 10: mp.mpf(1)}


def _mu(name):
    return mp.mpf(sp.N(MUS[name], 45))


def _eps(name, k):
    e = EPS[k]
    return e[name] if isinstance(e, dict) else e


def _delta_ref(name, k, eps):
    mu, e = _mu(name), mp.mpf(eps)
    if k == 1000:
        return lb.delta(mu, k, e)
    q, p, _, _ = ls.tails(mu, k, e)
    return q - mp.exp(e) * p


@pytest.mark.parametrize("mu", [sp.sqrt(2), sp.pi / 3, sp.log(3), 10**6 * sp.sqrt(3),
                                sp.pi / 10**5])
@pytest.mark.parametrize("bits", [24, 60, 150])
def test_mu_bracket_is_a_proved_dyadic_bracket(mu, bits):
    a, b = mu_bracket(mu, bits)
    assert 0 < a < b and sp.simplify(a < mu) == sp.true and sp.simplify(mu < b) == sp.true
    e = int(sp.floor(sp.log(mu, 2)))
    assert b - a <= sp.Integer(2) ** (e - bits + 1)


@pytest.mark.parametrize("name", list(MUS))
@pytest.mark.parametrize("k", [1, 3, 10, 1000])
def test_delta_against_the_references(name, k):
    eps = _eps(name, k)
    v = ta.delta(ta.Laplace(MUS[name]) ** k, eps)
    with mp.workdps(40):
        ref = _delta_ref(name, k, eps)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= ref <= hi
    assert hi - lo <= pld.options()["tol"] * ref


def test_the_bromwich_reference_does_not_depend_on_its_contour():
    with mp.workdps(40):
        mu, t, k = _mu("sqrt2"), mp.mpf(700), 1000
        c0 = lb._saddle(mu, k, t, 0)
        vals = []
        for c, top in [(c0, 8), (c0 * mp.mpf("0.8"), 64), (c0 * mp.mpf("1.2"), 4)]:
            def h(s, c=c):
                z = mp.mpc(c, s)
                return mp.re(lb.mgf(mu, z) ** k * mp.exp(-z * t) / (z * (z + 1)))
            vals.append(mp.quad(h, [0] + [mp.mpf(top) * 2**i / 2**14 for i in range(15)],
                                maxdegree=10) / mp.pi)
        assert max(vals) - min(vals) < mp.mpf(10) ** -35 * vals[0]


@pytest.mark.parametrize("name", list(MUS))
@pytest.mark.parametrize("k", [1, 3, 10, 1000])
def test_epsilon_against_the_references(name, k):
    """eps(1e-6): the reference delta at the enclosure's ends brackets 1e-6 (delta decreases)."""
    d = mp.mpf(10) ** -6
    v = ta.epsilon(ta.Laplace(MUS[name]) ** k, 1e-6)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and hi - lo <= pld.options()["tol"] * lo
    with mp.workdps(40):
        assert _delta_ref(name, k, lo) >= d >= _delta_ref(name, k, hi)


@pytest.mark.parametrize("name", list(MUS))
@pytest.mark.parametrize("k", [1, 3, pytest.param(10, marks=pytest.mark.slow)])
def test_roc_against_the_neyman_pearson_point(name, k):
    """At alpha = P(L > t) (no atom at t) the power is Q(L > t): one Neyman-Pearson point."""
    with mp.workdps(40):
        q, p, _, _ = ls.tails(_mu(name), k, THRESHOLD[k])
        v = ta.roc(ta.Laplace(MUS[name]) ** k, p)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= q <= hi and hi - lo < 2e-4


@pytest.mark.parametrize("name", list(MUS))
def test_roc_of_the_thousandth_power(name):
    """1 - f(1/3) of L_mu^1000 lies in [Q(L > 0), 1] and Q(L <= 0) <= E_Q e^{-L/2} = M(-1/2)^k
    (Chernoff): the reference interval [1 - M(-1/2)^1000, 1], M in closed form."""
    v = ta.roc(ta.Laplace(MUS[name]) ** 1000, sp.Rational(1, 3))
    with mp.workdps(40):
        ref_lo = 1 - lb.mgf(_mu(name), -mp.mpf(1) / 2) ** 1000
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= 1 and hi >= ref_lo and hi - lo < 1e-3


def test_a_gaussian_next_to_an_irrational_laplace():
    """G_1 (x) L_sqrt(2): the delta of the sandwich against the direct quadrature of the two
    losses (references.audit2_refs.gauss_laplace_delta)."""
    from references.audit2_refs import gauss_laplace_delta

    v = ta.delta(ta.G(1) @ ta.Laplace(sp.sqrt(2)), 1)
    ref = gauss_laplace_delta(1, _mu("sqrt2"), 1)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= ref <= hi


def test_a_tighter_tolerance_narrows_the_sandwich():
    f = ta.Laplace(sp.pi / 3) ** 3
    w0 = ta.delta(f, 1).interval()
    with pld.pld_options(tol=1e-9):
        w1 = ta.delta(f, 1).interval()
    assert w0[0] <= w1[0] <= w1[1] <= w0[1] and w1[1] - w1[0] <= 1e-9 * w1[1]
