"""Defects found and fixed: each test failed before its fix.

* a rational printed as a quotient of two integral floats (``EpsDelta(1/10, 1/10^12)`` as
  ``EpsDelta(1/10, 16000/1.6e+16)``, 10^20 as ``7.8125e+17/0.0078125``): core/readable.py;
* eps(delta) of f_{eps0,0}^{(x)k} with p = 1/(1 + e^{eps0}) below the float epsilon (eps0 >
  ~37): the float guess divided by sd = sqrt(n p (1 - p)) = 0 (an InternalError from eps0 = 38
  at k = 5, 100, 1000), and 1/(1 + math.exp(eps0)) overflowed past eps0 ~ 709
  (families/binomial_tails.py, binomial.py, binomial_loss.py, binomial_np.py);
* ``binomial_tails.arb_value_ball`` handed its Arb ball to ``budget.check`` as the best so
  far: TimeLimitExceeded cannot hold a ball (a TypeError at the deadline), now its ends
  (``progress.best_pair``);
* delta at and just below the largest loss of RR(eps, k)^n and f_{eps0,0}^n (regression:
  exact 0 at it, the exact value just below it).

References: SymPy's own printing of the fraction; the top segment of the privacy profile in
closed form at 60 digits (Dong, Roth & Su, Prop. 6); exact Fraction sums over the n-fold
product's atoms (``references.finite``).
"""

from __future__ import annotations

import types
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from references.base import mpf_frac
from references.finite import binomial_pair, np_knots, pair_power, pl_value

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget

R = sp.Rational


# -- 1. a rational prints as a rational -------------------------------------------------------
@pytest.mark.parametrize("r", [R(1, 10**12), R(3, 10**12), R(1, 3 * 10**12), R(10**12, 3),
                               R(1, 10**20), R(10**20), R(12345678901, 10**15), R(1, 10**40)])
def test_a_rational_parameter_prints_as_its_fraction(r):
    shown = sp.StrPrinter()._print_Rational(r)  # SymPy's own text of the rational
    g = ta.G(r)
    assert repr(g) == str(g) == ta.text(g) == f"G({shown})"
    assert ta.latex(g) == "G_{%s}" % sp.latex(r)
    if r <= 1:
        f = ta.EpsDelta(R(1, 10), r)
        assert repr(f) == str(f) == ta.text(f) == f"EpsDelta(1/10, {shown})"
        assert ta.latex(f) == r"f_{\frac{1}{10},%s}" % sp.latex(r)


def test_float_quotients_still_print_as_floats():
    """The mechanisms' ratios of floats keep their reading (test_printing has the rest)."""
    assert str(ta.gaussian_mechanism(1, 1.1)) == "G(1/1.1)"
    assert str(ta.gaussian_mechanism(0.7, 1.3)) == "G(0.7/1.3)"
    assert str(ta.gaussian_mechanism(1e-5, 7.3)) == "G(1e-05/7.3)"


# -- 2. eps(delta) of f_{eps0,0}^k past the float range -----------------------------------------
def _top_segment_eps(e0: int, k: int, d: Fraction) -> mpmath.mpf:
    """eps(d) on the top segment [(k - 2) eps0, k eps0]: delta = Q(top) - e^eps P(top) with
    Q(top) = (1 + e^-eps0)^-k, P(top) = e^(-k eps0) Q(top), so eps = k eps0 + log(1 - d (1 +
    e^-eps0)^k). (delta((k - 2) eps0) >= Q(top)(1 - e^(-2 eps0)) > d: the segment holds it.)"""
    with mpmath.workdps(60):
        return k * e0 + mpmath.log(1 - mpmath.mpf(d.numerator) / d.denominator
                                   * (1 + mpmath.exp(-e0)) ** k)


@pytest.mark.parametrize("e0", [38, 45, 700, 800, 2000])
@pytest.mark.parametrize("k", [1, 3, 5, 100])
@pytest.mark.parametrize("d", [Fraction(1, 10**6), Fraction(1, 10**300)])
def test_epsilon_of_a_large_eps0_power_against_the_top_segment(e0, k, d):
    f = ta.EpsDelta(e0, 0) ** k if k > 1 else ta.EpsDelta(e0, 0)
    v = ta.epsilon(f, R(d.numerator, d.denominator))
    assert v.guarantee in ("exact", "certified")
    ref = _top_segment_eps(e0, k, d)
    lo, hi = v.interval()
    assert mpf_frac(lo) <= mpf_frac(ref) + Fraction(1, 10**45) and \
        mpf_frac(ref) - Fraction(1, 10**45) <= mpf_frac(hi)
    assert hi - lo <= mpmath.mpf(10) ** -20 * ref


