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
modulus at t. The atoms keep |M(c + it)| from tending to 0 (no power decay), but for many
steps their share (alpha / M(c))^n vanishes and the whole product inverts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import acb, arb, ctx

from ..numeric.cf_laws import Number, logsumexp, to_arb, to_fraction

__all__ = ["SubsampledLaplaceLaw", "sampled_laplace_law"]

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(160)


class SubsampledLaplaceLaw:
    """The law of the Poisson-subsampled Laplace mechanism's loss, one direction (see the
    module): the :class:`~tradeoff_algebra.numeric.cf_laws.LossLaw` protocol."""

    #: Products with a subsampled factor have no closed form (the inversion answers them).
    closed_under_tensor = False
    #: M(c + it) is a closed form (two 2F1 values): about the same cost at every t.
    mgf_cost_flat = True

    def __init__(self, mu: Number, p: Number, direction: str) -> None:
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be 'remove' or 'add', not {direction!r}")
        self._mu, self._p = to_fraction(mu), to_fraction(p)
        if not self._mu > 0:
            raise ValueError(f"SubsampledLaplaceLaw needs mu > 0, not {mu}")
        if not 0 < self._p < 1:
            raise ValueError(f"SubsampledLaplaceLaw needs 0 < p < 1, not {p}")
        self.mu, self.p, self.direction = float(self._mu), float(self._p), direction
        # guard bits: F(mu) - F(-mu) loses about log2(1/mu) bits for a small mu
        self._guard = 16 + max(0, int(-math.log2(self.mu)))
        self._guards: dict[int, int] = {}
        s = np.asarray(self.mu * _GL_NODES)
        self._log_phi = np.log1p(self.p * np.expm1(s))
        self._log_dens = np.log(self.mu * _GL_WEIGHTS) - (s + self.mu) / 2 - math.log(4.0)
        self._atoms = np.array([math.log1p(self.p * math.expm1(-self.mu)),
                                math.log1p(self.p * math.expm1(self.mu))])
        self._log_atoms = np.array([math.log(0.5), -self.mu + math.log(0.5)])

    # -- the function g(w) = E_P[phi(L)^w] ------------------------------------------------------
    def _balls(self):
        m, p = to_arb(self._mu), to_arb(self._p)
        return m, p, 1 - p, p / (1 - p)

    def _g(self, w: acb) -> acb:
        """g(w) as a ball whose radius is about 2^(30 - prec) of the atoms' part |alpha| <=
        g(Re w) (the guard bits double until it is: 2F1 with a large |w| cancels)."""
        saved = ctx.prec
        guard = self._guards.get(saved, self._guard)  # (the last one that sufficed)
        try:
            while True:
                ctx.prec = saved + guard
                out, scale = self._g_at(w)
                if out.rad() <= scale * arb(2.0) ** (30 - saved) or guard > 8 * saved:
                    break
                guard *= 2
        finally:
            ctx.prec = saved
        self._guards[saved] = guard
        return +out

    def _g_at(self, w: acb) -> tuple[acb, arb]:
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
        return atoms + dens, arb(scale.lower())

    def _w(self, z: acb) -> acb:
        return z + 1 if self.direction == "remove" else -z

    def mgf(self, z: acb) -> acb:
        """M(z) = g(z + 1) (remove) or g(-z) (add), an Arb ball."""
        return self._g(self._w(z))

    # -- planning (floats) -------------------------------------------------------------------------
    def _log_moments(self, w: float) -> tuple[float, float, float]:
        """log g(w) and the mean and variance of log phi under the measure phi^w dP / g(w)
        (Gauss-Legendre on (-mu, mu) and the two atoms; floats)."""
        lv = np.concatenate([self._log_dens + w * self._log_phi, self._log_atoms + w * self._atoms])
        x = np.concatenate([self._log_phi, self._atoms])
        lg = logsumexp(lv)
        wt = np.exp(lv - lg)
        mean = float(np.sum(wt * x))
        var = float(np.sum(wt * (x - mean) ** 2))
        return float(lg), mean, max(var, 1e-300)

    def cumulants(self, c: float) -> tuple[float, float, float]:
        if self.direction == "remove":
            return self._log_moments(c + 1.0)
        lg, mean, var = self._log_moments(-c)
        return lg, -mean, var

    # -- rigorous bounds ---------------------------------------------------------------------------
    def decay_bound(self, c: arb, t: arb) -> arb:
        m, p, q, r = self._balls()
        if self.direction == "remove":
            a, mod = c + 1, ((c + 1) ** 2 + t * t).sqrt()
        else:
            a, mod = -c, (c * c + t * t).sqrt()
        ph_lo, ph_hi = q + p * (-m).exp(), q + p * m.exp()
        e0, e1 = (a * ph_lo.log()).exp(), (a * ph_hi.log()).exp()
        alpha = e0 / 2 + (-m).exp() * e1 / 2
        k = (-m / 2).exp() / (4 * p)
        g0 = k * (q * (3 * m / 2).exp() + p * (m / 2).exp())
        g1 = k * (q * (-3 * m / 2).exp() + p * (-m / 2).exp())
        e = e0.union(e1)  # (an upper bound of both: its upper end is their maximum)
        ibp = (e0 * g0 + e1 * g1 + arb(e.upper()) * (g0 - g1)) / mod
        whole = self._g(acb(a)).real - alpha
        part = ibp if ibp < whole else (whole if whole < ibp else ibp.union(whole))
        return alpha + part

    def log_decay_estimate(self, c: float, t: float) -> float:
        from ..numeric.cf_laws import upper

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
