"""Few steps of the Poisson-subsampled Laplace mechanism with the terms of j < J density
components summed exactly for any J (numeric/cf_sampled_poly.py: the density's Chebyshev
interpolant with a proved error) and the rest inverted (T <= 63, numeric/cf_route.py).

References, each independent of the code under test: mpmath quadrature at 30 digits of
delta(eps) = int (p_A - e^eps p_B)_+ over the Laplace densities of the pair (T = 1; T = 2
nested, as int A(x1) delta_1(eps - loss(x1)) dx1), the closed forms and one-dimensional Arb
integrals of numeric/cf_sampled.py (T = 2), the j <= 2 split of numeric/cf_sampled.py with its
remainder inverted at a long node count (T = 4 .. 10), and dp_accounting's optimistic and
pessimistic PLDs at grid 1e-5 (T up to 63).
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
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_sampled import SampledExactPart, SampledRemainder
from tradeoff_algebra.numeric.cf_sampled_poly import ChebyshevDensity, PolyExactPart
from tradeoff_algebra.numeric.context import mp

R = sp.Rational
MU, P = Fraction(1), Fraction(1, 100)


def _law(direction: str) -> SubsampledLaplaceLaw:
    return SubsampledLaplaceLaw(MU, P, direction)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_density_and_atoms_have_the_laws_masses(direction):
    """int d = 1 - a0 - a1 (the law's total mass 1) and int e^{-u} d + a0 e^{-l0} + a1 e^{-l1}
    = M(-1) = 1 (the other measure's mass), by Arb integrals of ``loss_density``."""
    law = _law(direction)
    with working_precision(128):
        l0, l1, a0, a1 = law.loss_atoms()
        m0 = acb.integral(lambda u, an: law.loss_density(u, an), l0, l1).real
        m1 = acb.integral(lambda u, an: law.loss_density(u, an) * (-u).exp(), l0, l1).real
        assert abs(m0 + a0 + a1 - 1) < arb(2) ** -100
        assert abs(m1 + a0 * (-l0).exp() + a1 * (-l1).exp() - 1) < arb(2) ** -100
        assert abs(law.density_mgf(arb(0)) - m0) < arb(2) ** -60


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_interpolant_is_within_its_certified_bound(direction):
    """|d(u) - P(u)| <= eta at 201 points of [l0, l1] (d by its closed form in Arb), and eta is
    below 1e-12 of the mean density."""
    law = _law(direction)
    cheb = ChebyshevDensity(law, 256)
    with working_precision(256):
        mean = (1 - cheb.a0 - cheb.a1) / cheb.width
        assert cheb.eta < mean * arb("1e-12")
        for i in range(201):
            tau = arb(i) / 200
            d = law.loss_density(acb(cheb.l0 + cheb.width * tau)).real
            assert abs(d - cheb.poly(tau)) <= cheb.eta


@pytest.mark.parametrize("direction,eps", [("remove", "0.001"), ("remove", "0.008"),
                                           ("remove", "0.015"), ("add", "0.001"),
                                           ("add", "0.005")])
def test_one_step_against_quadrature(direction, eps):
    """delta(eps) of one step: the exact part against int (p_A - e^eps p_B)_+ at 30 digits
    (its ball about 1e-14 wide: the interpolant's share, sup |d - P| near 2^-44 of the mean
    density)."""
    with mp.workdps(30):
        ref = _delta_one(mp.mpf(1), mp.mpf(1) / 100, direction, mp.mpf(eps))
    with working_precision(128):
        v = PolyExactPart(_law(direction), 1, 2).terms(float(eps))[0]
    assert _contains(v, ref, mp.mpf(10) ** -16) and v.rad() < 1e-13 * abs(v.mid())


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_against_nested_quadrature(direction):
    """delta(eps) of two steps: the exact part against the nested 30-digit quadrature."""
    eps = "0.004" if direction == "add" else "0.02"
    with mp.workdps(30):
        ref = _delta_two(mp.mpf(1), mp.mpf(1) / 100, direction, mp.mpf(eps))
    with working_precision(128):
        v = PolyExactPart(_law(direction), 2, 3).terms(float(eps))[0]
    assert _contains(v, ref, mp.mpf(10) ** -16) and v.rad() < 1e-13 * abs(v.mid())


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_against_the_closed_forms_and_one_dimensional_integrals(direction):
    """k = 2, every term: the interpolant's sum against cf_sampled's (closed forms for j <= 1,
    certified one-dimensional Arb integrals for j = 2), at three eps."""
    law = _law(direction)
    for eps in (0.0, 0.004, 0.02 if direction == "remove" else 0.01):
        with working_precision(128):
            new = PolyExactPart(law, 2, 3).terms(eps)
            old = SampledExactPart(law, 2, 3).terms(eps)
        assert new[0].overlaps(old[0]) and new[0].rad() < 1e-12 * abs(new[0].mid())
        assert abs(float(new[1].mid()) - float(old[1].mid())) <= 1e-6 * abs(float(old[1].mid()))


@pytest.mark.parametrize("k,eps", [(4, 0.06), (6, 0.07), (10, 0.0993)])
def test_four_to_ten_steps_against_the_j3_split_inverted(k, eps):
    """delta(eps), remove direction: the new split (every term exact for k <= 5, else j < 6 and
    the rest inverted) against the j <= 2 split of cf_sampled with its remainder inverted at a
    long node count (a relative width of 1e-5): the enclosures meet."""
    law = _law("remove")
    rest, extra = law.lattice_split(k, None)
    with working_precision(64):
        if k < extra.J:
            new = cf.delta_enclosure([], eps, 1e-12, extra)
        else:
            new = cf.delta_enclosure([(rest, 1)], eps, 1e-12, extra)
        old = cf.delta_enclosure([(SampledRemainder(law, k, 3), 1)], eps, 1e-5,
                                 SampledExactPart(law, k, 3))
    assert max(new[0], old[0]) <= min(new[1], old[1])
    assert new[1] - new[0] <= 1e-10 * new[1] and old[1] - old[0] <= 1e-4 * old[1]


def _sandwich(T: int) -> tuple[float, float]:
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    return tuple(pld.from_laplace_mechanism(
        1.0, 1.0, pessimistic_estimate=p, value_discretization_interval=1e-5,
        sampling_prob=0.01).self_compose(T).get_epsilon_for_delta(1e-5) for p in (False, True))


@pytest.mark.parametrize("T", [4, 10, 63])
def test_few_steps_are_narrow_and_meet_dp_accountings_sandwich(T):
    """eps(1e-5), q = 1/100, b = 1, add/remove, at tol 1e-9 (before: T = 4 .. 63 3.5e-2 ..
    5.9e-9 wide with a ToleranceWarning): certified, at most 1e-9 wide, no warning, meeting
    dp_accounting's optimistic/pessimistic pair at grid 1e-5."""
    opt, pess = _sandwich(T)
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** T
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.guarantee == "certified" and v.route == "certified Laplace inversion"
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert opt <= pess and max(v.lo, opt) <= min(v.hi, pess)


def test_a_tighter_tolerance_never_gives_a_wider_enclosure():
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 8
    widths = []
    for tol in (5e-4, 1e-9, 1e-11):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ToleranceWarning)
            with ta.pld_options(tol=tol):
                v = ta.epsilon(f, R(1, 10**5), dps=15)
        widths.append(float(v.hi - v.lo))
    assert widths[0] >= widths[1] >= widths[2] > 0


def test_bad_J_is_refused_with_its_range():
    with pytest.raises(ValueError, match=r"1 <= J <= k \+ 1 = 4, not J = 5"):
        PolyExactPart(_law("remove"), 3, 5)


def test_one_step_at_and_above_the_largest_loss():
    """mu = 10, p = 1/10, add direction (largest loss l1 = -log(q + p e^{-mu}) ~ 0.10536):
    above l1 delta is exactly 0 (no loss reaches eps), and just below it (where the law's
    closed-form D(c) fails at the clipped saddle point c = 4096) the ball is finite and holds
    the 30-digit quadrature of int (p_A - e^eps p_B)_+."""
    law = SubsampledLaplaceLaw(Fraction(10), Fraction(1, 10), "add")
    with working_precision(128):
        for eps in (0.1054, 0.2, 0.5):
            val, der = PolyExactPart(law, 1, 2).terms(eps)
            assert val == 0 and der == 0 and val.rad() == 0
        v = PolyExactPart(law, 1, 2).terms(0.10535)[0]
    with mp.workdps(30):
        ref = _delta_one(mp.mpf(10), mp.mpf(1) / 10, "add", mp.mpf(0.10535))
        assert _delta_one(mp.mpf(10), mp.mpf(1) / 10, "add", mp.mpf(0.1054)) == 0
    assert v.is_finite() and _contains(v, ref, mp.mpf(10) ** -16)
    assert v.rad() < 1e-12 * abs(v.mid())
