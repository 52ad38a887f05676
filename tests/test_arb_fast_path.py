"""The Arb fast path of evaluate/roc for closed forms (numeric.protocol._arb_point).

Each ball form is checked against a reference computed here in global mpmath at 150 digits by
another route (Phi^{-1} by root finding on log Phi, the pieces of Laplace and Eq. (4) formed
from exact rationals), at the extreme levels and parameters of the reliability issue; the test
first asserts the fast path was taken, so it tests the balls and not the fallback.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.levels import as_level
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.protocol import _arb_point

R = sp.Rational
LEVELS = [R(1, 10**300), R(1, 10**20), R(3, 1000), R(1, 7), R(1, 2), R(5, 7),
          1 - R(1, 10**20), 1 - R(1, 10**100), sp.Rational(0.0305444736411411)]


def _ref_gaussian(mu, A, power):
    with mpmath.workdps(150):
        a = mpmath.mpf(sp.N(A, 170))
        ac = mpmath.mpf(sp.N(1 - A, 170))
        m = mpmath.mpf(sp.N(mu, 170))
        small = min(a, ac)
        # Phi^{-1}(small) by root finding on log Phi (the library uses erfcinv in Arb)
        x0 = -mpmath.sqrt(-2 * mpmath.log(small)) if small < 0.1 else mpmath.mpf(0)
        z = mpmath.findroot(lambda x: mpmath.log(mpmath.ncdf(x)) - mpmath.log(small), x0,
                            tol=mpmath.mpf(10) ** -140)
        z_up = -z if a <= ac else z  # Phi^{-1}(1 - alpha)
        return mpmath.ncdf(m - z_up) if power else mpmath.ncdf(z_up - m)


def _ref_laplace(mu, A, power):
    with mpmath.workdps(150):
        m = mpmath.mpf(sp.N(mu, 170))
        a = mpmath.mpf(sp.N(A, 170))
        ac = mpmath.mpf(sp.N(1 - A, 170))
        em = mpmath.exp(-m)
        if 2 * a < em:
            v = 1 - mpmath.exp(m) * a
        elif 2 * a <= 1:
            v = em / (4 * a)
        else:
            v = em * ac
        return 1 - v if power else v


def _check(f, A, dps, power, ref):
    v = _arb_point(f, as_level(A), dps, power)
    assert v is not None, (f, A, dps, power)  # the fast path was taken
    public = (ta.roc if power else ta.evaluate)(f, A, dps=dps)
    assert public.lo == v.lo and public.hi == v.hi
    with mpmath.workdps(150):
        assert abs(mpmath.mpf(v.mid) - ref) <= mpmath.mpf(10) ** -dps * abs(ref), \
            (f, A, dps, power, v.mid, ref)


FAMILIES = [(ta.G, _ref_gaussian, mu) for mu in (R(1, 10), 1, sp.sqrt(2), 40, 0.7316384619438412)]
FAMILIES += [(ta.Laplace, _ref_laplace, mu) for mu in (R(1, 10), 1, 3, 1.9186)]


@pytest.mark.parametrize("family,reference,mu", FAMILIES)
@pytest.mark.parametrize("dps", [15, 40])
def test_closed_form_balls(family, reference, mu, dps):
    f = family(mu)
    for A in LEVELS:
        for power in (False, True):
            ref = reference(f.mu, A, power)
            if ref != 0:  # (Laplace's zero piece: the mpmath route)
                _check(f, A, dps, power, ref)


def test_laplace_piece_boundary_is_joined():
    # alpha = e^{-mu}/2 to 60 digits: the balls cannot decide the piece at 15 digits, the
    # two neighbouring pieces are joined, and the value is still right
    mu = R(1)
    A = sp.Rational(sp.N(sp.exp(-mu) / 2, 60))
    for power in (False, True):
        _check(ta.Laplace(mu), A, 15, power, _ref_laplace(mu, A, power))


@pytest.mark.parametrize("eps,d", [(1, R(1, 10)), (R(1, 2), R(39, 200)), (50, R(1, 10**6)),
                                   (0.0305444736411411, R(999, 1000))])
def test_epsdelta_balls(eps, d):
    f = ta.EpsDelta(eps, d)
    e = sp.exp(f.eps)
    kink = (1 - f.delta) / (1 + e)
    for A in [R(1, 10**300), R(1, 10**5), sp.Rational(sp.N(kink / 2, 40)),
              sp.Rational(sp.N((kink + 1 - f.delta) / 2, 40))]:
        with mpmath.workdps(150):
            a = mpmath.mpf(sp.N(A, 170))
            ee = mpmath.mpf(sp.N(e, 170))
            dd = mpmath.mpf(sp.N(f.delta, 170))
            val = max(mpmath.mpf(0), mpmath.mpf(sp.N(1 - f.delta - e * A, 170)),
                      mpmath.mpf(sp.N((1 - f.delta - A) / e, 170)))
            pw = min(mpmath.mpf(1), dd + ee * a, mpmath.mpf(sp.N(1 - (1 - f.delta - A) / e, 170)))
        for power, ref in ((False, val), (True, pw)):
            if ref == 0:
                continue
            for dps in (15, 30):
                _check(f, A, dps, power, ref)


def test_cancelling_ball_retried_at_four_times_the_precision():
    # 1 - delta - alpha cancels to 1e-45 at alpha = 9/10 - 10^-45: the ball is too wide at
    # 15 digits plus guard bits (about 150 bits lost), once more at four times the precision
    # it carries every digit; at 10^-100 that is not enough either, and the mpmath route
    # answers (with every digit it claims)
    f = ta.EpsDelta(1, R(1, 10))
    A = R(9, 10) - R(1, 10**45)
    p = _arb_point(f, A, 15, False)
    assert p is not None and p.guarantee == "certified"
    with mpmath.workdps(80):
        ref = mpmath.mpf(10) ** -45 / mpmath.e
        assert abs(mpmath.mpf(p.mid) - ref) <= 1e-15 * ref
    A = R(9, 10) - R(1, 10**100)
    assert _arb_point(f, A, 15, False) is None
    v = ta.evaluate(f, A, dps=15)
    with mpmath.workdps(200):
        ref = mpmath.mpf(10) ** -100 / mpmath.e
        assert abs(mpmath.mpf(v.mid) - ref) <= 1e-15 * ref


def test_balls_agree_with_the_mpmath_route_on_random_inputs():
    """300 random (family, parameter, level, dps): the Arb point, where it is taken, agrees
    with the mpmath route (computed twice at rising precision, Ziv) to every digit asked."""
    import random

    from tradeoff_algebra.numeric.protocol import _level_pair, certified, mp_roc, mp_value

    rng = random.Random(11)
    taken = 0
    for _ in range(300):
        k = rng.randrange(3)
        p = rng.choice([R(rng.randrange(1, 400), rng.randrange(1, 100)), rng.random() * 30])
        f = (ta.G(p), ta.Laplace(p), ta.EpsDelta(p, R(rng.randrange(0, 99), 100)))[k]
        e = rng.randrange(1, 300)
        A = rng.choice([R(rng.randrange(1, 10**6), 10**6), R(1, 10**e), 1 - R(1, 10**e),
                        sp.Rational(rng.random())])
        dps = rng.choice([15, 30, 60])
        power = rng.random() < 0.5
        v = _arb_point(f, as_level(A), dps, power)
        if v is None:
            continue
        taken += 1

        def compute(f=f, A=A, power=power):
            a, ac = _level_pair(A)
            return (mp_roc if power else mp_value)(f, a, ac)

        w = certified(compute, dps + 5, lambda: "reference")
        with mpmath.workdps(dps + 40):
            ref = mpmath.mpf(w.mid)
            assert abs(mpmath.mpf(v.mid) - ref) <= mpmath.mpf(10) ** (1 - dps) * abs(ref), \
                (f, A, dps, power, v.mid, w)
    assert taken >= 200


# -- irrational closed-form levels (numeric.protocol._arb_level_point) ---------------------------
@pytest.mark.parametrize("mu, x, dps", [(R(1, 10), R(221, 20), 30), (1, R(43, 2), 30),
                                        (3, R(5, 2), 40), (R(1, 10), R(4021, 20), 20)])
def test_gaussian_at_an_irrational_level(mu, x, dps):
    """roc(G_mu, Phi(-x)) = Phi(mu - x) (Eq. (5) at alpha = Phi(-x)): the level is a closed
    form, enclosed in Arb; the reference is mpmath's ncdf of the exact difference."""
    from tradeoff_algebra.numeric.protocol import _arb_level_point

    A = ta.Phi(-x)
    v = _arb_level_point(ta.G(mu), A, dps, True)
    assert v is not None and v.guarantee == "certified"
    public = ta.roc(ta.G(mu), A, dps=dps)
    assert public.guarantee == "certified" and public.lo == v.lo
    with mp.workdps(dps + 60):
        ref = mp.ncdf(mp.mpf(sp.N(mu - x, dps + 80)))
        assert abs(mp.mpf(v.mid) - ref) <= mp.mpf(10) ** (1 - dps) * ref


