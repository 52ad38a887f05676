"""Mixture bounds of Wang, Su, Ye, Shokri & Su (tradeoff_algebra.bounds.mixtures and
tradeoff_algebra.bounds.initialisation), each against an independent computation: brute-force
Neyman--Pearson over all tests of small finite pairs, mpmath root finding and quadrature for the
Gaussian and the continuous joint pairs, exact rational arithmetic for Prop. 6.4 and Lemma 6.3.
"""

from __future__ import annotations

import itertools
import pickle
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from references.hull import monotone_chain

import tradeoff_algebra as ta
from tradeoff_algebra.bounds.initialisation import DPGDInit, dpgd_random_init
from tradeoff_algebra.bounds.mixtures import (
    PROP64_COUNTEREXAMPLE,
    GaussianJoint,
    advanced_joint_concavity,
    joint_concavity,
    mixture_pair,
    prop64_bound,
    prop64_printed,
    shuffle_mixture,
)
from tradeoff_algebra.numeric.knots import pl_eval, pl_knots

S = sp.Rational


def _rand_dist(rng: random.Random, k: int) -> list:
    xs = [rng.randint(0, 6) for _ in range(k)]
    if sum(xs) == 0:
        xs[rng.randrange(k)] = 1
    return [S(x, sum(xs)) for x in xs]


def _brute_np(P, Q) -> list[tuple[Fraction, Fraction]]:
    """The lower convex hull of (P(R), 1 - Q(R)) over every rejection set R (all deterministic
    tests; randomised tests fill the hull): T(P, Q) by definition, independent of the
    library's Neyman--Pearson ordering."""
    P = [Fraction(int(p.p), int(p.q)) for p in P]
    Q = [Fraction(int(q.p), int(q.q)) for q in Q]
    pts = set()
    for R in itertools.product((0, 1), repeat=len(P)):
        pts.add((sum(p for p, r in zip(P, R, strict=True) if r),
                 1 - sum(q for q, r in zip(Q, R, strict=True) if r)))
    hull = monotone_chain(sorted(pts))
    # the trade-off function is the non-increasing part (f(alpha) = inf over alpha_phi <= alpha)
    out = [hull[0]]
    for x, y in hull[1:]:
        out.append((x, min(y, out[-1][1])))
    return out


def _hull_eval(h, x: Fraction) -> Fraction:
    for (x1, y1), (x2, y2) in zip(h, h[1:], strict=False):
        if x1 <= x <= x2:
            return y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    return h[-1][1]


def _fr(x) -> Fraction:
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


# -- Lemma 3.1: the finite joint pair --------------------------------------------------------------
def test_finite_joint_below_mixture_and_brute_force():
    rng = random.Random(31)
    for _ in range(40):
        m, k = rng.randint(2, 3), rng.randint(2, 3)
        ws = _rand_dist(rng, m)
        if 0 in ws:
            continue
        pairs = [(_rand_dist(rng, k), _rand_dist(rng, k)) for _ in range(m)]
        mix = mixture_pair(ws, pairs)
        joint = joint_concavity(ws, pairs)
        assert isinstance(joint, ta.Discrete)
        # the mixture's curve against brute force over all tests of the mixture
        brute = _brute_np(mix.P, mix.Q)
        kn_mix, kn_joint = pl_knots(mix), pl_knots(joint)
        xs = sorted({_fr(x) for x, _ in kn_mix} | {_fr(x) for x, _ in kn_joint}
                    | {x for x, _ in brute})
        for x in xs:
            X = S(x.numerator, x.denominator)
            vm, vj = _fr(pl_eval(kn_mix, X)), _fr(pl_eval(kn_joint, X))
            assert vm == _hull_eval(brute, x)
            assert vj <= vm  # Lemma 3.1
        # the joint pair against brute force on the (i, x) outcomes
        bj = _brute_np(joint.P, joint.Q)
        for x, y in bj:
            assert _fr(pl_eval(kn_joint, S(x.numerator, x.denominator))) == y


