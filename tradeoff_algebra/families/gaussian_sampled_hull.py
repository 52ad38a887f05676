"""The privacy loss of C_p(G_mu) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6, Thm. 9 and
Eq. (13); f_p = p G_mu + (1 - p) Id) as an Arb law for the certified Laplace inversion
(:mod:`~tradeoff_algebra.numeric.cf`): the symmetric hull of the Poisson-subsampled Gaussian's
law (``families/gaussian_sampled.py``), which the Mix operator's law offers as
:meth:`~.gaussian_sampled.SubsampledGaussianLaw.symmetric_hull` and ``C_p``'s privacy loss
reaches (``operators/subsample.py``).

The law. f_p = T(B, A) with B = N(0, 1), A = (1 - p) N(0, 1) + p N(mu, 1) and the loss
L = l(x) = log w(x), w = 1 - p + p Y, Y = e^{mu x - mu^2/2}, increasing in x, so L > 0 is the hard
cut x > mu/2. By Eq. (13) C_p(G_mu) is f_p on [0, x*] (the losses L > 0), a segment of slope -1
(an atom at loss 0) and its mirror image f_p^{-1} (``operators.losses.SubsampleLoss``). Under the
hull's measure A' (the one whose loss is taken, delta(eps) = E_A'[(1 - e^{eps - L'})_+]):

* on (0, oo), the law of L under A restricted to L > 0;
* at 0, the mass m0 = 1 - A(L > 0) - B(L > 0) = (1 - p)(2 Phi(mu/2) - 1);
* on (-oo, 0), the law of -L under B restricted to L > 0 (the law of L' under A' equals that of
  -L' under B', dB' = e^{-L'} dA').

With rho the density of L under A on (0, oo), g(y) = rho(y) e^{-y/2} and s = z + 1/2,

    M'(z) = E_A'[e^{z L'}] = m0 + D(z),
    D(z)  = int_{x > mu/2} phi(x) (w^{1+z} + w^{-z}) dx = int_0^oo g(y) (e^{sy} + e^{-sy}) dy,

symmetric: M'(z) = M'(-1 - z). D is enclosed by Arb's certified Gauss-Legendre integration
(``acb.integral``) on [mu/2, X] plus the tail bound of the omitted x > X: |phi w^{1+z}| <=
phi(x) Y^{1+c} = e^{mu^2 c(c+1)/2} phi(x - (1+c) mu) and |phi w^{-z}| <= phi(x) for x >= mu/2
(there 1 <= w <= Y).

Decay (:meth:`SampledGaussianHullLaw.decay_bound`). The atom keeps |M'(c + it)| >= m0 - |D|:
it does not tend to 0, but its share m0^T of a T-fold product vanishes (m0 ~ 0.38 at mu = 1: T =
100 steps give e^{-97}). The density part decays:

* far out, integrating by parts twice in y (the two half-line parts' boundary terms g(0)/s
  cancel: the hull's density is continuous at 0), |D(c + it)| <= C2 / ((c + 1/2)^2 + t^2),
  C2 = 2 |g'(0)| + int_0^oo |g''(y)| 2 cosh((c + 1/2) y) dy, g'(0) = -3 phi(mu/2)(1 - p) /
  (2 mu p^2); the integral is int_{mu/2}^oo |H'(x)| (w^{c+1/2} + w^{-c-1/2}) dx with
  H' = phi w^{5/2} / (mu^2 p^2 Y^2) [a^2 - 1 + 3/2 mu^2 s(1 - s) - a mu (1 - s)], s = pY/w,
  a = -x - mu + 3/2 mu s (x-derivatives of G = g o l = phi w^{3/2} / (mu p Y): g' = G'/l',
  g'' = (g')'/l', l' = mu s), enclosed by ``acb.integral`` of the analytic |.| (``real_abs``)
  plus a tail bound (|a| <= x + 5 mu / 2, so |[...]| <= (x + 3 mu)^2 + 1 + mu^2, and
  w^{5/2} / Y^2 <= Y^{1/2});
* nearer, on cells [t_k - r, t_k + r]: D(t_k + u) = a_k + u b_k + R, |R| <= u^2 E2 / 2 with
  b_k = dD/dt = i int phi log w (w^{1+z} - w^{-z}) and E2 = E_A'[L'^2 e^{cL'}] >= |D''|, and
  |a_k + u b_k| is convex in u: |D| <= max(|a_k + r b_k|, |a_k - r b_k|) + r^2 E2 / 2 there.

The loss is concentrated near 0 on the scale p (E2 ~ p^2) and C2 ~ 1/p^2: the cells grow
geometrically (r = 0.15 t_k, where |M'| is near 1 and a product of many factors needs r^2 E2 / 2
small against 1 - |M'|) up to r ~ 1/p, and a few dozen reach the far bound whatever p.
``decay_bound(c, t)`` is the largest cell bound from t on, computed until the far bound from the
next cell on is below it (C2 / |s|^2 holds for every t).

Few steps (:func:`hull_power_delta`). For a T-fold product the atom's share m0^T of |M'|^T keeps
the whole law from inverting when T is small (it is then ``None`` from the product routes, and
the PLD engine answers). Split by the number j of density components,
M'^T = sum_j C(T, j) m0^{T-j} D^j: j = 0 (the atom m0^T at loss 0) adds nothing to delta(eps) for
eps >= 0, j = 1 adds T m0^{T-1} delta_{f_p}(eps), a closed form in Phi (:class:`OneComponent`),
and the rest (:class:`HullPowerRemainder`) decays like t^-4 and inverts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from flint import acb, arb, ctx

from ..core.errors import InvalidParameter
from ..numeric import budget
from ..numeric.cf import delta_enclosure
from ..numeric.cf_laws import (
    Number,
    log_sqrt_2pi,
    logsumexp,
    norm_sf,
    pm,
    to_arb,
    to_fraction,
    upper,
)
from .gaussian_sampled_hull_quad import panels_for

__all__ = ["SampledGaussianHullLaw", "HullPowerRemainder", "OneComponent", "hull_law",
           "hull_power_delta"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(24)
#: The Taylor cells' quadratic term r^2 E2 / 2 is this share of 1 - m0.
_CELL_SHARE = 0.02
#: The far bound C2 / |s|^2 starts where it is this share of 1 - m0.
_FAR_SHARE = 0.25
#: Cells grow geometrically: radius _CELL_GROWTH times the centre (from _CELL_MIN on).
_CELL_GROWTH = 0.15
_CELL_MIN = 0.25
#: At most this many cells (the last one wider: looser, never wrong).
_MAX_CELLS = 96
#: Precision (bits) of the decay bounds' integrals (they need a few digits only).
_DECAY_PREC = 64
_CACHE = 64


def _phi_f(x):
    return np.exp(-x * x / 2 - _LOG_SQRT_2PI)


class SampledGaussianHullLaw:
    """The loss law of C_p(G_mu) under the measure whose loss is taken (see the module): an atom
    m0 at 0 and a symmetric density part, for the certified Laplace inversion (the
    :class:`~tradeoff_algebra.numeric.cf_laws.LossLaw` protocol)."""

    #: Products of subsampled factors have no closed form (the inversion answers them).
    closed_under_tensor = False
    #: :meth:`power_decay` is None at every abscissa (the atom at 0): the tails of
    #: ``numeric.cf_tails`` are never certified for its products (``routes.inversion_curve``
    #: plans no inverter for them).
    power_decay_never = True

    def __init__(self, mu: Number, q: Number) -> None:
        self._mu, self._q = to_fraction(mu), to_fraction(q)
        if not self._mu > 0:
            raise InvalidParameter("mu", mu, "mu > 0", owner="SampledGaussianHullLaw")
        if not 0 < self._q < 1:
            raise InvalidParameter("p", q, "0 < p < 1", owner="SampledGaussianHullLaw",
                                   hint="C_0(G_mu) = Id and C_1(G_mu) = G_mu")
        self.mu, self.q = float(self._mu), float(self._q)
        #: the atom at loss 0 (float; :meth:`atom` is its ball)
        self.m0 = (1 - self.q) * math.erf(self.mu / (2 * math.sqrt(2)))
        self._floats: dict = {}
        self._covers: dict = {}
        self._consts: dict = {}
        self._panels: dict = {}

    def __repr__(self) -> str:
        return f"SampledGaussianHullLaw(mu={self._mu}, p={self._q})"

    # -- exact pieces -----------------------------------------------------------------------------
    def _balls(self) -> tuple[arb, arb]:
        return to_arb(self._mu), to_arb(self._q)

    def atom(self) -> arb:
        """m0 = (1 - p)(2 Phi(mu/2) - 1) = (1 - p)(1 - 2 Phi_c(mu/2)), a ball."""
        mu, q = self._balls()
        return (1 - q) * (1 - 2 * norm_sf(mu / 2))

    def _x_end(self, c: float, bits: float) -> float:
        """An end X of the x-range: the tail beyond is about 2^-bits of the integral's scale."""
        return max(0.5 * self.mu, (1 + c) * self.mu) + math.sqrt(2 * bits * math.log(2)) + 4.0

    def _tail(self, c: arb, x_end: arb, power: int) -> arb:
        """Bound of int_X^oo phi(x) |log w|^power (w^{1+c} + w^{-c}) dx (power 0, 1, 2), from
        log w <= mu x and 1 <= w <= Y for x >= mu/2: Gaussian moments of phi(x - m)."""
        mu = self._mu_arb()
        m = (1 + c) * mu
        scale = (mu * mu * c * (c + 1) / 2).exp()
        return mu**power * (scale * _gauss_moment(x_end, m, power)
                            + _gauss_moment(x_end, arb(0), power))

    def _mu_arb(self) -> arb:
        return to_arb(self._mu)

    # -- the moment generating function ----------------------------------------------------------
    def _integrand(self, z: acb, kind: str):
        """The integrand in u = x - mu/2 >= 0: "m" phi (w^{1+z} + w^{-z}) (D), "d" phi log w
        (w^{1+z} - w^{-z}) (dD/dz), "e2" phi (log w)^2 (w^{1+z} + w^{-z}) (d^2 D/dz^2)."""
        mu, q = self._balls()
        one_q, half = 1 - q, mu / 2
        ls = log_sqrt_2pi()
        zp = 1 + z

        def f(u, analytic):
            x = u + half
            w = one_q + q * (mu * u).exp()
            lw = w.log(analytic=analytic)
            lp = -(x * x) / 2 - ls
            a, b = (lp + zp * lw).exp(), (lp - z * lw).exp()
            if kind == "m":
                return a + b
            if kind == "d":
                return lw * (a - b)
            return lw * lw * (a + b)

        return f

    def _integral(self, z: acb, kind: str, log_scale: float, rel_bits: int) -> acb:
        """int_{mu/2}^oo of the integrand ``kind`` (:meth:`_integrand`), a certified ball: Arb's
        integration on [mu/2, X] to about 2^-rel_bits of e^log_scale plus the tail bound."""
        c = z.real
        c_f = float(c.mid())
        x_end = self._x_end(max(c_f, 0.0), rel_bits + 8)
        power = {"m": 0, "d": 1, "e2": 2}[kind]
        tol = arb(2) ** (-rel_bits) * arb(log_scale).exp()
        while True:
            tail = self._tail(c, arb(x_end), power)
            if tail < tol / 8 or x_end > 1e6:
                break
            x_end += 4.0
        val = budget.integral(self._integrand(z, kind), 0, x_end - self.mu / 2,
                              rel_tol=arb(2) ** (-rel_bits), abs_tol=tol / 4)
        r = pm(tail)
        return acb(val.real + r, val.imag + r)

    def _scale(self, c: float) -> float:
        """Float log(M'(c) - m0) (the density part at real c): the scale of the tolerances."""
        return self._float(c).log_d

    def mgf(self, z: acb) -> acb:
        """M'(z) = m0 + D(z), Re z > 0, to a relative accuracy about 2^(30 - prec) of M'(c)."""
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        return self.density_at(z) + self.atom()

    def loss_sup(self) -> arb | None:
        return None

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        """None: the atom at 0 keeps |M'(c + it)| above m0 - |D| at every t."""
        return None

    def inverse(self) -> SampledGaussianHullLaw:
        """C_p(G_mu) is symmetric (Dong, Roth & Su, Sec. 4.1): its own inverse."""
        return self

    # -- planning (floats) ---------------------------------------------------------------------
    def _float(self, c: float) -> _FloatTilt:
        ft = self._floats.get(c)
        if ft is None:
            if len(self._floats) >= 16 * _CACHE:
                self._floats.clear()
            ft = self._floats[c] = _FloatTilt(self, c)
        return ft

    def cumulants(self, c: float) -> tuple[float, float, float]:
        """Float log M'(c) and its first two derivatives in c."""
        return self._float(c).cumulants()

    def log_decay_estimate(self, c: float, t: float) -> float:
        """Float estimate of log :meth:`decay_bound` (the same cover, float values)."""
        return self._cover(c).log_estimate(t)

    # -- rigorous decay ----------------------------------------------------------------------------
    def _cover(self, c: float) -> _Cover:
        cov = self._covers.get(c)
        if cov is None:
            if len(self._covers) >= _CACHE:
                self._covers.pop(next(iter(self._covers)))
            cov = self._covers[c] = _Cover(self, c)
        return cov

    def decay_bound(self, c: arb, t: arb) -> arb:
        """An upper bound of |M'(c + it')| for every t' >= t >= 0 (the module's cover)."""
        with _decay_precision():
            if c.rad() == 0:
                return self._cover(float(c.mid())).bound(max(float(t.lower()), 0.0))
            # (a ball of c: |M'(c' + it)| <= M'(c') <= the larger end's, M' being convex)
            ends = self.mgf(acb(arb(c.upper()))).real.union(self.mgf(acb(arb(c.lower()))).real)
            return arb(upper(ends))

    def far_constant(self, c: float) -> arb:
        """C2 of the module (an upper bound, a ball of zero radius): |D(c + it)| <= C2 / ((c +
        1/2)^2 + t^2) for every real t."""
        key = ("C2", c)
        if key not in self._consts:
            with _decay_precision():
                self._consts[key] = arb(upper(self._c2(arb(c))))
        return self._consts[key]

    def second_moment(self, c: float) -> arb:
        """E2 = E_A'[L'^2 e^{cL'}; L' != 0] (an upper bound), which bounds |d^2 D(c + it) / dt^2|
        (the atom at 0 does not move with t)."""
        key = ("E2", c)
        if key not in self._consts:
            with _decay_precision():
                v = self._integral(acb(c), "e2", self._float(c).log_e2, 40).real
                self._consts[key] = arb(upper(v))
        return self._consts[key]

    def _c2(self, c: arb) -> arb:
        """C2 of the module: 2 |g'(0)| + int_{mu/2}^oo |H'(x)| (w^e + w^-e) dx, e = c + 1/2,
        the integral in u = x - mu/2 written so that u enters each ball operation few times
        (the naive form's s = pY/w and log w lost so much to dependency that Arb's integration
        reached its evaluation limit, 68,100 calls, with a vacuous ball at mu = 5, p = 99/100):
        with Y = e^{mu u}, t = 1 - s = 1 / (1 + e^{z}), z = mu u - log((1 - p)/p), and
        l = log(w / Y) = log p + log(1 + e^{-z}), the bracket is u^2 + 4 mu u t + 3/2 mu^2 t
        (1 + 3/2 t) - 1 (a = -u - 3/2 mu t) and phi(x) w^{5/2 +- e} / (mu p Y)^2 = exp(k0 -
        (u -+ e mu)^2 / 2 + (5/2 +- e) l), k0 = (e mu)^2 / 2 - mu^2 / 8 - log(sqrt(2 pi) mu^2
        p^2)."""
        mu, q = self._balls()
        ls = log_sqrt_2pi()
        g1 = 3 * (-(mu * mu) / 8 - ls).exp() * (1 - q) / (2 * mu * q * q)  # |g'(0)|
        e = c + arb(0.5)
        em = e * mu
        log_rho, log_q = ((1 - q) / q).log(), q.log()
        k0 = em * em / 2 - mu * mu / 8 - ls - 2 * (mu * q).log()

        def f(u, analytic):
            z = mu * u - log_rho
            t = 1 / (1 + z.exp())
            ell = log_q + (1 + (-z).exp()).log(analytic=analytic)
            poly = u * u + 4 * mu * u * t + 1.5 * mu * mu * t * (1 + 1.5 * t) - 1
            a = (k0 - (u - em) ** 2 / 2 + (2.5 + e) * ell).exp()
            b = (k0 - (u + em) ** 2 / 2 + (2.5 - e) * ell).exp()
            return (a + b) * poly.real_abs(analytic=analytic)

        c_f = float(c.mid())
        x_end = self._x_end(c_f, 50)
        integral = budget.integral(f, 0, x_end - self.mu / 2, rel_tol=arb(2) ** -20,
                                   abs_tol=arb(2) ** -30 * g1).real
        # the tail x > X: pre * k <= phi(x) (Y^{c+1} + Y^{1/2}) / (mu p)^2, |[...]| <= (x + 3 mu)^2
        # + 1 + mu^2
        xe = arb(x_end)
        tail = arb(0)
        for ex in (c + 1, arb(0.5)):
            v = xe - ex * mu
            d = (ex + 3) * mu
            gauss = (v + 2 * d) * (-(v * v) / 2 - ls).exp() + (2 + d * d + mu * mu) * norm_sf(v)
            tail += (mu * mu * ex * (ex - 1) / 2).exp() * gauss
        return 2 * g1 + integral + tail / (mu * mu * q * q)

    def density_at(self, z: acb, kind: str = "m") -> acb:
        """D(z) ("m") or dD/dz ("d"), a certified ball at the working precision: D on the kept
        Gauss-Legendre panels of :mod:`.gaussian_sampled_hull_quad` where Re z is a float,
        else (and dD/dz) by Arb's adaptive integration."""
        c = float(z.real.mid())
        rel_bits, log_scale = max(ctx.prec - 30, 30), self._scale(c)
        if kind == "m" and z.real.rad() == 0 and z.real == arb(c):
            pan = panels_for(self, c, upper(abs(z.imag)), rel_bits, log_scale)
            if pan is not None:
                return pan.density(z.imag)
        return self._integral(z, kind, log_scale, rel_bits)


