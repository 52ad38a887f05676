"""The tenth audit of the certified routes: a fixed set of draws of benchmarks/fuzz_routes10.py
as regular tests, and its defects (benchmarks/RESULTS_audit_routes10.md) as strict xfails.

References, each by another route than the code checked (the fuzz's own, imported): the
Poisson-subsampled Laplace hull against dp_accounting's optimistic/pessimistic PLD pair
(``power_bracket``: the power inf over eps in R of delta(eps) + e^eps alpha) and, for one and
two steps, the mpmath quadrature of delta at 30 digits; finite products against exact sums over
their composed atoms in Fraction; discrete Gaussian and discrete Laplace powers and their
products with G_mu and L_mu against 60-digit sums over the lattice with the closed forms of
delta_B."""

from __future__ import annotations

import os
import sys
import time
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import fuzz_routes10 as F  # noqa: E402

import tradeoff_algebra as ta  # noqa: E402

R = sp.Rational
pytest.importorskip("dp_accounting")


def _ask(code: str, tol: float, limit: float = 60.0):
    out, err, wall, cpu, ws = F.ask(code, tol, limit)
    if err is not None:
        raise err
    return out, [w.category for w in ws]


def _certified_in(code, tol, ref):
    v, cats = _ask(code, tol)
    assert v.guarantee in ("certified", "exact"), (code, v, v.route)
    lo, hi = v.interval()
    for r in ref if isinstance(ref, list) else [ref]:
        assert F.meets(lo, hi, r), (code, v, r)
    return v, cats


# ---------------------------------------------------------------------------------------------
# fixed draws: the subsampled Laplace hull
# ---------------------------------------------------------------------------------------------

def test_hull_roc_meets_the_pld_pair():
    b, q, T = Fraction(1, 2), Fraction(1, 100), 10
    code = f"ta.roc(ta.laplace_mechanism({F.rat(b)}, 1, sampling='poisson', p=sp.Rational(1, " \
           f"100))**{T}, sp.Rational(1, 100), dps=9)"
    lo, hi = F.power_bracket(F.hull_plds(b, q, T), 0.01, F._emax(b, T))[:2]
    v, cats = _certified_in(code, 1e-6, ("pair", lo, hi))
    w = F._width("power", *v.interval())
    assert w <= 1.5e-6 or ta.ToleranceWarning in cats


def _quadrature_case(T, eps):
    """delta(eps) of T steps (mu = 2, q = 2/25) at tol 1e-9 inside the 30-digit quadrature's
    value (20 digits either side) and meeting the PLD pair."""
    b, q = Fraction(2), Fraction(2, 25)
    code = f"ta.delta(ta.laplace_mechanism(2, 1, sampling='poisson', " \
           f"p=sp.Rational(2, 25)){'**2' if T == 2 else ''}, {F.rat(eps)}, dps=12)"
    _certified_in(code, 1e-9, [("tight", *F._quad_delta(b, q, T, eps)),
                               ("pair", *F.pld_pair(F.hull_plds(b, q, T), float(eps)))])


def test_hull_delta_one_step_against_quadrature():
    _quadrature_case(1, Fraction(1, 5))


@pytest.mark.slow
def test_hull_delta_two_steps_against_quadrature():
    _quadrature_case(2, Fraction(3, 10))


def test_hull_epsilon_meets_the_pld_pair():
    b, q, T, D = Fraction(1), Fraction(1, 100), 100, Fraction(1, 10 ** 6)
    code = "ta.epsilon(ta.laplace_mechanism(1, 1, sampling='poisson', p=sp.Rational(1, 100))" \
           "**100, sp.Rational(1, 1000000), dps=9)"
    v, _ = _ask(code, 1e-6)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    plds = F.hull_plds(b, q, T)
    o_lo, p_lo = F.pld_pair(plds, float(lo))
    o_hi, p_hi = F.pld_pair(plds, float(hi))
    assert p_lo * (1 + F.SLACK) >= D and o_hi * (1 - F.SLACK) <= D


