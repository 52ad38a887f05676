"""A route label (``Value.route``) names only what produced the enclosure (core/trace.py,
routes/product.py ``answer`` and ``routes_for``): a route that declined (PASS, or None where
another answers), or a route's test of whether it applies, leaves no trace.

Before: the answers of the lattice routes began with "Arb sum of the family's privacy profile
+ ...": the negligible-factors route's test of its reach (the total variation of a factor,
proved by its Arb profile) declined and was named as if it had contributed.
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core import trace
from tradeoff_algebra.numeric.lattice_product import LATTICE_PRODUCT
from tradeoff_algebra.routes import product

R = sp.Rational
ARB_SUM = "Arb sum of the family's privacy profile"


def test_the_lattice_product_is_named_alone():
    """Randomized response RR(1, 3)^1000, eps(1e-6) (benchmarks/RESULTS_practitioner_rows.md:
    482.618059 beside the peer dp_accounting): the lattice product alone."""
    v = ta.epsilon(ta.randomized_response(1, 3) ** 1000, R(1, 10**6))
    assert v.route == LATTICE_PRODUCT
    assert abs(float(v.mid) - 482.618059) < 1e-5  # (the peer's value, RESULTS_practitioner_rows)


def test_the_discrete_laplace_power_is_named_alone():
    v = ta.epsilon(ta.TensorPower(ta.DiscreteLaplace(1, 1), 10**6), 1e-6)
    assert v.route == LATTICE_PRODUCT


def test_a_shortcut_answers_under_its_own_name():
    """The census row of discrete Gaussians with sigma_k^2 = 10^6/(2k) (here 60 of the 1000):
    one discrete Gaussian by Poisson summation answered; the product tree computed nothing."""
    f = ta.Tensor(*[ta.DiscreteGaussian(1, sp.sqrt(R(10**6, 2 * k))) for k in range(1, 61)])
    v = ta.delta(f, 2)
    assert v.route == "discrete Gaussians as one discrete Gaussian (smoothing bound, certified)"


def test_the_labels_of_other_routes_are_kept():
    """A search that used the Arb profile names it (it produced every decision); the Laplace
    inversion and the exact finite composition name themselves."""
    assert ta.epsilon(ta.DiscreteLaplace(1, R(1, 2)), R(1, 10**6)).route == \
        "bracketing search on delta(eps) + " + ARB_SUM
    assert ta.delta(ta.G(1) @ ta.Laplace(1), 1).route == "certified Laplace inversion"
    assert ta.delta(ta.randomized_response(1, 3) ** 10, 1).route == "exact finite composition"


class _Declines(product.Route):
    """A route that notes a name on its way and then passes."""

    name = "a route that declined"
    questions = ("delta",)

    def supports(self, plan, question):
        trace.note("its test of its reach")
        return question == "delta"

    def cost(self, plan, question):
        return -1.0  # (tried first)

    def enclose(self, f, plan, question, *args):
        trace.note("a step of the declined route")
        return product.PASS


def test_a_route_that_passes_leaves_no_trace(monkeypatch):
    monkeypatch.setattr(product, "ROUTES", [_Declines(), *product.ROUTES])
    f = ta.randomized_response(1, 3) ** 10
    with trace.recording() as names:
        out = product.answer(f, "delta", 1)
    assert out is not None and names == ["exact finite composition"]
