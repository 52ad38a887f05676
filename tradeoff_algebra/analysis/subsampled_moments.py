"""Certified kl, kappa_2, kappa_3 and bar kappa_3 of C_p(G_mu) (Dong, Roth & Su, Lemma 4,
with the misprint of its bar kappa_3 corrected).

C_p(G_mu) follows Eq. (13): f_p = p G_mu + (1 - p) Id on [0, x*], the segment of slope -1 from
x* = Phi(-mu/2) to f_p(x*), and f_p^{-1} beyond. With x = Phi(-t) on the first piece,
|f_p'(x)| = e^{Z(t)}, Z(t) = log(p e^{mu t - mu^2/2} + 1 - p) >= 0 for t >= mu/2; on the third
piece log|f'| = -Z(t) with dx = e^{Z(t)} phi(t) dt = (p phi(t - mu) + (1 - p) phi(t)) dt. So

    kl          = p int_{mu/2}^oo Z(t) (phi(t - mu) - phi(t)) dt,
    kappa_2     = int_{mu/2}^oo Z^2 (p phi(t - mu) + (2 - p) phi(t)) dt,
    kappa_3     = int_{mu/2}^oo Z^3 (p phi(t - mu) + (2 - p) phi(t)) dt,
    bar kappa_3 = int |Z + kl|^3 phi + kl^3 (1 - p)(2 Phi(mu/2) - 1)
                  + int |Z - kl|^3 (p phi(t - mu) + (1 - p) phi(t)),

the middle term being the slope -1 segment (length (1 - p)(2 Phi(mu/2) - 1), log|f'| = 0) that
Lemma 4 as printed leaves out (proofs/audit/drs_part2.md, Lemma 4). The integrals are computed
by Arb's rigorous integration (python-flint ``acb.integral``) on [mu/2, mu + K] with a bound on
the Gaussian tail beyond, the |Z - kl|^3 kink split at Z = kl with the error of the split
bounded: the results are guaranteed enclosures.
"""

from __future__ import annotations

import math

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import NumericalError
from ..numeric import budget
from ..numeric.arb import arb_endpoint
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.precision_loop import precision_loop
from ..numeric.value import Value

__all__ = ["subsampled_gaussian_moments", "moment_value", "MOMENTS"]

MOMENTS = ("kl", "kappa2", "kappa3", "kappa3_bar")


def _tail(K, alpha, beta, k: int):
    """A bound on int_K^oo (alpha u + beta)^k 2 phi(u) du for K >= 1, alpha, beta >= 0:
    (alpha u + beta)^k <= (alpha + beta)^k u^k <= (alpha + beta)^k u^4 / K^(4-k) for u >= K,
    and int_K^oo u^4 phi = phi(K)(K^3 + 3K) + 3 Phi(-K) <= phi(K)(K^3 + 3K + 3/K) (Mills)."""
    from flint import arb

    phiK = (-(K * K) / 2).exp() / (2 * arb.pi()).sqrt()
    return 2 * (alpha + beta) ** k * phiK * (K**3 + 3 * K + 3 / K) / K ** (4 - k)


