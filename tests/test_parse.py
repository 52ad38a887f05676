"""The expression parser: a whitelist over ``ast`` (docs/architecture.md, "Interfaces")."""

from __future__ import annotations

import pickle
import re

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import tradeoff_algebra as ta
from tradeoff_algebra import InvalidParameter
from tradeoff_algebra.parse import CONSTRUCTORS, parse_expr, symbol_for

mu, nu, eps, delta, p, sigma = (symbol_for(s) for s in ("mu", "nu", "eps", "delta", "p", "sigma"))
n, k = symbol_for("n"), symbol_for("k")
alpha = symbol_for("alpha")
R = sp.Rational


def test_symbols_carry_the_parameter_assumptions():
    assert mu.is_nonnegative and sigma.is_nonnegative and not mu.is_integer
    assert n.is_integer and n.is_nonnegative and k.is_integer
    assert alpha == ta.alpha_symbol  # f(alpha) in text parses back to the package's alpha
    assert parse_expr("mu") == mu and parse_expr("n") == n


ROUND_TRIP = [
    ta.G(1), ta.G(mu), ta.Gaussian(R(1, 2)), ta.G(sp.sqrt(mu**2 + nu**2)), ta.G(sp.E),
    ta.G(sp.pi / 4), ta.G(sp.exp(-mu) + 1), ta.Laplace(sp.log(2)), ta.Laplace(mu / sigma),
    ta.EpsDelta(1, 0), ta.EpsDelta(eps, delta), ta.EpsDelta(1, R(1, 10**5)),
    ta.EpsDelta(sp.log(3), R(1, 3)), ta.Id, ta.Zero,
    ta.G(1) @ ta.G(2), ta.G(mu) @ ta.G(nu) ** 3 @ ta.Id, ta.G(1) ** n,
    (ta.G(1) @ ta.G(2)) ** (n + 1), ta.C(R(1, 100), ta.G(1)) ** 1000,
    ta.C(p, ta.EpsDelta(eps, delta)) ** k, ta.Mix(ta.G(1), R(1, 2)), ta.Mix(ta.Laplace(1), p),
    ta.Inverse(ta.EpsDelta(1, R(1, 10))), ta.Inverse(ta.Mix(ta.G(1), p)),
    ta.Symmetrize(ta.Mix(ta.G(mu), p)), ta.SymmetricHull(ta.G(1) @ ta.Laplace(1)),
    ta.Max(ta.G(1), ta.Laplace(2), ta.EpsDelta(1, 0)), ta.Group(ta.G(mu), 2),
    ta.Group(ta.G(1) @ ta.G(2), k), ta.Conjugate(ta.G(1)), ta.Conjugate(ta.G(1) @ ta.G(2)),
    ta.Conjugate(ta.G(mu) ** 2), ta.Inverse(ta.G(1)) ** 2 @ ta.Symmetrize(ta.G(1)),
    ta.gaussian_mechanism(1, sigma), ta.laplace_mechanism(2, R(1, 2)),
]


@pytest.mark.parametrize("expr", ROUND_TRIP, ids=lambda e: ta.text(e))
def test_text_parses_back_to_the_same_tree(expr):
    s = ta.text(expr)
    back = parse_expr(s)
    assert back == expr, (s, back)
    assert type(back) is type(expr)
    assert ta.text(back) == s
    assert ta.latex(back) == ta.latex(expr)


@pytest.mark.parametrize("expr", [
    ta.G(mu)(alpha), ta.G(sp.sqrt(2))(R(1, 3)), ta.Inverse(ta.G(mu))(alpha),
    ta.Mix(ta.G(1), p)(alpha), (ta.G(1) @ ta.G(2))(alpha), ta.Conjugate(ta.G(1))(-2 * eps),
    mu**2 - nu / 3 + 1,
], ids=str)
def test_scalar_and_applied_expressions_parse_back(expr):
    assert parse_expr(ta.text(expr)) == expr


