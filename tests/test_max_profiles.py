"""delta of a maximum through an argument's certified privacy profile
(tradeoff_algebra/operators/max_profiles.py), where the argument's power is only an estimate.

References (no library code): the definition of the maximum at 50 digits on the closed forms of
G_mu and L_mu (tests/references/max_profile.py: sup over alpha of 1 - e^eps alpha - max_i
f_i(alpha)); for Max(G_1, Mix(G_1, 1/5)^3), the product's profile by a two-dimensional
quadrature (scipy) of the third coordinate's closed form, and the tangent of that profile
checked to stay below G_1's profile (then the maximum's delta is the product's: the lower
convex envelope of the least profile, Rockafellar Thm. 16.5).
"""

from __future__ import annotations

import math
import warnings

import mpmath as M
import pytest
import sympy as sp
from references.max_profile import g_delta, g_value, l_value, primal_delta

import tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.value import CertifiedPair
from tradeoff_algebra.operators.max_delta import _log_bracket, _Powers
from tradeoff_algebra.operators.max_profiles import ProfilePower, profile_max_delta

R = sp.Rational


@pytest.mark.parametrize("e", ["0.1", "0.25", "0.6"])
def test_profile_route_against_the_definition(e):
    """Max(G_1, L_1) with L_1 taken through its profile alone (its power never asked): at
    0.25 the common tangent (delta strictly below both profiles), at 0.1 and 0.6 one argument
    active. The pair is certified and holds the 50-digit definition."""
    with mp.workdps(30), arb_precision(mp.prec + 32):
        powers = _Powers([G(1)])
        r = profile_max_delta([G(1)], [ProfilePower(Laplace(1))],
                              lambda x: powers.at_zero() if x == 0 else powers.at(x),
                              mp.mpf(e), 1e-20, _log_bracket)
    truth, _ = primal_delta([g_value(1), l_value(1)], e)
    assert isinstance(r, CertifiedPair)
    with M.workdps(50):
        lo, hi = M.mpf(r[0]), M.mpf(r[1])
        assert lo <= truth <= hi, (r, truth)
        assert hi - lo < M.mpf("1e-9") * truth


def _product_reference(v: float) -> tuple[float, float]:
    """(delta, alpha*) of Mix(G_1, 1/5)^3 at e^eps = v: P = N(0, 1)^3, dQ/dP = prod r(x_i),
    r(x) = 4/5 + e^{x - 1/2}/5 increasing. For fixed x_1, x_2 the set {r(x_3) > c} is
    {x_3 > t}, so the x_3 integral is closed: int_{x_3 > t} (r_1 r_2 r(x_3) - v) phi = r_1 r_2
    (4/5 Phibar(t) + 1/5 Phibar(t - 1)) - v Phibar(t), and alpha* = P(dQ/dP > v) has the inner
    integral Phibar(t). The outer two by scipy's dblquad."""
    from scipy import integrate, special

    def r(x):
        return 0.8 + 0.2 * math.exp(x - 0.5)

    def t_of(c):
        if c <= 0.8:
            return -math.inf
        return 0.5 + math.log((c - 0.8) / 0.2)

    def phi(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def inner_delta(x2, x1):
        r12 = r(x1) * r(x2)
        t = t_of(v / r12)
        sb, sb1 = special.ndtr(-t), special.ndtr(-(t - 1))
        return (r12 * (0.8 * sb + 0.2 * sb1) - v * sb) * phi(x1) * phi(x2)

    def inner_alpha(x2, x1):
        t = t_of(v / (r(x1) * r(x2)))
        return special.ndtr(-t) * phi(x1) * phi(x2)

    d, _ = integrate.dblquad(inner_delta, -12, 12, -12, 12, epsabs=1e-13, epsrel=1e-11)
    a, _ = integrate.dblquad(inner_alpha, -12, 12, -12, 12, epsabs=1e-13, epsrel=1e-11)
    return d, a


@pytest.mark.slow
def test_max_with_a_product_whose_power_is_an_estimate():
    """Max(G_1, Mix(G_1, 1/5)^3) at eps = 1: the product's power comes from the PLD engine (an
    estimate) and its profile from the Laplace inversion (certified), so delta took the values'
    conjugate (an estimate). Now certified, and it holds the product's profile by quadrature;
    that tangent at e^1 stays below G_1's profile on a wide grid (so the maximum's delta is
    the product's)."""
    d, a = _product_reference(math.e)
    for k in range(-400, 401):  # v = e^{k/40}: the tangent line d - a (v - e) below delta_G
        x = k / 40
        v = math.exp(x)
        with M.workdps(30):
            dg = float(g_delta(1, x)) if x >= 0 else float(1 - M.exp(x) + M.exp(x) *
                                                            g_delta(1, -x))
        assert d - a * (v - math.e) <= dg + 1e-12, (x, d, a, dg)
    f = ta.Max(G(1), ta.Mix(G(1), R(1, 5)) ** 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        v = ta.delta(f, 1)
    assert v.guarantee == "certified", v
    assert float(v.lo) - 1e-9 <= d <= float(v.hi) + 1e-9, (v, d)
    assert "certified" in v.route and "privacy profile" in v.route
