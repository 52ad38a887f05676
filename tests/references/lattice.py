"""References for the lattice mechanisms added to ``tradeoff_algebra/families/`` after the
discrete Gaussian: the discrete Laplace (geometric) pair and the Skellam pair, each as the
explicit pair of mass functions on the integers (never the library's atoms or formulas):

=====================  ======================================================================
family                 reference
=====================  ======================================================================
DiscreteLaplace        P(x) = c r^|x|, Q(x) = P(x - Delta), r = e^{-1/t}, c = (1 - r)/(1 + r)
                       on [-K, K + Delta] one outcome per integer, the two tails beyond (on each
                       the ratio Q/P is constant) one outcome each, their masses the geometric
                       series; exact rationals when r is rational (t = 1/log q), else mpmath
Skellam                P(x) = e^{-2 mu} I_|x|(2 mu) (mpmath's besseli), Q(x) = P(x - Delta) on
                       [-K, K + Delta], K past the point where the tail (bounded by the ratio
                       I_{n+1}(z)/I_n(z) <= z/(2(n+1))) is below 2^-(prec + 40)
=====================  ======================================================================

Exact Neyman--Pearson on these pairs is :class:`.finite.Finite`'s.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from mpmath import mp

from .finite import Finite

#: Integers on each side of the window of the discrete Laplace pair (the tails are exact).
DL_WINDOW = 40


def discrete_laplace_pair(d: int, scale, label: str) -> Finite:
    """T(L_Z(0, t), L_Z(d, t)) from the explicit mass functions (module docstring)."""
    r_s = sp.exp(-1 / sp.sympify(scale))
    exact = isinstance(r_s, sp.Rational)

    def make():
        if exact:
            r = Fraction(int(r_s.p), int(r_s.q))
            one = Fraction(1)
        else:
            r = mpmath.mpf(sp.N(r_s, mp.dps + 20))
            one = mp.one
        c = (one - r) / (one + r)
        K = DL_WINDOW + d

        def pmf(x):
            return c * r ** abs(x)

        xs = range(-K, K + d + 1)
        P = [pmf(x) for x in xs]
        Q = [pmf(x - d) for x in xs]
        # x < -K: P = c r^{K+1}/(1 - r), Q = c r^{K+1+d}/(1 - r); x > K + d: P = c r^{K+d+1}/(1-r),
        # Q = c r^{K+1}/(1 - r)
        tail = c / (one - r)
        P += [tail * r ** (K + 1), tail * r ** (K + d + 1)]
        Q += [tail * r ** (K + 1 + d), tail * r ** (K + 1)]
        return P, Q
    return Finite(exact, make, "pair", sym=True, label=label)


def skellam_pmf(mu, K: int) -> dict:
    """P(x) = e^{-2 mu} I_|x|(2 mu) for |x| <= K at the working precision."""
    z = 2 * mu
    return {x: mpmath.besseli(abs(x), z) * mpmath.exp(-z) for x in range(-K, K + 1)}


def skellam_window(mu) -> int:
    """K with P(X > K) <= P(K+1)/(1 - mu/(K+2)) below 2^-(prec + 40) (checked)."""
    K = int(mu) + 10
    while True:
        if mu / (K + 2) < 1:
            p = mpmath.besseli(K + 1, 2 * mu) * mpmath.exp(-2 * mu)
            if p / (1 - mu / (K + 2)) < mpmath.ldexp(1, -(mp.prec + 40)):
                return K
        K = K + max(K // 4, 8)


def skellam_pair(d: int, mu, label: str) -> Finite:
    """T(Sk(mu), Sk(mu) + d) from the explicit mass functions (module docstring)."""
    def make():
        m = mpmath.mpf(sp.N(sp.sympify(mu), mp.dps + 20))
        K = skellam_window(m)
        p = skellam_pmf(m, K + d)
        xs = range(-K, K + d + 1)
        return [p[x] for x in xs], [p[x - d] for x in xs]
    return Finite(False, make, "pair", sym=True, label=label)


def lattice_reference(f):
    """The reference of a DiscreteLaplace or Skellam instance with numeric parameters."""
    name, args = type(f).__name__, f.args
    if name == "DiscreteLaplace":
        return discrete_laplace_pair(int(args[0]), args[1], str(f))
    if name == "Skellam":
        return skellam_pair(int(args[0]), args[1], str(f))
    raise NotImplementedError(name)


#: The families :func:`lattice_reference` covers (class names).
LATTICE = ("DiscreteLaplace", "Skellam")
