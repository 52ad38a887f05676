"""delta and eps of products of Laplace factors with different scales (numeric/cf_mixed_split.py),
against the nested mpmath quadrature of tests/references/laplace_mixed.py (an independent route:
the factors' laws conditioned on one by one) and, for equal scales, against the lattice split of
numeric/cf_lattice.py (binomial terms, a different exact sum)."""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import pytest
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric.cf import delta_enclosure
from tradeoff_algebra.numeric.cf_lattice import ExactPart
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_mixed_split import MIXED_SPLIT, mixed_enclosure
from tradeoff_algebra.numeric.context import mp

THREE = (F(1), F(1, 2), F(1, 3))


def _product(mus):
    f = ta.Laplace(mus[0])
    for m in mus[1:]:
        f = f @ ta.Laplace(m)
    return f


def _ref_delta(mus, eps):
    """delta(eps) = Q(L > eps) - e^eps P(L > eps) by the nested quadrature (25 digits)."""
    from references.laplace_mixed import tail

    with mp.workdps(25):
        ms = [mp.mpf(m.numerator) / m.denominator for m in mus]
        e = mp.mpf(eps)
        return tail(ms, True, e) - mp.exp(e) * tail(ms, False, e)


def _certified(v):
    assert v.guarantee == "certified"
    assert MIXED_SPLIT in (v.route or "")
    lo, hi = v.interval()
    return mp.mpf(lo), mp.mpf(hi)


@pytest.mark.parametrize("eps", [pytest.param(0.25, marks=pytest.mark.slow), 1.0, 1.6])
def test_delta_of_three_scales_against_nested_quadrature(eps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ToleranceWarning: the width is met)
        with ta.pld_options(tol=1e-9):
            v = ta.delta(_product(THREE), eps)
    lo, hi = _certified(v)
    ref = _ref_delta(THREE, eps)
    with mp.workdps(25):
        slack = mp.mpf(10) ** -20  # (the reference's digits)
        assert lo - slack <= ref <= hi + slack
        assert hi - lo <= 1e-9 * ref


def test_epsilon_of_three_scales_is_certified_and_bracketed_by_the_quadrature():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(_product(THREE), 1e-6)
    lo, hi = _certified(v)
    assert hi - lo <= 1e-9 * hi
    # delta is non-increasing: the reference's delta at the ends brackets the level
    with mp.workdps(25):
        assert _ref_delta(THREE, float(lo)) >= mp.mpf(1e-6) >= _ref_delta(THREE, float(hi))
        # and the PLD estimate printed before this route (1.83332406 .. 1.83332534) agrees
        assert mp.mpf("1.83332406") <= lo <= hi <= mp.mpf("1.83332534")


@pytest.mark.slow  # (the nested quadrature: about 2 s)
def test_a_power_among_the_factors_against_nested_quadrature():
    mus = (F(1, 2), F(1, 2), F(1, 5))
    f = ta.Laplace(F(1, 2)) ** 2 @ ta.Laplace(F(1, 5))
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, 0.4)
    lo, hi = _certified(v)
    ref = _ref_delta(mus, 0.4)
    with mp.workdps(25):
        assert lo - mp.mpf(10) ** -20 <= ref <= hi + mp.mpf(10) ** -20


@pytest.mark.parametrize("eps", [0.1, 0.7, 1.2])
def test_equal_scales_agree_with_the_lattice_split(eps):
    law = LaplaceLaw(F(1, 2))
    lo, hi = mixed_enclosure([(law, 1), (LaplaceLaw(F(1, 2)), 1), (law, 1)], "delta", eps, eps,
                             1e-12)
    with working_precision(128):
        d = ExactPart(law, 3, 4).terms(eps, derivative=False)[0]
    assert hi - lo <= 1e-11 * hi
    assert d.overlaps(arb(0.5 * (lo + hi), 0.5 * (hi - lo)))
    lo2, hi2 = delta_enclosure([], eps, 1e-12, ExactPart(law, 3, 4))
    assert max(lo, lo2) <= min(hi, hi2)


def test_epsilon_brackets_are_proved_by_the_delta_balls():
    law1, law2 = LaplaceLaw(1), LaplaceLaw(F(1, 3))
    lo, hi = mixed_enclosure([(law1, 1), (law2, 2)], "epsilon", 1e-3, 1e-3, 1e-10)
    assert 0 < lo < hi and hi - lo <= 1e-10 * hi
    d_lo = mixed_enclosure([(law1, 1), (law2, 2)], "delta", lo, lo, 1e-12)
    d_hi = mixed_enclosure([(law1, 1), (law2, 2)], "delta", hi, hi, 1e-12)
    assert d_lo[0] > 1e-3 > d_hi[1]


def test_one_law_is_its_power_closed_form():
    """One law's power is not split into scales: it goes to the piecewise closed form of
    numeric/cf_lattice_profile.py (tested there), and past its table to the other routes."""
    from tradeoff_algebra.numeric.cf_lattice_profile import power_enclosure

    got = mixed_enclosure([(LaplaceLaw(1), 3)], "delta", 0.5, 0.5, 1e-10)
    assert got == power_enclosure([(LaplaceLaw(1), 3)], "delta", 0.5, 0.5, 1e-10)
    assert mixed_enclosure([(LaplaceLaw(1), 40)], "delta", 0.5, 0.5, 1e-10) is None


def test_a_huge_power_is_declined_before_any_list_is_built():
    law = LaplaceLaw(F(1, 10))
    assert mixed_enclosure([(law, 10**9), (LaplaceLaw(F(1, 5)), 1)], "delta", 1.0, 1.0,
                           1e-10) is None
