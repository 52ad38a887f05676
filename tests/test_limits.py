"""ta.Limit and ta.verify_limit: limits proved by SymPy or by the CLTs of Dong, Roth & Su with
their hypotheses checked; never True for a false claim, never False for a true one.

References: classical limits ((1 + 1/n)^n -> e, 1 - (1 - d/n)^n -> 1 - e^-d), the exact
identity G_{1/sqrt(n)}^{(x) n} = G_1 (Dong, Roth & Su, Cor. 2), the small-eps expansions
kl(f_{eps,0}) = eps tanh(eps/2) ~ eps^2/2 and kappa_2 = eps^2 (so 2K/s = mu), and the
certified evidence recomputed with the thread-private mpmath context.
"""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace
from tradeoff_algebra.numeric.context import mp

R = sp.Rational
n = sp.Symbol("n", positive=True, integer=True)
mu = sp.Symbol("mu", positive=True)
d = sp.Symbol("d", positive=True)
psi = sp.Symbol("psi", positive=True)


# -- scalar limits ------------------------------------------------------------------------------
def test_classical_limits():
    v = ta.verify_limit(ta.Limit((1 + 1 / n) ** n, n), "==", sp.E)
    assert v.status is True and v.method == "limit"
    # the evidence at n = 10 is (1 + 1/10)^10 - e, recomputed independently
    with mp.workdps(30):
        ref = (1 + mp.mpf(1) / 10) ** 10 - mp.e
    assert mp.nstr(ref, 5) in v.evidence
    assert "n = 1000" in v.evidence
    assert ta.verify_limit(ta.Limit(1 - (1 - d / n) ** n, n), "==", 1 - sp.exp(-d)).status is True


def test_false_and_undecided():
    v = ta.verify_limit(ta.Limit((1 + 1 / n) ** n, n), "==", 3)
    assert v.status is False and v.counterexample["lhs"] == sp.E
    assert r"\lim_{n \to \infty}" in v.latex() and "fails" in v.latex()
    assert ta.verify_limit(ta.Limit((1 + 1 / n) ** n, n), "<=", 3).status is True
    assert ta.verify_limit(ta.Limit((1 + 1 / n) ** n, n), ">=", 3).status is False
    assert ta.verify_limit(ta.Limit(sp.sin(n), n), "==", 0).status is None  # oscillates


def test_kaissis_auc_limits():
    """AUC of G_psi is Phi(psi/sqrt 2) (Kaissis et al., Lemma 3): -> 1 and -> 1/2."""
    auc = ta.auc(ta.G(psi))
    assert ta.verify_limit(ta.Limit(auc, psi, sp.oo), "==", 1).status is True
    v = ta.verify_limit(ta.Limit(auc, psi, 0), "==", R(1, 2))
    assert v.status is True and "psi = 1/1000" in v.evidence
    assert ta.verify_limit(ta.Limit(auc, psi, 0), "==", 1).status is False
    # a lazy functional with a closed form (delta of G_psi at 0: the TV distance)
    assert ta.verify_limit(ta.Limit(ta.delta(ta.G(psi), 0), psi, 0), "==", 0).status is True


# -- limits of compositions ---------------------------------------------------------------------
def test_thm7_epsdelta():
    lim = ta.Limit(ta.EpsDelta(mu / sp.sqrt(n), 0) ** n, n)
    with trace.basis() as events:
        v = ta.verify_limit(lim, "==", ta.G(mu))
    assert v.status is True and "Thm. 7" in v.method
    assert any(e[0] == "rule" and e[1].name == "clt_epsdelta" for e in events)
    assert "n = 100" in v.evidence and "gamma_n" in v.evidence
    assert ta.verify_limit(lim.xreplace({mu: 1}), "==", ta.G(2)).status is False


def test_thm7_with_delta():
    """sum delta_ni = n (1/10)/n -> 1/10: the limit is G_1 (x) f_{0, 1 - e^{-1/10}}."""
    lim = ta.Limit(ta.EpsDelta(1 / sp.sqrt(n), R(1, 10) / n) ** n, n)
    v = ta.verify_limit(lim, "==", ta.G(1) @ ta.EpsDelta(0, 1 - sp.exp(-R(1, 10))))
    assert v.status is True


def test_thm6_gaussian_array():
    """G_{1/sqrt(n)}^{(x) n} = G_1 for every n (Cor. 2), so the limit is G_1."""
    v = ta.verify_limit(ta.Limit(ta.G(1 / sp.sqrt(n)) ** n, n), "==", ta.G(1))
    assert v.status is True and "Thm. 6" in v.method


def test_hypotheses_not_met():
    # eps does not shrink: sum eps^2 -> oo, the CLT does not apply
    v = ta.verify_limit(ta.Limit(ta.EpsDelta(1, 0) ** n, n), "==", ta.Zero)
    assert v.status is None and "not proved" in v.evidence
    # eps = 1/n: sum eps^2 -> 0, the limit is G_0 = Id (Thm. 7 with mu = 0)
    assert ta.verify_limit(ta.Limit(ta.EpsDelta(1 / n, 0) ** n, n), "==", ta.Id).status is True


@pytest.mark.slow
def test_thm6_laplace_array():
    """kl(L_eps) ~ eps^2/2 and kappa_2(L_eps) ~ eps^2: 2K/s = 1 for L_{1/sqrt(n)}^{(x) n}."""
    v = ta.verify_limit(ta.Limit(ta.Laplace(1 / sp.sqrt(n)) ** n, n), "==", ta.G(1))
    assert v.status is True and "Thm. 6" in v.method


def test_errors():
    with pytest.raises(ta.InvalidParameter, match="var"):
        ta.Limit(1 / n, "n")
    with pytest.raises(ta.InvalidParameter, match="point"):
        ta.Limit(1 / n, n, sp.I)
    with pytest.raises(ta.InvalidParameter, match="value"):
        ta.verify_limit(ta.Limit(ta.G(1 / sp.sqrt(n)) ** n, n), "==", 1)
    with pytest.raises(ta.InvalidParameter, match="rel"):
        ta.verify_limit(ta.Limit(1 / n, n), "<", 0)
    assert str(ta.Limit(1 / n, n)) == "Limit(1/n, n, oo)"
