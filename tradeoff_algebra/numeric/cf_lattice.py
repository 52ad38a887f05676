"""Self-products of a loss law made of two lattice atoms and an exponential density, for the
certified Laplace inversion (:mod:`.cf`): the terms with few density components summed exactly,
the rest inverted.

A law of this shape (the Laplace mechanism's privacy loss, Dong, Roth & Su, Prop. 7) has

    M(z) = A(z) + U(z),   A(z) = p+ e^{z mu} + p- e^{-z mu},
                          U(z) = kappa int_{-mu}^{mu} e^{(z + lam) s} ds
                               = 2 kappa sinh((z + lam) mu) / (z + lam),

so |M(c + it)| does not tend to 0 (the atoms): the k-fold product is the binomial sum
M^k = sum_j C(k, j) A^{k-j} U^j over the number j of density components. The part with
j < J (:class:`ExactPart`) is a finite sum over the lattice points mu (2m - (k - j)) of
Irwin--Hall pieces: the density of j components is kappa^j e^{lam s} V_j(s), V_j the j-fold
convolution of the indicator of (-mu, mu) (a B-spline:
V_j(s) = sum_i (-1)^i C(j, i) (s + j mu - 2 i mu)_+^{j-1} / (j - 1)!), and

    delta-part(eps) = E[(1 - e^{eps - L})_+ ; j < J]

is a sum of integrals of polynomials times exponentials, in Arb. The rest
(:class:`RemainderLaw`, a positive measure with transform R_J = M^k - sum_{j<J} ...) decays:
with |A| <= alpha = p+ e^{c mu} + p- e^{-c mu} and |U(c + it)| <= u(t) = 2 kappa min(
sinh(a mu)/a, cosh(a mu)/|a + it|), a = c + lam,

    |R_J(c + it)| <= sum_{j>=J} C(k, j) alpha^{k-j} u^j <= C(k, J) u^J (alpha + u)^{k-J}

(C(k, j) <= C(k, J) C(k - J, j - J)), a power decay of order J that the inversion's truncation
bound uses. delta = delta-part + the remainder's inversion, both certified.

A law offers this split by a method ``lattice_parts()`` returning the Arb balls
``(mu, p_plus, p_minus, kappa, lam)`` at the working precision (an optional part of the
:class:`~.cf_laws.LossLaw` protocol: laws without it are inverted whole).
"""

from __future__ import annotations

import math
from math import comb

import numpy as np
from flint import acb, arb, ctx

from . import budget
from .cf_lattice_profile import power_profile
from .cf_laws import upper

__all__ = ["ExactPart", "RemainderLaw", "split_terms"]


def split_terms(k: int) -> tuple[int, ...]:
    """The choices of J, the number of binomial terms (j = 0 .. J - 1 density components)
    summed exactly for a k-fold product, in the order tried: all of them (J = k + 1) for
    k <= 12, else 4, 8 and 12 (a larger J: a faster decaying remainder, a longer exact sum), and
    all of them again for k <= 24 (eps near the largest loss k mu, where the remainder has no
    saddle point to plan from)."""
    return (k + 1,) if k <= 12 else (4, 8, 12) + ((k + 1,) if k <= 24 else ())


def _parts(law):
    return law.lattice_parts()


