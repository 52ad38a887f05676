"""The terms with fewer than J density components of a k-fold product of a law made of two atoms
and an analytic density on the interval between them (the Poisson-subsampled Laplace loss), summed
exactly for any J, for the certified Laplace inversion (:mod:`.cf`): ``numeric.cf``'s exactly
summed part (``extra``), as :class:`.cf_sampled.SampledExactPart` is for J <= 3.

The law (read through its methods ``loss_atoms``, ``loss_density``, ``density_singularity`` and
``density_mgf``: this module knows no family) has atoms a0 at l0 < a1 at l1 and a density d on
(l0, l1), analytic in a neighbourhood of [l0, l1]. Three steps, each certified:

* **Approximation.** P, the interpolant of d at the n + 1 Chebyshev points of [l0, l1] (Arb
  balls: every polynomial in them contains the exact interpolant), and
  sup |d - P| <= eta = 4 M rho^{-n} / (rho - 1) on [l0, l1] (Trefethen, *Approximation Theory
  and Approximation Practice*, Thm. 8.2), M a bound of |d| on the Bernstein ellipse E_rho of
  [l0, l1], proved by covering the closed ellipse with boxes on which Arb evaluates d
  analytically (a box touching a branch cut or a pole gives no finite value: rho shrinks).
  Where the branch point lies so near the interval that one interpolant would need more than
  :data:`SINGLE_DEGREE` degrees (rho* - 1 ~ 2 sqrt(2 delta) for a branch point at delta widths
  off the interval: q = 1/1000, b = 1/2, delta = 1/(e^4 - 1) ~ 0.019, about 200 degrees), the
  interval is cut into pieces [o_i, o_{i+1}] W / G graded toward the branch point: lengths
  1, 1, 2, 4, ..., G/2 (G = 2^m, the first no longer than twice the branch point's distance),
  so that each piece's ellipse parameter is set by the distance to the singularity relative to
  its own length (star >= 2: rho* >= 3.7); each piece has its own interpolant and bound eta_p
  (six pieces of degree 24 to 32 there). The pieces' ends lie on the grid l0 + o W / G, so the
  j-fold sums of the ends do too (at most j G + 1 anchors).
* **Exact sum.** With w = 1/z, int_a^b e^{zu} P(u) du = e^{z b} Q_b(w) - e^{z a} Q_a(w),
  Q_l(w) = sum_m (-1)^m P^{(m)}(l) w^{m+1}, so the density's transform is
  e^{z l0} sum_o Y^o G_o(w), Y = e^{z W / G}, G_o the difference of the two pieces' series at
  the end o (one piece: G_0 = -Q0, G_1 = Q1), and the terms j < J of the product's transform
  are sums of e^{z (k - j) l0} X^l (atoms, X = e^{zW}) times the coefficients of Y^o in
  (sum_o Y^o G_o)^j, polynomials in w.
  The measure of e^{zb} w^m (b - x)^{m-1} / (m-1)! on x < b (an atom at b for m = 0), and its
  part of delta(eps) = E[(1 - e^{eps - L})_+] is (1/2 pi i) int e^{zy} dz / (z^{m+1} (z + 1))
  = H_m(y) = sum_{N>m} (-1)^{N-m-1} y^N / N!, y = b - eps (0 for y <= 0). Summed over m, the
  part of the lattice point b is V(y) = sum_{N=1}^{D+1} v_N y^N / N! + s (-1)^{D+1} H_{D+1}(y),
  v_N = sum_{m<N} (-1)^{N-1-m} r_m, s = R_i(-1), 0 <= H_{D+1}(y) <= y^{D+2} / (D+2)! (the
  series alternates with decreasing terms for y < D + 3): one polynomial per lattice point,
  independent of eps, evaluated in Arb.
* **The approximation's share.** With nu = (d - P) du, the j-fold products differ by
  |D^{*j} - P^{*j}| <= sum_{i>=1} C(j, i) |P|^{*(j-i)} * |nu|^{*i}; at any c > 0, by
  (1 - e^{-y})_+ <= K_c e^{cy}, K_c = c^c / (c + 1)^{c+1}, the terms j < J of delta differ by at
  most K_c e^{-c eps} sum_{1<=j<J} C(k, j) A(c)^{k-j} ((D(c) + 2 N)^j - (D(c) + N)^j),
  N = sum_p eta_p int_p e^{cu} du, A(c) and D(c) the atoms' and the density's moment generating
  functions (|P| <= d + eta). c is the product's float saddle point at eps.
* **The remainder.** The terms j >= J (:class:`PolyRemainder`, inverted by ``numeric.cf``) have
  the transform sum_{j>=J} C(k, j) A^{k-j} D^j with A by its closed form and D by the piecewise
  interpolant's transform widened by N(Re z) (a ball of the true value at every t, no 2F1).

The polynomial pieces cancel (a density of k components near the lattice points is a sum of
truncated powers anchored far off): the part computes at its own precision, raised until the
ball is narrow, and returns the ball at the caller's.
"""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager
from math import comb

