"""numeric.envelope: piecewise-linear knots and exact hulls, the concave-supremum certificate and
the general envelope enclosure, each against an independent reference (Fractions, brute force
over chords, fine-grid hulls, Eq. (13) of Dong, Roth & Su)."""

from fractions import Fraction as F

import mpmath
import operator_reference as ref
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.envelope import concave_sup, hull_mp
from tradeoff_algebra.numeric.knots import pl_knots
from tradeoff_algebra.numeric.knots_eval import pl_hull_knots
from tradeoff_algebra.numeric.roots import level
from tradeoff_algebra.operators.maxgroup import Max
from tradeoff_algebra.operators.subsample import Mix
from tradeoff_algebra.operators.unary import Inverse, inverse_bracket

R = sp.Rational


def _frac_knots(knots):
    return [(F(int(sp.Rational(a).p), int(sp.Rational(a).q)),
             F(int(sp.Rational(v).p), int(sp.Rational(v).q))) for a, v in knots]


def _chord_min(points, x):
    """min over chords of the points spanning x (and the points at x): the lower convex
    envelope of a finite point set at x, by brute force over all pairs (O(n^2))."""
    best = None
    for x1, y1 in points:
        if x1 == x:
            best = y1 if best is None else min(best, y1)
        for x2, y2 in points:
            if x1 < x < x2:
                v = y1 + (y2 - y1) * (x - x1) / (x2 - x1)
                best = v if best is None else min(best, v)
    return best


def _candidates(knots):
    """Knots of f, of f^{-1} and the crossings of f and f^{-1} (reference code only)."""
    inv = ref.pl_inverse_knots(knots)
    hull = ref.pl_min_envelope(knots, inv)  # noqa: F841  (exercise the reference)
    xs = sorted({x for x, _ in knots} | {x for x, _ in inv})
    ev = ref.hull_eval
    pts = set(xs)
    for a, b in zip(xs, xs[1:], strict=False):
        da, db = ev(knots, a) - ev(inv, a), ev(knots, b) - ev(inv, b)
        if da * db < 0:
            pts.add(a + (b - a) * da / (da - db))
    return [(x, min(ev(knots, x), ev(inv, x))) for x in sorted(pts)]


# a function that crosses its inverse off the diagonal (two bridges besides the central one)
CROSSING = ta.PiecewiseLinear([(0, 1), (R(1, 20), R(1, 2)), (R(1, 2), R(1, 10)), (1, 0)])


# -- pl_knots --
@pytest.mark.parametrize("f", [
    ta.EpsDelta(sp.log(3), R(1, 10)), ta.EpsDelta(1, R(1, 5)), ta.Id, ta.Zero, CROSSING,
    ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 6), R(2, 3)]),
    Mix(CROSSING, R(2, 5)), Inverse(Mix(CROSSING, R(2, 5))),
    Max(CROSSING, ta.EpsDelta(sp.log(2), R(1, 10))), ta.Symmetrize(CROSSING),
])
def test_pl_knots_interpolate_the_function(f):
    k = pl_knots(f)
    assert k is not None and k[0][0] == 0 and k[-1] == (1, 0)
    for a in (R(1, 50), R(1, 7), R(1, 3), R(1, 2), R(5, 7), R(19, 20)):
        with workdps(40):
            from tradeoff_algebra.numeric.knots_eval import pl_mp_value

            lo, hi = pl_mp_value(k, mp.mpf(a.p) / a.q, mp.mpf((1 - a).p) / (1 - a).q)
        v = ta.evaluate(f, a, 30)
        assert abs(v.mid - lo) < 1e-28 and abs(hi - lo) < 1e-30


def test_pl_knots_none_for_smooth():
    assert pl_knots(ta.G(1)) is None and pl_knots(Mix(ta.Laplace(1), R(1, 2))) is None


# -- exact hulls --
@pytest.mark.parametrize("f", [
    CROSSING,
    ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 6), R(2, 3)]),
    ta.Discrete([R(3, 4), R(1, 4)], [0, 1]),
    Mix(ta.EpsDelta(sp.log(3), R(1, 10)), R(1, 2)),
])
def test_exact_hull_against_brute_force_chords(f):
    k = _frac_knots(pl_knots(f))
    pts = _candidates(k)
    hk = _frac_knots(pl_hull_knots(pl_knots(f)))
    for i in range(0, 41):
        x = F(i, 40)
        assert ref.hull_eval(hk, x) == _chord_min(pts, x)


