"""The replace-one loss law's flat view (families/poisson_replace_poly.py): M(c + it) from
Chebyshev pieces of the tilted loss density, at a cost flat in t.

References, each by another route:
* M(z) by mpmath quadrature in x at 20 digits (``test_poisson_replace_power._mp_mgf``), at
  |t| where the view answers (above its switch to the law's own sum);
* the law's own trapezoidal sum in x (a certified ball by another method): the two balls meet;
* three steps at the default tolerance against delta_3(e) = int p(x) delta_2(e - L(x)) dx,
  the outer integral by mpmath quadrature of the certified two-step profile
  (``families/poisson_replace_profile.py``, itself tested against a 40-digit quadrature), with
  no ToleranceWarning (at q = 1/100 ``_delta_three``'s 12-digit Gauss-Legendre of degree 5 is
  off by 3e-5 relative: the PLD engine at tol 1e-9 agrees with the inversion, not with it).
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import acb, arb
from test_poisson_replace_power import _mp_mgf

import tradeoff_algebra as ta
from tradeoff_algebra.families.poisson_replace_law import ReplaceLaw
from tradeoff_algebra.families.poisson_replace_poly import T_SWITCH, ReplacePolyLaw, _breaks
from tradeoff_algebra.families.poisson_replace_profile import two_step_delta
from tradeoff_algebra.numeric.cf_laws import working_precision

R = sp.Rational


@pytest.mark.slow
@pytest.mark.parametrize("c, t", [(2, 40), (0.5, 150), (0.5, 400)])
def test_view_encloses_the_quadrature(c, t):
    mu, q = Fraction(5, 4), Fraction(1, 100)
    assert t > T_SWITCH
    view = ReplacePolyLaw(ReplaceLaw(mu, q))
    with working_precision(90):
        m = view.mgf(acb(c, t))
    with mpmath.workdps(20):
        ref = _mp_mgf(mu, q, mpmath.mpc(c, t))
        slack = abs(ref) * 1e-17 + mpmath.mpf(10) ** -19  # (the quadrature's digits)
        for part, ball in ((ref.real, m.real), (ref.imag, m.imag)):
            assert ball.lower() <= part + slack and part - slack <= ball.upper()
    assert m.real.rad() < 1e-15  # (not vacuous: about the law's tolerance at 90 bits)


@pytest.mark.parametrize("mu, q", [pytest.param(Fraction(1), Fraction(1, 10),
                                                marks=pytest.mark.slow),
                                   (Fraction(1, 2), Fraction(1, 100))])
def test_view_meets_the_law_own_sum(mu, q):
    law = ReplaceLaw(mu, q)
    view = ReplacePolyLaw(law)
    with working_precision(80):
        for t in (30, 120):
            a, b = view.mgf(acb(arb(3), t)), law.mgf(acb(arb(3), t))
            assert a.overlaps(b)
            assert a.real.rad() < 1e-12 * float(abs(b).upper()) + 1e-16


def test_breaks_grade_toward_zero():
    ends = _breaks(-3.2, 5.5, 0.01)
    assert ends[0] == -3.2 and ends[-1] == 5.5
    assert all(b > a for a, b in zip(ends[:-1], ends[1:], strict=True))
    assert -0.01 in ends and 0.01 in ends and 0.0 in ends  # (4 pieces on [-phi, phi])
    assert max(b - a for a, b in zip(ends[:-1], ends[1:], strict=True)) <= 1.0 + 1e-12


def test_law_gives_its_flat_view():
    law = ReplaceLaw(Fraction(1), Fraction(1, 10))
    assert isinstance(law.flat_view(), ReplacePolyLaw) and law.flat_view() is law.flat_view()


def _delta_three_nested(mu: Fraction, q: Fraction, eps: float):
    """delta_3(eps) = int p(x) delta_2(eps - L(x)) dx, delta_2 the certified two-step profile
    at the real level eps - L(x) (its ball's midpoint, to 1e-10), the outer integral by
    mpmath at 15 digits."""
    law = ReplaceLaw(mu, q)
    m, qq = float(mu), float(q)
    with mpmath.workdps(15):
        w = qq * mpmath.exp(-m * m / 2) / (1 - qq)

        def g(x):
            ell = mpmath.log1p(w * mpmath.exp(m * x)) - mpmath.log1p(w * mpmath.exp(-m * x))
            d2 = two_step_delta(law, float(eps - ell), 1e-10)
            return (1 - qq) * mpmath.npdf(x) * (1 + w * mpmath.exp(m * x)) * float(d2.mid())

        return mpmath.quad(g, mpmath.linspace(-9, 11, 21))


@pytest.mark.slow
def test_few_small_q_steps_meet_the_default_tolerance():
    """sigma = 1.1, q = 1/100 (the central part of the loss decays from t ~ 1/(q mu)): three
    steps' delta(1/2) at the default tolerance by the inversion (the flat view), certified,
    no ToleranceWarning, containing the nested reference."""
    mu, q = Fraction(10, 11), Fraction(1, 100)
    f = ta.PoissonReplace(R(10, 11), R(1, 100)) ** 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = ta.delta(f, R(1, 2), dps=20)
    assert v.guarantee == "certified" and float(v.hi - v.lo) <= 5e-4 * float(v.hi)
    ref = _delta_three_nested(mu, q, 0.5)
    assert v.lo - 1e-8 * ref <= ref <= v.hi + 1e-8 * ref


def _mp_mgf_wide(mu: Fraction, q: Fraction, z, lo: int, hi: int):
    """M(z) by mpmath quadrature on [lo, hi] in unit pieces (the tilted mass outside is below
    the test's digits: at c ~ 700, mu = 1/8 the tilted density lives below x ~ c mu + 12)."""
    m, qq = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(q.numerator) / q.denominator
    c0 = mpmath.exp(-m * m / 2)

    def lam(x):
        return mpmath.log(1 - qq + qq * c0 * mpmath.exp(m * x))

    return mpmath.quad(lambda x: mpmath.npdf(x) * mpmath.exp((1 + z) * lam(x) - z * lam(-x)),
                       mpmath.linspace(lo, hi, hi - lo + 1))


@pytest.mark.parametrize("t", [40, pytest.param(300, marks=pytest.mark.slow)])
def test_far_tail_model_meets_its_tolerance_and_the_quadrature(t):
    """The far tail's abscissa (sigma = 8, q = 1/1000, 10^4 steps, delta(1): c ~ 706) at 128
    bits: the model's pieces near y = 0, which reached the degree cap (error 1.8e-9), are halved
    until they meet the target, so the model answers (was None: the law's x-grid, seconds a node)
    and its ball holds mpmath's 30-digit quadrature of M(c + it)."""
    mu, q = Fraction(1, 8), Fraction(1, 1000)
    view = ReplacePolyLaw(ReplaceLaw(mu, q))
    c = 705.75
    with working_precision(128):
        m = view.model_mgf(acb(c, t))
    assert m is not None and m.real.rad() < 1e-25
    with mpmath.workdps(30):
        ref = _mp_mgf_wide(mu, q, mpmath.mpc(c, t), -20, 110)
        slack = mpmath.mpf(10) ** -26  # (the quadrature's digits)
        for part, ball in ((ref.real, m.real), (ref.imag, m.imag)):
            assert ball.lower() <= part + slack and part - slack <= ball.upper()
