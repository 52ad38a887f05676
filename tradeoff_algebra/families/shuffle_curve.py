"""Certified bands of the whole trade-off curve of the shuffle pair: every level's strict tails
at its Neyman--Pearson threshold in ONE slice pass in Arb.

The pair, its threshold fractions and the identity ``1 - f(alpha) = Q_< + r* (alpha - P_<)``
are those of :mod:`.shuffle_roc`. Here the thresholds of all levels come from one float pass
(:func:`.shuffle_locate.locate_thresholds`), and the strict tails of every threshold are
accumulated in one pass over the slices ``s = a + b``: per slice, each threshold ``tau_j = p/q``
has its top index ``M = ceil(s tau_j) - 1`` and carries its state

    F = F_s(M) = sum_{a <= M} b_s(a),  A = A_s(M) = sum_{a <= M} a b_s(a),  b = b_s(M)

(``b_s`` the Binom(s, 1/2) masses), moved from slice s - 1 to s by ``X_s = X_{s-1} +
Bernoulli(1/2)``:

    F_s(M) = F_{s-1}(M) - b_{s-1}(M)/2,   A_s(M) = A_{s-1}(M) + (F_{s-1}(M) - (M + 1) b_{s-1}(M))/2,
    b_s(M) = b_{s-1}(M) s/(2 (s - M)),

(``b_s(a) = (b_{s-1}(a) + b_{s-1}(a - 1))/2`` summed over a <= M, and ``sum a b_{s-1}(a - 1) =
A + F - (M + 1) b``), then up to the slice's own top by ``b <- b (s - M)/(M + 1)``, ``F += b``,
``A += M b``. The slice adds ``B_n(s) (s F + (E - 1) A)/n`` to ``P_<`` and ``B_n(s) (E s F - (E -
1) A)/n`` to ``Q_<`` (``P = (s + (E - 1) a) K``, ``Q = (E s - (E - 1) a) K``), and where q
divides s the threshold atom's point ``a = s p/q`` its P-mass to ``P_=`` (a lower bound: the
kept slices); the fraction tau = 0 (levels below the top atom's P-mass, likelihood ratio E)
has no strict tail and its atom a = 0 adds ``B_n(s) s 2^-s/n`` to ``P_=``, so the band there is
the polygon's first chord from (0, 0). ``B_n(s)`` (Binom(n, 2/(E + 1))) is shared by all
thresholds. Arb carries every
rounding; a state whose ball has lost ``RESTART_BITS`` is restarted from the series of
:mod:`.shuffle_profile`. The slices outside the window add ``[0, (E + 1)/2 tail]`` to both tails
(Chernoff, as in :mod:`.shuffle_roc`). Cost: O(1) Arb operations per slice and threshold.

The band (:func:`curve_band`). The points ``(P_<, Q_<)`` and ``(P_< + P_=, Q_< + r* P_=)`` lie on
the concave power curve (whatever the fraction: they are Neyman--Pearson points of the
polygon), so the upper concave hull of the computed points bounds the power from below; the
line ``Q_< + r* (alpha - P_<)`` extends a segment of the polygon, so it bounds the power from
above at every level (:mod:`.shuffle_roc`). A wrong fraction only loosens the band. The levels
are computed in nested strides (every 2^k-th level, k = :data:`TOP_STRIDE` down to 0), the band
of each stride intersected with the previous ones, until the band is within ``tol`` (f, and the
power relative to its upper end); a level still wider than ``tol`` when every level is computed
gets its fraction from the per-level search of :mod:`.shuffle_roc` (the existing route) and
its tails added. A tighter ``tol`` goes through the same strides and further, each computed
the same way: its band is the intersection of more bands, never wider.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from ..numeric.arb_expr import arb_ball
from ..numeric.cf_laws import lower, upper
from ..numeric.context import arb_precision
from ..numeric.profile_band import Band, point_band
from .shuffle_locate import locate_thresholds
from .shuffle_pair import _outside_slices, _slice_masses, _slices
from .shuffle_profile import MAX_SLICES, RESTART_BITS, _log_binom_half, _series
from .shuffle_roc import MAX_SEARCH_N, search_fraction

__all__ = ["many_tails", "curve_band"]

#: Working precision (bits) of the curve's tails and their dropped-mass target (bits below the
#: smallest level): float64 bands need no more.
CURVE_PREC = 96
CURVE_TAU_BITS = 64
#: The first stride of computed levels is 2^TOP_STRIDE.
TOP_STRIDE = 3
#: Slices between the checks of a state's accuracy.
CHECK_EVERY = 8


def many_tails(E, n: int, taus: list[Fraction], s_lo: int, s_hi: int, prec: int) -> list:
    """[(P_<, Q_<, P_=)] as Arb balls for each threshold fraction of ``taus`` (0 <= tau <= 1) of
    ShuffleDP(eps0, n), ``E = e^eps0`` an arb, from the slices ``s_lo..s_hi`` in one pass
    (module docstring); ``P_=`` is a lower bound, ``P_<`` and ``Q_<`` include the dropped
    slices. Runs at the current Arb precision ``prec``."""
    from flint import arb

    J = len(taus)
    nums = [t.numerator for t in taus]
    dens = [t.denominator for t in taus]
    half = arb(1) / 2
    E1 = E - 1
    U = [arb(0)] * J
    V = [arb(0)] * J
    Pe = [arb(0)] * J
    Ms = [-1] * J
    Fs: list = [None] * J
    As: list = [None] * J
    bs: list = [None] * J
    fresh = [0] * J
    for s, B in _slice_masses(E, n, s_lo, s_hi):
        Bs = B * s
        check = (s - s_lo) % CHECK_EVERY == 0
        for j in range(J):
            p, q = nums[j], dens[j]
            M2 = (s * p - 1) // q
            if M2 < 0:
                if p == 0:  # tau = 0: no strict tail, the atom a = 0 (b_s(0) = 2^-s) is P_=
                    Pe[j] += s * half ** s * B
                continue
            M = Ms[j]
            if M >= 0:
                F, A, b = Fs[j], As[j], bs[j]
                hb = b * half
                F, A, b = F - hb, A + (F * half - (M + 1) * hb), b * s / (2 * (s - M))
                if check and F.rel_accuracy_bits() < fresh[j] - RESTART_BITS:
                    M = -1
                else:
                    while M < M2:
                        b = b * (s - M) / (M + 1)
                        M += 1
                        F += b
                        A += M * b
            if M < 0:  # a fresh state from the series (shuffle_profile)
                M = M2
                b = _log_binom_half(s, M).exp()
                R0, R1 = _series(s, M, prec)
                F, A = b * R0, b * (M * R0 - R1)
                fresh[j] = F.rel_accuracy_bits()
            Ms[j], Fs[j], As[j], bs[j] = M, F, A, b
            U[j] += F * Bs
            V[j] += A * B
            if s % q == 0:  # the threshold atom's point a = M + 1 = s p/q
                a = M + 1
                Pe[j] += b * (s - M) / a * (s + E1 * a) * B
    drop = arb(0).union((E + 1) / 2 * _outside_slices(E, n, s_lo, s_hi))
    return [((U[j] + E1 * V[j]) / n + drop, (E * U[j] - E1 * V[j]) / n + drop, Pe[j] / n)
            for j in range(J)]


class _Curve:
    """The computed thresholds of one curve: points and support lines by level."""

    def __init__(self, eps0: sp.Expr, n: int, levels: list[float]):
        self.e0, self.n, self.levels = float(eps0), n, levels
        amin = min(min(levels), 1 - max(levels))
        tb = CURVE_TAU_BITS + int(max(-math.log2(amin), 0.0))
        self.s_lo, self.s_hi = _slices(self.e0, n, -tb * math.log(2.0))
        with arb_precision(CURVE_PREC):
            self.E = arb_ball(sp.exp(eps0))
        self.taus: dict[int, Fraction | None] = {}   # level index -> located fraction
        self.done: dict[Fraction, tuple] = {}       # fraction -> (P_<, Q_<, r, P_=)
        self.lines: dict[int, list] = {}            # level index -> its fractions

    def locate(self, idx: list[int]) -> None:
        new = [i for i in idx if i not in self.taus]
        for i, t in zip(new, locate_thresholds(self.e0, self.n, [self.levels[i] for i in new]),
                        strict=True):
            self.taus[i] = t

    def compute(self, idx: list[int]) -> None:
        """Tails of the located fractions of the levels ``idx`` not yet computed, one pass."""
        self.locate(idx)
        for i in idx:
            t = self.taus[i]
            if t is not None:
                self.lines.setdefault(i, [])
                if t not in self.lines[i]:
                    self.lines[i].append(t)
        todo = sorted({self.taus[i] for i in idx if self.taus[i] is not None} - set(self.done))
        if not todo:
            return
        with arb_precision(CURVE_PREC):
            E = self.E
            for t, (Pl, Ql, Pe) in zip(todo, many_tails(E, self.n, todo, self.s_lo, self.s_hi,
                                                        CURVE_PREC), strict=True):
                a0, s0 = t.numerator, t.denominator
                r = (E * (s0 - a0) + a0) / (E * a0 + (s0 - a0))
                self.done[t] = (Pl, Ql, r, Pe)

    def add_fraction(self, i: int, t: Fraction) -> None:
        self.lines.setdefault(i, [])
        if t not in self.lines[i]:
            self.lines[i].append(t)

    def band(self, x: np.ndarray) -> Band:
        """The band from every computed threshold (module docstring)."""
        from flint import arb

        px: list = []
        py: list = []
        with arb_precision(CURVE_PREC):
            for Pl, Ql, r, Pe in self.done.values():
                for P, Q in ((Pl, Ql), (Pl + Pe, Ql + r * Pe)):
                    if P.upper() < 1 and Q.lower() > 0:
                        px.append(upper(P))
                        py.append(lower(Q))
            band = point_band(np.array(px), np.array(py), x, [[] for _ in range(x.size)],
                              prec=CURVE_PREC)
            # support lines: each level's own and its nearest computed levels' on both sides
            have = sorted(i for i in self.lines if self.lines[i])
            lv = np.array([self.levels[i] for i in have])
            p_hi = np.ones(x.size)
            one = arb(1)
            for j, a in enumerate(x.ravel().tolist()):
                if not 0 < a < 1 or not have:
                    continue
                k = int(np.searchsorted(lv, a))
                near = have[max(k - 2, 0):k + 2]
                A = arb(a)
                best = None
                for i in near:
                    for t in self.lines[i]:
                        Pl, Ql, r, _ = self.done[t]
                        v = Ql + r * (A - Pl)
                        if best is None or v.upper() < best.upper():
                            best = v
                if best is not None:
                    p_hi[j] = min(upper(best), 1.0)
            p_hi = p_hi.reshape(x.shape)
            f_lo = np.array([max(lower(one - arb(float(h))), 0.0) for h in p_hi.ravel()])
        f_lo = f_lo.reshape(x.shape)
        ends = Band(np.where(x == 0, 1.0, np.where(x == 1, 0.0, f_lo)),
                    np.where(x == 1, 0.0, np.ones_like(x)),
                    np.where(x == 1, 1.0, 0.0),
                    np.where(x == 0, 0.0, p_hi))
        return band.intersect(ends)


def _wide(band: Band, x: np.ndarray, tol: float) -> np.ndarray:
    rel = (band.power_hi - band.power_lo) / np.maximum(band.power_hi, 1e-300)
    return ((band.f_hi - band.f_lo > tol) | (rel > tol)) & (x > 0) & (x < 1)


def curve_band(eps0: sp.Expr, n: int, x: np.ndarray, tol: float | None = None) -> Band | None:
    """Certified bands of ShuffleDP(eps0, n) and of its power at the levels ``x`` (module
    docstring); ``tol`` None computes every level at once. None where the route does not apply
    (n beyond :data:`.shuffle_roc.MAX_SEARCH_N`, too many slices)."""
    e0 = float(eps0)
    if not math.isfinite(e0) or e0 <= 0 or n < 2 or n > MAX_SEARCH_N:
        return None
    x = np.asarray(x, dtype=np.float64)
    levels = np.unique(x[(x > 0) & (x < 1)]).tolist()
    if not levels:
        return Band(np.where(x == 0, 1.0, 0.0), np.where(x == 0, 1.0, 0.0),
                    np.where(x == 0, 0.0, 1.0), np.where(x == 0, 0.0, 1.0))
    cur = _Curve(eps0, n, levels)
    if cur.s_hi - cur.s_lo + 1 > MAX_SLICES:
        return None
    L = len(levels)
    cur.locate(list(range(L)))  # every level's fraction in one float pass (its cost is the range)
    if tol is None:
        cur.compute(list(range(L)))
        return cur.band(x)
    out = None
    for k in range(TOP_STRIDE, -1, -1):
        idx = sorted(set(range(0, L, 1 << k)) | {L - 1})
        cur.compute(idx)
        b = cur.band(x)
        out = b if out is None else out.intersect(b)
        if not _wide(out, x, tol).any():
            return out
    # every level computed: a level still wide gets the per-level search's fraction
    pos = {a: i for i, a in enumerate(levels)}
    extra = []
    for a in np.unique(x[_wide(out, x, tol)]).tolist():
        i = pos[a]
        t = search_fraction(e0, n, a)
        if t is not None and t not in cur.lines.get(i, []):
            cur.add_fraction(i, t)
            extra.append(t)
    if extra:
        todo = sorted(set(extra) - set(cur.done))
        with arb_precision(CURVE_PREC):
            E = cur.E
            for t, (Pl, Ql, Pe) in zip(todo, many_tails(E, n, todo, cur.s_lo, cur.s_hi,
                                                        CURVE_PREC), strict=True):
                a0, s0 = t.numerator, t.denominator
                cur.done[t] = (Pl, Ql, (E * (s0 - a0) + a0) / (E * a0 + (s0 - a0)), Pe)
        out = out.intersect(cur.band(x))
    return out
