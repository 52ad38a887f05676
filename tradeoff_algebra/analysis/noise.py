"""Noise distributions of the standard mechanisms: densities, tails, accuracy and the privacy
profile of truncated Laplace noise, as exact SymPy closed forms.

Every function returns a SymPy expression (symbolic parameters allowed), so that ``verify``
decides claims about them by SymPy simplification or certified interval arithmetic; nothing
here evaluates numerically. The references the tests compare with are Arb quadrature of the
densities (``acb.integral``), exact sums and SymPy integration.

* the Laplace distribution ``Lap(b)`` (Dwork, Sec. 3): density ``e^{-|x|/b}/(2b)``, tails
  ``P[|X| >= t] = e^{-t/b}``, ``P[X > t] = e^{-t/b}/2`` (t >= 0), ``E|X| = b``, and the expected
  largest of k independent ``|X_i|`` (each Exp with mean b): ``b H_k`` (Renyi's representation of
  exponential order statistics), the error of the Laplace histogram (Dwork, Sec. 4.3);
* the Gaussian ``N(0, s^2)``: density, ``P[|X| >= t] = 2 Phi(-t/s)``, and bounds on the expected
  largest of k independent ``|X_i|`` (Dwork, Sec. 4.3, the zCDP histogram): at most
  ``s sqrt(2 ln(2k))`` (the maximum of 2k sub-Gaussian variables) and at least
  ``t P[max |X_i| >= t] = t (1 - (1 - 2 Phi(-t/s))^k)`` at ``t = s sqrt(ln k)`` (Markov);
* the sinh-normal distribution ``Z = A arcsinh((s/A) N(0, 1))`` (Dwork, Eq. (4.7)): density by
  the change of variables ``N = (A/s) sinh(Z/A)``, tail ``P[|Z| >= t] = 2 Phi(-(A/s) sinh(t/A))``
  and its doubly exponential bound ``exp(-(A^2/(8 s^2)) (e^{t/A} - 1)^2)`` (from
  ``2 Phi(-x) <= e^{-x^2/2}`` and ``sinh u >= (e^u - 1)/2``); and the expected largest of k
  independent ``|Z_i|`` (Dwork, Sec. 4.3, the tCDP histogram), which has no closed form: the
  one number here that is not a SymPy expression, an Arb ball from certified quadrature
  (``sinh_normal_max_abs_mean``);
* Laplace noise of scale b truncated to ``[-B, B]`` (Dwork, Remark 4.6): density, and the
  hockey-stick divergence of the shifted pair ``(TLap, Delta + TLap)`` at every
  ``eps >= Delta/b``: on the common support the likelihood ratio is
  ``e^{(|x| - |x - Delta|)/b} <= e^{Delta/b}``, so only the mass of one law outside the other's
  support counts, ``delta = P_TLap([B - Delta, B])``.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.normal import Phi
from ..core.validate import param
from ..numeric import budget

__all__ = ["laplace_density", "laplace_tail", "laplace_upper_tail", "laplace_mean_abs",
           "laplace_max_abs_mean", "gaussian_density", "gaussian_tail",
           "gaussian_max_abs_upper", "gaussian_max_abs_lower", "sinh_normal_density",
           "sinh_normal_tail", "sinh_normal_tail_bound", "sinh_normal_max_abs_mean",
           "truncated_laplace_density",
           "truncated_laplace_delta"]


def _pos(name: str, value: Any, owner: str) -> sp.Expr:
    return param(name, value, lower=0, lower_open=True, owner=owner)


def _nonneg(name: str, value: Any, owner: str) -> sp.Expr:
    return param(name, value, lower=0, owner=owner)


def _count(name: str, value: Any, owner: str) -> sp.Expr:
    return param(name, value, lower=1, integer=True, owner=owner)


# -- Laplace -----------------------------------------------------------------------------------
def laplace_density(x: Any, b: Any) -> sp.Expr:
    """The density of ``Lap(b)`` at ``x``: ``e^{-|x|/b}/(2b)`` (Dwork, Sec. 3)."""
    b = _pos("b", b, "laplace_density")
    return sp.exp(-sp.Abs(sp.sympify(x)) / b) / (2 * b)


def laplace_tail(t: Any, b: Any) -> sp.Expr:
    """``P[|X| >= t] = e^{-t/b}`` for ``X ~ Lap(b)`` and ``t >= 0``."""
    t = _nonneg("t", t, "laplace_tail")
    return sp.exp(-t / _pos("b", b, "laplace_tail"))


def laplace_upper_tail(t: Any, b: Any) -> sp.Expr:
    """``P[X > t] = e^{-t/b}/2`` for ``X ~ Lap(b)`` and ``t >= 0`` (one side)."""
    t = _nonneg("t", t, "laplace_upper_tail")
    return sp.exp(-t / _pos("b", b, "laplace_upper_tail")) / 2


def laplace_mean_abs(b: Any) -> sp.Expr:
    """``E|X| = b`` for ``X ~ Lap(b)``: the expected error of the Laplace mechanism (Dwork,
    Sec. 3: ``O(1/eps)`` for a counting query, b = 1/eps)."""
    return _pos("b", b, "laplace_mean_abs")


def laplace_max_abs_mean(k: Any, b: Any) -> sp.Expr:
    """``E max_{i <= k} |X_i| = b H_k`` for independent ``X_i ~ Lap(b)``: the ``|X_i|`` are
    exponential with mean b, and the largest of k is a sum of independent exponentials with
    means b/k, b/(k-1), ..., b (Renyi's representation). Dwork, Sec. 4.3 (the Laplace
    histogram's error, ``Theta(log k/eps)``: ``ln(k + 1) <= H_k <= 1 + ln k``)."""
    k = _count("k", k, "laplace_max_abs_mean")
    return _pos("b", b, "laplace_max_abs_mean") * sp.harmonic(k)


# -- Gaussian ----------------------------------------------------------------------------------
def gaussian_density(x: Any, s: Any) -> sp.Expr:
    """The density of ``N(0, s^2)`` at ``x``."""
    s = _pos("s", s, "gaussian_density")
    return sp.exp(-sp.sympify(x) ** 2 / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))


