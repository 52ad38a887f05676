"""One reference per family of ``tradeoff_algebra/families/``: :func:`reference` maps a family
instance with numeric parameters to a :class:`~.base.Ref` built from its defining pair (P, Q)
or, for RenyiRegion, from its defining constraints. It reads only the node's class name and its
parameters (``f.args``); no function of the library is called.

=====================  ======================================================================
family                 reference
=====================  ======================================================================
Gaussian (G_mu)        T(N(0,1), N(mu,1)): threshold tests solved by bisection (:mod:`.pairs`)
Laplace (L_mu)         T(Lap(0,1), Lap(mu,1)): the same
EpsDelta               the four-point pair of Dong, Roth & Su, Prop. 3, exact Neyman--Pearson
IdTradeOff, ZeroTr.    the pairs (P, P) and two disjoint point masses
BinomialDP             the binomial pair of f_{eps,0}^{(x)n} (Kairouz et al.; DRS Sec. 3.3)
ShuffleDP              the literal pair of the shuffle model (tests/reference_np.literal_pair)
Discrete               its own (P, Q)
PiecewiseLinear        a pair whose trade-off has its knots
NormalPair             T(N(m0,s0^2), N(m1,s1^2)): hockey-stick region + Legendre transform
GaussianMixturePair    T(sum w N(a,1), sum w N(b,1)): the same
PoissonReplace         T((1-q)N(0,1)+qN(mu,1), (1-q)N(0,1)+qN(-mu,1)): threshold tests
DiscreteGaussian       T(N_Z(0, s^2), N_Z(Delta, s^2)) on the integers, the lattice cut where
                       each law's tail is below the working precision: exact Neyman--Pearson
                       on the truncated pair (Canonne, Kamath & Steinke, Def. 1)
BoundedRange           inf over t of the two-point generalized randomized responses (Dong,
                       Durfee & Rogers, Sec. 3.1), grid and golden-section search over t
RenyiRegion            max over the orders of the smallest beta meeting the constraint, by
                       bisection in log beta (van Erven & Harremoes, Thm. 9)
=====================  ======================================================================
"""

from __future__ import annotations

import mpmath
import reference_np as rnp
import sympy as sp
from mpmath import mp

from .base import Num, Ref, _tick, n_frac, n_log, to_frac, to_m
from .finite import Finite, binomial_pair, id_ref, zero_ref
from .pairs import gauss_mixture_pair, gauss_pair, laplace_pair, normal_pair, poisson_replace_pair


def num(x) -> Num:
    """A parameter of a node as a :class:`Num` (rationals and floats exactly, log(r) by r)."""
    x = sp.sympify(x)
    if x.is_Rational or x.is_Float:
        return n_frac(to_frac(x))
    if isinstance(x, sp.log) and x.args[0].is_Rational:
        return n_log(to_frac(x.args[0]))
    if x.is_number and x.is_real:  # another constant (log(3) + 1/100): a rational within 1e-80
        return n_frac(to_frac(sp.Rational(sp.N(x, 90))))
    raise TypeError(f"no numeric reference parameter for {x!r}")


def _m(x):
    return num(x).m()


def _frac_or_m(x):
    """(exact, value): a Fraction when the parameter is rational, else an mpf."""
    n = num(x)
    return (True, n.frac) if n.frac is not None else (False, n.m())


def _feasible_end(h, lo, hi, h_lo, h_hi):
    """The root of an increasing h with h(lo) < 0 <= h(hi), returned from the feasible side
    (h >= 0) once the bracket is below a few ulps. The Illinois method (regula falsi halving the
    weight of an end kept twice, so that both ends converge), with a bisection whenever the
    bracket has not halved in the last two steps: at most three steps per halving."""
    tol = mpmath.ldexp(1, 4 - mp.prec)
    side = 0
    widths = [hi - lo, hi - lo]
    for _ in range(3 * mp.prec + 3 * 64):
        _tick()
        w = hi - lo
        if w <= tol * (1 + abs(hi)):
            return hi
        c = hi - h_hi * w / (h_hi - h_lo)
        if w > widths[-2] / 2 or not lo < c < hi:
            c = (lo + hi) / 2
        widths.append(w)
        h_c = h(c)
        if h_c >= 0:
            hi, h_hi = c, h_c
            if side == 1:
                h_lo /= 2
            side = 1
        else:
            lo, h_lo = c, h_c
            if side == -1:
                h_hi /= 2
            side = -1
    raise ArithmeticError("no convergence")  # pragma: no cover - halving bounds the steps


