"""Wang, Balle & Kasiviswanathan's Thm. 9 with its terms as printed, min{2, (e^{eps(oo)} - 1)^j}
(numeric/renyi_wor.py), where the base's max divergence eps(oo) is finite.

Independent references:

* Thm. 9 recomputed here at 60 digits in a private mpmath context, from the Laplace pair's
  D_j (Mironov 2017, Prop. 6) and eps(oo) = mu written out in this file: every certified ball
  (relative width below 10^-30) contains it.
* Soundness by brute force on finite symmetric pairs with rational masses: C_p(f) =
  min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6) built in exact Fractions as the lower
  convex hull of the knots of f_p = T(P, (1 - p) P + p Q) and their mirror image, read back as
  a pair (a segment of length da and drop db is an atom of masses (da, db)), its Renyi
  divergence at 40 digits; Thm. 9 evaluated by ``wbk_bounds`` on the pair's own D_j (a program
  written here, in Arb from the masses) lies at or above it, at every integer order 2..16.
* Soundness for the Laplace base: the hull's divergence by 40-digit quadrature
  (references.hull_renyi.laplace_hull) lies below ``RDP.of``'s upper ends.
"""

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, ctx, fmpq
from references.base import arb_ends, arb_frac, mpf_frac
from references.contexts import mp_context
from references.hull_renyi import laplace_hull

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import renyi_wor
from tradeoff_algebra.numeric.renyi_orders import flint_order

R = sp.Rational


def _thm9(eps, eps_inf, p, a, dps=60):
    """Thm. 9 as printed: log A(a)/(a - 1) with min{2, (e^{eps(oo)} - 1)^j}, ``eps(c, j)``
    the base's D_j and ``eps_inf(c)`` its D_oo; Cor. 10 between integers. At ``dps`` digits
    in a private context."""
    c = mp_context(dps)
    p = c.mpf(p.p) / p.q if hasattr(p, "p") else c.mpf(p)
    b = c.expm1(eps_inf(c))

    def K(k):
        if k == 1:
            return c.zero
        e2 = eps(c, 2)
        s = 1 + p**2 * c.binomial(k, 2) * min(4 * c.expm1(e2), c.exp(e2) * min(2, b**2))
        s += c.fsum(p**j * c.binomial(k, j) * c.exp((j - 1) * eps(c, j)) * min(2, b**j)
                    for j in range(3, k + 1))
        return c.log(s)

    a = c.mpf(a.p) / a.q if hasattr(a, "p") else c.mpf(a)
    fl = int(c.floor(a))
    if a == fl:
        return K(fl) / (a - 1)
    t = a - fl
    return ((1 - t) * K(fl) + t * K(fl + 1)) / (a - 1)


def _laplace_eps(mu):
    """D_j(Lap(0, 1) || Lap(mu, 1)) = log(j/(2j - 1) e^{(j-1) mu} + (j-1)/(2j - 1) e^{-j mu})
    /(j - 1) (Mironov 2017, Prop. 6)."""
    def eps(c, j):
        m = c.mpf(mu.p) / mu.q
        return c.log(c.mpf(j) / (2 * j - 1) * c.exp((j - 1) * m)
                     + c.mpf(j - 1) / (2 * j - 1) * c.exp(-j * m)) / (j - 1)
    return eps


LAPLACE_CASES = [(R(1, 10), R(1, 10)), (R(1, 100), R(1, 2)), (R(1, 2), R(1, 10)),
                 (R(1, 10), R(1)), (R(1, 20), R(2))]
ORDERS = [2, 3, 5, 10, 32, R(5, 2), R(37, 10)]


@pytest.mark.parametrize("p, mu", LAPLACE_CASES)
def test_laplace_base_equals_thm9_as_printed(p, mu):
    """Each certified ball of C_p(L_mu)'s bound contains the theorem at 60 digits."""
    f = ta.C(p, ta.Laplace(mu))
    vals = renyi_wor.renyi_bounds_all(f, [flint_order(a) for a in ORDERS], 30)
    for a, v in zip(ORDERS, vals, strict=True):
        ref = mpf_frac(_thm9(_laplace_eps(mu), lambda c: c.mpf(mu.p) / mu.q, p, a))
        lo, hi = arb_ends(v)
        slack = ref / 10**55
        assert lo - slack <= ref <= hi + slack, (a, lo, ref, hi)
        assert (hi - lo) / lo < Fraction(1, 10**30)


@pytest.mark.parametrize("p, mu", LAPLACE_CASES[:3])
def test_laplace_base_above_the_hull(p, mu):
    """The bound stays above the hull's divergence (40-digit quadrature), where the min now
    takes (e^mu - 1)^j."""
    orders = [2, 3, 6]
    r = ta.RDP.of(ta.C(p, ta.Laplace(mu)), orders)
    assert r.bound is not None and "Thm. 9" in r.bound
    for a in orders:
        up = r.at(a)
        hull = mpf_frac(laplace_hull(mu, p, a))
        assert hull < Fraction(int(up.p), int(up.q)), (a, hull, up)


