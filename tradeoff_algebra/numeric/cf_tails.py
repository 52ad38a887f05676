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
sums are one polynomial in w = e^{-i h eps} and its k-weighted twin, evaluated in Arb on the
coefficients' exact midpoints, their radii added once (:class:`_Blocks`):
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

*Evaluation.* Horner's rule in complex balls multiplies a radius by up to
|Re w| + |Im w| <= sqrt 2 a step (a rotated box is boxed again), so K nodes would need about
K/2 guard bits. Blocks of m ~ sqrt K coefficients (rectangular splitting) keep every chain
short: S = sum_j W^j B_j with W = w^m and B_j = sum_{i<m} c_{jm+i} w^i, the powers w^i by a
chain of m products, all the B_j (of both sums) by one ``acb_mat`` product of the
coefficients' block matrix with the column (w^i), and the sum over j by Horner's rule in W
(nb = K/m steps): about (m + nb)/2 guard bits. It is the same finite sum regrouped, in ball
arithmetic throughout, so the enclosure holds at any precision; the guard bits only keep it
narrow.

Everything certified is an Arb ball; the float methods (:meth:`TailInverter.estimate`,
:meth:`TailInverter.error`) only place the points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from flint import acb, acb_mat, acb_poly, arb

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


def tail_inverter(factors: Sequence[Factor], inv: _Inverter,
                  off: arb | None = None) -> TailInverter | None:
    """The tails of ``inv`` (an inverter of :mod:`.cf` for ``factors``), or None where they are
    not certified here: an exactly summed part, or no law with a power decay (then the kernel
    1/z is not summable and the aliasing identity is not proved). ``off``: where ``inv``'s
    nodes are those of a larger measure than ``factors``' (``numeric.cf_split_whole``), a bound
    E of the trapezoidal sums' share of the difference, times e^{-c eps}, in each of the three
    quantities (both ways)."""
    if inv.extra is not None:
        return None
    try:
        t = TailInverter(factors, inv, off)
    except (ValueError, ArithmeticError):
        return None
    return t if t.ok else None


