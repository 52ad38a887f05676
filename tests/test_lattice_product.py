"""The exact lattice composition of discrete Gaussians with rational sigma_i^2
(``numeric.lattice_product``, the route of ``routes/product.py``) against independent
references: brute-force enumeration of the joint lattice in Arb (every threshold decided in exact
rationals, the mass outside the windows bounded), and the library's single-factor route."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import NumericalError
from tradeoff_algebra.families.discrete_gaussian_law import DiscreteGaussianLattice
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.lattice_product import LatticeProduct
from tradeoff_algebra.routes.product import routes_for

ROUTE = "exact lattice product (integers, certified)"


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _exact(x) -> Fraction:
    """The exact value of an mpf."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def brute_delta(s2s: list[Fraction], eps: Fraction, prec: int = 160) -> arb:
    """delta(eps) of DG(1, sqrt(s2_1)) (x) ... by enumerating the joint lattice: the sum of
    Q(x) (1 - e^{eps - L(x)}) over x with L(x) = sum (2 x_i - 1)/(2 s2_i) > eps (exact
    rationals), each factor's masses on |x_i| <= K_i + 1 as Arb balls (theta by its direct sum
    with the geometric tail bound), plus [0, the Q-mass outside the windows]."""
    with arb_precision(prec):
        facs, outside = [], arb(0)
        for s2 in s2s:
            h = 1 / (2 * _q(s2))
            K = int(math.sqrt(2 * float(s2) * math.log(2) * (prec + 20))) + 3
            first = (-h * (K + 1) ** 2).exp()
            tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())  # sum_{|y| > K} e^{-h y^2}
            theta = sum(((-h * y * y).exp() for y in range(-K, K + 1)), arb(0))
            theta += arb(0, float(tail.upper()) * 2) / 2 + float(tail.upper()) / 2
            # Q(x) = P(x - 1): x - 1 in [-K, K]
            xs = range(-K + 1, K + 2)
            Q = {x: (-h * (x - 1) ** 2).exp() / theta for x in xs}
            facs.append((xs, Q, Fraction(1) / (2 * s2)))
            outside += tail / theta
        e = _q(eps)
        total = arb(0)
        for pt in itertools.product(*[xs for xs, _, _ in facs]):
            L = sum(((2 * x - 1) * r for x, (_, _, r) in zip(pt, facs, strict=True)), Fraction(0))
            if L <= eps:
                continue
            q = arb(1)
            for x, (_, Q, _) in zip(pt, facs, strict=True):
                q *= Q[x]
            total += q * (-(e - _q(L)).expm1())
        return total + arb(0, float(outside.upper()) * 2) / 2 + float(outside.upper()) / 2


def product(s2s):
    return ta.Tensor(*[ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(s.numerator, s.denominator)))
                       for s in s2s]) if len(s2s) > 1 else \
        ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(s2s[0].numerator, s2s[0].denominator)))


def lattice(s2s) -> LatticeProduct:
    lp = LatticeProduct.build([(DiscreteGaussianLattice(1, s), 1) for s in s2s])
    assert lp is not None
    return lp


@pytest.mark.parametrize("s2s, eps", [
    ([Fraction(1, 2), Fraction(1), Fraction(3, 2)], Fraction(1, 2)),
    ([Fraction(1, 2), Fraction(1), Fraction(3, 2)], Fraction(3)),
    ([Fraction(50), Fraction(60)], Fraction(3, 10)),
    ([Fraction(2), Fraction(2)], Fraction(0)),
    ([Fraction(5, 3), Fraction(7, 4)], Fraction(9, 4)),
])
def test_delta_against_brute_force(s2s, eps):
    ref = brute_delta(s2s, eps)
    assert ref.rad() < 1e-35 * ref.mid()
    b = lattice(s2s).delta(eps, 1e-32)
    with arb_precision(200):
        assert b.overlaps(ref)
        assert b.rad() <= 1e-31 * b.mid()


def test_one_factor_against_the_single_factor_route():
    """n = 1: the family's own certified profile (Euler-Maclaurin / direct tails)."""
    s2 = Fraction(5000, 7)
    for eps in (Fraction(1, 100), Fraction(1, 5)):
        b = lattice([s2]).delta(eps, 1e-32)
        v = ta.delta(ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(5000, 7))),
                     sp.Rational(eps.numerator, eps.denominator), dps=35)
        assert v.guarantee == "certified"
        with mp.workdps(60):
            lo, hi = v.interval()  # a certified point: within one unit of its last digit
        with arb_precision(200):
            lo, hi = _q(_exact(lo)), _q(_exact(hi))
            assert b.lower() <= hi and lo <= b.upper()


