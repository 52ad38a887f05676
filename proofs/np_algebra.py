"""Exact Neyman-Pearson references for the algebra's own rules, on explicit finite pairs.

Several claims of Dong, Roth & Su are rules the library implements as printed: the inverse of
Eq. (3), Id as the unit of (x) (Sec. 3.1, property 3), (f (x) g)^{-1} = f^{-1} (x) g^{-1}
(property 4), the commutative monoid of footnote 14, Eq. (10) for f_{eps,delta}, C_1(f) = f and
C_p(Id) = Id (Sec. 4.1, facts 1 and 3), Eq. (15) and the total-variation bound of Sec. 2.1.
Their verdicts pass through those rules, so each is confirmed here by a route that does not:

* T(P, Q) of an explicit finite pair from its definition: the likelihood-ratio tests, outcomes
  rejected in decreasing order of q/p (Neyman-Pearson lemma), exact Fractions
  (:func:`knots`); products of pairs as pairs on the product space (the definition of (x),
  Dong, Roth & Su, Def. 3), mixtures as pairs (Sec. 4.1), C_p(f) as the lower convex envelope
  of min{f_p, f_p^{-1}} from those knots (Def. 4.1 / Eq. (12));
* privacy profiles as hockey-stick sums sum (q - e^eps p)_+ (Eq. (5));
* G_mu through its threshold tests alpha(t) = 1 - Phi(t), beta(t) = Phi(t - mu) in Arb.

The library's values are read untraced (the side under test) and must be exact or certified;
a check confirms when the library's enclosure contains the exact reference (or the certified
enclosures intersect) and both are narrow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction as Fr
from itertools import product
from math import comb

import sympy as sp
from flint import arb, ctx

import tradeoff_algebra as ta

from ._claims import Check
from .basis import untraced
from .drs import _eq3_inverse, _lower_hull
from .independent import _agree, _ends, _Phi, value_ends

__all__ = ["knots", "at", "product_pair", "mixture", "hockey", "subsample_knots",
           "inverse_np", "tv_np", "prop2_np", "tensor_unit_np", "tensor_inverse_np",
           "monoid_np", "eq10_np", "c1_np", "c_id_np", "eq15_np", "shuffle_lemma62_np",
           "inhomogeneous_np", "garble", "composition_np", "tensor_monotone_np",
           "inverse_order_np", "subsample_order_np", "thm7_np"]

NP_BASIS = ("Neyman-Pearson lemma: T(P, Q) of an explicit finite pair from its likelihood-ratio "
            "tests, outcomes rejected in decreasing order of q/p (definition of T(P, Q))",
            "exact rational arithmetic")
PRODUCT_BASIS = ("definition of (x): T(P1 x P2, Q1 x Q2) of the product pair (Dong, Roth & Su, "
                 "Def. 3)",)
LEVELS = [Fr(0), Fr(1, 20), Fr(1, 10), Fr(1, 5), Fr(1, 4), Fr(1, 3), Fr(1, 2), Fr(2, 3),
          Fr(3, 4), Fr(9, 10), Fr(1)]
PREC = 200


# -- T(P, Q) of a finite pair, exactly ---------------------------------------------------------
def knots(P: Iterable, Q: Iterable) -> list[tuple[Fr, Fr]]:
    """The knots (alpha, beta) of T(P, Q): reject outcomes in decreasing order of q/p (an
    outcome with p = 0 first), tied ratios together; exact Fractions."""
    groups: dict[tuple[int, Fr], list[Fr]] = {}
    for p, q in zip(P, Q, strict=True):
        p, q = Fr(p), Fr(q)
        if p == 0 and q == 0:
            continue
        key = (1, Fr(0)) if p == 0 else (0, q / p)
        g = groups.setdefault(key, [Fr(0), Fr(0)])
        g[0] += p
        g[1] += q
    out = [(Fr(0), Fr(1))]
    a, b = Fr(0), Fr(1)
    for key in sorted(groups, reverse=True):
        gp, gq = groups[key]
        a, b = a + gp, b - gq
        if gp == 0:           # the outcomes P cannot produce: T(P, Q)(0) = 1 - Q(them)
            out[-1] = (a, b)
        else:
            out.append((a, b))
    return out


def at(ks: list[tuple[Fr, Fr]], x: Fr) -> Fr:
    """The piecewise-linear function with knots ``ks`` at ``x`` in [0, 1]."""
    if x <= ks[0][0]:
        return ks[0][1]
    for (x1, y1), (x2, y2) in zip(ks, ks[1:], strict=False):
        if x1 < x <= x2:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    raise ValueError(x)


def product_pair(*pairs: tuple) -> tuple[list[Fr], list[Fr]]:
    """The product pair (P1 x ... x Pk, Q1 x ... x Qk) on the product space."""
    P: list[Fr] = [Fr(1)]
    Q: list[Fr] = [Fr(1)]
    for Pi, Qi in pairs:
        P = [a * Fr(b) for a, b in product(P, Pi)]
        Q = [a * Fr(b) for a, b in product(Q, Qi)]
    return P, Q


def mixture(P, Q, p: Fr) -> list[Fr]:
    """(1 - p) P + p Q."""
    return [(1 - p) * Fr(a) + p * Fr(b) for a, b in zip(P, Q, strict=True)]


def hockey(P, Q, E: Fr) -> Fr:
    """delta_{T(P, Q)}(log E) = sum (q - E p)_+ (Dong, Roth & Su, Eq. (5))."""
    return sum((max(Fr(q) - E * Fr(p), Fr(0)) for p, q in zip(P, Q, strict=True)), Fr(0))


def _lower_min(k1, k2) -> list[tuple[Fr, Fr]]:
    """The knots of the lower convex envelope of min{F1, F2}, F1, F2 piecewise linear."""
    xs = sorted({x for x, _ in k1} | {x for x, _ in k2})
    pts = []
    for x1, x2 in zip(xs, xs[1:], strict=False):
        d1, d2 = at(k1, x1) - at(k2, x1), at(k1, x2) - at(k2, x2)
        pts.append((x1, min(at(k1, x1), at(k2, x1))))
        if d1 * d2 < 0:  # the two linear pieces cross inside (x1, x2)
            x = x1 + (x2 - x1) * d1 / (d1 - d2)
            pts.append((x, at(k1, x)))
    pts.append((xs[-1], min(at(k1, xs[-1]), at(k2, xs[-1]))))
    return _lower_hull(pts)


def subsample_knots(P, Q, p: Fr) -> list[tuple[Fr, Fr]]:
    """C_p(T(P, Q)) = min{f_p, f_p^{-1}}** with f_p = T(P, (1 - p) P + p Q) (Dong, Roth & Su,
    Sec. 4.1), from the pairs' own tests."""
    M = mixture(P, Q, p)
    return _lower_min(knots(P, M), knots(M, P))


