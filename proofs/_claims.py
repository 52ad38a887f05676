"""The registry of the seed papers' claims, each stated as a call to ``ta.verify``.

Three kinds of entries:

* :func:`stated` — the claim as printed, a function returning a ``Verdict`` (or a list of
  them: the claim at several parameter points or in several parts; all must hold). Optionally
  a ``crosscheck``: an independent reference computation (quadrature, brute-force
  Neyman-Pearson, exact envelopes) returning a :class:`Check`, which confirms the library's
  numbers behind the verdict.
* :func:`misprint` — a printed statement that is false: the printed form must be refuted
  (False, with its counterexample) and the corrected form must hold.
* :func:`not_stated` — a checkable claim the library cannot express yet; ``needs`` names the
  missing feature, so the gap stays visible.

Statuses: ``"holds"``, ``"fails as printed"``, ``"fails"``, ``"undecided"`` (the verifier
found neither a proof nor a counterexample), ``"not stated"``, ``"error"`` (an exception, or
a cross-check that disagrees).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Check", "Claim", "CLAIMS", "claim", "stated", "misprint", "not_stated", "run_all",
           "Result"]


@dataclass(frozen=True)
class Check:
    """The outcome of an independent cross-check."""

    status: str  # "holds" or "fails"
    evidence: str


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


@dataclass
class Result:
    claim: Claim
    status: str
    method: str
    evidence: str
    seconds: float = 0.0
    verdicts: list = field(default_factory=list)

    def as_json(self) -> dict:
        c = self.claim
        return {"paper": c.paper, "locator": c.locator, "statement": c.statement,
                "status": self.status, "method": self.method, "evidence": self.evidence,
                "seconds": round(self.seconds, 3)}


CLAIMS: list[Claim] = []


def stated(paper: str, locator: str, statement: str, verdicts: Callable[[], Any], *,
           crosscheck: Callable[[], Check] | None = None) -> None:
    """Register a claim; ``verdicts()`` returns a Verdict or a list of Verdicts."""
    CLAIMS.append(Claim(paper, locator, statement, verdicts=verdicts, crosscheck=crosscheck))


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


def check_one(c: Claim) -> Result:
    try:
        if c.needs:
            return Result(c, "not stated", "", f"needs {c.needs}")
        vs = _as_list(c.verdicts())
        st, method, ev = _summary(vs)
        if c.printed is not None:
            ps = _as_list(c.printed())
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
        else:
            status = {True: "holds", False: "fails", None: "undecided"}[st]
        if c.crosscheck is not None and status in ("holds", "undecided"):
            chk = c.crosscheck()
            ev += f". Cross-check: {chk.evidence}"
            if chk.status != "holds":
                status = "error"
        return Result(c, status, method, ev, verdicts=vs)
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
    return out
