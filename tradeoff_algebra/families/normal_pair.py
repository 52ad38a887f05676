"""The trade-off between two normal distributions, T(N(m0, s0^2), N(m1, s1^2)).

With P = N(m0, s0^2) and Q = N(m1, s1^2) (s0, s1 > 0) the trade-off function is
``T(P, Q)(alpha) = inf {1 - E_Q[phi] : E_P[phi] <= alpha}`` (Dong, Roth & Su, Def. 2). By the
Neyman--Pearson lemma the optimal tests reject where the log-likelihood ratio
``log q(x)/p(x)`` is large. In the coordinate ``z = (x - m0)/s0`` of P the pair is
``N(0, 1)`` against ``N(d, r^2)`` with ``d = (m1 - m0)/s0`` and ``r = s1/s0``, and reflecting
``z -> -z`` shows that only ``|d|`` matters; take ``d >= 0``. The log-likelihood ratio

    -log r - (z - d)^2 / (2 r^2) + z^2 / 2

is a quadratic with leading coefficient ``(1 - 1/r^2)/2`` and vertex ``c = d/(1 - r^2)``:

* ``r = 1`` (s0 = s1): it is linear and the trade-off is ``G_{|m1 - m0|/s0}`` (Dong, Roth &
  Su, Eq. (5));
* ``r > 1``: the rejection regions are two tails ``|z - c| > w`` (w >= 0);
* ``r < 1``: the rejection regions are intervals ``|z - c| < w``.

Both cases are symmetric about the vertex, so with ``c`` replaced by ``|c|`` the level and the
type II error are functions of the half-width ``w`` alone. Under Q the same region is
symmetric about ``c r`` with half-width ``w / r`` (as ``(c - d)/r = c r``), so

    r > 1:  alpha = tails(c, w),   f(alpha) = inner(c r, w / r),
    r < 1:  alpha = inner(c, w),   f(alpha) = tails(c r, w / r),

with ``tails(c, w) = Phi(c - w) + Phi(-c - w)`` and ``inner = 1 - tails`` (the mass of
``(c - w, c + w)``). The numeric value solves ``tails(c, w) = u`` for ``w`` (``u = alpha``
for r > 1, ``1 - alpha`` for r < 1, both held exactly) by safeguarded Newton steps on the
logarithm of the smaller of ``tails`` and ``inner``, in ``w`` and in ``log w``, inside a
bracket, then evaluates the Q side. End points ``c +- w`` are formed exactly, differences of
close tail probabilities are recomputed with the bits they cancel, and the working precision
grows by twice the bits of ``c`` (large when s1/s0 is near 1), so both tails keep their digits;
the result is a point value, confirmed by the Ziv loop of ``numeric.protocol``.

``binormal_roc`` is the binormal ROC curve of Kaissis et al., Sec. 3, the power of the
one-sided threshold test; :func:`threshold_gap` compares it with the optimum above.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import mpmath
import numpy as np
import sympy as sp
from mpmath.libmp import round_nearest

from ..core.citations import DRS, KAISSIS
from ..core.errors import NumericalError
from ..core.levels import as_level
from ..core.node import TradeOff
from ..core.normal import Phi, PhiInv
from ..core.rules import rule
from ..core.validate import param
from ..numeric import budget
from ..numeric.capability import functional_form, renyi_form
from ..numeric.context import mp, public_mpf
from ..numeric.normal import ncdf, ncdf_inv, ncdf_inv_upper
from ..numeric.protocol import arb_value, evaluate, mp_roc, mp_value, np_value, num
from .gaussian import Gaussian

__all__ = ["NormalPair", "binormal_roc", "threshold_gap", "ThresholdGap",
           "normal_pair_equal_variance", "EQUAL_VARIANCE_CITE", "BINORMAL_CITE"]

#: The source of the equal-variance identity T(N(m0, s^2), N(m1, s^2)) = G_{|m1 - m0|/s}.
EQUAL_VARIANCE_CITE = DRS.eq(5, note="T(N(m0, s^2), N(m1, s^2)) = G_{|m1 - m0|/s}")


class NormalPair(TradeOff):
    """T(N(m0, s0^2), N(m1, s1^2)): the trade-off between two normal distributions.

    ``m0, m1`` are real means and ``s0, s1 > 0`` standard deviations (Dong, Roth & Su, Def. 2).
    With equal standard deviations it equals ``G_{|m1 - m0|/s0}`` (Eq. (5)); otherwise the
    optimal tests reject on two tails (``s1 > s0``) or on an interval (``s1 < s0``) of x.
    """

    #: The termination measure's weight (rewrite.measure): 3, so that the rule to a simpler
    #: family (NormalPair(m0, s, m1, s) -> G_mu) shrinks the tree.
    leaf_weight = 3

    def __new__(cls, m0: Any, s0: Any, m1: Any, s1: Any):
        m0 = param("m0", m0, owner="NormalPair")
        s0 = param("s0", s0, lower=0, lower_open=True, owner="NormalPair")
        m1 = param("m1", m1, owner="NormalPair")
        s1 = param("s1", s1, lower=0, lower_open=True, owner="NormalPair")
        return TradeOff.__new__(cls, m0, s0, m1, s1)

    @property
    def m0(self) -> sp.Expr:
        return self.args[0]

    @property
    def s0(self) -> sp.Expr:
        return self.args[1]

    @property
    def m1(self) -> sp.Expr:
        return self.args[2]

    @property
    def s1(self) -> sp.Expr:
        return self.args[3]

    def equal_variances(self) -> bool | None:
        """Three-valued ``s0 == s1``."""
        return sp.sympify(self.s0 - self.s1).is_zero

    @property
    def is_symmetric(self) -> bool | None:
        """True when ``s0 == s1`` is decided (then f = G_mu); otherwise not claimed."""
        return True if self.equal_variances() is True else None

    def _eval_at(self, alpha):
        g = normal_pair_equal_variance(self)
        return None if g is None else Phi(PhiInv(1 - alpha) - g.mu)

    def _eval_fixed_point(self):
        g = normal_pair_equal_variance(self)
        return None if g is None else Phi(-g.mu / 2)

    def _eval_inverse(self):
        """T(P, Q)^{-1} = T(Q, P) (Dong, Roth & Su, Eq. (3))."""
        if self.is_symmetric:
            return self
        return NormalPair(self.m1, self.s1, self.m0, self.s0)

    def _sympystr(self, printer):
        return "NormalPair(%s)" % ", ".join(printer._print(a) for a in self.args)

    def _latex(self, printer):
        def sq(s):
            t = printer._print(s)
            return ("%s^{2}" if s.is_Integer or s.is_Symbol else r"\left(%s\right)^{2}") % t

        m0, s0, m1, s1 = self.args
        return r"T\left(\mathcal{N}(%s, %s), \mathcal{N}(%s, %s)\right)" % (
            printer._print(m0), sq(s0), printer._print(m1), sq(s1))


@rule(NormalPair, cite=EQUAL_VARIANCE_CITE, priority=100)
def normal_pair_equal_variance(f: NormalPair) -> Gaussian | None:
    """``G_{|m1 - m0|/s0}`` when ``s0 == s1`` is decided, else None.

    T(N(m0, s^2), N(m1, s^2)) = T(N(0, 1), N(|m1 - m0|/s, 1)) (an affine map and a
    reflection are bijections, which leave T unchanged) = G_{|m1 - m0|/s} (Dong, Roth & Su,
    Eq. (5); :data:`EQUAL_VARIANCE_CITE`).
    """
    if not isinstance(f, NormalPair) or f.equal_variances() is not True:
        return None
    return Gaussian(sp.Abs(f.m1 - f.m0) / f.s0)


# -- certified values (mpmath) -------------------------------------------------------------------
def _phi(x):
    """The standard normal density."""
    return mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)


def _tails(c, w):
    """P(|Z - c| > w) = Phi(c - w) + Phi(-c - w), Z ~ N(0, 1); a sum of positive terms."""
    if w == mp.inf:
        return mp.zero
    return ncdf(mp.fsub(c, w, exact=True)) + ncdf(-mp.fadd(c, w, exact=True))


def _inner(c, w):
    """P(|Z - c| < w), c >= 0, w >= 0, to full relative accuracy.

    The end points are exact; an interval that contains 0 is a sum of two erf terms; one right
    of 0 is a difference of upper tails, recomputed with the bits it cancels.
    """
    if w == 0:
        return mp.zero
    if w == mp.inf:
        return mp.one
    lo, hi = mp.fsub(c, w, exact=True), mp.fadd(c, w, exact=True)
    if lo < 0:
        s = mp.sqrt(2)
        return (mp.erf(hi / s) + mp.erf(-lo / s)) / 2
    prec = mp.prec
    extra = 0
    for _ in range(6):
        with mp.workprec(prec + extra):
            big = ncdf(-lo)
            v = big - ncdf(-hi)
            lost = mp.mag(big) - mp.mag(v) if v > 0 else mp.prec
        if lost <= extra + 4 and v > 0:
            return +v
        extra = 2 * extra + lost + 16
    raise NumericalError("NormalPair: the interval probability cancels beyond reach")


def _quantile(p, pc):
    """Phi^{-1}(p) from (p, 1 - p), accurate in both tails."""
    return ncdf_inv(p) if p <= pc else ncdf_inv_upper(pc)


def _inside(x, lo, hi) -> bool:
    """x in the open bracket (lo, hi); hi None is +oo."""
    return x > lo and (hi is None or x < hi)


def _width(c, u, uc):
    """The half-width w > 0 with tails(c, w) = u (and inner(c, w) = uc), 0 < u, uc < 1, c >= 0.

    F(w) = log(u / tails) or log(inner / uc), whichever probability is the smaller, is
    increasing with F' = (phi(c - w) + phi(c + w)) / (tails or inner). Newton steps in w, or
    in log w where the step in w leaves the bracket, are kept inside the bracket of the signs
    seen so far; a bisection (geometric where the bracket spans a factor > 4) is taken when
    both fail or when three steps have not halved the step length.
    """
    lower = u <= uc
    log_target = mp.log(u if lower else uc)

    def F(w):
        d = _phi(mp.fsub(c, w, exact=True)) + _phi(mp.fadd(c, w, exact=True))
        if lower:
            t = _tails(c, w)
            return log_target - mp.log(t), d / t
        t = _inner(c, w)
        return mp.log(t) - log_target, d / t

    if lower:  # tails in [Phi(c - w), 2 Phi(c - w)]: w in [c - q(u), c - q(u/2)]
        w = c - (ncdf_inv(u) + ncdf_inv(u / 2)) / 2
    else:
        big = c + ncdf_inv(uc)          # inner ~ Q(w - c) + ... for c - w >> 0
        small = uc / (2 * _phi(c))      # inner ~ 2 w phi(c) for small w
        w = small if big <= 0 else min(small, big)
    if not w > 0:
        w = mp.one
    lo, hi = mp.zero, None
    tol = mp.ldexp(1, -mp.prec + 6)
    steps: list = []
    for _ in range(8 * mp.prec + 400):
        budget.check()
        fw, dfw = F(w)
        if fw == 0:
            return w
        if fw < 0:
            lo = w
        else:
            hi = w

        # safeguard: bisect when three steps have not halved the step length
        stalled = len(steps) >= 4 and steps[-1] > steps[-4] / 2
        cand = None
        if not stalled and mp.isfinite(fw) and dfw > 0:
            cand = w - fw / dfw
            if not _inside(cand, lo, hi):
                e = fw / (w * dfw)  # the Newton step in log w
                cand = w * mp.exp(-e) if abs(e) < 64 else None
                if cand is not None and not _inside(cand, lo, hi):
                    cand = None
        if cand is None:
            steps.clear()
            if hi is None:
                cand = 2 * w + 1
            elif lo == 0:
                cand = hi / 16
            elif hi > 4 * lo:
                cand = mp.sqrt(lo * hi)
            else:
                cand = (lo + hi) / 2
        step = abs(cand - w)
        if step <= tol * cand:
            return cand
        steps.append(step)
        w = cand
    raise NumericalError("NormalPair: the Neyman-Pearson threshold did not converge")


def _gauss(mu, a, ac, power: bool):
    """G_mu(alpha) or its power 1 - G_mu(alpha) (Dong, Roth & Su, Eq. (5))."""
    z = ncdf_inv_upper(a) if a <= ac else ncdf_inv(ac)  # Phi^{-1}(1 - alpha)
    return ncdf(mu - z) if power else ncdf(z - mu)


def _np_value(f: NormalPair, a, ac, power: bool):
    """f(alpha) (or 1 - f(alpha)) at the current precision from (alpha, 1 - alpha)."""
    if a == 0 or ac == 0:
        v = (mp.zero if a == 0 else mp.one) if power else (mp.one if a == 0 else mp.zero)
        return v
    dm, ds = sp.Abs(f.m1 - f.m0), (f.s0 - f.s1) * (f.s0 + f.s1)  # s0^2 - s1^2, exactly
    prec = mp.prec
    with mp.workprec(prec + 10):
        k = num(ds, "s0^2 - s1^2")
        if k == 0 or f.equal_variances() is True:
            v = _gauss(num(dm, "|m1 - m0|") / num(f.s0, "s0"), a, ac, power)
            return +v
        c = num(dm * f.s0, "|m1 - m0| s0") / abs(k)
        r = num(f.s1 / f.s0, "s1/s0")
        big = max(mp.mag(c) if c else 0, mp.mag(c * r) if c else 0, 0)
        extra = 2 * big + 2 * abs(mp.mag(r)) + 24
    with mp.workprec(prec + extra):
        k = num(ds, "s0^2 - s1^2")
        c = num(dm * f.s0, "|m1 - m0| s0") / abs(k)  # |vertex| in the coordinate of P
        r = num(f.s1 / f.s0, "s1/s0")
        two_tails = k < 0  # s1 > s0: the tests reject on two tails
        u, uc = (a, ac) if two_tails else (ac, a)
        w = _width(c, u, uc)
        cq, wq = c * r, w / r
        if two_tails:
            v = _tails(cq, wq) if power else _inner(cq, wq)
        else:
            v = _inner(cq, wq) if power else _tails(cq, wq)
    return +v


@mp_value.register(NormalPair)
def _(f, a, ac):
    v = _np_value(f, a, ac, power=False)
    return v, v


@mp_roc.register(NormalPair)
def _(f, a, ac):
    v = _np_value(f, a, ac, power=True)
    return v, v


# -- certified values (Arb) -----------------------------------------------------------------------
def _arb_phi(x):
    from flint import arb

    return (-x / arb(2).sqrt()).erfc() / 2


def _arb_tails(c, w):
    """tails(c, w) = Phi(c - w) + Phi(-c - w) as a ball (a sum of positive terms)."""
    return _arb_phi(c - w) + _arb_phi(-c - w)


def _arb_inner(c, w):
    """inner(c, w) = Phi(c + w) - Phi(c - w) = Phi(w - c) - Phi(-w - c) as a ball (the
    difference of two lower tails: no value near 1 is subtracted for c >= w)."""
    return _arb_phi(w - c) - _arb_phi(-w - c)


def _mp_width_guess(c, u, uc):
    """The half-width by the mpmath route (:func:`_width`, Newton steps) at the balls'
    midpoints, an estimate for :func:`_arb_width` to prove; None where it fails."""
    from flint import ctx

    from ..numeric.arb import arb_endpoint

    try:
        with mp.workprec(ctx.prec + 16):
            cm = arb_endpoint(c.mid(), round_nearest)
            um, ucm = arb_endpoint(u.mid(), round_nearest), arb_endpoint(uc.mid(), round_nearest)
            if not (0 < um < 1 and 0 < ucm < 1):
                return None
            w = _width(cm, um, ucm)
            return +w if mp.isfinite(w) and w > 0 else None
    except (NumericalError, ValueError, ZeroDivisionError):
        return None


def _arb_width(c, u, uc):
    """A ball of the half-width w* with tails(c, w*) = u (inner(c, w*) = uc), c >= 0, by
    bisection on exact dyadic points: w < w* exactly when tails(c, w) > u (inner(c, w) < uc:
    the comparison is made on the smaller of u and uc); hi doubles until tails(c, hi) <= u is
    certain, lo = 0 needs no proof (w* >= 0). Geometric steps while lo = 0, so a tiny w*
    keeps its digits. First the mpmath route's root is proved a little either side of it (a
    few Arb evaluations instead of a bisection). None where a comparison is undecided before
    the bracket is found."""
    from flint import arb, ctx

    from ..numeric.arb import arb_exact

    on_tails = u.mid() <= uc.mid()

    def below(w):  # True: w < w*; False: w >= w*; None: undecided at this precision
        if on_tails:
            t = _arb_tails(c, w)
            return True if t > u else (False if t <= u else None)
        t = _arb_inner(c, w)
        return True if t < uc else (False if t >= uc else None)

    eps = arb(2) ** (24 - ctx.prec)

    def around(x):  # w* within rounding of the trial point x: [x(1 - eps), x(1 + eps)]
        x0, x1 = arb((x * (1 - eps)).mid()), arb((x * (1 + eps)).mid())
        return (x0, x1) if below(x0) is True and below(x1) is False else None

    guess = _mp_width_guess(c, u, uc)
    if guess is not None:  # the mpmath Newton root, proved in Arb a little either side of it
        for bits in (24, 40, 64):
            x0 = arb_exact(guess * (1 - mp.ldexp(1, bits - ctx.prec)))
            x1 = arb_exact(guess * (1 + mp.ldexp(1, bits - ctx.prec)))
            if below(x0) is True and below(x1) is False:
                return x0.union(x1)
    lo, hi = arb(0), arb(1)
    for _ in range(64):
        b = below(hi)
        if b is False:
            break
        if b is None:
            near = around(hi)
            return None if near is None else near[0].union(near[1])
        lo, hi = hi, 2 * hi
    else:
        return None
    for _ in range(4 * ctx.prec + 200):
        if lo > 0 and hi - lo <= hi * arb(2) ** (-ctx.prec + 2):
            break
        budget.check()
        mid = arb((hi * arb(2) ** -32).mid()) if lo == 0 else arb(((lo + hi) / 2).mid())
        b = below(mid)
        if b is None:
            near = around(mid)
            if near is not None:
                lo, hi = near
            break
        if b:
            lo = mid
        else:
            hi = mid
    return lo.union(hi)


def _arb_normal_pair(f: NormalPair, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball from balls a = alpha, ac = 1 - alpha:
    the half-width of the Neyman-Pearson region in P's coordinate by Arb bisection
    (:func:`_arb_width`), then the Q side on the ball of w (the same formulas as the mpmath
    route, module docstring). Equal variances: G_{|m1 - m0|/s0}'s ball. None where the sign of
    s1 - s0 or a comparison is not decided (the mpmath route answers, an estimate)."""
    from ..numeric.arb_expr import arb_ball
    from ..numeric.protocol import arb_value

    g = normal_pair_equal_variance(f)
    if g is not None:
        return arb_value(g, a, ac, power)
    if a == 0 or ac == 0:
        from flint import arb

        return arb(1) if (a == 0) != power else arb(0)
    k = arb_ball((f.s0 - f.s1) * (f.s0 + f.s1))  # s0^2 - s1^2
    if not (k < 0 or k > 0):
        return None
    two_tails = bool(k < 0)  # s1 > s0: the tests reject on two tails
    c = arb_ball(sp.Abs(f.m1 - f.m0) * f.s0) / abs(k)
    r = arb_ball(f.s1 / f.s0)
    u, uc = (a, ac) if two_tails else (ac, a)
    w = _arb_width(c, u, uc)
    if w is None:
        return None
    cq, wq = c * r, w / r
    if two_tails:
        return _arb_tails(cq, wq) if power else _arb_inner(cq, wq)
    return _arb_inner(cq, wq) if power else _arb_tails(cq, wq)


