"""Finite products on two incommensurate lattices (numeric/lattice2d.py): f_{1/10,0}^n (x)
RR(log 3, 5)^n with roc, value, delta, eps and the curve certified, against the joint law written
out in the test's reference (tests/references/mixed_finite.py: binomial masses in mpmath at 50
digits, the randomized-response law by trinomial counts in Fraction), its Neyman-Pearson knots by
sorting the outcomes, its hockey-stick sums and eps by bisection on them."""

from __future__ import annotations

import functools
import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp
from references import mixed_finite as ref

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import EstimateWarning
from tradeoff_algebra.numeric import lattice2d
from tradeoff_algebra.numeric.finite import finite_loss

R = sp.Rational
N = 20  # (above the size where the finite loss's symbolic table would answer)


def _product(n: int = N):
    return ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), n),
                     ta.TensorPower(ta.randomized_response(sp.log(3), 5), n))


@functools.lru_cache(maxsize=2)
def _reference(n: int = N) -> list:
    """(P, Q) of every atom of the product at 50 digits."""
    with mpmath.workdps(50):
        law = ref.joint(ref.binomial_law(n, mpmath.mpf(1) / 10), ref.rr_law(n, 3, 5),
                        mpmath.log(3))
    return [(p, q) for _, p, q in law]


def test_ordered_balls_certified_order():
    """The lattice view exists, its order is proved, and the balls' ratios are non-increasing
    (each neighbour pair compared in Arb) with masses summing to one."""
    fl = finite_loss(_product())
    assert lattice2d.has_order(fl)
    balls = fl.arb_masses(128)
    from flint import arb

    ratios = [q / p for p, q in balls]
    assert all(a >= b for a, b in zip(ratios, ratios[1:], strict=False))
    assert sum((p for p, _ in balls), arb(0)).contains(1)
    assert sum((q for _, q in balls), arb(0)).contains(1)


@pytest.mark.parametrize("a", [R(1, 100), R(1, 3), R(9, 10)])
def test_roc_and_value_against_joint_law(a):
    f = _product()
    pairs = _reference()
    with mpmath.workdps(50):
        truth = ref.np_value(pairs, mpmath.mpf(a.p) / a.q)
        power = 1 - truth
    v = ta.roc(f, a, dps=25)
    assert v.guarantee == "certified" and "Arb" in v.route
    lo, hi = v.interval()
    assert lo <= power <= hi
    w = ta.evaluate(f, a, dps=25)
    lo, hi = w.interval()
    assert w.guarantee == "certified" and lo <= truth <= hi


@pytest.mark.parametrize("eps", [R(1, 2), R(5, 2), sp.log(2)])
def test_delta_against_joint_law(eps):
    pairs = _reference()
    with mpmath.workdps(50):
        truth = ref.hockey(pairs, mpmath.exp(mpmath.mpf(sp.N(eps, 60))))
    v = ta.delta(_product(), eps, dps=25)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= truth <= hi


def test_epsilon_against_joint_law():
    """The certified eps(1e-6) is a point of 25 digits whose one-unit interval the joint law's
    hockey-stick sum brackets: above 1e-6 just below it, at most 1e-6 just above it (delta is
    non-increasing, so the crossing lies inside)."""
    pairs = _reference()
    v = ta.epsilon(_product(), R(1, 10**6), dps=25)
    assert v.guarantee == "certified" and v.is_point
    lo, hi = v.interval()
    with mpmath.workdps(50):
        d = mpmath.mpf(10) ** -6
        assert ref.hockey(pairs, mpmath.exp(mpmath.mpf(lo))) > d
        assert ref.hockey(pairs, mpmath.exp(mpmath.mpf(hi))) <= d
        assert ref.hockey(pairs, mpmath.exp(mpmath.mpf(lo) * (1 - mpmath.mpf(10) ** -22))) > d


def test_curve_certified_band():
    f = _product()
    x = np.linspace(0, 1, 41)[:-1]  # (at 1 the reference's knot is 1 - 1e-50, not 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    with mpmath.workdps(30):
        knots = ref.knots(_reference())
        truth = np.array([float(ref.pl_at(knots, mpmath.mpf(a))) for a in x])
    ulp = np.spacing(truth)  # (the reference rounded to the nearest float)
    assert np.all(lo <= truth + ulp) and np.all(truth - ulp <= hi)
    assert float(np.max(hi - lo)) < 1e-12


