"""The exactly summed part of a few-fold product of Laplace losses as a piecewise closed form:
exact rational polynomials, built once, and a few Arb operations at each eps.

L_mu's privacy loss under Q = Lap(mu, 1) (Dong, Roth & Su, Prop. 7; ``families/laplace.py``)
has atoms 1/2 at mu and e^{-mu}/2 at -mu and the density e^{(t - mu)/2}/4 on (-mu, mu). Each
of the three is e^{-mu/2} e^{t/2} times a rational measure:

    Q = e^{-mu/2} e^{t/2} rho,   rho = delta_mu / 2 + delta_{-mu} / 2 + 1_{(-mu, mu)} dt / 4,

so the k-fold product is Q_k = e^{-k mu/2} e^{t/2} rho^{*k} (the factors e^{t_i/2} multiply to
e^{t/2}), and P_k = e^{-t} Q_k. In the unit u = t/mu, rho^{*k} with j density components is
C(k, j) (mu/4)^j B_j * A^{*(k-j)}, A = (delta_1 + delta_{-1})/2 and B_j the j-fold convolution
of the indicator of (-1, 1) (a B-spline, B_j(v) = sum_i (-1)^i C(j, i) (v + j - 2i)_+^{j-1} /
(j - 1)!, knots at -j + 2i): its atoms (j = 0) C(k, m) 2^{-k} at u = 2m - k and a density that
is a polynomial g_r with rational coefficients on each interval [u_r, u_r + 2], u_r = 2r - k,
r = 0 .. k - 1 (every knot lies on 2Z - k). Keeping only the terms j < J gives the exact part
of :class:`~.cf_lattice.ExactPart` (J = k + 1: the whole law).

delta(eps) = E_Q[(1 - e^{eps - L})_+] = Q_k(L > eps) - e^eps P_k(L > eps). With nu = mu/2 and
y the coordinate on an interval, e^{+-nu y} g(y) has the antiderivatives e^{+-nu y} R_+-(y),

    R_+ = sum_s (-1)^s g^(s) / nu^(s+1),   R_- = -sum_s g^(s) / nu^(s+1)

(differentiate: nu R_+ + R_+' = g, -nu R_- + R_-' = g), polynomials with rational coefficients.
For eps = mu v in the interval r (v = u_r + y0),

    e^{k mu/2} Q_k(L > eps) = H_+(r) + A_+(m0) - e^{eps/2} R_+(y0),
    e^{k mu/2} e^eps P_k(L > eps) = e^eps (H_-(r) + A_-(m0)) - e^{eps/2} R_-(y0),

where H_+-(r) = (integrals over the intervals above r) + e^{+-nu u_{r+1}} R_+-(2) and
A_+-(m0) = sum_{m >= m0} C(k, m) 2^{-k} e^{+-nu (2m - k)} over the atoms above eps (2m - k > v;
an atom at eps itself adds 0 to delta). The tables H, A are Arb balls at the working precision
(kept per precision); eps is a float, so v, r, y0 and m0 are exact rationals and every
comparison is decided exactly. The derivative of delta is -e^eps P_k(L > eps).

The sums cancel (|R| reaches about (2/nu)^(J-1) times the piece, and near the largest loss the
tail is far below the terms), so each eps is computed with guard bits, raised until the ball's
relative radius is below 2^-(prec - 8) of the caller's precision (Arb proves whatever comes out).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

from ..core import trace
from .cf_laws import lower, upper, working_precision
from .roots import Probe, findroot

__all__ = ["LaplacePowerProfile", "MAX_TABLE", "power_profile", "power_enclosure", "POWER_ROUTE",
           "POWER_REL"]

#: The largest k J^2 (intervals times the pieces of each: k <= 20 summed whole, 20 * 21^2) for
#: which the exact tables are built (about 4 ms at k = 20, 0.8 ms at k = 10); beyond,
#: ``ExactPart`` sums its pieces one by one.
MAX_TABLE = 8820
#: The relative width :func:`power_enclosure` computes to whatever looser tolerance is asked
#: (its cost grows with the digits only: 35 evaluations of about 30 microseconds at 1e-10),
#: so a tighter tolerance never gives a wider enclosure.
POWER_REL = 1e-10
#: The route's note (``core.trace``) when it answers.
POWER_ROUTE = "certified Laplace power, every term summed exactly (piecewise closed form)"


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _bspline_pieces(j: int) -> list[fmpq_poly]:
    """The pieces of B_j (j >= 1) on [-j + 2p, -j + 2p + 2], p = 0 .. j - 1, as polynomials
    of the local coordinate y: sum_{i <= p} (-1)^i C(j, i) (y + 2(p - i))^{j-1} / (j - 1)!."""
    f = math.factorial(j - 1)
    out = []
    for p in range(j):
        s = fmpq_poly([0])
        for i in range(p + 1):
            s += (-1) ** i * comb(j, i) * fmpq_poly([2 * (p - i), 1]) ** (j - 1)
        out.append(s / f)
    return out


def _density_split(k: int, J: int, mu: Fraction) -> list[fmpq_poly]:
    """The density of the terms with 1 <= j < J density components of rho^{*k} on the
    intervals r = 0 .. k - 1: sum_j C(k, j) (mu/4)^j 2^{-(k-j)} sum_m C(k - j, m)
    B_j(u - (2m - k + j)), whose piece on interval r is B_j's piece r - m (O(k J^2) products)."""
    gs = [fmpq_poly([0]) for _ in range(k)]
    for j in range(1, J):
        pieces = _bspline_pieces(j)
        w = _fq(comb(k, j) * (mu / 4) ** j / Fraction(2) ** (k - j))
        n = k - j
        for r in range(k):
            for m in range(max(0, r - j + 1), min(r, n) + 1):
                gs[r] += (w * comb(n, m)) * pieces[r - m]
    return gs


