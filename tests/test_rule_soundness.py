"""Soundness meta-test: every registered rule preserves the value (or the bound it claims).

For EVERY rule in ``ta.rules()`` (rules added anywhere are covered automatically) the cases of
tests/rule_cases.py are drawn; on each the rule must fire, and its output evaluated numerically
(``ta.evaluate``, or the reference where the output has no closed form) must equal the input
evaluated by its definition (tests/rewrite_reference.py), at the digits the case states
(``None`` = exact rational equality); ``lower``/``upper`` rules are checked as inequalities.
A rule without cases fails. Run with ``-s`` to see the digits reached per rule.
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from rewrite_reference import NoReference, reference, to_fraction
from rule_cases import CASES

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import NoClosedForm

SEED = 20240607
REPORT: dict[str, list[str]] = {}


def _cases_for(r):
    return CASES.get(f"{r.cls.__name__}.{r.name}") or CASES.get(r.name)


def _alphas(c, rng):
    if c.alphas:
        return [to_fraction(a) for a in c.alphas]
    return [Fraction(rng.randint(1, 999), 1000),
            Fraction(rng.randint(1, 9), 10 ** rng.randint(2, 6))]


def _numeric(expr, A: Fraction, dps: int):
    """The library's own numeric value of a rule's output, else the reference."""
    try:
        v = ta.evaluate(expr, sp.Rational(A.numerator, A.denominator), dps=dps + 10)
    except NoClosedForm:
        return reference(expr, A, dps), "reference"
    if v.exact is not None:
        return Fraction(int(v.exact.p), int(v.exact.q)), "evaluate (exact)"
    if v.is_point:
        return v.mid, "evaluate"
    try:
        return reference(expr, A, dps), "reference"
    except NoReference:
        return v.mid, "evaluate (enclosure; bounds use its certified side)"


def _to_mpf(x):
    return mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mp.mpf(x)


def _digits(x, y) -> float:
    if isinstance(x, Fraction) and isinstance(y, Fraction) and x == y:
        return float("inf")
    with workdps(80):
        x = mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mp.mpf(x)
        y = mp.mpf(y.numerator) / y.denominator if isinstance(y, Fraction) else mp.mpf(y)
        err = abs(x - y)
        if err == 0:
            return 80.0
        scale = max(abs(x), abs(y))
        return float(-mpmath.log10(err / scale)) if scale > 0 else 80.0


RULES = sorted(ta.rules(), key=lambda r: (r.cls.__name__, r.name))

#: The cases (by index) that cost 10 s of CPU or more each, checked in the slow run (-m slow);
#: the default run checks the rule's other cases. A rule whose only case is slow is in
#: SLOW_RULES (the default run keeps TensorPower's and BinomialDP's Berry-Esseen rules).
SLOW_CASES = {"Inverse.inverse_tensor": {1}, "Tensor.tensor_unit": {1}}
SLOW_RULES = {"Tensor.berry_esseen_upper"}


def _rule_params():
    out = []
    for r in RULES:
        name = f"{r.cls.__name__}.{r.name}"
        if name in SLOW_RULES:
            out.append(pytest.param(r, "all", id=name, marks=pytest.mark.slow))
        elif name in SLOW_CASES:
            out += [pytest.param(r, "fast", id=name),
                    pytest.param(r, "slow", id=name + "-slow", marks=pytest.mark.slow)]
        else:
            out.append(pytest.param(r, "all", id=name))
    return out


def test_every_rule_has_cases():
    missing = [f"{r.cls.__name__}.{r.name}" for r in RULES if _cases_for(r) is None]
    assert not missing, f"rules without cases in tests/rule_cases.py: {missing}"


@pytest.mark.parametrize("r, part", _rule_params())
def test_rule_is_sound(r, part):
    gen = _cases_for(r)
    if gen is None:
        pytest.fail(f"rule {r.name} ({r.cls.__name__}) has no cases in tests/rule_cases.py")
    rng = random.Random(f"{SEED}:{r.cls.__name__}.{r.name}")
    cases = list(gen(rng))
    assert cases, f"the generator for {r.name} yielded no case"
    worst = []
    slow = SLOW_CASES.get(f"{r.cls.__name__}.{r.name}", set())
    for i, c in enumerate(cases):
        if (part == "fast" and i in slow) or (part == "slow" and i not in slow):
            _alphas(c, rng)  # the same random levels for the other cases in either part
            continue
        out = r(c.expr)
        assert out is not None, f"{r.name} does not fire on {c.expr} ({c.note})"
        lhs_expr = c.expr.xreplace(c.subs) if c.subs else c.expr
        rhs_expr = out.xreplace(c.subs) if c.subs else out
        assert not lhs_expr.free_symbols, f"case {c.expr}: symbols left after subs"
        dps = 50 if c.digits is None else c.digits
        for A in _alphas(c, rng):
            try:
                lhs = reference(lhs_expr, A, dps)
            except NoReference as exc:
                pytest.fail(f"{r.name}: no reference route for the case {lhs_expr}: {exc}")
            rhs, route = _numeric(rhs_expr, A, dps)
            where = (f"{r.name} on {c.expr} with {c.subs} at alpha = {A} ({c.note}): "
                     f"input {lhs} (reference), output {rhs_expr} = {rhs} ({route})")
            if r.relation == "eq":
                if c.digits is None:
                    assert isinstance(lhs, Fraction) and isinstance(rhs, Fraction), \
                        f"exact case without exact values: {where}"
                    assert lhs == rhs, where
                    worst.append(float("inf"))
                else:
                    d = _digits(lhs, rhs)
                    assert d >= c.digits, f"only {d:.1f} digits (need {c.digits}): {where}"
                    worst.append(d)
            elif r.relation == "approx":
                assert c.tol is not None, f"an approx case states its tolerance: {where}"
                with workdps(dps):
                    gap = abs(_to_mpf(lhs) - _to_mpf(rhs))
                assert gap <= c.tol, f"approximation off by {gap} > {c.tol}: {where}"
                worst.append(c.digits)
            else:
                tol = 0 if c.digits is None else mp.mpf(10) ** -c.digits
                if not isinstance(rhs, Fraction):  # the certified side that matters
                    v = ta.evaluate(rhs_expr, sp.Rational(A.numerator, A.denominator),
                                    dps=dps + 10)
                    rhs = v.hi if r.relation == "lower" else v.lo
                lo, hi = (rhs, lhs) if r.relation == "lower" else (lhs, rhs)
                with workdps(dps + 20):  # the sum at the values' precision, not at 53 bits
                    ok = lo <= hi if not tol else _to_mpf(lo) <= _to_mpf(hi) + tol
                assert ok, f"bound violated: {where}"
                worst.append(float("inf") if c.digits is None else c.digits)
    REPORT[f"{r.cls.__name__}.{r.name}" + ("" if part == "all" else f" ({part})")] = [
        "exact" if w == float("inf") else f"{w:.0f}" for w in worst]


def test_zz_print_digits():
    """Print the digits reached per rule (visible with ``pytest -s``)."""
    for name in sorted(REPORT):
        print(f"{name:45s} {' '.join(REPORT[name])}")


# -- the reference evaluator against independent routes -------------------------------------------
def test_reference_finite_np_matches_brute_force():
    """Likelihood-ratio ordering vs brute force over every randomised test (reference_np)."""
    from reference_np import finite_np
    from rewrite_reference import model, pair_value

    f = ta.Tensor(ta.Mix(ta.EpsDelta(sp.log(3), sp.Rational(1, 10)), sp.Rational(1, 3)),
                  ta.EpsDelta(sp.log(2)))
    atoms = model(f).atoms
    P, Q = [a for a, _ in atoms], [b for _, b in atoms]
    for A in (Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(9, 10), Fraction(1)):
        assert pair_value(model(f), A) == finite_np(P, Q, A)


def test_reference_four_point_pair_is_epsdelta():
    from rewrite_reference import model, pair_value

    f = ta.EpsDelta(sp.log(sp.Rational(5, 2)), sp.Rational(1, 20))
    for A in (Fraction(1, 100), Fraction(3, 10), Fraction(7, 10), Fraction(99, 100)):
        exact = ta.evaluate(f, sp.Rational(A.numerator, A.denominator)).exact
        assert pair_value(model(f), A) == Fraction(int(exact.p), int(exact.q))


def test_reference_single_gaussian_matches_neyman_pearson():
    from reference_np import gauss_np
    from rewrite_reference import Pair, pair_value

    with workdps(60):
        for A in (Fraction(1, 1000), Fraction(1, 2), Fraction(9, 10)):
            v = pair_value(Pair(shifts=(sp.Rational(3, 2),)), A)
            ref = gauss_np(mp.mpf(3) / 2, sp.Rational(A.numerator, A.denominator))
            assert _digits(v, ref) >= 55


def test_reference_inverse_swap_agrees_with_root_finding():
    """Inside products the reference uses T(P, Q)^{-1} = T(Q, P); check it against Eq. (3)."""
    from rewrite_reference import model, pair_value, root_inverse

    f = ta.Tensor(ta.Mix(ta.EpsDelta(sp.log(3), sp.Rational(1, 10)), sp.Rational(2, 5)),
                  ta.Mix(ta.EpsDelta(sp.log(2)), sp.Rational(1, 2)))
    for A in (Fraction(1, 10), Fraction(1, 3), Fraction(4, 5)):
        with workdps(65):
            assert pair_value(model(f).swap(), A) == root_inverse(f, A, 50)
    g = ta.Tensor(ta.Mix(ta.EpsDelta(sp.log(3)), sp.Rational(1, 2)), ta.G(1))
    with workdps(65):
        A = Fraction(1, 4)
        assert _digits(pair_value(model(g).swap(), A), root_inverse(g, A, 50)) >= 50
