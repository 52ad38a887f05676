"""The shuffle model: the exact post-processing pair of Feldman, McMillan & Talwar.

Wang, Su, Ye, Shokri & Su, Sec. 4.1 (restating Feldman et al.): n users each apply an
eps0-DP local randomizer and a shuffler permutes the reports; the outputs on two neighbouring
datasets are a post-processing of ``X ~ P`` and ``Y ~ Q`` with

    P = (1 - w) P0 + w Q0,   Q = (1 - w) Q0 + w P0,   w = 1/(e^eps0 + 1),
    P0 = law of (A + 1, C - A),   Q0 = law of (A, C - A + 1),
    A ~ Binom(C, 1/2),   C ~ Binom(n - 1, 2/(e^eps0 + 1)),

so the shuffled mechanism is ``T(P, Q)``-DP (DRS, Prop. 2.8, post-processing). ``ShuffleDP(eps0,
n)`` is this ``T(P, Q)``, exactly: a finite trade-off function.

The pair in closed form. Write ``E = e^eps0`` and ``s = a + b``. Summing the mixture,

    P(a, b) = (E a + b) K(a, b),   Q(a, b) = (E b + a) K(a, b),   a, b >= 0, 1 <= a + b <= n,
    K(a, b) = B_n(s) b_s(a) / n,   B_n = pmf of Binom(n, 2/(E+1)),   b_s = pmf of Binom(s, 1/2)

(``(a, b) = (X + 1, Y)`` with ``(X, Y)`` trinomial(n - 1; w, w, 1 - 2w) under P0; the
factor ``(E a + b)/((E + 1) a)`` collects the two mixture terms). Consequences:

* the likelihood ratio is ``Q/P = (E b + a)/(E a + b)``, a function of ``b/a`` only (Q0/P0 is
  ``b/a``; the mixture maps it increasingly for E > 1), between ``1/E`` and ``E``; the
  Neyman--Pearson tests reject for large ``b/a``, and the atoms are the points grouped by the
  reduced fraction ``b/a`` (Dong, Roth & Su, Appendix A);
* **symmetry**: ``(a, b) -> (b, a)`` maps ``P`` to ``Q`` and ``Q`` to ``P``, so
  ``T(P, Q) = T(Q, P) = T(P, Q)^{-1}`` (DRS, after Prop. 2): ``is_symmetric`` is True. (The
  swap is the one Wang et al. use for P0 and Q0: X and Y are exchangeable.)
* ``n = 1`` is randomized response (``P = (E, 1)/(E+1)`` on ``(1,0), (0,1)``):
  ``ShuffleDP(eps0, 1) = f_{eps0,0}``; ``eps0 = 0`` gives ``P = Q``: ``Id``. Both are rewrite
  rules. ``delta(eps) = 0`` for ``eps >= eps0`` (every ratio is at most ``E``).

Theorem 4.2 of Wang et al. bounds ``T(P, Q)`` from below by ``C(f_Shuffle)`` with
``f_Shuffle = 2w Id + (1 - 2w) T(P0, Q0)`` (``mechanisms.shuffle(eps0, n, bound="wang")`` builds
it for small n); ``proofs/wang.py`` checks that it holds and is strictly below the exact
``T(P, Q)`` away from a few points.

Numerics. Exact rationals (through :func:`~tradeoff_algebra.numeric.finite.finite_loss`) when
``e^eps0`` is rational and n is small. Otherwise Arb ball arithmetic (python-flint), which makes
every rounding error part of the result: the points are generated slice by slice (``B_n(s)`` by
its recurrence, ``b_s(a)`` by its recurrence from a log-gamma start), the masses of the points
outside a window are dropped, and the dropped mass of each of P and Q is bounded by Chernoff
bounds, ``P(S >= k) <= exp(-n KL(k/n || theta))`` (beyond the kept slices, times ``(E + 1)/2``)
and ``exp(-s KL(k/s || 1/2))`` (inside a slice, times ``2 E s B_n(s)/n``), by ``tau``. With the
kept sub-measures ``P_K, Q_K`` and ``h`` their Neyman--Pearson function (the knots
``(P_K(first j), Q_K(rest))``) every test gives ``h(alpha) <= f(alpha) <= h(alpha) + tau``,
and ``delta_K(eps) <= delta(eps) <= delta_K(eps) + tau``. The window is chosen so that ``tau``
is far below the requested precision (relative to the value; the working precision and ``tau``
are raised until the enclosure is a point at ``dps`` digits, as in ``numeric.finite``). The
mirror symmetry gives the suffix sums for free: ``P(atoms j..) = Q(first m - j atoms)``. Cost:
the number of kept points, about ``n log(1/tau)`` for small eps0 and much less for large eps0
(where ``2n/(E+1)`` users answer at random); ``n = 10^4`` runs in seconds. The float64 paths
(``curve`` and the PLD loss model) use ``scipy.stats.binom`` masses on the same windows.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import from_man_exp, round_ceiling, round_floor

from ..core.node import TradeOff
from ..core.validate import param
from ..numeric.context import MPF, arb_precision, mp
from ..numeric.protocol import exact_value, mp_delta, mp_roc, mp_value, np_value

__all__ = ["ShuffleDP", "shuffle_pair", "shuffle_pair0"]

#: Largest n for which the exact finite pair is registered with ``finite_loss`` when e^eps0 is
#: rational (exact composition, exact values) ...
FINITE_MAX_N_RATIONAL = 150
#: ... and when it is not (the atoms are then SymPy numbers in exp(eps0)).
FINITE_MAX_N_SYMBOLIC = 10
#: Dropped mass of the float64 paths (curve, PLD loss model): below anything float64 resolves
#: next to the PLD engine's own tail allowance of 1e-20.
FLOAT_TAU = 1e-40
#: Largest number of points of an Arb table: past it the dropped mass is not shrunk further and
#: the result is the (guaranteed, wider) enclosure [h, h + tau].
MAX_POINTS = 2_000_000


class ShuffleDP(TradeOff):
    """T(P, Q) of the shuffle model: n users, each eps0-DP, then a uniform shuffle.

    The exact post-processing pair of Feldman, McMillan & Talwar as restated by Wang et al.,
    Sec. 4.1 (see the module docstring for the closed form of P and Q and the proof of
    symmetry). ``eps0 >= 0`` real, ``n >= 1`` an integer. ``ShuffleDP(eps0, 1)`` is
    ``f_{eps0,0}`` and ``ShuffleDP(0, n)`` is ``Id``; ``simplify`` makes those rewrites.
    """

    def __new__(cls, eps0: Any, n: Any):
        eps0 = param("eps0", eps0, lower=0, owner="ShuffleDP")
        n = param("n", n, lower=1, integer=True, owner="ShuffleDP")
        return TradeOff.__new__(cls, eps0, n)

    @property
    def eps0(self) -> sp.Expr:
        return self.args[0]

    @property
    def n(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer):
        return "ShuffleDP(%s, %s)" % (printer._print(self.eps0), printer._print(self.n))

    def _latex(self, printer):
        return r"f^{\mathrm{shuffle}}_{%s, %s}" % (printer._print(self.eps0),
                                                    printer._print(self.n))


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


def _grouped_atoms(eps0: sp.Expr, n: int) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
    """Exact atoms (ratio, P, Q) of the pair, one per reduced fraction b/a (module docstring):
    a point (k alpha, k beta) has ``P = k (E alpha + beta) B_n(s) b_s(a)/n``, so each atom is
    ``(E alpha + beta) M`` and ``(E beta + alpha) M`` with ``M`` a sum over its points."""
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
        den = n * (p + q) ** n
        out = []
        for (al, be), M in groups.items():
            out.append((sp.Rational(p * be + q * al, p * al + q * be),
                        sp.Rational((p * al + q * be) * M, den),
                        sp.Rational((p * be + q * al) * M, den)))
        return out
    E = sp.exp(eps0)
    theta = 2 / (E + 1)
    for s in range(1, n + 1):
        Bs = sp.binomial(n, s) * theta**s * (1 - theta) ** (n - s) / n / sp.Integer(2) ** s
        for a in range(s + 1):
            b = s - a
            g = math.gcd(a, b)
            key = (a // g, b // g)
            groups[key] = groups.get(key, 0) + g * math.comb(s, a) * Bs
    return [((E * be + al) / (E * al + be), (E * al + be) * M, (E * be + al) * M)
            for (al, be), M in groups.items()]


# -- windows and Chernoff bounds ----------------------------------------------------------------
def _numeric(f: ShuffleDP) -> tuple[sp.Expr, int]:
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


@lru_cache(maxsize=32)
def _window(e0: float, n: int, log_tau: float) -> tuple[int, int, np.ndarray]:
    """(s_lo, s_hi, a_hi) of the kept points: slices s_lo..s_hi (s = a + b) and, in slice s,
    ``s - a_hi[s - s_lo] <= a <= a_hi[s - s_lo]``. Chosen so that each dropped mass of P and Q
    is at most about ``tau = e^log_tau`` (a choice only: the rigorous bound is computed with the
    kept window, see :func:`_dropped`)."""
    t = 2.0 / (math.exp(e0) + 1.0) if e0 < 700 else 0.0
    logE = e0
    k = np.arange(n + 1, dtype=np.float64)
    if t <= 0.0 or t >= 1.0:  # eps0 = 0: every mass in slice n; eps0 huge: slice 0
        s_lo = s_hi = n if t >= 1.0 else 1
    else:
        need = -log_tau + math.log(2.0) + math.log1p(math.exp(min(logE, 700.0)))
        kl = n * _kl(k / n, t)
        mode = n * t
        up = np.nonzero((k >= mode) & (kl >= need))[0]
        dn = np.nonzero((k <= mode) & (kl >= need))[0]
        s_hi = int(up[0]) - 1 if up.size else n
        s_lo = max(int(dn[-1]) + 1, 1) if dn.size else 1
        s_hi = max(s_hi, s_lo)
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


def _arb(x: sp.Expr):
    """An Arb ball containing the SymPy number x (at the current flint precision)."""
    from flint import arb, ctx

    if isinstance(x, sp.Integer):
        return arb(int(x))
    if isinstance(x, sp.Rational):
        return arb(int(x.p)) / int(x.q)
    prec = ctx.prec + 20
    digits = int(prec * 0.30103) + 10
    sign, man, exp, _ = sp.Float(x.evalf(digits), digits)._mpf_  # correct to ``digits``
    mid = arb(-man if sign else man) * arb(2) ** exp
    return arb(mid.mid(), abs(mid.mid()) * arb(2) ** (-prec + 8))


def _to_mpf(x, rnd) -> MPF:
    """An exact Arb midpoint-free endpoint (``x.lower()``/``x.upper()``) as an mpf, rounded."""
    man, exp = x.man_exp()
    return mp.make_mpf(from_man_exp(int(man), int(exp), mp.prec, rnd))


def _exact_arb(x: MPF):
    """An mpf as an exact Arb number (call inside the working precision)."""
    from flint import arb

    if not x:
        return arb(0)
    man, exp = x.man_exp
    return arb(int(man)) * arb(2) ** int(exp)  # powers of 2 are exact


def _arb_kl(x, t):
    """KL(Bern(x) || Bern(t)) in Arb (0 <= x <= 1, 0 < t < 1)."""
    from flint import arb

    out = arb(0)
    if x > 0:
        out += x * (x / t).log()
    if x < 1:
        out += (1 - x) * ((1 - x) / (1 - t)).log()
    return out


class _Table:
    """The kept atoms of the pair in Arb (see the module docstring).

    ``al, be``: the reduced fractions ``b/a`` of the atoms, by decreasing ratio; ``key``:
    their float64 values ``be/al`` (``inf`` for ``al = 0``), distinct for n < 10^7;
    ``Ppre, Qpre``: prefix sums of the kept P- and Q-masses (Arb, length m + 1); ``Pmid``:
    midpoints of ``Ppre`` as mpf (for searching); ``E``: e^eps0; ``tau``: an upper bound on the
    dropped mass of each of P and Q (Arb, exact).
    """

    def __init__(self, eps0: sp.Expr, n: int, prec: int, tau_bits: int):
        from flint import arb

        with arb_precision(prec):
            self.E = E = _arb(sp.exp(eps0))
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
                if s_hi < n:
                    x = arb(s_hi + 1) / n
                    tau_sl += (-n * _arb_kl(x, theta)).exp() if x >= theta else arb(1)
                if s_lo > 1:
                    x = arb(s_lo - 1) / n
                    tau_sl += (-n * _arb_kl(x, theta)).exp() if x <= theta else arb(1)
                tau_sl *= (E + 1) / 2
            self.tau = (tau_in + tau_sl).upper()
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
        with mp.workprec(64):
            self.Pmid = [_to_mpf(x.mid(), round_floor) for x in Ppre]
            self.Qmid = [_to_mpf(x.mid(), round_floor) for x in Qpre]

    # suffix sums by the mirror symmetry (a, b) -> (b, a): P(atoms j..m-1) = Q(first m - j)
    def Psuf(self, j: int):
        return self.Qpre[self.m - j]

    def Qsuf(self, j: int):
        return self.Ppre[self.m - j]

    def ratio(self, j: int):
        al, be = int(self.al[j]), int(self.be[j])
        return (self.E * be + al) / (self.E * al + be)


def _npoints(e0: float, n: int, tau_bits: int) -> int:
    s_lo, s_hi, a_hi = _window(e0, n, -tau_bits * math.log(2.0))
    return int((2 * a_hi - np.arange(s_lo, s_hi + 1) + 1).sum())


@lru_cache(maxsize=2)
def _table(eps0: sp.Expr, n: int, prec: int, tau_bits: int) -> _Table:
    return _Table(eps0, n, prec, tau_bits)


def _guard(n: int) -> int:
    return 2 * n.bit_length() + 40


def _ziv(f: ShuffleDP, compute):
    """Run ``compute(table) -> (lo, hi)`` (Arb endpoints including the dropped-mass bound)
    with rising working precision and shrinking dropped mass until the enclosure is below the
    target precision relative to its value; past a cap the enclosure is returned."""
    from flint import arb

    eps0, n = _numeric(f)
    p = mp.prec
    w, tb = p + _guard(n), p + 24
    for _ in range(6):
        t = _table(eps0, n, w, tb)
        with arb_precision(w):
            lo, hi = compute(t)
            lo, hi = arb(lo), arb(hi)
            width = hi.upper() - lo.lower()
            tol = hi.upper() * arb(2) ** (-p - 2)
            if width <= tol:
                v = _to_mpf(((lo + hi) / 2).mid(), round_floor)
                return v, v
            if hi.upper() <= 0:
                return mp.zero, mp.zero
            # the dropped mass: make tau ~ 2^-p of the value; the rounding: raise w
            need = -float(hi.upper().log()) / math.log(2.0) if hi.upper() > 0 else 0.0
            new_tb = int(p + 8 + max(need, 0.0))
            if t.tau > tol / 4 and new_tb > tb:
                if _npoints(float(eps0), n, new_tb) > MAX_POINTS:
                    break
                tb = new_tb
            else:
                w += 64
    return _to_mpf(lo.lower(), round_floor), _to_mpf(hi.upper(), round_ceiling)


def _segment(t: _Table, a, ac) -> int:
    """An index j with Ppre[j] <= alpha <= Ppre[j + 1] up to rounding, searched on midpoints in
    the tail that keeps its digits (``1 - alpha`` against the suffix sums ``Psuf(j) =
    Qpre[m - j]`` when alpha > 1/2); the neighbours are evaluated too (see :func:`_eval`)."""
    from bisect import bisect_left

    if a <= ac:
        j = bisect_left(t.Pmid, a) - 1
    else:  # Psuf(j) >= 1 - alpha >= Psuf(j + 1), Psuf(j) = Qpre[m - j] increasing in m - j
        j = t.m - bisect_left(t.Qmid, ac)
    return min(max(j, 0), t.m - 1)


def _line(t: _Table, j: int, A, Ac, power: bool):
    """The extension of the j-th Neyman--Pearson segment of the kept sub-measures at alpha:
    ``h = Q_K(atoms > j) + (P_K(atoms <= j) - alpha) r_j`` (or ``1 - f``'s lower part
    ``Q_K(atoms < j) + (alpha - P_K(atoms < j)) r_j``), with the difference formed on the side
    without cancellation (``1 - alpha - P(atoms > j)`` uses the dropped P-mass in [0, tau])."""
    from flint import arb

    r = t.ratio(j)
    taub = arb(0).union(t.tau)
    if power:
        if t.Pmid[j] <= 0.5:
            d = A - t.Ppre[j]
        else:
            d = t.Psuf(j) + taub - Ac
        return t.Qpre[j] + d * r
    if t.Pmid[j + 1] <= 0.5:
        d = t.Ppre[j + 1] - A
    else:
        d = Ac - t.Psuf(j + 1) - taub
    return t.Qsuf(j + 1) + d * r


def _eval(f: ShuffleDP, a, ac, power: bool):
    """f(alpha) (or 1 - f(alpha)) as an enclosure. T is convex and piecewise linear, so it is
    the maximum of the lines through its segments (and 1 - f the minimum): evaluating the
    segment found and its neighbours covers a level within rounding of a knot."""
    from flint import arb

    def compute(t: _Table):
        A, Ac = _exact_arb(a), _exact_arb(ac)
        j = _segment(t, a, ac)
        js = [i for i in (j - 1, j, j + 1) if 0 <= i < t.m]
        vals = [_line(t, i, A, Ac, power) for i in js]
        lo = max(v.lower() for v in vals) if not power else min(v.lower() for v in vals)
        hi = max(v.upper() for v in vals) if not power else min(v.upper() for v in vals)
        lo, hi = max(lo, arb(0)), max(hi, arb(0))
        # the kept sub-measures: f in [h, h + tau], 1 - f in [1 - h - tau, 1 - h]
        return (lo, hi + t.tau) if not power else (lo, hi + t.tau)

    return _ziv(f, compute)


@mp_value.register(ShuffleDP)
def _(f, a, ac):
    if f.eps0 == 0 or a == 0 or ac == 0:  # Id; f(0) = 1 (no mass with P = 0), f(1) = 0
        return +ac, +ac
    return _eval(f, a, ac, power=False)


@mp_roc.register(ShuffleDP)
def _(f, a, ac):
    if f.eps0 == 0 or a == 0 or ac == 0:
        return +a, +a
    return _eval(f, a, ac, power=True)


@mp_delta.register(ShuffleDP)
def _(f, eps):
    """delta(eps) = sum over atoms with ratio > e^eps of (Q - e^eps P) (Dong, Roth & Su,
    Prop. 6; the hockey-stick divergence), on the kept atoms, plus [0, tau]; exactly 0 for
    eps >= eps0 (every ratio is at most e^eps0)."""
    from flint import arb

    eps0, _ = _numeric(f)
    if eps == mp.inf:
        return mp.zero, mp.zero
    man, ex = eps.man_exp if eps else (0, 0)
    if (sp.Integer(int(man)) * sp.Integer(2) ** int(ex) - eps0).is_nonnegative is True:
        return mp.zero, mp.zero
    def compute(t: _Table):
        ee = _exact_arb(eps).exp()
        c1, c2 = t.E - ee, t.E * ee - 1  # r > e^eps  <=>  be c1 > al c2
        if not c1 > 0:  # eps within rounding of eps0: Q - e^eps P <= P (e^eps0 - e^eps)
            return arb(0), max(c1.upper(), arb(0)) + t.tau
        thr = float((c2 / c1).mid())
        # atoms with key > thr (1 + 1e-9) are above, < thr (1 - 1e-9) below; decide the rest
        import bisect

        k_hi = bisect.bisect_left(t.negkey, -thr * (1 - 1e-9))
        k_lo = bisect.bisect_left(t.negkey, -thr * (1 + 1e-9))
        while k_lo < k_hi and int(t.be[k_lo]) * c1 > int(t.al[k_lo]) * c2:
            k_lo += 1
        while k_hi > k_lo and int(t.be[k_hi - 1]) * c1 < int(t.al[k_hi - 1]) * c2:
            k_hi -= 1
        vals = [t.Qpre[k] - ee * t.Ppre[k] for k in range(k_lo, k_hi + 1)]
        lo = max(max(v.lower() for v in vals), arb(0))
        hi = max(max(v.upper() for v in vals), arb(0))
        return lo, hi + t.tau

    return _ziv(f, compute)


@exact_value.register(ShuffleDP)
def _(f, A, Ac):
    from ..numeric.finite import finite_loss

    if _exact_e(f.eps0) is None:
        return None
    fl = finite_loss(f)
    return None if fl is None else fl.value(A, Ac)


# -- float64: curve and the PLD loss model -------------------------------------------------------
@lru_cache(maxsize=8)
def _float_atoms(e0: float, n: int):
    """(loss, P, Q) of the kept points (float64, ``scipy.stats.binom`` masses), ordered by
    decreasing ratio, and the dropped-mass allowance ``FLOAT_TAU``."""
    from scipy.stats import binom

    s_lo, s_hi, a_hi = _window(e0, n, math.log(FLOAT_TAU))
    s = np.arange(s_lo, s_hi + 1)
    lens = 2 * a_hi - s + 1
    ss = np.repeat(s, lens)
    start = np.repeat(np.cumsum(lens) - lens, lens)
    a = np.repeat(s - a_hi, lens) + (np.arange(int(lens.sum())) - start)
    b = ss - a
    E = math.exp(e0)
    theta = 2.0 / (E + 1.0)
    K = np.repeat(binom.pmf(s, n, theta), lens) * binom.pmf(a, ss, 0.5) / n
    P, Q = (E * a + b) * K, (E * b + a) * K
    with np.errstate(divide="ignore"):
        loss = np.log(E * b + a) - np.log(E * a + b)
        key = np.where(a > 0, b / np.maximum(a, 1), np.inf)
    order = np.argsort(-key, kind="stable")
    return loss[order], P[order], Q[order]


@np_value.register(ShuffleDP)
def _(f, x):
    eps0, n = _numeric(f)
    if eps0 == 0:
        return 1.0 - x
    _, P, Q = _float_atoms(float(eps0), n)
    xs = np.concatenate([[0.0], np.cumsum(P)])
    ys = np.concatenate([np.cumsum(Q[::-1])[::-1], [0.0]])
    xs[-1] = max(xs[-1], 1.0)
    return np.interp(x, xs, ys)


def _register_models() -> None:
    from ..numeric.finite import FiniteLoss, finite_loss
    from ..numeric.pld_models import AtomLoss, loss_model

    @finite_loss.register(ShuffleDP)
    def _(f):
        """The exact pair (atoms grouped by b/a) for small n: exact composition and values.
        None for symbolic parameters and for n above FINITE_MAX_N_* (those go through the
        Arb table singly and the PLD engine in products)."""
        if f.free_symbols or not isinstance(f.n, sp.Integer):
            return None
        n = int(f.n)
        cap = FINITE_MAX_N_RATIONAL if _exact_e(f.eps0) is not None else FINITE_MAX_N_SYMBOLIC
        if n > cap:
            return None
        if f.eps0 == 0:
            return FiniteLoss()
        return FiniteLoss.from_atoms(_grouped_atoms(f.eps0, n))

    @loss_model.register(ShuffleDP)
    def _(f):
        """Atoms of the kept points (float64); the dropped mass (at most FLOAT_TAU of each of
        P and Q) goes to the atoms at +-oo (pessimistic; the optimistic side is then high by at
        most FLOAT_TAU per factor)."""
        if f.free_symbols:
            return None
        eps0, n = _numeric(f)
        if eps0 == 0:
            return AtomLoss([0.0], [1.0], [1.0])
        loss, P, Q = _float_atoms(float(eps0), n)
        return AtomLoss(loss, P, Q, q_inf=FLOAT_TAU, p_ninf=FLOAT_TAU, rel_err=1e-13)


_register_models()


# -- rewrite rules ------------------------------------------------------------------------------
from ..core.citations import WANG  # noqa: E402
from ..core.rules import rule  # noqa: E402
from .epsdelta import EpsDelta  # noqa: E402
from .trivial import Id  # noqa: E402

_SEC41 = WANG.at("Sec. 4.1", note="the shuffle pair P = (1-w)P0 + wQ0, Q = (1-w)Q0 + wP0")


@rule(ShuffleDP, cite=_SEC41, priority=100)
def shuffle_trivial(f: ShuffleDP):
    """One user is randomized response, ShuffleDP(eps0, 1) = f_{eps0,0}; eps0 = 0 gives P = Q,
    ShuffleDP(0, n) = Id (module docstring)."""
    if f.eps0.is_zero is True:
        return Id
    if f.n == 1:
        return EpsDelta(f.eps0, 0)
    return None
