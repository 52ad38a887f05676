"""The Neyman-Pearson tails of an exact finite loss (``numeric.finite.FiniteLoss``) for the
vertex reading of ``numeric.lattice_np``: all levels of a curve from one pass over its atoms.

The atoms, by increasing likelihood ratio r_0 <= r_1 <= ... (``FiniteLoss.arb_masses``: Arb
balls of the exact masses, by decreasing ratio), are the points s = 0, 1, ... of a "lattice"
whose loss is log r_s; Q_s and P_s are the suffix sums of the masses from s up (one pass, in
Arb), the atoms with P = 0 (ratio +oo) the singular part (Dong, Roth & Su, Prop. 6: every most
powerful test rejects them first). Ties of ratio do no harm: H(s, alpha) of ``lattice_np``
is unchanged by a tied atom (its Q - e^t P is 0). Outside the atoms the ratio is 0 below (the
bound with e^t -> 0: the total Q-mass) and r_top above (t = the largest finite loss).
"""

from __future__ import annotations

import numpy as np
from flint import arb

from . import budget
from .cf_laws import working_precision
from .lattice_np import NPTails, np_band

__all__ = ["FiniteTails", "finite_tails", "rising_band", "BAND_TRIES"]

#: Precisions tried by :func:`rising_band`, each twice the last.
BAND_TRIES = 3


class FiniteTails(NPTails):
    """Tails of an explicit list of atoms ((P-mass, Q-mass) balls by decreasing ratio)."""

    def __init__(self, masses: list, prec: int) -> None:
        self.prec = prec
        with working_precision(prec + 64):
            sing = arb(0)
            finite = []
            for P_, Q_ in masses:
                if P_ == 0:  # ratio +oo (or an empty atom): the singular part
                    sing += Q_
                elif not P_ > 0:  # (a ball that may be 0: no ratio to bound)
                    raise ValueError("finite_np: an atom's P-mass is not certainly positive")
                else:
                    finite.append((P_, Q_))
            finite.reverse()  # increasing ratio
            self.singular = sing
            self.n = len(finite)
            self.lo, self.hi = 0, self.n - 1
            self._r = [Q_ / P_ for P_, Q_ in finite]
            q_suf, p_suf = [arb(0)] * (self.n + 1), [arb(0)] * (self.n + 1)
            aq, ap = arb(0), arb(0)
            for i in range(self.n - 1, -1, -1):
                if not i & 1023:
                    budget.check()
                ap, aq = ap + finite[i][0], aq + finite[i][1]
                p_suf[i], q_suf[i] = ap, aq
            self._q, self._p = q_suf, p_suf
            self._pf = np.array([float(v.mid()) for v in p_suf])

    def ratio(self, s: int) -> arb:
        if s < 0:
            return arb(0)
        return self._r[min(s, self.n - 1)]

    def loss(self, s: int) -> arb:
        return self.ratio(s).log()

    def tails(self, s: int) -> tuple[arb, arb]:
        i = min(max(s, 0), self.n)
        return self._q[i], self._p[i]

    def p_float(self) -> np.ndarray:
        return self._pf


def finite_tails(fl, prec: int) -> FiniteTails | None:
    """The tails of the finite loss ``fl`` at ``prec`` bits, or None where its masses have no
    Arb balls by ratio (symbolic and many) or an atom's P-mass is not proved positive."""
    masses = fl.arb_masses(prec)
    if masses is None or not masses:
        return None
    try:
        t = FiniteTails(masses, prec)
    except ValueError:
        return None
    return t if t.n else None


def rising_band(fl, alphas: np.ndarray, tol: float):
    """The certified band (``numeric.profile_band.Band``) of the curve of the finite loss ``fl``
    at the levels ``alphas`` from one pass over its ordered atoms (:func:`finite_tails`, the
    Neyman-Pearson vertices), at 64 + log2(1/tol) bits and then twice that (intersected),
    :data:`BAND_TRIES` precisions at most, until every level is within ``tol`` (f, or the power
    relative to its upper end); None where the atoms have no ordered Arb balls."""
    x = np.asarray(alphas, dtype=np.float64).ravel()
    prec = 64 + int(-np.log2(tol))
    b = None
    for _ in range(BAND_TRIES):
        t = finite_tails(fl, prec)
        if t is None:
            return None
        new = np_band(t, x)
        b = new if b is None else b.intersect(new)
        rel = (b.power_hi - b.power_lo) / np.maximum(b.power_hi, 1e-300)
        if not ((x > 0) & ((b.f_hi - b.f_lo > tol) | (rel > tol))).any():
            break
        prec *= 2
    return b
