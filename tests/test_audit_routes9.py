"""The ninth audit of the routes: its findings pinned (benchmarks/RESULTS_audit_routes9.md,
benchmarks/fuzz_routes9.py) and one fast seeded check per property the fuzz draws. References,
each by another route than the code checked: exact piecewise-linear knots in Fraction
(references.audit5_refs: f_{eps,delta}, f_p, the symmetric hull as the lower convex hull of
min{f, f^{-1}}), dp_accounting's optimistic/pessimistic pair of the subsampled Laplace
(references.sampled_laplace_power), the Irwin-Hall quadrature of L_mu^k at 60 digits
(references.laplace_sum) and the closed form of L_mu."""

from __future__ import annotations

import time
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from references import audit5_refs as A5
from references import laplace_sum as LS
from references.audit8_refs import laplace_power
from references.base import ask, to_frac
from references.sampled_laplace_power import sampled_laplace_power_bracket

import tradeoff_algebra as ta

R = sp.Rational


# ---------------------------------------------------------------------------------------------
# defect 1: f(0) of the add/remove hulls (AddRemove = C(f)) had no exact end
# ---------------------------------------------------------------------------------------------

HULLS_AT_ONE = [
    "ta.noisy_sgd(1, R(1, 100), 10)",
    "ta.laplace_mechanism(1, 1, sampling='poisson', p=R(1, 100))**10",
    "ta.Tensor(ta.Laplace(1)**3, ta.noisy_sgd(1, R(1, 100), 10))",
    "ta.Tensor(ta.Laplace(sp.sqrt(2))**3, ta.noisy_sgd(1, R(1, 100), 10))",
]


@pytest.mark.parametrize("src", HULLS_AT_ONE)
def test_hull_end_at_zero_is_exact(src):
    """C(g)(0) = min{g(0), g^{-1}(0)} (0 is an extreme point of [0, 1]; operators.ends): 1 for
    a hull of Mix(G_1)^10 or Mix(L_1)^10, and for its products with Laplace powers (Def. 5).
    Was: an estimate (noisy_sgd: [1 - 4e-16, 1]; the subsampled Laplace T = 10: [9.8e-4, 1]
    with a ToleranceWarning), and the products with L^3 stopped at a 60 s limit."""
    f = eval(src)  # noqa: S307
    with ta.time_limit(20):
        v = ta.evaluate(f, 0)
        p = ta.roc(f, 0)
    assert v.guarantee == "exact" and v.lo == v.hi == 1
    assert p.guarantee == "exact" and p.lo == p.hi == 0


def test_hull_end_below_one_against_the_knots():
    """C(f_{1/2}) for f = f_{log 2, 1/10}: f_{1/2}(0) = 1 - 1/20, f_{1/2}^{-1}(0) = 1, so the
    hull's f(0) = 19/20 exactly; the reference is the lower convex hull of min{g, g^{-1}} of the
    exact knots (references.audit5_refs.pl_sym_hull), read at 0."""
    g = ta.Mix(ta.EpsDelta(sp.log(2), R(1, 10)), R(1, 2))
    knots = A5.pl_sym_hull(A5.pl_mix(A5.epsdelta_knots(Fraction(2), Fraction(1, 10)),
                                     Fraction(1, 2)))
    want = A5.pl_at(knots, Fraction(0))
    assert want == Fraction(19, 20)
    with ta.time_limit(20):
        v = ta.evaluate(ta.AddRemove(g), 0)
    assert v.guarantee == "exact" and to_frac(v.lo) <= want <= to_frac(v.hi)


# ---------------------------------------------------------------------------------------------
# (a) the hull band of the subsampled Laplace: offered wide, warned, nested, holding the pair
# ---------------------------------------------------------------------------------------------

LEVELS = [0.001, 0.1, 0.5, 0.9, 0.999]


def _curve(tol):
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 10
    (lo, hi), cats = ask(ta.curve, f, LEVELS, bounds=True, tol=tol, limit=120)
    return np.asarray(lo), np.asarray(hi), cats