def _density_whole(k: int, mu: Fraction) -> list[fmpq_poly]:
    """The density of rho^{*k} (every term) on the intervals r = 0 .. k - 1, by k convolutions
    with rho (O(k^2) polynomial operations): from n to n + 1 factors the atoms a_m at 2m - n
    become (a_m + a_{m-1})/2, and on the new interval r (local coordinate y, u = 2r - n - 1 + y)

        f'_r(y) = (f_r(y) + f_{r-1}(y))/2 + (mu/4) (Psi_r(y) - Psi_{r-1}(y)),

    the atoms' shifts by -1 and +1 and the uniform part's window (u - 1, u + 1], with
    Psi_q(y) = rho^{*n}((-oo, 2q - n + y]) = (the mass below 2q - n) + a_q + int_0^y f_q
    (Psi_{-1} = 0, Psi_n = the whole mass)."""
    quarter = _fq(mu / 4)
    half = fmpq(1, 2)
    atoms = [fmpq(1)]
    fs: list[fmpq_poly] = []
    for n in range(k):
        psis, below = [], fmpq(0)
        for q in range(n):
            F = fs[q].integral()
            psis.append(F + (below + atoms[q]))
            below += atoms[q] + F(2)
        total = below + atoms[n]
        new = []
        for r in range(n + 1):
            hi = psis[r] if r < n else fmpq_poly([total])
            lo = psis[r - 1] if r >= 1 else fmpq_poly([0])
            f = quarter * (hi - lo)
            if r < n:
                f += half * fs[r]
            if r >= 1:
                f += half * fs[r - 1]
            new.append(f)
        fs = new
        atoms = [half * ((atoms[m] if m <= n else 0) + (atoms[m - 1] if m >= 1 else 0))
                 for m in range(n + 2)]
    return fs


