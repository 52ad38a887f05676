"""Estimators from randomized responses: their exact laws, means and variances.

Randomized response RR(u, p) (Dwork, Sec. 3): with probability p output a fair coin, else the
true bit u, so a user with bit u reports 1 with probability ``p/2 + (1 - p) u``. For n users of
whom ``ones`` hold a 1, the number of reported ones is ``T = Bin(ones, 1 - p/2) +
Bin(n - ones, p/2)``: :func:`rr_count_law` gives its law exactly (SymPy, symbolic p allowed).
The estimator of the fraction of ones is ``(T - pn/2)/((1 - p) n)`` (:func:`rr_fraction_estimate`),
unbiased with variance ``(p/2)(1 - p/2)/((1 - p)^2 n)`` whatever the data
(:func:`rr_fraction_variance`: each report has variance ``(p/2)(1 - p/2)``, the same for
u = 0 and u = 1). At ``p = 2/(1 + e^eps)`` its standard deviation is ``1/(2 sinh(eps/2) sqrt n)``
(Dwork, Sec. 3: "expected error Theta(1/(eps sqrt n))"); with ``p = kappa ln(1/delta)/(n eps^2)``
(the shuffled randomizer of Dwork, Sec. 6.2) the count's variance is
``kappa ln(1/delta)(1 - p/2)/(2 eps^2 (1 - p)^2)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.validate import param

__all__ = ["rr_count_law", "rr_fraction_estimate", "rr_fraction_variance", "law_moments",
           "MAX_USERS"]

#: The largest number of users of an exact law.
MAX_USERS = 500


def _p(p: Any, owner: str) -> sp.Expr:
    return param("p", p, lower=0, upper=1, upper_open=True, owner=owner)


def _n(n: Any, owner: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_USERS:
        raise InvalidParameter("n", n, f"an integer in [1, {MAX_USERS}] (the exact law has "
                               "O(n^2) terms)", owner)
    return n


def _binomial_law(m: int, q: sp.Expr) -> dict[int, sp.Expr]:
    return {j: sp.binomial(m, j) * q**j * (1 - q) ** (m - j) for j in range(m + 1)}


def rr_count_law(ones: int, n: int, p: Any) -> dict[int, sp.Expr]:
    """The exact law ``{t: P[T = t]}`` of the number of reported ones when ``ones`` of the n
    users hold a 1 (Dwork, Sec. 3)."""
    n = _n(n, "rr_count_law")
    if isinstance(ones, bool) or not isinstance(ones, int) or not 0 <= ones <= n:
        raise InvalidParameter("ones", ones, f"an integer in [0, n] = [0, {n}]", "rr_count_law")
    p = _p(p, "rr_count_law")
    a, b = _binomial_law(ones, 1 - p / 2), _binomial_law(n - ones, p / 2)
    out: dict[int, sp.Expr] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return out


def rr_fraction_estimate(t: Any, n: int, p: Any) -> sp.Expr:
    """``(t - pn/2)/((1 - p) n)``: the estimate of the fraction of ones from t reported ones
    (Dwork, Sec. 3)."""
    n = _n(n, "rr_fraction_estimate")
    p = _p(p, "rr_fraction_estimate")
    return (sp.sympify(t) - p * n / 2) / ((1 - p) * n)


def rr_fraction_variance(n: Any, p: Any) -> sp.Expr:
    """The variance ``(p/2)(1 - p/2)/((1 - p)^2 n)`` of :func:`rr_fraction_estimate`, the same
    for every dataset (n may be a symbol)."""
    n = param("n", n, lower=1, owner="rr_fraction_variance")
    p = _p(p, "rr_fraction_variance")
    return (p / 2) * (1 - p / 2) / ((1 - p) ** 2 * n)


def law_moments(law: dict[Any, sp.Expr], g: Callable[[Any], Any] = lambda t: t
                ) -> tuple[sp.Expr, sp.Expr]:
    """``(E g(T), Var g(T))`` of a finite law ``{t: P[T = t]}``, exactly (simplified)."""
    if not law:
        raise InvalidParameter("law", law, "a non-empty dict {value: probability}",
                               "law_moments")
    mean = sp.Add(*[w * sp.sympify(g(t)) for t, w in law.items()])
    second = sp.Add(*[w * sp.sympify(g(t)) ** 2 for t, w in law.items()])
    mean = sp.factor(sp.expand(mean))
    return mean, sp.factor(sp.expand(second - mean**2))
