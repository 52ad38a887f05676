"""Trade-off symbols (core/symbol.py), the rules valid for every trade-off function
(rewrite/general.py) and verify on claims about arbitrary trade-off functions
(verify/symbolic.py).

Every identity and bound that the verdicts rest on is checked against numbers computed without
it: concrete trade-off functions (G_mu, f_{eps,delta}, L_mu, finite pairs) are substituted for
the symbols in the *unsimplified* expression, which is evaluated by definition (the reference
routes of tests/rewrite_reference.py: Neyman-Pearson on finite pairs, composition of the
definitions), and compared with the other side at several levels.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest
import sympy as sp
from rewrite_reference import reference

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.parse import parse_expr
from tradeoff_algebra.rewrite.general import FACTS
from tradeoff_algebra.verify.symbolic import prove_le_tradeoff, substitutions

R = sp.Rational
f = ta.TradeOffSymbol("f")
g = ta.TradeOffSymbol("g")
h = ta.TradeOffSymbol("h", symmetric=True)
t = ta.TradeOffSymbol("t", tight=True)
p = sp.Symbol("p", nonnegative=True)
eps = sp.Symbol("eps", nonnegative=True)

# Concrete trade-off functions: an asymmetric finite pair with f(0) = 1, one with f(0) = 1/4,
# a symmetric finite pair (f_{log 2, 1/10}'s four points), and the smooth G_1.
ASYM = ta.Discrete([R(3, 4), R(1, 4)], [0, 1])
ASYM_LOOSE = ta.Discrete([R(1, 2), R(1, 2), 0], [0, R(1, 4), R(3, 4)])
SYM = ta.EpsDelta(sp.log(2), R(1, 10))
SYM3 = ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)])
FINITE = [ASYM, ASYM_LOOSE, ta.Mix(ta.EpsDelta(1, R(1, 5)), R(2, 5))]
#: Finite pairs with rational data (the reference's C_p works on exact knots).
RATIONAL = [ASYM, ASYM_LOOSE, SYM3]
# (alpha = 0 is left out: the reference's root-finding inverse of a product of finite pairs
# answers 1 there, where Eq. (3) gives inf{t : f(t) <= 0} < 1.)
LEVELS = [Fraction(1, 10**6), Fraction(1, 1000), Fraction(1, 7), Fraction(1, 2),
          Fraction(9, 10), Fraction(1)]
#: The reference routes compute at 40 digits: differences below this are their rounding.
TOL = mp.mpf(10) ** -30


def _ref(expr, a: Fraction):
    """The value of a concrete expression by definition (never through the rules checked)."""
    v = reference(expr, a, 40)
    return mp.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mp.mpf(v)


def _le(small, big, tol=TOL):
    with mp.workdps(40):
        for a in LEVELS:
            assert _ref(small, a) <= _ref(big, a) + tol, (small, big, a)


def _eq(x, y, tol=TOL):
    with mp.workdps(40):
        for a in LEVELS:
            assert abs(_ref(x, a) - _ref(y, a)) <= tol, (x, y, a)


# -- the node -----------------------------------------------------------------------------------
def test_node_prints_pickles_hashes_and_substitutes():
    assert str(f) == "f" and ta.latex(f) == "f"
    assert ta.latex(ta.TradeOffSymbol("g1")) == "g_{1}"
    assert ta.latex(ta.Inverse(f @ g)) == r"\left(f \otimes g\right)^{-1}"
    assert pickle.loads(pickle.dumps(ta.Inverse(f @ h))) == ta.Inverse(f @ h)
    assert hash(ta.TradeOffSymbol("f")) == hash(f) and ta.TradeOffSymbol("f") == f
    assert f != ta.TradeOffSymbol("f", symmetric=True)
    assert h.is_symmetric is True and f.is_symmetric is None and t.is_tight is True
    assert f.free_symbols == set() and ta.C(p, f).free_symbols == {p}
    assert ta.Inverse(f @ g).xreplace({f: ta.G(1)}) == ta.Inverse(ta.G(1) @ g)
    assert ta.Inverse(f @ g).subs(f, ta.G(1)) == ta.Inverse(ta.G(1) @ g)
    assert sp.srepr(h) == "TradeOffSymbol('h', symmetric=True, tight=False)"


def test_parse_reads_the_symbol():
    assert parse_expr("TradeOffSymbol(f, symmetric=True)") == ta.TradeOffSymbol("f", True)
    assert parse_expr("TradeOffSymbol(t, tight=True)") == t
    assert parse_expr("Inverse(f @ g)", symbols={"f": f, "g": g}) == ta.Inverse(f @ g)


def test_bad_input_names_the_parameter():
    with pytest.raises(ta.InvalidParameter, match="name"):
        ta.TradeOffSymbol("not a name")
    with pytest.raises(ta.InvalidParameter, match="symmetric"):
        ta.TradeOffSymbol("f", symmetric=1)
    with pytest.raises(ta.InvalidParameter, match="tight"):
        ta.TradeOffSymbol("f", tight="yes")


@pytest.mark.parametrize("call", [
    lambda: ta.evaluate(f, R(1, 2)),
    lambda: ta.evaluate(ta.G(1) @ f, R(1, 2)),
    lambda: ta.delta(f, 1),
    lambda: ta.roc(ta.Inverse(f), R(1, 3)),
])
def test_numbers_are_refused_naming_the_symbol(call):
    with pytest.raises(ta.NoClosedForm, match="trade-off symbol f"):
        call()


def test_application_stays_unevaluated():
    assert isinstance(f(R(1, 3)), ta.Applied)


# -- the rules, against numbers ----------------------------------------------------------------
def test_identities_fire_with_their_citations():
    d = ta.derive(ta.Group(ta.Inverse(ta.Inverse(f @ ta.Id)), 1))
    assert d.result == f
    names = [s.rule.name for s in d.steps]
    assert {"group_one", "tensor_unit", "inverse_involution"} <= set(names)
    assert all("Dong, Roth & Su" in str(s.cite) for s in d.steps)
    assert ta.simplify(ta.Inverse(f @ g)) == ta.Inverse(f) @ ta.Inverse(g)
    assert ta.simplify(ta.Inverse(ta.C(p, f))) == ta.C(p, f)
    assert ta.simplify(ta.Inverse(h)) == h
    assert ta.simplify(ta.Group(ta.Id, 3)) == ta.Id and ta.simplify(ta.Group(ta.Zero, 2)) == ta.Zero


@pytest.mark.parametrize("F", RATIONAL)
@pytest.mark.parametrize("G2", [ASYM, SYM])
def test_identities_hold_for_concrete_functions(F, G2):
    """(f (x) g)^{-1} = f^{-1} (x) g^{-1}, f (x) Id = f, Group(f, 1) = f: the unsimplified left
    side by definition equals the simplified right side with the same substitution."""
    sub = {f: F, g: G2}
    for lhs in (ta.Inverse(f @ g), f @ ta.Id, ta.Group(f, 1), ta.Inverse(ta.Inverse(f))):
        rhs = ta.simplify(lhs)
        assert rhs != lhs
        _eq(lhs.xreplace(sub), rhs.xreplace(sub))


@pytest.mark.parametrize("F", RATIONAL)
@pytest.mark.parametrize("q", [R(1, 5), R(1, 2), R(9, 10)])
def test_subsample_bounds_hold_for_concrete_functions(F, q):
    """C_p(f) <= f_p and C_p(f) <= f_p^{-1} (by definition: the biconjugate of the minimum)."""
    sub = {f: F}
    small = ta.C(q, f).xreplace(sub)
    _le(small, ta.Mix(f, q).xreplace(sub))
    _le(small, ta.Inverse(ta.Mix(f, q)).xreplace(sub))


@pytest.mark.parametrize("F", FINITE + [ta.G(1)])
def test_mix_and_id_bounds_hold_for_concrete_functions(F):
    """f_p >= f and f <= Id."""
    for q in (R(1, 5), R(9, 10)):
        _le(F, ta.Mix(f, q).xreplace({f: F}))
    _le(F, ta.Id)


@pytest.mark.parametrize("F", RATIONAL)
def test_subsample_is_symmetric_for_concrete_functions(F):
    c = ta.C(R(1, 3), F)
    _eq(c, ta.Inverse(c))


@pytest.mark.parametrize("F", FINITE)
@pytest.mark.parametrize("G2", [ASYM, ta.EpsDelta(1, 0)])
def test_product_below_each_factor_for_concrete_functions(F, G2):
    _le(F @ G2, F)
    _le(F @ G2, G2)


def test_derive_bounds_on_symbols():
    up = ta.derive(ta.C(p, f), "upper")
    assert up.result == ta.Mix(f, p) and up.steps[0].rule.name == "subsample_le_mix"
    assert ta.derive(f @ ta.G(1), "upper").result == ta.G(1)
    assert ta.derive(ta.Mix(f, p), "lower").result == f
    # on concrete operands the bounds for every f stay out of the way
    assert ta.bound(ta.C(p, ta.G(1)), "upper") == ta.C(p, ta.G(1))
    assert ta.bound(ta.Mix(ta.G(1), p), "lower") == ta.Mix(ta.G(1), p)


# -- verify ---------------------------------------------------------------------------------------
def _basis(v):
    return {s.rule.name for d in v.derivations for s in d.steps}


@pytest.mark.parametrize("lhs, rel, rhs, rules", [
    (ta.Inverse(f @ g), "==", ta.Inverse(f) @ ta.Inverse(g), {"inverse_tensor"}),
    (ta.C(p, f), "==", ta.Inverse(ta.C(p, f)), {"inverse_symmetric"}),
    (ta.C(p, f), "<=", ta.Mix(f, p), {"subsample_le_mix"}),
    (f, "<=", ta.Id, {"le_id"}),
    (ta.Group(f, 1), "==", f, {"group_one"}),
    (f @ ta.Id, "==", f, {"tensor_unit"}),
    (f @ g, "<=", g, {"tensor_le_factor"}),
    (ta.Symmetrize(f), ">=", ta.Inverse(f), {"symmetrize_ge_parts"}),
    (ta.C(p, f @ g), "<=", ta.Mix(f, p), {"subsample_le_mix", "monotone_mix",
                                           "tensor_le_factor"}),
    (h, ">=", ta.EpsDelta(eps, ta.Functional("delta", h, eps)), {"duality"}),
    (f, ">=", ta.EpsDelta(eps, sp.Max(ta.Functional("delta", f, eps),
                                      ta.Functional("delta", ta.Inverse(f), eps))), {"duality"}),
])
def test_verify_proves_with_the_rules_as_basis(lhs, rel, rhs, rules):
    over = {p: (0, 1)} if p in (lhs.free_symbols | rhs.free_symbols) else None
    v = ta.verify(lhs, rel, rhs, over=over)
    assert v.status is True, v
    assert rules <= _basis(v), (rules, _basis(v))
    assert "every" in v.evidence and "trade-off function" in v.evidence  # the scope


def test_verify_refutes_only_with_a_certified_substitution():
    v = ta.verify(f, "==", ta.Inverse(f))
    assert v.status is False
    assert v.counterexample["f"] == ASYM  # symmetric candidates cannot refute it
    lhs, rhs = v.counterexample["lhs"], v.counterexample["rhs"]
    assert lhs != rhs
    v = ta.verify(f @ g, ">=", f)
    assert v.status is False and "f" in v.counterexample and "g" in v.counterexample


def test_verify_leaves_open_what_no_rule_decides():
    v = ta.verify(f, ">=", g)  # two different functions: a substitution refutes it
    assert v.status is False and v.counterexample["f"] != v.counterexample["g"]
    v = ta.verify(f, ">=", ta.EpsDelta(eps, ta.Functional("delta", f, eps)))
    assert v.status is None  # true for symmetric f only; never True without a rule
    assert "no rule valid for every trade-off function" in v.evidence
    v = ta.verify(h, "==", ta.Inverse(h))
    assert v.status is True


def test_declared_properties_restrict_the_substitutes():
    for sub in substitutions(h, t):
        assert sub[h].is_symmetric is True or ta.simplify(ta.Inverse(sub[h])) == sub[h]
        assert ta.evaluate(sub[t], 0).lo == 1
    assert ta.verify(h, "==", ta.Inverse(h)).status is True


def test_symbolic_verdicts_never_pass_through_instances_for_true():
    """A True verdict on symbols rests on rules only: no numeric route is recorded."""
    with trace.basis() as events:
        v = ta.verify(ta.C(p, f), "<=", ta.Mix(f, p), over={p: (0, 1)})
    assert v.status is True
    assert not [e for e in events if e[0] == "closed form"]


def test_prover_facts_are_cited():
    for name, r in FACTS.items():
        assert "Dong, Roth & Su" in str(r.cite) or "Wang" in str(r.cite), name
    assert prove_le_tradeoff(f, g, {}) is None
    assert prove_le_tradeoff(f @ g @ h, ta.Max(g, h), {}) is not None


def test_scalar_claims_on_symbols():
    d = ta.Functional("delta", f, eps)
    assert ta.verify(d, "==", d).status is True
    assert ta.verify(sp.Max(d, ta.Functional("delta", ta.Inverse(f), eps)), ">=", d).status \
        is True


@pytest.mark.parametrize("F", RATIONAL)
def test_parameter_facts_hold_for_concrete_functions(F):
    """f^{(x) 3} <= f^{(x) 2}, f_{2/3} <= f_{1/3}, C_{2/3}(f) <= C_{1/3}(f), Group(f, 3) <=
    Group(f, 2): each side by definition."""
    _le(ta.TensorPower(F, 3), ta.TensorPower(F, 2))
    _le(ta.Mix(F, R(2, 3)), ta.Mix(F, R(1, 3)))
    _le(ta.C(R(2, 3), F), ta.C(R(1, 3), F))
    _le(ta.Group(F, 3), ta.Group(F, 2))


def test_operand_steps_are_shown_in_the_whole_expression():
    q = sp.Symbol("q", nonnegative=True)
    v = ta.verify(ta.C(p + q, f @ g), "<=", ta.C(p, ta.Max(f, h)),
                  over={p: (0, R(1, 2)), q: (0, R(1, 2))})
    assert v.status is True
    chain = v.derivations[-1]
    assert [s.rule.name for s in chain.steps] == ["tensor_le_factor", "max_ge_parts",
                                                  "param_subsample", "monotone_subsample"]
    assert chain.steps[0].expr_after == ta.C(p + q, f)  # the operand's step, in context
    assert ta.verify(ta.TensorPower(f, 3), "<=", ta.TensorPower(f, 2)).status is True
    assert ta.verify(ta.TensorPower(f, 2), "<=", ta.TensorPower(f, 3)).status is not True
