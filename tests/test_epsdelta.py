"""f_{eps,delta} against brute-force Neyman-Pearson on the four-point pair of Prop. 3.

Dong, Roth & Su, Eq. (4) and Prop. 3: f_{eps,delta} is the trade-off function of
P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0) and
Q = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta). The pair is first checked on its
own (probability vectors; (eps, delta)-DP and tight), then T(P, Q) is computed by enumerating every
test (tests/reference_np.py) and compared with the closed form: exactly when e^eps is rational,
at 45 digits otherwise.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from reference_np import digits, finite_np, four_point_pair
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta

REF_DPS = 70
EXACT_PARAMS = [(0, Fraction(0)), (0, Fraction(1, 10)), (sp.log(3), Fraction(0)),
                (sp.log(3), Fraction(1, 7)), (sp.log(R(5, 2)), Fraction(1, 3)),
                (sp.log(2), Fraction(1))]
ALPHAS = [R(0), R(1, 10**300), R(1, 1000), R(1, 7), R(1, 5), R(1, 4), R(1, 3), R(1, 2), R(2, 3),
          R(6, 7), 1 - R(1, 10**15), R(1)]


def _frac(x: sp.Rational) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@pytest.mark.parametrize("eps,delta", EXACT_PARAMS, ids=str)
def test_four_point_pair_is_a_tight_eps_delta_pair(eps, delta):
    """The printed pair: probability vectors, and sup_S P(S) - e^eps Q(S) = delta (both ways)."""
    e = _frac(sp.exp(eps))
    P, Q = four_point_pair(e, delta)
    assert sum(P) == 1 and sum(Q) == 1
    assert all(x >= 0 for x in P + Q)
    subsets = list(product((0, 1), repeat=4))
    gap_pq = max(sum(p for p, s in zip(P, S, strict=True) if s)
                 - e * sum(q for q, s in zip(Q, S, strict=True) if s) for S in subsets)
    gap_qp = max(sum(q for q, s in zip(Q, S, strict=True) if s)
                 - e * sum(p for p, s in zip(P, S, strict=True) if s) for S in subsets)
    assert gap_pq == delta and gap_qp == delta


@pytest.mark.parametrize("eps,delta", EXACT_PARAMS, ids=str)
def test_exact_against_brute_force(eps, delta):
    e = _frac(sp.exp(eps))
    P, Q = four_point_pair(e, delta)
    f = EpsDelta(eps, sp.Rational(delta.numerator, delta.denominator))
    for A in ALPHAS:
        ref = finite_np(P, Q, _frac(A))
        v = ta.evaluate(f, A)
        assert v.exact is not None, (f, A)
        assert _frac(v.exact) == ref, (f, A)
        assert _frac(ta.roc(f, A).exact) == 1 - ref == finite_np(P, Q, _frac(A), roc=True)
        # the SymPy closed form gives the same rational
        assert f(A) == v.exact


@pytest.mark.parametrize("eps", [R(1, 10), 1, 3, sp.sqrt(2), 10])
@pytest.mark.parametrize("delta", [0, R(1, 10**6), R(1, 10)])
def test_irrational_e_eps_against_brute_force(eps, delta):
    f = EpsDelta(eps, delta)
    alphas = [R(1, 10**300), R(1, 10**8), R(1, 10), R(1, 3), R(1, 2), R(9, 10), 1 - R(1, 10**15)]
    with workdps(REF_DPS):
        e = mpmath.exp(mp.mpf(sp.Float(sp.N(eps, REF_DPS + 5), REF_DPS + 5)._mpf_))
        d = mp.mpf(int(sp.Rational(delta).p)) / int(sp.Rational(delta).q)
        P, Q = four_point_pair(e, d)
    for A in alphas:
        with workdps(REF_DPS):
            ref = finite_np(P, Q, mp.mpf(A.p) / A.q)
            ref_roc = finite_np(P, Q, mp.mpf(A.p) / A.q, roc=True)
        v = ta.evaluate(f, A, dps=45)
        w = ta.roc(f, A, dps=45)
        with workdps(REF_DPS):
            if ref == 0:
                assert v.mid == 0
            else:
                assert digits(v.mid, ref) >= 40, (f, A, v, ref)
            # the power without cancellation, against the brute-force power itself
            assert digits(w.mid, ref_roc) >= 40, (f, A, w)


def test_small_power_keeps_digits():
    """1 - f at alpha = 1e-300 with delta = 0 is e^eps alpha: no cancellation."""
    w = ta.roc(EpsDelta(1, 0), "1e-300", dps=45)
    with workdps(REF_DPS):
        assert digits(w.mid, mpmath.e * mp.mpf(10) ** -300) >= 44


def test_closed_form_symbolic_and_substituted():
    eps, delta, a = sp.symbols("varepsilon delta a", nonnegative=True)
    expr = EpsDelta(eps, delta)(a)
    assert isinstance(expr, sp.Piecewise)
    for e_, d_, A in [(1, R(1, 10), R(1, 5)), (2, 0, R(1, 20)), (R(1, 2), R(1, 100), R(9, 10))]:
        closed = expr.subs({eps: e_, delta: d_, a: A})
        v = ta.evaluate(EpsDelta(e_, d_), A, dps=50)
        with workdps(60):
            n50 = mp.make_mpf(sp.Float(sp.N(closed, 50), 50)._mpf_)
            assert n50 == v.mid == 0 or digits(n50, v.mid) >= 48


def test_fixed_point_and_symmetry():
    for eps, delta in [(1, R(1, 10)), (0, 0), (sp.log(3), R(1, 7)), (5, R(1, 2))]:
        f = EpsDelta(eps, delta)
        fp = f.fixed_point()
        assert sp.simplify(fp - (1 - sp.sympify(delta)) / (1 + sp.exp(eps))) == 0
        assert sp.simplify(f(fp) - fp) == 0
        v = ta.evaluate(f, fp, dps=45)
        with workdps(60):
            assert digits(v.mid, mp.make_mpf(sp.N(fp, 60)._mpf_)) >= 40
        assert f.is_symmetric
        for A in [R(1, 10), R(1, 3), R(1, 2)]:
            assert ta.evaluate(f.inverse(), A, dps=40).mid == ta.evaluate(f, A, dps=40).mid


@pytest.mark.parametrize("eps,delta", [(1, R(1, 10)), (sp.log(3), R(1, 7)), (2, 0)])
def test_inverse_undoes_f_on_the_decreasing_range(eps, delta):
    """f^{-1}(f(a)) = a for a in [0, 1 - delta), where f is strictly decreasing."""
    f = EpsDelta(eps, delta)
    for A in [R(0), R(1, 100), R(1, 10), R(1, 3), R(1, 2), (1 - sp.Rational(delta)) * R(9, 10)]:
        y = ta.evaluate(f, A, dps=70)
        back = ta.evaluate(f.inverse(), y.exact if y.exact is not None else y.mid, dps=45)
        with workdps(70):
            a = mp.mpf(A.p) / A.q
            assert back.mid == a or digits(back.mid, a) >= 40


@pytest.mark.parametrize("eps,delta,alpha", [(1, R(1, 10), R(1, 10)), (1, R(1, 10), R(1, 2)),
                                             (2, 0, R(1, 20)), (R(1, 2), R(1, 5), R(7, 10)),
                                             (1, R(1, 10), R(19, 20))])
def test_derivative_against_numeric_differentiation(eps, delta, alpha):
    f = EpsDelta(eps, delta)
    with workdps(35):
        dl = sp.Rational(delta)
        P, Q = four_point_pair(mpmath.exp(mp.mpf(sp.N(eps, 40))), mp.mpf(dl.p) / dl.q)
        ref = mpmath.diff(lambda x: finite_np(P, Q, x), mp.mpf(alpha.p) / alpha.q)
        d = mp.make_mpf(sp.Float(sp.N(f.derivative(alpha), 40), 40)._mpf_)
        assert d == ref == 0 or digits(d, ref) >= 30


@pytest.mark.parametrize("eps,delta", [(1, R(1, 10)), (sp.log(3), 0), (2, R(1, 3))])
def test_derivative_at_kinks_is_the_right_derivative(eps, delta):
    """TradeOff.derivative: the right derivative at kinks (the fixed point and 1 - delta).

    Reference: the forward difference quotient of the brute-force trade-off function with
    h = 1e-20 (exact slope of the piece to the right, up to the 35-digit rounding)."""
    f = EpsDelta(eps, delta)
    with workdps(35):
        e = mpmath.exp(mp.mpf(sp.N(eps, 40)))
        d_ = mp.mpf(sp.Rational(delta).p) / sp.Rational(delta).q
        P, Q = four_point_pair(e, d_)
        h = mp.mpf(10) ** -20
        for kink, x in [(f.fixed_point(), (1 - d_) / (1 + e)), (1 - sp.sympify(delta), 1 - d_)]:
            if x >= 1:
                continue
            right = (finite_np(P, Q, x + h) - finite_np(P, Q, x)) / h
            d = mp.mpf(sp.N(f.derivative(kink), 40))
            assert abs(d - right) < mp.mpf(10) ** -12, (kink, d, right)


def test_no_closed_form_for_symbolic_e_eps_exact_path():
    """e^eps irrational: no exact rational, a 45-digit point value instead."""
    v = ta.evaluate(EpsDelta(1, R(1, 10)), R(1, 3), dps=45)
    assert v.exact is None and v.is_point
