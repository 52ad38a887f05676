"""The symmetric hull of one Poisson-subsampled Laplace step, AddRemove(Mix(L_mu, q)), at
tol = 1e-9 (``routes.hull_one``): its power and value against an independent 50-digit
reference computed here, the infimum over v = e^eps of max(delta_remove, delta_add)(v) + v alpha
(Dong, Roth & Su, Prop. 6; the hull's profile is the larger of the two directions', Wang et
al., Sec. 4), each direction's delta the integral of (A - v B)_+ over the Laplace densities'
three pieces in closed form, minimised by golden section (convex in v)."""

from __future__ import annotations

import warnings

import mpmath
import pytest
import sympy as sp
from references.golden_sup import grid_golden_sup

import tradeoff_algebra as ta


def _pos_part(a1, a2, lo, hi):
    """int_lo^hi (a1 e^-x + a2 e^x)_+ dx (at most one sign change)."""
    cuts = [lo, hi]
    if a1 * a2 < 0:
        x0 = mpmath.log(-a1 / a2) / 2
        if lo < x0 < hi:
            cuts = [lo, x0, hi]
    total = mpmath.mpf(0)
    for a, b in zip(cuts, cuts[1:], strict=False):
        m = (a + b) / 2
        if a1 * mpmath.exp(-m) + a2 * mpmath.exp(m) > 0:
            total += (-a1 * mpmath.exp(-b) + a2 * mpmath.exp(b)) - (
                -a1 * mpmath.exp(-a) + a2 * mpmath.exp(a))
    return total


def _delta(mu, p, v, direction):
    """int (A - v B)_+ over R: P = Lap(0, 1), Q = Lap(mu, 1), M = (1 - p) P + p Q; remove
    (A, B) = (M, P), add (P, M). With A - v B = c_P P + c_Q Q: on x <= 0 the density e^x/2
    times c_P + c_Q e^-mu, on x >= mu e^-x/2 times c_P + c_Q e^mu, between them
    (c_P e^-x + c_Q e^-mu e^x)/2."""
    cp, cq = ((1 - p - v), p) if direction == "remove" else ((1 - v * (1 - p)), -v * p)
    left = max(cp + cq * mpmath.exp(-mu), 0) / 2
    right = mpmath.exp(-mu) * max(cp + cq * mpmath.exp(mu), 0) / 2
    return left + right + _pos_part(cp / 2, cq * mpmath.exp(-mu) / 2, 0, mu)


def hull_power(mu, p, alpha, dps: int = 50):
    """1 - C(alpha) = inf_v max(delta_r, delta_a)(v) + v alpha, golden section on [0, e^mu + 1]
    (delta_C(v) = 0 beyond e^{log(1 - p + p e^mu)} <= e^mu)."""
    with mpmath.workdps(dps + 15):
        mu, p, alpha = mpmath.mpf(mu), mpmath.mpf(p), mpmath.mpf(alpha)

        def h(v):
            return max(_delta(mu, p, v, "remove"), _delta(mu, p, v, "add")) + v * alpha

        b = mpmath.exp(mu) + 1
        # (golden section of the concave -h until the bracket is below 10^-(dps + 5))
        steps = int(mpmath.log(b * mpmath.mpf(10) ** (dps + 5)) / mpmath.log(1.618)) + 1
        return -grid_golden_sup(lambda v: -h(v), [mpmath.mpf(0), b / 2, b], steps)[1]


CASES = [("1/2", "1/1000", "1/100"), ("1", "1/100", "1/100"), ("3", "1/10", "1/10"),
         ("10", "1/100", "1/100"), ("10", "1/10", "1/2")]


@pytest.mark.parametrize("mu, q, alpha", CASES)
def test_one_step_hull_power_against_reference(mu, q, alpha):
    f = ta.laplace_mechanism(sp.Rational(mu), 1, sampling="poisson", p=sp.Rational(q))
    ref = hull_power(sp.Rational(mu), sp.Rational(q), sp.Rational(alpha))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning: the tolerance is met)
        with ta.pld_options(tol=1e-9):
            v = ta.roc(f, sp.Rational(alpha), dps=30)
            w = ta.evaluate(f, sp.Rational(alpha), dps=30)
    assert v.guarantee == "certified" and w.guarantee == "certified"
    lo, hi = v.interval()
    assert float(hi - lo) <= 1e-9 * float(hi)
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(v.mid) - ref) <= 1e-28 * ref
        assert abs(mpmath.mpf(w.mid) - (1 - ref)) <= 1e-28
    assert "one-step hull" in v.route


def test_one_step_hull_meets_dp_accounting():
    """The certified power lies in dp_accounting's optimistic/pessimistic bracket (grid 1e-4,
    both directions) widened by its float error."""
    refs = pytest.importorskip("references.audit6_refs")
    pytest.importorskip("dp_accounting")
    plds = refs.sampled_laplace_plds(1.0, 0.01, 1, 1e-4)
    a, b = refs.pld_power(plds, [0.01], eps_max=2.0, points=8001)[0]
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100))
    with ta.pld_options(tol=1e-9):
        v = ta.roc(f, sp.Rational(1, 100), dps=20)
    assert a * (1 - 1e-6) <= float(v.mid) <= b * (1 + 1e-6)
