"""Powers and products of discrete Laplace mechanisms with rational scales (and discrete
Gaussians with rational sigma^2) composed exactly on their lattice (``families.discrete_laplace.
DiscreteLaplaceLattice`` through ``numeric.lattice_product``), against independent references:
the Q-law of the clipped outputs' sum by mpmath convolution at 50 digits, the same law as an Arb
polynomial power (no tilt, no window), and dp_accounting's pessimistic PLD (sanity: at or above
our enclosure)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import pytest
import sympy as sp
from flint import arb, arb_poly, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra import DiscreteGaussian, DiscreteLaplace
from tradeoff_algebra.families.discrete_laplace import DiscreteLaplaceLattice
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.lattice_product import LatticeProduct, lattice_factor

ROUTE = "exact lattice product (integers, certified)"


def dl_q_masses_mp(d: int, t):
    """Q-masses of the clipped output y = 0..Delta of DiscreteLaplace(Delta, t) (mpmath): the
    geometric tails of L_Z(Delta, t), summed directly."""
    t = Fraction(t)
    r = mp.exp(-mp.mpf(t.denominator) / t.numerator)
    c = (1 - r) / (1 + r)
    q = [c * r ** abs(y - d) for y in range(d + 1)]
    q[0] = r**d / (1 + r)  # P(x <= 0) under L_Z(Delta, t): sum_{x <= 0} c r^{Delta - x}
    q[d] = 1 / (1 + r)  # P(x >= Delta)
    return q


def mp_power_delta(d: int, t: Fraction, k: int, eps):
    """delta(eps) of DiscreteLaplace(d, t)^k by mpmath convolution of the Q-law of sum y_i (the
    loss is (2 S - k Delta)/t), at the working precision."""
    q = dl_q_masses_mp(d, t)
    law = [mp.one]
    for _ in range(k):
        new = [mp.zero] * (len(law) + d)
        for i, a in enumerate(law):
            for j, b in enumerate(q):
                new[i + j] += a * b
        law = new
    tt = mp.mpf(t.numerator) / t.denominator
    total = mp.zero
    for s, m in enumerate(law):
        loss = (2 * s - k * d) / tt
        if loss > eps:
            total += m * -mp.expm1(eps - loss)
    return total


@lru_cache(maxsize=4)
def _arb_power_law(d: int, t: Fraction, k: int, prec: int):
    """The Q-law of the sum of k clipped outputs as one Arb polynomial power (python-flint
    ``arb_poly``): masses as balls of their closed forms, every coefficient kept (no tilt, no
    window)."""
    with arb_precision(prec):
        it = arb(fmpq(t.denominator, t.numerator))
        r = (-it).exp()
        c = (1 - r) / (1 + r)
        q = [c * (-(d - y) * it).exp() for y in range(d + 1)]
        q[0] = (-d * it).exp() / (1 + r)
        q[d] = 1 / (1 + r)
        return arb_poly(q) ** k


def arb_power_delta(d: int, t: Fraction, k: int, eps: Fraction, prec: int = 256) -> arb:
    """delta(eps) of DiscreteLaplace(d, t)^k summed over :func:`_arb_power_law` in Arb."""
    law = _arb_power_law(d, t, k, prec)
    with arb_precision(prec):
        e = arb(fmpq(eps.numerator, eps.denominator))
        total = arb(0)
        for s in range(k * d + 1):
            loss = Fraction(2 * s - k * d) / t
            if loss > eps:
                total += law[s] * -(e - arb(fmpq(loss.numerator, loss.denominator))).expm1()
        return total


def _route(f, question="delta"):
    from tradeoff_algebra.routes.product import routes_for

    return [r.name for r in routes_for(f, question)]


def _ball_holds(v, ref) -> bool:
    lo, hi = v.interval()
    return lo <= ref <= hi


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 3), Fraction(5), Fraction(14),
                                 Fraction(29, 2)])
def test_power_delta_against_mpmath_convolution(eps):
    f = DiscreteLaplace(3, 2) ** 10
    assert ROUTE in _route(f)
    v = ta.delta(f, sp.Rational(eps.numerator, eps.denominator))
    assert v.guarantee == "certified" and v.route == ROUTE
    with mp.workdps(50):
        ref = mp_power_delta(3, Fraction(2), 10, mp.mpf(eps.numerator) / eps.denominator)
        assert _ball_holds(v, ref)
        assert abs(v.mid - ref) <= ref * mp.mpf(10) ** -25


def test_power_epsilon_against_mpmath_convolution():
    f = DiscreteLaplace(3, 2) ** 10
    v = ta.epsilon(f, sp.Rational(1, 10**6))
    assert v.guarantee == "certified" and v.route == ROUTE
    lo, hi = v.interval()
    assert hi - lo <= hi * mp.mpf(10) ** -15  # the brief asks 1e-9
    with mp.workdps(50):
        d = mp.mpf(1) / 10**6
        assert mp_power_delta(3, Fraction(2), 10, lo) > d >= mp_power_delta(3, Fraction(2), 10, hi)
    assert abs(float(v.mid) - 14.999885471109986) < 1e-12


@pytest.mark.parametrize("k", [2000, pytest.param(10**4, marks=pytest.mark.slow)])
def test_many_factors_against_arb_poly_power(k):
    f = DiscreteLaplace(3, 2) ** k
    v = ta.epsilon(f, sp.Rational(1, 10**6), dps=20)
    assert v.guarantee == "certified"
    lo, hi = v.interval()
    assert hi - lo <= hi * mp.mpf(10) ** -12
    d = arb(fmpq(1, 10**6))
    # delta(lo) > d >= delta(hi) on the reference (delta is non-increasing)
    lo_q, hi_q = (Fraction(int(x.man_exp[0])) * Fraction(2) ** int(x.man_exp[1]) for x in (lo, hi))
    with arb_precision(256):
        assert arb_power_delta(3, Fraction(2), k, lo_q - Fraction(1, 10**9)) > d
        assert arb_power_delta(3, Fraction(2), k, hi_q + Fraction(1, 10**9)) < d
    at = Fraction(int(0.8 * k))
    dv = ta.delta(f, sp.Rational(at.numerator), dps=20)
    assert dv.guarantee == "certified"
    with arb_precision(256):
        ref = arb_power_delta(3, Fraction(2), k, at)
    with mp.workdps(40):
        r = mp.mpf(ref.mid().str(40, radius=False))
        assert abs(dv.mid - r) <= r * mp.mpf(10) ** -18


def test_mixed_with_discrete_gaussians():
    """DG(1, sqrt 2)^3 (x) DL(3, 2)^5: loss steps 1/2 and 1 with offsets 1/4 and -3/2 (one
    lattice of denominator 4); the reference convolves the laws of the exact losses at 50
    digits, the discrete Gaussian's masses on |y| <= 60 (the rest below 10^-300)."""
    f = DiscreteGaussian(1, sp.sqrt(2)) ** 3 @ DiscreteLaplace(3, 2) ** 5
    assert ROUTE in _route(f)
    with mp.workdps(50):
        s2 = mp.mpf(2)
        ys = range(-60, 61)
        w = [mp.exp(-y * y / (2 * s2)) for y in ys]
        th = sum(w)
        dg = {}
        for y, m in zip(ys, w, strict=True):  # L = (2 y + 1)/(2 sigma^2) = y/2 + 1/4 (Q)
            loss = Fraction(y, 2) + Fraction(1, 4)
            dg[loss] = dg.get(loss, 0) + m / th
        q = dl_q_masses_mp(3, 2)
        dl = {Fraction(2 * y - 3, 2): q[y] for y in range(4)}
        law = {Fraction(0): mp.one}
        for part, n in ((dg, 3), (dl, 5)):
            for _ in range(n):
                new: dict = {}
                for a, ma in law.items():
                    for b, mb in part.items():
                        new[a + b] = new.get(a + b, 0) + ma * mb
                law = {x: m for x, m in new.items() if m > mp.mpf(10) ** -80}
        for eps in (Fraction(1), Fraction(9, 2), Fraction(10)):
            v = ta.delta(f, sp.Rational(eps.numerator, eps.denominator))
            assert v.guarantee == "certified" and v.route == ROUTE
            e = mp.mpf(eps.numerator) / eps.denominator
            ref = sum(m * -mp.expm1(e - mp.mpf(x.numerator) / x.denominator)
                      for x, m in law.items() if x > eps)
            assert abs(v.mid - ref) <= ref * mp.mpf(10) ** -20


