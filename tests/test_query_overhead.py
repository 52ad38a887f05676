"""The query layer's short cuts on small exact problems give the answers of the long way.

* ``FiniteLoss.singular_leaves`` (the singular Q-masses read without forming randomized
  response's masses in SymPy) against the sums over :meth:`FiniteLoss.leaves` of the Q-masses
  with P-mass 0 (the same pairs, built as SymPy expressions).
* epsilon of a product whose route returns a proved point, now taken without a second
  computation: the exact Kairouz-Oh-Viswanath sum at 40 digits brackets delta at the point's
  two ends of one unit.
* eps = oo where the singular mass exceeds delta, and finite where it does not (Prop. 6):
  delta(oo) = 1 - (1 - d)^m by hand.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import finite_loss

R = sp.Rational


def _by_leaves(fl):
    out = []
    for pairs, m in fl.leaves():
        q = sp.Add(*[q for p, q in pairs if p == 0])
        if q != 0:
            out.append((q, m))
    return out


@pytest.mark.parametrize("f", [
    ta.EpsDelta(R(1, 10), 0) ** 3,
    ta.EpsDelta(R(1, 2), 0) @ ta.EpsDelta(1, R(1, 10)) ** 2,
    ta.Discrete([R(1, 2), R(1, 2), 0], [R(1, 4), R(1, 4), R(1, 2)]) ** 2
    @ ta.EpsDelta(R(1, 3), 0) ** 4,
])
def test_singular_leaves_match_the_leaves(f):
    fl = finite_loss(f)
    assert fl is not None
    got = sorted((sp.nsimplify(q), m) for q, m in fl.singular_leaves())
    want = sorted((sp.nsimplify(q), m) for q, m in _by_leaves(fl))
    assert got == want


def _kov_delta(k: int, eps0, eps):
    """delta(eps) of f_{eps0,0}^{(x) k} by Kairouz, Oh & Viswanath's sum at 40 digits."""
    with mp.workdps(40):
        e0, e = mp.mpf(eps0), mp.mpf(eps)
        q = 1 / (1 + mp.exp(e0))
        tot = mp.mpf(0)
        for li in range(k + 1):
            loss = e0 * (k - 2 * li)
            if loss > e:
                tot += mp.binomial(k, li) * q**li * (1 - q) ** (k - li) * (
                    1 - mp.exp(e - loss))
        return +tot


@pytest.mark.parametrize("k", [2, 3, 5])
def test_rr_power_epsilon_point_brackets_the_level(k):
    v = ta.epsilon(ta.EpsDelta(R(1, 10), 0) ** k, R(1, 10**6), dps=20)
    assert v.guarantee == "certified" and v.is_point
    lo, hi = v.interval()
    with mp.workdps(40):
        target = mp.mpf(1) / 10**6
        assert _kov_delta(k, "0.1", lo) >= target >= _kov_delta(k, "0.1", hi)


def test_singular_mass_decides_infinity():
    f = ta.EpsDelta(1, R(1, 10)) ** 2  # delta(oo) = 1 - (9/10)^2 = 19/100
    assert ta.epsilon(f, R(18, 100), dps=15).lo == mpmath.inf
    assert ta.epsilon(f, R(20, 100), dps=15).hi < mpmath.inf
    g = ta.EpsDelta(1, 0) ** 2  # no singular part: eps(0) = 2, finite
    assert ta.epsilon(g, 0, dps=15).hi < mpmath.inf


