"""The verdicts of Dwork's claims about shuffled randomized response (Sec. 5.2 and Sec. 6.2,
used by ``claims_dwork``), and of the claims about tCDP's group privacy (Remark 4.5), the
histogram error under tCDP (Sec. 4.3) and the noise of Eq. (4.3), which need the same kind of
certified computation (Arb balls turned into certified ``Value``s here, outside the library).

Shuffled binary randomized response (``analysis.shuffle_rr``): the mechanism's eps(delta) is
bracketed by two certified computations, both about the mechanism itself:

* from below by the exact pair of counts of one pair of neighbouring datasets (user 1's bit
  changes, the other n - 1 users hold 0): a mechanism that is (eps, delta)-DP has delta(eps)
  at most delta on every neighbouring pair, this one included;
* from above by Feldman, McMillan & Talwar's shuffle theorem (``ShuffleDP``, Wang et al.,
  Sec. 4.1), which holds for every pair of neighbouring datasets and every eps0-DP local
  randomizer.
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis.shuffle_rr import (
    rr_flip,
    shuffled_rr_delta,
    shuffled_rr_epsilon,
)
from tradeoff_algebra.numeric.arb_expr import arb_ball
from tradeoff_algebra.numeric.context import arb_precision
from tradeoff_algebra.numeric.value import Value

R = sp.Rational
L = sp.log

#: delta of the shuffling claims
DELTA6 = R(1, 10**6)


def arb_value(ball, dps: int = 20) -> Value:
    """A certified Value holding the Arb ball (its exact endpoints, rounded outward)."""

    def rat(x) -> sp.Rational:
        man, exp = x.man_exp()
        man, exp = int(man), int(exp)
        return sp.Integer(man) * sp.Integer(2)**exp if exp >= 0 else sp.Rational(man, 2**-exp)

    return Value.enclosure(rat(ball.lower()), rat(ball.upper()), dps, guarantee="certified")


def _scale(n: int, eps0=1, d=DELTA6) -> sp.Expr:
    """eps0 sqrt(ln(1/delta)/n): the order of the central eps after shuffling."""
    return eps0 * sp.sqrt(L(1 / d) / n)


def exact_pair_epsilon(n: int, eps0=1, d=DELTA6, dps: int = 20) -> Value:
    """eps(delta) of the exact pair of counts (others hold 0), a certified enclosure."""
    lo, hi = shuffled_rr_epsilon(n, rr_flip(eps0), d, dps=dps)
    return Value.enclosure(lo, hi, dps, guarantee="certified")


#: eps(1e-6) of the exact pair at eps0 = 1, to 10 digits (rounded down, up)
_EXACT_EPS = {10**3: ("0.1266144809", "0.1266144810"),
              10**4: ("0.03565881529", "0.03565881530"),
              10**5: ("0.01014249327", "0.01014249328")}


def shuffle_gain():
    """Sec. 5.2 at n = 10^3, 10^4, 10^5 (eps0 = 1, delta = 1e-6): the mechanism's eps(delta)
    lies between (4/5) and (3/2) eps0 sqrt(ln(1/delta)/n): at least the exact pair's eps, at
    most the eps at which Feldman-McMillan-Talwar's delta is below delta. The exact pair's
    eps(1e-6) is pinned to 10 digits (the statement quotes it)."""
    out = []
    for n, (lo, hi) in _EXACT_EPS.items():
        e = exact_pair_epsilon(n, dps=14)
        out += [ta.verify(e, ">=", R(lo)), ta.verify(e, "<=", R(hi)),
                ta.verify(e, ">=", R(4, 5) * _scale(n)),
                ta.verify(ta.delta(ta.ShuffleDP(1, n), R(3, 2) * _scale(n)), "<=", DELTA6)]
    return out


def _direct_delta(n: int, q, eps, prec: int = 128):
    """max of sum_c (Q(c) - e^eps P(c))_+ and sum_c (P(c) - e^eps Q(c))_+ over the n + 1 counts,
    the masses b(c) of Bin(n - 1, q) by their ratio recurrence from b(0) = (1 - q)^(n - 1): a
    route that shares nothing with the incomplete beta functions of ``analysis.shuffle_rr``."""
    from flint import arb

    with arb_precision(prec):
        qa = arb_ball(sp.sympify(q))  # the Arb enclosure of q's closed form
        E = arb_ball(sp.exp(sp.sympify(eps)))
        N = n - 1
        b, ratio = (1 - qa) ** N, qa / (1 - qa)
        masses = []
        for c in range(n):
            masses.append(b)
            b = b * (N - c) / (c + 1) * ratio
        zero = arb(0)
        dq = dp = zero
        for c in range(n + 1):
            bm = masses[c - 1] if c else zero
            bc = masses[c] if c < n else zero
            P, Q = (1 - qa) * bm + qa * bc, qa * bm + (1 - qa) * bc
            for tot, x in ((0, Q - E * P), (1, P - E * Q)):
                part = x if x > 0 else (zero if x < 0 else zero.union(x))
                if tot:
                    dp += part
                else:
                    dq += part
        return dq.max(dp)


def exact_pair_check():
    """Cross-check of Sec. 5.2's exact-pair numbers: at n = 10^3, 10^4 the pair's delta at the
    ends of its certified eps(1e-6) bracket, by direct Arb sums (``_direct_delta``), lies
    above 1e-6 at the lower end and at most 1e-6 at the upper end."""
    from ._claims import Check

    rows = []
    ok = True
    for n in (10**3, 10**4):
        lo, hi = shuffled_rr_epsilon(n, rr_flip(1), DELTA6, dps=14)
        dlo, dhi = _direct_delta(n, rr_flip(1), lo), _direct_delta(n, rr_flip(1), hi)
        with arb_precision(128):
            d = _arb(DELTA6)
            ok &= bool(dlo > d) and bool(dhi <= d)
        rows.append(f"n = {n}: delta(lo) = {dlo.str(8)}, delta(hi) = {dhi.str(8)}")
    return Check("holds" if ok else "fails",
                 "direct Arb sums over the counts bracket 1e-6 at the ends of the exact pair's "
                 "eps(1e-6): " + "; ".join(rows), certified=True,
                 basis=("Arb sums of the binomial masses by their ratio recurrence",),
                 scope="n = 1e3, 1e4, eps0 = 1, delta = 1e-6")


def _p(kappa, n, eps, d=DELTA6) -> sp.Expr:
    """Dwork's randomization parameter p = kappa ln(1/delta)/(n eps^2) (Sec. 6.2)."""
    return kappa * L(1 / d) / (n * eps**2)