from flint import acb, arb, arb_poly, ctx

from . import budget
from .cf_laws import upper, working_precision
from .cf_sampled import SampledRemainder
from .options import options

__all__ = ["PolyExactPart", "ChebyshevDensity", "PolyRemainder", "ChebPiece", "share_absolute",
           "share_relative"]

#: the target of sup |d - P| relative to the mean density (mass / width) of the interval
ETA_REL = 2.0**-44
#: the finest such target of :meth:`PolyExactPart.terms`, which divides it while the
#: approximation's share is above :data:`SHARE_OF_TOL` of the tolerance asked (a delta far
#: below the rest: delta(1) = 6.4e-9 at mu = 3, q = 1/100, T = 10 had a share 8e-8 of it)
ETA_REL_MIN = 2.0**-60
#: the c of the remainder's Chernoff bound in :meth:`PolyExactPart._remainder_estimate`
REMAINDER_CS = tuple(0.5 * 1.5**i for i in range(23))
#: the approximation's share of the part allowed, per unit of the tolerance (``pld_options``;
#: the inversion plans at a quarter of it, and the share counts twice in the ball's width)
SHARE_OF_TOL = 1 / 4
#: an absolute width the approximation's share may have whatever the tolerance (set by a caller
#: whose quantity is far above the part: :func:`share_absolute`); +oo outside
#: :func:`share_relative` (the default target stands)
_SHARE_ABS: contextvars.ContextVar[float] = contextvars.ContextVar("share_abs",
                                                                  default=math.inf)


@contextmanager
def share_relative():
    """Inside the block :meth:`PolyExactPart.terms` makes its interpolants finer where the
    approximation's share is above :data:`SHARE_OF_TOL` of the tolerance relative to the whole
    delta: for a caller that asks delta(eps) itself (``routes.engines``); the searches of
    eps(delta) evaluate delta at many eps far from the answer, where a finer target only costs
    (AddRemove(Mix(L_3, 1/1000))^100, eps(1e-5): 11 -> 24 s). An absolute width set outside
    (:func:`share_absolute`) stands."""
    now = _SHARE_ABS.get()
    token = _SHARE_ABS.set(0.0 if now == math.inf else now)
    try:
        yield
    finally:
        _SHARE_ABS.reset(token)


@contextmanager
def share_absolute(width: float):
    """Inside the block :meth:`PolyExactPart.terms` keeps its interpolants wherever the
    approximation's share is at most ``width`` (absolute): a caller adding the part to a
    quantity of known size (``routes.hull_few``: delta_C(eps) + e^eps alpha >= alpha) whose
    relative tolerance is met by that width, where the part's own relative width is not."""
    token = _SHARE_ABS.set(float(width))
    try:
        yield
    finally:
        _SHARE_ABS.reset(token)


#: the largest degree of one piece's interpolant
MAX_DEGREE = 160
#: the degree above which the interval is split into pieces graded toward the singularity
SINGLE_DEGREE = 96
#: the boxes covering the Bernstein ellipse (the bound M of |d| on it; a law may ask for another
#: number, its optional attribute ``ellipse_boxes``: fewer boxes bound M more loosely, which
#: costs about log(M'/M)/log(rho) degrees)
ELLIPSE_BOXES = 192
#: the precision of the boxes' values (their radii are the boxes' own)
ELLIPSE_PREC = 64
#: the internal precision that last sufficed, per (law, k, J): the pieces' cancellation grows
#: by about 110 bits per density component (q = 1/100, b = 1, J = 6: 640 bits at k = 20)
_PREC_HINT: dict[tuple, int] = {}