def gaussian_tail(t: Any, s: Any) -> sp.Expr:
    """``P[|X| >= t] = 2 Phi(-t/s)`` for ``X ~ N(0, s^2)`` and ``t >= 0``."""
    t = _nonneg("t", t, "gaussian_tail")
    return 2 * Phi(-t / _pos("s", s, "gaussian_tail"))


def gaussian_max_abs_upper(k: Any, s: Any) -> sp.Expr:
    """An upper bound of ``E max_{i <= k} |X_i|``, ``X_i ~ N(0, s^2)`` independent:
    ``s sqrt(2 ln(2k))`` (Jensen on ``exp(l max)``, the 2k variables ``+-X_i`` each with
    ``E e^{l X} = e^{l^2 s^2/2}``, at the best l). Dwork, Sec. 4.3 (the zCDP histogram)."""
    k = _count("k", k, "gaussian_max_abs_upper")
    return _pos("s", s, "gaussian_max_abs_upper") * sp.sqrt(2 * sp.log(2 * k))


def gaussian_max_abs_lower(k: Any, s: Any) -> sp.Expr:
    """A lower bound of ``E max_{i <= k} |X_i|``, ``X_i ~ N(0, s^2)`` independent:
    ``t P[max |X_i| >= t] = t (1 - (1 - 2 Phi(-t/s))^k)`` at ``t = s sqrt(ln k)`` (Markov's
    inequality for the non-negative maximum); k >= 2."""
    k = param("k", k, lower=2, integer=True, owner="gaussian_max_abs_lower")
    s = _pos("s", s, "gaussian_max_abs_lower")
    t = s * sp.sqrt(sp.log(k))
    return t * (1 - (1 - 2 * Phi(-t / s)) ** k)


# -- sinh-normal (Dwork, Eq. (4.7)) ------------------------------------------------------------
# sinh and cosh are written with exp, the form the Arb layer (numeric.arb_expr) encloses.
def _sinh(u: sp.Expr) -> sp.Expr:
    return (sp.exp(u) - sp.exp(-u)) / 2


def _cosh(u: sp.Expr) -> sp.Expr:
    return (sp.exp(u) + sp.exp(-u)) / 2


def sinh_normal_density(z: Any, A: Any, s: Any) -> sp.Expr:
    """The density of ``Z = A arcsinh((s/A) N(0, 1))`` at z (Dwork, Eq. (4.7)): with
    ``n(z) = (A/s) sinh(z/A)``, ``phi(n(z)) n'(z) = phi((A/s) sinh(z/A)) cosh(z/A)/s``."""
    A, s = _pos("A", A, "sinh_normal_density"), _pos("s", s, "sinh_normal_density")
    z = sp.sympify(z)
    n = A / s * _sinh(z / A)
    return sp.exp(-n**2 / 2) / sp.sqrt(2 * sp.pi) * _cosh(z / A) / s


def sinh_normal_tail(t: Any, A: Any, s: Any) -> sp.Expr:
    """``P[|Z| >= t] = 2 Phi(-(A/s) sinh(t/A))`` for the sinh-normal Z of Eq. (4.7), t >= 0
    (arcsinh is increasing and odd)."""
    t = _nonneg("t", t, "sinh_normal_tail")
    A, s = _pos("A", A, "sinh_normal_tail"), _pos("s", s, "sinh_normal_tail")
    return 2 * Phi(-A / s * _sinh(t / A))


def sinh_normal_tail_bound(t: Any, A: Any, s: Any) -> sp.Expr:
    """The doubly exponential bound ``P[|Z| >= t] <= exp(-(A^2/(8 s^2)) (e^{t/A} - 1)^2)``,
    t >= 0 (Dwork, Remark 4.6: "the tails decay doubly exponentially")."""
    t = _nonneg("t", t, "sinh_normal_tail_bound")
    A, s = _pos("A", A, "sinh_normal_tail_bound"), _pos("s", s, "sinh_normal_tail_bound")
    return sp.exp(-A**2 / (8 * s**2) * (sp.exp(t / A) - 1) ** 2)