@pytest.mark.parametrize("eps0", [R(1, 10), R(3, 2)])
def test_segment_tails_from_the_arb_ball_of_p(eps0):
    """The binomial tails of ``segment_formula`` (p = 1/(1 + e^eps0) formed in Arb) contain
    the exact sums of the binomial masses at 50 digits, for every segment of n = 9."""
    from tradeoff_algebra.numeric.binomial_profile import segment_formula
    from tradeoff_algebra.numeric.context import arb_precision

    n = 9
    with mp.workdps(50):
        p = 1 / (1 + mp.exp(mp.mpf(eps0.p) / eps0.q))
        mass = [mp.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        for m in range(0, n + 2):
            F = mp.fsum(mass[: max(n - m + 1, 0)])  # P[Bin(n, p) <= n - m]
            S = mp.fsum(mass[m:])  # P[Bin(n, p) >= m]
            with arb_precision(120):
                A, B = segment_formula(eps0, n, m, 120)
            for ball, x in ((A, F), (B, S)):
                with arb_precision(200):  # x to 45 digits, the ball widened by 1e-44
                    assert (ball + arb(0, 1e-44)).contains(arb(mp.nstr(x, 45)))
                    assert ball.rad() < 1e-30


@pytest.mark.parametrize("value, kw, want", [
    (R(1, 10), {"lower": 0}, R(1, 10)),
    (3, {"lower": 0, "integer": True}, sp.Integer(3)),
    (2.0, {"lower": 0, "integer": True}, sp.Integer(2)),
    (0.1, {"lower": 0, "lower_open": True}, sp.Rational(3602879701896397, 2**55)),
    (5e-4, {"lower": 0, "upper": 1}, sp.Rational(5e-4)),
])
def test_param_plain_numbers(value, kw, want):
    """Plain numbers in plain ranges (decided in exact rationals): the exact SymPy rational of
    the value (a float's binary value, as SymPy's own Rational(float) gives it)."""
    from tradeoff_algebra.core.validate import param

    got = param("x", value, **kw)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("value, kw", [
    (R(-1, 10), {"lower": 0}),
    (0, {"lower": 0, "lower_open": True}),
    (R(3, 2), {"lower": 0, "integer": True}),
    (2, {"upper": 1}),
    (True, {"lower": 0}),
    (float("nan"), {"lower": 0}),
    (float("inf"), {"lower": 0}),
])
def test_param_plain_numbers_refused(value, kw):
    """Outside the range, not an integer, a bool, NaN or an infinity: refused, naming the
    parameter."""
    from tradeoff_algebra.core.errors import InvalidParameter
    from tradeoff_algebra.core.validate import param

    with pytest.raises(InvalidParameter, match="x"):
        param("x", value, **kw)


# -- the fast paths by type give SymPy's three-valued answers --------------------------------
_X = sp.Symbol("x")
_NUMBERS = [sp.Integer(0), sp.Integer(1), sp.Integer(-1), R(1, 10), R(-7, 3), R(10, 10),
            sp.Integer(10**30), sp.sqrt(2), sp.sqrt(2) ** 2, sp.Float(1.0), _X, _X - _X + 1,
            sp.Symbol("p", positive=True), sp.exp(1) - sp.E]


@pytest.mark.parametrize("x", _NUMBERS)
@pytest.mark.parametrize("c", [0, 1, -1])
def test_fuzzy_equals_is_sympys_answer(x, c):
    from tradeoff_algebra.core.validate import fuzzy_equals

    assert fuzzy_equals(x, c) is (x - c).is_zero


def test_param_fast_path_decides_as_fractions():
    """Every plain number against plain bounds: the integer-pair comparison gives what exact
    Fractions give (accepted: the same Rational; refused: InvalidParameter)."""
    import itertools
    from fractions import Fraction

    from tradeoff_algebra.core.errors import InvalidParameter
    from tradeoff_algebra.core.validate import param

    vals = [0, 1, 2, -1, 0.5, 1e-300, 1.0 - 2**-53, R(1, 3), R(2, 3), R(3, 2), R(-1, 7)]
    for v, lo_open, hi_open in itertools.product(vals, [False, True], [False, True]):
        fv = Fraction(v) if not isinstance(v, sp.Rational) else Fraction(int(v.p), int(v.q))
        inside = (fv > 0 if lo_open else fv >= 0) and (fv < 1 if hi_open else fv <= 1)
        if inside:
            got = param("x", v, lower=0, upper=1, lower_open=lo_open, upper_open=hi_open)
            assert isinstance(got, sp.Rational)
            assert Fraction(int(got.p), int(got.q)) == fv
        else:
            with pytest.raises(InvalidParameter):
                param("x", v, lower=0, upper=1, lower_open=lo_open, upper_open=hi_open)


@pytest.mark.parametrize("a", [R(-1, 3), R(4, 3), R(1, 3), sp.Integer(0), sp.Integer(1)])
def test_level_fast_path(a):
    from tradeoff_algebra.core.errors import InvalidParameter
    from tradeoff_algebra.core.levels import as_level

    if 0 <= a <= 1:
        assert as_level(a) == a
    else:
        with pytest.raises(InvalidParameter):
            as_level(a)


@pytest.mark.parametrize("f, want", [
    (ta.EpsDelta(R(1, 10), 1), ta.Zero), (ta.EpsDelta(0, 0), ta.Id),
    (ta.EpsDelta(R(1, 10), 0) ** 1, ta.EpsDelta(R(1, 10), 0)),
    (ta.EpsDelta(R(1, 10), 0) ** 0, ta.Id)])
def test_rules_with_fast_paths_still_fire(f, want):
    assert ta.simplify(f) == want


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("eps", [R(0), R(1, 20), R(3, 20), R(7, 20)])
def test_rr_power_delta_against_kov(k, eps):
    """delta(eps) of f_{1/10,0}^k (certified) holds Kairouz-Oh-Viswanath's sum at 40 digits."""
    v = ta.delta(ta.EpsDelta(R(1, 10), 0) ** k, eps, dps=20)
    assert v.guarantee in ("certified", "exact")
    lo, hi = v.interval()
    with mp.workdps(40):
        ref = _kov_delta(k, "0.1", mp.mpf(eps.p) / eps.q)
        assert lo - mp.mpf(10) ** -38 <= ref <= hi + mp.mpf(10) ** -38


@pytest.mark.parametrize("k", [2, 3, 4, 5, 40, 2000])
@pytest.mark.parametrize("ratio", [R(1, 10**6), R(98, 100), R(995, 1000), R(999, 1000),
                                   R(1001, 1000)])
def test_rr_power_epsilon_near_delta_zero(k, ratio):
    """eps(d) of f_{1/10,0}^k for d around delta(0) (where the order of the checks changes:
    delta(0) checked first or implied by the proved delta(lo) > d) against the
    Kairouz-Oh-Viswanath sum at 40 digits: 0 iff d >= delta(0), else delta brackets d."""
    with mp.workdps(40):
        d0 = _kov_delta(k, "0.1", 0)
        d = sp.Rational(str(mpmath.nstr(d0 * mp.mpf(ratio.p) / ratio.q, 30)))
    v = ta.epsilon(ta.EpsDelta(R(1, 10), 0) ** k, d, dps=20)
    assert v.guarantee in ("certified", "exact")
    lo, hi = v.interval()
    with mp.workdps(40):
        target = mp.mpf(d.p) / d.q
        if target >= d0:
            assert lo <= 0 <= hi and hi < mp.mpf(10) ** -15
        else:
            assert lo > 0
            assert _kov_delta(k, "0.1", lo) >= target >= _kov_delta(k, "0.1", hi)


def test_fraction_of_binary_numbers():
    """The exact rational of an mpf and of an exact Arb number, against Python's Fraction of
    the same binary number."""
    from fractions import Fraction

    from tradeoff_algebra.families.binomial import _mpf_fraction
    from tradeoff_algebra.numeric.binomial_profile import _fraction_of

    for x in ["0.1", "-3.75", "1e-300", "12345678912345", "1", "-2"]:
        m = mpmath.mpf(float(x))
        want = Fraction(float(x))  # (Python's exact value of the same binary number)
        assert _mpf_fraction(m) == want
    for v in [Fraction(3, 8), Fraction(-5, 1), Fraction(1, 2**70), Fraction(2**50 + 1)]:
        a = arb(v.numerator) / v.denominator
        assert a.is_exact() and _fraction_of(a.mid()) == v
