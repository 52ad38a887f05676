"""The Neyman-Pearson points of one Poisson-subsampled Gaussian step in Arb: the size
alpha = B(L > eps) and the power A(L > eps) of the test of threshold eps of ``Mix(G_mu, q)``
("remove") and of its inverse ("add"), with delta(eps) = A(L > eps) - e^eps B(L > eps), for the
curve band of DP-SGD with one step (``routes.inversion_curve``, which takes them where the
inversion's tail inverters cannot be afforded: one step's characteristic function decays
like a log-normal's).

Notation as :mod:`.gaussian_sampled_profile`: Y = exp(mu x - mu^2/2), the loss of "remove" is
l(x) = log(1 - q + q Y), increasing in x, so {L > e} is a half-line (Dong, Roth & Su, Prop. 6:
the Neyman-Pearson test of a monotone likelihood ratio rejects a half-line of the sample):

* remove: A = (1 - q) N(0, 1) + q N(mu, 1), B = N(0, 1), u = (e^e - (1 - q)) / q, L > e iff
  x > x* = (log u + mu^2/2) / mu (every x when u <= 0);
  alpha = Phi_c(x*), power = (1 - q) Phi_c(x*) + q Phi_c(x* - mu);
* add: A = N(0, 1), B = (1 - q) N(0, 1) + q N(mu, 1), L = -l(x) > e iff x < x*,
  u = (e^{-e} - (1 - q)) / q (no x when u <= 0: alpha = power = 0);
  alpha = (1 - q) Phi(x*) + q Phi(x* - mu), power = Phi(x*).

Each is a sum of positive terms in Phi (Arb's ``erfc``: no cancellation), evaluated at rising
precision until its ball is as narrow as asked; delta is the profile's closed form
(``gaussian_sampled_profile.one_step_g``) met with power - e^eps alpha. The float estimates
(with the derivatives d x*/de = +-e^{+-e} / (q u mu), d Phi_c(x)/dx = -phi(x)) only place the
points; the certified balls are the points of the band.
"""

from __future__ import annotations

import math

import numpy as np
from flint import acb, arb

from ..numeric import budget
from ..numeric.cf_laws import lower, upper
from ..numeric.cf_tails import TailPoint
from ..numeric.context import arb_precision
from .gaussian_sampled_profile import (
    _boundary,
    _mix_mass,
    _one_step_real,
    _phi,
    _phi_c,
    _precision_loop,
    inner_threshold,
    two_step_delta,
)

__all__ = ["OneStepTails", "TwoStepTails"]


def _meet(x: arb, y: arb) -> arb:
    """The intersection of two balls holding the same number (x where they do not overlap by
    rounding: never happens for true enclosures)."""
    lo, hi = max(x.lower(), y.lower()), min(x.upper(), y.upper())
    if lo > hi:
        return x
    return arb(lo).union(arb(hi))


