"""C_p(f) of a large symmetric finite f on one lattice, certified from the operand's Arb balls:
C_{1/10}(RR(1, 3)^{(x) 1000}) without a SymPy table.

Let f = T(P, Q) be a symmetric finite pair whose factors' likelihood ratios are integer powers
of one base R > 1 (``numeric.lattice_power.symbolic_lattice_pair``, each identity R^k = Q_i/P_i
proved exactly; randomized response with k answers, f_{eps,0}, and their powers). Its atoms are
the exponent sums d (ratio R^d) with Q-mass the coefficient of x^d in prod_f (sum_i q_fi
x^{k_fi})^{m_f} and P-mass the same with p_fi = q_fi R^{-k_fi} (Dong, Roth & Su, Def. 5; the
group laws of ``numeric.lattice2d``, balls of Arb polynomial powers). Their order is the order
of the integers d, exactly: r > 1 exactly when d > 0, r = 1 when d = 0.

**Subsampling** (Dong, Roth & Su, Def. 6 and Eq. (13); ``numeric.finite_subsample``): for
symmetric f, C_p(f) is f_p up to the fixed point, a piece of slope -1, and f_p^{-1} beyond.
In atoms, with A = {d > 0} by decreasing d,

    (rho_d, P_d, (1 - p) P_d + p Q_d)        d in A,           rho_d = 1 - p + p R^d,
    (1, m_0, m_0)                            m_0 = P_0 + (1 - p) sum_{d in A} (Q_d - P_d),
    (1/rho_d, (1 - p) P_d + p Q_d, P_d)      d in A reversed,

strictly decreasing in ratio by construction (rho_d > 1 increases with d), so the balls of
the masses are given in a proved order and every reader of ordered balls applies
(``FiniteValues.arb_value``: the maximum of the segments' lines; ``arb_epsilon``: the crossing
of delta proved between two ratios; ``arb_delta``: the hockey-stick sum; ``numeric.finite_np``:
the Neyman-Pearson vertices of a whole curve). m_0 is a sum of positive terms: Q_d > P_d for
d > 0. The symmetry the construction needs (the caller vouches for it) is checked on the balls
too: P_d and Q_{-d} must overlap, else no table is given.

The operand has at most :data:`MAX_ATOMS` exponents (C_p(f) as many atoms, 2 |A| + 1); the
cost of the table (Arb polynomial powers, about quadratic in that number, and one pass) is
estimated before it is built and refused at once where the time left cannot pay for it
(``numeric.progress.ensure_time``, naming the limit).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from flint import arb

from . import budget, progress
from .arb_expr import Unenclosable, arb_ball
from .context import arb_precision, mp
from .curves import BAND_TOL_MIN
from .finite_np import rising_band
from .finite_values import FiniteValues, eps_at_vertex, prefix_sums
from .lattice2d import _Group, lattice_parts
from .profile_band import Band
from .value import CertifiedPair

__all__ = ["SubsampledBalls", "subsampled_balls", "MAX_ATOMS"]

#: The most atoms of the operand's lattice (exponent sums d) read from balls.
MAX_ATOMS = 400_001
#: A lower bound of the seconds of a table of N exponents, this constant times N^2 (the Arb
#: polynomial powers of degree N dominate: measured 2.7e-9 N^2 to 4.4e-9 N^2 s at 128 and 512
#: bits for N = 2001 .. 100001 on an x86_64 core, Python 3.11; set about three times below),
#: for the refusal at once of a table the time left cannot pay for.
SECONDS_PER_ATOM_SQUARED = 8e-10


def _one_lattice(fl: Any) -> _Group | None:
    """The operand's factors as one lattice group (base R > 1, factors (ks, qs, m)), or None
    where a factor is not a lattice pair with every mass positive (or has more outcomes than
    ``lattice2d.MAX_PAIR_ATOMS``: its ratios proved by SymPy one by one), or two factors have
    bases not proved equal (several lattices: ``numeric.lattice2d``)."""
    try:
        leaves = fl.leaves()
    except (TypeError, ValueError, ArithmeticError):
        return None
    parts = lattice_parts(leaves)
    if not parts:
        return None
    base = parts[0][0]
    if not all(b == base or sp.simplify(b - base) == 0 for b, *_ in parts[1:]):
        return None
    return _Group(base, [(list(ks), list(qs), m) for _, ks, qs, m in parts])


class SubsampledBalls(FiniteValues):
    """The atoms of C_p(f) (module docstring) as Arb balls by decreasing ratio, with the Arb
    routes of a finite loss (``FiniteValues``: value, delta, eps) and a curve band."""

    is_rational = False

    def __init__(self, group: _Group, p: sp.Expr) -> None:
        self.group, self.p = group, p
        self._cache: dict = {}
        self.size = group.hi - group.lo + 1

    def __repr__(self) -> str:
        return f"SubsampledBalls(base={self.group.base}, {self.size} exponents, p={self.p})"

    # -- the hooks of FiniteValues -------------------------------------------------------------
    def arb_first(self) -> bool:
        return True

    def binomial_form(self) -> None:
        return None

    def delta_exact(self, E: Any) -> None:
        return None  # (irrational masses: the balls answer)

    def arb_ordered(self, prec: int) -> list | None:
        return self.arb_masses(prec)

    def arb_masses(self, prec: int) -> list | None:
        """The (P, Q) balls of C_p(f)'s atoms at ``prec`` bits by decreasing ratio (module
        docstring), or None (a mass not a positive ball, or the symmetry not confirmed);
        cached per precision (the last two)."""
        if prec in self._cache:
            return self._cache[prec]
        progress.ensure_time(self.size ** 2 * SECONDS_PER_ATOM_SQUARED,
                             f"C_p(f) from the balls of {self.size} atoms at {prec} bits")
        out = self._build(prec)
        for k in list(self._cache)[:-1]:
            del self._cache[k]
        self._cache[prec] = out
        return out

    def _build(self, prec: int) -> list | None:
        g = self.group
        try:
            with arb_precision(prec + 16):
                q, pm = g.laws(prec + 16)
                pb = arb_ball(self.p)
                if not (pb > 0 and pb < 1):
                    return None
                support = g.support()
                budget.check()
                head, mid = [], arb(0)
                gap = arb(0)
                for i, d in enumerate(reversed(support)):
                    if not i & 1023:
                        budget.check()
                    P_, Q_ = pm[d - g.lo], q[d - g.lo]
                    if not (P_ > 0 and Q_ > 0):
                        return None
                    if d < 0:
                        break
                    if g.lo > -d or not (P_.overlaps(q[-d - g.lo])
                                         and Q_.overlaps(pm[-d - g.lo])):
                        return None  # (not the mirror image: f is not symmetric)
                    if d == 0:
                        mid += P_
                        continue
                    if not Q_ > P_:
                        return None  # (ratio R^d > 1: the balls must agree)
                    gap += Q_ - P_
                    head.append((P_, (1 - pb) * P_ + pb * Q_))
                if not head:
                    return None
                m0 = mid + (1 - pb) * gap
                tail = [(mix, P_) for P_, mix in reversed(head)]
                return head + [(m0, m0)] + tail
        except (Unenclosable, ValueError, ZeroDivisionError):
            return None

    def arb_epsilon(self, d) -> CertifiedPair | None:
        """eps(d) proved from the ordered balls, as ``FiniteValues.arb_epsilon`` (the crossing
        log y, y = (Q(S) - d)/P(S), proved to lie between the ratios bounding S = the first k
        atoms, Prop. 6), with k located by bisection on Arb balls rather than floats: the ratios
        1 - p + p R^d of a large power overflow float64 (e^1276 for n = 3000).
        delta(log r_k) = Q(S_k) - r_k P(S_k) is non-decreasing in k (the ratios decrease); the
        first k where it exceeds d (compared by the balls' midpoints: only a location, proved
        afterwards with its neighbours) bounds the crossing."""

        from .arb import arb_exact

        p = mp.prec
        for prec in (p + 64, 2 * p + 64):
            masses = self.arb_masses(prec)
            if not masses:
                return None
            with arb_precision(prec):
                db = arb_exact(d)
                n = len(masses)
                QS, PS = prefix_sums(masses)
                ratio = [Q_ / P_ for P_, Q_ in masses]  # (every P-mass a positive ball)
                if self.arb_delta(sp.S.Zero, prec) <= db:
                    return CertifiedPair(mp.zero, mp.zero)
                # the first j in [1, n) with delta(log r_j) > d by the midpoints, else n
                lo_j, hi_j, dm = 1, n, arb(db.mid())
                while lo_j < hi_j:
                    m = (lo_j + hi_j) // 2
                    if arb((QS[m] - ratio[m] * PS[m]).mid()) > dm:
                        hi_j = m
                    else:
                        lo_j = m + 1
                got = eps_at_vertex(QS, PS, ratio, db, lo_j, prec, p)
                if got is not None:
                    return got
        return None

    # -- a whole curve ------------------------------------------------------------------------
    def band(self, alphas: np.ndarray, tol: float = 1e-3) -> Band | None:
        """The certified band of C_p(f) at the levels ``alphas`` from one pass over the
        ordered balls (``numeric.finite_np``: the Neyman-Pearson vertices), the precision
        doubled while a level is wider than ``tol`` (as ``finite_subsample.ordered_band``)."""
        return rising_band(self, alphas, max(tol, BAND_TOL_MIN))

    def delta_ball(self, eps: arb, prec: int) -> arb | None:
        """delta(eps) for ``eps`` an Arb ball: sum over the atoms of (Q - e^eps P)_+ (the
        hockey-stick divergence, Dong, Roth & Su, Prop. 6), or None."""
        masses = self.arb_masses(prec)
        if masses is None:
            return None
        with arb_precision(prec):
            E = eps.exp()
            total = arb(0)
            for P_, Q_ in masses:
                total += arb.max(Q_ - E * P_, arb(0))
            return total


def subsampled_balls(fl: Any, p: Any) -> SubsampledBalls | None:
    """The ball table of C_p(f) for the finite loss ``fl`` of a symmetric f (the caller vouches)
    on one lattice and an exact 0 < p < 1, or None (several lattices, a zero mass, f_{0,delta}
    parts, more than :data:`MAX_ATOMS` exponents)."""
    p = sp.S(p)
    if p.free_symbols or not p.is_number or p.has(sp.Float):
        return None
    if (p > 0) is not sp.true or (p < 1) is not sp.true:
        return None
    g = _one_lattice(fl)
    if g is None or g.hi - g.lo + 1 > MAX_ATOMS:
        return None
    return SubsampledBalls(g, p)
