"""Both sides of Wang et al.'s Thm. 5.1 on the unclipped example (initialisation_unclipped.py)
against independent routes: mpmath quadrature of the joint pair's expectations at 30 digits,
the Neyman-Pearson interval of the normal pair found from the densities' log-likelihood ratio in
the original coordinates at 60 digits, and the derivative and curvature bounds in a checked on
Arb differences."""

from __future__ import annotations

import pytest
import sympy as sp
from flint import arb, fmpq

from tradeoff_algebra.bounds.initialisation_unclipped import (
    CURVATURE,
    SLOPE_LIPSCHITZ,
    joint_alpha,
    joint_beta,
    joint_point,
    output_laws,
    output_point,
    output_slopes,
)
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.numeric.context import arb_precision, mp


def _ball(x: sp.Rational):
    return arb(fmpq(int(x.p), int(x.q)))


def _contains(ball, x_mpf) -> bool:
    """The ball contains the mpf (compared exactly, as Arb numbers)."""
    from tradeoff_algebra.numeric.arb import arb_exact

    return ball.contains(arb_exact(x_mpf))


def _quad_joint(a, s):
    """alpha(s), beta(s) of the joint pair with mu_I = a - I by mpmath quadrature over I."""
    def E(h):
        return mp.quad(lambda i: h(abs(a - i)) * mp.npdf(i), [-mp.inf, a - 2, a, a + 2, mp.inf])

    def t(mu):
        return s / mu + mu / 2

    return E(lambda mu: mp.ncdf(-t(mu))), E(lambda mu: mp.ncdf(t(mu) - mu))


@pytest.mark.parametrize("a,s", [(1, 1), (sp.Rational(1, 2), -2), (2, 0), (sp.Rational(3, 2),
                                                                          sp.Rational(1, 3))])
def test_joint_point_against_quadrature(a, s):
    a, s = sp.Rational(a), sp.Rational(s)
    with arb_precision(120):
        A, B = joint_point(_ball(a), _ball(s), prec=90)
    with mp.workdps(30):
        qa, qb = _quad_joint(mp.mpf(a.p) / a.q, mp.mpf(s.p) / s.q)
        # the quadrature is an estimate: compare to its 25th digit
        for ball, q in ((A, qa), (B, qb)):
            mid = mp.mpf(ball.mid().str(40, radius=False))
            assert abs(mid - q) <= mp.mpf(10) ** -25, (a, s, ball, q)
            assert ball.rad() < arb(10) ** -25


@pytest.mark.parametrize("n,a,w", [(2, 1, sp.Rational(1, 2)), (2, 2, sp.Rational(3, 2)),
                                   (3, sp.Rational(1, 2), sp.Rational(1, 10)),
                                   (5, sp.Rational(7, 4), 2)])
def test_output_point_is_the_neyman_pearson_interval(n, a, w):
    """The likelihood ratio q/p of N(m1, s1^2) to N(m0, s0^2), s1 < s0, is largest at the
    vertex x_c of its log (a downward parabola in x); the interval x_c +- w s0 is the
    Neyman-Pearson region of half-width w in z = (x - m0)/s0. Its P-mass and 1 - its Q-mass,
    from the densities' CDFs at 60 digits, lie in the Arb balls."""
    m0, s0, m1, s1 = (sp.N(v, 70) for v in output_laws(a, n))
    with mp.workdps(60):
        m0, s0, m1, s1 = (mp.mpf(str(v)) for v in (m0, s0, m1, s1))
        xc = (m1 / s1**2 - m0 / s0**2) / (1 / s1**2 - 1 / s0**2)
        w = sp.Rational(w)
        W = mp.mpf(w.p) / w.q
        lo, hi = xc - W * s0, xc + W * s0
        al = mp.ncdf((hi - m0) / s0) - mp.ncdf((lo - m0) / s0)
        be = 1 - (mp.ncdf((hi - m1) / s1) - mp.ncdf((lo - m1) / s1))
        # the ratio is larger inside than at the ends (the region is the right one)
        def llr(x):
            return mp.log(mp.npdf(x, m1, s1) / mp.npdf(x, m0, s0))
        assert llr(xc) > llr(hi) and abs(llr(lo) - llr(hi)) < mp.mpf(10) ** -50
        with arb_precision(200):
            A, B = output_point(_ball(sp.Rational(a)), n, _ball(w))
            assert _contains(A, al) and _contains(B, be), (A, al, B, be)


def test_derivatives_in_a_against_differences():
    """alpha(a + e) - alpha(a) = int_a^{a+e} alpha' lies in e (alpha'(a) + [-C e, C e])
    (C = CURVATURE), and |alpha'| <= SLOPE_LIPSCHITZ; the same for beta and for the closed-form
    slopes of the left side (Arb differences at 2^-20)."""
    e = arb(2) ** -20
    with arb_precision(100):
        for a, s in ((arb(1), arb(1)), (arb(fmpq(3, 2)), arb(-1)), (arb(fmpq(1, 2)), arb(0))):
            for fn in (joint_alpha, joint_beta):
                d = fn(a, s, prec=80, deriv=True)
                diff = (fn(a + e, s, prec=80) - fn(a, s, prec=80)) / e
                assert diff.overlaps(d + CURVATURE * e * arb(-1).union(arb(1))), (fn, a, s)
                assert abs(d).upper() <= SLOPE_LIPSCHITZ().lower()
            w = arb(fmpq(3, 4))
            da, db = output_slopes(a, 2, w)
            pa, pb = output_point(a, 2, w)
            qa, qb = output_point(a + e, 2, w)
            # the closed-form slopes' second derivatives are below 1 here: e/2 bounds the gap
            assert ((qa - pa) / e).overlaps(da + e * arb(-1).union(arb(1)))
            assert ((qb - pb) / e).overlaps(db + e * arb(-1).union(arb(1)))


def test_bad_record_count_is_refused():
    with pytest.raises(InvalidParameter, match="n"):
        output_laws(1, 1)