# -- the comparison ------------------------------------------------------------------------------
def _S(x: Fr) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def _lib(f: ta.TradeOff, x: Fr) -> tuple[Fr, Fr]:
    with untraced():
        return value_ends(ta.evaluate(f, _S(x), dps=40))


def _run(name: str, cases: Callable[[], Iterable], basis: tuple[str, ...], scope: str) -> Check:
    """``cases()`` yields (label, reference ends, library ends or None): the reference must
    lie in the library's enclosure (both narrow), or hold by itself when the library is None."""
    n, bad = 0, []
    with ctx.workprec(PREC):
        for label, ref, lib in cases():
            n += 1
            if ref is False:
                bad.append(f"{label}: the reference identity fails")
            elif lib is not None:
                why = _agree(lib, ref)
                if why:
                    bad.append(f"{label}: {why}")
    if bad:
        return Check("fails", f"{name}: " + "; ".join(bad[:3]), True, basis, scope)
    return Check("holds", f"{name}: independent references (exact, or Arb balls), and where the "
                 f"library answers its certified values agree, at {n} points ({scope})", True,
                 basis, scope)


def _exact(v: Fr) -> tuple[Fr, Fr]:
    return v, v


_F4 = ((Fr(3, 4), Fr(1, 4)), (Fr(0), Fr(1)))
_P3 = ((Fr(1, 2), Fr(1, 3), Fr(1, 6)), (Fr(1, 6), Fr(1, 3), Fr(1, 2)))
_ASYM = [_F4, ((Fr(1, 2), Fr(1, 2), Fr(0)), (Fr(0), Fr(1, 4), Fr(3, 4))),
         ((Fr(1, 2), Fr(1, 4), Fr(1, 4)), (Fr(1, 8), Fr(1, 8), Fr(3, 4)))]


def _rr(E: Fr) -> tuple:
    return (E / (1 + E), 1 / (1 + E)), (1 / (1 + E), E / (1 + E))


def _node(pair) -> ta.TradeOff:
    return ta.Discrete([_S(p) for p in pair[0]], [_S(q) for q in pair[1]])


