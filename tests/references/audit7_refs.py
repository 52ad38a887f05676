"""Independent references for the seventh audit of the routes (nothing here imports
``tradeoff_algebra`` except ``references.laplace_sum``'s use of its mpmath context).

* **Randomized response and f_{eps,delta} powers** (:func:`rr_power_delta`,
  :func:`epsdelta_power_delta`): f_{eps,0}^{(x) n} is the binomial law of
  ``mixed_finite.binomial_law`` (loss (2k - n) eps); delta(e) = sum over the losses above e of
  Q - e^e P (Dong, Roth & Su, Prop. 6), summed at the caller's precision from the largest loss
  down, stopping where the remaining Q-mass is below 10^-(dps + 5) of the sum. f_{eps,delta} is
  T(P, Q) of Kairouz, Oh & Viswanath's pair: an outcome of Q-mass delta where P = 0, one of
  P-mass delta where Q = 0, and randomized response with weight 1 - delta; the n-fold product's
  outcomes with an infinite ratio carry Q-mass 1 - (1 - delta)^n, so
  delta_n(e) = 1 - (1 - delta)^n + (1 - delta)^n delta_RR^n(e).
* **Finite pairs' knots** (:func:`rr_knots`, :func:`pl_delta`): the Neyman--Pearson knots of
  RR(eps, k)^{(x) n} (``mixed_finite.rr_law_mp``, the trinomial law at 40 digits); delta of a
  convex piecewise-linear f is max over its knots of 1 - f(a) - e^eps a (the concave
  1 - f(a) - e^eps a attains its sup at a knot), exact up to the 40-digit masses.
* **Laplace powers** (:func:`laplace_power_delta`): ``references.laplace_sum.tails`` (nested
  Irwin--Hall quadrature), delta = Q(S > e) - e^e P(S > e), at ``dps`` digits of the private
  context laplace_sum computes in (``mpmath.workdps`` alone leaves it at 15 digits).
* **delta(0)** of G_mu (Cor. 1 at 0: 2 Phi(mu/2) - 1) and of the others through the functions
  above, for the certified eps = 0 of ``conversions.epsilon``.
* **The atom at the largest loss** (:func:`laplace_atom_lower`): each Laplace factor's Q has the
  atom 1/2 at its largest loss mu, so a product of N Laplace factors with largest loss M has
  Q(L = M) >= 2^-N and delta(e) >= 2^-N (1 - e^{e - M}) > 0 for every e < M (the event
  {L = M} in Prop. 6); and delta(e) = 0 for e >= M (the loss never exceeds M).
"""

from __future__ import annotations

import mpmath

from references.mixed_finite import binomial_law, knots, rr_law_mp


def rr_power_delta(eps, n: int, e, dps: int = 40):
    """delta(e) of f_{eps,0}^{(x) n} at ``dps`` digits (module docstring)."""
    with mpmath.workdps(dps + 10):
        eps, e = mpmath.mpf(eps), mpmath.mpf(e)
        E = mpmath.exp(eps)
        Ee = mpmath.exp(e)
        total = mpmath.mpf(0)
        # k coordinates at ratio e^eps: loss (2k - n) eps, Q = C(n, k) e^{k eps}/(1 + E)^n
        lg = -n * mpmath.log1p(E)
        for k in range(n, -1, -1):
            loss = (2 * k - n) * eps
            if loss <= e:
                break
            c = mpmath.exp(mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1)
                           - mpmath.loggamma(n - k + 1) + lg)
            q, p = c * E ** k, c * E ** (n - k)
            total += q - Ee * p
            if q < total * mpmath.mpf(10) ** -(dps + 5) and k < n // 2:
                break
        return +total


def epsdelta_power_delta(eps, d, n: int, e, dps: int = 40):
    """delta(e) of f_{eps,d}^{(x) n} (module docstring)."""
    with mpmath.workdps(dps + 10):
        w = (1 - mpmath.mpf(d)) ** n
        return 1 - w + w * rr_power_delta(eps, n, e, dps)


def rr_knots(eps, k: int, n: int, dps: int = 40) -> list:
    """Knots (a, f(a)) of RR(eps, k)^{(x) n} at ``dps`` digits."""
    with mpmath.workdps(dps):
        law = rr_law_mp(n, k, mpmath.exp(mpmath.mpf(eps)))
        return knots([(p, q) for _, p, q in law])


def binomial_knots(eps, n: int, dps: int = 40) -> list:
    """Knots of f_{eps,0}^{(x) n} from the binomial law."""
    with mpmath.workdps(dps):
        return knots([(p, q) for _, p, q in binomial_law(n, mpmath.mpf(eps))])


def pl_delta(kn: list, e):
    """delta(e) of the convex piecewise-linear f through the knots ``kn``: max over the knots of
    1 - f(a) - e^e a, at least 0."""
    E = mpmath.exp(mpmath.mpf(e))
    return max([mpmath.mpf(0)] + [1 - y - E * x for x, y in ((k[0], k[1]) for k in kn)])


def laplace_power_delta(mu, n: int, e, dps: int = 30):
    """delta(e) of L_mu^{(x) n} by nested Irwin--Hall quadrature (references.laplace_sum)."""
    from references import laplace_sum
    from references.laplace_sum import mp  # (laplace_sum computes in this context)

    with mp.workdps(dps):
        mu, e = mp.mpf(mpmath.mpf(mu)), mp.mpf(mpmath.mpf(e))
        qg, pg, _, _ = laplace_sum.tails(mu, n, e)
        v = qg - mp.exp(e) * pg
    with mpmath.workdps(dps):
        return mpmath.mpf(v)


def gauss_delta0(mu):
    """delta(0) of G_mu: 2 Phi(mu/2) - 1 (Cor. 1 at eps = 0)."""
    return 2 * mpmath.ncdf(mpmath.mpf(mu) / 2) - 1


def laplace_atom_lower(mus: list, e):
    """A lower bound of delta(e) of the product of Laplace factors L_mu for mu in ``mus`` (one
    entry per factor): 2^-N (1 - e^{e - M}), M = sum mus, N = len(mus); 0 at or above M."""
    M = mpmath.fsum(mpmath.mpf(m) for m in mus)
    e = mpmath.mpf(e)
    if e >= M:
        return mpmath.mpf(0)
    return mpmath.mpf(2) ** -len(mus) * -mpmath.expm1(e - M)