def test_crossing_example_has_three_bridges():
    """The example's hull has the central slope -1 bridge and a mirrored pair of bridges."""
    hk = _frac_knots(pl_hull_knots(pl_knots(CROSSING)))
    slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in zip(hk, hk[1:], strict=False)]
    assert F(-1) in slopes
    assert any(s * t == 1 for s in slopes for t in slopes if s != -1)


# -- concave supremum certificate --
@settings(max_examples=20, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.5, 20))
def test_concave_sup_bounds_the_maximum(c, k):
    """psi(x) = -k (x - c)^2 sampled on a coarse grid: the bound is >= 0 = max psi, and close
    to it with a fine cluster around the maximiser."""
    with workdps(40):
        c = mp.mpf(c)
        lv = [level(mp.mpf(i) / 16) for i in range(17)]
        lv[-1] = (mp.one, mp.zero)

        def samples(levels):
            out = []
            for t in sorted(set(levels)):
                v = -k * (t[0] - c) ** 2
                out.append((t, v, v))
            return out

        coarse = concave_sup(samples(lv))
        assert coarse >= 0
        fine = concave_sup(samples(lv + [level(c + d) for d in
                                         (mp.mpf(10) ** -12 * j for j in (-2, -1, 0, 1, 2))]))
        assert 0 <= fine <= mp.mpf(10) ** -20


# -- general route --
def _hull(g, A, power=False, dps=30):
    with workdps(dps + 20):
        a, ac = mp.mpf(A.p) / A.q, mp.mpf((1 - A).p) / (1 - A).q
        return hull_mp(g, a, ac, power, inverse_bracket)


@pytest.mark.parametrize("A", [R(1, 10**9), R(1, 20), R(1, 5), R(1, 3), R(1, 2), R(3, 4),
                               R(99, 100)])
def test_general_route_reproduces_eq13(A):
    """For g = f_p with symmetric f the general envelope must agree with Eq. (13) (a different
    method: fixed point of f and the slope -1 line), to the working precision."""
    g = Mix(ta.G(2), R(3, 10))
    lo, hi = _hull(g, A)
    plo, phi = _hull(g, A, power=True)
    v = ta.evaluate(ta.C(R(3, 10), ta.G(2)), A, 45)
    w = ta.roc(ta.C(R(3, 10), ta.G(2)), A, 45)
    with workdps(80):
        tol = mpmath.mpf(10) ** -44
        assert lo - tol <= v.mid <= hi + tol and hi - lo < mpmath.mpf(10) ** -30
        assert plo * (1 - tol) <= w.mid <= phi * (1 + tol) and phi - plo < 1e-30 * phi


def test_general_route_against_fine_grid_hull():
    """SymmetricHull(Mix(G(2), 3/10)) through the general route against the lower hull of
    the sampled points (x, g(x)), (g(x), x) (x on a grid of step 1/1000, of step 1/20000 on
    [0, 1/20] and a geometric one down to 1e-9, so that the mirrored points are dense near
    alpha = 1 too, where g^{-1} is steep): the grid hull lies above the envelope by at most its
    chord error (measured below 1e-6 here, at most 2.7e-6 with step 1/2000 alone) and never
    below the enclosure."""
    g = Mix(ta.G(2), R(3, 10))
    with workdps(30):
        fp = ref.mix(ref.gauss(2), mp.mpf(3) / 10)
        xs = [mp.mpf(i) / 1000 for i in range(1001)]
        xs += [mp.mpf(i) / 20000 for i in range(1, 1000)]
        xs += [mp.mpf(10) ** (-9 + 4 * mp.mpf(i) / 100) for i in range(100)]
        pts = {(x, fp(x)) for x in xs}
        pts |= {(y, x) for x, y in pts}
        pts = sorted(pts)
        hull = ref.lower_hull([q[0] for q in pts], [q[1] for q in pts])
    gaps = []
    for A in (R(1, 40), R(1, 7), R(1, 3), R(1, 2), R(2, 3), R(9, 10)):
        lo, hi = _hull(g, A)
        h = ref.hull_eval(hull, mp.mpf(A.p) / A.q)
        assert h >= lo - 1e-25
        gaps.append(h - hi)
    assert max(gaps) < 1e-6, gaps


