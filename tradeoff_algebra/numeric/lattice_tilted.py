"""Certified privacy profiles of a finite lattice pair composed n times at large n: the tilted
fixed-point power of ``numeric.lattice_product`` with a loss unit l = log R that is any real
number held as an Arb ball (randomized response with e^eps = 3: l = log 3 is irrational, so the
exact rational lattice of ``lattice_product`` does not apply).

The pair's outcomes have likelihood ratios R^{k}, k in [kmin, kmax], Q-masses q_k (exact
rationals or SymPy closed forms, as balls). A product of several such pairs with the one ratio R
(``TiltedLatticeProduct``: RR(log 3, 5) next to f_{log 3, delta}) multiplies their powers'
windows; a pair's Q-mass a where P = 0 is kept out of the q_k (a sub-probability) and adds
S = 1 - prod (1 - a_i)^{n_i} to delta (the product's Q-mass where P = 0, Eq. (11)), while its
P-mass where Q = 0 never enters delta (Prop. 6 sums over the outcomes with Q > e^eps P).

The product's loss is l d, d = sum of the k's, its Q-law Q(d) the coefficients of (sum_k q_k
x^k)^n (Dong, Roth & Su, Def. 5), its P-law Q(d) e^{-l d}, and its profile (Prop. 6)

    delta(eps) = sum_{l d > eps} Q(d) (1 - e^{eps - l d}).                                  (1)

``numeric.lattice_power.LatticePower`` forms that power in Arb over the whole table of n
(kmax - kmin) + 1 points, whose coefficients span hundreds of orders of magnitude: the cost is
quadratic (61 s at n = 10^5 for RR(log 3, 5)). Here, as in ``lattice_product``:

**Tilt.** For c >= 0 the tilted masses t_k = q_k e^{c l k} have the n-fold product T(d) =
Q(d) e^{c l d}, total M(c)^n, M(c) = sum_k t_k. With c at the saddle point (tilted mean of the
loss at eps) T is a bell of width ~ sqrt(n) centred at eps / l.

**Fixed point, windows, floors.** The leaf holds integers I_k <= 2^prec t_k / lambda (the floor
of the lower end of an Arb ball; lambda an exact dyadic within 2^-52 of M(c), so (M/lambda)^n
stays near 1); binary powering multiplies ``fmpz_poly`` nodes, cuts each product to mean +- T sd
of its tilted law and floors it back to the fixed point (``LatticeProduct._mul``). Every step
keeps non-negative lower bounds, so the root's integers satisfy Rt(d) 2^-prec lambda^n <= T(d).

**Certificate.** Over the root, (1) is a lower bound of delta, A - e^eps B with A =
lambda^n 2^-prec sum_{d >= m} Rt(d) e^{-c l d}, B the same with e^{-(c + 1) l d}, m the first d
with l d > eps. What was dropped (windows, floors) has total tilted mass X = M(c)^n -
lambda^n 2^-prec sum_d Rt(d) >= 0 (an Arb ball; sum_d Rt(d) an exact integer), and since
(1 - e^{eps - x})_+ <= e^{c (x - eps)} for c >= 0, it adds at most e^{-c eps} X to delta. So

    A - e^eps B <= delta(eps) <= A - e^eps B + e^{-c eps} X,

proved in Arb whatever the plan (windows, precision, tilt) was; the plan only makes the gap
small. eps(delta) bisects the lattice points m l (each decision proved), then on the segment
[(m - 1) l, m l] solves A - e^eps B (+ e^{-c (m - 1) l} X) = delta for eps at both ends.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp
from flint import arb, arb_poly, fmpz, fmpz_poly

from ..core.errors import NumericalError
from . import budget
from .arb_expr import arb_ball
from .cf_laws import lower, to_arb, upper, working_precision
from .lattice_product import LatticeProduct, _Node, arb_of

__all__ = ["TiltedLatticeProduct", "TiltedLatticePower"]

#: The most lattice points kept in a window (beyond, the product is refused).
MAX_WINDOW = 4_000_000


def _ball(x) -> arb:
    """A ball of the exact value of a rational or of a SymPy closed form (current precision)."""
    return to_arb(x) if isinstance(x, (Fraction, int)) else arb_ball(sp.S(x))


class _Factor:
    """One pair of the product: exponents k with their Q-masses (balls of exact values), the
    float logs of the masses for planning, and its multiplicity n."""

    def __init__(self, ks: list[int], qs: list, n: int) -> None:
        mass: dict[int, list] = {}
        for k, q in zip(ks, qs, strict=True):
            mass.setdefault(int(k), []).append(q)
        self.ks, self.mass, self.n = sorted(mass), mass, int(n)
        self.kmin, self.kmax = self.ks[0], self.ks[-1]
        with working_precision(128):
            self.lq = {k: math.log(float(self.q(k).mid())) for k in self.ks}

    def q(self, k: int) -> arb:
        return sum((_ball(q) for q in self.mass[k]), arb(0))

    def moments(self, c: float, ell: float) -> tuple[float, float, float]:
        """(log M(c), tilted mean of k, tilted variance of k), floats."""
        e = [self.lq[k] + c * ell * k for k in self.ks]
        top = max(e)
        w = [math.exp(x - top) for x in e]
        s = sum(w)
        mean = sum(wi * k for wi, k in zip(w, self.ks, strict=True)) / s
        var = max(sum(wi * k * k for wi, k in zip(w, self.ks, strict=True)) / s - mean**2, 0.0)
        return top + math.log(s), mean, var


def singular_ball(singular) -> arb:
    """S = 1 - prod (1 - a)^m over the singular atoms (a, m) (Eq. (11) of Dong, Roth & Su) at
    the working precision."""
    keep = arb(1)
    for a, m in singular:
        keep *= _ball(1 - a) ** m
    return 1 - keep


class TiltedLatticeProduct:
    """delta and eps of the product of lattice pairs with one ratio R (each factor: exponents
    ks, Q-masses qs, multiplicity n; the Q-law of d is the product of their powers; see the
    module), as certified float enclosures."""

    def __init__(self, ratio, factors: list[tuple[list[int], list, int]],
                 singular: list[tuple] = ()) -> None:
        self.ratio = ratio
        #: (a, m): factors with Q-mass a where P = 0, m times: delta gains S = 1 - prod (1 -
        #: a)^m (their other masses, a sub-probability, are the factors' qs; P-mass where
        #: Q = 0 never enters delta)
        self.singular = [(a, int(m)) for a, m in singular if a != 0 and int(m) > 0]
        self.factors = [_Factor(ks, qs, n) for ks, qs, n in factors if int(n) > 0]
        if not self.factors:
            raise ValueError("a lattice product needs at least one factor with n >= 1")
        self.count = sum(f.n for f in self.factors)
        #: The largest lattice index n_1 kmax_1 + ...: delta vanishes from top l on.
        self.top = sum(f.n * f.kmax for f in self.factors)
        with working_precision(128):
            self._ell = float(_ball(ratio).log().mid())
        self._roots: dict = {}

    def _singular_ball(self) -> arb:
        return singular_ball(self.singular)

    # -- planning (floats) -------------------------------------------------------------------
    def _moments(self, c: float) -> tuple[float, float]:
        """(tilted mean of d, its sd), floats."""
        mean = var = 0.0
        for f in self.factors:
            _, m, v = f.moments(c, self._ell)
            mean, var = mean + f.n * m, var + f.n * v
        return mean, math.sqrt(var)

    def top_loss(self) -> float:
        """top l (float): delta vanishes from there on."""
        return self.top * self._ell

    def saddle(self, eps: float) -> float:
        """The tilt c >= 0 whose tilted mean loss l E_c[d] is eps (0 below the mean; eps kept
        half a lattice step below the largest loss), on a dyadic grid fine enough that the
        rounding moves the tilted mean by at most 1/32 of its sd (Var_c(L) dc <= sd/32: a
        grid of 1/64 moved it by 24 sd at n = 10^7, out of the window), coarse enough that
        nearby eps share one root."""
        eps = min(eps, self.top_loss() - self._ell / 2)

        def mean(c: float) -> float:
            return self._ell * self._moments(c)[0]

        if mean(0.0) >= eps:
            return 0.0
        lo, hi = 0.0, 1.0
        while mean(hi) < eps and hi < 1e6:
            lo, hi = hi, 2 * hi
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mean(mid) < eps else (lo, mid)
        sd_l = max(self._moments(hi)[1] * self._ell, self._ell)
        grid = 2.0 ** (math.ceil(math.log2(32 * sd_l)))
        return round(hi * grid) / grid

    def _plan(self, eps: float, rel_tol: float) -> tuple[float, float, int]:
        """(c, T, prec): the saddle tilt, a window of T sd and a fixed point of prec bits that
        make the certificate's gap a small fraction of rel_tol delta (planning; the bound
        certifies). delta e^{c eps}/M(c)^n is about 1/(sd_L sqrt(2 pi) c (c + 1)) at the
        saddle (the tilted law of L near eps is flat over 1/c), at least 1e-3 at c = 0."""
        c = self.saddle(eps)
        sd = self._moments(c)[1]
        sd_l = max(sd * self._ell, self._ell)
        gap = 1e-3 if c == 0 else min(1.0, 1 / (sd_l * math.sqrt(2 * math.pi) * c * (c + 1)))
        target = rel_tol * gap * 1e-3
        nodes = sum(2 * f.n.bit_length() + 4 for f in self.factors)
        T = math.sqrt(2 * math.log(4 * nodes / target))
        window = 2 * T * max(sd, 0.5) + sum(f.kmax - f.kmin + 1 for f in self.factors)
        prec = int(math.log2(window * nodes / target)) + 16
        return c, T, prec

    # -- the root ----------------------------------------------------------------------------
    def root(self, c: float, T: float, prec: int):
        """(lo, Rt as fmpz_poly, Lambda = prod lambda_i^{n_i}, prod M_i(c)^{n_i} as balls at
        prec + 64 bits), cached: Rt(lo + j) the j-th coefficient (see the module)."""
        key = (c, T, prec)
        if key in self._roots:
            return self._roots[key]
        one = fmpz(2) ** prec
        node = None
        with working_precision(prec + 64):
            cc, ell = to_arb(Fraction(c)), _ball(self.ratio).log()
            lam, m = arb(1), arb(1)
            for f in self.factors:
                logm, mean, var = f.moments(c, self._ell)
                log2m = logm / math.log(2)
                whole = math.floor(log2m)
                scale = (Fraction(round(2.0 ** (log2m - whole) * 2**52))
                         * Fraction(2) ** (whole - 52))
                factor = arb(2) ** prec / to_arb(scale)
                ints = []
                for k in range(f.kmin, f.kmax + 1):
                    if k not in f.mass:
                        ints.append(0)
                        continue
                    v = (f.q(k) * (cc * ell * k).exp() * factor).lower()
                    ints.append(int(v.floor().unique_fmpz()) if v > 0 else 0)
                leaf = _Node(f.kmin, 1, fmpz_poly(ints), mean, var, True)
                part = self._power(leaf, f.n, T, one)
                node = part if node is None else LatticeProduct._mul(node, part, T, one)
                lam *= to_arb(scale) ** f.n
                m *= sum((f.q(k) * (cc * ell * k).exp() for k in f.ks), arb(0)) ** f.n
        out = (node.lo, node.poly, lam, m)
        if len(self._roots) > 2:
            self._roots.clear()
        self._roots[key] = out
        return out

    @staticmethod
    def _power(leaf: _Node, n: int, T: float, one: fmpz) -> _Node:
        out, base = None, leaf
        while True:
            budget.check()
            if n & 1:
                out = base if out is None else LatticeProduct._mul(out, base, T, one)
            n >>= 1
            if not n:
                return out
            base = LatticeProduct._mul(base, base, T, one)
            if base.size > MAX_WINDOW:
                raise NumericalError(f"lattice power: a window of {base.size} points (at most "
                                     f"MAX_WINDOW = {MAX_WINDOW})")

    def _sums(self, first: int, c: float, T: float, prec: int) -> tuple[arb, arb, arb]:
        """(A, B, X) for the d >= ``first`` (module docstring), at the caller's precision."""
        lo, R, lam, m = self.root(c, T, prec)
        scale = lam / arb(2) ** prec
        X = m - scale * arb_of(int(R(1)))
        k = first - lo
        if k >= R.length():
            return arb(0), arb(0), X
        P = arb_poly(R.right_shift(k) if k > 0 else R)
        s0 = lo + max(k, 0)
        cc, ell = to_arb(Fraction(c)), _ball(self.ratio).log()
        A = scale * (-cc * ell * s0).exp() * P((-cc * ell).exp())
        B = scale * (-(cc + 1) * ell * s0).exp() * P((-(cc + 1) * ell).exp())
        return A, B, X

    def _at(self, m: int, c: float, T: float, prec: int) -> arb:
        """A ball of delta(m l), m an integer: A - e^{m l} B over the d >= m + 1, plus [0,
        e^{-c m l} X]."""
        ell = _ball(self.ratio).log()
        S = self._singular_ball()
        if m >= self.top:
            return S
        A, B, X = self._sums(m + 1, c, T, prec)
        main = S + A - (m * ell).exp() * B
        add = ((-to_arb(Fraction(c)) * m * ell).exp() * X).upper()
        return main.union(main + add) if add > 0 else main

    # -- delta -------------------------------------------------------------------------------
    def _delta_ball(self, eps: float, c: float, T: float, prec: int) -> arb:
        """delta(eps) for the eps >= 0 given: the union over the segments [(m - 1) l, m l]
        that the ball of l cannot rule out (delta is continuous, so they agree there)."""
        with working_precision(prec + 64):
            e, ell = arb(eps), _ball(self.ratio).log()
            S = self._singular_ball()
            if e >= self.top * ell:
                return S
            m0 = math.floor(eps / self._ell) + 1
            add_c = to_arb(Fraction(c))
            out = None
            for mm in (m0 - 1, m0, m0 + 1):
                if (mm - 1) * ell > e or e > mm * ell:
                    continue
                A, B, X = self._sums(mm, c, T, prec)
                v = S + A - e.exp() * B
                add = ((-add_c * e).exp() * X).upper()
                v = v.union(v + add) if add > 0 else v
                out = v if out is None else out.union(v)
            return out

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
    def _guess(self, d: float) -> float:
        """A Gaussian start for eps(d): mean + sd sqrt(2 log 1/d) of the loss."""
        mean, sd = self._moments(0.0)
        with working_precision(64):
            d = max(d - float(self._singular_ball().mid()), d * 1e-3)  # (the regular part's)
        g = self._ell * (mean + sd * math.sqrt(2 * math.log(1 / d)))
        return max(min(g, self.top_loss() - self._ell / 2), self._ell / 2)

    def epsilon(self, dn: float, up: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= eps(d) <= hi for every d in [dn, up] (0 < dn <= up < 1), eps(d) =
        inf{eps >= 0: delta(eps) <= d}; the tilt is re-centred on the first answer."""
        guess = self._guess(dn)
        best = None
        for attempt in range(4):
            c, T, prec = self._plan(guess, rel_tol)
            if attempt >= 2:
                T, prec = T + 4 * (attempt - 1), prec + 32 * (attempt - 1)
            with working_precision(prec + 64):
                lo, hi = self._bisect(dn, up, guess, c, T, prec)
            if math.isinf(hi):  # (eps = oo, or d at the singular mass)
                return lo, hi
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            if hi - lo <= rel_tol * hi:
                break
            if math.isfinite(hi) and hi > 0 and hi - lo < 0.5 * hi:
                guess = (lo + hi) / 2
        return best

    def _bisect(self, dn: float, up: float, guess: float, c: float, T: float, prec: int
                ) -> tuple[float, float]:
        ell = _ball(self.ratio).log()
        a_dn, a_up = arb(dn), arb(up)

        def above(m: int) -> bool | None:  # delta(m l) > up (True), <= dn (False), else None
            budget.check()
            b = self._at(m, c, T, prec)
            return True if b > a_up else False if b <= a_dn else None

        if above(0) is False:
            return 0.0, 0.0
        S = self._singular_ball()
        if S > a_up:  # delta > d at every eps (Prop. 6): eps = oo
            return math.inf, math.inf
        if not S <= a_dn:  # (d at the singular mass within the balls: no finite bound)
            return 0.0, math.inf
        top = self.top  # delta(top l) = S <= dn
        m0 = min(max(math.floor(guess / self._ell) + 1, 1), top)
        lo_m, hi_m = 0, top  # above(lo_m) True or lo_m = 0; above(hi_m) False
        step, m = 1, m0
        while m < top:  # outward from the guess: the certificate is tight near the tilt
            r = above(m)
            if r is False:
                hi_m = m
                break
            if r:
                lo_m = m
            m, step = min(m + step, top), 2 * step
        step, m = 1, min(m0, hi_m) - 1
        while lo_m == 0 and m > 0:
            r = above(m)
            if r:
                lo_m = m
            elif r is False:
                hi_m = m
            m, step = m - step, 2 * step
        undecided = False
        while hi_m - lo_m > 1:
            mid = (lo_m + hi_m) // 2
            r = above(mid)
            if r is None:  # bisect the undecided point's sides apart
                undecided = True
                break
            lo_m, hi_m = (mid, hi_m) if r else (lo_m, mid)
        if undecided:
            return max(lower(lo_m * ell), 0.0), upper(hi_m * ell)
        m = hi_m  # delta((m - 1) l) > up (or m - 1 = 0), delta(m l) <= dn
        seg_lo, seg_hi = (m - 1) * ell, m * ell
        A, B, X = self._sums(m, c, T, prec)
        A = A + S  # delta = S + A - e^eps B + [0, e^{-c eps} X] on the segment
        extra = ((-to_arb(Fraction(c)) * seg_lo).exp() * X).upper() if m > 1 else X.upper()
        lo = max(lower(seg_lo), 0.0) if lo_m > 0 else 0.0
        if B > 0 and A > a_up:  # delta(eps) > up below log((A - up)/B) on the segment
            x = ((A - a_up) / B).log()
            if x >= seg_lo:
                lo = max(lo, min(lower(x), lower(seg_hi)))
        hi = upper(seg_hi)
        if B > 0 and A + extra > a_dn:  # delta(eps) <= dn from log((A + extra - dn)/B) on
            x = ((A + extra - a_dn) / B).log()
            hi = min(hi, max(upper(x), lower(seg_lo)))
        return max(lo, 0.0), max(hi, lo)


class TiltedLatticePower(TiltedLatticeProduct):
    """The n-fold product of one lattice pair (ratio R > 1, exponents ks, Q-masses qs)."""

    def __init__(self, ratio, ks: list[int], qs: list, n: int) -> None:
        super().__init__(ratio, [(list(ks), list(qs), int(n))])
        self.n = int(n)