class OneStepTails:
    """Certified Neyman-Pearson points of one subsampled Gaussian step (module docstring), with
    the interface of ``numeric.cf_tails.TailInverter`` that the curve band asks for
    (``point_here``, ``delta_here``, ``estimate``, ``error``, ``eval_prec``): its balls hold
    the points to a relative width ``rel`` at any eps, so one object serves every level."""

    #: the points set their own precision (a private Arb section per ball)
    eval_prec = 64

    def __init__(self, law, rel: float):
        self.law, self.rel = law, float(rel)
        self.direction = law.direction
        self.mu, self.q = float(law._mu), float(law._q)

    # -- certified --------------------------------------------------------------------------
    def _threshold(self, mu: arb, q: arb, e: arb):
        """x* (module docstring), or None where the half-line is the whole line (remove) or
        empty (add); ArithmeticError where the side is undecided."""
        u = (e.exp() - (1 - q)) / q if self.direction == "remove" else ((-e).exp() - (1 - q)) / q
        if u > 0:
            return (u.log() + mu * mu / 2) / mu
        if u <= 0:
            return None
        raise ArithmeticError("the threshold's side of the loss boundary is undecided")

    def _tail(self, eps: float, which: str) -> arb:
        def compute() -> arb:
            mu, q = self.law._mu_arb(), self.law._q_arb()
            e = arb(eps)
            if which == "delta":
                return _one_step_real(mu, q, self.direction, e)
            return self._tail_at(mu, q, e, which)
        return _precision_loop(compute, self.rel)

    def _tail_at(self, mu: arb, q: arb, e: arb, which: str) -> arb:
        """The one-step size ("alpha") or power at the real ball ``e`` (module docstring)."""
        xs = self._threshold(mu, q, e)
        if self.direction == "remove":
            if xs is None:
                return arb(1)
            if which == "alpha":
                return _phi_c(xs)
            return (1 - q) * _phi_c(xs) + q * _phi_c(xs - mu)
        if xs is None:
            return arb(0)
        return (1 - q) * _phi(xs) + q * _phi(xs - mu) if which == "alpha" else _phi(xs)

    def point_here(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps) and B(L > eps) at the float ``eps``."""
        alpha, power = self._tail(eps, "alpha"), self._tail(eps, "power")
        delta = self._tail(eps, "delta")
        one, zero = arb(1), arb(0)
        alpha, power = _meet(alpha, zero.union(one)), _meet(power, zero.union(one))
        delta = _meet(_meet(delta, power - arb(eps).exp() * alpha), zero.union(one))
        return TailPoint(eps, delta, power, alpha)

    def point(self, eps: float) -> TailPoint:
        return self.point_here(eps)

    def delta_here(self, eps: float) -> arb:
        d = self._tail(eps, "delta")
        return arb(max(lower(d), 0.0)).union(arb(d.upper())) if lower(d) < 0 else d

    def delta(self, eps: float) -> arb:
        return self.delta_here(eps)

    # -- floats (placement only) ------------------------------------------------------------
    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """Float (delta, power, alpha, d power / d eps, d alpha / d eps) at the array ``eps``."""
        e = np.asarray(eps, dtype=np.float64).ravel()
        out = np.array([self._estimate_one(float(x)) for x in e]).reshape(e.size, 5)
        return tuple(out[:, j] for j in range(5))

    def _estimate_one(self, e: float) -> tuple[float, ...]:
        mu, q = self.mu, self.q
        sf = lambda x: 0.5 * math.erfc(x / math.sqrt(2))  # noqa: E731
        cdf = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
        pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        if self.direction == "remove":
            u = (math.exp(e) - (1 - q)) / q
            if u <= 0:
                return 1 - math.exp(e), 1.0, 1.0, 0.0, 0.0
            xs = (math.log(u) + mu * mu / 2) / mu
            dx = math.exp(e) / (q * u * mu)
            alpha = sf(xs)
            power = (1 - q) * sf(xs) + q * sf(xs - mu)
            da = -pdf(xs) * dx
            dp = -((1 - q) * pdf(xs) + q * pdf(xs - mu)) * dx
        else:
            u = (math.exp(-e) - (1 - q)) / q
            if u <= 0:
                return 0.0, 0.0, 0.0, 0.0, 0.0
            xs = (math.log(u) + mu * mu / 2) / mu
            dx = -math.exp(-e) / (q * u * mu)
            power = cdf(xs)
            alpha = (1 - q) * cdf(xs) + q * cdf(xs - mu)
            dp = pdf(xs) * dx
            da = ((1 - q) * pdf(xs) + q * pdf(xs - mu)) * dx
        return max(power - math.exp(e) * alpha, 0.0), power, alpha, dp, da

    def error(self, eps: np.ndarray) -> np.ndarray:
        """Float estimate of the points' absolute error: ``rel`` of the larger tail."""
        _, power, alpha, _, _ = self.estimate(eps)
        return self.rel * np.maximum(power, alpha)


# -- two steps -------------------------------------------------------------------------------
#: Points of the float quadrature that places the two-step points (estimates only).
_FLOAT_POINTS = 801

_erfc = np.frompyfunc(math.erfc, 1, 1)


def _sf(x: np.ndarray) -> np.ndarray:
    return 0.5 * _erfc(np.asarray(x, dtype=np.float64) / math.sqrt(2)).astype(np.float64)


def _pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


