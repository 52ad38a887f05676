"""What ``benchmarks/bench_curve_ratio.py`` found: minimal reproducers, each an expected failure
until the library is fixed.

Whole curves of single mechanisms (no product) are bounded at a fixed relative width of about
2e-9 of f (``numeric/curves.py``: certified points at ``CURVE_DPS`` digits, rounded outward),
whatever ``pld_options(tol=...)`` asks, and without a ToleranceWarning; the power 1 - f(alpha)
at alpha = 0.01 then has a relative width of 1.8e-7 (PoissonReplace) where ``ta.roc`` at the
same tolerance gives a point, and where the products' curves (DP-SGD, Laplace products) meet
1e-9. The width is read from the bounds themselves; their value is checked against a 30-digit
mpmath threshold test of the mixture pair (``tests/references/curve_ratio.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp
from references.curve_ratio import poisson_replace_power

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning


def _curve_at(f, alpha: float, tol: float):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ta.pld_options(tol=tol):
            lo, hi = ta.curve(f, np.array([alpha]), bounds=True)
    return float(lo[0]), float(hi[0]), [type(w.message) for w in caught]


def test_poisson_replace_curve_contains_reference():
    """The curve's bounds hold the 30-digit power (the part that works)."""
    lo, hi, _ = _curve_at(ta.PoissonReplace(1, sp.Rational(1, 100)), 0.01, 5e-4)
    ref = poisson_replace_power(1, 0.01, 0.01)
    assert 1 - hi <= ref <= 1 - lo


def test_curve_width_follows_tol_or_warns():
    lo, hi, kinds = _curve_at(ta.PoissonReplace(1, sp.Rational(1, 100)), 0.01, 1e-9)
    rel = (hi - lo) / (1 - lo)  # of the power 1 - f(0.01)
    assert rel <= 1e-9 or any(issubclass(k, ToleranceWarning) for k in kinds)
