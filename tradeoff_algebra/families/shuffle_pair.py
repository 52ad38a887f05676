"""The shuffle pair of :mod:`.shuffle` as numbers: its exact atoms (small n), the Arb tables of
the kept window with the dropped mass bounded by Chernoff bounds, and the float64 atoms of the
PLD engine and the curve. See :mod:`.shuffle` for the pair in closed form and the argument
behind the windows (Wang, Su, Ye, Shokri & Su, Sec. 4.1; Feldman, McMillan & Talwar).
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import from_man_exp, round_floor

from ..core.validate import param
from ..numeric import budget
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp

#: Dropped mass of the float64 paths (curve, PLD loss model): below anything float64 resolves
#: next to the PLD engine's own tail allowance of 1e-20.
FLOAT_TAU = 1e-40
#: Largest number of points of an Arb table: past it the dropped mass is not shrunk further and
#: the result is the (guaranteed, wider) enclosure [h, h + tau].
MAX_POINTS = 2_000_000
#: Largest n of the numeric routes (the windows are found in float64).
MAX_N = 10**12


# -- the pair itself (exact; small n) -----------------------------------------------------------
def _exact_e(eps0: sp.Expr) -> tuple[int, int] | None:
    """(p, q) with e^eps0 = p/q, or None when e^eps0 is not rational."""
    E = sp.exp(eps0)
    return (int(E.p), int(E.q)) if isinstance(E, sp.Rational) else None


def shuffle_pair(eps0: Any, n: int) -> tuple[list, list, list]:
    """The exact pair (points, P, Q) of the shuffle model (module docstring), as SymPy numbers.

    ``points`` are the ``(a, b)`` with ``1 <= a + b <= n``; the masses are exact rationals when
    e^eps0 is rational, else expressions in ``exp(eps0)``. For tests and small n.
    """
    eps0 = param("eps0", eps0, lower=0, owner="shuffle_pair")
    E = sp.exp(eps0)
    theta = 2 / (E + 1)
    pts, P, Q = [], [], []
    for s in range(1, n + 1):
        Bs = sp.binomial(n, s) * theta**s * (1 - theta) ** (n - s) / n
        for a in range(s + 1):
            b = s - a
            K = Bs * sp.binomial(s, a) / sp.Integer(2) ** s
            pts.append((a, b))
            P.append(sp.simplify((E * a + b) * K) if not E.is_Rational else (E * a + b) * K)
            Q.append(sp.simplify((E * b + a) * K) if not E.is_Rational else (E * b + a) * K)
    return pts, P, Q


def shuffle_pair0(eps0: Any, n: int) -> tuple[list, list, list]:
    """Wang et al.'s (P0, Q0) literally: P0 = law of (A+1, C-A), Q0 = law of (A, C-A+1),
    A ~ Binom(C, 1/2), C ~ Binom(n-1, 2/(e^eps0+1)); returns (points, P0, Q0) on the union of
    the supports (exact SymPy numbers). For tests and small n."""
    eps0 = param("eps0", eps0, lower=0, owner="shuffle_pair0")
    theta = 2 / (sp.exp(eps0) + 1)
    P0: dict = {}
    Q0: dict = {}
    for c in range(n):
        wc = sp.binomial(n - 1, c) * theta**c * (1 - theta) ** (n - 1 - c)
        for A in range(c + 1):
            m = wc * sp.binomial(c, A) / sp.Integer(2) ** c
            P0[(A + 1, c - A)] = P0.get((A + 1, c - A), 0) + m
            Q0[(A, c - A + 1)] = Q0.get((A, c - A + 1), 0) + m
    pts = sorted(set(P0) | set(Q0))
    return pts, [sp.S(P0.get(k, 0)) for k in pts], [sp.S(Q0.get(k, 0)) for k in pts]


def _group_sums(eps0: sp.Expr, n: int) -> tuple[dict, Any]:
    """({(alpha, beta): S}, scale): the points grouped by the reduced fraction b/a, with
    ``M = scale * S = sum g B_n(s) b_s(a)/n`` over the points (g alpha, g beta). When
    ``e^eps0 = p/q`` is rational, ``B_n(s) b_s(a)/n = C(n, s) C(s, a) q^s (p - q)^{n-s}/(n (p +
    q)^n)``: S is an integer sum of ``g C(n, s) C(s, a) q^{s-1} (p - q)^{n-s}`` and ``scale =
    q/(n (p + q)^n)``; otherwise S is a SymPy sum in ``exp(eps0)`` and ``scale = 1``."""
    pq = _exact_e(eps0)
    groups: dict[tuple[int, int], Any] = {}
    if pq is not None:  # integers over the common denominator n q (p + q)^n
        p, q = pq
        for s in range(1, n + 1):
            cs = math.comb(n, s) * q ** (s - 1) * (p - q) ** (n - s)
            for a in range(s + 1):
                b = s - a
                g = math.gcd(a, b)
                key = (a // g, b // g)
                groups[key] = groups.get(key, 0) + g * cs * math.comb(s, a)
        return groups, sp.Rational(q, n * (p + q) ** n)
    E = sp.exp(eps0)
    theta = 2 / (E + 1)
    for s in range(1, n + 1):
        Bs = sp.binomial(n, s) * theta**s * (1 - theta) ** (n - s) / n / sp.Integer(2) ** s
        for a in range(s + 1):
            b = s - a
            g = math.gcd(a, b)
            key = (a // g, b // g)
            groups[key] = groups.get(key, 0) + g * math.comb(s, a) * Bs
    return groups, sp.S.One


def _grouped_atoms(eps0: sp.Expr, n: int) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
    """Exact atoms (ratio, P, Q) of the pair, one per reduced fraction b/a (module docstring):
    a point (k alpha, k beta) has ``P = k (E alpha + beta) B_n(s) b_s(a)/n``, so each atom is
    ``(E alpha + beta) M`` and ``(E beta + alpha) M`` with ``M`` a sum over its points."""
    groups, scale = _group_sums(eps0, n)
    pq = _exact_e(eps0)
    if pq is not None:
        p, q = pq
        return [(sp.Rational(p * be + q * al, p * al + q * be),
                 sp.Rational(p * al + q * be, q) * M * scale,
                 sp.Rational(p * be + q * al, q) * M * scale) for (al, be), M in groups.items()]
    E = sp.exp(eps0)
    return [((E * be + al) / (E * al + be), (E * al + be) * M, (E * be + al) * M)
            for (al, be), M in groups.items()]


def _wang_atoms(eps0: sp.Expr, n: int) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
    """Exact atoms (ratio, P, Q) of C(f_Shuffle) (module docstring): the fractions
    beta/alpha > 1 with the f_Shuffle masses ``P0 = (E + 1) alpha M`` and ``R = (2 alpha +
    (E - 1) beta) M`` (ratio +oo for alpha = 0), their mirror images (masses exchanged) and one
    atom of ratio 1 with the rest (Dong, Roth & Su, Eq. (13))."""
    groups, scale = _group_sums(eps0, n)
    pq = _exact_e(eps0)
    if pq is not None:  # E = p/q: P0 = (p + q) alpha M/q, R = (2 q alpha + (p - q) beta) M/q
        p, q = pq
        E1, Em, two = sp.Rational(p + q, q), sp.Rational(p - q, q), sp.Integer(2)
    else:
        E = sp.exp(eps0)
        E1, Em, two = E + 1, E - 1, sp.Integer(2)
    out = []
    sP0 = sR = sp.S.Zero
    for (al, be), M in groups.items():
        if be <= al:
            continue
        P0 = E1 * al * M * scale
        R = (two * al + Em * be) * M * scale
        ratio = sp.S.Infinity if al == 0 else (two * al + Em * be) / (E1 * al)
        out.append((ratio, P0, R))
        out.append((sp.S.Zero if al == 0 else 1 / ratio, R, P0))
        sP0, sR = sP0 + P0, sR + R
    zero = 1 - sP0 - sR
    if pq is None:
        zero = sp.factor(sp.cancel(zero))
    if zero != 0:
        out.append((sp.S.One, zero, zero))
    return out


# -- windows and Chernoff bounds ----------------------------------------------------------------
def _numeric(f: Any) -> tuple[sp.Expr, int]:
    from ..core.errors import InvalidParameter

    if f.free_symbols or not isinstance(f.n, sp.Integer):
        raise InvalidParameter("ShuffleDP", f, "numeric eps0 and n",
                               hint="substitute numbers for the symbols before evaluating")
    return f.eps0, int(f.n)


def _kl(x: np.ndarray, t: float) -> np.ndarray:
    """KL(Bern(x) || Bern(t)), vectorised, float64."""
    from scipy.special import xlogy

    with np.errstate(divide="ignore", invalid="ignore"):
        return xlogy(x, x / t) + xlogy(1 - x, (1 - x) / (1 - t))


def _kl1(x: float, t: float) -> float:
    """KL(Bern(x) || Bern(t)), float64 (0 <= x <= 1, 0 < t < 1)."""
    out = 0.0
    if x > 0:
        out += x * math.log(x / t)
    if x < 1:
        out += (1 - x) * math.log((1 - x) / (1 - t))
    return out


def _slices(e0: float, n: int, log_tau: float) -> tuple[int, int]:
    """(s_lo, s_hi): the kept slices s = a + b, where ``n KL(s/n || theta)`` stays below the
    dropped-mass target (found by bisection on each side of the mode: no O(n) array)."""
    t = 2.0 / (math.exp(e0) + 1.0) if e0 < 700 else 0.0
    if t <= 0.0 or t >= 1.0:  # eps0 = 0: every mass in slice n; eps0 huge: slice 1
        s = n if t >= 1.0 else 1
        return s, s
    need = -log_tau + math.log(2.0) + math.log1p(math.exp(min(e0, 700.0)))

    def big(k: int) -> bool:
        return n * _kl1(k / n, t) >= need

    mode = n * t
    k0 = min(max(math.ceil(mode), 0), n)
    if not big(n):
        s_hi = n
    else:  # the smallest k >= mode with big(k), minus 1
        lo, hi = k0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if big(mid):
                hi = mid
            else:
                lo = mid + 1
        s_hi = lo - 1
    k1 = min(max(math.floor(mode), 0), n)
    if not big(0):
        s_lo = 1
    else:  # the largest k <= mode with big(k), plus 1
        lo, hi = 0, k1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if big(mid):
                lo = mid
            else:
                hi = mid - 1
        s_lo = max(lo + 1, 1)
    return s_lo, max(s_hi, s_lo)


@lru_cache(maxsize=32)
def _window(e0: float, n: int, log_tau: float) -> tuple[int, int, np.ndarray]:
    """(s_lo, s_hi, a_hi) of the kept points: slices s_lo..s_hi (s = a + b) and, in slice s,
    ``s - a_hi[s - s_lo] <= a <= a_hi[s - s_lo]``. Chosen so that each dropped mass of P and Q
    is at most about ``tau = e^log_tau`` (a choice only: the rigorous bound is computed with the
    kept window, see :func:`_dropped`)."""
    t = 2.0 / (math.exp(e0) + 1.0) if e0 < 700 else 0.0
    logE = e0
    s_lo, s_hi = _slices(e0, n, log_tau)
    s = np.arange(s_lo, s_hi + 1, dtype=np.float64)
    # in slice s the dropped mass is weighted by B_n(s): the window narrows away from the mode
    if 0.0 < t < 1.0:
        from scipy.special import gammaln

        logB = (gammaln(n + 1.0) - gammaln(s + 1.0) - gammaln(n - s + 1.0) + s * math.log(t)
                + (n - s) * math.log1p(-t))
    else:
        logB = np.zeros_like(s)
    need_a = -log_tau + math.log(4.0) + logE + math.log(len(s)) + np.minimum(logB, 0.0)
    h = np.sqrt(s * np.maximum(need_a, 1.0) / 2.0)  # Hoeffding: P(A >= s/2 + h) <= e^{-2h^2/s}
    a_hi = np.minimum(np.ceil(s / 2.0 + h) - 1.0, s).astype(np.int64)
    return s_lo, s_hi, a_hi


def _arb_kl(x, t):
    """KL(Bern(x) || Bern(t)) in Arb (0 <= x <= 1, 0 < t < 1)."""
    from flint import arb

    out = arb(0)
    if x > 0:
        out += x * (x / t).log()
    if x < 1:
        out += (1 - x) * ((1 - x) / (1 - t)).log()
    return out


def _slice_masses(E, n: int, s_lo: int, s_hi: int):
    """(s, B_n(s)) for s = s_lo..s_hi: the Binom(n, theta) masses of the kept slices, theta =
    2/(E + 1) (``E = e^eps0`` an arb, E > 1), the first from log-gamma, each next one by the
    recurrence ``B_n(s) = B_n(s - 1) (n - s + 1)/s theta/(1 - theta)``; the time limit is checked
    every 256 slices. The one slice walk of the profile (:mod:`.shuffle_profile`), the power
    at one level (:mod:`.shuffle_roc`) and the whole curve (:mod:`.shuffle_curve`); Arb
    carries every rounding at the current precision."""
    from flint import arb

    if s_lo > s_hi:
        return
    theta = 2 / (E + 1)
    lt, l1t = theta.log(), (1 - theta).log()
    B = (arb(n + 1).lgamma() - arb(s_lo + 1).lgamma() - arb(n - s_lo + 1).lgamma()
         + s_lo * lt + (n - s_lo) * l1t).exp()
    ratio = theta / (1 - theta)
    yield s_lo, B
    for s in range(s_lo + 1, s_hi + 1):
        if (s - s_lo) & 255 == 0:
            budget.check()
        B = B * (n - s + 1) / s * ratio
        yield s, B


def _outside_slices(E, n: int, s_lo: int, s_hi: int):
    """An upper bound (an arb) of ``P(Binom(n, theta) outside [s_lo, s_hi])``, theta = 2/(E +
    1): the Chernoff bounds ``P(S >= k) <= exp(-n KL(k/n || theta))`` for k >= n theta and
    ``P(S <= k) <= exp(-n KL(k/n || theta))`` for k <= n theta, each side 1 where its bound
    does not apply (slice 0 carries no mass: s_lo = 1 drops nothing below)."""
    from flint import arb

    theta = 2 / (E + 1)
    tail = arb(0)
    if s_hi < n:
        x = arb(s_hi + 1) / n
        tail += (-n * _arb_kl(x, theta)).exp() if x >= theta else arb(1)
    if s_lo > 1:
        x = arb(s_lo - 1) / n
        tail += (-n * _arb_kl(x, theta)).exp() if x <= theta else arb(1)
    return tail


class _Table:
    """The kept atoms of the pair in Arb (see the module docstring).

    ``al, be``: the reduced fractions ``b/a`` of the atoms, by decreasing ratio; ``key``:
    their float64 values ``be/al`` (``inf`` for ``al = 0``), distinct for n < 10^7;
    ``Ppre, Qpre``: prefix sums of the kept P- and Q-masses (Arb, length m + 1); ``Pmid``:
    midpoints of ``Ppre`` as mpf (for searching); ``E``: e^eps0; ``tau``: an upper bound on the
    dropped mass of each of P and Q (Arb, exact).
    """

    def __init__(self, eps0: sp.Expr, n: int, prec: int, tau_bits: int, wang: bool = False):
        from flint import arb

        with arb_precision(prec):
            self.E = E = arb_ball(sp.exp(eps0))
            e0 = float(eps0)
            s_lo, s_hi, a_hi = _window(e0, n, -tau_bits * math.log(2.0))
            if e0 == 0:
                theta = None
            else:
                theta = 2 / (E + 1)
                lt, l1t = theta.log(), ((E - 1) / (E + 1)).log()
            amass: dict[tuple[int, int], Any] = {}
            tau_in = arb(0)
            B = None
            two = arb(2)
            log2 = two.log()
            for s in range(s_lo, s_hi + 1):
                if (s - s_lo) & 63 == 63:
                    budget.check()
                if theta is None:
                    B = arb(1)
                elif B is None:
                    B = (arb(n + 1).lgamma() - arb(s + 1).lgamma() - arb(n - s + 1).lgamma()
                         + s * lt + (n - s) * l1t).exp()
                else:  # B_n(s) from B_n(s - 1)
                    B = B * (n - s + 1) / s * theta / (1 - theta)
                hi = int(a_hi[s - s_lo])
                lo = s - hi
                Bn = B / n
                bs = (arb(s + 1).lgamma() - arb(lo + 1).lgamma() - arb(s - lo + 1).lgamma()
                      - s * log2).exp()
                for a in range(lo, hi + 1):
                    b = s - a
                    g = math.gcd(a, b)
                    key = (a // g, b // g)
                    m = Bn * bs * g
                    cur = amass.get(key)
                    amass[key] = m if cur is None else cur + m
                    bs = bs * b / (a + 1)
                if hi < s:  # Chernoff bound of each tail of Binom(s, 1/2) beyond the window
                    tail = (-s * _arb_kl(arb(hi + 1) / s, arb(1) / 2)).exp()
                    tau_in += 2 * E * s * B / n * tail
            tau_sl = arb(0)
            if theta is not None:
                tau_sl = _outside_slices(E, n, s_lo, s_hi) * ((E + 1) / 2)
            self.tau = (tau_in + tau_sl).upper()
            self.E = E
            if wang:
                self._layout_wang(amass, E)
            else:
                self._layout_exact(amass, E)
        self._mids: tuple | None = None

    def _midpoints(self) -> tuple[list, list]:
        """The midpoints of Ppre and Qpre as 64-bit mpf (for searching; built on first use:
        delta needs none)."""
        if self._mids is None:
            mk = mp.make_mpf

            def conv(x):
                man, exp = x.mid().man_exp()
                return mk(from_man_exp(int(man), int(exp), 64, round_floor))

            self._mids = ([conv(x) for x in self.Ppre], [conv(x) for x in self.Qpre])
        return self._mids

    @property
    def Pmid(self) -> list:
        return self._midpoints()[0]

    @property
    def Qmid(self) -> list:
        return self._midpoints()[1]

    def _layout_exact(self, amass: dict, E) -> None:
        """T(P, Q): every atom, by decreasing b/a, P = (E a + b) M, Q = (E b + a) M."""
        from flint import arb

        keys = list(amass)
        fl = np.array([k[1] / k[0] if k[0] else math.inf for k in keys])
        order = np.argsort(-fl, kind="stable")
        self.al = np.array([keys[i][0] for i in order], dtype=np.int64)
        self.be = np.array([keys[i][1] for i in order], dtype=np.int64)
        self.key = fl[order]
        self.negkey = -self.key
        m = len(keys)
        Ppre, Qpre = [arb(0)] * (m + 1), [arb(0)] * (m + 1)
        P = Q = arb(0)
        for j, i in enumerate(order):
            al, be = keys[i]
            M = amass[keys[i]]
            P = P + (E * al + be) * M
            Q = Q + (E * be + al) * M
            Ppre[j + 1], Qpre[j + 1] = P, Q
        self.Ppre, self.Qpre = Ppre, Qpre
        self.m = m
        self.kinds = None
        self.first = 0

    def _layout_wang(self, amass: dict, E) -> None:
        """C(f_Shuffle) by Eq. (13) (module docstring): the atoms with b/a > 1 by decreasing b/a
        (P-mass P0 = (E + 1) a M, Q-mass R = (2 a + (E - 1) b) M), one atom of ratio 1 with the
        rest, then the mirror images by increasing b/a. The kept masses of the atoms b/a > 1
        miss at most tau (E + 1)/E each of P0 and R (P0 <= (E + 1) P/E, R <= (E + 1) Q/E
        pointwise... on the dropped points); the ratio-1 atom takes the lower end of its mass,
        1 - P0_K - R_K - 2 tau (E + 1)/E, so that the whole kept sub-measure misses at most
        tau_C = 2 tau (E + 1)/E of each of P_C and Q_C."""
        from flint import arb

        keys = [k for k in amass if k[1] > k[0]]
        fl = np.array([k[1] / k[0] if k[0] else math.inf for k in keys])
        order = np.argsort(-fl, kind="stable")
        tau_c = 2 * self.tau * (E + 1) / E
        A = [(keys[i][0], keys[i][1], amass[keys[i]]) for i in order]
        P0 = [(E + 1) * al * M for al, be, M in A]
        R = [(2 * al + (E - 1) * be) * M for al, be, M in A]
        sP0, sR = sum(P0, arb(0)), sum(R, arb(0))
        zero = (1 - sP0 - sR - tau_c).lower()  # its lower end
        zero = arb(0) if zero < 0 else arb(zero)
        Pm = P0 + [zero] + R[::-1]
        Qm = R + [zero] + P0[::-1]
        m = len(Pm)
        Ppre, Qpre = [arb(0)] * (m + 1), [arb(0)] * (m + 1)
        P = Q = arb(0)
        for j in range(m):
            P, Q = P + Pm[j], Q + Qm[j]
            Ppre[j + 1], Qpre[j + 1] = P, Q
        self.Ppre, self.Qpre, self.m = Ppre, Qpre, m
        na = len(A)
        # for delta: only the atoms b/a > 1 can have ratio > e^eps >= 1; the rest get a key
        # below every threshold and (al, be) = (1, 0), which never passes the comparison
        self.al = np.array([a for a, _, _ in A] + [1] * (na + 1), dtype=np.int64)
        self.be = np.array([b for _, b, _ in A] + [0] * (na + 1), dtype=np.int64)
        self.key = np.concatenate([fl[order], -np.ones(na + 1)])
        self.negkey = -self.key
        self.kinds = (na, [(a, b) for a, b, _ in A])
        self.first = 1 if na and A[0][0] == 0 else 0  # the atom a = 0 has ratio +oo
        self.tau = arb(tau_c.upper()).upper()

    # suffix sums by the mirror symmetry (a, b) -> (b, a): P(atoms j..m-1) = Q(first m - j)
    def Psuf(self, j: int):
        return self.Qpre[self.m - j]

    def Qsuf(self, j: int):
        return self.Ppre[self.m - j]

    def ratio(self, j: int):
        """The likelihood ratio of atom j (finite: call with j >= ``first``)."""
        E = self.E
        if self.kinds is None:
            al, be = int(self.al[j]), int(self.be[j])
            return (E * be + al) / (E * al + be)
        na, ab = self.kinds
        if j == na:
            return E * 0 + 1
        al, be = ab[j] if j < na else ab[2 * na - j]
        if al == 0:  # the mirror image of the atom of ratio +oo has ratio 0
            return E * 0
        rho = (2 * al + (E - 1) * be) / ((E + 1) * al)
        return rho if j < na else 1 / rho


def _npoints(e0: float, n: int, tau_bits: int) -> int:
    s_lo, s_hi = _slices(e0, n, -tau_bits * math.log(2.0))
    if s_hi - s_lo + 1 > MAX_POINTS:  # (at least one point per slice)
        return s_hi - s_lo + 1
    s_lo, s_hi, a_hi = _window(e0, n, -tau_bits * math.log(2.0))
    return int((2 * a_hi - np.arange(s_lo, s_hi + 1) + 1).sum())


def _check_points(f: Any, e0: float, n: int, tau_bits: int) -> None:
    """Refuse at once a pair whose kept window is beyond :data:`MAX_POINTS` (or n beyond
    :data:`MAX_N`): the numerics need the points themselves."""
    from ..core.errors import NumericalError

    pts = None if n > MAX_N else _npoints(e0, n, tau_bits)
    if pts is None or pts > MAX_POINTS:
        size = f"n = {n}" if n < 10**12 else f"n = 10^{math.log10(n):.1f}"
        what = "" if pts is None else f"its window keeps {pts} points at this precision; "
        raise NumericalError(
            f"ShuffleDP(eps0, n) with {size}: {what}the numeric route is limited to n <= "
            f"{MAX_N:.0e} (MAX_N) and {MAX_POINTS} kept points (MAX_POINTS; about "
            "n log(1/tau) points for small eps0, far fewer for large eps0); ask for fewer "
            "digits (dps) or use a smaller n")


#: The largest dropped mass (2^-MIN_TAU_BITS) accepted when the window at the target precision
#: keeps more than MAX_POINTS points: the result is then an enclosure of width about it.
MIN_TAU_BITS = 40


def _fitting_tau_bits(e0: float, n: int, tau_bits: int) -> int:
    """``tau_bits`` if its window fits in :data:`MAX_POINTS`, else the largest number of bits
    (not below :data:`MIN_TAU_BITS`) whose window fits: a wider but guaranteed enclosure
    instead of a refusal (eps0 = 1, n = 10^4 at dps 15 keeps 2.3 million points)."""
    if n > MAX_N or _npoints(e0, n, tau_bits) <= MAX_POINTS:
        return tau_bits
    lo, hi = MIN_TAU_BITS, tau_bits  # the window grows with tau_bits
    if _npoints(e0, n, lo) > MAX_POINTS:
        return tau_bits  # refused by _check_points
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _npoints(e0, n, mid) <= MAX_POINTS:
            lo = mid
        else:
            hi = mid
    return lo


_TABLES: dict = {}
_TABLES_LOCK = threading.Lock()  # (guards the updates of _TABLES; never held while building)


def _table(eps0: sp.Expr, n: int, prec: int, tau_bits: int, wang: bool = False,
           accept: tuple[int, int] | None = None) -> _Table:
    """The table at precision ``prec`` with dropped mass below ``2^-tau_bits`` (about), or a
    kept one with at least ``accept`` = (precision, tau_bits) (default: these): its enclosures
    are as valid, and the caller checks their width."""
    key = (eps0, n, wang)
    need_w, need_tb = accept or (prec, tau_bits)
    for w, tb, t in _TABLES.get(key, ()):
        if w >= need_w and tb >= need_tb:
            return t
    t = _Table(eps0, n, prec, tau_bits, wang)
    with _TABLES_LOCK:
        kept = [x for x in _TABLES.get(key, ()) if not (x[0] <= prec and x[1] <= tau_bits)]
        _TABLES[key] = (kept + [(prec, tau_bits, t)])[-2:]
        while len(_TABLES) > 3:
            _TABLES.pop(next(iter(_TABLES)))
    return t


def _guard(n: int) -> int:
    return 2 * n.bit_length() + 40


# -- float64: curve and the PLD loss model -------------------------------------------------------
@lru_cache(maxsize=8)
def _float_points(e0: float, n: int):
    """(a, b, K) of the kept points (float64, ``scipy.stats.binom`` masses; module docstring)."""
    from scipy.stats import binom

    s_lo, s_hi, a_hi = _window(e0, n, math.log(FLOAT_TAU))
    s = np.arange(s_lo, s_hi + 1)
    lens = 2 * a_hi - s + 1
    ss = np.repeat(s, lens)
    start = np.repeat(np.cumsum(lens) - lens, lens)
    a = np.repeat(s - a_hi, lens) + (np.arange(int(lens.sum())) - start)
    b = ss - a
    theta = 2.0 / (math.exp(e0) + 1.0)
    K = np.repeat(binom.pmf(s, n, theta), lens) * binom.pmf(a, ss, 0.5) / n
    return a, b, K


@lru_cache(maxsize=8)
def _float_atoms(e0: float, n: int):
    """(loss, P, Q) of the kept points of T(P, Q) (float64), ordered by decreasing ratio; the
    dropped mass is at most ``FLOAT_TAU`` of each of P and Q."""
    a, b, K = _float_points(e0, n)
    E = math.exp(e0)
    P, Q = (E * a + b) * K, (E * b + a) * K
    with np.errstate(divide="ignore"):
        loss = np.log(E * b + a) - np.log(E * a + b)
        key = np.where(a > 0, b / np.maximum(a, 1), np.inf)
    order = np.argsort(-key, kind="stable")
    return loss[order], P[order], Q[order]


@lru_cache(maxsize=8)
def _float_atoms_wang(e0: float, n: int):
    """(loss, P, Q, q_inf, tau) of C(f_Shuffle) (float64, module docstring), finite losses by
    decreasing ratio: the points b > a (loss log rho, P0, R), the ratio-1 atom, the mirror
    images; ``q_inf`` the R-mass of the points a = 0 (ratio +oo, mirrored to a P-mass at
    -oo); ``tau`` bounds the dropped mass of each side (2 (E + 1)/E FLOAT_TAU)."""
    a, b, K = _float_points(e0, n)
    E = math.exp(e0)
    P0, R = (E + 1) * a * K, (2 * a + (E - 1) * b) * K
    up = b > a
    inf = up & (a == 0)
    fin = up & (a > 0)
    with np.errstate(divide="ignore"):
        key = b[fin] / a[fin]
        loss = np.log(2 * a[fin] + (E - 1) * b[fin]) - np.log((E + 1) * a[fin])
    order = np.argsort(-key, kind="stable")
    l1, p1, q1 = loss[order], P0[fin][order], R[fin][order]
    q_inf = float(R[inf].sum())
    tau = 2 * (E + 1) / E * FLOAT_TAU
    zero = max(1.0 - float(P0[up].sum()) - float(R[up].sum()), 0.0)
    losses = np.concatenate([l1, [0.0], -l1[::-1]])
    P = np.concatenate([p1, [zero], q1[::-1]])
    Q = np.concatenate([q1, [zero], p1[::-1]])
    return losses, P, Q, q_inf, tau
