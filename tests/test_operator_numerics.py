"""Numeric evaluation of Inverse, Mix, Subsample, Symmetrize, SymmetricHull, Max and Group
against independent references (tests/operator_reference.py) at 30+ digits."""

from fractions import Fraction

import mpmath
import numpy as np
import operator_reference as ref
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.operators.maxgroup import Group
from tradeoff_algebra.operators.subsample import Mix

R = sp.Rational
DPS = 30
TOL = mpmath.mpf(10) ** -28


def _contains(v, x, rel=TOL):
    """Enclosure v contains x up to a relative 1e-28 (the reference's own rounding)."""
    with workdps(80):
        slack = rel * max(abs(x), mpmath.mpf(10) ** -300)
        return v.lo - slack <= x <= v.hi + slack


def _narrow(v, rel=None):
    with workdps(80):
        rel = mpmath.mpf(10) ** -25 if rel is None else rel
        return v.hi - v.lo <= rel * max(abs(v.mid), mpmath.mpf(10) ** -300)


ALPHAS = [R(1, 10**12), R(1, 50), R(1, 5), R(1, 2), R(7, 10), R(99, 100)]


# -- Inverse (generic bracketing) ---------------------------------------------------------------
@pytest.mark.parametrize("alpha", ALPHAS)
def test_inverse_of_mix_against_findroot(alpha):
    f = Mix(ta.G(1), R(1, 2))
    v = ta.evaluate(f.inverse(), alpha, DPS)
    with workdps(50):
        r = ref.inverse(ref.mix(ref.gauss(1), 0.5))(mp.mpf(alpha.p) / alpha.q)
    assert _contains(v, r) and _narrow(v)


def test_inverse_power_tail_without_cancellation():
    # 1 - f^{-1}(alpha) at tiny alpha: f_p^{-1}(alpha) = 1 - s with s ~ alpha / (1 - p)
    f = Mix(ta.Laplace(1), R(1, 3))
    a = R(1, 10**40)
    v = ta.roc(f.inverse(), a, DPS)
    # on the last piece f_p(t) = (1/3) e^{-1} (1 - t) + (2/3)(1 - t): s = alpha / (e^{-1}/3 + 2/3)
    with workdps(60):
        s = mp.mpf(10) ** -40 / (mpmath.exp(-1) / 3 + mp.mpf(2) / 3)
    assert _contains(v, s) and _narrow(v)


def test_inverse_flat_part_and_zero():
    # f_{1, 1/10} is 0 on [9/10, 1] and f(0) = 9/10: f^{-1}(0) = 9/10, f^{-1}(alpha) = 0 above
    f = Mix(ta.EpsDelta(1, R(1, 10)), R(1, 2))  # f_p(0) = 1 - 1/20
    assert ta.evaluate(f.inverse(), R(96, 100), DPS).mid == 0
    with workdps(50):
        r = ref.inverse(ref.mix(ref.epsdelta(1, mp.mpf(1) / 10), 0.5))(mp.mpf("0.01"))
    v = ta.evaluate(f.inverse(), R(1, 100), DPS)
    assert _contains(v, r)


def test_inverse_closed_form_stays_a_point():
    v = ta.evaluate(ta.G(1).inverse(), R(1, 5), DPS)
    assert v.is_point
    assert v.mid == ta.evaluate(ta.G(1), R(1, 5), DPS).mid


def test_inverse_of_inverse_is_the_function():
    f = Mix(ta.G(1), R(1, 3))
    a = R(3, 10)
    assert ta.evaluate(ta.Inverse(f.inverse()), a, DPS).mid == ta.evaluate(f, a, DPS).mid


# -- Mix and Max ----------------------------------------------------------------------------------
def test_mix_power_and_exact():
    f = Mix(ta.G(1), R(1, 4))
    a = R(1, 10**30)
    with workdps(60):
        # 1 - f_p = p (1 - G) + (1 - p) alpha, (1 - G)(a) = Phi(Phi^{-1}(a) + 1)
        x = mp.mpf(10) ** -30
        r = ref.ncdf(ref.ncdf_inv(x) + 1) / 4 + 3 * x / 4
    assert abs(ta.roc(f, a, DPS).mid - r) < TOL * r
    e = Mix(ta.EpsDelta(sp.log(3), R(1, 10)), R(1, 3))
    expected = R(1, 3) * (1 - R(1, 10) - R(3, 7)) + R(2, 3) * R(6, 7)
    assert ta.evaluate(e, R(1, 7), DPS).exact == expected