class RenyiRegionRef(Ref):
    """f(alpha) = max_a inf{beta in [0, 1 - alpha] : g_a(alpha, beta) <= e^{(a-1) tau_a}} with
    g_a(alpha, beta) = alpha^a (1 - beta)^{1-a} + (1 - alpha)^a beta^{1-a} and, when symmetric,
    the reverse constraint with P and Q exchanged. Each constraint is decreasing in beta on
    [0, 1 - alpha] (its minimum 1 is at beta = 1 - alpha), so its infimum is found by bisection
    in log beta."""

    sym = True

    def __init__(self, bounds: list, symmetric: bool, label: str = ""):
        self.bounds_, self.symmetric, self.label = bounds, symmetric, label
        self.sym = symmetric
        self._cache: dict = {}

    def _smallest(self, a, ac, order, tau, reverse: bool):
        order, tau = to_m(order), to_m(tau)
        cap = (order - 1) * tau

        def h(lb):  # >= 0 iff the constraint holds at beta = e^lb (increasing in lb)
            b = mpmath.exp(lb)
            bc = 1 - b
            if reverse:
                g = bc**order * a ** (1 - order) + b**order * ac ** (1 - order)
            else:
                g = a**order * bc ** (1 - order) + ac**order * b ** (1 - order)
            return cap - mpmath.log(g)

        hi = mpmath.log(ac)  # beta = 1 - alpha: g = 1, always feasible
        lo = hi - 1
        h_lo = h(lo)
        while h_lo >= 0:
            lo = 2 * lo - 1
            if lo < -10**6:
                return mp.zero
            h_lo = h(lo)
        return mpmath.exp(_feasible_end(h, lo, hi, h_lo, max(h(hi), mp.zero)))

    def val(self, a, ac, side):
        key = (a, mp.prec)  # (both sides are the same value)
        if key not in self._cache:
            self._cache[key] = self._val(a, ac)
        return self._cache[key]

    def _val(self, a, ac):
        if ac == 0:
            return mp.zero
        if a == 0:  # beta^{1-a} <= e^{(a-1) tau}: beta >= e^{-tau}; the reverse forces beta = 1
            return mp.one if self.symmetric else max(mpmath.exp(-to_m(t))
                                                     for _, t in self.bounds_)
        best = mp.zero
        for order, tau in self.bounds_:
            best = max(best, self._smallest(a, ac, order, tau, False))
            if self.symmetric:
                best = max(best, self._smallest(a, ac, order, tau, True))
        return best


class BoundedRangeRef(Ref):
    """inf over t in [0, eps] of T(P_t, Q_t), the generalized randomized responses of Dong,
    Durfee & Rogers (2020, Sec. 3.1): two outcomes with likelihood ratios q/p = e^{-t} and
    e^{eps - t}, P_t = (p, 1 - p), Q_t = (e^{-t} p, 1 - e^{-t} p), p = (e^eps - e^t)/(e^eps - 1).
    Each T(P_t, Q_t) by exact Neyman--Pearson on the two outcomes; the infimum over t by a grid
    of 64 points and golden-section search in the best bracket (the formula of the family is
    not used)."""

    sym = True

    #: values by (eps, a, precision), shared by the instances of one eps: the tests of every
    #: capability ask the same levels of the same sample, each building its own reference.
    _shared: dict = {}
    #: (e^eps, e^eps - 1) by (eps, precision): the same numbers as computed in each call
    _constants: dict = {}

    def __init__(self, eps, label: str = ""):
        self.eps, self.label = eps, label
        self._cache: dict = BoundedRangeRef._shared

    def _pair_value(self, t, a):
        key = (self.eps, mp.prec)
        if key not in self._constants:
            self._constants[key] = (mpmath.exp(self.eps), mpmath.expm1(self.eps))
        E, E1 = self._constants[key]
        p = (E - mpmath.exp(t)) / E1
        x, y = 1 - p, mpmath.exp(-t) * p  # the knot: reject the outcome of ratio e^{eps - t}
        if a <= x:
            return 1 - a * (1 - y) / x if x > 0 else mp.one - a
        return y * (1 - a) / (1 - x)

    def val(self, a, ac, side):
        key = (self.eps, a, mp.prec)
        if key not in self._cache:
            self._cache[key] = self._val(a)
        return self._cache[key]

    def _val(self, a):
        if self.eps == 0 or a in (0, 1):
            return 1 - a
        n = 64
        ts = [self.eps * i / n for i in range(n + 1)]
        vs = [self._pair_value(t, a) for t in ts]
        i = min(range(n + 1), key=lambda j: vs[j])
        lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, n)]
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(2 * mp.prec):
            _tick()
            m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
            if self._pair_value(m1, a) <= self._pair_value(m2, a):
                hi = m2
            else:
                lo = m1
            if hi - lo < mpmath.mpf(2) ** (-mp.prec):
                break
        return min(self._pair_value(lo, a), self._pair_value(hi, a), vs[i])


