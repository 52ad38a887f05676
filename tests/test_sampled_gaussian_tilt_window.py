"""The float planning sums of the subsampled Gaussian law (SubsampledGaussianLaw._float_tilt and
log_mgf_many): their x-window grows geometrically and checks the deadline; the sums they give
are checked against (a) the former window, grown by 8 per pass (a reference copy below), and
(b) log M(c) = log int phi(x) e^{e l(x)} w(x) dx by mpmath quadrature at 30 digits around the
tilt's peak."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import log_ndtr

from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.context import mp


def _old_log_m(law: SubsampledGaussianLaw, c: float) -> float:
    """The former _float_tilt window (widened by 8 per pass, no trimming), written out here."""
    mu, q = law.mu, law.q
    e = law._alpha + law._sign * c
    h = min(0.1, 0.2 / mu)
    lo, hi = -12.0, max(e * mu, 0.0) + 12.0
    if law.cut is not None:
        hi = min(hi, max(float(law.cut[0]), 0.0) + 12.0)
    while True:
        x = np.arange(lo, hi + h, h)
        v = mu * x - mu * mu / 2
        ell = v if q == 1 else np.logaddexp(math.log1p(-q), math.log(q) + v)
        log_g = -x * x / 2 - 0.5 * math.log(2 * math.pi) + e * ell + math.log(h)
        if law.cut is not None:
            z = -(x - float(law.cut[0])) / float(law.cut[1])
            log_g = log_g + log_ndtr(z)
        top = log_g.max()
        if log_g[0] > top - 90:
            lo -= 8.0
        elif log_g[-1] > top - 90:
            hi += 8.0
        else:
            return float(top + np.log(np.exp(log_g - top).sum()))


def _quad_log_m(law: SubsampledGaussianLaw, c: float) -> float:
    """log M(c) by mpmath quadrature (30 digits) of exp(log g(x) - log g(x0)) over x0 +- 80,
    x0 the peak of the large-x form -x^2/2 + e mu x - (x - X)^2 / (2 sigma^2)."""
    with mp.workdps(30):
        mu, q = mp.mpf(Fraction(law._mu).numerator) / Fraction(law._mu).denominator, \
            mp.mpf(law._q.numerator) / law._q.denominator
        e = law._alpha + law._sign * mp.mpf(c)
        X, sig = (None, None) if law.cut is None else (mp.mpf(law.cut[0].numerator)
                                                       / law.cut[0].denominator,
                                                       mp.mpf(law.cut[1].numerator)
                                                       / law.cut[1].denominator)

        def log_g(x):
            v = mu * x - mu * mu / 2
            ell = mp.log(1 - q + q * mp.exp(v))
            r = -x * x / 2 - mp.log(mp.sqrt(2 * mp.pi)) + e * ell
            if X is not None:
                r += mp.log(mp.ncdf(-(x - X) / sig))
            return r

        x0 = e * mu if X is None else (e * mu + X / sig**2) / (1 + 1 / sig**2)
        g0 = log_g(x0)
        pts = [x0 + k for k in range(-80, 81, 10)]
        return float(g0 + mp.log(mp.quad(lambda x: mp.exp(log_g(x) - g0), pts)))


CASES = [  # (mu, q, direction, cut, c)
    (Fraction(1, 2), Fraction(1, 1000), "remove", (Fraction(217, 4), Fraction(1)), 2048.0),
    (Fraction(1, 2), Fraction(1, 1000), "remove", None, 2048.0),
    (Fraction(1, 2), Fraction(1, 1000), "add", None, 3.5),
    (Fraction(2), Fraction(1, 20), "remove", (Fraction(9), Fraction(1, 2)), 40.0),
    (Fraction(1, 2), Fraction(1, 1000), "remove", None, 0.5),
]


def _law(mu, q, direction, cut):
    law = SubsampledGaussianLaw(mu, q, direction)
    return law if cut is None else law.truncated(*cut)


@pytest.mark.parametrize("mu, q, direction, cut, c", CASES)
def test_float_tilt_matches_the_former_window(mu, q, direction, cut, c):
    law = _law(mu, q, direction, cut)
    got = law._float_tilt(c).log_m
    assert got == pytest.approx(_old_log_m(law, c), rel=1e-14, abs=1e-12)
    many = law.log_mgf_many(np.array([c, c / 2]))
    assert many[0] == pytest.approx(got, rel=1e-14, abs=1e-12)
    assert many[1] == pytest.approx(law._float_tilt(c / 2).log_m, rel=1e-14, abs=1e-12)


@pytest.mark.parametrize("c", [2048.0, 65536.0])
def test_far_peaked_tilt_against_quadrature(c):
    """The tilt that needed 5 s of 8-wide steps (c = 65536, peak near x = 16400): against
    quadrature, to the rounding of float log terms of size ~3e8."""
    law = _law(Fraction(1, 2), Fraction(1, 1000), "remove", (Fraction(217, 4), Fraction(1)))
    ref = _quad_log_m(law, c)
    assert law._float_tilt(c).log_m == pytest.approx(ref, rel=1e-13)


def test_tilt_window_checks_the_deadline():
    """A far-peaked tilt under an expired deadline stops with TimeLimitExceeded."""
    law = _law(Fraction(1, 2), Fraction(1, 1000), "remove", (Fraction(217, 4), Fraction(1)))
    with budget.time_limit(1e-9), pytest.raises(budget.TimeLimitExceeded):
        with budget.call("tilt"):
            time.sleep(1e-3)
            law._float_tilt(65536.0)
