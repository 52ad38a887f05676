"""Independent Neyman-Pearson references for the closed-form families (used only by the tests).

Nothing here imports the package. Every trade-off value is computed from the distributions
themselves: a threshold test whose size is solved for by bracketing and root polishing on CDFs
written with ``mpmath.erfc`` / ``mpmath.exp`` directly (Gaussian, Laplace), or a brute-force
search over all randomized tests of a finite pair (the four-point pair of f_{eps,delta}, Id,
Zero). Levels are passed as exact rationals ``(p, q)`` or SymPy/Python numbers so that both
``alpha`` and ``1 - alpha`` keep full relative accuracy.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import mpmath
from mpmath import mp

__all__ = ["level", "gauss_np", "gauss_np_quad", "laplace_np", "finite_np", "four_point_pair",
           "digits"]


def level(alpha):
    """(alpha, 1 - alpha) as mpf at the current precision, each with full relative accuracy.

    ``alpha`` may be a SymPy Rational, a Fraction, an int, a decimal string or an mpf (mpf
    complements are formed at the current precision, fine for moderate levels).
    """
    if isinstance(alpha, mpmath.mpf):
        return alpha, 1 - alpha
    if isinstance(alpha, str):
        fr = Fraction(alpha)
    elif hasattr(alpha, "p") and hasattr(alpha, "q"):
        fr = Fraction(int(alpha.p), int(alpha.q))
    else:
        fr = Fraction(alpha)
    p, q = fr.numerator, fr.denominator
    return mp.mpf(p) / q, mp.mpf(q - p) / q


def _solve_increasing(h, lo, hi):
    """The root of an increasing function h on [lo, hi], to the working precision.

    Bisection narrows the bracket to 2^-40 of its width; the Illinois method (a bracketing
    regula falsi, it keeps a sign change) then converges quickly. If it fails to meet the
    tolerance, plain bisection finishes the job: it cannot be fooled, only slow.
    """
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    assert h(lo) <= 0 <= h(hi), "root not bracketed"
    for _ in range(40):
        mid = (lo + hi) / 2
        if h(mid) < 0:
            lo = mid
        else:
            hi = mid
    try:
        t = mpmath.findroot(h, (lo, hi), solver="illinois", tol=mpmath.ldexp(1, -2 * mp.prec))
        if lo <= t <= hi:
            return t
    except (ValueError, ZeroDivisionError):
        pass
    for _ in range(mp.prec + 64):  # pragma: no cover - fallback
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break
        if h(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- Gaussian: N(0, 1) against N(mu, 1), reject for x > t --------------------------------------
def _gauss_sf(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def _gauss_cdf(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def _gauss_threshold(a, ac):
    """t with P(N(0,1) > t) = alpha, from the side where alpha or 1 - alpha is small."""
    if a == 0:
        return mp.inf
    if ac == 0:
        return mp.ninf
    if a <= ac:
        # log P(X > t) - log a is decreasing in t
        la = mpmath.log(a)
        return _solve_increasing(lambda t: la - mpmath.log(_gauss_sf(t)), mp.mpf(-1), mp.mpf(80))
    lac = mpmath.log(ac)
    return _solve_increasing(lambda t: mpmath.log(_gauss_cdf(t)) - lac, mp.mpf(-80), mp.mpf(1))


def gauss_np(mu, alpha, roc: bool = False):
    """T(N(0,1), N(mu,1))(alpha) (or the power 1 - T when ``roc``), by the Neyman-Pearson test."""
    a, ac = level(alpha)
    mu = mp.mpf(mu)
    t = _gauss_threshold(a, ac)
    if roc:  # power P(N(mu,1) > t)
        return mp.zero if t == mp.inf else (mp.one if t == mp.ninf else _gauss_sf(t - mu))
    return mp.one if t == mp.inf else (mp.zero if t == mp.ninf else _gauss_cdf(t - mu))


def gauss_np_quad(mu, alpha):
    """The same type-II error by quadrature of the N(mu, 1) density up to the threshold."""
    a, ac = level(alpha)
    mu = mp.mpf(mu)
    t = _gauss_threshold(a, ac)
    dens = lambda x: mpmath.exp(-(x - mu) ** 2 / 2) / mpmath.sqrt(2 * mp.pi)  # noqa: E731
    return mpmath.quad(dens, [mp.ninf, mu, t]) if t > mu else mpmath.quad(dens, [mp.ninf, t])


# -- Laplace: Lap(0, 1) against Lap(mu, 1), monotone likelihood ratio, reject for x > t --------
def _lap_cdf(x, b):
    """CDF of Lap(b, 1) at x."""
    z = x - b
    return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2


def _lap_sf(x, b):
    z = x - b
    return 1 - mpmath.exp(z) / 2 if z < 0 else mpmath.exp(-z) / 2


def laplace_np(mu, alpha, roc: bool = False):
    """T(Lap(0,1), Lap(mu,1))(alpha) from alpha(t) = P_0(X > t), beta(t) = P_mu(X <= t)."""
    a, ac = level(alpha)
    mu = mp.mpf(mu)
    if a == 0:
        return mp.zero if roc else mp.one
    if ac == 0:
        return mp.one if roc else mp.zero
    if a <= ac:
        la = mpmath.log(a)
        t = _solve_increasing(lambda t: la - mpmath.log(_lap_sf(t, 0)), mp.mpf(-1),
                              mp.mpf(2000))
    else:
        lac = mpmath.log(ac)
        t = _solve_increasing(lambda t: mpmath.log(_lap_cdf(t, 0)) - lac, mp.mpf(-2000),
                              mp.mpf(1))
    return _lap_sf(t, mu) if roc else _lap_cdf(t, mu)


# -- finite pairs: brute force over every deterministic test, then randomized mixtures -----------
def finite_np(P, Q, alpha, roc: bool = False):
    """T(P, Q)(alpha) for finite P, Q by brute force (exact for Fractions, mpf otherwise).

    With ``roc`` the largest power 1 - T(P, Q)(alpha) is returned, computed from the powers
    Q(S) themselves (no subtraction from 1).

    A randomized test is a point of [0, 1]^k; its (size, type-II error) lies in the convex hull
    of the 2^k deterministic tests (rejection sets S). Minimising the type-II error subject to
    size <= alpha is a linear program with one constraint, so the optimum mixes at most two
    deterministic tests: enumerate all single tests and all pairs.
    """
    k = len(P)
    pts = []
    for S in product((0, 1), repeat=k):
        size = sum(p for p, s in zip(P, S, strict=True) if s)
        if roc:  # minimise minus the power
            err = -sum(q for q, s in zip(Q, S, strict=True) if s)
        else:
            err = sum(q for q, s in zip(Q, S, strict=True) if not s)
        pts.append((size, err))
    best = None
    for size, err in pts:
        if size <= alpha and (best is None or err < best):
            best = err
    for (s1, e1), (s2, e2) in combinations(pts, 2):
        if s1 > s2:
            s1, e1, s2, e2 = s2, e2, s1, e1
        if s1 <= alpha <= s2 and s1 != s2:
            lam = (alpha - s1) / (s2 - s1)
            v = (1 - lam) * e1 + lam * e2
            if best is None or v < best:
                best = v
    return -best if roc else best


def four_point_pair(e_eps, delta):
    """The four-point pair (P, Q) whose trade-off is f_{eps,delta} (Dong, Roth & Su, Prop. 3).

    ``e_eps`` is e^eps. P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0) and
    Q = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta).
    """
    s = (1 - delta) / (1 + e_eps)
    P = (delta, s * e_eps, s, 0 * delta)
    Q = (0 * delta, s, s * e_eps, delta)
    return P, Q


def digits(x, ref) -> float:
    """Correct significant digits of x against ref (relative; absolute when ref == 0)."""
    x, ref = mp.mpf(x), mp.mpf(ref)
    err = abs(x - ref)
    if err == 0:
        return float("inf")
    scale = abs(ref) if ref != 0 else mp.one
    return float(-mpmath.log10(err / scale))


def shuffle_p0_q0(E, n):
    """(P0, Q0) of the shuffle pair as dicts on the points (a, b): P0 = law of (A+1, C-A),
    Q0 = law of (A, C-A+1), A ~ Binom(C, 1/2), C ~ Binom(n-1, 2w), w = 1/(E+1) (Feldman,
    McMillan & Talwar as restated by Wang et al., Sec. 4.1). E a Fraction (exact) or an mpf."""
    w = 1 / (E + 1)
    P0: dict = {}
    Q0: dict = {}
    for c in range(n):
        wc = math.comb(n - 1, c) * (2 * w) ** c * (1 - 2 * w) ** (n - 1 - c)
        for A in range(c + 1):
            m = wc * math.comb(c, A) / (Fraction(2) ** c if isinstance(E, Fraction)
                                        else mp.mpf(2) ** c)
            P0[(A + 1, c - A)] = P0.get((A + 1, c - A), 0) + m
            Q0[(A, c - A + 1)] = Q0.get((A, c - A + 1), 0) + m
    return P0, Q0


def literal_pair(E, n):
    """(P, Q) on the points (a, b): P = (1-w)P0 + wQ0, Q = (1-w)Q0 + wP0 with (P0, Q0) of
    :func:`shuffle_p0_q0`, w = 1/(E+1). E a Fraction (exact) or an mpf (current precision)."""
    w = 1 / (E + 1)
    P0, Q0 = shuffle_p0_q0(E, n)
    pts = sorted(set(P0) | set(Q0))
    P = [(1 - w) * P0.get(k, 0) + w * Q0.get(k, 0) for k in pts]
    Q = [(1 - w) * Q0.get(k, 0) + w * P0.get(k, 0) for k in pts]
    return pts, P, Q
