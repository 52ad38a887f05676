"""Certified privacy profiles of products with factors whose losses lie on no lattice (the Skellam
mechanism: log-ratios of Bessel functions), by cells of a fine grid and the exact P- and Q-masses
of every cell.

A *grid factor* has countably many atoms x with Q-mass Q(x), P-mass P(x) = Q(x) e^{-L(x)} and
loss L(x) (Arb balls); on the grid h Z (h = 1/D) each atom goes to the cell y with h y <= L(x) <
h y + rho (rho = h and the balls' widths). Its *Q-view* is the lattice factor with loss h y and
mass Q(cell y) = sum of Q(x) over the cell, its *P-view* the one with the cells' P-masses (both
``numeric.lattice_product.LatticeFactor``; an exact lattice factor's P-view is itself tilted by
one less: P(y) e^{(c + 1) l(y)} = Q(y) e^{c l(y)}). The products of the views are two lattice
products on one grid (:class:`~.lattice_product.LatticeProduct`), whose coefficient s holds the
Q-mass Q_s and the P-mass P_s of the product's cell s: every tuple of atoms in it has total loss
in [l(s), l(s) + rho_tot), rho_tot = sum of the factors' rho. So (Dong, Roth & Su, Prop. 6)

    delta(eps) = sum_s sum_{tuples in s} Q (1 - e^{eps - L})_+
               = sum_{l(s) > eps} (Q_s - e^eps P_s)          (every term of such a cell is >= 0)
               + [0, rho_tot sum_{eps - rho_tot < l(s) <= eps} Q_s]   (cells straddling eps)

(1 - e^{eps - L} <= 1 - e^{-rho_tot} <= rho_tot there; cells below eps - rho_tot add 0). The
exact part is second order in the grid: its error is the straddling cells' mass times rho_tot,
about rho_tot^2 times the density of the loss. The Q-product is tilted at c (the saddle point of
eps), the P-product at c + 1, so that both are windows of the same tilted law; what each drops
is bounded as in ``lattice_product`` (e^{-c eps} X_Q, e^{-(c + 1) eps} X_P).

eps(delta) is bracketed by two bisections on rationals: lo with the lower bound of delta(lo) > d
proved, hi with the upper bound of delta(hi) <= d proved (delta is non-increasing).

The grid is chosen so that the root's window holds about :data:`GRID_POINTS` points (a multiple
of the exact factors' common denominator): the width of the result shrinks like rho_tot^2, so
like (k / GRID_POINTS)^2 for k factors at a fixed window.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core.errors import NumericalError
from . import budget
from .arb import arb_endpoint
from .context import arb_precision, mp
from .lattice_product import (
    GRID_BUILDERS,
    LatticeProduct,
    arb_of,
    common_denominator,
    mpf_fraction,
)
from .value import CertifiedPair

__all__ = ["GridProduct", "GRID_POINTS", "PView"]

#: Lattice points of the root's window the grid step is chosen for.
GRID_POINTS = 1 << 16
#: The window's half-width in standard deviations used to choose the grid.
GRID_T = 14.0
#: The largest rho_tot (loss units) of a product the route offers itself for: rho_tot grows like
#: k h and the window like sqrt(k)/h, so at a fixed window it grows like k (Skellam(1, 5)^10:
#: 0.004, ^100: 0.19, ^10000: 190).
MAX_RHO = Fraction(1, 4)


class PView:
    """The P-view of an exact lattice factor: P(y) e^{c l(y)} = Q(y) e^{(c - 1) l(y)}, so its
    tilted masses, plan and mgf at c are the factor's at c - 1 (c >= 1 here)."""

    def __init__(self, f) -> None:
        self.f, self.step, self.offset = f, f.step, f.offset
        self.loss_max = getattr(f, "loss_max", None)

    def plan(self, c: float):
        return self.f.plan(c - 1)

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        return self.f.tilted(c - 1, prec, ylo, yhi, scale)

    def mgf_ball(self, c: arb) -> arb:
        return self.f.mgf_ball(c - 1)