class LaplacePowerProfile:
    """delta(eps) and its derivative for the terms with fewer than J density components of
    L_mu^{(x) k} (module docstring), mu a positive rational."""

    def __init__(self, mu: Fraction, k: int, J: int) -> None:
        if not (isinstance(mu, Fraction) and mu > 0):
            raise ValueError(f"LaplacePowerProfile needs a rational mu > 0, not {mu!r}")
        if not (k >= 1 and J >= 1):
            raise ValueError(f"LaplacePowerProfile needs k >= 1 and J >= 1, not k = {k}, J = {J}")
        self.mu, self.k, self.J = mu, int(k), int(min(J, k + 1))
        self._build()
        self._tables: dict = {}

    # -- the exact part ---------------------------------------------------------------------
    def _build(self) -> None:
        k, J, mu = self.k, self.J, self.mu
        nu = _fq(mu / 2)
        gs = _density_whole(k, mu) if J == k + 1 else _density_split(k, J, mu)
        self._rp, self._rm = [], []  # R_+, R_- per interval
        bits = 0  # about log2 of the largest |coefficient| 2^degree of the R polynomials
        inv = 1 / nu
        for g in gs:
            # coefficients from the top: nu r_d + (d + 1) r_{d+1} = g_d for R_+ and
            # -nu r_d + (d + 1) r_{d+1} = g_d for R_- (the equations of the module docstring)
            cs = g.coeffs()
            rp, rm = [fmpq(0)] * len(cs), [fmpq(0)] * len(cs)
            nxt_p = nxt_m = fmpq(0)
            for d in range(len(cs) - 1, -1, -1):
                nxt_p = (cs[d] - (d + 1) * nxt_p) * inv
                nxt_m = ((d + 1) * nxt_m - cs[d]) * inv
                rp[d], rm[d] = nxt_p, nxt_m
            self._rp.append(fmpq_poly(rp))
            self._rm.append(fmpq_poly(rm))
            for c in rm:
                if c != 0:
                    bits = max(bits, int(c.p).bit_length() - int(c.q).bit_length() + 1
                               + len(cs))
        # guard bits for the cancellations: the polynomials' size against the pieces' (about
        # 1 / J! of 2^J), and the tail's smallness near the largest loss (raised if needed)
        self._guard = 32 + max(bits, 0) + 4 * J

    def _arb_tables(self):
        prec = ctx.prec
        got = self._tables.get(prec)
        if got is not None:
            return got
        k, mu = self.k, self.mu
        m_ = arb(_fq(mu))
        nu = m_ / 2
        ep, em = nu.exp(), (-nu).exp()
        # e^{+-nu u} at u = 2r - k, r = 0 .. k (interval ends and atoms share them)
        up = [ep ** (2 * r - k) if 2 * r >= k else em ** (k - 2 * r) for r in range(k + 1)]
        um = [em ** (2 * r - k) if 2 * r >= k else ep ** (k - 2 * r) for r in range(k + 1)]
        rp = [arb_poly(p.coeffs()) if not p.is_zero() else arb_poly([0]) for p in self._rp]
        rm = [arb_poly(p.coeffs()) if not p.is_zero() else arb_poly([0]) for p in self._rm]
        two = arb(2)
        hp, hm = [arb(0)] * k, [arb(0)] * k
        tp, tm = arb(0), arb(0)  # the integrals over the intervals above r
        for r in range(k - 1, -1, -1):
            top_p, top_m = up[r + 1] * rp[r](two), um[r + 1] * rm[r](two)
            hp[r], hm[r] = tp + top_p, tm + top_m
            tp += top_p - up[r] * rp[r](arb(0))
            tm += top_m - um[r] * rm[r](arb(0))
        # atoms C(k, m) 2^{-k} at u = 2m - k: suffix sums, index k + 1 the empty sum
        ap, am = [arb(0)] * (k + 2), [arb(0)] * (k + 2)
        half = arb(2) ** (-k)
        for m in range(k, -1, -1):
            w = comb(k, m) * half
            ap[m], am[m] = ap[m + 1] + w * up[m], am[m + 1] + w * um[m]
        scale = (-(k * m_) / 2).exp()
        tables = (rp, rm, hp, hm, ap, am, tp, tm, scale)
        if len(self._tables) > 8:
            self._tables.clear()
        self._tables[prec] = tables
        return tables

    def _at(self, eps: Fraction) -> tuple[arb, arb]:
        """(delta, -e^eps P(L > eps)) at the working precision, no guard."""
        k, mu = self.k, self.mu
        v = eps / mu
        if v >= k:  # every loss is at most k mu
            return arb(0), arb(0)
        rp, rm, hp, hm, ap, am, tp, tm, scale = self._arb_tables()
        e = arb(_fq(eps))
        ee = e.exp()
        if v < -k:  # every loss lies above eps
            qa = tp + ap[0]
            pb = ee * (tm + am[0])
            return scale * (qa - pb), -scale * pb
        r = min(int(math.floor((v + k) / 2)), k - 1)
        y0 = arb(_fq(v + k - 2 * r))
        m0 = min(int(math.floor((v + k) / 2)) + 1, k + 1)  # the first atom above: 2m - k > v
        eh = (e / 2).exp()
        qa = hp[r] + ap[m0] - eh * rp[r](y0)
        pb = ee * (hm[r] + am[m0]) - eh * rm[r](y0)
        return scale * (qa - pb), -scale * pb

    def terms(self, eps: float) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps): Arb balls at the working precision, each
        computed with guard bits until its relative radius is below 2^-(prec - 8) (or four
        rounds)."""
        prec = ctx.prec
        x = Fraction(eps)
        guard = self._guard
        best = None
        for _ in range(4):
            with working_precision(prec + guard):
                val, der = self._at(x)
            best = (+val, +der)
            if val.is_zero() or val.rad() < abs(val.mid()) * arb(2) ** (8 - prec):
                break
            guard *= 2
        return best


_PROFILES: dict = {}


def power_profile(mu: Fraction, k: int, J: int) -> LaplacePowerProfile | None:
    """The kept :class:`LaplacePowerProfile` of (mu, k, J), or None where its tables would be
    larger than :data:`MAX_TABLE` (a route builds its exact part again at each call)."""
    J = min(int(J), int(k) + 1)
    if k * J * J > MAX_TABLE:
        return None
    key = (mu, int(k), J)
    got = _PROFILES.get(key)
    if got is None:
        if len(_PROFILES) > 32:
            _PROFILES.clear()
        got = _PROFILES[key] = LaplacePowerProfile(mu, k, J)
    return got


def power_enclosure(factors, kind: str, dn: float, up: float,
                    rel: float) -> tuple[float, float] | None:
    """Certified float bounds of delta(eps) (``kind`` "delta", eps in [dn, up]) or of eps(d)
    (``kind`` "epsilon", d in [dn, up]) of one power L_mu^{(x) k} (``factors`` = [(law, k)],
    the law with a rational ``laplace_mu()``) whose whole profile fits :data:`MAX_TABLE`, at
    the relative width min(rel, :data:`POWER_REL`); None otherwise. Nothing is inverted:
    delta is the closed form of :class:`LaplacePowerProfile` with J = k + 1. delta is
    non-increasing, so eps(d) lies in [lo, hi] once delta(lo) > d and delta(hi) < d are proved
    by the balls: Newton steps in log delta on the balls' midpoints, kept inside the bracket
    (bisection otherwise), every side decided by a certified comparison on [0, k mu]
    (delta(k mu) = 0)."""
    if len(factors) != 1:
        return None
    law, k = factors[0]
    get = getattr(law, "laplace_mu", None)
    mu = None if get is None else get()
    if mu is None or int(k) < 1:
        return None
    k = int(k)
    prof = power_profile(mu, k, k + 1)
    if prof is None:
        return None
    rel = min(rel, POWER_REL)
    prec = 64 + int(-math.log2(rel))
    with working_precision(prec):
        if kind == "delta":
            lo = max(0.0, lower(prof.terms(up)[0]))
            hi = min(1.0, upper(prof.terms(dn)[0]))
            trace.note(POWER_ROUTE)
            return lo, max(lo, hi)
        d0 = prof.terms(0.0)[0]
        if d0 <= dn:  # delta(0) <= d proved: eps(d) = 0 (Dong, Roth & Su, Prop. 6)
            trace.note(POWER_ROUTE)
            return 0.0, 0.0
        if not d0 > up:
            return None  # (undecided at 0: the other routes)
        log_d = math.log(dn)

        def sign(eps: float) -> Probe:
            d, der = prof.terms(eps)
            k_ = 1 if d > up else -1 if d < dn else None
            m = float(d.mid())
            if m > 0:  # (Newton in log delta: d log delta / d eps = delta' / delta)
                return Probe(k_, math.log(m) - log_d, float(der.mid()) / m)
            return Probe(k_)

        top = math.nextafter(float(k * mu), math.inf)  # delta(top) = 0 < d
        r = findroot(sign, (0.0, top), method="newton", ends=(1, -1), rtol=rel / 4,
                     best=lambda a, b: (a, b))
    trace.note(POWER_ROUTE)
    return r.lo, r.hi