def test_python_syntax_builds_what_the_api_builds():
    assert parse_expr("EpsDelta(1, delta=1e-5)") == ta.EpsDelta(1, R(1, 100000))
    assert parse_expr("C(1/100, G(1))**1000 @ EpsDelta(1, 0)") == \
        ta.C(R(1, 100), ta.G(1)) ** 1000 @ ta.EpsDelta(1, 0)
    assert parse_expr("Tensor(G(1), G(2), Id)") == ta.G(1) @ ta.G(2) @ ta.Id
    assert parse_expr("TensorPower(G(1), 3)") == ta.G(1) ** 3
    assert parse_expr("Subsample(G(1), p)") == ta.C(p, ta.G(1))
    assert parse_expr("gaussian_mechanism(1, 11/10)") == ta.G(R(10, 11))
    assert parse_expr("Rational(1, 3) + 2**-2") == R(7, 12)
    assert parse_expr("-(mu - 1) * +2") == 2 - 2 * mu
    assert parse_expr("G(mu)(alpha)") == ta.G(mu)(alpha)
    assert parse_expr("Phi(PhiInv(1 - alpha) - mu)") == ta.G(mu)(alpha)


def test_tuples_and_lists_are_arguments_not_results():
    # Max takes a variable number of functions; tuples are for knots and distributions.
    with pytest.raises(InvalidParameter, match="tuple at top level"):
        parse_expr("(1, 2)")
    with pytest.raises(InvalidParameter, match="Gaussian"):
        parse_expr("G((1, 2))")


@pytest.mark.parametrize("text,value", [
    ("0.1", R(1, 10)), ("1e-5", R(1, 100000)), ("1e-300", R(1, 10**300)),
    ("0.99999999999999999999", 1 - R(1, 10**20)), ("1_000.5", R(2001, 2)), ("2.5e3", 2500),
    ("1 - 1e-20", 1 - R(1, 10**20)), ("7", 7), ("10**400", sp.Integer(10) ** 400),
])
def test_decimal_literals_are_exact_rationals(text, value):
    v = parse_expr(text)
    assert v == value and isinstance(v, sp.Rational)


def test_the_constructor_list_is_looked_up_on_the_package():
    available = [c for c in CONSTRUCTORS if hasattr(ta, c)]
    assert {"G", "EpsDelta", "Laplace", "C", "Mix", "Max", "Group", "Conjugate"} <= set(available)
    for name in available:  # each one is reachable as a call
        with pytest.raises(InvalidParameter):
            parse_expr(f"{name}(G, 1)")  # a bare constructor is not a value
    for name in set(CONSTRUCTORS) - set(available):
        with pytest.raises(InvalidParameter, match="not available"):
            parse_expr(f"{name}((1, 2), (3, 4))")


