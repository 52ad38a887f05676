"""Certified independent routes for the claims the library implements as printed.

Each check recomputes the claimed quantity from the definitions, by a route that does not pass
through the rule or closed form under test (``proofs.basis.trace`` verifies that at run time):

* KL(P, Q) from the densities by exact SymPy integration of q log(q/p) (G_mu, L_mu) or an
  exact finite sum (randomised response);
* the trade-off function of a product of Gaussians (Dong, Roth & Su, Cor. 2) from the
  two-dimensional Neyman-Pearson test, alpha and beta by Arb integration (``acb.integral``)
  with a certified bound on the truncated tails;
* group privacy of G_mu (Thm. 3) by k steps of alpha -> 1 - G_mu(alpha) on certified
  intervals (monotone, so the ends map to the ends);
* delta(eps) of G_mu (Cor. 1) by Arb integration of the hockey-stick integrand
  q - e^eps p on the region where it is positive;
* chi2_+(G_mu) (Lemma 3) by Arb integration of (q/p - 1)^2 p where q > p;
* the AUC of G_mu (Kaissis et al.) by Arb integration of P(Y > X) = int phi(x) Phi(mu - x) dx.

A check confirms only when the two certified enclosures intersect and both are narrower than
``10^-DIGITS`` relative to the value: agreement of certified enclosures, never a tolerance on
an estimate. Disjoint enclosures refute the library's number.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import sympy as sp
from flint import acb, arb, ctx

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp

from ._claims import Check
from .basis import untraced

__all__ = ["value_ends", "lemma4_printed", "kl_by_definition", "gaussian_product_np",
           "gaussian_group_iterate", "gaussian_profile_hockey", "chi2_plus_quadrature",
           "auc_quadrature", "DIGITS"]

DIGITS = 20
PREC = 160
R = sp.Rational


# -- certified numbers --------------------------------------------------------------------------
def _frac(b: arb) -> Fraction:
    m, e = b.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def _ends(b: arb) -> tuple[Fraction, Fraction]:
    return _frac(b.lower()), _frac(b.upper())


def value_ends(v) -> tuple[Fraction, Fraction]:
    """The library's Value as exact rational ends (it must be exact or certified)."""
    if v.guarantee not in ("exact", "certified"):
        raise AssertionError(f"the library's value {v} is not certified")
    if v.exact is not None:
        q = Fraction(v.exact)
        return q, q
    with mp.workdps(v.dps + 20):
        lo, hi = v.interval()
    return _mpf_frac(lo), _mpf_frac(hi)


def _mpf_frac(x) -> Fraction:
    m, e = x.man_exp
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def _agree(lib: tuple[Fraction, Fraction], ref: tuple[Fraction, Fraction]) -> str | None:
    """None when the enclosures intersect and are both narrow; else what went wrong."""
    (a, b), (c, d) = lib, ref
    if b < c or d < a:
        return f"disjoint enclosures: library [{float(a):.20g}, {float(b):.20g}], reference " \
               f"[{float(c):.20g}, {float(d):.20g}]"
    scale = max(abs(a), abs(c), Fraction(1, 10**300))
    tol = Fraction(1, 10**DIGITS) * scale
    if b - a > tol or d - c > tol:
        return f"enclosures too wide to confirm {DIGITS} digits: library width " \
               f"{float(b - a):.3g}, reference width {float(d - c):.3g}"
    return None


def _arb(x) -> arb:
    x = sp.nsimplify(x) if not isinstance(x, sp.Basic) else x
    if x.is_Rational:
        return arb(x.p) / x.q
    return arb(str(sp.N(x, 60)))  # pragma: no cover - the checks use rational parameters


def _phi(x):
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def _Phi(x):
    """The standard normal CDF by erfc, for arb or acb balls."""
    if isinstance(x, acb):
        return (-x / acb(2).sqrt()).erfc() / 2
    return (-x / arb(2).sqrt()).erfc() / 2


def _between(lo: arb, hi: arb) -> arb:
    """A ball holding [lo, hi]."""
    return (lo + hi) / 2 + arb(0, 1) * (hi - lo) / 2


def _integral(f, a: arb, b: arb) -> arb:
    """A certified enclosure of int_a^b f (f analytic on a neighbourhood of [a, b])."""
    return acb.integral(lambda z, _: f(z), acb(a), acb(b)).real