def test_mix_at_an_irrational_level():
    """Mix(G_1, 1/2)(Phi(-1/2)) = (G_1(x*) + 1 - x*)/2 = 1/2 exactly (x* = Phi(-1/2) is the
    fixed point of G_1): a certified ball around 1/2; sqrt(2)/7 against p G(a) + (1 - p)(1 - a)
    formed in mpmath at 80 digits."""
    v = ta.evaluate(ta.Mix(ta.G(1), R(1, 2)), ta.Phi(-R(1, 2)), dps=30)
    assert v.guarantee == "certified" and v.contains(mp.mpf(1) / 2)
    A = sp.sqrt(2) / 7
    w = ta.evaluate(ta.Mix(ta.G(R(9, 5)), R(7, 20)), A, dps=30)
    assert w.guarantee == "certified"
    with mp.workdps(80):
        a = mp.sqrt(2) / 7
        g = mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * a - 1) - mp.mpf(9) / 5)
        ref = mp.mpf(7) / 20 * g + mp.mpf(13) / 20 * (1 - a)
        assert abs(mp.mpf(w.mid) - ref) <= mp.mpf(10) ** -29 * ref


def test_irrational_level_without_a_ball_form_stays_an_estimate():
    """A node with no ball form at an irrational level still answers by its mpmath route, and
    says it is an estimate."""
    from tradeoff_algebra.numeric.protocol import _arb_level_point

    f = ta.NormalPair(0, 1, 1, 2)
    if _arb_level_point(f, sp.sqrt(2) / 7, 20, False) is None:
        assert ta.evaluate(f, sp.sqrt(2) / 7, dps=20).guarantee == "estimate"
