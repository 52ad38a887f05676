"""The power 1 - f(alpha) of a pair from the loss tails of its Neyman-Pearson tests, in mpmath
(nothing here imports ``tradeoff_algebra``'s numerics: the tails are the callers', written from
the loss laws, ``references.laplace_sum``, ``references.laplace_mixed`` and
:func:`gauss_laplace_tail` below).

The most powerful test of level alpha rejects L > t* and, on the atom at t*, a share of it
(Neyman-Pearson), t* = inf{t : P(L > t) <= alpha}; on {L = t*}, dQ = e^{t*} dP, so
1 - f(alpha) = Q(L > t*) + e^{t*} (alpha - P(L > t*)). t* by bisection; at the end t of the
bracket above t*, the formula's error is second order in t - t* where L has a density near t*
(the first-order terms of Q(L > t) and e^t P(L > t) cancel) and zero on an atom's plateau.
"""

from __future__ import annotations

from collections.abc import Callable

from tradeoff_algebra.numeric.context import mp


def np_power(tail_p: Callable, tail_q: Callable, alpha, lo, hi, iters: int = 200):
    """1 - f(alpha) (module docstring) at the current precision; ``lo`` < t* <= ``hi``
    (P(L > lo) > alpha >= P(L > hi), checked)."""
    a = mp.mpf(alpha)
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    assert tail_p(lo) > a >= tail_p(hi)
    for _ in range(iters):
        m = (lo + hi) / 2
        if tail_p(m) > a:
            lo = m
        else:
            hi = m
    return tail_q(hi) + mp.exp(hi) * (a - tail_p(hi))


def gauss_laplace_tail(mu_g, mu_l, under_q: bool, t):
    """P(L > t) of G(mu_g) (x) Laplace(mu_l): L = mu_g X - mu_g^2/2 + l(Y) with X ~ N(0, 1)
    under P and N(mu_g, 1) under Q, and the Laplace loss l(Y) = |Y| - |Y - mu_l| of Y ~ Lap(0, 1)
    (P) or Lap(mu_l, 1) (Q): atoms at +-mu_l (masses e^{-mu}/2 and 1/2 under P, 1/2 and
    e^{-mu}/2 under Q) and on (-mu_l, mu_l) the density e^{(-s - mu)/2}/4 (P) or
    e^{(s - mu)/2}/4 (Q). The Gaussian part's tail: Phi^c((s + mu^2/2)/mu) under P,
    Phi^c((s - mu^2/2)/mu) under Q."""
    mg, ml = mp.mpf(mu_g), mp.mpf(mu_l)
    shift = mg * mg / 2 * (-1 if under_q else 1)

    def g(s):  # P(Gaussian loss > s)
        return mp.ncdf(-(s + shift) / mg)

    h = mp.exp(-ml) / 2
    if under_q:
        atoms, dens = [(ml, mp.mpf(1) / 2), (-ml, h)], (lambda s: mp.exp((s - ml) / 2) / 4)
    else:
        atoms, dens = [(ml, h), (-ml, mp.mpf(1) / 2)], (lambda s: mp.exp((-s - ml) / 2) / 4)
    total = sum((m * g(t - a) for a, m in atoms), mp.zero)
    return total + mp.quad(lambda s: dens(s) * g(t - s), [-ml, ml])
