"""A tighter tolerance never gives a wider curve band (issue 29): ``numeric.curves.curve_band``
places every band in the tolerance chain (``numeric.tol_nest``), and a split product whose tails
are not served at tol answers with the nearest looser tolerance's band, not the secant band.

References: the bands of the looser tolerances, each computed by its own call (the nesting
property itself); the secant band of the delta profile on a grid of eps
(``inversion_curve.secant_band``: a different method, second order in the grid step, from the
certified delta alone, never the tails) for the subsampled Laplace law whose 1e-12 band used
to be that secant band. (Each tolerance's band against independent references: the tests of
tests/test_tolerance_nested.py, test_audit_routes5/6.py and the routes' own; an intersection of
certified bands holds what each holds.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.options import DEFAULT_TOL
from tradeoff_algebra.routes import inversion_curve as ic
from tradeoff_algebra.routes.engines import _cf_laws

R = sp.Rational


def _band(f, xs, tol):
    with ta.pld_options(tol=tol), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, hi = ta.curve(f, xs, bounds=True)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


@pytest.mark.parametrize("f, xs", [
    (ta.noisy_sgd(R(11, 10), R(1, 2), 30), [1.339138838338962e-07, 0.5, 0.9999999878720862]),
    (ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 10)) ** 1000,
     [6.274794066250823e-10, 0.3, 0.999999980117636]),
])
def test_band_lies_inside_every_looser_band(f, xs):
    """The band at 1e-12 inside the bands at 1e-9, 1e-6 and the default, each its own call
    after it (the tolerance chain, ``numeric.tol_nest``)."""
    lo, hi = _band(f, xs, 1e-12)
    for m in (1e-9, 1e-6, DEFAULT_TOL):
        lo_m, hi_m = _band(f, xs, m)
        assert np.all(lo >= lo_m) and np.all(hi <= hi_m), (m, lo, hi, lo_m, hi_m)
    assert np.all(lo <= hi)


@pytest.mark.slow  # (the secant reference: 4 s)
def test_split_tails_not_served_take_the_looser_band_not_the_secant_band():
    """100 subsampled Laplace steps (b = 1, q = 1/10): the split tails serve tol 1e-11 but not
    1e-12; the 1e-12 band is now the nearest looser tolerance's (5e-12 wide at 1e-9 before, the
    secant band 5.5e-8 wide at 1e-12), inside the 1e-9 band and inside the secant band of the
    certified delta profile (a different method: the reference)."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 10)) ** 100
    x = [0.01977743992790114]
    lo, hi = _band(f, x, 1e-12)
    lo9, hi9 = _band(f, x, 1e-9)
    assert lo[0] >= lo9[0] and hi[0] <= hi9[0]
    assert hi[0] - lo[0] <= 1e-12
    dirs = ic._directions(f)
    sets = [[(law, int(n)) for law, n in s] for s in _cf_laws(list(dirs))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sec = ic.secant_band(sets, np.array(x), 1e-6, warn=False)
    # (the secant band rounds outward to floats: one ulp of slack)
    assert sec.f_lo[0] <= lo[0] * (1 + 2e-16) and hi[0] <= sec.f_hi[0] * (1 + 2e-16), \
        (sec.f_lo[0], lo[0], hi[0], sec.f_hi[0])


def test_shared_float_estimates_leave_each_band_as_its_own_call():
    """Two DP-SGD steps (the law's own points): the band at 1e-6 computed after the 1e-9 band
    with the float estimates shared (``floats``) is the band of a call without them, to the
    last bit (the estimates only place the points and do not depend on the plan's width)."""
    f = ta.noisy_sgd(R(1, 2), R(1, 2), 2)
    x = np.array([1e-3, 0.3, 0.999998321922751])
    dirs = ic._directions(f)
    sets = [[(law, int(n)) for law, n in s] for s in _cf_laws(list(dirs))]
    alone = ic.tail_band(sets, x, 1e-6)
    floats: dict = {}
    ic.tail_band(sets, x, 1e-9, floats=floats)
    assert floats  # (the cache was used)
    shared = ic.tail_band(sets, x, 1e-6, floats=floats)
    for a, b in zip((alone.f_lo, alone.f_hi, alone.power_lo, alone.power_hi),
                    (shared.f_lo, shared.f_hi, shared.power_lo, shared.power_hi), strict=True):
        assert np.array_equal(a, b)
