"""Which ToleranceWarnings the band route of symmetric hulls and symmetric products emits
(``routes.inversion_curve``): a whole curve warns where its band is wider than asked; one
value (``hull_point``, reached by ``ta.roc`` / ``ta.evaluate``) warns once, about its own
relative width, and never with the band's warnings, which it asks to be left out
(``inversion_band(..., warn=False)``)."""

import warnings

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.routes.inversion_curve import ROUTE, inversion_band

R = sp.Rational
BAND_WIDE = "certified band wider than tol"
SECANT_MIN = "is below SECANT_TOL_MIN"
VALUE_WIDE = "the certified band reaches the relative width"


def _caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w if issubclass(x.category, ta.ToleranceWarning)]


def _at(tol, fn):
    def run():
        with ta.pld_options(tol=tol):
            return fn()
    return _caught(run)


def _value_warnings_match_width(v, msgs, tol):
    """One warning, about the value, exactly where its relative width exceeds tol."""
    assert v.route == ROUTE and v.guarantee == "certified"
    lo, hi = float(v.lo), float(v.hi)
    assert not any(BAND_WIDE in m or SECANT_MIN in m for m in msgs)
    if hi - lo > tol * abs(hi) * (1 + 1e-9):
        assert len(msgs) == 1 and VALUE_WIDE in msgs[0]
    elif hi - lo <= tol * abs(hi) * (1 - 1e-9):
        assert msgs == []


@pytest.mark.parametrize("tol", [1e-6, 1e-9])
def test_one_value_of_a_symmetric_product_warns_once_about_its_width(tol):
    """G_1 (x) DG(1, 2): its tails are not certified (the secant band, which stops at
    SECANT_TOL_MIN = 1e-6 with a warning of its own); a value asked at 1e-6 or 1e-9 warns
    about its relative width only, and only where that width exceeds the tolerance."""
    f = ta.G(1) @ ta.DiscreteGaussian(1, 2)
    seen = 0
    for a in (R(1, 2), R(1, 100)):
        for call, name in ((ta.evaluate, "f"), (ta.roc, "power")):
            v, msgs = _at(tol, lambda call=call, a=a: call(f, a))
            _value_warnings_match_width(v, msgs, tol)
            assert all(m.startswith(f"{name}({a}) of ") for m in msgs)
            seen += len(msgs)
    # (every point at 1e-9 is wider than asked; at 1e-6 the first grid of few levels, which
    # ends past their minimisers, routes/grid_band._span, meets the tolerance)
    assert seen > 0 or tol > 1e-9


@pytest.mark.parametrize("which, marker, tol", [("symmetric product", SECANT_MIN, 1e-9),
                                                ("tail band", BAND_WIDE, 1e-15)])
def test_band_warnings_are_the_callers_to_ask_for(which, marker, tol):
    """inversion_band with warn=False gives the same band without its warning: at a tol of
    1e-9, G_1 (x) DG(1, 2) (the secant band) warns that tol is below SECANT_TOL_MIN, and at
    1e-15, below the inversion's floor of about 1e-14, the tail band of G_1 (x) L_1 that its
    band is wider than tol at a level (DP-SGD's hull meets 1e-9, and 1e-14, at every level)."""
    f = (ta.G(1) @ ta.DiscreteGaussian(1, 2) if which == "symmetric product"
         else ta.G(1) @ ta.Laplace(1))
    x = np.array([1e-6, 1e-2, 0.3, 0.5])
    b1, m1 = _caught(lambda: inversion_band(f, x, tol))
    b0, m0 = _caught(lambda: inversion_band(f, x, tol, warn=False))
    assert m0 == []
    assert len(m1) == 1 and marker in m1[0]
    for name in ("f_lo", "f_hi", "power_lo", "power_hi"):
        assert np.array_equal(getattr(b0, name), getattr(b1, name))


def test_a_value_inside_its_tolerance_does_not_repeat_the_band_warning():
    """G_1 (x) DG(1, 2) at tol 1e-9: the band at the two floats around 1e-6 warns (the tol is
    below SECANT_TOL_MIN), while the value f(1e-6) it gives, close to 1, meets its relative
    tolerance and warns nothing."""
    from tradeoff_algebra.routes.inversion_curve import hull_point

    f = ta.G(1) @ ta.DiscreteGaussian(1, 2)
    a = R(1, 10**6)
    _, band_msgs = _caught(lambda: inversion_band(f, np.array([1e-6, np.nextafter(1e-6, 1)]),
                                                  1e-9))
    assert len(band_msgs) == 1 and SECANT_MIN in band_msgs[0]
    v, msgs = _at(1e-9, lambda: ta.evaluate(f, a))
    assert float(v.hi) - float(v.lo) <= 1e-9 * float(v.hi)
    _value_warnings_match_width(v, msgs, 1e-9)
    assert msgs == []
    direct, msgs = _at(1e-9, lambda: hull_point(f, a, 15, False))
    assert msgs == [] and (direct.lo, direct.hi) == (v.lo, v.hi)