def test_max_pointwise():
    f = ta.Max(ta.G(1), Mix(ta.Laplace(1), R(1, 2)))
    for a in (R(1, 100), R(1, 3), R(4, 5)):
        v = ta.evaluate(f, a, DPS)
        with workdps(50):
            x = mp.mpf(a.p) / a.q
            r = max(ref.gauss(1)(x), ref.mix(ref.laplace(1), 0.5)(x))
        assert _contains(v, r)


# -- Group (Thm. 3) --------------------------------------------------------------------------------
@pytest.mark.parametrize("f,rf,k", [
    (ta.G(R(1, 2)), ref.gauss(0.5), 3),
    (ta.Laplace(1), ref.laplace(1), 2),
    (Mix(ta.G(1), R(1, 2)), ref.mix(ref.gauss(1), 0.5), 3),
])
def test_group_against_composition(f, rf, k):
    for a in (R(1, 1000), R(1, 10), R(1, 2), R(9, 10)):
        v = ta.evaluate(Group(f, k), a, DPS)
        with workdps(60):
            r = ref.group(rf, k)(mp.mpf(a.p) / a.q)
        assert _contains(v, r) and _narrow(v)


def test_group_gaussian_is_k_mu_and_power_is_tail_accurate():
    # 1 - (1 - G_mu)^{o k} = G_{k mu} (Thm. 3); the power at alpha = 1e-50 has full digits
    a = R(1, 10**50)
    v = ta.roc(Group(ta.G(1), 4), a, DPS)
    w = ta.roc(ta.G(4), a, DPS)
    assert abs(v.mid - w.mid) <= TOL * w.mid


def test_group_exact_for_rational_epsdelta():
    f = ta.EpsDelta(sp.log(2), R(1, 10))
    a = R(1, 7)
    x = a
    for _ in range(3):
        x = 1 - max(0, 1 - R(1, 10) - 2 * x, (1 - R(1, 10) - x) / 2)
    assert ta.evaluate(Group(f, 3), a, DPS).exact == 1 - x


# -- Subsample C_p (Def. 6, Eq. (13)) --------------------------------------------------------------
def _cp_reference_pieces(rf, xstar, p, x):
    """Eq. (13) written out with the reference functions (independent of the library)."""
    fp = ref.mix(rf, p)
    r = fp(xstar)
    if x <= xstar:
        return fp(x)
    if x <= r:
        return xstar + r - x
    return ref.inverse(fp)(x)


@pytest.mark.parametrize("f,rf,xstar", [
    (ta.G(1), lambda: ref.gauss(1), lambda: ref.ncdf(-mp.mpf(1) / 2)),
    (ta.Laplace(1), lambda: ref.laplace(1), lambda: mpmath.exp(-mp.mpf(1) / 2) / 2),
    (ta.EpsDelta(1, R(1, 10)), lambda: ref.epsdelta(1, mp.mpf(1) / 10),
     lambda: (1 - mp.mpf(1) / 10) / (1 + mpmath.e)),
])
def test_subsample_against_eq13_pieces(f, rf, xstar):
    p = R(3, 10)
    for a in (R(1, 10**6), R(1, 10), R(1, 4), R(1, 2), R(7, 10), R(95, 100)):
        v = ta.evaluate(ta.C(p, f), a, DPS)
        with workdps(50):
            r = _cp_reference_pieces(rf(), xstar(), mp.mpf(3) / 10, mp.mpf(a.p) / a.q)
        assert _contains(v, r) and _narrow(v)


def test_eq13_against_brute_force_envelope():
    """Eq. (13) against the lower convex hull of sampled graphs of f_p and f_p^{-1}, at 30 digits.

    The graph of f_p^{-1} is the mirror image of the graph of f_p, so the points (x, f_p(x))
    and (f_p(x), x) sample both without root finding; the lower hull of all of them lies above
    the envelope min{f_p, f_p^{-1}}^{**} (it is the envelope of a subset of the epigraph) by
    at most the chord error of the sampling, h^2/8 max|f_p''| on smooth stretches. With 800
    points (spacing 1/800 away from the ends) the measured gap stays below 1e-6, which is
    asserted together with "the sampled hull is never below the enclosure" (up to 1e-28).
    """
    f, p = ta.G(1), R(1, 2)
    with workdps(30):
        fp = ref.mix(ref.gauss(1), mp.mpf(1) / 2)
        xs = [mp.mpf(i) / 800 for i in range(801)]
        pts = {(x, fp(x)) for x in xs}
        pts |= {(y, x) for x, y in pts}
        pts = sorted(pts)
        hull = ref.lower_hull([q[0] for q in pts], [q[1] for q in pts])
        gaps = []
        for x in (mp.mpf(1) / 40, mp.mpf(1) / 4, mp.mpf(1) / 2, mp.mpf(3) / 4, mp.mpf(9) / 10):
            v = ta.evaluate(ta.C(p, f), x, DPS)
            h = ref.hull_eval(hull, x)
            assert h >= v.lo - TOL
            gaps.append(h - v.hi)
        assert max(gaps) <= mpmath.mpf("1e-6")