def test_hull_curve_meets_the_pld_pair_near_one():
    """The level near 1 of AddRemove(Mix(L_2, 2/25))^2, where f >= e^{-L*}(1 - alpha), L* the
    largest loss 2 log(1 + q (e^2 - 1)) (delta = 0 past it): the band reaches it, and meets
    the PLD pair's f read by the mirror delta(eps) = 1 - e^eps + e^eps delta(-eps) (the
    pessimistic delta(-0.8) itself lies 2.9e-12 below the quadrature's: a false flag of the
    fuzz's first runs, f's bracket 4e-13 above the band)."""
    levels = [0.080127, 0.9999999240742764]
    code = f"ta.curve(ta.laplace_mechanism(2, 1, sampling='poisson', p=sp.Rational(2, 25))**2, " \
           f"{levels!r}, bounds=True)"
    (lo, hi), cats = _ask(code, 1e-6)
    assert ta.EstimateWarning not in cats
    with mpmath.workdps(40):
        q = mpmath.mpf(2) / 25
        star = mpmath.exp(-2 * mpmath.log(1 + q * (mpmath.e ** 2 - 1)))
        f_near_one = star * (1 - mpmath.mpf(levels[1]))
    assert f_near_one <= hi[1]  # (f >= the line's value: a lower bound of the truth)
    plds = F.hull_plds(Fraction(2), Fraction(2, 25), 2)
    for i, a in enumerate(levels):
        f_lo, f_hi = F.power_bracket(plds, a, F._emax(2, 2))[2:]
        assert F.meets(mpmath.mpf(lo[i]), mpmath.mpf(hi[i]), ("pair", f_lo, f_hi))


# ---------------------------------------------------------------------------------------------
# fixed draws: finite products (exact)
# ---------------------------------------------------------------------------------------------

def _ed(r, d):
    r, d = Fraction(r), Fraction(d)
    a, c = (1 - d) * r / (1 + r), (1 - d) / (1 + r)
    return F._group([d, a, c, 0], [0, c, a, d])


def _rr(r, k):
    r = Fraction(r)
    z = r + k - 1
    rest = [1 / z] * (k - 2)
    return F._group([r / z, 1 / z] + rest, [1 / z, r / z] + rest)


FIN = "ta.Tensor(ta.EpsDelta(sp.log(2), sp.Rational(1, 100))**10, " \
      "ta.randomized_response(sp.log(3), 3)**3)"


def _fin_atoms():
    return F._compose(F.power_of(_ed(2, Fraction(1, 100)), 10), F.power_of(_rr(3, 3), 3))


@pytest.mark.parametrize("tol", [5e-4, 1e-9])
def test_finite_product_roc_evaluate_delta_exact(tol):
    at = _fin_atoms()
    a = Fraction(1, 1000)
    d = F._dps(tol)
    _certified_in(f"ta.roc({FIN}, sp.Rational(1, 1000), dps={d})", tol,
                  ("exact", F.np_power(at, a)))
    _certified_in(f"ta.evaluate({FIN}, sp.Rational(1, 1000), dps={d})", tol,
                  ("exact", 1 - F.np_power(at, a)))
    _certified_in(f"ta.delta({FIN}, sp.log(5), dps={d})", tol,
                  ("exact", F.delta_exact(at, Fraction(5))))
    _certified_in(f"ta.delta({FIN}, sp.Rational(3, 2), dps={d})", tol,
                  ("tight", *F._delta_mp(at, mpmath.mpf(3) / 2)))


def test_finite_product_epsilon_and_curve():
    at = _fin_atoms()
    v, _ = _ask(f"ta.epsilon({FIN}, sp.Rational(1, 5), dps=12)", 1e-9)
    assert v.guarantee in ("certified", "exact")
    lo, hi = v.interval()
    D = mpmath.mpf(1) / 5  # (above Q(P = 0) = 1 - (99/100)^10: eps finite)
    assert lo <= 0 or F._delta_mp(at, lo)[1] >= D
    assert F._delta_mp(at, hi)[0] <= D
    levels = [1e-6, 0.01, 0.5, 0.999]
    (clo, chi), cats = _ask(f"ta.curve({FIN}, {levels!r}, bounds=True)", 1e-9)
    assert ta.EstimateWarning not in cats
    for i, x in enumerate(levels):
        f = 1 - F.np_power(at, Fraction(x))
        assert F._frac(mpmath.mpf(clo[i])) <= f <= F._frac(mpmath.mpf(chi[i]))


def test_epsilon_infinite_where_delta_never_reaches_the_level():
    """A Q-only atom of mass 1 - (1 - 1/10)^10 > 23/100: eps = +oo, certified."""
    v, _ = _ask("ta.epsilon(ta.EpsDelta(sp.log(sp.Rational(5, 4)), sp.Rational(1, 10))**10, "
                "sp.Rational(23, 100), dps=6)", 5e-4)
    assert v.guarantee in ("certified", "exact") and mpmath.isinf(v.lo) and mpmath.isinf(v.hi)


