"""numeric/finite_small.py's exact paths for f_{eps0,0}^(x)k: e^{eps(delta)} in integers where
e^{eps0} is rational (``ratio_exact``), delta(eps) in integers (``delta_exact``) and on integer
atoms in Arb (``delta_ball``), the exact decisions of ``loss_above`` at ties, against the direct
sum over the k + 1 atoms (Kairouz, Oh & Viswanath; Dong, Roth & Su, Prop. 6) in Fractions, or
in mpmath at 60 digits where e^eps is irrational; eps and delta at the atoms' lattice points."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import finite_small as fs
from tradeoff_algebra.numeric.context import arb_precision, mp

R = sp.Rational
M = mpmath.MPContext()
M.dps = 60
KS = [1, 2, 3, 4, 5, 10, 30]


def brute_delta(x: Fraction, k: int, r: Fraction) -> Fraction:
    """delta at e^eps = r of the pair with e^{eps0} = x, by the direct sum over the atoms whose
    likelihood ratio x^(2j - k) exceeds r (every atom, no suffix sums)."""
    tot = Fraction(0)
    for j in range(k + 1):
        if x ** (2 * j - k) > r:
            tot += math.comb(k, j) * (x**j - r * x ** (k - j))
    return tot / (1 + x) ** k


def mp_delta(eps0: sp.Expr, k: int, eps: sp.Expr) -> mpmath.mpf:
    """The same sum at 60 digits for any eps0, eps (the atoms above eps decided at 60 digits)."""
    e0, e = M.mpf(sp.N(eps0, 80)), M.mpf(sp.N(eps, 80))
    x, tot = M.exp(e0), M.zero
    for j in range(k + 1):
        if e0 * (2 * j - k) > e:
            tot += math.comb(k, j) * (x**j - M.exp(e) * x ** (k - j))
    return tot / (1 + x) ** k


def node(eps0: sp.Expr, k: int):
    return ta.EpsDelta(eps0, 0) ** k if k > 1 else ta.EpsDelta(eps0, 0)


def contains(v, ref) -> bool:
    with mp.workdps(70):
        lo, hi = v.interval()
        r = mp.mpf(ref.numerator) / ref.denominator if isinstance(ref, Fraction) else mp.mpf(ref)
        return lo <= r <= hi


@pytest.mark.parametrize("x", [Fraction(3), Fraction(5, 2), Fraction(9, 8), Fraction(4)])
@pytest.mark.parametrize("k", KS + [64])
def test_ratio_exact_solves_delta_exactly(x, k):
    """delta(log r) = d exactly at the returned r (the direct sum); delta(0) <= d where None."""
    for d in (Fraction(1, 10**6), Fraction(1, 10), Fraction(1, 3), Fraction(999, 1000),
              Fraction(1, 10**30)):
        r = fs.ratio_exact(x.numerator, x.denominator, k, d.numerator, d.denominator)
        if r is None:
            assert brute_delta(x, k, Fraction(1)) <= d
        else:
            assert r > 1 and brute_delta(x, k, r) == d, (x, k, d)


@pytest.mark.parametrize("x", [Fraction(3), Fraction(5, 2)])
@pytest.mark.parametrize("k", KS)
def test_ratio_exact_at_the_lattice_points(x, k):
    """d = delta at a lattice point x^e of the loss: e^{eps(d)} is that point exactly."""
    for e in range(-k, k + 1, 2):
        if e <= 0:
            continue
        d = brute_delta(x, k, x**e)
        if d == 0:  # (the top atom: delta(k eps0) = 0, no level in (0, 1))
            continue
        r = fs.ratio_exact(x.numerator, x.denominator, k, d.numerator, d.denominator)
        assert r == x**e, (x, k, e)


@pytest.mark.parametrize("eps0", [sp.log(3), sp.log(R(5, 2)), 2 * sp.log(2)], ids=str)
@pytest.mark.parametrize("k", KS)
def test_epsilon_contains_the_exact_root(eps0, k):
    """ta.epsilon certified and containing log r, r the exact root of the direct sum (found
    here by bisection on r in Fractions: an enclosure 2^-200 wide), at levels inside segments
    and at the lattice points (eps a multiple of eps0 exactly)."""
    x = Fraction(*fs._exp_ratio(eps0))
    levels = [Fraction(1, 10**6), Fraction(1, 7)]
    levels += [brute_delta(x, k, x**e) for e in range(1, k, 2 if k % 2 else 1)
               if (e - k) % 2 == 0 and 0 < brute_delta(x, k, x**e) < 1]
    for d in levels:
        v = ta.epsilon(node(eps0, k), R(d.numerator, d.denominator))
        assert v.guarantee == "certified" and v.is_point
        if brute_delta(x, k, Fraction(1)) <= d:
            assert v.lo == 0
            continue
        lo, hi = Fraction(1), x**k
        while hi - lo > Fraction(1, 2**200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if brute_delta(x, k, mid) > d else (lo, mid)
        with M.workdps(80):
            ref_lo = M.log(M.mpf(lo.numerator) / lo.denominator)
            ref_hi = M.log(M.mpf(hi.numerator) / hi.denominator)
            vlo, vhi = v.interval()
            assert M.mpf(vlo) <= ref_hi and ref_lo <= M.mpf(vhi), (eps0, k, d)


EPS0 = [sp.log(3), sp.log(R(5, 2)), R(1, 2), sp.Integer(2)]


@pytest.mark.parametrize("eps0", EPS0, ids=str)
@pytest.mark.parametrize("k", KS)
def test_delta_at_and_between_the_lattice_points(eps0, k):
    """ta.delta at every lattice point of the loss eps0 (2m - k) >= 0 (written as the same
    kind of number as eps0: c log r, or a Rational), half-way between, at 0, at 1/10 and past
    the top: exact where e^eps0 and e^eps are rational (equal to the direct sum in
    Fractions), else certified and containing the 60-digit sum."""
    xr = fs._exp_ratio(eps0)
    pts = [eps0 * e for e in range(-k, k + 1, 2) if e >= 0]
    pts += [eps0 * R(e, 2) for e in range(1, 2 * k, 2)]
    pts += [sp.Integer(0), R(1, 10), eps0 * (k + 1)]
    for E in pts:
        v = ta.delta(node(eps0, k), E)
        xE = fs._exp_ratio(E)
        if xr is not None and xE is not None:
            ref = brute_delta(Fraction(*xr), k, Fraction(*xE))
            assert v.guarantee == "exact", (eps0, k, E)
            assert Fraction(int(v.exact.p), int(v.exact.q)) == ref, (eps0, k, E)
        else:
            assert v.guarantee in ("exact", "certified"), (eps0, k, E)
            assert contains(v, mp_delta(eps0, k, E)), (eps0, k, E, v)


@pytest.mark.parametrize("k", KS)
def test_delta_exact_against_the_direct_sum(k):
    for p0, q0 in ((3, 1), (5, 2), (7, 3)):
        for p, q in ((1, 1), (2, 1), (7, 5), (3**k, 1), (10**6, 3)):
            eps0 = sp.log(R(p0, q0))
            E = sp.log(R(p, q)) if (p, q) != (1, 1) else sp.Integer(0)
            got = fs.delta_exact(eps0, k, E)
            assert got == brute_delta(Fraction(p0, q0), k, Fraction(p, q)), (p0, q0, k, p, q)


def test_loss_above_is_exact_at_ties():
    assert fs.loss_above(sp.log(3), 2, sp.log(9)) is False  # 3^2 = 9: a tie is no atom above
    assert fs.loss_above(sp.log(3), 2, 2 * sp.log(3)) is False
    assert fs.loss_above(sp.log(3), 3, sp.log(26)) is True
    assert fs.loss_above(sp.log(3), -1, sp.log(R(1, 3))) is False
    assert fs.loss_above(sp.log(3), -1, sp.log(R(1, 4))) is True
    assert fs.loss_above(R(1, 2), 3, R(3, 2)) is False
    assert fs.loss_above(R(1, 2), 3, R(3, 2) - R(1, 10**40)) is True
    assert fs.loss_above(R(1, 2), 3, sp.log(3)) is None  # (mixed forms: Arb decides)
    assert fs.loss_above(sp.log(3), 1, sp.Integer(0)) is True
    assert fs.loss_above(R(1, 2), 1, sp.Integer(0)) is True


@pytest.mark.parametrize("k", KS)
def test_integer_atoms_agree_with_the_arb_atoms(k):
    """delta_ball on the integer atoms of x = 3 and on the Arb atoms of the exact ball 3 (the
    same formula): overlapping balls, at E rational (Arb decides the segment)."""
    for E in (R(1, 10), R(3, 2), R(7, 1)):
        with arb_precision(200):
            a = fs.delta_ball(sp.log(3), k, E)
            at = fs._Atoms(arb(3), k)
            y = fs.exp_ball(E)
            m = next((m for m in range(fs._first_segment(k), k + 1)
                      if at.ratio(2 * m - k) > y), k + 1)
            u, v = at.uv(m) if m <= k else (arb(0), arb(0))
            b = (u - y * v) / at.total
        assert a.overlaps(b) and a.rad() < 1e-50, (k, E)
        assert contains_ball(a, mp_delta(sp.log(3), k, E))


def contains_ball(ball, ref) -> bool:
    """The Arb ball meets the 60-digit reference widened by 1e-55."""
    with arb_precision(300):
        return ball.overlaps(arb(mpmath.nstr(ref, 60, strip_zeros=False), "1e-55"))


@pytest.mark.parametrize("x", [Fraction(3), Fraction(5, 2)])
@pytest.mark.parametrize("k", KS)
def test_level_at_delta_zero(x, k):
    """d = delta(0) exactly (the total variation): eps(d) = 0 exactly; just below it, the root
    is above 0 and solves the direct sum exactly."""
    d = brute_delta(x, k, Fraction(1))
    assert fs.ratio_exact(x.numerator, x.denominator, k, d.numerator, d.denominator) is None
    eps0 = sp.log(R(x.numerator, x.denominator))
    v = ta.epsilon(node(eps0, k), R(d.numerator, d.denominator))
    assert v.guarantee == "certified" and v.lo == 0 and v.hi == 0
    d2 = d - Fraction(1, 10**30)
    r = fs.ratio_exact(x.numerator, x.denominator, k, d2.numerator, d2.denominator)
    assert r > 1 and brute_delta(x, k, r) == d2
