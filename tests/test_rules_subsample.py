"""Rules for Mix, Subsample (C_p), Symmetrize and SymmetricHull.

The reference is independent of the package: trade-off functions are represented by their knots
(piecewise linear, exact with Fractions or at 60 digits with mpf), and C_p(f) =
min{f_p, f_p^{-1}}^{**} is computed literally from Def. 6 of Dong, Roth & Su: the mix, the
inverse (Eq. (3)), the pointwise minimum (with the crossing points) and the lower convex hull of
the vertices (the biconjugate of a piecewise-linear function on [0, 1]).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import C, EpsDelta, G, Id, Inverse, Laplace, Max, Mix, Zero
from tradeoff_algebra.families import epsdelta as ed
from tradeoff_algebra.operators import subsample as sub
from tradeoff_algebra.operators import unary
from tradeoff_algebra.operators.unary import SymmetricHull, Symmetrize


# -- the piecewise-linear reference ------------------------------------------------------------
def pl_eval(kn, x):
    for (x0, y0), (x1, y1) in zip(kn, kn[1:], strict=False):
        if x0 <= x <= x1:
            return min(y0, y1) if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError(x)


def pl_clean(points):
    out = []
    for x, y in sorted(points):
        if out and out[-1][0] == x:
            out[-1] = (x, min(out[-1][1], y))
        else:
            out.append((x, y))
    return out


def pl_inverse(kn, one):
    """f^{-1}(a) = inf{t : f(t) <= a} for a convex non-increasing f given by its knots."""
    return pl_clean([(y, x) for x, y in kn] + [(one, 0 * one)])


def pl_mix(kn, p, one):
    return [(x, p * y + (1 - p) * (one - x)) for x, y in kn]


def pl_min(f, g):
    xs = sorted({x for x, _ in f} | {x for x, _ in g})
    extra = []
    for x0, x1 in zip(xs, xs[1:], strict=False):
        d0, d1 = pl_eval(f, x0) - pl_eval(g, x0), pl_eval(f, x1) - pl_eval(g, x1)
        if d0 * d1 < 0:
            extra.append(x0 + (x1 - x0) * d0 / (d0 - d1))
    return [(x, min(pl_eval(f, x), pl_eval(g, x))) for x in sorted(set(xs) | set(extra))]


def pl_hull(points):
    """Lower convex hull of points sorted by x: the biconjugate of the piecewise-linear min."""
    h = []
    for pt in sorted(points):
        while len(h) >= 2:
            (x1, y1), (x2, y2) = h[-2], h[-1]
            if (y2 - y1) * (pt[0] - x1) >= (pt[1] - y1) * (x2 - x1):
                h.pop()
            else:
                break
        h.append(pt)
    return h


def pl_epsdelta(r, d, one):
    """Knots of f_{eps,delta} with e^eps = r (Dong, Roth & Su, Eq. (5))."""
    xs = (one - d) / (1 + r)
    return pl_clean([(0 * one, one - d), (xs, xs), (one - d, 0 * one), (one, 0 * one)])


def pl_subsample(kn, p, one):
    fp = pl_mix(kn, p, one)
    return pl_hull(pl_min(fp, pl_inverse(fp, one)))


GRID = [F(k, 41) for k in range(42)] + [F(1, 10**9), 1 - F(1, 10**9)]


def _rat(x) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


# -- Cor. 3 / Eq. (14), corrected -----------------------------------------------------------------
@pytest.mark.parametrize("r", [F(2), F(3), F(5, 2), F(20)])
@pytest.mark.parametrize("d", [F(0), F(1, 10), F(1, 2), F(9, 10)])
@pytest.mark.parametrize("p", [F(1, 5), F(1, 2), F(3, 4)])
def test_subsample_epsdelta_exact(r, d, p):
    node = C(_rat(p), EpsDelta(sp.log(_rat(r)), _rat(d)))
    out = ed.subsample_epsdelta.rule(node)
    assert out is not None
    ref = pl_subsample(pl_epsdelta(r, d, F(1)), p, F(1))
    for a in GRID:
        v = ta.evaluate(out, _rat(a), dps=45)
        assert v.exact == _rat(pl_eval(ref, a)), (r, d, p, a)


@pytest.mark.parametrize("eps, d, p", [(1, sp.Rational(1, 7), sp.Rational(1, 3)),
                                       (sp.Rational(1, 2), sp.Rational(1, 100), sp.Rational(9, 10)),
                                       (4, sp.Rational(1, 3), sp.Rational(1, 20))])
def test_subsample_epsdelta_50_digits(eps, d, p):
    out = ta.simplify(C(p, EpsDelta(eps, d)))
    assert isinstance(out, Max)
    with workdps(70):
        one = mp.mpf(1)
        ref = pl_subsample(pl_epsdelta(mpmath.exp(ta.numeric.protocol.num(sp.S(eps))),
                                       mp.mpf(d.p) / d.q, one), mp.mpf(p.p) / p.q, one)
        for k in range(1, 40):
            a = sp.Rational(k, 40)
            want = pl_eval(ref, mp.mpf(k) / 40)
            got = ta.evaluate(out, a, dps=50)
            assert abs(got.mid - want) <= mp.mpf(10) ** -48 * max(abs(want), mp.mpf(10) ** -30)


def test_printed_eq14_is_wrong_counterexample():
    """eps = log 3, delta = 1/2, p = 1/2, alpha = 1/4: truth 3/8, printed Eq. (14) 1/4."""
    r, d, p, a = F(3), F(1, 2), F(1, 2), F(1, 4)
    truth = pl_eval(pl_subsample(pl_epsdelta(r, d, F(1)), p, F(1)), a)
    rp, dp = 1 - p + p * r, p * d
    printed = max(pl_eval(pl_epsdelta(rp, dp, F(1)), a), 1 - p * d - p * (r - 1) / (r + 1) - a)
    assert truth == F(3, 8) and printed == F(1, 4)
    got = ta.evaluate(ta.simplify(C(sp.Rational(1, 2), EpsDelta(sp.log(3), sp.Rational(1, 2)))),
                      sp.Rational(1, 4))
    assert got.exact == sp.Rational(3, 8)


def test_printed_eq14_right_for_pure_dp():
    """With delta = 0 the printed and corrected constants coincide."""
    r, p = F(3), F(1, 3)
    ref = pl_subsample(pl_epsdelta(r, F(0), F(1)), p, F(1))
    for a in GRID:
        printed = max(pl_eval(pl_epsdelta(1 - p + p * r, F(0), F(1)), a),
                      1 - p * (r - 1) / (r + 1) - a)
        assert printed == pl_eval(ref, a)


def test_subsample_epsdelta_symbolic_closed_form():
    p = sp.Symbol("p", positive=True)
    eps = sp.Symbol("varepsilon", nonnegative=True)
    delta = sp.Symbol("delta", nonnegative=True)
    out = ta.simplify(C(p, EpsDelta(eps, delta)))
    e = sp.exp(eps)
    want = Max(EpsDelta(sp.log(1 - p + p * e), p * delta),
               EpsDelta(0, p * (e - 1 + 2 * delta) / (e + 1)))
    assert isinstance(out, Max) and len(out.args) == 2
    vals = {p: sp.Rational(2, 7), eps: sp.log(4), delta: sp.Rational(1, 5)}
    ref = pl_subsample(pl_epsdelta(F(4), F(1, 5), F(1)), F(2, 7), F(1))
    for g in (out, want):
        h = g.subs(vals)
        for a in GRID[::3]:
            assert ta.evaluate(h, _rat(a)).exact == _rat(pl_eval(ref, a))
    assert "f_{" in ta.latex(out)


def test_subsample_eps_zero_collapses():
    d, p = sp.Symbol("delta", nonnegative=True), sp.Symbol("p", nonnegative=True)
    assert ta.simplify(C(p, EpsDelta(0, d))) == EpsDelta(0, p * d)


# -- the generic cases ----------------------------------------------------------------------------
def test_subsample_zero_and_id():
    p = sp.Symbol("p")  # no assumptions
    assert sub.subsample_zero.rule(C(0, G(3))) == Id
    assert sub.subsample_zero.rule(C(p, G(3))) is None
    assert sub.subsample_id.rule(C(p, Id)) == Id
    assert sub.subsample_id.rule(C(p, G(1))) is None
    assert ta.simplify(C(p, Id)) == Id and ta.simplify(C(0, Laplace(2))) == Id
    # reference: C_0 and C_p(Id) by the definition
    ident = [(F(0), F(1)), (F(1), F(0))]
    for q in (F(0), F(1, 3)):
        ref = pl_subsample(pl_epsdelta(F(3), F(1, 4), F(1)) if q == 0 else ident, q, F(1))
        for a in GRID:
            assert pl_eval(ref, a) == 1 - a


def test_subsample_of_zero_function():
    p = sp.Symbol("p", nonnegative=True)
    assert ed.subsample_zero_function.rule(C(p, Zero)) == EpsDelta(0, p)
    zero = [(F(0), F(0)), (F(1), F(0))]
    for q in (F(1, 5), F(1, 2), F(1)):
        ref = pl_subsample(zero, q, F(1))
        for a in GRID:
            assert ta.evaluate(EpsDelta(0, _rat(q)), _rat(a)).exact == _rat(pl_eval(ref, a))


def test_subsample_one_needs_symmetry():
    p = sp.Symbol("p", positive=True)
    asym = Mix(G(1), p)  # is_symmetric is None
    assert asym.is_symmetric is None
    assert sub.subsample_one_symmetric.rule(C(1, asym)) is None
    assert sub.subsample_one.rule(C(1, asym)) == SymmetricHull(asym)
    assert sub.subsample_one_symmetric.rule(C(1, G(2))) == G(2)
    assert sub.subsample_one_symmetric.rule(C(p, G(2))) is None
    assert ta.simplify(C(1, G(2) @ Laplace(1))) == G(2) @ Laplace(1)
    assert ta.simplify(C(1, asym)) == SymmetricHull(asym)
    # the asymmetric counterexample: f = max{0, 1 - 4 alpha} = T((3/4, 1/4), (0, 1))
    f = [(F(0), F(1)), (F(1, 4), F(0)), (F(1), F(0))]
    c1 = pl_subsample(f, F(1), F(1))
    assert pl_eval(c1, F(1, 8)) == F(1, 8) and pl_eval(f, F(1, 8)) == F(1, 2)
    hull = pl_hull(pl_min(f, pl_inverse(f, F(1))))
    assert all(pl_eval(c1, a) == pl_eval(hull, a) for a in GRID)


def test_subsample_one_symmetric_value():
    """C_1(f) = f for symmetric f, checked on f_{eps,delta} by the definition."""
    f = pl_epsdelta(F(5, 2), F(1, 10), F(1))
    c1 = pl_subsample(f, F(1), F(1))
    assert all(pl_eval(c1, a) == pl_eval(f, a) for a in GRID)


# -- Mix
def _mix_ref(mu, p, a):
    """p G_mu(a) + (1 - p)(1 - a) with G_mu from the package-independent Neyman-Pearson route."""
    from reference_np import gauss_np

    return p * gauss_np(mu, a) + (1 - p) * (1 - a)


def test_mix_rules_fire():
    p = sp.Symbol("p")
    assert sub.mix_one.rule(Mix(G(1), 1)) == G(1)
    assert sub.mix_one.rule(Mix(G(1), p)) is None
    assert sub.mix_zero.rule(Mix(G(1), 0)) == Id
    assert sub.mix_zero.rule(Mix(G(1), p)) is None
    assert sub.mix_id.rule(Mix(Id, p)) == Id
    assert sub.mix_id.rule(Mix(G(1), p)) is None
    q = sp.Symbol("q")
    assert sub.mix_mix.rule(Mix(Mix(G(1), p), q)) == Mix(G(1), p * q)
    assert sub.mix_mix.rule(Mix(G(1), q)) is None


def test_mix_mix_value_50_digits():
    p, q = sp.Rational(2, 3), sp.Rational(3, 7)
    out = ta.simplify(Mix(Mix(G(1), p), q))
    assert out == Mix(G(1), sp.Rational(2, 7))
    with workdps(70):
        for k in (1, 5, 13, 20):
            a = sp.Rational(k, 21)
            inner = _mix_ref(1, mp.mpf(2) / 3, mp.mpf(k) / 21)
            ref = mp.mpf(3) / 7 * inner + mp.mpf(4) / 7 * (1 - mp.mpf(k) / 21)
            got = sp.N(out(a), 60)
            assert abs(mp.mpf(str(got)) - ref) < mp.mpf(10) ** -50


def test_mix_trivial_values():
    a = sp.Rational(3, 11)
    assert Mix(G(1), 0)(a) == 1 - a and Mix(Id, sp.Rational(1, 3))(a) == 1 - a
    with workdps(60):
        assert abs(mp.mpf(str(sp.N(Mix(G(1), 1)(a), 55))) - _mix_ref(1, 1, mp.mpf(3) / 11)) \
            < mp.mpf(10) ** -50


# -- Symmetrize and SymmetricHull
def test_symmetrize_rules():
    p = sp.Symbol("p", positive=True)
    asym = Mix(G(1), p)
    assert unary.symmetrize_symmetric.rule(Symmetrize(G(1))) == G(1)
    assert unary.symmetrize_symmetric.rule(Symmetrize(asym)) is None
    assert unary.symmetric_hull_symmetric.rule(SymmetricHull(EpsDelta(1, 0))) == EpsDelta(1, 0)
    assert unary.symmetric_hull_symmetric.rule(SymmetricHull(asym)) is None
    assert unary.symmetrize_inverse.rule(Symmetrize(Inverse(asym))) == Symmetrize(asym)
    assert unary.symmetric_hull_inverse.rule(SymmetricHull(Inverse(asym))) == SymmetricHull(asym)
    assert ta.simplify(Symmetrize(G(1) @ Laplace(1))) == G(1) @ Laplace(1)


def test_symmetrizations_of_symmetric_by_definition():
    """max{f, f^{-1}} = f and min{f, f^{-1}}^{**} = f for f_{eps,delta}; both are invariant
    under f -> f^{-1} for an asymmetric f."""
    f = pl_epsdelta(F(7, 2), F(1, 5), F(1))
    finv = pl_inverse(f, F(1))
    hull = pl_hull(pl_min(f, finv))
    for a in GRID:
        assert max(pl_eval(f, a), pl_eval(finv, a)) == pl_eval(f, a) == pl_eval(hull, a)
    g = [(F(0), F(1)), (F(1, 10), F(1, 2)), (F(1, 2), F(1, 8)), (F(1), F(0))]
    ginv = pl_inverse(g, F(1))
    ginv2 = pl_inverse(ginv, F(1))
    assert all(pl_eval(ginv2, a) == pl_eval(g, a) for a in GRID)
    h1, h2 = pl_hull(pl_min(g, ginv)), pl_hull(pl_min(ginv, ginv2))
    assert all(pl_eval(h1, a) == pl_eval(h2, a) for a in GRID)
    assert any(pl_eval(h1, a) != pl_eval(g, a) for a in GRID)  # g is not symmetric
