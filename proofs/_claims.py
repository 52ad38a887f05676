"""The registry of the seed papers' claims, each stated as a call to ``ta.verify``.

Three kinds of entries:

* :func:`stated` — the claim as printed, a function returning a ``Verdict`` (or a list of
  them: the claim at several parameter points or in several parts; all must hold). Optionally
  a ``crosscheck``: an independent reference computation (brute-force Neyman-Pearson, Arb
  quadrature, exact envelopes) returning a :class:`Check`, which confirms the library's
  numbers behind the verdict by a route that does not pass through the rule it checks.
* :func:`misprint` — a printed statement that is false: the printed form must be refuted
  (False, with its counterexample) and the corrected form must hold.
* :func:`not_stated` — a checkable claim the library cannot express yet; ``needs`` names the
  missing feature, so the gap stays visible.

Every result records its **basis** (the rules, closed forms, routes and computations its
verdicts used, each with its citation: :mod:`proofs.basis`) and its **scope** (the parameter
boxes its verdicts cover, and the instances). Statuses:

* ``"proved"``: every verdict True, from sound rules, definitions and other results or a
  certified computation over the whole stated domain (or the claim is about the stated objects
  themselves); the basis does not contain the claim itself;
* ``"confirmed"``: the basis contains the claim (the library implements it as printed), and an
  independent certified route (:class:`Check` with ``certified=True``) agrees, over a parameter
  box or at stated points;
* ``"implemented, unconfirmed"``: the basis contains the claim and no certified independent
  route confirms it (a gap to close);
* ``"holds at the stated instances"``: proved at the instances the registry names, where the
  printed claim is more general;
* ``"fails as printed"`` (with the corrected form, which holds), ``"not stated"`` (naming the
  missing feature), ``"undecided"``, ``"fails"``, ``"error"`` (an exception, or a cross-check
  that disagrees or passes through the rule it checks).

No status rests on a tolerance: a verdict is True only with a proof or certified enclosures, and
a cross-check confirms only with certified (Arb or exact) enclosures.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .basis import Item, circular_items, trace, verdict_basis, verdict_scope

__all__ = ["Check", "Claim", "CLAIMS", "claim", "stated", "misprint", "not_stated", "run_all",
           "Result", "STATUSES"]

#: Every status, in the order of the closing summary.
STATUSES = ("proved", "confirmed", "holds at the stated instances", "fails as printed",
            "not stated", "implemented, unconfirmed", "undecided", "fails", "error")


@dataclass(frozen=True)
class Check:
    """The outcome of an independent cross-check.

    ``certified``: the comparison is between certified (Arb or exact) enclosures, so an
    agreement confirms; otherwise it is evidence only. ``basis``: what the reference computes
    with (never the rule it checks); ``scope``: the parameter points or box it covers."""

    status: str  # "holds" or "fails"
    evidence: str
    certified: bool = False
    basis: tuple[str, ...] = ()
    scope: str = ""


@dataclass(frozen=True)
class Claim:
    paper: str
    locator: str
    statement: str
    verdicts: Callable[[], Any] | None = None
    printed: Callable[[], Any] | None = None
    corrected: str = ""
    needs: str = ""
    crosscheck: Callable[[], Check] | None = None
    instances: bool | None = None
    also: str = ""  # other locators where the paper states the same result


@dataclass
class Result:
    claim: Claim
    status: str
    method: str
    evidence: str
    seconds: float = 0.0
    verdicts: list = field(default_factory=list)
    basis: list = field(default_factory=list)
    scope: dict = field(default_factory=dict)
    circular: list = field(default_factory=list)
    check: Check | None = None

    def as_json(self) -> dict:
        c = self.claim
        out = {"paper": c.paper, "locator": c.locator, "statement": c.statement,
               "status": self.status, "method": self.method, "evidence": self.evidence,
               "basis": [it.as_json() for it in self.basis], "scope": self.scope,
               "seconds": round(self.seconds, 3)}
        if self.circular:
            out["circular"] = [it.as_json() for it in self.circular]
        if self.check is not None:
            out["crosscheck"] = {"status": self.check.status, "certified": self.check.certified,
                                 "basis": list(self.check.basis), "scope": self.check.scope,
                                 "evidence": self.check.evidence}
        return out


CLAIMS: list[Claim] = []


def stated(paper: str, locator: str, statement: str, verdicts: Callable[[], Any], *,
           crosscheck: Callable[[], Check] | None = None, instances: bool | None = None,
           also: str = "") -> None:
    """Register a claim; ``verdicts()`` returns a Verdict or a list of Verdicts.

    ``instances``: True when the verdicts cover only instances of a more general printed claim,
    False when the claim is about the stated objects themselves; None infers it (verdicts
    without free parameters and a statement naming its instances: "at ...", "points").
    ``also``: other locators where the paper states the same result (matched, like the
    locator, against the citations of the basis)."""
    CLAIMS.append(Claim(paper, locator, statement, verdicts=verdicts, crosscheck=crosscheck,
                        instances=instances, also=also))


def misprint(paper: str, locator: str, statement: str, printed: Callable[[], Any],
             corrected: Callable[[], Any], correction: str) -> None:
    """Register a printed statement that fails: ``printed()`` must be refuted, ``corrected()``
    must hold; ``correction`` states the corrected form in words."""
    CLAIMS.append(Claim(paper, locator, statement, verdicts=corrected, printed=printed,
                        corrected=correction))


def not_stated(paper: str, locator: str, statement: str, needs: str) -> None:
    """Register a claim the library cannot state yet."""
    CLAIMS.append(Claim(paper, locator, statement, needs=needs))


def claim(paper: str, locator: str, statement: str):
    """Decorator form of :func:`stated` for a function returning Verdicts."""

    def deco(func: Callable[[], Any]) -> Callable[[], Any]:
        stated(paper, locator, statement, func)
        return func

    return deco


def _as_list(v: Any) -> list:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _summary(vs: list) -> tuple[bool | None, str, str]:
    """The combined status of several verdicts: False if one fails, True if all hold."""
    if any(v.status is False for v in vs):
        bad = next(v for v in vs if v.status is False)
        return False, bad.method, f"{bad.evidence}; counterexample {_ce(bad)}"
    if all(v.status is True for v in vs):
        methods = sorted({v.method for v in vs})
        return True, ", ".join(methods), "; ".join(dict.fromkeys(v.evidence for v in vs))[:400]
    und = next(v for v in vs if v.status is None)
    return None, und.method, und.evidence


def _ce(v: Any) -> str:
    ce = v.counterexample or {}
    return ", ".join(f"{k} = {x}" for k, x in ce.items())


# A statement that names its instances: "at e^eps in {1, 2}", "at (mu, eps) = ...", "at n = 5",
# "at 6 points", "instances".
_INSTANCE_WORDS = re.compile(r"\bat\b(?! alpha)[^;]*?(=|\bin \{|\bin \[)|\bpoints?\b|\binstances?\b"
                             r"|\bat (?:finite|several|two|three|four|five|six)\b")


def _scope(vs: list) -> dict:
    boxes, inst = [], []
    for v in vs:
        sc = verdict_scope(v)
        if "box" in sc:
            if sc["box"] not in boxes:
                boxes.append(sc["box"])
        else:
            inst.append(sc["instance"])
    out: dict = {}
    if boxes:
        out["boxes"] = boxes
    if inst:
        out["instances"] = len(inst)
        out["instance_examples"] = list(dict.fromkeys(inst))[:3]
    return out


def _only_instances(c: Claim, scope: dict) -> bool:
    if c.instances is not None:
        return c.instances
    return "boxes" not in scope and bool(_INSTANCE_WORDS.search(c.statement))


def _basis(vs: list, traced: list[Item]) -> list[Item]:
    out: list[Item] = []
    for v in vs:
        out += verdict_basis(v, traced)
    return list(dict.fromkeys(out))


def _where(c: Claim) -> str:
    return f"{c.locator}; {c.also}" if c.also else c.locator


def _run_check(c: Claim) -> tuple[Check, list[Item]]:
    """The cross-check, traced: the rules it passed through that cite the claim."""
    with trace() as used:
        chk = c.crosscheck()
    own = circular_items([], list(used), c.paper, _where(c))
    return chk, own


def check_one(c: Claim) -> Result:
    try:
        if c.needs:
            return Result(c, "not stated", "", f"needs {c.needs}",
                          scope={"missing": c.needs})
        with trace() as traced:
            vs = _as_list(c.verdicts())
        basis = _basis(vs, traced)
        scope = _scope(vs)
        st, method, ev = _summary(vs)
        circ = circular_items(vs, basis, c.paper, _where(c)) if st is True else []
        if c.printed is not None:
            with trace() as ptraced:
                ps = _as_list(c.printed())
            basis = list(dict.fromkeys(basis + _basis(ps, ptraced)))
            pst, pmethod, pev = _summary(ps)
            if pst is False and st is True:
                status = "fails as printed"
                method = f"{pmethod} / {method}"
                ev = f"printed form refuted: {pev}. Corrected ({c.corrected}) holds: {ev}"
            elif pst is True:
                status, ev = "error", f"the printed form was expected to fail but holds: {pev}"
            else:
                status = "fails" if st is False else "undecided"
                ev = f"printed: {pev}; corrected ({c.corrected}): {ev}"
        elif st is True:
            if circ:
                status = "implemented, unconfirmed"
                ev += (". Not a proof: the basis contains the claim itself ("
                       + "; ".join(f"{it.name} [{it.cite}]" if it.cite else it.name
                                   for it in circ) + ")")
            elif _only_instances(c, scope):
                status = "holds at the stated instances"
            else:
                status = "proved"
        else:
            status = {False: "fails", None: "undecided"}[st]
        chk = None
        if c.crosscheck is not None and status not in ("fails", "error"):
            chk, own = _run_check(c)
            ev += f". Cross-check: {chk.evidence}"
            if own:
                status = "error"
                ev += (" [the cross-check passes through the rule it checks: "
                       + ", ".join(it.name for it in own) + "]")
            elif chk.status != "holds":
                status = "error"
            elif status == "implemented, unconfirmed" and chk.certified:
                status = "confirmed"
        return Result(c, status, method, ev, verdicts=vs, basis=basis, scope=scope,
                      circular=circ, check=chk)
    except Exception as exc:  # a crash is reported as such, never hidden
        return Result(c, "error", "", f"{type(exc).__name__}: {exc}")


def run_all(verbose: bool = True, select: Callable[[Claim], bool] | None = None) -> list[Result]:
    """Check every registered claim; print one block per claim."""
    out = []
    for c in CLAIMS:
        if select is not None and not select(c):
            continue
        t0 = time.perf_counter()
        r = check_one(c)
        r.seconds = time.perf_counter() - t0
        out.append(r)
        if verbose:
            print(f"[{r.status}] {c.paper}, {c.locator}: {c.statement}  ({r.seconds:.1f} s)")
            print(f"    {r.method}: {r.evidence}" if r.method else f"    {r.evidence}")
            cited = [it.cite for it in r.basis if it.cite]
            if cited:
                print("    basis: " + "; ".join(dict.fromkeys(cited)))
    return out
