"""The few-step Poisson-subsampled Laplace mechanism where the loss's density has its branch
point close to its interval (numeric/cf_sampled_poly.py: the interpolant on pieces graded toward
the branch point, and ``PolyRemainder``, the remainder's transform from the atoms' closed form and
the piecewise interpolant's), and the hand-over to the whole law's inversion past T = 63.

References, each independent of the code under test: the density's closed form in Arb at 401
points; mpmath quadrature at 40 digits of delta(eps) = int (p_A - e^eps p_B)_+ over the Laplace
densities of the pair (T = 1; T = 2 nested); the remainder's transform by the law's 2F1 closed
form (``cf_sampled.SampledRemainder``: M^k minus the terms j < J); dp_accounting's optimistic and
pessimistic PLDs at grid 1e-5.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import sympy as sp
from flint import acb, arb
from references.sampled_laplace import ball_contains as _contains
from references.sampled_laplace import sampled_laplace_delta_one as _delta_one
from references.sampled_laplace import sampled_laplace_delta_two as _delta_two

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.families.laplace_sampled import SubsampledLaplaceLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_sampled import SampledRemainder
from tradeoff_algebra.numeric.cf_sampled_poly import (
    ChebyshevDensity,
    PolyExactPart,
    PolyRemainder,
)
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _mpf(x: Fraction):
    return mp.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("p", [Fraction(1, 1000), Fraction(1, 10**4)])
def test_the_graded_interpolant_is_within_its_certified_bounds(direction, p):
    """b = 1/2 (mu = 2: the branch point 2% of the width off the interval's near end): one
    interpolant would need more than 96 degrees, the pieces (graded toward that end) need at
    most 40 each; |d(u) - P(u)| <= eta (the largest piece's bound) at 401 points of [l0, l1],
    d by its closed form in Arb, and eta is below 1e-12 of the mean density."""
    law = SubsampledLaplaceLaw(Fraction(2), p, direction)
    cheb = ChebyshevDensity(law, 256)
    assert len(cheb.pieces) > 2 and cheb.n <= 40
    near = cheb.pieces[0] if direction == "remove" else cheb.pieces[-1]
    assert near.o1 - near.o0 == 1  # (the shortest piece next to the branch point)
    with working_precision(256):
        mean = (1 - cheb.a0 - cheb.a1) / cheb.width
        assert cheb.eta < mean * arb("1e-12")
        for i in range(401):
            u = cheb.l0 + cheb.width * arb(i) / 400
            d = law.loss_density(acb(u)).real
            assert abs(d - cheb(u)) <= cheb.eta


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("mu,p", [(Fraction(2), Fraction(1, 1000)),
                                  (Fraction(2), Fraction(1, 10**4)),
                                  (Fraction(1, 2), Fraction(1, 1000))])
def test_one_step_against_40_digit_quadrature(direction, mu, p):
    """delta(eps) of one step at three eps across the loss's range: the exact part (the graded
    interpolant's sum and its Chernoff share) against int (p_A - e^eps p_B)_+ at 40 digits."""
    law = SubsampledLaplaceLaw(mu, p, direction)
    with working_precision(128):
        l0, l1, _, _ = law.loss_atoms()
    lo, hi = float(l0.mid()), float(l1.mid())
    for frac in (0.05, 0.4, 0.9):
        eps = max(lo + frac * (hi - lo), 0.0)
        with mp.workdps(40):
            ref = _delta_one(_mpf(mu), _mpf(p), direction, mp.mpf(eps))
        with working_precision(128):
            v = PolyExactPart(law, 1, 2).terms(eps)[0]
        # (the ball's width is the interpolant's proved share by Chernoff, about 1e-11 of delta)
        assert _contains(v, ref, mp.mpf(10) ** -30) and v.rad() < 1e-10 * abs(v.mid())


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_against_nested_40_digit_quadrature(direction):
    """q = 1/1000, b = 1/2, two steps (every term exact): against the nested quadrature."""
    mu, p = Fraction(2), Fraction(1, 1000)
    law = SubsampledLaplaceLaw(mu, p, direction)
    eps = 0.008 if direction == "remove" else 0.001  # (the add loss's two-fold range: 0.0017)
    with mp.workdps(40):
        ref = _delta_two(_mpf(mu), _mpf(p), direction, mp.mpf(eps))
    with working_precision(128):
        v = PolyExactPart(law, 2, 3).terms(eps)[0]
    assert _contains(v, ref, mp.mpf(10) ** -30) and v.rad() < 1e-10 * abs(v.mid())


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("mu,p,k", [(Fraction(2), Fraction(1, 1000), 10),
                                    (Fraction(1), Fraction(1, 100), 20),
                                    (Fraction(1, 2), Fraction(1, 10**4), 63)])
def test_the_remainders_transform_against_the_2f1_closed_form(direction, mu, p, k):
    """R_6(c + it) of the k-fold product: the atoms' closed form and the piecewise
    interpolant's transform (widened by its certified error) against the law's 2F1 closed form
    minus the terms j < 6, from t = 0 to far in the tail: the balls meet, and the new one is
    narrow (radius below 1e-12 of R(c), which bounds |R(c + it)|: what the inversion sums)."""
    law = SubsampledLaplaceLaw(mu, p, direction)
    old, new = SampledRemainder(law, k, 6), PolyRemainder(law, k, 6)
    with working_precision(96):
        scale = new.mgf(acb(40.0)).real
    for c, t in ((40.0, 0.0), (40.0, 300.0), (40.0, 3e3), (40.0, 3e4), (40.0, 2e5)):
        with working_precision(96):
            z = acb(c, t)
            a, b = old.mgf(z), new.mgf(z)
        assert a.overlaps(b)
        assert b.rad() < 1e-12 * scale


def _sandwich(q: float, b: float, T: int) -> tuple[float, float]:
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    return tuple(pld.from_laplace_mechanism(
        b, 1.0, pessimistic_estimate=pess, value_discretization_interval=1e-5,
        sampling_prob=q).self_compose(T).get_epsilon_for_delta(1e-5) for pess in (False, True))


def _eps(q, b, T, tol=1e-9):
    f = ta.laplace_mechanism(1, b, sampling="poisson", p=q) ** T
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with ta.pld_options(tol=tol):
            return ta.epsilon(f, R(1, 10**5), dps=15)


@pytest.mark.slow
@pytest.mark.parametrize("q,b,T", [(R(1, 1000), R(1, 2), 2), (R(1, 1000), R(1, 2), 10),
                                   (R(1, 10**4), R(1, 2), 30), (R(1, 100), 1, 64),
                                   (R(1, 100), 2, 65), (R(1, 10**4), 2, 100)])
def test_few_steps_are_narrow_and_meet_dp_accountings_sandwich(q, b, T):
    """eps(1e-5), add/remove, at tol 1e-9 (before: q = 1/1000, b = 1/2, T = 10 6.3e-3 wide;
    q = 1/100, b = 1, T = 64 6e-9 and b = 2, T = 65 1.5e-6, each with a ToleranceWarning):
    certified, at most 1e-9 wide, no warning, meeting dp_accounting's optimistic/pessimistic
    pair at grid 1e-5."""
    opt, pess = _sandwich(float(q), float(b), T)
    v = _eps(q, b, T)
    assert v.guarantee == "certified" and v.route == "certified Laplace inversion"
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert opt <= pess and max(v.lo, opt) <= min(v.hi, pess)


@pytest.mark.slow
def test_no_gap_at_the_hand_over():
    """q = 1/100, b = 1 and b = 2, T = 62 .. 66 (the split up to where the whole law reaches
    the route's width, then the whole law): each narrow and without a warning, eps increasing
    in T (the enclosures disjoint and ordered)."""
    for b in (1, 2):
        prev = None
        for T in range(62, 67):
            v = _eps(R(1, 100), b, T)
            assert 0 < v.hi - v.lo <= 1e-9 * v.hi
            if prev is not None:
                assert prev.hi < v.lo
            prev = v
