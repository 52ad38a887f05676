"""Claims of Wang, Su, Ye, Shokri & Su, "Unified enhancement of privacy bounds for mixture
mechanisms via f-DP" (NeurIPS 2023), Sec. 4 (shuffling), each stated with ``ta.verify``: the
pairs (P0, Q0) and (P, Q) are built literally from their definitions with exact Fractions and
handed to the verifier as ``Discrete`` nodes (exact decisions), next to the library's
``ShuffleDP``. The hand-written functions below are the independent cross-checks
(brute-force Neyman--Pearson, an independent lower convex envelope, scipy's binomial CDFs for
n = 10^4); each returns ``Check("holds", ...)`` when it confirms the library's numbers."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

import tradeoff_algebra as ta

from ._claims import Check, stated
from .basis import untraced
from .drs import _discrete, _hull_value, _lower_hull

R = sp.Rational

PAPER = "Wang et al."


def _pairs(E: Fraction, n: int):
    """(P0, Q0, P, Q) as dicts on the points (a, b), literally from Sec. 4.1."""
    w = 1 / (E + 1)
    th = 2 * w
    P0: dict = {}
    Q0: dict = {}
    for c in range(n):
        wc = math.comb(n - 1, c) * th**c * (1 - th) ** (n - 1 - c)
        for A in range(c + 1):
            m = wc * Fraction(math.comb(c, A), 2**c)
            P0[(A + 1, c - A)] = P0.get((A + 1, c - A), 0) + m
            Q0[(A, c - A + 1)] = Q0.get((A, c - A + 1), 0) + m
    pts = sorted(set(P0) | set(Q0))
    P0 = {k: Fraction(P0.get(k, 0)) for k in pts}
    Q0 = {k: Fraction(Q0.get(k, 0)) for k in pts}
    P = {k: (1 - w) * P0[k] + w * Q0[k] for k in pts}
    Q = {k: (1 - w) * Q0[k] + w * P0[k] for k in pts}
    return P0, Q0, P, Q


def _np_knots(P: dict, Q: dict):
    """Neyman-Pearson knots of T(P, Q): reject in decreasing order of Q/P (ties merged)."""
    cls: dict = {}
    for k in P:
        if P[k] == 0 and Q[k] == 0:
            continue
        r = None if P[k] == 0 else Q[k] / P[k]
        p, q = cls.get(r, (0, 0))
        cls[r] = (p + P[k], q + Q[k])
    order = sorted(cls, key=lambda r: (r is not None, -(r or 0)))
    a, q = Fraction(0), Fraction(0)
    knots = [(Fraction(0), Fraction(1))]
    for r in order:
        a, q = a + cls[r][0], q + cls[r][1]
        knots.append((a, 1 - q))
    return knots


def _interp(knots, x):
    for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
        if x1 <= x <= x2 and x2 > x1:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    return knots[-1][1]


def _binom_cdf(i: int, x) -> Fraction:
    """F_i(x) of Binom(i, 1/2) at real x (0 below 0)."""
    k = math.floor(x)
    if k < 0:
        return Fraction(0)
    return Fraction(sum(math.comb(i, j) for j in range(min(k, i) + 1)), 2**i)


SEC41_CASES = [(Fraction(3), 1), (Fraction(3), 4), (Fraction(5, 2), 6), (Fraction(7), 5)]
PROP41_CASES = [(Fraction(3), 3), (Fraction(5, 2), 5), (Fraction(7), 6)]
THM42_CASES = [(Fraction(3), 1), (Fraction(3), 5), (Fraction(5, 2), 8), (Fraction(9), 7)]


def _S(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def _T(P: dict, Q: dict) -> ta.Discrete:
    """T(P, Q) of the literal pair as the library's Discrete node."""
    ks = sorted(P)
    return _discrete([P[k] for k in ks], [Q[k] for k in ks])


def _library(E: Fraction, n: int, bound: str = "exact") -> ta.TradeOff:
    return ta.ShuffleDP(sp.log(_S(E)), n, bound=bound)


def _at_knots(f, knots) -> list:
    """f(alpha) == value at the interior knots (the library's Value there is an exact rational,
    so the verifier decides equality exactly)."""
    return [ta.verify(ta.evaluate(f, _S(x)), "==", _S(y)) for x, y in knots if 0 < x < 1]


