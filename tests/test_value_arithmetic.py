"""Arithmetic, formatting and SymPy conversion of Values (numeric/value_arith.py,
numeric/value_format.py).

The references are independent of the Arb arithmetic under test: exact rational arithmetic for
+ - * / and integer powers, mpmath at 120 digits (this thread's context) for exp, log, sqrt and
real powers. The property: the true result of the operation on any points of the operands'
guaranteed intervals lies in the result's guaranteed interval; exact operands give exact results.
"""

from __future__ import annotations

import fractions
import re
from decimal import Decimal

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.value import Value

FAST = settings(max_examples=60, deadline=None)

rationals = st.builds(lambda p, q: R(p, q), st.integers(-10**6, 10**6), st.integers(1, 10**4))
positive = st.builds(lambda p, q: R(p, q), st.integers(1, 10**6), st.integers(1, 10**4))
unit = st.builds(lambda p: R(p, 1000), st.integers(0, 1000))
dps_s = st.integers(5, 40)
guarantees = st.sampled_from(["certified", "estimate"])


def _enclosure(lo: sp.Rational, width: sp.Rational, dps: int, g: str) -> Value:
    return Value.enclosure(lo, lo + width, dps, guarantee=g)


def _inside(v: Value, u: sp.Rational) -> sp.Rational:
    """A point of v's guaranteed interval (u in [0, 1] along it)."""
    lo, hi = v.guaranteed()
    return lo + u * (hi - lo)


def _holds(v: Value, truth) -> bool:
    lo, hi = v.guaranteed()
    if isinstance(truth, sp.Rational):
        return lo <= truth <= hi
    with mp.workdps(120):  # truth: an mpf at 120 digits; the ends compared exactly
        t = sp.Rational(*mpmath.libmp.to_rational(truth._mpf_))
    return lo <= t <= hi


OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
       "/": lambda a, b: a / b}


# -- exact stays exact ------------------------------------------------------------------------
@FAST
@given(rationals, rationals, st.sampled_from(list(OPS)), dps_s)
def test_exact_operands_give_the_exact_result(a, b, op, dps):
    if op == "/" and b == 0:
        with pytest.raises(ZeroDivisionError):
            OPS[op](Value.from_exact(a, dps), Value.from_exact(b, dps))
        return
    want = OPS[op](a, b)
    for x, y in [(Value.from_exact(a, dps), Value.from_exact(b, dps)),
                 (Value.from_exact(a, dps), b), (a, Value.from_exact(b, dps)),
                 (Value.from_exact(a, dps), fractions.Fraction(int(b.p), int(b.q)))]:
        v = OPS[op](x, y)
        assert v.guarantee == "exact" and v.exact == want and v.dps == dps


def test_exact_powers_and_plain_numbers():
    v = Value.from_exact(R(2, 3), 20)
    assert (v**3).exact == R(8, 27) and (v**-2).exact == R(9, 4)
    assert (2**Value.from_exact(R(3), 20)).exact == 8
    assert (v * 0.5).exact == R(1, 3)  # a float is the exact binary rational it holds
    assert (v + mpmath.mpf(0.25)).exact == R(11, 12)
    assert (-v).exact == R(-2, 3) and abs(-v).exact == R(2, 3)
    assert Value.from_exact(R(9, 4), 20).sqrt().exact == R(3, 2)
    assert Value.from_exact(R(0), 20).exp().exact == 1
    assert Value.from_exact(R(1), 20).log().exact == 0
    s = Value.from_exact(R(2), 20).sqrt()  # irrational: certified by Arb, not exact
    assert s.guarantee == "certified" and _holds(s, _mp(lambda: mp.sqrt(2)))


def _mp(fn):
    with mp.workdps(120):
        return fn()


# -- certified and estimated operands: the truth of every point stays inside ------------------
@FAST
@given(rationals, positive, rationals, positive, unit, unit, st.sampled_from(list(OPS)), dps_s,
       guarantees, st.sampled_from(["certified", "exact"]))
def test_interval_arithmetic_holds_every_point(a, wa, b, wb, ua, ub, op, dps, ga, gb):
    x = _enclosure(a, wa / 10**3, dps, ga)
    y = Value.from_exact(b, dps) if gb == "exact" else _enclosure(b, wb / 10**3, dps, gb)
    if op == "/" and y.guaranteed()[0] <= 0 <= y.guaranteed()[1]:
        with pytest.raises((ta.NumericalError, ZeroDivisionError)):
            x / y
        return
    v = OPS[op](x, y)
    assert v.guarantee == ("estimate" if "estimate" in (ga, gb) else "certified")
    for s, t in [(ua, ub), (0, 0), (1, 1), (0, 1), (1, 0)]:
        assert _holds(v, OPS[op](_inside(x, s), _inside(y, t)))


