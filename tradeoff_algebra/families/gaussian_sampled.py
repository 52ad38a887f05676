"""The Poisson-subsampled Gaussian mechanism's loss law for the certified Laplace inversion
(:mod:`~tradeoff_algebra.numeric.cf`): the Arb view of ``Mix(G_mu, q)`` and of its inverse,
which the Gaussian family gives the Mix operator through its loss's ``mixed_law`` hook
(``families/gaussian.py``).

``SubsampledGaussianLaw(mu, q, direction)`` is the pair (1 - q) N(0, 1) + q N(mu, 1) against
N(0, 1): ``"remove"`` has the mixture as A (``Mix(G_mu, q)`` of Dong, Roth & Su, Sec. 4.1),
``"add"`` as B (its inverse), optionally cut at (X, sigma): the sub-probability measure
w A, w(x) = Phi_c((x - X) / sigma), for the products whose whole law's moment generating
function is dominated by its far tail. The class docstring proves the bounds it uses. One and
two steps, too few for the inversion, give their profile directly (``few_step_delta``,
:mod:`.gaussian_sampled_profile`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import acb, arb, ctx

from ..numeric import budget
from ..numeric.cf_laws import (
    Number,
    log_sqrt_2pi,
    logsumexp,
    lower,
    norm_sf,
    to_arb,
    to_fraction,
    upper,
    working_precision,
)
from .gaussian_sampled_hull import SampledGaussianHullLaw, hull_law
from .gaussian_sampled_poly import SampledGaussianPolyLaw
from .gaussian_sampled_profile import MAX_STEPS, few_step_delta
from .gaussian_sampled_seed import float_epsilon
from .gaussian_sampled_tails import OneStepTails, TwoStepTails
from .gaussian_sampled_tilt import _Tilt

__all__ = ["SubsampledGaussianLaw", "sampled_law"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: the decay bound's first grid of theta (SubsampledGaussianLaw._best_theta)
_THETA_GRID = math.pi / 2 * np.geomspace(1e-9, 1.0, 32)
_CACHE_LIMIT = 64
#: The largest step in x of the float planning sums (log M, cumulants, the decay estimate).
#: Their integrands phi(x) e^{e l(x)} are analytic in the strip |Im x| < pi / mu (l's branch
#: points, where 1 - q + q Y = 0) and, in the remove direction (e >= 1), at least as wide as
#: phi (l is convex in x); the trapezoidal error of such a sum is about e^{-2 pi d / h} at
#: strip half-width d: at h = 0.2 and d = 3, e^{-94}. Estimates only (the certified bounds are
#: the law's Arb ones): log M, its first two cumulants and the vectorised log M agree with the
#: step 0.01 to 1e-12 at sigma = 0.8 .. 4, c up to 3000, tests/test_dpsgd_far_tail.py (was
#: 0.1: DP-SGD, sigma = 4, the plans the same, about 10 % of an eps(1e-5) at the default
#: tolerance).
PLAN_STEP = 0.2


@dataclass
class _FloatTilt:
    """Float trapezoidal data of the tilted density g_c (planning only)."""

    log_w: np.ndarray  # log of h * g_c(x_j)
    loss: np.ndarray  # L(x_j)
    s: np.ndarray  # s(x_j) = qY / (1 - q + qY)
    log_m: float  # log M(c)


class SubsampledGaussianLaw:
    """Poisson-subsampled Gaussian mechanism, one direction.

    With Y = exp(mu x - mu^2/2) and l(x) = log(1 - q + q Y):
      "remove": A = (1-q) N(0,1) + q N(mu,1), B = N(0,1),  L = l(x),  x ~ A;
      "add":    A = N(0,1), B = (1-q) N(0,1) + q N(mu,1),  L = -l(x), x ~ A.
    In both cases M(z) = int phi(x) exp((alpha + sign z) l(x)) dx with
    (alpha, sign) = (1, 1) for remove and (0, -1) for add, and the tilted density
    g_c(x) = phi(x) exp(e l(x)), e = alpha + sign c, integrates to M(c).

    Proofs behind the rigorous bounds (w = 1 - q + q Y exp(i mu y) at x + iy):
    * Analyticity: |arg w| <= mu |y| (adding the positive 1 - q to q Y e^{i mu y}
      moves it towards the positive axis), so the integrand is analytic for
      |y| < pi / mu, and |w| <= 1 - q + q Y.  Also |w| >= (1 - q + qY) cos(mu y/2)
      (expand |a + r e^{iv}|^2 - (a + r)^2 cos^2(v/2) = (1 - cos v)(a - r)^2 / 2).
      With |phi(x + iy)| = phi(x) exp(y^2/2) this gives
        int |f(x + iy)| dx <= exp(y^2/2 + |t| mu |y|) kappa(y) M(c),
      kappa = 1 (e >= 0) or cos(mu y / 2)^e (e < 0), so by Trefethen & Weideman
      (SIAM Rev. 2014, Thm 5.1) the infinite trapezoidal sum with step h errs by
      at most 2 exp(b^2/2 + |t| mu b) kappa(b) M(c) / (exp(2 pi b / h) - 1).
      M(c) itself is bounded self-consistently: M(c) <= I_h / (1 - rho_0).
    * Omitted nodes: on the real line |f| = g_c.  For x <= 0: l <= 0 and
      l >= log(1-q), so g_c <= phi(x) (e >= 0) or (1-q)^e phi(x) (e < 0), an
      increasing bound, whose node sum beyond the last node is at most its
      integral.  For x >= mu/2 (Y >= 1): if e >= 0, 1 - q + qY <= rho Y with
      rho = min(1, q + (1-q)/Y(x_last)), so g_c <= rho^e exp(mu^2 e(e-1)/2)
      phi(x - e mu), decreasing for x >= e mu; if e < 0, g_c <= phi(x) and
      g_c <= q^e exp(mu^2 e(e-1)/2) phi(x - e mu).
    * Decay (`decay_bound`): shifting the contour to Im x = b (remove) or -b
      (add), 0 < theta = mu b <= pi/2, gives arg-terms |arg w| >= s sin(theta)
      with s = qY/(1 - q + qY), hence for t' >= t >= 0
        |M(c + it')| <= exp(b^2/2) kappa(b) K(t sin theta),
        K(tau) = int g_c(x) exp(-tau s(x)) dx,
      K decreasing in tau; K is enclosed by a trapezoidal sum as above.
    * Power decay (`power_decay`): integrating by parts in y = L(x),
      |M(c + it)| <= TV(W) / |t| with W = g_c / |L'| = phi exp((e+1) l) / (mu q Y),
      which vanishes at +-infinity.  (log W)' = -x + (e+1) mu s - mu has
      derivative -1 + (e+1) mu^2 s(1-s); s(1-s) is unimodal in x, so (log W)'
      has at most 3 zeros, W at most two local maxima, and TV(W) <= 4 sup W.
    * A cut (X, sigma) (`truncated`, `cut_for`): the measure w A, w(x) = Phi_c((x - X)/sigma)
      in (0, 1), entire, with |w(x + iy)| <= exp(y^2 / (2 sigma^2)) w(x) (integrate phi along
      the horizontal ray from (x - X + iy)/sigma: |phi(u + iv)| = phi(u) e^{v^2/2}). Every
      strip bound above holds for g_c w with exp(b^2/2) replaced by exp(wfac b^2/2),
      wfac = 1 + 1/sigma^2, and M(c) by M_w(c); the omitted nodes below 0 keep their bound
      (w <= 1), those above max(m, X, mu/2, 0) use w <= exp(-(x - X)^2/(2 sigma^2))/2 for
      x >= X, which times phi(x - e mu) is exp(-(e mu - X)^2/(2(1 + sigma^2))) times a normal
      density of variance tau^2 = sigma^2/(1 + sigma^2) about m = (e mu + X/sigma^2)/wfac;
      TV(W w) <= TV(W) + sup W (w decreasing in (0, 1)). The mass left out,
      E_A[1 - w] = P(x + sigma Z > X), is a sum of normal tails of variance 1 + sigma^2.
      A cut keeps M_w(c) that of the bulk where M(c) = E[(1 - q + qY)^{c+1}] is dominated by
      Y's far tail (x near (c + 1) mu, mass below e^{-c^2 mu^2/2}); what it changes in a
      product's profile is bounded in ``numeric/cf_route.py``.
    """

    def __init__(self, mu: Number, q: Number, direction: str,
                 cut: tuple[Number, Number] | None = None) -> None:
        if direction not in ("remove", "add"):
            raise ValueError("direction must be 'remove' or 'add'")
        #: (X, sigma): the measure A weighted by w(x) = Phi_c((x - X) / sigma), or None
        self.cut = None if cut is None else (to_fraction(cut[0]), to_fraction(cut[1]))
        if self.cut is not None and not self.cut[1] > 0:
            raise ValueError(f"cut sigma must be > 0, got {cut[1]}")
        #: 1 + 1/sigma^2: |w(x + iy)| <= exp(y^2 / (2 sigma^2)) w(x) widens every strip bound
        self.wfac = 1.0 if self.cut is None else 1.0 + 1.0 / float(self.cut[1]) ** 2
        self._mu = to_fraction(mu)
        self._q = to_fraction(q)
        if not (0 < self._q <= 1) or (self._q == 1 and direction == "add") or self._mu <= 0:
            raise ValueError("need mu > 0 and 0 < q <= 1 (q < 1 for 'add')")
        self.mu = float(self._mu)
        self.q = float(self._q)
        self.direction = direction
        self._alpha, self._sign = (1, 1) if direction == "remove" else (0, -1)
        self._q_is_one = self._q == 1
        self._tilts: dict[tuple[str, int], _Tilt] = {}
        self._float_tilts: dict[float, _FloatTilt] = {}
        self._power: dict[tuple[str, int], tuple[arb, int]] = {}
        self._cuts: dict[tuple[Fraction, Fraction], SubsampledGaussianLaw] = {}
        self._flat: SampledGaussianPolyLaw | None = None
        self._thetas: dict[tuple[float, float], tuple[float, float]] = {}

    @classmethod
    def from_sigma(cls, sigma: Number, q: Number, direction: str) -> SubsampledGaussianLaw:
        """The law with noise standard deviation sigma (sensitivity 1): mu = 1/sigma."""
        return cls(1 / to_fraction(sigma), q, direction)

    def _cut_arb(self) -> tuple[arb, arb]:
        return to_arb(self.cut[0]), to_arb(self.cut[1])

    def _wfac_arb(self) -> arb:
        if self.cut is None:
            return arb(1)
        return 1 + 1 / to_arb(self.cut[1]) ** 2

    def truncated(self, x_cut: Number, sigma: Number = 1) -> SubsampledGaussianLaw:
        """This law cut at (X, sigma): the sub-probability measure w(x) A(dx) with the entire
        weight w(x) = Phi_c((x - X) / sigma) in (0, 1); the mass it leaves out is at most
        :meth:`tail_mass`, and every hockey-stick divergence of a product moves by at most the
        sum of the factors' left-out masses (1 - prod w_i <= sum (1 - w_i))."""
        key = (to_fraction(x_cut), to_fraction(sigma))
        law = self._cuts.get(key)
        if law is None:
            if len(self._cuts) >= _CACHE_LIMIT:
                self._cuts.pop(next(iter(self._cuts)))
            law = self._cuts[key] = SubsampledGaussianLaw(self._mu, self._q, self.direction, key)
        return law

    def tail_mass(self) -> arb:
        """E_A[1 - w(x)] = P(x + sigma Z > X), Z ~ N(0, 1) independent of x ~ A (exact: a sum
        of normal tails of variance 1 + sigma^2); 0 without a cut."""
        if self.cut is None:
            return arb(0)
        x_cut, sig = self._cut_arb()
        sd = (1 + sig * sig).sqrt()
        if self.direction == "add":  # A = N(0, 1)
            return norm_sf(x_cut / sd)
        q = self._q_arb()
        return (1 - q) * norm_sf(x_cut / sd) + q * norm_sf((x_cut - self._mu_arb()) / sd)

    def cut_for(self, eta: float, c_max: float) -> SubsampledGaussianLaw:
        """A cut (X, sigma) whose :meth:`tail_mass` is at most ``eta`` (certified in Arb) and
        whose weight keeps the tilted integrand g_c w beyond X below e^-60 for c <= ``c_max``
        (the contour abscissas the inversion will use): sigma the largest of 1, 1/2, ...,
        1/64 doing so (a narrower weight narrows the strips: wfac = 1 + 1/sigma^2), X the
        smallest multiple of 1/4 then meeting ``eta``."""
        m = 0.0 if self.direction == "add" else self.mu
        e = self._alpha + self._sign * c_max
        law = None
        for k in range(7):
            sig = Fraction(1, 2**k)
            sd = math.sqrt(1 + float(sig) ** 2)
            x = max(4.0, m + sd * _inverse_sf(eta)) if eta > 0 else 40.0
            x = math.ceil(4 * x) / 4
            law = self.truncated(Fraction(x).limit_denominator(4), sig)
            while upper(law.tail_mass()) > eta and x < 1e4:
                x += 0.25
                law = self.truncated(Fraction(x).limit_denominator(4), sig)
            u = np.linspace(x, x + 40 * float(sig) + 300 / max(e * self.mu, 1.0), 4000)
            v = self.mu * u - self.mu**2 / 2
            ell = v if self._q_is_one else np.logaddexp(math.log1p(-self.q), math.log(self.q) + v)
            log_f = -u * u / 2 - _LOG_SQRT_2PI + e * ell + _log_ndtr(-(u - x) / float(sig))
            if float(np.max(log_f)) < -60:
                break
        return law

    def _mu_arb(self) -> arb:
        return to_arb(self._mu)

    def _q_arb(self) -> arb:
        return to_arb(self._q)

    # -- planning (floats)
    def _plan_step(self) -> float:
        """The step in x of the float planning sums (:meth:`_float_tilt`, :meth:`log_mgf_many`):
        min(PLAN_STEP, 0.2 / mu)."""
        return min(PLAN_STEP, 0.2 / self.mu)

    def _float_tilt(self, c: float) -> _FloatTilt:
        ft = self._float_tilts.get(c)
        if ft is not None:
            return ft
        mu, q = self.mu, self.q
        e = self._alpha + self._sign * c
        h = self._plan_step()
        lo, hi = -12.0, max(e * mu, 0.0) + 12.0
        if self.cut is not None:
            hi = min(hi, max(float(self.cut[0]), 0.0) + 12.0)

        def terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            v = mu * x - mu * mu / 2
            ell = v if self._q_is_one else np.logaddexp(math.log1p(-q), math.log(q) + v)
            log_g = -x * x / 2 - _LOG_SQRT_2PI + e * ell + math.log(h)
            if self.cut is not None:
                log_g = log_g + _log_ndtr(-(x - float(self.cut[0])) / float(self.cut[1]))
            return log_g, v, ell

        x, (log_g, v, ell) = _tilt_window(lo, hi, h, terms)
        # keep the span above top - 90 and one node either side (the rest is below e^-90 of
        # the largest term: nothing in float64)
        i = np.flatnonzero(log_g > log_g.max() - 90)
        keep = slice(max(int(i[0]) - 1, 0), int(i[-1]) + 2)
        x, log_g, v, ell = x[keep], log_g[keep], v[keep], ell[keep]
        s = np.ones_like(x) if self._q_is_one else np.exp(math.log(q) + v - ell)
        ft = _FloatTilt(log_g, self._sign * ell, s, logsumexp(log_g))
        if len(self._float_tilts) >= 16 * _CACHE_LIMIT:
            self._float_tilts.clear()
        self._float_tilts[c] = ft
        return ft

    def log_mgf_many(self, cs: np.ndarray) -> np.ndarray:
        """Float log M(c) at many c at once (the planner's strip search asks about a hundred):
        the Riemann sums of :meth:`_float_tilt` on one grid wide enough for every c (its ends
        90 below each row's largest term, as there)."""
        cs = np.asarray(cs, dtype=float)
        mu, q = self.mu, self.q
        e = self._alpha + self._sign * cs
        h = self._plan_step()
        lo, hi = -12.0, max(float(np.max(e)) * mu, 0.0) + 12.0
        if self.cut is not None:
            hi = min(hi, max(float(self.cut[0]), 0.0) + 12.0)
        def terms(x: np.ndarray) -> tuple[np.ndarray]:
            v = mu * x - mu * mu / 2
            ell = v if self._q_is_one else np.logaddexp(math.log1p(-q), math.log(q) + v)
            base = -x * x / 2 - _LOG_SQRT_2PI + math.log(h)
            if self.cut is not None:
                base = base + _log_ndtr(-(x - float(self.cut[0])) / float(self.cut[1]))
            return (base[None, :] + e[:, None] * ell[None, :],)

        return logsumexp(_tilt_window(lo, hi, h, terms)[1][0], axis=1)

    def cumulants(self, c: float) -> tuple[float, float, float]:
        ft = self._float_tilt(c)
        w = np.exp(ft.log_w - ft.log_m)
        m1 = float(np.dot(w, ft.loss))
        var = float(np.dot(w, (ft.loss - m1) ** 2))
        return ft.log_m, m1, var

    def _best_theta(self, c: float, t: float) -> tuple[float, float]:
        """Float minimiser theta in (0, pi/2] of the decay bound at t, and its log.

        A geometric grid (the optimum is near mu^2 t E[s] for small t) followed
        by a uniform grid between the best point's neighbours (two vectorised evaluations: the
        planner asks a few hundred (c, t); any theta gives a valid bound, this one only makes
        it small).
        """
        got = self._thetas.get((c, t))
        if got is not None:  # (the planner asks the same (c, t) in each of its trials)
            return got
        ft = self._float_tilt(c)
        e = self._alpha + self._sign * c

        def objective(theta: np.ndarray) -> np.ndarray:
            log_k = logsumexp(
                ft.log_w[None, :] - (t * np.sin(theta))[:, None] * ft.s[None, :], axis=1
            )
            return (self.wfac * theta**2 / (2 * self.mu**2)
                    + min(e, 0.0) * np.log(np.cos(theta / 2)) + log_k)

        grid = _THETA_GRID
        vals = objective(grid)
        i = int(np.argmin(vals))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
        best_theta, best_val = float(grid[i]), float(vals[i])
        fine = np.linspace(lo, hi, 17)[1:-1]
        v = objective(fine)
        j = int(np.argmin(v))
        if v[j] < best_val:
            best_theta, best_val = float(fine[j]), float(v[j])
        if len(self._thetas) >= 64 * _CACHE_LIMIT:
            self._thetas.clear()
        self._thetas[(c, t)] = (best_theta, best_val)
        return best_theta, best_val

    def log_decay_estimate(self, c: float, t: float) -> float:
        return min(self._float_tilt(c).log_m, self._best_theta(c, t)[1])

    def log_decay_estimates(self, c: float, ts) -> list[float]:
        """:meth:`log_decay_estimate` at every t of ``ts`` at once (read by ``numeric.cf``'s
        tail planner, which walks a chain of t's per trial: DP-SGD, sigma = 4, T = 10, 33
        single calls of about 0.15 ms): the same two grids of theta per t as
        :meth:`_best_theta`, each a row of one array, so the same values, kept in its cache."""
        ft = self._float_tilt(c)
        todo = [t for t in dict.fromkeys(float(t) for t in ts) if (c, t) not in self._thetas]
        if todo:
            e = self._alpha + self._sign * c
            tv = np.asarray(todo)

            def objective(theta: np.ndarray) -> np.ndarray:  # (theta: one row per t)
                log_k = logsumexp(ft.log_w[None, None, :]
                                  - (tv[:, None] * np.sin(theta))[:, :, None] * ft.s[None, None, :],
                                  axis=2)
                return (self.wfac * theta**2 / (2 * self.mu**2)
                        + min(e, 0.0) * np.log(np.cos(theta / 2)) + log_k)

            grid = _THETA_GRID
            vals = objective(np.broadcast_to(grid, (len(todo), len(grid))))
            i = np.argmin(vals, axis=1)
            lo = grid[np.maximum(i - 1, 0)]
            hi = grid[np.minimum(i + 1, len(grid) - 1)]
            fine = np.linspace(lo, hi, 17, axis=1)[:, 1:-1]
            v = objective(fine)
            j = np.argmin(v, axis=1)
            if len(self._thetas) + len(todo) > 64 * _CACHE_LIMIT:
                self._thetas.clear()
            for r, t in enumerate(todo):
                best = (float(grid[i[r]]), float(vals[r, i[r]]))
                if v[r, j[r]] < best[1]:
                    best = (float(fine[r, j[r]]), float(v[r, j[r]]))
                self._thetas[(c, t)] = best
        return [min(ft.log_m, self._thetas[(c, float(t))][1]) for t in ts]

    # -- rigorous
    def _tilt(self, c: arb) -> _Tilt:
        key = (c.str(radius=True, more=True), ctx.prec)
        tilt = self._tilts.get(key)
        if tilt is None:
            if len(self._tilts) >= _CACHE_LIMIT:
                self._tilts.pop(next(iter(self._tilts)))
            tilt = _Tilt(self, c)
            self._tilts[key] = tilt
        return tilt

    def mgf(self, z: acb) -> acb:
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        return self._tilt(z.real).mgf(z.imag)

    def decay_bound(self, c: arb, t: arb) -> arb:
        tilt = self._tilt(c)
        theta, _ = self._best_theta(float(c.mid()), lower(t))
        th = arb(theta)
        b = th / tilt.mu
        bound = (self._wfac_arb() * b * b / 2).exp() * tilt.k_integral(t * th.sin())
        if tilt.e_float < 0:
            bound *= (th / 2).cos() ** tilt.e
        return arb(min(upper(bound), upper(tilt.m_upper)))

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        key = (c.mid().man_exp(), c.rad().man_exp(), ctx.prec)
        if key not in self._power:
            # a cut multiplies W by the decreasing w in (0, 1): TV(W w) <= TV(W) + sup W
            self._power[key] = ((4 if self.cut is None else 5) * self._sup_w(c), 1)
        return self._power[key]

    def log_power_decay_estimate(self, c: float) -> tuple[float, int]:
        """Float estimate of log V and p of :meth:`power_decay` for the planner, modelling that
        bound as :meth:`_sup_w` makes it: the larger of its analytic bounds outside [a, b] and
        the largest log W on a grid of step 0.01 inside (its boxes' bound, up to 0.01); +oo
        where V exceeds every float, as the ball's float upper end then does (the planner's
        model only: the inversion's truncation takes the certified ball)."""
        key = ("float", c)
        got = self._power.get(key)
        if got is None:
            mu, q = self.mu, self.q
            e = self._alpha + self._sign * c
            log_muq = math.log(mu * q)
            a = -mu - 10.0
            width = 0.05
            b = a + width * math.ceil((max(e * mu, mu, 0.0) + 10.0 - a) / width)
            x = np.arange(a, b + 0.01, 0.01)
            v = mu * x - mu * mu / 2
            ell = v if self._q_is_one else np.log1p(q * np.expm1(v))
            inner = float(np.max(-x * x / 2 - _LOG_SQRT_2PI + (e + 1) * ell - v - log_muq))
            log_phi = lambda u: -u * u / 2 - _LOG_SQRT_2PI  # noqa: E731
            c_lo = 0.0 if self._q_is_one else max(0.0, (e + 1) * math.log1p(-q))
            left = c_lo + log_phi(a + mu) + mu * mu - log_muq
            if e + 1 >= 0:
                right = log_phi(b - e * mu) + mu * mu * e * (e - 1) / 2 - log_muq
            else:
                right = log_phi(b + mu) + mu * mu - log_muq
            log_v = math.log(4 if self.cut is None else 5) + max(inner, left, right)
            got = self._power[key] = (log_v if log_v < 709.0 else math.inf, 1)
        return got

    def _sup_w(self, c: arb) -> arb:
        """Upper bound of sup_x W(x), W = phi(x) exp((e+1) l(x)) / (mu q Y(x))."""
        mu, q = self._mu_arb(), self._q_arb()
        e = self._alpha + self._sign * c
        log_muq = (mu * q).log()

        def log_w(x: arb) -> arb:
            v = mu * x - mu * mu / 2
            ell = v if self._q_is_one else (q * v.expm1()).log1p()
            return -x * x / 2 - log_sqrt_2pi() + (e + 1) * ell - v - log_muq

        width = 0.05
        a = -self.mu - 10.0
        n_boxes = math.ceil((max(upper(e * mu), self.mu, 0.0) + 10.0 - a) / width)
        boxes = [(a + i * width, a + (i + 1) * width) for i in range(n_boxes)]
        b = boxes[-1][1]  # [a, b] is covered by the boxes; b >= max(e mu, mu) + 10
        box = lambda lo, hi: arb((lo + hi) / 2, (hi - lo) / 2 * (1 + 1e-9))  # noqa: E731
        # Analytic bounds of log W outside [a, b] (monotone there, see class docstring).
        c_lo = arb(1).max((1 - q) ** (e + 1)) if not self._q_is_one else arb(1)
        log_phi = lambda u: -u * u / 2 - log_sqrt_2pi()  # noqa: E731
        left = c_lo.log() + log_phi(arb(a) + mu) + mu * mu - log_muq
        if float((e + 1).mid()) >= 0:
            right = log_phi(arb(b) - e * mu) + mu * mu * e * (e - 1) / 2 - log_muq
        else:
            right = log_phi(arb(b) + mu) + mu * mu - log_muq
        best = max(upper(left), upper(right))
        # Branch and bound on [a, b] with interval evaluation of log W.
        floor_val = max(lower(log_w(arb((lo + hi) / 2))) for lo, hi in boxes)
        for _ in range(12):
            keep = []
            for lo, hi in boxes:
                ub = upper(log_w(box(lo, hi)))
                if ub > floor_val + 0.01:
                    mid = (lo + hi) / 2
                    keep += [(lo, mid), (mid, hi)]
                else:
                    best = max(best, ub)
            boxes = keep
            if not boxes:
                break
        for lo, hi in boxes:
            best = max(best, upper(log_w(box(lo, hi))))
        return arb(upper(arb(best).exp()))

    def loss_sup(self) -> arb | None:
        if self.direction == "remove":
            return None
        return -(1 - self._q_arb()).log()

    def few_step_delta(self, n: int, eps: float | None, rel: float | None
                       ) -> tuple[float, float] | None:
        """Float bounds of a certified ball of delta(eps) of this law's n-fold product for
        n <= 2 (one step: a closed form in Phi; two: a certified one-dimensional integral of it,
        :mod:`.gaussian_sampled_profile`), to relative width ``rel``; None for more steps or a
        cut law (``eps`` None: only whether the power is answered, a tuple (0, 0))."""
        if self.cut is not None or not 1 <= n <= MAX_STEPS:
            return None
        if eps is None:
            return 0.0, 0.0
        with working_precision(64):
            return few_step_delta(self, n, eps, rel)

    def float_epsilon(self, n: int, delta: float) -> tuple[float, float] | None:
        """Float estimates (eps, -d log delta / d eps) at eps(delta) of the n-fold power (the
        remove direction, uncut: a float PLD of one FFT, :mod:`.gaussian_sampled_seed`), or
        None; the certified eps search's seed (``numeric/cf_saddle._seed_epsilon``)."""
        return float_epsilon(self, n, delta)

    def flat_view(self) -> SampledGaussianPolyLaw:
        """This (uncut) law with M(c + it) from a Chebyshev model of its tilted loss density, at
        a cost flat in t (:mod:`.gaussian_sampled_poly`; ``numeric/cf_flat.py`` takes it where
        the estimated time is smaller), kept."""
        if self._flat is None:
            self._flat = SampledGaussianPolyLaw(self)
        return self._flat

    def few_step_tails(self, n: int, rel: float) -> OneStepTails | TwoStepTails | None:
        """The certified Neyman-Pearson points (delta, power, size at every threshold) of this
        law's n-fold product for n = 1 (closed forms in Phi) and n = 2 (certified integrals of
        them), :mod:`.gaussian_sampled_tails`, with the interface of
        ``numeric.cf_tails.TailInverter``, to relative width ``rel``; None for more steps or a
        cut law."""
        if self.cut is not None or n not in (1, 2):
            return None
        return OneStepTails(self, rel) if n == 1 else TwoStepTails(self, rel)

    #: Products with a subsampled factor have no closed form (the inversion answers them).
    closed_under_tensor = False
    #: The inversion's planner tries abscissas below the saddle point (``numeric.cf._make_plan``):
    #: M(c) grows like e^{mu^2 c^2 / 2} once the far tail of Y dominates, just above it.
    scan_contour = True

    def inverse(self) -> SubsampledGaussianLaw:
        """The other direction: Mix(G_mu, q)^{-1} is "add" (Dong, Roth & Su, Sec. 2.1)."""
        return sampled_law(self._mu, self._q, "add" if self.direction == "remove" else "remove")

    def symmetric_hull(self) -> SampledGaussianHullLaw | None:
        """The law of C_q(G_mu) = min{f_q, f_q^{-1}}^{**} (Dong, Roth & Su, Def. 6 and Eq. (13)),
        the symmetric hull of either direction (:mod:`.gaussian_sampled_hull`), or None for a cut
        law or q = 1 (C_1(G_mu) = G_mu)."""
        if self.cut is not None or self._q_is_one:
            return None
        return hull_law(self._mu, self._q)


@lru_cache(maxsize=32)
def sampled_law(mu: Number, q: Number, direction: str) -> SubsampledGaussianLaw:
    """One law per (mu, q, direction), kept: its tilts (and its cuts) are cached across
    calls."""
    return SubsampledGaussianLaw(mu, q, direction)


def _inverse_sf(p: float) -> float:
    """Float u >= 0 with P(N(0, 1) > u) about p (a starting point: the cut's mass is certified
    by Arb), by bisection."""
    lo, hi = 0.0, 40.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 0.5 * math.erfc(mid / math.sqrt(2)) > p else (lo, mid)
    return hi


def _tilt_window(lo: float, hi: float, h: float, terms):
    """The float grid x = lo', lo' + h, ... <= hi' + h of the planning sums, with ``terms(x)``
    on it (its first item the log terms, one row per tilt): [lo, hi] widened outward until the
    end terms of every row lie 90 below the row's largest (the rest of the line then adds less
    than e^-90 of the sum for the log-concave tails here). Each widening doubles the previous
    one on that side (8, 16, 32, ...), so a tilt peaked far out (x ~ (1 + c) mu at large c) is
    reached in O(log) passes of total cost about twice the last grid, not in thousands of steps
    of 8; the deadline is checked on every pass."""
    step_lo = step_hi = 8.0
    while True:
        budget.check()
        x = np.arange(lo, hi + h, h)
        out = terms(x)
        log_g = np.atleast_2d(out[0])
        top = log_g.max(axis=1)
        if np.any(log_g[:, 0] > top - 90):
            lo, step_lo = lo - step_lo, 2 * step_lo
        elif np.any(log_g[:, -1] > top - 90):
            hi, step_hi = hi + step_hi, 2 * step_hi
        else:
            return x, out


def _log_ndtr(u: np.ndarray) -> np.ndarray:
    """Float log P(N(0, 1) < u), elementwise (planning only; scipy is loaded at first use)."""
    from scipy.special import log_ndtr

    return log_ndtr(u)
