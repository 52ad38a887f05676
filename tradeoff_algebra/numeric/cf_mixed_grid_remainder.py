"""The remainder of a product of many Laplace factors on one grid of scales (the terms with
more than J density components; ``numeric.cf_mixed_grid``, whose module docstring sets the
notation), inverted by the Laplace inversion.

**The remainder** (:class:`GridRemainder`, j > J): a positive measure, the structured law minus
the exact part, with transform R(z) = C x^{-S} sum_{j>J} v^j P_j(y), computed at each node as
prod_i (alpha_i + beta_i v) (alpha_i = c_i (x^{m_i} + x^{-m_i}), beta_i = c_i (x^{m_i} -
x^{-m_i})) less its head of degree J in v (a product tree truncated to J + 1 coefficients:
n J work), with more bits wherever the difference cancels (:meth:`GridRemainder.mgf`: the
ball's radius says so; e^{w mu_i} as products of powers of e^{wh} along the sorted m_i). With
|alpha_i| <= a_i = 2 c_i cosh(a mu_i) and |beta_i v| <= u_i(t) = c_i min(sinh(a mu_i)/a,
cosh(a mu_i)/|w|) (a = Re w; |sinh(w mu)/w| is at most the same integral at a, and
|sinh| <= cosh of the real part), |R(c + it')| <= sum_{|T| > J} prod_T u_i
prod_{not T} a_i for every t' >= t (u_i does not increase in t); each such term is at most the
sum over its subsets of J + 1 members, so the sum is at most [y^{J+1}] prod_i (a_i + u_i +
u_i y) (and at most prod (a_i + u_i)): :meth:`GridRemainder.decay_bound`; and since
u_i <= rho_i / t, rho_i = c_i cosh(a mu_i), the same argument gives |R| <= V / t^{J+1},
V = [y^{J+1}] prod_i (a_i + u_i(0) + rho_i y) (:meth:`~GridRemainder.power_decay`). The
remainder is inverted by :mod:`.cf` with the exact part added (its ``extra``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce

import numpy as np
from flint import acb, acb_poly, arb, arb_poly, ctx, fmpq

from .cf_laws import working_precision
from .cf_mixed_decay import log_decay_estimate, log_tail_probability, sup_bound
from .cf_mixed_grid import BALL_BITS, MAX_STEPS, GridPart, _truncated_tree

__all__ = ["GridRemainder"]


class GridRemainder:
    """The positive measure of the terms with more than J density components (module
    docstring) as a :class:`~.cf_laws.LossLaw` of one factor: its transform, decay bounds and
    float cumulants (planning)."""

    closed_under_tensor = False
    #: M(c + it) costs the same at every t (a closed form): the planned work is the nodes.
    mgf_cost_flat = True

    def __init__(self, part: GridPart) -> None:
        self.part = part
        self.J = part.J
        self.mus = list(part.mus)
        self._mus_f = np.array([float(m) for m in self.mus])
        self._cs_f = np.array([float(c.mid()) for c in part._cs])
        self._log_cs = np.log(self._cs_f)
        self._kept: tuple | None = None
        # the scales on their finest common grid mu_i = m_i h (sorted): e^{w mu_i} by products
        # of e^{w h}'s powers along the sorted m_i where the m_i are small, else one exp each
        den = reduce(lambda a, b: a * b // math.gcd(a, b), (m.denominator for m in self.mus), 1)
        nums = sorted(m.numerator * (den // m.denominator) for m in self.mus)
        g = reduce(math.gcd, nums)
        self._step = Fraction(g, den) if nums[-1] // g <= MAX_STEPS else None
        self._ms = [x // g for x in nums]
        #: guard bits of the products (a relative error of e^{wh} grows m_i-fold)
        self._guard = (max(self._ms) + len(self._ms)).bit_length() + 4 if self._step else 4
        #: the extra bits the last transform needed (the nodes come in rising t)
        self._extra = 32

    def _arb_mus(self) -> list[arb]:
        return [arb(fmpq(m.numerator, m.denominator)) for m in self.mus]

    def mgf(self, z: acb) -> acb:
        """R(z) = C x^{-S} sum_{j>J} v^j P_j(y) as the whole product less its head of degree J
        in v (module docstring), with more bits where the difference cancels (the tail far
        below the product: large |t|) until its radius is within 2^-prec of it (a ball in any
        case); the bits found are where the next node starts."""
        saved = ctx.prec
        extra = self._extra
        try:
            for _ in range(5):
                ctx.prec = saved + extra + self._guard
                val = self._tail_at(z)
                if val.rad() <= abs(val).mid() * 2.0 ** (8 - saved):
                    break
                extra *= 2
            self._extra = extra
        finally:
            ctx.prec = saved
        return +val

    def _exps(self, w: acb) -> list[tuple[acb, acb]]:
        """(e^{w mu_i}, e^{-w mu_i}) for every factor (in the order of the sorted m_i)."""
        if self._step is None:
            out = []
            for mu in self._arb_mus():
                x = (w * mu).exp()
                out.append((x, 1 / x))
            return out
        h = arb(fmpq(self._step.numerator, self._step.denominator))
        X = (w * h).exp()
        Xi = 1 / X
        ms = self._ms
        x, xi = X ** ms[0], Xi ** ms[0]
        out = [(x, xi)]
        steps: dict = {}
        for prev, m in zip(ms[:-1], ms[1:], strict=True):
            d = m - prev
            if d:
                got = steps.get(d)
                if got is None:
                    got = steps[d] = (X**d, Xi**d)
                x, xi = x * got[0], xi * got[1]
            out.append((x, xi))
        return out

    def _tail_at(self, z: acb) -> acb:
        w = z + acb(0.5)
        v = 1 / (2 * w)
        full, bare = acb(1), acb(1)
        leaves = []
        for x, xi in self._exps(w):
            a, b = x + xi, x - xi
            full *= a + b * v
            if self.J:
                leaves.append(acb_poly([a, b]))
            else:
                bare *= a
        if self.J:
            head, vp = acb(0), acb(1)
            for cf in _truncated_tree(leaves, self.J + 1).coeffs():
                head += cf * vp
                vp *= v
        else:
            head = bare
        return self._product_c() * (full - head)

    def _product_c(self) -> arb:
        """C = prod c_i at the current precision (kept at :data:`BALL_BITS`)."""
        if ctx.prec > BALL_BITS:
            return reduce(lambda a, b: a * b, self._balls()[1], arb(1))
        if self._kept is None:
            self._balls()
        if len(self._kept) == 2:
            with working_precision(BALL_BITS):
                self._kept = self._kept + (reduce(lambda a, b: a * b, self._kept[1], arb(1)),)
        return self._kept[2]

    def _balls(self) -> tuple[list, list]:
        """The mu_i and c_i as balls of at least the current precision (kept at
        :data:`BALL_BITS`; recomputed from the laws beyond)."""
        if ctx.prec > BALL_BITS:
            return self._arb_mus(), [law.lattice_parts()[1] * (-law.lattice_parts()[0] / 2).exp()
                                     for law in self.part.laws]
        if self._kept is None:
            with working_precision(BALL_BITS):
                self._kept = (self._arb_mus(), [
                    law.lattice_parts()[1] * (-law.lattice_parts()[0] / 2).exp()
                    for law in self.part.laws])
        return self._kept[:2]

    def _log_r(self, cs: np.ndarray) -> np.ndarray:
        """Float log R(c) at each c of ``cs``: log prod M'_i(c) + log P(more than J density
        components) under the tilt (a Poisson-binomial tail, :func:`~.cf_mixed_decay.
        log_tail_probability`; planning only)."""
        w = np.asarray(cs, dtype=np.float64)[:, None] + 0.5
        x = w * self._mus_f
        atoms = 1 + np.exp(-2 * x)  # (scaled by e^{-x}: x + 1/x -> 1 + e^{-2x})
        dens = -np.expm1(-2 * x) / (2 * w)
        total = atoms + dens
        logm = np.sum(self._log_cs + x + np.log(total), axis=1)
        return logm + log_tail_probability(dens / total, self.J)

    def cumulants(self, c: float) -> tuple[float, float, float]:
        hh = 1e-4 * max(c, 1e-3)
        f0, fp, fm = self._log_r(np.array([c, c + hh, c - hh])).tolist()
        return f0, (fp - fm) / (2 * hh), max((fp - 2 * f0 + fm) / (hh * hh), 1e-300)

    def _parts(self, c: arb, t: arb | None):
        a = c + arb(0.5)
        al, u0, ut, rho = [], [], [], []
        wabs = None if t is None else (a * a + t * t).sqrt()
        for mu, cc in zip(self._arb_mus(), self.part._cs, strict=True):
            ch, sh = (a * mu).cosh(), (a * mu).sinh()
            al.append(2 * cc * ch)
            u0.append(cc * sh / a)
            rho.append(cc * ch)
            if wabs is not None:
                other = cc * ch / wabs
                ut.append(other if other < u0[-1] else (u0[-1] if u0[-1] < other
                                                         else u0[-1].union(other)))
        return al, u0, ut, rho

    def decay_bound(self, c: arb, t: arb) -> arb:
        """The least of prod (a_i + u_i), [y^{J+1}] prod (a_i + u_i + u_i y) (every term with
        |T| > J is at most the sum over its subsets of J + 1 members, module docstring; no
        subtraction) and the bound with the factors' phases of :func:`~.cf_mixed_decay.
        sup_bound` (|R| <= |F| + |H|: far smaller where the head's terms are rare)."""
        al, _, ut, _ = self._parts(c, t)
        whole = reduce(lambda s, au: s * (au[0] + au[1]), zip(al, ut, strict=True), arb(1))
        polys = [arb_poly([x + u, u]) for x, u in zip(al, ut, strict=True)]
        sub = _truncated_tree(polys, self.J + 2).coeffs()[self.J + 1]
        phased = sup_bound(c, t, self._arb_mus(), self.part._cs, self.J)
        return arb(min(whole.upper(), sub.upper(), phased.upper()))

    def log_decay_estimate(self, c: float, t: float) -> float:
        """Float log of :meth:`decay_bound` (vectorised floats: the planner asks at many t)."""
        return log_decay_estimate(c, t, self._mus_f, self._log_cs, self.J)

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        al, u0, _, rho = self._parts(c, None)
        polys = [arb_poly([x + u, r]) for x, u, r in zip(al, u0, rho, strict=True)]
        return _truncated_tree(polys, self.J + 2).coeffs()[self.J + 1], self.J + 1

    def loss_sup(self) -> arb | None:
        return self.part.law.loss_sup()

    def inverse(self) -> GridRemainder:
        return self  # (the product of Laplace factors is symmetric)

    def __eq__(self, other) -> bool:
        return isinstance(other, GridRemainder) and other.part is self.part

    def __hash__(self) -> int:
        return hash((GridRemainder, id(self.part)))
