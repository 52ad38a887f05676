"""ta.verify: never True for a false claim, never False for a true one.

References are independent of the verifier: mpmath's normal distribution for G_mu, exact
rational arithmetic for piecewise-linear sides, and the papers' closed forms.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.cli import main

R = sp.Rational
mu, nu, x = sp.symbols("mu nu x", positive=True)
y = sp.Symbol("y", real=True)


def G_ref(m, a, dps=50):
    """G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) with mpmath (Dong, Roth & Su, Eq. (6))."""
    with mpmath.workdps(dps):
        a = mpmath.mpf(sp.Rational(a).p) / sp.Rational(a).q
        if a == 0:
            return mpmath.mpf(1)
        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
        return mpmath.ncdf(z - mpmath.mpf(sp.N(m, dps)))


def _agrees(v, ref):
    """ref lies in v's enclosure, or within the digits a point value claims."""
    if not v.is_point:
        return v.lo <= ref <= v.hi
    with mpmath.workdps(60):
        return abs(ref - v.mid) <= mpmath.mpf(10) ** (1 - v.dps) * abs(ref)


def _disjoint_and_wrong(v, rel):
    ce = v.counterexample
    L, Rv = ce["lhs"], ce["rhs"]
    if rel == "<=":
        return L.lo > Rv.hi
    if rel == ">=":
        return L.hi < Rv.lo
    return L.hi < Rv.lo or Rv.hi < L.lo


# -- identities and their perturbations ---------------------------------------------------------
def test_gaussian_composition_identity_holds_by_rewriting():
    v = ta.verify(ta.G(mu) @ ta.G(nu), "==", ta.G(sp.sqrt(mu**2 + nu**2)))
    assert v.status is True and v.method == "rewrite"
    assert v.derivations and "Cor. 2" in str(v)


@pytest.mark.parametrize("k", [2, 4, 8, 12])
def test_perturbed_identity_is_never_true(k):
    lhs = ta.G(1) @ ta.G(2)
    rhs = ta.G(sp.sqrt(5) + R(1, 10**k))
    v = ta.verify(lhs, "==", rhs)
    assert v.status is not True
    if k <= 8:
        assert v.status is False and _disjoint_and_wrong(v, "==")
        a = v.counterexample["alpha"]
        assert _agrees(v.counterexample["lhs"], G_ref(sp.sqrt(5), a))
        assert _agrees(v.counterexample["rhs"], G_ref(sp.sqrt(5) + R(1, 10**k), a))


@pytest.mark.parametrize("a,b", [(1, 2), (R(1, 3), R(1, 2)), (2, 5)])
def test_flipped_inequalities(a, b):
    assert ta.verify(ta.G(a), ">=", ta.G(b)).status is True
    assert ta.verify(ta.G(b), "<=", ta.G(a)).status is True
    v = ta.verify(ta.G(b), ">=", ta.G(a))
    assert v.status is False and _disjoint_and_wrong(v, ">=")
    al = v.counterexample["alpha"]
    assert G_ref(b, al) < G_ref(a, al)


def test_parameter_box_counterexample_and_proof():
    assert ta.verify(ta.G(mu), ">=", ta.G(mu + R(1, 10)), over={mu: (0, 5)}).status is True
    v = ta.verify(ta.G(mu), ">=", ta.G(2), over={mu: (1, 3)})
    assert v.status is False and v.counterexample["mu"] > 2


def test_pure_dp_does_not_dominate_gaussian():
    v = ta.verify(ta.EpsDelta(1, 0), ">=", ta.G(1))
    assert v.status is False and _disjoint_and_wrong(v, ">=")


def test_touching_curves_are_not_refuted():
    # f_{eps, delta(eps)} touches G_mu (Dong, Roth & Su, Cor. 1): the verdict may not be False
    d = ta.Phi(-1 + R(1, 2)) - sp.E * ta.Phi(-1 - R(1, 2))
    assert ta.verify(ta.G(1), ">=", ta.EpsDelta(1, d)).status is not False
    # a hair above the profile: provably below G_1; a hair below: a certified counterexample
    assert ta.verify(ta.G(1), ">=", ta.EpsDelta(1, d + R(1, 10**10))).status is True
    v = ta.verify(ta.G(1), ">=", ta.EpsDelta(1, d - R(1, 10**10)))
    assert v.status is False


def test_exact_piecewise_linear_claims():
    # randomised response with p = 3/4 is f_{log 3, 0} (Dong, Roth & Su, Sec. 2.1)
    rr = ta.Discrete([R(3, 4), R(1, 4)], [R(1, 4), R(3, 4)])
    v = ta.verify(rr, "==", ta.EpsDelta(sp.log(3), 0))
    assert v.status is True and v.method == "exact"
    v = ta.verify(rr, "==", ta.EpsDelta(sp.log(3), R(1, 1000)))
    assert v.status is False
    assert ta.verify(ta.EpsDelta(1, R(1, 10)), ">=", ta.EpsDelta(2, R(1, 10))).status is True


def test_numeric_agreement_never_proves_identity():
    v = ta.verify(ta.Max(ta.G(1), ta.G(2)), "==", ta.G(1))  # true; no rule states it
    assert v.status is None and v.method == "numeric agreement"
    v = ta.verify(ta.Max(ta.G(1), ta.Laplace(R(1, 10))), "==", ta.G(1))
    assert v.status is False