def test_lattice_view_is_exact_and_bounded():
    lf = lattice_factor(DiscreteLaplace(3, 2))
    assert isinstance(lf, DiscreteLaplaceLattice)
    assert (lf.step, lf.offset, lf.loss_max) == (1, Fraction(-3, 2), Fraction(3, 2))
    assert lattice_factor(DiscreteLaplace(2, 1 / sp.log(2))) is None  # an irrational step
    with arb_precision(200):
        m = lf.mgf_ball(arb(0))
        assert m.contains(1) and m.rad() < arb(2) ** -150  # the Q-masses sum to 1
        m1 = lf.mgf_ball(arb(-1))  # E_Q[e^{-L}] = sum of the P-masses = 1
        assert m1.contains(1) and m1.rad() < arb(2) ** -150
    lp = LatticeProduct.build([(lf, 10)])
    assert lp.top == 15
    assert lp.delta(Fraction(15), 1e-20) == 0  # no loss above the largest


def test_edges_and_tolerances():
    f = DiscreteLaplace(3, 2) ** 10
    top = ta.epsilon(f, 0)
    assert top.guarantee == "certified" and top.mid == 15
    assert ta.delta(f, 15).mid == 0
    widths = []
    for dps in (10, 20, 30):
        v = ta.epsilon(f, sp.Rational(1, 10**6), dps=dps)
        lo, hi = v.interval()
        widths.append(hi - lo)
    assert widths[0] >= widths[1] >= widths[2]


def test_dp_accounting_lies_at_or_above():
    """dp_accounting's PLD is pessimistic: its eps(1e-6) is at or above our enclosure's lower
    end (and near it)."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    pld = pldm.from_discrete_laplace_mechanism(parameter=0.5, sensitivity=3,
                                               value_discretization_interval=1e-4)
    ours = ta.epsilon(DiscreteLaplace(3, 2) ** 10, sp.Rational(1, 10**6))
    theirs = pld.self_compose(10).get_epsilon_for_delta(1e-6)
    lo, hi = ours.interval()
    assert float(lo) - 1e-9 <= theirs <= float(hi) + 1e-2
    assert math.isfinite(theirs) and dpa is not None
