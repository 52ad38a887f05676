"""Few steps of the Poisson-subsampled Laplace mechanism with the j <= 2 density components
summed exactly (numeric/cf_sampled.py: the j = 2 terms as certified one-dimensional Arb
integrals; numeric/cf_route.py's ``_sampled_split``).

References, each independent of the code under test: mpmath quadrature (20 to 30 digits) over
the Laplace densities of the pair, nested, split at every kink: the two-density term
int_{(0, mu)^2} (A(x1) A(x2) - e^eps B(x1) B(x2))_+ for the j = 2 integral, and
delta(eps) = int (p_A - e^eps p_B)_+ of the two-fold product (T = 2) as
int A(x1) delta_1(eps - loss(x1)) dx1, delta_1 the one-step delta by quadrature.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb
from references.sampled_laplace import sampled_laplace_pair, sampled_laplace_x_of_loss

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace_sampled import SubsampledLaplaceLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _delta_one(mu, p, direction, y, lo, hi):
    """int_lo^hi (A(x) - e^y B(x))_+ dx, split at 0, mu and the crossing."""
    a, b, _ = sampled_laplace_pair(mu, p, direction)
    pts = sorted({lo, hi} | {t for t in (mp.zero, mu) if lo < t < hi}
                 | ({sampled_laplace_x_of_loss(mu, p, direction, y)} - {None}))
    pts = [t for t in pts if lo <= t <= hi]
    return mp.quad(lambda x: max(mp.zero, a(x) - mp.exp(y) * b(x)), pts)


def _outer(mu, p, direction, eps, inner, lo, hi):
    """int_lo^hi A(x1) inner(eps - loss(x1)) dx1, split where eps - loss(x1) meets the
    kinks of the inner function (the loss at 0 and mu)."""
    a, _, loss = sampled_laplace_pair(mu, p, direction)
    kinks = {eps - loss(mp.zero), eps - loss(mu)}
    pts = {lo, hi} | {t for t in (mp.zero, mu) if lo < t < hi}
    pts |= {x for v in kinks if (x := sampled_laplace_x_of_loss(mu, p, direction, v)) is not None
            and lo < x < hi}
    return mp.quad(lambda x: a(x) * inner(eps - loss(x)), sorted(pts))


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_two_density_integral_matches_nested_quadrature(direction):
    mu, p = Fraction(1), Fraction(1, 100)
    law = SubsampledLaplaceLaw(mu, p, direction)
    _, extra = law.lattice_split(2, 3)
    with mp.workdps(20):
        m, pp = mp.mpf(1), mp.mpf(1) / 100
        for y in ("0", "0.004", "0.011", "0.02"):
            with working_precision(128):
                h = extra._two(arb(y), False)[0]
            ref = _outer(m, pp, direction, mp.mpf(y),
                         lambda v: _delta_one(m, pp, direction, v, mp.zero, m), mp.zero, m)
            mid, rad = mp.mpf(h.mid().str(25, radius=False)), mp.mpf(h.rad().str(5, radius=False))
            assert abs(mid - ref) <= rad + mp.mpf(10) ** -17 * max(ref, mp.mpf(10) ** -12)
            assert rad <= mp.mpf(10) ** -25


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_two_steps_are_exact_against_quadrature(direction):
    """delta of Mix(L_1, 1/100)^2 (or its inverse) at one eps: the exact route against the
    nested 30-digit quadrature int (p_A - e^eps p_B)_+ over R^2 (slow)."""
    from tradeoff_algebra import Laplace
    from tradeoff_algebra.operators.subsample import Mix
    from tradeoff_algebra.operators.unary import Inverse

    f = Mix(Laplace(1), R(1, 100)) ** 2
    f = f if direction == "remove" else Inverse(f)
    with mp.workdps(30):
        m, pp = mp.mpf(1), mp.mpf(1) / 100
        one = lambda v: _delta_one(m, pp, direction, v, -mp.inf, mp.inf)  # noqa: E731
        for eps in ("0.01",):
            with ta.pld_options(tol=1e-10):  # (the default's few steps: cells, 3e-5 wide)
                v = ta.delta(f, sp.Float(eps, 30), dps=20)
            ref = _outer(m, pp, direction, mp.mpf(eps), one, -mp.inf, mp.inf)
            assert v.guarantee == "certified" and v.route == "certified Laplace inversion"
            assert mp.mpf(v.lo) <= ref * (1 + mp.mpf(10) ** -25) and \
                ref <= mp.mpf(v.hi) * (1 + mp.mpf(10) ** -25)
            assert v.hi - v.lo <= 1e-9 * v.hi


def test_two_steps_of_the_mechanism_are_exact_and_narrow():
    """eps of the add/remove mechanism at T = 2 (before: 7.5e-8 wide with a ToleranceWarning):
    every term summed exactly, 1e-9 narrow, inside the enclosure the route gave before
    [0.0337895437885999, 0.0337895463079999]."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** 2
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.guarantee == "certified" and 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert 0.0337895437885999 <= v.lo and v.hi <= 0.0337895463079999


@pytest.mark.parametrize("T", [2, 3])
def test_few_steps_meet_dp_accountings_sandwich(T):
    """The certified enclosure of eps(1e-5) (q = 1/100, b = 1, add/remove) meets
    dp_accounting's optimistic/pessimistic pair at grid 1e-5, computed here."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    opt, pess = (pld.from_laplace_mechanism(
        1.0, 1.0, pessimistic_estimate=p, value_discretization_interval=1e-5,
        sampling_prob=0.01).self_compose(T).get_epsilon_for_delta(1e-5) for p in (False, True))
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100)) ** T
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**5), dps=15)
    assert v.guarantee == "certified" and 0 < v.hi - v.lo <= 1e-9 * v.hi
    assert opt <= pess and max(v.lo, opt) <= min(v.hi, pess)
