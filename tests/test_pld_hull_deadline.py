"""numeric.pld_hull.hull_roc_bounds under a deadline: its profiles are evaluated in spans with a
look at the deadline before each; the spans change nothing (the same bounds, to the bit, as with
spans of 37 points; the bounds themselves are checked against quadrature in test_pld_hull.py),
and an expired deadline stops it."""

from __future__ import annotations

import time

import pytest

import tradeoff_algebra as ta
from tradeoff_algebra import G, Inverse, Mix
from tradeoff_algebra.numeric import budget, pld, pld_hull

H = 2.0**-8


def _bounds(a: float) -> tuple[float, float]:
    leaves = ((Mix(G(1), 0.3), 2),)
    inv = tuple((Inverse(f), n) for f, n in leaves)
    r = pld.value_refinement((leaves, inv), a, a, True, h=H)
    return pld.max_enclosure([r], 1e-12)


@pytest.mark.parametrize("a", [0.2])
def test_spans_change_nothing(a, monkeypatch):
    whole = _bounds(a)
    monkeypatch.setattr(pld_hull, "_SPAN", 37)
    assert _bounds(a) == whole
    assert 0 <= whole[0] < whole[1] <= 1


def test_an_expired_deadline_stops_the_profiles(monkeypatch):
    """The deadline passes on entry to hull_roc_bounds: it stops inside pld_hull."""
    _bounds(0.2)  # (imports and composed laws outside the limit)
    real = pld_hull.hull_roc_bounds

    def late(cs, alpha):
        time.sleep(0.3)
        return real(cs, alpha)

    monkeypatch.setattr(pld, "hull_roc_bounds", late)
    leaves = ((Mix(G(1), 0.3), 2),)
    inv = tuple((Inverse(f), n) for f, n in leaves)
    with ta.time_limit(0.2), pytest.raises(budget.TimeLimitExceeded) as e:
        with budget.call("the test's hull"):
            r = pld.value_refinement((leaves, inv), 0.2, 0.2, True, h=H)
            pld.max_enclosure([r], 1e-12)
    assert any(t.name == "hull_roc_bounds" and str(t.path).endswith("pld_hull.py")
               for t in e.traceback)