class ChebPiece:
    """The Chebyshev interpolant P of the density on one piece [a, b] = [l0 + o0 W / G,
    l0 + o1 W / G] of [l0, l1] (G = 2^m the grading's denominator, o0 < o1 integers), as an
    ``arb_poly`` in tau = (u - a) / (b - a) whose balls contain the exact interpolant, with
    n its degree and eta >= sup |d - P| on [a, b] (Trefethen, Thm. 8.2, on the ellipse E_rho)."""

    def __init__(self, law, o0: int, o1: int, grid: int, l0: arb, width: arb, target: arb):
        self.o0, self.o1 = o0, o1
        self.a = l0 + width * o0 / grid
        self.length = width * (o1 - o0) / grid
        self._law = law
        rho, big_m = self._ellipse()
        n = 8
        while True:
            eta = 4 * big_m / (rho - 1) * arb(rho) ** (-n)
            if eta < target or n >= MAX_DEGREE:
                break
            n += 8
        self.n, self.eta, self.rho = n, eta, rho
        self.poly: arb_poly | None = None

    def build(self) -> ChebPiece:
        """Interpolate (at the caller's precision)."""
        if self.poly is None:
            self.poly = self._interpolate(self.n)
        return self

    def _ellipse(self) -> tuple[float, arb]:
        """(rho, M): the largest rho tried (from 0.7 of the way to the nearest singularity of
        d on) whose closed ellipse the boxes show d analytic on, and M >= |d| there."""
        h = self.length / 2
        mid = self.a + h
        star = abs(float(((arb(self._law.density_singularity()) - mid) / h).mid()))
        rho_star = star + math.sqrt(max(star * star - 1, 0.0))
        frac = 0.7
        for _ in range(12):
            rho = 1 + frac * (rho_star - 1)
            big_m = self._ellipse_bound(rho, mid, h)
            if big_m is not None:
                return rho, big_m
            frac *= 0.7
        raise ArithmeticError("no Bernstein ellipse found on which the density is analytic")

    def _ellipse_bound(self, rho: float, mid: arb, h: arb) -> arb | None:
        """M >= |d| on the closed ellipse E_rho about [mid - h, mid + h], from boxes covering
        it, or None where a box meets a singularity. At :data:`ELLIPSE_PREC` bits: the boxes
        are 1/ELLIPSE_BOXES of the ellipse wide, so their values' radii come from the boxes,
        not the precision (a lower precision only rounds the balls outward: still bounds)."""
        with working_precision(ELLIPSE_PREC):
            return self._ellipse_boxes(rho, mid, h)

    def _ellipse_boxes(self, rho: float, mid: arb, h: arb, rows: int = 1) -> arb | None:
        """M >= |d| on the closed ellipse E_rho: the law's ``ellipse_boxes`` (default
        :data:`ELLIPSE_BOXES`) vertical strips of the ellipse, each covered by one box of its
        full height, or for ``rows`` > 1 by that many boxes one above the other (a law whose
        values on one tall box reach a branch cut that the function does not: the replace-one
        loss near y = 0); None where a box gives no finite value."""
        a, b = (rho + 1 / rho) / 2, (rho - 1 / rho) / 2
        boxes = getattr(self._law, "ellipse_boxes", ELLIPSE_BOXES)
        xs = [-a * math.cos(math.pi * j / boxes) for j in range(boxes + 1)]
        xs[0], xs[-1] = -a, a
        best = arb(0)
        for x0, x1 in zip(xs[:-1], xs[1:], strict=True):
            inner = 0.0 if x0 <= 0 <= x1 else min(abs(x0), abs(x1))
            # (inflated by 1e-9: the float a, b and xs may fall short of the ellipse by ulps)
            ymax = b * math.sqrt(max(0.0, 1 - (inner / a) ** 2)) + 1e-9
            re = arb(0.5 * (x0 + x1), 0.5 * (x1 - x0) + 1e-9)
            for r in range(rows):
                y0 = -ymax + 2 * ymax * r / rows
                im = arb(y0 + ymax / rows, ymax / rows + (1e-9 if rows > 1 else 0.0))
                val = self._law.loss_density(mid + h * acb(re, im), True)
                if not val.is_finite():
                    return None
                best = arb(best.union(abs(val)).upper())
        return best

    def _interpolate(self, n: int) -> arb_poly:
        """The interpolant at the Chebyshev points of the second kind, tau_j = (1 + cos(pi j /
        n)) / 2, in powers of tau in [0, 1]: Newton's divided differences in Arb (flint's
        ``arb_poly.interpolate``; every operation on balls, so the ball polynomial contains the
        exact interpolant of the exact values; was the discrete cosine sums in Python, twice the
        time, with balls as narrow)."""
        taus = [(1 + arb.cos_pi(arb(j) / n)) / 2 for j in range(n + 1)]
        real = getattr(self._law, "loss_density_real", None)  # (optional: real arithmetic)
        fs = [self._law.loss_density(acb(self.a + self.length * t), False).real if real is None
              else real(self.a + self.length * t) for t in taus]
        return arb_poly.interpolate(taus, fs, algorithm="newton")

    def end_series(self) -> tuple[list[arb], list[arb]]:
        """(Q_a, Q_b): the coefficients of Q(w) = sum_m (-1)^m P^{(m)}(l) w^{m+1} at the
        piece's ends l = a, b (P^{(m)} in u: the tau-coefficients times m! / length^m)."""
        c0 = self.poly.coeffs()
        c1 = self.poly(arb_poly([1, 1])).coeffs()  # p(1 + s)
        out = []
        for cs in (c0, c1):
            q, f, wk = [arb(0)], arb(1), arb(1)
            for m, c in enumerate(cs):
                if m:
                    f *= m
                    wk *= self.length
                q.append((-1) ** m * f * c / wk)
            out.append(q)
        return out[0], out[1]


