"""Certified loss tails from the Laplace inversion of :mod:`.cf`: the points of the trade-off
curve, not only the privacy profile, from the same nodes.

For the loss L = log(dA/dB) of a product (law under A, moment generating function
M(z) = E_A[e^{zL}]), the Neyman-Pearson test that rejects when L > eps has size
alpha = B(L > eps) and power p = A(L > eps), and

    delta(eps)  = p - e^eps alpha                 (Dong, Roth & Su, Prop. 6 / Eq. (10)),
    F_A(eps)    = A(L > eps)                = (1/2pi) int e^{-z eps} M(z) / z       dt,
    F_B(eps)    = e^eps B(L > eps)          = (1/2pi) int e^{-z eps} M(z) / (z + 1) dt,

on Re z = c > 0, z = c + it (the two-sided Laplace transforms of 1{x > eps} and
e^{eps - x} 1{x > eps} are e^{-z eps}/z and e^{-z eps}/(z + 1)). With the inverter's products
P_k = M(z_k)/(z_k (z_k + 1)), M/z = P (z + 1) and M/(z + 1) = P z, so the three trapezoidal
sums are one polynomial in w = e^{-i h eps} and its k-weighted twin, evaluated in Arb
(python-flint ``acb_poly``; Horner's rule on the coefficients' midpoints with K/2 guard bits,
their radii added once, since complex balls grow by up to sqrt 2 a step):
S0 = sum' P_k w^k, S1 = sum k P_k w^k (the k = 0 term halved),

    delta_h = (h/pi) e^{-c eps} Re S0,   F_B,h = (h/pi) e^{-c eps} Re(c S0 + i h S1),
    F_A,h   = delta_h + F_B,h.

Errors (derived here). *Aliasing.* Each F in {delta, F_A, F_B} has e^{c x} F(x) in L1 with
Fourier transform M(c + it) times its kernel, which is in L1 where |M(c + it)| decays like a
power of t (``power_decay``); both decay faster than 1/|x|^2 (e^{cx} F(x) exponentially on
both sides, the transform like t^{-P-1}, P >= 1), so Poisson summation holds pointwise and the
trapezoidal sum on the whole line is

    sum_m e^{2 pi m c / h} F(eps + 2 pi m / h) >= F(eps),

a sum of non-negative terms. Every F is at most A(L > x) <= min(1, e^{-c' x} M(c')) (Chernoff,
any c' > 0), so the terms m >= 1 add at most e^{-(c+a) eps} M(c + a) / (e^{2 pi a / h} - 1) and
the terms m <= -1 at most min(1 / (e^{2 pi c / h} - 1), e^{-(c-a) eps} M(c - a) /
(e^{2 pi a / h} - 1)): the sum lies above F by at most that (one-sided). *Truncation.* The
nodes |k| > K are left out; |1/z| and |1/(z + 1)| are at most 1/|z| for Re z > -1/2, and with
D(t) >= sup_{t' >= t} |M(c + it')| (the laws' ``decay_bound``) on the inverter's segments and
|M(c + it)| <= V / t^P beyond (``power_decay``, the laws without it by D),
h sum_{kh > t_J} |M| / |z| <= D(t_J) (asinh((T + h)/c) - asinh(t_J/c)) + V T^{-P} / P for
any T >= t_J (1/|z| is decreasing in t, so each node's term is at most the integral over the
step before it). delta's truncation is the inverter's own (its kernel decays like 1/t^2).

Everything certified is an Arb ball; the float methods (:meth:`TailInverter.estimate`,
:meth:`TailInverter.error`) only place the points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from flint import acb, acb_poly, arb

from .cf import _Inverter
from .cf_laws import Factor, upper, working_precision

__all__ = ["TailInverter", "TailPoint", "tail_inverter"]


def atom_tails(x: arb) -> tuple[arb, arb] | None:
    """The tails' terms (P, Q) of an atom at distance x below the threshold: 1{x < 0} and
    e^x 1{x < 0}; None where x >= 0 is proved (no term), both cases' union where x straddles 0."""
    if x < 0:
        return arb(1), x.exp()
    if x >= 0:
        return None
    return arb(0).union(arb(1)), arb(0).union(x.exp())


