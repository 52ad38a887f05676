"""The privacy profile of a pointwise maximum (tradeoff_algebra/operators/max_delta.py).

delta of max{f_i} at eps is sup_alpha {min_i (1 - f_i(alpha)) - e^eps alpha} (Dong, Roth &
Su, Prop. 6); as a function of v = e^eps it is the lower convex envelope of min_i delta_i,
neither the maximum nor (between the points where one argument alone is active) the minimum of
the arguments' profiles. References (tests/references/max_profile.py, no library code): the
definition at 50 digits from the closed forms of G_mu and L_mu, the convex envelope of their
closed-form profiles on a grid, and G_1 (x) L_1 by quadrature of its privacy loss.
"""

from __future__ import annotations

import warnings

import mpmath as M
import pytest
import sympy as sp
from references.max_profile import (
    GaussLaplaceProduct,
    envelope_delta,
    g_delta,
    g_value,
    l_delta,
    l_value,
    primal_delta,
)

import tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace, Max
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _holds(v: ta.Value, x) -> bool:
    lo, hi = v.interval() if v.is_point else (v.lo, v.hi)
    with mp.workdps(60):
        return mp.mpf(lo) - mp.mpf(10) ** -45 <= mp.mpf(x) <= mp.mpf(hi) + mp.mpf(10) ** -45


# (arguments as nodes, their reference values, eps): one argument active (0.1: G_1; 0.6: L_1),
# and between them the common tangent (0.25, 0.4)
CASES = [
    ((G(1), Laplace(1)), (g_value(1), l_value(1)), e) for e in ("0.1", "0.25", "0.4", "0.6")
] + [((G(1), Laplace(1), G(R(1, 2))), (g_value(1), l_value(1), g_value(M.mpf(1) / 2)), "0.3"),
     ((G(2), Laplace(R(3, 2))), (g_value(2), l_value(M.mpf(3) / 2)), "1")]


@pytest.mark.parametrize("nodes, refs, e", CASES, ids=[f"{len(c[0])}-{c[2]}" for c in CASES])
def test_delta_of_a_max_against_the_definition(nodes, refs, e):
    truth, _ = primal_delta(refs, e)
    v = ta.delta(Max(*nodes), R(e), 30)
    assert v.guarantee == "certified" and v.width <= 1e-28 * v.hi, v
    assert _holds(v, truth), (v, truth)


@pytest.mark.slow
def test_the_profile_of_a_max_is_the_convex_envelope_of_the_least_profile():
    """The description in the module docstring, checked on the references alone: the
    definition equals the convex envelope of min(delta_G1, delta_L1) in e^eps (to the grid's
    1e-7); where the common tangent is active it lies strictly below both profiles, so it is
    neither their maximum nor their minimum; the library's value sits below both."""
    deltas = [lambda x: g_delta(1, x), lambda x: l_delta(1, x)]
    for e in ("0.1", "0.25", "0.6"):
        truth, _ = primal_delta([g_value(1), l_value(1)], e)
        env = envelope_delta(deltas, e, -1, "1.5", n=2000)
        assert abs(truth - env) < 1e-6, (e, truth, env)
    truth, _ = primal_delta([g_value(1), l_value(1)], "0.25")
    least = min(g_delta(1, M.mpf("0.25")), l_delta(1, M.mpf("0.25")))
    assert truth < least - 1e-4
    v = ta.delta(Max(G(1), Laplace(1)), R(1, 4), 30)
    assert v.hi < min(ta.delta(G(1), R(1, 4)).lo, ta.delta(Laplace(1), R(1, 4)).lo)


@pytest.mark.slow
def test_delta_of_a_max_with_a_product_argument():
    """Max(G(3/2), G(1) (x) L_1) at eps = 7.4488: the product's power is the certified band of
    its profile (routes/profile_curve.py), so delta is certified, and its width follows the
    tolerance (the values f(alpha*) ~ 1 - 7e-10 of the conjugate route kept 1e-5 at any tol).
    At alpha* = P(L > eps) the product lies above G(3/2), so the maximum's delta is the
    product's there (delta <= delta_g everywhere, = at alpha*): the quadrature reference."""
    e = M.mpf("7.4488")
    ref = GaussLaplaceProduct()
    p, q = ref.tails(e)
    with M.workdps(50):
        assert 1 - q >= g_value(M.mpf(3) / 2)(p)  # the regime: max = the product at alpha*
    truth = ref.delta(e)
    f = Max(G(R(3, 2)), G(1) @ Laplace(1))
    widths = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        for tol in (1e-6, 1e-9):
            with ta.pld_options(tol=tol):
                v = ta.delta(f, R("7.4488"))
            assert v.guarantee == "certified" and _holds(v, truth), (tol, v, truth)
            widths.append(v.width / v.hi)
    assert widths[0] < 1e-4 and widths[1] < 1e-7 and widths[1] < widths[0] / 100


def test_eps_of_a_max_of_closed_forms():
    """eps(0.2) of Max(G_1, L_1): at eps = 1 + 2 log(0.8) the maximum's delta is L_1's
    (the definition, at 50 digits), so eps is L_1's, 1 + 2 log(1 - 0.2)."""
    with M.workdps(50):
        e = 1 + 2 * M.log(M.mpf("0.8"))
        truth, _ = primal_delta([g_value(1), l_value(1)], e)
        assert abs(truth - l_delta(1, e)) < M.mpf(10) ** -40
    v = ta.epsilon(Max(G(1), Laplace(1)), R(1, 5), 20)
    assert v.guarantee == "certified" and _holds(v, e), (v, e)


@pytest.mark.slow
def test_eps_of_a_max_is_never_wider_at_a_tighter_tolerance():
    """eps(1e-10) of Max(G(3/2), G(1) (x) L_1) at tol 5e-4, 1e-6, 1e-9: certified
    enclosures of the reference (the product's eps by the secant on the quadrature's log
    delta, the maximum being the product there), each narrower than the one before (widths
    2.9e-4, 2.7e-7, 4.9e-9 in one run). Before, the bracketing search stopped at a width set
    by where its trials fell, and at 1e-9 it was 3 % wider than at 1e-6 in some runs."""
    ref = GaussLaplaceProduct()
    with M.workdps(50):
        target = M.mpf("1e-10")
        e = M.findroot(lambda x: M.log(ref.delta(x)) - M.log(target), (M.mpf("7.44"),
                                                                        M.mpf("7.46")),
                       solver="secant", tol=M.mpf(10) ** -40)
        p, q = ref.tails(e)
        assert 1 - q >= g_value(M.mpf(3) / 2)(p)
    f = Max(G(R(3, 2)), G(1) @ Laplace(1))
    prev = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        for tol in (5e-4, 1e-6, 1e-9):
            with ta.pld_options(tol=tol):
                v = ta.epsilon(f, "1e-10")
            assert v.guarantee == "certified" and _holds(v, e), (tol, v, e)
            if prev is not None:
                assert v.width < prev.width, (tol, v, prev)
            prev = v