def test_commensurate_bases_with_exact_ties():
    """f_{1/10,0}^12 (x) RR(3/20, 3)^12: bases e^{1/10} and e^{3/20} are no integer powers of one
    another, so two groups, yet 3 (1/10) = 2 (3/20): exact ties, which the Arb comparison
    cannot separate and SymPy proves equal. The values still meet the joint law."""
    n = 12
    f = ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), n),
                  ta.TensorPower(ta.randomized_response(R(3, 20), 3), n))
    fl = finite_loss(f)
    assert lattice2d.has_order(fl)
    with mpmath.workdps(50):
        e2 = mpmath.mpf(3) / 20
        law2 = []  # RR(3/20, 3): ratios e^{3/20} (true answer), its inverse, 1 (the third)
        z = mpmath.exp(e2) + 2
        one = [(1, 1 / z, mpmath.exp(e2) / z), (-1, mpmath.exp(e2) / z, 1 / z), (0, 1 / z, 1 / z)]
        cur = {0: (mpmath.mpf(1), mpmath.mpf(1))}
        for _ in range(n):
            nxt: dict = {}
            for d, (p, q) in cur.items():
                for k, pp, qq in one:
                    a, b = nxt.get(d + k, (0, 0))
                    nxt[d + k] = (a + p * pp, b + q * qq)
            cur = nxt
        law2 = [(d * e2, p, q) for d, (p, q) in cur.items()]
        law1 = ref.binomial_law(n, mpmath.mpf(1) / 10)
        pairs = [(p1 * p2, q1 * q2) for _, p1, q1 in law1 for _, p2, q2 in law2]
        power = 1 - ref.np_value(pairs, mpmath.mpf(1) / 20)
        dtruth = ref.hockey(pairs, mpmath.exp(mpmath.mpf(1) / 2))
    v = ta.roc(f, R(1, 20), dps=25)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= power <= hi
    d = ta.delta(f, R(1, 2), dps=25)
    lo, hi = d.interval()
    assert d.guarantee == "certified" and lo <= dtruth <= hi


def test_size_limit_declines(monkeypatch):
    """Past MAX_ATOMS no ordered table is offered (the other routes answer)."""
    monkeypatch.setattr(lattice2d, "MAX_ATOMS", 100)
    fl = finite_loss(_product(11))
    assert lattice2d.ordered_balls(fl, 128) is None
    assert not lattice2d.has_order(fl)


def test_time_limit_refuses_at_once():
    """A table whose lower bound of time exceeds the limit is refused before it is built,
    naming the table and the time left."""
    from tradeoff_algebra.numeric import budget

    fl = finite_loss(_product(150))
    assert lattice2d.has_order(fl)
    # (0.02 s: below the table's estimate, 45,451 atoms x SECONDS_PER_ATOM = 0.036 s, and far
    # above the cached order's 0.2 ms, so a loaded machine does not fire the clock first)
    with ta.time_limit(0.02), budget.call("the test's table"):
        with pytest.raises(budget.TimeLimitExceeded, match="ordered table of .* atoms"):
            lattice2d.ordered_balls(fl, 128)


def test_three_lattices_against_joint_law():
    """f_{1/10,0}^6 (x) RR(log 3, 5)^4 (x) RR(1/7, 3)^3: three groups (bases e^{1/10}, 3, e^{1/7}),
    the order proved across all three; roc and delta against the joint law at 50 digits."""
    f = ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), 6),
                  ta.TensorPower(ta.randomized_response(sp.log(3), 5), 4),
                  ta.TensorPower(ta.randomized_response(R(1, 7), 3), 3))
    fl = finite_loss(f)
    assert lattice2d.has_order(fl) and len(fl.__dict__["_lattice_groups"].groups) == 3
    with mpmath.workdps(50):
        e3 = mpmath.exp(mpmath.mpf(1) / 7)
        law12 = ref.joint(ref.binomial_law(6, mpmath.mpf(1) / 10), ref.rr_law(4, 3, 5),
                          mpmath.log(3))
        law3 = [(p, q) for p, q in ref.product([_rr3(e3)] * 3)]
        pairs = [(p1 * p3, q1 * q3) for _, p1, q1 in law12 for p3, q3 in law3]
        power = 1 - ref.np_value(pairs, mpmath.mpf(1) / 10)
        dtruth = ref.hockey(pairs, mpmath.exp(mpmath.mpf(1) / 3))
    v = ta.roc(f, R(1, 10), dps=25)
    lo, hi = v.interval()
    assert v.guarantee == "certified" and lo <= power <= hi
    d = ta.delta(f, R(1, 3), dps=25)
    lo, hi = d.interval()
    assert d.guarantee == "certified" and lo <= dtruth <= hi


def _rr3(e):
    """Randomized response with 3 answers and ratio e (mpmath): the true answer, the
    neighbour's, the third."""
    z = e + 2
    return [(1 / z, e / z), (e / z, 1 / z), (1 / z, 1 / z)]