#: the instances (n, eps) of Sec. 6.2's claim, delta = 1e-6
KAPPA_POINTS = ((10**4, R(1, 2)), (10**4, 1), (10**5, R(1, 2)), (10**5, 1))


def shuffle_kappa():
    """Sec. 6.2: RR(u, p) (flip probability p/2, eps0 = ln((2 - p)/p)) shuffled, with p =
    kappa ln(1/delta)/(n eps^2): (eps, delta)-DP with kappa = 7 (the shuffle theorem's delta
    at eps is at most delta: every neighbouring pair), not with kappa = 3 (one neighbouring
    pair's delta at eps is at least 3/2 delta)."""
    out = []
    for n, e in KAPPA_POINTS:
        p7, p3 = _p(7, n, e), _p(3, n, e)
        out.append(ta.verify(ta.delta(ta.ShuffleDP(L((2 - p7) / p7), n), e), "<=", DELTA6))
        out.append(ta.verify(arb_value(shuffled_rr_delta(n, p3 / 2, e)), ">=",
                             R(3, 2) * DELTA6))
    return out


# -- Eq. (4.3): the noise term ------------------------------------------------------------------
_D2, _C, _EPS = sp.symbols("Delta c eps", positive=True)


def _shift_pair(xs, s):
    """N(0, s^2 I_d) against N(x, s^2 I_d), as the product of its d coordinate pairs."""
    out = ta.NormalPair(0, s, xs[0], s)
    for x_ in xs[1:]:
        out = out @ ta.NormalPair(0, s, x_, s)
    return out


#: shifts of L2 norm Delta in d = 2 and d = 3 coordinates
_SHIFTS = ((R(3, 5), R(4, 5)), (R(1, 3), R(2, 3), R(2, 3)))