def sinh_normal_max_abs_mean(k: int, A: Any, s: Any, prec: int = 64):
    """An Arb ball containing ``E max_{i <= k} |Z_i|`` for k independent sinh-normal Z_i of
    Eq. (4.7) (Dwork, Sec. 4.3: the error of the tCDP histogram).

    ``|Z| = g(|N|)`` with ``g(x) = A arcsinh(s x/A)`` increasing, so ``max |Z_i| = g(max |N_i|)``
    and ``E g(M) = int_0^oo g'(x) P[M > x] dx`` with ``P[M > x] = 1 - erf(x/sqrt 2)^k`` and
    ``g'(x) = s/sqrt(1 + (s x/A)^2)``: an integrand of Gaussian decay, integrated by Arb
    (``acb.integral``) on [0, X]; beyond X, ``g' <= s`` and ``P[M > x] <= k erfc(x/sqrt 2)``
    bound the rest by ``k s int_X^oo erfc(u/sqrt 2) du = 2 k s (phi(X) - X Phi(-X)) <=
    2 k s phi(X)``, added as [0, bound]."""
    from flint import acb, arb

    from ..numeric.arb_expr import arb_ball
    from ..numeric.context import arb_precision

    if isinstance(k, bool) or not isinstance(k, (int, sp.Integer)) or not 1 <= int(k) <= 10**12:
        raise InvalidParameter("k", k, "an integer in [1, 10^12]",
                               hint="sinh_normal_max_abs_mean")
    A = _pos("A", A, "sinh_normal_max_abs_mean")
    s = _pos("s", s, "sinh_normal_max_abs_mean")
    if A.free_symbols or s.free_symbols:
        raise InvalidParameter("A, s", (A, s), "numbers (a certified quadrature)")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 20 <= prec <= 1000:
        raise InvalidParameter("prec", prec, "an integer in [20, 1000]")
    k = int(k)
    import math

    # the cut X: 2 k s phi(X) below 2^-(prec + 10) relative to s (float choice, proved below)
    X = math.sqrt(2 * (math.log(2 * k) + (prec + 10) * math.log(2)))
    # k^2 more in erf^k: the working precision carries log2(k) extra bits
    with arb_precision(prec + 20 + k.bit_length()):
        Aa, sa = arb_ball(A), arb_ball(s)
        r, sc, kk = acb(sa / Aa), acb(sa), k
        rt2 = acb(2).sqrt()

        def f(x, analytic):
            return sc / (1 + (r * x) ** 2).sqrt(analytic=analytic) * (1 - (x / rt2).erf() ** kk)

        core = budget.integral(f, 0, X).real
        Xa = arb(X)
        phi = (-(Xa * Xa) / 2).exp() / (2 * arb.pi()).sqrt()
        return core + arb(0).union(2 * k * sa * phi)


# -- truncated Laplace (Dwork, Remark 4.6) ---------------------------------------------------
def truncated_laplace_density(x: Any, b: Any, B: Any) -> sp.Expr:
    """The density of ``Lap(b)`` conditioned on ``[-B, B]``: ``e^{-|x|/b}/(2b(1 - e^{-B/b}))``
    on ``[-B, B]``, 0 outside."""
    b, B = _pos("b", b, "truncated_laplace_density"), _pos("B", B, "truncated_laplace_density")
    x = sp.sympify(x)
    inside = sp.exp(-sp.Abs(x) / b) / (2 * b * (1 - sp.exp(-B / b)))
    return sp.Piecewise((inside, sp.Abs(x) <= B), (0, True))


def truncated_laplace_delta(Delta: Any, b: Any, B: Any) -> sp.Expr:
    """The hockey-stick divergence ``sup_S {Q(S) - e^eps P(S)}`` of P = TLap(b, B) and
    Q = Delta + TLap(b, B) (either order: the pair is symmetric under x -> Delta - x) at every
    ``eps >= Delta/b``, for ``0 < Delta <= B``: the P-mass of ``[B - Delta, B]``,
    ``(e^{-(B - Delta)/b} - e^{-B/b}) / (2 (1 - e^{-B/b}))`` (Dwork, Remark 4.6: truncated
    Laplace noise of scale Delta/eps is (eps, delta)-DP for this delta)."""
    owner = "truncated_laplace_delta"
    Delta, b, B = _pos("Delta", Delta, owner), _pos("b", b, owner), _pos("B", B, owner)
    if (Delta - B).is_positive:
        raise InvalidParameter("Delta", Delta, f"0 < Delta <= B = {B}", owner,
                               "the closed form assumes the shift lies within the support")
    return (sp.exp(-(B - Delta) / b) - sp.exp(-B / b)) / (2 * (1 - sp.exp(-B / b)))
