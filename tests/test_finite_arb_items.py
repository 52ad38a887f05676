"""Arb balls of the atoms of a finite product (numeric.finite: FiniteLoss.arb_items, the
'arb' mode of numeric.finite_tables) and the certified hockey-stick sums they give
(FiniteValues.arb_delta): delta of f_{eps,delta}^{(x) k} with irrational e^eps, Dwork &
Roth's advanced composition (Thm. 4.1). References: the exact rational route where e^eps is
rational, and Kairouz et al.'s binomial sum formed here in mpmath at 80 digits,
delta = D + (1 - D) sum_k C(k, j) (q^j p^(k-j) - e^eps' p^j q^(k-j))_+ with
p = 1/(1 + e^eps), q = 1 - p, 1 - D = (1 - delta)^k (Dong, Roth & Su, Eq. (11))."""

from __future__ import annotations

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import FiniteLoss, finite_loss

R = sp.Rational


def _kairouz(eps, d, k, eps_p):
    with mp.workdps(80):
        E = mp.exp(eps)
        p = 1 / (1 + E)
        q = 1 - p
        s = mp.mpf(0)
        for j in range(k + 1):
            t = mp.binomial(k, j) * (q**j * p**(k - j) - mp.exp(eps_p) * p**j * q**(k - j))
            s += max(t, 0)
        D = 1 - (1 - d) ** k
        return D + (1 - D) * s


def test_arb_items_match_the_exact_table():
    """e^eps = 2: the Arb balls of the atoms contain the exact masses (same multiset)."""
    fl = FiniteLoss.epsdelta(sp.log(2), R(1, 10)).power(12)
    balls = fl.arb_items(200)
    exact = [(p, q) for _, p, q in fl.atoms()]
    assert len(balls) == len(exact)
    from flint import arb, fmpq

    tot_p = sum((b for b, _ in balls), arb(0))
    tot_q = sum((b for _, b in balls), arb(0))
    assert tot_p.contains(1) and tot_q.contains(1)
    for p, q in exact:  # every exact atom lies in some ball pair
        P, Q = arb(fmpq(int(p.p), int(p.q))), arb(fmpq(int(q.p), int(q.q)))
        assert any(bp.overlaps(P) and bq.overlaps(Q) for bp, bq in balls)


@pytest.mark.parametrize("eps, d, k, eps_p", [
    (R(1, 10), R(1, 10**6), 100, R(3, 2)),
    (R(1, 10), 0, 1000, R(1, 2)),
    (1 / sp.sqrt(1000 * sp.log(10**6)), R(1, 10**9), 1000, R(3, 2)),
])
def test_certified_delta_of_a_composition(eps, d, k, eps_p):
    f = ta.EpsDelta(eps, d) ** k
    v = ta.delta(f, eps_p)
    assert v.guarantee == "certified"
    with mp.workdps(80):
        ref = _kairouz(mp.mpf(sp.N(eps, 90)), mp.mpf(sp.N(d, 90)), k,
                       mp.mpf(sp.N(eps_p, 90)))
        assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref


def test_two_classes_use_the_unordered_atoms():
    """f_{1/10,0}^{(x) 20} (x) f_{sqrt(2)/10,0}^{(x) 3}: two classes of eps, no exact order of
    the atoms without numbers (arb_ordered is None), so delta sums the unordered balls; against
    the atoms enumerated here, sum_{j,k} (Q - e^eps P)_+ of the two binomial pairs."""
    e1, n1, e2, n2 = R(1, 10), 20, sp.sqrt(2) / 10, 3
    f = ta.EpsDelta(e1, 0) ** n1 @ ta.EpsDelta(e2, 0) ** n2
    fl = finite_loss(ta.simplify(f))
    assert fl.arb_ordered(128) is None and fl.arb_items(128) is not None
    v = ta.delta(f, R(1, 2))
    assert v.guarantee == "certified"
    with mp.workdps(60):
        def pair(eps, n):
            p = 1 / (1 + mp.exp(eps))
            P = [mp.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
            return P, P[::-1]
        P1, Q1 = pair(mp.mpf(e1.p) / e1.q, n1)
        P2, Q2 = pair(mp.sqrt(2) / 10, n2)
        E = mp.exp(mp.mpf(1) / 2)
        ref = mp.fsum(max(Q1[j] * Q2[k] - E * P1[j] * P2[k], 0)
                          for j in range(n1 + 1) for k in range(n2 + 1))
        assert abs(v.mid - ref) <= mp.mpf(10) ** -28 * ref