def test_certified_cover_or_undecided_is_never_false_for_true_claim():
    v = ta.verify(ta.Max(ta.G(1), ta.G(2)), ">=", ta.G(2))
    assert v.status is not False
    assert "undecided on [0, " in v.evidence or v.status is True


# -- scalar claims ------------------------------------------------------------------------------
def test_scalar_claims():
    assert ta.verify(R(1, 3), "<=", R(1, 2)).status is True
    assert ta.verify(R(1, 2), "<=", R(1, 3)).status is False
    assert ta.verify(ta.Phi(y), "<=", 1, over={y: (-5, 5)}).status is True
    v = ta.verify(sp.exp(x), ">=", 1 + x + x**2, over={x: (0, 1)})
    assert v.status is False  # e - 3 < 0 at x = 1
    assert ta.verify(sp.exp(x), ">=", 1 + x, over={x: (R(1, 10), 2)}).status is True
    # Dong, Roth & Su, Cor. 1 at mu = eps = 1, against the profile computed by the library
    closed = ta.Phi(-R(1, 2)) - sp.E * ta.Phi(-R(3, 2))
    v = ta.verify(ta.delta(ta.G(1), 1), "==", closed)
    assert v.status is None  # agree, but numbers alone never prove equality
    assert ta.verify(ta.delta(ta.G(1), 1), "<=", closed + R(1, 10**20)).status is True
    assert ta.verify(ta.delta(ta.G(1), 1), ">=", closed + R(1, 10**20)).status is False


def test_scalar_functionals_with_parameters():
    lazy = ta.delta(ta.G(mu), 1)
    assert ta.verify(lazy, "<=", ta.delta(ta.G(mu + 1), 1), over={mu: (R(1, 10), 3)}).status \
        is not False
    v = ta.verify(lazy, ">=", ta.delta(ta.G(mu + 1), 1), over={mu: (R(1, 10), 3)})
    assert v.status is False and "mu" in v.counterexample


# -- the Verdict, the CLI, bad input ------------------------------------------------------------
def test_verdict_display():
    v = ta.verify(ta.G(2), ">=", ta.G(1))
    tex = v.latex()
    assert r"G_{2} \ge G_{1}" in tex and r"\text{fails}" in tex and "counterexample" in tex
    assert v._repr_latex_() == tex
    with pytest.raises(TypeError):
        bool(v)


def test_cli_exit_status(capsys):
    assert main(["verify", "G(mu) @ G(nu)", "==", "G(sqrt(mu**2 + nu**2))"]) == 0
    assert main(["verify", "EpsDelta(1, 0)", ">=", "G(1)"]) == 1
    assert main(["verify", "Max(G(1), G(2))", "==", "G(1)"]) == 3
    assert main(["verify", "G(mu)", ">=", "G(mu + 1)", "--over", "mu=0:5"]) == 0
    assert main(["verify", "G(1)", "=<", "G(2)"]) == 2
    assert main(["verify", "G(1)", ">=", "G(2)", "--over", "mu0:5"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "NAME=LO:HI" in err


def test_bad_input_names_the_parameter():
    with pytest.raises(ta.InvalidParameter, match="rel"):
        ta.verify(ta.G(1), "<", ta.G(2))
    with pytest.raises(ta.InvalidParameter, match="rhs"):
        ta.verify(ta.G(1), "==", 1)
    with pytest.raises(ta.InvalidParameter, match="over"):
        ta.verify(ta.G(mu), "==", ta.G(1), over={nu: (0, 1)})
    with pytest.raises(ta.InvalidParameter, match="dps"):
        ta.verify(ta.G(1), "==", ta.G(1), dps=0)


def test_global_precision_untouched():
    before = mpmath.mp.prec
    ta.verify(ta.G(1), ">=", ta.EpsDelta(1, R(1, 2)))
    assert mpmath.mp.prec == before


def test_mpf_parameters_are_exact():
    with mpmath.workdps(40):
        d = mpmath.mpf(1) / 7
    q = ta.EpsDelta(1, d).args[1]
    man, exp = d.man_exp
    assert q == sp.Integer(man) * sp.Integer(2) ** exp


# -- monotonicity is sound -----------------------------------------------------------------------
@pytest.mark.parametrize("big,small", [
    (ta.G(1), ta.G(1) @ ta.G(R(1, 2))),
    (ta.C(R(1, 4), ta.G(1)), ta.C(R(1, 2), ta.G(1))),
    (ta.EpsDelta(R(1, 2), R(1, 10)) ** 2, ta.EpsDelta(R(1, 2), R(1, 10)) ** 3),
    (ta.Inverse(ta.Laplace(1)), ta.Inverse(ta.Laplace(2))),
])
def test_monotonicity_proofs_agree_with_numbers(big, small):
    v = ta.verify(big, ">=", small)
    assert v.status is True
    for a in (R(1, 100), R(1, 10), R(1, 3), R(7, 10)):
        assert ta.evaluate(big, a, dps=20).hi >= ta.evaluate(small, a, dps=20).lo
