"""C_p(f) = min{f_p, f_p^{-1}}^{**} (Dong, Roth & Su, Def. 6) and C(f) = min{f, f^{-1}}^{**}
for asymmetric f, through the public API, against independent references: Eq. (13) after
C_p(f_q) = C_{pq}(f) for symmetric f, exact hulls of Fraction knots computed here, brute-force
inverses; and the properties of the operator (symmetry, Id >= C_p(f) >= C(f), monotone in p)."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.operators.subsample import Mix

R = sp.Rational
DPS = 30

# T(P, Q) on three outcomes: asymmetric, with rational knots
DISC = ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 10), R(3, 10), R(3, 5)])
PL = ta.PiecewiseLinear([(0, 1), (R(1, 20), R(1, 2)), (R(1, 2), R(1, 10)), (1, 0)])


# -- an independent exact hull with Fractions --
def _interp(knots, x):
    for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
        if x1 <= x <= x2:
            return y1 if x1 == x2 else y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    raise ValueError(x)


def _np_knots(P, Q):
    """Neyman-Pearson knots of T(P, Q) by sorting the outcomes by likelihood ratio Q/P."""
    order = sorted(range(len(P)), key=lambda i: -(Q[i] / P[i]) if P[i] else -10**9)
    knots, a, b = [(F(0), F(1))], F(0), F(0)
    for i in order:
        a, b = a + P[i], b + Q[i]
        knots.append((a, 1 - b))
    return knots


def _inverse_value(knots, x):
    """inf{t : f(t) <= x} by exact bisection on the pieces (no mirroring)."""
    if knots[0][1] <= x:
        return F(0)
    for (x1, y1), (x2, y2) in zip(knots, knots[1:], strict=False):
        if y2 <= x < y1 or (y2 <= x and y1 == x):
            return x1 + (x2 - x1) * (y1 - x) / (y1 - y2)
    return F(1)


def _exact_hull(knots, x, n=240):
    """min over all chords of sampled points of h = min{f, f^{-1}} at the knots, the mirrored
    knots, their crossings and a rational grid: the lower convex envelope at x, exactly (h is
    linear between consecutive candidate points, so the envelope's vertices are among them)."""
    cands = {F(i, n) for i in range(n + 1)} | {k[0] for k in knots} | {k[1] for k in knots}
    cands = sorted(c for c in cands if 0 <= c <= 1)
    h = {c: min(_interp(knots, c), _inverse_value(knots, c)) for c in cands}
    extra = []
    for a, b in zip(cands, cands[1:], strict=False):  # crossings of f and f^{-1}
        da = _interp(knots, a) - _inverse_value(knots, a)
        db = _interp(knots, b) - _inverse_value(knots, b)
        if da * db < 0:
            extra.append(a + (b - a) * da / (da - db))
    for c in extra:
        h[c] = min(_interp(knots, c), _inverse_value(knots, c))
    pts = sorted(h.items())
    best = h.get(x)
    for x1, y1 in pts:
        if x1 >= x:
            break
        for x2, y2 in pts:
            if x2 > x:
                v = y1 + (y2 - y1) * (x - x1) / (x2 - x1)
                best = v if best is None or v < best else best
    return best


def _frac(x):
    return F(int(x.p), int(x.q))


DISC_KNOTS = _np_knots([F(1, 2), F(1, 3), F(1, 6)], [F(1, 10), F(3, 10), F(3, 5)])
PL_KNOTS = [(F(0), F(1)), (F(1, 20), F(1, 2)), (F(1, 2), F(1, 10)), (F(1), F(0))]


# -- exact routes --
@pytest.mark.parametrize("A", [R(1, 40), R(1, 8), R(1, 4), R(3, 8), R(1, 2), R(5, 8), R(7, 8)])
def test_symmetric_hull_of_discrete_is_exact(A):
    v = ta.evaluate(ta.SymmetricHull(DISC), A, DPS)
    assert v.exact is not None and v.exact == R(*_as_pq(_exact_hull(DISC_KNOTS, _frac(A))))


@pytest.mark.parametrize("A", [R(1, 40), R(1, 8), R(1, 4), R(3, 8), R(1, 2), R(5, 8), R(7, 8)])
def test_subsample_of_piecewise_linear_is_exact(A):
    p = F(2, 5)
    mixed = [(x, p * y + (1 - p) * (1 - x)) for x, y in PL_KNOTS]
    v = ta.evaluate(ta.C(R(2, 5), PL), A, DPS)
    assert v.exact == R(*_as_pq(_exact_hull(mixed, _frac(A))))
    w = ta.roc(ta.C(R(2, 5), PL), A, DPS)
    assert w.exact == 1 - v.exact


def _as_pq(q):
    return int(q.numerator), int(q.denominator)


@pytest.mark.parametrize("A", [R(0), R(1, 7), R(1, 2), R(9, 10), R(1)])
def test_inverse_of_mixed_piecewise_linear_is_exact(A):
    p = F(1, 3)
    mixed = [(x, p * y + (1 - p) * (1 - x)) for x, y in DISC_KNOTS]
    v = ta.evaluate(Mix(DISC, R(1, 3)).inverse(), A, DPS)
    assert v.exact == R(*_as_pq(_inverse_value(mixed, _frac(A))))


def test_irrational_knots_enclosure():
    """C_p of f_{1, 1/10} mixed once more (irrational knots: the mpmath route of the knots)
    against Eq. (13): C_{1/2}(f_{1/2}) = C_{1/4}(f) for symmetric f."""
    f = ta.EpsDelta(1, R(1, 10))
    for A in (R(1, 10**8), R(1, 5), R(1, 2), R(4, 5)):
        v = ta.evaluate(ta.C(R(1, 2), Mix(f, R(1, 2))), A, DPS)
        w = ta.evaluate(ta.C(R(1, 4), f), A, DPS)
        assert v.lo <= w.hi and w.lo <= v.hi and v.hi - v.lo <= 1e-29 * max(v.hi, 1e-300)


# -- general route through the public API --
@pytest.mark.parametrize("A", [R(1, 10**10), R(1, 30), R(1, 5), R(2, 5), R(1, 2), R(4, 5),
                               R(99, 100)])
def test_subsample_of_mixed_gaussian(A):
    """C_p(Mix(G(1), 1/2)) = C(G(1)_{p/2}) = C_{p/2}(G(1)) (Eq. (13)): 30 digits, both ways."""
    p = R(3, 5)
    v = ta.evaluate(ta.C(p, Mix(ta.G(1), R(1, 2))), A, DPS)
    w = ta.evaluate(ta.C(p / 2, ta.G(1)), A, DPS)
    assert v.lo <= w.hi and w.lo <= v.hi
    assert v.hi - v.lo <= 1e-29 * v.hi
    r = ta.roc(ta.C(p, Mix(ta.G(1), R(1, 2))), A, DPS)
    s = ta.roc(ta.C(p / 2, ta.G(1)), A, DPS)
    assert r.lo <= s.hi and s.lo <= r.hi and r.hi - r.lo <= 1e-29 * r.hi


# -- properties --
@settings(max_examples=25, deadline=None)
@given(st.fractions(F(1, 50), F(49, 50)), st.fractions(F(1, 20), F(19, 20)))
def test_exact_properties(a, p):
    """For piecewise-linear f, exactly: C(f) <= C_q(f) <= C_p(f) <= Id for p <= q, and C_p(f)
    is symmetric, C_p(f)(C_p(f)(a)) = a where C_p(f) is strictly decreasing."""
    A, P = R(*_as_pq(a)), R(*_as_pq(p))
    Q = (P + 1) / 2
    hull = ta.evaluate(ta.SymmetricHull(DISC), A, DPS).exact
    cq = ta.evaluate(ta.C(Q, DISC), A, DPS).exact
    cp = ta.evaluate(ta.C(P, DISC), A, DPS).exact
    assert hull <= cq <= cp <= 1 - A
    back = ta.evaluate(ta.C(P, DISC), cp, DPS).exact
    if cp > 0:
        assert back == A


@settings(max_examples=4, deadline=None)
@given(st.fractions(F(1, 20), F(19, 20)))
def test_general_properties(a):
    """The general route (C_p of Mix(L_1, 1/2)): symmetric to 1e-20, between C(f) and Id,
    monotone in p."""
    A = R(*_as_pq(a))
    f = Mix(ta.Laplace(1), R(1, 2))
    c = ta.evaluate(ta.C(R(1, 3), f), A, 25)
    back = ta.evaluate(ta.C(R(1, 3), f), c.mid, 25)
    with workdps(40):
        assert abs(back.mid - mpmath.mpf(A.p) / A.q) < 1e-20
    c2 = ta.evaluate(ta.C(R(2, 3), f), A, 25)
    h = ta.evaluate(ta.SymmetricHull(f), A, 25)
    assert h.lo <= c2.hi and c2.lo <= c.hi and c.lo <= 1 - A


@pytest.mark.parametrize("f", [ta.C(R(1, 2), Mix(ta.G(1), R(1, 2))), ta.SymmetricHull(DISC),
                               ta.C(R(2, 5), PL), Mix(DISC, R(1, 3)).inverse()])
def test_curve_agrees_with_mp(f):
    xs = np.array([0.0, 0.01, 0.2, 0.5, 0.8, 0.99, 1.0])
    ys = f.curve(xs)
    for x, y in zip(xs, ys, strict=True):
        assert abs(y - float(ta.evaluate(f, float(x), 20).mid)) < 1e-6
