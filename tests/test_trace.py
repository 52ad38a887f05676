"""The per-thread record of what a computation used (tradeoff_algebra.core.trace): the rules that
fire, the closed forms substituted, and the memos that replay them."""

import threading

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import C, EpsDelta, G, Group
from tradeoff_algebra.core import trace
from tradeoff_algebra.operators.maxgroup import group_target
from tradeoff_algebra.operators.subsample import subsample_target


def _rules(events):
    return {e[1].name for e in events if e[0] == "rule"}


def test_a_rule_that_fires_is_recorded_and_one_that_declines_is_not():
    mu, nu = sp.symbols("mu nu", positive=True)
    with trace.basis() as events:
        out = ta.simplify(G(mu) @ G(nu))
    assert out == G(sp.sqrt(mu**2 + nu**2))
    assert "gaussian_tensor" in _rules(events)
    with trace.basis() as events:
        ta.simplify(G(mu))  # nothing to rewrite
    assert not _rules(events)


def test_outside_a_recording_nothing_is_kept():
    mu = sp.Symbol("mu", positive=True)
    ta.simplify(G(mu) @ G(mu))
    with trace.basis() as events:
        pass
    assert events == []


def test_the_closed_form_profile_is_recorded_with_its_node():
    with trace.basis() as events:
        ta.delta(G(1), 1)
    forms = [e for e in events if e[0] == "closed form"]
    assert ("closed form", "delta", G(1), "delta") in forms


def test_a_memo_replays_the_events_of_its_computation():
    # The same node twice: the second answer comes from the memo, and its rules are seen again.
    f = Group(G(sp.Rational(1, 3)), 3)
    with trace.basis() as first:
        t1 = group_target(f)
    with trace.basis() as second:
        t2 = group_target(f)
    assert t1 == t2 == G(1)
    assert _rules(first) and _rules(first) == _rules(second)
    g = C(sp.Rational(1, 2), EpsDelta(1, 0))
    with trace.basis() as first:
        subsample_target(g)
    with trace.basis() as second:
        subsample_target(g)
    assert _rules(first) and _rules(first) == _rules(second)


def test_a_discarding_recording_hides_its_events_from_the_enclosing_one():
    mu = sp.Symbol("mu", positive=True)
    with trace.basis() as outer:
        with trace.basis(keep=False) as inner:
            ta.simplify(G(mu) @ G(2 * mu))
    assert "gaussian_tensor" in _rules(inner)
    assert outer == []


def test_records_are_per_thread():
    mu = sp.Symbol("mu", positive=True)
    seen = []

    def other():
        ta.simplify(G(mu) @ G(3 * mu))

    with trace.basis() as events:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        seen.extend(events)
    assert seen == []