# -- the checks -----------------------------------------------------------------------------------
def inverse_np() -> Check:
    """Eq. (3): T(Q, P) = inf{t : T(P, Q)(t) <= alpha}, and the library's f^{-1} agrees; for
    f = T((3/4, 1/4), (0, 1)), f^{-1}(alpha) = (1 - alpha)/4."""
    def cases():
        for P, Q in _ASYM:
            kpq, kqp = knots(P, Q), knots(Q, P)
            for x in LEVELS:
                ref = at(kqp, x)
                yield (f"{P}, alpha = {x}", _exact(ref) if ref == _eq3_inverse(kpq, x) else False,
                       _lib(ta.Inverse(_node((P, Q))), x))
        for x in LEVELS:
            ref = at(knots(_F4[1], _F4[0]), x)
            yield f"(1 - alpha)/4 at {x}", _exact(ref) if ref == (1 - x) / 4 else False, None
    return _run("Eq. (3) by the reversed pair's tests", cases, NP_BASIS,
                "3 asymmetric finite pairs, 11 levels")


def tv_np() -> Check:
    """alpha + beta >= 1 - TV(P, Q) with equality at a test: for P = (1/2, 1/3, 1/6), Q
    reversed (TV by its definition, 1/2 sum |p - q|) at every knot; for G_mu by the threshold
    tests t = mu/2 + k/8 in Arb, equality at t = mu/2."""
    def cases():
        P, Q = _P3
        tv = sum((abs(p - q) for p, q in zip(P, Q, strict=True)), Fr(0)) / 2
        ks = knots(P, Q)
        ok = all(a + b >= 1 - tv for a, b in ks) and min(a + b for a, b in ks) == 1 - tv
        yield "finite pair: 1 - TV at the knots", _exact(1 - tv) if ok else False, None
        for mu in (Fr(1, 2), Fr(1), Fr(2), Fr(5)):
            m = arb(mu.numerator) / mu.denominator
            tv_g = _Phi(m / 2) - _Phi(-m / 2)
            for k in range(-8, 9):
                t = m / 2 + arb(k) / 8
                alpha, beta = 1 - _Phi(t), _Phi(t - m)
                gap = alpha + beta - (1 - tv_g)
                if (k != 0 and not gap > 0) or (k == 0 and not (gap.contains(0)
                                                              and gap.rad() < 1e-50)):
                    yield f"G_{mu} at t = mu/2 + {k}/8", False, None
                    continue
                lo, hi = _ends(alpha)
                with untraced():
                    g = ta.G(_S(mu))
                    lib = (value_ends(ta.evaluate(g, _S(hi), dps=40))[0],
                           value_ends(ta.evaluate(g, _S(lo), dps=40))[1])
                yield f"G_{mu} at t = mu/2 + {k}/8", _ends(beta), lib
    return _run("alpha + beta >= 1 - TV", cases,
                NP_BASIS + ("the threshold tests of N(0,1) vs N(mu,1) (Neyman-Pearson), "
                            "Arb erfc",), "P = (1/2,1/3,1/6) vs reversed; G_mu at mu in "
                "{1/2, 1, 2, 5}, 17 thresholds each")


def prop2_np() -> Check:
    """Prop. 2 at its instance: the randomised-response pair with e^eps = 4 has T(P, Q) >= f,
    T(Q, P) >= f and T(P, Q) >= max{f, f^{-1}} for f = T((3/4, 1/4), (0, 1)), each from the
    pairs' tests; the library's f^S agrees."""
    def cases():
        rr = _rr(Fr(4))
        kf, kfi = knots(*_F4), knots(_F4[1], _F4[0])
        k1, k2 = knots(*rr), knots(rr[1], rr[0])
        for x in LEVELS:
            fs = max(at(kf, x), at(kfi, x))
            ok = at(k1, x) >= at(kf, x) and at(k2, x) >= at(kf, x) and at(k1, x) >= fs
            yield f"alpha = {x}", _exact(fs) if ok else False, _lib(ta.Symmetrize(_node(_F4)), x)
    return _run("Prop. 2 by the pairs' tests", cases, NP_BASIS,
                "RR with e^eps = 4 against T((3/4,1/4),(0,1)), 11 levels")


def tensor_unit_np() -> Check:
    """Sec. 3.1, property 3: T(P1 x P, Q1 x P) = T(P1, Q1) and T(P, P) = Id, from the product
    pair's tests; the library's f (x) Id and Id (x) f agree."""
    def cases():
        P = (Fr(1, 2), Fr(1, 3), Fr(1, 6))
        kid = knots(P, P)
        for x in LEVELS:
            yield f"T(P, P) at {x}", _exact(1 - x) if at(kid, x) == 1 - x else False, None
        for pair in _ASYM + [_P3]:
            k1 = knots(*pair)
            kp = knots(*product_pair(pair, (P, P)))
            kq = knots(*product_pair((P, P), pair))
            for x in LEVELS:
                ok = at(kp, x) == at(k1, x) == at(kq, x)
                yield (f"{pair}, alpha = {x}", _exact(at(k1, x)) if ok else False,
                       _lib(ta.Tensor(_node(pair), ta.Id), x))
    return _run("Id is the unit of (x)", cases, NP_BASIS + PRODUCT_BASIS,
                "4 finite pairs times P = (1/2,1/3,1/6), 11 levels")