def test_eq13_exact_envelope_for_piecewise_linear():
    """f_{log 3, 1/10}, p = 1/2: the envelope of the piecewise-linear min{f_p, f_p^{-1}} is
    exact from its vertices and crossings (Fractions); the library agrees to 1e-28 and with
    the corrected Eq. (14) max{f_{eps', delta'}, 1 - c - alpha}."""
    e, d, p = Fraction(3), Fraction(1, 10), Fraction(1, 2)
    xs = (1 - d) / (1 + e)
    f_knots = [(Fraction(0), 1 - d), (xs, xs), (1 - d, Fraction(0)), (Fraction(1), Fraction(0))]
    fp = [(x, p * y + (1 - p) * (1 - x)) for x, y in f_knots]
    hull = ref.pl_min_envelope(fp, ref.pl_inverse_knots(fp))
    g = ta.C(R(1, 2), ta.EpsDelta(sp.log(3), R(1, 10)))
    for a in (Fraction(1, 50), Fraction(1, 5), Fraction(2, 5), Fraction(3, 5), Fraction(9, 10)):
        exact = ref.hull_eval(hull, a)
        v = ta.evaluate(g, R(a.numerator, a.denominator), DPS)
        if v.exact is not None:
            assert v.exact == R(exact.numerator, exact.denominator)
        else:
            with workdps(60):
                assert _contains(v, mp.mpf(exact.numerator) / exact.denominator)


@settings(max_examples=6, deadline=None)
@given(st.fractions(Fraction(1, 20), Fraction(19, 20)),
       st.fractions(Fraction(1, 100), Fraction(99, 100)))
def test_subsample_monotone_in_p_and_between_f_and_id(p, a):
    """f = C_1(f) <= C_q(f) <= C_p(f) <= Id for p <= q (Dong, Roth & Su, after Thm. 9)."""
    P, A = R(p.numerator, p.denominator), R(a.numerator, a.denominator)
    Q = (P + 1) / 2
    f = ta.Laplace(1)
    cp, cq = ta.evaluate(ta.C(P, f), A, 20), ta.evaluate(ta.C(Q, f), A, 20)
    assert ta.evaluate(f, A, 20).lo <= cq.hi and cq.lo <= cp.hi and cp.lo <= 1 - A


@settings(max_examples=4, deadline=None)
@given(st.fractions(Fraction(1, 10), Fraction(9, 10)))
def test_subsample_is_symmetric(a):
    """C_p(f) is symmetric: C(C(alpha)) = alpha where C is strictly decreasing."""
    A = R(a.numerator, a.denominator)
    g = ta.C(R(2, 5), ta.G(1))
    v = ta.evaluate(g, A, 25)
    w = ta.evaluate(g, v.mid, 25)
    with workdps(40):
        assert abs(w.mid - mp.mpf(A.p) / A.q) < mpmath.mpf(10) ** -20


def test_nested_subsample_and_inverse_of_mix():
    # C_q(C_p(L_1)) at alpha = 1/10, below both fixed points (e^{-1/2}/2 for L_1 and
    # (1 - p(1 - e^{-1/2}))/2 for C_p(L_1), the fixed point of the linear piece of Eq. (13)):
    # the first piece of Eq. (13) twice, q (p L + (1 - p) Id) + (1 - q) Id
    g = ta.C(R(1, 2), ta.C(R(1, 2), ta.Laplace(1)))
    v = ta.evaluate(g, R(1, 10), DPS)
    with workdps(50):
        inner = ref.mix(ref.laplace(1), 0.5)
        r = 0.5 * inner(mp.mpf(1) / 10) + 0.5 * (1 - mp.mpf(1) / 10)
    assert _contains(v, r)
    h = ta.Inverse(Mix(ta.G(1), R(1, 2)))
    # C_p of a symmetrised inverse: the fixed point and the pieces go through nested brackets
    v = ta.evaluate(ta.C(R(1, 3), ta.Symmetrize(h)), R(1, 20), 12)
    with workdps(40):
        x = mp.mpf(1) / 20
        fp = ref.mix(ref.gauss(1), mp.mpf(1) / 2)
        s = max(fp(x), ref.inverse(fp)(x))  # Symmetrize(h) = max{f_p^{-1}, f_p}
        r = s / 3 + 2 * (1 - x) / 3        # alpha = 1/20 lies below the fixed point
        assert _contains(v, r, rel=mpmath.mpf(10) ** -11)


