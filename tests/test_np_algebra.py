"""The exact Neyman-Pearson references of proofs/np_algebra.py: the sorted-ratio knots agree
with the brute-force envelope of every test, the cross-checks confirm with certified
enclosures, and a wrong library value makes them fail."""

from __future__ import annotations

import random
from fractions import Fraction as Fr

import pytest

from proofs import np_algebra as npa
from proofs.drs import _hull_value, _np_points


def _random_pair(rng: random.Random, n: int) -> tuple[list[Fr], list[Fr]]:
    def dist():
        w = [Fr(rng.randint(0, 6)) for _ in range(n)]
        if not any(w):
            w[0] = Fr(1)
        s = sum(w)
        return [x / s for x in w]
    return dist(), dist()


@pytest.mark.parametrize("seed", range(12))
def test_knots_agree_with_every_test(seed):
    rng = random.Random(seed)
    P, Q = _random_pair(rng, rng.randint(2, 6))
    ks, pts = npa.knots(P, Q), _np_points(P, Q)
    for x in npa.LEVELS + [Fr(k, 37) for k in range(38)]:
        assert npa.at(ks, x) == _hull_value(pts, x)


def test_knots_of_a_pair_with_an_outcome_only_q_produces():
    ks = npa.knots([Fr(3, 4), Fr(1, 4)], [Fr(0), Fr(1)])  # max{0, 1 - 4 alpha}
    assert npa.at(ks, Fr(0)) == 1 and npa.at(ks, Fr(1, 8)) == Fr(1, 2)
    ks = npa.knots([Fr(0), Fr(1)], [Fr(3, 4), Fr(1, 4)])  # (1 - alpha)/4
    assert npa.at(ks, Fr(0)) == Fr(1, 4) and npa.at(ks, Fr(1, 2)) == Fr(1, 8)


def test_subsample_of_a_symmetric_pair_at_one_and_of_id():
    P, Q = (Fr(3, 4), Fr(1, 4)), (Fr(1, 4), Fr(3, 4))
    assert all(npa.at(npa.subsample_knots(P, Q, Fr(1)), x) == npa.at(npa.knots(P, Q), x)
               for x in npa.LEVELS)
    # C_{1/2} of randomised response with e^eps = 3 is the hull of min{f_p, f_p^-1}: at
    # alpha = 1/2 both mixtures give 3/8 + ... exactly the value of the mixed pair's tests
    M = npa.mixture(P, Q, Fr(1, 2))
    v = npa.at(npa.subsample_knots(P, Q, Fr(1, 2)), Fr(1, 2))
    assert v <= min(npa.at(npa.knots(P, M), Fr(1, 2)), npa.at(npa.knots(M, P), Fr(1, 2)))


def test_hockey_sum_is_the_profile():
    P, Q = (Fr(1, 2), Fr(1, 3), Fr(1, 6)), (Fr(1, 6), Fr(1, 3), Fr(1, 2))
    assert npa.hockey(P, Q, Fr(1)) == Fr(1, 3)   # total variation
    assert npa.hockey(P, Q, Fr(3)) == 0


CHECKS = ["inverse_np", "tv_np", "prop2_np", "tensor_unit_np", "tensor_inverse_np",
          "monoid_np", "eq10_np", "c1_np", "c_id_np", "eq15_np", "shuffle_lemma62_np",
          "composition_np", "tensor_monotone_np", "inverse_order_np", "subsample_order_np",
          "thm7_np"]


@pytest.mark.parametrize("name", CHECKS)
def test_cross_checks_confirm(name):
    chk = getattr(npa, name)()
    assert chk.status == "holds" and chk.certified, chk.evidence


@pytest.mark.parametrize("name", ["inverse_np", "tensor_unit_np", "c1_np"])
def test_a_wrong_library_value_fails(name, monkeypatch):
    real = npa._lib
    monkeypatch.setattr(npa, "_lib", lambda f, x: tuple(v + Fr(1, 1000) for v in real(f, x)))
    chk = getattr(npa, name)()
    assert chk.status == "fails" and "disjoint" in chk.evidence


def test_garbling_is_post_processing():
    """A Markov kernel never separates a pair more (Blackwell): the garbled pair's trade-off
    lies above, and the identity kernel changes nothing."""
    for (g, h) in npa._garbled_pairs():
        kg, kh = npa.knots(*g), npa.knots(*h)
        assert all(npa.at(kg, x) >= npa.at(kh, x) for x in npa.LEVELS)
    P = (Fr(1, 2), Fr(1, 3), Fr(1, 6))
    eye = [[Fr(int(i == j)) for j in range(3)] for i in range(3)]
    assert npa.garble(P, eye) == list(P)
