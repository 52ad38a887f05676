"""delta(0) from a certified delta(eps') at eps' = 2^-40 (routes.engines._delta0_by_shift:
delta(eps') <= delta(0) <= delta(eps') + expm1(eps')), where the Laplace inversion at the
point eps = 0 fails or stays wide; against independent references: the exact quadrature of two
subsampled Gaussian steps (references.sampled_gaussian), dp_accounting's PLD pairs, and the
binomial sums of f_{eps,0}^n for the inequality itself."""

from __future__ import annotations

import warnings

import mpmath
import pytest
import sympy as sp
from references import audit6_refs as R6
from references import audit7_refs as R7
from references.enclosure import certified, iv

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.rewrite import simplify
from tradeoff_algebra.routes.engines import DELTA0_SHIFT, _delta0_by_shift, hull_directions

R = sp.Rational


@pytest.mark.parametrize("eps, n", [(mpmath.log(3), 5), (mpmath.mpf(1) / 10, 40)])
def test_shift_inequality_on_binomial_sums(eps, n):
    """The lemma on an exact law (f_{eps,0}^n, binomial sums at 40 digits): delta(e') <=
    delta(0) <= delta(e') + expm1(e') at e' = 2^-40 and at e' = 1/10 (where the bound is
    tight enough to be seen: delta(0) - delta(e') is about (e^{e'} - 1) P(L > 0))."""
    with mpmath.workdps(50):
        d0 = R7.rr_power_delta(eps, n, 0, 45)
        for e in (mpmath.mpf(2) ** -40, mpmath.mpf(1) / 10):
            de = R7.rr_power_delta(eps, n, e, 45)
            assert de <= d0 <= de + mpmath.expm1(e)


@pytest.mark.slow
def test_shift_on_two_dpsgd_steps_against_quadrature():
    """Two DP-SGD steps (sigma = 1, q = 1/100), the hull of both directions: the enclosure from
    delta(2^-40) holds the exact quadrature's delta(0) (15 digits) and is at most
    expm1(2^-40) plus the inversion's width wide; the public delta(0) too."""
    f = ta.noisy_sgd(1, R(1, 100), 2)
    dirs = hull_directions(simplify(f))
    with mp.workdps(30):
        lo, hi = _delta0_by_shift(list(dirs))
    with mpmath.workdps(15):
        ref = R6.sampled_gaussian_hull_delta(mpmath.mpf(1), mpmath.mpf(1) / 100, 2, 0)
    tiny = mpmath.mpf(10) ** -14
    assert lo <= ref + tiny and ref - tiny <= hi
    assert hi - lo < 2 * mpmath.expm1(DELTA0_SHIFT) + 1e-10
    v = ta.delta(f, 0)
    a, b = iv(v)
    assert certified(v) and a <= ref + tiny and ref - tiny <= b


@pytest.mark.slow
def test_dpsgd_three_steps_delta0_certified_and_eps_zero():
    """T = 3 (the inversion fails at eps = 0): delta(0) certified, inside [delta(2^-40),
    delta(2^-40) + expm1(2^-40)] of the public delta at 2^-40; eps at a level above it
    a proved 0 (conversions.epsilon's delta(0) <= delta route now reached). (Slow: the
    tolerance 1e-9; its fast representative is test_audit_routes7's DP-SGD delta(0).)"""
    f = ta.noisy_sgd(1, R(1, 100), 3)
    d0 = ta.delta(f, 0)
    d1 = ta.delta(f, R(1, 2**40))
    assert certified(d0) and certified(d1)
    (a0, b0), (a1, b1) = iv(d0), iv(d1)
    assert a0 >= a1 * (1 - 1e-12) and b0 <= b1 + mpmath.expm1(mpmath.mpf(2) ** -40) * 1.001
    assert b0 - a0 < 5e-4 * b0  # (the default tolerance)
    with ta.pld_options(tol=1e-9):
        t = ta.delta(f, 0)
    lo, hi = iv(t)
    assert certified(t) and max(a0, lo) <= min(b0, hi) and hi - lo < 1e-9 * hi
    e = ta.epsilon(f, R(76, 10000))  # above delta(0) ~ 0.0075950
    assert certified(e) and e.hi == 0


@pytest.mark.slow
def test_dpsgd_and_sampled_laplace_delta0_against_dp_accounting():
    """delta(0) of DP-SGD (sigma = 1, q = 1/100, T = 3) and of 150 subsampled Laplace steps
    (b = 1, q = 1/100) between dp_accounting's optimistic and pessimistic PLDs (grid 1e-4)."""
    cases = [(ta.noisy_sgd(1, R(1, 100), 3), R6.dpsgd_plds(1.0, 0.01, 3, 1e-4)),
             (ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 150,
              R6.sampled_laplace_plds(1.0, 0.01, 150, 1e-4))]
    for f, plds in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = ta.delta(f, 0)
        opt, pess = R6.pld_delta_pair(plds, 0.0)
        lo, hi = iv(v)
        assert certified(v)
        assert lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9), (f, lo, hi, opt, pess)
        assert hi - lo < 1e-3 * hi
