"""benchmarks/bench_issue29.py end to end on its smallest row, its check and its shuffle
reference against the library's exact small-n pair (no timing assertions)."""

from __future__ import annotations

import math
import os
import sys
from fractions import Fraction

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import bench_issue29 as b29  # noqa: E402
from _report import Report  # noqa: E402


def test_check_names_how_an_enclosure_meets_its_reference():
    ref = {"name": "r", "lo": 1.0, "hi": 1.0, "kind": "estimate", "acc": 1e-8}
    assert b29.check({"lo": 0.5, "hi": 1.5}, ref) == "contains"
    assert b29.check({"lo": 1.0 + 1e-10, "hi": 1.1}, ref).startswith("within 1.0e-10")
    assert b29.check({"lo": 1.1, "hi": 1.2}, ref).startswith("**OFF by")
    wide = {"name": "r", "lo": 0.0, "hi": 2.0, "kind": "bracket", "acc": 0.0}
    assert b29.check({"lo": 0.5, "hi": 1.5}, wide) == "inside"
    assert b29.check({"error": "x"}, ref) == "not checked"


def test_shuffle_reference_matches_the_exact_pair():
    # the float64 log-space sum of the closed form against the library's exact rationals
    # (the pair enumerated, families/shuffle_pair.py) at n = 30, eps0 = 2, eps = 1/2
    n, eps0 = 30, 2
    got = b29.shuffle_delta_ref(float(eps0), n, 0.5)
    v = ta.delta(ta.ShuffleDP(eps0, n), sp.Rational(1, 2), dps=30)
    with mp.workdps(30):
        exact = float((v.lo + v.hi) / 2)
        assert float((v.hi - v.lo) / v.hi) < 1e-20
    assert math.isclose(got, exact, rel_tol=1e-12)


def test_one_row_end_to_end_with_its_reference():
    row = b29.run_row("shuffle_delta", quick=True, timeout=300)
    assert "error" not in row, row
    (ours,) = row["ours"]
    assert ours["guarantee"] == "certified"
    ref = row["ref"]
    # ours certified to 30 digits; the reference a float64 sum of the closed form
    assert ref["lo"] > 0 and abs(ours["lo"] - ref["lo"]) <= 1e-8 * ref["lo"]
    assert b29.check(ours, ref) in ("contains", "intersects") or \
        b29.check(ours, ref).startswith("within")
    assert Fraction(ours["lo"]) <= Fraction(ours["hi"])
    R = Report()
    b29.render(R, [row])
    text = "\n".join(R.rows)
    assert row["title"] in text and "no peer" in text


def test_a_failing_row_is_recorded_not_raised():
    b29.ROWS["_broken"] = (lambda quick: 1 / 0, False)
    try:
        row = b29.run_row("_broken", quick=True, timeout=60)
    finally:
        del b29.ROWS["_broken"]
    # the row's own process cannot see the entry added here: it fails naming the row
    assert "error" in row and row["title"] == "_broken"


def test_scaling_reference_of_randomized_response_matches_the_exact_route():
    # bench_scaling.rr_delta (the binomial sum in mpmath) against the library's exact
    # composition of f_{1/10,0}^{(x) 7} at eps = 3/10
    import bench_scaling as bs

    v = ta.delta(ta.EpsDelta(sp.Rational(1, 10), 0) ** 7, sp.Rational(3, 10), dps=30)
    got = bs.rr_delta(7, "0.3")
    with mp.workdps(40):
        lo, hi = v.interval()
        assert lo <= mp.mpf(str(got)) * (1 + mp.mpf(10) ** -25)
        assert mp.mpf(str(got)) <= hi * (1 + mp.mpf(10) ** -25)


def test_the_scaling_exponents_are_copied_with_their_run_line(tmp_path):
    path = tmp_path / "RESULTS_scaling.md"
    path.write_text("# Scaling\n\n2026-01-01, `x`; more\n\n## Fitted exponents\n\n| a | b |\n"
                    "|---|---|\n| k | 0.5 |\n")
    R = Report()
    b29.scaling_exponents(R, str(path))
    text = "\n".join(R.rows)
    assert "2026-01-01, `x`" in text and "| k | 0.5 |" in text
    R2 = Report()
    b29.scaling_exponents(R2, str(tmp_path / "missing.md"))
    assert R2.rows == []
