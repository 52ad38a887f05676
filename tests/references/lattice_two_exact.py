"""References for products of two lattice laws on incommensurate lattices, at 60 digits, with no
tilt, no window and no fixed point: each factor's Q-law on its lattice l_i Z as (d, Q(d)) pairs,

* exactly, from the integer coefficients of (sum_k w_k x^k)^n (``ExactLatticePower``) for
  rational masses, or
* binomial masses C(n, k) q^k (1 - q)^(n - k) from log-gamma at 60 digits over mean +- 20 sd of
  the number of successes (the mass outside is below 1e-80 of the total), for
  f_{eps0,0}^{(x) n} with any eps0 (q = e^eps0/(1 + e^eps0), loss eps0 (2k - n)),

and the product's privacy profile as the double sum of Prop. 6 of Dong, Roth & Su, each inner sum
over the first law a suffix sum (the P-mass of (d_1, d_2) is Q e^{-L}):

    delta(eps) = sum_{d_2} Q_2(d_2) sum_{l_1 d_1 > eps - l_2 d_2} Q_1(d_1) (1 - e^{eps - L}).
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction

from mpmath import mp

from .lattice_exact import ExactLatticePower

DPS = 60


def exact_law(R: Fraction, qs: dict[int, Fraction], n: int):
    """(l, [(d, Q(d))]) of the n-fold product of a pair with ratios R^k and Q-masses qs."""
    e = ExactLatticePower(R, qs, n)
    with mp.workdps(DPS):
        ell = mp.log(mp.mpf(Fraction(R).numerator) / Fraction(R).denominator)
        law = [(e.d0 + i, mp.mpf(c) / e.den) for i, c in enumerate(e.coeffs) if c]
    return ell, law


def binomial_law(eps0, n: int, width: float = 20.0):
    """(l, [(d, Q(d))]) of f_{eps0,0}^{(x) n} under Q: k successes of probability
    q = e^eps0/(1 + e^eps0) give the loss eps0 (2k - n), d = 2k - n (Dong, Roth & Su, Sec. 3.3);
    ``eps0`` a SymPy number or an mpmath-readable string."""
    with mp.workdps(DPS):
        e0 = mp.mpf(eps0) if not hasattr(eps0, "evalf") else mp.mpf(str(eps0.evalf(DPS + 10)))
        q = mp.exp(e0) / (1 + mp.exp(e0))
        mean, sd = n * q, mp.sqrt(n * q * (1 - q))
        lo = max(int(mp.floor(mean - width * sd)), 0)
        hi = min(int(mp.ceil(mean + width * sd)), n)
        lg = mp.loggamma(n + 1)
        lq, lp = mp.log(q), mp.log(1 - q)
        law = [(2 * k - n, mp.exp(lg - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + k * lq
                                  + (n - k) * lp)) for k in range(lo, hi + 1)]
    return e0, law


class SeparableProduct:
    """delta of the product of two lattice laws (see the module)."""

    def __init__(self, law1, law2) -> None:
        (self.l1, q1), (self.l2, self.q2) = law1, law2
        with mp.workdps(DPS):
            self.d1 = [d for d, _ in q1]
            A, B = [mp.zero], [mp.zero]
            for d, q in reversed(q1):
                A.append(A[-1] + q)
                B.append(B[-1] + q * mp.exp(-self.l1 * d))
            self.A, self.B = A[::-1], B[::-1]  # index i: the d_1 >= self.d1[i]

    def delta(self, eps) -> mp.mpf:
        with mp.workdps(DPS):
            eps = mp.mpf(eps)
            total = mp.zero
            for d2, q in self.q2:
                x = eps - self.l2 * d2
                # the first d_1 with l_1 d_1 > x (60 digits: no lattice point within 1e-40
                # of the eps used here)
                i = bisect_right(self.d1, int(mp.floor(x / self.l1)))
                total += q * (self.A[i] - mp.exp(x) * self.B[i])
            return total