def eq43_printed():
    """(N(0, s^2 I_d))^d, s = c Delta/eps, as printed: d draws of d coordinates each, d^2
    numbers where f(x) has d (d = 2, 3); added to f(x) the only way d vectors can be (their
    sum, N(0, d s^2 I_d)), its trade-off function is not G_{eps/c}, the privacy of one draw
    (d = 2, 3 at (c, eps) = (1, 1) and (2, 1/2), with Delta = 1)."""
    out = [ta.verify(d**2, "==", d) for d in (2, 3)]
    for xs in _SHIFTS:
        for c, e in ((1, 1), (2, R(1, 2))):
            s_sum = R(c) / e * sp.sqrt(len(xs))  # Delta = 1
            out.append(ta.verify(_shift_pair(xs, s_sum), "==", ta.G(e / c)))
    return out


def eq43_corrected():
    """f(x) + N(0, s^2 I_d), s = c Delta/eps, one draw: for f(x) - f(y) of L2 norm Delta (d = 2,
    3; symbolic Delta, c, eps) the trade-off function is G_{eps/c}, the mechanism of
    Thm. 4.3's text (an independent N(0, s^2) per coordinate)."""
    return [ta.verify(_shift_pair([x * _D2 for x in xs], _C * _D2 / _EPS), "==",
                      ta.G(_EPS / _C)) for xs in _SHIFTS]


# -- Remark 4.5: group privacy of tCDP at the sinh-normal mechanism -----------------------------
def _arb(x):
    from flint import arb, fmpq

    x = sp.Rational(x)
    return arb(fmpq(int(x.p), int(x.q)))


def sinh_normal_renyi(a, t, A, s, prec: int = 64):
    """An Arb ball containing D_a(Z || Z + t) for the sinh-normal Z = A arcsinh((s/A) N(0, 1))
    of Dwork, Eq. (4.7) (rational a > 1, t > 0, A, s): the same as D_a(Z + t || Z) (Z is
    symmetric).

    In the Gaussian variable v = (A/s) sinh(z/A) the integrand ``p(z)^a p(z - t)^{1-a} dz`` is
    ``phi(v)^a phi(w)^{1-a} (cosh((z - t)/A)/cosh(z/A))^{1-a} dv`` with ``w = (A/s) sinh((z -
    t)/A) = v cosh(t/A) - (A/s) sqrt(1 + (s v/A)^2) sinh(t/A)``, integrated by Arb on [-V, V].
    Beyond: for |z| >= T, ``|w| <= r |v|`` with ``r = cosh(t/A) + coth(T/A) sinh(t/A)`` (sinh(x
    - d)/sinh(x) lies between cosh d - coth(x) sinh d and cosh d + coth(x) sinh d), and the
    cosh ratio to the power 1 - a is at most ``(1 + s|v|/A)^{a-1} <= e^{b|v|}``, ``b = (a - 1)
    s/A``; so the rest is at most ``2 e^{b^2/(2c)} c^{-1/2} Phi(-sqrt(c) (V - b/c))`` with
    ``c = a - (a - 1) r^2 > 0``, which needs a below about 1/(1 - e^{-2t/A}) (beyond it D_a is
    infinite)."""
    import math

    from flint import acb, arb

    with arb_precision(prec + 20):
        a_, A_, s_, t_ = _arb(a), _arb(A), _arb(s), _arb(t)
        af, Af, sf, tf = float(a), float(A), float(s), float(t)
        if af - (af - 1) * math.exp(2 * tf / Af) <= 0:  # c at T = oo: no cut works
            raise ValueError(f"D_a(Z || Z + {t}) at a = {a}: no tail bound (a too large)")
        T = max(tf, Af)
        for _ in range(200):  # the cut, chosen in floats and proved below
            rT = math.cosh(tf / Af) + math.sinh(tf / Af) / math.tanh(T / Af)
            c = af - (af - 1) * rT**2
            if c > 0:
                V, b = Af / sf * math.sinh(T / Af), (af - 1) * sf / Af
                if V > b / c and c * (V - b / c)**2 / 2 > (prec + 10) * math.log(2) + b * b / c:
                    break
            T *= 1.25
        # the cut in v (a float, exact), and T = A arcsinh(s V/A) as a ball
        Vf = Af / sf * math.sinh(T / Af)
        Ta = A_ * (s_ * arb(Vf) / A_).asinh()
        if not Ta > t_:
            raise ValueError("sinh_normal_renyi: the cut is too small")
        r = (t_ / A_).cosh() + (t_ / A_).sinh() / (Ta / A_).tanh()
        c = a_ - (a_ - 1) * r * r
        b = (a_ - 1) * s_ / A_
        if not (c > 0 and arb(Vf) > b / c):
            raise ValueError(f"D_a(Z || Z + {t}) at a = {a}: no tail bound (a too large)")
        y = c.sqrt() * (arb(Vf) - b / c)
        tail = 2 * (b * b / (2 * c)).exp() / c.sqrt() * (y / arb(2).sqrt()).erfc() / 2
        ac, rc, Ar = acb(a_), acb(s_ / A_), acb(A_ / s_)
        ch, sh = acb((t_ / A_).cosh()), acb((t_ / A_).sinh())

        def f(v, analytic):
            q = (1 + (rc * v) ** 2).sqrt(analytic=analytic)  # cosh(z/A)
            w = v * ch - Ar * q * sh                         # (A/s) sinh((z - t)/A)
            lr = ((q * ch - rc * v * sh) / q).log(analytic=analytic)  # log cosh ratio
            return (-(ac * v * v + (1 - ac) * w * w) / 2 + (1 - ac) * lr).exp()

        core = acb.integral(f, -Vf, Vf).real / (2 * arb.pi()).sqrt()
        return (core + arb(0).union(tail)).log() / (a_ - 1)