class GridProduct:
    """The product of lattice and grid factors (module docstring), with the interface of
    :class:`~.lattice_product.LatticeProduct` that the product route uses (``fits``,
    ``check_size``, ``enclosure``)."""

    def __init__(self, factors: list[tuple[object, int]]) -> None:
        self.factors = [(f, int(n)) for f, n in factors]
        exact = [(f, n) for f, n in self.factors if not getattr(f, "grid", False)]
        grid = [(f, n) for f, n in self.factors if getattr(f, "grid", False)]
        D0 = common_denominator([f.step for f, _ in exact] + [f.offset for f, _ in exact]) \
            if exact else 1
        if D0 is None:
            raise ValueError("the exact factors share no small denominator")
        var = sum(n * f.loss_var() for f, n in grid)
        var += sum(n * (float(f.step) * f.plan(0.0)[2]) ** 2 for f, n in exact)
        want = GRID_POINTS / (2 * GRID_T * math.sqrt(max(var, 1e-12)))
        D = D0 * max(1, math.ceil(want / D0))
        self.D, self.h = D, Fraction(1, D)
        qv, pv = [], []
        self.rho = Fraction(0)
        for f, n in self.factors:
            if getattr(f, "grid", False):
                q, p = f.views(self.h)
                self.rho += n * f.residual(self.h)
            else:
                q, p = f, PView(f)
            qv.append((q, n))
            pv.append((p, n))
        self.q = LatticeProduct(qv, D)
        self.p = LatticeProduct(pv, D)
        self._cache: dict = {}

    # -- the route's interface ---------------------------------------------------------------
    def fits(self, c: float = 0.0) -> bool:
        """Within the lattice product's sizes, and the grid fine enough (rho_tot at most
        :data:`MAX_RHO`: beyond, the enclosure would be too wide to be of use, and the route
        leaves the product to the PLD engine)."""
        return self.rho <= MAX_RHO and self.q.fits(c)

    def check_size(self, c: float = 0.0) -> None:
        self.q.check_size(c)

    # -- delta -------------------------------------------------------------------------------
    def _suffix(self, which: str, c: float, T: float, prec: int):
        """(lo, V, scale, X) of the Q-product tilted at c (``which`` "q") or the P-product at
        c + 1 ("p"): V[k] = sum_{j >= k} R(lo + j) z^{j - k}, z = e^{-t g/D} (t the tilt), so
        that the kept tilted-back mass of the cells s >= lo + k is scale e^{-t l(lo + k)} V[k];
        X = prod M_i(t) - scale sum R (what the windows and floors dropped), cached."""
        key = (which, c, T, prec)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        lp, t = (self.q, c) if which == "q" else (self.p, c + 1)
        lo, R, lam, m = lp.root(t, T, prec)
        scale = lam / arb(2) ** prec
        X = m - scale * arb_of(int(R(1)))
        z = (-arb_of(t) * arb_of(Fraction(lp.g, lp.D))).exp()
        n = R.length()
        V = [arb(0)] * (n + 1)
        acc = arb(0)
        for j in range(n - 1, -1, -1):
            acc = acc * z + int(R[j])
            V[j] = acc
            if not j & 0xFFFF:
                budget.check()
        out = (lo, V, scale, X)
        if len(self._cache) > 6:
            self._cache.clear()
        self._cache[key] = out
        return out

    def _kept(self, which: str, first: int, c: float, T: float, prec: int) -> tuple[arb, arb]:
        """(kept mass of the cells s >= first, X) of one product (:meth:`_suffix`)."""
        lo, V, scale, X = self._suffix(which, c, T, prec)
        k = first - lo
        if k >= len(V) - 1:
            return arb(0), X
        k = max(k, 0)
        lp, t = (self.q, c) if which == "q" else (self.p, c + 1)
        ls = lp.loss_at(lo + k)
        return scale * (-arb_of(t) * arb_of(ls)).exp() * V[k], X

    def bounds(self, eps: Fraction, c: float, T: float, prec: int) -> tuple[arb, arb]:
        """(lower, upper): balls whose lower end of the first and upper end of the second
        enclose delta(eps) (module docstring), the Q-product tilted at c, the P-product at
        c + 1 (Arb precision prec + 64: the caller's section)."""
        q = self.q
        e = arb_of(eps)
        first = q._threshold(eps) + 1
        Aq, Xq = self._kept("q", first, c, T, prec)
        Ap, Xp = self._kept("p", first, c, T, prec)
        cc = arb_of(c)
        ee = e.exp()
        miss_q = ((-cc * e).exp() * Xq).upper()  # Q-mass dropped from the cells above eps
        miss_p = ((-(cc + 1) * e).exp() * Xp).upper()
        lower = Aq - ee * (Ap + miss_p)
        upper = Aq + miss_q - ee * Ap
        # the straddling cells eps - rho < l(s) <= eps: at most rho times their Q-mass
        amb = q._threshold(eps - self.rho) + 1
        if amb < first:
            Aa, _ = self._kept("q", amb, c, T, prec)
            lo_l = arb_of(max(eps - self.rho, Fraction(0)))
            mass = (Aa - Aq) + ((-cc * lo_l).exp() * Xq).upper()
            upper = upper + arb_of(self.rho) * mass
        return lower, upper

    def delta_ball(self, eps: Fraction, rel_tol: float) -> arb:
        """A ball holding delta(eps), eps >= 0 (the hull of the two bounds, clipped at 0)."""
        eps = Fraction(eps)
        c, T, prec = self.q._plan(float(eps), rel_tol)
        with arb_precision(prec + 64):
            lo, hi = self.bounds(eps, c, T, prec)
            lo_end = lo.lower() if lo.lower() > 0 else arb(0)
            return lo_end.union(hi.upper())

    def enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair:
        """delta(eps) or eps(delta) at the mpf ``arg`` as a CertifiedPair of mpfs rounded
        outward (relative width about ``rel_tol`` or what the grid allows)."""
        self.check_size()
        if question == "delta":
            if arg == mp.inf:
                return CertifiedPair(mp.zero, mp.zero)
            b = self.delta_ball(mpf_fraction(arg), rel_tol)
            with arb_precision(mp.prec + 64):
                lo = max(arb_endpoint(b.lower(), round_floor), mp.zero)
                return CertifiedPair(lo, min(arb_endpoint(b.upper(), round_ceiling), mp.one))
        if arg <= 0:  # an unbounded loss: delta > 0 at every eps (the grid factors' losses)
            return CertifiedPair(mp.inf, mp.inf)
        lo, hi = self.epsilon(mpf_fraction(arg), rel_tol)
        with mp.workprec(mp.prec + 10):
            return CertifiedPair(mp.fdiv(lo.numerator, lo.denominator, rounding="d"),
                                 mp.fdiv(hi.numerator, hi.denominator, rounding="u"))

    # -- eps(delta) --------------------------------------------------------------------------
    def epsilon(self, d: Fraction, rel_tol: float) -> tuple[Fraction, Fraction]:
        """Rationals lo <= eps(d) <= hi: lo with the lower bound of delta(lo) > d proved (or
        lo = 0), hi with the upper bound of delta(hi) <= d proved, each narrowed by its own
        bisection."""
        d = Fraction(d)
        if d >= 1:
            return Fraction(0), Fraction(0)
        guess = self.q._guess(float(d))
        c, T, prec = self.q._plan(guess, rel_tol, 1e-3)
        sd = math.sqrt(sum(n * (float(f.step) * f.plan(c)[2]) ** 2 for f, n in self.q.factors))
        with arb_precision(prec + 64):
            dd = arb_of(d)

            def above(x: Fraction) -> bool:  # delta(x) > d proved
                budget.check()
                return bool(self.bounds(x, c, T, prec)[0] > dd)

            def below(x: Fraction) -> bool:  # delta(x) <= d proved
                budget.check()
                return bool(self.bounds(x, c, T, prec)[1] <= dd)

            g = Fraction(guess).limit_denominator(self.D)
            step = Fraction(max(sd, 1e-3)).limit_denominator(1 << 20) / 4
            hi = g
            for _ in range(64):
                if below(hi):
                    break
                hi += step
                step *= 2
            else:
                raise NumericalError("grid product: no eps proved with delta(eps) <= d")
            lo, step = min(g, hi), Fraction(max(sd, 1e-3)).limit_denominator(1 << 20) / 4
            while lo > 0 and not above(lo):
                lo = max(lo - step, Fraction(0))
                step *= 2
            lo = self._narrow(lo, hi, above, True, rel_tol)
            hi = self._narrow(lo, hi, below, False, rel_tol)
        return lo, max(hi, lo)

    def _narrow(self, lo: Fraction, hi: Fraction, proved: Callable[[Fraction], bool],
                up: bool, rel_tol: float) -> Fraction:
        """Bisection of [lo, hi] keeping the end where ``proved`` holds (the lower end when
        ``up``): about 60 steps at most, until the width is rel_tol of hi."""
        a, b = lo, hi
        for _ in range(60):
            if b - a <= Fraction(rel_tol) * hi / 4:
                break
            m = (a + b) / 2
            m = Fraction(m).limit_denominator(1 << 80) if m.denominator > 1 << 90 else m
            if up:
                a, b = (m, b) if proved(m) else (a, m)
            else:
                a, b = (a, m) if proved(m) else (m, b)
        return a if up else b


def _build(factors) -> GridProduct | None:
    if not any(getattr(f, "grid", False) for f, _ in factors):
        return None
    try:
        return GridProduct(factors)
    except ValueError:
        return None


GRID_BUILDERS.append(_build)