@pytest.mark.parametrize("text,construct", [
    ("__import__('os')", "dunder"),
    ("__import__", "dunder"),
    ("().__class__", "attribute access"),
    ("().__class__.__bases__[0].__subclasses__()", "attribute access"),
    ("G.__init__", "attribute access"),
    ("G(1).inverse()", "attribute access"),
    ("G(1).mu", "attribute access"),
    ("lambda: 1", "lambda"),
    ("(lambda x: x)(1)", "lambda"),
    ("[x for x in (1, 2)]", "comprehensions"),
    ("{x for x in (1, 2)}", "comprehensions"),
    ("(x for x in (1, 2))", "generator"),
    ("G(1)[0]", "subscripts"),
    ("(1, 2)[0:1]", "subscripts"),
    ("'abc'", "strings"),
    ("b'abc'", "bytes"),
    ("f'{mu}'", "f-strings"),
    ("G('1')", "strings"),
    ("1j", "complex"),
    ("True", "constant True"),
    ("None", "constant None"),
    ("...", "constant Ellipsis"),
    ("mu < 1", "comparisons"),
    ("mu and nu", "boolean"),
    ("not mu", "not"),
    ("~mu", "~"),
    ("mu if nu else 1", "conditional"),
    ("{'a': 1}", "dicts"),
    ("{1, 2}", "sets"),
    ("(y := 1)", "assignment"),
    ("G(*(1,))", "starred"),
    ("G(**{})", "keyword argument \\*\\*"),
    ("G(1, nu=1)", "unexpected keyword argument 'nu'"),
    ("EpsDelta(1, eps=1)", "multiple values for argument 'eps'"),
    ("G(_x=1)", "keyword argument _x="),
    ("7 % 2", "operator %"),
    ("7 // 2", "operator //"),
    ("1 << 2", "operator <<"),
    ("1 | 2", "operator \\|"),
    ("eval(1)", "builtin eval"),
    ("exec", "builtin exec"),
    ("open(1)", "builtin open"),
    ("getattr(G, 1)", "builtin getattr"),
    ("_", "private"),
    ("_private(1)", "private"),
    ("Foo(1)", "unknown name Foo"),
    ("Symbol(1)", "unknown name Symbol"),
    ("sympify(1)", "builtin|cannot be called"),
])
def test_rejected_constructs_name_the_construct(text, construct):
    with pytest.raises(InvalidParameter) as info:
        parse_expr(text)
    err = info.value
    assert err.name == "expression" and err.value == text
    assert re.search(construct, str(err)), str(err)


def test_keywords_are_the_api_parameter_names():
    assert parse_expr("G(mu=1)") == ta.G(1)
    assert parse_expr("noisy_sgd(1, dataset_size=50000, batch_size=512, epochs=30, "
                      "sampling='poisson')") == ta.noisy_sgd(1, dataset_size=50000,
                                                             batch_size=512, epochs=30,
                                                             sampling="poisson")


@pytest.mark.parametrize("text,why", [
    ("G(1) + G(2)", "needs numbers"),
    ("-G(1)", "needs numbers"),
    ("2 * G(1)", "needs numbers"),
    ("G(1) @ 2", "@ \\(tensor product\\)"),
    ("mu @ nu", "@ \\(tensor product\\)"),
    ("sqrt(G(1))", "needs numbers"),
    ("G", "bare name G"),
    ("Max(G, G(1))", "bare name G"),
    ("mu(1)", "cannot be called"),
    ("(1)(2)", "cannot be called"),
    ("G(1)(1, 2)", "exactly one argument"),
    ("G(1)(G(2))", "needs numbers"),
    ("G(1, 2)", "G: "),
    ("sqrt(2, delta=1)", "no keyword"),
    ("Rational(mu)", "Rational"),
    ("1/0", "(?i)division by zero"),
    ("0**-1", "(?i)division by zero"),
    ("mu/0", "(?i)division by zero"),
    ("9**9**9", "too large"),
    ("2**(2**20)", "too large"),
    ("(2**9999)**200", "too large"),
    ("2**(1/123456)", "too large"),
    ("G(1", "syntax error"),
    ("G(1); G(2)", "syntax error"),
    ("import os", "syntax error"),
    ("", "syntax error"),
    ("(" * 300 + "1" + ")" * 300, "nested|too deep"),
    ("-" * 400 + "1", "deep"),
    ("x" * (10_001), "longer than"),
])
def test_misuse_raises_a_clear_invalid_parameter(text, why):
    with pytest.raises(InvalidParameter, match=why):
        parse_expr(text)


def test_a_non_string_is_refused():
    with pytest.raises(InvalidParameter, match="a string"):
        parse_expr(ta.G(1))


def test_constructor_validation_comes_through():
    with pytest.raises(InvalidParameter, match="mu = -1"):
        parse_expr("G(-1)")
    with pytest.raises(InvalidParameter, match="delta"):
        parse_expr("EpsDelta(1, delta=2)")
    with pytest.raises(InvalidParameter, match="alpha"):
        parse_expr("G(1)(2)")
    with pytest.raises(InvalidParameter, match="sigma"):
        parse_expr("gaussian_mechanism(1, 0)")