class TwoStepTails(OneStepTails):
    """Certified Neyman-Pearson points of two subsampled Gaussian steps: the size and the power
    of the test of threshold eps of L1 + L2 by conditioning on the first step, as the delta of
    :mod:`.gaussian_sampled_profile` (its module docstring has the argument):
    A(L1 + L2 > e) = E_{x ~ A}[A(L > e - L1(x))] and B(L1 + L2 > e) = E_{x ~ B}[B(L > e - L1(x))],
    one-dimensional integrals of the one-step tails (closed forms in Phi) by Arb's certified
    ``acb.integral`` on [X, s], s = x_b - eta below the point x_b where the inner threshold
    leaves the losses. The rest is bounded by monotonicity: the inner tail is non-increasing in
    its threshold, and the threshold falls with x (remove: e - l(x)) or rises with it (add:
    e + l(x)); so on [s, x_b] it lies between its value at s and its limit at x_b (1 for
    remove, where every x beyond is rejected; 0 for add, where none is), beyond x_b it is that
    limit exactly, and below X it lies in [0, 1] — each times the outer law's mass there. The
    integrands are positive: no cancellation. delta is the profile module's ball, met with
    power - e^eps alpha."""

    def _outer(self, which: str) -> str:
        """The outer law of ``which``: the power's is A, the size's B."""
        mix_is_a = self.direction == "remove"
        return "mix" if (which == "power") == mix_is_a else "normal"

    # (float placement: a trapezoidal sum in s, x = x_b - e^s, graded towards x_b, where the
    # integrand is not analytic, plus the closed form beyond x_b)
    def _xb_float(self, e: np.ndarray) -> np.ndarray:
        """x_b at the floats ``e`` (nan where the add direction has none)."""
        mu, q = self.mu, self.q
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.direction == "remove":
                ub = (np.exp(e) / (1 - q) - (1 - q)) / q
            else:
                ub = (np.exp(-e) / (1 - q) - (1 - q)) / q
            return np.where(ub > 0, (np.log(np.where(ub > 0, ub, 1.0)) + mu * mu / 2) / mu,
                            np.nan)

    def _inner_float(self, ep: np.ndarray, which: str):
        """The one-step tail at thresholds ``ep`` and its derivative in ep (floats)."""
        mu, q = self.mu, self.q
        remove = self.direction == "remove"
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            u = ((np.exp(ep) if remove else np.exp(-ep)) - (1 - q)) / q
            ok = u > 0
            us = np.where(ok, u, 1.0)
            xs = (np.log(us) + mu * mu / 2) / mu
            dx = (np.exp(ep) if remove else -np.exp(-ep)) / (q * us * mu)
        if remove:
            if which == "alpha":
                t, dt = _sf(xs), -_pdf(xs) * dx
            else:
                t = (1 - q) * _sf(xs) + q * _sf(xs - mu)
                dt = -((1 - q) * _pdf(xs) + q * _pdf(xs - mu)) * dx
            return np.where(ok, t, 1.0), np.where(ok, dt, 0.0)
        if which == "alpha":
            t = (1 - q) * _sf(-xs) + q * _sf(mu - xs)
            dt = ((1 - q) * _pdf(xs) + q * _pdf(xs - mu)) * dx
        else:
            t, dt = _sf(-xs), _pdf(xs) * dx
        return np.where(ok, t, 0.0), np.where(ok, dt, 0.0)

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        e = np.asarray(eps, dtype=np.float64).ravel()
        mu, q = self.mu, self.q
        xb = self._xb_float(e)
        none = np.isnan(xb)
        xb = np.where(none, 0.0, xb)
        lo = np.minimum(-12.0, xb - 12.0)
        sg = np.linspace(0.0, 1.0, _FLOAT_POINTS)
        s_lo, s_hi = math.log(1e-14), np.log(xb - lo)
        sv = s_lo + (s_hi - s_lo)[:, None] * sg[None, :]
        gap = np.exp(sv)
        x = xb[:, None] - gap
        w = gap * (s_hi - s_lo)[:, None] / (_FLOAT_POINTS - 1)
        w[:, 0] /= 2
        w[:, -1] /= 2
        with np.errstate(over="ignore"):
            lx = np.log1p(q * np.expm1(mu * x - mu * mu / 2))
        ep = e[:, None] - lx if self.direction == "remove" else e[:, None] + lx
        out = {}
        for which in ("alpha", "power"):
            mix = self._outer(which) == "mix"
            dens = (1 - q) * _pdf(x) + q * _pdf(x - mu) if mix else _pdf(x)
            t, dt = self._inner_float(ep, which)
            val = np.sum(t * dens * w, axis=1)
            der = np.sum(dt * dens * w, axis=1)
            if self.direction == "remove":  # (every x beyond x_b rejected)
                val = val + ((1 - q) * _sf(xb) + q * _sf(xb - mu) if mix else _sf(xb))
            out[which] = (np.where(none, 0.0, val), np.where(none, 0.0, der))
        alpha, da = out["alpha"]
        power, dp = out["power"]
        delta = np.maximum(power - np.exp(e) * alpha, 0.0)
        return delta, power, alpha, dp, da

    # (certified)
    def _tail(self, eps: float, which: str) -> arb:
        if which == "delta":
            return two_step_delta(self.law, eps, self.rel)
        est = float(self.estimate(np.array([eps]))[2 if which == "alpha" else 1][0])
        with arb_precision(64):
            mu, q = self.law._mu_arb(), self.law._q_arb()
            xb = _boundary(mu, q, self.direction, arb(eps))
        if xb is None:  # (add beyond the largest two-step loss: no x is rejected)
            return arb(0)
        x_lo = min(-10.0, math.floor(lower(xb)) - 6.0)
        eta = 0.5
        need = self.rel * max(est, 1e-300) / 16
        with arb_precision(64):
            for _ in range(120):
                _, band, tail = self._ends(eps, which, eta, x_lo)
                b, t = upper(band.rad() * 2), upper(tail)
                if b + t <= need:
                    break
                if b > need / 2 and eta > 1e-9:
                    eta /= 2
                if t > need / 2:
                    x_lo -= 1.0
        bits = 64 + int(-math.log2(max(self.rel, 1e-300)))

        def compute() -> arb:
            closed, band, tail = self._ends(eps, which, eta, x_lo)
            s = arb(upper(xb) - eta)
            return closed + band + tail + self._integral(eps, which, arb(x_lo), s)

        return _precision_loop(compute, self.rel, start=bits)

    def _ends(self, eps: float, which: str, eta: float, x_lo: float):
        """(closed, band, tail): the outer mass beyond s times the inner tail's limit there, the
        ball of the difference on [s, x_b], the ball [0, outer mass below x_lo]."""
        mu, q = self.law._mu_arb(), self.law._q_arb()
        e0 = arb(eps)
        xb = _boundary(mu, q, self.direction, e0)
        s = arb(upper(xb) - eta)
        lo = arb(x_lo)
        if not (s < xb and lo < s):
            raise ArithmeticError("the boundary is outside the integration range")
        mix = self._outer(which) == "mix"
        w_s = 1 - q + q * (mu * s - mu * mu / 2).exp()
        if self.direction == "remove":
            e_s = e0 - w_s.log()
            t_s = self._tail_at(mu, q, e_s, which)
        else:
            e_s = e0 + w_s.log()
            t_s = self._tail_at(mu, q, e_s, which)
        mass_s_xb = _mix_mass(mu, q, s, xb) if mix else _phi_c(s) - _phi_c(xb)
        below = (1 - q) * _phi(lo) + q * _phi(lo - mu) if mix else _phi(lo)
        if self.direction == "remove":  # inner tail in [t_s, 1] on [s, x_b], 1 beyond
            closed = (1 - q) * _phi_c(s) + q * _phi_c(s - mu) if mix else _phi_c(s)
            band = arb(0).union((t_s - 1).lower()) * mass_s_xb
        else:  # inner tail in [0, t_s] on [s, x_b], 0 beyond
            closed = arb(0)
            band = arb(0).union(t_s.upper()) * mass_s_xb
        return closed, band, arb(0).union(below.upper())

    def _integral(self, eps: float, which: str, lo: arb, s: arb) -> arb:
        mu, q = self.law._mu_arb(), self.law._q_arb()
        root2pi = (2 * arb.pi()).sqrt()
        qa, mua, ee = acb(q), acb(mu), acb(arb(eps))
        remove = self.direction == "remove"
        mix = self._outer(which) == "mix"

        def integrand(x, analytic):
            level = inner_threshold(x, qa, mua, ee, remove, analytic)
            if level is None:
                return acb("nan")
            xs = level[2]
            if remove:
                t = (_phi_c(xs) if which == "alpha"
                     else (1 - qa) * _phi_c(xs) + qa * _phi_c(xs - mua))
            else:
                t = (1 - qa) * _phi(xs) + qa * _phi(xs - mua) if which == "alpha" else _phi(xs)
            dens = ((1 - qa) * (-x * x / 2).exp() + qa * (-(x - mua) ** 2 / 2).exp() if mix
                    else (-x * x / 2).exp())
            return dens * t / root2pi

        return budget.integral(integrand, acb(lo), acb(s), rel_tol=self.rel / 4,
                               eval_limit=400_000).real