def test_subsample_exact_on_rational_pieces():
    g = ta.C(R(1, 2), ta.EpsDelta(sp.log(3), R(1, 10)))
    x = R(9, 10) / 4
    assert ta.evaluate(g, R(1, 10), DPS).exact == R(1, 2) * (1 - R(1, 10) - R(3, 10)) + R(9, 20)
    assert ta.evaluate(g, R(2, 5), DPS).exact == R(3, 5) - R(1, 2) * (1 - 2 * x)


# -- Symmetrize, SymmetricHull ---------------------------------------------------------------
def test_symmetrize_is_max_of_f_and_inverse():
    h = Mix(ta.Laplace(1), R(1, 3))
    for a in (R(1, 50), R(1, 3), R(3, 4)):
        v = ta.evaluate(ta.Symmetrize(h), a, DPS)
        with workdps(50):
            x = mp.mpf(a.p) / a.q
            fp = ref.mix(ref.laplace(1), mp.mpf(1) / 3)
            r = max(fp(x), ref.inverse(fp)(x))
        assert _contains(v, r) and v.hi >= ta.evaluate(h, a, DPS).lo


def test_symmetric_hull_routes():
    a = R(1, 3)
    assert ta.evaluate(ta.SymmetricHull(ta.G(1)), a, DPS).mid == ta.evaluate(ta.G(1), a, DPS).mid
    v = ta.evaluate(ta.SymmetricHull(Mix(ta.G(1), R(1, 2))), a, DPS)
    w = ta.evaluate(ta.C(R(1, 2), ta.G(1)), a, DPS)
    assert (v.lo, v.hi) == (w.lo, w.hi)
    # asymmetric operands go through numeric.envelope (tests/test_subsample_asymmetric.py);
    # C_{1/2}(f_{1/2}) = C(f_{1/4}) = C_{1/4}(f) for symmetric f
    v = ta.evaluate(ta.C(R(1, 2), Mix(ta.G(1), R(1, 2))), a, DPS)
    w = ta.evaluate(ta.C(R(1, 4), ta.G(1)), a, DPS)
    assert v.lo <= w.hi and w.lo <= v.hi and _narrow(v, mpmath.mpf(10) ** -28)
    g = Group(Mix(ta.G(1), R(1, 2)), 2)
    assert ta.evaluate(ta.SymmetricHull(g), a, 15).lo <= ta.evaluate(g, a, 15).hi


# -- float64 curves --------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [
    Mix(ta.G(1), R(1, 2)).inverse(), ta.Symmetrize(Mix(ta.Laplace(1), R(1, 3))),
    ta.C(R(3, 10), ta.G(1)), ta.C(R(1, 5), ta.EpsDelta(1, R(1, 10))), Group(ta.G(1), 3),
])
def test_curve_agrees_with_mp(f):
    xs = np.array([0.0, 0.01, 0.2, 0.5, 0.8, 0.99, 1.0])
    ys = f.curve(xs)
    for x, y in zip(xs, ys, strict=True):
        assert abs(y - float(ta.evaluate(f, float(x), 20).mid)) < 1e-9


# -- validation ---------------------------------------------------------------------------------
def test_invalid_parameters():
    for bad in (-R(1, 10), R(11, 10), float("nan")):
        with pytest.raises(ta.InvalidParameter):
            Mix(ta.G(1), bad)
        with pytest.raises(ta.InvalidParameter):
            ta.C(bad, ta.G(1))
    for k in (0, R(3, 2), -2):
        with pytest.raises(ta.InvalidParameter):
            Group(ta.G(1), k)
    with pytest.raises(ta.InvalidParameter):
        ta.evaluate(ta.C(sp.Symbol("p"), ta.G(1)), R(1, 2))
