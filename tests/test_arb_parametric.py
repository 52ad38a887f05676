"""Certified values of the joint pairs of Wang et al. (bounds/mixtures.py: GaussianJoint,
bounds/initialisation.py: DPGDInit) by Arb balls of a bracket of the threshold and the bounds
of numeric.curve_enclosure.arb_curve_enclosure. References formed here: GaussianJoint with
equal |mu_i| is G_mu (closed form); otherwise the curve alpha(s), f(alpha(s)) of Thm. 5.1
solved by bisection in s, the expectations over I ~ N(0, 1) by mpmath.quad (the library
integrates with Arb's acb.integral), at 20 digits."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.bounds.initialisation import DPGDInit
from tradeoff_algebra.bounds.mixtures import GaussianJoint
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _solve(alpha_of, f_of, alpha, span=40, steps=90):
    lo, hi = mp.mpf(-span), mp.mpf(span)  # alpha(s) decreases in s
    for _ in range(steps):
        m = (lo + hi) / 2
        if alpha_of(m) > alpha:
            lo = m
        else:
            hi = m
    return f_of((lo + hi) / 2)


@pytest.mark.parametrize("A", [R(1, 5), R(1, 1000), R(9, 10), ta.Phi(-1)])
def test_gaussian_joint(A):
    v = ta.evaluate(GaussianJoint([R(1, 3), R(2, 3)], [1, -1]), A, dps=30)
    g = ta.evaluate(ta.G(1), A, dps=30)
    assert v.guarantee == "certified" and abs(v.mid - g.mid) <= mp.mpf(10) ** -29 * g.mid
    f = GaussianJoint([R(1, 4), R(1, 4), R(1, 2)], [1, 2, 0])
    w = ta.evaluate(f, A, dps=20)
    assert w.guarantee == "certified"
    with mp.workdps(30):
        ws, ms = [mp.mpf(1) / 4, mp.mpf(1) / 4], [mp.one, mp.mpf(2)]
        a = mp.mpf(sp.N(A, 40))

        def point(lam):  # the Id half rejects with probability u on the slope -1 segment
            s, u = ((lam - 1, 0) if lam >= 1 else
                    ((lam + 1, 1) if lam <= -1 else (0, (1 - lam) / 2)))
            pairs = list(zip(ws, ms, strict=True))
            al = sum(w_ * mp.ncdf(-(s / m + m / 2)) for w_, m in pairs) + u / 2
            be = sum(w_ * mp.ncdf(s / m - m / 2) for w_, m in pairs) + (1 - u) / 2
            return al, be

        ref = _solve(lambda x: point(x)[0], lambda x: point(x)[1], a)
        assert abs(w.mid - ref) <= mp.mpf(10) ** -18 * ref


def test_dpgd_init_fast():
    """The certified ball contains the value of the library's mpmath route (the same Arb
    integrals at the points, mpmath bounds between them): the slow test below is the
    independent reference."""
    f = DPGDInit(1, R(1, 2), 1)
    v = ta.evaluate(f, R(3, 10), dps=20)
    g = ta.evaluate(ta.G(R(1, 2)), R(3, 10), dps=20)
    assert v.guarantee == "certified" and v.mid > g.mid  # above G_c (Wang et al., Fig. 2)
    from tradeoff_algebra.numeric.protocol import mp_value
    with mp.workdps(40):
        lo, hi = mp_value(f, mp.mpf(3) / 10, mp.mpf(7) / 10)
        assert abs(v.mid - (lo + hi) / 2) <= mp.mpf(10) ** -19 * v.mid


@pytest.mark.slow
@pytest.mark.parametrize("f, A", [(DPGDInit(1, R(1, 2), 1), R(3, 10)),
                                  (DPGDInit(1, 1, 1), ta.Phi(1))])
def test_dpgd_init(f, A):
    v = ta.evaluate(f, A, dps=20)
    assert v.guarantee == "certified"
    with mp.workdps(15):
        a_, c_ = mp.mpf(sp.N(f.a, 30)), mp.mpf(sp.N(f.c, 30))

        def E(h):  # E_I[h(mu_I)], mu_I = min(|a - I|, c), I ~ N(0, 1)
            g = lambda i: h(min(abs(a_ - i), c_)) * mp.npdf(i)  # noqa: E731
            return mp.quad(g, [-mp.inf, a_ - c_, a_, a_ + c_, mp.inf])

        def al(s):
            return E(lambda m: mp.ncdf(-(s / m + m / 2)))

        def be(s):
            return E(lambda m: mp.ncdf(s / m - m / 2))

        ref = _solve(al, be, mp.mpf(sp.N(A, 30)), span=4, steps=44)
        assert abs(v.mid - ref) <= mp.mpf(10) ** -10 * ref
