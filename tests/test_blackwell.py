"""Blackwell's theorem on finite pairs (proofs/blackwell.py): exact kernels where the order
holds, none where it fails, the order decided exactly at the knots."""

from __future__ import annotations

from fractions import Fraction as Fr

from proofs import blackwell as bw
from proofs.np_algebra import garble

P3 = ((Fr(1, 2), Fr(1, 3), Fr(1, 6)), (Fr(1, 6), Fr(1, 3), Fr(1, 2)))


def test_a_garbling_has_an_exact_kernel():
    K0 = ((Fr(2, 3), Fr(1, 3)), (Fr(1, 5), Fr(4, 5)), (Fr(0), Fr(1)))
    P2, Q2 = garble(P3[0], K0), garble(P3[1], K0)
    K = bw.find_kernel(*P3, P2, Q2)
    assert K is not None
    assert garble(P3[0], K) == P2 and garble(P3[1], K) == Q2
    assert all(k >= 0 for row in K for k in row) and all(sum(row) == 1 for row in K)
    assert bw.ordered((tuple(P2), tuple(Q2)), P3) == (True, None)


def test_a_more_separated_pair_is_not_ordered_and_has_no_kernel():
    E = Fr(4)
    rr = ((E / (1 + E), 1 / (1 + E)), (1 / (1 + E), E / (1 + E)))
    ok, alpha = bw.ordered(rr, P3)
    assert not ok and 0 <= alpha <= 1
    assert bw.find_kernel(*P3, *rr) is None


def test_the_instances_all_hold():
    assert all(ok for _, ok in bw.blackwell_checks())
    assert bw.blackwell_check().certified