# -- Sec. 4.1 -----------------------------------------------------------------------------------
def shuffle_pair_exact() -> Check:
    cnt = 0
    for E, n in SEC41_CASES:
        _, _, P, Q = _pairs(E, n)
        for (a, b), p in P.items():
            if p and Q[(a, b)] / p != (E * b + a) / (E * a + b):
                return Check("fails", f"E={E}, n={n}, point {(a, b)}")
        kn = _np_knots(P, Q)
        f = _library(E, n)
        for x in [Fraction(k, 41) for k in range(42)] + [x for x, _ in kn]:
            with untraced():
                got = ta.evaluate(f, _S(x)).exact
            if got is None or Fraction(int(got.p), int(got.q)) != _interp(kn, x):
                return Check("fails", f"E={E}, n={n}, alpha={x}: {got} != {_interp(kn, x)}")
            cnt += 1
    return Check("holds", f"the ratio formula at every point and exact equality of ShuffleDP "
                 f"with Neyman-Pearson on the literal pair at {cnt} levels (e^eps0 in "
                 "{3, 5/2, 7}, n <= 6)", certified=True,
                 basis=("Neyman-Pearson lemma on the literal pair P = (1-w)P0 + wQ0, "
                        "Q = (1-w)Q0 + wP0 (exact binomial masses)", "exact rational arithmetic"),
                 scope="(e^eps0, n) in SEC41_CASES, 42 levels and every knot")


def _sec41() -> list:
    out = []
    for E, n in SEC41_CASES:
        _, _, P, Q = _pairs(E, n)
        e = _S(E)
        out += [ta.verify(_S(Q[(a, b)] / p), "==", (e * b + a) / (e * a + b))
                for (a, b), p in P.items() if p]
        lib = _library(E, n)
        # the library's ShuffleDP lies below T(P, Q) (decided at the knots of T(P, Q): a convex
        # function lies below a linear piece iff it does at its ends) and meets it there
        out.append(ta.verify(_T(P, Q), ">=", lib))
        out += _at_knots(lib, _np_knots(P, Q))
    return out


stated(PAPER, "Sec. 4.1", "P = (1-w)P0 + wQ0 and Q = (1-w)Q0 + wP0 have Q/P = (E b + a)/(E a + b), "
       "and ShuffleDP(eps0, n) is T(P, Q); at (e^eps0, n) = (3, 1), (3, 4), (5/2, 6), (7, 5): "
       "the ratio exactly at every point, ShuffleDP <= T(P, Q), and equal at the knots of "
       "T(P, Q) (exact)", _sec41, crosscheck=shuffle_pair_exact)


# -- Prop. 4.1 ----------------------------------------------------------------------------------
def _prop41_formula(E: Fraction, n: int) -> list:
    """The knots (alpha(t), beta(t)) of Prop. 4.1 at every threshold t = a/b of a point,
    with the quantile convention F_i^{-1}(0) = -1 (exact Fractions)."""
    P0, _, _, _ = _pairs(E, n)
    th = 2 / (E + 1)
    wts = [math.comb(n - 1, i) * th**i * (1 - th) ** (n - 1 - i) for i in range(n)]
    out = []
    for t in sorted({Fraction(a, b) for (a, b) in P0 if b > 0}):
        al = sum(wts[i] * _binom_cdf(i, i - Fraction(i + 1) / (t + 1)) for i in range(n))
        # F_i^{-1}(F_i(x)) = floor(x) for x >= 0; the quantile of 0 is -1 (no mass)
        val = sum(wts[i] * (1 - _binom_cdf(i, math.floor(i - Fraction(i + 1) / (t + 1)) + 1))
                  for i in range(n))
        out.append((al, val))
    return out


def prop41_knots() -> Check:
    cnt = 0
    for E, n in PROP41_CASES:
        P0, Q0, _, _ = _pairs(E, n)
        kn = _np_knots(P0, Q0)
        # every knot of T(P0, Q0) sits at a threshold 1/t = b/a of some point
        for al, val in _prop41_formula(E, n):
            if _interp(kn, al) != val:
                return Check("fails", f"E={E}, n={n}: knot ({al}, {val}) is not on "
                             f"T(P0, Q0) (value there {_interp(kn, al)})")
            cnt += 1
    return Check("holds", f"{cnt} knots of the formula lie on the brute-force T(P0, Q0) "
                 "(exact), with the quantile convention F_i^{-1}(0) = -1")


def _prop41() -> list:
    out = []
    for E, n in PROP41_CASES:
        P0, Q0, _, _ = _pairs(E, n)
        knots = sorted(set(_prop41_formula(E, n)))
        if knots[-1][0] < 1:
            knots.append((Fraction(1), Fraction(0)))
        pl = ta.PiecewiseLinear([(_S(x), _S(y)) for x, y in knots])
        out.append(ta.verify(_T(P0, Q0), "==", pl))
    return out


