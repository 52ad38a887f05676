"""Time limits of the Poisson-subsampled Laplace law's two long uninterruptible steps: the
decay envelope's tilted variance (three ``acb.integral`` calls, families/laplace_sampled) and the
exact lattice part of the graded split (numeric/cf_sampled_poly.PolyExactPart._lattice).

Past the deadline each raises TimeLimitExceeded (never a ball built from the integrand's 0s) and
caches nothing, and the same object afterwards, with no limit, gives the value of an independent
route: the tilted variance by mpmath quadrature over x in R of the Laplace pair itself (not the
loss's atoms-plus-density split the library integrates), delta of one step by mpmath quadrature
of (A - e^eps B)_+ (references.sampled_laplace)."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
from flint import arb
from references.sampled_laplace import ball_contains, sampled_laplace_delta_one

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import SubsampledLaplaceLaw
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_sampled_poly import ChebyshevDensity, PolyExactPart
from tradeoff_algebra.numeric.context import mp


def _past_deadline(fn):
    """fn() inside a call whose deadline has already passed."""
    with ta.time_limit(1e-3), budget.call("test"):
        time.sleep(3e-3)
        return fn()


def _tilted_variance_x(mu, p, a):
    """Var of u = log phi(L) under phi(L)^a dP / E_P[phi^a], L(x) = |x| - |x - mu| the Laplace
    loss, P = Lap(0, 1): quadrature over x (kinks at 0, mu)."""
    def u(x):
        return mp.log(1 - p + p * mp.exp(abs(x) - abs(x - mu)))

    def moment(k):
        return mp.quad(lambda x: mp.exp(-abs(x)) / 2 * u(x) ** k * mp.exp(a * u(x)),
                       [-mp.inf, 0, mu, mp.inf])

    e0, e1, e2 = moment(0), moment(1), moment(2)
    return e2 / e0 - (e1 / e0) ** 2


@pytest.mark.parametrize("mu, p, c, direction", [
    (Fraction(11, 2), Fraction(1, 2), 0.5, "remove"),
    (Fraction(2, 21), Fraction(1, 5), 1.5, "add"),
])
def test_envelope_past_the_deadline_raises_then_the_tilted_variance_is_right(mu, p, c, direction):
    law = SubsampledLaplaceLaw(mu, p, direction)
    a = law._a(arb(c))
    with working_precision(64):
        with pytest.raises(ta.TimeLimitExceeded):
            _past_deadline(lambda: law._tilted_variance(a))
    with pytest.raises(ta.TimeLimitExceeded):
        _past_deadline(lambda: law.plan_decay(c, 4))
    assert c not in law._envelopes  # (nothing cached from the stopped build)
    with working_precision(64):
        var = law._tilted_variance(a)
    with mp.workdps(30):
        ref = _tilted_variance_x(mp.mpf(mu.numerator) / mu.denominator,
                                 mp.mpf(p.numerator) / p.denominator,
                                 mp.mpf(float(a.mid())))
    assert var.rad() < 1e-6 * abs(var.mid())
    assert ball_contains(var, ref, mp.mpf(10) ** -15), (var, ref)
    law.plan_decay(c, 4)  # (with no limit the envelope is built and kept)
    assert c in law._envelopes


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_lattice_part_past_the_deadline_raises_then_delta_is_right(direction):
    mu, p = Fraction(10), Fraction(1, 10)
    law = SubsampledLaplaceLaw(mu, p, direction)
    part = PolyExactPart(law, 1, 2)
    eps = 0.5 if direction == "remove" else 0.05  # (inside each direction's loss range)
    with working_precision(128):
        cheb = ChebyshevDensity(law, 128)
        with pytest.raises(ta.TimeLimitExceeded):
            _past_deadline(lambda: part._lattice(cheb))
        with pytest.raises(ta.TimeLimitExceeded):
            _past_deadline(lambda: part.terms(eps))
    assert not part._cache  # (nothing cached from the stopped build)
    with mp.workdps(30):
        ref = sampled_laplace_delta_one(mp.mpf(10), mp.mpf(1) / 10, direction, mp.mpf(eps))
    assert ref > 0.01
    with working_precision(128):
        v = part.terms(eps)[0]
    assert ball_contains(v, ref, mp.mpf(10) ** -25) and v.rad() < 1e-8 * abs(v.mid()), (v, ref)