class TailPoint:
    """Certified balls at one eps: ``delta`` = delta(eps), ``power`` = A(L > eps) and
    ``alpha`` = B(L > eps) (the Neyman-Pearson point of threshold eps, on the curve)."""

    __slots__ = ("eps", "delta", "power", "alpha")

    def __init__(self, eps: float, delta: arb, power: arb, alpha: arb):
        self.eps, self.delta, self.power, self.alpha = eps, delta, power, alpha


def _interval(lo: arb, hi: arb) -> arb:
    """The ball holding [lo, hi] (lo <= hi as balls' ends)."""
    return arb(lo.lower()).union(arb(hi.upper()))


def tail_inverter(factors: Sequence[Factor], inv: _Inverter) -> TailInverter | None:
    """The tails of ``inv`` (an inverter of :mod:`.cf` for ``factors``), or None where they are
    not certified here: an exactly summed part, or no law with a power decay (then the kernel
    1/z is not summable and the aliasing identity is not proved)."""
    if inv.extra is not None:
        return None
    try:
        t = TailInverter(factors, inv)
    except (ValueError, ArithmeticError):
        return None
    return t if t.ok else None


class TailInverter:
    """delta, A(L > eps) and B(L > eps) at any eps from one inverter's nodes (module
    docstring)."""

    def __init__(self, factors: Sequence[Factor], inv: _Inverter) -> None:
        plan = self.plan = inv.plan
        self.ok = True
        with working_precision(plan.prec):
            c, h, a = arb(plan.c), arb(plan.h), arb(plan.a)
            p = inv._p
            c0 = [p[0] / 2] + list(p[1:])
            c1 = [acb(0)] + [p[k] * k for k in range(1, len(p))]
            # Horner's rule in complex balls multiplies a radius by up to |Re w| + |Im w| <= sqrt2
            # per step: the polynomials hold the exact midpoints, evaluated with K/2 more bits,
            # and the coefficients' radii are added once (|w| = 1: sum_k rad_k bounds them)
            self._poly, self._rad0 = _split(c0)
            self._kpoly, self._rad1 = _split(c1)
            self.eval_prec = plan.prec + (len(p) + 1) // 2 + 16
            ea = (2 * arb.pi() * a / h).expm1()
            self._up = inv._m_side[1] / ea  # times e^{-(c+a) eps}
            self._dn = inv._m_side[0] / ea  # times e^{-(c-a) eps}
            self._dn_const = 1 / (2 * arb.pi() * c / h).expm1()
            self._tr_delta = inv._trunc_coeff / arb.pi()  # times e^{-c eps}
            tr = self._tail_truncation(factors, c, h)
            if tr is None:
                self.ok = False
                return
            self._tr_tail = tr / arb.pi()
            self._c, self._h, self._a = c, h, a
        # floats for placing points
        k = np.arange(len(p))
        pf = np.array([complex(float(v.real.mid()), float(v.imag.mid())) for v in p])
        pf[0] /= 2
        # the three sums' coefficients: as columns (one matrix product for few eps) and in
        # Horner's order (many eps: a multiply-add per node and eps instead of an exp)
        self._fcoef = np.stack([pf, k * pf, k**2 * pf], axis=1)
        self._fpolys = [pf[::-1], (k * pf)[::-1], (k**2 * pf)[::-1]]
        self._fk = k.astype(np.float64)
        # the sums' own radius (the mgf balls and rounding), times e^{-c eps}
        size = np.abs(plan.c + 1j * plan.h * k) + 1
        rad = np.array([float(v.rad()) for v in p])
        self._sum_rad = plan.h / math.pi * float(
            np.sum((rad + 2.0 ** (8 - plan.prec) * np.abs(pf)) * size))
        self._fl = (float(upper(self._up)), float(upper(self._dn)), float(upper(self._dn_const)),
                    float(upper(self._tr_delta)), float(upper(self._tr_tail)))

    def _tail_truncation(self, factors: Sequence[Factor], c: arb, h: arb) -> arb | None:
        segs = [h * m for m in self.plan.segments]
        decays = [[law.decay_bound(c, t) for law, _ in factors] for t in segs]
        total = arb(0)
        for j in range(len(segs) - 1):
            d = arb(1)
            for (_, n), dj in zip(factors, decays[j], strict=True):
                d *= dj**n
            total += d * ((segs[j + 1] / c).asinh() - (segs[j] / c).asinh())
        t_last = segs[-1]
        d_last, v, p_tot = arb(1), arb(1), 0
        for (law, n), dj in zip(factors, decays[-1], strict=True):
            d_last *= dj**n
            pw = law.power_decay(c)
            if pw is not None:
                v *= pw[0] ** n
                p_tot += n * pw[1]
            else:
                v *= dj**n
        if p_tot == 0:
            return None
        # T: V T^-P / P at most 1e-3 of the other truncation terms (delta's, the segments')
        target = 1e-3 * max(upper(total), upper(self._tr_delta), 2.0**-1000)
        log_t = max(math.log(upper(t_last)),
                    (upper(v.log()) - math.log(p_tot * target)) / p_tot)
        big_t = arb(math.exp(log_t))
        # the nodes in (t_J, T + h] by D(t_J) (each node's step [kh - h, kh] lies in
        # [t_J, T + h]), those beyond by the power (their steps lie beyond T)
        final = d_last * (((big_t + h) / c).asinh() - (t_last / c).asinh()) \
            + v / big_t**p_tot / p_tot
        return total + final

    # -- certified --------------------------------------------------------------------------
    def point(self, eps: float) -> TailPoint:
        """Certified balls of delta(eps), A(L > eps), B(L > eps) at the float ``eps`` >= 0."""
        with working_precision(self.eval_prec):
            return self.point_here(eps)

    def point_here(self, eps: float) -> TailPoint:
        """:meth:`point` at the current Arb precision (at least :attr:`eval_prec`, set by the
        caller for many points at once)."""
        c, h, a = self._c, self._h, self._a
        e = arb(eps)
        w = acb(0, -h * e).exp()
        s0, s1 = _sum(self._poly, self._rad0, w), _sum(self._kpoly, self._rad1, w)
        ce = (-c * e).exp()
        ea = (a * e).exp()
        scale = h / arb.pi() * ce
        d = scale * s0.real
        fb = scale * (c * s0.real - h * s1.imag)
        disc = self._up * ce / ea
        dn = self._dn * ce * ea
        disc += dn if dn < self._dn_const else self._dn_const
        tr_d, tr_t = self._tr_delta * ce, self._tr_tail * ce
        zero, one = arb(0), arb(1)
        delta = _clip(_interval(d - disc - tr_d, d + tr_d), zero, one)
        fa_h = d + fb
        power = _clip(_interval(fa_h - disc - tr_t, fa_h + tr_t), zero, one)
        fbb = _clip(_interval(fb - disc - tr_t, fb + tr_t), zero, one)
        alpha = _clip((-e).exp() * fbb, zero, one)
        # delta = power - e^eps alpha: each ball narrows the others
        delta = _meet(delta, power - e.exp() * alpha)
        return TailPoint(eps, delta, power, alpha)

    def delta(self, eps: float) -> arb:
        """A certified ball of delta(eps) alone (one polynomial: for the larger-delta check of
        a direction whose point is not needed)."""
        with working_precision(self.eval_prec):
            return self.delta_here(eps)

    def delta_here(self, eps: float) -> arb:
        """:meth:`delta` at the current Arb precision (see :meth:`point_here`)."""
        c, h, a = self._c, self._h, self._a
        e = arb(eps)
        s0 = _sum(self._poly, self._rad0, acb(0, -h * e).exp())
        ce = (-c * e).exp()
        ea = (a * e).exp()
        d = h / arb.pi() * ce * s0.real
        disc = self._up * ce / ea
        dn = self._dn * ce * ea
        disc += dn if dn < self._dn_const else self._dn_const
        tr_d = self._tr_delta * ce
        return _interval(d - disc - tr_d, d + tr_d)

    # -- floats (placement only) ------------------------------------------------------------
    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """Float estimates at the array ``eps``: (delta, power, alpha, d power / d eps,
        d alpha / d eps) from the trapezoidal sums' midpoints."""
        c, h = self.plan.c, self.plan.h
        e = np.asarray(eps, dtype=np.float64)
        s0, s1, s2 = self._float_sums(e)
        scale = h / math.pi * np.exp(-c * e)
        d = scale * s0.real
        fb = scale * (c * s0.real - h * s1.imag)
        dfb = scale * (-c * c * s0.real + 2 * c * h * s1.imag + h * h * s2.real)
        ee = np.exp(-e)
        alpha = ee * fb
        dalpha = ee * (dfb - fb)
        return d, d + fb, alpha, dfb - fb, dalpha

    def _float_sums(self, e: np.ndarray) -> tuple[np.ndarray, ...]:
        """sum_k k^j P_k w^k (j = 0, 1, 2; P_0 halved) at w = e^{-i h eps}: for few eps each
        power of w taken directly (no Python loop over the nodes), else by Horner's rule."""
        if e.size > FEW_EPS:
            w = np.exp(-1j * self.plan.h * e)
            return tuple(np.polyval(q, w) for q in self._fpolys)
        flat = e.ravel()
        out = np.empty((flat.size, 3), dtype=np.complex128)
        step = max(1, (1 << 20) // max(self._fk.size, 1))
        for i in range(0, flat.size, step):
            part = flat[i:i + step]
            out[i:i + step] = np.exp(np.outer(-1j * self.plan.h * part, self._fk)) @ self._fcoef
        return tuple(out[:, j].reshape(e.shape) for j in range(3))

    def error(self, eps: np.ndarray) -> np.ndarray:
        """Float estimate of the absolute error bound of the tails at ``eps``."""
        c, a = self.plan.c, self.plan.a
        up, dn, dn_c, _, tr = self._fl
        e = np.asarray(eps, dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            return (up * np.exp(-(c + a) * e) + np.minimum(dn * np.exp(-(c - a) * e), dn_c)
                    + (tr + self._sum_rad) * np.exp(-c * e))


#: Up to this many eps, the float sums take each power of w directly (a matrix product).
FEW_EPS = 16


def _split(coeffs: list) -> tuple[acb_poly, arb]:
    """The polynomial of the coefficients' exact midpoints, and a bound (with a margin for
    |w| <= 1 + 2^-prec) of sum_k |c_k - mid c_k|."""
    mids = acb_poly([acb(x.real.mid(), x.imag.mid()) for x in coeffs])
    rad = sum((x.real.rad() + x.imag.rad() for x in coeffs), arb(0))
    return mids, arb(upper(rad * arb("1.001")))


def _sum(poly: acb_poly, rad: arb, w: acb) -> acb:
    """poly(w) + every point of the disc of radius ``rad`` (a ball holding sum_k c_k w^k)."""
    v = poly(w)
    r = arb(0, upper(rad))
    return acb(v.real + r, v.imag + r)


def _clip(x: arb, lo: arb, hi: arb) -> arb:
    """x intersected with [lo, hi] (the truth lies in both)."""
    if x.lower() >= lo and x.upper() <= hi:
        return x
    return _interval(lo if x.lower() < lo else arb(x.lower()),
                     hi if x.upper() > hi else arb(x.upper()))


def _meet(x: arb, y: arb) -> arb:
    """The intersection of two balls that both hold the truth (x where they do not meet)."""
    try:
        return x.intersection(y)
    except ValueError:
        return x
