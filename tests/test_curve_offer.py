"""A route may offer a certified answer it could not narrow to the tolerance
(``numeric.offer``: curve bands in ``numeric.curves._route_band``, points in
``numeric.protocol``): the later routes are asked first; the offer is returned, with its
ToleranceWarning, only where none of them answers.

References: routes that return known enclosures of a known curve (Id: f(a) = 1 - a), so the
answer's ends are checked against the exact values, and the subsampled Laplace hull's band at
tol 1e-12 checked against its band at 5e-4 (the regression of the tolerance chain:
``tests/test_tol_chain.py``, slow, covers the nesting in three orders)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric import curves
from tradeoff_algebra.numeric.offer import Offer
from tradeoff_algebra.numeric.profile_band import Band

X = np.array([0.1, 0.5, 0.9])
F = 1 - X  # Id's curve, exact in these floats' neighbourhood


def _band(w: float, wide: bool) -> Band | Offer:
    b = Band(F - w, F + w, X - w, X + w)
    return Offer(b, f"offered band of width {2 * w:g}") if wide else b


@pytest.fixture
def routes(monkeypatch):
    saved: list = []
    monkeypatch.setattr(curves, "CURVE_BANDS", saved)
    return saved


def test_an_offer_alone_is_returned_with_its_warning(routes):
    routes.append(lambda f, x, tol, progress: _band(1e-6, True))
    with pytest.warns(ToleranceWarning, match="offered band of width 2e-06"):
        b = curves._route_band(ta.Id, X, 1e-9, None)
    assert np.all(b.f_lo <= F) and np.all(F <= b.f_hi)
    assert np.allclose(b.f_hi - b.f_lo, 2e-6)


def test_a_later_answer_wins(routes):
    routes.append(lambda f, x, tol, progress: None)
    routes.append(lambda f, x, tol, progress: _band(1e-6, True))
    routes.append(lambda f, x, tol, progress: _band(1e-10, False))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)  # (no warning: tol met)
        b = curves._route_band(ta.Id, X, 1e-9, None)
    assert np.all(b.f_lo <= F) and np.all(F <= b.f_hi)
    assert np.max(b.f_hi - b.f_lo) <= 2e-10 * (1 + 1e-6)


def test_the_first_offer_is_kept_and_no_route_means_none(routes):
    assert curves._route_band(ta.Id, X, 1e-9, None) is None
    routes.append(lambda f, x, tol, progress: _band(1e-6, True))
    routes.append(lambda f, x, tol, progress: _band(1e-5, True))
    with pytest.warns(ToleranceWarning, match="width 2e-06"):
        b = curves._route_band(ta.Id, X, 1e-9, None)
    assert np.allclose(b.f_hi - b.f_lo, 2e-6)


@pytest.mark.slow
def test_a_point_offered_by_the_cells_at_a_tolerance_nothing_meets():
    """roc(AddRemove(Mix(L_1, 1/20)^10), 1/100) at tol 1e-12: no route meets it; the cells'
    certified enclosure is returned with its warning (it was the PLD engine's estimate, wider
    than the certified answer at 5e-4), inside that answer and dp_accounting's bracket."""
    pytest.importorskip("dp_accounting")
    import sympy as sp
    from references.sampled_laplace_power import sampled_laplace_power_bracket

    from tradeoff_algebra.numeric import tol_nest

    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 20)) ** 10
    (b_lo, b_hi), = sampled_laplace_power_bracket(1.0, 0.05, 10, [0.01])
    tol_nest.clear()
    with ta.pld_options(tol=5e-4):
        loose = ta.roc(f, sp.Rational(1, 100), dps=15)
    with ta.pld_options(tol=1e-12), pytest.warns(ToleranceWarning, match="relative width"):
        tight = ta.roc(f, sp.Rational(1, 100), dps=15)
    assert loose.guarantee == tight.guarantee == "certified"
    assert loose.lo <= tight.lo <= tight.hi <= loose.hi
    assert float(tight.hi - tight.lo) < 1e-10
    assert b_lo * (1 - 1e-9) <= float(tight.hi) and float(tight.lo) <= b_hi * (1 + 1e-9)
