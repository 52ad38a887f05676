"""The Poisson-subsampled Laplace mechanism's privacy loss for the certified Laplace inversion
(``numeric.cf``): the law of Mix(L_mu, p) = T(P, (1 - p) P + p Q), P = Lap(0, 1),
Q = Lap(mu, 1), in either direction, which the Laplace family gives the Mix operator through its
loss's ``mixed_law`` hook (Dong, Roth & Su, Sec. 4.1 for the mixture; Prop. 7 for L_mu).

Under P the Laplace loss L = log dQ/dP has atoms 1/2 at -mu and e^{-mu}/2 at mu and the density
rho(s) = e^{-(s + mu)/2}/4 on (-mu, mu) (``families.laplace.LaplaceLoss``). The mixture's loss
is L' = log phi(L), phi(s) = 1 - p + p e^s, and every moment generating function needed is one
function of a complex exponent w,

    g(w) = E_P[phi(L)^w] = phi(-mu)^w / 2 + e^{-mu} phi(mu)^w / 2
           + (e^{-mu/2}/4) (1 - p)^w [F_w(mu) - F_w(-mu)],
    F_w(s) = -2 e^{-s/2} 2F1(-w, -1/2; 1/2; -r e^s),  r = p / (1 - p),

because F_w' (s) = e^{-s/2} (1 + r e^s)^w (differentiate the series of 2F1 term by term:
(-1/2)_k / (1/2)_k = -1 / (2k - 1); the identity continues analytically to -r e^s < -1, the
argument staying on the negative axis, off the branch cut [1, oo)). Arb encloses 2F1 rigorously
(``acb.hypgeom_2f1``). With A the measure the loss is taken under:

* "remove" (A = (1 - p) P + p Q, the loss L'): M(z) = E_A[e^{z L'}] = E_P[phi^{z + 1}]
  = g(z + 1);
* "add" (A = P, the loss -L', the inverse pair): M(z) = E_P[phi^{-z}] = g(-z).

Decay (:meth:`SubsampledLaplaceLaw.decay_bound`). With a = Re w, the atoms give at most
alpha = phi(-mu)^a / 2 + e^{-mu} phi(mu)^a / 2 at every t. The density part is, in
u = log phi(s) (increasing, u' = p e^s / phi), I = int e^{wu} G(u) du with
G = rho / u' = (e^{-mu/2} / (4p)) ((1 - p) e^{-3s/2} + p e^{-s/2}), decreasing; integrating by
parts, |I| <= (E_0 G_0 + E_1 G_1 + E (G_0 - G_1)) / |w| (E_0, E_1 = e^{a u} at the ends, E their
maximum, G_0, G_1 = G at -mu, mu), and |I| <= I(a), the real value. So |M(c + it')| <=
alpha + min(I(a), (E_0 G_0 + E_1 G_1 + E (G_0 - G_1)) / |w|) for every t' >= t, |w| >= the
modulus at t; the same bound on each piece of a partition of (-mu, mu) (4, 16 or 64 pieces in
s), each piece's least of its mass and its own integration by parts, summed, is far smaller
where the density's bulk sits near s = -mu (where G is largest). The atoms keep |M(c + it)|
from tending to 0 (no power decay), but for many steps their share (alpha / M(c))^n vanishes
and the whole product inverts.

That bound stays at M(c) up to t ~ e^mu / p, while |M(c + it)| falls below M(c) from
t ~ 1 / (p e^mu) on (the loss lives on an interval of width W ~ p e^mu): the decay bound the
inversion uses is the envelope of ``numeric.cf_envelope`` (:meth:`SubsampledLaplaceLaw.plan_decay`):
the tilted variance (certified quadrature) for t <= pi / W, a Lipschitz grid of Arb values of
|M| up to where the piecewise bound above takes over. For q = 1/1000, b = 1/2, T = 10^4 it
plans 10 nodes where the bound alone planned 2665.

Few steps (:meth:`SubsampledLaplaceLaw.lattice_split`): the k-fold product split by its number j
of density components, j < J summed exactly, the rest (``SampledRemainder``, a positive measure
whose transform is O(t^-J)) inverted to the whole delta's tolerance, or bounded by a Chernoff
bound of its real moment generating function, or the whole law inverted at a looser width
(``numeric/cf_route.py`` chooses). Two exact parts: ``numeric/cf_sampled.py``
(``SampledExactPart``, J <= 3: phi is linear in e^s, so one density component against the
lattice of the others is a sum of integrals of e^{+-s/2}; two components a certified
one-dimensional Arb integral of that closed form), and ``numeric/cf_sampled_poly.py``
(``PolyExactPart``, any J: the density of the loss, :meth:`SubsampledLaplaceLaw.loss_density`,
replaced by its Chebyshev interpolant with an error proved on a Bernstein ellipse, on pieces
graded toward the density's branch point where that lies close to the interval, as for b = 1/2),
which the route uses with J = min(k + 1, :data:`POLY_J`) wherever the whole law's inversion does
not reach its width (up to :data:`POLY_SPLIT_MAX` steps), the remainder j >= J inverted through
``PolyRemainder`` (its transform from the atoms' closed form and the interpolant's, no 2F1).

Time limits: building an envelope can take a second (three ``acb.integral`` calls of ~10^5
integrand evaluations at mu = 11/2; ~50 values of M(c + it), tens of ms each, at mu = 2/21).
An ``acb.integral`` cannot be interrupted (an exception in its integrand is not propagated), so
past the caller's deadline the integrand returns an exact 0 (``budget.expired``) and
``budget.check`` follows each integral: the clock is monotonic, so once the integrand has seen
the deadline pass the check raises and those 0s never reach a ball (the integral closes fast,
its remaining subintervals exact 0s). The envelope's Lipschitz grid evaluates M through a
function that checks the deadline before each value; nothing is cached before the envelope is
whole.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from flint import acb, arb, ctx

from ..numeric import budget
from ..numeric.cf_envelope import DecayEnvelope
from ..numeric.cf_laws import (
    Number,
    lower,
    to_arb,
    to_fraction,
    upper,
    working_precision,
)
from ..numeric.cf_sampled import SampledExactPart, SampledRemainder
from ..numeric.cf_sampled_poly import ChebyshevDensity, PolyExactPart, PolyRemainder

__all__ = ["SubsampledLaplaceLaw", "sampled_laplace_law"]



#: The number of density components below which the polynomial split sums exactly
#: (:meth:`SubsampledLaplaceLaw.lattice_split` with ``J = None``): its pieces cancel more with
#: every component (q = 1/100, b = 1: J = 5 computes at 336 bits, J = 8 at up to 1536), while
#: the remainder's transform decays as t^-J (T = 63 plans about 240 nodes at J = 6).
POLY_J = 6
#: The largest degree of the density's interpolant for the polynomial split
#: (:meth:`SubsampledLaplaceLaw.poly_split_max`).
POLY_DEGREE = 96
#: The largest k of the polynomial split (:meth:`SubsampledLaplaceLaw.poly_split_max`): beyond
#: T = 63 the whole law is inverted where it reaches the route's width, the split answers where
#: it does not (q = 1/100, b = 2, T = 64 .. 100: the atoms' share (alpha / M(c))^T still too
#: large for the whole law's t-range)
POLY_SPLIT_MAX = 1000

#: The loss cells' slices between two looks at the time limit (``loss_cells``: one Arb slice
#: takes some microseconds; 2 * 10^5 slices at D = 20 000 ran 0.5 s past a 0.2 s limit).
CHECK_EVERY = 1024

#: The most anchors of the polynomial split's (J-1)-fold density, estimated as the multisets of
#: J - 1 of the pieces' ends (:meth:`SubsampledLaplaceLaw.poly_split_max`): q = 1/1000, b = 1/10
#: has 27 pieces graded toward a branch point e^-20 widths off the interval, about 2e5 anchors
#: at J = 6, whose table ran for minutes; q = 1/1000, b = 1/2, six pieces, 462.
MAX_ANCHORS = 10_000

#: The most guard bits one 2F1 evaluation is given (its cancellation at |w| is about
#: 1.5 |w| r e^mu bits): 2F1 at 4096 bits takes milliseconds, at 30 000 a second.
MAX_GUARD = 4096


@lru_cache(maxsize=1)
def _gauss_legendre(n: int = 160) -> tuple[np.ndarray, np.ndarray]:
    """The n Gauss-Legendre nodes and weights of the float planning, computed at the first
    planning call (not at import): Newton's method on P_n from Tricomi's x_i = (1 - (n - 1) /
    (8 n^3)) cos(pi (i - 1/4) / (n + 1/2)) (error O(n^-4)), all nodes at once by the three-term
    recurrence in place (three passes and the weights' one, about 2 ms, where numpy's
    eigenvalue route takes tens), weights 2 / ((1 - x^2) P_n'(x)^2)."""
    a = [0.0] + [(2 * k - 1) / k for k in range(1, n + 1)]
    b = [0.0] + [(k - 1) / k for k in range(1, n + 1)]

    def legendre(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # (P_n(x), P_n'(x))
        p0, p1, t = np.ones_like(x), x.copy(), np.empty_like(x)
        for k in range(2, n + 1):  # P_k = a_k x P_{k-1} - b_k P_{k-2}
            np.multiply(x, p1, out=t)
            t *= a[k]
            p0 *= b[k]
            t -= p0
            p0, p1, t = p1, t, p0
        return p1, n * (x * p1 - p0) / (x * x - 1)

    x = (1 - (n - 1) / (8 * n**3)) * np.cos(np.pi * (np.arange(1, n + 1) - 0.25) / (n + 0.5))
    for _ in range(20):
        val, der = legendre(x)
        step = val / der
        x = x - step
        if np.max(np.abs(step)) < 1e-14:  # (the next step is at the rounding: ~1e-16)
            break
    der = legendre(x)[1]
    return x[::-1].copy(), (2 / ((1 - x * x) * der * der))[::-1].copy()


def _lse(v: np.ndarray) -> float:
    """log sum exp v (floats)."""
    top = v.max()
    return float(top + math.log(np.exp(v - top).sum()))


def _least(x: arb, y: arb) -> arb:
    """A ball whose upper end is the lesser of the two upper ends (both upper bounds of one
    nonnegative quantity)."""
    return x if upper(x) <= upper(y) else y


def _binade(w: acb) -> int:
    """floor(log2 |w|) (at least 0), from the float midpoints."""
    a = abs(complex(float(w.real.mid()), float(w.imag.mid())))
    return max(0, int(math.log2(a))) if a > 0 else 0


class SubsampledLaplaceLaw:
    """The law of the Poisson-subsampled Laplace mechanism's loss, one direction (see the
    module): the :class:`~tradeoff_algebra.numeric.cf_laws.LossLaw` protocol."""

    #: Products with a subsampled factor have no closed form (the inversion answers them).
    closed_under_tensor = False
    #: M(c + it) is a closed form (two 2F1 values): about the same cost at every t.
    mgf_cost_flat = True
    #: the most guard bits of one 2F1 (:data:`MAX_GUARD`), read by ``numeric.cf_route``
    max_guard = MAX_GUARD

    def __init__(self, mu: Number, p: Number, direction: str) -> None:
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be 'remove' or 'add', not {direction!r}")
        self._mu, self._p = to_fraction(mu), to_fraction(p)
        if not self._mu > 0:
            raise ValueError(f"SubsampledLaplaceLaw needs mu > 0, not {mu}")
        if not 0 < self._p < 1:
            raise ValueError(f"SubsampledLaplaceLaw needs 0 < p < 1, not {p}")
        self.mu, self.p, self.direction = float(self._mu), float(self._p), direction
        #: the planned work of one M(c + it) grows as |t| r e^mu / 10 (2F1's series length and
        #: guard bits, measured), r = p / (1 - p): read by ``numeric.cf_route``
        self.mgf_cost_per_t = self.p / (1 - self.p) * math.exp(self.mu) / 10
        # guard bits: F(mu) - F(-mu) loses about log2(1/mu) bits for a small mu
        self._guard = 16 + max(0, int(-math.log2(self.mu)))
        #: the guard bits that last sufficed, per (precision, binade of |w|): 2F1's cancellation
        #: grows with |w|, so a large |t| must not raise the guard of every later evaluation
        self._guards: dict[tuple[int, int], int] = {}
        #: the decay envelopes built, per contour abscissa c (:meth:`plan_decay`)
        self._envelopes: dict[float, DecayEnvelope] = {}
        self._piece_cache: dict[float, tuple] = {}
        self._poly_max: int | None = None
        self._plan_tables: tuple | None = None

    def _planning(self) -> tuple:
        """The float tables of the planning (:meth:`_log_moments`, :meth:`log_parts`): the loss
        log phi and log density at the Gauss-Legendre nodes of (-mu, mu), the atoms, built at
        the first planning call (the nodes take about 3 ms; a route that plans nothing, as
        ``numeric.lattice_cells``, never pays them)."""
        if self._plan_tables is None:
            nodes, weights = _gauss_legendre()
            s = np.asarray(self.mu * nodes)
            log_phi = np.log1p(self.p * np.expm1(s))
            log_dens = np.log(self.mu * weights) - (s + self.mu) / 2 - math.log(4.0)
            atoms = np.array([math.log1p(self.p * math.expm1(-self.mu)),
                              math.log1p(self.p * math.expm1(self.mu))])
            log_atoms = np.array([math.log(0.5), -self.mu + math.log(0.5)])
            self._plan_tables = (log_phi, log_dens, atoms, log_atoms,
                                 np.concatenate([log_dens, log_atoms]),
                                 np.concatenate([log_phi, atoms]))
        return self._plan_tables

    # -- the function g(w) = E_P[phi(L)^w] ------------------------------------------------------
    def _balls(self):
        m, p = to_arb(self._mu), to_arb(self._p)
        return m, p, 1 - p, p / (1 - p)

    def _g(self, w: acb) -> acb:
        """g(w) as a ball whose radius is about 2^(30 - prec) of the atoms' part |alpha| <=
        g(Re w) (the guard bits double until it is: 2F1 with a large |w| cancels)."""
        saved = ctx.prec
        key = (saved, _binade(w))
        guard = self._guards.get(key, self._guard)  # (the last one that sufficed)
        try:
            while True:
                ctx.prec = saved + guard
                out, scale = self._g_at(w)
                if out.rad() <= scale * arb(2.0) ** (30 - saved) or guard > self._cap(w, saved):
                    break
                guard *= 2
        finally:
            ctx.prec = saved
        self._guards[key] = guard
        return +out

    def _cap(self, w: acb, prec: int) -> int:
        """The most guard bits :meth:`_g` tries: 8 prec, or about the cancellation of 2F1's
        series at |w| (its terms reach e^{|w| r e^mu}: 1.5 |w| r e^mu bits, doubled), at most
        :data:`MAX_GUARD` (beyond, the ball comes out wide: a route plans within it)."""
        a = abs(complex(float(w.real.mid()), float(w.imag.mid())))
        need = int(3 * a * self.p / (1 - self.p) * math.exp(self.mu)) + 64
        return max(8 * prec, min(need, MAX_GUARD))

    def _g_split(self, w: acb) -> tuple[acb, acb]:
        """(the atoms' part, the density's part) of g(w), each a ball whose radius is about
        2^(30 - prec) of g(Re w) (the guard bits of :meth:`_g`)."""
        saved = ctx.prec
        key = (saved, _binade(w))
        guard = self._guards.get(key, self._guard)
        try:
            while True:
                ctx.prec = saved + guard
                atoms, dens, scale = self._g_parts(w)
                if ((atoms + dens).rad() <= scale * arb(2.0) ** (30 - saved)
                        or guard > self._cap(w, saved)):
                    break
                guard *= 2
        finally:
            ctx.prec = saved
        self._guards[key] = guard
        return +atoms, +dens

    def _g_at(self, w: acb) -> tuple[acb, arb]:
        atoms, dens, scale = self._g_parts(w)
        return atoms + dens, scale

    def _g_parts(self, w: acb) -> tuple[acb, acb, arb]:
        m, p, q, r = self._balls()
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        a = w.real
        scale = (a * ph_lo.log()).exp() / 2 + (-m).exp() * (a * ph_hi.log()).exp() / 2
        atoms = (w * acb(ph_lo.log())).exp() / 2 + (-m).exp() * (w * acb(ph_hi.log())).exp() / 2
        half, mhalf = acb(0.5), acb(-0.5)

        def big_f(s: arb) -> acb:
            x = acb(-r * s.exp())
            return -2 * (-s / 2).exp() * x.hypgeom_2f1(-w, mhalf, half)

        dens = (-m / 2).exp() / 4 * (w * acb(q.log())).exp() * (big_f(m) - big_f(-m))
        return atoms, dens, arb(scale.lower())

    def _w(self, z: acb) -> acb:
        return z + 1 if self.direction == "remove" else -z

    def mgf(self, z: acb) -> acb:
        """M(z) = g(z + 1) (remove) or g(-z) (add), an Arb ball."""
        return self._g(self._w(z))

    # -- planning (floats) -------------------------------------------------------------------------
    def _log_moments(self, w: float) -> tuple[float, float, float]:
        """log g(w) and the mean and variance of log phi under the measure phi^w dP / g(w)
        (Gauss-Legendre on (-mu, mu) and the two atoms; floats)."""
        ld_all, lx_all = self._planning()[4:]
        lv = ld_all + w * lx_all
        top = lv.max()
        wt = np.exp(lv - top)
        s0 = wt.sum()
        mean = float(wt.dot(lx_all) / s0)
        d = lx_all - mean
        var = float(wt.dot(d * d) / s0)
        lg = top + math.log(s0)
        return float(lg), mean, max(var, 1e-300)

    def log_parts(self, c: float) -> tuple[float, float]:
        """Floats log A(c), log D(c): the atoms' and the density's parts of M(c) (planning)."""
        w = c + 1.0 if self.direction == "remove" else -c
        log_phi, log_dens, atoms, log_atoms = self._planning()[:4]
        return _lse(log_atoms + w * atoms), _lse(log_dens + w * log_phi)

    def lattice_split(self, k: int, J: int | None = 2
                      ) -> tuple[SampledRemainder, SampledExactPart | PolyExactPart]:
        """The k-fold product split by its number j of density components: j < J summed
        exactly (``numeric.cf_sampled.SampledExactPart``; J = 3: the j = 2 terms as certified
        one-dimensional integrals), j >= J inverted (``SampledRemainder``,
        |R(c + it)| = O(t^-J)). ``J = None``: the split of ``numeric.cf_sampled_poly``
        (:class:`PolyExactPart`, the density replaced by its Chebyshev interpolant with a proved
        error), j < min(k + 1, :data:`POLY_J`) summed exactly (all of them for k < POLY_J)."""
        if J is None:
            if not self.poly_split_max() >= k:  # (the density too near its singularity)
                return SampledRemainder(self, k, 3), SampledExactPart(self, k, 3)
            jp = min(k + 1, POLY_J)
            return PolyRemainder(self, k, jp), PolyExactPart(self, k, jp)
        return SampledRemainder(self, k, J), SampledExactPart(self, k, J)

    def poly_split_max(self) -> int:
        """The largest k for :meth:`lattice_split` with ``J = None`` to use the polynomial split
        (read by ``numeric.cf_route``, which tries the whole law's inversion first):
        :data:`POLY_SPLIT_MAX` where the density's interpolants (one, or pieces graded toward
        the branch point: q = 1/1000, b = 1/2, whose branch point lies 2% of the interval's
        width below it) need at most :data:`POLY_DEGREE` degrees each, else 3 (the j <= 2
        split of ``numeric.cf_sampled``)."""
        if self._poly_max is None:
            try:
                with working_precision(128):
                    cheb = ChebyshevDensity(self, 128)
                n, ends = cheb.n, len(cheb.pieces) + 1
            except ArithmeticError:
                n, ends = POLY_DEGREE + 1, 0
            anchors = math.comb(ends + POLY_J - 2, POLY_J - 1)  # (the (J-1)-fold sums of ends)
            self._poly_max = POLY_SPLIT_MAX if n <= POLY_DEGREE and anchors <= MAX_ANCHORS else 3
        return self._poly_max

    # -- the split of many-fold products for the loss tails (numeric.cf_split_tails) -------------
    def split_masses(self, k: int, J: int) -> tuple[arb, arb]:
        """(m_A, m_B): upper bounds (balls) of the A- and B-masses of the k-fold product's terms
        with fewer than J density components, sum_{j<J} C(k, j) alpha^{k-j} (1 - alpha)^j with
        alpha the atoms' part of g(w) at w = 1 and w = 0 (z = 0 and z = -1 in either
        direction), where g(0) = E_P[1] = 1 and g(1) = E_P[phi(L)] = 1 (phi(L) = dA/dP for
        A = (1 - p) P + p Q), so the density's part is 1 - alpha exactly."""
        out = []
        for w in (1, 0):
            alpha = self._alpha(arb(w))
            dens = 1 - alpha
            out.append(sum((comb(k, j) * alpha ** (k - j) * dens**j
                            for j in range(min(J, k + 1))), arb(0)))
        return (out[0], out[1]) if self.direction == "remove" else (out[1], out[0])

    def split_bound(self, k: int, J: int, c: arb) -> arb:
        """m_c >= |E_J(c + it)| at every t (``numeric.cf_split_whole``): the atoms' part is at
        most alpha(a) = A(c) and the density's at most D(c) (transforms of positive measures
        on Re z = c), so |E_J| <= sum_{j<J} C(k, j) alpha^{k-j} D(c)^j."""
        a = self._a(c)
        alpha = self._alpha(a)
        dens = arb(upper(self._g_split(acb(a))[1].real))
        return sum((comb(k, j) * alpha ** (k - j) * dens**j for j in range(min(J, k + 1))),
                   arb(0))

    def split_remainder(self, k: int, J: int) -> SampledRemainder:
        """R_J, the terms with at least J density components (``numeric.cf_sampled``)."""
        return SampledRemainder(self, k, J)

    # -- the loss's cells on a grid (for numeric.lattice_cells) ---------------------------------
    def loss_span(self) -> float:
        """The float width log phi(mu) - log phi(-mu) of the loss's range (planning)."""
        p, m = self.p, self.mu
        return math.log1p(p * math.expm1(m)) - math.log1p(p * math.expm1(-m))

    def loss_cells(self, D: int) -> list[tuple[arb, arb, int]]:
        """The loss's cells on the grid 1/D (``numeric.lattice_cells``): [(a, b, j), ...], the
        null and alternative masses of a set of outcomes whose loss lies in [j/D, (j + 1)/D].

        Remove (null P = Lap(0, 1), alternative A = (1 - p) P + p Q, loss l(x) =
        log phi(L(x)), L(x) = |x| - |x - mu| clipped to [-mu, mu]): the atoms x <= 0 (P 1/2,
        A phi(-mu)/2) at l0 = log phi(-mu) and x >= mu (P e^{-mu}/2, A phi(mu) e^{-mu}/2) at
        l1 = log phi(mu); between, l is increasing in x, l = g at x(g) = (mu + log1p(expm1(g)
        / p))/2, so the loss's slice [g_j, g_{j+1}] is the x-interval [x(g_j), x(g_{j+1})],
        with P = (e^{-x_a} - e^{-x_b})/2 and Q = (e^{x_b - mu} - e^{x_a - mu})/2 there. Add:
        the same outcomes with the null and alternative exchanged and the loss -l (the grid is
        symmetric: the slice [g_j, g_{j+1}] becomes the cell -j - 1). Every slice is cut at the
        grid points, so it lies in its cell; an atom's cell is checked in Arb (ValueError where
        it lies on a grid point to the working precision)."""
        m, p, q, _ = self._balls()
        D = int(D)
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        l0, l1 = ph_lo.log(), ph_hi.log()
        em = (-m).exp()
        pieces = []  # (P-mass, A-mass, slice lower end as a grid index or None, atom loss)
        pieces.append((arb(0.5), ph_lo / 2, l0))
        pieces.append((em / 2, ph_hi * em / 2, l1))
        j1 = math.ceil(float(l0.mid()) * D)
        j2 = math.floor(float(l1.mid()) * D)
        if not (l0 < arb(j1) / D and arb(j2) / D < l1):
            raise ValueError("an atom of the loss lies on the grid to the working precision")

        def x_of(g: arb) -> arb:
            return (m + (g.expm1() / p).log1p()) / 2

        cells = []
        for a, b, loss in pieces:  # the atoms: their own cells
            j = math.floor(float(loss.mid()) * D)
            if not (arb(j) / D <= loss and loss <= arb(j + 1) / D):
                raise ValueError("an atom of the loss lies on the grid to the working precision")
            cells.append((a, b, j))
        xs = [arb(0)]
        for j in range(j1, j2 + 1):  # (the time limit looked at between blocks of slices)
            if (j - j1) % CHECK_EVERY == 0:
                budget.check()
            xs.append(x_of(arb(j) / D))
        xs.append(m)
        idx = [j1 - 1] + list(range(j1, j2 + 1))
        budget.check()
        ex = [(-x).exp() for x in xs]
        ep = [(x - m).exp() for x in xs]
        budget.check()
        for i, j in enumerate(idx):
            P = (ex[i] - ex[i + 1]) / 2
            Q = (ep[i + 1] - ep[i]) / 2
            cells.append((P, q * P + p * Q, j))
        if self.direction == "remove":
            return cells
        out = [(b, a, -j - 1) for a, b, j in cells[2:]]
        for (a, b, _), loss in zip(cells[:2], (l0, l1), strict=True):  # the atoms at -l
            j = math.floor(float(-loss.mid()) * D)
            if not (arb(j) / D <= -loss and -loss <= arb(j + 1) / D):
                raise ValueError("an atom of the loss lies on the grid to the working precision")
            out.append((b, a, j))
        return out

    # -- the loss's atoms and density (for numeric.cf_sampled_poly) ------------------------------
    def loss_atoms(self) -> tuple[arb, arb, arb, arb]:
        """Balls (l0, l1, a0, a1): the loss's atoms a0 at l0 < a1 at l1 under the direction's
        measure (remove: log phi(-+mu), phi(-mu)/2, phi(mu) e^{-mu}/2; add: -log phi(+-mu),
        e^{-mu}/2, 1/2)."""
        m, p, q, _ = self._balls()
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        if self.direction == "remove":
            return ph_lo.log(), ph_hi.log(), ph_lo / 2, ph_hi * (-m).exp() / 2
        return -ph_hi.log(), -ph_lo.log(), (-m).exp() / 2, arb(0.5)

    def loss_density(self, u: acb, analytic: bool = False) -> acb:
        """The density of the loss on (l0, l1), continued analytically: with
        K = e^{-mu/2}/4, remove K sqrt(p) e^{2u} (e^u - q)^{-3/2} (the image of
        phi(s) K e^{-s/2} ds under u = log phi(s)), add K sqrt(p) e^{-u} (e^{-u} - q)^{-3/2}
        (of K e^{-s/2} ds under u = -log phi(s)); ``analytic``: not finite where the ball
        meets the branch cut of the power (Arb's convention)."""
        m, p, q, _ = self._balls()
        k = (-m / 2).exp() / 4 * p.sqrt()
        if self.direction == "remove":
            r = (u.exp() - q).rsqrt(analytic=analytic)
            return k * (2 * u).exp() * r * r * r
        r = ((-u).exp() - q).rsqrt(analytic=analytic)
        return k * (-u).exp() * r * r * r

    def density_singularity(self) -> float:
        """The branch point of :meth:`loss_density` nearest the interval: log(1 - p) (remove)
        or -log(1 - p) (add)."""
        v = math.log1p(-self.p)
        return v if self.direction == "remove" else -v

    def density_mgf(self, c: arb) -> arb:
        """A ball of D(c), the density's part of M(c), c real."""
        return self._g_split(self._w(acb(c)))[1].real

    def cumulants(self, c: float) -> tuple[float, float, float]:
        if self.direction == "remove":
            return self._log_moments(c + 1.0)
        lg, mean, var = self._log_moments(-c)
        return lg, -mean, var

    # -- rigorous bounds ---------------------------------------------------------------------------
    def decay_bound(self, c: arb, t: arb) -> arb:
        """sup_{t' >= t} |M(c + it')| <= the decay envelope at c (:meth:`plan_decay`; built on
        demand), for an exact float c; else the atoms plus the density's bound."""
        if c.rad() == 0 and c.mid().is_finite():
            return arb(self._envelope(float(c.mid())).bound(max(0.0, lower(t))))
        alpha, part, _ = self._decay_parts(c, t)
        return alpha + part

    def plan_decay(self, c: float, n: int) -> None:
        """Build the decay envelope at c for a product of n factors (``numeric.cf`` calls it
        before planning): its grid aims at cells below theta M(c), theta = e^{-64 / n} in
        [1/2, 0.999] (theta^n <= e^{-64}); an envelope built for a finer level is kept."""
        theta = min(0.999, max(0.5, math.exp(-64.0 / max(n, 1))))
        env = self._envelopes.get(c)
        if env is None or env.theta > theta:
            self._build_envelope(c, theta)

    def _envelope(self, c: float) -> DecayEnvelope:
        env = self._envelopes.get(c)
        return env if env is not None else self._build_envelope(c, 0.99)

    def _build_envelope(self, c: float, theta: float) -> DecayEnvelope:
        """The envelope of ``numeric.cf_envelope`` at 64 bits: M(c), the loss's range
        W = log phi(mu) - log phi(-mu), the tilted variance (:meth:`_tilted_variance`) and the
        tail bound alpha + the density's piecewise bound (:meth:`_density_bound`)."""
        with working_precision(64):
            m, p, q, _ = self._balls()
            width = (q + p * m.exp()).log() - (q + p * (-m).exp()).log()
            a = self._a(arb(c))
            alpha = self._alpha(a)
            pieces, whole = self._pieces_at(c)

            def tail(t: float) -> arb:
                return alpha + self._density_bound(a, arb(t), pieces, whole)

            def mgf(z: acb) -> acb:  # (the grid's values, each checking the deadline)
                budget.check()
                return self.mgf(z)

            env = DecayEnvelope(mgf, c, mgf(acb(c)).real, width,
                                self._tilted_variance(a), tail, theta)
        if len(self._envelopes) > 16:
            self._envelopes.clear()
        self._envelopes[c] = env
        return env

    def _a(self, c: arb) -> arb:
        """a = Re w at Re z = c: c + 1 (remove) or -c (add)."""
        return c + 1 if self.direction == "remove" else -c

    def _alpha(self, a: arb) -> arb:
        """The atoms' part of g(a): phi(-mu)^a / 2 + e^{-mu} phi(mu)^a / 2 >= |atoms(a + it)|."""
        m, p, q, _ = self._balls()
        return ((a * (q + p * (-m).exp()).log()).exp() / 2
                + (-m).exp() * (a * (q + p * m.exp()).log()).exp() / 2)

    def _tilted_variance(self, a: arb) -> arb:
        """A ball of the variance of u = log phi(L) under phi^a dP / g(a) (the variance of the
        loss under the tilted law, in either direction): the moments E[(u - u_mid)^k phi^a],
        k = 0, 1, 2, of the atoms exactly and of the density by certified quadrature
        (``acb.integral``); 0 where the quadrature does not converge. Past the deadline the
        integrand gives exact 0s and the check after the integral raises (module docstring)."""
        m, p, q, _ = self._balls()
        l0, l1 = (q + p * (-m).exp()).log(), (q + p * m.exp()).log()
        mid, k0 = (l0 + l1) / 2, (-m / 2).exp() / 4

        def moment(k: int) -> arb:
            def f(s, analytic):
                if budget.expired():  # (a cheap value, never used: the check below raises)
                    return acb(0)
                u = (q + p * s.exp()).log(analytic=analytic)
                return (u - mid) ** k * (a * u).exp() * k0 * (-s / 2).exp()

            dens = acb.integral(f, -m, m).real
            budget.check()  # (past the deadline the integrand gave 0s: the ball is not used)
            return (a * l0).exp() / 2 * (l0 - mid) ** k + (-m).exp() * (a * l1).exp() / 2 * (
                l1 - mid) ** k + dens

        e0, e1, e2 = moment(0), moment(1), moment(2)
        var = e2 / e0 - (e1 / e0) ** 2
        return var if var.is_finite() else arb(0)

    def _pieces(self, a: arb) -> list[list[tuple[arb, arb]]]:
        """For the partitions of (-mu, mu) into 4, 16 and 64 equal pieces in s: per piece an
        upper bound of its tilted mass int e^{au} rho ds (E_max times int rho) and the numerator
        of its integration by parts (the module): the least of E_0 G_0 + E_1 G_1 +
        E_max (G_0 - G_1) and 2 E_0 G_0 + a I (a I <= a times the mass bound for a > 0, <= 0
        else)."""
        m, p, q, _ = self._balls()
        kk, k = (-m / 2).exp() / 4, (-m / 2).exp() / (4 * p)
        pts = []  # (e^{-s/2}, E = e^{a u(s)}, G(s)) at s_i = -mu + 2 mu i / 64
        for i in range(65):
            s = -m + m * i / 32
            h = (-s / 2).exp()
            pts.append((h, (a * (q + p * s.exp()).log()).exp(), k * (q * h**3 + p * h)))
        out = []
        for n in (4, 16, 64):
            part, stride = [], 64 // n
            for i in range(0, 64, stride):
                (h0, e0, g0), (h1, e1, g1) = pts[i], pts[i + stride]
                em = arb(e0.union(e1).upper())
                mass = em * 2 * kk * (h0 - h1)
                part.append((mass, _least(e0 * g0 + e1 * g1 + em * (g0 - g1),
                                          2 * e0 * g0 + (a * mass if a > 0 else arb(0)))))
            out.append(part)
        return out

    @staticmethod
    def _density_bound(a: arb, t: arb, pieces, whole: arb) -> arb:
        """An upper bound of |density part of g(a + it')| for every t' >= t: the least of its
        value at t' = 0 (``whole``) and, over the partitions, sum_i min(mass_i, N_i / |w|)
        (each piece integrated by parts: |int_piece e^{wu} G du| <= N_i / |w|, G decreasing)."""
        mod = (a * a + t * t).sqrt()
        best = upper(whole)
        for part in pieces:
            tot = arb(0)
            for mass, num in part:
                b = num / mod
                tot += b if b < mass else (mass if mass < b else arb(b.union(mass).upper()))
            best = min(best, upper(tot))
        return arb(best)

    def _decay_parts(self, c: arb, t: arb) -> tuple[arb, arb, arb]:
        """(alpha, an upper bound of the density part |D(c + it')| for every t' >= t, the
        numerator N of its bound N / |w|): N the least of E_0 G_0 + E_1 G_1 + E (G_0 - G_1)
        and 2 E_0 G_0 + a I(a) (the exact total variation of e^{au} G: int e^{au} |G'| du =
        E_0 G_0 - E_1 G_1 + a I(a), G decreasing); for an exact float c also the piecewise bound
        (:meth:`_density_bound`)."""
        m, p, q, r = self._balls()
        a = self._a(c)
        mod = (a * a + t * t).sqrt()
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        e0, e1 = (a * ph_lo.log()).exp(), (a * ph_hi.log()).exp()
        alpha = e0 / 2 + (-m).exp() * e1 / 2
        k = (-m / 2).exp() / (4 * p)
        g0 = k * (q * (3 * m / 2).exp() + p * (m / 2).exp())
        g1 = k * (q * (-3 * m / 2).exp() + p * (-m / 2).exp())
        e = e0.union(e1)  # (an upper bound of both: its upper end is their maximum)
        exact = c.rad() == 0 and c.mid().is_finite()
        pieces, whole = (self._pieces_at(float(c.mid())) if exact
                         else (None, self._g(acb(a)).real - alpha))
        big_n = _least(e0 * g0 + e1 * g1 + arb(e.upper()) * (g0 - g1), 2 * e0 * g0 + a * whole)
        part = _least(big_n / mod, whole)
        if pieces is not None and t.is_finite():
            part = _least(part, self._density_bound(a, arb(lower(t)), pieces, whole))
        return alpha, part, big_n

    def _pieces_at(self, c: float):
        """(:meth:`_pieces`, the density's part of g(a)) at c, kept per c (at 64 bits)."""
        got = self._piece_cache.get(c)
        if got is None:
            with working_precision(64):
                a = self._a(arb(c))
                got = (self._pieces(a), self._g(acb(a)).real - self._alpha(a))
            if len(self._piece_cache) > 16:
                self._piece_cache.clear()
            self._piece_cache[c] = got
        return got

    def log_decay_estimate(self, c: float, t: float) -> float:
        b = self.decay_bound(arb(c), arb(t))
        return math.log(upper(b)) if b > 0 else -math.inf

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        return None  # the atoms: |M(c + it)| does not tend to 0

    def loss_sup(self) -> arb | None:
        """ess sup of the loss: log phi(mu) (remove) or -log phi(-mu) (add)."""
        m, p, q, _ = self._balls()
        if self.direction == "remove":
            return (q + p * m.exp()).log()
        return -(q + p * (-m).exp()).log()

    def inverse(self) -> SubsampledLaplaceLaw:
        """The other direction: Mix(L_mu, p)^{-1} is "add" (Dong, Roth & Su, Sec. 2.1)."""
        return sampled_laplace_law(self._mu, self._p,
                                   "add" if self.direction == "remove" else "remove")

    def __eq__(self, other) -> bool:
        return isinstance(other, SubsampledLaplaceLaw) and (
            self._mu, self._p, self.direction) == (other._mu, other._p, other.direction)

    def __hash__(self) -> int:
        return hash((SubsampledLaplaceLaw, self._mu, self._p, self.direction))


@lru_cache(maxsize=32)
def sampled_laplace_law(mu: Fraction, p: Fraction, direction: str) -> SubsampledLaplaceLaw:
    """One law per (mu, p, direction)."""
    return SubsampledLaplaceLaw(mu, p, direction)
