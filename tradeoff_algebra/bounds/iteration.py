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

The shift sequences (:func:`shift_slack`, :func:`optimal_shift_reductions`): z_t = z_0 +
sum_{i<=t} (s_i - a_i), and the admissible a (z_t >= 0, z_T = 0) of least sum_t a_t^2. Writing
A_t = sum_{i<=t} a_i, the constraint is A_t <= z_0 + S_t with equality at T, so the minimiser is
the taut string under that obstacle: the lower convex hull of the points (0, 0) and
(t, z_0 + S_t), whose slopes are the optimal a_t (exact rationals). By Cauchy-Schwarz every
admissible a has sum a_t^2 >= (z_0 + sum s_t)^2/T, with equality iff the constant a is
admissible. z_0 > 0 is the start of a window of the run at which D^{(z_0)} = 0 (two laws on a
set of diameter D are within W_oo distance D: Dwork, Sec. 6.3.1).

:func:`cyclic_noisy_sgd_rho`: the best Thm. 6.3 bound for projected noisy SGD run for m passes
over n elements in a fixed order, for the element at a given position: over the windows that
start at step 0 (z_0 = 0, the common start) or just after an occurrence of the element
(z_0 = D, the diameter of K), the optimal shifts of each, the least rho.
:func:`altschuler_talwar_rate` is the right side of Dwork, Eq. (6.20).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..core.validate import count, items, param
from ..notions import zCDP
from ..numeric.knots import lower_hull

__all__ = ["iteration_zcdp", "noisy_sgd_iteration_zcdp", "shift_slack",
           "optimal_shift_reductions", "cauchy_schwarz_shifts", "cyclic_noisy_sgd_rho",
           "altschuler_talwar_rate"]


def _sequence(name: str, value: Any, what: str) -> list:
    """``value`` as a list (a sequence of numbers), else InvalidParameter naming ``name``."""
    return items(name, value, f"a sequence of {what} (numbers >= 0)", "iteration_zcdp")


