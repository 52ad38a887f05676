"""Privacy-loss models of single trade-off functions: the input of the PLD engine (:mod:`.pld`).

For ``f = T(P, Q)`` the privacy loss is ``L = log(dQ/dP)``; ``L = +oo`` where ``P = 0 < Q`` and
``L = -oo`` where ``Q = 0 < P``. The hockey-stick form of Dong, Roth & Su, Prop. 6 is

    delta(eps) = 1 + f^*(-e^eps) = sup_S {Q(S) - e^eps P(S)} = E_Q[(1 - e^{eps - L})_+],

with ``(1 - e^{eps - oo})_+ = 1`` (the Q-mass where P = 0 counts fully), valid for every real
``eps`` (negative ones included), and ``f(alpha) = max{0, sup_eps 1 - delta(eps) - e^eps alpha}``
(the conjugate duality behind Prop. 6) recovers f on [0, 1]. So f is determined by the law of L
under Q, and the PLD engine only needs, for both P and Q, the distribution functions of L.

A :class:`LossModel` provides, vectorised in float64,

* ``cdf(t, which, left)`` -> ``(F, S)``: ``F = M(L <= t)`` and ``S = M(L > t)`` for
  ``M = P`` or ``Q`` (``left=True``: ``M(L < t)`` and ``M(L >= t)``), each computed in its own
  tail (no cancellation), atoms at +-oo included;
* ``rel_err``: a bound on the relative error of those values (scipy's ``ndtr`` and ``exp`` in
  float64; the bound is an assumption about these library functions, stated per model);
* ``edge_err(t)``: a bound on how far (in loss units) the evaluated cut ``t`` may sit from the
  exact one through rounding of the model's own coordinate change;
* ``support(tau)``: losses ``(lo, hi)`` outside of which each of P and Q has mass at most
  ``tau`` (a hint for the grid, not part of any guarantee);
* ``q_inf = Q(L = +oo)`` and ``p_ninf = P(L = -oo)``.

Models: :class:`NormalLoss` (G_mu: under Q, ``L ~ N(mu^2/2, mu^2)``; under P,
``L ~ N(-mu^2/2, mu^2)``, since ``L(x) = mu x - mu^2/2`` for ``x ~ N(mu, 1)`` or ``N(0, 1)``),
:class:`LaplaceLoss`, :class:`MixLoss` (``f_p = T(P, (1-p) P + p Q)``), :class:`InverseLoss`
(``f^{-1} = T(Q, P)``: ``L -> -L`` with the roles of P and Q swapped), :class:`AtomLoss`
(finitely many atoms) and :class:`BinomialLoss` (f_{eps,0}^{(x) n} for large n, from binomial
distribution functions instead of n + 1 atoms).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import singledispatch
from typing import Any

import numpy as np

from ..core.errors import NoClosedForm
from .context import mp
from .finite import finite_loss

__all__ = ["LossModel", "NormalLoss", "LaplaceLoss", "MixLoss", "InverseLoss", "AtomLoss",
           "SubsampleLoss", "BinomialLoss", "loss_model", "delta_part", "leaf_model",
           "atoms_model", "U64"]

#: Unit roundoff of float64.
U64 = 2.0**-53
#: Assumed relative accuracy of scipy.special.ndtr / exp / expm1 / log1p in float64 (Cephes
#: documents peak errors of a few 1e-16; the bound leaves an order of magnitude of room).
RHO_LIB = 5e-15


@singledispatch
def loss_model(f: Any) -> LossModel | None:
    """The privacy-loss model of a trade-off expression, or None (families register theirs:
    G_mu, L_mu, Mix of a modelled f, Inverse of a modelled f, finite objects)."""
    return None


def exact_fraction(x: Any) -> Fraction | None:
    """A SymPy Rational, or a Float as its exact binary value, as a Fraction; None otherwise
    (irrational or symbolic parameters)."""
    import sympy as sp

    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sp.Float) and x.is_finite:
        r = sp.Rational(x)
        return Fraction(int(r.p), int(r.q))
    return None


@singledispatch
def cf_spec(f: Any) -> tuple | None:
    """The loss law of a factor for the certified Laplace inversion (:mod:`.cf`), as a plain
    tuple that :func:`.cf_laws.law_from_spec` turns into a law, or None: ``("gaussian", mu)``
    (G_mu) and ``("subsampled_gaussian", mu, q, direction)`` (Mix(G_mu, q) is ``"remove"``, its
    inverse ``"add"``), every parameter an exact Fraction. Families register theirs."""
    return None


@singledispatch
def delta_part(f: Any) -> tuple[Any, Any]:
    """``(rest, delta)`` with ``f = rest (x) f_{0,delta}`` (Dong, Roth & Su, Eq. (10):
    f_{eps,delta} = f_{eps,0} (x) f_{0,delta}), ``rest`` None when it is Id. The f_{0,delta}
    part re-enters a composition exactly (Eq. (12)) instead of through a grid. Default
    ``(f, 0)``; families register theirs (f_{eps,delta}, Id)."""
    return f, 0


class LossModel:
    """Distribution functions of the privacy loss L = log dQ/dP under P and Q (see module)."""

    q_inf: float = 0.0
    p_ninf: float = 0.0
    rel_err: float = RHO_LIB
    #: The parts of q_inf and p_ninf that are certainly there (a model may park a dropped tail
    #: of at most tau at +-oo: right for the pessimistic side, not for the optimistic one);
    #: None means all of it.
    q_inf_sure: float | None = None
    p_ninf_sure: float | None = None

    def sure_q_inf(self) -> float:
        """The Q-mass at +oo that the optimistic side may keep."""
        return self.q_inf if self.q_inf_sure is None else self.q_inf_sure

    def sure_p_ninf(self) -> float:
        return self.p_ninf if self.p_ninf_sure is None else self.p_ninf_sure

    def cdf(self, t: np.ndarray, which: str, left: bool = False):
        raise NotImplementedError

    def edge_err(self, t: np.ndarray) -> float:
        return 8 * U64 * (1.0 + float(np.max(np.abs(t[np.isfinite(t)]), initial=0.0)))

    def support(self, tau: float) -> tuple[float, float]:
        raise NotImplementedError

    def atoms(self) -> list[tuple[float, float]]:
        """(loss, Q-mass) of the law's heaviest finite atoms (a few at most): the engine puts
        the heaviest of all factors on a grid point (``pld._aligned_step``), where the
        optimistic side does not have to round it down."""
        return []


class NormalLoss(LossModel):
    """G_mu (Dong, Roth & Su, Eq. (5)): ``L = mu x - mu^2/2``; under Q = N(mu, 1),
    ``L ~ N(m, s^2)``; under P = N(0, 1), ``L ~ N(-m, s^2)``, with ``m = mu^2/2``, ``s = mu``."""

    def __init__(self, mu: float):
        if not (mu > 0 and math.isfinite(mu)):
            raise ValueError("NormalLoss needs 0 < mu < oo")
        self.mu = float(mu)
        self.m, self.s = self.mu * self.mu / 2, self.mu
        self._zmax = 0.0

    def cdf(self, t, which, left=False):
        c = self.m if which == "Q" else -self.m
        with np.errstate(invalid="ignore"):
            z = (np.asarray(t, dtype=np.float64) - c) / self.s
        fin = np.abs(z[np.isfinite(z)])
        self._zmax = max(self._zmax, float(fin.max(initial=0.0)))
        from scipy import special  # (imported at first use: it slows the package import)
        return special.ndtr(z), special.ndtr(-z)

    @property
    def rel_err(self) -> float:
        # ndtr itself, and the rounding of z = (t - c)/s (relative 3u of z, which moves Phi by
        # phi(z) |z| 3u <= (z^2 + 1) 3u Phi(-|z|) relatively in the tail)
        # (z is capped before squaring: for mu near 1e-272, z reaches 1e272 and z^2 overflows;
        # the bound then exceeds 1, i.e. the cells carry no information, which is still valid)
        return RHO_LIB + 4 * U64 * (min(self._zmax, 1e150) ** 2 + 2)

    def edge_err(self, t):
        # the cut's rounding in z is in rel_err; the float parameter mu (relative error <= u)
        # moves L = m + s Z by at most 2u (m + 40 s) for |Z| <= 40 (beyond: mass < 1e-300)
        return 4 * U64 * (self.m + 40 * self.s)

    def support(self, tau):
        from scipy import special  # (imported at first use: it slows the package import)
        z = -special.ndtri(tau)
        return -self.m - z * self.s, self.m + z * self.s


class LaplaceLoss(LossModel):
    """L_mu (Dong, Roth & Su, Prop. 7): ``L(x) = |x| - |x - mu|`` is ``-mu`` for x <= 0,
    ``2x - mu`` on [0, mu] and ``mu`` for x >= mu. Under Q = Lap(mu, 1): atoms
    ``Q(L = -mu) = e^{-mu}/2``, ``Q(L = mu) = 1/2`` and ``Q(L <= t) = e^{(t - mu)/2}/2`` on
    ``[-mu, mu)``; under P = Lap(0, 1): ``P(L = -mu) = 1/2``, ``P(L = mu) = e^{-mu}/2`` and
    ``P(L > t) = e^{-(t + mu)/2}/2`` on ``[-mu, mu)``."""

    def __init__(self, mu: float):
        if not (mu > 0 and math.isfinite(mu)):
            raise ValueError("LaplaceLoss needs 0 < mu < oo")
        self.mu = float(mu)

    def cdf(self, t, which, left=False):
        t = np.asarray(t, dtype=np.float64)
        mu = self.mu
        below = (t <= -mu) if left else (t < -mu)
        above = (t > mu) if left else (t >= mu)
        mid = ~below & ~above
        tm = np.where(mid, t, 0.0)
        F = np.zeros_like(t)
        S = np.zeros_like(t)
        if which == "Q":
            Fm = 0.5 * np.exp((tm - mu) / 2)
            F = np.where(below, 0.0, np.where(above, 1.0, Fm))
            S = np.where(below, 1.0, np.where(above, 0.0, 1.0 - Fm))
        else:
            Sm = 0.5 * np.exp(-(tm + mu) / 2)
            S = np.where(below, 1.0, np.where(above, 0.0, Sm))
            F = np.where(below, 0.0, np.where(above, 1.0, 1.0 - Sm))
        return F, S

    @property
    def rel_err(self) -> float:
        return RHO_LIB + 4 * U64 * (1 + self.mu)

    def support(self, tau):
        return -self.mu, self.mu

    def atoms(self):
        return [(self.mu, 0.5), (-self.mu, 0.5 * math.exp(-self.mu))]


class MixLoss(LossModel):
    """f_p = p f + (1 - p) Id = T(P, (1 - p) P + p Q) for f = T(P, Q) (Dong, Roth & Su,
    Sec. 4.1): the likelihood ratio of the mixture R is ``1 - p + p e^L``, so its loss is
    ``g(L) = log(1 - p + p e^L)``, increasing, with inverse
    ``g^{-1}(t) = log((expm1(t) + p)/p)`` for ``t > log(1 - p)``. Under R the law of L is
    ``(1 - p) law_P(L) + p law_Q(L)``; under P it is law_P(L). ``-oo`` maps to ``log(1 - p)``."""

    def __init__(self, inner: LossModel, p: float):
        if not (0 < p < 1):
            raise ValueError("MixLoss needs 0 < p < 1")
        self.inner, self.p = inner, float(p)
        self.floor = math.log1p(-self.p)
        self.q_inf = self.p * inner.q_inf
        self.q_inf_sure = self.p * inner.sure_q_inf() * (1 - 4 * U64)
        self.p_ninf = 0.0
        self._xmax = 0.0

    def atoms(self):
        """The inner atoms l at g(l) = log(1 - p + p e^l), with R-mass (1 - p) P(l) + p Q(l),
        and the inner P-atom at -oo at log(1 - p)."""
        out = [(math.log1p(self.p * math.expm1(l)), (1 - self.p) * m * math.exp(-l) + self.p * m)
               for l, m in self.inner.atoms() if math.isfinite(l) and l < 700]
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
                + self.inner.edge_err(self._pull(fin)))

    def support(self, tau):
        lo, hi = self.inner.support(tau)
        def g(v):
            return math.log1p(-self.p + self.p * math.exp(min(v, 700.0))) if v < 700 else \
                    math.log(self.p) + v
        return max(self.floor, g(lo)), g(hi)


class InverseLoss(LossModel):
    """f^{-1} = T(Q, P) (Dong, Roth & Su, Sec. 2.1 after Prop. 2): the loss of the swapped pair
    is ``-L`` with P and Q exchanged: ``Q'(L' <= t) = P(L >= -t)``, ``Q'(L' > t) = P(L < -t)``."""

    def __init__(self, inner: LossModel):
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

    def atoms(self):  # the swapped pair: loss -l, Q-mass the inner P-mass m e^{-l}
        return [(-l, m * math.exp(-l)) for l, m in self.inner.atoms() if l < 700]


class AtomLoss(LossModel):
    """Finitely many atoms: losses ``l_i`` (finite) with P-masses and Q-masses, plus
    ``q_inf = Q(L = +oo)`` and ``p_ninf = P(L = -oo)`` (a finite pair, e.g. f_{eps,delta})."""

    def __init__(self, losses, pm, qm, q_inf=0.0, p_ninf=0.0, rel_err=4 * U64,
                 q_inf_sure=None, p_ninf_sure=None):
        self.q_inf_sure, self.p_ninf_sure = q_inf_sure, p_ninf_sure
        order = np.argsort(losses)
        self.l = np.asarray(losses, dtype=np.float64)[order]
        self.pm = np.asarray(pm, dtype=np.float64)[order]
        self.qm = np.asarray(qm, dtype=np.float64)[order]
        self.q_inf, self.p_ninf = float(q_inf), float(p_ninf)
        self._rel = float(rel_err) + 4 * U64 * (len(self.l) + 2)
        self._cum = {}
        for w, m, atom_lo, atom_hi in (("P", self.pm, self.p_ninf, 0.0),
                                       ("Q", self.qm, 0.0, self.q_inf)):
            pre = np.concatenate([[0.0], np.cumsum(m)]) + atom_lo
            suf = np.concatenate([np.cumsum(m[::-1])[::-1], [0.0]]) + atom_hi
            self._cum[w] = (pre, suf)

    def cdf(self, t, which, left=False):
        pre, suf = self._cum[which]
        k = np.searchsorted(self.l, np.asarray(t, dtype=np.float64),
                            side="left" if left else "right")
        return pre[k], suf[k]

    @property
    def rel_err(self) -> float:
        return self._rel

    def edge_err(self, t):
        return 0.0

    def support(self, tau):
        if len(self.l) == 0:
            return 0.0, 0.0
        return float(self.l[0]), float(self.l[-1])

    def atoms(self):
        q = np.where(self.l != 0, self.qm, 0.0)
        top = np.argsort(q)[::-1][:8]
        return [(float(self.l[i]), float(q[i])) for i in top if q[i] > 0]


class SubsampleLoss(LossModel):
    """C_p(f) for symmetric f (Dong, Roth & Su, Def. 6 and Eq. (13)) from the model of
    f_p = T(P, R): on [0, x*] C_p(f) is f_p, whose slopes there are <= -1 (losses L_R >= 0, since
    f_p'(x*) = p f'(x*) - (1 - p) = -1 at the fixed point of symmetric f); then a segment of
    slope -1 (an atom at loss 0); then f_p^{-1}, the mirror image (losses -L_R). Hence, for
    t >= 0, ``Q_C(L > t) = R(L_R > t)`` and ``P_C(L > t) = P(L_R > t)``; for t < 0, by the
    symmetry ``Q_C(L <= t) = P_C(L >= -t) = P(L_R >= -t)`` and ``P_C(L <= t) = R(L_R >= -t)``;
    the atom at 0 carries the rest."""

    def __init__(self, mix: LossModel):
        self.mix = mix
        self.q_inf = mix.q_inf
        self.p_ninf = mix.q_inf
        self.q_inf_sure = self.p_ninf_sure = mix.sure_q_inf()

    def atoms(self):  # the mixture's atoms above 0 (on [0, x*]), each with its mirror image
        return [(l, m) for l, m in self.mix.atoms() if l > 0]

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


class BinomialLoss(LossModel):
    """f_{eps,0}^{(x) n} = T(B(n, p), B(n, q)), p = 1/(1 + e^eps), q = 1 - p (Dong, Roth & Su,
    Sec. 3.3): the loss of K successes is ``eps (2K - n)``, so ``M(L <= t) = M(K <= k(t))``
    with ``k(t) = floor((t/eps + n)/2)`` (``left``: ``M(L < t) = M(K <= ceil((t/eps + n)/2) -
    1)``), K ~ B(n, p) under P and B(n, q) under Q. The distribution functions are
    ``scipy.stats.binom`` (Boost's incomplete beta), whose relative error grows like n times
    the unit roundoff (measured below 3e-10 at n = 10^9 against exact tail sums); the bound
    ``rel_err`` takes 16 n u, far above it. For large n, where n + 1 atoms would be costly."""

    def __init__(self, eps: float, n: int):
        if not (eps > 0 and math.isfinite(eps)) or n < 1:
            raise ValueError("BinomialLoss needs 0 < eps < oo and n >= 1")
        self.eps, self.n = float(eps), int(n)
        self.p = 1.0 / (1.0 + math.exp(self.eps))

    def _k(self, t, left: bool):
        x = (np.asarray(t, dtype=np.float64) / self.eps + self.n) / 2
        with np.errstate(invalid="ignore"):
            k = np.ceil(x) - 1 if left else np.floor(x)
        return np.clip(np.nan_to_num(k, nan=0.0, posinf=self.n, neginf=-1.0), -1.0, self.n)

    def cdf(self, t, which, left=False):
        from scipy.stats import binom

        k = self._k(t, left)
        prob = self.p if which == "P" else 1.0 - self.p
        # a fine grid has many cuts between two atoms: each distinct k is evaluated once
        ku, inv = np.unique(k, return_inverse=True)
        inside = (ku >= 0) & (ku < self.n)
        Fu = np.where(ku < 0, 0.0, 1.0)
        Su = 1.0 - Fu
        Fu[inside] = binom.cdf(ku[inside], self.n, prob)
        Su[inside] = binom.sf(ku[inside], self.n, prob)
        inv = inv.reshape(k.shape)
        return Fu[inv], Su[inv]

    @property
    def rel_err(self) -> float:
        return RHO_LIB + 16 * U64 * self.n * max(1.0, self.eps)

    def edge_err(self, t):
        # the cut (t/eps + n)/2 is rounded (relative u each step) and eps is a float (relative
        # u): in loss units at most 4u (|t| + n eps)
        fin = np.asarray(t)[np.isfinite(t)]
        tm = float(np.max(np.abs(fin), initial=0.0))
        return 8 * U64 * (tm + self.n * self.eps + 1.0)

    def support(self, tau):
        from scipy.stats import binom

        # the lowest loss from the lower tail of K under P; the law under Q is its mirror
        # image (K -> n - K), so the highest loss is minus it
        lo = self.eps * (2 * float(binom.ppf(tau, self.n, self.p)) - self.n)
        return lo, -lo

    def atoms(self):
        return [(self.eps, 1.0)]  # every loss is a multiple of eps


# ------------------------------------------------------------------------------------------------
# the model of one factor
# ------------------------------------------------------------------------------------------------
def leaf_model(f) -> LossModel:
    """The loss model of one factor: its family's ``loss_model`` hook, else its exact finite
    atoms (``numeric.finite.finite_loss``), else :class:`NoClosedForm`."""
    m = loss_model(f)
    if m is not None:
        return m
    fl = finite_loss(f)
    if fl is not None:
        return atoms_model(fl)
    raise NoClosedForm(f"{f}: no privacy-loss distribution is known for this factor (families "
                       "G, Laplace, finite objects, Mix and Inverse of these have one)")


def atoms_model(fl) -> AtomLoss:
    """AtomLoss of a FiniteLoss from its materialised atoms (log-ratio, P-mass, Q-mass): the
    exact table when e^eps is rational, else the 128-bit mpmath table (no SymPy: float or
    irrational eps would make symbolic masses slow); rounded to float64 within ``rel_err``."""

    with mp.workprec(128):
        t = fl._exact_table()
        den = t.den if t is not None else 1
        if t is None:
            t = fl._mp_table(128)
        ls, ps, qs = [], [], []
        q_inf = p_ninf = 0.0
        for lg, p, q in zip(t.logs, t.P, t.Q, strict=True):
            pf, qf = float(mp.mpf(p) / den), float(mp.mpf(q) / den)
            if lg == mp.inf:
                q_inf += qf
            elif lg == mp.ninf:
                p_ninf += pf
            else:
                ls.append(float(lg))
                ps.append(pf)
                qs.append(qf)
    return AtomLoss(ls, ps, qs, q_inf, p_ninf, rel_err=1e-15)
