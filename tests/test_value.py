"""The Value type: rounding directions, containment, exact results, printing."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from mpmath.libmp import to_rational
from precision import workdps
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Id, Laplace, Zero
from tradeoff_algebra.numeric.value import Value, dps_to_prec


def exact(x: mpmath.mpf) -> sp.Rational:
    """The exact rational an mpf stands for."""
    return sp.Rational(*to_rational(x._mpf_))


def prec_of(x: mpmath.mpf) -> int:
    """Significant bits of an mpf."""
    return x._mpf_[3]


# -- from_exact: correctly rounded neighbours at the requested precision ------------------------
@pytest.mark.parametrize("q", [R(1, 3), R(2, 3), 1 - R(1, 10**60), R(1, 10**300), R(17, 30),
                               R(0), R(1), R(1, 2), 1 - R(1, 2**200)])
@pytest.mark.parametrize("dps", [5, 30, 45])
def test_from_exact_brackets_the_rational(q, dps):
    v = Value.from_exact(q, dps)
    assert v.exact == q
    assert exact(v.lo) <= q <= exact(v.hi)
    prec = dps_to_prec(dps)
    for x in (v.lo, v.hi, v.mid):
        assert prec_of(x) <= prec
    # lo and hi are neighbours: at most one unit in the last place apart
    if v.lo == v.hi:
        assert exact(v.lo) == q
    else:
        assert exact(v.hi) - exact(v.lo) <= abs(q) * sp.Rational(1, 2 ** (prec - 1))
    # mid carries the requested digits
    if q != 0:
        assert abs(exact(v.mid) - q) <= abs(q) * sp.Rational(1, 2 ** (prec - 1))


def test_from_exact_close_to_one_is_not_rounded_up_to_one():
    """1 - 1e-60 at 30 digits: lo must stay below 1 (regression: it was 1 > q)."""
    v = Value.from_exact(1 - R(1, 10**60), 30)
    assert v.lo < 1 and v.hi == 1
    assert exact(v.lo) < 1 - R(1, 10**60)


def test_from_exact_digits_outside_any_mpmath_context():
    """lo, hi, mid keep dps digits even when built at the default 53-bit context."""
    assert mp.prec == 53
    v = Value.from_exact(R(1, 3), 45)
    assert abs(exact(v.mid) - R(1, 3)) < R(1, 10**45)


def test_point_and_enclosure_keep_their_digits_and_directions():
    with workdps(80):
        x = mp.mpf(1) / 3
        lo, hi = x - mp.mpf(10) ** -60, x + mp.mpf(10) ** -60
    p = Value.point(x, 45)
    assert abs(exact(p.mid) - R(1, 3)) < R(1, 10**45)
    assert p.is_point and p.lo == p.hi == p.mid
    e = Value.enclosure(lo, hi, 45)
    assert exact(e.lo) <= exact(lo) and exact(e.hi) >= exact(hi)
    assert not e.is_point and e.width > 0
    assert e.width < mp.mpf(10) ** -44
    assert exact(e.lo) <= exact(e.mid) <= exact(e.hi)


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=0, max_value=1, max_denominator=10**30),
       st.integers(min_value=1, max_value=60))
def test_from_exact_property(q, dps):
    q = sp.Rational(q.numerator, q.denominator)
    v = Value.from_exact(q, dps)
    assert exact(v.lo) <= q <= exact(v.hi)
    assert exact(v.lo) <= exact(v.mid) <= exact(v.hi)


# -- contains ----------------------------------------------------------------------------------
def test_contains_compares_exactly():
    q = R(1, 3)
    v = Value.from_exact(q, 40)
    assert v.contains(q)
    assert not v.contains(q + R(1, 10**35))
    assert not v.contains(q - R(1, 10**35))
    with workdps(80):
        x = mp.mpf(1) / 3
        far = x + mp.mpf(10) ** -30
    assert v.contains(x)  # a 80-digit mpf, not rounded to 53 bits first
    assert not v.contains(far)
    with workdps(80):
        e = Value.enclosure(x - mp.mpf(10) ** -50, x + mp.mpf(10) ** -50, 60)
        inside = x + mp.mpf(10) ** -55
    assert e.contains(inside) and e.contains(R(1, 3))
    assert not e.contains(R(1, 3) + R(1, 10**45))
    assert not e.contains(0.3333333333333333)  # the double nearest 1/3 is outside
    assert e.contains(sp.Rational(1, 3) + sp.sqrt(2) / 10**56)


def test_evaluate_values_contain_the_truth():
    v = ta.evaluate(EpsDelta(sp.log(3), R(1, 7)), R(1, 5), dps=30)
    assert v.exact is not None and v.contains(v.exact)


# -- exact rational results ----------------------------------------------------------------------
def test_exact_results():
    v = ta.evaluate(EpsDelta(0, R(1, 10)), R(1, 3))
    assert v.exact == R(17, 30)
    assert str(v) == "17/30"
    assert ta.roc(EpsDelta(0, R(1, 10)), R(1, 3)).exact == R(13, 30)
    a = 0.1
    w = ta.evaluate(Id, a)
    assert w.exact == 1 - sp.Rational(a)  # the exact complement of the binary value of 0.1
    assert w.exact != R(9, 10)
    assert ta.roc(Id, a).exact == sp.Rational(a)
    assert ta.evaluate(Zero, R(1, 3)).exact == 0
    assert ta.roc(Zero, R(1, 3)).exact == 1
    assert ta.evaluate(Laplace(sp.log(2)), R(1, 3)).exact == R(3, 8)
    assert ta.evaluate(G(1), R(1, 3)).exact is None


# -- printing ------------------------------------------------------------------------------------
def test_str_repr_latex():
    v = ta.evaluate(EpsDelta(0, R(1, 10)), R(1, 3))
    assert repr(v) == "Value(exact=17/30)"
    assert v.latex() == r"\frac{17}{30}"
    assert v._repr_latex_() == r"$\frac{17}{30}$"
    assert ta.latex(v) == v.latex()
    p = ta.evaluate(G(1), R(1, 2), dps=20)
    assert str(p) == "0.15865525393145705141"
    assert repr(p) == "Value(0.15865525393145705141, dps=20, certified)"
    assert p.latex() == "0.15865525393145705141"
    assert float(p) == pytest.approx(0.15865525393145705)
    tiny = ta.roc(G(1), "1e-300", dps=10)
    assert str(tiny) == "7.657172065e-285"
    assert "10^{-285}" in tiny.latex()
    e = Value.enclosure(mp.mpf("0.25"), mp.mpf("0.5"), 5)
    assert str(e) == "[0.25, 0.5]"
    assert repr(e) == "Value([0.25, 0.5], width=0.25, estimate)"
    assert e.latex() == r"\approx \left[0.25,\ 0.5\right]"  # an estimate says so
    big = Value.from_exact(R(1, 3**40), 8)
    assert str(big) == "8.2252633e-20"


def test_value_as_a_number():
    import sympy as sp

    import tradeoff_algebra as ta
    from tradeoff_algebra.numeric.value import Value

    v = Value.enclosure(mpmath.mpf("3.2373112"), mpmath.mpf("3.2375435"), 30)
    # the repr shows the digits the enclosure supports, rounded outward
    assert str(v) == "[3.237311, 3.237544]"
    assert repr(v).startswith("Value([3.237311, 3.237544]")
    # format rounds the enclosure: one number only where every point of it rounds there
    assert f"{v:.3f}" == "[3.237, 3.238]" and f"{v:.2f}" == "3.24"
    assert round(v, 2) == 3.24 and abs(float(v) - 3.23742735) < 1e-7
    # comparisons are certain: True or False only when the whole enclosure decides them
    assert (v < 4) is True and (v > 3) is True and (v >= 4) is False and (v <= 3) is False
    with pytest.raises(ta.NumericalError, match="uncertain"):
        v < sp.Rational(32374, 10000)  # noqa: B015
    w = Value.enclosure(mpmath.mpf("0.1"), mpmath.mpf("0.1000000001"), 30)
    lo, hi = str(w)[1:-1].split(", ")
    assert mpmath.mpf(lo) <= w.lo and mpmath.mpf(hi) >= w.hi  # outward, never inward


def test_printed_interval_contains_the_value_at_high_precision():
    # the printed ends are formed in the thread's context at the endpoints' precision and
    # rounded outward (they were once formed at 53 bits and could exclude the value:
    # sup_distance(EpsDelta(1/sqrt(10), 0)**10, G(1)) printed an interval below its lo)
    with mpmath.workdps(50):
        lo = mpmath.mpf("0.01228817056596702226930001")
        hi = lo + mpmath.mpf(10) ** -25
    v = Value.enclosure(lo, hi, 30)
    plo, phi = str(v)[1:-1].split(", ")
    with mpmath.workdps(60):
        assert mpmath.mpf(plo) <= mpmath.mpf(v.lo) and mpmath.mpf(phi) >= mpmath.mpf(v.hi)
        assert mpmath.mpf(v.hi) - mpmath.mpf(v.lo) <= v.width
    assert plo.startswith("0.0122881705659670222")
