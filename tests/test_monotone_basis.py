"""The order route of verify (verify/monotone.py) records the cited steps it uses in the
verdict's basis, and only those of the branch that proves the claim."""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace

e1, e2, d1, d2, mu, h = sp.symbols("e1 e2 d1 d2 mu h", nonnegative=True)


def _steps(fn) -> tuple[object, list[str]]:
    with trace.basis() as events:
        v = fn()
    return v, [f"{e[1].name} [{e[1].cite}]" for e in events if e[0] == "rule"]


def test_basic_composition_is_cited():
    v, names = _steps(lambda: ta.verify(ta.EpsDelta(e1, d1) @ ta.EpsDelta(e2, d2), ">=",
                                        ta.EpsDelta(e1 + e2, d1 + d2),
                                        over={e1: (0, 3), e2: (0, 3), d1: (0, 1), d2: (0, 1)}))
    assert v.status is True
    assert any("basic composition" in n and "Dwork, Sec. 4.1" in n for n in names)


def test_operator_monotonicity_is_cited_and_failed_branches_are_not():
    v, names = _steps(lambda: ta.verify(ta.Laplace(1) @ ta.G(mu), ">=",
                                        ta.Laplace(1) @ ta.G(mu + h),
                                        over={mu: (0, 3), h: (0, 3)}))
    assert v.status is True
    assert any("operators are monotone" in n for n in names)
    assert not any("basic composition" in n or "Group" in n for n in names)


def test_a_claim_that_is_not_proved_records_no_step():
    v, names = _steps(lambda: ta.verify(ta.G(1), ">=", ta.G(2) @ ta.Laplace(1)))
    assert v.status is True  # G_2 (x) L_1 <= G_2 <= G_1 by the order structure
    assert any("f (x) g <= f" in n for n in names)
    v, names = _steps(lambda: ta.verify(ta.G(2), ">=", ta.G(1)))
    assert v.status is False
    assert not any("Id is the greatest" in n or "operators are monotone" in n for n in names)
