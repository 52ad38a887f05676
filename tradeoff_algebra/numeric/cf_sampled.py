"""Few-fold products of the Poisson-subsampled Laplace mechanism's loss law for the certified
Laplace inversion (:mod:`.cf`): the k-fold product split by its number j of density components,
j < J summed exactly (:class:`SampledExactPart`), the rest inverted (:class:`SampledRemainder`).

The law (``families/laplace_sampled.py``, :class:`SubsampledLaplaceLaw`, read here through its
methods only: this module knows no family) has, under A, atoms P0 at l0 < P1 at l1 and a density
part rho_A on s in (-mu, mu) with loss l(s):

* remove: l0, l1 = log phi(-mu), log phi(mu) with P0 = phi(-mu)/2, P1 = phi(mu) e^{-mu}/2;
  rho_A = phi rho, l = log phi;
* add: l0, l1 = -log phi(mu), -log phi(-mu) with P0 = e^{-mu}/2, P1 = 1/2; rho_A = rho,
  l = -log phi;

phi(s) = 1 - p + p e^s, rho(s) = K e^{-s/2}, K = e^{-mu/2}/4 (Dong, Roth & Su, Prop. 7 and
Sec. 4.1). delta-part(eps) = E[(1 - e^{eps - L})_+ ; j < J] is:

* j = 0: the k atoms at b = m l1 + (k - m) l0, weight C(k, m) P1^m P0^(k-m);
* j = 1: the other k - 1 at b (weight k C(k-1, m) P1^m P0^(k-1-m)) against the closed form
  I(y) = int (1 - e^{y - l(s)})_+ rho_A(s) ds, y = eps - b: phi is linear in e^s, so (remove)
  I(y) = int_{s0}^{mu} (phi(s) - e^y) rho(s) ds over phi(s) > e^y, and (add)
  I(y) = int_{-mu}^{s1} (1 - e^y phi(s)) rho(s) ds over phi(s) < e^{-y}, sums of K int e^{+-s/2};
  inside the range, with E = e^y, the lower (upper) limit gives 4 K sqrt(p (E - q)) (remove),
  -4 K sqrt(p E (1 - E q)) (add), q = 1 - p;
* j = 2 (J = 3): the other k - 2 at b (weight C(k, 2) C(k-2, m) P1^m P0^(k-2-m)) against
  H(y) = int I(y - l(s)) rho_A(s) ds, a one-dimensional integral of the closed form, in Arb
  (``acb.integral``, certified) on the pieces of s where I is the whole-range formula, the
  inside formula or 0 (their ends where e^{y - l(s)} meets phi(-+mu)), each analytic.

The remainder R_J = M^k - sum_{j<J} C(k, j) A^{k-j} D^j (M = A + D, the atoms' and the density's
parts) is a positive measure; with |A(c + it)| <= alpha and |D(c + it')| <= u(t) for t' >= t
(the law's ``_decay_parts``), |R_J| <= sum_{j>=J} C(k, j) alpha^{k-j} u^j
<= C(k, J) u^J (alpha + u)^{k-J}: a power decay of order J (u <= N / |t|).
"""

from __future__ import annotations

import math
from math import comb

import numpy as np
from flint import acb, arb, ctx

from . import budget
from .cf_laws import upper

__all__ = ["SampledExactPart", "SampledRemainder"]


