"""Certified Neyman-Pearson points and the power at one level of a k-fold product of a lattice
law (atoms at +-mu and a density on (-mu, mu), the Laplace mechanism's privacy loss) whose
atoms are not negligible: its loss tails from the exactly summed terms plus the inverted
remainder, and a certified bracket of the level.

**Tails.** Split M^k = sum_j C(k, j) A^{k-j} U^j by the number j of density components
(:mod:`.cf_lattice`). The terms j < J are a finite sum over the lattice points
mu (2m - (k - j)) of Irwin-Hall pieces kappa^j e^{lam s} V_j(s), and for each piece
``ExactPart._integral(x, j, ...)`` gives the pair (int_{s > x} V_j e^{lam s} ds,
e^x int_{s > x} V_j e^{(lam - 1) s} ds) at x = eps minus the lattice point: summed with the
terms' weights they are the exact part's A(L > eps) and e^eps B(L > eps) (dB = e^{-L} dA), in
Arb (the pure lattice term j = 0 is the indicator of the point above x: a ball [0, 1] only where
eps is not decided against the point). The remainder j >= J decays like t^{-J} (J >= 4), so its
tails are those of :class:`~.cf_tails.TailInverter`. With J = k + 1 (k <= 12) nothing is
inverted.

**The power at alpha** (:func:`lattice_power_at`). The power 1 - f is concave and
non-decreasing in alpha, and the test rejecting L > eps is a point (a(eps), p(eps)) =
(B(L > eps), A(L > eps)) on it (Dong, Roth & Su, Prop. 6); at a lattice atom l the curve is the
segment between the points at l+ and l- (the randomised tests). So for thresholds e_H > e_L
with a(e_H) <= alpha <= a(e_L) (certified by the balls' ends):

* power(alpha) >= the chord of the two points at alpha (concavity), a ball expression whose
  lower end is proved for every choice of the points in their balls;
* power(alpha) >= p(e_H) + e^{e_L} (alpha - a(e_H)): on [a(e_H), alpha] the chord's slope is at
  least the curve's left derivative at alpha, which is at least e^t for the threshold t of
  alpha, and t >= e_L as a(e_L) >= alpha (a is non-increasing) -- well conditioned where the
  bracket straddles an atom's jump, and exact as e_H - e_L shrinks to the atom;
* power(alpha) <= delta(eps) + e^eps alpha at every eps (the support line of slope e^eps).

A safeguarded secant search on log a(eps) shrinks the bracket (bisection every other step, so a
jump of a at an atom is bracketed down to the float spacing, where the chord is the segment);
it stops where the two bounds meet the tolerance. The float midpoints only steer; every bound
is an Arb ball.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import numpy as np
from flint import arb, arb_poly, ctx, fmpq

from . import budget, cf
from .cf_lattice import ExactPart, RemainderLaw, split_terms
from .cf_laws import Factor, lower, upper, working_precision
from .cf_route import MAX_WORK, REL_MIN, _work
from .cf_tails import TailPoint, _clip, _meet, atom_tails, tail_inverter

__all__ = ["LatticeTails", "ExactTails", "eps_guess", "exact_tails", "lattice_power_at"]


def exact_tails(part: ExactPart, eps: float) -> tuple[arb, arb]:
    """(A(L > eps), e^eps B(L > eps)) of the terms with fewer than ``part.J`` density
    components (module docstring), Arb balls at the working precision: :class:`ExactTails`."""
    return ExactTails(part).tails(eps)


class ExactTails:
    """The exact part's tails at any eps from suffix sums over the lattice points.

    For j density components the lattice points are c = mu (2m - n), n = k - j, with weights
    w = C(k, j) kappa^j C(n, m) p+^m p-^(n-m) (:mod:`.cf_lattice`); at x = eps - c the piece
    contributes nothing where x >= j mu (it lies below eps), and where x <= -j mu (wholly
    above eps) its moment generating functions: (F_j, e^x G_j) with
    F_j = (2 sinh(lam mu) / lam)^j, G_j = (2 sinh((lam - 1) mu) / (lam - 1))^j (the atom j = 0:
    (1, e^x) where x < 0). c increases with m, so these are a prefix and a suffix of m: the
    suffix sums S_j(m) = sum_{m' >= m} w and T_j(m) = sum_{m' >= m} w e^{-c} (positive terms,
    computed once per precision) give them, e^x = e^eps e^{-c}, and only the about j + 2
    points between (decided in Arb at both ends of the window) take the polynomial integrals
    of ``ExactPart._integral``, their antiderivatives shared between pieces (:meth:`tails`):
    O(J^3) work per eps in place of O(J k), about 3J^2 products of it in the pieces.

    :meth:`estimate` gives float tails and the A-density at many eps at once (numpy), for
    placing points only."""

    def __init__(self, part: ExactPart) -> None:
        self.part = part
        self._sums: dict = {}
        self._floats = None

    # -- Arb ------------------------------------------------------------------------------
    def _tables(self):
        prec = ctx.prec
        if prec not in self._sums:
            mu, pp, pm_, kappa, lam = self.part.law.lattice_parts()
            k, J = self.part.k, self.part.J
            lp, lm = pp.log(), pm_.log()
            rows = []
            for j in range(min(J, k + 1)):
                n = k - j
                wj = comb(k, j) * kappa**j
                s_w, s_t = [arb(0)] * (n + 2), [arb(0)] * (n + 2)
                cms = [1] * (n + 1)
                for m in range(1, n + 1):
                    cms[m] = cms[m - 1] * (n - m + 1) // m
                acc_w, acc_t = arb(0), arb(0)
                ws = [arb(0)] * (n + 1)
                for m in range(n, -1, -1):
                    if m % 256 == 255:
                        budget.check()
                    w = wj * arb(cms[m]) * (m * lp + (n - m) * lm).exp()
                    ws[m] = w
                    acc_w += w
                    acc_t += w * (-(mu * (2 * m - n))).exp()
                    s_w[m], s_t[m] = acc_w, acc_t
                ff = (2 * (lam * mu).sinh() / lam) ** j
                gg = (2 * ((lam - 1) * mu).sinh() / (lam - 1)) ** j
                rows.append((ws, s_w, s_t, ff, gg, _Pieces(j, mu, lam) if j else None))
            if len(self._sums) > 4:
                self._sums.clear()
            self._sums[prec] = (mu, lam, rows)
        return self._sums[prec]

    def tails(self, eps: float) -> tuple[arb, arb]:
        """(A(L > eps), e^eps B(L > eps)) of the exact part, balls at the working precision.

        The pieces of the window share their arguments: for j components at the lattice point
        m and the B-spline's knot b_i, x_m - b_i = eps + k mu - 2 mu (m + i) depends on
        s = m + i alone (and not on j), so the antiderivatives e^{nu y} P(y) are taken once per
        s (their exponentials once per s for every j), and each piece is the combination
        T - sum_i sign_i e^{nu b_i} F(max(y_{m+i}, 0)) of :class:`_Pieces`."""
        mu, lam, rows = self._tables()
        k = self.part.k
        e = arb(eps)
        ee = e.exp()
        muf = float(mu.mid())
        ek = e + k * mu
        ys: dict = {}  # s -> (y_s, its sign: 1 above 0, -1 at or below, 0 undecided)
        exps: dict = {}  # (nu index, s) -> e^{nu max(y_s, 0)}

        def y_at(s_: int):
            if s_ not in ys:
                y = ek - 2 * mu * s_
                ys[s_] = (y, 1 if y > 0 else (-1 if y <= 0 else 0))
            return ys[s_]

        pa, pb = arb(0), arb(0)
        for j, (ws, s_w, s_t, ff, gg, pieces) in enumerate(rows):
            n = k - j
            jm = j * mu

            def x_at(m: int, n=n) -> arb:
                return e - mu * (2 * m - n)

            # the window [lo, hi): below lo every piece lies below eps, from hi on above it
            mid = (n + eps / muf) / 2
            lo = min(max(int(math.floor(mid - j / 2)) - 1, 0), n + 1)
            hi = min(max(int(math.ceil(mid + j / 2)) + 2, 0), n + 1)
            while lo > 0 and not (x_at(lo - 1) >= jm if j else x_at(lo - 1) >= 0):
                lo -= 1
            while hi <= n and not (x_at(hi) <= -jm if j else x_at(hi) < 0):
                hi += 1
            if hi <= n:
                pa += ff * s_w[hi]
                pb += ee * gg * s_t[hi]
            if j == 0:
                for m in range(lo, hi):  # the atom at the lattice point: 1{0 > x}
                    got = atom_tails(x_at(m))
                    if got is not None:
                        pa += ws[m] * got[0]
                        pb += ws[m] * got[1]
                continue
            vals = [{}, {}]  # per nu: s -> F(nu, max(y_s, 0))
            for m in range(lo, hi):
                x = x_at(m)
                if x <= -jm:  # wholly above eps
                    pa += ws[m] * ff
                    pb += ws[m] * x.exp() * gg
                    continue
                if x >= jm:  # wholly below
                    continue
                tot = []
                for v in (0, 1):
                    acc = pieces.total[v]
                    for i in range(j):
                        s_ = m + i
                        f = vals[v].get(s_)
                        if f is None:
                            f = vals[v][s_] = pieces.antider(v, s_, y_at, exps)
                        acc = acc - pieces.c[v][i] * f
                    tot.append(acc)
                pa += ws[m] * tot[0]
                pb += ws[m] * x.exp() * tot[1]
        return pa, pb

    # -- floats (placement only) ----------------------------------------------------------
    def _float_tables(self):
        if self._floats is None:
            with working_precision(64):
                mu, pp, pm_, kappa, lam = (float(v.mid()) for v in self.part.law.lattice_parts())
            k, J = self.part.k, self.part.J
            rows = []
            for j in range(min(J, k + 1)):
                n = k - j
                m = np.arange(n + 1)
                lw = (math.lgamma(k + 1) - math.lgamma(j + 1) - math.lgamma(n + 1)
                      + j * math.log(kappa) + _lgamma(n + 1) - _lgamma(m + 1) - _lgamma(n - m + 1)
                      + m * math.log(pp) + (n - m) * math.log(pm_))
                c = mu * (2 * m - n)
                lt = lw - c
                # log suffix sums (index n + 1: the empty sum)
                ls = np.append(np.logaddexp.accumulate(lw[::-1])[::-1], -np.inf)
                lts = np.append(np.logaddexp.accumulate(lt[::-1])[::-1], -np.inf)
                lf = j * math.log(2 * math.sinh(lam * mu) / lam)
                lg = j * math.log(2 * math.sinh((lam - 1) * mu) / (lam - 1))
                rows.append((lw, c, ls, lts, lf, lg))
            self._floats = (mu, lam, rows)
        return self._floats

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Floats (A(L > eps), e^eps B(L > eps), the A-density of the exact part at eps) at the
        array ``eps`` (the atoms' jumps are not in the density)."""
        mu, lam, rows = self._float_tables()
        e = np.asarray(eps, dtype=np.float64).ravel()
        pa, pb, dens = np.zeros_like(e), np.zeros_like(e), np.zeros_like(e)
        for j, (lw, c, ls, lts, lf, lg) in enumerate(rows):
            n = c.size - 1
            mid = (n + e / mu) / 2
            lo = np.clip(np.floor(mid - j / 2).astype(np.int64) - 1, 0, n + 1)
            hi = np.clip(np.ceil(mid + j / 2).astype(np.int64) + 2, 0, n + 1)
            with np.errstate(over="ignore", under="ignore"):
                pa += np.exp(lf + ls[hi])
                pb += np.exp(lg + e + lts[hi])
                width = int(np.max(hi - lo, initial=0))
                if width == 0:
                    continue
                # the window's points, one column per offset (every eps at once)
                m = lo[:, None] + np.arange(width)[None, :]
                mm = np.minimum(m, n)
                x = e[:, None] - c[mm]
                w = np.where(m < hi[:, None], np.exp(lw[mm]), 0.0)
                if j == 0:
                    a = np.where(x < 0, 1.0, 0.0)
                    pa += np.sum(w * a, axis=1)
                    pb += np.sum(w * a * np.exp(np.minimum(x, 0.0)), axis=1)
                    continue
                ia, ib, v = _float_piece(x, j, mu, lam)
                pa += np.sum(w * ia, axis=1)
                pb += np.sum(w * ib, axis=1)
                dens += np.sum(w * v, axis=1)
        return pa, pb, dens


