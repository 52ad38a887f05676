"""Brute-force references for products of Skellam mechanisms (Agarwal, Kairouz & Liu): the
atoms of T(Sk(mu), Sk(mu) + d) with mpmath Bessel functions at the working precision and
delta(eps) of the k-fold product, k = 1 .. 4, by enumerating the tuples (Dong, Roth & Su,
Prop. 6: delta(eps) = sum over the tuples with loss > eps of Q (1 - e^{eps - L})), with a bound
of the mass left out. Independent of the library's Bessel sums and grids."""

from __future__ import annotations

import bisect

from tradeoff_algebra.numeric.context import mp


def atoms(d: int, mu, K: int):
    """(L, Q) of the atoms x in [d - K, K] (Q(x) = p(x - d), L = log(p(x - d)/p(x)), p(x) =
    e^{-2 mu} I_|x|(2 mu)) and a bound of the Q-mass outside: each tail at most its first term
    over 1 - mu/(n + 1) (I_{n+1}(z)/I_n(z) <= z/(2(n + 1)))."""
    z = 2 * mu
    p = {x: mp.exp(-z) * mp.besseli(abs(x), z) for x in range(-K - d - 1, K + d + 2)}
    out = [(mp.log(p[x - d] / p[x]), p[x - d]) for x in range(-K + d, K + 1)]
    a, b = K - d + 1, K + 1
    return out, p[a] / (1 - mu / (a + 1)) + p[b] / (1 - mu / (b + 1))


def brute_delta(d: int, mu, eps, k: int, K: int = 36):
    """delta(eps) of the k-fold product (k = 1 .. 4) and a bound k * (mass left out) of its
    error: k = 1, 2 summed over the atoms or the ordered pairs; k = 3, 4 as one atom or one pair
    against the suffix of the sorted pairs above eps - l (Q(A) - e^eps P(A) over them)."""
    one, tail = atoms(d, mu, K)
    e = mp.exp(eps)
    if k == 1:
        return mp.fsum(q * -mp.expm1(eps - lv) for lv, q in one if lv > eps), tail
    pairs = sorted((l1 + l2, q1 * q2) for l1, q1 in one for l2, q2 in one)
    if k == 2:
        return mp.fsum(q * -mp.expm1(eps - lv) for lv, q in pairs if lv > eps), 2 * tail
    if k not in (3, 4):
        raise ValueError(f"brute_delta: k={k} (1 to 4)")
    keys = [lv for lv, _ in pairs]
    sq, sp_ = [mp.zero], [mp.zero]  # suffix sums of Q and of Q e^{-L}, from the top
    for lv, q in reversed(pairs):
        sq.append(sq[-1] + q)
        sp_.append(sp_[-1] + q * mp.exp(-lv))
    total = mp.zero
    for la, qa in (one if k == 3 else pairs):
        n = len(pairs) - bisect.bisect_right(keys, eps - la)
        total += qa * (sq[n] - e * mp.exp(-la) * sp_[n])
    return total, k * tail