def tensor_inverse_np() -> Check:
    """Sec. 3.1, property 4: T(Q1 x Q2, P1 x P2) is the Eq. (3) inverse of T(P1 x P2,
    Q1 x Q2), and the product of symmetric pairs is symmetric; the library agrees."""
    def cases():
        for a, b in [(_ASYM[0], _ASYM[1]), (_ASYM[1], _ASYM[2]), (_ASYM[2], _P3)]:
            P, Q = product_pair(a, b)
            kpq, kqp = knots(P, Q), knots(Q, P)
            lib_f = ta.Inverse(ta.Tensor(_node(a), _node(b)))
            for x in LEVELS:
                ref = at(kqp, x)
                yield (f"{a} (x) {b} at {x}", _exact(ref) if ref == _eq3_inverse(kpq, x)
                       else False, _lib(lib_f, x))
        for e1, e2 in [(Fr(2), Fr(3)), (Fr(3, 2), Fr(5))]:
            P, Q = product_pair(_rr(e1), _rr(e2))
            k1, k2 = knots(P, Q), knots(Q, P)
            for x in LEVELS:
                yield (f"RR({e1}) (x) RR({e2}) symmetric at {x}",
                       _exact(at(k1, x)) if at(k1, x) == at(k2, x) else False, None)
    return _run("(f (x) g)^-1 = f^-1 (x) g^-1", cases, NP_BASIS + PRODUCT_BASIS,
                "3 products of asymmetric finite pairs, 2 of randomised-response pairs, "
                "11 levels")


def monoid_np() -> Check:
    """Footnote 14: (x) is commutative and associative with unit Id, from the product
    pairs' tests (the outcomes in another order); the library's products agree."""
    def cases():
        a, b, c = _ASYM[0], _ASYM[2], _rr(Fr(3))
        kab, kba = knots(*product_pair(a, b)), knots(*product_pair(b, a))
        kabc, kbca = knots(*product_pair(a, b, c)), knots(*product_pair(b, c, a))
        fa, fb, fc = _node(a), _node(b), _node(c)
        for x in LEVELS:
            yield (f"commutative at {x}", _exact(at(kab, x)) if at(kab, x) == at(kba, x)
                   else False, _lib(ta.Tensor(fb, fa), x))
            yield (f"associative at {x}", _exact(at(kabc, x)) if at(kabc, x) == at(kbca, x)
                   else False, _lib(ta.Tensor(ta.Tensor(fa, fb), fc), x))
            yield f"(a (x) (b (x) c)) at {x}", _exact(at(kabc, x)), \
                _lib(ta.Tensor(fa, ta.Tensor(fb, fc)), x)
    return _run("(x) is a commutative monoid", cases, NP_BASIS + PRODUCT_BASIS,
                "three finite pairs (two asymmetric, one randomised response), 11 levels")


def _eps_delta_pair(E: Fr, d: Fr) -> tuple:
    """The four-point pair whose trade-off is f_{eps,delta} (Kairouz et al.), e^eps = E."""
    P = (d, (1 - d) * E / (1 + E), (1 - d) / (1 + E), Fr(0))
    return P, tuple(reversed(P))


def _zero_eps(d: Fr) -> tuple:
    """U-type pair of f_{0,delta}: (delta, 1 - delta, 0) vs (0, 1 - delta, delta)."""
    return (d, 1 - d, Fr(0)), (Fr(0), 1 - d, d)


