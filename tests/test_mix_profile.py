"""The closed-form privacy profiles of f_p, C_p(f) and the add/remove hull of a Poisson-sampled
mechanism (operators/subsample.py: ``profile_form`` of Mix, Subsample and SymmetricHull),
certified in Arb, against delta computed from the explicit densities by quadrature.

For f = T(P, Q) and R = (1 - p) P + p Q: delta_{T(P, R)}(eps) = int (r - e^eps p)_+ and
delta_{T(R, P)}(eps) = int (p - e^eps r)_+; the add/remove hull's delta is the larger. The
integrals are split where the integrand has kinks (the likelihood ratio's breakpoints and the
level crossing), so mpmath's quadrature is accurate to its working precision."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _laplace_pair(mu):
    return (lambda x: mp.exp(-abs(x)) / 2, lambda x: mp.exp(-abs(x - mu)) / 2,
            [mp.zero, mu])


def _gauss_pair(mu):
    return (mp.npdf, lambda x: mp.npdf(x - mu), [mp.zero, mu])


def _delta_by_quadrature(pair, mu, p, eps, direction):
    """int (a - e^eps b)_+ for (a, b) = (r, p) ("remove") or (p, r) ("add"), by quadrature
    split at the pair's breakpoints and at the crossings of the integrand, found on a grid."""
    dens_p, dens_q, cuts = pair(mu)

    def dens_r(x):
        return (1 - p) * dens_p(x) + p * dens_q(x)

    a, b = (dens_r, dens_p) if direction == "remove" else (dens_p, dens_r)
    E = mp.exp(eps)

    def g(x):
        return a(x) - E * b(x)

    xs = [mp.mpf(-60) + k * mp.mpf(120) / 4000 for k in range(4001)]
    pts = sorted(set(cuts) | {mp.findroot(g, (x0, x1), solver="anderson")
                              for x0, x1 in zip(xs, xs[1:], strict=False)
                              if g(x0) * g(x1) < 0})
    edges = [-mp.inf] + pts + [mp.inf]
    return sum(mp.quad(lambda x: max(g(x), 0), [lo, hi]) for lo, hi in zip(edges, edges[1:],
                                                                         strict=False))


@pytest.mark.parametrize("family,pair", [(ta.Laplace, _laplace_pair), (ta.G, _gauss_pair)])
@pytest.mark.parametrize("mu,p,eps", [(1, R(1, 100), R(1, 100)), (2, R(1, 10), R(1, 2)),
                                      (R(1, 2), R(1, 3), R(1, 10))])
def test_profiles_are_certified_and_contain_the_quadrature(family, pair, mu, p, eps):
    with mp.workdps(40):
        remove = _delta_by_quadrature(pair, mp.mpf(sp.Rational(mu).p) / sp.Rational(mu).q,
                                      mp.mpf(p.p) / p.q, mp.mpf(eps.p) / eps.q, "remove")
        add = _delta_by_quadrature(pair, mp.mpf(sp.Rational(mu).p) / sp.Rational(mu).q,
                                   mp.mpf(p.p) / p.q, mp.mpf(eps.p) / eps.q, "add")
        assert add <= remove  # the symmetric operand's f_p direction is the larger
        for f, ref in ((ta.Mix(family(mu), p), remove), (ta.C(p, family(mu)), remove),
                       (ta.AddRemove(ta.Mix(family(mu), p)), max(add, remove))):
            v = ta.delta(f, eps, dps=30)
            assert v.guarantee in ("certified", "exact"), (f, v)
            tol = mp.mpf(10) ** -28 * max(ref, mp.mpf(10) ** -30)
            lo, hi = mp.mpf(v.lo), mp.mpf(v.hi)  # in this context's precision
            assert lo - tol <= ref <= hi + tol, (f, v, ref)


def test_epsilon_of_a_sampled_laplace_step_is_certified():
    """eps(1e-5) of one Poisson-sampled Laplace step, q = 1/100: a certified bracket whose
    delta values at its ends straddle 1e-5 by the quadrature above."""
    f = ta.laplace_mechanism(1, 1, sampling="poisson", p=R(1, 100))
    v = ta.epsilon(f, R(1, 10**5), dps=20)
    assert v.guarantee == "certified", v
    with mp.workdps(40):
        at = [_delta_by_quadrature(_laplace_pair, mp.one, mp.mpf(1) / 100, e, "remove")
              for e in (mp.mpf(v.lo) * (1 - mp.mpf(10) ** -15),
                        mp.mpf(v.hi) * (1 + mp.mpf(10) ** -15))]
    assert at[0] > mp.mpf(10) ** -5 > at[1]
