"""The symmetric hull of a few Poisson-subsampled Laplace steps, AddRemove(Mix(L_mu, q))^T,
T = 2, 3, at tol = 1e-9 (``routes.hull_few``: one minimisation in e^eps of certified balls of
the hull's profile, a convex lower end from secants). References: the route's own machinery at
T = 1 against the 50-digit closed form of ``tests/test_hull_one_step.py`` (the minimiser at an
atom of the loss and off it); at T = 2, 3 dp_accounting's optimistic/pessimistic bracket
(grid 1e-4, both directions) and the loss cells' certified band (``routes.hull_cells``),
another route, whose enclosure must meet ours."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from test_hull_one_step import hull_power

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import sampled_laplace_law
from tradeoff_algebra.numeric.offer import Offer
from tradeoff_algebra.operators.subsample import Mix
from tradeoff_algebra.operators.unary import Inverse
from tradeoff_algebra.routes.hull_cells import hull_cells_point
from tradeoff_algebra.routes.hull_few import ROUTE, power_bracket


@pytest.mark.parametrize("mu, q, alpha", [("1/2", "1/1000", "1/100"), ("3", "1/1000", "1/100"),
                                          ("1", "1/100", "1/5")])
def test_machinery_at_one_step_against_closed_form(mu, q, alpha):
    """The bracket of one step's hull power holds the 50-digit reference and meets 1e-9."""
    mu, q, A = sp.Rational(mu), sp.Rational(q), sp.Rational(alpha)
    g = Mix(ta.Laplace(mu), q)
    law = sampled_laplace_law(Fraction(str(mu)), Fraction(str(q)), "remove")
    with ta.time_limit(120):
        lo, hi = power_bracket(law, 1, [((g, 1),), ((Inverse(g), 1),)], A, 1e-9)
    ref = hull_power(mu, q, A, dps=30)
    with mpmath.workdps(40):
        assert mpmath.mpf(lo) <= ref <= mpmath.mpf(hi)
    assert hi - lo <= 1e-9 * hi


def _hull(mu, q, T):
    return ta.laplace_mechanism(sp.Rational(mu), 1, sampling="poisson", p=sp.Rational(q)) ** T


@pytest.mark.parametrize("mu, q, T", [("1", "1/100", 2), ("1/2", "1/10", 3),
                                      ("3", "1/1000", 3)])
def test_few_steps_meet_tolerance_and_references(mu, q, T):
    f, A = _hull(mu, q, T), sp.Rational(1, 100)
    _route_meets_references(f, A, mu, q, T, lambda plds: 2.0)


def _route_meets_references(f, A, mu, q, T, eps_max):
    """roc(A) at 1e-9 by this route without a warning, within 1e-9; the loss cells' certified
    band (another route) meets it; dp_accounting's optimistic/pessimistic bracket (grid 1e-4,
    its power read up to ``eps_max(plds)``), widened by its float error, holds it. Returns the
    enclosure's float ends."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning: the tolerance is met)
        with ta.pld_options(tol=1e-9), ta.time_limit(120):
            v = ta.roc(f, A, dps=20)
    assert v.guarantee == "certified" and v.route == ROUTE
    lo, hi = (float(x) for x in v.interval())
    assert hi - lo <= 1e-9 * hi
    with ta.pld_options(tol=1e-9), ta.time_limit(120):
        c = hull_cells_point(f, A, 20, True)
    c = c.answer if isinstance(c, Offer) else c
    clo, chi = (float(x) for x in c.interval())
    assert clo <= hi and lo <= chi
    refs = pytest.importorskip("references.audit6_refs")
    pytest.importorskip("dp_accounting")
    plds = refs.sampled_laplace_plds(1 / float(sp.Rational(mu)), float(sp.Rational(q)), T, 1e-4)
    a, b = refs.pld_power(plds, [0.01], eps_max=eps_max(plds), points=8001)[0]
    assert lo <= b * (1 + 1e-6) and hi >= a * (1 - 1e-6)
    return lo, hi


def test_value_and_nesting():
    """f = 1 - power, and the default tolerance's enclosure holds the tight one's."""
    f, A = _hull("1", "1/100", 2), sp.Rational(1, 100)
    with ta.pld_options(tol=1e-9), ta.time_limit(120):
        p = ta.roc(f, A, dps=20)
        v = ta.evaluate(f, A, dps=20)
    with ta.pld_options(tol=1e-3), ta.time_limit(120):
        loose = ta.roc(f, A, dps=20)
    plo, phi = p.interval()
    vlo, vhi = v.interval()
    assert vlo <= 1 - plo and 1 - phi <= vhi
    llo, lhi = loose.interval()
    assert llo <= plo and phi <= lhi


@pytest.mark.parametrize("mu, q", [("1/2", "1/100"), ("1", "1/1000")])
def test_many_steps_where_balls_are_cheap(mu, q):
    """T = 1000: the cost estimate takes the route (the loss cells stall at 3.6e-8 and 5.6e-9
    with a ToleranceWarning there); its enclosure meets 1e-9 and both references."""
    T, A = 1000, sp.Rational(1, 100)
    f = _hull(mu, q, T)
    lo, hi = _route_meets_references(
        f, A, mu, q, T, lambda plds: max(2.0, 1.5 * plds[1].get_epsilon_for_delta(1e-4) + 1.0))
    # a looser tolerance (the cells' band) holds the tight enclosure
    with ta.pld_options(tol=1e-6), ta.time_limit(120):
        loose = ta.roc(f, A, dps=20)
    llo, lhi = (float(x) for x in loose.interval())
    assert llo <= lo and hi <= lhi


@pytest.mark.parametrize("mu, q, T", [("3", "1/100", 100), ("1/2", "1/1000", 10)])
def test_many_steps_declined_by_planning(mu, q, T, monkeypatch):
    """Where a ball would be the split's or a dear plan (T = 100, mu = 3: 68 s a ball), the
    route declines before any ball (the loss cells answer)."""
    from tradeoff_algebra.routes import hull_few

    f = _hull(mu, q, T)
    law, n = hull_few._few_law(f)
    calls = []
    monkeypatch.setattr(hull_few, "_cf_enclosure", lambda *a: calls.append(a))
    monkeypatch.setattr(hull_few, "_delta0_by_shift", lambda *a: calls.append(a))
    with ta.time_limit(60):
        r = power_bracket(law, n, hull_few.hull_directions(f), sp.Rational(1, 100), 1e-9)
    assert r is None and not calls