class ExactPart:
    """delta-part(eps) = E[(1 - e^{eps - L})_+ ; fewer than J density components] of the k-fold
    product of a lattice law (see the module), an Arb ball, and its derivative in eps."""

    def __init__(self, law, k: int, J: int) -> None:
        self.law, self.k, self.J = law, int(k), int(J)

    def _profile(self):
        """The closed form of :mod:`.cf_lattice_profile` where the law gives its rational mu
        and the tables are small (:data:`~.cf_lattice_profile.MAX_TABLE`), else None."""
        get = getattr(self.law, "laplace_mu", None)
        mu = None if get is None else get()
        return None if mu is None else power_profile(mu, self.k, self.J)

    def _integral(self, x: arb, j: int, mu: arb, lam: arb, second_only: bool) -> tuple[arb, arb]:
        """(int_{s > x} V_j(s) e^{lam s} ds, e^x int_{s > x} V_j(s) e^{(lam - 1) s} ds)."""
        if j == 0:  # the atom at 0: V_0 = delta_0, the pair (1, e^x) when x < 0
            if not x < 0:
                if x >= 0:
                    return arb(0), arb(0)
                # undecided (eps on the lattice point): (1 - e^x)_+ is continuous, so the
                # difference is the ball [0, -expm1(x)] and the derivative in [0, e^x]
                diff = arb(0).union(-x.expm1())
                return diff, arb(0)
            return arb(1), x.exp()
        jm = j * mu
        if x <= -jm:  # the whole piece lies above x: moment generating functions
            first = (2 * (lam * mu).sinh() / lam) ** j
            second = x.exp() * (2 * ((lam - 1) * mu).sinh() / (lam - 1)) ** j
            return first, second
        if x >= jm:
            return arb(0), arb(0)
        outs = []
        for nu in ((lam, lam - 1) if not second_only else (lam - 1,)):
            total = arb(0)
            for i in range(j + 1):
                b = -jm + 2 * i * mu
                lo = x if x > b else (b if b >= x else b.union(x))  # max(x, b)
                if not lo < jm:
                    continue
                total += (-1) ** i * comb(j, i) * _poly_exp(j - 1, nu, b, lo, jm)
            outs.append(total)
        if second_only:
            return arb(0), x.exp() * outs[0]
        return outs[0], x.exp() * outs[1]

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps), Arb balls (both whatever ``derivative``
        says: the flag lets a part whose derivative costs more skip it). A law with a rational
        ``laplace_mu()`` (L_mu's) and few pieces takes the piecewise closed form of
        :mod:`.cf_lattice_profile` (a few Arb operations at each eps, its exact tables built
        once); otherwise the pieces are summed one by one."""
        fast = self._profile()
        if fast is not None:
            return fast.terms(eps)
        mu, pp, pm_, kappa, lam = _parts(self.law)
        e = arb(eps)
        k, J = self.k, self.J
        val, der = arb(0), arb(0)
        lp, lm = pp.log(), pm_.log()
        for j in range(min(J, k + 1)):
            n = k - j
            wj = comb(k, j) * kappa**j
            cm = 1  # C(n, m)
            for m in range(n + 1):
                if m % 256 == 255:
                    budget.check()
                if m:
                    cm = cm * (n - m + 1) // m
                x = e - mu * (2 * m - n)
                a, b = self._integral(x, j, mu, lam, False)
                if a == 0 and b == 0:
                    continue
                w = wj * arb(cm) * (m * lp + (n - m) * lm).exp()
                val += w * (a - b)
                der -= w * b
        return val, der


def _ipow(x, n: int):
    """x^n for an integer n >= 0 by products (a ball around 0 stays a ball, never nan)."""
    out = x * 0 + 1
    for _ in range(n):
        out = out * x
    return out


def _poly_exp(n: int, nu: arb, b: arb, lo: arb, hi: arb) -> arb:
    """int_lo^hi (s - b)^n / n! e^{nu s} ds (nu != 0): with y = s - b, the antiderivative of
    y^n e^{nu y} / n! is e^{nu y} sum_{r=0}^n (-1)^r y^{n-r} / ((n - r)! nu^{r+1})."""

    def anti(y: arb) -> arb:  # (powers by products: arb's pow of a ball around 0 is nan)
        s, yp = arb(0), arb(1)
        for q in range(n + 1):  # q = n - r
            r = n - q
            s += (-1) ** r * yp / (math.factorial(q) * _ipow(nu, r + 1))
            yp = yp * y
        return (nu * y).exp() * s

    return (nu * b).exp() * (anti(hi - b) - anti(lo - b))


def log_binomial_tail(k: int, p: float, J: int) -> float:
    """Float log P(Bin(k, p) >= J) (planning only): 1 minus the head sum where J is at most
    the mean (the head is then at most about 1/2: no cancellation), else the terms j >= J
    summed upwards from J (past the mode they fall geometrically)."""
    if p <= 0:
        return -745.0 if J > 0 else 0.0
    if p >= 1:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)

    def log_term(j: int) -> float:
        return math.lgamma(k + 1) - math.lgamma(j + 1) - math.lgamma(k - j + 1) + j * lp \
            + (k - j) * lq

    if J <= k * p:
        head = sum(math.exp(log_term(j)) for j in range(J))
        return math.log1p(-head) if head < 1 else -745.0
    first = log_term(J)
    total, ratio_log = 0.0, 0.0
    for j in range(J, k + 1):
        term = math.exp(ratio_log)
        total += term
        if term < 1e-18 * total:
            break
        ratio_log += math.log((k - j) / (j + 1)) + lp - lq if j < k else -math.inf
    return first + math.log(total)


class RemainderLaw:
    """The positive measure of the k-fold product's terms with at least J density components
    (see the module), as a :class:`~.cf_laws.LossLaw` of one factor (n = 1): its transform
    R_J(z) = M(z)^k - sum_{j<J} C(k, j) A(z)^{k-j} U(z)^j, with the power decay of order J."""

    closed_under_tensor = False
    #: M(c + it) costs the same at every t (a closed form): the planned work is the nodes.
    mgf_cost_flat = True

    def __init__(self, law, k: int, J: int) -> None:
        self.law, self.k, self.J = law, int(k), int(J)
        mu = float(law.mu)
        # guard bits for the subtraction (R_J can be far below M^k when k p_u is small) and
        # the polynomial cancellations: log2 of M(c)^k / R_J(c) is at most that of 1 / P(j >= J)
        p_u = mu / 2 / (1 + mu / 2)
        mean = max(self.k * p_u, 1e-300)
        self._guard = 16 + int(max(0.0, (J * math.log(J / mean + 1) + mean) / math.log(2)))
        self._floats = tuple(float(v.mid()) for v in _parts(law))

    def _au(self, z: acb) -> tuple[acb, acb]:
        mu, pp, pm_, kappa, lam = _parts(self.law)
        w = z + lam
        a = pp * (z * mu).exp() + pm_ * (-z * mu).exp()
        u = 2 * kappa * (w * mu).sinh() / w
        return a, u

    def mgf(self, z: acb) -> acb:
        saved = ctx.prec
        ctx.prec = saved + self._guard
        try:
            a, u = self._au(z)
            r = (a + u) ** self.k
            for j in range(self.J):
                r -= comb(self.k, j) * a ** (self.k - j) * u**j
        finally:
            ctx.prec = saved
        return +r

    def _log_r(self, c: float) -> float:
        """Float log R_J(c) = k log(A + U) + log P(Bin(k, U/(A + U)) >= J) (planning)."""
        mu, pp, pm_, kappa, lam = self._floats
        # in logarithms (c reaches 1e5 in the saddle search): log A, log U, log(A + U)
        la = float(np.logaddexp(math.log(pp) + c * mu, math.log(pm_) - c * mu))
        w = c + lam
        x = w * mu
        lu = math.log(2 * kappa / w) + x + math.log(-math.expm1(-2 * x) / 2)
        lau = float(np.logaddexp(la, lu))
        return self.k * lau + max(log_binomial_tail(self.k, math.exp(lu - lau), self.J), -745.0)

    def cumulants(self, c: float) -> tuple[float, float, float]:
        h = 1e-4 * max(c, 1e-3)
        f0, fp, fm = self._log_r(c), self._log_r(c + h), self._log_r(c - h)
        return f0, (fp - fm) / (2 * h), max((fp - 2 * f0 + fm) / (h * h), 1e-300)

    def _bound(self, c: arb, t: arb) -> arb:
        mu, pp, pm_, kappa, lam = _parts(self.law)
        alpha = pp * (c * mu).exp() + pm_ * (-c * mu).exp()
        a = c + lam
        u0 = 2 * kappa * (a * mu).sinh() / a
        ut = 2 * kappa * (a * mu).cosh() / (a * a + t * t).sqrt()
        u = ut if ut < u0 else (u0 if u0 < ut else u0.union(ut))
        return comb(self.k, self.J) * u**self.J * (alpha + u) ** (self.k - self.J)

    def decay_bound(self, c: arb, t: arb) -> arb:
        return self._bound(c, t)

    def log_decay_estimate(self, c: float, t: float) -> float:
        b = self._bound(arb(c), arb(t))
        return math.log(upper(b)) if b > 0 else -math.inf

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        mu, pp, pm_, kappa, lam = _parts(self.law)
        alpha = pp * (c * mu).exp() + pm_ * (-c * mu).exp()
        a = c + lam
        u0 = 2 * kappa * (a * mu).sinh() / a
        v = comb(self.k, self.J) * (2 * kappa * (a * mu).cosh()) ** self.J
        return v * (alpha + u0) ** (self.k - self.J), self.J

    def loss_sup(self) -> arb | None:
        return self.k * _parts(self.law)[0]

    def inverse(self) -> RemainderLaw:
        return self

    def __eq__(self, other) -> bool:
        return isinstance(other, RemainderLaw) and (self.law, self.k, self.J) == (
            other.law, other.k, other.J)

    def __hash__(self) -> int:
        return hash((RemainderLaw, self.law, self.k, self.J))
