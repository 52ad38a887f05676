"""Certified privacy profiles of products of finite lattice pairs on two incommensurate lattices:
f_{1/10,0}^{(x) 10^5} (losses on (1/10) Z) next to RR(log 3, 5)^{(x) 10^5} (losses on log(3) Z).

Each factor is a finite pair whose likelihood ratios are integer powers of one number: R_1 for
the factors of the first group, R_2 for the second, with log R_1 / log R_2 irrational (no common
lattice: ``numeric.lattice_tilted`` composes one group, ``numeric.lattice_product`` lattices of
one rational step). The product's loss is L = l_1 d_1 + l_2 d_2, l_i = log R_i, d_i the sum of
the group's exponents, and its regular Q-law (the outcomes with P > 0 and Q > 0) is the product
Q_1(d_1) Q_2(d_2) of the groups' laws (Dong, Roth & Su, Def. 5); the Q-mass where P = 0 is S = 1
- prod (1 - a_i)^{m_i} (Eq. (11)). The profile (Prop. 6) is

    delta(eps) = S + sum_{L > eps} Q_1(d_1) Q_2(d_2) (1 - e^{eps - L}),                       (1)

and since P(d_1, d_2) = Q(d_1, d_2) e^{-L}, for each d_2 the inner sum over d_1 is a tail of the
first group, A_1(m) - e^{eps - l_2 d_2} B_1(m), m the first d_1 with l_1 d_1 > eps - l_2 d_2,
A_1(m) = sum_{d_1 >= m} Q_1(d_1), B_1(m) = sum_{d_1 >= m} Q_1(d_1) e^{-l_1 d_1}: the double sum
costs the two windows' lengths, not their product.

**Windows.** Each group's law is the tilted fixed-point power of ``numeric.lattice_tilted``
(``TiltedLatticeProduct.root``) at one tilt c >= 0 shared by both, the saddle point of the whole
loss at eps: integers R_i(d) with scale_i R_i(d) <= T_i(d) = Q_i(d) e^{c l_i d}, all other mass
dropped, and M_i = prod M_ij(c)^{n_ij} the exact total tilted mass as a ball. The kept product
measure scale_1 scale_2 R_1(d_1) R_2(d_2) lies below T_1 T_2 pointwise and the dropped tilted
mass is X = M_1 M_2 - K_1 K_2 >= 0 (K_i = scale_i sum R_i).

**Certificate.** In (1) each term is Q e^{-cL} e^{cL} (1 - e^{eps - L}) with T = Q e^{cL}. The
sum over the kept measure with the tilt undone is a lower bound of (1) - S (all its terms are
>= 0); the dropped part adds at most e^{-c eps} X, since e^{-cL} (1 - e^{eps - L})_+ <=
e^{-c eps} for c >= 0. So

    S + Low <= delta(eps) <= S + Low + e^{-c eps} X,

proved in Arb whatever the plan (tilt, windows, precision) was. Which d_1 count for a given d_2
(l_1 d_1 > eps - l_2 d_2) is decided in floats with a proved margin: with l_i^f the floats of l_i
and |l_i - l_i^f| <= r_i (from their Arb balls), the computed gap g = l_1^f d_1 - (eps - l_2^f
d_2) (three IEEE operations, round to nearest, u = 2^-53) is within |d_1| r_1 + |d_2| r_2 + 4 u
(|l_1^f d_1| + |l_2^f d_2| + |eps|) of the true gap, so |g| above that bound (times four) decides
the sign; the few undecided atoms are summed in Arb as (term)_+, the positive part (1) takes.

eps(delta): Newton's method on log delta in floats over the same windows (delta'(eps) = -e^eps
P(L > eps), which the windows give), the tilt re-planned at the root, then the bracket [x - w,
x + w] proved by two balls of delta (delta is non-increasing: delta(lo) > delta >= delta(hi)),
widened until proved.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb

from . import budget
from .cf_laws import lower, to_arb, upper, working_precision
from .lattice_power import commensurate_groups, symbolic_lattice_pair
from .lattice_product import arb_of
from .lattice_tilted import TiltedLatticeProduct, _ball, singular_ball
from .value import CertifiedPair

__all__ = ["TwoLatticeProduct", "two_lattice_product", "two_lattice_enclosure",
           "TWO_LATTICES"]

#: The route's name (``Value.route``).
TWO_LATTICES = "Arb product of two lattices"
#: The most factors (with multiplicities) of a product.
MAX_FACTORS = 10**7
#: The most outcomes of one factor pair tried as a lattice pair.
MAX_ATOMS = 256
#: The float margin's safety factor over the proved rounding bound (4 u per operation).
MARGIN_BITS = 48


class _Window:
    """One group's kept tilted measure at (c, T, prec): lattice indices ``d`` (those with a
    nonzero integer), the Arb weights scale R(d) e^{-c l d} and scale R(d) e^{-(c+1) l d},
    their kept total K and the exact tilted total M as balls, the loss unit l as a ball, a
    float l^f and a proved bound r >= |l - l^f|."""

    def __init__(self, group: TiltedLatticeProduct, c: float, T: float, prec: int) -> None:
        lo, R, lam, M = group.root(c, T, prec)
        coeffs = R.coeffs()
        self.lo, self.size = lo, len(coeffs)
        self.ell = _ball(group.ratio).log()
        self.ellf = float(self.ell.mid())
        self.r = upper((self.ell - arb(self.ellf)).abs_upper() + self.ell.rad())
        scale = lam / arb(2) ** prec
        cc = to_arb(Fraction(c))
        self.M = M
        self.K = scale * arb_of(int(R(1)))
        step_a, step_b = (cc * self.ell).exp(), ((cc + 1) * self.ell).exp()
        top = lo + self.size - 1
        wa, wb = (-cc * self.ell * top).exp(), (-(cc + 1) * self.ell * top).exp()
        self.idx, self.wa, self.wb = [], [], []
        for j in range(self.size - 1, -1, -1):  # the weights stepped down from the top
            if not j & 1023:
                budget.check()
            x = coeffs[j]
            if x != 0:
                v = scale * arb(x)
                self.idx.append(j)
                self.wa.append(v * wa)
                self.wb.append(v * wb)
            wa, wb = wa * step_a, wb * step_b
        self.idx.reverse()
        self.wa.reverse()
        self.wb.reverse()
        self.d = np.array([lo + j for j in self.idx], dtype=np.float64)
        # float logs of the weights for Newton's steps (planning only): log scale + log R(d)
        # - c l d, and with (c + 1)
        man, exp = scale.mid().man_exp()
        lscale = math.log(int(man)) + int(exp) * math.log(2)
        lr = np.array([math.log(int(coeffs[j])) for j in self.idx])
        self.la = lscale + lr - c * self.ellf * self.d
        self.lb = lscale + lr - (c + 1) * self.ellf * self.d

    def suffix(self) -> tuple[list, list, np.ndarray, np.ndarray]:
        """(A, B, log A, log B): A[i] = sum of the weights wa over the kept indices >= i (the
        window's positions 0 .. size, A[size] = 0), B likewise, and their float logs."""
        A, B = [arb(0)] * (self.size + 1), [arb(0)] * (self.size + 1)
        sa = sb = arb(0)
        pos = len(self.idx) - 1
        for i in range(self.size - 1, -1, -1):
            if pos >= 0 and self.idx[pos] == i:
                sa, sb = sa + self.wa[pos], sb + self.wb[pos]
                pos -= 1
            A[i], B[i] = sa, sb
        return A, B, self._log_suffix(self.la), self._log_suffix(self.lb)

    def _log_suffix(self, logs: np.ndarray) -> np.ndarray:
        """Float logs of the suffix sums of exp(logs) over the window's positions 0 .. size
        (-inf past the last kept index): planning only."""
        out = np.full(self.size + 1, -np.inf)
        if len(logs):
            acc = np.logaddexp.accumulate(logs[::-1])[::-1]  # over the kept indices
            idx = np.asarray(self.idx)
            # position i: the first kept index >= i
            first = np.searchsorted(idx, np.arange(self.size + 1), side="left")
            ok = first < len(idx)
            out[ok] = acc[first[ok]]
        return out


class TwoLatticeProduct:
    """delta and eps of a product of lattice pairs on two lattices (``groups``: one
    :class:`~.lattice_tilted.TiltedLatticeProduct` per lattice, without singular masses;
    ``singular``: (a, m), the factors' Q-masses where P = 0 with their multiplicities), as
    certified float enclosures (module docstring)."""

    def __init__(self, groups: list[TiltedLatticeProduct], singular: list[tuple] = ()) -> None:
        if len(groups) != 2:
            raise ValueError("a product of two lattices needs two groups")
        self.groups = list(groups)
        self.singular = [(a, int(m)) for a, m in singular if a != 0 and int(m) > 0]
        self._ell_min = min(g._ell for g in self.groups)
        self._sides: dict = {}

    def _singular_ball(self) -> arb:
        return singular_ball(self.singular)

    # -- planning (floats) -------------------------------------------------------------------
    def _moments(self, c: float) -> tuple[float, float]:
        """(tilted mean of L, its sd), floats, in loss units."""
        mean = var = 0.0
        for g in self.groups:
            m, sd = g._moments(c)
            mean, var = mean + g._ell * m, var + (g._ell * sd) ** 2
        return mean, math.sqrt(var)

    def top_loss(self) -> float:
        """The largest loss (float): delta = S from there on."""
        return sum(g.top_loss() for g in self.groups)

    def saddle(self, eps: float) -> float:
        """The tilt c >= 0 whose tilted mean loss is eps (0 below the mean), on the dyadic grid
        of ``TiltedLatticeProduct.saddle`` (the rounding moves the mean by at most 1/32 sd)."""
        eps = min(eps, self.top_loss() - self._ell_min / 2)
        if self._moments(0.0)[0] >= eps:
            return 0.0
        lo, hi = 0.0, 1.0
        while self._moments(hi)[0] < eps and hi < 1e6:
            lo, hi = hi, 2 * hi
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self._moments(mid)[0] < eps else (lo, mid)
        sd_l = max(self._moments(hi)[1], self._ell_min)
        grid = 2.0 ** (math.ceil(math.log2(32 * sd_l)))
        return round(hi * grid) / grid

    def _plan(self, eps: float, rel_tol: float) -> tuple[float, float, int]:
        """(c, T, prec) as ``TiltedLatticeProduct._plan`` for the whole loss: the windows' and
        the fixed point's losses a small fraction of rel_tol delta (planning; the bound
        certifies)."""
        c = self.saddle(eps)
        sd_l = max(self._moments(c)[1], self._ell_min)
        gap = 1e-3 if c == 0 else min(1.0, 1 / (sd_l * math.sqrt(2 * math.pi) * c * (c + 1)))
        target = rel_tol * gap * 1e-3
        nodes = sum(2 * f.n.bit_length() + 4 for g in self.groups for f in g.factors)
        T = math.sqrt(2 * math.log(4 * nodes / target))
        window = sum(2 * T * max(g._moments(c)[1], 0.5)
                     + sum(f.kmax - f.kmin + 1 for f in g.factors) for g in self.groups)
        prec = int(math.log2(window * nodes / target)) + 16
        return c, T, prec

    def _windows(self, c: float, T: float, prec: int):
        """(inner window with its suffix sums, outer window, X = M_1 M_2 - K_1 K_2), cached:
        the longer window is the inner one (its suffix sums are formed once)."""
        key = (c, T, prec)
        hit = self._sides.get(key)
        if hit is not None:
            return hit
        with working_precision(prec + 64):
            w = [_Window(g, c, T, prec) for g in self.groups]
            inner, outer = (w[0], w[1]) if w[0].size >= w[1].size else (w[1], w[0])
            sums = inner.suffix()
            X = w[0].M * w[1].M - w[0].K * w[1].K
        out = (inner, sums, outer, X)
        if len(self._sides) > 2:
            self._sides.clear()
        self._sides[key] = out
        return out

    # -- delta -------------------------------------------------------------------------------
    @staticmethod
    def _cuts(inner: _Window, outer: _Window, eps: float) -> tuple[np.ndarray, np.ndarray]:
        """For each kept index of the outer window: the position (0 .. inner.size) in the inner
        window of the first d_1 with l_1 d_1 > eps - l_2 d_2, and whether the floats proved it
        (module docstring)."""
        x = eps - outer.ellf * outer.d
        m = np.floor(x / inner.ellf) + 1.0
        m = np.clip(m, inner.lo, inner.lo + inner.size)
        u = 2.0 ** -MARGIN_BITS

        def margin(d1):
            return (np.abs(d1) * inner.r + np.abs(outer.d) * outer.r
                    + u * (np.abs(inner.ellf * d1) + np.abs(outer.ellf * outer.d) + abs(eps)))

        top = inner.lo + inner.size - 1
        # the first counted atom (if any) is above the cut, the one before it below
        ok_hi = (m > top) | (inner.ellf * m - x > margin(m))
        ok_lo = (m <= inner.lo) | (x - inner.ellf * (m - 1) > margin(m - 1))
        return (m - inner.lo).astype(np.int64), ok_hi & ok_lo

    def _low(self, eps: float, c: float, T: float, prec: int) -> tuple[arb, arb]:
        """(Low, the undecided atoms' share as [0, b]) of the module docstring, eps >= 0."""
        inner, (A, B, _, _), outer, _ = self._windows(c, T, prec)
        pos, ok = self._cuts(inner, outer, eps)
        E = arb(eps).exp()
        sa = sb = arb(0)
        extra = arb(0)
        for k in range(len(outer.idx)):
            if not k & 1023:
                budget.check()
            i = int(pos[k])
            if not ok[k]:
                i, add = self._undecided(inner, A, B, outer, k, eps, i)
                extra += add
            sa += outer.wa[k] * A[i]
            sb += outer.wb[k] * B[i]
        return sa - E * sb, extra

    @staticmethod
    def _undecided(inner, A, B, outer, k: int, eps: float, i: int) -> tuple[int, arb]:
        """The cut decided in Arb for the k-th outer index: the first position from which every
        atom is proved above eps - l_2 d_2, and the positive parts of the atoms below it that
        are not proved below (a ball [0, b])."""
        d2 = int(outer.d[k])
        x = arb(eps) - outer.ell * d2
        top = inner.size
        while i > 0 and inner.ell * (inner.lo + i - 1) > x:
            i -= 1
        while i < top and not inner.ell * (inner.lo + i) > x:
            i += 1
        add = arb(0)
        j = i - 1
        E = arb(eps).exp()
        while j >= 0 and not inner.ell * (inner.lo + j) < x:
            # the atom (j, d2): outer.wa R-weight times the inner weight at j, (term)_+
            wa_j, wb_j = A[j] - A[j + 1], B[j] - B[j + 1]
            term = outer.wa[k] * wa_j - E * outer.wb[k] * wb_j
            add += arb(0).union(term.max(arb(0)).upper())
            j -= 1
        return i, add

    def _delta_ball(self, eps: float, c: float, T: float, prec: int) -> arb:
        """A ball of delta(eps) (eps a float >= 0): S + Low + [0, undecided + e^{-c eps} X]."""
        with working_precision(prec + 64):
            S = self._singular_ball()
            top = sum(to_arb(f.n * f.kmax) * _ball(g.ratio).log()
                      for g in self.groups for f in g.factors)
            e = arb(eps)
            if e >= top:
                return S
            low, extra = self._low(eps, c, T, prec)
            X = self._windows(c, T, prec)[3]
            add = (extra + (-to_arb(Fraction(c)) * e).exp() * X).upper()
            main = S + low
            return main.union(main + add) if add > 0 else main

    def delta(self, eps: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= delta(eps) <= hi (eps a float >= 0), about rel_tol wide."""
        c, T, prec = self._plan(eps, rel_tol)
        best = None
        for _ in range(3):
            d = self._delta_ball(eps, c, T, prec)
            lo, hi = max(0.0, lower(d)), min(1.0, upper(d))
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            if hi - lo <= rel_tol * hi:
                break
            T, prec = T + 4, prec + 32
        return best

    # -- eps(delta) --------------------------------------------------------------------------
    def _float_delta(self, x: float, c: float, T: float, prec: int) -> tuple[float, float]:
        """(log of the regular part of delta(x), its derivative in x) in floats over the windows
        (Newton's steps only: the bracket is proved by balls)."""
        inner, (_, _, lA, lB), outer, _ = self._windows(c, T, prec)
        pos, _ = self._cuts(inner, outer, x)
        ta = outer.la + lA[pos]
        tb = x + outer.lb + lB[pos]
        top = max(float(np.max(ta)), float(np.max(tb)))
        if not math.isfinite(top):
            return -math.inf, 0.0
        sa, sb = float(np.sum(np.exp(ta - top))), float(np.sum(np.exp(tb - top)))
        if sa <= sb:
            return -math.inf, 0.0
        return top + math.log(sa - sb), -sb / (sa - sb)

    def _newton(self, d: float, x: float, c: float, T: float, prec: int) -> float:
        """eps with the float delta(eps) = d: Newton's method on log delta from x, safeguarded
        by the bracket [lo, hi] it keeps (a step outside it, or two steps that did not halve it,
        bisect: near the largest loss the slope is steep and few atoms are left)."""
        ld = math.log(d)
        lo, hi = 0.0, self.top_loss()
        x = min(max(x, lo), hi)
        widths = [hi - lo]
        for _ in range(200):
            budget.check()
            g, dg = self._float_delta(x, c, T, prec)
            if g > ld:
                lo = x
            else:
                hi = x
            if hi - lo <= 1e-15 * max(hi, 1.0):
                return x
            widths.append(hi - lo)
            nx = x - (g - ld) / dg if (math.isfinite(g) and dg < 0) else None
            if (nx is None or not lo < nx < hi
                    or (len(widths) > 2 and widths[-1] > widths[-3] / 2)):
                nx = (lo + hi) / 2
                widths.append(hi - lo)  # (a bisection: the next Newton step is judged afresh)
            if abs(nx - x) <= 1e-15 * max(abs(x), 1.0):
                return nx
            x = nx
        return x

    def _log_mgf(self, c: float) -> float:
        """log M(c) = sum of n log M_f(c) over the factors (floats)."""
        return sum(f.n * f.moments(c, g._ell)[0] for g in self.groups for f in g.factors)

    def _guess(self, d: float) -> float:
        """A start for eps(d): the saddle-point approximation log delta(eps) ~ log M(c) - c eps
        - log(sd_c sqrt(2 pi) c (c + 1)) at the tilt c with tilted mean eps (the tilted law
        near eps taken as flat over 1/c), solved for c by bisection; the Gaussian mean + sd
        sqrt(2 log 1/d) where the tilt is small (planning only)."""
        mean, sd = self._moments(0.0)
        gauss = max(min(mean + sd * math.sqrt(2 * math.log(1 / d)), self.top_loss()), 0.0)
        ld, top = math.log(d), self.top_loss()

        def excess(c: float) -> float:  # log delta(mean(c)) - log d, decreasing in c
            m, s_ = self._moments(c)
            s_ = max(s_, self._ell_min)
            return (self._log_mgf(c) - c * m
                    - math.log(s_ * math.sqrt(2 * math.pi) * c * (c + 1)) - ld)

        lo, hi = 1e-3, 1.0
        if excess(lo) < 0:
            return gauss
        while excess(hi) > 0 and self._moments(hi)[0] < top and hi < 1e6:
            lo, hi = hi, 2 * hi
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
        x = self._moments((lo + hi) / 2)[0]
        return min(max(x, 0.0), top) if math.isfinite(x) else gauss

    def epsilon(self, dn: float, up: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= eps(d) <= hi for every d in [dn, up] (0 < dn <= up < 1), eps(d) =
        inf{eps >= 0: delta(eps) <= d}, about rel_tol wide."""
        with working_precision(128):
            S = self._singular_ball()
            a_dn, a_up = arb(dn), arb(up)
            if S > a_up:  # delta > d at every eps (Prop. 6)
                return math.inf, math.inf
            if not S <= a_dn:
                return 0.0, math.inf
        lo_p, hi_p = 0.0, upper(arb(self.top_loss()) * (1 + arb(2) ** -40))  # proved ends
        d_mid = math.sqrt(dn * up)
        with working_precision(128):
            d_reg = float((arb(d_mid) - S).mid())  # the regular part's level
        x = self._guess(max(d_reg, 1e-300))
        c = T = prec = None
        for _ in range(4):  # the tilt re-planned at the root until it stays
            c, T, prec = self._plan(x, rel_tol)
            x = self._newton(max(d_reg, 1e-300), x, c, T, prec)
            if self.saddle(x) == c:
                break
        w = max(rel_tol / 4 * x, 1e-300)
        if x - w <= 0:  # (the crossing at or near 0: delta(0) <= d gives eps = 0)
            c0, T0, p0 = self._plan(0.0, rel_tol)
            if self._delta_ball(0.0, c0, T0, p0) <= a_dn:
                return 0.0, 0.0
        for attempt in range(8):
            if attempt and attempt % 3 == 0:
                T, prec = T + 4, prec + 32
            a, b = max(x - w, 0.0), x + w
            if a > lo_p and self._delta_ball(a, c, T, prec) > a_up:
                lo_p = a
            if b < hi_p and self._delta_ball(b, c, T, prec) <= a_dn:
                hi_p = b
            if hi_p - lo_p <= rel_tol * hi_p:
                break
            w *= 4
        return lo_p, hi_p


# -- the product of a plan's leaves ------------------------------------------------------------
_CACHE: dict = {}


def two_lattice_product(leaves) -> TwoLatticeProduct | None:
    """The product of ``leaves`` ((node, n), ...) as a :class:`TwoLatticeProduct` when every
    node has an exact finite loss whose parts are lattice pairs (``lattice_power.
    symbolic_lattice_pair``; f_{0,delta} parts too) and their ratios fall on exactly two
    lattices (bases not powers of one another, proved exactly where they are); else None."""
    if len(leaves) < 2:  # (one factor lies on one lattice: ``lattice_power``)
        return None
    key = tuple(leaves)
    if key not in _CACHE:
        try:
            out = _build(leaves)
        except (ArithmeticError, TypeError, ValueError):
            out = None
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = out
    return _CACHE[key]


def _build(leaves) -> TwoLatticeProduct | None:
    from ..core.errors import TradeOffError
    from .finite import finite_loss

    parts, trivial, singular = [], [], []  # parts: (base, ks, qs, multiplicity)
    for f, n in leaves:
        try:
            fl = None if f.free_symbols else finite_loss(f)
        except TradeOffError:
            return None
        if fl is None:
            return None
        for pairs, m in fl.leaves():
            a = sum((q for p, q in pairs if p == 0), sp.Integer(0))
            reg = [(p, q) for p, q in pairs if p != 0 and q != 0]
            if not reg:
                return None
            if len(reg) > MAX_ATOMS:  # (the lattice test compares every pair of ratios)
                return None
            if a != 0:
                singular.append((a, m * n))
            if all(p == q for p, q in reg):  # (f_{0,delta}: ratio 1 besides the singular atoms)
                trivial.append(([0], [sum((q for _, q in reg), sp.Integer(0))], m * n))
                continue
            lat = symbolic_lattice_pair([p for p, _ in reg], [q for _, q in reg])
            if lat is None:
                return None
            parts.append((lat[0], lat[1], lat[2], m * n))
    if not parts or sum(m for *_, m in parts) + sum(m for *_, m in trivial) > MAX_FACTORS:
        return None
    groups = commensurate_groups(parts)
    if len(groups) != 2:
        return None
    groups[0][2].extend(trivial)
    return TwoLatticeProduct([TiltedLatticeProduct(b, fs) for b, _, fs in groups], singular)


def two_lattice_enclosure(tp: TwoLatticeProduct, arg, kind: str, tol: float) -> CertifiedPair:
    """delta(eps) (``kind`` "delta", eps an mpf >= 0) or eps(delta) of the product, certified,
    about ``tol`` wide (relative), as a :class:`~.value.CertifiedPair` of mpfs."""
    from .context import mp

    v = float(arg)
    dn = up = v
    if mp.mpf(v) != arg:  # the floats around the mpf
        dn, up = (math.nextafter(v, -math.inf), v) if mp.mpf(v) > arg else \
            (v, math.nextafter(v, math.inf))
    if kind == "delta":  # (delta is non-increasing: the float bracket of eps)
        if arg == mp.inf:
            with working_precision(128):
                s = tp._singular_ball()
            return CertifiedPair(mp.mpf(max(lower(s), 0.0)), mp.mpf(min(upper(s), 1.0)))
        lo, hi = tp.delta(up, tol) if up == dn else (tp.delta(up, tol)[0], tp.delta(dn, tol)[1])
    else:
        lo, hi = tp.epsilon(dn, up, tol)
    return CertifiedPair(mp.mpf(lo), mp.mpf(hi))