@pytest.mark.parametrize("e0,k", [(800, 3), (2000, 5), (38, 1000)])
def test_delta_of_a_large_eps0_power_below_its_top(e0, k):
    """delta(k eps0 - 1) = Q(top)(1 - e^-1) (the top atom alone lies above it)."""
    v = ta.delta(ta.EpsDelta(e0, 0) ** k, k * e0 - 1)
    with mpmath.workdps(60):
        ref = (1 + mpmath.exp(-e0)) ** -k * (1 - mpmath.exp(-1))
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    assert lo <= ref <= hi and hi - lo <= mpmath.mpf(10) ** -25


def test_np_value_of_a_large_eps0_power_in_floats():
    """The float view of f_{800,0}^3 (p = 1/(1 + e^800) is 0 in floats): f(alpha) = 0 for
    alpha > 0 up to e^-800 (the knots (A_j, A_{4-j}) with A_1 = 1 - (1 - p)^3 ~ 3e^-800)."""
    import numpy as np

    from tradeoff_algebra.numeric.protocol import np_value

    f = ta.simplify(ta.EpsDelta(800, 0) ** 3)  # BinomialDP(800, 3)
    y = np_value(f, np.array([0.0, 1e-300, 0.5, 1.0]))
    assert y[0] == 1.0 and y[-1] == 0.0 and abs(y[1]) <= 1e-300 and y[2] == 0.0


