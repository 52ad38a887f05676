"""Mechanisms with exact output laws (analysis/finite_mechanism.py), each operation against an
independent reference: brute-force Neyman-Pearson over every deterministic test, hand-written
laws of subsampled randomized response, products of laws, Hamming distances."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import finite_mechanism as fm
from tradeoff_algebra.analysis.sensitivity import dataset_distance
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.numeric.arb import arb_exact
from tradeoff_algebra.numeric.context import arb_precision, mp

R = sp.Rational


def _brute_np(P: dict, Q: dict, alpha: F) -> F:
    """T(P, Q)(alpha) by brute force: the lower convex hull of (P(A), 1 - Q(A)) over every
    subset A of the outcomes (randomised tests are the convex combinations), at alpha."""
    keys = sorted(set(P) | set(Q), key=repr)
    pts = []
    for r in range(len(keys) + 1):
        for A in itertools.combinations(keys, r):
            pts.append((sum((P.get(y, F(0)) for y in A), F(0)),
                        1 - sum((Q.get(y, F(0)) for y in A), F(0))))
    best = None
    for (a1, b1), (a2, b2) in itertools.product(pts, repeat=2):
        if a1 <= alpha <= a2:
            v = b1 if a1 == a2 else b1 + (b2 - b1) * (alpha - a1) / (a2 - a1)
            best = v if best is None else min(best, v)
    return best


def _pl_at(knots, a: F) -> F:
    for (a1, b1), (a2, b2) in zip(knots, knots[1:], strict=False):
        if a1 <= a <= a2:
            return b1 if a1 == a2 else b1 + (b2 - b1) * (a - a1) / (a2 - a1)
    raise AssertionError(a)


def _T(M, S, S2):
    """T(M(S), M(S2)): the library's exact pair of the two output laws."""
    return ta.Discrete(*M.pair(S, S2))


LEVELS = [F(0), F(1, 7), F(1, 3), F(1, 2), F(5, 6), F(1)]


def test_np_knots_against_brute_force_and_discrete():
    M = fm.random_mechanism((0, 1, 2), 1, "abcd", seed=21, zeros=True)
    for S, S2 in M.neighbours():
        P, Q = M(S), M(S2)
        kn = fm.np_knots(P, Q)
        for a in LEVELS:
            assert _pl_at(kn, a) == _brute_np(P, Q, a)
            want = _brute_np(P, Q, a)
            assert ta.evaluate(_T(M, S, S2), R(a.numerator, a.denominator)).exact == \
                R(want.numerator, want.denominator)


def _rr(bits, E=3):
    keep = F(E, 1 + E)
    law = {0: F(1)}
    for b in bits:
        one = keep if b else 1 - keep
        new: dict = {}
        for k, w in law.items():
            new[k] = new.get(k, F(0)) + w * (1 - one)
            new[k + 1] = new.get(k + 1, F(0)) + w * one
        law = new
    return {k: w for k, w in law.items() if w}


def test_subsample_against_hand_written_laws():
    """Randomized-response count (symmetric in its records): both orders give the average of
    the laws over the C(n, m) subsets, written out by hand."""
    for n, m in [(3, 1), (3, 2), (4, 2)]:
        M = fm.FiniteMechanism((0, 1), m, _rr, "rr")
        for order in ("kept", "random"):
            sub = fm.subsample(M, n, order)
            for S in itertools.product((0, 1), repeat=n):
                want: dict = {}
                subsets = list(itertools.combinations(range(n), m))
                for idx in subsets:
                    for k, w in _rr([S[i] for i in idx]).items():
                        want[k] = want.get(k, F(0)) + w / len(subsets)
                assert sub(S) == want


def test_thm9_needs_the_random_order():
    """With the positions' order kept, an order-dependent M is not C_{m/n}(f)-DP: the
    counterexample the registry names (seed 13, {0,1}^2, n = 3); in random order it is."""
    M = fm.random_mechanism((0, 1), 2, "abc", 13)
    g = ta.C(R(2, 3), ta.PiecewiseLinear(fm.envelope(M)))
    S, S2 = (0, 0, 1), (1, 0, 1)
    kept = fm.subsample(M, 3, "kept")
    assert ta.evaluate(_T(kept, S, S2), R(5, 28)).exact == R(64, 105)
    assert ta.evaluate(g, R(5, 28)).exact == R(37, 60)
    assert ta.verify(_T(kept, S, S2), ">=", g).status is False
    rand = fm.subsample(M, 3)
    assert all(ta.verify(_T(rand, A, B), ">=", g).status is True
               for A, B in rand.neighbours())


def test_adaptive_law_is_the_product_of_the_conditionals():
    M1 = fm.random_mechanism((0, 1), 2, "ab", 1)
    steps = {"a": fm.random_mechanism((0, 1), 2, "xy", 2),
             "b": fm.random_mechanism((0, 1), 2, "xyz", 3)}
    C = fm.adaptive(M1, steps.__getitem__)
    for S in C.datasets():
        law = C(S)
        assert sum(law.values()) == 1
        for y1, w1 in M1(S).items():
            marg = sum(w for (a, _), w in law.items() if a == y1)
            assert marg == w1
            for y2, w2 in steps[y1](S).items():
                assert law[(y1, y2)] == w1 * w2


