"""Certified privacy profiles of a finite pair composed n times when its privacy losses lie on a
lattice: the outcomes' likelihood ratios Q_i/P_i are integer powers R^{k_i} of one rational R > 1
(k-ary randomized response: R = e^eps, k in {-1, 0, 1}; the exponential mechanism with integer
utility changes). The loss of the product is l d, l = log R, with d = sum of the k's, whose
Q-law is the coefficient list of the polynomial (sum_i q_i x^{k_i - k_min})^n: one power of an
Arb polynomial (python-flint ``arb_poly``, binary powering), where the exact composition would
multiply rationals of n times the masses' size (a float probability is a 53-bit rational: at
n = 1000 its table holds numbers of 10^5 bits). Under P the mass of d is Q(d) R^{-d}, so

    delta(eps) = sum_{d l > eps} Q(d) (1 - e^{eps - d l}) = A_m - e^eps B_m,  (m-1) l <= eps < m l,
    A_m = sum_{d >= m} Q(d),  B_m = sum_{d >= m} Q(d) R^{-d}

(Dong, Roth & Su, Prop. 6 for the profile of a pair; Def. 5 for the product's laws), and on that
segment eps(delta) = log((A_m - delta) / B_m). Everything is an Arb ball; the working precision
rises until the requested relative width is met (or a cap, then the best enclosure is returned).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, arb_poly

from .cf_laws import lower, to_arb, upper, working_precision

__all__ = ["LatticePower", "lattice_pair"]

#: The largest |k| accepted as a lattice index (ratios R^k beyond are not searched for).
MAX_INDEX = 64


def lattice_pair(P: list[Fraction], Q: list[Fraction]
                 ) -> tuple[Fraction, list[int], list[Fraction]] | None:
    """(R, ks, qs): the pair's outcomes merged by likelihood ratio, ratio R^{k} with R > 1 a
    rational and k an integer, their Q-masses qs; None when some outcome has P or Q mass 0
    (an infinite loss), when all ratios are 1, or when they are not powers of one rational
    with exponents up to :data:`MAX_INDEX`."""
    mass: dict[Fraction, Fraction] = {}
    for p, q in zip(P, Q, strict=True):
        if p == 0 and q == 0:
            continue
        if p == 0 or q == 0:
            return None
        r = q / p
        mass[r] = mass.get(r, Fraction(0)) + q
    others = [r for r in mass if r != 1]
    if not others:
        return None
    base = min(others, key=lambda r: abs(math.log(r.numerator) - math.log(r.denominator)))
    base = base if base > 1 else 1 / base
    lb = math.log(base.numerator) - math.log(base.denominator)
    ks, qs = [], []
    for r, q in mass.items():
        k = round((math.log(r.numerator) - math.log(r.denominator)) / lb)
        if abs(k) > MAX_INDEX or (base**k if k >= 0 else 1 / base**-k) != r:
            return None
        ks.append(k)
        qs.append(q)
    return base, ks, qs


class LatticePower:
    """The n-fold product of a lattice pair (see the module): ``delta`` and ``epsilon`` as
    certified float enclosures."""

    def __init__(self, ratio: Fraction, ks: list[int], qs: list[Fraction], n: int) -> None:
        self.ratio, self.ks, self.qs, self.n = ratio, list(ks), list(qs), int(n)
        self.kmin, self.kmax = min(ks), max(ks)
        self._tables: dict[int, tuple] = {}

    def _table(self, prec: int):
        """(l, Q-suffix sums A_d, P-suffix sums B_d) as balls, d = n kmin .. n kmax (lists
        indexed by d - n kmin, with a final 0), at ``prec`` bits."""
        if prec in self._tables:
            return self._tables[prec]
        with working_precision(prec):
            coeffs = [arb(0)] * (self.kmax - self.kmin + 1)
            for k, q in zip(self.ks, self.qs, strict=True):
                coeffs[k - self.kmin] = coeffs[k - self.kmin] + to_arb(q)
            poly = arb_poly(coeffs) ** self.n
            ell = to_arb(self.ratio).log()
            d0 = self.n * self.kmin
            size = self.n * (self.kmax - self.kmin) + 1
            a, b = [arb(0)] * (size + 1), [arb(0)] * (size + 1)
            for i in range(size - 1, -1, -1):
                c = poly[i]
                a[i] = a[i + 1] + c
                b[i] = b[i + 1] + c * (-(d0 + i) * ell).exp()
        if len(self._tables) > 4:
            self._tables.clear()
        self._tables[prec] = (ell, a, b, d0, size)
        return self._tables[prec]

    def _delta_ball(self, eps: float, prec: int) -> arb:
        """delta(eps) = A_m - e^eps B_m for the segment (m - 1) l <= eps <= m l holding eps (the
        union over the candidate segments the balls cannot tell apart: delta is continuous, so
        they agree at a lattice point)."""
        ell, a, b, d0, size = self._table(prec)
        with working_precision(prec):
            e = arb(eps)
            m = math.floor(eps / float(ell.mid())) + 1
            out = None
            for mm in (m - 1, m, m + 1):
                if (mm - 1) * ell > e or e > mm * ell:
                    continue  # certainly not this segment
                i = min(max(mm - d0, 0), size)
                v = a[i] - e.exp() * b[i]
                out = v if out is None else out.union(v)
            return out

    def delta(self, eps: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= delta(eps) <= hi (eps a float >= 0)."""
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300)))
        best = None
        for _ in range(6):
            d = self._delta_ball(eps, prec)
            lo, hi = max(0.0, lower(d)), min(1.0, upper(d))
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            if hi - lo <= rel_tol * hi:
                break
            prec = 2 * prec + int(-math.log2(max(hi, 1e-300)))
        return best

    def epsilon(self, dn: float, up: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= eps(d) <= hi for every d in [dn, up], eps(d) = inf{eps >= 0:
        delta(eps) <= d}."""
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300))) + int(-math.log2(max(dn, 1e-300)))
        best = None
        for _ in range(6):
            r = self._epsilon_at(dn, up, prec)
            if best is None or r[1] - r[0] < best[1] - best[0]:
                best = r
            if r[1] - r[0] <= rel_tol * r[1]:
                break
            prec *= 2
        return best

    def _epsilon_at(self, dn: float, up: float, prec: int) -> tuple[float, float]:
        ell, a, b, d0, size = self._table(prec)
        with working_precision(prec):
            lo_d, up_d = arb(dn), arb(up)
            # delta at the lattice point m l (m >= 0) is a[m + 1] - e^{m l} b[m + 1]
            def at(m: int) -> arb:
                i = min(max(m + 1 - d0, 0), size)
                return a[i] - (m * ell).exp() * b[i]

            if at(0) <= lo_d:  # delta(0) <= d: eps = 0
                return 0.0, 0.0
            m = max(self.n * self.kmax, 0)  # delta(n kmax l) = 0 <= d
            lo_m = 0
            while m - lo_m > 1:  # at(lo_m) > up (certified or not decided), at(m) <= dn
                mid = (lo_m + m) // 2
                if at(mid) <= lo_d:
                    m = mid
                else:
                    lo_m = mid
            # eps <= m l (at(m) <= d certified); on [(m - 1) l, m l], delta = A_m - e^eps B_m
            def formula(mm: int, d: arb) -> arb:
                i = min(max(mm - d0, 0), size)
                return ((a[i] - d) / b[i]).log()

            seg_lo, seg_hi = (m - 1) * ell, m * ell
            hi = max(min(upper(formula(m, lo_d)), upper(seg_hi)), upper(seg_lo))
            if m - 1 <= 0 or at(m - 1) > up_d:  # eps > (m - 1) l: this segment
                lo = max(lower(formula(m, up_d)), lower(seg_lo), 0.0)
            elif m - 2 <= 0 or at(m - 2) > up_d:  # (at(m - 1) undecided) this or the one below
                lo = max(min(lower(formula(m - 1, up_d)), lower(seg_lo)),
                         lower((m - 2) * ell), 0.0)
            else:
                lo = 0.0
            return lo, max(lo, hi)
