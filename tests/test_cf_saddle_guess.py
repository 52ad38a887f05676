"""The saddle-point guess of eps(delta) (numeric/cf._saddle_epsilon, safeguarded Newton in
log c) against a bisection written here: closed-form cumulants of a Gaussian loss at 30 digits
(mpmath), and 200 float bisection steps on the law's own cumulants for subsampled Gaussian
products; and the kept saddle point (numeric/cf._saddle) against a fresh computation."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from tradeoff_algebra.families.gaussian import GaussianLaw
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.numeric import cf


def _log_delta_sp(k0, k1, k2, c, log):
    """Saddle-point log delta at abscissa c and its eps (the formula, written out here)."""
    h2 = k2 + 1 / c**2 + 1 / (c + 1) ** 2
    eps = k1 - 1 / c - 1 / (c + 1)
    return eps, k0 - c * eps - log(c * (c + 1)) - log(2 * math.pi * h2) / 2


@pytest.mark.parametrize("mu, n, delta", [(1, 1, 1e-5), (Fraction(1, 2), 10, 1e-8),
                                          (2, 3, 1e-12), (Fraction(1, 10), 100, 1e-5)])
def test_gaussian_guess_matches_closed_form_bisection(mu, n, delta):
    """L ~ N(mu^2/2, mu^2) under A: K(c) = n mu^2 c (c+1)/2, K' = n mu^2 (c + 1/2), K'' = n mu^2."""
    with mpmath.workdps(30):
        f2 = Fraction(mu) ** 2
        m2 = n * mpmath.mpf(f2.numerator) / f2.denominator
        target = mpmath.log(delta)

        def g(u):
            c = mpmath.exp(u)
            eps, ld = _log_delta_sp(m2 * c * (c + 1) / 2, m2 * (c + mpmath.mpf(1) / 2), m2, c,
                                    mpmath.log)
            return eps, ld - target

        lo, hi = mpmath.log(1e-6), mpmath.log(1e4)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if g(mid)[1] > 0 else (lo, mid)
        ref = float(g(lo)[0])
    got = cf._saddle_epsilon([(GaussianLaw(mu), n)], delta)
    assert got == pytest.approx(ref, rel=1e-7)


@pytest.mark.parametrize("sigma, T, delta", [(4, 10, 1e-5), (2, 3, 1e-5),
                                             (Fraction(4, 5), 30, 1e-10),
                                             (Fraction(11, 10), 300, 1e-5), (4, 300, 1e-5)])
def test_subsampled_guess_matches_bisection(sigma, T, delta):
    """DP-SGD's law (its saddle point sits where the tilted mixture's second component takes
    over: k2 jumps a thousandfold within 1% of c at sigma = 4), with its flat view too."""
    law = SubsampledGaussianLaw(1 / Fraction(sigma), Fraction(256, 60000), "remove")

    def g(u):
        c = math.exp(u)
        k0, k1, k2 = law.cumulants(c)
        eps, ld = _log_delta_sp(T * k0, T * k1, T * k2, c, math.log)
        return eps, ld - math.log(delta)

    lo, hi = math.log(1e-6), math.log(1e4)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        lo, hi = (mid, hi) if g(mid)[1] > 0 else (lo, mid)
    ref = g(lo)[0]
    for view in (law, law.flat_view()):
        assert cf._saddle_epsilon([(view, T)], delta) == pytest.approx(ref, rel=1e-6)


def test_kept_saddle_is_the_fresh_one_and_not_stale():
    """The one kept answer of _saddle equals a fresh computation, and another law, count or
    eps is not answered from it."""
    a = SubsampledGaussianLaw(Fraction(1, 4), Fraction(256, 60000), "remove")
    b = SubsampledGaussianLaw(Fraction(1, 2), Fraction(256, 60000), "remove")
    eps = 0.009
    first = cf._saddle([(a, 10)], eps)
    assert cf._saddle([(a, 10)], eps) == first == cf._saddle_uncached([(a, 10)], eps)
    for facs, e in (([(b, 10)], eps), ([(a, 11)], eps), ([(a, 10)], 0.0091),
                    ([(a, 10), (b, 1)], eps)):
        assert cf._saddle(facs, e) == cf._saddle_uncached(facs, e)
    assert cf._saddle([(b, 10)], eps) != first
