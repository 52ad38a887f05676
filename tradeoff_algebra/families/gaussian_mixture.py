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

The root isolation, the normal masses and the points of the curve are in
:mod:`.gaussian_mixture_regions`; this module holds the node, its validation, its exact
structure and registrations, and the value at a level.

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
from ..numeric.context import mp
from ..numeric.curve_enclosure import curve_enclosure, level_probe
from ..numeric.precision_loop import precision_loop
from ..numeric.protocol import (
    exact_value,
    mp_conjugate,
    mp_delta,
    mp_roc,
    mp_value,
    num,
    register_value_and_power,
)
from ..numeric.roots import bracket_level
from .gaussian import Gaussian
from .gaussian_mixture_regions import _equal, _mass, _Model, _Point
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


def _model(f: GaussianMixturePair, prec: int) -> _Model:
    with mp.workprec(prec):
        return _Model(*_canonical(f))


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

    def at(extra):  # D(R_lo), its error bound, Q(U), and the scale q + t p of the cancellation
        with mp.workprec(prec + extra):
            t = t_of()
            q, pp = _mass(lo_set, model.Q), _mass(lo_set, model.P)
            d = q - t * pp
            err = (q + t * pp) * mp.ldexp(1, -mp.prec + 12)
            u = _mass(unc, model.Q) * (1 + mp.ldexp(1, -mp.prec + 12))
            return d, err, u, q + t * pp

    # raised by the bits D(R_lo) cancels, eight times at most (then the enclosure as it is)
    d, err, u, _ = precision_loop(
        at, 0, done=lambda r, prev: r[0] <= 0 or r[1] <= r[0] * mp.ldexp(1, -prec0 - 4),
        grow=lambda r, extra: 2 * extra + max(int(mp.mag(r[3])) - int(mp.mag(r[0])), 0) + 24,
        max_steps=8, give_up=lambda r, prev, extra: r, check=False)
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