def _gauss_moment(x_end: arb, m: arb, power: int) -> arb:
    """int_X^oo x^power phi(x - m) dx for X >= 0, m >= 0 (power 0, 1, 2)."""
    v = x_end - m
    dens = (-(v * v) / 2 - log_sqrt_2pi()).exp()
    sf = norm_sf(v)
    if power == 0:
        return sf
    if power == 1:
        return dens + m * sf
    return (x_end + m) * dens + (1 + m * m) * sf


def _log_w(t: np.ndarray, q: float) -> np.ndarray:
    """log w = log(1 - q + q e^t) in floats without overflow (log1p(q expm1(t)) overflowed
    to inf, then NaN, for t > 709: C(1/10, G(1))^{(x) 10} at tol 1e-9)."""
    return t if q == 1 else np.logaddexp(math.log1p(-q), math.log(q) + t)


class _FloatTilt:
    """Float Gauss-Legendre data of the density part at one real c (planning only): nodes on
    the parts of [mu/2, X] where phi w^{1+c} or phi w^{-c} is within e^-40 of its largest."""

    def __init__(self, law: SampledGaussianHullLaw, c: float) -> None:
        mu, q = law.mu, law.q
        x_end = law._x_end(c, 60)
        coarse = np.arange(0.5 * mu, x_end + 0.5, 0.5)
        lw = _log_w(mu * (coarse - 0.5 * mu), q)
        lphi = -coarse * coarse / 2 - _LOG_SQRT_2PI
        top = np.maximum(lphi + (1 + c) * lw, lphi - c * lw)
        keep = top >= top.max() - 40
        cells = np.flatnonzero(keep[:-1] | keep[1:])
        a = coarse[cells]
        # four panels of 1/8 per cell of 1/2 (24 nodes each): fine enough for the planning
        lo = (a[:, None] + 0.125 * np.arange(4)[None, :]).ravel()
        self.x = (lo[:, None] + 0.0625 * (_GL_X[None, :] + 1)).ravel()
        self.logw0 = np.log(np.tile(0.0625 * _GL_W, lo.size)) - self.x**2 / 2 - _LOG_SQRT_2PI
        self.lw = _log_w(mu * (self.x - 0.5 * mu), q)
        self.c, self.m0 = c, law.m0
        self.pos = self.logw0 + (1 + c) * self.lw  # log of phi w^{1+c} times the weight
        self.neg = self.logw0 - c * self.lw
        both = np.concatenate([self.pos, self.neg])
        self.log_d = logsumexp(both)  # log D(c)
        lo2 = np.concatenate([self.lw, self.lw]) ** 2
        self.log_e2 = logsumexp(both + np.log(np.maximum(lo2, 1e-300)))  # log E2

    def cumulants(self) -> tuple[float, float, float]:
        top = max(self.log_d, math.log(self.m0))
        wp, wn = np.exp(self.pos - top), np.exp(self.neg - top)
        m = self.m0 * math.exp(-top) + wp.sum() + wn.sum()
        m1 = (np.dot(wp, self.lw) - np.dot(wn, self.lw)) / m
        m2 = (np.dot(wp, self.lw**2) + np.dot(wn, self.lw**2)) / m
        return top + math.log(m), float(m1), float(max(m2 - m1 * m1, 1e-300))

    def density(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Float D(c + it) and dD/dt at the points t (oscillation resolved to |t| about 60 /
        (mu * 1/16): a planning estimate)."""
        t = np.asarray(t, dtype=float)[:, None]
        ph = np.exp(1j * t * self.lw[None, :])
        a = np.exp(self.pos)[None, :] * ph
        b = np.exp(self.neg)[None, :] / ph
        d = (a + b).sum(axis=1)
        dd = 1j * ((a - b) * self.lw[None, :]).sum(axis=1)
        return d, dd


class _Cover:
    """The decay bound of |M'(c + it)| at one c (see the module): Taylor cells on [0, t_far],
    the far bound beyond; rigorous cells computed on demand, float ones at once. The cells
    [b_k, b_{k+1}] have radius r_k = min(max(r_min, theta t_k), r_cap): growing geometrically
    (theta = :data:`_CELL_GROWTH`) where |M'| is near 1 (many factors: there |M'|^T needs
    r^2 E2 / 2 small against 1 - |M'|, which grows like t^2), at most r_cap (r_cap^2 E2 / 2 =
    :data:`_CELL_SHARE` (1 - m0)) further out."""

    def __init__(self, law: SampledGaussianHullLaw, c: float) -> None:
        self.law, self.c = law, c
        ft = law._float(c)
        one = 1 - law.m0
        # (floats for the layout only: the bounds use the rigorous E2 and C2)
        e2 = math.exp(min(ft.log_e2, 700.0))
        c2 = float(law.far_constant(c).mid())  # (OverflowError where c is far out: the
        # inversion then declines, ArithmeticError)
        s2 = (c + 0.5) ** 2
        self.t_far = math.sqrt(max(c2 / (_FAR_SHARE * one) - s2, 1.0))
        r_cap = math.sqrt(2 * _CELL_SHARE * one / e2)
        r_min = min(r_cap, _CELL_MIN)
        edges = [0.0]
        while edges[-1] < self.t_far and len(edges) <= _MAX_CELLS:
            b = edges[-1]
            # t_k = b + r and r = theta t_k give r = theta b / (1 - theta)
            r = min(max(r_min, _CELL_GROWTH * b / (1 - _CELL_GROWTH)), r_cap)
            edges.append(b + 2 * r)
        if edges[-1] < self.t_far:  # (at most _MAX_CELLS: the last ones wider, never wrong)
            edges[-1] = self.t_far
        self.edges = np.array(edges)
        self.n = len(edges) - 1
        self.t_far = float(self.edges[-1])
        self.centres = (self.edges[1:] + self.edges[:-1]) / 2
        self.radii = (self.edges[1:] - self.edges[:-1]) / 2
        d, dd = ft.density(self.centres)
        rr = self.radii
        est = np.maximum(np.abs(d + rr * dd), np.abs(d - rr * dd)) + rr * rr * e2 / 2
        # as :meth:`density_bound`: the cells from cell k on until the far bound from the next
        # cell's start is below their maximum
        far_from = c2 / (s2 + self.edges**2)
        self.float_cells = np.empty(self.n)
        for k in range(self.n):
            best, j = 0.0, k
            while j < self.n and far_from[j] > best:
                best = max(best, float(est[j]))
                j += 1
            self.float_cells[k] = max(best, float(far_from[j]))
        self.log_top = ft.cumulants()[0]
        self.cells: dict[int, arb] = {}
        self.top: float | None = None
        self.bounds: dict[float, float] = {}

    def _k(self, t: float) -> int:
        """The cell that holds t < t_far."""
        return min(int(np.searchsorted(self.edges, t, side="right")) - 1, self.n - 1)

    def density_estimate(self, t: float) -> float:
        """Float estimate of :meth:`density_bound`."""
        if t >= self.t_far:
            c2 = float(self.law.far_constant(self.c).mid())
            return c2 / ((self.c + 0.5) ** 2 + t * t)
        return float(self.float_cells[self._k(t)])

    def log_estimate(self, t: float) -> float:
        return min(math.log(self.law.m0 + self.density_estimate(t)), self.log_top)

    def _cell(self, k: int) -> arb:
        """A rigorous bound of |D(c + it)| on cell k."""
        if k not in self.cells:
            law = self.law
            z = acb(self.c, float(self.centres[k]))
            a = law.density_at(z, "m")
            b = law.density_at(z, "d") * acb(0, 1)  # dD/dt = i dD/dz
            # (the cell [b_k, b_{k+1}] lies within centre +- r, r rounded up)
            ck, lo, hi = (arb(float(v)) for v in (self.centres[k], self.edges[k],
                                                   self.edges[k + 1]))
            r = arb(max(upper(ck - lo), upper(hi - ck)))
            e2 = law.second_moment(self.c)
            self.cells[k] = (abs(a + r * b)).union(abs(a - r * b)) + r * r * e2 / 2
        return self.cells[k]

    def density_bound(self, t: float) -> float:
        """A float >= |D(c + it')| for every t' >= t >= 0: the cells from t on and the far bound."""
        if t not in self.bounds:
            c2 = self.law.far_constant(self.c)
            s2 = (arb(self.c) + arb(0.5)) ** 2
            far = lambda u: upper(c2 / (s2 + arb(u) ** 2))  # noqa: E731 (valid for t' >= u)
            best = 0.0
            k = self._k(t) if t < self.t_far else self.n
            # cells from t on, until the far bound from the next cell's start is below the
            # largest so far (it holds for every t' beyond: the rest need not be computed)
            while k < self.n and far(float(self.edges[k])) > best:
                best = max(best, upper(self._cell(k)))
                k += 1
            best = max(best, far(max(t, float(self.edges[k]))))
            self.bounds[t] = min(best, self.d_top())
        return self.bounds[t]

    def d_top(self) -> float:
        """A float >= D(c) >= |D(c + it)|."""
        if self.top is None:
            self.top = upper(self.law.density_at(acb(self.c)).real)
        return self.top

    def bound(self, t: float) -> arb:
        return arb(upper(self.law.atom() + arb(self.density_bound(t))))


class HullPowerRemainder:
    """The k-fold product of :class:`SampledGaussianHullLaw` less its terms with fewer than J
    density components (J = 1: the atom m0^k at loss 0; J = 2: also the k terms with one, k
    m0^{k-1} D): the positive measure with transform

        R_J(z) = M'(z)^k - sum_{j < J} C(k, j) m0^{k-j} D(z)^j = sum_{j >= J} C(k, j) m0^{k-j} D^j,

    as one factor (n = 1) of the inversion. The atom adds m0^k (1 - e^eps)_+ = 0 to delta(eps)
    for eps >= 0, and the terms with one density component add k m0^{k-1} delta_1(eps)
    (:class:`OneComponent`), so delta(eps) of C_p(G_mu)^{(x) k} is R_J's inversion plus that,
    for every k. Decay: with |D(c + it')| <= d(t) for t' >= t (the cover), |R_J| <= sum_{j >= J}
    C(k, j) m0^{k-j} d^j, and, C(k, j) <= C(k, J) C(k - J, j - J), |R_J| <= C(k, J) d^J
    M'(c)^{k-J} <= C(k, J) (C2 / t^2)^J M'(c)^{k-J}: a power decay of order 2 J."""

    closed_under_tensor = False

    def __init__(self, law: SampledGaussianHullLaw, k: int, J: int = 2) -> None:
        if int(k) != k or k < 1:
            raise InvalidParameter("k", k, "an integer >= 1", owner="HullPowerRemainder")
        if J not in (1, 2) or J > k:
            raise InvalidParameter("J", J, f"1 or 2, at most k = {k}", owner="HullPowerRemainder")
        self.law, self.k, self.J = law, int(k), J

    def __repr__(self) -> str:
        return f"HullPowerRemainder({self.law!r}, {self.k}, {self.J})"

    def _share(self, rho: float) -> tuple[float, float, float]:
        """(R_J / M'^k, R_J' / (M'^k k k1), 1 - rho^{k-1} or 1) at rho = m0 / M'(c) (floats)."""
        k = self.k
        lead = -math.expm1(k * math.log(rho))  # 1 - rho^k
        if self.J == 1:
            return lead, 1.0, 1.0
        tail = -math.expm1((k - 1) * math.log(rho))  # 1 - rho^{k-1}
        return lead - k * rho ** (k - 1) * (1 - rho), tail, tail

    def _guard(self, c: float) -> int:
        """Guard bits for the subtraction: log2 of M'(c)^k / R_J(c), plus 16."""
        share = self._share(math.exp(math.log(self.law.m0) - self.law.cumulants(c)[0]))[0]
        return 16 + int(-math.log2(max(share, 1e-300)) + 1)

    def _arb_r(self, d, m0):
        """sum_{j >= J} C(k, j) m0^{k-j} d^j from d (a ball or acb) and m0."""
        k = self.k
        r = (m0 + d) ** k - m0**k
        return r if self.J == 1 else r - k * m0 ** (k - 1) * d

    def mgf(self, z: acb) -> acb:
        saved = ctx.prec
        ctx.prec = saved + self._guard(float(z.real.mid()))
        try:
            r = self._arb_r(self.law.density_at(z), self.law.atom())
        finally:
            ctx.prec = saved
        return +r

    def cumulants(self, c: float) -> tuple[float, float, float]:
        """From those of M' (k1 = M'_c / M', k2 + k1^2 = M'_cc / M'), divided by M'^k:
        R_J = M'^k share, R_J' = k k1 M'^k tail, R_J'' = M'^k (k(k-1) k1^2 + k (k2 + k1^2)
        tail) (tail = 1 - rho^{k-1} for J = 2, 1 for J = 1)."""
        k0, k1, k2 = self.law.cumulants(c)
        k = self.k
        share, tail, _ = self._share(math.exp(math.log(self.law.m0) - k0))
        first = k * k1 * tail / share
        second = (k * (k - 1) * k1 * k1 + k * (k2 + k1 * k1) * tail) / share
        return k * k0 + math.log(share), first, max(second - first * first, 1e-300)

    def decay_bound(self, c: arb, t: arb) -> arb:
        with _decay_precision():
            if c.rad() != 0:  # (|R_J(c + it)| <= R_J(c) <= the larger end's: R_J is convex)
                return arb(upper(self.mgf(acb(arb(c.upper()))).real.union(
                    self.mgf(acb(arb(c.lower()))).real)))
            cov = self.law._cover(float(c.mid()))
            d = arb(cov.density_bound(max(float(t.lower()), 0.0)))
            return arb(upper(self._arb_r(d, self.law.atom())))

    def log_decay_estimate(self, c: float, t: float) -> float:
        cov = self.law._cover(c)
        d = min(cov.density_estimate(t), math.exp(min(self.law._float(c).log_d, 700.0)))
        m0, k = self.law.m0, self.k
        b = (m0 + d) ** k - m0**k - (k * m0 ** (k - 1) * d if self.J == 2 else 0.0)
        return math.log(b) if b > 0 else -math.inf

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        with _decay_precision():
            c_f = float(c.mid()) if c.rad() == 0 else float(c.upper())
            top = self.law.mgf(acb(arb(c_f))).real
            J = self.J
            v = comb(self.k, J) * self.law.far_constant(c_f) ** J * top ** (self.k - J)
            return v, 2 * J

    def loss_sup(self) -> arb | None:
        return None

    def inverse(self) -> HullPowerRemainder:
        return self


class OneComponent:
    """The terms of C_p(G_mu)^{(x) k} with exactly one density component: k m0^{k-1} times the
    density part's delta_1(eps) = E_A'[(1 - e^{eps - L'})_+; L' != 0], which for eps >= 0 is
    delta of f_p (only losses above eps >= 0 count): A(L > eps) - e^eps B(L > eps) = (1 - p)
    Phi_c(x_e) + p Phi_c(x_e - mu) - e^eps Phi_c(x_e), L(x_e) = eps, x_e = (log((e^eps - 1 +
    p)/p) + mu^2/2)/mu (an Arb closed form), with derivative -e^eps Phi_c(x_e) in eps. The
    ``extra`` part of :func:`~tradeoff_algebra.numeric.cf.delta_enclosure` (its protocol:
    ``terms``, ``law``, ``k``, ``J``)."""

    J = 2

    def __init__(self, law: SampledGaussianHullLaw, k: int) -> None:
        self.law, self.k = law, int(k)

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps), Arb balls (both, whatever ``derivative``
        says: the flag of the extra-part protocol of numeric.cf_lattice; this one is cheap)."""
        if not eps >= 0:
            raise InvalidParameter("eps", eps, "eps >= 0", owner="OneComponent")
        mu, q = self.law._balls()
        e = arb(eps)
        x = (((e.exp() - 1 + q) / q).log() + mu * mu / 2) / mu
        b = norm_sf(x)
        val = (1 - q) * b + q * norm_sf(x - mu) - e.exp() * b
        der = -e.exp() * b
        w = self.k * self.law.atom() ** (self.k - 1)
        return w * val, w * der


class _decay_precision:
    """Arb's working precision :data:`_DECAY_PREC` for a block (restored after)."""

    def __enter__(self):
        self.saved = ctx.prec
        ctx.prec = _DECAY_PREC

    def __exit__(self, *exc):
        ctx.prec = self.saved
        return False


def hull_power_delta(mu: Number, p: Number, k: int, eps: float,
                     rel_tol: float = 1e-8) -> tuple[float, float]:
    """Certified bounds lo <= delta(eps) <= hi of C_p(G_mu)^{(x) k} (Dong, Roth & Su, Def. 6 and
    Thm. 9; k >= 1 steps of the subsampled Gaussian mechanism with subsampling probability p,
    eps >= 0 a float): the terms with one density component in closed form
    (:class:`OneComponent`), the rest (:class:`HullPowerRemainder`, J = 2, a transform of order
    t^-4) by the Laplace inversion (:func:`~tradeoff_algebra.numeric.cf.delta_enclosure`), to
    the relative width ``rel_tol`` (guaranteed whatever width is reached). For few steps, where
    the whole law's atom m0^k keeps the product routes from inverting; the work grows as
    rel_tol^(-1/5)."""
    if not eps >= 0:
        raise InvalidParameter("eps", eps, "eps >= 0", owner="hull_power_delta")
    if int(k) != k or k < 1:
        raise InvalidParameter("k", k, "an integer >= 1", owner="hull_power_delta")
    law = hull_law(to_fraction(mu), to_fraction(p))
    rest = [] if k == 1 else [(HullPowerRemainder(law, k, 2), 1)]
    return delta_enclosure(rest, float(eps), rel_tol, OneComponent(law, k))


@lru_cache(maxsize=32)
def hull_law(mu: Fraction, q: Fraction) -> SampledGaussianHullLaw:
    """One law per (mu, p), kept: its covers and constants are cached across calls."""
    return SampledGaussianHullLaw(mu, q)