def eq10_np() -> Check:
    """Sec. 3.3 after Eq. (10): f_{e1,d1} (x) f_{e2,d2} = (f_{e1,0} (x) f_{e2,0}) (x)
    (f_{0,d1} (x) f_{0,d2}), both sides as product pairs; the library's left side agrees."""
    def cases():
        for (E1, d1), (E2, d2) in [((Fr(2), Fr(1, 10)), (Fr(3), Fr(1, 4))),
                                   ((Fr(3, 2), Fr(1, 2)), (Fr(5), Fr(1, 20)))]:
            lhs = knots(*product_pair(_eps_delta_pair(E1, d1), _eps_delta_pair(E2, d2)))
            rhs = knots(*product_pair(_rr(E1), _rr(E2), _zero_eps(d1), _zero_eps(d2)))
            f = ta.Tensor(ta.EpsDelta(sp.log(_S(E1)), _S(d1)), ta.EpsDelta(sp.log(_S(E2)),
                                                                            _S(d2)))
            for x in LEVELS:
                ok = at(lhs, x) == at(rhs, x)
                yield (f"(e^eps, delta) = ({E1}, {d1}), ({E2}, {d2}) at {x}",
                       _exact(at(lhs, x)) if ok else False, _lib(f, x))
    return _run("Eq. (10) for a product of two f_{eps,delta}", cases, NP_BASIS + PRODUCT_BASIS
                + ("f_{eps,delta} = T of the four-point pair (Kairouz et al.; Dong, Roth & Su, "
                   "Prop. 3)",), "2 products, 11 levels")


def c1_np() -> Check:
    """Sec. 4.1 fact 1: C_1(f) = f for symmetric f: min{f_1, f_1^{-1}}** from the pairs'
    tests equals T(P, Q) for randomised response and the f_{eps,delta} pairs; the library's
    C_1 agrees."""
    def cases():
        for E, d in [(Fr(3), Fr(0)), (Fr(2), Fr(1, 10)), (Fr(5), Fr(1, 3))]:
            pair = _eps_delta_pair(E, d)
            kc, kf = subsample_knots(*pair, Fr(1)), knots(*pair)
            f = ta.C(1, ta.EpsDelta(sp.log(_S(E)), _S(d)))
            for x in LEVELS:
                yield (f"f_(log {E}, {d}) at {x}", _exact(at(kf, x)) if at(kc, x) == at(kf, x)
                       else False, _lib(f, x))
    return _run("C_1(f) = f for symmetric f", cases,
                NP_BASIS + ("C_p(f) = min{f_p, f_p^{-1}}** with f_p = T(P, (1-p)P + pQ) "
                            "(Dong, Roth & Su, Def. of C_p, Sec. 4.1)",),
                "f_{eps,delta} at (e^eps, delta) = (3, 0), (2, 1/10), (5, 1/3), 11 levels")


def c_id_np() -> Check:
    """Sec. 4.1 fact 3: C_p(Id) = Id: for Id = T(P, P) the mixture (1 - p)P + pP is P; from the
    tests of the pair, and the library's C_p(Id) agrees."""
    def cases():
        P = (Fr(1, 2), Fr(1, 3), Fr(1, 6))
        for p in (Fr(0), Fr(1, 3), Fr(1, 2), Fr(1)):
            kc = subsample_knots(P, P, p)
            for x in LEVELS:
                yield (f"p = {p} at {x}", _exact(1 - x) if at(kc, x) == 1 - x else False,
                       _lib(ta.C(_S(p), ta.Id), x))
    return _run("C_p(Id) = Id", cases, NP_BASIS, "Id = T(P, P), P = (1/2,1/3,1/6), "
                "p in {0, 1/3, 1/2, 1}, 11 levels")


def eq15_np() -> Check:
    """Eq. (15): the hockey-stick sum of (P, (1 - p)P + pQ) at e^eps' = 1 - p + p e^eps is
    p times that of (P, Q), by the sums themselves; the library's delta(f_p) agrees."""
    def cases():
        pairs = [_P3, _ASYM[2], _ASYM[1]]
        for (P, Q), p in product(pairs, (Fr(1, 5), Fr(1, 2))):
            M = mixture(P, Q, p)
            for E in (Fr(1), Fr(3, 2), Fr(4)):
                Ep = 1 - p + p * E
                lhs, rhs = hockey(P, M, Ep), p * hockey(P, Q, E)
                with untraced():
                    lib = value_ends(ta.delta(ta.Mix(_node((P, Q)), _S(p)), sp.log(_S(Ep)),
                                              dps=40))
                yield f"{P}, p = {p}, e^eps = {E}", _exact(lhs) if lhs == rhs else False, lib
    return _run("Eq. (15) by hockey-stick sums", cases,
                ("privacy profile as the hockey-stick sum sum (q - e^eps p)_+ (Dong, Roth & "
                 "Su, Eq. (5))", "exact rational arithmetic"),
                "3 finite pairs, p in {1/5, 1/2}, e^eps in {1, 3/2, 4}")


