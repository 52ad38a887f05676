"""The privacy losses that operators build from their operands' (numeric.privacy_loss): the
float views of ``Mix`` (f_p, Dong, Roth & Su, Sec. 4.1), ``Inverse`` (f^{-1} = T(Q, P)) and
``Subsample`` (C_p of a symmetric f, Def. 6 and Eq. (13)) for the PLD engine. Each transforms
the operand's distribution functions exactly and adds its own rounding to ``rel_err`` and
``edge_err``.
"""

from __future__ import annotations

import math

import numpy as np

from ..numeric.privacy_loss import U64, PrivacyLoss

__all__ = ["MixLoss", "InverseLoss", "SubsampleLoss"]


class MixLoss(PrivacyLoss):
    """f_p = p f + (1 - p) Id = T(P, (1 - p) P + p Q) for f = T(P, Q) (Dong, Roth & Su,
    Sec. 4.1): the likelihood ratio of the mixture R is ``1 - p + p e^L``, so its loss is
    ``g(L) = log(1 - p + p e^L)``, increasing, with inverse
    ``g^{-1}(t) = log((expm1(t) + p)/p)`` for ``t > log(1 - p)``. Under R the law of L is
    ``(1 - p) law_P(L) + p law_Q(L)``; under P it is law_P(L). ``-oo`` maps to ``log(1 - p)``."""

    def __init__(self, inner: PrivacyLoss, p: float):
        if not (0 < p < 1):
            raise ValueError("MixLoss needs 0 < p < 1")
        self.inner, self.p = inner, float(p)
        self.floor = math.log1p(-self.p)
        self.q_inf = self.p * inner.q_inf
        self.q_inf_sure = self.p * inner.sure_q_inf() * (1 - 4 * U64)
        self.p_ninf = 0.0
        self._xmax = 0.0

    def heavy_atoms(self):
        """The inner atoms l at g(l) = log(1 - p + p e^l), with R-mass (1 - p) P(l) + p Q(l),
        and the inner P-atom at -oo at log(1 - p)."""
        out = [(math.log1p(self.p * math.expm1(l)), (1 - self.p) * m * math.exp(-l) + self.p * m)
               for l, m in self.inner.heavy_atoms() if math.isfinite(l) and l < 700]
        if self.inner.p_ninf > 0:
            out.append((self.floor, (1 - self.p) * self.inner.p_ninf))
        return out

    def _pull(self, t):
        t = np.asarray(t, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.log((np.expm1(t) + self.p) / self.p)
        x = np.where(t <= self.floor, -np.inf, x)
        fin = np.abs(x[np.isfinite(x)])
        self._xmax = max(self._xmax, float(fin.max(initial=0.0)))
        return x

    def cdf(self, t, which, left=False):
        x = self._pull(t)
        t = np.asarray(t, dtype=np.float64)
        FP, SP = self._inner_cdf(x, "P", left)
        if which == "P":
            F, S = FP, SP
        else:
            FQ, SQ = self._inner_cdf(x, "Q", left)
            q = self.p
            F, S = (1 - q) * FP + q * FQ, (1 - q) * SP + q * SQ
        # L_R = log(1 - p) exactly when L = -oo (a P-atom); below it nothing
        if left:
            low = t <= self.floor
        else:
            low = t < self.floor
        F = np.where(low, 0.0, F)
        S = np.where(low, 1.0, S)
        return F, S

    def _inner_cdf(self, x, which, left):
        fin = np.isfinite(x)
        xf = np.where(fin, x, 0.0)
        F, S = self.inner.cdf(xf, which, left)
        atom = self.inner.p_ninf if which == "P" else 0.0
        F = np.where(fin, F, atom)
        S = np.where(fin, S, 1.0 - atom)
        return F, S

    @property
    def rel_err(self) -> float:
        return self.inner.rel_err + 4 * U64

    def edge_err(self, t):
        # g(g^{-1}(t)) - t: expm1 relative error moves t by ~u; the rounding of x (relative u)
        # moves g by at most u |x|; the inner model's own cut error maps with slope <= 1.
        fin = np.asarray(t)[np.isfinite(t)]
        tm = float(np.max(np.abs(fin), initial=0.0))
        # (+ the float parameter p, relative error <= u: moves g by <= 2u (1 + p/(1 - p)))
        return (8 * U64 * (2 + tm + self._xmax) + 4 * U64 * (1 + self.p / (1 - self.p))
                + self.inner.edge_err(self._pull(self._extremes(fin))))

    def _extremes(self, fin: np.ndarray) -> np.ndarray:
        """The points of ``fin`` whose pulls hold the largest finite |g^{-1}|: its largest, and
        its smallest above the floor (g^{-1} increasing, -oo at and below the floor). An
        ``edge_err`` depends on its points only through their largest finite |t|
        (``numeric.privacy_loss.PrivacyLoss.edge_err``), so these two give the bound of all."""
        if fin.size <= 2:
            return fin
        above = fin[fin > self.floor]
        return np.array([fin.max(), above.min()] if above.size else [fin.max()])

    def support(self, tau):
        lo, hi = self.inner.support(tau)
        def g(v):
            return math.log1p(-self.p + self.p * math.exp(min(v, 700.0))) if v < 700 else \
                    math.log(self.p) + v
        return max(self.floor, g(lo)), g(hi)


class InverseLoss(PrivacyLoss):
    """f^{-1} = T(Q, P) (Dong, Roth & Su, Sec. 2.1 after Prop. 2): the loss of the swapped pair
    is ``-L`` with P and Q exchanged: ``Q'(L' <= t) = P(L >= -t)``, ``Q'(L' > t) = P(L < -t)``."""

    def __init__(self, inner: PrivacyLoss):
        self.inner = inner
        self.q_inf = inner.p_ninf
        self.p_ninf = inner.q_inf
        self.q_inf_sure, self.p_ninf_sure = inner.sure_p_ninf(), inner.sure_q_inf()

    def cdf(self, t, which, left=False):
        other = "P" if which == "Q" else "Q"
        F, S = self.inner.cdf(-np.asarray(t, dtype=np.float64), other, not left)
        return S, F

    @property
    def rel_err(self) -> float:
        return self.inner.rel_err

    def edge_err(self, t):
        return self.inner.edge_err(-np.asarray(t))

    def support(self, tau):
        lo, hi = self.inner.support(tau)
        return -hi, -lo

    def heavy_atoms(self):  # the swapped pair: loss -l, Q-mass the inner P-mass m e^{-l}
        return [(-l, m * math.exp(-l)) for l, m in self.inner.heavy_atoms() if l < 700]


class SubsampleLoss(PrivacyLoss):
    """C_p(f) for symmetric f (Dong, Roth & Su, Def. 6 and Eq. (13)) from the model of
    f_p = T(P, R): on [0, x*] C_p(f) is f_p, whose slopes there are <= -1 (losses L_R >= 0, since
    f_p'(x*) = p f'(x*) - (1 - p) = -1 at the fixed point of symmetric f); then a segment of
    slope -1 (an atom at loss 0); then f_p^{-1}, the mirror image (losses -L_R). Hence, for
    t >= 0, ``Q_C(L > t) = R(L_R > t)`` and ``P_C(L > t) = P(L_R > t)``; for t < 0, by the
    symmetry ``Q_C(L <= t) = P_C(L >= -t) = P(L_R >= -t)`` and ``P_C(L <= t) = R(L_R >= -t)``;
    the atom at 0 carries the rest."""

    def __init__(self, mix: PrivacyLoss):
        self.mix = mix
        self.q_inf = mix.q_inf
        self.p_ninf = mix.q_inf
        self.q_inf_sure = self.p_ninf_sure = mix.sure_q_inf()

    def heavy_atoms(self):  # the mixture's atoms above 0 (on [0, x*]), each with its mirror image
        return [(l, m) for l, m in self.mix.heavy_atoms() if l > 0]

    def cdf(self, t, which, left=False):
        t = np.asarray(t, dtype=np.float64)
        other = "P" if which == "Q" else "Q"
        pos = t >= 0 if not left else t > 0
        tp = np.where(pos, t, 0.0)
        tn = np.where(pos, 0.0, -t)
        _, S_same = self.mix.cdf(tp, which, left)            # M(L_R > t) (left: >=)
        _, S_mirror = self.mix.cdf(tn, other, not left)      # other(L_R >= -t) (left: >)
        F = np.where(pos, 1.0 - S_same, S_mirror)
        S = np.where(pos, S_same, 1.0 - S_mirror)
        return F, S

    @property
    def rel_err(self) -> float:
        return self.mix.rel_err + 4 * U64

    def edge_err(self, t):
        return self.mix.edge_err(np.abs(np.asarray(t)))

    def support(self, tau):
        lo, hi = self.mix.support(tau)
        m = max(abs(lo), abs(hi))
        return -m, m
