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
