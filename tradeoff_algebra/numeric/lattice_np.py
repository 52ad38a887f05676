"""The power 1 - f(alpha) of a lattice law read from its Neyman-Pearson vertices, certified.

Let a product's privacy loss live on a lattice: L = l(s), s an integer, l increasing (the exact
lattice product's (g s + B)/D, ``numeric.lattice_product``; the Arb and tilted lattice powers'
s log R, ``numeric.lattice_power``, ``numeric.lattice_tilted``), with Q-law pi(s) and P-law
p(s) = pi(s) e^{-l(s)} (a pair without singular parts; a Q-mass ``singular`` where P = 0 is
rejected first by every most powerful test). Write Q_s = Q(S >= s), P_s = P(S >= s) and

    H(s, alpha) = singular + Q_{s+1} + e^{l(s)} (alpha - P_{s+1}).

*Upper bound, any s.* For every test phi and real t, E_Q phi - e^t E_P phi <= singular +
E_Q (1 - e^{t - L})_+ = singular + Q(L > t) - e^t P(L > t) (phi <= 1 where Q > e^t P, >= 0
elsewhere). With t = l(s) and E_P phi <= alpha: power(alpha) <= H(s, alpha).

*Equality at the vertex.* For s* with P_{s*+1} <= alpha <= P_{s*}, the Neyman-Pearson test
(reject the singular part and S > s*, S = s* with probability (alpha - P_{s*+1})/p(s*)) has size
alpha and power H(s*, alpha) (Dong, Roth & Su, Prop. 6; Neyman-Pearson lemma): the trade-off
curve is piecewise linear with vertices (P_s, singular + Q_s).

So from balls of P_s and Q_s at a few s: the s with P_s >= alpha proved and P_{s+1} < alpha
proved bracket s*, power(alpha) lies in [min H(s).lower over the bracket, min H(s).upper over
every s evaluated]; where no bracket is proved, power(alpha) >= singular + Q_s for every s with
P_s <= alpha (the power is non-decreasing through the vertex) and power(alpha) >= alpha.

**Tails from a tilted window** (:class:`TiltedTails`). The lattice products' roots hold integers
R(s) with kappa R(s) <= pi(s) e^{c l(s)} (kappa = Lambda 2^-prec, c any real tilt), 0 outside the
window, and X >= M(c) - kappa sum_s R(s) >= 0 the dropped tilted mass (M(c) the full mgf's
upper end). For an exponent a (a = c for Q, a = c + 1 for P, since p(s) = pi(s) e^{-l(s)}):

* a >= 0: Q_s (P_s) >= kappa sum_{i >= s} R(i) e^{-a l(i)}, and what was dropped above s adds at
  most sum_{i >= s} e^{-a l(i)} (pi(i) e^{c l(i)} - kappa R(i)) <= e^{-a l(s)} X;
* a < 0: the same sums below s are bounded by e^{-a l(s - 1)} X (e^{-a l} is increasing), and
  Q_s = total - Q(S < s) (total = 1 - singular for Q, 1 for P where P << Q: the tilted
  products, whose factors may have P-mass where Q = 0, keep c >= -1 and the P-side direct).

The tilt is placed at the tilted mean of the loss nearest the thresholds asked (any real c: a
curve's levels lie between the P- and the Q-means, c in [-1, 0]); the window and the fixed point
are planned from a normal approximation (planning only: every bound above is proved in Arb).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from fractions import Fraction
from functools import singledispatch

import numpy as np
from flint import arb, arb_poly, fmpz_poly

from . import budget
from .cf_laws import lower, to_arb, upper, working_precision
from .profile_band import Band

__all__ = ["NPTails", "TiltedTails", "TableTails", "power_ball", "np_band", "tilt_for",
           "gap_estimate", "np_tails"]


@singledispatch
def np_tails(f, alphas: Sequence[float], rel: float) -> NPTails | None:
    """The tails of a node whose law is a lattice (families register: BinomialDP), planned for
    the levels ``alphas`` to the relative width ``rel``, or None."""
    return None


class NPTails:
    """The tails of a lattice law at its points s (module docstring): subclasses give
    ``lo``, ``hi`` (the window: s outside it carries no kept mass), ``singular`` (a ball),
    ``prec``, :meth:`loss`, :meth:`tails` and :meth:`p_float` (or :meth:`locate`)."""

    lo: int
    hi: int
    prec: int
    singular: arb

    def loss(self, s: int) -> arb:
        raise NotImplementedError

    def ratio(self, s: int) -> arb:
        """e^{l(s)}, the likelihood ratio at s."""
        return self.loss(s).exp()

    def tails(self, s: int) -> tuple[arb, arb]:
        """Balls of (Q_s, P_s) = (Q(S >= s), P(S >= s)) over the finite losses."""
        raise NotImplementedError

    def p_float(self) -> np.ndarray:
        """Float estimates of P_s for s = lo .. hi + 1 (non-increasing; locating only)."""
        raise NotImplementedError

    def locate(self, alpha_f: float, alpha: arb | None = None) -> int:
        """A float estimate of the vertex s* of the level (the largest s with P_s >= alpha;
        locating only): from :meth:`p_float` (a subclass without a window gives its own, which
        may read the exact ball ``alpha``: 1 - 1e-20 is the float 1)."""
        pf = self.p_float()
        j = int(np.searchsorted(-pf, -alpha_f, side="right")) - 1
        return self.lo + max(j, 0)


class TableTails(NPTails):
    """Tails from whole suffix sums (``numeric.lattice_power.LatticePower``'s table): ``a[i]``
    and ``b[i]`` balls of Q(d >= d0 + i) and P(d >= d0 + i), i = 0 .. size (the last 0), the
    loss d ell."""

    def __init__(self, a: list, b: list, d0: int, ell: arb, prec: int) -> None:
        self.a, self.b, self.d0, self.ell, self.prec = a, b, d0, ell, prec
        self.lo, self.hi = d0, d0 + len(a) - 2
        self.singular = arb(0)
        self._pf = None

    def loss(self, s: int) -> arb:
        return self.ell * s

    def tails(self, s: int) -> tuple[arb, arb]:
        i = min(max(s - self.d0, 0), len(self.a) - 1)
        return self.a[i], self.b[i]

    def p_float(self) -> np.ndarray:
        if self._pf is None:
            self._pf = np.array([float(v.mid()) for v in self.b])
        return self._pf


class TiltedTails(NPTails):
    """Tails from a tilted window (module docstring): ``R`` an ``fmpz_poly``, R(lo + j) its j-th
    coefficient; ``kappa``, ``X`` balls; ``c`` the tilt (exact); the loss l0 + step (s - lo)
    (balls); ``totals``: the masses (Q, P) of the finite losses, balls."""

    def __init__(self, lo: int, R: fmpz_poly, kappa: arb, X: arb, c: Fraction, l0: arb,
                 step: arb, prec: int, singular: arb | None = None,
                 totals: tuple[arb, arb] | None = None) -> None:
        self.lo, self.R, self.kappa, self.c = lo, R, kappa, Fraction(c)
        self.n = R.length()
        self.hi = lo + self.n - 1
        self.X = arb(X.upper()) if X.is_finite() else arb("inf")
        self.l0, self.step, self.prec = l0, step, prec
        self.singular = arb(0) if singular is None else singular
        self.totals = (1 - self.singular, arb(1)) if totals is None else totals
        self._memo: dict = {}
        self._full: dict = {}
        self._coef = None
        self._pf = None

    def loss(self, s: int) -> arb:
        return self.l0 + self.step * (s - self.lo)

    def _suffix(self, k: int, a: Fraction) -> arb:
        """kappa sum_{i >= lo + k} R(i) e^{-a l(i)} (0 <= k <= n): the block from k up to the
        nearest suffix already summed above it (k' > k, else n: the empty sum), as one
        polynomial of R's coefficients k .. k' - 1 at e^{-a step}, plus that suffix. A curve's
        levels ask k in decreasing order, so its suffixes cost one pass over the window in
        all, not one per level (the same finite sum regrouped, in balls throughout)."""
        if k >= self.n:
            return arb(0)
        key = (k, a)
        if key not in self._memo:
            done = self._full.setdefault(a, [])  # the k summed for a, increasing
            j = bisect.bisect_right(done, k)
            top = done[j] if j < len(done) else self.n
            A = to_arb(a)
            coeffs = self._coeffs()[k:top]
            block = arb_poly(coeffs)((-A * self.step).exp()) if coeffs else arb(0)
            s = self.kappa * (-A * self.loss(self.lo + k)).exp() * block
            if top < self.n:
                s += self._memo[(top, a)]
            self._memo[key] = s
            done.insert(j, k)
        return self._memo[key]

    def _coeffs(self) -> list:
        """R's coefficients, the window's length (the zeros above its degree included)."""
        if self._coef is None:
            c = self.R.coeffs()
            self._coef = c + [0] * (self.n - len(c))
        return self._coef

    def _side(self, s: int, a: Fraction, total: arb) -> arb:
        """A ball of the tail at s of the law whose tilted weights carry e^{-a l}."""
        k = min(max(s - self.lo, 0), self.n)
        A = to_arb(a)
        if a >= 0:
            kept = self._suffix(k, a)
            return kept.union(kept + (-A * self.loss(s)).exp() * self.X)
        below = self._suffix(0, a) - self._suffix(k, a)  # kappa sum over i < s
        below = below.union(below + (-A * self.loss(s - 1)).exp() * self.X)
        return total - below

    def tails(self, s: int) -> tuple[arb, arb]:
        return (self._side(s, self.c, self.totals[0]),
                self._side(s, self.c + 1, self.totals[1]))

    def p_float(self) -> np.ndarray:
        if self._pf is None:
            shift = max(self.prec - 900, 0)
            r = np.array([float(int(v) >> shift) for v in self.R.coeffs()] or [0.0])
            r = np.concatenate([r, np.zeros(self.n - r.size)]) if r.size < self.n else r
            with np.errstate(divide="ignore"):
                lr = np.log(r)
            ls = float(self.l0.mid()) + float(self.step.mid()) * np.arange(self.n)
            lw = lr - (float(self.c) + 1) * ls
            lw -= np.max(lw[np.isfinite(lw)]) if np.isfinite(lw).any() else 0.0
            w = np.exp(lw)
            tail = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])
            self._pf = tail / tail[0] if tail[0] > 0 else tail
        return self._pf


def power_ball(t: NPTails, alpha: arb, alpha_f: float) -> tuple[arb, arb]:
    """(lower, upper) exact arbs with lower <= 1 - f(alpha) <= upper (module docstring), for
    0 < alpha < 1 (``alpha`` an exact ball, ``alpha_f`` a float near it for locating)."""
    s0 = t.locate(alpha_f, alpha)  # the float estimate of s*: the largest s with P_s >= alpha
    cache: dict = {}

    def tails(s):
        if s not in cache:
            cache[s] = t.tails(s)
        return cache[s]

    def H(s):
        q, p = tails(s + 1)
        return t.singular + q + t.ratio(s) * (alpha - p)

    lo_s, hi_s = s0 - 1, s0 + 1
    s_a = s_b = None
    for _ in range(8):  # widen until P_{s_a} >= alpha and P_{s_b + 1} < alpha are proved
        if s_a is None:
            for s in range(hi_s, lo_s - 1, -1):
                if tails(s)[1] >= alpha:
                    s_a = s
                    break
        if s_b is None:
            for s in range(lo_s, hi_s + 1):
                if tails(s + 1)[1] < alpha:
                    s_b = s
                    break
        if s_a is not None and s_b is not None:
            break
        lo_s, hi_s = lo_s - 2 * (hi_s - lo_s), hi_s + 2 * (hi_s - lo_s)
        lo_s, hi_s = max(lo_s, t.lo - 1), min(hi_s, t.hi + 1)
    up = arb(1)
    cands = range(s_a, s_b + 1) if s_a is not None and s_b is not None and s_a <= s_b else ()
    for s in sorted(set(cache) | set(cands) | {s0}):
        h = H(s)
        if h.is_finite() and h.upper() < up:
            up = arb(h.upper())
    low = arb(alpha.lower())  # 1 - f(alpha) >= alpha
    if cands and len(cands) <= 16:
        m = None
        for s in cands:
            v = H(s)
            m = arb(v.lower()) if m is None or v.lower() < m else m
        low = m if m > low else low
    for q, p in list(cache.values()):  # through a vertex at s with P_s <= alpha proved
        if p.upper() <= alpha.lower():
            v = arb((t.singular + q).lower())
            low = v if v > low else low
    return low, (up if up > low else low)


def _down(x: arb) -> float:
    """A float <= every point of the ball (the ball's value itself when it is an exact
    float)."""
    if x.is_exact() and x.is_finite() and arb(float(x.mid())) == x:
        return float(x.mid())
    return lower(x)


def _up(x: arb) -> float:
    if x.is_exact() and x.is_finite() and arb(float(x.mid())) == x:
        return float(x.mid())
    return upper(x)


def np_band(t: NPTails, alphas: Sequence[float]) -> Band:
    """Certified float bands of f and of its power at the levels (floats in [0, 1])."""
    x = np.asarray(alphas, dtype=np.float64)
    p_lo, p_hi = np.empty_like(x), np.empty_like(x)
    f_lo, f_hi = np.empty_like(x), np.empty_like(x)
    with working_precision(t.prec + 64):
        one = arb(1)
        for i, a in enumerate(x.ravel()):
            if i % 16 == 0:
                budget.check()
            if a <= 0:  # the test of size 0 rejects the singular part only
                lo_b = hi_b = t.singular
            elif a >= 1:
                lo_b = hi_b = one
            else:
                lo_b, hi_b = power_ball(t, arb(float(a)), float(a))
            p_lo.flat[i] = min(max(_down(lo_b), 0.0), 1.0)
            p_hi.flat[i] = max(min(_up(hi_b), 1.0), 0.0)
            f_lo.flat[i] = min(max(_down(one - hi_b), 0.0), 1.0)
            f_hi.flat[i] = max(min(_up(one - lo_b), 1.0), 0.0)
    f_hi = np.minimum(f_hi, np.where(x < 1, np.nextafter(1.0 - x, np.inf), 0.0))
    return Band(f_lo, np.maximum(f_hi, f_lo), p_lo, np.maximum(p_hi, p_lo))


def tilt_for(mean_loss, t: float, lo: float = -8.0, hi: float = 8.0) -> float:
    """The real tilt c whose tilted mean loss ``mean_loss(c)`` (increasing) is t, bisected in
    [lo, hi] and rounded to a dyadic grid of 1/256 (planning only)."""
    if mean_loss(lo) >= t:
        return lo
    if mean_loss(hi) <= t:
        return hi
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_loss(mid) < t else (lo, mid)
    return round(hi * 256) / 256


def _log_bar_phi(z: float) -> float:
    """log P(N(0,1) > z), floats."""
    if z < 30:
        return math.log(max(0.5 * math.erfc(z / math.sqrt(2)), 1e-300))
    return -z * z / 2 - math.log(z * math.sqrt(2 * math.pi))


def gap_estimate(t: float, c: float, mean: float, sd: float) -> float:
    """A normal estimate of the least ratio of a tail at t (Q's and P's) to the scale
    e^{-a t} M(c) of its dropped-mass bound (module docstring), a = c and c + 1: under the
    tilted law N(mean, sd^2) it is E[e^{-a (L - t)}; L >= t] = e^{a (t - mean) + a^2 sd^2 / 2}
    P(N > (t - mean)/sd + a sd) (planning only)."""
    out = math.inf
    sd = max(sd, 1e-12)
    for a in (c, c + 1):
        lg = a * (t - mean) + a * a * sd * sd / 2 + _log_bar_phi((t - mean) / sd + a * sd)
        out = min(out, lg)
    return math.exp(max(out, -700.0))