@pytest.mark.slow
def test_band_at_1e12_is_certified_warned_and_inside_the_looser_bands():
    """At tol 1e-12 the cells' band is offered wider than tol (relative width ~2e-11): it is
    returned certified with a ToleranceWarning (no EstimateWarning), inside the bands at 1e-6
    and 5e-4 asked after it, and holds dp_accounting's bracket at grid 1e-5."""
    lo12, hi12, c12 = _curve(1e-12)
    assert ta.ToleranceWarning in c12 and ta.EstimateWarning not in c12
    for tol in (1e-6, 5e-4):
        lo, hi, cats = _curve(tol)
        assert ta.EstimateWarning not in cats
        assert np.all(lo <= lo12) and np.all(hi12 <= hi)
    checked = 0
    for k, a in enumerate(LEVELS):
        try:  # (a minimiser at eps = 0, the mirror branch: not bracketed)
            r_lo, r_hi = sampled_laplace_power_bracket(1.0, 0.01, 10, [a], grid=1e-5)[0]
        except ValueError:
            continue
        checked += 1
        assert 1 - hi12[k] <= r_hi * (1 + 1e-9) and r_lo * (1 - 1e-9) <= 1 - lo12[k]
    assert checked >= 2


@pytest.mark.slow
def test_band_cut_by_the_time_left_is_certified_warned_and_meets_the_looser_band(monkeypatch):
    """Defect 2 of RESULTS_audit_routes9. The time left seen by the cells' grids made nil (as
    under a binding limit), the tolerance chain emptied before each tolerance (two fresh
    processes): the band at 1e-12 is the first grid's alone (no finer grid can end in no time;
    with some time left, the finest grid that can is computed: tests/test_cells_curve.py::
    test_time_left_short_of_the_predicted_grid_computes_the_finest_that_fits). It is certified,
    comes with a ToleranceWarning naming its width, and meets the band at 1e-10 at every level
    (both hold the curve). Inside it, it cannot be: a band cut by a limit is coarser than one a
    looser tolerance reached with time to spare, in another process; within one process the
    tolerance chain keeps it inside (tests/test_tolerance_nested.py)."""
    from types import SimpleNamespace

    from tradeoff_algebra.numeric import budget, cells_curve, tol_nest

    tol_nest.clear()
    lo10, hi10, _ = _curve(1e-10)
    tol_nest.clear()
    monkeypatch.setattr(cells_curve, "budget", SimpleNamespace(check=budget.check,
                                                               remaining=lambda: 0.0))
    lo12, hi12, cats = _curve(1e-12)
    tol_nest.clear()
    assert ta.ToleranceWarning in cats and ta.EstimateWarning not in cats
    assert np.all(np.maximum(lo10, lo12) <= np.minimum(hi10, hi12))
    assert np.all(hi12 - lo12 >= hi10 - lo10)  # (the first grid's band: the coarser)


# The offer mechanism itself (numeric.offer.settle), with routes that return known enclosures
# of a known curve: Id, f(a) = 1 - a, exact at these levels' floats (references: the exact
# values, and the bands each route returned).

X = np.array([0.1, 0.5, 0.9])
F = 1 - X


def _id_band(lo: float, hi: float):
    from tradeoff_algebra.numeric.profile_band import Band

    return Band(F - lo, F + hi, X - hi, X + lo)


class _Floor:
    """A band route that declines a tolerance below its floor and answers at or above it with
    a band of half that tolerance (absolute, both sides), recording the tolerances asked."""

    __name__ = "floor_route"

    def __init__(self, floor: float):
        self.floor, self.asked = floor, []

    def __call__(self, f, x, tol, progress):
        self.asked.append(tol)
        return None if tol < self.floor else _id_band(tol / 4, tol / 4)


@pytest.fixture
def band_routes(monkeypatch):
    from tradeoff_algebra.numeric import curves

    saved: list = []
    monkeypatch.setattr(curves, "CURVE_BANDS", saved)
    return saved


