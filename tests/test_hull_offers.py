"""The hull's eps and delta (``routes.engines``): the routes of ``HULL_EPSILON`` and
``HULL_DELTA`` asked before the engines, through ``numeric.offer.settle`` with the engines as
its ``Engine``. Routes and engines replaced by stubs that return known pairs around 1, so each
rule is checked on exact ends: a route's answer after offers is intersected with them; the
engines' certified answer is intersected with the offers, their estimate never (the offers
stand for it, with the narrowest offer's warning); which warnings pass (eps: the engines'
wherever theirs is certified; delta: the engines' only where theirs is the narrower); a time
limit in the engines carries the offers' bracket."""

from __future__ import annotations

import warnings

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.offer import Offer
from tradeoff_algebra.numeric.value import CertifiedPair
from tradeoff_algebra.routes import engines

F = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 2
X = mp.mpf(1) / 10**5


def _pair(lo, hi) -> CertifiedPair:
    return CertifiedPair(mp.mpf(lo), mp.mpf(hi))


def _offer(lo, hi, text: str) -> Offer:
    return Offer(_pair(lo, hi), text)


class Stub:
    """An engine that returns ``answer`` (or raises it), after a ToleranceWarning "E"."""

    def __init__(self, answer):
        self.answer, self.asked = answer, 0

    def __call__(self, dirs, x):
        self.asked += 1
        warnings.warn("E", ToleranceWarning, stacklevel=2)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def hull(monkeypatch):
    """(kind, routes, engine) -> (answer, warning texts, notes) of the hull's eps ("eps")
    or delta ("delta") with those routes and that engine, at tol 1e-9."""

    def ask(kind: str, routes: list, engine: Stub):
        name = "HULL_EPSILON" if kind == "eps" else "HULL_DELTA"
        monkeypatch.setattr(engines, name, [lambda f, x, r=r: r for r in routes])
        monkeypatch.setattr(engines, "pld_epsilon" if kind == "eps" else "pld_delta", engine)
        run = engines._hull_epsilon if kind == "eps" else engines._hull_delta
        with warnings.catch_warnings(record=True) as said, trace.recording() as named, \
                ta.pld_options(tol=1e-9):
            warnings.simplefilter("always")
            out = run(F, engines.hull_directions(F), X)
        return out, [str(w.message) for w in said], list(named)

    return ask


OFFERS = [_offer(0.9, 1.1, "A"), _offer(0.95, 1.2, "B")]  # (A the narrower: 0.2 < 0.25)


@pytest.mark.parametrize("kind", ["eps", "delta"])
def test_an_answer_after_offers_is_intersected_and_the_engines_not_asked(hull, kind):
    engine = Stub(_pair(0, 2))
    out, said, notes = hull(kind, [None, OFFERS[0], _pair(0.99, 1.3)], engine)
    assert isinstance(out, CertifiedPair) and tuple(out) == (mp.mpf(0.99), mp.mpf(1.1))
    assert said == [] and notes == [] and engine.asked == 0


@pytest.mark.parametrize("kind", ["eps", "delta"])
def test_no_offer_returns_the_engines_answer_as_it_is(hull, kind):
    estimate = (mp.mpf(0.5), mp.mpf(1.5))  # (a plain pair: the PLD grid's estimate)
    out, said, notes = hull(kind, [None], Stub(estimate))
    assert type(out) is tuple and out == estimate and said == ["E"] and notes == []


def test_eps_certified_engine_inside_the_offers_stands(hull):
    out, said, notes = hull("eps", OFFERS, Stub(_pair(0.97, 1.02)))
    assert tuple(out) == (mp.mpf(0.97), mp.mpf(1.02)) and said == ["E"] and notes == []


def test_eps_wider_certified_engine_gives_way_to_the_offers_warning(hull):
    """eps as delta: the engines' warning describes their wider answer, not the result."""
    out, said, notes = hull("eps", OFFERS, Stub(_pair(0.8, 1.05)))
    assert isinstance(out, CertifiedPair) and tuple(out) == (mp.mpf(0.95), mp.mpf(1.05))
    assert said == ["A"] and notes == [engines.HULL_CELLS]


@pytest.mark.parametrize("kind", ["eps", "delta"])
def test_an_estimate_is_never_intersected_the_offers_stand_for_it(hull, kind):
    out, said, notes = hull(kind, OFFERS, Stub((mp.mpf(0.99), mp.mpf(1.0))))
    assert isinstance(out, CertifiedPair) and tuple(out) == (mp.mpf(0.95), mp.mpf(1.1))
    assert said == ["A"]  # (the narrowest offer's text)
    assert notes == [engines.HULL_CELLS if kind == "eps" else engines.HULL_CELLS_DELTA]


def test_delta_wider_engine_gives_way_to_the_offer(hull):
    out, said, notes = hull("delta", [OFFERS[0]], Stub(_pair(0.95, 1.2)))
    assert tuple(out) == (mp.mpf(0.95), mp.mpf(1.1)) and said == ["A"]
    assert notes == [engines.HULL_CELLS_DELTA]


def test_delta_narrower_engine_stands_with_its_warning(hull):
    out, said, notes = hull("delta", [OFFERS[0]], Stub(_pair(0.85, 1.0)))
    assert tuple(out) == (mp.mpf(0.9), mp.mpf(1.0)) and said == ["E"] and notes == []


@pytest.mark.parametrize("kind", ["eps", "delta"])
@pytest.mark.parametrize("best, carried", [((0.97, 1.3), (0.9, 1.1)), ((1.2, 1.3), (0.9, 1.1)),
                                           (None, (0.9, 1.1))])
def test_a_time_limit_in_the_engines_carries_the_offers(hull, kind, best, carried):
    """The offers' certified bracket alone: the engine's best may be the PLD grid's estimate
    (the exception does not say), never intersected into a certified enclosure."""
    exc = budget.TimeLimitExceeded("stub", 1.0, best)
    with pytest.raises(budget.TimeLimitExceeded) as got:
        hull(kind, [OFFERS[0]], Stub(exc))
    assert tuple(float(x) for x in got.value.best) == carried


@pytest.mark.parametrize("kind", ["eps", "delta"])
def test_disjoint_certified_enclosures_are_a_defect(hull, kind):
    with pytest.raises(ArithmeticError):
        hull(kind, [OFFERS[0]], Stub(_pair(1.2, 1.3)))
    with pytest.raises(ArithmeticError):
        hull(kind, [OFFERS[0], _pair(1.2, 1.3)], Stub(_pair(0, 2)))


def test_an_estimate_pair_is_never_intersected_with_a_certified_one():
    from tradeoff_algebra.numeric.offer import intersect

    with pytest.raises(TypeError):
        intersect(_pair(0.9, 1.1), (mp.mpf(0.95), mp.mpf(1.0)))
    out = intersect(_pair(0.9, 1.1), _pair(0.95, 1.2))
    assert isinstance(out, CertifiedPair) and tuple(out) == (mp.mpf(0.95), mp.mpf(1.1))
