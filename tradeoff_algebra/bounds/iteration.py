"""Privacy amplification by iteration (Dwork, Sec. 6.3; Feldman, Mironov, Talwar & Thakurta).

Thm. 6.3 (Eq. (6.17)): for a contractive noisy iteration with Gaussian noise N(0, sigma_t^2 I_d),
shifts s_t = sup_x ||phi_t(x) - phi'_t(x)|| and any a_1, ..., a_T with z_t = sum_{i<=t}(s_i - a_i)
>= 0 and z_T = 0,

    D_alpha(X_T || X'_T) <= (alpha / 2) sum_t a_t^2 / sigma_t^2     for every alpha >= 1,

that is, rho-zCDP with rho = sum_t a_t^2 / (2 sigma_t^2) (the Renyi curve of G_mu with
mu^2 = 2 rho). The seed states the result in Renyi form only; the f-DP guarantee it implies is
the conversion of that curve (``zCDP(rho).to_tradeoff()``, the tightest trade-off function with
those divergences), which lies below G_{sqrt(2 rho)}: equal Renyi divergences do not make the
trade-off functions equal, so no GDP form is claimed.

Eq. (6.19): projected noisy SGD on an L-Lipschitz, beta-smooth convex loss (eta <= 2/beta), the
element processed at step t of n, a_i = 2 eta L/(n - t + 1) on the remaining steps: rho =
2 L^2 / (sigma^2 (n - t + 1)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.validate import items, param
from ..notions import zCDP

__all__ = ["iteration_zcdp", "noisy_sgd_iteration_zcdp"]


def _sequence(name: str, value: Any, what: str) -> list:
    """``value`` as a list (a sequence of numbers), else InvalidParameter naming ``name``."""
    return items(name, value, f"a sequence of {what} (numbers >= 0)", "iteration_zcdp")


def iteration_zcdp(a: Sequence, sigma: Any | Sequence, s: Sequence | None = None) -> zCDP:
    """rho-zCDP of a contractive noisy iteration by Dwork, Thm. 6.3 (Eq. (6.17)):
    rho = sum_t a_t^2 / (2 sigma_t^2).

    ``a``: the shift reductions a_1, ..., a_T (>= 0); ``sigma``: one noise scale or one per step;
    ``s``: the shifts s_t, if given the hypothesis z_t = sum_{i<=t} (s_i - a_i) >= 0 with
    z_T = 0 is checked (exactly, for numbers) and a violation raises ``InvalidParameter``.
    """
    a = [param(f"a[{i}]", x, lower=0, owner="iteration_zcdp")
         for i, x in enumerate(_sequence("a", a, "shift reductions"))]
    if not a:
        raise InvalidParameter("a", a, "at least one step", "iteration_zcdp")
    if isinstance(sigma, (list, tuple)):
        sig = [param("sigma", x, lower=0, lower_open=True, owner="iteration_zcdp")
               for x in sigma]
        if len(sig) != len(a):
            raise InvalidParameter("sigma", sigma, f"one noise scale or {len(a)} of them",
                                   "iteration_zcdp")
    else:
        sig = [param("sigma", sigma, lower=0, lower_open=True, owner="iteration_zcdp")] * len(a)
    if s is not None:
        s = [param(f"s[{i}]", x, lower=0, owner="iteration_zcdp")
             for i, x in enumerate(_sequence("s", s, "shifts"))]
        if len(s) != len(a):
            raise InvalidParameter("s", s, f"{len(a)} shifts, one per step", "iteration_zcdp")
        z = sp.Integer(0)
        for t, (st, at) in enumerate(zip(s, a, strict=True), 1):
            z += st - at
            if (z < 0) is sp.true:
                raise InvalidParameter("a", a, f"shift reductions with z_t = sum_(i<=t) (s_i - "
                                       f"a_i) >= 0 (z_{t} = {z})", "iteration_zcdp")
        if z.is_zero is False:
            raise InvalidParameter("a", a, f"shift reductions with z_T = 0 (z_T = {z})",
                                   "iteration_zcdp")
    rho = sum((at**2 / (2 * st**2) for at, st in zip(a, sig, strict=True)), sp.Integer(0))
    return zCDP(sp.simplify(rho) if sp.count_ops(rho) < 40 else rho)


def noisy_sgd_iteration_zcdp(L: Any, sigma: Any, n: Any, t: Any) -> zCDP:
    """Dwork, Eq. (6.19): the t-th of n elements in projected noisy SGD (L-Lipschitz,
    contractive steps, noise N(0, sigma^2 I_d) on the gradient, last iterate only) is
    rho-zCDP with rho = 2 L^2 / (sigma^2 (n - t + 1))."""
    L = param("L", L, lower=0, owner="noisy_sgd_iteration_zcdp")
    sigma = param("sigma", sigma, lower=0, lower_open=True, owner="noisy_sgd_iteration_zcdp")
    n = param("n", n, lower=1, integer=True, owner="noisy_sgd_iteration_zcdp")
    t = param("t", t, lower=1, integer=True, owner="noisy_sgd_iteration_zcdp")
    if (t > n) is sp.true:
        raise InvalidParameter("t", t, f"an index in [1, n] = [1, {n}]",
                               "noisy_sgd_iteration_zcdp")
    return zCDP(2 * L**2 / (sigma**2 * (n - t + 1)))
