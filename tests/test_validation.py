"""Bad input raises InvalidParameter naming the parameter, the value and the allowed range;
validation is three-valued, so symbols pass unless their assumptions contradict the range."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import C, EpsDelta, G, Group, Id, Laplace, Mix, Subsample, Tensor, TensorPower
from tradeoff_algebra.core.validate import param

NAN, INF = float("nan"), float("inf")


def _raises(fn, name, value_text, allowed_text):
    with pytest.raises(ta.InvalidParameter) as exc:
        fn()
    err = exc.value
    msg = str(err)
    assert isinstance(err, ValueError)
    assert err.name == name and f"parameter {name} = " in msg, msg
    assert value_text in msg, msg
    assert allowed_text in msg, msg
    return err


BAD = [
    (lambda: G(-1), "mu", "-1", "[0, oo)"),
    (lambda: G(-R(1, 10**30)), "mu", "-1/1000000000000000000000000000000", "[0, oo)"),
    (lambda: G(NAN), "mu", "nan", "[0, oo)"),
    (lambda: G(INF), "mu", "inf", "[0, oo)"),
    (lambda: G(sp.oo), "mu", "oo", "[0, oo)"),
    (lambda: G(sp.nan), "mu", "nan", "[0, oo)"),
    (lambda: G(np.float64("nan")), "mu", "nan", "[0, oo)"),
    (lambda: G("1"), "mu", "'1'", "[0, oo)"),
    (lambda: G(None), "mu", "None", "[0, oo)"),
    (lambda: G(1j), "mu", "1j", "[0, oo)"),
    (lambda: G(1 + 2 * sp.I), "mu", "1 + 2*I", "[0, oo)"),
    (lambda: G(True), "mu", "True", "[0, oo)"),
    (lambda: G([1]), "mu", "[1]", "[0, oo)"),
    (lambda: G(sp.Symbol("mu", negative=True)), "mu", "mu", "[0, oo)"),
    (lambda: Laplace(-2), "mu", "-2", "[0, oo)"),
    (lambda: EpsDelta(-1), "eps", "-1", "[0, oo)"),
    (lambda: EpsDelta(1, -R(1, 10)), "delta", "-1/10", "[0, 1]"),
    (lambda: EpsDelta(1, R(11, 10)), "delta", "11/10", "[0, 1]"),
    (lambda: EpsDelta(1, NAN), "delta", "nan", "[0, 1]"),
    (lambda: EpsDelta(1, sp.Symbol("d", negative=True)), "delta", "d", "[0, 1]"),
    (lambda: TensorPower(G(1), -1), "n", "-1", "an integer in [0, oo)"),
    (lambda: G(1) ** R(1, 2), "n", "1/2", "an integer in [0, oo)"),
    (lambda: G(1) ** 2.5, "n", "2.5", "an integer in [0, oo)"),
    (lambda: G(1) ** sp.Symbol("n", integer=False), "n", "n", "an integer"),
    (lambda: Subsample(G(1), R(3, 2)), "p", "3/2", "[0, 1]"),
    (lambda: C(-1, G(1)), "p", "-1", "[0, 1]"),
    (lambda: Mix(G(1), 2), "p", "2", "[0, 1]"),
    (lambda: Mix(G(1), NAN), "p", "nan", "[0, 1]"),
    (lambda: Group(G(1), 0), "k", "0", "an integer in [1, oo)"),
    (lambda: Group(G(1), R(3, 2)), "k", "3/2", "an integer in [1, oo)"),
    (lambda: Tensor(G(1), 3), "f", "3", "a trade-off function"),
    (lambda: Tensor(G(1), G(1).conjugate()), "f", "Conjugate(G(1))", "a trade-off function"),
    (lambda: Mix(sp.Symbol("x"), R(1, 2)), "f", "x", "a trade-off function"),
    (lambda: TensorPower(2, 3), "base", "2", "a trade-off function"),
    (lambda: Group("G(1)", 2), "f", "'G(1)'", "a trade-off function"),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{c[1]}={c[2]}" for c in BAD])
def test_bad_parameters(case):
    fn, name, value_text, allowed_text = case
    _raises(fn, name, value_text, allowed_text)


BAD_ALPHA = [-1, R(3, 2), 1 + R(1, 10**40), NAN, INF, "abc", None, 1j, sp.I, sp.oo, True,
             "-0.5", [0.5]]


@pytest.mark.parametrize("alpha", BAD_ALPHA, ids=str)
def test_bad_alpha(alpha):
    for fn in (lambda: ta.evaluate(G(1), alpha), lambda: ta.roc(G(1), alpha)):
        err = _raises(fn, "alpha", "", "[0, 1]")
        assert err.value is alpha or str(err.value) == str(alpha)
    if not isinstance(alpha, (str, list)) and alpha is not None and alpha is not True:
        with pytest.raises(ta.InvalidParameter, match="alpha"):
            G(1)(alpha)


def test_bad_curve_input():
    _raises(lambda: G(1).curve([0.5, 1.5]), "alphas", "1.5", "[0, 1]")
    _raises(lambda: G(1).curve(np.array([np.nan])), "alphas", "nan", "[0, 1]")


def test_bad_dps_and_operand_of_evaluate():
    _raises(lambda: ta.evaluate(G(1), R(1, 2), dps=0), "dps", "0", ">= 1")
    _raises(lambda: ta.evaluate(G(1), R(1, 2), dps=2.5), "dps", "2.5", ">= 1")
    _raises(lambda: ta.evaluate(sp.Symbol("f"), R(1, 2)), "f", "f", "trade-off")


def test_symbols_pass_three_valued():
    mu = sp.Symbol("mu")
    assert G(mu).mu is mu
    assert G(sp.Symbol("mu", nonnegative=True)).free_symbols
    assert EpsDelta(sp.Symbol("e"), sp.Symbol("d")).free_symbols == {sp.Symbol("e"),
                                                                     sp.Symbol("d")}
    assert (G(1) ** sp.Symbol("n")).n == sp.Symbol("n")
    assert Group(G(1), sp.Symbol("k", integer=True, positive=True)).k.is_positive
    assert Mix(G(1), sp.Symbol("p")).p == sp.Symbol("p")
    a = sp.Symbol("a")
    assert G(1)(a) == ta.Phi(ta.PhiInv(1 - a) - 1)
    # formulas pass when their sign is unknown or provably right
    x, y = sp.symbols("x y", real=True)
    assert G(sp.sqrt(x**2 + y**2)).mu == sp.sqrt(x**2 + y**2)
    # ... and raise when provably wrong
    _raises(lambda: G(-x**2 - 1), "mu", "-x**2 - 1", "[0, oo)")


def test_substituting_a_bad_value_raises():
    mu = sp.Symbol("mu")
    with pytest.raises(ta.InvalidParameter, match="mu"):
        G(mu).subs(mu, -1)
    p = sp.Symbol("p")
    with pytest.raises(ta.InvalidParameter, match="p"):
        C(p, G(1)).xreplace({p: sp.Integer(2)})


def test_evaluate_with_free_symbols_hints_at_subs():
    mu = sp.Symbol("mu")
    err = _raises(lambda: ta.evaluate(G(mu) @ G(1), R(1, 2)), "f", "G(mu)", "without free symbols")
    assert "subs" in str(err) and "mu" in str(err)
    err = _raises(lambda: ta.roc(G(mu), R(1, 2)), "f", "G(mu)", "without free symbols")
    with pytest.raises(ta.InvalidParameter) as exc:
        ta.evaluate(G(1), sp.Symbol("a"))
    assert "f(alpha)" in str(exc.value)  # hint: use the symbolic value


def test_integral_floats_are_canonical_integers():
    """n = 2.0 is the integer 2 (one node for one meaning); 2.5 raises (above)."""
    assert G(1) ** 2.0 == G(1) ** 2
    assert isinstance((G(1) ** 2.0).n, sp.Integer)
    assert Group(G(1), 3.0) == Group(G(1), 3)
    assert param("n", sp.Float(4), integer=True) == 4


def test_valid_edge_values():
    assert G(0).mu == 0
    assert EpsDelta(0, 0).delta == 0 and EpsDelta(0, 1).delta == 1
    assert Mix(G(1), 0).p == 0 and Subsample(G(1), 1).p == 1
    assert TensorPower(G(1), 0).n == 0
    assert Group(G(1), 1).k == 1
    assert ta.evaluate(Id, 0).exact == 1 and ta.evaluate(Id, 1).exact == 0
    assert ta.evaluate(G(1), 1e-300).mid > 0
    assert not math.isnan(float(ta.evaluate(G(1), 0.5)))


# -- errors survive pickle and deepcopy; messages never print a gigantic value ------------------
def _error_examples():
    from tradeoff_algebra.core.errors import NoClosedForm, NumericalError, TradeOffError
    from tradeoff_algebra.rewrite.simplify import RewriteError

    return [
        ta.InvalidParameter("mu", -1, "[0, oo)"),
        ta.InvalidParameter("p", R(3, 2), "[0, 1]", "Subsample", "a hint"),
        ta.InvalidParameter("mu", sp.Integer(10) ** 5000, "[0, oo)", "Gaussian"),
        ta.InvalidParameter("f", G(1) @ Laplace(1), "a trade-off function", None, "hint"),
        NoClosedForm("no closed form"), NumericalError("did not converge"),
        TradeOffError("base"), RewriteError("rule broke the contract"), RewriteError(),
    ]


@pytest.mark.parametrize("roundtrip", ["pickle", "deepcopy", "copy"])
def test_errors_round_trip(roundtrip):
    import copy
    import pickle

    do = {"pickle": lambda e: pickle.loads(pickle.dumps(e)), "deepcopy": copy.deepcopy,
          "copy": copy.copy}[roundtrip]
    for err in _error_examples():
        err.extra = 7  # attributes set after construction travel too
        back = do(err)
        assert type(back) is type(err) and str(back) == str(err) and back.args == err.args
        assert back.extra == 7
        if isinstance(err, ta.InvalidParameter):
            for attr in ("name", "value", "allowed", "owner", "hint"):
                assert getattr(back, attr) == getattr(err, attr), attr


def test_an_unpicklable_value_does_not_stop_the_error_from_pickling():
    import pickle

    err = ta.InvalidParameter("f", lambda: 1, "a trade-off function")
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.name == "f"
    assert isinstance(back.value, str) and back.value.startswith("<function")


def test_messages_shorten_long_and_unprintable_values():
    from tradeoff_algebra.core.errors import MAX_SHOWN, brief

    msg = str(ta.InvalidParameter("mu", 10**5000, "[0, oo)"))  # str(10**5000) raises
    assert "an integer with 5001 digits" in msg and len(msg) < 150
    assert brief(-(10**100)) == "a negative integer with 101 digits"
    assert "4001-digit denominator" in brief(R(1, 10**4000))
    text = brief("x" * 10_000)
    assert len(text) < MAX_SHOWN + 30 and "(10002 characters)" in text
    assert "too large" in brief(sp.exp(sp.Integer(10) ** 5000))  # repr raises ValueError

    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert brief(Broken()) == "<a Broken that cannot be printed>"
    assert brief(R(1, 3)) == "1/3" and brief(True) == "True"


# -- whatever is passed, validation raises InvalidParameter or returns ---------------------------
WEIRD = [
    b"1", bytearray(b"1"), None, True, np.bool_(True), 1j, complex("nan+nanj"), NAN, INF, -INF,
    np.float64("inf"), sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I, sp.exp(sp.I), sp.log(-1),
    sp.sqrt(-2), {}, {1}, object(), (lambda: 1), sp.AccumBounds(0, 1), sp.Interval(0, 1),
    sp.true, sp.Matrix([1]), sp.MatrixSymbol("M", 1, 1), sp.exp(sp.Integer(10) ** 1000),
    -sp.exp(sp.Integer(10) ** 1000), sp.exp(sp.exp(sp.Integer(10) ** 1000)),
    sp.exp(sp.exp(sp.exp(10))), 1 - sp.exp(-sp.Integer(10) ** 4000),
    sp.exp(sp.Integer(10) ** 20000), (1 + sp.sqrt(2)) ** (sp.Integer(10) ** 1000),
    sp.Float("1e-400000"), "0.5",
]


@pytest.mark.parametrize("value", WEIRD, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("bounds", [dict(lower=0, upper=1), dict(lower=0),
                                    dict(lower=0, integer=True)], ids=["p", "mu", "n"])
def test_weird_values_raise_invalid_parameter(value, bounds):
    # (the time of each refusal is measured by benchmarks/bench_speed_claims.py)
    with pytest.raises(ta.InvalidParameter) as info:
        param("x", value, **bounds)
    assert info.value.name == "x" and len(str(info.value)) < 400


@pytest.mark.parametrize("value", [sp.Integer(10) ** 400, 10**5000, sp.Float("1e-300"),
                                   np.array(0.5), sp.Rational(1, 10**5000), sp.exp(-50),
                                   sp.exp(sp.Integer(10) ** 50)], ids=lambda v: type(v).__name__)
def test_huge_and_tiny_but_valid_values_pass(value):
    param("mu", value, lower=0)


def test_negative_mpf_keeps_its_sign():
    """An mpf is read as the exact binary rational it holds, sign included (mpmath's man_exp
    drops the sign): mpf(-1) as mu and mpf(-0.5) as alpha are refused, not read as 1 and 0.5."""
    import mpmath

    from tradeoff_algebra.core.validate import mpf_rational

    assert mpf_rational(mpmath.mpf(-3) / 8) == sp.Rational(-3, 8)
    assert mpf_rational(mpmath.mpf(0.1)) == sp.Rational(0.1)  # the float's exact binary value
    with pytest.raises(ta.InvalidParameter, match="mu"):
        ta.G(mpmath.mpf(-1))
    with pytest.raises(ta.InvalidParameter, match="alpha"):
        ta.evaluate(ta.G(1), mpmath.mpf(-0.5))
    with pytest.raises(ta.InvalidParameter, match="delta"):
        ta.EpsDelta(1, mpmath.mpf(-0.25))
    assert ta.G(mpmath.mpf(0.5)) == ta.G(sp.Rational(1, 2))


# -- complex numbers, infinities, numbers where symbols cannot serve, counts ---------------------
@pytest.mark.parametrize("value", [1 + 0j, np.complex128(2), complex(0.5, 0)],
                         ids=lambda v: type(v).__name__)
def test_complex_numbers_are_refused_even_with_zero_imaginary_part(value):
    err = _raises(lambda: param("mu", value, lower=0), "mu", "", "[0, oo)")
    assert "must be real" in str(err)


def test_a_float_infinity_is_oo_where_infinity_is_allowed():
    assert param("order", INF, lower=1, lower_open=True, allow_infinite=True) is sp.oo
    assert param("order", np.float64("inf"), lower=1, allow_infinite=True) is sp.oo
    # the range shown says that oo is allowed
    _raises(lambda: param("order", 0, lower=1, lower_open=True, allow_infinite=True),
            "order", "0", "(1, oo]")
    _raises(lambda: param("order", -INF, lower=1, allow_infinite=True), "order", "-inf",
            "[1, oo]")


def test_numeric_refuses_free_symbols_and_names_them():
    t = sp.Symbol("t", positive=True)
    assert param("tol", t, lower=0) == t  # three-valued by default
    err = _raises(lambda: param("tol", t, lower=0, numeric=True), "tol", "t", "[0, oo)")
    assert "substitute values for the symbols t" in str(err)


def test_count_is_an_integer_type_in_range():
    from tradeoff_algebra.core.validate import count

    assert count("dps", 5) == 5 and count("dps", np.int64(7), upper=10) == 7
    assert type(count("dps", sp.Integer(3))) is int
    for bad in (0, -1, 11, 10**400, 2.0, 2.5, True, np.bool_(True), None, "5", NAN, INF,
                sp.Symbol("d"), [5], 1 + 0j):
        _raises(lambda bad=bad: count("dps", bad, upper=10), "dps", "", "[1, 10]")
