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

Real orders (derived here; the split of Mironov, Talwar & Zhang 2019, Sec. 3.3, refined so
that every series converges geometrically and shares its moments across the orders). With
t = kappa L, kappa = p/(1 - p), A_a = (1 - p)^a E_P[(1 + t)^a]. The line of x is cut at
b_0 (t(b_0) about 1/3) and then at b_m = b_0 + m mu/n, n = ceil(mu^2/(2 atanh(2/5))), so
that t grows by e^{mu^2/n} across a region and |t - c|/(1 + c) <= rho (about 2/5) around its
centre c. On the first region (-oo, b_0) (c = 0) and on each other one

    (1 + t)^a = (1 + c)^a sum_j C(a, j) u^j,    u = (t - c)/(1 + c), |u| <= rho,

and E_P[u^j; R] = sum_i C(j, i) (-c)^{j-i} E_P[t^i; R]/(1 + c)^j with the exact moments
E_P[t^i; b < x < b'] = kappa^i e^{i(i-1) mu^2/2} (Phi(b' - i mu) - Phi(b - i mu)); every
argument lies on the lattice b_0 + Z mu/n, so a few hundred erfc serve all regions and orders.
For j >= a > 0, |C(a, j)| = prod_{i<j} |a - i|/(i + 1) <= 1 (the factors with i < ceil(a)
multiply to at most C(ceil(a), ceil(a)) = 1 as a - i <= ceil(a) - i, the others are below 1),
so the terms past J >= a sum to at most rho^{J+1} P(R)/(1 - rho) (times (1 + c)^a). Beyond the
last region, t >= 1 and (1 + t)^a <= (2t)^a: the rest is at most (2 kappa)^a e^{a(a-1) mu^2/2}
(1 - Phi(top - a mu)); a region whose bound (1 + c)^a (1 + rho)^a P(R) is below the
tolerance is replaced by that bound. C(a, j) is a polynomial of degree j in a, so each region
keeps sum_{j <= J} C(a, j) E_P[u^j; R] as one polynomial in a (``arb_poly``): an order costs
a polynomial evaluation per region. All of it in Arb, so the enclosure of log A_a is certified;
where the regions would be too many (a mu large) the Arb integral answers instead.
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
    from flint import arb

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
    fact = arb(1)
    done = 1
    for a in sorted(set(full)):
        budget.check()
        for i in range(done + 1, a + 1):
            fact = fact * i
        done = a
        s = arb(0)
        for k in range(a + 1):
            s += c[k] * e[a - k]
        log_a[a] = (s * fact).log()
    keys = sorted(set(orders))
    lb = _log_b_eval(_b_polys(p, _moments(mu2, prec)), [arb(a) for a in keys])
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

    from .renyi_mixture import sampled_gaussian_renyi

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
_SERIES: dict = {}  # (p, mu, bits, cap) -> _RealOrderSeries


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


def _series_key(p_f: float, mu_f: float, a_f: float, dps: int) -> tuple[int, int] | None:
    """(bits, cap) of the series that answers order a (module docstring, "Real orders") for
    Mix(G_mu, p) (p, mu, a as floats), or None where it does not (order beyond 64, or too
    many regions)."""
    if a_f > 64:
        return None
    cap = max(12, 4 * math.ceil((math.ceil(a_f) + 1) / 4))
    # D_a (a - 1) = log A_a is about a (a - 1) p^2 (e^{mu^2} - 1)/2 for small p: bits for it
    a_e = min(a_f, 17 / 16)  # one accuracy for a >= 17/16
    small = a_e * (a_e - 1) * p_f * p_f * math.expm1(min(mu_f * mu_f, 700.0)) / 2
    extra = max(0, math.ceil(-math.log2(small))) if small > 0 else 64
    bits = int(dps * 3.33) + GUARD_BITS + min(extra, 1024)
    # the regions reach about a mu + sqrt(2 bits log 2) in x, mu/n apart: beyond 64 of them
    # (large a mu) the Arb integral is cheaper
    n = max(1, math.ceil(mu_f * mu_f / (2 * math.atanh(RHO_MAX))))
    b0 = (math.log(RHO / (p_f / (1 - p_f))) + mu_f * mu_f / 2) / mu_f

    def regions(cap: int) -> float:
        return (cap * mu_f + math.sqrt(2 * bits * math.log(2)) + 2 - b0) * n / mu_f

    if regions(cap) > 64:  # a series of this order alone, not shared with those up to 12
        cap = math.ceil(a_f) + 1
        if regions(cap) > 64:
            return None
    return bits, cap