def shuffle_lemma62_np() -> Check:
    """Wang et al., Sec. 6: the instance of [4, Thm. 2] inside Lemma 6.2 by hockey-stick sums:
    H_1(M0 || M0) = 0 and H_{e^eps'}((1-w)M0 + wM1 || (1-w)M0 + wM1') <= w H_{e^eps1}(M1 ||
    (1-eta)M0 + eta M1'), eta = e^eps'/e^eps1."""
    def cases():
        M0, M1, M1p = (Fr(1, 2), Fr(1, 4), Fr(1, 4)), (Fr(1, 5), Fr(3, 5), Fr(1, 5)), \
            (Fr(1, 5), Fr(1, 5), Fr(3, 5))
        w, E1 = Fr(1, 3), Fr(3)
        Ep = 1 + w * (E1 - 1)
        eta = Ep / E1
        yield "H_1(M0 || M0) = 0", _exact(Fr(0)) if hockey(M0, M0, Fr(1)) == 0 else False, None
        # H_E(A || B) = sum (a - E b)_+ = hockey(B, A, E)
        lhs = hockey(mixture(M0, M1p, w), mixture(M0, M1, w), Ep)
        rhs = w * hockey(mixture(M0, M1p, eta), M1, E1)
        yield "the Lemma 6.2 instance", _exact(lhs) if lhs <= rhs else False, None
    return _run("[4, Thm. 2] inside Lemma 6.2", cases,
                ("hockey-stick divergence H_E(A || B) = sum (a - E b)_+ (Wang et al., Sec. 2)",
                 "exact rational arithmetic"),
                "M0 = (1/2,1/4,1/4), M1 = (1/5,3/5,1/5), M1' = (1/5,1/5,3/5), w = 1/3, "
                "e^eps1 = 3")


def inhomogeneous_np() -> Check:
    """Sec. 3.3 (inhomogeneous eps_i): f_{0.8c,0}^{(x) m/2} (x) f_{1.2c,0}^{(x) m/2} from the
    product of randomised-response pairs (outcomes grouped by their two counts; the order of
    the likelihood ratios e^{c (0.8 (2k1 - h) + 1.2 (2k2 - h))} is the exact order of the
    rational exponents; alpha and beta in Arb): the library's values agree at its knots."""
    def cases():
        for m in (10, 20):
            h = m // 2
            c0 = 1 / (arb(104) / 100 * m).sqrt()
            e1, e2 = (arb(8) / 10 * c0).exp(), (arb(12) / 10 * c0).exp()
            p1, p2 = e1 / (1 + e1), e2 / (1 + e2)
            cells = []
            for k1, k2 in product(range(h + 1), repeat=2):
                w = arb(comb(h, k1) * comb(h, k2))
                P = w * p1 ** (h - k1) * (1 - p1) ** k1 * p2 ** (h - k2) * (1 - p2) ** k2
                Q = w * (1 - p1) ** (h - k1) * p1 ** k1 * (1 - p2) ** (h - k2) * p2 ** k2
                cells.append((Fr(8, 10) * (2 * k1 - h) + Fr(12, 10) * (2 * k2 - h), P, Q))
            cells.sort(key=lambda c: c[0], reverse=True)
            a, b = arb(0), arb(1)
            cs = sp.sqrt(sp.Rational(104, 100) * m)
            f = ta.Tensor(ta.EpsDelta(sp.Rational(8, 10) / cs, 0) ** h,
                          ta.EpsDelta(sp.Rational(12, 10) / cs, 0) ** h)
            for i, (_, P, Q) in enumerate(cells[:-1]):
                a, b = a + P, b - Q
                if i % 7:
                    continue
                lo, hi = _ends(a)
                with untraced():
                    lib = (value_ends(ta.evaluate(f, _S(hi), dps=40))[0],
                           value_ends(ta.evaluate(f, _S(lo), dps=40))[1])
                yield f"m = {m}, knot {i}", _ends(b), lib
    return _run("inhomogeneous f_{eps_i,0} products by their tests", cases,
                NP_BASIS[:1] + PRODUCT_BASIS + ("Arb ball arithmetic",),
                "m = 10, 20; every 7th knot")



# -- the order structure (verify/monotone.py's cited steps) -------------------------------------
def garble(P, K) -> list[Fr]:
    """The law of the output of the Markov kernel K (rows: input outcomes) fed with P."""
    return [sum((Fr(p) * Fr(row[j]) for p, row in zip(P, K, strict=True)), Fr(0))
            for j in range(len(K[0]))]


_KERNELS = [((Fr(1), Fr(0)), (Fr(1, 2), Fr(1, 2)), (Fr(0), Fr(1))),
            ((Fr(3, 4), Fr(1, 4)), (Fr(1, 4), Fr(3, 4)), (Fr(1, 2), Fr(1, 2)))]
