"""Renyi divergences of the Poisson-subsampled Gaussian pair, f_p = Mix(G_mu, p).

f_p = p G_mu + (1 - p) Id = T(P, Q) with P = N(0, 1) and Q = (1 - p) N(0, 1) + p N(mu, 1)
(Dong, Roth & Su, Sec. 4.1: the mixture's likelihood ratio q/p = 1 - p + p L, L = e^{mu x -
mu^2/2}, is monotone in L, so the optimal tests are those of G_mu). Its two Renyi divergences
are the two directions of the sampled Gaussian mechanism's RDP (Mironov, Talwar & Zhang 2019,
Sec. 3):

    D_a(P || Q) = 1/(a - 1) log E_P[(1 - p + p L)^{1 - a}]     (renyi(Mix(G_mu, p), a)),
    D_a(Q || P) = 1/(a - 1) log E_P[(1 - p + p L)^a]           (renyi(Inverse(...), a)).

For an integer order a >= 2 the second is the binomial sum
``sum_k C(a, k) (1 - p)^{a-k} p^k e^{k(k-1) mu^2/2}`` (E_P[L^k] = e^{k(k-1) mu^2/2}; Mironov,
Talwar & Zhang 2019, Sec. 3.3), a closed form (:func:`sampled_gaussian_form`), kept as an
unevaluated ``Sum`` (a orders make a terms: formed term by term only where it is evaluated, in
Arb). Every other order (of either direction) is a certified Arb integral (python-flint
``acb.integral``, :func:`sampled_gaussian_renyi`) of
``phi(x) (1 - p + p e^{mu x - mu^2/2})^c`` (c = 1 - a or a) over [-X, X + c mu] with the tails
bounded: for c >= 0 the base is at most max(1, L) so the integrand is at most phi(x) +
e^{c(c-1) mu^2/2} phi(x - c mu); for c < 0 it is at most (1 - p)^c phi(x).

Real orders of D_a(Q || P), the series on regions (derived here; the split of Mironov, Talwar &
Zhang 2019, Sec. 3.3, refined so that every series converges geometrically and shares its
moments across the orders; used by ``renyi_sampled`` for RDP.of, orders up to 64). With
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

from ..core.errors import NumericalError
from ..numeric import budget
from ..numeric.arb import arb_endpoint
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.precision_loop import precision_loop

__all__ = ["sampled_gaussian_form", "sampled_gaussian_renyi"]


def sampled_gaussian_form(p: sp.Expr, mu: sp.Expr, a: sp.Expr) -> sp.Expr | None:
    """D_a(Q || P) of the sampled Gaussian pair for an integer order a >= 2 (module docstring),
    else None."""
    if not (isinstance(a, sp.Integer) and a >= 2):
        return None
    k = sp.Dummy("k", integer=True, nonnegative=True)
    s = sp.Sum(sp.binomial(a, k) * (1 - p) ** (a - k) * p**k * sp.exp(k * (k - 1) * mu**2 / 2),
               (k, 0, a))
    return sp.log(s) / (a - 1)


def _moment_arb(p, mu, c, prec: int):
    """Enclosure of E_P[(1 - p + p e^{mu x - mu^2/2})^c] as an arb."""
    from flint import acb, arb

    s2pi = (2 * arb.pi()).sqrt()
    X = arb(math.sqrt(2 * math.log(2) * (prec + 40)) + 2)
    shift = c * mu if c > 0 else arb(0)
    lo, hi = -X, X + shift

    def g(t, analytic):
        if budget.expired():  # (an exception would not leave the integration: see budget)
            return acb(0)
        base = 1 - p + p * (mu * t - mu * mu / 2).exp()
        if analytic:  # the integrand is analytic near the real segment: base > 0 there
            return (base.log(analytic=True) * c).exp() * (-(t * t) / 2).exp() / s2pi
        return ((base.log() * c).exp() * (-(t * t) / 2).exp() / s2pi)

    tol = arb(2) ** (-prec)
    body = acb.integral(g, lo, hi, abs_tol=tol, rel_tol=tol).real
    budget.check()

    def ntail(x):  # Phi(-x) for x > 0 (upper bound 'tail' in the two-sided sense)
        return (x / arb(2).sqrt()).erfc() / 2

    if c >= 0:
        bound = 2 * ntail(X) + (c * (c - 1) * mu * mu / 2).exp() * 2 * ntail(X)
    else:
        bound = (1 - p) ** c * 2 * ntail(X)
    return body + arb(0, bound.upper())


def sampled_gaussian_renyi(p: sp.Expr, mu: sp.Expr, a: sp.Expr, reverse: bool,
                           dps: int) -> tuple:
    """(lo, hi) mpf of D_a(P || Q) (``reverse=False``) or D_a(Q || P) for the sampled Gaussian
    pair with 0 < p < 1, mu > 0 and a finite order a > 0, a != 1 (module docstring)."""
    P, M, A = sp.sympify(p), sp.sympify(mu), sp.sympify(a)

    def compute(prec: int) -> tuple[bool, tuple | None]:
        with arb_precision(prec):
            from flint import arb

            pb, mb, ab = arb_ball(P), arb_ball(M), arb_ball(A)
            m = _moment_arb(pb, mb, ab if reverse else 1 - ab, prec)
            d = m.log() / (ab - 1) if m > 0 else arb("nan")
            if not d.is_finite():
                return False, None
            ok = d.rad() <= abs(d.mid()) * arb(2) ** (-(dps * 3.33) - 4)
            with mp.workprec(prec):
                return ok, (arb_endpoint(d.lower(), round_floor),
                            arb_endpoint(d.upper(), round_ceiling))

    def give_up(result, previous, prec) -> tuple:
        if result is not None and result[1] is not None:
            return result  # finite, wider than asked: still guaranteed
        raise NumericalError(f"the Renyi divergence of Mix(G({mu}), {p}) of order {a} did not "
                             "reach a finite enclosure")

    return precision_loop(compute, int(dps * 3.33) + 40, done=lambda r, _: r[0], max_steps=4,
                          give_up=give_up, check=False)[1]


_SERIES: dict = {}  # (p, mu, bits, cap) -> _RealOrderSeries
#: The most regions of a series shared by a batch of orders (one order alone: 64).
MOST_REGIONS = 128


def _series_key(p_f: float, mu_f: float, a_f: float, dps: int,
                most: int = 64) -> tuple[int, int] | None:
    """(bits, cap) of the series that answers order a (module docstring, "Real orders") for
    Mix(G_mu, p) (p, mu, a as floats), or None where it does not (order beyond 64, or more
    than ``most`` regions: beyond 64 for one order the Arb integral is cheaper; a batch of
    orders shares the regions and affords more)."""
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

    if regions(cap) > most:  # a series of this order alone, not shared with those up to 12
        cap = math.ceil(a_f) + 1
        if regions(cap) > most:
            return None
    return bits, cap


def _series_batch(p: sp.Expr, mu: sp.Expr, orders: Sequence[sp.Rational], dps: int) -> dict:
    """{a: arb of D_a(Q || P) of Mix(G_mu, p)} from the series (module docstring, "Real
    orders") for the orders it answers with relative width below 10^-dps; the orders of one
    accuracy and cap share one :class:`_RealOrderSeries` and one :meth:`log_a_many`."""
    from flint import arb, fmpq

    groups: dict = {}
    p_f, mu_f = float(p), float(mu)
    most = 64 if len(orders) == 1 else MOST_REGIONS
    keys: dict = {}  # the key depends on min(a, 17/16) and ceil(a) only
    for a in orders:
        a_f = a.p / a.q
        k = (min(a_f, 17 / 16), math.ceil(a_f))
        key = keys[k] if k in keys else keys.setdefault(k, _series_key(p_f, mu_f, a_f, dps, most))
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
    and Q(a) = sum_{j <= J} C(a, j) N_j, N_j = E_P[((t - c)/(1 + c))^j; R], as the
    coefficients ``col`` of a polynomial in a - centre, with the bound ``rest`` of
    |sum_{j > J} C(a, j) N_j|."""

    __slots__ = ("m", "c", "rho", "mass", "col", "J", "logs", "rest")

    def __init__(self, m: int, c, rho, mass):
        self.m, self.c, self.rho, self.mass = m, c, rho, mass
        self.logs = ((1 + c).log(), (1 + rho).log(), mass.log())
        self.col = None


class _RealOrderSeries:
    """The shared part of A_a = (1 - p)^a E_P[(1 + t)^a], t = kappa L, kappa = p/(1 - p), for
    real orders 1 < a <= cap (module docstring, "Real orders"), for one (p, mu) and accuracy:
    the regions, each with its polynomial in a. The boundaries b_m = b_0 + m mu/n lie on a
    lattice of step mu/n, so every Phi(b_m - k mu) of the moments E_P[t^k; R] = kappa^k
    e^{k(k-1) mu^2/2} (Phi(b_m - k mu) - Phi(b_(m-1) - k mu)) is one of Phi(b_0 + i mu/n): a
    few hundred erfc in all, and the factors kappa^k e^{k(k-1) mu^2/2} are shared by the
    regions. The shift to a region's centre is the binomial theorem and the falling factorials
    (a)_j/j! = C(a, j) are expanded in powers of a - centre (centre about cap/2: less
    cancellation than in powers of a), both matrix products shared by the regions
    (:meth:`_polys`); the orders of a batch and the regions' coefficients make one more
    product (:meth:`log_a_many`), all in C."""

    def __init__(self, p: sp.Expr, mu: sp.Expr, bits: int, cap: int):
        from flint import arb

        # accuracy 2^-bits relative to max(1, G(a)) <= E_P[(1 + t)^a], G(a) = kappa^a
        # e^{a(a-1) mu^2/2} = E_P[t^a]; a region's weight against it is below 2^cap
        self.bits, self.cap = bits, cap
        # the polynomials in a are kept in powers of a - centre (|a - centre| <= cap/2 on the
        # orders (1, cap]): their evaluation cancels less than in powers of a
        self.c0 = (cap + 1) // 2
        self.centre = arb(self.c0)
        self.J = int((bits + 8 + cap) / math.log2(1 / RHO_MAX)) + cap + 2
        # guard bits of the binomial shift to a region's centre (:meth:`_polys`): its terms
        # sum to about (2 c/(1 + c))^j P(R) for a result near rho^j P(R), most of it in
        # regions of small weight; the widths are checked after the fact (an order not
        # narrow enough goes to the Arb integral), so this is a cost, not a guarantee
        self.wprec = bits + self.J // 4 + 2 * cap + 40
        self.phi: dict = {}  # (i, upper) -> Phi(b0 + i mu/n), or 1 - Phi
        self.cells: dict = {}  # i -> Phi(b0 + i mu/n) - Phi(b0 + (i - 1) mu/n)
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

    def _cell(self, hi: int):
        """Phi(b0 + hi mu/n) - Phi(b0 + (hi - 1) mu/n), on the side of the smaller tails (as
        :meth:`_T`), kept."""
        v = self.cells.get(hi)
        if v is None:
            if self.b0f + (hi - 1) * self.muf / self.n > 0:  # upper tails
                v = self._Phi_i(hi - 1, True) - self._Phi_i(hi, True)
            else:
                v = self._Phi_i(hi, False) - self._Phi_i(hi - 1, False)
            self.cells[hi] = v
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
        """Each region's Q(a) = sum_{j <= J} C(a, j) N_j in powers of y = a - centre (the
        column ``R.col``, J + 1 coefficients), with ``rest`` = rho^(J+1) P(R)/(1 - rho) >=
        |sum_{j > J} C(a, j) N_j| for every a <= cap < J (|C(a, j)| <= 1 for j >= a > 0,
        |N_j| <= rho^j P(R): module docstring). All of it is linear in the moments, so the
        regions go together through two matrix products (in C):

        * N_j/j! = (-s)^j/j! sum_i C(j, i) (-1)^i E_P[t^i; R]/c^i, s = c/(1 + c) (the
          binomial theorem for (t/c - 1)^j, in units of c so that the terms are of like size):
          the columns (-1)^i E_P[t^i; R]/c^i (from the cells of the lattice, :meth:`_cell`)
          times the lower triangular Pascal matrix (exact), at guard bits against its
          cancellation, then row j scaled by (-s)^j/j!;
        * C(a, j) = (y + centre)_j/j!, and the falling factorial (y + centre)_j = sum_k
          F[j, k] y^k has exact integer coefficients (:func:`_falling`), so the coefficients
          in powers of y of every region are F^T times the columns N_j/j!. Centred, the sum
          cancels little: for |y| <= centre = c, sum_k |F[j, k]| |y|^k <= prod_{i<j} (c +
          |c - i|) = (2c)!/c! (j - 1)!/(c - 1)! <= 4^c j! (j >= c; C(2c, j) j! <= 4^c j! for
          j < c), so at most 2c <= cap + 1 bits are lost, within the guard bits."""
        from flint import arb, arb_mat

        todo = [R for R in regions if R.col is None]
        if not todo:
            return
        with arb_precision(self.wprec):
            for R in todo:
                R.J = self._order_J(R)
            D = max(R.J for R in todo) + 1
            zero = arb(0)
            shifted = [R for R in todo if R.m > 0]
            cols: dict = {}
            if shifted:
                sc, cell, n = self.scale, self._cell, self.n
                U = []
                for R in shifted:  # (-1)^i E_P[t^i; R]/c^i, i <= J
                    ic, w, pw = -1 / R.c, arb(1), []
                    for _ in range(R.J + 1):
                        pw.append(w)
                        w = w * ic
                    cl = [cell(R.m - n * i) for i in range(R.J + 1)]
                    U.append([x * y * z for x, y, z in zip(sc, cl, pw, strict=False)]
                             + [zero] * (D - R.J - 1))
                X = arb_mat.pascal(D, D, -1) * arb_mat(D, len(shifted), [
                    U[r][i] for i in range(D) for r in range(len(shifted))])
                for r, R in enumerate(shifted):  # times (-s)^j/j!
                    s, w, col = -R.c / (1 + R.c), arb(1), []
                    for j in range(R.J + 1):
                        col.append(X[j, r] * w)
                        w = w * s / (j + 1)
                    cols[R.m] = col
            for R in todo:
                if R.m == 0:  # c = 0: N_j/j! = E_P[t^j; R]/j!
                    cols[R.m] = [self._T(R, j, self.ifact) for j in range(R.J + 1)]
            with arb_precision(self.bits + 2 * self.cap + 48):  # (F's mild cancellation)
                N = arb_mat(D, len(todo), [cols[R.m][j] if j <= R.J else zero
                                           for j in range(D) for R in todo])
                Q = _falling(self.c0, D) * N
            for r, R in enumerate(todo):
                R.col = [Q[k, r] for k in range(R.J + 1)]
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
        # (2 kappa)^a e^{a(a-1) mu^2/2} (1 - Phi(b - a mu))
        return (a * (2 * self.kappa).log() + self.h * a * (a - 1)).exp() * \
            ((b - a * self.mu) / self.s2).erfc() / 2

    def _tails(self, orders: list, ks: list) -> list:
        """[arb(0, :meth:`tail` (a, k))] for the orders and their last regions, the checks
        t(b_k) >= 1 and the constants shared (the same bound, fewer operations)."""
        from flint import arb

        l2k, ok, out = (2 * self.kappa).log(), {}, []
        for a, k in zip(orders, ks, strict=True):
            if k not in ok:
                b = self._b(k)
                ok[k] = b if self._t(b) >= 1 else None
            b = ok[k]
            if b is None:
                out.append(arb("inf"))
                continue
            t = (a * l2k + self.h * a * (a - 1)).exp() * ((b - a * self.mu) / self.s2).erfc() / 2
            out.append(arb(0, t.upper()))
        return out

    def log_a_many(self, orders: list) -> list:
        """Arbs containing log A_a for real orders 1 < a <= cap (arbs): per order the regions
        up to :meth:`_last` and the tail beyond. The regions' polynomials in y = a - centre
        are evaluated at all the orders at once, as one matrix product (the powers y^k of
        the orders times the regions' coefficients, in C), at the series' accuracy plus guard
        bits."""
        from flint import arb, arb_mat, arb_poly

        af = [float(a.mid()) for a in orders]
        if not all(1 < x <= self.cap for x in af):
            raise ValueError("orders outside (1, cap]")
        ks = [self._last(x) for x in af]
        with arb_precision(64):  # bounds: 64 bits are enough
            tails = self._tails(orders, ks)
        used = self.regions[:max(ks) + 1]
        self._polys(used)
        with arb_precision(self.bits + self.cap + 16):
            D = max(R.J for R in used) + 1
            zero = arb(0)
            W = []  # (1 + c)^a of the regions up to _last(a), 0 beyond
            for a, k in zip(orders, ks, strict=True):
                W.append(arb(1))
                W.extend((R.logs[0] * a).exp() if R.m <= k else zero for R in used[1:])
            W = arb_mat(len(orders), len(used), W)
            C = arb_mat(len(used), D + 1, [R.col[j] if j <= R.J else
                                           arb(0, R.rest.upper()) if j == D else zero
                                           for R in used for j in range(D + 1)])
            M = W * C  # row i: sum_R (1 + c)^a Q_R in powers of y, then the rests
            out = []
            for i, a in enumerate(orders):  # the row's polynomial at y = a - centre
                t = arb_poly([M[i, j] for j in range(D)])(a - self.centre) + M[i, D] + tails[i]
                out.append(self.log1p * a + t.log() if t > 0 else arb("nan"))
            return out

    def log_a(self, a):
        """An arb containing log A_a for a real order 1 < a <= cap (an arb)."""
        return self.log_a_many([a])[0]


def _log_phic(z: float) -> float:
    """log(1 - Phi(z)) in floats, from above for z > 5 (the Mills bound phi(z)/z)."""
    if z < 5:
        return math.log(max(math.erfc(z / math.sqrt(2)) / 2, 1e-300))
    return -z * z / 2 - math.log(z * math.sqrt(2 * math.pi))


_FALLING: dict = {}  # (c, D, prec) -> F^T


def _falling(c: int, D: int):
    """F^T for the D x D matrix F with (y + c)(y + c - 1) ... (y + c - j + 1) = sum_k F[j, k]
    y^k (row j: the falling factorial (y + c)_j): the products of the linear factors in Arb
    at the current precision (integers, exact while they fit), kept."""
    from flint import arb_mat, arb_poly, ctx

    key = (c, D, ctx.prec)
    F = _FALLING.get(key)
    if F is None:
        if len(_FALLING) > 8:
            _FALLING.clear()
        F = _FALLING[key] = arb_mat(D, D)
        p = arb_poly([1])
        for j in range(D):
            for k, x in enumerate(p.coeffs()):
                F[k, j] = x
            p = p * arb_poly([c - j, 1])
    return F
