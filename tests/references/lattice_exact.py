"""Exact references for finite lattice pairs composed n times: the Q-law of the product as the
exact integer coefficients of (sum_k w_k x^(k - kmin))^n (python-flint ``fmpz_poly`` power, exact
integers, no rounding and no window) for rational masses q_k = w_k / W, and the privacy profile
and its inverse from them at 50 digits (Dong, Roth & Su, Prop. 6):

    delta(eps) = sum_{d l > eps} Q(d) (1 - e^{eps - d l}),  l = log R,

eps(delta) on the crossing segment [(m - 1) l, m l] as log((A_m - delta)/B_m).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import fmpz_poly
from mpmath import mp


class ExactLatticePower:
    """The n-fold product of a pair with likelihood ratios R^k (R rational > 1) and rational
    Q-masses qs (``{k: q}``), its Q-law exact."""

    def __init__(self, R: Fraction, qs: dict[int, Fraction], n: int) -> None:
        self.R, self.n = Fraction(R), n
        den = math.lcm(*(q.denominator for q in qs.values()))
        self.kmin, kmax = min(qs), max(qs)
        w = [0] * (kmax - self.kmin + 1)
        for k, q in qs.items():
            w[k - self.kmin] = int(q * den)
        self.coeffs = [int(c) for c in (fmpz_poly(w) ** n).coeffs()]  # d = n kmin + index
        self.den = den**n
        self.d0 = n * self.kmin

    def _sums(self, first: int):
        """(A, B, l) = (sum_{d >= first} Q(d), sum_{d >= first} Q(d) R^-d, log R) as mpf at 60
        digits (suffix sums formed once)."""
        if not hasattr(self, "_suffix"):
            with mp.workdps(60):
                lr = mp.log(mp.mpf(self.R.numerator) / self.R.denominator)
                A, B = [mp.zero], [mp.zero]
                for i in range(len(self.coeffs) - 1, -1, -1):
                    q = mp.mpf(self.coeffs[i]) / self.den
                    A.append(A[-1] + q)
                    B.append(B[-1] + q * mp.exp(-(self.d0 + i) * lr))
                self._suffix = (A[::-1], B[::-1], lr)  # index i: the d >= d0 + i
        A, B, lr = self._suffix
        i = min(max(first - self.d0, 0), len(self.coeffs))
        return A[i], B[i], lr

    def delta(self, eps) -> mp.mpf:
        with mp.workdps(60):
            eps = mp.mpf(eps)
            _, _, lr = self._sums(10**18)
            first = int(mp.floor(eps / lr)) + 1  # the d with d l > eps
            A, B, _ = self._sums(first)
            return A - mp.exp(eps) * B

    def epsilon(self, d) -> mp.mpf:
        """inf{eps >= 0: delta(eps) <= d} for 0 < d < 1."""
        with mp.workdps(60):
            d = mp.mpf(d)
            _, _, lr = self._sums(10**18)
            top = self.d0 + len(self.coeffs) - 1
            lo, hi = 0, max(top, 0)  # delta(hi l) = 0 <= d
            if self.delta(0) <= d:
                return mp.zero
            while hi - lo > 1:  # delta(lo l) > d >= delta(hi l)
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if self.delta(mid * lr) > d else (lo, mid)
            A, B, _ = self._sums(hi)
            return max(mp.log((A - d) / B), (hi - 1) * lr, mp.zero)