def _series_batch(p: sp.Expr, mu: sp.Expr, orders: Sequence[sp.Rational], dps: int) -> dict:
    """{a: arb of D_a(Q || P) of Mix(G_mu, p)} from the series (module docstring, "Real
    orders") for the orders it answers with relative width below 10^-dps; the orders of one
    accuracy and cap share one :class:`_RealOrderSeries` and one :meth:`log_a_many`."""
    from flint import arb, fmpq

    groups: dict = {}
    p_f, mu_f = float(p), float(mu)
    for a in orders:
        key = _series_key(p_f, mu_f, a.p / a.q, dps)
        if key is not None:
            groups.setdefault(key, []).append(a)
    out = {}
    for (bits, cap), group in groups.items():
        key = (p, mu, bits, cap)
        S = _SERIES.get(key)
        if S is None:
            if len(_SERIES) > 16:
                _SERIES.pop(next(iter(_SERIES)))
            S = _SERIES[key] = _RealOrderSeries(p, mu, bits, cap)
        with arb_precision(bits + 32):
            A = [arb(fmpq(int(a.p), int(a.q))) for a in group]
            tiny = arb(2) ** (-(dps * 3.33) - 4)
            for a, x, la in zip(group, A, S.log_a_many(A), strict=True):
                d = la / (x - 1)
                if d.is_finite() and d.rad() <= abs(d.mid()) * tiny:
                    out[a] = d
    return out


def _series_renyi(p: sp.Expr, mu: sp.Expr, order: sp.Rational, dps: int) -> tuple | None:
    """(lo, hi) mpf of D_a(Q || P) of Mix(G_mu, p) from the series (module docstring, "Real
    orders"), relative width below 10^-dps, or None (order beyond 64, or not narrow enough)."""
    d = _series_batch(p, mu, [order], dps).get(order)
    if d is None:
        return None
    prec = _series_key(float(p), float(mu), float(order), dps)[0] + 32
    with arb_precision(prec), mp.workprec(prec):
        return (arb_endpoint(d.lower(), round_floor), arb_endpoint(d.upper(), round_ceiling))


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


def _log_b_eval(polys: tuple, orders: list) -> list:
    """:func:`_log_b_upper` at many real orders a > 1 (arbs) at once from :func:`_b_polys`:
    the polynomials evaluated at all the orders in C; per order the orders 2J tried from the
    highest down while the bound decreases (any 2J gives a valid bound)."""
    from flint import arb

    cands, lx = polys
    vals = [(P.evaluate(orders, algorithm="iter"), Rm.evaluate(orders, algorithm="iter"))
            for P, Rm in cands]
    out = []
    for i, a in enumerate(orders):
        xm = ((1 - a) * lx).exp()  # (1 - p)^{-m}
        best = None
        for pv, rv in vals:
            b = pv[i] + rv[i] * xm
            if not b > 0:
                continue
            if best is not None and not b.upper() < best.upper():
                break
            best = b
        out.append(best.log() if best is not None else arb("inf"))
    return out


def _log_b_many(p: sp.Expr, mu: sp.Expr, prec: int, orders: list) -> list:
    """:func:`_log_b_upper` at many real orders a > 1 (arbs) at once (:func:`_log_b_eval`),
    the polynomials of (p, mu) kept."""
    key = (p, mu, prec, "polys")
    polys = _MOMENTS.get(key)
    if polys is None:
        pb, mom = _cached_moments(p, mu, prec)
        with arb_precision(prec):
            polys = _MOMENTS[key] = _b_polys(pb, mom)
    with arb_precision(prec):
        return _log_b_eval(polys, orders)


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
            lb = _log_b_many(p, mu, prec, A)
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
    return sp.Rational(man, 1 << -exp) if exp < 0 else sp.Integer(man << exp)


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


# -- real orders: the moments A_a as series on regions of t = p L/(1 - p) ----------------------
#: The ratio bound of the first region's expansion (t <= RHO there) and the largest ratio bound
#: allowed on the others (module docstring, "Real orders").
RHO, RHO_MAX = 1 / 3, 2 / 5
#: Bits of the series beyond the digits asked for (the regions' errors add up; the width is
#: checked after the fact, and an order not narrow enough goes to the Arb integral).
GUARD_BITS = 8