_ORDER_PAIRS = [_P3, _ASYM[2], ((Fr(1, 2), Fr(1, 4), Fr(1, 4)), (Fr(1, 4), Fr(1, 4), Fr(1, 2)))]


def _garbled_pairs():
    """(f, g) = (T(PK, QK), T(P, Q)): f >= g by post-processing (Blackwell), checked too."""
    for (P, Q), K in product(_ORDER_PAIRS, _KERNELS):
        yield (tuple(garble(P, K)), tuple(garble(Q, K))), (P, Q)


def composition_np() -> Check:
    """Basic composition: f_{e1,d1} (x) f_{e2,d2} >= f_{e1+e2,d1+d2}, the product of the
    four-point pairs against the four-point pair of the sum (both by their tests); the
    library's product agrees."""
    def cases():
        for (E1, d1), (E2, d2) in [((Fr(2), Fr(1, 10)), (Fr(3), Fr(1, 5))),
                                   ((Fr(1), Fr(0)), (Fr(5, 2), Fr(1, 3))),
                                   ((Fr(4), Fr(1, 2)), (Fr(4), Fr(1, 2))),
                                   ((Fr(3, 2), Fr(1, 100)), (Fr(3, 2), Fr(1, 100))),
                                   ((Fr(5), Fr(1, 3)), (Fr(1), Fr(1, 4)))]:
            kp = knots(*product_pair(_eps_delta_pair(E1, d1), _eps_delta_pair(E2, d2)))
            d = d1 + d2
            ks = knots(*_eps_delta_pair(E1 * E2, d)) if d < 1 else [(Fr(0), Fr(0)),
                                                                    (Fr(1), Fr(0))]
            f = ta.Tensor(ta.EpsDelta(sp.log(_S(E1)), _S(d1)), ta.EpsDelta(sp.log(_S(E2)),
                                                                            _S(d2)))
            for x in LEVELS:
                ok = at(kp, x) >= at(ks, x)
                yield (f"({E1}, {d1}) (x) ({E2}, {d2}) at {x}", _exact(at(kp, x)) if ok
                       else False, _lib(f, x))
    return _run("basic composition by the pairs' tests", cases, NP_BASIS + PRODUCT_BASIS
                + ("f_{eps,delta} = T of the four-point pair (Kairouz et al.)",),
                "5 pairs of (e^eps, delta), 11 levels")


def tensor_monotone_np() -> Check:
    """Sec. 3.1, property 2: g1 >= g2 gives f (x) g1 >= f (x) g2, with g1 a post-processing
    of g2's pair and f a third pair, from the product pairs' tests; the library agrees."""
    def cases():
        f = _rr(Fr(3))
        for g1, g2 in _garbled_pairs():
            k1, k2 = knots(*g1), knots(*g2)
            kp1, kp2 = knots(*product_pair(f, g1)), knots(*product_pair(f, g2))
            node = ta.Tensor(_node(f), _node(g1))
            for x in LEVELS:
                ok = at(k1, x) >= at(k2, x) and at(kp1, x) >= at(kp2, x)
                yield (f"{g2} garbled at {x}", _exact(at(kp1, x)) if ok else False,
                       _lib(node, x))
    return _run("(x) is monotone", cases, NP_BASIS + PRODUCT_BASIS
                + ("post-processing by a Markov kernel (Blackwell; Dong, Roth & Su, Lemma 1)",),
                "3 pairs x 2 kernels, times randomised response e^eps = 3, 11 levels")


def inverse_order_np() -> Check:
    """Sec. 4.1 fact 1 (reason): g >= h iff g^{-1} >= h^{-1}: for garbled pairs (g >= h) the
    reversed pairs' tests are ordered too, and the library's inverses agree."""
    def cases():
        for g, h in _garbled_pairs():
            kg, kh = knots(*g), knots(*h)
            kgi, khi = knots(g[1], g[0]), knots(h[1], h[0])
            for x in LEVELS:
                ok = at(kg, x) >= at(kh, x) and at(kgi, x) >= at(khi, x)
                yield (f"{h} garbled at {x}", _exact(at(kgi, x)) if ok else False,
                       _lib(ta.Inverse(_node(g)), x))
    return _run("the inverse is monotone", cases, NP_BASIS
                + ("post-processing by a Markov kernel (Blackwell; Dong, Roth & Su, Lemma 1)",),
                "3 pairs x 2 kernels, 11 levels")