# ---------------------------------------------------------------------------------------------
# fixed draws: discrete Gaussian / discrete Laplace with G and L
# ---------------------------------------------------------------------------------------------

def test_discrete_gaussian_with_gaussian_roc_and_delta():
    ref = F._lattice_ref((("dg", 1, Fraction(3, 2), 3),), "G", Fraction(1, 2))
    expr = "ta.Tensor(ta.discrete_gaussian(1, sp.Rational(3, 2))**3, ta.G(sp.Rational(1, 2)))"
    _certified_in(f"ta.roc({expr}, sp.Rational(1, 100), dps=9)", 1e-6,
                  ("tight", *ref.power(Fraction(1, 100))))
    _certified_in(f"ta.delta({expr}, sp.Rational(1, 2), dps=9)", 1e-6,
                  ("tight", *F.tight(ref.delta(mpmath.mpf(1) / 2), 40)))


def test_discrete_laplace_with_laplace_delta_and_epsilon():
    ref = F._lattice_ref((("dl", 1, Fraction(2), 5),), "L", Fraction(1, 2))
    expr = "ta.Tensor(ta.discrete_laplace(1, 2)**5, ta.Laplace(sp.Rational(1, 2)))"
    _certified_in(f"ta.delta({expr}, sp.Rational(3, 4), dps=12)", 1e-9,
                  ("tight", *F.tight(ref.delta(mpmath.mpf(3) / 4), 40)))
    v, _ = _ask(f"ta.epsilon({expr}, sp.Rational(1, 100000), dps=9)", 1e-6)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    D = mpmath.mpf(1) / 100000
    assert ref.delta(lo) >= D >= ref.delta(hi)


def test_discrete_gaussian_power_curve():
    ref = F._lattice_ref((("dg", 1, Fraction(1), 2),), None, None)
    levels = [1e-5, 0.2, 0.9]
    (lo, hi), cats = _ask(f"ta.curve(ta.discrete_gaussian(1, 1)**2, {levels!r}, bounds=True)",
                          1e-6)
    assert ta.EstimateWarning not in cats
    for i, x in enumerate(levels):
        p_lo, p_hi = ref.power(Fraction(x))
        assert F.meets(mpmath.mpf(lo[i]), mpmath.mpf(hi[i]), ("tight", 1 - p_hi, 1 - p_lo))


# ---------------------------------------------------------------------------------------------
# nesting and a time limit
# ---------------------------------------------------------------------------------------------

def test_nested_in_any_order():
    code = "ta.roc(ta.Tensor(ta.discrete_laplace(1, 2)**5, ta.Laplace(sp.Rational(1, 2))), " \
           "sp.Rational(1, 100), dps=DPS)"
    got = {}
    for tol in (1e-6, 5e-4, 1e-9):
        v, _ = _ask(code.replace("DPS", str(F._dps(tol))), tol)
        assert v.guarantee == "certified"
        got[tol] = v.interval()
    ts = sorted(got)
    for i, t in enumerate(ts):
        for u in ts[i + 1:]:
            assert got[u][0] <= got[t][0] <= got[t][1] <= got[u][1]


def test_time_limit_kept():
    """A T = 10^4 hull curve at tol 1e-9 under 0.2 s: an answer or the stop within 2 x + 1 s
    (CPU time of this process)."""
    c = time.process_time()
    try:
        F.ask("ta.curve(ta.laplace_mechanism(sp.Rational(5, 4), 1, sampling='poisson', "
              "p=sp.Rational(1, 20))**10000, [0.59587, 0.9999999726014597], bounds=True)",
              1e-9, 0.2)
    except ta.TimeLimitExceeded:
        pass
    assert time.process_time() - c <= 2 * 0.2 + 1


def test_no_nan_no_internal_error_on_edges():
    for code in ("ta.roc(ta.discrete_gaussian(2, sp.Rational(1, 2))**5, 0, dps=9)",
                 "ta.evaluate(ta.discrete_laplace(2, sp.Rational(1, 2))**5, 1, dps=9)",
                 "ta.delta(ta.EpsDelta(sp.log(2), 0)**20, sp.log(2**20), dps=9)"):
        v, _ = _ask(code, 1e-6)
        assert not (mpmath.isnan(v.lo) or mpmath.isnan(v.hi))
        assert 0 <= v.lo <= v.hi <= 1


