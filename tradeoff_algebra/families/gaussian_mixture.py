"""The trade-off between two Gaussian mixtures, T(sum_i w_i N(a_i, 1), sum_i w_i N(b_i, 1)).

With ``P = sum_i w_i N(a_i, 1)`` and ``Q = sum_i w_i N(b_i, 1)`` (a probability vector w, real
means a_i, b_i) the node is the trade-off function ``T(P, Q)(alpha) = inf {1 - E_Q[phi] :
E_P[phi] <= alpha}`` (Dong, Roth & Su, Def. 2). These are the mixtures ``P_w``, ``Q_w`` of Wang,
Su, Ye, Shokri & Su, Sec. 3 (mixture mechanisms, "Wang et al.") with Gaussian components: the
joint pair of their Lemma 3.1, in which the index I is observed (``bounds.mixtures.GaussianJoint``
for a_i = 0, b_i = mu_i), is a lower bound of this node.

Neyman--Pearson. The likelihood ratio ``q/p`` need not be monotone. For a threshold
``t = e^lam`` the optimal test rejects on ``{x : h_t(x) > 0}`` with the exponential polynomial

    h_t(x) = sum_k c_k(t) e^{k x},   c_k(t) = (W^Q_k - t W^P_k) e^{-k^2/2},

k running over the distinct means, ``W^P_k`` (``W^Q_k``) the total weight of the components of
P (Q) with mean k. Laguerre's rule of signs bounds its real roots by the number V of sign
changes of (c_k) ordered by k (so all a_i <= all b_j gives a threshold test, V <= 1; V = 0
means no root). The roots are isolated rigorously by Rolle's theorem, the proof of that rule:
``e^{-k_0 x} h_t`` is strictly monotone between consecutive roots of its derivative, an
exponential polynomial with one term fewer (isolated recursively; two terms have the root
``log(-c_0/c_1)/(k_1 - k_0)``), so h_t has at most one root on each gap, decided by the
certified signs at the gap's ends (values with an error bound from the coefficient radii and
the rounding); beyond [X_lo, X_hi] the extreme term is more than twice the others (a bound from
the coefficients). A root is refined by safeguarded Newton steps on log(positive terms) -
log(negative terms) to a bracket of two certified points. Where a sign stays undecided (a double
root: t at a critical value of q/p) the piece is kept as undecided mass. The rejection
region R is then enclosed, R_lo <= R <= R_hi (finite unions of intervals), and

    alpha(t) = P(R),   f(alpha(t)) = beta(t) = Q(R^c),

each enclosed by sums of normal masses of intervals (positive terms, differences of close tail
probabilities recomputed with the bits they cancel).

The value at a level alpha. alpha(lam) is non-increasing in lam; a certified bracket
``alpha(lam_H) <= alpha <= alpha(lam_L)`` is found with :func:`numeric.roots.bracket_level` in
the coordinate ``u = e^lam / (1 + e^lam)`` (so the threshold is resolved in both tails), and
the value is enclosed from above by beta(lam_H) and the chord through the two points (f is
convex), from below by beta(lam_L) and the supporting lines ``beta(t) - t (alpha - alpha(t))``
(the Neyman--Pearson test at t minimises beta + t alpha over all tests):
:func:`numeric.curve_enclosure.curve_enclosure`, shared with ``bounds.mixtures``, on the level
bracket of the numeric layer. The power
``1 - f(alpha)`` is enclosed the same way from Q(R) without cancellation. The privacy profile
``delta(eps) = int (q - e^eps p)_+`` (the hockey-stick divergence ``H_{e^eps}(Q || P)``, the
library's direction: ``delta = 1 + f^*(-e^eps)``, Dong, Roth & Su, Prop. 6) is
``Q(R) - e^eps P(R)`` at t = e^eps, enclosed by ``[D(R_lo), D(R_lo) + Q(R_hi - R_lo)]``; the
convex conjugate is ``f^*(-t) = -1 + int (q - t p)_+``.

Degenerate cases are exact: P = Q as measures (after merging equal means and dropping zero
weights) is Id, one component on each side is ``G_{|b - a|}`` (Dong, Roth & Su, Eq. (5)).

Parameters are read exactly: floats as the binary rationals they hold, never rounded; a weight
vector of floats whose exact sum is within 1e-12 of 1 is rescaled exactly by that sum (as
``Discrete`` does), anything else must sum to exactly 1.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import sympy as sp
from sympy import Tuple
from sympy.printing.precedence import PRECEDENCE, precedence

from ..core.citations import DRS, WANG
from ..core.errors import InvalidParameter, NumericalError
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.validate import mpf_rational, param, probability_vector
from ..numeric import budget
from ..numeric.context import mp
from ..numeric.curve_enclosure import curve_enclosure, level_probe
from ..numeric.normal import ncdf
from ..numeric.protocol import (
    exact_value,
    mp_conjugate,
    mp_delta,
    mp_roc,
    mp_value,
    num,
    register_value_and_power,
)
from ..numeric.roots import Probe, bracket_level, expand_bracket, findroot
from .gaussian import Gaussian
from .trivial import Id

__all__ = ["GaussianMixturePair", "MIXTURE_PAIR_CITE"]

#: The sources: the definition of T(P, Q) and the mixture setting.
MIXTURE_PAIR_CITE = (DRS.defn(2, note="T(P, Q) by the Neyman-Pearson lemma"),
                     WANG.sec(3, note="mixtures P_w, Q_w of Gaussian components"))

_OWNER = "GaussianMixturePair"

# -- validation ------------------------------------------------------------------------------------
def _means(name: str, ms: Any, n: int) -> list[sp.Expr]:
    allowed = f"a sequence of {n} real numbers (one per weight)"
    if isinstance(ms, (str, bytes)) or not isinstance(ms, (Sequence, sp.Tuple)):
        raise InvalidParameter(name, ms, allowed, _OWNER)
    out = [param(f"{name}[{i}]", m, owner=_OWNER) for i, m in enumerate(ms)]
    if len(out) != n:
        raise InvalidParameter(name, ms, allowed, _OWNER, f"it has {len(out)} entries")
    return out


# -- the node --------------------------------------------------------------------------------------
class GaussianMixturePair(TradeOff):
    """T(sum_i w_i N(a_i, 1), sum_i w_i N(b_i, 1)): the trade-off function (Dong, Roth & Su,
    Def. 2) between two Gaussian mixtures with common weights (Wang et al., Sec. 3).

    ``weights`` is a probability vector w, ``means_p`` the means a_i of P, ``means_q`` the means
    b_i of Q (real numbers, as many as weights). Floats are read as their exact binary values.
    The optimal tests reject on a finite union of intervals where ``q/p > t`` (Neyman--Pearson);
    values are certified enclosures. P = Q gives Id, one component each ``G_{|b - a|}``;
    ``GaussianJoint(w, b - a)`` (the joint pair of Wang et al., Lemma 3.1, for a_i = 0) lies
    below.
    """

    def __new__(cls, weights: Any, means_p: Any, means_q: Any):
        ws = probability_vector("weights", weights, _OWNER)
        a = _means("means_p", means_p, len(ws))
        b = _means("means_q", means_q, len(ws))
        return TradeOff.__new__(cls, Tuple(*ws), Tuple(*a), Tuple(*b))

    @property
    def weights(self) -> Tuple:
        return self.args[0]

    @property
    def means_p(self) -> Tuple:
        return self.args[1]

    @property
    def means_q(self) -> Tuple:
        return self.args[2]

    @property
    def is_symmetric(self) -> bool | None:
        """True when decided: P = Q (Id), one component each (G_mu), or Q the mirror image of
        P (then T(P, Q) = T(Q, P) = f^{-1}); otherwise not claimed."""
        if _degenerate(self) is not None:
            return True
        P, Q = _canonical(self)
        if any(m.free_symbols for m, _ in P + Q):
            return None
        try:
            c = max(m for m, _ in Q) + min(m for m, _ in P)
        except TypeError:  # an order SymPy cannot decide
            return None
        return True if _same_measure([(c - m, w) for m, w in P], Q) else None

    def _eval_at(self, alpha):
        d = _degenerate(self)
        if d is None:
            return None
        return 1 - alpha if d is Id else Phi(PhiInv(1 - alpha) - d.mu)

    def _eval_fixed_point(self):
        d = _degenerate(self)
        if d is None:
            return None
        return sp.Rational(1, 2) if d is Id else Phi(-d.mu / 2)

    def _eval_inverse(self):
        """T(P, Q)^{-1} = T(Q, P) (Dong, Roth & Su, Eq. (3))."""
        if self.is_symmetric:
            return self
        return GaussianMixturePair(self.weights, self.means_q, self.means_p)

    def _sympystr(self, printer):
        return "GaussianMixturePair(%s)" % ", ".join(
            "[%s]" % ", ".join(printer._print(x) for x in t) for t in self.args)

    def _latex(self, printer):
        def mixture(means):
            parts = []
            for w, m in zip(self.weights, means, strict=True):
                comp = r"\mathcal{N}\left(%s, 1\right)" % printer._print(m)
                if w == 1:
                    parts.append(comp)
                    continue
                tw = printer._print(w)
                if precedence(w) < PRECEDENCE["Mul"]:
                    tw = r"\left(%s\right)" % tw
                parts.append(r"%s\,%s" % (tw, comp))
            return " + ".join(parts)

        return r"T\left(%s, %s\right)" % (mixture(self.means_p), mixture(self.means_q))


# -- exact structure -------------------------------------------------------------------------------
def _equal(x: sp.Expr, y: sp.Expr) -> bool:
    """Decided x == y (unknown counts as different)."""
    return x == y or (x - y).is_zero is True


def _merge(ws, ms) -> list[tuple[sp.Expr, sp.Expr]]:
    """The measure sum_i w_i N(m_i, 1) as (mean, total weight) groups with equal means merged
    and groups of weight 0 dropped."""
    groups: list[list] = []
    for w, m in zip(ws, ms, strict=True):
        for g in groups:
            if _equal(g[0], m):
                g[1] += w
                break
        else:
            groups.append([m, w])
    return [(m, w) for m, w in groups if w.is_zero is not True]


@functools.lru_cache(maxsize=512)
def _canonical(f: GaussianMixturePair) -> tuple[list, list]:
    """(P, Q) as merged (mean, weight) groups (see :func:`_merge`)."""
    return _merge(f.weights, f.means_p), _merge(f.weights, f.means_q)


def _same_measure(P: list, Q: list) -> bool:
    """Decided equality of two merged mixtures."""
    if len(P) != len(Q):
        return False
    rest = list(Q)
    for m, w in P:
        for i, (m2, w2) in enumerate(rest):
            if _equal(m, m2) and _equal(w, w2):
                del rest[i]
                break
        else:
            return False
    return True


@functools.lru_cache(maxsize=512)
def _degenerate(f: GaussianMixturePair) -> TradeOff | None:
    """Id when P = Q is decided, ``G_{|b - a|}`` for one component on each side, else None."""
    P, Q = _canonical(f)
    if _same_measure(P, Q):
        return Id
    if len(P) == 1 and len(Q) == 1:
        return Gaussian(sp.Abs(Q[0][0] - P[0][0]))
    return None


# -- numeric model ---------------------------------------------------------------------------------
class _Model:
    """The numbers of one pair at the working precision: the components of P and Q, and the
    distinct exponents k (ascending) with ``B_k = W^Q_k e^{-k^2/2}``, ``A_k = W^P_k e^{-k^2/2}``
    (so h_t = sum_k (B_k - t A_k) e^{k x})."""

    __slots__ = ("P", "Q", "ks", "A", "B", "W")

    def __init__(self, f: GaussianMixturePair):
        Pc, Qc = _canonical(f)
        self.P = [(num(w, "weight"), num(m, "means_p")) for m, w in Pc]
        self.Q = [(num(w, "weight"), num(m, "means_q")) for m, w in Qc]
        exps: list[list] = []  # [exact k, W^P, W^Q]
        for src, j in ((Pc, 1), (Qc, 2)):
            for m, w in src:
                for e in exps:
                    if _equal(e[0], m):
                        e[j] += w
                        break
                else:
                    e = [m, sp.S.Zero, sp.S.Zero]
                    e[j] = w
                    exps.append(e)
        rows = []
        for m, wp, wq in exps:
            k = num(m, "mean")
            g = mp.exp(-k * k / 2)
            rows.append((k, num(wp, "weight") * g, num(wq, "weight") * g, (wp, wq)))
        rows.sort(key=lambda r: r[0])
        for r0, r1 in zip(rows, rows[1:], strict=False):
            if not r0[0] < r1[0]:
                raise NumericalError(f"{_OWNER}: two distinct means agree to the working "
                                     "precision; raise dps")
        self.ks = [r[0] for r in rows]
        self.A = [r[1] for r in rows]
        self.B = [r[2] for r in rows]
        self.W = [r[3] for r in rows]  # the exact (W^P_k, W^Q_k)

    def vanishing(self, t_exact: sp.Expr | None) -> set:
        """Indices k whose coefficient W^Q_k - t W^P_k is exactly 0 at the exact threshold
        ``t_exact`` (a shared component with equal weights at t = 1, say): those terms are
        absent from h_t, and no rounded value could decide their sign."""
        if t_exact is None:
            return set()
        return {i for i, (wp, wq) in enumerate(self.W) if (wq - t_exact * wp).is_zero is True}


def _model(f: GaussianMixturePair, prec: int) -> _Model:
    with mp.workprec(prec):
        return _Model(f)


# -- root isolation of h_t -------------------------------------------------------------------------
class _Undecided(Exception):
    """The sign structure of h_t cannot be decided at this precision (t at a switching value)."""


class _H:
    """An exponential polynomial sum_j c_j e^{k_j x} (k_j ascending) with coefficient radii r_j
    (the rounding of c_j and of t). The values e^{k x} of all exponents ``kall`` are shared
    through ``cache`` by every polynomial of one isolation (the derived ones use the subset
    ``idx`` of the same exponents)."""

    __slots__ = ("ks", "cs", "rs", "rel", "kall", "cache", "idx", "hints", "found", "kmax")

    def __init__(self, ks, cs, rs, rel, kall, cache, idx, hints=None):
        self.ks, self.cs, self.rs, self.rel = ks, cs, rs, rel
        self.kall, self.cache, self.idx = kall, cache, idx
        self.kmax = max(abs(k) for k in ks)
        # roots of the polynomial with as many terms at the previous threshold (Newton starts)
        self.hints = hints if hints is not None else {}
        self.found: list = []

    def exps(self, x):
        e = self.cache.get(x)
        if e is None:
            e = self.cache[x] = [mp.exp(k * x) for k in self.kall]
        return [e[i] for i in self.idx]

    def derived(self) -> _H:
        """The polynomial with the roots and signs of (e^{-k_0 x} h)' (Rolle): terms j >= 1 with
        coefficients c_j (k_j - k_0); the radii cover those of c_j and the rounding of the
        exponents and of the products."""
        k0 = self.ks[0]
        cs, rs = [], []
        for k, c, r in zip(self.ks[1:], self.cs[1:], self.rs[1:], strict=True):
            g = k - k0
            cs.append(c * g)
            rs.append(r * g + abs(c) * (abs(k) + abs(k0) + abs(g)) * self.rel)
        return _H(self.ks[1:], cs, rs, self.rel, self.kall, self.cache, self.idx[1:],
                  self.hints)

    def at(self, x):
        """(h(x), error bound, Newton step, |h'(x)|): the step is that of log P - log N, P and N
        the sums of the positive and the negative terms (nearly linear in x far from the root,
        where the step on h itself would crawl)."""
        p = n = dp = dn = rad = mp.zero
        for k, c, r, e in zip(self.ks, self.cs, self.rs, self.exps(x), strict=True):
            v = c * e
            if v >= 0:
                p += v
                dp += k * v
            else:
                n -= v
                dn -= k * v
            rad += r * e
        # rounding of the terms (their exponents k x carry |k x| ulps) and the coefficient radii
        err = (p + n) * (2 + self.kmax * abs(x)) * self.rel + rad
        step = None
        if p > 0 and n > 0:
            dphi = dp / p - dn / n
            if dphi != 0:
                step = -mp.log(p / n) / dphi
        return p - n, 2 * err, step, abs(dp - dn)

    def sign(self, x) -> int:
        """The certified sign of h(x), 0 if undecided; at -oo/+oo that of the extreme term."""
        if x == mp.ninf or x == mp.inf:
            c, r = (self.cs[0], self.rs[0]) if x == mp.ninf else (self.cs[-1], self.rs[-1])
            return 1 if c > r else (-1 if c < -r else 0)
        h, err = self.at(x)[:2]
        return 1 if h > err else (-1 if h < -err else 0)

    def cell_sign(self, x1, x2) -> int:
        """The certified sign of h on [x1, x2] (finite), 0 if undecided: the naive enclosure of
        the terms and the mean-value form h(m) + h'([x1, x2]) (x - m), intersected."""
        e1, e2 = self.exps(x1), self.exps(x2)
        hlo = hhi = dmax = slack = mp.zero
        ax = max(abs(x1), abs(x2))
        for k, c, r, a1, a2 in zip(self.ks, self.cs, self.rs, e1, e2, strict=True):
            emin, emax = (a1, a2) if k >= 0 else (a2, a1)
            if c >= 0:
                hlo += c * emin - r * emax
                hhi += c * emax + r * emax
            else:
                hlo += c * emax - r * emax
                hhi += c * emin + r * emax
            dmax += (abs(c) + r) * abs(k) * emax
            slack += (abs(c) + r) * emax * (2 + abs(k) * ax)
        slack *= 2 * self.rel
        m = (x1 + x2) / 2
        hm, err = self.at(m)[:2]
        spread = (dmax + slack) * (x2 - x1) / 2
        lo = max(hlo - slack, hm - err - spread)
        hi = min(hhi + slack, hm + err + spread)
        return 1 if lo > 0 else (-1 if hi < 0 else 0)

    def tails(self):
        """(X_lo, X_hi): below X_lo (above X_hi) the bottom (top) term is more than twice the
        sum of the others in absolute value, so h has its sign and no root there."""
        ks, cs, rs = self.ks, self.cs, self.rs
        n = len(ks)
        top, bot = abs(cs[-1]) - rs[-1], abs(cs[0]) - rs[0]
        x_hi = max(mp.log(2 * n * (abs(cs[j]) + rs[j]) / top) / (ks[-1] - ks[j])
                   for j in range(n - 1))
        x_lo = min(-mp.log(2 * n * (abs(cs[j]) + rs[j]) / bot) / (ks[j] - ks[0])
                   for j in range(1, n))
        # keep the ends away from round numbers (a root exactly at an end costs steps)
        return x_lo - 1 - abs(x_lo) / 64, x_hi + 1 + abs(x_hi) / 61


def _refine(h: _H, lo, hi, s_lo: int):
    """A certified bracket [lo, hi] of the single root of h between lo (sign s_lo) and hi
    (sign -s_lo): safeguarded Newton steps (:func:`numeric.roots.findroot`, on the step of
    :meth:`_H.at`, from a root of the previous threshold where one lies in the bracket); only
    points whose sign is certified move an end. Where the rounding of h leaves a point
    undecided, the root is bracketed by certified points on both sides of it at the distance
    that rounding allows (:func:`numeric.roots.expand_bracket`, the distance growing 4-fold)."""
    x0 = next((y for y in h.hints.get(len(h.ks), ()) if lo < y < hi), None)
    tol = mp.ldexp(1, -mp.prec + 12)
    last: list = []

    def probe(x) -> Probe:  # Newton on log P - log N: its step is -e/d with d = 1
        hx, err, step, dh = h.at(x)
        last[:] = [x, err, step, dh]
        k = None if abs(hx) <= err else (1 if hx > 0 else -1)
        return Probe(k, None if step is None else -step, mp.one)

    r = findroot(probe, (lo, hi), method="newton", ends=(s_lo, -s_lo), rtol=tol, atol=tol,
                 start=x0, max_iter=4 * mp.prec + 100)
    if not r.undecided:
        return r.lo, r.hi
    # an undecided point x (plus its Newton step where it stays inside): certify points on
    # both sides of it
    lo, hi = r.lo, r.hi
    x, err, step, dh = last
    if step is not None and lo < x + step < hi:
        x += step
    d0 = max(tol * (1 + abs(x)), 4 * err / dh if dh > 0 else mp.zero)
    if hi - lo <= 4 * d0:
        return lo, hi
    d = [d0]

    def trial(L, H, prev, i):  # x - d 4^i down to a certified point, then x + d 4^j up
        if L is None:
            d[0] = d0 * 4**i
            return max(x - d[0], lo)
        if prev >= x:
            d[0] *= 4
        return min(x + d[0], hi)

    def side(y) -> Probe:  # the ends lo, hi keep their certified signs
        return Probe(s_lo if y <= lo else -s_lo if y >= hi else h.sign(y) or None)

    L, H, *_ = expand_bracket(side, trial, sa=s_lo, max_iter=4 * mp.prec)
    return L, H


def _inward(h: _H, a, b, from_left: bool):
    """A point x in (a, b) near the end a (from_left) or b with certified sign, and that sign,
    or (None, 0): steps growing geometrically from the end."""
    width = b - a
    step = mp.ldexp(1, -mp.prec + 16) * (1 + abs(a if from_left else b))
    while step < width / 2:
        x = a + step if from_left else b - step
        s = h.sign(x)
        if s:
            return x, s
        step *= 4
    return None, 0


def _gap(h: _H, a, b, sa: int, sb: int) -> list[tuple]:
    """Pieces of [a, b] (a, b possibly infinite) on which h has at most one root (h is monotone
    there up to a positive factor), given the certified signs sa, sb at the ends (0: undecided)."""
    if sa and sa == sb:
        return [(a, b, sa)]
    out: list[tuple] = []
    if a == mp.ninf or b == mp.inf:
        x_lo, x_hi = h.tails()
        if a == mp.ninf:
            if b <= x_lo:
                return [(a, b, sa)]
            out.append((a, x_lo, sa))
            a = x_lo
        if b == mp.inf:
            if a >= x_hi:  # both tails dominate somewhere: only possible if sa == sb
                raise _Undecided
            tail = [(x_hi, b, sb)]
            b = x_hi
        else:
            tail = []
    else:
        tail = []
    if not sa:
        x, s = _inward(h, a, b, True)
        if x is None:
            return out + [(a, b, 0)] + tail
        out.append((a, x, 0))
        a, sa = x, s
    if not sb:
        x, s = _inward(h, a, b, False)
        if x is None:
            return out + [(a, b, 0)] + tail
        tail.insert(0, (x, b, 0))
        b, sb = x, s
    if sa == sb:
        return out + [(a, b, sa)] + tail
    lo, hi = _refine(h, a, b, sa)
    h.found.append((lo + hi) / 2)
    return out + [(a, lo, sa), (lo, hi, 0), (hi, b, sb)] + tail


def _isolate(h: _H) -> list[tuple]:
    """The sign structure of h on R: consecutive pieces (x1, x2, s) covering (-oo, oo), s = +1 or
    -1 (certified sign on the piece) or 0 (undecided: a root enclosure or a near-double root).

    Rolle: between consecutive roots of (e^{-k_0 x} h)' (:meth:`_H.derived`, isolated
    recursively, one term fewer) e^{-k_0 x} h is strictly monotone, so h has at most one root on
    each gap. Raises :class:`_Undecided` when an extreme coefficient has no certified sign."""
    budget.check()
    s_lo, s_hi = h.sign(mp.ninf), h.sign(mp.inf)
    if not s_lo or not s_hi:
        raise _Undecided
    signs = [1 if c > r else (-1 if c < -r else 0) for c, r in zip(h.cs, h.rs, strict=True)]
    if all(s == s_lo for s in signs):  # no sign change: no root (Laguerre)
        return [(mp.ninf, mp.inf, s_lo)]
    if len(h.ks) == 2:  # c0 e^{k0 x} + c1 e^{k1 x}: the root log(-c0/c1)/(k1 - k0)
        (c0, c1), (r0, r1), gap = h.cs, h.rs, h.ks[1] - h.ks[0]
        lo = mp.log((abs(c0) - r0) / (abs(c1) + r1)) / gap
        hi = mp.log((abs(c0) + r0) / (abs(c1) - r1)) / gap
        # the rounding of the logarithms and of the exponents (relative to their gap)
        pad = h.rel * (4 + (abs(lo) + abs(hi)) * (1 + (abs(h.ks[0]) + abs(h.ks[1])) / gap))
        lo, hi = lo - pad, hi + pad
        return [(mp.ninf, lo, s_lo), (lo, hi, 0), (hi, mp.inf, s_hi)]
    out: list[tuple] = []
    a, sa = mp.ninf, s_lo
    for x1, x2, s in _isolate(h.derived()):
        if s:
            continue
        # an undecided piece of the derivative: h may turn there
        sx1, sx2 = h.sign(x1), h.sign(x2)
        out += _gap(h, a, x1, sa, sx1)
        cs = h.cell_sign(x1, x2)
        out.append((x1, x2, cs))
        a, sa = x2, sx2
    out += _gap(h, a, mp.inf, sa, s_hi)
    h.hints[len(h.ks)] = h.found
    return out


def _pieces(model: _Model, t, rel, hints: dict | None = None, drop: set = frozenset()
            ) -> list[tuple]:
    """The sign structure of h_t (see :func:`_isolate`) without the terms ``drop`` (exactly 0);
    ``hints`` holds the roots found at a previous threshold (read as Newton starts, then
    replaced by this threshold's roots)."""
    keep = [i for i in range(len(model.ks)) if i not in drop]
    ks = [model.ks[i] for i in keep]
    cs = [model.B[i] - t * model.A[i] for i in keep]
    # e^{-k^2/2} carries the rounding of k^2/2 (|k|^2 ulps); t that of e^lam (in rel)
    rs = [(model.B[i] + t * model.A[i]) * rel * (2 + k * k) for i, k in zip(keep, ks, strict=True)]
    h = _H(ks, cs, rs, rel, ks, {}, list(range(len(ks))), hints)
    return _isolate(h)


def _union(pieces: list, keep: set) -> list[tuple]:
    """The pieces whose status is in ``keep``, adjacent ones merged, as intervals (u, v)."""
    out: list[list] = []
    for x1, x2, s in pieces:
        if s not in keep or not x1 < x2:
            continue
        if out and out[-1][1] == x1:
            out[-1][1] = x2
        else:
            out.append([x1, x2])
    return [(u, v) for u, v in out]


# -- normal masses ---------------------------------------------------------------------------------
def _std_mass(u, v):
    """The N(0, 1) mass of (u, v) (u < v, possibly infinite) to full relative accuracy."""
    if u == mp.ninf:
        return ncdf(v) if v != mp.inf else mp.one
    if v == mp.inf:
        return ncdf(-u)
    if u < 0 < v:
        s = mp.sqrt(2)
        return (mp.erf(v / s) + mp.erf(-u / s)) / 2
    # both ends in one tail: a difference of tail probabilities
    if u >= 0:
        x, y = -v, -u  # mass = Phi(y) - Phi(x), both in the lower tail
    else:
        x, y = u, v
    prec, extra = mp.prec, 0
    for _ in range(8):
        with mp.workprec(prec + extra):
            big = ncdf(y)
            val = big - ncdf(x)
            lost = mp.mag(big) - mp.mag(val) if val > 0 else mp.prec
        if val > 0 and lost <= extra + 4:
            return +val
        extra = 2 * extra + lost + 16
    raise NumericalError(f"{_OWNER}: a normal mass cancels beyond every working precision "
                         "tried; report the input")


def _mass(intervals: list, comps: list):
    """sum_i w_i N(m_i, 1)(union of the intervals), a sum of positive terms."""
    total = mp.zero
    for w, m in comps:
        for u, v in intervals:
            total += w * _std_mass(u - m, v - m)
    return total


# -- points of the curve ---------------------------------------------------------------------------
class _Point:
    """The Neyman--Pearson test at threshold t = e^lam (lam in [-oo, oo]): enclosures (lo, hi)
    of ``A`` = alpha, ``Ac`` = 1 - alpha, ``B`` = beta, ``Bc`` = 1 - beta and ``slope`` = t,
    computed on first use."""

    def __init__(self, model: _Model, lam, prec: int, hints: dict | None = None,
                 t_exact: sp.Expr | None = None):
        self.model, self.lam, self.prec, self.hints = model, lam, prec, hints
        # the exact threshold where known (t = 1 at lam = 0): exactly vanishing terms drop
        self.drop = model.vanishing(sp.S.One if lam == 0 else t_exact)
        self._regions = None
        self._cache: dict = {}

    def regions(self):
        """(R_lo, U, R_hi^c) as lists of intervals, or None if undecided."""
        if self._regions is None:
            lam = self.lam
            if lam == mp.ninf:
                self._regions = ([(mp.ninf, mp.inf)], [], [])
            elif lam == mp.inf:
                self._regions = ([], [], [(mp.ninf, mp.inf)])
            else:
                with mp.workprec(self.prec):
                    t = mp.exp(lam)
                    rel = mp.ldexp(1, -self.prec + 8) * (2 + abs(lam))
                    try:
                        ps = _pieces(self.model, t, rel, self.hints, self.drop)
                        self._regions = (_union(ps, {1}), _union(ps, {0}), _union(ps, {-1}))
                    except _Undecided:
                        self._regions = False
        return self._regions or None

    def get(self, name: str):
        if name in self._cache:
            return self._cache[name]
        out = self._compute(name)
        self._cache[name] = out
        return out

    def _compute(self, name: str):
        if name == "slope":
            if self.lam == mp.ninf:
                return mp.zero, mp.zero
            if self.lam == mp.inf:
                return mp.inf, mp.inf
            with mp.workprec(self.prec):
                t = mp.exp(self.lam)
            tol = mp.ldexp(1, -self.prec + 4)
            return t * (1 - tol), t * (1 + tol)
        reg = self.regions()
        if reg is None:
            return mp.zero, mp.one
        lo_set, unc, neg = reg
        comps = self.model.P if name in ("A", "Ac") else self.model.Q
        with mp.workprec(self.prec):
            if name in ("A", "Bc"):  # mass of R: [m(R_lo), m(R_lo) + m(U)]
                lo = _mass(lo_set, comps)
            else:  # mass of R^c: [m(R_hi^c), m(R_hi^c) + m(U)]
                lo = _mass(neg, comps)
            hi = lo + _mass(unc, comps)
            tol = mp.ldexp(1, -self.prec + 12)
            return max(lo * (1 - tol), mp.zero), min(hi * (1 + tol), mp.one)


def _working_prec(f: GaussianMixturePair) -> int:
    """Working bits for the points: the caller's precision, guard bits, and twice the bits of
    the largest mean (the roots and the tail arguments grow with it)."""
    with mp.workprec(32):
        big = max([abs(num(m)) for m in (*f.means_p, *f.means_q)] + [mp.one])
    return mp.prec + 40 + 2 * max(int(mp.mag(big)), 0)


def _lam(level):
    u, uc = level
    if u == 0:
        return mp.ninf
    if uc == 0:
        return mp.inf
    return mp.log(u) - mp.log(uc)


def _curve_value(f: GaussianMixturePair, a, ac, power: bool) -> tuple:
    """Enclosure of f(alpha) (or 1 - f(alpha)) for 0 < alpha < 1 (see the module docstring)."""
    prec = _working_prec(f)
    model = _model(f, prec)
    lower = a <= ac
    points: dict = {}
    hints: dict = {}

    def point(level) -> _Point:
        p = points.get(level)
        if p is None:
            p = points[level] = _Point(model, _lam(level), prec, hints)
        return p

    def probe(level):
        k, e, _ = level_probe(point(level), a, ac, lower)
        return k or 0, e

    def best(Lv, Hv):
        L, H = point(Lv), point(Hv)
        if power:
            return H.get("Bc")[0], L.get("Bc")[1]
        return L.get("B")[0], H.get("B")[1]

    Lv, Hv = bracket_level(probe, best=best, rel_bits=mp.prec // 2 + 24)
    return curve_enclosure(point(Lv), point(Hv), a, ac, power=power)


def _value(f: GaussianMixturePair, a, ac, power: bool) -> tuple:
    if a == 0 or ac == 0:
        v = (mp.zero if a == 0 else mp.one) if power else (mp.one if a == 0 else mp.zero)
        return v, v
    d = _degenerate(f)
    if d is not None:
        return mp_roc(d, a, ac) if power else mp_value(d, a, ac)
    return _curve_value(f, a, ac, power)


register_value_and_power(GaussianMixturePair, _value)


@exact_value.register(GaussianMixturePair)
def _(f, A, Ac):
    """Id (P = Q): f(alpha) = 1 - alpha exactly."""
    return Ac if _degenerate(f) is Id else None


# -- hockey-stick divergence and conjugate -------------------------------------------------------
def _hockey(f: GaussianMixturePair, t_of, t_exact: sp.Expr | None = None) -> tuple:
    """Enclosure of int (q - t p)_+ = Q(R) - t P(R) at t = t_of() (an mpf > 0, recomputed at
    each precision): [D(R_lo), D(R_lo) + Q(R_hi - R_lo)] with D(S) = Q(S) - t P(S), which is
    at most the integral for every S inside R (the integrand is positive on R)."""
    prec0 = mp.prec
    prec = _working_prec(f)
    model = _model(f, prec)
    with mp.workprec(prec):
        t = t_of()
        if not mp.isfinite(t) or t <= 0:
            raise NumericalError(f"{_OWNER}: the threshold {t} is out of range")
        p = _Point(model, mp.log(t), prec, t_exact=t_exact)
        reg = p.regions()
    if reg is None:
        raise NumericalError(f"{_OWNER}: the rejection region at t = {mp.nstr(t, 8)} cannot "
                             "be decided at this precision; raise dps")
    lo_set, unc, _ = reg
    extra = 0
    for _ in range(8):
        with mp.workprec(prec + extra):
            t = t_of()
            q, pp = _mass(lo_set, model.Q), _mass(lo_set, model.P)
            d = q - t * pp
            err = (q + t * pp) * mp.ldexp(1, -mp.prec + 12)
            u = _mass(unc, model.Q) * (1 + mp.ldexp(1, -mp.prec + 12))
        if d <= 0 or err <= d * mp.ldexp(1, -prec0 - 4):
            break
        extra = 2 * extra + max(int(mp.mag(q + t * pp)) - int(mp.mag(d)), 0) + 24
    lo = max(d - err, mp.zero)
    hi = max(d, mp.zero) + err + u
    return lo, min(hi, mp.one)


@mp_delta.register(GaussianMixturePair)
def _(f, eps):
    """delta(eps) = int (q - e^eps p)_+ (= 1 + f^*(-e^eps), Dong, Roth & Su, Prop. 6)."""
    d = _degenerate(f)
    if d is not None:
        return mp_delta(d, eps)
    if eps == mp.inf:
        return mp.zero, mp.zero
    if eps == mp.ninf:
        return mp.one, mp.one
    e = mp.mpf(eps)
    # e^eps is transcendental for an exact eps != 0 (Lindemann): with algebraic weights no
    # term vanishes exactly
    return _hockey(f, lambda: mp.exp(e), sp.S.One if e == 0 else None)


@mp_conjugate.register(GaussianMixturePair)
def _(f, y):
    """f^*(y) = y for y >= 0; f^*(-t) = -1 + int (q - t p)_+ for t > 0."""
    d = _degenerate(f)
    if d is not None:
        return mp_conjugate(d, y)
    if y >= 0:
        return y, y
    t = -mp.mpf(y)
    lo, hi = _hockey(f, lambda: +t, mpf_rational(t))
    return lo - 1, hi - 1