class _Pieces:
    """The pair (int_{s > x} V_j e^{lam s} ds, e^x int_{s > x} V_j e^{(lam - 1) s} ds) of one
    piece of j >= 1 density components (``ExactPart._integral``, the same sums), what does not
    depend on x computed once per precision: V_j = sum_i (-1)^i C(j, i) (s - b_i)_+^{j-1} /
    (j - 1)!, b_i = -j mu + 2 i mu, and with y = s - b_i the antiderivative of y^n e^{nu y} / n!
    (n = j - 1) is F(y) = e^{nu y} P(y), P(y) = sum_q (-1)^{n-q} y^q / (q! nu^{n-q+1}); so for
    -j mu < x < j mu, int_{max(x, b_i)}^{j mu} = e^{nu b_i} (F(j mu - b_i) - F(max(x - b_i, 0))),
    and the piece is T - sum_{i < j} sign_i e^{nu b_i} F(max(x - b_i, 0)) with
    T = sum_{i < j} sign_i e^{nu b_i} F(j mu - b_i) (the last knot b_j = j mu adds nothing).
    Where x - b_i is not ordered against 0 by its ball, max(x - b_i, 0) is the ball
    [0, x - b_i] (the union: F is then enclosed over both). :meth:`antider` takes
    y = x - b_i from :meth:`ExactTails.tails`, which shares it between pieces."""

    def __init__(self, j: int, mu: arb, lam: arb) -> None:
        self.j, self.jm = j, j * mu
        n = j - 1
        self.b = [-self.jm + 2 * i * mu for i in range(j + 1)]
        sign = [(-1) ** i * comb(j, i) for i in range(j + 1)]
        self.nu, self.poly, self.c, self.total = [], [], [], []
        for nu in (lam, lam - 1):
            coef = [(-1) ** (n - q) / (math.factorial(q) * nu ** (n - q + 1)) for q in range(n + 1)]
            e_b = [(nu * b).exp() for b in self.b]
            c = [sign[i] * e_b[i] for i in range(j)]
            top = [ci * self._f(nu, coef, self.jm - b) for ci, b in zip(c, self.b, strict=False)]
            self.nu.append(nu)
            self.poly.append(arb_poly(coef))
            self.c.append(c)
            self.total.append(sum(top, arb(0)))

    @staticmethod
    def _f(nu: arb, coef: list, y: arb) -> arb:
        acc = coef[-1]
        for c in reversed(coef[:-1]):
            acc = acc * y + c
        return (nu * y).exp() * acc

    def antider(self, v: int, s: int, y_at, exps: dict) -> arb:
        """F(nu_v, max(y_s, 0)) (``y_at(s)``: the ball y_s and its sign against 0; ``exps``
        the shared e^{nu max(y_s, 0)} by (v, s))."""
        y, sign = y_at(s)
        if sign < 0:
            return self.poly[v](arb(0))
        if sign == 0:
            y = y.union(arb(0))
        key = (v, s)
        ex = exps.get(key)
        if ex is None:
            ex = exps[key] = (self.nu[v] * y).exp()
        return ex * self.poly[v](y)


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def _float_piece(x: np.ndarray, j: int, mu: float, lam: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Floats (int_{s > x} V_j e^{lam s} ds, e^x int_{s > x} V_j e^{(lam - 1) s} ds,
    V_j(x) e^{lam x}) for one piece of j >= 1 density components (``ExactPart._integral``),
    the B-spline's j + 1 terms along a last axis."""
    jm = j * mu
    xc = np.clip(x, -jm, jm)[..., None]
    b = -jm + 2 * mu * np.arange(j + 1)
    sign = np.array([(-1) ** i * comb(j, i) for i in range(j + 1)], dtype=np.float64)
    lo = np.maximum(xc, b)
    outs = [np.sum(sign * _float_poly_exp(j - 1, nu, b, lo, jm), axis=-1)
            for nu in (lam, lam - 1)]
    v = np.sum(sign * np.where(xc > b, np.abs(xc - b) ** (j - 1), 0.0), axis=-1) \
        / math.factorial(j - 1)
    inside = np.abs(x) < jm
    v = np.where(inside, v * np.exp(lam * xc[..., 0]), 0.0)
    return outs[0], np.exp(np.minimum(x, jm)) * outs[1], v


def _float_poly_exp(n: int, nu: float, b: np.ndarray, lo: np.ndarray, hi: float) -> np.ndarray:
    """Floats of int_lo^hi (s - b)^n / n! e^{nu s} ds (``cf_lattice._poly_exp``: the
    antiderivative e^{nu y} sum_q (-1)^{n-q} y^q / (q! nu^{n-q+1}), its polynomial by Horner's
    rule)."""
    coef = [(-1) ** (n - q) / (math.factorial(q) * nu ** (n - q + 1)) for q in range(n, -1, -1)]

    def anti(y):
        return np.exp(nu * y) * np.polyval(coef, y)

    return np.exp(nu * b) * (anti(hi - b) - anti(lo - b))


def _remainder_order(law, k: int, eps: float, rel: float, least: int = 0) -> int | None:
    """The least J >= ``least`` of ``split_terms(k)`` whose remainder's plan at eps is within
    MAX_WORK (as ``cf_route._split``, without trying the whole law: its tails are not
    certified); k + 1 where everything is summed exactly; None if none is affordable."""
    for J in split_terms(k):
        if J < least and J <= k:
            continue
        if J > k:
            return J
        try:
            if _work([(RemainderLaw(law, k, J), 1)], eps, rel) <= MAX_WORK:
                return J
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
            raise
        except (ValueError, RuntimeError, ArithmeticError):
            continue
    return None


class LatticeTails:
    """Certified Neyman-Pearson points of the k-fold product of ``law`` at any eps >= 0: the
    exact part's tails plus the remainder's (module docstring), its inverter planned at
    ``eps0`` to the relative width ``rel`` of the remainder's delta. ``J``: the split order
    (by default the least affordable at eps0 from ``least_J`` on, else from the least);
    ``exact``: an :class:`ExactTails` of the same law, k and J to share (its tables are kept
    per precision).

    The exact part is summed at its own precision (the digits asked plus the guard bits of its
    polynomial pieces, ``cf._exact_prec``), the remainder at its inverter's
    (``TailInverter.eval_prec``); the remainder's planning estimates are those of
    ``cf_split_tails`` (no scipy)."""

    def __init__(self, law, k: int, eps0: float, rel: float, J: int | None = None,
                 exact: ExactTails | None = None, least_J: int = 0) -> None:
        self.law, self.k = law, int(k)
        if J is None:
            J = _remainder_order(law, self.k, eps0, rel, least_J)
        if J is None and least_J:
            J = _remainder_order(law, self.k, eps0, rel)
        if J is None:
            raise ValueError(f"the remainder of {law}^{k} is beyond the planned work")
        self.part = ExactPart(law, self.k, J) if exact is None else exact.part
        self.exact = ExactTails(self.part) if exact is None else exact
        self.rest = None
        self.prec = cf._exact_prec(self.part, max(rel, REL_MIN))
        self.eval_prec = self.prec
        if J <= self.k:
            rest = [(RemainderLaw(law, self.k, J), 1)]
            inv, _ = cf._certified_inverter(rest, eps0, rel)
            self.rest = tail_inverter(rest, inv)
            if self.rest is None:
                raise ValueError("the remainder's tails are not certified")
            self.eval_prec = max(self.prec, self.rest.eval_prec)

    def point(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps), B(L > eps)."""
        with working_precision(self.prec):
            pa, pb = self.exact.tails(eps)
        r = None
        if self.rest is not None:
            r = self.rest.point(eps)
        with working_precision(self.eval_prec):
            e = arb(eps)
            zero, one = arb(0), arb(1)
            if r is not None:
                power = pa + r.power
                alpha = pb * (-e).exp() + r.alpha
            else:
                power, alpha = pa, pb * (-e).exp()
            power, alpha = _clip(power, zero, one), _clip(alpha, zero, one)
            delta = _clip(power - e.exp() * alpha, zero, one)
            if r is not None:  # (delta of each part too: the narrower meet)
                delta = _meet(delta, _clip(pa - pb + r.delta, zero, one))
            return TailPoint(eps, delta, power, alpha)

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """Floats (delta, power, alpha, d power / d eps, d alpha / d eps) at the array ``eps``
        (placement only; the atoms' jumps are not in the derivatives)."""
        e = np.asarray(eps, dtype=np.float64).ravel()
        pa, pb, dens = self.exact.estimate(e)
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            ee = np.exp(-e)
            power, alpha = pa, ee * pb
            dp, da = -dens, -ee * dens
            if self.rest is not None:
                _, rp, ra, rdp, rda = self.rest.estimate(e)
                power, alpha, dp, da = power + rp, alpha + ra, dp + rdp, da + rda
            # (e^eps alpha in logs: e^eps = +oo times an underflowed alpha = 0 was NaN)
            delta = power - np.exp(e + np.log(np.maximum(alpha, 0.0)))
        return delta, power, alpha, dp, da

    def error(self, eps: np.ndarray) -> np.ndarray:
        """Float estimate of the remainder's absolute error bound at the array ``eps`` (0
        where everything is summed exactly)."""
        e = np.asarray(eps, dtype=np.float64).ravel()
        return np.zeros_like(e) if self.rest is None else self.rest.error(e)


def eps_guess(factors: list[Factor], alpha: float) -> float:
    """Float saddle-point estimate of the threshold whose size B(L > eps) is ``alpha``
    (alpha ~ c delta e^{-eps}), by bisection below the largest loss k mu (no saddle point
    beyond it); a start for :func:`lattice_power_at`, which proves its own bracket."""
    law, k = factors[0]
    lo, hi = 0.0, k * float(law.mu)
    target = math.log(alpha)
    for _ in range(40):
        m = 0.5 * (lo + hi)
        try:
            c = cf._saddle(factors, m)
            v = math.log(c) + cf._log_delta_saddle(factors, c, m) - m
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
            raise
        except (ValueError, ArithmeticError, RuntimeError):
            hi = m
            continue
        lo, hi = (m, hi) if v > target else (lo, m)
    return 0.5 * (lo + hi)


#: Steps of the bracket search at one level.
MAX_STEPS = 80


def lattice_power_at(factors: list[Factor], alpha: Fraction | float, tol: float,
                     eps_guess: float) -> tuple[float, float] | None:
    """Certified (lo, hi) of the power 1 - f(alpha) of the k-fold product ``factors`` =
    [(law, k)] of a law with ``lattice_parts``, at the level 0 < alpha < 1 (a Fraction: its
    Arb ball; or a float), to the
    relative width ``tol`` where the search reaches it (module docstring); None where the level
    lies above a(0) (a threshold below 0) or the remainder is beyond the planned work. The
    remainder is planned at the guess, then (where the points' balls leave the bounds wider
    than ``tol``) re-planned a hundred times tighter at the threshold found, up to
    :data:`PLANS` times."""
    law, k = factors[0]
    rel = max(min(tol * 1e-3, 1e-7), REL_MIN)
    best = None
    e0 = max(eps_guess, 0.0)
    for _ in range(PLANS):
        try:
            tails = LatticeTails(law, k, e0, rel)
        except budget.TimeLimitExceeded:  # (an ArithmeticError too: never a declined route)
            raise
        except (ValueError, ArithmeticError, RuntimeError):
            break
        got = _search(tails, alpha, tol, e0)
        if got is None:
            break
        lo, hi, e0 = got
        best = (lo, hi) if best is None else (max(best[0], lo), min(best[1], hi))
        if best[1] - best[0] <= tol * best[1] or rel <= REL_MIN or tails.rest is None:
            break
        rel = max(rel * 1e-2, REL_MIN)
    return best


#: Plans of the remainder at one level (each a hundred times tighter).
PLANS = 3


def _search(tails: LatticeTails, level: Fraction | float, tol: float,
            eps_guess: float) -> tuple[float, float, float] | None:
    """(lo, hi, eps) of :func:`lattice_power_at` from one set of tails: the bounds and the
    threshold reached."""
    alpha = float(level)
    with working_precision(tails.prec):
        a_t = (arb(fmpq(level.numerator, level.denominator)) if isinstance(level, Fraction)
               else arb(level))
    pts: dict = {}

    def at(e: float) -> TailPoint:
        if e not in pts:
            pts[e] = tails.point(e)
        return pts[e]

    def mid_a(p: TailPoint) -> float:
        return float(p.alpha.mid())

    # the bracket e_lo < e_hi: a(e_lo) >= alpha >= a(e_hi), proved by the balls' ends
    e_lo, e_hi = 0.0, None
    if not at(0.0).alpha.lower() >= a_t:
        return None
    e = max(eps_guess, 1e-3)
    for _ in range(60):
        p = at(e)
        if p.alpha.upper() <= a_t:
            e_hi = e
            break
        if p.alpha.lower() >= a_t:
            e_lo = e
        e = e * 1.5 + 0.5
    if e_hi is None:
        return None
    hi_bound = math.inf
    lo_bound = 0.0
    with working_precision(tails.prec):
        for step in range(MAX_STEPS):
            budget.check()
            pl, ph = at(e_lo), at(e_hi)
            for q in (pl, ph):  # the support lines
                hi_bound = min(hi_bound, upper(q.delta + (arb(q.eps).exp()) * a_t))
            # the chord at alpha (x1 = a(e_hi) <= alpha <= x2 = a(e_lo))
            x1, y1, x2, y2 = ph.alpha, ph.power, pl.alpha, pl.power
            # and the line from (x1, y1) of slope e^{e_lo}, at most the curve's slope on
            # [x1, alpha] (well conditioned where the bracket straddles an atom's jump)
            lo_bound = max(lo_bound, lower(y1 + arb(e_lo).exp() * (a_t - x1)))
            if x2.lower() > x1.upper():
                chord = y1 + (y2 - y1) * (a_t - x1) / (x2 - x1)
                lo_bound = max(lo_bound, lower(chord))
            hi_bound = min(hi_bound, 1.0)
            if hi_bound - lo_bound <= tol * hi_bound:
                break
            if e_hi - e_lo <= 4 * math.ulp(e_hi):
                break
            # the next threshold: a secant on log a, or the midpoint every other step
            g_lo, g_hi = mid_a(pl), mid_a(ph)
            m = 0.5 * (e_lo + e_hi)
            if step % 2 == 0 and g_lo > 0 and g_hi > 0 and g_lo != g_hi:
                s = e_hi - (math.log(g_hi) - math.log(alpha)) * (e_hi - e_lo) / (
                    math.log(g_hi) - math.log(g_lo))
                if e_lo < s < e_hi:
                    # (a step just inside the bracket's end, so that it shrinks from both)
                    w = (e_hi - e_lo) * 1e-3
                    m = min(max(s, e_lo + w), e_hi - w)
            q = at(m)
            if q.alpha.upper() <= a_t:
                e_hi = m
            elif q.alpha.lower() >= a_t:
                e_lo = m
            else:  # undecided: the ball holds alpha; both sides of it are close
                hi_bound = min(hi_bound, upper(q.delta + arb(m).exp() * a_t))
                w = (e_hi - e_lo) * 1e-6
                if not (at(min(m + w, e_hi)).alpha.upper() <= a_t
                        and at(max(m - w, e_lo)).alpha.lower() >= a_t):
                    break
                e_lo, e_hi = max(m - w, e_lo), min(m + w, e_hi)
    if not lo_bound <= hi_bound:
        return None
    return lo_bound, hi_bound, 0.5 * (e_lo + e_hi)