@FAST
@given(st.integers(-10**6, 10**6), st.integers(-30, -3), unit, dps_s, guarantees)
def test_points_hold_their_claim_after_arithmetic(m, e, u, dps, g):
    """A point claims one unit of its last digit; the result of points keeps a claim that
    holds the result at every point of the operands' claims (1 - v near 1 keeps fewer
    digits)."""
    x = Value.point(R(m) * R(10) ** e + R(1, 3), dps, g)
    y = Value.point(R(2, 7), dps, g)
    for fn in (lambda p, q: 1 - p, lambda p, q: p * q, lambda p, q: p / q,
               lambda p, q: p - q, lambda p, q: q**3):
        v = fn(x, y)
        assert v.guarantee == g
        for s in (u, 0, 1):
            assert _holds(v, fn(_inside(x, s), _inside(y, 1 - s)))


@FAST
@given(positive, positive, unit, st.integers(5, 30))
def test_exp_log_sqrt_and_real_powers_hold_the_truth(a, w, u, dps):
    x = _enclosure(a / 100, w / 10**4, dps, "certified")
    t = _inside(x, u)
    with mp.workdps(120):
        tm = mp.mpf(t.p) / t.q
        refs = {"exp": mp.exp(tm), "log": mp.log(tm), "sqrt": mp.sqrt(tm),
                "pow": tm ** (mp.mpf(3) / 2), "rpow": mp.mpf(2) ** tm}
    assert _holds(x.exp(), refs["exp"]) and _holds(x.log(), refs["log"])
    assert _holds(x.sqrt(), refs["sqrt"]) and _holds(x ** R(3, 2), refs["pow"])
    assert _holds(2**x, refs["rpow"])
    assert {v.guarantee for v in (x.exp(), x.log(), x ** 1.5)} == {"certified"}


def test_the_arithmetic_of_evaluated_values():
    """DRS Eq. (4): G_1(0.05) + (1 - G_1(0.05)) is 1, and the ROC agrees with 1 - f."""
    f = ta.evaluate(ta.G(1), "0.05")
    power = ta.roc(ta.G(1), "0.05")
    one = f + power
    assert one.guarantee == "certified" and _holds(one, R(1))
    assert _holds(1 - f, power.guaranteed()[0]) or _holds(1 - f, power.guaranteed()[1])
    d = (1 - f) - power  # two certified values of the same number: 0 inside
    assert _holds(d, R(0))


def test_refusals_name_the_problem():
    x = Value.enclosure(R(-1), R(1), 10, guarantee="certified")
    with pytest.raises(ta.NumericalError, match="contains 0"):
        Value.from_exact(R(1), 10) / x
    with pytest.raises(ZeroDivisionError):
        Value.from_exact(R(1), 10) / 0
    with pytest.raises(ta.NumericalError, match="log"):
        x.log()
    with pytest.raises(ta.NumericalError, match="sqrt|below 0"):
        Value.enclosure(R(-2), R(-1), 10).sqrt()
    with pytest.raises(ta.InvalidParameter, match="operand"):
        x + float("nan")
    with pytest.raises(TypeError):
        x + "1"
    with pytest.raises(ta.InvalidParameter, match="finite ends"):
        Value.enclosure(R(0), mpmath.inf, 10) + 1


def test_negation_and_abs_are_exact_mirrors():
    v = ta.evaluate(ta.G(1), "0.05")
    n = -v
    lo, hi = v.guaranteed()
    assert n.dps == v.dps and n.guarantee == v.guarantee and n.guaranteed() == (-hi, -lo)
    assert abs(n) == v
    a = abs(Value.enclosure(R(-1), R(2), 10))
    assert a.guaranteed() == (0, 2)


# -- sympify, comparisons ---------------------------------------------------------------------
def test_sympify_an_exact_value_is_its_rational_others_are_refused():
    e = Value.from_exact(R(1, 3), 30)
    assert sp.sympify(e) == R(1, 3) and ta.G(e) == ta.G(R(1, 3))
    v = ta.evaluate(ta.G(1), "0.05")
    with pytest.raises(sp.SympifyError, match="interval"):
        sp.sympify(v)
    with pytest.raises(ta.InvalidParameter):
        ta.G(v)  # a certified Value is not one exact number: no silent midpoint