class TailInverter:
    """delta, A(L > eps) and B(L > eps) at any eps from one inverter's nodes (module
    docstring)."""

    def __init__(self, factors: Sequence[Factor], inv: _Inverter, off: arb | None = None
                 ) -> None:
        plan = self.plan = inv.plan
        self.ok = True
        #: the sums' share of a measure beyond ``factors``' (``tail_inverter``), times e^{-c eps}
        self._off = arb(0) if off is None else arb(upper(off))
        with working_precision(plan.prec):
            c, h, a = arb(plan.c), arb(plan.h), arb(plan.a)
            p = inv._p
            c0 = [p[0] / 2] + list(p[1:])
            c1 = [acb(0)] + [p[k] * k for k in range(1, len(p))]
            # the sums of the coefficients' exact midpoints in blocks (module docstring), their
            # radii added once (|w| = 1: sum_k rad_k bounds them)
            self._blocks = _Blocks([_mids(c0), _mids(c1)])
            self._rad0, self._rad1 = _rad(c0), _rad(c1)
            # (the discs added to the sums at every point: balls of midpoint 0, built once)
            self._disc0, self._disc1 = (arb(0, upper(r)) for r in (self._rad0, self._rad1))
            self.eval_prec = _eval_prec(plan.prec, self._blocks)
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
        # (and in blocks of m: row i of block j is node j m + i, for Horner's rule in w^m)
        m, nb = self._blocks.m, self._blocks.nb
        pad = np.zeros((m * nb, 3), dtype=np.complex128)
        pad[:len(p)] = self._fcoef
        self._fblocks = pad.reshape(nb, m, 3).transpose(1, 0, 2).reshape(m, 3 * nb)
        self._fk = k.astype(np.float64)
        # the sums' own radius (the mgf balls and rounding), times e^{-c eps}
        size = np.abs(plan.c + 1j * plan.h * k) + 1
        rad = np.array([float(v.rad()) for v in p])
        self._sum_rad = plan.h / math.pi * float(
            np.sum((rad + 2.0 ** (8 - plan.prec) * np.abs(pf)) * size))
        self._fl = (float(upper(self._up)), float(upper(self._dn)), float(upper(self._dn_const)),
                    float(upper(self._tr_delta)), float(upper(self._tr_tail) + upper(self._off)))

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
        s0, s1 = self._blocks.sums(acb(0, -h * e).exp())
        s0, s1 = _widen(s0, self._disc0), _widen(s1, self._disc1)
        ce = (-c * e).exp()
        ea = (a * e).exp()
        scale = h / arb.pi() * ce
        d = scale * s0.real
        fb = scale * (c * s0.real - h * s1.imag)
        disc = self._up * ce / ea
        dn = self._dn * ce * ea
        disc += dn if dn < self._dn_const else self._dn_const
        off = self._off * ce
        tr_d, tr_t = self._tr_delta * ce + off, self._tr_tail * ce + off
        zero, one = _ZERO, _ONE
        delta = _clip(_interval(d - disc - tr_d, d + tr_d), zero, one)
        fa_h = d + fb
        power = _clip(_interval(fa_h - disc - tr_t, fa_h + tr_t), zero, one)
        fbb = _clip(_interval(fb - disc - tr_t, fb + tr_t), zero, one)
        ee = e.exp()
        alpha = _clip(fbb / ee, zero, one)
        # delta = power - e^eps alpha: each ball narrows the others
        delta = _meet(delta, power - ee * alpha)
        return TailPoint(eps, delta, power, alpha)

    def corners_here(self, es: Sequence[float]) -> list[tuple[float, float, float, float,
                                                               float]]:
        """For each float eps >= 0 of ``es``, the floats (X1, Y1, X2, Y2, D) with X1 >= alpha,
        Y1 <= power, X2 >= 1 - power, Y2 <= 1 - alpha and D >= delta at eps (the corners of
        :meth:`point_here`'s balls that bound the power from below, and of its point's mirror
        image, and the upper end of delta), at the current Arb precision (at least
        :attr:`eval_prec`). The same bounds as :meth:`point_here`'s balls from the same sums,
        for many eps at once: the blocks' sums of every eps by one ``acb_mat`` product, each
        end taken from its ball before any union (so never wider than the point's balls)."""
        n = len(es)
        if n == 0:
            return []
        c, h, a = self._c, self._h, self._a
        es_arb = [arb(e) for e in es]
        mih = acb(0, -h)
        sums = self._blocks.sums_many([(e * mih).exp() for e in es_arb])
        hpi = h / arb.pi()
        mc = -c
        up, dn_c, dn0 = self._up, self._dn_const, self._dn
        trd, trt, off = self._tr_delta, self._tr_tail, self._off
        disc0, disc1 = self._disc0, self._disc1
        one, zero = _ONE, _ZERO
        nxt, inf = math.nextafter, math.inf
        out = []
        for e, (s0, s1) in zip(es_arb, sums, strict=True):
            r0 = s0.real + disc0
            i1 = s1.imag + disc1
            ce = (mc * e).exp()
            ea = (a * e).exp()
            scale = hpi * ce
            d = scale * r0
            fb = scale * (c * r0 - h * i1)
            disc = up * ce / ea
            dn = dn0 * ce * ea
            disc += dn if dn < dn_c else dn_c
            offc = off * ce
            tr_d, tr_t = trd * ce + offc, trt * ce + offc
            ee = e.exp()
            # the ends of delta, the power and F_B, each clipped to [0, 1] (exact arbs)
            d_lo = (d - disc - tr_d).lower()
            d_hi = (d + tr_d).upper()
            fa = d + fb
            p_lo = (fa - disc - tr_t).lower()
            p_hi = (fa + tr_t).upper()
            b_lo = (fb - disc - tr_t).lower()
            b_hi = (fb + tr_t).upper()
            if not (d_lo > zero):
                d_lo = zero
            if not (d_hi < one):
                d_hi = one
            if not (p_lo > zero):
                p_lo = zero
            if not (p_hi < one):
                p_hi = one
            if not (b_lo > zero):
                b_lo = zero
            if not (b_hi < one):
                b_hi = one
            a_lo = (b_lo / ee).lower()
            a_hi = (b_hi / ee).upper()
            if not (a_lo > zero):
                a_lo = zero
            if not (a_hi < one):
                a_hi = one
            # delta = power - e^eps alpha narrows delta's upper end (where the two meet)
            m_hi = (p_hi - ee * a_lo).upper()
            m_lo = (p_lo - ee * a_hi).lower()
            if m_lo <= d_hi and d_lo <= m_hi and m_hi < d_hi:
                d_hi = m_hi
            # (exact arbs in [0, 1]: a float one step beyond the nearest bounds each)
            q_hi, w_lo = (one - p_lo).upper(), (one - a_hi).lower()
            out.append((nxt(float(a_hi), inf), nxt(float(p_lo), -inf),
                        _float_up(q_hi), _float_down(w_lo), nxt(float(d_hi), inf)))
        return out

    def delta(self, eps: float) -> arb:
        """A certified ball of delta(eps) alone (one polynomial: for the larger-delta check of
        a direction whose point is not needed)."""
        with working_precision(self.eval_prec):
            return self.delta_here(eps)

    def delta_here(self, eps: float) -> arb:
        """:meth:`delta` at the current Arb precision (see :meth:`point_here`)."""
        c, h, a = self._c, self._h, self._a
        e = arb(eps)
        s0 = _widen(self._blocks.sums(acb(0, -h * e).exp(), 1)[0], self._disc0)
        ce = (-c * e).exp()
        ea = (a * e).exp()
        d = h / arb.pi() * ce * s0.real
        disc = self._up * ce / ea
        dn = self._dn * ce * ea
        disc += dn if dn < self._dn_const else self._dn_const
        tr_d = self._tr_delta * ce + self._off * ce
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
        power of w taken directly (no Python loop over the nodes), else in blocks of m nodes
        (the powers w^i, i < m, by products, the blocks' sums by one matrix product, Horner's
        rule in w^m over the nb blocks)."""
        if e.size > FEW_EPS and e.size * self._fk.size > DIRECT_MAX:
            m, nb = self._blocks.m, self._blocks.nb
            flat = e.ravel()
            pw = np.cumprod(np.broadcast_to(np.exp(-1j * self.plan.h * flat)[:, None],
                                            (flat.size, m)), axis=1)
            big = pw[:, -1]  # w^m
            pw = np.concatenate([np.ones((flat.size, 1), dtype=np.complex128), pw[:, :-1]], 1)
            b = _matmul(pw, self._fblocks).reshape(flat.size, nb, 3)
            acc = b[:, -1, :]
            for j in range(nb - 2, -1, -1):
                acc = acc * big[:, None] + b[:, j, :]
            return tuple(acc[:, j].reshape(e.shape) for j in range(3))
        flat = e.ravel()
        out = _matmul(np.exp(np.outer(-1j * self.plan.h * flat, self._fk)), self._fcoef)
        return tuple(out[:, j].reshape(e.shape) for j in range(3))

    def error(self, eps: np.ndarray) -> np.ndarray:
        """Float estimate of the absolute error bound of the tails at ``eps``."""
        c, a = self.plan.c, self.plan.a
        up, dn, dn_c, _, tr = self._fl
        e = np.asarray(eps, dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            return (up * np.exp(-(c + a) * e) + np.minimum(dn * np.exp(-(c - a) * e), dn_c)
                    + (tr + self._sum_rad) * np.exp(-c * e))


#: Up to this many eps, the float sums take each power of w directly (one complex exp per node
#: and eps); from two on, the blocks cost less (m products per eps, no exp per node).
FEW_EPS = 1
#: Up to this many nodes times eps, the powers of w are taken directly whatever the number of
#: eps (a few dozen nodes: one exp per node and eps costs less than the blocks' numpy steps,
#: G(1) (x) Laplace(1)'s 34 nodes at 101 eps: 0.14 ms against 0.24 ms).
DIRECT_MAX = 8192
#: OpenBLAS runs a matrix product (gemm) of fewer multiply-adds than this on one thread; a
#: matrix-vector product (gemv) goes to several threads from far smaller sizes. Their spinning
#: costs more CPU than it saves here.
BLAS_ONE_THREAD = 1 << 16


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (floats, placement only) without BLAS threads: gemm on chunks of at least two
    rows of a, each below :data:`BLAS_ONE_THREAD` multiply-adds; numpy's own loops (einsum,
    no BLAS) where no such chunk exists or one row is left."""
    n, m = a.shape
    k = b.shape[1]
    rows = (BLAS_ONE_THREAD - 1) // max(m * k, 1)
    if rows < 2:
        return np.einsum("nm,mk->nk", a, b)
    out = np.empty((n, k), dtype=np.result_type(a, b))
    for i in range(0, n, rows):
        part = a[i:i + rows]
        out[i:i + rows] = part @ b if part.shape[0] >= 2 else np.einsum("nm,mk->nk", part, b)
    return out