def test_offers_are_intersected(band_routes):
    """Two routes each offer a band wider than tol, neither inside the other: the result is
    their intersection (inside both, holding Id's exact curve), warned with the width reached."""
    from tradeoff_algebra.numeric import curves
    from tradeoff_algebra.numeric.offer import Offer

    a, b = _id_band(3e-6, 1e-6), _id_band(1e-6, 3e-6)
    band_routes.append(lambda f, x, tol, p: Offer(a, "first offer, width 4e-06"))
    band_routes.append(lambda f, x, tol, p: Offer(b, "second offer, width 4e-06"))
    with pytest.warns(ta.ToleranceWarning, match=r"first offer.*1 later offer.*width 2e-05 "
                                                 "reached"):  # (the power at 0.1, relative)
        got = curves._route_band(ta.Id, X, 1e-9, None)
    for o in (a, b):
        assert np.all(o.f_lo <= got.f_lo) and np.all(got.f_hi <= o.f_hi)
        assert np.all(o.power_lo <= got.power_lo) and np.all(got.power_hi <= o.power_hi)
    assert np.all(got.f_lo <= F) and np.all(F <= got.f_hi)
    assert np.allclose(got.f_hi - got.f_lo, 2e-6)


def test_disjoint_offers_are_a_defect_not_an_answer(band_routes):
    from tradeoff_algebra.numeric import curves
    from tradeoff_algebra.numeric.offer import Offer

    band_routes.append(lambda f, x, tol, p: Offer(_id_band(1e-6, -5e-7), "low"))
    band_routes.append(lambda f, x, tol, p: Offer(_id_band(-5e-7, 1e-6), "high"))
    with pytest.raises(ArithmeticError, match="disjoint"):
        curves._route_band(ta.Id, X, 1e-9, None)


