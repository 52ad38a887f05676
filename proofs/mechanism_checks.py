"""Verdicts and certified cross-checks about the objects around a mechanism: its noise, the
sensitivity of its query, its privacy-loss random variable, estimators and tests (used by
``claims_dwork`` and ``claims_kaissis``).

* the privacy loss of the Gaussian mechanism from its definition: ``L = log(q/p)`` from the two
  densities by SymPy, its moment generating function ``E_Q[e^{zL}]`` by SymPy integration; a
  law is N(m, v) iff its MGF is ``exp(m z + v z^2/2)``. The cross-check compares the library's
  privacy-loss law (``numeric.privacy_loss``, the Arb view) with that MGF in Arb;
* the truncated Laplace pair's delta by Arb quadrature of ``(q - e^eps p)_+`` on the pieces
  where its sign is constant, against the closed form of ``analysis.noise``;
* the area under a binormal ROC curve by Arb quadrature (``acb.integral``, certified tails);
* Neyman-Pearson tests on a finite pair: their exact error rates.
"""

from __future__ import annotations

import itertools
from functools import cache

import sympy as sp
from flint import acb, arb, ctx

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import noise
from tradeoff_algebra.numeric.arb_expr import arb_enclose
from tradeoff_algebra.numeric.privacy_loss import privacy_loss

from ._claims import Check
from .basis import untraced
from .independent import _ends, _normal_integral, _phi_c

__all__ = ["gaussian_loss_mgf", "gaussian_loss_law_check", "tlap_delta_check",
           "binormal_auc_ends", "error_rates"]

R = sp.Rational
PREC = 160
_o = sp.Symbol("o", real=True)
_z = sp.Symbol("z", real=True)


def _a(x) -> arb:
    x = sp.Rational(x)
    return arb(x.p) / x.q


