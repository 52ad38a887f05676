"""The power of C_p(G_1)^{(x) 10} from the profile band when the hull law's transform cannot
afford the band's delta width (routes/profile_curve.py, ``_InversionDirection.wide``): a few
inverters planned to what the band needs, reused across the eps of the envelope. References:
dp_accounting's optimistic/pessimistic PLD pair of the hull's loss built in
``references.hull_power`` (slow), and delta from the product's own Laplace inversion route (its
own plan at each eps, ``ta.delta``)."""

import warnings

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.routes import profile_curve as pc

F = ta.C(sp.Rational(1, 10), ta.G(1)) ** 10


def _roc(alpha):
    pc._PROFILES.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        return ta.roc(F, alpha)


@pytest.mark.slow
def test_hull_power_inside_the_pld_bracket():
    from references.hull_power import hull_power_bracket

    levels = (sp.Rational(1, 100), sp.Rational(1, 20))
    brackets = hull_power_bracket(1.0, 0.1, 10, [float(a) for a in levels])
    for a, (lo, hi) in zip(levels, brackets, strict=True):
        v = _roc(a)
        assert v.guarantee == "certified"
        assert v.hi - v.lo <= 5e-4 * v.hi  # (the default tolerance, met)
        # the bracket is float64 (not proved): 1e-9 relative slack
        assert float(v.hi) >= lo * (1 - 1e-9) and float(v.lo) <= hi * (1 + 1e-9)
        # at grid 1e-4 the PLD bracket is 5e-4 wide: the band lies well inside it
        assert lo * (1 - 1e-9) <= float(v.lo) and float(v.hi) <= hi * (1 + 1e-9)


def _wide_band(alpha: float):
    """The eps-grid band of F at alpha (the roc of F itself is answered by the loss cells'
    band first, ``numeric.cells_curve``): the wide mode's direction and its band."""
    pc._PROFILES.clear()
    d = pc._direction(F, 5e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        b = pc._band(d, np.array([alpha]), 5e-4)
    return d, b


def test_wide_mode_few_inverters_no_warning():
    v = _roc(sp.Rational(1, 100))
    assert v.guarantee == "certified" and pc.ROUTE in v.route
    assert v.hi - v.lo <= 5e-4 * v.hi
    d, b = _wide_band(0.01)
    assert b.power_hi[0] - b.power_lo[0] <= 5e-4 * b.power_hi[0]
    v_lo, v_hi = v.interval()
    assert max(v_lo, b.power_lo[0]) <= min(v_hi, b.power_hi[0])  # (two routes, one power)
    assert isinstance(d, pc._InversionDirection) and d.wide
    # one inverter per anchor of the eps grid (multiples of WIDE_ANCHOR up to its end)
    assert len(d.inverters) <= 3 and all(inv is not None for inv in d.inverters.values())


def test_wide_mode_deltas_meet_the_route_delta():
    """Each ball of the wide mode overlaps delta of the product's Laplace inversion route
    planned at that eps alone (``ta.delta``, certified); its width stays within a few times
    the planned width over the anchor's interval (the docstring's reach)."""
    d, _ = _wide_band(0.01)
    plan = d.loosest / pc.LADDER_REACH
    for e in (1.0, 2.5):
        b = d.delta(e)
        ref = ta.delta(F, sp.Rational(e))
        assert ref.guarantee == "certified"
        assert float(b.lower()) <= float(ref.hi) and float(b.upper()) >= float(ref.lo)
        assert float(b.rad()) <= 10 * plan * float(b.mid())
    assert np.isfinite(float(d.delta(0.0).mid()))
