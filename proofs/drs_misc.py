"""Computations behind three claims of Dong, Roth & Su stated in ``claims_drs1.py``: the moment
functionals (Sec. 3.2 text after Thm. 5), the uniform-shift pair of the limit in Thm. 7
(Sec. 3.3 text) and the rate-optimality of Berry-Esseen for binomial distributions (Sec. 3.3
text).

* The uniform shift pair U[0, 1] against U[a, 1 + a], 0 <= a <= 1, has three likelihood-ratio
  regions: [0, a) (ratio 0, P-mass a), [a, 1] (ratio 1, mass 1 - a under both) and (1, 1 + a]
  (ratio oo, Q-mass a). The likelihood ratio is constant on each, so the pair's trade-off
  function is that of the three-atom pair P = (a, 1 - a, 0), Q = (0, 1 - a, a) (Neyman-Pearson
  tests depend on the observation only through the ratio), computed by exact Neyman-Pearson on
  the atoms (``ta.Discrete``) and compared with the knots (0, 1 - a), (1 - a, 0), (1, 0) and with
  f_{0,a}.
* Binomial(n, 1/2), n = 2m, standardised: its distribution function jumps by
  J_n = C(n, m)/2^n at 0 while Phi is continuous, so the Kolmogorov distance is at least J_n/2;
  here F_n(0) = (1 + J_n)/2 by symmetry and |F_n(0) - Phi(0)| = J_n/2 exactly. The central
  binomial bound C(2m, m)/4^m >= 1/(2 sqrt m) holds for every m >= 1 by induction: m = 1 gives
  1/2; the ratio of consecutive terms is (2m + 1)/(2m + 2) and
  ((2m + 1)/(2m + 2))^2 - m/(m + 1) = 1/(4 (m + 1)^2) > 0 carries the bound from m to m + 1.
  So the distance is at least 1/(2 sqrt(2n)): no bound o(1/sqrt n) holds.
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta

__all__ = ["uniform_shift_pair", "uniform_shift_knots", "binomial_cdf_at_zero",
           "central_jump", "binomial_rate", "sec33_uniform_limit", "moment_instances"]

R = sp.Rational
F = ta.Functional


def uniform_shift_pair(a) -> ta.Discrete:
    """T(U[0, 1], U[a, 1 + a]) as the three-atom pair of its likelihood-ratio regions:
    P = (a, 1 - a, 0) on ([0, a), [a, 1], (1, 1 + a]), Q = (0, 1 - a, a)."""
    a = sp.sympify(a)
    if a.is_extended_real is False or (a.is_number and not 0 <= a <= 1):
        raise ta.InvalidParameter("a", a, "a number in [0, 1] (the shift of U[a, 1 + a])",
                                  "uniform_shift_pair")
    return ta.Discrete([a, 1 - a, 0], [0, 1 - a, a])


def uniform_shift_knots(a) -> ta.PiecewiseLinear:
    """The Neyman-Pearson curve of the three regions by hand: reject first on (1, 1 + a] (no
    P-mass, Q-mass a), then on [a, 1] (alpha = Q-mass), last on [0, a): beta(alpha) =
    1 - a - alpha up to alpha = 1 - a, then 0."""
    a = sp.sympify(a)
    return ta.PiecewiseLinear([(0, 1 - a), (1 - a, 0), (1, 0)])


def sec33_uniform_limit() -> list:
    """The uniform shift pair equals f_{0,a} (exact Neyman-Pearson on the regions, against the
    knots and against f_{0,a}) at a = 1 - e^-delta, delta in {1/10, 1/2}, and at a = delta
    (rational); f_{0,1-e^-delta} and f_{0,delta} differ by delta - 1 + e^-delta at alpha = 0
    (exactly), their certified sup-distance is at most delta^2/2 at delta in {1/10, 1/2}, and
    delta - 1 + e^-delta <= delta^2/2 for every delta in [0, 10] (certified cover)."""
    out = []
    for d in (R(1, 10), R(1, 2)):
        for a in (1 - sp.exp(-d), d):
            U = uniform_shift_pair(a)
            out += [ta.verify(U, "==", uniform_shift_knots(a)),
                    ta.verify(U, "==", ta.EpsDelta(0, a))]
        f1, f2 = ta.EpsDelta(0, 1 - sp.exp(-d)), ta.EpsDelta(0, d)
        out += [ta.verify(f1(0) - f2(0), "==", d - 1 + sp.exp(-d)),
                ta.verify(F("sup_distance", f1, f2), "<=", d**2 / 2)]
    x = sp.Symbol("delta", nonnegative=True)
    out.append(ta.verify(x - 1 + sp.exp(-x), "<=", x**2 / 2, over={x: (0, 10)}))
    return out


# -- Binomial(n, 1/2) against Phi ----------------------------------------------------------------
def binomial_cdf_at_zero(n: int) -> sp.Rational:
    """P(S_n <= n/2) for S_n ~ Binomial(n, 1/2), n even, exactly: F_n(0) of the standardised
    law, right-continuous."""
    if n < 2 or n % 2:
        raise ta.InvalidParameter("n", n, "an even integer >= 2", "binomial_cdf_at_zero")
    return sum((sp.binomial(n, k) for k in range(n // 2 + 1)), sp.Integer(0)) / sp.Integer(2)**n


def central_jump(n: int) -> sp.Rational:
    """J_n = C(n, n/2)/2^n, the jump of the standardised Binomial(n, 1/2) at 0 (n even)."""
    if n < 2 or n % 2:
        raise ta.InvalidParameter("n", n, "an even integer >= 2", "central_jump")
    return sp.binomial(n, n // 2) / sp.Integer(2)**n


def binomial_rate(ns=(10, 100, 1000)) -> list:
    """The induction for C(2m, m)/4^m >= 1/(2 sqrt m) (every m >= 1), and at each n of ``ns``
    the exact distance |F_n(0) - Phi(0)| = J_n/2 >= 1/(2 sqrt(2n))."""
    m = sp.Symbol("m", positive=True, integer=True)
    out = [ta.verify(sp.binomial(2, 1) / 4, ">=", 1 / (2 * sp.sqrt(1))),           # m = 1
           ta.verify(sp.binomial(2 * m + 2, m + 1) / (4 * sp.binomial(2 * m, m)), "==",
                     (2 * m + 1) / (2 * m + 2)),                                  # the ratio
           ta.verify(((2 * m + 1) / (2 * m + 2))**2 - m / (m + 1), "==",
                     1 / (4 * (m + 1)**2))]                                       # the step
    for n in ns:
        J = central_jump(n)
        out += [ta.verify(sp.Abs(binomial_cdf_at_zero(n) - ta.Phi(0)), "==", J / 2),
                ta.verify(J / 2, ">=", 1 / (2 * sp.sqrt(2 * n)))]
    return out


# -- the moment functionals at instances ---------------------------------------------------------
def moment_instances() -> list:
    """kl <= kappa_2^{1/2} <= kappa_3^{1/3} and bar kappa_3 <= 8 kappa_3 from the library's
    closed forms of the functionals of G_1, L_1, f_{1,0} and f_{3,0}, decided in Arb (for
    f_{eps,0}, |log|f'|| = eps is constant and kappa_2^{1/2} = kappa_3^{1/3} = eps exactly)."""
    out = []
    for f in (ta.G(1), ta.Laplace(1), ta.EpsDelta(1, 0), ta.EpsDelta(3, 0)):
        kl, k2, k3, k3b = ta.kl(f), ta.kappa2(f), ta.kappa3(f), ta.kappa3_bar(f)
        out += [ta.verify(kl, "<=", sp.sqrt(k2), dps=15),
                ta.verify(sp.sqrt(k2), "<=", sp.cbrt(k3), dps=15),
                ta.verify(k3b, "<=", 8 * k3, dps=15)]
    return out