# -- the privacy loss of the Gaussian mechanism --------------------------------------------------
@cache
def gaussian_loss_mgf(shift, s) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``(L(o), E[e^{zL}], exp(m z + v z^2/2))`` for the loss ``L = log(p_0(O)/p_1(O))`` of
    ``O ~ N(0, s^2)`` against ``N(shift, s^2)`` (O drawn from the first, as in Kaissis et al.,
    Eq. (8)), with ``m = shift^2/(2 s^2)``, ``v = shift^2/s^2``: the loss from the densities, its
    MGF by SymPy integration, the normal MGF it must equal."""
    p0 = noise.gaussian_density(_o, s)
    p1 = noise.gaussian_density(_o - shift, s)
    loss = sp.expand(sp.simplify(sp.expand_log(sp.log(p0 / p1), force=True)))
    mgf = sp.integrate(sp.exp(_z * loss) * p0, (_o, -sp.oo, sp.oo), conds="none")
    m, v = shift**2 / (2 * s**2), shift**2 / s**2
    return loss, mgf, sp.exp(m * _z + v * _z**2 / 2)


def gaussian_loss_law_check() -> Check:
    """The library's privacy-loss law of G_mu (``privacy_loss(G(mu)).law()``, under Q) against
    the MGF of N(mu^2/2, mu^2), both in Arb, at mu = 13/10, 1/2 and z = 1/2, 1, 2 (complex
    z = 1 + i too)."""
    bad, n = [], 0
    with ctx.workprec(PREC):
        for mu in (R(13, 10), R(1, 2)):
            with untraced():
                law = privacy_loss(ta.G(mu)).law()
            m = _a(mu)
            for z in (acb(R(1, 2).p) / 2, acb(1), acb(2), acb(1, 1)):
                lib = law.mgf(z)
                ref = (m * m / 2 * z + m * m * z * z / 2).exp()
                n += 1
                if not (lib.overlaps(ref) and lib.rad() < 1e-30 and ref.rad() < 1e-30):
                    bad.append(f"mu = {mu}, z = {z}: {lib} vs {ref}")
    basis = ("the MGF exp(m z + v z^2/2) of N(m, v), m = mu^2/2, v = mu^2", "Arb ball arithmetic")
    scope = "mu in {13/10, 1/2}, z in {1/2, 1, 2, 1 + i}"
    if bad:
        return Check("fails", "; ".join(bad[:3]), True, basis, scope)
    return Check("holds", f"the library's privacy-loss law of G_mu (its Arb view) has the MGF of "
                 f"N(mu^2/2, mu^2) at {n} points (enclosures overlap, radii < 1e-30)", True,
                 basis, scope)


# -- truncated Laplace ---------------------------------------------------------------------------
def _tlap_hockey(Delta: arb, b: arb, B: arb, eps: arb) -> arb:
    """int (q - e^eps p)_+ for p = TLap(b, B), q = Delta + TLap(b, B), by Arb quadrature on the
    pieces where the sign of q - e^eps p is constant: split at -B, Delta - B, 0, Delta, B,
    B + Delta and, when it lies in (0, Delta), at the crossing (Delta + b eps)/2; 0 < Delta <= B."""
    c = 1 / (2 * b * (1 - (-B / b).exp()))
    cuts = [-B, Delta - B, arb(0), Delta, B, B + Delta]
    x_star = (Delta + b * eps) / 2
    if x_star > 0 and x_star < Delta:
        cuts.append(x_star)
    cuts.sort(key=lambda x: float(x.mid()))
    total = arb(0)
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        mid = float(((lo + hi) / 2).mid())
        in_p, in_q = -B.mid() <= mid <= B.mid(), (Delta - B).mid() <= mid <= (Delta + B).mid()
        if not in_q:
            continue
        sq = 1 if mid > float(Delta.mid()) else -1
        sp_ = 1 if mid > 0 else -1

        def g(z, _, sq=sq, sp_=sp_, in_p=in_p):
            q = c * (-sq * (z - Delta) / b).exp()
            return q - eps.exp() * c * (-sp_ * z / b).exp() if in_p else q

        piece = acb.integral(g, acb(lo), acb(hi)).real
        if piece > 0:
            total += piece
        elif not piece < 0 and piece.rad() > 0:
            total += arb(0).union(piece)  # sign not resolved: the enclosure keeps both
    return total


def tlap_delta_check() -> Check:
    """Remark 4.6's closed form ``analysis.noise.truncated_laplace_delta`` against the hockey
    stick by Arb quadrature, at Delta = 1, b = 1/eps, B = ln(1/delta)/eps for (eps, delta) =
    (1, 1e-6), (3/10, 1e-9), (1, 1/10)."""
    bad, n = [], 0
    with ctx.workprec(PREC):
        for e, d in ((1, R(1, 10**6)), (R(3, 10), R(1, 10**9)), (1, R(1, 10))):
            ae = _a(e)
            b, B = 1 / ae, (1 / _a(d)).log() / ae
            ref = _tlap_hockey(arb(1), b, B, ae)
            with untraced():
                closed = noise.truncated_laplace_delta(1, 1 / sp.sympify(e),
                                                       sp.log(1 / d) / e)
                ball = arb_enclose(closed, prec=PREC)
            n += 1
            if not (ref.overlaps(ball) and ref.rad() < 1e-25 * abs(ball.mid())):
                bad.append(f"(eps, delta) = ({e}, {d}): quadrature {ref} vs closed form {ball}")
    basis = ("the hockey-stick divergence int (q - e^eps p)_+ of the truncated Laplace densities",
             "Arb integration (acb.integral) on the pieces of constant sign")
    scope = "Delta = 1, b = 1/eps, B = ln(1/delta)/eps, (eps, delta) in {(1, 1e-6), " \
            "(3/10, 1e-9), (1, 1/10)}"
    if bad:
        return Check("fails", "; ".join(bad[:3]), True, basis, scope)
    return Check("holds", f"the closed form of delta and the Arb quadrature of the hockey stick "
                 f"agree to 25 digits at {n} points", True, basis, scope)


# -- the binormal AUC ----------------------------------------------------------------------------
def binormal_auc_ends(a, b) -> tuple[sp.Rational, sp.Rational]:
    """Exact rational ends of a certified enclosure of ``int_0^1 Phi(a + b PhiInv(t)) dt =
    int phi(z) Phi(a + b z) dz`` (t = Phi(z)), by Arb integration over |z| <= 14 with the mass
    outside bounded (0 <= Phi <= 1)."""
    with ctx.workprec(PREC):
        A, B = acb(_a(a)), acb(_a(b))

        def f(z):
            return _phi_c(z) * (-(A + B * z) / acb(2).sqrt()).erfc() / 2

        lo, hi = _ends(_normal_integral(f, arb(0)))
    return R(lo.numerator, lo.denominator), R(hi.numerator, hi.denominator)


# -- tests on a finite pair ----------------------------------------------------------------------
def error_rates(P, Q, tests=None):
    """For each test phi (a vector of rejection probabilities, one per atom; by default every
    deterministic test): ``(FPR, TNR, TPR, FNR)`` exactly, with H0: P, H1: Q."""
    P, Q = [sp.sympify(x) for x in P], [sp.sympify(x) for x in Q]
    tests = tests if tests is not None else itertools.product((0, 1), repeat=len(P))
    out = []
    for phi in tests:
        phi = [sp.sympify(x) for x in phi]
        fpr = sum(p * f for p, f in zip(P, phi, strict=True))
        tnr = sum(p * (1 - f) for p, f in zip(P, phi, strict=True))
        tpr = sum(q * f for q, f in zip(Q, phi, strict=True))
        fnr = sum(q * (1 - f) for q, f in zip(Q, phi, strict=True))
        out.append((tuple(phi), fpr, tnr, tpr, fnr))
    return out
