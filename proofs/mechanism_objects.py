"""The verdicts of the claims that reason about mechanisms themselves (used by
``claims_drs1``, ``claims_drs2`` and ``claims_dwork``), on mechanisms with exact output laws
(``tradeoff_algebra.analysis.finite_mechanism``) and on a tiny run of NoisySGD.

The theorems quantify over every mechanism; here they are checked at instances: several seeded
random mechanisms on small universes, every neighbouring pair (or every pair of a group), with
exact verdicts. The left side is always ``T(M(S), M(S'))`` of the actual composed, subsampled,
grouped or post-processed mechanism, computed from its output laws (``FiniteMechanism.pair``);
the right side is the library's bound of the theorem (``Group``, ``(x)``, ``C_p``) applied to the
tightest guarantee of the building blocks (``finite_mechanism.envelope``).

* Thm. 3 (first part): ``T(M(S_0), M(S_k)) >= 1 - (1 - f)^{o k}`` over chains of k neighbours;
* Thm. 4: the adaptive composition of f_i-DP mechanisms is ``f_1 (x) ... (x) f_n``-DP;
* Thm. 9: ``M o Sample_m`` is ``C_{m/n}(f)``-DP on ``X^n``;
* Thm. 10: Algorithm 1 (NoisySGD) run on a one-dimensional instance; its output laws are
  Gaussian mixtures, their trade-off at a level is enclosed in Arb (Neyman--Pearson with a
  monotone likelihood ratio, below) and compared with the library's certified
  ``C_{m/n}(G_{1/sigma})``;
* Sec. 5.1: the clipped gradient has norm at most C (SymPy, by cases) and the average of
  clipped gradients replace-one sensitivity 2C/m (exact enumeration, attained by antipodal
  gradients);
* Dwork, Eqs. (6.1), (6.2), (6.4), (6.7).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp
from flint import arb
from mpmath.libmp import round_ceiling, round_floor

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import finite_mechanism as fm
from tradeoff_algebra.analysis import sensitivity as sens
from tradeoff_algebra.core import Phi, PhiInv
from tradeoff_algebra.numeric.arb import arb_endpoint
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.value import Value
from tradeoff_algebra.verify.interval import enclose

__all__ = ["thm3_groups", "thm4_adaptive", "thm9_subsampled", "thm10_noisy_sgd", "sec51_clip",
           "eq61_gradient", "eq62_projection", "eq64_selection", "eq67_sequential",
           "mixture_np", "clip", "THM10_CASES"]

R = sp.Rational
F = Fraction


def _T(M: fm.FiniteMechanism, S, S2) -> ta.Discrete:
    """T(M(S), M(S2)) from the two output laws."""
    return ta.Discrete(*M.pair(S, S2))


def _distinct(M: fm.FiniteMechanism, pairs) -> list[ta.Discrete]:
    """T(M(S), M(S')) for each pair, each distinct trade-off once: T(P, Q) depends only on the
    multiset of the columns (P(y), Q(y)), so pairs with the same columns are checked once."""
    seen: dict = {}
    for S, S2 in pairs:
        P, Q = M.pair(S, S2)
        key = tuple(sorted(zip(P, Q, strict=True)))
        if key not in seen:
            seen[key] = ta.Discrete(P, Q)
    return list(seen.values())


def _env(*mechs: fm.FiniteMechanism) -> ta.PiecewiseLinear:
    """The largest f for which every mechanism is f-DP."""
    return ta.PiecewiseLinear(fm.envelope(*mechs))


# -- Thm. 3, 4 and 9 on seeded random mechanisms ------------------------------------------------
def thm3_groups() -> list:
    """For two random mechanisms M (universe {0, 1, 2}, n = 2, k = 2; universe {0, 1},
    n = 3, k = 2, 3) and f their envelope (M is f-DP by construction; the tests check it),
    every pair joined by a chain of k neighbours has T(M(S_0), M(S_k)) >= Group(f, k)."""
    out = []
    for universe, size, seed, ks in [((0, 1, 2), 2, 1, (2,)), ((0, 1), 3, 3, (2, 3))]:
        M = fm.random_mechanism(universe, size, "abc", seed)
        f = _env(M)
        for k in ks:
            g = ta.Group(f, k)
            out += [ta.verify(T, ">=", g)
                    for T in _distinct(M, fm.group_pairs(universe, size, k))]
    return out


def thm4_adaptive() -> list:
    """Adaptive compositions of random mechanisms (universe {0, 1, 2}, n = 2): the second step
    is a different random mechanism for each first output (f_2 the envelope of all of them),
    and a three-step chain on {0, 1}^2; every neighbouring pair of the composition has
    T >= f_1 (x) f_2 (x) ... ."""
    out = []
    M1 = fm.random_mechanism((0, 1, 2), 2, "ab", 5)
    steps = {y: fm.random_mechanism((0, 1, 2), 2, "xyz", 500 + i) for i, y in enumerate("ab")}
    comp = fm.adaptive(M1, steps.__getitem__)
    f = _env(M1) @ _env(*steps.values())
    out += [ta.verify(T, ">=", f) for T in _distinct(comp, comp.neighbours())]
    M1 = fm.random_mechanism((0, 1), 2, "ab", 7)
    second = {(y,): fm.random_mechanism((0, 1), 2, "xy", 70 + i) for i, y in enumerate("ab")}
    third = {ys: fm.random_mechanism((0, 1), 2, "uv", 700 + i)
             for i, ys in enumerate(itertools.product("ab", "xy"))}
    chain = fm.adaptive_chain(M1, [second.__getitem__, third.__getitem__])
    f = _env(M1) @ _env(*second.values()) @ _env(*third.values())
    out += [ta.verify(T, ">=", f) for T in _distinct(chain, chain.neighbours())]
    return out


def thm9_subsampled() -> list:
    """M o Sample_m for random M on {0, 1}^m (and {0, 1, 2}^1): every neighbouring pair of
    X^n has T >= C_{m/n}(f), f the envelope of M, at (n, m) = (2, 1), (3, 1), (3, 2), (4, 2)
    (the subset handed over in random order)."""
    out = []
    for universe, n, m, seed in [((0, 1), 2, 1, 11), ((0, 1, 2), 3, 1, 12), ((0, 1), 3, 2, 13),
                                 ((0, 1), 4, 2, 14)]:
        M = fm.random_mechanism(universe, m, "abc", seed)
        sub = fm.subsample(M, n)
        g = ta.C(R(m, n), _env(M))
        out += [ta.verify(T, ">=", g) for T in _distinct(sub, sub.neighbours())]
    return out


# -- Thm. 10: Algorithm 1 on a one-dimensional instance -----------------------------------------
def clip(v, C):
    """Algorithm 1, line 6 in one dimension: v / max{1, |v|/C} (exact)."""
    return v / max(1, abs(v) / C)


def noisy_sgd_law(S, m, theta0, eta, C, sigma):
    """The law of theta_1 of Algorithm 1 with T = 1 on the loss L(theta, x) = (theta - x)^2/2
    (gradient theta - x): the mixture over the C(n, m) batches of
    N(theta0 - eta * mean of the clipped gradients, (eta * 2 sigma C/m)^2), as
    ({mean: weight}, sd), exact rationals."""
    subsets = list(itertools.combinations(range(len(S)), m))
    law: dict = {}
    for idx in subsets:
        g = sum((clip(F(theta0) - F(S[i]), F(C)) for i in idx), F(0)) / m
        mean = F(theta0) - F(eta) * g
        law[mean] = law.get(mean, F(0)) + F(1, len(subsets))
    return law, F(eta) * 2 * F(sigma) * F(C) / m


def _monotone_direction(P: dict, Q: dict) -> int:
    """+1 if q/p is non-decreasing in x, -1 if non-increasing, for mixtures of N(mu, s^2) with
    mixing laws P, Q: with A = min(P, Q) (the common part), B = P - A, D = Q - A, the mixing
    ratio dQ/dP is 0 on B, 1 on A and infinite on D; if the supports are ordered
    B <= A <= D, it is non-decreasing, and the Gaussian location family is totally positive
    of order 2, so the densities' ratio is non-decreasing (Karlin's composition formula).
    Raises if the instance has neither order (the threshold test would not be optimal)."""
    keys = set(P) | set(Q)
    A = {k for k in keys if min(P.get(k, 0), Q.get(k, 0)) > 0}
    B = {k for k in keys if P.get(k, 0) > Q.get(k, 0)}
    D = {k for k in keys if Q.get(k, 0) > P.get(k, 0)}
    for sign in (1, -1):
        b, a, d = ([sign * x for x in s] for s in (B, A, D))
        if all(x <= y for x in b for y in a + d) and all(x <= y for x in a for y in d):
            return sign
    raise ValueError(f"the mixing laws {P}, {Q} are not ordered: the likelihood ratio may not "
                     "be monotone")


def _arb(x) -> arb:
    x = F(x)
    return arb(x.numerator) / x.denominator


def _Phi(z: arb) -> arb:
    return (-z / arb(2).sqrt()).erfc() / 2


def mixture_np(P: dict, Q: dict, s, alpha, steps: int = 80) -> arb:
    """T(P, Q)(alpha) for Gaussian mixtures P = sum_k P[k] N(k, s^2), Q likewise, enclosed in
    Arb: with q/p monotone (:func:`_monotone_direction`) the Neyman--Pearson tests reject
    {sign * x > t}; alpha(t) = sum_k P[k] Phi((sign k - t)/s) decreases in t,
    beta(t) = sum_k Q[k] Phi((t - sign k)/s) = f(alpha(t)); bisection on t keeps
    alpha(t_lo) >= alpha >= alpha(t_hi) certified, so f(alpha) lies in
    [beta(t_lo), beta(t_hi)] (f non-increasing)."""
    sign = _monotone_direction(P, Q)
    sa = _arb(s)
    a = _arb(alpha)

    def al(t):
        return sum((_arb(w) * _Phi((_arb(sign * k) - t) / sa) for k, w in P.items()), arb(0))

    def be(t):
        return sum((_arb(w) * _Phi((t - _arb(sign * k)) / sa) for k, w in Q.items()), arb(0))

    span = max(abs(F(k)) for k in [*P, *Q]) + 40 * F(s)
    lo, hi = _arb(-span), _arb(span)
    if not (al(lo) > a and al(hi) < a):
        raise ValueError(f"alpha = {alpha} outside the certified range of the thresholds")
    for _ in range(steps):
        for frac in (F(1, 2), F(3, 8), F(5, 8)):  # off the middle when alpha(mid) ~ alpha
            mid = lo + (hi - lo) * _arb(frac)
            v = al(mid)
            if v > a:
                lo = mid
                break
            if v < a:
                hi = mid
                break
        else:
            break
    return be(lo).union(be(hi))


#: (n, m, S, S', sigma, alphas): the runs of Algorithm 1 (theta0 = 0, eta = 1/2, C = 1,
#: T = 1) and the levels checked. alpha = 1/2 is left out: there the library's
#: C_{1/2}(G_{1/2}) is an estimate only. In the last case the pair is the worst one,
#: P = N(a, s^2) and Q = (1 - p) P + p N(a - 2 eta C/m, s^2), so T(P, Q) = f_p meets C_p(f) at
#: small alpha (equality is not decided from balls): alpha >= 1/4 there.
_A5 = (R(1, 20), R(1, 4), R(2, 5), R(3, 4), R(19, 20))
THM10_CASES = [(3, 1, (0, 0, 0), (0, 0, 2), 1, _A5), (3, 1, (0, 0, 2), (0, 0, -3), 1, _A5),
               (3, 2, (0, 0, 2), (0, 0, -3), 1, _A5),
               (4, 2, (0, 0, 0, R(1, 2)), (0, 0, 0, -5), 2, _A5),
               (3, 1, (1, 1, 2), (1, 1, -1), R(1, 2), _A5[1:])]


def _certified_value(b: arb, dps: int) -> Value:
    with mp.workdps(dps + 10):
        lo, hi = arb_endpoint(b.lower(), round_floor), arb_endpoint(b.upper(), round_ceiling)
        return Value.enclosure(lo, hi, dps, guarantee="certified")


def thm10_noisy_sgd() -> list:
    """At each case of :data:`THM10_CASES` and its levels alpha: the
    Arb enclosure of T(theta_1(S), theta_1(S'))(alpha) (Algorithm 1's actual output laws) is
    >= the library's certified C_{m/n}(G_{1/sigma})(alpha)."""
    out = []
    dps = 25
    with arb_precision(128):
        for n, m, S, S2, sigma, alphas in THM10_CASES:
            (P, s), (Q, _) = (noisy_sgd_law(D, m, 0, R(1, 2), 1, sigma) for D in (S, S2))
            bound = ta.C(R(m, n), ta.G(1 / sp.sympify(sigma)))
            for a in alphas:
                mine = _certified_value(mixture_np(P, Q, s, a), dps)
                out.append(ta.verify(mine, ">=", ta.evaluate(bound, a, dps)))
    return out


# -- Sec. 5.1: clipping and the sensitivity of the average ---------------------------------------
_Cs, _t = sp.symbols("C t", positive=True)
_u = sp.Symbol("u", nonnegative=True)
_v1, _v2 = sp.symbols("v1 v2", real=True)
_M = sp.Symbol("M", positive=True)

#: Rational gradients in R^2 with rational norms (Pythagorean), among them antipodal pairs.
_GRADS = ((F(3), F(4)), (F(-6), F(-8)), (F(0), F(1, 2)), (F(5, 13), F(-12, 13)),
          (F(-1, 2), F(0)))


def _clip_vec(v, C):
    norm = sp.sqrt(sum(sp.Rational(x)**2 for x in v))
    return [sp.Rational(x) / sp.Max(1, norm / C) for x in v]


def sec51_clip() -> list:
    """||v / max{1, ||v||/C}|| = ||v|| / max{1, ||v||/C} (a positive multiple of v, in R^2,
    symbolic); with r = ||v||: r = C + t > C gives C exactly, r = C - u <= C gives C - u <= C.
    Replacing record j changes the average of m clipped gradients by (c_j - c'_j)/m
    (symbolic, m = 3, R^2), whose norm is at most (C + C)/m by the triangle inequality; exact
    enumeration over rational gradients: the sensitivity is exactly 2C/m at m = 1, 2 (C = 1),
    m = 2 (C = 1/2) and m = 3 (C = 1, the first three gradients), attained by antipodal
    clipped gradients."""
    out = [ta.verify(sp.sqrt((_v1 / _M)**2 + (_v2 / _M)**2), "==", sp.sqrt(_v1**2 + _v2**2) / _M),
           ta.verify((_Cs + _t) / sp.Max(1, (_Cs + _t) / _Cs), "==", _Cs),
           ta.verify((_Cs - _u) / sp.Max(1, (_Cs - _u) / _Cs), "<=", _Cs)]
    m = 3
    c = [sp.symbols(f"c{i}_1:3", real=True) for i in range(m)]
    c3 = sp.symbols("d_1:3", real=True)
    for k in range(2):
        avg = sum(c[i][k] for i in range(m)) / m
        avg2 = (c[0][k] + c[1][k] + c3[k]) / m
        out.append(ta.verify(avg - avg2, "==", (c[2][k] - c3[k]) / m))
    for C, mm, grads in ((R(1), 1, _GRADS), (R(1), 2, _GRADS), (R(1, 2), 2, _GRADS),
                         (R(1), 3, _GRADS[:3])):
        clipped = [_clip_vec(v, C) for v in grads]

        def query(D, clipped=clipped, mm=mm):
            return [sum(clipped[i][k] for i in D) / mm for k in range(2)]
        value, _pair = sens.sensitivity(query, range(len(grads)), mm, p=2, adjacency="replace")
        out.append(ta.verify(value, "==", 2 * C / mm))
    return out


# -- Dwork, Sec. 6 ------------------------------------------------------------------------------
def eq61_gradient() -> list:
    """grad_w sum_i l(w, x_i) = sum_i grad_w l(w, x_i) for a symbolic loss l, n = 5 records,
    w in R^2 (each coordinate)."""
    w = sp.symbols("w1 w2", real=True)
    xs = sp.symbols("x1:6", real=True)
    loss = sp.Function("l")
    L = sum(loss(*w, x) for x in xs)
    return [ta.verify(sp.diff(L, wk), "==", sum(sp.diff(loss(*w, x), wk) for x in xs))
            for wk in w]


def eq64_selection() -> list:
    """Sample_m through the finite-mechanism object: the record at position i (a 1 among 0s)
    is in the uniform m-subset with probability m/n (exactly, every i), so a single draw
    (m = 1) selects it with q = 1/n; n = 2, ..., 8."""
    out = []
    for m in (1, 2):
        count = fm.FiniteMechanism((0, 1), m, lambda D: {sum(D): F(1)}, "count")
        for n in range(max(2, m), 9):
            sub = fm.subsample(count, n)
            for i in range(n):
                e_i = tuple(int(j == i) for j in range(n))
                out.append(ta.verify(R(sub(e_i).get(1, 0)), "==", R(m, n)))
    return out


def _step(j: int, states, noise):
    """Step j of a finite sequential noisy SGD: w -> clamp(w - sign(w - x_j) + Z) on states,
    Z with law ``noise`` (the projection onto K = [min, max] of the states)."""
    lo, hi = min(states), max(states)

    def kernel(w, x):
        g = (w > x) - (w < x)  # a subgradient of |w - x|
        out: dict = {}
        for z, p in noise.items():
            v = min(hi, max(lo, w - g + z))
            out[v] = out.get(v, F(0)) + p
        return out
    return kernel


def eq67_sequential() -> list:
    """Sequential noisy SGD on a finite state space (states -2..2, records in {-1, 0, 1},
    n = T = 3, noise Z in {-1, 0, 1} with law (1/4, 1/2, 1/4)): run as an adaptive chain of
    finite mechanisms, the law of the final state equals the first step post-processed by the
    kernel of steps 2..n (which sees x_2..x_n only), exactly, for every dataset; so for datasets
    differing in x_1, T(w_T(S), w_T(S')) >= T(w_1(S), w_1(S')) (verified on the laws)."""
    states, noise = range(-2, 3), {-1: F(1, 4), 0: F(1, 2), 1: F(1, 4)}
    U, n = (-1, 0, 1), 3
    step = _step(0, states, noise)
    first = fm.FiniteMechanism(U, n, lambda S: step(0, S[0]), "w_1")

    def later(j):
        def choose(ws):
            return fm.FiniteMechanism(U, n, lambda S: step(ws[-1], S[j]), f"w_{j + 1}")
        return choose
    run = fm.adaptive_chain(first, [later(j) for j in range(1, n)])
    final = fm.post_process(run, lambda ws: {ws[-1]: F(1)})
    out = []
    for S in itertools.product(U, repeat=n):
        def tail(w, S=S):
            law = {w: F(1)}
            for j in range(1, n):
                new: dict = {}
                for v, p in law.items():
                    for v2, q in step(v, S[j]).items():
                        new[v2] = new.get(v2, F(0)) + p * q
                law = new
            return law
        post = fm.post_process(first, tail)
        a, b = final(S), post(S)
        gap = sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
        out.append(ta.verify(R(gap), "==", 0))
        for x in U:
            if x != S[0]:
                S2 = (x,) + S[1:]
                out.append(ta.verify(_T(final, S, S2), ">=", _T(first, S, S2)))
    return out


#: (a, b, sigma, lo, hi, middle): the noisy gradient step's mean on two neighbouring datasets,
#: the noise scale, the interval K the output is projected on, and levels alpha whose
#: threshold lies in K.
EQ62_CASES = [(0, 1, 1, R(-1), R(2), (R(1, 4),)),
              (R(1, 2), -1, 2, R(-1, 2), R(1, 2), (R(9, 20),))]


def _enclosed(x: sp.Expr, dps: int = 30) -> Value:
    """A closed form as a certified Value: its Arb enclosure (``verify.interval``), without
    the symbolic simplification ``verify`` tries first."""
    with mp.workdps(dps + 10):
        lo, hi = enclose(x, dps=dps)
        return Value.enclosure(lo, hi, dps, guarantee="certified")


def eq62_projection() -> list:
    """The projection onto K = [lo, hi] of the Gaussian output N(a, sigma^2) (Eq. (6.2) with
    d = 1, eta = 1) against N(b, sigma^2), b > a (or its mirror): the likelihood ratio is
    non-decreasing (the atoms at lo and hi carry the ratios of the two tails), so the
    Neyman--Pearson tests reject {x > t}: for t in [lo, hi) the errors are those of the
    unprojected pair, T = G_mu with mu = |a - b|/sigma, and on the two end intervals of alpha
    T is the chord through (0, 1) and the hi atom, and through the lo atom and (1, 0). Checked
    at alphas in each piece: the threshold lies in K (certified) and the value equals G_mu's
    closed form in the middle; on the end pieces the chord is >= G_mu (certified)."""
    out = []
    for a, b, sg, lo, hi, middle in EQ62_CASES:
        a, b, sg = R(a), R(b), R(sg)
        if b < a:  # the mirror image x -> -x
            a, b, lo, hi = -a, -b, -hi, -lo
        mu = (b - a) / sg
        g = ta.G(mu)
        a_hi = 1 - Phi((hi - a) / sg)       # P(atom at hi)
        b_hi = Phi((hi - b) / sg)           # 1 - Q(atom at hi)
        a_lo = 1 - Phi((lo - a) / sg)       # P(X > lo)
        b_lo = Phi((lo - b) / sg)
        for x in (R(1, 100),):               # the upper chord, if x <= a_hi
            out.append(ta.verify(x, "<=", a_hi))
            out.append(ta.verify(_enclosed(1 - (1 - b_hi) * x / a_hi), ">=", g(x)))
        for x in middle:                    # the middle: t = a + sigma PhiInv(1 - x) in K
            t = a + sg * PhiInv(1 - x)
            out += [ta.verify(t, ">=", lo), ta.verify(t, "<=", hi),
                    ta.verify(Phi((t - b) / sg), "==", g(x))]
        for x in (R(99, 100),):               # the lower chord, if x >= a_lo
            out.append(ta.verify(x, ">=", a_lo))
            out.append(ta.verify(_enclosed(b_lo * (1 - x) / (1 - a_lo)), ">=", g(x)))
    return out
