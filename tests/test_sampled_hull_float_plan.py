"""The float planning of the subsampled Gaussian hull's tilts (families/gaussian_sampled_hull.py,
``_FloatTilt``) takes log w = log(1 - q + q e^t) without overflow: log1p(q expm1(t)) was inf,
then NaN, for t > 709, and numpy's RuntimeWarnings leaked from eps(C(1/10, G(1))^{(x) 10}) at
tol 1e-9."""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled_hull import _log_w


@pytest.mark.parametrize("q", [1e-3, 0.1, 0.5, 1.0])
def test_log_w_against_mpmath(q):
    t = np.array([0.0, 1e-8, 0.5, 30.0, 700.0, 710.0, 5e3, 1e6])
    got = _log_w(t, q)
    with mp.workdps(40):
        for ti, gi in zip(t, got, strict=True):
            ref = mp.log(1 - mp.mpf(q) + mp.mpf(q) * mp.exp(mp.mpf(ti)))
            assert abs(gi - ref) <= 1e-13 * max(1, abs(ref))


def test_no_runtime_warning_from_the_hull_inversion_at_1e9():
    f = ta.C(sp.Rational(1, 10), ta.G(1)) ** 10
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ta.pld_options(tol=1e-9), ta.time_limit(120):
            v = ta.epsilon(f, sp.Rational(1, 10**5))
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], \
        [str(w.message) for w in caught]
    assert v.guarantee == "certified" and 2.9 < float(v.mid) < 2.95  # (the value's own tests:
    # test_hull_* against dp_accounting's hull PLD pair; this test is about the warnings)
