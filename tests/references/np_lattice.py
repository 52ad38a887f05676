"""Neyman--Pearson powers of lattice laws from their whole mass functions, independent of the
library's lattice code: the Q-law of the loss of a product as the power of a polynomial (exact
``Fraction`` enumeration for rational masses, a python-flint ``arb_poly`` power at 200 bits for
closed-form ones), and the most powerful test at level alpha summed from the largest loss down
(Neyman--Pearson lemma: reject the largest losses, the boundary atom randomised)."""

from __future__ import annotations

from fractions import Fraction

from flint import arb, arb_poly, ctx, fmpq


def exact_power_law(qs: dict[int, Fraction], n: int) -> dict[int, Fraction]:
    """The Q-law of d = k_1 + ... + k_n, each k with Q-mass qs[k], by exact convolution."""
    law = {0: Fraction(1)}
    for _ in range(n):
        new: dict[int, Fraction] = {}
        for d, m in law.items():
            for k, q in qs.items():
                new[d + k] = new.get(d + k, Fraction(0)) + m * q
        law = new
    return law


def exact_np_power(law: dict[int, Fraction], ratio: Fraction, alpha: Fraction) -> Fraction:
    """1 - f(alpha) of the pair whose loss is d log(ratio) with Q-law ``law`` (P(d) = Q(d)
    ratio^{-d}): exact rationals."""
    used, power = Fraction(0), Fraction(0)
    for d in sorted(law, reverse=True):
        q = law[d]
        p = q / ratio ** d
        if used + p >= alpha:
            return power + (alpha - used) * ratio ** d
        used += p
        power += q
    return power


def arb_np_power(masses: list, losses: list, alpha: Fraction, prec: int = 200) -> arb:
    """1 - f(alpha) from balls of the Q-masses at increasing exact losses (balls), at ``prec``
    bits: the P-mass is q e^{-l}; where a ball cannot decide the vertex both candidates are
    joined."""
    old = ctx.prec
    ctx.prec = prec
    try:
        return _np_power(masses, losses, arb(fmpq(alpha.numerator, alpha.denominator)))
    finally:
        ctx.prec = old


def _np_power(masses: list, losses: list, alpha: arb) -> arb:
    used, power = arb(0), arb(0)
    for q, l in zip(reversed(masses), reversed(losses), strict=True):
        p = q * (-l).exp()
        nxt = used + p
        if nxt > alpha:
            return power + (alpha - used) * l.exp()
        if not nxt < alpha:  # undecided: this vertex or the next segment
            a = power + (alpha - used) * l.exp()
            return a.union(power + q)
        used, power = nxt, power + q
    return power


def rr_law_arb(eps: Fraction, n: int, prec: int = 200) -> tuple[list, list]:
    """(Q-masses, losses) of randomized response RR(eps, 3)^n as balls: the loss is d eps,
    d = #(+1) - #(-1), with per-step Q-masses a = e^eps/(e^eps + 2) at +1 and b = 1/(e^eps + 2)
    at -1 and at 0 (the outputs x, x' and the merged others), the law of d the n-th power of the
    polynomial b x^{-1} + b + a x (an ``arb_poly`` power)."""
    old = ctx.prec
    ctx.prec = prec
    try:
        e = arb(fmpq(eps.numerator, eps.denominator))
        E = e.exp()
        a, b = E / (E + 2), 1 / (E + 2)
        poly = arb_poly([b, b, a]) ** n  # coefficient j: d = j - n
        masses = [poly[j] for j in range(2 * n + 1)]
        losses = [e * (j - n) for j in range(2 * n + 1)]
        return masses, losses
    finally:
        ctx.prec = old


def dg_law_arb(sigma: int, n: int, prec: int = 200) -> tuple[list, list]:
    """(Q-masses, losses) of DiscreteGaussian(1, sigma)^n: the loss (2 s - n)/(2 sigma^2) in
    s = sum of the noises under Q (each shifted by one), the law of s the n-th power of one
    discrete Gaussian's on |x| <= 17 sigma (the mass beyond: below e^{-144} < 2^-207 of the
    whole; at 12 sigma it was e^{-72}, 2^-104, which the one discrete Gaussian's tails resolve)."""
    old = ctx.prec
    ctx.prec = prec
    try:
        w = 17 * sigma
        ws = [(arb(-x * x) / (2 * sigma * sigma)).exp() for x in range(-w, w + 1)]
        z = sum(ws, arb(0))
        poly = arb_poly([v / z for v in ws]) ** n  # coefficient j: noise sum j - n w
        masses = [poly[j] for j in range(2 * n * w + 1)]
        # under Q the sum is (noise sum) + n: s = j - n w + n, loss (2 s - n)/(2 sigma^2)
        losses = [arb(2 * (j - n * w + n) - n) / (2 * sigma * sigma) for j in range(len(masses))]
        return masses, losses
    finally:
        ctx.prec = old


def exact_pair_power(P: list[Fraction], Q: list[Fraction], n: int, alpha: Fraction) -> Fraction:
    """1 - f(alpha) of the explicit pair (P, Q) composed n times, by enumerating the product's
    outcomes (exact rationals): the outcomes by decreasing likelihood ratio Q/P (+oo where
    P = 0), the Neyman--Pearson test rejecting from the top, the boundary atom randomised."""
    from itertools import product

    atoms: dict = {}
    for idx in product(range(len(P)), repeat=n):
        p, q = Fraction(1), Fraction(1)
        for i in idx:
            p, q = p * P[i], q * Q[i]
        if p == 0 and q == 0:
            continue
        key = None if p == 0 else q / p  # None: ratio +oo
        a = atoms.setdefault(key, [Fraction(0), Fraction(0)])
        a[0] += p
        a[1] += q
    keys = sorted((k for k in atoms if k is not None), reverse=True)
    used, power = Fraction(0), atoms.get(None, [0, Fraction(0)])[1]
    for k in keys:
        p, q = atoms[k]
        if used + p >= alpha:
            return power + (alpha - used) * k if p else power
        used += p
        power += q
    return power