def test_finite_joint_equality_cases():
    # equal likelihood ratios in both components: the index is uninformative (Prop. 6.1,
    # corrected condition) and Lemma 3.1 is an equality
    P, Q = [S(1, 2), S(1, 3), S(1, 6)], [S(1, 6), S(1, 3), S(1, 2)]
    ws = [S(1, 3), S(2, 3)]
    same = [(P, Q), (P, Q)]
    assert ta.verify(joint_concavity(ws, same), "==", mixture_pair(ws, same)).status is True
    # disjoint supports: the index is a function of the outcome, also an equality
    P1, Q1 = [S(1, 2), S(1, 2), 0, 0], [S(1, 4), S(3, 4), 0, 0]
    P2, Q2 = [0, 0, S(1, 3), S(2, 3)], [0, 0, S(2, 3), S(1, 3)]
    j = joint_concavity(ws, [(P1, Q1), (P2, Q2)])
    mx = mixture_pair(ws, [(P1, Q1), (P2, Q2)])
    assert ta.verify(j, "==", mx).status is True
    # strict somewhere in general (the audit's instance: 19/24 against 3/4 at alpha = 1/8)
    ws2 = [S(1, 2), S(1, 2)]
    pairs = [([S(1, 2), S(1, 2)], [S(1, 4), S(3, 4)]), ([S(3, 4), S(1, 4)], [S(1, 2), S(1, 2)])]
    assert ta.evaluate(mixture_pair(ws2, pairs), S(1, 8)).exact == S(19, 24)
    assert ta.evaluate(joint_concavity(ws2, pairs), S(1, 8)).exact == S(3, 4)
    # Discrete nodes as components
    assert joint_concavity(ws2, [ta.Discrete(*p) for p in pairs]) == joint_concavity(ws2, pairs)


# -- GaussianJoint ---------------------------------------------------------------------------------
def _gj_reference(ws, mus, alpha, dps=45):
    """The joint curve by mpmath's own root finder on alpha(s) = sum_i w_i Phi(-t_i)."""
    with mpmath.workdps(dps):
        ws = [mpmath.mpf(w.p) / w.q if isinstance(w, sp.Rational) else mpmath.mpf(w) for w in ws]
        ms = [abs(mpmath.mpf(m)) for m in mus]
        al = mpmath.mpf(alpha)

        def A(s):
            return sum(w * mpmath.ncdf(-(s / m + m / 2)) for w, m in zip(ws, ms, strict=True))

        s = mpmath.findroot(lambda s: mpmath.log(A(s)) - mpmath.log(al), 0.1, tol=1e-40)
        return sum(w * mpmath.ncdf(s / m + m / 2 - m) for w, m in zip(ws, ms, strict=True))


@pytest.mark.parametrize("alpha", ["0.001", "0.05", "0.3", "0.5", "0.8", "0.97"])
def test_gaussian_joint_against_mpmath(alpha):
    ws, mus = [S(1, 4), S(1, 4), S(1, 2)], [S(1, 2), -2, 1]
    f = GaussianJoint(ws, mus)
    v = ta.evaluate(f, alpha, dps=30)
    ref = _gj_reference(ws, mus, alpha)
    with mpmath.workdps(45):
        assert abs(mpmath.mpf(v.mid) - ref) <= mpmath.mpf(10) ** -29 * ref
        assert v.lo <= ref + mpmath.mpf(10) ** -31 and ref - mpmath.mpf(10) ** -31 <= v.hi
    # the power, without cancellation
    r = ta.roc(f, alpha, dps=30)
    with mpmath.workdps(45):
        assert abs(mpmath.mpf(r.mid) - (1 - ref)) <= mpmath.mpf(10) ** -29