def _mids(coeffs: list) -> list:
    """The coefficients' exact midpoints (balls of radius 0)."""
    return [acb(x.real.mid(), x.imag.mid()) for x in coeffs]


def _rad(coeffs: list) -> arb:
    """A bound (with a margin for |w| <= 1 + 2^-prec) of sum_k |c_k - mid c_k|."""
    rad = sum((x.real.rad() + x.imag.rad() for x in coeffs), arb(0))
    return arb(upper(rad * arb("1.001")))


class _Blocks:
    """Polynomials of the same length K with exact coefficients, evaluated together at one
    ball w by rectangular splitting (module docstring, *Evaluation*): blocks of m ~ sqrt K
    coefficients, their sums at w by one ``acb_mat`` product, then Horner's rule in w^m.
    ``guard``: the bits a caller adds to the precision it wants (the chains' growth)."""

    def __init__(self, polys: list[list]) -> None:
        K = max(len(q) for q in polys)
        self.m = m = max(1, math.isqrt(K))
        self.nb = nb = -(-K // m)
        zero = acb(0)
        rows = []
        for q in polys:
            for j in range(nb):
                rows.append([q[j * m + i] if j * m + i < len(q) else zero for i in range(m)])
        self._mat = acb_mat(rows)
        self._first = acb_mat(rows[:nb])  # (the first polynomial alone)
        self.guard = (m + nb + 1) // 2 + 24
        self.count = len(polys)
        self._mat_t = None  # (its transpose, for :meth:`sums_many`)

    def sums(self, w: acb, count: int | None = None) -> list[acb]:
        """[q(w) for the first ``count`` polynomials (all by default)], balls at the working
        precision holding the exact values (ball arithmetic throughout)."""
        count = self.count if count is None else count
        m, nb = self.m, self.nb
        pw = [acb(1)]
        for _ in range(m - 1):
            pw.append(pw[-1] * w)
        big = pw[-1] * w  # w^m
        mat = self._first if count == 1 else self._mat
        b = (mat * acb_mat(m, 1, pw)).entries()
        # Horner's rule in w^m over the blocks' sums (acb_poly: the same steps, in C)
        return [acb_poly(b[base:base + nb])(big) for base in range(0, count * nb, nb)]

    def sums_many(self, ws: Sequence[acb]) -> list[list[acb]]:
        """:meth:`sums` (every polynomial) at each ball of ``ws``: the blocks' sums of all the
        points by one ``acb_mat`` product (the points' powers w^i as the rows of one matrix),
        then Horner's rule in w^m per point (the same finite sums regrouped: balls holding the
        exact values)."""
        m, nb, cnt = self.m, self.nb, self.count
        one = acb(1)
        rows: list = []
        bigs = []
        for w in ws:
            pw = one
            rows.append(pw)
            for _ in range(m - 1):
                pw = pw * w
                rows.append(pw)
            bigs.append(pw * w)  # w^m
        if self._mat_t is None:
            self._mat_t = self._mat.transpose()
        b = (acb_mat(len(ws), m, rows) * self._mat_t).entries()
        width = cnt * nb
        out = []
        for p, big in enumerate(bigs):
            base = p * width
            out.append([acb_poly(b[base + q * nb:base + (q + 1) * nb])(big) for q in range(cnt)])
        return out


def _eval_prec(prec: int, blocks: _Blocks) -> int:
    """The precision of the sums: ``prec`` plus the blocks' guard bits, taken down to the
    multiple of 64 below where that still leaves the chains' growth (m + nb)/2 and 4 bits more
    (a limb fewer per product: 0.6x the time at 139 -> 128 bits, the same balls; the guard's
    last bits only keep the rounding further below the error bounds)."""
    full = prec + blocks.guard
    limb = 64 * (full // 64)
    return limb if limb >= prec + (blocks.m + blocks.nb + 1) // 2 + 4 else full


def _float_up(x: arb) -> float:
    """A float >= every point of the ball x (1 where x is not finite: the ends bound values in
    [0, 1])."""
    if not x.is_finite():
        return 1.0
    return math.nextafter(float(x.upper()), math.inf)


def _float_down(x: arb) -> float:
    """A float <= every point of the ball x (0 where x is not finite)."""
    if not x.is_finite():
        return 0.0
    return math.nextafter(float(x.lower()), -math.inf)


def _widen(v: acb, disc: arb) -> acb:
    """v plus every point of the disc ``disc`` = arb(0, r) (r the coefficients' radii, built
    once per inverter: ``upper`` per point was half a point's cost)."""
    return acb(v.real + disc, v.imag + disc)


#: (exact balls, shared: arb values are immutable)
_ZERO, _ONE = arb(0), arb(1)


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
