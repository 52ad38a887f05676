"""ta.is_tradeoff and ta.is_member: never True for a false claim, never False for a true one.

References are independent of the predicates: exact rational arithmetic on closed forms (a
witness is recomputed with SymPy rationals), the conditions of Dong, Roth & Su, Prop. 1 derived
by hand for polynomials, the Neyman-Pearson knots of explicit finite pairs, and the closed form
of L_mu (Prop. 7) evaluated with the thread-private mpmath context.
"""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.verify.predicates import negate

R = sp.Rational
x = sp.Symbol("x", real=True)
RR2 = sp.Max(0, 1 - 2 * x, (1 - x) / 2)  # f_{log 2, 0} written out (Eq. (5))


# -- is_tradeoff: true cases --------------------------------------------------------------------
@pytest.mark.parametrize("f", [
    1 - x,                      # Id
    (1 - x) ** 2,               # f' = -2(1 - x) <= 0, f'' = 2, (1 - x)^2 <= 1 - x on [0, 1]
    (1 - x) ** 3,
    RR2,                        # f_{log 2, 0}
    sp.Max(0, R(3, 4) - x),     # f_{0, 1/4}
    (sp.exp(-x) - sp.exp(-1)) / (1 - sp.exp(-1)),  # convex, f(0) = 1, f(1) = 0: below its chord
])
def test_tradeoff_true(f):
    v = ta.is_tradeoff(f, x)
    assert v.status is True, v.evidence
    assert v.method == "certified cover"
    # the hand-derived conditions at rational points, exactly (an independent sanity check)
    pts = [R(k, 16) for k in range(17)]
    vals = [sp.nsimplify(f.subs(x, p)) if not f.has(sp.exp) else None for p in pts]
    if None not in vals:
        assert all(v_ <= 1 - p for v_, p in zip(vals, pts, strict=True))
        assert all(a >= b for a, b in zip(vals, vals[1:], strict=False))
        assert all(2 * vals[k] <= vals[k - 1] + vals[k + 1] for k in range(1, 16))


def test_tradeoff_node_by_construction():
    v = ta.is_tradeoff(ta.G(1) @ ta.Laplace(2))
    assert v.status is True and v.method == "construction"
    mu = sp.Symbol("mu", real=True)
    assert ta.is_tradeoff(ta.G(mu)).status is None


# -- is_tradeoff: false cases with their witnesses, recomputed exactly ----------------------------
def test_above_the_diagonal():
    f = 1 - x**2
    v = ta.is_tradeoff(f, x)
    assert v.status is False
    a = v.counterexample["alpha"]
    assert f.subs(x, a) > 1 - a  # exact


def test_value_at_one():
    f = (1 - x) / 2 + R(1, 10)
    v = ta.is_tradeoff(f, x)
    assert v.status is False and v.counterexample["alpha"] == 1
    assert f.subs(x, 1) == R(1, 10)


def test_not_convex():
    f = sp.Min(1 - x, 2 * (1 - x) ** 2)
    v = ta.is_tradeoff(f, x)
    assert v.status is False
    ce = v.counterexample
    X, Y, Z = ce["x"], ce["y"], ce["z"]
    fx, fy, fz = (f.subs(x, p) for p in (X, Y, Z))
    assert (Z - X) * fy > (Z - Y) * fx + (Y - X) * fz  # exact: above the chord


def test_increasing():
    f = x**2 - x  # convex, f(0) = f(1) = 0, <= 1 - x, but increasing on [1/2, 1] (and < 0)
    v = ta.is_tradeoff(f, x)
    assert v.status is False
    ce = v.counterexample
    assert ce["a"] < ce["b"] and f.subs(x, ce["a"]) < f.subs(x, ce["b"])


def test_jump_at_zero():
    """Footnote 7 of the arXiv version: continuity matters at 0 only."""
    for c in (R(3, 4), 1):
        f = sp.Piecewise((c, sp.Eq(x, 0)), ((1 - x) / 2, True))
        v = ta.is_tradeoff(f, x)
        assert v.status is False and v.counterexample["alpha"] == 0
        assert "jumps" in v.evidence
    assert ta.is_tradeoff((1 - x) / 2, x).status is True


def test_concave_kink():
    f = sp.Min(1 - x, R(3, 2) * (1 - x) - R(1, 4))  # two lines, the slope drops at x = 1/2
    v = ta.is_tradeoff(f, x)
    assert v.status is False


def test_unbounded_slope_is_undecided_not_false():
    """G_1 as a closed form has f' -> -oo at 0: the ends cannot be enclosed, the verdict is
    None with the location, never False (G_1 is a trade-off function)."""
    f = ta.Phi(ta.PhiInv(1 - x) - 1)
    v = ta.is_tradeoff(f, x, max_cells=40, seconds=5.0)
    assert v.status is None
    assert "alpha = 0" in v.evidence


def test_negation_and_errors():
    v = ta.is_not_tradeoff(1 - x**2, x)
    assert v.status is True and v.rel == "is not"
    assert negate(ta.is_tradeoff(1 - x, x)).status is False
    with pytest.raises(ta.InvalidParameter, match="in x alone"):
        ta.is_tradeoff(x * sp.Symbol("y"), x)
    with pytest.raises(ta.InvalidParameter, match="expr"):
        ta.is_tradeoff("1 - x", x)
    with pytest.raises(ta.InvalidParameter, match="dps"):
        ta.is_tradeoff(1 - x, x, dps=2)
    assert "trade-off function" in ta.is_tradeoff(1 - x, x).claim_latex()
    shown = ta.is_not_member(ta.Laplace(1), ta.EpsDelta)
    assert r"\notin \{f_{\varepsilon,\delta}" in shown.latex() and "witness: " in str(shown)


