"""The rigorous trapezoidal data of one tilt g_c(x) = phi(x) exp(e l(x)) of the Poisson-subsampled
Gaussian's loss law (``families.gaussian_sampled.SubsampledGaussianLaw``: its class docstring
proves the step's discretisation bound and the tails of the omitted nodes used here): nested
grids of step h_0 / 2^k on a fixed range, each node's loss and weight as Arb balls, the
moment generating function M(c + it) and the K-integral at one c."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from flint import acb, arb, ctx

from ..numeric.cf_laws import log_sqrt_2pi, norm_sf, pm, upper

_MAX_LEVEL = 14


def _trapezoid_step(
    t_abs: float, tol: float, strip_max: float, mu: float, e: float, wfac: float = 1.0
) -> tuple[float, float]:
    """Largest step h, and its strip half-width beta, with relative error <= tol.

    The bound is 2 exp(wfac beta^2/2 + t mu beta) kappa(beta) / (exp(2 pi beta / h) - 1)
    with kappa(beta) = cos(mu beta / 2)^min(e, 0) and wfac = 1 + 1/sigma^2 for a law cut
    at (X, sigma), else 1 (see `SubsampledGaussianLaw`).
    """
    beta = np.linspace(strip_max / 48, strip_max, 48)
    log_kappa = min(e, 0.0) * np.log(np.cos(mu * beta / 2))
    log_num = math.log(2.0) + wfac * beta**2 / 2 + t_abs * mu * beta + log_kappa
    steps = 2 * math.pi * beta / np.logaddexp(0.0, log_num - math.log(tol))
    i = int(np.argmax(steps))
    return float(steps[i]), float(beta[i])


@dataclass
class _Level:
    """Nodes of one trapezoidal grid x_first + j h (Arb)."""

    h: arb
    loss: list[arb]  # L(x_j)
    weight: list[arb]  # h g_c(x_j)
    s: list[arb] | None = None  # s(x_j), computed on demand


class _Tilt:
    """Rigorous trapezoidal data of g_c(x) = phi(x) exp(e l(x)) at one c.

    Grids are nested: level k has step h_0 / 2^k on the fixed range
    [x_first, x_first + N_0 h_0].  `tails` bounds the omitted nodes of every
    level; `m_upper` is a rigorous upper bound of M(c).
    """

    def __init__(self, law: Any, c: arb) -> None:
        self.law = law
        self.tol = 2.0 ** (30 - ctx.prec)
        self.mu = law._mu_arb()
        self.q = law._q_arb()
        self.e = law._alpha + law._sign * c
        self.e_float = float(self.e.mid())
        ft = law._float_tilt(float(c.mid()))
        target = self.tol * math.exp(ft.log_m) / 16
        mu_f = law.mu

        x_first = -6.0
        while upper(self._lower_tail(arb(x_first))) > target:
            x_first -= 0.5
        x_min_hi = max(upper(self.e * self.mu), mu_f, 0.0)
        if law.cut is not None:  # (the cut's Gaussian factor: its mode m, see _upper_tail)
            x_min_hi = max(upper(self._cut_mode()), float(law.cut[0]), mu_f, 0.0)
        x_last = x_min_hi + (0.5 if law.cut is not None else 6.0)
        while upper(self._upper_tail(arb(x_last))) > target:
            x_last += 0.5
        h0, beta0 = _trapezoid_step(0.0, self.tol / 4, 0.99 * math.pi / mu_f, mu_f, self.e_float,
                                    law.wfac)
        self.n0 = math.ceil((x_last - x_first) / h0)
        self.x_first = arb(x_first)
        self.h0 = arb(h0)
        x_end = self.x_first + self.n0 * self.h0
        self.tails = self._lower_tail(self.x_first) + self._upper_tail(x_end)
        self.levels = [self._make_level(0)]
        s0 = sum(self.levels[0].weight, arb(0))
        rho0 = self._disc_factor(arb(0), arb(beta0), self.h0, 1.0)
        self.m_upper = arb(upper((s0 + self.tails) / (1 - rho0)))

    # -- tail bounds of the omitted nodes (each is proven in the class docstring)
    def _lower_tail(self, x: arb) -> arb:
        """Bound of h * sum of g_c over nodes below x (requires x <= 0)."""
        sf = norm_sf(-x)
        if self.e_float >= 0:
            return sf
        return (1 - self.q) ** self.e * sf

    def _cut_mode(self) -> arb:
        """The mode m = (e mu + X / sigma^2) / (1 + 1/sigma^2) of phi(x - e mu) exp(-(x -
        X)^2 / (2 sigma^2)) (a law with a cut)."""
        x_cut, sig = self.law._cut_arb()
        return (self.e * self.mu + x_cut / sig**2) / (1 + 1 / sig**2)

    def _upper_tail(self, x: arb) -> arb:
        """Bound of h * sum of g_c w over nodes above x (x >= max(e mu, mu/2, 0); with a cut
        at (X, sigma), x >= max(m, X, mu/2, 0) instead, m = `_cut_mode`)."""
        e, mu, q = self.e, self.mu, self.q
        if self.law.cut is not None and self.e_float >= 0:
            # w(x) <= exp(-(x - X)^2 / (2 sigma^2)) / 2 for x >= X, and phi(x - e mu) times
            # that is exp(-(e mu - X)^2 / (2 (1 + sigma^2))) tau phi_tau(x - m), a Gaussian
            # of variance tau^2 = sigma^2 / (1 + sigma^2), decreasing beyond its mode m
            x_cut, sig = self.law._cut_arb()
            tau = sig / (1 + sig**2).sqrt()
            y = (mu * x - mu * mu / 2).exp()
            rho = (q + (1 - q) / y).min(arb(1))
            shift = (-(e * mu - x_cut) ** 2 / (2 * (1 + sig**2))).exp()
            gauss = (mu * mu * e * (e - 1) / 2).exp() * shift * tau * norm_sf(
                (x - self._cut_mode()) / tau) / 2
            return rho**e * gauss
        gauss = (mu * mu * e * (e - 1) / 2).exp() * norm_sf(x - e * mu)
        if self.e_float >= 0:
            y = (mu * x - mu * mu / 2).exp()
            rho = (q + (1 - q) / y).min(arb(1))
            return rho**e * gauss
        return norm_sf(x).min(q**e * gauss)

    def _disc_factor(self, t_abs: arb, beta: arb, h: arb, strip_fraction: float) -> arb:
        """2 exp(beta^2/2 + |t| mu beta) kappa(beta) / (exp(2 pi beta / h) - 1).

        Valid for 0 < mu beta < strip_fraction * pi (1 for M, 1/2 for K).
        """
        if not (beta > 0 and self.mu * beta < arb.pi() * strip_fraction):
            raise ValueError("strip half-width out of range")
        log_num = self.law._wfac_arb() * beta * beta / 2 + t_abs * self.mu * beta
        if self.e_float < 0:
            log_num += self.e * (self.mu * beta / 2).cos().log()
        return 2 * log_num.exp() / (2 * arb.pi() * beta / h).expm1()

    def _make_level(self, k: int) -> _Level:
        law, mu, q, e = self.law, self.mu, self.q, self.e
        h = self.h0 / 2**k
        log_h = h.log() - log_sqrt_2pi()
        prev = self.levels[k - 1] if k > 0 else None
        loss: list[arb] = []
        weight: list[arb] = []
        for j in range(self.n0 * 2**k + 1):
            if prev is not None and j % 2 == 0:
                loss.append(prev.loss[j // 2])
                weight.append(prev.weight[j // 2] / 2)
                continue
            x = self.x_first + j * h
            v = mu * x - mu * mu / 2
            ell = v if law._q_is_one else (q * v.expm1()).log1p()
            loss.append(ell if law._sign > 0 else -ell)
            wx = (log_h - x * x / 2 + e * ell).exp()
            if law.cut is not None:
                x_cut, sig = law._cut_arb()
                wx *= norm_sf((x - x_cut) / sig)
            weight.append(wx)
        return _Level(h, loss, weight)

    def _level(self, k: int) -> _Level:
        while len(self.levels) <= k:
            self.levels.append(self._make_level(len(self.levels)))
        return self.levels[k]

    def _choose(self, t_abs: float, strip: float) -> tuple[int, float]:
        """Coarsest level, and strip half-width, meeting the tolerance at |t|."""
        mu_f = self.law.mu
        h0 = float(self.h0.mid())
        betas = np.linspace(strip / 48, strip, 48)
        log_kappa = min(self.e_float, 0.0) * np.log(np.cos(mu_f * betas / 2))
        for k in range(_MAX_LEVEL + 1):
            arg = 2 * math.pi * betas / (h0 / 2**k)
            log_err = (
                math.log(2)
                + self.law.wfac * betas**2 / 2
                + t_abs * mu_f * betas
                + log_kappa
                - (arg + np.log1p(-np.exp(-arg)))
            )
            i = int(np.argmin(log_err))
            if log_err[i] <= math.log(self.tol / 4):
                return k, float(betas[i])
        raise ValueError(f"|t| = {t_abs:g} needs more than 2^{_MAX_LEVEL} times the base x-grid")

    def mgf(self, t: arb) -> acb:
        """Enclosure of M(c + it)."""
        t_up = upper(abs(t))
        strip = 0.99 * math.pi / self.law.mu
        k, beta = self._choose(t_up, strip)
        lev = self._level(k)
        re, im = arb(0), arb(0)
        for loss, w in zip(lev.loss, lev.weight, strict=True):
            sn, cs = (t * loss).sin_cos()
            re += w * cs
            im += w * sn
        err = self._disc_factor(arb(t_up), arb(beta), lev.h, 1.0) * self.m_upper + self.tails
        r = pm(err)
        return acb(re + r, im + r)

    def k_integral(self, tau: arb) -> arb:
        """Enclosure of K(tau) = int g_c(x) exp(-tau s(x)) dx, tau >= 0.

        exp(-tau s) is analytic with modulus <= 1 for |Im x| < pi / (2 mu): there
        Re w >= 1 - q, hence Re s = 1 - (1 - q) Re(1/w) >= 0.
        """
        strip = 0.99 * math.pi / (2 * self.law.mu)
        k, beta = self._choose(0.0, strip)
        lev = self._level(k)
        if lev.s is None:
            one_minus_q = 1 - self.q
            sgn = self.law._sign
            lev.s = [1 - one_minus_q * (-sgn * loss).exp() for loss in lev.loss]
        total = arb(0)
        for s, w in zip(lev.s, lev.weight, strict=True):
            total += w * (-tau * s).exp()
        err = self._disc_factor(arb(0), arb(beta), lev.h, 0.5) * self.m_upper + self.tails
        return total + pm(err)
