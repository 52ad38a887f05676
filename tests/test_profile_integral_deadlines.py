"""The two-step profile integrals (families/gaussian_sampled_profile.py,
families/poisson_replace_profile.py), ``budget.integral`` (every Arb integration of a Python
integrand) and the far constant of the symmetric hull C_p(G_mu) (families/
gaussian_sampled_hull.py) under a deadline that falls inside them.

An ``acb.integral`` cannot be interrupted (an exception raised in its integrand is not
propagated), so past the deadline the integrands return 0 and the integral is followed by a
deadline check. Soundness of that rule: the clock is monotonic, so once an integrand has seen
the deadline pass, the check after the integral sees it too and raises; the 0s never reach an
answer. Tested with a deterministic clock (one tick per read of ``budget``'s clock): at every
placement of the deadline the call either stops with TimeLimitExceeded a few reads after it, or
answers a ball that holds an independent reference (DP-SGD: the 30-digit two-step quadrature of
``references.sampled_gaussian``; PoissonReplace: the mpmath quadrature over a domain that
follows the level, ``references.audit6_refs.replace_two_steps_wide``; budget.integral: the
closed form of int |sin|; the hull's far constant: ``references.hull_far``, in the loss variable
with mpmath's numerical derivatives).
"""

from __future__ import annotations

import types
from fractions import Fraction

import pytest
from flint import acb, arb
from references.audit6_refs import replace_two_steps_wide
from references.hull_far import far_constant_reference
from references.sampled_gaussian import sampled_gaussian_delta_two

import tradeoff_algebra as ta
from tradeoff_algebra.families.gaussian_sampled import SubsampledGaussianLaw
from tradeoff_algebra.families.gaussian_sampled_hull import SampledGaussianHullLaw
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw
from tradeoff_algebra.families.poisson_replace_profile import two_step_delta
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.context import mp


class _Ticks:
    """A clock that advances one unit per read."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def _sweep(monkeypatch, compute, holds, places: int = 8) -> None:
    ticks = _Ticks()
    monkeypatch.setattr(budget, "time", types.SimpleNamespace(monotonic=ticks.monotonic))
    with ta.time_limit(None), budget.call("the test's integral"):
        start = ticks.now
        holds(compute())
    reads = int(ticks.now - start)
    assert reads > 50, reads  # (the integrands read the clock: the deadline can fall inside)
    stopped = 0
    for k in range(1, places):
        limit = reads * k / places
        with ta.time_limit(limit):
            try:
                with budget.call("the test's integral"):
                    start = ticks.now
                    out = compute()
            except ta.TimeLimitExceeded:
                stopped += 1
                # stopped within a few reads after the deadline (the rest of the integral's
                # subintervals at a cheap 0 each, then the check)
                assert ticks.now - start - limit <= 0.2 * reads + 20, (k, ticks.now - start)
                continue
        holds(out)
    assert stopped >= places // 2, stopped


@pytest.mark.parametrize("direction, eps", [("remove", 0.05), ("add", 0.003)])
def test_dpsgd_two_steps_deadline_inside_the_integral(monkeypatch, direction, eps):
    mu, q = Fraction(10, 11), Fraction(256, 60000)
    with mp.workdps(30):
        ref = sampled_gaussian_delta_two(mp.mpf(mu.numerator) / mu.denominator,
                                         mp.mpf(q.numerator) / q.denominator, direction,
                                         mp.mpf(eps))

    def holds(band):
        lo, hi = band
        with mp.workdps(30):
            assert mp.mpf(lo) <= ref <= mp.mpf(hi), (band, ref)
        assert hi - lo <= 1e-9 * float(ref)

    # (a fresh law each time: no plan kept from an earlier eps)
    _sweep(monkeypatch,
           lambda: SubsampledGaussianLaw(mu, q, direction).few_step_delta(2, eps, 1e-9), holds)


def test_replace_two_steps_deadline_inside_the_integral(monkeypatch):
    mu, q, eps = Fraction(1), Fraction(1, 10), Fraction(1, 2)
    ref = replace_two_steps_wide(mu, q, eps, dps=15)

    def holds(v):
        with mp.workdps(15):
            assert mp.mpf(v.lower()) <= ref <= mp.mpf(v.upper()), (v, ref)
        assert v.rad() <= 1e-6 * abs(v.mid())

    _sweep(monkeypatch, lambda: two_step_delta(ReplaceLaw(mu, q), float(eps), 1e-6), holds,
           places=5)


def test_budget_integral_deadline_inside(monkeypatch):
    """int_0^10 |sin(10 u)| du = (62 + 1 - cos(100 - 31 pi)) / 10 (31 full arches and a part):
    Arb's integration bisects at each of the 31 kinks (many integrand calls, so the deadline
    falls inside); stopped, or the ball holds the closed form."""
    with mp.workdps(30):
        ref = (63 - mp.cos(100 - 31 * mp.pi)) / 10

    def f(u, analytic):
        return (10 * u).sin().real_abs(analytic=analytic)

    def holds(v):
        with mp.workdps(30):
            assert mp.mpf(v.lower()) <= ref <= mp.mpf(v.upper()), (v, ref)
        assert v.rad() <= 1e-9

    _sweep(monkeypatch, lambda: budget.integral(f, 0, 10, rel_tol=arb(2) ** -40).real, holds)


def test_budget_integral_answers_as_arb_without_deadline():
    """Outside a call (no deadline) the guarded integral is Arb's own, to the last bit."""

    def f(u, analytic):
        return (u * u).exp() * (3 * u).cos()

    a = budget.integral(f, 0, 2, rel_tol=arb(2) ** -50)
    b = acb.integral(f, 0, 2, rel_tol=arb(2) ** -50)
    assert a.real.mid() == b.real.mid() and a.real.rad() == b.real.rad()


def test_hull_far_constant_deadline_inside(monkeypatch):
    """The far constant C2 of C_{99/100}(G_5) at c = 0.0262 (the first curve of
    C(99/100, G(5))**3 computes it; its integral once ran 68,100 integrand calls past a 0.3 s
    limit): stopped a few clock reads after the deadline, or an upper bound of the reference
    within 1e-4 of it."""
    mu, q, c = 5, Fraction(99, 100), 0.026193474618839096
    ref = far_constant_reference(mu, q, c)

    def holds(v):
        with mp.workdps(30):
            assert ref <= mp.mpf(v.upper()) <= ref * (1 + mp.mpf(10) ** -4), (v, ref)

    # (a fresh law each time: the constant is cached per law)
    _sweep(monkeypatch, lambda: SampledGaussianHullLaw(mu, q).far_constant(c), holds, places=5)
