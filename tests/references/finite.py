"""Finite references: exact Neyman--Pearson on a pair of finite laws (the knots of T(P, Q)),
exact piecewise-linear algebra (maximum, group privacy), products and powers of pairs, and the
pairs of the finite families: f_{eps,delta} (Dong, Roth & Su, Eq. (4) and Prop. 3), the
binomial pair of f_{eps,0}^{(x)n} (Kairouz et al.), Id and Zero.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import Counter
from fractions import Fraction

import mpmath
import reference_np as rnp
from mpmath import mp

from .base import F0, F1, Num, Ref, RefUnavailable, _tick, to_m


# -- finite objects: exact Neyman-Pearson on pairs, exact piecewise-linear algebra ----------
def np_knots(P, Q, exact: bool):
    """Knots (x, y, power) of T(P, Q): reject in decreasing Q/P (Neyman-Pearson lemma).
    y is formed from suffix sums and power from prefix sums (no cancellation)."""
    inf_q = sum((q for p, q in zip(P, Q, strict=False) if p == 0), F0 if exact else mp.zero)
    fin = [(p, q) for p, q in zip(P, Q, strict=False) if p != 0]
    fin.sort(key=lambda t: t[1] / t[0], reverse=True)
    if exact:  # merge equal likelihood ratios
        merged = []
        for p, q in fin:
            if merged and merged[-1][1] * p == q * merged[-1][0]:
                merged[-1] = (merged[-1][0] + p, merged[-1][1] + q)
            else:
                merged.append((p, q))
        fin = merged
    n = len(fin)
    zero = F0 if exact else mp.zero
    suffix = [zero] * (n + 1)
    for j in range(n - 1, -1, -1):
        suffix[j] = suffix[j + 1] + fin[j][1]
    knots = [(zero, suffix[0], inf_q)]
    cp, cq = zero, inf_q
    for j, (p, q) in enumerate(fin):
        cp, cq = cp + p, cq + q
        knots.append((cp, suffix[j + 1], cq))
    x, y, w = knots[-1]
    knots[-1] = (F1 if exact else mp.one, y, w)
    if exact and x != 1:
        raise AssertionError(f"P does not sum to 1: {x}")
    return knots


def pair_from_knots(knots, exact: bool):
    """A pair whose trade-off is the piecewise-linear function through the knots (x, y)."""
    one = F1 if exact else mp.one
    P, Q = [], []
    y0 = knots[0][1]
    if y0 < one:
        P.append(one - one)
        Q.append(one - y0)
    for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
        P.append(x2 - x1)
        Q.append(y1 - y2)
    return P, Q


def pl_value(knots, a, ac=None):
    """Value at a of the piecewise-linear function through knots [(x, y), ...]; exact for a
    Fraction a on Fraction knots, otherwise mpf with (a, ac)."""
    xs = [k[0] for k in knots]
    j = bisect.bisect_right(xs, a) - 1
    j = min(max(j, 0), len(knots) - 2)
    (x1, y1), (x2, y2) = knots[j][:2], knots[j + 1][:2]
    if x2 == x1:
        return min(y1, y2)
    if ac is not None and x2 == 1:
        dx = ac
    else:
        dx = x2 - a
    return y2 + (y1 - y2) * dx / (x2 - x1)


def pl_power(knots, a):
    """1 - f(a) from knots (x, y, w) with w = 1 - y formed without cancellation."""
    xs = [k[0] for k in knots]
    j = bisect.bisect_right(xs, a) - 1
    j = min(max(j, 0), len(knots) - 2)
    (x1, _, w1), (x2, _, w2) = knots[j], knots[j + 1]
    if x2 == x1:
        return max(w1, w2)
    return w1 + (w2 - w1) * (a - x1) / (x2 - x1)


def pl_max(k1, k2):
    """Knots of max{F, G} for piecewise-linear F, G (convex when both are)."""
    xs = sorted(set(k[0] for k in k1) | set(k[0] for k in k2))
    pts = list(xs)
    for a, b in zip(xs, xs[1:], strict=False):
        _tick()
        da = pl_value(k1, a) - pl_value(k2, a)
        db = pl_value(k1, b) - pl_value(k2, b)
        if da * db < 0:
            pts.append(a + (b - a) * da / (da - db))
    pts = sorted(set(pts))
    return [(x, max(pl_value(k1, x), pl_value(k2, x))) for x in pts]


def pl_group(knots, k: int):
    """Knots of 1 - (1 - f)^{o k} for piecewise-linear f (Dong, Roth & Su, Thm. 3)."""
    # h = 1 - f, non-decreasing; from the knots' power column (x, y, 1 - y) when they carry
    # one: 1 - y of a computed y = 1 - 1e-31 would put h(0) at 1e-31, and a steep f maps that
    # level to ~1 (Group(BinomialDP(23, 15), 4)(0) = 1 read 0)
    hk = [(k[0], k[2]) if len(k) > 2 else (k[0], 1 - k[1]) for k in knots]
    hxs = [x for x, _ in hk]

    def h(x):
        return pl_value(hk, x)

    cur = hk  # knots of h^{o m}
    for _ in range(k - 1):
        pts = set(x for x, _ in cur)
        for (x1, g1), (x2, g2) in zip(cur, cur[1:], strict=False):
            _tick()
            if g1 == g2:
                continue
            for u in hxs:
                if min(g1, g2) < u < max(g1, g2):
                    pts.add(x1 + (u - g1) * (x2 - x1) / (g2 - g1))
        pts = sorted(pts)
        cur = [(x, h(pl_value(cur, x))) for x in pts]
    return [(x, 1 - g) for x, g in cur]


def _merge_key(p, q):
    return ("inf",) if p == 0 else q / p


def pair_product(pairs, exact: bool, cap: int = 20000):
    P, Q = pairs[0]
    for P2, Q2 in pairs[1:]:
        _tick()
        if len(P) * len(P2) > 20 * cap:
            raise RefUnavailable(f"product pair of {len(P)} x {len(P2)} atoms")
        if exact:
            acc: dict = {}
            for p1, q1 in zip(P, Q, strict=False):
                for p2, q2 in zip(P2, Q2, strict=False):
                    p, q = p1 * p2, q1 * q2
                    if p == 0 and q == 0:
                        continue
                    key = _merge_key(p, q)
                    if key in acc:
                        acc[key] = (acc[key][0] + p, acc[key][1] + q)
                    else:
                        acc[key] = (p, q)
            P, Q = [v[0] for v in acc.values()], [v[1] for v in acc.values()]
        else:
            P, Q = ([p1 * p2 for p1 in P for p2 in P2], [q1 * q2 for q1 in Q for q2 in Q2])
        if len(P) > cap:
            raise RefUnavailable(f"product pair has {len(P)} atoms")
    return P, Q


def pair_power(pair, n: int, exact: bool, cap: int = 20000):
    P, Q = pair
    if n == 0:
        return ([F1], [F1]) if exact else ([mp.one], [mp.one])
    if exact:
        result, base, m = None, (P, Q), n
        while m:
            if m & 1:
                result = base if result is None else pair_product([result, base], True, cap)
            m >>= 1
            if m:
                base = pair_product([base, base], True, cap)
        return result
    atoms = [i for i in range(len(P)) if P[i] != 0 or Q[i] != 0]
    if math.comb(len(atoms) + n - 1, n) > cap:
        raise RefUnavailable("power pair too large")
    outP, outQ = [], []
    fact = math.factorial(n)
    for combo in itertools.combinations_with_replacement(atoms, n):
        _tick()
        c = Counter(combo)
        coef = fact
        for v in c.values():
            coef //= math.factorial(v)
        p, q = mp.mpf(coef), mp.mpf(coef)
        for i, e in c.items():
            p *= P[i] ** e
            q *= Q[i] ** e
        outP.append(p)
        outQ.append(q)
    return outP, outQ


def binomial_pair(E, n: int, exact: bool):
    """f_{eps,0}^{(x)n} = T(B(n, 1/(1+E)), B(n, E/(1+E))) (Kairouz et al.; DRS Sec. 3.3)."""
    w = (F1 / (1 + E)) if exact else 1 / (1 + E)
    v = 1 - w if exact else E / (1 + E)
    P = [math.comb(n, k) * w ** k * v ** (n - k) for k in range(n + 1)]
    Q = [math.comb(n, k) * v ** k * w ** (n - k) for k in range(n + 1)]
    return P, Q


class Finite(Ref):
    """A trade-off function of a finite pair; exact (Fractions) when all data are rational."""

    kind = "finite"

    def __init__(self, exact: bool, make, how: str, sym: bool = False, slack=F0, label=""):
        self.exact, self._make, self._how = exact, make, how
        self.sym, self.slack, self.label = sym, Fraction(slack), label
        self.native_roc = exact or how == "pair"
        self._cache: dict = {}

    def _get(self, what):
        key = (what, None if self.exact else mp.prec)
        if key not in self._cache:
            _tick()
            if what == "pair":
                self._cache[key] = (self._make() if self._how == "pair"
                                    else pair_from_knots(self._get("knots"), self.exact))
            elif what == "np":
                if self._how == "pair":
                    P, Q = self._get("pair")
                    self._cache[key] = np_knots(P, Q, self.exact)
                else:
                    self._cache[key] = [(x, y, 1 - y) for x, y in self._get("knots")]
            elif what == "knots":
                self._cache[key] = (self._make() if self._how == "knots"
                                    else [(x, y) for x, y, _ in self._get("np")])
            elif what == "mknots":
                self._cache[key] = [tuple(to_m(c) for c in k) for k in self._get("np")]
        return self._cache[key]

    def pair(self):
        return self._get("pair")

    def knots(self):
        return self._get("knots")

    def exact_value(self, A: Fraction) -> Fraction:
        return pl_value(self._get("np"), A)

    def val(self, a, ac, side):
        _tick()
        return pl_value(self._get("mknots"), a, ac)

    def roc_val(self, a, ac, side):
        return pl_power(self._get("mknots"), a)

    def bounds(self, A):
        if self.exact and isinstance(A, Fraction):
            v = self.exact_value(A)
            return v, v
        return super().bounds(A)

    def roc_bounds(self, A):
        if self.exact and isinstance(A, Fraction):
            v = pl_power(self._get("np"), A)
            return v, v
        return super().roc_bounds(A)

    def delta_bounds(self, eps):
        P, Q = self.pair()
        E = mpmath.exp(eps)
        d = mp.zero
        for p, q in zip(P, Q, strict=False):
            t = to_m(q) - E * to_m(p)
            if t > 0:
                d += t
        return d, d


class EpsDeltaRef(Finite):
    """f_{eps,delta}: Eq. (4) directly, the four-point pair (DRS Prop. 3) for composition."""

    def __init__(self, eps: Num, delta: Num):
        self.eps, self.delta = eps, delta
        E = eps.exp_exact()
        exact = E is not None

        def make():
            if exact:
                return rnp.four_point_pair(E, delta.frac)
            return rnp.four_point_pair(eps.exp_m(), to_m(delta.frac))

        super().__init__(exact, make, "pair", sym=True, label=f"EpsDelta({eps}, {delta})")

    def exact_value(self, A):
        E, d = self.eps.exp_exact(), self.delta.frac
        return max(F0, 1 - d - E * A, (1 - A - d) / E)

    def val(self, a, ac, side):
        E, d = self.eps.exp_m(), to_m(self.delta.frac)
        return max(mp.zero, 1 - d - E * a, (ac - d) / E)

    def roc_val(self, a, ac, side):
        E, E1, d = self.eps.exp_m(), self.eps.expm1_m(), to_m(self.delta.frac)
        return min(mp.one, d + E * a, (E1 + a + d) / E)

    def delta_bounds(self, eps):
        # delta(e) = delta0 + (1 - delta0)(E0 - E)/(1 + E0) for e < eps0, else delta0
        E0, d = self.eps.exp_m(), to_m(self.delta.frac)
        E = mpmath.exp(eps)
        v = d + (1 - d) * (E0 - E) / (1 + E0) if E < E0 else d
        return v, v


# -- Gaussian, Laplace, Gaussian x finite ---------------------------------------------------
_SQ2 = None



def id_ref() -> Finite:
    r = Finite(True, lambda: [(F0, F1), (F1, F0)], "knots", sym=True, label="Id")
    r.is_id = True
    return r


def zero_ref() -> Finite:
    r = Finite(True, lambda: [(F0, F0), (F1, F0)], "knots", sym=True, label="Zero")
    r.is_zero = True
    return r


