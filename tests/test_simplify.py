"""simplify: the rules fire where they should (symbolic parameters, three-valued logic), the
rewriting terminates at a fixpoint on random trees of every family and operator, every step
shrinks the termination measure, and a 1000-factor Gaussian product simplifies to one G (its
time is measured by benchmarks/bench_speed_claims.py)."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import tradeoff_algebra as ta
from tradeoff_algebra import (
    EpsDelta,
    G,
    Group,
    Id,
    Inverse,
    Laplace,
    Max,
    Mix,
    Subsample,
    SymmetricHull,
    Symmetrize,
    Tensor,
    TensorPower,
    Zero,
)
from tradeoff_algebra.rewrite import RewriteError, Rewriter, weight
from tradeoff_algebra.rewrite.measure import WEIGHTS

mu, nu = sp.symbols("mu nu", nonnegative=True)
x = sp.Symbol("x")  # no assumptions: validation passes (unknown), rules must stay sound
eps, delta, p = sp.symbols("epsilon delta p", nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)


# -- individual rules -----------------------------------------------------------------------
def test_gaussian_composition_symbolic():
    assert ta.simplify(G(mu) @ G(nu)) == G(sp.sqrt(mu**2 + nu**2))
    assert ta.simplify(G(mu) @ G(nu) ** 3 @ Id) == G(sp.sqrt(mu**2 + 3 * nu**2))
    assert ta.simplify(G(3) @ G(4)) == G(5)
    assert ta.simplify(G(mu) ** n) == G(sp.sqrt(n) * mu)
    assert ta.simplify(Group(G(mu), k)) == G(k * mu)
    assert ta.simplify(G(0)) == Id
    assert ta.simplify(G(mu) @ G(0)) == G(mu)


def test_gaussian_merge_keeps_other_factors():
    L = Laplace(1)
    assert ta.simplify(G(1) @ L @ G(2)) == Tensor(G(sp.sqrt(5)), L)


def test_tensor_unit_and_zero():
    L = Laplace(mu)
    assert ta.simplify(L @ Id @ Id) == L
    assert ta.simplify(L @ Zero @ G(1)) == Zero
    assert ta.simplify(Tensor(Id, Id)) == Id


def test_powers():
    L = Laplace(mu)
    assert ta.simplify(TensorPower(L, 0)) == Id
    assert ta.simplify(TensorPower(L, 1)) == L
    assert ta.simplify(TensorPower(TensorPower(L, 2), n)) == TensorPower(L, 2 * n)
    assert ta.simplify(TensorPower(Id, n)) == Id
    assert ta.simplify(L @ L @ G(1)) == Tensor(TensorPower(L, 2), G(1))
    assert ta.simplify(L @ TensorPower(L, n)) == TensorPower(L, n + 1)
    assert ta.simplify(TensorPower(L, 2) @ TensorPower(L, n)) == TensorPower(L, n + 2)


def test_zero_power_three_valued():
    # n may be 0 (then the value is Id) or >= 1 (then 0): nothing can be said.
    assert ta.simplify(TensorPower(Zero, n)) == TensorPower(Zero, n)
    assert ta.simplify(TensorPower(Zero, k)) == Zero
    assert ta.simplify(TensorPower(Zero, n + 1)) == Zero
    assert ta.simplify(TensorPower(Zero, 0)) == Id
    assert ta.simplify(TensorPower(Zero, 3)) == Zero


def test_gaussian_zero_needs_certainty():
    assert ta.simplify(G(x)) == G(x)
    assert ta.simplify(G(mu)) == G(mu)


def test_inverse_rules():
    f = Mix(Laplace(1), sp.Rational(1, 2))  # not symmetric
    assert ta.simplify(Inverse(Inverse(f))) == f
    assert ta.simplify(Inverse(G(mu))) == G(mu)
    assert ta.simplify(Inverse(f @ Laplace(2))) == Tensor(Inverse(f), Laplace(2))
    assert ta.simplify(Inverse(TensorPower(f, n))) == TensorPower(Inverse(f), n)
    assert ta.simplify(Inverse(Inverse(Inverse(f)))) == Inverse(f)


def test_parameters_stay_readable():
    assert ta.simplify(G(mu) @ G(nu)).mu == sp.sqrt(mu**2 + nu**2)
    # G(2 mu) composed with itself: sqrt(8) mu, not sqrt(8 mu**2)
    assert ta.simplify(G(2 * mu) ** 2) == G(2 * sp.sqrt(2) * mu)


def test_bounds_are_never_applied():
    assert all(r.relation == "eq" for r in ta.rules() if r.relation == "eq")
    seen = []
    Rewriter(tracer=lambda r, b, a: seen.append(r)).run(G(1) @ G(2) @ Id)
    assert seen and all(r.relation == "eq" for r in seen)


def test_bad_input():
    with pytest.raises(ta.InvalidParameter):
        ta.simplify(sp.Symbol("y"))
    with pytest.raises(ta.InvalidParameter):
        ta.derive(3)


def test_conjugate_is_simplified_inside():
    assert ta.simplify((G(1) @ G(2)).conjugate()) == G(sp.sqrt(5)).conjugate()


def test_a_rule_that_grows_the_tree_is_refused():
    from tradeoff_algebra.core.rules import _REGISTRY, rule

    class Probe(ta.TradeOff):
        def __new__(cls, f):
            return ta.TradeOff.__new__(cls, f)

    @rule(Probe, cite=ta.core.citations.DRS.sec("3.1"))
    def probe_grows(node):
        return Tensor(node.args[0], node.args[0], G(1))

    try:
        with pytest.raises(RewriteError, match="probe_grows"):
            ta.simplify(Probe(G(1)))
    finally:
        _REGISTRY.pop(Probe, None)


# -- the measure ------------------------------------------------------------------------------
def test_measure_values():
    assert weight(Id) == 1 and weight(Zero) == 1 and weight(G(1)) == 2
    assert weight(Tensor(G(1), Laplace(1))) == 5
    assert weight(Inverse(G(1))) == 4
    assert weight(TensorPower(G(1), 2)) == 3
    assert Inverse in WEIGHTS


# -- random trees: termination, fixpoint, measure, derive agrees --------------------------------
MU_CHOICES = [0, 1, sp.Rational(1, 2), mu, nu, x, sp.sqrt(mu**2 + 1), 2 * mu]
EPS_CHOICES = [0, 1, eps, sp.log(2)]
DELTA_CHOICES = [0, sp.Rational(1, 10), delta, 1]
P_CHOICES = [0, 1, sp.Rational(1, 3), p]
N_CHOICES = [0, 1, 2, 3, n, k, n + 1]


def _leaf(rng: random.Random):
    kind = rng.randrange(8)
    if kind == 0:
        return Id
    if kind == 1:
        return Zero
    if kind in (2, 3):
        return G(rng.choice(MU_CHOICES))
    if kind == 4:
        return Laplace(rng.choice(MU_CHOICES))
    if kind == 5:
        return EpsDelta(rng.choice(EPS_CHOICES), rng.choice(DELTA_CHOICES))
    if kind == 6 and hasattr(ta, "Discrete"):
        return ta.Discrete((sp.Rational(1, 2), sp.Rational(1, 2)),
                           (sp.Rational(1, 4), sp.Rational(3, 4)))
    if kind == 7 and hasattr(ta, "BinomialDP"):
        return ta.BinomialDP(rng.choice([1, eps]), rng.choice([1, 2, n]))
    return G(1)


def random_tree(rng: random.Random, budget: int):
    """A random expression with about ``budget`` nodes over every family and operator."""
    if budget <= 1:
        return _leaf(rng)
    op = rng.randrange(11) if budget >= 3 else rng.randrange(3, 11)
    if op in (0, 1, 2):  # n-ary: Tensor (twice as likely) or Max
        parts = rng.randint(2, min(4, budget - 1))
        sizes = [1] * parts
        for _ in range(budget - 1 - parts):
            sizes[rng.randrange(parts)] += 1
        kids = [random_tree(rng, s) for s in sizes]
        return Max(*kids) if op == 2 else Tensor(*kids)
    f = random_tree(rng, budget - 1)
    if op == 3:
        return TensorPower(f, rng.choice(N_CHOICES))
    if op == 4:
        return Inverse(f)
    if op == 5:
        return Symmetrize(f)
    if op == 6:
        return SymmetricHull(f)
    if op == 7:
        return Mix(f, rng.choice(P_CHOICES))
    if op == 8:
        return Subsample(f, rng.choice(P_CHOICES))
    if op == 9:
        return Group(f, rng.choice([1, 2, k]))
    return Inverse(f)


def _size(e) -> int:
    return 1 + sum(_size(a) for a in e.args if isinstance(a, ta.TradeOffExpr))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), budget=st.integers(1, 200))
def test_simplify_reaches_a_fixpoint(seed, budget):
    e = random_tree(random.Random(seed), budget)
    assert 1 <= _size(e) <= 200
    s = ta.simplify(e)
    assert ta.simplify(s) == s
    assert weight(s) <= weight(e)
    if weight(s) == weight(e):
        assert s == e  # nothing fired


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), budget=st.integers(1, 40))
def test_derive_agrees_with_simplify(seed, budget):
    e = random_tree(random.Random(seed), budget)
    d = ta.derive(e)
    assert d.result == ta.simplify(e)
    before = e
    for step in d.steps:
        assert step.expr_before == before
        assert weight(step.after) < weight(step.before)
        before = step.expr_after
    assert before == d.result


# -- a large product -----------------------------------------------------------------------------
def test_thousand_gaussian_factors():
    ms = sp.symbols("mu_1:1001", nonnegative=True)
    e = Tensor(*[G(m) for m in ms])
    s = ta.simplify(e)
    assert isinstance(s, ta.Gaussian) and s.mu == sp.sqrt(sp.Add(*[m**2 for m in ms]))