def test_symbols_override():
    x = sp.Symbol("mu", positive=True)
    assert parse_expr("G(mu)", symbols={"mu": x}) == ta.G(x)
    assert parse_expr("G(mu)") != ta.G(x)


def test_parsed_trees_are_ordinary_nodes():
    f = parse_expr("C(p, G(mu))**n @ Laplace(1)")
    assert f.func(*f.args) == f
    assert pickle.loads(pickle.dumps(f)) == f
    assert f.free_symbols == {p, mu, n}
    g = f.subs({p: R(1, 10), mu: 1, n: 3})
    assert g == parse_expr("C(1/10, G(1))**3 @ Laplace(1)")


def test_parsed_value_matches_an_independent_reference():
    # 1 - G_1(1e-300) = Phi(1 + Phi^{-1}(1e-300)) with Phi^{-1}(a) = -sqrt(2) erfinv(1 - 2a)
    # at 400 digits (the argument of erfinv needs 300 of them).
    import mpmath

    f, a = parse_expr("gaussian_mechanism(2, 2)"), parse_expr("1e-300")
    v = ta.roc(f, a, dps=30)
    with mpmath.workdps(400):
        z = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(10) ** -300)
        ref = mpmath.erfc(-(1 + z) / mpmath.sqrt(2)) / 2
    assert abs(v.mid / ref - 1) < mpmath.mpf(10) ** -29


# -- random trees: text() and parse_expr are inverse -------------------------------------------
_params = st.sampled_from([sp.Integer(0), sp.Integer(1), R(1, 3), R(5, 2), mu, nu,
                           sp.sqrt(mu**2 + 1), sp.log(2), sp.exp(-nu)])
_probs = st.sampled_from([R(0), R(1), R(1, 100), R(7, 10), p])
_powers = st.sampled_from([sp.Integer(0), sp.Integer(2), sp.Integer(17), n, n + 1, 2 * k])
_leaves = st.one_of(
    _params.map(ta.G), _params.map(ta.Laplace),
    st.tuples(_params, _probs).map(lambda t: ta.EpsDelta(*t)),
    st.sampled_from([ta.Id, ta.Zero]),
)


def _extend(children):
    return st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda fs: ta.Tensor(*fs)),
        st.tuples(children, _powers).map(lambda t: ta.TensorPower(*t)),
        st.tuples(_probs, children).map(lambda t: ta.C(*t)),
        st.tuples(children, _probs).map(lambda t: ta.Mix(*t)),
        children.map(ta.Inverse), children.map(ta.Symmetrize), children.map(ta.SymmetricHull),
        st.lists(children, min_size=1, max_size=3).map(lambda fs: ta.Max(*fs)),
        st.tuples(children, st.sampled_from([sp.Integer(1), sp.Integer(3), k])).map(
            lambda t: ta.Group(*t)),
    )


_trees = st.recursive(_leaves, _extend, max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(_trees)
def test_random_trees_round_trip(f):
    assert parse_expr(ta.text(f)) == f


@settings(max_examples=40, deadline=None)
@given(_trees)
def test_random_conjugates_round_trip(f):
    g = ta.Conjugate(f)
    assert parse_expr(ta.text(g)) == g


def test_later_families_round_trip():
    # Families added after the parser are reached through the CONSTRUCTORS whitelist.
    exprs = [ta.BinomialDP(1, 3), ta.BinomialDP(eps, n),
             ta.PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)]),
             ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]),
             ta.Discrete([p, 1 - p], [1 - p, p]) @ ta.G(1)]
    for expr in exprs:
        assert parse_expr(ta.text(expr)) == expr, ta.text(expr)
    assert parse_expr("PiecewiseLinear([(0, 1), (0.5, 0.25), (1, 0)])") == exprs[2]