arb_value.register(NormalPair)(_arb_normal_pair)


# -- float64 curve ---------------------------------------------------------------------------------
@np_value.register(NormalPair)
def _(f, x):
    from scipy import special  # (imported at first use: it slows the package import)

    x = np.asarray(x, dtype=float)
    m0, s0, m1, s1 = (float(v) for v in f.args)
    k = (s0 - s1) * (s0 + s1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if k == 0 or f.equal_variances() is True:
            mu = abs(m1 - m0) / s0
            z = np.where(x <= 0.5, -special.ndtri(x), special.ndtri(1.0 - x))
            return special.ndtr(z - mu)
        # The unknown is the near end e = c - w of the region (an O(1) number even where the
        # vertex c is huge, s1/s0 near 1); the far end is 2c - e. In this frame (vertex at
        # c >= 0) the mean of Q is d = c (1 - r^2): -|m1 - m0|/s0 for r > 1, reflected; under
        # Q the end points are (e - d)/r and (2c - d - e)/r (as c r^2 = c - d).
        c, r = abs(m1 - m0) * s0 / abs(k), s1 / s0
        two_tails = k < 0
        d = -abs(m1 - m0) / s0 if two_tails else abs(m1 - m0) / s0
        inside = (x > 0) & (x < 1)
        xs = np.where(inside, x, 0.5)
        u, uc = (xs, 1.0 - xs) if two_tails else (1.0 - xs, xs)
        lower = u <= uc

        def tails(lo_, hi_):  # P(Z < lo_) + P(Z > hi_)
            return special.ndtr(lo_) + special.ndtr(-hi_)

        def inner(lo_, hi_):  # P(lo_ < Z < hi_), lo_ <= hi_
            return np.where(lo_ >= 0, special.ndtr(-lo_) - special.ndtr(-hi_),
                            (special.erf(hi_ / np.sqrt(2)) + special.erf(-lo_ / np.sqrt(2))) / 2)

        # tails in [Phi(e), 2 Phi(e)]: e in [Phi^{-1}(u/2), Phi^{-1}(u)], and e <= c
        ehi = np.minimum(np.where(lower, special.ndtri(u), -special.ndtri(uc)), c)
        elo = np.minimum(special.ndtri(u / 2), ehi)
        ehi = ehi + 1e-9 * (1 + np.abs(ehi))
        for _ in range(110):
            mid = (elo + ehi) / 2
            far = 2 * c - mid
            # g(e) < 0 while e lies left of the root (tails < u, i.e. inner > uc)
            g = np.where(lower, tails(mid, far) - u, uc - inner(mid, far))
            left = g < 0
            elo = np.where(left, mid, elo)
            ehi = np.where(left, ehi, mid)
        e = np.minimum((elo + ehi) / 2, c)
        loq, hiq = (e - d) / r, (2 * c - d - e) / r
        beta = inner(loq, hiq) if two_tails else tails(loq, hiq)
        return np.where(x <= 0, 1.0, np.where(x >= 1, 0.0, beta))


# -- the threshold test: binormal ROC (Kaissis et al., Sec. 3) -------------------------------------
def binormal_roc(a: Any, b: Any, t: Any, dps: int = 30) -> mpmath.mpf:
    """The binormal ROC curve ``Phi(a + b Phi^{-1}(t))`` (Kaissis et al., Sec. 3), b > 0.

    It is the power at false-positive rate t of the threshold test that rejects when
    ``x > Phi^{-1}(1 - t)``, for X ~ P = N(0, 1) against X ~ Q = N(a/b, 1/b^2): under Q,
    ``P(X > -Phi^{-1}(t)) = Phi((a/b + Phi^{-1}(t)) b)``. The pair N(m0, s0^2), N(m1, s1^2)
    with m1 >= m0 becomes this one under x -> (x - m0)/s0, with ``a = (m1 - m0)/s1`` and
    ``b = s0/s1``. Computed with ``dps`` digits; t in [0, 1] (strings such as "1e-300" are
    taken exactly).
    """
    a = param("a", a, owner="binormal_roc")
    b = param("b", b, lower=0, lower_open=True, owner="binormal_roc")
    T = as_level(t, "t")
    with mp.workdps(dps + 10):
        tt, tc = num(T), num(1 - T)
        if tt == 0 or tc == 0:
            return public_mpf(mp.zero if tt == 0 else mp.one)
        return public_mpf(ncdf(num(a, "a") + num(b, "b") * _quantile(tt, tc)))


class ThresholdGap(NamedTuple):
    """Type II errors at one level: the threshold test, the optimal test, and their gap."""

    threshold: mpmath.mpf
    optimal: mpmath.mpf
    gap: mpmath.mpf


def threshold_gap(m0: Any, s0: Any, m1: Any, s1: Any, alpha: Any,
                  dps: int = 30) -> ThresholdGap:
    """The type II error of the best one-sided threshold test at level alpha,
    ``1 - binormal_roc((|m1 - m0|)/s1, s0/s1, alpha)``, against the optimum
    ``NormalPair(m0, s0, m1, s1)(alpha)``, and their difference.

    The threshold test rejects when ``(x - m0) sign(m1 - m0)`` is large (the better of the
    two directions); its power is the binormal ROC of Kaissis et al., Sec. 3. For s0 == s1 it
    is the Neyman--Pearson test and the gap is 0; for s0 != s1 and 0 < alpha < 1 the optimal
    region is two tails or an interval, not a half-line, and by the Neyman--Pearson lemma the
    gap is strictly positive. ``optimal`` is the certified value at ``dps`` digits.
    """
    f = NormalPair(m0, s0, m1, s1)
    A = as_level(alpha)
    opt = evaluate(f, A, dps=dps).mid
    with mp.workdps(dps + 10):
        a = num(sp.Abs(f.m1 - f.m0) / f.s1, "a")
        b = num(f.s0 / f.s1, "b")
        al, ac = num(A), num(1 - A)
        if al == 0 or ac == 0:
            thr = mp.one if al == 0 else mp.zero
        else:
            thr = ncdf(-(a + b * _quantile(al, ac)))  # 1 - Phi(a + b Phi^{-1}(alpha))
        opt_m = mp.mpf(opt)
        return ThresholdGap(public_mpf(thr), public_mpf(opt_m), public_mpf(thr - opt_m))


#: Where the threshold test comes from.
BINORMAL_CITE = KAISSIS.sec(3, note="binormal ROC Phi(a + b Phi^{-1}(t))")


# -- divergences --------------------------------------------------------------------------------
@functional_form.register(NormalPair)
def _(f, name):
    """KL(N(m0, s0^2) || N(m1, s1^2)) = log(s1/s0) + (s0^2 + (m0 - m1)^2)/(2 s1^2) - 1/2."""
    if name != "kl":
        return None
    m0, s0, m1, s1 = f.args
    return sp.log(s1 / s0) + (s0**2 + (m0 - m1)**2) / (2 * s1**2) - sp.S.Half


@renyi_form.register(NormalPair)
def _(f, a):
    """Kaissis et al., Cor. 10 in one dimension (standard deviations s0, s1),
    ``log(s1/s0) + log(s1^2/s_a^2)/(2(a-1)) + a (m0 - m1)^2/(2 s_a^2)`` with
    ``s_a^2 = a s1^2 + (1 - a) s0^2``; +oo where ``s_a^2 <= 0`` (proofs/: the printed form lacks
    the dimension factor)."""
    if a is sp.oo:
        return None
    m0, s0, m1, s1 = f.args
    sa2 = a * s1**2 + (1 - a) * s0**2
    form = (sp.log(s1 / s0) + sp.log(s1**2 / sa2) / (2 * (a - 1))
            + a * (m0 - m1)**2 / (2 * sa2))
    pos = sp.Gt(sa2, 0)
    if pos is sp.true:
        return form
    if pos is sp.false:
        return sp.oo
    return sp.Piecewise((form, pos), (sp.oo, True))