def test_gaussian_joint_identities():
    f = GaussianJoint([S(1, 3), S(2, 3)], [S(3, 2), S(-3, 2)])  # equal |mu|: G_{3/2}
    for a in ("1e-20", "0.2", "0.7"):
        # (a certified point carries its dps digits: compare with its guaranteed interval)
        lo, hi = ta.evaluate(f, a, dps=25).interval()
        assert lo <= ta.evaluate(ta.G(S(3, 2)), a, dps=40).mid <= hi
    # an Id component adds the segment of slope -1 at s = 0 (exact linear piece)
    g = GaussianJoint([S(1, 2), S(1, 2)], [1, 0])
    with mpmath.workdps(40):
        a0 = mpmath.ncdf(-0.5) / 2           # alpha at s = 0+
        b0 = mpmath.ncdf(-0.5) / 2 + mpmath.mpf(1) / 2
    v = ta.evaluate(g, "0.4", dps=25)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(v.mid) - (b0 - (mpmath.mpf("0.4") - a0))) < mpmath.mpf(10) ** -24
    # above G of the largest |mu| (a joint pair with smaller means is less distinguishable)
    for a in ("0.01", "0.3"):
        gj = GaussianJoint([S(1, 2), S(1, 2)], [1, 2])
        assert ta.evaluate(gj, a).lo > ta.evaluate(ta.G(2), a).hi
    # extreme levels keep relative accuracy
    r = ta.roc(GaussianJoint([S(1, 2), S(1, 2)], [1, 2]), "1e-300", dps=20)
    assert 0 < r.lo <= r.hi < 1e-250


def test_gaussian_joint_delta_is_average():
    ws, mus = [S(1, 5), S(4, 5)], [1, 3]
    f = GaussianJoint(ws, mus)
    for eps in (0, S(1, 2), 2):
        d = ta.delta(f, eps, dps=30)
        with mpmath.workdps(45):
            # hockey-stick by quadrature, per component: int (q - e^eps p)_+ dx
            e = mpmath.exp(mpmath.mpf(eps.p) / eps.q if isinstance(eps, sp.Rational) else eps)
            tot = 0
            for w, m in zip(ws, mus, strict=True):
                x0 = (mpmath.log(e) + mpmath.mpf(m) ** 2 / 2) / m  # q > e p iff x > x0
                tot += (mpmath.mpf(w.p) / w.q) * mpmath.quad(
                    lambda x, m=m, e=e: mpmath.npdf(x, m, 1) - e * mpmath.npdf(x), [x0, mpmath.inf])
            assert abs(mpmath.mpf(d.mid) - tot) <= mpmath.mpf(10) ** -28


def test_joint_concavity_gaussian_components():
    f = joint_concavity([S(1, 2), S(1, 2)], [ta.G(1), ta.G(2)])
    assert f == GaussianJoint([S(1, 2), S(1, 2)], [1, 2])


# -- DP-GD with random initialisation --------------------------------------------------------------
def _dpgd_reference(a, c, alpha, dps=22):
    """Thm. 5.1 with mu_I = min(|a - I|, c) by mpmath quadrature (breakpoints at a - c, a,
    a + c) and mpmath's root finder."""
    with mpmath.workdps(dps):
        a, c, al = mpmath.mpf(a), mpmath.mpf(c), mpmath.mpf(alpha)
        pts = [-mpmath.inf, a - c, a, a + c, mpmath.inf]

        def E(h, s):
            def g(i):
                m = min(abs(a - i), c)
                return (h(s, m) if m > 0 else h(s, mpmath.mpf(0))) * mpmath.npdf(i)
            return mpmath.quad(g, pts)

        def hA(s, m):
            return mpmath.ncdf(-(s / m + m / 2)) if m > 0 else (0 if s > 0 else 1)

        def hB(s, m):
            return mpmath.ncdf(s / m - m / 2) if m > 0 else (1 if s > 0 else 0)

        s = mpmath.findroot(lambda s: E(hA, s) - al, 0.2, tol=1e-20)
        return E(hB, s)


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_dpgd_enclosure_contains_quadrature():
    f = dpgd_random_init(1, 1)
    v = ta.evaluate(f, "0.3", dps=30)
    assert v.guarantee == "certified" and v.lo <= v.hi and v.width < 1e-28  # Arb
    ref = _dpgd_reference(1, 1, "0.3")
    with mpmath.workdps(30):
        assert v.lo - mpmath.mpf(10) ** -18 <= ref <= v.hi + mpmath.mpf(10) ** -18
        assert abs(mpmath.mpf(v.mid) - ref) < mpmath.mpf(10) ** -18
    # Fig. 2: above the c-GDP curve without random initialisation
    for a in ("0.01", "0.3", "0.7"):
        assert ta.evaluate(f, a, dps=15).lo > ta.evaluate(f.gdp_without_initialisation(), a).hi
    # the power and the profile
    r = ta.roc(f, "0.3", dps=20)
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(r.mid) - (1 - ref)) < mpmath.mpf(10) ** -18
    d = ta.delta(f, 1, dps=20)
    assert 0 < d.lo <= d.hi < ta.delta(ta.G(1), 1, dps=20).lo


