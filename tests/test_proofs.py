"""The seed papers' claims (``python -m proofs --json``): statuses, basis and scope.

The default run states the claims of one short paper (Dwork & Roth's) and checks the basis
machinery on a fast subset of Dong, Roth & Su's claims; the whole run of every paper (about
7 minutes on two shared cores, with the misprints of Dong, Roth & Su and the box covers
below) runs with ``TA_PROOFS_FULL=1``, as ``.ci/run`` does after the suite."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

import proofs
import tradeoff_algebra as ta
from proofs._claims import CLAIMS, STATUSES, check_one
from proofs.basis import Item, locators, matches_claim, paper_id, trace

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"paper", "locator", "statement", "status", "method", "evidence", "basis", "scope",
        "seconds"}
# The misprints found in Dong, Roth & Su (proofs/drs_counterexamples.md): the printed form is
# refuted with a certified counterexample and the corrected form is proved. (Cor. 4 is refuted
# through the PLD engine's delta of C_p(G_1)^{(x) 25600}, a float64 bound that is an estimate:
# undecided until that route is certified, and its evidence says so.)
DRS_MISPRINTS = ("Cor. 3, Eq. (14)", "Prop. 7 (remark)")
ESTIMATE_ONLY = ("Cor. 4",)
# Claims the library implements as printed (its rule or closed form is the claim), confirmed by
# a certified independent route.
DRS_CONFIRMED = ("Cor. 2", "Thm. 3", "Prop. 6 / Cor. 1", "Lemma 3", "Eq. (10)", "Eq. (11)",
                 "Sec. 3.1 (Kairouz et al.)")
PROVED_STATUSES = ("proved", "confirmed", "holds at the stated instances")

FULL = os.environ.get("TA_PROOFS_FULL") == "1"
proofs.load_all()


def _run_json(which):
    out = subprocess.run([sys.executable, "-m", "proofs", "--json", *which], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-5000:]
    return json.loads(out.stdout), out.stderr


def _no_self_proof(results):
    """No claim is proved (or holds at instances) with itself in its basis."""
    for r in results:
        if r["status"] in ("proved", "holds at the stated instances"):
            own = [b for b in r["basis"]
                   if matches_claim(Item(b["kind"], b["name"], b.get("cite", ""),
                                         paper_id(b.get("cite", "x"))), r["paper"],
                                    r["locator"])]
            assert not own and "circular" not in r, r


def test_python_m_proofs_json():
    results, err = _run_json([] if FULL else ["--paper", "Dwork"])
    assert isinstance(results, list)
    assert len(results) >= 15  # other claims modules add more; never fewer than these
    for r in results:
        assert KEYS <= set(r), r
        assert r["status"] in STATUSES, r
        for b in r["basis"]:
            assert {"kind", "name"} <= set(b), b
        if r["status"] in PROVED_STATUSES:
            assert r["basis"], r  # a verdict that holds says what it rests on
            assert r["scope"].get("boxes") or r["scope"].get("instances"), r
        if r["status"] == "not stated":
            assert r["scope"]["missing"], r
        if r["status"] == "confirmed":  # circular, confirmed by a certified independent route
            assert r["circular"] and r["crosscheck"]["certified"], r
            assert r["crosscheck"]["status"] == "holds" and r["crosscheck"]["basis"], r
    _no_self_proof(results)
    bad = [r for r in results if r["status"] in ("fails", "error")]
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)
    assert "claims:" in err and " s" in err  # the closing counts and time, per paper
    if not FULL:
        assert all("Dwork" in r["paper"] for r in results)
        # the Gaussian mechanism's expected loss mu^2/2 is the library's closed form of kl:
        # not a proof, confirmed by exact integration of the densities
        mean = [r for r in results if r["locator"] == "Sec. 4.2 text (mean of the loss)"]
        assert mean and mean[0]["status"] == "confirmed", mean
        return
    for locator in DRS_MISPRINTS:  # other modules may state further parts of the same locator
        found = [r["status"] for r in results
                 if r["paper"] == "Dong, Roth & Su" and r["locator"] == locator]
        assert "fails as printed" in found, (locator, found)
    for locator in ESTIMATE_ONLY:
        found = [r for r in results
                 if r["paper"] == "Dong, Roth & Su" and r["locator"] == locator]
        assert found and all(r["status"] in ("fails as printed", "undecided") for r in found)
        assert all("estimate" in r["evidence"] for r in found if r["status"] == "undecided")
    for locator in DRS_CONFIRMED:
        found = [r for r in results
                 if r["paper"] == "Dong, Roth & Su" and r["locator"] == locator]
        assert found and all(r["status"] == "confirmed" for r in found), (locator, found)
    auc = [r for r in results if r["locator"] == "AUC of the Gaussian mechanism"]
    assert auc and auc[0]["status"] == "confirmed", auc


# -- the basis machinery, on fast claims --------------------------------------------------------
def test_locators_and_papers_normalise():
    assert locators("Corollary 2") == locators("Cor. 2") == {("cor", "2")}
    assert locators("Prop. 6 / Cor. 1") == {("prop", "6"), ("cor", "1")}
    assert locators("Eqs. (10) and (11)") == {("eq", "10"), ("eq", "11")}
    assert locators("Theorem 5.1") == {("thm", "5.1")}
    assert paper_id("DRS") == paper_id("Dong, Roth & Su") == "dong"
    it = Item("rule", "gaussian_tensor", "Dong, Roth & Su, Corollary 2", "dong")
    assert matches_claim(it, "Dong, Roth & Su", "Cor. 2")
    assert not matches_claim(it, "Dong, Roth & Su", "Cor. 1")
    assert not matches_claim(it, "Wang et al.", "Cor. 2")


def test_trace_records_rules_and_closed_forms_and_restores():
    mu, nu = sp.symbols("mu nu", positive=True)
    with trace() as used:
        ta.verify(ta.G(mu) @ ta.G(nu), "==", ta.G(sp.sqrt(mu**2 + nu**2)))
        ta.delta(ta.G(1), 1)
    names = {(i.kind, i.name, i.cite) for i in used}
    assert ("rule", "gaussian_tensor", "Dong, Roth & Su, Cor. 2") in names
    assert any(k == "closed form" and c == "Dong, Roth & Su, Cor. 1" for k, _, c in names)
    # outside the block nothing is recorded and the library's functions are the originals
    from tradeoff_algebra.core import rules as core_rules
    simplify_module = sys.modules["tradeoff_algebra.rewrite.simplify"]
    assert simplify_module.rules_for is core_rules.rules_for


def _claim(paper, locator):
    return next(c for c in CLAIMS if c.paper == paper and c.locator == locator)


@pytest.mark.parametrize("locator", ["Cor. 2", "Thm. 3"])
def test_circular_claim_is_confirmed_not_proved(locator):
    """The rule that decides Cor. 2 (Thm. 3) cites Cor. 2 (Thm. 3): the verdict is not a proof;
    the certified cross-check (2-D Neyman-Pearson by Arb integration; k steps of 1 - G_mu on
    certified intervals) confirms it without passing through the rule."""
    r = check_one(_claim("Dong, Roth & Su", locator))
    assert r.status == "confirmed", r.evidence
    assert r.circular and all(locators(locator) & locators(i.cite) for i in r.circular)
    assert r.check.certified and r.check.status == "holds"
    assert "box" not in r.scope or r.scope["boxes"]


def test_crosscheck_through_its_own_rule_is_an_error():
    """A cross-check that evaluates Group(G_mu, k) through the library rewrites it to G_{k mu}
    (the rule under test): the run reports an error, never a confirmation."""
    from proofs._claims import Check, Claim

    def empty_check():
        a = ta.evaluate(ta.Group(ta.G(1), 3), sp.Rational(1, 3))
        b = ta.evaluate(ta.G(3), sp.Rational(1, 3))
        return Check("holds", f"{a} vs {b}", True)

    c = _claim("Dong, Roth & Su", "Thm. 3")
    r = check_one(Claim(c.paper, c.locator, c.statement, verdicts=c.verdicts,
                        crosscheck=empty_check))
    assert r.status == "error" and "passes through the rule it checks" in r.evidence


def test_instances_and_proved_claims():
    """A claim decided at its stated instances is reported as such; one decided for every
    parameter from rules that do not cite it is proved, with a box scope."""
    r = check_one(next(c for c in CLAIMS if c.paper == "Dwork" and c.locator == "Sec. 2 text"
                       and "replace-one vs add/remove" in c.statement))
    assert r.status == "holds at the stated instances", r.evidence
    assert r.scope["instances"] >= 1 and "boxes" not in r.scope
    p = check_one(_claim("Dwork", "Def. 2.1, Eq. (2.1)"))
    assert p.status == "proved" and p.scope["boxes"] and not p.circular
    assert p.basis


# -- inequality claims proved on parameter boxes by certified covers (each tens of seconds) --
BOX_CLAIMS = [("Dong, Roth & Su", "Thm. 5, Eq. (9)", "lower side", {"y": ["1/4", "1/2"]}),
              ("Dong, Roth & Su", "Thm. 5, Eq. (9)", "upper side",
               {"y": ["1/4", "1/2"], "s": ["0", "1"]}),
              ("Wang et al.", "Thm. 5.1", "unclipped", {"a": ["1/2", "3/2"], "t": ["-2", "0"]}),
              ("Kaissis et al.", "Cor. 11, Eq. (29)", "GM is",
               {"delta": ["1/1000000000000", "99/100"], "u": ["1/2000", "14985"]}),
              ("Dwork", "Thm. 4.1, Eq. (4.2)", "on the box",
               {"delta": ["0", "1/100"], "deltap": ["1/100", "1/10"], "x": ["2", "3"]})]


@pytest.mark.skipif(not FULL, reason="certified covers of boxes: set TA_PROOFS_FULL=1")
@pytest.mark.parametrize("paper, locator, words, box", BOX_CLAIMS)
def test_inequality_claims_proved_on_boxes(paper, locator, words, box):
    c = next(c for c in CLAIMS if c.paper.startswith(paper.split()[0]) and c.locator == locator
             and words in c.statement)
    r = check_one(c)
    assert r.status == "proved", r.evidence
    assert box in r.scope["boxes"], r.scope
    assert "cover" in r.evidence and not r.circular
    assert any(b.kind == "computation" for b in r.basis)
