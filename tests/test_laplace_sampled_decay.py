"""The decay envelope of the Poisson-subsampled Laplace law (numeric/cf_envelope.py, built by
families/laplace_sampled.py): sup_{t' >= t} |M(c + it')| from the tilted variance at small t, a
proved Lipschitz grid of Arb values in the middle and a piecewise integration by parts beyond.

References, each independent of the code under test: |M(c + it)| by mpmath quadrature of the
Laplace loss law (atoms and density, no hypergeometric function) at t beyond the bound's t, and
on a dense grid by the law's Arb mgf (itself checked against quadrature in
tests/test_laplace_sampled.py); the tilted variance against finite differences of log M by
quadrature; the Gauss-Legendre rule against numpy's; eps(delta) of the mechanism against
dp_accounting's optimistic/pessimistic sandwich printed in benchmarks/RESULTS_laplace.md and the
enclosure the previous decay bound gave.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import SubsampledLaplaceLaw, _gauss_legendre
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _abs_mgf(mu, p, direction, c, t):
    """|E_P[phi(L)^w]|, w = c + it + 1 (remove) or -(c + it) (add), by quadrature."""
    mu, p = mp.mpf(mu), mp.mpf(p.numerator) / p.denominator
    w = mp.mpc(c + 1, t) if direction == "remove" else -mp.mpc(c, t)
    phi = lambda s: 1 - p + p * mp.exp(s)  # noqa: E731
    pts = mp.linspace(-mu, mu, 2 + int(abs(t) * p * mp.exp(mu) * 2 * mu / 2))
    dens = mp.quad(lambda s: phi(s) ** w * mp.exp(-(s + mu) / 2) / 4, pts)
    return abs(phi(-mu) ** w / 2 + mp.exp(-mu) * phi(mu) ** w / 2 + dens)


# (mu, p, direction, c, n factors, the t checked by quadrature: fewer where t p e^mu is large)
CASES = [(2, Fraction(1, 1000), "remove", 19.59286734284158, 10_000, (0.0, 40.0, 300.0, 1000.0)),
         (2, Fraction(1, 1000), "add", 20.993317851482225, 10_000, (0.0, 5.0, 300.0, 2500.0)),
         (1, Fraction(1, 100), "remove", 3.0, 200, (0.0, 5.0, 40.0, 300.0)),
         (1, Fraction(1, 10), "add", 0.7, 30, (0.0, 5.0, 14.0, 40.0))]


@pytest.mark.parametrize("mu,p,direction,c,n,ts", CASES)
def test_the_envelope_bounds_quadrature_beyond_t(mu, p, direction, c, n, ts):
    law = SubsampledLaplaceLaw(Fraction(mu), p, direction)
    law.plan_decay(c, n)
    with mp.workdps(20):
        m0 = _abs_mgf(mu, p, direction, c, 0)
        for t in ts:
            with working_precision(64):
                b = mp.mpf(law.decay_bound(arb(c), arb(t)).upper().str(20, radius=False))
            assert b <= m0 * (1 + mp.mpf(2) ** -40)
            for tt in (t, 1.3 * t + 0.5, 2 * t + 3):
                assert _abs_mgf(mu, p, direction, c, tt) <= b * (1 + mp.mpf(10) ** -15)


@pytest.mark.parametrize("mu,p,direction,c,n,ts", CASES)
def test_the_envelope_bounds_a_dense_scan(mu, p, direction, c, n, ts):
    """Every |M(c + it')| on a grid of step 1/2 up to 1500 or 60 / (p e^mu) (Arb balls,
    midpoints) is below the envelope at every t <= t' of the grid; and the envelope is
    informative: below M(c) from t = 200 on (the bound the previous decay gave was M(c) until
    t ~ 5000 in the first two)."""
    law = SubsampledLaplaceLaw(Fraction(mu), p, direction)
    law.plan_decay(c, n)
    with working_precision(64):
        top = min(1500.0, 60 / (float(p) * math.exp(mu)))  # (2F1's cost grows as t p e^mu)
        grid = np.arange(0.0, top, 0.5)
        vals = np.array([float(abs(law.mgf(acb(c, t))).mid()) for t in grid])
        m0 = float(law.mgf(acb(c)).real.mid())
        suffix = np.maximum.accumulate(vals[::-1])[::-1]
        for i in range(0, len(grid), 7):
            bound = float(law.decay_bound(arb(c), arb(grid[i])).upper())
            assert suffix[i] <= bound * (1 + 1e-14)
        assert float(law.decay_bound(arb(c), arb(200.0)).upper()) < 0.995 * m0


@pytest.mark.parametrize("mu,p,direction,c,n,ts", CASES)
def test_the_tilted_variance_matches_finite_differences(mu, p, direction, c, n, ts):
    law = SubsampledLaplaceLaw(Fraction(mu), p, direction)
    with mp.workdps(30):
        def log_m(x):
            return mp.log(_abs_mgf(mu, p, direction, x, 0))
        ref = mp.diff(log_m, mp.mpf(c), 2)
    with working_precision(64):
        v = law._tilted_variance(law._a(arb(c)))
    assert abs(mp.mpf(v.mid().str(25, radius=False)) - ref) <= 1e-8 * ref
    assert v.rad() <= 1e-10 * abs(v.mid())


def test_the_gauss_legendre_rule():
    x, w = _gauss_legendre()
    y, v = np.polynomial.legendre.leggauss(160)
    assert np.max(np.abs(x - y)) <= 1e-14 and np.max(np.abs(w - v) / v) <= 1e-10
    assert abs(w.sum() - 2) <= 1e-13 and abs(np.dot(w, x**8) - 2 / 9) <= 1e-13


def test_many_steps_of_a_small_rate_are_narrow_and_in_the_sandwich():
    """q = 1/1000, b = 1/2, T = 10^4, eps(1e-5): certified to 1e-9 (the envelope plans about
    10 nodes where the previous decay bound planned 2665), inside the enclosure the previous
    bound gave, [0.7297592491139, 0.7297592491546], and meeting dp_accounting's sandwich
    [0.6770182747512, 0.7297612306134] (grid 1e-5, benchmarks/RESULTS_laplace.md)."""
    f = ta.laplace_mechanism(1, R(1, 2), sampling="poisson", p=R(1, 1000)) ** 10_000
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.route == "certified Laplace inversion" and v.guarantee == "certified"
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert 0.7297592491139 <= v.lo and v.hi <= 0.7297592491546
    assert 0.6770182747512 <= v.hi and v.lo <= 0.7297612306134
