"""Renyi divergences of the Poisson-subsampled Gaussian pair, f_p = Mix(G_mu, p).

f_p = p G_mu + (1 - p) Id = T(P, Q) with P = N(0, 1) and Q = (1 - p) N(0, 1) + p N(mu, 1)
(Dong, Roth & Su, Sec. 4.1: the mixture's likelihood ratio q/p = 1 - p + p L, L = e^{mu x -
mu^2/2}, is monotone in L, so the optimal tests are those of G_mu). Its two Renyi divergences
are the two directions of the sampled Gaussian mechanism's RDP (Mironov, Talwar & Zhang 2019,
Sec. 3):

    D_a(P || Q) = 1/(a - 1) log E_P[(1 - p + p L)^{1 - a}]     (renyi(Mix(G_mu, p), a)),
    D_a(Q || P) = 1/(a - 1) log E_P[(1 - p + p L)^a]           (renyi(Inverse(...), a)).

For an integer order a >= 2 the second is the binomial sum
``sum_k C(a, k) (1 - p)^{a-k} p^k e^{k(k-1) mu^2/2}`` (E_P[L^k] = e^{k(k-1) mu^2/2}; Mironov,
Talwar & Zhang 2019, Sec. 3.3), a closed form (:func:`sampled_gaussian_form`), kept as an
unevaluated ``Sum`` (a orders make a terms: formed term by term only where it is evaluated, in
Arb). Every other order
is a certified Arb integral (python-flint ``acb.integral``) of
``phi(x) (1 - p + p e^{mu x - mu^2/2})^c`` (c = 1 - a or a) over [-X, X + c mu] with the tails
bounded: for c >= 0 the base is at most max(1, L) so the integrand is at most phi(x) +
e^{c(c-1) mu^2/2} phi(x - c mu); for c < 0 it is at most (1 - p)^c phi(x).
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

__all__ = ["sampled_gaussian_form", "sampled_gaussian_renyi"]


def sampled_gaussian_form(p: sp.Expr, mu: sp.Expr, a: sp.Expr) -> sp.Expr | None:
    """D_a(Q || P) of the sampled Gaussian pair for an integer order a >= 2 (module docstring),
    else None."""
    if not (isinstance(a, sp.Integer) and a >= 2):
        return None
    k = sp.Dummy("k", integer=True, nonnegative=True)
    s = sp.Sum(sp.binomial(a, k) * (1 - p) ** (a - k) * p**k * sp.exp(k * (k - 1) * mu**2 / 2),
               (k, 0, a))
    return sp.log(s) / (a - 1)


def _moment_arb(p, mu, c, prec: int):
    """Enclosure of E_P[(1 - p + p e^{mu x - mu^2/2})^c] as an arb."""
    from flint import acb, arb

    s2pi = (2 * arb.pi()).sqrt()
    X = arb(math.sqrt(2 * math.log(2) * (prec + 40)) + 2)
    shift = c * mu if c > 0 else arb(0)
    lo, hi = -X, X + shift

    def g(t, analytic):
        if budget.expired():  # (an exception would not leave the integration: see budget)
            return acb(0)
        base = 1 - p + p * (mu * t - mu * mu / 2).exp()
        if analytic:  # the integrand is analytic near the real segment: base > 0 there
            return (base.log(analytic=True) * c).exp() * (-(t * t) / 2).exp() / s2pi
        return ((base.log() * c).exp() * (-(t * t) / 2).exp() / s2pi)

    tol = arb(2) ** (-prec)
    body = acb.integral(g, lo, hi, abs_tol=tol, rel_tol=tol).real
    budget.check()

    def ntail(x):  # Phi(-x) for x > 0 (upper bound 'tail' in the two-sided sense)
        return (x / arb(2).sqrt()).erfc() / 2

    if c >= 0:
        bound = 2 * ntail(X) + (c * (c - 1) * mu * mu / 2).exp() * 2 * ntail(X)
    else:
        bound = (1 - p) ** c * 2 * ntail(X)
    return body + arb(0, bound.upper())


def sampled_gaussian_renyi(p: sp.Expr, mu: sp.Expr, a: sp.Expr, reverse: bool,
                           dps: int) -> tuple:
    """(lo, hi) mpf of D_a(P || Q) (``reverse=False``) or D_a(Q || P) for the sampled Gaussian
    pair with 0 < p < 1, mu > 0 and a finite order a > 0, a != 1 (module docstring)."""
    P, M, A = sp.sympify(p), sp.sympify(mu), sp.sympify(a)

    def compute(prec: int) -> tuple[bool, tuple | None]:
        with arb_precision(prec):
            from flint import arb

            pb, mb, ab = arb_ball(P), arb_ball(M), arb_ball(A)
            m = _moment_arb(pb, mb, ab if reverse else 1 - ab, prec)
            d = m.log() / (ab - 1) if m > 0 else arb("nan")
            if not d.is_finite():
                return False, None
            ok = d.rad() <= abs(d.mid()) * arb(2) ** (-(dps * 3.33) - 4)
            with mp.workprec(prec):
                return ok, (arb_endpoint(d.lower(), round_floor),
                            arb_endpoint(d.upper(), round_ceiling))

    def give_up(result, previous, prec) -> tuple:
        if result is not None and result[1] is not None:
            return result  # finite, wider than asked: still guaranteed
        raise NumericalError(f"the Renyi divergence of Mix(G({mu}), {p}) of order {a} did not "
                             "reach a finite enclosure")

    return precision_loop(compute, int(dps * 3.33) + 40, done=lambda r, _: r[0], max_steps=4,
                          give_up=give_up, check=False)[1]