def test_comparisons_decide_on_the_guaranteed_interval():
    # a certified point of 5 digits claims 10^(1-5) relative (Value.interval): 0.5 +- 5e-5
    p = Value.point(R(1, 2), 5, "certified")
    assert (p < R(50006, 100000)) is True and (p > R(49994, 100000)) is True
    with pytest.raises(ta.NumericalError, match="uncertain"):
        p < R(50004, 100000)  # noqa: B015 - inside the claim: undecided, not a guess
    assert (Value.from_exact(R(1, 2), 5) < R(500005, 1000000)) is True
    assert (p < Value.point(R(1), 5, "certified")) is True
    assert (p < 0.6) is True


# -- format: one correctly rounded number, else the interval rounded outward ------------------
@FAST
@given(rationals, positive, st.integers(1, 12), st.sampled_from("efg%"), dps_s)
def test_format_is_rigorous(a, w, k, kind, dps):
    v = _enclosure(a / 1000, w / 10**6, dps, "certified")
    text = format(v, f".{k}{kind}")
    lo, hi = v.guaranteed()
    m = re.fullmatch(r"\[(.+), (.+)\]", text)
    if m:  # outward: the printed interval holds the guaranteed one
        assert _rational(m.group(1)) <= lo and _rational(m.group(2)) >= hi
    else:  # one number: both ends (so every point between) lie within half its last unit
        assert all(abs(end - _rational(text)) <= _half_unit(text) for end in (lo, hi))


def _rational(text: str) -> sp.Rational:
    d = Decimal(text.rstrip("%"))
    return R(str(d)) / (100 if text.endswith("%") else 1)


def _half_unit(text: str) -> sp.Rational:
    """Half a unit in the last printed place of ``text`` ("3.07" -> 0.005)."""
    mant, _, exp = text.rstrip("%").partition("e")
    places = len(mant.split(".")[1]) if "." in mant else 0
    unit = R(10) ** (int(exp or 0) - places) / (100 if text.endswith("%") else 1)
    return unit / 2


def test_format_examples():
    eps = Value.enclosure(mpmath.mpf("3.06834159"), mpmath.mpf("3.06879929"), 8,
                          guarantee="estimate")
    assert f"{eps:.3g}" == "3.07" and f"{eps:.5g}" == "[3.0683, 3.0688]"
    assert f"{eps:.2f}" == "3.07" and f"{eps:.3f}" == "[3.068, 3.069]"
    assert f"{eps:.2e}" == "3.07e+00" and f"{eps:>12.3g}" == "        3.07"
    third = Value.from_exact(R(1, 3), 30)
    assert f"{third:.4f}" == "0.3333" and f"{third:.1%}" == "33.3%" and f"{third}" == "1/3"
    tiny = Value.enclosure(R(0), R(1, 10**600), 30, guarantee="certified")
    assert f"{tiny:.3g}" == "[0, 1.01e-600]"  # hi is 1e-600 rounded up to 30 digits
    with pytest.raises(ValueError, match="format specifier"):
        format(eps, ".3d")


def test_text_gives_the_digits_asked_of_each_end():
    eps = Value.enclosure(mpmath.mpf("3.0683415904"), mpmath.mpf("3.0687992908"), 12,
                          guarantee="estimate")
    assert eps.text(8) == "[3.0683415, 3.0687993]"  # outward: down, then up
    assert eps.known_digits() == 3 and str(eps) == "[3.06834, 3.0688]"
    assert Value.from_exact(R(1, 3), 30).text(5) == "1/3"


# -- LaTeX and HTML ---------------------------------------------------------------------------
def test_latex_and_html():
    v = ta.evaluate(ta.G(1), "0.05", dps=10)
    assert v.latex() == "0.7404889772" and v._repr_latex_() == "$0.7404889772$"
    e = Value.enclosure(mpmath.mpf("3.0683415904"), mpmath.mpf("3.0687992908"), 12,
                        guarantee="estimate")
    assert e.latex() == r"\approx \left[3.06834,\ 3.0688\right]"  # the ends of str, outward
    assert Value.from_exact(R(1, 3), 5).latex() == r"\frac{1}{3}"
    assert "(estimate)" in e._repr_html_() and "[3.06834, 3.0688]" in e._repr_html_()