def test_non_adaptive_composition_is_the_tensor_of_the_pairs():
    """A second step that ignores the first output: T of the joint laws is T(P1, Q1) (x)
    T(P2, Q2) (Def. 5), the library's product of two finite pairs."""
    A = fm.random_mechanism((0, 1), 1, "ab", 4)
    B = fm.random_mechanism((0, 1), 1, "xyz", 5)
    C = fm.adaptive(A, lambda y: B)
    for S, S2 in C.neighbours():
        joint = _T(C, S, S2)
        assert ta.verify(joint, "==", _T(A, S, S2) @ _T(B, S, S2)).status is True


def test_adaptive_chain_three_steps():
    M1 = fm.random_mechanism((0, 1), 1, "ab", 6)
    M2 = fm.random_mechanism((0, 1), 1, "xy", 7)
    M3 = fm.random_mechanism((0, 1), 1, "uv", 8)
    ch = fm.adaptive_chain(M1, [lambda ys: M2, lambda ys: M3])
    for S in ch.datasets():
        law = ch(S)
        for (a, b, c), w in law.items():
            assert w == M1(S)[a] * M2(S)[b] * M3(S)[c]


def test_post_process_law_and_lemma_1():
    M = fm.random_mechanism((0, 1, 2), 1, "abc", 9)
    K = fm.random_kernel("abc", "uv", 10)
    N = fm.post_process(M, K)
    for S in N.datasets():
        for z in "uv":
            assert N(S).get(z, F(0)) == sum(M(S)[y] * K(y).get(z, F(0)) for y in M(S))
    for S, S2 in N.neighbours():  # post-processing never lowers the trade-off
        assert ta.verify(_T(N, S, S2), ">=", _T(M, S, S2)).status is True
    ident = fm.post_process(M, lambda y: {y: 1})
    assert all(ident(S) == M(S) for S in M.datasets())


@pytest.mark.parametrize("universe,size,k", [((0, 1), 3, 2), ((0, 1, 2), 2, 2),
                                             ((0, 1), 3, 1), ((0, 1), 3, 3)])
def test_group_pairs_against_hamming_distance(universe, size, k):
    """Chains of k neighbours reach the pairs at Hamming distance d <= k with k - d even (two
    records) or every d <= k (three or more records can step aside)."""
    got = set(fm.group_pairs(universe, size, k))
    want = set()
    for S, S2 in itertools.product(itertools.product(universe, repeat=size), repeat=2):
        d = dataset_distance(S, S2, "replace")
        if 0 < d <= k and (len(universe) > 2 or (k - d) % 2 == 0):
            want.add((S, S2))
    assert got == want
    if k == 1:
        assert got == set(fm.neighbours(universe, size))


def test_envelope_is_the_symmetric_hull_for_one_record():
    """On {0, 1}^1 the neighbours are (0, 1) and (1, 0): the envelope is
    min{T(P, Q), T(Q, P)}^{**} = C(T(P, Q)) (the library's symmetric hull)."""
    for seed in (11, 12, 13):
        M = fm.random_mechanism((0, 1), 1, "abc", seed)
        f = ta.PiecewiseLinear(fm.envelope(M))
        assert ta.verify(f, "==", ta.SymmetricHull(_T(M, (0,), (1,)))).status is True


def test_envelope_is_a_guarantee_and_attained():
    M = fm.random_mechanism((0, 1, 2), 2, "abc", 14)
    f = ta.PiecewiseLinear(fm.envelope(M))
    assert all(ta.verify(_T(M, S, S2), ">=", f).status is True
               for S, S2 in M.neighbours())
    # each knot of the hull is a knot of some pair: the envelope cannot be raised there
    kn = fm.envelope(M)
    pair_knots = {k for S, S2 in M.neighbours() for k in fm.np_knots(M(S), M(S2))}
    assert all(k in pair_knots or k == (F(1), F(0)) for k in kn)


def test_random_mechanism_is_seeded():
    a = fm.random_mechanism((0, 1), 2, "ab", 3)
    b = fm.random_mechanism((0, 1), 2, "ab", 3)
    assert all(a(S) == b(S) for S in a.datasets())
    assert all(sum(a(S).values()) == 1 for S in a.datasets())


