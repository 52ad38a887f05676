"""``routes.engines._cf_enclosure`` below CF_FALLBACK_TOL: where the inversion cannot afford
the tolerance asked, the fallback width is chosen by one trial plan before the route runs, so
the route runs once (not once at the tolerance asked and again at 1e-10), and the answer is the
one at CF_FALLBACK_TOL (a tighter tolerance never gives a wider result) with a warning."""

from __future__ import annotations

import warnings

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric import cf_route
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.options import pld_options
from tradeoff_algebra.routes import engines


def test_an_unaffordable_tolerance_runs_the_route_once(monkeypatch):
    f = ta.noisy_sgd(sp.Rational(1), sp.Rational(1, 10), 12)  # 12 steps: 1e-13 is beyond
    dirs = list(engines.hull_directions(f))
    calls = []
    real = cf_route.route_enclosure

    def counted(sets, kind, dn, up, tol):
        calls.append(tol)
        return real(sets, kind, dn, up, tol)

    monkeypatch.setattr(cf_route, "route_enclosure", counted)
    eps = mp.mpf(1) / 2
    with pld_options(tol=1e-13), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tight = engines._cf_enclosure(dirs, eps, "delta")
    assert calls == [engines.CF_FALLBACK_TOL]
    assert any(issubclass(w.category, ToleranceWarning) for w in caught)
    with pld_options(tol=engines.CF_FALLBACK_TOL):
        at_floor = engines._cf_enclosure(dirs, eps, "delta")
    assert tight[0] == at_floor[0] and tight[1] == at_floor[1]  # the same enclosure
    with pld_options(tol=1e-6):
        loose = engines._cf_enclosure(dirs, eps, "delta")
    assert loose[0] <= tight[0] <= tight[1] <= loose[1]