def test_finite_eps_inf_tightens_the_power():
    """C_{1/10}(L_{1/10})^5: the bound with eps(oo) = 1/10 lies below the one with
    min{2, .} = 2 at every order, by about 50x at a = 10, and the power's curve is 5 times the
    base's (the two bounds are checked against the theorem above)."""
    g = ta.Laplace(R(1, 10))
    orders = [2, 3, 10, 50]
    from tradeoff_algebra.numeric.renyi_orders import _program

    ctx_prec = ctx.prec
    try:
        ctx.prec = 128
        tight = renyi_wor.wbk_bounds(fmpq(1, 10), g, _program(g), orders)
        loose = renyi_wor.wbk_bounds(fmpq(1, 10), g, _program(g), orders, eps_inf=None)
    finally:
        ctx.prec = ctx_prec
    for t, lo_ in zip(tight, loose, strict=True):
        assert t.upper() < lo_.lower()
    assert loose[2].lower() > 50 * tight[2].upper()
    r = ta.RDP.of(ta.C(R(1, 10), g) ** 5, orders)
    for a, t in zip(orders, tight, strict=True):
        up = arb_frac(t.upper())
        ours = Fraction(int(r.at(a).p), int(r.at(a).q))
        assert 5 * up * (1 - Fraction(1, 10**12)) <= ours <= 5 * up * (1 + Fraction(1, 10**12))


def test_gaussian_base_keeps_two():
    """eps(oo) = oo for G_mu: ``max_divergence_ball`` gives None (min{2, .} = 2)."""
    assert renyi_wor.max_divergence_ball(ta.G(1)) is None
    b = renyi_wor.max_divergence_ball(ta.Laplace(R(1, 10)))
    assert b is not None and b.contains(arb(fmpq(1, 10)))
    assert renyi_wor.max_divergence_ball(ta.Laplace(R(1, 10)) ** 3).contains(arb(fmpq(3, 10)))


# -- brute force on finite symmetric pairs -------------------------------------------------

def _knots(P, Q):
    """Knots of T(P, Q) (Neyman-Pearson: reject atoms by decreasing Q/P), exact."""
    order = sorted(range(len(P)), key=lambda i: Q[i] / P[i], reverse=True)
    pts, a, b = [(Fraction(0), Fraction(1))], Fraction(0), Fraction(1)
    for i in order:
        a, b = a + P[i], b - Q[i]
        pts.append((a, b))
    return pts


def _lower_hull(points):
    pts = sorted(set(points))
    hull = []
    for pt in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (pt[1] - y1) - (y2 - y1) * (pt[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(pt)
    return hull


def _subsampled_hull_pair(P, Q, p):
    """C_p(T(P, Q)) = min{f_p, f_p^{-1}}^{**} as a finite pair (its segments' lengths and
    drops), exact."""
    Q0 = [(1 - p) * x + p * y for x, y in zip(P, Q, strict=True)]
    k = _knots(P, Q0)
    hull = _lower_hull(k + [(y, x) for x, y in k])
    A, B = [], []
    for (x1, y1), (x2, y2) in zip(hull, hull[1:], strict=False):
        if x2 > x1 or y1 > y2:
            A.append(x2 - x1)
            B.append(y1 - y2)
    assert sum(A) == 1 and sum(B) == 1
    return A, B


def _renyi_mp(A, B, a, dps=40):
    """D_a(A || B) = log sum A^a B^{1-a}/(a - 1) at ``dps`` digits."""
    c = mp_context(dps)
    s = c.fsum(c.mpf(x.numerator) / x.denominator
               * (c.mpf((x / y).numerator) / (x / y).denominator) ** (a - 1)
               for x, y in zip(A, B, strict=True) if x)
    assert all(y for x, y in zip(A, B, strict=True) if x)
    return c.log(s) / (a - 1)


def _pair_program(P, Q):
    """The pair's D_j(P || Q) at integer j as Arb balls, from its masses."""
    def program(base, ints):
        out = []
        for j in ints:
            s = sum((arb(fmpq(x.numerator, x.denominator)) ** j
                     * arb(fmpq(y.numerator, y.denominator)) ** (1 - j))
                    for x, y in zip(P, Q, strict=True))
            out.append(s.log() / (j - 1))
        return out
    return program


F = Fraction
PAIRS = [
    ([F(11, 20), F(9, 20)], [F(9, 20), F(11, 20)]),                  # W = 11/9
    ([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]),                        # W = 3
    ([F(1, 2), F(3, 10), F(1, 5)], [F(1, 5), F(3, 10), F(1, 2)]),    # W = 5/2
    ([F(3, 10), F(2, 5), F(3, 10)], [F(3, 10), F(3, 10), F(2, 5)]),  # W = 4/3
]


@pytest.mark.parametrize("P, Q", PAIRS)
@pytest.mark.parametrize("p", [F(1, 10), F(1, 2), F(9, 10)])
def test_thm9_above_the_brute_force_hull(P, Q, p):
    """For symmetric finite pairs (Q is P under an involution of the atoms): Thm. 9 with
    eps(oo) = log W at or above D_a of the brute-force C_p hull, both directions, at every
    order 2..16, and at or below the bound with min{2, .} = 2."""
    assert sorted(P) == sorted(Q)
    W = max(max(q / x for x, q in zip(P, Q, strict=True)),
            max(x / q for x, q in zip(P, Q, strict=True)))
    A, B = _subsampled_hull_pair(P, Q, p)
    orders = list(range(2, 17))
    ctx_prec = ctx.prec
    try:
        ctx.prec = 200
        eps_inf = arb(fmpq(W.numerator, W.denominator)).log()
        bounds = renyi_wor.wbk_bounds(fmpq(p.numerator, p.denominator), None,
                                      _pair_program(P, Q), orders, eps_inf=eps_inf)
        loose = renyi_wor.wbk_bounds(fmpq(p.numerator, p.denominator), None,
                                     _pair_program(P, Q), orders, eps_inf=None)
    finally:
        ctx.prec = ctx_prec
    for a, v, w in zip(orders, bounds, loose, strict=True):
        truth = max(_renyi_mp(A, B, a), _renyi_mp(B, A, a))
        assert mpf_frac(truth) <= arb_frac(v.upper()), (a, truth, v)
        assert arb_frac(v.upper()) <= arb_frac(w.upper())