# -- 3. a deadline inside arb_value_ball ------------------------------------------------------
class _Ticks:
    """A clock that advances one unit per read."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_arb_value_ball_reports_its_best_ball_as_a_pair_at_the_deadline(monkeypatch):
    """f(1/3) of f_{log 3,0}^{(x)40} from a ball of alpha at 80 bits asked at 300 bits: the
    loop doubles its extra bits, the deadline falls at every read of the clock in turn; each
    placement answers a ball, or stops with TimeLimitExceeded whose best (if any) is a pair of
    mpfs; each holds the exact value (Neyman-Pearson knots of the exact binomial pair)."""
    from flint import arb

    from tradeoff_algebra.families.binomial_tails import arb_value_ball
    from tradeoff_algebra.numeric.context import arb_precision

    n = 40
    exact = pl_value(np_knots(*binomial_pair(Fraction(3), n, True), True), Fraction(1, 3))

    def holds(lo: Fraction, hi: Fraction) -> None:
        assert lo <= exact <= hi

    def compute():
        with arb_precision(80):
            a, ac = arb(1) / 3, arb(2) / 3
        with arb_precision(300):
            return arb_value_ball(sp.log(3), n, a, ac, False)

    ticks = _Ticks()
    monkeypatch.setattr(budget, "time", types.SimpleNamespace(monotonic=ticks.monotonic))
    with ta.time_limit(None), budget.call("the test's value"):
        start = ticks.now
        b = compute()
    reads = int(ticks.now - start)
    from references.base import arb_ends

    holds(*arb_ends(b))
    assert reads >= 2, reads  # (the loop checks the clock between its precisions)
    stopped_with_best = 0
    for limit in range(1, reads + 1):
        with ta.time_limit(limit - 0.5):
            try:
                with budget.call("the test's value"):
                    b = compute()
            except ta.TimeLimitExceeded as exc:
                if exc.best is not None:
                    stopped_with_best += 1
                    lo, hi = exc.best
                    holds(mpf_frac(lo), mpf_frac(hi))
                continue
        holds(*arb_ends(b))
    assert stopped_with_best >= 1


# -- 4. delta at and just below the largest loss ------------------------------------------------
def _rr_pair(k: int):
    """RR(log 3, k): P = (b, a, (k - 2) b), Q = (a, b, (k - 2) b), a = 3/(k + 2), b = 1/(k + 2)
    (k = 2: f_{log 3, 0})."""
    a, b = Fraction(3, k + 2), Fraction(1, k + 2)
    return ([b, a, (k - 2) * b], [a, b, (k - 2) * b]) if k > 2 else ([b, a], [a, b])


def _exact_delta(pair, c: Fraction) -> Fraction:
    """sum over the atoms of (Q - c P)_+, c = e^eps (Dong, Roth & Su, Prop. 6)."""
    return sum((max(q - c * p, Fraction(0)) for p, q in zip(*pair, strict=True)), Fraction(0))


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("n", [1, 3, 10, 50])
def test_rr_power_at_and_below_its_largest_loss_exactly(k, n):
    f = ta.randomized_response(sp.log(3), k) ** n if n > 1 else ta.randomized_response(sp.log(3), k)
    pair = pair_power(_rr_pair(k), n, True)
    at = ta.delta(f, n * sp.log(3))
    assert at.guarantee == "exact" and at.exact == 0 == _exact_delta(pair, Fraction(3) ** n)
    c = Fraction(3) ** n - 1  # eps = log(3^n - 1): only the top atom lies above it
    below = ta.delta(f, sp.log(3**n - 1))
    assert below.guarantee == "exact" and below.exact == _exact_delta(pair, c) > 0


@pytest.mark.parametrize("n", [5, 20])
def test_epsdelta_power_at_and_below_its_largest_loss(n):
    f = ta.EpsDelta(R(1, 10), 0) ** n
    at = ta.delta(f, R(n, 10))
    assert at.guarantee == "exact" and at.exact == 0
    eps = R(n, 10) - R(1, 10**6)
    below = ta.delta(f, eps)
    with mpmath.workdps(60):
        P, Q = binomial_pair(mpmath.exp(mpmath.mpf(1) / 10), n, False)
        E = mpmath.exp(mpmath.mpf(eps.p) / eps.q)
        ref = sum(max(q - E * p, 0) for p, q in zip(P, Q, strict=True))
    lo, hi = below.interval()
    assert below.guarantee == "certified" and lo <= ref <= hi


def test_delta_of_a_laplace_power_with_irrational_mu_is_certified():
    """delta(1) of L_sqrt(2)^3 between the certified deltas of L_{mu_lo}^3 and L_{mu_hi}^3 for
    rationals mu_lo < sqrt(2) < mu_hi (L_mu decreases in mu, Dong, Roth & Su, Prop. 7; the
    tensor power keeps the order, Lemma 4: delta is non-decreasing in mu): now certified by the
    same sandwich, routes/parameter_sandwich."""
    lo_mu, hi_mu = R(14142135623, 10**10), R(14142135624, 10**10)
    d_lo = ta.delta(ta.Laplace(lo_mu) ** 3, 1)
    d_hi = ta.delta(ta.Laplace(hi_mu) ** 3, 1)
    assert d_lo.guarantee == d_hi.guarantee == "certified"
    v = ta.delta(ta.Laplace(sp.sqrt(2)) ** 3, 1)
    assert v.interval()[1] >= d_lo.interval()[0] and v.interval()[0] <= d_hi.interval()[1]
    assert v.guarantee == "certified"


# -- found, not fixed: strict xfails with their references ----------------------------------------
def test_roc_of_the_poisson_laplace_mechanism_composed_is_certified():
    """roc of AddRemove(Mix(L_2, 1/50)^8) at 1/3. C(g) <= min{g, g^-1} (Wang et al., Sec. 4),
    so roc >= the larger of the two directions' certified rocs; and C(g) >= 1 - delta_C(eps) -
    e^eps alpha with delta_C = max of the two directions' profiles (Dong, Roth & Su, Prop. 6),
    so roc <= delta_C(eps) + e^eps alpha at any eps: both ends from certified direction values
    (the cells route and the exact largest loss), 1.1e-5 apart at the tangent eps."""
    m = ta.Mix(ta.Laplace(2), R(1, 50))
    g, gi, a = m**8, ta.Inverse(m) ** 8, R(1, 3)
    lo = max(ta.roc(g, a).interval()[0], ta.roc(gi, a).interval()[0])
    v = ta.roc(ta.AddRemove(g), a)
    assert v.interval()[1] >= lo
    assert v.guarantee == "certified" and v.interval()[0] >= lo * (1 - mpmath.mpf(10) ** -3)


def test_rr_power_just_below_its_largest_loss_at_n_300():
    n = 300
    f = ta.randomized_response(sp.log(3), 3) ** n
    v = ta.delta(f, sp.log(3**n - 1))
    assert v.guarantee == "exact" and v.exact == Fraction(1, 5) ** n  # the top atom's P-mass
