"""ta.verify on a generated suite of decidable claims (tests/verify_decidable.py): no wrong
verdict, at most 5% undecided, every False with a certified counterexample.

The truth of each claim comes from its construction (monotonicity, the papers' identities) or
from exact Neyman-Pearson knots and mpmath thresholds computed in the generator, never from the
verifier. The default run takes a fixed sample; the whole suite runs with ``-m slow``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from reference_np import finite_np
from verify_decidable import claims, inv_knots, np_knots, pl_at, run, summary

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.value import Value

R = sp.Rational
ALL = claims()
#: A fixed sample of the cheap claims, every family and relation represented.
SAMPLE = [c for c in ALL if "fast" in c.tags][::4]


def _certified_ce(rec) -> bool:
    """A False verdict's counterexample has both sides certified and in the wrong order."""
    ce = rec.counterexample
    if ce and "delta_g" in ce:  # refuted through the privacy profile (Prop. 6)
        L, Rr, rel = ce["delta"], ce["delta_g"], ">="
    elif not ce or "lhs" not in ce or "rhs" not in ce:
        return False
    else:
        L, Rr, rel = ce["lhs"], ce["rhs"], rec.claim.rel

    def iv(v):
        if isinstance(v, Value):
            assert v.is_certain, v
            return v.interval()
        if isinstance(v, tuple):
            return v
        v = sp.nsimplify(v) if isinstance(v, float) else sp.sympify(v)
        return (v, v) if v.is_Rational else (sp.N(v, 40), sp.N(v, 40))

    (ll, lh), (rl, rh) = iv(L), iv(Rr)
    if rel == ">=":
        return lh < rl
    if rel == "<=":
        return ll > rh
    return lh < rl or rh < ll


def _check(recs):
    wrong = [(r.claim.name, r.status, r.method) for r in recs if r.wrong]
    assert not wrong, wrong
    for r in recs:
        if r.status is False:
            assert _certified_ce(r), (r.claim.name, r.counterexample)
    s = summary(recs)
    assert s["none_rate"] <= 0.05, [(r.claim.name, r.evidence) for r in recs if r.status is None]


def test_generator_knots_match_brute_force():
    """The generator's Neyman-Pearson knots (sorting by likelihood ratio) agree with the
    brute-force optimum over every randomized test (tests/reference_np.py)."""
    for P, Q in (([Fraction(1, 5), Fraction(1, 2), Fraction(3, 10)],
                  [Fraction(2, 5), Fraction(2, 5), Fraction(1, 5)]),
                 ([Fraction(1, 10), Fraction(0), Fraction(9, 10)],
                  [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)])):
        k, ki = np_knots(P, Q), inv_knots(np_knots(P, Q))
        for a in (Fraction(j, 17) for j in range(18)):
            assert pl_at(k, a) == finite_np(P, Q, a)
            assert pl_at(ki, a) == finite_np(Q, P, a)  # T(P, Q)^-1 = T(Q, P)


def test_suite_is_large_and_mixed():
    assert len(ALL) >= 150
    tags = {t for c in ALL for t in c.tags}
    assert {"G", "EpsDelta", "Laplace", "Discrete", "Binomial", "Tensor", "C", "Inverse", "Max",
            "Group", "scalar", "box", "tangent"} <= tags
    assert sum(c.truth for c in ALL) >= 50 and sum(not c.truth for c in ALL) >= 50


def test_decidable_sample():
    assert len(SAMPLE) >= 30
    _check(run(SAMPLE))


@pytest.mark.slow
def test_decidable_suite():
    _check(run(ALL))


# -- convincing counterexamples -------------------------------------------------------------
def test_box_counterexample_at_the_largest_gap():
    """Over a box the counterexample is the readable point where the certified gap is largest
    (the far end of the box, not the first cell centre that refutes)."""
    mu = sp.Symbol("mu", positive=True)
    x = sp.Symbol("x", real=True)
    v = ta.verify(ta.G(mu), ">=", ta.G(2), over={mu: (1, 3)})
    assert v.status is False and v.counterexample["mu"] == 3
    v = ta.verify(sp.exp(x), "<=", 1 + x + x**2, over={x: (0, 2)})
    assert v.status is False and v.counterexample["x"] == 2
    v = ta.verify(sp.sqrt(x**2 + 1), "<=", x + R(1, 2), over={x: (0, 5)})
    assert v.status is False and v.counterexample["x"] == 0