def test_option_keywords_take_their_strings_only():
    """noisy_sgd's sampling= and shuffle's bound= take one of their strings; anything else
    (another string, a name, an expression) is rejected naming the allowed values."""
    assert parse_expr("noisy_sgd(11/10, 256/60000, 10, sampling='poisson')") == ta.noisy_sgd(
        R(11, 10), R(256, 60000), 10, sampling="poisson")
    assert parse_expr("noisy_sgd(2, 1/100, 3, sampling='fixed_size')") == ta.noisy_sgd(
        2, R(1, 100), 3, sampling="gdp_paper")
    assert parse_expr("shuffle(1, 5, bound='exact')") == ta.shuffle(1, 5)
    for bad in ("noisy_sgd(2, 1/100, 3, sampling='shuffled')", "shuffle(1, 5, bound=wang)",
                "noisy_sgd(2, 1/100, 3, sampling=1)"):
        with pytest.raises(InvalidParameter, match="one of the strings"):
            parse_expr(bad)


# -- size limits: refused before SymPy forms the number ------------------------------------------
SIZE_LIMITS = [
    ("10**10**10", "too large to form exactly"),
    ("(10**10000)**10000", "too large"),
    ("10**4000 * 11", "at most 10\\*\\*4000"),
    ("1e-99999999999", "too small to take exactly"),
    ("1e4001", "too large to take exactly"),
    ("0x" + "f" * 4000, "integer literal with"),
    ("sqrt(10**600 + 1)", "roots are taken of numbers with at most 500 digits"),
    ("exp(10**1000)", "argument must lie in"),
    ("exp(exp(exp(10)))", "argument must lie in"),
    ("E**10000", "too large or too small"),
    ("(3*mu)**(10**9)", "too large"),
    ("exp(10000*log(mu*3**4000))", "too large"),
    ("log(-2)", "log needs a positive number"),
    ("log(log(1/2))", "log needs a positive number"),
    ("PhiInv(2)", "outside \\[0, 1\\]"),
    ("PhiInv(PhiInv(0))", "infinite"),
    ("Phi(-10**3000)", "cannot be evaluated"),
]


@pytest.mark.parametrize("text,why", SIZE_LIMITS)
def test_size_limits_refuse(text, why):
    # (refused before any large number is formed; the time of each refusal is measured by
    # benchmarks/bench_speed_claims.py, tests assert no times)
    with pytest.raises(InvalidParameter, match=why) as info:
        parse_expr(text)
    assert info.value.value == text and len(str(info.value)) < 800


def test_size_limits_accept_what_is_within_them():
    from tradeoff_algebra.parse import MAX_DIGITS, MAX_POWER, MAX_ROOT_DIGITS

    assert (MAX_DIGITS, MAX_POWER, MAX_ROOT_DIGITS) == (4000, 10_000, 500)
    assert parse_expr("1e-4000") == R(1, 10**4000) and parse_expr("1e4000") == 10**4000
    assert parse_expr("0e-99999999999") == 0 and parse_expr("1" + "0" * 3000 + "e-3000") == 1
    assert parse_expr("2**10000") == 2**10000 and parse_expr("(1/3)**2000") == R(1, 3**2000)
    assert parse_expr("exp(9000)") == sp.exp(9000) and parse_expr("exp(-9210)") == sp.exp(-9210)
    assert parse_expr("sqrt(10**400 + 1)") == sp.sqrt(10**400 + 1)
    assert parse_expr("mu**(10**9)") == mu**(10**9)
    assert parse_expr("(mu + 1)**(10**9)") == (mu + 1) ** (10**9)
    assert parse_expr("G(1)**(10**100)") == ta.G(1) ** (10**100)  # tensor powers are symbolic
    assert parse_expr("PhiInv(1e-4000)") == ta.PhiInv(R(1, 10**4000))
    assert parse_expr("log(log(3))") == sp.log(sp.log(3))