class ChebyshevDensity:
    """The law's density on [l0, l1] replaced by Chebyshev interpolants on pieces (see the
    module), at precision ``prec``: one piece where its degree stays within
    :data:`SINGLE_DEGREE`, else pieces graded geometrically toward the end nearest the
    density's singularity, on the grid l0 + o W / G (G = ``grid``, a power of 2)."""

    def __init__(self, law, prec: int, eta_rel: float = ETA_REL) -> None:
        self.prec, self.eta_rel = prec, eta_rel
        with working_precision(prec):
            self.l0, self.l1, self.a0, self.a1 = law.loss_atoms()
            self.width = self.l1 - self.l0
            self._law = law
            mass = 1 - self.a0 - self.a1
            target = mass / self.width * arb(2) ** math.log2(eta_rel)
            one = ChebPiece(law, 0, 1, 1, self.l0, self.width, target)
            if one.n <= SINGLE_DEGREE and one.eta < target:
                self.grid, self.pieces = 1, [one.build()]
            else:
                self.grid, bounds = self._grading()
                self.pieces = [ChebPiece(law, o0, o1, self.grid, self.l0, self.width,
                                         target).build()
                               for o0, o1 in zip(bounds[:-1], bounds[1:], strict=True)]
            self.n = max(pc.n for pc in self.pieces)
            self.eta = max(pc.eta for pc in self.pieces)
            if not self.eta < target * 2**8:
                raise ArithmeticError(f"the density's interpolants reach only sup |d - P| <= "
                                      f"{float(upper(self.eta)):.3g}")

    def _grading(self) -> tuple[int, list[int]]:
        """(G, o_0 < ... < o_m): pieces [o_i, o_{i+1}] W / G doubling in length away from the
        end nearest the singularity, the first no longer than twice its distance to it (each
        piece's ellipse then reaches at least a third of the way: star >= 2)."""
        sing = float(((arb(self._law.density_singularity()) - self.l0) / self.width).mid())
        dist = min(abs(sing), abs(sing - 1))
        m = 1
        while 2.0**-m > 2 * dist and m < 40:
            m += 1
        grid = 2**m
        near = [0] + [2**i for i in range(m + 1)]  # (0, 1, 2, 4, ..., G) from the near end
        if abs(sing) <= abs(sing - 1):
            return grid, near
        return grid, [grid - o for o in reversed(near)]

    @property
    def poly(self) -> arb_poly:
        """The interpolant of the one piece (single-piece densities only)."""
        if len(self.pieces) != 1:
            raise AttributeError("a graded density has one polynomial per piece")
        return self.pieces[0].poly

    def __call__(self, u: arb) -> arb:
        """The piecewise interpolant at u in [l0, l1] (for checks)."""
        for pc in self.pieces:
            if u <= pc.a + pc.length or pc is self.pieces[-1]:
                return pc.poly((u - pc.a) / pc.length)
        raise AssertionError

    def error_integral(self, c: arb) -> arb:
        """sum over the pieces of eta_p int_piece e^{cu} du (c > 0): the mass of |d - P|
        tilted by e^{cu}, bounded."""
        tot = arb(0)
        for pc in self.pieces:
            b = pc.a + pc.length
            tot += pc.eta * ((c * b).exp() - (c * pc.a).exp()) / c
        return tot

    def breakpoint_series(self) -> dict[int, arb_poly]:
        """{o: G_o(w)}: the transform of the piecewise interpolant on [l0, l1] is
        e^{z l0} sum_o e^{z o W / G} G_o(w), G_o = Q_{left piece, b} - Q_{right piece, a}."""
        out: dict[int, arb_poly] = {}
        for pc in self.pieces:
            qa, qb = pc.end_series()
            out[pc.o0] = out.get(pc.o0, arb_poly([0])) - arb_poly(qa)
            out[pc.o1] = out.get(pc.o1, arb_poly([0])) + arb_poly(qb)
        return out