# ---------------------------------------------------------------------------------------------
# defects (strict xfails)
# ---------------------------------------------------------------------------------------------

def _roc_half(f, tol=1e-6):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ta.pld_options(tol=tol), ta.time_limit(60):
            return ta.roc(f, R(1, 2), dps=9)


def test_one_step_hull_written_as_a_first_power_is_certified():
    """Defect 1 (fixed): AddRemove(Mix(L, q)**1) was not recognised as the one-step hull
    (``operators.tensor.unit_power_base``) and fell to the PLD engine's estimate."""
    f = ta.laplace_mechanism(R(1, 4), 1, sampling="poisson", p=R(109, 1000)) ** 1
    v = _roc_half(f)
    assert v.guarantee == "certified", (v, v.route)


def test_one_step_hull_written_as_a_first_power_base_case_is_certified():
    """The same hull without the exponent is certified (its band holds the **1 estimate)."""
    v = _roc_half(ta.laplace_mechanism(R(1, 4), 1, sampling="poisson", p=R(109, 1000)))
    assert v.guarantee == "certified"


def test_equal_hull_objects_are_both_certified():
    """Defect 2 (fixed): routes/profile_curve._cells_law tested `plan[1] is f` on a route(f)
    cached by equality: the second of two equal hulls fell to the PLD engine's estimate."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100))
    g = ta.AddRemove(ta.Mix(ta.Laplace(1), R(1, 100)))
    assert f == g and f is not g
    first, second = _roc_half(f), _roc_half(g)
    assert first.guarantee == "certified"
    assert second.guarantee == "certified", (second, second.route)


def test_a_warning_on_an_estimate_does_not_call_it_guaranteed():
    """Defect 3 (fixed): numeric/pld._max_enclosure's ToleranceWarning called the PLD engine's
    answer 'a guaranteed enclosure' while its Value says estimate (a product with no certified
    delta route: DG^5 (x) DL^5 (x) L_1, whose grid stops at MAX_PLD_BYTES)."""
    f = ta.Tensor(ta.DiscreteGaussian(1, 2) ** 5, ta.DiscreteLaplace(1, 2) ** 5, ta.Laplace(1))
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with ta.pld_options(tol=1e-7), ta.time_limit(120):
            v = ta.delta(f, 1)
    assert v.guarantee == "estimate"  # (the Value says what it is)
    texts = [str(w.message) for w in ws if issubclass(w.category, ta.ToleranceWarning)]
    assert texts and not any("guaranteed enclosure" in t for t in texts), texts


def test_the_first_power_and_the_step_agree():
    """The hull written with and without the exponent 1 gives one certified answer."""
    lm = ta.laplace_mechanism(R(1, 4), 1, sampling="poisson", p=R(107, 1000))
    with ta.pld_options(tol=1e-6), ta.time_limit(60):
        one = ta.roc(lm ** 1, R(633, 1000), dps=9)
        cert = ta.roc(lm, R(633, 1000), dps=9)
    assert one.guarantee == cert.guarantee == "certified"
    assert one.interval() == cert.interval()


@pytest.mark.xfail(strict=True, reason="defect 4 of RESULTS_audit_routes10: across fresh "
                   "processes the hull band of AddRemove(Mix(L_1, 1/20)^2) at tol 1e-9 reaches "
                   "above the band at 1e-6 (at 0.378006 the upper end 5.4e-14 higher): the "
                   "cells' grids of the two tolerances are not nested, and only the chain of "
                   "one process nests them")
def test_hull_band_at_1e9_inside_the_band_at_1e6_across_processes():
    """Each band in its own fresh process (``_fuzz.fresh_answer``): in a test worker that has
    answered other questions, caches other than the tolerance chain could decide the outcome."""
    from _fuzz import fresh_answer

    levels = [0.005467630050619976, 0.378006]
    code = (f"ta.curve(ta.laplace_mechanism(1, 1, sampling='poisson', p=sp.Rational(1, 20))"
            f"**2, {levels!r}, bounds=True)")
    got = {}
    for tol in (1e-6, 1e-9):
        band, err = fresh_answer(code, tol, 60.0, 300.0)
        assert band is not None and band != "estimate", err
        got[tol] = band
    assert np.all(got[1e-6][0] <= got[1e-9][0]) and np.all(got[1e-9][1] <= got[1e-6][1])
