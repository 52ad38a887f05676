"""The Neyman--Pearson regions of a pair of Gaussian mixtures: the sign structure of h_t and the
masses of the rejection region.

For the pair ``P = sum_i w_i N(a_i, 1)``, ``Q = sum_i w_i N(b_i, 1)`` of
:class:`~.gaussian_mixture.GaussianMixturePair`, the optimal test at threshold ``t = e^lam``
rejects on ``{x : h_t(x) > 0}`` with the exponential polynomial
``h_t(x) = sum_k (W^Q_k - t W^P_k) e^{-k^2/2} e^{k x}`` (Dong, Roth & Su, Def. 2 and the
Neyman--Pearson lemma; the mixtures of Wang, Su, Ye, Shokri & Su, Sec. 3). This module holds

* the numbers of one pair at a working precision (:class:`_Model`, from the canonical
  components);
* the rigorous isolation of the real roots of h_t (:func:`_isolate`: Laguerre's rule of signs
  and Rolle's theorem, each root refined by :func:`numeric.roots.findroot`);
* the normal masses of unions of intervals, to full relative accuracy (:func:`_mass`);
* a point of the curve, the enclosures of alpha, 1 - alpha, beta, 1 - beta and the slope at
  one threshold (:class:`_Point`).

The node, its validation and registrations, and the value at a level are in
:mod:`.gaussian_mixture`.
"""

from __future__ import annotations

import sympy as sp

from ..core.errors import NumericalError
from ..numeric import budget
from ..numeric.context import mp
from ..numeric.normal import ncdf
from ..numeric.precision_loop import precision_loop
from ..numeric.protocol import num
from ..numeric.roots import Probe, expand_bracket, findroot

_OWNER = "GaussianMixturePair"


def _equal(x: sp.Expr, y: sp.Expr) -> bool:
    """Decided x == y (unknown counts as different)."""
    return x == y or (x - y).is_zero is True


# -- numeric model ---------------------------------------------------------------------------------
class _Model:
    """The numbers of one pair at the working precision: the components of P and Q, and the
    distinct exponents k (ascending) with ``B_k = W^Q_k e^{-k^2/2}``, ``A_k = W^P_k e^{-k^2/2}``
    (so h_t = sum_k (B_k - t A_k) e^{k x})."""

    __slots__ = ("P", "Q", "ks", "A", "B", "W")

    def __init__(self, Pc: list, Qc: list):
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
    prec = mp.prec

    def at(extra):  # (value, bits lost to cancellation, extra bits it was computed with)
        with mp.workprec(prec + extra):
            big = ncdf(y)
            val = big - ncdf(x)
            return val, (mp.mag(big) - mp.mag(val) if val > 0 else mp.prec), extra

    def give_up(r, prev, extra):
        raise NumericalError(f"{_OWNER}: a normal mass cancels beyond every working precision "
                             "tried; report the input")

    val = precision_loop(at, 0, done=lambda r, prev: r[0] > 0 and r[1] <= r[2] + 4,
                         grow=lambda r, extra: 2 * extra + r[1] + 16, max_steps=8,
                         give_up=give_up, check=False)[0]
    return +val


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