def test_a_route_that_declined_below_its_floor_is_asked_again(band_routes):
    """The offer is 2e-5 wide at tol 1e-12 (2e-4 relative to the power at 0.1, the measure of
    a curve's tol); a later route declines below its floor 1e-7: it is asked again at the
    loosest step at or above the offer's width (the default tolerance 5e-4), then tighter while
    it narrows, down to its floor, where it declines 1e-8. The result lies inside the offer and
    the floor route's band at 1e-7, holds Id's curve, and its warning says the width reached."""
    from tradeoff_algebra.numeric import curves
    from tradeoff_algebra.numeric.offer import Offer

    offer = _id_band(1e-5, 1e-5)
    floor = _Floor(1e-7)
    band_routes.append(lambda f, x, tol, p: Offer(offer, "offered, width 2e-05"))
    band_routes.append(floor)
    with pytest.warns(ta.ToleranceWarning, match=r"floor_route asked at tol = 1e-07: width "
                                                 "5e-07 reached"):
        got = curves._route_band(ta.Id, X, 1e-12, None)
    assert floor.asked == [1e-12, 5e-4, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
    at_floor = _id_band(2.5e-8, 2.5e-8)
    for o in (offer, at_floor):
        assert np.all(o.f_lo <= got.f_lo) and np.all(got.f_hi <= o.f_hi)
    assert np.all(got.f_lo <= F) and np.all(F <= got.f_hi)


def test_a_route_that_declines_everywhere_costs_one_more_ask(band_routes):
    from tradeoff_algebra.numeric import curves
    from tradeoff_algebra.numeric.offer import Offer

    asked: list = []
    band_routes.append(lambda f, x, tol, p: Offer(_id_band(1e-5, 1e-5), "offered"))
    band_routes.append(lambda f, x, tol, p: asked.append(tol))
    with pytest.warns(ta.ToleranceWarning, match="^offered$"):
        got = curves._route_band(ta.Id, X, 1e-12, None)
    assert asked == [1e-12, 5e-4]
    assert np.allclose(got.f_hi - got.f_lo, 2e-5)


def test_no_route_is_asked_again_where_one_meets_tol(band_routes):
    """No extra cost where a route meets tol: the routes that declined before it are not asked
    again, and none after it is asked."""
    from tradeoff_algebra.numeric import curves

    asked: list = []
    band_routes.append(lambda f, x, tol, p: asked.append(("first", tol)))
    band_routes.append(lambda f, x, tol, p: _id_band(1e-10, 1e-10))
    band_routes.append(lambda f, x, tol, p: asked.append(("last", tol)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = curves._route_band(ta.Id, X, 1e-9, None)
    assert asked == [("first", 1e-9)]
    assert np.allclose(got.f_hi - got.f_lo, 2e-10)


def test_the_time_limit_stops_the_asks_again(band_routes):
    """A route asked again that runs into the time limit: the offer is returned (certified,
    what was reached), its warning says the time limit stopped the asks."""
    from tradeoff_algebra.numeric import budget, curves
    from tradeoff_algebra.numeric.offer import Offer

    def slow(f, x, tol, p):
        if tol > 1e-12:
            raise budget.TimeLimitExceeded("a route asked again", 1.0)
        return None

    offer = _id_band(1e-5, 1e-5)
    band_routes.append(lambda f, x, tol, p: Offer(offer, "offered"))
    band_routes.append(slow)
    with pytest.warns(ta.ToleranceWarning, match="the time limit stopped"):
        got = curves._route_band(ta.Id, X, 1e-12, None)
    assert got is offer


def test_a_point_route_that_declined_below_its_floor_is_asked_again(monkeypatch):
    """The point routes (numeric.protocol._certified_point): a route offers [1/2 - 1e-6,
    1/2 + 1e-6] for Id at 1/2 at tol 1e-12; a later route reads its tolerance from
    pld_options, declines below 1e-8 and answers [1/2 - t/10, 1/2 + t/5] at t >= 1e-8: asked
    again from 1e-5 (the step above the offer's relative width 4e-6) down to 1e-8, where its
    enclosure is intersected with the offer. The result holds the exact 1/2."""
    from tradeoff_algebra.numeric import protocol, tol_nest
    from tradeoff_algebra.numeric.context import mp
    from tradeoff_algebra.numeric.offer import Offer

    half = mp.mpf(1) / 2

    def offering(f, A, dps, power):
        return Offer(ta.Value.enclosure(half - mp.mpf("1e-6"), half + mp.mpf("1e-6"), dps,
                                        guarantee="certified").routed("offering"),
                     "offered, relative width 4e-06")

    asked: list = []

    def floor_point(f, A, dps, power):
        t = protocol.options()["tol"]
        asked.append(t)
        if t < 1e-8:
            return None
        return ta.Value.enclosure(half - mp.mpf(t) / 10, half + mp.mpf(t) / 5, dps,
                                  guarantee="certified").routed("floor point")

    monkeypatch.setattr(protocol, "POINT_ROUTES", [offering, floor_point])
    tol_nest.clear()
    try:
        with ta.pld_options(tol=1e-12), pytest.warns(ta.ToleranceWarning,
                                                     match="floor_point asked at tol = 1e-08"):
            v = protocol._certified_point(ta.Id, R(1, 2), 15, False)
    finally:
        tol_nest.clear()
    assert asked == [1e-12, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9]
    assert v.guarantee == "certified"
    assert v.lo == half - mp.mpf(1e-8) / 10 and v.hi == half + mp.mpf(1e-8) / 5
    assert v.contains(R(1, 2))


def test_roc_of_the_hull_meets_the_pld_pair_and_nests():
    """roc of the T = 5 hull at 1/3 at 5e-4 then 1e-8 (one process): the second inside the
    first, both holding dp_accounting's bracket (grid 1e-5)."""
    f = ta.laplace_mechanism(1, 2, sampling="poisson", p=R(1, 20)) ** 5
    a, _ = ask(ta.roc, f, R(1, 3), tol=5e-4, limit=60)
    b, cats = ask(ta.roc, f, R(1, 3), tol=1e-8, limit=60, dps=11)
    assert a.guarantee == b.guarantee == "certified"
    (alo, ahi), (blo, bhi) = a.interval(), b.interval()
    assert alo <= blo <= bhi <= ahi
    if (bhi - blo) > 1.5e-8 * bhi:
        assert ta.ToleranceWarning in cats
    r_lo, r_hi = sampled_laplace_power_bracket(2.0, 0.05, 5, [1 / 3], grid=1e-5)[0]
    assert float(blo) <= r_hi * (1 + 1e-9) and r_lo * (1 - 1e-9) <= float(bhi)


# ---------------------------------------------------------------------------------------------
# (b) a time limit at a tight tolerance
# ---------------------------------------------------------------------------------------------

def test_time_limit_at_tight_tolerance_is_kept_in_cpu():
    """epsilon of noisy_sgd(1, 1/100, 1000) at tol 1e-12 under 0.3 s: an answer or the stop,
    within 1.5 s of CPU past the limit (CPU time of this process, not wall)."""
    c = time.process_time()
    try:
        ask(ta.epsilon, ta.noisy_sgd(R(11, 10), R(1, 100), 1000), R(1, 10**6), tol=1e-12,
            limit=0.3, dps=15)
    except ta.TimeLimitExceeded:
        pass
    assert time.process_time() - c <= 0.3 + 1.5


# ---------------------------------------------------------------------------------------------
# (c) the parameter sandwich: irrational mu against 60 digits
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mu_src,k,eps", [("sp.sqrt(2)", 3, R(1)), ("sp.log(3)", 2, R(3, 10)),
                                          ("sp.pi/3", 1, R(1, 7))])
def test_sandwich_delta_against_irwin_hall(mu_src, k, eps):
    mu = eval(mu_src)  # noqa: S307
    with mpmath.workdps(60):
        m = mpmath.mpf(sp.N(mu, 70))
        e = mpmath.mpf(eps.p) / eps.q
        qg, pg, _, _ = LS.tails(m, k, e)
        ref = qg - mpmath.exp(e) * pg
    v, _ = ask(ta.delta, ta.Laplace(mu) ** k, eps, tol=1e-12, limit=30, dps=15)
    assert v.guarantee == "certified"
    with mpmath.workdps(60):
        lo, hi = (mpmath.mpf(t) for t in v.interval())
        assert lo <= ref <= hi and hi - lo <= 1e-11 * ref


def test_sandwich_value_against_the_closed_form():
    """L_{sqrt 2}(1/7) at 1e-12: the closed form at 60 digits inside the certified ball."""
    v, _ = ask(ta.evaluate, ta.Laplace(sp.sqrt(2)), R(1, 7), tol=1e-12, limit=30, dps=20)
    with mpmath.workdps(60):
        ref = 1 - laplace_power(mpmath.mpf(1) / 7, mpmath.sqrt(2))
        lo, hi = (mpmath.mpf(t) for t in v.interval())
        assert v.guarantee in ("certified", "exact") and lo <= ref <= hi


def test_no_warning_escapes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ta.evaluate(ta.noisy_sgd(1, R(1, 100), 10), 0).guarantee == "exact"


# ---------------------------------------------------------------------------------------------
# defect 3 (fixed): one step of the subsampled Laplace hull (T = 1) had no certified route
# ---------------------------------------------------------------------------------------------

def test_one_step_hull_is_certified():
    """Fixed (routes/hull_cells takes T = 1: g is the law itself): roc of one step is certified,
    meets dp_accounting's optimistic/pessimistic bracket at 1/100 (grid 1e-5), and at 1/2 lies
    between the two directions' certified powers and the power of the hull of T = 2
    (C(g) <= g, g^{-1}; a step more only adds power)."""
    pytest.importorskip("dp_accounting")
    from references.sampled_laplace_power import sampled_laplace_power_bracket

    m = ta.Mix(ta.Laplace(1), R(1, 100))
    f = ta.AddRemove(m)
    v, cats = ask(ta.roc, f, R(1, 100), tol=1e-6, limit=30, dps=8)
    assert v.guarantee == "certified", (v, v.route, cats)
    (b_lo, b_hi), = sampled_laplace_power_bracket(1.0, 0.01, 1, [0.01])
    lo, hi = (float(e) for e in v.interval())
    assert lo <= b_hi * (1 + 1e-9) and b_lo * (1 - 1e-9) <= hi, (lo, hi, b_lo, b_hi)
    v, cats = ask(ta.roc, f, R(1, 2), tol=1e-6, limit=30, dps=8)
    assert v.guarantee == "certified", (v, v.route, cats)
    d = max(float(ta.roc(m, R(1, 2)).interval()[0]),
            float(ta.roc(ta.Inverse(m), R(1, 2)).interval()[0]))
    two, _ = ask(ta.roc, f**2, R(1, 2), tol=1e-6, limit=60)
    assert d <= float(v.interval()[1]) and float(v.interval()[0]) <= float(two.interval()[1])
