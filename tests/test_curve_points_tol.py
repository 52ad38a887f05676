"""``ta.curve(f, levels, bounds=True)`` of a single mechanism (certified points, one per level)
follows ``pld_options(tol)``: the digits of the points rise on the rungs of
``numeric.curves.point_dps_rungs`` and the intervals of every rung are intersected, so the
width of f and of the power meets the tolerance (else a ToleranceWarning) and a tighter
tolerance never gives a wider interval. The power of PoissonReplace(1, 1/100) is checked
against its Neyman-Pearson threshold test in 30-digit mpmath (``references.curve_ratio``)."""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp
from references.curve_ratio import poisson_replace_power

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.curves import CURVE_DPS, CURVE_DPS_MAX, point_dps_rungs

TOLS = (1e-2, 5e-4, 1e-6, 1e-9, 1e-12)
LEVELS = (0.01, 0.3, 0.9)


def test_dps_rungs_are_prefixes():
    """A tighter tolerance's rungs start with a looser one's; the default tolerance keeps
    CURVE_DPS digits for f up to 1 - 1e-5; f = 1 goes to the cap."""
    assert point_dps_rungs(5e-4, 0.5) == [CURVE_DPS] == point_dps_rungs(5e-4, 1 - 1e-5)
    assert point_dps_rungs(5e-4, 1.0)[-1] <= CURVE_DPS_MAX
    for f_mid in (0.0, 0.5, 0.999, 1 - 1e-12):
        prev: list = []
        for tol in TOLS + (1e-30,):
            r = point_dps_rungs(tol, f_mid)
            assert r[:len(prev)] == prev and r[-1] <= CURVE_DPS_MAX
            if r[-1] + 5 <= CURVE_DPS_MAX:  # (below the cap: the digits the width needs)
                share = min(1.0, (1 - f_mid) / f_mid) if f_mid > 0 else 1.0
                assert 2 * 10.0 ** (1 - r[-1]) <= tol * share, (tol, f_mid, r)
            prev = r


def _bounds(f, tol):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ta.pld_options(tol=tol):
            lo, hi = ta.curve(f, np.array(LEVELS), bounds=True)
    return lo, hi, any(issubclass(w.category, ToleranceWarning) for w in caught)


def test_poisson_replace_width_follows_tol_nested_and_holds_reference():
    f = ta.PoissonReplace(1, sp.Rational(1, 100))
    refs = [poisson_replace_power(1, 0.01, a) for a in LEVELS]
    prev = None
    for tol in TOLS:
        lo, hi, warned = _bounds(f, tol)
        width = hi - lo
        rel = width / (1 - lo)
        # (these widths are reachable: met, with no ToleranceWarning)
        assert not warned and np.all(width <= tol) and np.all(rel <= tol), (tol, width, rel)
        if prev is not None:
            assert np.all(lo >= prev[0]) and np.all(hi <= prev[1]), (tol, lo, hi, prev)
        with mp.workdps(40):
            for i, ref in enumerate(refs):  # (the reference: a float of a 30-digit value)
                slack = mp.mpf(abs(ref)) * 2.0 ** -52
                assert 1 - mp.mpf(hi[i]) - slack <= ref <= 1 - mp.mpf(lo[i]) + slack, (tol, i)
        prev = (lo, hi)