def iteration_zcdp(a: Sequence, sigma: Any | Sequence, s: Sequence | None = None,
                   z0: Any = 0) -> zCDP:
    """rho-zCDP of a contractive noisy iteration by Dwork, Thm. 6.3 (Eq. (6.17)):
    rho = sum_t a_t^2 / (2 sigma_t^2).

    ``a``: the shift reductions a_1, ..., a_T (>= 0); ``sigma``: one noise scale or one per step;
    ``s``: the shifts s_t, if given the hypothesis z_t = sum_{i<=t} (s_i - a_i) >= 0 with
    z_T = 0 is checked (exactly, for numbers) and a violation raises ``InvalidParameter``;
    ``z0``: the shift at the start, z_t = z0 + sum_{i<=t} (s_i - a_i) (0 for a common start;
    D when the iteration starts from two laws on a set of diameter D).
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
        z = param("z0", z0, lower=0, owner="iteration_zcdp")
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


def _exact_sequence(name: str, value: Any, owner: str) -> list[sp.Rational]:
    out = [param(f"{name}[{i}]", x, lower=0, numeric=True, owner=owner)
           for i, x in enumerate(items(name, value, "a sequence of numbers >= 0", owner))]
    if not out:
        raise InvalidParameter(name, value, "a non-empty sequence of numbers >= 0", owner)
    if not all(x.is_Rational for x in out):
        raise InvalidParameter(name, value, "a sequence of rational numbers >= 0 (exact)", owner)
    return out


def shift_slack(s: Sequence, a: Sequence, z0: Any = 0) -> list[sp.Expr]:
    """z_1, ..., z_T with z_t = z0 + sum_{i<=t} (s_i - a_i) (Dwork, Thm. 6.3; entries may be
    symbols): the shift left after step t, which Thm. 6.3 needs >= 0, with z_T = 0."""
    s = items("s", s, "a sequence of shifts", "shift_slack")
    a = items("a", a, "a sequence of shift reductions", "shift_slack")
    if len(s) != len(a):
        raise InvalidParameter("a", a, f"{len(s)} shift reductions, one per shift", "shift_slack")
    z, out = param("z0", z0, lower=0, owner="shift_slack"), []
    for st, at in zip(s, a, strict=True):
        z = z + sp.sympify(st) - sp.sympify(at)
        out.append(z)
    return out


def _optimal(s: list[Fraction], z0: Fraction) -> tuple[list[Fraction], Fraction]:
    """The slopes of the lower hull of (0, 0) and (t, z0 + S_t) (``s >= 0``). Of a level of
    the non-decreasing S only its right end can be a vertex (a point with another of the same
    height to its right lies on or above every chord to that one), so only those are kept."""
    pts, acc, T = [(0, Fraction(0))], z0, len(s)
    for t, st in enumerate(s, 1):
        acc += st
        if t == T or s[t] != 0:
            pts.append((t, acc))
    hull = list(lower_hull(pts))
    a: list[Fraction] = []
    for (x0, y0), (x1, y1) in itertools.pairwise(hull):
        a += [(y1 - y0) / (x1 - x0)] * (x1 - x0)
    return a, sum((x * x for x in a), Fraction(0))


def _fraction(x: sp.Rational) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def optimal_shift_reductions(s: Sequence, z0: Any = 0) -> tuple[list[sp.Rational], sp.Rational]:
    """The admissible shift reductions of least sum_t a_t^2 for the shifts ``s`` (Dwork,
    Thm. 6.3: z_t = z0 + sum_{i<=t} (s_i - a_i) >= 0 for all t and z_T = 0), and that least
    sum: the slopes of the lower convex hull of (0, 0) and (t, z0 + s_1 + ... + s_t), exact
    (rational ``s`` and ``z0``). For one shift s_t at step t of n it gives Eq. (6.19)'s
    a_i = s_t/(n - t + 1) for i >= t."""
    s = _exact_sequence("s", s, "optimal_shift_reductions")
    z0 = param("z0", z0, lower=0, numeric=True, owner="optimal_shift_reductions")
    if not z0.is_Rational:
        raise InvalidParameter("z0", z0, "a rational number >= 0", "optimal_shift_reductions")
    a, ss = _optimal([_fraction(x) for x in s], _fraction(z0))
    return [sp.Rational(x.numerator, x.denominator) for x in a], \
        sp.Rational(ss.numerator, ss.denominator)


def cauchy_schwarz_shifts(total: Any, T: Any) -> tuple[sp.Expr, sp.Expr]:
    """The least sum_{t<=T} a_t^2 over real a with sum_t a_t = ``total`` (Cauchy-Schwarz:
    sum a_t^2 >= (sum a_t)^2/T, as sum a_t^2 - (sum a_t)^2/T = sum (a_t - total/T)^2), and its
    minimiser, the constant a_t = total/T: ``(total^2/T, total/T)`` (symbols allowed). A lower
    bound on the sum of every admissible shift sequence of Thm. 6.3 (Dwork, Eq. (6.17)), whose
    shift reductions add up to z_0 + sum_t s_t; attained when the constant is admissible."""
    total = param("total", total, lower=0, owner="cauchy_schwarz_shifts")
    T = param("T", T, lower=1, integer=True, owner="cauchy_schwarz_shifts")
    return total**2 / T, total / T


def cyclic_noisy_sgd_rho(L: Any, eta: Any, sigma: Any, n: Any, passes: Any, D: Any,
                         position: Any = 1, window: Any = None) -> tuple[sp.Rational, int]:
    """The best Thm. 6.3 bound (as rho, D_alpha <= alpha rho) for projected noisy SGD with
    step eta, noise N(0, sigma^2 I_d) on the gradient (N(0, (eta sigma)^2 I_d) on the iterate),
    an L-Lipschitz convex loss (shift s = 2 eta L per occurrence, Eq. (6.18)) and a convex K of
    diameter D, run for ``passes`` passes over n elements in a fixed order, for the element at
    ``position`` (1..n) of each pass. Windows: from step 0 (z_0 = 0) or from just after an
    occurrence of the element (z_0 = D: the projected iterates lie in K); for each, the
    optimal shifts (:func:`optimal_shift_reductions`). ``window``: the number w of steps
    before the window instead (the window is the last T - w steps; any w in [0, T) is valid,
    with z_0 = D for w > 0). Returns (rho, w of the best window), exact; rho is checked by
    :func:`iteration_zcdp` with its shifts."""
    own = "cyclic_noisy_sgd_rho"
    L, eta, sigma, D = (param(k, v, lower=0, lower_open=True, numeric=True, owner=own)
                        for k, v in (("L", L), ("eta", eta), ("sigma", sigma), ("D", D)))
    for k, v in (("L", L), ("eta", eta), ("sigma", sigma), ("D", D)):
        if not v.is_Rational:
            raise InvalidParameter(k, v, "a rational number > 0", own)
    n = count("n", n, lower=1, upper=10**4, owner=own)
    m = count("passes", passes, lower=1, upper=10**4, owner=own)
    pos = count("position", position, lower=1, upper=n, owner=own)
    T = n * m
    if T > 20000:
        raise InvalidParameter("passes", passes, f"at most {20000 // n} passes of n = {n} "
                               "(n * passes <= 20000 steps)", own)
    shift = _fraction(2 * eta * L)
    occ = [j * n + pos for j in range(m)]
    starts = [0] + occ
    if window is not None:
        starts = [count("window", window, lower=0, upper=T - 1, owner=own)]
    best = None
    for w in starts:
        if w >= T:
            continue
        sv = [Fraction(0)] * (T - w)
        for o in occ:
            if o > w:
                sv[o - w - 1] = shift
        z0 = Fraction(0) if w == 0 else _fraction(D)
        a, ss = _optimal(sv, z0)
        if best is None or ss < best[0]:
            best = (ss, w, a, sv, z0)
    ss, w, a, sv, z0 = best
    q = lambda x: sp.Rational(x.numerator, x.denominator)  # noqa: E731
    rho = iteration_zcdp([q(x) for x in a], eta * sigma, s=[q(x) for x in sv], z0=q(z0)).rho
    if rho != q(ss) / (2 * eta**2 * sigma**2):
        raise AssertionError("iteration_zcdp disagrees with the optimal shifts")
    return rho, w


def altschuler_talwar_rate(L: Any, eta: Any, sigma: Any, n: Any, T: Any, D: Any) -> sp.Expr:
    """Dwork, Thm. 6.4, Eq. (6.20) over alpha: (L^2/(n^2 sigma^2)) min{T, D n/(L eta)} (the
    Rényi bound is alpha times this, up to the constant of [2])."""
    own = "altschuler_talwar_rate"
    L, eta, sigma, D = (param(k, v, lower=0, lower_open=True, owner=own)
                        for k, v in (("L", L), ("eta", eta), ("sigma", sigma), ("D", D)))
    n = param("n", n, lower=1, owner=own)
    T = param("T", T, lower=0, owner=own)
    return L**2 / (n**2 * sigma**2) * sp.Min(T, D * n / (L * eta))