def _moments_arb(p, mu, prec: int) -> dict:
    from flint import acb, arb

    c = 1 / (2 * arb.pi()).sqrt()
    lo = mu / 2
    K = arb(math.sqrt(2 * math.log(2) * (prec + 40)) + 2)
    hi = mu + K

    def Z(t, analytic):
        return (p * (mu * t - mu * mu / 2).exp() + (1 - p)).log(analytic=analytic)

    def phi(t):
        return c * (-(t * t) / 2).exp()

    def integrate(g, a, b):
        tol = arb(2) ** (-prec)

        def guarded(t, analytic):  # (an exception would not leave the integration: budget)
            return acb(0) if budget.expired() else g(t, analytic)

        out = acb.integral(guarded, a, b, abs_tol=tol, rel_tol=tol).real
        budget.check()
        return out

    kl_i = integrate(lambda t, an: p * Z(t, an) * (phi(t - mu) - phi(t)), lo, hi)
    wk2 = lambda t: p * phi(t - mu) + (2 - p) * phi(t)  # noqa: E731
    k2_i = integrate(lambda t, an: Z(t, an) ** 2 * wk2(t), lo, hi)
    k3_i = integrate(lambda t, an: Z(t, an) ** 3 * wk2(t), lo, hi)
    # the tails beyond hi = mu + K: Z(t) <= mu t + log 2 <= mu u + mu^2 + 1 (u = t - mu >= K),
    # and the weights are at most 2 phi(u) there (phi(t) <= phi(t - mu) for t >= mu/2)
    a_, b_ = mu, mu * mu + 1
    kl = kl_i + arb(0, (p * _tail(K, a_, b_, 1)).upper())
    k2 = k2_i + arb(0, _tail(K, a_, b_, 2).upper())
    k3 = k3_i + arb(0, _tail(K, a_, b_, 3).upper())
    # bar kappa_3: split |Z - kl|^3 at the root t0 of Z = kl (Z increases)
    t0 = (((kl.exp() - 1 + p) / p).log() + mu * mu / 2) / mu
    m = arb(t0.mid())
    wB = lambda t: p * phi(t - mu) + (1 - p) * phi(t)  # noqa: E731
    part_a = integrate(lambda t, an: (Z(t, an) + kl) ** 3 * phi(t), lo, hi)
    part_b = (integrate(lambda t, an: (kl - Z(t, an)) ** 3 * wB(t), lo, m)
              + integrate(lambda t, an: (Z(t, an) - kl) ** 3 * wB(t), m, hi))
    # the split error: on |t - m| <= w (w >= |t0 - m|), |Z - kl| <= Z'max w + 2 rad(kl), with
    # Z' <= mu; the integrand changes by at most twice its size there
    w = t0.rad() + abs(t0.mid() - m.mid()) + arb(2) ** (-prec)
    e = mu * w + 2 * kl.rad()
    split = 2 * e**3 * 2 * c * 2 * w
    # the slope -1 segment: length (1 - p)(2 Phi(mu/2) - 1) = (1 - p) erf(mu/(2 sqrt 2))
    middle = kl**3 * (1 - p) * ((mu / 2) / arb(2).sqrt()).erf()
    tails = _tail(K, a_, b_ + kl.upper(), 3) * 2
    k3b = part_a + part_b + middle + arb(0, (split + tails).upper())
    return {"kl": kl, "kappa2": k2, "kappa3": k3, "kappa3_bar": k3b}


def subsampled_gaussian_moments(p: sp.Expr, mu: sp.Expr, dps: int) -> dict:
    """Enclosures (lo, hi) as mpf of kl, kappa2, kappa3 and kappa3_bar of C_p(G_mu), for
    0 < p <= 1 and mu > 0 numbers, with relative width about 10^-dps."""
    P, M = sp.sympify(p), sp.sympify(mu)
    target = 2.0 ** (-(dps * 3.33) - 4)

    def compute(prec: int) -> tuple[bool, dict]:
        with arb_precision(prec):
            out = _moments_arb(arb_ball(P), arb_ball(M), prec)
            ok = all(v.is_finite() and v.rad() <= abs(v.mid()) * target for v in out.values())
            with mp.workprec(prec):
                res = {k: (arb_endpoint(v.lower(), round_floor),
                           arb_endpoint(v.upper(), round_ceiling))
                       for k, v in out.items() if v.is_finite()}
        return ok and len(res) == len(MOMENTS), res

    def give_up(result, previous, prec) -> dict:
        if result is not None and len(result[1]) == len(MOMENTS):
            return result  # finite enclosures, wider than asked: still guaranteed
        raise NumericalError(f"the moments of C_p(G_mu) at p = {p}, mu = {mu} did not reach "
                             "finite enclosures")

    return precision_loop(compute, int(dps * 3.33) + 30, done=lambda r, _: r[0],
                          max_steps=4, give_up=give_up, check=False)[1]


def moment_value(name: str, p: sp.Expr, mu: sp.Expr, dps: int) -> Value:
    """The moment ``name`` (one of MOMENTS) of C_p(G_mu) as a certified Value: both ends are
    ends of Arb balls of the rigorous integrals above."""
    lo, hi = subsampled_gaussian_moments(p, mu, dps)[name]
    return Value.enclosure(lo, hi, dps, guarantee="certified")