def test_dpgd_low_precision_is_tight():
    # (its time is measured by benchmarks/bench_speed_claims.py: tests assert no times)
    f = DPGDInit(1, 2)
    v = ta.evaluate(f, "0.1", dps=10)
    assert v.width <= 1e-9


# -- Prop. 6.4 -------------------------------------------------------------------------------------
def test_prop64_counterexample_exact():
    P0, Q0, w, a, t_val, printed = PROP64_COUNTEREXAMPLE
    T = shuffle_mixture(P0, Q0, w)
    assert T.P == sp.Tuple(S(353, 630), S(233, 1260), S(107, 420))
    assert ta.evaluate(T, a).exact == t_val == S(4457, 28240)
    assert ta.evaluate(prop64_printed(P0, Q0, w), a).exact == printed == S(10573, 65520)
    assert t_val < printed
    assert ta.verify(T, ">=", prop64_printed(P0, Q0, w)).status is False
    assert ta.verify(T, ">=", prop64_bound(P0, Q0, w)).status is True
    assert ta.Discrete(P0, Q0).is_symmetric is False


def test_prop64_corrected_on_random_exact_instances():
    rng = random.Random(64)
    printed_fails = 0
    for _ in range(60):
        k = rng.randint(2, 4)
        P0, Q0 = _rand_dist(rng, k), _rand_dist(rng, k)
        w = S(rng.randint(0, 10), 20)
        T = pl_knots(shuffle_mixture(P0, Q0, w))
        B = pl_knots(prop64_bound(P0, Q0, w))
        xs = sorted({x for x, _ in T} | {x for x, _ in B})
        assert all(pl_eval(T, x) >= pl_eval(B, x) for x in xs)
        Bp = pl_knots(prop64_printed(P0, Q0, w))
        xs = sorted({x for x, _ in T} | {x for x, _ in Bp})
        printed_fails += any(pl_eval(T, x) < pl_eval(Bp, x) for x in xs)
    assert printed_fails > 0  # the printed statement needs a symmetric T(P0, Q0)
    # for a symmetric pair the corrected bound is the printed one
    P0, Q0 = [S(1, 10), S(1, 2), S(2, 5)], [S(2, 5), S(1, 2), S(1, 10)]
    assert prop64_bound(P0, Q0, S(1, 5)) == prop64_printed(P0, Q0, S(1, 5))


# -- Lemma 6.3 -------------------------------------------------------------------------------------
def test_lemma63_audit_instances():
    # general part: the audit's counterexample to the printed cross terms; corrected bound
    # touches T(P, Q) at alpha = 19/75
    P1, Q1, P2, Q2 = [S(1, 3), S(2, 3)], [S(2, 3), S(1, 3)], [S(1, 5), S(4, 5)], [S(4, 5), S(1, 5)]
    w, g, e = S(3, 5), S(1, 2), S(9, 10)
    B = advanced_joint_concavity(P1, Q1, P2, Q2, w, g, e)
    T = mixture_pair([1 - w, w], [(P1, Q1), (P2, Q2)])
    assert ta.evaluate(T, S(19, 75)).exact == S(19, 75)
    assert ta.evaluate(B, S(19, 75)).exact == S(19, 75)
    assert ta.verify(T, ">=", B).status is True
    # gamma = eta = w: the corrected bound equals T(P, Q) on the audit's instance
    P1, Q1, P2, Q2 = [S(1, 7), S(6, 7)], [S(6, 7), S(1, 7)], [S(3, 7), S(4, 7)], [S(4, 7), S(3, 7)]
    B = advanced_joint_concavity(P1, Q1, P2, Q2, S(1, 2))
    T = mixture_pair([S(1, 2), S(1, 2)], [(P1, Q1), (P2, Q2)])
    assert ta.verify(T, "==", B).status is True