stated(PAPER, "Prop. 4.1", "T(P0, Q0) has the knots (sum w_i F_i(i - (i+1)/(t+1)), "
       "sum w_i (1 - F_i[F_i^{-1}(alpha_i(t)) + 1])); exactly at (e^eps0, n) = (3, 3), (5/2, 5), "
       "(7, 6): T(P0, Q0) is the piecewise-linear function through the formula's knots (t over "
       "the ratios a/b of the points, F_i^{-1}(0) = -1) and (1, 0)", _prop41,
       crosscheck=prop41_knots)


# -- Thm. 4.2 -----------------------------------------------------------------------------------
def _hull_of_min(kn):
    """Knots of C(f) = min{f, f^{-1}}^** for a piecewise-linear f (exact): the lower convex
    envelope of the knots of f, of f^{-1} (mirror image) and of the crossings."""
    inv = sorted((y, x) for x, y in kn)
    pts = set(kn) | set(inv)
    xs = sorted({x for x, _ in pts})
    cand = [(x, min(_interp(kn, x), _interp(inv, x))) for x in xs]
    return cand


def thm42_bound() -> Check:
    cnt = eq = 0
    worst = Fraction(1)
    for E, n in THM42_CASES:
        P0, Q0, P, Q = _pairs(E, n)
        w = 1 / (E + 1)
        k0 = _np_knots(P0, Q0)
        fs = [(x, 2 * w * (1 - x) + (1 - 2 * w) * y) for x, y in k0]
        hull_pts = _hull_of_min(fs)
        exact = _np_knots(P, Q)
        lib = _library(E, n, bound="wang")
        for x in [Fraction(k, 53) for k in range(54)] + [x for x, _ in exact]:
            b = _hull_value(hull_pts, x)
            t = _interp(exact, x)
            got = ta.evaluate(lib, _S(x)).exact
            if got is None or Fraction(int(got.p), int(got.q)) != b:
                return Check("fails", f"shuffle(bound='wang') != independent hull at E={E}, "
                             f"n={n}, alpha={x}")
            if b > t:
                return Check("fails", f"E={E}, n={n}, alpha={x}: C(f_Shuffle) = {b} > "
                             f"T(P, Q) = {t}")
            eq += b == t
            worst = min(worst, t - b) if 0 < x < 1 else worst
            cnt += 1
    return Check("holds", f"C(f_Shuffle) <= T(P, Q) at {cnt} levels (exact; e^eps0 in "
                 f"{{3, 5/2, 9}}, n <= 8), equal at {eq} of them (n = 1: C(f_Shuffle) = "
                 "max(0, 2w - alpha) touches f_{eps0,0} at its kink); f_Shuffle itself is not "
                 "a lower bound (it exceeds T(P, Q) at the kink for n = 1): the hull is needed")


def _thm42() -> list:
    out = []
    for E, n in THM42_CASES:
        P0, Q0, P, Q = _pairs(E, n)
        w = 1 / (E + 1)
        bound = ta.SymmetricHull(ta.Mix(_T(P0, Q0), _S(1 - 2 * w)))  # C(f_Shuffle)
        lib = _library(E, n, bound="wang")
        out += [ta.verify(_T(P, Q), ">=", bound),  # the theorem, for the literal pairs
                # the library's bound="wang" is C(f_Shuffle): below it exactly, equal at its knots
                ta.verify(bound, ">=", lib)]
        k0 = _np_knots(P0, Q0)
        out += _at_knots(lib, _lower_hull(_hull_of_min([(x, 2 * w * (1 - x) + (1 - 2 * w) * y)
                                                        for x, y in k0])))
    return out


stated(PAPER, "Thm. 4.2", "the shuffled mechanism is C(f_Shuffle)-DP, f_Shuffle = 2w Id + "
       "(1-2w) T(P0, Q0); exactly at (e^eps0, n) = (3, 1), (3, 5), (5/2, 8), (9, 7): "
       "T(P, Q) >= C(f_Shuffle) for the literal pairs, and ShuffleDP(eps0, n, bound='wang') "
       "<= C(f_Shuffle), equal at its knots (exact)", _thm42,
       crosscheck=thm42_bound)


# -- Cor. 4.3 and Table 1 -----------------------------------------------------------------------
TABLE1_EPS0, TABLE1_N = R(1111, 250), 10**4
TABLE1 = {R(1, 2): (3, -6), R(3, 5): (1, -7), R(7, 10): (4, -9), R(4, 5): (9, -11),
          R(9, 10): (2, -12), R(1): (2, -14)}  # eps: (digit, exponent) as printed