class _Region:
    """R = [b_(m-1), b_m) in x (the first: (-oo, b_0)), its centre c and ratio bound
    rho >= |t - c|/(1 + c) on R (arbs), its mass P(R) (and the logs of 1 + c, 1 + rho, P(R)),
    and Q(a) = sum_{j <= J} C(a, j) N_j, N_j = E_P[((t - c)/(1 + c))^j; R], as a polynomial in
    a (an arb_poly), with the bound ``rest`` of |sum_{j > J} C(a, j) N_j|."""

    __slots__ = ("m", "c", "rho", "mass", "poly", "J", "logs", "rest")

    def __init__(self, m: int, c, rho, mass):
        self.m, self.c, self.rho, self.mass = m, c, rho, mass
        self.logs = ((1 + c).log(), (1 + rho).log(), mass.log())
        self.poly = None


class _RealOrderSeries:
    """The shared part of A_a = (1 - p)^a E_P[(1 + t)^a], t = kappa L, kappa = p/(1 - p), for
    real orders 1 < a <= cap (module docstring, "Real orders"), for one (p, mu) and accuracy:
    the regions, each with its polynomial in a. The boundaries b_m = b_0 + m mu/n lie on a
    lattice of step mu/n, so every Phi(b_m - k mu) of the moments E_P[t^k; R] = kappa^k
    e^{k(k-1) mu^2/2} (Phi(b_m - k mu) - Phi(b_(m-1) - k mu)) is one of Phi(b_0 + i mu/n): a
    few hundred erfc in all, and the factors kappa^k e^{k(k-1) mu^2/2} are shared by the
    regions. The shift to the centre is the binomial theorem, done as one product of
    exponential generating functions (at guard bits against its cancellation); the falling
    factorials (a)_j/j! = C(a, j) are expanded in powers of a once, so that the orders of a
    batch cost one multipoint evaluation (in C) per region (:meth:`log_a_many`)."""

    def __init__(self, p: sp.Expr, mu: sp.Expr, bits: int, cap: int):
        from flint import arb

        # accuracy 2^-bits relative to max(1, G(a)) <= E_P[(1 + t)^a], G(a) = kappa^a
        # e^{a(a-1) mu^2/2} = E_P[t^a]; a region's weight against it is below 2^cap
        self.bits, self.cap = bits, cap
        self.J = int((bits + 8 + cap) / math.log2(1 / RHO_MAX)) + cap + 2
        self.wprec = bits + self.J // 2 + 2 * cap + 48
        self.phi: dict = {}  # (i, upper) -> Phi(b0 + i mu/n), or 1 - Phi
        self.emx: list = []  # e^{-x} as a polynomial (the shift to a region's centre)
        with arb_precision(self.wprec):
            p, mu = arb_ball(p), arb_ball(mu)  # the exact parameters at the working precision
            self.mu, self.kappa = mu, p / (1 - p)
            self.log1p = (1 - p).log()
            self.s2 = arb(2).sqrt()
            self.h = mu * mu / 2
            kf, muf = float(self.kappa.mid()), float(mu.mid())
            self.kf, self.muf = kf, muf
            # n steps per mu: t grows by e^{mu^2/n} across a region, ratio tanh(mu^2/(2n))
            self.n = max(1, math.ceil(muf * muf / (2 * math.atanh(RHO_MAX))))
            self.step = mu / self.n
            self.b0f = (math.log(RHO / kf) + muf * muf / 2) / muf  # t(b0) about RHO
            self.b0 = arb(self.b0f)
            # kappa^k e^{k(k-1) mu^2/2} (= E_P[t^k]) and 1/k!, k <= J + 1
            sc, fa, e2, ek = [arb(1)], [arb(1)], (2 * self.h).exp(), arb(1)
            for k in range(1, self.J + 2):
                sc.append(sc[-1] * self.kappa * ek)
                ek *= e2
                fa.append(fa[-1] / k)
            self.scale, self.ifact = sc, fa
            self.sfact = [x * y for x, y in zip(sc, fa, strict=True)]
            first = _Region(0, arb(0), arb(self._t(self.b0).upper()), self._Phi_i(0, False))
        self.regions = [first]

    def _t(self, x):
        return self.kappa * (self.mu * x - self.h).exp()

    def _b(self, m: int):
        return self.b0 + m * self.step

    def _Phi_i(self, i: int, upper: bool):
        """Phi(b0 + i mu/n), or (``upper``) 1 - Phi(b0 + i mu/n), kept."""
        key = (i, upper)
        v = self.phi.get(key)
        if v is None:
            y = self.b0 + i * self.step
            v = self.phi[key] = (y / self.s2).erfc() / 2 if upper else \
                (-y / self.s2).erfc() / 2
        return v

    def _T(self, R: _Region, k: int, fa: list | None = None):
        """E_P[t^k; R] (the Phi difference taken on the side of the smaller tails); divided by
        k! when ``fa`` (the factors 1/k!) is given."""
        hi = R.m - self.n * k  # b_m - k mu = b0 + hi mu/n
        sc = self.scale[k] if fa is None else self.sfact[k]
        if R.m == 0:
            return sc * self._Phi_i(hi, False)
        if self.b0f + (hi - 1) * self.muf / self.n > 0:  # b_(m-1) - k mu > 0: upper tails
            d = self._Phi_i(hi - 1, True) - self._Phi_i(hi, True)
        else:
            d = self._Phi_i(hi, False) - self._Phi_i(hi - 1, False)
        return sc * d

    def _order_J(self, R: _Region) -> int:
        """The truncation J of region R, in floats (the bound ``rest`` of :meth:`_polys` holds
        for every J >= cap): (1 + c)^a rest below the tolerance at every order a <= cap, from
        the log2 of the largest weight (1 + c)^a P(R)/max(1, G(a))."""
        lc, lr, lm = (float(x.mid()) for x in R.logs)
        rho_f = float(R.rho.mid())
        worst = max(a * lc - max(0.0, self._log_g(a)) for a in range(1, self.cap + 1))
        need = (worst + lm - math.log(1 - rho_f)) / math.log(2) + self.bits
        return max(self.cap + 1, min(self.J, math.ceil(need / math.log2(1 / rho_f))
                                     if rho_f > 0 else self.cap + 1))

    def _polys(self, regions: list) -> None:
        """Each region's Q(a) = sum_{j <= J} C(a, j) N_j in powers of a (``R.poly``), with
        ``rest`` = rho^(J+1) P(R)/(1 - rho) >= |sum_{j > J} C(a, j) N_j| for every a <= cap < J
        (|C(a, j)| <= 1 for j >= a > 0, |N_j| <= rho^j P(R): module docstring). N_j/j! =
        s^j [x^j] egf(x) e^{-c x}, s = 1/(1 + c), egf the exponential generating function of
        the moments E_P[t^k; R]; C(a, j) = sum_k s(j, k) a^k/j! (Stirling numbers of the first
        kind), so the coefficients of all the regions are one product of the Stirling matrix
        (exact integers, ``arb_mat.stirling``) with the columns N_j/j!."""
        from flint import arb, arb_mat, arb_poly

        todo = [R for R in regions if R.poly is None]
        if not todo:
            return
        with arb_precision(self.wprec):
            fa, cols = self.ifact, []
            J = max(self._order_J(R) for R in todo)
            if len(self.emx) <= J:  # e^{-x} to the largest J
                self.emx = arb_poly([fa[k] if k % 2 == 0 else -fa[k] for k in range(J + 1)])
            for R in todo:
                J = R.J = self._order_J(R)
                egf = [self._T(R, k, fa) for k in range(J + 1)]  # E_P[t^k; R]/k!
                if R.m == 0:  # c = 0: N_j/j! = E_P[t^j; R]/j!
                    cols.append(egf)
                    continue
                # in units of c (coefficients of like size): E_P[(t/c)^k; R]/k! times e^{-x}
                # gives E_P[(t/c - 1)^j; R]/j!; N_j/j! is that times (c/(1 + c))^j
                g = arb_poly(egf)(arb_poly([0, 1 / R.c])) * self.emx
                col = g.truncate(J + 1)(arb_poly([0, R.c / (1 + R.c)])).coeffs()
                cols.append(col + [arb(0)] * (J + 1 - len(col)))
            D = max(R.J for R in todo) + 1
            zero = arb(0)
            Nm = arb_mat(D, len(todo), [c[j] if j < len(c) else zero
                                        for j in range(D) for c in cols])
            Q = arb_mat.stirling(D, D, 1).transpose() * Nm  # Q[k, r]: coefficient of a^k
            for r, R in enumerate(todo):
                R.poly = arb_poly([Q[k, r] for k in range(R.J + 1)])
                R.rest = R.mass * R.rho ** (R.J + 1) / (1 - R.rho)  # the terms past J

    def _log_g(self, a: float) -> float:
        """log G(a) = a log kappa + a (a - 1) mu^2/2 in floats (G(a) = E_P[t^a])."""
        return a * math.log(self.kf) + a * (a - 1) * self.muf**2 / 2

    def extend(self) -> None:
        """One more region beyond the last, of ratio bound at most about RHO_MAX."""
        from flint import arb

        m = self.regions[-1].m + 1
        with arb_precision(self.wprec):
            ta, tb = self._t(self._b(m - 1)), self._t(self._b(m))
            c = arb(float(((ta + tb) / 2).mid()))
            rho = arb(((tb - c) / (1 + c)).max((c - ta) / (1 + c)).upper())
            R = _Region(m, c, rho, self._T(_Region(m, c, rho, arb(1)), 0))
        self.regions.append(R)

    def _last(self, a: float) -> int:
        """In floats: the last region k to sum at order a, the rest beyond b_k bounded by
        :meth:`tail` below the tolerance (t(b_k) >= 1); regions are added as needed."""
        log_tol = -self.bits * math.log(2) + max(0.0, self._log_g(a)) - 3
        k = max(0, math.ceil(((math.log(1 / self.kf) + self.muf**2 / 2) / self.muf
                              - self.b0f) * self.n / self.muf))
        # start near the end: 1 - Phi(z) is below e^{-z^2/2}, so z^2/2 >= -(log_tol - lt0)
        # suffices (any k that passes the test is valid; a smaller one is only cheaper)
        lt0 = a * math.log(2 * self.kf) + self.muf**2 / 2 * a * (a - 1)
        if lt0 > log_tol:
            z0 = math.sqrt(2 * (lt0 - log_tol))
            k = max(k, math.floor((z0 + a * self.muf - self.b0f) * self.n / self.muf) - 2)
        while True:
            z = self.b0f + k * self.muf / self.n - a * self.muf
            lt = a * math.log(2 * self.kf) + self.muf**2 / 2 * a * (a - 1) + _log_phic(z)
            if lt < log_tol:
                break
            k += 1
        while len(self.regions) <= k:
            budget.check()
            self.extend()
        return k

    def tail(self, a, k: int):
        """An upper bound of E_P[(1 + t)^a; x >= b_k] (t >= 1 there: (1 + t)^a <= (2 t)^a),
        or +oo where t(b_k) >= 1 is not proved."""
        from flint import arb

        b = self._b(k)
        if not self._t(b) >= 1:
            return arb("inf")
        return (2 * self.kappa) ** a * (self.h * a * (a - 1)).exp() * \
            ((b - a * self.mu) / self.s2).erfc() / 2

    def log_a_many(self, orders: list) -> list:
        """Arbs containing log A_a for real orders 1 < a <= cap (arbs): per order the regions
        up to :meth:`_last` and the tail beyond; each region's polynomial evaluated at all its
        orders at once, at the series' accuracy plus guard bits."""
        from flint import arb

        af = [float(a.mid()) for a in orders]
        if not all(1 < x <= self.cap for x in af):
            raise ValueError("orders outside (1, cap]")
        ks = [self._last(x) for x in af]
        with arb_precision(64):  # bounds: 64 bits are enough
            tails = [arb(0, self.tail(a, k).upper()) for a, k in zip(orders, ks, strict=True)]
        self._polys(self.regions[:max(ks) + 1])
        with arb_precision(self.bits + 2 * self.cap + 32):
            tot = tails
            for R in self.regions[:max(ks) + 1]:
                idx = [i for i, k in enumerate(ks) if k >= R.m]
                vals = R.poly.evaluate([orders[i] for i in idx], algorithm="iter")
                rest, lc = arb(0, R.rest.upper()), R.logs[0]
                for i, v in zip(idx, vals, strict=True):
                    tot[i] = tot[i] + (v + rest if R.m == 0 else
                                          (lc * orders[i]).exp() * (v + rest))
            return [self.log1p * a + t.log() if t > 0 else arb("nan")
                    for a, t in zip(orders, tot, strict=True)]

    def log_a(self, a):
        """An arb containing log A_a for a real order 1 < a <= cap (an arb)."""
        return self.log_a_many([a])[0]


def _log_phic(z: float) -> float:
    """log(1 - Phi(z)) in floats, from above for z > 5 (the Mills bound phi(z)/z)."""
    if z < 5:
        return math.log(max(math.erfc(z / math.sqrt(2)) / 2, 1e-300))
    return -z * z / 2 - math.log(z * math.sqrt(2 * math.pi))
