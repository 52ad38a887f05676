"""The discrete Gaussian's atoms summed against one L_mu (``numeric.cf_atom_sum`` with the
law's ``atom_list``: a window of atoms and a bound of the rest) against an independent sum:
the discrete Gaussian's masses at 40 digits times the Laplace pair's hockey-stick divergence by
mpmath quadrature of (p - e^x q)_+ (Dong, Roth & Su, Prop. 6 for the product)."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


def _laplace_hockey(x, mu):
    """int (p - e^x q)_+ for p = Lap(0, 1), q = Lap(mu, 1) densities, by quadrature."""
    p = lambda t: mp.exp(-abs(t)) / 2  # noqa: E731
    q = lambda t: mp.exp(-abs(t - mu)) / 2  # noqa: E731
    f = lambda t: max(p(t) - mp.exp(x) * q(t), 0)  # noqa: E731
    # the integrand's kinks: 0, mu and where p = e^x q on (0, mu): p/q = e^{mu - 2t}, t = (mu - x)/2
    pts = sorted({mp.mpf(0), mp.mpf(mu), min(max((mu - x) / 2, mp.zero), mp.mpf(mu))})
    return mp.quad(f, [-mp.inf] + pts + [mp.inf])


def _reference(sigma, mu, eps):
    with mp.workdps(40):
        s2 = mp.mpf(sigma) ** 2
        Y = int(16 * sigma) + 10  # (the rest: below e^-128)
        w = {x: mp.exp(-mp.mpf(x) ** 2 / (2 * s2)) for x in range(-Y, Y + 1)}
        z = mp.fsum(w.values())
        total = mp.zero
        for x, wx in w.items():
            loss = (1 - 2 * mp.mpf(x)) / (2 * s2)
            if loss <= eps - mu:  # (then p <= e^{eps - loss} q everywhere: 0)
                continue
            total += wx / z * _laplace_hockey(eps - loss, mu)
        return total


@pytest.mark.parametrize("sigma, mu, eps", [(2, 1, 1), (R(1, 2), 1, 2), (2, 1, R(1, 10))])
def test_delta_against_quadrature(sigma, mu, eps):
    f = ta.DiscreteGaussian(1, sigma) @ ta.Laplace(mu)
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, eps)
    assert v.guarantee == "certified"
    ref = _reference(sigma, mu, mp.mpf(sp.Rational(eps).p) / sp.Rational(eps).q)
    with mp.workdps(40):
        lo, hi = v.interval()
        assert lo <= ref <= hi
        assert hi - lo <= 1e-9 * ref


def test_epsilon_brackets_and_tighter_is_never_wider():
    f = ta.DiscreteGaussian(1, 2) @ ta.Laplace(1)
    v = ta.epsilon(f, R(1, 10**6))
    with ta.pld_options(tol=1e-9):
        w = ta.epsilon(f, R(1, 10**6))
    assert w.guarantee == "certified" and w.hi - w.lo <= v.hi - v.lo
    assert w.hi - w.lo <= 1e-9 * w.hi
    # delta just below lo exceeds the level, just above hi does not (the reference's values)
    below = _reference(2, 1, w.lo * (1 - mp.mpf(10) ** -7))
    above = _reference(2, 1, w.hi * (1 + mp.mpf(10) ** -7))
    assert below > mp.mpf(10) ** -6 > above