def test_errors_name_the_parameter():
    ok = {0: F(1)}
    with pytest.raises(InvalidParameter, match="universe"):
        fm.FiniteMechanism((0, 0), 1, lambda S: ok)
    with pytest.raises(InvalidParameter, match="size"):
        fm.FiniteMechanism((0, 1), 0, lambda S: ok)
    with pytest.raises(InvalidParameter, match="size"):
        fm.FiniteMechanism((0, 1), 13, lambda S: ok)
    M = fm.FiniteMechanism((0, 1), 1, lambda S: {0: F(1, 2), 1: F(1, 3)})
    with pytest.raises(InvalidParameter, match="summing to exactly 1"):
        M((0,))
    with pytest.raises(InvalidParameter, match="exact rational"):
        fm.FiniteMechanism((0, 1), 1, lambda S: {0: 0.5, 1: 0.5})((0,))
    with pytest.raises(InvalidParameter, match="data"):
        fm.FiniteMechanism((0, 1), 1, lambda S: ok)((2,))
    with pytest.raises(InvalidParameter, match="'n'|n"):
        fm.subsample(fm.FiniteMechanism((0, 1), 2, lambda S: ok), 1)
    with pytest.raises(InvalidParameter, match="order"):
        fm.subsample(fm.FiniteMechanism((0, 1), 1, lambda S: ok), 2, order="sorted")
    with pytest.raises(InvalidParameter, match="k"):
        fm.group_pairs((0, 1), 2, 0)
    with pytest.raises(InvalidParameter, match="second"):
        fm.adaptive(fm.FiniteMechanism((0, 1), 1, lambda S: ok),
                    lambda y: fm.FiniteMechanism((0, 1), 2, lambda S: ok))((0,))


def test_mixture_np_of_two_normals_is_g_mu():
    """The Arb Neyman-Pearson enclosure of the proofs (Thm. 10) on one component each side:
    T(N(0, s^2), N(d, s^2)) = G_{d/s}, against the library's certified G_mu."""
    from proofs.mechanism_objects import mixture_np

    for d, s, a in [(F(1), F(1), R(1, 10)), (F(-3, 2), F(1, 2), R(1, 2)),
                    (F(1, 3), F(2), R(9, 10))]:
        with arb_precision(128):
            ball = mixture_np({F(0): F(1)}, {d: F(1)}, s, a)
        v = ta.evaluate(ta.G(R(abs(d.numerator), d.denominator) / R(s.numerator, s.denominator)),
                        a, 30)
        assert v.guarantee in ("exact", "certified")
        with mp.workdps(40):
            lo, hi = v.interval()
        with arb_precision(128):
            assert ball.overlaps(arb_exact(lo).union(arb_exact(hi)))
        assert ball.rad() < 1e-20  # narrow: 80 bisections of the threshold


def test_laws_outputs_and_alignment():
    M = fm.FiniteMechanism((0, 1), 1, lambda S: {"a": R(1, 3), "b": R(2, 3), "c": 0}
                           if S == (0,) else {"c": F(1)})
    assert M((0,)) == {"a": F(1, 3), "b": F(2, 3)}  # SymPy rationals read exactly, 0 dropped
    assert M.outputs() == ["a", "b", "c"]
    P, Q = M.pair((0,), (1,))
    assert (P, Q) == ([F(1, 3), F(2, 3), F(0)], [F(0), F(0), F(1)])
    assert ta.verify(ta.Discrete(P, Q), "==", ta.Zero).status is True  # disjoint supports
    with pytest.raises(InvalidParameter, match="y"):
        fm.random_kernel("ab", "uv", 1)("z")


def test_mixture_np_against_the_gaussian_mixture_family():
    """Algorithm 1's output laws (n = 3, m = 1, S = (0, 0, 2), S' = (0, 0, -3), sigma = 1:
    2/3 N(0, 1) + 1/3 N(+-1/2, 1)) by the Arb Neyman-Pearson enclosure of the proofs, against
    the library's GaussianMixturePair (its own root isolation; an estimate at these points, so
    evidence to 12 digits only)."""
    from proofs.mechanism_objects import mixture_np, noisy_sgd_law

    (P, s), (Q, _) = (noisy_sgd_law(D, 1, 0, R(1, 2), 1, 1) for D in ((0, 0, 2), (0, 0, -3)))
    assert (P, Q, s) == ({F(0): F(2, 3), F(1, 2): F(1, 3)}, {F(0): F(2, 3), F(-1, 2): F(1, 3)},
                         F(1))
    g = ta.GaussianMixturePair([R(2, 3), R(1, 3)], [0, R(1, 2)], [0, R(-1, 2)])
    for a in (R(1, 4), R(1, 2), R(3, 4)):
        with arb_precision(128):
            ball = mixture_np(P, Q, s, a)
        est = ta.evaluate(g, a, 20)
        assert abs(float(ball.mid()) - float(est)) < 1e-12


def test_mixture_np_refuses_an_unordered_pair():
    """The threshold test is optimal only for ordered mixing laws (B <= A <= D)."""
    from proofs.mechanism_objects import mixture_np

    P = {F(0): F(1, 2), F(2): F(1, 2)}
    Q = {F(1): F(1)}
    with arb_precision(64), pytest.raises(ValueError, match="not ordered"):
        mixture_np(P, Q, F(1), R(1, 2))