def _cor43_delta(e0: float, n: int, eps: float) -> float:
    """delta of f_Shuffle at eps (Cor. 4.3): the supporting line of slope -e^eps touches
    f_Shuffle = 2w Id + (1-2w) T(P0, Q0) where the P0-likelihood ratio crosses
    r* = (e^eps - 2w)/(1 - 2w); delta = (1-2w) Q0(S) - (e^eps - 2w) P0(S), S = {b/a > r*},
    with P0(S) = sum_c w_c F_c(ceil((c - r*)/(1+r*)) - 1) and
    Q0(S) = sum_c w_c F_c(ceil((c+1)/(1+r*)) - 1) (scipy's binomial CDFs, float64)."""
    from scipy.stats import binom

    E = math.exp(e0)
    w = 1 / (E + 1)
    r = (math.exp(eps) - 2 * w) / (1 - 2 * w)
    c = np.arange(n)
    wc = binom.pmf(c, n - 1, 2 * w)
    kp = np.ceil((c - r) / (1 + r)) - 1
    kq = np.ceil((c + 1) / (1 + r)) - 1
    P0S = float(np.sum(wc * binom.cdf(kp, c, 0.5)))
    Q0S = float(np.sum(wc * binom.cdf(kq, c, 0.5)))
    return (1 - 2 * w) * Q0S - (math.exp(eps) - 2 * w) * P0S


def cor43_table1() -> Check:
    f = ta.shuffle(TABLE1_EPS0, TABLE1_N)
    fw = ta.shuffle(TABLE1_EPS0, TABLE1_N, bound="wang")
    rows = []
    for eps, (m, e) in TABLE1.items():
        pd = m * 10.0**e
        d = _cor43_delta(float(TABLE1_EPS0), TABLE1_N, float(eps))
        lib = float(ta.delta(fw, eps, dps=15).mid)
        ex = ta.delta(f, eps, dps=15).mid
        if not (0.5 * pd <= d <= 1.5 * pd):
            return Check("fails", f"eps={eps}: Cor. 4.3 gives {d:.3g}, printed {pd:g}")
        if not abs(lib - d) <= 1e-9 * d:
            return Check("fails", f"eps={eps}: the library's bound='wang' delta {lib:.12g} is "
                         f"not Cor. 4.3 recomputed, {d:.12g}")
        if not ex <= d * (1 + 1e-6):
            return Check("fails", f"eps={eps}: exact T(P, Q) delta {ex} exceeds Cor. 4.3 {d:.3g}")
        rows.append(f"{float(eps)}: {d:.3g} (exact pair {float(ex):.2g})")
    return Check("holds", "Cor. 4.3 recomputed with scipy's binomial CDFs (float64) equals the "
                 "library's bound='wang' delta to 1e-9 and rounds to the printed values; the "
                 "exact pair's delta is smaller: " + "; ".join(rows))


def _table1() -> list:
    f = ta.shuffle(TABLE1_EPS0, TABLE1_N, bound="wang")
    out = []
    for eps, (m, e) in TABLE1.items():
        d = ta.delta(f, eps)  # a certified Value
        out += [ta.verify(d, ">=", R(2 * m - 1, 2) * R(10) ** e),
                ta.verify(d, "<=", R(2 * m + 1, 2) * R(10) ** e)]
    return out


stated(PAPER, "Cor. 4.3 and Table 1", "delta_{f-DP}(eps) for eps0 = 4.444, n = 10^4: "
       "3e-6, 1e-7, 4e-9, 9e-11, 2e-12, 2e-14 at eps = 0.5, ..., 1.0 (the delta of "
       "C(f_Shuffle) in each printed value's rounding interval)", _table1,
       crosscheck=cor43_table1)


# --- Thm. 5.1 on a box: the unclipped example of Sec. 5 ----------------------------------------
THM51_A = sp.Symbol("a", positive=True)
THM51_T = sp.Symbol("t", real=True)


def _q(x: sp.Rational):
    from flint import arb, fmpq

    return arb(fmpq(int(x.p), int(x.q)))


