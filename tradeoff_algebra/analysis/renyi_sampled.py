"""Certified Renyi divergences of products of sampled Gaussians at many integer orders at once.

f_p = Mix(G_mu, p) = T(P, Q), P = N(0, 1), Q = (1 - p) N(0, 1) + p N(mu, 1) (``renyi_mixture``).
With r = dQ/dP = 1 - p + p L, L = e^{mu x - mu^2/2}, and E_P[L^k] = e^{k(k-1) mu^2/2}:

* D_a(Q || P) = log A_a/(a - 1), A_a = E_P[r^a] = sum_k C(a, k) (1 - p)^{a-k} p^k
  e^{k(k-1) mu^2/2} for an integer a >= 2 (Mironov, Talwar & Zhang 2019, Sec. 3.3). All the
  orders of a list share the powers: A_a = a! sum_k c_k e_{a-k} with c_k = p^k
  e^{k(k-1) mu^2/2}/k! (c_k = c_{k-1} p e^{(k-1) mu^2}/k) and e_j = (1 - p)^j/j!, so the
  orders up to N cost N products for the powers and sum_a (a + 1) products for the sums, all
  in Arb (python-flint) with no SymPy in the loop.
* D_a(P || Q) = log B_a/(a - 1), B_a = E_P[r^{-m}], m = a - 1, has no finite sum; it is
  bounded above (derived here) by Taylor's theorem for g(r) = r^{-m} at r = 1 to the even
  order 2J with the Lagrange remainder: g^{(2J)}(xi) = m (m + 1) ... (m + 2J - 1) xi^{-m-2J}
  is positive and largest at the smallest xi, and xi lies between 1 and r > 1 - p, so

      B_a <= sum_{j < 2J} (-1)^j C(m + j - 1, j) p^j M_j
             + C(m + 2J - 1, 2J) p^{2J} M_{2J} (1 - p)^{-m-2J},

  M_j = E_P[(L - 1)^j] = sum_i C(j, i) (-1)^{j-i} e^{i(i-1) mu^2/2} (exact). The bound is
  taken at its best J (2J <= 2 :data:`MAX_HALF_ORDER`). Its second-order term equals A_a's
  and its third-order term is -C(a + 1, 3) p^3 M_3 where A_a has +C(a, 3) p^3 M_3 (M_3 > 0):
  for small p the bound lies below A_a and decides max{D_a(P || Q), D_a(Q || P)} =
  D_a(Q || P) by one certified comparison.

Renyi divergences add over products (van Erven & Harremoes 2014, Thm. 28), so a product of
such factors (each possibly a tensor power, all in the same direction) has the sum of the
factors' divergences. :func:`sampled_rdp_integer` gives, per integer order, the certified
enclosure of the larger direction where the bound decides it, and None where it does not (the
caller's route, the Arb integral of ``renyi_mixture``, answers those). Taylor's theorem holds
for a real m > 0 as well, so at other orders :func:`sampled_rdp_order` needs the A side only,
the B side bounded below it.

Real orders: the side A by the series on regions of ``renyi_mixture`` (module docstring there,
"Real orders"), all the orders of a list in one batch (:func:`sampled_rdp_orders`); the side
B by the Taylor bound above, its terms polynomials in the order evaluated at every order at
once. Integer orders beyond 64 whose binomial sum is dominated by its top terms sum those only,
the others bounded together (:func:`_top_sum`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor

from ..core.node import TradeOff
from ..numeric import budget
from ..numeric.arb import arb_endpoint
from ..numeric.arb_expr import arb_ball
from ..numeric.capability import gaussian_form
from ..numeric.context import arb_precision, mp
from ..numeric.value import Value
from ..operators.subsample import Mix
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse
from .renyi_batch import dyadic
from .renyi_mixture import _series_batch, _series_renyi, sampled_gaussian_renyi

__all__ = ["sampled_parts", "sampled_rdp_integer", "sampled_reverse_integer",
           "sampled_rdp_order", "sampled_rdp_orders", "MAX_HALF_ORDER"]

#: Largest J of the Taylor bound of B_a (module docstring): orders 2J <= 16.
MAX_HALF_ORDER = 8


def sampled_parts(f: TradeOff) -> list[tuple[sp.Expr, sp.Expr, int, bool]] | None:
    """``[(p, mu, n, reverse), ...]`` when f is a product of sampled Gaussians Mix(G_mu, p)
    (n their multiplicity, ``reverse`` for Inverse(Mix(...)) = T(Q, P)) with numbers
    0 < p < 1 and mu != 0, else None."""
    out: list = []

    def walk(g, n: int, rev: bool) -> bool:
        if isinstance(g, Inverse):
            return walk(g.arg, n, not rev)
        if isinstance(g, TensorPower):
            k = g.n
            return bool(k.is_Integer and k > 0) and walk(g.base, n * int(k), rev)
        if isinstance(g, Tensor):
            return all(walk(h, n, rev) for h in g.factors)
        if not isinstance(g, Mix) or g.free_symbols:
            return False
        mu = gaussian_form(g.arg)
        p = g.p
        if mu is None or not (p.is_positive and (p < 1) is sp.true) or not mu.is_nonzero:
            return False
        out.append((p, abs(mu), n, rev))
        return True

    return out if walk(f, 1, False) and out else None


def _top_terms(p_f: float, h_f: float, a: int, prec: int) -> int | None:
    """In floats: the number D of the binomial sum's terms below its top one (k = a) to keep
    at order a, the others bounded together (:func:`_top_sum`) below 2^-(prec + 10) of the top
    term; None where that needs more than a/2 of them (the whole sum is cheaper)."""
    lp = math.log(p_f)
    top = a * lp + a * (a - 1) * h_f
    for D in range(a // 2):
        k = a - D - 1
        rest = math.log(a - D) + a * math.log(2) + max(0.0, k * lp + k * (k - 1) * h_f)
        if rest < top - (prec + 10) * math.log(2):
            return D
    return None


def _top_sum(p, mu2, a: int, D: int):
    """A_a = sum_k C(a, k) (1 - p)^(a-k) p^k e^{k(k-1) mu^2/2} from its terms k >= a - D, the
    others bounded: each is at most 2^a max(1, p^k e^{k(k-1) mu^2/2}) (C(a, k) <= 2^a, and the
    exponent k log p + k(k-1) mu^2/2 is convex in k, largest at an end of 0..a-D-1)."""
    from flint import arb

    lp, h, x = p.log(), mu2 / 2, 1 - p
    s = arb(0)
    for k in range(a - D, a + 1):
        s += arb(math.comb(a, k)) * x ** (a - k) * (k * lp + h * (k * (k - 1))).exp()
    k = a - D - 1
    rest = (a - D) * arb(2) ** a * (k * lp + h * (k * (k - 1))).exp().max(arb(1))
    return s + arb(0, rest.upper())


def _factor_arb(p, mu2, orders: Sequence[int], prec: int) -> tuple[dict, dict]:
    """({a: log A_a}, {a: upper bound of log B_a}) as arbs for one factor (module docstring);
    an order whose sum is dominated by its top terms sums those only (:func:`_top_terms`)."""
    from flint import arb, arb_poly

    log_a = {}
    p_f, h_f = float(p.mid()), float(mu2.mid()) / 2
    for a in sorted(set(orders)):
        D = _top_terms(p_f, h_f, a, prec) if a > 64 else None
        if D is not None:
            log_a[a] = _top_sum(p, mu2, a, D).log()
    full = [a for a in orders if a not in log_a]
    N = max(full, default=1)
    x = 1 - p
    E = mu2.exp()
    c, Ek = [arb(1)], arb(1)  # c_k = p^k e^{k(k-1) mu^2/2}/k!
    for k in range(1, N + 1):
        c.append(c[-1] * p * Ek / k)
        Ek = Ek * E
    e = [arb(1)]  # e_j = (1 - p)^j/j!
    for j in range(1, N + 1):
        e.append(e[-1] * x / j)
    # the sums sum_k c_k e_{a-k}: the coefficients of one polynomial product (in C)
    conv = (arb_poly(c) * arb_poly(e)).coeffs() if full else []
    fact = arb(1)
    done = 1
    for a in sorted(set(full)):
        for i in range(done + 1, a + 1):
            fact = fact * i
        done = a
        log_a[a] = (conv[a] * fact).log()
    budget.check()
    keys = sorted(set(orders))
    lb = _log_b_eval(_b_polys(p, _moments(mu2, prec)), [arb(a) for a in keys],
                     [log_a[a] for a in keys])
    return log_a, dict(zip(keys, lb, strict=True))


def _moments(mu2, prec: int) -> list:
    """M_j = E_P[(L - 1)^j], j <= 2 MAX_HALF_ORDER, with guard bits against the cancellation of
    the alternating sum (M_j ~ mu^{2 ceil(j/2)} for small mu)."""
    from flint import arb

    K = 2 * MAX_HALF_ORDER
    with arb_precision(prec + 40 * K):
        mom = [arb(1)]
        ml = [(mu2 * (i * (i - 1)) / 2).exp() for i in range(K + 1)]
        for j in range(1, K + 1):
            mom.append(sum((arb(math.comb(j, i)) * ml[i] * (-1) ** (j - i)
                            for i in range(j + 1)), arb(0)))
    return mom


def _log_b_upper(p, x, mom: list, a):
    """An upper bound (an arb) of log B_a for a real order a > 1 (module docstring: Taylor's
    theorem for r^{-m}, m = a - 1 > 0, holds for real m)."""
    from flint import arb

    m = a - 1
    best = None
    partial = arb(0)
    coef = arb(1)  # (-1)^j C(m + j - 1, j) p^j
    xm = (-m * x.log()).exp()  # (1 - p)^{-m}, then times (1 - p)^{-j}
    for j in range(len(mom)):
        if j % 2 == 0 and j >= 2:  # the remainder at 2J = j closes the bound
            bound = partial + coef * mom[j] * xm / x**j
            if bound > 0 and (best is None or bound.upper() < best.upper()):
                best = bound
        partial += coef * mom[j]
        coef = coef * (-(m + j)) * p / (j + 1)
    return best.log() if best is not None else arb("inf")


def sampled_rdp_order(f: TradeOff, order: sp.Expr, dps: int) -> Value | None:
    """The certified enclosure of max{D_a(P || Q), D_a(Q || P)} for f = T(P, Q) a product of
    sampled Gaussians in one direction (:func:`sampled_parts`) at a rational order a > 1 that
    need not be an integer: the side of the moments A by the series on regions of
    :class:`_RealOrderSeries` (module docstring, "Real orders"; shared by all the orders of
    one factor), else (orders beyond 64, or a series not narrow enough) by the Arb integral of
    ``renyi_mixture``, summed with the multiplicities and rounded outward; the other side
    bounded above by the Taylor bound (module docstring); None where f is not such a product
    or the bound does not lie below the first side."""
    parts = _cached_parts(f)
    if parts is None or len({rev for *_, rev in parts}) != 1 or not order.is_Rational \
            or not order.p > order.q:
        return None
    from flint import arb

    prec = int(dps * 3.33) + 40
    with arb_precision(prec):
        a = arb(order.p) / order.q
        tot = arb(0)
        for p, mu, n, _ in parts:
            pb, mom = _cached_moments(p, mu, prec)
            tot += n * _log_b_upper(pb, 1 - pb, mom, a) / (a - 1)
        if not tot.is_finite():
            return None
        with mp.workprec(prec):
            bound = arb_endpoint(tot.upper(), round_ceiling)
    lo, hi = mp.zero, mp.zero
    seen: dict = {}
    with mp.workprec(prec):
        for p, mu, n, _ in parts:  # the A side: D_a(Q || P) of each unreversed factor
            if (p, mu) not in seen:
                seen[(p, mu)] = _series_renyi(p, mu, order, dps) or \
                    sampled_gaussian_renyi(p, mu, order, True, dps + 5)
            r = seen[(p, mu)]
            k = mp.mpf(n)
            lo = mp.fadd(lo, mp.fmul(k, r[0], rounding="d"), rounding="d")
            hi = mp.fadd(hi, mp.fmul(k, r[1], rounding="u"), rounding="u")
        if not bound < lo:
            return None
        return Value.enclosure(lo, hi, dps, guarantee="certified")


_PARTS: dict = {}  # f -> sampled_parts(f)
_MOMENTS: dict = {}  # (p, mu, prec) -> (ball of p, the moments M_j of the Taylor bound)


def _cached_parts(f: TradeOff) -> list | None:
    parts = _PARTS.get(f, False)
    if parts is False:
        if len(_PARTS) > 32:
            _PARTS.clear()
        parts = _PARTS[f] = sampled_parts(f)
    return parts


def _cached_moments(p: sp.Expr, mu: sp.Expr, prec: int) -> tuple:
    key = (p, mu, prec)
    m = _MOMENTS.get(key)
    if m is None:
        if len(_MOMENTS) > 32:
            _MOMENTS.clear()
        with arb_precision(prec):
            m = _MOMENTS[key] = (arb_ball(p), _moments(arb_ball(mu) ** 2, prec))
    return m


def _b_polys(pb, mom: list) -> tuple[list, object]:
    """The Taylor bound of log B_a (module docstring) at order 2J as P_J(a) + R_J(a) (1 -
    p)^{-(a - 1)} with polynomials P_J, R_J in a (the coefficients (-1)^j C(m + j - 1, j) p^j
    are polynomials in m = a - 1), the highest 2J first, and log(1 - p): for
    :func:`_log_b_eval`."""
    from flint import arb_poly

    x = 1 - pb
    coef, partial, polys = arb_poly([1]), arb_poly([0]), []
    for j in range(len(mom)):
        if j % 2 == 0 and j >= 2:  # the remainder at 2J = j closes the bound
            polys.append((partial, coef * (mom[j] / x**j)))
        partial += coef * mom[j]
        coef = coef * arb_poly([-(j - 1), -1]) * (pb / (j + 1))  # -(m + j), m = a - 1
    return polys[::-1], x.log()


def _log_b_eval(polys: tuple, orders: list, targets: list | None = None) -> list:
    """:func:`_log_b_upper` at many real orders a > 1 (arbs) at once from :func:`_b_polys`:
    the polynomials evaluated in C at the orders still open; per order the orders 2J tried
    from the highest down while the bound decreases (any 2J gives a valid bound), or, given
    ``targets`` (arbs of log A_a, the other side), only until one bound lies below e^target
    (a bound that decides is enough)."""
    from flint import arb

    cands, lx = polys
    xm = [((1 - a) * lx).exp() for a in orders]  # (1 - p)^{-m}
    goal = [t.exp() for t in targets] if targets is not None else None
    best: list = [None] * len(orders)
    todo = list(range(len(orders)))
    for P, Rm in cands:
        if not todo:
            break
        pts = [orders[i] for i in todo]
        pv, rv = P.evaluate(pts, algorithm="iter"), Rm.evaluate(pts, algorithm="iter")
        still = []
        for i, x, y in zip(todo, pv, rv, strict=True):
            b = x + y * xm[i]
            if not b > 0:
                still.append(i)  # (not a bound yet: a lower order 2J may be)
                continue
            if best[i] is not None and not b.upper() < best[i].upper():
                continue  # the bound stopped decreasing
            best[i] = b
            if goal is None or not b < goal[i]:
                still.append(i)
        todo = still
    return [b.log() if b is not None else arb("inf") for b in best]


def _log_b_many(p: sp.Expr, mu: sp.Expr, prec: int, orders: list,
                targets: list | None = None) -> list:
    """:func:`_log_b_upper` at many real orders a > 1 (arbs) at once (:func:`_log_b_eval`),
    the polynomials of (p, mu) kept."""
    key = (p, mu, prec, "polys")
    polys = _MOMENTS.get(key)
    if polys is None:
        pb, mom = _cached_moments(p, mu, prec)
        with arb_precision(prec):
            polys = _MOMENTS[key] = _b_polys(pb, mom)
    with arb_precision(prec):
        return _log_b_eval(polys, orders, targets)


def sampled_rdp_orders(f: TradeOff, orders: Sequence[sp.Expr], dps: int) -> dict:
    """{a: the upper end of the certified enclosure of max{D_a(P || Q), D_a(Q || P)}, an exact
    SymPy rational} for f = T(P, Q) a product of sampled Gaussians in one direction
    (:func:`sampled_parts`) at rational orders 1 < a <= 64 that are not integers, all at once:
    the side of the moments A by the series (each distinct factor one batch of
    :meth:`_RealOrderSeries.log_a_many`), the other side bounded above by the Taylor bound
    (:func:`_log_b_many`); the enclosure's relative width is below 10^-dps. Orders the series
    does not answer, or where the bound does not lie below the first side, are left out (the
    caller's route: :func:`sampled_rdp_order`)."""
    parts = _cached_parts(f)
    orders = [a for a in orders if a.is_Rational and a.q != 1 and a.q < a.p <= 64 * a.q]
    if parts is None or not orders or len({rev for *_, rev in parts}) != 1:
        return {}
    from flint import arb, fmpq

    sides = {(p, mu): _series_batch(p, mu, orders, dps) for p, mu, _, _ in parts}
    orders = [a for a in orders if all(a in sides[(p, mu)] for p, mu, _, _ in parts)]
    prec = int(dps * 3.33) + 40 + max(n for *_, n, _ in parts).bit_length()
    out = {}
    with arb_precision(prec):
        A = [arb(fmpq(int(a.p), int(a.q))) for a in orders]
        bound = [arb(0)] * len(orders)
        for p, mu, n, _ in parts:
            lb = _log_b_many(p, mu, prec, A, [sides[(p, mu)][a] * (x - 1)
                                              for a, x in zip(orders, A, strict=True)])
            bound = [b + n * x / (a - 1) for b, x, a in zip(bound, lb, A, strict=True)]
        tiny = arb(2) ** (-(dps * 3.33) - 4)
        for a, b in zip(orders, bound, strict=True):
            tot = arb(0)
            for p, mu, n, _ in parts:
                tot += n * sides[(p, mu)][a]
            if b.is_finite() and arb(b.upper()) < arb(tot.lower()) and \
                    tot.rad() <= abs(tot.mid()) * tiny:
                out[a] = _exact_upper(tot)
    return out


def _exact_upper(d) -> sp.Rational:
    """The upper end of an arb as an exact SymPy rational."""
    man, exp = (int(v) for v in d.upper().man_exp())
    return dyadic(man, exp) if man > 0 else sp.Rational(man, 1 << -exp) if exp < 0 else \
        sp.Integer(man << exp)


def _rdp_arb(parts, orders: Sequence[int], prec: int) -> tuple[dict, dict]:
    """({a: sum of n D_a in the direction of A}, {a: upper sum in the direction of B}) over the
    factors, as arbs: the divergence of the whole product in each of its two directions (a
    reversed factor swaps A and B)."""
    from flint import arb

    with arb_precision(prec):
        tot_a = {a: arb(0) for a in orders}
        tot_b = {a: arb(0) for a in orders}
        cache: dict = {}
        for p, mu, n, rev in parts:
            key = (p, mu)
            if key not in cache:
                cache[key] = _factor_arb(arb_ball(p), arb_ball(mu) ** 2, orders, prec)
            la, lb = cache[key]
            for a in orders:
                da, db = n * la[a] / (a - 1), n * lb[a] / (a - 1)
                if rev:
                    da, db = db, da
                tot_a[a] += da
                tot_b[a] += db
        return tot_a, tot_b


def _values(tot: dict, ok: dict, dps: int, prec: int, upper: bool = False) -> dict:
    """The decided orders' Values, or (``upper``) the exact upper ends of their balls as SymPy
    rationals."""
    out = {}
    with mp.workprec(prec):
        for a, d in tot.items():
            if ok[a] and upper:
                out[a] = _exact_upper(d)
            elif ok[a]:
                out[a] = Value.enclosure(arb_endpoint(d.lower(), round_floor),
                                         arb_endpoint(d.upper(), round_ceiling), dps,
                                         guarantee="certified")
    return out


def _loop(parts, orders: list[int], dps: int, pick, upper: bool = False) -> dict:
    """The precision loop: ``pick(tot_a, tot_b)`` gives ({a: arb}, {a: decided}); orders whose
    enclosure is not narrow enough are computed again at twice the precision (three times at
    most)."""
    from flint import arb

    prec = int(dps * 3.33) + 40 + max(orders).bit_length()
    out: dict = {}
    todo = sorted(set(orders))
    for _ in range(3):
        tot_a, tot_b = _rdp_arb(parts, todo, prec)
        with arb_precision(prec):
            tot, ok = pick(tot_a, tot_b)
            narrow = {a: ok[a] and tot[a].is_finite()
                      and tot[a].rad() <= abs(tot[a].mid()) * arb(2) ** (-(dps * 3.33) - 4)
                      for a in todo}
            out.update(_values(tot, narrow, dps, prec, upper))
        todo = [a for a in todo if ok[a] and not narrow[a]]
        if not todo:
            break
        prec *= 2
    return out


def sampled_rdp_integer(f: TradeOff, orders: Sequence[int], dps: int,
                        upper: bool = False) -> dict:
    """{a: certified enclosure of max{D_a(P || Q), D_a(Q || P)}} for f = T(P, Q) a product of
    sampled Gaussians in one direction (:func:`sampled_parts`) at the integer orders a >= 2
    where the Taylor bound decides the larger direction (module docstring); the other orders
    are left out. ``{}`` when f is not such a product. ``upper``: the upper end of each
    enclosure (relative width below 10^-dps) as an exact SymPy rational instead."""
    parts = sampled_parts(f)
    orders = [int(a) for a in orders if int(a) >= 2]
    if parts is None or not orders or len({rev for *_, rev in parts}) != 1:
        return {}
    from flint import arb

    def pick(tot_a, tot_b):  # the exact binomial side wins where the bound of the other is below
        tot, ok = {}, {}
        for a in tot_a:
            exact, bound = (tot_a[a], tot_b[a]) if not parts[0][3] else (tot_b[a], tot_a[a])
            tot[a] = exact
            ok[a] = bool(exact.is_finite() and bound.is_finite()
                         and arb(bound.upper()) < arb(exact.lower()))
        return tot, ok

    return _loop(parts, orders, dps, pick, upper)


def sampled_reverse_integer(f: TradeOff, orders: Sequence[int], dps: int) -> dict[int, Value]:
    """{a: certified enclosure of D_a} for f a product of reversed sampled Gaussians
    Inverse(Mix(G_mu, p)) = T(Q, P) (each D_a(Q || P) an exact binomial sum, module docstring)
    at the integer orders a >= 2; ``{}`` when f is not such a product."""
    parts = sampled_parts(f)
    orders = [int(a) for a in orders if int(a) >= 2]
    if parts is None or not orders or not all(rev for *_, rev in parts):
        return {}

    def pick(tot_a, tot_b):  # every factor reversed: tot_b holds the binomial sums
        return tot_b, {a: tot_b[a].is_finite() for a in tot_b}

    return _loop(parts, orders, dps, pick)