def subsample_order_np() -> Check:
    """Sec. 4.1 facts 1 and 2: C_q(f) <= C_p(f) for p <= q, and f >= g gives C_p(f) >=
    C_p(g), with C_p from its definition on the pairs' tests; the library's C_p agrees."""
    ps = (Fr(0), Fr(1, 5), Fr(1, 2), Fr(4, 5), Fr(1))

    def cases():
        for pair in _ORDER_PAIRS[:2]:
            ks = {p: subsample_knots(*pair, p) for p in ps}
            for p, q in zip(ps, ps[1:], strict=False):
                node = ta.C(_S(p), _node(pair))
                for x in LEVELS:
                    ok = at(ks[q], x) <= at(ks[p], x)
                    yield (f"{pair}, p = {p} <= q = {q} at {x}", _exact(at(ks[p], x)) if ok
                           else False, _lib(node, x))
        for (g, h), p in product(list(_garbled_pairs())[:4], (Fr(1, 5), Fr(1, 2))):
            kg, kh = subsample_knots(*g, p), subsample_knots(*h, p)
            node = ta.C(_S(p), _node(g))
            for x in LEVELS:
                yield (f"C_{p} of {h} garbled at {x}", _exact(at(kg, x))
                       if at(kg, x) >= at(kh, x) else False, _lib(node, x))
    return _run("C_p is monotone in p and in f", cases,
                NP_BASIS + ("C_p(f) = min{f_p, f_p^{-1}}** with f_p = T(P, (1-p)P + pQ) "
                            "(Dong, Roth & Su, Sec. 4.1)", "post-processing by a Markov kernel "
                            "(Blackwell)"), "finite pairs, p in {0, 1/5, 1/2, 4/5, 1}, "
                "4 garbled pairs, 11 levels")


def thm7_np() -> Check:
    """Dong, Roth & Su, Thm. 7 at eps_i = 1/sqrt(m), delta_i = 1/(2m), m = 10, 40, without the
    Thm. 7 rule: the m-fold product of the four-point pair of f_{eps,delta} by its tests (a
    Q-only class, the classes e^{eps (c - b)} of b and c middle outcomes, a P-only class; Arb),
    and the limit G_1 (x) f_{0,gamma} by the tests of N x U (the Q-only strip first, then the
    Gaussian tests on the common part: (1 - gamma) G_1(alpha/(1 - gamma))), gamma = 1 - e^{-1/2}.
    The library's values of both agree, and m |f - limit| <= 13/100 at the three levels."""
    levels = (Fr(1, 100), Fr(1, 10), Fr(1, 2))

    def composed(m: int, x: Fr):
        e = (1 / arb(m).sqrt()).exp()
        d = arb(1) / (2 * m)
        pB, pC = (1 - d) * e / (1 + e), (1 - d) / (1 + e)
        keep = (1 - d) ** m                      # no atom of either side
        xa = arb(x.numerator) / x.denominator
        a, b = arb(0), keep                      # after the Q-only class: alpha 0, beta keep
        for c in range(m, -1, -1):               # likelihood ratio e^{c - (m - c)}, decreasing
            w = arb(comb(m, c))
            P = w * pB ** (m - c) * pC ** c
            Q = w * pC ** (m - c) * pB ** c
            if a + P > xa:                       # the level lies on this segment (proved)
                return b - Q * (xa - a) / P
            if not a + P < xa:
                raise ValueError("a level at a knot (not separated in Arb): choose another")
            a, b = a + P, b - Q
        raise ValueError(x)

    def limit(x: Fr):
        g = 1 - (arb(-1) / 2).exp()
        u = 1 - arb(x.numerator) / x.denominator / (1 - g)
        z = (2 * u - 1).erfinv() * arb(2).sqrt()          # PhiInv(u)
        return (1 - g) * _Phi(z - 1)

    def cases():
        gnode = ta.G(1) @ ta.EpsDelta(0, 1 - sp.exp(-sp.Rational(1, 2)))
        for m in (10, 40):
            f = ta.EpsDelta(1 / sp.sqrt(m), sp.Rational(1, 2 * m)) ** m
            for x in levels:
                fv, gv = composed(m, x), limit(x)
                ok = abs(fv - gv) * m <= arb(13) / 100
                yield f"m = {m}, f at {x}", _ends(fv) if ok else False, _lib(f, x)
                yield f"m = {m}, limit at {x}", _ends(gv), _lib(gnode, x)
    return _run("Thm. 7 by the product's tests", cases, NP_BASIS[:1] + PRODUCT_BASIS + (
        "f_{eps,delta} = T of the four-point pair (Kairouz et al.)", "the tests of N(0,1) x "
        "U[0,1] against N(1,1) x U[gamma, 1 + gamma] (definition of (x))", "Arb ball arithmetic"),
        "m = 10, 40 at alpha = 1/100, 1/10, 1/2")