def _thm51_cell(n: int, cell: dict, prec: int = 40) -> tuple:
    """Decide Thm. 5.1 on one cell a in [a0, a1], t in [t0, t1] (s = -t) of the unclipped
    example with n records, sigma = 1.

    The right side's point (alpha_R(a, s), beta_R(a, s)) has alpha_R non-increasing and beta_R
    non-decreasing in s (t_I = s/|mu_I| + |mu_I|/2 grows with s), so over the cell it lies in
    alpha_R <= alpha_R(a, s_lo), beta_R <= beta_R(a, s_hi). The left side T_a is
    non-increasing; for one half-width w (chosen at the centre m), G(a) = alpha_L(a, w) -
    alpha_R(a, s_lo) >= 0 and K(a) = beta_L(a, w) - beta_R(a, s_hi) >= 0 on [a0, a1] give
    T_a(alpha_R) >= T_a(alpha_L(a, w)) = beta_L(a, w) >= beta_R. G and K are bounded by the
    mean value theorem: G(a) >= G(m) - h sup|G'|, G' = d alpha_L/da (closed form, a ball over
    the cell) - d alpha_R/da (Arb integration at m, widened by CURVATURE h); K alike."""
    from flint import arb

    from tradeoff_algebra.bounds.initialisation_unclipped import (
        CURVATURE,
        joint_alpha,
        joint_beta,
        output_point,
        output_slopes,
    )
    from tradeoff_algebra.numeric.context import arb_precision

    (a0, a1), (t0, t1) = cell[THM51_A], cell[THM51_T]
    m, h = (a0 + a1) / 2, (a1 - a0) / 2
    with arb_precision(prec + 24):
        M, H = _q(m), _q(h)
        A = _q(a0).union(_q(a1))  # a ball containing the cell [a0, a1]
        S_lo, S_hi = _q(-t1), _q(-t0)
        al = joint_alpha(M, S_lo, prec=prec)
        be = joint_beta(M, S_hi, prec=prec)

        def bisect(pred):  # the smallest dyadic w in [0, 2^10] with pred(w), to 2^-40
            lo, hi = arb(0), arb(1)
            while not pred(hi):
                hi *= 2
                if hi > 2**10:
                    return None
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (lo, mid) if pred(mid) else (mid, hi)
            return hi

        w0 = bisect(lambda w: output_point(M, n, w)[0].mid() >= al.mid())
        w1 = bisect(lambda w: output_point(M, n, w)[1].mid() <= be.mid())
        if w0 is None or w1 is None or not w1 > w0:
            return None, None
        w = (w0 + w1) / 2
        aL, bL = output_point(M, n, w)
        daL, dbL = output_slopes(A, n, w)
        wide = CURVATURE * H * arb(-1).union(arb(1))
        dal = joint_alpha(M, S_lo, prec=prec, deriv=True) + wide
        dbe = joint_beta(M, S_hi, prec=prec, deriv=True) + wide
        G = (aL - al) - H * abs(daL - dal).upper()
        K = (bL - be) - H * abs(dbL - dbe).upper()
        if G.lower() >= 0 and K.lower() >= 0:
            return True, ""
    return None, None


def thm51_unclipped(n: int, a_box: tuple, t_box: tuple, seconds: float = 60.0):
    """Thm. 5.1 for the unclipped linear example of Sec. 5 (sigma = 1, n records, slope a):
    T(theta(D0), theta(D1))(alpha(t)) >= E_I[...](t) for every (a, t) of the box (a > 0),
    decided by a certified cover (``verify.cover.run_cover``, each cell by
    :func:`_thm51_cell`), as a Verdict over the box (True only when every cell is proved)."""
    import time

    from tradeoff_algebra.bounds.initialisation_unclipped import output_laws
    from tradeoff_algebra.verify.cover import run_cover
    from tradeoff_algebra.verify.verdict import Verdict

    if not R(a_box[0]) > 0:
        raise ta.InvalidParameter("a_box", a_box, "slopes a > 0 (the bounds in a assume a >= 0)")
    t0 = time.perf_counter()
    box = {THM51_A: (R(a_box[0]), R(a_box[1])), THM51_T: (R(t_box[0]), R(t_box[1]))}
    cov = run_cover(box, lambda cell: _thm51_cell(n, cell), max_cells=4000, seconds=seconds)
    m0, s0, m1, s1 = output_laws(THM51_A, n)
    lhs = ta.Functional("evaluate", ta.NormalPair(m0, s0, m1, s1),
                        sp.Function("alpha")(THM51_A, THM51_T))
    rhs = sp.Function("E_I")(THM51_A, THM51_T)
    ev = (f"n = {n}: {cov.evidence}; on each cell the right side's point (Arb integration at "
          "the cell's extreme t and centre a) lies below a point of the left side's normal-pair "
          "curve (closed form in Arb), for every a of the cell by the mean value theorem "
          "(derivatives in a by Arb integration and closed forms, the curvature bound 2)")
    return Verdict(lhs, ">=", rhs, box, cov.status, "certified cover", ev,
                   seconds=time.perf_counter() - t0)
