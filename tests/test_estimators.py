"""analysis.estimators: the randomized-response count law against brute-force enumeration of
every report vector, and the estimator's moments against the closed forms."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp

from tradeoff_algebra.analysis import estimators as est
from tradeoff_algebra.core.errors import InvalidParameter

p_ = sp.Symbol("p", positive=True)


def _brute_law(bits, p):
    """P[T = t] by summing over all 2^n report vectors (each user independently)."""
    out = {}
    for reports in itertools.product((0, 1), repeat=len(bits)):
        w = sp.Integer(1)
        for u, v in zip(bits, reports, strict=True):
            one = p / 2 + (1 - p) * u
            w *= one if v else 1 - one
        out[sum(reports)] = out.get(sum(reports), 0) + w
    return out


@pytest.mark.parametrize("p", [sp.Rational(1, 3), sp.Rational(9, 10), p_])
@pytest.mark.parametrize("bits", [(0, 0, 0), (1, 0, 1, 1), (1, 1, 0, 0, 1)])
def test_count_law_against_enumeration(bits, p):
    law = est.rr_count_law(sum(bits), len(bits), p)
    brute = _brute_law(bits, p)
    assert set(law) == set(brute)
    assert all(sp.expand(law[t] - brute[t]) == 0 for t in law)
    assert sp.expand(sum(law.values())) == 1


@pytest.mark.parametrize("n,ones", [(1, 0), (3, 2), (5, 5), (6, 1)])
def test_estimator_unbiased_with_the_closed_form_variance(n, ones):
    law = est.rr_count_law(ones, n, p_)
    mean, var = est.law_moments(law, lambda t: est.rr_fraction_estimate(t, n, p_))
    assert sp.simplify(mean - sp.Rational(ones, n)) == 0
    assert sp.simplify(var - est.rr_fraction_variance(n, p_)) == 0


def test_standard_deviation_at_the_eps_dp_parameter():
    """p = 2/(1 + e^eps): sd = 1/(2 sinh(eps/2) sqrt n)."""
    e, n = sp.symbols("eps n", positive=True)
    v = est.rr_fraction_variance(n, 2 / (1 + sp.exp(e)))
    assert sp.simplify((v - 1 / (4 * sp.sinh(e / 2)**2 * n)).rewrite(sp.exp)) == 0


@pytest.mark.parametrize("call", [
    lambda: est.rr_count_law(4, 3, sp.Rational(1, 2)),
    lambda: est.rr_count_law(1, 3, 1),
    lambda: est.rr_count_law(1, 0, sp.Rational(1, 2)),
    lambda: est.rr_count_law(1, est.MAX_USERS + 1, sp.Rational(1, 2)),
    lambda: est.rr_fraction_variance(0, sp.Rational(1, 2)),
    lambda: est.law_moments({})])
def test_bad_input_names_the_parameter(call):
    with pytest.raises(InvalidParameter, match="parameter"):
        call()