def _run(name: str, cases, basis: tuple[str, ...], scope: str) -> Check:
    bad, n = [], 0
    with ctx.workprec(PREC):
        for label, lib, ref in cases():
            n += 1
            why = _agree(lib, ref)
            if why:
                bad.append(f"{label}: {why}")
    if bad:
        return Check("fails", f"{name}: " + "; ".join(bad[:3]), True, basis, scope)
    return Check("holds", f"{name}: the library's certified values and the certified reference "
                 f"enclosures intersect and agree to {DIGITS} digits at {n} points ({scope})",
                 True, basis, scope)


def _rat(q: Fraction) -> sp.Rational:
    return R(q.numerator, q.denominator)


def _lib(f, alpha) -> tuple[Fraction, Fraction]:
    with untraced():
        return value_ends(ta.evaluate(f, alpha, dps=40))


def _lib_value(func, *args) -> tuple[Fraction, Fraction]:
    """The library's certified value under test (untraced: the side being checked)."""
    with untraced():
        return value_ends(func(*args, dps=40))


def _lib_on(f, ends: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    """A non-increasing trade-off function on an interval of alpha: [f(hi), f(lo)]."""
    lo, hi = ends
    return _lib(f, _rat(hi))[0], _lib(f, _rat(lo))[1]


# -- KL from the definition (exact) -------------------------------------------------------------
_x = sp.Symbol("x", real=True)
_mu = sp.Symbol("mu", positive=True)


def _gauss_pdf(y):
    return sp.exp(-y**2 / 2) / sp.sqrt(2 * sp.pi)


@cache
def kl_by_definition() -> Check:
    """KL(Q, P) = E_Q log(q/p) for the pairs of G_mu (N(mu, 1) vs N(0, 1)), L_mu (Lap(mu, 1) vs
    Lap(0, 1)) and randomised response with e^eps = E, by exact integration (SymPy) and exact
    sums; compared symbolically with the library's kl (which must not be circular: the library
    returns its closed form, the reference integrates the densities). All three pairs are
    symmetric, so KL(P, Q) = KL(Q, P)."""
    x, mu = _x, _mu
    ref_g = sp.integrate(_gauss_pdf(x - mu) * (mu * x - mu**2 / 2), (x, -sp.oo, sp.oo))
    parts = [((-sp.oo, 0), sp.exp(x - mu) / 2, -mu), ((0, mu), sp.exp(x - mu) / 2, 2 * x - mu),
             ((mu, sp.oo), sp.exp(mu - x) / 2, mu)]
    ref_l = sum(sp.integrate(d * lr, (x, lo, hi)) for (lo, hi), d, lr in parts)
    eps = sp.Symbol("epsilon", positive=True)
    E = sp.exp(eps)
    p, q = [E / (1 + E), 1 / (1 + E)], [1 / (1 + E), E / (1 + E)]
    ref_rr = sum(qi * sp.log(qi / pi) for pi, qi in zip(p, q, strict=True))
    P3, Q3 = [R(1, 5), R(1, 2), R(3, 10)], [R(2, 5), R(2, 5), R(1, 5)]
    ref_d = sum(pi * sp.log(pi / qi) for pi, qi in zip(P3, Q3, strict=True))
    # kappa_2 = E_P[l^2], bar kappa_3 = E_P|l - E_P l|^3 with l = mu x - mu^2/2 under N(0, 1)
    lg = mu * x - mu**2 / 2
    ref_k2 = sp.integrate(_gauss_pdf(x) * lg**2, (x, -sp.oo, sp.oo))
    ref_k3b = 2 * sp.integrate(_gauss_pdf(x) * (mu * x)**3, (x, 0, sp.oo))
    with untraced():  # the library's values under test
        libs = [ta.kl(ta.G(mu)), ta.kl(ta.Laplace(mu)), ta.kl(ta.EpsDelta(eps, 0)),
                ta.kl(ta.Discrete(P3, Q3)), ta.kappa2(ta.G(mu)), ta.kappa3_bar(ta.G(mu)),
                ta.kappa2(ta.EpsDelta(eps, 0)),
                *(fn(ta.Id) for fn in (ta.kl, ta.kappa2, ta.kappa3, ta.kappa3_bar))]
    bad = []
    names = ("kl(G_mu)", "kl(L_mu)", "kl(f_{eps,0})", "kl(T(P, Q)) finite", "kappa2(G_mu)",
             "bar kappa3(G_mu)", "kappa2(f_{eps,0})", "kl(Id)", "kappa2(Id)", "kappa3(Id)",
             "bar kappa3(Id)")
    ref_k2rr = sum(pi * sp.log(qi / pi) ** 2 for pi, qi in zip(p, q, strict=True))
    refs = (ref_g, ref_l, ref_rr, ref_d, ref_k2, ref_k3b, ref_k2rr, 0, 0, 0, 0)  # Id: P = Q, l = 0
    for name, lib, ref in zip(names, libs, refs, strict=True):
        d = sp.simplify(sp.expand_log(sp.simplify(lib - ref), force=True))
        if d != 0:
            bad.append(f"{name}: library - definition = {d}")
    basis = ("KL = int q log(q/p), kappa_2 = E_P l^2, bar kappa_3 = E_P|l - E_P l|^3 with "
             "l = log(q/p) (definitions, Sec. 3.2)", "SymPy integration and simplification, "
             "exact")
    scope = "all mu > 0 and eps > 0 (symbolic)"
    if bad:
        return Check("fails", "; ".join(bad), True, basis, scope)
    return Check("holds", "KL from the densities by exact integration (G_mu: mu^2/2; L_mu: "
                 "mu + e^-mu - 1) and the exact sums for randomised response and for P = "
                 "(1/5, 1/2, 3/10), Q = (2/5, 2/5, 1/5) (KL(P, Q)), kappa_2 of randomised "
                 "response, kappa_2 and bar kappa_3 of G_mu, and the four functionals of Id "
                 "(P = Q) from E_P of powers of the log-likelihood ratio, equal the library's "
                 "values for all parameters (symbolic difference 0)", True, basis, scope)


# -- Cor. 2: the product of two Gaussians by the 2-D Neyman-Pearson test ------------------------
_TAIL = 14  # |x| <= 14 around the mean: the normal mass outside is < 2e-44


def _normal_integral(f, centre: arb) -> arb:
    """int_R phi(x - centre) g(x) dx with 0 <= g <= 1, given f = phi(x - centre) g(x): the
    integral over centre +- 14, widened by the certified mass outside."""
    L = arb(_TAIL)
    core = _integral(f, centre - L, centre + L)
    tail = 2 * _Phi(-L)
    return core + _between(arb(0), tail)


def gaussian_product_np() -> Check:
    """G_mu (x) G_nu = T(N(0, I), N((mu, nu), I)): the likelihood-ratio test rejects when
    mu X + nu Y > c; alpha(c) = int phi(x) Phi((mu x - c)/nu) dx and beta(c) = int phi(x - mu)
    Phi((c - mu x)/nu - nu) dx by Arb integration; the library's G_sqrt(mu^2 + nu^2) on the
    enclosure of alpha(c) must meet the enclosure of beta(c)."""
    pts = [(R(1, 2), 2), (3, R(7, 10)), (1, 1)]

    def cases():
        for m_, v_ in pts:
            m, v = _arb(sp.sympify(m_)), _arb(sp.sympify(v_))
            g = ta.G(sp.sqrt(sp.sympify(m_)**2 + sp.sympify(v_)**2))
            for c_ in (-1, 1, 4):
                c = arb(c_)
                a = _normal_integral(lambda z, m=m, v=v, c=c: _phi_c(z) * _Phi((m * z - c) / v),
                                     arb(0))
                b = _normal_integral(lambda z, m=m, v=v, c=c: _phi_c(z - m)
                                     * _Phi((c - m * z) / v - v), m)
                yield (f"(mu, nu) = ({m_}, {v_}), c = {c_}", _lib_on(g, _ends(a)), _ends(b))

    return _run("2-D Neyman-Pearson by Arb integration", cases,
                ("Neyman-Pearson lemma: the likelihood-ratio test of N(0, I) vs N((mu, nu), I)",
                 "Arb integration (acb.integral) with certified tail bounds",
                 "the library's G_mu closed form (a definition)"),
                "(mu, nu) in {(1/2, 2), (3, 7/10), (1, 1)}, thresholds c in {-1, 1, 4}")


def _phi_c(z):
    return (-(z * z) / 2).exp() / (2 * acb.pi()).sqrt()


# -- Thm. 3: group privacy of G_mu by iterating 1 - G_mu ---------------------------------------
def gaussian_group_iterate() -> Check:
    """Group(G_mu, k)(alpha) = 1 - h^k(alpha) with h(a) = 1 - G_mu(a) (the definition of group
    privacy in Thm. 3's proof): h is non-decreasing, so k steps on certified intervals of the
    library's G_mu (a family's closed form, no rule) enclose the k-fold composition; the
    library's G_{k mu} at alpha must meet it."""
    pts = [(R(1, 2), 2), (1, 3), (R(3, 10), 5)]

    def cases():
        for m, k in pts:
            g = ta.G(m)
            for alpha in (R(1, 10**20), R(1, 100), R(2, 5), R(9, 10)):
                lo = hi = Fraction(alpha.p, alpha.q)
                for _ in range(k):  # [lo, hi] -> [1 - G(lo), 1 - G(hi)]
                    glo, ghi = _lib(g, _rat(lo)), _lib(g, _rat(hi))
                    lo, hi = 1 - glo[1], 1 - ghi[0]
                ref = (1 - hi, 1 - lo)
                yield f"(mu, k) = ({m}, {k}), alpha = {alpha}", _lib(ta.G(k * m), alpha), ref

    return _run("k-fold composition of 1 - G_mu on certified intervals", cases,
                ("Group(f, k) = 1 - (1 - f)^{o k} (the definition in Thm. 3's proof)",
                 "the library's G_mu closed form at interval ends (a definition)"),
                "(mu, k) in {(1/2, 2), (1, 3), (3/10, 5)}, alpha in {1e-20, 1/100, 2/5, 9/10}")


# -- Cor. 1: delta(eps) of G_mu as a hockey-stick integral --------------------------------------
def gaussian_profile_hockey() -> Check:
    """delta(eps) = int (q - e^eps p)_+ with p = phi, q = phi(. - mu): q > e^eps p exactly when
    x > t = eps/mu + mu/2, so delta = int_t^oo (phi(x - mu) - e^eps phi(x)) dx, by Arb
    integration over [t, t + 40] widened by the certified tail mass of q beyond."""
    pts = [(R(1, 2), 0), (1, R(1, 2)), (1, 2), (3, 5), (R(1, 2), 5), (2, 1)]

    def cases():
        for m_, e_ in pts:
            m, e = _arb(sp.sympify(m_)), _arb(sp.sympify(e_))
            t = e / m + m / 2
            top = t + 40
            E = e.exp()
            core = _integral(lambda z, m=m, E=E: _phi_c(z - m) - E * _phi_c(z), t, top)
            tail = _Phi(m - top)  # int_top^oo phi(x - mu) bounds the positive integrand
            ref = core + _between(arb(0), tail)
            yield (f"(mu, eps) = ({m_}, {e_})", _lib_value(ta.delta, ta.G(m_), e_),
                   _ends(ref))

    return _run("the hockey-stick integral by Arb integration", cases,
                ("delta(eps) = int (q - e^eps p)_+ (Def. 1 / Eq. (1))",
                 "the likelihood ratio of N(mu, 1) to N(0, 1) is exp(mu x - mu^2/2)",
                 "Arb integration (acb.integral) with a certified tail bound"),
                "(mu, eps) in {(1/2, 0), (1, 1/2), (1, 2), (3, 5), (1/2, 5), (2, 1)}")


# -- Lemma 3: chi2_+(G_mu) ----------------------------------------------------------------------
def chi2_plus_quadrature() -> Check:
    """chi2_+(G_mu) = E_P[(e^l - 1)^2; l > 0], l = mu x - mu^2/2 under P = N(0, 1): Arb
    integration over [mu/2, T] plus the certified tail int_T^oo phi(x) e^{2l} dx =
    e^{mu^2} Phi(2 mu - T)."""
    pts = [R(1, 10), R(1, 2), 1, 2, 3]

    def cases():
        for m_ in pts:
            m = _arb(sp.sympify(m_))
            top = m / 2 + 40 + 2 * m
            core = _integral(lambda z, m=m: _phi_c(z) * ((m * z - m * m / 2).exp() - 1) ** 2,
                             m / 2, top)
            tail = (m * m).exp() * _Phi(2 * m - top)
            ref = core + _between(arb(0), tail)
            yield f"mu = {m_}", _lib_value(ta.chi2_plus, ta.G(m_)), _ends(ref)

    return _run("chi2_+ by Arb integration of the definition", cases,
                ("chi2_+(P, Q) = E_P[(q/p - 1)^2; q > p] (the definition before Lemma 3)",
                 "Arb integration (acb.integral) with a certified tail bound"),
                "mu in {1/10, 1/2, 1, 2, 3}")


# -- Kaissis et al.: the AUC of the Gaussian mechanism ------------------------------------------
def auc_quadrature() -> Check:
    """AUC = int_0^1 (1 - f(alpha)) dalpha = P(Y > X) for X ~ N(0, 1), Y ~ N(psi, 1)
    independent = int phi(x) Phi(psi - x) dx, by Arb integration with a certified tail."""
    pts = [R(1, 10), 1, R(5, 2), 6]

    def cases():
        for p_ in pts:
            p = _arb(sp.sympify(p_))
            ref = _normal_integral(lambda z, p=p: _phi_c(z) * _Phi(p - z), arb(0))
            f = ta.gaussian_mechanism(1, 1 / sp.sympify(p_))  # psi = Delta / sigma
            yield f"psi = {p_}", _lib_value(ta.auc, f), _ends(ref)

    return _run("P(Y > X) by Arb integration", cases,
                ("AUC = int_0^1 (1 - f) = P(Y > X) (the ROC area as a probability)",
                 "Arb integration (acb.integral) with a certified tail bound"),
                "psi = Delta/sigma in {1/10, 1, 5/2, 6}")


# -- Lemma 4 of Dong, Roth & Su: the printed integrals, in Arb ---------------------------------
def lemma4_printed(name: str, p: sp.Rational, mu: sp.Rational, kl=None) -> tuple[Fraction,
                                                                                   Fraction]:
    """A certified enclosure of Lemma 4's printed integral for ``name`` ("kl", "kappa2",
    "kappa3_bar") of C_p(G_mu): Z(x) = log(1 + p (e^{mu x - mu^2/2} - 1)), over x > mu/2,
    by Arb integration to mu/2 + 40 + 2 mu with a certified bound on the rest (the integrands
    are at most a polynomial in x times phi(x - mu) + phi(x)). ``kl``: for "kappa3_bar", the
    enclosure (lo, hi) of kl that the printed formula subtracts (it splits the integral where
    Z = kl)."""
    with ctx.workprec(PREC):
        P, M = _arb(sp.sympify(p)), _arb(sp.sympify(mu))

        def Z(z):
            return (P * ((M * z - M * M / 2).exp() - 1)).log1p()

        a, top = M / 2, M / 2 + 40 + 2 * M
        # Beyond top (x - mu >= 40): 0 <= Z <= mu x (log(1 + p(e^l - 1)) <= l for l >= 0)
        # and phi(x) <= phi(x - mu) for x >= mu/2, so each integrand is at most
        # 2 (mu x + c)^3 phi(x - mu) <= 2 (A y)^3 phi(y), y = x - mu, A = mu + mu^2 + c,
        # c = 1 + kl (>= 1, so A y >= 1 and lower powers are bounded by the cube); two such
        # integrals at most: the rest is below 4 A^3 int_T0^oo y^3 phi(y) dy
        # = 4 A^3 (T0^2 + 2) phi(T0).
        c = 1 + (_arb(sp.Rational(kl[1].numerator, kl[1].denominator)) if kl else 0)
        A, T0 = M + M * M + c, top - M
        rest = 4 * A**3 * (T0 * T0 + 2) * _phi(T0)
        if name == "kl":
            core = P * _integral(lambda z: Z(z) * (_phi_c(z - M) - _phi_c(z)), a, top)
        elif name == "kappa2":
            core = _integral(lambda z: Z(z) ** 2 * (P * _phi_c(z - M) + (2 - P) * _phi_c(z)),
                             a, top)
        else:
            K = _between(_arb(sp.Rational(kl[0].numerator, kl[0].denominator)),
                         _arb(sp.Rational(kl[1].numerator, kl[1].denominator)))
            # Z - kl changes sign once, at x0: Z(x0) = kl
            x0 = (((K.exp() - 1) / P).log1p() + M * M / 2) / M

            def w(z):
                return P * _phi_c(z - M) + (1 - P) * _phi_c(z)

            core = (_integral(lambda z: (K - Z(z)) ** 3 * w(z), a, x0)
                    + _integral(lambda z: (Z(z) - K) ** 3 * w(z), x0, top)
                    + _integral(lambda z: (Z(z) + K) ** 3 * _phi_c(z), a, top))
        return _ends(core + _between(arb(0), rest))