@pytest.mark.parametrize("A", [R(1, 100), R(1, 20), R(3, 20), R(1, 4), R(2, 5), R(3, 5),
                               R(17, 20), R(19, 20)])
def test_general_route_is_valid_for_kinked_operands(A):
    """The general route on a piecewise-linear operand with off-diagonal crossings (kinks make
    it wide, never wrong): the exact hull value lies in the enclosure."""
    exact = ref.hull_eval(_frac_knots(pl_hull_knots(pl_knots(CROSSING))), F(A.p, A.q))
    lo, hi = _hull(CROSSING, A, dps=20)
    with workdps(50):
        x = mp.mpf(exact.numerator) / exact.denominator
        assert lo - mpmath.mpf(10) ** -35 <= x <= hi + mpmath.mpf(10) ** -35


def test_first_gap_bound_when_the_supremum_lies_inside_it():
    """C_{1/10}(Discrete (x) f_{50, 0.1587}) (random-tree finding): the hull's line of slope -1
    touches its operand at a knot at alpha = 1.3e-22, between the samples 0 and the next
    level. The first gap's bound took the sample at 0 (where there is no chord on the left)
    and put the lower end 1.7e-19 above the truth. Reference: the lower convex envelope of
    min{g, g^{-1}} built from the exact pair at 80 digits, independently of the library."""
    from fractions import Fraction

    ctx = mpmath.MPContext()
    ctx.dps = 80

    def fr(x):
        q = Fraction(x)
        return ctx.mpf(q.numerator) / q.denominator

    d, E = fr(0.158663626111326), ctx.exp(50)
    P = [a * b for a in (d, (1 - d) * E / (1 + E), (1 - d) / (1 + E), ctx.mpf(0))
         for b in (ctx.mpf(4) / 5, ctx.mpf(1) / 5)]
    Q = [a * b for a in (ctx.mpf(0), (1 - d) / (1 + E), (1 - d) * E / (1 + E), d)
         for b in (ctx.mpf(1), ctx.mpf(0))]

    def hull(pts):
        out = []
        for p in sorted(pts):
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    def ev(k, x):
        for (x0, y0), (x1, y1) in zip(k, k[1:], strict=False):
            if x0 <= x <= x1:
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else min(y0, y1)
        return ctx.mpf(0)

    a, pw, pts = ctx.mpf(0), ctx.mpf(0), [(ctx.mpf(0), ctx.mpf(1))]
    for p, q in sorted(zip(P, Q, strict=True),
                       key=lambda t: -(t[1] / t[0]) if t[0] > 0 else -ctx.inf):
        a, pw = a + p, pw + q
        pts.append((a, 1 - pw))
    g = [(x, (y + 9 * (1 - x)) / 10) for x, y in hull(pts)]
    gi = sorted((y, x) for x, y in g)
    xs = sorted({x for x, _ in g} | {x for x, _ in gi})
    cand = [(x, min(ev(g, x), ev(gi, x))) for x in xs]
    for x0, x1 in zip(xs, xs[1:], strict=False):
        a0, a1 = ev(g, x0) - ev(gi, x0), ev(g, x1) - ev(gi, x1)
        if a0 * a1 < 0:
            t = x0 + (x1 - x0) * a0 / (a0 - a1)
            cand.append((t, ev(g, t)))
    H = hull(cand)
    f = ta.C(sp.Rational(1, 10), ta.EpsDelta(50, 0.158663626111326)
             @ ta.Discrete([sp.Rational(4, 5), sp.Rational(1, 5)], [1, 0]))
    for alpha in (0.18456583438671575, 0.6761541540719018):
        ref = ev(H, fr(alpha))
        for dps in (15, 30):
            v, r = ta.evaluate(f, alpha, dps), ta.roc(f, alpha, dps)
            (vl, vh), (rl, rh) = v.interval(), r.interval()  # a point: one unit either side
            assert ctx.mpf(vl) <= ref <= ctx.mpf(vh)
            assert ctx.mpf(rl) <= 1 - ref <= ctx.mpf(rh)