def test_narrow_windows_stay_certified():
    """Windows far too narrow (T = 2) and a coarse fixed point: the a posteriori bound (2)
    widens the ball, which still holds the reference."""
    s2s = [Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    ref = brute_delta(s2s, Fraction(1, 2))
    lp = lattice(s2s)
    c = lp.saddle(0.5)
    b = lp.delta_ball(Fraction(1, 2), c, 2.0, 40)
    with arb_precision(200):
        assert b.overlaps(ref)
        assert b.rad() > 1e-6 * b.mid()  # the deficit is visible, not hidden


def test_route_delta_and_epsilon():
    """ta.delta / ta.epsilon of a product of discrete Gaussians with a common denominator take
    the lattice route and are certified to 30 digits; the eps bracket is confirmed by the
    brute-force profile on both sides."""
    s2s = [Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    f = product(s2s)
    assert routes_for(f, "delta")[0].name == ROUTE
    v = ta.delta(f, sp.Rational(1, 2))
    assert v.guarantee == "certified" and v.route == ROUTE
    with mp.workdps(60):
        assert (v.hi - v.lo) <= mp.mpf(10) ** -29 * v.hi
    d = Fraction(1, 1000)
    e = ta.epsilon(f, sp.Rational(1, 1000))
    assert e.guarantee == "certified" and e.route == ROUTE
    with mp.workdps(60):
        assert (e.hi - e.lo) <= mp.mpf(10) ** -29 * e.hi
    lo, hi = _exact(e.lo), _exact(e.hi)
    with arb_precision(200):
        assert brute_delta(s2s, lo) > _q(d)
        assert brute_delta(s2s, hi) < _q(d)


def test_power_of_one_factor():
    """DG^{(x) 3} (a TensorPower leaf with multiplicity) against the enumeration."""
    f = ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(3, 2))) ** 3
    assert routes_for(f, "delta")[0].name == ROUTE
    v = ta.delta(f, sp.Rational(2, 3))
    ref = brute_delta([Fraction(3, 2)] * 3, Fraction(2, 3))
    with arb_precision(200):
        assert ref.lower() <= _q(_exact(v.hi)) and _q(_exact(v.lo)) <= ref.upper()


def test_incommensurate_keeps_the_other_routes():
    """sigma_i = 10 + i/10: the denominators of 1/sigma_i^2 have no small common multiple, so
    the lattice route does not apply and the former routes answer (inversion, then PLD)."""
    f = ta.Tensor(*[ta.DiscreteGaussian(1, 10 + sp.Rational(i, 10)) for i in range(1, 30)])
    names = [r.name for r in routes_for(f, "delta")]
    assert ROUTE not in names and names
    # two factors already need D = 53065602 and a window of about 4.1e6 > MAX_WINDOW points
    g = ta.DiscreteGaussian(1, sp.Rational(101, 10)) @ ta.DiscreteGaussian(1, sp.Rational(51, 5))
    names = [r.name for r in routes_for(g, "delta")]
    assert ROUTE not in names and names


def test_oversized_is_refused_at_once():
    """A common denominator D = 10^11 (rho = 1/10^11, 2/10^11): the root's window would hold
    about 10^7 lattice points, beyond MAX_WINDOW: the lattice refuses before any work, naming
    it, and the product route does not offer itself (the former routes answer)."""
    D = 10**11
    lp = lattice([Fraction(D, 2), Fraction(D, 4)])
    assert not lp.fits()
    with pytest.raises(NumericalError, match="MAX_WINDOW"):
        lp.delta(Fraction(1, 10**6), 1e-30)
    with pytest.raises(NumericalError, match="MAX_WINDOW"):
        lp.enclosure("delta", mp.mpf(1) / 2**20, 1e-30)
    f = ta.Tensor(ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(D, 2))),
                  ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(D, 4))))
    names = [r.name for r in routes_for(f, "delta")]
    assert ROUTE not in names and names


def test_time_limit_fires():
    """ta.time_limit stops the lattice composition (checked at every leaf and product)."""
    D = 10**7
    f = ta.Tensor(*[ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(D, 2 * k))) for k in (1, 2, 3)])
    assert routes_for(f, "delta")[0].name == ROUTE
    with pytest.raises(ta.TimeLimitExceeded), ta.time_limit(0.01):
        ta.delta(f, sp.Rational(1, 10**3))
