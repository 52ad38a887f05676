"""G_mu against the Neyman-Pearson trade-off of N(0,1) vs N(mu,1) computed independently.

The reference (tests/reference_np.py) finds the threshold t with P(N(0,1) > t) = alpha by
bisection on CDFs written with ``mpmath.erfc`` (never the package's ``ncdf_inv``) and returns
P(N(mu,1) <= t), or the power P(N(mu,1) > t) for the ROC side.

The shared tests of G_mu and L_mu (values and ROC at every level, closed form, derivative,
fixed point, inverse, monotonicity in mu) are in tests/test_families.py; here what is G's own.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from reference_np import digits, gauss_np, gauss_np_quad, level
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import G, Phi, PhiInv

REF_DPS = 70


def _mu_mpf(mu):
    """The parameter as the reference sees it (a float is its exact binary value)."""
    if isinstance(mu, float):
        return mp.mpf(mu)
    return mp.mpf(sp.Float(sp.N(mu, REF_DPS + 10), REF_DPS + 10)._mpf_)


def _ref(mu, alpha, roc=False):
    with workdps(REF_DPS):
        return gauss_np(_mu_mpf(mu), alpha, roc=roc)


def _assert_digits(value, ref, need):
    with workdps(REF_DPS):
        d = digits(value, ref)
    assert d >= need, f"{value} vs {ref}: {d:.1f} digits"


@pytest.mark.parametrize("mu", [0, R(1, 10), 1, 3, 10])
def test_hardest_points(mu):
    """alpha = 1 - 1e-20 (the value is tiny) and the ROC at 1e-300 (1 - f cancels to 0)."""
    v = ta.evaluate(G(mu), 1 - R(1, 10**20), dps=45)
    _assert_digits(v.mid, _ref(mu, 1 - R(1, 10**20)), 40)
    w = ta.roc(G(mu), "1e-300", dps=45)
    _assert_digits(w.mid, _ref(mu, "1e-300", roc=True), 40)
    # the naive route loses everything here: f(1e-300) rounds to 1 at 45 digits
    if mu != 0:
        assert w.mid < mp.mpf(10) ** -100
        assert 1 - ta.evaluate(G(mu), "1e-300", dps=45).mid == 0


@pytest.mark.parametrize("alpha", [R(1, 10), R(1, 3), R(4, 5)])
def test_quadrature_route(alpha):
    """A third route for the type-II error: quadrature of the N(mu,1) density to the threshold."""
    with workdps(40):
        ref = gauss_np_quad(mp.mpf(3) / 2, alpha)
    _assert_digits(ta.evaluate(G(R(3, 2)), alpha, dps=35).mid, ref, 33)


def test_endpoints_exact():
    for mu in [0, 1, 10]:
        assert ta.evaluate(G(mu), 0).mid == 1
        assert ta.evaluate(G(mu), 1).mid == 0
        assert ta.roc(G(mu), 0).mid == 0
        assert ta.roc(G(mu), 1).mid == 1
    assert G(2)(0) == 1 and G(2)(1) == 0


def test_g0_is_id():
    for alpha in [R(1, 7), "1e-300", 1 - R(1, 10**20)]:
        with workdps(REF_DPS):
            a, ac = level(sp.Rational(alpha))
        _assert_digits(ta.evaluate(G(0), alpha, dps=40).mid, ac, 40)
        _assert_digits(ta.roc(G(0), alpha, dps=40).mid, a, 40)


def test_symbolic_parameter_substituted_later():
    mu, a = sp.symbols("mu a")
    e = G(mu)(a).subs({mu: 1, a: R(1, 3)})
    assert e == Phi(PhiInv(R(2, 3)) - 1)
    _assert_digits(mp.make_mpf(sp.N(e, 50)._mpf_), _ref(1, R(1, 3)), 48)
    f = G(mu).subs(mu, 1)
    assert f == G(1)
    with pytest.raises(ta.InvalidParameter, match="mu"):
        ta.evaluate(G(mu), R(1, 3))


def test_mpmath_precision_untouched():
    before = mp.prec
    ta.evaluate(G(1), "1e-300", dps=80)
    ta.roc(G(1), 1 - R(1, 10**20), dps=80)
    assert mp.prec == before


@pytest.mark.parametrize("dps", [15, 30])
@pytest.mark.parametrize("eps", [26.315616571978058, 12.595666796779504, 1e-3])
def test_delta_for_tiny_mu_where_every_bit_cancels(eps, dps):
    """delta of G_mu at mu = 1e-88 (Cor. 1): t = eps + log Phi(b) - log Phi(a) is ~mu^2 against
    log-terms ~(eps/mu)^2, so every bit of the first passes cancels (the random-tree run found
    "did not converge" at dps 15); the precision now doubles until t is resolved. Reference:
    Phi(a) - e^eps Phi(b) formed directly at 700 digits."""
    ctx = mpmath.MPContext()
    ctx.dps = 700
    mu, e = ctx.mpf(1e-88), ctx.mpf(eps)
    a, b = -e / mu + mu / 2, -e / mu - mu / 2
    ref = ctx.ncdf(a) - ctx.exp(e) * ctx.ncdf(b)
    v = ta.delta(G(1e-88), eps, dps)
    assert v.is_point
    assert abs(ctx.mpf(v.mid) - ref) <= ref * ctx.mpf(10) ** (1 - dps)
