"""The infinity-Wasserstein distance and the shifted Rényi divergence (Dwork, Sec. 6.3).

Dwork, Def. 6.2, Eq. (6.13): W_oo(P, Q) = inf over couplings gamma of P and Q of
ess sup_{(x, y) ~ gamma} ||x - y||_2. Def. 6.3, Eq. (6.14) (Feldman, Mironov, Talwar &
Thakurta): the z-shifted Rényi divergence D_alpha^{(z)}(P || Q) = inf over P' with
W_oo(P, P') <= z of D_alpha(P' || Q), for z >= 0 and alpha >= 1.

The laws (exact parameters, SymPy numbers or symbols):

* :class:`FiniteLaw`: a finite law on R (atoms and masses; :func:`point_mass`);
* :class:`IsoGaussian`: N(m, sigma^2 I_d) on R^d, sigma = 0 being the point mass at m
  (:func:`add_noise` adds independent N(0, sigma^2 I_d), the variances add; :func:`cni_identity`
  is Eq. (6.8)-(6.10) with identity maps: X_T = X_0 + N(0, T sigma^2 I_d)).

:func:`w_infinity` is exact: for laws on R it is the supremum of the difference of the
quantile functions (the monotone coupling is optimal for W_oo on the line); for finite laws it is
read off the merged cumulative masses, and :func:`w_infinity_by_couplings` computes the same
number from the definition (the least distance r for which a coupling supported on
{|x - y| <= r} exists, decided by Hall's condition over the subsets of atoms). For
N(m, s^2 I_d) and N(m', s'^2 I_d) it is ||m - m'|| when s = s' (the translation coupling
attains it, and ||E X - E Y|| <= ess sup ||X - Y|| under every coupling) and +oo when s != s'
(the quantile difference (s - s') Phi^-1(u) of a coordinate is unbounded).

:func:`shifted_renyi` has the closed forms:

* equal-variance Gaussians in R^d: ``alpha max(||m_P - m_Q|| - z, 0)^2/(2 sigma^2)``. The
  candidate P' = N(m_P + z u, sigma^2 I_d), u the unit vector towards m_Q, attains it (Fact
  6.1, Eq. (6.12)). It is the infimum: the projection onto u does not increase D_alpha (data
  processing) and keeps W_oo <= z, and on the line, writing P' by its quantile function
  Phi^-1 + h with |h| <= z, the objective int (dP'/dQ)^{alpha - 1} dP' is log-convex in
  (h, h') and its derivative at h = z in every admissible direction -g (g >= 0) is
  alpha (alpha - 1) (||m_P - m_Q|| - z) int W g >= 0 (Stein's identity, W > 0): a convex
  problem at a point satisfying its first-order condition;
* point masses: 0 when ||x - y|| <= z, +oo otherwise (P' must be the point mass at y);
* any pair with W_oo(P, Q) <= z: 0 (P' = Q is admissible), which covers finite laws.

:func:`clamped_gaussian_renyi` is D_alpha between two Gaussians on R projected onto an interval
(atoms at the ends, a Gaussian density inside): a closed form in Phi, the non-Gaussian outputs of
Lemma 6.2 (contraction reduction, Eq. (6.16)) with the projection as the contraction.

:func:`noisy_renyi` is D_alpha(P + N(0, sigma^2) || Q + N(0, sigma^2)) for finite laws on R by
Arb quadrature (python-flint ``acb.integral`` on a bounded range, Gaussian tail bounds outside
it), a certified Value: the non-Gaussian check of Lemma 6.1 (shift reduction, Eq. (6.15)).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.validate import count, items, param, probability_vector
from ..numeric import budget
from ..numeric.arb_expr import ball_point
from ..numeric.context import arb_precision
from ..numeric.value import Value

__all__ = ["FiniteLaw", "IsoGaussian", "point_mass", "finite_law", "iso_gaussian", "add_noise",
           "cni_identity", "w_infinity", "w_infinity_by_couplings", "shifted_renyi",
           "noisy_renyi", "clamped_gaussian_renyi"]


@dataclass(frozen=True)
class FiniteLaw:
    """A finite law on R: distinct sorted ``atoms`` with positive ``masses`` summing to 1
    (build with :func:`finite_law`)."""

    atoms: tuple
    masses: tuple

    def cdf_steps(self) -> list[tuple[sp.Expr, sp.Expr]]:
        """(cumulative mass up to and including the atom, atom), in order."""
        out, c = [], sp.Integer(0)
        for x, m in zip(self.atoms, self.masses, strict=True):
            c += m
            out.append((c, x))
        return out


@dataclass(frozen=True)
class IsoGaussian:
    """N(mean, sigma^2 I_d) on R^d (``mean`` a tuple of d coordinates); sigma = 0 is the point
    mass at ``mean`` (build with :func:`iso_gaussian`)."""

    mean: tuple
    sigma: sp.Expr

    @property
    def dim(self) -> int:
        return len(self.mean)


def finite_law(atoms: Sequence, masses: Sequence) -> FiniteLaw:
    """A finite law on R with the given atoms (numbers) and masses (exact, summing to 1); equal
    atoms are merged and atoms of mass 0 dropped."""
    xs = [param(f"atoms[{i}]", x, numeric=True, owner="finite_law")
          for i, x in enumerate(items("atoms", atoms, "a sequence of real numbers",
                                      "finite_law"))]
    ms = probability_vector("masses", masses, "finite_law")
    if len(xs) != len(ms) or not xs:
        raise InvalidParameter("masses", masses, f"{len(xs)} masses, one per atom", "finite_law")
    acc: dict = {}
    for x, m in zip(xs, ms, strict=True):
        if m != 0:
            acc[x] = acc.get(x, sp.Integer(0)) + m
    keys = sorted(acc, key=lambda v: sp.Rational(v) if v.is_Rational else float(v))
    return FiniteLaw(tuple(keys), tuple(acc[k] for k in keys))


def point_mass(x: Any) -> FiniteLaw:
    """The point mass at the real number ``x``."""
    return finite_law([x], [1])


def iso_gaussian(mean: Any, sigma: Any) -> IsoGaussian:
    """N(mean, sigma^2 I_d): ``mean`` a number (d = 1) or a sequence of d coordinates (numbers
    or symbols), ``sigma >= 0`` (0: the point mass at ``mean``)."""
    if isinstance(mean, (list, tuple, sp.Tuple)):
        m = tuple(param(f"mean[{i}]", x, owner="iso_gaussian") for i, x in enumerate(mean))
        if not m:
            raise InvalidParameter("mean", mean, "a non-empty sequence of coordinates",
                                   "iso_gaussian")
    else:
        m = (param("mean", mean, owner="iso_gaussian"),)
    return IsoGaussian(m, param("sigma", sigma, lower=0, owner="iso_gaussian"))


def add_noise(P: IsoGaussian, sigma: Any) -> IsoGaussian:
    """The law of X + Z for X ~ P and independent Z ~ N(0, sigma^2 I_d): the variances add."""
    if not isinstance(P, IsoGaussian):
        raise InvalidParameter("P", P, "an IsoGaussian", "add_noise")
    s = param("sigma", sigma, lower=0, owner="add_noise")
    return IsoGaussian(P.mean, sp.sqrt(P.sigma**2 + s**2))


def cni_identity(x0: Any, sigma: Any, T: Any) -> IsoGaussian:
    """Dwork, Eq. (6.8)-(6.10): the contractive noisy iteration with identity maps and noise
    N(0, sigma^2 I_d) for T steps from the point x0: X_T = x0 + N(0, T sigma^2 I_d)."""
    T = param("T", T, lower=0, integer=True, owner="cni_identity")
    out = iso_gaussian(x0, 0)
    return IsoGaussian(out.mean, sp.sqrt(T) * param("sigma", sigma, lower=0,
                                                     owner="cni_identity"))


# -- W_oo ----------------------------------------------------------------------------------------
def _as_line_law(P: Any, name: str) -> FiniteLaw | IsoGaussian:
    if isinstance(P, FiniteLaw):
        return P
    if isinstance(P, IsoGaussian):
        if P.dim == 1 and P.sigma == 0:
            return FiniteLaw(P.mean, (sp.Integer(1),))
        return P
    raise InvalidParameter(name, P, "a FiniteLaw or an IsoGaussian", "w_infinity")


def _finite_w(P: FiniteLaw, Q: FiniteLaw) -> sp.Expr:
    """sup_u |F_P^-1(u) - F_Q^-1(u)|: on each interval of u between consecutive cumulative
    masses of either law (of positive length) both quantile functions are constant."""
    a, b = P.cdf_steps(), Q.cdf_steps()
    i = j = 0
    best = sp.Integer(0)
    while i < len(a) and j < len(b):
        best = sp.Max(best, abs(a[i][1] - b[j][1]))
        ci, cj = a[i][0], b[j][0]
        if ci == cj:
            i, j = i + 1, j + 1
        elif (ci < cj) is sp.true:
            i += 1
        else:
            j += 1
    return best


def w_infinity(P: Any, Q: Any) -> sp.Expr:
    """W_oo(P, Q) (Dwork, Def. 6.2, Eq. (6.13)), exact: finite laws on R (the supremum of the
    quantile difference), N(m, s^2 I_d) against N(m', s'^2 I_d) (||m - m'|| if s = s', else
    +oo; s = 0 is a point mass), a finite law against a Gaussian with sigma > 0 (+oo)."""
    P, Q = _as_line_law(P, "P"), _as_line_law(Q, "Q")
    if isinstance(P, FiniteLaw) and isinstance(Q, FiniteLaw):
        return _finite_w(P, Q)
    if isinstance(P, IsoGaussian) and isinstance(Q, IsoGaussian):
        if P.dim != Q.dim:
            raise InvalidParameter("Q", Q, f"a law on R^{P.dim}", "w_infinity")
        diff = sp.simplify(P.sigma - Q.sigma)
        if diff != 0:
            if diff.is_zero is False:
                return sp.oo
            raise NoClosedForm("w_infinity: cannot decide whether the two scales are equal "
                               f"({P.sigma} and {Q.sigma})")
        return sp.sqrt(sum((x - y)**2 for x, y in zip(P.mean, Q.mean, strict=True)))
    G = P if isinstance(P, IsoGaussian) else Q
    if G.dim != 1:
        raise InvalidParameter("Q" if G is Q else "P", G, "a law on R (a finite law is on R)",
                               "w_infinity")
    if G.sigma.is_positive:
        return sp.oo  # a finite (bounded) law against a Gaussian with sigma > 0 (unbounded)
    raise NoClosedForm(f"w_infinity: cannot decide whether sigma = {G.sigma} is positive")


def w_infinity_by_couplings(P: FiniteLaw, Q: FiniteLaw) -> sp.Expr:
    """W_oo(P, Q) of finite laws on R from the definition, Eq. (6.13): the least r among the
    distances |x - y| between atoms for which a coupling supported on {|x - y| <= r} exists,
    decided by Hall's condition P(S) <= Q(N_r(S)) for every set S of atoms of P (a supply and
    demand problem; at most 14 atoms of P). Independent of the quantile formula."""
    for name, L in (("P", P), ("Q", Q)):
        if not isinstance(L, FiniteLaw):
            raise InvalidParameter(name, L, "a FiniteLaw", "w_infinity_by_couplings")
    if not all(x.is_Rational for x in P.atoms + Q.atoms):
        raise InvalidParameter("P", P, "finite laws with rational atoms",
                               "w_infinity_by_couplings")
    if len(P.atoms) > 14:
        raise InvalidParameter("P", P, "a FiniteLaw with at most 14 atoms (2^k subsets)",
                               "w_infinity_by_couplings")
    cands = sorted({abs(x - y) for x in P.atoms for y in Q.atoms}, key=sp.Rational)
    idx = range(len(P.atoms))
    for r in cands:
        near = [{j for j, y in enumerate(Q.atoms) if abs(x - y) <= r} for x in P.atoms]
        if all(sum(P.masses[i] for i in S) <= sum(Q.masses[j] for j in set().union(
                *(near[i] for i in S))) for k in range(1, len(P.atoms) + 1)
               for S in itertools.combinations(idx, k)):
            return r
    raise AssertionError("unreachable: the largest distance always admits a coupling")


# -- the shifted Renyi divergence -----------------------------------------------------------------
def shifted_renyi(P: Any, Q: Any, alpha: Any, z: Any) -> sp.Expr:
    """D_alpha^{(z)}(P || Q) (Dwork, Def. 6.3, Eq. (6.14)) where it has a closed form: equal-
    variance Gaussians in R^d, ``alpha Max(||m_P - m_Q|| - z, 0)^2/(2 sigma^2)``; point masses
    (0 or +oo); any pair with W_oo(P, Q) <= z, 0. Otherwise :class:`NoClosedForm`. ``alpha >= 1``
    and ``z >= 0`` may be symbols (so may the means and sigma of Gaussians)."""
    alpha = param("alpha", alpha, lower=1, owner="shifted_renyi")
    z = param("z", z, lower=0, owner="shifted_renyi")
    if isinstance(P, IsoGaussian) and isinstance(Q, IsoGaussian) \
            and sp.simplify(P.sigma - Q.sigma) == 0:
        d = w_infinity(P, Q)
        if P.sigma == 0:
            within = sp.simplify(d - z)
            if within.is_nonpositive:
                return sp.Integer(0)
            if within.is_positive:
                return sp.oo
            return sp.Piecewise((0, d <= z), (sp.oo, True))
        if P.sigma.is_zero is not False:
            raise NoClosedForm("shifted_renyi: sigma may be 0; give a positive sigma")
        return alpha * sp.Max(d - z, 0)**2 / (2 * P.sigma**2)
    w = w_infinity(P, Q)
    if (w <= z) is sp.true:
        return sp.Integer(0)
    Pl, Ql = _as_line_law(P, "P"), _as_line_law(Q, "Q")
    if isinstance(Pl, FiniteLaw) and isinstance(Ql, FiniteLaw) and len(Pl.atoms) == 1 \
            and len(Ql.atoms) == 1 and (w > z) is sp.true:
        return sp.oo
    raise NoClosedForm("shifted_renyi: no closed form for this pair (closed forms: equal-"
                       "variance Gaussians, point masses, pairs with W_oo <= z)")


# -- D_alpha of finite laws plus Gaussian noise, by Arb quadrature ---------------------------------
def _rational_law(P: Any, name: str) -> tuple[list[sp.Rational], list[sp.Rational]]:
    if isinstance(P, IsoGaussian) and P.dim == 1 and P.sigma == 0:
        P = FiniteLaw(P.mean, (sp.Integer(1),))
    if not isinstance(P, FiniteLaw) or not all(sp.sympify(v).is_Rational
                                               for v in P.atoms + P.masses):
        raise InvalidParameter(name, P, "a FiniteLaw with rational atoms and masses",
                               "noisy_renyi")
    return list(P.atoms), list(P.masses)


def _noisy_ball(P, Q, a: int, s: sp.Rational, prec: int):
    """The Arb ball of D_a(P * N(0, s^2) || Q * N(0, s^2)) at ``prec`` bits."""
    from flint import acb, arb

    def q(x):
        return arb(x.p) / x.q

    (xa, pa), (xb, qb) = P, Q
    s_ = q(s)
    two_s2 = 2 * s_ * s_

    def mix(z, atoms, masses):
        return sum((q(m) * (-(z - q(x))**2 / two_s2).exp() for x, m in zip(atoms, masses,
                                                                            strict=True)),
                   acb(0))

    def integrand(z, analytic):
        num = mix(z, xa, pa)
        den = mix(z, xb, qb)
        return num**a / den**(a - 1)

    # tails: for z >= U >= max(P): P~(z) <= e^{-(z-a_)^2/(2s^2)}, Q~(z) >= q_b e^{-(z-b)^2/(2s^2)}
    # so the integrand is <= q_b^{1-a} e^{a(a-1)(a_-b)^2/(2s^2)} e^{-(z-c)^2/(2s^2)},
    # c = a a_ + (1-a) b (and the mirror image on the left)
    K = math.sqrt(2 * math.log(2) * prec) + 6
    cr = a * max(xa) + (1 - a) * max(xb)
    cl = a * min(xa) + (1 - a) * min(xb)
    U = sp.Rational(math.ceil(float(max(max(xa), cr) + K * s)))
    L = sp.Rational(math.floor(float(min(min(xa), cl) - K * s)))
    norm = (2 * arb.pi()).sqrt() * s_  # sigma sqrt(2 pi): p^a q^(1-a) keeps one factor

    def tail(dist, mb, gap):  # factor * P(N(0,1) > dist/s)
        fac = q(mb) ** (1 - a) * (arb(a * (a - 1)) * q(gap)**2 / two_s2).exp()
        return fac * (q(dist) / (s_ * arb(2).sqrt())).erfc() / 2

    rt = tail(U - cr, qb[xb.index(max(xb))], max(xa) - max(xb))
    lt = tail(cl - L, qb[xb.index(min(xb))], min(xa) - min(xb))
    # the tolerance (not the enclosure) needs the integral's size: a float trapezoid estimate
    grid = np.linspace(float(L), float(U), 2001)
    lp = [np.log(sum(float(m) * np.exp(-(grid - float(x))**2 / (2 * float(s)**2))
                     for x, m in zip(at, ms, strict=True)) + 1e-300) for at, ms in (P, Q)]
    size = float(np.trapezoid(np.exp(a * lp[0] + (1 - a) * lp[1]), grid))
    tol = arb(2)**(-prec) * arb(size if math.isfinite(size) and size > 0 else 1)
    body = budget.integral(integrand, q(L), q(U), rel_tol=arb(2)**(-prec), abs_tol=tol).real
    total = body / norm + (rt + lt) * arb(0).union(arb(1))
    if not total.is_finite() or not total > 0:
        return None
    return total.log() / (a - 1)


def noisy_renyi(P: Any, Q: Any, alpha: Any, sigma: Any, dps: int = 30) -> Value:
    """D_alpha(P + N(0, sigma^2) || Q + N(0, sigma^2)) for finite laws P, Q on R with rational
    atoms and masses, an integer order alpha >= 2 and a rational sigma > 0: the Arb integral
    of p^alpha q^(1 - alpha) over a bounded range (``acb.integral``, error bounds from
    analyticity) plus Gaussian bounds of the two tails, as a certified Value of ``dps`` digits
    (the Rényi divergence of Dwork, Eq. (4.4), of two Gaussian mixtures)."""
    Pl, Ql = _rational_law(P, "P"), _rational_law(Q, "Q")
    a = param("alpha", alpha, lower=2, integer=True, numeric=True, owner="noisy_renyi")
    s = param("sigma", sigma, lower=0, lower_open=True, numeric=True, owner="noisy_renyi")
    if not s.is_Rational:
        raise InvalidParameter("sigma", sigma, "a rational number > 0", "noisy_renyi")
    dps = count("dps", dps, lower=5, upper=200, owner="noisy_renyi")

    def make_ball(prec):
        with arb_precision(prec):
            return _noisy_ball(Pl, Ql, int(a), s, prec)

    v = ball_point(make_ball, dps, max_bits=1 << 11)
    if v is None:
        raise NoClosedForm("noisy_renyi: the Arb quadrature did not reach the digits asked for")
    return v


def clamped_gaussian_renyi(m_p: Any, m_q: Any, sigma: Any, lo: Any, hi: Any,
                           alpha: Any) -> sp.Expr:
    """D_alpha(Pi(N(m_p, sigma^2)) || Pi(N(m_q, sigma^2))) for the projection Pi onto
    [lo, hi] (Dwork, Prop. 6.1 (1)), alpha > 1, a closed form: the two atoms Phi((lo - m)/sigma)
    and Phi((m - hi)/sigma) and, inside, phi_p^alpha phi_q^(1 - alpha) =
    e^{alpha (alpha - 1)(m_p - m_q)^2/(2 sigma^2)} phi_c with c = alpha m_p + (1 - alpha) m_q,
    whose integral over (lo, hi) is a difference of Phi (SymPy expression; symbols allowed)."""
    from ..core.normal import Phi

    own = "clamped_gaussian_renyi"
    m_p, m_q = param("m_p", m_p, owner=own), param("m_q", m_q, owner=own)
    sigma = param("sigma", sigma, lower=0, lower_open=True, owner=own)
    lo, hi = param("lo", lo, owner=own), param("hi", hi, owner=own)
    if (hi <= lo) is sp.true:
        raise InvalidParameter("hi", hi, f"a number > lo = {lo}", own)
    a = param("alpha", alpha, lower=1, lower_open=True, owner=own)
    c = a * m_p + (1 - a) * m_q
    inner = sp.exp(a * (a - 1) * (m_p - m_q)**2 / (2 * sigma**2)) * (
        Phi((hi - c) / sigma) - Phi((lo - c) / sigma))
    left = Phi((lo - m_p) / sigma)**a * Phi((lo - m_q) / sigma)**(1 - a)
    right = Phi((m_p - hi) / sigma)**a * Phi((m_q - hi) / sigma)**(1 - a)
    return sp.log(left + inner + right) / (a - 1)