class SampledExactPart:
    """delta-part(eps) = E[(1 - e^{eps - L})_+ ; fewer than J density components] of the
    k-fold product of the subsampled Laplace law (see the module), J = 2 or 3; ``numeric.cf``'s
    exactly summed part, as ``numeric.cf_lattice.ExactPart`` is for the Laplace law."""

    def __init__(self, law, k: int, J: int = 2) -> None:
        if J not in (2, 3):
            raise ValueError(f"SampledExactPart sums j < J density components, J = 2 or 3, not {J}")
        self.law, self.k, self.J = law, int(k), int(J)

    def _atoms(self) -> tuple[arb, arb, arb, arb]:
        m, p, q, _ = self.law._balls()
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        if self.law.direction == "remove":
            return ph_lo.log(), ph_hi.log(), ph_lo / 2, ph_hi * (-m).exp() / 2
        return -ph_hi.log(), -ph_lo.log(), (-m).exp() / 2, arb(0.5)

    def _one(self, y: arb) -> tuple[arb, arb]:
        """(I(y), dI/dy) of the one density component (see the module)."""
        m, p, q, _ = self.law._balls()
        kk = (-m / 2).exp() / 4
        ey = y.exp()

        def ex(s: arb, sign: int) -> arb:
            return (sign * s / 2).exp()

        if self.law.direction == "remove":  # phi(s) > e^y beyond s0 = log((e^y - q) / p)
            lo = ((ey - q) / p).max((-m).exp()).log().min(m)
            big_f = lambda s: kk * (-2 * (q - ey) * ex(s, -1) + 2 * p * ex(s, 1))  # noqa: E731
            val = big_f(m) - big_f(lo)
            der = -ey * kk * 2 * (ex(lo, -1) - ex(m, -1))
            return val, der
        hi = ((1 / ey - q) / p).max((-m).exp()).log().min(m)  # phi(s) < e^{-y} below s1
        big_f = lambda s: kk * (-2 * (1 - ey * q) * ex(s, -1) - 2 * ey * p * ex(s, 1))  # noqa: E731
        val = big_f(hi) - big_f(-m)
        phi_f = lambda s: kk * (-2 * q * ex(s, -1) + 2 * p * ex(s, 1))  # noqa: E731
        der = -ey * (phi_f(hi) - phi_f(-m))
        return val, der

    def _two(self, y: arb, derivative: bool) -> tuple[arb, arb]:
        """(H(y), an estimate of dH/dy): H(y) = int I(y - l(s)) rho_A(s) ds by ``acb.integral``
        on the pieces of s (see the module). A piece's ends are the midpoints of their balls;
        the slivers between (at most the balls' radii wide, where either formula is at most
        2 (1 + phi(mu)) in modulus: rho_A <= phi(mu) / 4, |I| <= 2) are added as a ball. The
        derivative (for Newton's steps only) is a 16-point Gauss-Legendre estimate of
        int I'(y - l(s)) rho_A(s) ds."""
        m, p, q, _ = self.law._balls()
        kk = (-m / 2).exp() / 4
        php, phm = q + p * m.exp(), q + p * (-m).exp()
        emh, eph = (-m / 2).exp(), (m / 2).exp()
        remove = self.law.direction == "remove"
        ey = y.exp()

        def cut(x: arb) -> arb:  # log x clamped to [-mu, mu] (x <= 0: -mu)
            if x > 0:
                return x.log().max(-m).min(m)
            if x <= 0:
                return -m
            return (-m).union(arb(x.upper()).log().max(-m).min(m))  # (x straddles 0)

        if remove:  # E = e^y / phi(s) decreases: I = 0 below s_b, whole above s_a
            s_b, s_a = cut((ey / php - q) / p), cut((ey / phm - q) / p)
            pieces = [(s_b, s_a, "inside"), (s_a, m, "whole")]
        else:  # 1/E = e^{-y} / phi(s) decreases: whole below s_a, 0 above s_b
            s_a, s_b = cut((1 / (ey * php) - q) / p), cut((1 / (ey * phm) - q) / p)
            pieces = [(-m, s_a, "whole"), (s_a, s_b, "inside")]

        def value(s, an, kind: str):
            phi = q + p * s.exp()
            lphi = phi.log(analytic=an)
            e = (acb(y) - lphi).exp() if remove else (acb(y) + lphi).exp()
            if remove:
                top = kk * (-2 * (q - e) * emh + 2 * p * eph)
                i = (top - kk * (-2 * (q - e) * eph + 2 * p * emh) if kind == "whole"
                     else top - 4 * kk * (p * (e - q)).sqrt(analytic=an))
                return i * phi * kk * (-s / 2).exp()
            bottom = kk * (-2 * (1 - e * q) * eph - 2 * e * p * emh)
            i = (kk * (-2 * (1 - e * q) * emh - 2 * e * p * eph) - bottom if kind == "whole"
                 else -4 * kk * (p * e * (1 - e * q)).sqrt(analytic=an) - bottom)
            return i * kk * (-s / 2).exp()

        total, slack = arb(0), arb(0)
        for lo, hi, kind in pieces:
            a, b = arb(lo.mid()), arb(hi.mid())
            slack += lo.rad() + hi.rad()
            if b > a:
                total += budget.integral(lambda s, an, kind=kind: value(s, an, kind), a,
                                         b).real
        total += arb(0, upper(4 * (1 + php) * slack))
        if not derivative:
            return total, arb(0)
        return total, self._two_slope(y, pieces)

    def _two_slope(self, y: arb, pieces) -> arb:
        """An estimate (floats, Gauss-Legendre) of dH/dy = int I'(y - l(s)) rho_A(s) ds."""
        x, w = np.polynomial.legendre.leggauss(16)
        m, p, q, _ = self.law._balls()
        remove = self.law.direction == "remove"
        total = 0.0
        for lo, hi, _ in pieces:
            a, b = float(lo.mid()), float(hi.mid())
            if not b > a:
                continue
            for xi, wi in zip(x, w, strict=True):
                s = arb(0.5 * (a + b) + 0.5 * (b - a) * xi)
                phi = q + p * s.exp()
                lv = phi.log() if remove else -phi.log()
                dens = (-m / 2).exp() / 4 * (-s / 2).exp() * (phi if remove else 1)
                total += 0.5 * (b - a) * wi * float((self._one(y - lv)[1] * dens).mid())
        return arb(total)

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps): Arb balls (the derivative of the j = 2
        terms an estimate, for Newton's steps)."""
        l0, l1, p0, p1 = self._atoms()
        e, k = arb(eps), self.k
        val, der = arb(0), arb(0)
        for m in range(k + 1):  # j = 0: the lattice point m l1 + (k - m) l0
            x = e - (m * l1 + (k - m) * l0)
            if x >= 0:
                continue
            w = comb(k, m) * p1**m * p0 ** (k - m)
            if x < 0:
                val += w * (-x.expm1())
                der -= w * x.exp()
            else:  # (1 - e^x)_+ is continuous: the ball [0, -expm1(x)]
                val += w * arb(0).union(-x.expm1())
        for m in range(k):  # j = 1
            w = k * comb(k - 1, m) * p1**m * p0 ** (k - 1 - m)
            v, d = self._one(e - (m * l1 + (k - 1 - m) * l0))
            val += w * v
            der += w * d
        if self.J == 3:  # j = 2
            top = 2 * l1  # (H(y) = 0 for y >= 2 l1: no pair of components exceeds it)
            for m in range(k - 1):
                budget.check()
                y = e - (m * l1 + (k - 2 - m) * l0)
                if y >= top:
                    continue
                w = comb(k, 2) * comb(k - 2, m) * p1**m * p0 ** (k - 2 - m)
                v, d = self._two(y, derivative)
                val += w * v
                der += w * d
        return val, der


class SampledRemainder:
    """The positive measure of the k-fold product's terms with at least J density components
    (see the module), as a loss law of one factor (n = 1): its transform
    R_J(z) = M(z)^k - sum_{j<J} C(k, j) A(z)^{k-j} D(z)^j, with a power decay of order J."""

    closed_under_tensor = False
    #: M(c + it) is the law's closed form (two 2F1 values), whose cost grows as |t| times the
    #: law's ``mgf_cost_per_t`` (read by ``numeric.cf_route``)
    mgf_cost_flat = True

    def __init__(self, law, k: int, J: int = 2) -> None:
        self.law, self.k, self.J = law, int(k), int(J)
        self.mgf_cost_per_t = law.mgf_cost_per_t
        self._logs: dict[float, float] = {}

    def _tail(self, c: float) -> float:
        """P(Bin(k, pi) >= J), pi = D(c) / M(c) (floats: the terms j >= J summed, no
        cancellation)."""
        la, ld = self.law.log_parts(c)
        lpi = ld - float(np.logaddexp(la, ld))
        l1pi = la - float(np.logaddexp(la, ld))  # log(1 - pi)

        def term(j: int) -> float:
            return math.exp(math.log(comb(self.k, j)) + j * lpi + (self.k - j) * l1pi)

        if self.J < self.k - self.J:  # (the complement, where it is at most 1/2: fewer terms)
            below = sum(term(j) for j in range(self.J))
            if below <= 0.5:
                return 1.0 - below
        return sum(term(j) for j in range(self.J, self.k + 1))

    def _guard(self, c: float) -> int:
        """Guard bits for the subtraction: log2 of M(c)^k / R_J(c) (floats, with a margin)."""
        return 24 + int(max(0.0, -math.log2(max(self._tail(c), 1e-300))))

    def mgf(self, z: acb) -> acb:
        saved = ctx.prec
        ctx.prec = saved + self._guard(float(z.real.mid()))
        try:
            a, d = self.law._g_split(self.law._w(z))
            r = (a + d) ** self.k
            for j in range(self.J):
                r -= comb(self.k, j) * a ** (self.k - j) * d**j
        finally:
            ctx.prec = saved
        return +r

    def _log_r(self, c: float) -> float:
        """Float log R_J(c) = k log M(c) + log P(Bin(k, pi) >= J) (planning; kept per c)."""
        got = self._logs.get(c)
        if got is None:
            la, ld = self.law.log_parts(c)
            lm = float(np.logaddexp(la, ld))
            tail = self._tail(c)
            got = self.k * lm + (math.log(tail) if tail > 0 else -745.0)
            if len(self._logs) > 4096:
                self._logs.clear()
            self._logs[c] = got
        return got

    def cumulants(self, c: float) -> tuple[float, float, float]:
        h = 1e-4 * max(c, 1e-3)
        f0, fp, fm = self._log_r(c), self._log_r(c + h), self._log_r(c - h)
        return f0, (fp - fm) / (2 * h), max((fp - 2 * f0 + fm) / (h * h), 1e-300)

    def decay_bound(self, c: arb, t: arb) -> arb:
        alpha, u, _ = self.law._decay_parts(c, t)
        return comb(self.k, self.J) * u**self.J * (alpha + u) ** (self.k - self.J)

    def log_decay_estimate(self, c: float, t: float) -> float:
        b = self.decay_bound(arb(c), arb(t))  # (its log in Arb: b may pass the float range)
        return upper(b.log()) if b > 0 else -math.inf

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        """|D(c + it)| <= N / |w| <= N / |t| (|w| >= |t|) and <= D(c):
        V = C(k, J) N^J (alpha + D(c))^{k-J}."""
        alpha, u0, big_n = self.law._decay_parts(c, arb(0))
        return comb(self.k, self.J) * big_n**self.J * (alpha + u0) ** (self.k - self.J), self.J

    def loss_sup(self) -> arb | None:
        return self.k * self.law.loss_sup()

    def inverse(self) -> SampledRemainder:
        return self

    def __eq__(self, other) -> bool:
        return isinstance(other, SampledRemainder) and (self.law, self.k, self.J) == (
            other.law, other.k, other.J)

    def __hash__(self) -> int:
        return hash((SampledRemainder, self.law, self.k, self.J))
