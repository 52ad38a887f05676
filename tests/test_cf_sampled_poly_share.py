"""The approximation's share of the exactly summed part of a subsampled Laplace power
(``numeric.cf_sampled_poly.PolyExactPart``), made finer where it is above the tolerance asked:
delta(1) = 6.4e-9 of AddRemove(Mix(L_3, 1/100))^10 was 1.6e-7 wide with a ToleranceWarning at
tol = 1e-9 (its share 8e-8 of the value). References: dp_accounting's optimistic/pessimistic
bracket at grid 1e-5 (another method), the looser tolerance's certified enclosure (which must
hold the tighter one), and the part's own ball at the default target."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import sampled_laplace_law
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_sampled_poly import (
    PolyExactPart,
    share_absolute,
    share_relative,
)


def _hull():
    return ta.laplace_mechanism(3, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 10


def test_small_delta_meets_tight_tolerance():
    f = _hull()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning: the tolerance is met)
        with ta.pld_options(tol=1e-9), ta.time_limit(120):
            v = ta.delta(f, 1, dps=20)
    assert v.guarantee == "certified"
    lo, hi = (float(x) for x in v.interval())
    assert 0 < hi - lo <= 1e-9 * hi
    with ta.pld_options(tol=1e-6), ta.time_limit(120):
        loose = ta.delta(f, 1, dps=20)
    llo, lhi = (float(x) for x in loose.interval())
    assert llo <= lo and hi <= lhi
    refs = pytest.importorskip("references.audit6_refs")
    pytest.importorskip("dp_accounting")
    a, b = refs.pld_delta_pair(refs.sampled_laplace_plds(1 / 3.0, 0.01, 10, 1e-5), 1.0)
    assert lo <= b * (1 + 1e-6) + 1e-14 and hi >= a * (1 - 1e-6) - 1e-14


def test_part_finer_inside_coarser():
    """The part at eps = 1 (j < 6 density components of 10 steps): under ``share_relative``
    (delta asked itself) at tol 1e-9 its ball lies inside the default target's and is narrower;
    outside it, or under ``share_absolute`` of the coarse ball's own width, the default target
    stands (a ball as wide, up to the precision it is summed at)."""
    law = sampled_laplace_law(Fraction(3), Fraction(1, 100), "remove")
    with working_precision(64):
        with ta.pld_options(tol=1e-3), share_relative():
            coarse = PolyExactPart(law, 10, 6).terms(1.0, derivative=False)[0]
        with ta.pld_options(tol=1e-9):
            plain = PolyExactPart(law, 10, 6).terms(1.0, derivative=False)[0]
            with share_relative():
                fine = PolyExactPart(law, 10, 6).terms(1.0, derivative=False)[0]
            with share_absolute(float(coarse.rad())), share_relative():
                same = PolyExactPart(law, 10, 6).terms(1.0, derivative=False)[0]
    assert coarse.contains(fine) and fine.rad() < coarse.rad() / 100
    assert fine.rad() <= 1e-9 / 4 * float(fine.mid())
    for b in (plain, same):
        assert b.rad() > 100 * fine.rad() and b.overlaps(fine)
