"""A generated suite of claims that ``ta.verify`` can decide, each with its truth known from a
source independent of the verifier (used by tests/test_verify_decidable.py).

A claim is *decidable* at ``dps`` digits when its truth does not hang on digits beyond them:
the sides differ somewhere by at least 10^(1 - dps) (relative) or they touch only where an
argument from structure decides (equal sides, the ends alpha = 0 and 1 every trade-off function
shares, a face of a parameter box where both sides are the same expression). The truth of each
claim comes from one of:

* **order by construction**: G_mu, L_mu and f_{eps,delta} are non-increasing in their parameters
  and strictly so where the claim uses them (Dong, Roth & Su, Sec. 2.2 and Eq. (5)); f (x) g <= f
  (Lemma 4); Max is the pointwise maximum;
* **identities of the papers**: G_a (x) G_b = G_sqrt(a^2 + b^2) and G_mu^{(x) n} = G_{sqrt(n) mu}
  (Cor. 2), f_{eps,0}^{(x) n} = the n-fold randomized response (BinomialDP), T(P, Q)^-1 = T(Q, P),
  group privacy 1 - (1 - G_mu)^{o k} = G_{k mu} (Thm. 3), C_1(f) = f for symmetric f, the closed
  privacy profile of G_mu (Cor. 1);
* **exact arithmetic here**: the Neyman-Pearson knots of finite pairs (and of f_{eps,delta} with
  e^eps rational, the four-point pair of Prop. 3) computed with Fractions; two piecewise-linear
  functions compared at the union of their knots;
* **mpmath at 60 digits** for a threshold (delta_mu(eps) of Cor. 1, G_mu at a knot), kept only
  where the margin exceeds 10^-25.

Nothing here imports the package's verification code: the claims are built from the public
constructors and their truth is computed from the definitions.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

import mpmath
import sympy as sp

import tradeoff_algebra as ta

__all__ = ["Claim", "claims", "run", "summary"]

R = sp.Rational
mu, nu = sp.symbols("mu nu", positive=True)
x = sp.Symbol("x", real=True)
t = sp.Symbol("t", positive=True)


@dataclass
class Claim:
    """``verify(lhs, rel, rhs, over)`` whose truth is ``truth``, known from ``source``."""

    name: str
    lhs: Any
    rel: str
    rhs: Any
    truth: bool
    source: str
    over: dict | None = None
    tags: tuple = field(default_factory=tuple)

    def verify(self, dps: int = 30):
        return ta.verify(self.lhs, self.rel, self.rhs, over=self.over, dps=dps)


# -- exact Neyman-Pearson knots of finite pairs ---------------------------------------------------
def np_knots(P, Q) -> list[tuple[Fraction, Fraction]]:
    """The knots (alpha, beta) of T(P, Q) for finite P, Q (Fractions): the likelihood-ratio
    test rejects the outcomes in decreasing order of Q/P (Neyman-Pearson), each knot the size
    sum P and type-II error 1 - sum Q of a prefix."""
    P, Q = [Fraction(p) for p in P], [Fraction(q) for q in Q]
    inf = [i for i in range(len(P)) if P[i] == 0 and Q[i] > 0]
    rest = sorted((i for i in range(len(P)) if P[i] > 0), key=lambda i: -Q[i] / P[i])
    a, b = Fraction(0), Fraction(1)
    for i in inf:
        b -= Q[i]
    pts = [(a, b)] if not inf else [(Fraction(0), Fraction(1)), (a, b)]
    for i in rest:
        a, b = a + P[i], b - Q[i]
        pts.append((a, b))
    return _hull(pts)


def _hull(pts):
    """The lower convex hull of points sorted by alpha (ties: the smaller beta)."""
    pts = sorted(set(pts))
    out: list = []
    for p in pts:
        if out and out[-1][0] == p[0]:
            continue
        while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
            out.pop()
        out.append(p)
    return out


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def pl_at(knots, a: Fraction) -> Fraction:
    """The piecewise-linear function through ``knots`` at ``a`` (0 beyond the last knot)."""
    if a >= knots[-1][0]:
        return Fraction(0)
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        if x0 <= a <= x1:
            return y0 + (y1 - y0) * (a - x0) / (x1 - x0)
    raise ValueError(a)


def pl_compare(kf, kg) -> tuple[bool, bool, Fraction]:
    """(f >= g everywhere, f == g everywhere, max of g - f) on [0, 1]: the difference is linear
    between the union of the knots."""
    xs = sorted({a for a, _ in kf} | {a for a, _ in kg} | {Fraction(0), Fraction(1)})
    d = [pl_at(kg, a) - pl_at(kf, a) for a in xs]
    return max(d) <= 0, all(v == 0 for v in d), max(d)


def inv_knots(k):
    """The knots of f^-1 (Dong, Roth & Su, Eq. (3)): the graph reflected in the diagonal, with
    f^-1 = 0 above f(0) and the smallest zero of f at alpha = 0 (the lower hull keeps them)."""
    return _hull([(y, x) for x, y in k] + [(Fraction(1), Fraction(0))])


def symm_hull_knots(k):
    """min{f, f^-1}^** for piecewise-linear convex f: the lower convex hull of both graphs."""
    return _hull(list(k) + inv_knots(k))


def mix_knots(k, p: Fraction):
    """f_p = p f + (1 - p) Id (Sec. 4.1): Id is linear, so the knots stay."""
    return [(x, p * y + (1 - p) * (1 - x)) for x, y in k]


def rr(E: Fraction):
    """The randomized-response pair of f_{log E, 0} (Prop. 3 with delta = 0)."""
    return (E / (1 + E), 1 / (1 + E)), (1 / (1 + E), E / (1 + E))


def four_point(E: Fraction, d: Fraction):
    s = (1 - d) / (1 + E)
    return (d, s * E, s, Fraction(0)), (Fraction(0), s, s * E, d)


def product_pair(P1, Q1, P2, Q2):
    return ([p * q for p in P1 for q in P2], [p * q for p in Q1 for q in Q2])


def binomial_pair(E: Fraction, n: int):
    from math import comb

    a, b = E / (1 + E), 1 / (1 + E)
    P = [comb(n, k) * b**k * a ** (n - k) for k in range(n + 1)]
    Q = [comb(n, k) * a**k * b ** (n - k) for k in range(n + 1)]
    return P, Q


def _sp(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def _disc(P, Q):
    return ta.Discrete([_sp(p) for p in P], [_sp(q) for q in Q])


# -- mpmath references (60 digits) ----------------------------------------------------------------
def _mpq(x) -> mpmath.mpf:
    """An exact rational (Fraction, SymPy Rational or int) at the current precision."""
    x = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def g_at(m, a) -> mpmath.mpf:
    """G_m(a) = Phi(Phi^-1(1 - a) - m) (Eq. (6)) with mpmath's own normal distribution, at 60
    digits (m and a exact rationals)."""
    with mpmath.workdps(60):
        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * _mpq(a) - 1)
        return mpmath.ncdf(z - _mpq(m))


def delta_g(m, eps) -> mpmath.mpf:
    """delta_{G_m}(eps) = Phi(-eps/m + m/2) - e^eps Phi(-eps/m - m/2) (Cor. 1), at 60 digits
    (m and eps exact rationals)."""
    with mpmath.workdps(60):
        m, eps = _mpq(m), _mpq(eps)
        return mpmath.ncdf(-eps / m + m / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / m - m / 2)


def delta_laplace(m, eps) -> mpmath.mpf:
    """delta(eps) of L_m = T(Lap(0, 1), Lap(m, 1)): the integral of (q - e^eps p)_+ by mpmath's
    quadrature at 40 digits, split where the integrand has kinks (0, m and the crossing
    (m + eps)/2 of q = e^eps p)."""
    with mpmath.workdps(40):
        m, eps = _mpq(m), _mpq(eps)
        E = mpmath.exp(eps)

        def h(x):
            return max(mpmath.exp(-abs(x - m)) / 2 - E * mpmath.exp(-abs(x)) / 2, 0)

        cuts = sorted({mpmath.mpf(0), m, (m + eps) / 2})
        return mpmath.quad(h, [-mpmath.inf, *cuts, mpmath.inf])


MARGIN = mpmath.mpf(10) ** -25


# -- the claims ----------------------------------------------------------------------------------
def claims(seed: int = 0) -> list[Claim]:  # noqa: C901 - one list, built family by family
    """The suite: about 190 claims, deterministic for a given ``seed``."""
    rng = random.Random(seed)
    out: list[Claim] = []

    def add(name, lhs, rel, rhs, truth, source, over=None, tags=()):
        out.append(Claim(name, lhs, rel, rhs, truth, source, over, tuple(tags)))

    mono = "order by construction (Sec. 2.2)"
    # G_mu: strictly decreasing in mu, sides touch only at alpha = 0, 1
    gs = [R(1, 4), R(1, 2), 1, R(3, 2), 2, 3]
    for a, b in combinations(gs, 2):  # a < b
        add(f"G({a}) >= G({b})", ta.G(a), ">=", ta.G(b), True, mono, tags=("G", "fast"))
        add(f"G({a}) <= G({b})", ta.G(a), "<=", ta.G(b), False, mono, tags=("G",))
    for a, b in ((R(1, 2), 1), (1, 3), (2, R(5, 2))):
        add(f"G({b}) >= G({a})", ta.G(b), ">=", ta.G(a), False, mono, tags=("G", "fast"))
        add(f"G({a}) == G({b})", ta.G(a), "==", ta.G(b), False, mono, tags=("G", "fast"))
    # Laplace and f_{eps,delta}
    ls = [R(1, 2), 1, 2]
    for a, b in combinations(ls, 2):
        add(f"L({a}) >= L({b})", ta.Laplace(a), ">=", ta.Laplace(b), True, mono,
            tags=("Laplace", "fast"))
        add(f"L({a}) <= L({b})", ta.Laplace(a), "<=", ta.Laplace(b), False, mono,
            tags=("Laplace",))
    add("L(1) == L(2)", ta.Laplace(1), "==", ta.Laplace(2), False, mono, tags=("Laplace",))
    # L_mu is mu-DP and tangent to f_{mu,0} at alpha = 0 (slope -e^mu); not eps-DP for eps < mu
    for m in (R(1, 2), 1, 2):
        add(f"L({m}) >= f_({m},0)", ta.Laplace(m), ">=", ta.EpsDelta(m, 0), True,
            "L_mu is mu-DP, tangent at 0", tags=("Laplace", "tangent"))
        add(f"L({m}) >= f_({m}/2,0)", ta.Laplace(m), ">=", ta.EpsDelta(m / 2, 0), False,
            "L_mu = 1 - e^mu alpha near 0", tags=("Laplace",))
    # f_{eps,delta} with e^eps rational: exact knots here
    Es = [Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)]
    ds = [Fraction(0), Fraction(1, 100), Fraction(1, 10)]
    pairs = [(E, d) for E in Es for d in ds]
    for _ in range(30):
        (E1, d1), (E2, d2) = rng.sample(pairs, 2)
        k1, k2 = np_knots(*four_point(E1, d1)), np_knots(*four_point(E2, d2))
        ge, _, _ = pl_compare(k1, k2)
        rel = rng.choice([">=", "<="])
        truth = ge if rel == ">=" else pl_compare(k2, k1)[0]
        f1 = ta.EpsDelta(sp.log(_sp(E1)), _sp(d1))
        f2 = ta.EpsDelta(sp.log(_sp(E2)), _sp(d2))
        add(f"f_(log {E1},{d1}) {rel} f_(log {E2},{d2})", f1, rel, f2, truth,
            "exact knots (Prop. 3)", tags=("EpsDelta", "fast"))
    # finite pairs: random 3-point pairs, exact knots
    def rand_dist(k):
        w = [rng.randint(1, 9) for _ in range(k)]
        s = sum(w)
        return [Fraction(v, s) for v in w]

    for i in range(16):
        P1, Q1 = rand_dist(3), rand_dist(3)
        if i % 2:  # a post-processing of the first pair (merging two outcomes): above it
            P2, Q2 = [P1[0] + P1[1], P1[2]], [Q1[0] + Q1[1], Q1[2]]
        else:
            P2, Q2 = rand_dist(3), rand_dist(3)
        k1, k2 = np_knots(P1, Q1), np_knots(P2, Q2)
        ge, eq, _ = pl_compare(k2, k1)
        add(f"T{i}' >= T{i}", _disc(P2, Q2), ">=", _disc(P1, Q1), ge, "exact knots",
            tags=("Discrete", "fast"))
        if i < 6:
            add(f"T{i}^-1 == T(Q, P)", ta.Inverse(_disc(P1, Q1)), "==", _disc(Q1, P1), True,
                "T(P, Q)^-1 = T(Q, P)", tags=("Discrete", "Inverse", "fast"))
            sym = pl_compare(np_knots(P1, Q1), np_knots(Q1, P1))[1]
            add(f"T{i}^-1 == T{i}", ta.Inverse(_disc(P1, Q1)), "==", _disc(P1, Q1), sym,
                "exact knots", tags=("Discrete", "Inverse", "fast"))
    # products of finite pairs
    for i in range(6):
        P1, Q1, P2, Q2 = rand_dist(2), rand_dist(2), rand_dist(3), rand_dist(3)
        Pp, Qp = product_pair(P1, Q1, P2, Q2)
        kt = np_knots(Pp, Qp)
        add(f"T{i}a (x) T{i}b == product", _disc(P1, Q1) @ _disc(P2, Q2), "==", _disc(Pp, Qp),
            True, "product of the pairs (Def. of the tensor product)", tags=("Tensor", "fast"))
        k1 = np_knots(P1, Q1)
        add(f"T{i}a (x) T{i}b >= T{i}a", _disc(P1, Q1) @ _disc(P2, Q2), ">=", _disc(P1, Q1),
            pl_compare(kt, k1)[0], "exact knots", tags=("Tensor", "fast"))
    # BinomialDP: f_{eps,0}^{(x) n}
    for E, n in ((Fraction(2), 3), (Fraction(3, 2), 5), (Fraction(5, 4), 8)):
        e = sp.log(_sp(E))
        add(f"f_(log {E},0)^{n} == BinomialDP", ta.EpsDelta(e, 0) ** n, "==",
            ta.BinomialDP(e, n), True, "n-fold randomized response", tags=("Binomial", "fast"))
        add(f"BinomialDP(log {E}, {n}) >= BinomialDP(.., {n + 1})", ta.BinomialDP(e, n), ">=",
            ta.BinomialDP(e, n + 1), True, "f (x) g <= f (Lemma 4)", tags=("Binomial", "fast"))
        kb = np_knots(*binomial_pair(E, n + 1))
        kn = np_knots(*binomial_pair(E, n))
        add(f"BinomialDP(log {E}, {n + 1}) >= BinomialDP(.., {n})", ta.BinomialDP(e, n + 1),
            ">=", ta.BinomialDP(e, n), pl_compare(kb, kn)[0], "exact knots",
            tags=("Binomial", "fast"))
        Pd, Qd = binomial_pair(E, n)
        add(f"BinomialDP(log {E}, {n}) == its pair", ta.BinomialDP(e, n), "==", _disc(Pd, Qd),
            True, "the binomial pair", tags=("Binomial", "fast"))
        kf = np_knots(*four_point(E ** n, Fraction(0)))
        add(f"BinomialDP(log {E}, {n}) >= f_(n log {E},0)", ta.BinomialDP(e, n), ">=",
            ta.EpsDelta(n * e, 0), pl_compare(kn, kf)[0], "exact knots",
            tags=("Binomial", "fast"))
    # Gaussian identities (Cor. 2) and their perturbations
    for a, b in ((1, 1), (R(1, 2), R(3, 2)), (3, 4), (R(1, 3), 2)):
        c = sp.sqrt(sp.sympify(a) ** 2 + sp.sympify(b) ** 2)
        add(f"G({a}) (x) G({b}) == G(sqrt)", ta.G(a) @ ta.G(b), "==", ta.G(c), True,
            "Cor. 2", tags=("G", "Tensor", "fast"))
        add(f"G({a}) (x) G({b}) == G(a + b)", ta.G(a) @ ta.G(b), "==", ta.G(sp.sympify(a) + b),
            False, "Cor. 2: sqrt(a^2 + b^2) < a + b", tags=("G", "Tensor"))
        add(f"G({a}) (x) G({b}) >= G(a + b)", ta.G(a) @ ta.G(b), ">=", ta.G(sp.sympify(a) + b),
            True, "Cor. 2 and monotonicity", tags=("G", "Tensor", "fast"))
        add(f"G({a}) (x) G({b}) >= G({a})", ta.G(a) @ ta.G(b), ">=", ta.G(a), False,
            "Cor. 2 and monotonicity", tags=("G", "Tensor"))
    for m, n in ((1, 4), (R(1, 2), 9), (R(1, 10), 10)):
        add(f"G({m})^{n} == G(sqrt(n) mu)", ta.G(m) ** n, "==", ta.G(sp.sqrt(n) * m), True,
            "Cor. 2", tags=("G", "fast"))
        add(f"G({m})^{n} <= G({m})", ta.G(m) ** n, "<=", ta.G(m), True, "Lemma 4",
            tags=("G", "fast"))
        add(f"G({m})^{n} >= G({m})", ta.G(m) ** n, ">=", ta.G(m), False, "Cor. 2",
            tags=("G",))
    # group privacy (Thm. 3): 1 - (1 - G_mu)^{o k} = G_{k mu}
    for m, k in ((R(1, 2), 2), (1, 3)):
        add(f"Group(G({m}), {k}) == G(k mu)", ta.Group(ta.G(m), k), "==", ta.G(k * m), True,
            "Thm. 3 (Gaussian)", tags=("Group", "fast"))
        add(f"Group(G({m}), {k}) >= G({m})", ta.Group(ta.G(m), k), ">=", ta.G(m), False,
            "Thm. 3 (Gaussian)", tags=("Group",))
        add(f"Group(G({m}), {k}) <= G({m})", ta.Group(ta.G(m), k), "<=", ta.G(m), True,
            "Thm. 3 (Gaussian)", tags=("Group", "fast"))
    # Max
    add("Max(G(1), G(2)) == G(1)", ta.Max(ta.G(1), ta.G(2)), "==", ta.G(1), True, "G_1 >= G_2",
        tags=("Max", "fast"))
    add("Max(G(1), G(2)) == G(2)", ta.Max(ta.G(1), ta.G(2)), "==", ta.G(2), False, "G_1 > G_2",
        tags=("Max", "fast"))
    add("Max(G(1), f_(1,0)) >= f_(1,0)", ta.Max(ta.G(1), ta.EpsDelta(1, 0)), ">=",
        ta.EpsDelta(1, 0), True, "Max is the pointwise maximum", tags=("Max", "fast"))
    add("Max(G(1), f_(1,0)) >= G(1)", ta.Max(ta.G(1), ta.EpsDelta(1, 0)), ">=", ta.G(1), True,
        "Max is the pointwise maximum", tags=("Max", "fast"))
    add("G(1) >= Max(G(2), G(3))", ta.G(1), ">=", ta.Max(ta.G(2), ta.G(3)), True,
        "monotonicity", tags=("Max", "fast"))
    add("G(2) >= Max(G(1), G(3))", ta.G(2), ">=", ta.Max(ta.G(1), ta.G(3)), False,
        "G_1 > G_2", tags=("Max",))
    add("f_(1,0)^10 >= BinomialDP(1, 11)", ta.EpsDelta(1, 0) ** 10, ">=", ta.BinomialDP(1, 11),
        True, "f (x) g <= f (Lemma 4)", tags=("Binomial", "fast"))
    add("BinomialDP(1, 11) >= f_(1,0)^10", ta.BinomialDP(1, 11), ">=", ta.EpsDelta(1, 0) ** 10,
        False, "strictly below", tags=("Binomial",))
    # G_mu against f_{eps,delta}: G_mu >= f_{eps,delta} iff delta >= delta_mu(eps) (Prop. 6,
    # Cor. 1)
    for m, eps in ((1, 1), (R(1, 2), R(1, 2)), (2, 1), (1, 2)):
        dm = delta_g(sp.Rational(m), sp.Rational(eps))
        for d in (R(1, 100), R(1, 10), R(1, 4), R(1, 2)):
            with mpmath.workdps(60):
                dd = _mpq(d)
                if abs(dd - dm) < MARGIN:
                    continue
                truth = bool(dd >= dm)
            add(f"G({m}) >= f_({eps},{d})", ta.G(m), ">=", ta.EpsDelta(eps, d), truth,
                "Cor. 1 and Prop. 6", tags=("G", "EpsDelta", "duality"))
    # f_{eps,0} >= G_mu iff G_mu <= f_{eps,0} at its knot 1/(1 + e^eps) (G convex below a
    # piecewise-linear function iff at its knots)
    for E, m in ((Fraction(2), 1), (Fraction(2), 3), (Fraction(3), 2), (Fraction(3, 2), 1)):
        k = 1 / (1 + E)
        gv = g_at(m, k)
        with mpmath.workdps(60):
            kv = _mpq(k)
            if abs(gv - kv) < MARGIN:
                continue
            truth = bool(gv <= kv)
        add(f"f_(log {E},0) >= G({m})", ta.EpsDelta(sp.log(_sp(E)), 0), ">=", ta.G(m),
            truth, "G at the knot of f_{eps,0} (mpmath)", tags=("G", "EpsDelta"))
    # C_p (Sec. 4.1): C_1(f) = f for symmetric f, C_p(f) >= f, non-increasing in p
    for f, nm in ((ta.G(1), "G(1)"), (ta.EpsDelta(1, R(1, 10)), "f_(1,1/10)")):
        add(f"C_1({nm}) == {nm}", ta.C(1, f), "==", f, True, "C_1(f) = f (f symmetric)",
            tags=("C", "fast"))
        add(f"C_1/2({nm}) >= {nm}", ta.C(R(1, 2), f), ">=", f, True, "C_p(f) >= f",
            tags=("C", "fast"))
        add(f"C_1/2({nm}) >= C_3/4", ta.C(R(1, 2), f), ">=", ta.C(R(3, 4), f), True,
            "non-increasing in p", tags=("C", "fast"))
        add(f"C_3/4({nm}) >= C_1/2", ta.C(R(3, 4), f), ">=", ta.C(R(1, 2), f), False,
            "strictly at alpha = 1/2", tags=("C",))
        add(f"C_1/2({nm}) <= {nm}", ta.C(R(1, 2), f), "<=", f, False,
            "strictly at alpha = 1/2", tags=("C",))
    # C_p(f_{eps,delta}) (Eq. (14) corrected), in another SymPy form, and the printed one
    p, e, d = R(9, 10), R(1, 2), R(1, 1000)
    E_ = sp.exp(e)
    add("C_p(f_eps,delta) == corrected Eq. (14)", ta.C(p, ta.EpsDelta(e, d)), "==",
        ta.Max(ta.EpsDelta(sp.log(1 - p + p * E_), p * d),
               ta.EpsDelta(0, p * (E_ - 1 + 2 * d) / (E_ + 1))), True,
        "Eq. (14) corrected", tags=("C", "fast"))
    add("C_p(f_eps,delta) == printed Eq. (14)", ta.C(p, ta.EpsDelta(e, d)), "==",
        ta.Max(ta.EpsDelta(sp.log(1 - p + p * E_), p * d),
               ta.EpsDelta(0, p * d + p * (E_ - 1) / (E_ + 1))), False,
        "the printed line is lower by p d (e^eps - 1)/(e^eps + 1)", tags=("C",))
    # inverse of symmetric functions
    for f, nm in ((ta.G(R(3, 2)), "G(3/2)"), (ta.EpsDelta(1, R(1, 5)), "f_(1,1/5)"),
                  (ta.Laplace(1), "L(1)")):
        add(f"{nm}^-1 == {nm}", ta.Inverse(f), "==", f, True, "symmetric", tags=("Inverse",
                                                                                  "fast"))
    # Berry-Esseen (Thm. 5): the composition between its two bounds
    f = ta.EpsDelta(1 / sp.sqrt(10), 0)
    be = ta.berry_esseen(f, 10)
    add("f^10 <= Berry-Esseen upper", f ** 10, "<=", be.upper, True, "Thm. 5",
        tags=("BerryEsseen",))
    add("f^10 >= Berry-Esseen lower", f ** 10, ">=", be.lower, True, "Thm. 5",
        tags=("BerryEsseen",))
    # the upper side Shift(g, -gamma) is the greatest convex minorant of min{1 - alpha,
    # g(alpha - gamma) + gamma}: above g, and G_1/2 > G_1(alpha - 1/100) + 1/100 at alpha = 1/2
    up = ta.Shift(ta.G(1), -R(1, 10))
    add("G(1) <= Shift(G(1), -1/10)", ta.G(1), "<=", up, True, "g below its translate",
        tags=("BerryEsseen", "fast"))
    add("G(2) <= Shift(G(1), -1/10)", ta.G(2), "<=", up, True, "G_2 <= G_1 <= translate",
        tags=("BerryEsseen",))
    add("G(1/2) <= Shift(G(1), -1/100)", ta.G(R(1, 2)), "<=", ta.Shift(ta.G(1), -R(1, 100)),
        False, "Phi(-1/2) > G_1(0.49) + 0.01 at alpha = 1/2", tags=("BerryEsseen",))
    add("G(1) >= Shift(G(1), 1/10)", ta.G(1), ">=", ta.Shift(ta.G(1), R(1, 10)), True,
        "the lower translate lies below g", tags=("BerryEsseen", "fast"))
    # identities the rewriting alone may not reach: antisymmetry, absorbing Max, Id and Zero
    add("Max(L(1), f_(1,0)) == L(1)", ta.Max(ta.Laplace(1), ta.EpsDelta(1, 0)), "==",
        ta.Laplace(1), True, "L_1 >= f_{1,0} (L_mu is mu-DP)", tags=("Max", "Laplace"))
    add("Max(L(1), f_(1/2,0)) == L(1)", ta.Max(ta.Laplace(1), ta.EpsDelta(R(1, 2), 0)), "==",
        ta.Laplace(1), False, "f_{1/2,0} > L_1 near 0", tags=("Max", "Laplace"))
    add("Max(G(1), f_(1,1/4)) == G(1)", ta.Max(ta.G(1), ta.EpsDelta(1, R(1, 4))), "==",
        ta.G(1), True, "delta_1(1) = 0.127 <= 1/4 (Cor. 1)", tags=("Max", "duality"))
    add("G(1) (x) L(1) == L(1) (x) G(1)", ta.G(1) @ ta.Laplace(1), "==",
        ta.Laplace(1) @ ta.G(1), True, "the tensor product is commutative", tags=("Tensor",))
    add("G(0) == Id", ta.G(0), "==", ta.Id, True, "G_0 = Id", tags=("G", "fast"))
    add("f_(0,0) == Id", ta.EpsDelta(0, 0), "==", ta.Id, True, "f_{0,0} = Id",
        tags=("EpsDelta", "fast"))
    add("Zero <= L(3)", ta.Zero, "<=", ta.Laplace(3), True, "Zero is the least",
        tags=("Laplace", "fast"))
    add("Id <= G(1/10)", ta.Id, "<=", ta.G(R(1, 10)), False, "G_mu < Id for mu > 0",
        tags=("G",))
    # pure DP of Laplace compositions (tangent to f_{eps,0} at 0)
    add("L(1) (x) L(1) >= f_(2,0)", ta.Laplace(1) @ ta.Laplace(1), ">=", ta.EpsDelta(2, 0), True,
        "composition of pure DP (Sec. 3)", tags=("Laplace", "Tensor", "tangent"))
    add("L(1) (x) L(1) >= f_(3/2,0)", ta.Laplace(1) @ ta.Laplace(1), ">=",
        ta.EpsDelta(R(3, 2), 0), False, "slope -e^2 at 0", tags=("Laplace", "Tensor"))
    # the tangent line of G_1 of slope -e (Cor. 1): the threshold delta exactly and +- 1e-25
    dstar = ta.Phi(-sp.Integer(1) / 2) - sp.E * ta.Phi(-sp.Integer(3) / 2)
    add("G(1) >= f_(1,delta*)", ta.G(1), ">=", ta.EpsDelta(1, dstar), True,
        "Cor. 1: tangent at one level", tags=("G", "EpsDelta", "tangent"))
    add("G(1) >= f_(1,delta* + 1e-25)", ta.G(1), ">=", ta.EpsDelta(1, dstar + R(1, 10**25)),
        True, "Cor. 1", tags=("G", "EpsDelta"))
    add("G(1) >= f_(1,delta* - 1e-25)", ta.G(1), ">=", ta.EpsDelta(1, dstar - R(1, 10**25)),
        False, "Cor. 1: fails by 1e-25 at the tangent level", tags=("G", "EpsDelta"))
    # scalar values of trade-off functions (Eq. (6)) and closed forms in other SymPy forms
    add("G(1)(1/2) == Phi(-1)", ta.Functional("evaluate", ta.G(1), R(1, 2)), "==",
        ta.Phi(-1), True, "Eq. (6)", tags=("scalar",))
    add("G(1)(1/2) == Phi(-1) + 1e-25", ta.Functional("evaluate", ta.G(1), R(1, 2)), "==",
        ta.Phi(-1) + R(1, 10**25), False, "Eq. (6)", tags=("scalar",))
    add("sqrt(2) + sqrt(3) == sqrt(5 + 2 sqrt 6)", sp.sqrt(2) + sp.sqrt(3), "==",
        sp.sqrt(5 + 2 * sp.sqrt(6)), True, "denesting", tags=("scalar",))
    add("log 8 == 3 log 2", sp.log(8), "==", 3 * sp.log(2), True, "elementary identity",
        tags=("scalar", "fast"))
    add("2 sinh(1/2)^2 == cosh(1) - 1", 2 * sp.sinh(R(1, 2)) ** 2, "==", sp.cosh(1) - 1, True,
        "elementary identity", tags=("scalar",))
    add("Phi(PhiInv(1/3)) == 1/3", ta.Phi(ta.PhiInv(R(1, 3))), "==", R(1, 3), True,
        "inverse functions", tags=("scalar",))
    # boxes over two parameters and over an operator's parameter
    add("f_(mu,nu) >= f_(2,1/2), [0, 2] x [0, 1/2]", ta.EpsDelta(mu, nu), ">=",
        ta.EpsDelta(2, R(1, 2)), True, "Eq. (5)", {mu: (0, 2), nu: (0, R(1, 2))}, ("box",))
    add("G(1) >= f_(1,nu), nu in [1/4, 1/2]", ta.G(1), ">=", ta.EpsDelta(1, nu), True,
        "Cor. 1: delta_1(1) = 0.127", {nu: (R(1, 4), R(1, 2))}, ("box", "duality"))
    add("G(1) >= f_(1,nu), nu in [0, 1/2]", ta.G(1), ">=", ta.EpsDelta(1, nu), False,
        "Cor. 1: delta_1(1) = 0.127", {nu: (0, R(1, 2))}, ("box", "duality"))
    p_ = sp.Symbol("p", positive=True)
    add("C_p(G(1)) >= G(1), p in [0, 1]", ta.C(p_, ta.G(1)), ">=", ta.G(1), True,
        "C_p(f) >= f (f symmetric)", {p_: (0, 1)}, ("box", "C"))
    add("C_p(G(1)) >= C_1/2(G(1)), p in [1/4, 1]", ta.C(p_, ta.G(1)), ">=",
        ta.C(R(1, 2), ta.G(1)), False, "non-increasing in p, strictly", {p_: (R(1, 4), 1)},
        ("box", "C"))
    add("Group(G(mu), 2) == G(2 mu), mu in [0, 2]", ta.Group(ta.G(mu), 2), "==", ta.G(2 * mu),
        True, "Thm. 3 (Gaussian)", {mu: (0, 2)}, ("box", "Group"))
    # random G_mu against f_{eps,delta} (Cor. 1 and Prop. 6), margins from 1e-2 down to 1e-20
    for i in range(24):
        m = R(rng.randint(1, 12), 4)
        eps = R(rng.randint(0, 12), 4)
        dm = delta_g(m, eps)
        j = rng.choice([2, 5, 10, 20])
        sign = rng.choice([-1, 1])
        with mpmath.workdps(60):
            d = sp.Rational(mpmath.nstr(dm, j + 5)) + sign * R(1, 10**j)
            dd = _mpq(d)
            if not 0 < d < 1 or abs(dd - dm) < MARGIN:
                continue
            truth = bool(dd >= dm)
        add(f"G({m}) >= f_({eps}, delta_mu {'+' if sign > 0 else '-'} 1e-{j}) #{i}", ta.G(m),
            ">=", ta.EpsDelta(eps, d), truth, "Cor. 1 and Prop. 6 (mpmath)",
            tags=("G", "EpsDelta", "duality", "random"))
    # subsampled pure DP (Eq. (14) with delta = 0): above f_{eps',0}, eps' = log(1 - p + p e^eps)
    for p_, e_ in ((R(1, 2), 1), (R(1, 10), 2)):
        ep = sp.log(1 - p_ + p_ * sp.exp(e_))
        add(f"C_{p_}(f_({e_},0)) >= f_(eps',0)", ta.C(p_, ta.EpsDelta(e_, 0)), ">=",
            ta.EpsDelta(ep, 0), True, "Eq. (14) corrected", tags=("C", "EpsDelta"))
        add(f"C_{p_}(f_({e_},0)) >= f_(eps'/2,0)", ta.C(p_, ta.EpsDelta(e_, 0)), ">=",
            ta.EpsDelta(ep / 2, 0), False, "Eq. (14): slope -e^eps' at 0",
            tags=("C", "EpsDelta"))
    # long binomial compositions: exact knots here
    E30 = Fraction(3, 2)
    k30 = np_knots(*binomial_pair(E30, 30))
    for n_eps, d in ((30, Fraction(0)), (12, Fraction(1, 100)), (8, Fraction(1, 10))):
        kf = np_knots(*four_point(E30 ** n_eps, d))
        add(f"BinomialDP(log 3/2, 30) >= f_({n_eps} log 3/2, {d})",
            ta.BinomialDP(sp.log(R(3, 2)), 30), ">=",
            ta.EpsDelta(n_eps * sp.log(R(3, 2)), _sp(d)), pl_compare(k30, kf)[0], "exact knots",
            tags=("Binomial", "EpsDelta"))
    # the same parameters in other SymPy forms
    add("f_(log 2 + log 3, 0) == f_(log 6, 0)", ta.EpsDelta(sp.log(2) + sp.log(3), 0), "==",
        ta.EpsDelta(sp.log(6), 0), True, "log 2 + log 3 = log 6", tags=("EpsDelta", "fast"))
    add("G(sqrt(8)/2) == G(sqrt 2)", ta.G(sp.sqrt(8) / 2), "==", ta.G(sp.sqrt(2)), True,
        "sqrt 8 / 2 = sqrt 2", tags=("G", "fast"))
    add("Inverse(Inverse(T)) == T", ta.Inverse(ta.Inverse(_disc(*rr(Fraction(3))))), "==",
        _disc(*rr(Fraction(3))), True, "an involution", tags=("Inverse", "fast"))
    # pure DP of compositions over a box (tangent at alpha = 0 for every parameter value)
    add("L(mu) (x) L(nu) >= f_(mu + nu, 0), [1/2, 1]^2", ta.Laplace(mu) @ ta.Laplace(nu), ">=",
        ta.EpsDelta(mu + nu, 0), True, "composition of pure DP",
        {mu: (R(1, 2), 1), nu: (R(1, 2), 1)}, ("box", "Laplace", "tangent"))
    add("G(mu) >= f_(1, delta_mu(1)), mu in [1/2, 2]", ta.G(mu), ">=",
        ta.EpsDelta(1, ta.Phi(-1 / mu + mu / 2) - sp.E * ta.Phi(-1 / mu - mu / 2)), True,
        "Cor. 1 (tangent at one level for every mu)", {mu: (R(1, 2), 2)},
        ("box", "duality", "tangent"))
    # operators on finite pairs: the symmetric hull, C_p, the mixture f_p and the inverse,
    # against random finite pairs, the truth from their exact knots (Sec. 4.1, Eq. (3))
    for i in range(24):
        P1, Q1 = rand_dist(3), rand_dist(3)
        k1 = np_knots(P1, Q1)
        p_ = rng.choice([Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)])
        op = i % 4
        if op == 0:
            f, kf, nm = ta.SymmetricHull(_disc(P1, Q1)), symm_hull_knots(k1), f"C(S{i})"
        elif op == 1:
            f, kf = ta.C(_sp(p_), _disc(P1, Q1)), symm_hull_knots(mix_knots(k1, p_))
            nm = f"C_{p_}(S{i})"
        elif op == 2:
            f, kf, nm = ta.Mix(_disc(P1, Q1), _sp(p_)), mix_knots(k1, p_), f"Mix(S{i}, {p_})"
        else:
            f, kf, nm = ta.Inverse(_disc(P1, Q1)), inv_knots(k1), f"S{i}^-1"
        if i % 3 == 0:  # the pair itself
            P2, Q2 = P1, Q1
        elif i % 3 == 1:  # a post-processing of it (two outcomes merged): less informative
            P2, Q2 = [P1[0] + P1[1], P1[2]], [Q1[0] + Q1[1], Q1[2]]
        else:
            P2, Q2 = rand_dist(3), rand_dist(3)
        k2 = np_knots(P2, Q2)
        ge, eq, _ = pl_compare(kf, k2)
        add(f"{nm} >= S{i}'", f, ">=", _disc(P2, Q2), ge, "exact knots of the operator",
            tags=("Discrete", "operators"))
        le = pl_compare(k2, kf)[0]
        add(f"{nm} <= S{i}'", f, "<=", _disc(P2, Q2), le, "exact knots of the operator",
            tags=("Discrete", "operators"))
    # random boxes: G_mu >= G_c on [a, b] iff b <= c; G_mu (x) G_nu >= G_c on [0, a] x [0, b]
    # iff a^2 + b^2 <= c^2 (Cor. 2; equality at a corner: the face decides)
    for i in range(10):
        a = R(rng.randint(0, 8), 4)
        b = a + R(rng.randint(1, 8), 4)
        c = R(rng.randint(1, 16), 4)
        add(f"G(mu) >= G({c}), mu in [{a}, {b}] #{i}", ta.G(mu), ">=", ta.G(c), bool(b <= c),
            mono, {mu: (a, b)}, ("box", "random"))
    for a, b, c in ((3, 4, 5), (3, 4, R(9, 2)), (1, 2, 3), (1, 1, R(7, 5)), (1, 1, R(3, 2))):
        add(f"G(mu) (x) G(nu) >= G({c}), [0, {a}] x [0, {b}]", ta.G(mu) @ ta.G(nu), ">=",
            ta.G(c), bool(a**2 + b**2 <= c**2), "Cor. 2",
            {mu: (0, a), nu: (0, b)}, ("box", "Tensor"))
    # the privacy profile of G_mu over a box (Cor. 1; increasing in mu): below c on [a, b] iff
    # delta_b(eps) <= c
    for i in range(6):
        a = R(rng.randint(1, 6), 4)
        b = a + R(rng.randint(1, 4), 4)
        eps = R(rng.randint(0, 8), 4)
        with mpmath.workdps(60):
            db = delta_g(b, eps)
            c = sp.Rational(mpmath.nstr(db, 3)) + rng.choice([-1, 1]) * R(1, 1000)
            if abs(_mpq(c) - db) < MARGIN or c <= 0:
                continue
            truth = bool(db <= _mpq(c))
        add(f"delta_G(mu)({eps}) <= {c}, mu in [{a}, {b}] #{i}",
            ta.Functional("delta", ta.G(mu), eps), "<=", c, truth, "Cor. 1 (mpmath)",
            {mu: (a, b)}, ("scalar", "box", "random"))
    # neighbours 1e-20 apart (decidable at 30 digits: the gap is about 1e-21)
    h = R(1, 10**20)
    for fam, nm in ((ta.G, "G"), (ta.Laplace, "L")):
        add(f"{nm}(1) >= {nm}(1 + 1e-20)", fam(1), ">=", fam(1 + h), True, mono,
            tags=("near",))
        add(f"{nm}(1 + 1e-20) >= {nm}(1)", fam(1 + h), ">=", fam(1), False, mono,
            tags=("near",))
        add(f"{nm}(1) == {nm}(1 + 1e-20)", fam(1), "==", fam(1 + h), False, mono,
            tags=("near",))
    add("f_(1,0) >= f_(1,1e-20)", ta.EpsDelta(1, 0), ">=", ta.EpsDelta(1, h), True, "Eq. (5)",
        tags=("near", "EpsDelta"))
    add("f_(1,1e-20) >= f_(1,0)", ta.EpsDelta(1, h), ">=", ta.EpsDelta(1, 0), False, "Eq. (5)",
        tags=("near", "EpsDelta"))
    add("G(1) (x) G(1e-10) == G(1)", ta.G(1) @ ta.G(R(1, 10**10)), "==", ta.G(1), False,
        "Cor. 2: G_sqrt(1 + 1e-20)", tags=("near", "Tensor"))
    # other functionals: epsilon_G(delta) (the root of Cor. 1 in eps) and the power 1 - f
    for m, d, e in ((1, R(1, 10), 2), (1, R(1, 10), 1), (2, R(1, 100), 4)):
        with mpmath.workdps(60):
            truth = bool(delta_g(m, e) <= _mpq(d))  # eps(delta) <= e iff delta(e) <= delta
        add(f"eps_G({m})({d}) <= {e}", ta.Functional("epsilon", ta.G(m), d), "<=", e, truth,
            "Cor. 1 (mpmath), delta non-increasing in eps", tags=("scalar",))
    add("roc_G(1)(1/4) == 1 - Phi(PhiInv(3/4) - 1)", ta.Functional("roc", ta.G(1), R(1, 4)),
        "==", 1 - ta.Phi(ta.PhiInv(R(3, 4)) - 1), True, "Eq. (6)", tags=("scalar",))
    Pf, Qf = four_point(Fraction(2), Fraction(1, 10))
    add("f_(log 2,1/10) == its four-point pair", ta.EpsDelta(sp.log(2), R(1, 10)), "==",
        _disc(Pf, Qf), True, "Prop. 3", tags=("EpsDelta", "Discrete", "fast"))
    add("G(1) (x) Id == G(1)", ta.G(1) @ ta.Id, "==", ta.G(1), True, "f (x) Id = f",
        tags=("G", "fast"))
    add("Max(Zero, G(1)) == G(1)", ta.Max(ta.Zero, ta.G(1)), "==", ta.G(1), True,
        "Zero is the least", tags=("Max", "fast"))
    # integer parameters: G_1^{(x) n} = G_sqrt(n) >= G_2 iff n <= 4; Group(G_1, k) = G_k
    n_ = sp.Symbol("n", integer=True, positive=True)
    add("G(1)^n >= G(2), n in [1, 4]", ta.G(1) ** n_, ">=", ta.G(2), True, "Cor. 2",
        {n_: (1, 4)}, ("box", "integer"))
    add("G(1)^n >= G(2), n in [1, 5]", ta.G(1) ** n_, ">=", ta.G(2), False, "Cor. 2",
        {n_: (1, 5)}, ("box", "integer"))
    add("Group(G(1), n) <= G(1), n in [1, 6]", ta.Group(ta.G(1), n_), "<=", ta.G(1), True,
        "Thm. 3", {n_: (1, 6)}, ("box", "integer"))
    add("Group(G(1), n) >= G(3), n in [1, 3]", ta.Group(ta.G(1), n_), ">=", ta.G(3), True,
        "Thm. 3: G_n >= G_3", {n_: (1, 3)}, ("box", "integer"))
    add("Group(G(1), n) >= G(3), n in [1, 4]", ta.Group(ta.G(1), n_), ">=", ta.G(3), False,
        "Thm. 3: G_4 < G_3", {n_: (1, 4)}, ("box", "integer"))
    # L_mu against f_{eps,delta} (Prop. 6), the profile by quadrature
    for m, eps, d in ((1, R(1, 2), R(1, 5)), (1, R(1, 2), R(1, 4)), (2, 1, R(1, 3)),
                      (2, 1, R(2, 5)), (R(1, 2), R(1, 4), R(1, 10)), (R(1, 2), 0, R(1, 4))):
        with mpmath.workdps(40):
            dl = delta_laplace(m, eps)
            if abs(dl - _mpq(d)) < mpmath.mpf(10) ** -10:
                continue
            truth = bool(_mpq(d) >= dl)
        add(f"L({m}) >= f_({eps},{d})", ta.Laplace(m), ">=", ta.EpsDelta(eps, d), truth,
            "Prop. 6, the profile by quadrature", tags=("Laplace", "duality"))
    # -- over parameter boxes -------------------------------------------------------------------
    add("G(mu) >= G(2), mu in [1, 2]", ta.G(mu), ">=", ta.G(2), True, mono, {mu: (1, 2)},
        ("box", "fast"))
    add("G(mu) >= G(2), mu in [1, 3]", ta.G(mu), ">=", ta.G(2), False, mono, {mu: (1, 3)},
        ("box",))
    add("G(mu) >= G(5 - mu), mu in [0, 5/2]", ta.G(mu), ">=", ta.G(5 - mu), True, mono,
        {mu: (0, R(5, 2))}, ("box", "fast"))
    add("G(mu) >= G(5 - mu), mu in [0, 3]", ta.G(mu), ">=", ta.G(5 - mu), False, mono,
        {mu: (0, 3)}, ("box",))
    add("G(mu) (x) G(nu) >= G(3), [0, 2]^2", ta.G(mu) @ ta.G(nu), ">=", ta.G(3), True,
        "Cor. 2: sqrt(mu^2 + nu^2) <= 2 sqrt 2 < 3", {mu: (0, 2), nu: (0, 2)}, ("box",))
    add("G(mu) (x) G(nu) >= G(5/2), [0, 2]^2", ta.G(mu) @ ta.G(nu), ">=", ta.G(R(5, 2)), False,
        "Cor. 2: sqrt(8) > 5/2", {mu: (0, 2), nu: (0, 2)}, ("box",))
    add("G(1) (x) G(mu) >= G(sqrt 5), mu in [1, 2]", ta.G(1) @ ta.G(mu), ">=",
        ta.G(sp.sqrt(5)), True, "Cor. 2 (equal at mu = 2)", {mu: (1, 2)}, ("box",))
    add("L(mu) >= L(2), mu in [1/2, 2]", ta.Laplace(mu), ">=", ta.Laplace(2), True, mono,
        {mu: (R(1, 2), 2)}, ("box", "fast"))
    add("L(mu) >= L(1), mu in [1/2, 2]", ta.Laplace(mu), ">=", ta.Laplace(1), False, mono,
        {mu: (R(1, 2), 2)}, ("box",))
    add("f_(mu,0) >= f_(1,0), mu in [0, 1]", ta.EpsDelta(mu, 0), ">=", ta.EpsDelta(1, 0), True,
        "Eq. (5)", {mu: (0, 1)}, ("box", "fast"))
    add("f_(mu,0) >= f_(1,0), mu in [0, 2]", ta.EpsDelta(mu, 0), ">=", ta.EpsDelta(1, 0), False,
        "Eq. (5)", {mu: (0, 2)}, ("box",))
    add("G(mu)^4 == G(2 mu), mu in [0, 3]", ta.G(mu) ** 4, "==", ta.G(2 * mu), True, "Cor. 2",
        {mu: (0, 3)}, ("box", "fast"))
    add("G(mu)^4 == G(3 mu), mu in [1, 3]", ta.G(mu) ** 4, "==", ta.G(3 * mu), False, "Cor. 2",
        {mu: (1, 3)}, ("box",))
    add("Max(G(mu), G(2)) >= G(2), mu in [1, 3]", ta.Max(ta.G(mu), ta.G(2)), ">=", ta.G(2), True,
        "Max", {mu: (1, 3)}, ("box", "fast"))
    add("L(mu) >= f_(mu,0), mu in [1/2, 2]", ta.Laplace(mu), ">=", ta.EpsDelta(mu, 0), True,
        "L_mu is mu-DP", {mu: (R(1, 2), 2)}, ("box", "tangent"))
    # -- scalar identities and inequalities -----------------------------------------------------
    Phi = ta.Phi
    sc = "elementary identity"
    add("sinh^2 + 1 == cosh^2", sp.sinh(x) ** 2 + 1, "==", sp.cosh(x) ** 2, True, sc,
        tags=("scalar", "fast"))
    add("Phi(x) + Phi(-x) == 1", Phi(x) + Phi(-x), "==", 1, True, "symmetry of Phi",
        tags=("scalar", "fast"))
    add("sqrt(8) == 2 sqrt(2)", sp.sqrt(8), "==", 2 * sp.sqrt(2), True, sc,
        tags=("scalar", "fast"))
    add("exp(log 3) == 3", sp.exp(sp.log(3)), "==", 3, True, sc, tags=("scalar", "fast"))
    add("sqrt(2) == 1.4142135623730950488", sp.sqrt(2), "==",
        R(14142135623730950488, 10**19), False, "differs at the 20th digit",
        tags=("scalar", "fast"))
    add("pi <= 355/113", sp.pi, "<=", R(355, 113), True, "355/113 - pi = 2.7e-7",
        tags=("scalar", "fast"))
    add("pi >= 355/113", sp.pi, ">=", R(355, 113), False, "355/113 - pi = 2.7e-7",
        tags=("scalar", "fast"))
    add("e <= 2.718281828", sp.E, "<=", R(2718281828, 10**9), False, "e = 2.7182818284...",
        tags=("scalar", "fast"))
    add("exp(pi sqrt 163) <= 640320^3 + 744", sp.exp(sp.pi * sp.sqrt(163)), "<=",
        640320**3 + 744, True, "Ramanujan's constant: below by 7.5e-13 (relative 3e-30)",
        tags=("scalar", "fast"))
    add("exp(pi sqrt 163) == 640320^3 + 744", sp.exp(sp.pi * sp.sqrt(163)), "==",
        640320**3 + 744, False, "below by 7.5e-13", tags=("scalar", "fast"))
    add("Phi(1) >= 0.8413", Phi(1), ">=", R(8413, 10000), True, "Phi(1) = 0.841344...",
        tags=("scalar", "fast"))
    add("Phi(1) >= 0.8414", Phi(1), ">=", R(8414, 10000), False, "Phi(1) = 0.841344...",
        tags=("scalar", "fast"))
    # closed privacy profiles (Cor. 1) as lazy functionals
    for m, eps in ((1, 1), (2, R(1, 2))):
        form = Phi(-sp.sympify(eps) / m + sp.sympify(m) / 2) \
            - sp.exp(eps) * Phi(-sp.sympify(eps) / m - sp.sympify(m) / 2)
        add(f"delta_G({m})({eps}) == Cor. 1", ta.Functional("delta", ta.G(m), eps), "==", form,
            True, "Cor. 1", tags=("scalar", "fast"))
        add(f"delta_G({m})({eps}) == Cor. 1 + 1e-20", ta.Functional("delta", ta.G(m), eps),
            "==", form + R(1, 10**20), False, "Cor. 1", tags=("scalar",))
    # over boxes
    add("exp(x) >= 1 + x, x in [-2, 2]", sp.exp(x), ">=", 1 + x, True, "convexity (tangent at 0)",
        {x: (-2, 2)}, ("scalar", "box", "tangent"))
    add("exp(x) >= 1 + x, x in [-1, 3]", sp.exp(x), ">=", 1 + x, True, "convexity (tangent at 0)",
        {x: (-1, 3)}, ("scalar", "box", "tangent"))
    add("exp(x) <= 1 + x + x^2, x in [0, 2]", sp.exp(x), "<=", 1 + x + x**2, False,
        "e^2 > 7", {x: (0, 2)}, ("scalar", "box"))
    add("log(1 + t) <= t, t in [0, 10]", sp.log(1 + t), "<=", t, True, "concavity (tangent at 0)",
        {t: (0, 10)}, ("scalar", "box", "tangent"))
    add("sqrt(mu^2 + 1) <= mu + 1, mu in [0, 5]", sp.sqrt(mu**2 + 1), "<=", mu + 1, True,
        "squares (equal at 0)", {mu: (0, 5)}, ("scalar", "box", "fast"))
    add("sqrt(mu^2 + 1) <= mu + 1/2, mu in [0, 5]", sp.sqrt(mu**2 + 1), "<=", mu + R(1, 2),
        False, "at mu = 0", {mu: (0, 5)}, ("scalar", "box"))
    add("Phi(t) >= 1/2, t in [0, 3]", Phi(t), ">=", R(1, 2), True, "Phi(0) = 1/2",
        {t: (0, 3)}, ("scalar", "box", "fast"))
    add("Phi(x) >= 1/2, x in [-1, 3]", Phi(x), ">=", R(1, 2), False, "Phi(-1) < 1/2",
        {x: (-1, 3)}, ("scalar", "box"))
    add("log(t) <= t - 1, t in [1/2, 3]", sp.log(t), "<=", t - 1, True,
        "concavity (tangent at 1, inside the box)", {t: (R(1, 2), 3)},
        ("scalar", "box", "tangent"))
    add("x^2 >= 2x - 1, x in [-1, 7/3]", x**2, ">=", 2 * x - 1, True,
        "(x - 1)^2 >= 0 (tangent at 1, inside the box)", {x: (-1, R(7, 3))},
        ("scalar", "box", "tangent"))
    add("log(t) <= t - 11/10, t in [1/2, 3]", sp.log(t), "<=", t - R(11, 10), False,
        "log(1) = 0 > -1/10", {t: (R(1, 2), 3)}, ("scalar", "box"))
    add("x^2 >= 2x - 1, x in [-3, 3]", x**2, ">=", 2 * x - 1, True, "(x - 1)^2 >= 0",
        {x: (-3, 3)}, ("scalar", "box", "tangent"))
    add("delta_G(mu)(1) <= delta_G(2)(1), mu in [1, 2]",
        ta.Functional("delta", ta.G(mu), 1), "<=", ta.Functional("delta", ta.G(2), 1), True,
        "delta non-decreasing in mu", {mu: (1, 2)}, ("scalar", "box"))
    add("delta_G(mu)(1) <= delta_G(1)(1), mu in [1, 2]",
        ta.Functional("delta", ta.G(mu), 1), "<=", ta.Functional("delta", ta.G(1), 1), False,
        "delta increasing in mu", {mu: (1, 2)}, ("scalar", "box"))
    add("sqrt(5) >= sqrt(mu^2 + 1), mu in [1, 2]", sp.sqrt(5), ">=", sp.sqrt(mu**2 + 1), True,
        "equal at mu = 2", {mu: (1, 2)}, ("scalar", "box", "fast"))
    return out


# -- running ------------------------------------------------------------------------------------
@dataclass
class Record:
    claim: Claim
    status: bool | None
    method: str
    evidence: str
    seconds: float
    counterexample: dict | None = None

    @property
    def wrong(self) -> bool:
        return self.status is not None and self.status != self.claim.truth


def run(cs: list[Claim], dps: int = 30, echo: bool = False) -> list[Record]:
    out = []
    for c in cs:
        t0 = time.perf_counter()
        v = c.verify(dps)
        r = Record(c, v.status, v.method, v.evidence, time.perf_counter() - t0,
                   v.counterexample)
        out.append(r)
        if echo:
            flag = "WRONG" if r.wrong else ("none " if r.status is None else "ok   ")
            print(f"{flag} {r.seconds:7.2f}s {str(r.status):5s} {c.name} [{r.method}] "
                  f"{'' if r.status is not None else r.evidence[:160]}", flush=True)
    return out


def summary(recs: list[Record]) -> dict:
    ts = sorted(r.seconds for r in recs)
    return {"claims": len(recs), "wrong": sum(r.wrong for r in recs),
            "none": sum(r.status is None for r in recs),
            "none_rate": sum(r.status is None for r in recs) / max(1, len(recs)),
            "median_s": ts[len(ts) // 2] if ts else 0.0, "max_s": ts[-1] if ts else 0.0}


if __name__ == "__main__":
    import sys

    sel = sys.argv[1:]
    cs = [c for c in claims() if not sel or any(s in c.name or s in c.tags for s in sel)]
    recs = run(cs, echo=True)
    print(summary(recs))
