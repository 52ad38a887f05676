"""The loss law of one replace-one step of Poisson-subsampled Gaussian DP-SGD for the certified
Laplace inversion (:mod:`~tradeoff_algebra.numeric.cf`): the Arb view of
``PoissonReplace(mu, q)``'s privacy loss, so that ``PoissonReplace(mu, q)**k`` is certified.

The pair is P = (1 - q) N(0, 1) + q N(mu, 1) against Q = (1 - q) N(0, 1) + q N(-mu, 1). With
r(x) = q e^{mu x - mu^2/2} and lam(x) = log a(x), a(x) = 1 - q + r(x), the densities are
p = phi a(x) and q = phi a(-x), the loss L(x) = log(dP/dQ)(x) = lam(x) - lam(-x) (increasing,
unbounded on both sides: L ~ mu x + log(q e^{-mu^2/2}/(1 - q)) as x -> +oo) and

    M(z) = E_P[e^{z L}] = int phi(x) exp((1 + z) lam(x) - z lam(-x)) dx,

the tilted density g_c(x) = phi(x) exp(lam(x) + c L(x)) integrating to M(c). The reflection
x -> -x exchanges P and Q, so the swapped pair's loss -L under Q has the same law: the law is
its own inverse. :class:`ReplaceLaw` proves every bound it uses in its docstring.

Few steps. The loss's central part (|x| below -log(w)/mu, w = q e^{-mu^2/2}/(1 - q)) is about
2 w mu wide, so |M(c + it)| decays only from t ~ 1/(q mu) and k steps need |t| up to
~ 30/(k w): there the trapezoidal sum's x-grid (step ~ 1/(mu t)) costs thousands of nodes per
t. Three views take over: :mod:`.poisson_replace_poly` (the flat view, M(c + it) from
Chebyshev pieces of the tilted loss density at a cost flat in t; ``numeric/cf_flat.py`` takes
it for a power where faster, and :meth:`ReplaceLaw.mgf` asks its model first where the x-grid
would exceed :data:`FLAT_ABOVE` nodes), :mod:`.poisson_replace_profile` (two steps' profile as
one certified integral, ``few_step_delta``, answered before any plan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import acb, arb, ctx

from ..core import trace
from ..numeric import budget
from ..numeric.cf_laws import (
    Number,
    log_sqrt_2pi,
    logsumexp,
    lower,
    norm_sf,
    pm,
    to_arb,
    to_fraction,
    upper,
    working_precision,
)
from .poisson_replace_cells import REPLACE_CELLS_ROUTE, replace_cells_enclosure
from .poisson_replace_poly import T_SWITCH, ReplacePolyLaw
from .poisson_replace_profile import few_step_delta
from .poisson_replace_seed import replace_epsilon, replace_log_delta

__all__ = ["ReplaceLaw", "replace_law"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_CACHE_LIMIT = 64
#: The finest x-grid is 2^_MAX_LEVEL times the base grid's step (|t| up to about 2^14/h0/mu).
_MAX_LEVEL = 16
#: The strip's largest half-width, as a fraction of pi/(2 mu) (the bounds need mu y <= pi/2).
_STRIP = 0.99
#: The node evaluations one tilt's ``mgf`` may make (about 2 to 4 us each): the inversion's
#: planner counts its work as t-nodes times the t cut-off, which undercounts a wide x-grid (a
#: large abscissa c, a small mu); beyond, the tilt refuses (ValueError) and the route declines.
MAX_EVALS = 4_000_000
#: The nodes of :meth:`ReplaceLaw.mgf_grid` between direct exponentials (each recurrence step
#: widens a factor's ball by about an ulp).
RESTART = 64
#: The x-grid size above which :meth:`ReplaceLaw.mgf` asks the flat view's model first.
FLAT_ABOVE = 4096


@dataclass
class _FloatTilt:
    """Float grid data of the tilted density g_c (planning only)."""

    log_w: np.ndarray  # log of h g_c(x_j)
    loss: np.ndarray  # L(x_j)
    sig: np.ndarray  # s(x_j) + s(-x_j), s = r/a
    log_m: float  # log M(c)


@dataclass
class _Level:
    """Nodes x_first + j h of one trapezoidal grid (Arb)."""

    h: arb
    loss: list[arb]  # L(x_j)
    weight: list[arb]  # h g_c(x_j)


def _log_strip_factor(beta: np.ndarray | float, mu: float, c: float):
    """Float log E(beta) = beta^2/2 - c log cos(mu beta/2) (the class docstring)."""
    return beta**2 / 2 - c * np.log(np.cos(mu * beta / 2))


class _Tilt:
    """Rigorous trapezoidal data of g_c at one abscissa c > 0 (the class docstring of
    :class:`ReplaceLaw`): nested grids of step h0/2^k on [x_first, x_first + n0 h0], a bound
    ``tails`` of every level's omitted nodes, and ``m_upper`` >= M(c)."""

    def __init__(self, law: ReplaceLaw, c: arb) -> None:
        self.law, self.c = law, c
        self.c_float = float(c.mid())
        self.tol = 2.0 ** (30 - ctx.prec)
        self.mu, self.q = to_arb(law._mu), to_arb(law._q)
        self.qc = self.q * (-self.mu * self.mu / 2).exp()
        ft = law._float_tilt(self.c_float)
        target = self.tol * math.exp(ft.log_m) / 16
        mu_f, c_f = law.mu, self.c_float
        x_first = -6.0
        while upper(self._lower_tail(arb(x_first))) > target:
            budget.check()
            x_first -= 0.5
        x_last = max((1 + c_f) * mu_f, 0.0) + 6.0
        while upper(self._upper_tail(arb(x_last))) > target:
            budget.check()
            x_last += 0.5
        self.strip = _STRIP * math.pi / (2 * mu_f)
        h0 = self._step(0.0, 0)
        self.n0 = math.ceil((x_last - x_first) / h0)
        self.x_first, self.h0 = arb(x_first), arb(h0)
        x_end = self.x_first + self.n0 * self.h0
        self.tails = self._lower_tail(self.x_first) + self._upper_tail(x_end)
        self.levels = [self._make_level(0)]
        s0 = sum(self.levels[0].weight, arb(0))
        beta0 = self._best_beta(0.0, h0)
        rho0 = self._disc(arb(0), arb(beta0), self.h0, arb(1))
        if not rho0 < 1:
            raise ValueError("the base grid's discretisation bound is not below 1")
        self.m_upper = arb(upper((s0 + self.tails) / (1 - rho0)))
        self._sig: list[arb] | None = None
        #: nodes evaluated by :meth:`mgf` so far (refused beyond :data:`MAX_EVALS`)
        self.evals = 0

    # -- the omitted nodes (class docstring, "Omitted nodes")
    def _lower_tail(self, x: arb) -> arb:
        """h times the sum of g_c over the nodes below x <= 0 (x itself a node)."""
        q, qc, c, mu = self.q, self.qc, self.c, self.mu
        lead = (1 - q + qc) ** (1 + c)
        first = (1 - q) ** (-c) * norm_sf(-x)
        second = qc ** (-c) * (c * c * mu * mu / 2).exp() * norm_sf(c * mu - x)
        return lead * first.min(second)

    def _upper_tail(self, x: arb) -> arb:
        """h times the sum of g_c over the nodes above x >= max((1 + c) mu, 0)."""
        q, qc, c, mu = self.q, self.qc, self.c, self.mu
        m = (1 + c) * mu
        return (1 - q) ** (-c) * (1 - q + qc) ** (1 + c) * (m * m / 2).exp() * norm_sf(x - m)

    # -- the discretisation (class docstring, "Trapezoidal rule")
    def _disc(self, t_abs: arb, beta: arb, h: arb, m: arb) -> arb:
        """E(beta) (1 + e^{2 |t| mu beta}) m / (e^{2 pi beta/h} - 1), mu beta <= pi/2."""
        mu, c = self.mu, self.c
        if not (beta > 0 and mu * beta <= arb.pi() / 2):
            raise ValueError("strip half-width out of range")
        e = (beta * beta / 2).exp() * (mu * beta / 2).cos() ** (-c)
        return e * (1 + (2 * t_abs * mu * beta).exp()) * m / (2 * arb.pi() * beta / h).expm1()

    def _log_err(self, t_abs: float, h: float) -> tuple[float, float]:
        """The float minimum over beta of log of the relative discretisation bound, and beta."""
        betas = np.linspace(self.strip / 64, self.strip, 64)
        arg = 2 * math.pi * betas / h
        log_err = (_log_strip_factor(betas, self.law.mu, self.c_float)
                   + np.logaddexp(0.0, 2 * t_abs * self.law.mu * betas)
                   - (arg + np.log1p(-np.exp(-arg))))
        i = int(np.argmin(log_err))
        return float(log_err[i]), float(betas[i])

    def _best_beta(self, t_abs: float, h: float) -> float:
        return self._log_err(t_abs, h)[1]

    def _step(self, t_abs: float, k: int) -> float:
        """The base step h0: the largest of a geometric ladder meeting tol/4 at t = 0."""
        h = 2.0
        while self._log_err(t_abs, h)[0] > math.log(self.tol / 4):
            h *= 0.8
            if h < 1e-6:
                raise ValueError("no trapezoidal step meets the tolerance")
        return h

    def _choose(self, t_abs: float) -> tuple[int, float]:
        """The coarsest level, and its strip half-width, meeting tol/4 at |t|."""
        h0 = float(self.h0.mid())
        for k in range(_MAX_LEVEL + 1):
            err, beta = self._log_err(t_abs, h0 / 2**k)
            if err <= math.log(self.tol / 4):
                return k, beta
        raise ValueError(f"|t| = {t_abs:g} needs more than 2^{_MAX_LEVEL} times the base x-grid")

    def _make_level(self, k: int) -> _Level:
        mu, q, qc, c = self.mu, self.q, self.qc, self.c
        h = self.h0 / 2**k
        log_h = h.log() - log_sqrt_2pi()
        log1mq = (1 - q).log()
        prev = self.levels[k - 1] if k > 0 else None
        loss: list[arb] = []
        weight: list[arb] = []
        for j in range(self.n0 * 2**k + 1):
            if j % 256 == 255:
                budget.check()
            if prev is not None and j % 2 == 0:
                loss.append(prev.loss[j // 2])
                weight.append(prev.weight[j // 2] / 2)
                continue
            x = self.x_first + j * h
            lp = (qc * (mu * x).exp() / (1 - q)).log1p()  # lam(x) - log(1 - q)
            lm = (qc * (-mu * x).exp() / (1 - q)).log1p()  # lam(-x) - log(1 - q)
            ell = lp - lm
            loss.append(ell)
            weight.append((log_h - x * x / 2 + log1mq + lp + c * ell).exp())
        return _Level(h, loss, weight)

    def _level(self, k: int) -> _Level:
        while len(self.levels) <= k:
            self.levels.append(self._make_level(len(self.levels)))
        return self.levels[k]

    def level_size(self, t_abs: float) -> int:
        """The nodes of the level :meth:`mgf` would sum at |t| = ``t_abs``."""
        k, _ = self._choose(t_abs)
        return self.n0 * 2**k + 1

    def mgf(self, t: arb) -> acb:
        """Enclosure of M(c + it)."""
        t_up = upper(abs(t))
        k, beta = self._choose(t_up)
        lev = self._level(k)
        self.evals += len(lev.loss)
        if self.evals > MAX_EVALS:
            raise ValueError(f"M(c + it) at c = {self.c_float:.4g} took more than {MAX_EVALS} "
                             "node evaluations (the plan's work model is exceeded)")
        re, im = arb(0), arb(0)
        for i, (loss, w) in enumerate(zip(lev.loss, lev.weight, strict=True)):
            if i % 1024 == 1023:
                budget.check()
            sn, cs = (t * loss).sin_cos()
            re += w * cs
            im += w * sn
        r = pm(self._disc(arb(t_up), arb(beta), lev.h, self.m_upper) + self.tails)
        return acb(re + r, im + r)

    def k_integral(self, tau: arb) -> arb:
        """Enclosure of K(tau) = int g_c(x) e^{-tau sigma(x)} dx, tau >= 0, on the base grid
        (sigma = s(x) + s(-x), s = r/a = 1 - (1 - q) e^{-lam})."""
        lev = self.levels[0]
        if self._sig is None:
            mu, q, qc = self.mu, self.q, self.qc
            sig = []
            for j in range(self.n0 + 1):
                x = self.x_first + j * self.h0
                rp, rm = qc * (mu * x).exp(), qc * (-mu * x).exp()
                sig.append(rp / (1 - q + rp) + rm / (1 - q + rm))
            self._sig = sig
        total = arb(0)
        for s, w in zip(self._sig, lev.weight, strict=True):
            total += w * (-tau * s).exp()
        beta = self._best_beta(0.0, float(self.h0.mid()))
        err = self._disc(arb(0), arb(beta), self.h0, self.m_upper) + self.tails
        return total + pm(err)


class ReplaceLaw:
    """The privacy loss of ``PoissonReplace(mu, q)`` under P (module docstring), 0 < q < 1,
    mu > 0 rational.

    Proofs of the rigorous bounds (z = c + it, c > 0; at x + iy with theta = mu y,
    |theta| <= pi/2, a = a(x + iy) = 1 - q + r(x) e^{i theta}, a' = a(-x - iy)):

    * Analyticity and moduli. 1 - q > 0 is added to r e^{i theta}, so arg a lies between 0 and
      theta (the sign of y) and arg a' between 0 and -theta; |a| <= a(x), and
      |a| >= a(x) cos(theta/2) (|u + v e^{iw}|^2 - (u + v)^2 cos^2(w/2) = (1 - cos w)(u - v)^2/2),
      likewise for a'. The integrand f(x) = phi(x) exp((1 + z) lam(x) - z lam(-x)) is analytic
      for |mu y| < pi, with |phi(x + iy)| = phi(x) e^{y^2/2} and
      |f(x + iy)| = phi(x) e^{y^2/2} |a|^{1 + c} |a'|^{-c} e^{-t arg a + t arg a'}
                 <= E(y) g_c(x) e^{(|t| theta - t theta)},    E(y) = e^{y^2/2} cos(theta/2)^{-c}
      (for t y > 0 both arg terms are <= 0; for t y < 0 each is at most |t| |theta|).
    * Trapezoidal rule (Trefethen & Weideman, SIAM Rev. 2014, Thm 5.1, whose proof bounds the
      lines Im x = +b and -b separately): h sum f(x_0 + jh) differs from int f by at most
      E(b) (1 + e^{2 |t| mu b}) M(c) / (e^{2 pi b/h} - 1), and M(c) <= (S_0 + tails)/(1 - rho_0)
      from the base grid at t = 0 (S_0 its sum, rho_0 its relative bound).
    * Omitted nodes: on the real line |f| = g_c. For x >= 0, a(x) <= (1 - q + q e^{-mu^2/2})
      e^{mu x} and a(-x) >= 1 - q, so g_c <= (1 - q)^{-c} (1 - q + qc)^{1+c} e^{m^2/2}
      phi(x - m), m = (1 + c) mu, decreasing beyond m: the nodes beyond the last one x_N >= m
      sum (times h) to at most its integral from x_N, a normal tail. For x <= 0,
      a(x) <= 1 - q + qc, and a(-x) >= max(1 - q, qc e^{-mu x}), so g_c <= (1 - q + qc)^{1+c}
      min((1 - q)^{-c} phi(x), (qc)^{-c} e^{c^2 mu^2/2} phi(x - c mu)), both increasing for
      x <= 0: the nodes below the first x_0 <= 0 sum to at most the integral up to x_0.
    * Decay (``decay_bound``): shifting the contour to Im x = y > 0 (theta = mu y in (0, pi/2],
      allowed by analyticity and the Gaussian decay at |x| -> oo), sin(arg a) = r sin(theta)/|a|
      >= s(x) sin(theta) with s = r/a, and arg >= sin(arg) on [0, pi]; likewise
      arg a' <= -s(-x) sin(theta). So for t' >= t >= 0
        |M(c + it')| <= E(y) K(t sin(theta)),  K(tau) = int g_c(x) e^{-tau sigma(x)} dx,
      K decreasing in tau. sigma >= sigma_0 = min(2 s(0), 1) > 0: s(x) = logistic(mu x + b),
      b = log(q e^{-mu^2/2}/(1 - q)), and sigma'(x) = mu (logistic'(b + mu x) - logistic'(b - mu x))
      has, for x > 0, the sign of -b (logistic' is even and decreasing in |.|), so sigma
      increases from 2 s(0) if b < 0 and decreases to its limit 1 if b >= 0.
      K is a trapezoidal sum: e^{-tau sigma} is analytic with modulus <= 1 for |mu y| <= pi/2
      (Re s = ((1 - q) r cos(theta) + r^2)/|a|^2 >= 0 there), so its error is bounded as above
      with t = 0, and its omitted nodes by those of g_c.
    * Power decay (``power_decay``, for the certified tails of ``numeric.cf_tails``): with
      K(tau) <= M(c) e^{-tau sigma_0} and sup_t t^2 e^{-a t} = (2/(a e))^2,
      |M(c + it)| <= E(y) M(c) (2/(a e))^2 / t^2, a = sigma_0 sin(theta), for every t != 0.
    * loss_sup: L is unbounded above (None).
    """

    closed_under_tensor = False
    #: The planner also tries abscissas below the saddle point (``numeric.cf._make_plan``): the
    #: strip there is wider and the step longer; this also allows one power the larger work of
    #: ``numeric.cf_route.FEW_STEP_WORK``, where the PLD engine is slower.
    scan_contour = True
    #: The work allowed at tight and at loose widths (``numeric.cf_route._cap``): both the tight
    #: cap, since the PLD engine's answer is an estimate (2 and 3 steps at the default width:
    #: the inversion certifies them in a few seconds).
    work_caps = (800_000.0, 800_000.0)

    def __init__(self, mu: Number, q: Number) -> None:
        self._mu, self._q = to_fraction(mu), to_fraction(q)
        if not (self._mu > 0 and 0 < self._q < 1):
            raise ValueError(f"ReplaceLaw needs mu > 0 and 0 < q < 1, got mu = {mu}, q = {q}")
        self.mu, self.q = float(self._mu), float(self._q)
        self._tilts: dict[tuple[str, int], _Tilt] = {}
        self._float_tilts: dict[float, _FloatTilt] = {}
        self._cumulants: dict[float, tuple[float, float, float]] = {}
        self._thetas: dict[tuple[float, float], tuple[float, float]] = {}
        self._power: dict[tuple[str, int], tuple[arb, int]] = {}
        self._flat = None
        self._base: tuple | None = None

    def __repr__(self) -> str:
        return f"ReplaceLaw({self._mu}, {self._q})"

    # -- planning (floats)
    def _float_loss(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Float (lam(x) - log(1 - q), L(x), sigma(x))."""
        mu, q = self.mu, self.q
        lqc = math.log(q) - mu * mu / 2 - math.log1p(-q)  # log(qc/(1 - q))
        up, dn = lqc + mu * x, lqc - mu * x
        lp, lm = np.logaddexp(0.0, up), np.logaddexp(0.0, dn)
        sig = np.exp(up - lp) + np.exp(dn - lm)
        return lp, lp - lm, sig

    def _float_base(self, lo: float, hi: float) -> tuple:
        """The float x-grid (step min(0.05, 0.1/mu), on multiples of it) covering [lo, hi] and
        its c-free parts: (x, log of h times the untilted density, L(x), sigma(x)); kept and
        widened as abscissas ask (planning only: every tilt reads it, 1000-2000 abscissas a
        search)."""
        got = self._base
        if got is not None and got[0][0] <= lo and got[0][-1] >= hi:
            return got
        if got is not None:
            lo, hi = min(lo, got[0][0]), max(hi, got[0][-1])
        h = min(0.05, 0.1 / self.mu)
        x = h * np.arange(math.floor(lo / h), math.ceil(hi / h) + 1)
        lp, ell, sig = self._float_loss(x)
        log_g0 = -x * x / 2 - _LOG_SQRT_2PI + math.log1p(-self.q) + lp + math.log(h)
        self._base = (x, log_g0, ell, sig)
        return self._base

    def _float_tilt(self, c: float) -> _FloatTilt:
        """The float grid data of g_c: the kept grid's values where log g_c is within 90 of its
        largest (the grid widened by 8 at an end still above that), from x = -12 and
        (1 + c) mu + 12 on."""
        ft = self._float_tilts.get(c)
        if ft is not None:
            return ft
        lo, hi = -12.0, max((1 + c) * self.mu, 0.0) + 12.0
        while True:
            x, log_g0, ell, sig = self._float_base(lo, hi)
            i0 = int(np.searchsorted(x, lo - 1e-12))
            i1 = int(np.searchsorted(x, hi + 1e-12))
            log_g = log_g0[i0:i1] + c * ell[i0:i1]
            top = log_g.max()
            if log_g[0] > top - 90:
                lo -= 8.0
            elif log_g[-1] > top - 90:
                hi += 8.0
            else:
                break
        keep = np.flatnonzero(log_g > top - 90)
        j0, j1 = int(keep[0]), int(keep[-1]) + 1
        ft = _FloatTilt(log_g[j0:j1], ell[i0 + j0:i0 + j1], sig[i0 + j0:i0 + j1],
                        logsumexp(log_g[j0:j1]))
        if len(self._float_tilts) >= 16 * _CACHE_LIMIT:
            self._float_tilts.clear()
        self._float_tilts[c] = ft
        return ft

    def log_mgf_many(self, cs) -> np.ndarray:
        """Float log M(c) at every c of ``cs`` (planning only)."""
        return np.array([self._float_tilt(float(c)).log_m for c in cs])

    def cumulants(self, c: float) -> tuple[float, float, float]:
        """Float (log M(c), mean, variance) of the tilted loss (planning only), kept per c (the
        saddle-point searches ask the same abscissas hundreds of times)."""
        got = self._cumulants.get(c)
        if got is not None:
            return got
        ft = self._float_tilt(c)
        w = np.exp(ft.log_w - ft.log_m)
        m1 = float(np.dot(w, ft.loss))
        var = float(np.dot(w, (ft.loss - m1) ** 2))
        if len(self._cumulants) >= 16 * _CACHE_LIMIT:
            self._cumulants.clear()
        got = self._cumulants[c] = (ft.log_m, m1, var)
        return got

    def _best_theta(self, c: float, t: float) -> tuple[float, float]:
        """Float minimiser theta in (0, pi/2] of the decay bound at t, and its log."""
        got = self._thetas.get((c, t))
        if got is not None:
            return got
        ft = self._float_tilt(c)

        def objective(theta: np.ndarray) -> np.ndarray:
            log_k = logsumexp(ft.log_w[None, :] - (t * np.sin(theta))[:, None] * ft.sig[None, :],
                              axis=1)
            return _log_strip_factor(theta / self.mu, self.mu, c) + log_k

        grid = _STRIP * math.pi / 2 * np.geomspace(1e-9, 1.0, 40)
        vals = objective(grid)
        i = int(np.argmin(vals))
        best = (float(grid[i]), float(vals[i]))
        if len(self._thetas) >= 64 * _CACHE_LIMIT:
            self._thetas.clear()
        self._thetas[(c, t)] = best
        return best

    def log_decay_estimate(self, c: float, t: float) -> float:
        return min(self._float_tilt(c).log_m, self._best_theta(c, t)[1])

    # -- rigorous
    def _tilt(self, c: arb) -> _Tilt:
        key = (c.str(radius=True, more=True), ctx.prec)
        tilt = self._tilts.get(key)
        if tilt is None:
            if len(self._tilts) >= _CACHE_LIMIT:
                self._tilts.pop(next(iter(self._tilts)))
            tilt = self._tilts[key] = _Tilt(self, c)
        return tilt

    def mgf(self, z: acb) -> acb:
        """M(z) by the trapezoidal sum, or, where that sum's x-grid at |t| would exceed
        :data:`FLAT_ABOVE` nodes, by the flat view's model where its error is within the
        tolerance (:mod:`.poisson_replace_poly`; both are certified balls of M(z)): the far
        tail of many steps (sigma = 8, q = 1/1000, 10^4 steps, delta(1) ~ 1e-123: abscissa
        c ~ 700, x-grids of thousands of nodes at |t| ~ 10^3)."""
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        tilt = self._tilt(z.real)
        if abs(z.imag) > T_SWITCH and tilt.level_size(upper(abs(z.imag))) > FLAT_ABOVE:
            try:
                got = self.flat_view().model_mgf(z)
            except ArithmeticError:  # (no ellipse proved for a piece: the sum answers)
                got = None
            if got is not None:
                return got
        return tilt.mgf(z.imag)

    def mgf_grid(self, c: arb, h: arb, n: int) -> list[acb]:
        """M(c + i k h) for k = 0 .. n at once (the inversion's nodes, ``numeric.cf._Inverter``),
        each ball as :meth:`mgf`'s: where :meth:`mgf` would ask the flat view's model, that
        model (else the sum); the trapezoidal sums by level, their nodes' factors
        e^{i t_k L(x_j)} by the recurrence e^{i t_k L} = e^{i t_(k-1) L} e^{i h L}, restarted from a
        direct exponential every :data:`RESTART` nodes (every factor a ball: the product holds
        the factor at t_k = k h exactly), each sum with the error term of its level at its |t|.
        The sums' node evaluations are counted before any is made: beyond :data:`MAX_EVALS`
        the grid is refused at once (ValueError; was found after ~4e6 evaluations, ~19 s)."""
        if not c > 0:
            raise ValueError("need Re z > 0")
        tilt = self._tilt(c)
        out: list[acb | None] = [None] * (n + 1)
        h0 = float(tilt.h0.mid())
        plan: list[tuple[int, int, float]] = []  # (k, level, beta) of the sums
        level = 0
        for k in range(n + 1):
            t_up = upper(abs(h * k))
            while True:
                err, beta = tilt._log_err(t_up, h0 / 2**level)
                if err <= math.log(tilt.tol / 4):
                    break
                level += 1
                if level > _MAX_LEVEL:
                    raise ValueError(f"|t| = {t_up:g} needs more than 2^{_MAX_LEVEL} times "
                                     "the base x-grid")
            if t_up > T_SWITCH and tilt.n0 * 2**level + 1 > FLAT_ABOVE:
                try:
                    out[k] = self.flat_view().model_mgf(acb(c, h * k))
                except ArithmeticError:
                    out[k] = None
                if out[k] is not None:
                    continue
            plan.append((k, level, beta))
        evals = sum(tilt.n0 * 2**lev + 1 for _, lev, _ in plan)
        if tilt.evals + evals > MAX_EVALS:
            raise ValueError(f"M(c + it) at c = {tilt.c_float:.4g} on {n + 1} nodes needs "
                             f"{evals} node evaluations, above {MAX_EVALS} (refused before any)")
        tilt.evals += evals
        i = 0
        while i < len(plan):
            j = i
            while j + 1 < len(plan) and plan[j + 1][1] == plan[i][1] \
                    and plan[j + 1][0] == plan[j][0] + 1:
                j += 1
            lev = tilt._level(plan[i][1])
            steps = [acb(0, h * ell).exp() for ell in lev.loss]
            phases: list[acb] = []
            for m, (k, _, beta) in enumerate(plan[i:j + 1]):
                budget.check()
                t = h * k
                if m % RESTART == 0:
                    phases = [acb(0, t * ell).exp() for ell in lev.loss]
                elif m:
                    phases = [p * st for p, st in zip(phases, steps, strict=True)]
                total = acb(0)
                for w, p in zip(lev.weight, phases, strict=True):
                    total += w * p
                t_up = upper(abs(t))
                r = pm(tilt._disc(arb(t_up), arb(beta), lev.h, tilt.m_upper) + tilt.tails)
                out[k] = acb(total.real + r, total.imag + r)
            i = j + 1
        return out

    def own_mgf(self, z: acb) -> acb:
        """M(z) by the trapezoidal sum alone."""
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        return self._tilt(z.real).mgf(z.imag)

    def decay_bound(self, c: arb, t: arb) -> arb:
        tilt = self._tilt(c)
        theta, _ = self._best_theta(float(c.mid()), max(lower(t), 0.0))
        th = arb(theta)
        beta = th / tilt.mu
        tau = arb(max(lower(t * th.sin()), 0.0))
        bound = (beta * beta / 2).exp() * (th / 2).cos() ** (-c) * tilt.k_integral(tau)
        return arb(min(upper(bound), upper(tilt.m_upper)))

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        """(V, 2) with |M(c + it)| <= V/t^2 (class docstring, "Power decay"); theta from a
        float grid (any theta in (0, pi/2] is valid)."""
        key = (c.str(radius=True, more=True), ctx.prec)
        got = self._power.get(key)
        if got is not None:
            return got
        tilt = self._tilt(c)
        c_f, mu = float(c.mid()), self.mu
        grid = _STRIP * math.pi / 2 * np.linspace(1 / 64, 1.0, 64)
        obj = _log_strip_factor(grid / mu, mu, c_f) - 2 * np.log(np.sin(grid))
        th = arb(float(grid[int(np.argmin(obj))]))
        qc = tilt.qc
        sig0 = (2 * qc / (1 - tilt.q + qc)).min(arb(1))
        a = sig0 * th.sin()
        beta = th / tilt.mu
        e = (beta * beta / 2).exp() * (th / 2).cos() ** (-c)
        v = arb(upper(e * tilt.m_upper * (2 / (a * arb(1).exp())) ** 2))
        if len(self._power) >= _CACHE_LIMIT:
            self._power.clear()
        self._power[key] = (v, 2)
        return v, 2

    def loss_sup(self) -> arb | None:
        return None

    def few_step_delta(self, n: int, eps: float | None, rel: float | None
                       ) -> tuple[float, float] | None:
        """Float bounds of a certified ball of delta(eps) of this law's n-fold product for
        n = 2 (a certified one-dimensional integral of the one-step profile,
        :mod:`.poisson_replace_profile`; ``numeric/cf_profile.py`` answers from it before any
        plan of the inversion), to relative width ``rel``; None for other n (``eps`` None: only
        whether the power is answered, a tuple (0, 0))."""
        if n != 2:
            return None
        if eps is None:
            return 0.0, 0.0
        with working_precision(64):
            return few_step_delta(self, n, eps, rel)

    def cells_enclosure(self, n: int, kind: str, dn: float, up: float,
                        rel: float) -> tuple[float, float] | None:
        """Certified float bounds of eps(d), d in [dn, up], of the n-fold power by the loss's
        cells composed on a lattice (:mod:`.poisson_replace_cells`), asked before any plan of
        the inversion (``numeric/cf_mixed_split.py``); None where the lattice would exceed its
        points (:data:`~.poisson_replace_cells.MAX_POINTS`) or the width is not met. delta is
        left to the inversion: its level at sigma = 2 (delta(1) ~ 1e-26, a tilted lattice over
        the far tail, ~3000 cells) took 0.45 s where the inversion takes 0.3 s."""
        if kind != "epsilon":
            return None
        r = replace_cells_enclosure(self, n, kind, dn, up, rel)
        if r is not None:
            trace.note(REPLACE_CELLS_ROUTE)
        return r

    def float_epsilon(self, n: int, delta: float) -> tuple[float, float] | None:
        """Float (eps, -d log delta / d eps) of the n-fold power at ``delta`` (a float PLD,
        :mod:`.poisson_replace_seed`), or None: the certified eps search's seed
        (``numeric/cf_saddle._seed_epsilon``), an estimate it does not rely on."""
        return replace_epsilon(self, n, delta)

    def float_log_delta(self, n: int, eps: float) -> float | None:
        """Float log delta(eps) of the n-fold power (the float PLD of
        :mod:`.poisson_replace_seed`), or None: the level at which the certified delta plans
        its one grid (``numeric/cf_route.py``), an estimate it does not rely on."""
        return replace_log_delta(self, n, eps)

    def flat_view(self):
        """This law with M(c + it) from a Chebyshev model of its tilted loss density, at a cost
        flat in t (:mod:`.poisson_replace_poly`; ``numeric/cf_flat.py`` takes it where the
        estimated time is smaller), kept."""
        if self._flat is None:
            self._flat = ReplacePolyLaw(self)
        return self._flat

    def inverse(self) -> ReplaceLaw:
        """The swapped pair's loss -L under Q has L's law under P (reflection x -> -x)."""
        return self


@lru_cache(maxsize=32)
def replace_law(mu: Fraction, q: Fraction) -> ReplaceLaw:
    """One law per (mu, q), kept: its tilts are cached across calls."""
    return ReplaceLaw(mu, q)
