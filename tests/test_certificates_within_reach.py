"""Answers that were correct estimates where a certificate is within reach, now certified or
exact, each against an independent reference:

* eps(D) = 0 once a certified delta(0) <= D (Dong, Roth & Su, Prop. 6), wherever eps came from:
  the coupling bound TV(prod P_i, prod Q_i) <= 1 - prod (1 - TV_i) (maximal couplings, one per
  coordinate) at 40 digits;
* delta of a Laplace product at and above its largest loss sum mu_i is 0 exactly: the
  hockey-stick integral over the plane at 30 digits (``audit5_refs.laplace_two_exact``);
* G_mu, L_mu, f_{eps,delta} and f_p at the ends alpha = 0, 1 exactly; Group(G(1), 3) at 0 and
  its curve without an EstimateWarning: k steps of Eq. (5) in mpmath at 40 digits;
* Mix, Group and Max of finite operands with irrational masses (randomized response with
  e^eps = e) certified: the Neyman-Pearson knots of the joint atoms at 50 digits, with the knot
  algebra of ``audit5_refs`` (f_p, group privacy by composing the power, the maximum).
"""

from __future__ import annotations

import warnings

import mpmath
import pytest
import sympy as sp
from references import audit5_refs as A

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import EstimateWarning
from tradeoff_algebra.numeric.protocol import arb_value, exact_value

R = sp.Rational
L = ta.Laplace


def _inside(v, x) -> bool:
    with mpmath.workdps(60):
        lo, hi = v.interval()
        return lo <= x <= hi


# -- eps = 0 proved by delta(0) <= D --------------------------------------------------------------
def test_epsilon_zero_certified_by_delta_at_zero():
    mus = (R(1, 2), R(1, 3), R(1, 5), R(1, 7))
    f = ta.Tensor(*[L(m) for m in mus])
    with mpmath.workdps(40):  # TV(L_mu) = 1 - e^{-mu/2}; the coupling bound of the product
        bound = 1 - mpmath.exp(-sum(mpmath.mpf(m.p) / m.q for m in mus) / 2)
    assert bound < 0.5
    v = ta.epsilon(f, R(1, 2))
    assert v.is_point and v.mid == 0 and v.guarantee == "certified"
    d0 = ta.delta(f, 0)
    assert d0.is_certain and d0.interval()[1] <= bound


def test_epsilon_zero_left_alone_when_delta_at_zero_is_above():
    f = ta.Tensor(L(R(1, 2)), L(R(1, 3)))
    v = ta.epsilon(f, R(1, 10))  # delta(0) ~ 0.33 > 1/10: eps > 0
    assert v.lo > 0


# -- delta = 0 exactly at the largest loss ------------------------------------------------------
def test_delta_exactly_zero_at_the_largest_loss():
    mus = (R(1, 2), R(1, 3), R(1, 5), R(1, 7))
    f = ta.Tensor(*[L(m) for m in mus])
    top = sum(mus)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.delta(f, top)
    assert v.exact == 0
    assert ta.delta(f, top + R(1, 100)).exact == 0
    below = ta.delta(f, top - R(1, 10**6))
    assert below.lo > 0  # (the largest loss is where delta reaches 0, not before)


def test_delta_two_laplaces_at_and_below_the_largest_loss_against_the_plane_integral():
    m1, m2 = R(1, 3), R(1, 5)
    f = ta.Tensor(L(m1), L(m2))
    from fractions import Fraction as F

    ref = A.laplace_two_exact(F(1, 3), F(1, 5), F(8, 15), dps=30)
    assert abs(ref) < mpmath.mpf(10) ** -28
    assert ta.delta(f, R(8, 15)).exact == 0
    eps = R(8, 15) - R(1, 1000)
    ref = A.laplace_two_exact(F(1, 3), F(1, 5), F(eps.p, eps.q), dps=30)
    v = ta.delta(f, eps)
    assert v.is_certain and ref > 0 and _inside(v, ref)


# -- the ends alpha = 0, 1 exactly --------------------------------------------------------------
@pytest.mark.parametrize("f, at0", [
    (ta.G(1), 1), (ta.G(R(7, 3)), 1), (L(R(1, 3)), 1), (L(sp.sqrt(2)), 1),
    (ta.EpsDelta(1, R(1, 10)), R(9, 10)), (ta.EpsDelta(sp.log(3), 0), 1),
    (ta.Mix(ta.G(1), 1 / sp.sqrt(2)), 1),
])
def test_exact_values_at_the_ends(f, at0):
    # Eq. (5): Phi(Phi^-1(1) - mu) = 1, Phi(Phi^-1(0) - mu) = 0; L_mu and f_{eps,delta} from
    # their three pieces (Eq. (4)); f_p = p f + (1 - p)(1 - alpha) at alpha = 0 with f(0) = 1
    assert exact_value(f, sp.S.Zero, sp.S.One) == at0
    if not isinstance(f, ta.Mix):
        assert exact_value(f, sp.S.One, sp.S.Zero) == 0


