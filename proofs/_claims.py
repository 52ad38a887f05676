"""A tiny registry of paper claims and their numeric checks."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Check", "Claim", "CLAIMS", "claim", "run_all"]


@dataclass(frozen=True)
class Check:
    """The outcome of checking one claim."""

    status: str  # "holds", "fails", "fails as printed"
    evidence: str


@dataclass(frozen=True)
class Claim:
    paper: str
    locator: str
    statement: str
    func: Callable[[], Check]


CLAIMS: list[Claim] = []


def claim(paper: str, locator: str, statement: str):
    """Register a claim check ``func() -> Check``."""

    def deco(func: Callable[[], Check]) -> Callable[[], Check]:
        CLAIMS.append(Claim(paper, locator, statement, func))
        return func

    return deco


def run_all(verbose: bool = True) -> list[tuple[Claim, Check, float]]:
    """Check every registered claim; print one block per claim."""
    out = []
    for c in CLAIMS:
        t0 = time.perf_counter()
        try:
            chk = c.func()
        except Exception as exc:  # a crash is a failed check, reported as such
            chk = Check("error", f"{type(exc).__name__}: {exc}")
        dt = time.perf_counter() - t0
        out.append((c, chk, dt))
        if verbose:
            print(f"[{chk.status}] {c.paper}, {c.locator}: {c.statement}  ({dt:.1f} s)")
            print(f"    {chk.evidence}")
    return out