class PolyExactPart:
    """delta-part(eps) = E[(1 - e^{eps - L})_+ ; fewer than J density components] of the k-fold
    product (see the module): ``terms(eps)`` an Arb ball and its derivative in eps."""

    def __init__(self, law, k: int, J: int) -> None:
        if not 1 <= J <= k + 1:
            raise ValueError(f"PolyExactPart sums j < J density components, 1 <= J <= k + 1 = "
                             f"{k + 1}, not J = {J}")
        self.law, self.k, self.J = law, int(k), int(J)
        self._cache: dict[tuple, tuple] = {}
        self._prec = 0
        self._eta_rel = ETA_REL

    def _setup(self, prec: int, eta_rel: float = ETA_REL):
        got = self._cache.get((prec, eta_rel))
        if got is not None:
            return got
        cheb = ChebyshevDensity(self.law, prec, eta_rel)
        with working_precision(prec):
            got = (cheb, self._lattice(cheb), self._shifts(cheb))
        if len(self._cache) > 8:
            self._cache.clear()
        self._cache[(prec, eta_rel)] = got
        return got

    def _lattice(self, cheb: ChebyshevDensity) -> dict[int, list[tuple[arb, arb_poly, arb_poly,
                                                                         arb, int]]]:
        """Per number j of density components (1 <= j < J) and anchor o (the j-fold density's
        pieces anchored at j l0 + o W / G): (o W / G, the polynomial sum_N v_N y^N / N! of the
        piece, its derivative, s = G_o(-1), D = deg G_o), G_o the coefficient of Y^o in
        (sum_b Y^b G_b(w))^j, Y = e^{z W / G} (:meth:`ChebyshevDensity.breakpoint_series`;
        one piece: G_r = C(j, r) Q1^r (-Q0)^{j-r}, see the module).

        Seconds of work for many anchors (five steps at q = 1e-4: ~4 s): the deadline is
        checked per anchor in both loops (nothing is cached before the whole table is built)."""
        base = cheb.breakpoint_series()
        step = cheb.width / cheb.grid
        power: dict[int, arb_poly] = {0: arb_poly([1])}
        out: dict[int, list] = {}
        for j in range(1, self.J):
            budget.check()
            nxt: dict[int, arb_poly] = {}
            for o, g in power.items():
                budget.check()
                for ob, gb in base.items():
                    key = o + ob
                    nxt[key] = nxt[key] + g * gb if key in nxt else g * gb
            power = nxt
            pieces = []
            for o in sorted(power):
                budget.check()
                cs = power[o].coeffs()
                deg = len(cs) - 1
                if deg < 0:
                    continue
                v, acc = [arb(0)], arb(0)
                for nn in range(1, deg + 2):  # v_N = r_{N-1} - v_{N-1}
                    acc = cs[nn - 1] - acc
                    v.append(acc)
                fac, vals = arb(1), [arb(0)]
                for nn in range(1, deg + 2):
                    fac *= nn
                    vals.append(v[nn] / fac)
                poly_v = arb_poly(vals)
                s = sum((c * (-1) ** m for m, c in enumerate(cs)), arb(0))
                pieces.append((o * step, poly_v, poly_v.derivative(), s, deg))
            out[j] = pieces
        return out

    def _density_part(self, cheb, pieces, j: int, y: arb, derivative: bool) -> tuple[arb, arb]:
        """(Delta_j(y), its derivative in y): E[(1 - e^{y - S}) ; S > y] under the j-fold
        product of the density (P's, within the support), for y = eps - the atoms' sum."""
        lo = j * cheb.l0
        if y <= lo:  # the whole support above y: the moment generating functions at 0, -1
            m0 = 1 - cheb.a0 - cheb.a1
            m1 = 1 - cheb.a0 * (-cheb.l0).exp() - cheb.a1 * (-cheb.l1).exp()
            return m0**j - y.exp() * m1**j, -y.exp() * m1**j
        if y >= j * cheb.l1:
            return arb(0), arb(0)
        val, der = arb(0), arb(0)
        for off, pv, dv, s, deg in pieces:
            x = lo + off - y  # (the anchor's distance above y)
            if x <= 0:
                continue
            if not x > 0:  # (y on the anchor: V is continuous with V(0) = 0)
                x = arb(0).union(arb(x.upper()))
            sign = (-1) ** (deg + 1)
            h1 = _h(deg + 1, x)
            val += pv(x) + sign * s * h1
            if derivative:  # (H_D = x^{D+1} / (D+1)! - H_{D+1})
                der += dv(x) + sign * s * (x ** (deg + 1) / arb.fac_ui(deg + 1) - h1)
        return val, -der

    def _shifts(self, cheb: ChebyshevDensity) -> dict[int, tuple]:
        """Per j < J: the atoms' sums s_l = (k - j) l0 + l W (l = 0 .. k - j, increasing), their
        weights w_l = C(k, j) C(k - j, l) a1^l a0^(k-j-l), the suffix sums of w_l and of
        w_l e^{-s_l}, and the moments D(0)^j, D(-1)^j of the true density (its whole support
        above y: Delta_j(y) = D(0)^j - e^y D(-1)^j, D(0) = 1 - a0 - a1 and
        D(-1) = 1 - a0 e^{-l0} - a1 e^{-l1}, the pair's masses being 1)."""
        k = self.k
        m0 = 1 - cheb.a0 - cheb.a1
        m1 = 1 - cheb.a0 * (-cheb.l0).exp() - cheb.a1 * (-cheb.l1).exp()
        out = {}
        for j in range(self.J):
            n = k - j
            ss = [n * cheb.l0 + ll * cheb.width for ll in range(n + 1)]
            ws = [comb(k, j) * comb(n, ll) * cheb.a1**ll * cheb.a0 ** (n - ll)
                  for ll in range(n + 1)]
            sw, se = [arb(0)] * (n + 2), [arb(0)] * (n + 2)
            for ll in range(n, -1, -1):
                sw[ll] = sw[ll + 1] + ws[ll]
                se[ll] = se[ll + 1] + ws[ll] * (-ss[ll]).exp()
            out[j] = (ss, [float(x.mid()) for x in ss], ws, sw, se, m0**j, m1**j)
        return out

    def _sum(self, prec: int, eps: float, derivative: bool = True, eta_rel: float = ETA_REL
             ) -> tuple[arb, arb, ChebyshevDensity]:
        """The part at eps at precision ``prec`` (the interpolants to ``eta_rel``): per j, the
        atoms' sums with the j-fold support wholly above y = eps - s_l by the suffix sums, those
        it meets piece by piece."""
        cheb, lattice, shifts = self._setup(prec, eta_rel)
        with working_precision(prec):
            e = arb(eps)
            val, der = arb(0), arb(0)
            hi_f = float(cheb.l1.mid())
            for j in range(self.J):
                ss, sf, ws, sw, se, m0j, m1j = shifts[j]
                n = len(ss) - 1
                # y_l = eps - s_l decreases in l: 0 while y_l >= j l1 (for j = 0: y_l >= 0), the
                # suffix sums once y_l <= j l0 (for j = 0: y_l < 0), both proved in Arb at the
                # boundary (a float guess first)
                top, bottom = (j * cheb.l1, j * cheb.l0) if j else (arb(0), arb(0))
                ll = next((i for i in range(n + 1) if eps - sf[i] < j * hi_f + 1e-9), n + 1)
                while ll > 0 and not e - ss[ll - 1] >= top:
                    ll -= 1
                while ll <= n and not (e - ss[ll] < bottom if j == 0 else e - ss[ll] <= bottom):
                    y = e - ss[ll]
                    if j == 0:  # the atoms alone: (1 - e^y)_+ (y straddles 0 here)
                        part = (arb(0).union(-y.expm1()), arb(0).union(-y.exp()))
                    else:
                        part = self._density_part(cheb, lattice[j], j, y, derivative)
                    val += ws[ll] * part[0]
                    der += ws[ll] * part[1]
                    ll += 1
                if ll <= n:  # (certified: every later l is below the support as well)
                    tail = e.exp() * m1j * se[ll]
                    val += m0j * sw[ll] - tail
                    der -= tail
            val += self._approximation_bound(cheb, eps)
        return val, der, cheb

    def _approximation_bound(self, cheb: ChebyshevDensity, eps: float) -> arb:
        """The ball [-B, B] of the approximation's share (see the module) at the product's
        float saddle point c for eps (any c > 0 is valid)."""
        if self.J == 1:
            return arb(0)
        c = arb(_saddle(self.law, self.k, eps))
        a = cheb.a0 * (c * cheb.l0).exp() + cheb.a1 * (c * cheb.l1).exp()
        d = self.law.density_mgf(c)
        if not d.is_finite():  # (the law's closed form failed far out: D(c) <= D(0) e^{c l1},
            d = (1 - cheb.a0 - cheb.a1) * (c * cheb.l1).exp()  # the density lives below l1)
        n = cheb.error_integral(c)
        kc = (c * c.log() - (c + 1) * (c + 1).log()).exp()
        tot = arb(0)
        for j in range(1, self.J):
            tot += comb(self.k, j) * a ** (self.k - j) * ((d + 2 * n) ** j - (d + n) ** j)
        bound = kc * (-c * arb(eps)).exp() * tot
        return arb(0, upper(bound))

    def _remainder_estimate(self, cheb: ChebyshevDensity, eps: float) -> float:
        """A float above the terms j >= J of delta (the remainder, not summed here): the least
        over a grid of c (:data:`REMAINDER_CS`) of the Chernoff bound K_c e^{-c eps}
        sum_{j>=J} C(k, j) A(c)^{k-j} D(c)^j (the share's, for the remainder): it says how small
        the part is against the whole delta (a choice of target only)."""
        if self.J > self.k:
            return 0.0
        best = math.inf
        e = arb(eps)
        for cf in REMAINDER_CS:
            c = arb(cf)
            a = cheb.a0 * (c * cheb.l0).exp() + cheb.a1 * (c * cheb.l1).exp()
            d = self.law.density_mgf(c)
            if not d.is_finite():
                d = (1 - cheb.a0 - cheb.a1) * (c * cheb.l1).exp()
            kc = (c * c.log() - (c + 1) * (c + 1).log()).exp()
            tot = sum((comb(self.k, j) * a ** (self.k - j) * d**j
                       for j in range(self.J, self.k + 1)), arb(0))
            val = float(upper(kc * (-c * e).exp() * tot))
            if math.isfinite(val):
                best = min(best, val)
        return best

    def _above_range(self, eps: float) -> bool:
        """Whether eps > k l1, proved in Arb: every loss of the k-fold product is at most k l1
        (the atom at l1 and the density on (l0, l1)), so (1 - e^{eps - L})_+ = 0 almost surely
        and the part and its derivative in eps are exactly 0 (the saddle point of the
        approximation's share does not exist there: its bound would be infinite)."""
        with working_precision(64):
            return bool(arb(eps) > self.k * arb(self.law.loss_atoms()[1]))

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps (0 unless ``derivative``)): Arb balls at the
        caller's precision, the
        internal precision raised by half (from 64 + 112 J bits, or the last one that sufficed for
        this law, k and J) until the ball's radius is within
        2^-(caller's precision - 16) of its value, of the approximation's share or of
        2^-(caller's precision + 64); inside :func:`share_relative`, where the approximation's
        share so reached is above
        :data:`SHARE_OF_TOL` of the tolerance asked (``pld_options``) relative to the whole
        delta (the value plus the remainder's Chernoff bound, :meth:`_remainder_estimate`),
        the interpolants' target (:data:`ETA_REL`, or the finest this part needed before) made
        finer in proportion, to half that share, and the part summed again, down to
        :data:`ETA_REL_MIN` (a tighter tolerance: a finer target, never a wider ball)."""
        want = ctx.prec
        if self._above_range(eps):  # (no loss reaches eps: the part is exactly 0)
            return arb(0), arb(0)
        tol = options()["tol"]
        eta_rel = self._eta_rel  # (the finest target this part needed so far)
        while True:
            val, der, cheb, share = self._terms_at(eps, derivative, want, eta_rel)
            scale = abs(val.mid())
            floor_abs = _SHARE_ABS.get()
            if floor_abs == math.inf:  # (outside share_relative: the default target)
                return +val, +der
            allowed = arb(max(float(upper(SHARE_OF_TOL * tol * scale)), floor_abs))
            if not share.rad() <= allowed:  # (relative to the whole delta: the part and the
                # remainder's Chernoff bound; only where the part alone does not decide)
                whole = float(upper(scale)) + self._remainder_estimate(cheb, eps)
                allowed = arb(max(SHARE_OF_TOL * tol * whole, floor_abs))
            if (eta_rel <= ETA_REL_MIN or share.rad() <= allowed
                    or val.rad() <= scale * arb(2) ** (16 - want)
                    or val.rad() <= arb(2) ** -(want + 64)):
                return +val, +der
            # (the share is about proportional to the target: one step to twice below it)
            ratio = float(upper(share.rad() / allowed)) if allowed > 0 else math.inf
            if not ratio < eta_rel / ETA_REL_MIN:  # (the finest target would not meet it
                return +val, +der  # either: a delta far below every float's reach)
            steps = 4 * math.ceil((math.log2(max(ratio, 1.0)) + 1) / 4)  # (steps of 2^4)
            eta_rel = max(eta_rel / 2.0**steps, ETA_REL_MIN)
            self._eta_rel = min(self._eta_rel, eta_rel)

    def _terms_at(self, eps: float, derivative: bool, want: int, eta_rel: float
                  ) -> tuple[arb, arb, ChebyshevDensity, arb]:
        """(part, derivative, interpolants, approximation's share) with the interpolants to
        ``eta_rel``, the precision raised as :meth:`terms` says."""
        key = (self.law, self.k, self.J)  # (the cancellation's bits: not the target's)
        prec = max(64 + 112 * self.J, want + 32, self._prec, _PREC_HINT.get(key, 0))
        share = None
        while True:
            val, der, cheb = self._sum(prec, eps, derivative, eta_rel)
            scale = abs(val.mid()) if val.mid() != 0 else arb(2) ** -1000
            floor = arb(2) ** -(want + 64)  # (delta near 0: an absolute width suffices)
            if val.rad() <= scale * arb(2) ** (16 - want) or val.rad() <= floor or prec >= 8192:
                break
            share = self._approximation_bound(cheb, eps) if self.J > 1 else arb(0)
            if val.rad() <= 2 * share.rad() + scale * arb(2) ** (16 - want):
                break
            share = None
            prec = prec * 3 // 2
        if share is None:
            share = self._approximation_bound(cheb, eps) if self.J > 1 else arb(0)
        self._prec = prec  # (the next call starts where this one sufficed)
        if len(_PREC_HINT) > 256:
            _PREC_HINT.clear()
        _PREC_HINT[key] = prec
        return val, der, cheb, share


class PolyRemainder(SampledRemainder):
    """The remainder R_J = sum_{j>=J} C(k, j) A^{k-j} D^j of the k-fold product (the terms
    with at least J density components, :class:`~.cf_sampled.SampledRemainder`'s measure and
    decay bound), its transform evaluated without the law's 2F1: the atoms' part A(z) by its
    closed form a0 e^{z l0} + a1 e^{z l1} (the law's ``loss_atoms``), the density's part by the
    transform of the piecewise interpolant, D_P(z) = e^{z l0} sum_o e^{z o W / G} G_o(w),
    w = 1/z (:meth:`ChebyshevDensity.breakpoint_series`), widened by
    |D(z) - D_P(z)| <= int |d - P| e^{cu} du <= sum_p eta_p int_p e^{cu} du, c = Re z (the
    pieces' certified bounds); the terms j >= J summed as they are (a sum of products, no
    cancellation), so the ball's radius shrinks with |D| as R does. The cost of one value is
    flat in t (a few polynomials of degree 32), where the 2F1 at |w| needs about
    1.5 |w| r e^mu guard bits: q = 1/1000, b = 1/2, T = 10 plans 383 nodes up to t ~ 8e5 in
    the add direction (the density's spike, 2% of the width next to its branch point, delays
    the decay to t ~ 1 / (0.02 W))."""

    #: read by ``numeric.cf_route``: the remainder's evaluations do not call the law's 2F1
    uses_law_mgf = False

    def __init__(self, law, k: int, J: int) -> None:
        super().__init__(law, k, J)
        self.mgf_cost_per_t = 0.0  # (flat: no 2F1)
        self._dens: dict[int, tuple] = {}
        self._guard_bits = 64

    def _density(self, prec: int):
        got = self._dens.get(prec)
        if got is None:
            cheb = ChebyshevDensity(self.law, prec)
            with working_precision(prec):
                step = cheb.width / cheb.grid
                series = [(o * step, g) for o, g in sorted(cheb.breakpoint_series().items())]
            got = (cheb, series)
            if len(self._dens) > 4:
                self._dens.clear()
            self._dens[prec] = got
        return got

    def _parts(self, z: acb, prec: int) -> tuple[acb, acb, arb]:
        """(A(z), D_P(z), the scale |A(c)| + |D_P(c)|) at ``prec`` bits."""
        cheb, series = self._density(prec)
        with working_precision(prec):
            w = 1 / z
            d = acb(0)
            for off, g in series:
                d += (z * off).exp() * g(w)
            d *= (z * cheb.l0).exp()
            a = cheb.a0 * (z * cheb.l0).exp() + cheb.a1 * (z * cheb.l1).exp()
            c = z.real
            scale = abs(cheb.a0 * (c * cheb.l0).exp() + cheb.a1 * (c * cheb.l1).exp())
        return a, d, scale

    def _error(self, cheb: ChebyshevDensity, c: arb) -> arb:
        """An upper bound of sum_p eta_p int_p e^{cu} du for the real ball c."""
        if c > 0:
            return arb(upper(cheb.error_integral(c)))
        tot = arb(0)
        for pc in cheb.pieces:
            top = arb(c * pc.a).union(c * (pc.a + pc.length)).exp()
            tot += pc.eta * pc.length * top
        return arb(upper(tot))

    def mgf(self, z: acb) -> acb:
        saved = ctx.prec
        guard = self._guard_bits
        while True:
            prec = 64 * ((saved + guard + 63) // 64)
            a, d, scale = self._parts(z, prec)
            if d.rad() <= scale * arb(2) ** (20 - saved) or guard >= 8192:
                break
            guard *= 2
        self._guard_bits = guard
        cheb = self._density(prec)[0]
        with working_precision(prec):
            err = self._error(cheb, z.real)
            d = d + acb(arb(0, err), arb(0, err))
            k, J = self.k, self.J
            s = acb(0)
            for j in range(k, J - 1, -1):  # (Horner in D / A from the top term down)
                s = s * d + comb(k, j) * a ** (k - j)
            r = s * d**J
        return +r


def _h(m: int, y: arb) -> arb:
    """H_m(y) = sum_{N>m} (-1)^{N-m-1} y^N / N! = y^{m+1} / (m+1)! 1F1(1; m+2; -y), y >= 0."""
    return y ** (m + 1) / arb.fac_ui(m + 1) * (-y).hypgeom_1f1(1, m + 2)


def _saddle(law, k: int, eps: float) -> float:
    """The float c > 0 with k (log M)'(c) = eps (Newton's steps on the law's float cumulants),
    clipped to [1/2, 4096]; 1/2 below the mean (any c > 0 gives a valid bound)."""
    c = 1.0
    for _ in range(60):
        _, mean, var = law.cumulants(c)
        step = (k * mean - eps) / (k * var)
        c_new = min(4096.0, max(0.5, c - step))
        if abs(c_new - c) <= 1e-6 * c:
            c = c_new
            break
        c = c_new
    return c if math.isfinite(c) else 1.0
