"""Claims of Dong, Roth & Su, "Gaussian differential privacy" (JRSS-B 2022), Sections 1-3:
trade-off functions, Gaussian differential privacy, post-processing, the primal-dual view,
group privacy, composition, the central limit theorems and the composition of
(eps, delta)-DP. The claims follow the audit ``audit/drs_part1.md``; the claims it marks as
already registered (Prop. 6, Cor. 1, Thm. 3 second part, the second remark after Prop. 7,
Cor. 2, Eqs. (10) and (11), and f_{eps,0}^{(x) n} = T(B(n, p_eps), B(n, q_eps))) are
registered elsewhere.

Entries with nothing to compute, not registered:

* Eq. (2): the hypothesis test H0: S versus H1: S' (a definition).
* Def. 2 text: "1 - f is the ROC curve" (a definition: power = 1 - beta).
* Eq. (8): the adaptive composition M(S) = (y_1, M_2(S, y_1)) (a definition, used by Thm. 4).
* Wording: Sec. 2.4 "self-evidence" (for "self-evident"); the Sec. 2 introduction "this new
  privacy notation" (for "notion"); Thm. 2 numbers its statements "1." and "2." but the next
  paragraph refers to "condition (b)"; the remark after Prop. 7 calls Prop. 7 "this theorem".
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.bounds.berry_esseen import factors
from tradeoff_algebra.bounds.clt import clt_mu

from . import blackwell as bw
from . import mechanism_objects as mo
from . import np_algebra as npa
from ._claims import Check, misprint, not_stated, stated
from .drs import _NP_BASIS, _BruteNP, _eq3_inverse, _interp, _lower_hull, _np_points
from .drs_misc import binomial_rate, moment_instances, sec33_uniform_limit
from .independent import kl_by_definition

PAPER = "Dong, Roth & Su"

R = sp.Rational
F = ta.Functional
mu, nu, eps, delta, h, e1, e2, d1, d2, n, s, sigma = sp.symbols(
    "mu nu eps delta h e1 e2 d1 d2 n s sigma", positive=True)
a = sp.Symbol("alpha", positive=True)


def _four_point(e, d):
    """The pair P = (d, (1-d) e/(1+e), (1-d)/(1+e), 0), Q = P reversed, with e = e^eps."""
    e, d = sp.sympify(e), sp.sympify(d)
    P = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), 0]
    return ta.Discrete(P, P[::-1])


def _rr(e):
    """Randomised response with e = e^eps: P = (e, 1)/(1+e), Q = (1, e)/(1+e)."""
    e = sp.sympify(e)
    return ta.Discrete([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])


def _product(P, Q):
    return [p * q for p in P for q in Q]


def _epsdelta_knots(e, d):
    """The knots of Eq. (4) for e = e^eps: intercepts 1 - d, slopes -e and -1/e."""
    e, d = sp.sympify(e), sp.sympify(d)
    m = (1 - d) / (1 + e)
    return [(0, 1 - d), (m, m), (1 - d, 0)] + ([(1, 0)] if d > 0 else [])


def _scaled(knots, d):
    """Eq. (12): the graph of f mapped by (x, y) -> (1 - d)(x, y), then 0 up to alpha = 1."""
    out = [((1 - d) * x, (1 - d) * y) for x, y in knots]
    return ta.PiecewiseLinear(out + ([(1, 0)] if out[-1][0] < 1 else []))


def _rounds_to(x, printed, half_ulp):
    """A printed number: x lies in [printed - half_ulp, printed + half_ulp]."""
    return [ta.verify(x, ">=", printed - half_ulp), ta.verify(x, "<=", printed + half_ulp)]


# The pair of Prop. 3: P = (1/2, 1/3, 1/6), Q = P reversed; at eps = log 2 it is
# f_{log 2, 1/6}-DP in both orders, and its total variation is 1/3.
_P3 = ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)])
_P3_REV = ta.Discrete([R(1, 6), R(1, 3), R(1, 2)], [R(1, 2), R(1, 3), R(1, 6)])
# The asymmetric f = T((3/4, 1/4), (0, 1)) = max{0, 1 - 4 alpha}, with f^{-1} = (1 - alpha)/4.
_F4 = ta.Discrete([R(3, 4), R(1, 4)], [0, 1])
_F4_INV = ta.Discrete([0, 1], [R(3, 4), R(1, 4)])
# A two-step chain for f_{log 2, 0} (s = 1 + e = 3): P0 = (1/2, 1/2, 2)/3, P1 = (1, 1, 1)/3,
# P2 = (2, 1/2, 1/2)/3.
_C0 = [R(1, 6), R(1, 6), R(2, 3)]
_C1 = [R(1, 3), R(1, 3), R(1, 3)]
_C2 = [R(2, 3), R(1, 6), R(1, 6)]


# -- Section 1 ----------------------------------------------------------------------------------
def _power_bound():
    out = []
    for e in (1, 2, 30):
        for d in (0, R(1, 3), R(9, 10)):
            knots = [(0, 1 - d), (R(1 - d, e), 0)]
            line = ta.PiecewiseLinear(knots + ([(1, 0)] if knots[-1][0] < 1 else []))
            out.append(ta.verify(ta.EpsDelta(sp.log(e), d), ">=", line))
    return out


stated(PAPER, "Sec. 1 text (after Eq. (2))",
       "the power of a level-alpha test of an (eps, delta)-DP mechanism is at most "
       "e^eps alpha + delta: f_{eps,delta}(alpha) >= max{0, 1 - delta - e^eps alpha}, at "
       "e^eps in {1, 2, 30} and delta in {0, 1/3, 9/10}",
       _power_bound)


def _basic_composition():
    pts = [(2, R(1, 10), 3, R(1, 5)), (1, 0, R(5, 2), R(1, 3)), (4, R(1, 2), 4, R(1, 2)),
           (R(3, 2), R(1, 100), R(3, 2), R(1, 100))]
    e1, e2, d1, d2 = sp.symbols("e1 e2 d1 d2", nonnegative=True)
    return [ta.verify(ta.EpsDelta(sp.log(x1), y1) @ ta.EpsDelta(sp.log(x2), y2), ">=",
                      ta.EpsDelta(sp.log(x1 * x2), y1 + y2))
            for x1, y1, x2, y2 in pts] + [
        ta.verify(ta.EpsDelta(e1, d1) @ ta.EpsDelta(e2, d2), ">=", ta.EpsDelta(e1 + e2, d1 + d2),
                  over={e1: (0, sp.oo), e2: (0, sp.oo), d1: (0, 1), d2: (0, 1)})]


stated(PAPER, "Sec. 1 text",
       "composing (eps_1, delta_1)-DP and (eps_2, delta_2)-DP gives (eps_1 + eps_2, delta_1 + "
       "delta_2)-DP: f_{e1,d1} (x) f_{e2,d2} >= f_{e1+e2, d1+d2}, at (e^e1, d1, e^e2, d2) = "
       "(2, 1/10, 3, 1/5), (1, 0, 5/2, 1/3), (4, 1/2, 4, 1/2), (3/2, 1/100, 3/2, 1/100)",
       _basic_composition,
       crosscheck=npa.composition_np)

_MIS = [(2, 0), (3, R(1, 10)), (R(3, 2), R(1, 100))]
stated(PAPER, "Sec. 1 text",
       "(eps, delta)-DP is mis-parameterised under composition: no single pair (eps, delta) "
       "describes f_{eps,delta} (x) f_{eps,delta} exactly, at (e^eps, delta) in {(2, 0), "
       "(3, 1/10), (3/2, 1/100)}, nor f_{log 2,0} (x) f_{log 3,0} (exact knots: f(0) and the "
       "slope at 0 leave one candidate f_{eps',delta'}, which differs from the composition)",
       lambda: [ta.is_not_member(ta.EpsDelta(sp.log(e), d) ** 2, ta.EpsDelta) for e, d in _MIS]
       + [ta.is_not_member(ta.EpsDelta(sp.log(2), 0) @ ta.EpsDelta(sp.log(3), 0),
                           ta.EpsDelta)], instances=True)

stated(PAPER, "Sec. 1 text",
       "concrete case of the mis-parameterisation: f_{log 2,0} (x) f_{log 2,0} = "
       "T((1/9, 4/9, 4/9), (4/9, 4/9, 1/9)), with three linear pieces (slopes -4, -1, -1/4), "
       "while an f_{eps,delta} with f(0) = 1 has at most two",
       lambda: [ta.verify(ta.EpsDelta(sp.log(2), 0) ** 2, "==",
                          ta.Discrete([R(1, 9), R(4, 9), R(4, 9)], [R(4, 9), R(4, 9), R(1, 9)])),
                ta.verify(ta.EpsDelta(sp.log(2), 0) ** 2, "==",
                          ta.PiecewiseLinear([(0, 1), (R(1, 9), R(5, 9)), (R(5, 9), R(1, 9)),
                                              (1, 0)]))])

_F10 = ta.EpsDelta(1 / sp.sqrt(10), 0) ** 10
stated(PAPER, "Fig. 1 caption (left)",
       "the tightest (eps, delta) curve at delta = 0.001 (eps = 2.8897) is a valid but "
       "substantially looser bound for f_{1/sqrt(10),0}^{(x)10}: it lies below, and the gap "
       "at alpha = 0.05 exceeds 0.5",
       lambda: [ta.verify(_F10, ">=", ta.EpsDelta(R(28897, 10000), R(1, 1000))),
                ta.verify(ta.Functional("evaluate", _F10, R(1, 20))
                          - ta.EpsDelta(R(28897, 10000), R(1, 1000))(R(1, 20)), ">=", R(1, 2))])
stated(PAPER, "Fig. 1 caption (left)",
       "the CLT approximation G_1 is very close to f_{1/sqrt(10),0}^{(x)10}: "
       "sup_alpha |f - G_1| <= 0.013, against a sup-distance >= 0.68 to the tightest "
       "(eps, delta) curve f_{2.8897, 0.001} (certified sup-distances)",
       lambda: [ta.verify(ta.Functional("sup_distance", _F10, ta.G(1)), "<=", R(13, 1000)),
                ta.verify(ta.Functional("sup_distance", _F10,
                                        ta.EpsDelta(R(28897, 10000), R(1, 1000))), ">=",
                          R(68, 100))])
not_stated(PAPER, "Fig. 1 caption (right)",
           "for NoisySGD on MNIST the f-DP guarantee is significantly better than the "
           "moments-accountant (eps, delta)-DP guarantee",
           needs="the panel's noise multiplier sigma, batch size and number of steps: the "
                 "caption refers to Sec. 5, whose Fig. 7 caption prints only n = 60000, "
                 "m = 256, the learning rates and the clipping thresholds (neither enters the "
                 "privacy bound), and no other passage of the paper gives sigma or the epochs "
                 "of this panel (the moments accountant is expressible: ta.RDP of the "
                 "subsampled-Gaussian binomial sum; see 'Balle' and 'Authors' reply Sec. 2.1' "
                 "at sigma = 1.1, 60 epochs, a setting the paper does not attach to the figure)")

# -- Section 2.1 --------------------------------------------------------------------------------
stated(PAPER, "Eq. (1) / Def. 1",
       "for P = (1/2, 1/3, 1/6), Q = P reversed and eps = log 2, the smallest delta in Eq. (1) "
       "(both orders) is 1/6, to 25 digits (the hockey-stick value is not exact)",
       lambda: [*_rounds_to(ta.delta(_P3, sp.log(2)), R(1, 6), R(1, 10**25)),
                *_rounds_to(ta.delta(_P3_REV, sp.log(2)), R(1, 6), R(1, 10**25))])


def _tv():
    tv_g = ta.Phi(mu / 2) - ta.Phi(-mu / 2)   # = 2 Phi(mu/2) - 1
    return [ta.verify(ta.G(mu), ">=", ta.EpsDelta(0, tv_g), over={mu: (0, 10)}),
            ta.verify(ta.delta(ta.G(mu), 0), "==", tv_g, over={mu: (0, 10)}),
            ta.verify(ta.G(mu)(1 - ta.Phi(mu / 2)) + (1 - ta.Phi(mu / 2)), "==", 1 - tv_g,
                      over={mu: (0, 10)}),
            ta.verify(_P3, ">=", ta.EpsDelta(0, ta.tv(_P3))),
            ta.verify(ta.evaluate(_P3, R(1, 2)).exact + R(1, 2), "==", 1 - ta.tv(_P3))]


stated(PAPER, "Sec. 2.1 text (arXiv Eq. (3))",
       "alpha + beta >= 1 - TV(P, Q), i.e. T(P, Q) >= f_{0,TV}, with equality attained: for "
       "G_mu (TV = Phi(mu/2) - Phi(-mu/2) = 2 Phi(mu/2) - 1, mu in [0, 10]; attained at alpha = "
       "1 - Phi(mu/2) = Phi(-mu/2)) and for P = (1/2, 1/3, 1/6), Q reversed (TV = 1/3, "
       "attained at alpha = 1/2)",
       _tv,
       crosscheck=npa.tv_np)

stated(PAPER, "Def. 2 text",
       "Id(alpha) = 1 - alpha is the greatest trade-off function: G_mu, L_mu and f_{eps,delta} "
       "lie below Id for all parameter values",
       lambda: [ta.verify(ta.G(mu), "<=", ta.Id), ta.verify(ta.Laplace(mu), "<=", ta.Id),
                ta.verify(ta.EpsDelta(eps, delta), "<=", ta.Id, over={delta: (0, 1)})])

# functions of x as SymPy expressions (not trade-off nodes): Prop. 1's conditions decided on a
# certified cover of [0, 1] by ta.is_tradeoff (x real, not positive: Eq(x, 0) stays a condition)
_x = sp.Symbol("x", real=True)
_SQ = (1 - _x) ** 2                                    # T(U[0,1], Beta(2,1))
_RR2 = sp.Max(0, 1 - 2 * _x, (1 - _x) / 2)             # f_{log 2, 0} written out
_EXP = (sp.exp(-_x) - sp.exp(-1)) / (1 - sp.exp(-1))
_MAXES = [(_SQ, _RR2), ((1 - _x) ** 3, sp.Max(0, 1 - 3 * _x, (1 - _x) / 3)),
          (_RR2, sp.Max(0, R(3, 4) - _x))]


def _max_closed():
    out = []
    for f, g in _MAXES:
        out += [ta.is_tradeoff(f, _x), ta.is_tradeoff(g, _x), ta.is_tradeoff(sp.Max(f, g), _x)]
    return out


stated(PAPER, "Sec. 2.1 text (before Prop. 1)",
       "if f and g are trade-off functions, so is max{f, g}: at (f, g) = ((1 - x)^2, "
       "f_{log 2,0}), ((1 - x)^3, f_{log 3,0}), (f_{log 2,0}, f_{0,1/4}), written as functions "
       "of x (Prop. 1's conditions certified on a cover of [0, 1] for f, g and max{f, g})",
       _max_closed, instances=True)


def _prop1():
    fails = [sp.Min(1 - _x, 2 * (1 - _x) ** 2),         # not convex
             1 - _x ** 2,                               # above 1 - x
             (1 - _x) / 2 + R(1, 10),                   # f(1) > 0 = 1 - 1
             sp.Piecewise((1, sp.Eq(_x, 0)), ((1 - _x) / 2, True))]   # not continuous at 0
    return ([ta.is_tradeoff(f, _x) for f in (_SQ, _RR2, _EXP)]
            + [ta.is_member(_RR2, ta.EpsDelta, alpha=_x)]  # and it is T(P, Q) of a pair
            + [ta.is_not_tradeoff(f, _x) for f in fails])


stated(PAPER, "Prop. 1",
       "f is a trade-off function iff it is convex, continuous, non-increasing and "
       "f(x) <= 1 - x: decided at the instances (1 - x)^2, max{0, 1 - 2x, (1 - x)/2} (which is "
       "f_{log 2,0} = T of randomised response) and (e^-x - e^-1)/(1 - e^-1) (the four "
       "conditions certified), and min{1 - x, 2(1 - x)^2} (not convex), 1 - x^2 (above "
       "1 - x), (1 - x)/2 + 1/10 (f(1) > 0), (1 - x)/2 with f(0) = 1 (a jump at 0), each "
       "with a certified witness", _prop1, instances=True)


def _footnote7():
    jump = [sp.Piecewise((c, sp.Eq(_x, 0)), ((1 - _x) / 2, True)) for c in (R(3, 4), 1)]
    return ([ta.is_tradeoff((1 - _x) / 2, _x)]
            + [ta.is_not_tradeoff(f, _x) for f in jump])


stated(PAPER, "Prop. 1 (arXiv footnote 7)",
       "continuity matters only at x = 0: f_c = (1 - x)/2 on (0, 1] with f_c(0) = c is convex, "
       "non-increasing and below 1 - x on (0, 1] for every c in [1/2, 1]; at the instances c "
       "in {1/2, 3/4, 1} it is a trade-off function for c = 1/2 only, and the certified "
       "witness for c = 3/4 and c = 1 is the jump at x = 0", _footnote7, instances=True)


def _prop2():
    rr4 = _rr(4)  # T = f_{log 4, 0}
    return [ta.verify(ta.Symmetrize(_F4), "==", ta.Max(_F4, ta.Inverse(_F4))),
            ta.verify(rr4, ">=", _F4), ta.verify(ta.Inverse(rr4), ">=", _F4),
            ta.verify(rr4, ">=", ta.Symmetrize(_F4))]


stated(PAPER, "Prop. 2",
       "f-DP implies f^S-DP with f^S = max{f, f^{-1}}: for f = T((3/4, 1/4), (0, 1)) and the "
       "randomised-response pair with e^eps = 4, T(P, Q) >= f and T(Q, P) >= f, and "
       "T(P, Q) >= f^S",
       _prop2,
       crosscheck=npa.prop2_np)

stated(PAPER, "Eq. (3)",
       "f^{-1}(alpha) = inf{t : f(t) <= alpha}, and f^{-1} = T(Q, P) for f = T(P, Q): for "
       "f = T((3/4, 1/4), (0, 1)) = max{0, 1 - 4 alpha}, f^{-1}(alpha) = (1 - alpha)/4",
       lambda: [ta.verify(ta.Inverse(_F4), "==", _F4_INV),
                ta.verify(ta.Inverse(_F4), "==", ta.PiecewiseLinear([(0, R(1, 4)), (1, 0)]))],
       crosscheck=npa.inverse_np)

stated(PAPER, "Eq. (3) (arXiv footnote 8)",
       "Eq. (3) is not an inverse in general: for f = max{0, 1 - 4 alpha}, f^{-1}(f(1/2)) = 1/4; "
       "for the strictly decreasing f_{log 2,0} with f(0) = 1, f^{-1}(f(1/4)) = 1/4",
       lambda: [ta.verify(ta.evaluate(ta.Inverse(_F4), ta.evaluate(_F4, R(1, 2)).exact).exact,
                          "==", R(1, 4)),
                ta.verify(ta.evaluate(ta.Inverse(ta.EpsDelta(sp.log(2), 0)),
                                      ta.evaluate(ta.EpsDelta(sp.log(2), 0), R(1, 4)).exact).exact,
                          "==", R(1, 4))])

stated(PAPER, "Sec. 2.1 text (after Prop. 2)",
       "f^S is symmetric, (f^S)^{-1} = f^S, and f^S >= f (for f = T((3/4, 1/4), (0, 1)))",
       lambda: [ta.verify(ta.Inverse(ta.Symmetrize(_F4)), "==", ta.Symmetrize(_F4)),
                ta.verify(ta.Symmetrize(_F4), ">=", _F4)],
       crosscheck=lambda: _prop2_np())


def _prop2_every_f():
    f = ta.TradeOffSymbol("f")
    return [ta.verify(ta.Symmetrize(f), ">=", f), ta.verify(ta.Symmetrize(f), ">=", ta.Inverse(f)),
            ta.verify(ta.Inverse(ta.Symmetrize(f)), "==", ta.Symmetrize(f))]


def _max_knots(k1, k2):
    """The knots of max{F1, F2} for two piecewise-linear functions on [0, 1] (exact): the
    knots of both and the crossings of their segments."""
    xs = {x for x, _ in k1} | {x for x, _ in k2}
    for (a1, b1), (a2, b2) in zip(k1, k1[1:], strict=False):
        for (c1, d1), (c2, d2) in zip(k2, k2[1:], strict=False):
            if a1 == a2 or c1 == c2:
                continue
            s1, s2 = (b2 - b1) / (a2 - a1), (d2 - d1) / (c2 - c1)
            if s1 != s2:
                x = (d1 - s2 * c1 - b1 + s1 * a1) / (s1 - s2)
                if max(a1, c1) <= x <= min(a2, c2):
                    xs.add(x)
    return [(x, max(_interp(k1, x), _interp(k2, x))) for x in sorted(xs)]


def _prop2_np() -> Check:
    """Prop. 2 on explicit finite pairs, exactly: f = T(P, Q) and f^{-1} = T(Q, P) by
    brute-force Neyman-Pearson; f^S = max{f, f^{-1}} from the knots of both and their
    crossings; f^S >= f and >= f^{-1}, and the Eq. (3) inverse of f^S equals f^S."""
    Fr = Fraction
    pairs = [((Fr(3, 4), Fr(1, 4)), (Fr(0), Fr(1))),
             ((Fr(1, 2), Fr(1, 2), Fr(0)), (Fr(0), Fr(1, 4), Fr(3, 4))),
             ((Fr(1, 2), Fr(1, 4), Fr(1, 4)), (Fr(1, 8), Fr(1, 8), Fr(3, 4)))]
    levels = [Fr(0), Fr(1, 10), Fr(1, 4), Fr(1, 3), Fr(1, 2), Fr(7, 8), Fr(1)]
    n = 0
    for P, Q in pairs:
        k1, k2 = _lower_hull(_np_points(P, Q)), _lower_hull(_np_points(Q, P))
        ks = _max_knots(k1, k2)
        for x in levels:
            v = _interp(ks, x)
            if v < _interp(k1, x) or v < _interp(k2, x) or _eq3_inverse(ks, x) != v:
                return Check("fails", f"at alpha = {x} for P = {P}, Q = {Q}", certified=True)
            n += 1
    return Check("holds", f"f^S >= f, f^S >= f^-1 and (f^S)^-1 = f^S exactly at {n} (pair, "
                 "alpha) points", certified=True, basis=_NP_BASIS,
                 scope=f"3 asymmetric finite pairs at alpha in {[str(a) for a in levels]}")


stated(PAPER, "Prop. 2",
       "for every trade-off function f: f^S = max{f, f^{-1}} lies above f and above f^{-1}, and "
       "is symmetric: (f^S)^{-1} = f^S",
       _prop2_every_f, crosscheck=_prop2_np, instances=False)


def _eq4():
    pts = [(3, R(1, 10)), (1, R(1, 2)), (R(3, 2), 0), (7, R(9, 10)), (50, R(1, 10))]
    out = []
    for e, d in pts:
        out.append(ta.verify(ta.EpsDelta(sp.log(e), d), "==", _four_point(e, d)))
        out.append(ta.verify(ta.EpsDelta(sp.log(e), d), "==",
                             ta.PiecewiseLinear(_epsdelta_knots(e, d))))
    return out


stated(PAPER, "Eq. (4)",
       "f_{eps,delta} = max{0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)} is the "
       "trade-off function of the four-point pair (delta, (1-delta) e^eps/(1+e^eps), "
       "(1-delta)/(1+e^eps), 0) vs. its reverse, at (e^eps, delta) in {(3, 1/10), (1, 1/2), "
       "(3/2, 0), (7, 9/10), (50, 1/10)}",
       _eq4)

stated(PAPER, "Fig. 3 caption (left)",
       "f_{eps,delta} is symmetric (all eps, delta in [0, 1]); its pieces have slopes "
       "-e^{+-eps} and both intercepts are 1 - delta (at (e^eps, delta) in {(3, 1/10), "
       "(7, 9/10)})",
       lambda: [ta.verify(ta.Inverse(ta.EpsDelta(eps, delta)), "==", ta.EpsDelta(eps, delta),
                          over={delta: (0, 1)}),
                *(ta.verify(ta.EpsDelta(sp.log(e), d), "==",
                            ta.PiecewiseLinear(_epsdelta_knots(e, d)))
                  for e, d in ((3, R(1, 10)), (7, R(9, 10))))])

stated(PAPER, "Prop. 3",
       "(eps, delta)-DP iff f_{eps,delta}-DP: for P = (1/2, 1/3, 1/6), Q reversed, eps = log 2 "
       "(smallest delta in Eq. (1): 1/6), T(P, Q) and T(Q, P) are >= f_{log 2, 1/6}, and "
       "T(P, Q) touches f_{log 2, 1/6} at alpha = 1/6, so no smaller delta works",
       lambda: [ta.verify(_P3, ">=", ta.EpsDelta(sp.log(2), R(1, 6))),
                ta.verify(_P3_REV, ">=", ta.EpsDelta(sp.log(2), R(1, 6))),
                ta.verify(ta.evaluate(_P3, R(1, 6)).exact, "==",
                          ta.EpsDelta(sp.log(2), R(1, 6))(R(1, 6)))])

stated(PAPER, "Fig. 3 caption (right)",
       "mu = 3: type I and type II errors can be controlled simultaneously at only 0.07 (the "
       "equal-error value Phi(-3/2) rounds to 0.07)",
       lambda: _rounds_to(ta.fixed_point(ta.G(3)), R(7, 100), R(5, 1000)))

misprint(PAPER, "Fig. 3 caption (right)",
         "mu = 6: the two errors both can be as small as 0.001",
         printed=lambda: [ta.verify(ta.fixed_point(ta.G(6)), "<=", R(1, 1000)),
                          ta.verify(ta.evaluate(ta.G(6), R(1, 1000)), "<=", R(1, 1000))],
         corrected=lambda: _rounds_to(ta.fixed_point(ta.G(6)), R(135, 100000), R(5, 1000000)),
         correction="both can be as small as Phi(-3) = 0.00135, not 0.001")

# -- Section 2.2 --------------------------------------------------------------------------------
stated(PAPER, "Eq. (5)",
       "G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) for mu >= 0",
       lambda: ta.verify(ta.G(mu)(a), "==", ta.Phi(ta.PhiInv(1 - a) - mu),
                         over={mu: (0, 10), a: (0, 1)}))

stated(PAPER, "Sec. 2.2 text",
       "G_mu <= G_mu' whenever mu >= mu'",
       lambda: ta.verify(ta.G(mu + h), "<=", ta.G(mu)))

stated(PAPER, "Thm. 1",
       "the Gaussian mechanism with noise N(0, sens^2/mu^2) is mu-GDP; T(N(theta, sigma^2), "
       "N(theta', sigma^2)) = G_{|theta - theta'|/sigma}",
       lambda: [ta.verify(ta.gaussian_mechanism(s, s / mu), "==", ta.G(mu)),
                ta.verify(ta.gaussian_mechanism(s, sigma), "==", ta.G(s / sigma)),
                ta.verify(ta.gaussian_mechanism(2, 3), "==", ta.G(R(2, 3)))])

stated(PAPER, "Eq. (6)",
       "for the Gaussian mechanism the infimum over neighbours is attained at "
       "|theta(S) - theta(S')| = sens for every alpha: G_{|Delta|/sigma} >= G_{sens/sigma} for "
       "|Delta| = sens/(1 + h) <= sens",
       lambda: ta.verify(ta.gaussian_mechanism(s / (1 + h), sigma), ">=",
                         ta.gaussian_mechanism(s, sigma)))


def _not_convex():
    f, g = ta.EpsDelta(sp.log(3), 0), ta.EpsDelta(0, R(1, 4))

    def m(x):
        return sp.Min(f(x), g(x))

    # the midpoint value exceeds the chord between alpha = 0 and alpha = 1/4 by 1/8
    return ta.verify(m(R(1, 8)), ">=", (m(0) + m(R(1, 4))) / 2 + R(1, 8))


stated(PAPER, "Sec. 2.2 text (after Eq. (6))",
       "the infimum over neighbours need not be convex: for neighbouring pairs with trade-offs "
       "f_{log 3,0} and f_{0,1/4}, min{f, g} is 5/8 at alpha = 1/8, above the chord value 1/2 "
       "between alpha = 0 and 1/4",
       _not_convex)

stated(PAPER, "Prop. 4",
       "post-processing: for M with output laws P = (1/2, 1/3, 1/6), Q reversed "
       "(f_{log 2, 1/6}-DP), merging the last two outputs keeps f_{log 2, 1/6}-DP",
       lambda: [ta.verify(_P3, ">=", ta.EpsDelta(sp.log(2), R(1, 6))),
                ta.verify(ta.Discrete([R(1, 2), R(1, 2)], [R(1, 6), R(5, 6)]), ">=",
                          ta.EpsDelta(sp.log(2), R(1, 6))),
                ta.verify(ta.Discrete([R(1, 6), R(5, 6)], [R(1, 2), R(1, 2)]), ">=",
                          ta.EpsDelta(sp.log(2), R(1, 6)))])

stated(PAPER, "Lemma 1",
       "T(Proc(P), Proc(Q)) >= T(P, Q): P = (1/2, 1/4, 1/4), Q = (1/4, 1/4, 1/2), Proc merging "
       "the last two outcomes",
       lambda: ta.verify(ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), ">=",
                         ta.Discrete([R(1, 2), R(1, 4), R(1, 4)], [R(1, 4), R(1, 4), R(1, 2)])))

stated(PAPER, "Thm. 2",
       "Blackwell: T(P, Q) <= T(P', Q') iff some Proc maps (P, Q) to (P', Q'), at finite "
       "instances: 4 garblings (the order holds, and an exact kernel maps the laws), 3 "
       "randomised responses below a pair (the order holds, and the feasibility polytope of "
       "Markov kernels yields an exact kernel), 2 more separated ones (the order fails at an "
       "exact alpha, so no kernel exists)",
       bw.thm2_verdicts, crosscheck=bw.blackwell_check, instances=True)

stated(PAPER, "Thm. 2 (arXiv footnote 10)",
       "the Blackwell order is not a partial order: the different experiments "
       "((2/3, 1/3), (1/3, 2/3)) and ((1/3, 1/3, 1/3), (1/6, 1/6, 2/3)) have equal trade-off "
       "functions, so each is below the other",
       lambda: ta.verify(ta.Discrete([R(2, 3), R(1, 3)], [R(1, 3), R(2, 3)]), "==",
                         ta.Discrete([R(1, 3), R(1, 3), R(1, 3)], [R(1, 6), R(1, 6), R(2, 3)])))

def _renyi_order():
    """f = f_{17/20,0} (randomised response, eps = 0.85) and g = G_1: D_a(f) <= D_a(g) = a/2 at
    every order a > 1 (a closed form on [101/100, 50]; below 101/100 by monotonicity in a,
    D_a(f) <= D_{101/100}(f) <= 1/2; beyond 50, D_a(f) <= D_oo(f) = 17/20 <= 25), both pairs
    symmetric; yet the trade-off functions cross."""
    f = ta.EpsDelta(R(17, 20), 0)
    A = sp.Symbol("a", positive=True)
    return [ta.verify(ta.renyi(f, A), "<=", ta.renyi(ta.G(1), A), over={A: (R(101, 100), 50)}),
            ta.verify(ta.renyi(f, R(101, 100)), "<=", R(1, 2)),
            ta.verify(ta.renyi(f, sp.oo), "<=", 25),
            ta.verify(f(R(1, 1000)) - ta.Functional("evaluate", ta.G(1), R(1, 1000)), ">=",
                      R(15, 1000)),
            ta.verify(ta.Functional("evaluate", ta.G(1), R(3085, 10000)) - f(R(3085, 10000)),
                      ">=", R(12, 1000))]


stated(PAPER, "Sec. 2.3 text",
       "unlike the trade-off (Blackwell) order, the Renyi-DP order does not order the curves: "
       "randomised response with eps = 0.85 has D_a <= D_a(G_1) = a/2 at every order a > 1, yet "
       "f_{0.85,0} - G_1 >= 0.015 at alpha = 0.001 and <= -0.012 at alpha = 0.3085 (the "
       "(eps, delta) order of Appendix B is not stated)", _renyi_order)


def _prop5():
    f1, f2 = ta.EpsDelta(sp.log(2), R(1, 6)), ta.EpsDelta(0, R(1, 3))
    prof = ta.from_privacy_profile({1: R(1, 10), 2: R(1, 100)})
    return [ta.verify(_P3, ">=", f1), ta.verify(_P3, ">=", f2),
            ta.verify(_P3, ">=", ta.Max(f1, f2)),
            ta.verify(ta.Inverse(prof), "==", prof)]


stated(PAPER, "Prop. 5",
       "(eps_i, delta_i)-DP for all i iff f-DP with f = sup_i f_{eps_i,delta_i}, a symmetric "
       "trade-off function: P = (1/2, 1/3, 1/6), Q reversed is (log 2, 1/6)- and (0, 1/3)-DP "
       "and max of the two f_{eps,delta}-DP; max{f_{1,1/10}, f_{2,1/100}} is symmetric",
       _prop5)


def _prop6_every_f():
    f, h = ta.TradeOffSymbol("f"), ta.TradeOffSymbol("h", symmetric=True)
    d_f, d_inv = F("delta", f, eps), F("delta", ta.Inverse(f), eps)
    return [ta.verify(h, ">=", ta.EpsDelta(eps, F("delta", h, eps))),
            ta.verify(f, ">=", ta.EpsDelta(eps, sp.Max(d_f, d_inv)))]


def _prop6_np() -> Check:
    """Prop. 6 on explicit finite pairs, exactly: with delta* = max{sum (Q_i - E P_i)_+,
    sum (P_i - E Q_i)_+} (the hockey-stick divergences, E = e^eps), every Neyman-Pearson knot
    (x, y) of T(P, Q) has y + E x >= 1 - delta* and x + E y >= 1 - delta* (so T(P, Q) >=
    f_{eps,delta*}: a convex piecewise-linear function lies above a line iff its knots do), with
    equality at some knot (no smaller delta works)."""
    Fr = Fraction
    pairs = [((Fr(1, 2), Fr(1, 3), Fr(1, 6)), (Fr(1, 6), Fr(1, 3), Fr(1, 2))),
             ((Fr(3, 4), Fr(1, 4)), (Fr(0), Fr(1))),
             ((Fr(1, 2), Fr(1, 2), Fr(0)), (Fr(0), Fr(1, 4), Fr(3, 4)))]
    n = 0
    for (P, Q), E in product(pairs, (Fr(1), Fr(2), Fr(3))):
        d = max(sum(max(q - E * p_, 0) for p_, q in zip(P, Q, strict=True)),
                sum(max(p_ - E * q, 0) for p_, q in zip(P, Q, strict=True)))
        knots = _lower_hull(_np_points(P, Q))
        lows = [min(y + E * x, x + E * y) for x, y in knots]
        if min(lows) != 1 - d:
            return Check("fails", f"P = {P}, Q = {Q}, e^eps = {E}: min {min(lows)} != "
                         f"1 - delta* = {1 - d}", certified=True)
        n += 1
    return Check("holds", f"T(P, Q) >= f_{{eps,delta*}} with equality somewhere, exactly, for "
                 f"{n} (pair, e^eps) cases", certified=True, basis=_NP_BASIS,
                 scope="3 finite pairs (one symmetric, two asymmetric), e^eps in {1, 2, 3}")


stated(PAPER, "Prop. 6",
       "for every symmetric trade-off function h and eps >= 0: h >= f_{eps, delta_h(eps)}; for "
       "every trade-off function f: f >= f_{eps, max{delta_f(eps), delta_{f^-1}(eps)}} "
       "(delta_f(eps) = 1 + f^*(-e^eps))",
       _prop6_every_f, crosscheck=_prop6_np, instances=False)

stated(PAPER, "Eq. (7)",
       "the convex conjugate g^*(y) = sup_x (y x - g(x)) of G_1 at y = -e equals "
       "Phi(-1/2) - e Phi(-3/2) - 1 (= delta(1) - 1), to 25 digits",
       lambda: _rounds_to(ta.conjugate_value(ta.G(1), -sp.E),
                          ta.Phi(-R(1, 2)) - sp.E * ta.Phi(-R(3, 2)) - 1, R(1, 10**25)))

_DELTA_G = ta.Phi(-eps / mu + mu / 2) - sp.exp(eps) * ta.Phi(-eps / mu - mu / 2)
stated(PAPER, "Fig. 4 caption",
       "each (eps, delta(eps)) guarantee of G_mu is a pair of mutually symmetric supporting "
       "lines: f_{eps,delta(eps)} lies below G_mu, delta(eps) = 1 + G_mu^*(-e^eps) is the "
       "smallest such delta, and f_{eps,delta(eps)} is symmetric (mu in [1/10, 5], eps in "
       "[0, 10])",
       lambda: [ta.verify(ta.G(mu), ">=", ta.EpsDelta(eps, _DELTA_G),
                          over={mu: (R(1, 10), 5), eps: (0, 10)}),
                ta.verify(ta.delta(ta.G(mu), eps), "==", _DELTA_G,
                          over={mu: (R(1, 10), 5), eps: (0, 10)}),
                ta.verify(ta.Inverse(ta.EpsDelta(eps, _DELTA_G)), "==",
                          ta.EpsDelta(eps, _DELTA_G))])

# -- Section 2.5 --------------------------------------------------------------------------------
stated(PAPER, "Thm. 3 (first part)",
       "if M is f-DP, it is [1 - (1 - f)^{o k}]-DP for groups of size k: at two seeded random "
       "mechanisms with exact output laws (universe {0,1,2}, n = 2, k = 2; universe {0,1}, "
       "n = 3, k = 2, 3), f the largest trade-off function M is f-DP for (the hull "
       "of every neighbouring pair's Neyman-Pearson knots), every pair joined by a chain of k "
       "neighbours has T(M(S_0), M(S_k)) >= 1 - (1 - f)^{o k} (T from the output laws)",
       mo.thm3_groups, instances=True)


def _chain_links():
    f = ta.EpsDelta(sp.log(2), 0)
    return [ta.verify(ta.Discrete(x, y), ">=", f)
            for x, y in ((_C0, _C1), (_C1, _C0), (_C1, _C2), (_C2, _C1))]


stated(PAPER, "Thm. 3 (first part)",
       "instance k = 2, f = f_{log 2, 0}: the chain P0 = (1/6, 1/6, 2/3), P1 = (1/3, 1/3, 1/3), "
       "P2 = (2/3, 1/6, 1/6) has all links f-DP in both orders, and T(P0, P2) >= "
       "1 - (1 - f)^{o 2}",
       lambda: [*_chain_links(),
                ta.verify(ta.Discrete(_C0, _C2), ">=", ta.Group(ta.EpsDelta(sp.log(2), 0), 2))])

stated(PAPER, "Sec. 2.5 text",
       "1 - (1 - f)^{o k} remains symmetric if f is: f_{log 2, 1/10} with k = 3, G_mu with k = 3",
       lambda: [ta.verify(ta.Inverse(ta.Group(ta.EpsDelta(sp.log(2), R(1, 10)), 3)), "==",
                          ta.Group(ta.EpsDelta(sp.log(2), R(1, 10)), 3)),
                ta.verify(ta.Inverse(ta.Group(ta.G(mu), 3)), "==", ta.Group(ta.G(mu), 3))])

stated(PAPER, "Sec. 2.5 text",
       "the group bound cannot be improved in general: for f = f_{log 2, 0} and k = 2 the chain "
       "P0, P1, P2 above (links f-DP) has T(P0, P2) = 1 - (1 - f)^{o 2}",
       lambda: [*_chain_links(),
                ta.verify(ta.Group(ta.EpsDelta(sp.log(2), 0), 2), "==", ta.Discrete(_C0, _C2))])

stated(PAPER, "Sec. 2.5 text",
       "1 - (1 - f)^{o k} <= 1 - (1 - f)^{o (k-1)}: for f_{eps,delta} (eps in [0, 3], delta in "
       "[0, 1/2]) and L_mu, k = 3 against k = 2",
       lambda: [ta.verify(ta.Group(ta.EpsDelta(eps, delta), 3), "<=",
                          ta.Group(ta.EpsDelta(eps, delta), 2),
                          over={eps: (0, 3), delta: (0, R(1, 2))}),
                ta.verify(ta.Group(ta.Laplace(mu), 3), "<=", ta.Group(ta.Laplace(mu), 2))])

stated(PAPER, "Prop. 7",
       "1 - (1 - f_{mu/k,0})^{o k} -> T(Lap(0,1), Lap(mu,1)) uniformly as k -> infinity, at "
       "sample points: for mu = 1 the certified sup-distance is at most 1/(8 k^2) at k = 1, 2, "
       "4, 8, 16 (consistent with uniform convergence at rate O(1/k^2); the limit itself is "
       "not stated)",
       lambda: [ta.verify(ta.Functional("sup_distance", ta.Group(ta.EpsDelta(R(1, k), 0), k),
                                        ta.Laplace(1)), "<=", R(1, 8 * k**2))
                for k in (1, 2, 4, 8, 16)])
stated(PAPER, "Prop. 7, first remark",
       "T(Lap(0,1), Lap(mu,1)) is not f_{eps,delta} for any eps, delta (mu > 0): at mu in "
       "{1/2, 1, 3}, L_mu lies strictly below its chords on two disjoint intervals where it is "
       "positive (two kinks; f_{eps,delta} has one), certified at six points",
       lambda: [ta.is_not_member(ta.Laplace(m), ta.EpsDelta) for m in (R(1, 2), 1, 3)],
       instances=True)

# -- Section 3.1 --------------------------------------------------------------------------------
_B = ta.Discrete([R(1, 3), R(2, 3)], [R(2, 3), R(1, 3)])
stated(PAPER, "Def. 5",
       "f (x) g = T(P x P', Q x Q') does not depend on the representation of f: "
       "f_{log 3, 1/10} (x) g = (f_{log 3, 0} (x) f_{0, 1/10}) (x) g for "
       "g = T((1/3, 2/3), (2/3, 1/3))",
       lambda: ta.verify(ta.EpsDelta(sp.log(3), R(1, 10)) @ _B, "==",
                         (ta.EpsDelta(sp.log(3), 0) @ ta.EpsDelta(0, R(1, 10))) @ _B))

stated(PAPER, "Sec. 3.1, property 1",
       "(x) is commutative and associative (L_1, f_{1,0}, G_1; and over all mu, nu, eps)",
       lambda: [ta.verify((ta.Laplace(1) @ ta.EpsDelta(1, 0)) @ ta.G(1), "==",
                          ta.Laplace(1) @ (ta.EpsDelta(1, 0) @ ta.G(1))),
                ta.verify(ta.G(1) @ ta.EpsDelta(1, 0), "==", ta.EpsDelta(1, 0) @ ta.G(1)),
                ta.verify((ta.Laplace(mu) @ ta.G(nu)) @ ta.EpsDelta(eps, 0), "==",
                          ta.EpsDelta(eps, 0) @ (ta.G(nu) @ ta.Laplace(mu)))])

stated(PAPER, "Sec. 3.1, property 2",
       "g_1 >= g_2 implies f (x) g_1 >= f (x) g_2: L_1 (x) G_mu >= L_1 (x) G_{mu+h}, "
       "mu, h in [0, 3]",
       lambda: ta.verify(ta.Laplace(1) @ ta.G(mu), ">=", ta.Laplace(1) @ ta.G(mu + h),
                         over={mu: (0, 3), h: (0, 3)}),
       crosscheck=npa.tensor_monotone_np)

stated(PAPER, "Sec. 3.1, property 3",
       "f (x) Id = Id (x) f = f (f = L_mu), and Id = T(P, P) (P = (1/2, 1/3, 1/6))",
       lambda: [ta.verify(ta.Laplace(mu) @ ta.Id, "==", ta.Laplace(mu)),
                ta.verify(ta.Id @ ta.Laplace(mu), "==", ta.Laplace(mu)),
                ta.verify(ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 2), R(1, 3), R(1, 6)]),
                          "==", ta.Id)],
       crosscheck=npa.tensor_unit_np)

_F8 = ta.Discrete([R(1, 2), R(1, 2)], [R(1, 8), R(7, 8)])
stated(PAPER, "Sec. 3.1, property 4",
       "(f (x) g)^{-1} = f^{-1} (x) g^{-1}; f (x) g is symmetric when f and g are "
       "(G_mu (x) L_nu)",
       lambda: [ta.verify(ta.Inverse(_F4 @ _F8), "==", ta.Inverse(_F4) @ ta.Inverse(_F8)),
                ta.verify(ta.Inverse(ta.G(mu) @ ta.Laplace(nu)), "==", ta.G(mu) @ ta.Laplace(nu))],
       crosscheck=npa.tensor_inverse_np)

stated(PAPER, "Sec. 3.1 (arXiv footnote 14)",
       "trade-off functions form a commutative monoid under (x) with unit Id "
       "(G_mu, L_nu, f_{eps,0})",
       lambda: [ta.verify((ta.G(mu) @ ta.Laplace(nu)) @ ta.EpsDelta(eps, 0), "==",
                          ta.G(mu) @ (ta.Laplace(nu) @ ta.EpsDelta(eps, 0))),
                ta.verify(ta.G(mu) @ ta.Laplace(nu), "==", ta.Laplace(nu) @ ta.G(mu)),
                ta.verify(ta.Id @ ta.Laplace(nu), "==", ta.Laplace(nu))],
       crosscheck=npa.monoid_np)

# Claims for every trade-off function: trade-off symbols (tradeoff_algebra/core/symbol.py),
# decided by the rules valid for every f (rewrite/general.py, verify/symbolic.py).
_f1, _f2, _f3, _g = (ta.TradeOffSymbol(x) for x in ("f1", "f2", "f3", "g"))
_h1, _h2 = (ta.TradeOffSymbol(x, symmetric=True) for x in ("h1", "h2"))


def _thm4_algebra():
    return [ta.verify(_f1 @ _f2, "<=", _f1), ta.verify(_f1 @ _f2 @ _f3, "<=", _f2),
            ta.verify(ta.Max(_f1, _g) @ _f2, ">=", _f1 @ _f2),
            ta.verify(_f1 @ ta.Id, "==", _f1),
            ta.verify((_f1 @ _f2) @ _f3, "==", _f1 @ (_f2 @ _f3)),
            ta.verify(_f1 @ _f2, "==", _f2 @ _f1),
            ta.verify(ta.Inverse(_h1 @ _h2), "==", _h1 @ _h2)]


stated(PAPER, "Thm. 4",
       "the guarantee f_1 (x) ... (x) f_n of an adaptive composition, for every trade-off "
       "function f_i (what the theorem reduces to in the algebra): composing never gains "
       "privacy (f_1 (x) f_2 <= f_1, f_1 (x) f_2 (x) f_3 <= f_2), a stronger guarantee of one step "
       "gives a stronger bound (max{f_1, g} (x) f_2 >= f_1 (x) f_2), a perfectly private step "
       "changes nothing (f (x) Id = f), the order of the steps does not matter, and the bound "
       "is symmetric when the f_i are; the mechanisms themselves: the next entry",
       _thm4_algebra, instances=False)
stated(PAPER, "Thm. 4 (the mechanisms)",
       "the adaptive composition of f_i-DP mechanisms is f_1 (x) ... (x) f_n-DP: at seeded "
       "random mechanisms with exact output laws, two steps on {0,1,2}^2 (the second step a "
       "different mechanism for each first output, f_2 the guarantee of all of them) and three "
       "steps on {0,1}^2, every neighbouring pair of the composed mechanism (its law from "
       "Eq. (8)) has T >= f_1 (x) ... (x) f_n",
       mo.thm4_adaptive, instances=True)


def _tensor_np() -> Check:
    """Sec. 3.1, properties 2-4 on explicit finite pairs, by brute-force Neyman-Pearson and
    exact rationals (no rule of the library): T(P x R, Q x R) = T(P, Q); the Eq. (3) inverse of
    T(P x P', Q x Q') equals T(Q x Q', P x P'); merging outcomes of the second pair (Lemma 1:
    a larger g) raises the product."""
    Fr = Fraction
    pairs = [((Fr(3, 4), Fr(1, 4)), (Fr(0), Fr(1))),
             ((Fr(1, 2), Fr(1, 3), Fr(1, 6)), (Fr(1, 6), Fr(1, 3), Fr(1, 2))),
             ((Fr(1, 2), Fr(1, 2), Fr(0)), (Fr(0), Fr(1, 4), Fr(3, 4)))]
    same = (Fr(1, 3), Fr(2, 3))
    levels = [Fr(0), Fr(1, 10), Fr(1, 3), Fr(1, 2), Fr(7, 8), Fr(1)]
    n = 0
    for (P, Q), (P2, Q2) in product(pairs, repeat=2):
        f, fg = _BruteNP(P, Q), _BruteNP(_product(P, P2), _product(Q, Q2))
        unit = _BruteNP(_product(P, same), _product(Q, same))
        inv = _BruteNP(_product(Q, Q2), _product(P, P2))
        merged = _BruteNP(_product(P, P2[:-2] + (P2[-2] + P2[-1],)),
                          _product(Q, Q2[:-2] + (Q2[-2] + Q2[-1],)))
        hull = _lower_hull(_np_points(_product(P, P2), _product(Q, Q2)))
        for a in levels:
            if unit(a) != f(a) or _eq3_inverse(hull, a) != inv(a) or merged(a) < fg(a):
                return Check("fails", f"differs at alpha = {a} for P = {P}, P' = {P2}",
                             certified=True)
            n += 1
    return Check("holds", f"properties 2-4 exactly at {n} (pair, pair, alpha) points",
                 certified=True, basis=_NP_BASIS,
                 scope=f"3 x 3 finite pairs at alpha in {[str(a) for a in levels]}")


stated(PAPER, "Sec. 3.1, properties 2, 3 and 4",
       "for every trade-off function f, g, g1 (symbols): f (x) max{g, g1} >= f (x) g, "
       "f (x) Id = Id (x) f = f, (f (x) g)^{-1} = f^{-1} (x) g^{-1}, and f (x) g is symmetric "
       "when f and g are",
       lambda: [ta.verify(_f1 @ ta.Max(_g, _f2), ">=", _f1 @ _g),
                ta.verify(_f1 @ ta.Id, "==", _f1), ta.verify(ta.Id @ _f1, "==", _f1),
                ta.verify(ta.Inverse(_f1 @ _g), "==", ta.Inverse(_f1) @ ta.Inverse(_g)),
                ta.verify(ta.Inverse(_h1 @ _h2), "==", _h1 @ _h2)],
       crosscheck=_tensor_np, instances=False)


def _tightness():
    p1, q1 = [R(2, 3), R(1, 3)], [R(1, 3), R(2, 3)]            # T = f_{log 2, 0}
    p2 = [R(1, 4), R(3, 8), R(3, 8), 0]                       # T = f_{0, 1/4}
    q2 = p2[::-1]
    joint = ta.Discrete(_product(p1, p2), _product(q1, q2))
    return ta.verify(joint, "==", ta.EpsDelta(sp.log(2), 0) @ ta.EpsDelta(0, R(1, 4)))


stated(PAPER, "Sec. 3.1 text (after Thm. 4)",
       "a non-adaptive composition attains f_1 (x) f_2: randomised response (e^eps = 2) and the "
       "four-point pair of f_{0,1/4} have T(P1 x P2, Q1 x Q2) = f_{log 2,0} (x) f_{0,1/4}",
       _tightness)

stated(PAPER, "Sec. 3.1 text",
       "G_{mu_1} (x) ... (x) G_{mu_n} = G_{sqrt(mu_1^2 + ... + mu_n^2)} (n = 2, 3)",
       lambda: [ta.verify(ta.G(mu) @ ta.G(nu), "==", ta.G(sp.sqrt(mu**2 + nu**2))),
                ta.verify(ta.G(mu) @ ta.G(nu) @ ta.G(h), "==",
                          ta.G(sp.sqrt(mu**2 + nu**2 + h**2)))])

# -- Section 3.2 --------------------------------------------------------------------------------
_E0 = ta.EpsDelta(eps, 0)
_PR = sp.exp(eps) / (1 + sp.exp(eps))   # randomised response: P = (p, 1 - p), Q = (1 - p, p)
stated(PAPER, "Sec. 3.2 text",
       "kl, kappa_2, kappa_3 and bar kappa_3 are 0 at Id; kl(f) = KL(P, Q) >= 0: "
       "kl(G_mu) = mu^2/2, kl(L_mu) = mu + e^-mu - 1, kl(f_{eps,0}) = KL of randomised response, "
       "all >= 0 (L_mu: mu in [1/10, 10]); kappa_2(G_mu) = mu^2 + mu^4/4, bar kappa_3(G_mu) = "
       "2 sqrt(2/pi) mu^3",
       lambda: [ta.verify(ta.kl(ta.Id), "==", 0), ta.verify(ta.kappa2(ta.Id), "==", 0),
                ta.verify(ta.kappa3(ta.Id), "==", 0), ta.verify(ta.kappa3_bar(ta.Id), "==", 0),
                ta.verify(ta.kl(ta.G(mu)), "==", mu**2 / 2),
                ta.verify(ta.kl(ta.Laplace(mu)), "==", mu + sp.exp(-mu) - 1),
                ta.verify(ta.kl(_E0), "==",
                          _PR * sp.log(_PR / (1 - _PR)) + (1 - _PR) * sp.log((1 - _PR) / _PR)),
                ta.verify(ta.kl(ta.G(mu)), ">=", 0),
                ta.verify(ta.kl(ta.Laplace(mu)), ">=", 0, over={mu: (R(1, 10), 10)}),
                ta.verify(ta.kl(_E0), ">=", 0),
                ta.verify(ta.kappa2(ta.G(mu)), "==", mu**2 + mu**4 / 4),
                ta.verify(ta.kappa3_bar(ta.G(mu)), "==", 2 * sp.sqrt(2 / sp.pi) * mu**3)],
       crosscheck=kl_by_definition)

stated(PAPER, "Sec. 3.2 text (after Thm. 5)",
       "kappa_3 < inf excludes f(0) < 1, in particular f_{eps,delta} with delta > 0 has "
       "kappa_3 = inf (at (eps, delta) = (1, 1/10), (log 2, 1/2))",
       lambda: [ta.verify(ta.kappa3(ta.EpsDelta(1, R(1, 10))), "==", sp.oo),
                ta.verify(ta.kappa3(ta.EpsDelta(sp.log(2), R(1, 2))), "==", sp.oo)])
_FS = ta.TradeOffSymbol("f")
_KL, _K2, _K3, _K3B = (F(_n, _FS) for _n in ("kl", "kappa2", "kappa3", "kappa3_bar"))
stated(PAPER, "Sec. 3.2 text (after Thm. 5)",
       "kappa_3(f_i) < inf implies that kl, kappa_2 and bar kappa_3 are finite: for every "
       "trade-off function f, |kl(f)| <= kappa_2(f)^{1/2} <= kappa_3(f)^{1/3}, kappa_2(f) <= "
       "kappa_3(f)^{2/3} and bar kappa_3(f) <= 8 kappa_3(f) (Lyapunov's and Minkowski's "
       "inequalities for the moments of log|f'(U)|, U uniform); certified at G_1, L_1, "
       "f_{1,0}, f_{3,0} from the library's closed forms",
       lambda: [ta.verify(sp.Abs(_KL), "<=", _K2 ** R(1, 2)),
                ta.verify(_K2 ** R(1, 2), "<=", _K3 ** R(1, 3)),
                ta.verify(_KL, "<=", _K3 ** R(1, 3)),
                ta.verify(_K2, "<=", _K3 ** R(2, 3)),
                ta.verify(_K3B, "<=", 8 * _K3)] + moment_instances(), instances=False)

def _thm5_cases():
    """Exact compositions with gamma < 1/2 and their Berry-Esseen sandwich (Thm. 5)."""
    for e_, n_ in ((R(1, 3), 30), (sp.log(R(3, 2)), 12)):
        f = ta.BinomialDP(e_, n_)
        yield f, ta.berry_esseen(f)


#: Thm. 5 on a box: eps = log(1 + y), y in [1/4, 1/2] (rational corners give rational knots).
_Y = sp.Symbol("y", positive=True)
_THM5_BOX = (R(1, 4), R(1, 2))


def _thm5_box():
    """The lower side of the sandwich for f_{eps,0}^{(x) n}, n = 12 and 30, on the whole box
    eps = log(1 + y), y in [1/4, 1/2], and every alpha: a certified cover (the composition at
    the cell's largest eps against Shift(G_mu, gamma) at the cell's extreme mu and gamma, both
    sides monotone in their parameters, decided pointwise on [0, 1])."""
    out = []
    for n_ in (12, 30):
        be = ta.berry_esseen(ta.EpsDelta(sp.log(1 + _Y), 0), n_)
        out.append(ta.verify(ta.BinomialDP(sp.log(1 + _Y), n_), ">=", be.lower,
                             over={_Y: _THM5_BOX}))
    return out


_S = sp.Symbol("s", nonnegative=True)


def _thm5():
    """The upper side for f_{eps,0}^{(x) n}, n = 12 and 30, on the whole box eps = log(1 + y),
    y in [1/4, 1/2], and every alpha in [gamma, 1 - gamma] (alpha = gamma + s (1 - 2 gamma),
    s in [0, 1]): a certified cover of the box (y, s), the composition at the cell's smallest
    eps and alpha against Shift(G_mu, -gamma) (its certified Arb evaluation,
    operators/shift_hull.py) at the cell's largest mu, smallest gamma and largest alpha. The
    instances f_{1/3,0}^{(x) 30} (y = e^{1/3} - 1) and f_{log 3/2,0}^{(x) 12} (y = 1/2) lie in
    the box."""
    out = []
    for n_ in (12, 30):
        f = ta.BinomialDP(sp.log(1 + _Y), n_)
        be = ta.berry_esseen(ta.EpsDelta(sp.log(1 + _Y), 0), n_)
        g = -be.upper.t
        al = g + _S * (1 - 2 * g)
        out.append(ta.verify(F("evaluate", f, al), "<=", F("evaluate", be.upper, al),
                             over={_Y: _THM5_BOX, _S: (0, 1)}))
    return out


def _thm5_extended():
    out = []
    for f, be in _thm5_cases():
        for al in (be.gamma / 2, 1 - be.gamma / 2):  # outside [gamma, 1 - gamma]
            out.append(ta.verify(F("evaluate", f, al), "<=", F("evaluate", be.upper, al)))
            out.append(ta.verify(F("evaluate", f, al), ">=", F("evaluate", be.lower, al)))
    return out


stated(PAPER, "Thm. 5, Eq. (9)",
       "mu = 2 ||kl||_1/sqrt(||kappa_2||_1 - ||kl||_2^2) gives mu = 2 sqrt(n) sinh(eps/2) for "
       "f_{eps,0}^{(x) n} (all eps, n)",
       lambda: ta.verify(ta.berry_esseen(ta.EpsDelta(eps, 0), n).mu, "==",
                         2 * sp.sqrt(n) * sp.sinh(eps / 2)),
       crosscheck=kl_by_definition)
stated(PAPER, "Thm. 5, Eq. (9)",
       "Berry-Esseen, lower side: G_mu(alpha + gamma) - gamma <= f_1 (x) ... (x) f_n(alpha), "
       "with mu and gamma from kl, kappa_2, bar kappa_3. On the box eps = log(1 + y), y in "
       "[1/4, 1/2], n = 12 and 30: Shift(G_mu, gamma) below the exact composition "
       "f_{eps,0}^{(x) n} for every alpha (a certified cover of the box)", _thm5_box)
stated(PAPER, "Thm. 5, Eq. (9)",
       "Berry-Esseen, upper side: f_1 (x) ... (x) f_n(alpha) <= G_mu(alpha - gamma) + gamma on "
       "[gamma, 1 - gamma]. On the box eps = log(1 + y), y in [1/4, 1/2], n = 12 and 30: the "
       "exact composition f_{eps,0}^{(x) n} below Shift(G_mu, -gamma) (the greatest trade-off "
       "function below the translate, certified in Arb) for every alpha in [gamma, 1 - gamma] "
       "(a certified cover of the box)", _thm5)
stated(PAPER, "Thm. 5 (arXiv footnote 16)",
       "with G_mu extended by 1 on (-inf, 0) and 0 on (1, inf) the sandwich holds outside "
       "[gamma, 1 - gamma] too (at gamma/2 and 1 - gamma/2 for the Thm. 5 instances)",
       _thm5_extended)

stated(PAPER, "Sec. 3.2 text (after Thm. 5)",
       "n identical f_{eps,0} != Id give mu = 2 n kl/sqrt(n kappa_2 - n kl^2) = "
       "2 sinh(eps/2) sqrt(n), so mu grows like sqrt(n)",
       lambda: ta.verify(2 * n * ta.kl(_E0) / sp.sqrt(n * ta.kappa2(_E0) - n * ta.kl(_E0)**2),
                         "==", sp.sqrt(n) * (sp.exp(eps / 2) - sp.exp(-eps / 2))),
       crosscheck=kl_by_definition)

def _thm6():
    """The array f_{1/sqrt(n),0}: Thm. 6's approximation G_{2K/s} (K = n kl, s^2 = n kappa_2,
    clt_mu) at n = 10, 40, 160 is within 0.125/n in certified sup-distance (O(1/n))."""
    out = []
    for m in (10, 40, 160):
        f = ta.BinomialDP(1 / sp.sqrt(m), m)
        g = ta.G(clt_mu(factors(f)))
        out.append(ta.verify(m * F("sup_distance", f, g), "<=", R(125, 1000)))
    return out


stated(PAPER, "Thm. 6",
       "CLT: sum kl -> K, max kl -> 0, sum kappa_2 -> s^2, sum kappa_3 -> 0 give "
       "f_{n1} (x) ... (x) f_{nn} -> G_{2K/s} uniformly (the limit is not a finite statement; "
       "at n = 10, 40, 160 the array f_{1/sqrt(n),0} is within 0.125/n of G_{2K/s}, the "
       "ta.approx form of Thm. 6)", _thm6)
#: Triangular arrays f_{ni} = g_n (i <= n) of the paper's applications of Thm. 6: Thm. 7's
#: f_{mu/sqrt(n),0} (Thm. 8's setting) and G_{mu/sqrt(n)}, for every mu > 0.
_ARRAYS = [ta.EpsDelta(mu / sp.sqrt(n), 0), ta.G(mu / sp.sqrt(n))]


def _lim(x, to=sp.oo):
    return ta.Limit(x, n, to)


def _be_limits():
    """Thm. 5's mu and gamma of g_n^{(x) n} against K = lim n kl(g_n), s^2 = lim n kappa_2(g_n)
    (SymPy limits, each a verdict); the hypotheses of Thm. 6 (max kl -> 0, n kappa_3 -> 0) as
    limits too."""
    out = []
    for g in _ARRAYS:
        be = ta.berry_esseen(g, n)
        K = sp.limit(n * ta.kl(g), n, sp.oo)
        s2 = sp.limit(n * ta.kappa2(g), n, sp.oo)
        out += [ta.verify_limit(_lim(n * ta.kl(g)), "==", K),
                ta.verify_limit(_lim(n * ta.kappa2(g)), "==", s2),
                ta.verify_limit(_lim(ta.kl(g)), "==", 0),
                ta.verify_limit(_lim(n * ta.kappa3(g)), "==", 0),
                ta.verify_limit(_lim(be.mu), "==", 2 * K / sp.sqrt(s2)),
                ta.verify_limit(_lim(be.gamma), "==", 0)]
    return out


stated(PAPER, "Sec. 3.2 text (after Thm. 6)",
       "under the conditions of Thm. 6, Thm. 5's mu -> 2K/s and gamma -> 0: at the arrays "
       "f_{mu/sqrt(n),0} and G_{mu/sqrt(n)} (every mu > 0), where n kl -> K, n kappa_2 -> s^2, "
       "max kl -> 0 and n kappa_3 -> 0 (SymPy limits of the closed-form functionals)",
       _be_limits, instances=True)
stated(PAPER, "Sec. 3.2 text",
       "s = sqrt(2K) in the paper's applications of Thm. 6: lim n (kappa_2 - 2 kl)(f_n) = 0 at "
       "the arrays f_n = f_{mu/sqrt(n),0} (Thm. 7's) and G_{mu/sqrt(n)}, every mu > 0 (Thm. "
       "11's is stated with Thm. 11)",
       lambda: [ta.verify_limit(_lim(n * (ta.kappa2(g) - 2 * ta.kl(g))), "==", 0)
                for g in _ARRAYS], instances=True)

# -- Section 3.3 --------------------------------------------------------------------------------
stated(PAPER, "Sec. 3.3 text (after Eq. (10))",
       "f_{e1,d1} (x) f_{e2,d2} = (f_{e1,0} (x) f_{e2,0}) (x) (f_{0,d1} (x) f_{0,d2}), via "
       "Eq. (10) applied to each factor (e1, e2 in [0, 3], d1, d2 in [0, 1])",
       lambda: [ta.verify(ta.EpsDelta(e1, d1), "==", ta.EpsDelta(e1, 0) @ ta.EpsDelta(0, d1),
                          over={e1: (0, 3), d1: (0, 1)}),
                ta.verify(ta.EpsDelta(e2, d2), "==", ta.EpsDelta(e2, 0) @ ta.EpsDelta(0, d2),
                          over={e2: (0, 3), d2: (0, 1)}),
                ta.verify((ta.EpsDelta(e1, 0) @ ta.EpsDelta(0, d1))
                          @ (ta.EpsDelta(e2, 0) @ ta.EpsDelta(0, d2)), "==",
                          (ta.EpsDelta(e1, 0) @ ta.EpsDelta(e2, 0))
                          @ (ta.EpsDelta(0, d1) @ ta.EpsDelta(0, d2)),
                          over={e1: (0, 3), e2: (0, 3), d1: (0, 1), d2: (0, 1)})],
       crosscheck=npa.eq10_np)

def _thm7_array():
    out = []
    for m in (10, 40, 160):
        f = ta.BinomialDP(1 / sp.sqrt(m), m)
        out.append(ta.verify(ta.approx(f).node, "==", ta.G(1)))
        out.append(ta.verify(m * F("sup_distance", f, ta.G(1)), "<=", R(13, 100)))
    return out


stated(PAPER, "Sec. 3.3 text",
       "the eps part f_{eps_1,0} (x) ... (x) f_{eps_n,0} is approximated by "
       "G_{sqrt(eps_1^2 + ... + eps_n^2)} (ta.approx gives it; at eps_i = 1/sqrt(n), n = 10, "
       "40, 160, the certified sup-distance to G_1 is at most 0.13/n)", _thm7_array)

stated(PAPER, "Sec. 3.3 text",
       "f_{0,delta_1} (x) ... (x) f_{0,delta_n} = f_{0, 1 - prod(1 - delta_i)} (n = 3, "
       "delta_i in [0, 1]; and delta = 1/10, 1/5, 1/3)",
       lambda: [ta.verify(ta.EpsDelta(0, d1) @ ta.EpsDelta(0, d2) @ ta.EpsDelta(0, h), "==",
                          ta.EpsDelta(0, 1 - (1 - d1) * (1 - d2) * (1 - h)),
                          over={d1: (0, 1), d2: (0, 1), h: (0, 1)}),
                ta.verify(ta.EpsDelta(0, R(1, 10)) @ ta.EpsDelta(0, R(1, 5))
                          @ ta.EpsDelta(0, R(1, 3)), "==", ta.EpsDelta(0, R(13, 25)))])


def _uniform(m, j):
    """U[0, 1] and U[j/m, 1 + j/m] cut into cells of width 1/m (the ratio is constant on each)."""
    return ta.Discrete([R(1, m)] * m + [0] * j, [0] * j + [R(1, m)] * m)


stated(PAPER, "Sec. 3.3 text",
       "f_{0,delta} = T(U[0,1], U[delta, 1 + delta]), at delta = 3/10 and 2/7",
       lambda: [ta.verify(ta.EpsDelta(0, R(3, 10)), "==", _uniform(10, 3)),
                ta.verify(ta.EpsDelta(0, R(2, 7)), "==", _uniform(7, 2))])

def _thm7():
    """eps_i = 1/sqrt(n), delta_i = 1/(2n): ta.approx gives G_1 (x) f_{0, 1 - e^{-1/2}};
    its distance to the exact composition shrinks like 1/n (n = 10, 40)."""
    out = []
    for m in (10, 40):
        f = ta.EpsDelta(1 / sp.sqrt(m), R(1, 2 * m)) ** m
        g = ta.approx(f).node
        out.append(ta.verify(g, "==", ta.G(1) @ ta.EpsDelta(0, 1 - sp.exp(-R(1, 2)))))
        for al in (R(1, 100), R(1, 10), R(1, 2)):
            out.append(ta.verify(m * abs(F("evaluate", f, al) - F("evaluate", g, al)), "<=",
                                 R(13, 100)))
    return out


stated(PAPER, "Thm. 7",
       "sum eps_ni^2 -> mu^2, max eps_ni -> 0, sum delta_ni -> delta, max delta_ni -> 0 give "
       "f_{eps_n1,delta_n1} (x) ... (x) f_{eps_nn,delta_nn} -> G_mu (x) f_{0, 1 - e^-delta} "
       "(finite-n form from ta.approx; within 0.13/n at three levels for n = 10, 40)", _thm7,
       crosscheck=npa.thm7_np)
_DA, _DB = sp.symbols("A B", positive=True)
stated(PAPER, "Sec. 3.3 text (after Thm. 7)",
       "1 - (1 - delta_n1) ... (1 - delta_nn) -> 1 - e^{-delta}: at the arrays delta_ni = "
       "delta/n (every delta > 0) and, in rows of even length 2n, delta_ni = A/(2n) for the "
       "first half and B/(2n) for the second (sum -> delta = (A + B)/2, every A, B > 0)",
       lambda: [ta.verify_limit(_lim(1 - (1 - delta / n) ** n), "==", 1 - sp.exp(-delta)),
                ta.verify_limit(_lim(1 - (1 - _DA / (2 * n)) ** n * (1 - _DB / (2 * n)) ** n),
                                "==", 1 - sp.exp(-(_DA + _DB) / 2))], instances=True)


def _eq12():
    cases = [(2, 0, R(1, 4)), (3, R(1, 10), R(1, 3)), (R(3, 2), R(1, 2), R(9, 10))]
    out = [ta.verify(ta.EpsDelta(sp.log(e), d0) @ ta.EpsDelta(0, d), "==",
                     _scaled(_epsdelta_knots(e, d0), d))
           for e, d0, d in cases]
    out.append(ta.verify(ta.Inverse(ta.G(mu) @ ta.EpsDelta(0, delta)), "==",
                         ta.G(mu) @ ta.EpsDelta(0, delta), over={delta: (0, 1)}))
    return out


stated(PAPER, "Eq. (12)",
       "f (x) f_{0,delta}(alpha) = (1 - delta) f(alpha/(1 - delta)) on [0, 1 - delta], 0 beyond, "
       "for f = f_{eps,d0} at (e^eps, d0, delta) in {(2, 0, 1/4), (3, 1/10, 1/3), "
       "(3/2, 1/2, 9/10)}; f (x) f_{0,delta} is symmetric if f is (f = G_mu)",
       _eq12)

stated(PAPER, "Fig. 5 caption (left)",
       "tensoring with f_{0,delta} scales the graph towards the origin by 1 - delta: "
       "f_{log 4, 0} with delta = 1/2",
       lambda: ta.verify(ta.EpsDelta(sp.log(4), 0) @ ta.EpsDelta(0, R(1, 2)), "==",
                         _scaled(_epsdelta_knots(4, 0), R(1, 2))))

stated(PAPER, "Sec. 3.3 text",
       "the limit G_mu (x) f_{0, 1 - e^-delta} is T(N(0,1) x U[0,1], N(mu,1) x "
       "U[1 - e^-delta, 2 - e^-delta]), and U[1 - e^-delta, 2 - e^-delta] ~ "
       "U[delta, 1 + delta] for small delta: T(U[0,1], U[a, 1+a]) = f_{0,a} by exact "
       "Neyman-Pearson on its three likelihood-ratio regions (P = (a, 1-a, 0), Q = (0, 1-a, a)), "
       "so the product pair has G_mu (x) f_{0,a} by Def. 5; at delta in {1/10, 1/2} (a = "
       "1 - e^-delta and a = delta), f_{0,1-e^-delta} - f_{0,delta} = delta - 1 + e^-delta at "
       "alpha = 0 (the sup, f_{0,a} being 1-Lipschitz in a), the certified sup-distance is "
       "<= delta^2/2, and delta - 1 + e^-delta <= delta^2/2 for delta in [0, 10]",
       sec33_uniform_limit, instances=True)

stated(PAPER, "Sec. 3.3 text",
       "1/sqrt(n) = 0.14 (two digits) for n = 50",
       lambda: _rounds_to(1 / sp.sqrt(50), R(14, 100), R(5, 1000)))
stated(PAPER, "Sec. 3.3 text",
       "gamma = O(1/sqrt(n)) under mild conditions (Cor. D.7): sqrt(n) gamma_n has a finite "
       "limit at the arrays f_{mu/sqrt(n),0} (0.56: the loss is +-eps, so bar kappa_3 ~ eps^3 "
       "and the variance ~ eps^2) and G_{mu/sqrt(n)} (0.56 * 2 sqrt(2/pi): bar kappa_3 = "
       "2 sqrt(2/pi) mu^3 n^{-3/2}, variance mu^2/n), every mu > 0",
       lambda: [ta.verify_limit(_lim(sp.sqrt(n) * ta.berry_esseen(g, n).gamma), "==", c)
                for g, c in zip(_ARRAYS, (R(56, 100),
                                          R(56, 100) * 2 * sp.sqrt(2) / sp.sqrt(sp.pi)),
                                strict=True)], instances=True)

def _thm8(c=None):
    """mu = 1: the lower side Shift(G_1, c/n) certified below f_{1/sqrt(n),0}^{(x) n}
    everywhere, the upper side Shift(G_1, -c/n) above it at three levels, n = 1, 5, 20."""
    c = R(1, 10) if c is None else c
    out = []
    for m in (1, 5, 20):
        f = ta.BinomialDP(1 / sp.sqrt(m), m)
        out.append(ta.verify(f, ">=", ta.Shift(ta.G(1), c / m)))
        for al in (R(1, 20), R(3, 10), R(7, 10)):
            out.append(ta.verify(F("evaluate", f, al), "<=",
                                 F("evaluate", ta.Shift(ta.G(1), -c / m), al)))
    return out


stated(PAPER, "Thm. 8",
       "there is c(mu) with G_mu(alpha + c/n) - c/n <= f_{mu/sqrt(n),0}^{(x)n}(alpha) <= "
       "G_mu(alpha - c/n) + c/n for all n and c/n <= alpha <= 1 - c/n (the existence of c for "
       "all n is not a finite statement; with c = 1/10 at mu = 1 the sandwich holds at "
       "n = 1, 5, 20)", _thm8)
stated(PAPER, "Sec. 3.3 text",
       "simulations suggest c ~ 0.1 in Thm. 8 for mu = 1 (c = 1/10 holds at n = 1, 5, 20: "
       "the Thm. 8 entry)", _thm8)
stated(PAPER, "Sec. 3.3 text",
       "for n = 10 (eps = 1/sqrt(10)) G_1 and f_{eps,0}^{(x)10} differ by less than 0.013 "
       "(certified sup-distance)",
       lambda: ta.verify(ta.Functional("sup_distance", _F10, ta.G(1)), "<=", R(13, 1000)))


def _inhomogeneous():
    out = []
    for m in (10, 20, 40):
        c0 = 1 / sp.sqrt(R(104, 100) * m)  # eps_i in {0.8 c, 1.2 c}, half each: sum eps_i^2 = 1
        f = ta.EpsDelta(R(8, 10) * c0, 0) ** (m // 2) @ ta.EpsDelta(R(12, 10) * c0, 0) ** (m // 2)
        out.append(ta.verify(m * ta.Functional("sup_distance", f, ta.G(1)), "<=", R(61, 1000)))
    return out


stated(PAPER, "Sec. 3.3 text",
       "numerical evidence: the same O(1/n) rate for inhomogeneous eps_i of similar size, at "
       "sample points: eps_i in {0.8 c, 1.2 c} (half each, sum eps_i^2 = 1) give "
       "n sup|f - G_1| <= 0.061 at n = 10, 20, 40 (certified sup-distances; the rate itself is "
       "not stated)", _inhomogeneous, crosscheck=npa.inhomogeneous_np)


def _fig5_eps():
    x = ta.epsilon(_F10, R(1, 1000))
    return _rounds_to(x, R(289, 100), R(5, 1000))


stated(PAPER, "Fig. 5 caption (right)",
       "the tightest (eps, 0.001)-DP guarantee of f_{1/sqrt(10),0}^{(x)10} has eps = 2.89 "
       "(two decimals)",
       _fig5_eps)

stated(PAPER, "Sec. 3.3 text",
       "the Berry-Esseen bound is rate-optimal for binomial distributions: the Kolmogorov "
       "distance between the standardised Binomial(n, 1/2) and Phi is at least half the "
       "central jump, |F_n(0) - Phi(0)| = C(n, n/2)/2^{n+1} >= 1/(2 sqrt(2n)) (exact at "
       "n = 10, 100, 1000; C(2m, m)/4^m >= 1/(2 sqrt m) for every m >= 1 by induction: the base "
       "m = 1 and the step ((2m+1)/(2m+2))^2 - m/(m+1) = 1/(4(m+1)^2) proved for all m), so no "
       "o(1/sqrt n) bound holds ('unlikely to give O(1/n)' is an opinion, not stated)",
       binomial_rate, instances=True)