def test_lemma63_random_exact_instances():
    rng = random.Random(63)
    for _ in range(40):
        k = rng.randint(2, 3)
        P1, P2 = _rand_dist(rng, k), _rand_dist(rng, k)
        Q1, Q2 = P1[::-1], P2[::-1]  # symmetric components (mirror pairs)
        w = S(rng.randint(1, 9), 10)
        g = w * S(rng.randint(0, 9), 10)
        e = w + (1 - w) * S(rng.randint(1, 10), 10)
        T = pl_knots(mixture_pair([1 - w, w], [(P1, Q1), (P2, Q2)]))
        for B in (advanced_joint_concavity(P1, Q1, P2, Q2, w, g, e),
                  advanced_joint_concavity(P1, Q1, P2, Q2, w)):
            kn = pl_knots(B)
            xs = sorted({x for x, _ in T} | {x for x, _ in kn})
            assert all(pl_eval(T, x) >= pl_eval(kn, x) for x in xs)


# -- nodes and bad inputs --------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    GaussianJoint([S(1, 3), S(2, 3)], [1, S(-1, 2)]),
    GaussianJoint([sp.Symbol("p", nonnegative=True), 1 - sp.Symbol("p", nonnegative=True)],
                  [sp.Symbol("mu", nonnegative=True), 2]),
    DPGDInit(1, 2, S(1, 2)),
    DPGDInit(sp.Symbol("m"), sp.Symbol("mu", nonnegative=True) + 1, 1),
])
def test_node_contract(expr):
    assert expr.func(*expr.args) == expr
    assert eval(sp.srepr(expr), {**vars(sp), "GaussianJoint": GaussianJoint,  # noqa: S307
                                 "DPGDInit": DPGDInit}) == expr
    assert pickle.loads(pickle.dumps(expr)) == expr
    tex = ta.latex(expr)
    assert tex.count(r"\left") == tex.count(r"\right")
    assert str(expr).startswith(type(expr).__name__ + "(")
    assert expr.is_symmetric is True


@pytest.mark.parametrize("call, name", [
    (lambda: GaussianJoint([S(1, 2), S(1, 3)], [1, 2]), "weights"),
    (lambda: GaussianJoint([S(-1, 2), S(3, 2)], [1, 2]), "weights[0]"),
    (lambda: GaussianJoint([S(1, 2), S(1, 2)], [1]), "mus"),
    (lambda: GaussianJoint([S(1, 2), S(1, 2)], [1, "x"]), "mus[1]"),
    (lambda: DPGDInit(1, 0), "c"),
    (lambda: DPGDInit(1, 1, -1), "sigma"),
    (lambda: DPGDInit(sp.oo, 1), "a"),
    (lambda: joint_concavity([S(1, 2), S(1, 2)], [ta.G(1), ([1], [1])]), "pairs"),
    (lambda: joint_concavity([1], [ta.Id]), "pairs[0]"),
    (lambda: mixture_pair([S(1, 2), S(1, 2)], [([1, 0], [0, 1]), ([1], [1])]), "pairs[1]"),
    (lambda: prop64_bound([1, 0], [0, 1], S(3, 5)), "w"),
    (lambda: advanced_joint_concavity([1, 0], [0, 1], [1, 0], [0, 1], S(1, 2), S(3, 5), 1),
     "gamma"),
    (lambda: advanced_joint_concavity([1, 0], [0, 1], [1, 0], [0, 1], S(1, 2), 0, S(1, 2)),
     "eta"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ta.InvalidParameter) as exc:
        call()
    assert exc.value.name == name
