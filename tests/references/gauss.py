"""Gaussian references: G_mu as Phi(PhiInv(1 - alpha) - mu) with its own quantile (the
strict Neyman--Pearson threshold test of tests/reference_np.py under ``strict``), L_mu
(Dong, Roth & Su, Prop. 7; the threshold test when strict), and G_mu (x) T(P, Q) for a finite
pair (a likelihood-ratio threshold solved on sums of erfc terms).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import reference_np as rnp
from mpmath import mp

from .base import Num, Ref, _tick, strict, to_m
from .finite import Finite


def _phi_bar(t):
    return mpmath.erfc(t / mpmath.sqrt(2)) / 2


def _phi(t):
    return mpmath.erfc(-t / mpmath.sqrt(2)) / 2


def upper_quantile(a, ac):
    """t with P(N(0,1) > t) = a (Newton on the log of the smaller tail, float start)."""
    if a == 0:
        return mp.inf
    if ac == 0:
        return mp.ninf
    if a <= ac:
        target, tail, sign = mpmath.log(a), _phi_bar, 1
    else:
        target, tail, sign = mpmath.log(ac), _phi, -1
    small = a if a <= ac else ac
    # start: float quantile, or the asymptotic one for tails below the float range
    try:
        from scipy.special import ndtri

        fs = float(small)
        t0 = -ndtri(fs) if fs > 1e-300 else None
    except Exception:  # noqa: BLE001
        t0 = None
    if t0 is None or not math.isfinite(t0):
        L = -mpmath.log(small)
        t0 = mpmath.sqrt(2 * L - mpmath.log(4 * mp.pi * L))
    t = mp.mpf(t0) * sign  # t for the upper tail a, or -t' for the lower tail
    tol = mpmath.ldexp(1, -mp.prec + 8)
    for _ in range(100):
        _tick()
        s = tail(t)
        g = mpmath.log(s) - target
        dens = mpmath.npdf(t)
        dg = (-dens / s) if sign == 1 else (dens / s)
        step = g / dg
        t -= step
        if abs(step) <= tol * max(1, abs(t)):
            break
    return t


class GaussRef(Ref):
    """G_mu with mu^2 = mu2 (Fraction): Phi(PhiInv(1 - alpha) - mu); gauss_np when strict."""

    kind = "gauss"
    sym = True
    native_roc = True

    def __init__(self, mu2: Fraction, label=""):
        self.mu2, self.label = mu2, label or f"G(sqrt({mu2}))"

    def mu(self):
        return mpmath.sqrt(to_m(self.mu2))

    def val(self, a, ac, side):
        _tick()
        if strict():
            return rnp.gauss_np(self.mu(), a)
        if self.mu2 == 0:
            return ac
        t = upper_quantile(a, ac)
        if t == mp.inf:
            return mp.one
        if t == mp.ninf:
            return mp.zero
        return _phi(t - self.mu())

    def roc_val(self, a, ac, side):
        _tick()
        if strict():
            return rnp.gauss_np(self.mu(), a, roc=True)
        if self.mu2 == 0:
            return a
        t = upper_quantile(a, ac)
        if t == mp.inf:
            return mp.zero
        if t == mp.ninf:
            return mp.one
        return _phi_bar(t - self.mu())

    def bounds(self, A):
        if strict():
            v = rnp.gauss_np(self.mu(), A)
            return v, v
        return super().bounds(A)

    def roc_bounds(self, A):
        if strict():
            v = rnp.gauss_np(self.mu(), A, roc=True)
            return v, v
        return super().roc_bounds(A)

    def delta_bounds(self, eps):
        # DRS Cor. 1: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
        if self.mu2 == 0:
            return mp.zero, mp.zero
        mu = self.mu()
        if eps == 0:
            v = _phi(mu / 2) - _phi(-mu / 2)
        else:
            v = _phi(-eps / mu + mu / 2) - mpmath.exp(eps) * _phi(-eps / mu - mu / 2)
        return v, v


class LaplaceRef(Ref):
    """L_mu (DRS Prop. 7): 1 - e^mu a, e^-mu/(4a), e^-mu (1 - a); laplace_np when strict."""

    kind = "laplace"
    sym = True
    native_roc = True

    def __init__(self, mu: Num):
        self.mu_, self.label = mu, f"Laplace({mu})"

    def val(self, a, ac, side):
        mu = self.mu_.m()
        if strict():
            return rnp.laplace_np(mu, a)
        if a < mpmath.exp(-mu) / 2:
            return 1 - mpmath.exp(mu) * a
        if a <= mp.mpf(1) / 2:
            return mpmath.exp(-mu) / (4 * a)
        return mpmath.exp(-mu) * ac

    def roc_val(self, a, ac, side):
        mu = self.mu_.m()
        if strict():
            return rnp.laplace_np(mu, a, roc=True)
        if a < mpmath.exp(-mu) / 2:
            return mpmath.exp(mu) * a
        if a <= mp.mpf(1) / 2:
            return 1 - mpmath.exp(-mu) / (4 * a)
        return 1 - mpmath.exp(-mu) * ac

    def bounds(self, A):
        if strict():
            v = rnp.laplace_np(self.mu_.m(), A)
            return v, v
        return super().bounds(A)

    def roc_bounds(self, A):
        if strict():
            v = rnp.laplace_np(self.mu_.m(), A, roc=True)
            return v, v
        return super().roc_bounds(A)

    def delta_bounds(self, eps):
        mu = self.mu_.m()
        v = -mpmath.expm1((eps - mu) / 2) if eps < mu else mp.zero
        return v, v


class GaussFiniteRef(Ref):
    """G_mu (x) T(P, Q): reject when the total log-likelihood ratio exceeds s; for atom i of
    ratio r_i the Gaussian threshold is t_i = (s - log r_i)/mu + mu/2. alpha(s), beta(s) are
    sums of erfc terms; s is solved from alpha(s) = alpha on the log of the smaller tail."""

    kind = "gaussfinite"
    native_roc = True

    def __init__(self, mu2: Fraction, fin: Finite):
        self.mu2, self.fin = mu2, fin
        self.sym = fin.sym
        self.label = f"G(sqrt({mu2})) (x) {fin.label}"

    def _atoms(self):
        P, Q = self.fin.pair()
        fin, inf_q, zero_p = [], mp.zero, mp.zero
        for p, q in zip(P, Q, strict=False):
            p, q = to_m(p), to_m(q)
            if p == 0 and q == 0:
                continue
            if p == 0:
                inf_q += q
            elif q == 0:
                zero_p += p
            else:
                fin.append((p, q, mpmath.log(q / p)))
        return fin, inf_q, zero_p

    def _solve(self, a, ac):
        mu = mpmath.sqrt(to_m(self.mu2))
        fin, inf_q, zero_p = self._atoms()
        amax = sum((p for p, _, _ in fin), mp.zero)

        def alpha_s(s):
            _tick()
            return sum((p * _phi_bar((s - lr) / mu + mu / 2) for p, _, lr in fin), mp.zero)

        def alphac_s(s):
            _tick()
            return sum((p * _phi((s - lr) / mu + mu / 2) for p, _, lr in fin), zero_p)

        return mu, fin, inf_q, amax, alpha_s, alphac_s

    def _beta_power(self, a, ac):
        """(beta, power) at level a."""
        mu, fin, inf_q, amax, alpha_s, alphac_s = self._solve(a, ac)
        fin_q = sum((q for _, q, _ in fin), mp.zero)
        if a == 0:
            return fin_q, inf_q
        if a >= amax:
            return mp.zero, mp.one
        use_a = a <= ac
        if use_a:
            la = mpmath.log(a)
            h = lambda s: la - mpmath.log(alpha_s(s))  # noqa: E731  increasing in s
        else:
            lac = mpmath.log(ac)
            h = lambda s: mpmath.log(alphac_s(s)) - lac  # noqa: E731
        lo, hi = mp.mpf(-1), mp.mpf(1)
        for _ in range(200):
            if h(lo) <= 0:
                break
            lo *= 2
        for _ in range(200):
            if h(hi) >= 0:
                break
            hi *= 2
        s = rnp._solve_increasing(h, lo, hi)
        beta = sum((q * _phi((s - lr) / mu - mu / 2) for _, q, lr in fin), mp.zero)
        power = inf_q + sum((q * _phi_bar((s - lr) / mu - mu / 2) for _, q, lr in fin), mp.zero)
        return beta, power

    def val(self, a, ac, side):
        return self._beta_power(a, ac)[0]

    def roc_val(self, a, ac, side):
        return self._beta_power(a, ac)[1]

    def delta_bounds(self, eps):
        mu = mpmath.sqrt(to_m(self.mu2))
        fin, inf_q, _ = self._atoms()
        E = mpmath.exp(eps)
        d = inf_q
        for p, q, lr in fin:
            t = (eps - lr) / mu + mu / 2
            d += q * _phi_bar(t - mu) - E * p * _phi_bar(t)
        return d, d