# -- is_member ----------------------------------------------------------------------------------
def test_randomised_response_is_f_eps_delta():
    """T(P, Q) of randomised response with e^eps = 2 is f_{log 2, 0} (Dong, Roth & Su, Prop. 3;
    the knots by Neyman-Pearson)."""
    rr = ta.Discrete([R(2, 3), R(1, 3)], [R(1, 3), R(2, 3)])
    v = ta.is_member(rr, ta.EpsDelta)
    assert v.status is True
    assert sp.simplify(sp.exp(v.counterexample["eps"]) - 2) == 0
    assert v.counterexample["delta"] == 0
    assert ta.is_member(RR2, ta.EpsDelta, alpha=x).status is True


def test_composition_is_not_f_eps_delta():
    """f_{log 2,0}^{(x) 2} = T((1/9, 4/9, 4/9), (4/9, 4/9, 1/9)): three pieces."""
    f = ta.EpsDelta(sp.log(2), 0) ** 2
    v = ta.is_not_member(f, ta.EpsDelta)
    assert v.status is True
    ce = v.counterexample
    ref = ta.PiecewiseLinear([(0, 1), (R(1, 9), R(5, 9)), (R(5, 9), R(1, 9)), (1, 0)])
    assert ta.evaluate(ref, ce["alpha"]).exact == ce["f"]
    cand = ta.EpsDelta(ce["eps"], ce["delta"])
    assert ta.evaluate(cand, ce["alpha"]).exact == ce["candidate"] != ce["f"]


def test_trivial_members():
    assert ta.is_member(ta.Id, ta.EpsDelta).status is True
    assert ta.is_member(ta.Zero, ta.EpsDelta).status is True
    assert ta.is_member(ta.Id, ta.G).status is True
    assert ta.is_member(ta.G(1) @ ta.G(1), ta.G).status is True  # G_sqrt(2)
    assert ta.is_member(ta.EpsDelta(1, R(1, 10)), "epsdelta").status is True


def _mpf(q):
    q = sp.Rational(q)
    return mp.mpf(q.p) / q.q


def _laplace(mu_, a):
    """L_mu(alpha) (Dong, Roth & Su, Prop. 7 / Eq. (7)), with the thread-private mpmath."""
    e = mp.exp(-mu_)
    if a < e / 2:
        return 1 - a / e
    if a <= mp.mpf(1) / 2:
        return e / (4 * a)
    return e * (1 - a)


@pytest.mark.parametrize("m", [R(1, 2), 1, 3])
def test_laplace_is_not_f_eps_delta(m):
    v = ta.is_not_member(ta.Laplace(m), ta.EpsDelta)
    assert v.status is True
    t1, t2 = v.counterexample["triples"]
    with mp.workdps(40):
        for X, Y, Z in (t1, t2):
            fx, fy, fz = (_laplace(_mpf(m), _mpf(p)) for p in (X, Y, Z))
            assert (Z - X) * fy < (Z - Y) * fx + (Y - X) * fz  # strictly below the chord
    assert t1[2] <= t2[0]


def test_gaussian_family():
    assert ta.is_member(ta.G(1), ta.EpsDelta).status is False
    v = ta.is_member(ta.EpsDelta(1, 0), ta.G)  # affine on [0, 1/(1 + e)]
    assert v.status is False
    v = ta.is_member(ta.Laplace(1), ta.G)
    assert v.status is False
    with mp.workdps(40):  # the candidate mu from L_1(1/2) = e^-1/2, compared at alpha
        a = v.counterexample["alpha"]
        half = _laplace(mp.mpf(1), mp.mpf(1) / 2)
        mu_c = -mp.sqrt(2) * mp.erfinv(2 * half - 1)  # Phi^{-1}(1 - f(1/2))
        g = mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * (_mpf(a)) - 1) - mu_c)
        assert abs(_laplace(mp.mpf(1), _mpf(a)) - g) > mp.mpf(10) ** -3
    assert ta.is_member((1 - x) ** 2, ta.G, alpha=x).status is False
    assert ta.is_member((1 - x) ** 2, ta.EpsDelta, alpha=x).status is False


def test_member_errors():
    with pytest.raises(ta.InvalidParameter, match="family"):
        ta.is_member(ta.G(1), "laplace")
    with pytest.raises(ta.InvalidParameter, match="free parameters"):
        ta.is_member(ta.G(sp.Symbol("mu", positive=True)), ta.G)


def test_pieces_must_cover_the_interval():
    v = ta.is_tradeoff(sp.Piecewise((1 - x, x < R(1, 2))), x)  # undefined on [1/2, 1]
    assert v.status is None and "cover" in v.evidence


def test_written_out_composition_is_not_f_eps_delta():
    """max{1 - 4x, 2/3 - x, (1 - x)/4} is f_{log 2,0}^{(x) 2} (knots (1/9, 5/9), (5/9, 1/9)):
    f(0) = 1 and the slope -4 leave f_{log 4, 0} as the only candidate."""
    f = sp.Max(1 - 4 * x, R(2, 3) - x, (1 - x) / 4)
    v = ta.is_member(f, ta.EpsDelta, alpha=x)
    assert v.status is False and v.method == "exact"
    a = v.counterexample["alpha"]
    assert f.subs(x, a) != ta.evaluate(ta.EpsDelta(sp.log(4), 0), a).exact
    assert f.subs(x, a) == v.counterexample["f"]


@pytest.mark.slow
def test_gaussian_closed_form_is_never_refuted():
    """G_1 written out is a member of {G_mu}: the candidate mu = 1 agrees everywhere, so the
    verdict is None (no exact proof of equality of two closed forms by values), never False."""
    v = ta.is_member(ta.Phi(ta.PhiInv(1 - x) - 1), ta.G, alpha=x)
    assert v.status is None