def test_gaussian_ball_at_the_ends():
    from flint import arb

    g = ta.G(R(3, 2))
    assert arb_value(g, arb(0), arb(1), False) == 1 and arb_value(g, arb(0), arb(1), True) == 0
    assert arb_value(g, arb(1), arb(0), False) == 0 and arb_value(g, arb(1), arb(0), True) == 1


def _group_gauss(mu, k, alpha):
    """1 - (1 - G_mu)^{o k}(alpha) by k steps of Eq. (5) at 40 digits."""
    with mpmath.workdps(40):
        x = mpmath.mpf(alpha)
        for _ in range(k):
            x = 1 - mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * x - 1) - mu) \
                if 0 < x < 1 else (mpmath.mpf(0) if x == 0 else mpmath.mpf(1))
        return 1 - x


def test_group_of_gaussian_at_zero_and_its_curve_certified():
    f = ta.Group(ta.G(1), 3)
    v = ta.evaluate(f, 0)
    assert v.exact == 1
    assert ta.roc(f, 0).exact == 0
    alphas = [0.0, 1e-3, 0.25, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, alphas, bounds=True)
    for a, x, y in zip(alphas, lo, hi, strict=True):
        ref = _group_gauss(1, 3, a)
        assert x <= ref <= y and y - x <= 1e-6  # (the band at the default tolerance)


# -- Mix, Group, Max of finite operands with irrational masses ----------------------------------
def _rr_knots(m, dps=50):
    """T(P, Q) of randomized response (e^eps = e, 3 answers) composed m times, at ``dps``."""
    with mpmath.workdps(dps):
        one = mpmath.mpf(1)
        return A.np_knots(A.rr_pairs(m, mpmath.e, 3, one), one)


def _binomial_knots(k, dps=50):
    with mpmath.workdps(dps):
        one = mpmath.mpf(1)
        return A.np_knots(A.binomial_pairs(k, mpmath.e, one), one)


def _level(a):
    """The level a (a Rational or a float) as an mpf of the current precision, exactly."""
    a = sp.Rational(a)
    return mpmath.mpf(a.p) / a.q


def _mix_ref(a):
    with mpmath.workdps(50):
        return A.pl_at(A.pl_mix(_rr_knots(5), mpmath.mpf(1) / 3, mpmath.mpf(1)), _level(a))


def _group_ref(a):
    with mpmath.workdps(50):
        return A.pl_at(A.pl_group(_binomial_knots(3), 2, mpmath.mpf(1)), _level(a))


def _max_knots():
    one = mpmath.mpf(1)
    return sorted(A.pl_max(A.pl_max(A.epsdelta_knots(mpmath.e, one / 10, one),
                                    A.epsdelta_knots(mpmath.sqrt(mpmath.e), one / 5, one)),
                           _rr_knots(2)))


def _max_ref(a):
    with mpmath.workdps(50):
        return A.pl_at(_max_knots(), _level(a))


RR = ta.randomized_response
CASES = {
    "mix": (lambda: ta.Mix(RR(1, 3)**5, R(1, 3)), _mix_ref),
    "group": (lambda: ta.Group(RR(1, 2)**3, 2), _group_ref),
    "max": (lambda: ta.Max(ta.EpsDelta(1, R(1, 10)), ta.EpsDelta(R(1, 2), R(1, 5)),
                           RR(1, 3)**2), _max_ref),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_operators_of_irrational_finite_operands_certified(name):
    make, ref = CASES[name]
    f = make()
    for a in (R(1, 7), R(1, 1000), R(9, 10), 1 - R(1, 10**6)):
        v, w = ta.evaluate(f, a), ta.roc(f, a)
        assert v.guarantee == "certified" and w.guarantee == "certified", (a, v, w)
        r = ref(a)
        with mpmath.workdps(50):
            power = 1 - r
        assert _inside(v, r) and _inside(w, power)
    alphas = [0.01, 0.3, 0.8]
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, alphas, bounds=True)
    for a, x, y in zip(alphas, lo, hi, strict=True):
        assert x <= ref(a) <= y


@pytest.mark.parametrize("name", sorted(CASES))
def test_operators_of_irrational_finite_operands_delta_certified(name):
    make, ref = CASES[name]
    f = make()
    # delta at e^eps = v: the max over the reference's knots of 1 - y - v x (Prop. 6)
    knots = {"mix": lambda: A.pl_mix(_rr_knots(5), mpmath.mpf(1) / 3, mpmath.mpf(1)),
             "group": lambda: A.pl_group(_binomial_knots(3), 2, mpmath.mpf(1)),
             "max": _max_knots}[name]
    v = ta.delta(f, R(1, 2))
    assert v.is_certain
    with mpmath.workdps(50):
        r = A.pl_delta(knots(), mpmath.exp(mpmath.mpf(1) / 2), mpmath.mpf(1))
    assert _inside(v, r)


def test_rr_reference_knots_are_a_tradeoff_function():
    # (the reference itself: the 5-fold pair has 11 distinct ratios e^d, masses summing to 1)
    pairs = A.rr_pairs(5, sp.E, 3, sp.S.One)
    assert len(pairs) == 11
    assert sp.simplify(sum(p for p, _ in pairs) - 1) == 0
