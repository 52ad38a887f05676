"""The routes of a product are objects (tradeoff_algebra/routes/product.py): which support a
question, in which order, and what each answers, checked against another route or an exact
value; a new route is one class and one registration."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import Discrete, EpsDelta, G, Laplace, Mix
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import finite_loss
from tradeoff_algebra.routes import product as rp

R = sp.Rational
D1 = Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)])
D2 = Discrete([R(3, 4), R(1, 4)], [R(1, 4), R(3, 4)])


@pytest.mark.parametrize("f,question,names", [
    (G(1) @ G(2), "value", ["closed by the rules"]),
    (D1 @ D2, "delta", ["exact finite composition"]),
    (Laplace(1) ** 3, "delta", ["above the largest privacy loss", "certified Laplace inversion",
                                "privacy-loss distribution"]),
    (EpsDelta(1, R(1, 10)) @ Laplace(1), "value",
     ["f_{0,delta} parts by Eq. (12)", "certified band of the privacy profile",
      "privacy-loss distribution"]),
    (Mix(G(1), R(1, 100)) ** 50, "delta",
     ["certified Laplace inversion", "privacy-loss distribution"]),
    (G(R(1, 10**40)) @ Laplace(1), "value",
     ["negligible factors bounded out", "certified band of the privacy profile",
      "privacy-loss distribution"]),
    (G(1) @ Laplace(1), "exact", ["f(0) = prod f_i(0) (Def. 5)"]),
    (G(1) @ Laplace(1), "ball", ["f(0) = prod f_i(0) (Def. 5)"]),
])
def test_which_routes_support_a_question(f, question, names):
    assert [r.name for r in rp.routes_for(f, question)] == names


def test_an_unknown_question_is_refused():
    with pytest.raises(ValueError, match="question"):
        rp.routes_for(G(1) @ Laplace(1), "median")


def _enclosure(route, f, question, *args):
    with mp.workdps(30):
        return route.enclose(f, rp.route(f), question, *args)


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_the_engine_encloses_the_exact_finite_composition():
    """The PLD route run on a product the finite route composes exactly."""
    f = D1 @ D2
    leaves = rp.pld_leaves(f)
    exact = finite_loss(f)
    with mp.workdps(30), ta.pld_options(tol=1e-7):
        for eps in (mp.zero, mp.mpf(1) / 2):
            truth = exact.mp_delta(eps)[0]
            lo, hi = rp.PLDRoute().enclose(f, ("pld", leaves), "delta", eps)
            assert lo <= truth <= hi and hi - lo <= 1e-6 * hi  # the grid stops near 5e-7
        for a in (mp.mpf(1) / 10, mp.mpf(1) / 2):
            truth = exact.mp_value(a, 1 - a)[0]
            lo, hi = rp.PLDRoute().enclose(f, ("pld", leaves), "value", a, 1 - a)
            assert lo <= truth <= hi


def test_eq12_and_the_engine_agree():
    """The f_{0,delta} route (Eq. (12)) against the engine on the whole product."""
    f = EpsDelta(1, R(1, 10)) @ Laplace(1)
    plan = rp.route(f)
    with mp.workdps(30):
        for a in (mp.mpf(1) / 10, mp.mpf(1) / 2):
            lo1, hi1 = rp.DeltaPartRoute().enclose(f, plan, "value", a, 1 - a)
            lo2, hi2 = rp.PLDRoute().enclose(f, plan, "value", a, 1 - a)
            assert max(lo1, lo2) <= min(hi1, hi2) + 1e-15  # the enclosures overlap
        d1 = rp.DeltaPartRoute().enclose(f, plan, "delta", mp.one)
        d2 = rp.PLDRoute().enclose(f, plan, "delta", mp.one)
        assert max(d1[0], d2[0]) <= min(d1[1], d2[1]) + 1e-15


def test_the_inversion_and_the_engine_agree():
    f = Mix(G(1), R(1, 100)) ** 50
    plan = rp.route(f)
    with mp.workdps(30):
        inv = rp.InversionRoute().enclose(f, plan, "delta", mp.mpf(1) / 2)
        eng = rp.PLDRoute().enclose(f, plan, "delta", mp.mpf(1) / 2)
    assert isinstance(inv, ta.numeric.value.CertifiedPair)
    assert eng[0] <= inv[1] and inv[0] <= eng[1] and inv[1] - inv[0] <= eng[1] - eng[0]


def test_a_route_that_passes_hands_over_to_the_next():
    f = Mix(G(1), R(1, 100)) ** 50
    with mp.workdps(30):  # delta(oo): the inversion passes, the engine answers Q(L = +oo) = 0
        lo, hi = rp.answer(f, "delta", mp.inf)
    assert lo == 0 and hi < 1e-10


def test_a_new_route_is_one_class_and_one_registration():
    """A route registered for one question of one product, cheaper than the engine, answers
    it; every other question keeps its routes."""
    f = Laplace(1) ** 3

    class Known(rp.Route):
        name = "a known value"
        questions = ("delta",)

        def supports(self, plan, question):
            return question == "delta" and plan[1] == rp.pld_leaves(f)

        def cost(self, plan, question):
            return 0.5

        def enclose(self, g, plan, question, eps):
            return rp.PASS if eps != 1 else (mp.mpf("0.31"), mp.mpf("0.32"))

    rp.ROUTES.append(Known())
    try:
        assert [r.name for r in rp.routes_for(f, "delta")] == [
            "above the largest privacy loss", "a known value", "certified Laplace inversion",
            "privacy-loss distribution"]
        assert [r.name for r in rp.routes_for(f, "value")] == [
            "certified band of the privacy profile", "privacy-loss distribution"]
        with mp.workdps(20):
            assert rp.answer(f, "delta", mp.one) == (mp.mpf("0.31"), mp.mpf("0.32"))
            lo, hi = rp.answer(f, "delta", mp.mpf(2))  # passed on to the next route
        with mpmath.workdps(30):  # the exact profile of Laplace(1)^3 at 2 lies inside
            assert 0.1 < lo <= hi < 0.2
    finally:
        rp.ROUTES.pop()
    assert [r.name for r in rp.routes_for(f, "delta")] == [
        "above the largest privacy loss", "certified Laplace inversion",
        "privacy-loss distribution"]


def test_a_value_names_the_route_that_computed_it():
    """``Value.route`` names the route that answered: the registered route objects of a
    product (their ``name``), the Arb balls of a closed form, the exact arithmetic; it is not
    part of the value (equal values with different routes compare equal). Each route is
    recognised by what only it does: the inversion's enclosure is certified, the grid's an
    estimate, the exact composition's a rational."""
    sgd = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(1, 100), 100, sampling="poisson")
    v = ta.epsilon(sgd, sp.Rational(1, 10**5), dps=10)
    assert v.route == "certified Laplace inversion" and v.guarantee == "certified"
    v = ta.evaluate(Laplace(1) ** 5, sp.Rational(1, 4), dps=10)  # the band of the closed
    assert v.route == ("certified Laplace power, every term summed exactly (piecewise closed "
                       "form) + certified Laplace inversion + certified band of the privacy "
                       "profile")  # form's and the inversion's delta (routes/profile_curve.py)
    assert v.guarantee == "certified"
    v = ta.evaluate(G(1) @ Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), R(1, 4), dps=10)
    assert "certified band of the privacy profile" in v.route  # asymmetric: with its inverse's
    assert v.guarantee == "certified"  # profile (tests/test_profile_curve.py: the reference)
    v = ta.evaluate(EpsDelta(1, 0) ** 3, sp.Rational(1, 4), dps=10)
    assert v.route == "exact finite composition in Arb"
    v = ta.evaluate(EpsDelta(sp.log(2), 0) ** 3, sp.Rational(1, 4), dps=10)
    assert v.exact is not None and v.route == "exact arithmetic"
    v = ta.delta(ta.G(1), 1, dps=10)
    assert v.route == "Arb ball of the closed-form profile"
    w = ta.Value.enclosure(v.lo, v.hi, v.dps, mid=v.mid, guarantee=v.guarantee)
    assert w.route == "" and w == v and v.routed("another") == v