#: the sinh-normal instance: A = 8, s = 2 on integer-valued queries of sensitivity 1 (counts)
SN_A, SN_S, SN_RHO, SN_OMEGA = 8, 2, R(1, 4), 4
#: the orders a_0 = 1 < a_1 < ... < a_m = omega/k of the cover of (1, omega/k], per group size
_SN_GRID = {1: (1, R(5, 4), R(3, 2), 2, R(5, 2), 3, R(7, 2), 4),
            2: (1, R(3, 2), 2),
            3: (1, R(4, 3))}


def sinh_normal_tcdp(k: int):
    """The shift-k pair of the sinh-normal instance is (k^2 rho, omega/k)-tCDP: D_a <= k^2 rho a
    for every a in (1, omega/k], both orders (Z is symmetric). D_a is non-decreasing in a, so on
    a cell [a_j, a_{j+1}] of the grid D_a <= D_{a_{j+1}}, and D_{a_{j+1}} <= k^2 rho a_j proves
    the cell (on the first cell, a_0 = 1)."""
    g = _SN_GRID[k]
    return [ta.verify(arb_value(sinh_normal_renyi(hi, k, SN_A, SN_S)), "<=",
                      k**2 * SN_RHO * lo) for lo, hi in zip(g, g[1:], strict=False)]


_K, _SIG, _ORD = sp.symbols("k sigma a", positive=True)


def tcdp_group():
    """Remark 4.5 for tCDP at instances: the Gaussian mechanism (omega = oo; a group of k moves
    the query by k: D_a = k^2 a/(2 sigma^2), symbolic), and the sinh-normal instance, (1/4,
    4)-tCDP, whose groups of k = 2, 3 are (k^2/4, 4/k)-tCDP (a group of size k moves a count
    by at most k; the smaller moves are the smaller groups')."""
    out = [ta.verify(ta.renyi(ta.gaussian_mechanism(_K, _SIG), _ORD), "==",
                     _K**2 * (_ORD / (2 * _SIG**2)))]
    for k in (1, 2, 3):
        out += sinh_normal_tcdp(k)
    return out


def sinh_normal_histogram():
    """Sec. 4.3 for tCDP at instances: the sinh-normal instance is (1/4, 4)-tCDP (as above) and
    the expected largest error over k cells, E max_i |Z_i| (certified quadrature,
    ``analysis.noise``), lies between (3/4) and (6/5) omega log log k at k = 10, ..., 10^6."""
    from tradeoff_algebra.analysis.noise import sinh_normal_max_abs_mean

    out = sinh_normal_tcdp(1)
    for e in range(1, 7):
        m = arb_value(sinh_normal_max_abs_mean(10**e, SN_A, SN_S))
        scale = SN_OMEGA * L(L(10**e))
        out += [ta.verify(m, ">=", R(3, 4) * scale), ta.verify(m, "<=", R(6, 5) * scale)]
    return out