def discrete_gaussian_pair(d: int, sigma: Num, label: str) -> Finite:
    """The pair N_Z(0, s^2), N_Z(d, s^2) on [-K, K + d], K with exp(-K^2/(2 s^2)) far below the
    working precision (the masses beyond are below 2^-(prec + 40)), masses from the weights
    exp(-x^2/(2 s^2)) over their sum at the working precision."""
    def make():
        s = to_m(sigma.frac) if sigma.frac is not None else sigma.m()
        K = int(mpmath.ceil(s * mpmath.sqrt(2 * (mp.prec + 60) * mpmath.log(2)))) + 2
        w = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s * s)) for x in range(-K - d, K + d + 1)}
        z = mpmath.fsum(w.values())
        xs = range(-K, K + d + 1)
        return [w[x] / z for x in xs], [w[x - d] / z for x in xs]
    return Finite(False, make, "pair", sym=True, label=label)


def reference(f) -> Ref:
    """The reference of a family instance with numeric parameters (module docstring)."""
    name = type(f).__name__
    args = f.args
    label = str(f)
    if name == "Gaussian":
        return gauss_pair(_m(args[0]), label)
    if name == "Laplace":
        return laplace_pair(_m(args[0]), label)
    if name == "IdTradeOff":
        return id_ref()
    if name == "ZeroTradeOff":
        return zero_ref()
    if name == "EpsDelta":
        eps, d = num(args[0]), num(args[1])
        E = eps.exp_exact()
        exact = E is not None and d.frac is not None
        return Finite(exact, lambda: rnp.four_point_pair(E, d.frac) if exact else
                      rnp.four_point_pair(eps.exp_m(), to_m(d.frac)), "pair", sym=True,
                      label=label)
    if name == "BinomialDP":
        eps, n = num(args[0]), int(args[1])
        E = eps.exp_exact()
        return Finite(E is not None, lambda: binomial_pair(E if E is not None else eps.exp_m(),
                                                           n, E is not None),
                      "pair", sym=True, label=label)
    if name == "ShuffleDP":
        eps, n = num(args[0]), int(args[1])
        E = eps.exp_exact()
        return Finite(E is not None,
                      lambda: rnp.literal_pair(E if E is not None else eps.exp_m(), n)[1:],
                      "pair", sym=True, label=label)
    if name == "Discrete":
        if all(sp.sympify(x).is_Rational for x in (*args[0], *args[1])):
            P = [to_frac(x) for x in args[0]]
            Q = [to_frac(x) for x in args[1]]
            return Finite(True, lambda: (P, Q), "pair", label=label)
        # irrational entries (softmax laws): mpf at the reference's working precision
        return Finite(False, lambda: ([_m(x) for x in args[0]], [_m(x) for x in args[1]]),
                      "pair", label=label)
    if name == "PiecewiseLinear":
        knots = [(to_frac(x), to_frac(y)) for x, y in args[0]]
        return Finite(True, lambda: knots, "knots", label=label)
    if name == "NormalPair":
        m0, s0, m1, s1 = (_m(x) for x in args)
        return normal_pair(m0, s0, m1, s1, label)
    if name == "GaussianMixturePair":
        w, a, b = ([_m(x) for x in t] for t in args)
        return gauss_mixture_pair(w, a, b, label)
    if name == "PoissonReplace":
        return poisson_replace_pair(_m(args[0]), _m(args[1]), label)
    if name == "DiscreteGaussian":
        return discrete_gaussian_pair(int(args[0]), num(args[1]), label)
    if name == "BoundedRange":
        return BoundedRangeRef(_m(args[0]), label)
    if name == "RenyiRegion":
        return RenyiRegionRef([(_m(a), _m(t)) for a, t in args[0]], bool(args[1]), label)
    raise NotImplementedError(f"no reference for the family {name}")


#: The families :func:`reference` covers (class names).
FAMILIES = ("Gaussian", "Laplace", "IdTradeOff", "ZeroTradeOff", "EpsDelta", "BinomialDP",
            "ShuffleDP", "Discrete", "PiecewiseLinear", "NormalPair", "GaussianMixturePair",
            "PoissonReplace", "RenyiRegion", "DiscreteGaussian", "BoundedRange")

__all__ = ["reference", "num", "RenyiRegionRef", "FAMILIES"]
